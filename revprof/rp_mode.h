/* The modes of librevprof: each a table of hooks (rp_mode_ops, rp_state.h)
 * that rp_engine.c picks at MPI_Init by REVPROF_MODE. predict has no
 * hooks of its own but its report: its rules are the engine's clocks. */
#ifndef RP_MODE_H
#define RP_MODE_H

#include "rp_state.h"

/* rp_compensate.c: compensate mode (seed 000). The clocks carry the
 * delays instead of model costs; the profile of the thread that
 * initialized MPI is written at MPI_Finalize (compensate.txt/.csv). */
extern const rp_mode_ops rp_mode_compensate;

#endif
