/* MPI_Comm_spawn under revprof (issue 17): the parent job spawns one copy
 * of this program; parent and child exchange a number over the
 * intercommunicator, the second time through MPI_Mprobe/MPI_Mrecv on the
 * child's side. The child's reports must go to a folder of their own
 * (REVPROF_OUTPUT_DIR/spawned-<pid>), never over the parent's.
 * Prints "spawn: parent got N, 0 failed checks" (parent rank 0). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Comm parent, child;
  int rank, failed = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) { /* the child: answer the parent's rank 0 */
    int v = 0;
    MPI_Recv(&v, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
    v += 1;
    MPI_Send(&v, 1, MPI_INT, 0, 8, parent);
    /* a matched probe and receive on the parent's communicator */
    MPI_Message m;
    MPI_Status st;
    int n = -1;
    MPI_Mprobe(0, 9, parent, &m, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    v = n == 1 ? v + 1 : -1;
    MPI_Send(&v, 1, MPI_INT, 0, 10, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  char *args[] = {NULL};
  MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child,
                 MPI_ERRCODES_IGNORE);
  if (rank == 0) {
    int v = 41;
    MPI_Send(&v, 1, MPI_INT, 0, 7, child);
    MPI_Recv(&v, 1, MPI_INT, 0, 8, child, MPI_STATUS_IGNORE);
    failed = v != 42;
    int w = 100;
    MPI_Send(&w, 1, MPI_INT, 0, 9, child);
    MPI_Recv(&w, 1, MPI_INT, 0, 10, child, MPI_STATUS_IGNORE);
    failed += w != 101;
    printf("spawn: parent got %d, %d failed checks\n", v, failed);
  }
  MPI_Comm_disconnect(&child);
  MPI_Finalize();
  return failed;
}
