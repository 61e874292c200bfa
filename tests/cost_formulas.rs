//! The papers' cost terms, checked exactly with the counting transport: what
//! each process sends, in how many steps, for p = 1..64 and several n.
//! (Vectors of 1-byte elements; n chosen so every split is exact.)

mod common;
use common::{scattered_hosts, scrambled};

use fastred::algo::host_map::HostMap;
use fastred::algo::halving_groups::{self, Group, Segments};
use fastred::algo::{binary_blocks, binomial, fibonacci_tree, halving_doubling, knomial_tree, pairwise, pairwise_pipeline, pipeline, recursive_doubling, ring, two_tree, Forwarding, Outbox, Transport};
use fastred::select::delta_expo_max;
use fastred::op::{BuiltinReducer, Elem, OpKind};
use fastred::transport::counting::{Counting, Traffic};
use fastred::transport::inproc::InProcess;
use fastred::algo::circulant::{self, SkipKind, Skips};
use fastred::algo::registry::{Job, REGISTRY};
use fastred::algo::Blocks;
use fastred::model::CostModel;
use fastred::select::Collective;
use fastred::op::Reducer;
use fastred::transport::solo::Solo;
use std::cell::Cell;

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

/// Every registered algorithm, on every collective it implements, counted:
/// what the processes send is what they receive (no message lost or left
/// over), and every process whose result depends on the others receives at
/// least the (1 − 1/p) share of its result that it cannot hold itself — a
/// lower bound no correct algorithm can beat. (The exact terms of each
/// algorithm's paper are checked by the tests below. The shared-memory
/// algorithm sends no messages: its processes read each other's slots; its
/// own test is below.)
#[test]
fn every_registered_algorithm_conserves_messages_and_meets_the_lower_bound() {
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    let model = CostModel::default();
    for d in REGISTRY.iter().filter(|d| d.run.is_some() && !d.shared_memory) {
        for &coll in d.collectives {
            for p in 1..=20 {
                let n = 60 * p + 7;
                let even = Blocks::even(n, p);
                let root = p / 2;
                let per_rank = InProcess::run(p, |t| {
                    let counting = Counting::new(t);
                    let ring = scrambled(p);
                    let hosts = scattered_hosts(p);
                    let job = Job { coll, blocks: &even, root, commutative: true, ring: &ring, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: common::default_table(), nhalf: 0 };
                    let mut buf: Vec<u8> = (0..n).map(|i| (i * 7 + t.rank()) as u8).collect();
                    (d.run.unwrap())(&counting, &op, &mut buf, &job).unwrap();
                    counting.traffic()
                });
                let name = format!("{} {} p={p}", d.name, coll.name());
                let sum = |f: fn(&Traffic) -> u64| per_rank.iter().map(f).sum::<u64>();
                assert_eq!(sum(|t| t.bytes_sent), sum(|t| t.bytes_received), "{name}: bytes sent vs received");
                assert_eq!(sum(|t| t.messages_sent), sum(|t| t.messages_received), "{name}: messages sent vs received");
                let floor = |result: usize| (result as f64 * (1.0 - 1.0 / p as f64)).floor() as u64;
                for (r, t) in per_rank.iter().enumerate() {
                    let needed = match coll {
                        Collective::Allreduce => floor(n),
                        Collective::Reduce if r == root => floor(n),
                        Collective::Reduce => 0,
                        Collective::ReduceScatter | Collective::ReduceScatterBlock => floor(even.count(r)),
                    };
                    assert!(t.bytes_received >= needed, "{name}: rank {r} received {} < {needed}", t.bytes_received);
                }
            }
        }
    }
}

fn pof2(p: usize) -> usize {
    1 << p.ilog2()
}

#[test]
fn pairwise_allreduce_sends_2_p_minus_1_over_p_n_in_2_p_minus_1_steps() {
    for p in 1..=64 {
        for m in [1, 3] {
            let n = p * m;
            for (r, t) in traffic(p, n, |t, op, b| pairwise::allreduce(t, op, b)).iter().enumerate() {
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
            halving_groups::reduce_scatter(&counting, &op, &mut buf, Segments { n }, &Group { members: &members, me: t.rank() }).unwrap();
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
fn halving_doubling_reduce_scatter_sends_all_but_its_own_slot() {
    // Power of two: each process sends (1 − 1/p)n, all but its own block, and
    // ends with it (no final permutation). Otherwise the halving runs over
    // slots (a pair's slot is two blocks), the removal step adds n/2 on both
    // members of a pair and n/2 from the odd one, and the even one hands the
    // odd one its block.
    for p in 1..=33 {
        let q = pof2(p);
        let removed = p - q;
        let n = 4 * 2 * q * p;
        let got = traffic(p, n, |t, op, b| halving_doubling::reduce_scatter(t, op, b, &Blocks::even(b.len(), t.size())));
        let block = n / p;
        for (r, t) in got.iter().enumerate() {
            let want = match r {
                _ if r >= 2 * removed => n - block,
                _ if r % 2 == 1 => n / 2 + n / 2,
                _ => n / 2 + (n - 2 * block) + block,
            };
            assert_eq!(t.bytes_sent as usize, want, "p={p} rank {r}");
            assert!(t.steps as usize <= q.trailing_zeros() as usize + 3 * usize::from(removed > 0), "p={p} rank {r}: {} steps", t.steps);
        }
    }
}

#[test]
fn pairwise_pipeline_gives_the_root_n_bytes_each_way() {
    // The root sends its whole input out and receives the whole result, n
    // each way (a pipelined chain's root load); every process takes (C+1)(p−1)
    // steps; a worker sends its input for the other blocks plus its own finished
    // blocks: n − n/(p−1) + n/(p−1) = n.
    for p in 2..=12 {
        for (chunks, root) in [(1, 0), (3, p - 1), (5, p / 2)] {
            let n = (p - 1) * chunks * 4;
            let algo = |t: &Counting<InProcess>, op: &BuiltinReducer, b: &mut [u8], root: usize, c: usize| pairwise_pipeline::reduce(t, op, b, root, c);
            let got = InProcess::run(p, |t| {
                let counting = Counting::new(t);
                let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
                let mut buf: Vec<u8> = (0..n).map(|i| (i * 7 + t.rank()) as u8).collect();
                algo(&counting, &op, &mut buf, root, chunks).unwrap();
                counting.traffic()
            });
            for (r, t) in got.iter().enumerate() {
                assert_eq!(t.bytes_sent as usize, n, "p={p} chunks={chunks} rank {r}");
                assert_eq!(t.steps as usize, (chunks + 1) * (p - 1), "p={p} chunks={chunks} rank {r}");
            }
            assert_eq!(got[root].bytes_received as usize, n, "p={p}: the root receives the result once");
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
fn knomial_tree_reduce_sends_each_vector_once_in_log_k_levels() {
    let k = knomial_tree::RADIX;
    for p in 1..=70 {
        let n = 10;
        let levels = (0..).find(|l| k.pow(*l) >= p).unwrap() as u64;
        for root in [0, p / 2, p - 1] {
            let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
            let got = InProcess::run(p, |t| {
                let counting = Counting::new(t);
                let mut buf = vec![t.rank() as u8; n];
                knomial_tree::reduce(&counting, &op, &mut buf, root).unwrap();
                counting.traffic()
            });
            for (r, t) in got.iter().enumerate() {
                assert_eq!(t.bytes_sent as usize, if r == root { 0 } else { n }, "p={p} root {root} rank {r}");
                // At most k - 1 children per level, plus the send to the parent.
                assert!(t.messages_received <= (k as u64 - 1) * levels, "p={p} rank {r}");
                assert!(t.steps <= (k as u64 - 1) * levels + 1, "p={p} rank {r}");
            }
            // The root receives from k - 1 children on every level (fewer only in the last).
            let full_levels = (0u32..).take_while(|l| k.pow(l + 1) <= p).count() as u64;
            assert!(got[root].messages_received >= (k as u64 - 1) * full_levels, "p={p} root {root}");
        }
    }
}

#[test]
fn knomial_tree_root_waits_once_for_short_vectors_and_level_by_level_for_long_ones() {
    // p = 21: the root's children are 1-3, 4, 8, 12 and 16 (levels 1, 4, 16).
    let p = 21;
    for (n, waits) in [(8, 1), (40 << 10, 2), (100 << 10, 3)] {
        let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
        let got = InProcess::run(p, |t| {
            let counting = Counting::new(t);
            let mut buf: Vec<u8> = (0..n).map(|i| (t.rank() * 7 + i) as u8).collect();
            knomial_tree::reduce(&counting, &op, &mut buf, 0).unwrap();
            (counting.traffic(), buf)
        });
        // 8 B: every level's receives at once; 40 KiB: levels 1 and 4 (6
        // vectors, 240 KiB) then level 16; 100 KiB: one level at a time.
        assert_eq!(got[0].0.receive_waits, waits, "n = {n}");
        assert_eq!(got[0].0.messages_received, 7, "n = {n}");
        let want: Vec<u8> = (0..n).map(|i| (0..p).fold(0u8, |x, r| x ^ (r * 7 + i) as u8)).collect();
        assert!(got[0].1 == want, "n = {n}: wrong result at the root");
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

#[test]
fn binary_blocks_reduce_scatter_is_the_halving_then_its_blocks_to_their_owners() {
    // For p = 2^k there is one block: recursive halving leaves process q with
    // segment bitreverse(q), which for even blocks of n/p is block
    // bitreverse(q); it then goes to its owner unless that is q itself.
    for p in [1usize, 2, 4, 8, 16, 32, 64] {
        let n = 5 * p;
        let blocks = Blocks::even(n, p);
        let per_rank = traffic(p, n, |t, op, b| binary_blocks::reduce_scatter(t, op, b, &Blocks::even(b.len(), t.size())));
        let k = p.trailing_zeros();
        for (q, t) in per_rank.iter().enumerate() {
            let owner = if k == 0 { 0 } else { q.reverse_bits() >> (usize::BITS - k) };
            let delivery = if owner == q { 0 } else { blocks.count(owner) };
            assert_eq!(t.bytes_sent as usize, n - n / p + delivery, "p={p} rank {q}");
            assert_eq!(t.messages_sent as usize, k as usize + usize::from(delivery > 0), "p={p} rank {q}");
        }
    }
}

// ---- Träff's circulant algorithms: counts for every p up to 1024 ----------


/// Counts the elements it reduces (blocks of one 1-byte element: blocks).
struct CountingReducer(Cell<usize>);

impl Reducer for CountingReducer {
    fn elem_size(&self) -> usize {
        1
    }
    fn reduce(&self, src: &[u8], _dst: &mut [u8], _src_is_left: bool) -> fastred::error::MpiResult {
        self.0.set(self.0.get() + src.len());
        Ok(())
    }
}

fn ceil_lg(p: usize) -> usize {
    if p <= 1 { 0 } else { (p - 1).ilog2() as usize + 1 }
}

fn sample_ranks(p: usize) -> Vec<usize> {
    if p <= 64 { (0..p).collect() } else { vec![0, 1, p / 3, p / 2, p - 2, p - 1] }
}

#[test]
fn circulant_reduce_scatter_p_minus_1_blocks_in_ceil_lg_p_rounds() {
    for p in 1..=1024 {
        let skips = Skips::new(SkipKind::Halving, p);
        let blocks = Blocks::even(p, p); // one 1-byte element per block
        for rank in sample_ranks(p) {
            let (t, op) = (Solo::new(rank, p), CountingReducer(Cell::new(0)));
            let mut buf = vec![0u8; p];
            circulant::reduce_scatter(&t, &op, &mut buf, &blocks, &skips).unwrap();
            let ev = t.events();
            assert_eq!(ev.len(), ceil_lg(p), "p={p}: rounds");
            let sent: usize = ev.iter().filter_map(|e| e.sent).map(|(_, b)| b).sum();
            let received: usize = ev.iter().filter_map(|e| e.received).map(|(_, b)| b).sum();
            assert_eq!((sent, received, op.0.get()), (p - 1, p - 1, p - 1), "p={p} rank {rank}: blocks sent, received, reduced");
        }
    }
}

#[test]
fn circulant_allreduce_2_p_minus_1_blocks_in_2_ceil_lg_p_rounds() {
    for p in 1..=1024 {
        let skips = Skips::new(SkipKind::Halving, p);
        for rank in sample_ranks(p) {
            let (t, op) = (Solo::new(rank, p), CountingReducer(Cell::new(0)));
            let mut buf = vec![0u8; p];
            circulant::allreduce(&t, &op, &mut buf, &skips).unwrap();
            let ev = t.events();
            assert_eq!(ev.len(), 2 * ceil_lg(p), "p={p}: rounds");
            let sent: usize = ev.iter().filter_map(|e| e.sent).map(|(_, b)| b).sum();
            let received: usize = ev.iter().filter_map(|e| e.received).map(|(_, b)| b).sum();
            assert_eq!((sent, received, op.0.get()), (2 * (p - 1), 2 * (p - 1), p - 1), "p={p} rank {rank}");
        }
    }
}

/// The circulant's rotations copy the vector in at most two pieces each
/// way, whatever p: a copy per block had made a one-element allreduce cost
/// O(p) per call (about 0.1 ms at p = 4096, `examples/cpu_per_call.rs`).
#[test]
fn circulant_rotations_copy_at_most_two_pieces_whatever_p() {
    for p in [2, 3, 22, 100, 1000, 4096] {
        for rank in [0, 1, p / 2, p - 1] {
            for n in [1, p + 3] {
                let skips = Skips::new(SkipKind::Halving, p);
                let copies = |run: &dyn Fn(&Solo, &CountingReducer, &mut [u8])| {
                    let (t, op) = (Solo::new(rank, p), CountingReducer(Cell::new(0)));
                    run(&t, &op, &mut vec![0u8; n]);
                    t.copies()
                };
                let allreduce = copies(&|t, op, buf| circulant::allreduce(t, op, buf, &skips).unwrap());
                let reduce_scatter = copies(&|t, op, buf| circulant::reduce_scatter(t, op, buf, &Blocks::even(n, p), &skips).unwrap());
                let reduce = copies(&|t, op, buf| circulant::reduce(t, op, buf, p / 3, &skips).unwrap());
                // In and out: 2 + 2; in and the result: 2 + 1; and the root's gather: 2 + 2 more.
                assert!(allreduce <= 4 && reduce_scatter <= 3 && reduce <= 7, "p={p} rank {rank} n={n}: {allreduce}, {reduce_scatter}, {reduce} copies");
            }
        }
    }
}

#[test]
fn circulant_p_22_worked_example() {
    // Träff §2: for p = 22 the skips are 11, 6, 3, 2, 1 and processor 21
    // receives partial results from 10, 15, 18, 19 and finally 20.
    let skips = Skips::new(SkipKind::Halving, 22);
    assert_eq!(skips.as_slice(), &[11, 6, 3, 2, 1]);
    let (t, op) = (Solo::new(21, 22), CountingReducer(Cell::new(0)));
    let mut buf = vec![0u8; 22];
    circulant::reduce_scatter(&t, &op, &mut buf, &Blocks::even(22, 22), &skips).unwrap();
    let from: Vec<usize> = t.events().iter().filter_map(|e| e.received).map(|(f, _)| f).collect();
    assert_eq!(from, vec![10, 15, 18, 19, 20]);
    let to: Vec<usize> = t.events().iter().filter_map(|e| e.sent).map(|(to, _)| to).collect();
    assert_eq!(to, vec![(21 + 11) % 22, (21 + 6) % 22, (21 + 3) % 22, (21 + 2) % 22, 0]);
}

#[test]
fn other_skip_sequences_also_send_p_minus_1_blocks() {
    for p in 1..=200 {
        for kind in [SkipKind::PowersOfTwo, SkipKind::Linear, SkipKind::Sqrt] {
            let skips = Skips::new(kind, p);
            let (t, op) = (Solo::new(p / 2, p), CountingReducer(Cell::new(0)));
            let mut buf = vec![0u8; p];
            circulant::reduce_scatter(&t, &op, &mut buf, &Blocks::even(p, p), &skips).unwrap();
            let sent: usize = t.events().iter().filter_map(|e| e.sent).map(|(_, b)| b).sum();
            assert_eq!((sent, op.0.get(), t.events().len()), (p - 1, p - 1, skips.as_slice().len()), "{kind:?} p={p}");
        }
    }
}

/// Halving & doubling's reduce-scatter lays the vector out once (its slots
/// in bit-reversed order) and copies its own slot back: two copies and one
/// fold per step, whatever p, where packing the strided slots had cost a
/// copy and a fold per slot and step (O(p) a call).
#[test]
fn halving_doubling_reduce_scatter_copies_twice_and_folds_once_a_step() {
    for p in [2, 5, 64, 100, 1024, 4096] {
        for rank in [0, 1, p / 2, p - 1] {
            let (t, op) = (Solo::new(rank, p), Folds(Cell::new(0)));
            halving_doubling::reduce_scatter(&t, &op, &mut vec![0u8; p], &Blocks::even(p, p)).unwrap();
            let removed = p - (1 << p.ilog2());
            let (removal, survives) = (usize::from(rank < 2 * removed), rank >= 2 * removed || rank % 2 == 0);
            let expected = if survives { (2, removal + p.ilog2() as usize) } else { (0, removal) };
            assert_eq!((t.copies(), op.0.get()), expected, "p={p} rank {rank}: copies, folds");
        }
    }
}

/// Counts reduction calls.
struct Folds(Cell<usize>);

impl Reducer for Folds {
    fn elem_size(&self) -> usize {
        1
    }
    fn reduce(&self, _src: &[u8], _dst: &mut [u8], _src_is_left: bool) -> fastred::error::MpiResult {
        self.0.set(self.0.get() + 1);
        Ok(())
    }
}

#[test]
fn recursive_halving_reduce_scatter_sends_1_minus_1_over_p_n_for_powers_of_two() {
    use fastred::algo::recursive_halving;
    for p in [2, 4, 8, 16, 32, 64] {
        let n = 3 * p;
        let blocks = Blocks::even(n, p);
        for rank in 0..p {
            let (t, op) = (Solo::new(rank, p), CountingReducer(Cell::new(0)));
            let mut buf = vec![0u8; n];
            recursive_halving::reduce_scatter(&t, &op, &mut buf, &blocks).unwrap();
            let sent: usize = t.events().iter().filter_map(|e| e.sent).map(|(_, b)| b).sum();
            assert_eq!((sent, t.events().len()), (n - n / p, p.ilog2() as usize), "p={p} rank {rank}");
        }
    }
}

/// Records every peer a process sends to.
struct Peers<'a> {
    inner: &'a Counting<'a, InProcess>,
    sent_to: std::cell::RefCell<std::collections::BTreeSet<usize>>,
}

impl Transport for Peers<'_> {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn send(&self, to: usize, data: &[u8]) -> fastred::error::MpiResult {
        self.sent_to.borrow_mut().insert(to);
        self.inner.send(to, data)
    }
    fn recv(&self, from: usize, buf: &mut [u8]) -> fastred::error::MpiResult {
        self.inner.recv(from, buf)
    }
    fn sendrecv(&self, to: usize, data: &[u8], from: usize, buf: &mut [u8]) -> fastred::error::MpiResult {
        self.sent_to.borrow_mut().insert(to);
        self.inner.sendrecv(to, data, from, buf)
    }
    fn outbox<'d>(&self, body: &mut dyn FnMut(&mut dyn Outbox<'d>) -> fastred::error::MpiResult) -> fastred::error::MpiResult {
        self.inner.outbox(&mut |inner| {
            body(&mut Forwarding {
                inner,
                before: |to, _: &[u8]| {
                    self.sent_to.borrow_mut().insert(to);
                    to
                },
            })
        })
    }
    fn receives_ahead(&self, from: usize, len: usize) -> bool {
        self.inner.receives_ahead(from, len)
    }
    fn inbox(&self, slots: usize, slot_len: usize, body: &mut dyn FnMut(&mut dyn fastred::algo::Inbox) -> fastred::error::MpiResult) -> fastred::error::MpiResult {
        self.inner.inbox(slots, slot_len, body)
    }
}

#[test]
fn ring_sends_2_n_minus_1_over_n_only_to_the_ring_successor() {
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    // With and without each step's receive posted a step ahead.
    for ahead in [false, true] {
        for p in 1..=40 {
            let order = scrambled(p);
            for m in [1, 5] {
                let n = p * m;
                let body = |t: &InProcess| {
                    let counting = Counting::new(t);
                    let peers = Peers { inner: &counting, sent_to: Default::default() };
                    let mut buf: Vec<u8> = (0..n).map(|i| (i * 7 + t.rank()) as u8).collect();
                    ring::allreduce(&peers, &op, &mut buf, &order).unwrap();
                    (counting.traffic(), peers.sent_to.into_inner())
                };
                let got = if ahead { InProcess::run_receiving_ahead(p, body) } else { InProcess::run(p, body) };
                for (r, (t, peers)) in got.iter().enumerate() {
                    // Lemma 2's lower bound 2(N−1)/N·n, met with equality.
                    assert_eq!(t.bytes_sent as usize, 2 * (p - 1) * n / p, "p={p} n={n} rank {r}");
                    assert_eq!(t.bytes_received, t.bytes_sent);
                    // N−1 steps a phase; receives posted ahead add each phase's
                    // inbox, which the counting transport counts as one step.
                    let inboxes = if ahead && p > 1 { 2 } else { 0 };
                    assert_eq!(t.steps as usize, 2 * (p - 1) + inboxes, "ahead={ahead} p={p}");
                    let at = order.iter().position(|&x| x == r).unwrap();
                    let successor = order[(at + 1) % p];
                    let want: std::collections::BTreeSet<usize> = (p > 1).then_some(successor).into_iter().collect();
                    assert_eq!(peers, &want, "p={p} rank {r} sends only to its ring successor");
                }
            }
        }
    }
}

#[test]
fn pipeline_and_fibonacci_reduce_send_each_segment_once_per_link() {
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    let model = fastred::model::CostModel::default();
    for p in 1..=30 {
        let n = 1000;
        for (name, fibonacci) in [("pipeline", false), ("fibonacci_tree", true)] {
            let got = InProcess::run(p, |t| {
                let counting = Counting::new(t);
                let mut buf = vec![1u8; n];
                if fibonacci {
                    fibonacci_tree::reduce(&counting, &op, &mut buf, 0, Some(100), &model).unwrap();
                } else {
                    pipeline::reduce(&counting, &op, &mut buf, 0, Some(100), &model).unwrap();
                }
                counting.traffic()
            });
            // Every non-root sends its whole vector to its parent, in 10 segments.
            for (r, t) in got.iter().enumerate() {
                let (bytes, messages) = if r == 0 { (0, 0) } else { (n as u64, 10) };
                assert_eq!((t.bytes_sent, t.messages_sent), (bytes, messages), "{name} p={p} rank {r}");
            }
            let received: u64 = got.iter().map(|t| t.bytes_received).sum();
            assert_eq!(received, (n * (p - 1)) as u64, "{name} p={p}");
        }
    }
}

/// The two-tree reduce (Sanders, Speck & Träff 2009): every non-root sends
/// its n bytes once (half up each tree) in 2k messages, and no process
/// receives more than n, where one pipelined binary tree's inner nodes
/// receive 2n; the root receives exactly n, in 2k messages (k per half;
/// p = 2: one link, the linear pipeline), each taken from its inbox.
#[test]
fn two_tree_moves_n_bytes_into_and_out_of_every_process() {
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    let model = fastred::model::CostModel::default();
    let n = 1000;
    for p in 1..=40usize {
        for root in [0, p / 2, p - 1] {
            let got = InProcess::run(p, |t| {
                let counting = Counting::new(t);
                let mut buf = vec![1u8; n];
                two_tree::reduce(&counting, &op, &mut buf, root, Some(100), &model).unwrap();
                counting.traffic()
            });
            for (r, t) in got.iter().enumerate() {
                let (sent, messages) = if p == 1 || r == root { (0, 0) } else { (n as u64, 10) };
                assert_eq!((t.bytes_sent, t.messages_sent), (sent, messages), "p={p} root={root} rank {r}");
                assert!(t.bytes_received <= n as u64, "p={p} root={root} rank {r}: received {}", t.bytes_received);
            }
            let (into_root, messages) = if p == 1 { (0, 0) } else { (n as u64, 10) };
            let at_root = got[root];
            assert_eq!((at_root.bytes_received, at_root.messages_received, at_root.receive_waits), (into_root, messages, messages), "p={p} root={root}");
            assert_eq!(got.iter().map(|t| t.bytes_received).sum::<u64>(), (n * (p - 1)) as u64, "p={p}");
        }
    }
}

/// The two-tree's streams are bounded in flight whatever the number of
/// segments: the leaf half runs at most `lead` segments ahead, and a step
/// completes what steps lead + 1 before it posted, so a process has at
/// most 3·lead + 2 messages pending; 24 MiB in 64 KiB segments is 384
/// messages per process, all pending if a leaf half went out at once. In
/// 1 MiB segments the lead is 2 (the completions run from step 3 on). The
/// root's result is checked too (the in-process sweeps run leads shorter
/// than a half only with segments of a few bytes).
#[test]
fn two_tree_keeps_at_most_three_leads_plus_two_messages_in_flight() {
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    let model = fastred::model::CostModel::default();
    let n = 24 << 20;
    let input = |r: usize| (0..n).map(move |i| (i * 7 + r * 13 + i / 4099) as u8);
    for segment in [64 << 10, 1 << 20] {
        let bound = 3 * fastred::algo::streaming::lead(segment) as u64 + 2;
        for p in [3, 4, 5, 8] {
            let root = p / 2;
            let got = InProcess::run(p, |t| {
                let counting = Counting::new(t);
                let mut buf: Vec<u8> = input(t.rank()).collect();
                two_tree::reduce(&counting, &op, &mut buf, root, Some(segment), &model).unwrap();
                (counting.traffic().most_in_flight, counting.traffic().messages_sent, buf)
            });
            let in_flight: Vec<(u64, u64)> = got.iter().map(|(m, sent, _)| (*m, *sent)).collect();
            assert!(in_flight.iter().all(|&(m, _)| m <= bound), "segment {segment} p={p}: {in_flight:?} over {bound}");
            assert_eq!(in_flight.iter().map(|&(m, _)| m).max(), Some(bound), "segment {segment} p={p}: {in_flight:?}");
            let per_process = 2 * (n / 2).div_ceil(segment) as u64;
            assert!(in_flight.iter().enumerate().all(|(r, &(_, sent))| sent == if r == root { 0 } else { per_process }), "segment {segment} p={p}: {in_flight:?}");
            let want = (0..p).map(input).fold(vec![0u8; n], |mut acc, x| {
                acc.iter_mut().zip(x).for_each(|(a, b)| *a ^= b);
                acc
            });
            assert!(got[root].2 == want, "segment {segment} p={p}: wrong result at the root");
        }
    }
}

/// The pipeline and the Fibonacci tree stream their segments (Inbox,
/// Outbox): a process expects its children's segments a lead ahead and has
/// at most lead + 1 of its own in flight, a bound reached once there are
/// more segments than that; 8 MiB in 64 KiB segments is 128 per process.
/// Each child's segment is one receive wait; the root's result is checked.
#[test]
fn pipelined_reduces_keep_at_most_a_lead_plus_one_segments_in_flight() {
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    let model = fastred::model::CostModel::default();
    let (n, segment) = (8 << 20, 64 << 10);
    let segments = (n / segment) as u64;
    let bound = fastred::algo::streaming::up_tree_lead(segment) as u64 + 1;
    let input = |r: usize| (0..n).map(move |i| (i * 5 + r * 11 + i / 4099) as u8);
    for (name, fibonacci) in [("pipeline", false), ("fibonacci_tree", true)] {
        for p in [2, 3, 6] {
            let root = p - 1;
            let got = InProcess::run(p, |t| {
                let counting = Counting::new(t);
                let mut buf: Vec<u8> = input(t.rank()).collect();
                if fibonacci {
                    fibonacci_tree::reduce(&counting, &op, &mut buf, root, Some(segment), &model).unwrap();
                } else {
                    pipeline::reduce(&counting, &op, &mut buf, root, Some(segment), &model).unwrap();
                }
                (counting.traffic(), buf)
            });
            for (r, (traffic, _)) in got.iter().enumerate() {
                let in_flight = if r == root { 0 } else { bound };
                assert_eq!(traffic.most_in_flight, in_flight, "{name} p={p} rank {r}");
                assert_eq!(traffic.receive_waits, traffic.messages_received, "{name} p={p} rank {r}");
                assert_eq!(traffic.messages_received % segments, 0, "{name} p={p} rank {r}: whole children");
            }
            let want = (0..p).map(input).fold(vec![0u8; n], |mut acc, x| {
                acc.iter_mut().zip(x).for_each(|(a, b)| *a ^= b);
                acc
            });
            assert!(got[root].1 == want, "{name} p={p}: wrong result at the root");
        }
    }
}

/// The shared-memory algorithm sends no message, and copies what its module
/// says: each rank publishes its whole input (n bytes; reduce-scatters too),
/// and in rounds beyond the one-phase limit the ranks that need the
/// result copy it out of the shared results (allreduce: all; reduce: the
/// root). The in-process segment's rounds hold 4144 bytes.
#[test]
fn shared_memory_sends_nothing_and_copies_its_input_and_long_rounds_results() {
    use fastred::algo::shared_memory::one_phase;
    use fastred::transport::inproc::SHARED_SLOT;
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    let model = CostModel::default();
    let d = fastred::algo::registry::Algorithm::SharedMemory.descriptor();
    let round = SHARED_SLOT - 16;
    for p in 1..=9 {
        for n in [0, 1, p, 1000, round, round + 1, 3 * round + 5] {
            for &coll in d.collectives {
                let even = Blocks::even(n, p);
                let root = p / 2;
                let per_rank = InProcess::run(p, |t| {
                    let counting = Counting::new(t);
                    let (ring, hosts) = (scrambled(p), vec![0; p]);
                    let job = Job { coll, blocks: &even, root, commutative: true, ring: &ring, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: common::default_table(), nhalf: 0 };
                    let mut buf: Vec<u8> = (0..n).map(|i| (i * 7 + t.rank()) as u8).collect();
                    (d.run.unwrap())(&counting, &op, &mut buf, &job).unwrap();
                    counting.traffic()
                });
                let long_rounds: usize = (0..n).step_by(round).map(|s| (n - s).min(round)).filter(|&len| !one_phase(len, p)).sum();
                for (r, t) in per_rank.iter().enumerate() {
                    let copies_out = match coll {
                        Collective::Allreduce => long_rounds,
                        Collective::Reduce if r == root => long_rounds,
                        _ => 0,
                    };
                    assert_eq!((t.messages_sent, t.bytes_received), (0, 0), "{} p={p} n={n} rank {r}", coll.name());
                    assert_eq!(t.bytes_copied as usize, n + copies_out, "{} p={p} n={n} rank {r}: bytes copied", coll.name());
                }
            }
        }
    }
}

/// The two-level allreduce of 2 KiB (256 doubles) on 8 hosts of 12 ranks:
/// the lanes' blocks are 21 or 22 elements (168 or 176 B), and every lane
/// must run the algorithm the table names for the whole vector across a
/// host's link (`allreduce 2K-32K 4-16 lane recursive_doubling`), not one
/// per block size (168 B × 12 = 2016 B fell under the lane rule, to
/// halving & doubling). Within the hosts every rank sends alike (the
/// circulant), so all ranks send the same number of messages: lg 8 = 3
/// across hosts each.
/// Each rank's traffic in the two-level allreduce with rank r on host
/// `hosts[r]` and input `input(r)`, across a network of n½ `nhalf`.
fn two_level_allreduce_traffic(hosts: &[usize], op: &BuiltinReducer, model: &CostModel, nhalf: usize, input: impl Fn(usize) -> Vec<u8> + Sync) -> Vec<Traffic> {
    let none = Blocks::even(0, 1);
    let d = fastred::algo::registry::Algorithm::Hierarchical.descriptor();
    InProcess::run(hosts.len(), |t| {
        let counting = Counting::new(t);
        let ring: Vec<usize> = (0..hosts.len()).collect();
        let job = Job { coll: Collective::Allreduce, blocks: &none, root: 0, commutative: true, ring: &ring, hosts: &HostMap::new(hosts), segment_bytes: None, model, canonical: false, table: common::default_table(), nhalf };
        let mut buf = input(t.rank());
        (d.run.unwrap())(&counting, op, &mut buf, &job).unwrap();
        counting.traffic()
    })
}

#[test]
fn hierarchical_lanes_all_run_the_algorithm_of_the_whole_vector() {
    let (p, per_host, n) = (96, 12, 256);
    let op = BuiltinReducer::new(OpKind::Sum, Elem::F64).unwrap();
    let model = CostModel::default();
    let messages_sent = |hosts: &[usize]| -> Vec<u64> {
        let input = |r: usize| (0..n).flat_map(|i| ((i + r) as f64).to_ne_bytes()).collect();
        two_level_allreduce_traffic(hosts, &op, &model, 0, input).iter().map(|t| t.messages_sent).collect()
    };
    let per_rank = messages_sent(&(0..p).map(|r| r / per_host).collect::<Vec<_>>());
    let host_sends = messages_sent(&vec![0; per_host]);
    for (r, &sent) in per_rank.iter().enumerate() {
        assert_eq!(sent, host_sends[r % per_host] + 3, "rank {r}: {sent} messages");
    }
}

/// The two-level allreduce of 2 MiB on 3 hosts of 4 and one of 2, in
/// blocks, on a fast network (n½ 30 KiB): 4 lanes of 512 KiB (the most
/// ranks on a host, from lanes of 512 KiB), the host of 2's ranks serving
/// two each, one after the other. Every rank of a host of 4 receives what
/// it receives on 4 hosts of 4 (within its host (1 − 1/4)·n each way, its
/// lane's n/4 across hosts); each rank of the host of 2 receives n/2 each way
/// within its host and two lanes' worth across. (With as many lanes as the
/// fewest ranks, 2, two ranks of each host of 4 sat out the lanes.) The ring
/// within hosts (no latency there), bytes of u8 so every split is exact.
#[test]
fn hierarchical_on_unequal_hosts_runs_a_lane_per_rank_of_the_largest_host() {
    let n = 2 << 20;
    let op = BuiltinReducer::new(OpKind::Bxor, Elem::U8).unwrap();
    let model = CostModel { alpha_intra: 0.0, ..CostModel::default() };
    let received = |hosts: &[usize]| -> Vec<usize> {
        let input = |r: usize| (0..n).map(|i| (i * 7 + r) as u8).collect();
        two_level_allreduce_traffic(hosts, &op, &model, 30 << 10, input).iter().map(|t| t.bytes_received as usize).collect()
    };
    let equal = received(&(0..16).map(|r| r / 4).collect::<Vec<_>>());
    let unequal = received(&(0..14).map(|r| r / 4).collect::<Vec<_>>());
    let within_host = |k: usize| 2 * (k - 1) * n / k;
    let lane = equal[0] - within_host(4);
    assert!(equal.iter().all(|&b| b == equal[0]), "{equal:?}");
    assert_eq!(&unequal[..12], &equal[..12], "ranks of the hosts of 4");
    assert_eq!(&unequal[12..], &[within_host(2) + 2 * lane; 2], "the host of 2's ranks: two lanes each");
}
