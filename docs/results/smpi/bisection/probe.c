#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
/* halving pattern: step k partner h^(1<<k), size M>>(k+1), over the largest power of two H' <= H.
   all: every host of H' at once; lone: hosts 0 and 1 the same sizes. */
static double seq(int me, int hp, int lone, char *s, char *r, int m) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (me < hp && (!lone || me < 2)) {
    int size = m;
    for (int d = 1; d < hp; d <<= 1) {
      size /= 2;
      int partner = lone ? (me ^ 1) : (me ^ d);
      MPI_Sendrecv(s, size, MPI_BYTE, partner, 1, r, size, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  t = MPI_Wtime() - t;
  double mx; MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, h; MPI_Comm_rank(MPI_COMM_WORLD, &me); MPI_Comm_size(MPI_COMM_WORLD, &h);
  int hp = 1; while (2 * hp <= h) hp *= 2;
  int m = atoi(argv[1]);
  char *s = calloc(1, m), *r = calloc(1, m);
  double lone = seq(me, hp, 1, s, r, m);
  double all = seq(me, hp, 0, s, r, m);
  if (me == 0) printf("H %4d  share %3.0f\n", h, 100 * lone / all);
  MPI_Finalize();
  return 0;
}
