/* What the programs of bench/smpi share: declared computation under each
 * tool (smpi_execute_flops on SimGrid's simulated hosts with -DRP_SMPI,
 * revprof_compute_seconds under librevprof with -DRP_REVPROF, a real busy
 * loop otherwise, so that measured computation is real), a hash of a
 * schedule and the run's outcome. Header-only: each program is one file built by smpicc or
 * mpicc. */
#ifndef RP_BENCH_COMPUTE_H
#define RP_BENCH_COMPUTE_H

#include <mpi.h>
#include <stdint.h>
#include <time.h>
#ifdef RP_SMPI
#include <smpi/smpi.h>
/* the speed of the simulated hosts (characterize/smpi/cluster.xml) */
#define RP_HOST_FLOPS 1e9
#endif
#ifdef RP_REVPROF
#include "revprof.h"
#endif

#if !defined(RP_SMPI) && !defined(RP_REVPROF)
static double now(void) { /* seconds */
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#endif

static inline void compute(double s) {
#if defined(RP_SMPI)
  smpi_execute_flops(s * RP_HOST_FLOPS);
#elif defined(RP_REVPROF)
  revprof_compute_seconds(s);
#else
  double t0 = now();
  while (now() - t0 < s) /* busy, so that measured computation is real */
    ;
#endif
}

/* The run's outcome on rank 0: the slowest rank's time t (*tmax) and the
 * sum of the ranks' bad counts (returned; 0 on the other ranks). */
static inline int bench_outcome(double t, int bad, double *tmax) {
  int allbad = 0;
  *tmax = t;
  MPI_Reduce(&t, tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  return allbad;
}

/* FNV-1a over one more number. */
static inline uint64_t hash(uint64_t h, long v) {
  for (int i = 0; i < 8; i++) {
    h ^= (uint64_t)((unsigned long)v >> (8 * i) & 0xff);
    h *= 1099511628211u;
  }
  return h;
}

#endif
