/*
 * fastred's internal messages travel on a private duplicate of the user's
 * communicator: a user receive posted with MPI_ANY_SOURCE / MPI_ANY_TAG
 * before the collectives must not match any of them, and must still receive
 * the user's own message afterwards.
 */
#include "common.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int p = t_size, i, slot[2] = {-1, -1}, flag = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(slot, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);

    enum { N = 5000 };
    static int in[N * 16], out[N * 16], counts[64];
    for (i = 0; i < N * p; i++) in[i] = t_rank + i;
    for (int round = 0; round < 3; round++) {
        int n = round == 0 ? 3 : N; /* short (tree-like) and long (ring) paths */
        MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (i = 0; i < n; i++) CHECK(out[i] == p * (p - 1) / 2 + p * i, "allreduce[%d] = %d", i, out[i]);
        MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, p - 1, MPI_COMM_WORLD);
        if (t_rank == p - 1) for (i = 0; i < n; i++) CHECK(out[i] == p * (p - 1) / 2 + p * i, "reduce[%d]", i);
        MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (i = 0; i < n; i++) CHECK(out[i] == p * (p - 1) / 2 + p * (t_rank * n + i), "reduce_scatter_block[%d]", i);
        for (i = 0; i < p; i++) counts[i] = n / 2 + i;
        MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Test(&req, &flag, &st);
    PMPI_Barrier(MPI_COMM_WORLD); /* nobody sends the user message before everyone tested */
    CHECK(!flag, "the user's wildcard receive matched an internal message (source %d tag %d)", st.MPI_SOURCE, st.MPI_TAG);

    int msg[2] = {t_rank, 42};
    MPI_Send(msg, 2, MPI_INT, (t_rank + 1) % p, 7, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    CHECK(slot[0] == (t_rank + p - 1) % p && slot[1] == 42 && st.MPI_TAG == 7, "user message garbled: %d %d tag %d", slot[0], slot[1], st.MPI_TAG);
    if (fastred_loaded()) CHECK(fastred_count("fastred_own_calls", 0) >= 3, "fastred did not run the allreduces");
    return finish("isolation");
}
