//! Running the chosen algorithm on the private communicator.

use super::buffers::{load_input, user_slice, user_slice_mut, Input, Scratch};
use super::repeat::Decided;
use super::{Call, Plan};
use crate::algo::registry::{not_implemented, Job};
use crate::algo::{copy, shared_memory, Transport};
use crate::comm::Placement;
use crate::config::{self, Fault};
use crate::error::MpiResult;
use crate::op::{user::UserReducer, BuiltinReducer, Reducer};
use crate::select::Collective;
use crate::simulated;
use crate::transport::counting::{Counting, Traffic};
use crate::transport::pmpi::PmpiTransport;
use std::sync::atomic::{AtomicBool, Ordering};

/// A reducer of either kind.
pub enum AnyReducer {
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
        let kernel = match self {
            AnyReducer::Builtin(r) => Some((r.op(), r.elem())),
            AnyReducer::User(_) => None,
        };
        if !simulated::charge_reduction(kernel, dst.len()) {
            return Ok(());
        }
        match self {
            AnyReducer::Builtin(r) => r.reduce(src, dst, src_is_left),
            AnyReducer::User(r) => r.reduce(src, dst, src_is_left),
        }
    }
}

/// A repeat of a call decided for the shared-memory algorithm, whose buffers
/// are ordinary ([`super::validate::plain_buffers`]: a separate, non-null send
/// buffer, and a receive buffer where the call needs one): its rounds run
/// straight on the user's buffers, without planning, a transport or copies.
/// `None` if the call is not such a repeat.
pub fn shared_memory_repeat(call: &Call, d: &Decided) -> Option<MpiResult> {
    // Irregular blocks: from the call's counts (equal to the remembered ones).
    let blocks = d.blocks().or_else(|| super::validate::blocks_of(call, d.state.size).ok())?;
    let (rank, esz) = (d.state.rank, d.reducer.elem_size());
    let total = blocks.total() * esz;
    let segment = d.state.shared_segment().ok().flatten()?;
    let (output, at) = match call.coll {
        Collective::Allreduce => (total, 0),
        Collective::Reduce => (if rank == call.root as usize { total } else { 0 }, 0),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => (blocks.count(rank) * esz, blocks.offset(rank) * esz),
    };
    // SAFETY (user_slice, user_slice_mut): plain buffers are non-null and
    // distinct where used; MPI defines how many bytes they hold.
    let (input, out) = unsafe { (user_slice(call.sendbuf, total), user_slice_mut(call.recvbuf, output)) };
    let rounds = shared_memory::Rounds { segment, rank, coll: call.coll, root: call.root as usize, blocks: &blocks };
    Some(rounds.run(&d.reducer, shared_memory::Input::Separate(input), out, at).map(drop))
}

/// Run the planned algorithm; returns what this process sent and received.
pub fn execute(call: &Call, plan: &Plan) -> MpiResult<Traffic> {
    static INJECTED: AtomicBool = AtomicBool::new(false);
    if config::local().fault == Some(Fault::Panic) && !INJECTED.swap(true, Ordering::Relaxed) {
        panic!("FASTRED_FAULT=panic: a panic injected on purpose (once)");
    }
    let st = plan.state;
    let descriptor = plan.algorithm.descriptor();
    let total = plan.blocks.total() * plan.reducer.elem_size();
    // Where the ranks are: for the algorithms that need it, and for vectors
    // long enough to go in pieces (messages within a host go whole). Every
    // rank decides alike: same algorithm, same vector size.
    let placement = if descriptor.uses_ring || descriptor.uses_hosts || total > st.piece_bytes { Some(st.placement()?) } else { st.known_placement() };
    let shared = if descriptor.shared_memory { st.shared_segment()? } else { None };
    let pmpi = PmpiTransport::new(st.shadow, st.rank, st.size, st.piece_bytes, placement.map(|p| p.hosts.host_of())).with_shared_memory(shared);
    let t = Counting::new(&pmpi);
    run_algorithm(call, plan, &t, placement)?;
    Ok(t.traffic())
}

fn run_algorithm(call: &Call, plan: &Plan, t: &dyn Transport, placement: Option<&Placement>) -> MpiResult {
    let st = plan.state;
    let op = &plan.reducer;
    let esz = op.elem_size();
    let total = plan.blocks.total() * esz;
    if total == 0 {
        return Ok(());
    }
    let descriptor = plan.algorithm.descriptor();
    let Some(run) = descriptor.run else {
        return not_implemented(descriptor.name, call.coll);
    };
    // The active table's α-β-γ model (a tuned table's `model` line) sizes segments,
    // chunks and the two-level algorithm's inter-host phase, as it chose the algorithm.
    let model = st.table.model;
    let job = Job {
        coll: call.coll,
        blocks: &plan.blocks,
        root: call.root as usize,
        commutative: plan.commutative,
        ring: placement.map_or(&[][..], |p| &p.ring),
        hosts: placement.map_or(&crate::algo::host_map::NO_HOSTS, |p| &p.hosts),
        segment_bytes: st.segment_bytes,
        model: &model,
        canonical: plan.canonical,
        table: &st.table,
        nhalf: placement.map_or(0, |p| p.nhalf),
    };
    // SAFETY (user_slice, user_slice_mut): validation checked the buffers are
    // non-null; MPI defines how many bytes they hold; nothing else borrows them.
    match (call.coll, plan.input, plan.output, descriptor.run_from) {
        // A send buffer of its own and an algorithm that reads it in place: no copy.
        (Collective::Allreduce | Collective::ReduceScatter | Collective::ReduceScatterBlock, Input::Send(input), Some(output), Some(run_from)) => {
            let input = unsafe { user_slice(input, total) };
            let result = if call.coll == Collective::Allreduce { total } else { plan.blocks.count(st.rank) * esz };
            run_from(t, op, input, unsafe { user_slice_mut(output, result) }, &job)
        }
        (Collective::Allreduce | Collective::Reduce, ..) => {
            let mut owned;
            let work: &mut [u8] = match plan.output {
                Some(p) => unsafe { user_slice_mut(p, total) },
                None => {
                    owned = Scratch::new(total)?;
                    &mut owned
                }
            };
            if plan.output.is_some() || !matches!(plan.input, Input::InPlace) {
                load_input(t, plan.input, work);
            } else {
                work.fill(0); // in place, but the receive buffer is unusable
            }
            run(t, op, work, &job)
        }
        (Collective::ReduceScatter | Collective::ReduceScatterBlock, ..) => {
            let mut work = Scratch::new(total)?;
            match (plan.input, plan.output) {
                (Input::InPlace, Some(p)) => copy(t, &mut work, unsafe { user_slice(p, total) }),
                (input, _) => load_input(t, input, &mut work),
            }
            run(t, op, &mut work, &job)?;
            if let Some(p) = plan.output {
                let mine = plan.blocks.bytes(st.rank, esz);
                copy(t, unsafe { user_slice_mut(p, mine.len()) }, &work[mine]);
            }
            Ok(())
        }
    }
}
