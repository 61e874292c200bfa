/*
 * Per-call latency of back-to-back 8-byte MPI_Allreduce (as the OSU/IMB
 * latency tests time them: many calls per timing), through fastred (MPI_*)
 * and through the library alone (PMPI_*), alternating in batches of one run.
 * With FASTRED_ALGO=recursive_doubling, fastred's point-to-point work at
 * p = 2 is one PMPI_Sendrecv and an add, timed too ("p2p"): fastred minus
 * p2p is the interception overhead.
 * With DOUBLES, allreduces of those counts of doubles in turn instead (a
 * solver's dot products and longer reductions; no p2p timing).
 * usage: latency [CALLS_PER_BATCH [BATCHES [DOUBLES...]]]   prints medians in µs per call
 *   e.g. latency 2000 21 1 2     (1 double, then 2, then 1, ...)
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
    int calls = argc > 1 ? atoi(argv[1]) : 20000, batches = argc > 2 ? atoi(argv[2]) : 21;
    int kinds = argc > 3 ? argc - 3 : 1, most = 1, in_turn = argc > 3;
    int *n = malloc(sizeof(int) * kinds);
    n[0] = 1;
    for (int k = 0; k < kinds && in_turn; k++) n[k] = atoi(argv[3 + k]), most = n[k] > most ? n[k] : most;
    MPI_Comm comm, p2p;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &p2p);
    double *in = malloc(sizeof(double) * most), *out = malloc(sizeof(double) * most), got;
    for (int i = 0; i < most; i++) in[i] = rank + 1;
    double *t[3];
    for (int k = 0; k < 3; k++) t[k] = malloc(sizeof(double) * batches);
    for (int k = 0; k < kinds; k++) MPI_Allreduce(in, out, n[k], MPI_DOUBLE, MPI_SUM, comm); /* set-up outside the timing */
    for (int b = 0; b < batches; b++) {
        for (int k = 0; k < 3; k++) {
            PMPI_Barrier(MPI_COMM_WORLD);
            double start = MPI_Wtime();
            for (int i = 0; i < calls; i++) {
                int count = n[i % kinds];
                if (k == 0) PMPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
                else if (k == 1) MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
                else if (size == 2 && !in_turn) { /* what recursive doubling does at p = 2 */
                    PMPI_Sendrecv(in, 8, MPI_BYTE, 1 - rank, 7, &got, 8, MPI_BYTE, 1 - rank, 7, p2p, MPI_STATUS_IGNORE);
                    out[0] = rank == 0 ? in[0] + got : got + in[0];
                }
            }
            t[k][b] = (MPI_Wtime() - start) / calls * 1e6;
        }
    }
    for (int k = 0; k < 3; k++) qsort(t[k], batches, sizeof(double), cmp);
    double med[3] = {t[0][batches / 2], t[1][batches / 2], t[2][batches / 2]};
    PMPI_Allreduce(MPI_IN_PLACE, med, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && in_turn) {
        printf("allreduce of");
        for (int k = 0; k < kinds; k++) printf(" %d", n[k]);
        printf(" doubles in turn, %d processes, %d calls x %d batches, median us/call: native %.3f  fastred %.3f  (fastred/native = %.2f)\n",
               size, calls, batches, med[0], med[1], med[1] / med[0]);
    } else if (rank == 0)
        printf("8-byte allreduce, %d processes, %d calls x %d batches, median us/call: native %.3f  fastred %.3f  p2p %.3f  "
               "(fastred - p2p = %.3f us; fastred/native = %.2f)\n",
               size, calls, batches, med[0], med[1], med[2], med[1] - med[2], med[1] / med[0]);
    MPI_Comm_free(&comm);
    MPI_Comm_free(&p2p);
    MPI_Finalize();
    return 0;
}
