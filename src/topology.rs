//! Network topology and the contention-free logical ring of Patarasuk & Yuan,
//! "Bandwidth Efficient All-reduce Operation on Tree Topologies", §3.2.
//!
//! The network is a tree: switches inside, machines (hosts) as leaves. A
//! logical ring of processes is *contention-free* when no two ring edges
//! `F(i) → F(i+1)` share a directed link. Lemma 4: numbering the switches by a
//! depth-first search and listing each switch's machines in that order gives
//! such a ring. Lemma 5: on a two-level tree (one switch, SMP nodes as
//! leaves), the ring that keeps each node's ranks consecutive is one.
//!
//! Topology file (`FASTRED_TOPOLOGY=path`), one statement per line, `#` starts
//! a comment:
//!
//! ```text
//! switch NAME [HOST ...]   # a switch and the hosts (processor names) attached to it
//! link SWITCH SWITCH       # a cable between two switches
//! ```
//!
//! A switch may be named on several `switch` lines (hosts accumulate). The
//! switches and links must form a tree; every host hangs off one switch.

use std::collections::HashMap;

/// A tree network: switches `0..switches.len()`, hosts after them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    switches: Vec<String>,
    /// Switch-to-switch cables, in file order (the DFS visits neighbours in this order).
    links: Vec<(usize, usize)>,
    /// Host name and the switch it hangs off, in file order.
    hosts: Vec<(String, usize)>,
}

/// A directed link between two graph nodes (switch index, or switches + host index).
type Link = (usize, usize);

impl Topology {
    /// Parse a topology file; errors name the line.
    pub fn parse(text: &str, source: &str) -> Result<Topology, String> {
        let mut t = Topology { switches: vec![], links: vec![], hosts: vec![] };
        let mut switch_index: HashMap<String, usize> = HashMap::new();
        let mut host_switch: HashMap<String, usize> = HashMap::new();
        let mut pending_links = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let content = raw.split('#').next().unwrap_or("").trim();
            let err = |what: String| format!("{source}: line {}: {what}: '{content}'", i + 1);
            let words: Vec<&str> = content.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["switch", name, hosts @ ..] => {
                    let next = t.switches.len();
                    let s = *switch_index.entry(name.to_string()).or_insert(next);
                    if s == next {
                        t.switches.push(name.to_string());
                    }
                    for h in hosts {
                        if let Some(&other) = host_switch.get(*h) {
                            return Err(err(format!("host '{h}' is already attached to switch '{}'", t.switches[other])));
                        }
                        host_switch.insert(h.to_string(), s);
                        t.hosts.push((h.to_string(), s));
                    }
                }
                ["switch"] => return Err(err("'switch' needs a name".into())),
                ["link", a, b] => pending_links.push((a.to_string(), b.to_string(), i + 1, content.to_string())),
                ["link", ..] => return Err(err("'link' takes exactly two switch names".into())),
                [word, ..] => return Err(err(format!("unknown statement '{word}' (expected 'switch' or 'link')"))),
            }
        }
        for (a, b, line, content) in pending_links {
            let find = |n: &str| {
                switch_index.get(n).copied().ok_or_else(|| format!("{source}: line {line}: unknown switch '{n}': '{content}'"))
            };
            let (a, b) = (find(&a)?, find(&b)?);
            if a == b {
                return Err(format!("{source}: line {line}: a switch cannot link to itself: '{content}'"));
            }
            t.links.push((a, b));
        }
        if t.switches.is_empty() {
            return Err(format!("{source}: no switches"));
        }
        t.check_tree().map_err(|e| format!("{source}: {e}"))?;
        Ok(t)
    }

    /// Lemma 5's two-level tree: one switch with `hosts` attached, in order.
    pub fn two_level(hosts: &[String]) -> Topology {
        Topology { switches: vec!["interconnect".into()], links: vec![], hosts: hosts.iter().map(|h| (h.clone(), 0)).collect() }
    }

    pub fn switch_count(&self) -> usize {
        self.switches.len()
    }

    /// The switches must form a tree: connected, with one link fewer than switches.
    fn check_tree(&self) -> Result<(), String> {
        if self.links.len() + 1 != self.switches.len() {
            return Err(format!(
                "{} switches need exactly {} links to form a tree, found {}",
                self.switches.len(),
                self.switches.len() - 1,
                self.links.len()
            ));
        }
        let order = self.dfs_switch_order();
        if order.len() != self.switches.len() {
            let lost = (0..self.switches.len()).find(|s| !order.contains(s)).unwrap();
            return Err(format!("switch '{}' is not connected to switch '{}'", self.switches[lost], self.switches[0]));
        }
        Ok(())
    }

    fn neighbours(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        self.links.iter().filter_map(move |&(a, b)| if a == s { Some(b) } else if b == s { Some(a) } else { None })
    }

    /// Step 1: switches in depth-first arrival order from the first switch.
    fn dfs_switch_order(&self) -> Vec<usize> {
        let mut seen = vec![false; self.switches.len()];
        let mut order = Vec::new();
        let mut stack = vec![0];
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut seen[s], true) {
                continue;
            }
            order.push(s);
            let next: Vec<usize> = self.neighbours(s).filter(|n| !seen[*n]).collect();
            stack.extend(next.into_iter().rev()); // visit neighbours in link order
        }
        order
    }

    /// Step 2 (Lemma 4): the hosts of each switch, switches in DFS order.
    pub fn host_ring(&self) -> Vec<&str> {
        let mut of_switch: Vec<Vec<&str>> = vec![Vec::new(); self.switches.len()];
        for (h, s) in &self.hosts {
            of_switch[*s].push(h);
        }
        self.dfs_switch_order().into_iter().flat_map(|s| std::mem::take(&mut of_switch[s])).collect()
    }

    /// The ring order of ranks (`order[i]` = the rank at ring position i):
    /// hosts in Lemma 4's order, each host's ranks consecutive and ascending.
    /// `rank_hosts[r]` is rank r's host; every one must be in the topology.
    /// Linear in ranks and hosts (thousands of each at scale).
    pub fn ring_order(&self, rank_hosts: &[String]) -> Result<Vec<usize>, String> {
        let position: HashMap<&str, usize> = self.host_ring().into_iter().enumerate().map(|(i, h)| (h, i)).collect();
        let mut host_position = Vec::with_capacity(rank_hosts.len());
        for (r, h) in rank_hosts.iter().enumerate() {
            let &at = position.get(h.as_str()).ok_or_else(|| format!("host '{h}' (rank {r}) is not attached to any switch"))?;
            host_position.push(at);
        }
        Ok(grouped_by_host(&host_position, position.len()))
    }

    fn host_node(&self, host: &str) -> Option<usize> {
        self.hosts.iter().position(|(n, _)| n == host).map(|i| self.switches.len() + i)
    }

    /// Parent of every switch in a tree rooted at switch 0, and its depth.
    fn switch_parents(&self) -> (Vec<Option<usize>>, Vec<usize>) {
        let n = self.switches.len();
        let (mut parent, mut depth) = (vec![None; n], vec![0; n]);
        for s in self.dfs_switch_order() {
            for nb in self.neighbours(s) {
                if nb != 0 && parent[nb].is_none() && parent[s] != Some(nb) {
                    parent[nb] = Some(s);
                    depth[nb] = depth[s] + 1;
                }
            }
        }
        (parent, depth)
    }

    /// The directed links a message from host `a` to host `b` crosses.
    fn path(&self, a: &str, b: &str, parents: &(Vec<Option<usize>>, Vec<usize>)) -> Vec<Link> {
        if a == b {
            return vec![]; // same machine: no network link
        }
        let (na, nb) = (self.host_node(a).unwrap(), self.host_node(b).unwrap());
        let (mut sa, mut sb) = (self.hosts[na - self.switches.len()].1, self.hosts[nb - self.switches.len()].1);
        let (parent, depth) = parents;
        let (mut up, mut down) = (vec![(na, sa)], vec![(sb, nb)]);
        while sa != sb {
            if depth[sa] >= depth[sb] {
                let p = parent[sa].unwrap();
                up.push((sa, p));
                sa = p;
            } else {
                let p = parent[sb].unwrap();
                down.push((p, sb));
                sb = p;
            }
        }
        up.extend(down.into_iter().rev());
        up
    }

    /// Lemma 4's property, checked: no two edges of the ring `order` (ranks,
    /// `rank_hosts[r]` = rank r's host) cross the same directed link. The error
    /// names the first shared link and both edges.
    pub fn check_contention_free(&self, order: &[usize], rank_hosts: &[String]) -> Result<(), String> {
        if order.len() < 2 {
            return Ok(());
        }
        let parents = self.switch_parents();
        let name = |n: usize| {
            if n < self.switches.len() { self.switches[n].clone() } else { self.hosts[n - self.switches.len()].0.clone() }
        };
        let mut used: HashMap<Link, (usize, usize)> = HashMap::new();
        for (i, &from) in order.iter().enumerate() {
            let to = order[(i + 1) % order.len()];
            for link in self.path(&rank_hosts[from], &rank_hosts[to], &parents) {
                if let Some((f, t)) = used.insert(link, (from, to)) {
                    return Err(format!(
                        "ring edges {f}→{t} and {from}→{to} both cross the link {}→{}",
                        name(link.0),
                        name(link.1)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Each rank's host numbered in order of first appearance (same name: same
/// number), from `names[r]`, rank r's host name: linear in ranks.
pub fn host_numbers<N: Eq + std::hash::Hash>(names: &[N]) -> Vec<usize> {
    let mut seen: HashMap<&N, usize> = HashMap::with_capacity(names.len());
    names
        .iter()
        .map(|n| {
            let next = seen.len();
            *seen.entry(n).or_insert(next)
        })
        .collect()
}

/// Lemma 5's automatic order: hosts in order of their lowest rank, each
/// host's ranks consecutive and ascending (the identity when ranks are placed
/// consecutively on nodes; regrouped when placement is round-robin).
/// `host_of[r]` is rank r's host, numbered in order of first appearance.
pub fn automatic_ring(host_of: &[usize]) -> Vec<usize> {
    grouped_by_host(host_of, host_of.iter().max().map_or(0, |&h| h + 1))
}

/// The ranks grouped by `host[r]` (one of `0..hosts`), hosts in that order,
/// each host's ranks ascending: a counting sort, linear in ranks and hosts.
fn grouped_by_host(host: &[usize], hosts: usize) -> Vec<usize> {
    let mut start = vec![0; hosts + 1];
    for &h in host {
        start[h + 1] += 1;
    }
    for h in 0..hosts {
        start[h + 1] += start[h];
    }
    let mut order = vec![0; host.len()];
    for (r, &h) in host.iter().enumerate() {
        order[start[h]] = r;
        start[h] += 1;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Figure 1 style: switches s0–s3, s0 linked to s1 and s3, s1 to s2;
    /// machines n0..n5 spread over them.
    const FIGURE_1: &str = "
        switch s0 n0
        switch s1 n1 n2
        switch s2 n3
        switch s3 n4 n5
        link s0 s1
        link s1 s2
        link s0 s3
    ";

    #[test]
    fn dfs_ring_on_a_multi_switch_tree_is_contention_free() {
        let t = Topology::parse(FIGURE_1, "fig1").unwrap();
        assert_eq!(t.host_ring(), vec!["n0", "n1", "n2", "n3", "n4", "n5"]);
        // Ranks numbered against the topology: rank r on host n(5 - r).
        let hosts = names(&["n5", "n4", "n3", "n2", "n1", "n0"]);
        let order = t.ring_order(&hosts).unwrap();
        assert_eq!(order, vec![5, 4, 3, 2, 1, 0]);
        t.check_contention_free(&order, &hosts).unwrap();
        // Rank order interleaves the subtrees: s0→s1 is crossed twice.
        let bad = vec![0, 3, 1, 4, 2, 5];
        let hosts = names(&["n0", "n1", "n2", "n3", "n4", "n5"]);
        let e = t.check_contention_free(&bad, &hosts).unwrap_err();
        assert!(e.contains("both cross the link"), "{e}");
    }

    #[test]
    fn two_level_tree_consecutive_and_round_robin_placement() {
        // 3 nodes × 2 cores, consecutive placement: rank order is already the ring (Lemma 5).
        let consecutive = names(&["a", "a", "b", "b", "c", "c"]);
        let t = Topology::two_level(&names(&["a", "b", "c"]));
        let order = automatic_ring(&host_numbers(&consecutive));
        assert_eq!(order, vec![0, 1, 2, 3, 4, 5]);
        t.check_contention_free(&order, &consecutive).unwrap();
        // Round-robin placement: the plain rank ring has contention, the regrouped one not.
        let round_robin = names(&["a", "b", "c", "a", "b", "c"]);
        let order = automatic_ring(&host_numbers(&round_robin));
        assert_eq!(order, vec![0, 3, 1, 4, 2, 5]);
        t.check_contention_free(&order, &round_robin).unwrap();
        let e = t.check_contention_free(&[0, 1, 2, 3, 4, 5], &round_robin).unwrap_err();
        assert!(e.contains("a→interconnect"), "{e}");
    }

    #[test]
    fn two_switches_interleaved_hosts() {
        let t = Topology::parse("switch left h0 h2 h4 h6\nswitch right h1 h3 h5 h7\nlink left right\n", "dual").unwrap();
        let hosts = names(&["h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"]);
        let order = t.ring_order(&hosts).unwrap();
        assert_eq!(order, vec![0, 2, 4, 6, 1, 3, 5, 7]);
        t.check_contention_free(&order, &hosts).unwrap();
        let identity: Vec<usize> = (0..8).collect();
        assert!(t.check_contention_free(&identity, &hosts).unwrap_err().contains("left→right"));
    }

    #[test]
    fn hosts_are_numbered_by_first_appearance() {
        assert_eq!(host_numbers(&names(&["b", "a", "b", "c", "a"])), vec![0, 1, 0, 2, 1]);
    }

    /// Deterministic pseudo-random numbers below `m` (a linear congruential generator).
    fn below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |m| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % m
        }
    }

    #[test]
    fn automatic_ring_is_the_two_level_trees_ring_for_any_placement() {
        let mut next = below(777);
        for (ranks, hosts) in [(1, 1), (7, 3), (40, 40), (64, 5), (4096, 4096), (4096, 256)] {
            let rank_hosts: Vec<String> = (0..ranks).map(|_| format!("node{}", next(hosts))).collect();
            let mut in_order: Vec<String> = Vec::new();
            for h in &rank_hosts {
                if !in_order.contains(h) {
                    in_order.push(h.clone());
                }
            }
            let host_of = host_numbers(&rank_hosts);
            let order = automatic_ring(&host_of);
            assert_eq!(order, Topology::two_level(&in_order).ring_order(&rank_hosts).unwrap(), "{ranks} ranks on {hosts} hosts");
            assert!(order.windows(2).all(|w| host_of[w[0]] < host_of[w[1]] || (host_of[w[0]] == host_of[w[1]] && w[0] < w[1])));
        }
    }

    #[test]
    fn every_dfs_ring_of_random_trees_is_contention_free() {
        // Deterministic pseudo-random trees: switch k links to a switch before it.
        let mut next = below(12345);
        for switches in 1..12 {
            let mut text = String::new();
            for s in 0..switches {
                text += &format!("switch s{s}\n");
                if s > 0 {
                    text += &format!("link s{} s{s}\n", next(s));
                }
            }
            let hosts: Vec<String> = (0..20).map(|h| format!("h{h}")).collect();
            for h in &hosts {
                text += &format!("switch s{} {h}\n", next(switches));
            }
            let t = Topology::parse(&text, "random").unwrap();
            // Two ranks per host, placed round-robin.
            let rank_hosts: Vec<String> = (0..40).map(|r| hosts[r % 20].clone()).collect();
            let order = t.ring_order(&rank_hosts).unwrap();
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, (0..40).collect::<Vec<_>>());
            t.check_contention_free(&order, &rank_hosts).unwrap_or_else(|e| panic!("{switches} switches: {e}\n{text}"));
        }
    }

    #[test]
    fn malformed_files_name_the_line() {
        let cases = [
            ("switch a\nswitch b\n", "need exactly 1 links"),
            ("switch a x\nlink a b\n", "line 2: unknown switch 'b'"),
            ("switch a x\nswitch b x\nlink a b", "line 2: host 'x' is already attached"),
            ("switch a\nrouter b\n", "line 2: unknown statement 'router'"),
            ("link a\n", "line 1: 'link' takes exactly two"),
            ("# nothing\n", "no switches"),
            ("switch a\nswitch b\nswitch c\nlink a b\nlink b a\n", "not connected"),
        ];
        for (text, want) in cases {
            let e = Topology::parse(text, "f").unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        let t = Topology::parse("switch a x\n", "f").unwrap();
        assert!(t.ring_order(&names(&["x", "y"])).unwrap_err().contains("host 'y' (rank 1)"));
    }
}
