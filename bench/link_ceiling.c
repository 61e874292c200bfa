/*
 * What one exchange step gets from the network, alone: every rank sends
 * SIZE KiB to one partner and receives as much from one, in 32 KiB pieces at
 * most 16 in flight per direction with the last piece synchronous (as
 * fastred's transport sends between hosts), for several partner patterns
 * (rank+1 / rank-1, rank XOR 1, 2, 4, rank+3 / rank-3), 5 repetitions each.
 * Prints the median time of the slowest rank and the rate per flow as a
 * percentage of RATE_MBIT (default 50): on the emulated cluster, the ceiling
 * that any algorithm made of such steps works under (docs/one-host.md,
 * "Ranks sharing hosts": long bidirectional transfers reach about 89 % of
 * the link there, with the pattern making no difference).
 *   mpicc.openmpi -O2 -o link_ceiling bench/link_ceiling.c
 *   bash ci/cluster/cluster.sh run ./link_ceiling SIZE_KIB [RATE_MBIT]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE 32768
#define WINDOW 16

/* Send len bytes of sb to `to` while receiving len bytes from `from` into rb. */
static void exchange(int to, const char *sb, int from, char *rb, size_t len, MPI_Comm c) {
    size_t pieces = (len + PIECE - 1) / PIECE, sent = 0, received = 0;
    MPI_Request sends[WINDOW], recvs[WINDOW];
    int ns = 0, nr = 0, hs = 0, hr = 0;
    while (sent < pieces || received < pieces) {
        if (received < pieces) {
            if (nr == WINDOW) { MPI_Wait(&recvs[hr], MPI_STATUS_IGNORE); hr = (hr + 1) % WINDOW; nr--; }
            size_t off = received * PIECE, l = len - off < PIECE ? len - off : PIECE;
            MPI_Irecv(rb + off, (int)l, MPI_BYTE, from, 0, c, &recvs[(hr + nr) % WINDOW]);
            nr++, received++;
        }
        if (sent < pieces) {
            if (ns == WINDOW) { MPI_Wait(&sends[hs], MPI_STATUS_IGNORE); hs = (hs + 1) % WINDOW; ns--; }
            size_t off = sent * PIECE, l = len - off < PIECE ? len - off : PIECE;
            MPI_Request *rq = &sends[(hs + ns) % WINDOW];
            if (sent == pieces - 1) MPI_Issend(sb + off, (int)l, MPI_BYTE, to, 0, c, rq);
            else MPI_Isend(sb + off, (int)l, MPI_BYTE, to, 0, c, rq);
            ns++, sent++;
        }
    }
    for (; nr; nr--, hr = (hr + 1) % WINDOW) MPI_Wait(&recvs[hr], MPI_STATUS_IGNORE);
    for (; ns; ns--, hs = (hs + 1) % WINDOW) MPI_Wait(&sends[hs], MPI_STATUS_IGNORE);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    size_t len = (size_t)(argc > 1 ? atoi(argv[1]) : 1024) << 10;
    double rate = (argc > 2 ? atof(argv[2]) : 50) * 1e6 / 8;
    char *s = malloc(len), *d = malloc(len);
    memset(s, 1, len);
    const char *names[] = {"rank+1", "xor 1", "xor 2", "xor 4", "rank+3"};
    for (int v = 0; v < 5; v++) {
        int x = v == 1 ? 1 : v == 2 ? 2 : 4, shift = v == 4 ? 3 : 1;
        if ((v == 2 || v == 3) && x >= p) continue;
        if (v == 1 && p % 2) continue;
        int to = v == 0 || v == 4 ? (r + shift) % p : r ^ x, from = v == 0 || v == 4 ? (r + p - shift) % p : r ^ x;
        double t[5];
        for (int rep = 0; rep < 5; rep++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double start = MPI_Wtime();
            exchange(to, s, from, d, len, MPI_COMM_WORLD);
            double mine = MPI_Wtime() - start;
            MPI_Allreduce(&mine, &t[rep], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
        qsort(t, 5, sizeof t[0], cmp);
        if (r == 0) printf("%zu KiB, partner %-6s: median %.3f s, min %.3f s, %.1f %% of the link per flow\n", len >> 10, names[v], t[2], t[0], 100 * len / rate / t[2]);
    }
    free(s);
    free(d);
    MPI_Finalize();
    return 0;
}
