//! Where the ranks of a communicator are, indexed both ways: every rank's
//! host, and every host's ranks. Built once per communicator, with its
//! [`Placement`](crate::comm::Placement), so that an algorithm working host
//! by host (the two-level one) finds a host's ranks without a pass over all
//! p ranks on every call (at p = 4096 that pass cost about as much as a
//! short call's messages: `examples/cpu_per_call.rs`).

use super::halving_doubling_hosts::HostsPlan;
use once_cell::sync::OnceCell;

/// Every rank's host (`map[r]`) and every host's ranks.
#[derive(Clone, Debug, Default)]
pub struct HostMap {
    /// `host_of[r]`: rank r's host, numbered from 0.
    host_of: Vec<usize>,
    /// The ranks host by host, ascending within a host: host h's are
    /// `by_host[host_start[h]..host_start[h + 1]]` (local index = position).
    by_host: Vec<usize>,
    host_start: Vec<usize>,
    /// Hosts that hold a rank, and the fewest and most ranks on one of them.
    occupied: usize,
    fewest: usize,
    most: usize,
    /// Halving & doubling over hosts' plan, made at its first use (so once
    /// per communicator: the host map is kept with it).
    pub(super) halving_plan: OnceCell<Option<HostsPlan>>,
}

/// No hosts known: for algorithms that do not use them.
pub static NO_HOSTS: HostMap = HostMap { host_of: Vec::new(), by_host: Vec::new(), host_start: Vec::new(), occupied: 0, fewest: 0, most: 0, halving_plan: OnceCell::new() };

impl HostMap {
    /// From `host_of[r]`, rank r's host (a counting sort: O(p + hosts)).
    pub fn new(host_of: &[usize]) -> HostMap {
        let host_count = host_of.iter().max().map_or(0, |&h| h + 1);
        let mut host_start = vec![0; host_count + 1];
        for &h in host_of {
            host_start[h + 1] += 1;
        }
        for h in 0..host_count {
            host_start[h + 1] += host_start[h];
        }
        let mut next = host_start.clone();
        let mut by_host = vec![0; host_of.len()];
        for (r, &h) in host_of.iter().enumerate() {
            by_host[next[h]] = r;
            next[h] += 1;
        }
        let sizes = || host_start.windows(2).map(|w| w[1] - w[0]).filter(|&k| k > 0);
        let (occupied, fewest, most) = (sizes().count(), sizes().min().unwrap_or(0), sizes().max().unwrap_or(0));
        HostMap { host_of: host_of.to_vec(), by_host, host_start, occupied, fewest, most, halving_plan: OnceCell::new() }
    }

    /// Every rank's host.
    pub fn host_of(&self) -> &[usize] {
        &self.host_of
    }

    /// How many ranks.
    pub fn len(&self) -> usize {
        self.host_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.host_of.is_empty()
    }

    /// Host numbers run from 0 to `host_count() - 1` (some may hold no rank).
    pub fn host_count(&self) -> usize {
        self.host_start.len().saturating_sub(1)
    }

    /// The ranks on host `h`, ascending.
    pub fn ranks_on(&self, h: usize) -> &[usize] {
        &self.by_host[self.host_start[h]..self.host_start[h + 1]]
    }

    /// How many hosts hold a rank.
    pub fn occupied(&self) -> usize {
        self.occupied
    }

    /// The fewest ranks on a host that holds one (0: no ranks).
    pub fn fewest(&self) -> usize {
        self.fewest
    }

    /// The most ranks on a host.
    pub fn most(&self) -> usize {
        self.most
    }
}

/// Equal where every rank's host is (the rest follows from it; the plans
/// kept are made from it on use).
impl PartialEq for HostMap {
    fn eq(&self, other: &HostMap) -> bool {
        self.host_of == other.host_of
    }
}

impl Eq for HostMap {}

impl std::ops::Index<usize> for HostMap {
    type Output = usize;
    /// Rank `r`'s host.
    fn index(&self, r: usize) -> &usize {
        &self.host_of[r]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_map_lists_each_hosts_ranks_in_order() {
        // Hosts 0, 2 and 3 hold ranks, host 1 none.
        let m = HostMap::new(&[2, 0, 2, 3, 0, 2]);
        assert_eq!((m.len(), m.host_count(), m.occupied(), m.fewest(), m.most()), (6, 4, 3, 1, 3));
        assert_eq!((m.ranks_on(0), m.ranks_on(1), m.ranks_on(2), m.ranks_on(3)), (&[1, 4][..], &[][..], &[0, 2, 5][..], &[3][..]));
        assert_eq!((m[0], m[3], m.host_of()), (2, 3, &[2, 0, 2, 3, 0, 2][..]));
        assert_eq!((NO_HOSTS.len(), NO_HOSTS.host_count(), HostMap::new(&[]).occupied()), (0, 0, 0));
    }
}
