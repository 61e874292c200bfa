/*
 * Randomized battery: every iteration, all ranks derive from (seed, iteration)
 * the same random case: collective, communicator (world, split in halves,
 * reversed rank order, a sub-communicator, a fresh dup), count (0, 1, < p,
 * odd, medium, large), datatype and op (predefined integer, floating-point
 * and pair types, a contiguous derived type with a commutative user op, a
 * non-commutative user op, a user op on a predefined type), root,
 * MPI_IN_PLACE or not, and the algorithm (the default, or one fastred
 * implements, forced with fastred_force). The result through fastred is
 * compared byte for byte with the library's own collective (PMPI_*) on the
 * same inputs. Inputs are chosen so that every order of evaluation gives the
 * same bits (integers; floating-point values that are small integers), so the
 * comparison is exact whatever algorithm either side runs, and so that the
 * libraries' known bugs (saturating 8/16-bit sums in Open MPI's AVX
 * component, signed comparison of unsigned types in MPICH) cannot show.
 *
 * usage: battery SEED ITERATIONS [ONLY]   (ONLY: run just that iteration)
 * A failing case prints its seed and iteration, and how to rerun it alone.
 */
#include "common.h"

static fastred_api api;

static uint64_t rng_state;
static uint64_t next_random(void) { return rng_state = mix(rng_state); }
static int pick(int n) { return (int)(next_random() % (uint64_t)n); }

/* ---- user ops ---- */
#define MOD 1000003L
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt) { /* inout = in x inout, 2x2 mod MOD */
    (void)dt;
    long *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        long c[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                     (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
        memcpy(b, c, sizeof c);
    }
}
static void triple_sum(void *in, void *inout, int *len, MPI_Datatype *dt) { /* contiguous(3, int) */
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < 3 * *len; k++) b[k] += a[k];
}
static void int_max(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++) b[k] = a[k] > b[k] ? a[k] : b[k];
}

/* ---- type/op families ---- */
enum { V_INT, V_SMALL, V_BITS, V_PM2, V_PAIR_DI, V_PAIR_II, V_TRIPLE, V_MATRIX, V_BYTE01 };
typedef struct {
    const char *name;
    MPI_Datatype type; /* filled at start for derived types */
    MPI_Op op;
    int extent, values;
    int compared; /* bytes of each element that carry data (pair types have padding) */
} family;

static family families[32];
static int nfamilies;
static MPI_Datatype triple_type, matrix_type;
static MPI_Op matmul_op, triple_op, int_max_op;

#define F(n, t, o, e, v) families[nfamilies++] = (family){n, t, o, e, v, (v) == V_PAIR_DI ? 12 : (e)}
static void set_up_families(void) {
    MPI_Type_contiguous(3, MPI_INT, &triple_type);
    MPI_Type_commit(&triple_type);
    MPI_Type_contiguous(4, MPI_LONG, &matrix_type);
    MPI_Type_commit(&matrix_type);
    MPI_Op_create(matmul, 0, &matmul_op);
    MPI_Op_create(triple_sum, 1, &triple_op);
    MPI_Op_create(int_max, 1, &int_max_op);
    F("MPI_INT SUM", MPI_INT, MPI_SUM, 4, V_INT);
    F("MPI_INT PROD", MPI_INT, MPI_PROD, 4, V_INT);
    F("MPI_INT MIN", MPI_INT, MPI_MIN, 4, V_INT);
    F("MPI_INT MAX", MPI_INT, MPI_MAX, 4, V_INT);
    F("MPI_INT BXOR", MPI_INT, MPI_BXOR, 4, V_INT);
    F("MPI_INT LAND", MPI_INT, MPI_LAND, 4, V_BYTE01);
    F("MPI_LONG_LONG SUM", MPI_LONG_LONG, MPI_SUM, 8, V_INT);
    F("MPI_UNSIGNED BOR", MPI_UNSIGNED, MPI_BOR, 4, V_BITS);
    F("MPI_UNSIGNED_LONG BAND", MPI_UNSIGNED_LONG, MPI_BAND, 8, V_BITS);
    F("MPI_SHORT SUM", MPI_SHORT, MPI_SUM, 2, V_SMALL);
    F("MPI_SIGNED_CHAR MAX", MPI_SIGNED_CHAR, MPI_MAX, 1, V_SMALL);
    F("MPI_UNSIGNED_CHAR MIN", MPI_UNSIGNED_CHAR, MPI_MIN, 1, V_SMALL);
    F("MPI_UINT8_T SUM", MPI_UINT8_T, MPI_SUM, 1, V_SMALL);
    F("MPI_C_BOOL LOR", MPI_C_BOOL, MPI_LOR, 1, V_BYTE01);
    F("MPI_BYTE BXOR", MPI_BYTE, MPI_BXOR, 1, V_BITS);
    F("MPI_DOUBLE SUM", MPI_DOUBLE, MPI_SUM, 8, V_SMALL);
    F("MPI_DOUBLE PROD", MPI_DOUBLE, MPI_PROD, 8, V_PM2);
    F("MPI_DOUBLE MAX", MPI_DOUBLE, MPI_MAX, 8, V_INT);
    F("MPI_FLOAT SUM", MPI_FLOAT, MPI_SUM, 4, V_SMALL);
    F("MPI_C_DOUBLE_COMPLEX SUM", MPI_C_DOUBLE_COMPLEX, MPI_SUM, 16, V_SMALL);
    F("MPI_DOUBLE_INT MAXLOC", MPI_DOUBLE_INT, MPI_MAXLOC, 16, V_PAIR_DI);
    F("MPI_DOUBLE_INT MINLOC", MPI_DOUBLE_INT, MPI_MINLOC, 16, V_PAIR_DI);
    F("MPI_2INT MINLOC", MPI_2INT, MPI_MINLOC, 8, V_PAIR_II);
    F("contiguous(3,int) user sum", triple_type, triple_op, 12, V_TRIPLE);
    F("contiguous(4,long) matrix product (non-commutative)", matrix_type, matmul_op, 32, V_MATRIX);
    F("MPI_INT user max", MPI_INT, int_max_op, 4, V_INT);
}

/* Element k of rank r's input, as `extent` bytes at out. */
static void value(const family *f, uint64_t salt, int r, long k, unsigned char *out) {
    uint64_t x = mix(salt ^ mix(((uint64_t)r << 40) ^ (uint64_t)k));
    switch (f->values) {
    case V_INT: { /* small enough that sums and products of <= 16 values wrap identically in any order */
        long long v = (long long)(x % 2001) - 1000;
        if (f->extent == 4) { int i = (int)v; memcpy(out, &i, 4); }
        else if (f->type == MPI_DOUBLE) { double d = (double)v; memcpy(out, &d, 8); }
        else memcpy(out, &v, 8);
        break;
    }
    case V_SMALL: { /* 0..7: sums of <= 16 stay below 127, exact in float */
        int v = (int)(x % 8);
        if (f->type == MPI_DOUBLE) { double d = v; memcpy(out, &d, 8); }
        else if (f->type == MPI_FLOAT) { float d = (float)v; memcpy(out, &d, 4); }
        else if (f->type == MPI_C_DOUBLE_COMPLEX) { double d[2] = {v, (double)((x >> 8) % 8)}; memcpy(out, d, 16); }
        else if (f->extent == 2) { short s = (short)v; memcpy(out, &s, 2); }
        else { unsigned char c = (unsigned char)v; memcpy(out, &c, 1); }
        break;
    }
    case V_BITS: memcpy(out, &x, (size_t)f->extent); break;
    case V_BYTE01: { unsigned char b = (x & 3) != 0; memset(out, 0, (size_t)f->extent); memcpy(out, &b, 1); break; }
    case V_PM2: { static const double pm[4] = {-2, -1, 1, 2}; memcpy(out, &pm[x & 3], 8); break; }
    case V_PAIR_DI: { struct { double v; int i; } p; memset(&p, 0, sizeof p); p.v = (double)(x % 5); p.i = r; memcpy(out, &p, 16); break; }
    case V_PAIR_II: { int p[2] = {(int)(x % 5), r}; memcpy(out, p, 8); break; }
    case V_TRIPLE: { int t[3] = {(int)(x % 100), (int)((x >> 8) % 100), (int)((x >> 16) % 100)}; memcpy(out, t, 12); break; }
    case V_MATRIX: { long m[4] = {(long)(x % MOD), (long)((x >> 20) % MOD), (long)((x >> 40) % MOD), (long)((x >> 8) % MOD)}; memcpy(out, m, 32); break; }
    }
}

static const char *coll_names[] = {"allreduce", "reduce", "reduce_scatter", "reduce_scatter_block"};
static const char *comm_names[] = {"world", "halves", "reversed", "sub", "fresh-dup"};

/* Run one case; returns the number of failures seen on this rank. */
static int run_case(uint64_t seed, int iteration, MPI_Comm *comms) {
    rng_state = mix(seed * 0x9e3779b97f4a7c15ull + (uint64_t)iteration);
    int coll = pick(4), which = pick(5);
    const family *f = &families[pick(nfamilies)];
    int kind = pick(10), in_place = pick(3) == 0, root_pick = pick(1 << 20);
    int algo_pick = pick(1 << 20), use_default = pick(3) == 0;
    uint64_t salt = next_random();
    MPI_Comm comm = comms[which];
    if (which == 4) PMPI_Comm_dup(comms[0], &comm); /* fresh: fastred sets it up during the call */
    int failures = 0;
    if (comm != MPI_COMM_NULL) {
        int p, r;
        MPI_Comm_size(comm, &p);
        MPI_Comm_rank(comm, &r);
        long n; /* elements: of the vector (allreduce, reduce) or of each block (reduce_scatter_block) */
        switch (kind) {
        case 0: n = 0; break;
        case 1: n = 1; break;
        case 2: n = p > 1 ? p - 1 : 1; break;
        case 3: case 4: n = 2 * pick(17) + 1; break;
        case 5: case 6: case 7: n = 1 + pick(3000); break;
        default: n = 20000 + pick(60000); break;
        }
        if (f->extent >= 16 && n > 20000) n /= 4;
        int *counts = malloc(sizeof(int) * (size_t)p);
        long total = n;
        if (coll == 2) { /* irregular blocks, some empty */
            total = 0;
            for (int i = 0; i < p; i++) { counts[i] = pick(4) == 0 ? 0 : (int)(n / p + pick(5)); total += counts[i]; }
        } else if (coll == 3) {
            n = n / p + (kind == 1);
            total = n * p;
            for (int i = 0; i < p; i++) counts[i] = (int)n;
        }
        int root = root_pick % p;
        long mine = coll >= 2 ? counts[r] : total;
        size_t e = (size_t)f->extent, bytes = (size_t)total * e + 1;
        unsigned char *in = malloc(bytes), *out_f = malloc(bytes), *out_n = malloc(bytes);
        for (long k = 0; k < total; k++) value(f, salt, r, k, in + (size_t)k * e);
        memset(out_f, 0xA5, bytes);
        memset(out_n, 0xA5, bytes);
        char spec[96] = "";
        if (api.force && !use_default) {
            int algorithms = api.algorithms, chosen = -1, candidates = 0;
            for (int a = 0; a < algorithms; a++) candidates += api.implements(coll, a);
            int nth = candidates ? algo_pick % candidates : -1;
            for (int a = 0; a < algorithms && nth >= 0; a++)
                if (api.implements(coll, a) && nth-- == 0) chosen = a;
#ifdef MPICH_VERSION
            /* Handing MPICH 4.0.2 a reduce with MPI_IN_PLACE at a non-zero root
             * crashes it. (Its in-place MPI_Reduce_scatter bug fastred avoids:
             * it hands the library a copy of the receive buffer instead.) */
            if (chosen == 0 && in_place && coll == 1 && root != 0) chosen = -1;
#endif
            if (chosen >= 0) snprintf(spec, sizeof spec, "%s:%s", coll_names[coll], api.algorithm_name(chosen));
            api.force(spec);
        }
        /* MPI_IN_PLACE: the input goes in the receive buffer (reduce: at the root only). */
        int place = in_place && !(coll == 1 && r != root);
        /* The library's reference always uses separate buffers (MPICH 4.0.2's
         * MPI_Reduce crashes with MPI_IN_PLACE at a non-zero root). */
        if (place) memcpy(out_f, in, (size_t)total * e);
        const void *sf = place ? MPI_IN_PLACE : in, *sn = in;
        if (getenv("BATTERY_VERBOSE") && t_rank == 0)
            fprintf(stderr, "case %d: %s on %s (p=%d), %s, count %ld, root %d, %s, algorithm %s\n", iteration, coll_names[coll],
                    comm_names[which], p, f->name, total, root, place ? "MPI_IN_PLACE" : "separate buffers", spec[0] ? spec : "default");
        int rc_f = 0, rc_n = 0;
        switch (coll) {
        case 0: rc_f = MPI_Allreduce(sf, out_f, (int)total, f->type, f->op, comm);
                rc_n = PMPI_Allreduce(sn, out_n, (int)total, f->type, f->op, comm); break;
        case 1: rc_f = MPI_Reduce(sf, out_f, (int)total, f->type, f->op, root, comm);
                rc_n = PMPI_Reduce(sn, out_n, (int)total, f->type, f->op, root, comm); break;
        case 2: rc_f = MPI_Reduce_scatter(sf, out_f, counts, f->type, f->op, comm);
                rc_n = PMPI_Reduce_scatter(sn, out_n, counts, f->type, f->op, comm); break;
        case 3: rc_f = MPI_Reduce_scatter_block(sf, out_f, (int)n, f->type, f->op, comm);
                rc_n = PMPI_Reduce_scatter_block(sn, out_n, (int)n, f->type, f->op, comm); break;
        }
        if (api.force && !use_default) api.force(NULL);
        long check = (coll == 1 && r != root) ? 0 : mine;
        long bad = -1;
        for (long k = 0; k < check && bad < 0; k++)
            if (memcmp(out_f + (size_t)k * e, out_n + (size_t)k * e, (size_t)f->compared)) bad = k;
        if (rc_f != MPI_SUCCESS || rc_n != MPI_SUCCESS || bad >= 0) {
            failures++;
            fprintf(stderr,
                    "[rank %d] FAIL seed %llu iteration %d: %s on %s (p=%d), %s, count %ld, root %d, %s, algorithm %s: "
                    "rc %d/%d, first differing element %ld (rerun: battery %llu %d %d)\n",
                    t_rank, (unsigned long long)seed, iteration, coll_names[coll], comm_names[which], p, f->name, total, root,
                    place ? "MPI_IN_PLACE" : "separate buffers", spec[0] ? spec : "default", rc_f, rc_n, bad,
                    (unsigned long long)seed, iteration + 1, iteration);
        }
        free(in); free(out_f); free(out_n); free(counts);
        if (which == 4) MPI_Comm_free(&comm);
    }
    return failures;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    int iterations = argc > 2 ? atoi(argv[2]) : 200, only = argc > 3 ? atoi(argv[3]) : -1;
    api = fastred_lookup();
    set_up_families();

    MPI_Comm comms[5];
    MPI_Group world_group, sub_group;
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, t_size - t_rank, &comms[2]);
    int sub_size = t_size / 2 + 1 < t_size ? t_size / 2 + 1 : t_size;
    int range[1][3] = {{0, sub_size - 1, 1}};
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_range_incl(world_group, 1, range, &sub_group);
    MPI_Comm_create(MPI_COMM_WORLD, sub_group, &comms[3]);
    comms[4] = MPI_COMM_WORLD; /* a fresh dup of it each time */

    int cases = 0;
    for (int it = 0; it < iterations; it++) {
        if (only >= 0 && it != only) continue;
        t_failures += run_case(seed, it, comms);
        cases++;
    }
    if (t_rank == 0) printf("battery: seed %llu, %d cases\n", (unsigned long long)seed, cases);
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    if (comms[3] != MPI_COMM_NULL) MPI_Comm_free(&comms[3]);
    MPI_Group_free(&sub_group);
    MPI_Group_free(&world_group);
    return finish("battery");
}
