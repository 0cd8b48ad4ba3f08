/* Master/worker Monte-Carlo pi (seed 000 §5): the master hands out work
 * packets (a random seed and a number of points) on request
 * (MPI_ANY_SOURCE); workers count the points under 4/(1+x^2) on [0,1] x
 * [0,4], one fine-grained region per point, so that measurement overhead
 * is large (compensate mode's example). Few, small messages: the figures
 * stay meaningful on a loaded machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#ifdef HAVE_REVPROF
#include "revprof.h"
#define REGION_BEGIN(n) revprof_region_begin(n)
#define REGION_END(n) revprof_region_end(n)
#else
#define REGION_BEGIN(n) ((void)0)
#define REGION_END(n) ((void)0)
#endif

enum { TAG_REQ = 1, TAG_WORK = 2, TAG_STOP = 3 };

static double uniform(unsigned long long *rng) { /* xorshift64 */
  *rng ^= *rng << 13;
  *rng ^= *rng >> 7;
  *rng ^= *rng << 17;
  return (double)(*rng >> 11) * (1.0 / 9007199254740992.0);
}

/* One point: is (x, y) under the curve? work: extra dependent steps that
 * stand for a bigger unit of work, chained through *carry from point to
 * point (as in a real computation), so that the uninstrumented run does
 * not overlap consecutive points, which fine-grained measurement would
 * forbid: that would be perturbation, which no compensation removes. */
static int under(double x, double y, long work, double *carry) {
  double f = 4.0 / (1.0 + x * x), g = *carry;
  for (long k = 0; k < work; k++)
    g = g * 0.9999999 + 1e-7 * f;
  *carry = g;
  return y < f;
}

int main(int argc, char **argv) {
  long chunks = 200, chunk = 10000, work = 50;
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i + 1 < argc; i += 2) {
    long v = strtol(argv[i + 1], NULL, 10);
    if (strcmp(argv[i], "--chunks") == 0 && v > 0)
      chunks = v;
    else if (strcmp(argv[i], "--chunk") == 0 && v > 0 && v < (1l << 24))
      chunk = v;
    else if (strcmp(argv[i], "--work") == 0 && v >= 0)
      work = v;
  }
  if (size < 2) {
    if (rank == 0)
      fprintf(stderr, "mcpi: needs 2 or more ranks (master + workers)\n");
    MPI_Finalize();
    return 1;
  }
  unsigned long long rng = 88172645463325252ull, packet[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank == 0) { /* master */
    long sent = 0, active = size - 1, res[2], hits = 0, n = 0;
    MPI_Status st;
    while (active > 0) {
      MPI_Recv(res, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD,
               &st);
      hits += res[0];
      n += res[1];
      if (sent < chunks) {
        packet[0] = (unsigned long long)(uniform(&rng) * 9007199254740992.0) | 1;
        packet[1] = (unsigned long long)chunk;
        MPI_Send(packet, 2, MPI_UNSIGNED_LONG_LONG, st.MPI_SOURCE, TAG_WORK,
                 MPI_COMM_WORLD);
        sent++;
      } else {
        MPI_Send(packet, 0, MPI_UNSIGNED_LONG_LONG, st.MPI_SOURCE, TAG_STOP,
                 MPI_COMM_WORLD);
        active--;
      }
    }
    double t = MPI_Wtime() - t0;
    printf("mcpi: pi ~ %.6f from %ld points\n", 4.0 * (double)hits / (double)n,
           n);
    printf("mcpi: time master %.6f\n", t);
    fflush(stdout);
  } else { /* worker */
    long res[2] = {0, 0};
    MPI_Status st;
    for (;;) {
      MPI_Send(res, 2, MPI_LONG, 0, TAG_REQ, MPI_COMM_WORLD);
      MPI_Recv(packet, 2, MPI_UNSIGNED_LONG_LONG, 0, MPI_ANY_TAG,
               MPI_COMM_WORLD, &st);
      if (st.MPI_TAG == TAG_STOP)
        break;
      unsigned long long seed = packet[0];
      res[0] = 0;
      res[1] = (long)packet[1];
      double carry = 1.0;
      for (long i = 0; i < res[1]; i++) {
        REGION_BEGIN("point");
        double x = uniform(&seed), y = 4.0 * uniform(&seed);
        res[0] += under(x, y, work, &carry);
        REGION_END("point");
      }
      res[0] += carry < 0.0; /* never: keeps the work */
    }
    double t = MPI_Wtime() - t0;
    printf("mcpi: time worker %d %.6f\n", rank, t);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
