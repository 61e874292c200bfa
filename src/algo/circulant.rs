//! Circulant-graph reduce-scatter, allreduce and reduce, after Träff, "Optimal,
//! Non-pipelined Reduce-scatter and Allreduce Algorithms" (2025).
//!
//! Algorithm 1 (reduce-scatter): process r keeps R[i], the partial result for
//! block (r+i) mod p, as one rotated copy of its vector. With skips obtained by
//! halving p and rounding up (s', s ← s, ⌈s/2⌉), each round sends R[s..s'−1] to
//! (r+s) mod p, receives s'−s blocks from (r−s) mod p and reduces them into
//! R[0..s'−s−1] in one bulk operation. ⌈lg p⌉ rounds; every process sends,
//! receives and reduces exactly p−1 blocks (Theorem 1), for equal or irregular
//! blocks alike (Corollary 3). Algorithm 2 (allreduce) adds the allgather that
//! replays the skips in reverse: 2⌈lg p⌉ rounds, 2(p−1) blocks (Theorem 2).
//! Any other decreasing skip sequence ending in 1 with s' ≤ 2s in every round
//! and every 0 < i < p a sum of distinct skips works too (Corollary 2): see
//! [`Skips`]. The reductions are not in rank order: commutative ops only.
//!
//! Reduce is the reduce-scatter followed by a binomial-tree gather of the
//! blocks to the root (⌈lg p⌉ more rounds, (1 − 1/p)n into the root), chosen
//! over sending p−1 blocks straight to the root (p−1 latencies there).

use super::{absolute_rank, relative_rank, split_read_write, Blocks, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::Job;
use crate::scratch::Pooled;
use crate::model::{CostModel, Terms};
use crate::collective::Collective;

/// Which skip sequence to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkipKind {
    /// Halve p and round up (Algorithm 1): ⌈lg p⌉ rounds.
    Halving,
    /// Straight powers of two 2^(q−1), …, 2, 1 (Corollary 2).
    PowersOfTwo,
    /// p−1, p−2, …, 1: the fully connected graph, p−1 rounds of one block.
    Linear,
    /// Multiples of ⌈√p⌉ then ⌈√p⌉−1, …, 1: about 2√p rounds.
    Sqrt,
}

/// A skip sequence s_0 > s_1 > … > s_{q−1} = 1 for p processes. Round k sends
/// the partial results R[s_k .. s_{k−1} − 1] (with s_{−1} = p).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skips {
    p: usize,
    skips: Pooled<usize>,
}

impl Skips {
    pub fn new(kind: SkipKind, p: usize) -> Skips {
        let skips = match kind {
            SkipKind::Halving => std::iter::successors(Some(p), |&s| (s > 1).then(|| s.div_ceil(2))).skip(1).collect(),
            SkipKind::PowersOfTwo => {
                let q = if p <= 1 { 0 } else { (p - 1).ilog2() + 1 };
                (0..q).rev().map(|k| 1 << k).collect()
            }
            SkipKind::Linear => (1..p).rev().collect(),
            SkipKind::Sqrt => {
                let b = (1..).find(|b: &usize| b * b >= p).unwrap_or(1);
                let multiples: Pooled<usize> = (1..).map(|m| m * b).take_while(|&s| s < p).collect();
                multiples.iter().rev().copied().chain((1..b.min(p)).rev()).collect()
            }
        };
        let s = Skips { p, skips };
        debug_assert!(s.is_valid(), "{kind:?} skips for p={p}: {:?}", s.skips);
        s
    }

    /// The skips s_0, s_1, …
    pub fn as_slice(&self) -> &[usize] {
        &self.skips
    }

    /// (s', s) per round: s' is the previous skip (p for the first round).
    pub fn rounds(&self) -> impl DoubleEndedIterator<Item = (usize, usize)> + '_ {
        (0..self.skips.len()).map(|k| (if k == 0 { self.p } else { self.skips[k - 1] }, self.skips[k]))
    }

    /// Decreasing to 1, s' ≤ 2s in every round (the received blocks fit in
    /// R[0..s−1]), and every 0 < i < p a sum of distinct skips (Corollary 2).
    pub fn is_valid(&self) -> bool {
        if self.p <= 1 {
            return self.skips.is_empty();
        }
        let decreasing = self.skips.windows(2).all(|w| w[0] > w[1]) && self.skips.last() == Some(&1);
        let fits = self.rounds().all(|(s_prev, s)| s_prev <= 2 * s);
        let mut reachable = vec![false; self.p];
        reachable[0] = true;
        for &s in self.skips.iter() {
            for i in (s..self.p).rev() {
                reachable[i] |= reachable[i - s];
            }
        }
        decreasing && fits && reachable.iter().all(|&x| x)
    }
}

/// Process `rank`'s rotated view of the blocks: R[i] is block (rank+i) mod p.
/// The blocks lie in rank order, so R[0..p−rank] is the natural vector from
/// block `rank` on and R[p−rank..p] its start: offsets are computed, not
/// stored, and a rotation is at most two copies, whatever p (a copy per
/// block cost about 0.1 ms a call at p = 4096, `examples/cpu_per_call.rs`).
struct Rotated<'b> {
    blocks: &'b Blocks,
    rank: usize,
    elem: usize,
}

impl<'b> Rotated<'b> {
    fn new(blocks: &'b Blocks, rank: usize, elem: usize) -> Rotated<'b> {
        Rotated { blocks, rank, elem }
    }

    /// Where R[i] starts, in elements of the rotated vector (i ≤ p).
    fn start(&self, i: usize) -> usize {
        let (b, p) = (self.blocks, self.blocks.len());
        let base = b.offset(self.rank);
        if self.rank + i <= p { b.offset(self.rank + i) - base } else { b.total() - base + b.offset(self.rank + i - p) }
    }

    /// Bytes of R[first..last].
    fn range(&self, first: usize, last: usize) -> std::ops::Range<usize> {
        self.start(first) * self.elem..self.start(last) * self.elem
    }

    /// R[first..last] as at most two pairs (rotated bytes, natural bytes),
    /// split where the rotation wraps past block p − 1.
    fn pieces(&self, first: usize, last: usize) -> [(std::ops::Range<usize>, std::ops::Range<usize>); 2] {
        let (b, p, e) = (self.blocks, self.blocks.len(), self.elem);
        let wrap = (p - self.rank).clamp(first, last);
        let natural = |lo: usize, hi: usize| if lo < hi { b.bytes_of_range(lo, hi, e) } else { 0..0 };
        let before = (self.range(first, wrap), natural(self.rank + first, self.rank + wrap));
        // Past the wrap (wrap ≥ p − rank there): blocks from 0 on.
        let after = (self.range(wrap, last), if wrap < last { natural(wrap + self.rank - p, last + self.rank - p) } else { 0..0 });
        [before, after]
    }

    /// The rotated copy of `natural` (blocks in rank order).
    fn rotate_in(&self, t: &(impl Transport + ?Sized), natural: &[u8]) -> MpiResult<super::Scratch> {
        let mut rotated = super::scratch(natural.len())?;
        for (r, n) in self.pieces(0, self.blocks.len()).into_iter().filter(|(r, _)| !r.is_empty()) {
            super::copy(t, &mut rotated[r], &natural[n]);
        }
        Ok(rotated)
    }

    /// Copy R[first..last] back to their places in `natural`.
    fn rotate_out(&self, t: &(impl Transport + ?Sized), rotated: &[u8], natural: &mut [u8], first: usize, last: usize) {
        for (r, n) in self.pieces(first, last).into_iter().filter(|(r, _)| !r.is_empty()) {
            super::copy(t, &mut natural[n], &rotated[r]);
        }
    }
}

/// Algorithm 1 on the rotated buffer `r` (R[0..p−1]): afterwards R[0] is this
/// process's fully reduced block.
fn reduce_scatter_rotated(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), r: &mut [u8], rot: &Rotated<'_>, skips: &Skips) -> MpiResult {
    let (p, rank) = (t.size(), t.rank());
    let mut incoming = super::Scratch::empty();
    for (s_prev, s) in skips.rounds() {
        let (to, from) = ((rank + s) % p, (rank + p - s) % p);
        let keep = rot.range(0, s_prev - s);
        incoming.resize(keep.len())?;
        super::exchange_and_fold(t, op, r, rot.range(s, s_prev), to, keep, from, &mut incoming, false)?;
    }
    Ok(())
}

/// Algorithm 2's allgather phase: the skips in reverse, R[0..s'−s−1] to
/// (r−s) mod p, R[s..s'−1] from (r+s) mod p.
fn allgather_rotated(t: &(impl Transport + ?Sized), r: &mut [u8], rot: &Rotated<'_>, skips: &Skips) -> MpiResult {
    let (p, rank) = (t.size(), t.rank());
    for (s_prev, s) in skips.rounds().rev() {
        let (to, from) = ((rank + p - s) % p, (rank + s) % p);
        let (out, into) = split_read_write(r, rot.range(0, s_prev - s), rot.range(s, s_prev));
        t.sendrecv(to, out, from, into)?;
    }
    Ok(())
}

/// Algorithm 1 on a rotated copy of `input` (blocks in rank order): the copy,
/// with R[0] this process's reduced block, and its layout.
fn reduced_rotated<'b>(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: &[u8], blocks: &'b Blocks, skips: &Skips) -> MpiResult<(super::Scratch, Rotated<'b>)> {
    let esz = op.elem_size();
    let rot = Rotated::new(blocks, t.rank(), esz);
    let mut r = rot.rotate_in(t, input)?;
    reduce_scatter_rotated(t, op, &mut r, &rot, skips)?;
    Ok((r, rot))
}

/// Reduce-scatter (`MPI_Reduce_scatter(_block)`): on return block `rank` of
/// `buf` (natural order) holds the reduction of block `rank` of all inputs.
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], blocks: &Blocks, skips: &Skips) -> MpiResult {
    let (r, rot) = reduced_rotated(t, op, buf, blocks, skips)?;
    super::copy(t, &mut buf[blocks.bytes(t.rank(), op.elem_size())], &r[rot.range(0, 1)]);
    Ok(())
}

/// Algorithm 2's allgather on its own: on entry block `rank` of `buf` (natural
/// order, `blocks`) is this process's, on return every block is. Copies this
/// process's block into the rotated order and the others back out.
pub fn allgather(t: &(impl Transport + ?Sized), buf: &mut [u8], blocks: &Blocks, elem: usize, skips: &Skips) -> MpiResult {
    let rot = Rotated::new(blocks, t.rank(), elem);
    let mut r = super::scratch(buf.len())?;
    super::copy(t, &mut r[rot.range(0, 1)], &buf[blocks.bytes(t.rank(), elem)]);
    allgather_rotated(t, &mut r, &rot, skips)?;
    rot.rotate_out(t, &r, buf, 1, t.size());
    Ok(())
}

/// Allreduce (Algorithm 2) of `input` over `blocks`, p nearly equal ones
/// ([`allreduce_blocks`]; counts < p give empty blocks): the rotated result
/// for [`Rotated::rotate_out`]. Each block is reduced by one process:
/// bit-identical results.
fn allreduced_rotated<'b>(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: &[u8], blocks: &'b Blocks, skips: &Skips) -> MpiResult<(super::Scratch, Rotated<'b>)> {
    let (mut r, rot) = reduced_rotated(t, op, input, blocks, skips)?;
    allgather_rotated(t, &mut r, &rot, skips)?;
    Ok((r, rot))
}

/// The allreduce's blocks of a vector of `bytes` over `t`'s processes.
fn allreduce_blocks(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), bytes: usize) -> Blocks {
    Blocks::even(bytes / op.elem_size(), t.size())
}

/// Allreduce in place: the result replaces `buf`.
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], skips: &Skips) -> MpiResult {
    let blocks = allreduce_blocks(t, op, buf.len());
    let (r, rot) = allreduced_rotated(t, op, buf, &blocks, skips)?;
    rot.rotate_out(t, &r, buf, 0, t.size());
    Ok(())
}

/// Reduce: the circulant reduce-scatter, then a binomial-tree gather of the
/// blocks to `root` (relative rank v collects blocks root+v .. root+v+2^k−1,
/// consecutive in the root-rotated order).
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize, skips: &Skips) -> MpiResult {
    let (p, rank, esz) = (t.size(), t.rank(), op.elem_size());
    let blocks = Blocks::even(buf.len() / esz, p);
    reduce_scatter(t, op, buf, &blocks, skips)?;
    // Gather in root-rotated order: position j holds block root+j.
    let at_root = Rotated::new(&blocks, root, esz);
    let me = relative_rank(rank, root, p);
    let mut gathered = at_root.rotate_in(t, buf)?; // only position `me` matters
    let mut distance = 1;
    while distance < p {
        if me & distance != 0 {
            let held = at_root.range(me, (me + distance).min(p));
            return t.send(absolute_rank(me - distance, root, p), &gathered[held]);
        }
        if me + distance < p {
            let arriving = at_root.range(me + distance, (me + 2 * distance).min(p));
            t.recv(absolute_rank(me + distance, root, p), &mut gathered[arriving])?;
        }
        distance <<= 1;
    }
    at_root.rotate_out(t, &gathered, buf, 0, p);
    Ok(())
}

fn run_with(kind: SkipKind, t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    let skips = Skips::new(kind, t.size());
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf, &skips),
        Collective::Reduce => reduce(t, op, buf, job.root, &skips),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => reduce_scatter(t, op, buf, job.blocks, &skips),
    }
}

/// With the input in a buffer of its own ([`RunFromFn`](super::registry::RunFromFn)):
/// the rotation reads it, the result goes straight to `output`.
fn run_from_with(kind: SkipKind, t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    let skips = Skips::new(kind, t.size());
    match job.coll {
        Collective::Allreduce => {
            let blocks = allreduce_blocks(t, op, input.len());
            let (r, rot) = allreduced_rotated(t, op, input, &blocks, &skips)?;
            rot.rotate_out(t, &r, output, 0, t.size());
        }
        Collective::Reduce => return super::registry::not_implemented("circulant (separate input)", job.coll),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            let (r, rot) = reduced_rotated(t, op, input, job.blocks, &skips)?;
            super::copy(t, output, &r[rot.range(0, 1)]);
        }
    }
    Ok(())
}

/// Registry entries: all four collectives, one per skip sequence (in place,
/// and from a separate input).
pub fn run_halving(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    run_with(SkipKind::Halving, t, op, buf, job)
}
pub fn run_powers_of_two(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    run_with(SkipKind::PowersOfTwo, t, op, buf, job)
}
pub fn run_linear(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    run_with(SkipKind::Linear, t, op, buf, job)
}
pub fn run_sqrt(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    run_with(SkipKind::Sqrt, t, op, buf, job)
}
pub fn run_from_halving(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    run_from_with(SkipKind::Halving, t, op, input, output, job)
}
pub fn run_from_powers_of_two(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    run_from_with(SkipKind::PowersOfTwo, t, op, input, output, job)
}
pub fn run_from_linear(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    run_from_with(SkipKind::Linear, t, op, input, output, job)
}
pub fn run_from_sqrt(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    run_from_with(SkipKind::Sqrt, t, op, input, output, job)
}

fn estimate_with(rounds: f64, coll: Collective, x: &Terms) -> f64 {
    match coll {
        Collective::ReduceScatter | Collective::ReduceScatterBlock => rounds * x.a + x.frac * x.n * (x.b + x.g),
        // Allreduce: both phases in ⌈lg p⌉ rounds (reduce: + a binomial gather of blocks).
        _ => 2.0 * x.lg * x.a + 2.0 * x.frac * x.n * x.b + x.frac * x.n * x.g,
    }
}

/// Träff: ⌈lg p⌉ rounds per phase moving (1 − 1/p)n (halving, power-of-two and √p skips).
pub fn estimate_halving(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    estimate_with(x.lg, coll, &x)
}

/// Linear skips: p − 1 rounds for the reduce-scatter.
pub fn estimate_linear(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    estimate_with(x.p - 1.0, coll, &x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_skips_for_p_22_match_the_paper() {
        assert_eq!(Skips::new(SkipKind::Halving, 22).as_slice(), &[11, 6, 3, 2, 1]);
        assert_eq!(Skips::new(SkipKind::Halving, 1).as_slice(), &[] as &[usize]);
        assert_eq!(Skips::new(SkipKind::PowersOfTwo, 22).as_slice(), &[16, 8, 4, 2, 1]);
        assert_eq!(Skips::new(SkipKind::Sqrt, 22).as_slice(), &[20, 15, 10, 5, 4, 3, 2, 1]);
    }

    #[test]
    fn every_kind_is_valid_for_every_p() {
        for p in 1..=300 {
            for kind in [SkipKind::Halving, SkipKind::PowersOfTwo, SkipKind::Linear, SkipKind::Sqrt] {
                let s = Skips::new(kind, p);
                assert!(s.is_valid(), "{kind:?} p={p}: {:?}", s.as_slice());
            }
            let q = if p <= 1 { 0 } else { (p - 1).ilog2() as usize + 1 };
            assert_eq!(Skips::new(SkipKind::Halving, p).as_slice().len(), q, "⌈lg {p}⌉ rounds");
        }
    }

    #[test]
    fn invalid_sequences_are_rejected() {
        assert!(!Skips { p: 10, skips: [3, 1].into_iter().collect() }.is_valid()); // 10 > 2·3
        assert!(!Skips { p: 5, skips: [3, 2].into_iter().collect() }.is_valid()); // does not end in 1
    }
}
