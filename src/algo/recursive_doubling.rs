//! Recursive-doubling allreduce, Rabenseifner 2004 §3.4: in each of ⌈lg p⌉
//! steps partners at distance 1, 2, 4, … exchange their whole vectors and both
//! compute the same reduction. For p not a power of two, the extra step of
//! §3.4/§3.5: among the first 2r processes (r = p − 2^⌊lg p⌋) each even rank
//! hands its vector to rank+1 and receives the result at the end.
//! The short-vector choice: ⌈lg p⌉(α + nβ + nγ) (+ α + nβ if not a power of two).

use super::Transport;
use crate::error::MpiResult;
use crate::op::Reducer;
use super::registry::{not_implemented, Job};
use crate::model::{CostModel, Terms};
use crate::collective::Collective;

/// Allreduce `buf` in place. Partners combine (lower group) ∘ (higher group),
/// so every rank computes bit-identical, rank-ordered results.
pub fn allreduce(t: &(impl Transport + ?Sized), op: &(impl Reducer + ?Sized), buf: &mut [u8]) -> MpiResult {
    let (p, r) = (t.size(), t.rank());
    let pof2 = if p == 0 { 0 } else { 1 << p.ilog2() };
    let removed = p - pof2;
    let mut incoming = super::scratch(buf.len())?;

    // Extra step: fold the first 2·removed processes pairwise.
    let survivor_rank = if r < 2 * removed {
        if r % 2 == 0 {
            t.send(r + 1, buf)?;
            None
        } else {
            t.recv(r - 1, &mut incoming)?;
            op.reduce(&incoming, buf, true)?;
            Some(r / 2)
        }
    } else {
        Some(r - removed)
    };

    if let Some(me) = survivor_rank {
        let mut distance = 1;
        while distance < pof2 {
            let partner_survivor = me ^ distance;
            let partner = if partner_survivor < removed { 2 * partner_survivor + 1 } else { partner_survivor + removed };
            t.sendrecv(partner, buf, partner, &mut incoming)?;
            op.reduce(&incoming, buf, partner < r)?;
            distance <<= 1;
        }
    }

    // Hand the result back to the processes folded away.
    if r < 2 * removed {
        if r % 2 == 0 {
            t.recv(r + 1, buf)?;
        } else {
            t.send(r - 1, buf)?;
        }
    }
    Ok(())
}

/// On `hosts` hosts of `k` consecutive ranks each, p = hosts·k a power of
/// two: the first lg k exchanges (distance < k) stay within a host (α_i,
/// β_i), the other lg(hosts) cross, the whole vector from each of a host's
/// k ranks sharing its link (β·k). Where p is not a power of two, the
/// removal step within the hosts and this split on its survivors
/// ([`super::registry::folding_pairs`]).
pub fn estimate_in_blocks(coll: Collective, bytes: usize, hosts: usize, k: usize, m: &CostModel) -> f64 {
    if !(hosts * k).is_power_of_two() {
        return super::registry::folding_pairs(estimate, estimate_in_blocks, coll, bytes, hosts, k, m);
    }
    estimate(coll, bytes, k, &m.within_host()) + estimate(coll, bytes, hosts, &m.sharing_links(k))
}

/// Registry entry: allreduce.
pub fn run(t: &dyn Transport, op: &dyn Reducer, buf: &mut [u8], job: &Job) -> MpiResult {
    match job.coll {
        Collective::Allreduce => allreduce(t, op, buf),
        other => not_implemented("recursive_doubling", other),
    }
}

/// §3.4: lg p' full exchanges (+ the removal step's two transfers).
pub fn estimate(_coll: Collective, bytes: usize, p: usize, m: &CostModel) -> f64 {
    let x = Terms::new(bytes, p, m);
    x.pof2.log2() * (x.a + x.n * (x.b + x.g)) + x.extra * (2.0 * (x.a + x.n * x.b) + x.n * x.g)
}
