//! Reduction algorithms, generic over a [`Transport`] (who to talk to) and a
//! [`Reducer`](crate::op::Reducer) (how to combine). No MPI types in here, so
//! every algorithm also runs on the in-process transport in tests.
//!
//! Conventions shared by all algorithms:
//! - vectors are byte slices holding whole elements of `op.elem_size()` bytes;
//! - the caller passes the process's input in `buf` and finds the result there
//!   (all of it for allreduce, at `root` for reduce, its own block for
//!   reduce-scatter, see [`Blocks`]);
//! - when data from lower ranks is combined with data from higher ranks, the
//!   lower part is the left operand, so results are the same on every rank.

pub mod binary_blocks;
pub mod binomial;
pub mod circulant;
pub mod fibonacci_tree;
pub mod halving_doubling;
pub mod halving_doubling_hosts;
pub mod hierarchical;
pub mod host_map;
pub mod knomial_tree;
pub mod pipeline;
pub mod subset;
pub mod halving_groups;
pub mod recursive_halving;
pub mod registry;
pub mod streaming;
pub mod recursive_doubling;
pub mod pairwise;
pub mod pairwise_pipeline;
pub mod ring;
pub mod shared_memory;
pub mod two_tree;

use crate::error::MpiResult;
use std::ops::Range;

pub use crate::scratch::Scratch;

/// The length of the longest of `ranges` (0 for none): the scratch a step
/// needs to receive any one of them.
pub fn longest(ranges: &[Range<usize>]) -> usize {
    ranges.iter().map(|r| r.len()).max().unwrap_or(0)
}

/// `len` bytes of scratch (pooled; see [`crate::scratch`]).
pub fn scratch(len: usize) -> MpiResult<Scratch> {
    Scratch::new(len)
}

/// The removal step's pairing (Rabenseifner 2004 §3.4, §3.5), which is also
/// the first level of the canonical order of [`crate::reproducible`]: with
/// p' = `pof2` = 2^⌊lg p⌋ and r = `removed` = p − p', slot q < r stands for the
/// pair of processes 2q, 2q+1 and slot q ≥ r for process q + r.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairs {
    pub removed: usize,
    pub pof2: usize,
}

impl Pairs {
    /// For `p` processes.
    pub fn of(p: usize) -> Pairs {
        let pof2 = if p == 0 { 1 } else { 1 << p.ilog2() };
        Pairs { removed: p - pof2.min(p), pof2 }
    }

    /// The first (even, or only) process of slot `slot` (`pof2`: one past the last process).
    pub fn first(&self, slot: usize) -> usize {
        if slot < self.removed { 2 * slot } else { slot + self.removed }
    }

    /// The slot of process `rank`.
    pub fn slot_of(&self, rank: usize) -> usize {
        if rank < 2 * self.removed { rank / 2 } else { rank - self.removed }
    }
}

/// Point-to-point messaging among the `size()` processes of one communicator.
/// Messages between a pair of processes are received in the order sent.
pub trait Transport {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// Blocking send (may wait for the receiver, like `MPI_Send`).
    fn send(&self, to: usize, data: &[u8]) -> MpiResult;
    /// Blocking receive of exactly `buf.len()` bytes.
    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult;
    /// Send and receive at once (deadlock-free, like `MPI_Sendrecv`).
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult;
    /// [`sendrecv`](Transport::sendrecv) that hands the received data to
    /// `arrived` front to back, in parts of whole `unit`-byte elements, each
    /// as soon as it is in while the rest still travels, so that an
    /// algorithm folds part k into its result while part k+1 arrives
    /// (issue 11 §2, overlap). `arrived` gets each part's byte range in `buf`
    /// and the part; together the parts cover `buf` once. By default one
    /// part, after the whole exchange.
    fn sendrecv_arriving(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8], unit: usize, arrived: &mut Arrived) -> MpiResult {
        let _ = unit;
        self.sendrecv(to, data, from, buf)?;
        if buf.is_empty() {
            return Ok(());
        }
        arrived(0..buf.len(), buf)
    }
    /// Receive one message from each `(source, buffer)`, all posted at once so
    /// that they travel side by side (a tree node's children); by default one
    /// after another.
    fn recv_each(&self, sources: &mut [(usize, &mut [u8])]) -> MpiResult {
        sources.iter_mut().try_for_each(|(from, buf)| self.recv(*from, buf))
    }
    /// Run `body` with an [`Outbox`] of sends that stay in flight while the
    /// sender goes on (the two-tree reduce's streams up two trees); every
    /// message still pending when `body` returns is completed before this
    /// returns. The caller bounds what it has in flight by completing the
    /// oldest. No default: sent one by one as posted, a stream could wait
    /// for a receiver that waits for this process.
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> MpiResult) -> MpiResult;
    /// Run `body` with an [`Inbox`] of at most `slots` expected messages of
    /// at most `slot_len` bytes each; messages still expected when `body`
    /// returns are taken before this returns. By default each message is
    /// received when it is taken (blocking): a schedule that cannot deadlock
    /// so cannot deadlock either when receives really are posted ahead.
    fn inbox(&self, slots: usize, slot_len: usize, body: &mut dyn FnMut(&mut dyn Inbox) -> MpiResult) -> MpiResult {
        inbox_received_when_taken(self, slots, slot_len, body)
    }
    /// Whether an [`inbox`](Transport::inbox) posts a `len`-byte message from
    /// `from` ahead, as one message, so that it travels as soon as its sender
    /// sends (the ring then posts each step's receive a step ahead, as Open
    /// MPI's ring does). By default not: the default inbox receives when taken.
    fn receives_ahead(&self, from: usize, len: usize) -> bool {
        let _ = (from, len);
        false
    }
    /// Told of every copy of vector data an algorithm (or dispatch) makes
    /// locally, so that [`Counting`](crate::transport::counting::Counting)
    /// can report bytes copied per call; other transports ignore it.
    fn note_copy(&self, _bytes: usize) {}
    /// The memory segment shared by all ranks, where they are on one host and
    /// one was made (the shared-memory algorithm's); by default none.
    fn shared_memory(&self) -> Option<&crate::shm::Segment> {
        None
    }
}

/// Non-blocking sends of [`Transport::outbox`]: each message is posted at
/// once (in pieces, where the transport cuts messages) and completed oldest
/// first. A message is complete when its buffer may be reused: taken by its
/// receiver, or buffered by the library.
pub trait Outbox<'d> {
    /// Post `data` to `to` as one message; borrowed until it is complete.
    fn post(&mut self, to: usize, data: &'d [u8]) -> MpiResult;
    /// Messages posted and not yet complete.
    fn pending(&self) -> usize;
    /// Wait until the oldest pending message is complete.
    fn complete_oldest(&mut self) -> MpiResult;
}

/// An [`Outbox`] over another that first tells `before` of every post and
/// posts to the rank it returns (a wrapping transport's outbox: a subset's
/// ranks, a counting transport's tally).
pub struct Forwarding<'o, 'd, F: FnMut(usize, &[u8]) -> usize> {
    pub inner: &'o mut dyn Outbox<'d>,
    pub before: F,
}

impl<'d, F: FnMut(usize, &[u8]) -> usize> Outbox<'d> for Forwarding<'_, 'd, F> {
    fn post(&mut self, to: usize, data: &'d [u8]) -> MpiResult {
        let to = (self.before)(to, data);
        self.inner.post(to, data)
    }
    fn pending(&self) -> usize {
        self.inner.pending()
    }
    fn complete_oldest(&mut self) -> MpiResult {
        self.inner.complete_oldest()
    }
}

/// Receives posted ahead, of [`Transport::inbox`]: a message is expected
/// (its receive posted) before it is needed, so that it travels while the
/// process works on earlier ones (a pipeline's next segments), and taken
/// oldest first into the inbox's own slots.
pub trait Inbox {
    /// Expect a `len`-byte message from `from` (at most the inbox's slot
    /// length, and at most its number of slots expected at once).
    fn expect(&mut self, from: usize, len: usize) -> MpiResult;
    /// Messages expected and not yet taken.
    fn expected(&self) -> usize;
    /// Wait for the oldest expected message; it is lent, to read and write,
    /// until the inbox is used again.
    fn take_oldest(&mut self) -> MpiResult<&mut [u8]>;
    /// Take every message still expected (when an inbox's body returns).
    fn take_rest(&mut self) -> MpiResult {
        while self.expected() > 0 {
            self.take_oldest()?;
        }
        Ok(())
    }
}

/// [`Transport::inbox`]'s default: each message received when taken.
pub fn inbox_received_when_taken<T: Transport + ?Sized>(t: &T, slots: usize, slot_len: usize, body: &mut dyn FnMut(&mut dyn Inbox) -> MpiResult) -> MpiResult {
    inbox_in_one_slot(slots, slot_len, |_| {}, |from, slot| t.recv(from, slot), body)
}

/// An inbox whose taken message is received into one slot by `receive`
/// (source, slot) when taken; `on_expect` is told of each source as its
/// message is expected (an in-process transport's receive posted ahead).
pub fn inbox_in_one_slot(slots: usize, slot_len: usize, on_expect: impl FnMut(usize), receive: impl FnMut(usize, &mut [u8]) -> MpiResult, body: &mut dyn FnMut(&mut dyn Inbox) -> MpiResult) -> MpiResult {
    let slot = scratch(if slots == 0 { 0 } else { slot_len })?;
    let mut inbox = OneSlot { slots, expected: std::collections::VecDeque::with_capacity(slots), slot, on_expect, receive };
    body(&mut inbox)?;
    inbox.take_rest()
}

/// [`inbox_in_one_slot`]'s inbox.
struct OneSlot<E: FnMut(usize), R: FnMut(usize, &mut [u8]) -> MpiResult> {
    slots: usize,
    /// (source, length) of each expected message, oldest first.
    expected: std::collections::VecDeque<(usize, usize)>,
    slot: Scratch,
    on_expect: E,
    receive: R,
}

impl<E: FnMut(usize), R: FnMut(usize, &mut [u8]) -> MpiResult> Inbox for OneSlot<E, R> {
    fn expect(&mut self, from: usize, len: usize) -> MpiResult {
        assert!(self.expected.len() < self.slots && len <= self.slot.len(), "the inbox is full, or the message longer than its slots");
        (self.on_expect)(from);
        self.expected.push_back((from, len));
        Ok(())
    }
    fn expected(&self) -> usize {
        self.expected.len()
    }
    fn take_oldest(&mut self) -> MpiResult<&mut [u8]> {
        let (from, len) = self.expected.pop_front().expect("a message expected");
        (self.receive)(from, &mut self.slot[..len])?;
        Ok(&mut self.slot[..len])
    }
}

/// An [`Inbox`] over another that first tells `before` of every message
/// expected and expects it from the rank it returns (a subset's ranks, a
/// counting transport's tally).
pub struct ForwardingInbox<'i, F: FnMut(usize, usize) -> usize> {
    pub inner: &'i mut dyn Inbox,
    pub before: F,
}

impl<F: FnMut(usize, usize) -> usize> Inbox for ForwardingInbox<'_, F> {
    fn expect(&mut self, from: usize, len: usize) -> MpiResult {
        let from = (self.before)(from, len);
        self.inner.expect(from, len)
    }
    fn expected(&self) -> usize {
        self.inner.expected()
    }
    fn take_oldest(&mut self) -> MpiResult<&mut [u8]> {
        self.inner.take_oldest()
    }
}

/// What [`Transport::sendrecv_arriving`] calls with each part received: its
/// byte range in the receive buffer, and the part.
pub type Arrived<'f> = dyn FnMut(Range<usize>, &mut [u8]) -> MpiResult + 'f;

/// Hands a buffer's received prefix out in whole `unit`-byte elements, front
/// to back (the bookkeeping of [`Transport::sendrecv_arriving`]'s
/// implementations).
pub struct Handover {
    unit: usize,
    handed: usize,
    len: usize,
}

impl Handover {
    /// For a buffer of `len` bytes in elements of `unit` bytes.
    pub fn new(len: usize, unit: usize) -> Handover {
        Handover { unit: unit.max(1), handed: 0, len }
    }

    /// Now that `..done` has arrived: the next part to hand out (whole
    /// elements; at the end, whatever remains), if any.
    pub fn next_part(&mut self, done: usize) -> Option<Range<usize>> {
        let end = if done >= self.len { self.len } else { self.handed + (done - self.handed) / self.unit * self.unit };
        (end > self.handed).then(|| {
            let part = self.handed..end;
            self.handed = end;
            part
        })
    }
}

/// The exchange-and-reduce step most algorithms are made of: send `buf[out]`
/// to `to`, receive as much as `buf[own]` from `from` into `incoming`, and
/// fold each received piece into `buf[own]` as it arrives, while the next
/// travels (`arriving_is_left`: the received data is the left operand).
#[allow(clippy::too_many_arguments)]
pub fn exchange_and_fold(t: &(impl Transport + ?Sized), op: &(impl crate::op::Reducer + ?Sized), buf: &mut [u8], out: Range<usize>, to: usize, own: Range<usize>, from: usize, incoming: &mut [u8], arriving_is_left: bool) -> MpiResult {
    let into = &mut incoming[..own.len()];
    if out.start < own.end && own.start < out.end {
        // The step overwrites part of what it sends (the circulant's longer
        // skips): fold once the exchange is over.
        t.sendrecv(to, &buf[out], from, into)?;
        return op.reduce(into, &mut buf[own], arriving_is_left);
    }
    let (data, own) = split_read_write(buf, out, own);
    t.sendrecv_arriving(to, data, from, into, op.elem_size(), &mut |part, arrived| op.reduce(arrived, &mut own[part], arriving_is_left))
}

/// Reduce a received concatenation of blocks into the blocks' places:
/// `part` is bytes `at` of the concatenation, whose blocks are `targets`
/// (ranges of `dst`, in order). `fold(src, dst)` combines one aligned run.
pub fn fold_concatenated(at: Range<usize>, part: &[u8], targets: impl Iterator<Item = Range<usize>>, dst: &mut [u8], mut fold: impl FnMut(&[u8], &mut [u8]) -> MpiResult) -> MpiResult {
    let mut start = 0;
    for target in targets {
        let (lo, hi) = (start.max(at.start), (start + target.len()).min(at.end));
        if lo < hi {
            fold(&part[lo - at.start..hi - at.start], &mut dst[target.start + lo - start..target.start + hi - start])?;
        }
        start += target.len();
        if start >= at.end {
            break;
        }
    }
    Ok(())
}

/// How many receives [`recv_ranges`] posts at once.
const RECEIVES_AT_ONCE: usize = 48;

/// Receive one message from each `(source, range of buf)` (ranges ascending
/// and disjoint) through [`Transport::recv_each`], posted together in batches
/// of up to 48 so that they travel side by side (a tree node's children, a
/// root gathering blocks).
pub fn recv_ranges(t: &(impl Transport + ?Sized), buf: &mut [u8], sources: impl IntoIterator<Item = (usize, Range<usize>)>) -> MpiResult {
    let mut slots: [(usize, &mut [u8]); RECEIVES_AT_ONCE] = std::array::from_fn(|_| (0, Default::default()));
    let (mut rest, mut offset, mut count) = (buf, 0, 0);
    for (from, range) in sources {
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(range.start - offset);
        let (part, tail) = tail.split_at_mut(range.len());
        slots[count] = (from, part);
        (rest, offset, count) = (tail, range.end, count + 1);
        if count == RECEIVES_AT_ONCE {
            t.recv_each(&mut slots)?;
            count = 0;
        }
    }
    t.recv_each(&mut slots[..count])
}

/// `dst.copy_from_slice(src)`, counted as a local copy on `t`.
pub fn copy(t: &(impl Transport + ?Sized), dst: &mut [u8], src: &[u8]) {
    dst.copy_from_slice(src);
    t.note_copy(src.len());
}

/// How a vector of elements is cut into one block per process: block `i`
/// starts at element `offset(i)` and has `count(i)` elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocks {
    layout: Layout,
}

/// Nearly equal blocks are computed; other layouts keep their offsets in a
/// pooled vector (neither allocates on the per-call path).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Layout {
    /// `each` = total / parts and `longer` = total % parts, kept: an
    /// offset is looked up per block, a division per lookup cost more than
    /// the copy of a short block.
    Even { total: usize, parts: usize, each: usize, longer: usize },
    Offsets(crate::scratch::Pooled<usize>),
}

impl Blocks {
    /// `total` elements in `parts` blocks whose sizes differ by at most one
    /// (the first `total % parts` blocks are one element longer).
    pub fn even(total: usize, parts: usize) -> Blocks {
        let parts = parts.max(1);
        Blocks { layout: Layout::Even { total, parts, each: total / parts, longer: total % parts } }
    }

    /// Blocks of the given sizes, in order (as `MPI_Reduce_scatter`'s recvcounts).
    pub fn from_counts(counts: impl IntoIterator<Item = usize>) -> Blocks {
        let mut offsets = crate::scratch::Pooled::new();
        offsets.push(0);
        for c in counts {
            let end = offsets[offsets.len() - 1] + c;
            offsets.push(end);
        }
        Blocks { layout: Layout::Offsets(offsets) }
    }

    /// Whether the layout is [`Blocks::even`]'s (computed, not stored).
    pub fn is_even(&self) -> bool {
        matches!(self.layout, Layout::Even { .. })
    }

    pub fn len(&self) -> usize {
        match &self.layout {
            Layout::Even { parts, .. } => *parts,
            Layout::Offsets(o) => o.len() - 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Elements in all blocks.
    pub fn total(&self) -> usize {
        match &self.layout {
            Layout::Even { total, .. } => *total,
            Layout::Offsets(o) => *o.last().unwrap(),
        }
    }

    /// Where block `i` starts (`i` = `len()`: the end of the last block).
    pub fn offset(&self, i: usize) -> usize {
        match &self.layout {
            Layout::Even { each, longer, .. } => i * each + i.min(*longer),
            Layout::Offsets(o) => o[i],
        }
    }

    pub fn count(&self, i: usize) -> usize {
        self.offset(i + 1) - self.offset(i)
    }

    /// Byte range of block `i` for elements of `elem` bytes.
    pub fn bytes(&self, i: usize, elem: usize) -> Range<usize> {
        self.offset(i) * elem..self.offset(i + 1) * elem
    }

    /// Byte ranges of all blocks, in order.
    pub fn byte_ranges(&self, elem: usize) -> crate::scratch::Pooled<Range<usize>> {
        (0..self.len()).map(|i| self.bytes(i, elem)).collect()
    }

    /// Byte range of blocks `first..last` (consecutive) for elements of `elem` bytes.
    pub fn bytes_of_range(&self, first: usize, last: usize, elem: usize) -> Range<usize> {
        self.offset(first) * elem..self.offset(last) * elem
    }
}

/// Borrow `read` immutably and `write` mutably from one buffer; the ranges must
/// not overlap (used to send one block while receiving into another).
pub fn split_read_write(buf: &mut [u8], read: Range<usize>, write: Range<usize>) -> (&[u8], &mut [u8]) {
    assert!(read.end <= write.start || write.end <= read.start, "overlapping ranges");
    if read.end <= write.start {
        let (lo, hi) = buf.split_at_mut(write.start);
        (&lo[read], &mut hi[..write.end - write.start])
    } else {
        let (lo, hi) = buf.split_at_mut(read.start);
        (&hi[..read.end - read.start], &mut lo[write])
    }
}

/// Rank relative to `root` (root becomes 0), and back.
pub fn relative_rank(rank: usize, root: usize, p: usize) -> usize {
    (rank + p - root) % p
}

pub fn absolute_rank(relative: usize, root: usize, p: usize) -> usize {
    (relative + root) % p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From more sources than one batch holds, into ranges with gaps: each
    /// range gets its source's message, the gaps stay, one wait per batch.
    #[test]
    fn recv_ranges_fills_each_range_from_its_source_in_batches() {
        let p = RECEIVES_AT_ONCE + 6;
        let got = crate::transport::inproc::InProcess::run(p, |t| {
            if t.rank() > 0 {
                return t.send(0, &[t.rank() as u8; 2]).map(|_| None).unwrap();
            }
            let counting = crate::transport::counting::Counting::new(t);
            let mut buf = vec![0xffu8; 3 * p];
            // Range of source r (from the last): bytes 3(p − r) .. 3(p − r) + 2.
            recv_ranges(&counting, &mut buf, (1..p).rev().map(|r| (r, 3 * (p - r)..3 * (p - r) + 2))).unwrap();
            Some((buf, counting.traffic().receive_waits))
        });
        let (buf, waits) = got[0].clone().unwrap();
        for r in 1..p {
            let at = 3 * (p - r);
            assert_eq!(&buf[at..at + 3], &[r as u8, r as u8, 0xff], "source {r}");
        }
        assert_eq!(&buf[..3], &[0xff; 3]);
        assert_eq!(waits, 2);
    }

    #[test]
    fn even_blocks_cover_the_vector() {
        let b = Blocks::even(10, 4);
        assert_eq!((0..4).map(|i| b.count(i)).collect::<Vec<_>>(), vec![3, 3, 2, 2]);
        assert_eq!(b.total(), 10);
        assert_eq!(b.bytes(2, 8), 48..64);
        let b = Blocks::even(2, 5);
        assert_eq!((0..5).map(|i| b.count(i)).collect::<Vec<_>>(), vec![1, 1, 0, 0, 0]);
        // The computed layout agrees with explicit offsets.
        for (total, parts) in [(10, 4), (0, 3), (7, 7), (100, 9), (5, 1)] {
            let listed = Blocks::from_counts((0..parts).map(|i| Blocks::even(total, parts).count(i)));
            assert!((0..=parts).all(|i| listed.offset(i) == Blocks::even(total, parts).offset(i)), "{total} in {parts}");
        }
    }

    #[test]
    fn handover_gives_whole_elements_front_to_back() {
        // 30 bytes of 8-byte elements (the last part is what remains), arriving 7 bytes at a time.
        let mut h = Handover::new(30, 8);
        let parts: Vec<_> = (1..=5).map(|k| h.next_part((7 * k).min(30))).collect();
        assert_eq!(parts, vec![None, Some(0..8), Some(8..16), Some(16..24), Some(24..30)]);
        assert_eq!(h.next_part(30), None);
    }

    #[test]
    fn fold_concatenated_reaches_every_target_once() {
        // Targets 2..5 and 8..10 of dst, concatenated (5 bytes), arriving as 0..3 and 3..5.
        let targets = [2..5, 8..10];
        let mut dst = [0u8; 10];
        let all = [1u8, 2, 3, 4, 5];
        for at in [0..3, 3..5] {
            fold_concatenated(at.clone(), &all[at], targets.iter().cloned(), &mut dst, |s, d| {
                d.iter_mut().zip(s).for_each(|(d, s)| *d += s);
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(dst, [0, 0, 1, 2, 3, 0, 0, 0, 4, 5]);
    }

    #[test]
    fn split_read_write_both_orders() {
        let mut v: Vec<u8> = (0..10).collect();
        let (r, w) = split_read_write(&mut v, 0..3, 5..8);
        w.copy_from_slice(r);
        let (r, w) = split_read_write(&mut v, 7..9, 1..3);
        w.copy_from_slice(r);
        let (r, w) = split_read_write(&mut v, 4..4, 4..6); // empty read where the write starts
        assert_eq!((r.len(), w.len()), (0, 2));
        assert_eq!(v, vec![0, 2, 8, 3, 4, 0, 1, 2, 8, 9]);
    }
}
