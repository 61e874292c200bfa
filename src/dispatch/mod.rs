//! One intercepted call, start to finish: decide whether fastred runs it (and
//! with which algorithm) or hands it to the MPI library unchanged, run it on
//! the private communicator, and report errors through the user's
//! communicator's error handler.
//!
//! - `validate`: argument checks and their error semantics;
//! - `buffers`: the user's buffers and fastred's scratch;
//! - `execute`: running the chosen algorithm.
//!
//! Nothing escapes a call: a panic inside fastred becomes `MPI_ERR_INTERN`
//! and a failed allocation `MPI_ERR_NO_MEM`, both through the user's
//! communicator's error handler on the rank where they happened.

mod buffers;
mod execute;
mod repeat;
mod validate;

use crate::algo::Blocks;
use crate::comm::{self, CommState, DecisionKey};
use crate::config;
use crate::error::{Complaint, MpiError};
use validate::{code_for, code_of};
use crate::ffi::{self, MPI_Comm, MPI_Count, MPI_Datatype, MPI_Op};
use crate::mpi::{self, handle};
use crate::op::{user::UserReducer, BuiltinReducer, Reducer};
use crate::select::{self, Algorithm, Collective, PlacementDependence, Shape};
use crate::stats;
use crate::transport::counting::Traffic;
use crate::types::{self, OpInfo};
use buffers::Input;
use execute::AnyReducer;
use once_cell::sync::{Lazy, OnceCell};
use std::collections::HashSet;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use validate::LocalError;

/// Element counts as the MPI function received them.
#[derive(Clone, Copy, Debug)]
pub enum Counts {
    /// `count` (allreduce, reduce) or `recvcount` (reduce_scatter_block).
    One(i64),
    /// `recvcounts[comm size]` as `int`s (reduce_scatter).
    PerRank(*const c_int),
    /// `recvcounts[comm size]` as `MPI_Count`s (MPI_Reduce_scatter_c).
    PerRankLarge(*const MPI_Count),
}

/// The arguments of one intercepted call (C handles; Fortran ones converted).
pub struct Call {
    pub coll: Collective,
    pub sendbuf: *const c_void,
    pub recvbuf: *mut c_void,
    pub counts: Counts,
    pub datatype: MPI_Datatype,
    pub op: MPI_Op,
    /// Only for `MPI_Reduce`.
    pub root: c_int,
    pub comm: MPI_Comm,
}

/// Why fastred does not run a call itself.
pub enum NotOurs {
    /// Hand it to the MPI library (reason for the debug log).
    Fallback(&'static str),
    /// Invalid arguments some MPI library would crash on instead of reporting:
    /// fastred reports them itself (complaint, error class).
    Invalid(Complaint, c_int),
    /// A failure inside fastred's own setup.
    Error(MpiError),
    /// The library runs the call with scratch in place of some buffers:
    /// this rank's buffers are invalid (an error only it can see, which some
    /// libraries crash on; it takes part, then reports the error), or the
    /// library mishandles the call's `MPI_IN_PLACE` ([`buffers::in_place_needs_a_copy`]).
    LibraryWithScratch { error: Option<LocalError>, input: Input, output: Option<*mut c_void>, bytes: usize },
}

impl From<MpiError> for NotOurs {
    fn from(e: MpiError) -> Self {
        NotOurs::Error(e)
    }
}

/// Everything decided about a call fastred runs itself.
pub struct Plan {
    state: &'static CommState,
    algorithm: Algorithm,
    reducer: AnyReducer,
    commutative: bool,
    /// The call must follow the canonical order (`FASTRED_REPRODUCIBLE`).
    canonical: bool,
    /// Per-rank blocks in elements (reduce-scatter), or one block of the whole vector.
    blocks: Blocks,
    input: Input,
    /// The receive buffer, if this rank has a usable one.
    output: Option<*mut c_void>,
    /// An error only this rank can see, reported after taking part.
    local_error: Option<LocalError>,
}

/// `f()`, with a panic turned into `MpiError::Internal`.
fn guarded<T>(f: impl FnOnce() -> Result<T, NotOurs>) -> Result<T, NotOurs> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        log::error!("internal error (panic) inside fastred");
        Err(NotOurs::Error(MpiError::Internal))
    })
}

/// Set when `MPI_Finalize` begins: from then on (e.g. in the user's
/// finalisation callbacks) every call goes to the library.
static FINALIZING: AtomicBool = AtomicBool::new(false);

/// fastred's part of `MPI_Finalize`, on every rank before `PMPI_Finalize`:
/// the `FASTRED_STATS` report, then release of fastred's keyval.
pub fn finalize() {
    if !mpi::is_running() || FINALIZING.swap(true, Ordering::SeqCst) {
        return;
    }
    startup(); // logging, for a rank whose first call into fastred is this
    repeat::disable_serialized();
    stats::report_at_finalize();
    comm::release_keyval();
}

/// Run `call` with fastred, or with `fallback` (the matching `PMPI_*` call,
/// given the send and receive buffers to use: the call's own, or scratch in
/// place of invalid ones).
///
/// The path of a call on a communicator fastred has seen asks MPI only for
/// the communicator's attribute, takes no lock, formats nothing and reuses
/// the decision of the last call of the same kind; the clock is read, and
/// bytes and messages are counted, only with `FASTRED_STATS` set; a repeat
/// of a call handed to the library goes there after one thread-local lookup,
/// and in a serialized program (below `MPI_THREAD_MULTIPLE`) after a few
/// compares, before anything else ([`repeat::handed_over_before`]; inlined
/// into the exported function, which builds the rest only past it).
#[inline(always)]
pub fn run(call: Call, fallback: impl FnOnce(*const c_void, *mut c_void) -> c_int) -> c_int {
    if repeat::handed_over_before(&call) {
        // A serialized program's repeat of its last hand-over of this collective.
        stats::record_serialized_handover(call.coll);
        return fallback(call.sendbuf, call.recvbuf);
    }
    run_checked(call, fallback)
}

/// [`run`] past the serialized programs' hand-over shortcut.
#[inline(never)]
fn run_checked(call: Call, fallback: impl FnOnce(*const c_void, *mut c_void) -> c_int) -> c_int {
    let call = &call;
    if FINALIZING.load(Ordering::Relaxed) || !mpi::is_initialized() {
        return fallback(call.sendbuf, call.recvbuf);
    }
    startup();
    let timed = config::local().stats;
    let recalled = repeat::recall(call);
    let plain = recalled.filter(|d| validate::plain_buffers(call, d.state.rank));
    if plain.is_some_and(|d| d.algorithm == Algorithm::Native) {
        // A repeat of a call handed to the library, with ordinary buffers: straight there.
        repeat::note_handed_over(call, plain.as_ref().expect("checked above"));
        let start = timed.then(Instant::now);
        let rc = fallback(call.sendbuf, call.recvbuf);
        if timed {
            stats::record(call.coll, Algorithm::Native, timed, 0, Traffic::default(), nanoseconds_since(start));
        } else {
            stats::record_handover(call.coll);
        }
        return rc;
    }
    if let Some(d) = plain.filter(|d| d.algorithm == Algorithm::SharedMemory && !timed) {
        // A repeat of a shared-memory call with ordinary buffers: its rounds on them.
        match guarded(|| execute::shared_memory_repeat(call, &d).transpose().map_err(NotOurs::Error)) {
            Ok(None) => {} // not such a repeat after all: planned below
            Ok(Some(())) => {
                stats::record(call.coll, Algorithm::SharedMemory, false, 0, Traffic::default(), 0);
                return ffi::SUCCESS;
            }
            Err(NotOurs::Error(e)) => return report(call, own_error(call.coll, e)),
            Err(_) => return report(call, own_error(call.coll, MpiError::Internal)),
        }
    }
    run_planned(call, recalled, timed, fallback)
}

/// [`run`] past its shortcuts: plan the call, run it, report its errors.
#[inline(never)]
fn run_planned(call: &Call, recalled: Option<repeat::Decided>, timed: bool, fallback: impl FnOnce(*const c_void, *mut c_void) -> c_int) -> c_int {
    let outcome = guarded(|| {
        let plan = plan(call, recalled)?;
        let start = timed.then(Instant::now);
        let traffic = execute::execute(call, &plan)?;
        let bytes = plan.blocks.total() * plan.reducer.elem_size();
        stats::record(call.coll, plan.algorithm, timed, bytes, traffic, nanoseconds_since(start));
        Ok(plan.local_error)
    });
    let code = match outcome {
        Ok(None) => return ffi::SUCCESS,
        Ok(Some((complaint, class))) | Err(NotOurs::Invalid(complaint, class)) => code_for(call.coll, complaint, class),
        Err(NotOurs::LibraryWithScratch { error, input, output, bytes }) => {
            let start = timed.then(Instant::now);
            let rc = buffers::with_scratch_buffers(call.coll, call.root, input, output, bytes, fallback);
            if rc.is_err() {
                log::error!("{}: {}", call.coll.mpi_name(), Complaint::NoMemory.message());
            }
            match (error, rc) {
                (None, Ok(rc)) => {
                    let copied = Traffic { bytes_copied: bytes as u64, ..Traffic::default() }; // the detached input
                    stats::record(call.coll, Algorithm::Native, timed, 0, copied, nanoseconds_since(start));
                    return rc;
                }
                (None, Err(e)) => code_of(call.coll, e),
                (Some((complaint, class)), _) => code_for(call.coll, complaint, class),
            }
        }
        Err(NotOurs::Fallback(reason)) => {
            log_fallback(call.coll, reason);
            let start = timed.then(Instant::now);
            let rc = fallback(call.sendbuf, call.recvbuf);
            stats::record(call.coll, Algorithm::Native, timed, 0, Traffic::default(), nanoseconds_since(start));
            return rc;
        }
        Err(NotOurs::Error(e)) => own_error(call.coll, e),
    };
    report(call, code)
}

/// The code for a failure inside fastred (logged if it is a lack of memory).
fn own_error(coll: Collective, e: MpiError) -> c_int {
    if e == MpiError::NoMemory {
        log::error!("{}: {}", coll.mpi_name(), Complaint::NoMemory.message());
    }
    code_of(coll, e)
}

/// A failed call's end: `code` through the communicator's error handler.
fn report(call: &Call, code: c_int) -> c_int {
    log::debug!("{} failed: MPI error code {code}", call.coll.mpi_name());
    mpi::call_errhandler(call.comm, code);
    code
}

/// Nanoseconds since `start` (0 when the call is not timed).
fn nanoseconds_since(start: Option<Instant>) -> u64 {
    start.map_or(0, |s| s.elapsed().as_nanos() as u64)
}

/// Once per process: stop if this build is for the other MPI, start logging.
pub(crate) fn startup() {
    static STARTED: OnceCell<()> = OnceCell::new();
    STARTED.get_or_init(|| {
        check_library_matches_build();
        config::init_logging(mpi::rank(handle::comm_world()).unwrap_or(0) as i32);
        let timed = config::local().stats; // read the environment (warnings go to the log)
        repeat::enable_serialized(mpi::calls_are_serialized(), timed);
        log::debug!("fastred {} ({} build) active", env!("CARGO_PKG_VERSION"), ffi::FLAVOUR);
    });
}

fn check_library_matches_build() {
    let version = mpi::library_version();
    let running = if version.contains("SMPI") || version.contains("SimGrid") {
        "smpi"
    } else if version.contains("MPICH") {
        "mpich"
    } else if version.contains("Open MPI") {
        "openmpi"
    } else {
        "unknown"
    };
    if running != ffi::FLAVOUR {
        let first_line = version.lines().next().unwrap_or("");
        eprintln!(
            "fastred: FATAL: this libfastred.so was built for {} but the program runs on {} ({first_line}).\n\
             fastred: use the build for the running MPI (target/{running}/release/libfastred.so, or `ci/demo.sh`'s \
             commands); stopping now rather than computing with the wrong MPI's handles.",
            pretty(ffi::FLAVOUR),
            pretty(running),
        );
        mpi::exit_immediately(1);
    }
}

fn pretty(flavour: &str) -> &str {
    match flavour {
        "mpich" => "MPICH",
        "openmpi" => "Open MPI",
        "smpi" => "SimGrid SMPI",
        other => other,
    }
}

fn log_fallback(coll: Collective, reason: &'static str) {
    static SEEN: Lazy<Mutex<HashSet<(Collective, &'static str)>>> = Lazy::new(|| Mutex::new(HashSet::new()));
    if log::log_enabled!(log::Level::Debug) && SEEN.lock().map(|mut s| s.insert((coll, reason))).unwrap_or(false) {
        log::debug!("{}: handed to PMPI_{}: {reason}", coll.name(), &coll.mpi_name()[4..]);
    }
}

/// The communicator's state, if fastred runs calls on it: `Fallback` for
/// the null communicator, invalid ones and intercommunicators.
fn intracomm_state(comm: MPI_Comm) -> Result<&'static CommState, NotOurs> {
    use NotOurs::Fallback;
    if comm == handle::comm_null() {
        return Err(Fallback("MPI_COMM_NULL"));
    }
    if let Some(state) = comm::existing_state(comm).map_err(|_| Fallback("invalid communicator"))? {
        return Ok(state);
    }
    match mpi::is_inter(comm) {
        Err(_) => Err(Fallback("invalid communicator")),
        Ok(true) => Err(Fallback("intercommunicator")),
        Ok(false) => Ok(comm::create_state(comm)?),
    }
}

/// Validate the call and decide how to run it (`recalled`: the decision of
/// the same call remembered from before).
fn plan(call: &Call, recalled: Option<repeat::Decided>) -> Result<Plan, NotOurs> {
    let (state, algorithm, reducer, commutative, canonical, blocks) = match recalled.and_then(|d| Some((d, d.blocks()?))) {
        Some((d, blocks)) => (d.state, d.algorithm, AnyReducer::Builtin(d.reducer), true, d.canonical, blocks),
        None => decide_call(call)?,
    };
    let esz = reducer.elem_size();
    let total_bytes = blocks.total() * esz; // checked in decide_call
    let own_block_bytes = if blocks.len() == state.size { blocks.count(state.rank) * esz } else { total_bytes };
    let (input, output, local_error) = validate::check_buffers(call, state.rank, total_bytes, own_block_bytes);
    if algorithm == Algorithm::Native {
        if local_error.is_some() || (matches!(input, Input::InPlace) && buffers::in_place_needs_a_copy(call.coll, call.root)) {
            return Err(NotOurs::LibraryWithScratch { error: local_error, input, output, bytes: total_bytes });
        }
        let forced = config::effective(state.forced).get(call.coll);
        return Err(NotOurs::Fallback(if forced == Some(Algorithm::Native) { "FASTRED_ALGO=native" } else { "no fastred algorithm for this call" }));
    }
    Ok(Plan { state, algorithm, reducer, commutative, canonical, blocks, input, output, local_error })
}

/// Everything about `call` that depends only on arguments MPI requires all
/// ranks to pass alike: the communicator's state, the blocks, the reducer,
/// whether the op commutes, the canonical order, and the algorithm (cached per
/// communicator, and the whole remembered for a repeat of the same call).
#[allow(clippy::type_complexity)]
fn decide_call(call: &Call) -> Result<(&'static CommState, Algorithm, AnyReducer, bool, bool, Blocks), NotOurs> {
    use NotOurs::Fallback;
    let state = intracomm_state(call.comm)?;
    let p = state.size;
    let blocks = validate::blocks_of(call, p)?;
    validate::check_handles(call)?;
    if call.coll == Collective::Reduce && !(0..p as c_int).contains(&call.root) {
        return Err(Fallback("root out of range"));
    }

    let (reducer, commutative) = match types::resolve_op(call.op).map_err(Fallback)? {
        OpInfo::Builtin(kind) => {
            let elem = types::resolve_datatype(call.datatype).map_err(Fallback)?;
            let r = BuiltinReducer::new(kind, elem).ok_or(Fallback("op not defined on this datatype"))?;
            (AnyReducer::Builtin(r), true)
        }
        OpInfo::User { commutative } => {
            let extent = types::dense_extent(call.datatype).map_err(Fallback)?;
            (AnyReducer::User(UserReducer { op: call.op, datatype: call.datatype, extent }), commutative)
        }
    };
    let builtin_op = matches!(reducer, AnyReducer::Builtin(_));
    let floating = matches!(&reducer, AnyReducer::Builtin(r) if r.elem().is_floating());
    let total_bytes = blocks.total().checked_mul(reducer.elem_size()).ok_or(Fallback("count too large"))?;
    let reproducible = config::effective_reproducible(state.reproducible);
    let key = DecisionKey { bytes: total_bytes, commutative, builtin_op, few: blocks.total() < p, floating, reproducible, forced: config::override_word() };
    let shape = Shape { coll: call.coll, bytes: total_bytes, elems: blocks.total(), procs: p, commutative, builtin_op, topology: false, hosts: select::Hosts::OnePerHost, layout: select::Layout::one_per_host(p), nhalf: 0, bisection: 0, floating, reproducible, shared_memory: true };
    let canonical = shape.order_is_fixed();
    // A provisional decision (standing in for the shared-memory algorithm)
    // counts the calls until the communicator gets its segment, then the
    // call is decided again; it is not remembered for repeats, which would
    // skip the count.
    let (algorithm, lasting) = match state.cached_decision(call.coll, &key) {
        Some((algorithm, false)) => (algorithm, true),
        Some((algorithm, true)) if !state.wants_shared_memory() => (algorithm, false),
        _ => {
            let (algorithm, lasting) = decide(state, shape)?;
            state.cache_decision(call.coll, &key, algorithm, !lasting);
            (algorithm, lasting)
        }
    };
    if let (AnyReducer::Builtin(r), true) = (&reducer, lasting) {
        repeat::remember(call, repeat::Decided { state, algorithm, reducer: *r, canonical, even: blocks.is_even().then(|| (blocks.total(), blocks.len())) });
    }
    Ok((state, algorithm, reducer, commutative, canonical, blocks))
}

/// The selector's decision for `shape` on this communicator (not cached yet:
/// the first call of its kind), with its warnings and debug log line, and
/// whether it lasts (may be cached): a choice made while the communicator
/// waits for its shared segment does not.
fn decide(state: &CommState, mut shape: Shape) -> Result<(Algorithm, bool), NotOurs> {
    let forced = config::effective(state.forced).get(shape.coll);
    // The placement is computed (collectively) only when the decision depends
    // on it: the table's, or whether a forced two-level algorithm keeps the canonical order.
    // A forced shared-memory algorithm needs it too: it runs only on one host.
    let forced_needs_hosts = forced.is_some_and(|a| a.descriptor().shared_memory || a.descriptor().uses_hosts && shape.order_is_fixed());
    let dependence = if forced.is_none() { state.table.placement_dependence(&shape) } else { PlacementDependence::None };
    // Where the placement would only tell whether the shared-memory
    // algorithm may run, it is not exchanged before that algorithm could be
    // used (after `SHARED_MEMORY_AFTER` calls that might want it; until
    // then the call is decided without it, as one would be once its ranks
    // were found on one host): a communicator made for a few reductions
    // exchanges no host names.
    let deferred = dependence == PlacementDependence::SharedMemoryOnly && state.known_placement().is_none() && !state.wants_shared_memory();
    if (dependence != PlacementDependence::None && !deferred) || forced_needs_hosts {
        let placement = state.placement()?;
        shape.topology = placement.ring_matters;
        shape.hosts = select::Hosts::of(placement.hosts.host_of());
        shape.layout = select::Layout::of(placement.hosts.host_of());
        shape.nhalf = placement.nhalf;
        shape.bisection = placement.bisection;
    }
    shape.shared_memory = !deferred && !state.shared_memory_failed();
    let mut choice = select::choose(&shape, forced, &state.table);
    let mut lasting = !deferred;
    // The shared segment is made (collectively: every rank decides alike)
    // once the communicator has wanted it for a few calls, so that one made
    // for a single reduction does not pay for a segment; until then, and
    // where some rank cannot have one, the next choice runs.
    if choice.algorithm.descriptor().shared_memory {
        let ready = forced == Some(choice.algorithm) || state.wants_shared_memory();
        if !ready || state.shared_segment()?.is_none() {
            lasting = ready; // a failed segment is for good; the wait is not
            shape.shared_memory = false;
            choice = select::choose(&shape, forced, &state.table);
        }
    }
    if choice.override_ignored && state.first_time(format!("override {:?} {:?} {}", shape.coll, forced, shape.order_is_fixed())) {
        let why = forced.and_then(|a| a.why_not(&shape)).unwrap_or("");
        log::warn!("FASTRED_ALGO={} cannot run this {} call ({why}); using {} instead", forced.map_or("", |a| a.name()), shape.coll.name(), choice.algorithm);
    }
    let bytes = shape.bytes;
    if log::log_enabled!(log::Level::Debug)
        && state.first_time(format!("{:?} {:?} {} {}", shape.coll, choice.algorithm, usize::BITS - bytes.leading_zeros(), shape.order_is_fixed()))
    {
        log::debug!(
            "{} of {bytes} B on {} processes{}: {} ({})",
            shape.coll.name(),
            shape.procs,
            if shape.order_is_fixed() { " in reproducible mode (canonical order)" } else { "" },
            if choice.algorithm == Algorithm::Native { "native MPI" } else { choice.algorithm.name() },
            choice.reason
        );
    }
    Ok((choice.algorithm, lasting))
}
