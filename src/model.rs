//! The α-β-γ cost model (Rabenseifner 2004 §3: α latency per message, β
//! transfer time per byte, γ reduction time per byte), used to size pipeline
//! segments and by `fastred explain` to compare algorithms. The defaults
//! describe a commodity TCP cluster (50 µs, 1 Gbit/s, 1 GB/s reduction); the
//! ratio α/β, the message size at which latency and transfer cost the same,
//! is what the segment sizes depend on.

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel { alpha: 50e-6, beta: 8e-9, gamma: 1e-9 }
    }
}

use crate::algo::{fibonacci_tree, pipeline};
use crate::select::{Algorithm, Collective};

fn ceil_lg(p: usize) -> f64 {
    (usize::BITS - (p.max(1) - 1).leading_zeros()) as f64
}

/// Estimated time (s) of `algo` for `coll` on `bytes` over `p` processes,
/// from the papers' cost formulas (Rabenseifner 2004 §3, Träff 2025 §2,
/// Patarasuk & Yuan §3.2, the pipelines' own); `None` where the algorithm
/// does not implement the collective. First-order: no contention, no overlap.
pub fn estimate(algo: Algorithm, coll: Collective, bytes: usize, p: usize, m: &CostModel) -> Option<f64> {
    use Algorithm::*;
    if !algo.implements(coll) || algo == Native {
        return None;
    }
    if p <= 1 {
        return Some(0.0);
    }
    let (n, pf) = (bytes as f64, p as f64);
    let (a, b, g) = (m.alpha, m.beta, m.gamma);
    let lg = ceil_lg(p);
    let pof2 = (1usize << p.ilog2()) as f64;
    let extra = if p.is_power_of_two() { 0.0 } else { 1.0 };
    let frac = 1.0 - 1.0 / pf;
    let reduce_scatter_like = matches!(coll, Collective::ReduceScatter | Collective::ReduceScatterBlock);
    let t = match (algo, coll) {
        // §3.3: binomial reduce; allreduce = reduce + broadcast.
        (Tree, Collective::Reduce) => lg * (a + n * (b + g)),
        (Tree, _) => lg * (2.0 * a + n * (2.0 * b + g)),
        // §3.4: lg p' full exchanges (+ the removal step's two transfers).
        (RecursiveDoubling, _) => pof2.log2() * (a + n * (b + g)) + extra * (2.0 * (a + n * b) + n * g),
        // §3.5: reduce-scatter + allgather (gather) over p', removal step otherwise.
        (Rabenseifner, _) | (BinaryBlocks, _) => {
            let fp = 1.0 - 1.0 / pof2;
            let removal = if algo == Rabenseifner { extra * (2.0 * a + n * (2.0 * b + g)) } else { 0.0 };
            2.0 * pof2.log2() * a + 2.0 * fp * n * b + fp * n * g + removal
        }
        // §3.7 and Patarasuk & Yuan: p−1 steps per phase.
        (Ring | TopoRing, _) if reduce_scatter_like => (pf - 1.0) * a + frac * n * (b + g),
        (Ring | TopoRing, _) => 2.0 * (pf - 1.0) * a + 2.0 * frac * n * b + frac * n * g,
        // Träff: ⌈lg p⌉ rounds per phase (reduce: + a binomial gather of blocks).
        (Circulant | CirculantPow2 | CirculantSqrt, _) if reduce_scatter_like => lg * a + frac * n * (b + g),
        (CirculantLinear, _) if reduce_scatter_like => (pf - 1.0) * a + frac * n * (b + g),
        (Circulant | CirculantPow2 | CirculantSqrt | CirculantLinear, _) => 2.0 * lg * a + 2.0 * frac * n * b + frac * n * g,
        (RecursiveHalving, _) => lg * a + frac * n * (b + g) + extra * (a + n * b),
        (Pipeline, _) => {
            let k = pipeline::segment_count(bytes, p, m).max(1);
            pipeline::cost(bytes, p, k, m) + n * g
        }
        (FibonacciTree, _) => {
            let k = fibonacci_tree::segment_count(bytes, p, m).max(1);
            fibonacci_tree::cost(bytes, p, k, m) + n * g
        }
        (Native, _) => return None,
    };
    Some(t)
}
