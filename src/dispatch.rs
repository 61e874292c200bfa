//! One intercepted call, start to finish: decide whether fastred runs it (and
//! with which algorithm) or hands it to the MPI library unchanged, run it on
//! the private communicator, and report errors through the user's
//! communicator's error handler.
//!
//! Every "not ours" decision depends only on arguments that MPI requires to be
//! consistent across ranks (communicator, count, type signature, op, root), so
//! all ranks take the same path. Invalid values of those go to the MPI library,
//! which reports exactly the error it would have reported without fastred,
//! except negative counts, which MPICH 4.0.2 crashes on: fastred reports
//! MPI_ERR_COUNT itself. Errors only one rank can see (NULL or aliased buffers,
//! MPI_IN_PLACE on a non-root) must not make that rank leave the protocol the
//! others run: it takes part with scratch buffers, then reports the error (with
//! the class the running library uses) through the error handler.

use crate::algo::circulant::{self, Skips};
use crate::algo::{binary_blocks, binomial, fibonacci_tree, halving_doubling, pipeline, recursive_doubling, reduce_scatter_halving, ring, topo_ring, Blocks};
use crate::model::CostModel;
use crate::comm::{self, CommState};
use crate::config::{self, Forced};
use crate::error::{MpiError, MpiResult};
use crate::ffi::{self, MPI_Comm, MPI_Count, MPI_Datatype, MPI_Op};
use crate::op::{user::UserReducer, BuiltinReducer, Reducer};
use crate::select::{self, Algorithm, Collective, Shape};
use crate::stats;
use crate::transport::counting::{Counting, Traffic};
use crate::transport::pmpi::PmpiTransport;
use crate::types::{self, OpInfo};
use once_cell::sync::{Lazy, OnceCell};
use std::collections::HashSet;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Instant;

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
enum NotOurs {
    /// Hand it to the MPI library (reason for the debug log).
    Fallback(&'static str),
    /// Invalid arguments some MPI library would crash on instead of reporting:
    /// fastred reports them itself (error class, message).
    Invalid(c_int, String),
    /// A failure inside fastred's own setup.
    Error(MpiError),
}

impl From<MpiError> for NotOurs {
    fn from(e: MpiError) -> Self {
        NotOurs::Error(e)
    }
}

/// A reducer of either kind.
enum AnyReducer {
    Builtin(BuiltinReducer),
    User(UserReducer),
}

impl Reducer for AnyReducer {
    fn elem_size(&self) -> usize {
        match self {
            AnyReducer::Builtin(r) => r.elem_size(),
            AnyReducer::User(r) => r.elem_size(),
        }
    }
    fn reduce(&self, src: &[u8], dst: &mut [u8], src_is_left: bool) -> MpiResult {
        match self {
            AnyReducer::Builtin(r) => r.reduce(src, dst, src_is_left),
            AnyReducer::User(r) => r.reduce(src, dst, src_is_left),
        }
    }
}

/// Everything decided about a call fastred runs itself.
struct Plan {
    state: &'static CommState,
    algorithm: Algorithm,
    reducer: AnyReducer,
    commutative: bool,
    /// Per-rank blocks in elements (reduce-scatter), or one block of the whole vector.
    blocks: Blocks,
    /// This rank's input: in the receive buffer (MPI_IN_PLACE), in the send
    /// buffer, or missing (erroneous arguments: zeros stand in).
    input: Input,
    /// The receive buffer, if this rank has a usable one.
    output: Option<*mut c_void>,
    /// An error only this rank can see, reported after taking part.
    local_error: Option<(c_int, String)>,
}

#[derive(Clone, Copy)]
enum Input {
    InPlace,
    Send(*const c_void),
    Missing,
}

/// Run `call` with fastred, or with `fallback` (the matching `PMPI_*` call).
pub fn run(call: &Call, fallback: impl FnOnce() -> c_int) -> c_int {
    if !mpi_is_running() {
        return fallback();
    }
    startup();
    let planned = catch_unwind(AssertUnwindSafe(|| plan(call)));
    let result = match planned {
        Ok(Ok(plan)) => {
            let start = Instant::now();
            let done = catch_unwind(AssertUnwindSafe(|| execute(call, &plan))).unwrap_or_else(|_| Err(internal_error()));
            let done = done.map(|traffic| {
                let bytes = plan.blocks.total() * plan.reducer.elem_size();
                stats::record(call.coll, plan.algorithm, bytes, traffic, start.elapsed().as_nanos() as u64);
            });
            match (done, plan.local_error) {
                (Ok(()), Some((class, message))) => {
                    let code = crate::errors::code_for(class, &format!("{}: {message}", call.coll.mpi_name()));
                    Err(MpiError(code))
                }
                (done, _) => done,
            }
        }
        Ok(Err(NotOurs::Fallback(reason))) => {
            log_fallback(call.coll, reason);
            let start = Instant::now();
            let rc = fallback();
            stats::record(call.coll, Algorithm::Native, 0, Traffic::default(), start.elapsed().as_nanos() as u64);
            return rc;
        }
        Ok(Err(NotOurs::Error(e))) => Err(e),
        Ok(Err(NotOurs::Invalid(class, message))) => {
            let code = crate::errors::code_for(class, &format!("{}: {message}", call.coll.mpi_name()));
            // SAFETY: a communicator that passed validation in `plan`.
            unsafe { ffi::PMPI_Comm_call_errhandler(call.comm, code) };
            return code;
        }
        Err(_) => Err(internal_error()),
    };
    match result {
        Ok(()) => ffi::SUCCESS,
        Err(MpiError(code)) => {
            log::debug!("{} failed: MPI error code {code}", call.coll.mpi_name());
            // SAFETY: a communicator that passed validation in `plan`.
            unsafe { ffi::PMPI_Comm_call_errhandler(call.comm, code) };
            code
        }
    }
}

fn internal_error() -> MpiError {
    log::error!("internal error (panic) inside fastred");
    // SAFETY: constant.
    MpiError(unsafe { ffi::fr_err_intern() })
}

fn mpi_is_running() -> bool {
    let (mut init, mut fini) = (0, 0);
    // SAFETY: out-pointers to locals; callable at any time.
    unsafe { ffi::PMPI_Initialized(&mut init) == ffi::SUCCESS && ffi::PMPI_Finalized(&mut fini) == ffi::SUCCESS && init != 0 && fini == 0 }
}

/// Once per process: stop if this build is for the other MPI, start logging.
fn startup() {
    static STARTED: OnceCell<()> = OnceCell::new();
    STARTED.get_or_init(|| {
        check_library_matches_build();
        let mut rank = 0;
        // SAFETY: MPI is initialised; out-pointer to a local.
        unsafe { ffi::PMPI_Comm_rank(ffi::RSMPI_COMM_WORLD, &mut rank) };
        config::init_logging(rank);
        stats::install_finalize_report();
        log::debug!("fastred {} ({} build) active", env!("CARGO_PKG_VERSION"), ffi::FLAVOUR);
    });
}

/// The running MPI's name, from `PMPI_Get_library_version` (handle-free, so
/// safe to call even with the other MPI's library loaded).
pub fn running_library() -> String {
    // SAFETY: constant.
    let cap = unsafe { ffi::fr_max_library_version_string() }.max(8192) as usize;
    let mut buf = vec![0u8; cap];
    let mut len: c_int = 0;
    // SAFETY: buffer of at least MPI_MAX_LIBRARY_VERSION_STRING bytes.
    unsafe { ffi::PMPI_Get_library_version(buf.as_mut_ptr().cast(), &mut len) };
    buf.truncate(len.clamp(0, cap as c_int) as usize);
    String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
}

fn check_library_matches_build() {
    let version = running_library();
    let running = if version.contains("MPICH") {
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
        // SAFETY: immediate exit; no atexit handlers that could call into MPI.
        unsafe { libc::_exit(1) };
    }
}

fn pretty(flavour: &str) -> &str {
    match flavour {
        "mpich" => "MPICH",
        "openmpi" => "Open MPI",
        other => other,
    }
}

/// This process's `FASTRED_ALGO`, parsed once.
pub fn local_forced() -> Forced {
    static FORCED: OnceCell<Forced> = OnceCell::new();
    *FORCED.get_or_init(comm::parse_env_forced)
}

fn log_fallback(coll: Collective, reason: &'static str) {
    static SEEN: Lazy<Mutex<HashSet<(Collective, &'static str)>>> = Lazy::new(|| Mutex::new(HashSet::new()));
    if SEEN.lock().map(|mut s| s.insert((coll, reason))).unwrap_or(false) {
        log::debug!("{}: handed to PMPI_{}: {reason}", coll.name(), &coll.mpi_name()[4..]);
    }
}

/// Validate the call and decide how to run it.
fn plan(call: &Call) -> Result<Plan, NotOurs> {
    use NotOurs::Fallback;
    // SAFETY: constant.
    let comm_null = unsafe { ffi::fr_comm_null() };
    if call.comm == comm_null {
        return Err(Fallback("MPI_COMM_NULL"));
    }
    let (mut inter, mut size) = (0, 0);
    // SAFETY: out-pointers to locals.
    unsafe {
        if ffi::PMPI_Comm_test_inter(call.comm, &mut inter) != ffi::SUCCESS || ffi::PMPI_Comm_size(call.comm, &mut size) != ffi::SUCCESS {
            return Err(Fallback("invalid communicator"));
        }
    }
    if inter != 0 {
        return Err(Fallback("intercommunicator"));
    }
    let p = size as usize;
    let items_per_rank: Vec<i64> = match call.counts {
        Counts::One(n) => vec![n; if call.coll == Collective::ReduceScatterBlock { p } else { 1 }],
        Counts::PerRank(ptr) if !ptr.is_null() => (0..p).map(|i| unsafe { *ptr.add(i) } as i64).collect(),
        Counts::PerRankLarge(ptr) if !ptr.is_null() => (0..p).map(|i| unsafe { *ptr.add(i) }).collect(),
        _ => return Err(Fallback("null recvcounts")),
    };
    if let Some(n) = items_per_rank.iter().find(|&&n| n < 0) {
        // MPICH 4.0.2 crashes on this instead of reporting it.
        // SAFETY: constant.
        return Err(NotOurs::Invalid(unsafe { ffi::fr_err_count() }, format!("negative count ({n})")));
    }
    if call.coll == Collective::Reduce && !(0..size).contains(&call.root) {
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
    let esz = reducer.elem_size();
    let blocks = Blocks::from_counts(items_per_rank.iter().map(|&n| n as usize));
    let total_bytes = blocks.total().checked_mul(esz).ok_or(Fallback("count too large"))?;

    let rank = rank_of(call.comm);
    let own_block_bytes = if blocks.len() == p { blocks.count(rank as usize) * esz } else { total_bytes };
    let (input, output, local_error) = check_buffers(call, rank, total_bytes, own_block_bytes);
    let state = comm::state_of(call.comm)?;
    let shape = Shape {
        coll: call.coll,
        bytes: total_bytes,
        elems: blocks.total(),
        procs: p,
        commutative,
        builtin_op,
        topology: state.topology_matters,
    };
    let forced = config::effective(state.forced).get(call.coll);
    let choice = select::choose(&shape, forced, &state.table);
    if choice.override_ignored && state.first_time(format!("override {:?} {:?}", call.coll, forced)) {
        log::warn!(
            "FASTRED_ALGO={} cannot run this {} call (it needs a commutative op); using {} instead",
            forced.map_or("", |a| a.name()),
            call.coll.name(),
            choice.algorithm
        );
    }
    if state.first_time(format!("{:?} {:?} {}", call.coll, choice.algorithm, usize::BITS - total_bytes.leading_zeros())) {
        log::debug!(
            "{} of {total_bytes} B on {p} processes: {} ({})",
            call.coll.name(),
            if choice.algorithm == Algorithm::Native { "native MPI" } else { choice.algorithm.name() },
            choice.reason
        );
    }
    if choice.algorithm == Algorithm::Native {
        return Err(Fallback(if forced == Some(Algorithm::Native) { "FASTRED_ALGO=native" } else { "no fastred algorithm for this call" }));
    }
    Ok(Plan { state, algorithm: choice.algorithm, reducer, commutative, blocks, input, output, local_error })
}

fn rank_of(comm: MPI_Comm) -> c_int {
    let mut rank = 0;
    // SAFETY: a validated communicator; out-pointer to a local.
    unsafe { ffi::PMPI_Comm_rank(comm, &mut rank) };
    rank
}

/// This rank's buffers: where its input is, whether its receive buffer is
/// usable, and the error (class, message) its arguments deserve, if any.
fn check_buffers(call: &Call, rank: c_int, total_bytes: usize, block_bytes: usize) -> (Input, Option<*mut c_void>, Option<(c_int, String)>) {
    // SAFETY: constants.
    let (in_place, err_buffer, err_arg) = unsafe { (ffi::fr_in_place() as *const c_void, ffi::fr_err_buffer(), ffi::fr_err_arg()) };
    let open_mpi = cfg!(fastred_mpi = "openmpi");
    let is_root = call.coll != Collective::Reduce || rank == call.root;
    let output_bytes = match call.coll {
        Collective::Allreduce | Collective::Reduce if is_root => total_bytes,
        Collective::Allreduce | Collective::Reduce => 0,
        _ => block_bytes,
    };
    let mut error = None;
    let mut input = if call.sendbuf == in_place { Input::InPlace } else { Input::Send(call.sendbuf) };
    // With MPI_IN_PLACE the receive buffer also holds the input (the whole vector).
    let uses_recvbuf = output_bytes > 0 || (matches!(input, Input::InPlace) && is_root);
    let mut output = uses_recvbuf.then_some(call.recvbuf);
    if total_bytes == 0 {
        return (input, output, None);
    }
    if matches!(input, Input::InPlace) && !is_root {
        // MPICH 4.0.2 crashes on this; Open MPI reports MPI_ERR_ARG.
        error = Some((if open_mpi { err_arg } else { err_buffer }, "MPI_IN_PLACE on a non-root process".to_string()));
        input = Input::Missing;
    }
    if output.is_some_and(|p| p.is_null()) {
        error = Some((err_buffer, "null receive buffer".to_string()));
        output = None;
        if matches!(input, Input::InPlace) {
            input = Input::Missing;
        }
    }
    if let Input::Send(p) = input {
        if p.is_null() {
            // Open MPI 4.1 segfaults on this.
            error = Some((err_buffer, "null send buffer".to_string()));
            input = Input::Missing;
        } else if output_bytes > 0 && std::ptr::eq(p, call.recvbuf) {
            // The input is in the receive buffer, as with MPI_IN_PLACE.
            let class = if open_mpi && call.coll == Collective::Reduce { err_arg } else { err_buffer };
            error = Some((class, "send and receive buffers are the same (use MPI_IN_PLACE)".to_string()));
            input = Input::InPlace;
        }
    }
    (input, output, error)
}

/// A byte slice over a user buffer (empty for a zero length, whatever the pointer).
unsafe fn user_slice<'a>(ptr: *const c_void, len: usize) -> &'a [u8] {
    if len == 0 { &[] } else { std::slice::from_raw_parts(ptr.cast(), len) }
}

unsafe fn user_slice_mut<'a>(ptr: *mut c_void, len: usize) -> &'a mut [u8] {
    if len == 0 { &mut [] } else { std::slice::from_raw_parts_mut(ptr.cast(), len) }
}

/// The vector this rank starts from, in `work` (whose length is the vector's).
fn load_input(plan: &Plan, work: &mut [u8]) {
    match plan.input {
        // SAFETY: `plan` checked the send buffer is non-null; MPI defines its size.
        Input::Send(p) => work.copy_from_slice(unsafe { user_slice(p, work.len()) }),
        Input::Missing => work.fill(0),
        Input::InPlace => {}
    }
}

/// Run the planned algorithm; returns what this process sent and received.
fn execute(call: &Call, plan: &Plan) -> MpiResult<Traffic> {
    let st = plan.state;
    let pmpi = PmpiTransport::new(st.shadow, st.rank, st.size, st.piece_bytes);
    let t = Counting::new(&pmpi);
    run_algorithm(call, plan, &t)?;
    Ok(t.traffic())
}

fn run_algorithm(call: &Call, plan: &Plan, t: &impl crate::algo::Transport) -> MpiResult {
    let st = plan.state;
    let op = &plan.reducer;
    let esz = op.elem_size();
    let total = plan.blocks.total() * esz;
    if total == 0 {
        return Ok(());
    }
    // SAFETY (user_slice_mut): `plan` checked the receive buffer is non-null;
    // MPI defines how many bytes it holds.
    match call.coll {
        Collective::Allreduce | Collective::Reduce => {
            let mut scratch;
            let work: &mut [u8] = match plan.output {
                Some(p) => unsafe { user_slice_mut(p, total) },
                None => {
                    scratch = vec![0u8; total];
                    &mut scratch
                }
            };
            if plan.output.is_some() || !matches!(plan.input, Input::InPlace) {
                load_input(plan, work);
            } else {
                work.fill(0); // in place, but the receive buffer is unusable
            }
            let root = call.root as usize;
            if let Some(kind) = plan.algorithm.skip_kind() {
                let skips = Skips::new(kind, st.size);
                return if call.coll == Collective::Allreduce {
                    circulant::allreduce(t, op, work, &skips)
                } else {
                    circulant::reduce(t, op, work, root, &skips)
                };
            }
            let model = CostModel::default();
            match (call.coll, plan.algorithm) {
                (Collective::Allreduce, Algorithm::TopoRing) => topo_ring::allreduce(t, op, work, &st.ring),
                (_, Algorithm::TopoRing) => topo_ring::reduce(t, op, work, root, &st.ring),
                (_, Algorithm::Pipeline) => pipeline::reduce(t, op, work, root, st.segment_bytes, &model),
                (_, Algorithm::FibonacciTree) => fibonacci_tree::reduce(t, op, work, root, st.segment_bytes, &model),
                (Collective::Allreduce, Algorithm::RecursiveDoubling) => recursive_doubling::allreduce(t, op, work),
                (Collective::Allreduce, Algorithm::Tree) => binomial::allreduce(t, op, work),
                (Collective::Allreduce, Algorithm::Rabenseifner) => halving_doubling::allreduce(t, op, work),
                (Collective::Allreduce, Algorithm::BinaryBlocks) => binary_blocks::allreduce(t, op, work),
                (Collective::Allreduce, _) => ring::allreduce(t, op, work),
                (_, Algorithm::Tree) if plan.commutative => binomial::reduce(t, op, work, root),
                (_, Algorithm::Tree) => binomial::reduce_in_rank_order(t, op, work, root),
                (_, Algorithm::Rabenseifner) => halving_doubling::reduce(t, op, work, root),
                (_, Algorithm::BinaryBlocks) => binary_blocks::reduce(t, op, work, root),
                _ => ring::reduce(t, op, work, root),
            }
        }
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            let mut work = match (plan.input, plan.output) {
                (Input::InPlace, Some(p)) => unsafe { user_slice(p, total) }.to_vec(),
                _ => {
                    let mut w = vec![0u8; total];
                    load_input(plan, &mut w);
                    w
                }
            };
            match (plan.algorithm, plan.algorithm.skip_kind()) {
                (_, Some(kind)) => circulant::reduce_scatter(t, op, &mut work, &plan.blocks, &Skips::new(kind, st.size))?,
                (Algorithm::RecursiveHalving, _) => reduce_scatter_halving::reduce_scatter(t, op, &mut work, &plan.blocks)?,
                (Algorithm::TopoRing, _) => topo_ring::reduce_scatter_blocks(t, op, &mut work, &plan.blocks, &st.ring)?,
                _ => ring::reduce_scatter(t, op, &mut work, &plan.blocks)?,
            }
            if let Some(p) = plan.output {
                let mine = plan.blocks.bytes(st.rank, esz);
                unsafe { user_slice_mut(p, mine.len()) }.copy_from_slice(&work[mine]);
            }
            Ok(())
        }
    }
}
