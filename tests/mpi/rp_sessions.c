/* An MPI-4 sessions program (issue 17), never MPI_Init: MPI_Session_init, a
 * group from the world process set, a communicator from it; a ring of
 * MPI_Sendrecv, a non-blocking ring (Irecv, Send, Wait), a broadcast and a
 * reduction on it, each message's data checked; and, in the middle, a
 * "library" that opens a second session of its own, reduces on its own
 * communicator and closes it again (the program's first session stays
 * open). Under revprof the clocks follow the program's communicators and
 * the report is written at the last MPI_Session_finalize.
 * With the argument "init" the program also initializes the world model
 * (MPI_Init first, MPI_Finalize last), as a program with a sessions
 * library does; beside monitoring's tool ranks mpi://WORLD must then be
 * the application's ranks. The process set's "mpi_size" must match.
 * Prints "sessions: N ranks, F failed checks" on the first rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 256, ROUNDS = 5 };

static MPI_Comm from_world(MPI_Session s, const char *tag) {
  MPI_Group g;
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
  MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
  MPI_Group_free(&g);
  return c;
}

/* A library with a session of its own: 1 when its sum is wrong. */
static int library(int rank, int size) {
  MPI_Session s;
  int sum = 0, failed;
  if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS)
    return 1;
  MPI_Comm c = from_world(s, "org.revprof.test.library");
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
  failed = sum != size * (size - 1) / 2;
  MPI_Comm_free(&c);
  MPI_Session_finalize(&s);
  return failed;
}

/* 1 when the process set's "mpi_size" is not size */
static int pset_size_differs(MPI_Session s, int size) {
  MPI_Info info;
  char v[32] = "";
  int flag = 0;
  if (MPI_Session_get_pset_info(s, "mpi://WORLD", &info) != MPI_SUCCESS)
    return 1;
  MPI_Info_get(info, "mpi_size", (int)sizeof v - 1, v, &flag);
  MPI_Info_free(&info);
  return !flag || atoi(v) != size;
}

int main(int argc, char **argv) {
  MPI_Session s;
  int rank, size, failed = 0;
  int init = argc > 1 && strcmp(argv[1], "init") == 0;
  if (init)
    MPI_Init(&argc, &argv);
  if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS)
    return 1;
  MPI_Comm c = from_world(s, "org.revprof.test");
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  failed += pset_size_differs(s, size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[N], in[N];
  for (int r = 0; r < ROUNDS; r++) {
    for (int i = 0; i < N; i++)
      out[i] = rank * 1000 + r * 10 + i;
    MPI_Sendrecv(out, N, MPI_INT, right, r, in, N, MPI_INT, left, r, c,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
      failed += in[i] != left * 1000 + r * 10 + i;
    MPI_Request q;
    MPI_Irecv(in, N, MPI_INT, right, 100 + r, c, &q);
    MPI_Send(out, N, MPI_INT, left, 100 + r, c);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
      failed += in[i] != right * 1000 + r * 10 + i;
    int root = r % size, v = rank == root ? 42 + r : -1;
    MPI_Bcast(&v, 1, MPI_INT, root, c);
    failed += v != 42 + r;
    if (r == 2)
      failed += library(rank, size);
  }
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
  failed += sum != size;
  int all = 0;
  MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, c);
  if (rank == 0)
    printf("sessions: %d ranks, %d failed checks\n", size, all);
  MPI_Comm_free(&c);
  MPI_Session_finalize(&s);
  if (init)
    MPI_Finalize();
  return all != 0;
}
