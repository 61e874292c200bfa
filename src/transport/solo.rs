//! One process's view of an algorithm whose communication pattern does not
//! depend on the data: sends are recorded and dropped, receives are recorded
//! and deliver zeros. Lets tests count rounds, peers and bytes of any process
//! for any p (e.g. p = 1024) without running p threads.

use crate::algo::{Outbox, Transport};
use crate::error::MpiResult;
use std::cell::RefCell;

/// One communication call as seen by this process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// (peer, bytes) sent, if any.
    pub sent: Option<(usize, usize)>,
    /// (peer, bytes) received, if any.
    pub received: Option<(usize, usize)>,
}

pub struct Solo {
    rank: usize,
    size: usize,
    events: RefCell<Vec<Event>>,
    /// Local copies of vector data ([`Transport::note_copy`] calls).
    copies: std::cell::Cell<usize>,
}

impl Solo {
    pub fn new(rank: usize, size: usize) -> Solo {
        Solo { rank, size, events: RefCell::new(Vec::new()), copies: std::cell::Cell::new(0) }
    }

    /// How many local copies of vector data the algorithm made so far.
    pub fn copies(&self) -> usize {
        self.copies.get()
    }

    /// Every call so far, in order: one per communication round of this process.
    pub fn events(&self) -> Vec<Event> {
        self.events.borrow().clone()
    }
}

impl Transport for Solo {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn send(&self, to: usize, data: &[u8]) -> MpiResult {
        self.events.borrow_mut().push(Event { sent: Some((to, data.len())), received: None });
        Ok(())
    }
    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        buf.fill(0);
        self.events.borrow_mut().push(Event { sent: None, received: Some((from, buf.len())) });
        Ok(())
    }
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        buf.fill(0);
        self.events.borrow_mut().push(Event { sent: Some((to, data.len())), received: Some((from, buf.len())) });
        Ok(())
    }
    fn note_copy(&self, _bytes: usize) {
        self.copies.set(self.copies.get() + 1);
    }
    /// Posts are recorded and dropped, so every message is complete at once.
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> MpiResult) -> MpiResult {
        body(&mut SoloOutbox { events: &self.events })
    }
}

/// [`Solo::outbox`]'s sends: recorded as posted, complete at once.
struct SoloOutbox<'t> {
    events: &'t RefCell<Vec<Event>>,
}

impl<'d> Outbox<'d> for SoloOutbox<'_> {
    fn post(&mut self, to: usize, data: &'d [u8]) -> MpiResult {
        self.events.borrow_mut().push(Event { sent: Some((to, data.len())), received: None });
        Ok(())
    }
    fn pending(&self) -> usize {
        0
    }
    fn complete_oldest(&mut self) -> MpiResult {
        Ok(())
    }
}
