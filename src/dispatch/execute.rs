//! Running the chosen algorithm on the private communicator.

use super::buffers::{load_input, scratch, user_slice, user_slice_mut, Input};
use super::{Call, Plan};
use crate::algo::circulant::{self, Skips};
use crate::algo::{binary_blocks, binomial, fibonacci_tree, halving_doubling, pipeline, recursive_doubling, reduce_scatter_halving, ring, topo_ring, Transport};
use crate::config::{self, Fault};
use crate::error::MpiResult;
use crate::model::CostModel;
use crate::op::{user::UserReducer, BuiltinReducer, Reducer};
use crate::select::{Algorithm, Collective};
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
        match self {
            AnyReducer::Builtin(r) => r.reduce(src, dst, src_is_left),
            AnyReducer::User(r) => r.reduce(src, dst, src_is_left),
        }
    }
}

/// Run the planned algorithm; returns what this process sent and received.
pub fn execute(call: &Call, plan: &Plan) -> MpiResult<Traffic> {
    static INJECTED: AtomicBool = AtomicBool::new(false);
    if config::local().fault == Some(Fault::Panic) && !INJECTED.swap(true, Ordering::Relaxed) {
        panic!("FASTRED_FAULT=panic: a panic injected on purpose (once)");
    }
    let st = plan.state;
    let pmpi = PmpiTransport::new(st.shadow, st.rank, st.size, st.piece_bytes);
    let t = Counting::new(&pmpi);
    run_algorithm(call, plan, &t)?;
    Ok(t.traffic())
}

fn run_algorithm(call: &Call, plan: &Plan, t: &impl Transport) -> MpiResult {
    let st = plan.state;
    let op = &plan.reducer;
    let esz = op.elem_size();
    let total = plan.blocks.total() * esz;
    if total == 0 {
        return Ok(());
    }
    // SAFETY (user_slice, user_slice_mut): validation checked the buffers are
    // non-null; MPI defines how many bytes they hold; nothing else borrows them.
    match call.coll {
        Collective::Allreduce | Collective::Reduce => {
            let mut owned;
            let work: &mut [u8] = match plan.output {
                Some(p) => unsafe { user_slice_mut(p, total) },
                None => {
                    owned = scratch(total)?;
                    &mut owned
                }
            };
            if plan.output.is_some() || !matches!(plan.input, Input::InPlace) {
                load_input(plan.input, work);
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
                (Collective::Allreduce, Algorithm::TopoRing) => topo_ring::allreduce(t, op, work, &st.ring()?.order),
                (_, Algorithm::TopoRing) => topo_ring::reduce(t, op, work, root, &st.ring()?.order),
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
            let mut work = scratch(total)?;
            match (plan.input, plan.output) {
                (Input::InPlace, Some(p)) => work.copy_from_slice(unsafe { user_slice(p, total) }),
                (input, _) => load_input(input, &mut work),
            }
            match (plan.algorithm, plan.algorithm.skip_kind()) {
                (_, Some(kind)) => circulant::reduce_scatter(t, op, &mut work, &plan.blocks, &Skips::new(kind, st.size))?,
                (Algorithm::RecursiveHalving, _) => reduce_scatter_halving::reduce_scatter(t, op, &mut work, &plan.blocks)?,
                (Algorithm::TopoRing, _) => topo_ring::reduce_scatter_blocks(t, op, &mut work, &plan.blocks, &st.ring()?.order)?,
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
