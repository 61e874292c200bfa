/* Exchange steps sent in pieces end delivered (src/transport/pmpi.rs,
 * `sendrecv`): run with tests/mpi/count_pmpi.c's probe preloaded ahead of
 * fastred, on pretended hosts (FAKE_NODES = np, so every peer is on another
 * host) and FASTRED_PIECE=4K, np 3:
 *  - the pairwise allreduce makes 2(p-1) exchange steps, each of one block
 *    of ~53 KB (several pieces): exactly one synchronous send (its last
 *    piece) per step on Open MPI, none on MPICH (which sends pieces one
 *    blocking call at a time, and long messages by rendezvous);
 *  - the binomial-tree reduce sends with plain sends, which stay eager: none;
 *  - both results exact.
 * usage: step_sync EXPECTED_ISSENDS_PER_EXCHANGE_STEP (1 Open MPI, 0 MPICH) */
#include "common.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    long per_step = argc > 1 ? atol(argv[1]) : 1;
    long (*issends)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "count_issend_calls");
    fastred_api api = fastred_lookup();
    CHECK(issends != NULL, "the PMPI_Issend probe (libcount_pmpi.so) is not preloaded");
    CHECK(api.force != NULL, "fastred is not loaded");
    if (!issends || !api.force) return finish("step_sync");

    enum { N = 20000 }; /* 160 000 B: blocks of ~53 KB, 14 pieces of 4 KiB */
    double *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    for (int i = 0; i < N; i++) in[i] = t_rank + i;
    int p = t_size;
    double want_base = p * (p - 1) / 2.0; /* sum of ranks */

    CHECK(api.force("allreduce:pairwise,reduce:tree") == 0, "fastred_force refused");
    long before = issends();
    MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    long steps = 2L * (p - 1);
    long got = issends() - before;
    CHECK(got == per_step * steps, "pairwise allreduce on %d processes: %ld synchronous sends, expected %ld (%ld per exchange step)",
          p, got, per_step * steps, per_step);
    for (int i = 0; i < N; i++)
        if (out[i] != want_base + (double)p * i) { CHECK(0, "allreduce element %d: %g", i, out[i]); break; }

    before = issends();
    MPI_Reduce(in, out, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    got = issends() - before;
    CHECK(got == 0, "binomial-tree reduce: %ld synchronous sends, expected none (plain sends stay eager)", got);
    if (t_rank == 0)
        for (int i = 0; i < N; i++)
            if (out[i] != want_base + (double)p * i) { CHECK(0, "reduce element %d: %g", i, out[i]); break; }
    api.force(NULL);
    if (t_rank == 0) printf("step_sync: %ld synchronous sends per exchange step\n", per_step);
    free(in);
    free(out);
    return finish("step_sync");
}
