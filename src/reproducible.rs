//! `FASTRED_REPRODUCIBLE`: one canonical evaluation order per process count,
//! which every algorithm eligible in that mode computes for every element,
//! so that a floating-point reduction gives the same bits whatever algorithm,
//! size, tuning table, placement or MPI library runs it.
//!
//! The order (the one Rabenseifner 2004 §3.4/§3.5 compute: their removal step,
//! then distance doubling). With p' = 2^⌊lg p⌋ and r = p − p':
//!
//! ```text
//!   leaves   L_q = x_2q ⊕ x_2q+1          for q < r     (the first 2r ranks, in pairs)
//!            L_q = x_q+r                  for r ≤ q < p'
//!   tree     S(q, 0)   = L_q
//!            S(q, k+1) = S(2q, k) ⊕ S(2q+1, k)
//!   result   S(0, lg p')
//!
//!   p = 6:   ((x0 ⊕ x1) ⊕ (x2 ⊕ x3)) ⊕ (x4 ⊕ x5)
//!   p = 5:   ((x0 ⊕ x1) ⊕ x2) ⊕ (x3 ⊕ x4)
//!   p = 7:   ((x0 ⊕ x1) ⊕ (x2 ⊕ x3)) ⊕ ((x4 ⊕ x5) ⊕ x6)
//! ```
//!
//! Every ⊕ combines two adjacent ranges of ranks (lower on the left), so the
//! order is also a valid order for non-commutative ops. IEEE addition and
//! multiplication are commutative, so `a ⊕ b` and `b ⊕ a` give the same bits:
//! only the tree's shape matters. It is computed by the latency-optimal
//! recursive doubling (allreduce) and the binomial tree (reduce, any root), and
//! by the bandwidth-efficient halving & doubling (allreduce, reduce, and its
//! reduce-scatter phase for the reduce-scatters): see each algorithm's
//! [`Descriptor::canonical`](crate::algo::registry::Descriptor::canonical).
//! For p ≤ 2 every algorithm computes it (x0 ⊕ x1).

use crate::error::MpiResult;
use crate::op::Reducer;

/// The canonical reduction of `inputs` (one vector per rank, all of one
/// length) into `out`, serially: the reference the tests compare against.
pub fn reduce_serial(op: &dyn Reducer, inputs: &[&[u8]], out: &mut [u8]) -> MpiResult {
    let p = inputs.len();
    if p == 0 {
        return Ok(());
    }
    let pof2 = 1 << p.ilog2();
    let removed = p - pof2;
    let mut partials: Vec<Vec<u8>> = (0..pof2)
        .map(|q| -> MpiResult<Vec<u8>> {
            if q < removed {
                let mut v = inputs[2 * q + 1].to_vec();
                op.reduce(inputs[2 * q], &mut v, true)?;
                Ok(v)
            } else {
                Ok(inputs[q + removed].to_vec())
            }
        })
        .collect::<MpiResult<_>>()?;
    while partials.len() > 1 {
        partials = partials
            .chunks(2)
            .map(|pair| -> MpiResult<Vec<u8>> {
                let mut right = pair[1].clone();
                op.reduce(&pair[0], &mut right, true)?;
                Ok(right)
            })
            .collect::<MpiResult<_>>()?;
    }
    out.copy_from_slice(&partials[0]);
    Ok(())
}

/// The canonical order written out over rank numbers, e.g. `((0+1)+2)+(3+4)`
/// for p = 5 (for `fastred explain` and the README).
pub fn formula(p: usize) -> String {
    if p == 0 {
        return String::new();
    }
    let pof2 = 1 << p.ilog2();
    let removed = p - pof2;
    let mut terms: Vec<String> = (0..pof2).map(|q| if q < removed { format!("({}+{})", 2 * q, 2 * q + 1) } else { (q + removed).to_string() }).collect();
    while terms.len() > 1 {
        terms = terms.chunks(2).map(|pair| format!("({}+{})", pair[0], pair[1])).collect();
    }
    let t = terms.pop().unwrap_or_default();
    if p > 1 && t.starts_with('(') { t[1..t.len() - 1].to_string() } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_for_small_p() {
        assert_eq!(formula(1), "0");
        assert_eq!(formula(2), "0+1");
        assert_eq!(formula(3), "(0+1)+2");
        assert_eq!(formula(5), "((0+1)+2)+(3+4)");
        assert_eq!(formula(6), "((0+1)+(2+3))+(4+5)");
        assert_eq!(formula(8), "((0+1)+(2+3))+((4+5)+(6+7))");
    }
}
