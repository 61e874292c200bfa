//! Algorithm selection: a pure function of the call's shape, the forced
//! choice (`FASTRED_ALGO`) and a rule table (Rabenseifner 2004 §4), testable
//! without MPI. The rules are data (`src/tuning/default.table`, or the file
//! named by `FASTRED_TUNING`), not code.


pub use crate::collective::Collective;
pub use crate::algo::registry::Algorithm;
use crate::model::CostModel;
use std::fmt;

impl Algorithm {
    /// Whether this algorithm can run a call of this shape.
    pub fn can_run(self, shape: &Shape) -> bool {
        self.why_not(shape).is_none()
    }

    /// Why this algorithm cannot run a call of this shape (for the warning
    /// when `FASTRED_ALGO` names it), or None where it can.
    pub fn why_not(self, shape: &Shape) -> Option<&'static str> {
        let d = self.descriptor();
        if !self.implements(shape.coll) {
            Some("it does not implement this collective")
        } else if !shape.commutative && !self.preserves_rank_order() {
            Some("it needs a commutative op")
        } else if shape.order_is_fixed()
            && !(self.computes_canonical_order(shape.coll) && (!d.uses_hosts || shape.hosts.keeps_canonical_order()))
        {
            Some("it does not compute the canonical order FASTRED_REPRODUCIBLE asks for")
        } else if d.shared_memory {
            shape.why_no_shared_memory()
        } else {
            None
        }
    }
}

/// What the selector knows about a call (identical on every rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub coll: Collective,
    /// Bytes of the whole vector (for reduce-scatter: of all blocks).
    pub bytes: usize,
    /// Elements of the whole vector.
    pub elems: usize,
    /// Processes.
    pub procs: usize,
    pub commutative: bool,
    /// A predefined op (fastred's kernels) rather than a user function.
    pub builtin_op: bool,
    /// The topology calls for the topology-aware ring: ranks are not in
    /// ring order on their hosts, or the network has several switches.
    pub topology: bool,
    /// How the ranks sit on hosts.
    pub hosts: Hosts,
    /// How many hosts and ranks per host (the two-level cost terms').
    pub layout: Layout,
    /// The network's n½ between hosts in bytes ([`crate::network`]): 0 where
    /// not measured (one host, or no rule asks).
    pub nhalf: usize,
    /// The network's cross-section under load in percent
    /// ([`crate::network::bisection`]): 0 where not measured.
    pub bisection: usize,
    /// A predefined op on a floating-point type.
    pub floating: bool,
    /// `FASTRED_REPRODUCIBLE` is on (for this call: see [`Shape::order_is_fixed`]).
    pub reproducible: bool,
    /// Ranks on one host can share a memory segment (false where making one
    /// failed on this communicator, and in SimGrid builds, whose simulated
    /// ranks would then communicate outside the simulation).
    pub shared_memory: bool,
}

impl Shape {
    /// The call must be computed in the canonical order of
    /// [`crate::reproducible`]: reproducible mode, a predefined op on a
    /// floating-point type (integer ops give the same result in any order), and
    /// more than two processes (x0 ⊕ x1 is the only order of two).
    pub fn order_is_fixed(&self) -> bool {
        self.reproducible && self.floating && self.procs > 2
    }

    /// Every rank is on one host (or there is one rank), they can share memory, and an element fits
    /// the shared-memory algorithm's smallest round.
    pub fn can_share_memory(&self) -> bool {
        self.why_no_shared_memory().is_none()
    }

    /// The first of `can_share_memory`'s conditions that fails, or None where all hold.
    fn why_no_shared_memory(&self) -> Option<&'static str> {
        const _: () = assert!(crate::algo::shared_memory::MIN_SLOT == 4 << 10, "the message below names the slot size");
        if cfg!(fastred_mpi = "smpi") {
            Some("SimGrid SMPI's simulated ranks share no memory")
        } else if self.hosts != Hosts::OneHost && self.procs > 1 {
            Some("it needs every rank on one host, sharing memory")
        } else if !self.shared_memory {
            Some("it needs a shared-memory segment, which this communicator could not make")
        } else if self.bytes / self.elems.max(1) > crate::algo::shared_memory::MIN_SLOT {
            Some("its slots hold elements of at most 4 KiB")
        } else {
            None
        }
    }
}

/// How a communicator's ranks sit on hosts (computed, collectively, only
/// when the table's choice depends on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Hosts {
    /// One rank per host (or a single rank).
    #[default]
    OnePerHost,
    /// Every rank on one host.
    OneHost,
    /// Several hosts, at least one with several ranks.
    Shared,
    /// Several hosts with the same power-of-two number K > 1 of ranks each,
    /// host h holding ranks hK..hK+K−1: the canonical order of
    /// [`crate::reproducible`] is then the hosts' canonical order over each
    /// host's, which the two-level algorithm can compute.
    SharedInBlocks,
    /// Several hosts with the same number K > 1 of consecutive ranks each, K
    /// not a power of two (12, 24, 48 cores): the table's `hostblocks` rules
    /// apply as to [`Hosts::SharedInBlocks`], and the model weighs the other
    /// algorithms by their in-blocks patterns too ([`estimate_placed`]; where
    /// K is odd, the exchange patterns with a split of their own as
    /// crossing hosts); the two-level algorithm does not compute the
    /// canonical order there.
    SharedInEqualBlocks,
    /// Several hosts with K > 1 consecutive ranks each but the last, which
    /// holds fewer (p not a multiple of K: 250 ranks on hosts of 16 cores).
    /// The `hostblocks` rules apply, and the model weighs the other
    /// algorithms by their in-blocks patterns on ⌈p/K⌉ hosts of K (where K
    /// is odd, the exchange patterns with a split of their own as crossing
    /// hosts; docs/smpi.md "Hosts in blocks with a short last host").
    SharedInBlocksShortLast,
    /// One rank per host, as a lane of the two-level algorithm (its step 2,
    /// [`crate::algo::hierarchical`]): the other lanes run at once on the same
    /// hosts, sharing their links. The `oneperhost` rules apply, and `lane`
    /// ones first. Not a placement a communicator has: only the two-level
    /// algorithm looks rules up for it.
    Lane,
}

impl Hosts {
    const ALL: [Hosts; 6] = [Hosts::OnePerHost, Hosts::OneHost, Hosts::Shared, Hosts::SharedInBlocks, Hosts::SharedInEqualBlocks, Hosts::SharedInBlocksShortLast];

    /// The class of a placement: `host_of[r]` is rank r's host, numbered in
    /// order of first appearance.
    pub fn of(host_of: &[usize]) -> Hosts {
        let p = host_of.len();
        let host_count = host_of.iter().max().map_or(0, |&h| h + 1);
        if host_count >= p {
            Hosts::OnePerHost
        } else if host_count == 1 {
            Hosts::OneHost
        } else {
            // Several hosts, not one rank on each: consecutive blocks have K > 1.
            match crate::reproducible::consecutive_blocks(host_of) {
                Some(k) if !p.is_multiple_of(k) => Hosts::SharedInBlocksShortLast,
                Some(k) if k.is_power_of_two() => Hosts::SharedInBlocks,
                Some(_) => Hosts::SharedInEqualBlocks,
                None => Hosts::Shared,
            }
        }
    }

    /// The two-level algorithm computes the canonical order on this
    /// placement (one rank per host, one host: its canonical reduce-scatter
    /// within the host is the whole order; hosts in power-of-two blocks).
    pub fn keeps_canonical_order(self) -> bool {
        matches!(self, Hosts::OnePerHost | Hosts::Lane | Hosts::OneHost | Hosts::SharedInBlocks)
    }

    /// Several hosts, some with several ranks.
    pub fn shared(self) -> bool {
        matches!(self, Hosts::Shared | Hosts::SharedInBlocks | Hosts::SharedInEqualBlocks | Hosts::SharedInBlocksShortLast)
    }

    /// Hosts of consecutive ranks, as many on each (the last may hold
    /// fewer): the table's `hostblocks`.
    pub fn in_blocks(self) -> bool {
        matches!(self, Hosts::SharedInBlocks | Hosts::SharedInEqualBlocks | Hosts::SharedInBlocksShortLast)
    }

    /// Blocks on which the model weighs every algorithm (other than the
    /// two-level one) by its pattern's own split ([`estimate_placed`]):
    /// power-of-two blocks, and blocks of an even size `most`, equal or with
    /// a short last host (the removal step's pairs lie within a host); on
    /// odd blocks the exchange patterns' splits give way to crossing.
    pub fn in_blocks_terms(self, layout: Layout) -> bool {
        self == Hosts::SharedInBlocks || (matches!(self, Hosts::SharedInEqualBlocks | Hosts::SharedInBlocksShortLast) && layout.most.is_multiple_of(2))
    }
}

/// The numbers behind a placement: hosts, and the fewest and most ranks on
/// one (the two-level algorithm's lanes and its busiest host).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub hosts: usize,
    pub fewest: usize,
    pub most: usize,
}

impl Layout {
    /// `p` ranks, each on a host of its own (what the selector assumes until
    /// a decision depends on the placement).
    pub fn one_per_host(p: usize) -> Layout {
        Layout { hosts: p.max(1), fewest: 1, most: 1 }
    }

    /// `p` ranks on one host.
    pub fn one_host(p: usize) -> Layout {
        Layout { hosts: 1, fewest: p.max(1), most: p.max(1) }
    }

    /// From `host_of[r]`, rank r's host numbered in order of first appearance.
    pub fn of(host_of: &[usize]) -> Layout {
        let hosts = host_of.iter().max().map_or(1, |&h| h + 1);
        let mut ranks_on = vec![0usize; hosts];
        for &h in host_of {
            ranks_on[h] += 1;
        }
        let nonempty = || ranks_on.iter().copied().filter(|&k| k > 0);
        Layout { hosts, fewest: nonempty().min().unwrap_or(1), most: nonempty().max().unwrap_or(1) }
    }
}

impl fmt::Display for Hosts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Hosts::OnePerHost => "one rank per host",
            Hosts::OneHost => "one host",
            Hosts::Shared => "shared hosts",
            Hosts::SharedInBlocks => "shared hosts in blocks (the two-level algorithm keeps FASTRED_REPRODUCIBLE's order)",
            Hosts::SharedInEqualBlocks => "shared hosts in blocks of a size not a power of two",
            Hosts::SharedInBlocksShortLast => "shared hosts in blocks, the last host short",
            Hosts::Lane => "one rank per host, a lane of the two-level algorithm",
        })
    }
}

/// δ_expo,max (Rabenseifner 2004 §3.6, footnote 2): the largest difference of
/// two consecutive exponents in the binary representation of p, e.g.
/// 100 = 2^6 + 2^5 + 2^2 → 3. A power of two has one exponent and no
/// consecutive pair: 0, matching that binary blocks is then exactly halving &
/// doubling with no imbalance.
pub fn delta_expo_max(p: usize) -> u32 {
    let exponents: Vec<u32> = (0..usize::BITS).rev().filter(|e| p >> e & 1 == 1).collect();
    exponents.windows(2).map(|w| w[0] - w[1]).max().unwrap_or(0)
}

/// Rabenseifner §4: binary blocks beats halving & doubling on the T3E when
/// δ_expo,max < lg(bytes)/2 − 2.5.
pub fn binary_blocks_rule(bytes: usize, procs: usize) -> bool {
    bytes > 0 && (delta_expo_max(procs) as f64) < (bytes as f64).log2() / 2.0 - 2.5
}

/// Binary blocks' blocks are balanced enough to beat the circulant on
/// networks where its rotations collide: δ_expo,max ≤ 3 (two consecutive
/// blocks within 8x of each other). Measured in simulation (SimGrid SMPI,
/// allreduce, p = 17–98 not powers of two, 64 KiB–2 MiB, fat tree, 3D torus,
/// dragonfly; docs/smpi.md "Below 100 processes"): with δ ≤ 3 binary blocks
/// lost at most 1.11x where the circulant led; with δ ≥ 4 (p = 33–520) their
/// worst case was 1.5–8.2x, and halving & doubling's 1.15–1.60 the mildest.
pub const BALANCED_BLOCKS_DELTA: u32 = 3;

/// Whether p's binary blocks are balanced ([`BALANCED_BLOCKS_DELTA`]).
pub fn balanced_blocks(procs: usize) -> bool {
    delta_expo_max(procs) <= BALANCED_BLOCKS_DELTA
}

/// Whether halving & doubling's removal step leaves no host of `k`
/// consecutive ranks (the last may hold fewer) with more than three
/// quarters of `k` of the 2^⌊lg p⌋ processes that go on: the first 2r ranks
/// (r = p − 2^⌊lg p⌋) fold in pairs and the even one of each pair goes on
/// ([`crate::algo::Pairs`]). A power of two has no removal step: every
/// host keeps all its ranks, evenly (true). O(p/k).
pub fn removal_balances_hosts(p: usize, k: usize) -> bool {
    if p.is_power_of_two() {
        return true;
    }
    let k = k.max(1);
    let paired_end = 2 * crate::algo::Pairs::of(p).removed;
    // Even ranks in [a, b): ⌈b/2⌉ − ⌈a/2⌉.
    let even_in = |a: usize, b: usize| b.div_ceil(2) - a.div_ceil(2);
    (0..p.div_ceil(k)).all(|h| {
        let (start, end) = (h * k, ((h + 1) * k).min(p));
        let paired = end.min(paired_end).max(start);
        let going_on = even_in(start, paired) + (end - paired);
        4 * going_on <= 3 * k
    })
}

/// A condition of a table rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Condition {
    Pow2,
    NonPow2,
    Few,
    Commutative,
    NonCommutative,
    Builtin,
    UserOp,
    BinaryBlocksRule,
    BalancedBlocks,
    Topology,
    OnePerHost,
    OneHost,
    SharedHosts,
    /// Several hosts holding the same number of consecutive ranks each, or
    /// all but the last ([`Hosts::in_blocks`]).
    HostBlocks,
    /// `hostblocks<=N`: [`Condition::HostBlocks`] with at most N ranks on a
    /// host (the two-level reduce of short vectors gathers one block per
    /// lane at its root: it wins on hosts of 8-16 ranks, not of 24).
    HostBlocksUpTo(usize),
    /// `hostblocks>=N`: [`Condition::HostBlocks`] with at least N ranks on a
    /// host (hosts of 32 and 64 cores, where the two-level algorithm wins at
    /// sizes where it loses on hosts of 8-24).
    HostBlocksFrom(usize),
    /// `hosts<=N`: the ranks sit on at most N hosts (the two-level
    /// algorithm's lanes then cross at most N hosts, where the `lane` rules
    /// apply).
    HostsUpTo(usize),
    /// `hosts>=N`: the ranks sit on at least N hosts (ranks dealt round
    /// robin over 16-100 hosts of 2-4, where the circulant measured on 8-15
    /// hosts of 8-16 collides).
    HostsFrom(usize),
    /// `blocksnonpow2`: hosts in blocks ([`Condition::HostBlocks`]) of a
    /// number K of ranks that is not a power of two (3, 5, 6, 7, 12 cores):
    /// recursive doubling and halving & doubling then pair ranks across
    /// hosts or fold unevenly, where the two-level algorithm does not
    /// (docs/smpi.md "1 Gbit/s Ethernet: hosts of 3 to 16 ranks").
    HostBlocksNonPow2,
    /// `blockspow2`: hosts in blocks of a power of two of ranks (2, 4, 8,
    /// 16 cores), the complement of `blocksnonpow2` among hosts in blocks:
    /// on 3 hosts the two-level reduce of 8-32 KiB wins on hosts of 2, 4
    /// and 8 but not of 6 on the fast networks (docs/smpi.md "The fast
    /// networks' small hosts and round robin re-swept after the lanes fix").
    HostBlocksPow2,
    /// `scatterednonpow2`: ranks dealt round robin or otherwise scattered
    /// ([`Condition::HostsScattered`]) with a host of a number of ranks
    /// that is not a power of two (3, 5, 6 cores). Dealt round robin over
    /// hosts of 2^j ranks, the circulant's first j halvings pair ranks of
    /// one host, so its volume across hosts is the two-level algorithm's;
    /// over hosts of 3, 5 or 6 it is not, and the circulant takes 2-8x the
    /// two-level algorithm's time (docs/smpi.md "Ranks dealt round robin
    /// over hosts of 3, 5 and 6").
    ScatteredNonPow2,
    /// `hostspow2`: the ranks sit on a power of two of hosts, at least 2
    /// (the two-level algorithm's lanes then run recursive doubling without
    /// its removal steps).
    HostsPow2,
    /// `removalspans`: hosts of K ranks each, in blocks (none short), where
    /// recursive doubling's removal step (its first 2r ranks, r = p −
    /// 2^⌊lg p⌋, folded in pairs) reaches past the first host, 2r > K: its
    /// survivors then spread unevenly over the hosts (docs/smpi.md "Short
    /// allreduces on 2 and 4 hosts").
    RemovalSpans,
    /// `removalbalanced`: hosts in blocks where halving & doubling's
    /// removal step (its first 2r ranks folded in pairs, the even one going
    /// on) leaves no host more than three quarters of the largest host's
    /// ranks ([`removal_balances_hosts`]), so that no host's link carries
    /// many more of the survivors than the others'. With a short last host
    /// of 16 ranks at 100-256 processes, halving & doubling's reduce-scatter
    /// of 1-4 MiB was within 1.03 of the fastest at 120 and 244 (at most 8
    /// and 12 on a host; 126 and 250, 8 on every host, go to the two-level
    /// algorithm first) and took up to 1.46x at the 9 other counts, where
    /// hosts beyond the removed ranks keep all 16
    /// (docs/smpi.md "Hosts of 16 with a short last host: which algorithm
    /// at 1-4 MiB").
    RemovalBalanced,
    /// `overhalf`: several hosts, some with several ranks, each with more
    /// than half the ranks of the largest. The two-level algorithm runs as
    /// many lanes as the smallest host has ranks (below its long-vector
    /// threshold), so then more than half of every host's ranks carry the
    /// traffic across hosts (with a short last host of 16 at 100-256
    /// processes, 1-4 MiB, allreduce and reduce-scatter, it was within 1.05
    /// of the fastest at 63 of 72 simulated points (worst 1.14) with 9-14
    /// ranks on the last host, and at 42 of 162 (worst 2.08) with 4-8;
    /// docs/smpi.md "Hosts of 16 with a short last host: which algorithm at
    /// 1-4 MiB").
    OverHalf,
    /// Several hosts, at least one with several ranks, not in consecutive
    /// blocks ([`Hosts::Shared`]: ranks dealt round robin,
    /// hosts of different sizes).
    HostsScattered,
    /// Hosts in blocks with the last host short
    /// ([`Hosts::SharedInBlocksShortLast`]: p not a multiple of K).
    ShortLastHost,
    /// `lastquarter`: hosts in blocks of K with the last one holding at
    /// most K/4 ranks. The two-level algorithm then runs that many lanes L
    /// (below its long-vector threshold), so that step 1 passes (K − 1)/L
    /// of the vector through a full host's ranks: on hosts of 8-24 with 1-6
    /// ranks on the last, allreduce and reduce-scatter of 128 KiB-4 MiB, it
    /// took 1.05-8.7x the fastest at 217 simulated points (within 1.05 at
    /// one), against 1.0-1.9x (within 1.05 at 14 of 148) with a quarter to
    /// half of K on the last (docs/smpi.md "Hosts of 4-32 with a short last
    /// host, and round robin beyond 2 MiB").
    LastQuarter,
    /// A lane of the two-level algorithm ([`Hosts::Lane`]).
    Lane,
    /// `notlane`: not such a lane (a call on the program's own
    /// communicator). For rules measured on whole communicators where the
    /// lanes run differently: a lane's ring keeps one exchange a step
    /// (`Subset::one_exchange_a_step`), the whole communicator's posts its
    /// receives ahead.
    NotLane,
    /// `fullhosts`: hosts in blocks, none short (p a multiple of K).
    FullHosts,
    /// `unequalhosts`: several hosts, some with several ranks, holding
    /// different numbers of ranks (dealt round robin with p not a multiple
    /// of the hosts, a short last host). The two-level algorithm then runs
    /// as many lanes as the fewest for short vectors, and for long ones a
    /// rank of a smaller host serves several lanes one after the other
    /// (docs/smpi.md "The fast networks' small hosts and round robin re-swept
    /// after the lanes fix", "Unequal hosts: a lane per rank of the largest").
    UnequalHosts,
    /// `lonerank`: several hosts, some with several ranks, one with a single
    /// rank (p odd over hosts of 2). That rank does all its host's work in
    /// the two-level algorithm's lanes, whatever their number.
    LoneRank,
    /// `nhalf>=N`: the network's n½ between hosts is at least N bytes
    /// (a fast network, where bandwidth decides only from longer messages;
    /// false where n½ is not known).
    NhalfFrom(usize),
    /// `nhalf<N`: the network's n½ between hosts is measured and below N
    /// bytes (a slow network, where bandwidth decides from a few hundred
    /// bytes; false where n½ is not known).
    NhalfBelow(usize),
    /// `bisection>=N`: the network's cross-section under load is measured
    /// and at least N percent (a fat tree, even oversubscribed, where
    /// halving & doubling's heavy first steps stay within a leaf switch and
    /// keep a lone pair's rate).
    BisectionFrom(usize),
    /// `bisection<N`: measured and below N percent (a torus, a dragonfly,
    /// where those steps share links and the ring's nearest-neighbour steps
    /// keep their rate).
    BisectionBelow(usize),
    Floating,
    /// The call must follow the canonical order (`FASTRED_REPRODUCIBLE`).
    Reproducible,
    /// The running MPI library (this build's: `openmpi` or `mpich`).
    OpenMpi,
    Mpich,
}

impl Condition {
    /// The bound of an `nhalf>=N` or `nhalf<N` condition.
    fn nhalf_bound(self) -> Option<usize> {
        match self {
            Condition::NhalfFrom(n) | Condition::NhalfBelow(n) => Some(n),
            _ => None,
        }
    }

    /// The bound of a `bisection>=N` or `bisection<N` condition.
    fn bisection_bound(self) -> Option<usize> {
        match self {
            Condition::BisectionFrom(n) | Condition::BisectionBelow(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the condition reads where the ranks are: the shape's
    /// `topology`, `hosts`, `layout`, `nhalf` or `bisection`.
    fn reads_placement(self) -> bool {
        match self {
            Condition::Topology
            | Condition::OnePerHost
            | Condition::OneHost
            | Condition::SharedHosts
            | Condition::HostBlocks
            | Condition::HostBlocksUpTo(_)
            | Condition::HostBlocksFrom(_)
            | Condition::HostsUpTo(_)
            | Condition::HostsFrom(_)
            | Condition::HostsPow2
            | Condition::HostBlocksNonPow2
            | Condition::HostBlocksPow2
            | Condition::ScatteredNonPow2
            | Condition::RemovalSpans
            | Condition::RemovalBalanced
            | Condition::OverHalf
            | Condition::HostsScattered
            | Condition::ShortLastHost
            | Condition::LastQuarter
            | Condition::Lane
            | Condition::NotLane
            | Condition::FullHosts
            | Condition::UnequalHosts
            | Condition::LoneRank
            | Condition::NhalfFrom(_)
            | Condition::NhalfBelow(_)
            | Condition::BisectionFrom(_)
            | Condition::BisectionBelow(_) => true,
            Condition::Pow2
            | Condition::NonPow2
            | Condition::Few
            | Condition::Commutative
            | Condition::NonCommutative
            | Condition::Builtin
            | Condition::UserOp
            | Condition::BinaryBlocksRule
            | Condition::BalancedBlocks
            | Condition::Floating
            | Condition::Reproducible
            | Condition::OpenMpi
            | Condition::Mpich => false,
        }
    }

    const NAMES: [(&'static str, Condition); 33] = [
        ("pow2", Condition::Pow2),
        ("nonpow2", Condition::NonPow2),
        ("few", Condition::Few),
        ("commutative", Condition::Commutative),
        ("noncommutative", Condition::NonCommutative),
        ("builtin", Condition::Builtin),
        ("userop", Condition::UserOp),
        ("binary_blocks_rule", Condition::BinaryBlocksRule),
        ("balanced_blocks", Condition::BalancedBlocks),
        ("topology", Condition::Topology),
        ("oneperhost", Condition::OnePerHost),
        ("onehost", Condition::OneHost),
        ("sharedhosts", Condition::SharedHosts),
        ("hostblocks", Condition::HostBlocks),
        ("scattered", Condition::HostsScattered),
        ("shortlast", Condition::ShortLastHost),
        ("lastquarter", Condition::LastQuarter),
        ("lane", Condition::Lane),
        ("notlane", Condition::NotLane),
        ("fullhosts", Condition::FullHosts),
        ("hostspow2", Condition::HostsPow2),
        ("blocksnonpow2", Condition::HostBlocksNonPow2),
        ("blockspow2", Condition::HostBlocksPow2),
        ("scatterednonpow2", Condition::ScatteredNonPow2),
        ("removalspans", Condition::RemovalSpans),
        ("removalbalanced", Condition::RemovalBalanced),
        ("overhalf", Condition::OverHalf),
        ("unequalhosts", Condition::UnequalHosts),
        ("lonerank", Condition::LoneRank),
        ("float", Condition::Floating),
        ("reproducible", Condition::Reproducible),
        ("openmpi", Condition::OpenMpi),
        ("mpich", Condition::Mpich),
    ];

    /// The conditions written `PREFIX` N: the prefix, the condition, what N
    /// counts, and whether N takes K/M/G suffixes (a size in bytes).
    #[allow(clippy::type_complexity)]
    const BOUNDED: [(&'static str, fn(usize) -> Condition, &'static str, bool); 8] = [
        ("hostblocks<=", Condition::HostBlocksUpTo, "ranks per host", false),
        ("hostblocks>=", Condition::HostBlocksFrom, "ranks per host", false),
        ("hosts<=", Condition::HostsUpTo, "host count", false),
        ("hosts>=", Condition::HostsFrom, "host count", false),
        ("nhalf>=", Condition::NhalfFrom, "size", true),
        ("nhalf<", Condition::NhalfBelow, "size", true),
        ("bisection>=", Condition::BisectionFrom, "percentage", false),
        ("bisection<", Condition::BisectionBelow, "percentage", false),
    ];

    fn holds(self, s: &Shape) -> bool {
        match self {
            Condition::Pow2 => s.procs.is_power_of_two(),
            Condition::NonPow2 => !s.procs.is_power_of_two(),
            Condition::Few => s.elems < s.procs,
            Condition::Commutative => s.commutative,
            Condition::NonCommutative => !s.commutative,
            Condition::Builtin => s.builtin_op,
            Condition::UserOp => !s.builtin_op,
            Condition::BinaryBlocksRule => binary_blocks_rule(s.bytes, s.procs),
            Condition::BalancedBlocks => balanced_blocks(s.procs),
            Condition::Topology => s.topology,
            Condition::OnePerHost => matches!(s.hosts, Hosts::OnePerHost | Hosts::Lane),
            Condition::OneHost => s.hosts == Hosts::OneHost,
            Condition::SharedHosts => s.hosts.shared(),
            Condition::HostBlocks => s.hosts.in_blocks(),
            Condition::HostBlocksUpTo(k) => s.hosts.in_blocks() && s.layout.most <= k,
            Condition::HostBlocksFrom(k) => s.hosts.in_blocks() && s.layout.most >= k,
            Condition::HostsUpTo(n) => s.layout.hosts <= n,
            Condition::HostsFrom(n) => s.layout.hosts >= n,
            Condition::HostsPow2 => s.layout.hosts >= 2 && s.layout.hosts.is_power_of_two(),
            Condition::HostBlocksNonPow2 => s.hosts.in_blocks() && !s.layout.most.is_power_of_two(),
            Condition::HostBlocksPow2 => s.hosts.in_blocks() && s.layout.most.is_power_of_two(),
            Condition::ScatteredNonPow2 => s.hosts == Hosts::Shared && !s.layout.most.is_power_of_two(),
            Condition::RemovalSpans => matches!(s.hosts, Hosts::SharedInBlocks | Hosts::SharedInEqualBlocks) && 2 * crate::algo::Pairs::of(s.procs).removed > s.layout.most,
            Condition::RemovalBalanced => s.hosts.in_blocks() && removal_balances_hosts(s.procs, s.layout.most),
            Condition::OverHalf => s.hosts.shared() && 2 * s.layout.fewest > s.layout.most,
            Condition::HostsScattered => s.hosts == Hosts::Shared,
            Condition::ShortLastHost => s.hosts == Hosts::SharedInBlocksShortLast,
            Condition::LastQuarter => s.hosts == Hosts::SharedInBlocksShortLast && 4 * s.layout.fewest <= s.layout.most,
            Condition::Lane => s.hosts == Hosts::Lane,
            Condition::NotLane => s.hosts != Hosts::Lane,
            Condition::FullHosts => matches!(s.hosts, Hosts::SharedInBlocks | Hosts::SharedInEqualBlocks),
            Condition::UnequalHosts => s.hosts.shared() && s.layout.fewest < s.layout.most,
            Condition::LoneRank => s.hosts.shared() && s.layout.fewest == 1 && s.layout.most > 1,
            Condition::NhalfFrom(n) => s.nhalf > 0 && s.nhalf >= n,
            Condition::NhalfBelow(n) => s.nhalf > 0 && s.nhalf < n,
            Condition::BisectionFrom(n) => s.bisection > 0 && s.bisection >= n,
            Condition::BisectionBelow(n) => s.bisection > 0 && s.bisection < n,
            Condition::Floating => s.floating,
            Condition::Reproducible => s.order_is_fixed(),
            Condition::OpenMpi => cfg!(fastred_mpi = "openmpi"),
            Condition::Mpich => cfg!(fastred_mpi = "mpich"),
        }
    }
}

/// What a rule chooses: one algorithm, or (`model`) the algorithm the table's
/// α-β-γ cost model estimates fastest among those that can run the call.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Algorithm(Algorithm),
    Model,
}

/// One line of a selection table.
#[derive(Clone, Debug, PartialEq)]
struct Rule {
    coll: Option<Collective>,
    bytes: (usize, usize),
    procs: (usize, usize),
    conditions: Vec<Condition>,
    target: Target,
    line: usize,
    text: String,
    /// Whether the rule applies can depend on where the ranks are
    /// ([`Rule::reads_placement`]).
    reads_placement: bool,
}

/// How a call's choice depends on where its ranks are
/// ([`Table::placement_dependence`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementDependence {
    /// The same choice wherever the ranks are.
    None,
    /// Only through whether the shared-memory algorithm may run (every rank
    /// on one host): without it, the same choice wherever the ranks are.
    SharedMemoryOnly,
    /// The choice depends on where the ranks are.
    Full,
}

/// A parsed selection table (see `src/tuning/default.table` for the format).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    rules: Vec<Rule>,
    /// `of_collective[c]`: the rules that can apply to collective `c` (those
    /// naming it, and `*`), as indices into `rules` in table order: a lookup
    /// tries a quarter of the table (a new communicator's first call, and a
    /// size not seen last on it, look rules up).
    of_collective: [Vec<usize>; 4],
    /// The α-β-γ parameters of `model` rules (the table's `model` line, else
    /// [`CostModel::default`]).
    pub model: CostModel,
    /// Where it came from, for messages ("default" or a path).
    pub source: String,
}

/// The default table, compiled in.
pub const DEFAULT_TABLE: &str = include_str!("tuning/default.table");

/// `N`, or with `suffixes` also `NK` / `NM` / `NG` (powers of 1024).
pub fn parse_size(s: &str, suffixes: bool) -> Option<usize> {
    let (digits, mult) = match s.as_bytes().last()? {
        b'K' | b'k' if suffixes => (&s[..s.len() - 1], 1024),
        b'M' | b'm' if suffixes => (&s[..s.len() - 1], 1024 * 1024),
        b'G' | b'g' if suffixes => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(mult)
}

fn parse_range(s: &str, suffixes: bool) -> Option<(usize, usize)> {
    if s == "*" {
        return Some((0, usize::MAX));
    }
    match s.split_once('-') {
        Some((lo, "")) => Some((parse_size(lo, suffixes)?, usize::MAX)),
        Some((lo, hi)) => Some((parse_size(lo, suffixes)?, parse_size(hi, suffixes)?)),
        None => parse_size(s, suffixes).map(|n| (n, n)),
    }
}

impl Table {
    /// Parse a table; errors name the line.
    pub fn parse(text: &str, source: &str) -> Result<Table, String> {
        let mut rules = Vec::new();
        let mut model = CostModel::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let err = |what: String| format!("{source}: line {line}: {what}: '{content}'");
            let cols: Vec<&str> = content.split_whitespace().collect();
            if cols[0] == "model" {
                model = CostModel::from_fields(cols[1..].iter().copied()).ok_or_else(|| err("expected 'model ALPHA BETA GAMMA [ALPHA_INTRA BETA_INTRA]' (seconds, seconds per byte; the last two within a host)".into()))?;
                continue;
            }
            let [coll, bytes, procs, conds, algo] = cols[..] else {
                return Err(err(format!("expected 5 columns, found {}", cols.len())));
            };
            let coll = match coll {
                "*" => None,
                c => Some(Collective::from_name(c).ok_or_else(|| err(format!("unknown collective '{c}'")))?),
            };
            let bytes = parse_range(bytes, true).ok_or_else(|| err(format!("bad byte range '{bytes}'")))?;
            let procs = parse_range(procs, false).ok_or_else(|| err(format!("bad process range '{procs}'")))?;
            let conditions = if conds == "-" {
                vec![]
            } else {
                conds
                    .split(',')
                    .map(|c| match Condition::BOUNDED.iter().find_map(|&(prefix, make, what, suffixes)| Some((c.strip_prefix(prefix)?, make, what, suffixes))) {
                        Some((n, make, what, suffixes)) => parse_size(n, suffixes).map(make).ok_or_else(|| err(format!("bad {what} in '{c}'"))),
                        None => Condition::NAMES.iter().find(|(n, _)| *n == c).map(|(_, k)| *k).ok_or_else(|| err(format!("unknown condition '{c}'"))),
                    })
                    .collect::<Result<_, _>>()?
            };
            let target = match algo {
                "model" => Target::Model,
                _ => Target::Algorithm(Algorithm::from_name(algo).ok_or_else(|| err(format!("unknown algorithm '{algo}'")))?),
            };
            let reads_placement = Rule::reads_placement(&conditions, target);
            let text = content.split_whitespace().collect::<Vec<_>>().join(" ");
            rules.push(Rule { coll, bytes, procs, conditions, target, line, text, reads_placement });
        }
        let of_collective = Collective::ALL.map(|c| (0..rules.len()).filter(|&i| rules[i].coll.is_none_or(|rc| rc == c)).collect());
        Ok(Table { rules, of_collective, model, source: source.to_string() })
    }

    /// The compiled-in default table.
    pub fn default_table() -> Table {
        Table::parse(DEFAULT_TABLE, "default table").expect("the default table parses")
    }

    /// Whether some rule has an `nhalf>=N` or `nhalf<N` condition (only then
    /// is n½ measured).
    pub fn asks_nhalf(&self) -> bool {
        self.rules.iter().any(|r| r.conditions.iter().any(|c| c.nhalf_bound().is_some()))
    }

    /// Whether some rule for `procs` processes has a `bisection>=N` or
    /// `bisection<N` condition (only then is the cross-section measured, on
    /// a communicator of that size).
    pub fn asks_bisection(&self, procs: usize) -> bool {
        self.rules.iter().any(|r| (r.procs.0..=r.procs.1).contains(&procs) && r.conditions.iter().any(|c| c.bisection_bound().is_some()))
    }

    /// How the choice for `shape` depends on where the ranks are.
    pub fn placement_dependence(&self, s: &Shape) -> PlacementDependence {
        if !self.depends_on_placement(s) {
            PlacementDependence::None
        } else if s.shared_memory && !self.depends_on_placement(&Shape { shared_memory: false, ..*s }) {
            PlacementDependence::SharedMemoryOnly
        } else {
            PlacementDependence::Full
        }
    }

    /// Whether the choice for `shape` depends on where the ranks are (its
    /// `topology`, `hosts` and the network's n½; only then is the placement
    /// worth computing).
    pub fn depends_on_placement(&self, s: &Shape) -> bool {
        // The shapes [`placement_changes`] tries differ only in where the ranks are. The
        // rules that may decide one of them: those of this call's collective,
        // size and process count whose other conditions hold and whose
        // algorithm can run it on some placement, up to the first that does
        // not read the placement (it applies wherever the ranks are: no rule
        // after it is reached).
        let mut candidates = Vec::new();
        for r in self.rules_for(s.coll).filter(|r| r.covers(s) && r.holds_apart_from_placement(s) && r.runs_on_some_hosts(s)) {
            candidates.push(r);
            if !r.reads_placement {
                break;
            }
        }
        let placement_decides = candidates.iter().any(|r| r.reads_placement);
        let networks = network_trials(&candidates);
        placement_changes(s, |placed| candidates.iter().copied().find(|r| r.applies(placed)), placement_decides, &networks)
    }

    /// The rules that can apply to `coll`, in table order.
    fn rules_for(&self, coll: Collective) -> impl Iterator<Item = &Rule> {
        self.of_collective[coll as usize].iter().map(|&i| &self.rules[i])
    }

    /// The first rule that matches `shape` and whose algorithm can run it.
    fn lookup(&self, s: &Shape) -> Option<&Rule> {
        self.rules_for(s.coll).find(|r| r.applies(s))
    }
}

/// The values of a bounded condition (`bound`) that tell `rules`' such
/// conditions apart: unknown (0), and each bound and the value just below
/// it (a band `nhalf>=2K,nhalf<8K` holds at 2K and 8K - 1 only).
fn bound_trials(rules: &[&Rule], bound: fn(Condition) -> Option<usize>) -> Vec<usize> {
    let mut trials = vec![0];
    for r in rules {
        for n in r.conditions.iter().filter_map(|&c| bound(c)) {
            trials.extend([n.saturating_sub(1), n]);
        }
    }
    trials.sort_unstable();
    trials.dedup();
    trials
}

/// The networks, (n½, cross-section), that tell `rules`' network
/// conditions apart: every pair of their [`bound_trials`].
fn network_trials(rules: &[&Rule]) -> Vec<(usize, usize)> {
    let cross = bound_trials(rules, Condition::bisection_bound);
    bound_trials(rules, Condition::nhalf_bound).into_iter().flat_map(|n| cross.iter().map(move |&b| (n, b))).collect()
}

/// Whether the rule `lookup` finds for `s` changes with where its ranks are
/// (tried on each network, (n½, cross-section), of `networks`), or is a
/// `model` rule (whose costs depend on it, [`estimate_placed`], and which
/// may choose the two-level algorithm); placements are tried only with
/// `try_placements`.
fn placement_changes<'r>(s: &Shape, lookup: impl Fn(&Shape) -> Option<&'r Rule>, try_placements: bool, networks: &[(usize, usize)]) -> bool {
    let rule = |topology, hosts, layout, (nhalf, bisection)| lookup(&Shape { topology, hosts, layout, nhalf, bisection, ..*s });
    let one_per_host = rule(false, Hosts::OnePerHost, s.layout, (0, 0));
    let first = one_per_host.map(|r| r.line);
    let model_decides = one_per_host.is_some_and(|r| r.target == Target::Model) && s.procs > 2;
    // The layout is not known yet either: also as few hosts as can be
    // (for `hosts<=N`), and the ranks on two and on four hosts (for
    // `hostspow2`, `hostblocks>=N` and `removalspans`, which holds on
    // 4 x 5 but not 2 x 10).
    let hosts = |n: usize| Layout { hosts: n, fewest: s.procs / n, most: s.procs.div_ceil(n) };
    let layouts = [s.layout, Layout { hosts: 1, fewest: 1, most: 1 }, hosts(2), hosts(4)];
    let differs = |t, h, l, n| rule(t, h, l, n).map(|r| r.line) != first;
    model_decides || try_placements && [false, true].iter().any(|&t| Hosts::ALL.iter().any(|&h| layouts.iter().any(|&l| networks.iter().any(|&n| differs(t, h, l, n)))))
}

impl Rule {
    /// Whether a rule with these conditions and target can apply to one
    /// placement of a call and not to another: a condition on where the
    /// ranks are, or an algorithm that can run only on some placements (the
    /// shared-memory one; the two-level ones in the canonical order).
    fn reads_placement(conditions: &[Condition], target: Target) -> bool {
        conditions.iter().any(|c| c.reads_placement())
            || match target {
                Target::Algorithm(a) => a.descriptor().uses_hosts || a.descriptor().shared_memory,
                Target::Model => false,
            }
    }

    /// The rule's size and process ranges hold `s` (its collective is
    /// [`Table::rules_for`]'s to check).
    fn covers(&self, s: &Shape) -> bool {
        (self.bytes.0..=self.bytes.1).contains(&s.bytes) && (self.procs.0..=self.procs.1).contains(&s.procs)
    }

    /// The conditions that do not read the placement hold for `s`.
    fn holds_apart_from_placement(&self, s: &Shape) -> bool {
        self.conditions.iter().all(|c| c.reads_placement() || c.holds(s))
    }

    /// The rule's algorithm can run `s` with its ranks placed in some way
    /// (eligibility reads the placement only through [`Shape::hosts`]).
    fn runs_on_some_hosts(&self, s: &Shape) -> bool {
        Hosts::ALL.iter().any(|&hosts| self.target_runs(&Shape { hosts, ..*s }))
    }

    /// The rule's algorithm can run `s` (a `model` rule: some algorithm can).
    fn target_runs(&self, s: &Shape) -> bool {
        match self.target {
            Target::Algorithm(a) => a.can_run(s),
            Target::Model => true,
        }
    }

    /// The rule decides a call of shape `s` of a collective it names: its
    /// ranges and conditions hold, and its algorithm can run the call.
    fn applies(&self, s: &Shape) -> bool {
        self.covers(s) && self.conditions.iter().all(|c| c.holds(s)) && self.target_runs(s)
    }
}

/// Why the selector chose what it chose (formatted only when shown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason<'t> {
    Forced,
    Rule { source: &'t str, line: usize, text: &'t str },
    NoRule { source: &'t str },
    /// No rule applied and the library's order is not the canonical one.
    Model,
}

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Forced => f.write_str("forced by FASTRED_ALGO"),
            Reason::Rule { source, line, text } => write!(f, "{source} line {line}: {text}"),
            Reason::NoRule { source } => write!(f, "no rule of the {source} applies"),
            Reason::Model => f.write_str("no rule applies; the cost model's fastest algorithm of FASTRED_REPRODUCIBLE's canonical order"),
        }
    }
}

/// The selector's answer and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice<'t> {
    pub algorithm: Algorithm,
    pub reason: Reason<'t>,
    /// The forced algorithm could not run this call (caller warns once).
    pub override_ignored: bool,
}

/// Choose an algorithm for `shape`: the forced one if it can run the call,
/// else the table's first applicable rule, else the MPI library (or, where
/// the order is fixed and the library cannot be used, the eligible algorithm
/// the cost model estimates fastest).
pub fn choose<'t>(shape: &Shape, forced: Option<Algorithm>, table: &'t Table) -> Choice<'t> {
    let mut override_ignored = false;
    if let Some(a) = forced {
        if a.can_run(shape) || (a == Algorithm::Native && !shape.order_is_fixed()) {
            return Choice { algorithm: a, reason: Reason::Forced, override_ignored };
        }
        override_ignored = true;
    }
    match table.lookup(shape) {
        Some(rule) => Choice {
            algorithm: match rule.target {
                Target::Algorithm(a) => a,
                Target::Model => fastest(shape, table).unwrap_or(Algorithm::Native),
            },
            reason: Reason::Rule { source: &table.source, line: rule.line, text: &rule.text },
            override_ignored,
        },
        // Halving & doubling computes the canonical order of every call the
        // mode constrains (predefined, commutative ops).
        None if shape.order_is_fixed() => {
            Choice { algorithm: fastest(shape, table).unwrap_or(Algorithm::Rabenseifner), reason: Reason::Model, override_ignored }
        }
        None => Choice { algorithm: Algorithm::Native, reason: Reason::NoRule { source: &table.source }, override_ignored },
    }
}

/// Of fastred's algorithms that can run `shape` (only canonical ones where
/// the order is fixed) and that the model may choose
/// ([`Descriptor::by_model`](crate::algo::registry::Descriptor::by_model)),
/// the one `table`'s model estimates fastest where the
/// ranks are ([`estimate_placed`]; the two-level algorithm's lanes as
/// `table` chooses them at run time); `None` when none can run it. The two-level
/// algorithm competes only on shared hosts (elsewhere it is one of the
/// others).
pub fn fastest(shape: &Shape, table: &Table) -> Option<Algorithm> {
    let shared = shape.hosts.shared();
    let cost = |a: &Algorithm| estimate_placed(*a, shape, &table.model, table).unwrap_or(f64::INFINITY);
    Algorithm::ALL
        .into_iter()
        .filter(|a| *a != Algorithm::Native && a.descriptor().by_model && (shared || !a.descriptor().uses_hosts) && a.can_run(shape))
        .min_by(|a, b| cost(a).total_cmp(&cost(b)))
}

/// `a`'s α-β-γ estimate for `shape` with two levels (issue 11 §3): one rank
/// per host, the model's α, β; one host, the within-host α, β
/// ([`CostModel::within_host`]); shared hosts, the two-level algorithm by its
/// own terms ([`crate::algo::hierarchical::two_level_estimate`]); on hosts
/// in blocks (power-of-two blocks, or blocks of an even size, equal or
/// with a short last host), every other algorithm by its pattern's
/// ([`crate::algo::registry::InBlocks`]: steps within a host split off for
/// halving & doubling, recursive doubling and the trees, a host's link
/// shared by its ranks for the exchange patterns, one level for rings and
/// pipelines); on blocks of an odd size the same, but the exchange patterns
/// with a split of their own as crossing hosts at every step and the trees
/// at one level
/// ([`InBlocks::estimate`](crate::algo::registry::InBlocks::estimate));
/// on other shared placements by the model's α, β between hosts, as if each
/// rank had a host link to itself.
pub fn estimate_placed(a: Algorithm, shape: &Shape, m: &CostModel, table: &Table) -> Option<f64> {
    let (coll, bytes, p) = (shape.coll, shape.bytes, shape.procs);
    match shape.hosts {
        Hosts::OnePerHost | Hosts::Lane => a.estimate(coll, bytes, p, m),
        Hosts::OneHost => a.estimate(coll, bytes, p, &m.within_host()),
        _ if a == Algorithm::Hierarchical => a.implements(coll).then(|| crate::algo::hierarchical::two_level_estimate(coll, bytes, shape.layout, shape.nhalf, m, Some(table))),
        // (A short last host is counted full: ⌈p/K⌉ hosts of K.)
        _ if a.implements(coll) && shape.hosts.in_blocks() => {
            let d = a.descriptor();
            d.estimate.map(|e| d.in_blocks.estimate(e, coll, bytes, shape.layout.hosts, shape.layout.most, m))
        }
        _ => a.estimate(coll, bytes, p, m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Algorithm::*;
    use Collective::*;

    fn shape(coll: Collective, bytes: usize, procs: usize) -> Shape {
        Shape { coll, bytes, elems: bytes / 8, procs, commutative: true, builtin_op: true, topology: false, hosts: Hosts::OnePerHost, layout: Layout::one_per_host(procs), nhalf: 0, bisection: 0, floating: true, reproducible: false, shared_memory: true }
    }

    /// `p` ranks in blocks of `k` consecutive ranks per host (the last may hold fewer).
    fn host_blocks(p: usize, k: usize) -> Vec<usize> {
        (0..p).map(|r| r / k).collect()
    }

    /// [`shape`] on p / k hosts of `k` consecutive ranks each.
    fn in_blocks(coll: Collective, bytes: usize, p: usize, k: usize) -> Shape {
        Shape { hosts: Hosts::SharedInBlocks, layout: Layout { hosts: p / k, fewest: k, most: k }, ..shape(coll, bytes, p) }
    }

    /// [`shape`] with rank r on host `host_of[r]`.
    fn placed_shape(coll: Collective, bytes: usize, host_of: &[usize]) -> Shape {
        Shape { hosts: Hosts::of(host_of), layout: Layout::of(host_of), ..shape(coll, bytes, host_of.len()) }
    }

    /// Asserts that no shape is decided by a rule whose text contains `rule`.
    fn not_by_rule(t: &Table, shapes: &[Shape], rule: &str) {
        not_by_rules(t, shapes, &[rule]);
    }

    /// None of `shapes` is chosen by a rule whose text contains any of `rules`.
    fn not_by_rules(t: &Table, shapes: &[Shape], rules: &[&str]) {
        for s in shapes {
            let c = choose(s, None, t);
            assert!(!rules.iter().any(|r| c.reason.to_string().contains(r)), "{s:?}: {}", c.reason);
        }
    }

    /// [`fast_network_takes`] for each (collective, bytes, p, hosts or ranks
    /// per host, algorithm, rule) of `cases` placed by `at` (n½, collective,
    /// bytes, p, hosts or K).
    fn fast_network_takes_each(t: &Table, at: fn(usize, Collective, usize, usize, usize) -> Shape, cases: &[(Collective, usize, usize, usize, Algorithm, &str)]) {
        for &(coll, bytes, p, k, algorithm, rule) in cases {
            fast_network_takes(t, |n| at(n, coll, bytes, p, k), algorithm, rule);
        }
    }

    /// `at(n½)` on a fast network (n½ = 30 KiB) takes `algorithm` by a rule
    /// whose text contains `rule`; on the cluster's network (n½ = 140 B) and
    /// with n½ unknown, no `nhalf>=` rule.
    fn fast_network_takes(t: &Table, at: impl Fn(usize) -> Shape, algorithm: Algorithm, rule: &str) {
        let c = choose(&at(30 << 10), None, t);
        assert_eq!(c.algorithm, algorithm, "{:?}: {}", at(30 << 10), c.reason);
        assert!(c.reason.to_string().contains(rule), "{}", c.reason);
        not_by_rule(t, &[at(0), at(140)], "nhalf>=");
    }

    fn pick(coll: Collective, bytes: usize, procs: usize) -> Algorithm {
        let section_4 = Table::parse(include_str!("tuning/rabenseifner2004.table"), "§4").unwrap();
        choose(&shape(coll, bytes, procs), None, &section_4).algorithm
    }

    fn pick_default(coll: Collective, bytes: usize, procs: usize) -> Algorithm {
        choose(&shape(coll, bytes, procs), None, &Table::default_table()).algorithm
    }

    #[test]
    fn why_an_algorithm_cannot_run_names_the_condition_that_fails() {
        let s = shape(Allreduce, 1 << 20, 8);
        assert_eq!(Ring.why_not(&s), None);
        assert_eq!(Ring.why_not(&Shape { commutative: false, ..s }), Some("it needs a commutative op"));
        assert_eq!(RecursiveHalving.why_not(&s), Some("it does not implement this collective"));
        let fixed = Shape { reproducible: true, ..s };
        assert!(fixed.order_is_fixed());
        assert_eq!(Circulant.why_not(&fixed), Some("it does not compute the canonical order FASTRED_REPRODUCIBLE asks for"));
        if cfg!(fastred_mpi = "smpi") {
            return assert_eq!(SharedMemory.why_not(&s), Some("SimGrid SMPI's simulated ranks share no memory"));
        }
        let one_host = Shape { hosts: Hosts::OneHost, ..s };
        assert_eq!(SharedMemory.why_not(&one_host), None);
        assert_eq!(SharedMemory.why_not(&s), Some("it needs every rank on one host, sharing memory"));
        assert_eq!(SharedMemory.why_not(&Shape { shared_memory: false, ..one_host }),
                   Some("it needs a shared-memory segment, which this communicator could not make"));
        assert_eq!(SharedMemory.why_not(&Shape { elems: 1, bytes: 8 << 10, ..one_host }), Some("its slots hold elements of at most 4 KiB"));
    }

    #[test]
    fn default_table_adds_circulant_where_the_cost_model_says_it_wins() {
        assert_eq!(pick_default(ReduceScatter, 64, 3), Circulant);
        assert_eq!(pick_default(ReduceScatterBlock, 128 << 10, 13), Circulant);
        assert_eq!(pick_default(ReduceScatterBlock, 1 << 20, 13), Ring);
        assert_eq!(pick_default(ReduceScatter, 1 << 20, 2), Pairwise);
        assert_eq!(pick_default(Allreduce, 128 << 10, 7), Circulant);
        assert_eq!(pick_default(Reduce, 4096, 13), Circulant);
        // Powers of two, short vectors and non-commutative ops are unchanged.
        assert_eq!(pick_default(Allreduce, 128 << 10, 16), Rabenseifner);
        assert_eq!(pick_default(Allreduce, 512, 13), Tree);
        let mut s = shape(Allreduce, 1 << 20, 12);
        s.commutative = false;
        assert_eq!(choose(&s, None, &Table::default_table()).algorithm, RecursiveDoubling);
    }

    #[test]
    fn default_table_has_the_measured_long_vector_rules() {
        assert_eq!(pick_default(Allreduce, 256 << 10, 8), Ring);
        assert_eq!(pick_default(Allreduce, 16 << 20, 13), Ring);
        assert_eq!(pick_default(Allreduce, 16 << 20, 16), Ring);
        assert_eq!(pick_default(Allreduce, 255 << 10, 8), Rabenseifner);
        assert_eq!(pick_default(Reduce, 64 << 10, 5), Pipeline);
        assert_eq!(pick_default(Reduce, 60 << 10, 5), Circulant);
        assert_eq!(pick_default(Allreduce, 1 << 20, 2), Rabenseifner);
    }

    #[test]
    fn topology_condition_picks_the_topology_ring_for_long_vectors() {
        let mut s = shape(Allreduce, 4 << 20, 8);
        s.topology = true;
        let t = Table::default_table();
        assert_eq!(choose(&s, None, &t).algorithm, Ring);
        for coll in [Reduce, ReduceScatter, ReduceScatterBlock] {
            assert_eq!(choose(&Shape { coll, ..s }, None, &t).algorithm, Ring, "{coll:?}");
        }
        assert_eq!(choose(&Shape { bytes: 4096, ..s }, None, &t).algorithm, Rabenseifner);
        assert_eq!(choose(&Shape { commutative: false, ..s }, None, &t).algorithm, RecursiveDoubling);
        assert_eq!(choose(&Shape { topology: false, bytes: 128 << 10, ..s }, None, &t).algorithm, Rabenseifner);
        assert_eq!(choose(&Shape { topology: true, bytes: 128 << 10, ..s }, None, &t).algorithm, Ring);
        // Pipelines are reduce-only: forcing them elsewhere is ignored.
        let c = choose(&s, Some(Pipeline), &t);
        assert!(c.override_ignored && c.algorithm == Ring);
        assert_eq!(choose(&Shape { coll: Reduce, ..s }, Some(FibonacciTree), &t).algorithm, FibonacciTree);
    }

    #[test]
    fn beyond_the_measured_process_counts_the_model_decides() {
        // Issue 13's example: the ring's 2(p-1) latencies at p = 1024.
        let t = Table::default_table();
        for p in [17, 100, 1000, 1024, 4000, 4096, 5000] {
            for bytes in [64 << 10, 1 << 20, 16 << 20] {
                for coll in Collective::ALL {
                    let s = shape(coll, bytes, p);
                    let reduce_17_31 = s.coll == Reduce && (17..=31).contains(&p) && (64 << 10..=1 << 20).contains(&bytes);
                    if binary_blocks_rule_covers(&s) || two_tree_rule_covers(&s) || pipeline_rule_covers(&s) || reduce_17_31 {
                        continue;
                    }
                    let c = choose(&s, None, &t);
                    assert!(c.reason.to_string().contains("model"), "{coll:?} {bytes} B p {p}: {}", c.reason);
                    assert_eq!(Some(c.algorithm), fastest(&s, &t), "{coll:?} {bytes} B p {p}");
                    assert_ne!(c.algorithm, Ring, "{coll:?} {bytes} B p {p}");
                }
            }
        }
        assert_eq!(pick_default(Allreduce, 1 << 20, 1024), Rabenseifner);
        // The measured rules keep their range.
        assert_eq!(pick_default(Allreduce, 1 << 20, 16), Ring);
    }

    #[test]
    fn the_model_leaves_the_two_tree_to_measured_rules() {
        // Its estimate is the lowest for long reduces, which simulation did
        // not bear out (registry, `by_model`), so the model passes it over.
        let t = Table::default_table();
        for p in [17, 64, 4096, 5000] {
            for bytes in [1 << 20, 16 << 20, 64 << 20] {
                let s = shape(Reduce, bytes, p);
                assert_ne!(fastest(&s, &t), Some(TwoTree), "{bytes} B p {p}");
            }
        }
        for (p, bytes) in [(64, 16 << 20), (4096, 64 << 20)] {
            let s = shape(Reduce, bytes, p);
            let estimate = |a: Algorithm| estimate_placed(a, &s, &t.model, &t).unwrap();
            assert!(estimate(TwoTree) < estimate(fastest(&s, &t).unwrap()), "{bytes} B p {p}");
        }
        let rule = Table::parse("reduce 1M- 17- - two_tree\n", "test").unwrap();
        assert_eq!(choose(&shape(Reduce, 1 << 20, 64), None, &rule).algorithm, TwoTree);
        assert_eq!(choose(&shape(Reduce, 1 << 20, 64), Some(TwoTree), &t).algorithm, TwoTree);
    }

    /// The measured rules for long vectors at 100-4000 processes (default.table), up to 16 MiB:
    /// binary blocks, or halving & doubling for an allreduce whose blocks are unbalanced.
    fn binary_blocks_rule_covers(s: &Shape) -> bool {
        let from = match (s.coll, s.procs) {
            (Allreduce | Reduce, ..=1000) => 64 << 10,
            (Allreduce | Reduce, _) => 256 << 10,
            (_, 1001..) => 240000,
            _ => 250 << 10,
        };
        (from..=16 << 20).contains(&s.bytes) && (100..=4000).contains(&s.procs) && !s.procs.is_power_of_two() && s.hosts == Hosts::OnePerHost
    }

    /// The measured rules for long reduces at 17-4000 processes (default.table), up to 64 MiB.
    fn two_tree_rule_covers(s: &Shape) -> bool {
        let bytes = match s.procs {
            33..=256 => 1 << 20..=1 << 30,
            ..=32 | 257..=1000 => 2 << 20..=1 << 30,
            1001..=2000 => 4 << 20..=64 << 20,
            _ => 16 << 20..=64 << 20,
        };
        s.coll == Reduce && bytes.contains(&s.bytes) && (17..=4000).contains(&s.procs) && s.hosts == Hosts::OnePerHost
    }

    #[test]
    fn short_reduces_at_three_to_six_hosts_take_the_pipeline() {
        let t = Table::default_table();
        for (bytes, p) in [(2 << 10, 3), (4 << 10, 4), (16 << 10, 6), (8 << 10, 5)] {
            let c = choose(&shape(Reduce, bytes, p), None, &t);
            assert_eq!(c.algorithm, Pipeline, "{bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains("3-6"), "{}", c.reason);
        }
        // Shorter or longer vectors, 7 processes, allreduce, one host, a
        // non-commutative op: not this rule.
        not_by_rule(
            &t,
            &[
                shape(Reduce, (2 << 10) - 8, 4),
                shape(Reduce, (16 << 10) + 8, 4),
                shape(Reduce, 4 << 10, 7),
                shape(Allreduce, 4 << 10, 4),
                Shape { hosts: Hosts::OneHost, ..shape(Reduce, 4 << 10, 4) },
                Shape { commutative: false, ..shape(Reduce, 4 << 10, 4) },
            ],
            "3-6 ",
        );
    }

    #[test]
    fn short_reduce_scatters_at_four_and_eight_hosts_take_halving_and_doubling() {
        let t = Table::default_table();
        for (coll, bytes, p) in [(ReduceScatterBlock, 32, 4), (ReduceScatterBlock, 4 << 10, 8), (ReduceScatter, 512, 8)] {
            for nhalf in [0, 140] {
                let c = choose(&Shape { nhalf, ..shape(coll, bytes, p) }, None, &t);
                assert_eq!(c.algorithm, Rabenseifner, "{bytes} B p {p} n½ {nhalf}: {}", c.reason);
                assert!(c.reason.to_string().contains("0-4K"), "{}", c.reason);
            }
        }
        // Longer vectors, 6 or 16 processes, hosts in blocks: not this rule.
        not_by_rule(
            &t,
            &[
                shape(ReduceScatterBlock, (4 << 10) + 8, 8),
                shape(ReduceScatterBlock, 512, 6),
                shape(ReduceScatterBlock, 512, 16),
                in_blocks(ReduceScatterBlock, 512, 8, 2),
            ],
            "0-4K ",
        );
    }

    #[test]
    fn below_100_processes_binary_blocks_and_the_two_tree_from_one_mib_where_measured() {
        let t = Table::default_table();
        let rule = |s: &Shape| choose(s, None, &t);
        for (coll, bytes, p) in [
            (Allreduce, 64 << 10, 48),
            (Allreduce, 16 << 20, 80),
            (Allreduce, 1 << 20, 36),
            (Allreduce, 2 << 20, 72),
            (Allreduce, 1 << 20, 76), // 64 + 8 + 4: δ = 6 − 3 = 3
            (Reduce, 64 << 10, 33),
            (Reduce, (1 << 20) - 8, 99),
            (Reduce, 256 << 10, 97),
        ] {
            let c = rule(&shape(coll, bytes, p));
            assert_eq!(c.algorithm, BinaryBlocks, "{coll:?} {bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains("33-99"), "{}", c.reason);
        }
        for (bytes, p) in [(1 << 20, 33), (1 << 20, 100), ((2 << 20) - 8, 256), (1 << 20, 255)] {
            let c = rule(&shape(Reduce, bytes, p));
            assert_eq!(c.algorithm, TwoTree, "{bytes} B p {p}: {}", c.reason);
        }
        // Unbalanced blocks (δ_expo,max ≥ 4): halving & doubling, at 33-1000
        // processes; the reduce keeps binary blocks.
        for (bytes, p) in [(1 << 20, 33), (64 << 10, 34), (16 << 20, 97), (1 << 20, 99), (256 << 10, 129), (1 << 30, 520), (4 << 20, 257)] {
            let c = rule(&shape(Allreduce, bytes, p));
            assert_eq!(c.algorithm, Rabenseifner, "{bytes} B p {p}: {}", c.reason);
            assert!(!c.reason.to_string().contains("model"), "{}", c.reason);
        }
        assert_eq!(rule(&shape(Reduce, 256 << 10, 129)).algorithm, BinaryBlocks);
        assert_eq!(rule(&shape(Allreduce, 256 << 10, 999)).algorithm, BinaryBlocks); // δ(999) = 3
        // Above 16 MiB, p = 31 and 32, the reduce-scatters, shared hosts: not
        // these rules (below 64 KiB the medium-vector rules decide, their own test).
        for s in [
            shape(Allreduce, (16 << 20) + 8, 48),
            shape(Allreduce, 1 << 20, 31),
            shape(Reduce, 256 << 10, 32),
            shape(ReduceScatterBlock, 1 << 20, 48),
            shape(ReduceScatter, 1 << 20, 48),
            Shape { hosts: Hosts::SharedInBlocks, ..shape(Allreduce, 1 << 20, 48) },
        ] {
            let c = rule(&s);
            assert!(c.reason.to_string().contains("model"), "{s:?}: {}", c.reason);
        }
        assert_eq!(rule(&shape(Reduce, (1 << 20) - 8, 100)).algorithm, BinaryBlocks); // the 100-1000 rule
        assert_eq!(rule(&shape(Reduce, 1 << 20, 257)).algorithm, BinaryBlocks);
        assert!(balanced_blocks(100) && balanced_blocks(3) && balanced_blocks(64) && !balanced_blocks(33) && !balanced_blocks(68));
    }

    #[test]
    fn medium_vectors_at_17_to_2000_processes_take_recursive_doubling_halving_doubling_and_the_trees() {
        let t = Table::default_table();
        for (coll, bytes, p, algorithm) in [
            (Allreduce, 4 << 10, 17, RecursiveDoubling),
            (Allreduce, 8 << 10, 1000, RecursiveDoubling),
            (Allreduce, 16 << 10, 64, RecursiveDoubling),
            (Allreduce, 16 << 10, 100, RecursiveDoubling),
            (Allreduce, (8 << 10) + 8, 101, Rabenseifner),
            (Allreduce, 16 << 10, 1000, Rabenseifner),
            (Allreduce, 32 << 10, 31, RecursiveDoubling),
            (Allreduce, (16 << 10) + 8, 48, BinaryBlocks), // the 33-99 rule, from just above 16 KiB
            (Allreduce, 32 << 10, 33, Rabenseifner),       // δ_expo,max(33) = 5
            (Allreduce, 32 << 10, 1000, BinaryBlocks),     // the 100-1000 rule
            (Reduce, 4 << 10, 256, KnomialTree),
            (Reduce, 8 << 10, 1000, KnomialTree),
            (Reduce, (8 << 10) + 8, 17, Tree),
            (Reduce, 32 << 10, 1000, Tree),
            (Reduce, 16 << 10, 2000, Tree),
            (Allreduce, 32 << 10, 2000, Rabenseifner),
            (Allreduce, 16 << 10, 1999, Rabenseifner),
            (Reduce, (32 << 10) + 8, 1000, BinaryBlocks), // the 100-1000 rule, from just above 32 KiB
            (Reduce, (32 << 10) + 8, 48, BinaryBlocks),   // the 33-99 rule
        ] {
            let c = choose(&shape(coll, bytes, p), None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p}: {}", c.reason);
            assert!(!c.reason.to_string().contains("model"), "{coll:?} {bytes} B p {p}: {}", c.reason);
        }
        // Outside: p = 16 and above 2000, the allreduce of 8 KiB above 1000
        // processes and of 16-32 KiB at 32, reduces above 32 KiB, shared hosts.
        for s in [
            shape(Allreduce, 8 << 10, 1001),
            shape(Allreduce, 32 << 10, 32),
            shape(Reduce, 16 << 10, 2001),
            shape(Allreduce, 32 << 10, 2001),
            shape(Reduce, (32 << 10) + 8, 100),
            shape(Reduce, 16 << 10, 16),
            Shape { hosts: Hosts::SharedInBlocks, ..shape(Reduce, 16 << 10, 64) },
        ] {
            let c = choose(&s, None, &t);
            let reason = c.reason.to_string();
            assert!(["17-1000", "17-2000", "1001-2000", "17-100 ", "101-1000"].iter().all(|r| !reason.contains(r)), "{s:?}: {reason}");
        }
        assert_eq!(choose(&shape(Allreduce, 32 << 10, 256), None, &t).algorithm, Rabenseifner); // a power of two: the model's halving & doubling
    }

    #[test]
    fn placements_are_classified() {
        let blocks = host_blocks;
        assert_eq!(Hosts::of(&blocks(5, 1)), Hosts::OnePerHost);
        assert_eq!(Hosts::of(&blocks(5, 5)), Hosts::OneHost);
        assert_eq!(Hosts::of(&blocks(64, 8)), Hosts::SharedInBlocks);
        assert_eq!(Hosts::of(&blocks(240, 12)), Hosts::SharedInEqualBlocks);
        assert_eq!(Hosts::of(&blocks(10, 4)), Hosts::SharedInBlocksShortLast, "4 + 4 + 2");
        assert_eq!(Hosts::of(&blocks(250, 16)), Hosts::SharedInBlocksShortLast, "15 x 16 + 10");
        assert_eq!(Hosts::of(&[0, 0, 1, 1, 1, 2, 2]), Hosts::Shared, "2 + 3 + 2: not K on every host but the last");
        assert_eq!(Hosts::of(&[0, 0, 0, 1, 1, 1, 2, 2, 2, 2]), Hosts::Shared, "the last host holds more");
        assert_eq!(Hosts::of(&[0, 1, 0, 1, 2, 2]), Hosts::Shared, "not consecutive");
        assert_eq!(Hosts::of(&[0, 1, 2, 0, 1, 2, 0, 1]), Hosts::Shared, "dealt round robin");
        assert!(Hosts::SharedInBlocksShortLast.in_blocks() && !Hosts::Shared.in_blocks() && !Hosts::SharedInBlocksShortLast.keeps_canonical_order());
        assert!(Hosts::SharedInBlocks.keeps_canonical_order() && !Hosts::SharedInEqualBlocks.keeps_canonical_order());
    }

    #[test]
    fn hosts_in_blocks_at_64_to_2000_take_the_measured_rules() {
        let t = Table::default_table();
        let blocks = |bytes, p, k| in_blocks(Reduce, bytes, p, k);
        for (bytes, p, k, algorithm) in [
            (4 << 10, 64, 8, Tree),
            // 64-256 processes on hosts of up to 16: the two-level algorithm
            // (its lanes across 4-16 hosts run the `lane` rules) from 8 KiB, and
            // from 4 KiB at 96 processes, 2 KiB on 16 x 8.
            (4 << 10, 128, 8, Hierarchical),
            (4 << 10, 96, 12, Hierarchical),
            (4 << 10, 256, 16, Hierarchical),
            (2 << 10, 128, 8, Hierarchical),
            (2 << 10, 256, 8, KnomialTree), // 32 hosts: not `hosts<=16`
            (2 << 10, 192, 12, KnomialTree), // hosts of 12: not `hostblocks<=8`
            // On hosts of 24 from 16 KiB at 192-256, from 8 KiB at 257-1008.
            (16 << 10, 192, 24, Hierarchical),
            (8 << 10, 192, 24, Tree),
            (8 << 10, 384, 24, Hierarchical),
            (32 << 10, 1008, 24, Hierarchical),
            (4 << 10, 504, 24, Tree),
            (16 << 10, 1200, 24, Tree), // beyond the measured 1008
            (16 << 10, 256, 16, Hierarchical),
            (8 << 10, 64, 16, Hierarchical),
            ((16 << 10) + 8, 128, 8, Hierarchical),
            (32 << 10, 64, 8, Hierarchical),
            (32 << 10, 256, 16, Hierarchical),
            ((32 << 10) + 8, 240, 16, BinaryBlocks),
            (512 << 10, 96, 4, BinaryBlocks),
            // From 257 processes the two-level algorithm at 2-32 KiB, also
            // with fewer elements than processes (ahead of the `few` rules).
            (2 << 10, 504, 8, Hierarchical),
            (4 << 10, 1000, 8, Hierarchical),
            (32 << 10, 1000, 8, Hierarchical),
            (32 << 10, 2000, 8, Hierarchical),
        ] {
            let c = choose(&blocks(bytes, p, k), None, &t);
            assert_eq!(c.algorithm, algorithm, "{bytes} B p {p} K {k}: {}", c.reason);
            assert!(c.reason.to_string().contains("hostblocks"), "{}", c.reason);
        }
        // Short vectors: recursive doubling, from 256 processes only below
        // 1 KiB and the two-level algorithm at 1-8 KiB (also with fewer
        // elements than processes, at 1000); the k-nomial tree; the reduce-scatter halving & doubling.
        for (coll, bytes, p, algorithm) in [
            (Allreduce, 512, 64, RecursiveDoubling),
            (Allreduce, 1 << 10, 64, RecursiveDoubling),
            (Allreduce, 1 << 10, 128, Hierarchical),
            (Allreduce, 32 << 10, 384, Rabenseifner), // 48 hosts of 8: not `hosts<=16`
            (Allreduce, 2 << 10, 128, Hierarchical),
            (Allreduce, 32 << 10, 64, Hierarchical),
            (Allreduce, 1 << 10, 256, Hierarchical),
            (Allreduce, 1 << 10, 512, Hierarchical),
            (Allreduce, 4 << 10, 512, Hierarchical),
            (Allreduce, 2 << 10, 1000, Hierarchical),
            (Allreduce, 16 << 10, 504, Hierarchical),
            (Allreduce, 16 << 10, 256, Hierarchical),
            (Reduce, 1 << 10, 64, KnomialTree),
            // The reduce-scatter: the two-level algorithm (halving & doubling
            // lanes) on up to 16 hosts at 64-384, halving & doubling beyond.
            (ReduceScatterBlock, 4 << 10, 64, Hierarchical),
            (ReduceScatterBlock, 4 << 10, 256, Rabenseifner), // 32 hosts
            (ReduceScatterBlock, 8000, 1000, Rabenseifner),
        ] {
            let c = choose(&Shape { coll, ..blocks(bytes, p, 8) }, None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains("hostblocks"), "{}", c.reason);
        }
        // Blocks of a size not a power of two (12, 24 ranks) take the same
        // rules; the two-level reduce on hosts of up to 16 (`hostblocks<=16`), on
        // hosts of 24 from 8 or 16 KiB.
        for (coll, bytes, p, k, algorithm) in [
            (Reduce, 8 << 10, 240, 12, Hierarchical),
            (Reduce, 8 << 10, 240, 24, Tree),
            (Allreduce, 32 << 10, 192, 24, Hierarchical),
            (Allreduce, 32 << 10, 384, 24, Hierarchical), // 16 hosts (`hosts<=16`)
            (Reduce, 8 << 10, 504, 12, Hierarchical),
            (Reduce, 8 << 10, 504, 24, Hierarchical),
            (Reduce, 32 << 10, 240, 24, Hierarchical), // hosts of 24: 16-32 KiB at 192-256
            (Reduce, 32 << 10, 480, 24, Hierarchical), // 8-32 KiB at 257-1008
            (Reduce, 512 << 10, 960, 24, BinaryBlocks),
            (Allreduce, 128 << 10, 480, 12, Rabenseifner),
        ] {
            let c = choose(&Shape { coll, hosts: Hosts::SharedInEqualBlocks, ..blocks(bytes, p, k) }, None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} K {k}: {}", c.reason);
        }
        // At 1008 processes (fat tree 42 x 24, the largest measured): the
        // same rules, and the two-level algorithm for the allreduce up to 8 KiB
        // and the reduce of 8-32 KiB.
        for (coll, bytes, algorithm) in [
            (Allreduce, 2 << 10, Hierarchical),
            (Allreduce, 8 << 10, Hierarchical),
            (Allreduce, 32 << 10, Rabenseifner),
            (Reduce, 8 << 10, Hierarchical), // hosts of 24: 8-32 KiB at 257-1008 (stop 43)
            (Reduce, 32 << 10, Hierarchical),
            (Reduce, 128 << 10, BinaryBlocks),
            (Reduce, 512 << 10, BinaryBlocks),
        ] {
            let c = choose(&Shape { coll, hosts: Hosts::SharedInEqualBlocks, ..blocks(bytes, 1008, 24) }, None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p 1008 K 24: {}", c.reason);
            assert!(c.reason.to_string().contains("hostblocks"), "{}", c.reason);
        }
        // Beyond the rules, the model weighs equal blocks of an even size by
        // their in-blocks patterns: not the circulant, whose skips cross
        // hosts from every rank at once (SMPI, fat tree 42 x 24: 10.6x the
        // fastest at 512 KiB; halving & doubling 1.13).
        let c = choose(&Shape { coll: Allreduce, hosts: Hosts::SharedInEqualBlocks, ..blocks(512 << 10, 1008, 24) }, None, &t);
        assert_eq!(c.algorithm, Rabenseifner, "{}", c.reason);
        assert!(c.reason.to_string().contains("model"), "{}", c.reason);
        // The allreduce above 32 KiB: halving & doubling.
        for (bytes, p, k) in [((32 << 10) + 8, 64, 8), (128 << 10, 240, 16)] {
            let c = choose(&Shape { coll: Allreduce, ..blocks(bytes, p, k) }, None, &t);
            assert_eq!(c.algorithm, Rabenseifner, "{bytes} B p {p} K {k}: {}", c.reason);
            assert!(c.reason.to_string().contains("hostblocks"), "{}", c.reason);
        }
        // At 2000 processes (fat tree 125 x 16): the same rules.
        for (coll, bytes, algorithm) in [(Allreduce, 2 << 10, Hierarchical), (Reduce, 32 << 10, Hierarchical), (Reduce, 512 << 10, BinaryBlocks)] {
            let c = choose(&Shape { coll, ..blocks(bytes, 2000, 16) }, None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p 2000 K 16: {}", c.reason);
            assert!(c.reason.to_string().contains("hostblocks"), "{}", c.reason);
        }
        // Not: other placements, p below 64 or above 2000, outside the sizes, reduce_scatter.
        not_by_rule(
            &t,
            &[
                Shape { hosts: Hosts::Shared, ..blocks(16 << 10, 240, 16) },
                blocks(16 << 10, 48, 8),
                blocks(16 << 10, 2008, 8),
                blocks(1 << 10, 1000, 8),
                blocks((4 << 10) - 8, 256, 8),
                blocks(504, 256, 8),
                Shape { coll: Allreduce, ..blocks((16 << 10) + 8, 512, 8) },
                Shape { coll: Allreduce, ..blocks(16 << 10, 1008, 8) },
                blocks((512 << 10) - 8, 48, 8),
                blocks(2 << 20, 1032, 8),
                Shape { coll: Allreduce, ..blocks((128 << 10) + 8, 256, 8) },
                Shape { coll: ReduceScatter, ..blocks(16 << 10, 256, 8) },
                Shape { coll: ReduceScatterBlock, ..blocks(128 << 10, 240, 16) },
            ],
            "hostblocks",
        );
    }

    #[test]
    fn long_reduces_on_hosts_in_blocks_run_the_chain_or_binary_blocks() {
        let t = Table::default_table();
        let blocks = |bytes, p, k| in_blocks(Reduce, bytes, p, k);
        for (bytes, p, k, algorithm) in [
            (2 << 20, 32, 8, Pipeline),
            (2 << 20, 96, 8, Pipeline),
            (2 << 20, 128, 8, BinaryBlocks),
            (8 << 20, 128, 8, Pipeline),
            (32 << 20, 256, 16, Pipeline),
            (8 << 20, 512, 16, BinaryBlocks),
            (512 << 10, 32, 8, BinaryBlocks),
            (1 << 20, 1024, 64, BinaryBlocks),
            (8 << 20, 24, 8, Pipeline), // the 4-31 rules
            (8 << 20, 384, 16, Pipeline),
            (16 << 20, 512, 8, Pipeline),
            (16 << 20, 1024, 16, BinaryBlocks),
            (32 << 20, 1024, 16, Pipeline),
        ] {
            let c = choose(&blocks(bytes, p, k), None, &t);
            assert_eq!(c.algorithm, algorithm, "{bytes} B p {p} K {k}: {}", c.reason);
            assert!(c.reason.to_string().contains("hostblocks"), "{}", c.reason);
        }
        // Beyond 1024: no rule of these.
        not_by_rule(&t, &[blocks(8 << 20, 1032, 8)], "hostblocks");
    }

    #[test]
    fn hosts_in_blocks_at_4_to_31_processes_take_their_rules() {
        let t = Table::default_table();
        for (coll, bytes, p, k, algorithm) in [
            (Allreduce, 512, 12, 4, RecursiveDoubling), // not the §4 binary tree
            (Allreduce, 2 << 10, 12, 2, RecursiveDoubling),
            (Allreduce, 8 << 10, 12, 2, Hierarchical),
            (Allreduce, 32 << 10, 24, 8, Hierarchical),
            // At 8 processes and fewer the 50 Mbit/s cluster's choices stay.
            (Allreduce, 2 << 10, 8, 2, Rabenseifner),
            (Allreduce, 8 << 10, 6, 3, Circulant),
            (Reduce, 8 << 10, 8, 4, Rabenseifner),
            (Reduce, 64, 12, 4, KnomialTree), // ahead of the `few` rules
            (Reduce, 1 << 10, 6, 2, KnomialTree),
            (Reduce, 2 << 10, 8, 2, Rabenseifner),
            (Reduce, 16 << 10, 24, 8, FibonacciTree), // 3 hosts
            (Reduce, 16 << 10, 24, 4, Hierarchical), // 6 hosts
            (Reduce, 128 << 10, 12, 4, Hierarchical),
            (Reduce, 128 << 10, 8, 2, Pipeline), // 8 processes keep the chain
            (Reduce, 512 << 10, 20, 4, Pipeline),
            (ReduceScatterBlock, 4 << 10, 12, 4, Hierarchical),
            (ReduceScatterBlock, 4 << 10, 12, 2, Rabenseifner), // hosts of 2
            (ReduceScatterBlock, 4 << 10, 16, 4, Rabenseifner), // a power of two
            (ReduceScatter, 64, 6, 3, Hierarchical),
            (ReduceScatterBlock, 64, 6, 2, Hierarchical), // 3 x 2
            (ReduceScatterBlock, 60 << 10, 12, 2, Hierarchical), // 6 x 2 from 48 KiB
            (ReduceScatterBlock, 32 << 10, 12, 2, Rabenseifner),
        ] {
            let c = choose(&in_blocks(coll, bytes, p, k), None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} K {k}: {}", c.reason);
        }
        // One rank per host is not in blocks.
        not_by_rule(&t, &[shape(Reduce, 16 << 10, 24)], "fibonacci_tree");
    }

    #[test]
    fn a_fast_network_takes_the_simulated_rules_at_4_to_8_processes() {
        let t = Table::default_table();
        assert!(t.asks_nhalf());
        let at = |nhalf, coll, bytes, p, k| Shape { nhalf, ..in_blocks(coll, bytes, p, k) };
        for (coll, bytes, p, k, algorithm) in [
            (Allreduce, 2 << 10, 8, 2, RecursiveDoubling),
            (Allreduce, 8 << 10, 6, 3, Hierarchical), // recursive doubling until stop 61 (1.10-1.17x the two-level algorithm re-swept)
            (Allreduce, 8 << 10, 6, 2, RecursiveDoubling), // 3 hosts
            (Allreduce, 16 << 10, 8, 2, Hierarchical),
            (Reduce, 2 << 10, 8, 4, KnomialTree), // 2 hosts (4 x 2: the two-level algorithm since stop 61)
            (Reduce, 8 << 10, 6, 3, FibonacciTree), // 2 hosts of 3 (of 4: the binary tree since stop 61)
            (Reduce, 8 << 10, 8, 2, Hierarchical),  // 4 hosts
        ] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, k), algorithm, "nhalf>=8K");
            // A network just short of the bound: not these rules (1 Gbit/s Ethernet's, or an unknown network's).
            not_by_rule(&t, &[at((8 << 10) - 1, coll, bytes, p, k)], "nhalf>=8K");
        }
        // From 32 KiB (but the reduce of 64-128 KiB at 8 processes, `reduces_on_small_hosts_on_a_fast_network`)
        // and at 9 processes and more: the rules of any network.
        let beyond = [at(30 << 10, Reduce, 512 << 10, 8, 2), at(30 << 10, Allreduce, 2 << 10, 12, 2)];
        not_by_rule(&t, &beyond, "nhalf");
    }

    #[test]
    fn gigabit_ethernet_runs_the_two_level_algorithm_on_hosts_of_a_size_not_a_power_of_two() {
        let t = Table::default_table();
        // p ranks in blocks of k per host (the last host short where k does not divide p), n½ `nhalf`.
        let at = |nhalf, coll, bytes, p, k| Shape { nhalf, ..placed_shape(coll, bytes, &host_blocks(p, k)) };
        for (coll, bytes, p, k, algorithm) in [
            (Allreduce, 8, 24, 3, Hierarchical),
            (Allreduce, 512, 18, 6, Hierarchical),
            (Allreduce, 32 << 10, 60, 5, Hierarchical),
            (Allreduce, 4 << 20, 14, 7, Hierarchical),
            (Allreduce, 1 << 10, 48, 12, Hierarchical),
            (Allreduce, 64 << 10, 35, 3, Hierarchical),
            (Reduce, 8 << 10, 10, 5, Hierarchical),
            (Reduce, 256 << 10, 36, 3, Hierarchical),
            (Reduce, 512 << 10, 60, 6, Hierarchical),
            (Reduce, 512 << 10, 36, 6, Pipeline),
            (Reduce, 256 << 10, 18, 6, Pipeline),
            (Reduce, 256, 40, 5, FibonacciTree),
            (Reduce, 4 << 10, 12, 6, FibonacciTree),
            (Reduce, 256, 56, 7, Hierarchical),
            (Reduce, 256 << 10, 24, 6, Hierarchical),
            (Reduce, 1 << 20, 48, 3, Hierarchical),
            (Reduce, 1 << 20, 36, 3, Pipeline),
            (Reduce, 4 << 20, 28, 7, Pipeline),
            (ReduceScatterBlock, 4 << 10, 12, 3, Hierarchical),
            (ReduceScatter, 1 << 20, 14, 7, Hierarchical),
            (Allreduce, 1 << 20, 192, 3, Hierarchical),
            (Reduce, 512 << 10, 96, 12, Hierarchical),
            (Reduce, 2 << 20, 192, 6, Pipeline),
            (ReduceScatterBlock, 64 << 10, 96, 3, Hierarchical),
            (Reduce, 8 << 10, 96, 12, Hierarchical),
            (Reduce, 64, 12, 3, Hierarchical),
            (Reduce, 2 << 10, 24, 3, Hierarchical),
            (Reduce, 2 << 10, 60, 5, Hierarchical),
            (Reduce, 64, 96, 3, Hierarchical),
            (Reduce, 32 << 10, 192, 3, Hierarchical),
        ] {
            for nhalf in [2 << 10, 4267, (8 << 10) - 1] {
                let c = choose(&at(nhalf, coll, bytes, p, k), None, &t);
                assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} K {k} n½ {nhalf}: {}", c.reason);
                assert!(c.reason.to_string().contains("blocksnonpow2"), "{}", c.reason);
            }
            not_by_rule(&t, &[0, 1 << 10, 8 << 10].map(|nhalf| at(nhalf, coll, bytes, p, k)), "blocksnonpow2");
        }
        // Hosts of 4 and 16 (powers of two) and of 24, 258 processes, the
        // reduce of 384 KiB on fewer than 8 hosts (and of 16-32 KiB from 65 processes but on hosts
        // of 3; below 4 KiB on fewer than 4 hosts or beyond 256 processes),
        // the reduce-scatter at 17-64 processes (the model's): not these rules.
        let others = [at(4267, Allreduce, 8, 24, 4), at(4267, Allreduce, 8, 48, 16), at(4267, Allreduce, 8, 48, 24),
                      at(4267, Allreduce, 8, 258, 6), at(4267, Reduce, 384 << 10, 18, 3),
                      at(4267, Reduce, 16 << 10, 192, 12), at(4267, Reduce, 32 << 10, 96, 6), at(4267, ReduceScatterBlock, 4 << 10, 18, 3),
                      at(4267, Reduce, 64, 9, 3), at(4267, Reduce, 64, 258, 3)];
        not_by_rule(&t, &others, "blocksnonpow2");
        assert!(!Condition::HostBlocksNonPow2.holds(&at(4267, Allreduce, 8, 48, 16)) && Condition::HostBlocksNonPow2.holds(&at(4267, Allreduce, 8, 50, 5)));
    }

    #[test]
    fn gigabit_ethernet_takes_the_rules_simulated_there() {
        let t = Table::default_table();
        // K ranks per host: in blocks (BLOCKS; one rank per host for K = 1),
        // or dealt round robin (DEALT), at n½ `nhalf`.
        const BLOCKS: bool = false;
        const DEALT: bool = true;
        let gbe = |nhalf, coll, bytes, p: usize, k: usize, dealt: bool| {
            let s = if dealt {
                placed_shape(coll, bytes, &(0..p).map(|r| r % (p / k)).collect::<Vec<_>>())
            } else if k == 1 {
                shape(coll, bytes, p)
            } else {
                in_blocks(coll, bytes, p, k)
            };
            Shape { nhalf, ..s }
        };
        for (coll, bytes, p, k, dealt, algorithm) in [
            (Allreduce, 1 << 10, 6, 1, BLOCKS, RecursiveDoubling),
            (Allreduce, 64 << 10, 48, 1, BLOCKS, Circulant),
            (Reduce, 64, 12, 1, BLOCKS, KnomialTree),
            (Reduce, 8 << 10, 5, 1, BLOCKS, BinaryBlocks),
            (Reduce, 128 << 10, 24, 1, BLOCKS, Circulant),
            (Reduce, 2 << 20, 64, 1, BLOCKS, TwoTree),
            (Allreduce, 8 << 10, 200, 1, BLOCKS, Circulant),
            (Reduce, 32 << 10, 256, 1, BLOCKS, Circulant),
            (ReduceScatterBlock, 256 << 10, 16, 1, BLOCKS, Circulant),
            (ReduceScatter, 4 << 10, 12, 1, BLOCKS, Circulant),
            // Stop 69: the circulant to 16 MiB from 17 processes (binary blocks had taken 4-16 MiB at 100-256).
            (Allreduce, 16 << 20, 100, 1, BLOCKS, Circulant),
            (ReduceScatterBlock, 8 << 20, 200, 1, BLOCKS, Circulant),
            (Allreduce, 1 << 10, 8, 2, BLOCKS, RecursiveDoubling),
            (Allreduce, 4 << 10, 12, 2, BLOCKS, Hierarchical),
            (Allreduce, 512, 32, 8, BLOCKS, Hierarchical),
            (Allreduce, 2 << 10, 16, 4, BLOCKS, Hierarchical),
            (Allreduce, 16 << 10, 8, 2, BLOCKS, Rabenseifner),
            (Allreduce, 32 << 10, 48, 4, BLOCKS, Rabenseifner),
            (Reduce, 2 << 10, 8, 4, BLOCKS, KnomialTree),
            (Reduce, 4 << 10, 4, 2, BLOCKS, Tree),
            (Reduce, 4 << 10, 16, 4, BLOCKS, KnomialTree),
            (Reduce, 4 << 10, 48, 8, BLOCKS, Tree),
            (Reduce, 16 << 10, 12, 4, BLOCKS, Tree),
            (Reduce, 16 << 10, 32, 2, BLOCKS, BinaryBlocks),
            (Reduce, 64 << 10, 8, 2, BLOCKS, Hierarchical),
            (Reduce, 1 << 20, 24, 8, BLOCKS, Pipeline),
            // The reduce with the two-level rows re-swept (stop 60): short on
            // 4 hosts of 2, 12 and 16 hosts of 2 and 4 hosts of 8; long on
            // 4-8 hosts of 2 (128-256 KiB) and 24-32 (2-4 MiB).
            (Reduce, 64, 8, 2, BLOCKS, Hierarchical),
            (Reduce, 1 << 10, 24, 2, BLOCKS, Hierarchical),
            (Reduce, 8, 32, 2, BLOCKS, Hierarchical),
            (Reduce, 256, 32, 8, BLOCKS, Hierarchical),
            (Reduce, 256 << 10, 16, 2, BLOCKS, Hierarchical),
            (Reduce, 4 << 20, 48, 2, BLOCKS, Hierarchical),
            (Reduce, 32 << 10, 16, 2, BLOCKS, BinaryBlocks),
            (Reduce, 16 << 10, 12, 2, BLOCKS, BinaryBlocks),
            (Reduce, 16 << 10, 8, 2, BLOCKS, Tree),
            (Allreduce, 512, 128, 4, BLOCKS, Hierarchical),
            (Allreduce, 1 << 20, 200, 4, BLOCKS, Rabenseifner),
            (Reduce, 8 << 10, 96, 4, BLOCKS, BinaryBlocks),
            (Reduce, 2 << 20, 256, 4, BLOCKS, Rabenseifner),
            (Allreduce, 1 << 20, 128, 8, BLOCKS, Hierarchical),
            (Allreduce, 16 << 10, 200, 2, BLOCKS, Rabenseifner),
            (Reduce, 512, 96, 2, BLOCKS, Hierarchical),
            (Reduce, 1 << 20, 256, 8, BLOCKS, Pipeline),
            (Allreduce, 1 << 10, 128, 16, BLOCKS, Hierarchical),
            // A power of two of hosts: the two-level allreduce from 65 B
            // (recursive doubling before, by the `few` and 64-2000 rules).
            (Allreduce, 256, 64, 16, BLOCKS, Hierarchical),
            (Allreduce, 1 << 10, 64, 4, BLOCKS, Hierarchical),
            (Allreduce, 128, 128, 8, BLOCKS, Hierarchical),
            (Allreduce, 128, 32, 2, BLOCKS, Hierarchical),
            (Allreduce, 1 << 10, 16, 4, BLOCKS, Hierarchical),
            (Allreduce, 2 << 10, 16, 2, BLOCKS, Hierarchical),
            // Not a power of two of hosts at 65-256: recursive doubling on
            // hosts of 2 to 2 KiB, the two-level algorithm on hosts of 16 from 129 B.
            (Allreduce, 1 << 10, 192, 2, BLOCKS, RecursiveDoubling),
            (Allreduce, 4 << 10, 192, 2, BLOCKS, Hierarchical),
            (Allreduce, 1 << 10, 192, 4, BLOCKS, Hierarchical),
            (Allreduce, 256, 160, 16, BLOCKS, Hierarchical),
            (Allreduce, 16 << 10, 192, 16, BLOCKS, Rabenseifner),
            (Allreduce, 64 << 10, 96, 16, BLOCKS, Hierarchical),
            (Reduce, 16 << 10, 96, 16, BLOCKS, BinaryBlocks),
            (Reduce, 4 << 20, 192, 16, BLOCKS, Pipeline),
            (ReduceScatterBlock, 8 << 10, 96, 16, BLOCKS, Rabenseifner),
            (ReduceScatterBlock, 4 << 10, 96, 8, BLOCKS, Rabenseifner),
            (Reduce, 2 << 10, 192, 6, BLOCKS, Hierarchical),
            (Reduce, 2 << 10, 96, 8, BLOCKS, Hierarchical),
            (ReduceScatter, 768, 192, 8, BLOCKS, Rabenseifner),
            // At 65-256 processes, the two-level rows re-swept (stop 60): the
            // two-level reduce to 8 KiB on hosts of 3-12 not a power of two,
            // to 32 KiB on hosts of 3; halving & doubling for the
            // reduce-scatter to 32 KiB on 12 hosts of 8.
            (Reduce, 64, 96, 3, BLOCKS, Hierarchical),
            (Reduce, 512, 96, 12, BLOCKS, Hierarchical),
            (Reduce, 16 << 10, 192, 3, BLOCKS, Hierarchical),
            (Reduce, 16 << 10, 192, 6, BLOCKS, BinaryBlocks),
            (ReduceScatterBlock, 32256, 96, 8, BLOCKS, Rabenseifner),
            (Allreduce, 4 << 10, 16, 4, DEALT, Hierarchical),
            (Allreduce, 64 << 10, 24, 2, DEALT, Circulant),
            (Reduce, 256, 48, 4, DEALT, Hierarchical),
            (Reduce, 2 << 10, 8, 2, DEALT, Hierarchical),
            (Reduce, 16 << 10, 12, 2, DEALT, Circulant),
            (Reduce, 128 << 10, 32, 4, DEALT, Hierarchical),
            (Reduce, 1 << 20, 32, 2, DEALT, Circulant),
            (ReduceScatterBlock, 32 << 10, 16, 4, DEALT, Circulant),
            // Round robin, re-swept from one common start: by p.
            (Allreduce, 64, 16, 4, DEALT, RecursiveDoubling),
            (Allreduce, 128, 64, 2, DEALT, RecursiveDoubling),
            (Allreduce, 64, 24, 2, DEALT, Hierarchical),
            (Allreduce, 256, 32, 4, DEALT, Hierarchical),
            (Allreduce, 8 << 10, 32, 4, DEALT, Hierarchical),
            (Allreduce, 8 << 10, 48, 2, DEALT, Circulant),
            (Reduce, 512, 64, 2, DEALT, Hierarchical),
            (Reduce, 512, 32, 2, DEALT, Hierarchical),
            // The reduce with the re-swept two-level rows (its lanes on GbE's
            // rules): the k-nomial tree to 64 B on a power of two of
            // processes (to 256 B on 2 hosts), the two-level reduce from 32
            // KiB at 48-64 and at every size at 65-256, but the circulant at
            // 4097 B-32 KiB on a power of two.
            (Reduce, 64, 64, 4, DEALT, KnomialTree),
            (Reduce, 64, 24, 2, DEALT, Hierarchical),
            (Reduce, 256, 8, 4, DEALT, KnomialTree),
            (Reduce, 128, 16, 2, DEALT, Hierarchical),
            (Reduce, 4 << 20, 48, 2, DEALT, Hierarchical),
            (Reduce, 4 << 20, 32, 2, DEALT, Circulant),
            (Reduce, 32, 256, 2, DEALT, KnomialTree),
            (Reduce, 32, 96, 2, DEALT, Hierarchical),
            (Reduce, 32 << 10, 128, 4, DEALT, Circulant),
            (Reduce, 8 << 10, 64, 4, DEALT, Circulant),
            (Reduce, 8 << 10, 16, 4, DEALT, Hierarchical),
            (Reduce, 8 << 10, 48, 4, DEALT, Hierarchical),
            // Round robin at 65-256 processes.
            (Allreduce, 512, 96, 2, DEALT, Hierarchical),
            (Allreduce, 4 << 10, 256, 4, DEALT, Hierarchical),
            (Allreduce, 8 << 10, 128, 2, DEALT, Circulant),
            (Allreduce, 2 << 20, 256, 4, DEALT, Circulant),
            (Reduce, 8, 192, 4, DEALT, Hierarchical),
            (Reduce, 32 << 10, 96, 2, DEALT, Hierarchical),
            (Reduce, 128 << 10, 192, 2, DEALT, Hierarchical),
            (Reduce, 2 << 20, 128, 4, DEALT, Hierarchical),
            (ReduceScatterBlock, 2 << 20, 128, 2, DEALT, Circulant),
            (ReduceScatter, 1 << 10, 256, 4, DEALT, Circulant),
        ] {
            // n½ as the library measured it on SMPI's flat1g (4.3 KB), and the ends of the band.
            for nhalf in [2 << 10, 4267, (8 << 10) - 1] {
                let c = choose(&gbe(nhalf, coll, bytes, p, k, dealt), None, &t);
                assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} K {k} dealt {dealt} n½ {nhalf}: {}", c.reason);
                assert!(c.reason.to_string().contains("nhalf>=2K,nhalf<8K"), "{}", c.reason);
                assert_eq!(c.reason.to_string().contains("scattered"), dealt, "{}", c.reason);
            }
            // An unknown n½, the slow networks' (and the 1 KiB the MPI tests set), the fast ones': not these rules.
            let others = [0, 1 << 10, (2 << 10) - 1, 8 << 10].map(|nhalf| gbe(nhalf, coll, bytes, p, k, dealt));
            not_by_rule(&t, &others, "nhalf<8K");
        }
        // Beyond 256 processes, 128 on hosts of more than 16, 4 MiB at 65-256 on hosts of 4, 8 MiB at 16 processes (the
        // cluster's ring), 32 MiB, 16 MiB on hosts of 2, a lane at 8 MiB, 3 processes, round robin on 2 hosts, a
        // non-commutative op: not these rules.
        let beyond = [gbe(4267, Allreduce, 1 << 10, 257, 1, BLOCKS), gbe(4267, Allreduce, 1 << 10, 258, 2, BLOCKS),
                      gbe(4267, Allreduce, 1 << 10, 258, 2, DEALT),
                      gbe(4267, Allreduce, 64 << 10, 128, 32, BLOCKS), gbe(4267, Reduce, 4 << 20, 128, 4, BLOCKS),
                      gbe(4267, Allreduce, 8 << 20, 16, 1, BLOCKS), gbe(4267, Allreduce, 32 << 20, 40, 1, BLOCKS),
                      gbe(4267, Allreduce, 16 << 20, 16, 2, BLOCKS),
                      Shape { hosts: Hosts::Lane, ..gbe(4267, Allreduce, 8 << 20, 16, 1, BLOCKS) },
                      gbe(4267, Reduce, 64, 3, 1, BLOCKS), gbe(4267, Allreduce, 4 << 10, 4, 2, DEALT),
                      Shape { commutative: false, ..gbe(4267, Reduce, 512, 8, 2, BLOCKS) }];
        not_by_rule(&t, &beyond, "nhalf<8K");
        // The power-of-two-hosts rule: not on 48 hosts of 2 (96 processes, where
        // recursive doubling stays), not at 64 B, not below 32 processes at
        // 65-256 B, not below 16.
        for (bytes, p, k) in [(128, 96, 2), (64, 64, 4), (128, 16, 4), (1 << 10, 8, 2)] {
            let c = choose(&gbe(4267, Allreduce, bytes, p, k, BLOCKS), None, &t);
            assert!(!c.reason.to_string().contains("hostspow2"), "{bytes} B p {p} K {k}: {}", c.reason);
        }
        // Hosts of 8's reduce-scatter rule stops at 16 KiB but at 65-96 processes.
        let c = choose(&gbe(4267, ReduceScatterBlock, 32 << 10, 192, 8, BLOCKS), None, &t);
        assert!(!c.reason.to_string().contains("hostblocks>=8,hostblocks<=8"), "{}", c.reason);
        // Before the placement and n½ are known, a call that only these rules
        // tell apart (64 doubles on 200 processes: the `few` rule otherwise;
        // no shared memory, whose one-host rules would ask anyway) asks for
        // them: the check tries an n½ inside the band.
        assert!(t.depends_on_placement(&Shape { shared_memory: false, ..shape(Allreduce, 512, 200) }));
    }

    #[test]
    fn short_vectors_on_a_slow_network_at_4_to_8_processes_take_the_rules_measured_there() {
        let t = Table::default_table();
        let slow = |nhalf, coll, bytes, p, k| Shape { nhalf, ..in_blocks(coll, bytes, p, k) };
        // What each build's rules choose on the 50 Mbit/s cluster (n½ 140 B):
        // hosts of 2 (2 x 2, 3 x 2, 4 x 2) and of 3-4 (2 x 3, 2 x 4).
        let expected: &[(Collective, usize, usize, usize, Algorithm)] = if cfg!(fastred_mpi = "mpich") {
            &[(Allreduce, 8, 8, 2, Native), (Allreduce, 64, 6, 3, Tree), (Allreduce, 512, 4, 2, Tree),
              (Allreduce, 2 << 10, 6, 3, Native), (Allreduce, 8 << 10, 8, 4, Native),
              (Reduce, 8, 4, 2, Native), (Reduce, 1 << 10, 8, 4, Native), (Reduce, 8 << 10, 6, 2, Native)]
        } else if cfg!(fastred_mpi = "openmpi") {
            &[(Allreduce, 64, 8, 2, Native), (Allreduce, 256, 6, 2, Native), (Allreduce, 512, 4, 2, Tree),
              (Allreduce, 1 << 10, 8, 2, Rabenseifner), (Allreduce, 4 << 10, 6, 2, Hierarchical),
              (Allreduce, 128, 8, 4, Tree), (Allreduce, 1 << 10, 6, 3, Hierarchical), (Allreduce, 8 << 10, 6, 3, Rabenseifner),
              (Reduce, 8, 8, 2, Tree), (Reduce, 2 << 10, 6, 2, Tree), (Reduce, 16, 8, 4, Native),
              (Reduce, 1 << 10, 6, 3, KnomialTree), (Reduce, 4 << 10, 8, 4, Native)]
        } else {
            &[] // SMPI: neither MPI's rules
        };
        // From 8 KiB, rules for either MPI.
        let medium = [(Allreduce, 16 << 10, 6, 3, Hierarchical), (Reduce, 32 << 10, 8, 2, Pipeline), (Reduce, 16 << 10, 8, 4, Hierarchical)];
        for &(coll, bytes, p, k, algorithm) in expected.iter().chain(&medium) {
            let c = choose(&slow(140, coll, bytes, p, k), None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} K {k}: {}", c.reason);
            assert!(c.reason.to_string().contains("nhalf<1K"), "{}", c.reason);
        }
        // Unknown or larger n½, 9 processes, one rank per host on 16 hosts, beyond 32 KiB,
        // the allreduce of a power of two beyond 8 KiB, a non-commutative op:
        // not these rules.
        let others = [slow(0, Allreduce, 512, 8, 2), slow(1 << 10, Reduce, 512, 8, 2), slow(30 << 10, Allreduce, 2 << 10, 6, 3),
                      slow(140, Allreduce, 512, 12, 2), Shape { nhalf: 140, ..shape(Allreduce, 512, 16) },
                      slow(140, Reduce, 64 << 10, 8, 2), slow(140, Allreduce, 16 << 10, 8, 2),
                      Shape { commutative: false, ..slow(140, Reduce, 512, 8, 2) }];
        not_by_rule(&t, &others, "nhalf<");
        // Before the hosts are known the choice depends on them (and on n½).
        if !cfg!(fastred_mpi = "smpi") {
            assert!(t.depends_on_placement(&shape(Reduce, 512, 8)));
        }
    }

    #[test]
    fn one_rank_per_host_on_a_slow_network_at_3_to_8_processes_takes_the_rules_measured_there() {
        let t = Table::default_table();
        let slow = |nhalf, coll, bytes, p| Shape { nhalf, ..shape(coll, bytes, p) };
        let expected: &[(Collective, usize, usize, Algorithm)] = if cfg!(fastred_mpi = "mpich") {
            &[(Reduce, 16 << 10, 8, Pipeline), (Reduce, 512, 3, Pipeline), (Reduce, 1 << 10, 6, Pipeline)]
        } else if cfg!(fastred_mpi = "openmpi") {
            &[(Reduce, 1 << 10, 6, Pipeline), (Reduce, 2 << 10, 8, Pipeline)]
        } else {
            &[]
        };
        for &(coll, bytes, p, algorithm) in expected {
            let c = choose(&slow(140, coll, bytes, p), None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains("oneperhost") && c.reason.to_string().contains("nhalf<1K"), "{}", c.reason);
        }
        // n½ unknown, 9 hosts, the allreduce, short reduces where the runs
        // disagreed: not these rules.
        not_by_rule(&t, &[slow(0, Reduce, 1 << 10, 6), slow(140, Reduce, 1 << 10, 9), slow(140, Allreduce, 1 << 10, 5),
                          slow(140, Allreduce, 512, 8), slow(140, Reduce, 64, 5), slow(140, Reduce, 256, 4)], "nhalf<");
    }

    #[test]
    fn short_allreduces_on_2_or_4_hosts_where_the_removal_step_spans_hosts_take_the_two_level_algorithm() {
        let t = Table::default_table();
        let at = |nhalf, bytes, p, k| placed_in_blocks(nhalf, Allreduce, bytes, p, k);
        // 2r > K (r = p − 2^⌊lg p⌋): 2 x 3, 2 x 6, 2 x 7, 2 x 15, 4 x 3, 4 x 5, 4 x 7; one element on 4 x 5.
        for (bytes, p, k) in [(512, 6, 3), (8, 12, 6), (4 << 10, 14, 7), (1 << 10, 30, 15), (64, 12, 3), (8, 20, 5), (2 << 10, 28, 7)] {
            fast_network_takes(&t, |n| at(n, bytes, p, k), Hierarchical, "removalspans");
        }
        // Stop 61 (the two-level rows re-swept): to 8 KiB.
        fast_network_takes(&t, |n| at(n, 8 << 10, 14, 7), Hierarchical, "removalspans");
        // 2r <= K (2 x 5, 2 x 9, 2 x 10), 3 hosts, 8 hosts, a short last host (8 + 6), beyond 8 KiB: recursive doubling or other rules.
        let others = [at(30 << 10, 512, 10, 5), at(30 << 10, 512, 18, 9), at(30 << 10, 512, 20, 10), at(30 << 10, 512, 12, 4),
                      at(30 << 10, 512, 24, 3), at(30 << 10, 512, 14, 8), at(30 << 10, 16 << 10, 14, 7)];
        not_by_rule(&t, &others, "removalspans");
        // Before the ranks' hosts are known, one element on 20 processes depends on them (4 x 5 takes the rule, 2 x 10 does not).
        assert!(t.depends_on_placement(&Shape { nhalf: 30 << 10, ..shape(Allreduce, 8, 20) }));
    }

    #[test]
    fn hosts_in_blocks_at_32_to_63_processes_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        for (coll, bytes, p, k, algorithm, rule) in [
            (Allreduce, 512, 48, 6, Hierarchical, "removalspans"), // 8 x 6
            (Allreduce, 2 << 10, 48, 12, Hierarchical, "removalspans"), // 4 x 12
            (Allreduce, 2 << 10, 48, 16, RecursiveDoubling, "32-63"), // 3 hosts
            (Allreduce, 16 << 10, 60, 4, Hierarchical, "32-63"),
            (Reduce, 512, 60, 12, KnomialTree, "32-63"),
            (Reduce, 8 << 10, 56, 8, Hierarchical, "32-63"),
            // Stop 60, with the two-level rows re-swept.
            (Reduce, 8 << 10, 60, 12, FibonacciTree, "hostblocks>=12,hostblocks<=12"),
            (Reduce, 32 << 10, 60, 6, FibonacciTree, "hostblocks>=6,hostblocks<=6"),
            (Reduce, 2 << 10, 48, 16, KnomialTree, "hostblocks>=16"), // 3 hosts
            (Reduce, 32 << 10, 48, 16, Hierarchical, "hostblocks>=16"),
        ] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, k), algorithm, rule);
        }
        // The reduce of 16 KiB on hosts of 16, of 2 KiB on hosts of 2, 64 processes: other rules.
        let others = [at(30 << 10, Reduce, 16 << 10, 32, 16), at(30 << 10, Reduce, 2 << 10, 48, 2), at(30 << 10, Reduce, 512, 64, 8)];
        not_by_rule(&t, &others, "nhalf");
        // Stop 48's rules there: reduces of 2, 8, 32 and 512 KiB, the reduce-scatters.
        for (coll, bytes, p, k, algorithm, rule) in [
            (Reduce, 2 << 10, 48, 4, KnomialTree, "hostblocks>=4,hostblocks<=12"),
            (Reduce, 8 << 10, 48, 16, Tree, "hostblocks>=16"), // 3 hosts
            (Reduce, 32 << 10, 62, 2, FibonacciTree, "32-63"),
            (Reduce, 512 << 10, 48, 6, Hierarchical, "32-63"),
            (ReduceScatterBlock, 2 << 10, 48, 6, Hierarchical, "hostspow2"), // 8 hosts
            (ReduceScatter, 2 << 10, 60, 4, RecursiveHalving, "33-63"),
            (ReduceScatterBlock, 8 << 10, 48, 2, Rabenseifner, "33-63"),
            (ReduceScatterBlock, 512 << 10, 48, 2, Hierarchical, "32K-2M"), // from 1 MiB the ring since stop 69
        ] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, k), algorithm, rule);
        }
        // Binary blocks' rule for the reduce of 512 KiB on hosts of 2; the reduce-scatters at 32 processes and beyond 2 MiB
        // (on hosts of 8; on hosts of 2-4 the ring of stop 69).
        let others = [at(30 << 10, Reduce, 512 << 10, 48, 2), at(30 << 10, ReduceScatterBlock, 2 << 10, 32, 4),
                      at(30 << 10, ReduceScatterBlock, 4 << 20, 48, 8)];
        not_by_rule(&t, &others, "nhalf");
    }

    #[test]
    fn hosts_of_2_and_4_at_64_to_200_processes_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        for (coll, bytes, p, k, algorithm) in [
            (Allreduce, 2 << 20, 200, 4, Hierarchical), // the model's ring took 2.4-3.2x
            (Reduce, 2 << 10, 128, 2, Hierarchical),
            (Reduce, 32 << 10, 96, 4, FibonacciTree),
            (ReduceScatterBlock, 128 << 10, 200, 2, Rabenseifner),
            (ReduceScatter, 2 << 20, 200, 4, BinaryBlocks), // at 33-127 the ring since stop 69
        ] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, k), algorithm, "hostblocks<=4,nhalf>=8K");
        }
        // Hosts of 8, 256 processes: other rules.
        not_by_rule(&t, &[at(30 << 10, Reduce, 32 << 10, 128, 8), at(30 << 10, Allreduce, 2 << 20, 256, 4)], "64-200");
    }

    #[test]
    fn hosts_of_2_and_4_at_256_to_2000_processes_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        for (coll, bytes, p, k, algorithm, rule) in [
            // Ahead of the 257-2000 rule's two-level reduce (1.06-1.62x).
            (Reduce, 32 << 10, 1000, 2, FibonacciTree, "16K-32K 64-1000"),
            (Reduce, 16 << 10, 512, 4, FibonacciTree, "16K-32K 64-1000"),
            (Allreduce, 512 << 10, 1000, 4, Rabenseifner, "128K-512K 201-1000"),
            (ReduceScatterBlock, 128 << 10, 1000, 2, Rabenseifner, "0-2M 64-1000"),
            (ReduceScatter, 2 << 20, 1000, 4, Rabenseifner, "0-2M 64-1000"),
            // 1001-2000 processes to 64 KiB (stop 52: the model's two-level algorithm up to 2.64x).
            (ReduceScatterBlock, 32000, 2000, 2, Rabenseifner, "0-64K 1001-2000"),
            (ReduceScatter, 64000, 1200, 4, Rabenseifner, "0-64K 1001-2000"),
        ] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, k), algorithm, rule);
        }
        // Binary blocks stays at 64-200 for 2 MiB; the reduce of 8 KiB is the 257-2000 rule's.
        fast_network_takes(&t, |n| at(n, ReduceScatterBlock, 2 << 20, 200, 2), BinaryBlocks, "1M-2M 64-200");
        fast_network_takes(&t, |n| at(n, Reduce, 8 << 10, 1000, 2), Hierarchical, "257-2000");
        // The reduce-scatter of 1 MiB at 2000 processes: the model (its two-level algorithm within 1.07x).
        not_by_rule(&t, &[at(30 << 10, ReduceScatterBlock, 1040000, 2000, 4)], "1001-2000");
    }

    #[test]
    fn reduces_on_small_hosts_on_a_fast_network() {
        let t = Table::default_table();
        let at = |nhalf, bytes, p, k| placed_in_blocks(nhalf, Reduce, bytes, p, k);
        for (bytes, p, k, algorithm) in [
            (16 << 10, 18, 2, FibonacciTree), // 9-15 hosts of 2, 16-64 KiB
            (64 << 10, 30, 2, FibonacciTree),
            (64 << 10, 8, 2, Hierarchical), // 8 processes, 64-128 KiB
            (128 << 10, 8, 4, Hierarchical),
            (160 << 10, 10, 2, Pipeline), // 10-14 processes, 160-256 KiB
            (256 << 10, 12, 4, Pipeline),
        ] {
            fast_network_takes(&t, |n| at(n, bytes, p, k), algorithm, "nhalf>=8K");
        }
        // Hosts of 4 at 17-31, 16 processes, 6 processes, a power of two at 160 KiB: other rules.
        let others = [at(30 << 10, 32 << 10, 20, 4), at(30 << 10, 32 << 10, 16, 2), at(30 << 10, 64 << 10, 6, 2), at(30 << 10, 192 << 10, 16, 2)];
        not_by_rule(&t, &others, "nhalf");
    }

    #[test]
    fn hosts_in_blocks_at_4_to_31_processes_take_the_rules_refitted_on_the_two_level_rows_re_swept() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        for (coll, bytes, p, k, algorithm, rule) in [
            (ReduceScatterBlock, 2 << 10, 12, 2, RecursiveHalving, "hosts>=5"), // 6 x 2
            (ReduceScatter, 512, 20, 4, RecursiveHalving, "hosts>=5"), // 5 x 4
            (Reduce, 4 << 10, 8, 4, Tree, "hosts<=2"), // 2 x 4
            (Reduce, 32 << 10, 16, 8, Tree, "hosts<=2"), // 2 x 8
            (Reduce, 8 << 10, 4, 2, Tree, "hosts<=2"), // 2 x 2
            (Reduce, 16 << 10, 12, 4, Hierarchical, "blockspow2"), // 3 x 4
            (Reduce, 8 << 10, 24, 8, Hierarchical, "blockspow2"), // 3 x 8
            (Reduce, 16 << 10, 18, 6, FibonacciTree, "hostblocks,hosts<=3"), // 3 x 6: the rule from before
            (Reduce, 2 << 10, 8, 2, Hierarchical, "hosts>=4"), // 4 x 2
            (Reduce, 4 << 10, 24, 2, Hierarchical, "hosts>=6"), // 12 x 2
            (Allreduce, 8 << 10, 6, 3, Hierarchical, "0-8K 6-31"), // 2 x 3: the removalspans rule
            (Allreduce, 8 << 10, 8, 2, Hierarchical, "hosts>=4"), // 4 x 2
            (Allreduce, 8 << 10, 12, 2, RecursiveDoubling, "nonpow2,hostblocks<=2"), // 6 x 2
            (Allreduce, 32 << 10, 24, 2, BinaryBlocks, "nonpow2,hostblocks<=2"), // 12 x 2
        ] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, k), algorithm, rule);
        }
        // 3 hosts' reduce-scatter (the two-level one), 2 x 2's reduce of 2 KiB (the k-nomial tree), 2 hosts of 6
        // (the Fibonacci tree), 6 x 2's short reduce, 4 x 4's allreduce of 8 KiB, 6 x 4's of 32 KiB: other rules.
        let others = [at(30 << 10, ReduceScatterBlock, 2 << 10, 12, 4), at(30 << 10, Reduce, 2 << 10, 4, 2),
                      at(30 << 10, Reduce, 8 << 10, 12, 6), at(30 << 10, Reduce, 2 << 10, 12, 2),
                      at(30 << 10, Allreduce, 8 << 10, 16, 4), at(30 << 10, Allreduce, 32 << 10, 24, 4)];
        not_by_rules(&t, &others, &["hosts>=5", "hosts<=2,nhalf", "blockspow2", "hosts>=4", "hosts>=6", "hostblocks<=2,nhalf"]);
    }

    /// p ranks on hosts of k consecutive ranks each (the last may hold fewer), placed as the library finds
    /// them (unlike [`in_blocks`], which sets the placement class), on a network of n½ = `nhalf`.
    fn placed_in_blocks(nhalf: usize, coll: Collective, bytes: usize, p: usize, k: usize) -> Shape {
        Shape { nhalf, ..placed_shape(coll, bytes, &host_blocks(p, k)) }
    }

    /// p ranks dealt round robin over `hosts` hosts (rank r on host r mod hosts), on a network of n½ = `nhalf`.
    fn round_robin(nhalf: usize, coll: Collective, bytes: usize, p: usize, hosts: usize) -> Shape {
        Shape { nhalf, ..placed_shape(coll, bytes, &(0..p).map(|r| r % hosts).collect::<Vec<_>>()) }
    }

    #[test]
    fn ranks_dealt_round_robin_at_4_to_31_processes_on_a_fast_network() {
        let t = Table::default_table();
        let at = round_robin;
        for (coll, bytes, p, hosts, algorithm, rule) in [
            (Allreduce, 2 << 10, 8, 4, RecursiveDoubling, "scattered,nhalf>=8K"),
            (Allreduce, 8 << 10, 12, 6, Hierarchical, "scattered,nonpow2,nhalf>=8K"),
            (Reduce, 512, 12, 3, KnomialTree, "scattered,nhalf>=8K"),
            (Reduce, 512, 24, 3, KnomialTree, "scattered,nhalf>=8K"),
            (Reduce, 128 << 10, 16, 8, Hierarchical, "scattered,nhalf>=8K"),
            (Reduce, 64 << 10, 24, 12, Hierarchical, "scattered,nhalf>=8K"),
            (ReduceScatter, 32 << 10, 4, 2, Hierarchical, "scattered,hostspow2,nhalf>=8K"),
            (ReduceScatterBlock, 1 << 20, 12, 6, Hierarchical, "scattered,nhalf>=8K"),
            // Stop 61 (the two-level rows re-swept): the short allreduce two-level at p not a power of
            // two (recursive doubling was 1.37-1.64x on 5-7 ranks over 2-3 hosts), the short reduce
            // two-level on 5 hosts or more (the k-nomial tree up to 1.68x at 9 ranks on 5 hosts), the
            // reduce-scatters by the circulant on 5 hosts or more but a power of two.
            (Allreduce, 8 << 10, 6, 3, Hierarchical, "scattered,nonpow2,nhalf>=8K"),
            (Allreduce, 512, 7, 2, Hierarchical, "scattered,nonpow2,nhalf>=8K"),
            (Allreduce, 2 << 10, 24, 6, Hierarchical, "scattered,nonpow2,nhalf>=8K"),
            (Reduce, 512, 9, 5, Hierarchical, "hosts>=5"),
            (Reduce, 2 << 10, 24, 12, Hierarchical, "hosts>=5"),
            (ReduceScatterBlock, 96, 12, 6, Circulant, "hosts>=5"),
            (ReduceScatter, 8 << 10, 24, 12, Circulant, "hosts>=5"),
            (ReduceScatterBlock, 2 << 10, 16, 8, Hierarchical, "hostspow2"),
            (Reduce, 8 << 10, 8, 2, Tree, "hosts<=2,nhalf>=8K"), // 2 hosts: the two-level reduce up to 1.46x
        ] {
            assert_eq!(at(0, coll, bytes, p, hosts).hosts, Hosts::Shared, "p {p} on {hosts} hosts, round robin");
            fast_network_takes(&t, |n| at(n, coll, bytes, p, hosts), algorithm, rule);
        }
        // The short reduce on 4 hosts, the allreduce from 64 KiB and on a power of two, 64 processes: other rules.
        let others = [at(30 << 10, Reduce, 2 << 10, 16, 4), at(30 << 10, Allreduce, 128 << 10, 12, 6),
                      at(30 << 10, Allreduce, 2 << 10, 16, 4), at(30 << 10, Reduce, 512, 64, 8)];
        not_by_rules(&t, &others, &["nonpow2,nhalf", "hosts>=5", "hostspow2,nhalf"]);
    }

    #[test]
    fn hosts_of_unequal_sizes_dealt_round_robin_take_the_ring_for_long_reduce_scatters_on_a_fast_network() {
        let t = Table::default_table();
        let at = round_robin;
        // 9 ranks on 5 hosts (2, 2, 2, 2, 1), 7 on 3 (3, 2, 2), 14 on 4 (4, 4, 3, 3): unequal hosts.
        for (coll, bytes, p, hosts) in [(ReduceScatterBlock, 512 << 10, 9, 5), (ReduceScatter, 2 << 20, 7, 3), (ReduceScatterBlock, 2 << 20, 14, 4)] {
            let s = at(30 << 10, coll, bytes, p, hosts);
            assert!(Condition::UnequalHosts.holds(&s), "{s:?}");
            fast_network_takes(&t, |n| at(n, coll, bytes, p, hosts), Ring, "unequalhosts");
        }
        // Equal hosts (8 on 4), one rank per host, hosts in blocks of equal size: not unequal.
        assert!(!Condition::UnequalHosts.holds(&at(30 << 10, Allreduce, 8, 8, 4)));
        assert!(!Condition::UnequalHosts.holds(&Shape { nhalf: 30 << 10, ..shape(Allreduce, 8, 8) }));
        assert!(!Condition::UnequalHosts.holds(&placed_in_blocks(30 << 10, Allreduce, 8, 8, 2)));
        assert!(Condition::UnequalHosts.holds(&placed_in_blocks(30 << 10, Allreduce, 8, 7, 2)));
        // The allreduce of 512 KiB, the reduce of 128 KiB, equal hosts, 32 processes: other rules.
        not_by_rule(&t, &[at(30 << 10, Allreduce, 512 << 10, 9, 5), at(30 << 10, Reduce, 128 << 10, 9, 5),
                          at(30 << 10, ReduceScatterBlock, 2 << 20, 8, 4), at(30 << 10, ReduceScatterBlock, 2 << 20, 33, 5)], "unequalhosts");
    }

    /// Stop 62: the two-level algorithm runs a lane per rank of the largest
    /// host for long vectors. Where a host holds a lone rank (9 on 5 hosts:
    /// 2, 2, 2, 2, 1) the ring keeps the allreduce from 1 MiB and the
    /// pipeline takes the reduce from 257 KiB; on other unequal hosts (7 on 3:
    /// 3, 2, 2; 14 on 4: 4, 4, 3, 3) the allreduce is no longer the ring's
    /// and the reduce from 513 KiB is the two-level one.
    #[test]
    fn a_lone_rank_on_a_host_keeps_the_ring_allreduce_and_takes_the_pipeline_reduce_on_a_fast_network() {
        let t = Table::default_table();
        let at = round_robin;
        assert!(Condition::LoneRank.holds(&at(0, Allreduce, 8, 9, 5)));
        assert!(!Condition::LoneRank.holds(&at(0, Allreduce, 8, 7, 3)), "hosts of 3 and 2");
        assert!(!Condition::LoneRank.holds(&at(0, Allreduce, 8, 5, 5)), "one rank per host");
        assert!(!Condition::LoneRank.holds(&at(0, Allreduce, 8, 1, 1)), "one host");
        assert!(Condition::LoneRank.holds(&placed_in_blocks(0, Allreduce, 8, 7, 2)), "hosts of 2, the last of 1");
        fast_network_takes_each(&t, at, &[
            (Allreduce, 2 << 20, 9, 5, Ring, "lonerank"),
            (Reduce, 512 << 10, 9, 5, Pipeline, "lonerank"),
            (Reduce, 2 << 20, 15, 8, Pipeline, "lonerank"),
            (Reduce, 1 << 20, 7, 3, Hierarchical, "unequalhosts"),
            (Reduce, 2 << 20, 14, 4, Hierarchical, "unequalhosts"),
        ]);
        // From 17 processes the ring on any unequal hosts (17 on 5: 4, 4, 3, 3, 3).
        fast_network_takes(&t, |n| at(n, Allreduce, 2 << 20, 17, 5), Ring, "17-31 scattered,unequalhosts");
        // Hosts of 3 and 2, 4 and 3 at 4-16: not the ring.
        for (p, hosts) in [(7, 3), (14, 4)] {
            assert_ne!(choose(&at(30 << 10, Allreduce, 2 << 20, p, hosts), None, &t).algorithm, Ring, "{p} on {hosts}");
        }
        // The reduce of 128 KiB with a lone rank, the reduce of 512 KiB on hosts of 3 and 2: earlier rules.
        not_by_rules(&t, &[at(30 << 10, Reduce, 128 << 10, 9, 5), at(30 << 10, Reduce, 512 << 10, 7, 3)], &["lonerank", "unequalhosts"]);
    }

    #[test]
    fn ranks_dealt_round_robin_at_64_to_200_processes_take_the_two_level_algorithm_for_short_vectors_on_a_fast_network() {
        let t = Table::default_table();
        let at = round_robin;
        // Stop 61 (the two-level rows re-swept): p not a power of two to 2 KiB, the reduce of 1-2 KiB
        // at a power of two, the reduce-scatters to 8 KiB; 96 and 200 ranks over hosts of 2 and 4.
        for (coll, bytes, p, hosts) in [(Allreduce, 512, 96, 48), (Allreduce, 8, 200, 50), (Reduce, 2 << 10, 96, 24),
                                        (Reduce, 2 << 10, 128, 64), (ReduceScatterBlock, 8 << 10, 200, 100),
                                        (ReduceScatter, 768, 64, 16)] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, hosts), Hierarchical, "64-200 scattered");
        }
        // A power of two below 1 KiB (recursive doubling, the k-nomial tree), beyond 8 KiB, 256 ranks: other rules.
        let others = [at(30 << 10, Allreduce, 512, 128, 32), at(30 << 10, Reduce, 512, 64, 32),
                      at(30 << 10, ReduceScatterBlock, 32 << 10, 96, 48), at(30 << 10, Reduce, 512, 256, 64)];
        not_by_rule(&t, &others, "64-200 scattered");
    }

    #[test]
    fn ranks_dealt_round_robin_over_hosts_of_a_size_not_a_power_of_two_run_the_two_level_algorithm() {
        let t = Table::default_table();
        // p ranks dealt round robin over hosts of k: the two-level algorithm
        // from n½ 2 KiB (GbE and the fast networks) but for the short reduce,
        // by the k-nomial tree to 64 B on GbE and to 512 B on the fast networks.
        const GBE: usize = 4267;
        const FAST: usize = 30 << 10;
        for (nhalf, coll, bytes, p, k, algorithm) in [
            (GBE, Allreduce, 8 << 10, 12, 3, Hierarchical),
            (GBE, Allreduce, 2 << 20, 160, 5, Hierarchical),
            (GBE, Reduce, 64, 48, 6, KnomialTree),
            (GBE, Reduce, 128, 96, 3, Hierarchical),
            (GBE, Reduce, 512, 24, 3, Hierarchical),
            (GBE, Reduce, 512 << 10, 40, 5, Hierarchical),
            (GBE, ReduceScatterBlock, 32 << 10, 96, 6, Hierarchical),
            (GBE, ReduceScatter, 1 << 10, 192, 3, Hierarchical),
            (FAST, Allreduce, 8, 96, 3, Hierarchical),
            (FAST, Allreduce, 512, 24, 6, Hierarchical),
            (FAST, Reduce, 512, 192, 3, KnomialTree),
            (FAST, Reduce, 2 << 10, 48, 6, Hierarchical),
            (FAST, ReduceScatterBlock, 256 << 10, 48, 3, Hierarchical),
            (2 << 10, Allreduce, 4 << 20, 252, 7, Hierarchical),
        ] {
            let at = round_robin(nhalf, coll, bytes, p, p / k);
            let c = choose(&at, None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} K {k} n½ {nhalf}: {}", c.reason);
            assert!(c.reason.to_string().contains("scatterednonpow2"), "{}", c.reason);
            // An unknown n½ and the slow networks': not these rules.
            not_by_rule(&t, &[0, 1 << 10, (2 << 10) - 1].map(|n| round_robin(n, coll, bytes, p, p / k)), "scatterednonpow2");
        }
        // Not on hosts of 2, 4 or 8 dealt round robin, nor on hosts of 3 in
        // blocks, nor beyond 256 processes, nor below 8.
        let others = [round_robin(GBE, Allreduce, 8 << 10, 24, 12), round_robin(GBE, Allreduce, 8 << 10, 64, 16),
                      round_robin(FAST, Reduce, 512 << 10, 64, 8), Shape { nhalf: GBE, ..in_blocks(Allreduce, 8 << 10, 24, 3) },
                      round_robin(GBE, Allreduce, 8 << 10, 258, 86), round_robin(FAST, Allreduce, 8 << 10, 6, 2)];
        not_by_rule(&t, &others, "scatterednonpow2");
    }

    #[test]
    fn ranks_dealt_round_robin_at_32_to_63_processes_on_a_fast_network() {
        let t = Table::default_table();
        for (coll, bytes, p, hosts, algorithm) in [
            (Allreduce, 512, 32, 8, RecursiveDoubling),
            (Allreduce, 128, 48, 12, Hierarchical),
            (Allreduce, 512 << 10, 60, 15, Hierarchical),
            (Reduce, 512, 62, 31, KnomialTree),
            (Reduce, 2 << 20, 56, 7, Hierarchical),
            (ReduceScatterBlock, 2 << 20, 36, 9, Hierarchical),
            (ReduceScatter, 1 << 20, 48, 12, Hierarchical),
            (ReduceScatterBlock, 2 << 10, 48, 24, Hierarchical), // stop 60: 16 hosts or more
            (ReduceScatter, 8 << 10, 62, 31, Hierarchical),
            // Stop 61: to 32 KiB the circulant on 5-15 hosts not a power of two (also on hosts of 6 and 12,
            // ahead of `scatterednonpow2`), the two-level reduce-scatter on a power of two of hosts.
            (ReduceScatterBlock, 2 << 10, 48, 12, Circulant),
            (ReduceScatterBlock, 384, 48, 6, Circulant),
            (ReduceScatter, 8 << 10, 36, 6, Circulant),
            (ReduceScatterBlock, 32 << 10, 48, 8, Hierarchical),
        ] {
            fast_network_takes(&t, |n| round_robin(n, coll, bytes, p, hosts), algorithm, "scattered,");
        }
        // The allreduce of 512 B-4 KiB at 33-63 processes, the reduce-scatter of 64 KiB-512 KiB, 64 processes: other rules.
        let others = [round_robin(30 << 10, Allreduce, 2 << 10, 48, 6), round_robin(30 << 10, ReduceScatterBlock, 512 << 10, 48, 6),
                      round_robin(30 << 10, ReduceScatterBlock, 64 << 10, 48, 12), round_robin(30 << 10, Allreduce, 128, 64, 8)];
        not_by_rule(&t, &others, "nhalf");
    }

    #[test]
    fn ranks_dealt_round_robin_over_16_or_more_hosts_at_64_to_2000_processes_on_a_fast_network() {
        let t = Table::default_table();
        for (coll, bytes, p, hosts) in [
            (Allreduce, 2 << 20, 200, 50), // the model's circulant took up to 7.65x
            (Reduce, 128 << 10, 64, 16), // ahead of the circulant rule for 8-15 hosts
            (ReduceScatterBlock, 512 << 10, 128, 64),
            (ReduceScatter, 2 << 20, 96, 24),
            (Allreduce, 2 << 20, 256, 128), // halving & doubling took up to 3.19x (stop 49)
            (Reduce, 512 << 10, 256, 64),
            (ReduceScatterBlock, 2 << 20, 512, 128),
            (Allreduce, 128 << 10, 1000, 500), // the circulant took up to 14.77x (stop 50)
            (Reduce, 2 << 20, 1000, 250),
            (ReduceScatterBlock, 520000, 1000, 250),
            (ReduceScatter, 2096000, 1000, 500),
            (Allreduce, 16, 1000, 250), // recursive doubling (`few`) took up to 1.42x (stop 51)
            (Allreduce, 64 << 10, 1000, 500), // the model's circulant up to 4.29x
            (Reduce, 16, 1000, 500), // the k-nomial tree (`few`) up to 1.16x
            (Reduce, 64 << 10, 1000, 250), // the model's circulant up to 3.85x
            (ReduceScatterBlock, 258048, 768, 192), // the model's circulant up to 7.33x
        ] {
            fast_network_takes(&t, |n| round_robin(n, coll, bytes, p, hosts), Hierarchical, "hosts>=16");
        }
        // The reduce-scatters of 32-128 KiB at 513-1000 processes on 129 hosts or
        // more: halving & doubling (the model's two-level algorithm took up to
        // 4.63x on the dragonfly).
        for (coll, bytes, p, hosts) in [(ReduceScatterBlock, 128000, 1000, 250), (ReduceScatter, 64000, 1000, 500), (ReduceScatterBlock, 61440, 768, 384)] {
            fast_network_takes(&t, |n| round_robin(n, coll, bytes, p, hosts), Rabenseifner, "hosts>=129");
        }
        // Below 32 KiB, and on 125 hosts of 8: the model.
        not_by_rule(&t, &[round_robin(30 << 10, ReduceScatterBlock, 16000, 1000, 250), round_robin(30 << 10, ReduceScatterBlock, 64000, 1000, 125)], "hosts>=");
        // 8 hosts of 8: the circulant rule measured there.
        assert_eq!(choose(&round_robin(30 << 10, Reduce, 128 << 10, 64, 8), None, &t).algorithm, Circulant);
        // 1001-2000 processes on hosts of at most 4 (stop 52): the two-level
        // algorithm (the model's circulant took up to 24x on the dragonfly),
        // halving & doubling for the reduce-scatters of 16000 B-128 KiB.
        for (coll, bytes, p, hosts) in [
            (Allreduce, 16, 2000, 500),
            (Allreduce, 1 << 20, 2000, 1000),
            (Reduce, 32 << 10, 1500, 375),
            (ReduceScatterBlock, 1040000, 2000, 500),
            (ReduceScatterBlock, 2096000, 2000, 1000),
            (ReduceScatter, 256000, 1001, 251),
        ] {
            fast_network_takes(&t, |n| round_robin(n, coll, bytes, p, hosts), Hierarchical, "hosts>=251");
        }
        for (coll, bytes, p, hosts) in [(ReduceScatterBlock, 16000, 2000, 1000), (ReduceScatter, 128000, 2000, 500)] {
            fast_network_takes(&t, |n| round_robin(n, coll, bytes, p, hosts), Rabenseifner, "hosts>=251");
        }
        // 250 hosts of 8 at 2000 processes, beyond 2000 processes, beyond 2 MiB: unmeasured.
        not_by_rule(&t, &[round_robin(30 << 10, Allreduce, 64 << 10, 2000, 250), round_robin(30 << 10, Allreduce, 64 << 10, 2048, 512),
                          round_robin(30 << 10, Reduce, 4 << 20, 2000, 500)], "hosts>=");
    }

    #[test]
    fn one_rank_per_host_at_17_to_100_processes_on_a_fast_network() {
        let t = Table::default_table();
        let fast = |nhalf, coll, bytes, p| Shape { nhalf, ..shape(coll, bytes, p) };
        for (coll, bytes, p, algorithm) in [
            (Reduce, 16 << 10, 17, FibonacciTree),
            (Reduce, 512 << 10, 31, FibonacciTree),
            (Allreduce, 2 << 20, 24, Ring), // ahead of the binary-blocks rule for 24
            (Allreduce, 64 << 20, 31, Ring),
            (ReduceScatterBlock, 8 << 10, 20, RecursiveHalving),
            (ReduceScatter, 64, 28, RecursiveHalving),
            // Stop 48: 32-63 processes.
            (Reduce, 8 << 10, 48, FibonacciTree),
            (Reduce, 32 << 10, 32, FibonacciTree),
            (Reduce, 512 << 10, 62, FibonacciTree),
            (ReduceScatterBlock, 8000, 40, RecursiveHalving),
            (ReduceScatter, 130816, 56, BinaryBlocks),
            (ReduceScatterBlock, 2 << 20, 62, BinaryBlocks),
            (ReduceScatterBlock, 4194048, 48, Ring),
            (Allreduce, 16 << 20, 40, Ring),
            (Reduce, 4 << 20, 56, Pipeline),
            (ReduceScatter, 2096640, 72, BinaryBlocks),
        ] {
            fast_network_takes(&t, |n| fast(n, coll, bytes, p), algorithm, "oneperhost,nhalf>=8K");
            // A lane of the two-level algorithm across 17-63 hosts does not measure n½.
            not_by_rule(&t, &[Shape { hosts: Hosts::Lane, ..fast(0, coll, bytes, p) }], "nhalf");
        }
        // The reduce of 64-128 KiB at 17-31 (binary blocks stays; at 33-256 the Fibonacci tree since stop 69),
        // the allreduce of 1 MiB, the reduce-scatter of 32 KiB, 64 processes: other rules.
        let others = [fast(30 << 10, Reduce, 128 << 10, 24), fast(30 << 10, Allreduce, 1 << 20, 20),
                      fast(30 << 10, ReduceScatterBlock, 32 << 10, 48), fast(30 << 10, Reduce, 32 << 10, 64)];
        not_by_rule(&t, &others, "nhalf");
    }

    /// Stop 69: one rank per host at 33-255 processes takes the ring that
    /// posts its receives ahead for long vectors (to 32 MiB), the Fibonacci
    /// tree for reduces of 64-512 KiB and binary blocks for reduce-scatters
    /// of 64 KiB-1.5 MiB; the lanes of the two-level algorithm (whose ring
    /// keeps one exchange a step) keep the rules they had.
    #[test]
    fn one_rank_per_host_at_33_to_255_processes_takes_the_rules_of_stop_69_but_not_in_lanes() {
        let t = Table::default_table();
        let fast = |nhalf, coll, bytes, p| Shape { nhalf, ..shape(coll, bytes, p) };
        let lane = |coll, bytes, p| Shape { hosts: Hosts::Lane, ..fast(30 << 10, coll, bytes, p) };
        // Long vectors: the ring; 64 KiB-1.5 MiB: the reduce's Fibonacci tree, the reduce-scatters' binary
        // blocks (not the model's circulant).
        for (coll, bytes, p, algorithm, rule) in [
            (Allreduce, 32 << 20, 40, Ring, "16777217-32M 33-63 oneperhost,notlane"),
            (ReduceScatterBlock, 33_554_400, 62, Ring, "16777217-32M 33-63 oneperhost,notlane"),
            (Allreduce, 3 << 20, 72, Ring, "3M-32M 64-100 nonpow2,oneperhost,notlane"),
            (ReduceScatterBlock, 4_193_856, 72, Ring, "3145729-32M 64-100 nonpow2,oneperhost,notlane"),
            (ReduceScatter, 32 << 20, 100, Ring, "3145729-32M 64-100 nonpow2,oneperhost,notlane"),
            (Allreduce, 16 << 20, 64, Ring, "12M-32M 64-128 pow2,oneperhost,notlane"),
            (ReduceScatterBlock, 32 << 20, 128, Ring, "12M-32M 64-128 pow2,oneperhost,notlane"),
            (Allreduce, 32 << 20, 200, Ring, "24M-32M 101-255 nonpow2,oneperhost,notlane"),
            (ReduceScatterBlock, 16 << 20, 160, Ring, "12M-32M 101-255 nonpow2,oneperhost,notlane"),
            (Reduce, 64 << 10, 40, FibonacciTree, "64K-512K 33-256 oneperhost,notlane"),
            (Reduce, 512 << 10, 256, FibonacciTree, "64K-512K 33-256 oneperhost,notlane"),
            (ReduceScatterBlock, 65088, 72, BinaryBlocks, "62K-1536K 64-99 nonpow2,oneperhost,notlane"),
            (ReduceScatter, 1 << 20, 99, BinaryBlocks, "62K-1536K 64-99 nonpow2,oneperhost,notlane"),
            (ReduceScatterBlock, 64000, 200, BinaryBlocks, "62K-250K 100-255 nonpow2,oneperhost,notlane"),
        ] {
            fast_network_takes(&t, |n| fast(n, coll, bytes, p), algorithm, rule);
            not_by_rule(&t, &[lane(coll, bytes, p)], "notlane");
        }
        // Where the fat tree's choices stay: 2 MiB at 72, 8 MiB at 64, 16 MiB at 160 and 256, beyond 32 MiB.
        let others = [fast(30 << 10, Allreduce, 2 << 20, 72), fast(30 << 10, Allreduce, 8 << 20, 64), fast(30 << 10, Allreduce, 16 << 20, 160),
                      fast(30 << 10, Allreduce, 16 << 20, 256), fast(30 << 10, ReduceScatterBlock, 32 << 20, 256), fast(30 << 10, Allreduce, 64 << 20, 72)];
        not_by_rule(&t, &others, "notlane");
        // The lanes' own rule for 6-16 MiB at 64-100 still holds there.
        let c = choose(&lane(Allreduce, 8 << 20, 72), None, &t);
        assert!(c.algorithm == Ring && c.reason.to_string().contains("6M-16M 64-100 nonpow2,oneperhost,nhalf>=8K"), "{}", c.reason);
    }

    #[test]
    fn long_vectors_on_2_or_4_hosts_take_halving_and_doubling_on_a_fast_network() {
        let t = Table::default_table();
        let at = |nhalf, coll, bytes, p, k| Shape { nhalf, ..in_blocks(coll, bytes, p, k) };
        for (coll, bytes, p, k) in [
            (Allreduce, 256 << 10, 8, 2),
            (Allreduce, 1 << 20, 16, 4),
            (Allreduce, 512 << 10, 64, 16),
            (Allreduce, 256 << 10, 16, 8), // 2 hosts
            (ReduceScatterBlock, 256 << 10, 16, 2), // 8 hosts
            (ReduceScatterBlock, 1 << 20, 16, 4),
            (ReduceScatter, 512 << 10, 8, 2),
        ] {
            // On the cluster's network and unknown: the cluster's rules (the two-level algorithm, its ring lanes on 4 hosts) and the model.
            fast_network_takes(&t, |n| at(n, coll, bytes, p, k), Rabenseifner, "nhalf>=8K");
        }
        // 8 hosts (the allreduce's lanes run halving & doubling), 2 MiB, 128 KiB, p not a power of two: other rules.
        let beyond = [at(30 << 10, Allreduce, 256 << 10, 16, 2), at(30 << 10, Allreduce, 2 << 20, 8, 2),
                      at(30 << 10, ReduceScatterBlock, 128 << 10, 16, 2), at(30 << 10, Allreduce, 256 << 10, 12, 4)];
        not_by_rule(&t, &beyond, "nhalf");
    }

    #[test]
    fn one_rank_per_host_at_3_to_16_processes_on_a_fast_network_takes_the_simulated_rules() {
        let t = Table::default_table();
        let fast = |coll, bytes, p| Shape { nhalf: 30 << 10, ..shape(coll, bytes, p) };
        for (coll, bytes, p, algorithm) in [
            (Allreduce, 2 << 10, 8, RecursiveDoubling),
            (Allreduce, 16 << 10, 6, RecursiveDoubling),
            (Allreduce, 512 << 10, 16, Rabenseifner),
            (Allreduce, 512 << 10, 12, Circulant),
            (Reduce, 8, 5, KnomialTree), // ahead of the `few` rules
            (Reduce, 2 << 10, 12, KnomialTree),
            (Reduce, 32 << 10, 6, FibonacciTree),
            (Reduce, 128 << 10, 16, BinaryBlocks),
            (ReduceScatterBlock, 4 << 10, 8, Rabenseifner),
            (ReduceScatterBlock, 384 << 10, 12, Circulant),
            (ReduceScatter, 64, 16, Rabenseifner),
            (ReduceScatter, 512 << 10, 6, Circulant),
        ] {
            // On the cluster's network, and n½ unknown: the cluster's rules and §4.
            fast_network_takes(&t, |nhalf| Shape { nhalf, ..shape(coll, bytes, p) }, algorithm, "oneperhost,nhalf>=8K");
            // A lane of the two-level algorithm does not measure n½: its own rules.
            not_by_rule(&t, &[Shape { hosts: Hosts::Lane, ..shape(coll, bytes, p) }], "nhalf");
        }
        // Beyond 16 processes, the chain from 64 KiB at 3-6, the ring from 1 MiB at p not a power of two: other rules.
        let beyond = [fast(Reduce, 2 << 10, 17), fast(Reduce, 128 << 10, 6), fast(Allreduce, 1 << 20, 12), fast(ReduceScatterBlock, 4 << 10, 12)];
        not_by_rule(&t, &beyond, "nhalf");
    }

    #[test]
    fn nhalf_from_n_holds_for_a_measured_network_of_at_least_n_bytes() {
        let t = Table::parse("* * * nhalf>=8K ring\n* * * - tree\n", "t").unwrap();
        assert!(t.asks_nhalf());
        for (nhalf, algorithm) in [(0, Tree), (1, Tree), (8191, Tree), (8192, Ring), (usize::MAX, Ring)] {
            assert_eq!(choose(&Shape { nhalf, ..in_blocks(Allreduce, 1 << 10, 4, 2) }, None, &t).algorithm, algorithm, "n½ {nhalf}");
        }
        // The choice depends on n½ alone: the placement (with n½) is computed.
        assert!(t.depends_on_placement(&shape(Allreduce, 1 << 10, 4)));
        assert!(!Table::parse("* * * hostblocks ring\n", "t").unwrap().asks_nhalf());
        for bad in ["* * * nhalf>= ring", "* * * nhalf>=x ring", "* * * nhalf>8K ring", "* * * nhalf>=8X ring"] {
            assert!(Table::parse(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn bisection_conditions_hold_for_a_measured_cross_section_in_their_band() {
        let t = Table::parse("* * * bisection>=79 rabenseifner\n* * * bisection<79 ring\n* * * - tree\n", "t").unwrap();
        assert!(t.asks_bisection(8) && !t.asks_nhalf());
        let narrow = Table::parse("* * 33-256 bisection>=80 rabenseifner\n", "t").unwrap();
        assert!(narrow.asks_bisection(33) && narrow.asks_bisection(256) && !narrow.asks_bisection(32) && !narrow.asks_bisection(1024));
        for (bisection, algorithm) in [(0, Tree), (1, Ring), (78, Ring), (79, Rabenseifner), (100, Rabenseifner)] {
            assert_eq!(choose(&Shape { bisection, ..in_blocks(Allreduce, 1 << 20, 8, 2) }, None, &t).algorithm, algorithm, "cross-section {bisection}%");
        }
        // The choice depends on the cross-section alone: the placement (with it) is computed.
        assert!(t.depends_on_placement(&shape(Allreduce, 1 << 20, 8)));
        assert!(!Table::parse("* * * nhalf>=8K ring\n", "t").unwrap().asks_bisection(8));
        for bad in ["* * * bisection>= ring", "* * * bisection>=x ring", "* * * bisection>=80% ring", "* * * bisection>75 ring", "* * * bisection>=8K ring"] {
            assert!(Table::parse(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn one_rank_per_host_takes_its_side_of_the_cross_section() {
        // (collective, bytes, p, algorithm on the thin side (25%), on the full side (95%)),
        // and what n½ alone (the cross-section unknown) chooses.
        let t = Table::default_table();
        let at = |bisection, coll, bytes, p| Shape { nhalf: 30 << 10, bisection, ..shape(coll, bytes, p) };
        for (coll, bytes, p, thin, full, unknown) in [
            (Allreduce, 2 << 20, 62, Ring, BinaryBlocks, BinaryBlocks),
            (ReduceScatterBlock, 2_096_960, 40, Ring, BinaryBlocks, BinaryBlocks),
            (Allreduce, 4 << 20, 48, Ring, BinaryBlocks, Ring),
            (Allreduce, 4 << 20, 100, Ring, BinaryBlocks, Ring),
            (ReduceScatterBlock, 8_388_000, 100, Ring, BinaryBlocks, Ring),
            (Allreduce, 8 << 20, 64, Ring, Rabenseifner, Rabenseifner),
            (Allreduce, 16 << 20, 128, Ring, Rabenseifner, Ring),
            (ReduceScatterBlock, 16 << 20, 256, Ring, Rabenseifner, Rabenseifner),
            (Allreduce, 8 << 20, 160, Ring, BinaryBlocks, BinaryBlocks),
            (ReduceScatterBlock, 16_776_000, 200, Ring, BinaryBlocks, Ring),
            (Allreduce, 32 << 20, 200, Ring, BinaryBlocks, Ring),
            (Reduce, 1 << 20, 72, FibonacciTree, FibonacciTree, TwoTree),
            (Reduce, 1 << 20, 160, TwoTree, FibonacciTree, TwoTree),
            (Reduce, 512 << 10, 200, TwoTree, FibonacciTree, FibonacciTree),
            (Reduce, 1 << 20, 256, TwoTree, BinaryBlocks, TwoTree),
            (ReduceScatterBlock, 130_944, 62, Circulant, BinaryBlocks, BinaryBlocks),
            (ReduceScatterBlock, 1_048_544, 62, Ring, BinaryBlocks, BinaryBlocks),
            (ReduceScatterBlock, 4_194_048, 48, Ring, BinaryBlocks, Ring),
            (Allreduce, 32 << 20, 1000, Ring, BinaryBlocks, BinaryBlocks),
            (ReduceScatterBlock, 33_552_000, 1000, Ring, BinaryBlocks, BinaryBlocks),
            (Allreduce, 32 << 20, 1024, Ring, Rabenseifner, Rabenseifner),
            (ReduceScatterBlock, 64 << 20, 512, Ring, Rabenseifner, Rabenseifner),
            (Allreduce, 16 << 20, 1024, Rabenseifner, Rabenseifner, Rabenseifner),
            (Allreduce, 64 << 20, 2000, Ring, BinaryBlocks, BinaryBlocks),
            (ReduceScatterBlock, 41_000_000, 1001, Ring, BinaryBlocks, BinaryBlocks),
            (Allreduce, 32 << 20, 2000, BinaryBlocks, BinaryBlocks, BinaryBlocks),
        ] {
            for (bisection, algorithm) in [(25, thin), (95, full), (0, unknown)] {
                let c = choose(&at(bisection, coll, bytes, p), None, &t);
                assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} cross-section {bisection}%: {}", c.reason);
                // A side that differs from the unknown network's choice, by a bisection rule; unknown, never.
                if bisection == 0 || algorithm != unknown {
                    assert_eq!(c.reason.to_string().contains("bisection"), bisection > 0, "{}", c.reason);
                }
            }
        }
        // No bisection rule below 33 processes, on lanes, or with ranks sharing hosts.
        let others = [at(25, Allreduce, 4 << 20, 24), Shape { hosts: Hosts::Lane, ..at(25, Allreduce, 4 << 20, 100) }, Shape { bisection: 25, ..placed_in_blocks(30 << 10, Allreduce, 8 << 20, 128, 2) }];
        not_by_rule(&t, &others, "bisection");
    }

    #[test]
    fn hosts_of_32_and_64_ranks_take_their_rules() {
        let t = Table::default_table();
        for (coll, bytes, p, k, algorithm) in [
            (Allreduce, 2 << 10, 128, 32, Hierarchical),
            (Allreduce, 32 << 10, 512, 64, Hierarchical),
            (Allreduce, 32 << 10, 512, 16, Rabenseifner), // hosts of 16: 32 hosts
            (Reduce, 2 << 10, 1024, 64, Tree), // ahead of the `few` rules
            (Reduce, 4 << 10, 1024, 64, Tree),
            (Reduce, 2 << 10, 512, 16, Hierarchical),
            (Reduce, 2 << 10, 128, 16, KnomialTree),
            (Reduce, 32 << 10, 256, 32, Hierarchical),
            (Reduce, 32 << 10, 96, 24, BinaryBlocks), // hosts of 24
            (Reduce, 64 << 10, 256, 64, BinaryBlocks),
        ] {
            let c = choose(&in_blocks(coll, bytes, p, k), None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p} K {k}: {}", c.reason);
        }
    }

    #[test]
    fn ranks_dealt_round_robin_take_the_scattered_rules() {
        let t = Table::default_table();
        let cyclic = |coll, bytes, p, k| Shape { hosts: Hosts::Shared, ..in_blocks(coll, bytes, p, k) };
        assert_eq!(Hosts::of(&[0, 1, 0, 1, 0, 1]), Hosts::Shared, "round robin is scattered");
        for (coll, bytes, p, algorithm) in [
            (Allreduce, 2 << 10, 240, Hierarchical),
            (Allreduce, 4 << 10, 1000, Hierarchical), // ahead of the `few` rule
            (Allreduce, 2 << 10, 128, Hierarchical),
            (Allreduce, 32 << 10, 64, Hierarchical),
            (Allreduce, 1 << 10, 128, RecursiveDoubling),
            (Reduce, 1 << 10, 480, Hierarchical), // ahead of the `few` rule
            (Reduce, 6 << 10, 1000, Hierarchical),
            (Reduce, 8 << 10, 64, Hierarchical),
            (Reduce, 32 << 10, 1000, Hierarchical),
            (Reduce, 128 << 10, 64, Circulant),
            (Reduce, 512 << 10, 240, Circulant),
            (Reduce, 128 << 10, 480, Hierarchical),
            (Reduce, 512 << 10, 1000, Hierarchical),
        ] {
            let c = choose(&cyclic(coll, bytes, p, 8), None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains("scattered"), "{}", c.reason);
        }
        // Not: hosts in blocks, one rank per host, the allreduce at 129-239
        // processes, sizes between the reduce's two rules, the reduce-scatter.
        let blocks = |coll, bytes, p| in_blocks(coll, bytes, p, 8);
        not_by_rule(
            &t,
            &[
                blocks(Reduce, 8 << 10, 240),
                blocks(Allreduce, 2 << 10, 240),
                shape(Reduce, 512 << 10, 240),
                cyclic(Allreduce, 16 << 10, 300, 8),
                cyclic(Allreduce, (32 << 10) + 8, 64, 8),
                cyclic(Reduce, 64 << 10, 240, 8),
                cyclic(Reduce, 2 << 10, 240, 8),
                cyclic(ReduceScatterBlock, 32 << 10, 240, 8),
                cyclic(Reduce, 512 << 10, 1008, 8),
            ],
            "scattered",
        );
    }

    #[test]
    fn reduces_at_17_to_31_processes_binary_blocks_the_circulant_the_two_tree_then_the_pipeline() {
        let t = Table::default_table();
        for (bytes, p, algorithm) in [
            ((32 << 10) + 8, 17, BinaryBlocks),
            (64 << 10, 17, BinaryBlocks),
            (128 << 10, 31, BinaryBlocks),
            ((128 << 10) + 8, 24, Circulant),
            (256 << 10, 31, Circulant),
            ((256 << 10) + 8, 17, TwoTree),
            (512 << 10, 24, TwoTree),
            ((1 << 20) - 8, 31, TwoTree),
            (1 << 20, 17, Pipeline),
            (1 << 20, 31, Pipeline),
            (2 << 20, 24, Pipeline),
        ] {
            let c = choose(&shape(Reduce, bytes, p), None, &t);
            assert_eq!(c.algorithm, algorithm, "{bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains("17-3"), "{}", c.reason);
        }
        // Not these rules: p = 16 and 32, below 64 KiB, the allreduce and
        // the reduce-scatters (the model's circulant), shared hosts.
        not_by_rule(
            &t,
            &[
                shape(Reduce, 256 << 10, 16),
                shape(Reduce, 1 << 20, 32),
                shape(Allreduce, 256 << 10, 25),
                shape(ReduceScatterBlock, 256 << 10, 25),
                Shape { hosts: Hosts::SharedInBlocks, ..shape(Reduce, 256 << 10, 24) },
            ],
            "17-31",
        );
        assert_eq!(choose(&shape(Allreduce, 1 << 20, 25), None, &t).algorithm, Circulant);
    }

    #[test]
    fn hosts_in_blocks_with_a_short_last_host_take_the_hostblocks_rules_and_their_own() {
        let t = Table::default_table();
        // 250 ranks on hosts of 16: 15 full hosts and one of 10.
        let host_of = host_blocks(250, 16);
        let placed = |coll, bytes: usize| placed_shape(coll, bytes, &host_of);
        assert_eq!(placed(Allreduce, 8).hosts, Hosts::SharedInBlocksShortLast);
        for (coll, bytes, algorithm, rule) in [
            (Allreduce, 1 << 10, Hierarchical, "hostspow2"), // 16 hosts
            (Allreduce, 2 << 10, Hierarchical, "hostblocks<=24"),
            (Allreduce, 4 << 10, Hierarchical, "hostblocks<=24"),
            (Allreduce, 32 << 10, Rabenseifner, "shortlast"),
            (Allreduce, 8 << 10, Hierarchical, "hostblocks<=24"),
            (Allreduce, 64 << 10, Rabenseifner, "hostblocks"),
            (Allreduce, 512 << 10, Rabenseifner, "shortlast"),
            (Reduce, 2 << 10, KnomialTree, "hostblocks"),
            (Reduce, 8 << 10, Hierarchical, "hostblocks<=16"),
            (Reduce, 64 << 10, BinaryBlocks, "hostblocks"),
            (Reduce, 256 << 10, Rabenseifner, "shortlast"),
            (ReduceScatterBlock, 2 << 10, Hierarchical, "hostblocks<=24"),
            (ReduceScatterBlock, 64 << 10, Rabenseifner, "shortlast"),
        ] {
            let c = choose(&placed(coll, bytes), None, &t);
            assert_eq!(c.algorithm, algorithm, "{coll:?} {bytes} B: {}", c.reason);
            assert!(c.reason.to_string().contains(rule), "{coll:?} {bytes} B: {}", c.reason);
        }
        // Not the `scattered` rules (ranks dealt round robin), nor `shortlast`
        // on equal blocks or beyond the measured sizes and process counts.
        not_by_rule(&t, &[placed(Reduce, 512 << 10), placed(Allreduce, 4 << 10), placed(Reduce, 16 << 10)], "scattered");
        let equal = host_blocks(240, 16);
        let short = |p: usize| host_blocks(p, 16);
        let at = |h: &[usize], coll, bytes| placed_shape(coll, bytes, h);
        not_by_rule(
            &t,
            &[at(&equal, Allreduce, 512 << 10), at(&short(90), Allreduce, 512 << 10), at(&short(1010), Allreduce, 512 << 10), placed(Allreduce, 1 << 20), placed(ReduceScatterBlock, 4 << 10)],
            "shortlast",
        );
    }

    /// Stops 63, 64 and 68: long vectors on hosts of 16 with a short last
    /// host (100 = 6 x 16 + 4, 250 = 15 x 16 + 10) on a fast network: to 2
    /// MiB the rules of the comment below, the ring beyond where the last
    /// host holds at most half (the two-level algorithm to 24 MiB where it
    /// holds more); the two-level reduce at 2-4 MiB; halving & doubling over
    /// hosts at 128-512 KiB.
    #[test]
    fn long_vectors_on_hosts_of_16_with_a_short_last_host_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        for (coll, bytes, p, algorithm) in [
            // 1-4 MiB: the two-level algorithm where the last host holds
            // more than 8; below, halving & doubling over hosts.
            (Allreduce, 2 << 20, 110, Hierarchical),
            (ReduceScatterBlock, 1 << 20, 250, Hierarchical),
            (Allreduce, 2 << 20, 100, RabenseifnerHosts),
            (Allreduce, 4 << 20, 200, Ring),
            (ReduceScatterBlock, 2 << 20, 120, RabenseifnerHosts),
            (ReduceScatterBlock, 1_048_000, 250, Hierarchical), // "1 MiB" on 250 blocks: from 1000 KiB
            (ReduceScatterBlock, 1_048_000, 100, RabenseifnerHosts),
            (ReduceScatterBlock, 4 << 20, 200, Ring),
            (ReduceScatterBlock, (2 << 20) + 100 * 8, 100, Ring),
            (Allreduce, 4 << 20, 110, Hierarchical), // the last host over half
            // 128-512 KiB: halving & doubling over hosts to 256, the reduce to 1000.
            (Allreduce, 256 << 10, 164, RabenseifnerHosts),
            (ReduceScatterBlock, 130_800, 100, RabenseifnerHosts), // "128 KiB" on 100 blocks
            (ReduceScatterBlock, 512 << 10, 230, RabenseifnerHosts),
            (Reduce, 512 << 10, 1000, RabenseifnerHosts),
            (Allreduce, 8 << 20, 100, Ring),
            (Allreduce, 8 << 20, 250, Hierarchical), // the last host over half
            (ReduceScatterBlock, 8 << 20, 250, Hierarchical),
            (ReduceScatterBlock, 16 << 20, 200, Ring),
            (Allreduce, 32 << 20, 250, Ring),
            (ReduceScatterBlock, (32 << 20) - 32, 100, Ring),
            (Reduce, 2 << 20, 250, Hierarchical),
            // 512 KiB-1 MiB: as from 1 MiB; the reduce over hosts at every p.
            (Allreduce, 768 << 10, 164, RabenseifnerHosts),
            (Allreduce, 768 << 10, 126, Hierarchical),
            (ReduceScatterBlock, 768 << 10, 180, RabenseifnerHosts),
            (Reduce, 768 << 10, 120, RabenseifnerHosts),
            // The reduce of 1 MiB: over hosts, but binary blocks where §3.5's removal is balanced.
            (Reduce, 1 << 20, 164, RabenseifnerHosts),
            (Reduce, 1 << 20, 120, BinaryBlocks),
        ] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, 16), algorithm, "hostblocks>=16,hostblocks<=16,nhalf>=8K");
        }
        // Not: equal hosts, hosts of 8, beyond 256 (the reduce-scatter at
        // 1000: halving & doubling over hosts took 1.00-1.11x §3.5's time).
        let others = [at(30 << 10, Allreduce, 8 << 20, 240, 16), at(30 << 10, ReduceScatterBlock, 256 << 10, 240, 16),
                      at(30 << 10, Allreduce, 8 << 20, 100, 8), at(30 << 10, Allreduce, 8 << 20, 1000, 16),
                      at(30 << 10, ReduceScatterBlock, 256_000, 1000, 16)];
        not_by_rule(&t, &others, "hostblocks>=16,hostblocks<=16,nhalf>=8K");
    }

    /// Hosts of 32 with a short last host of at most 16 at 1-4 MiB: halving
    /// & doubling over hosts; with more than 16 on the last host, the model.
    #[test]
    fn long_vectors_on_hosts_of_32_with_a_short_last_host_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        for (coll, bytes, p) in [(Allreduce, 2 << 20, 164), (ReduceScatterBlock, 1_048_000, 200), (Allreduce, 4 << 20, 230)] {
            fast_network_takes(&t, |n| at(n, coll, bytes, p, 32), RabenseifnerHosts, "hostblocks>=32,hostblocks<=32,nhalf>=8K");
        }
        let c = choose(&at(30 << 10, Allreduce, 2 << 20, 150, 32), None, &t);
        assert!(c.reason.to_string().contains("overhalf,hostblocks>=32,hostblocks<=32,nhalf>=8K model"), "{}", c.reason);
        not_by_rule(&t, &[at(30 << 10, Allreduce, 8 << 20, 164, 32), at(30 << 10, Allreduce, 2 << 20, 164, 24)], "hostblocks>=32,hostblocks<=32");
    }

    /// Hosts of 8-24 with a short last host, 128 KiB-4 MiB: halving &
    /// doubling over hosts (to 2 MiB from 100 processes), the ring for long
    /// steps at fewer than 100 processes (stop 68: from 256 KiB at 17-31 on
    /// 3 hosts or more, from 1 MiB at 32-99), the model where the last host
    /// holds more than half.
    #[test]
    fn hosts_of_8_to_24_with_a_short_last_host_leave_the_two_level_algorithm_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        let lastquarter = |p: usize, k: usize| Condition::LastQuarter.holds(&at(30 << 10, Allreduce, 8, p, k));
        assert_eq!((lastquarter(17, 8), lastquarter(50, 8), lastquarter(52, 8), lastquarter(150, 24), lastquarter(151, 24)), (true, true, false, true, false));
        assert!(!lastquarter(48, 8) && !lastquarter(8, 8), "no short last host");
        fast_network_takes_each(&t, at, &[
            (Allreduce, 128 << 10, 17, 8, RabenseifnerHosts, "lastquarter,hostblocks>=8,hostblocks<=24"),
            (Allreduce, 1 << 20, 17, 8, Ring, "256K-1M 17-31 lastquarter,hostblocks>=8,hostblocks<=24,hosts>=3"),
            (ReduceScatterBlock, 261_936, 17, 8, Ring, "250K-1M 17-31 lastquarter,hostblocks>=8,hostblocks<=24,hosts>=3"),
            (ReduceScatterBlock, 2 << 20, 17, 8, Ring, "lastquarter,hostblocks>=8,hostblocks<=24"),
            (Allreduce, 512 << 10, 40, 12, RabenseifnerHosts, "shortlast,hostblocks>=8,hostblocks<=24"),
            (Allreduce, 2 << 20, 40, 12, Ring, "1M-32M 32-99 shortlast,hostblocks>=8,hostblocks<=24"),
            (ReduceScatterBlock, 1_048_560, 40, 12, Ring, "1000K-32M 32-99 shortlast,hostblocks>=8,hostblocks<=24"),
            (ReduceScatterBlock, 128 << 10, 40, 12, RabenseifnerHosts, "shortlast,hostblocks>=8,hostblocks<=24"),
            (Allreduce, 4 << 20, 64, 12, Ring, "shortlast,hostblocks>=8,hostblocks<=24"),
            (Allreduce, 2 << 20, 130, 8, RabenseifnerHosts, "lastquarter,hostblocks>=8,hostblocks<=12"),
            (ReduceScatterBlock, 2 << 20, 220, 24, RabenseifnerHosts, "lastquarter,hostblocks>=17,hostblocks<=24"),
            (Allreduce, 2 << 20, 300, 8, RabenseifnerHosts, "shortlast,hostblocks>=8,hostblocks<=12"),
            // Hosts of 4 with one rank on the last, of 32 with 6.
            (Allreduce, 1 << 20, 33, 4, RabenseifnerHosts, "lastquarter,hostblocks>=4,hostblocks<=7"),
            (ReduceScatterBlock, 4 << 20, 70, 32, Ring, "lastquarter,hostblocks>=25,hostblocks<=32"),
            // The reduce: over hosts at 128-512 KiB.
            (Reduce, 128 << 10, 33, 16, RabenseifnerHosts, "lastquarter,hostblocks>=8,hostblocks<=24"),
            (Reduce, 512 << 10, 230, 12, RabenseifnerHosts, "lastquarter,hostblocks>=8,hostblocks<=12"),
        ]);
        let c = choose(&at(30 << 10, Allreduce, 1 << 20, 70, 24), None, &t);
        assert!(c.reason.to_string().contains("shortlast,overhalf,hostblocks>=8,hostblocks<=24,nhalf>=8K model"), "{}", c.reason);
        // Not: equal hosts, hosts of 16 at 100-256 (their own rules), hosts of 4 or 32, beyond 4 MiB.
        let others = [at(30 << 10, Allreduce, 1 << 20, 48, 8), at(30 << 10, Allreduce, 1 << 20, 100, 16), at(30 << 10, Allreduce, 1 << 20, 50, 4),
                      at(30 << 10, Allreduce, 1 << 20, 70, 32), at(30 << 10, Allreduce, 64 << 20, 50, 8)];
        not_by_rules(&t, &others, &["hostblocks>=8,hostblocks<=24", "hostblocks>=8,hostblocks<=12", "hostblocks>=17,hostblocks<=24"]);
    }

    /// Below 128 KiB at 17-99 processes with at most a quarter of a host on
    /// the last: halving & doubling over hosts for the reduce-scatter and
    /// the allreduce (a lone rank, 3 hosts, or from 32 KiB), binary blocks
    /// for the reduce from 32 KiB; elsewhere the rules of hosts in blocks.
    #[test]
    fn short_vectors_with_a_quarter_host_or_less_on_the_last_leave_the_two_level_algorithm_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        fast_network_takes_each(&t, at, &[
            (ReduceScatterBlock, 952, 17, 8, RabenseifnerHosts, "0-32K 17-99 lastquarter,lonerank"),
            (ReduceScatterBlock, 16_000, 50, 24, RabenseifnerHosts, "17-99 lastquarter,hosts<=3"),
            (ReduceScatterBlock, 16_224, 52, 16, Rabenseifner, "17-99 lastquarter,hostblocks>=13,hostblocks<=16"),
            (ReduceScatterBlock, 65_472, 33, 16, RabenseifnerHosts, "32769-128K 17-99 lastquarter,nhalf>=8K"),
            (Allreduce, 32 << 10, 17, 8, RabenseifnerHosts, "16385-32K 17-99 lastquarter,lonerank"),
            (Allreduce, 32 << 10, 50, 8, RabenseifnerHosts, "16385-32K 17-99 lastquarter,hostblocks<=8"),
            (Allreduce, 64 << 10, 67, 16, RabenseifnerHosts, "32769-128K 17-99 lastquarter,nhalf>=8K"),
            (Reduce, 32 << 10, 26, 8, BinaryBlocks, "16385-32K 17-99 lastquarter,hostblocks<=8"),
            (Reduce, 64 << 10, 33, 16, BinaryBlocks, "32769-128K 17-99 lastquarter,nhalf>=8K"),
        ]);
        // Not: 4 hosts of 12 with 3 on the last at 16 KiB (the two-level
        // algorithm is the fastest there), the last host over a quarter,
        // 100 processes or more.
        let others = [at(30 << 10, ReduceScatterBlock, 16 << 10, 39, 12), at(30 << 10, Allreduce, 64 << 10, 52, 8), at(30 << 10, ReduceScatterBlock, 64 << 10, 130, 8)];
        not_by_rule(&t, &others, "17-99 lastquarter");
    }

    /// Long vectors with at most half a host on the last: the ring beyond 2
    /// MiB (stop 68: at 100-300 on any number of hosts, since its receives
    /// are posted a step ahead).
    #[test]
    fn long_vectors_with_a_short_last_host_take_the_ring_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        fast_network_takes_each(&t, at, &[
            (ReduceScatterBlock, 32 << 20, 17, 8, Ring, "1048577-32M 17-31 lastquarter"),
            (Allreduce, 8 << 20, 50, 24, Ring, "1M-32M 32-99 shortlast,hostblocks>=8,hostblocks<=24"),
            (Allreduce, 16 << 20, 70, 16, Ring, "1M-32M 32-99 shortlast,hostblocks>=8,hostblocks<=24"),
            (Allreduce, 4 << 20, 100, 12, Ring, "2097153-32M 100-300 shortlast,hostblocks>=8,hostblocks<=12,nhalf>=8K"),
            (ReduceScatterBlock, 4 << 20, 160, 12, Ring, "2097153-32M 100-300 shortlast,hostblocks>=8,hostblocks<=12,nhalf>=8K"),
            (Allreduce, 8 << 20, 164, 8, Ring, "2097153-32M 100-300 shortlast,hostblocks>=8,hostblocks<=12,nhalf>=8K"),
            (ReduceScatterBlock, 16 << 20, 164, 8, Ring, "2097153-32M 100-300 shortlast,hostblocks>=8,hostblocks<=12,nhalf>=8K"),
            (Allreduce, (2 << 20) + 8, 130, 8, Ring, "2097153-32M 100-300 shortlast,hostblocks>=8,hostblocks<=12,nhalf>=8K"),
            (Allreduce, 4 << 20, 220, 24, Ring, "2097153-32M 100-300 lastquarter,hostblocks>=17,hostblocks<=24,nhalf>=8K"),
            (ReduceScatterBlock, 8 << 20, 220, 24, Ring, "2097153-32M 100-300 lastquarter,hostblocks>=17,hostblocks<=24,nhalf>=8K"),
            (Allreduce, 32 << 20, 270, 24, Ring, "2097153-32M 100-300 lastquarter,hostblocks>=17,hostblocks<=24,nhalf>=8K"),
            // On 2 hosts the allreduce beyond 8 MiB stays two-level; the
            // ring from 512 KiB on 2 hosts of 16-24 (stop 68).
            (Allreduce, 16 << 20, 20, 16, Hierarchical, "8388609-32M 17-99 shortlast,hostblocks>=8,hostblocks<=24,hosts<=2"),
            (Allreduce, 512 << 10, 17, 16, Ring, "512K-1M 17-31 lastquarter,hostblocks>=16,hostblocks<=24,hosts<=2"),
            (ReduceScatterBlock, 1_048_560, 30, 24, Ring, "500K-1M 17-31 lastquarter,hostblocks>=16,hostblocks<=24,hosts<=2"),
            (Allreduce, 2 << 20, 36, 24, Ring, "512K-2M 32-99 shortlast,hostblocks>=16,hostblocks<=24,nhalf>=8K"),
            (ReduceScatterBlock, 524_232, 33, 24, Ring, "500K-2M 32-99 shortlast,hostblocks>=16,hostblocks<=24,nhalf>=8K"),
            (Allreduce, 512 << 10, 50, 16, Ring, "512K-2M 32-99 shortlast,hostblocks>=16,hostblocks<=24,nhalf>=8K"),
            (ReduceScatterBlock, 524_000, 50, 24, Ring, "500K-2M 32-99 shortlast,hostblocks>=16,hostblocks<=24,nhalf>=8K"),
            (Allreduce, 512 << 10, 50, 12, RabenseifnerHosts, "128K-2M 32-99 shortlast,hostblocks>=8,hostblocks<=24"),
        ]);
        // Not the ring of hosts of 16-24 below 512 KiB, nor on hosts of 32.
        not_by_rule(&t, &[at(30 << 10, Allreduce, 256 << 10, 33, 24), at(30 << 10, Allreduce, 1 << 20, 40, 32)], "hostblocks>=16,hostblocks<=24,nhalf>=8K ring");
        // The last host over half on hosts of 12 at 100-300: the model.
        let c = choose(&at(30 << 10, Allreduce, 8 << 20, 140, 12), None, &t);
        assert!(c.reason.to_string().contains("shortlast,overhalf,hostblocks>=8,hostblocks<=12,nhalf>=8K model"), "{}", c.reason);
        // Not: hosts of 16 at 100-256 (their own rules), beyond 32 MiB.
        let others = [at(30 << 10, Allreduce, 16 << 20, 150, 16), at(30 << 10, Allreduce, 64 << 20, 124, 12)];
        not_by_rules(&t, &others, &["hostblocks>=8,hostblocks<=12", "hostblocks>=9,hostblocks<=12", "hostblocks>=17,hostblocks<=24", "hostblocks>=8,hostblocks<=24"]);
    }

    /// Stop 69: full hosts of 2-32 ranks at 33-256 processes, 2-16 MiB: the
    /// ring that posts ahead (hosts of 2-4 at 33-127, and 129-255 at 4-8
    /// MiB), the two-level algorithm on powers of two (hosts of 4-32); hosts
    /// of 2-4 with a short last host: the ring.
    #[test]
    fn full_hosts_take_the_ring_or_the_two_level_algorithm_for_long_vectors_on_a_fast_network() {
        let t = Table::default_table();
        let at = placed_in_blocks;
        fast_network_takes_each(&t, at, &[
            (Allreduce, 2 << 20, 100, 2, Ring, "2M 33-127 fullhosts,hostblocks<=4"),
            (ReduceScatterBlock, 2_097_120, 64, 4, Ring, "2000K-2M 33-127 fullhosts,hostblocks<=4"),
            (Allreduce, 16 << 20, 100, 4, Ring, "2M-16M 33-127 nonpow2,fullhosts,hostblocks<=4"),
            (ReduceScatter, 8 << 20, 36, 4, Ring, "2000K-16M 33-127 nonpow2,fullhosts,hostblocks<=4"),
            (Allreduce, 8 << 20, 200, 8, Ring, "3M-12M 129-255 nonpow2,fullhosts,hostblocks<=8"),
            (ReduceScatterBlock, 16 << 20, 200, 2, Ring, "3M-16M 129-255 nonpow2,fullhosts,hostblocks<=8"),
            (Allreduce, 4 << 20, 64, 4, Hierarchical, "2M-16M 64-256 pow2,fullhosts,hostblocks>=4,hostblocks<=32"),
            (ReduceScatterBlock, 16 << 20, 256, 16, Hierarchical, "2000K-16M 64-256 pow2,fullhosts,hostblocks>=4,hostblocks<=32"),
            (Allreduce, 8 << 20, 256, 32, Hierarchical, "2M-16M 64-256 pow2,fullhosts,hostblocks>=4,hostblocks<=32"),
            // From 1 MiB at 33-63 processes.
            (Allreduce, 1 << 20, 50, 2, Ring, "1M-2M 33-63 fullhosts,hostblocks<=4"),
            (ReduceScatterBlock, 1_048_320, 60, 4, Ring, "1000K-2M 33-63 fullhosts,hostblocks<=4"),
            // Hosts of 2-4 with a short last host: the ring too.
            (Allreduce, 2 << 20, 35, 2, Ring, "2M-16M 33-127 shortlast,hostblocks<=4"),
            (ReduceScatterBlock, 16 << 20, 102, 4, Ring, "2000K-16M 33-127 shortlast,hostblocks<=4"),
            (Allreduce, 4 << 20, 202, 4, Ring, "3M-16M 129-255 shortlast,hostblocks<=4"),
            (ReduceScatter, 16 << 20, 201, 2, Ring, "3M-16M 129-255 shortlast,hostblocks<=4"),
        ]);
        // Not the ring at 512 KiB at 33-63 processes, nor at 1 MiB from 64.
        not_by_rule(&t, &[at(30 << 10, Allreduce, 512 << 10, 50, 2), at(30 << 10, Allreduce, 1 << 20, 64, 4)], "ring");
        // A short last host (for the full-hosts rules), hosts of 8 below 129 processes, 2 MiB at 200, 32 MiB: not these rules.
        let others = [at(30 << 10, Allreduce, 4 << 20, 35, 2), at(30 << 10, Allreduce, 4 << 20, 96, 8),
                      at(30 << 10, Allreduce, 2 << 20, 200, 4), at(30 << 10, Allreduce, 32 << 20, 100, 4)];
        not_by_rule(&t, &others, "fullhosts");
    }

    /// The reduce of 2-8 MiB at 97-240 processes on hosts of 8-24: the
    /// chain (from 3 MiB above 160 processes; hosts of 16 with a short last
    /// host keep the two-level algorithm to 3 MiB, and from 192 to 4 MiB).
    #[test]
    fn long_reduces_at_97_to_240_processes_take_the_chain_on_a_fast_network() {
        let t = Table::default_table();
        fast_network_takes_each(&t, placed_in_blocks, &[
            (Reduce, 4 << 20, 104, 8, Pipeline, "2M-8M 97-160 hostblocks>=8,hostblocks<=24"),
            (Reduce, 2 << 20, 130, 12, Pipeline, "2M-8M 97-160 hostblocks>=8,hostblocks<=24"),
            (Reduce, 4 << 20, 230, 8, Pipeline, "3M-8M 161-240 hostblocks>=8,hostblocks<=24"),
            (Reduce, 4 << 20, 164, 16, Pipeline, "3M-8M 161-240 hostblocks>=8,hostblocks<=24"),
            (Reduce, 2 << 20, 140, 16, Hierarchical, "2M-3M 100-256 shortlast,hostblocks>=16,hostblocks<=16"),
            (Reduce, 4 << 20, 200, 16, Hierarchical, "3145729-4M 192-256 shortlast,hostblocks>=16,hostblocks<=16"),
        ]);
        let others = [placed_in_blocks(30 << 10, Reduce, 2 << 20, 230, 8), placed_in_blocks(30 << 10, Reduce, 4 << 20, 300, 8),
                      placed_in_blocks(30 << 10, Reduce, 4 << 20, 130, 4), placed_in_blocks(30 << 10, Reduce, 4 << 20, 128, 32)];
        not_by_rules(&t, &others, &["97-160 hostblocks>=8", "161-240 hostblocks>=8"]);
    }

    /// Short reduces on hosts of 24 at 64-191 processes: the two-level
    /// algorithm with a short last host, the Fibonacci tree on full hosts.
    #[test]
    fn short_reduces_on_hosts_of_24_below_192_processes() {
        let t = Table::default_table();
        fast_network_takes_each(&t, placed_in_blocks, &[
            (Reduce, 16 << 10, 150, 24, Hierarchical, "64-191 shortlast,hostblocks>=17,hostblocks<=24"),
            (Reduce, 8 << 10, 96, 24, FibonacciTree, "64-191 hostblocks>=17,hostblocks<=24"),
        ]);
        not_by_rule(&t, &[placed_in_blocks(30 << 10, Reduce, 16 << 10, 192, 24), placed_in_blocks(30 << 10, Reduce, 16 << 10, 150, 16)], "64-191");
    }

    /// Ranks dealt round robin over 16 hosts or more at 64-300 processes,
    /// beyond 2 MiB: the ring to 16 MiB (since stop 69; the two-level
    /// algorithm had run to 4 MiB), the two-level algorithm at 2 MiB.
    #[test]
    fn round_robin_beyond_2_mib_on_a_fast_network() {
        let t = Table::default_table();
        let rule = "2097153-16M 64-300 scattered,hosts>=16,nhalf>=8K";
        fast_network_takes_each(&t, round_robin, &[
            (Allreduce, (2 << 20) + 8, 230, 29, Ring, rule),
            (Allreduce, 4 << 20, 230, 29, Ring, rule),
            (ReduceScatterBlock, 4 << 20, 100, 50, Ring, rule),
            (Allreduce, 16 << 20, 70, 18, Ring, rule),
            (ReduceScatterBlock, 16 << 20, 164, 21, Ring, rule),
            (Allreduce, 2 << 20, 130, 33, Hierarchical, "64K-2M 64-512 scattered,hosts>=16,nhalf>=8K"),
        ]);
        not_by_rule(&t, &[round_robin(30 << 10, Allreduce, 4 << 20, 100, 13), round_robin(30 << 10, Allreduce, 32 << 20, 100, 50)], "64-300 scattered");
    }

    #[test]
    fn allreduce_at_20_to_26_processes_and_reduce_scatter_at_24_binary_blocks() {
        let t = Table::default_table();
        for (coll, bytes, p) in [
            (Allreduce, 64 << 10, 24),
            (Allreduce, 4 << 20, 24),
            (Allreduce, 1 << 20, 22),
            (Allreduce, 64 << 10, 26),
            (Allreduce, 64 << 10, 20),
            (Allreduce, 512 << 10, 20),
            (ReduceScatterBlock, 64 << 10, 24),
            (ReduceScatterBlock, 4 << 20, 24),
        ] {
            let c = choose(&shape(coll, bytes, p), None, &t);
            assert_eq!(c.algorithm, BinaryBlocks, "{coll:?} {bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains(&format!(" {p} ")), "{}", c.reason);
        }
        // Not: p = 20 from 1 MiB (the circulant), other p, below 64 KiB, the
        // reduce-scatter at 20-22, hosts in blocks, beyond the measured 4 MiB.
        for s in [
            shape(Allreduce, (512 << 10) + 8, 20),
            shape(Allreduce, 256 << 10, 21),
            shape(Allreduce, 256 << 10, 23),
            shape(Allreduce, 256 << 10, 28),
            shape(ReduceScatterBlock, 256 << 10, 20),
            shape(ReduceScatterBlock, 256 << 10, 22),
            Shape { hosts: Hosts::SharedInBlocks, ..shape(Allreduce, 256 << 10, 24) },
            shape(Allreduce, (4 << 20) + 8, 24),
        ] {
            let c = choose(&s, None, &t);
            assert_ne!(c.algorithm, BinaryBlocks, "{s:?}: {}", c.reason);
        }
        assert!(choose(&shape(Allreduce, 32 << 10, 24), None, &t).reason.to_string().contains("recursive_doubling"));
    }

    /// The measured rules for the streamed pipeline (default.table).
    fn pipeline_rule_covers(s: &Shape) -> bool {
        let from = match s.procs {
            17..=31 => 1 << 20,
            32 => 2 << 20,
            33..=100 => 8 << 20,
            101..=256 => 32 << 20,
            _ => return false,
        };
        s.coll == Reduce && (from..=1 << 30).contains(&s.bytes) && s.hosts == Hosts::OnePerHost
    }

    #[test]
    fn long_vectors_at_hundreds_of_processes_take_binary_blocks_where_measured() {
        let t = Table::default_table();
        for (coll, bytes, p) in [
            (Allreduce, 2 << 20, 1000),
            (Reduce, 256 << 10, 100),
            (Reduce, 64 << 10, 1000),
            (Allreduce, 64 << 10, 150),
            (Allreduce, 16 << 20, 999),
            (ReduceScatterBlock, 2096800, 100),
            (ReduceScatter, 16 << 20, 1000),
            (ReduceScatterBlock, 261600, 100),
            (ReduceScatter, 256000, 1000),
            (Reduce, 1 << 20, 1000),
            (Allreduce, 1 << 30, 1000),
            (ReduceScatterBlock, 1073736000, 1000),
            (Allreduce, 2 << 20, 3000),
            (Reduce, 256 << 10, 2000),
            (ReduceScatterBlock, 240000, 3000),
            (ReduceScatter, 16 << 20, 1001),
            (Allreduce, 16 << 20, 2999),
            (Allreduce, 64 << 20, 2000),
            (ReduceScatterBlock, 33_552_000, 2000),
            (ReduceScatter, 20 << 20, 1001),
            (Allreduce, 32 << 20, 3000),
            (Allreduce, 64 << 20, 2001),
            (ReduceScatterBlock, 33_552_000, 3000),
            (ReduceScatter, 64 << 20, 2500),
            (Allreduce, 2 << 20, 3001),
            (Allreduce, 64 << 20, 4000),
            (Reduce, 2 << 20, 4000),
            (ReduceScatterBlock, 2_080_000, 4000),
            (ReduceScatter, 64 << 20, 3001),
        ] {
            let c = choose(&shape(coll, bytes, p), None, &t);
            assert_eq!(c.algorithm, BinaryBlocks, "{coll:?} {bytes} B p {p}");
            assert!(!c.reason.to_string().contains("model"), "{}", c.reason);
        }
        // Outside the measured range, placement or collectives: the model (the circulant here).
        for s in [
            shape(Allreduce, 2 << 20, 4001),
            shape(Allreduce, 2 << 20, 31),
            shape(Allreduce, (16 << 20) + 8, 4001),
            shape(ReduceScatterBlock, 2_080_000, 4001),
            shape(Allreduce, (64 << 20) + 8, 3000),
            shape(ReduceScatterBlock, 237000, 3000),
            shape(Allreduce, (1 << 30) + 8, 1000),
            shape(Allreduce, 128 << 10, 1001),
            shape(ReduceScatterBlock, 249 << 10, 1000),
            shape(ReduceScatter, (1 << 30) + 800, 100),
            Shape { hosts: Hosts::SharedInBlocks, ..shape(Allreduce, 2 << 20, 1000) },
        ] {
            let c = choose(&s, None, &t);
            assert!(c.reason.to_string().contains("model"), "{s:?}: {}", c.reason);
        }
        assert_eq!(pick_default(Allreduce, 2 << 20, 1024), Rabenseifner); // powers of two keep halving & doubling
        assert_eq!(pick_default(Allreduce, 2 << 20, 4001), Circulant);
    }

    #[test]
    fn long_reduces_one_rank_per_host_take_the_two_tree_where_measured() {
        let t = Table::default_table();
        for (bytes, p) in [(2 << 20, 100), (2 << 20, 1000), (4 << 20, 100), (16 << 20, 256), (4 << 20, 64), (3 << 20, 511), (32 << 20, 257), (1 << 30, 1000), (4 << 20, 2000), (16 << 20, 1024), (8 << 20, 1001), (64 << 20, 2000), (32 << 20, 1024), (16 << 20, 3000), (64 << 20, 2001), (16 << 20, 4000), (64 << 20, 3001)] {
            let c = choose(&shape(Reduce, bytes, p), None, &t);
            assert_eq!(c.algorithm, TwoTree, "{bytes} B p {p}: {}", c.reason);
        }
        // Below 2 MiB (1 MiB at 33-256 processes, 4 MiB at 1001-2000, 16 MiB at
        // 2001-4000), above 1 GiB (64 MiB), outside 17-4000 processes, for allreduce, on shared hosts, and
        // where the streamed pipeline's rules come first: not the two-tree's
        // rules.
        not_by_rule(
            &t,
            &[
                shape(Reduce, 2 << 20, 17),
                shape(Reduce, 8 << 20, 100),
                shape(Reduce, 32 << 20, 256),
                shape(Reduce, (2 << 20) - 8, 1000),
                shape(Reduce, (1 << 20) - 8, 100),
                shape(Reduce, (1 << 30) + 8, 100),
                shape(Reduce, 2 << 20, 1001),
                shape(Reduce, (4 << 20) - 8, 2000),
                shape(Reduce, (64 << 20) + 8, 1500),
                shape(Reduce, 4 << 20, 2001),
                shape(Reduce, (16 << 20) - 8, 3000),
                shape(Reduce, 16 << 20, 4001),
                shape(Reduce, (16 << 20) - 8, 4000),
                shape(Reduce, (64 << 20) + 8, 3000),
                shape(Reduce, 2 << 20, 16),
                shape(Allreduce, 2 << 20, 100),
                Shape { hosts: Hosts::SharedInBlocks, ..shape(Reduce, 2 << 20, 1000) },
            ],
            "two_tree",
        );
    }

    #[test]
    fn long_reduces_one_rank_per_host_take_the_streamed_pipeline_where_measured() {
        let t = Table::default_table();
        for (bytes, p) in [(2 << 20, 17), (1 << 30, 32), (8 << 20, 33), (16 << 20, 100), (1 << 30, 100), (32 << 20, 101), (64 << 20, 256)] {
            let c = choose(&shape(Reduce, bytes, p), None, &t);
            assert_eq!(c.algorithm, Pipeline, "{bytes} B p {p}: {}", c.reason);
            assert!(c.reason.to_string().contains("oneperhost pipeline"), "{}", c.reason);
        }
        // Below each range's size, above 1 GiB, beyond 256 processes,
        // non-commutative ops, and on shared hosts: not these rules (the
        // model may still pick the pipeline).
        not_by_rule(
            &t,
            &[
                shape(Reduce, (1 << 20) - 8, 17),
                shape(Reduce, (2 << 20) - 8, 32),
                shape(Reduce, (8 << 20) - 8, 64),
                shape(Reduce, (32 << 20) - 8, 256),
                shape(Reduce, (1 << 30) + 8, 100),
                shape(Reduce, 64 << 20, 257),
                Shape { commutative: false, ..shape(Reduce, 16 << 20, 100) },
                Shape { hosts: Hosts::SharedInBlocks, ..shape(Reduce, 16 << 20, 100) },
            ],
            "oneperhost pipeline",
        );
    }

    #[test]
    fn model_rules_use_the_tables_model() {
        let text = "model 1e-6 1e-10 0\n* * * - model\n";
        let t = Table::parse(text, "t").unwrap();
        assert_eq!(t.model, CostModel::new(1e-6, 1e-10, 0.0));
        // Each choice is the estimate's minimum under that model, and the
        // model matters: with a huge α the fewest-latency algorithm wins.
        let s = shape(Allreduce, 1 << 20, 100);
        let cheap = choose(&s, None, &t).algorithm;
        let cost = |a: Algorithm, m: &CostModel| a.estimate(Allreduce, 1 << 20, 100, m).unwrap_or(f64::INFINITY);
        assert!(Algorithm::ALL.iter().filter(|a| **a != Native && a.can_run(&s)).all(|a| cost(cheap, &t.model) <= cost(*a, &t.model)));
        let slow = Table::parse("model 1 1e-10 0\n* * * - model\n", "t").unwrap();
        assert_eq!(choose(&shape(Allreduce, 1 << 20, 100), None, &slow).algorithm, RecursiveDoubling);
        // A model rule with nothing to run hands the call to the library.
        let mut nc = shape(ReduceScatter, 1 << 20, 100);
        nc.commutative = false;
        nc.builtin_op = false;
        assert_eq!(choose(&nc, None, &t).algorithm, Native);
        for bad in ["model 1 2\n", "model a b c\n", "model -1 0 0\n", "model 1 2 3 4\n"] {
            let e = Table::parse(bad, "f").unwrap_err();
            assert!(e.contains("f: line 1") && e.contains("model ALPHA BETA GAMMA"), "{bad}: {e}");
        }
    }

    #[test]
    fn sizes_take_suffixes() {
        assert_eq!(parse_size("64K", true), Some(65536));
        assert_eq!(parse_size("2m", true), Some(2 << 20));
        assert_eq!(parse_size("1G", true), Some(1 << 30));
        assert_eq!(parse_size("1G", false), None);
        assert_eq!(parse_size("12", true), Some(12));
        assert_eq!(parse_size("K", true), None);
    }

    #[test]
    fn delta_expo_max_matches_the_paper() {
        for (p, d) in [(96, 1), (60, 1), (61, 2), (80, 2), (235, 2), (251, 2), (36, 3), (77, 3), (100, 3)] {
            assert_eq!(delta_expo_max(p), d, "p={p}");
        }
        for p in [1, 2, 64, 1024] {
            assert_eq!(delta_expo_max(p), 0, "power of two {p}");
        }
        assert_eq!(delta_expo_max(3), 1);
        assert_eq!(delta_expo_max(0b1000001), 6);
    }

    #[test]
    fn removal_balances_hosts_counts_the_survivors_of_each_host() {
        // Brute force: the ranks that go on (every rank from 2r, the even ones below).
        let most_on_a_host = |p: usize, k: usize| {
            let r = crate::algo::Pairs::of(p).removed;
            let mut on = vec![0; p.div_ceil(k)];
            (0..p).filter(|&q| q >= 2 * r || q % 2 == 0).for_each(|q| on[q / k] += 1);
            on.into_iter().max().unwrap()
        };
        for k in 1..=20usize {
            for p in 1..=300usize {
                let balanced = p.is_power_of_two() || 4 * most_on_a_host(p, k) <= 3 * k;
                assert_eq!(removal_balances_hosts(p, k), balanced, "p = {p}, k = {k}");
            }
        }
        // Hosts of 16: 120, 126 and 250 keep 8 on every host, 244 at most 12; 100, 140, 230 16 on some.
        assert!([120, 126, 244, 250].iter().all(|&p| removal_balances_hosts(p, 16)));
        assert!([100, 140, 164, 200, 230].iter().all(|&p| !removal_balances_hosts(p, 16)));
    }

    #[test]
    fn default_table_follows_section_4() {
        assert_eq!(pick(Allreduce, 32, 13), RecursiveDoubling);
        assert_eq!(pick(Allreduce, 512, 16), RecursiveDoubling);
        assert_eq!(pick(Allreduce, 512, 13), Tree);
        assert_eq!(pick(Reduce, 512, 13), Tree);
        assert_eq!(pick(Allreduce, 1 << 20, 64), Rabenseifner);
        assert_eq!(pick(Reduce, 1 << 20, 64), Rabenseifner);
        assert_eq!(pick(Allreduce, 1 << 20, 7), Pairwise);
        assert_eq!(pick(Allreduce, 4096, 7), Rabenseifner);
        assert_eq!(pick(ReduceScatter, 1 << 20, 7), Pairwise);
        // Binary blocks needs ≥ 16 KiB, p > 32 and δ_expo,max < lg(bytes)/2 − 2.5.
        // 96 processes (δ = 1): 32 KiB gives lg/2 − 2.5 = 5 > 1.
        assert_eq!(pick(Allreduce, 32 << 10, 96), BinaryBlocks);
        assert_eq!(pick(Reduce, 32 << 10, 96), BinaryBlocks);
        // 32 processes or fewer: never binary blocks.
        assert_eq!(pick(Allreduce, 1 << 20, 24), Rabenseifner);
        // 100 processes (δ = 3), 1 KiB·2 = 2 KiB: 5.5 − 2.5 = 3, not < 3 → not binary blocks.
        assert_eq!(pick(Allreduce, 2048, 100), Rabenseifner);
        assert!(binary_blocks_rule(1 << 14, 100)); // 7 − 2.5 = 4.5 > 3
        assert!(!binary_blocks_rule(1 << 11, 100));
    }

    #[test]
    fn non_commutative_and_few_elements() {
        let mut s = shape(Allreduce, 1 << 20, 12);
        s.commutative = false;
        s.builtin_op = false;
        assert_eq!(choose(&s, None, &Table::default_table()).algorithm, RecursiveDoubling);
        s.coll = Reduce;
        assert_eq!(choose(&s, None, &Table::default_table()).algorithm, Tree);
        s.coll = ReduceScatter;
        assert_eq!(choose(&s, None, &Table::default_table()).algorithm, Native);
        s.commutative = true;
        assert_eq!(choose(&s, Some(CirculantPow2), &Table::default_table()).algorithm, CirculantPow2);
        let few = Shape { coll: Allreduce, bytes: 800, elems: 100, procs: 128, commutative: true, builtin_op: true, topology: false, hosts: Hosts::OnePerHost, layout: Layout::one_per_host(128), nhalf: 0, bisection: 0, floating: true, reproducible: false, shared_memory: true };
        assert_eq!(choose(&few, None, &Table::default_table()).algorithm, RecursiveDoubling);
    }

    #[test]
    fn forced_choices_and_their_limits() {
        let t = Table::default_table();
        let c = choose(&shape(Allreduce, 64, 8), Some(Pairwise), &t);
        assert_eq!((c.algorithm, c.override_ignored), (Pairwise, false));
        let c = choose(&shape(Reduce, 64, 8), Some(RecursiveDoubling), &t);
        assert_eq!((c.algorithm, c.override_ignored), (Tree, true));
        let mut s = shape(Allreduce, 1 << 20, 8);
        s.commutative = false;
        let c = choose(&s, Some(Pairwise), &t);
        assert_eq!((c.algorithm, c.override_ignored), (RecursiveDoubling, true));
        assert_eq!(choose(&s, Some(Native), &t).algorithm, Native);
    }

    #[test]
    fn tables_parse_with_line_numbered_errors() {
        let t = Table::parse("# c\nallreduce 1K-2M 3-  pow2,commutative pairwise\n* * * - tree\n", "t").unwrap();
        assert_eq!(t.rules.len(), 2);
        assert_eq!((t.rules[0].bytes, t.rules[0].procs, t.rules[0].line), ((1024, 2 << 20), (3, usize::MAX), 2));
        assert_eq!(choose(&shape(Allreduce, 4096, 8), None, &t).algorithm, Pairwise);
        assert_eq!(choose(&shape(Allreduce, 4096, 7), None, &t).algorithm, Tree);
        assert!(choose(&shape(Allreduce, 4096, 7), None, &t).reason.to_string().contains("t line 3"));
        let e = Table::parse("\nallreduce * * - warp\n", "f").unwrap_err();
        assert!(e.contains("f: line 2") && e.contains("unknown algorithm 'warp'"), "{e}");
        let e = Table::parse("allreduce * *\n", "f").unwrap_err();
        assert!(e.contains("line 1") && e.contains("expected 5 columns"), "{e}");
        assert!(Table::parse("reduce 1X * - tree", "f").unwrap_err().contains("bad byte range"));
    }

    #[test]
    fn the_model_weighs_the_two_level_algorithm_on_shared_hosts_only() {
        let t = Table::parse("* * * - model\n", "t").unwrap();
        let flat = shape(Allreduce, 1 << 20, 1024);
        // 16 ranks on each of 64 hosts, not in rank-order blocks (round robin).
        let shared = Shape { hosts: Hosts::Shared, layout: Layout { hosts: 64, fewest: 16, most: 16 }, ..flat };
        assert!(t.depends_on_placement(&flat));
        for coll in Collective::ALL {
            assert_eq!(choose(&Shape { coll, ..shared }, None, &t).algorithm, Hierarchical, "{coll:?}");
            assert_ne!(choose(&Shape { coll, ..flat }, None, &t).algorithm, Hierarchical, "{coll:?}");
        }
        // In blocks, halving & doubling's first lg 16 steps stay within the
        // hosts: it moves what the two-level algorithm moves, with fewer
        // latencies within a host (SMPI, 8-core nodes: equal from 256 KiB).
        let in_blocks = Shape { hosts: Hosts::SharedInBlocks, ..shared };
        assert_eq!(choose(&in_blocks, None, &t).algorithm, Rabenseifner);
        assert_eq!(choose(&Shape { bytes: 4096, elems: 512, layout: Layout { hosts: 64, fewest: 8, most: 8 }, procs: 512, ..in_blocks }, None, &t).algorithm, Hierarchical);
        // A fast network and a short vector: where a step within a host
        // costs as much as one between hosts, the flat algorithms' lg p
        // steps beat the two-level algorithm's 2 lg K within hosts plus
        // lg N across; where it costs half, the two-level algorithm wins,
        // with hosts of 16 (halving and doubling) and of 12 (the circulant
        // within hosts, ⌈lg 12⌉ rounds, not the ring's 11).
        let same_alpha = Table::parse("model 1e-6 1e-10 1e-10 1e-6 5e-11\n* * * - model\n", "t").unwrap();
        assert_ne!(choose(&Shape { bytes: 64, elems: 8, ..shared }, None, &same_alpha).algorithm, Hierarchical);
        let fast = Table::parse("model 1e-6 1e-10 1e-10 5e-7 5e-11\n* * * - model\n", "t").unwrap();
        assert_eq!(fast.model.alpha_intra, 5e-7);
        let twelve = Shape { procs: 768, layout: Layout { hosts: 64, fewest: 12, most: 12 }, ..shared };
        assert_eq!(choose(&Shape { bytes: 64, elems: 8, ..twelve }, None, &fast).algorithm, Hierarchical);
        assert_eq!(choose(&Shape { bytes: 64, elems: 8, ..shared }, None, &fast).algorithm, Hierarchical);
        assert_eq!(Layout::of(&[0, 1, 2, 0, 0, 1, 2, 2]), Layout { hosts: 3, fewest: 2, most: 3 });
    }

    #[test]
    fn estimates_on_hosts_in_blocks_follow_each_pattern() {
        // 16 hosts of 8 consecutive ranks: lg 8 = 3 steps within a host, lg 16 = 4 across.
        let blocks = Layout { hosts: 16, fewest: 8, most: 8 };
        let n = 1 << 20;
        let table = Table::default_table();
        let est = |a: Algorithm, m: &CostModel| estimate_placed(a, &Shape { hosts: Hosts::SharedInBlocks, layout: blocks, ..shape(Allreduce, n, 128) }, m, &table).unwrap();
        let only = |alpha, beta, alpha_intra, beta_intra| CostModel { alpha, beta, gamma: 0.0, alpha_intra, beta_intra };
        let (n, close) = (n as f64, |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0));
        assert!(close(est(Rabenseifner, &only(0.0, 0.0, 1.0, 0.0)), 2.0 * 3.0));
        assert!(close(est(Rabenseifner, &only(1.0, 0.0, 0.0, 0.0)), 2.0 * 4.0));
        // β: (1 − 1/8)n each way within; across, the 8 ranks' blocks of n/8 share the link: (1 − 1/16)n each way.
        assert!(close(est(Rabenseifner, &only(0.0, 0.0, 0.0, 1.0)), 2.0 * 7.0 / 8.0 * n));
        assert!(close(est(Rabenseifner, &only(0.0, 1.0, 0.0, 0.0)), 2.0 * 15.0 / 16.0 * n));
        // Recursive doubling: the whole vector from all 8 ranks of a host in each step across.
        assert!(close(est(RecursiveDoubling, &only(0.0, 0.0, 1.0, 1.0)), 3.0 * (1.0 + n)));
        assert!(close(est(RecursiveDoubling, &only(1.0, 1.0, 0.0, 0.0)), 4.0 * (1.0 + 8.0 * n)));
        // Not a power of two: the circulant's traffic taken to cross, a host's
        // 4 ranks sharing its link; the ring and the binomial tree at their
        // one-level estimate; halving & doubling's removal step pairs ranks
        // within the first 2 hosts (2 survivors each), the third keeps 4: the
        // steps across on n/2 over 4 blocks of 2, a link shared by 4:
        // 2·(1 − 1/4)·n/2·4β.
        let odd = Shape { hosts: Hosts::SharedInBlocks, layout: Layout { hosts: 3, fewest: 4, most: 4 }, ..shape(Allreduce, 1 << 20, 12) };
        assert!(close(estimate_placed(Rabenseifner, &odd, &only(0.0, 1.0, 0.0, 0.0), &table).unwrap(), 3.0 * n));
        let m = CostModel::default();
        for (a, model) in [(Circulant, m.sharing_links(4)), (Ring, m), (Tree, m)] {
            assert_eq!(estimate_placed(a, &odd, &m, &table), a.estimate(Allreduce, 1 << 20, 12, &model), "{a:?}");
        }
        // Trees: lg 8 = 3 binomial levels within a host, 4 across; the
        // k-nomial tree's first level (children 1-3 away) within hosts of 8,
        // its others priced across (levels of 4^l: 1 + ⌈log4 32⌉ = 4).
        let reduce = |a: Algorithm, m: &CostModel| estimate_placed(a, &Shape { coll: Reduce, hosts: Hosts::SharedInBlocks, layout: blocks, ..shape(Reduce, 8, 128) }, m, &table).unwrap();
        assert!(close(reduce(Tree, &only(1.0, 0.0, 0.0, 0.0)), 4.0) && close(reduce(Tree, &only(0.0, 0.0, 1.0, 0.0)), 3.0));
        assert!(close(reduce(KnomialTree, &only(1.0, 0.0, 0.0, 0.0)), 3.0) && close(reduce(KnomialTree, &only(0.0, 0.0, 1.0, 0.0)), 1.0));
    }

    #[test]
    fn estimates_on_blocks_of_an_odd_size_count_split_patterns_as_crossing() {
        // 12 hosts of 3 consecutive ranks: the exchange patterns with a
        // split of their own (recursive doubling, halving & doubling, binary
        // blocks) as crossing at every step, a host's 3 ranks sharing its
        // link; the other exchange patterns as on even blocks; the trees and
        // the ring at their one-level estimate. Hosts of 3 are
        // SharedInEqualBlocks; with a short last host (35 ranks),
        // SharedInBlocksShortLast, counted full.
        let table = Table::default_table();
        let m = CostModel::default();
        for (p, hosts) in [(36, Hosts::SharedInEqualBlocks), (35, Hosts::SharedInBlocksShortLast)] {
            let odd = Shape { hosts, layout: Layout { hosts: 12, fewest: if p == 36 { 3 } else { 2 }, most: 3 }, ..shape(Allreduce, 1 << 19, p) };
            for (a, model) in [(RecursiveDoubling, m.sharing_links(3)), (Rabenseifner, m.sharing_links(3)), (BinaryBlocks, m.sharing_links(3)),
                               (Tree, m), (Circulant, m.sharing_links(3)), (Ring, m)] {
                assert_eq!(estimate_placed(a, &odd, &m, &table), a.estimate(Allreduce, 1 << 19, 36, &model), "{a:?} on {p}");
            }
            let reduce = Shape { coll: Reduce, ..odd };
            assert_eq!(estimate_placed(KnomialTree, &reduce, &m, &table), KnomialTree.estimate(Reduce, 1 << 19, 36, &m), "{p}");
            // So the model takes the two-level algorithm for the allreduce of
            // 512 KiB (it took the circulant, as if each rank had a link of
            // its own: 2.83x the two-level algorithm's time in SMPI's flat1g,
            // docs/results/smpi/gbe/before-flat1g-3pn.csv).
            assert_eq!(fastest(&odd, &table), Some(Hierarchical), "{p}");
        }
    }

    #[test]
    fn placement_conditions_pick_their_class_only() {
        let t = Table::parse("* * * oneperhost ring\n* * * onehost pairwise\n* * * sharedhosts rabenseifner\n* * * - tree\n", "t").unwrap();
        let placed = |hosts| choose(&Shape { hosts, ..shape(Allreduce, 1 << 20, 8) }, None, &t).algorithm;
        assert_eq!(placed(Hosts::OnePerHost), Ring);
        assert_eq!(placed(Hosts::OneHost), Pairwise);
        assert_eq!(placed(Hosts::Shared), Rabenseifner);
        assert_eq!(placed(Hosts::SharedInBlocks), Rabenseifner);
        assert!(t.depends_on_placement(&shape(Allreduce, 1 << 20, 8)));
    }

    #[test]
    fn hostblocks_up_to_k_holds_for_blocks_of_at_most_k_ranks() {
        let t = Table::parse("* * * hostblocks<=16 ring\n* * * - tree\n", "t").unwrap();
        let blocks = host_blocks;
        let placed = |h: &[usize]| choose(&placed_shape(Allreduce, 1 << 20, h), None, &t).algorithm;
        assert_eq!(placed(&blocks(256, 16)), Ring);
        assert_eq!(placed(&blocks(250, 16)), Ring, "a short last host");
        assert_eq!(placed(&blocks(96, 12)), Ring);
        assert_eq!(placed(&blocks(96, 24)), Tree, "hosts of 24");
        assert_eq!(placed(&[0, 1, 0, 1, 0, 1]), Tree, "not in blocks");
        assert_eq!(placed(&blocks(8, 1)), Tree, "one rank per host");
        assert!(t.depends_on_placement(&shape(Allreduce, 1 << 20, 256)));
        for bad in ["* * * hostblocks<= ring", "* * * hostblocks<=x ring", "* * * hostblocks<16 ring"] {
            assert!(Table::parse(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn hostblocks_from_k_holds_for_blocks_of_at_least_k_ranks_and_makes_the_choice_depend_on_placement() {
        let t = Table::parse("* * * hostblocks>=32 ring\n* * * - tree\n", "t").unwrap();
        let placed = |h: &[usize]| choose(&placed_shape(Allreduce, 32 << 10, h), None, &t).algorithm;
        assert_eq!(placed(&host_blocks(256, 32)), Ring, "8 hosts of 32");
        assert_eq!(placed(&host_blocks(1024, 64)), Ring, "16 hosts of 64");
        assert_eq!(placed(&host_blocks(100, 32)), Ring, "a short last host");
        assert_eq!(placed(&host_blocks(384, 24)), Tree, "hosts of 24");
        assert_eq!(placed(&host_blocks(8, 1)), Tree, "one rank per host");
        // Before the placement is known (one rank per host assumed) the rule
        // could still hold.
        assert!(t.depends_on_placement(&shape(Allreduce, 32 << 10, 256)));
        for bad in ["* * * hostblocks>= ring", "* * * hostblocks>=x ring", "* * * hostblocks>32 ring"] {
            assert!(Table::parse(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_from_n_holds_on_at_least_n_hosts_and_makes_the_choice_depend_on_placement() {
        let t = Table::parse("* * * scattered,hosts>=16 ring\n* * * - tree\n", "t").unwrap();
        let placed = |p, hosts| choose(&round_robin(0, Allreduce, 32 << 10, p, hosts), None, &t).algorithm;
        assert_eq!(placed(64, 16), Ring, "16 hosts of 4");
        assert_eq!(placed(200, 100), Ring, "100 hosts of 2");
        assert_eq!(placed(64, 8), Tree, "8 hosts of 8");
        assert!(t.depends_on_placement(&shape(Allreduce, 32 << 10, 64)));
        for bad in ["* * * hosts>= ring", "* * * hosts>=x ring"] {
            assert!(Table::parse(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_up_to_n_holds_on_at_most_n_hosts_and_makes_the_choice_depend_on_placement() {
        let t = Table::parse("* * * hostblocks,hosts<=16 ring\n* * * - tree\n", "t").unwrap();
        let blocks = host_blocks;
        let placed = |h: &[usize]| choose(&placed_shape(Allreduce, 32 << 10, h), None, &t).algorithm;
        assert_eq!(placed(&blocks(384, 24)), Ring, "16 hosts of 24");
        assert_eq!(placed(&blocks(384, 8)), Tree, "48 hosts of 8");
        assert_eq!(placed(&blocks(64, 4)), Ring, "16 hosts of 4");
        // Before the placement is known (one rank per host assumed, 384
        // hosts), the rule could still hold: the placement is worth computing.
        assert!(t.depends_on_placement(&shape(Allreduce, 32 << 10, 384)));
        for bad in ["* * * hosts<= ring", "* * * hosts<=x ring"] {
            assert!(Table::parse(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_pow2_holds_on_a_power_of_two_of_hosts_and_makes_the_choice_depend_on_placement() {
        let t = Table::parse("* * * hostblocks,hostspow2 ring\n* * * - tree\n", "t").unwrap();
        let placed = |h: &[usize]| choose(&placed_shape(Allreduce, 1 << 10, h), None, &t).algorithm;
        assert_eq!(placed(&host_blocks(96, 12)), Ring, "8 hosts of 12");
        assert_eq!(placed(&host_blocks(96, 8)), Tree, "12 hosts of 8");
        assert_eq!(placed(&host_blocks(96, 24)), Ring, "4 hosts of 24");
        assert_eq!(placed(&host_blocks(120, 8)), Tree, "15 hosts of 8");
        assert_eq!(placed(&[0; 8]), Tree, "one host");
        // Before the placement is known (one rank per host assumed, 96 hosts:
        // not a power of two) the rule could still hold.
        assert!(t.depends_on_placement(&shape(Allreduce, 1 << 10, 96)));
        // The default table: the allreduce of 1 KiB at 96-256 on hosts in blocks.
        let d = Table::default_table();
        let default = |h: &[usize]| choose(&placed_shape(Allreduce, 1 << 10, h), None, &d).algorithm;
        assert_eq!((default(&host_blocks(96, 12)), default(&host_blocks(96, 8))), (Hierarchical, RecursiveDoubling));
        assert_eq!((default(&host_blocks(128, 8)), default(&host_blocks(160, 16))), (Hierarchical, RecursiveDoubling));
    }

    #[test]
    fn names_round_trip() {
        for a in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(a.name()), Some(a));
        }
        assert_eq!(Algorithm::from_name("binomial"), Some(Tree));
        assert_eq!(Algorithm::from_name("circulant:sqrt"), Some(CirculantSqrt));
        for c in Collective::ALL {
            assert_eq!(Collective::from_name(c.name()), Some(c));
        }
    }

    /// [`Table::depends_on_placement`] by trying every placement against
    /// the whole table, without setting any rule aside.
    fn depends_on_placement_by_every_rule(t: &Table, s: &Shape) -> bool {
        placement_changes(s, |placed| t.rules.iter().find(|r| r.coll.is_none_or(|c| c == s.coll) && r.applies(placed)), true, &network_trials(&t.rules.iter().collect::<Vec<_>>()))
    }

    #[test]
    fn the_placement_check_sets_aside_only_rules_that_cannot_decide() {
        // The rules of other collectives, sizes and process counts, those
        // whose other conditions fail, and those after the first that
        // applies wherever the ranks are: the same answer as trying them all,
        // over the default table, on calls of every kind.
        let t = Table::default_table();
        let mut checked = 0;
        for coll in Collective::ALL {
            for bytes in [0, 4, 8, 512, 4 << 10, 30 << 10, 64 << 10, 256 << 10, 1 << 20, 16 << 20] {
                for procs in [1, 2, 3, 4, 6, 8, 12, 17, 24, 64, 100, 256, 1000, 1024, 4096] {
                    for bits in 0..64u32 {
                        let flag = |i: u32| bits >> i & 1 == 1;
                        let s = Shape {
                            elems: if flag(0) { 1 } else { bytes / 8 },
                            commutative: !flag(1),
                            builtin_op: !flag(2),
                            floating: flag(3),
                            reproducible: flag(4),
                            shared_memory: !flag(5),
                            ..shape(coll, bytes, procs)
                        };
                        assert_eq!(t.depends_on_placement(&s), depends_on_placement_by_every_rule(&t, &s), "{s:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 4 * 10 * 15 * 64);
    }

    #[test]
    fn a_choice_that_the_placement_changes_only_through_shared_memory_says_so() {
        let t = Table::parse(
            "allreduce 0-64K * onehost shared_memory\n\
             allreduce 0-64K 64- hostblocks hierarchical\n\
             allreduce * * - recursive_doubling\n",
            "test",
        )
        .unwrap();
        let short = shape(Allreduce, 8 << 10, 8);
        // Without a shared segment to be had, the same choice wherever the ranks are.
        assert_eq!(t.placement_dependence(&Shape { shared_memory: false, ..short }), PlacementDependence::None);
        // On one host the shared-memory algorithm; elsewhere recursive doubling.
        assert_eq!(t.placement_dependence(&short), PlacementDependence::SharedMemoryOnly);
        // Elements larger than its slots: it cannot run anywhere.
        assert_eq!(t.placement_dependence(&Shape { elems: 1, ..short }), PlacementDependence::None);
        // At 64 processes hosts in blocks run the two-level algorithm too.
        assert_eq!(t.placement_dependence(&shape(Allreduce, 8 << 10, 64)), PlacementDependence::Full);
        // Longer vectors: no rule reads the placement.
        assert_eq!(t.placement_dependence(&shape(Allreduce, 1 << 20, 64)), PlacementDependence::None);
    }
}
