/* A stand-in for the library of another MPI family (test
 * revprof_other_mpi): it defines the one symbol by which librevprof
 * recognises the MPI it was not built for (rp_engine.c), and nothing
 * else. Preloaded after librevprof, the process then looks like a program
 * of that other MPI. Built once more under that family's library name
 * (libmpich.so.12, libmpi.so.40) for rp_other_prog.c to link with, it
 * stands in for the library that revprof run reads in a program's list of
 * libraries. */
#include <mpi.h>

#define EXPORT __attribute__((visibility("default"))) /* built hidden */

#if defined(OPEN_MPI) /* this build is Open MPI's: stand in for MPICH */
int MPIR_Err_create_code(void);
EXPORT int MPIR_Err_create_code(void) { return 0; }
#elif defined(MPICH) /* and the reverse */
int ompi_mpi_init(void);
EXPORT int ompi_mpi_init(void) { return 0; }
#endif

int rp_other_mpi_mark(void);
EXPORT int rp_other_mpi_mark(void) { return 1; }
