//! Every `FASTRED_*` environment variable the library reads, read here and
//! nowhere else (the command-line tool has its own, `FASTRED_LIBDIR`):
//!
//! | variable | read | agreed |
//! |---|---|---|
//! | `FASTRED_ALGO` | once per process | rank 0's, per communicator |
//! | `FASTRED_TUNING` (a file) | by rank 0 of a communicator, once per process | rank 0's text, per communicator |
//! | `FASTRED_TOPOLOGY` (a file) | likewise, when the topology is first needed | likewise |
//! | `FASTRED_SEGMENT`, `FASTRED_PIECE` | once per process | rank 0's, per communicator |
//! | `FASTRED_REPRODUCIBLE` | once per process | rank 0's, per communicator |
//! | `FASTRED_NHALF` | once per process | rank 0's, per communicator |
//! | `FASTRED_STATS` | once per process | rank 0 of `MPI_COMM_WORLD`'s, at `MPI_Finalize` |
//! | `FASTRED_HOST` | once per process | (this process's own) |
//! | `FASTRED_LOG` | once per process | (this process's own) |
//! | `FASTRED_FAULT` | once per process | (this process's own; tests only) |
//! | `FASTRED_SMPI_FREE_REDUCTIONS` | once per process | (SimGrid SMPI build only: charge no γ) |
//! | `FASTRED_SMPI_SHARED_BUFFERS` | once per process | (SimGrid SMPI build only: scratch all ranks share) |
//!
//! "Agreed" settings are broadcast from rank 0 (`comm.rs`), so ranks started
//! with different environments still choose alike (with a warning).

use crate::select::{parse_size, Algorithm, Collective};
use once_cell::sync::OnceCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fault injected on purpose, to test that fastred's failures reach the
/// user as MPI errors (`FASTRED_FAULT`; not for production use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Panic inside the algorithm of the first call fastred runs itself.
    Panic,
    /// This rank cannot make or open a shared memory segment (as where
    /// `/dev/shm` is full or not shared).
    NoSharedMemory,
}

/// This process's own settings, read from the environment once.
#[derive(Debug)]
pub struct Local {
    pub forced: Forced,
    pub segment_bytes: Option<usize>,
    pub piece_bytes: Option<usize>,
    /// `FASTRED_REPRODUCIBLE`: compute floating-point reductions in the
    /// canonical order (`crate::reproducible`).
    pub reproducible: bool,
    /// `FASTRED_NHALF`: the network's half-performance length n½ in bytes,
    /// instead of measuring it (`crate::network`).
    pub nhalf: Option<usize>,
    /// `FASTRED_BISECTION`: the network's cross-section under load in
    /// percent (1-100), instead of measuring it (`crate::network::bisection`).
    pub bisection: Option<usize>,
    pub stats: bool,
    pub host: Option<String>,
    pub fault: Option<Fault>,
    /// `FASTRED_SMPI_FREE_REDUCTIONS`: in the SimGrid SMPI build, charge the
    /// simulation nothing for reductions, as SMPI's built-in collectives do
    /// (`crate::simulated`).
    pub smpi_free_reductions: bool,
    /// `FASTRED_SMPI_SHARED_BUFFERS`: in the SimGrid SMPI build, scratch is
    /// pages all simulated ranks share (`crate::scratch`; timing only).
    pub smpi_shared_buffers: bool,
    tuning: OnceCell<Option<File>>,
    topology: OnceCell<Option<File>>,
}

/// A file named by an environment variable: its path and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub text: Vec<u8>,
}

impl File {
    /// The file as one message: path, NUL, contents (what rank 0 broadcasts).
    pub fn to_payload(&self) -> Vec<u8> {
        [self.path.as_bytes(), &[0], &self.text].concat()
    }

    /// The file from [`File::to_payload`]'s message.
    pub fn from_payload(payload: &[u8]) -> File {
        let split = payload.iter().position(|b| *b == 0).unwrap_or(payload.len());
        File { path: String::from_utf8_lossy(&payload[..split]).into_owned(), text: payload.get(split + 1..).unwrap_or(&[]).to_vec() }
    }
}

fn env(var: &str) -> Option<String> {
    std::env::var(var).ok()
}

/// A size in bytes (K/M/G suffixes), or a warning ending with `otherwise`.
fn env_size(var: &str, otherwise: &str) -> Option<usize> {
    let v = env(var)?;
    match parse_size(v.trim(), true) {
        Some(n) if n > 0 => Some(n),
        _ => {
            log::warn!("{var}={v}: not a positive size (e.g. 65536 or 64K); {otherwise}");
            None
        }
    }
}

/// A percentage from 1 to 100, with or without `%`.
pub fn parse_percent(v: &str) -> Option<usize> {
    v.trim().trim_end_matches('%').parse::<usize>().ok().filter(|n| (1..=100).contains(n))
}

/// A percentage 1-100 (a warning ending with `otherwise` for anything else).
fn env_percent(var: &str, otherwise: &str) -> Option<usize> {
    let v = env(var)?;
    match parse_percent(&v) {
        Some(n) => Some(n),
        None => {
            log::warn!("{var}={v}: not a percentage from 1 to 100; {otherwise}");
            None
        }
    }
}

/// The file `var` names (None when unset; a warning ending with `otherwise`
/// when it cannot be read).
fn env_file(var: &str, otherwise: &str) -> Option<File> {
    let path = env(var)?;
    match std::fs::read(&path) {
        Ok(text) => Some(File { path, text }),
        Err(e) => {
            log::warn!("{var}={path}: cannot read it ({e}); {otherwise}");
            Some(File { path, text: Vec::new() })
        }
    }
}

/// An on/off value: 1/yes/true/on or 0/no/false/off (or empty); `None` for
/// anything else.
pub fn parse_switch(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "yes" | "true" | "on" => Some(true),
        "" | "0" | "no" | "false" | "off" => Some(false),
        _ => None,
    }
}

/// An on/off variable ([`parse_switch`]); anything else warns and counts as off.
fn env_switch(var: &str) -> bool {
    let v = env(var).unwrap_or_default();
    parse_switch(&v).unwrap_or_else(|| {
        log::warn!("{var}={v}: expected 1 or 0 (yes/no, true/false, on/off); off");
        false
    })
}

pub const TUNING_FALLBACK: &str = "using the default table";
pub const TOPOLOGY_FALLBACK: &str = "using the automatic ring (ranks grouped by host)";

impl Local {
    fn read() -> Local {
        let (forced, warnings) = parse_forced(&env("FASTRED_ALGO").unwrap_or_default());
        for w in warnings {
            log::warn!("{w}; using the default choice");
        }
        let fault = match env("FASTRED_FAULT").as_deref() {
            None | Some("") => None,
            Some("panic") => Some(Fault::Panic),
            Some("noshm") => Some(Fault::NoSharedMemory),
            Some(other) => {
                log::warn!("FASTRED_FAULT={other}: unknown fault (valid: panic, noshm); none injected");
                None
            }
        };
        Local {
            forced,
            segment_bytes: env_size("FASTRED_SEGMENT", "using the model's segments"),
            piece_bytes: env_size("FASTRED_PIECE", "using the default"),
            reproducible: env_switch("FASTRED_REPRODUCIBLE"),
            nhalf: env_size("FASTRED_NHALF", "measuring it"),
            bisection: env_percent("FASTRED_BISECTION", "measuring it"),
            stats: env("FASTRED_STATS").is_some_and(|v| !v.is_empty() && v != "0"),
            host: env("FASTRED_HOST"),
            fault,
            smpi_free_reductions: env_switch("FASTRED_SMPI_FREE_REDUCTIONS"),
            smpi_shared_buffers: env_switch("FASTRED_SMPI_SHARED_BUFFERS"),
            tuning: OnceCell::new(),
            topology: OnceCell::new(),
        }
    }

    /// `FASTRED_TUNING`'s file (read the first time it is asked for).
    pub fn tuning_file(&self) -> Option<&File> {
        self.tuning.get_or_init(|| env_file("FASTRED_TUNING", TUNING_FALLBACK)).as_ref()
    }

    /// Whether `FASTRED_TOPOLOGY` is set (without reading its file).
    pub fn topology_named(&self) -> bool {
        env("FASTRED_TOPOLOGY").is_some()
    }

    /// `FASTRED_TOPOLOGY`'s file (read the first time it is asked for).
    pub fn topology_file(&self) -> Option<&File> {
        self.topology.get_or_init(|| env_file("FASTRED_TOPOLOGY", TOPOLOGY_FALLBACK)).as_ref()
    }
}

/// This process's settings (read at the first call).
pub fn local() -> &'static Local {
    static LOCAL: OnceCell<Local> = OnceCell::new();
    LOCAL.get_or_init(Local::read)
}

/// Per-collective forced algorithm (index = position in `Collective::ALL`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forced(pub [Option<Algorithm>; 4]);

impl Forced {
    pub fn get(&self, coll: Collective) -> Option<Algorithm> {
        self.0[coll as usize]
    }

    /// Four bytes (0 = not forced, else 1 + index in `Algorithm::ALL`), so the
    /// choice can be broadcast from rank 0.
    pub fn encode(&self) -> [u8; 4] {
        self.0.map(|a| a.map_or(0, |a| 1 + a.index() as u8))
    }

    pub fn decode(bytes: [u8; 4]) -> Forced {
        Forced(bytes.map(|b| if b == 0 { None } else { Algorithm::ALL.get(b as usize - 1).copied() }))
    }
}

/// A process-wide override of the agreed `FASTRED_ALGO` choice, set through
/// the C API (`fastred_force`) by programs that switch algorithms between
/// calls (the benchmark). Encoded as 1 + the four `Forced::encode` bytes, 0 = none.
static OVERRIDE: AtomicU64 = AtomicU64::new(0);

/// A process-wide override of the agreed `FASTRED_REPRODUCIBLE`, set through
/// the C API (`fastred_reproducible`): 0 none, 1 off, 2 on.
static REPRODUCIBLE_OVERRIDE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Replace (`Some`) or clear (`None`) the reproducible-mode override.
pub fn set_reproducible_override(on: Option<bool>) {
    REPRODUCIBLE_OVERRIDE.store(on.map_or(0, |on| 1 + u8::from(on)), Ordering::Relaxed);
}

/// The override if one is set, else `agreed`.
pub fn effective_reproducible(agreed: bool) -> bool {
    match REPRODUCIBLE_OVERRIDE.load(Ordering::Relaxed) {
        0 => agreed,
        v => v == 2,
    }
}

/// Replace (`Some`) or clear (`None`) the override.
pub fn set_override(forced: Option<Forced>) {
    let v = forced.map_or(0, |f| 1 + u64::from(u32::from_le_bytes(f.encode())));
    OVERRIDE.store(v, Ordering::Relaxed);
}

/// The override as one word (0: none), for keys of cached decisions.
pub fn override_word() -> u64 {
    OVERRIDE.load(Ordering::Relaxed)
}

/// Both overrides in one word: equal words, equal overrides (a remembered
/// call is valid only while it is unchanged: `dispatch::repeat`).
#[inline]
pub fn overrides_word() -> u64 {
    OVERRIDE.load(Ordering::Relaxed) | u64::from(REPRODUCIBLE_OVERRIDE.load(Ordering::Relaxed)) << 40
}

/// The override if one is set, else `agreed`.
pub fn effective(agreed: Forced) -> Forced {
    match OVERRIDE.load(Ordering::Relaxed) {
        0 => agreed,
        v => Forced::decode(((v - 1) as u32).to_le_bytes()),
    }
}

/// Parse `FASTRED_ALGO`: comma-separated items, each `ALGO` (every collective
/// that has it) or `COLLECTIVE:ALGO`. Returns the choice and warnings for the
/// items it ignored.
pub fn parse_forced(spec: &str) -> (Forced, Vec<String>) {
    let mut forced = Forced::default();
    let mut warnings = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        // `COLLECTIVE:ALGO`, or `ALGO` alone (algorithm names may contain ':', e.g. circulant:pow2).
        let (colls, name): (Vec<Collective>, &str) = match item.split_once(':') {
            Some((c, a)) if Collective::from_name(c.trim()).is_some() => {
                (vec![Collective::from_name(c.trim()).unwrap()], a.trim())
            }
            Some((c, _)) if Algorithm::from_name(item).is_none() && Algorithm::from_name(c.trim()).is_none() => {
                warnings.push(format!(
                    "FASTRED_ALGO: unknown collective '{}' in '{item}'; valid: {}",
                    c.trim(),
                    Collective::ALL.map(|c| c.name()).join(", ")
                ));
                continue;
            }
            _ => (Collective::ALL.to_vec(), item),
        };
        let Some(algo) = Algorithm::from_name(name) else {
            warnings.push(format!(
                "FASTRED_ALGO: unknown algorithm '{name}'; valid: {}",
                Algorithm::ALL.map(|a| a.name()).join(", ")
            ));
            continue;
        };
        let applicable: Vec<_> = colls.iter().copied().filter(|c| algo.implements(*c)).collect();
        if applicable.is_empty() {
            let c = colls[0];
            warnings.push(format!(
                "FASTRED_ALGO: '{name}' does not implement {}; valid for it: {}",
                c.name(),
                Algorithm::names_for(c).join(", ")
            ));
        }
        for c in applicable {
            forced.0[c as usize] = Some(algo);
        }
    }
    (forced, warnings)
}

/// Set up env_logger from `FASTRED_LOG` (default: warnings only), every line
/// prefixed with the process's rank in MPI_COMM_WORLD.
pub fn init_logging(world_rank: i32) {
    let filter = std::env::var("FASTRED_LOG").unwrap_or_else(|_| "warn".into());
    let _ = env_logger::Builder::new()
        .parse_filters(&filter)
        .format(move |buf, record| {
            use std::io::Write;
            writeln!(buf, "[fastred {} rank {world_rank}] {}", record.level(), record.args())
        })
        .target(env_logger::Target::Stderr)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use Algorithm::*;

    #[test]
    fn global_and_per_collective_items() {
        let (f, w) = parse_forced("ring");
        assert!(w.is_empty());
        assert_eq!(f.0, [Some(Ring); 4]);
        let (f, w) = parse_forced("topo_ring");
        assert!(w.is_empty(), "the ring's old name is an alias");
        assert_eq!(f.0, [Some(Ring); 4]);
        let (f, w) = parse_forced("allreduce:pairwise, reduce:binomial");
        assert!(w.is_empty());
        assert_eq!(f.0, [Some(Pairwise), Some(Tree), None, None]);
        let (f, w) = parse_forced("tree");
        assert!(w.is_empty());
        assert_eq!(f.0, [Some(Tree), Some(Tree), None, None]);
        let (f, w) = parse_forced("recursive_doubling,rabenseifner");
        assert!(w.is_empty());
        assert_eq!(f.0, [Some(Rabenseifner); 4]);
        let (f, _) = parse_forced("native");
        assert_eq!(f.0, [Some(Native); 4]);
    }

    #[test]
    fn bad_items_warn_and_are_ignored() {
        let (f, w) = parse_forced("warp_drive,reduce_scatter:tree,bogus:ring,reduce:ring");
        assert_eq!(f.0, [None, Some(Ring), None, None]);
        assert_eq!(w.len(), 3);
        assert!(w[0].contains("unknown algorithm 'warp_drive'") && w[0].contains("recursive_doubling"));
        assert!(w[1].contains("does not implement reduce_scatter") && w[1].contains("ring"));
        assert!(w[2].contains("unknown collective 'bogus'"));
    }

    #[test]
    fn algorithm_names_with_a_colon() {
        let (f, w) = parse_forced("circulant:pow2");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(f.0, [Some(CirculantPow2); 4]);
        let (f, w) = parse_forced("reduce_scatter:circulant:sqrt,allreduce:circulant");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(f.0, [Some(Circulant), None, Some(CirculantSqrt), None]);
        let (_, w) = parse_forced("circulant:bogus");
        assert!(w[0].contains("unknown algorithm 'circulant:bogus'"), "{w:?}");
    }

    #[test]
    fn file_payloads_round_trip() {
        let f = File { path: "/tmp/t.table".into(), text: b"allreduce * * - ring\n".to_vec() };
        assert_eq!(File::from_payload(&f.to_payload()), f);
        assert_eq!(File::from_payload(b""), File { path: String::new(), text: vec![] });
    }

    #[test]
    fn encoding_round_trips() {
        let (f, _) = parse_forced("allreduce:recursive_doubling,reduce_scatter:native");
        assert_eq!(Forced::decode(f.encode()), f);
        assert_eq!(Forced::decode([0, 0, 0, 99]), Forced::default());
    }
}
