//! Per-communicator state, cached as an attribute of the user's communicator:
//! fastred's private duplicate (all internal traffic goes there, so a user's
//! pending `MPI_ANY_SOURCE`/`MPI_ANY_TAG` receive can never match it) and the
//! `FASTRED_ALGO` choice agreed at first use (rank 0's, broadcast), so ranks
//! with differing environments still pick the same algorithm.
//! It also holds the logical ring for `topo_ring` (Patarasuk & Yuan §3.2),
//! computed once from every rank's host name and rank 0's `FASTRED_TOPOLOGY`,
//! and rank 0's `FASTRED_SEGMENT`.
//! The attribute's delete callback frees both when the user frees the communicator.

use crate::config::{parse_forced, Forced};
use crate::select::Table;
use crate::topology::{automatic_ring, Topology};
use crate::transport::pmpi::DEFAULT_PIECE;
use crate::error::{MpiError, MpiResult};
use crate::ffi::{self, MPI_Comm};
use once_cell::sync::OnceCell;
use std::collections::HashSet;
use std::os::raw::{c_int, c_void};
use std::sync::Mutex;

pub struct CommState {
    pub shadow: MPI_Comm,
    pub rank: usize,
    pub size: usize,
    pub forced: Forced,
    /// The selection table, rank 0's (`FASTRED_TUNING`, or the default).
    pub table: Table,
    /// The contention-free logical ring: `ring[i]` is the rank at position i.
    pub ring: Vec<usize>,
    /// The ring differs from rank order or spans several switches: the
    /// selector's `topology` condition.
    pub topology_matters: bool,
    /// `FASTRED_SEGMENT` (rank 0's): pipeline segment size in bytes.
    pub segment_bytes: Option<usize>,
    /// `FASTRED_PIECE` (rank 0's): longer messages go in pieces of this size.
    pub piece_bytes: usize,
    /// Decisions already logged (collective, algorithm, size class).
    logged: Mutex<HashSet<String>>,
}

impl CommState {
    /// True the first time `key` is seen on this communicator.
    pub fn first_time(&self, key: String) -> bool {
        self.logged.lock().map(|mut s| s.insert(key)).unwrap_or(false)
    }
}

static KEYVAL: OnceCell<c_int> = OnceCell::new();

fn check(rc: c_int) -> MpiResult {
    if rc == ffi::SUCCESS { Ok(()) } else { Err(MpiError(rc)) }
}

/// Duplicates of the user's communicator do not inherit fastred's state.
pub(crate) unsafe extern "C" fn copy_attr(
    _old: MPI_Comm, _keyval: c_int, _extra: *mut c_void, _in: *mut c_void, _out: *mut c_void, flag: *mut c_int,
) -> c_int {
    *flag = 0;
    ffi::SUCCESS
}

unsafe extern "C" fn delete_attr(_comm: MPI_Comm, _keyval: c_int, value: *mut c_void, _extra: *mut c_void) -> c_int {
    // SAFETY: `value` is the Box we leaked in `state_of`; MPI calls this once.
    let mut state = Box::from_raw(value as *mut CommState);
    ffi::PMPI_Comm_free(&mut state.shadow)
}

fn keyval() -> MpiResult<c_int> {
    KEYVAL
        .get_or_try_init(|| {
            let mut kv = 0;
            // SAFETY: callbacks have the signatures MPI expects.
            check(unsafe { ffi::PMPI_Comm_create_keyval(Some(copy_attr), Some(delete_attr), &mut kv, std::ptr::null_mut()) })?;
            Ok(kv)
        })
        .copied()
}

/// The state of `comm`, created on first use. Collective on first use (all
/// ranks of `comm` reach it from the same collective call).
pub fn state_of(comm: MPI_Comm) -> MpiResult<&'static CommState> {
    let kv = keyval()?;
    let mut value: *mut c_void = std::ptr::null_mut();
    let mut found: c_int = 0;
    // SAFETY: out-pointers to locals.
    check(unsafe { ffi::PMPI_Comm_get_attr(comm, kv, (&mut value as *mut *mut c_void).cast(), &mut found) })?;
    if found != 0 {
        // SAFETY: set below from a leaked Box; lives until the communicator is freed.
        return Ok(unsafe { &*(value as *const CommState) });
    }

    let mut shadow = unsafe { ffi::fr_comm_null() };
    // SAFETY: collective on `comm`; out-pointer to a local.
    check(unsafe { ffi::PMPI_Comm_dup(comm, &mut shadow) })?;
    let (mut rank, mut size) = (0, 0);
    // SAFETY: valid communicator, out-pointers to locals.
    unsafe {
        check(ffi::PMPI_Comm_set_errhandler(shadow, ffi::fr_errors_return()))?;
        check(ffi::PMPI_Comm_rank(shadow, &mut rank))?;
        check(ffi::PMPI_Comm_size(shadow, &mut size))?;
    }
    let forced = agree_on_forced(shadow, rank)?;
    let table = agree_on_table(shadow, rank)?;
    let (ring, topology_matters) = ring_from_topology(shadow, rank, size as usize)?;
    let segment_bytes = agree_on_size(shadow, rank, "FASTRED_SEGMENT", "using the model's segments")?;
    let piece_bytes = agree_on_size(shadow, rank, "FASTRED_PIECE", "using the default")?.unwrap_or(DEFAULT_PIECE);
    let state = Box::into_raw(Box::new(CommState {
        shadow,
        rank: rank as usize,
        size: size as usize,
        forced,
        table,
        ring,
        topology_matters,
        segment_bytes,
        piece_bytes,
        logged: Mutex::new(HashSet::new()),
    }));
    // SAFETY: the attribute owns the Box from now on (freed in delete_attr).
    check(unsafe { ffi::PMPI_Comm_set_attr(comm, kv, state.cast()) })?;
    Ok(unsafe { &*state })
}

/// Every rank parses its own `FASTRED_ALGO` (and warns about it); rank 0's
/// parse is broadcast and used by all.
fn agree_on_forced(shadow: MPI_Comm, rank: c_int) -> MpiResult<Forced> {
    let mine = crate::dispatch::local_forced();
    let mut bytes = mine.encode();
    // SAFETY: 4-byte buffer, collective on the shadow communicator.
    check(unsafe { ffi::PMPI_Bcast(bytes.as_mut_ptr().cast(), 4, ffi::fr_byte(), 0, shadow) })?;
    let agreed = Forced::decode(bytes);
    if agreed != mine {
        log::warn!("FASTRED_ALGO differs from rank 0's; using rank 0's choice ({agreed:?}) on rank {rank}");
    }
    Ok(agreed)
}

/// Rank 0 reads `FASTRED_TUNING` (if set) and broadcasts the text; every rank
/// parses the same text, so all choose alike. A file that cannot be read or
/// parsed gives one warning (on rank 0) naming the line, then the default.
fn agree_on_table(shadow: MPI_Comm, rank: c_int) -> MpiResult<Table> {
    let (text, source) = broadcast_file(shadow, rank, "FASTRED_TUNING", "using the default table")?;
    if text.is_empty() {
        return Ok(Table::default_table());
    }
    match Table::parse(&String::from_utf8_lossy(&text), &source) {
        Ok(t) => Ok(t),
        Err(e) => {
            if rank == 0 {
                log::warn!("FASTRED_TUNING: {e}; using the default table");
            }
            Ok(Table::default_table())
        }
    }
}

/// The file environment variable `var` names on rank 0, and its path, on
/// every rank (empty text and path when unset or unreadable; a file that
/// cannot be read gives one warning on rank 0, ending with `otherwise`).
fn broadcast_file(shadow: MPI_Comm, rank: c_int, var: &str, otherwise: &str) -> MpiResult<(Vec<u8>, String)> {
    let (mut text, mut path) = (Vec::new(), String::new());
    if rank == 0 {
        if let Ok(p) = std::env::var(var) {
            match std::fs::read(&p) {
                Ok(t) => (text, path) = (t, p),
                Err(e) => log::warn!("{var}={p}: cannot read it ({e}); {otherwise}"),
            }
        }
    }
    let text = broadcast_bytes(shadow, text)?;
    let path = String::from_utf8_lossy(&broadcast_bytes(shadow, path.into_bytes())?).into_owned();
    Ok((text, path))
}

/// Rank 0's size from environment variable `var` (bytes, K/M suffixes), broadcast.
fn agree_on_size(shadow: MPI_Comm, rank: c_int, var: &str, otherwise: &str) -> MpiResult<Option<usize>> {
    let mut text = Vec::new();
    if rank == 0 {
        if let Ok(v) = std::env::var(var) {
            match crate::select::parse_size(v.trim(), true) {
                Some(n) if n > 0 => text = n.to_string().into_bytes(),
                _ => log::warn!("{var}={v}: not a positive size (e.g. 65536 or 64K); {otherwise}"),
            }
        }
    }
    Ok(String::from_utf8_lossy(&broadcast_bytes(shadow, text)?).parse().ok())
}

/// This process's host: `FASTRED_HOST` if set (for tests that pretend ranks
/// are spread over machines), else `MPI_Get_processor_name`.
fn my_host() -> String {
    if let Ok(h) = std::env::var("FASTRED_HOST") {
        return h;
    }
    let mut name = vec![0u8; 1024];
    let mut len: c_int = 0;
    // SAFETY: the buffer exceeds MPI_MAX_PROCESSOR_NAME of both MPIs.
    if unsafe { ffi::PMPI_Get_processor_name(name.as_mut_ptr().cast(), &mut len) } != ffi::SUCCESS {
        return String::new();
    }
    name.truncate(len.max(0) as usize);
    String::from_utf8_lossy(&name).into_owned()
}

/// Every rank's host name, in rank order (fixed 256-byte slots).
fn gather_hosts(shadow: MPI_Comm, size: usize) -> MpiResult<Vec<String>> {
    const SLOT: usize = 256;
    let mut mine = my_host().into_bytes();
    mine.resize(SLOT, 0);
    let mut all = vec![0u8; SLOT * size];
    // SAFETY: SLOT bytes out, SLOT bytes per rank in; collective on the shadow communicator.
    check(unsafe {
        ffi::PMPI_Allgather(mine.as_ptr() as *mut c_void, SLOT as c_int, ffi::fr_byte(), all.as_mut_ptr().cast(), SLOT as c_int, ffi::fr_byte(), shadow)
    })?;
    Ok(all.chunks(SLOT).map(|c| String::from_utf8_lossy(c.split(|b| *b == 0).next().unwrap_or(&[])).into_owned()).collect())
}

/// The logical ring for `topo_ring`: from rank 0's `FASTRED_TOPOLOGY` file
/// (Lemma 4) when it is set and valid, else Lemma 5's automatic order (ranks
/// grouped by host). Problems with the file: one warning on rank 0, naming the
/// line, then the automatic order.
fn ring_from_topology(shadow: MPI_Comm, rank: c_int, size: usize) -> MpiResult<(Vec<usize>, bool)> {
    let hosts = gather_hosts(shadow, size)?;
    const AUTOMATIC: &str = "using the automatic ring (ranks grouped by host)";
    let (text, path) = broadcast_file(shadow, rank, "FASTRED_TOPOLOGY", AUTOMATIC)?;
    if rank == 0 && text.is_empty() && !path.is_empty() {
        log::warn!("FASTRED_TOPOLOGY={path}: the file is empty; {AUTOMATIC}");
    }
    let from_file = (!text.is_empty()).then(|| {
        Topology::parse(&String::from_utf8_lossy(&text), &format!("FASTRED_TOPOLOGY={path}"))
            .and_then(|t| t.ring_order(&hosts).map(|order| (t.switch_count() > 1, order)))
    });
    let (multi_switch, order, source) = match from_file {
        Some(Ok((multi, order))) => (multi, order, path),
        other => {
            if let (Some(Err(e)), 0) = (other, rank) {
                log::warn!("{e}; {AUTOMATIC}");
            }
            (false, automatic_ring(&hosts).1, "host names".to_string())
        }
    };
    let misordered = order.iter().enumerate().any(|(i, &r)| i != r);
    if rank == 0 && (misordered || multi_switch) {
        log::info!("topology ({source}): ring order {order:?}{}", if multi_switch { ", several switches" } else { "" });
    }
    Ok((order, misordered || multi_switch))
}

/// Rank 0's `bytes`, on every rank. (Empty buffers are never handed to MPI:
/// an empty Vec's dangling pointer is 0x1, which is Open MPI's MPI_IN_PLACE.)
fn broadcast_bytes(shadow: MPI_Comm, mut bytes: Vec<u8>) -> MpiResult<Vec<u8>> {
    let mut len = bytes.len() as u64;
    // SAFETY: an 8-byte buffer, then one of `len` bytes; collective on the shadow communicator.
    unsafe {
        check(ffi::PMPI_Bcast((&mut len as *mut u64).cast(), 8, ffi::fr_byte(), 0, shadow))?;
        bytes.resize(len as usize, 0);
        if len > 0 {
            check(ffi::PMPI_Bcast(bytes.as_mut_ptr().cast(), len as c_int, ffi::fr_byte(), 0, shadow))?;
        }
    }
    Ok(bytes)
}

/// This process's own `FASTRED_ALGO`, parsed once (warnings printed once).
pub fn parse_env_forced() -> Forced {
    let spec = std::env::var("FASTRED_ALGO").unwrap_or_default();
    let (forced, warnings) = parse_forced(&spec);
    for w in warnings {
        log::warn!("{w}; using the default choice");
    }
    forced
}
