/*
 * fastred C shim: the few things Rust cannot get from mpi-sys's bindings.
 *
 * - Handles of predefined datatypes and ops, as tables tagged with the element
 *   class fastred's kernels understand (sizes come from PMPI_Type_size at run time).
 * - MPI_IN_PLACE / MPI_BOTTOM and a few integer constants.
 * - Reduction kernels for `long double` (Rust has no x87 80-bit float).
 * - Fortran MPI_IN_PLACE sentinels, referenced weakly so the library still loads
 *   into pure C programs.
 *
 * Compiled by build.rs with the same mpicc that mpi-sys used.
 */
#include <mpi.h>
#include <stddef.h>
#include <complex.h>

#if defined(SMPI_H)
/* SimGrid SMPI (checked first: its mpi.h defines no MPICH or Open MPI macro, but
   be safe). Handles are pointers, MPI_COMM_WORLD is a variable. */
const int fr_built_for_mpich = 0;
#elif defined(MPICH_VERSION)
const int fr_built_for_mpich = 1;
#elif defined(OPEN_MPI)
const int fr_built_for_mpich = 0;
#else
#error "unknown MPI implementation: fastred supports MPICH, Open MPI and SimGrid SMPI"
#endif

/* Element classes; keep in sync with src/types.rs (elem_of). */
enum {
    FR_SIGNED = 1, FR_UNSIGNED, FR_FLOAT, FR_COMPLEX, FR_LONG_DOUBLE, FR_LONG_DOUBLE_COMPLEX,
    FR_C_BOOL, FR_F_LOGICAL, FR_BYTE,
    FR_PAIR_FLOAT_INT, FR_PAIR_DOUBLE_INT, FR_PAIR_LONG_INT, FR_PAIR_SHORT_INT, FR_PAIR_2INT,
    FR_PAIR_LONG_DOUBLE_INT, FR_PAIR_2REAL, FR_PAIR_2DOUBLE_PRECISION, FR_PAIR_2INTEGER,
    /* Fortran integers and MPI_AINT/OFFSET/COUNT: integer ops but no logical ones */
    FR_F_INTEGER
};

typedef struct { MPI_Datatype type; int cls; const char *name; } fr_type_entry;
#define T(h, c) { h, c, #h }
/* The commonest types first: fastred finds a type by scanning this table. */
const fr_type_entry fr_type_table[] = {
    T(MPI_DOUBLE, FR_FLOAT), T(MPI_FLOAT, FR_FLOAT), T(MPI_INT, FR_SIGNED), T(MPI_LONG, FR_SIGNED),
    T(MPI_SIGNED_CHAR, FR_SIGNED), T(MPI_SHORT, FR_SIGNED),
    T(MPI_LONG_LONG_INT, FR_SIGNED), T(MPI_LONG_LONG, FR_SIGNED),
    T(MPI_INT8_T, FR_SIGNED), T(MPI_INT16_T, FR_SIGNED), T(MPI_INT32_T, FR_SIGNED),
    T(MPI_INT64_T, FR_SIGNED), T(MPI_AINT, FR_F_INTEGER), T(MPI_OFFSET, FR_F_INTEGER),
    T(MPI_COUNT, FR_F_INTEGER),
    T(MPI_UNSIGNED_CHAR, FR_UNSIGNED), T(MPI_UNSIGNED_SHORT, FR_UNSIGNED),
    T(MPI_UNSIGNED, FR_UNSIGNED), T(MPI_UNSIGNED_LONG, FR_UNSIGNED),
    T(MPI_UNSIGNED_LONG_LONG, FR_UNSIGNED), T(MPI_UINT8_T, FR_UNSIGNED),
    T(MPI_UINT16_T, FR_UNSIGNED), T(MPI_UINT32_T, FR_UNSIGNED), T(MPI_UINT64_T, FR_UNSIGNED),
    T(MPI_LONG_DOUBLE, FR_LONG_DOUBLE),
    T(MPI_C_FLOAT_COMPLEX, FR_COMPLEX), T(MPI_C_COMPLEX, FR_COMPLEX),
    T(MPI_C_DOUBLE_COMPLEX, FR_COMPLEX),
    T(MPI_C_LONG_DOUBLE_COMPLEX, FR_LONG_DOUBLE_COMPLEX),
    T(MPI_C_BOOL, FR_C_BOOL), T(MPI_BYTE, FR_BYTE),
    T(MPI_FLOAT_INT, FR_PAIR_FLOAT_INT), T(MPI_DOUBLE_INT, FR_PAIR_DOUBLE_INT),
    T(MPI_LONG_INT, FR_PAIR_LONG_INT), T(MPI_SHORT_INT, FR_PAIR_SHORT_INT),
    T(MPI_2INT, FR_PAIR_2INT), T(MPI_LONG_DOUBLE_INT, FR_PAIR_LONG_DOUBLE_INT),
    /* Fortran types (sizes read with PMPI_Type_size at run time). */
    T(MPI_INTEGER, FR_F_INTEGER), T(MPI_INTEGER1, FR_F_INTEGER), T(MPI_INTEGER2, FR_F_INTEGER),
    T(MPI_INTEGER4, FR_F_INTEGER), T(MPI_INTEGER8, FR_F_INTEGER),
    T(MPI_REAL, FR_FLOAT), T(MPI_DOUBLE_PRECISION, FR_FLOAT), T(MPI_REAL4, FR_FLOAT),
    T(MPI_REAL8, FR_FLOAT),
    T(MPI_COMPLEX, FR_COMPLEX), T(MPI_DOUBLE_COMPLEX, FR_COMPLEX), T(MPI_COMPLEX8, FR_COMPLEX),
    T(MPI_COMPLEX16, FR_COMPLEX),
    T(MPI_LOGICAL, FR_F_LOGICAL),
    T(MPI_2REAL, FR_PAIR_2REAL), T(MPI_2DOUBLE_PRECISION, FR_PAIR_2DOUBLE_PRECISION),
    T(MPI_2INTEGER, FR_PAIR_2INTEGER),
};
const int fr_type_table_len = sizeof(fr_type_table) / sizeof(fr_type_table[0]);

/* Op codes; keep in sync with src/op/mod.rs (OpKind). */
typedef struct { MPI_Op op; int code; } fr_op_entry;
const fr_op_entry fr_op_table[] = {
    {MPI_SUM, 1}, {MPI_PROD, 2}, {MPI_MIN, 3}, {MPI_MAX, 4}, {MPI_LAND, 5}, {MPI_LOR, 6},
    {MPI_LXOR, 7}, {MPI_BAND, 8}, {MPI_BOR, 9}, {MPI_BXOR, 10}, {MPI_MAXLOC, 11},
    {MPI_MINLOC, 12},
};
const int fr_op_table_len = sizeof(fr_op_table) / sizeof(fr_op_table[0]);

void *fr_in_place(void) { return MPI_IN_PLACE; }
void *fr_bottom(void) { return MPI_BOTTOM; }
MPI_Comm fr_comm_null(void) { return MPI_COMM_NULL; }
MPI_Comm fr_comm_self(void) { return MPI_COMM_SELF; }
/* Read at call time: SMPI sets MPI_COMM_WORLD when the ranks start. */
MPI_Comm fr_comm_world(void) { return MPI_COMM_WORLD; }
MPI_Datatype fr_datatype_null(void) { return MPI_DATATYPE_NULL; }
MPI_Datatype fr_byte(void) { return MPI_BYTE; }
MPI_Op fr_op_null(void) { return MPI_OP_NULL; }
MPI_Errhandler fr_errors_return(void) { return MPI_ERRORS_RETURN; }
int fr_err_intern(void) { return MPI_ERR_INTERN; }
int fr_err_count(void) { return MPI_ERR_COUNT; }
int fr_err_buffer(void) { return MPI_ERR_BUFFER; }
int fr_err_arg(void) { return MPI_ERR_ARG; }
int fr_err_other(void) { return MPI_ERR_OTHER; }
int fr_err_no_mem(void) { return MPI_ERR_NO_MEM; }
int fr_err_type(void) { return MPI_ERR_TYPE; }
int fr_err_op(void) { return MPI_ERR_OP; }
int fr_err_truncate(void) { return MPI_ERR_TRUNCATE; }

/* Whether a datatype / op handle may be passed to a query (PMPI_Type_size,
 * PMPI_Op_commutative, ...) without that query raising an error, which MPI
 * sends to MPI_COMM_WORLD's handler rather than to the user's communicator.
 * Open MPI and SMPI: handles are pointers; NULL and the null handle are invalid.
 * MPICH: handles are integers whose bits 30-31 give the handle kind (0 =
 * invalid) and bits 26-29 the object kind (3 = datatype, 6 = op), as MPICH's
 * own HANDLE_GET_KIND / HANDLE_GET_MPI_KIND read them. */
#if defined(MPICH_VERSION) && !defined(SMPI_H)
static int fr_mpich_handle_is(unsigned h, unsigned kind) { return (h >> 30) != 0 && ((h & 0x3c000000u) >> 26) == kind; }
int fr_datatype_plausible(MPI_Datatype t) { return t != MPI_DATATYPE_NULL && fr_mpich_handle_is((unsigned)t, 0x3); }
int fr_op_plausible(MPI_Op op) { return op != MPI_OP_NULL && fr_mpich_handle_is((unsigned)op, 0x6); }
#else
int fr_datatype_plausible(MPI_Datatype t) { return t != NULL && t != MPI_DATATYPE_NULL; }
int fr_op_plausible(MPI_Op op) { return op != NULL && op != MPI_OP_NULL; }
#endif
int fr_keyval_invalid(void) { return MPI_KEYVAL_INVALID; }
int fr_max_library_version_string(void) { return MPI_MAX_LIBRARY_VERSION_STRING; }
int fr_comm_type_shared(void) { return MPI_COMM_TYPE_SHARED; }

/* ---- SimGrid SMPI: charge `seconds` of computation to this rank's simulated
 * clock, whatever the host's speed in the platform (smpi_execute would convert
 * at the smpi/host-speed setting instead, and skip anything under
 * smpi/cpu-threshold). A no-op in the MPICH and Open MPI builds. ---- */
#if defined(SMPI_H)
#include <simgrid/host.h>
void fr_simulate_computation(double seconds) {
    if (seconds > 0) smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
}
/* Scratch whose pages every rank shares (SMPI_SHARED_MALLOC: one physical
 * block mapped over and over; SMPI skips the copy of messages from or into
 * it): memory stays flat at thousands of simulated ranks, and the contents
 * are garbage. */
void *fr_simulated_shared_malloc(size_t bytes) { return SMPI_SHARED_MALLOC(bytes); }
void fr_simulated_shared_free(void *p) { SMPI_SHARED_FREE(p); }
#else
void fr_simulate_computation(double seconds) { (void)seconds; }
void *fr_simulated_shared_malloc(size_t bytes) { (void)bytes; return NULL; }
void fr_simulated_shared_free(void *p) { (void)p; }
#endif

/* ---- long double kernels: dst = src OP dst (src_left) or dst OP src ---- */
#define LD_LOOP(T, EXPR) \
    do { const T *s = (const T *)src; T *d = (T *)dst; \
         if (src_left) { for (size_t i = 0; i < n; i++) { T a = s[i], b = d[i]; d[i] = (EXPR); } } \
         else { for (size_t i = 0; i < n; i++) { T a = d[i], b = s[i]; d[i] = (EXPR); } } } while (0)

/* op codes as in fr_op_table; returns 0 on success, -1 if unsupported */
int fr_long_double_reduce(int op, const void *src, void *dst, size_t n, int src_left) {
    switch (op) {
    case 1: LD_LOOP(long double, a + b); return 0;
    case 2: LD_LOOP(long double, a * b); return 0;
    case 3: LD_LOOP(long double, a < b ? a : b); return 0;
    case 4: LD_LOOP(long double, a > b ? a : b); return 0;
    default: return -1;
    }
}

int fr_long_double_complex_reduce(int op, const void *src, void *dst, size_t n, int src_left) {
    switch (op) {
    case 1: LD_LOOP(long double _Complex, a + b); return 0;
    case 2: LD_LOOP(long double _Complex, a * b); return 0;
    default: return -1;
    }
}

typedef struct { long double v; int i; } fr_ldi;
int fr_long_double_int_reduce(int op, const void *src, void *dst, size_t n, int src_left) {
    (void)src_left; /* MAXLOC/MINLOC are commutative */
    if (op != 11 && op != 12) return -1;
    const fr_ldi *s = (const fr_ldi *)src; fr_ldi *d = (fr_ldi *)dst;
    for (size_t k = 0; k < n; k++) {
        fr_ldi a = s[k], b = d[k];
        int a_wins = (op == 11) ? (a.v > b.v) : (a.v < b.v);
        if (a_wins) d[k] = a;
        else if (a.v == b.v && a.i < b.i) d[k].i = a.i;
    }
    return 0;
}

/* ---- Fortran MPI_IN_PLACE sentinels (weak: absent in pure C programs) ----
 * Open MPI only: MPICH's Fortran bindings translate them before calling C, and
 * the SMPI build has no Fortran interface. */
#if defined(OPEN_MPI)
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));
#endif

/* Translate a Fortran buffer address to C: MPI_IN_PLACE / MPI_BOTTOM sentinels. */
void *fr_fortran_buffer(void *p) {
#if defined(OPEN_MPI)
    if (p != NULL && (p == (void *)&mpi_fortran_in_place_ || p == (void *)&mpi_fortran_in_place ||
                      p == (void *)&mpi_fortran_in_place__ || p == (void *)&MPI_FORTRAN_IN_PLACE))
        return MPI_IN_PLACE;
    if (p != NULL && (p == (void *)&mpi_fortran_bottom_ || p == (void *)&mpi_fortran_bottom ||
                      p == (void *)&mpi_fortran_bottom__ || p == (void *)&MPI_FORTRAN_BOTTOM))
        return MPI_BOTTOM;
#endif
    return p;
}
