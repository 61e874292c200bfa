//! Fortran bindings for Open MPI, whose own Fortran wrappers call `PMPI_*`
//! directly (so the C interposition never sees Fortran calls). Each routine is
//! exported under every name mangling gfortran and Open MPI use: `mpi_x_`,
//! `mpi_x__`, `mpi_x`, `MPI_X` (mpif.h and `use mpi`) and `mpi_x_f08_`
//! (`use mpi_f08`, whose handles are one `INTEGER` and whose `ierror` is
//! optional, i.e. NULL when omitted). Buffers pass through the Fortran
//! MPI_IN_PLACE / MPI_BOTTOM translation.
//!
//! MPICH needs none of this: its Fortran wrappers call the C `MPI_*` functions.

use super::c;
use crate::ffi::{self, RSMPI_Fint as MPI_Fint};
use std::os::raw::{c_int, c_void};

unsafe fn buffer(p: *mut c_void) -> *mut c_void {
    ffi::fr_fortran_buffer(p)
}

unsafe fn set_ierror(ierror: *mut MPI_Fint, rc: c_int) {
    if !ierror.is_null() {
        *ierror = rc as MPI_Fint;
    }
}

unsafe fn allreduce(
    sendbuf: *mut c_void, recvbuf: *mut c_void, count: *const MPI_Fint, datatype: *const MPI_Fint, op: *const MPI_Fint,
    comm: *const MPI_Fint, ierror: *mut MPI_Fint,
) {
    let rc = c::MPI_Allreduce(
        buffer(sendbuf), buffer(recvbuf), *count, ffi::PMPI_Type_f2c(*datatype), ffi::PMPI_Op_f2c(*op), ffi::PMPI_Comm_f2c(*comm),
    );
    set_ierror(ierror, rc);
}

unsafe fn reduce(
    sendbuf: *mut c_void, recvbuf: *mut c_void, count: *const MPI_Fint, datatype: *const MPI_Fint, op: *const MPI_Fint,
    root: *const MPI_Fint, comm: *const MPI_Fint, ierror: *mut MPI_Fint,
) {
    let rc = c::MPI_Reduce(
        buffer(sendbuf), buffer(recvbuf), *count, ffi::PMPI_Type_f2c(*datatype), ffi::PMPI_Op_f2c(*op), *root,
        ffi::PMPI_Comm_f2c(*comm),
    );
    set_ierror(ierror, rc);
}

unsafe fn reduce_scatter(
    sendbuf: *mut c_void, recvbuf: *mut c_void, recvcounts: *const MPI_Fint, datatype: *const MPI_Fint, op: *const MPI_Fint,
    comm: *const MPI_Fint, ierror: *mut MPI_Fint,
) {
    // MPI_Fint is C int in both Debian MPIs, so the counts array passes as is.
    let rc = c::MPI_Reduce_scatter(
        buffer(sendbuf), buffer(recvbuf), recvcounts, ffi::PMPI_Type_f2c(*datatype), ffi::PMPI_Op_f2c(*op),
        ffi::PMPI_Comm_f2c(*comm),
    );
    set_ierror(ierror, rc);
}

unsafe fn reduce_scatter_block(
    sendbuf: *mut c_void, recvbuf: *mut c_void, recvcount: *const MPI_Fint, datatype: *const MPI_Fint, op: *const MPI_Fint,
    comm: *const MPI_Fint, ierror: *mut MPI_Fint,
) {
    let rc = c::MPI_Reduce_scatter_block(
        buffer(sendbuf), buffer(recvbuf), *recvcount, ffi::PMPI_Type_f2c(*datatype), ffi::PMPI_Op_f2c(*op),
        ffi::PMPI_Comm_f2c(*comm),
    );
    set_ierror(ierror, rc);
}

unsafe fn finalize(ierror: *mut MPI_Fint) {
    set_ierror(ierror, c::MPI_Finalize());
}

/// Export `$imp` under each of the given symbol names with the argument list.
macro_rules! export {
    ($imp:ident $args:tt as $($name:ident),+) => {
        $( export!(@one $imp $args $name); )+
    };
    (@one $imp:ident ($($arg:ident : $ty:ty),*) $name:ident) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) {
            $imp($($arg),*)
        }
    };
}

type Buf = *mut c_void;
type Int = *const MPI_Fint;
type Err = *mut MPI_Fint;

export!(allreduce(s: Buf, r: Buf, n: Int, t: Int, o: Int, c: Int, e: Err)
    as mpi_allreduce_, mpi_allreduce__, mpi_allreduce, MPI_ALLREDUCE, mpi_allreduce_f08_);
export!(reduce(s: Buf, r: Buf, n: Int, t: Int, o: Int, root: Int, c: Int, e: Err)
    as mpi_reduce_, mpi_reduce__, mpi_reduce, MPI_REDUCE, mpi_reduce_f08_);
export!(reduce_scatter(s: Buf, r: Buf, n: Int, t: Int, o: Int, c: Int, e: Err)
    as mpi_reduce_scatter_, mpi_reduce_scatter__, mpi_reduce_scatter, MPI_REDUCE_SCATTER, mpi_reduce_scatter_f08_);
export!(reduce_scatter_block(s: Buf, r: Buf, n: Int, t: Int, o: Int, c: Int, e: Err)
    as mpi_reduce_scatter_block_, mpi_reduce_scatter_block__, mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
    mpi_reduce_scatter_block_f08_);
export!(finalize(e: Err) as mpi_finalize_, mpi_finalize__, mpi_finalize, MPI_FINALIZE, mpi_finalize_f08_);
