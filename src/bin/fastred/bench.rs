//! `fastred bench`, `fastred tune` and `fastred plot`: build and run the
//! benchmark program shipped in `bench/fastred_bench.c`, turn its CSV into a
//! tuning table or into plots.

use crate::results::{read_all, read_csv, winners, Record};
use crate::{library_for, mpirun_command, parse_launch, plot, status_of};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BENCH_SOURCE: &str = include_str!("../../../bench/fastred_bench.c");

fn pick_flavour(mpi: Option<String>) -> Result<String, String> {
    if let Some(f) = mpi {
        return Ok(f);
    }
    ["openmpi", "mpich"].iter().find(|f| library_for(f).is_some()).map(|f| f.to_string()).ok_or_else(|| "no libfastred.so built (run ci/build.sh)".into())
}

/// Compile the shipped benchmark for `flavour` next to this binary (once per
/// source change). SimGrid SMPI cannot preload: there the program is linked
/// with `lib` (`--no-as-needed`, or SMPI's weak `MPI_*` keep the built-ins),
/// so it is one program per library directory (with one for every `lib`, a
/// program linked to another build would run that build's code).
pub fn bench_binary(flavour: &str, lib: &Path) -> Result<PathBuf, String> {
    let dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)).unwrap_or_else(|| PathBuf::from("."));
    let src = dir.join("fastred_bench.c");
    let exe = if flavour == "smpi" {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::fs::canonicalize(lib).unwrap_or_else(|_| lib.to_path_buf()).hash(&mut h);
        dir.join(format!("fastred_bench.smpi-{:016x}", h.finish()))
    } else {
        dir.join(format!("fastred_bench.{flavour}"))
    };
    let stale = std::fs::read_to_string(&src).map(|s| s != BENCH_SOURCE).unwrap_or(true) || !exe.exists();
    if stale {
        // Written and compiled under this process's own names, then renamed:
        // concurrent runs (e.g. two sweeps) never load a half-written program.
        let src_tmp = dir.join(format!("fastred_bench.{}.c", std::process::id()));
        let exe_tmp = dir.join(format!("fastred_bench.{flavour}.{}", std::process::id()));
        std::fs::write(&src_tmp, BENCH_SOURCE).map_err(|e| format!("{}: {e}", src_tmp.display()))?;
        let compiler = if flavour == "smpi" { "smpicc".to_string() } else { format!("mpicc.{flavour}") };
        let mut cc = Command::new(&compiler);
        cc.args(["-O2", "-o"]).arg(&exe_tmp).arg(&src_tmp).arg("-lm");
        if flavour == "smpi" {
            let libdir = lib.parent().unwrap_or(Path::new("."));
            cc.arg("-Wl,--no-as-needed").arg(format!("-L{}", libdir.display())).arg("-lfastred").arg(format!("-Wl,-rpath,{}", libdir.display()));
        }
        let status = cc.status().map_err(|e| format!("cannot run {compiler}: {e}"))?;
        if !status.success() {
            let _ = std::fs::remove_file(&src_tmp);
            return Err(format!("{compiler} failed on {}", src_tmp.display()));
        }
        std::fs::rename(&exe_tmp, &exe).and_then(|_| std::fs::rename(&src_tmp, &src)).map_err(|e| format!("{}: {e}", exe.display()))?;
    }
    Ok(exe)
}

/// Split off `-- bench args` and fastred's own `--csv` / `--plot` / `--out`.
pub fn split_args(args: Vec<String>) -> (Vec<String>, Vec<String>, BTreeMap<String, String>) {
    let (mine, bench_args) = match args.iter().position(|a| a == "--") {
        Some(i) => (args[..i].to_vec(), args[i + 1..].to_vec()),
        None => (args, vec![]),
    };
    let mut launch = vec![];
    let mut opts = BTreeMap::new();
    let mut it = mine.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--csv" | "--plot" | "--out" => {
                opts.insert(a.trim_start_matches('-').to_string(), it.next().unwrap_or_default());
            }
            _ => launch.push(a),
        }
    }
    (launch, bench_args, opts)
}

/// Run the benchmark, writing `csv`; returns the exit status and the benchmark program.
pub fn run_bench(launch_args: Vec<String>, mut bench_args: Vec<String>, csv: &Path) -> Result<(i32, PathBuf), String> {
    let l = parse_launch(launch_args, false);
    let flavour = pick_flavour(l.mpi)?;
    let lib = library_for(&flavour).ok_or_else(|| format!("no libfastred.so built for {flavour}"))?;
    let exe = bench_binary(&flavour, &lib)?;
    bench_args.push("--csv".into());
    bench_args.push(csv.display().to_string());
    let mut cmd = mpirun_command(&flavour, l.launcher.as_deref(), &lib);
    cmd.args(&l.mpirun_args).arg(&exe).args(&bench_args);
    eprintln!("fastred bench: {flavour}, {}, results in {}", exe.display(), csv.display());
    Ok((status_of(cmd), exe))
}

fn absolute(p: &str) -> PathBuf {
    let p = PathBuf::from(p);
    if p.is_absolute() { p } else { std::env::current_dir().unwrap_or_default().join(p) }
}

pub fn bench(args: Vec<String>) -> i32 {
    let (launch, bench_args, opts) = split_args(args);
    let csv = absolute(opts.get("csv").map(String::as_str).unwrap_or("fastred-bench.csv"));
    match run_bench(launch, bench_args, &csv) {
        Ok((0, _)) => {}
        Ok((code, _)) => return code,
        Err(e) => {
            eprintln!("fastred bench: {e}");
            return 2;
        }
    }
    match opts.get("plot") {
        Some(dir) => plot_files(&[csv], Path::new(dir)),
        None => 0,
    }
}

pub fn plot_command(args: Vec<String>) -> i32 {
    let (files, _, opts) = split_args(args);
    let Some(dir) = opts.get("out") else {
        eprintln!("fastred plot: --out DIR is required");
        return 2;
    };
    plot_files(&files.iter().map(PathBuf::from).collect::<Vec<_>>(), Path::new(dir))
}

fn plot_files(files: &[PathBuf], dir: &Path) -> i32 {
    let records = match read_all(files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fastred plot: {e}");
            return 2;
        }
    };
    match plot::render_all(&records, dir) {
        Ok(written) => {
            for w in written {
                println!("wrote {}", w.display());
            }
            0
        }
        Err(e) => {
            eprintln!("fastred plot: {e}");
            2
        }
    }
}

/// One size range of a measured rule: sizes `lo..=hi` (`hi` None: no upper
/// bound) and the fastest variant there.
pub struct SizeRange {
    pub lo: usize,
    pub hi: Option<usize>,
    pub winner: String,
}

/// Per collective and process count, runs of measured sizes with the same
/// winner as size ranges; the boundary between two measured sizes is their
/// geometric mean.
pub fn size_ranges(records: &[Record]) -> BTreeMap<(String, usize), Vec<SizeRange>> {
    let mut groups: BTreeMap<(String, usize), Vec<(usize, String)>> = BTreeMap::new();
    for ((coll, procs, bytes), (variant, _)) in &winners(records) {
        groups.entry((coll.clone(), *procs)).or_default().push((*bytes, variant.clone()));
    }
    let mut out = BTreeMap::new();
    for (key, sizes) in groups {
        let mut ranges = vec![];
        let mut i = 0;
        while i < sizes.len() {
            let mut j = i;
            while j + 1 < sizes.len() && sizes[j + 1].1 == sizes[i].1 {
                j += 1;
            }
            let lo = if i == 0 { 0 } else { ((sizes[i - 1].0 as f64 * sizes[i].0 as f64).sqrt() as usize) + 1 };
            let hi = (j + 1 < sizes.len()).then(|| (sizes[j].0 as f64 * sizes[j + 1].0 as f64).sqrt() as usize);
            ranges.push(SizeRange { lo, hi, winner: sizes[i].1.clone() });
            i = j + 1;
        }
        out.insert(key, ranges);
    }
    out
}

/// The line of a tuned table after which the default table it carries follows.
const DEFAULT_TABLE_MARK: &str = "# ---- the default table ----";

/// A tuning table from measurements ([`size_ranges`]); the default table
/// follows for every shape not measured.
pub fn tuning_table(records: &[Record], origin: &str) -> String {
    let mut out = format!(
        "# fastred tuning table measured by `fastred tune` ({origin}).\n\
         # Format: see src/tuning/default.table. Measured rules first; the default table after them.\n\
         # Non-commutative ops and calls an algorithm cannot run fall through to later rules.\n\
         # Rules handing calls to the library (native) are for floating-point types only: they were\n\
         # measured on doubles, and both MPI libraries get some integer reductions wrong (README).\n"
    );
    if let Some(l) = crate::fit::fit_levels(records) {
        let said = |f: &Option<crate::fit::Fit>, what: &str| match f {
            Some(f) => format!("# {what}: fitted to {} measurements (median error {:.1}%)\n", f.points, f.median_error * 100.0),
            None => format!("# {what}: not measured, the compiled-in values\n"),
        };
        out += "# The α-β-γ model of the algorithms whose formula is linear in α, β, γ: what `model` rules\n\
                # estimate with (α, β, γ between hosts; α, β within a host last).\n";
        out += &said(&l.across, "between hosts (runs with one rank per host)");
        out += &said(&l.within, "within a host (runs on one host)");
        let m = l.model;
        out += &format!("model {:.4e} {:.4e} {:.4e} {:.4e} {:.4e}\n", m.alpha, m.beta, m.gamma, m.alpha_intra, m.beta_intra);
    }
    // Only variants a table can name: not "default", nor the library's own
    // algorithms measured one by one ("native:NAME", `tune --export`'s business).
    // Each placement measured gets its own rules, conditioned on it: a table
    // tuned on one host must not decide for the same p across hosts.
    let selectable: Vec<Record> = records.iter().filter(|r| fastred::select::Algorithm::from_name(&r.variant).is_some()).cloned().collect();
    let mut placements: Vec<&str> = selectable.iter().map(|r| r.placement.as_str()).collect();
    placements.sort_unstable();
    placements.dedup();
    for placement in placements {
        let measured: Vec<Record> = selectable.iter().filter(|r| r.placement == placement).cloned().collect();
        for ((coll, procs), ranges) in size_ranges(&measured) {
            for r in ranges {
                let hi = r.hi.map_or(String::new(), |h| h.to_string());
                let conditions: Vec<&str> = [(r.winner == "native").then_some("float"), (!placement.is_empty()).then_some(placement)].into_iter().flatten().collect();
                let conditions = if conditions.is_empty() { "-".to_string() } else { conditions.join(",") };
                out += &format!("{coll:21} {:>18} {procs:>6}  {conditions:22} {}\n", format!("{}-{hi}", r.lo), r.winner);
            }
        }
    }
    out += &format!("\n{DEFAULT_TABLE_MARK}\n");
    out += fastred::select::DEFAULT_TABLE;
    out
}

pub fn tune(args: Vec<String>) -> i32 {
    // --export KIND FILE [--from CSV[,CSV...]]...: a file for the library's own selector.
    if let Some(i) = args.iter().position(|a| a == "--export") {
        let (Some(kind), Some(file)) = (args.get(i + 1).cloned(), args.get(i + 2).cloned()) else {
            eprintln!("fastred tune: --export needs a kind (openmpi-rules, mpich-json) and a file");
            return 2;
        };
        let mut rest: Vec<String> = args[..i].iter().chain(&args[i + 3..]).cloned().collect();
        let mut from = vec![];
        while let Some(j) = rest.iter().position(|a| a == "--from") {
            let list = if j + 1 < rest.len() { rest.remove(j + 1) } else { String::new() };
            rest.remove(j);
            from.extend(list.split(',').filter(|f| !f.is_empty()).map(String::from));
        }
        return crate::export::export(&kind, &file, from, rest);
    }
    // --from CSV[,CSV...] --out FILE: the table from earlier measurements, no run.
    if let Some(i) = args.iter().position(|a| a == "--from") {
        let files: Vec<PathBuf> = args.get(i + 1).map(|l| l.split(',').map(PathBuf::from).collect()).unwrap_or_default();
        let Some(out) = args.iter().position(|a| a == "--out").and_then(|j| args.get(j + 1)) else {
            eprintln!("fastred tune: --out FILE is required");
            return 2;
        };
        return match read_all(&files) {
            Ok(records) => write_table(&records, &format!("from {}", args[i + 1]), out, &files[0]),
            Err(e) => {
                eprintln!("fastred tune: {e}");
                2
            }
        };
    }
    let (launch, mut bench_args, opts) = split_args(args);
    let Some(out) = opts.get("out") else {
        eprintln!("fastred tune: --out FILE is required");
        return 2;
    };
    if !bench_args.iter().any(|a| a == "--algos") {
        bench_args.extend(["--algos".to_string(), "all".to_string()]);
    }
    let csv = absolute(&format!("{out}.csv"));
    match run_bench(launch, bench_args.clone(), &csv) {
        Ok((0, _)) => {}
        Ok((code, _)) => return code,
        Err(e) => {
            eprintln!("fastred tune: {e}");
            return 2;
        }
    }
    let records = match read_csv(&csv) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fastred tune: {e}");
            return 2;
        }
    };
    write_table(&records, &format!("bench args: {}", bench_args.join(" ")), out, &csv)
}

fn write_table(records: &[Record], origin: &str, out: &str, csv: &Path) -> i32 {
    let table = tuning_table(records, origin);
    if let Err(e) = fastred::select::Table::parse(&table, out) {
        eprintln!("fastred tune: the generated table does not parse ({e}); not written");
        return 2;
    }
    if let Err(e) = std::fs::write(out, &table) {
        eprintln!("fastred tune: {out}: {e}");
        return 2;
    }
    println!("wrote {out} (measurements in {}); use it with FASTRED_TUNING={out}", csv.display());
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The measured rules of a tuned table (those before the default table
    /// it carries) for `coll` whose line contains `procs`.
    fn measured_rules<'a>(t: &'a str, coll: &str, procs: &str) -> Vec<&'a str> {
        t.lines().take_while(|l| *l != DEFAULT_TABLE_MARK).filter(|l| l.starts_with(coll) && l.contains(procs)).collect()
    }

    #[test]
    fn tuning_table_merges_runs_of_winners_and_parses() {
        let mut r = vec![];
        for (bytes, fast) in [(1024, "tree"), (2048, "tree"), (4096, "ring"), (8192, "ring"), (16384, "native")] {
            for v in ["native", "default", "tree", "ring"] {
                r.push(Record::timed("allreduce", 8, bytes, v, if v == fast { 1.0 } else if v == "default" { 0.1 } else { 2.0 }));
            }
        }
        let t = tuning_table(&r, "test");
        let rules = measured_rules(&t, "allreduce", " 8 ");
        assert_eq!(rules.len(), 3, "{t}");
        assert!(rules[0].contains("0-2896") && rules[0].ends_with("tree"), "{}", rules[0]);
        assert!(rules[1].contains("2897-11585") && rules[1].ends_with("ring"), "{}", rules[1]);
        assert!(rules[2].contains("11586-") && rules[2].contains(" float ") && rules[2].ends_with("native"), "{}", rules[2]);
        let table = fastred::select::Table::parse(&t, "tuned").unwrap();
        let shape = fastred::select::Shape {
            coll: fastred::select::Collective::Allreduce,
            bytes: 5000,
            elems: 625,
            procs: 8,
            commutative: true,
            builtin_op: true,
            topology: false,
            hosts: fastred::select::Hosts::OnePerHost,
            layout: fastred::select::Layout::one_per_host(8),
            nhalf: 0,
            bisection: 0,
            floating: true,
            reproducible: false,
            shared_memory: true,
        };
        assert_eq!(fastred::select::choose(&shape, None, &table).algorithm.name(), "ring");
        // The measured native rule takes floating-point calls only; integer ones fall through.
        let long = fastred::select::Shape { bytes: 20000, elems: 2500, ..shape };
        assert_eq!(fastred::select::choose(&long, None, &table).algorithm.name(), "native");
        let integer = fastred::select::Shape { floating: false, ..long };
        assert_ne!(fastred::select::choose(&integer, None, &table).algorithm.name(), "native");
    }

    #[test]
    fn tuned_rules_apply_to_the_placement_they_were_measured_on() {
        let mut r = vec![];
        let fastest = [("onehost", "tree"), ("hostblocks", "hierarchical"), ("scattered", "rabenseifner")];
        for (placement, fast) in fastest {
            for v in ["native", fast, "ring"] {
                let mut rec = Record::timed("allreduce", 8, 1 << 20, v, if v == fast { 1.0 } else { 2.0 });
                rec.placement = placement.into();
                r.push(rec);
            }
        }
        let t = tuning_table(&r, "test");
        let rules = measured_rules(&t, "allreduce", " 8 ");
        assert_eq!(rules.len(), 3, "{t}");
        for (placement, fast) in fastest {
            assert!(rules.iter().any(|l| l.contains(&format!(" {placement} ")) && l.ends_with(fast)), "{t}");
        }
        let table = fastred::select::Table::parse(&t, "tuned").unwrap();
        let shape = |hosts| fastred::select::Shape {
            coll: fastred::select::Collective::Allreduce,
            bytes: 1 << 20,
            elems: 1 << 17,
            procs: 8,
            commutative: true,
            builtin_op: true,
            topology: false,
            hosts,
            layout: fastred::select::Layout { hosts: 4, fewest: 2, most: 2 },
            nhalf: 0,
            bisection: 0,
            floating: true,
            reproducible: false,
            shared_memory: true,
        };
        use fastred::select::{choose, Hosts};
        assert_eq!(choose(&shape(Hosts::OneHost), None, &table).algorithm.name(), "tree");
        assert_eq!(choose(&shape(Hosts::SharedInBlocks), None, &table).algorithm.name(), "hierarchical");
        assert_eq!(choose(&shape(Hosts::Shared), None, &table).algorithm.name(), "rabenseifner");
        // Not measured one rank per host: the default table decides there.
        let default = fastred::select::Table::parse(fastred::select::DEFAULT_TABLE, "default").unwrap();
        assert_eq!(
            choose(&shape(Hosts::OnePerHost), None, &table).algorithm.name(),
            choose(&shape(Hosts::OnePerHost), None, &default).algorithm.name()
        );
    }
}

/// `fastred report CSV...`: a Markdown table per collective: for each
/// process count and size, native's time, fastred's default choice and the
/// fastest algorithm as speed-ups over native (same run), and % of the bound.
pub fn report_command(files: Vec<String>) -> i32 {
    let records = match read_all(&files.iter().map(PathBuf::from).collect::<Vec<_>>()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fastred report: {e}");
            return 2;
        }
    };
    print!("{}", report(&records));
    0
}

pub fn report(records: &[Record]) -> String {
    let best = winners(records);
    let mut out = String::new();
    let colls: Vec<String> = records.iter().map(|r| r.coll.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    for coll in colls {
        out += &format!("\n{coll}:\n\n| p | bytes | native s | default (ran) | × native | % bound | fastest | × native | % bound |\n|---|---|---|---|---|---|---|---|---|\n");
        for ((c, p, b), (winner, _)) in best.iter().filter(|((c, _, _), _)| *c == coll) {
            let find = |v: &str| records.iter().find(|r| &r.coll == c && r.procs == *p && r.bytes == *b && r.variant == v);
            let (Some(native), Some(default)) = (find("native"), find("default")) else { continue };
            let fastest = find(winner).unwrap();
            out += &format!(
                "| {p} | {b} | {:.4} | {} | {:.2} | {:.1} | {winner} | {:.2} | {:.1} |\n",
                native.median,
                default.algorithm,
                default.vs_native,
                default.pct_of_bound,
                fastest.vs_native,
                fastest.pct_of_bound
            );
        }
    }
    out
}
