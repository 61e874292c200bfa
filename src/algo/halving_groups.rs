//! Building blocks shared by recursive halving & doubling (Rabenseifner 2004
//! §3.5) and binary blocks (§3.6), run inside a *group* of 2^e processes:
//!
//! - [`reduce_scatter`]: recursive vector halving with distance doubling. In
//!   step k (distance 2^k) each process keeps the lower or upper half of its
//!   current window (bit k of its group rank decides), sends the other half to
//!   its partner and reduces the half it keeps. After e steps group rank q holds
//!   the reduced segment `bitrev_e(q)` of the level-e segmentation. Any order of
//!   the scattered result is allowed (footnote 1), so the longest messages go to
//!   the nearest neighbour.
//! - [`allgather`]: the reverse, vector doubling with distance halving.
//! - [`gather`]: the same pattern one way, to one group member (§3.5 "Reduce").
//!
//! Segments are *nested*: level-e segment j is elements [⌊j·n/2^e⌋, ⌊(j+1)·n/2^e⌋),
//! which is exactly the union of level-(e+1) segments 2j and 2j+1. Binary blocks
//! relies on this to hand segments between blocks of different sizes.

use super::Transport;
use crate::error::MpiResult;
use crate::op::Reducer;
use std::ops::Range;

/// A nested segmentation of a vector: 2^level segments at each level,
/// segment j of level k being the union of segments 2j and 2j+1 of level k+1.
pub trait Segmentation {
    /// Bytes of segment `j` at `level` for elements of `elem` bytes.
    fn bytes(&self, level: u32, j: usize, elem: usize) -> Range<usize>;
}

/// The level-`level` segmentation of a vector of `n` elements.
#[derive(Clone, Copy, Debug)]
pub struct Segments {
    pub n: usize,
}

impl Segmentation for Segments {
    fn bytes(&self, level: u32, j: usize, elem: usize) -> Range<usize> {
        Segments::bytes(self, level, j, elem)
    }
}

/// The p' = 2^e slots of a group that works for p processes (see
/// [`super::Pairs`]), over a vector cut into the p processes' `blocks`:
/// level-k segment j is the blocks
/// of slots j·p'/2^k .. (j+1)·p'/2^k, so after a reduce-scatter over the
/// group each member holds whole blocks (Rabenseifner 2004 §3.5 footnote 1).
#[derive(Clone, Copy, Debug)]
pub struct Slots<'a> {
    pub blocks: &'a super::Blocks,
    pub pairs: super::Pairs,
}

impl Slots<'_> {
    /// For `p` processes, over `blocks` (one per process).
    pub fn new(blocks: &super::Blocks, p: usize) -> Slots<'_> {
        Slots { blocks, pairs: super::Pairs::of(p) }
    }

    /// Bytes of the blocks of slots `lo..hi` (a slot's blocks are its processes').
    pub fn bytes_of_slots(&self, lo: usize, hi: usize, elem: usize) -> Range<usize> {
        self.blocks.bytes_of_range(self.pairs.first(lo), self.pairs.first(hi), elem)
    }
}

impl Segmentation for Slots<'_> {
    fn bytes(&self, level: u32, j: usize, elem: usize) -> Range<usize> {
        let width = self.pairs.pof2 >> level;
        self.bytes_of_slots(j * width, (j + 1) * width, elem)
    }
}

/// The p' slots of [`Slots`] laid out in bit-reversed order: position j
/// holds slot `final_segment(j, e)`. The slots that agree with group rank q
/// in bits 0..k are then adjacent (a level-k segment), so [`reduce_scatter`]
/// over this layout keeps the same slots as recursive halving over
/// [`Slots`]' strided ones, sends and folds one range per step, and leaves
/// group rank q with its own slot q. Laying the vector out costs one copy per
/// slot, once; packing the strided slots had cost a copy and a fold per slot
/// and step (0.1 ms a call for one double per process at p = 4096,
/// `examples/cpu_per_call.rs`).
pub struct BitReversedSlots {
    /// Byte offset of position j, j = 0..=p'.
    offsets: crate::scratch::Pooled<usize>,
    e: u32,
}

impl BitReversedSlots {
    /// Lay `natural` (the vector in rank order) out into `laid` (as long),
    /// slot by slot in bit-reversed order, and return the layout: one pass.
    /// Slot s is the bytes of `natural` in the two ranges `parts(s)`, one
    /// after the other: group rank s's block and that of the process folded
    /// into it (an empty range if none), which need not be neighbours in
    /// rank order (halving & doubling over hosts).
    pub fn lay_out(t: &(impl super::Transport + ?Sized), pof2: usize, natural: &[u8], laid: &mut [u8], parts: impl Fn(usize) -> [Range<usize>; 2]) -> BitReversedSlots {
        let e = pof2.trailing_zeros();
        let mut offsets = crate::scratch::Pooled::new();
        offsets.push(0);
        for j in 0..pof2 {
            let mut at = offsets[j];
            for from in parts(final_segment(j, e)) {
                laid[at..at + from.len()].copy_from_slice(&natural[from.clone()]);
                at += from.len();
            }
            offsets.push(at);
        }
        t.note_copy(natural.len());
        BitReversedSlots { offsets, e }
    }

    /// Where slot `s` lies in the layout (bytes).
    pub fn slot(&self, s: usize) -> Range<usize> {
        let j = final_segment(s, self.e);
        self.offsets[j]..self.offsets[j + 1]
    }
}

impl Segmentation for &BitReversedSlots {
    fn bytes(&self, level: u32, j: usize, _elem: usize) -> Range<usize> {
        let width = (self.offsets.len() - 1) >> level;
        self.offsets[j * width]..self.offsets[(j + 1) * width]
    }
}

impl Segments {
    /// Elements of segment `j` at `level` (2^level segments).
    pub fn elems(&self, level: u32, j: usize) -> Range<usize> {
        let bound = |j: usize| ((j as u128 * self.n as u128) >> level) as usize;
        bound(j)..bound(j + 1)
    }

    /// Bytes of segment `j` at `level` for elements of `elem` bytes.
    pub fn bytes(&self, level: u32, j: usize, elem: usize) -> Range<usize> {
        let r = self.elems(level, j);
        r.start * elem..r.end * elem
    }
}

/// The segment (at level e) that group rank `q` of a 2^e group holds after
/// [`reduce_scatter`]: q with its e low bits reversed.
pub fn final_segment(q: usize, e: u32) -> usize {
    if e == 0 { 0 } else { q.reverse_bits() >> (usize::BITS - e) }
}

/// 2^e processes, group rank i being process `members[i]` of the transport.
pub struct Group<'a> {
    pub members: &'a [usize],
    /// This process's group rank.
    pub me: usize,
}

impl Group<'_> {
    pub fn level(&self) -> u32 {
        debug_assert!(self.members.len().is_power_of_two());
        self.members.len().trailing_zeros()
    }
}

/// Recursive halving, distance doubling, within `group`: on entry `buf` holds
/// this process's whole vector, on return its level-e segment
/// `final_segment(me, e)` holds the group's reduction of that segment (the rest
/// of `buf` is scratch). Partners combine lower group rank ∘ higher group rank.
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], seg: impl Segmentation, group: &Group) -> MpiResult {
    halve(t, op, None, buf, seg, group)
}

/// The same, with this process's vector in `input` (never written) instead
/// of `buf` (e ≥ 1): the first step sends from `input` and receives straight
/// into `buf`, folding `input`'s kept half in with the operands in the same
/// order (same bits), so the input is never copied.
pub fn reduce_scatter_from(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: &[u8], buf: &mut [u8], seg: Segments, group: &Group) -> MpiResult {
    debug_assert!(group.level() >= 1);
    halve(t, op, Some(input), buf, seg, group)
}

fn halve(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: Option<&[u8]>, buf: &mut [u8], seg: impl Segmentation, group: &Group) -> MpiResult {
    let e = group.level();
    let esz = op.elem_size();
    let mut window = 0; // level-k segment index of the current window
    let mut incoming = super::Scratch::empty();
    for k in 0..e {
        let partner = group.me ^ (1 << k);
        let keep_upper = group.me & (1 << k) != 0;
        let (keep, give) = if keep_upper { (2 * window + 1, 2 * window) } else { (2 * window, 2 * window + 1) };
        let (keep_bytes, give_bytes) = (seg.bytes(k + 1, keep, esz), seg.bytes(k + 1, give, esz));
        let peer = group.members[partner];
        match input {
            Some(input) if k == 0 => {
                t.sendrecv(peer, &input[give_bytes], peer, &mut buf[keep_bytes.clone()])?;
                op.reduce(&input[keep_bytes.clone()], &mut buf[keep_bytes], partner > group.me)?;
            }
            _ => {
                incoming.resize(keep_bytes.len())?;
                super::exchange_and_fold(t, op, buf, give_bytes, peer, keep_bytes, peer, &mut incoming, partner < group.me)?;
            }
        }
        window = keep;
    }
    Ok(())
}

/// Vector doubling, distance halving, within `group`: on entry this process's
/// segment `final_segment(me, e)` of `buf` is final, on return all of `buf` is.
pub fn allgather(t: &(impl Transport + ?Sized), buf: &mut [u8], seg: Segments, elem: usize, group: &Group) -> MpiResult {
    let e = group.level();
    let mut mine = final_segment(group.me, e);
    for k in (0..e).rev() {
        let partner = group.me ^ (1 << k);
        let theirs = mine ^ 1;
        let (out, into) = super::split_read_write(buf, seg.bytes(k + 1, mine, elem), seg.bytes(k + 1, theirs, elem));
        t.sendrecv(group.members[partner], out, group.members[partner], into)?;
        mine >>= 1;
    }
    Ok(())
}

/// Gather the final segments to group rank `target`, the reverse of
/// [`reduce_scatter`] one way (§3.5 "Reduce"): in the step for bit k, the
/// processes whose bit k equals the target's receive their partner's part and
/// the others send theirs and stop. `deliver_to` maps the tree's root to the
/// process that really receives its messages (binary blocks' root outside the
/// block); it is `group.members[target]` otherwise.
pub fn gather(t: &(impl Transport + ?Sized), buf: &mut [u8], seg: Segments, elem: usize, group: &Group, target: usize, deliver_to: usize) -> MpiResult {
    let e = group.level();
    let mut mine = final_segment(group.me, e);
    for k in (0..e).rev() {
        let bit = 1 << k;
        let partner = group.me ^ bit;
        let receiver = |q: usize| if q == target { deliver_to } else { group.members[q] };
        if group.me & bit == target & bit {
            t.recv(group.members[partner], &mut buf[seg.bytes(k + 1, mine ^ 1, elem)])?;
        } else {
            return t.send(receiver(partner), &buf[seg.bytes(k + 1, mine, elem)]);
        }
        mine >>= 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_nest_and_cover() {
        for n in [0, 1, 5, 13, 1000] {
            let s = Segments { n };
            for level in 0..5 {
                let mut end = 0;
                for j in 0..1 << level {
                    let r = s.elems(level, j);
                    assert_eq!(r.start, end);
                    end = r.end;
                    let (a, b) = (s.elems(level + 1, 2 * j), s.elems(level + 1, 2 * j + 1));
                    assert_eq!((a.start, a.end, b.end), (r.start, b.start, r.end));
                }
                assert_eq!(end, n);
            }
        }
    }

    #[test]
    fn final_segments_are_bit_reversed_ranks() {
        assert_eq!((0..8).map(|q| final_segment(q, 3)).collect::<Vec<_>>(), vec![0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(final_segment(0, 0), 0);
    }
}
