/* revprof's own cost: predicted, observed by counting, regulated (seed
 * 002); see rp_icost.h. */
#define _GNU_SOURCE 1 /* open_memstream */
#include "rp_icost.h"
#include "rp_monitor.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { SER_MAX = 200000 }; /* time-series rows kept per rank */
enum { SER_W = 3 + RP_IC_KINDS }; /* t, elapsed, share, events by kind */

typedef struct ic_dec {
  double t, before, after;
  char action[8];
  char what[120];
  char why[120];
} ic_dec;

static struct {
  int started;
  double t0, start;          /* host seconds: MPI_Init, period start */
  double mark[RP_IC_KINDS];  /* counts at the period start */
  double n0[RP_IC_KINDS];    /* counts at MPI_Init's end (calibration) */
  double rate[RP_IC_KINDS];  /* expected events per second */
  double c0[RP_IC_KINDS];    /* costs per event the prediction used */
  char unknown[240];         /* kinds left out of the prediction */
  char rate_src[RP_PATH_MAX + 160];
  double pred, pred_max;     /* predicted share: this rank, all ranks */
  rp_ic_reg reg;
  int lowered;               /* things lowered and not given back */
  int stuck;                 /* periods over the bound with nothing left */
  double over;               /* periods over the bound */
  double *ser;
  size_t nser, ser_cap;
  int ser_full;
  double sum, sumsq, max;    /* of the period shares */
  double nper;
  ic_dec *dec;
  size_t ndec, dec_cap;
  char line[600];            /* rank 0: the summary line */
} IC;

static double mpi_calls(void) {
  double n = 0.0;
  for (int w = 0; w < RP_W_COUNT; w++)
    n += rp_g.fstat[w].calls;
  return n;
}

static void counts_now(double n[RP_IC_KINDS]) {
  memcpy(n, rp_g.ic_n, sizeof rp_g.ic_n);
  n[RP_IC_MPI] = mpi_calls();
  n[RP_IC_TRACE] = rp_trace_records();
}

/* The run's events so far, calibration left out. */
static void counts_run(double n[RP_IC_KINDS]) {
  counts_now(n);
  for (int k = 0; k < RP_IC_KINDS; k++)
    n[k] -= IC.n0[k];
}

/* The calibrated costs, 0 for what was not calibrated. */
static void costs(double c[RP_IC_KINDS]) {
  for (int k = 0; k < RP_IC_KINDS; k++)
    c[k] = rp_g.ic_cost[k] > 0.0 ? rp_g.ic_cost[k] : 0.0;
}

unsigned rp_icost_kinds(void) {
  return 1u << RP_IC_MPI | (rp_g.mode ? rp_g.mode->cost_kinds : 0u) |
         (rp_g.tracing ? 1u << RP_IC_TRACE : 0u) |
         (rp_monitor_app() ? 1u << RP_IC_OFFLOAD : 0u) |
         (rp_g.cfg.lua[0] && rp_g.cfg.compute == RP_COMPUTE_ANNOTATE
              ? 1u << RP_IC_LUA
              : 0u);
}

double rp_icost_period_events(int kind) {
  double n[RP_IC_KINDS];
  counts_now(n);
  return kind >= 0 && kind < RP_IC_KINDS ? n[kind] - IC.mark[kind] : 0.0;
}

void rp_icost_decision(const char *action, const char *what, const char *why,
                       double before, double after) {
  ic_dec *nd = rp_grow(IC.dec, &IC.dec_cap, IC.ndec + 1, sizeof *nd);
  if (nd == NULL)
    return;
  IC.dec = nd;
  ic_dec *d = &IC.dec[IC.ndec++];
  d->t = rp_host_seconds() - IC.t0;
  d->before = before;
  d->after = after;
  snprintf(d->action, sizeof d->action, "%s", action);
  snprintf(d->what, sizeof d->what, "%s", what);
  snprintf(d->why, sizeof d->why, "%s", why);
}

/* ------------------------------------------------------------ periods */

static void series_add(double t, double el, double share,
                       const double d[RP_IC_KINDS]) {
  if (IC.nser == SER_MAX) {
    IC.ser_full = 1;
    return;
  }
  double *ns = rp_grow(IC.ser, &IC.ser_cap, (IC.nser + 1) * SER_W,
                       sizeof *ns);
  if (ns == NULL) {
    IC.ser_full = 1;
    return;
  }
  IC.ser = ns;
  double *row = &IC.ser[IC.nser++ * SER_W];
  row[0] = t;
  row[1] = el;
  row[2] = share;
  memcpy(row + 3, d, RP_IC_KINDS * sizeof *d);
}

static void regulate(double share, double el) {
  rp_ic_action a = rp_ic_regulate(&IC.reg, share, IC.lowered > 0);
  if (a == RP_IC_KEEP || rp_g.mode->regulate == NULL) {
    if (a == RP_IC_LOWER && IC.stuck++ == 0)
      rp_icost_decision("lower", "nothing", "this mode's cost is its MPI "
                        "interception, which the run needs", share, share);
    return;
  }
  int k = rp_g.mode->regulate(a, share, el);
  if (a == RP_IC_LOWER) {
    IC.lowered += k;
    if (k == 0 && IC.stuck++ == 0)
      rp_icost_decision("lower", "nothing left", "every region and function "
                        "that can be turned off is off; the rest is the MPI "
                        "interception, which the run needs", share, share);
  } else {
    IC.lowered = k > IC.lowered ? 0 : IC.lowered - k;
  }
}

/* Region events that would alone cost the bound over a whole period;
 * infinite without a bound, or once nothing more can be lowered. */
static double budget(void) {
  double c = fmax(rp_g.ic_cost[RP_IC_REGION], rp_g.ic_cost[RP_IC_FUNCTION]);
  if (!(IC.reg.bound > 0.0) || IC.stuck || !(c > 0.0))
    return INFINITY;
  return IC.reg.bound * rp_g.cfg.cost_period / c;
}

static void close_period(double now) {
  double n[RP_IC_KINDS], d[RP_IC_KINDS], c[RP_IC_KINDS];
  double el = now - IC.start;
  counts_now(n);
  costs(c);
  for (int k = 0; k < RP_IC_KINDS; k++)
    d[k] = n[k] - IC.mark[k];
  double share = rp_ic_share(d, c, el);
  series_add(IC.start - IC.t0, el, share, d);
  IC.sum += share;
  IC.sumsq += share * share;
  IC.max = fmax(IC.max, share);
  IC.nper += 1.0;
  if (IC.reg.bound > 0.0 && share > IC.reg.bound)
    IC.over += 1.0;
  if (IC.reg.bound > 0.0)
    regulate(share, el); /* the period's events still readable */
  memcpy(IC.mark, n, sizeof n);
  IC.start = now;
  rp_g.ic_due = now + rp_g.cfg.cost_period;
  rp_g.ic_budget = budget();
}

void rp_icost_close(double now) {
  if (IC.started)
    close_period(now);
  else
    rp_g.ic_budget = INFINITY;
}

void rp_icost_poll(void) {
  rp_g.ic_tick = RP_IC_TICK;
  if (!IC.started && rp_g.checkpoint == NULL)
    return;
  double now = rp_host_seconds();
  if (IC.started && now >= rp_g.ic_due)
    close_period(now);
  if (rp_g.checkpoint != NULL && now >= rp_g.checkpoint_due)
    rp_g.checkpoint(now); /* the partial report's (rp_report.c) */
}

/* ---------------------------------------------------------- start-up */

/* This rank's rates from a previous run's cost.csv (a file or the folder
 * holding it), and the costs per event it timed from its own events (-1
 * where none): 0, or -1 with the reason in why. */
static int profile_rates(double rate[RP_IC_KINDS], double cost[RP_IC_KINDS],
                         char *why, size_t len) {
  char path[RP_PATH_MAX + 16], err[256];
  struct stat sb;
  snprintf(path, sizeof path, "%s", rp_g.cfg.cost_profile);
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    snprintf(path, sizeof path, "%s/cost.csv", rp_g.cfg.cost_profile);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    snprintf(why, len, "REVPROF_COST_PROFILE: cannot read %s: %s", path,
             strerror(errno));
    return -1;
  }
  char *text = NULL;
  size_t cap = 0, n = 0, k;
  char buf[4096];
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
    char *nt = rp_grow(text, &cap, n + k + 1, 1);
    if (nt == NULL)
      break;
    text = nt;
    memcpy(text + n, buf, k);
    n += k;
  }
  fclose(f);
  if (text == NULL) {
    snprintf(why, len, "REVPROF_COST_PROFILE: %s is empty", path);
    return -1;
  }
  text[n] = '\0';
  double *r = NULL, *cs = NULL;
  int nr = rp_ic_profile_parse(text, &r, &cs, err, sizeof err);
  free(text);
  if (nr <= 0) {
    snprintf(why, len, "REVPROF_COST_PROFILE: %s: %s", path, err);
    return -1;
  }
  if (rp_g.rank < nr) {
    memcpy(rate, &r[(size_t)rp_g.rank * RP_IC_KINDS],
           RP_IC_KINDS * sizeof *rate);
    memcpy(cost, &cs[(size_t)rp_g.rank * RP_IC_KINDS],
           RP_IC_KINDS * sizeof *cost);
    snprintf(IC.rate_src, sizeof IC.rate_src, "rates of %s", path);
  } else { /* more ranks now: the busiest rank's rates, the dearest cost */
    for (int k2 = 0; k2 < RP_IC_KINDS; k2++) {
      rate[k2] = 0.0;
      cost[k2] = -1.0;
      for (int i = 0; i < nr; i++) {
        rate[k2] = fmax(rate[k2], r[(size_t)i * RP_IC_KINDS + k2]);
        cost[k2] = fmax(cost[k2], cs[(size_t)i * RP_IC_KINDS + k2]);
      }
    }
    snprintf(IC.rate_src, sizeof IC.rate_src, "rates of %s (%d ranks: the "
             "ranks above use the largest)", path, nr);
  }
  free(r);
  free(cs);
  return 0;
}

/* The rates (IC.rate) the prediction uses; with a previous run's
 * cost.csv, the cost of a kind known only from its own events (offloads
 * without a probe or a model, Lua regions) is that run's until this run
 * times its first (rp_g.ic_cost). */
static void expected_rates(void) {
  char why[RP_PATH_MAX + 300];
  double cost[RP_IC_KINDS];
  unsigned kinds = rp_icost_kinds();
  if (rp_g.cfg.cost_profile[0] && profile_rates(IC.rate, cost, why,
                                                sizeof why) == 0) {
    int used = 0; /* a timed cost of that run */
    for (int k = 0; k < RP_IC_KINDS; k++) {
      if (!(kinds & 1u << k))
        IC.rate[k] = 0.0;
      else if ((k == RP_IC_OFFLOAD || k == RP_IC_LUA) &&
               rp_g.ic_cost[k] < 0.0 && cost[k] > 0.0) {
        rp_g.ic_cost[k] = cost[k];
        used = 1;
      }
    }
    if (used) {
      size_t n = strlen(IC.rate_src);
      snprintf(IC.rate_src + n, sizeof IC.rate_src - n, "%s",
               ", and its timed costs of the kinds not known before their "
               "events");
    }
    return;
  }
  if (rp_g.cfg.cost_profile[0]) {
    if (rp_g.rank == 0) /* every rank reads the same file */
      rp_warn("%s; the static rates are used", why);
    rp_report_flag("cost-profile", "%s; predicted with the static rates",
                   why);
  }
  memcpy(IC.rate, rp_g.cfg.cost_rate, sizeof IC.rate);
  snprintf(IC.rate_src, sizeof IC.rate_src, "%s",
           rp_g.cfg.cost_rates_set ? "REVPROF_COST_RATES over the seed's "
                                     "static rates"
                                   : "the seed's static rates (no "
                                     "REVPROF_COST_PROFILE)");
  for (int k = 0; k < RP_IC_KINDS; k++)
    if (!(kinds & 1u << k))
      IC.rate[k] = 0.0;
  if ((kinds & 1u << RP_IC_TRACE) && !(rp_g.cfg.cost_rates_set &&
                                       IC.rate[RP_IC_TRACE] > 0.0))
    IC.rate[RP_IC_TRACE] = IC.rate[RP_IC_MPI]; /* a record per call */
  if ((kinds & 1u << RP_IC_SAMPLE) && !(rp_g.cfg.cost_rates_set &&
                                        IC.rate[RP_IC_SAMPLE] > 0.0))
    IC.rate[RP_IC_SAMPLE] = IC.rate[RP_IC_MPI] *
                            rp_ic_sample_fraction(&rp_g.cfg.sample,
                                                  IC.rate[RP_IC_MPI]);
  /* offloads: the timer's rate, else (the program's calls decide) the
     seed's static rate of a library routine, the MPI calls' */
  if ((kinds & 1u << RP_IC_OFFLOAD) && !(rp_g.cfg.cost_rates_set &&
                                         IC.rate[RP_IC_OFFLOAD] > 0.0))
    IC.rate[RP_IC_OFFLOAD] = rp_monitor_offload_rate() > 0.0
                                 ? rp_monitor_offload_rate()
                                 : IC.rate[RP_IC_MPI];
}

/* What the regulation lowers first in this mode, for messages. */
static const char *lowers_first(void) {
  unsigned k = rp_icost_kinds();
  if (k & 1u << RP_IC_SAMPLE)
    return "the sampling rate";
  if (k & (1u << RP_IC_REGION | 1u << RP_IC_FUNCTION))
    return "the user regions and instrumented functions with the most "
           "calls and the least time per call";
  return "nothing: this mode's cost is its MPI interception, which the run "
         "needs";
}

static void print_kinds(FILE *f, const double *rate, const double *c) {
  unsigned kinds = rp_icost_kinds();
  fprintf(f, "  %-9s %14s %14s %12s\n", "kind", "cost/event_s", "events/s",
          "predicted_%");
  for (int k = 0; k < RP_IC_KINDS; k++)
    if ((kinds & 1u << k) && rp_g.ic_cost[k] < 0.0) /* known from its events */
      fprintf(f, "  %-9s %14s %14.6g %12s\n", rp_ic_kind_name(k), "unknown",
              rate[k], "left out");
    else if (kinds & 1u << k)
      fprintf(f, "  %-9s %14.3e %14.6g %12.4f\n", rp_ic_kind_name(k), c[k],
              rate[k], 100.0 * rate[k] * c[k]);
}

/* The kinds whose cost is known only from their first events (said with
 * the prediction, which leaves them out): IC.unknown, "" when none. */
static void unknown_kinds(void) {
  unsigned k = rp_icost_kinds();
  int off = (k & 1u << RP_IC_OFFLOAD) && rp_g.ic_cost[RP_IC_OFFLOAD] < 0.0;
  int lua = (k & 1u << RP_IC_LUA) && rp_g.ic_cost[RP_IC_LUA] < 0.0;
  IC.unknown[0] = '\0';
  if (off || lua)
    snprintf(IC.unknown, sizeof IC.unknown,
             "; left out until their first events are timed: %s%s%s",
             off ? "monitoring's offloads (revprof monitor-probe for this "
                   "job's shape, or a model, gives their cost before)"
                 : "",
             off && lua ? ", " : "", lua ? "Lua regions" : "");
}

void rp_icost_startup(void) {
  double c[RP_IC_KINDS];
  free(IC.ser);
  free(IC.dec);
  memset(&IC, 0, sizeof IC);
  IC.reg.bound = rp_g.cfg.max_overhead;
  expected_rates(); /* before the costs: it may know one */
  costs(c);
  memcpy(IC.c0, c, sizeof c);
  IC.pred = rp_ic_share(IC.rate, c, 1.0);
  IC.pred_max = IC.pred;
  PMPI_Allreduce(MPI_IN_PLACE, &IC.pred_max, 1, MPI_DOUBLE, MPI_MAX,
                 rp_g.world);
  double bound = rp_g.cfg.max_overhead;
  char b[64] = "no bound (REVPROF_MAX_OVERHEAD)";
  if (bound > 0.0)
    snprintf(b, sizeof b, "bound %.3g %%", 100.0 * bound);
  unknown_kinds();
  if (rp_g.rank == 0 && !rp_g.cfg.quiet)
    fprintf(stderr, "revprof: instrumentation cost predicted %.3g %% of "
            "one CPU per rank (max over ranks; %s%s), %s\n",
            100.0 * IC.pred_max, IC.rate_src, IC.unknown, b);
  if (bound > 0.0 && IC.pred_max > bound) {
    if (rp_g.rank == 0 && !rp_g.cfg.quiet)
      fprintf(stderr, "revprof: the predicted cost exceeds the bound: the "
              "first to be lowered is %s\n", lowers_first());
    rp_report_flag("cost-predicted", "predicted instrumentation cost %.3g "
                   "%% exceeds REVPROF_MAX_OVERHEAD=%.3g %%; lowered first: "
                   "%s", 100.0 * IC.pred_max, 100.0 * bound, lowers_first());
  }
  if (rp_g.cfg.dry_cost) {
    if (rp_g.rank == 0) {
      printf("revprof dry cost: mode %s, %d rank%s, %s\n",
             rp_g.mode->name, rp_g.size, rp_g.size == 1 ? "" : "s",
             IC.rate_src);
      print_kinds(stdout, IC.rate, c);
      printf("  predicted %.4f %% of one CPU per rank (max over ranks), "
             "%s\n", 100.0 * IC.pred_max, b);
      if (bound > 0.0 && IC.pred_max > bound)
        printf("  over the bound: lowered first: %s\n", lowers_first());
      fflush(stdout);
    }
    rp_g.active = 0;
    rp_g.finalized = 1; /* no partial report at exit */
    rp_g.partial_done = 1;
    rp_monitor_leave();
    PMPI_Finalize();
    exit(0);
  }
  IC.t0 = IC.start = rp_host_seconds();
  counts_now(IC.mark);
  memcpy(IC.n0, IC.mark, sizeof IC.n0);
  rp_g.ic_due = IC.start + rp_g.cfg.cost_period;
  rp_g.ic_budget = budget();
  rp_g.ic_tick = RP_IC_TICK;
  IC.started = 1;
}

/* ------------------------------------------------------------ report */

/* What each rank sends rank 0. */
enum { V_EL, V_PRED, V_OBS, V_MAX, V_MEAN, V_VAR, V_NPER, V_OVER, V_NDEC,
       V_N, V_C = V_N + RP_IC_KINDS, V_R = V_C + RP_IC_KINDS,
       V_P = V_R + RP_IC_KINDS, V_LEN = V_P + RP_IC_KINDS };

static char *rank_text(size_t *len, int series) {
  char *p = NULL;
  FILE *m = open_memstream(&p, len);
  if (m == NULL) {
    *len = 0;
    return NULL;
  }
  if (series)
    for (size_t i = 0; i < IC.nser; i++) {
      const double *row = &IC.ser[i * SER_W];
      fprintf(m, "%d,%.6f,%.6f,%.6g", rp_g.rank, row[0], row[1],
              100.0 * row[2]);
      for (int k = 0; k < RP_IC_KINDS; k++)
        fprintf(m, ",%.0f", row[3 + k]);
      fputc('\n', m);
    }
  else
    for (size_t i = 0; i < IC.ndec; i++) {
      const ic_dec *d = &IC.dec[i];
      fprintf(m, "%d,%.6f,%s,\"%s\",\"%s\",%.6g,%.6g\n", rp_g.rank, d->t,
              d->action, d->what, d->why, 100.0 * d->before,
              100.0 * d->after);
    }
  if (fclose(m) != 0) {
    free(p);
    *len = 0;
    return NULL;
  }
  return p;
}

static FILE *open_out(const char *name, char *path, size_t len) {
  snprintf(path, len, "%s/%s", rp_g.cfg.outdir, name);
  FILE *f = fopen(path, "w");
  if (f == NULL)
    rp_warn("cannot write %s: %s", path, strerror(errno));
  return f;
}

static void close_out(FILE *f, const char *path) {
  if (f && fclose(f) != 0)
    rp_warn("cannot write %s: %s", path, strerror(errno));
}

static void write_files(const double *all, const char *ser,
                        const char *dec) {
  char path[RP_PATH_MAX + 64];
  int p = rp_g.size;
  double obs_max = 0.0, per_max = 0.0, mean = 0.0, var = 0.0, over = 0.0;
  double ndec = 0.0, kobs[RP_IC_KINDS] = {0}, kpred[RP_IC_KINDS] = {0};
  double kcost[RP_IC_KINDS] = {0};
  for (int r = 0; r < p; r++) {
    const double *v = &all[(size_t)r * V_LEN];
    obs_max = fmax(obs_max, v[V_OBS]);
    per_max = fmax(per_max, v[V_MAX]);
    mean += v[V_MEAN] / p;
    var = fmax(var, v[V_VAR]);
    over += v[V_OVER];
    ndec += v[V_NDEC];
    for (int k = 0; k < RP_IC_KINDS; k++) {
      kcost[k] = fmax(kcost[k], v[V_C + k]);
      if (v[V_EL] > 0.0)
        kobs[k] = fmax(kobs[k], v[V_N + k] * v[V_C + k] / v[V_EL]);
      kpred[k] = fmax(kpred[k], v[V_R + k] * v[V_P + k]);
    }
  }
  double bound = rp_g.cfg.max_overhead;
  char b[64] = "no bound";
  if (bound > 0.0)
    snprintf(b, sizeof b, "bound %.3g %%", 100.0 * bound);
  snprintf(IC.line, sizeof IC.line,
           "instrumentation cost: predicted %.3g %%, observed %.3g %% of one "
           "CPU (max over ranks; worst period %.3g %%), %s%s (cost.txt)",
           100.0 * IC.pred_max, 100.0 * obs_max, 100.0 * per_max, b,
           ndec > 0.0 ? "; regulated" : "");
  rp_mkdir_p(rp_g.cfg.outdir);
  unsigned kinds = rp_icost_kinds();
  FILE *f = open_out("cost.csv", path, sizeof path);
  if (f) {
    fprintf(f, "rank,kind,count,cost_per_event_s,elapsed_s,observed_s,"
               "observed_pct,predicted_rate_per_s,predicted_pct,"
               "period_mean_pct,period_max_pct,period_var_pct2,periods,"
               "cost_from\n");
    for (int r = 0; r < p; r++) {
      const double *v = &all[(size_t)r * V_LEN];
      double tot = 0.0, n = 0.0;
      for (int k = 0; k < RP_IC_KINDS; k++) {
        if (!(kinds & 1u << k))
          continue;
        double o = v[V_N + k] * v[V_C + k];
        tot += o;
        n += v[V_N + k];
        fprintf(f, "%d,%s,%.0f,%.6e,%.6f,%.6e,%.6g,%.6g,%.6g,,,,,%s\n", r,
                rp_ic_kind_name(k), v[V_N + k], v[V_C + k], v[V_EL], o,
                v[V_EL] > 0.0 ? 100.0 * o / v[V_EL] : 0.0, v[V_R + k],
                100.0 * v[V_R + k] * v[V_P + k],
                k == RP_IC_OFFLOAD             ? "offloads"
                : k == RP_IC_LUA               ? "timed-calls"
                : rp_g.ic_from_model & 1u << k ? "model"
                                               : "calibrated");
      }
      fprintf(f, "%d,total,%.0f,,%.6f,%.6e,%.6g,,%.6g,%.6g,%.6g,%.6g,%.0f,\n",
              r, n, v[V_EL], tot, 100.0 * v[V_OBS], 100.0 * v[V_PRED],
              100.0 * v[V_MEAN], 100.0 * v[V_MAX], 1e4 * v[V_VAR],
              v[V_NPER]);
    }
    close_out(f, path);
  }
  f = open_out("cost-series.csv", path, sizeof path);
  if (f) {
    fprintf(f, "rank,t_s,period_s,observed_pct");
    for (int k = 0; k < RP_IC_KINDS; k++)
      fprintf(f, ",%s", rp_ic_kind_name(k));
    fprintf(f, "\n%s", ser ? ser : "");
    close_out(f, path);
  }
  f = open_out("cost-decisions.csv", path, sizeof path);
  if (f) {
    fprintf(f, "rank,t_s,action,what,why,before_pct,after_pct\n%s",
            dec ? dec : "");
    close_out(f, path);
  }
  f = open_out("cost.txt", path, sizeof path);
  if (f == NULL)
    return;
  fprintf(f, "revprof instrumentation cost (seed 002): mode %s, %d ranks\n",
          rp_g.mode->name, p);
  fprintf(f, "%s\n", IC.line);
  if (bound > 0.0 && over > 0.0)
    fprintf(f, "over the bound in %.0f periods (all ranks)\n", over);
  fprintf(f, "predicted from %s%s; observed = events counted x calibrated "
          "cost per event, per period of %g s (no timer around any event)\n",
          IC.rate_src, IC.unknown,
          rp_g.cfg.cost_period);
  if (kinds & 1u << RP_IC_OFFLOAD)
    fprintf(f, "offload: its cost per event is the mean time the rank's "
               "offloads took (monitoring times each one for its OC)\n");
  if (kinds & 1u << RP_IC_LUA)
    fprintf(f, "lua: its cost per event is the mean time of one Lua region "
               "call in %d, timed\n", RP_IC_LUA_EVERY);
  fprintf(f, "costs per event: %s\n",
          rp_g.ic_from_model == 0 ? "timed at MPI_Init"
          : (rp_g.ic_from_model & kinds) == kinds
              ? "the model's overhead table (characterize)"
              : "the model's overhead table where it has them (cost.csv's "
                "cost_from), the others timed at MPI_Init");
  fprintf(f, "\nby kind (max over ranks):\n  %-9s %14s %12s %12s\n", "kind",
          "cost/event_s", "predicted_%", "observed_%");
  for (int k = 0; k < RP_IC_KINDS; k++)
    if (kinds & 1u << k)
      fprintf(f, "  %-9s %14.3e %12.4f %12.4f\n", rp_ic_kind_name(k),
              kcost[k], 100.0 * kpred[k], 100.0 * kobs[k]);
  fprintf(f, "\nby rank:\n  %4s %12s %12s %12s %12s %12s %12s %8s\n", "rank",
          "elapsed_s", "predicted_%", "observed_%", "mean_%", "max_%",
          "var_%^2", "periods");
  for (int r = 0; r < p; r++) {
    const double *v = &all[(size_t)r * V_LEN];
    fprintf(f, "  %4d %12.6f %12.4f %12.4f %12.4f %12.4f %12.4g %8.0f\n", r,
            v[V_EL], 100.0 * v[V_PRED], 100.0 * v[V_OBS], 100.0 * v[V_MEAN],
            100.0 * v[V_MAX], 1e4 * v[V_VAR], v[V_NPER]);
  }
  fprintf(f, "\nregulation: %s; %.0f decisions (cost-decisions.csv)%s\n", b,
          ndec, bound > 0.0 ? "" : " (REVPROF_MAX_OVERHEAD=P% turns it on)");
  if (dec && *dec)
    fprintf(f, "rank,t_s,action,what,why,before_pct,after_pct\n%s", dec);
  fprintf(f, "\ntime series: cost-series.csv\n");
  close_out(f, path);
}

void rp_icost_finish(void) {
  double v[V_LEN] = {0}, c[RP_IC_KINDS], n[RP_IC_KINDS];
  if (!IC.started)
    return;
  double now = rp_host_seconds();
  if (now > IC.start)
    close_period(now);
  IC.started = 0;
  rp_g.ic_due = INFINITY;
  rp_g.ic_budget = INFINITY;
  counts_run(n);
  costs(c);
  v[V_EL] = now - IC.t0;
  v[V_PRED] = IC.pred;
  v[V_OBS] = rp_ic_share(n, c, v[V_EL]);
  v[V_MAX] = IC.max;
  v[V_NPER] = IC.nper;
  if (IC.nper > 0.0) {
    v[V_MEAN] = IC.sum / IC.nper;
    v[V_VAR] = fmax(0.0, IC.sumsq / IC.nper - v[V_MEAN] * v[V_MEAN]);
  }
  v[V_OVER] = IC.over;
  v[V_NDEC] = (double)IC.ndec;
  memcpy(&v[V_N], n, sizeof n);
  memcpy(&v[V_C], c, sizeof c);
  memcpy(&v[V_R], IC.rate, sizeof IC.rate);
  memcpy(&v[V_P], IC.c0, sizeof IC.c0);
  if (IC.over > 0.0 && IC.stuck)
    rp_report_flag("cost-over-bound", "the instrumentation cost exceeded "
                   "REVPROF_MAX_OVERHEAD=%.3g %% in %.0f periods and nothing "
                   "more could be lowered (cost.txt)",
                   100.0 * rp_g.cfg.max_overhead, IC.over);
  if (IC.ser_full)
    rp_report_flag("cost-series", "cost-series.csv keeps the first %d "
                   "periods of each rank", SER_MAX);
  double *all = rp_g.rank == 0 ? malloc((size_t)rp_g.size * sizeof v) : NULL;
  PMPI_Gather(v, V_LEN, MPI_DOUBLE, all, V_LEN, MPI_DOUBLE, 0,
              rp_world_shadow());
  size_t sl = 0, dl = 0;
  char *s = rank_text(&sl, 1), *d = rank_text(&dl, 0);
  MPI_Comm w = rp_world_shadow();
  char *ser = rp_gather_text(s, sl, w), *dec = rp_gather_text(d, dl, w);
  if (rp_g.rank == 0 && all)
    write_files(all, ser, dec);
  free(s);
  free(d);
  free(ser);
  free(dec);
  free(all);
  free(IC.ser);
  free(IC.dec);
  IC.ser = NULL;
  IC.dec = NULL;
  IC.nser = IC.ser_cap = IC.ndec = IC.dec_cap = 0;
}

const char *rp_icost_line(void) { return IC.line; }

void rp_icost_partial_line(char *buf, size_t len) {
  double n[RP_IC_KINDS], c[RP_IC_KINDS];
  if (!IC.started) {
    snprintf(buf, len, "%s", "");
    return;
  }
  counts_run(n);
  costs(c);
  snprintf(buf, len, "instrumentation cost on this rank so far: observed "
           "%.3g %% of one CPU (worst period %.3g %%), predicted %.3g %%",
           100.0 * rp_ic_share(n, c, rp_host_seconds() - IC.t0),
           100.0 * IC.max, 100.0 * IC.pred);
}
