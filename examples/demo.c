/* A small MPI program using all four reduction collectives. Rank 0 prints a
 * checksum of every rank's results, so runs with and without fastred can be
 * compared line by line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long checksum(const long *v, int n, unsigned long h) {
    for (int i = 0; i < n; i++) h = (h ^ (unsigned long)v[i]) * 1099511628211ul;
    return h;
}

/* Fold every rank's value into one checksum at rank 0 (MPI_Gather is not intercepted). */
static unsigned long over_ranks(unsigned long mine, int rank, int p) {
    unsigned long *all = malloc(sizeof(unsigned long) * p), h = 1469598103934665603ul;
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG, all, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) h = checksum((const long *)all, p, h);
    free(all);
    return h;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int sizes[] = {1, 100, 100000};
    for (int s = 0; s < 3; s++) {
        int n = sizes[s], total = 0;
        int *counts = malloc(sizeof(int) * p);
        for (int i = 0; i < p; i++) total += counts[i] = n / 2 + i;
        int len = (n * p > total ? n * p : total);
        long *in = malloc(sizeof(long) * len), *out = malloc(sizeof(long) * len);
        for (int i = 0; i < len; i++) in[i] = (long)(rank + 1) * (i % 1000) - i / 7;
        const unsigned long seed = 1469598103934665603ul;
        MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        unsigned long a = over_ranks(checksum(out, n, seed), rank, p);
        MPI_Reduce(in, out, n, MPI_LONG, MPI_MAX, p - 1, MPI_COMM_WORLD);
        unsigned long b = over_ranks(rank == p - 1 ? checksum(out, n, seed) : 0, rank, p);
        MPI_Reduce_scatter_block(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        unsigned long c = over_ranks(checksum(out, n, seed), rank, p);
        MPI_Reduce_scatter(in, out, counts, MPI_LONG, MPI_BXOR, MPI_COMM_WORLD);
        unsigned long d = over_ranks(checksum(out, counts[rank], seed), rank, p);
        if (rank == 0)
            printf("n=%-6d checksum allreduce %016lx reduce %016lx reduce_scatter_block %016lx reduce_scatter %016lx\n", n, a,
                   b, c, d);
        free(in); free(out); free(counts);
    }
    MPI_Finalize();
    return 0;
}
