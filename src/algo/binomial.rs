//! Binary (binomial) tree reduce and allreduce, Rabenseifner 2004 §3.3 and
//! Wikipedia, "Reduce (parallel pattern)", *Binomial tree algorithms*: in step k
//! the processes whose (relative) number has bit k set send their partial
//! result to the partner with that bit cleared and drop out. ⌈lg p⌉ steps of
//! full vectors: T = ⌈lg p⌉(α_uni + nβ_uni + nγ), the choice for short vectors.
//! Allreduce adds a binomial-tree broadcast: ⌈lg p⌉(2α_uni + 2nβ_uni + nγ).
//!
//! The tree is the canonical order of [`crate::reproducible`]: for p not a
//! power of two the first 2r ranks first fold in pairs (r = p − 2^⌊lg p⌋;
//! this is the tree's first step, so still ⌈lg p⌉ steps), then the p' = 2^⌊lg p⌋
//! survivors run the binomial tree numbered by XOR with the root's survivor
//! (not by rank − root): every step then combines two aligned, adjacent
//! ranges of ranks, lower on the left. So the reduce keeps rank order for
//! every root (non-commutative ops need no detour through rank 0) and gives
//! the same bits as every other algorithm of `FASTRED_REPRODUCIBLE`.

use super::{absolute_rank, relative_rank, Pairs, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::{not_implemented, Job};
use crate::model::{CostModel, Terms};
use crate::collective::Collective;

/// Reduce `buf` of all processes into `buf` at `root`, in the canonical order.
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    let (p, rank) = (t.size(), t.rank());
    if p <= 1 {
        return Ok(());
    }
    let pairs = Pairs::of(p);
    let removed = pairs.removed;
    // Slot q's process: the pair's root if the root is in it, else its first.
    let process_of = |q: usize| if root < 2 * removed && pairs.slot_of(root) == q { root } else { pairs.first(q) };
    let me = pairs.slot_of(rank);
    let mut incoming = super::Scratch::empty();
    if rank < 2 * removed {
        let partner = rank ^ 1;
        if process_of(me) != rank {
            return t.send(partner, buf);
        }
        incoming.resize(buf.len())?;
        t.recv(partner, &mut incoming)?;
        op.reduce(&incoming, buf, partner < rank)?;
    }
    let relative = me ^ pairs.slot_of(root);
    let mut distance = 1;
    while distance < pairs.pof2 {
        let partner = me ^ distance;
        if relative & distance != 0 {
            return t.send(process_of(partner), buf);
        }
        incoming.resize(buf.len())?;
        t.recv(process_of(partner), &mut incoming)?;
        op.reduce(&incoming, buf, partner < me)?;
        distance <<= 1;
    }
    Ok(())
}

/// Binomial-tree broadcast of `buf` from `root` (the reverse of [`reduce`]).
pub fn broadcast(t: &(impl Transport + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    let p = t.size();
    let me = relative_rank(t.rank(), root, p);
    let mut distance = 1;
    while distance < p {
        if me & distance != 0 {
            t.recv(absolute_rank(me - distance, root, p), buf)?;
            break;
        }
        distance <<= 1;
    }
    distance >>= 1;
    while distance > 0 {
        if me + distance < p {
            t.send(absolute_rank(me + distance, root, p), buf)?;
        }
        distance >>= 1;
    }
    Ok(())
}

/// Allreduce: reduce to rank 0, then broadcast (§3.3).
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8]) -> MpiResult {
    reduce(t, op, buf, 0)?;
    broadcast(t, buf, 0)
}

/// Registry entry: reduce, allreduce (both rank-ordered).
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf),
        Collective::Reduce => reduce(t, op, buf, job.root),
        other => not_implemented("tree", other),
    }
}

/// On hosts of k consecutive ranks, p a power of two: the steps at distance
/// < k (partners r and r XOR d) stay within a host, the lg(hosts) others
/// cross with one sender per host; so the tree over k within a host plus
/// the tree over the hosts. Otherwise (the first step folds pairs) the
/// one-level estimate.
pub fn estimate_in_blocks(coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
    if !(hosts * k).is_power_of_two() {
        return estimate(coll, bytes, hosts * k, m);
    }
    estimate(coll, bytes, k, &m.within_host()) + estimate(coll, bytes, hosts, m)
}

/// §3.3: ⌈lg p⌉(α + nβ + nγ) for reduce; allreduce adds the broadcast.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    match coll {
        Collective::Reduce => x.lg * (x.a + x.n * (x.b + x.g)),
        _ => x.lg * (2.0 * x.a + x.n * (2.0 * x.b + x.g)),
    }
}
