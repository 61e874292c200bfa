//! A transport over some of another transport's ranks (the ranks of one
//! host, or one lane across hosts), so that any algorithm runs on a group:
//! rank i of the subset is rank `members[i]` of the parent.

use super::{Forwarding, Outbox, Transport};
use crate::error::MpiResult;

pub struct Subset<'a, T: Transport + ?Sized> {
    parent: &'a T,
    members: &'a [usize],
    index: usize,
}

impl<'a, T: Transport + ?Sized> Subset<'a, T> {
    /// The group `members` (parent ranks, distinct) of which this process is
    /// `members[index]`.
    pub fn new(parent: &'a T, members: &'a [usize], index: usize) -> Self {
        debug_assert_eq!(members[index], parent.rank());
        Subset { parent, members, index }
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
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> MpiResult) -> MpiResult {
        self.parent.outbox(&mut |inner| body(&mut Forwarding { inner, before: |to, _: &[u8]| self.members[to] }))
    }
    fn note_copy(&self, bytes: usize) {
        self.parent.note_copy(bytes)
    }
}
