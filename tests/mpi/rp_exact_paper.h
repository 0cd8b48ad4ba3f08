/* What the exactness tests of the one-sided and MPI-IO rules
 * (rp_exact_rma.c, rp_exact_io.c) share: every rank's three clocks (min,
 * avg, max) computed on paper, the annotated compute steps that advance
 * them (REVPROF_STEP_MIN=5e-7 REVPROF_STEP=1e-6 REVPROF_STEP_MAX=2e-6),
 * and the comparison of this rank's paper clocks with librevprof's. */
#ifndef RP_EXACT_PAPER_H
#define RP_EXACT_PAPER_H

#include <math.h>
#include <stdio.h>

#include "revprof.h"

#define NB 3
#define MAXP 64

static const double STEP[NB] = {5e-7, 1e-6, 2e-6};
static int rank, size, mismatches;
static double T[MAXP][NB]; /* every rank's expected clocks */

/* rank r computed n steps */
static void steps(int r, double n) {
  for (int b = 0; b < NB; b++)
    T[r][b] += n * STEP[b];
}

/* this rank's clocks against the paper's, to 1e-9 s; mismatches counted
 * and printed on stderr */
static void compare(const char *phase) {
  double got[NB];
  revprof_now_bounds(&got[0], &got[1], &got[2]);
  for (int b = 0; b < NB; b++)
    if (fabs(got[b] - T[rank][b]) > 1e-9) {
      mismatches++;
      fprintf(stderr, "rank %d %s clock %d: got %.12e, expected %.12e\n",
              rank, phase, b, got[b], T[rank][b]);
    }
}

#endif
