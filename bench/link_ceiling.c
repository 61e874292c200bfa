/*
 * What exchanges get from the network, without any reduction, sent as
 * fastred's transport sends between hosts: 32 KiB pieces, at most 16 in
 * flight per direction, the last piece of each message synchronous. Two modes:
 *
 *   link_ceiling step SIZE_KIB [RATE_MBIT]
 *       one exchange step alone: every rank sends SIZE KiB to one partner
 *       and receives as much from one, for several partner patterns
 *       (rank+1 / rank-1, rank XOR 1, 2, 4, rank+3 / rank-3);
 *   link_ceiling patterns [RATE_MBIT]
 *       the data movement of a reduce-scatter of 1, 2 and 4 MiB (p − 1
 *       blocks of n/p out and in per rank) as a ring (p − 1 steps to
 *       rank+1), as pairwise steps (step s to rank+s), as all p − 1
 *       exchanges at once, and two or three of them at a time.
 *
 * 5 repetitions each; prints the median time of the slowest rank and the
 * rate as a percentage of RATE_MBIT (default 50): per flow for `step`, of
 * the bound (p − 1)/p·n/B for `patterns`. On the emulated cluster these are
 * the ceilings any algorithm made of such steps works under (docs/one-host.md
 * "Ranks sharing hosts", docs/reproducible.md "p = 8").
 *   mpicc.openmpi -O2 -o link_ceiling bench/link_ceiling.c
 *   bash ci/cluster/cluster.sh run ./link_ceiling step 2048
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE 32768
#define WINDOW 16
#define REPS 5

/* Send len bytes of out[i] to to[i] and receive len bytes from from[i] into
 * in[i], for i < k, all at once: pieces round-robin over the k messages. */
static void exchange_many(int k, const int *to, char *const *out, const int *from, char *const *in, size_t len, MPI_Comm c) {
    size_t pieces = (len + PIECE - 1) / PIECE, total = pieces * k, sent = 0, received = 0;
    MPI_Request sends[WINDOW], recvs[WINDOW];
    int ns = 0, nr = 0, hs = 0, hr = 0;
    while (sent < total || received < total) {
        if (received < total) {
            if (nr == WINDOW) { MPI_Wait(&recvs[hr], MPI_STATUS_IGNORE); hr = (hr + 1) % WINDOW; nr--; }
            size_t off = received / k * PIECE, l = len - off < PIECE ? len - off : PIECE;
            int i = (int)(received % k);
            MPI_Irecv(in[i] + off, (int)l, MPI_BYTE, from[i], 0, c, &recvs[(hr + nr) % WINDOW]);
            nr++, received++;
        }
        if (sent < total) {
            if (ns == WINDOW) { MPI_Wait(&sends[hs], MPI_STATUS_IGNORE); hs = (hs + 1) % WINDOW; ns--; }
            size_t off = sent / k * PIECE, l = len - off < PIECE ? len - off : PIECE;
            int i = (int)(sent % k);
            MPI_Request *rq = &sends[(hs + ns) % WINDOW];
            if (sent / k == pieces - 1) MPI_Issend(out[i] + off, (int)l, MPI_BYTE, to[i], 0, c, rq);
            else MPI_Isend(out[i] + off, (int)l, MPI_BYTE, to[i], 0, c, rq);
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

static int p, r;

/* The median over REPS of the slowest rank's time of `run(arg)`. */
static double timed(void (*run)(void *), void *arg) {
    double t[REPS];
    for (int rep = 0; rep < REPS; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        run(arg);
        double mine = MPI_Wtime() - start;
        MPI_Allreduce(&mine, &t[rep], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    qsort(t, REPS, sizeof t[0], cmp);
    return t[REPS / 2];
}

struct step { int to, from; char *out, *in; size_t len; };
static void run_step(void *a) {
    struct step *s = a;
    exchange_many(1, &s->to, &s->out, &s->from, &s->in, s->len, MPI_COMM_WORLD);
}

/* Reduce-scatter data movement: blocks of `block` bytes; `window` pairwise
 * exchanges at a time (0: the ring). */
struct pattern { char *data, *in; size_t block; int window; };
static void run_pattern(void *a) {
    struct pattern *x = a;
    int to[64], from[64];
    char *out[64], *in[64];
    if (x->window == 0) {
        for (int s = 1; s < p; s++) { /* the partial block travels rank -> rank+1 */
            int t = (r + 1) % p, f = (r + p - 1) % p;
            char *o = x->data + (size_t)((r + p - s) % p) * x->block, *i = x->in;
            exchange_many(1, &t, &o, &f, &i, x->block, MPI_COMM_WORLD);
        }
        return;
    }
    for (int s0 = 1; s0 < p; s0 += x->window) {
        int k = 0;
        for (int s = s0; s < p && s < s0 + x->window && k < 64; s++, k++) {
            to[k] = (r + s) % p, from[k] = (r + p - s) % p;
            out[k] = x->data + (size_t)to[k] * x->block, in[k] = x->in + (size_t)from[k] * x->block;
        }
        exchange_many(k, to, out, from, in, x->block, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int patterns = argc > 1 && !strcmp(argv[1], "patterns");
    double rate = (argc > (patterns ? 2 : 3) ? atof(argv[patterns ? 2 : 3]) : 50) * 1e6 / 8;
    if (!patterns) {
        size_t len = (size_t)(argc > 2 ? atoi(argv[2]) : 1024) << 10;
        char *s = malloc(len), *d = malloc(len);
        memset(s, 1, len);
        const char *names[] = {"rank+1", "xor 1", "xor 2", "xor 4", "rank+3"};
        for (int v = 0; v < 5; v++) {
            int x = v == 1 ? 1 : v == 2 ? 2 : 4, shift = v == 4 ? 3 : 1;
            if ((v == 2 || v == 3) && x >= p) continue;
            if (v == 1 && p % 2) continue;
            struct step st = {v == 0 || v == 4 ? (r + shift) % p : r ^ x, v == 0 || v == 4 ? (r + p - shift) % p : r ^ x, s, d, len};
            double t = timed(run_step, &st);
            if (r == 0) printf("%zu KiB, partner %-6s: median %.3f s, %.1f %% of the link per flow\n", len >> 10, names[v], t, 100 * len / rate / t);
        }
        free(s), free(d);
    } else {
        const char *names[] = {"ring", "pairwise steps", "all at once", "2 at a time", "3 at a time"};
        const int windows[] = {0, 1, 64, 2, 3};
        for (size_t bytes = 1 << 20; bytes <= 4 << 20; bytes *= 2) {
            char *data = malloc(bytes), *in = malloc(bytes);
            memset(data, 1, bytes);
            for (int v = 0; v < 5; v++) {
                struct pattern x = {data, in, bytes / p, windows[v]};
                double t = timed(run_pattern, &x);
                if (r == 0) printf("%zu KiB, %-14s: median %.3f s, %.1f %% of the bound\n", bytes >> 10, names[v], t, 100 * (double)(p - 1) / p * bytes / rate / t);
            }
            free(data), free(in);
        }
    }
    MPI_Finalize();
    return 0;
}
