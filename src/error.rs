//! The one error type inside fastred: an MPI error code.

use std::fmt;

/// An MPI error code (as returned by a `PMPI_*` call or chosen by fastred).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MpiError(pub i32);

impl fmt::Display for MpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MPI error code {}", self.0)
    }
}

/// Result of an operation that can fail with an MPI error code.
pub type MpiResult<T = ()> = Result<T, MpiError>;
