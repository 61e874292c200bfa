/*
 * What fastred hands to the MPI library, and what it keeps: results are right
 * either way, and the counters show which path ran.
 *  - non-commutative user op (2x2 matrix product): fastred's order-preserving
 *    algorithms (recursive doubling, binary tree), rank-ordered result
 *  - commutative user op: fastred (through PMPI_Reduce_local)
 *  - non-contiguous derived datatype: library
 *  - contiguous derived datatype with a user op: fastred (both libraries
 *    reject predefined ops on derived datatypes, see errors.c)
 *  - intercommunicator: library
 */
#include "common.h"

#define MOD 1000003
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    long *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) { /* b = a x b (a is the earlier rank) */
        long c[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                     (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
        memcpy(b, c, sizeof c);
    }
}

static void absmax(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++) b[k] = abs(a[k]) > abs(b[k]) ? abs(a[k]) : abs(b[k]);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    int n = *len, *a = in, *b = inout, extent_ints;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    extent_ints = (int)(ext / sizeof(int));
    if (*dt != MPI_INT) { /* vector(3,1,2) or contiguous(3) of int: sum the data ints */
        int stride = extent_ints == 5 ? 2 : 1;
        for (int k = 0; k < n; k++) for (int j = 0; j < 3; j++) b[k * extent_ints + j * stride] += a[k * extent_ints + j * stride];
        return;
    }
    for (int k = 0; k < n; k++) b[k] += a[k];
}

static uint64_t own(int c) { return fastred_count("fastred_own_calls", c); }
static uint64_t fb(int c) { return fastred_count("fastred_fallback_calls", c); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    int p = t_size, i, loaded = fastred_loaded();
    uint64_t own0, fb0;

    /* Non-commutative: matrices [[1, r+1], [0, 1]] x ... and a rank-specific twist. */
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_LONG, &mat);
    MPI_Type_commit(&mat);
    MPI_Op op_mat;
    MPI_Op_create(matmul, 0, &op_mat);
    long m[2][4], r[2][4], want[4] = {1, 0, 0, 1};
    for (int k = 0; k < 2; k++) { m[k][0] = 1 + t_rank; m[k][1] = t_rank + 1; m[k][2] = 0; m[k][3] = 2; }
    for (int q = 0; q < p; q++) { /* serial rank-ordered product of element 0 */
        long a[4] = {1 + q, q + 1, 0, 2}, c[4];
        c[0] = (want[0] * a[0] + want[1] * a[2]) % MOD; c[1] = (want[0] * a[1] + want[1] * a[3]) % MOD;
        c[2] = (want[2] * a[0] + want[3] * a[2]) % MOD; c[3] = (want[2] * a[1] + want[3] * a[3]) % MOD;
        memcpy(want, c, sizeof c);
    }
    own0 = own(0); fb0 = fb(0);
    MPI_Allreduce(m, r, 2, mat, op_mat, MPI_COMM_WORLD);
    CHECK(memcmp(r[0], want, sizeof want) == 0, "non-commutative allreduce is not rank-ordered");
    if (loaded) CHECK(own(0) == own0 + 1 && fb(0) == fb0, "non-commutative allreduce did not run on fastred");
    own0 = own(1); fb0 = fb(1);
    MPI_Reduce(m, r, 2, mat, op_mat, 0, MPI_COMM_WORLD);
    if (t_rank == 0) CHECK(memcmp(r[0], want, sizeof want) == 0, "non-commutative reduce is not rank-ordered");
    if (loaded) CHECK(own(1) == own0 + 1 && fb(1) == fb0, "non-commutative reduce did not run on fastred");
    /* Every root, long and short. */
    for (int root = 0; root < p; root++) {
        static long big[2000][4], res[2000][4];
        for (i = 0; i < 2000; i++) memcpy(big[i], m[0], sizeof m[0]);
        MPI_Reduce(big, res, 2000, mat, op_mat, root, MPI_COMM_WORLD);
        if (t_rank == root) CHECK(memcmp(res[1999], want, sizeof want) == 0, "non-commutative reduce to root %d", root);
        MPI_Allreduce(big, res, 2000, mat, op_mat, MPI_COMM_WORLD);
        CHECK(memcmp(res[7], want, sizeof want) == 0, "non-commutative long allreduce");
    }

    /* Commutative user op: fastred's own algorithms. */
    MPI_Op op_abs;
    MPI_Op_create(absmax, 1, &op_abs);
    int v[3000], w[3000];
    for (i = 0; i < 3000; i++) v[i] = (t_rank % 2 ? -1 : 1) * (t_rank * 7 + i) % 1000;
    own0 = own(0);
    MPI_Allreduce(v, w, 3000, MPI_INT, op_abs, MPI_COMM_WORLD);
    for (i = 0; i < 3000; i++) {
        int e = 0;
        for (int q = 0; q < p; q++) { int x = abs((q % 2 ? -1 : 1) * (q * 7 + i) % 1000); if (x > e) e = x; }
        CHECK(w[i] == e, "commutative user op: w[%d] = %d, want %d", i, w[i], e);
        if (w[i] != e) break;
    }
    if (loaded) CHECK(own(0) == own0 + 1, "commutative user op did not run on fastred");

    /* Derived datatypes. */
    MPI_Op sum_op;
    MPI_Op_create(user_sum, 1, &sum_op);
    MPI_Datatype vec, tri;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int sv[5] = {1, 100, 2, 100, 3}, rv[5] = {0, -5, 0, -5, 0};
    fb0 = fb(0);
    MPI_Allreduce(sv, rv, 1, vec, sum_op, MPI_COMM_WORLD);
    CHECK(rv[0] == p && rv[2] == 2 * p && rv[4] == 3 * p && rv[1] == -5, "vector datatype result wrong");
    if (loaded) CHECK(fb(0) == fb0 + 1, "non-contiguous datatype did not go to the library");

    MPI_Type_contiguous(3, MPI_INT, &tri);
    MPI_Type_commit(&tri);
    int sd[3000], rd[3000];
    for (i = 0; i < 3000; i++) sd[i] = t_rank + i;
    own0 = own(0);
    MPI_Allreduce(sd, rd, 1000, tri, sum_op, MPI_COMM_WORLD);
    CHECK(rd[2999] == p * 2999 + p * (p - 1) / 2, "contiguous datatype result wrong: %d", rd[2999]);
    if (loaded) CHECK(own(0) == own0 + 1, "contiguous datatype did not run on fastred");

    /* Intercommunicator: the library. */
    if (p >= 2) {
        MPI_Comm half, inter;
        int color = t_rank < p / 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, t_rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? p / 2 : 0, 99, &inter);
        int x = t_rank, y = -1, other = 0;
        for (int q = 0; q < p; q++) if ((q < p / 2) != color) other += q;
        fb0 = fb(0);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
        CHECK(y == other, "intercommunicator allreduce: %d, want %d", y, other);
        if (loaded) CHECK(fb(0) == fb0 + 1, "intercommunicator did not go to the library");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

    /* A communicator freed and created again: state is per communicator. */
    for (int k = 0; k < 3; k++) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d);
        CHECK(sum == p, "allreduce on a fresh duplicate: %d", sum);
        MPI_Comm_free(&d);
    }
    MPI_Type_free(&mat); MPI_Type_free(&vec); MPI_Type_free(&tri);
    MPI_Op_free(&op_mat); MPI_Op_free(&op_abs);
    MPI_Op_free(&sum_op);
    return finish("fallback");
}
