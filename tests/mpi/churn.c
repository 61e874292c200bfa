/*
 * Communicator churn: dup (or split), one 4-byte allreduce, free, in a loop.
 *  - time: the cycle through fastred (MPI_*) against the same cycle through
 *    the library alone (PMPI_*), in alternating batches of the same run; the
 *    ratio of the best batches (robust to other load on the machine, which
 *    only ever adds time) or the median of the per-batch ratios must stay
 *    within argv[2] (default 3): a test fails only if both exceed it, since
 *    either one alone can stray on a loaded machine;
 *  - memory: the resident set after many cycles may not grow by more than
 *    argv[3] KiB (default 4096) over what it was after the first batch;
 *  - results: every allreduce is checked;
 *  - exchanges: with tests/mpi/count_pmpi.c's probe preloaded ahead of
 *    fastred, its cycles call PMPI_Allgather (the exchange of host names)
 *    not once: a communicator made for one short integer reduction needs
 *    no hosts (where only the shared-memory algorithm's rules would, it
 *    is not asked before a communicator's 16th call).
 *  - a communicator kept for many such calls still gets there: with the
 *    probe, its first 15 calls exchange nothing, and by its 20th it has
 *    made two PMPI_Allgather calls (the host names, then every rank's
 *    consent to the shared segment) and runs the shared-memory algorithm
 *    (the table's choice for short vectors with every rank on one host).
 * usage: churn CYCLES [MAX_RATIO [MAX_GROWTH_KIB]]
 */
#include "common.h"

/* One cycle: make a communicator, reduce on it, free it; through fastred
 * (MPI_*) or the library alone (PMPI_*). */
static void cycle(int through_fastred, int split) {
    MPI_Comm c;
    int in = t_rank + 1, out = 0;
    if (through_fastred) {
        if (split) MPI_Comm_split(MPI_COMM_WORLD, 0, t_size - t_rank, &c);
        else MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, c);
        MPI_Comm_free(&c);
    } else {
        if (split) PMPI_Comm_split(MPI_COMM_WORLD, 0, t_size - t_rank, &c);
        else PMPI_Comm_dup(MPI_COMM_WORLD, &c);
        PMPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, c);
        PMPI_Comm_free(&c);
    }
    CHECK(out == t_size * (t_size + 1) / 2, "allreduce on a new communicator: %d", out);
}

/* 20 calls of the cycle's allreduce on one communicator (see the top). */
static void kept_communicator(long (*allgathers)(void)) {
    fastred_api api = fastred_lookup();
    if (!allgathers || !api.last_algorithm || !api.algorithm_name) return;
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    long before = allgathers();
    int in = t_rank + 1, out = 0;
    for (int call = 1; call <= 20; call++) {
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, c);
        CHECK(out == t_size * (t_size + 1) / 2, "allreduce %d on a kept communicator: %d", call, out);
        if (call == 15) CHECK(allgathers() == before, "a kept communicator made PMPI_Allgather calls within its first 15 calls");
    }
    int index = api.last_algorithm(0); /* 0: allreduce */
    const char *algorithm = index >= 0 ? api.algorithm_name(index) : NULL;
    if (t_rank == 0) printf("churn (kept): %ld PMPI_Allgather calls in 20 calls, then %s\n", allgathers() - before, algorithm ? algorithm : "?");
    CHECK(allgathers() - before == 2, "a kept communicator made %ld PMPI_Allgather calls in 20 calls (2: host names, segment)", allgathers() - before);
    CHECK(algorithm && !strcmp(algorithm, "shared_memory"), "a kept communicator's 20th short allreduce ran %s", algorithm ? algorithm : "?");
    MPI_Comm_free(&c);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int cycles = argc > 1 ? atoi(argv[1]) : 2000;
    double max_ratio = argc > 2 ? atof(argv[2]) : 3.0;
    long max_growth = argc > 3 ? atol(argv[3]) : 4096;
    enum { BATCHES = 20 };
    int per_batch = cycles / BATCHES > 0 ? cycles / BATCHES : 1;
    long (*allgathers)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "count_allgather_calls");
    for (int split = 0; split <= 1; split++) {
        double ratio[BATCHES], native_us[BATCHES], fastred_us[BATCHES];
        long rss_start = 0, exchanges = 0;
        for (int b = 0; b < BATCHES; b++) {
            double t[2];
            for (int via = 0; via <= 1; via++) {
                PMPI_Barrier(MPI_COMM_WORLD);
                long before = allgathers ? allgathers() : 0;
                double start = MPI_Wtime();
                for (int i = 0; i < per_batch; i++) cycle(via, split);
                t[via] = MPI_Wtime() - start;
                if (via == 1 && allgathers) exchanges += allgathers() - before;
            }
            PMPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            native_us[b] = t[0] / per_batch * 1e6;
            fastred_us[b] = t[1] / per_batch * 1e6;
            ratio[b] = t[1] / t[0];
            if (b == 0) rss_start = proc_status_kib("VmRSS");
        }
        long growth = proc_status_kib("VmRSS") - rss_start;
        qsort(ratio, BATCHES, sizeof(double), cmp);
        qsort(native_us, BATCHES, sizeof(double), cmp);
        qsort(fastred_us, BATCHES, sizeof(double), cmp);
        double median = ratio[BATCHES / 2], best = fastred_us[0] / native_us[0];
        if (t_rank == 0)
            printf("churn (%s + 4-byte allreduce + free, %d cycles): native %.1f us, fastred %.1f us per cycle (best batches), "
                   "ratio %.2f (median of batches %.2f); resident set grew %ld KiB\n",
                   split ? "split" : "dup", per_batch * BATCHES, native_us[0], fastred_us[0], best, median, growth);
        if (t_rank == 0 && allgathers) printf("churn (%s): %ld host-name exchanges in %d fastred cycles\n", split ? "split" : "dup", exchanges, per_batch * BATCHES);
        /* Both estimators above the limit: one alone has strayed (CI, Open MPI,
         * 2026-12-06: best batches 3.10 while the median of batches was 2.26). */
        if (fastred_loaded())
            CHECK(best <= max_ratio || median <= max_ratio, "%s cycle: fastred/native = %.2f (median of batches %.2f) > %.2f",
                  split ? "split" : "dup", best, median, max_ratio);
        CHECK(exchanges == 0, "%s cycles: %ld PMPI_Allgather calls (host names exchanged for a 4-byte integer allreduce)", split ? "split" : "dup", exchanges);
        CHECK(growth <= max_growth, "%s cycles: resident set grew %ld KiB (limit %ld)", split ? "split" : "dup", growth, max_growth);
    }
    kept_communicator(allgathers);
    return finish("churn");
}
