//! What the selector knows of the network between hosts: Hockney's
//! half-performance length n½ = α/β (Hockney, "The communication challenge
//! for MPP", Parallel Computing 20, 1994), the message size whose start-up
//! time α equals its transfer time n·β. Short-vector algorithms trade
//! messages for bytes, so which one wins depends on it: the table's rules
//! measured on the 50 Mbit/s emulated cluster (n½ 110-160 B) contradict
//! those measured at 100 Gbit/s in simulation (n½ 25-38 KB) by up to 3.6x
//! (docs/smpi.md "The network's n½"). The table's `nhalf>=N` and `nhalf<N` conditions see it.
//!
//! Measured once per communicator whose ranks span several hosts, and only
//! where the table has such a rule: rank 0 and the first rank on another host
//! exchange messages of [`SMALL`] and [`LARGE`] bytes, [`ROUNDS`] times each
//! after one untimed exchange; the fastest round trips give α and β, and rank 0
//! broadcasts n½ so that every rank chooses alike. `FASTRED_NHALF` (rank 0's)
//! replaces the measurement.

use crate::error::MpiResult;
use crate::ffi::MPI_Comm;
use crate::mpi;
use std::os::raw::c_int;

/// Bytes of the latency probe.
pub const SMALL: usize = 8;
/// Bytes of the bandwidth probe: long enough that its transfer shows against
/// α at 100 Gbit/s (1.3 µs), short enough to cost milliseconds at 50 Mbit/s.
pub const LARGE: usize = 16 << 10;
/// Timed round trips per size.
pub const ROUNDS: usize = 4;
/// fastred's transports use another tag; the exchange finishes before any.
const TAG: c_int = 0x7a3e;

/// n½ in bytes from the one-way times of a [`SMALL`] and a [`LARGE`] message
/// (seconds). Where the long message was no slower, the link's bandwidth is
/// beyond what the exchange resolves: `usize::MAX`.
pub fn half_length(small_s: f64, large_s: f64) -> usize {
    let beta = (large_s - small_s) / (LARGE - SMALL) as f64;
    if beta.is_nan() || beta <= 0.0 {
        return usize::MAX;
    }
    let alpha = (small_s - SMALL as f64 * beta).max(0.0);
    // `as` saturates: an α vastly above β is usize::MAX.
    (alpha / beta).round() as usize
}

/// n½ of the link from rank 0 to `partner` (another host's rank), on every
/// rank of `comm`: collective.
pub fn measure(comm: MPI_Comm, rank: usize, partner: usize) -> MpiResult<usize> {
    let mut agreed = [0u8; 8];
    if rank == 0 || rank == partner {
        let mut buf = vec![0u8; LARGE];
        let mut fastest = [f64::INFINITY; 2];
        for (i, len) in [SMALL, LARGE].into_iter().enumerate() {
            for round in 0..=ROUNDS {
                let start = mpi::wtime();
                if rank == 0 {
                    mpi::send(comm, partner, TAG, &buf[..len])?;
                    mpi::recv(comm, partner, TAG, &mut buf[..len])?;
                } else {
                    mpi::recv(comm, 0, TAG, &mut buf[..len])?;
                    mpi::send(comm, 0, TAG, &buf[..len])?;
                }
                if round > 0 {
                    fastest[i] = fastest[i].min(mpi::wtime() - start);
                }
            }
        }
        if rank == 0 {
            let (small, large) = (fastest[0] / 2.0, fastest[1] / 2.0);
            let nhalf = half_length(small, large);
            log::info!("network: n½ = {nhalf} bytes between rank 0 and rank {partner} ({SMALL} B in {:.2} µs, {LARGE} B in {:.2} µs one way)", small * 1e6, large * 1e6);
            agreed = (nhalf as u64).to_le_bytes();
        }
    }
    mpi::bcast(comm, &mut agreed, 0)?;
    Ok(usize::try_from(u64::from_le_bytes(agreed)).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_length_is_alpha_over_beta() {
        // α = 10 µs, β = 1 ns/B: n½ = 10 000 bytes.
        let (alpha, beta) = (10e-6, 1e-9);
        let t = |n: usize| alpha + n as f64 * beta;
        assert_eq!(half_length(t(SMALL), t(LARGE)), 10_000);
        // 50 Mbit/s with 300 µs: about 1.9 KB; 100 Gbit/s with 3 µs: 37.5 KB.
        let t = |alpha: f64, beta: f64, n: usize| alpha + n as f64 * beta;
        assert_eq!(half_length(t(300e-6, 160e-9, SMALL), t(300e-6, 160e-9, LARGE)), 1875);
        assert_eq!(half_length(t(3e-6, 0.08e-9, SMALL), t(3e-6, 0.08e-9, LARGE)), 37_500);
    }

    #[test]
    fn a_long_message_no_slower_than_a_short_one_is_an_unresolved_bandwidth() {
        assert_eq!(half_length(2e-6, 2e-6), usize::MAX);
        assert_eq!(half_length(2e-6, 1e-6), usize::MAX);
        assert_eq!(half_length(f64::NAN, 1e-6), usize::MAX);
        // No start-up cost at all: n½ = 0.
        assert_eq!(half_length(SMALL as f64 * 1e-9, LARGE as f64 * 1e-9), 0);
    }
}
