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
//! reduce-scatter phase for the reduce-scatters) and pairwise exchange (all
//! four; each process gathers every contribution to its block and combines
//! them with [`combine_in_order`]): see each algorithm's
//! [`Descriptor::canonical`](crate::algo::registry::Descriptor::canonical).
//! For p ≤ 2 every algorithm computes it (x0 ⊕ x1).

use crate::algo::Pairs;
use crate::error::MpiResult;
use crate::op::Reducer;

/// Combine `p` contributions in the canonical order: `parts` holds p slots
/// of `slot` bytes, slot i being rank i's contribution; on return slot 0 holds
/// the result (the other slots are scratch). For algorithms that gather all
/// contributions to a block in one place (the pairwise exchange), and the
/// tests' serial reference.
pub fn combine_in_order(op: &(impl Reducer + ?Sized), parts: &mut [u8], p: usize, slot: usize) -> MpiResult {
    if p <= 1 {
        return Ok(());
    }
    let pairs = Pairs::of(p);
    // Leaf q lives in the slot of its first rank.
    let mut join = |left: usize, right: usize| -> MpiResult {
        let (lo, hi) = parts.split_at_mut(right * slot);
        op.reduce(&hi[..slot], &mut lo[left * slot..(left + 1) * slot], false)
    };
    for q in 0..pairs.removed {
        join(pairs.first(q), pairs.first(q) + 1)?;
    }
    let mut width = 1;
    while width < pairs.pof2 {
        for q in (0..pairs.pof2).step_by(2 * width) {
            join(pairs.first(q), pairs.first(q + width))?;
        }
        width *= 2;
    }
    Ok(())
}

/// The canonical reduction of `inputs` (one vector per rank, all of one
/// length) into `out`, serially: the reference the tests compare against.
pub fn reduce_serial(op: &dyn Reducer, inputs: &[&[u8]], out: &mut [u8]) -> MpiResult {
    if inputs.is_empty() {
        return Ok(());
    }
    let mut parts = inputs.concat();
    combine_in_order(op, &mut parts, inputs.len(), out.len())?;
    out.copy_from_slice(&parts[..out.len()]);
    Ok(())
}

/// The canonical order written out over rank numbers, e.g. `((0+1)+2)+(3+4)`
/// for p = 5 (for `fastred explain` and the README).
pub fn formula(p: usize) -> String {
    if p == 0 {
        return String::new();
    }
    let pairs = Pairs::of(p);
    let mut terms: Vec<String> =
        (0..pairs.pof2).map(|q| if q < pairs.removed { format!("({}+{})", 2 * q, 2 * q + 1) } else { pairs.first(q).to_string() }).collect();
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
