//! Binary blocks, Rabenseifner 2004 §3.6 (Fig. 3). p is cut into blocks of
//! 2^e processes, one per bit of p, largest first (13 = 8 + 4 + 1: ranks 0–7,
//! 8–11, 12). Each block runs its own reduce-scatter by recursive halving (the
//! building blocks of §3.5). Then, starting with the smallest block, each block
//! splits its intermediate result into the segments of the next larger block
//! and sends them there to be reduced, so the largest block ends with the whole
//! reduction, one segment per process. Allreduce: every block gets its segments
//! back from the next larger block (2^Δ messages per process) and allgathers
//! within itself. Reduce: the largest block gathers to the root with a binary
//! tree; a root outside it takes rank 0's place (rank 0 sends it its segment).
//! Reduce-scatter: each process receives its block from the processes of the
//! largest block whose segments it overlaps (about n/p bytes each: the
//! segments are not the processes' blocks). The partners of every step pair
//! within aligned blocks of 2^e processes, which is what keeps the algorithm
//! free of collisions on fat trees routed by destination, where the
//! circulant's rotations collide (docs/smpi.md, "Why the circulant collides").
//!
//! The imbalance is the ratio of consecutive block sizes, so the cost depends
//! on δ_expo,max (the largest gap between consecutive exponents of p). For a
//! power of two there is one block and the algorithm *is* halving & doubling.
//! Segments are the nested ones of `recursive_halving`, so a segment of a
//! smaller block is exactly the union of 2^Δ segments of the larger one.

use super::halving_groups::{self, final_segment, Group, Segments};
use super::{Blocks, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::Job;
use crate::scratch::Pooled;
use crate::model::{CostModel, Terms};
use crate::collective::Collective;
use std::ops::Range;

/// One block: ranks `start..start + 2^level`.
#[derive(Clone, Copy, Debug)]
struct Block {
    start: usize,
    level: u32,
}

impl Block {
    fn members(&self) -> Pooled<usize> {
        (self.start..self.start + (1 << self.level)).collect()
    }
}

/// The blocks of p, largest first (one per bit of p: at most `usize::BITS`,
/// kept inline).
#[derive(Clone, Copy)]
struct BlockList {
    items: [Block; usize::BITS as usize],
    len: usize,
}

impl std::ops::Deref for BlockList {
    type Target = [Block];
    fn deref(&self) -> &[Block] {
        &self.items[..self.len]
    }
}

fn blocks_of(p: usize) -> BlockList {
    let mut list = BlockList { items: [Block { start: 0, level: 0 }; usize::BITS as usize], len: 0 };
    let mut start = 0;
    for level in (0..usize::BITS).rev().filter(|e| p >> e & 1 == 1) {
        list.items[list.len] = Block { start, level };
        list.len += 1;
        start += 1 << level;
    }
    list
}

/// Where this process stands: its block's index and its rank in the block.
struct Place {
    blocks: BlockList,
    index: usize,
    me: usize,
}

impl Place {
    fn of(rank: usize, p: usize) -> Place {
        let blocks = blocks_of(p);
        let index = blocks.iter().position(|b| rank < b.start + (1 << b.level)).expect("rank < p");
        let me = rank - blocks[index].start;
        Place { blocks, index, me }
    }

    fn block(&self) -> Block {
        self.blocks[self.index]
    }

    /// This process's segment (at its block's level) after the reduce-scatter.
    fn segment(&self) -> usize {
        final_segment(self.me, self.block().level)
    }

    /// The process of `block` that holds segment `j` of that block's level.
    fn holder(block: Block, j: usize) -> usize {
        block.start + final_segment(j, block.level)
    }

    /// The segments (at `larger`'s level) that make up this process's segment.
    fn parts_in(&self, larger: Block) -> std::ops::Range<usize> {
        let shift = larger.level - self.block().level;
        self.segment() << shift..(self.segment() + 1) << shift
    }
}

/// Reduce-scatter in every block, then fold the blocks into the largest:
/// afterwards process q of block 0 holds the full reduction of its segment.
fn reduce_into_largest_block(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], seg: Segments, at: &Place) -> MpiResult {
    let esz = op.elem_size();
    let block = at.block();
    let members = block.members();
    halving_groups::reduce_scatter(t, op, buf, seg, &Group { members: &members, me: at.me })?;
    let mine = seg.bytes(block.level, at.segment(), esz);
    if let Some(&smaller) = at.blocks.get(at.index + 1) {
        // One message from the smaller block's process whose segment contains mine.
        let from = Place::holder(smaller, at.segment() >> (block.level - smaller.level));
        let mut incoming = super::scratch(mine.len())?;
        t.recv(from, &mut incoming)?;
        op.reduce(&incoming, &mut buf[mine.clone()], false)?;
    }
    if at.index > 0 {
        // 2^Δ messages to the next larger block, one per segment of its level.
        let larger = at.blocks[at.index - 1];
        for j in at.parts_in(larger) {
            t.send(Place::holder(larger, j), &buf[seg.bytes(larger.level, j, esz)])?;
        }
    }
    Ok(())
}

/// Allreduce `buf` in place (every segment is reduced by one process, so all
/// ranks end bit-identical).
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8]) -> MpiResult {
    let esz = op.elem_size();
    let seg = Segments { n: buf.len() / esz };
    let at = Place::of(t.rank(), t.size());
    reduce_into_largest_block(t, op, buf, seg, &at)?;
    let block = at.block();
    if at.index > 0 {
        // The final values of my segment, from the larger block's holders.
        let larger = at.blocks[at.index - 1];
        for j in at.parts_in(larger) {
            t.recv(Place::holder(larger, j), &mut buf[seg.bytes(larger.level, j, esz)])?;
        }
    }
    if let Some(&smaller) = at.blocks.get(at.index + 1) {
        let to = Place::holder(smaller, at.segment() >> (block.level - smaller.level));
        t.send(to, &buf[seg.bytes(block.level, at.segment(), esz)])?;
    }
    let members = block.members();
    halving_groups::allgather(t, buf, seg, esz, &Group { members: &members, me: at.me })
}

/// Reduce `buf` of all processes into `buf` at `root`.
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize) -> MpiResult {
    let esz = op.elem_size();
    let seg = Segments { n: buf.len() / esz };
    let (p, rank) = (t.size(), t.rank());
    let at = Place::of(rank, p);
    reduce_into_largest_block(t, op, buf, seg, &at)?;
    let largest = at.blocks[0];
    let members = largest.members();
    let root_inside = root < members.len();
    let target = if root_inside { root } else { 0 };
    if !root_inside {
        // The root plays rank 0's part in the gather, starting from rank 0's segment.
        let first = seg.bytes(largest.level, final_segment(0, largest.level), esz);
        if rank == 0 {
            return t.send(root, &buf[first]);
        }
        if rank == root {
            t.recv(0, &mut buf[first])?;
            return halving_groups::gather(t, buf, seg, esz, &Group { members: &members, me: 0 }, 0, root);
        }
    }
    if at.index == 0 {
        halving_groups::gather(t, buf, seg, esz, &Group { members: &members, me: at.me }, target, root)?;
    }
    Ok(())
}

/// Reduce-scatter of `buf` (the whole vector) into `blocks`: afterwards
/// block `rank` of `buf` holds the reduced block.
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], blocks: &Blocks) -> MpiResult {
    let esz = op.elem_size();
    let seg = Segments { n: buf.len() / esz };
    let at = Place::of(t.rank(), t.size());
    reduce_into_largest_block(t, op, buf, seg, &at)?;
    deliver_blocks(t, buf, seg, &at, blocks, esz)
}

/// The bytes two ranges share (empty if none).
fn overlap(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    let start = a.start.max(b.start);
    start..a.end.min(b.end).max(start)
}

/// The transfers of [`deliver_blocks`]: for each segment j of the largest
/// block's level (held by `Place::holder(largest, j)`) and each process r
/// whose block overlaps it, the bytes they share, in staircase order (neither
/// j nor r ever decreases), so the transfers of one holder are consecutive,
/// and so are those of one receiver.
struct Staircase<'a> {
    seg: Segments,
    level: u32,
    blocks: &'a Blocks,
    esz: usize,
    j: usize,
    r: usize,
}

impl Iterator for Staircase<'_> {
    /// (segment, receiving process, bytes).
    type Item = (usize, usize, Range<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        while self.j < 1 << self.level && self.r < self.blocks.len() {
            let (j, r) = (self.j, self.r);
            let held = self.seg.bytes(self.level, j, self.esz);
            let block = self.blocks.bytes(r, self.esz);
            self.j += usize::from(held.end <= block.end);
            self.r += usize::from(block.end <= held.end);
            let part = overlap(&held, &block);
            if !part.is_empty() {
                return Some((j, r, part));
            }
        }
        None
    }
}

/// One transfer of [`deliver_blocks`] at one of its ends: its index in the
/// [`Staircase`], the process at the other end, the bytes of the vector.
struct Transfer {
    k: usize,
    peer: usize,
    bytes: Range<usize>,
}
crate::pool_item!(Transfer);

/// After [`reduce_into_largest_block`]: every process gets its block of
/// the reduced vector from the processes of the largest block, whose final
/// segments tile the vector. Transfer k of the [`Staircase`] goes in round
/// k mod R, R the most transfers of one holder or one receiver: a holder's
/// transfers, and a receiver's, are consecutive, so in each round a process
/// sends at most one and receives at most one, with one call (`sendrecv`,
/// `send` or `recv`) whose receive is posted while its send goes: no round
/// can deadlock, and the rounds run side by side across the processes
/// (usually R ≤ 3). What a process receives goes to scratch until it has
/// sent all it holds (its block may overlap its segment).
fn deliver_blocks(t: &(impl Transport + ?Sized), buf: &mut [u8], seg: Segments, at: &Place, blocks: &Blocks, esz: usize) -> MpiResult {
    let level = at.blocks[0].level;
    let rank = t.rank();
    let mine = blocks.bytes(rank, esz);
    let in_own = |bytes: &Range<usize>| bytes.start - mine.start..bytes.end - mine.start;
    let mut own = super::scratch(mine.len())?;
    // This process's transfers and the number of rounds.
    let (mut rounds, mut run_j, mut run_r, mut last) = (1, 0, 0, (usize::MAX, usize::MAX));
    let (mut sends, mut receives): (Pooled<Transfer>, Pooled<Transfer>) = (Pooled::new(), Pooled::new());
    for (k, (j, r, bytes)) in (Staircase { seg, level, blocks, esz, j: 0, r: 0 }).enumerate() {
        run_j = if j == last.0 { run_j + 1 } else { 1 };
        run_r = if r == last.1 { run_r + 1 } else { 1 };
        rounds = rounds.max(run_j).max(run_r);
        last = (j, r);
        let holder = Place::holder(at.blocks[0], j);
        if holder == rank && r == rank {
            super::copy(t, &mut own[in_own(&bytes)], &buf[bytes]);
        } else if holder == rank {
            sends.push(Transfer { k, peer: r, bytes });
        } else if r == rank {
            receives.push(Transfer { k, peer: holder, bytes });
        }
    }
    for round in 0..rounds {
        let in_round = |x: &&Transfer| x.k % rounds == round;
        match (sends.iter().find(in_round), receives.iter().find(in_round)) {
            (Some(s), Some(q)) => t.sendrecv(s.peer, &buf[s.bytes.clone()], q.peer, &mut own[in_own(&q.bytes)])?,
            (Some(s), None) => t.send(s.peer, &buf[s.bytes.clone()])?,
            (None, Some(q)) => t.recv(q.peer, &mut own[in_own(&q.bytes)])?,
            (None, None) => {}
        }
    }
    super::copy(t, &mut buf[mine], &own);
    Ok(())
}

/// Registry entry: all four collectives.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf),
        Collective::Reduce => reduce(t, op, buf, job.root),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => reduce_scatter(t, op, buf, job.blocks),
    }
}

/// §3.6: halving & doubling over the largest block, plus the chain that hands
/// each smaller block's result to the next larger one (each process sends its
/// segment of n/2^e as 2^Δ messages, Δ the gap between the blocks' exponents,
/// and the receivers reduce n/2^e' each), and for allreduce the same chain
/// back. Additive: the first hand-overs may overlap the largest block's
/// halving, so this errs long (SMPI, flat 100 Gbit/s, p = 100, 2 MiB:
/// 488 µs estimated, 461 µs simulated; without the chain 354 µs).
/// Reduce-scatter: the halving only, then the delivery of the blocks, where
/// a process of the largest block sends its n/p' in at most p/p' + 1 messages.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    let (hand_over, back): (f64, f64) = blocks_of(p)
        .windows(2)
        .map(|w| {
            let (big, small) = (w[0].level, w[1].level);
            let messages = (1u64 << (big - small)) as f64 * x.a + x.n / (1u64 << small) as f64 * x.b;
            (messages + x.n / (1u64 << big) as f64 * x.g, messages)
        })
        .fold((0.0, 0.0), |(h, b), (dh, db)| (h + dh, b + db));
    let back = if coll == Collective::Allreduce { back } else { 0.0 };
    let largest = match coll {
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            super::halving_doubling::halving_over_pof2(&x) + (x.p / x.pof2).ceil() * x.a + x.a + x.n / x.pof2 * x.b
        }
        _ => super::halving_doubling::estimate_over_pof2(&x),
    };
    largest + hand_over + back
}

/// On hosts of k consecutive ranks, p a power of two: one block,
/// halving & doubling's split ([`super::halving_doubling::estimate_in_blocks`]);
/// otherwise every rank's traffic taken to cross hosts.
pub fn estimate_in_blocks(coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
    if (hosts * k).is_power_of_two() {
        return super::halving_doubling::estimate_in_blocks(coll, bytes, hosts, k, m);
    }
    super::registry::crossing(estimate, coll, bytes, hosts, k, m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_adds_the_hand_overs_between_blocks() {
        let m = CostModel::new(1.0, 1e-3, 1e-4);
        let n = 1 << 20;
        let pof2 = |p| super::super::halving_doubling::estimate_over_pof2(&Terms::new(n, p, &m));
        // One block: halving & doubling.
        assert_eq!(estimate(Collective::Allreduce, n, 64, &m), pof2(64));
        // 100 = 64 + 32 + 4: hand-overs 4 -> 32 (8 messages of n/4) and 32 -> 64 (2 of n/32).
        let chain = (8.0 + n as f64 / 4.0 * 1e-3) + (2.0 + n as f64 / 32.0 * 1e-3);
        let reduce_terms = (n as f64 / 32.0 + n as f64 / 64.0) * 1e-4;
        let reduce = estimate(Collective::Reduce, n, 100, &m);
        assert!((reduce - (pof2(100) + chain + reduce_terms)).abs() < 1e-6 * reduce, "{reduce}");
        let allreduce = estimate(Collective::Allreduce, n, 100, &m);
        assert!((allreduce - (reduce + chain)).abs() < 1e-6 * allreduce, "{allreduce}");
    }

    #[test]
    fn blocks_follow_the_binary_representation() {
        let b = blocks_of(13);
        assert_eq!(b.iter().map(|b| (b.start, b.level)).collect::<Vec<_>>(), vec![(0, 3), (8, 2), (12, 0)]);
        assert_eq!(blocks_of(64).len(), 1);
        let at = Place::of(9, 13);
        assert_eq!((at.index, at.me), (1, 1));
        // Rank 9 (block rank 1 of 4) holds level-2 segment 2 = level-3 segments 4, 5.
        assert_eq!(at.segment(), 2);
        assert_eq!(at.parts_in(b[0]), 4..6);
        assert_eq!((Place::holder(b[0], 4), Place::holder(b[0], 5)), (1, 5));
    }
}
