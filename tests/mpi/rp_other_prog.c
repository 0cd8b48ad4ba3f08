/* A program linked with a stand-in for the other MPI family's library
 * (rp_other_mpi.c built under that family's library name): revprof run
 * and sweep must refuse it before they launch anything (test
 * revprof_run_bad). It says so if it ever runs. */
#include <stdio.h>

int rp_other_mpi_mark(void);

int main(void) {
  printf("the program of the other MPI ran (%d)\n", rp_other_mpi_mark());
  return 0;
}
