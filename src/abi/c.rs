//! C bindings: `MPI_Allreduce`, `MPI_Reduce`, `MPI_Reduce_scatter`,
//! `MPI_Reduce_scatter_block`, and on MPICH (MPI-4) their large-count `_c` forms.

use crate::dispatch::{run, Call, Counts};
use crate::ffi::{self, MPI_Comm, MPI_Datatype, MPI_Op};
use crate::select::Collective;
use std::os::raw::{c_int, c_void};

#[no_mangle]
pub unsafe extern "C" fn MPI_Allreduce(
    sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm,
) -> c_int {
    let call = Call { coll: Collective::Allreduce, sendbuf, recvbuf, counts: Counts::One(count as i64), datatype, op, root: 0, comm };
    run(call, move |sendbuf, recvbuf| ffi::PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm))
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce(
    sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, root: c_int,
    comm: MPI_Comm,
) -> c_int {
    let call = Call { coll: Collective::Reduce, sendbuf, recvbuf, counts: Counts::One(count as i64), datatype, op, root, comm };
    run(call, move |sendbuf, recvbuf| ffi::PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm))
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_scatter(
    sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: MPI_Datatype, op: MPI_Op,
    comm: MPI_Comm,
) -> c_int {
    let call = Call {
        coll: Collective::ReduceScatter, sendbuf, recvbuf, counts: Counts::PerRank(recvcounts), datatype, op, root: 0, comm,
    };
    run(call, move |sendbuf, recvbuf| ffi::PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm))
}

#[no_mangle]
pub unsafe extern "C" fn MPI_Reduce_scatter_block(
    sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm,
) -> c_int {
    let call = Call {
        coll: Collective::ReduceScatterBlock, sendbuf, recvbuf, counts: Counts::One(recvcount as i64), datatype, op, root: 0, comm,
    };
    run(call, move |sendbuf, recvbuf| ffi::PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm))
}

/// MPI-4 large-count forms (MPICH 4 only; Open MPI 4.1 has none).
#[cfg(fastred_mpi = "mpich")]
mod large_count {
    use super::*;
    use crate::ffi::MPI_Count;

    #[no_mangle]
    pub unsafe extern "C" fn MPI_Allreduce_c(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm,
    ) -> c_int {
        let call = Call { coll: Collective::Allreduce, sendbuf, recvbuf, counts: Counts::One(count), datatype, op, root: 0, comm };
        run(call, move |sendbuf, recvbuf| ffi::PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm))
    }

    #[no_mangle]
    pub unsafe extern "C" fn MPI_Reduce_c(
        sendbuf: *const c_void, recvbuf: *mut c_void, count: MPI_Count, datatype: MPI_Datatype, op: MPI_Op, root: c_int,
        comm: MPI_Comm,
    ) -> c_int {
        let call = Call { coll: Collective::Reduce, sendbuf, recvbuf, counts: Counts::One(count), datatype, op, root, comm };
        run(call, move |sendbuf, recvbuf| ffi::PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm))
    }

    #[no_mangle]
    pub unsafe extern "C" fn MPI_Reduce_scatter_c(
        sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const MPI_Count, datatype: MPI_Datatype, op: MPI_Op,
        comm: MPI_Comm,
    ) -> c_int {
        let call = Call {
            coll: Collective::ReduceScatter, sendbuf, recvbuf, counts: Counts::PerRankLarge(recvcounts), datatype, op, root: 0,
            comm,
        };
        run(call, move |sendbuf, recvbuf| ffi::PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm))
    }

    #[no_mangle]
    pub unsafe extern "C" fn MPI_Reduce_scatter_block_c(
        sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: MPI_Count, datatype: MPI_Datatype, op: MPI_Op,
        comm: MPI_Comm,
    ) -> c_int {
        let call = Call {
            coll: Collective::ReduceScatterBlock, sendbuf, recvbuf, counts: Counts::One(recvcount), datatype, op, root: 0, comm,
        };
        run(call, move |sendbuf, recvbuf| ffi::PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm))
    }
}

/// fastred's part of finalisation (the `FASTRED_STATS` report, agreed with
/// rank 0; fastred's keyval released), then the library's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Finalize() -> c_int {
    crate::dispatch::finalize();
    ffi::PMPI_Finalize()
}
