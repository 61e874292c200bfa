//! Hierarchical (two-level) allreduce and reduce, for ranks that share hosts
//! (the structure of Open MPI's coll/han and MVAPICH2's two-level allreduce,
//! with every local rank working in the inter-host phase as in SimGrid's
//! `smp_rsag`):
//!
//! 1. within each host, a reduce-scatter cuts the vector into L blocks, L =
//!    the fewest ranks on any host, or the most for long vectors on a fast
//!    network ([`lane_count`]): on a host of at least L ranks, local index
//!    l < L ends with block l reduced over its host; on a host of k < L, each
//!    rank ends with a run of about L/k adjacent blocks ([`served`]).
//!    Recursive halving (Rabenseifner
//!    2004 §3.5) where every host holds the same power-of-two number of
//!    ranks, else the circulant (Träff 2025) where its ⌈lg K⌉ rounds save
//!    more than its copies cost, else the ring (Patarasuk & Yuan §3.2)
//!    ([`WithinHost`]);
//! 2. lane l (the rank that holds block l, one per host) reduces block l
//!    across the hosts: L inter-host operations at once (a rank that serves
//!    several runs them one after the other, lowest first, so no lane waits
//!    on a higher one), all with the
//!    algorithm the active table chooses for a lane (one rank per host) of
//!    the host count at the whole vector's bytes, which cross each host's
//!    link (the α-β-γ model's where the table names none);
//! 3. allreduce: within each host, the allgather of the L blocks that
//!    reverses step 1; reduce: the ranks on the root's host send their
//!    blocks to the root, which posts all its receives at once (with
//!    halving, a gather by distance halving).
//!
//! Reduce-scatter runs the same two steps on the vector rearranged so that
//! the blocks each lane member must end with are contiguous ([`Parts`]);
//! step 3 hands every block to its rank within the host.
//!
//! Any number of ranks per host, in any rank positions. (With the fewest
//! lanes on hosts of 16 and one of 4, 12 ranks of each host of 16 sit out
//! step 2 and step 1 scatters 4 blocks of n/4 over 16 ranks: for long
//! vectors the most lanes took 0.42-0.55 of that time.) Needs a commutative
//! op. Each block is reduced by one lane
//! and copied, so every rank gets bit-identical results. Where the call must
//! follow the canonical order (`FASTRED_REPRODUCIBLE`), step 1 is a
//! reduce-scatter that computes it and step 2 an algorithm that does: on
//! hosts in blocks ([`crate::reproducible::hosts_in_blocks`]) and on one
//! host, that is the whole canonical order.

use super::halving_groups::{self, Group, Segments};
use super::host_map::{HostMap, NO_HOSTS};
use super::registry::{Job, REGISTRY};
use super::ring::{self, RingPosition};
use super::subset::Subset;
use super::circulant::{self, SkipKind, Skips};
use super::{halving_doubling, recv_ranges, Blocks, Transport};
use crate::collective::Collective;
use crate::error::MpiResult;
use crate::model::CostModel;
use crate::op::Reducer;
use crate::scratch::Pooled;
use crate::select::{Hosts, Layout, Shape, Table};
use std::ops::Range;

/// This rank's host and the lanes it serves: O(K) on every call, every lane
/// O(hosts) ([`Groups::lane`]), from the communicator's [`HostMap`] (at
/// p = 4096 an O(p) setup per call had cost more than a short call's
/// messages: `examples/cpu_per_call.rs`).
struct Groups<'h> {
    hosts: &'h HostMap,
    /// This rank, the `my_local`-th of its host's ranks ([`Groups::local`]).
    me: usize,
    my_local: usize,
    /// L ([`lane_count`]): the fewest ranks on a host, or the most for long
    /// vectors.
    lanes: usize,
    /// The lanes this rank serves ([`served`]).
    my_lanes: Range<usize>,
    /// Every host holds the same power-of-two number of ranks: the phases
    /// within a host halve and double ([`WithinHost::Halving`]).
    halving: bool,
}

/// Bytes per lane from which hosts with different numbers of ranks run as
/// many lanes as the most ranks on a host, rather than the fewest: 96 KiB
/// for the reduce, 384 KiB for the allreduce and reduce-scatters. Below,
/// the latencies of the lanes that a rank of a smaller host runs one after
/// the other cost more than the balance saves; above, the lanes balance the
/// larger hosts' work within the host (SimGrid SMPI, 100 Gbit/s fat tree,
/// torus and dragonfly, 5-15 ranks dealt round robin over hosts of 2-4:
/// 0.56-0.96 of the time with the fewest from lanes of 128 KiB and 512 KiB,
/// mixed at 64 KiB and 256 KiB, to 1.8x below;
/// `docs/results/smpi/cyclic-small/lanes-most/`). The thresholds sit
/// between the two measured sizes, so that a vector a little short of a
/// measured one (a reduce-scatter's 8 MiB cut into 100 blocks, 524 250 B a
/// lane of 16) counts as long: on hosts of 16 with a last of 4 that one
/// took 2.35x the ring's time with the fewest lanes.
fn most_lanes_from(coll: Collective) -> usize {
    if coll == Collective::Reduce { 96 << 10 } else { 384 << 10 }
}

/// The n½ from which a network is a fast one, as the table's `nhalf>=8K`
/// rules say (100 Gbit/s fabrics measure about 30 KiB, 10 Gbit/s Ethernet
/// 6 KiB, 1 Gbit/s 4 KiB).
const FAST_NETWORK_NHALF: usize = 8 << 10;

/// L, the lanes of a call of `coll` on `bytes` over `hosts` hosts of
/// `fewest` to `most` ranks, across a network of n½ `nhalf` (0: not known):
/// one per rank of the largest host on a fast network ([`FAST_NETWORK_NHALF`])
/// where the lanes' blocks reach [`most_lanes_from`] and either the hosts
/// are at most 16 or every rank of a smallest host serves the same number
/// of lanes (`most` a multiple of `fewest`, at least 2); else one per rank
/// of the smallest. Across more hosts, where some ranks serve one lane more
/// than others or a lone rank serves them all, the lanes run one after the
/// other cost as much as the balance saves, or more (0.76-1.19x on 33-101
/// hosts of 2 and 1, 1.0-1.18x for the allreduce on 17-50 hosts of 4 and 3;
/// on 63 hosts of 16 and 8, 0.84-1.02x:
/// `docs/results/smpi/lanes-most-many-hosts/`). On 1 Gbit/s Ethernet the
/// balance within a host is worth too little against the network: the most
/// lanes took 1.0-1.42x there (`docs/results/smpi/cyclic-small/lanes-most/gbe/`).
///
/// And the balance must outweigh the back-to-back lanes by a quarter, in
/// the bytes through the busiest rank (shares of the vector): within a
/// largest host of k ranks the ring passes (k − 1)/L of it, (k − 1)/f with
/// L = f lanes and (k − 1)/k with L = k (the balance); a rank of a smallest
/// host of f carries ⌈k/f⌉ lanes of 1/k across hosts against one of 1/f
/// (the cost). On hosts of 16 and 15 (the balance 0.0625, the cost 0.058)
/// the fewest stay; on 4 and 3 (0.25 against 0.17), 16 and 10 (0.56
/// against 0.025) the most run.
fn lane_count(coll: Collective, bytes: usize, hosts: usize, fewest: usize, most: usize, nhalf: usize) -> usize {
    let every_rank_alike = fewest >= 2 && most.is_multiple_of(fewest);
    let long = bytes / most >= most_lanes_from(coll);
    let (f, k) = (fewest as f64, most as f64);
    let balance = (k - 1.0) / f - (k - 1.0) / k;
    let cost = most.div_ceil(fewest) as f64 / k - 1.0 / f;
    let worth = balance >= 1.25 * cost;
    if fewest < most && nhalf >= FAST_NETWORK_NHALF && long && worth && (hosts <= 16 || every_rank_alike) { most } else { fewest }
}

/// The lanes, of L = `lanes`, that the rank of local index `i` on a host of
/// `k` ranks serves. On a host of at least L ranks, local index l < L
/// serves lane l and the others none; on a host of k < L, lane l goes to
/// local index ⌊l·k/L⌋, so each rank serves a contiguous run (its blocks are
/// adjacent) and the runs of a host's ranks differ in length by at most one.
fn served(i: usize, k: usize, lanes: usize) -> Range<usize> {
    if k >= lanes {
        return i.min(lanes)..(i + 1).min(lanes);
    }
    (i * lanes).div_ceil(k)..((i + 1) * lanes).div_ceil(k)
}

/// The local index of the rank that serves lane `l` of `lanes` on a host of
/// `k` ranks: [`served`]'s inverse (lane l is in served(i) iff
/// ⌈i·L/k⌉ ≤ l < ⌈(i+1)·L/k⌉, i.e. i = ⌊l·k/L⌋).
fn server_index(l: usize, k: usize, lanes: usize) -> usize {
    if k >= lanes { l } else { l * k / lanes }
}

impl<'h> Groups<'h> {
    fn of(rank: usize, hosts: &'h HostMap, coll: Collective, bytes: usize, nhalf: usize) -> Groups<'h> {
        let (fewest, most) = (hosts.fewest().max(1), hosts.most().max(1));
        let lanes = lane_count(coll, bytes, hosts.occupied(), fewest, most, nhalf);
        let halving = lanes.is_power_of_two() && fewest == lanes && most == lanes;
        let local = hosts.ranks_on(hosts[rank]);
        let my_local = local.iter().position(|&r| r == rank).expect("this rank is on its host");
        let my_lanes = served(my_local, local.len(), lanes);
        if rank == 0 {
            log::trace!("two-level {} of {bytes} B: {lanes} lanes over {} hosts", coll.name(), hosts.host_count());
        }
        Groups { hosts, me: rank, my_local, lanes, my_lanes, halving }
    }

    /// The ranks on this rank's host, ascending; this rank is `local()[my_local]`.
    fn local(&self) -> &[usize] {
        self.hosts.ranks_on(self.hosts[self.me])
    }

    /// Lane `l`: the rank serving it on each host, ascending.
    fn lane(&self, l: usize) -> Pooled<usize> {
        let hosts = 0..self.hosts.host_count();
        let mut members: Pooled<usize> = hosts.map(|h| self.hosts.ranks_on(h)).filter(|on| !on.is_empty()).map(|on| on[server_index(l, on.len(), self.lanes)]).collect();
        members.sort_unstable();
        members
    }

    /// The ranks of host `h` whose blocks part l of a reduce-scatter holds
    /// ([`Parts`]): local index l mod L, ascending.
    fn part_ranks(&self, h: usize, l: usize) -> impl Iterator<Item = usize> + '_ {
        self.hosts.ranks_on(h).iter().copied().skip(l).step_by(self.lanes)
    }

    /// The local index of the rank of this host that serves lane `l`.
    fn server_of(&self, l: usize) -> usize {
        server_index(l, self.local().len(), self.lanes)
    }
}

/// The registered algorithm (not a two-level one) for `coll` on `bytes` over
/// `procs` processes with the lowest α-β-γ estimate, and that estimate; only
/// those that compute the canonical order where the call must.
fn best_single_level(coll: Collective, bytes: usize, procs: usize, canonical: bool, m: &CostModel) -> Option<(&'static super::registry::Descriptor, f64)> {
    REGISTRY
        .iter()
        .filter(|d| d.run.is_some() && !d.uses_hosts && d.collectives.contains(&coll))
        .filter(|d| !canonical || d.canonical.contains(&coll))
        .filter_map(|d| d.estimate.map(|e| (d, e(coll, bytes, procs, m))))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// The algorithm for one phase: `coll` on `bytes` over `procs` processes
/// that are each on a host of their own (a lane across hosts,
/// [`Hosts::Lane`]: the table's `lane` rules, then its `oneperhost` ones) or
/// all on one (a host's ranks): the active table's choice for such a call, where that is
/// a single-level algorithm fastred runs (the table's rules were measured in
/// those regimes), else [`best_single_level`]'s. The lanes of a host run at
/// once, sharing its link: a rule measured with one rank per host is looked
/// up at the bytes that cross a host's link, `link_bytes` (the whole vector:
/// 16 lanes of 16 KiB are a link's 256 KiB; within a host, `bytes`). Every
/// lane looks up the same `link_bytes`, so all run the same algorithm even
/// where their blocks differ by an element. A lane crosses the network whose
/// n½ the communicator measured (`nhalf`, 0 where not known): it takes the
/// rules for that network (the `oneperhost,nhalf...` rules measured there;
/// before, a lane on 1 Gbit/s Ethernet took the fast networks' pipeline rule
/// for the reduce of 2 MiB at 17-32 hosts, 2-4x slower there). Within a host
/// there is no network: no `nhalf` rule. No lane sees the network's
/// cross-section (`bisection` 0): its rules were measured on whole
/// communicators, where one rank per host crosses the network, not K lanes.
#[allow(clippy::too_many_arguments)]
fn phase_algorithm(coll: Collective, bytes: usize, elems: usize, procs: usize, hosts: Hosts, link_bytes: usize, nhalf: usize, table: &Table, model: &CostModel, canonical: bool) -> Option<&'static super::registry::Descriptor> {
    let layout = if hosts == Hosts::OneHost { Layout::one_host(procs) } else { Layout::one_per_host(procs) };
    let nhalf = if hosts == Hosts::Lane { nhalf } else { 0 };
    let shape = Shape { coll, bytes: link_bytes, elems, procs, commutative: true, builtin_op: true, topology: false, hosts, layout, nhalf, bisection: 0, floating: canonical, reproducible: canonical, shared_memory: true };
    // `choose` returns `native` or an algorithm that can run the shape.
    let choice = crate::select::choose(&shape, None, table);
    let chosen = choice.algorithm;
    if chosen.descriptor().run.is_some() && !chosen.descriptor().uses_hosts {
        let phase = if hosts == Hosts::Lane { "across hosts" } else { "within a host" };
        log::trace!("two-level {} {phase}: {bytes} B on {procs} processes, {link_bytes} B across a host's link: {} ({})", coll.name(), chosen.name(), choice.reason);
        return Some(chosen.descriptor());
    }
    best_single_level(coll, bytes, procs, canonical, model).map(|(d, _)| d)
}

/// Run `coll` over the processes of `t` (a host's ranks: `hosts` is
/// [`Hosts::OneHost`], or a lane: [`Hosts::Lane`]) with
/// [`phase_algorithm`]'s choice for `link_bytes` across a host's link:
/// allreduce, reduce to `root`, or reduce-scatter into `blocks`.
#[allow(clippy::too_many_arguments)]
fn single_level(t: &dyn Transport, op: &dyn Reducer, data: &mut [u8], coll: Collective, blocks: &Blocks, root: usize, hosts: Hosts, link_bytes: usize, job: &Job) -> MpiResult {
    if t.size() < 2 || data.is_empty() {
        return Ok(());
    }
    let Some(d) = phase_algorithm(coll, data.len(), data.len() / op.elem_size(), t.size(), hosts, link_bytes, job.nhalf, job.table, job.model, job.canonical) else {
        return super::registry::not_implemented("hierarchical (no single-level algorithm)", coll);
    };
    let order = ring::rank_order(t.size());
    let inner = Job { coll, blocks, root, commutative: true, ring: &order, hosts: &NO_HOSTS, segment_bytes: job.segment_bytes, model: job.model, canonical: job.canonical, table: job.table, nhalf: job.nhalf };
    (d.run.expect("checked: runs"))(t, op, data, &inner)
}

/// How steps 1 and 3 run among the K ranks of a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WithinHost {
    /// Every host holds the same power-of-two number of ranks
    /// ([`Groups::halving`]) and the order is free: recursive halving and
    /// doubling (Rabenseifner 2004 §3.5), lg K steps each way.
    Halving,
    /// Träff's circulant (2025, Algorithms 1 and 2): ⌈lg K⌉ rounds each way
    /// for any K, at the price of copying the vector into and out of its
    /// rotated order (about n per phase).
    Circulant,
    /// The ring (Patarasuk & Yuan §3.2): K − 1 steps each way, no copies.
    Ring,
}

impl WithinHost {
    /// For `bytes` among this host's K ranks: halving where it can; else the
    /// circulant where the latencies it saves per phase, (K − 1 − ⌈lg K⌉)·α_i,
    /// outweigh its copy of the vector per phase
    /// ([`CostModel::local_copy`] per byte); else the ring. Where the call must
    /// follow the canonical order, the ring (step 1 then runs a canonical
    /// algorithm: [`within_host`]).
    fn choose(g: &Groups, bytes: usize, canonical: bool, m: &CostModel) -> WithinHost {
        Self::choose_for(g.local().len(), g.halving, bytes, canonical, m)
    }

    /// [`WithinHost::choose`] for a host of `k` ranks (`halving`: [`Groups::halving`]).
    fn choose_for(k: usize, halving: bool, bytes: usize, canonical: bool, m: &CostModel) -> WithinHost {
        if canonical {
            return WithinHost::Ring;
        }
        if halving {
            return WithinHost::Halving;
        }
        let saved = (k.saturating_sub(1) - k.next_power_of_two().trailing_zeros() as usize) as f64 * m.alpha_intra;
        if saved > bytes as f64 * m.local_copy() { WithinHost::Circulant } else { WithinHost::Ring }
    }
}

/// Step 1: local rank i ends with `segments[i]` (contiguous from 0) reduced
/// over its host, as `how` says; where the call must follow the canonical
/// order, a registered reduce-scatter that computes it (then with the hosts
/// in blocks, [`crate::reproducible::hosts_in_blocks`], step 2's canonical
/// algorithm across the hosts completes the canonical order).
fn within_host(on_host: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], segments: &[Range<usize>], position: &RingPosition, how: WithinHost, job: &Job) -> MpiResult {
    let blocks = || Blocks::from_counts(segments.iter().map(|s| s.len() / op.elem_size()));
    if job.canonical {
        return single_level(on_host, op, buf, Collective::ReduceScatter, &blocks(), 0, Hosts::OneHost, buf.len(), job);
    }
    match how {
        WithinHost::Halving => halving_doubling::reduce_scatter(on_host, op, buf, &blocks()),
        WithinHost::Circulant => circulant::reduce_scatter(on_host, op, buf, &blocks(), &Skips::new(SkipKind::Halving, on_host.size())),
        WithinHost::Ring => ring::reduce_scatter(on_host, op, buf, segments, position),
    }
}

/// Step 3 of the allreduce: every local rank ends with all of `segments`.
fn allgather_within_host(on_host: &dyn Transport, buf: &mut [u8], segments: &[Range<usize>], position: &RingPosition, how: WithinHost, esz: usize) -> MpiResult {
    match how {
        WithinHost::Halving => unreachable!("halving runs halving_groups::allgather on its own segments"),
        WithinHost::Circulant => {
            let blocks = Blocks::from_counts(segments.iter().map(|s| s.len() / esz));
            circulant::allgather(on_host, buf, &blocks, esz, &Skips::new(SkipKind::Halving, on_host.size()))
        }
        WithinHost::Ring => ring::allgather(on_host, buf, segments, position),
    }
}

/// Where each rank's block goes in the reduce-scatter's rearranged vector:
/// part l (l < L) holds the blocks of the ranks whose local index is l mod L,
/// grouped by their host in lane l's order, so that step 1 hands each rank
/// the parts of its lanes (adjacent: [`served`]) and step 2 hands each lane
/// member its host's blocks of the part.
struct Parts {
    /// Byte range of part l, l < L.
    part: Pooled<Range<usize>>,
    /// Elements of part l held by lane position q: `counts[l][q]` (flattened,
    /// L × lane length; every lane has one rank on each host).
    counts: Pooled<usize>,
    lane_len: usize,
    /// For each rank: where its block is in the rearranged vector (bytes).
    at: Pooled<Range<usize>>,
}

impl Parts {
    /// O(p + L·hosts·log hosts): this runs on every call.
    fn of(g: &Groups, blocks: &Blocks, esz: usize) -> Parts {
        let mut part = Pooled::new();
        let mut counts = Pooled::new();
        let mut at: Pooled<Range<usize>> = (0..g.hosts.len()).map(|_| 0..0).collect();
        let mut offset = 0;
        for l in 0..g.lanes {
            let start = offset;
            for member in g.lane(l).iter().copied() {
                let mut count = 0;
                for r in g.part_ranks(g.hosts[member], l) {
                    let len = blocks.count(r) * esz;
                    at[r] = offset..offset + len;
                    offset += len;
                    count += blocks.count(r);
                }
                counts.push(count);
            }
            part.push(start..offset);
        }
        // Every lane has one member on each host that holds a rank.
        Parts { part, counts, lane_len: g.hosts.occupied(), at }
    }

    /// Part l's blocks, one per lane position (elements).
    fn lane_blocks(&self, l: usize) -> Blocks {
        Blocks::from_counts(self.counts[l * self.lane_len..(l + 1) * self.lane_len].iter().copied())
    }

    /// The parts `lanes` (adjacent), as one byte range (none: empty, at the end).
    fn span(&self, lanes: Range<usize>) -> Range<usize> {
        let end = self.part.last().map_or(0, |p| p.end);
        if lanes.is_empty() { end..end } else { self.part[lanes.start].start..self.part[lanes.end - 1].end }
    }
}

/// Lane `l` as a transport: this rank among the ranks serving lane `l`.
fn run_lane<R>(t: &dyn Transport, g: &Groups, l: usize, body: impl FnOnce(&dyn Transport, &[usize]) -> R) -> R {
    let members = g.lane(l);
    let position = members.iter().position(|&r| r == t.rank()).expect("this rank serves lane l");
    body(&Subset::new(t, &members, position).one_exchange_a_step(), &members)
}

/// Reduce-scatter (`job.blocks` per rank): rearrange the vector into parts
/// ([`Parts`]), reduce-scatter the parts within each host (each rank gets the
/// parts of its lanes), lane l reduce-scatters part l across hosts (each lane
/// member gets its host's block of it, with [`phase_algorithm`]'s choice),
/// and each lane member hands the block to its rank on its host.
fn two_level_reduce_scatter(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    let esz = op.elem_size();
    let me = t.rank();
    let g = Groups::of(me, job.hosts, job.coll, buf.len(), job.nhalf);
    let parts = Parts::of(&g, job.blocks, esz);
    let mut work = super::scratch(buf.len())?;
    for r in 0..t.size() {
        work[parts.at[r].clone()].copy_from_slice(&buf[job.blocks.bytes(r, esz)]);
    }
    t.note_copy(buf.len());
    // 1. Within the host: each rank ends with the parts of its lanes reduced over its host.
    let segments: Pooled<Range<usize>> = (0..g.local().len()).map(|i| parts.span(served(i, g.local().len(), g.lanes))).collect();
    let on_host = Subset::new(t, g.local(), g.my_local);
    let order = ring::rank_order(g.local().len());
    let how = WithinHost::choose(&g, buf.len(), job.canonical, job.model);
    within_host(&on_host, op, &mut work, &segments, &RingPosition::of(&order, g.my_local), how, job)?;
    // 2. Across hosts: in each of my lanes l, I get my host's block of part l.
    for l in g.my_lanes.clone() {
        let part = parts.part[l].clone();
        run_lane(t, &g, l, |lane, _| single_level(lane, op, &mut work[part], job.coll, &parts.lane_blocks(l), 0, Hosts::Lane, buf.len(), job))?;
    }
    // 3. Hand each block of part l to its rank on my host (local index l mod L).
    let mine = job.blocks.bytes(me, esz);
    for l in g.my_lanes.clone() {
        for r in g.part_ranks(g.hosts[me], l) {
            let block = &work[parts.at[r].clone()];
            if r == me {
                super::copy(t, &mut buf[mine.clone()], block);
            } else {
                t.send(r, block)?;
            }
        }
    }
    let my_part = g.my_local % g.lanes;
    if !g.my_lanes.contains(&my_part) {
        return t.recv(g.local()[g.server_of(my_part)], &mut buf[mine]);
    }
    Ok(())
}

/// Allreduce (or reduce to `job.root`) of `buf` in place.
fn two_level(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    let esz = op.elem_size();
    let g = Groups::of(t.rank(), job.hosts, job.coll, buf.len(), job.nhalf);
    let on_host = Subset::new(t, g.local(), g.my_local);
    // Steps 1 and 3 halve and double within the host where they can (then
    // local index q holds level-lg K segment `final_segment(q)`, lane q's
    // block), else run the circulant or the ring (local index i holding the
    // blocks of its lanes, of L).
    let is_reduce = job.coll == Collective::Reduce;
    let how = WithinHost::choose(&g, buf.len(), job.canonical, job.model);
    let halving = how == WithinHost::Halving;
    let seg = Segments { n: buf.len() / esz };
    let members: Pooled<usize> = (0..g.local().len()).collect();
    let group = Group { members: &members, me: g.my_local };
    let lane_blocks = Blocks::even(seg.n, g.lanes);
    let lane_block = |l: usize| if halving { seg.bytes(group.level(), halving_groups::final_segment(l, group.level()), esz) } else { lane_blocks.bytes(l, esz) };
    let end = buf.len();
    let segment = |i: usize| {
        let lanes = served(i, g.local().len(), g.lanes);
        if halving {
            lane_block(i)
        } else if lanes.is_empty() {
            end..end
        } else {
            lane_blocks.bytes_of_range(lanes.start, lanes.end, esz)
        }
    };
    let segments: Pooled<Range<usize>> = (0..g.local().len()).map(segment).collect();
    let order = ring::rank_order(g.local().len());
    let position = RingPosition::of(&order, g.my_local);

    // 1. Within the host.
    if halving {
        halving_groups::reduce_scatter(&on_host, op, buf, seg, &group)?;
    } else {
        within_host(&on_host, op, buf, &segments, &position, how, job)?;
    }

    // 2. Across hosts, one lane per block, my lanes one after the other.
    let (root_host, link_bytes) = (job.hosts[job.root], buf.len());
    for l in g.my_lanes.clone() {
        run_lane(t, &g, l, |lane, members| {
            let lane_root = if is_reduce { members.iter().position(|&r| job.hosts[r] == root_host).unwrap_or(0) } else { 0 };
            single_level(lane, op, &mut buf[lane_block(l)], job.coll, &Blocks::even(0, 1), lane_root, Hosts::Lane, link_bytes, job)
        })?;
    }

    // 3. Back within the host.
    if !is_reduce {
        return if halving { halving_groups::allgather(&on_host, buf, seg, esz, &group) } else { allgather_within_host(&on_host, buf, &segments, &position, how, esz) };
    }
    let root = job.root;
    if job.hosts[t.rank()] != job.hosts[root] {
        return Ok(());
    }
    if halving {
        let target = g.local().iter().position(|&r| r == root).expect("the root is on this host");
        return halving_groups::gather(&on_host, buf, seg, esz, &group, target, target);
    }
    if t.rank() == root {
        // The other lane ranks' blocks arrive side by side (all receives posted).
        let blocks = g.local().iter().enumerate().filter(|&(i, &r)| r != root && !segments[i].is_empty()).map(|(i, &from)| (from, segments[i].clone()));
        recv_ranges(t, buf, blocks)
    } else if !segments[g.my_local].is_empty() {
        t.send(root, &buf[segments[g.my_local].clone()])
    } else {
        Ok(())
    }
}

/// Registry entry: all four collectives.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    if t.size() < 2 {
        return Ok(());
    }
    match job.coll {
        Collective::Allreduce | Collective::Reduce => two_level(t, op, buf, job),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => two_level_reduce_scatter(t, op, buf, job),
    }
}

/// The registry's one-level view (one α, β for every pair of ranks): one
/// rank per host, where the two-level algorithm is its inter-host algorithm.
/// Where the ranks are known, [`two_level_estimate`] is its cost.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    best_single_level(coll, bytes, p, false, m).map_or(f64::INFINITY, |(_, estimate)| estimate)
}

/// The α-β-γ cost with separate terms within a host (α_i, β_i:
/// [`CostModel::within_host`]) and between hosts (α, β), for N = `layout.hosts`
/// hosts with L = `layout.fewest` lanes and at most k = `layout.most` ranks on
/// a host (n = `bytes`, p ≈ N·L); S is the latency of one phase within a
/// host ([`WithinHost::choose`]): lg k·α_i where every host holds the same
/// power-of-two k ranks (halving and doubling), else the cheaper of the
/// circulant's ⌈lg k⌉·α_i + n·β_i (its copy, [`CostModel::local_copy`]) and the ring's (k − 1)·α_i:
///
/// - step 1, the reduce-scatter within a host: S + (1−1/k)·n·(β_i + γ);
/// - step 2, the lanes: the algorithm they run on N processes and n/L bytes
///   ([`phase_algorithm`]: `table`'s choice for n bytes across a link; without a table the model's
///   best single-level one), the L lanes of a host sharing its link
///   (β → L·β, [`CostModel::sharing_links`]): for the ring or halving &
///   doubling 2(N−1)/N·n·β, the inter-host bound, with O(N) or O(lg N) α;
/// - step 3: allreduce, the allgather within the host, S + (1−1/k)·n·β_i;
///   reduce, the root gathers L−1 blocks, halving: S + (1−1/k)·n·β_i,
///   else, all its receives posted at once, α_i + (1−1/L)·n·β_i; reduce-scatter, a rank's block of n/p is
///   handed on only on hosts with more than L ranks,
///   ⌈k/L − 1⌉·(α_i + n/p·β_i).
///
/// Where the hosts differ, long vectors on a fast network run as many lanes
/// as the *most* ranks on a host ([`lane_count`]); this prices the fewest,
/// which those calls measured at 0.42-1.0 of (`docs/results/smpi/cyclic-small/lanes-most/`,
/// `../lanes-most-many-hosts/`). Pricing the back-to-back lanes instead
/// turned the model from the two-level algorithm (the fastest or within
/// 1.17x on 33 ranks dealt round robin over hosts of 4) to the circulant
/// (1.9-2.5x there).
///
/// One host: the best single-level algorithm within it; one rank per host:
/// the best between hosts.
pub fn two_level_estimate(coll: Collective, bytes: usize, layout: Layout, nhalf: usize, m: &CostModel, table: Option<&Table>) -> f64 {
    let best = |coll, bytes, p, m: &CostModel| best_single_level(coll, bytes, p, false, m).map_or(f64::INFINITY, |(_, e)| e);
    let (hosts, lanes, most) = (layout.hosts.max(1), layout.fewest.max(1), layout.most.max(1));
    if hosts == 1 {
        return best(coll, bytes, most, &m.within_host());
    }
    if most == 1 {
        return best(coll, bytes, hosts, m);
    }
    let intra = m.within_host();
    let n = bytes as f64;
    let (k, l) = (most as f64, lanes as f64);
    let halving = lanes == most && most.is_power_of_two();
    let circulant_rounds = most.next_power_of_two().trailing_zeros() as f64;
    let phase = if halving { k.log2() * intra.alpha } else { ((k - 1.0) * intra.alpha).min(circulant_rounds * intra.alpha + n * m.local_copy()) };
    let spread = (1.0 - 1.0 / k) * n;
    let step1 = phase + spread * (intra.beta + intra.gamma);
    let lane_bytes = bytes.div_ceil(lanes);
    let shared = m.sharing_links(lanes);
    let step2 = match table {
        Some(table) => phase_algorithm(coll, lane_bytes, lane_bytes / 8, hosts, Hosts::Lane, bytes, nhalf, table, m, false)
            .and_then(|d| d.estimate)
            .map_or(f64::INFINITY, |e| e(coll, lane_bytes, hosts, &shared)),
        None => best(coll, lane_bytes, hosts, &shared),
    };
    let step3 = match coll {
        Collective::Allreduce => phase + spread * intra.beta,
        Collective::Reduce if halving => phase + spread * intra.beta,
        Collective::Reduce => intra.alpha + (1.0 - 1.0 / l) * n * intra.beta,
        Collective::ReduceScatter | Collective::ReduceScatterBlock => (k / l - 1.0).ceil() * (intra.alpha + n / (hosts as f64 * l) * intra.beta),
    };
    step1 + step2 + step3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_a_host_the_circulant_runs_while_its_copies_cost_less_than_the_rings_extra_steps() {
        // Compiled-in model: α_i = 1 µs, a copy 0.2 ns/B (β_i). A host of 12
        // saves 7 steps, 7 µs: the circulant up to 35 KB; of 24, 18 µs: 90 KB.
        let m = CostModel::default();
        let how = |k, halving, bytes| WithinHost::choose_for(k, halving, bytes, false, &m);
        assert_eq!((how(12, false, 32 << 10), how(12, false, 36 << 10)), (WithinHost::Circulant, WithinHost::Ring));
        assert_eq!((how(24, false, 64 << 10), how(24, false, 96 << 10)), (WithinHost::Circulant, WithinHost::Ring));
        // Three ranks: ⌈lg 3⌉ = 2 = K − 1 rounds, nothing saved.
        assert_eq!(how(3, false, 8), WithinHost::Ring);
        assert_eq!(how(16, true, 16 << 20), WithinHost::Halving);
        assert_eq!(WithinHost::choose_for(12, false, 8, true, &m), WithinHost::Ring, "the canonical order");
    }

    #[test]
    fn hosts_of_different_sizes_on_a_fast_network_run_a_lane_per_rank_of_the_largest_from_lanes_of_96_or_384_kib_on_few_hosts_or_alike_ranks() {
        let fast = FAST_NETWORK_NHALF;
        assert_eq!(lane_count(Collective::Allreduce, 3 << 20, 40, 4, 4, 0), 4, "equal hosts");
        assert_eq!(lane_count(Collective::Allreduce, 8, 40, 4, 4, fast), 4, "equal hosts");
        let (reduce, allreduce) = (most_lanes_from(Collective::Reduce), most_lanes_from(Collective::Allreduce));
        assert_eq!((reduce, allreduce), (96 << 10, 384 << 10));
        for coll in [Collective::Reduce, Collective::Allreduce, Collective::ReduceScatter, Collective::ReduceScatterBlock] {
            let from = most_lanes_from(coll);
            assert_eq!(lane_count(coll, 3 * from, 16, 2, 3, fast), 3, "{coll:?}");
            assert_eq!(lane_count(coll, 3 * from - 1, 16, 2, 3, fast), 2, "{coll:?}");
            // Beyond 16 hosts: only where every rank of a smallest host serves alike.
            assert_eq!(lane_count(coll, 3 * from, 17, 2, 3, fast), 2, "{coll:?}");
            assert_eq!(lane_count(coll, 16 * from, 63, 8, 16, fast), 16, "{coll:?}");
            assert_eq!(lane_count(coll, 2 * from, 101, 1, 2, fast), 1, "{coll:?}: a lone rank serves them all");
            // The balance against the back-to-back lanes: 16 and 15 no, 16 and 10, 4 and 3 yes.
            assert_eq!(lane_count(coll, 16 * from, 16, 15, 16, fast), 15, "{coll:?}");
            assert_eq!(lane_count(coll, 16 * from, 16, 10, 16, fast), 16, "{coll:?}");
            assert_eq!(lane_count(coll, 4 * from, 4, 3, 4, fast), 4, "{coll:?}");
            // Not on a slower network, nor where n½ is not known.
            assert_eq!(lane_count(coll, 3 * from, 16, 2, 3, fast - 1), 2, "{coll:?}");
            assert_eq!(lane_count(coll, 3 * from, 16, 2, 3, 0), 2, "{coll:?}");
        }
    }

    #[test]
    fn two_level_estimate_reaches_the_inter_host_bound_and_reduces_to_one_level() {
        // Only β between hosts: the lanes (L per host, sharing its link) move
        // 2(N−1)/N·n·β in all, the bound the issue measures against.
        let only_beta = CostModel { alpha: 0.0, beta: 1.0, gamma: 0.0, alpha_intra: 0.0, beta_intra: 0.0 };
        let n = 15 << 16; // divisible by every L below
        for (hosts, k) in [(4, 2), (2, 4), (64, 16), (3, 5), (5, 3)] {
            let e = two_level_estimate(Collective::Allreduce, n, Layout { hosts, fewest: k, most: k }, 0, &only_beta, None);
            let bound = 2.0 * (hosts - 1) as f64 / hosts as f64 * n as f64;
            assert!((e - bound).abs() <= 1e-9 * bound, "{hosts} x {k}: {e} against {bound}");
        }
        // Within a host only: the ring's two phases there, (k−1)/k·n each way.
        let only_intra = CostModel { alpha: 0.0, beta: 0.0, gamma: 0.0, alpha_intra: 0.0, beta_intra: 1.0 };
        let e = two_level_estimate(Collective::Allreduce, n, Layout { hosts: 4, fewest: 4, most: 4 }, 0, &only_intra, None);
        assert!((e - 2.0 * 0.75 * n as f64).abs() < 1e-6, "{e}");
        // Latency within a host only: lg k steps each way where every host
        // holds the same power-of-two k, else the circulant's ⌈lg k⌉ where
        // its copies cost nothing, the ring's k − 1 where they cost more.
        let only_alpha_intra = CostModel { alpha: 0.0, beta: 0.0, gamma: 0.0, alpha_intra: 1.0, beta_intra: 0.0 };
        let steps = |fewest, most, m: &CostModel| two_level_estimate(Collective::Allreduce, n, Layout { hosts: 4, fewest, most }, 0, m, None);
        assert_eq!((steps(8, 8, &only_alpha_intra), steps(6, 6, &only_alpha_intra), steps(4, 8, &only_alpha_intra)), (6.0, 6.0, 6.0));
        let copies_dear = CostModel { alpha: 0.0, beta: 0.0, gamma: 0.0, alpha_intra: 1.0, beta_intra: 1.0 };
        let transfers = 2.0 * (1.0 - 1.0 / 6.0) * n as f64;
        assert!((steps(6, 6, &copies_dear) - (10.0 + transfers)).abs() < 1e-6 * transfers, "{}", steps(6, 6, &copies_dear));
        // One host, one rank per host: the best single-level estimates.
        let m = CostModel::default();
        let single = |p, m: &CostModel| best_single_level(Collective::Allreduce, n, p, false, m).unwrap().1;
        assert_eq!(two_level_estimate(Collective::Allreduce, n, Layout::one_host(8), 0, &m, None), single(8, &m.within_host()));
        assert_eq!(two_level_estimate(Collective::Allreduce, n, Layout::one_per_host(8), 0, &m, None), single(8, &m));
    }

    /// A reduce of 16 KiB with one rank on each of 16 hosts: a call, not a lane.
    fn reduce_of_16k_on_16_hosts() -> Shape {
        Shape { coll: Collective::Reduce, bytes: 16 << 10, elems: 2 << 10, procs: 16, commutative: true, builtin_op: true, topology: false, hosts: Hosts::OnePerHost, layout: Layout::one_per_host(16), nhalf: 0, bisection: 0, floating: true, reproducible: false, shared_memory: true }
    }

    #[test]
    fn lanes_take_the_lane_rules_first_and_one_rank_per_host_calls_do_not() {
        let table = Table::parse("reduce 4K-32K 8-16 lane knomial_tree\nreduce * * oneperhost binary_blocks\n", "t").unwrap();
        let m = CostModel::default();
        let lane = |hosts, lanes: usize| phase_algorithm(Collective::Reduce, 2 << 10, 256, hosts, Hosts::Lane, lanes * (2 << 10), 0, &table, &m, false).unwrap().name;
        assert_eq!(lane(16, 8), "knomial_tree", "8 lanes of 2 KiB: 16 KiB on a link");
        assert_eq!(lane(16, 32), "binary_blocks", "32 lanes of 2 KiB: 64 KiB, beyond the lane rule");
        assert_eq!(lane(4, 8), "binary_blocks", "4 hosts: fewer than the lane rule's");
        let single = reduce_of_16k_on_16_hosts();
        assert_eq!(crate::select::choose(&single, None, &table).algorithm.name(), "binary_blocks", "a call with one rank per host is no lane");
    }

    #[test]
    fn default_lanes_across_4_to_16_hosts_run_the_k_nomial_tree_recursive_doubling_halving_doubling_binary_blocks_and_the_circulant() {
        let (table, m) = (Table::default_table(), CostModel::default());
        let lane = |coll, bytes: usize, hosts, lanes: usize| phase_algorithm(coll, bytes, bytes / 8, hosts, Hosts::Lane, lanes * bytes, 0, &table, &m, false).unwrap().name;
        assert_eq!(lane(Collective::Reduce, 1 << 10, 16, 16), "knomial_tree", "16 KiB on 16 x 16");
        assert_eq!(lane(Collective::Reduce, 1 << 10, 4, 16), "knomial_tree", "16 KiB on 4 x 16");
        assert_eq!(lane(Collective::Allreduce, 512, 8, 8), "recursive_doubling", "4 KiB on 8 x 8");
        assert_eq!(lane(Collective::Allreduce, 1 << 10, 4, 16), "recursive_doubling", "16 KiB on 4 x 16");
        assert_eq!(lane(Collective::Allreduce, 2 << 10, 16, 16), "recursive_doubling", "32 KiB on 16 x 16");
        assert_eq!(lane(Collective::Allreduce, 4 << 10, 16, 16), "rabenseifner", "64 KiB: beyond the lane rule");
        assert_eq!(lane(Collective::Allreduce, 128 << 10, 8, 2), "rabenseifner", "256 KiB on 8 x 2: not the ring rule");
        assert_eq!(lane(Collective::Allreduce, 128 << 10, 4, 2), "ring", "256 KiB on 4 x 2: the ring rule");
        assert_eq!(lane(Collective::Allreduce, 128 << 10, 12, 2), "circulant", "256 KiB on 12 x 2: 5-15 hosts, not a power of two");
        assert_eq!(lane(Collective::Allreduce, 20 << 10, 6, 16), "circulant", "320 KiB on 6 x 16");
        assert_eq!(lane(Collective::Allreduce, 192 << 10, 12, 2), "ring", "384 KiB on 12 x 2: beyond the circulant rule");
        assert_eq!(lane(Collective::Allreduce, 64 << 10, 3, 4), "ring", "256 KiB on 3 x 4: fewer hosts than the circulant rule's");
        assert_eq!(lane(Collective::Allreduce, 8 << 10, 16, 32), "rabenseifner", "256 KiB on 16 x 32: a power of two");
        assert_eq!(lane(Collective::Reduce, 256, 8, 8), "knomial_tree", "2 KiB on 8 x 8");
        assert_eq!(lane(Collective::Reduce, 128, 8, 8), "tree", "1 KiB: the tree rules");
        assert_eq!(lane(Collective::Reduce, 128 << 10, 16, 16), "binary_blocks", "2 MiB on 16 x 16");
        assert_eq!(lane(Collective::Reduce, 8 << 10, 12, 16), "binary_blocks", "128 KiB on 12 x 16");
        assert_eq!(lane(Collective::ReduceScatterBlock, 512, 16, 12), "rabenseifner", "6 KiB on 16 x 12");
        assert_eq!(lane(Collective::ReduceScatter, 2 << 10, 8, 16), "rabenseifner", "32 KiB on 8 x 16");
        // One rank per host, not a lane: Rabenseifner's power-of-two rule.
        let single = reduce_of_16k_on_16_hosts();
        assert_eq!(crate::select::choose(&single, None, &table).algorithm.name(), "rabenseifner");
    }

    #[test]
    fn lanes_take_the_rules_of_the_network_they_cross() {
        let (table, m) = (Table::default_table(), CostModel::default());
        // 3 lanes of 2 MiB / 3 across 32 hosts (96 ranks dealt round robin over hosts of 3).
        let lane = |nhalf, hosts| phase_algorithm(Collective::Reduce, 699_048, 87_381, 32, hosts, 2 << 20, nhalf, &table, &m, false).unwrap().name;
        assert_eq!(lane(0, Hosts::Lane), "pipeline", "n½ not known: the fast networks' rule for one rank per host");
        assert_eq!(lane(4267, Hosts::Lane), "circulant", "1 Gbit/s Ethernet: its lane rule");
        let four_mib = phase_algorithm(Collective::Reduce, 1_398_101, 174_762, 32, Hosts::Lane, 4 << 20, 4267, &table, &m, false).unwrap().name;
        assert_eq!(four_mib, "two_tree", "1 Gbit/s Ethernet, 4 MiB across a link: its rule for one rank per host");
        // A fast network's reduce lanes across 17-63 hosts: not the Fibonacci
        // tree or the pipeline of its one-rank-per-host rules, but what they ran
        // before they saw n½.
        for hosts in [17, 24, 31, 32, 40, 63] {
            for link in [8 << 10, 16 << 10, 32 << 10, 64 << 10, 256 << 10, 512 << 10, 4 << 20] {
                let lane = |nhalf| phase_algorithm(Collective::Reduce, link / 8, link / 64, hosts, Hosts::Lane, link, nhalf, &table, &m, false).unwrap().name;
                assert_ne!(lane(30 << 10), "fibonacci_tree", "{link} B across {hosts} hosts");
                assert_eq!(lane(30 << 10), lane(0), "{link} B across {hosts} hosts");
            }
        }
        // Within a host there is no network: the same choice whatever n½.
        let host = |nhalf| phase_algorithm(Collective::Allreduce, 64 << 10, 8 << 10, 8, Hosts::OneHost, 64 << 10, nhalf, &table, &m, false).unwrap().name;
        assert_eq!(host(4267), host(0));
    }

    #[test]
    fn lanes_look_rules_up_at_the_bytes_that_cross_a_link() {
        let table = Table::parse("allreduce 256K- * oneperhost ring\nallreduce * * - recursive_doubling\n", "t").unwrap();
        let m = CostModel::default();
        let lane = |lanes: usize| phase_algorithm(Collective::Allreduce, 16 << 10, 2 << 10, 4, Hosts::Lane, lanes * (16 << 10), 0, &table, &m, false).unwrap().name;
        assert_eq!(lane(1), "recursive_doubling");
        assert_eq!(lane(16), "ring", "16 lanes of 16 KiB put 256 KiB on each host's link");
        // Within a host nothing is shared.
        let host = phase_algorithm(Collective::Allreduce, 16 << 10, 2 << 10, 4, Hosts::OneHost, 16 << 10, 0, &table, &m, false).unwrap().name;
        assert_eq!(host, "recursive_doubling");
    }

    #[test]
    fn groups_with_unequal_hosts_and_scattered_ranks() {
        // host of each rank: host 0 has ranks 0, 3, 4; host 1 has 1, 5; host 2 has 2, 6, 7.
        let hosts = HostMap::new(&[0, 1, 2, 0, 0, 1, 2, 2]);
        let short = |rank| Groups::of(rank, &hosts, Collective::Allreduce, 8, FAST_NETWORK_NHALF);
        let g = short(4);
        assert_eq!((g.local(), g.my_local, g.lanes, g.my_lanes.clone()), (&[0, 3, 4][..], 2, 2, 2..2), "2 lanes: local index 2 serves none");
        assert_eq!((&short(5).lane(1)[..], short(5).my_lanes.clone()), (&[3, 5, 6][..], 1..2));
        // Long vectors: 3 lanes.
        let long = |rank| Groups::of(rank, &hosts, Collective::Allreduce, 3 << 20, FAST_NETWORK_NHALF);
        let g = long(4);
        assert_eq!((g.local(), g.my_local, g.lanes, g.my_lanes.clone()), (&[0, 3, 4][..], 2, 3, 2..3));
        let g = long(5);
        assert_eq!((g.local(), g.my_local, g.my_lanes.clone(), g.server_of(2)), (&[1, 5][..], 1, 2..3, 1));
        // Host 1's two ranks serve the 3 lanes as 0, 1 | 2.
        assert_eq!((&g.lane(0)[..], &g.lane(1)[..], &g.lane(2)[..]), (&[0, 1, 2][..], &[1, 3, 6][..], &[4, 5, 7][..]));
        // One rank on a host of its own serves every lane; on a host of 3 of 8 lanes, 3 + 3 + 2.
        assert_eq!(served(0, 1, 8), 0..8);
        assert_eq!((served(0, 3, 8), served(1, 3, 8), served(2, 3, 8)), (0..3, 3..6, 6..8));
    }

    /// `server_index` inverts `served`: every lane has exactly one server on
    /// a host of any size, and it is the one `server_index` names.
    #[test]
    fn server_index_names_the_one_rank_that_serves_each_lane() {
        for lanes in 1..=40 {
            for k in 1..=40 {
                for l in 0..lanes {
                    let servers: Vec<usize> = (0..k).filter(|&i| served(i, k, lanes).contains(&l)).collect();
                    assert_eq!(servers, vec![server_index(l, k, lanes)], "lane {l} of {lanes} on a host of {k}");
                }
            }
        }
    }
}
