//! The user's buffers: where a rank's input is, where its result goes, and
//! the scratch fastred adds. This is the one place where user memory becomes
//! Rust slices.

use std::os::raw::c_void;

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

/// The `p` entries of a user's `recvcounts` array.
///
/// # Safety
/// `ptr` must point to `p` readable values (MPI's contract for recvcounts).
pub unsafe fn user_counts<'a, T: Copy + Into<i64> + 'a>(ptr: *const T, p: usize) -> impl Iterator<Item = i64> + 'a {
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(ptr, p) }.iter().map(|&n| n.into())
}

pub use crate::scratch::Scratch;

/// Fill `work` (the vector's length) with this rank's input.
pub fn load_input(input: Input, work: &mut [u8]) {
    match input {
        // SAFETY: validation checked the send buffer is non-null; MPI defines its size.
        Input::Send(p) => work.copy_from_slice(unsafe { user_slice(p, work.len()) }),
        Input::Missing => work.fill(0),
        Input::InPlace => {}
    }
}
