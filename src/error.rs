//! Errors inside fastred, and the MPI error codes the user sees for them.
//!
//! Inside, an error is an [`MpiError`]: a code an MPI call returned, or one of
//! the two failures fastred itself can have (no memory for scratch buffers, a
//! panic). At the boundary each becomes an MPI error code; fastred's own
//! complaints about arguments ([`Complaint`]) get a code in the standard class
//! with a message (`MPI_Add_error_code` + `MPI_Add_error_string`), one per
//! (collective, complaint) pair, so at most 4 × [`Complaint::COUNT`] codes are
//! ever added however many calls fail (MPI has no way to remove a code).

use crate::ffi;
use crate::select::Collective;
use std::fmt;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

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

/// Codes made so far, per collective and complaint (0: not yet made).
static CODES: [[AtomicI32; Complaint::COUNT]; 4] = [const { [const { AtomicI32::new(0) }; Complaint::COUNT] }; 4];
static MAKING: Mutex<()> = Mutex::new(());

/// The error code (class `class`) for `complaint` in `coll`, whose
/// `MPI_Error_string` is "fastred: MPI_Xxx: message". Made once per pair;
/// the bare class if MPI cannot add codes.
pub fn code_for(coll: Collective, complaint: Complaint, class: c_int) -> c_int {
    let slot = &CODES[coll as usize][complaint as usize];
    let known = slot.load(Ordering::Acquire);
    if known != 0 {
        return known;
    }
    let _guard = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    let known = slot.load(Ordering::Acquire);
    if known != 0 {
        return known;
    }
    let text = format!("fastred: {}: {}", coll.mpi_name(), complaint.message());
    let code = crate::mpi::add_error_code(class, &text).unwrap_or(class);
    slot.store(code, Ordering::Release);
    code
}

impl MpiError {
    /// The MPI error code the user gets for this error.
    pub fn code(self) -> c_int {
        match self {
            MpiError::Code(c) => c,
            MpiError::NoMemory => crate::mpi::class::no_mem(),
            MpiError::Internal => crate::mpi::class::intern(),
        }
    }
}
