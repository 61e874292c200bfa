//! fastred: MPI reduction collectives (`MPI_Allreduce`, `MPI_Reduce`,
//! `MPI_Reduce_scatter`, `MPI_Reduce_scatter_block`) with the algorithms of the
//! literature, interposed through the PMPI profiling layer.
//!
//! Layers, top to bottom: `abi` (exported C and Fortran symbols) → `dispatch`
//! (own-or-fallback, algorithm choice, errors) → `algo` (algorithms, generic
//! over `algo::Transport` and `op::Reducer`) → `transport` / `op`.

pub mod algo;
pub mod error;
pub mod ffi;
pub mod op;
pub mod transport;
pub mod abi;
pub mod capi;
pub mod comm;
pub mod config;
pub mod dispatch;
pub mod model;
pub mod mpi;
pub mod select;
pub mod stats;
pub mod topology;
pub mod types;
