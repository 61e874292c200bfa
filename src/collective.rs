//! The four collectives fastred intercepts.

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

    /// The name used in `FASTRED_ALGO`, tables and logs.
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
