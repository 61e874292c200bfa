//! Ring algorithms, Rabenseifner 2004 §3.2 ("Ring algorithms") and §3.7 (after
//! Thakur & Gropp): a reduce-scatter by *pairwise exchange*, completed by a ring
//! allgather (allreduce) or by every process sending its result block straight
//! to the root (reduce). Bandwidth-optimal for any p; p−1 latencies per phase.
//! Requires a commutative op (contributions to a block arrive in ring order).

use super::topo_ring::{self, RingPosition};
use super::{Blocks, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;

/// Reduce-scatter by pairwise exchange: in step i = 1..p−1 each process sends
/// its input for block rank+i to process rank+i and reduces the input for its
/// own block received from rank−i. Afterwards block `rank` of `buf` holds the
/// reduced block; the other blocks still hold this process's input.
pub fn reduce_scatter(t: &impl Transport, op: &impl Reducer, buf: &mut [u8], blocks: &Blocks) -> MpiResult {
    let (p, r, e) = (t.size(), t.rank(), op.elem_size());
    let mut incoming = super::scratch(blocks.count(r) * e)?;
    for step in 1..p {
        let to = (r + step) % p;
        let from = (r + p - step) % p;
        t.sendrecv(to, &buf[blocks.bytes(to, e)], from, &mut incoming)?;
        op.reduce(&incoming, &mut buf[blocks.bytes(r, e)], from < r)?;
    }
    Ok(())
}

/// Ring allgather (§3.2): in step i each process passes block rank−i to its
/// right neighbour and receives block rank−i−1 from its left neighbour (the
/// logical ring of [`topo_ring`] in rank order).
pub fn allgather(t: &impl Transport, buf: &mut [u8], blocks: &Blocks, elem: usize) -> MpiResult {
    let order = topo_ring::rank_order(t.size());
    topo_ring::allgather(t, buf, &blocks.byte_ranges(elem), &RingPosition::of(&order, t.rank()))
}

/// Allreduce: pairwise-exchange reduce-scatter over p nearly equal blocks, then
/// ring allgather. Each block is reduced by exactly one process, so every rank
/// ends with bit-identical data. Cost (§3.7): 2(p−1)α + 2nβ + nγ − (2nβ + nγ)/p.
pub fn allreduce(t: &impl Transport, op: &impl Reducer, buf: &mut [u8]) -> MpiResult {
    let blocks = Blocks::even(buf.len() / op.elem_size(), t.size());
    reduce_scatter(t, op, buf, &blocks)?;
    allgather(t, buf, &blocks, op.elem_size())
}

/// Reduce: pairwise-exchange reduce-scatter, then each process sends its
/// result block directly to `root` (§3.7). The result is in `buf` at `root`.
pub fn reduce(t: &impl Transport, op: &impl Reducer, buf: &mut [u8], root: usize) -> MpiResult {
    let (p, r, e) = (t.size(), t.rank(), op.elem_size());
    let blocks = Blocks::even(buf.len() / e, p);
    reduce_scatter(t, op, buf, &blocks)?;
    if r == root {
        for from in (0..p).filter(|&q| q != root) {
            t.recv(from, &mut buf[blocks.bytes(from, e)])?;
        }
        Ok(())
    } else {
        t.send(root, &buf[blocks.bytes(r, e)])
    }
}
