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
//!
//! The second fact is the network's cross-section under load ([`bisection`]):
//! how much of a lone pair's rate the hosts keep when all run halving &
//! doubling's exchanges at once. The first rank of each of the first H'
//! hosts (H' the largest power of two up to the hosts) exchanges half of
//! [`CROSS_BYTES`] with host h XOR 1, then a quarter with h XOR 2, and so
//! on to h XOR H'/2 (the reduce-scatter's vector halving with distance
//! doubling, Rabenseifner 2004 §3.5, which binary blocks run within their
//! blocks); the share is the time of hosts 0 and 1 doing the same alone
//! over the slowest host's with all at once. The steps that carry the most
//! bytes go to the nearest hosts, so a fat tree keeps nearly all even where
//! it is oversubscribed (the simulated one 86-100%, 2:1 83-100%, 4:1
//! 79-86% from 32 hosts), while a
//! 3D torus (22-78% from 10 hosts) and a dragonfly (44-72% from 8) share
//! links from the first steps on; there the ring's nearest-neighbour steps
//! win long vectors that the log-p algorithms win on the fat tree
//! (docs/smpi.md "The network's cross-section"). The table's
//! `bisection>=N` and `bisection<N` conditions see it (percent). Measured
//! only on fast networks (n½ at least [`FAST`]) over 4 hosts or more, on
//! communicators of a size some such rule covers; `FASTRED_BISECTION` (rank
//! 0's) replaces it.

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

/// n½ from which a network is fast enough for the cross-section to be
/// measured: the table's fast-network rules' bound (`nhalf>=8K`); on slower
/// ones the probe's messages would cost milliseconds.
pub const FAST: usize = 8 << 10;
/// Bytes each host sends in the cross-section probe, half in the first
/// step: 84 µs at 100 Gbit/s, long enough that the first steps' transfers
/// overlap.
pub const CROSS_BYTES: usize = 1 << 20;
/// Hosts from which the cross-section is measured (with fewer, hosts 0
/// and 1 are all there is).
pub const CROSS_HOSTS: usize = 4;

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

/// The cross-section in percent (1-100) from a lone pair's exchange time and
/// the slowest pair's with all exchanging at once (seconds).
pub fn cross_share(lone_s: f64, all_s: f64) -> usize {
    if !(lone_s > 0.0 && all_s > 0.0) {
        return 100;
    }
    ((100.0 * lone_s / all_s).round() as usize).clamp(1, 100)
}

/// The halving steps of the cross-section probe over `hosts` hosts: the
/// largest power of two H' up to `hosts`, and each step's distance (1, 2,
/// ..., H'/2) and bytes (half of [`CROSS_BYTES`], a quarter, ...).
pub fn cross_steps(hosts: usize) -> (usize, Vec<(usize, usize)>) {
    let top = 1usize << hosts.max(1).ilog2();
    let steps = (0..top.ilog2()).map(|k| (1usize << k, CROSS_BYTES >> (k + 1))).collect();
    (top, steps)
}

/// The network's cross-section in percent ([`cross_share`]) between the
/// hosts whose first ranks are `leaders` (in host order, at least
/// [`CROSS_HOSTS`]), on every rank of `comm`: collective. Hosts 0 and 1
/// run [`cross_steps`]'s exchanges alone (each step with the other), then
/// the first H' hosts all at once (host h with h XOR distance); each
/// pattern once untimed and [`ROUNDS`] times timed, behind a barrier, and
/// the fastest round counts (of the slowest host, for all at once).
pub fn bisection(comm: MPI_Comm, rank: usize, leaders: &[usize]) -> MpiResult<usize> {
    let (top, steps) = cross_steps(leaders.len());
    let my_host = leaders[..top].iter().position(|&r| r == rank);
    // Scratch: in an SMPI sweep with shared buffers, pages all simulated ranks share.
    let len = if my_host.is_some() { CROSS_BYTES / 2 } else { 0 };
    let (send, mut recv) = (crate::scratch::Scratch::new(len)?, crate::scratch::Scratch::new(len)?);
    let mut fastest = [f64::INFINITY; 2];
    for (i, alone) in [true, false].into_iter().enumerate() {
        let runs = my_host.filter(|&h| !alone || h < 2);
        for round in 0..=ROUNDS {
            mpi::barrier(comm)?;
            let start = mpi::wtime();
            if let Some(h) = runs {
                for &(distance, bytes) in &steps {
                    let q = leaders[if alone { h ^ 1 } else { h ^ distance }];
                    mpi::sendrecv(comm, TAG, q, &send[..bytes], q, &mut recv[..bytes])?;
                }
            }
            if round > 0 && runs.is_some() {
                fastest[i] = fastest[i].min(mpi::wtime() - start);
            }
        }
    }
    drop((send, recv));
    // Every rank's two times (unmeasured: 0), so that all compute one share.
    let mine: Vec<u8> = fastest.iter().flat_map(|t| if t.is_finite() { *t } else { 0.0 }.to_le_bytes()).collect();
    let mut all = vec![0u8; mine.len() * mpi::size(comm)?];
    mpi::allgather(comm, &mine, &mut all)?;
    let time = |i: usize| all.chunks(16).map(|c| f64::from_le_bytes(c[8 * i..8 * i + 8].try_into().unwrap())).fold(0.0, f64::max);
    let share = cross_share(time(0), time(1));
    if rank == 0 {
        log::info!("network: cross-section {share}% over {top} of {} hosts ({CROSS_BYTES} B halved {} times: {:.2} µs for two hosts alone, {:.2} µs all at once)", leaders.len(), steps.len(), time(0) * 1e6, time(1) * 1e6);
    }
    Ok(share)
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
    fn cross_share_is_the_lone_pairs_time_over_all_at_onces() {
        assert_eq!(cross_share(88.4e-6, 88.4e-6), 100);
        assert_eq!(cross_share(23.48e-6, 44.46e-6), 53);
        assert_eq!(cross_share(25.48e-6, 1343.55e-6), 2);
        // Faster all at once (noise) is still 100; never 0 (unknown).
        assert_eq!(cross_share(2e-6, 1e-6), 100);
        assert_eq!(cross_share(1e-9, 1.0), 1);
        assert_eq!(cross_share(0.0, 1.0), 100);
    }

    #[test]
    fn cross_steps_halve_the_bytes_while_the_distance_doubles() {
        assert_eq!(cross_steps(4), (4, vec![(1, CROSS_BYTES / 2), (2, CROSS_BYTES / 4)]));
        assert_eq!(cross_steps(7).0, 4);
        let (top, steps) = cross_steps(200);
        assert_eq!((top, steps.len()), (128, 7));
        assert_eq!(steps[6], (64, CROSS_BYTES / 128));
        // Every step's partner is among the first H' hosts, and pairs up.
        for (d, _) in steps {
            assert!((0..top).all(|h| h ^ d < top && (h ^ d) ^ d == h));
        }
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
