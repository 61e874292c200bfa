/*
 * Back-to-back MPI_Allreduce of a few sizes in turn (a solver's dot products
 * and longer reductions), through fastred (MPI_*) and through the library
 * alone (PMPI_*), alternating in batches of one run; prints the medians.
 * usage: sizes_in_turn CALLS_PER_BATCH BATCHES DOUBLES...
 *   e.g. sizes_in_turn 2000 21 1 2     (1 double, then 2, then 1, ...)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: sizes_in_turn CALLS_PER_BATCH BATCHES DOUBLES...\n");
        MPI_Finalize();
        return 2;
    }
    int calls = atoi(argv[1]), batches = atoi(argv[2]), kinds = argc - 3, most = 1;
    int *n = malloc(sizeof(int) * kinds);
    for (int k = 0; k < kinds; k++) n[k] = atoi(argv[3 + k]), most = n[k] > most ? n[k] : most;
    double *in = calloc(most, sizeof(double)), *out = calloc(most, sizeof(double));
    double *t[2] = {malloc(sizeof(double) * batches), malloc(sizeof(double) * batches)};
    for (int b = 0; b < batches; b++) {
        for (int via = 0; via < 2; via++) {
            PMPI_Barrier(MPI_COMM_WORLD);
            double start = MPI_Wtime();
            for (int i = 0; i < calls; i++) {
                int c = n[i % kinds];
                if (via) MPI_Allreduce(in, out, c, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                else PMPI_Allreduce(in, out, c, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            }
            t[via][b] = (MPI_Wtime() - start) / calls * 1e6;
        }
    }
    for (int via = 0; via < 2; via++) qsort(t[via], batches, sizeof(double), cmp);
    double med[2] = {t[0][batches / 2], t[1][batches / 2]};
    PMPI_Allreduce(MPI_IN_PLACE, med, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("allreduce of");
        for (int k = 0; k < kinds; k++) printf(" %d", n[k]);
        printf(" doubles in turn, %d processes, median us/call: native %.3f  fastred %.3f  (fastred/native = %.2f)\n", size, med[0],
               med[1], med[1] / med[0]);
    }
    MPI_Finalize();
    return 0;
}
