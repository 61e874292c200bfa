/* A small MPI program using all four reduction collectives; prints checksums
 * of the results so runs with and without fastred can be compared. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long checksum(const long *v, int n) {
    unsigned long h = 1469598103934665603ul;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned long)v[i]) * 1099511628211ul;
    return h;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int sizes[] = {1, 100, 100000};
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        long *in = malloc(sizeof(long) * n * p), *out = malloc(sizeof(long) * n * p);
        int *counts = malloc(sizeof(int) * p);
        for (int i = 0; i < n * p; i++) in[i] = (long)(rank + 1) * (i % 1000) - i / 7;
        for (int i = 0; i < p; i++) counts[i] = n / 2 + i;
        MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        unsigned long a = checksum(out, n);
        MPI_Reduce(in, out, n, MPI_LONG, MPI_MAX, p - 1, MPI_COMM_WORLD);
        unsigned long b = rank == p - 1 ? checksum(out, n) : 0;
        MPI_Reduce_scatter_block(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        unsigned long c = checksum(out, n);
        MPI_Reduce_scatter(in, out, counts, MPI_LONG, MPI_BXOR, MPI_COMM_WORLD);
        unsigned long d = checksum(out, counts[rank]);
        unsigned long all[4] = {a, b, c, d}, sum[4];
        MPI_Allreduce(all, sum, 4, MPI_UNSIGNED_LONG, MPI_BXOR, MPI_COMM_WORLD);
        if (rank == 0)
            printf("n=%-6d checksum allreduce %016lx reduce %016lx reduce_scatter_block %016lx reduce_scatter %016lx\n", n,
                   sum[0], sum[1], sum[2], sum[3]);
        free(in); free(out); free(counts);
    }
    MPI_Finalize();
    return 0;
}
