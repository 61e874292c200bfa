//! Helpers the Rust test suites share.
#![allow(dead_code)] // each test crate uses its own subset

use fastred::algo::Blocks;

/// A ring order unlike rank order: even ranks, then odd ranks descending.
pub fn scrambled(p: usize) -> Vec<usize> {
    (0..p).step_by(2).chain((1..p).step_by(2).rev()).collect()
}

/// A placement on hosts unlike the usual one: about three ranks per host,
/// not consecutive in rank order, and (for most p) unequal counts per host.
pub fn scattered_hosts(p: usize) -> Vec<usize> {
    let hosts = p.div_ceil(3).max(1);
    (0..p).map(|r| (r * 5 + r / 4) % hosts).collect()
}

/// The bytes of a slice of plain numbers.
pub fn to_bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain numeric values.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)).to_vec() }
}

/// Plain numbers from their bytes.
pub fn from_bytes<T: Copy + Default>(b: &[u8]) -> Vec<T> {
    let mut v = vec![T::default(); b.len() / std::mem::size_of::<T>()];
    // SAFETY: sizes match; plain numeric values.
    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), v.as_mut_ptr() as *mut u8, b.len()) };
    v
}

/// Reduce-scatter layouts: even, irregular with zeros, all in one block, empty.
pub fn layouts(p: usize) -> Vec<Blocks> {
    vec![
        Blocks::even(3 * p + 1, p),
        Blocks::from_counts((0..p).map(|i| (i * 5 + 2) % 4)),
        Blocks::from_counts((0..p).map(|i| usize::from(i == p / 2) * 9)),
        Blocks::even(0, p),
    ]
}

/// The default selection table, parsed once.
pub fn default_table() -> &'static fastred::select::Table {
    static TABLE: std::sync::OnceLock<fastred::select::Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(fastred::select::Table::default_table)
}
