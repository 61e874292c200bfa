//! The α-β-γ cost model (Rabenseifner 2004 §3: α latency per message, β
//! transfer time per byte, γ reduction time per byte), used to size pipeline
//! segments and by `fastred explain` to compare algorithms. The defaults
//! describe a commodity TCP cluster (50 µs, 1 Gbit/s, 1 GB/s reduction); the
//! ratio α/β, the message size at which latency and transfer cost the same,
//! is what the segment sizes depend on.

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel { alpha: 50e-6, beta: 8e-9, gamma: 1e-9 }
    }
}
