/* FASTRED_REPRODUCIBLE=1: every floating-point reduction fastred runs gives,
 * bit for bit, the canonical order's result (src/reproducible.rs), computed
 * here serially from every rank's input: all four collectives, every
 * algorithm eligible in the mode and the default, counts from 0 to long ones
 * (so the default's choice changes with the size), every root, MPI_IN_PLACE,
 * SUM and PROD on float, double, long double and the complex types. Inputs
 * have full mantissas over many magnitudes, so other orders give other bits:
 * the program shows it by switching the mode off (fastred_reproducible(0))
 * and counting the results that then differ (for p >= 3 not a power of two,
 * where the default algorithms are not canonical, some must).
 * Prints a digest of all results, equal across MPI libraries when the
 * canonical order is computed (the test runner compares MPICH's and Open
 * MPI's).
 *
 * usage: reproducible [quick]   (with FASTRED_REPRODUCIBLE=1) */
#include "common.h"
#include <complex.h>

typedef void (*combine_fn)(const void *a, const void *b, void *out);

#define COMBINE(NAME, T, EXPR) \
    static void NAME(const void *pa, const void *pb, void *out) { T a = *(const T *)pa, b = *(const T *)pb; *(T *)out = (EXPR); }
COMBINE(sum_d, double, a + b)
COMBINE(prod_d, double, a * b)
COMBINE(sum_f, float, a + b)
COMBINE(sum_ld, long double, a + b)
COMBINE(sum_cd, double _Complex, a + b)
COMBINE(sum_cld, long double _Complex, a + b)
/* fastred's complex product: (ar·br − ai·bi, ar·bi + ai·br), as MPI libraries write it. */
static void prod_cf(const void *pa, const void *pb, void *out) {
    const float *a = pa, *b = pb;
    float r[2] = {a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]};
    memcpy(out, r, sizeof r);
}
static void prod_cd(const void *pa, const void *pb, void *out) {
    const double *a = pa, *b = pb;
    double r[2] = {a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]};
    memcpy(out, r, sizeof r);
}

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    size_t size;
    size_t significant; /* bytes compared per real part (long double: 10 of 16) */
    int parts;          /* 1 real, 2 complex */
    int real_bytes;     /* 4, 8 or 16 */
    combine_fn combine;
} kind;

static kind kinds[8];
static int nkinds;

static void add_kind(const char *name, MPI_Datatype t, MPI_Op op, size_t size, int parts, int real_bytes, combine_fn f) {
    kinds[nkinds++] = (kind){name, t, op, size, real_bytes == 16 ? 10 : (size_t)real_bytes, parts, real_bytes, f};
}

/* Rank r's element i: full random mantissa, exponents over ±20 binary orders
 * (SUM) or within ±1/8 of 1 (PROD, so that products neither overflow nor
 * underflow), both signs. */
static long double value(const kind *k, int r, size_t i, int part) {
    uint64_t b = mix(((uint64_t)r << 40) ^ ((uint64_t)i << 2) ^ (uint64_t)part ^ ((uint64_t)k->real_bytes << 58));
    long double m = 1.0L + (long double)(b >> 12) / 4503599627370496.0L;
    long double sign = (b >> 63) ? -1.0L : 1.0L;
    if (k->op == MPI_PROD) return 1.0L + sign * (m - 1.0L) / 8.0L;
    int e = (int)(b % 41) - 20;
    long double scale = 1.0L;
    for (; e > 0; e--) scale *= 2.0L;
    for (; e < 0; e++) scale /= 2.0L;
    return sign * m * scale;
}

static void fill(const kind *k, int r, size_t n, unsigned char *buf) {
    memset(buf, 0, n * k->size);
    for (size_t i = 0; i < n; i++)
        for (int part = 0; part < k->parts; part++) {
            unsigned char *at = buf + i * k->size + (size_t)part * (size_t)k->real_bytes;
            long double v = value(k, r, i, part);
            if (k->real_bytes == 4) { float f = (float)v; memcpy(at, &f, 4); }
            else if (k->real_bytes == 8) { double d = (double)v; memcpy(at, &d, 8); }
            else memcpy(at, &v, sizeof v);
        }
}

/* The canonical order over p inputs: pairs (2q, 2q+1) for q < r = p − p',
 * then the aligned binary tree over the p' leaves. */
static void reference(const kind *k, int p, size_t n, unsigned char *out) {
    int pof2 = 1;
    while (pof2 * 2 <= p) pof2 *= 2;
    int removed = p - pof2;
    size_t bytes = n * k->size;
    unsigned char *leaves = calloc((size_t)pof2 * bytes + 1, 1), *x = malloc(bytes + 1), *y = malloc(bytes + 1);
    for (int q = 0; q < pof2; q++) {
        unsigned char *leaf = leaves + (size_t)q * bytes;
        if (q < removed) {
            fill(k, 2 * q, n, x);
            fill(k, 2 * q + 1, n, y);
            for (size_t i = 0; i < n; i++) k->combine(x + i * k->size, y + i * k->size, leaf + i * k->size);
        } else {
            fill(k, q + removed, n, leaf);
        }
    }
    for (int width = 1; width < pof2; width *= 2)
        for (int q = 0; q < pof2; q += 2 * width) {
            unsigned char *l = leaves + (size_t)q * bytes, *rr = leaves + (size_t)(q + width) * bytes;
            for (size_t i = 0; i < n; i++) k->combine(l + i * k->size, rr + i * k->size, l + i * k->size);
        }
    memcpy(out, leaves, bytes);
    free(leaves), free(x), free(y);
}

static int same_bits(const kind *k, const unsigned char *a, const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int part = 0; part < k->parts; part++) {
            size_t at = i * k->size + (size_t)part * (size_t)k->real_bytes;
            if (memcmp(a + at, b + at, k->significant)) return 0;
        }
    return 1;
}

static uint64_t digest = 1469598103934665603ull;
static void absorb(const kind *k, const unsigned char *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int part = 0; part < k->parts; part++)
            for (size_t j = 0; j < k->significant; j++)
                digest = (digest ^ v[i * k->size + (size_t)part * (size_t)k->real_bytes + j]) * 1099511628211ull;
}

enum { ALLREDUCE, REDUCE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK };
static const char *coll_names[] = {"allreduce", "reduce", "reduce_scatter", "reduce_scatter_block"};

static fastred_api api;

/* One call; returns 1 if this rank's result has the canonical bits (or it
 * has no result), 0 if not; `ran` gets the algorithm fastred ran. */
static int one_case(const kind *k, int coll, size_t n, int root, int in_place, int *ran) {
    int p = t_size;
    int *counts = malloc(sizeof(int) * (size_t)p);
    size_t offset = 0, mine = n;
    if (coll == REDUCE_SCATTER_BLOCK || coll == REDUCE_SCATTER) {
        size_t total = 0;
        for (int i = 0; i < p; i++) {
            counts[i] = coll == REDUCE_SCATTER_BLOCK ? (int)(n / (size_t)p) : (int)((n / (size_t)p) + (size_t)((i * 5 + 3) % 4) - 1 + (n / (size_t)p == 0));
            if (counts[i] < 0) counts[i] = 0;
            total += (size_t)counts[i];
        }
        n = total;
        for (int i = 0; i < t_rank; i++) offset += (size_t)counts[i];
        mine = (size_t)counts[t_rank];
    }
    unsigned char *canonical = malloc(n * k->size + 1);
    reference(k, p, n, canonical);
    unsigned char *send = malloc(n * k->size + 1), *recv = malloc(n * k->size + 1);
    fill(k, t_rank, n, send);
    memset(recv, 0x5a, n * k->size + 1);
    void *sb = send;
    if (in_place) { memcpy(recv, send, n * k->size); sb = MPI_IN_PLACE; }
    int rc = MPI_SUCCESS, has_result = 1;
    switch (coll) {
    case ALLREDUCE: rc = MPI_Allreduce(sb, recv, (int)n, k->type, k->op, MPI_COMM_WORLD); break;
    case REDUCE:
        if (in_place && t_rank != root) sb = send;
        rc = MPI_Reduce(sb, recv, (int)n, k->type, k->op, root, MPI_COMM_WORLD);
        has_result = t_rank == root;
        break;
    case REDUCE_SCATTER: rc = MPI_Reduce_scatter(sb, recv, counts, k->type, k->op, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER_BLOCK: rc = MPI_Reduce_scatter_block(sb, recv, counts[0], k->type, k->op, MPI_COMM_WORLD); break;
    }
    CHECK(rc == MPI_SUCCESS, "%s %s n=%zu: rc %d", coll_names[coll], k->name, n, rc);
    *ran = api.last_algorithm ? api.last_algorithm(coll) : -1;
    int ok = 1;
    if (has_result) {
        const unsigned char *expect = coll == REDUCE_SCATTER || coll == REDUCE_SCATTER_BLOCK ? canonical + offset * k->size : canonical;
        ok = same_bits(k, recv, expect, mine);
        absorb(k, recv, mine);
    }
    free(counts), free(canonical), free(send), free(recv);
    return ok;
}

static int canonical_algorithm(const char *name) {
    return !strcmp(name, "tree") || !strcmp(name, "recursive_doubling") || !strcmp(name, "rabenseifner") || !strcmp(name, "pairwise") || !strcmp(name, "pairwise_pipeline")
        || !strcmp(name, "shared_memory")
        || !strcmp(name, "hierarchical"); /* where the hosts keep the order (one host, hosts in blocks); else the library ignores it */
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int quick = argc > 1 && !strcmp(argv[1], "quick");
    api = fastred_lookup();
    CHECK(api.force && api.reproducible && api.last_algorithm, "fastred's C API is not loaded");
    if (!api.force || !api.reproducible || !api.last_algorithm) return finish("reproducible");
    const char *mode = getenv("FASTRED_REPRODUCIBLE");
    if (t_rank == 0) CHECK(mode && !strcmp(mode, "1"), "run with FASTRED_REPRODUCIBLE=1 (rank 0's setting is the agreed one)");

    add_kind("double sum", MPI_DOUBLE, MPI_SUM, 8, 1, 8, sum_d);
    add_kind("double prod", MPI_DOUBLE, MPI_PROD, 8, 1, 8, prod_d);
    add_kind("float sum", MPI_FLOAT, MPI_SUM, 4, 1, 4, sum_f);
    add_kind("long double sum", MPI_LONG_DOUBLE, MPI_SUM, 16, 1, 16, sum_ld);
    add_kind("double complex sum", MPI_C_DOUBLE_COMPLEX, MPI_SUM, 16, 2, 8, sum_cd);
    add_kind("double complex prod", MPI_C_DOUBLE_COMPLEX, MPI_PROD, 16, 2, 8, prod_cd);
    add_kind("float complex prod", MPI_C_FLOAT_COMPLEX, MPI_PROD, 8, 2, 4, prod_cf);
    add_kind("long double complex sum", MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, 32, 2, 16, sum_cld);

    int p = t_size;
    size_t counts_full[] = {0, 1, (size_t)(p > 1 ? p - 1 : 1), (size_t)p + 1, 7, 100, 1000, 30001};
    size_t counts_quick[] = {0, 1, (size_t)p + 1, 100, 30001};
    size_t *counts = quick ? counts_quick : counts_full;
    int ncounts = quick ? 5 : 8;
    const char *algos[] = {NULL, "tree", "recursive_doubling", "rabenseifner", "pairwise", "pairwise_pipeline", "hierarchical", "shared_memory"};
    long cases = 0, wrong_algorithm = 0;

    for (int c = 0; c < 4; c++)
        for (int a = 0; a < (int)(sizeof algos / sizeof *algos); a++) {
            if (algos[a]) {
                int idx = 0;
                while (idx < api.algorithms && strcmp(api.algorithm_name(idx), algos[a])) idx++;
                if (!api.implements(c, idx)) continue;
            }
            char spec[64];
            snprintf(spec, sizeof spec, "%s:%s", coll_names[c], algos[a] ? algos[a] : "");
            api.force(algos[a] ? spec : NULL);
            for (int kk = 0; kk < nkinds; kk++)
                for (int ci = 0; ci < ncounts; ci++)
                    for (int root = 0; root < (c == REDUCE ? p : 1); root += (c == REDUCE && quick && p > 3) ? p - 1 : 1)
                        for (int in_place = 0; in_place < 2; in_place++) {
                            int ran;
                            int ok = one_case(&kinds[kk], c, counts[ci], root, in_place, &ran);
                            const char *ran_name = ran >= 0 ? api.algorithm_name(ran) : "?";
                            CHECK(ok, "%s %s n=%zu root=%d in_place=%d algorithm %s: not the canonical order's bits",
                                  coll_names[c], kinds[kk].name, counts[ci], root, in_place, ran_name);
                            if (p > 2 && !(ran_name && canonical_algorithm(ran_name))) {
                                wrong_algorithm++;
                                CHECK(0, "%s %s n=%zu: ran %s, which does not compute the canonical order", coll_names[c], kinds[kk].name, counts[ci], ran_name);
                            }
                            cases++;
                        }
        }
    api.force(NULL);

    /* The mode off: the default algorithms' results differ from the canonical
     * ones somewhere (for p >= 3 not a power of two), so the checks above can fail. */
    api.reproducible(0);
    uint64_t canonical_digest = digest;
    int differ = 0, compared = 0;
    for (int c = 0; c < 4; c++)
        for (int kk = 0; kk < nkinds; kk += 4) {
            int ran;
            differ += !one_case(&kinds[kk], c, 30001, 0, 0, &ran);
            compared++;
        }
    api.reproducible(-1);
    digest = canonical_digest;
    int differ_all = 0;
    PMPI_Allreduce(&differ, &differ_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (p >= 3 && (p & (p - 1)))
        CHECK(differ_all > 0, "with the mode off no result differs from the canonical order: the inputs do not tell orders apart");

    uint64_t *all = malloc(sizeof(uint64_t) * (size_t)p);
    PMPI_Gather(&digest, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (t_rank == 0) {
        uint64_t total = 1469598103934665603ull;
        for (int r = 0; r < p; r++) total = (total ^ all[r]) * 1099511628211ull;
        printf("reproducible: %ld cases, %d processes, digest %016llx\n", cases, p, (unsigned long long)total);
        printf("reproducible: mode off, default algorithms: %d of %d results (all ranks) differ from the canonical order\n", differ_all, compared * p);
    }
    free(all);
    return finish("reproducible");
}
