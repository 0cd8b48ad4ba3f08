/* librevprof engine: start-up and shut-down of every layer, the choice of
 * the mode (its hooks: rp_mode_ops), and the public revprof_* API of compute
 * annotations. The state, costs and timers it starts are rp_state.c's. */
#define _GNU_SOURCE 1 /* dladdr, RTLD_DEFAULT, sched_getaffinity, CPU_COUNT */
#include "rp_engine.h"
#include "rp_icost.h"
#include "rp_match.h"
#include "rp_sample.h"

#include <dlfcn.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* REVPROF_PACK_MAX default, bytes: above it the struct datatype carries
 * the piggyback. Measured with bench/pingpong-overhead.sh (docs/revprof.md):
 * Open MPI's datatype engine overtakes copying between 2 and 4 KiB (past
 * its shared-memory eager limit), MPICH's only between 8 and 16 KiB. */
#if defined(OPEN_MPI)
#define RP_DEFAULT_PACK_MAX 2048.0
#elif defined(MPICH)
#define RP_DEFAULT_PACK_MAX 8192.0
#else
#define RP_DEFAULT_PACK_MAX 2048.0
#endif

/* ------------------------------------------------- the program's MPI */

/* librevprof calls the MPI it was built with. A program linked with another
 * one (an MPICH program under a librevprof built for Open MPI, or the
 * reverse: two MPI modules on one cluster) would load both into one
 * process, and its first MPI call, through revprof's wrapper into the other
 * MPI, would crash there with a message about an invalid communicator. So
 * the library looks, as it loads, for a symbol of the other MPI family; if
 * there is one it says what is mixed and how to fix it, and stops the
 * process before the program starts. No setting turns this off: the
 * wrappers cannot step aside, as every MPI call of the program goes
 * through them. */
#if defined(OPEN_MPI)
#define RP_BUILT_FOR "Open MPI"
#define RP_OTHER "MPICH (or an MPI derived from it)"
#define RP_OTHER_SYMBOL "MPIR_Err_create_code" /* MPICH's error stack */
#define RP_OTHER_CMAKE "-DREVPROF_MPI=mpich"
#elif defined(MPICH)
#define RP_BUILT_FOR "MPICH"
#define RP_OTHER "Open MPI"
#define RP_OTHER_SYMBOL "ompi_mpi_init" /* a function: never copied into
                                          the program, as data can be */
#define RP_OTHER_CMAKE "-DREVPROF_MPI=openmpi"
#endif

#ifdef RP_OTHER_SYMBOL
/* The rank of this process by the launchers' variables; -1 unknown. */
static int launcher_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                     "PMIX_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v)
      return atoi(v);
  }
  return -1;
}

__attribute__((constructor)) static void other_mpi_check(void) {
  void *sym = dlsym(RTLD_DEFAULT, RP_OTHER_SYMBOL);
  if (sym == NULL)
    return;
  Dl_info self, other;
  const char *self_path = "librevprof", *other_path = "a library";
  if (dladdr((void *)other_mpi_check, &self) && self.dli_fname)
    self_path = self.dli_fname;
  if (dladdr(sym, &other) && other.dli_fname)
    other_path = other.dli_fname;
  if (launcher_rank() <= 0) /* once for the job: rank 0, or no launcher */
    fprintf(stderr,
            "revprof: %s was built for " RP_BUILT_FOR ", but this program "
            "also loads " RP_OTHER " (%s): one process cannot run both, and "
            "the program's first MPI call would fail in the other MPI. Use "
            "a revprof built for the program's MPI (cmake " RP_OTHER_CMAKE
            "), or build the program with " RP_BUILT_FOR "'s compiler "
            "wrappers. Stopped before the program started (exit status "
            "1).\n",
            self_path, other_path);
  _exit(1);
}
#endif

/* ----------------------------------------------------- start and stop */

static const char *env_get(const char *name, void *ud) {
  (void)ud;
  return getenv(name);
}

extern char **environ;

/* REVPROF_* entries of the environment that are none of revprof's
 * variables (a typo: REVPROF_MDOE=compensate would leave predict mode on):
 * said once on rank 0, with the closest name, and flagged in the report,
 * as the run may not be the one asked for. */
static void unknown_vars(void) {
  char said[512] = "", hint[64];
  int n = 0;
  for (char **e = environ; e && *e; e++) {
    if (!rp_env_unknown(*e, hint, sizeof hint))
      continue;
    size_t len = strcspn(*e, "="), at = strlen(said);
    if (n++ < 4 && at < sizeof said)
      snprintf(said + at, sizeof said - at, "%s%.*s%s%s%s", at ? ", " : "",
               (int)(len < 64 ? len : 64), *e,
               hint[0] ? " (did you mean " : "", hint,
               hint[0] ? "?)" : "");
  }
  if (n == 0)
    return;
  if (rp_g.rank == 0)
    rp_warn("%d REVPROF_* variable(s) that revprof does not know, ignored: "
            "%s%s",
            n, said, n > 4 ? ", ..." : "");
  rp_report_flag("unknown-variable", "%d REVPROF_* variable(s) that revprof "
                 "does not know, ignored: %s%s",
                 n, said, n > 4 ? ", ..." : "");
}

/* What the model's notes say after mark, up to the first of stop, in
 * predict mode: its start and *len, or NULL when they do not say it. */
static const char *model_note(const char *mark, const char *stop, int *len) {
  const char *notes = rp_g.model && rp_g.cfg.mode == RP_MODE_PREDICT
                          ? rp_g.model->machine_notes
                          : "";
  const char *p = strstr(notes, mark);
  if (p == NULL)
    return NULL;
  p += strlen(mark);
  *len = (int)strcspn(p, stop);
  return p;
}

/* Flags from the model's notes, for the prediction's first lines: a model
 * fitted from a characterization that had not finished (characterize's
 * raw.partial.csv: "PARTIAL: N of M points"), whose functions and sizes
 * not reached are extrapolated or missing; one whose characterization saw
 * the machine's speed change (rp_char_drift's "DRIFT: ..."), whose rows
 * mix both speeds. */
static void model_notes_flags(void) {
  int n = 0;
  const char *p = model_note(REVPROF_NOTES_PARTIAL, ",;", &n);
  if (p)
    rp_report_flag("partial-model", "the model was fitted from a "
                   "characterization that had not finished (%.*s): the "
                   "functions and sizes it did not reach are extrapolated "
                   "or missing", n, p);
  if ((p = model_note(REVPROF_NOTES_DRIFT, ":;", &n)) != NULL)
    rp_report_flag("model-drift", "the machine's speed changed while the "
                   "model was characterized (%.*s): its rows mix both "
                   "speeds; characterize again on a quiet machine", n, p);
}

/* revprof's own time left in a measured gap by the wrapper's bookkeeping
 * (beyond the clock reads): a loop of empty polls through the real
 * enter/leave path, whose charged computation is all revprof's. Runs at
 * the end of MPI_Init; leaves no trace in the clocks or statistics. */
static void calibrate_wrapper_gap(void) {
  enum { REPS = 2000 };
  rp_fstat saved = rp_g.fstat[RP_W_MPI_Iprobe];
  int tracing = rp_g.tracing;
  rp_g.tracing = 0;
  double c0 = rp_g.clk.compute[RP_AVG];
  rp_g.want_cpu = 0;
  rp_g.short_run = RP_GAP_CPU_RUN;
  rp_measure_mark();
  for (int k = 0; k < REPS; k++) {
    rp_enter_poll(RP_W_MPI_Iprobe);
    rp_leave(RP_W_MPI_Iprobe);
  }
  rp_measure_gap();
  double per = (rp_g.clk.compute[RP_AVG] - c0) / (REPS + 1);
  if (per > 0.0 && rp_g.cfg.cpu_scale > 0.0)
    rp_g.gap_tool.wrap = per / rp_g.cfg.cpu_scale;
  rp_g.fstat[RP_W_MPI_Iprobe] = saved;
  rp_clock_init(&rp_g.clk);
  rp_g.tracing = tracing;
  rp_g.want_cpu = !rp_g.mt;
  rp_g.short_run = 0;
  rp_measure_mark();
}

/* REVPROF_TEST_STARTUP_DELAY=S (tests): rank 1 sleeps S seconds before
 * the start-up's last collective, as a slow rank's calibrations would
 * make the others wait in it. */
static void test_startup_delay(void) {
  const char *v = getenv("REVPROF_TEST_STARTUP_DELAY");
  double s = v ? strtod(v, NULL) : 0.0;
  if (rp_g.rank == 1 && s > 0.0 && s < 60.0) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

/* The costs per event characterize cached in the model's overhead table
 * for this mode (cost_<mode>_<kind>), unless REVPROF_OVERHEAD=calibrate;
 * compensate's MPI call and region costs have their own rows (its
 * overhead line). */
static void icost_cached(void) {
  unsigned kinds = rp_icost_kinds();
  rp_g.ic_from_model = 0;
  for (int k = 0; k < RP_IC_KINDS; k++) {
    char name[64];
    snprintf(name, sizeof name, "cost_%s_%s", rp_g.mode->name,
             rp_ic_kind_name(k));
    rp_g.ic_cached[k] = -1.0;
    if ((kinds & 1u << k) && rp_g.cfg.overhead != RP_OVERHEAD_CALIBRATE)
      rp_g.ic_cached[k] = revprof_model_overhead(rp_g.model, name, -1.0);
  }
}

/* The instrumentation cost model's seconds per MPI call in the active
 * mode (an intercepted MPI_Sendrecv to self, through revprof against
 * PMPI, carries two messages in one call: half of it is one call with one
 * message's piggyback) and, in sample mode, per sampled message (the same
 * with every message sampled, against none). The best round of each
 * variant, as the least disturbed; statistics, clocks and samples are left
 * as they were. On a loaded machine a difference can come out at 0 or
 * below: up to ATTEMPTS times ROUNDS more rounds, then 0 s per event,
 * flagged. */
static void calibrate_icost(void) {
  enum { N = 1000, ROUNDS = 5, ATTEMPTS = 4 };
  double a = 1.0, b = 0.0, best[3] = {INFINITY, INFINITY, INFINITY};
  int me = rp_g.rank, tracing = rp_g.tracing;
  unsigned kinds = rp_icost_kinds();
  if (rp_g.tracing) /* the trace's own line, timed in the writer */
    rp_g.ic_cost[RP_IC_TRACE] = rp_trace_record_cost();
  if (kinds & 1u << RP_IC_OFFLOAD) /* the offloads' own times later */
    rp_g.ic_cost[RP_IC_OFFLOAD] = rp_monitor_offload_guess(rp_g.model);
  static const int mine[] = {RP_IC_MPI, RP_IC_SAMPLE};
  for (int i = 0; i < 2; i++) {
    int k = mine[i];
    if (rp_g.ic_cost[k] < 0.0 && rp_g.ic_cached[k] >= 0.0) {
      rp_g.ic_cost[k] = rp_g.ic_cached[k]; /* characterize's */
      rp_g.ic_from_model |= 1u << k;
    }
  }
  int need_s = (kinds & 1u << RP_IC_SAMPLE) && rp_g.ic_cost[RP_IC_SAMPLE] < 0.0;
  if (rp_g.ic_cost[RP_IC_MPI] >= 0.0 && !need_s)
    return; /* the mode's own or the model's */
  rp_fstat saved = rp_g.fstat[RP_W_MPI_Sendrecv];
  rp_clock clk = rp_g.clk;
  int in_tool = rp_t.in_tool;
  rp_g.tracing = 0;
  rp_t.in_tool = 0; /* through the wrapper, as the program's calls */
  double call = 0.0, smp = 0.0;
  for (int r = 0; r < ROUNDS * ATTEMPTS; r++) {
    double t[4];
    for (int pass = 0; pass < 2; pass++) {
      if (kinds & 1u << RP_IC_SAMPLE)
        rp_sample_calibrating(pass); /* pass 1: every message sampled */
      t[2 * pass] = rp_host_seconds();
      for (int i = 0; i < N; i++)
        rp_g.entry->sendrecv(&a, 1, MPI_DOUBLE, me, 7, &b, 1, MPI_DOUBLE, me,
                             7, rp_g.world, MPI_STATUS_IGNORE);
      t[2 * pass + 1] = rp_host_seconds();
    }
    double t4 = rp_host_seconds();
    for (int i = 0; i < N; i++)
      PMPI_Sendrecv(&a, 1, MPI_DOUBLE, me, 7, &b, 1, MPI_DOUBLE, me, 7,
                    rp_g.world, MPI_STATUS_IGNORE);
    double t5 = rp_host_seconds();
    /* each variant's least disturbed round */
    best[0] = fmin(best[0], t[1] - t[0]); /* revprof, nothing sampled */
    best[1] = fmin(best[1], t[3] - t[2]); /* revprof, all sampled */
    best[2] = fmin(best[2], t5 - t4);     /* PMPI */
    call = 0.5 * (best[0] - best[2]) / N;
    smp = (best[1] - best[0]) / N;
    if ((r + 1) % ROUNDS == 0 && (call > 0.0 || rp_g.ic_cost[RP_IC_MPI] >= 0.0) &&
        (smp > 0.0 || !need_s))
      break;
  }
  if (rp_g.cfg.test_cal_zero)
    call = smp = 0.0;
  if (kinds & 1u << RP_IC_SAMPLE)
    rp_sample_calibrating(-1); /* the samples of calibration forgotten */
  int zero_s = 0, zero_c = 0;
  if (need_s) {
    rp_g.ic_cost[RP_IC_SAMPLE] = smp > 0.0 ? smp : 0.0;
    zero_s = !(smp > 0.0);
  }
  if (rp_g.ic_cost[RP_IC_MPI] < 0.0) {
    rp_g.ic_cost[RP_IC_MPI] = call > 0.0 ? call : 0.0;
    zero_c = !(call > 0.0);
  }
  if (zero_s || zero_c)
    rp_report_flag("cost-calibration", "the instrumentation cost's "
                   "calibration found revprof's work per %s no dearer than "
                   "without it in %d rounds (a loaded machine?): counted at "
                   "0 s", zero_c && zero_s ? "MPI call and per sampled message"
                   : zero_c ? "MPI call" : "sampled message",
                   ROUNDS * ATTEMPTS);
  rp_g.fstat[RP_W_MPI_Sendrecv] = saved;
  rp_g.clk = clk;
  rp_g.tracing = tracing;
  rp_t.in_tool = in_tool;
}

/* All ranks agree on ok; the lowest failing rank says why. Returns the
 * agreed value. */
static int agree(int ok, const char *why, const char *consequence) {
  int v[2] = {ok ? 1 : 0, ok ? rp_g.size : rp_g.rank};
  PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, rp_g.world);
  if (!v[0] && v[1] == rp_g.rank && why && why[0])
    rp_warn("%s; %s", why, consequence);
  return v[0];
}

/* The modes by REVPROF_MODE (rp_config.h): a new mode is a file defining
 * its rp_mode_ops and a line here. predict's rules are the engine's own clocks;
 * it adds only its report. */
static const rp_mode_ops mode_predict = {
    .name = "predict",
    .what = "prediction",
    .simulates = 1,
    .report = rp_report_final};

static const rp_mode_ops *const modes[] = {
    [RP_MODE_PREDICT] = &mode_predict,
    [RP_MODE_COMPENSATE] = &rp_mode_compensate,
    [RP_MODE_SAMPLE] = &rp_mode_sample,
};

static const rp_mode_ops *mode_of(int mode) {
  int n = (int)(sizeof modes / sizeof *modes);
  return mode >= 0 && mode < n && modes[mode] ? modes[mode] : &mode_predict;
}

/* The mode runs hooks at every call: rp_leave's slow part is needed. */
static int mode_hooks_calls(void) {
  return rp_g.mode->enter != NULL || rp_g.mode->leave != NULL;
}

/* revprof turned itself off at MPI_Init: rank 0's report says why (the
 * reason of the lowest rank that had one). */
static void off_report(const char *why) {
  char msg[1200] = "", what[1400];
  int from = why[0] ? rp_g.rank : rp_g.size;
  PMPI_Allreduce(MPI_IN_PLACE, &from, 1, MPI_INT, MPI_MIN, rp_g.world);
  if (from < rp_g.size) {
    if (rp_g.rank == from)
      snprintf(msg, sizeof msg, "%s", why);
    PMPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, from, rp_g.world);
  }
  if (rp_g.rank != 0)
    return;
  snprintf(what, sizeof what, "revprof turned itself off at %s (%s); "
           "the program ran without it",
           rp_g.by_session ? "MPI_Session_init" : "MPI_Init",
           msg[0] ? msg : "no reason given");
  rp_report_unpredicted("OFF", "revprof-off", what, rp_g.size, 0);
}

/* A job started by MPI_Comm_spawn writes its reports and traces into a
 * folder of its own under REVPROF_OUTPUT_DIR, spawned-<pid of its rank 0>,
 * never over its parent's. */
static void spawned_outdir(void) {
  MPI_Comm parent = MPI_COMM_NULL;
  if (PMPI_Comm_get_parent(&parent) != MPI_SUCCESS || parent == MPI_COMM_NULL)
    return;
  rp_g.dynamic = 1; /* the parent's processes are another job */
  long pid = (long)getpid();
  PMPI_Bcast(&pid, 1, MPI_LONG, 0, rp_g.world);
  char dir[sizeof rp_g.cfg.outdir];
  int n = snprintf(dir, sizeof dir, "%s/spawned-%ld", rp_g.cfg.outdir, pid);
  if (n > 0 && (size_t)n < sizeof dir)
    memcpy(rp_g.cfg.outdir, dir, (size_t)n + 1);
}

/* A sessions program has no MPI_COMM_WORLD to take tool ranks from and no
 * parent to ask for: monitoring is off, said by rank 0. */
static void session_monitor_off(void) {
  const char *k = getenv("REVPROF_MONITOR");
  if (rp_g.rank != 0 || k == NULL || k[0] == '\0' || strcmp(k, "0") == 0)
    return;
  rp_warn("REVPROF_MONITOR=%s is ignored: the program uses MPI sessions, "
          "and tool ranks are taken from MPI_COMM_WORLD at MPI_Init; every "
          "rank runs the application",
          k);
  rp_report_flag("monitor-off", "REVPROF_MONITOR ignored in a sessions "
                 "program (no MPI_COMM_WORLD to take tool ranks from)");
}

/* The "oversubscribed" flag: more of the job's ranks on this host than
 * cores they may run on (the union of their affinity masks, which a
 * launcher's binding and a cpuset narrow). revprof measures computation in
 * CPU time, so its prediction is for a core per rank, while a native run
 * here time-shares the cores: LULESH on 8 ranks of a 2-core VM predicted
 * 0.35 s, ran 1.3 s natively (6 s with MPICH, which polls). */
static int oversubscribed;

static void oversub_check(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long k = 0; k < n && k < CPU_SETSIZE; k++)
      CPU_SET((int)k, &set);
  }
  int cores = -1;
  if (PMPI_Allreduce(MPI_IN_PLACE, &set, (int)sizeof set, MPI_BYTE, MPI_BOR,
                     rp_g.node) == MPI_SUCCESS)
    cores = CPU_COUNT(&set);
  char host[256] = "", text[400];
  if (gethostname(host, sizeof host - 1) != 0)
    host[0] = '\0';
  oversubscribed = rp_oversub_text(text, sizeof text, rp_g.node_size, cores,
                                   host, rp_g.cfg.mode != RP_MODE_PREDICT);
  if (oversubscribed)
    rp_report_flag("oversubscribed", "%s", text);
}

/* The "host-busy" flag over the run: the calibration at MPI_Init
 * (rp_measure_startup) sees 5 ms of it, while another job that starts
 * later slows the rest. Linux counts, per thread, the time it was runnable
 * but waited for a core (/proc/self/task/TID/schedstat), and the hypervisor's
 * steal per host (/proc/stat): read at MPI_Init and at MPI_Finalize, without
 * a cost per call. HPCCG at 2 ranks on the 2-core VM beside two busy
 * loops: 51 % waited (bench/proxy-apps.sh, docs/revprof.md's Flags); the
 * same runs alone: no flag. Not read where the ranks of the
 * job alone oversubscribe the cores (that flag says it). */
static struct {
  int ok;
  long tid; /* the thread that initialized MPI: its counters at the end */
  double wait, steal, wall;
} busy0;

static int host_load(double *wait, double *steal) {
  char line[512];
  snprintf(line, sizeof line, "/proc/self/task/%ld/schedstat", busy0.tid);
  FILE *f = fopen(line, "r");
  *wait = -1.0;
  if (f) {
    if (fgets(line, sizeof line, f))
      *wait = rp_schedstat_wait(line);
    fclose(f);
  }
  *steal = 0.0;
  f = fopen("/proc/stat", "r");
  long cpus = sysconf(_SC_NPROCESSORS_ONLN), hz = sysconf(_SC_CLK_TCK);
  if (f) {
    double s = -1.0;
    if (fgets(line, sizeof line, f))
      s = rp_stat_steal(line, (double)hz);
    if (s > 0.0 && cpus > 0)
      *steal = s / (double)cpus;
    fclose(f);
  }
  return *wait >= 0.0;
}

static void busy_startup(void) {
  busy0.tid = (long)syscall(SYS_gettid);
  busy0.ok = rp_g.cfg.mode != RP_MODE_OFF &&
             host_load(&busy0.wait, &busy0.steal);
  busy0.wall = rp_host_seconds();
}

/* collective over the world (at MPI_Finalize, before the report) */
static void busy_check(void) {
  if (rp_g.cfg.mode == RP_MODE_OFF)
    return;
  /* shares of this rank's run, so that every rank's text is the same */
  double mine[2] = {0.0, 0.0}, most[2] = {0.0, 0.0}, w, s;
  double wall = rp_host_seconds() - busy0.wall;
  if (busy0.ok && !oversubscribed && host_load(&w, &s)) {
    mine[0] = rp_busy_share(w - busy0.wait, wall);
    mine[1] = rp_busy_share(s - busy0.steal, wall);
  }
  if (PMPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, rp_world_shadow()) !=
      MPI_SUCCESS)
    return;
  char text[RP_FLAG_TEXT];
  if (rp_busy_text(text, sizeof text, mine[0], mine[1], 1.0, 0) &&
      rp_busy_text(text, sizeof text, most[0], most[1], 1.0,
                   rp_g.cfg.mode != RP_MODE_PREDICT))
    rp_report_flag("host-busy", "%s", text);
}

/* rp_g.node, the world's ranks on this host, once for every module;
 * collective over the world, at MPI_Init. */
static void node_startup(void) {
  rp_g.node = MPI_COMM_NULL;
  rp_g.node_rank = rp_g.node_size = 0;
  if (PMPI_Comm_split_type(rp_g.world, MPI_COMM_TYPE_SHARED, 0,
                           MPI_INFO_NULL, &rp_g.node) != MPI_SUCCESS ||
      rp_g.node == MPI_COMM_NULL) {
    rp_g.node = MPI_COMM_NULL;
    return;
  }
  PMPI_Comm_rank(rp_g.node, &rp_g.node_rank);
  PMPI_Comm_size(rp_g.node, &rp_g.node_size);
  oversub_check();
}

void rp_startup(int provided, MPI_Comm world) {
  char err[1024] = "";
  int ok = 1;
  rp_g.initialized = 1;
  rp_g.node = MPI_COMM_NULL; /* (not 0 in Open MPI): node_startup below */
  rp_g.thread_level = provided;
  rp_g.by_session = world != MPI_COMM_NULL;
  rp_g.world = rp_g.by_session ? world : MPI_COMM_WORLD;
  if (!rp_g.by_session)
    rp_monitor_startup(); /* tool ranks stay there; the rest: rp_g.world */
  PMPI_Comm_rank(rp_g.world, &rp_g.rank);
  PMPI_Comm_size(rp_g.world, &rp_g.size);
  if (rp_config_read(&rp_g.cfg, env_get, NULL, err, sizeof err) != 0)
    ok = 0;
  else if (rp_g.cfg.mode == RP_MODE_OFF)
    ok = 0;
  else if ((rp_g.cfg.mode == RP_MODE_PREDICT || rp_g.cfg.model[0]) &&
             revprof_model_load(rp_g.cfg.model, &rp_g.model, err,
                                sizeof err) != 0)
    ok = 0;
  if (!agree(ok, err, "prediction is off, the program runs without "
                      "revprof")) {
    revprof_model_free(rp_g.model);
    rp_g.model = NULL;
    if (rp_g.cfg.mode != RP_MODE_OFF) /* asked for, and not given: say so */
      off_report(err);
    return;
  }

  rp_g.mode = mode_of(rp_g.cfg.mode);
  node_startup();
  model_notes_flags();
  unknown_vars();
  icost_cached(); /* before the mode may drop the model */
  if (rp_g.mode->configure)
    rp_g.mode->configure(&rp_g.cfg, &rp_g.model);
  /* auto: an unmodified program is measured; the first annotation call
     turns a run to annotate (auto_switch) */
  rp_g.compute_auto = rp_g.cfg.compute == RP_COMPUTE_AUTO;
  rp_g.auto_t = -1.0;
  rp_g.auto_calls = 0.0;
  rp_g.cfg.compute =
      rp_compute_resolve(rp_g.cfg.compute, rp_g.cfg.lua[0] != '\0');
  if (rp_g.cfg.pack_max < 0)
    rp_g.cfg.pack_max = RP_DEFAULT_PACK_MAX;
  rp_g.lua_fault = 0;
  if (rp_g.cfg.compute == RP_COMPUTE_ANNOTATE && rp_g.cfg.lua[0]) {
    ok = rp_annotate_open(rp_g.cfg.lua, NULL, &rp_g.lua, err, sizeof err) ==
         0;
    if (!ok) {
      rp_g.lua_fault = 1;
      snprintf(rp_g.lua_error, sizeof rp_g.lua_error, "%s", err);
    }
    agree(ok, err, "Lua region costs are off for this run (regions add 0 s)");
  } else if (rp_g.cfg.lua[0] && rp_g.rank == 0)
    rp_warn("REVPROF_LUA is ignored: REVPROF_COMPUTE=%s (Lua costs need "
            "annotate)",
            rp_compute_name(rp_g.cfg.compute));

  rp_cost_startup();
  rp_clock_init(&rp_g.clk);
  rp_wild_init(&rp_g.wild, MPI_ANY_TAG);
  rp_mt_startup(provided);
  rp_p2p_startup();
  rp_match_startup();
  rp_comm_startup();
  rp_coll_startup();
  rp_rma_startup();
  if (rp_g.by_session)
    session_monitor_off();
  else
    spawned_outdir();
  rp_report_startup();
  if (rp_g.cfg.compute == RP_COMPUTE_MEASURE)
    rp_measure_startup();
  if (rp_g.cfg.trace[0]) {
    rp_trace_config tc = {rp_g.cfg.outdir, rp_g.cfg.trace, rp_g.rank,
                          rp_g.size, rp_g.cfg.quiet};
    rp_g.tracing = rp_trace_open(&tc) == 0;
  }
  rp_g.extras = rp_g.tracing || rp_g.cfg.compute == RP_COMPUTE_MEASURE ||
                mode_hooks_calls();
  rp_g.ic_due = INFINITY; /* no period before rp_icost_startup */
  rp_g.ic_budget = INFINITY;
  for (int k = 0; k < RP_IC_KINDS; k++) {
    rp_g.ic_n[k] = 0.0;
    rp_g.ic_cost[k] = (rp_icost_kinds() & 1u << k) ? -1.0 : 0.0;
  }
  if (rp_g.mode->startup) {
    rp_g.active = 1; /* calibration runs the hooks */
    rp_t.in_tool = 1;
    err[0] = '\0';
    ok = rp_g.mode->startup(err, sizeof err) == 0;
    rp_t.in_tool = 0;
    char off[200];
    snprintf(off, sizeof off, "%s is off, the program runs without revprof",
             rp_g.mode->what);
    if (!agree(ok, err, off)) {
      rp_g.active = 0;
      rp_g.extras = 0;
      if (rp_g.node != MPI_COMM_NULL)
        PMPI_Comm_free(&rp_g.node);
      return;
    }
  }
  rp_g.active = 1;
  calibrate_icost();
  if (rp_g.cfg.compute == RP_COMPUTE_MEASURE && !rp_g.use_papi_ins)
    calibrate_wrapper_gap();
  memset(rp_g.host_unc, 0, sizeof rp_g.host_unc);
  memset(rp_g.ic_n, 0, sizeof rp_g.ic_n);
  test_startup_delay();
  rp_icost_startup();
  rp_g.host_start = rp_host_seconds();
  busy_startup();
  /* the program's first gap starts here: the start-up's work since the
     calibration's last mark (the cost model's allreduce, which waits for
     the slowest rank's calibrations) is revprof's, not the program's */
  if (rp_g.cfg.compute == RP_COMPUTE_MEASURE)
    rp_measure_mark();
}

void rp_shutdown(void) {
  rp_match_gone();
  rp_mt_report();
  rp_icost_finish();
  busy_check();
  rp_g.mode->report();
  if (rp_g.tracing)
    rp_trace_close(0);
  rp_g.tracing = 0;
  rp_g.extras = rp_g.cfg.compute == RP_COMPUTE_MEASURE;
  rp_zombies_progress(1);
  rp_rma_shutdown();
  rp_io_shutdown();
  rp_match_shutdown();
  rp_comm_shutdown();
  rp_p2p_shutdown();
  rp_mt_shutdown();
  rp_measure_shutdown();
  rp_report_shutdown();
  if (rp_g.node != MPI_COMM_NULL)
    PMPI_Comm_free(&rp_g.node);
  rp_g.active = 0;
  rp_g.finalized = 1;
}

/* ------------------------------------------------------------ public API */

/* REVPROF_COMPUTE=auto measured until now and the program declares its
 * computation: from here on only its declarations count. The gap under way
 * is not measured (the declaration covers it); the earlier ones stay. */
static void auto_switch(void) {
  if (!rp_g.active || !rp_compute_switches(rp_g.compute_auto,
                                           rp_g.cfg.compute))
    return;
  double calls = 0.0;
  for (int i = 0; i < RP_W_COUNT; i++)
    calls += rp_g.fstat[i].calls;
  rp_g.cfg.compute = RP_COMPUTE_ANNOTATE;
  rp_g.auto_t = rp_g.clk.now[RP_AVG];
  rp_g.auto_calls = calls;
  rp_g.extras = rp_g.tracing || mode_hooks_calls();
  rp_report_settings();
}

/* The public API may be called from any thread: under
 * MPI_THREAD_MULTIPLE it takes the engine lock (rp_mt.c). */
static void compute_steps(double n) {
  double dt[RP_NB];
  auto_switch();
  if (!rp_g.active || rp_g.cfg.compute != RP_COMPUTE_ANNOTATE)
    return;
  rp_compute_steps(rp_g.cfg.step, n, dt);
  rp_add_compute(dt, "compute");
}

RP_EXPORT void revprof_compute_steps(double n) {
  int took = rp_mt_hold();
  compute_steps(n);
  rp_mt_release(took);
}

static void compute_seconds(double s) {
  double dt[RP_NB];
  auto_switch();
  if (!rp_g.active || rp_g.cfg.compute != RP_COMPUTE_ANNOTATE)
    return;
  rp_compute_seconds(s, dt);
  rp_add_compute(dt, "compute");
}

RP_EXPORT void revprof_compute_seconds(double s) {
  int took = rp_mt_hold();
  compute_seconds(s);
  rp_mt_release(took);
}

static int region_v(const char *name, int nargs, const double *args) {
  char err[1024];
  double dt[RP_NB];
  auto_switch();
  if (!rp_g.active || rp_g.cfg.compute != RP_COMPUTE_ANNOTATE)
    return 0;
  if (rp_g.lua == NULL) {
    if (rp_g.lua_fault)
      return REVPROF_ELUA;
    rp_g.lua_fault = 1;
    snprintf(rp_g.lua_error, sizeof rp_g.lua_error,
             "revprof_region(\"%s\") called but REVPROF_LUA is not set",
             name ? name : "(null)");
    if (rp_g.rank == 0)
      rp_warn("%s; Lua region costs are off for this run", rp_g.lua_error);
    return REVPROF_EINVAL;
  }
  /* an event of the instrumentation cost: one call in RP_IC_LUA_EVERY
     timed, the mean of those its cost (no timer around the others) */
  static double timed_n, timed_s;
  int timed = fmod(rp_g.ic_n[RP_IC_LUA], RP_IC_LUA_EVERY) == 0.0;
  double h0 = timed ? rp_host_seconds() : 0.0;
  int rc = rp_annotate_cost(rp_g.lua, name, nargs, args, dt, err, sizeof err);
  if (timed) {
    timed_s += rp_host_seconds() - h0;
    timed_n += 1.0;
    rp_g.ic_cost[RP_IC_LUA] = timed_s / timed_n;
  }
  rp_g.ic_n[RP_IC_LUA] += 1.0;
  if (rc != 0) {
    rp_g.lua_fault = 1;
    snprintf(rp_g.lua_error, sizeof rp_g.lua_error, "%s", err);
    if (rp_g.rank == 0) /* the report counts the ranks it happened on */
      rp_warn("%s; Lua region costs are off for the rest of this run", err);
    rp_annotate_free(rp_g.lua);
    rp_g.lua = NULL;
    return rc;
  }
  rp_add_compute(dt, name);
  rp_monitor_region_add(name, dt[RP_AVG]);
  return 0;
}

RP_EXPORT int revprof_region_v(const char *name, int nargs,
                               const double *args) {
  rp_monitor_at_region();
  int took = rp_mt_hold();
  int rc = region_v(name, nargs, args);
  rp_mt_release(took);
  return rc;
}

RP_EXPORT double revprof_now(void) {
  double t;
  revprof_now_bounds(NULL, &t, NULL);
  return t;
}

/* 0 where no clock is simulated: revprof off, compensate and sample modes */
RP_EXPORT void revprof_now_bounds(double *min, double *avg, double *max) {
  int took = rp_mt_hold();
  int on = rp_simulating();
  if (min)
    *min = on ? rp_g.clk.now[RP_MIN] : 0.0;
  if (avg)
    *avg = on ? rp_g.clk.now[RP_AVG] : 0.0;
  if (max)
    *max = on ? rp_g.clk.now[RP_MAX] : 0.0;
  rp_mt_release(took);
}

RP_EXPORT int revprof_enabled(void) { return rp_g.active; }

RP_EXPORT int revprof_sample_set(const char *technique) {
  char err[256];
  int took = rp_mt_hold();
  int rc = rp_sample_set(technique ? technique : "", err, sizeof err);
  rp_mt_release(took);
  if (rc != 0)
    fprintf(stderr, "revprof: revprof_sample_set: %s\n", err);
  return rc;
}
