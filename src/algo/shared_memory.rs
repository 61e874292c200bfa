//! Reductions through memory shared by all ranks of one host (issue 11 §3:
//! the intra-node phase as the libraries that beat point-to-point within a
//! node do it: Open MPI's coll/sm and xhc, MVAPICH2's shmem collectives;
//! Graham & Shipman, "MPI support for multi-core architectures", 2008).
//!
//! The vector goes in rounds of one slot of the [`Segment`]. In each round
//! every rank copies its part of the input into its slot and marks it
//! arrived; once all have arrived, the reduced elements are computed straight
//! from the slots, in the canonical order of [`crate::reproducible`]
//! ([`combine_sources_in_order`]), so every rank gets the same bits, the
//! order suits non-commutative ops, and `FASTRED_REPRODUCIBLE` may use it:
//!
//! - short rounds (one phase): the ranks that need the result each combine
//!   all p slots themselves (allreduce: all; reduce: the root, while the
//!   others publish and go on, as an eager send would); one synchronisation,
//!   p·n bytes read per rank;
//! - long rounds (two phases): each rank combines 1/p of the round into the
//!   shared results, then the ranks that need the result copy it out (a
//!   reduce-scatter and an allgather in memory); two synchronisations, n bytes
//!   read and n/p reduced per rank;
//! - reduce-scatter: each rank combines its own block, straight into its
//!   output (one phase).
//!
//! Cost per round of s bytes (α, β of memory within the host): one phase
//! α + s·β + (p−1)·s·(β + γ); two phases 2α + (2 + (p−1)/p)·s·β + (p−1)/p·s·γ.

use super::registry::Job;
use super::{scratch, Blocks, Scratch, Transport};
use crate::collective::Collective;
use crate::error::{MpiError, MpiResult};
use crate::model::CostModel;
use crate::op::Reducer;
use crate::reproducible::{combine_sources_in_order, temps_needed};
use crate::shm::{Flag, Segment, DATA_AT, FAILED};
use std::ops::Range;

/// Bytes of a segment's slot (the longest round) for `ranks` ranks: the
/// segment (2p + 1 slots) is kept near 16 MiB, slots between 4 KiB and
/// 256 KiB. (Its pages are allocated as rounds first need them.)
pub fn slot_bytes(ranks: usize) -> usize {
    ((16 << 20) / (2 * ranks + 1)).clamp(MIN_SLOT, 256 << 10) / 64 * 64
}

/// The smallest slot: elements longer than this are left to other algorithms.
pub const MIN_SLOT: usize = 4 << 10;

/// Bytes a rank may read from the others' slots in a one-phase round.
const ONE_PHASE_READS: usize = 4 << 10;

/// Whether a round of `len` bytes on `p` ranks goes in one phase: every
/// reader combines all p slots, so only while that reads little (at p = 2,
/// rounds up to 4 KiB; at 64, up to 65 bytes).
pub fn one_phase(len: usize, p: usize) -> bool {
    len * p.saturating_sub(1) <= ONE_PHASE_READS
}

/// A call's input, where the caller holds it.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    /// A buffer of its own (never written).
    Separate(&'a [u8]),
    /// The output buffer itself (each round reads its byte range there
    /// before writing it).
    InOutput,
}

pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    on_transport(t, op, Input::InOutput, buf, 0, job)
}

/// Allreduce and the reduce-scatters from a separate send buffer: the input
/// is read where it is, and `output` is the whole vector (allreduce) or this
/// rank's block.
pub fn run_from(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    let at = match job.coll {
        Collective::ReduceScatter | Collective::ReduceScatterBlock => job.blocks.offset(t.rank()) * op.elem_size(),
        _ => 0,
    };
    on_transport(t, op, Input::Separate(input), output, at, job)
}

fn on_transport(t: &dyn Transport, op: &dyn Reducer, input: Input, out: &mut [u8], out_at: usize, job: &Job) -> MpiResult {
    let Some(segment) = t.shared_memory() else {
        log::error!("internal error: shared_memory chosen without a shared segment");
        return Err(MpiError::Internal);
    };
    debug_assert_eq!(segment.ranks(), t.size());
    let call = Rounds { segment, rank: t.rank(), coll: job.coll, root: job.root, blocks: job.blocks };
    t.note_copy(call.run(op, input, out, out_at)?);
    Ok(())
}

/// One call, in rounds of a slot (dispatch runs repeats of short calls
/// through this directly, on the user's buffers).
pub struct Rounds<'a> {
    pub segment: &'a Segment,
    pub rank: usize,
    pub coll: Collective,
    /// Reduce: the root.
    pub root: usize,
    /// Reduce-scatter: the blocks (other collectives: the vector is the input).
    pub blocks: &'a Blocks,
}

impl Rounds<'_> {
    /// Run the call; `out` holds the vector's bytes from `out_at` on: the
    /// whole vector for allreduce and at the root of a reduce (elsewhere it
    /// may be empty), this rank's block or the whole vector for a
    /// reduce-scatter. Returns the bytes copied.
    pub fn run(&self, op: &dyn Reducer, input: Input, out: &mut [u8], out_at: usize) -> MpiResult<usize> {
        let (segment, me, p, esz) = (self.segment, self.rank, self.segment.ranks(), op.elem_size());
        let scatters = matches!(self.coll, Collective::ReduceScatter | Collective::ReduceScatterBlock);
        let total = match input {
            _ if scatters => self.blocks.total() * esz,
            Input::Separate(i) => i.len(),
            Input::InOutput => out.len(),
        };
        let result_here = !scatters && (self.coll == Collective::Allreduce || me == self.root);
        if !scatters && total <= segment.slot_bytes() && one_phase(total, p) && temps_needed(p) == 0 {
            return self.short(op, input, out, total, result_here);
        }
        let chunk = segment.slot_bytes() / esz * esz;
        if chunk == 0 {
            log::error!("internal error: shared_memory chosen for {esz}-byte elements");
            return Err(MpiError::Internal);
        }
        let mut temps = match temps_needed(p) {
            0 => Scratch::empty(),
            k => scratch(k * chunk.min(total))?,
        };
        let mine = if scatters { self.blocks.bytes(me, esz) } else { 0..0 };
        let stamp = self.stamp(total);
        let mut copied = 0;
        for start in (0..total).step_by(chunk) {
            let round = segment.next_round(me);
            let span = start..(start + chunk).min(total);
            let len = span.len();
            let two_phase = !scatters && !one_phase(len, p);
            match input {
                Input::Separate(i) => self.publish(round, stamp, &i[span.clone()])?,
                Input::InOutput => self.publish(round, stamp, &out[span.start - out_at..span.end - out_at])?,
            }
            copied += len;
            if !(scatters || two_phase || result_here || total > chunk) {
                continue; // a reduce of one short round: only the root reads it
            }
            self.arrived(round, stamp)?;
            // `range` (bytes within the round) of every rank's input, combined into `dst`.
            let mut combine = |range: Range<usize>, dst: &mut [u8]| {
                let source = |r: usize| &segment.input(round, r, len)[range.clone()];
                combine_sources_in_order(op, p, &source, dst, &mut temps)
            };
            if scatters {
                let own = span.start.max(mine.start)..span.end.min(mine.end);
                if !own.is_empty() {
                    combine(own.start - span.start..own.end - span.start, &mut out[own.start - out_at..own.end - out_at])?;
                }
            } else if !two_phase {
                if result_here {
                    combine(0..len, &mut out[span.start - out_at..span.end - out_at])?;
                }
            } else {
                let share = share_of(me, p, len, esz);
                let mut written = Ok(());
                segment.write_results(me, round, share.clone(), |part| written = combine(share, part));
                written?;
                if result_here {
                    segment.wait_all(Flag::Done, round);
                    out[span.start - out_at..span.end - out_at].copy_from_slice(segment.results(len));
                    copied += len;
                }
            }
        }
        Ok(copied)
    }
}

impl Rounds<'_> {
    /// An allreduce or reduce of one short round on fewer than 4 ranks (the
    /// canonical order then needs no scratch): the latency-bound case,
    /// without the round loop.
    fn short(&self, op: &dyn Reducer, input: Input, out: &mut [u8], total: usize, result_here: bool) -> MpiResult<usize> {
        let segment = self.segment;
        let (round, stamp) = (segment.next_round(self.rank), self.stamp(total));
        match input {
            Input::Separate(i) => self.publish(round, stamp, i)?,
            Input::InOutput => self.publish(round, stamp, &out[..total])?,
        }
        if result_here {
            self.arrived(round, stamp)?;
            combine_sources_in_order(op, segment.ranks(), &|r| segment.input(round, r, total), &mut out[..total], &mut [])?;
        }
        Ok(total)
    }

    /// What every rank must pass alike: the collective, the vector's bytes,
    /// a reduce's root (never [`FAILED`]).
    fn stamp(&self, total: usize) -> u64 {
        let root = if self.coll == Collective::Reduce { self.root as u64 } else { 0 };
        ((total as u64) << 24 ^ root << 4 ^ self.coll as u64) & (u64::MAX >> 1)
    }

    /// Publish this rank's `data` of `round` with `stamp`, once every rank
    /// has arrived in the round before (the slot held round − 2, which they
    /// have all finished then). A rank that cannot allocate the memory
    /// publishes [`FAILED`] instead, so that the others stop too.
    fn publish(&self, round: u64, stamp: u64, data: &[u8]) -> MpiResult {
        let (segment, me) = (self.segment, self.rank);
        segment.wait_all(Flag::Arrived, round - 1);
        if let Err(e) = segment.reserve(me, data.len()) {
            log::error!("shared memory: {} bytes could not be allocated: {e}", data.len());
            segment.publish(me, round, FAILED, &[]);
            return Err(MpiError::NoMemory);
        }
        segment.publish(me, round, stamp, data);
        Ok(())
    }

    /// Wait until every rank has published `round`, and check they run the
    /// same call: ranks that disagree on its size (or a reduce's root) get
    /// `MPI_ERR_TRUNCATE`, as from the libraries, and all readers stop in
    /// the same round (every rank reads the first round of a call longer
    /// than one short round), so the segment stays in step.
    fn arrived(&self, round: u64, stamp: u64) -> MpiResult {
        self.segment.wait_all(Flag::Arrived, round);
        self.segment.stamps_agree(round, stamp).map_err(|(r, theirs)| {
            if theirs == FAILED {
                log::error!("shared memory: rank {r} could not allocate its part of a round");
                MpiError::Internal
            } else {
                log::error!("shared memory: rank {r} runs a call of another size or root than rank {} (stamps {theirs:#x}, {stamp:#x})", self.rank);
                MpiError::Code(crate::mpi::class::truncate())
            }
        })
    }
}

/// Rank `r`'s share of a `len`-byte round in the two-phase scheme: 1/p of its
/// elements.
fn share_of(r: usize, p: usize, len: usize, esz: usize) -> Range<usize> {
    let elems = len / esz;
    (r * elems / p * esz)..((r + 1) * elems / p * esz)
}

/// Rounds of `bytes` on `p` ranks, each a slot of its class (the
/// module's formulas; α, β those of memory within the host).
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let slot = slot_bytes(p) - DATA_AT;
    let (n, pf) = (bytes as f64, p as f64);
    let rounds = bytes.div_ceil(slot).max(1) as f64;
    let publish = rounds * m.alpha + n * m.beta;
    match coll {
        Collective::ReduceScatter | Collective::ReduceScatterBlock => publish + (pf - 1.0) * n / pf * (m.beta + m.gamma),
        _ if one_phase(slot.min(bytes), p) => publish + (pf - 1.0) * n * (m.beta + m.gamma),
        _ => publish + rounds * m.alpha + (1.0 + (pf - 1.0) / pf) * n * m.beta + (pf - 1.0) / pf * n * m.gamma,
    }
}
