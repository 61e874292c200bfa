//! Recursive halving and doubling ("Rabenseifner's algorithm"), Rabenseifner
//! 2004 §3.5: a reduce-scatter by recursive vector halving and distance
//! doubling, then an allgather by vector doubling and distance halving
//! (allreduce) or a binary-tree gather to the root (reduce). The reduce-scatter
//! phase alone serves `MPI_Reduce_scatter(_block)`, halving at block
//! boundaries (footnote 1) so that each process keeps its own blocks. All
//! three compute the canonical order of [`crate::reproducible`].
//!
//! For p not a power of two, a first step removes r = p − p' processes
//! (p' = 2^⌊lg p⌋): among the first 2r, each even rank sends the second half of
//! its vector to rank+1 and receives the first half from it, both reduce their
//! half, and the odd rank ships its half-result to rank−1 and sits out. For
//! reduce, if the root is a removed process it swaps roles with its partner
//! after the first reduction (no extra cost). Cost, power-of-two p:
//! 2 lg p α + 2nβ + nγ − (2nβ + nγ)/p; otherwise ≈ (3 + 2⌊lg p⌋)α + 4nβ + 3/2 nγ.

use super::halving_groups::{self, BitReversedSlots, Group, Segments};
use super::{Blocks, Pairs, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::{not_implemented, Job};
use crate::scratch::Pooled;
use crate::model::{CostModel, Terms};
use crate::collective::Collective;

/// The removal step's plan (§3.5): which processes fold in pairs, and the
/// order of the p' = 2^⌊lg p⌋ that go on, the group the halving and doubling
/// run over. §3.5's is [`Removal::in_rank_order`]; the hosts' variant
/// (`halving_doubling_hosts`) pairs ranks within hosts and orders the group
/// host by host.
pub(super) struct Removal<'a> {
    /// Group rank → process.
    pub members: Members<'a>,
    /// This process's partner in the removal step, if it has one.
    pub partner: Option<usize>,
    /// In its pair, this process keeps and reduces the first half of the
    /// vector (the other keeps the second).
    pub keeps_first: bool,
    /// This process's group rank, if it goes on.
    pub me: Option<usize>,
}

/// A removal plan's group: built for the call, or kept with the host map
/// (`halving_doubling_hosts`).
pub(super) enum Members<'a> {
    Built(Pooled<usize>),
    Kept(&'a [usize]),
}

impl std::ops::Deref for Members<'_> {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        match self {
            Members::Built(v) => v,
            Members::Kept(s) => s,
        }
    }
}

impl Removal<'static> {
    /// §3.5: pairs (2i, 2i+1), i < r = p − p', fold into one survivor (rank
    /// 2i, or the root if it is in the pair); the group in rank order.
    /// `root` is `None` for allreduce.
    pub fn in_rank_order(p: usize, rank: usize, root: Option<usize>) -> Removal<'static> {
        let pof2 = 1 << p.ilog2();
        let removed = p - pof2;
        let survivor_of_pair = |i: usize| if root == Some(2 * i + 1) { 2 * i + 1 } else { 2 * i };
        let members = Members::Built((0..pof2).map(|q| if q < removed { survivor_of_pair(q) } else { q + removed }).collect());
        if rank >= 2 * removed {
            return Removal { members, partner: None, keeps_first: true, me: Some(rank - removed) };
        }
        let me = (survivor_of_pair(rank / 2) == rank).then_some(rank / 2);
        Removal { members, partner: Some(rank ^ 1), keeps_first: rank.is_multiple_of(2), me }
    }
}

/// The removal step: each pair of `plan` exchanges halves and reduces its
/// own; the one that goes on then receives the other's half-result, so its
/// `buf` holds the pair's reduction.
fn remove_extra(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], plan: &Removal) -> MpiResult {
    let Some(partner) = plan.partner else { return Ok(()) };
    let esz = op.elem_size();
    let halves = Segments { n: buf.len() / esz };
    let (mine, theirs) = if plan.keeps_first { (0, 1) } else { (1, 0) };
    let mut incoming = super::scratch(halves.bytes(1, mine, esz).len())?;
    super::exchange_and_fold(t, op, buf, halves.bytes(1, theirs, esz), partner, halves.bytes(1, mine, esz), partner, &mut incoming, !plan.keeps_first)?;
    if plan.me.is_some() {
        t.recv(partner, &mut buf[halves.bytes(1, theirs, esz)])
    } else {
        t.send(partner, &buf[halves.bytes(1, mine, esz)])
    }
}

/// Allreduce `buf` in place; every rank ends with bit-identical data (each
/// segment is reduced by one process and copied to the others).
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8]) -> MpiResult {
    allreduce_with(t, op, buf, &Removal::in_rank_order(t.size(), t.rank(), None))
}

/// [`allreduce`] with the removal step of `plan`.
pub(super) fn allreduce_with(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], plan: &Removal) -> MpiResult {
    let esz = op.elem_size();
    let seg = Segments { n: buf.len() / esz };
    remove_extra(t, op, buf, plan)?;
    if let Some(me) = plan.me {
        let group = Group { members: &plan.members, me };
        halving_groups::reduce_scatter(t, op, buf, seg, &group)?;
        halving_groups::allgather(t, buf, seg, esz, &group)?;
    }
    // Hand the result to the removed processes.
    match (plan.partner, plan.me) {
        (Some(partner), Some(_)) => t.send(partner, buf),
        (Some(partner), None) => t.recv(partner, buf),
        (None, _) => Ok(()),
    }
}

/// Reduce `buf` of all processes into `buf` at `root`.
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    reduce_with(t, op, buf, root, &Removal::in_rank_order(t.size(), t.rank(), Some(root)))
}

/// [`reduce`] with the removal step of `plan`, in which `root` goes on.
pub(super) fn reduce_with(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize, plan: &Removal) -> MpiResult {
    let esz = op.elem_size();
    let seg = Segments { n: buf.len() / esz };
    remove_extra(t, op, buf, plan)?;
    let Some(me) = plan.me else { return Ok(()) };
    let group = Group { members: &plan.members, me };
    halving_groups::reduce_scatter(t, op, buf, seg, &group)?;
    let target = plan.members.iter().position(|&m| m == root).expect("the root survives the removal step");
    halving_groups::gather(t, buf, seg, esz, &group, target, root)
}

/// Reduce-scatter: on return block `rank` of `buf` holds the reduction of
/// block `rank` of all inputs (the rest of `buf` is scratch). The removal
/// step, then the halving with distance doubling over the survivors' slots,
/// in which survivor q keeps, in step k, the slots that agree with q in bit k
/// (so the partials combine as in the allreduce: the canonical tree) and ends
/// with its own slot: no final permutation. Those slots are not adjacent in
/// rank order, so the vector is first laid out with the slots in
/// bit-reversed order, where they are ([`BitReversedSlots`]: a local copy of
/// the vector, instead of a final exchange of n/p' over the network). A
/// survivor then hands its removed partner its block.
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], blocks: &Blocks) -> MpiResult {
    let p = t.size();
    if p == 1 {
        return Ok(());
    }
    let pairs = Pairs::of(p);
    reduce_scatter_with(t, op, buf, blocks, &Removal::in_rank_order(p, t.rank(), None), |g| (pairs.first(g), (g < pairs.removed).then(|| 2 * g + 1)))
}

/// [`reduce_scatter`] with the removal step of `plan` (made without a
/// root: each pair's first rank goes on), group rank g's slot holding the
/// blocks of `slot(g)`: its member, and the process folded into it if
/// any. The slots are laid out part by part ([`BitReversedSlots::lay_out`]),
/// so they need not be runs of blocks in rank order.
pub(super) fn reduce_scatter_with(
    t: &(impl Transport + ?Sized),
    op: &(impl Reducer + ?Sized),
    buf: &mut [u8],
    blocks: &Blocks,
    plan: &Removal,
    slot: impl Fn(usize) -> (usize, Option<usize>),
) -> MpiResult {
    let (rank, esz) = (t.rank(), op.elem_size());
    remove_extra(t, op, buf, plan)?;
    let Some(me) = plan.me else {
        let partner = plan.partner.expect("a process that does not go on folded into its partner");
        return t.recv(partner, &mut buf[blocks.bytes(rank, esz)]);
    };
    let parts = |g: usize| {
        let (member, folded) = slot(g);
        [blocks.bytes(member, esz), folded.map_or(0..0, |q| blocks.bytes(q, esz))]
    };
    let mut laid = super::scratch(buf.len())?;
    let layout = BitReversedSlots::lay_out(t, plan.members.len(), buf, &mut laid, parts);
    halving_groups::reduce_scatter(t, op, &mut laid, &layout, &Group { members: &plan.members, me })?;
    let (mine, folded) = laid[layout.slot(me)].split_at(parts(me)[0].len());
    super::copy(t, &mut buf[blocks.bytes(rank, esz)], mine);
    match plan.partner {
        Some(partner) => t.send(partner, folded),
        None => Ok(()),
    }
}

/// Registry entry: allreduce, reduce, the reduce-scatters.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf),
        Collective::Reduce => reduce(t, op, buf, job.root),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => reduce_scatter(t, op, buf, job.blocks),
    }
}

/// Registry entry with a separate input: allreduce, the reduce-scatters. For
/// an allreduce on a power of two the first halving step reads the input where
/// it is; otherwise the removal step works in `output`, so the input is copied
/// there first. The reduce-scatters work on a copy of the whole input.
pub fn run_from(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    let p = t.size();
    match job.coll {
        Collective::Allreduce if p > 1 && p.is_power_of_two() => {
            let (esz, members) = (op.elem_size(), (0..p).collect::<Pooled<usize>>());
            let (seg, group) = (Segments { n: input.len() / esz }, Group { members: &members, me: t.rank() });
            halving_groups::reduce_scatter_from(t, op, input, output, seg, &group)?;
            halving_groups::allgather(t, output, seg, esz, &group)
        }
        Collective::Allreduce => {
            super::copy(t, output, input);
            allreduce(t, op, output)
        }
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            let mut work = super::scratch(input.len())?;
            super::copy(t, &mut work, input);
            reduce_scatter(t, op, &mut work, job.blocks)?;
            super::copy(t, output, &work[job.blocks.bytes(t.rank(), op.elem_size())]);
            Ok(())
        }
        other => not_implemented("rabenseifner (separate input)", other),
    }
}

/// §3.5: reduce-scatter + allgather (gather) over p', plus the removal step;
/// the reduce-scatters: the halving over p', the removal step's exchange and
/// reduction of n/2 and its n/2 to the survivor, and a removed process's block.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    match coll {
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            halving_over_pof2(&x) + x.extra * (3.0 * x.a + x.n * (x.b + x.g / 2.0) + x.n / x.p * x.b)
        }
        _ => estimate_over_pof2(&x) + x.extra * (2.0 * x.a + x.n * (2.0 * x.b + x.g)),
    }
}

/// On `hosts` hosts of `k` consecutive ranks each, p = hosts·k a power of
/// two: the steps at distance < k (the first lg k of the halving, the last of
/// the doubling) stay within a host, on n down to n/k bytes (α_i, β_i); the
/// rest cross hosts on blocks of n/k, the k ranks of a host sharing its link
/// (β·k). So the estimate within one host on n plus that across the hosts on
/// n/k with shared links; γ sums to (1 − 1/p)nγ as in one level. Where p
/// is not a power of two, the removal step within the hosts and this split
/// on its survivors ([`super::registry::folding_pairs`]).
pub fn estimate_in_blocks(coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
    if !(hosts * k).is_power_of_two() {
        return super::registry::folding_pairs(estimate, estimate_in_blocks, coll, bytes, hosts, k, m);
    }
    estimate(coll, bytes, k, &m.within_host()) + estimate(coll, bytes / k, hosts, &m.sharing_links(k))
}

/// Recursive halving (the reduce-scatter) among p' processes: lg p' α + (1 − 1/p')n(β + γ).
pub fn halving_over_pof2(x: &Terms) -> f64 {
    x.pof2.log2() * x.a + (1.0 - 1.0 / x.pof2) * x.n * (x.b + x.g)
}

/// Halving & doubling among p' processes: 2 lg p' α + 2(1 − 1/p')nβ + (1 − 1/p')nγ.
pub fn estimate_over_pof2(x: &Terms) -> f64 {
    let fp = 1.0 - 1.0 / x.pof2;
    2.0 * x.pof2.log2() * x.a + 2.0 * fp * x.n * x.b + fp * x.n * x.g
}
