/* The engine of librevprof (rp_engine.c): start-up and shut-down of every
 * layer below it, and the choice of the mode. Only the wrappers are above
 * it. */
#ifndef RP_ENGINE_H
#define RP_ENGINE_H

#include "rp_mode.h"
#include "rp_monitor.h"
#include "rp_ops.h"
#include "rp_report.h"

/* Called from MPI_Init* after PMPI succeeded (rp_g.entry set), or from the
 * first MPI_Session_init: settings, model, agreement among ranks, shadows,
 * handlers. world: MPI_COMM_NULL for MPI_COMM_WORLD (whose last ranks
 * monitoring may take), else a communicator of every process of the job
 * that a sessions program never sees (made from the session revprof opens
 * for itself). Leaves rp_g.active set or not. */
void rp_startup(int provided, MPI_Comm world);
/* Called from MPI_Finalize before PMPI_Finalize. */
void rp_shutdown(void);

#endif
