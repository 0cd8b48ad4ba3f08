/* revprof-characterize: the MPI program that times every function of the
 * machine model over group sizes p and message sizes d, writes raw.csv and,
 * on rank 0, fits model.lua and writes the datasheet (see docs/characterize.md).
 * Built with -DRP_RAW_ONLY (SimGrid's smpicc) it needs only MPI and libc. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "charlib.h"
#include "model_int.h"
#include "kernels.h"
#include "revprof_model.h"
#include "rp_util.h"
#ifndef RP_RAW_ONLY
#include "rp_datasheet.h"
#endif

#define PROG "revprof-characterize"
#define ERRLEN 1024
#define PATHLEN 2048
#define CLOCK_PINGS 10     /* ping-pongs per rank for a clock offset */
#define TAG_CLOCK 4343
#define SLACK_MIN 20e-6    /* window: shortest lead of the agreed start, s */
#define SLACK_MAX 1.0
#define PROGRESS_EVERY 2.0 /* seconds between progress lines */

#ifdef RP_SMPI_INTERP
/* smpicc links this program as a shared object that smpirun loads (and
 * calls main); started by itself it used to crash with no word. With the
 * system's program interpreter and this entry point (characterize/
 * CMakeLists.txt), it says how to run it. Only write and _exit here: the
 * C library's start-up has not run. */
const char rp_smpi_interp[] __attribute__((section(".interp"))) =
    RP_SMPI_INTERP;
__attribute__((force_align_arg_pointer, noreturn)) void
rp_smpi_entry(void);
void rp_smpi_entry(void) {
  static const char msg[] =
      "revprof-characterize-smpi: a SimGrid program: run it under smpirun,\n"
      "  smpirun -platform characterize/smpi/cluster.xml -hostfile "
      "characterize/smpi/hostfile -np 4 \\\n"
      "    build/characterize/revprof-characterize-smpi [OPTIONS]\n"
      "its OPTIONS are those of 'revprof characterize' (revprof characterize "
      "--help;\nunder smpirun --help shows SimGrid's own); README.md, "
      "\"SimGrid\"\n";
  ssize_t said = write(2, msg, sizeof msg - 1);
  (void)said; /* if it failed, there is nothing else to say it with */
  _exit(2);
}
#endif

/* rp_char_drift's limit: the reference message's time may change by this
 * factor between the start and the end of a run without a note */
#define RP_DRIFT_LIMIT 1.5

/* One measured point (rank 0). */
typedef struct result {
  revprof_point pt;
  rp_stop stop;
  long nrejected; /* repetitions dropped as outliers */
  int shrunk;     /* cap lowered by --budget */
  int round;      /* 0: base sweep, 1..: extra sizes */
} result;

typedef struct run {
  rp_char_options o;
  int argc;
  char **argv;
  int rank, world;
  uint64_t seed;
  MPI_Comm *comm_p; /* [p]: ranks 0..p-1; MPI_COMM_NULL outside or unused */
  MPI_Comm p2p;     /* ranks 0 and --peer */
  rp_io_place io;   /* file I/O rows: --io-dir, file names */
  char io_fs[256];  /* rank 0: file system of --io-dir, "" without */
  double slack;     /* window sync: lead time of the agreed start, s */
  long on_time;     /* window sync: repetitions in a row that were on time */
  double *samples, *work; /* repetition maxima of the current point */
  size_t samples_cap, work_cap;
  /* rank 0 only */
  double t_begin, t_progress; /* Wtime at the start, at the last line */
  double t_checkpoint;        /* Wtime of raw.partial.csv's last writing */
  int checkpoint_failed;      /* said once */
  long abort_after;           /* REVPROF_TEST_CHAR_ABORT (tests): 0 off */
  size_t nresumed;            /* --resume: points of raw.partial.csv kept */
  size_t done, total;         /* points over all rounds, for progress */
  result *res;
  size_t nres, capres;
  rp_char_spec *skipped, *failed, *extra; /* budget, < 2 reps, jumps */
  size_t nskipped, capskipped, nfailed, capfailed, nextra, capextra;
  size_t nshrunk, nlimited, nstop[4];
  double drift[2];      /* rank 0: drift_probe before and after, s */
  char drift_note[300]; /* rank 0: rp_char_drift's note, or "" */
  double eager_limit;   /* rank 0: rp_eager_probe's, 0 when not probed */
} run;

/* ------------------------------------------------------------- helpers */

static void oom(const char *what) {
  fprintf(stderr, PROG ": out of memory (%s)\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void spec_push(rp_char_spec **arr, size_t *n, size_t *cap,
                      const rp_char_spec *s) {
  rp_char_spec *a = rp_grow(*arr, cap, *n + 1, sizeof *a);
  if (a == NULL)
    oom("point list");
  *arr = a;
  a[(*n)++] = *s;
}

/* Waits for req without spinning hard, so that ranks outside the measured
 * group leave the cores to it (they sleep between tests, 20 us .. 1 ms). */
static void sleepy_wait(MPI_Request *req) {
#ifdef RP_SMPI
  MPI_Wait(req, MPI_STATUS_IGNORE); /* simulated: no cores to share */
#else
  int done = 0;
  long ns = 20000;
  MPI_Test(req, &done, MPI_STATUS_IGNORE);
  while (!done) {
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
    if (ns < 1000000)
      ns *= 2;
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
  }
#endif
}

static void bcast_sleepy(void *buf, int count, MPI_Datatype type) {
  MPI_Request req;
  MPI_Ibcast(buf, count, type, 0, MPI_COMM_WORLD, &req);
  sleepy_wait(&req);
}

/* Creates dir if needed and proves a file can be written and renamed in
 * it, before any time is spent measuring. 0, or with a message naming dir
 * REVPROF_EINVAL (it is no directory) or REVPROF_EIO. */
static int check_outdir(const char *dir, char *err, size_t errlen) {
  struct stat st;
  char probe[PATHLEN], probe2[PATHLEN];
  if (rp_mkdir_p(dir) != 0 && errno != EEXIST) { /* EEXIST: a file, below */
    rp_errf(err, errlen, "cannot create output directory %s: %s", dir,
             strerror(errno));
    return REVPROF_EIO;
  }
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    rp_errf(err, errlen, "output %s is not a directory", dir);
    return REVPROF_EINVAL;
  }
  snprintf(probe, sizeof probe, "%s/.revprof-probe-%ld.tmp", dir,
           (long)getpid());
  snprintf(probe2, sizeof probe2, "%s/.revprof-probe-%ld", dir,
           (long)getpid());
  FILE *f = fopen(probe, "w");
  int ok = f != NULL && fputs("probe\n", f) >= 0;
  if (f && fclose(f) != 0)
    ok = 0;
  if (ok && rename(probe, probe2) != 0)
    ok = 0;
  int saved = errno;
  remove(probe);
  remove(probe2);
  if (!ok) {
    rp_errf(err, errlen, "cannot write in output directory %s: %s", dir,
             strerror(saved));
    return REVPROF_EIO;
  }
  return 0;
}

/* --io-dir: dir must be a directory in which a file can be created (the
 * file I/O rows make theirs there); its file system is named into fs,
 * e.g. "ext2/3/4 at /tmp" (statfs's type, the resolved path). 0, or with
 * a message naming the option and dir REVPROF_EMISSING (no such dir),
 * REVPROF_EINVAL (no directory) or REVPROF_EIO. */
static int check_iodir(const char *dir, char *fs, size_t fslen, char *err,
                       size_t errlen) {
  struct stat st;
  char probe[PATHLEN], type[64] = "unknown type";
  if (stat(dir, &st) != 0) {
    int e = errno;
    rp_errf(err, errlen, "--io-dir %s: %s", dir, strerror(e));
    return e == ENOENT ? REVPROF_EMISSING : REVPROF_EIO;
  }
  if (!S_ISDIR(st.st_mode)) {
    rp_errf(err, errlen, "--io-dir %s: not a directory", dir);
    return REVPROF_EINVAL;
  }
  snprintf(probe, sizeof probe, "%s/.revprof-io-probe-%ld", dir,
           (long)getpid());
  FILE *f = fopen(probe, "wx");
  int ok = f != NULL && fputs("probe\n", f) >= 0;
  if (f && fclose(f) != 0)
    ok = 0;
  int saved = errno;
  remove(probe);
  if (!ok) {
    rp_errf(err, errlen, "--io-dir %s: cannot create a file there: %s", dir,
            strerror(saved));
    return REVPROF_EIO;
  }
#ifdef __linux__
  struct statfs sf;
  if (statfs(dir, &sf) == 0)
    rp_char_fs_name((unsigned long)sf.f_type, type, sizeof type);
#endif
  char *real = realpath(dir, NULL);
  int n = snprintf(fs, fslen, "%s at %s", type, real ? real : dir);
  if (n >= (int)fslen && fslen > 4) /* a long path: its start, marked */
    memcpy(fs + fslen - 4, "...", 4);
  free(real);
  return 0;
}

static MPI_Comm comm_for(const run *r, const rp_char_spec *s) {
  switch (revprof_fn_kind_of(s->fn)) {
  case REVPROF_KIND_P2P:
    return r->p2p;
  case REVPROF_KIND_LOCAL:
    return r->rank == 0 ? MPI_COMM_SELF : MPI_COMM_NULL;
  case REVPROF_KIND_COLL:
    break;
  }
  return s->p <= r->world ? r->comm_p[s->p] : MPI_COMM_NULL;
}

/* --------------------------------------------------------- measurement */

/* This rank's clock minus that of the group's rank 0 (world rank 0), by
 * ping-pong; rank 0 tells each member its offset (seed 003 §3.1). Under
 * SimGrid every process reads the one simulated clock: the offset is 0,
 * and a ping-pong would measure the asymmetry of the simulated send and
 * receive instead (it put a member one latency early, so that every
 * collective measured there counted that latency too). */
static double clock_offset(MPI_Comm c) {
#ifdef RP_SMPI
  (void)c;
  return 0.0;
#endif
  int me, p;
  char dummy = 0;
  double off = 0.0;
  MPI_Comm_rank(c, &me);
  MPI_Comm_size(c, &p);
  if (me == 0) {
    for (int q = 1; q < p; q++) {
      double ts[CLOCK_PINGS], tr[CLOCK_PINGS], te[CLOCK_PINGS];
      for (int i = 0; i < CLOCK_PINGS; i++) {
        ts[i] = MPI_Wtime();
        MPI_Send(&dummy, 0, MPI_BYTE, q, TAG_CLOCK, c);
        MPI_Recv(&tr[i], 1, MPI_DOUBLE, q, TAG_CLOCK, c, MPI_STATUS_IGNORE);
        te[i] = MPI_Wtime();
      }
      double o = rp_clock_offset(ts, tr, te, CLOCK_PINGS);
      MPI_Send(&o, 1, MPI_DOUBLE, q, TAG_CLOCK, c);
    }
  } else {
    for (int i = 0; i < CLOCK_PINGS; i++) {
      MPI_Recv(&dummy, 0, MPI_BYTE, 0, TAG_CLOCK, c, MPI_STATUS_IGNORE);
      double t = MPI_Wtime();
      MPI_Send(&t, 1, MPI_DOUBLE, 0, TAG_CLOCK, c);
    }
    MPI_Recv(&off, 1, MPI_DOUBLE, 0, TAG_CLOCK, c, MPI_STATUS_IGNORE);
  }
  return off;
}

/* One repetition on a member of the group. red[] comes back identical on
 * all members (MPI_MAX): [0] the time of the timed ranks, [1] seconds since
 * the point began, [2] 1 when a rank reached the agreed start late (window
 * sync), [3] the next agreed start on rank 0's clock. start is the agreed
 * start of this repetition on rank 0's clock, offset this rank's clock
 * minus rank 0's. */
static void one_rep(run *r, const rp_kernel *K, rp_kctx *k, double t_point,
                    double start, double offset, double red[4]) {
  double mine[4], t0;
  int late = 0;
  rp_kctx_fresh(k);
  if (K->pre)
    K->pre(k);
  if (r->o.sync == RP_SYNC_BARRIER) {
    MPI_Barrier(k->comm);
    t0 = MPI_Wtime();
  } else {
    t0 = start + offset;
    late = MPI_Wtime() > t0;
    rp_wait_until(t0); /* the agreed start */
  }
  double t = K->run(k, t0);
  if (K->post)
    K->post(k);
  double now = MPI_Wtime();
  mine[0] = t;
  mine[1] = now - t_point;
  mine[2] = late;
  mine[3] = k->rank == 0 ? now + r->slack : -HUGE_VAL;
  MPI_Allreduce(mine, red, 4, MPI_DOUBLE, MPI_MAX, k->comm);
}

/* Adapts the window lead: doubled after a late start, halved after 100
 * repetitions on time. Every rank sees the same flags, so all agree. */
static void adapt_slack(run *r, int late) {
  if (late) {
    r->slack = fmin(2.0 * r->slack, SLACK_MAX);
    r->on_time = 0;
  } else if (++r->on_time >= 100) {
    r->slack = fmax(0.5 * r->slack, SLACK_MIN);
    r->on_time = 0;
  }
}

/* Measures one point on the members of its group c with a time cap (s).
 * Returns 0 with the statistics, or REVPROF_EMEASURE when fewer than 2
 * repetitions were made or the buffers or file of the point failed on some
 * member (the caller lists the point as left out). */
static int measure(run *r, const rp_char_spec *s, MPI_Comm c, double cap,
                   rp_stats *st, rp_stop *why) {
  const rp_kernel *K = rp_kernel_get(s->fn);
  rp_kctx k;
  int ok = rp_kctx_init(&k, s->fn, c, s->d, &r->io) == 0, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c);
  if (!all_ok) {
    rp_kctx_free(&k); /* every member: it may hold a window */
    *why = RP_STOP_NO;
    return REVPROF_EMEASURE;
  }
  double t_point = MPI_Wtime(), offset = 0.0, start = 0.0, red[4];
  if (r->o.sync == RP_SYNC_WINDOW) {
    offset = clock_offset(c);
    double mine[4] = {RP_NOT_TIMED, 0.0, 0.0,
                      k.rank == 0 ? MPI_Wtime() + r->slack : -HUGE_VAL};
    MPI_Allreduce(mine, red, 4, MPI_DOUBLE, MPI_MAX, c);
    start = red[3];
  }
  rp_stop_rule rule = {r->o.rse, cap, r->o.min_reps, r->o.max_reps};
  for (int w = 0; w < r->o.warmup; w++) {
    one_rep(r, K, &k, t_point, start, offset, red);
    start = red[3];
    adapt_slack(r, red[2] > 0.0);
  }
  long n = 0;
  for (;;) {
    one_rep(r, K, &k, t_point, start, offset, red);
    start = red[3];
    int late = red[2] > 0.0;
    adapt_slack(r, late);
    if (red[0] < 0.0) /* no timed rank or a clock going backwards */
      late = 1;
    double rse = -1.0;
    if (!late) {
      double *sa = rp_grow(r->samples, &r->samples_cap, (size_t)n + 1,
                           sizeof *sa);
      if (sa == NULL)
        oom("samples");
      r->samples = sa;
      double *wk = rp_grow(r->work, &r->work_cap, r->samples_cap, sizeof *wk);
      if (wk == NULL)
        oom("samples");
      r->work = wk;
      r->samples[n++] = red[0];
      if (n >= 2 && rp_stop_check_due(n)) {
        rp_stats tmp;
        rp_stats_compute(r->samples, (size_t)n, r->work, &tmp);
        rse = tmp.rse;
      }
    }
    *why = rp_stop_decide(&rule, n, red[1], rse);
    if (*why != RP_STOP_NO)
      break;
  }
  rp_kctx_free(&k);
  if (n < 2)
    return REVPROF_EMEASURE;
  rp_stats_compute(r->samples, (size_t)n, r->work, st);
  return 0;
}

/* ------------------------------------------------------ progress, rank 0 */

static void progress(run *r, int force) {
  double now = MPI_Wtime();
  if (r->o.verbose < 0 || (!force && now - r->t_progress < PROGRESS_EVERY))
    return;
  r->t_progress = now;
  char el[32], left[32];
  double elapsed = now - r->t_begin;
  rp_fmt_duration(elapsed, el, sizeof el);
  rp_fmt_duration(rp_eta(elapsed, r->done, r->total, r->o.budget), left, sizeof left);
  fprintf(stderr, "characterize: %zu/%zu points (%.0f%%), %s elapsed, "
                  "about %s left\n",
          r->done, r->total,
          r->total ? 100.0 * (double)r->done / (double)r->total : 100.0, el,
          left);
}

static void checkpoint(run *r);

static void record(run *r, const rp_char_spec *s, int rc, const rp_stats *st,
                   rp_stop why, int shrunk, int round) {
  r->done++;
  if (rc != 0) {
    spec_push(&r->failed, &r->nfailed, &r->capfailed, s);
    if (r->o.verbose > 0)
      fprintf(stderr, "  %s p=%d d=%ld: fewer than 2 repetitions, left out\n",
              revprof_fn_name(s->fn), s->p, s->d);
    progress(r, 0);
    return;
  }
  result *rs = rp_grow(r->res, &r->capres, r->nres + 1, sizeof *rs);
  if (rs == NULL)
    oom("results");
  r->res = rs;
  result *x = &r->res[r->nres++];
  x->pt.fn = s->fn;
  x->pt.p = s->p;
  x->pt.d = (double)s->d;
  x->pt.min = st->min;
  x->pt.median = st->median;
  x->pt.mean = st->mean;
  x->pt.max = st->max;
  x->pt.reps = st->n;
  x->pt.rse = st->rse;
  x->stop = why;
  x->nrejected = st->nrejected;
  x->shrunk = shrunk;
  x->round = round;
  r->nstop[why]++;
  r->nshrunk += shrunk != 0;
  if (r->o.verbose > 0)
    fprintf(stderr, "  %s p=%d d=%ld: median %.3g us, rse %.1f%%, %ld reps "
                    "(%ld outliers), stopped by %s\n",
            revprof_fn_name(s->fn), s->p, s->d, st->median * 1e6,
            100.0 * st->rse, st->n, st->nrejected, rp_stop_name(why));
  progress(r, 0);
  checkpoint(r);
  if (r->abort_after > 0 && (long)r->done >= r->abort_after) {
    fprintf(stderr, PROG ": REVPROF_TEST_CHAR_ABORT: aborting after %zu "
                    "points\n", r->done);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

/* Runs the points of plan in its order; every rank walks the same list.
 * Rank 0 decides each point's cap under the budget and broadcasts it. */
static void run_plan(run *r, const rp_char_plan *plan, int round) {
  for (size_t i = 0; i < plan->n; i++) {
    const rp_char_spec *s = &plan->pt[i];
    double dec[2] = {0.0, 0.0};
    if (r->rank == 0) {
      double cap;
      rp_budget b = rp_budget_cap(r->o.budget, MPI_Wtime() - r->t_begin,
                                  plan->n - i, r->o.point_time, &cap);
      if (b != RP_BUDGET_RUN && r->nres == 0) {
        /* however small the budget: one point measured (the next one runs
           too when a loaded machine left the first without 2 reps) */
        b = RP_BUDGET_RUN;
        cap = r->o.point_time;
      }
      dec[0] = (double)b;
      dec[1] = cap;
    }
    bcast_sleepy(dec, 2, MPI_DOUBLE);
    if ((rp_budget)dec[0] == RP_BUDGET_SKIP) {
      if (r->rank == 0) {
        spec_push(&r->skipped, &r->nskipped, &r->capskipped, s);
        r->done++;
      }
      continue;
    }
    MPI_Comm c = comm_for(r, s);
    if (c == MPI_COMM_NULL)
      continue; /* not in this group: wait in the next broadcast */
    rp_stats st;
    rp_stop why;
    int rc = measure(r, s, c, dec[1], &st, &why);
    if (r->rank == 0)
      record(r, s, rc, &st, why,
             (rp_budget)dec[0] == RP_BUDGET_SHRINK, round);
  }
}

static void merge_results(run *r);

/* Runs plan --passes times, each in a new random order (every rank shuffles
 * with the same seed), then merges each point's passes on rank 0. */
static void run_passes(run *r, rp_char_plan *plan, int round) {
  for (int pass = 0; pass < r->o.passes; pass++) {
    rp_char_plan_shuffle(plan, r->seed + 7919u * (uint64_t)round +
                                   104729u * (uint64_t)pass);
    run_plan(r, plan, round);
  }
  if (r->rank == 0)
    merge_results(r);
}

/* Extra sizes where the data jump (rank 0 decides, all receive the list).
 * Returns the number of points added to extra. */
static size_t plan_extra(run *r, int round, rp_char_plan *extra) {
  long n = 0;
  long *buf = NULL;
  if (r->rank == 0) {
    double left = r->o.budget > 0 ? r->o.budget - (MPI_Wtime() - r->t_begin)
                                  : 1.0;
    revprof_point *pts = malloc((r->nres + 1) * sizeof *pts);
    if (pts == NULL)
      oom("extra sizes");
    for (size_t i = 0; i < r->nres; i++)
      pts[i] = r->res[i].pt;
    if (left > 0 && rp_char_refine(pts, r->nres, r->o.jump, r->o.max_extra,
                                   r->o.max_buffer, extra) != 0)
      oom("extra sizes");
    free(pts);
    rp_char_plan_shuffle(extra, r->seed + (uint64_t)round);
    r->nlimited += extra->nlimited;
    n = (long)extra->n;
    buf = malloc((size_t)(3 * n + 1) * sizeof *buf);
    if (buf == NULL)
      oom("extra sizes");
    for (long i = 0; i < n; i++) {
      buf[3 * i] = extra->pt[i].fn;
      buf[3 * i + 1] = extra->pt[i].p;
      buf[3 * i + 2] = extra->pt[i].d;
      spec_push(&r->extra, &r->nextra, &r->capextra, &extra->pt[i]);
    }
  }
  bcast_sleepy(&n, 1, MPI_LONG);
  if (n == 0) {
    free(buf);
    return 0;
  }
  if (r->rank != 0 && (buf = malloc((size_t)(3 * n) * sizeof *buf)) == NULL)
    oom("extra sizes");
  bcast_sleepy(buf, (int)(3 * n), MPI_LONG);
  if (r->rank != 0)
    for (long i = 0; i < n; i++) {
      rp_char_spec s = {(revprof_fn)buf[3 * i], (int)buf[3 * i + 1],
                        buf[3 * i + 2]};
      if (rp_char_plan_add(extra, &s))
        oom("extra sizes");
    }
  free(buf);
  return (size_t)n;
}

/* ------------------------------------------------------ outputs, rank 0 */

static int cmp_result(const void *a, const void *b) {
  const revprof_point *x = &((const result *)a)->pt;
  const revprof_point *y = &((const result *)b)->pt;
  if (x->fn != y->fn)
    return x->fn < y->fn ? -1 : 1;
  if (x->p != y->p)
    return x->p < y->p ? -1 : 1;
  return (x->d > y->d) - (x->d < y->d);
}

/* Merges the results of the same point from several passes into one
 * (rp_char_merge_passes); results measured once stay as they are. */
static size_t merge_array(result *res, size_t n) {
  if (n < 2)
    return n;
  qsort(res, n, sizeof *res, cmp_result);
  revprof_point *grp = malloc(n * sizeof *grp);
  if (grp == NULL)
    oom("merging passes");
  size_t out = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    result merged = res[i];
    while (j < n && cmp_result(&res[i], &res[j]) == 0) {
      grp[j - i] = res[j].pt;
      if (j > i) {
        merged.nrejected += res[j].nrejected;
        merged.shrunk |= res[j].shrunk;
      }
      j++;
    }
    rp_char_merge_passes(grp, j - i, &merged.pt);
    res[out++] = merged;
    i = j;
  }
  free(grp);
  return out;
}

static void merge_results(run *r) { r->nres = merge_array(r->res, r->nres); }

static int cmp_spec(const void *a, const void *b) {
  const rp_char_spec *x = a, *y = b;
  if (x->fn != y->fn)
    return x->fn < y->fn ? -1 : 1;
  if (x->p != y->p)
    return x->p < y->p ? -1 : 1;
  return (x->d > y->d) - (x->d < y->d);
}

static void first_line(char *s) { s[strcspn(s, "\r\n")] = '\0'; }

static void mpi_library(char *buf, size_t len) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  v[0] = '\0';
  MPI_Get_library_version(v, &n);
  first_line(v);
  for (char *p = v; *p; p++)
    if (*p == '"' || *p == '\\')
      *p = ' ';
  snprintf(buf, len, "%s", v);
}

static void today(char *buf, size_t len) {
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%d", &tm);
}

static void spec_list(FILE *f, const char *title, const rp_char_spec *s,
                      size_t n) {
  if (n == 0)
    return;
  fprintf(f, "\n%s (%zu):\n", title, n);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "  %s p=%d d=%ld\n", revprof_fn_name(s[i].fn), s[i].p, s[i].d);
}

/* DIR/run.txt: settings, counts and every point that was skipped, left out
 * or missed the rse target. Written to a temporary name and renamed. 0, or
 * REVPROF_EIO with a message naming the file. */
static int write_summary(const run *r, const char *path, double seconds,
                         char *err, size_t errlen) {
  char tmp[PATHLEN + 8], desc[1024], mpi[256], host[256] = "?", date[32];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (f == NULL) {
    rp_errf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    return REVPROF_EIO;
  }
  rp_char_describe(&r->o, r->world, desc, sizeof desc);
  mpi_library(mpi, sizeof mpi);
  gethostname(host, sizeof host - 1);
  today(date, sizeof date);
  fprintf(f, "# revprof-characterize run summary\ncommand:");
  for (int i = 0; i < r->argc; i++)
    fprintf(f, " %s", r->argv[i]);
  fprintf(f, "\nsettings: %s\nseed: %llu\nmpi: %s\nhost: %s\ndate: %s\n"
             "ranks: %d\nwtick: %g s\nmeasuring time: %.1f s\n",
          desc, (unsigned long long)r->seed, mpi, host, date, r->world,
          MPI_Wtick(), seconds);
  if (r->io_fs[0])
    fprintf(f, "file system: %s (--io-dir)\n", r->io_fs);
  if (r->eager_limit > 0) {
    char b[32];
    revprof_eager_format(r->eager_limit, b, sizeof b);
    fprintf(f, "eager limit: %s%s (MPI_Send to a receive posted %g us "
               "late, sizes up to %ld)\n",
            b, isinf(r->eager_limit) ? "" : " B", RP_EAGER_DELAY * 1e6,
            r->o.smax);
  }
  fprintf(f, "reference: 8 B one way %.3g us before the first point, %.3g us "
             "after the last (%.2fx; more than %gx either way is a DRIFT "
             "note)%s\n",
          r->drift[0] * 1e6, r->drift[1] * 1e6,
          r->drift[0] > 0.0 ? r->drift[1] / r->drift[0] : 0.0, RP_DRIFT_LIMIT,
          r->drift_note[0] ? "\ndrift: the machine's speed changed while it "
                             "was measured (model notes: DRIFT)"
                           : "");
  fprintf(f, "points measured: %zu (%zu at extra sizes)\n", r->nres,
          r->nextra);
  if (r->nresumed)
    fprintf(f, "resumed: %zu of them from raw.partial.csv (--resume: "
               "measured by the run that died, not again)\n", r->nresumed);
  fprintf(f, "stopped by: rse target %zu, time cap %zu, max reps %zu\n",
          r->nstop[RP_STOP_RSE], r->nstop[RP_STOP_TIME],
          r->nstop[RP_STOP_REPS]);
  fprintf(f, "budget: %zu points skipped (not measured), %zu ran with a "
             "cap below --point-time\n",
          r->nskipped, r->nshrunk);
  fprintf(f, "left out: %zu over --max-buffer, %zu with fewer than 2 "
             "repetitions\n",
          r->nlimited, r->nfailed);
  spec_list(f, "extra sizes added where the time jumps", r->extra,
            r->nextra);
  spec_list(f, "skipped by the budget", r->skipped, r->nskipped);
  spec_list(f, "fewer than 2 repetitions", r->failed, r->nfailed);
  size_t nmiss = 0;
  for (size_t i = 0; i < r->nres; i++)
    nmiss += r->res[i].pt.rse > r->o.rse;
  if (nmiss) {
    fprintf(f, "\nabove the rse target %g (%zu):\n", r->o.rse, nmiss);
    for (size_t i = 0; i < r->nres; i++)
      if (r->res[i].pt.rse > r->o.rse)
        fprintf(f, "  %s p=%d d=%.0f rse=%.3g reps=%ld (%s)\n",
                revprof_fn_name(r->res[i].pt.fn), r->res[i].pt.p,
                r->res[i].pt.d, r->res[i].pt.rse, r->res[i].pt.reps,
                rp_stop_name(r->res[i].stop));
  }
  int bad = ferror(f);
  if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
    rp_errf(err, errlen, "%s: write failed: %s", path, strerror(errno));
    remove(tmp);
    return REVPROF_EIO;
  }
  return 0;
}

#ifndef RP_RAW_ONLY
/* Fits the model, writes model.lua and the datasheet; 0 or 1. */
static int fit_and_write(run *r, const revprof_raw *raw, const char *dir,
                         double seconds) {
  char err[ERRLEN] = "", path[PATHLEN], pdf[PATHLEN] = "", notes[1200];
  revprof_fit_options fo;
  revprof_fit_options_init(&fo);
  fo.verbose = r->o.verbose > 0;
  revprof_model *m = revprof_model_alloc();
  if (m == NULL || revprof_method_lookup(r->o.method, &fo.method) != 0) {
    fprintf(stderr, PROG ": out of memory or bad method\n");
    revprof_model_free(m);
    return 1;
  }
  snprintf(m->method, sizeof m->method, "%s", revprof_method_name(fo.method));
  if (r->o.name[0])
    snprintf(m->machine_name, sizeof m->machine_name, "%s", r->o.name);
  else if (gethostname(m->machine_name, sizeof m->machine_name - 1) != 0)
    snprintf(m->machine_name, sizeof m->machine_name, "unknown");
  mpi_library(m->machine_mpi, sizeof m->machine_mpi);
  snprintf(m->machine_filesystem, sizeof m->machine_filesystem, "%s",
           raw->machine_filesystem);
  today(m->machine_date, sizeof m->machine_date);
  m->machine_ranks = r->world;
  m->machine_eager_limit = r->eager_limit;
  rp_char_describe(&r->o, r->world, notes, sizeof notes);
  size_t nl = strlen(notes);
  if (r->drift_note[0]) /* before the counts: a cut keeps it */
    nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; %s",
                           r->drift_note);
  snprintf(notes + nl, sizeof notes - nl,
           "; %zu points in %.0f s, %zu skipped by budget, %zu shrunk",
           r->nres, seconds, r->nskipped, r->nshrunk);
  snprintf(m->machine_notes, sizeof m->machine_notes, "%.*s",
           (int)sizeof m->machine_notes - 1, notes); /* cut on purpose */
  if (strlen(notes) >= sizeof m->machine_notes) /* mark the cut */
    memcpy(m->machine_notes + sizeof m->machine_notes - 4, "...", 4);

  int rc = revprof_fit(raw, &fo, m, err, sizeof err);
  snprintf(path, sizeof path, "%s/model.lua", dir);
  if (rc != 0) {
    rp_perror(PROG ": fitting failed", rc, err);
    fprintf(stderr, "  the raw data are kept in %s/raw.csv; fit them later "
                    "with 'revprof fit %s/raw.csv -o MODEL.lua'\n",
            dir, dir);
    if (access(path, F_OK) == 0)
      fprintf(stderr, "  note: %s is left from an earlier run\n", path);
    revprof_model_free(m);
    return 1;
  }
  rc = revprof_model_write(m, path, err, sizeof err);
  if (rc != 0) {
    rp_perror(PROG ": cannot write the model", rc, err);
    revprof_model_free(m);
    return 1;
  }
  printf("  model      %s\n", path);
  if (!r->o.no_datasheet) {
    rp_datasheet_options dso;
    rp_datasheet_options_init(&dso);
    dso.pdf = !r->o.no_pdf;
    dso.verbose = r->o.verbose > 0;
    snprintf(path, sizeof path, "%s/datasheet", dir);
    err[0] = '\0';
    rc = rp_datasheet_write(m, raw, path, &dso, pdf, sizeof pdf, err,
                            sizeof err);
    if (rc != 0) {
      rp_perror(PROG ": datasheet failed", rc, err);
      revprof_model_free(m);
      return 1;
    }
    printf("  datasheet  %s/datasheet.tex%s%s\n", path, pdf[0] ? ", " : "",
           pdf);
  }
  revprof_model_free(m);
  return 0;
}
#endif

/* The machine, for 'revprof fit raw.csv' later (models/raw.c). */
static void describe_raw(const run *r, revprof_raw *raw) {
  if (r->o.name[0])
    snprintf(raw->machine_name, sizeof raw->machine_name, "%s", r->o.name);
  else if (gethostname(raw->machine_name, sizeof raw->machine_name - 1) != 0)
    raw->machine_name[0] = '\0';
  mpi_library(raw->machine_mpi, sizeof raw->machine_mpi);
  snprintf(raw->machine_filesystem, sizeof raw->machine_filesystem, "%s",
           r->io_fs);
  today(raw->machine_date, sizeof raw->machine_date);
  raw->machine_ranks = r->world;
  raw->machine_eager_limit = r->eager_limit;
  rp_char_describe(&r->o, r->world, raw->machine_notes,
                   sizeof raw->machine_notes);
  if (r->drift_note[0]) { /* after the run only: not in raw.partial.csv */
    size_t n = strlen(raw->machine_notes);
    snprintf(raw->machine_notes + n, sizeof raw->machine_notes - n, "; %s",
             r->drift_note);
  }
}

/* Rank 0, after a point: every --checkpoint seconds (and after the first
 * point) DIR/raw.partial.csv gets the points measured so far, their passes
 * merged, as raw.csv would have them (written beside it and renamed, so
 * that it is whole whenever the run dies: an MPI error, a batch system's
 * time limit, a signal). finish() removes it once raw.csv is written. */
static void checkpoint(run *r) {
  char path[PATHLEN], err[ERRLEN] = "";
  double now = MPI_Wtime();
  if (r->nres == 0 || (r->t_checkpoint > 0.0 &&
                       now - r->t_checkpoint < r->o.checkpoint))
    return;
  r->t_checkpoint = now;
  result *c = malloc(r->nres * sizeof *c);
  revprof_raw *raw = c ? revprof_raw_alloc() : NULL;
  int rc = raw ? 0 : REVPROF_ENOMEM;
  if (c) {
    memcpy(c, r->res, r->nres * sizeof *c);
    size_t n = merge_array(c, r->nres);
    for (size_t i = 0; i < n && rc == 0 && raw; i++)
      rc = revprof_raw_add(raw, &c[i].pt) != 0 ? REVPROF_ENOMEM : 0;
  }
  snprintf(path, sizeof path, "%s/raw.partial.csv", r->o.outdir);
  if (rc == 0) {
    describe_raw(r, raw);
    size_t used = strlen(raw->machine_notes);
    snprintf(raw->machine_notes + used, sizeof raw->machine_notes - used,
             "; " REVPROF_NOTES_PARTIAL "%zu of %zu points when written, "
             "the run had not finished",
             r->done, r->total);
    rc = revprof_raw_write(raw, path, err, sizeof err);
  } else
    snprintf(err, sizeof err, "out of memory");
  if (rc != 0 && !r->checkpoint_failed++)
    fprintf(stderr, PROG ": warning: the points so far could not be saved "
                    "(%s); they are kept in memory until raw.csv\n", err);
  revprof_raw_free(raw);
  free(c);
}

/* Rank 0 after measuring: raw.csv, run.txt, then the fit and datasheet.
 * Returns the exit status. */
static int finish(run *r) {
  char path[PATHLEN], err[ERRLEN] = "";
  const char *dir = r->o.outdir;
  double seconds = MPI_Wtime() - r->t_begin;
  int status = 0;
  char took[32];
  rp_fmt_duration(seconds, took, sizeof took);
  if (r->o.verbose >= 0)
    fprintf(stderr, "characterize: %zu points measured in %s (%zu skipped "
                    "by the budget, %zu left out)\n",
            r->nres, took, r->nskipped, r->nfailed + r->nlimited);
  if (r->nres)
    qsort(r->res, r->nres, sizeof *r->res, cmp_result);
  if (r->nextra)
    qsort(r->extra, r->nextra, sizeof *r->extra, cmp_spec);
  if (r->nskipped)
    qsort(r->skipped, r->nskipped, sizeof *r->skipped, cmp_spec);
  if (r->nfailed)
    qsort(r->failed, r->nfailed, sizeof *r->failed, cmp_spec);
  revprof_raw *raw = revprof_raw_alloc();
  if (raw == NULL)
    oom("raw data");
  for (size_t i = 0; i < r->nres; i++)
    if (revprof_raw_add(raw, &r->res[i].pt) != 0)
      oom("raw data");
  snprintf(path, sizeof path, "%s/run.txt", dir);
  int rc = write_summary(r, path, seconds, err, sizeof err);
  if (rc != 0) {
    rp_perror(PROG, rc, err);
    status = 1;
  }
  if (raw->n == 0) {
    fprintf(stderr, PROG ": no point was measured (see %s); raw.csv not "
                    "written\n", path);
    revprof_raw_free(raw);
    return 1;
  }
  describe_raw(r, raw);
  snprintf(path, sizeof path, "%s/raw.csv", dir);
  if ((rc = revprof_raw_write(raw, path, err, sizeof err)) != 0) {
    rp_perror(PROG, rc, err);
    revprof_raw_free(raw);
    return 1;
  }
  snprintf(path, sizeof path, "%s/raw.partial.csv", dir);
  remove(path); /* raw.csv holds it all now */
  snprintf(path, sizeof path, "%s/raw.csv", dir);
  printf("%s: results in %s\n  raw data   %s (%zu points)\n  summary    "
         "%s/run.txt\n",
         PROG, dir, path, raw->n, dir);
  fflush(stdout);
#ifndef RP_RAW_ONLY
  if (!r->o.raw_only && fit_and_write(r, raw, dir, seconds) != 0)
    status = 1;
#endif
  revprof_raw_free(raw);
  return status;
}

/* ---------------------------------------------------------------- main */

static void free_run(run *r) {
  if (r->comm_p)
    for (int p = 0; p <= r->world; p++)
      if (r->comm_p[p] != MPI_COMM_NULL)
        MPI_Comm_free(&r->comm_p[p]);
  if (r->p2p != MPI_COMM_NULL)
    MPI_Comm_free(&r->p2p);
  free(r->comm_p);
  free(r->samples);
  free(r->work);
  free(r->res);
  free(r->skipped);
  free(r->failed);
  free(r->extra);
}

/* One way of an 8-byte message between rank 0 and --peer, the best of 5
 * batches of 100 round trips, on rank 0 (0 elsewhere): the reference
 * rp_char_drift compares before the first point and after the last, so
 * that a model measured while the machine's speed changed says so (a
 * virtual machine here ran 2x slower for minutes at a time). Nothing else
 * is in flight then; the other ranks do nothing. REVPROF_TEST_CHAR_DRIFT=F
 * (tests) makes the one after the last point (end) F times the first. */
static double drift_probe(const run *r, int end) {
  enum { BATCHES = 5, TRIPS = 100, TAG = 7077 };
  int peer = r->rank == 0 ? r->o.peer : 0;
  double best = INFINITY;
  char b[8] = {0};
  if (r->rank != 0 && r->rank != r->o.peer)
    return 0.0;
  for (int k = 0; k < BATCHES; k++) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < TRIPS; i++)
      if (r->rank == 0) {
        MPI_Send(b, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
        MPI_Recv(b, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(b, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(b, 8, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
      }
    double t = (MPI_Wtime() - t0) / (2.0 * TRIPS);
    if (t < best)
      best = t;
  }
  if (r->rank != 0)
    return 0.0;
  const char *f = end ? getenv("REVPROF_TEST_CHAR_DRIFT") : NULL;
  if (f && atof(f) > 0.0 && r->drift[0] > 0.0)
    best = r->drift[0] * atof(f); /* exactly F times the first */
  return best;
}

/* Communicators of the groups: ranks 0..p-1 for every p measured, and
 * ranks 0 and --peer for point-to-point. Collective over the world. */
static void make_groups(run *r) {
  int coll = 0, p2p = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    revprof_fn_kind k = revprof_fn_kind_of((revprof_fn)i);
    coll |= r->o.fn_on[i] && k == REVPROF_KIND_COLL;
    p2p |= r->o.fn_on[i] && k == REVPROF_KIND_P2P;
  }
  r->comm_p = malloc(((size_t)r->world + 1) * sizeof *r->comm_p);
  if (r->comm_p == NULL)
    oom("communicators");
  for (int p = 0; p <= r->world; p++)
    r->comm_p[p] = MPI_COMM_NULL;
  if (coll) {
    int *procs = malloc((size_t)r->world * sizeof *procs);
    if (procs == NULL)
      oom("communicators");
    int np = rp_char_procs(&r->o, r->world, procs, r->world);
    for (int i = 0; i < np; i++)
      MPI_Comm_split(MPI_COMM_WORLD, r->rank < procs[i] ? 0 : MPI_UNDEFINED,
                     r->rank, &r->comm_p[procs[i]]);
    free(procs);
  }
  if (p2p) {
    int in = r->rank == 0 || r->rank == r->o.peer;
    MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED,
                   r->rank == 0 ? 0 : 1, &r->p2p);
  }
}

/* 1 when a file I/O row is to be timed. */
static int io_timed(const rp_char_options *o) {
  int io = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    io |= o->fn_on[i] && rp_char_fn_io((revprof_fn)i);
  return io;
}

/* Is (fn, p, d) a point of raw? */
static int raw_has(const revprof_raw *raw, const rp_char_spec *s) {
  for (size_t i = 0; i < raw->n; i++)
    if (raw->pt[i].fn == s->fn && raw->pt[i].p == s->p &&
        raw->pt[i].d == (double)s->d)
      return 1;
  return 0;
}

/* --resume: rank 0 reads DIR/raw.partial.csv, which must come from a run
 * with the same settings (its notes start as rp_char_describe's), keeps
 * its points as results, and every rank drops them from plan. Collective;
 * 0, or 2 when there is nothing to resume or it does not match (said). */
static int resume(run *r, rp_char_plan *plan) {
  char path[PATHLEN], err[ERRLEN] = "", desc[1024];
  unsigned char *keep = calloc(plan->n ? plan->n : 1, 1);
  int status = 0;
  if (keep == NULL)
    oom("--resume");
  if (r->rank == 0) {
    revprof_raw *raw = NULL;
    snprintf(path, sizeof path, "%s/raw.partial.csv", r->o.outdir);
    rp_char_describe(&r->o, r->world, desc, sizeof desc);
    int rc = revprof_raw_read(path, &raw, err, sizeof err);
    const char *notes = rc == 0 ? raw->machine_notes : "";
    const char *cut = strstr(notes, "; " REVPROF_NOTES_PARTIAL);
    if (rc != 0) {
      rp_perror(PROG, rc, err);
      fprintf(stderr, PROG ": --resume: nothing to resume in %s (a run "
                      "that finished removes raw.partial.csv)\n",
              r->o.outdir);
      status = 2;
    } else if (cut == NULL || strlen(desc) != (size_t)(cut - notes) ||
               strncmp(desc, notes, (size_t)(cut - notes)) != 0 ||
               raw->machine_ranks != r->world) {
      fprintf(stderr, PROG ": --resume: %s was measured with other "
                      "settings or ranks; resume with the same ones, or "
                      "start again without --resume\n  it:  %.*s (ranks "
                      "%d)\n  now: %s (ranks %d)\n",
              path, cut ? (int)(cut - notes) : (int)strlen(notes), notes,
              raw->machine_ranks, desc, r->world);
      status = 2;
    } else {
      for (size_t i = 0; i < raw->n; i++) {
        result *rs = rp_grow(r->res, &r->capres, r->nres + 1, sizeof *rs);
        if (rs == NULL)
          oom("results");
        r->res = rs;
        memset(&r->res[r->nres], 0, sizeof *r->res);
        r->res[r->nres].pt = raw->pt[i];
        r->res[r->nres++].stop = RP_STOP_NO;
      }
      r->nresumed = raw->n;
      for (size_t i = 0; i < plan->n; i++)
        keep[i] = !raw_has(raw, &plan->pt[i]);
    }
    revprof_raw_free(raw);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status == 0) {
    MPI_Bcast(keep, (int)(plan->n ? plan->n : 1), MPI_UNSIGNED_CHAR, 0,
              MPI_COMM_WORLD);
    size_t out = 0;
    for (size_t i = 0; i < plan->n; i++)
      if (keep[i])
        plan->pt[out++] = plan->pt[i];
    if (r->rank == 0 && r->o.verbose >= 0)
      fprintf(stderr, "characterize: resuming %s/raw.partial.csv: %zu "
                      "points kept, %zu of %zu to measure\n",
              r->o.outdir, r->nresumed, out, plan->n);
    plan->n = out;
  }
  free(keep);
  return status;
}

/* Everything after the checks: plan, groups, sweeps, outputs. */
static int characterize(run *r) {
  char err[ERRLEN] = "";
  rp_char_plan plan = {0};
  unsigned long long seed = r->o.seed;
  if (!r->o.seed_set && r->rank == 0)
    seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid()
                                             << 16);
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  r->seed = seed;
  if (io_timed(&r->o)) { /* file names: world rank 0's pid, everywhere */
    long tag = (long)getpid();
    MPI_Bcast(&tag, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    r->io.dir = r->o.io_dir;
    r->io.tag = tag;
  }
  int rc = rp_char_plan_build(&r->o, r->world, &plan, err, sizeof err);
  if (rc != 0) { /* same on every rank */
    if (r->rank == 0)
      rp_perror(PROG, rc, err);
    return 2;
  }
  r->nlimited = plan.nlimited;
  if (r->o.resume && (rc = resume(r, &plan)) != 0) {
    rp_char_plan_free(&plan);
    return rc;
  }
  make_groups(r);
  r->slack = 100e-6;
  if (r->rank == 0) {
    char desc[1024];
    rp_char_describe(&r->o, r->world, desc, sizeof desc);
    r->total = plan.n * (size_t)r->o.passes;
    if (r->o.verbose >= 0)
      fprintf(stderr, "characterize: %zu points on %d ranks (seed %llu); "
                      "%s\n", plan.n, r->world, seed, desc);
  }
  r->drift[0] = drift_probe(r, 0);
  if (r->o.fn_on[REVPROF_FN_SEND]) { /* the others sleep meanwhile */
    int done = 0;
    if (r->p2p != MPI_COMM_NULL)
      r->eager_limit = rp_eager_probe(r->p2p, r->o.smax);
    bcast_sleepy(&done, 1, MPI_INT);
    if (r->rank == 0 && r->o.verbose >= 0) {
      char b[32];
      revprof_eager_format(r->eager_limit, b, sizeof b);
      fprintf(stderr, "characterize: eager limit %s%s (the smallest "
                      "MPI_Send that waits for a receive posted late)\n",
              b, isinf(r->eager_limit) ? " up to the largest size" : " B");
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  r->t_begin = r->t_progress = MPI_Wtime();
  r->t_checkpoint = 0.0;
  if (r->rank == 0) {
    const char *ab = getenv("REVPROF_TEST_CHAR_ABORT");
    r->abort_after = ab ? atol(ab) : 0;
  }
  run_passes(r, &plan, 0);
  for (int round = 1; round <= r->o.refine && r->o.jump > 1.0; round++) {
    rp_char_plan extra = {0};
    size_t n = plan_extra(r, round, &extra);
    if (n > 0) {
      if (r->rank == 0) {
        r->total += n * (size_t)r->o.passes;
        if (r->o.verbose >= 0)
          fprintf(stderr, "characterize: %zu extra points where the time "
                          "jumps between sizes (round %d)\n", n, round);
      }
      run_passes(r, &extra, round);
    }
    rp_char_plan_free(&extra);
    if (n == 0)
      break;
  }
  rp_char_plan_free(&plan);
  MPI_Barrier(MPI_COMM_WORLD);
  r->drift[1] = drift_probe(r, 1);
  int status = 0;
  if (r->rank == 0) {
    if (rp_char_drift(r->drift[0], r->drift[1], RP_DRIFT_LIMIT,
                      r->drift_note, sizeof r->drift_note) &&
        r->o.verbose >= 0)
      fprintf(stderr, PROG ": warning: %s; the model mixes both (its notes "
                      "and every prediction from it say so): characterize "
                      "again on a quiet machine\n",
              r->drift_note + strlen(REVPROF_NOTES_DRIFT));
    progress(r, 1);
    status = finish(r);
  }
  bcast_sleepy(&status, 1, MPI_INT);
  return status;
}

int main(int argc, char **argv) {
  run r;
  char err[ERRLEN] = "";
  int status = 0, rc;
  MPI_Init(&argc, &argv);
  memset(&r, 0, sizeof r);
  r.p2p = MPI_COMM_NULL;
  r.argc = argc;
  r.argv = argv;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.world);
  /* Parsing and validation give the same verdict on every rank. */
  if ((rc = rp_char_parse(argc, argv, &r.o, err, sizeof err)) != 0) {
    if (r.rank == 0)
      rp_perror(PROG, rc, err);
    status = 2;
  } else if (r.o.help) {
    if (r.rank == 0)
      rp_char_usage(stdout);
  } else if (r.o.list) {
    if (r.rank == 0)
      rp_char_list(stdout);
  } else if ((rc = rp_char_validate(&r.o, r.world, err, sizeof err)) != 0) {
    if (r.rank == 0)
      rp_perror(PROG, rc, err);
    status = 2;
  } else {
    int verdict = 0, all = rp_char_all_on(&r.o);
    for (int i = 0; all && i < REVPROF_FN_COUNT; i++)
      if (r.o.fn_on[i] && rp_kernel_get((revprof_fn)i) == NULL) {
        r.o.fn_on[i] = 0; /* "all": what this build can time */
        if (r.rank == 0 && r.o.verbose >= 0)
          fprintf(stderr, PROG ": %s is not timed: this build has no "
                          "kernel for it (SimGrid's SMPI cannot run it)\n",
                  revprof_fn_name((revprof_fn)i));
      }
    for (int i = 0; i < REVPROF_FN_COUNT; i++)
      if (r.o.fn_on[i] && rp_kernel_get((revprof_fn)i) == NULL) {
        if (r.rank == 0)
          fprintf(stderr, PROG ": no timing kernel for %s\n",
                  revprof_fn_name((revprof_fn)i));
        verdict = 1;
      }
    if (r.rank == 0 && verdict == 0) {
#ifdef RP_RAW_ONLY
      if (!r.o.raw_only && r.o.verbose >= 0)
        fprintf(stderr, PROG ": this build writes raw.csv only; fit it "
                            "with 'revprof fit DIR/raw.csv -o MODEL.lua'\n");
#endif
      if (r.o.np && r.o.np != r.world)
        fprintf(stderr, PROG ": note: -n %d ignored, %d ranks were "
                            "launched\n", r.o.np, r.world);
      if (io_timed(&r.o) &&
          (rc = check_iodir(r.o.io_dir, r.io_fs, sizeof r.io_fs, err,
                            sizeof err)) != 0) {
        rp_perror(PROG, rc, err);
        verdict = 2; /* bad usage: before anything is written */
      } else if ((rc = check_outdir(r.o.outdir, err, sizeof err)) != 0) {
        rp_perror(PROG, rc, err);
        verdict = 1;
      }
    }
    MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
    status = verdict ? verdict : characterize(&r);
  }
  free_run(&r);
  MPI_Finalize();
  return status;
}
