//! Memory shared by the ranks of one communicator on one host, for the
//! shared-memory algorithm (`src/algo/shared_memory.rs`; issue 11: the
//! library's own collectives within a node are shared-memory exchanges, and
//! so are Open MPI's coll/sm and xhc, MVAPICH2's shmem collectives).
//!
//! Layout of a [`Segment`] of `ranks` ranks and `slot`-byte slots, every
//! part on its own cache lines:
//!
//! ```text
//!   header      token (u64): the creator's random number, checked by the others
//!   done[r]     last round whose share rank r has reduced       (one line per rank)
//!   input[2][r] rank r's input of even / odd rounds: a flag (the last round
//!               published there), the stamp of the call it belongs to, and
//!               the data, from byte 16 of the same line, so that a short
//!               vector travels with its flag in one line
//!   results     the reduced chunk of the current round
//! ```
//!
//! Protocol (the one correctness argument; the algorithm follows it): rounds
//! are numbered 1, 2, … per rank and every rank runs the same rounds. In
//! round s a rank first waits until every rank has arrived in round s − 1,
//! then writes only its own `input[s % 2][me]`, data first, then the slot's
//! flag `= s` (release); it reads another rank's input of round s only after
//! loading that flag `≥ s` (acquire). The slot it writes held round s − 2,
//! and every rank arrives in round s − 1 only after finishing round s − 2:
//! no reader is left (and no rank is ever two rounds ahead of another, so a
//! slot's flag is s − 2 or s while a round-s reader waits). A rank that reads
//! nothing in a round (a reduce's short round, off the root) publishes and
//! goes on. A rank writes its part of `results` in round s only after every
//! rank arrived in round s (so all finished reading the results of round
//! s − 1), stores `done[me] = s`, and results are read only after
//! `done[r] ≥ s` for every r. Only the owner writes a flag, so a rank's own
//! input flags are also its round counter.
//! The unsafe code below is the raw memory; the protocol is what makes sharing
//! it sound, and the in-process tests run it on threads.
//!
//! Stamps: a rank publishes, with each round, its call's stamp (collective,
//! bytes, root: what MPI requires all ranks to pass alike), or [`FAILED`] when
//! it could not reserve memory for the round. Readers compare every rank's
//! stamp with their own ([`Segment::stamps_agree`]), so ranks that disagree
//! on a call's size get an error instead of each other's bytes.
//!
//! A mapped segment is POSIX shared memory: rank 0 creates it at its full
//! size and allocates the control lines, the others open it by name and check
//! the token, everyone agrees, and the name is unlinked at once: nothing is
//! left in `/dev/shm`, and the memory goes with the last unmapping (the
//! communicator's state, when it is freed). Pages are allocated as the ranks
//! first need them ([`Segment::reserve`]: each rank its own slots and the
//! results up to the longest round it has run), so a communicator that only
//! reduces short vectors costs a few pages, and a full `/dev/shm` is an error
//! when reserving, never a SIGBUS when touching the memory.

use std::alloc::Layout;
use std::ffi::CString;
use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const LINE: usize = 64;

/// Where a slot's data starts (after its flag and stamp; 16-byte aligned).
pub const DATA_AT: usize = 16;

/// The stamp of a rank that could not reserve memory for its round.
pub const FAILED: u64 = u64::MAX;

/// Which flag of a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// Its input of the round is published.
    Arrived,
    /// Its share of the round's results is written.
    Done,
}

enum Backing {
    /// `mmap`ped shared memory (unmapped on drop) and its descriptor (closed
    /// on drop), through which pages are allocated.
    Mapped(libc::c_int),
    /// Heap memory shared by threads (the in-process transport).
    Heap(Layout),
}

/// A shared region laid out as the module documentation says.
pub struct Segment {
    base: NonNull<u8>,
    len: usize,
    ranks: usize,
    slot: usize,
    backing: Backing,
    /// Per rank: 1 + the round length its slots and the results are
    /// allocated for (mapped segments; one rank per process uses its entry).
    reserved: Vec<std::sync::atomic::AtomicUsize>,
    /// Give up waiting for a flag after this long (panics; the in-process
    /// tests' guard against a protocol bug). `None`: wait as long as MPI would.
    patience: Option<Duration>,
}

// SAFETY: the memory is only reached through the methods below, whose
// concurrent use follows the protocol above (flags are atomics; slots have
// one writer per round and readers only after its release store).
unsafe impl Send for Segment {}
unsafe impl Sync for Segment {}

impl Segment {
    /// Bytes of a segment for `ranks` ranks with `slot`-byte slots.
    pub fn bytes_for(ranks: usize, slot: usize) -> usize {
        Self::inputs_at(ranks) + (2 * ranks + 1) * slot
    }

    fn inputs_at(ranks: usize) -> usize {
        LINE * (1 + ranks)
    }

    /// A segment in this process's heap, for `ranks` threads.
    pub fn in_heap(ranks: usize, slot: usize, patience: Option<Duration>) -> Segment {
        let slot = slot.next_multiple_of(LINE);
        let len = Self::bytes_for(ranks, slot);
        let layout = Layout::from_size_align(len, LINE).expect("segment layout");
        // SAFETY: `layout` has a non-zero size (the header line).
        let base = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) }).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        let reserved = (0..ranks).map(|_| std::sync::atomic::AtomicUsize::new(0)).collect();
        Segment { base, len, ranks, slot, backing: Backing::Heap(layout), reserved, patience }
    }

    /// Create the named POSIX shared-memory segment (it must not exist),
    /// allocate its control lines and write `token` in its header.
    pub fn create(name: &str, ranks: usize, slot: usize, token: u64) -> io::Result<Segment> {
        let segment = Self::map(name, ranks, slot, true)?;
        segment.header().store(token, Ordering::Release);
        Ok(segment)
    }

    /// Open the segment rank 0 created under `name`; an error unless its
    /// header holds `token` (another host's, or another job's, memory).
    pub fn open(name: &str, ranks: usize, slot: usize, token: u64) -> io::Result<Segment> {
        let segment = Self::map(name, ranks, slot, false)?;
        if segment.header().load(Ordering::Acquire) != token {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "shared memory segment holds another token"));
        }
        Ok(segment)
    }

    /// Remove the name (the mappings stay valid).
    pub fn unlink(name: &str) {
        if let Ok(c) = CString::new(name) {
            // SAFETY: a valid NUL-terminated string.
            unsafe { libc::shm_unlink(c.as_ptr()) };
        }
    }

    fn map(name: &str, ranks: usize, slot: usize, create: bool) -> io::Result<Segment> {
        let slot = slot.next_multiple_of(LINE);
        let len = Self::bytes_for(ranks, slot);
        let c = CString::new(name).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        let flags = if create { libc::O_RDWR | libc::O_CREAT | libc::O_EXCL } else { libc::O_RDWR };
        // SAFETY: plain system calls on a valid name; every result is checked,
        // and on failure the descriptor is closed (and a created name removed).
        unsafe {
            let fd = libc::shm_open(c.as_ptr(), flags, 0o600);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            let sized = if create {
                if libc::ftruncate(fd, len as libc::off_t) != 0 {
                    Err(io::Error::last_os_error())
                } else {
                    allocate(fd, 0, Self::inputs_at(ranks))
                }
            } else {
                let mut st: libc::stat = std::mem::zeroed();
                if libc::fstat(fd, &mut st) != 0 {
                    Err(io::Error::last_os_error())
                } else if (st.st_size as usize) < len {
                    Err(io::Error::new(io::ErrorKind::InvalidData, "shared memory segment too short"))
                } else {
                    Ok(())
                }
            };
            let mapped = sized.and_then(|()| {
                let p = libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0);
                if p == libc::MAP_FAILED { Err(io::Error::last_os_error()) } else { Ok(p) }
            });
            let base = match mapped {
                Ok(p) => NonNull::new(p as *mut u8).expect("mmap returned null"),
                Err(e) => {
                    libc::close(fd);
                    if create {
                        libc::shm_unlink(c.as_ptr());
                    }
                    return Err(e);
                }
            };
            let reserved = (0..ranks).map(|_| std::sync::atomic::AtomicUsize::new(0)).collect();
            Ok(Segment { base, len, ranks, slot, backing: Backing::Mapped(fd), reserved, patience: None })
        }
    }

    /// Make sure `rank`'s two input slots can hold rounds of `round_bytes` and
    /// the results their first `round_bytes` (allocating pages beyond what
    /// the rank reserved before); the memory a rank writes is always
    /// reserved by it first. Reserving 0 bytes allocates the slots' flag lines.
    pub fn reserve(&self, rank: usize, round_bytes: usize) -> io::Result<()> {
        let Backing::Mapped(fd) = self.backing else { return Ok(()) };
        // 1 + the round length reserved so far (0: nothing yet); only `rank` touches it.
        let done = &self.reserved[rank];
        if round_bytes < done.load(Ordering::Relaxed) {
            return Ok(());
        }
        let want = round_bytes.min(self.slot_bytes());
        for parity in 0..2 {
            allocate(fd, self.slot_at(parity, rank), DATA_AT + want)?;
        }
        if want > 0 {
            allocate(fd, self.results_at(), want)?;
        }
        done.store(want + 1, Ordering::Relaxed);
        Ok(())
    }

    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// Data bytes per input slot: the longest round.
    pub fn slot_bytes(&self) -> usize {
        self.slot - DATA_AT
    }

    fn atomic_at(&self, offset: usize) -> &AtomicU64 {
        debug_assert!(offset + 8 <= self.len && offset.is_multiple_of(8));
        // SAFETY: in bounds, 8-aligned (the base is page- or line-aligned),
        // and only ever accessed atomically.
        unsafe { &*(self.base.as_ptr().add(offset) as *const AtomicU64) }
    }

    fn header(&self) -> &AtomicU64 {
        self.atomic_at(0)
    }

    fn slot_at(&self, round: u64, rank: usize) -> usize {
        Self::inputs_at(self.ranks) + ((round as usize % 2) * self.ranks + rank) * self.slot
    }

    fn flag(&self, which: Flag, round: u64, rank: usize) -> &AtomicU64 {
        match which {
            Flag::Arrived => self.atomic_at(self.slot_at(round, rank)),
            Flag::Done => self.atomic_at(LINE * (1 + rank)),
        }
    }

    /// The number of the next round of `rank` (its input flags are its counter).
    pub fn next_round(&self, rank: usize) -> u64 {
        let last = |parity| self.flag(Flag::Arrived, parity, rank).load(Ordering::Relaxed);
        last(0).max(last(1)) + 1
    }

    /// Write `data` (at most [`slot_bytes`](Self::slot_bytes)) and `stamp`
    /// into `rank`'s input slot of `round`, then mark it arrived. The slot
    /// must be [reserved](Self::reserve) for `data`.
    pub fn publish(&self, rank: usize, round: u64, stamp: u64, data: &[u8]) {
        assert!(data.len() <= self.slot_bytes() && rank < self.ranks);
        let at = self.slot_at(round, rank);
        // SAFETY: the slot is in bounds and, by the protocol, nobody reads it
        // in this round until the release store below, nor since round − 2.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.base.as_ptr().add(at + DATA_AT), data.len()) };
        self.atomic_at(at + 8).store(stamp, Ordering::Relaxed);
        self.flag(Flag::Arrived, round, rank).store(round, Ordering::Release);
    }

    /// Whether every rank published `stamp` with `round`; only after
    /// [`wait_all`](Self::wait_all)`(Flag::Arrived, round)`. Otherwise the
    /// first rank whose stamp differs, and its stamp.
    pub fn stamps_agree(&self, round: u64, stamp: u64) -> Result<(), (usize, u64)> {
        (0..self.ranks).map(|r| (r, self.atomic_at(self.slot_at(round, r) + 8).load(Ordering::Relaxed))).find(|&(_, s)| s != stamp).map_or(Ok(()), Err)
    }

    /// `rank`'s input of `round` (the first `len` bytes of its slot); only
    /// after [`wait_all`](Self::wait_all)`(Flag::Arrived, round)`.
    pub fn input(&self, round: u64, rank: usize, len: usize) -> &[u8] {
        assert!(len <= self.slot_bytes() && rank < self.ranks);
        // SAFETY: in bounds; its writer is done with it until round + 2,
        // which no rank starts before this one has finished round + 1.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr().add(self.slot_at(round, rank) + DATA_AT), len) }
    }

    fn results_at(&self) -> usize {
        Self::inputs_at(self.ranks) + 2 * self.ranks * self.slot
    }

    /// Write this rank's part `range` of the round's results with `write`,
    /// then mark its share done. Parts of different ranks must not overlap.
    pub fn write_results(&self, rank: usize, round: u64, range: std::ops::Range<usize>, write: impl FnOnce(&mut [u8])) {
        assert!(range.start <= range.end && range.end <= self.slot_bytes());
        // SAFETY: in bounds; by the protocol no one reads the results of this
        // round before `done`, and everyone has finished the previous round's.
        let part = unsafe { std::slice::from_raw_parts_mut(self.base.as_ptr().add(self.results_at() + range.start), range.len()) };
        write(part);
        self.flag(Flag::Done, round, rank).store(round, Ordering::Release);
    }

    /// The round's first `len` bytes of results; only after
    /// [`wait_all`](Self::wait_all)`(Flag::Done, round)`.
    pub fn results(&self, len: usize) -> &[u8] {
        assert!(len <= self.slot_bytes());
        // SAFETY: in bounds; every writer of this round has finished (done).
        unsafe { std::slice::from_raw_parts(self.base.as_ptr().add(self.results_at()), len) }
    }

    /// Wait until every rank's `which` flag has reached `round`: spin a
    /// little, then yield the core (ranks may outnumber cores).
    pub fn wait_all(&self, which: Flag, round: u64) {
        let start = self.patience.map(|p| (Instant::now(), p));
        for r in 0..self.ranks {
            let flag = self.flag(which, round, r);
            let mut spins = 0u32;
            while flag.load(Ordering::Acquire) < round {
                if spins < 256 {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                    if let Some((t0, p)) = start {
                        assert!(t0.elapsed() < p, "shared memory: rank {r} never reached round {round} ({which:?})");
                    }
                }
            }
        }
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        match self.backing {
            // SAFETY: the mapping made in `map`, unmapped once.
            Backing::Mapped(fd) => unsafe {
                libc::munmap(self.base.as_ptr() as *mut libc::c_void, self.len);
                libc::close(fd);
            },
            // SAFETY: allocated in `in_heap` with this layout.
            Backing::Heap(layout) => unsafe { std::alloc::dealloc(self.base.as_ptr(), layout) },
        }
    }
}

/// Allocate the pages of `fd` holding `len` bytes from `offset`.
fn allocate(fd: libc::c_int, offset: usize, len: usize) -> io::Result<()> {
    // SAFETY: a plain system call on a descriptor this module owns.
    let rc = unsafe { libc::posix_fallocate(fd, offset as libc::off_t, len as libc::off_t) };
    if rc == 0 { Ok(()) } else { Err(io::Error::from_raw_os_error(rc)) }
}
