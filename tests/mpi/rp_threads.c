/* MPI_THREAD_MULTIPLE under revprof (issue 17): two threads per rank call
 * MPI at the same time. Thread k of each rank works on its own duplicate of
 * MPI_COMM_WORLD: ping-pongs with the next and previous rank (blocking and
 * non-blocking, small and large), an allreduce, a bcast and a barrier.
 * Every message's data and count are checked. Then a phase made to
 * overlap: on rank 0, thread 1 waits in MPI_Recv for rank 1, which answers
 * only after thread 0 of rank 0 has sent to it, so two calls of rank 0 are
 * inside MPI at once.
 * Prints "threads: N ranks, provided P, F failed checks" on rank 0; exits
 * 77 when the MPI does not provide MPI_THREAD_MULTIPLE. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { ITERS = 40, BIG = 20000 };

static int rank, size;
static MPI_Comm comms[2];
static int failed[2];

static void check(int k, int ok, const char *what, int it) {
  if (!ok && failed[k]++ < 5)
    fprintf(stderr, "rank %d thread %d: %s wrong at iteration %d\n", rank, k,
            what, it);
}

static void *work(void *arg) {
  int k = *(int *)arg;
  MPI_Comm c = comms[k];
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int *sbuf = malloc(BIG * sizeof *sbuf), *rbuf = malloc(BIG * sizeof *rbuf);
  if (sbuf == NULL || rbuf == NULL) {
    failed[k]++;
    free(sbuf);
    free(rbuf);
    return NULL;
  }
  for (int it = 0; it < ITERS; it++) {
    int n = it % 2 ? BIG : 1 + it;
    for (int i = 0; i < n; i++)
      sbuf[i] = rank * 1000000 + k * 100000 + it * 100 + i % 97;
    MPI_Status st;
    int count = -1;
    /* blocking ring: even ranks send first */
    if (rank % 2 == 0) {
      MPI_Send(sbuf, n, MPI_INT, next, it, c);
      MPI_Recv(rbuf, BIG, MPI_INT, prev, it, c, &st);
    } else {
      MPI_Recv(rbuf, BIG, MPI_INT, prev, it, c, &st);
      MPI_Send(sbuf, n, MPI_INT, next, it, c);
    }
    MPI_Get_count(&st, MPI_INT, &count);
    check(k, count == n, "blocking count", it);
    check(k, rbuf[0] == prev * 1000000 + k * 100000 + it * 100 &&
                 rbuf[n - 1] == prev * 1000000 + k * 100000 + it * 100 +
                                    (n - 1) % 97,
          "blocking data", it);
    /* non-blocking, the other way round */
    MPI_Request rq[2];
    MPI_Status sts[2];
    MPI_Irecv(rbuf, BIG, MPI_INT, next, it, c, &rq[0]);
    MPI_Isend(sbuf, n, MPI_INT, prev, it, c, &rq[1]);
    MPI_Waitall(2, rq, sts);
    MPI_Get_count(&sts[0], MPI_INT, &count);
    check(k, count == n && rbuf[n - 1] == next * 1000000 + k * 100000 +
                                             it * 100 + (n - 1) % 97,
          "non-blocking", it);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    check(k, sum == size, "allreduce", it);
    int root = it % size, v = rank == root ? 7 * it + k : -1;
    MPI_Bcast(&v, 1, MPI_INT, root, c);
    check(k, v == 7 * it + k, "bcast", it);
  }
  MPI_Barrier(c);
  free(sbuf);
  free(rbuf);
  return NULL;
}

static void sleep_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

static volatile int waiting;

/* rank 0, thread 1: waits for rank 1's answer */
static void *overlap_wait(void *arg) {
  int v = -1;
  (void)arg;
  waiting = 1;
  MPI_Recv(&v, 1, MPI_INT, 1, 91, comms[1], MPI_STATUS_IGNORE);
  check(1, v == 4242, "overlap answer", 0);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      printf("threads: MPI_THREAD_MULTIPLE not provided (%d); skipped\n",
             provided);
    MPI_Finalize();
    return 77;
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  pthread_t th[2];
  int ids[2] = {0, 1};
  for (int k = 0; k < 2; k++)
    pthread_create(&th[k], NULL, work, &ids[k]);
  for (int k = 0; k < 2; k++)
    pthread_join(th[k], NULL);

  /* calls of two threads inside MPI at once, three times */
  for (int round = 0; round < 3 && size >= 2; round++) {
    if (rank == 0) {
      pthread_t w;
      waiting = 0;
      pthread_create(&w, NULL, overlap_wait, NULL);
      while (!waiting)
        sleep_ms(1);
      sleep_ms(20); /* thread 1 is inside MPI_Recv by now */
      int v = 17;
      MPI_Send(&v, 1, MPI_INT, 1, 90, comms[0]);
      pthread_join(w, NULL);
    } else if (rank == 1) {
      int v = -1, a = 4242;
      MPI_Recv(&v, 1, MPI_INT, 0, 90, comms[0], MPI_STATUS_IGNORE);
      check(0, v == 17, "overlap message", round);
      MPI_Send(&a, 1, MPI_INT, 0, 91, comms[1]);
    }
  }
  MPI_Comm_free(&comms[0]);
  MPI_Comm_free(&comms[1]);
  int bad = failed[0] + failed[1], all = 0;
  MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("threads: %d ranks, provided %d, %d failed checks\n", size,
           provided, all);
  MPI_Finalize();
  return all != 0;
}
