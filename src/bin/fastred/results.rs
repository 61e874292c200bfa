//! Benchmark results: the CSV `fastred bench` writes, read back for `tune`,
//! `plot` and `report` (its own module, so plotting and benchmarking do not
//! import each other).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One line of the benchmark's CSV.
#[derive(Clone, Debug)]
pub struct Record {
    pub coll: String,
    pub procs: usize,
    pub bytes: usize,
    pub variant: String,
    /// The algorithm that ran (differs from `variant` for "default").
    pub algorithm: String,
    pub median: f64,
    pub busbw: f64,
    pub pct_of_bound: f64,
    pub vs_native: f64,
    /// The run's placement class as the table's conditions name it
    /// (`onehost`, `oneperhost`, `sharedhosts`); empty in CSVs written
    /// before the benchmark recorded it.
    pub placement: String,
}

#[cfg(test)]
impl Record {
    /// A measurement of `variant` (which also ran) taking `median` seconds.
    pub fn timed(coll: &str, procs: usize, bytes: usize, variant: &str, median: f64) -> Record {
        Record { coll: coll.into(), procs, bytes, variant: variant.into(), algorithm: variant.into(), median, busbw: 0.0, pct_of_bound: 0.0, vs_native: 0.0, placement: String::new() }
    }
}

pub fn read_csv(path: &Path) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).ok_or_else(|| format!("{}: no column '{name}'", path.display()));
    let (c, p, b, v, a) = (col("collective")?, col("procs")?, col("bytes")?, col("variant")?, col("algorithm")?);
    let (m, bb, pct, vn) = (col("median_s")?, col("busbw_Bps")?, col("pct_of_bound")?, col("vs_native")?);
    let placement = header.iter().position(|h| *h == "placement");
    let mut out = vec![];
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        let num = |k: usize| f.get(k).and_then(|x| x.parse::<f64>().ok()).unwrap_or(f64::NAN);
        if f.len() < header.len() {
            return Err(format!("{}: line {}: {} fields, expected {}", path.display(), i + 2, f.len(), header.len()));
        }
        out.push(Record {
            coll: f[c].to_string(),
            procs: num(p) as usize,
            bytes: num(b) as usize,
            variant: f[v].to_string(),
            algorithm: f[a].to_string(),
            median: num(m),
            busbw: num(bb),
            pct_of_bound: num(pct),
            vs_native: num(vn),
            placement: placement.and_then(|k| f.get(k)).map_or(String::new(), |s| s.to_string()),
        });
    }
    Ok(out)
}

/// The records of all `files`, or the first error.
pub fn read_all(files: &[PathBuf]) -> Result<Vec<Record>, String> {
    let mut records = vec![];
    for f in files {
        records.extend(read_csv(f)?);
    }
    Ok(records)
}

/// The fastest variant per (collective, procs, bytes); "default" and
/// "reproducible" are not candidates (each is one of the others).
pub fn winners(records: &[Record]) -> BTreeMap<(String, usize, usize), (String, f64)> {
    let mut best: BTreeMap<(String, usize, usize), (String, f64)> = BTreeMap::new();
    for r in records.iter().filter(|r| r.variant != "default" && r.variant != "reproducible" && r.median.is_finite()) {
        let e = best.entry((r.coll.clone(), r.procs, r.bytes)).or_insert((r.variant.clone(), r.median));
        if r.median < e.1 {
            *e = (r.variant.clone(), r.median);
        }
    }
    best
}
