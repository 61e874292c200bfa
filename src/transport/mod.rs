//! Implementations of [`Transport`](crate::algo::Transport): MPI point-to-point
//! on fastred's private communicator, threads in one process (tests), and a
//! counting wrapper that records what an algorithm sends.

pub mod counting;
pub mod inproc;
pub mod pmpi;
pub mod solo;
