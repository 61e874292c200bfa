//! A transport wrapper that counts what passes through it: steps (calls that
//! communicate), messages and bytes in each direction. Tests use it to check
//! the cost terms of the papers exactly.

use crate::algo::{ForwardingInbox, Inbox, Outbox, Transport};
use crate::error::MpiResult;
use std::cell::Cell;

/// What one process sent and received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Communication steps: each send, recv or sendrecv call is one.
    pub steps: u64,
    pub messages_sent: u64,
    pub bytes_sent: u64,
    pub messages_received: u64,
    pub bytes_received: u64,
    /// Waits for receives: each recv or sendrecv, and each
    /// [`Transport::recv_each`] of several sources at once, is one.
    pub receive_waits: u64,
    /// Bytes of vector data copied locally (input into the work buffer,
    /// rotations, results out of scratch): [`Transport::note_copy`].
    pub bytes_copied: u64,
    /// Most messages pending at once in an [`Outbox`] (posted, not complete).
    pub most_in_flight: u64,
}

/// Counts the traffic of an inner transport.
pub struct Counting<'a, T> {
    inner: &'a T,
    traffic: Cell<Traffic>,
    /// Bytes copied, apart: one add per copy on the per-call path.
    copied: Cell<u64>,
}

impl<'a, T: Transport> Counting<'a, T> {
    pub fn new(inner: &'a T) -> Self {
        Counting { inner, traffic: Cell::new(Traffic::default()), copied: Cell::new(0) }
    }

    pub fn traffic(&self) -> Traffic {
        Traffic { bytes_copied: self.copied.get(), ..self.traffic.get() }
    }

    /// One step: a message sent, one received (or both), and `waits`
    /// receive waits (0 or 1).
    fn record(&self, sent: Option<usize>, received: Option<usize>, waits: u64) {
        let mut t = self.traffic.get();
        t.steps += 1;
        if let Some(n) = sent {
            t.messages_sent += 1;
            t.bytes_sent += n as u64;
        }
        if let Some(n) = received {
            t.messages_received += 1;
            t.bytes_received += n as u64;
        }
        t.receive_waits += waits;
        self.traffic.set(t);
    }
}

impl<T: Transport> Transport for Counting<'_, T> {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn send(&self, to: usize, data: &[u8]) -> MpiResult {
        self.record(Some(data.len()), None, 0);
        self.inner.send(to, data)
    }
    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        self.record(None, Some(buf.len()), 1);
        self.inner.recv(from, buf)
    }
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        self.record(Some(data.len()), Some(buf.len()), 1);
        self.inner.sendrecv(to, data, from, buf)
    }
    fn sendrecv_arriving(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8], unit: usize, arrived: &mut crate::algo::Arrived) -> MpiResult {
        self.record(Some(data.len()), Some(buf.len()), 1);
        self.inner.sendrecv_arriving(to, data, from, buf, unit, arrived)
    }
    fn recv_each(&self, sources: &mut [(usize, &mut [u8])]) -> MpiResult {
        // One wait for all of them.
        sources.iter().enumerate().for_each(|(i, (_, buf))| self.record(None, Some(buf.len()), u64::from(i == 0)));
        self.inner.recv_each(sources)
    }
    /// One step for all the messages posted in it, which travel together.
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> MpiResult) -> MpiResult {
        self.traffic.set(Traffic { steps: self.traffic.get().steps + 1, ..self.traffic.get() });
        self.inner.outbox(&mut |inner| body(&mut CountingOutbox { inner, traffic: &self.traffic }))
    }
    /// One step for the inbox; each message expected counts as received,
    /// with one wait (its take).
    fn inbox(&self, slots: usize, slot_len: usize, body: &mut dyn FnMut(&mut dyn Inbox) -> MpiResult) -> MpiResult {
        self.traffic.set(Traffic { steps: self.traffic.get().steps + 1, ..self.traffic.get() });
        self.inner.inbox(slots, slot_len, &mut |inner| {
            let before = |from, len| {
                let mut t = self.traffic.get();
                t.messages_received += 1;
                t.bytes_received += len as u64;
                t.receive_waits += 1;
                self.traffic.set(t);
                from
            };
            body(&mut ForwardingInbox { inner, before })
        })
    }
    fn receives_ahead(&self, from: usize, len: usize) -> bool {
        self.inner.receives_ahead(from, len)
    }
    fn note_copy(&self, bytes: usize) {
        self.copied.set(self.copied.get() + bytes as u64);
        self.inner.note_copy(bytes)
    }
    fn shared_memory(&self) -> Option<&crate::shm::Segment> {
        self.inner.shared_memory()
    }
}

/// [`Counting::outbox`]'s sends: counted as posted, with the most in flight.
struct CountingOutbox<'o, 'd, 'c> {
    inner: &'o mut dyn Outbox<'d>,
    traffic: &'c Cell<Traffic>,
}

impl<'d> Outbox<'d> for CountingOutbox<'_, 'd, '_> {
    fn post(&mut self, to: usize, data: &'d [u8]) -> MpiResult {
        self.inner.post(to, data)?;
        let mut t = self.traffic.get();
        t.messages_sent += 1;
        t.bytes_sent += data.len() as u64;
        t.most_in_flight = t.most_in_flight.max(self.inner.pending() as u64);
        self.traffic.set(t);
        Ok(())
    }
    fn pending(&self) -> usize {
        self.inner.pending()
    }
    fn complete_oldest(&mut self) -> MpiResult {
        self.inner.complete_oldest()
    }
}
