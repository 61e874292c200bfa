//! The cost of fastred's own reductions inside a SimGrid SMPI simulation.
//!
//! SMPI runs every rank in one OS thread and, with
//! `--cfg=smpi/simulate-computation:no`, charges nothing for the code between
//! MPI calls, so a reduction loop would be free and results would not depend
//! on the machine's load. Instead, the SMPI build charges each reduction of
//! `b` bytes `γ·b` seconds of simulated computation (`mpi::simulate_computation`:
//! `smpi_execute_flops` of γ·b times the host's speed), with γ per op and element type measured on this
//! machine from fastred's own kernels (`cargo run --release --example
//! kernel_cost`; numbers in `docs/smpi.md`).
//! Deterministic, so simulated times are reproducible bit for bit.
//!
//! SMPI's built-in collectives charge nothing for their reductions: with
//! `FASTRED_SMPI_FREE_REDUCTIONS=1` fastred charges nothing either, for the
//! comparison on equal terms; both are reported. In the MPICH and Open MPI
//! builds this module does nothing.

use crate::config;
use crate::op::{Elem, OpKind};

/// γ in seconds per byte of one operand for `op` on `elem` (`None`: a user op,
/// charged as the commonest case, SUM on double). Memory-bound rates (16 MiB
/// operands: each element read twice and written once), rounded; in cache
/// (256 KiB) the vectorised kernels run at about a third of these.
pub fn gamma(kernel: Option<(OpKind, Elem)>) -> f64 {
    use Elem::*;
    use OpKind::*;
    let ns_per_byte = match kernel {
        // x87 80-bit arithmetic in the C shim, not vectorised
        Some((Prod, LongDoubleComplex)) => 1.08,
        Some((_, LongDouble | LongDoubleComplex | LongDoubleInt)) => 0.30,
        // a complex product is six flops per element
        Some((Prod, C32 | C64)) => 0.12,
        // every other kernel streams at memory speed: 0.052-0.071 measured
        Some(_) | None => 0.06,
    };
    ns_per_byte * 1e-9
}

/// Charge the simulation for reducing `bytes` bytes (a no-op outside SMPI).
/// Returns whether the reduction must run: not with
/// `FASTRED_SMPI_SHARED_BUFFERS`, whose operands are pages all simulated
/// ranks share (garbage; skipping saves the simulation's CPU, not simulated time).
pub fn charge_reduction(kernel: Option<(OpKind, Elem)>, bytes: usize) -> bool {
    if !cfg!(fastred_mpi = "smpi") {
        return true;
    }
    let local = config::local();
    if bytes > 0 && !local.smpi_free_reductions {
        crate::mpi::simulate_computation(gamma(kernel) * bytes as f64);
    }
    !local.smpi_shared_buffers
}
