//! The last calls each thread made, remembered: a loop of the same calls (same
//! communicator, collective, counts, root, predefined datatype and op) skips
//! the attribute lookup, the handle checks, the op and type resolution and the
//! decision, which together cost more than the library's own short
//! collective on one host (docs/per-call-overhead.md, "Repeated calls").
//! Only the buffers are checked again: they may differ from call to call.
//!
//! A remembered call is valid while no communicator state has been freed
//! since (a freed handle may come back naming another communicator) and the
//! C API's overrides (`fastred_force`, `fastred_reproducible`) are unchanged.
//! Calls with a user-defined op or a derived datatype (whose handles may
//! also be freed and reused) are never remembered; irregular reduce-scatters
//! only when handed to the library or run in shared memory, on at most
//! [`MAX_COUNTS`] processes (their counts, in user memory, are compared entry
//! by entry).
//!
//! Programs whose MPI calls are serialized (thread level below
//! `MPI_THREAD_MULTIPLE`, as most are) also keep, per collective, the last
//! call handed to the library with ordinary buffers ([`handed_over_before`]):
//! a repeat of it goes to the library after a few plain loads and compares,
//! no thread-local lookup (the cost of a hand-over is then close to a bare
//! interposer's; docs/per-call-overhead.md, "Hand-overs in serialized programs").

use super::buffers::user_counts;
use super::{Call, Counts};
use crate::algo::Blocks;
use crate::comm::{self, CommState};
use crate::config;
use crate::ffi::{MPI_Comm, MPI_Datatype, MPI_Op};
use crate::op::BuiltinReducer;
use crate::select::{Algorithm, Collective};
use crate::ffi::HandleBits;
use std::cell::RefCell;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Most processes an irregular reduce-scatter is remembered for.
const MAX_COUNTS: usize = 16;

/// What a call was decided to be, from the arguments MPI requires every
/// rank to pass alike.
#[derive(Clone, Copy)]
pub struct Decided {
    pub state: &'static CommState,
    pub algorithm: Algorithm,
    pub reducer: BuiltinReducer,
    /// The call must follow the canonical order (`FASTRED_REPRODUCIBLE`).
    pub canonical: bool,
    /// Elements in all and blocks (reduce_scatter_block: one per rank), for
    /// even blocks; `None` for an irregular reduce-scatter.
    pub even: Option<(usize, usize)>,
}

impl Decided {
    /// The call's blocks, if even.
    pub fn blocks(&self) -> Option<Blocks> {
        self.even.map(|(total, parts)| Blocks::even(total, parts))
    }
}

/// The arguments a decision depends on, and when it was made.
#[derive(Clone, Copy)]
struct Remembered {
    comm: MPI_Comm,
    coll: Collective,
    /// `count` / `recvcount`, or the first `p` entries the irregular counts.
    counts: [i64; MAX_COUNTS],
    datatype: MPI_Datatype,
    op: MPI_Op,
    root: c_int,
    states_freed: u64,
    overrides: u64,
    decided: Decided,
}

/// How many calls each thread remembers: a loop over a few calls (a
/// solver's dot products and its longer reductions) recalls every one.
const REMEMBERED: usize = 4;

/// A thread's last remembered calls, replaced in turn.
struct Recent {
    calls: [Option<Remembered>; REMEMBERED],
    /// The entry the next call remembered replaces.
    next: usize,
}

thread_local! {
    static RECENT: RefCell<Recent> = const { RefCell::new(Recent { calls: [None; REMEMBERED], next: 0 }) };
}

/// `call`'s counts as remembered ones, if it has at most [`MAX_COUNTS`].
fn counts_of(call: &Call, p: usize) -> Option<[i64; MAX_COUNTS]> {
    let mut counts = [0; MAX_COUNTS];
    match call.counts {
        Counts::One(n) => counts[0] = n,
        _ if p > MAX_COUNTS => return None,
        _ => counts.iter_mut().zip(user_counts(call, p)?).for_each(|(c, n)| *c = n),
    }
    Some(counts)
}

fn matches(r: &Remembered, call: &Call) -> bool {
    r.comm == call.comm
        && r.coll == call.coll
        && r.datatype == call.datatype
        && r.op == call.op
        && (call.coll != Collective::Reduce || r.root == call.root)
        && r.states_freed == comm::states_freed()
        && r.overrides == config::overrides_word()
        && match call.counts {
            Counts::One(n) => r.counts[0] == n,
            _ => counts_of(call, r.decided.state.size) == Some(r.counts),
        }
}

/// The decision for `call` if one of this thread's remembered calls had the
/// same arguments and is still valid.
pub fn recall(call: &Call) -> Option<Decided> {
    RECENT.with_borrow(|recent| {
        // The latest first: a loop of one call finds it at once.
        (1..=REMEMBERED).find_map(|age| recent.calls[(recent.next + REMEMBERED - age) % REMEMBERED].as_ref().filter(|r| matches(r, call)).map(|r| r.decided))
    })
}

/// Remember `decided` as the decision for `call`, in place of the oldest
/// remembered call (a predefined op on a
/// predefined datatype; an irregular reduce-scatter only if it has a
/// shortcut: handed to the library, or the shared-memory algorithm).
pub fn remember(call: &Call, decided: Decided) {
    if decided.even.is_none() && !matches!(decided.algorithm, Algorithm::Native | Algorithm::SharedMemory) {
        return;
    }
    let Some(counts) = counts_of(call, decided.state.size) else { return };
    RECENT.with_borrow_mut(|recent| {
        let slot = recent.next;
        recent.next = (slot + 1) % REMEMBERED;
        recent.calls[slot] = Some(Remembered {
            comm: call.comm,
            coll: call.coll,
            counts,
            datatype: call.datatype,
            op: call.op,
            root: call.root,
            states_freed: comm::states_freed(),
            overrides: config::overrides_word(),
            decided,
        })
    });
}

/// The last call of one collective handed to the library with ordinary
/// buffers, in a serialized program. Relaxed atomics, i.e. plain loads and
/// stores: MPI's thread contract orders every access (calls are never
/// concurrent below `MPI_THREAD_MULTIPLE`), so the words always belong to one
/// recording.
struct HandedOver {
    valid: AtomicBool,
    comm: AtomicU64,
    datatype: AtomicU64,
    op: AtomicU64,
    /// `count` / `recvcount`; for an irregular reduce-scatter, its first `p` entries.
    counts: [AtomicI64; MAX_COUNTS],
    /// 0 for one count, else the `p` of the irregular counts.
    irregular: AtomicUsize,
    root: AtomicI64,
    /// Whether this rank's receive buffer is used (not a reduce's other ranks').
    needs_recvbuf: AtomicBool,
    states_freed: AtomicU64,
    overrides: AtomicU64,
}

static HANDED_OVER: [HandedOver; 4] = [const {
    HandedOver {
        valid: AtomicBool::new(false),
        comm: AtomicU64::new(0),
        datatype: AtomicU64::new(0),
        op: AtomicU64::new(0),
        counts: [const { AtomicI64::new(0) }; MAX_COUNTS],
        irregular: AtomicUsize::new(0),
        root: AtomicI64::new(0),
        needs_recvbuf: AtomicBool::new(false),
        states_freed: AtomicU64::new(0),
        overrides: AtomicU64::new(0),
    }
}; 4];

/// Whether [`handed_over_before`] may be used: the program's calls are
/// serialized and not timed (`FASTRED_STATS` times every call), and
/// `MPI_Finalize` has not begun.
static SERIALIZED: AtomicBool = AtomicBool::new(false);

/// `MPI_IN_PLACE`'s bits, read once by [`enable_serialized`].
static IN_PLACE: AtomicU64 = AtomicU64::new(0);

/// At start-up: use [`handed_over_before`] if `serialized` (the program's
/// thread level) and calls are not timed.
pub fn enable_serialized(serialized: bool, timed: bool) {
    IN_PLACE.store(crate::mpi::handle::in_place().bits(), Relaxed);
    SERIALIZED.store(serialized && !timed, Relaxed);
}

/// At `MPI_Finalize`: from now on calls take the full path.
pub fn disable_serialized() {
    SERIALIZED.store(false, Relaxed);
}

/// Whether `call` repeats the last call of its collective handed to the
/// library, still valid, with ordinary buffers (see [`validate::plain_buffers`](super::validate::plain_buffers)):
/// then it goes straight to the library.
#[inline(always)]
pub fn handed_over_before(call: &Call) -> bool {
    if !SERIALIZED.load(Relaxed) {
        return false;
    }
    let h = &HANDED_OVER[call.coll as usize];
    let send = call.sendbuf.bits();
    h.valid.load(Relaxed)
        && h.comm.load(Relaxed) == call.comm.bits()
        && h.datatype.load(Relaxed) == call.datatype.bits()
        && h.op.load(Relaxed) == call.op.bits()
        && h.root.load(Relaxed) == i64::from(call.root)
        && same_counts(h, call)
        && send != 0
        && send != IN_PLACE.load(Relaxed)
        && send != call.recvbuf.bits()
        && (!call.recvbuf.is_null() || !h.needs_recvbuf.load(Relaxed))
        && h.states_freed.load(Relaxed) == comm::states_freed()
        && h.overrides.load(Relaxed) == config::overrides_word()
}

#[inline(always)]
fn same_counts(h: &HandedOver, call: &Call) -> bool {
    match (call.counts, h.irregular.load(Relaxed)) {
        (Counts::One(n), 0) => h.counts[0].load(Relaxed) == n,
        (Counts::One(_), _) | (_, 0) => false,
        (_, p) => user_counts(call, p).is_some_and(|counts| counts.zip(&h.counts).all(|(n, c)| c.load(Relaxed) == n)),
    }
}

/// Record `call`, a repeat handed to the library with ordinary buffers
/// (decided as `d`), for [`handed_over_before`].
pub fn note_handed_over(call: &Call, d: &Decided) {
    if !SERIALIZED.load(Relaxed) {
        return;
    }
    let h = &HANDED_OVER[call.coll as usize];
    let p = d.state.size;
    let irregular = match call.counts {
        Counts::One(n) => {
            h.counts[0].store(n, Relaxed);
            0
        }
        _ => match user_counts(call, p) {
            Some(counts) if p <= MAX_COUNTS => {
                counts.zip(&h.counts).for_each(|(n, c)| c.store(n, Relaxed));
                p
            }
            _ => {
                h.valid.store(false, Relaxed);
                return;
            }
        },
    };
    h.irregular.store(irregular, Relaxed);
    h.comm.store(call.comm.bits(), Relaxed);
    h.datatype.store(call.datatype.bits(), Relaxed);
    h.op.store(call.op.bits(), Relaxed);
    h.root.store(i64::from(call.root), Relaxed);
    h.needs_recvbuf.store(call.coll != Collective::Reduce || d.state.rank as c_int == call.root, Relaxed);
    h.states_freed.store(comm::states_freed(), Relaxed);
    h.overrides.store(config::overrides_word(), Relaxed);
    h.valid.store(true, Relaxed);
}
