//! `FASTRED_REPRODUCIBLE`: every algorithm the registry says computes the
//! canonical order (`Descriptor::canonical`) does, bit for bit, for every
//! element, on every collective it claims: process counts 1..=40 and 64,
//! 100, 129 (doubles at p ≤ 16 and 40, the tree shape everywhere), counts 0, 1, p−1, p, p+1, odd and long,
//! every root (p ≤ 16; else first, second, middle, last; above 40 first and
//! last, and fewer counts), even and irregular blocks, with a separate input where the algorithm reads one.
//!
//! Two checks per case: a *shape* reducer (commutative but not associative: a
//! hash of the two operands) whose result names the whole evaluation tree, so
//! any other parenthesisation gives other bits; and doubles spanning many
//! magnitudes, compared with the serial canonical sum. The tests also show
//! that the inputs tell orders apart (the other algorithms and a serial
//! right-to-left sum give other bits), so passing is not luck.

mod common;
use common::{from_bytes, layouts, scattered_hosts, scrambled, to_bytes};

use fastred::algo::host_map::HostMap;
use fastred::algo::registry::{Algorithm, Descriptor, Job, REGISTRY};
use fastred::algo::{Blocks, Transport};
use fastred::error::MpiResult;
use fastred::model::CostModel;
use fastred::op::{BuiltinReducer, Elem, OpKind, Reducer};
use fastred::reproducible::reduce_serial;
use fastred::select::{choose, Collective, Hosts, Shape, Table};
use fastred::transport::inproc::InProcess;

/// Combines two 8-byte values into a hash of the unordered pair: the result
/// identifies the evaluation tree up to swapping operands (which IEEE `+` and
/// `*` allow too).
struct TreeShape;

fn mix(a: u64, b: u64) -> u64 {
    let (lo, hi) = (a.min(b), a.max(b));
    let mut x = lo.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ hi.rotate_left(29) ^ 0xD6E8_FEB8_6659_FD93;
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 27)
}

impl Reducer for TreeShape {
    fn elem_size(&self) -> usize {
        8
    }
    fn reduce(&self, src: &[u8], dst: &mut [u8], _src_is_left: bool) -> MpiResult {
        for (s, d) in src.chunks_exact(8).zip(dst.chunks_exact_mut(8)) {
            let v = mix(u64::from_le_bytes(s.try_into().unwrap()), u64::from_le_bytes(d.try_into().unwrap()));
            d.copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }
}

fn shape_input(r: usize, n: usize) -> Vec<u8> {
    to_bytes(&(0..n).map(|i| (r as u64 + 1) << 32 | i as u64).collect::<Vec<u64>>())
}

/// Doubles with full 52-bit mantissas over 40 binary orders of magnitude,
/// both signs: most orders of summation round differently.
fn float_input(r: usize, n: usize) -> Vec<u8> {
    let v: Vec<f64> = (0..n)
        .map(|i| {
            let bits = mix(r as u64, i as u64 + 1 << 20);
            let mantissa = 1.0 + (bits >> 12) as f64 / (1u64 << 52) as f64;
            let exponent = (bits % 41) as i32 - 20;
            let sign = if bits >> 63 == 1 { -1.0 } else { 1.0 };
            sign * mantissa * 2f64.powi(exponent)
        })
        .collect();
    to_bytes(&v)
}

fn process_counts() -> Vec<usize> {
    (1..=40).chain([64, 100, 129]).collect()
}

fn element_counts(p: usize) -> Vec<usize> {
    if p > 40 {
        return vec![1, p + 1, 333]; // the few large p: fewer cases (the pairwise algorithms take p − 1 steps)
    }
    let mut v = vec![0, 1, p.saturating_sub(1), p, p + 1, 7, 333];
    v.sort();
    v.dedup();
    v
}

fn roots(p: usize) -> Vec<usize> {
    match p {
        0..=16 => (0..p).collect(),
        17..=40 => vec![0, 1, p / 2, p - 1],
        _ => vec![0, p - 1],
    }
}

/// The serial canonical reduction of every rank's `input(r, n)`.
fn reference(op: &dyn Reducer, p: usize, n: usize, input: fn(usize, usize) -> Vec<u8>) -> Vec<u8> {
    let inputs: Vec<Vec<u8>> = (0..p).map(|r| input(r, n)).collect();
    let refs: Vec<&[u8]> = inputs.iter().map(|v| v.as_slice()).collect();
    let mut out = vec![0u8; n * op.elem_size()];
    reduce_serial(op, &refs, &mut out).unwrap();
    out
}

/// What one rank ends with: the whole vector (allreduce; reduce at the root)
/// or its block (reduce-scatter); `None` where the collective leaves nothing.
#[allow(clippy::too_many_arguments)]
/// `canonical`: the job asks for the canonical order (what the selector's
/// reproducible mode passes; only algorithms built of others look at it).
fn run_case(d: &Descriptor, t: &InProcess, op: &dyn Reducer, coll: Collective, input: &[u8], blocks: &Blocks, root: usize, separate_input: bool, hosts: &[usize], canonical: bool) -> Option<Vec<u8>> {
    let (ring, model) = (scrambled(t.size()), CostModel::default());
    // Segments (chunks) of 24 bytes for p ≤ 8: many chunks, every boundary case; the model's above.
    let hosts = &HostMap::new(hosts);
    let job = Job { coll, blocks, root, commutative: true, ring: &ring, hosts, segment_bytes: (t.size() <= 8).then_some(24), model: &model, canonical, table: common::default_table(), nhalf: 0 };
    let esz = op.elem_size();
    let mine = blocks.bytes(t.rank().min(blocks.len().saturating_sub(1)), esz);
    match (coll, d.run_from) {
        (Collective::Allreduce | Collective::ReduceScatter | Collective::ReduceScatterBlock, Some(run_from)) if separate_input => {
            let mut out = vec![0u8; if coll == Collective::Allreduce { input.len() } else { mine.len() }];
            run_from(t, op, input, &mut out, &job).unwrap();
            Some(out)
        }
        _ => {
            let mut buf = input.to_vec();
            (d.run.unwrap())(t, op, &mut buf, &job).unwrap();
            match coll {
                Collective::Allreduce => Some(buf),
                Collective::Reduce => (t.rank() == root).then_some(buf),
                _ => Some(buf[mine].to_vec()),
            }
        }
    }
}

/// Where the ranks sit for `d` on `p` processes: ranks scattered over hosts;
/// for an algorithm that uses hosts, the placements that keep the canonical
/// order (`Hosts::keeps_canonical_order`): one rank per host, one host, and
/// hosts of K ranks in blocks for K = 2, 4, 8 dividing p (p ≤ 40).
fn placements(d: &Descriptor, p: usize) -> Vec<Vec<usize>> {
    if !d.uses_hosts {
        return vec![scattered_hosts(p)];
    }
    let blocks = |k: usize| (0..p).map(|r| r / k).collect::<Vec<usize>>();
    let mut v = vec![blocks(1), blocks(p.max(1))];
    v.extend([2, 4, 8].into_iter().filter(|&k| k < p && p % k == 0 && p <= 40).map(blocks));
    v.iter().for_each(|h| assert!(Hosts::of(h).keeps_canonical_order(), "{h:?}"));
    v
}

/// Every case of `coll` for `d` on `p` processes: (what, expected, got) per rank.
fn check(d: &Descriptor, coll: Collective, p: usize, op: &(dyn Reducer + Sync), input: fn(usize, usize) -> Vec<u8>, what: &str) {
    let esz = op.elem_size();
    let cases: Vec<(Blocks, usize)> = match coll {
        Collective::Allreduce => element_counts(p).into_iter().map(|n| (Blocks::even(n, p), 0)).collect(),
        Collective::Reduce => element_counts(p).into_iter().flat_map(|n| roots(p).into_iter().map(move |root| (Blocks::even(n, p), root))).collect(),
        _ => layouts(p).into_iter().map(|b| (b, 0)).collect(),
    };
    for (blocks, root) in &cases {
        let n = blocks.total();
        let want = reference(op, p, n, input);
        for hosts in placements(d, p) {
            for separate in [false, true] {
                if separate && d.run_from.is_none() {
                    continue;
                }
                let got = InProcess::run(p, |t| run_case(d, t, op, coll, &input(t.rank(), n), blocks, *root, separate, &hosts, true));
                for (r, g) in got.iter().enumerate() {
                    let Some(g) = g else { continue };
                    let expected = if matches!(coll, Collective::ReduceScatter | Collective::ReduceScatterBlock) { &want[blocks.bytes(r, esz)] } else { &want[..] };
                    assert!(g == expected, "{} {}: {what}: p={p} n={n} root={root} blocks={blocks:?} hosts={hosts:?} separate input={separate}: rank {r} differs from the canonical order", d.name, coll.name());
                }
            }
        }
    }
}

/// Every collective `name` claims the canonical order for, at every process
/// count: the tree-shape check everywhere, the doubles for p ≤ 16 and p = 40.
fn sweep(name: &str) {
    let d = Algorithm::from_name(name).expect("a registered algorithm").descriptor();
    assert!(!d.canonical.is_empty(), "{name} is not marked canonical");
    let doubles = BuiltinReducer::new(OpKind::Sum, Elem::F64).unwrap();
    for &coll in d.canonical {
        assert!(d.collectives.contains(&coll), "{} claims the canonical order for {} it does not run", d.name, coll.name());
        for p in process_counts() {
            check(d, coll, p, &TreeShape, shape_input, "tree shape");
            if p <= 16 || p == 40 {
                check(d, coll, p, &doubles, float_input, "doubles");
            }
        }
    }
}

/// The algorithms swept below, one test each (so they run in parallel).
const SWEPT: [&str; 7] = ["tree", "recursive_doubling", "rabenseifner", "pairwise", "pairwise_pipeline", "hierarchical", "shared_memory"];

#[test]
fn every_canonical_algorithm_is_swept() {
    for d in REGISTRY.iter().filter(|d| !d.canonical.is_empty()) {
        assert!(SWEPT.contains(&d.name), "{} is marked canonical: add a sweep test for it", d.name);
    }
}

#[test]
fn tree_computes_the_canonical_tree() {
    sweep("tree");
}

#[test]
fn recursive_doubling_computes_the_canonical_tree() {
    sweep("recursive_doubling");
}

#[test]
fn rabenseifner_computes_the_canonical_tree() {
    sweep("rabenseifner");
}

#[test]
fn pairwise_computes_the_canonical_tree() {
    sweep("pairwise");
}

#[test]
fn pairwise_pipeline_computes_the_canonical_tree() {
    sweep("pairwise_pipeline");
}

/// Also rounds beyond the one-phase limit at p = 2 (the sweep's counts up to
/// 333 elements fit one short round there): 1001 elements are a two-phase
/// round and a one-phase one.
#[test]
fn shared_memory_computes_the_canonical_tree() {
    sweep("shared_memory");
    let d = Algorithm::SharedMemory.descriptor();
    let n = 1001;
    for p in (1..=17).chain([33, 64]) {
        for &coll in d.canonical {
            let blocks = Blocks::even(n, p);
            for (op, input, what) in [(&TreeShape as &(dyn Reducer + Sync), shape_input as fn(usize, usize) -> Vec<u8>, "tree shape"), (&BuiltinReducer::new(OpKind::Sum, Elem::F64).unwrap(), float_input, "doubles")] {
                let want = reference(op, p, n, input);
                for separate in [false, true] {
                    let got = InProcess::run(p, |t| run_case(d, t, op, coll, &input(t.rank(), n), &blocks, p / 2, separate, &vec![0; p], true));
                    for (r, g) in got.iter().enumerate() {
                        let Some(g) = g else { continue };
                        let expected = if matches!(coll, Collective::ReduceScatter | Collective::ReduceScatterBlock) { &want[blocks.bytes(r, op.elem_size())] } else { &want[..] };
                        assert!(g == expected, "shared_memory {}: {what}: p={p} n={n} separate input={separate}: rank {r} differs from the canonical order", coll.name());
                    }
                }
            }
        }
    }
}

/// Whether `d` running `coll` on p = `hosts.len()` processes (n elements of
/// the tree-shape input, root 0, the job asking for the canonical order or
/// not) leaves some rank with another tree than the canonical one.
fn computes_another_tree(d: &Descriptor, coll: Collective, n: usize, hosts: &[usize], canonical: bool) -> bool {
    let p = hosts.len();
    let blocks = Blocks::even(n, p);
    let want = reference(&TreeShape, p, n, shape_input);
    let got = InProcess::run(p, |t| run_case(d, t, &TreeShape, coll, &shape_input(t.rank(), n), &blocks, 0, false, hosts, canonical));
    got.iter().enumerate().any(|(r, g)| match (g, coll) {
        (None, _) => false,
        (Some(g), Collective::ReduceScatter | Collective::ReduceScatterBlock) => g[..] != want[blocks.bytes(r, 8)],
        (Some(g), _) => g != &want,
    })
}

#[test]
fn hierarchical_computes_the_canonical_tree_on_hosts_in_blocks() {
    sweep("hierarchical");
}

/// The two-level algorithm needs both: hosts in blocks (on 3 hosts of 2
/// ranks scattered, or 2 hosts of 3, it computes another tree) and the
/// canonical order within and across hosts (a job that does not ask for it
/// lets the table choose the lanes' algorithm: another tree across 3 hosts
/// of 4).
#[test]
fn hierarchical_needs_hosts_in_blocks_and_the_canonical_parts() {
    let d = Algorithm::Hierarchical.descriptor();
    let differs = |hosts: &[usize], canonical: bool| Collective::ALL.iter().any(|&coll| computes_another_tree(d, coll, 2 * hosts.len() + 3, hosts, canonical));
    for (hosts, canonical, why) in [
        (&[0, 1, 2, 0, 1, 2][..], true, "scattered"),
        (&[0, 0, 0, 1, 1, 1][..], true, "hosts of 3"),
        (&[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2][..], false, "the lanes' algorithm free"),
    ] {
        assert!(!Hosts::of(hosts).keeps_canonical_order() || !canonical, "{why}: the selector would allow it");
        assert!(differs(hosts, canonical), "{why}: computes the canonical tree");
    }
    assert!(!differs(&[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2], true));
}

/// The shape check can fail: every algorithm not marked canonical computes
/// another tree for some p ≤ 16, and the doubles give a right-to-left sum
/// other bits than the canonical one.
#[test]
fn other_orders_are_told_apart() {
    for d in REGISTRY.iter().filter(|d| d.run.is_some()) {
        for &coll in d.collectives.iter().filter(|c| !d.canonical.contains(c)) {
            let differs = (3..=16).any(|p| computes_another_tree(d, coll, p + 3, &scattered_hosts(p), true));
            assert!(differs, "{} {}: computes the canonical tree for every p ≤ 16; mark it canonical", d.name, coll.name());
        }
    }
    for p in 3..=40 {
        let n = 64;
        // x0 + (x1 + (… + x_p−1)): never the canonical tree for p ≥ 3.
        let serial = (0..p).rev().map(|r| from_bytes::<f64>(&float_input(r, n))).reduce(|acc, x| x.iter().zip(&acc).map(|(x, a)| x + a).collect()).unwrap();
        let canonical = from_bytes::<f64>(&reference(&BuiltinReducer::new(OpKind::Sum, Elem::F64).unwrap(), p, n, float_input));
        assert!(serial.iter().zip(&canonical).any(|(a, b)| a.to_bits() != b.to_bits()), "p={p}: the doubles do not tell the orders apart");
    }
}

fn shape(coll: Collective, bytes: usize, procs: usize, reproducible: bool) -> Shape {
    Shape { coll, bytes, elems: bytes / 8, procs, commutative: true, builtin_op: true, topology: false, hosts: Hosts::OnePerHost, layout: fastred::select::Layout::one_per_host(procs), nhalf: 0, bisection: 0, floating: true, reproducible, shared_memory: true }
}

/// The selector in reproducible mode: whatever the table, the size, the
/// placement or the forced choice, it picks an algorithm that computes the
/// canonical order (for p ≤ 2 any algorithm does); integer ops are unaffected.
#[test]
fn the_selector_only_picks_canonical_algorithms() {
    let tables = [Table::default_table(), Table::parse(include_str!("../src/tuning/rabenseifner2004.table"), "§4").unwrap(), Table::parse("* * * - ring\n", "ring only").unwrap()];
    for table in &tables {
        for coll in Collective::ALL {
            for p in [1, 2, 3, 5, 8, 12, 100, 1024] {
                for bytes in [0, 8, 1000, 64 << 10, 1 << 20, 64 << 20] {
                    for (topology, hosts) in [(false, Hosts::OnePerHost), (true, Hosts::Shared), (false, Hosts::OneHost), (false, Hosts::SharedInBlocks)] {
                        for forced in [None, Some(Algorithm::Ring), Some(Algorithm::Native), Some(Algorithm::Rabenseifner), Some(Algorithm::Tree), Some(Algorithm::Hierarchical)] {
                            let s = Shape { topology, hosts, ..shape(coll, bytes, p, true) };
                            let c = choose(&s, forced, table);
                            assert!(p <= 2 || c.algorithm.can_run(&s), "{}: {coll:?} {bytes} B p={p} forced {forced:?}: {:?}", table.source, c.algorithm);
                            assert!(p <= 2 || c.algorithm.computes_canonical_order(coll) && (!c.algorithm.descriptor().uses_hosts || hosts != Hosts::Shared));
                            if let Some(f) = forced {
                                assert_eq!(c.override_ignored, !(f.can_run(&s) || (f == Algorithm::Native && p <= 2)), "{f:?}");
                            }
                            let integer = Shape { floating: false, ..s };
                            assert_eq!(choose(&integer, forced, table).algorithm, choose(&Shape { reproducible: false, ..integer }, forced, table).algorithm);
                        }
                    }
                }
            }
        }
    }
}
