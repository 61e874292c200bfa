//! The exported MPI symbols. Thin: each turns its arguments into one
//! [`Call`](crate::dispatch::Call) and hands it, with the matching `PMPI_*`
//! call as the fallback, to [`dispatch::run`](crate::dispatch::run).

pub mod c;
#[cfg(fastred_mpi = "openmpi")]
pub mod fortran;
