//! Raw MPI access: mpi-sys's bindings plus the C shim (`csrc/shim.c`) for the
//! handles and constants mpi-sys does not provide.
//!
//! One build per MPI: `build.rs` sets `cfg(fastred_mpi)` from `MPICC`, and the
//! assertions below make a build whose mpi-sys bindings came from the other MPI
//! (a stale `CARGO_TARGET_DIR`) fail to compile.

pub use mpi_sys::*;
use std::os::raw::{c_char, c_int, c_void};

#[cfg(fastred_mpi = "mpich")]
const _: () = {
    // Exists only in MPICH's mpi.h; MPICH handles are 32-bit integers.
    let _ = mpi_sys::MPICH_NUMVERSION;
    assert!(std::mem::size_of::<MPI_Comm>() == 4, "mpi-sys bindings are not MPICH's");
};
#[cfg(fastred_mpi = "openmpi")]
const _: () = {
    // Exists only in Open MPI's mpi.h; Open MPI handles are pointers.
    let _ = mpi_sys::OMPI_MAJOR_VERSION;
    assert!(std::mem::size_of::<MPI_Comm>() == 8, "mpi-sys bindings are not Open MPI's");
};
#[cfg(fastred_mpi = "smpi")]
const _: () = {
    // Exists only in SimGrid's mpi.h; SMPI handles are pointers.
    let _ = mpi_sys::smpi_execute_flops;
    assert!(std::mem::size_of::<MPI_Comm>() == 8, "mpi-sys bindings are not SMPI's");
};
#[cfg(not(any(fastred_mpi = "mpich", fastred_mpi = "openmpi", fastred_mpi = "smpi")))]
compile_error!("build.rs did not detect the MPI flavour (set MPICC=mpicc.mpich, mpicc.openmpi or smpicc)");

/// A handle's bits, to remember it in an atomic word (MPICH handles are
/// `int`s, Open MPI's and SMPI's pointers).
pub trait HandleBits: Copy {
    fn bits(self) -> u64;
}

impl<T> HandleBits for *mut T {
    fn bits(self) -> u64 {
        self as usize as u64
    }
}

impl HandleBits for c_int {
    fn bits(self) -> u64 {
        self as u32 as u64
    }
}

impl HandleBits for *const c_void {
    fn bits(self) -> u64 {
        self as usize as u64
    }
}

impl HandleBits for MPI_Comm {
    fn bits(self) -> u64 {
        self.0.bits()
    }
}

impl HandleBits for MPI_Datatype {
    fn bits(self) -> u64 {
        self.0.bits()
    }
}

impl HandleBits for MPI_Op {
    fn bits(self) -> u64 {
        self.0.bits()
    }
}

/// The MPI this library was built for: "mpich", "openmpi" or "smpi".
pub const FLAVOUR: &str = env!("FASTRED_MPI_FLAVOUR");

/// A predefined-datatype entry of the shim's table.
#[repr(C)]
pub struct TypeEntry {
    pub ty: MPI_Datatype,
    pub class: c_int,
    pub name: *const c_char,
}

/// A predefined-op entry of the shim's table.
#[repr(C)]
pub struct OpEntry {
    pub op: MPI_Op,
    pub code: c_int,
}

extern "C" {
    pub static fr_built_for_mpich: c_int;
    pub static fr_type_table: [TypeEntry; 0];
    pub static fr_type_table_len: c_int;
    pub static fr_op_table: [OpEntry; 0];
    pub static fr_op_table_len: c_int;
    pub fn fr_in_place() -> *mut c_void;
    pub fn fr_comm_null() -> MPI_Comm;
    pub fn fr_comm_self() -> MPI_Comm;
    pub fn fr_comm_world() -> MPI_Comm;
    pub fn fr_simulate_computation(seconds: f64);
    pub fn fr_simulated_shared_malloc(bytes: usize) -> *mut c_void;
    pub fn fr_simulated_shared_free(p: *mut c_void);
    pub fn fr_datatype_null() -> MPI_Datatype;
    pub fn fr_byte() -> MPI_Datatype;
    pub fn fr_op_null() -> MPI_Op;
    pub fn fr_errors_return() -> MPI_Errhandler;
    pub fn fr_err_intern() -> c_int;
    pub fn fr_err_count() -> c_int;
    pub fn fr_err_buffer() -> c_int;
    pub fn fr_err_arg() -> c_int;
    pub fn fr_err_other() -> c_int;
    pub fn fr_err_no_mem() -> c_int;
    pub fn fr_err_type() -> c_int;
    pub fn fr_err_op() -> c_int;
    pub fn fr_err_truncate() -> c_int;
    pub fn fr_datatype_plausible(t: MPI_Datatype) -> c_int;
    pub fn fr_op_plausible(op: MPI_Op) -> c_int;
    pub fn fr_keyval_invalid() -> c_int;
    pub fn fr_max_library_version_string() -> c_int;
    pub fn fr_long_double_reduce(op: c_int, src: *const c_void, dst: *mut c_void, n: usize, src_left: c_int) -> c_int;
    pub fn fr_long_double_complex_reduce(op: c_int, src: *const c_void, dst: *mut c_void, n: usize, src_left: c_int) -> c_int;
    pub fn fr_long_double_int_reduce(op: c_int, src: *const c_void, dst: *mut c_void, n: usize, src_left: c_int) -> c_int;
    pub fn fr_fortran_buffer(p: *mut c_void) -> *mut c_void;
}

/// MPI_SUCCESS.
pub const SUCCESS: c_int = 0;
