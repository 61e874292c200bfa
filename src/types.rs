//! Resolving MPI handles: which element type a datatype is made of, which
//! operation an op is. Anything not understood is reported as a reason to
//! hand the call to the MPI library.

use crate::ffi::{MPI_Datatype, MPI_Op};
use crate::mpi;
use crate::op::{Elem, OpKind};
use once_cell::sync::OnceCell;
use std::os::raw::c_int;

/// A handle as a number, for the tables of predefined handles (process-wide
/// constants; Open MPI's are pointers, which cannot sit in a global table).
fn datatype_key(t: MPI_Datatype) -> usize {
    t.0 as usize
}

fn op_key(op: MPI_Op) -> usize {
    op.0 as usize
}

/// Predefined datatypes (by [`datatype_key`]) and their element types.
static PREDEFINED: OnceCell<Vec<(usize, Elem)>> = OnceCell::new();

/// The shim's element classes (see `csrc/shim.c`).
fn elem_of(class: c_int, size: usize) -> Option<Elem> {
    use Elem::*;
    Some(match (class, size) {
        (1, 1) => I8, (1, 2) => I16, (1, 4) => I32, (1, 8) => I64,
        (2, 1) => U8, (2, 2) => U16, (2, 4) => U32, (2, 8) => U64,
        (3, 4) => F32, (3, 8) => F64,
        (4, 8) => C32, (4, 16) => C64,
        (5, 16) => LongDouble,
        (6, 32) => LongDoubleComplex,
        (7, 1) => CBool,
        (8, 4) => Logical,
        (9, 1) => Byte,
        (10, _) => FloatInt, (11, _) => DoubleInt, (12, _) => LongInt, (13, _) => ShortInt,
        (14, _) | (18, _) => IntInt, (15, _) => LongDoubleInt, (16, _) => RealReal, (17, _) => DoubleDouble,
        (19, 1) => FI8, (19, 2) => FI16, (19, 4) => FI32, (19, 8) => FI64,
        _ => return None,
    })
}

fn predefined() -> &'static [(usize, Elem)] {
    PREDEFINED.get_or_init(|| {
            let mut table = Vec::new();
            for entry in mpi::type_table() {
                if !mpi::datatype_is_plausible(entry.ty) {
                    continue; // a type this MPI build does not provide
                }
                let Ok(size) = mpi::type_size(entry.ty) else { continue };
                let Some(elem) = elem_of(entry.class, size) else { continue };
                // The kernels assume the C layout; skip a type whose extent differs.
                if mpi::type_extent(entry.ty) == Ok((0, elem.size() as isize)) {
                    table.push((datatype_key(entry.ty), elem));
                }
            }
            table
        })
}

/// The element type of a predefined datatype, for a predefined op. Derived
/// datatypes are not accepted: both MPICH 4.0 and Open MPI 4.1 reject
/// predefined ops on them (MPI_ERR_OP), so they go to the library.
pub fn resolve_datatype(t: MPI_Datatype) -> Result<Elem, &'static str> {
    if !mpi::datatype_is_plausible(t) {
        return Err("MPI_DATATYPE_NULL or an invalid datatype");
    }
    predefined()
        .iter()
        .find(|(h, _)| *h == datatype_key(t))
        .map(|(_, elem)| *elem)
        .ok_or("datatype without a fastred kernel (derived, or a predefined type it does not reduce)")
}

/// What an op handle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpInfo {
    Builtin(OpKind),
    User { commutative: bool },
}

/// Predefined ops (by [`op_key`]).
static PREDEFINED_OPS: OnceCell<Vec<(usize, OpKind)>> = OnceCell::new();

/// What `op` is. Handles that a query would reject (raising the error on
/// `MPI_COMM_WORLD`) are not queried: the call goes to the library, which
/// reports them through the user's communicator.
pub fn resolve_op(op: MPI_Op) -> Result<OpInfo, &'static str> {
    if !mpi::op_is_plausible(op) {
        return Err("MPI_OP_NULL or an invalid op");
    }
    let table = PREDEFINED_OPS
        .get_or_init(|| mpi::op_table().iter().filter_map(|e| OpKind::from_code(e.code).map(|k| (op_key(e.op), k))).collect());
    if let Some((_, kind)) = table.iter().find(|(h, _)| *h == op_key(op)) {
        return Ok(OpInfo::Builtin(*kind));
    }
    let commutative = mpi::op_is_commutative(op).map_err(|_| "invalid op")?;
    Ok(OpInfo::User { commutative })
}

/// Extent of a datatype whose bytes are all data (lb = true lb = 0, size =
/// extent), as needed to move it as raw bytes for a user-defined op.
/// Handles a query would reject are not queried (as in [`resolve_op`]).
pub fn dense_extent(t: MPI_Datatype) -> Result<usize, &'static str> {
    const INVALID: &str = "MPI_DATATYPE_NULL or an invalid datatype";
    if !mpi::datatype_is_plausible(t) {
        return Err(INVALID);
    }
    let (lb, extent) = mpi::type_extent(t).map_err(|_| INVALID)?;
    let (tlb, textent) = mpi::type_true_extent(t).map_err(|_| INVALID)?;
    let size = mpi::type_size(t).map_err(|_| INVALID)? as isize;
    if lb != 0 || tlb != 0 || extent != textent || extent != size || extent <= 0 {
        return Err("datatype with gaps (not dense) for a user-defined op");
    }
    Ok(extent as usize)
}
