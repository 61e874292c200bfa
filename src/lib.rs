//! fastred: MPI reduction collectives (`MPI_Allreduce`, `MPI_Reduce`,
//! `MPI_Reduce_scatter`, `MPI_Reduce_scatter_block`) with the algorithms of the
//! literature, interposed through the PMPI profiling layer.
//!
//! Layers, top to bottom: `abi` (exported C and Fortran symbols) → `dispatch`
//! (own-or-fallback, algorithm choice, errors) → `algo` (algorithms, generic
//! over `algo::Transport` and `op::Reducer`) → `transport` / `op`.

pub mod algo;
pub mod error;
pub mod ffi;
pub mod op;
pub mod transport;
pub mod abi;
pub mod capi;
pub mod collective;
pub mod comm;
pub mod config;
pub mod dispatch;
pub mod model;
pub mod mpi;
pub mod network;
pub mod reproducible;
pub mod scratch;
pub mod select;
pub mod shm;
pub mod simulated;
pub mod stats;
pub mod topology;
pub mod types;

/// The heap allocator of everything in fastred (the library and the tool):
/// the system's, counting allocations so that tests can show the per-call
/// path makes none (`fastred_allocations` in the C API). One relaxed atomic
/// add per allocation.
struct CountingAllocator;

static ALLOCATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

// SAFETY: forwards every request to the system allocator unchanged.
unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: as above.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Heap allocations made by fastred in this process so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.load(std::sync::atomic::Ordering::Relaxed)
}
