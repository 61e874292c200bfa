//! fastred's own CPU time per call at scale, apart from the MPI library: one
//! process's part of each registered algorithm at p = 64 to 4096 over a
//! transport that records each message and drops it (`Solo`: sends vanish,
//! receives deliver zeros), so what is timed is the setup, the bookkeeping
//! per message and the reductions. The SimGrid SMPI sweeps do not see this
//! (they do not measure computation: docs/smpi.md, "The simulated machine"),
//! and one host's benchmarks run too few processes to show an O(p) setup.
//!
//! `cargo run --release --example cpu_per_call [P...] [-- NAME]` prints, per
//! collective, algorithm and p, the median µs per call of a short vector
//! (one double; the reduce-scatters one double per process) and the
//! messages of the process timed (rank p/3; the hierarchical algorithm on
//! hosts of 16 consecutive ranks, the last one short where 16 does not
//! divide p). A NAME (`circulant`, `reduce_scatter_block/ring`) keeps the
//! rows whose `collective/algorithm` contains it.
use fastred::algo::host_map::HostMap;
use fastred::algo::registry::{Job, REGISTRY};
use fastred::algo::{ring, Blocks};
use fastred::collective::Collective;
use fastred::model::CostModel;
use fastred::op::{BuiltinReducer, Elem, OpKind};
use fastred::select::Table;
use fastred::transport::solo::Solo;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let procs: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let only = args.iter().find(|a| a.parse::<usize>().is_err()).cloned().unwrap_or_default();
    let procs = if procs.is_empty() { vec![64, 1024, 4096] } else { procs };
    let op = BuiltinReducer::new(OpKind::Sum, Elem::F64).expect("sum on doubles");
    let (model, table) = (CostModel::default(), Table::default_table());
    println!("# collective algorithm p messages us_per_call");
    for coll in [Collective::Allreduce, Collective::Reduce, Collective::ReduceScatterBlock] {
        for d in REGISTRY.iter().filter(|d| d.run.is_some() && !d.shared_memory && d.collectives.contains(&coll)) {
            if !format!("{}/{}", coll.name(), d.name).contains(&only) {
                continue;
            }
            for &p in &procs {
                let hosts: Vec<usize> = (0..p).map(|r| if d.uses_hosts { r / 16 } else { r }).collect();
                let order = ring::rank_order(p);
                let elems = if coll == Collective::Allreduce || coll == Collective::Reduce { 1 } else { p };
                let blocks = Blocks::even(elems, if elems == 1 { 1 } else { p });
                let job = Job { coll, blocks: &blocks, root: 0, commutative: true, ring: &order, hosts: &HostMap::new(&hosts), segment_bytes: None, model: &model, canonical: false, table: &table, nhalf: 30 << 10 };
                let run = d.run.expect("filtered: runs");
                let rank = p / 3;
                let mut times = Vec::new();
                let mut messages = 0;
                // At least 9 calls and about 50 ms of them.
                let mut spent = 0.0;
                while times.len() < 9 || (spent < 0.05 && times.len() < 10_000) {
                    let t = Solo::new(rank, p);
                    let mut buf = vec![0u8; elems * 8];
                    let start = Instant::now();
                    let result = run(&t, &op, &mut buf, &job);
                    let took = start.elapsed().as_secs_f64();
                    if result.is_err() {
                        break;
                    }
                    spent += took;
                    times.push(took);
                    messages = t.events().len();
                }
                if times.is_empty() {
                    continue;
                }
                times.sort_by(f64::total_cmp);
                println!("{} {} {p} {messages} {:.2}", coll.name(), d.name, times[times.len() / 2] * 1e6);
            }
        }
    }
}
