//! In-process transport: `p` threads, one inbox per rank (messages tagged by
//! sender, so O(p) channels and p = 1000 is cheap). Sends are *synchronous*
//! (they wait until the receiver has taken the message), so an algorithm that
//! would deadlock with MPI's rendezvous protocol deadlocks here too; a receive
//! that waits too long panics instead of hanging a test. With
//! [`InProcess::run_receiving_ahead`] an inbox posts its receives ahead, as
//! the PMPI transport's does on Open MPI and SMPI: a send to it completes once
//! the matching receive is expected, before it is taken.

use crate::algo::{Arrived, Handover, Inbox, Outbox, Transport};
use crate::error::MpiResult;
use crate::shm::Segment;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(60);

/// Slot bytes of the threads' shared segment: 1001 doubles are two rounds,
/// at p = 2 one over and one under the shared-memory algorithm's one-phase
/// limit, so the sweeps run both of its schemes and rounds of every element size.
pub const SHARED_SLOT: usize = 4160;

/// One rank's end of an in-process communicator.
pub struct InProcess {
    rank: usize,
    size: usize,
    /// Inboxes of every rank: (sender, message).
    inboxes: Vec<Sender<(usize, Vec<u8>)>>,
    inbox: Receiver<(usize, Vec<u8>)>,
    /// Messages that arrived before they were asked for, by sender.
    early: RefCell<HashMap<usize, VecDeque<Vec<u8>>>>,
    /// Acknowledgement inboxes of every rank: (receiver that took a message).
    ack_inboxes: Vec<Sender<usize>>,
    acks: Receiver<usize>,
    early_acks: RefCell<HashMap<usize, usize>>,
    /// Memory all the threads share (the shared-memory algorithm's).
    shared: std::sync::Arc<Segment>,
    /// Whether inboxes post their receives ahead ([`Transport::receives_ahead`]).
    ahead: bool,
}

impl InProcess {
    /// Run `body` on `p` ranks, each in its own thread; results in rank order.
    pub fn run<R: Send>(p: usize, body: impl Fn(&InProcess) -> R + Sync) -> Vec<R> {
        Self::run_with(p, false, body)
    }

    /// [`run`](InProcess::run) with inboxes that post their receives ahead.
    pub fn run_receiving_ahead<R: Send>(p: usize, body: impl Fn(&InProcess) -> R + Sync) -> Vec<R> {
        Self::run_with(p, true, body)
    }

    fn run_with<R: Send>(p: usize, ahead: bool, body: impl Fn(&InProcess) -> R + Sync) -> Vec<R> {
        let (inboxes, inbox_ends): (Vec<_>, Vec<_>) = (0..p).map(|_| channel()).unzip();
        let (ack_inboxes, ack_ends): (Vec<_>, Vec<_>) = (0..p).map(|_| channel()).unzip();
        let shared = std::sync::Arc::new(Segment::in_heap(p, SHARED_SLOT, Some(PATIENCE)));
        let ends: Vec<InProcess> = inbox_ends
            .into_iter()
            .zip(ack_ends)
            .enumerate()
            .map(|(rank, (inbox, acks))| InProcess {
                rank,
                size: p,
                inboxes: inboxes.clone(),
                inbox,
                early: RefCell::default(),
                ack_inboxes: ack_inboxes.clone(),
                acks,
                early_acks: RefCell::default(),
                shared: shared.clone(),
                ahead,
            })
            .collect();
        std::thread::scope(|s| {
            let body = &body;
            let handles: Vec<_> = ends
                .into_iter()
                .map(|end| {
                    std::thread::Builder::new()
                        .stack_size(256 * 1024)
                        .spawn_scoped(s, move || body(&end))
                        .expect("spawn rank thread")
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("rank thread panicked")).collect()
        })
    }

    fn post(&self, to: usize, data: &[u8]) {
        self.inboxes[to].send((self.rank, data.to_vec())).expect("peer rank has exited");
    }

    fn wait_ack(&self, to: usize) {
        loop {
            if let Some(n) = self.early_acks.borrow_mut().get_mut(&to).filter(|n| **n > 0) {
                *n -= 1;
                return;
            }
            match self.acks.recv_timeout(PATIENCE) {
                Ok(from) if from == to => return,
                Ok(from) => *self.early_acks.borrow_mut().entry(from).or_default() += 1,
                Err(_) => panic!("rank {}: send to {} never received (deadlock?)", self.rank, to),
            }
        }
    }

    /// Take the next message from `from` and acknowledge it.
    fn take(&self, from: usize, buf: &mut [u8]) {
        self.take_unacknowledged(from, buf);
        self.acknowledge(from);
    }

    /// Tell `from` that a message of its has been received (or its receive
    /// posted): its send completes.
    fn acknowledge(&self, from: usize) {
        let _ = self.ack_inboxes[from].send(self.rank);
    }

    fn take_unacknowledged(&self, from: usize, buf: &mut [u8]) {
        let early = self.early.borrow_mut().get_mut(&from).and_then(|q| q.pop_front());
        let msg = match early {
            Some(m) => m,
            None => loop {
                match self.inbox.recv_timeout(PATIENCE) {
                    Ok((src, m)) if src == from => break m,
                    Ok((src, m)) => self.early.borrow_mut().entry(src).or_default().push_back(m),
                    Err(_) => panic!("rank {}: nothing from {} (deadlock?)", self.rank, from),
                }
            },
        };
        assert_eq!(msg.len(), buf.len(), "rank {}: message from {} has the wrong length", self.rank, from);
        buf.copy_from_slice(&msg);
    }
}

impl Transport for InProcess {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn send(&self, to: usize, data: &[u8]) -> MpiResult {
        self.post(to, data);
        self.wait_ack(to);
        Ok(())
    }
    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        self.take(from, buf);
        Ok(())
    }
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        self.post(to, data);
        self.take(from, buf);
        self.wait_ack(to);
        Ok(())
    }
    /// The data arrives at once, but is handed over in steps of
    /// [`ARRIVAL_STEP`] bytes (not a multiple of any element size), as pieces
    /// arrive over MPI, so that the tests run every algorithm's folding of
    /// partial arrivals and the alignment of parts to whole elements.
    fn sendrecv_arriving(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8], unit: usize, arrived: &mut Arrived) -> MpiResult {
        self.sendrecv(to, data, from, buf)?;
        let mut handover = Handover::new(buf.len(), unit);
        let mut done = 0;
        while done < buf.len() {
            done = (done + ARRIVAL_STEP).min(buf.len());
            if let Some(part) = handover.next_part(done) {
                arrived(part.clone(), &mut buf[part])?;
            }
        }
        Ok(())
    }
    /// Posts go to the receiver's inbox at once; a message is complete
    /// when its receiver has taken it (sends are synchronous here).
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> MpiResult) -> MpiResult {
        let mut out = InProcessOutbox { transport: self, receivers: VecDeque::new() };
        body(&mut out)?;
        while out.pending() > 0 {
            out.complete_oldest()?;
        }
        Ok(())
    }
    fn receives_ahead(&self, _from: usize, _len: usize) -> bool {
        self.ahead
    }
    /// With receives ahead, each expected message is acknowledged at once
    /// (its sender's send completes, as over MPI once the receive is posted)
    /// and taken when the algorithm takes it.
    fn inbox(&self, slots: usize, slot_len: usize, body: &mut dyn FnMut(&mut dyn Inbox) -> MpiResult) -> MpiResult {
        if !self.ahead {
            return crate::algo::inbox_received_when_taken(self, slots, slot_len, body);
        }
        let receive = |from, slot: &mut [u8]| {
            self.take_unacknowledged(from, slot);
            Ok(())
        };
        crate::algo::inbox_in_one_slot(slots, slot_len, |from| self.acknowledge(from), receive, body)
    }
    fn shared_memory(&self) -> Option<&Segment> {
        Some(&self.shared)
    }
}

/// [`InProcess::outbox`]'s sends: the receiver of each pending message,
/// oldest first.
struct InProcessOutbox<'t> {
    transport: &'t InProcess,
    receivers: VecDeque<usize>,
}

impl<'d> Outbox<'d> for InProcessOutbox<'_> {
    fn post(&mut self, to: usize, data: &'d [u8]) -> MpiResult {
        self.transport.post(to, data);
        self.receivers.push_back(to);
        Ok(())
    }
    fn pending(&self) -> usize {
        self.receivers.len()
    }
    fn complete_oldest(&mut self) -> MpiResult {
        if let Some(to) = self.receivers.pop_front() {
            self.transport.wait_ack(to);
        }
        Ok(())
    }
}

/// Bytes per step of [`InProcess::sendrecv_arriving`]'s hand-over.
const ARRIVAL_STEP: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_shift_and_self_messages() {
        let got = InProcess::run(5, |t| {
            let mut b = [0u8; 1];
            t.sendrecv((t.rank() + 1) % 5, &[t.rank() as u8], (t.rank() + 4) % 5, &mut b).unwrap();
            b[0]
        });
        assert_eq!(got, vec![4, 0, 1, 2, 3]);
    }

    #[test]
    #[should_panic]
    fn mismatched_lengths_are_caught() {
        InProcess::run(2, |t| {
            let mut b = [0u8; 2];
            t.sendrecv(1 - t.rank(), &[1], 1 - t.rank(), &mut b).unwrap();
        });
    }
}
