/* MPI_Reduce_scatter with MPI_IN_PLACE and the block counts given as
 * arguments, handed to the MPI library (run with FASTRED_ALGO=native).
 * MPICH 4.0.2's own MPI_Reduce_scatter stops on an internal assertion
 * ("memcpy argument memory ranges overlap") in place for long vectors with
 * unequal blocks, e.g. counts 35312 35313; fastred hands it a copy of the
 * receive buffer as the send buffer instead, which it handles. Then
 * MPI_Reduce_scatter_block of the first count, in place, as well, and
 * MPI_Reduce of all counts in place at the last rank and at rank 0: MPICH
 * 4.0.2's own MPI_Reduce segfaults in place at a root other than 0 for
 * vectors over about 2.8 KB, and gets the same copy. */
#include "common.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int *counts = calloc(t_size, sizeof(int)), total = 0, offset = 0;
    for (int i = 0; i < t_size; i++) {
        counts[i] = argc > 1 + i ? atoi(argv[1 + i]) : 1000;
        if (i < t_rank) offset += counts[i];
        total += counts[i];
    }
    double *v = malloc(sizeof(double) * (total + 1));
    for (int i = 0; i < total; i++) v[i] = i + t_rank;
    CHECK(MPI_Reduce_scatter(MPI_IN_PLACE, v, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "reduce_scatter failed");
    for (int i = 0; i < counts[t_rank]; i++)
        if (v[i] != t_size * (double)(offset + i) + t_size * (t_size - 1) / 2.0) {
            CHECK(0, "reduce_scatter element %d: %g", i, v[i]);
            break;
        }
    v = realloc(v, sizeof(double) * ((size_t)counts[0] * t_size + 1));
    for (int i = 0; i < counts[0] * t_size; i++) v[i] = i + t_rank;
    CHECK(MPI_Reduce_scatter_block(MPI_IN_PLACE, v, counts[0], MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "reduce_scatter_block failed");
    for (int i = 0; i < counts[0]; i++)
        if (v[i] != t_size * (double)(t_rank * counts[0] + i) + t_size * (t_size - 1) / 2.0) {
            CHECK(0, "reduce_scatter_block element %d: %g", i, v[i]);
            break;
        }
    v = realloc(v, sizeof(double) * (total + 1));
    int roots[2] = {t_size - 1, 0};
    for (int r = 0; r < (t_size > 1 ? 2 : 1); r++) {
        int root = roots[r];
        for (int i = 0; i < total; i++) v[i] = i + t_rank;
        int rc = t_rank == root ? MPI_Reduce(MPI_IN_PLACE, v, total, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD)
                                : MPI_Reduce(v, NULL, total, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "reduce at root %d failed", root);
        for (int i = 0; t_rank == root && i < total; i++)
            if (v[i] != t_size * (double)i + t_size * (t_size - 1) / 2.0) {
                CHECK(0, "reduce at root %d element %d: %g", root, i, v[i]);
                break;
            }
    }
    free(v);
    free(counts);
    return finish("in_place_library");
}
