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
//! the share of a lone pair's rate that each pair of hosts keeps when every
//! host exchanges with the one at distance D (the largest power of two up to
//! half the hosts) at once, the traffic of the first steps of halving &
//! doubling and binary blocks. A full-bisection fat tree keeps it all (the
//! simulated one: 92-100%), a 3D torus mostly 3-52%, a 2:1 oversubscribed
//! fat tree 49-52%, a dragonfly 2-27%; where it is low the ring's
//! nearest-neighbour steps win long vectors that the log-p algorithms win on
//! the fat tree (docs/smpi.md "The network's cross-section"). The table's
//! `bisection>=N` and `bisection<N` conditions see it (percent). Measured
//! only on fast networks (n½ at least [`FAST`]) over 4 hosts or more, where
//! a table rule asks; `FASTRED_BISECTION` (rank 0's) replaces it.

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
/// Bytes each host sends in the cross-section probe: 84 µs at 100 Gbit/s,
/// long enough that every pair's transfer overlaps the others'.
pub const CROSS_BYTES: usize = 1 << 20;
/// Hosts from which the cross-section is measured (with fewer, the one pair
/// is the lone pair).
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

/// The pairs of the cross-section probe over `hosts` hosts: host h and host
/// h XOR D, D the largest power of two up to hosts / 2 (a host whose
/// partner would be beyond the last sits out).
pub fn cross_partner(h: usize, hosts: usize) -> Option<usize> {
    let d = 1usize << (hosts / 2).max(1).ilog2();
    Some(h ^ d).filter(|&q| q < hosts)
}

/// The network's cross-section in percent ([`cross_share`]) between the
/// hosts whose first ranks are `leaders` (in host order, at least
/// [`CROSS_HOSTS`]), on every rank of `comm`: collective. Host 0 and host D
/// exchange [`CROSS_BYTES`] alone, then every pair at once; each pattern
/// runs once untimed and [`ROUNDS`] times timed, behind a barrier, and the
/// fastest round counts (of the slowest pair, for all at once).
pub fn bisection(comm: MPI_Comm, rank: usize, leaders: &[usize]) -> MpiResult<usize> {
    let hosts = leaders.len();
    let my_host = leaders.iter().position(|&r| r == rank);
    let partner = my_host.and_then(|h| cross_partner(h, hosts));
    let lone = my_host.filter(|&h| h == 0 || Some(h) == cross_partner(0, hosts)).and(partner);
    let mut send = vec![0u8; if partner.is_some() { CROSS_BYTES } else { 0 }];
    let mut recv = send.clone();
    let mut fastest = [f64::INFINITY; 2];
    for (i, pair) in [lone, partner].into_iter().enumerate() {
        for round in 0..=ROUNDS {
            mpi::barrier(comm)?;
            let start = mpi::wtime();
            if let Some(q) = pair {
                mpi::sendrecv(comm, TAG, leaders[q], &send, leaders[q], &mut recv)?;
            }
            if round > 0 && pair.is_some() {
                fastest[i] = fastest[i].min(mpi::wtime() - start);
            }
        }
    }
    send.clear();
    // Every rank's two times (unmeasured: 0), so that all compute one share.
    let mine: Vec<u8> = fastest.iter().flat_map(|t| if t.is_finite() { *t } else { 0.0 }.to_le_bytes()).collect();
    let mut all = vec![0u8; mine.len() * mpi::size(comm)?];
    mpi::allgather(comm, &mine, &mut all)?;
    let time = |i: usize| all.chunks(16).map(|c| f64::from_le_bytes(c[8 * i..8 * i + 8].try_into().unwrap())).fold(0.0, f64::max);
    let share = cross_share(time(0), time(1));
    if rank == 0 {
        log::info!("network: cross-section {share}% over {hosts} hosts ({CROSS_BYTES} B: {:.2} µs alone, {:.2} µs all at once)", time(0) * 1e6, time(1) * 1e6);
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
    fn cross_partners_are_at_the_largest_power_of_two_up_to_half() {
        let partners = |hosts| (0..hosts).map(|h| cross_partner(h, hosts)).collect::<Vec<_>>();
        assert_eq!(partners(4), [Some(2), Some(3), Some(0), Some(1)]);
        assert_eq!(partners(5), [Some(2), Some(3), Some(0), Some(1), None]);
        // 40 hosts: D = 16; hosts 32-39 would pair with 48-55.
        let p40 = partners(40);
        assert_eq!((p40[0], p40[16], p40[31], p40[32], p40[39]), (Some(16), Some(0), Some(15), None, None));
        assert!((0..64).all(|h| cross_partner(h, 64) == Some(h ^ 32)));
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
