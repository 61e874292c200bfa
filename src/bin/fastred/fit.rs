//! `fastred tune`'s α-β-γ fit: the cost model's parameters for the measured
//! regime, from the benchmark's times of the algorithms whose formula is
//! linear in them (α·A + β·B + γ·G; the pipelines, whose segment size depends
//! on α/β, are left out). Written into the tuned table's `model` line, so that
//! `model` rules (process counts and sizes nothing was measured at) estimate
//! with this machine's numbers rather than the compiled-in 50 µs and 1 Gbit/s.
//! Two levels ([`fit_levels`]): α, β between hosts from runs with one rank
//! per host, α_i, β_i within one from runs on one host.

use crate::results::Record;
use fastred::model::CostModel;
use fastred::select::{Algorithm, Collective};

/// The fitted model, the number of measurements it rests on and the median
/// relative error of its estimates over them.
pub struct Fit {
    pub model: CostModel,
    pub points: usize,
    pub median_error: f64,
}

/// (A, B, G) with estimate = α·A + β·B + γ·G, or None if the algorithm's
/// estimate is not linear in the parameters (or it has none).
fn coefficients(a: Algorithm, coll: Collective, bytes: usize, p: usize) -> Option<[f64; 3]> {
    let at = |alpha, beta, gamma| a.estimate(coll, bytes, p, &CostModel::new(alpha, beta, gamma));
    let c = [at(1.0, 0.0, 0.0)?, at(0.0, 1.0, 0.0)?, at(0.0, 0.0, 1.0)?];
    // Linearity check at a typical point (α/β = 10^4 bytes).
    let (x, y, z) = (1e-5, 1e-9, 5e-10);
    let direct = at(x, y, z)?;
    let combined = x * c[0] + y * c[1] + z * c[2];
    (c.iter().all(|v| v.is_finite()) && (direct - combined).abs() <= 1e-9 * direct.abs().max(1e-12)).then_some(c)
}

/// Least squares on relative errors (each row divided by its measured time),
/// over every subset of the three parameters, keeping the best fit whose
/// parameters are all ≥ 0.
pub fn fit(records: &[Record]) -> Option<Fit> {
    let rows: Vec<([f64; 3], f64)> = records
        .iter()
        .filter(|r| r.median > 0.0)
        .filter_map(|r| {
            let a = Algorithm::from_name(&r.variant).filter(|a| *a != Algorithm::Native)?;
            let c = coefficients(a, Collective::from_name(&r.coll)?, r.bytes, r.procs)?;
            Some((c.map(|v| v / r.median), 1.0))
        })
        .collect();
    if rows.len() < 3 {
        return None;
    }
    let mut best: Option<([f64; 3], f64)> = None;
    for mask in 1u8..8 {
        let idx: Vec<usize> = (0..3).filter(|i| mask & (1 << i) != 0).collect();
        let Some(sol) = solve(&rows, &idx) else { continue };
        if sol.iter().any(|v| *v < 0.0) {
            continue;
        }
        let residual: f64 = rows.iter().map(|(c, t)| (c[0] * sol[0] + c[1] * sol[1] + c[2] * sol[2] - t).powi(2)).sum();
        if best.is_none_or(|(_, r)| residual < r) {
            best = Some((sol, residual));
        }
    }
    let (sol, _) = best?;
    let mut errors: Vec<f64> = rows.iter().map(|(c, t)| ((c[0] * sol[0] + c[1] * sol[1] + c[2] * sol[2]) / t - 1.0).abs()).collect();
    errors.sort_by(f64::total_cmp);
    Some(Fit { model: CostModel::new(sol[0], sol[1], sol[2]), points: rows.len(), median_error: errors[errors.len() / 2] })
}

/// The two-level model of a run's measurements and the fits behind it.
pub struct Levels {
    pub model: CostModel,
    /// α, β, γ: from the runs with one rank per host (or of unrecorded placement).
    pub across: Option<Fit>,
    /// α_i, β_i: from the runs on one host (and γ where nothing was measured across).
    pub within: Option<Fit>,
}

/// Fits each level from the runs measured in it ([`fit`]); a level not
/// measured keeps the compiled-in values ([`CostModel::default`]). Runs
/// where ranks share hosts mix the two levels in one time and are left out.
/// `None` when neither level has enough points.
pub fn fit_levels(records: &[Record]) -> Option<Levels> {
    let of = |keep: &dyn Fn(&str) -> bool| fit(&records.iter().filter(|r| keep(&r.placement)).cloned().collect::<Vec<_>>());
    let across = of(&|p| p == "oneperhost" || p.is_empty());
    let within = of(&|p| p == "onehost");
    if across.is_none() && within.is_none() {
        return None;
    }
    let mut model = CostModel::default();
    if let Some(w) = &within {
        (model.alpha_intra, model.beta_intra, model.gamma) = (w.model.alpha, w.model.beta, w.model.gamma);
    }
    if let Some(a) = &across {
        (model.alpha, model.beta, model.gamma) = (a.model.alpha, a.model.beta, a.model.gamma);
    }
    Some(Levels { model, across, within })
}

/// Normal equations for the parameters in `idx` (the others 0); None if singular.
fn solve(rows: &[([f64; 3], f64)], idx: &[usize]) -> Option<[f64; 3]> {
    let k = idx.len();
    let mut m = vec![vec![0.0; k + 1]; k];
    for (c, t) in rows {
        for i in 0..k {
            for j in 0..k {
                m[i][j] += c[idx[i]] * c[idx[j]];
            }
            m[i][k] += c[idx[i]] * t;
        }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..k {
        let pivot = (col..k).max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        for r in 0..k {
            if r != col {
                let f = m[r][col] / m[col][col];
                for c in col..=k {
                    m[r][c] -= f * m[col][c];
                }
            }
        }
    }
    let mut sol = [0.0; 3];
    for (i, &p) in idx.iter().enumerate() {
        sol[p] = m[i][k] / m[i][i];
    }
    Some(sol)
}

#[cfg(test)]
mod tests {
    use super::*;


    #[test]
    fn recovers_the_parameters_that_generated_the_times() {
        let truth = CostModel::new(3e-6, 8e-11, 6e-11);
        let mut r = vec![];
        for (coll, algos) in [("allreduce", &["recursive_doubling", "rabenseifner", "circulant", "ring", "pipeline"][..]), ("reduce_scatter_block", &["pairwise", "circulant"][..])] {
            for p in [8, 12, 64] {
                for bytes in [8, 4096, 1 << 20] {
                    for a in algos {
                        if let Some(t) = Algorithm::from_name(a).and_then(|al| al.estimate(Collective::from_name(coll).unwrap(), bytes, p, &truth)) {
                            r.push(Record::timed(coll, p, bytes, a, t));
                        }
                    }
                }
                r.push(Record::timed(coll, p, 64, "native", 1.0)); // not fastred's: ignored
            }
        }
        let f = fit(&r).expect("a fit");
        for (got, want) in [(f.model.alpha, truth.alpha), (f.model.beta, truth.beta), (f.model.gamma, truth.gamma)] {
            assert!((got / want - 1.0).abs() < 1e-6, "{got} vs {want}");
        }
        assert!(f.median_error < 1e-9);
        // The pipeline's estimate is not linear (its segments depend on α/β): left out.
        assert!(coefficients(Algorithm::Pipeline, Collective::Reduce, 1 << 20, 8).is_none());
        assert!(f.points >= 3 * 3 * 5);
    }

    #[test]
    fn each_level_from_its_own_runs() {
        let truth = CostModel { alpha: 40e-6, beta: 8e-9, gamma: 1e-9, alpha_intra: 4e-7, beta_intra: 1e-10 };
        let mut r = vec![];
        for (placement, m) in [("oneperhost", truth), ("onehost", truth.within_host()), ("sharedhosts", CostModel::new(1.0, 1.0, 1.0))] {
            for p in [4, 8, 12] {
                for bytes in [8, 4096, 1 << 20] {
                    for a in [Algorithm::RecursiveDoubling, Algorithm::Rabenseifner, Algorithm::Ring] {
                        let t = a.estimate(Collective::Allreduce, bytes, p, &m).unwrap();
                        r.push(Record { placement: placement.into(), ..Record::timed("allreduce", p, bytes, a.name(), t) });
                    }
                }
            }
        }
        let close = |got: f64, want: f64| assert!((got / want - 1.0).abs() < 1e-6, "{got} vs {want}");
        let l = fit_levels(&r).expect("both levels");
        for (got, want) in [(l.model.alpha, truth.alpha), (l.model.beta, truth.beta), (l.model.gamma, truth.gamma), (l.model.alpha_intra, truth.alpha_intra), (l.model.beta_intra, truth.beta_intra)] {
            close(got, want);
        }
        // One host only: the levels between hosts keep the compiled-in values.
        let one_host: Vec<Record> = r.iter().filter(|x| x.placement == "onehost").cloned().collect();
        let l = fit_levels(&one_host).expect("within");
        assert!(l.across.is_none());
        assert_eq!(l.model.alpha, CostModel::default().alpha);
        close(l.model.alpha_intra, truth.alpha_intra);
        close(l.model.gamma, truth.gamma);
        // Shared hosts alone: no level.
        assert!(fit_levels(&r.iter().filter(|x| x.placement == "sharedhosts").cloned().collect::<Vec<_>>()).is_none());
    }

    #[test]
    fn too_few_points_give_no_fit() {
        assert!(fit(&[Record::timed("allreduce", 8, 8, "recursive_doubling", 1e-5)]).is_none());
    }
}
