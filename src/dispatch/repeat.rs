//! The last call each thread made, remembered: a loop of the same call (same
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

use super::buffers::user_counts;
use super::{Call, Counts};
use crate::algo::Blocks;
use crate::comm::{self, CommState};
use crate::config;
use crate::ffi::{MPI_Comm, MPI_Datatype, MPI_Op};
use crate::op::BuiltinReducer;
use crate::select::{Algorithm, Collective};
use std::cell::RefCell;
use std::os::raw::c_int;

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

thread_local! {
    static LAST: RefCell<Option<Remembered>> = const { RefCell::new(None) };
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

/// The decision for `call` if this thread's last remembered call had the same
/// arguments and is still valid.
pub fn recall(call: &Call) -> Option<Decided> {
    LAST.with_borrow(|last| last.as_ref().filter(|r| matches(r, call)).map(|r| r.decided))
}

/// Remember `decided` as the decision for `call` (a predefined op on a
/// predefined datatype; an irregular reduce-scatter only if it has a
/// shortcut: handed to the library, or the shared-memory algorithm).
pub fn remember(call: &Call, decided: Decided) {
    if decided.even.is_none() && !matches!(decided.algorithm, Algorithm::Native | Algorithm::SharedMemory) {
        return;
    }
    let Some(counts) = counts_of(call, decided.state.size) else { return };
    LAST.with_borrow_mut(|last| {
        *last = Some(Remembered {
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
