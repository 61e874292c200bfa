//! Recursive-halving reduce-scatter for `MPI_Reduce_scatter(_block)` (any block
//! sizes, result in rank order): Rabenseifner 2004 §3.5 footnote 1 and Thakur &
//! Gropp. Distance *halving* (partners at p'/2, p'/4, …, 1) keeps, in every
//! step, the half of the current window that contains this process's own
//! blocks, so each process ends with its own block and no final permutation is
//! needed (the distance-doubling variant of §3.5 ends with a bit-reversed
//! order). For p not a power of two, the first 2r processes (r = p − p') fold
//! pairwise first: rank 2i hands its whole vector to 2i+1, which then works for
//! both, and finally returns block 2i. Cost: lg p' α + (1 − 1/p')nβ(+γ), plus
//! α + nβ and α for the fold when p is not a power of two.

use super::{Blocks, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::halving_groups::Slots;
use super::registry::{not_implemented, Job};
use crate::model::{CostModel, Terms};
use crate::collective::Collective;

/// The process that works for slot `slot` (the odd rank of a pair: see
/// [`Slots`] for the slots).
fn process(slots: &Slots, slot: usize) -> usize {
    if slot < slots.pairs.removed { 2 * slot + 1 } else { slot + slots.pairs.removed }
}

/// On return block `rank` of `buf` holds the reduction of block `rank` of all
/// inputs (the rest of `buf` is scratch).
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], blocks: &Blocks) -> MpiResult {
    let (p, rank, esz) = (t.size(), t.rank(), op.elem_size());
    if p == 1 {
        return Ok(());
    }
    let slots = Slots::new(blocks, p);
    let me = if rank < 2 * slots.pairs.removed {
        if rank % 2 == 0 {
            t.send(rank + 1, buf)?;
            return t.recv(rank + 1, &mut buf[blocks.bytes(rank, esz)]);
        }
        let mut incoming = super::scratch(buf.len())?;
        t.recv(rank - 1, &mut incoming)?;
        op.reduce(&incoming, buf, true)?;
        rank / 2
    } else {
        rank - slots.pairs.removed
    };

    let (mut lo, mut hi) = (0, slots.pairs.pof2);
    let mut incoming = super::Scratch::empty();
    let mut distance = slots.pairs.pof2 / 2;
    while distance > 0 {
        let partner = me ^ distance;
        let mid = lo + (hi - lo) / 2;
        let (keep, give) = if me < mid { ((lo, mid), (mid, hi)) } else { ((mid, hi), (lo, mid)) };
        let keep_bytes = slots.bytes_of_slots(keep.0, keep.1, esz);
        incoming.resize(keep_bytes.len())?;
        let peer = process(&slots, partner);
        super::exchange_and_fold(t, op, buf, slots.bytes_of_slots(give.0, give.1, esz), peer, keep_bytes, peer, &mut incoming, partner < me)?;
        (lo, hi) = keep;
        distance /= 2;
    }
    if me < slots.pairs.removed {
        t.send(rank - 1, &buf[blocks.bytes(rank - 1, esz)])?;
    }
    Ok(())
}

/// Registry entry: the reduce-scatters.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::ReduceScatter | Collective::ReduceScatterBlock => reduce_scatter(t, op, buf, job.blocks),
        other => not_implemented("recursive_halving", other),
    }
}

/// ⌈lg p⌉ rounds moving (1 − 1/p)n, plus the fold for p ≠ 2^k.
pub fn estimate(_coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    x.lg * x.a + x.frac * x.n * (x.b + x.g) + x.extra * (x.a + x.n * x.b)
}
