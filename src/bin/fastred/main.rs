//! `fastred`: the command-line companion of libfastred.so.
//!
//! ```text
//! fastred run [--launcher CMD] [mpirun args] ./app [args]   preload the matching build, run under mpirun
//! fastred info                                              builds, algorithms, the active tuning table
//! fastred explain --coll C --procs P --bytes N [--op sum|user] [--noncommutative] [--integer] [--topology] [--ranks-per-host K [--cyclic]] [--nhalf BYTES] [--bisection PERCENT] [--reproducible] [--model A,B,G[,AI,BI]]
//! fastred bench [--launcher CMD] [mpirun args] [-- bench args] [--csv F] [--plot DIR]
//! fastred tune  [--launcher CMD] [mpirun args] [-- bench args] --out FILE
//! fastred tune --export openmpi-rules|mpich-json FILE [--from CSV,...] [...]
//! fastred plot CSV... --out DIR                             SVG plots of bench results
//! fastred report CSV...                                     Markdown summary of bench results
//! ```

mod bench;
mod export;
mod fit;
mod plot;
mod results;

use fastred::model::CostModel;
use fastred::select::{self, delta_expo_max, Algorithm, Collective, Shape, Table};
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

fn usage() -> ! {
    eprintln!("{}", USAGE.trim());
    exit(2)
}

const USAGE: &str = "
usage:
  fastred run [--mpi mpich|openmpi] [--launcher CMD] [mpirun args] PROGRAM [args]
        detect the MPI PROGRAM links, preload the matching libfastred.so, run the matching
        mpirun (or CMD, an mpirun-compatible launcher), forward FASTRED_* to every rank
  fastred info
        this build, the libfastred.so builds found, algorithms per collective, the active table
  fastred algorithms
        the algorithm registry, one line each: name, collectives, rank-ordered or not, source
  fastred explain --coll allreduce|reduce|reduce_scatter|reduce_scatter_block --procs P --bytes N
                  [--op sum|user] [--noncommutative] [--integer] [--topology] [--ranks-per-host K [--cyclic]] [--nhalf BYTES] [--bisection PERCENT] [--elem BYTES] [--reproducible]
                  [--model ALPHA,BETA,GAMMA[,ALPHA_INTRA,BETA_INTRA]]   (s, s/B, s/B; default: the active table's `model` line, else 50e-6,8e-9,1e-9,1e-6,2e-10)
        the selector's decision and why, with the α-β-γ model's estimate per algorithm
  fastred bench [--mpi F] [--launcher CMD] [mpirun args] [--csv FILE] [--plot DIR] [-- bench args]
        run bench/fastred_bench.c (sizes, collectives, algorithms: see `-- --help`)
  fastred tune [--mpi F] [--launcher CMD] [mpirun args] --out FILE [-- bench args]
  fastred tune --from CSV[,CSV...] --out FILE
        benchmark every algorithm and write a FASTRED_TUNING table of the fastest per size, with
        the α-β-γ model fitted to the times (its `model` line; --from: from earlier runs' CSVs)
  fastred tune --export openmpi-rules|mpich-json FILE [--from CSV,...] [--launcher CMD] [mpirun args] [-- bench args]
        benchmark each of the MPI library's own algorithms (forced through its controls) and write
        the fastest per size in the format its selector loads (Open MPI's dynamic rules file,
        MPICH's JSON tuning file); --from writes it from earlier runs' CSVs instead
  fastred plot CSV... --out DIR
        busbw-vs-size plots per collective and process count, and a map of the fastest algorithm
  fastred report CSV...
        Markdown tables: native, fastred's default and the fastest algorithm, as ratios and % of bound
";

fn main() {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`fastred explain … | head`)
    // panicked; a command-line tool should end quietly instead, as `cat` does.
    // SAFETY: called first, before any thread exists; SIG_DFL is a valid disposition.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else { usage() };
    let rest = rest.to_vec();
    let code = match cmd.as_str() {
        "run" => run_command(rest),
        "info" => info(),
        "algorithms" => algorithms(),
        "explain" => explain(rest),
        "bench" => bench::bench(rest),
        "tune" => bench::tune(rest),
        "plot" => bench::plot_command(rest),
        "report" => bench::report_command(rest),
        "-h" | "--help" | "help" => {
            println!("{}", USAGE.trim());
            0
        }
        other => {
            eprintln!("fastred: unknown command '{other}'");
            usage()
        }
    };
    exit(code)
}

/// Which MPI a program links, from its dynamic dependencies.
pub fn detect_mpi(program: &Path) -> Result<&'static str, String> {
    let out = Command::new("ldd").arg(program).output().map_err(|e| format!("cannot run ldd: {e}"))?;
    let deps = String::from_utf8_lossy(&out.stdout);
    if deps.contains("libmpich") {
        Ok("mpich")
    } else if deps.contains("openmpi") || deps.contains("libmpi.so.40") {
        Ok("openmpi")
    } else {
        Err(format!("{} links neither MPICH nor Open MPI (ldd: {})", program.display(), deps.trim()))
    }
}

/// The libfastred.so build for `flavour`: in `FASTRED_LIBDIR/<flavour>/`, in
/// an install prefix (`PREFIX/bin/fastred` → `PREFIX/lib/fastred/<flavour>/`,
/// ci/install.sh's layout), or in the build tree (target/<flavour>/release/).
pub fn library_for(flavour: &str) -> Option<PathBuf> {
    let mut candidates = vec![];
    if let Ok(dir) = std::env::var("FASTRED_LIBDIR") {
        candidates.push(PathBuf::from(dir).join(flavour).join("libfastred.so"));
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(prefix) = exe.parent().and_then(Path::parent) {
            candidates.push(prefix.join("lib").join("fastred").join(flavour).join("libfastred.so"));
        }
        // target/<f>/release/fastred → target/<flavour>/release/libfastred.so
        if let Some(target) = exe.parent().and_then(Path::parent).and_then(Path::parent) {
            candidates.push(target.join(flavour).join("release").join("libfastred.so"));
        }
        if let Some(dir) = exe.parent() {
            candidates.push(dir.join(format!("libfastred-{flavour}.so")));
        }
    }
    candidates.into_iter().find(|p| p.exists())
}

/// An mpirun command line for `flavour` that preloads `lib` and forwards the
/// FASTRED_* variables: `launcher` (split on spaces) or mpirun.<flavour>.
pub fn mpirun_command(flavour: &str, launcher: Option<&str>, lib: &Path) -> Command {
    let words: Vec<String> = match launcher {
        Some(l) => l.split_whitespace().map(String::from).collect(),
        None => vec![format!("mpirun.{flavour}")],
    };
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]);
    let fastred_vars: Vec<String> = std::env::vars().map(|(k, _)| k).filter(|k| k.starts_with("FASTRED_")).collect();
    if flavour == "openmpi" {
        if launcher.is_none() && is_root() {
            cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        cmd.arg("-x").arg(format!("LD_PRELOAD={}", lib.display()));
        for v in fastred_vars {
            cmd.arg("-x").arg(v);
        }
    } else if flavour == "smpi" {
        // Every rank runs in smpirun's one process (the environment is shared);
        // each gets its own copy of the library, linked into the program.
        cmd.arg(format!("--cfg=smpi/privatize-libs:{}", lib.display()));
    } else {
        // Hydra passes the whole environment on; LD_PRELOAD only to the ranks.
        cmd.arg("-genv").arg("LD_PRELOAD").arg(lib);
    }
    cmd
}

fn is_root() -> bool {
    // /proc/self belongs to the process's effective user.
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Split `[--mpi F] [--launcher CMD] [mpirun args] PROGRAM [args]`.
pub struct Launch {
    pub mpi: Option<String>,
    pub launcher: Option<String>,
    pub mpirun_args: Vec<String>,
    pub program: Option<PathBuf>,
    pub program_args: Vec<String>,
}

/// Options taken by `fastred` itself, anywhere before the program.
pub fn parse_launch(args: Vec<String>, want_program: bool) -> Launch {
    let mut l = Launch { mpi: None, launcher: None, mpirun_args: vec![], program: None, program_args: vec![] };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--mpi" => l.mpi = it.next(),
            "--launcher" => l.launcher = it.next(),
            _ if want_program && !a.starts_with('-') && Path::new(&a).is_file() => {
                l.program = Some(PathBuf::from(a));
                l.program_args = it.collect();
                break;
            }
            _ => l.mpirun_args.push(a),
        }
    }
    l
}

fn run_command(args: Vec<String>) -> i32 {
    let l = parse_launch(args, true);
    let Some(program) = l.program else {
        eprintln!("fastred run: no program found among the arguments (give a path to an executable)");
        return 2;
    };
    let flavour = match l.mpi.clone().map(Ok).unwrap_or_else(|| detect_mpi(&program).map(String::from)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("fastred run: {e}");
            return 2;
        }
    };
    let Some(lib) = library_for(&flavour) else {
        eprintln!("fastred run: no libfastred.so built for {flavour} (run ci/build.sh {flavour}, or set FASTRED_LIBDIR)");
        return 2;
    };
    let mut cmd = mpirun_command(&flavour, l.launcher.as_deref(), &lib);
    cmd.args(&l.mpirun_args).arg(&program).args(&l.program_args);
    eprintln!("fastred run: {flavour}, preloading {}", lib.display());
    status_of(cmd)
}

pub fn status_of(mut cmd: Command) -> i32 {
    match cmd.status() {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!("fastred: cannot start {:?}: {e}", cmd.get_program());
            127
        }
    }
}

/// The table `FASTRED_TUNING` names, or the default.
fn active_table() -> Table {
    match std::env::var("FASTRED_TUNING") {
        Ok(path) => match std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|t| Table::parse(&t, &path)) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("FASTRED_TUNING: {e}; using the default table");
                Table::default_table()
            }
        },
        Err(_) => Table::default_table(),
    }
}

/// The registry, one tab-separated line per algorithm (the MPI test runner's
/// forced-algorithm sweep reads it).
fn algorithms() -> i32 {
    for d in fastred::algo::registry::REGISTRY.iter() {
        let colls: Vec<&str> = d.collectives.iter().map(|c| c.name()).collect();
        let order = if d.rank_ordered { "rank-ordered" } else { "commutative-only" };
        println!("{}\t{}\t{order}\t{}", d.name, colls.join(","), d.source);
    }
    0
}

fn info() -> i32 {
    println!("fastred {} (this tool built against {})", env!("CARGO_PKG_VERSION"), env!("FASTRED_MPI_FLAVOUR"));
    for f in ["mpich", "openmpi"] {
        match library_for(f) {
            Some(p) => println!("  libfastred.so for {f:8} {}", p.display()),
            None => println!("  libfastred.so for {f:8} not built (ci/build.sh {f})"),
        }
    }
    println!("\nalgorithms (FASTRED_ALGO names) per collective:");
    for c in Collective::ALL {
        println!("  {:21} {}", c.name(), Algorithm::names_for(c).join(", "));
    }
    println!("\nalgorithms computing the canonical order (FASTRED_REPRODUCIBLE=1, p > 2):");
    for c in Collective::ALL {
        let names: Vec<&str> = Algorithm::ALL.iter().filter(|a| a.computes_canonical_order(c)).map(|a| a.name()).collect();
        println!("  {:21} {}", c.name(), names.join(", "));
    }
    println!("\nenvironment: FASTRED_ALGO, FASTRED_TUNING, FASTRED_TOPOLOGY, FASTRED_SEGMENT, FASTRED_PIECE, FASTRED_REPRODUCIBLE, FASTRED_NHALF, FASTRED_LOG, FASTRED_STATS");
    for v in ["FASTRED_ALGO", "FASTRED_TUNING", "FASTRED_TOPOLOGY", "FASTRED_SEGMENT", "FASTRED_PIECE", "FASTRED_REPRODUCIBLE", "FASTRED_NHALF"] {
        if let Ok(x) = std::env::var(v) {
            println!("  {v}={x}");
        }
    }
    let table = active_table();
    println!("\nactive tuning table: {}", table.source);
    if table.source == "default table" {
        print!("{}", select::DEFAULT_TABLE);
    } else if let Ok(t) = std::fs::read_to_string(&table.source) {
        print!("{t}");
    }
    0
}

fn explain(args: Vec<String>) -> i32 {
    let (mut coll, mut procs, mut bytes, mut elem) = (None, None, None, 8usize);
    let (mut builtin, mut commutative, mut topology) = (true, true, false);
    let mut ranks_per_host = 1usize;
    let mut cyclic = false;
    let mut floating = true;
    let mut m: Option<CostModel> = None;
    // As the library reads it (config.rs: a positive size, else measured).
    let mut nhalf = std::env::var("FASTRED_NHALF").ok().and_then(|v| select::parse_size(v.trim(), true)).filter(|&n| n > 0).map(|n| (n, "FASTRED_NHALF"));
    let mut bisection = std::env::var("FASTRED_BISECTION").ok().and_then(|v| fastred::config::parse_percent(&v)).map(|n| (n, "FASTRED_BISECTION"));
    let mut reproducible = std::env::var("FASTRED_REPRODUCIBLE").is_ok_and(|v| fastred::config::parse_switch(&v) == Some(true));
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--coll" => coll = Collective::from_name(&value()),
            "--procs" => procs = value().parse::<usize>().ok(),
            "--bytes" => bytes = select::parse_size(&value(), true),
            "--elem" => elem = value().parse().unwrap_or(8),
            "--op" => builtin = value() != "user",
            "--noncommutative" => commutative = false,
            "--integer" => floating = false,
            "--topology" => topology = true,
            "--reproducible" => reproducible = true,
            "--ranks-per-host" => ranks_per_host = value().parse().unwrap_or_else(|_| usage()),
            "--cyclic" => cyclic = true,
            "--nhalf" => nhalf = Some((select::parse_size(&value(), true).unwrap_or_else(|| usage()), "--nhalf")),
            "--bisection" => bisection = Some((fastred::config::parse_percent(&value()).unwrap_or_else(|| usage()), "--bisection")),
            "--model" => m = Some(CostModel::from_fields(value().split(',')).unwrap_or_else(|| usage())),
            _ => usage(),
        }
    }
    let (Some(coll), Some(procs), Some(bytes)) = (coll, procs, bytes) else {
        eprintln!("fastred explain: --coll, --procs and --bytes are required");
        return 2;
    };
    // K consecutive ranks per host, or (--cyclic) rank r on host r mod N.
    let k = ranks_per_host.max(1);
    let nodes = procs.div_ceil(k).max(1);
    let host_of: Vec<usize> = (0..procs).map(|r| if cyclic { r % nodes } else { r / k }).collect();
    let hosts = select::Hosts::of(&host_of);
    // As the library sees it (comm.rs, `ring_matters`): the ring by hosts differs from rank order.
    let topology = topology || fastred::topology::automatic_ring(&host_of).iter().enumerate().any(|(i, &r)| i != r);
    let forced = std::env::var("FASTRED_ALGO").ok().map(|s| fastred::config::parse_forced(&s).0.get(coll)).unwrap_or(None);
    let table = active_table();
    // As the library measures it: on several hosts, where the table asks.
    let measured = host_of.iter().any(|&h| h != 0) && table.asks_nhalf();
    let nhalf_bytes = nhalf.filter(|_| measured).map_or(0, |(n, _)| n);
    // On 4 hosts or more where a rule for this many processes asks (the library measures it on fast networks only).
    let crossed = nodes >= fastred::network::CROSS_HOSTS && table.asks_bisection(procs);
    let bisection_share = bisection.filter(|_| crossed).map_or(0, |(n, _)| n);
    let shape = Shape { coll, bytes, elems: bytes / elem.max(1), procs, commutative, builtin_op: builtin, topology, hosts, layout: select::Layout::of(&host_of), nhalf: nhalf_bytes, bisection: bisection_share, floating: floating && builtin, reproducible, shared_memory: true };
    let choice = select::choose(&shape, forced, &table);
    // The estimates shown: the given model, else the one the table's `model` rules use.
    let m = m.unwrap_or(table.model);
    println!("{} of {bytes} B ({} elements of {elem} B) on {procs} processes{}{}:", coll.name(), shape.elems,
        if commutative { "" } else { ", non-commutative op" }, if topology { ", topology calls for the ring" } else { "" });
    if ranks_per_host > 1 {
        let order = if cyclic { "dealt round robin" } else { "in rank order" };
        println!("  ranks per host: {ranks_per_host}, {order}: {hosts}");
    }
    if measured {
        match nhalf {
            Some((n, from)) => println!("  network n½ between hosts: {n} B ({from})"),
            None => println!("  network n½ between hosts: not given (--nhalf or FASTRED_NHALF; the library measures it), so no `nhalf>=` or `nhalf<` rule applies"),
        }
    }
    if crossed {
        match bisection {
            Some((n, from)) => println!("  network cross-section under load: {n}% ({from})"),
            None => println!("  network cross-section under load: not given (--bisection or FASTRED_BISECTION; the library measures it where n½ >= {} B), so no `bisection>=` or `bisection<` rule applies", fastred::network::FAST),
        }
    }
    println!("  decision: {}  ({})", choice.algorithm, choice.reason);
    for (mode, fixed) in [("default mode", false), ("FASTRED_REPRODUCIBLE=1", true)] {
        let mode_shape = Shape { reproducible: fixed, ..shape };
        let eligible: Vec<&str> = Algorithm::ALL.iter().filter(|a| a.can_run(&mode_shape)).map(|a| a.name()).collect();
        let mark = if reproducible == fixed { "  ← this run" } else { "" };
        println!("  eligible, {mode}: {}{mark}", eligible.join(", "));
    }
    if shape.floating {
        if procs <= 32 {
            println!("  canonical order (FASTRED_REPRODUCIBLE=1, ranks): {}", fastred::reproducible::formula(procs));
        } else {
            let pairs = fastred::algo::Pairs::of(procs);
            println!(
                "  canonical order (FASTRED_REPRODUCIBLE=1): ranks 2q and 2q+1 joined first for q < {}, then a balanced binary tree over the {} terms in rank order (written out for p <= 32)",
                pairs.removed, pairs.pof2
            );
        }
    } else {
        println!("  (not a floating-point op: its result does not depend on the order, both modes choose alike)");
    }
    println!("  δ_expo,max({procs}) = {}; binary-blocks rule δ < lg(bytes)/2 − 2.5 = {:.2}: {}", delta_expo_max(procs),
        (bytes.max(1) as f64).log2() / 2.0 - 2.5, select::binary_blocks_rule(bytes, procs));
    println!(
        "  α-β-γ model (between hosts α = {:.2} µs, β = {:.3} ns/B; within a host α = {:.2} µs, β = {:.3} ns/B; γ = {:.3} ns/B; fastred::model), estimates{}:",
        m.alpha * 1e6,
        m.beta * 1e9,
        m.alpha_intra * 1e6,
        m.beta_intra * 1e9,
        m.gamma * 1e9,
        match hosts {
            select::Hosts::OnePerHost | select::Hosts::Lane => "",
            select::Hosts::OneHost => " (within the host)",
            _ if hosts.in_blocks_terms(shape.layout) => " (hosts in blocks: each algorithm by its pattern's two-level terms, select::estimate_placed)",
            _ if hosts.in_blocks() => " (hosts in blocks of an odd size: each algorithm by its pattern's two-level terms, the exchange patterns with a split of their own as crossing hosts at every step, the trees at one level, select::estimate_placed)",
            _ => " (shared hosts: the two-level algorithm by its two-level terms, the others as if each rank had a host link of its own)",
        }
    );
    let shared = hosts.shared();
    let mut rows: Vec<(Algorithm, f64)> = Algorithm::ALL
        .iter()
        .filter(|a| a.can_run(&shape) && **a != Algorithm::Native && (shared || !a.descriptor().uses_hosts))
        .filter_map(|a| select::estimate_placed(*a, &shape, &m, &table).map(|t| (*a, t)))
        .collect();
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    for (a, t) in rows {
        let note = match (a == choice.algorithm, a.descriptor().by_model) {
            (true, _) => "   ← chosen",
            (false, false) => "   (measured rules only, not the model)",
            (false, true) => "",
        };
        println!("    {:20} {:>12.3} µs{note}", a.name(), t * 1e6);
    }
    0
}
