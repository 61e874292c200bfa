//! Pairwise exchange, Rabenseifner 2004 §3.7 (after Thakur & Gropp): a
//! reduce-scatter in which step i sends to rank+i and receives from rank−i,
//! completed by a ring allgather in rank order (allreduce) or by every process
//! sending its result block straight to the root (reduce). Bandwidth-optimal
//! for any p; p−1 latencies per phase. (The `ring` algorithm is the ring for
//! both phases, on the topology's logical ring.) Requires a commutative op
//! (contributions to a block arrive in step order).

use super::ring::{self, RingPosition};
use super::{Blocks, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::Job;
use crate::model::CostModel;
use crate::collective::Collective;

/// Step `step`'s partners: send to rank+step, receive from rank−step.
fn partners(rank: usize, p: usize, step: usize) -> (usize, usize) {
    ((rank + step) % p, (rank + p - step) % p)
}

/// Reduce-scatter by pairwise exchange: in step i = 1..p−1 each process sends
/// its input for block rank+i to process rank+i and reduces the input for its
/// own block received from rank−i. Afterwards block `rank` of `buf` holds the
/// reduced block; the other blocks still hold this process's input.
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], blocks: &Blocks) -> MpiResult {
    let (p, r, e) = (t.size(), t.rank(), op.elem_size());
    let mut incoming = super::scratch(blocks.count(r) * e)?;
    for step in 1..p {
        let (to, from) = partners(r, p, step);
        t.sendrecv(to, &buf[blocks.bytes(to, e)], from, &mut incoming)?;
        op.reduce(&incoming, &mut buf[blocks.bytes(r, e)], from < r)?;
    }
    Ok(())
}

/// The same reduce-scatter reading `input` (never written) and leaving the
/// reduced block in `own`, without copying the input: the first block
/// received goes straight into `own` and the input's own block is folded into
/// it with the operands in the same order as [`reduce_scatter`] (same bits).
pub fn reduce_scatter_into(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: &[u8], own: &mut [u8], blocks: &Blocks) -> MpiResult {
    let (p, r, e) = (t.size(), t.rank(), op.elem_size());
    let mine = &input[blocks.bytes(r, e)];
    if p == 1 {
        super::copy(t, own, mine);
        return Ok(());
    }
    let mut incoming = super::scratch(if p > 2 { own.len() } else { 0 })?;
    for step in 1..p {
        let (to, from) = partners(r, p, step);
        if step == 1 {
            t.sendrecv(to, &input[blocks.bytes(to, e)], from, own)?;
            op.reduce(mine, own, from > r)?;
        } else {
            t.sendrecv(to, &input[blocks.bytes(to, e)], from, &mut incoming)?;
            op.reduce(&incoming, own, from < r)?;
        }
    }
    Ok(())
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
