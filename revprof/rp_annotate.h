/* Lua cost functions for annotated regions (REVPROF_LUA): the file defines
 * one function per region name, called by revprof_region("name", args...)
 * in a sandbox through rp_lua. No MPI. */
#ifndef RP_ANNOTATE_H
#define RP_ANNOTATE_H

#include <stddef.h>

#include "rp_clock.h"

typedef struct rp_annotate rp_annotate;

#define RP_ANNOTATE_MAX_ARGS 16

/* Loads a cost-function file. The chunk runs with math, string and a few
 * safe base functions (no io, os, require, load) and either returns a table
 * of functions or defines them as globals:
 *     function stencil(n, iters) return 2.5e-9 * n * iters end
 * On error returns < 0 (REVPROF_ESYNTAX, REVPROF_ELUA, REVPROF_ENOMEM) and
 * writes "file:line: message" to err. text != NULL loads from a string
 * (name is then only used in messages). */
int rp_annotate_open(const char *name, const char *text, rp_annotate **out,
                     char *err, size_t errlen);

/* Cost of one execution of region with nargs numeric arguments. The Lua
 * function returns seconds (same on all three clocks) or three numbers
 * min, avg, max with min <= avg <= max, all finite and >= 0. On error (no
 * such region, Lua error, bad result) returns < 0 with a message naming the
 * file, the region and the line, and out[] set to 0. */
int rp_annotate_cost(rp_annotate *a, const char *region, int nargs,
                     const double *args, double out[RP_NB], char *err,
                     size_t errlen);

void rp_annotate_free(rp_annotate *a); /* NULL is a no-op */

#endif
