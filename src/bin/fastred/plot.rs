//! SVG plots of benchmark results: busbw against message size per collective
//! and process count (one line per variant, native dashed), and a
//! Rabenseifner-Fig-4-style map of the fastest algorithm over processes × size.

use crate::results::{winners, Record};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

const PALETTE: [&str; 14] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79",
    "#637939", "#8c6d31", "#843c39",
];

/// A stable colour per variant name across all plots.
fn colour(variants: &[String], v: &str) -> &'static str {
    if v == "native" {
        return "#000000";
    }
    PALETTE[variants.iter().position(|x| x == v).unwrap_or(0) % PALETTE.len()]
}

fn size_label(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b if b >= 1 << 10 => format!("{}K", b >> 10),
        b => format!("{b}"),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Write every plot for `records` into `dir`; returns the files written.
pub fn render_all(records: &[Record], dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let variants: Vec<String> = records.iter().map(|r| r.variant.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let mut written = vec![];
    let mut by_case: BTreeMap<(String, usize), Vec<&Record>> = BTreeMap::new();
    for r in records {
        by_case.entry((r.coll.clone(), r.procs)).or_default().push(r);
    }
    for ((coll, procs), rs) in &by_case {
        let path = dir.join(format!("busbw-{coll}-p{procs}.svg"));
        std::fs::write(&path, busbw_plot(coll, *procs, rs, &variants)).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    let colls: BTreeSet<&String> = records.iter().map(|r| &r.coll).collect();
    for coll in colls {
        let path = dir.join(format!("fastest-{coll}.svg"));
        std::fs::write(&path, fastest_map(coll, records, &variants)).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn busbw_plot(coll: &str, procs: usize, rs: &[&Record], variants: &[String]) -> String {
    let (w, h, left, right, top, bottom) = (760.0, 440.0, 70.0, 190.0, 40.0, 50.0);
    let sizes: BTreeSet<usize> = rs.iter().map(|r| r.bytes).collect();
    let (xmin, xmax) = ((*sizes.first().unwrap() as f64).log2(), (*sizes.last().unwrap() as f64).log2());
    let ymax = rs.iter().map(|r| r.busbw / 1e6).filter(|v| v.is_finite()).fold(0.0, f64::max).max(1e-9) * 1.1;
    let x = |b: usize| left + ((b as f64).log2() - xmin) / (xmax - xmin).max(1.0) * (w - left - right);
    let y = |v: f64| h - bottom - v / ymax * (h - top - bottom);
    let mut s = format!(r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#);
    let _ = write!(s, r#"<rect width="100%" height="100%" fill="white"/><text x="{left}" y="22" font-size="15">{coll}, {procs} processes: bus bandwidth (nccl-tests definition)</text>"#);
    for b in &sizes {
        let _ = write!(s, r##"<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">{4}</text>"##,
            x(*b), top, h - bottom, h - bottom + 16.0, size_label(*b));
    }
    for i in 0..=5 {
        let v = ymax * i as f64 / 5.0;
        let _ = write!(s, r##"<line x1="{left}" x2="{0}" y1="{1}" y2="{1}" stroke="#ddd"/><text x="{2}" y="{3}" text-anchor="end">{4:.2}</text>"##,
            w - right, y(v), left - 6.0, y(v) + 4.0, v);
    }
    let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="middle">message size (bytes)</text><text transform="translate(16,{}) rotate(-90)" text-anchor="middle">busbw (MB/s)</text>"#,
        (left + w - right) / 2.0, h - 10.0, (top + h - bottom) / 2.0);
    let present: Vec<&String> = variants.iter().filter(|v| rs.iter().any(|r| &&r.variant == v)).collect();
    for (i, v) in present.iter().enumerate() {
        let mut pts: Vec<(usize, f64)> = rs.iter().filter(|r| &&r.variant == v && r.busbw.is_finite()).map(|r| (r.bytes, r.busbw / 1e6)).collect();
        pts.sort_by_key(|p| p.0);
        let path: Vec<String> = pts.iter().map(|(b, bw)| format!("{:.1},{:.1}", x(*b), y(*bw))).collect();
        let dash = if v.as_str() == "native" { r#" stroke-dasharray="6,4""# } else { "" };
        let width = if v.as_str() == "default" { 3 } else { 1 };
        let c = colour(variants, v);
        let _ = write!(s, r#"<polyline fill="none" stroke="{c}" stroke-width="{width}"{dash} points="{}"/>"#, path.join(" "));
        let ly = top + 14.0 * i as f64;
        let _ = write!(s, r#"<line x1="{0}" x2="{1}" y1="{2}" y2="{2}" stroke="{c}" stroke-width="{width}"{dash}/><text x="{3}" y="{4}">{5}</text>"#,
            w - right + 10.0, w - right + 34.0, ly, w - right + 40.0, ly + 4.0, escape(v));
    }
    s + "</svg>\n"
}

fn fastest_map(coll: &str, records: &[Record], variants: &[String]) -> String {
    let best = winners(records);
    let cells: Vec<(usize, usize, &String)> = best.iter().filter(|((c, _, _), _)| c == coll).map(|((_, p, b), (v, _))| (*p, *b, v)).collect();
    let procs: Vec<usize> = cells.iter().map(|c| c.0).collect::<BTreeSet<_>>().into_iter().collect();
    let sizes: Vec<usize> = cells.iter().map(|c| c.1).collect::<BTreeSet<_>>().into_iter().collect();
    let (cw, ch, left, top) = (44.0, 24.0, 60.0, 50.0);
    let w = (left + cw * sizes.len() as f64 + 190.0).max(560.0);
    let h = top + ch * procs.len() as f64 + 50.0;
    let mut s = format!(r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">"#);
    let _ = write!(s, r#"<rect width="100%" height="100%" fill="white"/><text x="{left}" y="22" font-size="15">{coll}: fastest algorithm (median), processes × size</text>"#);
    for (pi, p) in procs.iter().enumerate() {
        let yy = top + ch * pi as f64;
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="end">p={p}</text>"#, left - 6.0, yy + ch / 2.0 + 4.0);
        for (si, b) in sizes.iter().enumerate() {
            if let Some((_, _, v)) = cells.iter().find(|c| c.0 == *p && c.1 == *b) {
                let _ = write!(s, r#"<rect x="{}" y="{yy}" width="{cw}" height="{ch}" fill="{}" stroke="white"><title>p={p}, {}: {}</title></rect>"#,
                    left + cw * si as f64, colour(variants, v), size_label(*b), escape(v));
            }
        }
    }
    for (si, b) in sizes.iter().enumerate() {
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, left + cw * (si as f64 + 0.5), top + ch * procs.len() as f64 + 16.0, size_label(*b));
    }
    let used: BTreeSet<&String> = cells.iter().map(|c| c.2).collect();
    for (i, v) in used.iter().enumerate() {
        let lx = left + cw * sizes.len() as f64 + 16.0;
        let ly = top + 16.0 * i as f64;
        let _ = write!(s, r#"<rect x="{lx}" y="{ly}" width="12" height="12" fill="{}"/><text x="{}" y="{}">{}</text>"#, colour(variants, v), lx + 18.0, ly + 10.0, escape(v));
    }
    s + "</svg>\n"
}
