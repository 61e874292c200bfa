/* Built against an installed fastred through pkg-config (tests/install_test.sh):
 * `mpicc linked.c $(pkg-config --cflags --libs fastred-<mpi>)`. It calls
 * fastred's C API directly (so it links only if the .pc file's flags are
 * right) and checks that its MPI_Allreduce ran in fastred. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "fastred.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double v[1000], sum[1000];
    for (int i = 0; i < 1000; i++) v[i] = rank + i;
    MPI_Allreduce(v, sum, 1000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int ok = sum[999] == size * 999.0 + size * (size - 1) / 2.0;
    FastredCounters c;
    uint64_t own = fastred_own_calls(0);
    int last = fastred_last_algorithm(0);
    ok = ok && own == 1 && last > 0 && fastred_counters(0, last, &c) == 0 && c.calls == 1;
    if (rank == 0)
        printf("linked: fastred %s (%s build), allreduce ran %s: %s\n", fastred_version(), fastred_mpi_flavour(),
               last >= 0 ? fastred_algorithm_name(last) : "nothing", ok ? "OK" : "FAILED");
    MPI_Finalize();
    return ok ? 0 : 1;
}
