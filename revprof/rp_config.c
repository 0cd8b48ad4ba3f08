/* Settings of librevprof: REVPROF_* variables read, checked and defaulted
 * (see rp_config.h; the user documentation is docs/revprof.md). */
#include "rp_config.h"
#include "rp_noise.h"
#include "rp_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "revprof_model.h"

const char *rp_compute_name(rp_compute_mode m) {
  switch (m) {
  case RP_COMPUTE_ZERO: return "zero";
  case RP_COMPUTE_ANNOTATE: return "annotate";
  case RP_COMPUTE_MEASURE: return "measure";
  case RP_COMPUTE_AUTO: return "auto";
  }
  return "?";
}

/* REVPROF_CONTENTION's values, indexed by RP_CONTENTION_* */
static const char *const contention_names[] = {"off", "epoch", "world"};

const char *rp_contention_name(int c) {
  return c >= 0 && c < 3 ? contention_names[c] : "?";
}

rp_compute_mode rp_compute_resolve(rp_compute_mode asked, int have_lua) {
  if (asked != RP_COMPUTE_AUTO)
    return asked;
  return have_lua ? RP_COMPUTE_ANNOTATE : RP_COMPUTE_MEASURE;
}

int rp_compute_switches(int is_auto, rp_compute_mode now) {
  return is_auto && now == RP_COMPUTE_MEASURE;
}

/* A number >= 0 (> 0 when positive is set), finite. */
static int get_seconds(const char *name, const char *v, int positive,
                       double *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  while (*end == ' ')
    end++;
  if (end == v || *end || errno || !isfinite(x) || x < 0.0 ||
      (positive && x == 0.0)) {
    snprintf(err, errlen, "%s=\"%s\": expected a %s number%s", name, v,
             positive ? "positive" : "non-negative",
             strstr(name, "STEP") || strstr(name, "TIME") ||
                     strstr(name, "STALL")
                 ? " of seconds"
                 : "");
    return REVPROF_EINVAL;
  }
  *out = x;
  return 0;
}

static int get_path(const char *name, const char *v, char *buf, size_t len,
                    char *err, size_t errlen) {
  if (strlen(v) >= len) {
    snprintf(err, errlen, "%s: path longer than %zu bytes", name, len - 1);
    return REVPROF_ERANGE;
  }
  snprintf(buf, len, "%s", v);
  return 0;
}

int rp_quiet_env(void) {
  static int q = -1;
  if (q < 0) {
    const char *v = getenv("REVPROF_QUIET");
    q = v != NULL && strcmp(v, "1") == 0;
  }
  return q;
}

void rp_launcher_rank(rp_getenv_fn get, void *ud, int *rank, int *size) {
  static const char *const rk[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                   "PMIX_RANK"};
  static const char *const sz[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  *rank = 0;
  *size = 1;
  for (size_t i = 0; i < sizeof rk / sizeof *rk; i++) {
    const char *v = get(rk[i], ud);
    if (v && *v) {
      *rank = atoi(v);
      break;
    }
  }
  for (size_t i = 0; i < sizeof sz / sizeof *sz; i++) {
    const char *v = get(sz[i], ud);
    if (v && *v) {
      *size = atoi(v);
      break;
    }
  }
}

const char *rp_config_outdir(rp_getenv_fn get, void *ud,
                             const char *fallback) {
  const char *d = get("REVPROF_OUTPUT_DIR", ud);
  return d && *d ? d : fallback;
}

/* Every REVPROF_* variable of the README's "Environment variables" table,
 * librevprof's and the tools' (tests/env_check.lua keeps the two lists the
 * same). */
static const char *const env_known[] = {
    "REVPROF_ANALYSIS", "REVPROF_CHARACTERIZE", "REVPROF_CHECKPOINT",
    "REVPROF_COMPUTE", "REVPROF_COMPUTE_SPREAD", "REVPROF_CONTENTION",
    "REVPROF_COST_PERIOD", "REVPROF_COST_PROFILE", "REVPROF_COST_RATES",
    "REVPROF_CPU_SCALE", "REVPROF_DRY_COST", "REVPROF_EXCHANGE",
    "REVPROF_GNUPLOT",
    "REVPROF_INJECT_OVERHEAD", "REVPROF_INSTRUCTION_TIME", "REVPROF_LIB",
    "REVPROF_LUA", "REVPROF_MAX_OVERHEAD", "REVPROF_MODE", "REVPROF_MODEL",
    "REVPROF_MONITOR", "REVPROF_MONITOR_ACCEPT", "REVPROF_MONITOR_FANOUT",
    "REVPROF_MONITOR_FILTER", "REVPROF_MONITOR_INTERVAL",
    "REVPROF_MONITOR_OFFLOAD", "REVPROF_MONITOR_POLL_US",
    "REVPROF_MONITOR_PROBE", "REVPROF_MONITOR_PROBE_FILE", "REVPROF_MPIEXEC",
    "REVPROF_OUTPUT_DIR", "REVPROF_OVERHEAD", "REVPROF_PACK_MAX",
    "REVPROF_PDFLATEX", "REVPROF_PROBE", "REVPROF_QUIET",
    "REVPROF_REGIONS_OFF", "REVPROF_SAMPLE", "REVPROF_SEED",
    "REVPROF_SETUP_OUT", "REVPROF_STEP", "REVPROF_STEP_MAX",
    "REVPROF_STEP_MIN", "REVPROF_TEST_CHAR_ABORT", "REVPROF_TEST_CHAR_DRIFT",
    "REVPROF_TEST_CALIBRATION", "REVPROF_TEST_DRIFT",
    "REVPROF_TEST_NODES", "REVPROF_TEST_STARTUP_DELAY", "REVPROF_TIMER",
    "REVPROF_TRACE",
    "REVPROF_WILDCARD", "REVPROF_WILDCARD_STALL", "REVPROF_WILDCARD_TIMEOUT",
    "REVPROF_WTIME"};

int rp_env_unknown(const char *entry, char *hint, size_t len) {
  char name[128];
  size_t n = strcspn(entry, "=");
  if (len)
    hint[0] = '\0';
  if (strncmp(entry, "REVPROF_", 8) != 0)
    return 0;
  if (n >= sizeof name)
    return 1; /* longer than any of revprof's */
  memcpy(name, entry, n);
  name[n] = '\0';
  int best = 3; /* within 2 edits: a swap of two letters is 2 */
  const char *near = NULL;
  for (size_t i = 0; i < sizeof env_known / sizeof *env_known; i++) {
    if (strcmp(name, env_known[i]) == 0)
      return 0;
    int d = rp_edits(name, env_known[i], 0);
    if (d < best) {
      best = d;
      near = env_known[i];
    }
  }
  if (near && len)
    snprintf(hint, len, "%s", near);
  return 1;
}

int rp_config_read(rp_config *c, rp_getenv_fn get, void *ud, char *err,
                   size_t errlen) {
  const char *v;
  int rc = 0, have_step = 0;
  memset(c, 0, sizeof *c);
  c->mode = RP_MODE_PREDICT;
  c->compute = RP_COMPUTE_AUTO;
  c->step[RP_MIN] = c->step[RP_AVG] = c->step[RP_MAX] = 1e-9;
  c->cpu_scale = 1.0;
  c->compute_spread = -1.0; /* unset: the model's, else RP_NOISE_FLOOR */
  c->pack_max = -1.0; /* the MPI library's default */
  c->wildcard_timeout = 0.2;
  c->wildcard_stall = 60.0;
  c->contention = RP_CONTENTION_EPOCH;
  c->sample.kind = RP_SAMPLE_RANDOM; /* REVPROF_SAMPLE=random:0.1 */
  c->sample.p = 0.1;
  c->seed = 1;
  c->analysis = RP_ANALYSIS_STAT | RP_ANALYSIS_FREQ;
  snprintf(c->outdir, sizeof c->outdir, "revprof-out");
  if (err && errlen)
    err[0] = '\0';

  if ((v = get("REVPROF_MODE", ud)) && *v) {
    if (rp_mode_parse(v, &c->mode) != 0) {
      snprintf(err, errlen,
               "REVPROF_MODE=\"%s\": unknown mode (this revprof knows "
               "'predict', 'compensate', 'sample' and 'off'%s)",
               v,
               strcmp(v, "measure") == 0
                   ? "; measure mode is not implemented yet"
                   : "");
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_COMPUTE", ud)) && *v) {
    if (strcmp(v, "zero") == 0)
      c->compute = RP_COMPUTE_ZERO;
    else if (strcmp(v, "annotate") == 0)
      c->compute = RP_COMPUTE_ANNOTATE;
    else if (strcmp(v, "measure") == 0)
      c->compute = RP_COMPUTE_MEASURE;
    else if (strcmp(v, "auto") == 0)
      c->compute = RP_COMPUTE_AUTO;
    else {
      snprintf(err, errlen,
               "REVPROF_COMPUTE=\"%s\": expected auto, zero, annotate or "
               "measure",
               v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_STEP", ud)) && *v) {
    if ((rc = get_seconds("REVPROF_STEP", v, 0, &c->step[RP_AVG], err,
                          errlen)))
      return rc;
    c->step[RP_MIN] = c->step[RP_MAX] = c->step[RP_AVG];
    have_step = 1;
  }
  if ((v = get("REVPROF_STEP_MIN", ud)) && *v &&
      (rc = get_seconds("REVPROF_STEP_MIN", v, 0, &c->step[RP_MIN], err,
                        errlen)))
    return rc;
  if ((v = get("REVPROF_STEP_MAX", ud)) && *v &&
      (rc = get_seconds("REVPROF_STEP_MAX", v, 0, &c->step[RP_MAX], err,
                        errlen)))
    return rc;
  if (!have_step && (get("REVPROF_STEP_MIN", ud) || get("REVPROF_STEP_MAX", ud)))
    c->step[RP_AVG] = 0.5 * (c->step[RP_MIN] + c->step[RP_MAX]);
  if (c->step[RP_MIN] > c->step[RP_AVG] || c->step[RP_AVG] > c->step[RP_MAX]) {
    snprintf(err, errlen,
             "REVPROF_STEP_MIN (%g) <= REVPROF_STEP (%g) <= REVPROF_STEP_MAX "
             "(%g) does not hold",
             c->step[RP_MIN], c->step[RP_AVG], c->step[RP_MAX]);
    return REVPROF_EINVAL;
  }
  if ((v = get("REVPROF_CPU_SCALE", ud)) && *v &&
      (rc = get_seconds("REVPROF_CPU_SCALE", v, 1, &c->cpu_scale, err,
                        errlen)))
    return rc;
  if ((v = get("REVPROF_COMPUTE_SPREAD", ud)) && *v) {
    if ((rc = get_seconds("REVPROF_COMPUTE_SPREAD", v, 0, &c->compute_spread,
                          err, errlen)))
      return rc;
    if (c->compute_spread > RP_NOISE_LO_CAP) {
      snprintf(err, errlen, "REVPROF_COMPUTE_SPREAD=\"%s\": at most %g (a "
               "fraction of the measured time)", v, RP_NOISE_LO_CAP);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_INSTRUCTION_TIME", ud)) && *v &&
      (rc = get_seconds("REVPROF_INSTRUCTION_TIME", v, 0, &c->sec_per_ins,
                        err, errlen)))
    return rc;
  if ((v = get("REVPROF_WILDCARD", ud)) && *v) {
    if (strcmp(v, "predicted") == 0)
      c->wildcard_real = 0;
    else if (strcmp(v, "real") == 0)
      c->wildcard_real = 1;
    else {
      snprintf(err, errlen, "REVPROF_WILDCARD=\"%s\": expected predicted or "
               "real", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_CONTENTION", ud)) && *v) {
    int k = 0;
    while (k < 3 && strcmp(v, contention_names[k]) != 0)
      k++;
    if (k < 3)
      c->contention = k;
    else {
      snprintf(err, errlen, "REVPROF_CONTENTION=\"%s\": expected epoch, "
               "world or off", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_EXCHANGE", ud)) && *v) {
    if (strcmp(v, "latency") == 0 || strcmp(v, "sendrecv") == 0)
      c->exchange_sendrecv = v[0] == 's';
    else {
      snprintf(err, errlen, "REVPROF_EXCHANGE=\"%s\": expected latency or "
               "sendrecv", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_WILDCARD_TIMEOUT", ud)) && *v &&
      (rc = get_seconds("REVPROF_WILDCARD_TIMEOUT", v, 1,
                        &c->wildcard_timeout, err, errlen)))
    return rc;
  if ((v = get("REVPROF_WILDCARD_STALL", ud)) && *v &&
      (rc = get_seconds("REVPROF_WILDCARD_STALL", v, 0, &c->wildcard_stall,
                        err, errlen)))
    return rc;
  if ((v = get("REVPROF_SAMPLE", ud)) && *v &&
      (rc = rp_sample_parse(v, &c->sample, err, errlen)))
    return rc;
  if ((v = get("REVPROF_ANALYSIS", ud)) && *v &&
      (rc = rp_analysis_parse(v, &c->analysis, err, errlen)))
    return rc;
  if ((v = get("REVPROF_SEED", ud)) && *v) {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (errno || end == v || *end || *v == '-' || s > 0xffffffffull) {
      snprintf(err, errlen, "REVPROF_SEED=\"%s\": expected an integer "
               "from 0 to 4294967295", v);
      return REVPROF_EINVAL;
    }
    c->seed = (unsigned long)s;
  }
  if ((v = get("REVPROF_PACK_MAX", ud)) && *v) {
    if ((rc = get_seconds("REVPROF_PACK_MAX", v, 0, &c->pack_max, err,
                          errlen)))
      return rc;
    if (c->pack_max > 1048576.0) {
      snprintf(err, errlen, "REVPROF_PACK_MAX=\"%s\": at most 1048576 bytes",
               v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_WTIME", ud)) && *v) {
    if (strcmp(v, "real") == 0)
      c->wtime_real = 1;
    else if (strcmp(v, "simulated") != 0) {
      snprintf(err, errlen,
               "REVPROF_WTIME=\"%s\": expected 'real' or 'simulated'", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_QUIET", ud)) && *v) {
    if (strcmp(v, "1") == 0)
      c->quiet = 1;
    else if (strcmp(v, "0") != 0) {
      snprintf(err, errlen, "REVPROF_QUIET=\"%s\": expected '0' or '1'", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_TIMER", ud)) && *v) {
    if (strcmp(v, "monotonic") == 0)
      c->timer_monotonic = 1;
    else if (strcmp(v, "auto") != 0) {
      snprintf(err, errlen,
               "REVPROF_TIMER=\"%s\": expected 'auto' or 'monotonic'", v);
      return REVPROF_EINVAL;
    }
  }
  if ((v = get("REVPROF_TEST_CALIBRATION", ud)) && *v) {
    if (strcmp(v, "zero") != 0) {
      snprintf(err, errlen,
               "REVPROF_TEST_CALIBRATION=\"%s\": expected 'zero'", v);
      return REVPROF_EINVAL;
    }
    c->test_cal_zero = 1;
  }
  if ((v = get("REVPROF_MODEL", ud)) &&
      (rc = get_path("REVPROF_MODEL", v, c->model, sizeof c->model, err,
                     errlen)))
    return rc;
  if ((v = get("REVPROF_LUA", ud)) &&
      (rc = get_path("REVPROF_LUA", v, c->lua, sizeof c->lua, err, errlen)))
    return rc;
  if ((v = get("REVPROF_OUTPUT_DIR", ud)) && *v &&
      (rc = get_path("REVPROF_OUTPUT_DIR", v, c->outdir, sizeof c->outdir,
                     err, errlen)))
    return rc;
  snprintf(c->gnuplot, sizeof c->gnuplot, "gnuplot");
  if ((v = get("REVPROF_GNUPLOT", ud)) &&
      (rc = get_path("REVPROF_GNUPLOT", v, c->gnuplot, sizeof c->gnuplot, err,
                     errlen)))
    return rc;
  if ((v = get("REVPROF_TRACE", ud)) &&
      (rc = get_path("REVPROF_TRACE", v, c->trace, sizeof c->trace, err,
                     errlen)))
    return rc;
  if ((v = get("REVPROF_OVERHEAD", ud)) && *v) {
    if (strcmp(v, "calibrate") == 0)
      c->overhead = RP_OVERHEAD_CALIBRATE;
    else if (strcmp(v, "model") == 0)
      c->overhead = RP_OVERHEAD_MODEL;
    else {
      snprintf(err, errlen,
               "REVPROF_OVERHEAD=\"%s\": expected 'calibrate' or 'model'", v);
      return REVPROF_EINVAL;
    }
  }
  if (c->overhead == RP_OVERHEAD_MODEL && c->model[0] == '\0') {
    snprintf(err, errlen,
             "REVPROF_OVERHEAD=model needs REVPROF_MODEL (a model file with "
             "an overhead table)");
    return REVPROF_EINVAL;
  }
  if ((v = get("REVPROF_INJECT_OVERHEAD", ud)) && *v &&
      (rc = get_seconds("REVPROF_INJECT_OVERHEAD", v, 0, &c->inject, err,
                        errlen)))
    return rc;
  if (c->inject > 1.0) {
    snprintf(err, errlen, "REVPROF_INJECT_OVERHEAD=\"%s\": at most 1 second",
             v);
    return REVPROF_EINVAL;
  }
  if ((v = get("REVPROF_MAX_OVERHEAD", ud)) &&
      (rc = rp_ic_bound_parse(v, &c->max_overhead, err, errlen)))
    return rc;
  c->cost_period = 0.1;
  if ((v = get("REVPROF_COST_PERIOD", ud)) && *v &&
      (rc = get_seconds("REVPROF_COST_PERIOD", v, 1, &c->cost_period, err,
                        errlen)))
    return rc;
  if (c->cost_period < 1e-3 || c->cost_period > 3600.0) {
    snprintf(err, errlen, "REVPROF_COST_PERIOD=\"%s\": expected seconds "
             "from 0.001 to 3600", v ? v : "");
    return REVPROF_EINVAL;
  }
  c->checkpoint = -1.0;
  if ((v = get("REVPROF_CHECKPOINT", ud)) && *v && strcmp(v, "auto") != 0) {
    if (strcmp(v, "off") == 0)
      c->checkpoint = 0.0;
    else if ((rc = get_seconds("REVPROF_CHECKPOINT", v, 0, &c->checkpoint,
                               err, errlen))) {
      snprintf(err, errlen, "REVPROF_CHECKPOINT=\"%s\": expected auto, "
               "off, or seconds between checkpoints (0: none)", v);
      return rc;
    }
  }
  rp_ic_static_rates(c->cost_rate);
  if ((v = get("REVPROF_COST_RATES", ud)) && *v) {
    if ((rc = rp_ic_rates_parse(v, c->cost_rate, err, errlen)))
      return rc;
    c->cost_rates_set = 1;
  }
  if ((v = get("REVPROF_COST_PROFILE", ud)) && *v &&
      (rc = get_path("REVPROF_COST_PROFILE", v, c->cost_profile,
                     sizeof c->cost_profile, err, errlen)))
    return rc;
  if ((v = get("REVPROF_REGIONS_OFF", ud)) &&
      (rc = get_path("REVPROF_REGIONS_OFF", v, c->regions_off,
                     sizeof c->regions_off, err, errlen)))
    return rc;
  if ((v = get("REVPROF_DRY_COST", ud)) && *v) {
    if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0) {
      snprintf(err, errlen, "REVPROF_DRY_COST=\"%s\": expected 1 or 0", v);
      return REVPROF_EINVAL;
    }
    c->dry_cost = v[0] == '1';
  }
  if (c->mode == RP_MODE_PREDICT && c->model[0] == '\0') {
    snprintf(err, errlen,
             "REVPROF_MODEL is not set (predict mode needs a machine model "
             "file; REVPROF_MODE=off turns revprof off)");
    return REVPROF_EINVAL;
  }
  return 0;
}

double rp_compute_spread(double asked, double model, const char **from) {
  if (asked >= 0.0) {
    *from = "REVPROF_COMPUTE_SPREAD";
    return asked;
  }
  if (model >= 0.0) {
    *from = "the model's machine.compute_spread";
    return model;
  }
  *from = "default";
  return RP_NOISE_FLOOR;
}

double rp_checkpoint_next(double setting, double gap) {
  if (setting == 0.0)
    return INFINITY;
  if (setting > 0.0)
    return setting;
  return gap <= 0.0 ? 10.0 : fmin(2.0 * gap, 300.0);
}
