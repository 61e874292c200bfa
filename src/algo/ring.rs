//! The ring (`ring`; `topo_ring` is an alias): the bandwidth-efficient
//! all-reduce of Patarasuk & Yuan §3.2 (the ring of Rabenseifner 2004 §3.2 and
//! §3.7 for both phases): a ring reduce-scatter followed by a ring allgather
//! over a *logical ring* — rank order, or, when fastred knows the topology
//! (ranks grouped by host, or a `FASTRED_TOPOLOGY` file), the order
//! `F(0) → F(1) → … → F(N−1) → F(0)`, a permutation of the ranks chosen so
//! that no two ring edges share a directed network link (Lemma 4, see
//! [`crate::topology`]). Every message goes to the ring successor, so each
//! process sends exactly 2(N−1)/N·n bytes in 2(N−1) steps (Lemma 3: optimal).
//! Requires a commutative op (a segment is combined in ring order).

use super::{split_read_write, Blocks, Inbox, Transport};
use crate::error::MpiResult;
use crate::op::Reducer;
use std::ops::Range;
use super::registry::Job;
use crate::model::{CostModel, Terms};
use crate::scratch::Pooled;
use crate::collective::Collective;

/// This process's place in a logical ring: `order[i]` is the rank at ring
/// position i.
#[derive(Clone, Debug)]
pub struct RingPosition<'a> {
    order: &'a [usize],
    position: usize,
}

impl<'a> RingPosition<'a> {
    /// The position of `rank` in `order` (a permutation of 0..order.len()).
    pub fn of(order: &'a [usize], rank: usize) -> RingPosition<'a> {
        let position = order.iter().position(|&r| r == rank).expect("the ring order holds every rank");
        RingPosition { order, position }
    }

    fn len(&self) -> usize {
        self.order.len()
    }

    /// Position `i` steps after this one (`i` may exceed the ring length).
    fn ahead(&self, i: usize) -> usize {
        (self.position + i) % self.len()
    }

    /// Position `i` steps before this one.
    fn behind(&self, i: usize) -> usize {
        (self.position + self.len() * 2 - i % self.len()) % self.len()
    }

    fn successor(&self) -> usize {
        self.order[self.ahead(1)]
    }

    fn predecessor(&self) -> usize {
        self.order[self.behind(1)]
    }
}

/// Ring reduce-scatter (§3.2, Figure 3): segment `k` is `buf[segments[k]]`.
/// In iteration j = 1..N−1 the process at position i sends its partial
/// result for segment i−j to its successor and folds the predecessor's partial
/// result for segment i−j−1 into its own. Afterwards position i holds the
/// reduction of segment i; the other segments hold partial results. Each
/// piece of a segment is folded in as it arrives, while the next travels;
/// where the transport takes whole messages posted ahead, each step's
/// receive is posted a step ahead instead ([`steps_receiving_ahead`]).
pub fn reduce_scatter(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], segments: &[Range<usize>], ring: &RingPosition) -> MpiResult {
    let longest = super::longest(segments);
    if receives_ahead(t, ring, longest) {
        return steps_receiving_ahead(t, ring, segments, longest, 1, &mut |j, inbox| {
            let (out, own) = split_read_write(buf, segments[ring.behind(j)].clone(), segments[ring.behind(j + 1)].clone());
            send_taking(t, ring.successor(), out, inbox, |arrived| op.reduce(arrived, own, true))
        });
    }
    let mut incoming = super::scratch(longest)?;
    for j in 1..ring.len() {
        let (sending, arriving) = (ring.behind(j), ring.behind(j + 1));
        super::exchange_and_fold(t, op, buf, segments[sending].clone(), ring.successor(), segments[arriving].clone(), ring.predecessor(), &mut incoming, true)?;
    }
    Ok(())
}

/// The same ring reduce-scatter reading `input` (never written) and leaving
/// this position's reduced segment in `own`, without copying the input: each
/// step receives the predecessor's partial result into a fresh buffer (the
/// last step into `own`) and folds the input's segment into it, the operands
/// in the same order as [`reduce_scatter`] (same bits); the partial result
/// travels on from there.
pub fn reduce_scatter_into(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), input: &[u8], own: &mut [u8], segments: &[Range<usize>], ring: &RingPosition) -> MpiResult {
    let steps = ring.len() - 1;
    if steps == 0 {
        super::copy(t, own, &input[segments[ring.position].clone()]);
        return Ok(());
    }
    let longest = super::longest(segments);
    let between = if steps > 1 { longest } else { 0 };
    let (mut previous, mut current) = (super::scratch(between)?, super::scratch(between)?);
    if receives_ahead(t, ring, longest) {
        // The message lands in the inbox's slot: the input's segment is
        // copied where the partial result goes and the message folded into
        // it, the message the left operand as above.
        return steps_receiving_ahead(t, ring, segments, longest, 1, &mut |j, inbox| {
            let (sending, arriving) = (ring.behind(j), ring.behind(j + 1));
            let out = if j == 1 { &input[segments[sending].clone()] } else { &previous[..segments[sending].len()] };
            let into = if j == steps { &mut *own } else { &mut current[..segments[arriving].len()] };
            super::copy(t, into, &input[segments[arriving].clone()]);
            send_taking(t, ring.successor(), out, inbox, |arrived| op.reduce(arrived, into, true))?;
            std::mem::swap(&mut previous, &mut current);
            Ok(())
        });
    }
    for j in 1..=steps {
        let (sending, arriving) = (ring.behind(j), ring.behind(j + 1));
        let out = if j == 1 { &input[segments[sending].clone()] } else { &previous[..segments[sending].len()] };
        let into = if j == steps { &mut *own } else { &mut current[..segments[arriving].len()] };
        let own = &input[segments[arriving].clone()];
        t.sendrecv_arriving(ring.successor(), out, ring.predecessor(), into, op.elem_size(), &mut |part, arrived| op.reduce(&own[part], arrived, false))?;
        std::mem::swap(&mut previous, &mut current);
    }
    Ok(())
}

/// Ring allgather (§3.2, after [4]): position i starts with segment i and in
/// each of N−1 iterations forwards what it last received to its successor
/// (each receive posted a step ahead where the transport can:
/// [`steps_receiving_ahead`]; the message is copied from the inbox's slot).
pub fn allgather(t: &(impl Transport + ?Sized), buf: &mut [u8], segments: &[Range<usize>], ring: &RingPosition) -> MpiResult {
    let longest = super::longest(segments);
    if receives_ahead(t, ring, longest) {
        return steps_receiving_ahead(t, ring, segments, longest, 0, &mut |j, inbox| {
            let (out, into) = split_read_write(buf, segments[ring.behind(j - 1)].clone(), segments[ring.behind(j)].clone());
            send_taking(t, ring.successor(), out, inbox, |arrived| {
                super::copy(t, into, arrived);
                Ok(())
            })
        });
    }
    for j in 0..ring.len().saturating_sub(1) {
        let (sending, arriving) = (ring.behind(j), ring.behind(j + 1));
        let (out, into) = split_read_write(buf, segments[sending].clone(), segments[arriving].clone());
        t.sendrecv(ring.successor(), out, ring.predecessor(), into)?;
    }
    Ok(())
}

/// Whether the ring's steps post each receive a step ahead: where the
/// transport receives every segment from the predecessor as one message
/// posted ahead ([`Transport::receives_ahead`]).
fn receives_ahead(t: &(impl Transport + ?Sized), ring: &RingPosition, longest: usize) -> bool {
    ring.len() > 1 && t.receives_ahead(ring.predecessor(), longest)
}

/// The N−1 steps of one ring phase with each step's receive posted a step
/// ahead, as Open MPI's ring does: while this process works on step j's
/// message, step j+1's is already expected, so it travels as soon as the
/// predecessor sends it instead of waiting for this process to ask. (SimGrid
/// SMPI starts a transfer only once both ends are posted; there the ring's
/// reduce-scatter of 1 MiB at 50 = 2 × 24 + 2 took 1.87x Open MPI's ring
/// with one `MPI_Sendrecv` a step.) Step j (1..N−1) receives segment
/// `behind(j + lag)` and calls `step(j, inbox)`, which sends and takes that
/// step's message ([`send_taking`]); `lag` is 1 for the reduce-scatter, 0
/// for the allgather; `longest` is the longest segment, the inbox's slots.
fn steps_receiving_ahead(t: &(impl Transport + ?Sized), ring: &RingPosition, segments: &[Range<usize>], longest: usize, lag: usize, step: &mut dyn FnMut(usize, &mut dyn Inbox) -> MpiResult) -> MpiResult {
    let (from, steps) = (ring.predecessor(), ring.len() - 1);
    let arriving = |j: usize| segments[ring.behind(j + lag)].len();
    t.inbox(2, longest, &mut |inbox| {
        inbox.expect(from, arriving(1))?;
        for j in 1..=steps {
            if j < steps {
                inbox.expect(from, arriving(j + 1))?;
            }
            step(j, inbox)?;
        }
        Ok(())
    })
}

/// One step of [`steps_receiving_ahead`]: send `data` to `to`, then take
/// the inbox's oldest message and hand it to `fold`. The send blocks, as in
/// Open MPI's ring: the successor expects this step's message since its
/// previous step, so the send completes without waiting for it to be taken
/// (no cycle of waits). (In SMPI a blocking send of 64 KiB or more costs no
/// sender overhead and `MPI_Isend` 0.5 µs: with it the reduce-scatter of
/// 4 MiB at 50 processes took 1.06x Open MPI's ring, with this its time.)
fn send_taking(t: &(impl Transport + ?Sized), to: usize, data: &[u8], inbox: &mut dyn Inbox, fold: impl FnOnce(&[u8]) -> MpiResult) -> MpiResult {
    t.send(to, data)?;
    fold(inbox.take_oldest()?)
}

/// Byte ranges of nearly equal segments, one per ring position.
fn even_segments(buf: &[u8], elem: usize, parts: usize) -> Pooled<Range<usize>> {
    Blocks::even(buf.len() / elem, parts).byte_ranges(elem)
}

/// Allreduce on the logical ring `order`. One process reduces each segment,
/// so all ranks end with bit-identical results.
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], order: &[usize]) -> MpiResult {
    let ring = RingPosition::of(order, t.rank());
    let segments = even_segments(buf, op.elem_size(), t.size());
    reduce_scatter(t, op, buf, &segments, &ring)?;
    allgather(t, buf, &segments, &ring)
}

/// The byte ranges of rank `order[i]`'s block, for ring position i.
fn block_segments(blocks: &Blocks, order: &[usize], elem: usize) -> Pooled<Range<usize>> {
    order.iter().map(|&r| blocks.bytes(r, elem)).collect()
}

/// `MPI_Reduce_scatter` on the ring: the position of rank r reduces r's
/// block, so every rank ends with its own block at `blocks.bytes(r)`.
pub fn reduce_scatter_blocks(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], blocks: &Blocks, order: &[usize]) -> MpiResult {
    let ring = RingPosition::of(order, t.rank());
    reduce_scatter(t, op, buf, &block_segments(blocks, order, op.elem_size()), &ring)
}

/// Reduce: the ring reduce-scatter, then every process sends its reduced
/// segment to `root` (as the ring reduce of Rabenseifner §3.7).
pub fn reduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8], root: usize, order: &[usize]) -> MpiResult {
    let ring = RingPosition::of(order, t.rank());
    let segments = even_segments(buf, op.elem_size(), t.size());
    reduce_scatter(t, op, buf, &segments, &ring)?;
    if t.rank() != root {
        return t.send(root, &buf[segments[ring.position].clone()]);
    }
    for (k, &from) in order.iter().enumerate().filter(|(_, &r)| r != root) {
        t.recv(from, &mut buf[segments[k].clone()])?;
    }
    Ok(())
}

/// The identity ring `0 → 1 → … → p−1`, for callers without a topology.
pub fn rank_order(p: usize) -> Pooled<usize> {
    (0..p).collect()
}

/// Registry entry: all four collectives on the job's logical ring.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf, job.ring),
        Collective::Reduce => reduce(t, op, buf, job.root, job.ring),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => reduce_scatter_blocks(t, op, buf, job.blocks, job.ring),
    }
}

/// Registry entry with a separate input: allreduce (the reduce-scatter reads
/// the input, the allgather runs in `output`) and the reduce-scatters.
pub fn run_from(t: &dyn Transport, op: &dyn Reducer, input: &[u8], output: &mut [u8], job: &Job) -> MpiResult {
    let ring = RingPosition::of(job.ring, t.rank());
    match job.coll {
        Collective::Allreduce => {
            let segments = even_segments(input, op.elem_size(), t.size());
            reduce_scatter_into(t, op, input, &mut output[segments[ring.position].clone()], &segments, &ring)?;
            allgather(t, output, &segments, &ring)
        }
        Collective::Reduce => super::registry::not_implemented("ring (separate input)", job.coll),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => {
            reduce_scatter_into(t, op, input, output, &block_segments(job.blocks, job.ring, op.elem_size()), &ring)
        }
    }
}

/// Patarasuk & Yuan and Rabenseifner §3.7: p − 1 steps per phase.
pub fn estimate(coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    match coll {
        Collective::ReduceScatter | Collective::ReduceScatterBlock => (x.p - 1.0) * x.a + x.frac * x.n * (x.b + x.g),
        _ => 2.0 * (x.p - 1.0) * x.a + 2.0 * x.frac * x.n * x.b + x.frac * x.n * x.g,
    }
}
