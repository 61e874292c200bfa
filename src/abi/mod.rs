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
