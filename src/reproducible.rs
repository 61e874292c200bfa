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
//! The two-level algorithm computes it where the ranks sit on hosts in
//! blocks ([`hosts_in_blocks`]), with canonical algorithms within and across
//! the hosts. For p ≤ 2 every algorithm computes it (x0 ⊕ x1).

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

/// Combine `p` read-only contributions in the canonical order into `dst`:
/// `source(i)` is rank i's contribution (as long as `dst`), `temps` scratch
/// of at least `temps_needed(p)` × `dst.len()` bytes. The same joins as
/// [`combine_in_order`], so the same bits; for algorithms that see every
/// contribution where it lies (the shared-memory one), without copying them
/// into one buffer first.
pub fn combine_sources_in_order<'s>(op: &(impl Reducer + ?Sized), p: usize, source: &dyn Fn(usize) -> &'s [u8], dst: &mut [u8], temps: &mut [u8]) -> MpiResult {
    if p == 0 {
        return Ok(());
    }
    let pairs = Pairs::of(p);
    subtree(op, &pairs, source, pairs.pof2.ilog2(), 0, dst, temps)
}

/// Scratch vectors [`combine_sources_in_order`] needs for `p` contributions
/// (none below 4: the right operand is then a single rank's).
pub fn temps_needed(p: usize) -> usize {
    let levels = Pairs::of(p).pof2.ilog2() as usize;
    if levels < 2 { 0 } else { levels }
}

/// Leaves q·2^level … (q+1)·2^level − 1 of the canonical tree into `dst`.
fn subtree<'s>(op: &(impl Reducer + ?Sized), pairs: &Pairs, source: &dyn Fn(usize) -> &'s [u8], level: u32, q: usize, dst: &mut [u8], temps: &mut [u8]) -> MpiResult {
    if level == 0 {
        dst.copy_from_slice(source(pairs.first(q)));
        if q < pairs.removed {
            op.reduce(source(pairs.first(q) + 1), dst, false)?;
        }
        return Ok(());
    }
    subtree(op, pairs, source, level - 1, 2 * q, dst, temps)?;
    let right = 2 * q + 1;
    if level == 1 && right >= pairs.removed {
        // A single rank on the right: fold it straight from where it lies.
        return op.reduce(source(pairs.first(right)), dst, false);
    }
    let (temp, rest) = temps.split_at_mut(dst.len());
    subtree(op, pairs, source, level - 1, right, temp, rest)?;
    op.reduce(temp, dst, false)
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
    let t = tree(p, &|r| r.to_string());
    if p > 1 { t[1..t.len() - 1].to_string() } else { t }
}

/// The canonical order of `p` leaves named by `leaf`, every join in parentheses.
fn tree(p: usize, leaf: &dyn Fn(usize) -> String) -> String {
    if p == 0 {
        return String::new();
    }
    let pairs = Pairs::of(p);
    let mut terms: Vec<String> =
        (0..pairs.pof2).map(|q| if q < pairs.removed { format!("({}+{})", leaf(2 * q), leaf(2 * q + 1)) } else { leaf(pairs.first(q)) }).collect();
    while terms.len() > 1 {
        terms = terms.chunks(2).map(|pair| format!("({}+{})", pair[0], pair[1])).collect();
    }
    terms.pop().unwrap_or_default()
}

/// Whether the ranks sit on hosts in blocks the canonical order respects:
/// every host holds the same number K of ranks, K a power of two, host h
/// (numbered by first appearance) ranks hK..hK+K−1. Then, with N hosts, the
/// canonical order of p = NK is the canonical order of N applied to the
/// hosts' canonical orders of K: with N' = 2^⌊lg N⌋, p' = KN' and
/// r = K(N − N'), the first 2r ranks are the first 2(N − N') hosts, each
/// an aligned run of K/2 pairs (a subtree of K/2 leaves), and the other hosts
/// aligned runs of K single leaves; grouping the p' leaves K at a time gives
/// hosts 2u, 2u+1 joined for u < N − N' and host u + N − N' alone after: the
/// removal step of N. So a two-level algorithm that reduces in the canonical
/// order within each host and then across the hosts computes it (checked
/// for N ≤ 40, K ≤ 16 by the tests below).
pub fn hosts_in_blocks(host_of: &[usize]) -> bool {
    block_size(host_of).is_some_and(usize::is_power_of_two)
}

/// K where every host holds the same number K of ranks, host h (numbered by
/// first appearance) ranks hK..hK+K−1; `None` for any other placement.
pub fn block_size(host_of: &[usize]) -> Option<usize> {
    consecutive_blocks(host_of).filter(|&k| host_of.len().is_multiple_of(k))
}

/// K, the first host's ranks, where host h (numbered by first appearance)
/// holds ranks hK..hK+K−1, the last host possibly fewer; `None` for any
/// other placement.
pub fn consecutive_blocks(host_of: &[usize]) -> Option<usize> {
    let k = host_of.iter().take_while(|&&h| h == 0).count();
    (k > 0 && host_of.iter().enumerate().all(|(r, &h)| h == r / k)).then_some(k)
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

    #[test]
    fn hosts_of_a_power_of_two_ranks_in_blocks_compose_the_order() {
        for hosts in 1..=40 {
            for k in 1..=16 {
                let two_level = tree(hosts, &|h| tree(k, &|i| (h * k + i).to_string()));
                let blocks: Vec<usize> = (0..hosts * k).map(|r| r / k).collect();
                assert_eq!(block_size(&blocks), Some(k), "{hosts} hosts x {k}");
                assert_eq!(hosts_in_blocks(&blocks), k.is_power_of_two(), "{hosts} hosts x {k}");
                if k.is_power_of_two() {
                    assert_eq!(two_level, tree(hosts * k, &|r| r.to_string()), "{hosts} hosts x {k}");
                } else if hosts == 2 {
                    assert_ne!(two_level, tree(hosts * k, &|r| r.to_string()), "{hosts} hosts x {k}");
                }
            }
        }
        assert!(!hosts_in_blocks(&[0, 1, 0, 1]), "not consecutive");
        assert!(!hosts_in_blocks(&[0, 0, 1, 1, 1, 1]), "unequal");
        assert_eq!((block_size(&[0, 1, 0, 1]), block_size(&[0, 0, 1, 1, 1, 1]), block_size(&[])), (None, None, None));
    }
}
