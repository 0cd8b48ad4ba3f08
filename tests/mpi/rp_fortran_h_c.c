/* C's side of rp_fortran_h.f90: MPI_COMM_WORLD's name as a C program sees
 * it, blank-padded into a Fortran CHARACTER(*) (gfortran's convention: the
 * length after the other arguments). A name set from Fortran must be the
 * one C sees, beside tool ranks too. */
#include <mpi.h>
#include <stddef.h>
#include <string.h>

void rp_c_world_name_(char *out, int *resultlen, size_t outlen);

void rp_c_world_name_(char *out, int *resultlen, size_t outlen) {
  char name[MPI_MAX_OBJECT_NAME];
  int n = 0;
  if (MPI_Comm_get_name(MPI_COMM_WORLD, name, &n) != MPI_SUCCESS)
    n = 0;
  size_t k = (size_t)n < outlen ? (size_t)n : outlen;
  memcpy(out, name, k);
  memset(out + k, ' ', outlen - k);
  *resultlen = n;
}
