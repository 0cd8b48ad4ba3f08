/* Bounds of measured computation: how much the same computation's measured
 * CPU time varies on this host, so that the min and max clocks cover it.
 * Pure rules (no MPI, no clocks) plus the calibration that feeds them. */
#ifndef RP_NOISE_H
#define RP_NOISE_H

#include "rp_clock.h"

/* Relative spread floor: run-to-run variation of a compute-bound program's
 * time on a quiet node, which one run's calibration cannot see. */
#define RP_NOISE_FLOOR 0.05
#define RP_NOISE_LO_CAP 0.5 /* min never below half the measured time */
#define RP_NOISE_HI_CAP 1.0 /* max never above twice it */
#define RP_NOISE_REPS 21    /* calibration repetitions */

typedef struct rp_noise {
  double lo, hi; /* measured CPU time t: min t * (1 - lo), max t * (1 + hi) */
  double busy;   /* median wall / CPU time of the calibration kernel: about
                    1 on a core of one's own, 2 when time-sharing with one
                    other process; 0 when unknown */
} rp_noise;

/* The spread from n repetitions of one kernel: cpu[i] its CPU seconds,
 * wall[i] its elapsed seconds (wall may be NULL). lo = 1 - q10 / median,
 * hi = q90 / median - 1 of the CPU times, each at least floor and at most
 * the caps; busy = median of wall[i] / cpu[i]. Non-positive or non-finite
 * samples are ignored; with fewer than 3 usable ones, lo = hi = floor and
 * busy = 0. */
void rp_noise_from_samples(const double *cpu, const double *wall, int n,
                           double floor, rp_noise *out);

/* Widens a measured compute amount (the same on the three clocks) by the
 * spread: dt[RP_MIN] = dt[RP_AVG] * (1 - lo), dt[RP_MAX] = dt[RP_AVG] *
 * (1 + hi). */
void rp_noise_widen(double dt[RP_NB], const rp_noise *nz);

/* Runs the calibration kernel RP_NOISE_REPS times, timing each with cpu()
 * and wall() (seconds), and fills out with rp_noise_from_samples and
 * RP_NOISE_FLOOR. About 5 ms. */
void rp_noise_calibrate(double (*cpu)(void), double (*wall)(void),
                        rp_noise *out);

#endif
