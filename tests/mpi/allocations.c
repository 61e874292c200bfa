/*
 * The per-call path allocates nothing: on a communicator fastred has seen,
 * after warm-up calls of the same kind (WARMUP: a communicator gets its
 * shared memory segment, once, after 16 calls that chose the shared-memory
 * algorithm), a loop of calls of every collective
 * fastred runs without a user op (allreduce, reduce, reduce_scatter with
 * equal counts, reduce_scatter_block),
 * every algorithm that implements it (forced with fastred_force) and the
 * default choice, at several sizes, leaves fastred_allocations() unchanged;
 * so does a loop that takes the sizes in turn (a communicator keeps its last
 * few decisions per collective, so no size is decided again).
 */
#include "common.h"

/* One call of collective c (0-3 as in coll_names) on n doubles per block. */
static void reduce_once(int c, int n, const double *in, double *out, int *counts, int root, MPI_Comm comm) {
    if (c == 0) MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, comm);
    else if (c == 1) MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, root, comm);
    else if (c == 2) {
        for (int r = 0; r < t_size; r++) counts[r] = n;
        MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, comm);
    } else MPI_Reduce_scatter_block(in, out, n, MPI_DOUBLE, MPI_SUM, comm);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    fastred_api api = fastred_lookup();
    CHECK(api.force && api.allocations, "fastred's C API not found");
    if (!(api.force && api.allocations)) return finish("allocations");
    const char *coll_names[] = {"allreduce", "reduce", "reduce_scatter", "reduce_scatter_block"};
    const int colls[] = {0, 1, 2, 3};
    int *counts = malloc(sizeof(int) * t_size);
    const long sizes[] = {1, 500, 40000}; /* doubles: 8 B, 4 KB, 320 KB */
    enum { CALLS = 20, WARMUP = 17 };
    long biggest = sizes[2] * t_size;
    double *in = malloc(sizeof(double) * biggest), *out = malloc(sizeof(double) * biggest);
    for (long i = 0; i < biggest; i++) in[i] = t_rank + i;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int algorithms = api.algorithms, checked = 0;
    for (unsigned k = 0; k < sizeof colls / sizeof colls[0]; k++) {
        int c = colls[k];
        for (int a = -1; a < algorithms; a++) { /* -1: the default choice */
            if (a == 0 || (a > 0 && !api.implements(c, a))) continue; /* 0: native */
            char spec[96];
            snprintf(spec, sizeof spec, "%s:%s", coll_names[c], a < 0 ? "" : api.algorithm_name(a));
            api.force(a < 0 ? NULL : spec);
            for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                int n = (int)sizes[s], root = t_size - 1;
                uint64_t before = 0;
                for (int i = 0; i < WARMUP + CALLS; i++) {
                    if (i == WARMUP) before = api.allocations(); /* after the warm-up calls */
                    reduce_once(c, n, in, out, counts, root, comm);
                }
                uint64_t made = api.allocations() - before;
                CHECK(made == 0, "%s of %d doubles with %s: %llu allocations in %d calls", coll_names[c], n,
                      a < 0 ? "the default choice" : api.algorithm_name(a), (unsigned long long)made, CALLS);
                double want = t_size * (double)(c >= 2 ? t_rank * n : 0) + t_size * (t_size - 1) / 2.0;
                if (c != 1 || t_rank == root) CHECK(out[0] == want, "%s with %s: wrong result %g", coll_names[c], spec, out[0]);
                checked++;
            }
        }
    }
    api.force(NULL);
    /* The sizes in turn, the default choice, on a fresh communicator. */
    MPI_Comm turns;
    MPI_Comm_dup(MPI_COMM_WORLD, &turns);
    for (unsigned k = 0; k < sizeof colls / sizeof colls[0]; k++) {
        int c = colls[k];
        uint64_t before = 0;
        for (int i = 0; i < WARMUP + CALLS; i++) {
            if (i == WARMUP) before = api.allocations();
            for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) reduce_once(c, (int)sizes[s], in, out, counts, t_size - 1, turns);
        }
        uint64_t made = api.allocations() - before;
        CHECK(made == 0, "%s of 1, 500 and 40000 doubles in turn: %llu allocations in %d rounds", coll_names[c], (unsigned long long)made, CALLS);
        checked++;
    }
    MPI_Comm_free(&turns);
    if (t_rank == 0) printf("allocations: %d cases checked\n", checked);
    MPI_Comm_free(&comm);
    free(in);
    free(out);
    free(counts);
    return finish("allocations");
}
