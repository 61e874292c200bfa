//! Reduction operators: the predefined ops on every predefined element type
//! (`kernels`), and the `Reducer` trait the algorithms are written against.

pub mod kernels;
pub mod user;

use crate::error::MpiResult;
pub use kernels::Kernel;

/// MPI's predefined reduction operations (codes match `csrc/shim.c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Sum = 1,
    Prod,
    Min,
    Max,
    Land,
    Lor,
    Lxor,
    Band,
    Bor,
    Bxor,
    Maxloc,
    Minloc,
}

impl OpKind {
    pub const ALL: [OpKind; 12] = [
        OpKind::Sum, OpKind::Prod, OpKind::Min, OpKind::Max, OpKind::Land, OpKind::Lor,
        OpKind::Lxor, OpKind::Band, OpKind::Bor, OpKind::Bxor, OpKind::Maxloc, OpKind::Minloc,
    ];

    pub fn from_code(code: i32) -> Option<OpKind> {
        OpKind::ALL.iter().copied().find(|k| *k as i32 == code)
    }
}

/// Element types the built-in kernels handle (one per memory layout and
/// semantics, several MPI datatypes may map to one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// C integers: all ops but MAXLOC/MINLOC.
    I8, I16, I32, I64, U8, U16, U32, U64,
    /// Fortran integers and MPI_AINT/OFFSET/COUNT: no logical ops (MPI-4.0 §6.9.2).
    FI8, FI16, FI32, FI64,
    F32, F64,
    /// x87 `long double` (16 bytes of storage), reduced by the C shim.
    LongDouble,
    C32, C64,
    LongDoubleComplex,
    /// C `_Bool` (MPI_C_BOOL).
    CBool,
    /// Fortran LOGICAL (4 bytes, .true. = 1 with gfortran).
    Logical,
    /// MPI_BYTE: bitwise ops only.
    Byte,
    /// Value/index pairs for MAXLOC and MINLOC.
    FloatInt, DoubleInt, LongInt, ShortInt, IntInt, LongDoubleInt, RealReal, DoubleDouble,
}

impl Elem {
    /// A floating-point type (real or complex), whose predefined reductions
    /// both MPI libraries here compute correctly (their integer kernels have
    /// known bugs: README, "Library bugs fastred does not share").
    pub fn is_floating(self) -> bool {
        use Elem::*;
        matches!(self, F32 | F64 | LongDouble | C32 | C64 | LongDoubleComplex)
    }

    /// Bytes per element (the MPI extent of the matching datatype).
    pub fn size(self) -> usize {
        use Elem::*;
        match self {
            I8 | U8 | FI8 | CBool | Byte => 1,
            I16 | U16 | FI16 => 2,
            I32 | U32 | FI32 | F32 | Logical => 4,
            I64 | U64 | FI64 | F64 | C32 | FloatInt | ShortInt | IntInt | RealReal => 8,
            LongDouble | C64 | DoubleInt | LongInt | DoubleDouble => 16,
            LongDoubleComplex | LongDoubleInt => 32,
        }
    }
}

/// A reduction `dst ← src ∘ dst` (when `src_is_left`) or `dst ← dst ∘ src`, on
/// whole elements. Algorithms call it with `src_is_left` true when the received
/// data comes from lower ranks, so that results follow rank order.
pub trait Reducer {
    /// Bytes per element; buffers handed to `reduce` are multiples of it.
    fn elem_size(&self) -> usize;
    /// Reduce `src` into `dst` (equal lengths).
    fn reduce(&self, src: &[u8], dst: &mut [u8], src_is_left: bool) -> MpiResult;
}

/// A predefined op on a predefined element type, reduced by fastred's own kernel.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinReducer {
    kernel: Kernel,
    op: OpKind,
    elem: Elem,
}

impl BuiltinReducer {
    /// `None` when MPI does not define `op` on `elem`.
    pub fn new(op: OpKind, elem: Elem) -> Option<Self> {
        kernels::kernel(op, elem).map(|kernel| BuiltinReducer { kernel, op, elem })
    }

    pub fn elem(&self) -> Elem {
        self.elem
    }

    pub fn op(&self) -> OpKind {
        self.op
    }
}

impl Reducer for BuiltinReducer {
    fn elem_size(&self) -> usize {
        self.elem.size()
    }
    fn reduce(&self, src: &[u8], dst: &mut [u8], src_is_left: bool) -> MpiResult {
        debug_assert_eq!(src.len(), dst.len());
        debug_assert_eq!(dst.len() % self.elem.size(), 0);
        (self.kernel)(src, dst, src_is_left);
        Ok(())
    }
}
