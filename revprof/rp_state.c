/* librevprof's per-rank state and the services every layer uses: the
 * state itself (rp_g), warnings, model costs with their fallbacks, cache
 * and extrapolation count, datatype sizes, the host timers and the
 * measured-computation bookkeeping. Calls nothing above it (docs/design.md). */
#include "rp_state.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef RP_HAVE_PAPI
#include <papi.h>
#endif

rp_state rp_g;
_Thread_local rp_call rp_t RP_TLS;
rp_lastcost rp_lastcost_tab[REVPROF_FN_COUNT];
MPI_Datatype rp_last_type = MPI_DATATYPE_NULL;
rp_tinfo rp_last_tinfo;

/* ------------------------------------------------------------ messages */

void rp_warn(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (rp_quiet_env())
    return; /* what matters is also a report flag */
  if (rp_g.size > 1)
    fprintf(stderr, "revprof[rank %d]: %s\n", rp_g.rank, msg);
  else
    fprintf(stderr, "revprof: %s\n", msg);
  fflush(stderr);
}

void rp_report_flag(const char *key, const char *fmt, ...) {
  char text[RP_FLAG_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  rp_flag_store_set(&rp_g.flags, key, text);
}

char *rp_gather_text(const char *text, size_t len, MPI_Comm comm) {
  int n = (int)len, *lens = NULL, *displs = NULL, total = 0;
  char *all = NULL;
  if (rp_g.rank == 0) {
    lens = calloc((size_t)rp_g.size, sizeof *lens);
    displs = calloc((size_t)rp_g.size, sizeof *displs);
  }
  PMPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
  if (rp_g.rank == 0 && lens && displs) {
    for (int i = 0; i < rp_g.size; i++) {
      displs[i] = total;
      total += lens[i];
    }
    all = malloc((size_t)total + 1);
  }
  /* a rank 0 out of memory still takes part, receiving nothing */
  PMPI_Gatherv(text ? text : "", n, MPI_CHAR, all, all ? lens : NULL, displs,
               MPI_CHAR, 0, comm);
  if (all)
    all[total] = '\0';
  free(lens);
  free(displs);
  return all;
}

/* --------------------------------------------------------------- costs */

/* 1 when the model costs fn (its own row or an I/O fallback) */
int rp_costed(revprof_fn fn) {
  return rp_g.model != NULL && fn != REVPROF_FN_COUNT &&
         rp_g.eff[fn] != REVPROF_FN_COUNT;
}

int rp_uncosted(rp_wid w) {
  return rp_wrap_uncosted[w] == 1 ||
         (rp_wrap_uncosted[w] == 2 && !rp_costed((revprof_fn)rp_wrap_fn[w]));
}


/* When a model lacks a row, the row used instead: models/'s chain, the
 * one 'revprof model eval' uses (docs/revprof.md); REVPROF_FN_COUNT: none */
static void resolve_fallbacks(void) {
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    rp_g.eff[i] = rp_g.model ? revprof_model_row_for(rp_g.model,
                                                     (revprof_fn)i)
                             : (revprof_fn)i; /* no costs, none missing */
}

/* Last results of the model, direct-mapped: calls repeat (fn, p, d). */
#define RP_MEMO 64
static struct {
  int fn;
  double p, d;
  double out[RP_NB];
  int outside;
  int lowconf;  /* costed by a low-confidence regime */
  int load_out; /* gap_all evaluated outside its range for this cost */
} memo[RP_MEMO];

rp_extrap rp_extrap_tab[REVPROF_FN_COUNT];

void rp_cost_startup(void) {
  for (int i = 0; i < RP_MEMO; i++)
    memo[i].fn = -1;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    rp_lastcost_tab[i].d = rp_lastcost_tab[i].p = NAN; /* never equal */
  resolve_fallbacks();
}

/* Counts one use of fn at (p, d) outside the measured range of the model's
 * row e (memo misses only: the factors need the model). */
static int note_extrap(revprof_fn fn, revprof_fn e, double p, double d) {
  double fp, fd;
  if (revprof_model_outside(rp_g.model, e, p, d, &fp, &fd) !=
      REVPROF_OUTSIDE)
    return 0;
  rp_extrap *x = &rp_extrap_tab[fn];
  x->calls += 1.0;
  x->fp = fp > x->fp ? fp : x->fp;
  x->fd = fd > x->fd ? fd : x->fd;
  x->p = p > x->p ? p : x->p;
  x->d = d > x->d ? d : x->d;
  return 1;
}

/* Counts one use of fn at d by a regime of the model's row e whose
 * cv_error is above REVPROF_LOW_CONFIDENCE (memo misses only). */
static int note_lowconf(revprof_fn fn, revprof_fn e, double d) {
  const revprof_regime *r = revprof_model_regime(rp_g.model, e, d);
  if (r == NULL || !(r->cv_error > REVPROF_LOW_CONFIDENCE))
    return 0;
  rp_extrap *x = &rp_extrap_tab[fn];
  x->lowc += 1.0;
  x->cv = r->cv_error > x->cv ? r->cv_error : x->cv;
  return 1;
}

void rp_extrap_reduce(MPI_Comm comm) {
  enum { S = 2, X = 5 }; /* sums, maxima per function */
  double sum[S * REVPROF_FN_COUNT], mx[X * REVPROF_FN_COUNT];
  double rsum[S * REVPROF_FN_COUNT], rmx[X * REVPROF_FN_COUNT];
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    const rp_extrap *x = &rp_extrap_tab[i];
    sum[S * i + 0] = x->calls;
    sum[S * i + 1] = x->lowc;
    mx[X * i + 0] = x->fp;
    mx[X * i + 1] = x->fd;
    mx[X * i + 2] = x->p;
    mx[X * i + 3] = x->d;
    mx[X * i + 4] = x->cv;
  }
  if (PMPI_Reduce(sum, rsum, S * REVPROF_FN_COUNT, MPI_DOUBLE, MPI_SUM, 0,
                  comm) != MPI_SUCCESS ||
      PMPI_Reduce(mx, rmx, X * REVPROF_FN_COUNT, MPI_DOUBLE, MPI_MAX, 0,
                  comm) != MPI_SUCCESS || rp_g.rank != 0)
    return; /* rank 0 keeps its own counts: an undercount, never silent */
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    rp_extrap *x = &rp_extrap_tab[i];
    x->calls = rsum[S * i + 0];
    x->lowc = rsum[S * i + 1];
    x->fp = rmx[X * i + 0];
    x->fd = rmx[X * i + 1];
    x->p = rmx[X * i + 2];
    x->d = rmx[X * i + 3];
    x->cv = rmx[X * i + 4];
  }
}

/* Appends to buf the functions' descriptions that one() gives, " a; b",
 * as many as fit. */
static void fn_list(char *buf, size_t len,
                    double (*one)(revprof_fn, char *, size_t)) {
  size_t used = strlen(buf);
  for (int i = 0; i < REVPROF_FN_COUNT && used + 1 < len; i++) {
    char text[320];
    if (one((revprof_fn)i, text, sizeof text) > 0.0) {
      snprintf(buf + used, len - used, " %s;", text);
      used += strlen(buf + used);
    }
  }
  if (used > 0 && buf[used - 1] == ';')
    buf[used - 1] = '\0';
}

double rp_lowconf_fn_text(revprof_fn fn, char *buf, size_t len) {
  const rp_extrap *x = &rp_extrap_tab[fn];
  revprof_fn e = rp_g.eff[fn];
  buf[0] = '\0';
  if (x->lowc <= 0.0 || e == REVPROF_FN_COUNT)
    return 0.0;
  snprintf(buf, len, "%s %.0f (cv up to %.0f %%%s%s)", revprof_fn_name(fn),
           x->lowc, 100.0 * x->cv, e != fn ? ", costed as " : "",
           e != fn ? revprof_fn_name(e) : "");
  return x->lowc;
}

double rp_lowconf_text(char *buf, size_t len) {
  double total = 0.0;
  int nfn = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    total += rp_extrap_tab[i].lowc;
    nfn += rp_extrap_tab[i].lowc > 0.0;
  }
  buf[0] = '\0';
  if (total <= 0.0)
    return 0.0;
  snprintf(buf, len, "%.0f calls of %d function(s) costed by equations "
           "that miss their own measurements by more than %.0f %% "
           "(cross-validated; the datasheet's low-confidence regimes):",
           total, nfn, 100.0 * REVPROF_LOW_CONFIDENCE);
  fn_list(buf, len, rp_lowconf_fn_text);
  return total;
}

double rp_extrap_fn_text(revprof_fn fn, char *buf, size_t len) {
  const rp_extrap *x = &rp_extrap_tab[fn];
  revprof_fn e = rp_g.eff[fn];
  char rb[96];
  buf[0] = '\0';
  if (x->calls <= 0.0 || e == REVPROF_FN_COUNT || rp_g.model == NULL)
    return 0.0;
  revprof_range_format(&rp_g.model->fn[e].range, rb, sizeof rb);
  snprintf(buf, len, "%s %.0f at p<=%.0f d<=%.0f (%.3gx outside in p, %.3gx "
           "in d; %s%s%smeasured %s)",
           revprof_fn_name(fn), x->calls, x->p, x->d, x->fp, x->fd,
           e != fn ? "costed as " : "", e != fn ? revprof_fn_name(e) : "",
           e != fn ? ", " : "", rb);
  return x->calls;
}

double rp_extrap_text(char *buf, size_t len) {
  double total = 0.0;
  int unknown = 0, nfn = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    total += rp_extrap_tab[i].calls;
    nfn += rp_extrap_tab[i].calls > 0.0;
    unknown += rp_g.model && revprof_model_has(rp_g.model, (revprof_fn)i) &&
               !rp_g.model->fn[i].range.known;
  }
  if (total <= 0.0) {
    snprintf(buf, len, unknown ? "not detected (the model records no measured "
                                 "ranges for %d function(s))"
                               : "none",
             unknown);
    return 0.0;
  }
  snprintf(buf, len, "%.0f calls of %d function(s) costed outside the "
           "model's measured range:", total, nfn);
  fn_list(buf, len, rp_extrap_fn_text);
  return total;
}

static void note_missing(revprof_fn fn) {
  revprof_fn e = rp_g.eff[fn];
  rp_g.missing[fn] = 1;
  if (fn == REVPROF_FN_WTIME || rp_g.rank != 0)
    return; /* MPI_Wtime is free when absent; the report lists every rank's */
  if (e == REVPROF_FN_COUNT)
    rp_warn("model %s has no %s; its cost counts as 0 s", rp_g.cfg.model,
            revprof_fn_name(fn));
  else
    rp_warn("model %s has no %s; costing it as %s", rp_g.cfg.model,
            revprof_fn_name(fn), revprof_fn_name(e));
}

int rp_load_extra(double p, double d, double extra[RP_NB]) {
  static double last_p = -1.0, last_d = -1.0, last[RP_NB]; /* a halo's
                                                            ops repeat d */
  static int last_out;
  double pair[RP_NB], all[RP_NB];
  extra[0] = extra[1] = extra[2] = 0.0;
  if (p <= 0.0)
    return 0;
  if (d == last_d && p == last_p) {
    memcpy(extra, last, sizeof last);
    if (last_out)
      rp_extrap_tab[REVPROF_FN_GAP_ALL].calls += 1.0;
    return last_out;
  }
  if (revprof_model_eval(rp_g.model, REVPROF_FN_GAP, 2.0, d, pair) != 0 ||
      revprof_model_eval(rp_g.model, REVPROF_FN_GAP_ALL, p, d, all) != 0)
    return 0;
  last_out = note_extrap(REVPROF_FN_GAP_ALL, REVPROF_FN_GAP_ALL, p, d);
  for (int b = 0; b < RP_NB; b++)
    extra[b] = all[b] > pair[b] ? all[b] - pair[b] : 0.0;
  last_d = d;
  last_p = p;
  memcpy(last, extra, sizeof last);
  return last_out;
}

void rp_cost(revprof_fn fn, double p, double d, double out[RP_NB]) {
  unsigned h;
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  h = (unsigned)((bits * 0x9E3779B97F4A7C15ull) >> 58) ^ (unsigned)fn ^
      ((unsigned)p << 3);
  h &= RP_MEMO - 1;
  if (memo[h].fn == (int)fn && memo[h].p == p && memo[h].d == d) {
    memcpy(out, memo[h].out, sizeof memo[h].out);
    if (memo[h].outside)
      rp_extrap_tab[fn].calls += 1.0;
    if (memo[h].lowconf)
      rp_extrap_tab[fn].lowc += 1.0;
    if (memo[h].load_out)
      rp_extrap_tab[REVPROF_FN_GAP_ALL].calls += 1.0;
    return;
  }
  revprof_fn e = rp_g.eff[fn];
  int outside = 0, load_out = 0, lowconf = 0;
  if (e != fn && !rp_g.missing[fn])
    note_missing(fn);
  if (e == REVPROF_FN_COUNT || rp_g.model == NULL)
    out[0] = out[1] = out[2] = 0.0;
  else {
    revprof_model_eval(rp_g.model, e, p, d, out); /* 0 <= min <= avg <= max */
    outside = note_extrap(fn, e, p, d);
    lowconf = note_lowconf(fn, e, d);
    if (rp_g.load_p > 0.0 &&
        (fn == REVPROF_FN_GAP || fn == REVPROF_FN_LATENCY) && e == fn) {
      double extra[RP_NB]; /* under load: rp_load_extra */
      load_out = rp_load_extra(rp_g.load_p, d, extra);
      for (int b = 0; b < RP_NB; b++)
        out[b] += extra[b];
    }
  }
  memo[h].fn = (int)fn;
  memo[h].p = p;
  memo[h].d = d;
  memo[h].outside = outside;
  memo[h].lowconf = lowconf;
  memo[h].load_out = load_out;
  memcpy(memo[h].out, out, sizeof memo[h].out);
  rp_lastcost_tab[fn].p = p;
  rp_lastcost_tab[fn].d = d;
  rp_lastcost_tab[fn].outside = outside;
  rp_lastcost_tab[fn].lowconf = lowconf;
  memcpy(rp_lastcost_tab[fn].out, out, sizeof memo[h].out);
}

/* ------------------------------------------------------ datatype sizes */

#define RP_TCACHE 128
static struct {
  uint64_t key;
  int used;
  rp_tinfo ti;
} tcache[RP_TCACHE];

static uint64_t type_bits(MPI_Datatype t) {
  uint64_t k = 0;
  memcpy(&k, &t, sizeof t < sizeof k ? sizeof t : sizeof k);
  return k;
}

static unsigned type_slot(uint64_t k) {
  return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> 57) & (RP_TCACHE - 1);
}

rp_tinfo rp_type_info(MPI_Datatype t) {
  rp_tinfo ti = {0.0, 0};
  if (t == MPI_DATATYPE_NULL)
    return ti;
  uint64_t k = type_bits(t);
  unsigned s = type_slot(k);
  if (tcache[s].used && tcache[s].key == k) {
    rp_last_type = t;
    rp_last_tinfo = tcache[s].ti;
    return tcache[s].ti;
  }
  MPI_Count size = 0, lb = 0, extent = 0, tlb = 0, textent = 0;
  int combiner;
#if MPI_VERSION >= 4 /* the int form refuses types of large counts */
  MPI_Count ni, na, nc, nd;
  int env = PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner);
#else
  int ni, na, nd;
  int env = PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
#endif
  if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size < 0)
    size = 0;
  ti.size = (double)size;
  /* count elements are then count * size bytes back to back (not so for
   * MPI_DOUBLE_INT & co: size 12, extent 16) */
  if (env == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED &&
      PMPI_Type_get_extent_x(t, &lb, &extent) == MPI_SUCCESS &&
      PMPI_Type_get_true_extent_x(t, &tlb, &textent) == MPI_SUCCESS &&
      lb == 0 && tlb == 0 && extent == size && textent == size && size > 0)
    ti.plain = 1;
  tcache[s].key = k;
  tcache[s].used = 1;
  tcache[s].ti = ti;
  rp_last_type = t;
  rp_last_tinfo = ti;
  return ti;
}

void rp_type_forget(MPI_Datatype t) {
  if (t == rp_last_type) {
    rp_last_type = MPI_DATATYPE_NULL;
    rp_last_tinfo.size = 0.0;
    rp_last_tinfo.plain = 0;
  }
  uint64_t k = type_bits(t);
  unsigned s = type_slot(k);
  if (tcache[s].used && tcache[s].key == k)
    tcache[s].used = 0;
}

double rp_tsize(const void *type) {
  return rp_type_info_fast(*(const MPI_Datatype *)type).size;
}

/* ------------------------------------------------------------- compute */

#ifdef RP_HAVE_PAPI
static int papi_events = PAPI_NULL;
#endif

/* CPU seconds of the calling thread. */
static double cpu_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Elapsed seconds (monotonic), for the calibration's time-sharing ratio. */
static double mono_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The wall clock of measured gaps: two reads per MPI call. The cycle
 * counter where it ticks at a fixed rate (rp_tsc_usable), scaled by a rate
 * measured against CLOCK_MONOTONIC over 2 ms at start-up (error ~1e-5),
 * costs a third of clock_gettime on the development VM's kvm-clock (the
 * report prints the read cost of the one used, rp_g.gap_tool.wall);
 * REVPROF_TIMER=monotonic keeps clock_gettime. */
static double tsc_sec; /* seconds per tick; 0: clock_gettime */
static uint64_t tsc_base;
static double tsc_mono;
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RP_TSC() __rdtsc()
#endif

static inline double wall_seconds(void) {
#ifdef RP_TSC
  if (tsc_sec > 0.0)
    return tsc_mono + (double)(RP_TSC() - tsc_base) * tsc_sec;
#endif
  return mono_seconds();
}

double rp_host_seconds(void) { return mono_seconds(); }

double rp_local_seconds(void) { return wall_seconds(); }

static void timer_startup(void) {
  tsc_sec = 0.0;
  rp_g.timer_name = "monotonic clock";
#ifdef RP_TSC
  char line[4096];
  int usable = 0;
  FILE *f = rp_g.cfg.timer_monotonic ? NULL : fopen("/proc/cpuinfo", "r");
  while (f && !usable && fgets(line, sizeof line, f))
    if (strncmp(line, "flags", 5) == 0) {
      usable = rp_tsc_usable(line);
      break;
    }
  if (f)
    fclose(f);
  if (!usable)
    return;
  double m0 = mono_seconds(), m1;
  uint64_t t0 = RP_TSC(), t1;
  do {
    m1 = mono_seconds();
    t1 = RP_TSC();
  } while (m1 - m0 < 2e-3 && m1 >= m0);
  if (t1 > t0 && m1 > m0) {
    tsc_sec = (m1 - m0) / (double)(t1 - t0);
    tsc_base = t1;
    tsc_mono = m1;
    rp_g.timer_name = "cycle counter";
  }
#endif
}

static double instructions(void) {
#ifdef RP_HAVE_PAPI
  long long v = 0;
  if (rp_g.use_papi_ins && PAPI_read(papi_events, &v) == PAPI_OK)
    return (double)v;
#endif
  return 0.0;
}

void rp_measure_startup(void) {
  timer_startup();
#ifdef RP_HAVE_PAPI
  /* PAPI only to count instructions: its start-up callocs and frees a
     block above glibc's mmap threshold (208 KiB in PAPI 7.0), which raises
     that threshold and the heap's trim threshold for the rest of the
     process, so that a program which allocates and frees its work arrays
     every step stops returning them to the kernel and ran 3x faster under
     revprof than natively (LULESH -s 10: 8461 page faults natively, 2683
     under revprof). The CPU-time clock is clock_gettime's, as PAPI's is. */
  if (rp_g.cfg.sec_per_ins > 0.0) {
    if (PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT &&
        PAPI_create_eventset(&papi_events) == PAPI_OK &&
        PAPI_add_event(papi_events, PAPI_TOT_INS) == PAPI_OK &&
        PAPI_start(papi_events) == PAPI_OK)
      rp_g.use_papi_ins = 1;
    else if (rp_g.rank == 0)
      rp_warn("REVPROF_INSTRUCTION_TIME is set but PAPI has no "
              "instruction counter here; measuring CPU time instead");
  }
#else
  if (rp_g.cfg.sec_per_ins > 0.0 && rp_g.rank == 0)
    rp_warn("REVPROF_INSTRUCTION_TIME is set but revprof was built without "
            "PAPI; measuring CPU time instead");
#endif
  /* how much the same work's measured time varies here: the min and max
     clocks of measured compute cover it (rp_noise.h) */
  rp_g.cfg.compute_spread = rp_compute_spread(
      rp_g.cfg.compute_spread,
      rp_g.model ? rp_g.model->machine_compute_spread : -1.0,
      &rp_g.spread_from);
  rp_noise_calibrate(cpu_seconds, wall_seconds, rp_g.cfg.compute_spread,
                     &rp_g.noise);
  /* revprof's own part of every measured gap: from the clock read at one
     call's exit to the read at the next call's entry, one whole read (the
     wrapper's bookkeeping: calibrate_wrapper_gap in rp_engine.c) */
  rp_g.gap_tool.wall = rp_read_cost(wall_seconds);
  rp_g.gap_tool.cpu = rp_read_cost(cpu_seconds);
  rp_g.gap_tool.wrap = 0.0;
  rp_g.want_cpu = !rp_g.mt;
  if (rp_g.noise.busy > 1.3)
    rp_report_flag("host-busy",
                   "the host was time-sharing cores while revprof "
                   "calibrated (%.1fx elapsed per CPU second): a native run "
                   "here is slower than predicted for dedicated cores",
                   rp_g.noise.busy);
  rp_measure_mark();
}

void rp_measure_shutdown(void) {
#ifdef RP_HAVE_PAPI
  long long v;
  if (rp_g.use_papi_ins) {
    PAPI_stop(papi_events, &v);
    PAPI_cleanup_eventset(papi_events);
    PAPI_destroy_eventset(&papi_events);
    rp_g.use_papi_ins = 0;
  }
#endif
}

void rp_add_compute(const double dt[RP_NB], const char *what) {
  if (!(dt[RP_MAX] > 0.0))
    return;
  double t0 = rp_g.clk.now[RP_AVG];
  rp_clock_compute(&rp_g.clk, dt);
  if (rp_g.tracing)
    rp_trace_state(what, t0, rp_g.clk.now[RP_AVG], 0.0);
}

/* The gap since the last MPI call, measured, as computation: less
 * revprof's own part of it, and consumed, so that a call that does not mark
 * its exit (an uncosted poll) adds its host time to the next gap instead.
 * Gaps in a long run of short ones (a loop of polls) are timed by the
 * cheap monotonic clock; the CPU-time clock (a system call, ~1 us here) is
 * read around the others (rp_gap_wants_cpu, rp_gap_charge: rp_noise.h). */
void rp_measure_gap(void) {
  double dt[RP_NB];
  if (rp_g.use_papi_ins) {
    double ins = instructions();
    rp_compute_instructions(ins - rp_g.ins_mark, rp_g.cfg.sec_per_ins, dt);
    rp_g.ins_mark = ins;
  } else {
    double w = wall_seconds(), c = 0.0, wall_gap = w - rp_g.wall_mark;
    double cpu_since = -1.0;
    if (rp_g.cpu_valid)
      c = cpu_seconds();
    else if (wall_gap >= RP_GAP_CPU_MIN && !rp_g.mt) {
      /* a long gap after a run of short ones, timed by the monotonic
         clock: the CPU time since the CPU clock's last read bounds it
         (a rank of a busy host descheduled here for a time slice was
         charged milliseconds of computation). The read is the one the
         next gap needs anyway: a long gap brings the CPU clock back. */
      c = cpu_seconds();
      cpu_since = c - rp_g.cpu_anchor;
    }
    double g = rp_gap_charge(wall_gap, rp_g.cpu_valid, c - rp_g.cpu_mark,
                             cpu_since, &rp_g.gap_tool);
    /* the CPU clock is the calling thread's: with threads, wall time */
    rp_g.want_cpu = rp_gap_wants_cpu(wall_gap, &rp_g.short_run) && !rp_g.mt;
    /* the next gap starts here when this call does not mark its exit (a
       poll the model did not cost), with the clock that suits it */
    if (rp_g.want_cpu && !rp_g.cpu_valid && cpu_since < 0.0)
      c = cpu_seconds();
    if (rp_g.want_cpu || rp_g.cpu_valid)
      rp_g.cpu_anchor = c;
    rp_g.cpu_valid = rp_g.want_cpu;
    rp_g.wall_mark = w;
    rp_g.cpu_mark = c;
    /* most gaps between the calls of a communication loop are revprof's
       own part only: nothing to add */
    if (!(g > 0.0))
      return;
    rp_compute_measured(g, rp_g.cfg.cpu_scale, dt);
  }
  rp_noise_widen(dt, &rp_g.noise);
  rp_add_compute(dt, "compute");
}

/* With threads (rp_mt.c) the computation measured is host time while no
 * thread is inside MPI: the gap ends at the entry of a call that finds no
 * other thread inside, and starts at the exit of the last one out. The
 * compensated profile is that of the thread that initialized MPI. */
void rp_enter_extras(rp_wid w) {
  if (rp_g.cfg.compute == RP_COMPUTE_MEASURE && (!rp_g.mt || rp_t.alone))
    rp_measure_gap();
  if (rp_g.mode->enter && (!rp_g.mt || rp_t.main))
    rp_g.mode->enter(w);
}

void rp_measure_mark(void) {
  if (rp_g.use_papi_ins) {
    rp_g.ins_mark = instructions();
    return;
  }
  rp_g.cpu_valid = rp_g.want_cpu;
  if (rp_g.cpu_valid)
    rp_g.cpu_anchor = rp_g.cpu_mark = cpu_seconds();
  rp_g.wall_mark = wall_seconds();
}

