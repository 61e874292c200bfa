//! Algorithm selection: a pure function of the call's shape, testable without MPI.
//!
//! The default rule is a first cut (Rabenseifner 2004 §4 in spirit: latency-
//! bound algorithms for short vectors, bandwidth-optimal ones for long); the
//! full table-driven selector with δ_expo,max arrives with the Rabenseifner family.

use std::fmt;

/// The four intercepted collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collective {
    Allreduce,
    Reduce,
    ReduceScatter,
    ReduceScatterBlock,
}

impl Collective {
    pub const ALL: [Collective; 4] =
        [Collective::Allreduce, Collective::Reduce, Collective::ReduceScatter, Collective::ReduceScatterBlock];

    /// The name used in `FASTRED_ALGO` and in logs.
    pub fn name(self) -> &'static str {
        match self {
            Collective::Allreduce => "allreduce",
            Collective::Reduce => "reduce",
            Collective::ReduceScatter => "reduce_scatter",
            Collective::ReduceScatterBlock => "reduce_scatter_block",
        }
    }

    pub fn from_name(s: &str) -> Option<Collective> {
        Collective::ALL.iter().copied().find(|c| c.name() == s)
    }

    /// The MPI function name, for messages.
    pub fn mpi_name(self) -> &'static str {
        match self {
            Collective::Allreduce => "MPI_Allreduce",
            Collective::Reduce => "MPI_Reduce",
            Collective::ReduceScatter => "MPI_Reduce_scatter",
            Collective::ReduceScatterBlock => "MPI_Reduce_scatter_block",
        }
    }
}

/// fastred's algorithms, plus `Native` (hand the call to the MPI library).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    Native,
    Ring,
    Binomial,
    RecursiveDoubling,
}

impl Algorithm {
    pub const ALL: [Algorithm; 4] = [Algorithm::Native, Algorithm::Ring, Algorithm::Binomial, Algorithm::RecursiveDoubling];

    /// The name used in `FASTRED_ALGO` and in logs.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Native => "native",
            Algorithm::Ring => "ring",
            Algorithm::Binomial => "binomial",
            Algorithm::RecursiveDoubling => "recursive_doubling",
        }
    }

    pub fn from_name(s: &str) -> Option<Algorithm> {
        Algorithm::ALL.iter().copied().find(|a| a.name() == s)
    }

    /// Whether fastred implements `coll` with this algorithm.
    pub fn implements(self, coll: Collective) -> bool {
        use Collective::*;
        match self {
            Algorithm::Native | Algorithm::Ring => true,
            Algorithm::Binomial => coll == Reduce,
            Algorithm::RecursiveDoubling => coll == Allreduce,
        }
    }

    /// Whether this algorithm can run a call with these traits.
    pub fn can_run(self, shape: &Shape) -> bool {
        // All current algorithms combine in an order other than rank order
        // somewhere, so they need a commutative op.
        self == Algorithm::Native || (self.implements(shape.coll) && shape.commutative)
    }

    /// The algorithms valid in `FASTRED_ALGO` for `coll`, for messages.
    pub fn names_for(coll: Collective) -> Vec<&'static str> {
        Algorithm::ALL.iter().filter(|a| a.implements(coll)).map(|a| a.name()).collect()
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
}

/// The selector's answer and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub algorithm: Algorithm,
    pub reason: String,
    /// The forced algorithm could not run this call (caller warns once).
    pub override_ignored: bool,
}

/// Vectors up to this size are latency-bound (Rabenseifner §4: "≤ 1 KiB").
pub const SHORT_VECTOR_BYTES: usize = 2048;

/// Choose an algorithm for `shape`; `forced` is the agreed `FASTRED_ALGO` choice.
pub fn choose(shape: &Shape, forced: Option<Algorithm>) -> Choice {
    let mut override_ignored = false;
    if let Some(a) = forced {
        if a.can_run(shape) {
            return Choice { algorithm: a, reason: "forced by FASTRED_ALGO".into(), override_ignored };
        }
        override_ignored = true;
    }
    let (algorithm, reason) = default_choice(shape);
    Choice { algorithm, reason: reason.into(), override_ignored }
}

fn default_choice(s: &Shape) -> (Algorithm, &'static str) {
    if !s.commutative {
        return (Algorithm::Native, "non-commutative op: no order-preserving algorithm yet");
    }
    let short = s.bytes <= SHORT_VECTOR_BYTES || s.elems < s.procs;
    match s.coll {
        Collective::Allreduce if short => (Algorithm::RecursiveDoubling, "short vector: recursive doubling (lg p latencies)"),
        Collective::Reduce if short => (Algorithm::Binomial, "short vector: binomial tree (lg p latencies)"),
        Collective::Allreduce | Collective::Reduce => (Algorithm::Ring, "long vector: ring (bandwidth-optimal for any p)"),
        Collective::ReduceScatter | Collective::ReduceScatterBlock => (Algorithm::Ring, "pairwise-exchange reduce-scatter"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(coll: Collective, bytes: usize, procs: usize) -> Shape {
        Shape { coll, bytes, elems: bytes / 8, procs, commutative: true }
    }

    #[test]
    fn short_and_long_vectors() {
        assert_eq!(choose(&shape(Collective::Allreduce, 64, 8), None).algorithm, Algorithm::RecursiveDoubling);
        assert_eq!(choose(&shape(Collective::Allreduce, 1 << 20, 8), None).algorithm, Algorithm::Ring);
        assert_eq!(choose(&shape(Collective::Reduce, 64, 8), None).algorithm, Algorithm::Binomial);
        assert_eq!(choose(&shape(Collective::Reduce, 1 << 20, 8), None).algorithm, Algorithm::Ring);
        assert_eq!(choose(&shape(Collective::ReduceScatter, 8, 8), None).algorithm, Algorithm::Ring);
        // Fewer elements than processes: latency-bound whatever the bytes.
        assert_eq!(choose(&shape(Collective::Allreduce, 8 * 50, 100), None).algorithm, Algorithm::RecursiveDoubling);
    }

    #[test]
    fn forced_choices_and_their_limits() {
        let c = choose(&shape(Collective::Allreduce, 64, 8), Some(Algorithm::Ring));
        assert_eq!((c.algorithm, c.override_ignored), (Algorithm::Ring, false));
        let c = choose(&shape(Collective::Reduce, 64, 8), Some(Algorithm::RecursiveDoubling));
        assert_eq!((c.algorithm, c.override_ignored), (Algorithm::Binomial, true));
        let mut s = shape(Collective::Allreduce, 1 << 20, 8);
        s.commutative = false;
        let c = choose(&s, Some(Algorithm::Ring));
        assert_eq!((c.algorithm, c.override_ignored), (Algorithm::Native, true));
        assert_eq!(choose(&s, Some(Algorithm::Native)).algorithm, Algorithm::Native);
    }

    #[test]
    fn names_round_trip() {
        for a in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(a.name()), Some(a));
        }
        for c in Collective::ALL {
            assert_eq!(Collective::from_name(c.name()), Some(c));
        }
        assert_eq!(Algorithm::names_for(Collective::Reduce), vec!["native", "ring", "binomial"]);
    }
}
