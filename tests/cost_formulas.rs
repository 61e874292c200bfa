//! The papers' cost terms, checked exactly with the counting transport: what
//! each process sends, in how many steps, for p = 1..64 and several n.
//! (Vectors of 1-byte elements; n chosen so every split is exact.)

use fastred::algo::recursive_halving::{self, Group, Segments};
use fastred::algo::{binary_blocks, binomial, halving_doubling, recursive_doubling, ring, Transport};
use fastred::select::delta_expo_max;
use fastred::op::{BuiltinReducer, Elem, OpKind};
use fastred::transport::counting::{Counting, Traffic};
use fastred::transport::inproc::InProcess;

type Algo = fn(&Counting<InProcess>, &BuiltinReducer, &mut [u8]) -> fastred::error::MpiResult;

/// Each rank's traffic when running `algo` on `n` bytes.
fn traffic(p: usize, n: usize, algo: Algo) -> Vec<Traffic> {
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    InProcess::run(p, |t| {
        let counting = Counting::new(t);
        let mut buf: Vec<u8> = (0..n).map(|i| (i * 7 + t.rank()) as u8).collect();
        algo(&counting, &op, &mut buf).unwrap();
        counting.traffic()
    })
}

fn pof2(p: usize) -> usize {
    1 << p.ilog2()
}

#[test]
fn ring_allreduce_sends_2_p_minus_1_over_p_n_in_2_p_minus_1_steps() {
    for p in 1..=64 {
        for m in [1, 3] {
            let n = p * m;
            for (r, t) in traffic(p, n, |t, op, b| ring::allreduce(t, op, b)).iter().enumerate() {
                assert_eq!(t.bytes_sent as usize, 2 * (p - 1) * n / p, "p={p} n={n} rank {r}");
                assert_eq!(t.bytes_received, t.bytes_sent);
                assert_eq!(t.steps as usize, 2 * (p - 1), "p={p}");
            }
        }
    }
}

#[test]
fn halving_doubling_power_of_two_sends_1_minus_1_over_p_n_per_phase() {
    for p in [1, 2, 4, 8, 16, 32, 64] {
        let n = p * 5;
        // The reduce-scatter phase alone.
        let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
        let phase = InProcess::run(p, |t| {
            let counting = Counting::new(t);
            let members: Vec<usize> = (0..p).collect();
            let mut buf = vec![1u8; n];
            recursive_halving::reduce_scatter(&counting, &op, &mut buf, Segments { n }, &Group { members: &members, me: t.rank() }).unwrap();
            counting.traffic()
        });
        for t in &phase {
            assert_eq!(t.bytes_sent as usize, n - n / p, "reduce-scatter phase, p={p}");
            assert_eq!(t.steps, p.ilog2() as u64);
        }
        for t in traffic(p, n, |t, op, b| halving_doubling::allreduce(t, op, b)) {
            assert_eq!(t.bytes_sent as usize, 2 * (n - n / p), "allreduce, p={p}");
            assert_eq!(t.steps, 2 * p.ilog2() as u64);
        }
    }
}

#[test]
fn halving_doubling_non_power_of_two_pays_the_removal_step() {
    // §3.5: the removed pairs add n/2 (exchange of halves) and n (the result
    // back to the removed process) on the surviving even rank, on top of
    // 2(1 − 1/p')n; the removed odd rank sends n/2 + n/2.
    for p in (3..=64).filter(|p: &usize| !p.is_power_of_two()) {
        let q = pof2(p);
        let removed = p - q;
        let n = 2 * q * 3;
        let body = 2 * (n - n / q);
        for (r, t) in traffic(p, n, |t, op, b| halving_doubling::allreduce(t, op, b)).iter().enumerate() {
            let want = if r >= 2 * removed { body } else if r % 2 == 0 { n / 2 + body + n } else { n / 2 + n / 2 };
            assert_eq!(t.bytes_sent as usize, want, "p={p} rank {r}");
        }
        let max = traffic(p, n, |t, op, b| halving_doubling::allreduce(t, op, b)).iter().map(|t| t.bytes_sent).max().unwrap();
        assert_eq!(max as usize, n / 2 + n + body, "p={p}: the extra n/2 + n terms");
    }
}

#[test]
fn halving_doubling_reduce_gathers_half_the_vector_to_the_root() {
    // Power of two: reduce-scatter (1 − 1/p)n per process, then the gather
    // tree: in each of its lg p steps half the active processes send, n/2 in
    // all; the root receives (1 − 1/p)n (the paper's (1 − 1/p')nβ_uni term).
    for p in [2, 4, 8, 16, 32] {
        let n = p * 4;
        let to_first: Algo = |t, op, b| halving_doubling::reduce(t, op, b, 0);
        let to_last: Algo = |t, op, b| halving_doubling::reduce(t, op, b, t.size() - 1);
        for (root, algo) in [(0, to_first), (p - 1, to_last)] {
            let got = traffic(p, n, algo);
            let total: u64 = got.iter().map(|t| t.bytes_sent).sum();
            assert_eq!(total as usize, p * (n - n / p) + p.ilog2() as usize * n / 2, "p={p}");
            assert_eq!(got[root].bytes_sent as usize, n - n / p, "root sends only in the reduce-scatter");
            assert_eq!(got[root].bytes_received as usize, 2 * (n - n / p), "p={p} root {root}");
        }
    }
}

#[test]
fn tree_reduce_sends_each_vector_once_in_lg_p_steps() {
    for p in 1..=64 {
        let n = 10;
        let got = traffic(p, n, |t, op, b| binomial::reduce(t, op, b, 0));
        for (r, t) in got.iter().enumerate() {
            assert_eq!(t.bytes_sent as usize, if r == 0 { 0 } else { n }, "p={p} rank {r}");
            assert!(t.steps <= (p as f64).log2().ceil() as u64, "p={p}");
        }
    }
}

#[test]
fn recursive_doubling_sends_lg_p_full_vectors() {
    for p in 1..=64 {
        let (q, n) = (pof2(p), 12);
        let removed = p - q;
        for (r, t) in traffic(p, n, |t, op, b| recursive_doubling::allreduce(t, op, b)).iter().enumerate() {
            let lg = q.ilog2() as usize;
            let want = if r >= 2 * removed { lg * n } else if r % 2 == 0 { n } else { lg * n + n };
            assert_eq!(t.bytes_sent as usize, want, "p={p} rank {r}");
        }
    }
}

#[test]
fn binary_blocks_is_halving_doubling_for_powers_of_two() {
    for p in [1, 2, 4, 8, 16, 32, 64] {
        let n = 3 * p + 1;
        assert_eq!(
            traffic(p, n, |t, op, b| binary_blocks::allreduce(t, op, b)),
            traffic(p, n, |t, op, b| halving_doubling::allreduce(t, op, b)),
            "p={p}"
        );
    }
}

#[test]
fn binary_blocks_avoids_the_removal_overhead_when_delta_expo_max_is_small() {
    // §3.6: with δ_expo,max = 1 the busiest process of binary blocks sends less
    // than the busiest of halving & doubling (which pays n/2 + n extra).
    for p in (3..=64).filter(|&p: &usize| !p.is_power_of_two() && delta_expo_max(p) == 1) {
        let n = 64 * 3;
        let busiest = |algo: Algo| traffic(p, n, algo).iter().map(|t| t.bytes_sent).max().unwrap();
        let bb = busiest(|t, op, b| binary_blocks::allreduce(t, op, b));
        let hd = busiest(|t, op, b| halving_doubling::allreduce(t, op, b));
        assert!(bb < hd, "p={p} (δ=1): binary blocks {bb} B vs halving & doubling {hd} B");
    }
}
