/* Halo-exchange stencil: 2-D Jacobi iteration for the Laplace equation on
 * an NX x NY grid split into strips of rows; each sweep exchanges the edge
 * rows with both neighbours by MPI_Isend/MPI_Irecv/MPI_Waitall, and every
 * --check sweeps an MPI_Allreduce gives the largest change. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#ifdef HAVE_REVPROF
#include "revprof.h"
#else /* built without revprof: the annotations cost nothing */
#define REVPROF_COMPUTE_STEPS(n) ((void)(n))
#define revprof_region(...) 0
#endif

static void usage(void) {
  fprintf(stderr,
          "usage: stencil [--nx NX] [--ny NY] [--iters K] [--check C]\n"
          "               [--annotate none|steps|lua]\n"
          "  grid NX x NY (default 512 x 512), K sweeps (default 100), an\n"
          "  MPI_Allreduce of the residual every C sweeps (default 10);\n"
          "  annotate: REVPROF_COMPUTE_STEPS(cells) or revprof_region("
          "\"sweep\", cells)\n"
          "  per sweep (costs in stencil_costs.lua)\n");
}

static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  long nx = 512, ny = 512, iters = 100, check = 10;
  int ann = 1, rank, size; /* 0 none, 1 steps, 2 lua */
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    int ok = i + 1 < argc;
    if (ok && strcmp(argv[i], "--nx") == 0)
      ok = parse_long(argv[++i], 3, 1 << 20, &nx) == 0;
    else if (ok && strcmp(argv[i], "--ny") == 0)
      ok = parse_long(argv[++i], 1, 1 << 20, &ny) == 0;
    else if (ok && strcmp(argv[i], "--iters") == 0)
      ok = parse_long(argv[++i], 1, 1 << 30, &iters) == 0;
    else if (ok && strcmp(argv[i], "--check") == 0)
      ok = parse_long(argv[++i], 1, 1 << 30, &check) == 0;
    else if (ok && strcmp(argv[i], "--annotate") == 0) {
      const char *a = argv[++i];
      ann = strcmp(a, "none") == 0 ? 0 : strcmp(a, "steps") == 0 ? 1
            : strcmp(a, "lua") == 0 ? 2 : -1;
      ok = ann >= 0;
    } else
      ok = 0;
    if (!ok) {
      if (rank == 0)
        usage();
      MPI_Finalize();
      return 2;
    }
  }
  if (ny < size) {
    if (rank == 0)
      fprintf(stderr, "stencil: --ny %ld is less than the %d ranks\n", ny,
              size);
    MPI_Finalize();
    return 2;
  }

  /* rows [r0, r0 + rows) are mine, plus a halo row above and below */
  long rows = ny / size + (rank < ny % size);
  long r0 = rank * (ny / size) + (rank < ny % size ? rank : ny % size);
  double *u = calloc((size_t)((rows + 2) * nx), sizeof *u);
  double *v = calloc((size_t)((rows + 2) * nx), sizeof *v);
  if (!u || !v) {
    fprintf(stderr, "stencil: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < rows + 2; i++) { /* hot top edge, fixed boundary */
    long g = r0 + i - 1;
    for (long j = 0; j < nx; j++)
      u[i * nx + j] = v[i * nx + j] = g < 0 ? 100.0 : 0.0;
  }
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), change = 0.0;
  for (long k = 0; k < iters; k++) {
    MPI_Request req[4];
    MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: GCC 12 misreads MPICH's
                         access attributes on it (-Wstringop-overflow) */
    MPI_Irecv(&u[0], (int)nx, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[(rows + 1) * nx], (int)nx, MPI_DOUBLE, down, 0,
              MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[nx], (int)nx, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[rows * nx], (int)nx, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
              &req[3]);
    MPI_Waitall(4, req, st);
    double local = 0.0;
    for (long i = 1; i <= rows; i++) {
      long g = r0 + i - 1;
      if (g == ny - 1) /* the bottom row stays fixed */
        continue;
      for (long j = 1; j < nx - 1; j++) {
        double x = 0.25 * (u[(i - 1) * nx + j] + u[(i + 1) * nx + j] +
                           u[i * nx + j - 1] + u[i * nx + j + 1]);
        double d = fabs(x - u[i * nx + j]);
        local = d > local ? d : local;
        v[i * nx + j] = x;
      }
    }
    if (ann == 1)
      REVPROF_COMPUTE_STEPS(rows * (nx - 2));
    else if (ann == 2)
      (void)revprof_region("sweep", (double)(rows * (nx - 2)));
    double *t = u; /* halo rows of v are stale: only the interior is read */
    u = v;
    v = t;
    if ((k + 1) % check == 0 || k + 1 == iters)
      MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  double t1 = MPI_Wtime();

  double sum = 0.0, total, elapsed = t1 - t0, longest;
  for (long i = 1; i <= rows; i++)
    for (long j = 0; j < nx; j++)
      sum += u[i * nx + j];
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&elapsed, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("stencil: %ld x %ld iters %ld ranks %d change %.6e checksum "
           "%.10e elapsed %.9f s\n", nx, ny, iters, size, change, total,
           longest);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
