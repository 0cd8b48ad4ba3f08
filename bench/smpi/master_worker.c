/* A self-scheduling master-worker whose master receives with MPI_ANY_SOURCE
 * and MPI_ANY_TAG, for comparing librevprof's prediction of wildcard
 * receives with SimGrid's smpirun (bench/smpi-wildcard.sh). Rank 0 hands
 * out TASKS tasks per worker, one at a time: first task w - 1 to worker w,
 * then the next task to whichever worker's result it receives first, and
 * the stop tag once none is left. Task i costs COST * (1 + (i * 7919 % 5)
 * + (i % 11) / 100) seconds of computation (1, 5, 4, 3, 2 times COST,
 * repeating, plus a few hundredths so that near-ties do not decide the
 * schedule), so the workers finish in an order that the clock decides; a result is D bytes
 * (at least 16) with tag 1 + i % 1000, the task index in its first bytes.
 * The computation is declared under the tools: smpi_execute_flops() on the
 * simulated 1 Gflop/s hosts under SimGrid (smpicc -DRP_SMPI),
 * revprof_compute_seconds() under librevprof (-DRP_REVPROF); built with
 * neither it is a real busy loop (clock_gettime, not MPI_Wtime, which is
 * the simulated clock under librevprof). Prints on rank 0
 * "master_worker: P ranks, TASKS tasks per worker, D bytes, T s, schedule
 * H, B bad" (T: the slowest rank's MPI_Wtime difference between a barrier
 * and the end; H: a hash of the (task, source) pairs in the order rank 0
 * received them, so that two runs with the same H made the same schedule;
 * B: results whose task or tag is not the one handed to their sender).
 * With "irecv" the master takes each result with MPI_Irecv(MPI_ANY_SOURCE)
 * and MPI_Wait instead of MPI_Recv.
 *   master_worker TASKS COST [D [irecv]] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_compute.h"

enum { TAG_TASK = 0, TAG_STOP = 1001 };

/* 1 to 5 units, plus 0 to 10 hundredths: tasks of one unit count differ
 * by more than the tools' modelling error, so that the schedule is not
 * decided by near-ties */
static double task_cost(double base, int i) {
  return base * (1 + (int)((long)i * 7919 % 5) + 0.01 * (i % 11));
}

/* Rank 0: hands out ntasks tasks to the size - 1 workers; returns the
 * number of bad results, *h the schedule's hash. */
static int master(int size, int ntasks, char *buf, int d, int irecv,
                  uint64_t *h) {
  int next = 0, bad = 0, *given = malloc(sizeof(int) * (size_t)size);
  if (given == NULL)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int w = 1; w < size; w++) { /* a first task each (ntasks >= size-1) */
    given[w] = next;
    MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
    next++;
  }
  for (int done = 0; done < ntasks; done++) {
    MPI_Status st;
    if (irecv) {
      MPI_Request rq;
      MPI_Irecv(buf, d, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                &rq);
      MPI_Wait(&rq, &st);
    } else
      MPI_Recv(buf, d, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &st);
    int src = st.MPI_SOURCE, task;
    memcpy(&task, buf, sizeof task);
    bad += task != given[src] || st.MPI_TAG != 1 + task % 1000;
    *h = hash(hash(*h, task), src);
    if (getenv("SCHEDULE")) /* the schedule itself, to compare two runs */
      fprintf(stderr, "task %d from %d\n", task, src);
    if (next < ntasks) {
      given[src] = next;
      MPI_Send(&next, 1, MPI_INT, src, TAG_TASK, MPI_COMM_WORLD);
      next++;
    } else
      MPI_Send(&next, 1, MPI_INT, src, TAG_STOP, MPI_COMM_WORLD);
  }
  free(given);
  return bad;
}

/* A worker: computes each task it is given and returns its result. */
static void worker(double base, char *buf, int d) {
  for (;;) {
    int task;
    MPI_Status st;
    MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == TAG_STOP)
      return;
    compute(task_cost(base, task));
    memset(buf, (task & 0x7f), (size_t)d);
    memcpy(buf, &task, sizeof task);
    MPI_Send(buf, d, MPI_BYTE, 0, 1 + task % 1000, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int tasks = argc >= 3 ? atoi(argv[1]) : 0;
  double base = argc >= 3 ? atof(argv[2]) : -1.0;
  int d = argc >= 4 ? atoi(argv[3]) : 16;
  int irecv = argc >= 5 && strcmp(argv[4], "irecv") == 0;
  if (tasks < 1 || base < 0.0 || d < 16 || size < 2 ||
      (argc >= 5 && !irecv)) {
    if (rank == 0)
      fprintf(stderr, "usage: master_worker TASKS COST [D [irecv]] (D >= 16,"
                      " 2 ranks or more)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int ntasks = tasks * (size - 1);
  char *buf = malloc((size_t)d);
  if (buf == NULL) {
    fprintf(stderr, "master_worker: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int bad = 0;
  uint64_t h = 14695981039346656037u;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank == 0)
    bad = master(size, ntasks, buf, d, irecv, &h);
  else
    worker(base, buf, d);
  double t = MPI_Wtime() - t0;
  double tmax;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("master_worker: %d ranks, %d tasks per worker, %d bytes, %.9e s,"
           " schedule %016llx, %d bad\n",
           size, tasks, d, tmax, (unsigned long long)h, bad);
  free(buf);
  MPI_Finalize();
  return bad != 0;
}
