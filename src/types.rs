//! Resolving MPI handles: which element type a datatype is made of, which
//! operation an op is. Anything not understood is reported as a reason to
//! hand the call to the MPI library.

use crate::ffi::{self, MPI_Datatype, MPI_Op};
use crate::op::{Elem, OpKind};
use once_cell::sync::OnceCell;
use std::os::raw::c_int;

/// Handles are process-wide constants or live objects; the wrapper lets Open
/// MPI's pointer handles sit in a global table.
struct Handles(Vec<(MPI_Datatype, Elem)>);
// SAFETY: predefined datatype handles are immutable process-wide constants.
unsafe impl Send for Handles {}
unsafe impl Sync for Handles {}

static PREDEFINED: OnceCell<Handles> = OnceCell::new();

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

fn extent_of(t: MPI_Datatype) -> Option<(isize, isize)> {
    let (mut lb, mut extent) = (0, 0);
    // SAFETY: out-pointers to locals; errors reported through the return code.
    let rc = unsafe { ffi::PMPI_Type_get_extent(t, &mut lb, &mut extent) };
    (rc == ffi::SUCCESS).then_some((lb as isize, extent as isize))
}

fn predefined() -> &'static [(MPI_Datatype, Elem)] {
    &PREDEFINED
        .get_or_init(|| {
            // SAFETY: constant handle.
            let null = unsafe { ffi::fr_datatype_null() };
            let mut table = Vec::new();
            for entry in ffi::type_table() {
                if entry.ty == null {
                    continue; // a type this MPI build does not provide
                }
                let mut size: c_int = 0;
                // SAFETY: a predefined handle; out-pointer to a local.
                if unsafe { ffi::PMPI_Type_size(entry.ty, &mut size) } != ffi::SUCCESS {
                    continue;
                }
                let Some(elem) = elem_of(entry.class, size as usize) else { continue };
                // The kernels assume the C layout; skip a type whose extent differs.
                if extent_of(entry.ty) == Some((0, elem.size() as isize)) {
                    table.push((entry.ty, elem));
                }
            }
            Handles(table)
        })
        .0
}

/// The element type of a predefined datatype, for a predefined op. Derived
/// datatypes are not accepted: both MPICH 4.0 and Open MPI 4.1 reject
/// predefined ops on them (MPI_ERR_OP), so they go to the library.
pub fn resolve_datatype(t: MPI_Datatype) -> Result<Elem, &'static str> {
    // SAFETY: constant handle.
    if t == unsafe { ffi::fr_datatype_null() } {
        return Err("MPI_DATATYPE_NULL");
    }
    predefined()
        .iter()
        .find(|(h, _)| *h == t)
        .map(|(_, elem)| *elem)
        .ok_or("datatype without a fastred kernel (derived, or a predefined type it does not reduce)")
}

/// What an op handle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpInfo {
    Builtin(OpKind),
    User { commutative: bool },
}

struct OpHandles(Vec<(MPI_Op, OpKind)>);
// SAFETY: predefined op handles are immutable process-wide constants.
unsafe impl Send for OpHandles {}
unsafe impl Sync for OpHandles {}
static PREDEFINED_OPS: OnceCell<OpHandles> = OnceCell::new();

pub fn resolve_op(op: MPI_Op) -> Result<OpInfo, &'static str> {
    // SAFETY: constant handle.
    if op == unsafe { ffi::fr_op_null() } {
        return Err("MPI_OP_NULL");
    }
    let table = &PREDEFINED_OPS
        .get_or_init(|| {
            OpHandles(ffi::op_table().iter().filter_map(|e| OpKind::from_code(e.code).map(|k| (e.op, k))).collect())
        })
        .0;
    if let Some((_, kind)) = table.iter().find(|(h, _)| *h == op) {
        return Ok(OpInfo::Builtin(*kind));
    }
    let mut commute: c_int = 0;
    // SAFETY: out-pointer to a local.
    if unsafe { ffi::PMPI_Op_commutative(op, &mut commute) } != ffi::SUCCESS {
        return Err("invalid op");
    }
    Ok(OpInfo::User { commutative: commute != 0 })
}

/// Extent of a datatype whose bytes are all data (lb = true lb = 0, size =
/// extent), as needed to move it as raw bytes for a user-defined op.
pub fn dense_extent(t: MPI_Datatype) -> Result<usize, &'static str> {
    let (lb, extent) = extent_of(t).ok_or("invalid datatype")?;
    let (mut tlb, mut textent) = (0, 0);
    let mut size: c_int = 0;
    // SAFETY: out-pointers to locals.
    let ok = unsafe {
        ffi::PMPI_Type_get_true_extent(t, &mut tlb, &mut textent) == ffi::SUCCESS
            && ffi::PMPI_Type_size(t, &mut size) == ffi::SUCCESS
    };
    if !ok {
        return Err("invalid datatype");
    }
    if lb != 0 || tlb != 0 || extent != textent as isize || extent != size as isize || extent <= 0 {
        return Err("datatype with gaps (not dense) for a user-defined op");
    }
    Ok(extent as usize)
}
