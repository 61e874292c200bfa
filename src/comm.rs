//! Per-communicator state, cached as an attribute of the user's communicator.
//!
//! - fastred's private communicator: all internal traffic goes there, so a
//!   user's pending `MPI_ANY_SOURCE`/`MPI_ANY_TAG` receive can never match it.
//!   It is made with `MPI_Comm_create` (not `MPI_Comm_dup`), so none of the
//!   user's attributes are copied to it and the user's copy and delete
//!   callbacks never run on fastred's behalf.
//! - the settings agreed at first use (rank 0's `FASTRED_ALGO`, tuning table,
//!   `FASTRED_SEGMENT`, `FASTRED_PIECE`), in one broadcast of a fixed-size
//!   header (plus the table's text if rank 0 has a `FASTRED_TUNING` file), so
//!   ranks with differing environments still choose alike;
//! - where the ranks are ([`Placement`]): every rank's host, and the
//!   logical ring for `ring` (Patarasuk & Yuan §3.2) from the host names and
//!   rank 0's `FASTRED_TOPOLOGY`, computed only when a call first needs it
//!   (collectively: every rank reaches that point in the same call, because
//!   the need depends only on arguments MPI requires to agree), with the
//!   network's n½ between hosts where the table asks for it ([`crate::network`]).
//!
//! The attribute's delete callback frees all of it when the user frees the
//! communicator.

use crate::config::{self, Forced, TOPOLOGY_FALLBACK};
use crate::error::MpiResult;
use crate::ffi::MPI_Comm;
use crate::mpi;
use crate::select::{Algorithm, Collective, Table};
use crate::topology::{automatic_ring, host_numbers, Topology};
use crate::shm::Segment;
use crate::transport::pmpi::DEFAULT_PIECE;
use once_cell::sync::{Lazy, OnceCell};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub struct CommState {
    pub shadow: MPI_Comm,
    pub rank: usize,
    pub size: usize,
    pub forced: Forced,
    /// The selection table, rank 0's (`FASTRED_TUNING`, or the default).
    pub table: Arc<Table>,
    /// `FASTRED_SEGMENT` (rank 0's): pipeline segment size in bytes.
    pub segment_bytes: Option<usize>,
    /// `FASTRED_PIECE` (rank 0's): longer messages go in pieces of this size.
    pub piece_bytes: usize,
    /// `FASTRED_REPRODUCIBLE` (rank 0's).
    pub reproducible: bool,
    /// `FASTRED_NHALF` (rank 0's): n½ without measuring it.
    nhalf_setting: Option<usize>,
    /// `FASTRED_BISECTION` (rank 0's), else measured.
    bisection_setting: Option<usize>,
    /// Rank 0 names a `FASTRED_TOPOLOGY` file.
    topology: bool,
    placement: OnceCell<Placement>,
    /// The memory segment the ranks share (`None`: it could not be made).
    segment: OnceCell<Option<Segment>>,
    /// Calls that chose the shared-memory algorithm before its segment was made.
    shared_memory_wanted: AtomicU64,
    /// The last decisions per collective.
    decisions: [Decisions; 4],
    /// Decisions already logged (collective, algorithm, size class).
    logged: Mutex<HashSet<String>>,
}

/// What a decision depends on besides the communicator: the collective's
/// vector size, the op's kind, whether there are fewer elements than
/// processes, and the forced choice in effect (`config::override_word`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecisionKey {
    pub bytes: usize,
    pub commutative: bool,
    pub builtin_op: bool,
    pub few: bool,
    pub floating: bool,
    /// The effective `FASTRED_REPRODUCIBLE`.
    pub reproducible: bool,
    pub forced: u64,
}

/// How many decisions of one collective a communicator keeps: a loop over
/// a few sizes (a solver's dot products of 1 and 2 doubles and its longer
/// vectors) decides each size once.
const DECISIONS_KEPT: usize = 4;

/// The last decisions of one collective on a communicator, replaced in turn.
/// MPI lets one thread at a time run collectives on a communicator, so
/// relaxed atomics suffice (no lock); a loop of the same calls skips the
/// selection table.
#[derive(Default)]
struct Decisions {
    kept: [Decision; DECISIONS_KEPT],
    /// The entry the next new decision replaces (modulo `DECISIONS_KEPT`).
    next: std::sync::atomic::AtomicUsize,
}

/// One decision of [`Decisions`].
#[derive(Default)]
struct Decision {
    bytes: AtomicU64,
    /// 0: none; else 1 | flags << 1 | algorithm << 6 | forced << 14.
    meta: AtomicU64,
    /// The decision stands in for the shared-memory algorithm until the
    /// communicator gets its segment ([`CommState::wants_shared_memory`]).
    provisional: std::sync::atomic::AtomicBool,
}

impl DecisionKey {
    fn meta(&self, algorithm: Algorithm) -> u64 {
        let flags = u64::from(self.commutative)
            | u64::from(self.builtin_op) << 1
            | u64::from(self.few) << 2
            | u64::from(self.floating) << 3
            | u64::from(self.reproducible) << 4;
        1 | flags << 1 | (algorithm.index() as u64) << 6 | self.forced << 14
    }
}

/// Where a communicator's ranks are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The contention-free logical ring: `ring[i]` is the rank at position i.
    pub ring: Vec<usize>,
    /// The ring differs from rank order or spans several switches: the
    /// selector's `topology` condition.
    pub ring_matters: bool,
    /// Rank r's host (`hosts[r]`, `hosts.host_of()`), numbered in order of
    /// first appearance (same host name: same number), and every host's ranks.
    pub hosts: crate::algo::host_map::HostMap,
    /// The network's n½ in bytes between rank 0 and the first rank on
    /// another host ([`crate::network`]); 0 on one host, or where the table
    /// has no `nhalf` condition (not measured).
    pub nhalf: usize,
    /// The network's cross-section under load in percent
    /// ([`crate::network::bisection`]); 0 where not measured (fewer than 4
    /// hosts, a slow network, or no `bisection` rule for this size).
    pub bisection: usize,
}

impl Placement {
    /// How many hosts the ranks are on.
    pub fn host_count(&self) -> usize {
        self.hosts.host_count()
    }
}

impl CommState {
    /// True the first time `key` is seen on this communicator.
    pub fn first_time(&self, key: String) -> bool {
        self.logged.lock().map(|mut s| s.insert(key)).unwrap_or(false)
    }

    /// The decision kept for `key` in `coll`, if there is one, and whether
    /// it is provisional (see [`cache_decision`](Self::cache_decision)).
    pub fn cached_decision(&self, coll: Collective, key: &DecisionKey) -> Option<(Algorithm, bool)> {
        self.decisions[coll as usize].kept.iter().find_map(|d| {
            let meta = d.meta.load(Ordering::Relaxed);
            if meta == 0 || d.bytes.load(Ordering::Relaxed) != key.bytes as u64 {
                return None;
            }
            let algorithm = Algorithm::ALL[(meta >> 6 & 0xff) as usize % Algorithm::ALL.len()];
            (key.meta(algorithm) == meta).then(|| (algorithm, d.provisional.load(Ordering::Relaxed)))
        })
    }

    /// Keep `algorithm` as the decision for `key` in `coll` (in place of one
    /// for the same size, else of the oldest); a provisional one stands in
    /// for the shared-memory algorithm while the communicator waits for its
    /// segment.
    pub fn cache_decision(&self, coll: Collective, key: &DecisionKey, algorithm: Algorithm, provisional: bool) {
        let decisions = &self.decisions[coll as usize];
        let same_size = decisions.kept.iter().find(|d| d.meta.load(Ordering::Relaxed) != 0 && d.bytes.load(Ordering::Relaxed) == key.bytes as u64);
        let d = same_size.unwrap_or_else(|| &decisions.kept[decisions.next.fetch_add(1, Ordering::Relaxed) % DECISIONS_KEPT]);
        d.bytes.store(key.bytes as u64, Ordering::Relaxed);
        d.meta.store(key.meta(algorithm), Ordering::Relaxed);
        d.provisional.store(provisional, Ordering::Relaxed);
    }

    /// Where the ranks are; collective on the communicator the first time.
    pub fn placement(&self) -> MpiResult<&Placement> {
        self.placement.get_or_try_init(|| {
            let crossed = self.table.asks_bisection(self.size);
            // The cross-section is measured on fast networks only: n½ first.
            let nhalf = NetworkFact::of(self.nhalf_setting, self.table.asks_nhalf() || crossed);
            let bisection = NetworkFact::of(self.bisection_setting, crossed);
            placement(self.shadow, self.rank, self.size, self.topology, nhalf, bisection)
        })
    }

    /// The memory segment shared by the ranks (all on one host), made when
    /// the shared-memory algorithm is first chosen for good (forced, or
    /// after [`wants_shared_memory`](Self::wants_shared_memory)): collectively,
    /// since every rank makes that choice in the same call. `None` (agreed by all
    /// ranks) where some rank could not make or open it; then the algorithm
    /// is not chosen again on this communicator.
    pub fn shared_segment(&self) -> MpiResult<Option<&Segment>> {
        self.segment.get_or_try_init(|| shared_segment(self.shadow, self.rank, self.size)).map(Option::as_ref)
    }

    /// A call chose the shared-memory algorithm, or might (its choice
    /// depends on the placement only through that algorithm, and the
    /// placement is not known yet): whether its segment (or the placement)
    /// may be used or made now, i.e. once the communicator has wanted it for
    /// [`SHARED_MEMORY_AFTER`] calls (every rank counts the same calls).
    pub fn wants_shared_memory(&self) -> bool {
        self.segment.get().is_some() || self.shared_memory_wanted.fetch_add(1, Ordering::Relaxed) + 1 >= SHARED_MEMORY_AFTER
    }

    /// Whether making the shared segment was tried and failed.
    pub fn shared_memory_failed(&self) -> bool {
        matches!(self.segment.get(), Some(None))
    }

    /// The placement if it is already known (no communication).
    pub fn known_placement(&self) -> Option<&Placement> {
        self.placement.get()
    }
}

/// Freeing the state (when the user frees the communicator) frees fastred's
/// copy, and counts in [`states_freed`].
impl Drop for CommState {
    fn drop(&mut self) {
        STATES_FREED.fetch_add(1, Ordering::Release);
        let _ = mpi::free(&mut self.shadow);
    }
}

static STATES_FREED: AtomicU64 = AtomicU64::new(0);

/// How many communicators' states have been freed so far. While it is
/// unchanged, a handle that had state still names the same communicator (MPI
/// may reuse a handle only after the communicator it named is freed).
#[inline]
pub fn states_freed() -> u64 {
    STATES_FREED.load(Ordering::Acquire)
}

static KEYVAL: OnceCell<mpi::OwningKeyval<CommState>> = OnceCell::new();

fn keyval() -> MpiResult<&'static mpi::OwningKeyval<CommState>> {
    KEYVAL.get_or_try_init(mpi::OwningKeyval::new)
}

/// At `MPI_Finalize`: release fastred's keyval (MPI frees it once the
/// attributes still using it, on communicators the user did not free, are
/// deleted by `PMPI_Finalize`). No call may look up state after this.
pub fn release_keyval() {
    if let Some(kv) = KEYVAL.get() {
        kv.free();
    }
}

/// The state of `comm`, if fastred has set it up (one attribute lookup).
pub fn existing_state(comm: MPI_Comm) -> MpiResult<Option<&'static CommState>> {
    keyval()?.get(comm)
}

/// Set up the state of `comm`, which has none yet ([`existing_state`]).
/// Collective: all ranks of `comm` reach it from the same collective call.
pub fn create_state(comm: MPI_Comm) -> MpiResult<&'static CommState> {
    let mut shadow = mpi::private_copy(comm)?;
    match set_up(shadow) {
        Ok(state) => keyval()?.attach(comm, Box::new(state)),
        Err(e) => {
            let _ = mpi::free(&mut shadow);
            Err(e)
        }
    }
}

/// What rank 0 broadcasts when a communicator is first used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Header {
    forced: Forced,
    segment_bytes: u64,
    piece_bytes: u64,
    /// Bytes of the tuning file's path, NUL, text that follow (0: none).
    tuning_len: u64,
    reproducible: bool,
    /// `FASTRED_NHALF` (0: measure).
    nhalf: u64,
    /// `FASTRED_BISECTION` (0: measure).
    bisection: u64,
    /// Rank 0 names a `FASTRED_TOPOLOGY` file (broadcast when the placement
    /// is first needed; without one, the placement is one exchange of host names).
    topology: bool,
}

impl Header {
    const LEN: usize = 46;

    fn encode(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[0..4].copy_from_slice(&self.forced.encode());
        b[4..12].copy_from_slice(&self.segment_bytes.to_le_bytes());
        b[12..20].copy_from_slice(&self.piece_bytes.to_le_bytes());
        b[20..28].copy_from_slice(&self.tuning_len.to_le_bytes());
        b[28] = u8::from(self.reproducible);
        b[29] = u8::from(self.topology);
        b[30..38].copy_from_slice(&self.nhalf.to_le_bytes());
        b[38..46].copy_from_slice(&self.bisection.to_le_bytes());
        b
    }

    fn decode(b: &[u8; Self::LEN]) -> Header {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        Header {
            forced: Forced::decode(b[0..4].try_into().unwrap()),
            segment_bytes: u64_at(4),
            piece_bytes: u64_at(12),
            tuning_len: u64_at(20),
            reproducible: b[28] != 0,
            topology: b[29] != 0,
            nhalf: u64_at(30),
            bisection: u64_at(38),
        }
    }
}

/// Agree on rank 0's settings (one broadcast, two with a tuning file).
fn set_up(shadow: MPI_Comm) -> MpiResult<CommState> {
    let (rank, size) = (mpi::rank(shadow)?, mpi::size(shadow)?);
    let local = config::local();
    let tuning_payload = if rank == 0 { local.tuning_file().map(config::File::to_payload) } else { None };
    let mine = Header {
        forced: local.forced,
        segment_bytes: local.segment_bytes.unwrap_or(0) as u64,
        piece_bytes: local.piece_bytes.unwrap_or(0) as u64,
        tuning_len: tuning_payload.as_ref().map_or(0, |p| p.len() as u64),
        reproducible: local.reproducible,
        topology: local.topology_named(),
        nhalf: local.nhalf.unwrap_or(0) as u64,
        bisection: local.bisection.unwrap_or(0) as u64,
    };
    let mut bytes = mine.encode();
    mpi::bcast(shadow, &mut bytes, 0)?;
    let agreed = Header::decode(&bytes);
    if agreed.forced != local.forced {
        log::warn!("FASTRED_ALGO differs from rank 0's; using rank 0's choice ({:?}) on rank {rank}", agreed.forced);
    }
    if agreed.reproducible != local.reproducible {
        log::warn!("FASTRED_REPRODUCIBLE differs from rank 0's; using rank 0's ({}) on rank {rank}", u8::from(agreed.reproducible));
    }
    let table = if agreed.tuning_len == 0 {
        DEFAULT_TABLE.clone()
    } else {
        let mut payload = tuning_payload.unwrap_or_else(|| vec![0u8; agreed.tuning_len as usize]);
        mpi::bcast(shadow, &mut payload, 0)?;
        table_from(&payload, rank)
    };
    Ok(CommState {
        shadow,
        rank,
        size,
        forced: agreed.forced,
        table,
        segment_bytes: (agreed.segment_bytes > 0).then_some(agreed.segment_bytes as usize),
        piece_bytes: if agreed.piece_bytes > 0 { agreed.piece_bytes as usize } else { DEFAULT_PIECE },
        reproducible: agreed.reproducible,
        nhalf_setting: (agreed.nhalf > 0).then_some(agreed.nhalf as usize),
        bisection_setting: (agreed.bisection > 0).then_some(agreed.bisection as usize),
        topology: agreed.topology,
        placement: OnceCell::new(),
        segment: OnceCell::new(),
        shared_memory_wanted: AtomicU64::new(0),
        decisions: Default::default(),
        logged: Mutex::new(HashSet::new()),
    })
}

static DEFAULT_TABLE: Lazy<Arc<Table>> = Lazy::new(|| Arc::new(Table::default_table()));

/// The table in `payload` (path, NUL, text), parsed once per distinct payload.
/// A file that cannot be read or parsed: the default table, with one warning
/// (on rank 0) naming the line.
fn table_from(payload: &[u8], rank: usize) -> Arc<Table> {
    static LAST: Mutex<Option<(Vec<u8>, Arc<Table>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((p, t)) = last.as_ref() {
        if p == payload {
            return t.clone();
        }
    }
    let file = config::File::from_payload(payload);
    let table = if file.text.is_empty() {
        DEFAULT_TABLE.clone() // unreadable: rank 0 warned when it read the file
    } else {
        match Table::parse(&String::from_utf8_lossy(&file.text), &file.path) {
            Ok(t) => Arc::new(t),
            Err(e) => {
                if rank == 0 {
                    log::warn!("FASTRED_TUNING: {e}; {}", config::TUNING_FALLBACK);
                }
                DEFAULT_TABLE.clone()
            }
        }
    };
    *last = Some((payload.to_vec(), table.clone()));
    table
}

/// Rank 0's `bytes`, on every rank.
fn broadcast_bytes(shadow: MPI_Comm, mut bytes: Vec<u8>) -> MpiResult<Vec<u8>> {
    let mut len = (bytes.len() as u64).to_le_bytes();
    mpi::bcast(shadow, &mut len, 0)?;
    bytes.resize(u64::from_le_bytes(len) as usize, 0);
    mpi::bcast(shadow, &mut bytes, 0)?;
    Ok(bytes)
}

/// Calls a communicator makes choosing the shared-memory algorithm (or that
/// might, before its placement is known) before it gets its segment (the
/// next choice runs them): a communicator made for a few reductions does not
/// pay for one (about 70 µs to make, map and agree on: `churn`, 10x a split +
/// allreduce + free cycle of the library's), nor for the exchange of host
/// names that tells whether its ranks are on one host.
pub const SHARED_MEMORY_AFTER: u64 = 16;

/// Make the shared segment of a communicator whose ranks are on one host
/// ([`CommState::shared_segment`]): rank 0 creates it under a fresh name with
/// a random token and broadcasts both (one fixed-size message), the others
/// open it and check the token, each allocates its slots' flag lines, all
/// agree (one allgather of a byte), and rank 0 removes the name.
fn shared_segment(shadow: MPI_Comm, rank: usize, size: usize) -> MpiResult<Option<Segment>> {
    static MADE: AtomicU64 = AtomicU64::new(0);
    let slot = crate::algo::shared_memory::slot_bytes(size);
    let injected = || (config::local().fault == Some(config::Fault::NoSharedMemory)).then(|| std::io::Error::other("FASTRED_FAULT=noshm"));
    // The offer: token (8 bytes; 0: none), name (NUL-padded).
    let mut offer = [0u8; 64];
    let mut created = None;
    if rank == 0 {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let token = (nanos ^ (u64::from(std::process::id()) << 40) ^ MADE.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9e37_79b9_7f4a_7c15)).max(1);
        let name = format!("/fastred-{}-{token:016x}", std::process::id());
        match injected().map_or_else(|| Segment::create(&name, size, slot, token), Err) {
            Ok(segment) => {
                created = Some(segment);
                offer[..8].copy_from_slice(&token.to_le_bytes());
                offer[8..8 + name.len()].copy_from_slice(name.as_bytes());
            }
            Err(e) => log::warn!("shared memory for {size} ranks ({} bytes) could not be made: {e}", Segment::bytes_for(size, slot)),
        }
    }
    mpi::bcast(shadow, &mut offer, 0)?;
    let token = u64::from_le_bytes(offer[..8].try_into().expect("8 bytes"));
    let name = String::from_utf8_lossy(&offer[8..]).trim_end_matches('\0').to_string();
    let mine = match created {
        Some(segment) => Some(segment),
        None if token != 0 => injected()
            .map_or_else(|| Segment::open(&name, size, slot, token), Err)
            .map_err(|e| log::warn!("rank {rank}: shared memory {name} could not be opened: {e}"))
            .ok(),
        None => None,
    }
    .filter(|segment| segment.reserve(rank, 0).map_err(|e| log::warn!("rank {rank}: shared memory could not be allocated: {e}")).is_ok());
    let mut all = vec![0u8; size];
    mpi::allgather(shadow, &[u8::from(mine.is_some())], &mut all)?;
    if rank == 0 && token != 0 {
        Segment::unlink(&name);
    }
    let everywhere = all.iter().all(|&ok| ok == 1);
    if !everywhere && rank == 0 {
        log::warn!("shared memory is not available to every rank of this communicator; shared_memory will not run on it");
    }
    Ok(mine.filter(|_| everywhere))
}

/// This process's host: `FASTRED_HOST` if set (for tests that pretend ranks
/// are spread over machines), else `MPI_Get_processor_name`.
fn my_host() -> String {
    config::local().host.clone().unwrap_or_else(mpi::processor_name)
}

/// Every rank's host as a [`host_key`], in rank order: one allgather of
/// [`HOST_KEY`] bytes per rank. Its size decides the algorithm MPI libraries
/// run: MPICH gathers up to 80 KiB in all in log p rounds (Bruck) and more
/// with a ring of p − 1 steps, so 8 bytes keep the rounds logarithmic up to
/// 10240 ranks (32-byte keys went to the ring beyond 2560 ranks: 16 million
/// messages at p = 4000 under SMPI, and the 256-byte names earlier beyond 320).
fn gather_host_keys(shadow: MPI_Comm, size: usize) -> MpiResult<Vec<[u8; HOST_KEY]>> {
    let mut all = vec![0u8; HOST_KEY * size];
    mpi::allgather(shadow, &host_key(my_host().as_bytes()), &mut all)?;
    Ok(all.chunks(HOST_KEY).map(|c| c.try_into().expect("HOST_KEY bytes")).collect())
}

/// Bytes of a [`host_key`].
const HOST_KEY: usize = 8;

/// A host name in [`HOST_KEY`] bytes: its 64-bit FNV-1a hash. Two names that
/// collided (about 3 chances in 10^10 among 10^5 hosts) would count as one
/// host; that costs speed, never results (shared memory is used only where
/// every rank opened the same segment, and the algorithms that group ranks by
/// host exchange through MPI).
fn host_key(name: &[u8]) -> [u8; HOST_KEY] {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    name.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME)).to_le_bytes()
}

/// Every rank's host name in rank order (fixed 256-byte slots): only for a
/// `FASTRED_TOPOLOGY` file, which names the hosts.
fn gather_host_names(shadow: MPI_Comm, size: usize) -> MpiResult<Vec<String>> {
    const SLOT: usize = 256;
    let mut mine = my_host().into_bytes();
    mine.resize(SLOT, 0);
    let mut all = vec![0u8; SLOT * size];
    mpi::allgather(shadow, &mine, &mut all)?;
    Ok(all.chunks(SLOT).map(|c| String::from_utf8_lossy(c.split(|b| *b == 0).next().unwrap_or(&[])).into_owned()).collect())
}

/// Where a fact of the network a placement holds (n½, the cross-section)
/// comes from.
enum NetworkFact {
    /// No rule asks for it: 0.
    Unused,
    /// `FASTRED_NHALF` (`FASTRED_BISECTION`).
    Given(usize),
    /// [`crate::network::measure`] on several hosts
    /// ([`crate::network::bisection`] on a fast network of 4 hosts or more).
    Measure,
}

impl NetworkFact {
    /// From its setting (`FASTRED_NHALF`, `FASTRED_BISECTION`), where some
    /// rule asks for it.
    fn of(setting: Option<usize>, asked: bool) -> NetworkFact {
        match setting {
            _ if !asked => NetworkFact::Unused,
            Some(n) => NetworkFact::Given(n),
            None => NetworkFact::Measure,
        }
    }
}

/// Every rank's host, and the logical ring for `ring`: from rank 0's
/// `FASTRED_TOPOLOGY` file (Lemma 4) when it is set and valid, else Lemma 5's
/// automatic order (ranks grouped by host). Problems with the file: one
/// warning on rank 0, naming the line, then the automatic order. On several
/// hosts, n½ as `nhalf` says (0 on one host), and the cross-section as
/// `bisection` says (0 on fewer than 4 hosts, and unmeasured where n½ is
/// below [`crate::network::FAST`]).
fn placement(shadow: MPI_Comm, rank: usize, size: usize, topology: bool, nhalf: NetworkFact, bisection: NetworkFact) -> MpiResult<Placement> {
    // A topology file names hosts, so it needs the names; otherwise keys do.
    let (names, host_of) = if topology {
        let names = gather_host_names(shadow, size)?;
        let host_of = host_numbers(&names);
        (names, host_of)
    } else {
        (Vec::new(), host_numbers(&gather_host_keys(shadow, size)?))
    };
    let file = if rank == 0 && topology { config::local().topology_file().cloned() } else { None };
    let payload = if topology { broadcast_bytes(shadow, file.map(|f| f.to_payload()).unwrap_or_default())? } else { Vec::new() };
    let config::File { path, text } = config::File::from_payload(&payload);
    if rank == 0 && text.is_empty() && !path.is_empty() {
        log::warn!("FASTRED_TOPOLOGY={path}: the file is empty or unreadable; {TOPOLOGY_FALLBACK}");
    }
    let from_file = (!text.is_empty()).then(|| {
        Topology::parse(&String::from_utf8_lossy(&text), &format!("FASTRED_TOPOLOGY={path}"))
            .and_then(|t| t.ring_order(&names).map(|order| (t.switch_count() > 1, order)))
    });
    let (multi_switch, order, source) = match from_file {
        Some(Ok((multi, order))) => (multi, order, path),
        other => {
            if let (Some(Err(e)), 0) = (other, rank) {
                log::warn!("{e}; {TOPOLOGY_FALLBACK}");
            }
            (false, automatic_ring(&host_of), "host names".to_string())
        }
    };
    let misordered = order.iter().enumerate().any(|(i, &r)| i != r);
    if rank == 0 && (misordered || multi_switch) {
        log::info!("topology ({source}): ring order {order:?}{}", if multi_switch { ", several switches" } else { "" });
    }
    let other_host = host_of.iter().position(|&h| h != host_of[0]);
    let nhalf = match (nhalf, other_host) {
        (NetworkFact::Given(n), Some(_)) => n,
        (NetworkFact::Measure, Some(partner)) => crate::network::measure(shadow, rank, partner)?,
        _ => 0,
    };
    let hosts = crate::algo::host_map::HostMap::new(&host_of);
    let bisection = match bisection {
        _ if hosts.host_count() < crate::network::CROSS_HOSTS => 0,
        NetworkFact::Given(n) => n,
        NetworkFact::Measure if nhalf >= crate::network::FAST => {
            // Each host's first rank, in host order.
            let leaders: Vec<usize> = (0..hosts.host_count()).map(|h| hosts.ranks_on(h)[0]).collect();
            crate::network::bisection(shadow, rank, &leaders)?
        }
        _ => 0,
    };
    Ok(Placement { ring: order, ring_matters: misordered || multi_switch, hosts, nhalf, bisection })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_keys_tell_names_apart() {
        let short = ["", "a", "node1", "node10", "node1\u{0}", "nid001234", "nid001243"];
        let keys: Vec<_> = short.iter().map(|n| host_key(n.as_bytes())).collect();
        assert_eq!(host_numbers(&keys), (0..short.len()).collect::<Vec<_>>());
        assert_eq!(host_key(b"node1"), host_key(b"node1"));
        let long = |tail: &str| format!("compute-node-0123.cluster.example.org{tail}");
        assert_eq!(host_key(long("").as_bytes()), host_key(long("").as_bytes()));
        for (prefix, count) in [("", 1 << 16), ("node", 1 << 16)] {
            let names: Vec<String> = (0..count).map(|i| format!("{prefix}{i}")).chain((0..4096).map(|i| long(&i.to_string()))).collect();
            let keys: Vec<_> = names.iter().map(|n| host_key(n.as_bytes())).collect();
            assert_eq!(host_numbers(&keys), (0..names.len()).collect::<Vec<_>>(), "names {prefix}N");
        }
    }

    #[test]
    fn header_round_trips() {
        let h = Header { forced: config::parse_forced("allreduce:ring").0, segment_bytes: 8, piece_bytes: 1 << 40, tuning_len: 77, reproducible: true, nhalf: 12345, bisection: 53, topology: true };
        assert_eq!(Header::decode(&h.encode()), h);
    }
}
