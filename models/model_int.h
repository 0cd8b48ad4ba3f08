/* Internals shared by the files of the model library (not installed); the
 * revprof tool and revprof-characterize use rp_errf and rp_perror too. */
#ifndef RP_MODEL_INT_H
#define RP_MODEL_INT_H

#include "revprof_model.h"

#if defined(__GNUC__)
#define RP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RP_PRINTF(a, b)
#endif

/* snprintf into err (no-op when err is NULL). */
void rp_errf(char *err, size_t errlen, const char *fmt, ...) RP_PRINTF(3, 4);

/* How the programs report a failed call: prints "who: msg" and a newline
 * on stderr, or "who: revprof_strerror(code)" when msg is NULL or empty
 * (the call wrote no message). who names the program with its subcommand
 * ("revprof sweep"), and may add the step that failed ("revprof-characterize:
 * datasheet failed"). Returns code. Library code never calls it. */
int rp_perror(const char *who, int code, const char *msg);

/* One bound of regime r at (p, d): sum of coef[k] times its basis term
 * (coef: r->avg, r->min or r->max). */
double rp_regime_sum(const revprof_regime *r, const double *coef, double p,
                     double d);

/* Writes x with the fewest digits (up to 17) that read back to x exactly. */
void rp_fmt_double(char *buf, size_t len, double x);

/* Opens path.tmp for writing; rp_commit_file closes it and renames it to
 * path (or removes it when ok is 0 or the close fails). */
FILE *rp_open_tmp(const char *path, char *tmp, size_t tmplen, char *err,
                  size_t errlen);
int rp_commit_file(FILE *f, const char *tmp, const char *path, int ok,
                   char *err, size_t errlen);

#endif
