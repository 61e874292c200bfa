/*
 * MPI_THREAD_MULTIPLE: THREADS threads per process, each with its own
 * communicators, concurrently creating (dup or split), using (allreduce,
 * reduce, reduce-scatter of short and long vectors, so fastred sets up state
 * and runs several algorithms in parallel threads) and freeing them.
 * usage: threads [THREADS [ROUNDS]]
 */
#include "common.h"
#include <pthread.h>

static int rounds;

static void *worker(void *arg) {
    MPI_Comm parent = *(MPI_Comm *)arg;
    int p, r, failures = 0;
    MPI_Comm_size(parent, &p);
    MPI_Comm_rank(parent, &r);
    enum { LONG = 40000 };
    double *in = malloc(LONG * sizeof(double)), *out = malloc(LONG * sizeof(double));
    for (int round = 0; round < rounds; round++) {
        MPI_Comm c;
        if (round % 2) MPI_Comm_dup(parent, &c);
        else MPI_Comm_split(parent, 0, p - r, &c); /* reversed rank order */
        int cr, n = round % 3 == 0 ? LONG : 1 + round % 97;
        MPI_Comm_rank(c, &cr);
        for (int i = 0; i < n; i++) in[i] = cr + i;
        double want_last = p * (n - 1.0) + p * (p - 1) / 2.0;
        if (MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, c) != MPI_SUCCESS || out[n - 1] != want_last) failures++;
        int root = round % p;
        memset(out, 0, sizeof(double) * (size_t)n);
        if (MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, root, c) != MPI_SUCCESS || (cr == root && out[n - 1] != want_last)) failures++;
        int block = n / p;
        if (block > 0) {
            if (MPI_Reduce_scatter_block(in, out, block, MPI_DOUBLE, MPI_SUM, c) != MPI_SUCCESS) failures++;
            else if (out[0] != p * (double)(cr * block) + p * (p - 1) / 2.0) failures++;
        }
        MPI_Comm_free(&c);
    }
    free(in);
    free(out);
    return (void *)(intptr_t)failures;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    rounds = argc > 2 ? atoi(argv[2]) : 60;
    CHECK(provided == MPI_THREAD_MULTIPLE, "the library provides thread level %d, not MPI_THREAD_MULTIPLE", provided);
    if (provided == MPI_THREAD_MULTIPLE) {
        MPI_Comm parents[16];
        pthread_t tid[16];
        if (threads > 16) threads = 16;
        for (int t = 0; t < threads; t++) MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
        for (int t = 0; t < threads; t++) pthread_create(&tid[t], NULL, worker, &parents[t]);
        for (int t = 0; t < threads; t++) {
            void *failures;
            pthread_join(tid[t], &failures);
            CHECK(failures == NULL, "thread %d: %d wrong results", t, (int)(intptr_t)failures);
        }
        for (int t = 0; t < threads; t++) MPI_Comm_free(&parents[t]);
        /* Every allreduce went through fastred (which hands some, e.g. short
         * vectors on one host with Open MPI, to the library), and fastred ran
         * some itself (the long ones). */
        if (fastred_loaded()) {
            uint64_t own = fastred_count("fastred_own_calls", 0), handed = fastred_count("fastred_fallback_calls", 0);
            CHECK(own + handed >= (uint64_t)(threads * rounds), "fastred saw too few allreduces");
            CHECK(own >= (uint64_t)(threads * (rounds / 3)), "fastred ran too few allreduces itself (%llu)", (unsigned long long)own);
        }
    }
    return finish("threads");
}
