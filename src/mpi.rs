//! The safe layer over the PMPI calls fastred makes for itself (in the manner
//! of rsmpi's raw layer): small functions that take Rust values, return
//! [`MpiResult`]s, and hold the `unsafe` blocks with the reason each is sound.
//! Everything else in the crate calls MPI through here, except the
//! point-to-point transport (`transport/pmpi.rs`) and the exported symbols.
//!
//! Handles are plain values (`MPI_Comm` etc.): a function here is safe for
//! any handle value, because MPI validates handles and reports an invalid one
//! as an error code. The exception is what MPI cannot validate, which the
//! functions below check first ([`datatype_is_plausible`], [`op_is_plausible`]):
//! an error in a call on a datatype or op goes to `MPI_COMM_WORLD`'s error
//! handler, not to the communicator the user passed.

use crate::error::{check, MpiError, MpiResult};
use crate::ffi::{self, MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request};
use crate::scratch::Pooled;
use std::os::raw::{c_int, c_void};

/// A pointer MPI may see for `data`. An empty slice's pointer is dangling
/// (0x1 for bytes), and 0x1 is Open MPI's `MPI_IN_PLACE`, so empty buffers
/// point at a real (unused) byte instead.
pub fn buf_ptr(data: &[u8]) -> *const c_void {
    static EMPTY: u8 = 0;
    if data.is_empty() { (&EMPTY as *const u8).cast() } else { data.as_ptr().cast() }
}

/// [`buf_ptr`] for a buffer MPI writes (never written when empty).
pub fn buf_mut_ptr(data: &mut [u8]) -> *mut c_void {
    if data.is_empty() { buf_ptr(data) as *mut c_void } else { data.as_mut_ptr().cast() }
}

fn int(len: usize) -> MpiResult<c_int> {
    c_int::try_from(len).map_err(|_| MpiError::Code(class::count()))
}

/// Error classes, from the shim.
pub mod class {
    use crate::ffi;
    // SAFETY (all): the shim returns a compile-time constant of mpi.h.
    pub fn intern() -> i32 { unsafe { ffi::fr_err_intern() } }
    pub fn count() -> i32 { unsafe { ffi::fr_err_count() } }
    pub fn buffer() -> i32 { unsafe { ffi::fr_err_buffer() } }
    pub fn arg() -> i32 { unsafe { ffi::fr_err_arg() } }
    pub fn no_mem() -> i32 { unsafe { ffi::fr_err_no_mem() } }
    pub fn type_() -> i32 { unsafe { ffi::fr_err_type() } }
    pub fn op() -> i32 { unsafe { ffi::fr_err_op() } }
    pub fn truncate() -> i32 { unsafe { ffi::fr_err_truncate() } }
}

/// Constant handles, from the shim.
pub mod handle {
    use crate::ffi::{self, MPI_Comm, MPI_Datatype, MPI_Op};
    // SAFETY (all): the shim returns a predefined handle of mpi.h.
    pub fn comm_world() -> MPI_Comm { unsafe { ffi::fr_comm_world() } }
    pub fn comm_self() -> MPI_Comm { unsafe { ffi::fr_comm_self() } }
    pub fn comm_null() -> MPI_Comm { unsafe { ffi::fr_comm_null() } }
    pub fn datatype_null() -> MPI_Datatype { unsafe { ffi::fr_datatype_null() } }
    pub fn byte() -> MPI_Datatype { unsafe { ffi::fr_byte() } }
    pub fn op_null() -> MPI_Op { unsafe { ffi::fr_op_null() } }
    pub fn in_place() -> *const std::os::raw::c_void { unsafe { ffi::fr_in_place() as *const _ } }
}

/// MPI has been initialised (once true, remembered: the per-call path asks
/// MPI nothing it already knows; the end is `dispatch`'s finalising flag).
pub fn is_initialized() -> bool {
    static SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if SEEN.load(std::sync::atomic::Ordering::Relaxed) {
        return true;
    }
    let mut init = 0;
    // SAFETY: out-pointer to a local; valid at any time.
    let yes = unsafe { ffi::PMPI_Initialized(&mut init) } == ffi::SUCCESS && init != 0;
    SEEN.store(yes, std::sync::atomic::Ordering::Relaxed);
    yes
}

/// Whether the program's MPI calls never run concurrently: its thread level
/// (`MPI_Query_thread`) is below `MPI_THREAD_MULTIPLE`, so MPI's own contract
/// orders every intercepted call after the one before (single, funneled,
/// serialized). False if the level cannot be read.
pub fn calls_are_serialized() -> bool {
    let mut level = 0;
    // SAFETY: out-pointer to a local; valid once MPI is initialised.
    unsafe { ffi::PMPI_Query_thread(&mut level) == ffi::SUCCESS && level < ffi::MPI_THREAD_MULTIPLE as c_int }
}

/// MPI is initialised and not yet finalised.
pub fn is_running() -> bool {
    let (mut init, mut fini) = (0, 0);
    // SAFETY: out-pointers to locals; both calls are valid at any time.
    unsafe { ffi::PMPI_Initialized(&mut init) == ffi::SUCCESS && ffi::PMPI_Finalized(&mut fini) == ffi::SUCCESS && init != 0 && fini == 0 }
}

/// This process's rank in `comm`.
pub fn rank(comm: MPI_Comm) -> MpiResult<usize> {
    let mut r = 0;
    // SAFETY: out-pointer to a local.
    check(unsafe { ffi::PMPI_Comm_rank(comm, &mut r) })?;
    Ok(r as usize)
}

/// The number of processes in `comm`.
pub fn size(comm: MPI_Comm) -> MpiResult<usize> {
    let mut s = 0;
    // SAFETY: out-pointer to a local.
    check(unsafe { ffi::PMPI_Comm_size(comm, &mut s) })?;
    Ok(s as usize)
}

/// Whether `comm` is an intercommunicator.
pub fn is_inter(comm: MPI_Comm) -> MpiResult<bool> {
    let mut flag = 0;
    // SAFETY: out-pointer to a local.
    check(unsafe { ffi::PMPI_Comm_test_inter(comm, &mut flag) })?;
    Ok(flag != 0)
}

/// A new communicator with the same group as `comm` (collective on `comm`)
/// and errors returned, not raised. Made with `MPI_Comm_create`, which,
/// unlike `MPI_Comm_dup`, copies none of `comm`'s attributes: the user's
/// copy and delete callbacks never run for it.
pub fn private_copy(comm: MPI_Comm) -> MpiResult<MPI_Comm> {
    let mut group = std::mem::MaybeUninit::uninit();
    // SAFETY: out-pointer to a local handle, initialised on success.
    check(unsafe { ffi::PMPI_Comm_group(comm, group.as_mut_ptr()) })?;
    // SAFETY: initialised by the successful call above.
    let mut group = unsafe { group.assume_init() };
    let mut copy = handle::comm_null();
    // SAFETY: a group of `comm`; out-pointer to a local.
    let created = check(unsafe { ffi::PMPI_Comm_create(comm, group, &mut copy) });
    // SAFETY: the group made above, freed once.
    unsafe { ffi::PMPI_Group_free(&mut group) };
    created?;
    // SAFETY: a communicator made above; a predefined error handler.
    if let Err(e) = check(unsafe { ffi::PMPI_Comm_set_errhandler(copy, ffi::fr_errors_return()) }) {
        let _ = free(&mut copy);
        return Err(e);
    }
    Ok(copy)
}

/// Free a communicator fastred made (sets it to `MPI_COMM_NULL`).
pub fn free(comm: &mut MPI_Comm) -> MpiResult {
    // SAFETY: pointer to the caller's handle.
    check(unsafe { ffi::PMPI_Comm_free(comm) })
}

/// An attribute delete callback, as MPI calls it.
pub type DeleteFn = unsafe extern "C" fn(MPI_Comm, c_int, *mut c_void, *mut c_void) -> c_int;

/// Copy callback for fastred's keyvals: duplicates of a communicator never
/// inherit fastred's attribute (each communicator gets its own state).
unsafe extern "C" fn never_copy(
    _old: MPI_Comm, _keyval: c_int, _extra: *mut c_void, _in: *mut c_void, _out: *mut c_void, flag: *mut c_int,
) -> c_int {
    // SAFETY: MPI passes a valid out-pointer.
    unsafe { *flag = 0 };
    ffi::SUCCESS
}

/// A communicator keyval whose attribute is not copied and is released by `delete`.
pub fn create_keyval(delete: DeleteFn) -> MpiResult<c_int> {
    let mut kv = 0;
    // SAFETY: both callbacks have the signatures MPI expects; out-pointer to a local.
    check(unsafe { ffi::PMPI_Comm_create_keyval(Some(never_copy), Some(delete), &mut kv, std::ptr::null_mut()) })?;
    Ok(kv)
}

/// A communicator keyval whose attribute owns a `Box<T>`, dropped by MPI's
/// delete callback when the communicator is freed (or at `MPI_Finalize`).
/// Typed, so a keyval made for one `T` can never be read as another.
pub struct OwningKeyval<T: 'static> {
    keyval: c_int,
    _owns: std::marker::PhantomData<fn() -> T>,
}

unsafe extern "C" fn drop_boxed<T>(_comm: MPI_Comm, _keyval: c_int, value: *mut c_void, _extra: *mut c_void) -> c_int {
    // SAFETY: attributes of an `OwningKeyval<T>` are only ever set by
    // `attach` from a `Box<T>`; MPI calls this once per attribute.
    drop(unsafe { Box::from_raw(value as *mut T) });
    ffi::SUCCESS
}

impl<T: 'static> OwningKeyval<T> {
    pub fn new() -> MpiResult<Self> {
        Ok(OwningKeyval { keyval: create_keyval(drop_boxed::<T>)?, _owns: std::marker::PhantomData })
    }

    /// The `T` attached to `comm`, if any. It lives until `comm` is freed,
    /// which MPI forbids while a call on `comm` is running.
    pub fn get(&self, comm: MPI_Comm) -> MpiResult<Option<&'static T>> {
        // SAFETY: set by `attach` from a leaked `Box<T>`; freed only by `drop_boxed`
        // when the communicator goes.
        Ok(get_attr(comm, self.keyval)?.map(|value| unsafe { &*(value as *const T) }))
    }

    /// Attach `value` to `comm` (it owns it from now on); a reference to it as in [`Self::get`].
    pub fn attach(&self, comm: MPI_Comm, value: Box<T>) -> MpiResult<&'static T> {
        let raw = Box::into_raw(value);
        match set_attr(comm, self.keyval, raw.cast()) {
            // SAFETY: owned by the attribute from now on, as in `get`.
            Ok(()) => Ok(unsafe { &*raw }),
            Err(e) => {
                // SAFETY: not handed to MPI: still ours.
                drop(unsafe { Box::from_raw(raw) });
                Err(e)
            }
        }
    }

    /// Release the keyval (at finalisation; MPI frees it when no attribute uses it).
    pub fn free(&self) {
        free_keyval(self.keyval);
    }
}

/// The shim's table of predefined datatypes.
pub fn type_table() -> &'static [ffi::TypeEntry] {
    // SAFETY: the shim defines a constant array of `fr_type_table_len` entries.
    unsafe { std::slice::from_raw_parts(ffi::fr_type_table.as_ptr(), ffi::fr_type_table_len as usize) }
}

/// The shim's table of predefined ops.
pub fn op_table() -> &'static [ffi::OpEntry] {
    // SAFETY: as above.
    unsafe { std::slice::from_raw_parts(ffi::fr_op_table.as_ptr(), ffi::fr_op_table_len as usize) }
}

/// Free a keyval made by [`create_keyval`] (errors ignored: only at finalisation).
pub fn free_keyval(mut keyval: c_int) {
    // SAFETY: pointer to a local copy of the handle.
    unsafe { ffi::PMPI_Comm_free_keyval(&mut keyval) };
}

/// The attribute `keyval` of `comm`, if set.
pub fn get_attr(comm: MPI_Comm, keyval: c_int) -> MpiResult<Option<*mut c_void>> {
    let mut value: *mut c_void = std::ptr::null_mut();
    let mut found: c_int = 0;
    // SAFETY: out-pointers to locals (MPI stores the attribute's pointer value).
    check(unsafe { ffi::PMPI_Comm_get_attr(comm, keyval, (&mut value as *mut *mut c_void).cast(), &mut found) })?;
    Ok((found != 0).then_some(value))
}

/// Set attribute `keyval` of `comm` to `value` (its delete callback owns it
/// from now on). MPI stores the pointer; it never dereferences it.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn set_attr(comm: MPI_Comm, keyval: c_int, value: *mut c_void) -> MpiResult {
    // SAFETY: MPI stores the pointer value; it does not dereference it.
    check(unsafe { ffi::PMPI_Comm_set_attr(comm, keyval, value) })
}

/// Broadcast `buf` from `root` (collective on `comm`; every rank passes the same length).
pub fn bcast(comm: MPI_Comm, buf: &mut [u8], root: usize) -> MpiResult {
    if buf.is_empty() {
        return Ok(());
    }
    // SAFETY: a buffer of exactly `buf.len()` bytes.
    check(unsafe { ffi::PMPI_Bcast(buf_mut_ptr(buf), int(buf.len())?, handle::byte(), root as c_int, comm) })
}

/// `MPI_Barrier` (collective on `comm`).
pub fn barrier(comm: MPI_Comm) -> MpiResult {
    // SAFETY: no buffers.
    check(unsafe { ffi::PMPI_Barrier(comm) })
}

/// Every rank's `mine` (all of one length), concatenated in rank order into `all`.
pub fn allgather(comm: MPI_Comm, mine: &[u8], all: &mut [u8]) -> MpiResult {
    let p = size(comm)?;
    assert_eq!(all.len(), mine.len() * p, "allgather: output is not size × input");
    if mine.is_empty() {
        return Ok(());
    }
    let n = int(mine.len())?;
    // SAFETY: `mine.len()` bytes in, `p × mine.len()` bytes out (checked above).
    check(unsafe { ffi::PMPI_Allgather(buf_ptr(mine), n, handle::byte(), buf_mut_ptr(all), n, handle::byte(), comm) })
}

/// Every rank's `mine` (all of one length) in rank order into `all` at `root`
/// (`all` is ignored elsewhere and may be empty there).
pub fn gather(comm: MPI_Comm, mine: &[u8], all: &mut [u8], root: usize) -> MpiResult {
    if rank(comm)? == root {
        assert_eq!(all.len(), mine.len() * size(comm)?, "gather: output is not size × input");
    }
    if mine.is_empty() {
        return Ok(());
    }
    let n = int(mine.len())?;
    // SAFETY: `mine.len()` bytes in; at the root `size × mine.len()` bytes out (checked above).
    check(unsafe { ffi::PMPI_Gather(buf_ptr(mine), n, handle::byte(), buf_mut_ptr(all), n, handle::byte(), root as c_int, comm) })
}

/// A new error code in `class` whose `MPI_Error_string` is `text`.
pub fn add_error_code(class: c_int, text: &str) -> Option<c_int> {
    let text = std::ffi::CString::new(text).ok()?;
    let mut code = 0;
    // SAFETY: out-pointer to a local; NUL-terminated string MPI copies (SMPI
    // declares it `char *` but does not write to it).
    let ok = unsafe {
        ffi::PMPI_Add_error_code(class, &mut code) == ffi::SUCCESS && ffi::PMPI_Add_error_string(code, text.as_ptr().cast_mut()) == ffi::SUCCESS
    };
    ok.then_some(code)
}

/// Invoke `comm`'s error handler with `code` (it may abort the job).
pub fn call_errhandler(comm: MPI_Comm, code: c_int) {
    // SAFETY: any communicator handle; MPI reports an invalid one itself.
    unsafe { ffi::PMPI_Comm_call_errhandler(comm, code) };
}

/// `MPI_Get_processor_name` (empty if it fails).
pub fn processor_name() -> String {
    let mut name = vec![0u8; 1024];
    let mut len: c_int = 0;
    // SAFETY: the buffer exceeds MPI_MAX_PROCESSOR_NAME of both MPIs.
    if unsafe { ffi::PMPI_Get_processor_name(name.as_mut_ptr().cast(), &mut len) } != ffi::SUCCESS {
        return String::new();
    }
    name.truncate(len.clamp(0, 1024) as usize);
    String::from_utf8_lossy(&name).into_owned()
}

/// The running MPI's version string (handle-free, so safe to call even with
/// the other MPI's library loaded).
pub fn library_version() -> String {
    // SAFETY: constant.
    let cap = unsafe { ffi::fr_max_library_version_string() }.max(8192) as usize;
    let mut buf = vec![0u8; cap];
    let mut len: c_int = 0;
    // SAFETY: a buffer of at least MPI_MAX_LIBRARY_VERSION_STRING bytes.
    unsafe { ffi::PMPI_Get_library_version(buf.as_mut_ptr().cast(), &mut len) };
    buf.truncate(len.clamp(0, cap as c_int) as usize);
    String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
}

/// Whether `t` can be handed to a datatype query without the query raising an
/// error on `MPI_COMM_WORLD` (not null; on MPICH, a datatype-kind handle).
pub fn datatype_is_plausible(t: MPI_Datatype) -> bool {
    // SAFETY: inspects the handle's value only.
    unsafe { ffi::fr_datatype_plausible(t) != 0 }
}

/// Whether `op` can be handed to an op query likewise.
pub fn op_is_plausible(op: MPI_Op) -> bool {
    // SAFETY: inspects the handle's value only.
    unsafe { ffi::fr_op_plausible(op) != 0 }
}

/// The C shim's `long double` loops (Rust has no x87 extended type).
#[derive(Clone, Copy)]
pub enum ShimLoop {
    LongDouble,
    LongDoubleComplex,
    LongDoubleInt,
}

/// `dst ← src ∘ dst` (or `dst ∘ src`) with the shim's op `code` on elements
/// of `size` bytes; `src` holds at least as many elements as `dst`.
pub fn shim_reduce(which: ShimLoop, code: c_int, size: usize, src: &[u8], dst: &mut [u8], src_is_left: bool) {
    let n = dst.len() / size;
    assert!(src.len() >= n * size, "source shorter than destination");
    let f = match which {
        ShimLoop::LongDouble => ffi::fr_long_double_reduce,
        ShimLoop::LongDoubleComplex => ffi::fr_long_double_complex_reduce,
        ShimLoop::LongDoubleInt => ffi::fr_long_double_int_reduce,
    };
    // SAFETY: both buffers hold n whole elements (checked above); the shim
    // reads src and writes dst only, within n elements.
    let rc = unsafe { f(code, src.as_ptr().cast(), dst.as_mut_ptr().cast(), n, src_is_left as c_int) };
    debug_assert_eq!(rc, 0);
}

/// End the process at once with `code`, running no exit handlers (which
/// could call into an MPI library fastred must not use).
pub fn exit_immediately(code: c_int) -> ! {
    // SAFETY: _exit takes no pointers and does not return.
    unsafe { libc::_exit(code) }
}

/// Size in bytes of one `t`.
pub fn type_size(t: MPI_Datatype) -> MpiResult<usize> {
    let mut size: c_int = 0;
    // SAFETY: out-pointer to a local.
    check(unsafe { ffi::PMPI_Type_size(t, &mut size) })?;
    Ok(size.max(0) as usize)
}

/// (lower bound, extent) of `t`.
pub fn type_extent(t: MPI_Datatype) -> MpiResult<(isize, isize)> {
    let (mut lb, mut extent) = (0, 0);
    // SAFETY: out-pointers to locals.
    check(unsafe { ffi::PMPI_Type_get_extent(t, &mut lb, &mut extent) })?;
    Ok((lb as isize, extent as isize))
}

/// (true lower bound, true extent) of `t`.
pub fn type_true_extent(t: MPI_Datatype) -> MpiResult<(isize, isize)> {
    let (mut lb, mut extent) = (0, 0);
    // SAFETY: out-pointers to locals.
    check(unsafe { ffi::PMPI_Type_get_true_extent(t, &mut lb, &mut extent) })?;
    Ok((lb as isize, extent as isize))
}

/// Whether the user op `op` is commutative.
pub fn op_is_commutative(op: MPI_Op) -> MpiResult<bool> {
    let mut commute: c_int = 0;
    // SAFETY: out-pointer to a local.
    check(unsafe { ffi::PMPI_Op_commutative(op, &mut commute) })?;
    Ok(commute != 0)
}

/// `inout ← input ∘ inout` with `MPI_Reduce_local`, for `count` items of
/// `datatype`, a dense type of `extent` bytes (both slices hold `count` items).
pub fn reduce_local(input: &[u8], inout: &mut [u8], extent: usize, datatype: MPI_Datatype, op: MPI_Op) -> MpiResult {
    assert!(extent > 0 && input.len() == inout.len() && inout.len().is_multiple_of(extent), "reduce_local: partial items");
    let per_call = (c_int::MAX as usize / extent).max(1) * extent;
    for (i, o) in input.chunks(per_call).zip(inout.chunks_mut(per_call)) {
        // SAFETY: both chunks hold exactly `o.len() / extent` whole items of the
        // dense `datatype` (checked above), which is what MPI reads and writes.
        check(unsafe { ffi::PMPI_Reduce_local(buf_ptr(i), buf_mut_ptr(o), (o.len() / extent) as c_int, datatype, op) })?;
    }
    Ok(())
}

/// Advance this rank's simulated clock by `seconds` of computation (SimGrid
/// SMPI; nothing in the MPICH and Open MPI builds).
pub fn simulate_computation(seconds: f64) {
    // SAFETY: a plain function of the C shim, valid in any rank's context.
    unsafe { ffi::fr_simulate_computation(seconds) }
}

/// Scratch memory that every simulated rank shares (SimGrid SMPI's
/// `SMPI_SHARED_MALLOC`: one physical block mapped over the whole range, so
/// its contents are garbage; SMPI skips copying messages from or into it).
/// For simulations whose buffers would not fit in this machine's memory
/// (`FASTRED_SMPI_SHARED_BUFFERS`); `None` outside the SMPI build.
pub struct SimulatedSharedBlock {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

impl SimulatedSharedBlock {
    pub fn new(len: usize) -> Option<SimulatedSharedBlock> {
        if !cfg!(fastred_mpi = "smpi") || len == 0 {
            return None;
        }
        // SAFETY: a plain allocation function of the C shim (SMPI aborts the
        // simulation when it cannot map the range).
        let ptr = std::ptr::NonNull::new(unsafe { ffi::fr_simulated_shared_malloc(len) } as *mut u8)?;
        Some(SimulatedSharedBlock { ptr, len })
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` mapped, readable bytes owned by this block until drop
        // (other ranks' blocks may map the same pages: garbage, never a fault).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as `as_slice`, and writable.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for SimulatedSharedBlock {
    fn drop(&mut self) {
        // SAFETY: the pointer came from fr_simulated_shared_malloc and is freed once.
        unsafe { ffi::fr_simulated_shared_free(self.ptr.as_ptr() as *mut c_void) }
    }
}

crate::pool_item!(MPI_Request);

/// `MPI_Wtime`: seconds since some time in the past (simulated time in SMPI).
pub fn wtime() -> f64 {
    // SAFETY: no arguments; callable any time between init and finalize.
    unsafe { ffi::PMPI_Wtime() }
}

/// Blocking send of `data` as bytes to `to` with `tag`.
pub fn send(comm: MPI_Comm, to: usize, tag: c_int, data: &[u8]) -> MpiResult {
    // SAFETY: a buffer of data.len() bytes, read by MPI before the call returns.
    check(unsafe { ffi::PMPI_Send(buf_ptr(data), int(data.len())?, handle::byte(), to as c_int, tag, comm) })
}

/// Blocking receive of up to `buf.len()` bytes from `from` with `tag`.
pub fn recv(comm: MPI_Comm, from: usize, tag: c_int, buf: &mut [u8]) -> MpiResult {
    // SAFETY: a buffer of buf.len() bytes, written by MPI before the call returns.
    check(unsafe { ffi::PMPI_Recv(buf_mut_ptr(buf), int(buf.len())?, handle::byte(), from as c_int, tag, comm, ffi::RSMPI_STATUS_IGNORE) })
}

/// `MPI_Recv` of bytes that never lets the library write past `buf`: the
/// message is matched first (`MPI_Mprobe`); one longer than `buf` is received
/// into scratch and reported as `MPI_ERR_TRUNCATE`. (Open MPI 4.1's
/// shared-memory single-copy path writes a message longer than the receive
/// buffer past its end, while returning `MPI_ERR_TRUNCATE`: docs/reliability.md.)
pub fn recv_bounded(comm: MPI_Comm, from: usize, tag: c_int, buf: &mut [u8]) -> MpiResult {
    let mut message = std::mem::MaybeUninit::uninit();
    let mut status = std::mem::MaybeUninit::uninit();
    // SAFETY: out-pointers to locals.
    check(unsafe { ffi::PMPI_Mprobe(from as c_int, tag, comm, message.as_mut_ptr(), status.as_mut_ptr()) })?;
    // SAFETY: both initialised by the successful call.
    let (mut message, status) = unsafe { (message.assume_init(), status.assume_init()) };
    let mut count: c_int = 0;
    // SAFETY: the status just filled in; out-pointer to a local.
    check(unsafe { ffi::PMPI_Get_count(&status, handle::byte(), &mut count) })?;
    let count = usize::try_from(count).unwrap_or(0);
    if count > buf.len() {
        let mut sink = crate::scratch::Scratch::new(count)?;
        // SAFETY: the matched message (count bytes) into a buffer of count bytes.
        check(unsafe { ffi::PMPI_Mrecv(buf_mut_ptr(&mut sink), int(count)?, handle::byte(), &mut message, ffi::RSMPI_STATUS_IGNORE) })?;
        return Err(MpiError::Code(class::truncate()));
    }
    // SAFETY: the matched message (count ≤ buf.len() bytes) into buf.
    check(unsafe { ffi::PMPI_Mrecv(buf_mut_ptr(buf), int(count)?, handle::byte(), &mut message, ffi::RSMPI_STATUS_IGNORE) })
}

/// `MPI_Sendrecv` of bytes: `data` to `to`, into `buf` from `from`.
pub fn sendrecv(comm: MPI_Comm, tag: c_int, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
    // SAFETY: buffers of the given lengths, used by MPI only during the call.
    check(unsafe {
        ffi::PMPI_Sendrecv(
            buf_ptr(data), int(data.len())?, handle::byte(), to as c_int, tag,
            buf_mut_ptr(buf), int(buf.len())?, handle::byte(), from as c_int, tag,
            comm, ffi::RSMPI_STATUS_IGNORE,
        )
    })
}

/// `PMPI_Isend`'s signature (also `PMPI_Issend`'s).
type SendFn = unsafe extern "C" fn(*const c_void, c_int, MPI_Datatype, c_int, c_int, MPI_Comm, *mut MPI_Request) -> c_int;

/// Non-blocking requests on buffers borrowed for `'a`. Every request is
/// completed before the buffers can go: by [`Requests::wait_all`], or, on an
/// error path (a post that failed part way, a failed wait), by `Drop`, which
/// cancels and completes whatever is still pending.
pub struct Requests<'a> {
    /// Requests in the order posted; those before `waited` are complete.
    reqs: Pooled<MPI_Request>,
    waited: usize,
    _buffers: std::marker::PhantomData<&'a mut [u8]>,
}

impl<'a> Requests<'a> {
    pub fn new() -> Self {
        Requests { reqs: Pooled::new(), waited: 0, _buffers: std::marker::PhantomData }
    }

    /// Requests posted and not yet waited for.
    pub fn pending(&self) -> usize {
        self.reqs.len() - self.waited
    }

    /// Wait for the oldest pending request (its error code on failure).
    pub fn wait_oldest(&mut self) -> MpiResult {
        let i = self.waited;
        // SAFETY: a request posted above and not yet completed.
        check(unsafe { ffi::PMPI_Wait(&mut self.reqs[i], ffi::RSMPI_STATUS_IGNORE) })?;
        self.waited += 1;
        if self.waited >= 64 && 2 * self.waited >= self.reqs.len() {
            self.reqs.drain(..self.waited); // completed (null) requests
            self.waited = 0;
        }
        Ok(())
    }

    /// Post a send of `data` (borrowed until the requests complete).
    pub fn isend(&mut self, comm: MPI_Comm, to: usize, tag: c_int, data: &'a [u8]) -> MpiResult {
        self.post_send(ffi::PMPI_Isend, comm, to, tag, data)
    }

    /// Post a synchronous-mode send of `data` (`MPI_Issend`: complete only
    /// once the receiver has matched it), borrowed until the requests complete.
    pub fn issend(&mut self, comm: MPI_Comm, to: usize, tag: c_int, data: &'a [u8]) -> MpiResult {
        self.post_send(ffi::PMPI_Issend, comm, to, tag, data)
    }

    /// Post `data` with `PMPI_Isend` or `PMPI_Issend`.
    fn post_send(&mut self, post: SendFn, comm: MPI_Comm, to: usize, tag: c_int, data: &'a [u8]) -> MpiResult {
        let mut req = std::mem::MaybeUninit::uninit();
        // SAFETY: `data` is borrowed for 'a, as long as `self`, which completes the request.
        check(unsafe { post(buf_ptr(data), int(data.len())?, handle::byte(), to as c_int, tag, comm, req.as_mut_ptr()) })?;
        // SAFETY: initialised by the successful call.
        self.reqs.push(unsafe { req.assume_init() });
        Ok(())
    }

    /// Post a receive into `buf` (borrowed until the requests complete).
    pub fn irecv(&mut self, comm: MPI_Comm, from: usize, tag: c_int, buf: &'a mut [u8]) -> MpiResult {
        let mut req = std::mem::MaybeUninit::uninit();
        // SAFETY: as above, for writing.
        check(unsafe { ffi::PMPI_Irecv(buf_mut_ptr(buf), int(buf.len())?, handle::byte(), from as c_int, tag, comm, req.as_mut_ptr()) })?;
        // SAFETY: initialised by the successful call.
        self.reqs.push(unsafe { req.assume_init() });
        Ok(())
    }

    /// Wait for every pending request, in the order posted. One `MPI_Wait`
    /// each rather than `MPI_Waitall`, which reports only
    /// `MPI_ERR_IN_STATUS`: a failed `MPI_Wait` returns the request's own
    /// error code. (All requests were posted before the first wait, so
    /// waiting in turn loses no overlap.) On failure, `Drop` completes the rest.
    pub fn wait_all(mut self) -> MpiResult {
        while self.pending() > 0 {
            self.wait_oldest()?;
        }
        self.reqs.clear();
        Ok(())
    }
}

/// Receives into consecutive parts of one buffer, posted front to back and
/// completed oldest first, so that the parts already in can be read and
/// written ([`Arrivals::arrived`]) while later parts are still arriving (a
/// reduction folds piece k while piece k+1 travels). As with [`Requests`],
/// every receive completes before the buffer can go.
pub struct Arrivals<'a> {
    base: *mut u8,
    len: usize,
    /// Bytes covered by posted receives, and by completed ones (a prefix).
    posted: usize,
    done: usize,
    /// Where each posted receive ends, in the order posted; `ends[next]` is
    /// the oldest pending one's.
    ends: Pooled<usize>,
    next: usize,
    requests: Requests<'a>,
}

impl<'a> Arrivals<'a> {
    /// Receives into `buf`, none posted yet.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Arrivals { base: buf.as_mut_ptr(), len: buf.len(), posted: 0, done: 0, ends: Pooled::new(), next: 0, requests: Requests::new() }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Receives posted and not yet completed.
    pub fn pending(&self) -> usize {
        self.requests.pending()
    }

    /// Bytes received so far: `arrived` may hand out `..done()`.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Post a receive of the next `bytes` of the buffer from `from`.
    pub fn irecv(&mut self, comm: MPI_Comm, from: usize, tag: c_int, bytes: usize) -> MpiResult {
        assert!(bytes <= self.len - self.posted, "receives past the buffer's end");
        // SAFETY: `posted..posted + bytes` lies in the buffer borrowed for 'a
        // and is handed out nowhere else: `arrived` gives out only `..done`,
        // and done ≤ posted.
        let part = unsafe { std::slice::from_raw_parts_mut(self.base.add(self.posted), bytes) };
        self.requests.irecv(comm, from, tag, part)?;
        self.posted += bytes;
        self.ends.push(self.posted);
        Ok(())
    }

    /// Wait for the oldest pending receive; its data is then in `..done()`.
    pub fn wait_oldest(&mut self) -> MpiResult {
        self.requests.wait_oldest()?;
        self.done = self.ends[self.next];
        self.next += 1;
        if self.next >= 64 && 2 * self.next >= self.ends.len() {
            self.ends.drain(..self.next);
            self.next = 0;
        }
        Ok(())
    }

    /// The received bytes `range` (within `..done()`), to read or write.
    pub fn arrived(&mut self, range: std::ops::Range<usize>) -> &mut [u8] {
        assert!(range.start <= range.end && range.end <= self.done, "not received yet");
        // SAFETY: completed receives: MPI no longer touches `..done`, and the
        // slice borrows `self` mutably, so no other is alive.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(range.start), range.len()) }
    }
}

/// Receives into the slots of a ring buffer, one message per slot, each in
/// one or more pieces, completed oldest first ([`Transport::inbox`]'s on
/// PMPI): a message's slot is lent out when it is taken and reused for a
/// later message after that. A message may also be *deferred*: its slot is
/// kept for it, nothing is posted, and the taker receives into the slot.
/// As with [`Requests`], every receive completes before the buffer can go.
///
/// [`Transport::inbox`]: crate::algo::Transport::inbox
pub struct RingReceives<'a> {
    base: *mut u8,
    slot_len: usize,
    slots: usize,
    /// Pieces posted, length, and (deferred messages) source of each
    /// message, by slot; `NOT_DEFERRED` for a posted message's source.
    pieces: Pooled<usize>,
    lens: Pooled<usize>,
    deferred_from: Pooled<usize>,
    /// The oldest message's slot, and how many are expected.
    oldest: usize,
    count: usize,
    requests: Requests<'a>,
}

impl<'a> RingReceives<'a> {
    /// `buf` cut into `slots` slots of `slot_len` bytes.
    pub fn new(buf: &'a mut [u8], slots: usize, slot_len: usize) -> Self {
        assert!(slots * slot_len <= buf.len(), "a ring longer than its buffer");
        let mut pieces = Pooled::new();
        pieces.resize(slots, 0);
        let mut lens = Pooled::new();
        lens.resize(slots, 0);
        let mut deferred_from = Pooled::new();
        deferred_from.resize(slots, NOT_DEFERRED);
        RingReceives { base: buf.as_mut_ptr(), slot_len, slots, pieces, lens, deferred_from, oldest: 0, count: 0, requests: Requests::new() }
    }

    /// Messages expected and not yet taken.
    pub fn expected(&self) -> usize {
        self.count
    }

    /// Bytes per slot: the longest message it takes.
    pub fn slot_len(&self) -> usize {
        self.slot_len
    }

    /// The next slot, for a message of `len` bytes (from `deferred_from`
    /// when deferred, else [`NOT_DEFERRED`]): its index.
    fn next_slot(&mut self, len: usize, deferred_from: usize) -> usize {
        assert!(self.count < self.slots && len <= self.slot_len, "the ring is full, or the message longer than its slots");
        let slot = (self.oldest + self.count) % self.slots;
        self.count += 1;
        (self.pieces[slot], self.lens[slot], self.deferred_from[slot]) = (0, len, deferred_from);
        slot
    }

    /// Expect a `len`-byte message from `from` in the pieces of lengths
    /// `pieces` (summing to `len`), each posted now.
    pub fn irecv(&mut self, comm: MPI_Comm, from: usize, tag: c_int, len: usize, pieces: impl Iterator<Item = usize>) -> MpiResult {
        let slot = self.next_slot(len, NOT_DEFERRED);
        let mut offset = 0;
        for piece in pieces {
            assert!(offset + piece <= len, "pieces past the message's end");
            // SAFETY: within `slot`, which lies in the buffer borrowed for
            // 'a; no receive is pending on it (its last message was taken,
            // which completed them) and it is not lent out (`take_oldest`'s
            // slice borrows `self`).
            let part = unsafe { std::slice::from_raw_parts_mut(self.base.add(slot * self.slot_len + offset), piece) };
            self.requests.irecv(comm, from, tag, part)?;
            self.pieces[slot] += 1;
            offset += piece;
        }
        Ok(())
    }

    /// Expect a `len`-byte message from `from` that the taker will receive
    /// itself, into the slot.
    pub fn defer(&mut self, from: usize, len: usize) {
        assert_ne!(from, NOT_DEFERRED);
        self.next_slot(len, from);
    }

    /// Wait for the oldest message's receives (none if it was deferred) and
    /// lend its slot, `len` bytes, with the source of a deferred message.
    pub fn take_oldest(&mut self) -> MpiResult<(&mut [u8], Option<usize>)> {
        assert!(self.count > 0, "a message expected");
        let slot = self.oldest;
        for _ in 0..self.pieces[slot] {
            self.requests.wait_oldest()?;
        }
        (self.oldest, self.count) = ((slot + 1) % self.slots, self.count - 1);
        let deferred = (self.deferred_from[slot] != NOT_DEFERRED).then_some(self.deferred_from[slot]);
        // SAFETY: the slot's receives are complete (requests are waited for
        // in the order posted, and every earlier message's were), and the
        // slice borrows `self` mutably, so the slot is not posted again while
        // it is lent.
        Ok((unsafe { std::slice::from_raw_parts_mut(self.base.add(slot * self.slot_len), self.lens[slot]) }, deferred))
    }
}

/// [`RingReceives`]' source of a message that was posted, not deferred.
const NOT_DEFERRED: usize = usize::MAX;

impl Default for Requests<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Requests<'_> {
    fn drop(&mut self) {
        // SAFETY: a null request handle, read from the bindings' static.
        let null = unsafe { ffi::RSMPI_REQUEST_NULL };
        for req in self.reqs.iter_mut().filter(|r| **r != null) {
            // SAFETY: a request posted above and not completed; cancelling and
            // waiting completes it (MPI frees it and sets it to null).
            unsafe {
                ffi::PMPI_Cancel(req);
                ffi::PMPI_Wait(req, ffi::RSMPI_STATUS_IGNORE);
            }
        }
    }
}
