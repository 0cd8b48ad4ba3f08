/* Calls librevprof has no cost rule for yet (issue 17): one-sided
 * communication with a fence, with post-start-complete-wait and with
 * lock/unlock; a neighbourhood allgather on a periodic 2-D cartesian
 * communicator; collective file writes at explicit offsets, read back; and
 * where the MPI has them (MPI 4) a persistent broadcast. Every result is
 * checked. They run natively under revprof, so the report must name them
 * in its "not-predicted" flag (and, as they are nearly all this program
 * does, mark the prediction incomplete).
 *
 *   rp_uncosted FILE [ITERS]   FILE: a scratch file for MPI-IO (removed)
 *
 * Prints "uncosted: N checks, F failed checks" on rank 0; exits 1 when
 * F > 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, checks, failed;

static void check(int ok, const char *what, int it) {
  checks++;
  if (!ok && failed++ < 20)
    fprintf(stderr, "rank %d: %s wrong in iteration %d\n", rank, what, it);
}

static int value(int from, int it, int k) { return 1000 * from + 10 * it + k; }

/* Each rank puts its values into the next rank's window (fence epochs). */
static void fence(MPI_Win win, int *slot, int it) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int mine[4];
  for (int k = 0; k < 4; k++)
    mine[k] = value(rank, it, k);
  MPI_Win_fence(0, win);
  MPI_Put(mine, 4, MPI_INT, next, 0, 4, MPI_INT, win);
  MPI_Win_fence(0, win);
  for (int k = 0; k < 4; k++)
    check(slot[k] == value(prev, it, k), "MPI_Put (fence)", it);
}

/* Post-start-complete-wait: rank r exposes its window to r - 1 and
 * accesses r + 1, which it gets from. */
static void pscw(MPI_Win win, int *slot, int it) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Group world, to, from;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &next, &to);
  MPI_Group_incl(world, 1, &prev, &from);
  for (int k = 0; k < 4; k++)
    slot[k] = value(rank, it, k + 4);
  int got[4] = {-1, -1, -1, -1};
  MPI_Win_post(from, 0, win);
  MPI_Win_start(to, 0, win);
  MPI_Get(got, 4, MPI_INT, next, 0, 4, MPI_INT, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  for (int k = 0; k < 4; k++)
    check(got[k] == value(next, it, k + 4), "MPI_Get (PSCW)", it);
  MPI_Group_free(&to);
  MPI_Group_free(&from);
  MPI_Group_free(&world);
}

/* Passive target: every rank adds 1 to slot 4 of rank 0's window. */
static void lock(MPI_Win win, int *slot, int it) {
  int one = 1;
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    slot[4] = 0;
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, 4, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    check(slot[4] == size, "MPI_Accumulate (lock)", it);
    MPI_Win_unlock(0, win);
  }
}

static void neighbours(MPI_Comm cart, int it) {
  int nb[4], got[4], src, dst;
  for (int d = 0; d < 2; d++) { /* the order MPI defines: -1, +1 per dim */
    MPI_Cart_shift(cart, d, 1, &src, &dst);
    nb[2 * d] = src;
    nb[2 * d + 1] = dst;
  }
  int mine = value(rank, it, 9);
  MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, cart);
  for (int k = 0; k < 4; k++)
    check(got[k] == value(nb[k], it, 9), "MPI_Neighbor_allgather", it);
}

static void file_io(const char *path, int it) {
  MPI_File fh;
  int mine[8], back[8];
  for (int k = 0; k < 8; k++)
    mine[k] = value(rank, it, k);
  MPI_Offset at = (MPI_Offset)rank * (MPI_Offset)sizeof mine;
  int rc = MPI_File_open(MPI_COMM_WORLD, path,
                         MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  check(rc == MPI_SUCCESS, "MPI_File_open", it);
  if (rc != MPI_SUCCESS)
    return;
  MPI_File_write_at_all(fh, at, mine, 8, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  MPI_File_read_at_all(fh, at, back, 8, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  check(memcmp(mine, back, sizeof mine) == 0, "MPI_File_write_at_all", it);
}

static void persistent(int it) {
#if MPI_VERSION >= 4
  int v = rank == 0 ? value(0, it, 7) : -1;
  MPI_Request req;
  MPI_Bcast_init(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
  check(v == value(0, it, 7), "MPI_Bcast_init", it);
#else
  (void)it;
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: rp_uncosted FILE [ITERS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int iters = argc > 2 ? atoi(argv[2]) : 20;

  int *slot;
  MPI_Win win;
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &slot, &win);
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);

  for (int it = 0; it < iters; it++) {
    fence(win, slot, it);
    pscw(win, slot, it);
    lock(win, slot, it);
    neighbours(cart, it);
    file_io(argv[1], it);
    persistent(it);
  }
  MPI_Comm_free(&cart);
  MPI_Win_free(&win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    MPI_File_delete(argv[1], MPI_INFO_NULL);

  int all = 0, nchecks = 0;
  MPI_Reduce(&failed, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

  MPI_Reduce(&checks, &nchecks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("uncosted: %d checks, %d failed checks\n", nchecks, all);
  MPI_Finalize();
  return all > 0;
}
