#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static double xchg(int partner, char *s, char *r, int m) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (partner >= 0) MPI_Sendrecv(s, m, MPI_BYTE, partner, 1, r, m, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  t = MPI_Wtime() - t;
  double mx; MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, h; MPI_Comm_rank(MPI_COMM_WORLD, &me); MPI_Comm_size(MPI_COMM_WORLD, &h);
  int d = 1; while (2 * d <= h) d *= 2; d /= 2; if (d < 1) d = 1;
  int m = 1048576;
  char *s = calloc(1, m), *r = calloc(1, m);
  int p1 = (me == 0) ? d : (me == d ? 0 : -1);
  int px = (me ^ d) < h ? (me ^ d) : -1;
  int half = h / 2;
  int ph = me < half ? me + half : (me < 2 * half ? me - half : -1);
  double one = xchg(p1, s, r, m);
  double x = xchg(px, s, r, m);
  double hh = xchg(ph, s, r, m);
  double nb = xchg((me ^ 1) < h ? me ^ 1 : -1, s, r, m);
  if (me == 0) printf("H %4d D %4d  xor %.2f  half %.2f  neighbours %.2f\n", h, d, x / one, hh / one, nb / one);
  MPI_Finalize();
  return 0;
}
