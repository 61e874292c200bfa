/*
 * Repeated identical calls. fastred remembers each thread's last call and
 * reuses its decision for a repeat with the same communicator handle, count,
 * datatype, op and root; this checks that a repeat is still right when what
 * the decision depended on changed in between:
 *  1. the communicator was freed and its handle came back naming a
 *     communicator of another size (the test fails if no handle ever came
 *     back: it would prove nothing);
 *  2. the root of a reduce changed;
 *  3. fastred_force / fastred_reproducible switched the algorithm or mode
 *     (fastred_last_algorithm must follow; the mode only from 3 processes);
 *  4. the buffers changed: MPI_IN_PLACE, and a NULL receive buffer on
 *     non-roots of a reduce; an irregular reduce-scatter's counts changed in
 *     the same recvcounts array;
 *  5. shared memory: repeated reduces of two rounds, the second one short
 *     (forced; a repeat runs on the user's buffers, which a reduce's other
 *     ranks need not have: a NULL receive buffer there).
 * Every result is checked; doubles (which Open MPI runs natively on one host
 * for short vectors) and ints (which fastred runs).
 * usage: repeat_calls
 */
#include "common.h"

/* The sum of (world rank + 1) over the members of c. */
static int expected_sum(MPI_Comm c) {
    int p, total = 0;
    MPI_Comm_size(c, &p);
    MPI_Group g, w;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    for (int i = 0; i < p; i++) {
        int wr;
        MPI_Group_translate_ranks(g, 1, &i, w, &wr);
        total += wr + 1;
    }
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return total;
}

/* Three identical allreduces of one double or one int on c, checked. */
static void three_allreduces(MPI_Comm c, MPI_Datatype type, const char *what) {
    int want = expected_sum(c);
    for (int i = 0; i < 3; i++) {
        double din = t_rank + 1, dout = -1;
        int iin = t_rank + 1, iout = -1;
        if (type == MPI_DOUBLE) MPI_Allreduce(&din, &dout, 1, MPI_DOUBLE, MPI_SUM, c);
        else MPI_Allreduce(&iin, &iout, 1, MPI_INT, MPI_SUM, c);
        double got = type == MPI_DOUBLE ? dout : iout;
        CHECK(got == want, "%s (%s), repeat %d: got %g, want %d", what, type == MPI_DOUBLE ? "double" : "int", i, got, want);
    }
}

/* Communicators freed between identical calls, their handles coming back for
 * communicators of other sizes; how many times a handle came back. */
static int freed_handles_reused(MPI_Datatype type) {
    int reused = 0;
    MPI_Comm a;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    three_allreduces(a, type, "world-sized communicator");
    for (int round = 0; round < 8; round++) {
        MPI_Comm old = a, b;
        MPI_Comm_free(&a);
        /* Alternate between halves (another size) and the whole world. */
        if (round % 2 == 0) MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &b);
        else MPI_Comm_dup(MPI_COMM_WORLD, &b);
        reused += memcmp(&old, &b, sizeof b) == 0;
        three_allreduces(b, type, round % 2 == 0 ? "half-sized communicator on a reused handle" : "world-sized communicator again");
        a = b;
    }
    MPI_Comm_free(&a);
    return reused;
}

/* An allreduce of 64 doubles on MPI_COMM_WORLD, checked (a vector long
 * enough for every algorithm). */
static void check_vector_allreduce(const char *what) {
    double in[64], out[64];
    for (int k = 0; k < 64; k++) in[k] = (t_rank + 1) * (k + 1);
    MPI_Allreduce(in, out, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < 64; k++)
        CHECK(out[k] == (double)t_size * (t_size + 1) / 2 * (k + 1), "allreduce (%s), element %d: %g", what, k, out[k]);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    fastred_api api = fastred_lookup();

    /* 1. Freed handles that come back for other communicators. */
    int reused = freed_handles_reused(MPI_DOUBLE) + freed_handles_reused(MPI_INT);
    int reused_anywhere = 0;
    PMPI_Allreduce(&reused, &reused_anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (t_rank == 0) printf("repeat_calls: a freed handle came back %d times on rank 0\n", reused);
    CHECK(reused_anywhere > 0, "no freed communicator handle was reused: the test proves nothing here");

    /* 2. The root of a reduce changes between otherwise identical calls;
     * 4. non-roots pass NULL receive buffers. */
    for (int i = 0; i < 3 * t_size; i++) {
        int root = i % t_size;
        double din = t_rank + 1, dout = -1;
        int iin = t_rank + 1, iout = -1;
        MPI_Reduce(&din, t_rank == root ? &dout : NULL, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        MPI_Reduce(&iin, t_rank == root ? (void *)&iout : NULL, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        int want = t_size * (t_size + 1) / 2;
        if (t_rank == root) CHECK(dout == want && iout == want, "reduce to root %d: got %g and %d, want %d", root, dout, iout, want);
    }

    /* 4. MPI_IN_PLACE between ordinary calls. */
    for (int i = 0; i < 4; i++) {
        double d = t_rank + 1, dout = -1;
        if (i % 2) MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else MPI_Allreduce(&d, &dout, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double got = i % 2 ? d : dout;
        CHECK(got == t_size * (t_size + 1) / 2, "allreduce %s: got %g", i % 2 ? "in place" : "with a send buffer", got);
    }

    /* 4. An irregular reduce-scatter whose recvcounts array (the same one)
     * changes between calls, the first entry staying: the other blocks switch
     * between 1 and 600 doubles (Open MPI on one host: handed to the library,
     * then run by fastred). The repeat must run what a fresh call with those
     * counts runs (after another call in between) and be right. */
    {
        enum { MAX_P = 64, LONG = 600 };
        int counts[MAX_P];
        double *in = malloc(sizeof(double) * MAX_P * LONG), *out = malloc(sizeof(double) * (LONG + 1));
        for (int round = 0; round < 6 && t_size <= MAX_P; round++) {
            int total = 0, first = 0, ran[2];
            for (int r = 0; r < t_size; r++) total += counts[r] = r == 0 ? 2 : round % 2 ? LONG : 1;
            for (int r = 0; r < t_rank; r++) first += counts[r];
            for (int k = 0; k < total; k++) in[k] = (t_rank + 1) * (k + 1);
            for (int i = 0; i < 2; i++) {
                if (i == 1) three_allreduces(MPI_COMM_WORLD, MPI_DOUBLE, "between reduce-scatters");
                for (int k = 0; k <= counts[t_rank]; k++) out[k] = -1;
                MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                ran[i] = api.last_algorithm ? api.last_algorithm(2) : 0;
                for (int k = 0; k < counts[t_rank]; k++)
                    CHECK(out[k] == (double)t_size * (t_size + 1) / 2 * (first + k + 1), "reduce_scatter round %d, element %d: %g", round, k, out[k]);
                CHECK(out[counts[t_rank]] == -1, "reduce_scatter round %d wrote past its block of %d", round, counts[t_rank]);
            }
            CHECK(ran[0] == ran[1], "reduce_scatter round %d: the repeat ran algorithm %d, a fresh call %d", round, ran[0], ran[1]);
        }
        free(in);
        free(out);
    }

    /* 3. The algorithm switched between identical calls. */
    if (api.force && api.last_algorithm && api.reproducible) {
        const char *specs[] = {"allreduce:ring", "allreduce:native", "allreduce:recursive_doubling", "", "allreduce:ring"};
        for (int s = 0; s < 5; s++) {
            CHECK(api.force(specs[s]) == 0, "fastred_force(\"%s\") ignored items", specs[s]);
            for (int i = 0; i < 2; i++) check_vector_allreduce(specs[s]);
            const char *name = api.algorithm_name(api.last_algorithm(0));
            if (*specs[s]) CHECK(name && !strcmp(name, specs[s] + strlen("allreduce:")), "after fastred_force(\"%s\") the call ran %s", specs[s], name ? name : "?");
        }
        /* Reproducible mode forbids the ring on 3 or more processes (on 2 every
         * order is the canonical one): the same forced call must change algorithm. */
        api.reproducible(1);
        check_vector_allreduce("reproducible mode");
        const char *name = api.algorithm_name(api.last_algorithm(0));
        if (t_size > 2) CHECK(name && strcmp(name, "ring"), "reproducible mode after a forced ring ran %s", name ? name : "?");
        api.reproducible(-1);
        api.force("");
    }

    /* 5. Rounds of a slot (262128 bytes with up to 32 ranks) and one more double. */
    if (api.force) {
        enum { N = 262128 / 8 + 1 };
        double *in = malloc(sizeof(double) * N), *out = malloc(sizeof(double) * N);
        for (int i = 0; i < N; i++) in[i] = t_rank + i;
        CHECK(api.force("reduce:shared_memory,allreduce:shared_memory") == 0, "fastred_force(shared_memory) ignored items");
        for (int k = 0; k < 3; k++) {
            int root = k % t_size;
            out[N - 1] = -1;
            int rc = MPI_Reduce(in, t_rank == root ? out : NULL, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "shared-memory reduce %d of %d doubles: rc %d", k, N, rc);
            if (t_rank == root)
                CHECK(out[N - 1] == t_size * (N - 1.0) + t_size * (t_size - 1) / 2.0, "shared-memory reduce %d: last element %g", k, out[N - 1]);
            rc = MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS && out[N - 1] == t_size * (N - 1.0) + t_size * (t_size - 1) / 2.0, "shared-memory allreduce %d: rc %d, %g", k, rc, out[N - 1]);
        }
        for (int k = 0; k < 3; k++) { /* the same reduce repeated: the shortcut */
            int rc = MPI_Reduce(in, t_rank == 0 ? out : NULL, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "repeated shared-memory reduce %d: rc %d", k, rc);
            if (t_rank == 0) CHECK(out[N - 1] == t_size * (N - 1.0) + t_size * (t_size - 1) / 2.0, "repeated shared-memory reduce %d: %g", k, out[N - 1]);
        }
        api.force("");
        free(in);
        free(out);
    }
    return finish("repeat_calls");
}
