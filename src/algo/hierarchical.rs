//! Hierarchical (two-level) allreduce and reduce, for ranks that share hosts
//! (the structure of Open MPI's coll/han and MVAPICH2's two-level allreduce,
//! with every local rank working in the inter-host phase as in SimGrid's
//! `smp_rsag`):
//!
//! 1. within each host, a ring reduce-scatter (Patarasuk & Yuan §3.2) cuts
//!    the vector into L blocks, L = the fewest ranks on any host: the host's
//!    rank of local index l < L ends with block l reduced over its host;
//! 2. lane l (the ranks of local index l, one per host) reduces block l
//!    across the hosts: L inter-host operations at once, each with the
//!    algorithm the α-β-γ model prefers for its block and host count;
//! 3. allreduce: within each host, a ring allgather of the L blocks; reduce:
//!    the lane ranks on the root's host send their blocks to the root.
//!
//! Any number of ranks per host (beyond L they help in step 1 only), in any
//! rank positions. Needs a commutative op. Each block is reduced by one lane
//! and copied, so every rank gets bit-identical results.

use super::registry::{Job, REGISTRY};
use super::ring::{self, RingPosition};
use super::subset::Subset;
use super::{Blocks, Transport};
use crate::collective::Collective;
use crate::error::MpiResult;
use crate::model::CostModel;
use crate::op::Reducer;
use crate::scratch::Pooled;
use std::ops::Range;

/// This rank's two groups.
struct Groups {
    /// The ranks on this rank's host, ascending; this rank is `local[my_local]`.
    local: Pooled<usize>,
    my_local: usize,
    /// L: the fewest ranks on any host.
    lanes: usize,
    /// This rank's lane (one rank per host, ascending; empty if my_local ≥ L);
    /// this rank is `lane[my_lane_position]`.
    lane: Pooled<usize>,
    my_lane_position: usize,
}

impl Groups {
    fn of(rank: usize, hosts: &[usize]) -> Groups {
        let host_count = hosts.iter().max().map_or(1, |&h| h + 1);
        let mut ranks_on: Pooled<usize> = (0..host_count).map(|_| 0).collect();
        let mut local_index: Pooled<usize> = Pooled::new();
        for &h in hosts {
            local_index.push(ranks_on[h]);
            ranks_on[h] += 1;
        }
        let lanes = ranks_on.iter().copied().filter(|&k| k > 0).min().unwrap_or(1);
        let me = hosts[rank];
        let my_local = local_index[rank];
        let local: Pooled<usize> = (0..hosts.len()).filter(|&r| hosts[r] == me).collect();
        let lane: Pooled<usize> = if my_local < lanes { (0..hosts.len()).filter(|&r| local_index[r] == my_local).collect() } else { Pooled::new() };
        let my_lane_position = lane.iter().position(|&r| r == rank).unwrap_or(0);
        Groups { local, my_local, lanes, lane, my_lane_position }
    }
}

/// The inter-host algorithm for `coll` on `bytes` over `hosts` processes:
/// the registered one (not this one) with the lowest α-β-γ estimate, and
/// that estimate.
fn inter_host_algorithm(coll: Collective, bytes: usize, hosts: usize, m: &CostModel) -> Option<(&'static super::registry::Descriptor, f64)> {
    REGISTRY
        .iter()
        .filter(|d| d.run.is_some() && !d.uses_hosts && d.collectives.contains(&coll))
        .filter_map(|d| d.estimate.map(|e| (d, e(coll, bytes, hosts, m))))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Step 2: lane `t` reduces `block` (allreduce, or reduce to lane rank `root`).
fn across_hosts(t: &dyn Transport, op: &dyn Reducer, block: &mut [u8], root: usize, job: &Job) -> MpiResult {
    if t.size() < 2 || block.is_empty() {
        return Ok(());
    }
    let Some((d, _)) = inter_host_algorithm(job.coll, block.len(), t.size(), job.model) else {
        return super::registry::not_implemented("hierarchical (no inter-host algorithm)", job.coll);
    };
    let order = ring::rank_order(t.size());
    let whole = Blocks::even(0, 1);
    let inner = Job { coll: job.coll, blocks: &whole, root, commutative: true, ring: &order, hosts: &[], segment_bytes: job.segment_bytes, model: job.model };
    (d.run.expect("filtered on run"))(t, op, block, &inner)
}

/// Allreduce (or reduce to `job.root`) of `buf` in place.
fn two_level(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    if t.size() < 2 {
        return Ok(());
    }
    let esz = op.elem_size();
    let g = Groups::of(t.rank(), job.hosts);
    let lane_blocks = Blocks::even(buf.len() / esz, g.lanes);
    let end = buf.len();
    let segments: Pooled<Range<usize>> = (0..g.local.len()).map(|i| if i < g.lanes { lane_blocks.bytes(i, esz) } else { end..end }).collect();

    // 1. Within the host.
    let on_host = Subset::new(t, &g.local, g.my_local);
    let order = ring::rank_order(g.local.len());
    let position = RingPosition::of(&order, g.my_local);
    ring::reduce_scatter(&on_host, op, buf, &segments, &position)?;

    // 2. Across hosts, one lane per block.
    let is_reduce = job.coll == Collective::Reduce;
    if g.my_local < g.lanes {
        let lane = Subset::new(t, &g.lane, g.my_lane_position);
        let root_host = job.hosts[job.root];
        let lane_root = if is_reduce { g.lane.iter().position(|&r| job.hosts[r] == root_host).unwrap_or(0) } else { 0 };
        across_hosts(&lane, op, &mut buf[segments[g.my_local].clone()], lane_root, job)?;
    }

    // 3. Back within the host.
    if !is_reduce {
        return ring::allgather(&on_host, buf, &segments, &position);
    }
    let root = job.root;
    if job.hosts[t.rank()] != job.hosts[root] {
        return Ok(());
    }
    if t.rank() == root {
        for (l, &from) in g.local.iter().enumerate().take(g.lanes).filter(|&(_, &r)| r != root) {
            t.recv(from, &mut buf[segments[l].clone()])?;
        }
        Ok(())
    } else if g.my_local < g.lanes {
        t.send(root, &buf[segments[g.my_local].clone()])
    } else {
        Ok(())
    }
}

/// Registry entry: allreduce and reduce.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce | Collective::Reduce => two_level(t, op, buf, job),
        other => super::registry::not_implemented("hierarchical", other),
    }
}

/// The model has one level (one α, β for every pair of ranks): seen from
/// it, one rank per host, where the two-level algorithm is its inter-host
/// algorithm.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    inter_host_algorithm(coll, bytes, p, m).map_or(f64::INFINITY, |(_, estimate)| estimate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_with_unequal_hosts_and_scattered_ranks() {
        // host of each rank: host 0 has ranks 0, 3, 4; host 1 has 1, 5; host 2 has 2, 6, 7.
        let hosts = [0, 1, 2, 0, 0, 1, 2, 2];
        let g = Groups::of(4, &hosts);
        assert_eq!((&g.local[..], g.my_local, g.lanes), (&[0, 3, 4][..], 2, 2));
        assert!(g.lane.is_empty(), "local index 2 is beyond the 2 lanes");
        let g = Groups::of(5, &hosts);
        assert_eq!((&g.lane[..], g.my_lane_position), (&[3, 5, 6][..], 1));
    }
}
