//! Scratch buffers for the algorithms and dispatch: zeroed when first
//! allocated, then kept in a small per-thread pool and reused, so a loop of
//! calls allocates nothing after its first call. A failed allocation is
//! `MpiError::NoMemory` (the user gets `MPI_ERR_NO_MEM`), never an abort as
//! with `vec![0; len]`.
//!
//! A buffer's contents are unspecified (whatever it held before): every
//! user writes what it reads. The small vectors of indices the algorithms
//! build per call are [`Pooled`] the same way.
//!
//! In the SimGrid SMPI build with `FASTRED_SMPI_SHARED_BUFFERS=1`, heap
//! scratch is pages that every simulated rank shares
//! ([`SimulatedSharedBlock`]): thousands of ranks' long vectors fit in this
//! machine's memory, at the price of garbage results (timing only).

use crate::config;
use crate::error::{MpiError, MpiResult};
use crate::mpi::SimulatedSharedBlock;
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

/// At most this many bytes stay pooled per thread; a buffer that does not
/// fit goes back to the allocator (its call is long enough that one
/// allocation does not show).
const POOL_BYTES: usize = 16 << 20;
const POOL_BUFFERS: usize = 16;

/// A heap buffer, fully initialised: this process's own, or simulated
/// ranks' shared pages.
enum Block {
    Owned(Vec<u8>),
    Shared(SimulatedSharedBlock),
}

impl Block {
    fn bytes(&self) -> &[u8] {
        match self {
            Block::Owned(v) => v,
            Block::Shared(b) => b.as_slice(),
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Block::Owned(v) => v,
            Block::Shared(b) => b.as_mut_slice(),
        }
    }

    fn len(&self) -> usize {
        self.bytes().len()
    }
}

/// Free buffers and their total size.
struct BufferPool {
    buffers: Vec<Block>,
    bytes: usize,
}

impl Drop for BufferPool {
    /// At thread exit: simulated shared pages are left mapped (SMPI's
    /// bookkeeping of them may be gone by then; the process is ending).
    fn drop(&mut self) {
        for buf in self.buffers.drain(..) {
            if let Block::Shared(shared) = buf {
                std::mem::forget(shared);
            }
        }
    }
}

thread_local! {
    static POOL: RefCell<BufferPool> = const { RefCell::new(BufferPool { buffers: Vec::new(), bytes: 0 }) };
}

/// Scratch of at most this many bytes lives inside the `Scratch` itself (on
/// the stack): the short vectors of latency-bound calls touch no pool.
const INLINE_BYTES: usize = 64;

/// `len` bytes of scratch: inline while `len` ≤ [`INLINE_BYTES`] and no
/// larger size was asked for, else a heap buffer from the pool.
pub struct Scratch {
    inline: [u8; INLINE_BYTES],
    heap: Option<Block>,
    len: usize,
}

/// A fresh buffer of exactly `len` bytes: zeroed, or simulated ranks' shared pages.
fn allocate(len: usize) -> MpiResult<Block> {
    if config::local().smpi_shared_buffers {
        if let Some(shared) = SimulatedSharedBlock::new(len) {
            return Ok(Block::Shared(shared));
        }
    }
    let mut buf = Vec::new();
    buf.try_reserve_exact(len).map_err(|_| MpiError::NoMemory)?;
    buf.resize(len, 0);
    Ok(Block::Owned(buf))
}

/// The smallest pooled buffer of at least `len` bytes, taken out of the pool.
fn take_pooled(len: usize) -> Option<Block> {
    POOL.with(|pool| {
        let mut pool = pool.try_borrow_mut().ok()?;
        let best = pool.buffers.iter().enumerate().filter(|(_, b)| b.len() >= len).min_by_key(|(_, b)| b.len())?.0;
        let buf = pool.buffers.swap_remove(best);
        pool.bytes -= buf.len();
        Some(buf)
    })
}

/// Keep `buf` for reuse if the pool has room (at most `POOL_BUFFERS`
/// buffers and `POOL_BYTES` bytes; smaller buffers make way for larger), else
/// free it.
fn give_back(buf: Block) {
    if buf.len() == 0 || buf.len() > POOL_BYTES {
        return;
    }
    let _ = POOL.try_with(|pool| {
        let Ok(mut pool) = pool.try_borrow_mut() else { return };
        while pool.buffers.len() >= POOL_BUFFERS || pool.bytes + buf.len() > POOL_BYTES {
            let Some(smallest) = (0..pool.buffers.len()).min_by_key(|&i| pool.buffers[i].len()) else { break };
            if pool.buffers[smallest].len() > buf.len() {
                return; // everything pooled is larger: keep those
            }
            let evicted = pool.buffers.swap_remove(smallest);
            pool.bytes -= evicted.len();
        }
        pool.bytes += buf.len();
        pool.buffers.push(buf);
    });
}

impl Scratch {
    /// `len` bytes.
    pub fn new(len: usize) -> MpiResult<Scratch> {
        let mut s = Scratch::empty();
        s.resize(len)?;
        Ok(s)
    }

    /// No bytes (allocates nothing).
    pub fn empty() -> Scratch {
        Scratch { inline: [0; INLINE_BYTES], heap: None, len: 0 }
    }

    /// Make this `len` bytes long (contents unspecified).
    pub fn resize(&mut self, len: usize) -> MpiResult {
        if len > self.capacity() {
            let bigger = match take_pooled(len) {
                Some(b) => b,
                None => allocate(len)?,
            };
            if let Some(old) = self.heap.replace(bigger) {
                give_back(old);
            }
        }
        self.len = len;
        Ok(())
    }

    fn capacity(&self) -> usize {
        self.heap.as_ref().map_or(INLINE_BYTES, Block::len)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(heap) = self.heap.take() {
            give_back(heap);
        }
    }
}

impl Deref for Scratch {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.heap {
            None => &self.inline[..self.len],
            Some(b) => &b.bytes()[..self.len],
        }
    }
}

impl DerefMut for Scratch {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.heap {
            None => &mut self.inline[..self.len],
            Some(b) => &mut b.bytes_mut()[..self.len],
        }
    }
}

/// Small vectors the algorithms build per call (ranks, offsets, byte
/// ranges, requests) come from a per-thread pool of each item type too.
pub trait PoolItem: Sized + 'static {
    /// Run `f` on this thread's pool of free vectors (None while the thread
    /// is being torn down or the pool is in use further up the stack).
    fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R>;
}

/// Declare the per-thread pool of an item type.
#[macro_export]
macro_rules! pool_item {
    ($t:ty) => {
        impl $crate::scratch::PoolItem for $t {
            fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R> {
                thread_local! {
                    static POOL: std::cell::RefCell<Vec<Vec<$t>>> = const { std::cell::RefCell::new(Vec::new()) };
                }
                POOL.try_with(|p| p.try_borrow_mut().ok().map(|mut p| f(&mut p))).ok().flatten()
            }
        }
    };
}

pool_item!(usize);
pool_item!(std::ops::Range<usize>);

/// Vectors kept for reuse per thread and item type, and their largest capacity.
const POOLED_VECTORS: usize = 32;
const POOLED_CAPACITY: usize = 1 << 16;

/// A `Vec<T>` drawn from (and given back to) this thread's pool.
pub struct Pooled<T: PoolItem> {
    v: Vec<T>,
}

impl<T: PoolItem> Pooled<T> {
    pub fn new() -> Self {
        Pooled { v: T::with_pool(|p| p.pop()).flatten().unwrap_or_default() }
    }
}

impl<T: PoolItem> Default for Pooled<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: PoolItem> Drop for Pooled<T> {
    fn drop(&mut self) {
        let mut v = std::mem::take(&mut self.v);
        v.clear();
        if v.capacity() > 0 && v.capacity() <= POOLED_CAPACITY {
            T::with_pool(|p| {
                if p.len() < POOLED_VECTORS {
                    p.push(v);
                }
            });
        }
    }
}

impl<T: PoolItem> Deref for Pooled<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.v
    }
}

impl<T: PoolItem> DerefMut for Pooled<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.v
    }
}

impl<T: PoolItem> FromIterator<T> for Pooled<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut p = Pooled::new();
        p.v.extend(iter);
        p
    }
}

impl<T: PoolItem + Clone> Clone for Pooled<T> {
    fn clone(&self) -> Self {
        self.v.iter().cloned().collect()
    }
}

impl<T: PoolItem + PartialEq> PartialEq for Pooled<T> {
    fn eq(&self, other: &Self) -> bool {
        self.v == other.v
    }
}

impl<T: PoolItem + Eq> Eq for Pooled<T> {}

impl<T: PoolItem + std::fmt::Debug> std::fmt::Debug for Pooled<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.v.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_and_sized() {
        let small = Scratch::new(INLINE_BYTES).unwrap();
        assert_eq!(small.len(), INLINE_BYTES);
        drop(small);
        let first = Scratch::new(1000).unwrap();
        let ptr = first.as_ptr();
        assert_eq!(first.len(), 1000);
        drop(first);
        let again = Scratch::new(600).unwrap();
        assert_eq!((again.len(), again.as_ptr()), (600, ptr), "the pooled buffer is reused");
        let mut grown = Scratch::empty();
        grown.resize(5).unwrap();
        grown.resize(3000).unwrap();
        assert_eq!(grown.len(), 3000);
        assert!(Scratch::new(usize::MAX / 2).is_err(), "a failed allocation is an error");
    }

    #[test]
    fn pooled_vectors_are_reused_empty() {
        let v: Pooled<usize> = (0..10).collect();
        let ptr = v.as_ptr();
        drop(v);
        let w: Pooled<usize> = Pooled::new();
        assert!(w.is_empty() && w.capacity() >= 10 && w.as_ptr() == ptr);
    }
}
