//! Binary (binomial) tree reduce and allreduce, Rabenseifner 2004 §3.3 and
//! Wikipedia, "Reduce (parallel pattern)", *Binomial tree algorithms*: in step k
//! the processes whose relative rank has bit k set send their partial result to
//! the partner with that bit cleared and drop out. ⌈lg p⌉ steps of full
//! vectors: T = ⌈lg p⌉(α_uni + nβ_uni + nγ), the choice for short vectors.
//! Allreduce adds a binomial-tree broadcast: ⌈lg p⌉(2α_uni + 2nβ_uni + nγ).
//!
//! Combining is rank-ordered (left operand = lower ranks) when the tree is
//! rooted at rank 0, so [`reduce_in_rank_order`] and [`allreduce`] serve
//! non-commutative ops.

use super::{absolute_rank, relative_rank, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::{not_implemented, Job};
use crate::model::{CostModel, Terms};
use crate::collective::Collective;

/// Reduce `buf` of all processes into `buf` at `root` (tree rooted at `root`:
/// rank order only relative to the root, so for commutative ops).
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    let p = t.size();
    let me = relative_rank(t.rank(), root, p);
    let mut incoming = super::Scratch::empty();
    let mut distance = 1;
    while distance < p {
        if me & distance != 0 {
            return t.send(absolute_rank(me - distance, root, p), buf);
        }
        let child = me + distance;
        if child < p {
            incoming.resize(buf.len())?;
            t.recv(absolute_rank(child, root, p), &mut incoming)?;
            op.reduce(&incoming, buf, false)?;
        }
        distance <<= 1;
    }
    Ok(())
}

/// Reduce in rank order for any associative op: tree rooted at rank 0, then
/// one more message to `root` if it is not rank 0.
pub fn reduce_in_rank_order(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    reduce(t, op, buf, 0)?;
    match t.rank() {
        _ if root == 0 => Ok(()),
        0 => t.send(root, buf),
        r if r == root => t.recv(0, buf),
        _ => Ok(()),
    }
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

/// Allreduce: rank-ordered reduce to rank 0, then broadcast (§3.3).
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8]) -> MpiResult {
    reduce(t, op, buf, 0)?;
    broadcast(t, buf, 0)
}

/// Registry entry: reduce (rank-ordered for non-commutative ops), allreduce.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf),
        Collective::Reduce if job.commutative => reduce(t, op, buf, job.root),
        Collective::Reduce => reduce_in_rank_order(t, op, buf, job.root),
        other => not_implemented("tree", other),
    }
}

/// §3.3: ⌈lg p⌉(α + nβ + nγ) for reduce; allreduce adds the broadcast.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    match coll {
        Collective::Reduce => x.lg * (x.a + x.n * (x.b + x.g)),
        _ => x.lg * (2.0 * x.a + x.n * (2.0 * x.b + x.g)),
    }
}
