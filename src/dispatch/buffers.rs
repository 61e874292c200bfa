//! The user's buffers: where a rank's input is, where its result goes, and
//! the scratch fastred adds. This is the one place where user memory becomes
//! Rust slices.

use std::os::raw::{c_int, c_void};

/// Where this rank's input is.
#[derive(Clone, Copy, Debug)]
pub enum Input {
    /// In the receive buffer (`MPI_IN_PLACE`).
    InPlace,
    /// In the send buffer.
    Send(*const c_void),
    /// Unusable (erroneous arguments): zeros stand in.
    Missing,
}

/// A byte slice over a user buffer (empty for a zero length, whatever the pointer).
///
/// # Safety
/// `ptr` must be valid for reads of `len` bytes for `'a` (MPI's contract for
/// the buffers of a call: as large as count × extent says).
pub unsafe fn user_slice<'a>(ptr: *const c_void, len: usize) -> &'a [u8] {
    // SAFETY: the caller's contract; a zero length never touches `ptr`.
    if len == 0 { &[] } else { unsafe { std::slice::from_raw_parts(ptr.cast(), len) } }
}

/// Like [`user_slice`], writable.
///
/// # Safety
/// `ptr` must be valid for reads and writes of `len` bytes for `'a`, and not
/// aliased by any other slice in use.
pub unsafe fn user_slice_mut<'a>(ptr: *mut c_void, len: usize) -> &'a mut [u8] {
    // SAFETY: the caller's contract; a zero length never touches `ptr`.
    if len == 0 { &mut [] } else { unsafe { std::slice::from_raw_parts_mut(ptr.cast(), len) } }
}

/// The entries of a user's `recvcounts` array, as `i64`s.
#[derive(Clone)]
pub enum UserCounts<'a> {
    Int(std::slice::Iter<'a, c_int>),
    Large(std::slice::Iter<'a, crate::ffi::MPI_Count>),
}

impl Iterator for UserCounts<'_> {
    type Item = i64;
    fn next(&mut self) -> Option<i64> {
        match self {
            UserCounts::Int(it) => it.next().map(|&n| n.into()),
            UserCounts::Large(it) => it.next().map(|&n| n as i64),
        }
    }
}

/// The `p` entries of `call`'s `recvcounts` array (an irregular
/// reduce-scatter's), or `None` for a single count or a NULL array.
pub fn user_counts(call: &super::Call, p: usize) -> Option<UserCounts<'_>> {
    use super::Counts;
    // SAFETY: MPI requires recvcounts to hold one entry per process, readable
    // while the call runs (the iterator borrows the call).
    match call.counts {
        Counts::PerRank(ptr) if !ptr.is_null() => Some(UserCounts::Int(unsafe { std::slice::from_raw_parts(ptr, p) }.iter())),
        Counts::PerRankLarge(ptr) if !ptr.is_null() => Some(UserCounts::Large(unsafe { std::slice::from_raw_parts(ptr, p) }.iter())),
        _ => None,
    }
}

pub use crate::scratch::Scratch;

/// Fill `work` (the vector's length) with this rank's input (a copy counted on `t`).
pub fn load_input(t: &dyn crate::algo::Transport, input: Input, work: &mut [u8]) {
    match input {
        // SAFETY: validation checked the send buffer is non-null; MPI defines its size.
        Input::Send(p) => crate::algo::copy(t, work, unsafe { user_slice(p, work.len()) }),
        Input::Missing => work.fill(0),
        Input::InPlace => {}
    }
}

/// Whether the library must be handed `coll` (at `root`, for a reduce) with
/// a copy of the receive buffer as the send buffer instead of `MPI_IN_PLACE`
/// (README, "Library bugs"), both MPICH 4.0 bugs that separate buffers avoid:
/// - `MPI_Reduce_scatter` in place stops on an internal assertion (`memcpy
///   argument memory ranges overlap`) for long vectors whose blocks differ,
///   e.g. counts {35312, 35313} (`_block` in place works);
/// - `MPI_Reduce` in place at a root other than 0 segfaults for vectors over
///   about 2.8 KB.
pub fn in_place_needs_a_copy(coll: crate::collective::Collective, root: c_int) -> bool {
    use crate::collective::Collective::{Reduce, ReduceScatter};
    cfg!(fastred_mpi = "mpich") && (coll == ReduceScatter || coll == Reduce && root != 0)
}

/// Run `f` (the library's call) with the buffers a rank takes part with:
/// its valid ones, `MPI_IN_PLACE` where its input is in the receive buffer
/// (or a copy of the receive buffer where [`in_place_needs_a_copy`]), and
/// zeroed scratch of `bytes` in place of invalid ones.
pub fn with_scratch_buffers(
    coll: crate::collective::Collective, root: c_int, input: Input, output: Option<*mut c_void>, bytes: usize,
    f: impl FnOnce(*const c_void, *mut c_void) -> c_int,
) -> crate::error::MpiResult<c_int> {
    let mut send_scratch = Scratch::empty();
    let send: *const c_void = match (input, output) {
        (Input::Send(p), _) => p,
        (Input::InPlace, Some(p)) if in_place_needs_a_copy(coll, root) => {
            send_scratch.resize(bytes)?;
            // SAFETY: in place, the receive buffer holds the input: `bytes` of it.
            send_scratch.copy_from_slice(unsafe { user_slice(p, bytes) });
            send_scratch.as_ptr().cast()
        }
        (Input::InPlace, _) => crate::mpi::handle::in_place(),
        (Input::Missing, _) => {
            send_scratch.resize(bytes)?;
            send_scratch.fill(0);
            send_scratch.as_ptr().cast()
        }
    };
    let mut recv_scratch = Scratch::empty();
    let recv = match output {
        Some(p) => p,
        None => {
            recv_scratch.resize(bytes)?;
            recv_scratch.as_mut_ptr().cast()
        }
    };
    Ok(f(send, recv))
}
