/* The model's BOI: messages from the model, the tool's work timed here
 * (rp_monitor_cal.h). */
#define _POSIX_C_SOURCE 200809L
#include "rp_monitor_cal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double rp_mon_model_msg(double bytes, void *ctx) {
  const revprof_model *m = ctx;
  double s[3] = {0}, r[3] = {0};
  revprof_model_eval(m, REVPROF_FN_SEND, 2.0, bytes, s);
  revprof_model_eval(m, REVPROF_FN_RECV, 2.0, bytes, r);
  return fmax(s[REVPROF_AVG], r[REVPROF_AVG]);
}

enum { E = 1024, REPS = 200, TRIES = 5, ROWS = 2000 };

double rp_mon_time_filter(int filter) {
  double *acc = malloc(rp_mon_payload(0, E, filter) * sizeof *acc);
  double *v = malloc(E * sizeof *v);
  double best = INFINITY;
  for (int k = 0; acc && v && k < TRIES; k++) {
    for (int e = 0; e < E; e++)
      v[e] = 1e-6 * (e + 1 + k);
    rp_mon_acc_init(acc, E, filter);
    double t0 = now();
    for (int i = 0; i < REPS; i++)
      rp_mon_acc_raw(acc, v, E, filter);
    best = fmin(best, (now() - t0) / (E * (double)REPS));
  }
  free(acc);
  free(v);
  return isfinite(best) ? best : 0.0;
}

double rp_mon_time_row(int filter) {
  FILE *f = fopen("/dev/null", "w");
  if (!f)
    return 0.0;
  double best = INFINITY, acc[RP_MON_STAT] = {0};
  for (int k = 0; k < TRIES; k++) {
    double t0 = now();
    for (int i = 0; i < ROWS; i++) {
      acc[0] = 4.0;
      acc[1] = acc[3] = 1e-6 * (i + 1);
      acc[2] = acc[1] * acc[1];
      acc[4] = 2.0 * acc[1];
      double mean, sd, mn, mx, n;
      rp_mon_stats_of(acc, 0, &mean, &sd, &mn, &mx, &n);
      if (filter == RP_MON_STATS) /* as the front-end's rows */
        fprintf(f, "%d,e%d,%.0f,%.9g,%.9g,%.9g,%.9g\n", k, i, n, mean, sd,
                mn, mx);
      else
        fprintf(f, "%d,e%d,%.9g,%.0f\n", k, i, rp_mon_hist_lo(i % 64), n);
    }
    fflush(f);
    best = fmin(best, (now() - t0) / ROWS);
  }
  fclose(f);
  return isfinite(best) ? best : 0.0;
}

void rp_mon_predict_model(const revprof_model *m, int apps, int tools,
                          int fanout, int events, int filter, int cores,
                          rp_mon_pred *out) {
  static double elem[2] = {-1.0, -1.0}, row[2] = {-1.0, -1.0};
  int fi = filter == RP_MON_HIST;
  if (elem[fi] < 0.0) { /* timed once per process */
    elem[fi] = rp_mon_time_filter(filter);
    row[fi] = rp_mon_time_row(filter);
  }
  int nz = events < RP_MON_PROBE_NONZERO ? events : RP_MON_PROBE_NONZERO;
  double rows = fi ? 2.0 * nz : nz;
  rp_mon_predict_x(apps, tools, fanout, events, filter, rp_mon_model_msg,
                   (void *)m, elem[fi], rows * row[fi], cores, out);
}
