//! Linear pipeline reduce (Wikipedia, "Reduce (parallel pattern)", pipelined
//! algorithm, after Bar-Noy & Kipnis): the processes form a chain ending at the
//! root (relative ranks p−1 → p−2 → … → 0) and the vector flows along it in k
//! segments. Time (p + k − 2)(α + βn/k): p−1 steps until the root receives the
//! first segment, k−1 more for the rest; minimal for k = √((p−2)βn/α).
//! Commutative ops only (a segment is combined in chain order, not rank order).

use super::streaming::{self, TreeLinks};
use super::Transport;
use crate::error::MpiResult;
use crate::model::CostModel;
use crate::op::Reducer;
use super::registry::{not_implemented, Job};
use crate::collective::Collective;

/// The chain: relative rank q receives from q+1 and sends to q−1.
pub fn links(q: usize, p: usize) -> TreeLinks {
    TreeLinks { parent: q.checked_sub(1), children: (q + 1 < p).then_some(q + 1).into_iter().collect() }
}

/// The article's optimum number of segments for `bytes` on `p` processes.
pub fn segment_count(bytes: usize, p: usize, model: &CostModel) -> usize {
    streaming::optimal_segments(p as f64 - 2.0, 1.0, bytes, model)
}

/// Predicted time (s) with `k` segments.
pub fn cost(bytes: usize, p: usize, k: usize, model: &CostModel) -> f64 {
    if p < 2 {
        return 0.0;
    }
    (p + k - 2) as f64 * (model.alpha + model.beta * bytes as f64 / k as f64)
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
        other => not_implemented("pipeline", other),
    }
}

/// With the model's number of segments, plus the reductions.
pub fn estimate(_coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    cost(bytes, p, segment_count(bytes, p, m).max(1), m) + bytes as f64 * m.gamma
}
