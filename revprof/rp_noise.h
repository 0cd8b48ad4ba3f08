/* Measured computation (REVPROF_COMPUTE=measure): revprof's own part of a
 * measured gap, and how much the same computation's measured CPU time
 * varies on this host, so that the min and max clocks cover it. Pure rules
 * (no MPI, no clocks) plus the calibrations that feed them. */
#ifndef RP_NOISE_H
#define RP_NOISE_H

#include "rp_clock.h"

#include <math.h>

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
 * and wall() (seconds), and fills out with rp_noise_from_samples and floor
 * (REVPROF_COMPUTE_SPREAD, RP_NOISE_FLOOR by default). About 5 ms. */
void rp_noise_calibrate(double (*cpu)(void), double (*wall)(void),
                        double floor, rp_noise *out);

/* A measured gap (seconds) less revprof's own part of it, never below 0.
 * (This and the two gap rules below are inline: every MPI call runs them.) */
static inline double rp_gap_less_tool(double gap, double tool) {
  double g = gap - (tool > 0.0 ? tool : 0.0);
  return g > 0.0 && isfinite(g) ? g : 0.0;
}

/* revprof's own part of a measured gap, seconds: one read of the clock that
 * timed it (wall: the monotonic clock, cpu: the CPU-time clock), plus the
 * wrapper's bookkeeping (wrap). */
typedef struct rp_gap_tool {
  double wall, cpu, wrap;
} rp_gap_tool;

/* A gap shorter than RP_GAP_CPU_MIN seconds is short; after RP_GAP_CPU_RUN
 * short gaps in a row the next ones are timed by the monotonic clock, whose
 * read costs ~1/50 of the CPU-time clock's here, until a long gap comes
 * again. All others are timed by the CPU-time clock (time a rank spends
 * descheduled is not its computation). */
#define RP_GAP_CPU_MIN 20e-6
#define RP_GAP_CPU_RUN 16

/* 1 when the CPU-time clock is to be read around the next gap, given the
 * last one (wall_gap seconds) and *short_run, the number of short gaps
 * (< RP_GAP_CPU_MIN) in a row before it, which it updates. The CPU clock is
 * dropped only after RP_GAP_CPU_RUN short gaps in a row: a program spinning
 * on MPI_Iprobe, MPI_Test or MPI_Wtime then pays for the cheap monotonic
 * clock only, while a computation after a few quick calls (MPI_Comm_rank,
 * MPI_Barrier, MPI_Wtime) is still measured in CPU time, which
 * time-sharing of the cores does not inflate. */
static inline int rp_gap_wants_cpu(double wall_gap, int *short_run) {
  if (wall_gap >= RP_GAP_CPU_MIN)
    *short_run = 0;
  else if (*short_run < RP_GAP_CPU_RUN)
    *short_run += 1;
  return *short_run < RP_GAP_CPU_RUN;
}

/* 1 when a /proc/cpuinfo "flags" line says the cycle counter ticks at one
 * rate whatever the core's frequency and sleep state (constant_tsc and
 * nonstop_tsc): then it times gaps at a third of clock_gettime's cost. */
int rp_tsc_usable(const char *flags);

/* The computation charged for one gap: its CPU time less tool->cpu when
 * cpu_valid (the CPU clock was read at its start), never more than its
 * monotonic time; else its monotonic time less tool->wall, and, when
 * cpu_since >= 0 (a long gap at the end of a run of short ones: the CPU
 * clock read at its end, not at its start), never more than cpu_since, the
 * CPU time since the CPU clock's last read, so that time the rank spent
 * descheduled in it is not charged; all less tool->wrap, never below 0. */
static inline double rp_gap_charge(double wall_gap, int cpu_valid,
                                   double cpu_gap, double cpu_since,
                                   const rp_gap_tool *tool) {
  double g;
  if (cpu_valid) {
    g = rp_gap_less_tool(cpu_gap, tool->cpu);
    double w = rp_gap_less_tool(wall_gap, tool->wall);
    if (g > w && w > 0.0)
      g = w; /* never more than the time that passed */
  } else {
    g = rp_gap_less_tool(wall_gap, tool->wall);
    if (cpu_since >= 0.0) {
      double c = rp_gap_less_tool(cpu_since, tool->cpu);
      if (g > c)
        g = c; /* never more than the CPU time the whole run had */
    }
  }
  return rp_gap_less_tool(g, tool->wrap);
}

/* revprof's own part of a measured gap: the median over RP_READ_REPS pairs
 * of back-to-back reads of clock (the CPU-time clock of the gaps) of their
 * difference, i.e. the cost of one read, which is what lies between the
 * read at one call's exit and the read at the next call's entry when the
 * program does nothing in between. */
#define RP_READ_REPS 63
double rp_read_cost(double (*clock)(void));

#endif
