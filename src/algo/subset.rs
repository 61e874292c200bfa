//! A transport over some of another transport's ranks (the ranks of one
//! host, or one lane across hosts), so that any algorithm runs on a group:
//! rank i of the subset is rank `members[i]` of the parent.

use super::{Forwarding, ForwardingInbox, Inbox, Outbox, Transport};
use crate::error::MpiResult;

pub struct Subset<'a, T: Transport + ?Sized> {
    parent: &'a T,
    members: &'a [usize],
    index: usize,
    /// Whether the parent's [`Transport::receives_ahead`] is passed on.
    ahead: bool,
}

impl<'a, T: Transport + ?Sized> Subset<'a, T> {
    /// The group `members` (parent ranks, distinct) of which this process is
    /// `members[index]`.
    pub fn new(parent: &'a T, members: &'a [usize], index: usize) -> Self {
        debug_assert_eq!(members[index], parent.rank());
        Subset { parent, members, index, ahead: true }
    }

    /// The same group, whose algorithms keep one exchange a step
    /// ([`Transport::receives_ahead`] says no): the two-level algorithm's
    /// lanes, K rings side by side over the same hosts' links. With each
    /// step's receive posted ahead some lanes' rings ran ahead of the
    /// others' and the phase waited for the last (simulated, the fat tree,
    /// 200 = 12 × 16 + 8: the reduce-scatter of 4 MiB 1.13x, of 1 MiB
    /// 1.09x the time with one exchange a step; the rings within a host
    /// gain from it: 0.97-0.99x).
    pub fn one_exchange_a_step(self) -> Self {
        Subset { ahead: false, ..self }
    }
}

impl<T: Transport + ?Sized> Transport for Subset<'_, T> {
    fn rank(&self) -> usize {
        self.index
    }
    fn size(&self) -> usize {
        self.members.len()
    }
    fn send(&self, to: usize, data: &[u8]) -> MpiResult {
        self.parent.send(self.members[to], data)
    }
    fn recv(&self, from: usize, buf: &mut [u8]) -> MpiResult {
        self.parent.recv(self.members[from], buf)
    }
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> MpiResult {
        self.parent.sendrecv(self.members[to], data, self.members[from], buf)
    }
    fn sendrecv_arriving(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8], unit: usize, arrived: &mut super::Arrived) -> MpiResult {
        self.parent.sendrecv_arriving(self.members[to], data, self.members[from], buf, unit, arrived)
    }
    /// Passed on with the sources' parent ranks, so that the parent posts
    /// them all at once (the two-tree's and the k-nomial tree's receives in
    /// a two-level algorithm's lanes).
    fn recv_each(&self, sources: &mut [(usize, &mut [u8])]) -> MpiResult {
        sources.iter_mut().for_each(|(rank, _)| *rank = self.members[*rank]);
        let received = self.parent.recv_each(sources);
        for (rank, _) in sources.iter_mut() {
            *rank = self.members.iter().position(|m| m == rank).expect("a member's rank");
        }
        received
    }
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> MpiResult) -> MpiResult {
        self.parent.outbox(&mut |inner| body(&mut Forwarding { inner, before: |to, _: &[u8]| self.members[to] }))
    }
    fn inbox(&self, slots: usize, slot_len: usize, body: &mut dyn FnMut(&mut dyn Inbox) -> MpiResult) -> MpiResult {
        self.parent.inbox(slots, slot_len, &mut |inner| body(&mut ForwardingInbox { inner, before: |from, _| self.members[from] }))
    }
    fn receives_ahead(&self, from: usize, len: usize) -> bool {
        self.ahead && self.parent.receives_ahead(self.members[from], len)
    }
    fn note_copy(&self, bytes: usize) {
        self.parent.note_copy(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::counting::Counting;
    use crate::transport::inproc::InProcess;

    /// A subset's receives from several members are one wait of the
    /// parent's, from the members' parent ranks, and leave the caller's
    /// ranks as they were.
    #[test]
    fn recv_each_receives_from_the_members_at_once() {
        let members = [4, 1, 3];
        let got = InProcess::run(5, |t| {
            let index = members.iter().position(|&m| m == t.rank())?;
            let counting = Counting::new(t);
            let group = Subset::new(&counting, &members, index);
            if index == 0 {
                let (mut a, mut b) = ([0u8; 2], [0u8; 3]);
                let mut sources: [(usize, &mut [u8]); 2] = [(2, &mut b), (1, &mut a)];
                group.recv_each(&mut sources).unwrap();
                let ranks = [sources[0].0, sources[1].0];
                Some((ranks, a.to_vec(), b.to_vec(), counting.traffic().receive_waits))
            } else {
                group.send(0, &vec![t.rank() as u8; index + 1]).unwrap();
                None
            }
        });
        assert_eq!(got[4], Some(([2, 1], vec![1, 1], vec![3, 3, 3], 1)));
    }
}
