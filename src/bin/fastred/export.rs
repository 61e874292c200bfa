//! `fastred tune --export openmpi-rules|mpich-json FILE`: measure each of the
//! MPI library's own algorithms, forced through the library's own controls,
//! and write the fastest per (collective, process count, size range) in the
//! format the library's selector loads, for sites that may not preload
//! fastred but can hand its measurements to their MPI:
//!
//! - Open MPI 4.1: `--mca coll_tuned_use_dynamic_rules 1 --mca
//!   coll_tuned_dynamic_rules_filename FILE` (the classic rules file: per
//!   collective id, per communicator size, message-size rules);
//! - MPICH 4.0: `MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE` (its JSON
//!   selection tree; the file replaces MPICH's built-in tree, so it is that
//!   tree — read from libmpich — with the four reductions' branches extended).
//!
//! `--from CSV...` writes the file from earlier measurements instead.

use crate::bench::{run_bench, size_ranges, split_args, SizeRange};
use crate::results::{read_all, Record};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    OpenmpiRules,
    MpichJson,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "openmpi-rules" => Some(Format::OpenmpiRules),
            "mpich-json" => Some(Format::MpichJson),
            _ => None,
        }
    }

    fn flavour(self) -> &'static str {
        match self {
            Format::OpenmpiRules => "openmpi",
            Format::MpichJson => "mpich",
        }
    }
}

/// One of the library's algorithms for a collective: `id` is Open MPI's
/// `coll_tuned_<coll>_algorithm` value; `name` is the value's name (Open MPI)
/// or MPICH's `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` value, which is also the
/// suffix of its `MPIR_<Coll>_intra_<name>` in the JSON tree.
#[derive(Clone, Copy, Debug)]
pub struct NativeAlgorithm {
    pub coll: &'static str,
    pub name: &'static str,
    pub id: u32,
}

const fn alg(coll: &'static str, id: u32, name: &'static str) -> NativeAlgorithm {
    NativeAlgorithm { coll, name, id }
}

/// Open MPI 4.1.4's tuned algorithms (`ompi_info --param coll tuned --level 9`).
const OPENMPI: &[NativeAlgorithm] = &[
    alg("allreduce", 1, "basic_linear"),
    alg("allreduce", 2, "nonoverlapping"),
    alg("allreduce", 3, "recursive_doubling"),
    alg("allreduce", 4, "ring"),
    alg("allreduce", 5, "segmented_ring"),
    alg("allreduce", 6, "rabenseifner"),
    alg("reduce", 1, "linear"),
    alg("reduce", 2, "chain"),
    alg("reduce", 3, "pipeline"),
    alg("reduce", 4, "binary"),
    alg("reduce", 5, "binomial"),
    alg("reduce", 6, "in-order_binary"),
    alg("reduce", 7, "rabenseifner"),
    alg("reduce_scatter", 1, "non-overlapping"),
    alg("reduce_scatter", 2, "recursive_halving"),
    alg("reduce_scatter", 3, "ring"),
    alg("reduce_scatter", 4, "butterfly"),
    alg("reduce_scatter_block", 1, "basic_linear"),
    alg("reduce_scatter_block", 2, "recursive_doubling"),
    alg("reduce_scatter_block", 3, "recursive_halving"),
    alg("reduce_scatter_block", 4, "butterfly"),
];

/// MPICH 4.0.2's MPIR algorithms for commutative ops (the names its JSON
/// tree and CVARs accept; `smp` needs a node hierarchy, `noncommutative` a
/// non-commutative op: neither is a candidate).
const MPICH: &[NativeAlgorithm] = &[
    alg("allreduce", 0, "recursive_doubling"),
    alg("allreduce", 0, "reduce_scatter_allgather"),
    alg("reduce", 0, "binomial"),
    alg("reduce", 0, "reduce_scatter_gather"),
    alg("reduce_scatter", 0, "recursive_halving"),
    alg("reduce_scatter", 0, "pairwise"),
    alg("reduce_scatter", 0, "recursive_doubling"),
    alg("reduce_scatter_block", 0, "recursive_halving"),
    alg("reduce_scatter_block", 0, "pairwise"),
    alg("reduce_scatter_block", 0, "recursive_doubling"),
];

pub fn algorithms(format: Format) -> &'static [NativeAlgorithm] {
    match format {
        Format::OpenmpiRules => OPENMPI,
        Format::MpichJson => MPICH,
    }
}

/// The mpirun arguments that force `a` (one collective's algorithm).
pub fn forcing_args(format: Format, a: &NativeAlgorithm) -> Vec<String> {
    match format {
        Format::OpenmpiRules => vec![
            "--mca".into(),
            "coll_tuned_use_dynamic_rules".into(),
            "1".into(),
            "--mca".into(),
            format!("coll_tuned_{}_algorithm", a.coll),
            a.id.to_string(),
        ],
        Format::MpichJson => vec!["-genv".into(), format!("MPIR_CVAR_{}_INTRA_ALGORITHM", a.coll.to_uppercase()), a.name.into()],
    }
}

/// Open MPI's collective ids in the rules file (coll_base_functions.h).
fn openmpi_collective_id(coll: &str) -> Option<u32> {
    match coll {
        "allreduce" => Some(2),
        "reduce" => Some(11),
        "reduce_scatter" => Some(12),
        "reduce_scatter_block" => Some(13),
        _ => None,
    }
}

/// The classic (version 1) rules file Open MPI 4.1 reads: the number of
/// collectives; per collective its id and number of communicator sizes; per
/// size the number of rules and one `bytes algorithm fan-in/out segsize`
/// line per size range (ascending, the first at 0). Numbers only: 4.1's
/// reader has no comments.
pub fn openmpi_rules(ranges: &BTreeMap<(String, usize), Vec<SizeRange>>) -> Result<String, String> {
    let mut per_coll: BTreeMap<u32, Vec<(&str, usize, &Vec<SizeRange>)>> = BTreeMap::new();
    for ((coll, procs), r) in ranges {
        let id = openmpi_collective_id(coll).ok_or_else(|| format!("no Open MPI rules for {coll}"))?;
        per_coll.entry(id).or_default().push((coll, *procs, r));
    }
    let mut out = format!("{}\n", per_coll.len());
    for (id, sizes) in per_coll {
        out += &format!("{id}\n{}\n", sizes.len());
        for (coll, procs, rules) in sizes {
            out += &format!("{procs}\n{}\n", rules.len());
            for r in rules {
                out += &format!("{} {} 0 0\n", r.lo, native_by_name(Format::OpenmpiRules, coll, &r.winner)?.id);
            }
        }
    }
    Ok(out)
}

/// The algorithm a measured variant label ("native:NAME") stands for.
fn native_by_name(format: Format, coll: &str, label: &str) -> Result<&'static NativeAlgorithm, String> {
    let name = label.strip_prefix("native:").unwrap_or(label);
    algorithms(format).iter().find(|a| a.coll == coll && a.name == name).ok_or_else(|| format!("{label} is not a native {coll} algorithm"))
}

/// MPICH's JSON: the built-in tree (`builtin`, read from libmpich) with each
/// measured collective's intra-communicator branch replaced by
/// `is_commutative=yes` → one branch per measured process count (`comm_size<P+1`,
/// ascending: P and fewer) → message-size rules, then MPICH's own branch for
/// larger communicators and for non-commutative ops.
pub fn mpich_json(ranges: &BTreeMap<(String, usize), Vec<SizeRange>>, builtin: &str) -> Result<String, String> {
    let mut json = builtin.trim().to_string();
    let colls: Vec<&String> = ranges.keys().map(|(c, _)| c).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    for coll in colls {
        let key = format!("collective={coll}");
        let tree = member(&json, &key).ok_or_else(|| format!("MPICH's built-in selection has no \"{key}\""))?;
        let intra = member(&json[tree.clone()], "comm_type=intra").map(|r| json[tree.start + r.start..tree.start + r.end].to_string());
        let inter = member(&json[tree.clone()], "comm_type=inter").map(|r| json[tree.start + r.start..tree.start + r.end].to_string());
        let own = intra.ok_or_else(|| format!("MPICH's {key} has no comm_type=intra branch"))?;
        let (size_key, inclusive) = if coll.starts_with("reduce_scatter") { ("total_msg_size", false) } else { ("avg_msg_size", true) };
        let title = capitalised(coll);
        let mut by_size = String::new();
        for ((c, procs), rules) in ranges.iter().filter(|((c, _), _)| c == coll) {
            let mut sizes = vec![];
            for r in rules {
                let a = native_by_name(Format::MpichJson, c, &r.winner)?;
                let cond = match r.hi {
                    Some(h) if inclusive => format!("{size_key}<={h}"),
                    Some(h) => format!("{size_key}<{}", h + 1),
                    None => format!("{size_key}=any"),
                };
                sizes.push(format!("\"{cond}\":{{\"algorithm=MPIR_{title}_intra_{}\":{{}}}}", a.name));
            }
            by_size += &format!("\"comm_size<{}\":{{{}}},", procs + 1, sizes.join(","));
        }
        let mut branch = format!("{{\"comm_type=intra\":{{\"is_commutative=yes\":{{{by_size}\"comm_size=any\":{own}}},\"is_commutative=no\":{own}}}");
        if let Some(inter) = inter {
            branch += &format!(",\"comm_type=inter\":{inter}");
        }
        branch += "}";
        json.replace_range(tree, &branch);
    }
    Ok(json + "\n")
}

/// "reduce_scatter_block" → "Reduce_scatter_block" (MPICH's function names).
fn capitalised(coll: &str) -> String {
    let mut c = coll.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// The byte range of the value of `"key":` among the members of the object
/// `obj` (its first `{` at depth 0); MPICH's keys hold no braces or quotes.
fn member(obj: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let quoted = format!("\"{key}\"");
    let bytes = obj.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'"' if depth == 1 && obj[i..].starts_with(&quoted) => {
                let after = i + quoted.len();
                let colon = after + obj[after..].find(':')?;
                let start = colon + 1 + obj[colon + 1..].find('{')?;
                let mut d = 0usize;
                for (k, b) in bytes[start..].iter().enumerate() {
                    match b {
                        b'{' => d += 1,
                        b'}' => {
                            d -= 1;
                            if d == 0 {
                                return Some(start..start + k + 1);
                            }
                        }
                        _ => {}
                    }
                }
                return None;
            }
            b'"' => {
                // Skip any other string.
                i += 1 + obj[i + 1..].find('"')?;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// MPICH's built-in MPIR selection tree: the NUL-terminated JSON string in
/// `libmpich` that names the MPIR allreduce algorithms.
pub fn builtin_mpich_json(libmpich: &Path) -> Result<String, String> {
    let data = std::fs::read(libmpich).map_err(|e| format!("{}: {e}", libmpich.display()))?;
    let needle = b"\"algorithm=MPIR_Allreduce_intra";
    let at = data.windows(needle.len()).position(|w| w == needle).ok_or_else(|| format!("{}: no built-in MPIR selection tree", libmpich.display()))?;
    let start = data[..at].iter().rposition(|&b| b == 0).map_or(0, |p| p + 1);
    let end = at + data[at..].iter().position(|&b| b == 0).unwrap_or(data.len() - at);
    String::from_utf8(data[start..end].to_vec()).map_err(|e| format!("{}: {e}", libmpich.display()))
}

/// Where the dynamic loader finds `libname` for `exe` (from `ldd`).
fn linked_library(exe: &Path, libname: &str) -> Option<PathBuf> {
    let out = std::process::Command::new("ldd").arg(exe).output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.trim_start().starts_with(libname))
        .and_then(|l| l.split("=>").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .map(PathBuf::from)
}

/// Records of native runs relabelled with the algorithm forced in them.
fn relabel(records: Vec<Record>, a: &NativeAlgorithm) -> Vec<Record> {
    records
        .into_iter()
        .filter(|r| r.variant == "native" && r.coll == a.coll)
        .map(|mut r| {
            r.variant = format!("native:{}", a.name);
            r.algorithm = r.variant.clone();
            r
        })
        .collect()
}

/// Measure every native algorithm of the collectives in the bench args
/// (`--colls`, default all four), one run each; the CSVs go next to `out`.
fn measure(format: Format, launch: &[String], bench_args: &[String], out: &str) -> Result<(Vec<Record>, PathBuf), String> {
    let mut args: Vec<String> = vec![];
    let mut colls: Option<Vec<String>> = None;
    let mut it = bench_args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--colls" => colls = it.next().map(|c| c.split(',').map(String::from).collect()),
            "--algos" => {
                it.next();
            }
            _ => args.push(a.clone()),
        }
    }
    let wanted = |c: &str| colls.as_ref().is_none_or(|cs| cs.iter().any(|x| x == c));
    let dir = PathBuf::from(format!("{out}.runs"));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut records = vec![];
    let mut exe = None;
    for a in algorithms(format).iter().filter(|a| wanted(a.coll)) {
        let csv = dir.join(format!("{}-{}.csv", a.coll, a.name));
        let mut l = vec!["--mpi".to_string(), format.flavour().to_string()];
        l.extend(launch.iter().cloned());
        l.extend(forcing_args(format, a));
        let mut b = args.clone();
        b.extend(["--colls".into(), a.coll.into(), "--algos".into(), "native".into()]);
        let (code, bench_exe) = run_bench(l, b, &csv)?;
        if code != 0 {
            return Err(format!("the run forcing {} {} failed (exit {code}); its output is above", a.coll, a.name));
        }
        exe = Some(bench_exe);
        records.extend(relabel(crate::results::read_csv(&csv)?, a));
    }
    Ok((records, exe.ok_or("no collective to measure (--colls)")?))
}

/// `fastred tune --export KIND FILE [--from CSV...] [launch args] [-- bench args]`.
pub fn export(kind: &str, file: &str, from: Vec<String>, args: Vec<String>) -> i32 {
    let Some(format) = Format::parse(kind) else {
        eprintln!("fastred tune: --export takes openmpi-rules or mpich-json, not '{kind}'");
        return 2;
    };
    let result = (|| -> Result<String, String> {
        let (records, exe) = if from.is_empty() {
            let (launch, bench_args, _) = split_args(args);
            let (r, exe) = measure(format, &launch, &bench_args, file)?;
            (r, Some(exe))
        } else {
            (read_all(&from.iter().map(PathBuf::from).collect::<Vec<_>>())?, None)
        };
        let ranges = size_ranges(&records.into_iter().filter(|r| r.variant.starts_with("native:")).collect::<Vec<_>>());
        if ranges.is_empty() {
            return Err("no measurements of native algorithms (variant native:NAME)".into());
        }
        match format {
            Format::OpenmpiRules => openmpi_rules(&ranges),
            Format::MpichJson => {
                let exe = match exe {
                    Some(e) => e,
                    None => crate::bench::bench_binary("mpich", Path::new(""))?,
                };
                let lib = linked_library(&exe, "libmpich").ok_or("cannot find the libmpich the benchmark links (ldd)")?;
                mpich_json(&ranges, &builtin_mpich_json(&lib)?)
            }
        }
    })();
    match result.and_then(|text| std::fs::write(file, text).map_err(|e| format!("{file}: {e}"))) {
        Ok(()) => {
            match format {
                Format::OpenmpiRules => println!(
                    "wrote {file}; use it with: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename {file} ..."
                ),
                Format::MpichJson => println!("wrote {file}; use it with: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={file} mpirun ..."),
            }
            0
        }
        Err(e) => {
            eprintln!("fastred tune --export: {e}");
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;


    /// allreduce on 4: recursive doubling up to 1 KiB, ring from 64 KiB.
    fn measured(format: Format) -> BTreeMap<(String, usize), Vec<SizeRange>> {
        let (short, long) = match format {
            Format::OpenmpiRules => ("native:recursive_doubling", "native:ring"),
            Format::MpichJson => ("native:recursive_doubling", "native:reduce_scatter_allgather"),
        };
        let mut r = vec![];
        for (bytes, fast) in [(8, short), (1024, short), (65536, long), (1 << 20, long)] {
            for v in [short, long] {
                r.push(Record::timed("allreduce", 4, bytes, v, if v == fast { 1.0 } else { 2.0 }));
            }
        }
        size_ranges(&r)
    }

    #[test]
    fn openmpi_rules_file_has_the_classic_layout() {
        let text = openmpi_rules(&measured(Format::OpenmpiRules)).unwrap();
        // 1 collective; allreduce (2); 1 comm size; 4 ranks; 2 rules.
        assert_eq!(text, "1\n2\n1\n4\n2\n0 3 0 0\n8193 4 0 0\n");
    }

    #[test]
    fn mpich_json_extends_the_builtin_tree() {
        let builtin = r#"{"collective=bcast":{"comm_type=intra":{"algorithm=MPIR_Bcast_intra_binomial":{}}},"collective=allreduce":{"comm_type=intra":{"avg_msg_size<=8":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},"avg_msg_size=any":{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather":{}}},"comm_type=inter":{"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast":{}}},"collective=reduce":{"comm_type=intra":{"algorithm=MPIR_Reduce_intra_binomial":{}}}}"#;
        let json = mpich_json(&measured(Format::MpichJson), builtin).unwrap();
        let own = r#"{"avg_msg_size<=8":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},"avg_msg_size=any":{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather":{}}}"#;
        let want = format!(
            concat!(
                r#"{{"collective=bcast":{{"comm_type=intra":{{"algorithm=MPIR_Bcast_intra_binomial":{{}}}}}},"collective=allreduce":"#,
                r#"{{"comm_type=intra":{{"is_commutative=yes":{{"comm_size<5":{{"avg_msg_size<=8192":{{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{{}}}},"#,
                r#""avg_msg_size=any":{{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather":{{}}}}}},"comm_size=any":{own}}},"is_commutative=no":{own}}},"#,
                r#""comm_type=inter":{{"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast":{{}}}}}},"collective=reduce":{{"comm_type=intra":{{"algorithm=MPIR_Reduce_intra_binomial":{{}}}}}}}}"#,
                "\n"
            ),
            own = own
        );
        assert_eq!(json, want);
    }

    #[test]
    fn member_finds_top_level_keys_only() {
        let obj = r#"{"a":{"b":{}},"b":{"c":{"d":{}}}}"#;
        assert_eq!(&obj[member(obj, "b").unwrap()], r#"{"c":{"d":{}}}"#);
        assert_eq!(member(obj, "c"), None);
    }

    #[test]
    fn every_native_algorithm_is_forced_through_the_library_controls() {
        let a = &OPENMPI[3];
        assert_eq!(forcing_args(Format::OpenmpiRules, a).join(" "), "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4");
        let m = &MPICH[4];
        assert_eq!(forcing_args(Format::MpichJson, m).join(" "), "-genv MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM recursive_halving");
    }
}
