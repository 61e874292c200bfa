//! The exported MPI symbols. Thin: each turns its arguments into one
//! [`Call`](crate::dispatch::Call) and hands it, with the matching `PMPI_*`
//! call as the fallback, to [`dispatch::run`](crate::dispatch::run).

// The exported functions are the MPI standard's C and Fortran API: their
// safety contract is the standard's (valid handles, buffers as large as the
// counts say), so they carry no separate `# Safety` sections.
#![allow(clippy::missing_safety_doc)]

pub mod c;
#[cfg(fastred_mpi = "openmpi")]
pub mod fortran;

/// MPICH's `use mpi_f08` `MPI_Finalize` does not go through the C
/// `MPI_Finalize` (its mpif.h and `use mpi` bindings, and all its reduction
/// bindings, do): export its symbol so fastred's finalisation runs there too.
#[cfg(fastred_mpi = "mpich")]
#[no_mangle]
pub unsafe extern "C" fn mpi_finalize_f08_(ierror: *mut std::os::raw::c_int) {
    let rc = c::MPI_Finalize();
    if !ierror.is_null() {
        *ierror = rc;
    }
}
