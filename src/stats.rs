//! Process-wide counters per collective × algorithm (own and fallback calls,
//! user bytes, messages and bytes sent/received, time), readable through the
//! C API (`capi`), and with `FASTRED_STATS=1` (rank 0's setting) a table
//! printed at `MPI_Finalize` by rank 0 after gathering every rank's counters
//! (min/max per rank).

use crate::select::{Algorithm, Collective};
use crate::transport::counting::Traffic;
use std::cell::Cell;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// Counters of one (collective, algorithm) pair: the C API's struct, one
/// definition for both.
pub use crate::capi::FastredCounters as Counters;

const FIELDS: usize = 7;
const N: usize = Collective::ALL.len() * Algorithm::ALL.len();

/// The counters, `FIELDS` per (collective, algorithm), in `Counters` order:
/// relaxed atomic adds, so recording takes no lock.
static TABLE: [AtomicU64; N * FIELDS] = [const { AtomicU64::new(0) }; N * FIELDS];

fn index(c: Collective, a: Algorithm) -> usize {
    c as usize * Algorithm::ALL.len() + a.index()
}

/// The algorithm index (in `Algorithm::ALL`) of the last call of each collective, −1 before any.
static LAST: [AtomicI32; 4] = [const { AtomicI32::new(-1) }; 4];

/// Record one call: always its algorithm and the call count; with `full`
/// (this process's `FASTRED_STATS`) also the bytes, messages and time, whose
/// atomic adds would otherwise be most of what the per-call path costs.
pub fn record(c: Collective, a: Algorithm, full: bool, user_bytes: usize, traffic: Traffic, nanoseconds: u64) {
    let a_index = a.index();
    LAST[c as usize].store(a_index as i32, Ordering::Relaxed);
    let at = index(c, a) * FIELDS;
    TABLE[at].fetch_add(1, Ordering::Relaxed);
    if !full {
        return;
    }
    let values = [user_bytes as u64, traffic.messages_sent, traffic.bytes_sent, traffic.bytes_received, traffic.bytes_copied, nanoseconds];
    for (slot, v) in TABLE[at + 1..at + FIELDS].iter().zip(values) {
        if v != 0 {
            slot.fetch_add(v, Ordering::Relaxed);
        }
    }
}

/// Calls handed to the library that this thread has not added to the table
/// yet, per collective. A repeated call handed over (`dispatch::repeat`)
/// counts here instead of with a locked add, which costs about 10 ns: 5 % of
/// Open MPI's own 8-byte allreduce on one host. Added to the table every
/// [`PENDING_MAX`] calls, when this thread reads the counters, and when it
/// ends; so another thread's reading may miss fewer than that many of a
/// running thread's calls per collective.
struct Pending([Cell<u32>; 4]);

const PENDING_MAX: u32 = 256;

impl Pending {
    fn flush(&self) {
        for c in Collective::ALL {
            let n = self.0[c as usize].replace(0);
            if n > 0 {
                TABLE[index(c, Algorithm::Native) * FIELDS].fetch_add(u64::from(n), Ordering::Relaxed);
            }
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.flush();
    }
}

thread_local! {
    static PENDING: Pending = const { Pending([const { Cell::new(0) }; 4]) };
}

/// Record one call of `c` handed to the library, not timed (the cheap form
/// of [`record`] for `Algorithm::Native` without `FASTRED_STATS`).
pub fn record_handover(c: Collective) {
    LAST[c as usize].store(Algorithm::Native.index() as i32, Ordering::Relaxed);
    let pending = PENDING.try_with(|p| {
        let n = p.0[c as usize].get() + 1;
        p.0[c as usize].set(n);
        if n >= PENDING_MAX {
            p.flush();
        }
    });
    if pending.is_err() {
        // The thread is ending: its pending counts are gone already.
        TABLE[index(c, Algorithm::Native) * FIELDS].fetch_add(1, Ordering::Relaxed);
    }
}

/// Calls handed to the library by the serialized programs' shortcut
/// (`dispatch::repeat::handed_over_before`), per collective: a plain load and
/// store (below `MPI_THREAD_MULTIPLE` MPI's contract orders the calls, and
/// only that shortcut writes here), added to the native count when read.
static SERIALIZED_HANDOVERS: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

/// Record one call handed over by that shortcut.
#[inline]
pub fn record_serialized_handover(c: Collective) {
    LAST[c as usize].store(Algorithm::Native.index() as i32, Ordering::Relaxed);
    let n = &SERIALIZED_HANDOVERS[c as usize];
    n.store(n.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// Add this thread's pending counts to the table (before reading it).
fn flush_this_thread() {
    let _ = PENDING.try_with(Pending::flush);
}

/// The algorithm of the last call of `c` in this process, if any.
pub fn last_algorithm(c: Collective) -> Option<Algorithm> {
    usize::try_from(LAST[c as usize].load(Ordering::Relaxed)).ok().map(|i| Algorithm::ALL[i])
}

pub fn get(c: Collective, a: Algorithm) -> Counters {
    flush_this_thread();
    let at = index(c, a) * FIELDS;
    let v = |f: usize| TABLE[at + f].load(Ordering::Relaxed);
    let serialized = if a == Algorithm::Native { SERIALIZED_HANDOVERS[c as usize].load(Ordering::Relaxed) } else { 0 };
    Counters { calls: v(0) + serialized, user_bytes: v(1), messages_sent: v(2), bytes_sent: v(3), bytes_received: v(4), bytes_copied: v(5), nanoseconds: v(6) }
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
    flush_this_thread();
    let mut all: Vec<u64> = TABLE.iter().map(|v| v.load(Ordering::Relaxed)).collect();
    for c in Collective::ALL {
        all[index(c, Algorithm::Native) * FIELDS] += SERIALIZED_HANDOVERS[c as usize].load(Ordering::Relaxed);
    }
    all
}

/// Length of [`snapshot`].
pub const SNAPSHOT_LEN: usize = N * FIELDS;

/// The report rank 0 prints from every rank's snapshot (one Vec per rank).
pub fn report(per_rank: &[Vec<u64>]) -> String {
    use std::fmt::Write;
    let p = per_rank.len();
    let mut out = format!(
        "fastred statistics ({p} processes; per-rank min/max; bytes are what each process sent, received and copied locally)\n\
         {:<21} {:<18} {:>8} {:>14} {:>17} {:>23} {:>23} {:>23} {:>15}\n",
        "collective", "algorithm", "calls", "user bytes", "messages sent", "bytes sent", "bytes received", "bytes copied", "seconds"
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
            let secs = col(6);
            let _ = writeln!(
                out,
                "{:<21} {:<18} {:>8} {:>14} {:>17} {:>23} {:>23} {:>23} {:>15}",
                c.name(),
                if a == Algorithm::Native { "native (fallback)" } else { a.name() },
                mm(col(0)),
                mm(col(1)),
                mm(col(2)),
                mm(col(3)),
                mm(col(4)),
                mm(col(5)),
                format!("{:.4}..{:.4}", secs.0 as f64 * 1e-9, secs.1 as f64 * 1e-9),
            );
        }
    }
    let idle: Vec<String> = per_rank
        .iter()
        .enumerate()
        .filter(|(_, r)| r.chunks(FIELDS).all(|e| e[0] == 0))
        .map(|(i, _)| i.to_string())
        .collect();
    if !idle.is_empty() {
        let _ = writeln!(out, "ranks that made no intercepted call (nothing to count): {}", idle.join(", "));
    }
    out
}

/// The report at `MPI_Finalize`, run by every rank before `PMPI_Finalize`
/// (through `dispatch::finalize`, which the exported `MPI_Finalize` calls): rank 0 of
/// `MPI_COMM_WORLD` decides whether to print the `FASTRED_STATS` report (one
/// broadcast, so ranks with differing environments agree, with a warning);
/// if so, every rank's counters are gathered to rank 0, which prints the
/// report and names the ranks that made no intercepted call. Every rank takes
/// part whatever it did before, so this cannot hang a correct program.
pub fn report_at_finalize() {
    let world = crate::mpi::handle::comm_world();
    let mine = crate::config::local().stats;
    let mut agreed = [u8::from(mine)];
    if crate::mpi::bcast(world, &mut agreed, 0).is_err() {
        return;
    }
    let (agreed, rank) = (agreed[0] != 0, crate::mpi::rank(world).unwrap_or(0));
    if agreed != mine {
        log::warn!("FASTRED_STATS differs from rank 0's; rank 0's setting ({}) decides on rank {rank}", u8::from(agreed));
    }
    if !agreed {
        return;
    }
    let mine: Vec<u8> = snapshot().iter().flat_map(|v| v.to_le_bytes()).collect();
    let p = crate::mpi::size(world).unwrap_or(1);
    let mut all = vec![0u8; if rank == 0 { mine.len() * p } else { 0 }];
    if crate::mpi::gather(world, &mine, &mut all, 0).is_ok() && rank == 0 {
        let per_rank: Vec<Vec<u64>> = all
            .chunks(mine.len())
            .map(|c| c.chunks(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect())
            .collect();
        eprint!("{}", report(&per_rank));
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
        a[i..i + FIELDS].copy_from_slice(&[2, 1000, 6, 1500, 1500, 0, 1_000_000]);
        b[i..i + FIELDS].copy_from_slice(&[2, 1000, 6, 1400, 1600, 2000, 3_000_000]);
        let r = report(&[a, b]);
        let line = r.lines().find(|l| l.starts_with("allreduce")).unwrap();
        assert!(line.contains("ring") && line.contains("1400..1500") && line.contains("1500..1600") && line.contains(" 0..2000 "), "{line}");
        assert_eq!(r.lines().count(), 3);
    }
}
