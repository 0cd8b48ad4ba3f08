/* A stand-in for the library of another MPI family (test
 * revprof_other_mpi): it defines the one symbol by which librevprof
 * recognises the MPI it was not built for (rp_engine.c), and nothing
 * else. Preloaded after librevprof, the process then looks like a program
 * of that other MPI. */
#include <mpi.h>

#define EXPORT __attribute__((visibility("default"))) /* built hidden */

#if defined(OPEN_MPI) /* this build is Open MPI's: stand in for MPICH */
int MPIR_Err_create_code(void);
EXPORT int MPIR_Err_create_code(void) { return 0; }
#elif defined(MPICH) /* and the reverse */
int ompi_mpi_init(void);
EXPORT int ompi_mpi_init(void) { return 0; }
#endif
