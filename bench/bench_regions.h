/* What the region benches share (cost_regions.c, comp_imbalance.c): user
 * regions through librevprof's API when built with HAVE_REVPROF, nothing
 * in their native build, and a chain of dependent floating-point steps as
 * the work. */
#ifndef BENCH_REGIONS_H
#define BENCH_REGIONS_H

#ifdef HAVE_REVPROF
#include "revprof.h"
#define REGION_BEGIN(n) revprof_region_begin(n)
#define REGION_END(n) revprof_region_end(n)
#else
#define REGION_BEGIN(n) ((void)0)
#define REGION_END(n) ((void)0)
#endif

/* k dependent steps from g (the compiler cannot fold them) */
static inline double chain(double g, long k) {
  for (long i = 0; i < k; i++)
    g = g * 0.9999999 + 1e-7;
  return g;
}

#endif
