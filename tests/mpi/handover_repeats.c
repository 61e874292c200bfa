/*
 * Repeats of calls handed to the library. A program whose MPI calls are
 * serialized (below MPI_THREAD_MULTIPLE) has, per collective, its last call
 * handed to the library with ordinary buffers remembered; an identical call
 * goes straight to the library. This checks, with the table
 * tests/mpi/handover_repeats.table (FASTRED_TUNING), under which the short
 * floating-point calls below are handed over and the others run by fastred,
 * that after a run of hand-overs every argument change that changes the
 * decision is seen, on every collective, interleaved:
 *   count, datatype, op (a user-defined one), communicator (MPI_COMM_SELF);
 * that invalid buffers after hand-overs still get fastred's own error (a NULL
 * send buffer, which Open MPI 4.1 would crash on; aliased buffers), and
 * MPI_IN_PLACE still gives the right result; that a freed communicator's
 * handle, coming back, is decided afresh; and that fastred_fallback_calls
 * counts every hand-over exactly. Every result is checked.
 * usage: handover_repeats       (with FASTRED_TUNING=tests/mpi/handover_repeats.table)
 */
#include "common.h"

enum { ALLREDUCE, REDUCE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK };
static const char *coll_name[] = {"allreduce", "reduce", "reduce_scatter", "reduce_scatter_block"};

static fastred_api api;

/* A commutative user-defined sum of doubles (the table runs user ops itself). */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    for (int i = 0; i < *len; i++) ((double *)inout)[i] += ((double *)in)[i];
}

/* One call of collective c of `count` elements per rank's block (allreduce
 * and reduce: the whole vector) on comm, with rank r's input element k being
 * (r + 1) * (k + 1); checks the result and returns the call's return code.
 * type is MPI_DOUBLE or MPI_INT. in_place: MPI_IN_PLACE where MPI allows it. */
static int one_call(int c, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op, int root, int in_place, const char *what) {
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int total = c >= REDUCE_SCATTER ? count * p : count, mine = c >= REDUCE_SCATTER ? count : total;
    double *in = malloc(sizeof(double) * (total + 1)), *out = malloc(sizeof(double) * (total + 1));
    int *iin = (int *)in, *iout = (int *)out;
    for (int k = 0; k < total; k++) {
        if (type == MPI_INT) iin[k] = (r + 1) * (k + 1);
        else in[k] = (r + 1) * (k + 1);
    }
    int first = c >= REDUCE_SCATTER ? r * count : 0;
    int *counts = malloc(sizeof(int) * p);
    for (int q = 0; q < p; q++) counts[q] = count;
    int place = in_place && (c != REDUCE || r == root);
    if (place) memcpy(out, in, sizeof(double) * (total + 1));
    const void *send = place ? MPI_IN_PLACE : (void *)in;
    int rc;
    switch (c) {
    case ALLREDUCE: rc = MPI_Allreduce(send, out, count, type, op, comm); break;
    case REDUCE: rc = MPI_Reduce(send, r == root ? out : NULL, count, type, op, root, comm); break;
    case REDUCE_SCATTER: rc = MPI_Reduce_scatter(send, out, counts, type, op, comm); break;
    default: rc = MPI_Reduce_scatter_block(send, out, count, type, op, comm); break;
    }
    if (rc == MPI_SUCCESS && (c != REDUCE || r == root)) {
        double sum = p * (p + 1) / 2.0;
        for (int k = 0; k < mine; k++) {
            double got = type == MPI_INT ? iout[k] : out[k];
            CHECK(got == sum * (first + k + 1), "%s (%s), element %d: got %g, want %g", coll_name[c], what, k, got, sum * (first + k + 1));
        }
    }
    CHECK(rc == MPI_SUCCESS, "%s (%s): rc %d", coll_name[c], what, rc);
    free(counts);
    free(in);
    free(out);
    return rc;
}

/* The algorithm the last call of collective c ran, by name. */
static const char *ran(int c) {
    const char *name = api.algorithm_name(api.last_algorithm(c));
    return name ? name : "?";
}

/* `reps` handed-over calls of c (one double per block on comm), then the
 * changed call `changed` must run `want`, then the handed-over call again. */
#define AFTER_HANDOVERS(c, reps, changed_call, want, what)                                                            \
    do {                                                                                                              \
        for (int i = 0; i < (reps); i++) {                                                                            \
            one_call(c, MPI_COMM_WORLD, 1, MPI_DOUBLE, MPI_SUM, 0, 0, "handed over");                                 \
            CHECK(!strcmp(ran(c), "native"), "%s of one double ran %s, not native (the test table is not in use?)",   \
                  coll_name[c], ran(c));                                                                              \
        }                                                                                                             \
        changed_call;                                                                                                 \
        CHECK(!strcmp(ran(c), want), "%s after %d hand-overs, %s: ran %s, want %s", coll_name[c], reps, what, ran(c), \
              want);                                                                                                  \
        one_call(c, MPI_COMM_WORLD, 1, MPI_DOUBLE, MPI_SUM, 0, 0, "handed over again");                               \
        CHECK(!strcmp(ran(c), "native"), "%s handed over after %s: ran %s", coll_name[c], what, ran(c));              \
    } while (0)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    api = fastred_lookup();
    if (!api.last_algorithm || !api.algorithm_name || t_size < 2) {
        if (t_rank == 0) printf("handover_repeats: needs fastred loaded and 2 processes or more\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Op sum_op;
    MPI_Op_create(user_sum, 1, &sum_op);
    const char *own[] = {"recursive_doubling", "tree", "pairwise", "pairwise"};

    for (int c = ALLREDUCE; c <= REDUCE_SCATTER_BLOCK; c++) {
        /* Each argument that changes the decision, after 4 hand-overs (the
         * third is the first to take the shortcut). */
        AFTER_HANDOVERS(c, 4, one_call(c, MPI_COMM_WORLD, 40, MPI_DOUBLE, MPI_SUM, 0, 0, "40 doubles"), own[c], "count 40");
        AFTER_HANDOVERS(c, 4, one_call(c, MPI_COMM_WORLD, 1, MPI_INT, MPI_SUM, 0, 0, "int"), own[c], "an int");
        AFTER_HANDOVERS(c, 4, one_call(c, MPI_COMM_WORLD, 1, MPI_DOUBLE, sum_op, 0, 0, "user op"), own[c], "a user op");
        AFTER_HANDOVERS(c, 4, one_call(c, MPI_COMM_SELF, 1, MPI_DOUBLE, MPI_SUM, 0, 0, "MPI_COMM_SELF"), own[c], "MPI_COMM_SELF");
        /* In place (handed over too: results checked). */
        AFTER_HANDOVERS(c, 4, one_call(c, MPI_COMM_WORLD, 1, MPI_DOUBLE, MPI_SUM, 0, 1, "MPI_IN_PLACE"), "native", "MPI_IN_PLACE");
        /* Interleaved with another collective's hand-overs and own calls. */
        int other = (c + 1) % 4;
        for (int i = 0; i < 4; i++) {
            one_call(c, MPI_COMM_WORLD, 1, MPI_DOUBLE, MPI_SUM, 0, 0, "interleaved");
            CHECK(!strcmp(ran(c), "native"), "%s interleaved with %s: ran %s", coll_name[c], coll_name[other], ran(c));
            one_call(other, MPI_COMM_WORLD, 1, MPI_DOUBLE, MPI_SUM, 0, 0, "interleaved");
            one_call(other, MPI_COMM_WORLD, 40, MPI_DOUBLE, MPI_SUM, 0, 0, "interleaved");
            CHECK(!strcmp(ran(other), own[other]), "%s interleaved with %s: ran %s", coll_name[other], coll_name[c], ran(other));
        }
    }

    /* Reduce: every root in turn, non-roots passing NULL receive buffers. */
    for (int root = 0; root < t_size; root++)
        for (int i = 0; i < 4; i++) one_call(REDUCE, MPI_COMM_WORLD, 1, MPI_DOUBLE, MPI_SUM, root, 0, "rotating root");

    /* Invalid buffers after hand-overs: fastred's error, never the library's
     * crash; the next call works. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double x = t_rank + 1, y = 0;
    for (int i = 0; i < 4; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int rc = MPI_Allreduce(NULL, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "allreduce with a NULL send buffer after hand-overs: rc %d class %d", rc, cls);
    for (int i = 0; i < 4; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    rc = MPI_Allreduce(&y, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "allreduce with aliased buffers after hand-overs: rc %d class %d", rc, cls);
    y = 0;
    rc = MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && y == t_size * (t_size + 1) / 2.0, "allreduce after the errors: rc %d, %g", rc, y);

    /* A communicator freed after hand-overs, its handle coming back for one of
     * another size: decided afresh (on 2 processes the halves have one
     * process each, which the table gives to fastred). */
    for (int round = 0; round < 6; round++) {
        MPI_Comm a;
        if (round % 2) MPI_Comm_dup(MPI_COMM_WORLD, &a);
        else MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &a);
        int p;
        MPI_Comm_size(a, &p);
        for (int i = 0; i < 4; i++) {
            one_call(ALLREDUCE, a, 1, MPI_DOUBLE, MPI_SUM, 0, 0, "reused handle");
            CHECK(!strcmp(ran(ALLREDUCE), p == 1 ? own[ALLREDUCE] : "native"), "allreduce on %d processes (round %d): ran %s", p, round, ran(ALLREDUCE));
        }
        MPI_Comm_free(&a);
    }

    /* Every hand-over is counted, the shortcut's too. */
    uint64_t before = fastred_count("fastred_fallback_calls", ALLREDUCE);
    for (int i = 0; i < 1000; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    uint64_t after = fastred_count("fastred_fallback_calls", ALLREDUCE);
    CHECK(after - before == 1000, "1000 hand-overs counted as %llu", (unsigned long long)(after - before));

    MPI_Op_free(&sum_op);
    return finish("handover_repeats");
}
