/*
 * Invalid arguments: fastred returns an error of the right class through the
 * communicator's error handler (MPI_ERRORS_RETURN here, plus a counting
 * handler), never a crash or hang. Where the library itself reports the error
 * the class must equal the library's; where the library would crash (MPICH
 * 4.0.2 on negative counts, Open MPI 4.1 on a NULL send buffer) fastred must
 * give the standard class and its own message instead.
 */
#include "common.h"

static int handler_calls;
static void counting_handler(MPI_Comm *comm, int *code, ...) { (void)comm; (void)code; handler_calls++; }

#ifdef OPEN_MPI
#define LIB_CHECKS_COUNT 1
#define LIB_CHECKS_NULL_BUFFER 0
#else
#define LIB_CHECKS_COUNT 0
#define LIB_CHECKS_NULL_BUFFER 1
#endif

/* expected: the class fastred must give (-1: whatever the library gives). */
static void check_error(const char *what, int expected, int rc_fastred, int native_safe, int rc_native) {
    int cf = -1, cn = -1, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc_fastred, &cf);
    MPI_Error_string(rc_fastred, msg, &len);
    CHECK(rc_fastred != MPI_SUCCESS, "%s: fastred returned MPI_SUCCESS", what);
    if (expected >= 0) CHECK(cf == expected, "%s: error class %d, expected %d", what, cf, expected);
    if (native_safe) {
        MPI_Error_class(rc_native, &cn);
        CHECK(cf == cn, "%s: error class %d with fastred, %d from the library", what, cf, cn);
    }
    if (t_rank == 0 && getenv("TEST_VERBOSE")) printf("%-40s class %2d: %.70s\n", what, cf, msg);
    PMPI_Barrier(MPI_COMM_WORLD);
}

/* An error only some ranks can see: those must get `expected`, the others
 * success, and the protocol must still complete (checked by a valid call after). */
static void check_local_error(const char *what, int erroneous, int expected, int rc) {
    int cls = -1, len, b[3] = {0, 0, 0}, one[3] = {1, 2, 3};
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (erroneous) CHECK(cls == expected, "%s: error class %d, expected %d", what, cls, expected);
    else CHECK(rc == MPI_SUCCESS, "%s: a rank with valid arguments got error class %d", what, cls);
    if (erroneous && getenv("TEST_VERBOSE")) printf("%-40s class %2d: %.70s (rank %d)\n", what, cls, msg, t_rank);
    MPI_Allreduce(one, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(b[0] == t_size && b[2] == 3 * t_size, "%s: the next allreduce is wrong (%d %d)", what, b[0], b[2]);
    PMPI_Barrier(MPI_COMM_WORLD);
}

#define CASE(what, expected, native_safe, F, ...)                                    \
    check_error(what, expected, M##F(__VA_ARGS__), native_safe, (native_safe) ? PM##F(__VA_ARGS__) : 0)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int p = t_size, a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8], counts[64], bad_counts[64], i;
    for (i = 0; i < p; i++) { counts[i] = 1; bad_counts[i] = i == 0 ? -1 : 1; }
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);

    CASE("allreduce negative count", MPI_ERR_COUNT, LIB_CHECKS_COUNT, PI_Allreduce, a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CASE("reduce negative count", MPI_ERR_COUNT, LIB_CHECKS_COUNT, PI_Reduce, a, b, -3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    CASE("reduce_scatter negative recvcount", MPI_ERR_COUNT, 1, PI_Reduce_scatter, a, b, bad_counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CASE("reduce_scatter_block negative count", MPI_ERR_COUNT, LIB_CHECKS_COUNT, PI_Reduce_scatter_block, a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CASE("allreduce NULL send buffer", MPI_ERR_BUFFER, LIB_CHECKS_NULL_BUFFER, PI_Allreduce, NULL, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CASE("allreduce NULL receive buffer", MPI_ERR_BUFFER, LIB_CHECKS_NULL_BUFFER, PI_Allreduce, a, NULL, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CASE("MPI_DATATYPE_NULL", -1, 1, PI_Allreduce, a, b, 2, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD);
    CASE("MPI_OP_NULL", -1, 1, PI_Allreduce, a, b, 2, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    CASE("MPI_COMM_NULL", MPI_ERR_COMM, 1, PI_Allreduce, a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_NULL);
    CASE("MAXLOC on MPI_INT", MPI_ERR_OP, 1, PI_Allreduce, a, b, 2, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CASE("SUM on MPI_2INT", MPI_ERR_OP, 1, PI_Allreduce, a, b, 2, MPI_2INT, MPI_SUM, MPI_COMM_WORLD);
    CASE("LAND on MPI_C_DOUBLE_COMPLEX", MPI_ERR_OP, 1, PI_Allreduce, a, b, 1, MPI_C_DOUBLE_COMPLEX, MPI_LAND, MPI_COMM_WORLD);
    CASE("MPI_SUM on a derived datatype", MPI_ERR_OP, 1, PI_Allreduce, a, b, 2, two, MPI_SUM, MPI_COMM_WORLD);
    CASE("allreduce aliased buffers", MPI_ERR_BUFFER, 1, PI_Allreduce, a, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CASE("root = size", MPI_ERR_ROOT, 1, PI_Reduce, a, b, 2, MPI_INT, MPI_SUM, p, MPI_COMM_WORLD);
    CASE("root = -1", MPI_ERR_ROOT, 1, PI_Reduce, a, b, 2, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD);
    CASE("reduce_scatter MPI_OP_NULL", -1, 1, PI_Reduce_scatter, a, b, counts, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
    CASE("reduce_scatter_block MPI_DATATYPE_NULL", -1, 1, PI_Reduce_scatter_block, a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD);
    MPI_Type_free(&two);

    /* Errors only one rank sees. */
#ifdef OPEN_MPI
    const int reduce_alias_class = MPI_ERR_ARG, nonroot_in_place_class = MPI_ERR_ARG;
#else
    const int reduce_alias_class = MPI_ERR_BUFFER, nonroot_in_place_class = MPI_ERR_BUFFER;
#endif
    int big[4000], out[4000];
    for (i = 0; i < 4000; i++) big[i] = i;
    /* int: fastred runs the call; float: the default table may hand short
     * vectors to the library (one host), which must not see the bad buffers. */
    for (int t = 0; t < 2; t++)
    for (int n = 2; n <= 4000; n += 3998) { /* short (tree) and long (ring) paths */
        MPI_Datatype ty = t ? MPI_FLOAT : MPI_INT;
        int root = p - 1;
        check_local_error("reduce aliased buffers at the root", t_rank == root, reduce_alias_class,
                          MPI_Reduce(big, big, n, ty, MPI_SUM, root, MPI_COMM_WORLD));
        check_local_error("reduce MPI_IN_PLACE on a non-root", t_rank != root, nonroot_in_place_class,
                          MPI_Reduce(MPI_IN_PLACE, out, n, ty, MPI_SUM, root, MPI_COMM_WORLD));
        check_local_error("reduce NULL receive buffer at the root", t_rank == root, MPI_ERR_BUFFER,
                          MPI_Reduce(big, t_rank == root ? NULL : out, n, ty, MPI_SUM, root, MPI_COMM_WORLD));
        check_local_error("allreduce NULL send buffer on rank 0", t_rank == 0, MPI_ERR_BUFFER,
                          MPI_Allreduce(t_rank == 0 ? NULL : big, out, n, ty, MPI_SUM, MPI_COMM_WORLD));
        check_local_error("reduce_scatter_block aliased on rank 0", t_rank == 0, MPI_ERR_BUFFER,
                          MPI_Reduce_scatter_block(big, t_rank == 0 ? big : out, n / p + 1, ty, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; i < 4000; i++) big[i] = i;
    }

    /* The communicator's own handler is the one invoked, once per failing call. */
    MPI_Comm dup;
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(counting_handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    int rc = MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, dup);
    CHECK(handler_calls == 1, "error handler called %d times for a negative count (rc %d)", handler_calls, rc);
    handler_calls = 0;
    rc = MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, p + 3, dup);
    CHECK(handler_calls == 1, "error handler called %d times for a bad root (rc %d)", handler_calls, rc);
    /* A valid call on the same communicator still works and calls no handler. */
    handler_calls = 0;
    rc = MPI_Allreduce(a, b, 8, MPI_INT, MPI_SUM, dup);
    CHECK(rc == MPI_SUCCESS && handler_calls == 0 && b[7] == 8 * p, "valid call after errors: rc %d b[7] %d", rc, b[7]);
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);
    return finish("errors");
}
