/* One-sided (rp_rma.c) and MPI-IO (rp_io.c) rules of librevprof: above
 * the collectives, whose clock meeting they use. */
#ifndef RP_OPS_H
#define RP_OPS_H

#include "rp_coll.h"

/* ---------------------------------------------------------- rp_rma.c */

/* One-sided rules (predict mode; no-ops without a model): the window
 * attribute key, a window's clock state at its creation, an operation of
 * d bytes (fn: REVPROF_FN_PUT, _GET, _ACCUMULATE), and the synchronizations. */
void rp_rma_startup(void);
void rp_rma_shutdown(void);
void rp_rma_created(MPI_Win win, MPI_Comm comm);
void rp_rma_op(MPI_Win win, revprof_fn fn, double d);
void rp_rma_fence(MPI_Win win);
void rp_rma_post(MPI_Group group, MPI_Win win);
void rp_rma_start(MPI_Group group, MPI_Win win);
void rp_rma_complete(MPI_Win win);
void rp_rma_wait(MPI_Win win);
void rp_rma_test(MPI_Win win, int flag);
void rp_rma_lock(MPI_Win win);
void rp_rma_unlock(MPI_Win win);
void rp_rma_flush(MPI_Win win);
/* ----------------------------------------------------------- rp_io.c */

/* MPI-IO rules (rp_io.c; the open and close wrappers live there too): a
 * data access of wrapper w on fh costed by the model's fn with d bytes,
 * collective (coll: the clocks meet over the file's group) or not; rc the
 * call's result, host its host seconds (counted as not predicted where the
 * model has no row for fn). fn REVPROF_FN_COUNT: costs nothing. */
void rp_io_access(rp_wid w, MPI_File fh, revprof_fn fn, double d, int coll,
                  int rc, double host);
void rp_io_shutdown(void);

#endif
