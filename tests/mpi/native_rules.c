/* The MPI library's own MPI_Allreduce and MPI_Reduce_scatter (run without
 * fastred), for checking that a selection file fastred exported is loaded:
 * `native_rules N [allreduce|reduce_scatter]` reduces N doubles with both
 * (or the one named) and checks the results. The
 * runner reads the library's own account of what it sent (Open MPI's pml
 * monitoring) or its parse of the file (MPICH). */
#include "common.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    int *counts = malloc(sizeof(int) * t_size), offset = 0;
    for (int i = 0; i < n; i++) a[i] = i + t_rank;
    for (int r = 0; r < t_size; r++) {
        counts[r] = n / t_size + (r < n % t_size);
        if (r < t_rank) offset += counts[r];
    }
    const char *only = argc > 2 ? argv[2] : "";
    if (strcmp(only, "reduce_scatter") != 0) {
        CHECK(MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "allreduce failed");
        CHECK(b[n - 1] == t_size * (n - 1.0) + t_size * (t_size - 1) / 2.0, "allreduce: %g", b[n - 1]);
    }
    if (strcmp(only, "allreduce") != 0) {
        CHECK(MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "reduce_scatter failed");
        CHECK(counts[t_rank] == 0 || b[0] == t_size * (double)offset + t_size * (t_size - 1) / 2.0, "reduce_scatter: %g", b[0]);
    }
    free(a); free(b); free(counts);
    return finish("native_rules");
}
