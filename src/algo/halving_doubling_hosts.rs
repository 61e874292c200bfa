//! Halving & doubling over hosts: Rabenseifner 2004 §3.5 (the allreduce and
//! reduce of `halving_doubling`) with its removal step planned for where the
//! ranks are. §3.5 folds the pairs (2i, 2i + 1), i < r = p − p', and runs
//! the halving over the p' = 2^⌊lg p⌋ that go on in rank order. On hosts of
//! K consecutive ranks the hosts within the first 2r ranks then keep K/2
//! each and the later ones all K; the halving's first steps, whose partners
//! are group neighbours and whose messages are the longest (n/2, n/4, ...),
//! stay within a host only while a host's share of the group is an aligned
//! power of two. At 100 = 6 × 16 + 4 a host of 12 straddles an 8-aligned
//! block, its neighbour keeps 16, and from the 4th step half a host's ranks
//! send across its link at once.
//!
//! Here every host folds pairs of its own ranks (so the removal step never
//! crosses a link) and keeps between half and all of them, chosen so that
//! as many hosts as possible keep a power of two ([`going_on`]); the group
//! lists the hosts by the largest power of two dividing their count, then
//! by count, so that power-of-two shares fall on aligned blocks and a
//! remainder goes last. The plan is kept where its heaviest link (the most
//! survivors crossing one link in a step, weighted by the step's bytes) is
//! lighter than §3.5's: on hosts in blocks of 2-32 ranks at p ≤ 300, 1861
//! of 2546 shapes (`its_heaviest_link_is_lighter_than_in_rank_order_at_most_shapes`);
//! elsewhere, and where hosts cannot fold pairs of their own (one rank per
//! host), the plan is §3.5's. Not the canonical order of [`crate::reproducible`] (the
//! survivors' order is not the ranks'); all ranks still end bit-identical.
//!
//! The reduce-scatters run the same plan (§3.5's reduce-scatter is the
//! allreduce's first half, footnote 1), each survivor's slot holding its
//! block and that of the rank folded into it.
//!
//! Simulated on hosts of 16 with a short last host at 100-250 processes,
//! 1-4 MiB (docs/smpi.md "Hosts of 16 with a short last host: which
//! algorithm at 1-4 MiB"): 0.68-0.91x §3.5's allreduce time on the fat
//! tree and dragonfly where the plans differ, 0.73-1.14x on the 3D torus
//! (the reordered hosts pair up differently under the network, which the
//! heaviest link does not see). The plan is made and weighed once per
//! communicator and kept with its host map ([`HostsPlan`]): 0.1 µs per call
//! at p = 100-1000 on hosts of 16, 0.6 at 3000, where planning on every
//! call took 1.7, 11 and 31 (`examples/cpu_per_call.rs`; §3.5's plan
//! 0.15-2 µs).

use super::halving_doubling::{self, Members, Removal};
use super::host_map::HostMap;
use super::registry::Job;
use super::Transport;
use crate::collective::Collective;
use crate::error::MpiResult;
use crate::op::Reducer;
use crate::scratch::Pooled;
use std::ops::Range;

/// How many ranks of each host go on after the removal step (p' in all),
/// or `None` where the hosts cannot fold pairs of their own ranks (more
/// than p' would go on). Each host keeps at least half its ranks, rounded
/// up; then, hosts that keep the most first, a host's count is raised to
/// its next power of two while what is left to give allows; what is still
/// left goes to the hosts that keep the most, the last of them first.
fn going_on(hosts: &HostMap, pof2: usize) -> Option<Pooled<usize>> {
    let size = |h: usize| hosts.ranks_on(h).len();
    let mut kept: Pooled<usize> = (0..hosts.host_count()).map(|h| size(h).div_ceil(2)).collect();
    let mut left = pof2.checked_sub(kept.iter().sum())?;
    let mut by_most_kept: Pooled<usize> = (0..kept.len()).collect();
    by_most_kept.sort_by_key(|&h| std::cmp::Reverse(kept[h]));
    // A host that cannot be raised never can (what is left only shrinks),
    // and a raised one keeps the most, so one pass in this order raises
    // the same hosts as re-sorting after every raise.
    let next_power = |x: usize| if x.is_power_of_two() { 2 * x } else { x.next_power_of_two() };
    for &h in by_most_kept.iter() {
        while kept[h] > 0 && next_power(kept[h]) <= size(h) && next_power(kept[h]) - kept[h] <= left {
            left -= next_power(kept[h]) - kept[h];
            kept[h] = next_power(kept[h]);
        }
    }
    // The rest to the last of the hosts that keep the most: a remainder
    // behind the power-of-two shares leaves the group in host order, where
    // neighbouring hosts pair up as in §3.5's plan (on the 3D torus the
    // first host's took 1.11-1.25x at 164 and 230 processes).
    by_most_kept.sort_by_key(|&h| (std::cmp::Reverse(kept[h]), std::cmp::Reverse(h)));
    for &h in by_most_kept.iter() {
        let more = left.min(size(h) - kept[h]);
        kept[h] += more;
        left -= more;
    }
    Some(kept)
}

/// The hosts' plan of the removal step, the same for every rank; kept with
/// the host map (so once per communicator), or `None` there where the plan
/// is §3.5's. Host h folds its first 2(K_h − kept_h) ranks in pairs (local
/// 2i, 2i + 1); the group lists the hosts by the largest power of two
/// dividing their count kept, then by that count, then by host number,
/// each host's survivors in local order. §3.5's plan where [`going_on`]
/// finds none, or where this one's [`heaviest_link`] is not lighter (on
/// hosts of 6, 12 or 24 ranks, at 38 of the 2426 shapes of hosts in blocks
/// of 2-32 at p ≤ 300 where it has a plan, its shares fall less well than
/// §3.5's). Weighed without a root: a root moves a survivor within its
/// pair, which here stays on its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostsPlan {
    /// How many ranks of each host go on.
    kept: Vec<usize>,
    /// Group rank → process, each pair represented by its first rank.
    members: Vec<usize>,
    /// Group rank → the pair's second rank, folded into it.
    folded: Vec<Option<usize>>,
    /// Process → its group rank, or its pair's.
    group_rank: Vec<usize>,
}

impl HostsPlan {
    fn new(hosts: &HostMap) -> Option<HostsPlan> {
        let p = hosts.len();
        if p.is_power_of_two() {
            return None;
        }
        let kept = going_on(hosts, 1 << p.ilog2())?;
        let mut order: Pooled<usize> = (0..kept.len()).filter(|&h| kept[h] > 0).collect();
        order.sort_by_key(|&h| (std::cmp::Reverse(kept[h] & kept[h].wrapping_neg()), std::cmp::Reverse(kept[h]), h));
        let (mut members, mut folded, mut group_rank) = (Vec::with_capacity(1 << p.ilog2()), Vec::with_capacity(1 << p.ilog2()), vec![0; p]);
        for &h in order.iter() {
            let on = hosts.ranks_on(h);
            let pairs = 2 * (on.len() - kept[h]);
            for (local, &q) in on.iter().enumerate() {
                if local < pairs && local % 2 == 1 {
                    group_rank[q] = members.len() - 1;
                    continue;
                }
                group_rank[q] = members.len();
                members.push(q);
                folded.push((local < pairs).then(|| on[local + 1]));
            }
        }
        (heaviest_link(&members, hosts) < heaviest_link(&Removal::in_rank_order(p, 0, None).members, hosts))
            .then(|| HostsPlan { kept: kept.to_vec(), members, folded, group_rank })
    }

    /// The processes whose blocks group rank g's slot holds in the
    /// reduce-scatter: its member and the one folded into it.
    fn slot(&self, g: usize) -> (usize, Option<usize>) {
        (self.members[g], self.folded[g])
    }
}

/// The hosts' plan kept with `hosts`, made at its first use.
fn kept_plan(hosts: &HostMap) -> Option<&HostsPlan> {
    hosts.halving_plan.get_or_init(|| HostsPlan::new(hosts)).as_ref()
}

/// The removal step's plan for this process: the hosts' plan
/// ([`HostsPlan`], made at the host map's first use), each pair's survivor
/// its first rank or the root if that is the second; §3.5's where there is
/// no hosts' plan. O(1) per call but for a copy of the group where the
/// root is the second of a pair.
pub(super) fn removal(hosts: &HostMap, rank: usize, root: Option<usize>) -> Removal<'_> {
    let Some(plan) = kept_plan(hosts) else {
        return Removal::in_rank_order(hosts.len(), rank, root);
    };
    // The group rank whose survivor the root is, where it is not the pair's first.
    let root_slot = root.map(|r| plan.group_rank[r]).filter(|&g| Some(plan.members[g]) != root);
    let members = match (root, root_slot) {
        (Some(root), Some(g)) => {
            let mut own: Pooled<usize> = plan.members.iter().copied().collect();
            own[g] = root;
            Members::Built(own)
        }
        _ => Members::Kept(&plan.members),
    };
    let h = hosts[rank];
    let on = hosts.ranks_on(h);
    let local = on.binary_search(&rank).expect("rank on its host");
    let g = plan.group_rank[rank];
    let partner = (local < 2 * (on.len() - plan.kept[h])).then(|| on[local ^ 1]);
    Removal { me: (members[g] == rank).then_some(g), members, partner, keeps_first: local.is_multiple_of(2) }
}

/// The halving & doubling's heaviest link, in units of nβ: for each step
/// j of the halving (partners 2^j apart in the group, n/2^(j+1) bytes
/// each) the most survivors of one host whose partner is on another,
/// summed with the step's bytes, twice (the doubling mirrors it). Where
/// each host's survivors are consecutive in the group (hosts in blocks,
/// both plans) O(hosts · lg p) by [`crossing_out_of`]; else member by
/// member, O(p lg p).
fn heaviest_link(members: &[usize], hosts: &HostMap) -> f64 {
    let steps = members.len().ilog2();
    match consecutive_shares(members, hosts) {
        Some(ranges) => (0..steps).map(|j| weigh(ranges.iter().map(|r| crossing_out_of(r.clone(), j)).max().unwrap_or(0), j)).sum(),
        None => heaviest_link_member_by_member(members, hosts),
    }
}

/// Step j's share of [`heaviest_link`]: `most_crossing` survivors send
/// n/2^(j+1) each across one link, in the halving and in the doubling.
fn weigh(most_crossing: usize, j: u32) -> f64 {
    2.0 * most_crossing as f64 / f64::from(1u32 << (j + 1))
}

/// [`heaviest_link`] counted member by member.
fn heaviest_link_member_by_member(members: &[usize], hosts: &HostMap) -> f64 {
    let steps = members.len().ilog2();
    let host_of_member: Pooled<usize> = members.iter().map(|&q| hosts[q]).collect();
    let mut crossing: Pooled<usize> = (0..hosts.host_count()).map(|_| 0).collect();
    (0..steps)
        .map(|j| {
            crossing.iter_mut().for_each(|c| *c = 0);
            for (g, &h) in host_of_member.iter().enumerate() {
                crossing[h] += usize::from(h != host_of_member[g ^ (1 << j)]);
            }
            weigh(crossing.iter().max().copied().unwrap_or(0), j)
        })
        .sum()
}

/// Each host's range of group ranks, where every host's members are
/// consecutive in the group; `None` where some host's are not.
fn consecutive_shares(members: &[usize], hosts: &HostMap) -> Option<Pooled<Range<usize>>> {
    let mut ranges: Pooled<Range<usize>> = Pooled::new();
    let mut ranges_of_host: Pooled<usize> = (0..hosts.host_count()).map(|_| 0).collect();
    for (g, &q) in members.iter().enumerate() {
        match ranges.last_mut() {
            Some(last) if hosts[members[last.start]] == hosts[q] => last.end = g + 1,
            _ => {
                ranges_of_host[hosts[q]] += 1;
                ranges.push(g..g + 1);
            }
        }
    }
    ranges_of_host.iter().all(|&n| n <= 1).then_some(ranges)
}

/// How many group ranks g in `range` have their partner g XOR 2^`j`
/// outside it: O(1). g with bit j clear pairs with g + 2^j, inside iff
/// g + 2^j < end; g with bit j set with g − 2^j, inside iff
/// g ≥ start + 2^j.
fn crossing_out_of(range: Range<usize>, j: u32) -> usize {
    let d = 1 << j;
    let clear_below = |x: usize| ((x >> (j + 1)) << j) + (x & (2 * d - 1)).min(d);
    let set_below = |x: usize| x - clear_below(x);
    let (a, b) = (range.start, range.end);
    if b < a + d {
        return b - a;
    }
    (b - a) - (clear_below(b - d) - clear_below(a)) - (set_below(b) - set_below(a + d))
}

/// Registry entry: allreduce, reduce and the reduce-scatters.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    let known = job.hosts.len() == t.size();
    let plan = |root| if known { removal(job.hosts, t.rank(), root) } else { Removal::in_rank_order(t.size(), t.rank(), root) };
    match job.coll {
        Collective::Allreduce => halving_doubling::allreduce_with(t, op, buf, &plan(None)),
        Collective::Reduce => halving_doubling::reduce_with(t, op, buf, job.root, &plan(Some(job.root))),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => match known.then(|| kept_plan(job.hosts)).flatten() {
            Some(kept) => halving_doubling::reduce_scatter_with(t, op, buf, job.blocks, &plan(None), |g| kept.slot(g)),
            None => halving_doubling::reduce_scatter(t, op, buf, job.blocks),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(p: usize, k: usize) -> HostMap {
        HostMap::new(&(0..p).map(|r| r / k).collect::<Vec<_>>())
    }

    /// Every rank's plan agrees on the group, pairs ranks of one host, and
    /// keeps each pair's survivor (the root where it is in a pair).
    fn check_plans(hosts: &HostMap, root: Option<usize>) -> Removal<'_> {
        let p = hosts.len();
        let plans: Vec<Removal> = (0..p).map(|r| removal(hosts, r, root)).collect();
        let group = &plans[0].members;
        assert_eq!(group.len(), 1 << p.ilog2());
        for (r, plan) in plans.iter().enumerate() {
            assert_eq!(&plan.members[..], &group[..], "rank {r} sees another group");
            assert_eq!(plan.me, group.iter().position(|&m| m == r));
            if let Some(q) = plan.partner {
                assert_eq!(plans[q].partner, Some(r));
                assert_ne!(plan.keeps_first, plans[q].keeps_first);
                assert!(plan.me.is_some() != plans[q].me.is_some(), "one of the pair {r}, {q} goes on");
            } else {
                assert!(plan.me.is_some(), "rank {r} neither folds nor goes on");
            }
        }
        if let Some(root) = root {
            assert!(plans[root].me.is_some(), "the root goes on");
        }
        // The reduce-scatter's slots hold every process's block once.
        if let Some(kept) = kept_plan(hosts) {
            let mut held: Vec<usize> = (0..group.len()).flat_map(|g| {
                let (member, folded) = kept.slot(g);
                std::iter::once(member).chain(folded)
            }).collect();
            held.sort_unstable();
            assert_eq!(held, (0..p).collect::<Vec<_>>());
        }
        removal(hosts, 0, root)
    }

    #[test]
    fn its_heaviest_link_is_lighter_than_in_rank_order_at_most_shapes() {
        let mut lighter = 0;
        for k in [2usize, 3, 4, 6, 8, 12, 16, 24, 32] {
            for p in (k + 1..=300).filter(|p| !p.is_power_of_two()) {
                let hosts = blocks(p, k);
                let plan = check_plans(&hosts, None);
                let (ours, paper) = (heaviest_link(&plan.members, &hosts), heaviest_link(&Removal::in_rank_order(p, 0, None).members, &hosts));
                assert!(ours <= paper, "p = {p} on hosts of {k}: {ours} > {paper} nβ");
                lighter += usize::from(ours < paper - 1e-12);
            }
        }
        assert!(lighter >= 1800, "lighter at only {lighter} of 2546 shapes");
        // 100 = 6 x 16 + 4: 4.5 nβ in rank order, 3.5 here; 140 = 8 x 16 + 12: 5.25 -> 2.75.
        for (p, before, after) in [(100, 4.5, 3.5), (140, 5.25, 2.75)] {
            let hosts = blocks(p, 16);
            assert_eq!((heaviest_link(&Removal::in_rank_order(p, 0, None).members, &hosts), heaviest_link(&removal(&hosts, 0, None).members, &hosts)), (before, after));
        }
    }

    /// The O(1) count of a consecutive share's crossing partners matches
    /// counting member by member, for every range of 0..64 and distance.
    #[test]
    fn crossing_out_of_a_range_matches_counting_member_by_member() {
        for a in 0..64usize {
            for b in a..=64 {
                for j in 0..6 {
                    let counted = (a..b).filter(|g| !(a..b).contains(&(g ^ (1 << j)))).count();
                    assert_eq!(crossing_out_of(a..b, j), counted, "{a}..{b}, j = {j}");
                }
            }
        }
    }

    /// Both ways of weighing a plan agree where each host's share is
    /// consecutive (hosts in blocks, both plans).
    #[test]
    fn heaviest_link_by_shares_matches_member_by_member() {
        for k in [2usize, 6, 16] {
            for p in (k + 1..=200).filter(|p| !p.is_power_of_two()) {
                let hosts = blocks(p, k);
                for plan in [removal(&hosts, 0, None), Removal::in_rank_order(p, 0, None)] {
                    assert!(consecutive_shares(&plan.members, &hosts).is_some(), "p = {p}, k = {k}");
                    assert_eq!(heaviest_link(&plan.members, &hosts), heaviest_link_member_by_member(&plan.members, &hosts), "p = {p}, k = {k}");
                }
            }
        }
        let round_robin = HostMap::new(&(0..100).map(|r| r % 7).collect::<Vec<_>>());
        assert!(consecutive_shares(&Removal::in_rank_order(100, 0, None).members, &round_robin).is_none());
    }

    #[test]
    fn ranks_dealt_round_robin_and_roots_anywhere() {
        for (p, hosts_count) in [(7, 2), (10, 3), (13, 4), (22, 5), (100, 7)] {
            let hosts = HostMap::new(&(0..p).map(|r| r % hosts_count).collect::<Vec<_>>());
            check_plans(&hosts, None);
            for root in 0..p {
                check_plans(&hosts, Some(root));
            }
        }
    }

    /// The plan is made once per host map: every call shares its group,
    /// but a reduce whose root is the second of a folded pair, which gets
    /// its own copy with the root in its pair's place.
    #[test]
    fn the_plan_is_kept_with_the_host_map() {
        let hosts = blocks(100, 16);
        assert!(hosts.halving_plan.get().is_none());
        let kept = |plan: &Removal| matches!(plan.members, Members::Kept(_));
        let first = removal(&hosts, 0, None);
        assert!(hosts.halving_plan.get().is_some_and(|plan| plan.is_some()));
        for r in 0..100 {
            let plan = removal(&hosts, r, None);
            assert!(kept(&plan) && std::ptr::eq(&plan.members[..], &first.members[..]), "rank {r}");
        }
        // A folded pair (the last of them): its first rank is in the group, the second not.
        let second = (1..100).rev().find(|&r| removal(&hosts, r, None).partner == Some(r - 1)).expect("a folded pair");
        assert!(first.members.contains(&(second - 1)) && !first.members.contains(&second));
        assert!(kept(&removal(&hosts, 5, Some(second - 1))));
        let plan = removal(&hosts, 5, Some(second));
        assert!(!kept(&plan) && plan.members.contains(&second) && !plan.members.contains(&(second - 1)));
        assert_eq!(removal(&hosts, second, Some(second)).me, plan.members.iter().position(|&m| m == second));
    }

    #[test]
    fn one_rank_per_host_keeps_the_papers_plan() {
        let hosts = HostMap::new(&(0..13).collect::<Vec<_>>());
        let plan = removal(&hosts, 4, None);
        assert_eq!(&plan.members[..], &Removal::in_rank_order(13, 4, None).members[..]);
    }
}
