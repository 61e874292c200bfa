//! User-defined ops (`MPI_Op_create`), applied with `PMPI_Reduce_local`.

use super::Reducer;
use crate::error::MpiResult;
use crate::ffi::{MPI_Datatype, MPI_Op};
use crate::mpi;

/// A user op on a dense datatype of `extent` bytes per item.
pub struct UserReducer {
    pub op: MPI_Op,
    pub datatype: MPI_Datatype,
    pub extent: usize,
}

impl Reducer for UserReducer {
    fn elem_size(&self) -> usize {
        self.extent
    }

    fn reduce(&self, src: &[u8], dst: &mut [u8], src_is_left: bool) -> MpiResult {
        if src_is_left {
            mpi::reduce_local(src, dst, self.extent, self.datatype, self.op)
        } else {
            // dst ∘ src: MPI only offers input ∘ inout, so swap through a copy.
            let mut left = crate::scratch::Scratch::new(dst.len())?;
            left.copy_from_slice(dst);
            dst.copy_from_slice(src);
            mpi::reduce_local(&left, dst, self.extent, self.datatype, self.op)
        }
    }
}
