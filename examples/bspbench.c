/* bspbench: the bulk-synchronous benchmark of seed 004 (section III). Each
 * iteration busy-loops for the requested compute time, then a barrier,
 * then a profile offload (revprof_monitor_offload, when librevprof is
 * there: linked or LD_PRELOADed). The busy loop and the reduction are
 * revprof regions, "compute" and "reduce" (compensate mode profiles them);
 * odd ranks compute after the reduction, so that they meet the two
 * regions in the other order (the MPI calls are the same on every rank). A checksum of the data each iteration
 * reduces (independent of timing) shows that monitoring left the
 * program's results alone.
 *
 *   mpiexec -n N bspbench [-i ITERATIONS] [-c COMPUTE_MS] [-q]
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* weak: the program runs without librevprof as well */
extern int revprof_monitor_offload(void) __attribute__((weak));
extern void revprof_region_begin(const char *name) __attribute__((weak));
extern void revprof_region_end(const char *name) __attribute__((weak));

static void region_begin(const char *name) {
  if (revprof_region_begin)
    revprof_region_begin(name);
}

static void region_end(const char *name) {
  if (revprof_region_end)
    revprof_region_end(name);
}

static double host_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* busy work for s seconds of host time (not MPI_Wtime: under revprof that
 * is the simulated clock) */
static void work(double s) {
  volatile double x = 1.0;
  double end = host_seconds() + s;
  while (host_seconds() < end)
    for (int i = 0; i < 200; i++)
      x = x * 1.0000001 + 1e-9;
}

static int usage(const char *why) {
  fprintf(stderr, "bspbench: %s\nusage: bspbench [-i ITERATIONS] "
                  "[-c COMPUTE_MS] [-q]\n", why);
  return 2;
}

int main(int argc, char **argv) {
  long iters = 100;
  double compute_ms = 10.0;
  int quiet = 0;
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; i++) {
    char *end = NULL;
    if (strcmp(argv[i], "-i") == 0 && i + 1 < argc) {
      iters = strtol(argv[++i], &end, 10);
      if (*end || iters < 1)
        return usage("-i needs a count >= 1");
    } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
      compute_ms = strtod(argv[++i], &end);
      if (*end || !(compute_ms >= 0.0))
        return usage("-c needs milliseconds >= 0");
    } else if (strcmp(argv[i], "-q") == 0)
      quiet = 1;
    else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage("the bulk-synchronous benchmark of seed 004");
      MPI_Finalize();
      return 0;
    } else
      return usage("unknown argument");
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double checksum = 0.0, t0 = host_seconds();
  for (long it = 0; it < iters; it++) {
    if (rank % 2 == 0) {
      region_begin("compute");
      work(1e-3 * compute_ms);
      region_end("compute");
    }
    double mine = (double)rank * 1e-3 + (double)it, sum = 0.0;
    region_begin("reduce");
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    region_end("reduce");
    checksum += sum;
    if (rank % 2 == 1) {
      region_begin("compute");
      work(1e-3 * compute_ms);
      region_end("compute");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (revprof_monitor_offload)
      revprof_monitor_offload();
  }
  double el = host_seconds() - t0, max = 0.0;
  MPI_Reduce(&el, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0 && !quiet)
    printf("bspbench: %d ranks, %ld iterations of %g ms: checksum %.6f, "
           "mean iteration %.4f ms\n",
           size, iters, compute_ms, checksum, 1e3 * max / (double)iters);
  MPI_Finalize();
  return 0;
}
