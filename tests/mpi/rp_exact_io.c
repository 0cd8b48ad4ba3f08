/* Exactness of librevprof's MPI-IO rules (rp_io.c): with the hand-written
 * rp_exact_model.lua (its MPI_File_* rows repeated below) every rank's
 * three clocks after each phase must equal the analytic values to 1e-9 s,
 * and the data written must read back. Every rank computes every rank's
 * clocks on paper, then compares its own.
 *   phase 1  MPI_File_open on MPI_COMM_WORLD: the clocks meet, + open(p)
 *   phase 2  independent MPI_File_write_at of 1024 (r + 1) bytes and
 *            MPI_File_read_at of 64: this rank alone, at p = the group
 *   phase 3  MPI_File_write_at_all of 512 (r + 1) bytes: the clocks meet,
 *            + write_at_all(p, the largest block)
 *   phase 4  MPI_File_set_view, MPI_File_read_all (individual pointer,
 *            through the view) and a split collective
 *            MPI_File_write_at_all_begin/_end
 *   phase 5  a file of half the ranks (split by parity): only they meet
 *   phase 6  MPI_File_sync, _set_size and _preallocate: the clocks meet,
 *            + the row at (p, the size asked for or 0); ranks 0 and 1
 *            MPI_File_delete their half's file: that rank alone, at p = 1
 *   phase 7  MPI_File_set_view, MPI_File_iwrite_at (costed when issued)
 *            and MPI_File_close
 * Run with REVPROF_COMPUTE=annotate REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6
 * REVPROF_STEP_MAX=2e-6 in a scratch directory. Prints "io exact: P ranks,
 * M mismatches". */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "rp_exact_paper.h"

/* t(p, d) = one + pp * p + dd * d, for the bounds min, avg, max */
typedef struct row {
  double one[NB], pp[NB], dd[NB];
} row;
static const row OPEN = {{1e-5, 2e-5, 4e-5}, {5e-7, 1e-6, 2e-6}, {0, 0, 0}};
static const row CLOSE = {{5e-6, 1e-5, 2e-5}, {1.5e-6, 3e-6, 6e-6}, {0, 0, 0}};
static const row WA = {{1.5e-6, 3e-6, 6e-6}, {5e-7, 1e-6, 2e-6},
                       {1e-9, 2e-9, 4e-9}};
static const row RA = {{1e-6, 2e-6, 4e-6}, {1e-6, 2e-6, 4e-6},
                       {5e-10, 1e-9, 2e-9}};
static const row WAA = {{2.5e-6, 5e-6, 1e-5}, {1e-6, 2e-6, 4e-6},
                        {1.5e-9, 3e-9, 6e-9}};
static const row RAA = {{2e-6, 4e-6, 8e-6}, {1.5e-6, 3e-6, 6e-6},
                        {1e-9, 2e-9, 4e-9}};

static const row SYNC = {{3e-6, 6e-6, 1.2e-5}, {1e-6, 2e-6, 4e-6}, {0, 0, 0}};
static const row SIZE = {{2e-6, 4e-6, 8e-6}, {5e-7, 1e-6, 2e-6},
                         {5e-10, 1e-9, 2e-9}};
static const row PREALLOC = {{4e-6, 8e-6, 1.6e-5}, {1e-6, 2e-6, 4e-6},
                             {2.5e-9, 5e-9, 1e-8}};
static const row VIEW = {{1.5e-6, 3e-6, 6e-6}, {2.5e-7, 5e-7, 1e-6},
                         {0, 0, 0}};
static const row DELETE = {{6e-6, 1.2e-5, 2.4e-5}, {5e-7, 1e-6, 2e-6},
                           {0, 0, 0}};

static double C(const row *f, int b, double p, double d) {
  return f->one[b] + f->pp[b] * p + f->dd[b] * d;
}

/* the members in[] (n of them) meet, then each adds f(n, d) */
static void meet(const int *in, int n, const row *f, double d) {
  for (int b = 0; b < NB; b++) {
    double m = 0.0;
    for (int i = 0; i < n; i++)
      m = fmax(m, T[in[i]][b]);
    for (int i = 0; i < n; i++)
      T[in[i]][b] = m + C(f, b, n, d);
  }
}

static void local(int r, const row *f, double p, double d) {
  for (int b = 0; b < NB; b++)
    T[r][b] += C(f, b, p, d);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > MAXP)
    MPI_Abort(MPI_COMM_WORLD, 2);
  memset(T, 0, sizeof T);
  int all[MAXP];
  for (int r = 0; r < size; r++)
    all[r] = r;
  static char buf[1024 * MAXP], back[1024 * MAXP];
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (char)(i * 7 + rank);
  MPI_File fh;
  MPI_Status st;
  int bad = 0;

  /* ---- phase 1: open */
  REVPROF_COMPUTE_STEPS(10 * (rank + 1));
  MPI_File_open(MPI_COMM_WORLD, "rp_exact_io.dat",
                MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int r = 0; r < size; r++)
    steps(r, 10 * (r + 1));
  meet(all, size, &OPEN, 0.0);
  compare("open");

  /* ---- phase 2: independent write and read at an offset */
  REVPROF_COMPUTE_STEPS(rank + 1);
  MPI_Offset mine = (MPI_Offset)1024 * MAXP * rank;
  MPI_File_write_at(fh, mine, buf, 1024 * (rank + 1), MPI_BYTE, &st);
  MPI_File_read_at(fh, mine, back, 64, MPI_BYTE, &st);
  bad += memcmp(back, buf, 64) != 0;
  for (int r = 0; r < size; r++) {
    steps(r, r + 1);
    local(r, &WA, size, 1024.0 * (r + 1));
    local(r, &RA, size, 64.0);
  }
  compare("independent");

  /* ---- phase 3: collective write at an offset */
  REVPROF_COMPUTE_STEPS(3 * (size - rank));
  MPI_File_write_at_all(fh, mine, buf, 512 * (rank + 1), MPI_BYTE, &st);
  for (int r = 0; r < size; r++)
    steps(r, 3 * (size - r));
  meet(all, size, &WAA, 512.0 * size);
  compare("write_at_all");

  /* ---- phase 4: read_all through a view, a split collective write */
  REVPROF_COMPUTE_STEPS(rank + 1);
  MPI_File_set_view(fh, mine, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_read_all(fh, back, 256, MPI_INT, &st); /* 1024 bytes */
  bad += memcmp(back, buf, 1024) != 0;
  MPI_File_write_at_all_begin(fh, 0, buf, 128, MPI_BYTE);
  MPI_File_write_at_all_end(fh, buf, &st);
  for (int r = 0; r < size; r++)
    steps(r, r + 1);
  meet(all, size, &VIEW, 0.0);
  meet(all, size, &RAA, 1024.0);
  meet(all, size, &WAA, 128.0);
  compare("read_all, split");

  /* ---- phase 5: a file of half the ranks */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_File hf;
  char name[64];
  snprintf(name, sizeof name, "rp_exact_io_%d.dat", rank % 2);
  REVPROF_COMPUTE_STEPS(5 * (rank + 1));
  MPI_File_open(half, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                &hf);
  MPI_Comm_free(&half); /* the file outlives the communicator */
  MPI_File_write_at_all(hf, 32 * rank, buf, 32, MPI_BYTE, &st);
  MPI_File_close(&hf);
  for (int parity = 0; parity < 2; parity++) {
    int in[MAXP], n = 0;
    for (int r = parity; r < size; r += 2)
      in[n++] = r;
    for (int i = 0; i < n; i++)
      steps(in[i], 5 * (in[i] + 1));
    meet(in, n, &OPEN, 0.0);
    meet(in, n, &WAA, 32.0);
    meet(in, n, &CLOSE, 0.0);
  }
  compare("half");

  /* ---- phase 6: sync, preallocate, set_size; delete on one rank */
  MPI_Offset big = (MPI_Offset)1024 * MAXP * size + 8192;
  REVPROF_COMPUTE_STEPS(4 * (rank + 1));
  MPI_File_sync(fh);
  REVPROF_COMPUTE_STEPS(size - rank);
  MPI_File_set_size(fh, big); /* first: Open MPI 4.1's OMPIO, after a
                                 preallocate of this file at 3 ranks,
                                 mismatched set_size's broadcast */
  MPI_File_preallocate(fh, big + 100);
  if (rank < 2)
    MPI_File_delete(name, MPI_INFO_NULL);
  for (int r = 0; r < size; r++)
    steps(r, 4 * (r + 1));
  meet(all, size, &SYNC, 0.0);
  for (int r = 0; r < size; r++)
    steps(r, size - r);
  meet(all, size, &SIZE, (double)big);
  meet(all, size, &PREALLOC, (double)big + 100.0);
  for (int r = 0; r < size && r < 2; r++)
    local(r, &DELETE, 1.0, 0.0);
  compare("sync, set_size, preallocate, delete");

  /* ---- phase 7: a view, non-blocking write, close */
  MPI_Request req;
  REVPROF_COMPUTE_STEPS(2);
  MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  MPI_File_iwrite_at(fh, mine + 4096, buf, 100, MPI_BYTE, &req);
  MPI_Wait(&req, &st);
  MPI_File_close(&fh);
  for (int r = 0; r < size; r++)
    steps(r, 2);
  meet(all, size, &VIEW, 0.0);
  for (int r = 0; r < size; r++)
    local(r, &WA, size, 100.0);
  meet(all, size, &CLOSE, 0.0);
  compare("set_view, iwrite, close");

  int total[2] = {0, 0}, mine2[2] = {mismatches, bad};
  MPI_Reduce(mine2, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("io exact: %d ranks, %d mismatches, %d bad reads\n", size,
           total[0], total[1]);
  MPI_Finalize();
  return 0;
}
