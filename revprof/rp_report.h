/* The report writer of librevprof (rp_report.c): report.txt/.csv at
 * MPI_Finalize, partial reports on a fatal signal or an abort, the report
 * of a run revprof did not predict. Above rp_state.h only; the mode's own
 * report comes through its hooks (rp_mode_ops). */
#ifndef RP_REPORT_H
#define RP_REPORT_H

#include "rp_state.h"



/* Rewrites the report's settings line (after REVPROF_COMPUTE=auto chose
 * again). */
void rp_report_settings(void);
/* Rank 0 writes report.txt / report.csv (and stderr) from all ranks. */
void rp_report_final(void);
/* A mode's own report (compensate, sample): every rank's flags
 * (rp_report_flag) merged, as the "flags:" block of report.txt; rank 0
 * gets the text (malloc'ed), the others NULL. Collective over
 * MPI_COMM_WORLD. */
char *rp_report_flags_block(void);
/* This rank's PARTIAL report (async-signal-safe as far as possible). */
void rp_report_partial(const char *reason);
/* Rank 0's report of a run that revprof did not predict at all (STATUS
 * its status line, KEY: WHAT its one flag), stderr too unless quiet;
 * without MPI calls, so usable at exit and when revprof turned off. */
void rp_report_unpredicted(const char *status, const char *key,
                           const char *what, int size, int echo);
/* Paths, handlers; called from rp_startup. */
void rp_report_startup(void);
void rp_report_shutdown(void);

#endif
