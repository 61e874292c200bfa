/*
 * Reliability defects that must stay fixed (one mode per argv[1]):
 *
 *  attributes  fastred's private communicator must not run the user's
 *              attribute callbacks: a copy callback that counts and a delete
 *              callback that frees its value run exactly as often as without
 *              fastred, and a copy callback that refuses to copy does not make
 *              MPI_Allreduce fail.
 *  handles     MPI_DATATYPE_NULL / invalid datatype and op handles with a user
 *              op on a communicator with MPI_ERRORS_RETURN (MPI_COMM_WORLD keeps
 *              MPI_ERRORS_ARE_FATAL): the call returns the library's error class,
 *              nothing aborts.
 *  truncate    (np 2, FASTRED_ALGO=allreduce:recursive_doubling FASTRED_PIECE=1K)
 *              ranks disagree on the count, so rank 1's last piece is truncated:
 *              rank 1 gets MPI_ERR_TRUNCATE (the real class, not
 *              MPI_ERR_IN_STATUS) and the next correct call works.
 *  truncate-shm  (FASTRED_ALGO=shared_memory) ranks disagree on the count,
 *              within one short round and over several rounds: every rank
 *              of an allreduce and a reduce's root get MPI_ERR_TRUNCATE, and
 *              the next correct calls (short and long) work.
 *  truncate-reduce  (np 2, FASTRED_ALGO=reduce:pipeline FASTRED_SEGMENT=32K
 *              FASTRED_PIECE=1K) the root's count is shorter than the other
 *              rank's, so the one segment it receives (into its inbox,
 *              posted ahead where the library allows) is truncated, in its
 *              last piece: the root gets MPI_ERR_TRUNCATE, nothing aborts,
 *              and the next correct calls work. (One segment: the segments
 *              are even shares of each rank's count, so with several the
 *              first would be truncated and the rest left unmatched.)
 *  nomem       under an address-space limit, a reduce-scatter whose scratch
 *              cannot be allocated returns MPI_ERR_NO_MEM on every rank (no
 *              abort), and the next call works.
 *  panic       (FASTRED_FAULT=panic) the injected panic reaches the user as
 *              MPI_ERR_INTERN on every rank, and the next call works.
 *  codes       a thousand calls with distinct negative counts add at most a few
 *              error codes (MPI_LASTUSEDCODE grows by a bounded amount).
 */
#include "common.h"
#include <sys/mman.h>
#include <sys/resource.h>

static int class_of(int rc) {
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

/* A correct allreduce on `comm` after an erroneous one gives the right answer. */
static void next_call_works(const char *what, MPI_Comm comm) {
    int p, in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
    MPI_Comm_size(comm, &p);
    int rc = MPI_Allreduce(in, out, 3, MPI_INT, MPI_SUM, comm);
    CHECK(rc == MPI_SUCCESS && out[0] == p && out[2] == 3 * p, "%s: the next allreduce gave rc %d, %d %d", what, rc, out[0], out[2]);
}

static int copies, deletes, refusals;
static int counting_copy(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag) {
    (void)c; (void)kv; (void)extra;
    copies++;
    int *v = malloc(sizeof(int));
    *v = *(int *)in;
    *(void **)out = v;
    *flag = 1;
    return MPI_SUCCESS;
}
static int freeing_delete(MPI_Comm c, int kv, void *value, void *extra) {
    (void)c; (void)kv; (void)extra;
    deletes++;
    free(value); /* a second delete of the same value would be a double free */
    return MPI_SUCCESS;
}
static int refusing_copy(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag) {
    (void)c; (void)kv; (void)extra; (void)in; (void)out; (void)flag;
    refusals++;
    return MPI_ERR_OTHER;
}

static void attributes(void) {
    int kv, refuse_kv, a[4] = {1, 2, 3, 4}, b[4];
    MPI_Comm comm, user_dup;
    MPI_Comm_create_keyval(counting_copy, freeing_delete, &kv, NULL);
    MPI_Comm_create_keyval(refusing_copy, MPI_COMM_NULL_DELETE_FN, &refuse_kv, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int *value = malloc(sizeof(int));
    *value = 42;
    MPI_Comm_set_attr(comm, kv, value);
    MPI_Comm_set_attr(comm, refuse_kv, NULL);
    for (int n = 1; n <= 4; n++) { /* the first call on `comm` sets up fastred's state */
        int rc = MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, comm);
        CHECK(rc == MPI_SUCCESS, "allreduce on a communicator whose attribute refuses copies: class %d", class_of(rc));
        CHECK(b[n - 1] == n * t_size, "allreduce result %d", b[n - 1]);
    }
    CHECK(copies == 0 && refusals == 0, "user copy callbacks ran %d + %d times with no user MPI_Comm_dup", copies, refusals);
    /* The callbacks do count: a user dup copies `kv` once (and refuses refuse_kv, so it fails). */
    MPI_Comm_delete_attr(comm, refuse_kv);
    MPI_Comm_dup(comm, &user_dup);
    CHECK(copies == 1, "user dup: copy callback ran %d times, expected 1", copies);
    MPI_Comm_free(&user_dup);
    CHECK(deletes == 1, "after freeing the user's dup: delete callback ran %d times, expected 1", deletes);
    MPI_Comm_free(&comm);
    CHECK(deletes == 2, "after freeing the communicator: delete callback ran %d times, expected 2", deletes);
    MPI_Comm_free_keyval(&kv);
    MPI_Comm_free_keyval(&refuse_kv);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void handles(void) {
    int a[4] = {1, 2, 3, 4}, b[4];
    MPI_Comm comm;
    MPI_Op op;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN); /* MPI_COMM_WORLD stays fatal */
    MPI_Op_create(user_sum, 1, &op);
    next_call_works("set-up", comm);
    /* expected: the class fastred must give where the library would crash
     * (Open MPI 4.1 dereferences a NULL datatype handle), else -1: the library's. */
#ifdef OPEN_MPI
    const int invalid_type_expected = MPI_ERR_TYPE, invalid_op_expected = MPI_ERR_OP;
#else
    const int invalid_type_expected = -1, invalid_op_expected = -1;
#endif
    struct { const char *what; MPI_Datatype type; MPI_Op op; int expected; } cases[] = {
        {"MPI_DATATYPE_NULL with a user op", MPI_DATATYPE_NULL, op, -1},
        {"invalid op handle", MPI_INT, MPI_Op_f2c(123457), invalid_op_expected},
        {"invalid datatype handle with a user op", MPI_Type_f2c(123457), op, invalid_type_expected},
        {"invalid datatype with a predefined op", MPI_Type_f2c(123457), MPI_SUM, invalid_type_expected},
    };
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int rc = MPI_Allreduce(a, b, 4, cases[k].type, cases[k].op, comm);
        int expected = cases[k].expected >= 0 ? cases[k].expected : class_of(PMPI_Allreduce(a, b, 4, cases[k].type, cases[k].op, comm));
        CHECK(rc != MPI_SUCCESS, "%s: MPI_SUCCESS", cases[k].what);
        CHECK(class_of(rc) == expected, "%s: class %d with fastred, %d expected", cases[k].what, class_of(rc), expected);
        rc = MPI_Reduce(a, b, 4, cases[k].type, cases[k].op, 0, comm);
        CHECK(rc != MPI_SUCCESS, "%s (reduce): MPI_SUCCESS", cases[k].what);
        next_call_works(cases[k].what, comm);
    }
    MPI_Op_free(&op);
    MPI_Comm_free(&comm);
}

static void truncate_pieces(void) {
    if (t_size != 2) { CHECK(0, "truncate needs 2 processes"); return; }
    enum { LONG = 2560, SHORT = 2450 }; /* 20480 B and 19600 B: 20 pieces of 1 KiB each side */
    double *a = calloc(LONG, sizeof(double)), *b = calloc(LONG, sizeof(double));
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rc = MPI_Allreduce(a, b, t_rank == 0 ? LONG : SHORT, MPI_DOUBLE, MPI_SUM, comm);
    if (t_rank == 1) CHECK(class_of(rc) == MPI_ERR_TRUNCATE, "truncated piece: class %d, expected MPI_ERR_TRUNCATE (%d)", class_of(rc), MPI_ERR_TRUNCATE);
    for (int i = 0; i < LONG; i++) a[i] = i + t_rank;
    rc = MPI_Allreduce(a, b, LONG, MPI_DOUBLE, MPI_SUM, comm);
    CHECK(rc == MPI_SUCCESS && b[LONG - 1] == 2.0 * (LONG - 1) + 1, "the next (long) allreduce: rc %d, %g", rc, b[LONG - 1]);
    next_call_works("truncate", comm);
    MPI_Comm_free(&comm);
    free(a); free(b);
}

static void truncate_reduce(void) {
    if (t_size != 2) { CHECK(0, "truncate-reduce needs 2 processes"); return; }
    enum { LONG = 2560, SHORT = 2450 }; /* 20480 B and 19600 B: one segment, 20 pieces of 1 KiB */
    double *a = calloc(LONG, sizeof(double)), *b = calloc(LONG, sizeof(double));
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rc = MPI_Reduce(a, b, t_rank == 0 ? SHORT : LONG, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (t_rank == 0) CHECK(class_of(rc) == MPI_ERR_TRUNCATE, "the root's truncated segment: class %d, expected MPI_ERR_TRUNCATE (%d)", class_of(rc), MPI_ERR_TRUNCATE);
    for (int i = 0; i < LONG; i++) a[i] = i + t_rank;
    rc = MPI_Reduce(a, b, LONG, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (t_rank == 0) CHECK(rc == MPI_SUCCESS && b[LONG - 1] == 2.0 * (LONG - 1) + 1, "the next reduce: rc %d, %g", rc, b[LONG - 1]);
    next_call_works("truncate-reduce", comm);
    MPI_Comm_free(&comm);
    free(a); free(b);
}

static void truncate_shared_memory(void) {
    enum { LONG = 100000 };
    const int counts[][2] = {{10, 12}, {LONG, 90000}, {10, LONG}};
    double *a = calloc(LONG, sizeof(double)), *b = calloc(LONG, sizeof(double));
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    for (int k = 0; k < 3; k++) {
        int mine = counts[k][t_rank == 0 ? 0 : 1];
        int rc = MPI_Allreduce(a, b, mine, MPI_DOUBLE, MPI_SUM, comm);
        CHECK(class_of(rc) == MPI_ERR_TRUNCATE, "allreduce of %d vs %d doubles: class %d, expected MPI_ERR_TRUNCATE (%d)",
              counts[k][0], counts[k][1], class_of(rc), MPI_ERR_TRUNCATE);
        next_call_works("truncate-shm allreduce", comm);
        rc = MPI_Reduce(a, b, mine, MPI_DOUBLE, MPI_SUM, 0, comm);
        if (t_rank == 0) CHECK(class_of(rc) == MPI_ERR_TRUNCATE, "reduce of %d vs %d doubles at the root: class %d", counts[k][0], counts[k][1], class_of(rc));
        for (int i = 0; i < LONG; i++) a[i] = i + t_rank;
        rc = MPI_Allreduce(a, b, LONG, MPI_DOUBLE, MPI_SUM, comm);
        CHECK(rc == MPI_SUCCESS && b[LONG - 1] == t_size * (LONG - 1.0) + t_size * (t_size - 1) / 2.0, "the next (long) allreduce: rc %d, %g", rc, b[LONG - 1]);
        next_call_works("truncate-shm", comm);
    }
    MPI_Comm_free(&comm);
    free(a); free(b);
}

static void nomem(void) {
    const size_t total = (size_t)1 << 30; /* 1 GiB of input per rank, never touched */
    size_t per_rank = total / sizeof(double) / t_size;
    double *in = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    double *out = mmap(NULL, per_rank * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(in != MAP_FAILED && out != MAP_FAILED, "mmap failed");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    next_call_works("set-up", comm);
    /* Room for 512 MiB more: fastred's 1 GiB scratch copy cannot be had
     * (in place: with a separate send buffer it reads the input where it is). */
    struct rlimit lim = {(size_t)proc_status_kib("VmSize") * 1024 + ((size_t)512 << 20), RLIM_INFINITY};
    CHECK(setrlimit(RLIMIT_AS, &lim) == 0, "setrlimit");
    /* 64-bit integers (same size as doubles): the default table runs integer
     * reductions itself everywhere (it hands long floating-point
     * reduce-scatters on one host to MPICH). */
    int rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, in, (int)per_rank, MPI_INT64_T, MPI_SUM, comm);
    CHECK(class_of(rc) == MPI_ERR_NO_MEM, "reduce_scatter_block without memory for scratch: class %d, expected MPI_ERR_NO_MEM (%d)", class_of(rc), MPI_ERR_NO_MEM);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
#ifdef OPEN_MPI /* MPICH 4.0.2 ignores MPI_Add_error_string for codes in predefined classes */
    CHECK(strstr(msg, "scratch") != NULL, "error string '%s' does not say what failed", msg);
#endif
    lim.rlim_cur = RLIM_INFINITY;
    setrlimit(RLIMIT_AS, &lim);
    next_call_works("nomem", comm);
    MPI_Comm_free(&comm);
    munmap(in, total);
    munmap(out, per_rank * sizeof(double));
}

static void panic_reaches_user(void) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int a = 1, b = 0;
    int rc = MPI_Allreduce(&a, &b, 1, MPI_INT, MPI_SUM, comm);
    CHECK(class_of(rc) == MPI_ERR_INTERN, "injected panic: class %d, expected MPI_ERR_INTERN (%d)", class_of(rc), MPI_ERR_INTERN);
    next_call_works("panic", comm);
    MPI_Comm_free(&comm);
}

static void bounded_codes(void) {
    MPI_Comm comm;
    int *last, flag, before, a = 1, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    before = *last;
    int distinct[8], ndistinct = 0, overflow = 0;
    for (int n = 1; n <= 1000; n++) {
        int rc = MPI_Allreduce(&a, &b, -n, MPI_INT, MPI_SUM, comm), seen = 0;
        CHECK(class_of(rc) == MPI_ERR_COUNT, "count %d: class %d", -n, class_of(rc));
        for (int k = 0; k < ndistinct; k++) seen |= distinct[k] == rc;
        if (!seen && ndistinct < 8) distinct[ndistinct++] = rc;
        else if (!seen) overflow++;
        rc = MPI_Reduce(&a, &b, -n, MPI_INT, MPI_SUM, 0, comm);
    }
    /* Both ways to see it: the codes the calls returned (MPICH does not
     * advance MPI_LASTUSEDCODE for codes in predefined classes) and, where the
     * library keeps it, MPI_LASTUSEDCODE. */
    CHECK(ndistinct + overflow <= 2, "1000 failing allreduces returned %d distinct error codes", ndistinct + overflow);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    CHECK(*last - before <= 8, "2000 failing calls added %d error codes", *last - before);
    next_call_works("codes", comm);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "attributes")) attributes();
    else if (!strcmp(mode, "handles")) handles();
    else if (!strcmp(mode, "truncate")) truncate_pieces();
    else if (!strcmp(mode, "truncate-shm")) truncate_shared_memory();
    else if (!strcmp(mode, "truncate-reduce")) truncate_reduce();
    else if (!strcmp(mode, "nomem")) nomem();
    else if (!strcmp(mode, "panic")) panic_reaches_user();
    else if (!strcmp(mode, "codes")) bounded_codes();
    else CHECK(0, "unknown mode '%s'", mode);
    if (fastred_loaded()) CHECK(fastred_count("fastred_own_calls", 0) > 0, "fastred ran no allreduce");
    char name[64];
    snprintf(name, sizeof name, "reliability %s", mode);
    return finish(name);
}
