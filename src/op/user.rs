//! User-defined ops (`MPI_Op_create`), applied with `PMPI_Reduce_local`.

use super::Reducer;
use crate::error::{MpiError, MpiResult};
use crate::ffi::{self, MPI_Datatype, MPI_Op};
use std::os::raw::c_int;

/// A user op on a dense datatype of `extent` bytes per item.
pub struct UserReducer {
    pub op: MPI_Op,
    pub datatype: MPI_Datatype,
    pub extent: usize,
}

impl UserReducer {
    /// `inout ← input ∘ inout` (the order `MPI_Reduce_local` defines).
    fn reduce_local(&self, input: &[u8], inout: &mut [u8]) -> MpiResult {
        let per_call = (c_int::MAX as usize / self.extent).max(1) * self.extent;
        for (i, o) in input.chunks(per_call).zip(inout.chunks_mut(per_call)) {
            // SAFETY: both chunks hold whole items of `datatype`.
            let rc = unsafe {
                ffi::PMPI_Reduce_local(i.as_ptr().cast(), o.as_mut_ptr().cast(), (o.len() / self.extent) as c_int, self.datatype, self.op)
            };
            if rc != ffi::SUCCESS {
                return Err(MpiError(rc));
            }
        }
        Ok(())
    }
}

impl Reducer for UserReducer {
    fn elem_size(&self) -> usize {
        self.extent
    }

    fn reduce(&self, src: &[u8], dst: &mut [u8], src_is_left: bool) -> MpiResult {
        if src_is_left {
            self.reduce_local(src, dst)
        } else {
            // dst ∘ src: MPI only offers input ∘ inout, so swap through a copy.
            let left = dst.to_vec();
            dst.copy_from_slice(src);
            self.reduce_local(&left, dst)
        }
    }
}
