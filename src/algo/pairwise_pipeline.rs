//! Pipelined pairwise reduce: the pairwise exchange of Rabenseifner 2004 §3.7
//! (after Thakur & Gropp) with the root's share of the work handed to the
//! others, in chunks, so that the root's link carries n bytes each way, as in
//! a pipelined chain, while the vector is combined in the canonical order of
//! [`crate::reproducible`] (the chain's order is a different one).
//!
//! The vector is cut into C chunks, each chunk into p−1 blocks, one per
//! process other than the root (a *worker*). Round c = 0..=C runs the p−1
//! steps of the pairwise exchange (step i: send to rank+i, receive from
//! rank−i): a worker sends every other worker its input for their block of
//! chunk c and receives theirs for its own block; the root sends each worker
//! its input for the worker's block; and a message that would go to the root
//! carries instead the sender's finished block of chunk c−1. After the round
//! each worker combines the p contributions to its block of chunk c in the
//! canonical order. Cost: (C+1)(p−1)α + (1 + 1/C)nβ + nγ (a worker combines
//! p contributions of n/((p−1)C) bytes per round); C = √(nβ / ((p−1)α))
//! minimises it, and chunks stay within 64 KiB (measured).

use super::pairwise::partners;
use super::registry::{not_implemented, Job};
use super::{Blocks, Transport};
use crate::collective::Collective;
use crate::error::MpiResult;
use crate::model::CostModel;
use crate::op::Reducer;
use std::ops::Range;

/// The chunks and the workers' blocks within them.
struct Layout {
    chunks: Blocks,
    workers: usize,
    root: usize,
    elem: usize,
}

impl Layout {
    /// Worker number of a rank other than the root.
    fn worker(&self, rank: usize) -> usize {
        rank - usize::from(rank > self.root)
    }

    /// Bytes of worker `w`'s block of chunk `c` (empty outside 0..C).
    fn block(&self, c: usize, w: usize) -> Range<usize> {
        if c >= self.chunks.len() {
            return 0..0;
        }
        let inner = Blocks::even(self.chunks.count(c), self.workers);
        let base = self.chunks.offset(c);
        (base + inner.offset(w)) * self.elem..(base + inner.offset(w + 1)) * self.elem
    }
}

/// Reduce `buf` of all processes into `buf` at `root`, in `chunks` chunks.
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize, chunks: usize) -> MpiResult {
    let (p, rank, elem) = (t.size(), t.rank(), op.elem_size());
    if p == 1 {
        return Ok(());
    }
    let n = buf.len() / elem;
    let layout = Layout { chunks: Blocks::even(n, chunks.clamp(1, n.max(1))), workers: p - 1, root, elem };
    let rounds = layout.chunks.len();
    let largest = layout.block(0, 0).len();
    let mut parts = super::scratch(if rank == root { 0 } else { p * largest })?;
    let mut finished = super::scratch(if rank == root { 0 } else { largest })?;
    let mut finished_len = 0;
    for c in 0..=rounds {
        let own = if rank == root { 0..0 } else { layout.block(c, layout.worker(rank)) };
        let slot = own.len();
        if rank != root {
            super::copy(t, &mut parts[rank * slot..(rank + 1) * slot], &buf[own.clone()]);
        }
        for step in 1..p {
            let (to, from) = partners(rank, p, step);
            if rank == root {
                // Inputs of chunk c out, finished blocks of chunk c−1 in (disjoint: different chunks).
                let (out, into) = (layout.block(c, layout.worker(to)), c.checked_sub(1).map_or(0..0, |d| layout.block(d, layout.worker(from))));
                let (out, into) = super::split_read_write(buf, out, into);
                t.sendrecv(to, out, from, into)?;
            } else {
                let out = if to == root { &finished[..finished_len] } else { &buf[layout.block(c, layout.worker(to))] };
                t.sendrecv(to, out, from, &mut parts[from * slot..(from + 1) * slot])?;
            }
        }
        if rank != root && c < rounds {
            crate::reproducible::combine_in_order(op, &mut parts[..p * slot], p, slot)?;
            super::copy(t, &mut finished[..slot], &parts[..slot]);
            finished_len = slot;
        }
    }
    Ok(())
}

/// Chunks of at most this many bytes: on the emulated cluster (50 Mbit/s,
/// p = 4, 4 MiB) 64 KiB chunks took 0.73 s, the model's 280 KiB 1.13 s and
/// 1 MiB 1.63 s (docs/reproducible.md): smaller steps keep the exchange's
/// changing partners from queueing behind each other.
pub const LARGEST_CHUNK: usize = 64 << 10;

/// The model's number of chunks, √(nβ / ((p−1)α)), or more to keep chunks
/// within [`LARGEST_CHUNK`].
pub fn chunk_count(bytes: usize, p: usize, model: &CostModel) -> usize {
    let modelled = super::streaming::optimal_segments(1.0, p.saturating_sub(1).max(1) as f64, bytes, model);
    modelled.max(bytes.div_ceil(LARGEST_CHUNK))
}

/// Registry entry: reduce (chunks of about `FASTRED_SEGMENT` bytes, else the model's).
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Reduce => {
            let chunks = match job.segment_bytes {
                Some(s) => buf.len().div_ceil(s.max(1)),
                None => chunk_count(buf.len(), t.size(), job.model),
            };
            reduce(t, op, buf, job.root, chunks)
        }
        other => not_implemented("pairwise_pipeline", other),
    }
}

/// (C+1)(p−1)α + (1 + 1/C)nβ + nγ with the model's C.
pub fn estimate(_coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let c = chunk_count(bytes, p, m) as f64;
    let n = bytes as f64;
    (c + 1.0) * (p as f64 - 1.0) * m.alpha + (1.0 + 1.0 / c) * n * m.beta + n * m.gamma
}
