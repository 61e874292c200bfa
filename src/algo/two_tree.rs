//! Pipelined two-tree reduce (Sanders, Speck & Träff, "Two-tree algorithms
//! for full bandwidth broadcast, reduction and scan", Parallel Computing 35,
//! 2009; not among ../shared/papers, written from its idea): the vector's two halves are reduced up two binary trees
//! at once, each in k segments, over the p − 1 processes other than the root;
//! both tree tops stream to the root. A process is an inner node in one tree
//! and a leaf in the other, so it receives at most n bytes (two children's
//! segments of one half) and sends n (its inner tree's partial sums and its
//! leaf tree's input), against 2n for the reduce-scatter + gather of §3.5/§3.6
//! and for one pipelined binary tree: time ≈ (k + h)(α + βn/k) with h the
//! trees' height plus one, minimal for k = √(h·βn/α), so ≈ βn for long
//! vectors. Commutative ops only (segments are combined in tree order).
//!
//! The trees (ranks relative to the root; the others are nodes 1..p−1): T1
//! is the in-order binary tree over positions 1..p−1 in which every range's
//! root is the position with the most trailing zero bits, so the odd nodes
//! are its leaves; T2 is the same over positions 0..p−2 with node = position
//! + 1 (the paper's shifted tree), so there the even nodes are the leaves.
//!
//! Schedule ([`streaming::stream_up`]): a process streams its leaf half's
//! segments to its leaf parent ahead of its own progress (at most
//! [`streaming::LEAD_BYTES`] ahead); they depend on nothing, so the two
//! trees' steps are tied together only where one runs more than that lead
//! ahead of the other. Up its inner tree it takes segment s from both
//! children (expected a segment ahead, so the next travels meanwhile),
//! folds them in, and posts the sum to its parent while
//! it goes on with segment s + 1; a send is completed only some steps
//! later, so no step waits for the parent to take the last one. The
//! receives wait only on the same tree lower down: no deadlock. The
//! paper's edge colouring, which makes every step one send and one
//! receive, is not needed with non-blocking sends. Simulated (p = 100,
//! 16 MiB) it took 1.1–1.6 βn on flat networks and the fat tree, not βn:
//! each segment still costs a rendezvous latency, and neighbours' steps do
//! not line up (docs/smpi.md, "The two-tree reduce").

use super::registry::{not_implemented, Job};
use super::streaming::{self, Pace, Stream, TreeLinks};
use super::{absolute_rank, relative_rank, Inbox, Transport};
use crate::collective::Collective;
use crate::error::MpiResult;
use crate::model::CostModel;
use crate::op::Reducer;
use crate::scratch::Pooled;
use std::ops::Range;

/// The root of the in-order tree over positions `lo..=hi`: the one with the
/// most trailing zero bits (0 if in range).
fn range_root(lo: usize, hi: usize) -> usize {
    (0..usize::BITS).rev().map(|k| (hi >> k) << k).find(|&c| c >= lo).unwrap_or(hi)
}

/// Parent and children (positions) of `pos` in the in-order tree over
/// `lo..=hi`; the tree's root has no parent.
fn in_order_links(pos: usize, mut lo: usize, mut hi: usize) -> (Option<usize>, Pooled<usize>) {
    let mut parent = None;
    loop {
        let r = range_root(lo, hi);
        if pos == r {
            let mut children = Pooled::new();
            if lo < r {
                children.push(range_root(lo, r - 1));
            }
            if r < hi {
                children.push(range_root(r + 1, hi));
            }
            return (parent, children);
        }
        parent = Some(r);
        (lo, hi) = if pos < r { (lo, r - 1) } else { (r + 1, hi) };
    }
}

/// Links of node `q` (1 ≤ q < p) in tree `which` (0: T1, 1: T2), in ranks
/// relative to the root; the tree's top node has the root (0) as parent.
pub fn links(q: usize, p: usize, which: usize) -> TreeLinks {
    debug_assert!((1..p).contains(&q) && which < 2);
    let m = p - 1;
    // T1: node = position over 1..=m; T2: node = position + 1 over 0..m.
    let (pos, lo, hi) = if which == 0 { (q, 1, m) } else { (q - 1, 0, m - 1) };
    let to_node = |position: usize| position + which;
    let (parent, children) = in_order_links(pos, lo, hi);
    TreeLinks { parent: Some(parent.map_or(0, to_node)), children: children.iter().map(|&c| to_node(c)).collect() }
}

/// Height of the taller tree plus the step to the root: the pipeline's fill.
pub fn height(p: usize) -> usize {
    if p < 2 {
        return 0;
    }
    // An in-order tree over m positions has ⌊log2 m⌋ + 1 levels.
    (usize::BITS - (p - 1).leading_zeros()) as usize + 1
}

/// Smallest segment the model's count may give. Simulated on the fat tree
/// (SMPI, 100 Gbit/s, p = 100, docs/smpi.md "The two-tree reduce"), 16 KiB
/// segments took 1.40–1.76x the time of 64 KiB ones at 2 and 16 MiB, and
/// the compiled-in model (α = 50 µs, for TCP) would cut 2 MiB into 20 KB;
/// 256 KiB was 1.15x faster at 16 MiB but 1.36x slower at 2 MiB, and on
/// the 10 Gbit/s network 1.1x slower at 16 MiB. On TCP the floor costs
/// little: its segments reach it from a few MiB.
pub const MIN_SEGMENT: usize = 64 << 10;

/// The model's number of segments per half: k = √(h·βn/α), but none
/// shorter than [`MIN_SEGMENT`].
pub fn segment_count(bytes: usize, p: usize, model: &CostModel) -> usize {
    let k = streaming::optimal_segments(height(p) as f64, 1.0, bytes, model);
    k.min((bytes / 2 / MIN_SEGMENT).max(1))
}

/// Predicted time (s) with `k` segments per half: k + h steps, each moving
/// two half-segments (n/k bytes) into and out of a process.
pub fn cost(bytes: usize, p: usize, k: usize, model: &CostModel) -> f64 {
    if p < 2 {
        return 0.0;
    }
    (k + height(p)) as f64 * (model.alpha + model.beta * bytes as f64 / k as f64)
}

/// Longest segment (Open MPI over TCP: 32 pieces of 32 KiB), so that
/// [`streaming::LEAD_BYTES`] bounds the messages in flight.
pub const MAX_SEGMENT: usize = 1 << 20;

/// Most segments per half (the model's k reaches it only from several GiB).
pub const MAX_SEGMENTS: usize = 4096;

/// Byte ranges, within a half of `len` bytes, of its segments: about
/// `segment_bytes` each, else `k`, at most [`MAX_SEGMENTS`] of at most
/// [`MAX_SEGMENT`] bytes.
fn segments(len: usize, elem: usize, segment_bytes: Option<usize>, k: usize) -> Pooled<Range<usize>> {
    let count = segment_bytes.map_or(k, |b| len.div_ceil(b.max(elem)));
    let count = count.max(len.div_ceil(MAX_SEGMENT.max(elem)));
    streaming::segments(len, elem, count.min(MAX_SEGMENTS))
}

/// Reduce to `root`: the first half of `buf`'s elements up T1, the rest up
/// T2, in segments of about `segment_bytes` (from the model when `None`).
/// p = 2 is one link, the linear pipeline's.
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize, segment_bytes: Option<usize>, model: &CostModel) -> MpiResult {
    let p = t.size();
    if p <= 2 {
        return super::pipeline::reduce(t, op, buf, root, segment_bytes, model);
    }
    let elem = op.elem_size();
    let split = buf.len() / elem / 2 * elem;
    let k = segment_count(buf.len(), p, model);
    let (first, second) = buf.split_at_mut(split);
    let halves = [segments(first.len(), elem, segment_bytes, k), segments(second.len(), elem, segment_bytes, k)];
    let q = relative_rank(t.rank(), root, p);
    if q == 0 {
        let tops = [0, 1].map(|which| absolute_rank(tree_root(p, which), root, p));
        return receive_at_root(t, op, [first, second], &halves, tops);
    }
    let trees = [0, 1].map(|which| links(q, p, which).absolute(root, p));
    let inner = usize::from(trees[0].children.is_empty());
    let (inner_half, leaf_half) = if inner == 0 { (first, &*second) } else { (second, &*first) };
    let [up, leaf] = [&trees[inner], &trees[1 - inner]].map(|l| l.parent.expect("a non-root has a parent in both trees"));
    let longest = super::longest(&halves[0]).max(super::longest(&halves[1]));
    let pace = Pace { receive_ahead: streaming::TWO_TREE_RECEIVES_AHEAD, send_lead: streaming::lead(longest) };
    let mut inner_half = Some(inner_half);
    t.outbox(&mut |out| {
        let data = inner_half.take().expect("an outbox runs its body once");
        let up = Stream { to: Some(up), data, segments: &halves[inner] };
        let leaf = Stream { to: Some(leaf), data: leaf_half, segments: &halves[1 - inner] };
        streaming::stream_up(t, op, out, up, &trees[inner].children, leaf, pace)
    })
}

/// The node at the top of tree `which` (its parent is the root).
fn tree_root(p: usize, which: usize) -> usize {
    if which == 0 { range_root(1, p - 1) } else { 1 }
}

/// The root's part: segment s of each half from its tree's top node, both
/// expected [`streaming::TWO_TREE_RECEIVES_AHEAD`] segments before, folded in.
fn receive_at_root(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), mut halves_of_buf: [&mut [u8]; 2], halves: &[Pooled<Range<usize>>; 2], tops: [usize; 2]) -> MpiResult {
    let longest = super::longest(&halves[0]).max(super::longest(&halves[1]));
    let steps = halves[0].len().max(halves[1].len());
    let ahead = streaming::TWO_TREE_RECEIVES_AHEAD.min(steps);
    let expect = |inbox: &mut dyn Inbox, s: usize| (0..2).try_for_each(|i| halves[i].get(s).map_or(Ok(()), |seg| inbox.expect(tops[i], seg.len())));
    t.inbox(2 * ahead, longest, &mut |inbox| {
        (0..ahead).try_for_each(|s| expect(inbox, s))?;
        for s in 0..steps {
            for (half, segs) in halves_of_buf.iter_mut().zip(halves) {
                if let Some(seg) = segs.get(s) {
                    op.reduce(inbox.take_oldest()?, &mut half[seg.clone()], false)?;
                }
            }
            if s + ahead < steps {
                expect(inbox, s + ahead)?;
            }
        }
        Ok(())
    })
}

/// Registry entry: reduce.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Reduce => reduce(t, op, buf, job.root, job.segment_bytes, job.model),
        other => not_implemented("two_tree", other),
    }
}

/// With the model's number of segments, plus the reductions (n bytes at
/// each inner node).
pub fn estimate(_coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    cost(bytes, p, segment_count(bytes, p, m).max(1), m) + bytes as f64 * m.gamma
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node reached once from the tree's top, parents and children agreeing.
    fn reach(q: usize, p: usize, which: usize, seen: &mut Vec<usize>) {
        seen.push(q);
        for &c in links(q, p, which).children.iter() {
            assert_eq!(links(c, p, which).parent, Some(q), "p={p} tree {which}");
            reach(c, p, which, seen);
        }
    }

    #[test]
    fn both_trees_span_the_non_roots_and_each_node_is_inner_in_at_most_one() {
        for p in 2..300 {
            for which in 0..2 {
                let mut seen = vec![];
                reach(tree_root(p, which), p, which, &mut seen);
                seen.sort();
                assert_eq!(seen, (1..p).collect::<Vec<_>>(), "p={p} tree {which}");
                assert_eq!(links(tree_root(p, which), p, which).parent, Some(0));
            }
            for q in 1..p {
                let [a, b] = [0, 1].map(|w| links(q, p, w).children.len());
                assert!(a <= 2 && b <= 2, "p={p} node {q}");
                assert!(a == 0 || b == 0, "p={p} node {q} is inner in both trees");
                // In-order: left children below, right children above.
                for w in 0..2 {
                    let c = links(q, p, w).children;
                    assert!(c.windows(2).all(|x| x[0] < q && q < x[1]), "p={p} node {q}");
                }
            }
            // Levels: the fill the model charges covers the deepest node.
            let depth = |mut q: usize, w| {
                let mut d = 1;
                while q != 0 {
                    q = links(q, p, w).parent.unwrap();
                    d += 1;
                }
                d - 1
            };
            let deepest = (1..p).flat_map(|q| [depth(q, 0), depth(q, 1)]).max().unwrap();
            assert!(deepest <= height(p), "p={p}: depth {deepest} > {}", height(p));
        }
        // Seven non-roots: T1 is 4 over (2 over 1, 3) and (6 over 5, 7).
        assert_eq!(links(4, 8, 0).children[..], [2, 6]);
        assert_eq!(links(6, 8, 0).children[..], [5, 7]);
        // T2 is the same over positions 0..6, shifted: node 1 on top.
        assert_eq!(links(1, 8, 1).children[..], [5]);
        assert_eq!(links(5, 8, 1).children[..], [3, 7]);
    }
}
