//! Process-wide counters: calls run by fastred's own algorithms and calls
//! handed to the MPI library, per collective. Read through `capi`.

use crate::select::Collective;
use std::sync::atomic::{AtomicU64, Ordering};

static OWN: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
static FALLBACK: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

pub fn count_own(c: Collective) {
    OWN[c as usize].fetch_add(1, Ordering::Relaxed);
}

pub fn count_fallback(c: Collective) {
    FALLBACK[c as usize].fetch_add(1, Ordering::Relaxed);
}

pub fn own_calls(c: Collective) -> u64 {
    OWN[c as usize].load(Ordering::Relaxed)
}

pub fn fallback_calls(c: Collective) -> u64 {
    FALLBACK[c as usize].load(Ordering::Relaxed)
}
