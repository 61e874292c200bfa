//! Errors inside fastred: an [`MpiError`] is a code an MPI call returned, or
//! one of the two failures fastred itself can have (no memory for scratch
//! buffers, a panic); a [`Complaint`] is what fastred reports about a call's
//! arguments. Which MPI error code the user gets for each is decided at the
//! boundary (`dispatch::validate`).

use crate::ffi;
use std::fmt;
use std::os::raw::c_int;

/// An error inside fastred.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MpiError {
    /// An MPI error code (as returned by a `PMPI_*` call).
    Code(i32),
    /// Scratch memory could not be allocated (`MPI_ERR_NO_MEM`).
    NoMemory,
    /// A panic inside fastred (`MPI_ERR_INTERN`).
    Internal,
}

impl fmt::Display for MpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MpiError::Code(c) => write!(f, "MPI error code {c}"),
            MpiError::NoMemory => f.write_str("out of memory"),
            MpiError::Internal => f.write_str("internal error"),
        }
    }
}

/// Result of an operation that can fail with an MPI error.
pub type MpiResult<T = ()> = Result<T, MpiError>;

/// `Ok` for `MPI_SUCCESS`, else the code as an error.
pub fn check(rc: c_int) -> MpiResult {
    if rc == ffi::SUCCESS { Ok(()) } else { Err(MpiError::Code(rc)) }
}

/// What fastred reports itself (the library would crash, or cannot see it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Complaint {
    NegativeCount,
    InvalidDatatype,
    InvalidOp,
    NullSendBuffer,
    NullReceiveBuffer,
    InPlaceOnNonRoot,
    AliasedBuffers,
    NoMemory,
    Internal,
}

impl Complaint {
    pub const COUNT: usize = 9;

    pub fn message(self) -> &'static str {
        match self {
            Complaint::NegativeCount => "negative count",
            Complaint::InvalidDatatype => "invalid datatype handle",
            Complaint::InvalidOp => "invalid op handle",
            Complaint::NullSendBuffer => "null send buffer",
            Complaint::NullReceiveBuffer => "null receive buffer",
            Complaint::InPlaceOnNonRoot => "MPI_IN_PLACE on a non-root process",
            Complaint::AliasedBuffers => "send and receive buffers are the same (use MPI_IN_PLACE)",
            Complaint::NoMemory => "cannot allocate scratch memory for this call",
            Complaint::Internal => "internal error (a panic inside fastred)",
        }
    }
}
