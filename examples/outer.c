/* Cowichan "outer" (seed 003 section 5): N points; each rank computes its
 * rows of the N x N distance matrix and of the vector of distances from the
 * origin, after an MPI_Allgather of the points and before an MPI_Allreduce
 * of the largest distance, which (times N) fills the diagonal. */
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

enum annotate { ANNOTATE_NONE, ANNOTATE_STEPS, ANNOTATE_LUA };

static void usage(void) {
  fprintf(stderr,
          "usage: outer [--n N] [--annotate none|steps|lua]\n"
          "  --n N        number of points (default 1000)\n"
          "  --annotate   compute annotation for revprof: steps = "
          "REVPROF_COMPUTE_STEPS(N)\n"
          "               per row, lua = revprof_region(\"row\", N) per row "
          "(costs in\n"
          "               outer_costs.lua); ignored unless built with "
          "revprof\n");
}

/* Point i of the input, the same on every rank and every run. */
static void point(long i, double *x, double *y) {
  unsigned long s = (unsigned long)i * 2654435761ul + 12345ul;
  s ^= s >> 13;
  s *= 0x5bd1e995ul;
  s ^= s >> 15;
  *x = (double)(s % 100000ul) / 1000.0;
  *y = (double)((s / 100000ul) % 100000ul) / 1000.0;
}

int main(int argc, char **argv) {
  long n = 1000;
  enum annotate ann = ANNOTATE_STEPS;
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
      char *end;
      n = strtol(argv[++i], &end, 10);
      if (*end || n < 1 || n > 100000) {
        if (rank == 0)
          fprintf(stderr, "outer: --n needs 1..100000 points\n");
        MPI_Finalize();
        return 2;
      }
    } else if (strcmp(argv[i], "--annotate") == 0 && i + 1 < argc) {
      const char *a = argv[++i];
      ann = strcmp(a, "none") == 0    ? ANNOTATE_NONE
            : strcmp(a, "steps") == 0 ? ANNOTATE_STEPS
            : strcmp(a, "lua") == 0   ? ANNOTATE_LUA
                                      : (enum annotate)-1;
      if ((int)ann < 0) {
        if (rank == 0)
          usage();
        MPI_Finalize();
        return 2;
      }
    } else {
      if (rank == 0)
        usage();
      MPI_Finalize();
      return 2;
    }
  }

  /* block rows: nloc per rank, the last ranks may hold padding */
  long nloc = (n + size - 1) / size, first = rank * nloc;
  long mine = first >= n ? 0 : (first + nloc > n ? n - first : nloc);
  double *pts = calloc((size_t)(2 * nloc * size), sizeof *pts);
  double *loc = calloc((size_t)(2 * nloc), sizeof *loc);
  double *mat = calloc((size_t)(nloc * n), sizeof *mat);
  double *vec = calloc((size_t)nloc, sizeof *vec);
  if (!pts || !loc || !mat || !vec) {
    fprintf(stderr, "outer: rank %d: out of memory for n = %ld\n", rank, n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < mine; i++)
    point(first + i, &loc[2 * i], &loc[2 * i + 1]);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Allgather(loc, (int)(2 * nloc), MPI_DOUBLE, pts, (int)(2 * nloc),
                MPI_DOUBLE, MPI_COMM_WORLD);
  double dmax = 0.0;
  for (long i = 0; i < mine; i++) {
    const double xi = pts[2 * (first + i)], yi = pts[2 * (first + i) + 1];
    double *row = &mat[i * n];
    for (long j = 0; j < n; j++) { /* both triangles, as in the paper */
      if (j == first + i)
        continue;
      row[j] = hypot(xi - pts[2 * j], yi - pts[2 * j + 1]); /* 1 step */
      if (row[j] > dmax)
        dmax = row[j];
    }
    vec[i] = hypot(xi, yi);
    if (ann == ANNOTATE_STEPS)
      REVPROF_COMPUTE_STEPS(n);
    else if (ann == ANNOTATE_LUA)
      (void)revprof_region("row", (double)n);
  }
  double gmax;
  MPI_Allreduce(&dmax, &gmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (long i = 0; i < mine; i++)
    mat[i * n + first + i] = (double)n * gmax;
  double t1 = MPI_Wtime();

  double sum = 0.0, total;
  for (long i = 0; i < mine; i++) {
    for (long j = 0; j < n; j++)
      sum += mat[i * n + j];
    sum += vec[i];
  }
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  double elapsed = t1 - t0, longest;
  MPI_Reduce(&elapsed, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("outer: n %ld ranks %d max %.6f checksum %.10e elapsed %.9f s\n",
           n, size, gmax, total, longest);
  free(pts);
  free(loc);
  free(mat);
  free(vec);
  MPI_Finalize();
  return 0;
}
