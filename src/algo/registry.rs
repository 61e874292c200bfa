//! The one table of fastred's algorithms. Each entry says everything about an
//! algorithm that the rest of fastred needs: its names, which collectives it
//! runs, what it needs of a call, its α-β-γ cost and how to run it. The
//! selector (`implements`, `can_run`), `FASTRED_ALGO` parsing and its messages,
//! dispatch, `fastred info` / `explain`, the C API's algorithm indices and the
//! test sweeps (in-process, counting, forced-algorithm MPI runs through
//! `fastred_algorithm_name`) all read it.
//!
//! Adding an algorithm: write `src/algo/NAME.rs` with its `run` (one arm per
//! collective it implements) and `estimate` functions, add a variant to
//! [`Algorithm`] and its [`Descriptor`] at the same position of [`REGISTRY`]
//! (the position is its C API index).

use super::{binary_blocks, binomial, circulant, fibonacci_tree, halving_doubling, halving_doubling_hosts, hierarchical, knomial_tree, pairwise, pairwise_pipeline, pipeline, recursive_doubling, recursive_halving, ring, shared_memory, two_tree};
use super::{Blocks, Transport};
use crate::error::{MpiError, MpiResult};
use crate::model::CostModel;
use crate::op::Reducer;
use crate::collective::Collective;
use std::fmt;

/// fastred's algorithms, plus `Native` (hand the call to the MPI library).
/// The discriminant is the position in [`REGISTRY`] and the C API index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    Native,
    Tree,
    RecursiveDoubling,
    Rabenseifner,
    BinaryBlocks,
    Pairwise,
    Circulant,
    CirculantPow2,
    CirculantLinear,
    CirculantSqrt,
    RecursiveHalving,
    Ring,
    Pipeline,
    FibonacciTree,
    Hierarchical,
    PairwisePipeline,
    KnomialTree,
    SharedMemory,
    TwoTree,
    RabenseifnerHosts,
}

/// What a run needs besides transport, reducer and vector.
pub struct Job<'a> {
    pub coll: Collective,
    /// Reduce-scatter: the per-rank blocks (in elements).
    pub blocks: &'a Blocks,
    /// Reduce: the root.
    pub root: usize,
    pub commutative: bool,
    /// The logical ring (`order[i]` = rank at position i), for algorithms that [`Descriptor::uses_ring`].
    pub ring: &'a [usize],
    /// Every rank's host (`hosts[r]`, numbered from 0) and every host's
    /// ranks, for algorithms that [`Descriptor::uses_hosts`].
    pub hosts: &'a super::host_map::HostMap,
    /// `FASTRED_SEGMENT`, for the pipelined reduces.
    pub segment_bytes: Option<usize>,
    pub model: &'a CostModel,
    /// The call must follow the canonical order of [`crate::reproducible`]:
    /// algorithms built of others (the two-level one) choose canonical ones.
    pub canonical: bool,
    /// The active selection table, for algorithms built of others (the
    /// two-level one chooses its phases' algorithms with it).
    pub table: &'a crate::select::Table,
    /// The network's n½ between hosts as the communicator measured it (0:
    /// not known), for the two-level algorithm's lanes across hosts, which
    /// take the table's rules for that network.
    pub nhalf: usize,
}

/// Run an algorithm: `buf` holds this process's input and receives its result
/// (see [`crate::algo`] for the conventions).
pub type RunFn = fn(&dyn Transport, &dyn Reducer, &mut [u8], &Job) -> MpiResult;
/// Run an allreduce or reduce-scatter reading the input from a buffer of its
/// own (the user's send buffer, never written) and writing the result to
/// `output`: the whole vector (allreduce) or this rank's block
/// (reduce-scatter). Spares the copy of the input into a work buffer.
pub type RunFromFn = fn(&dyn Transport, &dyn Reducer, &[u8], &mut [u8], &Job) -> MpiResult;
/// Estimated time (s) for a collective on `bytes` over `p` processes.
pub type EstimateFn = fn(Collective, usize, usize, &CostModel) -> f64;
/// Estimated time (s) for a collective on `bytes` over `hosts` hosts that
/// each hold `k` (a power of two) consecutive ranks (α, β within and
/// between hosts: [`CostModel`]).
pub type BlocksEstimateFn = fn(Collective, usize, usize, usize, &CostModel) -> f64;

/// An algorithm's α-β-γ cost on hosts of k consecutive ranks each (the
/// two-level model of issue 11 §3; [`crate::select::estimate_placed`]).
#[derive(Clone, Copy)]
pub enum InBlocks {
    /// The one-level estimate between hosts: for patterns where at most one
    /// rank of a host sends across at a time (the ring and pipelines in rank
    /// order; trees, whose lower levels stay within a host), or that only
    /// the root's links limit.
    OneLevel,
    /// Every rank's messages cross hosts at once, so a host's k ranks share
    /// its link: the one-level estimate with β·k (pairwise exchange,
    /// circulant skips, recursive halving's non-neighbour partners).
    Crossing,
    /// Its own split into steps within and between hosts (the exchange
    /// patterns: recursive doubling, halving & doubling, binary blocks); on
    /// blocks of an odd size, as [`InBlocks::Crossing`].
    Split(BlocksEstimateFn),
    /// A tree's own split into levels within and between hosts (binomial,
    /// k-nomial): as [`InBlocks::Split`], but on blocks of an odd size
    /// the one-level estimate, as [`InBlocks::OneLevel`] (one message per
    /// rank and level; the lower levels mostly within a host).
    TreeSplit(BlocksEstimateFn),
}

impl InBlocks {
    /// `estimate` (the one-level one) on `hosts` × `k` ranks in blocks.
    /// The splits assume that the first partners and the removal step's
    /// pairs (2i, 2i + 1) lie within a host, which blocks of an odd size
    /// k > 1 (3, 5, 7 cores) break: there the exchange patterns
    /// ([`InBlocks::Split`]) count as [`crossing`], every step between
    /// hosts, a host's k ranks sharing its link (an upper bound), and the
    /// trees ([`InBlocks::TreeSplit`]) at their one-level estimate.
    pub fn estimate(self, estimate: EstimateFn, coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
        let odd = k > 1 && k % 2 == 1;
        match self {
            InBlocks::OneLevel => estimate(coll, bytes, hosts * k, m),
            InBlocks::TreeSplit(_) if odd => estimate(coll, bytes, hosts * k, m),
            InBlocks::Crossing => crossing(estimate, coll, bytes, hosts, k, m),
            InBlocks::Split(_) if odd => crossing(estimate, coll, bytes, hosts, k, m),
            InBlocks::Split(f) | InBlocks::TreeSplit(f) => f(coll, bytes, hosts, k, m),
        }
    }
}

/// [`InBlocks::Crossing`]'s cost: `estimate` on hosts × k processes with a
/// host's k ranks sharing its link.
pub fn crossing(estimate: EstimateFn, coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
    estimate(coll, bytes, hosts * k, &m.sharing_links(k))
}

/// The in-blocks cost of an algorithm that first folds pairs (2i, 2i + 1),
/// i < r = p − p', into one survivor (§3.5's removal step) and then runs on
/// the p' survivors, on `hosts` hosts of `k` consecutive ranks, p = hosts·k
/// not a power of two. k is a power of two, so every pair lies within a
/// host: the removal step costs what it costs within one host (`estimate` at
/// p less `estimate` at p', both with α_i, β_i). The survivors of the 2r
/// paired ranks fill whole hosts, k/2 of them per host, consecutive; the
/// other hosts keep their k. So `over_pof2`, the algorithm's split for p' a
/// power of two, on hosts of k/2 survivors, a host's link shared by twice as
/// many where some host kept all k. Otherwise (k = 1) every step crosses
/// ([`crossing`]).
pub fn folding_pairs(estimate: EstimateFn, over_pof2: BlocksEstimateFn, coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
    let p = hosts * k;
    debug_assert!(!p.is_power_of_two(), "the callers split powers of two themselves");
    if k < 2 {
        return crossing(estimate, coll, bytes, hosts, k, m);
    }
    let pof2 = 1 << p.ilog2();
    let within = m.within_host();
    let removal = estimate(coll, bytes, p, &within) - estimate(coll, bytes, pof2, &within);
    let half = k / 2;
    let unpaired = p - 2 * (p - pof2);
    let sharing = if unpaired >= k { m.sharing_links(2) } else { *m };
    removal + over_pof2(coll, bytes, pof2 / half, half, &sharing)
}

/// One algorithm.
pub struct Descriptor {
    pub algorithm: Algorithm,
    /// The name in `FASTRED_ALGO`, tables, logs and the C API.
    pub name: &'static str,
    /// Other names `FASTRED_ALGO` and tables accept.
    pub aliases: &'static [&'static str],
    /// The source it implements (paper and section).
    pub source: &'static str,
    pub collectives: &'static [Collective],
    /// Combines strictly in rank order, so it can run non-commutative ops.
    pub rank_ordered: bool,
    /// The collectives for which it computes the canonical order of
    /// [`crate::reproducible`] for every element, whatever the count (the
    /// algorithms `FASTRED_REPRODUCIBLE` may use); for one that
    /// [`uses_hosts`](Self::uses_hosts), on the placements that
    /// [keep it](crate::select::Hosts::keeps_canonical_order).
    pub canonical: &'static [Collective],
    /// Runs on the logical ring, which is computed (collectively) before the run.
    pub uses_ring: bool,
    /// Needs every rank's host, which is exchanged (collectively) before the run.
    pub uses_hosts: bool,
    /// Runs through memory shared by the ranks of one host (a segment made,
    /// collectively, before its first run): only where every rank is on one host.
    pub shared_memory: bool,
    pub estimate: Option<EstimateFn>,
    /// How its estimate reads where every host holds the same power-of-two
    /// number of consecutive ranks ([`crate::select::Hosts::SharedInBlocks`]).
    pub in_blocks: InBlocks,
    /// Whether the cost model may choose it where no measured rule decides
    /// (`model` in a table): false for an algorithm whose estimate, the
    /// paper's, is known to flatter it where it was measured; table rules
    /// and `FASTRED_ALGO` still choose it.
    pub by_model: bool,
    /// `None` for `native`, which the MPI library runs.
    pub run: Option<RunFn>,
    /// For allreduce and reduce-scatter with a separate send buffer, where
    /// the algorithm can read its input in place (`None`: `run` on a copy).
    pub run_from: Option<RunFromFn>,
}

use Collective::{Allreduce, Reduce, ReduceScatter, ReduceScatterBlock};
const ALL_FOUR: &[Collective] = &[Allreduce, Reduce, ReduceScatter, ReduceScatterBlock];
const ALLREDUCE_REDUCE: &[Collective] = &[Allreduce, Reduce];
const REDUCE_SCATTERS: &[Collective] = &[ReduceScatter, ReduceScatterBlock];
const NONE: &[Collective] = &[];

/// Every algorithm, in C API order.
pub static REGISTRY: [Descriptor; 20] = [
    Descriptor {
        algorithm: Algorithm::Native, name: "native", aliases: &[], source: "the MPI library's own",
        collectives: ALL_FOUR, rank_ordered: true, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false, estimate: None, run: None, run_from: None, in_blocks: InBlocks::OneLevel, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::Tree, name: "tree", aliases: &["binomial"], source: "Rabenseifner 2004 §3.3",
        collectives: ALLREDUCE_REDUCE, rank_ordered: true, canonical: ALLREDUCE_REDUCE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(binomial::estimate), run: Some(binomial::run), run_from: None, in_blocks: InBlocks::TreeSplit(binomial::estimate_in_blocks), by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::RecursiveDoubling, name: "recursive_doubling", aliases: &[], source: "Rabenseifner 2004 §3.4",
        collectives: &[Allreduce], rank_ordered: true, canonical: &[Allreduce], uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(recursive_doubling::estimate), run: Some(recursive_doubling::run), run_from: None, in_blocks: InBlocks::Split(recursive_doubling::estimate_in_blocks), by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::Rabenseifner, name: "rabenseifner", aliases: &[], source: "Rabenseifner 2004 §3.5 (reduce-scatters: its first phase, footnote 1)",
        collectives: ALL_FOUR, rank_ordered: false, canonical: ALL_FOUR, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(halving_doubling::estimate), run: Some(halving_doubling::run), run_from: Some(halving_doubling::run_from), in_blocks: InBlocks::Split(halving_doubling::estimate_in_blocks), by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::BinaryBlocks, name: "binary_blocks", aliases: &[], source: "Rabenseifner 2004 §3.6",
        collectives: ALL_FOUR, rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(binary_blocks::estimate), run: Some(binary_blocks::run), run_from: None, in_blocks: InBlocks::Split(binary_blocks::estimate_in_blocks), by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::Pairwise, name: "pairwise", aliases: &[], source: "Rabenseifner 2004 §3.7 (pairwise exchange)",
        collectives: ALL_FOUR, rank_ordered: false, canonical: ALL_FOUR, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(pairwise::estimate), run: Some(pairwise::run), run_from: Some(pairwise::run_from), in_blocks: InBlocks::Crossing, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::Circulant, name: "circulant", aliases: &[], source: "Träff 2025, Algorithms 1 and 2",
        collectives: ALL_FOUR, rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(circulant::estimate_halving), run: Some(circulant::run_halving), run_from: Some(circulant::run_from_halving), in_blocks: InBlocks::Crossing, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::CirculantPow2, name: "circulant:pow2", aliases: &[], source: "Träff 2025, Corollary 2",
        collectives: ALL_FOUR, rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(circulant::estimate_halving), run: Some(circulant::run_powers_of_two), run_from: Some(circulant::run_from_powers_of_two), in_blocks: InBlocks::Crossing, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::CirculantLinear, name: "circulant:linear", aliases: &[], source: "Träff 2025, Corollary 2",
        collectives: ALL_FOUR, rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(circulant::estimate_linear), run: Some(circulant::run_linear), run_from: Some(circulant::run_from_linear), in_blocks: InBlocks::Crossing, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::CirculantSqrt, name: "circulant:sqrt", aliases: &[], source: "Träff 2025, Corollary 2",
        collectives: ALL_FOUR, rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(circulant::estimate_halving), run: Some(circulant::run_sqrt), run_from: Some(circulant::run_from_sqrt), in_blocks: InBlocks::Crossing, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::RecursiveHalving, name: "recursive_halving", aliases: &[],
        source: "Rabenseifner 2004 §3.5 footnote 1; Thakur & Gropp",
        collectives: REDUCE_SCATTERS, rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(recursive_halving::estimate), run: Some(recursive_halving::run), run_from: None, in_blocks: InBlocks::Crossing, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::Ring, name: "ring", aliases: &["topo_ring"], source: "Patarasuk & Yuan §3.2; Rabenseifner 2004 §3.7",
        collectives: ALL_FOUR, rank_ordered: false, canonical: NONE, uses_ring: true, uses_hosts: false, shared_memory: false,
        estimate: Some(ring::estimate), run: Some(ring::run), run_from: Some(ring::run_from), in_blocks: InBlocks::OneLevel, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::Pipeline, name: "pipeline", aliases: &[], source: "linear pipeline (Bar-Noy & Kipnis)",
        collectives: &[Reduce], rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(pipeline::estimate), run: Some(pipeline::run), run_from: None, in_blocks: InBlocks::OneLevel, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::FibonacciTree, name: "fibonacci_tree", aliases: &[], source: "pipelined Fibonacci tree (Sanders & Sibeyn)",
        collectives: &[Reduce], rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(fibonacci_tree::estimate), run: Some(fibonacci_tree::run), run_from: None, in_blocks: InBlocks::OneLevel, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::Hierarchical, name: "hierarchical", aliases: &["two_level"],
        source: "two-level: intra-host reduce-scatter, inter-host per lane, intra-host allgather (Open MPI coll/han, MVAPICH2)",
        collectives: ALL_FOUR, rank_ordered: false, canonical: ALL_FOUR, uses_ring: false, uses_hosts: true, shared_memory: false,
        estimate: Some(hierarchical::estimate), run: Some(hierarchical::run), run_from: None, in_blocks: InBlocks::OneLevel, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::PairwisePipeline, name: "pairwise_pipeline", aliases: &[],
        source: "Rabenseifner 2004 §3.7 pairwise exchange, the root's share handed out, pipelined in chunks",
        collectives: &[Reduce], rank_ordered: false, canonical: &[Reduce], uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(pairwise_pipeline::estimate), run: Some(pairwise_pipeline::run), run_from: None, in_blocks: InBlocks::OneLevel, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::KnomialTree, name: "knomial_tree", aliases: &["knomial"],
        source: "k-nomial tree, radix 4 (MVAPICH2, Open MPI coll/tuned): §3.3's tree with k − 1 children per level",
        collectives: &[Reduce], rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(knomial_tree::estimate), run: Some(knomial_tree::run), run_from: None, in_blocks: InBlocks::TreeSplit(knomial_tree::estimate_in_blocks), by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::SharedMemory, name: "shared_memory", aliases: &["shm"],
        source: "rounds through a segment shared by one host's ranks, canonical order (Open MPI coll/sm, MVAPICH2 shmem collectives)",
        collectives: ALL_FOUR, rank_ordered: true, canonical: ALL_FOUR, uses_ring: false, uses_hosts: true, shared_memory: true,
        estimate: Some(shared_memory::estimate), run: Some(shared_memory::run), run_from: Some(shared_memory::run_from), in_blocks: InBlocks::OneLevel, by_model: true,
    },
    Descriptor {
        algorithm: Algorithm::TwoTree, name: "two_tree", aliases: &[],
        source: "pipelined two-tree reduce (Sanders, Speck & Träff 2009)",
        collectives: &[Reduce], rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: false, shared_memory: false,
        estimate: Some(two_tree::estimate), run: Some(two_tree::run), run_from: None, in_blocks: InBlocks::OneLevel,
        // Its estimate says βn for long vectors; simulated it took
        // 1.1–3.0 βn (p = 100, 16 MiB, five networks; docs/smpi.md, "The
        // two-tree reduce"), and where the model would put it (p ≥ 17 off
        // the measured rules, shared hosts, and the two-level algorithm's
        // lanes, whose segments its estimate sizes at a lane's bytes) was
        // not measured: measured rules choose it.
        by_model: false,
    },
    Descriptor {
        algorithm: Algorithm::RabenseifnerHosts, name: "rabenseifner:hosts", aliases: &["halving_doubling_hosts"],
        source: "Rabenseifner 2004 §3.5, its removal step planned for the hosts (pairs within a host, aligned power-of-two shares)",
        collectives: ALL_FOUR, rank_ordered: false, canonical: NONE, uses_ring: false, uses_hosts: true, shared_memory: false,
        estimate: Some(halving_doubling::estimate), run: Some(halving_doubling_hosts::run), run_from: None, in_blocks: InBlocks::Split(halving_doubling::estimate_in_blocks),
        // Its estimate is §3.5's; where it differs (the hosts' shares) the
        // model does not see, so measured rules choose it.
        by_model: false,
    },
];

/// The error for a run of a collective the algorithm does not implement: the
/// selector never chooses one (`Algorithm::implements`), so this is a bug,
/// reported as `MPI_ERR_INTERN`, never a silent substitute.
pub fn not_implemented(name: &str, coll: Collective) -> MpiResult {
    log::error!("internal error: {name} was chosen for {}, which it does not implement", coll.name());
    Err(MpiError::Internal)
}

impl Algorithm {
    /// Every algorithm, in registry (C API) order.
    pub const ALL: [Algorithm; REGISTRY.len()] = {
        let mut all = [Algorithm::Native; REGISTRY.len()];
        let mut i = 0;
        while i < REGISTRY.len() {
            all[i] = REGISTRY[i].algorithm;
            i += 1;
        }
        all
    };

    pub fn descriptor(self) -> &'static Descriptor {
        &REGISTRY[self as usize]
    }

    /// The C API index.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name used in `FASTRED_ALGO`, tables and logs.
    pub fn name(self) -> &'static str {
        self.descriptor().name
    }

    /// By name or alias.
    pub fn from_name(s: &str) -> Option<Algorithm> {
        REGISTRY.iter().find(|d| d.name == s || d.aliases.contains(&s)).map(|d| d.algorithm)
    }

    /// Whether fastred implements `coll` with this algorithm.
    pub fn implements(self, coll: Collective) -> bool {
        self.descriptor().collectives.contains(&coll)
    }

    /// Whether the algorithm computes the canonical order of
    /// [`crate::reproducible`] for `coll`.
    pub fn computes_canonical_order(self, coll: Collective) -> bool {
        self.descriptor().canonical.contains(&coll)
    }

    /// Whether the algorithm combines strictly in rank order (so it can run
    /// non-commutative ops).
    pub fn preserves_rank_order(self) -> bool {
        self.descriptor().rank_ordered
    }

    /// Estimated time (s) of this algorithm for `coll` on `bytes` over `p`
    /// processes (its paper's formula; first order: no contention, no
    /// overlap); `None` where it does not implement `coll`, and for `native`.
    pub fn estimate(self, coll: Collective, bytes: usize, p: usize, m: &CostModel) -> Option<f64> {
        let f = self.descriptor().estimate.filter(|_| self.implements(coll))?;
        Some(if p <= 1 { 0.0 } else { f(coll, bytes, p, m) })
    }

    /// The algorithms valid in `FASTRED_ALGO` for `coll`, for messages.
    pub fn names_for(coll: Collective) -> Vec<&'static str> {
        REGISTRY.iter().filter(|d| d.collectives.contains(&coll)).map(|d| d.name).collect()
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_positions_are_the_discriminants_and_names_are_unique() {
        for (i, d) in REGISTRY.iter().enumerate() {
            assert_eq!(d.algorithm as usize, i, "{}", d.name);
            assert_eq!(Algorithm::from_name(d.name), Some(d.algorithm));
            assert_eq!(d.run.is_some(), d.algorithm != Algorithm::Native, "{}", d.name);
        }
        let mut names: Vec<&str> = REGISTRY.iter().flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied())).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate names");
    }

    #[test]
    fn folding_pairs_keeps_the_removal_step_within_the_hosts() {
        // 15 hosts of 16: the 2·112 paired ranks fill 14 hosts (8 survivors
        // each), the 15th keeps its 16, so its link carries twice as much.
        let m = CostModel { alpha: 1.0, beta: 1e-3, gamma: 1e-4, alpha_intra: 0.1, beta_intra: 1e-5 };
        let (n, coll) = (1 << 20, Collective::Allreduce);
        let within = m.within_host();
        let removal = halving_doubling::estimate(coll, n, 240, &within) - halving_doubling::estimate(coll, n, 128, &within);
        let rest = halving_doubling::estimate_in_blocks(coll, n, 16, 8, &m.sharing_links(2));
        let e = halving_doubling::estimate_in_blocks(coll, n, 15, 16, &m);
        assert!((e - (removal + rest)).abs() < 1e-9 * e, "{e} against {}", removal + rest);
        // The removal step pays α_i, β_i only: far below every step crossing.
        assert!(e < 0.3 * crossing(halving_doubling::estimate, coll, n, 15, 16, &m), "{e}");
        // 6 hosts of 4 (p = 24, p' = 16): 8 pairs fill 4 hosts (2 survivors
        // each), the other 2 hosts keep their 4.
        let rest = recursive_doubling::estimate_in_blocks(coll, n, 8, 2, &m.sharing_links(2));
        let removal = recursive_doubling::estimate(coll, n, 24, &within) - recursive_doubling::estimate(coll, n, 16, &within);
        let e = recursive_doubling::estimate_in_blocks(coll, n, 6, 4, &m);
        assert!((e - (removal + rest)).abs() < 1e-9 * e, "{e}");
        // One rank per host: every step crosses, as before.
        assert_eq!(halving_doubling::estimate_in_blocks(coll, n, 24, 1, &m), halving_doubling::estimate(coll, n, 24, &m));
    }
}
