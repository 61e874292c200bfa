//! The α-β-γ cost model (Rabenseifner 2004 §3: α latency per message, β
//! transfer time per byte, γ reduction time per byte), used to size pipeline
//! segments and by `fastred explain` to compare algorithms (each algorithm's
//! own formula is its `estimate`, reached through the registry). The defaults
//! describe a commodity TCP cluster (50 µs, 1 Gbit/s, 1 GB/s reduction); the
//! ratio α/β, the message size at which latency and transfer cost the same,
//! is what the segment sizes depend on.
//!
//! Two levels (issue 11 §3): α and β are those of messages between hosts;
//! `alpha_intra`, `beta_intra` those between ranks of one host (shared
//! memory; defaults 1 µs and 5 GB/s). [`CostModel::within_host`] is the
//! model of a phase inside one host, [`CostModel::sharing_links`] that of
//! k ranks per host sending across at once (they share the host's link, so
//! each sees k·β).

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub alpha_intra: f64,
    pub beta_intra: f64,
}

impl CostModel {
    /// One level: every pair of ranks has α, β (the within-host terms are
    /// the defaults').
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> CostModel {
        CostModel { alpha, beta, gamma, ..CostModel::default() }
    }

    /// α, β, γ and optionally α, β within a host, from three or five fields
    /// (seconds, seconds per byte; finite, ≥ 0): a table's `model` line,
    /// `fastred explain --model`.
    pub fn from_fields<'a>(fields: impl IntoIterator<Item = &'a str>) -> Option<CostModel> {
        let v: Vec<f64> = fields.into_iter().map(|f| f.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0)).collect::<Option<_>>()?;
        match v[..] {
            [alpha, beta, gamma] => Some(CostModel::new(alpha, beta, gamma)),
            [alpha, beta, gamma, alpha_intra, beta_intra] => Some(CostModel { alpha, beta, gamma, alpha_intra, beta_intra }),
            _ => None,
        }
    }

    /// The model of messages within one host.
    pub fn within_host(&self) -> CostModel {
        CostModel { alpha: self.alpha_intra, beta: self.beta_intra, ..*self }
    }

    /// Seconds per byte of a copy within one process's memory (a buffer into
    /// a rotated order and back): β within a host, since a message between
    /// two ranks of a host is at least one such copy through shared memory
    /// (so a fitted `model` line's β_i sizes it too). Conservative: memcpy
    /// runs at 0.02-0.045 ns/B on this machine (8 KiB-16 MiB), against the
    /// compiled-in β_i of 0.2. Before, copies were charged γ, a reduction's
    /// cost (1 ns/B compiled in).
    pub fn local_copy(&self) -> f64 {
        self.beta_intra
    }

    /// The model of messages between hosts when `k` ranks of each host send
    /// across at once: they share the host's link.
    pub fn sharing_links(&self, k: usize) -> CostModel {
        CostModel { beta: self.beta * k.max(1) as f64, ..*self }
    }
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel { alpha: 50e-6, beta: 8e-9, gamma: 1e-9, alpha_intra: 1e-6, beta_intra: 2e-10 }
    }
}

/// The terms the papers' formulas are written in, for `bytes` on `p` processes.
#[derive(Clone, Copy, Debug)]
pub struct Terms {
    /// Bytes of the vector.
    pub n: f64,
    pub p: f64,
    /// ⌈lg p⌉.
    pub lg: f64,
    /// p', the largest power of two ≤ p.
    pub pof2: f64,
    /// 1 when p is not a power of two (the removal step), else 0.
    pub extra: f64,
    /// 1 − 1/p.
    pub frac: f64,
    pub a: f64,
    pub b: f64,
    pub g: f64,
}

impl Terms {
    pub fn new(bytes: usize, p: usize, m: &CostModel) -> Terms {
        let p = p.max(1);
        Terms {
            n: bytes as f64,
            p: p as f64,
            lg: (usize::BITS - (p - 1).leading_zeros()) as f64,
            pof2: (1usize << p.ilog2()) as f64,
            extra: if p.is_power_of_two() { 0.0 } else { 1.0 },
            frac: 1.0 - 1.0 / p as f64,
            a: m.alpha,
            b: m.beta,
            g: m.gamma,
        }
    }
}
