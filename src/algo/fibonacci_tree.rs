//! Pipelined Fibonacci-tree reduce (Wikipedia, "Reduce (parallel pattern)",
//! "Pipelined tree", after Sanders & Sibeyn 2003): a tree whose root's two
//! subtrees differ in height by one (T_h = root + T_{h−1} + T_{h−2}, so
//! |T_h| = F_{h+3} − 1 and h ≈ log_φ p), with the vector streamed up in k
//! segments. An inner node receives two segments per segment it sends, so
//! after the pipeline fills (≈ h steps) each segment takes two steps:
//! time ≈ (h + 2k)(α + βn/k), minimal for k = √(h·βn / (2α)).
//! Commutative ops only.

use super::streaming::{self, TreeLinks};
use super::Transport;
use crate::error::MpiResult;
use crate::model::CostModel;
use crate::op::Reducer;
use super::registry::{not_implemented, Job};
use crate::collective::Collective;

/// Nodes of the Fibonacci tree of height h: 1, 2, 4, 7, 12, 20, …
fn tree_size(h: usize) -> usize {
    let (mut a, mut b) = (1usize, 2usize); // |T_0|, |T_1|
    for _ in 0..h {
        (a, b) = (b, a + b + 1);
    }
    a
}

/// The smallest height whose Fibonacci tree has at least `n` nodes.
pub fn height_for(n: usize) -> usize {
    (0..).find(|&h| tree_size(h) >= n).unwrap()
}

/// Sizes of the two subtrees under a root of a tree of `size` nodes: the
/// `size − 1` nodes shared in the ratio |T_{h−1}| : |T_{h−2}| (exact for
/// Fibonacci sizes; in between, both subtrees shrink alike).
fn split(size: usize) -> (usize, usize) {
    let h = height_for(size);
    if h < 2 {
        return (size.saturating_sub(1), 0);
    }
    let (a, b) = (tree_size(h - 1), tree_size(h - 2));
    let shorter = ((size - 1) * b + (a + b) / 2) / (a + b);
    (size - 1 - shorter, shorter)
}

/// Links of relative rank `q` in the Fibonacci tree over relative ranks
/// 0..p, numbered in preorder: the subtree of node v is v..v+size, its taller
/// child's subtree comes first, the shorter after ([`split`]). Children are listed shorter
/// subtree first: its segments are ready one step earlier.
pub fn links(q: usize, p: usize) -> TreeLinks {
    let (mut first, mut size, mut parent) = (0, p, None);
    loop {
        let (taller, shorter) = split(size);
        let (t_root, s_root) = (first + 1, first + 1 + taller);
        if q == first {
            let mut children = crate::scratch::Pooled::new();
            if shorter > 0 {
                children.push(s_root);
            }
            if taller > 0 {
                children.push(t_root);
            }
            return TreeLinks { parent, children };
        }
        parent = Some(first);
        (first, size) = if q < s_root { (t_root, taller) } else { (s_root, shorter) };
    }
}

/// The model's optimum number of segments for `bytes` on `p` processes.
pub fn segment_count(bytes: usize, p: usize, model: &CostModel) -> usize {
    streaming::optimal_segments(height_for(p) as f64, 2.0, bytes, model)
}

/// Predicted time (s) with `k` segments.
pub fn cost(bytes: usize, p: usize, k: usize, model: &CostModel) -> f64 {
    if p < 2 {
        return 0.0;
    }
    (height_for(p) + 2 * k) as f64 * (model.alpha + model.beta * bytes as f64 / k as f64)
}

/// Reduce to `root` in segments of about `segment_bytes` (from the model when `None`).
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize, segment_bytes: Option<usize>, model: &CostModel) -> MpiResult {
    let k = segment_count(buf.len(), t.size(), model);
    streaming::reduce_on_tree(t, op, buf, root, segment_bytes, k, links)
}

/// Registry entry: reduce.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Reduce => reduce(t, op, buf, job.root, job.segment_bytes, job.model),
        other => not_implemented("fibonacci_tree", other),
    }
}

/// With the model's number of segments, plus the reductions.
pub fn estimate(_coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    cost(bytes, p, segment_count(bytes, p, m).max(1), m) + bytes as f64 * m.gamma
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_fibonacci_minus_one() {
        assert_eq!((0..8).map(tree_size).collect::<Vec<_>>(), vec![1, 2, 4, 7, 12, 20, 33, 54]);
        assert_eq!(height_for(7), 3);
        assert_eq!(height_for(8), 4);
    }

    /// Height of the subtree at `v`, and every node reached exactly once.
    fn height(v: usize, p: usize, seen: &mut Vec<usize>) -> usize {
        seen.push(v);
        let l = links(v, p);
        l.children.iter().map(|&c| {
            assert_eq!(links(c, p).parent, Some(v));
            1 + height(c, p, seen)
        }).max().unwrap_or(0)
    }

    #[test]
    fn every_p_gives_a_spanning_tree_with_balanced_subtrees() {
        for p in 1..200 {
            let mut seen = vec![];
            let h = height(0, p, &mut seen);
            seen.sort();
            assert_eq!(seen, (0..p).collect::<Vec<_>>(), "p={p}");
            assert!(h <= height_for(p), "p={p}: height {h}");
            for v in 0..p {
                let hs: Vec<usize> = links(v, p).children.iter().map(|&c| height(c, p, &mut vec![])).collect();
                if let [a, b] = hs[..] {
                    assert!(a.abs_diff(b) <= 1, "p={p} node {v}: child heights {hs:?}");
                }
            }
        }
        // Seven nodes: the article's picture, T_3 = root + T_2 (4 nodes) + T_1 (2 nodes).
        assert_eq!(links(0, 7).children[..], [5, 1]);
    }
}
