/*
 * Every intercepted collective against the MPI library's own (PMPI_*) result
 * on identical inputs: every predefined op on every C and Fortran type family,
 * counts 0, 1, p-1, p, p+1, odd and long, every root, MPI_IN_PLACE, regular
 * and irregular (with zero) reduce-scatter counts, and bit-identical
 * allreduce results on all ranks for inexact floating-point sums.
 *
 * Integer results are checked against an exact C reference, not against the
 * library: MPICH 4.0.2 compares unsigned types as signed in MIN/MAX
 * (pmodels/mpich#6083), Open MPI 4.1.4 does so for MPI_UNSIGNED_LONG
 * (open-mpi/ompi#10525) and its AVX component saturates 8/16-bit sums
 * (open-mpi/ompi#8045). Such library errors are printed as NOTEs.
 *
 * usage: collectives [own|native|none] [full|quick|shapes]
 *   own/native/none: fastred's own algorithms must have run / every call must
 *   have gone to the library / fastred is not loaded. quick: one op and one
 *   count per type (for slow oversubscribed runs); shapes: no per-type sweep,
 *   only the count/MPI_IN_PLACE sweep with roots 0, p/2, p-1 (for forcing
 *   each algorithm; every root is covered by the default-selection runs).
 */
#include "common.h"
#include <complex.h>

enum gen { G_INT, G_FLOAT, G_DOUBLE, G_LDOUBLE, G_CFLOAT, G_CDOUBLE, G_CLDOUBLE, G_BOOL8, G_BOOL32,
           G_FLOAT_INT, G_DOUBLE_INT, G_LONG_INT, G_SHORT_INT, G_2INT, G_LDOUBLE_INT, G_2FLOAT, G_2DOUBLE };

/* Exact C reference for integer types: b = a OP b, with C's wrap-around. */
typedef void (*ref_fn)(char op, const void *a, void *b, int n);
#define REF(NAME, T)                                                                    \
    static void NAME(char op, const void *va, void *vb, int n) {                       \
        const T *a = va; T *b = vb;                                                     \
        for (int i = 0; i < n; i++) switch (op) {                                      \
            case 'S': b[i] = (T)(a[i] + b[i]); break; case 'P': b[i] = (T)(a[i] * b[i]); break; \
            case 'm': b[i] = a[i] < b[i] ? a[i] : b[i]; break; case 'M': b[i] = a[i] > b[i] ? a[i] : b[i]; break; \
            case 'a': b[i] = a[i] && b[i]; break; case 'o': b[i] = a[i] || b[i]; break;  \
            case 'x': b[i] = !a[i] != !b[i]; break; case '&': b[i] = a[i] & b[i]; break;  \
            case '|': b[i] = a[i] | b[i]; break; default: b[i] = a[i] ^ b[i]; break;     \
        }                                                                               \
    }
REF(ref_i8, int8_t) REF(ref_i16, int16_t) REF(ref_i32, int32_t) REF(ref_i64, int64_t)
REF(ref_u8, uint8_t) REF(ref_u16, uint16_t) REF(ref_u32, uint32_t) REF(ref_u64, uint64_t)

typedef struct { const char *name; MPI_Datatype type; enum gen gen; const char *ops; ref_fn ref; } tcase;

/* ops: S=sum P=prod m=min M=max a=land o=lor x=lxor &=band |=bor ^=bxor L=maxloc l=minloc */
static MPI_Op op_of(char c) {
    switch (c) {
    case 'S': return MPI_SUM; case 'P': return MPI_PROD; case 'm': return MPI_MIN; case 'M': return MPI_MAX;
    case 'a': return MPI_LAND; case 'o': return MPI_LOR; case 'x': return MPI_LXOR; case '&': return MPI_BAND;
    case '|': return MPI_BOR; case '^': return MPI_BXOR; case 'L': return MPI_MAXLOC; default: return MPI_MINLOC;
    }
}

/* Values whose reductions are exact in any order, so fastred must equal the library bit for bit. */
static double small_value(int rank, size_t i, int salt, char op) {
    uint64_t r = mix(((uint64_t)rank << 40) ^ ((uint64_t)i << 8) ^ (uint64_t)salt);
    if (op == 'P') { static const double f[] = {1, -1, 2, 1, -1, 1, 1, -2}; return f[r % 8]; }
    return (double)((int64_t)(r % 201) - 100);
}

static void fill(const tcase *tc, char op, void *buf, size_t n, int rank, int salt) {
    size_t i;
    for (i = 0; i < n; i++) {
        double v = small_value(rank, i, salt, op);
        int idx = (int)(mix(rank * 7 + i) % 5); /* repeated indices and values: ties */
        switch (tc->gen) {
        case G_INT: {
            MPI_Aint lb, ext; MPI_Type_get_extent(tc->type, &lb, &ext);
            unsigned char *p = (unsigned char *)buf + i * ext;
            for (MPI_Aint b = 0; b < ext; b++) p[b] = (unsigned char)mix(((uint64_t)rank << 32) ^ (i * 16 + b) ^ salt);
            if (op == 'P' || op == 'a' || op == 'o' || op == 'x') { /* keep products small, make zeros */
                memset(p, 0, ext); p[0] = (unsigned char)(mix(rank + i * 31 + salt) % 3);
            }
            break;
        }
        case G_FLOAT: ((float *)buf)[i] = (float)v; break;
        case G_DOUBLE: ((double *)buf)[i] = v; break;
        case G_LDOUBLE: ((long double *)buf)[i] = v; break;
        case G_CFLOAT: ((float _Complex *)buf)[i] = (float)v + (float)small_value(rank, i, salt + 1, op) * I; break;
        case G_CDOUBLE: ((double _Complex *)buf)[i] = v + small_value(rank, i, salt + 1, op) * I; break;
        case G_CLDOUBLE: ((long double _Complex *)buf)[i] = v + small_value(rank, i, salt + 1, op) * I; break;
        case G_BOOL8: ((unsigned char *)buf)[i] = mix(rank * 131 + i + salt) % 4 != 0; break;
        case G_BOOL32: ((int *)buf)[i] = mix(rank * 131 + i + salt) % 4 != 0; break;
        case G_FLOAT_INT: ((struct { float v; int i; } *)buf)[i].v = (float)(idx % 3); ((struct { float v; int i; } *)buf)[i].i = idx + rank; break;
        case G_DOUBLE_INT: ((struct { double v; int i; } *)buf)[i].v = idx % 3; ((struct { double v; int i; } *)buf)[i].i = idx * rank; break;
        case G_LONG_INT: ((struct { long v; int i; } *)buf)[i].v = idx % 3; ((struct { long v; int i; } *)buf)[i].i = rank - idx; break;
        case G_SHORT_INT: ((struct { short v; int i; } *)buf)[i].v = idx % 3; ((struct { short v; int i; } *)buf)[i].i = rank; break;
        case G_2INT: ((int *)buf)[2 * i] = idx % 3; ((int *)buf)[2 * i + 1] = rank ^ idx; break;
        case G_LDOUBLE_INT: ((struct { long double v; int i; } *)buf)[i].v = idx % 3; ((struct { long double v; int i; } *)buf)[i].i = rank; break;
        case G_2FLOAT: ((float *)buf)[2 * i] = (float)(idx % 3); ((float *)buf)[2 * i + 1] = (float)rank; break;
        case G_2DOUBLE: ((double *)buf)[2 * i] = idx % 3; ((double *)buf)[2 * i + 1] = rank + idx; break;
        }
    }
}

static const tcase cases[] = {
    {"MPI_INT", MPI_INT, G_INT, "SPmMaox&|^", ref_i32},
    {"MPI_LONG", MPI_LONG, G_INT, "SPmMaox&|^", ref_i64},
    {"MPI_SHORT", MPI_SHORT, G_INT, "SmMx^", ref_i16},
    {"MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, G_INT, "SmMa|", ref_i8},
    {"MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, G_INT, "SPmMo&", ref_u8},
    {"MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, G_INT, "SM^", ref_u16},
    {"MPI_UNSIGNED", MPI_UNSIGNED, G_INT, "SPmMx|", ref_u32},
    {"MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, G_INT, "SmM&", ref_u64},
    {"MPI_LONG_LONG", MPI_LONG_LONG, G_INT, "SPmM^", ref_i64},
    {"MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, G_INT, "SmMa^", ref_u64},
    {"MPI_INT8_T", MPI_INT8_T, G_INT, "SPmMaox&|^", ref_i8},
    {"MPI_INT16_T", MPI_INT16_T, G_INT, "SmM|", ref_i16},
    {"MPI_INT32_T", MPI_INT32_T, G_INT, "SmM&", ref_i32},
    {"MPI_INT64_T", MPI_INT64_T, G_INT, "SPmMaox&|^", ref_i64},
    {"MPI_UINT8_T", MPI_UINT8_T, G_INT, "SPmMaox&|^", ref_u8},
    {"MPI_UINT16_T", MPI_UINT16_T, G_INT, "SM^", ref_u16},
    {"MPI_UINT32_T", MPI_UINT32_T, G_INT, "SmM|", ref_u32},
    {"MPI_UINT64_T", MPI_UINT64_T, G_INT, "SPmMaox&|^", ref_u64},
    {"MPI_AINT", MPI_AINT, G_INT, "SmM^", ref_i64},
    {"MPI_OFFSET", MPI_OFFSET, G_INT, "SM&", ref_i64},
    {"MPI_COUNT", MPI_COUNT, G_INT, "SPm|", ref_i64},
    {"MPI_BYTE", MPI_BYTE, G_INT, "&|^", ref_u8},
    {"MPI_FLOAT", MPI_FLOAT, G_FLOAT, "SPmM", NULL},
    {"MPI_DOUBLE", MPI_DOUBLE, G_DOUBLE, "SPmM", NULL},
    {"MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, G_LDOUBLE, "SPmM", NULL},
    {"MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, G_CFLOAT, "SP", NULL},
    {"MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, G_CDOUBLE, "SP", NULL},
    {"MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, G_CLDOUBLE, "SP", NULL},
    {"MPI_C_BOOL", MPI_C_BOOL, G_BOOL8, "aox", NULL},
    {"MPI_FLOAT_INT", MPI_FLOAT_INT, G_FLOAT_INT, "Ll", NULL},
    {"MPI_DOUBLE_INT", MPI_DOUBLE_INT, G_DOUBLE_INT, "Ll", NULL},
    {"MPI_LONG_INT", MPI_LONG_INT, G_LONG_INT, "Ll", NULL},
    {"MPI_SHORT_INT", MPI_SHORT_INT, G_SHORT_INT, "Ll", NULL},
    {"MPI_2INT", MPI_2INT, G_2INT, "Ll", NULL},
    {"MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, G_LDOUBLE_INT, "Ll", NULL},
    {"MPI_INTEGER", MPI_INTEGER, G_INT, "SPmM&|^", ref_i32},
    {"MPI_INTEGER8", MPI_INTEGER8, G_INT, "SM^", ref_i64},
    {"MPI_REAL", MPI_REAL, G_FLOAT, "SPmM", NULL},
    {"MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, G_DOUBLE, "SPmM", NULL},
    {"MPI_COMPLEX", MPI_COMPLEX, G_CFLOAT, "SP", NULL},
    {"MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX, G_CDOUBLE, "SP", NULL},
    {"MPI_LOGICAL", MPI_LOGICAL, G_BOOL32, "aox", NULL},
    {"MPI_2REAL", MPI_2REAL, G_2FLOAT, "Ll", NULL},
    {"MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, G_2DOUBLE, "Ll", NULL},
    {"MPI_2INTEGER", MPI_2INTEGER, G_2INT, "Ll", NULL},
};

/* Exact references apply when fastred computes; when every call goes to the
 * library (modes native/none), MPI_* and PMPI_* must simply agree. */
static int check_exact = 1;

/* Exact equality; floating components compare numerically, so the sign of a
 * zero (which depends on evaluation order, e.g. in complex products) is free. */
static int same_values(const tcase *tc, const void *a, const void *b, size_t bytes) {
    size_t i;
    switch (tc->gen) {
    case G_FLOAT: case G_CFLOAT:
        for (i = 0; i < bytes / sizeof(float); i++) if (((const float *)a)[i] != ((const float *)b)[i]) return 0;
        return 1;
    case G_DOUBLE: case G_CDOUBLE:
        for (i = 0; i < bytes / sizeof(double); i++) if (((const double *)a)[i] != ((const double *)b)[i]) return 0;
        return 1;
    case G_LDOUBLE: case G_CLDOUBLE:
        for (i = 0; i < bytes / sizeof(long double); i++) if (((const long double *)a)[i] != ((const long double *)b)[i]) return 0;
        return 1;
    default:
        return memcmp(a, b, bytes) == 0;
    }
}

/* Where the MPI library itself is wrong (e.g. signed MIN on 64-bit unsigned types), say so once. */
static void note_native_bug(const char *type, char op) {
    static char seen[64][32];
    static int nseen;
    char key[32];
    snprintf(key, sizeof key, "%s %c", type, op);
    for (int i = 0; i < nseen; i++) if (strcmp(seen[i], key) == 0) return;
    if (nseen < 64) strcpy(seen[nseen++], key);
    fprintf(stderr, "[rank %d] NOTE: the MPI library's own result for %s op %c is wrong (fastred's is right)\n", t_rank, type, op);
}

/* One collective, fastred vs the library, with and without MPI_IN_PLACE. */
enum coll { ALLREDUCE, REDUCE, RSB, RS };
static const char *coll_name[] = {"MPI_Allreduce", "MPI_Reduce", "MPI_Reduce_scatter_block", "MPI_Reduce_scatter"};

static void compare(enum coll c, const tcase *tc, char opc, int count, int root, int in_place) {
    /* MPICH 4.0.2's own MPI_Reduce segfaults with MPI_IN_PLACE at a non-zero
     * root (vectors over ~2.8 KB): when MPI_* is the library, skip that case. */
    if (!check_exact && c == REDUCE && in_place && root != 0) return;
    MPI_Op op = op_of(opc);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(tc->type, &lb, &ext);
    int *rcounts = malloc(sizeof(int) * t_size);
    int total = count, mine = count, i;
    if (c == RSB) total = count * t_size;
    if (c == RS) {
        for (total = 0, i = 0; i < t_size; i++) { rcounts[i] = (count + 2 * i) % 5 == 0 ? 0 : (count + i) % 4 + (i == 1) * count; total += rcounts[i]; }
        mine = rcounts[t_rank];
    }
    size_t bytes = (size_t)total * ext + 16;
    char *in = calloc(1, bytes), *out_f = calloc(1, bytes), *out_n = calloc(1, bytes);
    fill(tc, opc, in, total, t_rank, count * 131 + opc);
    const void *send_f = in, *send_n = in;
    if (in_place && !(c == REDUCE && t_rank != root)) { /* input goes in the receive buffer */
        memcpy(out_f, in, total * ext);
        send_f = MPI_IN_PLACE;
        /* The reference never uses MPI_IN_PLACE: MPICH 4.0.2's own MPI_Reduce
         * segfaults with it at a non-zero root for vectors over ~2.8 KB. */
    }
    int rc_f = 0, rc_n = 0;
    if (getenv("TEST_VERBOSE")) fprintf(stderr, "[rank %d] %s %s %c count %d root %d in_place %d\n", t_rank, coll_name[c], tc->name, opc, count, root, in_place);
    switch (c) {
    case ALLREDUCE:
        rc_f = MPI_Allreduce(send_f, out_f, count, tc->type, op, MPI_COMM_WORLD);
        rc_n = PMPI_Allreduce(send_n, out_n, count, tc->type, op, MPI_COMM_WORLD);
        break;
    case REDUCE:
        rc_f = MPI_Reduce(send_f, out_f, count, tc->type, op, root, MPI_COMM_WORLD);
        rc_n = PMPI_Reduce(send_n, out_n, count, tc->type, op, root, MPI_COMM_WORLD);
        break;
    case RSB:
        rc_f = MPI_Reduce_scatter_block(send_f, out_f, count, tc->type, op, MPI_COMM_WORLD);
        rc_n = PMPI_Reduce_scatter_block(send_n, out_n, count, tc->type, op, MPI_COMM_WORLD);
        break;
    case RS:
        rc_f = MPI_Reduce_scatter(send_f, out_f, rcounts, tc->type, op, MPI_COMM_WORLD);
        rc_n = PMPI_Reduce_scatter(send_n, out_n, rcounts, tc->type, op, MPI_COMM_WORLD);
        break;
    }
    CHECK(rc_f == MPI_SUCCESS && rc_n == MPI_SUCCESS, "%s %s rc %d/%d", coll_name[c], tc->name, rc_f, rc_n);
    size_t check_bytes = (size_t)((c == RSB || c == RS) ? mine : count) * ext;
    if (c == REDUCE && t_rank != root) check_bytes = 0;
    if (tc->ref && check_exact) {
        /* Integers: fastred must equal the exact C result; the library is only reported. */
        size_t offset = 0;
        for (i = 0; c == RS && i < t_rank; i++) offset += (size_t)rcounts[i] * ext;
        if (c == RSB) offset = (size_t)t_rank * count * ext;
        char *all = malloc(bytes * t_size), *ref = malloc(bytes);
        PMPI_Allgather(in, (int)(total * ext), MPI_BYTE, all, (int)(total * ext), MPI_BYTE, MPI_COMM_WORLD);
        memcpy(ref, all, total * ext);
        for (i = 1; i < t_size; i++) tc->ref(opc, all + (size_t)i * total * ext, ref, total);
        CHECK(memcmp(out_f, ref + offset, check_bytes) == 0, "%s %s op %c count %d root %d in_place %d: wrong result",
              coll_name[c], tc->name, opc, count, root, in_place);
        if (memcmp(out_n, ref + offset, check_bytes) != 0) note_native_bug(tc->name, opc);
        free(all); free(ref);
    } else {
        CHECK(same_values(tc, out_f, out_n, check_bytes), "%s %s op %c count %d root %d in_place %d: differs from native",
              coll_name[c], tc->name, opc, count, root, in_place);
    }
    free(in); free(out_f); free(out_n); free(rcounts);
}

/* Inexact float sums: fastred's allreduce result must be bit-identical on all ranks. */
static void check_bit_identical(int count) {
    double *v = malloc(sizeof(double) * (count + 1)), *all = NULL;
    int i;
    for (i = 0; i < count; i++) v[i] = 1.0 / (3.0 + mix(t_rank * 1000003 + i) % 1000) * (t_rank % 2 ? 1e-7 : 1e9);
    MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (t_rank == 0) all = malloc(sizeof(double) * (size_t)count * t_size + 1);
    PMPI_Gather(v, count, MPI_DOUBLE, all, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (t_rank == 0)
        for (i = 1; i < t_size; i++)
            CHECK(memcmp(all, all + (size_t)i * count, sizeof(double) * count) == 0, "allreduce of %d doubles: rank %d differs from rank 0", count, i);
    free(v); free(all);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    const char *expect = argc > 1 ? argv[1] : "own";
    int quick = argc > 2 && strcmp(argv[2], "quick") == 0;
    int shapes_only = argc > 2 && strcmp(argv[2], "shapes") == 0;
    check_exact = strcmp(expect, "own") == 0;
    int p = t_size, ncases = sizeof(cases) / sizeof(cases[0]), k, r, ip;
    const char *o;

    /* 1. Every type family and op, a short and a long vector. */
    for (k = 0; k < ncases && !shapes_only; k++)
        for (o = cases[k].ops; *o && !(quick && o > cases[k].ops); o++) {
            int counts[] = {p + 1, 700};
            for (int ci = quick ? 1 : 0; ci < 2; ci++) {
                compare(ALLREDUCE, &cases[k], *o, counts[ci], 0, ci);
                compare(REDUCE, &cases[k], *o, counts[ci], p - 1, ci);
                compare(RSB, &cases[k], *o, ci ? 100 : 1, 0, ci);
                compare(RS, &cases[k], *o, ci ? 90 : 3, 0, !ci);
            }
        }
    /* 2. Every count shape, root and MPI_IN_PLACE, on int and double sums. */
    int counts[] = {0, 1, p > 1 ? p - 1 : 2, p, p + 1, 7, 1001, 20011};
    for (k = 0; k < 8; k++)
        for (ip = 0; ip < 2; ip++) {
            for (int t = 0; t < (shapes_only ? 1 : 2); t++) {
                const tcase *tc = t ? &cases[23] /* MPI_DOUBLE */ : &cases[0];
                compare(ALLREDUCE, tc, 'S', counts[k], 0, ip);
                for (r = 0; r < p; r++) /* shapes mode: first, middle and last root */
                    if (!shapes_only || r == 0 || r == p / 2 || r == p - 1) compare(REDUCE, tc, 'S', counts[k], r, ip);
                compare(RSB, tc, 'S', counts[k] / (p > 3 ? 3 : 1), 0, ip);
                compare(RS, tc, 'S', counts[k], 0, ip);
            }
        }
    /* 3. Bit-identical inexact results. */
    check_bit_identical(5);
    check_bit_identical(30011);

#if defined(MPICH) && MPI_VERSION >= 4
    /* 4. MPI-4 large-count forms (MPICH only): same results as the library's
     * (the reduce-scatters take N elements per process: up to 64 processes). */
    if (p <= 64) {
        enum { N = 3001 };
        static long in[N * 64], out_f[N * 64], out_n[N * 64];
        MPI_Count rc[64];
        for (k = 0; k < N * p; k++) in[k] = (long)mix(t_rank * 100003 + k);
        for (k = 0; k < p; k++) rc[k] = (k * 7) % 11;
        uint64_t own_before = fastred_count("fastred_own_calls", 0) + fastred_count("fastred_own_calls", 1) +
                              fastred_count("fastred_own_calls", 2) + fastred_count("fastred_own_calls", 3);
        MPI_Allreduce_c(in, out_f, N, MPI_LONG, MPI_BXOR, MPI_COMM_WORLD);
        PMPI_Allreduce_c(in, out_n, N, MPI_LONG, MPI_BXOR, MPI_COMM_WORLD);
        CHECK(memcmp(out_f, out_n, N * sizeof(long)) == 0, "MPI_Allreduce_c differs");
        MPI_Reduce_c(in, out_f, N, MPI_LONG, MPI_SUM, p - 1, MPI_COMM_WORLD);
        PMPI_Reduce_c(in, out_n, N, MPI_LONG, MPI_SUM, p - 1, MPI_COMM_WORLD);
        if (t_rank == p - 1) CHECK(memcmp(out_f, out_n, N * sizeof(long)) == 0, "MPI_Reduce_c differs");
        MPI_Reduce_scatter_block_c(in, out_f, N, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter_block_c(in, out_n, N, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(memcmp(out_f, out_n, N * sizeof(long)) == 0, "MPI_Reduce_scatter_block_c differs");
        MPI_Reduce_scatter_c(in, out_f, rc, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter_c(in, out_n, rc, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(memcmp(out_f, out_n, rc[t_rank] * sizeof(long)) == 0, "MPI_Reduce_scatter_c differs");
        uint64_t own_after = fastred_count("fastred_own_calls", 0) + fastred_count("fastred_own_calls", 1) +
                             fastred_count("fastred_own_calls", 2) + fastred_count("fastred_own_calls", 3);
        if (fastred_loaded() && strcmp(expect, "own") == 0)
            CHECK(own_after == own_before + 4, "the MPI_*_c calls did not all run on fastred (%llu)",
                  (unsigned long long)(own_after - own_before));
    }
#endif

    /* 5. fastred really ran (or really stood aside). */
    if (fastred_loaded()) {
        for (int c = 0; c < 4; c++) {
            uint64_t own = fastred_count("fastred_own_calls", c), fb = fastred_count("fastred_fallback_calls", c);
            if (strcmp(expect, "own") == 0) CHECK(own > 0, "%s: fastred's own algorithms never ran", coll_name[c]);
            else CHECK(own == 0 && fb > 0, "%s: expected every call to go to the MPI library (own %llu)", coll_name[c], (unsigned long long)own);
        }
    } else {
        CHECK(strcmp(expect, "none") == 0, "fastred is not loaded");
    }
    return finish("collectives");
}
