//! Exhaustive in-process tests of every algorithm in the registry, on every
//! collective it implements (`every_registered_*`, so a new algorithm is
//! covered without editing this file): process counts 1..=40 and 64, 96,
//! 100, 127, 128, 129, counts 0, 1, p−1, p, p+1, odd and long, every root for
//! reduce up to p = 24 (six, then three, beyond), even and irregular (with zero)
//! blocks for reduce-scatter. Integer
//! results are checked exactly against a serial reduction; float allreduce
//! results must be bit-identical on all ranks; rank-ordered algorithms must
//! keep rank order for a non-commutative op. Then tests of what only some
//! algorithms have (skip sequences, segment sizes, p = 1000).

mod common;
use common::{from_bytes, layouts, scattered_hosts, scrambled, to_bytes};

use fastred::algo::host_map::HostMap;
use fastred::algo::circulant::{self, SkipKind, Skips};
use fastred::algo::registry::{Algorithm, Descriptor, Job, REGISTRY};
use fastred::algo::{fibonacci_tree, pipeline, two_tree, Blocks, Transport};
use fastred::error::MpiResult;
use fastred::select::Collective;
use fastred::model::CostModel;
use fastred::op::{BuiltinReducer, Elem, OpKind, Reducer};
use fastred::transport::counting::Counting;
use fastred::transport::inproc::InProcess;

fn process_counts() -> Vec<usize> {
    (1..=40).chain([64, 96, 100, 127, 128, 129]).collect()
}

fn element_counts(p: usize) -> Vec<usize> {
    let mut v = vec![0, 1, p.saturating_sub(1), p, p + 1, 7, 1001];
    v.sort();
    v.dedup();
    v
}

/// Every root up to 24 processes; then the ends, the middle and a third; from
/// 64 the ends and the middle (every root of p ≤ 40 made the O(p)-message
/// algorithms most of the sweep's time).
fn roots(p: usize) -> Vec<usize> {
    match p {
        0..=24 => (0..p).collect(),
        25..=40 => vec![0, 1, p / 3, p / 2, p - 2, p - 1],
        _ => vec![0, p / 2, p - 1],
    }
}

/// Rank r's input: distinct, sign-varying values so wrong pairings show.
fn int_input(r: usize, n: usize) -> Vec<i64> {
    (0..n).map(|i| ((r as i64 + 3) * 1_000_003 + i as i64 * 7919) * if (r + i).is_multiple_of(3) { -1 } else { 1 }).collect()
}

fn float_input(r: usize, n: usize) -> Vec<f64> {
    (0..n).map(|i| 0.1 * (r as f64 + 1.0) / (i as f64 + 3.0) + 1e10 * ((r * 7 + i) % 5) as f64).collect()
}

fn sum_of_inputs(p: usize, n: usize) -> Vec<i64> {
    (0..p).map(|r| int_input(r, n)).fold(vec![0; n], |acc, v| acc.iter().zip(&v).map(|(a, b)| a.wrapping_add(*b)).collect())
}

type AllreduceClosure<'a> = dyn Fn(&InProcess, &BuiltinReducer, &mut [u8]) -> MpiResult + Sync + 'a;

/// One `InProcess` run per process count: every rank runs the algorithm on
/// every count in turn (back-to-back calls, as an MPI program makes them;
/// spawning p threads per case cost more than most algorithms).
fn check_allreduce(name: &str, procs: Vec<usize>, algo: &AllreduceClosure) {
    let sum_i64 = BuiltinReducer::new(OpKind::Sum, Elem::I64).unwrap();
    let sum_f64 = BuiltinReducer::new(OpKind::Sum, Elem::F64).unwrap();
    for p in procs {
        let counts = element_counts(p);
        let got = InProcess::run(p, |t| {
            let call = |op: &BuiltinReducer, mut buf: Vec<u8>, n: usize| {
                algo(t, op, &mut buf).unwrap_or_else(|e| panic!("{name}: p={p} n={n} rank {}: {e:?}", t.rank()));
                buf
            };
            let ints: Vec<Vec<u8>> = counts.iter().map(|&n| call(&sum_i64, to_bytes(&int_input(t.rank(), n)), n)).collect();
            let floats: Vec<Vec<u8>> = counts.iter().map(|&n| call(&sum_f64, to_bytes(&float_input(t.rank(), n)), n)).collect();
            (ints, floats)
        });
        for (k, &n) in counts.iter().enumerate() {
            let want = sum_of_inputs(p, n);
            for (r, (ints, _)) in got.iter().enumerate() {
                assert_eq!(from_bytes::<i64>(&ints[k]), want, "{name}: p={p} n={n} rank {r}");
            }
            let floats = &got[0].1[k];
            assert!(got.iter().all(|(_, f)| &f[k] == floats), "{name}: p={p} n={n}: float results differ between ranks");
            let approx: Vec<f64> = (0..n).map(|i| (0..p).map(|r| float_input(r, n)[i]).sum()).collect();
            for (a, b) in from_bytes::<f64>(floats).iter().zip(&approx) {
                assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{name}: p={p} n={n}: {a} vs {b}");
            }
        }
    }
}

type ReduceClosure<'a> = dyn Fn(&InProcess, &BuiltinReducer, &mut [u8], usize) -> MpiResult + Sync + 'a;

/// As `check_allreduce`: one run per process count, every count and root in turn.
fn check_reduce_with(name: &str, procs: Vec<usize>, algo: &ReduceClosure) {
    let sum_i64 = BuiltinReducer::new(OpKind::Sum, Elem::I64).unwrap();
    for p in procs {
        let cases: Vec<(usize, usize)> = element_counts(p).into_iter().flat_map(|n| roots(p).into_iter().map(move |root| (n, root))).collect();
        let got = InProcess::run(p, |t| {
            cases
                .iter()
                .map(|&(n, root)| {
                    let mut buf = to_bytes(&int_input(t.rank(), n));
                    algo(t, &sum_i64, &mut buf, root).unwrap_or_else(|e| panic!("{name}: p={p} n={n} root={root} rank {}: {e:?}", t.rank()));
                    buf
                })
                .collect::<Vec<_>>()
        });
        let wants: Vec<(usize, Vec<i64>)> = element_counts(p).into_iter().map(|n| (n, sum_of_inputs(p, n))).collect();
        for (k, &(n, root)) in cases.iter().enumerate() {
            let want = &wants.iter().find(|(m, _)| *m == n).unwrap().1;
            assert_eq!(&from_bytes::<i64>(&got[root][k]), want, "{name}: p={p} n={n} root={root}");
        }
    }
}

type ReduceScatterClosure<'a> = dyn Fn(&InProcess, &BuiltinReducer, &mut [u8], &Blocks) + Sync + 'a;

fn check_reduce_scatter(name: &str, p: usize, blocks: &Blocks, algo: &ReduceScatterClosure) {
    let op = BuiltinReducer::new(OpKind::Sum, Elem::I64).unwrap();
    let n = blocks.total();
    let want = sum_of_inputs(p, n);
    let got = InProcess::run(p, |t| {
        let mut buf = to_bytes(&int_input(t.rank(), n));
        algo(t, &op, &mut buf, blocks);
        from_bytes::<i64>(&buf[blocks.bytes(t.rank(), 8)])
    });
    for (r, g) in got.iter().enumerate() {
        assert_eq!(g[..], want[blocks.offset(r)..blocks.offset(r) + blocks.count(r)], "{name}: p={p} {blocks:?} rank {r}");
    }
}

/// Run a registered algorithm (the ring for `uses_ring` algorithms is a
/// scrambled one, unlike rank order).
#[allow(clippy::too_many_arguments)]
fn run_registered(d: &Descriptor, t: &InProcess, op: &dyn Reducer, buf: &mut [u8], coll: Collective, blocks: &Blocks, root: usize, commutative: bool) -> MpiResult {
    let ring = scrambled(t.size());
    let hosts = scattered_hosts(t.size());
    let model = CostModel::default();
    let job = Job { coll, blocks, root, commutative, ring: &ring, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: common::default_table(), nhalf: 0 };
    (d.run.expect("a runnable algorithm"))(t, op, buf, &job)
}

/// Skip-sequence variants (names with ':') at fewer process counts.
fn sweep_counts(d: &Descriptor) -> Vec<usize> {
    if d.name.contains(':') { (1..=17).chain([31, 64]).collect() } else { process_counts() }
}

/// The registry sweep, one test per collective (libtest runs them side by side).
#[test]
fn every_registered_allreduce() {
    sweep_registry(&[Collective::Allreduce]);
}

#[test]
fn every_registered_reduce() {
    sweep_registry(&[Collective::Reduce]);
}

#[test]
fn every_registered_reduce_scatter() {
    sweep_registry(&[Collective::ReduceScatter, Collective::ReduceScatterBlock]);
}

fn sweep_registry(colls: &[Collective]) {
    let none = Blocks::even(0, 1);
    for d in REGISTRY.iter().filter(|d| d.run.is_some()) {
        for &coll in d.collectives.iter().filter(|c| colls.contains(c)) {
            let name = format!("{} {}", d.name, coll.name());
            let start = std::time::Instant::now();
            match coll {
                Collective::Allreduce => {
                    check_allreduce(&name, sweep_counts(d), &|t, op, b| run_registered(d, t, op, b, coll, &none, 0, true))
                }
                Collective::Reduce => {
                    check_reduce_with(&name, sweep_counts(d), &|t, op, b, root| run_registered(d, t, op, b, coll, &none, root, true))
                }
                Collective::ReduceScatter | Collective::ReduceScatterBlock => {
                    for p in sweep_counts(d) {
                        for blocks in &layouts(p) {
                            check_reduce_scatter(&name, p, blocks, &|t, op, b, bl| run_registered(d, t, op, b, coll, bl, 0, true).unwrap());
                        }
                    }
                }
            }
            eprintln!("{name}: {:.1} s", start.elapsed().as_secs_f64());
        }
    }
}

/// A placement: its name, and the host of each rank for p ranks.
type Placement = (&'static str, fn(usize) -> Vec<usize>);

/// The two-level algorithm on placements the registry sweep (scattered hosts)
/// does not cover: one host, one rank per host, consecutive pairs, blocks of
/// 4, round robin; all four collectives. Where every host holds the same
/// power-of-two number of ranks (one host of 1, 2, 4, 8 or 16; pairs, blocks
/// of 4 and round robin at p = 4, 6, 8, 12, 16, 24, 32) the phases within a
/// host halve and double, elsewhere they run the circulant or the ring: both
/// are run, with a cost model whose latency within a host makes the
/// circulant win at every size, and one without latency there (the ring).
#[test]
fn hierarchical_on_every_kind_of_placement() {
    let d = Algorithm::Hierarchical.descriptor();
    let placements: [Placement; 6] = [
        ("one host", |p| vec![0; p]),
        ("one rank per host", |p| (0..p).collect()),
        ("consecutive pairs", |p| (0..p).map(|r| r / 2).collect()),
        ("blocks of 4", |p| (0..p).map(|r| r / 4).collect()),
        ("round robin over 3 hosts", |p| (0..p).map(|r| r % 3).collect()),
        ("round robin over 2 hosts", |p| (0..p).map(|r| r % 2).collect()),
    ];
    let procs: Vec<usize> = (1..=13).chain([16, 24, 31, 32]).collect();
    let circulant = CostModel { alpha_intra: 1.0, ..CostModel::default() };
    let ring = CostModel { alpha_intra: 0.0, ..CostModel::default() };
    for (within, model) in [("circulant", circulant), ("ring", ring)] {
        for (what, hosts_of) in placements {
            let what = format!("{what}, {within} where not halving");
            check_every_collective_on(d, hosts_of, &model, &procs, &what);
        }
    }
}

/// Halving & doubling over hosts (`rabenseifner:hosts`) where its plan
/// differs from §3.5's: hosts of 4, 6 and 16 consecutive ranks with a short
/// last host, ranks dealt round robin over 3 hosts, one rank per host (the
/// paper's plan); the allreduce (bit-identical floats on every rank), the
/// reduce to every root and the reduce-scatter, every count and layout.
#[test]
fn halving_doubling_over_hosts_on_every_kind_of_placement() {
    let d = Algorithm::RabenseifnerHosts.descriptor();
    let placements: [Placement; 5] = [
        ("blocks of 4", |p| (0..p).map(|r| r / 4).collect()),
        ("blocks of 6", |p| (0..p).map(|r| r / 6).collect()),
        ("blocks of 16", |p| (0..p).map(|r| r / 16).collect()),
        ("round robin over 3 hosts", |p| (0..p).map(|r| r % 3).collect()),
        ("one rank per host", |p| (0..p).collect()),
    ];
    let procs: Vec<usize> = (1..=13).chain([18, 22, 27, 36, 44, 52]).collect();
    for (what, hosts_of) in placements {
        check_every_collective_on(d, hosts_of, &CostModel::default(), &procs, what);
    }
}

/// A registered algorithm that uses hosts: its allreduce, its reduce to
/// every root and (where it has one) its reduce-scatter on every layout, at
/// `procs` on the placement `hosts_of`.
fn check_every_collective_on(d: &Descriptor, hosts_of: fn(usize) -> Vec<usize>, model: &CostModel, procs: &[usize], what: &str) {
    let none = Blocks::even(0, 1);
    let run = |t: &InProcess, op: &BuiltinReducer, b: &mut [u8], coll, blocks: &Blocks, root| {
        let (hosts, ring) = (hosts_of(t.size()), scrambled(t.size()));
        let job = Job { coll, blocks, root, commutative: true, ring: &ring, hosts: &HostMap::new(&hosts), segment_bytes: None, model, canonical: false, table: common::default_table(), nhalf: 0 };
        (d.run.unwrap())(t, op, b, &job)
    };
    check_allreduce(&format!("{} allreduce, {what}", d.name), procs.to_vec(), &|t, op, b| run(t, op, b, Collective::Allreduce, &none, 0));
    check_reduce_with(&format!("{} reduce, {what}", d.name), procs.to_vec(), &|t, op, b, root| run(t, op, b, Collective::Reduce, &none, root));
    if d.collectives.contains(&Collective::ReduceScatter) {
        for &p in procs {
            for blocks in &layouts(p) {
                check_reduce_scatter(&format!("{} reduce_scatter, {what}", d.name), p, blocks, &|t, op, b, bl| {
                    run(t, op, b, Collective::ReduceScatter, bl, 0).unwrap()
                });
            }
        }
    }
}

/// The two-level reduce off the halving path on hosts of 17-23 ranks (round
/// robin over 2 hosts at p = 34-40; 17 consecutive ranks, then the rest),
/// more lanes than the placement sweep above reaches: the root takes up to 19
/// lanes' blocks. The ring within hosts (a model without latency there),
/// every count and root.
#[test]
fn hierarchical_reduce_on_hosts_of_17_to_23_ranks() {
    let d = Algorithm::Hierarchical.descriptor();
    let none = Blocks::even(0, 1);
    let model = CostModel { alpha_intra: 0.0, ..CostModel::default() };
    let placements: [Placement; 2] = [
        ("round robin over 2 hosts", |p| (0..p).map(|r| r % 2).collect()),
        ("17 ranks, then the rest", |p| (0..p).map(|r| usize::from(r >= 17)).collect()),
    ];
    for (what, hosts_of) in placements {
        check_reduce_with(&format!("hierarchical reduce, {what}"), vec![34, 35, 36, 40], &|t, op, b, root| {
            let (hosts, ring) = (hosts_of(t.size()), scrambled(t.size()));
            let job = Job { coll: Collective::Reduce, blocks: &none, root, commutative: true, ring: &ring, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: common::default_table(), nhalf: 0 };
            (d.run.unwrap())(t, op, b, &job)
        });
    }
}

/// The two-level algorithm on long vectors over hosts holding different
/// numbers of ranks, on a fast network (n½ 30 KiB), where it runs as many
/// lanes as the largest host's ranks (lanes of at least 512 KiB) and a rank
/// of a smaller host serves several:
/// round robin over 3 hosts and blocks of 4 at p = 5, 7, 10, 14, and a lone
/// rank beside hosts of 3; 400 003 i64 (3.2 MB, an odd count); the
/// allreduce, the reduce to the first and last rank and a rank of the
/// smallest host, the reduce-scatter of near-even blocks; the circulant and
/// the ring within hosts.
#[test]
fn hierarchical_long_vectors_on_unequal_hosts() {
    let d = Algorithm::Hierarchical.descriptor();
    let n = 400_003;
    let op = BuiltinReducer::new(OpKind::Sum, Elem::I64).unwrap();
    let placements: [Placement; 3] = [
        ("round robin over 3 hosts", |p| (0..p).map(|r| r % 3).collect()),
        ("blocks of 4", |p| (0..p).map(|r| r / 4).collect()),
        ("a lone rank, then hosts of 3", |p| (0..p).map(|r| r.div_ceil(3)).collect()),
    ];
    let circulant = CostModel { alpha_intra: 1.0, ..CostModel::default() };
    let ring = CostModel { alpha_intra: 0.0, ..CostModel::default() };
    for (within, model) in [("circulant", circulant), ("ring", ring)] {
        for (what, hosts_of) in placements {
            for p in [5, 7, 10, 14] {
                let hosts = hosts_of(p);
                let smallest = (0..p).min_by_key(|&r| hosts.iter().filter(|&&h| h == hosts[r]).count()).unwrap();
                let want = sum_of_inputs(p, n);
                let even = Blocks::even(n, p);
                let roots = [0, p - 1, smallest];
                let got = InProcess::run(p, |t| {
                    let ring_order = scrambled(p);
                    let run = |coll, root, blocks: &Blocks| {
                        let job = Job { coll, blocks, root, commutative: true, ring: &ring_order, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: common::default_table(), nhalf: 30 << 10 };
                        let mut buf = to_bytes(&int_input(t.rank(), n));
                        (d.run.unwrap())(t, &op, &mut buf, &job).unwrap();
                        from_bytes::<i64>(&buf)
                    };
                    let all = run(Collective::Allreduce, 0, &Blocks::even(0, 1));
                    let reduced: Vec<Vec<i64>> = roots.iter().map(|&root| run(Collective::Reduce, root, &Blocks::even(0, 1))).collect();
                    let scattered = run(Collective::ReduceScatter, 0, &even)[even.offset(t.rank())..even.offset(t.rank() + 1)].to_vec();
                    (all, reduced, scattered)
                });
                let case = format!("{what}, p={p}, {within} within hosts");
                for (r, (all, reduced, scattered)) in got.iter().enumerate() {
                    assert!(*all == want, "{case}: allreduce at rank {r}");
                    assert!(scattered[..] == want[even.offset(r)..even.offset(r + 1)], "{case}: reduce-scatter at rank {r}");
                    for (k, &root) in roots.iter().enumerate() {
                        assert!(root != r || reduced[k] == want, "{case}: reduce to {root}");
                    }
                }
            }
        }
    }
}

/// Algorithms that read a separate send buffer in place (`run_from`): the
/// same bits as `run` on a copy of the input, for floats whose sums depend on
/// the order; the input untouched; every byte of the result written; and no
/// more bytes copied than `run` plus the copies dispatch makes around it
/// (the input in; for a reduce-scatter, the own block out) (fewer in the MPI
/// runs' statistics checks).
#[test]
fn run_from_a_separate_input_gives_the_bits_of_run_on_a_copy() {
    let op = BuiltinReducer::new(OpKind::Sum, Elem::F64).unwrap();
    let model = CostModel::default();
    for d in REGISTRY.iter().filter(|d| d.run_from.is_some()) {
        for &coll in d.collectives.iter().filter(|&&c| c != Collective::Reduce) {
            for p in (1..=17).chain([31, 64]) {
                let cases: Vec<Blocks> = if coll == Collective::Allreduce {
                    element_counts(p).into_iter().map(|n| Blocks::even(n, 1)).collect()
                } else {
                    layouts(p)
                };
                for blocks in &cases {
                    let n = blocks.total();
                    let got = InProcess::run(p, |t| {
                        let (ring, hosts) = (scrambled(p), scattered_hosts(p));
                        let job = Job { coll, blocks, root: 0, commutative: true, ring: &ring, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: common::default_table(), nhalf: 0 };
                        let input = to_bytes(&float_input(t.rank(), n));
                        let result = if coll == Collective::Allreduce { 0..input.len() } else { blocks.bytes(t.rank(), 8) };
                        let mut work = input.clone();
                        let counted = Counting::new(t);
                        (d.run.unwrap())(&counted, &op, &mut work, &job).unwrap();
                        // Dispatch's copies around `run`: the input in; for a reduce-scatter, the own block out.
                        let block_out = if coll == Collective::Allreduce { 0 } else { result.len() as u64 };
                        let copied_in_place = counted.traffic().bytes_copied + input.len() as u64 + block_out;
                        let mut output = vec![0xAB; result.len()];
                        let counted = Counting::new(t);
                        (d.run_from.unwrap())(&counted, &op, &input, &mut output, &job).unwrap();
                        assert_eq!(input, to_bytes(&float_input(t.rank(), n)), "{} {}: input written", d.name, coll.name());
                        (work[result] == output[..], copied_in_place, counted.traffic().bytes_copied)
                    });
                    for (r, (same, before, after)) in got.into_iter().enumerate() {
                        assert!(same, "{} {}: p={p} {blocks:?} rank {r}: run_from differs from run", d.name, coll.name());
                        assert!(after <= before, "{} {}: p={p} rank {r}: copied {after} B, more than {before}", d.name, coll.name());
                    }
                }
            }
        }
    }
}

/// (Reduce-scatters: n elements per rank, each rank's block checked.)
#[test]
fn every_rank_ordered_algorithm_keeps_rank_order() {
    for d in REGISTRY.iter().filter(|d| d.run.is_some() && d.rank_ordered) {
        for &coll in d.collectives {
            let scatters = matches!(coll, Collective::ReduceScatter | Collective::ReduceScatterBlock);
            for p in process_counts().into_iter().filter(|&p| p <= 20 || p == 33 || p == 64) {
                let roots = if coll == Collective::Reduce { roots(p) } else { vec![0] };
                for root in roots {
                    for n in [1, 5] {
                        let len = if scatters { n * p } else { n };
                        let blocks = Blocks::even(if scatters { len } else { 0 }, p);
                        let got = InProcess::run(p, |t| {
                            let mut buf = to_bytes(&affine_input(t.rank(), len));
                            run_registered(d, t, &AffineCompose, &mut buf, coll, &blocks, root, false).unwrap();
                            buf
                        });
                        let want = affine_rank_ordered(p, len);
                        let ranks: Vec<usize> = if coll == Collective::Reduce { vec![root] } else { (0..p).collect() };
                        for r in ranks {
                            let mine = if scatters { blocks.bytes(r, 16) } else { 0..want.len() };
                            assert_eq!(got[r][mine.clone()], want[mine], "{} {}: p={p} n={n} root={root} rank {r}", d.name, coll.name());
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn circulant_reduce_scatter_every_skip_sequence() {
    for kind in [SkipKind::Halving, SkipKind::PowersOfTwo, SkipKind::Linear, SkipKind::Sqrt] {
        for p in (1..=64).chain([100, 127]) {
            for blocks in &layouts(p) {
                check_reduce_scatter(&format!("circulant {kind:?}"), p, blocks, &|t, op, b, bl| {
                    circulant::reduce_scatter(t, op, b, bl, &Skips::new(kind, t.size())).unwrap()
                });
            }
        }
    }
}

#[test]
fn circulant_allreduce_and_reduce_for_every_p_up_to_64() {
    // process_counts() skips 41..63; the circulant acceptance wants all of 1..64.
    let op = BuiltinReducer::new(OpKind::Sum, Elem::I64).unwrap();
    for p in 41..64 {
        for n in [1, p - 1, p + 1] {
            let want = sum_of_inputs(p, n);
            let got = InProcess::run(p, |t| {
                let mut all = to_bytes(&int_input(t.rank(), n));
                circulant::allreduce(t, &op, &mut all, &Skips::new(SkipKind::Halving, p)).unwrap();
                let mut one = to_bytes(&int_input(t.rank(), n));
                circulant::reduce(t, &op, &mut one, p / 3, &Skips::new(SkipKind::Halving, p)).unwrap();
                (from_bytes::<i64>(&all), from_bytes::<i64>(&one))
            });
            assert!(got.iter().all(|(a, _)| a == &want), "allreduce p={p} n={n}");
            assert_eq!(got[p / 3].1, want, "reduce p={p} n={n}");
        }
    }
}

#[test]
fn circulant_at_a_thousand_processes() {
    let p = 1000;
    for blocks in &layouts(p)[..2] {
        check_reduce_scatter("circulant p=1000", p, blocks, &|t, op, b, bl| {
            circulant::reduce_scatter(t, op, b, bl, &Skips::new(SkipKind::Halving, t.size())).unwrap()
        });
    }
    let op = BuiltinReducer::new(OpKind::Sum, Elem::I64).unwrap();
    for n in [1, p + 1] {
        let got = InProcess::run(p, |t| {
            let mut buf = to_bytes(&int_input(t.rank(), n));
            circulant::allreduce(t, &op, &mut buf, &Skips::new(SkipKind::Halving, p)).unwrap();
            from_bytes::<i64>(&buf)
        });
        assert!(got.iter().all(|g| g == &sum_of_inputs(p, n)), "allreduce p=1000 n={n}");
    }
}

/// Affine maps x ↦ a·x + b (mod 2^64), composed "left first": associative but
/// not commutative, so any deviation from rank order changes the result.
struct AffineCompose;

impl Reducer for AffineCompose {
    fn elem_size(&self) -> usize {
        16
    }
    fn reduce(&self, src: &[u8], dst: &mut [u8], src_is_left: bool) -> MpiResult {
        for (d, s) in dst.chunks_exact_mut(16).zip(src.chunks_exact(16)) {
            let get = |b: &[u8], i: usize| u64::from_ne_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
            let (f, g) = if src_is_left { ((get(s, 0), get(s, 1)), (get(d, 0), get(d, 1))) } else { ((get(d, 0), get(d, 1)), (get(s, 0), get(s, 1))) };
            let (a, b) = (g.0.wrapping_mul(f.0), g.0.wrapping_mul(f.1).wrapping_add(g.1));
            d[..8].copy_from_slice(&a.to_ne_bytes());
            d[8..].copy_from_slice(&b.to_ne_bytes());
        }
        Ok(())
    }
}

fn affine_input(r: usize, n: usize) -> Vec<u64> {
    (0..n).flat_map(|i| [3 + 2 * (r as u64) + i as u64, 1 + r as u64 * 977 + i as u64]).collect()
}

fn affine_rank_ordered(p: usize, n: usize) -> Vec<u8> {
    let mut acc = to_bytes(&affine_input(0, n));
    for r in 1..p {
        AffineCompose.reduce(&to_bytes(&affine_input(r, n)), &mut acc, false).unwrap();
    }
    acc
}

/// Segment sizes: the model's (every process count), then one element (more
/// segments than elements for short vectors), less than an element, and a few
/// elements (p ≤ 17: a message per element is slow in-process).
fn segment_cases() -> Vec<(Option<usize>, Vec<usize>)> {
    let few: Vec<usize> = (1..=17).collect();
    vec![(None, process_counts()), (Some(8), few.clone()), (Some(1), few.clone()), (Some(24), few)]
}

#[test]
fn pipeline_reduce_every_segment_size() {
    let model = CostModel::default();
    for (segment, procs) in segment_cases() {
        check_reduce_with(&format!("pipeline {segment:?}"), procs, &|t, op, b, root| pipeline::reduce(t, op, b, root, segment, &model));
    }
}

#[test]
fn fibonacci_tree_reduce_every_segment_size() {
    let model = CostModel::default();
    for (segment, procs) in segment_cases() {
        check_reduce_with(&format!("fibonacci_tree {segment:?}"), procs, &|t, op, b, root| fibonacci_tree::reduce(t, op, b, root, segment, &model));
    }
}

#[test]
fn two_tree_reduce_every_segment_size() {
    let model = CostModel::default();
    for (segment, procs) in segment_cases() {
        check_reduce_with(&format!("two_tree {segment:?}"), procs, &|t, op, b, root| two_tree::reduce(t, op, b, root, segment, &model));
    }
}

/// The shared-memory algorithm as dispatch's repeat shortcut runs it: on the
/// user's buffers, where a reduce's other ranks have no output at all, for
/// vectors of one round, of several, and of several whose last is short
/// (one phase after two-phase rounds; the in-process slot holds 4144 bytes).
#[test]
fn shared_memory_reduce_needs_no_output_off_the_root() {
    use fastred::algo::shared_memory::{Input, Rounds};
    let sum = BuiltinReducer::new(OpKind::Sum, Elem::I64).unwrap();
    for p in 1..=6 {
        for n in [1, 7, 518, 519, 1036, 1037, 3 * 518 + 1] {
            for root in [0, p / 2, p - 1] {
                let none = Blocks::even(0, 1);
                let got = InProcess::run(p, |t| {
                    let input = to_bytes(&int_input(t.rank(), n));
                    let mut out = if t.rank() == root { vec![0u8; input.len()] } else { Vec::new() };
                    let rounds = Rounds { segment: t.shared_memory().unwrap(), rank: t.rank(), coll: Collective::Reduce, root, blocks: &none };
                    rounds.run(&sum, Input::Separate(&input), &mut out, 0).unwrap_or_else(|e| panic!("p={p} n={n} root={root} rank {}: {e:?}", t.rank()));
                    out
                });
                assert_eq!(from_bytes::<i64>(&got[root]), sum_of_inputs(p, n), "p={p} n={n} root={root}");
            }
        }
    }
}

/// Every algorithm gives the same bits whether the transport posts its
/// inboxes' receives ahead (Open MPI and SMPI: the ring then posts each
/// step's receive a step ahead, the streams take their segments from posted
/// receives) or receives when taken (MPICH), for `run` and `run_from`.
#[test]
fn receives_posted_ahead_give_the_same_bits() {
    let op = BuiltinReducer::new(OpKind::Sum, Elem::F64).unwrap();
    let model = CostModel::default();
    for d in REGISTRY.iter().filter(|d| d.run.is_some()) {
        for &coll in d.collectives {
            let scatters = matches!(coll, Collective::ReduceScatter | Collective::ReduceScatterBlock);
            for p in (1..=9).chain([16, 17, 31]) {
                // (blocks, elements, root) of each call
                let cases: Vec<(Blocks, usize, usize)> = if scatters {
                    layouts(p).into_iter().map(|b| (b.clone(), b.total(), 0)).collect()
                } else {
                    element_counts(p).into_iter().flat_map(|n| [0, p / 2, p - 1].map(|root| (Blocks::even(0, 1), n, root))).collect()
                };
                let run = |t: &InProcess| -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
                    let (ring, hosts) = (scrambled(p), scattered_hosts(p));
                    cases
                        .iter()
                        .map(|(blocks, n, root)| {
                            let job = Job { coll, blocks, root: *root, commutative: true, ring: &ring, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: common::default_table(), nhalf: 0 };
                            let input = to_bytes(&float_input(t.rank(), *n));
                            let mut work = input.clone();
                            (d.run.unwrap())(t, &op, &mut work, &job).unwrap();
                            let from = d.run_from.filter(|_| coll != Collective::Reduce).map(|run_from| {
                                let len = if scatters { blocks.bytes(t.rank(), 8).len() } else { input.len() };
                                let mut output = vec![0xAB; len];
                                run_from(t, &op, &input, &mut output, &job).unwrap();
                                output
                            });
                            (work, from)
                        })
                        .collect()
                };
                let (plain, ahead) = (InProcess::run(p, run), InProcess::run_receiving_ahead(p, run));
                assert!(plain == ahead, "{} {}: p={p}: receives posted ahead change the result", d.name, coll.name());
            }
        }
    }
}
