//! Pairwise exchange, Rabenseifner 2004 §3.7 (after Thakur & Gropp): a
//! reduce-scatter in which step i sends to rank+i and receives from rank−i,
//! completed by a ring allgather in rank order (allreduce) or by every process
//! sending its result block straight to the root (reduce). Bandwidth-optimal
//! for any p; p−1 latencies per phase. (The `ring` algorithm is the ring for
//! both phases, on the topology's logical ring.) Each process keeps the
//! contributions to its block as they arrive and combines them in the
//! canonical order of [`crate::reproducible`] (at the cost of a buffer of n
//! bytes rather than n/p), so it computes `FASTRED_REPRODUCIBLE`'s bits, for
//! any p, with the bandwidth of the ring.

use super::ring::{self, RingPosition};
use super::{Blocks, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::Job;
use crate::model::CostModel;
use crate::collective::Collective;

/// Step `step`'s partners: send to rank+step, receive from rank−step.
pub(crate) fn partners(rank: usize, p: usize, step: usize) -> (usize, usize) {
    ((rank + step) % p, (rank + p - step) % p)
}

/// Reduce-scatter by pairwise exchange: in step i = 1..p−1 each process sends
/// its input for block rank+i to process rank+i and receives the input for
/// its own block from rank−i. Afterwards block `rank` of `buf` holds the
/// reduced block; the other blocks still hold this process's input.
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], blocks: &Blocks) -> MpiResult {
    let (p, own) = (t.size(), blocks.bytes(t.rank(), op.elem_size()));
    if p == 2 {
        // One contribution to fold in, and x0 ⊕ x1 is the only order of two: no buffer.
        let mut incoming = super::scratch(own.len())?;
        let other = 1 - t.rank();
        return super::exchange_and_fold(t, op, buf, blocks.bytes(other, op.elem_size()), other, own, other, &mut incoming, other == 0);
    }
    let parts = exchange_and_combine(t, op, buf, blocks)?;
    super::copy(t, &mut buf[own.clone()], &parts[..own.len()]);
    Ok(())
}

/// The same reduce-scatter reading `input` (never written) and leaving the
/// reduced block in `own` (same bits).
pub fn reduce_scatter_into(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: &[u8], own: &mut [u8], blocks: &Blocks) -> MpiResult {
    let (p, r, e) = (t.size(), t.rank(), op.elem_size());
    if p == 2 {
        // Receive straight into `own` and fold the input's own block in.
        t.sendrecv(1 - r, &input[blocks.bytes(1 - r, e)], 1 - r, own)?;
        return op.reduce(&input[blocks.bytes(r, e)], own, r == 0);
    }
    let parts = exchange_and_combine(t, op, input, blocks)?;
    super::copy(t, own, &parts[..own.len()]);
    Ok(())
}

/// The exchange: every contribution to this process's block lands in its
/// slot (by source rank) of the returned buffer, and they are combined in the
/// canonical order of [`crate::reproducible`] (so the pairwise exchange gives
/// FASTRED_REPRODUCIBLE's bits); the result is in the first slot.
fn exchange_and_combine(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: &[u8], blocks: &Blocks) -> MpiResult<super::Scratch> {
    let (p, r, e) = (t.size(), t.rank(), op.elem_size());
    let slot = blocks.count(r) * e;
    let mut parts = super::scratch(p * slot)?;
    super::copy(t, &mut parts[r * slot..(r + 1) * slot], &input[blocks.bytes(r, e)]);
    for step in 1..p {
        let (to, from) = partners(r, p, step);
        t.sendrecv(to, &input[blocks.bytes(to, e)], from, &mut parts[from * slot..(from + 1) * slot])?;
    }
    crate::reproducible::combine_in_order(op, &mut parts, p, slot)?;
    Ok(parts)
}

/// Ring allgather (§3.2): in step i each process passes block rank−i to its
/// right neighbour and receives block rank−i−1 from its left neighbour (the
/// logical ring of [`ring`] in rank order).
pub fn allgather(t: &(impl Transport + ?Sized), buf: &mut [u8], blocks: &Blocks, elem: usize) -> MpiResult {
    let order = ring::rank_order(t.size());
    ring::allgather(t, buf, &blocks.byte_ranges(elem), &RingPosition::of(&order, t.rank()))
}

/// Allreduce: pairwise-exchange reduce-scatter over p nearly equal blocks, then
/// ring allgather. Each block is reduced by exactly one process, so every rank
/// ends with bit-identical data. Cost (§3.7): 2(p−1)α + 2nβ + nγ − (2nβ + nγ)/p.
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8]) -> MpiResult {
    let blocks = Blocks::even(buf.len() / op.elem_size(), t.size());
    reduce_scatter(t, op, buf, &blocks)?;
    allgather(t, buf, &blocks, op.elem_size())
}

/// Reduce: pairwise-exchange reduce-scatter, then each process sends its
/// result block directly to `root` (§3.7). The result is in `buf` at `root`.
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
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

/// Registry entry: all four collectives.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf),
        Collective::Reduce => reduce(t, op, buf, job.root),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => reduce_scatter(t, op, buf, job.blocks),
    }
}

/// Registry entry with a separate input: allreduce (the reduce-scatter reads
/// the input, the allgather runs in `output`) and the reduce-scatters.
pub fn run_from(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    let (r, e) = (t.rank(), op.elem_size());
    match job.coll {
        Collective::Allreduce => {
            let blocks = Blocks::even(input.len() / e, t.size());
            reduce_scatter_into(t, op, input, &mut output[blocks.bytes(r, e)], &blocks)?;
            allgather(t, output, &blocks, e)
        }
        Collective::Reduce => super::registry::not_implemented("pairwise (separate input)", job.coll),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => reduce_scatter_into(t, op, input, output, job.blocks),
    }
}

/// The ring's cost (§3.7): p − 1 steps per phase, the same terms.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    ring::estimate(coll, bytes, p, m)
}
