//! γ, the time per byte of fastred's own reduction kernels on this machine,
//! per op and element type: the modelled reduction cost the SimGrid SMPI build
//! charges to the simulation (`src/simulated.rs`).
//!
//! `cargo run --release --example kernel_cost [BYTES]` (default 16 MiB:
//! operands in memory, the rate that matters for long vectors; 262144 shows
//! the in-cache rate). Prints the median of 31 timings per kernel in ns per
//! byte of one operand.
use fastred::op::{kernels::kernel, Elem, OpKind};
use std::time::Instant;

const ELEMS: [Elem; 10] = [
    Elem::I8, Elem::I32, Elem::I64, Elem::F32, Elem::F64, Elem::LongDouble, Elem::C64,
    Elem::LongDoubleComplex, Elem::DoubleInt, Elem::Byte,
];

fn main() {
    let bytes: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(16 << 20);
    println!("# op elem ns_per_byte (operands of {bytes} B)");
    for op in OpKind::ALL {
        for elem in ELEMS {
            let Some(k) = kernel(op, elem) else { continue };
            let n = bytes / elem.size() * elem.size();
            // Small positive values: no overflow, no denormals, no NaN.
            let src: Vec<u8> = (0..n).map(|i| if i % elem.size() == elem.size() - 1 { 0 } else { 1 + (i % 7) as u8 }).collect();
            let mut dst = src.clone();
            let mut times = Vec::new();
            for _ in 0..31 {
                dst.copy_from_slice(&src);
                let t = Instant::now();
                k(&src, &mut dst, true);
                times.push(t.elapsed().as_secs_f64());
                std::hint::black_box(&dst);
            }
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!("{op:?} {elem:?} {:.3}", times[15] / n as f64 * 1e9);
        }
    }
}
