//! k-nomial tree reduce (radix 4), as MVAPICH2's `MV2_USE_KNOMIAL_REDUCE` and
//! Open MPI's `coll/tuned` k-nomial trees: the binomial tree of §3.3 with k − 1
//! children per node and level instead of one. Numbered relative to the root,
//! at level l (stride s = k^l) a process whose l-th base-k digit d is not 0
//! sends its partial result to the process d·s lower and drops out; one whose
//! digit is 0 receives from the up to k − 1 processes j·s higher and reduces.
//! ⌈log_k p⌉ levels instead of ⌈lg p⌉, each receiving up to k − 1 vectors:
//! T = ⌈log_k p⌉(α + (k−1)(o + nβ + nγ)) — fewer latencies where the latency
//! of a message outweighs the per-message work at its receiver (o, the
//! software overhead, is not in fastred's α-β-γ model), i.e. for short
//! vectors on networks whose latency is several hops (SMPI fat tree, 64 ranks,
//! 8 B: 1.9x faster than the binomial tree: docs/smpi.md).
//! Commutative ops only (children arrive in digit order, not rank order).

use super::registry::{not_implemented, Job};
use super::{absolute_rank, relative_rank, Transport};
use crate::collective::Collective;
use crate::error::MpiResult;
use crate::model::{CostModel, Terms};
use crate::op::Reducer;

/// The tree's radix.
pub const RADIX: usize = 4;

/// Reduce `buf` of all processes into `buf` at `root` (commutative ops).
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    let p = t.size();
    let me = relative_rank(t.rank(), root, p);
    let n = buf.len();
    let mut incoming = super::Scratch::empty();
    let mut stride = 1;
    while stride < p {
        let digit = me / stride % RADIX;
        if digit != 0 {
            return t.send(absolute_rank(me - digit * stride, root, p), buf);
        }
        // The children's vectors arrive side by side (all receives posted), then
        // are reduced in digit order.
        let children = (1..RADIX).map(|j| me + j * stride).take_while(|c| *c < p).count();
        incoming.resize(children * n)?;
        let mut sources: [(usize, &mut [u8]); RADIX - 1] = Default::default();
        let mut rest = &mut incoming[..];
        for (j, slot) in sources.iter_mut().take(children).enumerate() {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(n);
            *slot = (absolute_rank(me + (j + 1) * stride, root, p), part);
            rest = tail;
        }
        t.recv_each(&mut sources[..children])?;
        for j in 0..children {
            op.reduce(&incoming[j * n..(j + 1) * n], buf, false)?;
        }
        stride *= RADIX;
    }
    Ok(())
}

/// Registry entry: reduce.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Reduce => reduce(t, op, buf, job.root),
        other => not_implemented("knomial_tree", other),
    }
}

/// ⌈log_k p⌉ levels of α + (k − 1)(nβ + nγ): the root of each level receives
/// its k − 1 children's vectors one after another over one link.
pub fn estimate(_coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    levels(p) as f64 * (x.a + (RADIX - 1) as f64 * x.n * (x.b + x.g))
}

/// On hosts of k consecutive ranks (k a power of two), seen from root 0:
/// the levels whose children lie less than k' = the largest power of
/// [`RADIX`] dividing k away stay within a host, the others are priced
/// between hosts (one sender per group of k'; some of them may still be on
/// one host); so the tree over k' within plus the tree over p/k' groups.
pub fn estimate_in_blocks(coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
    let mut within = 1;
    while k % (within * RADIX) == 0 {
        within *= RADIX;
    }
    estimate(coll, bytes, within, &m.within_host()) + estimate(coll, bytes, hosts * k / within, m)
}

/// ⌈log_k p⌉ (0 for one process).
fn levels(p: usize) -> u32 {
    let (mut levels, mut reach) = (0, 1);
    while reach < p {
        reach *= RADIX;
        levels += 1;
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_the_base_k_logarithm_rounded_up() {
        for (p, l) in [(1, 0), (2, 1), (4, 1), (5, 2), (16, 2), (17, 3), (64, 3), (100, 4), (1024, 5)] {
            assert_eq!(levels(p), l, "p = {p}");
        }
    }
}
