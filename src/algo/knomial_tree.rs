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
use super::{absolute_rank, recv_ranges, relative_rank, Transport};
use crate::collective::Collective;
use crate::error::MpiResult;
use crate::model::{CostModel, Terms};
use crate::op::Reducer;

/// The tree's radix.
pub const RADIX: usize = 4;

/// A process receives the vectors of several levels' children at once while
/// they fit in this many bytes together: every level of a short vector (as
/// MVAPICH2's k-nomial reduce posts all its receives before waiting, so that a
/// child of a higher level that is ready early is not kept waiting for the
/// lower levels: under SMPI, which starts a transfer when its receive is
/// posted, one latency per level), one level at a time for long ones.
const BATCH_BYTES: usize = 256 << 10;

/// The most children a process has: k − 1 per level, at most 32 levels.
const MAX_CHILDREN: usize = (RADIX - 1) * (usize::BITS as usize / 2);

/// Reduce `buf` of all processes into `buf` at `root` (commutative ops).
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    let p = t.size();
    let me = relative_rank(t.rank(), root, p);
    let n = buf.len();
    let mut incoming = super::Scratch::empty();
    let mut stride = 1;
    loop {
        // The next batch of levels: their children (relative ranks, level by
        // level in digit order), and the parent if the batch ends with it.
        let (mut children, mut count, mut parent) = ([0; MAX_CHILDREN], 0, None);
        while stride < p {
            let digit = me / stride % RADIX;
            if digit != 0 {
                parent = Some(me - digit * stride);
                break;
            }
            let level = (1..RADIX).map(|j| me + j * stride).take_while(|c| *c < p);
            if count > 0 && (count + level.clone().count()) * n > BATCH_BYTES {
                break;
            }
            for child in level {
                children[count] = child;
                count += 1;
            }
            stride *= RADIX;
        }
        // The children's vectors arrive side by side (all receives posted),
        // then are reduced level by level, in digit order.
        incoming.resize(count * n)?;
        let sources = children[..count].iter().enumerate().map(|(j, &child)| (absolute_rank(child, root, p), j * n..(j + 1) * n));
        recv_ranges(t, &mut incoming, sources)?;
        for j in 0..count {
            op.reduce(&incoming[j * n..(j + 1) * n], buf, false)?;
        }
        if let Some(parent) = parent {
            return t.send(absolute_rank(parent, root, p), buf);
        }
        if stride >= p {
            return Ok(());
        }
    }
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
