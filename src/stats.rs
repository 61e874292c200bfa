//! Process-wide counters per collective × algorithm (own and fallback calls,
//! user bytes, messages and bytes sent/received, time), readable through the
//! C API (`capi`), and with `FASTRED_STATS=1` a table printed at `MPI_Finalize`
//! by rank 0 after gathering every rank's counters (min/max per rank).

use crate::select::{Algorithm, Collective};
use crate::transport::counting::Traffic;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// Counters of one (collective, algorithm) pair; `Algorithm::Native` counts
/// the calls handed to the MPI library.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Counters {
    pub calls: u64,
    /// Bytes of the vector the user reduced (for reduce-scatter: all blocks).
    pub user_bytes: u64,
    pub messages_sent: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub nanoseconds: u64,
}

const FIELDS: usize = 6;
const N: usize = Collective::ALL.len() * Algorithm::ALL.len();

static TABLE: Mutex<[Counters; N]> = Mutex::new([Counters {
    calls: 0, user_bytes: 0, messages_sent: 0, bytes_sent: 0, bytes_received: 0, nanoseconds: 0,
}; N]);

fn algorithm_index(a: Algorithm) -> usize {
    Algorithm::ALL.iter().position(|x| *x == a).unwrap()
}

fn index(c: Collective, a: Algorithm) -> usize {
    c as usize * Algorithm::ALL.len() + algorithm_index(a)
}

/// The algorithm index (in `Algorithm::ALL`) of the last call of each collective, −1 before any.
static LAST: [AtomicI32; 4] = [const { AtomicI32::new(-1) }; 4];

/// Record one call.
pub fn record(c: Collective, a: Algorithm, user_bytes: usize, traffic: Traffic, nanoseconds: u64) {
    let a_index = algorithm_index(a);
    LAST[c as usize].store(a_index as i32, Ordering::Relaxed);
    if let Ok(mut t) = TABLE.lock() {
        let e = &mut t[c as usize * Algorithm::ALL.len() + a_index];
        e.calls += 1;
        e.user_bytes += user_bytes as u64;
        e.messages_sent += traffic.messages_sent;
        e.bytes_sent += traffic.bytes_sent;
        e.bytes_received += traffic.bytes_received;
        e.nanoseconds += nanoseconds;
    }
}

/// The algorithm of the last call of `c` in this process, if any.
pub fn last_algorithm(c: Collective) -> Option<Algorithm> {
    usize::try_from(LAST[c as usize].load(Ordering::Relaxed)).ok().map(|i| Algorithm::ALL[i])
}

pub fn get(c: Collective, a: Algorithm) -> Counters {
    TABLE.lock().map(|t| t[index(c, a)]).unwrap_or_default()
}

/// Calls of `c` run by fastred's own algorithms.
pub fn own_calls(c: Collective) -> u64 {
    Algorithm::ALL.iter().filter(|a| **a != Algorithm::Native).map(|a| get(c, *a).calls).sum()
}

/// Calls of `c` handed to the MPI library.
pub fn fallback_calls(c: Collective) -> u64 {
    get(c, Algorithm::Native).calls
}

/// All counters as one flat array (for gathering).
pub fn snapshot() -> Vec<u64> {
    let t = TABLE.lock().map(|t| *t).unwrap_or([Counters::default(); N]);
    t.iter()
        .flat_map(|e| [e.calls, e.user_bytes, e.messages_sent, e.bytes_sent, e.bytes_received, e.nanoseconds])
        .collect()
}

/// Length of [`snapshot`].
pub const SNAPSHOT_LEN: usize = N * FIELDS;

/// The report rank 0 prints from every rank's snapshot (one Vec per rank).
pub fn report(per_rank: &[Vec<u64>]) -> String {
    use std::fmt::Write;
    let p = per_rank.len();
    let mut out = format!(
        "fastred statistics ({p} processes; per-rank min/max; bytes are what each process sent and received)\n\
         {:<21} {:<18} {:>8} {:>14} {:>17} {:>23} {:>23} {:>15}\n",
        "collective", "algorithm", "calls", "user bytes", "messages sent", "bytes sent", "bytes received", "seconds"
    );
    for c in Collective::ALL {
        for a in Algorithm::ALL {
            let i = index(c, a) * FIELDS;
            let col = |f: usize| {
                let v: Vec<u64> = per_rank.iter().map(|r| r[i + f]).collect();
                (*v.iter().min().unwrap_or(&0), *v.iter().max().unwrap_or(&0))
            };
            if col(0).1 == 0 {
                continue;
            }
            let mm = |(lo, hi): (u64, u64)| if lo == hi { format!("{lo}") } else { format!("{lo}..{hi}") };
            let secs = col(5);
            let _ = writeln!(
                out,
                "{:<21} {:<18} {:>8} {:>14} {:>17} {:>23} {:>23} {:>15}",
                c.name(),
                if a == Algorithm::Native { "native (fallback)" } else { a.name() },
                mm(col(0)),
                mm(col(1)),
                mm(col(2)),
                mm(col(3)),
                mm(col(4)),
                format!("{:.4}..{:.4}", secs.0 as f64 * 1e-9, secs.1 as f64 * 1e-9),
            );
        }
    }
    out
}

/// With `FASTRED_STATS` set (and not "0"), print the report at
/// `MPI_Finalize`: an attribute on `MPI_COMM_SELF`, whose delete callback MPI
/// runs first thing in `MPI_Finalize`, gathers every rank's counters to rank 0
/// on `MPI_COMM_WORLD`. Every rank installs it at its first intercepted call,
/// so every rank must make at least one (a rank that made none would leave the
/// gather waiting).
pub fn install_finalize_report() {
    use crate::ffi;
    use std::os::raw::{c_int, c_void};
    if std::env::var("FASTRED_STATS").map_or(true, |v| v.is_empty() || v == "0") {
        return;
    }
    unsafe extern "C" fn at_finalize(_comm: ffi::MPI_Comm, _kv: c_int, _value: *mut c_void, _extra: *mut c_void) -> c_int {
        let mine = snapshot();
        let (mut rank, mut size) = (0, 0);
        ffi::PMPI_Comm_rank(ffi::RSMPI_COMM_WORLD, &mut rank);
        ffi::PMPI_Comm_size(ffi::RSMPI_COMM_WORLD, &mut size);
        let bytes = (SNAPSHOT_LEN * 8) as c_int;
        let mut all = vec![0u64; if rank == 0 { SNAPSHOT_LEN * size as usize } else { 1 }];
        ffi::PMPI_Gather(mine.as_ptr().cast(), bytes, ffi::fr_byte(), all.as_mut_ptr().cast(), bytes, ffi::fr_byte(), 0, ffi::RSMPI_COMM_WORLD);
        if rank == 0 {
            let per_rank: Vec<Vec<u64>> = all.chunks(SNAPSHOT_LEN).map(|c| c.to_vec()).collect();
            eprint!("{}", report(&per_rank));
        }
        ffi::SUCCESS
    }
    let mut kv = 0;
    // SAFETY: the callback has MPI's delete-function signature; MPI is initialised.
    unsafe {
        if ffi::PMPI_Comm_create_keyval(Some(crate::comm::copy_attr), Some(at_finalize), &mut kv, std::ptr::null_mut()) == ffi::SUCCESS {
            ffi::PMPI_Comm_set_attr(ffi::fr_comm_self(), kv, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_shows_min_and_max_per_rank() {
        let mut a = vec![0u64; SNAPSHOT_LEN];
        let mut b = vec![0u64; SNAPSHOT_LEN];
        let i = index(Collective::Allreduce, Algorithm::Ring) * FIELDS;
        a[i..i + FIELDS].copy_from_slice(&[2, 1000, 6, 1500, 1500, 1_000_000]);
        b[i..i + FIELDS].copy_from_slice(&[2, 1000, 6, 1400, 1600, 3_000_000]);
        let r = report(&[a, b]);
        let line = r.lines().find(|l| l.starts_with("allreduce")).unwrap();
        assert!(line.contains("ring") && line.contains("1400..1500") && line.contains("1500..1600"), "{line}");
        assert_eq!(r.lines().count(), 3);
    }
}
