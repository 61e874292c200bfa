/* FASTRED_STATS: run `calls` allreduces of `n` doubles (third argument
 * "reduce": reduces to rank 0) and one reduce-scatter of p blocks of n/p (third
 * argument "idle-last": on a communicator without the last rank, which makes
 * no intercepted call); the runner checks the
 * report fastred prints at MPI_Finalize against the cost formulas, and this
 * program checks the same counters through the C API (fastred_counters). */
#include "common.h"
#include "fastred.h" /* the C API's types (its functions are looked up, so the program also runs without fastred) */

typedef FastredCounters counters;
typedef int (*counters_fn)(int, int, counters *);

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int n = argc > 1 ? atoi(argv[1]) : 1024, calls = argc > 2 ? atoi(argv[2]) : 1;
    int idle_last = argc > 3 && strcmp(argv[3], "idle-last") == 0 && t_size > 1;
    int reduces = argc > 3 && strcmp(argv[3], "reduce") == 0; /* reduces to rank 0 instead of allreduces */
    MPI_Comm comm = MPI_COMM_WORLD;
    if (idle_last) {
        PMPI_Comm_split(MPI_COMM_WORLD, t_rank == t_size - 1 ? MPI_UNDEFINED : 0, t_rank, &comm);
        if (t_rank == t_size - 1) return finish("stats");
        t_size--;
    }
    double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
    for (int i = 0; i < n; i++) a[i] = t_rank + i;
    for (int k = 0; k < calls; k++) {
        if (reduces) MPI_Reduce(a, b, n, MPI_DOUBLE, MPI_SUM, 0, comm);
        else MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, comm);
    }
    /* Every element: sum over ranks r of (r + i), exact in doubles. */
    int wrong = -1;
    for (int i = 0; i < n && wrong < 0 && (!reduces || t_rank == 0); i++)
        if (b[i] != t_size * (double)i + t_size * (t_size - 1) / 2.0) wrong = i;
    CHECK(wrong < 0, "wrong sum at element %d", wrong);
    /* One reduce-scatter of p blocks of n/p doubles (the report shows its traffic too). */
    MPI_Reduce_scatter_block(a, b, n / t_size, MPI_DOUBLE, MPI_SUM, comm);
    for (int i = 0; i < n / t_size && wrong < 0; i++)
        if (b[i] != t_size * (double)(t_rank * (n / t_size) + i) + t_size * (t_size - 1) / 2.0) wrong = i;
    CHECK(wrong < 0, "wrong reduce-scatter at element %d", wrong);
    counters_fn get = (counters_fn)dlsym(RTLD_DEFAULT, "fastred_counters");
    fastred_api api = fastred_lookup();
    CHECK(get != NULL && api.force != NULL, "fastred_counters or fastred's algorithm names not found");
    if (get && api.force) {
        counters total = {0}, c;
        int algorithms = api.algorithms;
        for (int algo = 1; algo < algorithms; algo++)
            if (get(reduces ? 1 : 0, algo, &c) == 0) { total.calls += c.calls; total.user_bytes += c.user_bytes; }
        /* Bytes are counted with FASTRED_STATS set; calls always. */
        uint64_t want_bytes = getenv("FASTRED_STATS") ? (uint64_t)calls * n * sizeof(double) : 0;
        CHECK(total.calls == (uint64_t)calls && total.user_bytes == want_bytes,
              "C API counters: %llu calls, %llu bytes", (unsigned long long)total.calls, (unsigned long long)total.user_bytes);
        CHECK(get(7, 0, &c) == -1 && get(0, algorithms, &c) == -1 && get(0, 0, NULL) == -1, "bad indices accepted");
    }
    free(a); free(b);
    if (idle_last) { MPI_Comm_free(&comm); t_size++; }
    return finish("stats");
}
