//! Argument validation and its error semantics.
//!
//! Every "not ours" decision depends only on arguments that MPI requires to be
//! consistent across ranks (communicator, count, type signature, op, root), so
//! all ranks take the same path. Invalid values of those go to the MPI library,
//! which reports exactly the error it would have reported without fastred,
//! except negative counts, which MPICH 4.0.2 crashes on: fastred reports
//! `MPI_ERR_COUNT` itself. Errors only one rank can see (NULL or aliased
//! buffers, `MPI_IN_PLACE` on a non-root) must not make that rank leave the
//! protocol the others run: it takes part with scratch buffers, then reports
//! the error (with the class the running library uses) through the error handler.

use super::buffers::{user_counts, Input};
use super::{Call, Counts, NotOurs};
use crate::algo::Blocks;
use crate::error::{Complaint, MpiError};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;
use crate::mpi::{class, handle};
use crate::select::Collective;
use std::os::raw::{c_int, c_void};

/// An error this rank reports (after taking part, for a local one).
pub type LocalError = (Complaint, c_int);

/// How the vector of `call` on `p` processes is cut into blocks (one block
/// for allreduce and reduce), or why fastred does not run it (a negative
/// count, which MPICH 4.0.2 crashes on instead of reporting).
pub fn blocks_of(call: &Call, p: usize) -> Result<Blocks, NotOurs> {
    let blocks = match call.counts {
        Counts::One(n) if n < 0 => Err(n),
        Counts::One(n) if call.coll == Collective::ReduceScatterBlock => {
            let total = (n as usize).checked_mul(p).ok_or(NotOurs::Fallback("count too large"))?;
            Ok(Blocks::even(total, p))
        }
        Counts::One(n) => Ok(Blocks::even(n as usize, 1)),
        _ => per_rank(user_counts(call, p).ok_or(NotOurs::Fallback("null recvcounts"))?),
    };
    blocks.map_err(|n| {
        log::debug!("{}: negative count ({n})", call.coll.mpi_name());
        NotOurs::Invalid(Complaint::NegativeCount, class::count())
    })
}

/// Blocks from a `recvcounts` array, or its first negative entry (read
/// twice rather than copied: the per-call path allocates nothing).
fn per_rank(counts: impl Iterator<Item = i64> + Clone) -> Result<Blocks, i64> {
    match counts.clone().find(|&n| n < 0) {
        Some(n) => Err(n),
        None => Ok(Blocks::from_counts(counts.map(|n| n as usize))),
    }
}

/// Datatype and op handles the running library would crash on rather than
/// report: Open MPI 4.1's `MPI_Allreduce` dereferences NULL datatype and op
/// handles (what `MPI_Type_f2c` / `MPI_Op_f2c` return for invalid Fortran
/// handles), so fastred reports those itself. Other invalid handles go to the
/// library, which reports them.
pub fn check_handles(call: &Call) -> Result<(), NotOurs> {
    if cfg!(fastred_mpi = "openmpi") {
        if call.datatype != handle::datatype_null() && !crate::mpi::datatype_is_plausible(call.datatype) {
            return Err(NotOurs::Invalid(Complaint::InvalidDatatype, class::type_()));
        }
        if call.op != handle::op_null() && !crate::mpi::op_is_plausible(call.op) {
            return Err(NotOurs::Invalid(Complaint::InvalidOp, class::op()));
        }
    }
    Ok(())
}

/// Whether `call`'s buffers are ordinary on this rank: a send buffer (not
/// `MPI_IN_PLACE`, not NULL) apart from a non-NULL receive buffer (or none
/// needed: a non-root of a reduce). Then [`check_buffers`] finds no error and
/// the library may be handed the call as it is.
pub fn plain_buffers(call: &Call, rank: usize) -> bool {
    let needs_recvbuf = call.coll != Collective::Reduce || rank as c_int == call.root;
    !call.sendbuf.is_null()
        && call.sendbuf != handle::in_place()
        && (!call.recvbuf.is_null() || !needs_recvbuf)
        && !std::ptr::eq(call.sendbuf, call.recvbuf)
}

/// This rank's buffers: where its input is, whether its receive buffer is
/// usable, and the error its arguments deserve, if any.
pub fn check_buffers(call: &Call, rank: usize, total_bytes: usize, block_bytes: usize) -> (Input, Option<*mut c_void>, Option<LocalError>) {
    let open_mpi = cfg!(fastred_mpi = "openmpi");
    let is_root = call.coll != Collective::Reduce || rank as c_int == call.root;
    let output_bytes = match call.coll {
        Collective::Allreduce | Collective::Reduce if is_root => total_bytes,
        Collective::Allreduce | Collective::Reduce => 0,
        _ => block_bytes,
    };
    let mut error = None;
    let mut input = if call.sendbuf == handle::in_place() { Input::InPlace } else { Input::Send(call.sendbuf) };
    // With MPI_IN_PLACE the receive buffer also holds the input (the whole vector).
    let uses_recvbuf = output_bytes > 0 || (matches!(input, Input::InPlace) && is_root);
    let mut output = uses_recvbuf.then_some(call.recvbuf);
    if total_bytes == 0 {
        return (input, output, None);
    }
    if matches!(input, Input::InPlace) && !is_root {
        // MPICH 4.0.2 crashes on this; Open MPI reports MPI_ERR_ARG.
        error = Some((Complaint::InPlaceOnNonRoot, if open_mpi { class::arg() } else { class::buffer() }));
        input = Input::Missing;
    }
    if output.is_some_and(|p| p.is_null()) {
        error = Some((Complaint::NullReceiveBuffer, class::buffer()));
        output = None;
        if matches!(input, Input::InPlace) {
            input = Input::Missing;
        }
    }
    if let Input::Send(p) = input {
        if p.is_null() {
            // Open MPI 4.1 segfaults on this.
            error = Some((Complaint::NullSendBuffer, class::buffer()));
            input = Input::Missing;
        } else if output_bytes > 0 && std::ptr::eq(p, call.recvbuf) {
            // The input is in the receive buffer, as with MPI_IN_PLACE.
            let class = if open_mpi && call.coll == Collective::Reduce { class::arg() } else { class::buffer() };
            error = Some((Complaint::AliasedBuffers, class));
            input = Input::InPlace;
        }
    }
    (input, output, error)
}

/// Fastred's own error codes: one per (collective, complaint), each in the
/// standard class with a message (`MPI_Add_error_code` + `MPI_Add_error_string`),
/// so at most 4 × [`Complaint::COUNT`] codes are ever added however many calls
/// fail (MPI has no way to remove a code).
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

/// The MPI error code the user gets for `e` in `coll`: the code MPI returned,
/// or for fastred's own failures a code with a message in `MPI_ERR_NO_MEM` /
/// `MPI_ERR_INTERN`.
pub fn code_of(coll: Collective, e: MpiError) -> c_int {
    match e {
        MpiError::Code(c) => c,
        MpiError::NoMemory => code_for(coll, Complaint::NoMemory, class::no_mem()),
        MpiError::Internal => code_for(coll, Complaint::Internal, class::intern()),
    }
}
