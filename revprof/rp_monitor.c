/* Online monitoring: tool ranks beside the application's, the tree that
 * reduces profiles on their way to the front-end, the three offload
 * schemes, and the search for the Bottleneck Offload Interval
 * (rp_monitor.h; the rules are rp_monitor_rule.c's). */
#include "rp_monitor.h"
#include "rp_monitor_cal.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

/* tags on the monitoring communicator (a duplicate of MPI_COMM_WORLD) */
enum { TAG_DATA = 1, TAG_FIN = 2, TAG_SYNC = 3, TAG_DONE = 4, TAG_CTRL = 5,
       TAG_STEP = 6, TAG_NAME = 7 };
/* front-end to application ranks (probe) */
enum { CMD_REST = 1, CMD_RUN = 2, CMD_END = 3, CMD_ACK = 4 };
#define CTRL_N 7 /* cmd, events, interval, rounds, first round, start,
                    offload scheme (-1: the configured one) */

#define SYNC_ROUNDS 8
#define CALL_BASE 4503599627370496.0 /* 2^52: explicit offloads' rounds */
#define AUTO_WARMUP 8                /* calls timed before thinning */
#define REST_WARM 2                  /* resting rounds left out */

/* one offload's record on an application rank */
typedef struct off_rec {
  double round, oc, dropped;
} off_rec;

static struct {
  rp_mon_config cfg;
  int on;
  int apps, tools;  /* N, K */
  int wrank;        /* MPI_COMM_WORLD rank */
  MPI_Comm comm;    /* duplicate of MPI_COMM_WORLD */
  int fe;           /* world rank of the front-end (tool 0) */
  char dir[4096];   /* REVPROF_OUTPUT_DIR/monitor */
  /* application rank */
  int leaf;         /* world rank of its leaf */
  double offset;    /* front-end clock = host seconds + offset */
  double rtt;       /* shortest round trip of the clock sync */
  int one_host;     /* every process on one host: one clock, no offset */
  double next_due; /* the next slot's start, rp_local_seconds's clock */
  double last_slot;
  int explicit_seen;
  long calls;       /* revprof_monitor_offload calls */
  double *pkt;      /* the packet being built */
  size_t pkt_cap;
  MPI_Request *q;   /* queue of non-blocking offloads */
  double **qbuf;
  int nq, qcap;
  off_rec *rec;
  long nrec, rec_cap;
  long sent, drops;
  void (*regions)(double *out); /* the mode's region data (or NULL) */
  double oc_sum, noff;          /* offload costs so far, and offloads */
  double last_oc;               /* the last offload's cost (sent with the
                                   next one: the front-end's live OC) */
  int app;                      /* an application rank (stays after the
                                   end, for the cost report) */
  int busy;         /* inside an offload (no re-entry) */
  int scheme;       /* the offload scheme now (the probe may change it) */
  /* REVPROF_MONITOR_INTERVAL=auto */
  double auto_boi, auto_d, auto_t[AUTO_WARMUP];
  int auto_state;   /* 0 not set up, 1 warming up, 2 thinning, 3 all */
  char line[4800];  /* the reports' line */
} M;

const char *rp_monitor_line(void) { return M.line; }

static double now_fe(void) { return rp_host_seconds() + M.offset; }

static const char *env_get(const char *name, void *ctx) {
  (void)ctx;
  return getenv(name);
}

static void sleep_us(double us) {
  if (us <= 0.0)
    return;
  struct timespec ts = {(time_t)(us / 1e6),
                        (long)(fmod(us, 1e6) * 1e3)};
  nanosleep(&ts, NULL);
}

/* Rank 0 of MPI_COMM_WORLD says why, every rank ends the job. */
static void fatal(const char *what) {
  if (M.wrank == 0) {
    fprintf(stderr, "revprof: monitoring: %s; the job stops\n", what);
    sleep_us(2e5); /* the launcher forwards it before the abort (hydra
                      lost it now and then) */
  } else
    sleep(1); /* rank 0's message first */
  PMPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (q == NULL)
    fatal("out of memory");
  return q;
}

/* Waits for a message (src, tag) on the monitoring communicator, sleeping
 * REVPROF_MONITOR_POLL_US between polls once a few found nothing: tool
 * ranks share cores with the application's when oversubscribed. */
static void wait_msg(int src, int tag, MPI_Status *st) {
  int flag = 0;
  for (unsigned spins = 0;; spins++) {
    PMPI_Iprobe(src, tag, M.comm, &flag, st);
    if (flag)
      return;
    if (spins > 32)
      sleep_us(M.cfg.poll_us);
  }
}

/* the profile's events on an application rank: the clock, host seconds,
 * calls and time of every wrapper, then of every region slot */
#define REGION_EV0 (2 + 2 * (int)RP_W_COUNT)
static int app_events(void) { return REGION_EV0 + 2 * RP_MON_REGIONS; }

/* the front-end's region names, by slot, and the names left out */
static struct {
  char *name[RP_MON_REGIONS];
  int n;
  char **out;
  int nout;
} R;

static void event_name(int e, int events, char *buf, size_t len) {
  if (events != app_events())
    snprintf(buf, len, "e%d", e);
  else if (e == 0)
    snprintf(buf, len, "clock");
  else if (e == 1)
    snprintf(buf, len, "host");
  else if (e < REGION_EV0)
    snprintf(buf, len, "%s.%s", rp_wrap_name[(e - 2) / 2],
             (e - 2) % 2 ? "time" : "calls");
  else if (R.name[(e - REGION_EV0) / 2])
    snprintf(buf, len, "region.%s.%s", R.name[(e - REGION_EV0) / 2],
             (e - REGION_EV0) % 2 ? "time" : "calls");
  else /* its name has not arrived yet */
    snprintf(buf, len, "region#%d.%s", (e - REGION_EV0) / 2,
             (e - REGION_EV0) % 2 ? "time" : "calls");
}

/* ================================================= application ranks */

/* the queue's sends that completed freed, the rest kept in order (all:
 * waits for every one) */
static void queue_progress(int all) {
  int k = 0;
  for (int i = 0; i < M.nq; i++) {
    int done = 1;
    if (all)
      PMPI_Wait(&M.q[i], MPI_STATUS_IGNORE);
    else
      PMPI_Test(&M.q[i], &done, MPI_STATUS_IGNORE);
    if (done)
      free(M.qbuf[i]);
    else {
      M.q[k] = M.q[i];
      M.qbuf[k++] = M.qbuf[i];
    }
  }
  M.nq = k;
}

static void note(double round, double oc, int dropped) {
  if (M.nrec == M.rec_cap) {
    M.rec_cap = M.rec_cap ? 2 * M.rec_cap : 256;
    M.rec = xrealloc(M.rec, (size_t)M.rec_cap * sizeof *M.rec);
  }
  M.rec[M.nrec++] = (off_rec){round, oc, dropped};
}

void rp_monitor_regions(void (*fill)(double *out)) { M.regions = fill; }

/* Regions of a mode without a profile of its own (predict mode's Lua
 * regions): their calls and seconds by name, kept here for the offloads
 * (the last one found is tried first); up to RP_MON_LOCAL names (the rank
 * says once that others are left out). */
#define RP_MON_LOCAL 256
static struct {
  char *name[RP_MON_LOCAL];
  double calls[RP_MON_LOCAL], time[RP_MON_LOCAL];
  int slot[RP_MON_LOCAL]; /* slot + 1; 0 not asked, -1 none left */
  int n, full, last;
} L;

static void local_fill(double *out) {
  int took = rp_mt_hold();
  for (int i = 0; i < L.n; i++) {
    if (L.slot[i] == 0) {
      int s = rp_monitor_region_slot(L.name[i]);
      L.slot[i] = s >= 0 ? s + 1 : -1;
    }
    if (L.slot[i] > 0) {
      out[2 * (L.slot[i] - 1)] = L.calls[i];
      out[2 * (L.slot[i] - 1) + 1] = L.time[i];
    }
  }
  rp_mt_release(took);
}

void rp_monitor_region_add(const char *name, double seconds) {
  if (!M.on || !M.app || name == NULL)
    return;
  int i = L.last;
  if (i >= L.n || strcmp(L.name[i], name) != 0) { /* not the last one */
    for (i = 0; i < L.n && strcmp(L.name[i], name) != 0; i++)
      ;
    if (i == L.n) {
      if (L.n == RP_MON_LOCAL) {
        if (!L.full)
          fprintf(stderr, "revprof[rank %d]: monitoring: more than %d region "
                  "names; \"%s\" and the ones after it are not in the "
                  "profile\n", rp_g.rank, RP_MON_LOCAL, name);
        L.full = 1;
        return;
      }
      L.name[i] = xrealloc(NULL, strlen(name) + 1);
      strcpy(L.name[i], name);
      L.n++;
    }
    L.last = i;
  }
  L.calls[i] += 1.0;
  L.time[i] += seconds;
  if (M.regions == NULL)
    M.regions = local_fill;
}

int rp_monitor_region_slot(const char *name) {
  char buf[RP_MON_NAME + 1];
  double slot = -1.0;
  if (!M.on || !M.app) /* the probe's ranks run no program: no regions */
    return -1;
  snprintf(buf, sizeof buf, "%s", name);
  PMPI_Send(buf, (int)strlen(buf) + 1, MPI_CHAR, M.fe, TAG_NAME, M.comm);
  PMPI_Recv(&slot, 1, MPI_DOUBLE, M.fe, TAG_NAME, M.comm, MPI_STATUS_IGNORE);
  return (int)slot;
}

/* Sends round's packet of events values (vals NULL: this rank's
 * profile) to the leaf by the configured scheme; notes its cost. */
static void offload(double round, int events, const double *vals) {
  if (M.busy)
    return;
  M.busy = 1;
  double h0 = rp_host_seconds(), t0 = h0 + M.offset;
  size_t n = rp_mon_packet_doubles(1, events, M.cfg.filter, M.apps);
  if (n > M.pkt_cap) {
    M.pkt = xrealloc(M.pkt, n * sizeof *M.pkt);
    M.pkt_cap = n;
  }
  double *p = M.pkt;
  memset(p, 0, n * sizeof *p);
  p[RP_MON_H_ROUND] = round;
  p[RP_MON_H_FLAGS] = RP_MON_F_RAW;
  p[RP_MON_H_EVENTS] = events;
  p[RP_MON_H_RANKS] = 1.0;
  p[RP_MON_H_TMIN] = p[RP_MON_H_TMAX] = t0;
  p[RP_MON_H_PREVOC] = M.last_oc;
  double *v = p + RP_MON_HDR;
  if (vals)
    memcpy(v, vals, (size_t)events * sizeof *v);
  else {
    /* compensate and sample modes keep no simulated clock: their clocks
       carry delays and send times (rp_compensate.c) */
    v[0] = rp_simulating() ? rp_g.clk.now[RP_AVG] : 0.0;
    v[1] = h0 - rp_g.host_start;
    for (int w = 0; w < (int)RP_W_COUNT; w++) {
      v[2 + 2 * w] = rp_g.fstat[w].calls;
      v[3 + 2 * w] = rp_g.fstat[w].time;
    }
    if (M.regions)
      M.regions(v + REGION_EV0);
  }
  rp_mon_bit_set(rp_mon_bitmap(p, 1, events, M.cfg.filter), rp_g.rank);
  int dropped = 0;
  if (M.scheme == RP_MON_BLOCKING)
    PMPI_Ssend(p, (int)n, MPI_DOUBLE, M.leaf, TAG_DATA, M.comm);
  else {
    queue_progress(0);
    if (M.scheme == RP_MON_LOSSY && M.nq >= M.cfg.lossy_cap)
      dropped = 1;
    else {
      if (M.nq == M.qcap) {
        M.qcap = M.qcap ? 2 * M.qcap : 16;
        M.q = xrealloc(M.q, (size_t)M.qcap * sizeof *M.q);
        M.qbuf = xrealloc(M.qbuf, (size_t)M.qcap * sizeof *M.qbuf);
      }
      double *copy = xrealloc(NULL, n * sizeof *copy);
      memcpy(copy, p, n * sizeof *copy);
      M.qbuf[M.nq] = copy;
      /* synchronous: a queued profile leaves the queue when its leaf has
         taken it, not when the MPI has buffered it (an eager limit would
         make the queue's bound mean nothing) */
      PMPI_Issend(copy, (int)n, MPI_DOUBLE, M.leaf, TAG_DATA, M.comm,
                 &M.q[M.nq]);
      M.nq++;
    }
  }
  if (dropped)
    M.drops++;
  else
    M.sent++;
  double oc = rp_host_seconds() - h0;
  note(round, oc, dropped);
  M.last_oc = oc;
  /* an event of the instrumentation cost, whose cost is what the offloads
     took so far (timed for their OC anyway) */
  M.oc_sum += oc;
  M.noff += 1.0;
  rp_g.ic_n[RP_IC_OFFLOAD] += 1.0;
  rp_g.ic_cost[RP_IC_OFFLOAD] = M.oc_sum / M.noff;
  M.busy = 0;
}

/* When the slot after `slot` starts, on rp_local_seconds's clock, from
 * l and h, that clock and rp_host_seconds read together. */
static double due_local(double slot, double l, double h) {
  return l + ((slot + 1.0) * M.cfg.interval - M.offset - h);
}

/* every MPI call's end and region boundaries */
static void poll_app(void) {
  if (M.busy)
    return;
  if (M.nq)
    queue_progress(0);
  if (M.cfg.when != RP_MON_TIMER || M.explicit_seen)
    return;
  double l = rp_local_seconds(); /* the due check: this process's clock */
  if (l < M.next_due)
    return;
  double h = rp_host_seconds(); /* the slot: the front-end's */
  double slot = floor((h + M.offset) / M.cfg.interval);
  if (slot > M.last_slot) {
    M.last_slot = slot;
    offload(slot, app_events(), NULL);
  }
  M.next_due = due_local(slot, l, h);
}

/* The clocks' offset to the front-end: the shortest of SYNC_ROUNDS round
 * trips (Cristian's method). */
static void clock_sync(void) {
  if (M.one_host) { /* one CLOCK_MONOTONIC (rp_host_seconds): no offset,
                       where a round trip on busy shared cores could
                       measure one of milliseconds */
    M.rtt = 0.0;
    M.offset = 0.0;
    return;
  }
  M.rtt = INFINITY;
  for (int i = 0; i < SYNC_ROUNDS; i++) {
    double t0 = rp_host_seconds(), tf = 0.0;
    PMPI_Send(&t0, 1, MPI_DOUBLE, M.fe, TAG_SYNC, M.comm);
    PMPI_Recv(&tf, 1, MPI_DOUBLE, M.fe, TAG_SYNC, M.comm, MPI_STATUS_IGNORE);
    double t1 = rp_host_seconds();
    if (t1 - t0 < M.rtt) {
      M.rtt = t1 - t0;
      M.offset = tf - 0.5 * (t0 + t1);
    }
  }
}

/* waits until front-end time t; while sends are queued it polls them
 * (yielding the core) instead of sleeping: a sleeping sender holds its
 * rendezvous back, and the OWD would measure its sleep */
static void wait_until(double t) {
  for (;;) {
    double left = t - now_fe();
    if (left <= 0.0)
      return;
    if (M.nq) {
      queue_progress(0);
      sched_yield();
    } else if (left > 300e-6)
      sleep_us(fmin(left - 200e-6, 1e-3) * 1e6);
  }
}

/* The probe's application side: the front-end's commands until END. */
static void probe_app(void) {
  double *vals = NULL;
  for (;;) {
    double c[CTRL_N];
    PMPI_Recv(c, CTRL_N, MPI_DOUBLE, M.fe, TAG_CTRL, M.comm,
              MPI_STATUS_IGNORE);
    if ((int)c[0] == CMD_END)
      break;
    int events = (int)c[1], rounds = (int)c[3];
    M.scheme = c[6] >= 0.0 ? (int)c[6] : M.cfg.offload;
    vals = xrealloc(vals, (size_t)events * sizeof *vals);
    /* like an application's profile: sparse (bspbench's has 16 non-zero
       events of 778), here the first RP_MON_PROBE_NONZERO */
    for (int e = 0; e < events; e++)
      vals[e] = e < RP_MON_PROBE_NONZERO ? 1e-6 * (1.0 + rp_g.rank + e) : 0.0;
    long first = M.nrec;
    for (int i = 0; i < rounds; i++) {
      if ((int)c[0] == CMD_RUN)
        wait_until(c[5] + i * c[2]);
      else if (i > 0) /* rest: the tool ranks idle as between rounds */
        wait_until(now_fe() + c[2]);
      offload(c[4] + i, events, vals);
      if ((int)c[0] == CMD_REST) { /* stop and go */
        double ack[CTRL_N];
        PMPI_Recv(ack, CTRL_N, MPI_DOUBLE, M.fe, TAG_CTRL, M.comm,
                  MPI_STATUS_IGNORE);
      }
    }
    queue_progress(1);
    double *oc = xrealloc(NULL, (size_t)rounds * sizeof *oc);
    for (int i = 0; i < rounds; i++)
      oc[i] = M.rec[first + i].oc;
    PMPI_Send(oc, rounds, MPI_DOUBLE, M.fe, TAG_STEP, M.comm);
    free(oc);
  }
  free(vals);
}

void rp_monitor_finish(void) {
  if (!M.on || M.busy)
    return;
  rp_g.mon_poll = NULL;
  queue_progress(1); /* the final profile is never dropped */
  /* the final profiles' round: one for all ranks, the latest of theirs
     (collective, as MPI_Finalize is). With each rank's own, taken from
     its clock as it got here, a rank that came to MPI_Finalize a slot
     later than the others (rank 0 writing the output) would be alone in
     its round, and both rounds would be discarded */
  double r = -INFINITY; /* -INFINITY: no final offload from this rank */
  if (M.explicit_seen)
    r = CALL_BASE + (double)(M.calls + 1);
  else if (M.cfg.when == RP_MON_TIMER)
    r = fmax(M.last_slot + 1.0, floor(now_fe() / M.cfg.interval));
  int sends = r > -INFINITY;
  PMPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_DOUBLE, MPI_MAX, rp_g.world);
  if (sends)
    offload(r, app_events(), NULL);
  queue_progress(1);
  size_t n = 3 + 3 * (size_t)M.nrec;
  double *d = xrealloc(NULL, n * sizeof *d);
  d[0] = (double)M.sent;
  d[1] = (double)M.drops;
  d[2] = (double)M.nrec;
  memcpy(d + 3, M.rec, (size_t)M.nrec * sizeof *M.rec);
  PMPI_Send(d, (int)n, MPI_DOUBLE, M.fe, TAG_DONE, M.comm);
  free(d);
  double none = 0.0;
  PMPI_Send(&none, 1, MPI_DOUBLE, M.leaf, TAG_FIN, M.comm);
  if (M.drops > 0)
    rp_report_flag("monitor-loss", "%ld of %ld profile offloads dropped "
                   "(REVPROF_MONITOR_OFFLOAD=lossy:%d): see monitor/loss.csv",
                   M.drops, M.drops + M.sent, M.cfg.lossy_cap);
  PMPI_Comm_free(&M.comm);
  free(M.pkt);
  free(M.q);
  free(M.qbuf);
  free(M.rec);
  M.on = 0;
}

/* --------------------------------------------------- the public API */

/* Looks the probe's result up: the row of probe.csv for this job's N, K
 * and F with the fewest events >= events (else the most). Its BOI is the
 * larger of the search's and the measured capacity (column 20, where the
 * probe wrote one): the search stops below the capacity where the
 * resting spread hides a queue's growth, and offloading that often
 * queues. */
static int probe_lookup(int events, double *boi, double *owd, double *oc) {
  const char *path = getenv("REVPROF_MONITOR_PROBE_FILE");
  char def[4200];
  if (!path || !*path) {
    snprintf(def, sizeof def, "%s/probe.csv", M.dir);
    path = def;
  }
  FILE *f = fopen(path, "r");
  if (!f)
    return REVPROF_EMISSING;
  char line[1024];
  int found = 0, best_e = -1;
  while (fgets(line, sizeof line, f)) {
    int n, k, fo, e;
    double b, rest, sd, w, c, cap = 0.0; /* no capacity in older files */
    /* columns 1-11, then 12-19 skipped and 20, capacity_s, where there */
    if (sscanf(line, "%d,%d,%d,%*[a-z],%*[a-z:0-9],%d,%lf,%lf,%lf,%lf,%lf,"
               "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%lf",
               &n, &k, &fo, &e, &rest, &sd, &b, &w, &c, &cap) < 9 ||
        n != M.apps || k != M.tools || fo != M.cfg.fanout)
      continue;
    int better = !found || (e >= events && (best_e < events || e < best_e)) ||
                 (e < events && best_e < events && e > best_e);
    if (better) {
      found = 1;
      best_e = e;
      *boi = cap > b ? cap : b;
      *owd = w;
      *oc = c;
    }
  }
  fclose(f);
  return found ? 0 : REVPROF_EMISSING;
}

int rp_monitor_app(void) { return M.app; }

void rp_monitor_leave(void) {
  if (!M.on || !M.app)
    return;
  double none[3] = {0.0, 0.0, 0.0}; /* sent, dropped, records */
  PMPI_Send(none, 3, MPI_DOUBLE, M.fe, TAG_DONE, M.comm);
  PMPI_Send(none, 1, MPI_DOUBLE, M.leaf, TAG_FIN, M.comm);
  PMPI_Comm_free(&M.comm);
  M.on = 0;
}

double rp_monitor_offload_rate(void) {
  return M.cfg.when == RP_MON_TIMER && M.cfg.interval > 0.0
             ? 1.0 / M.cfg.interval
             : 0.0;
}

double rp_monitor_offload_guess(const revprof_model *m) {
  double boi, owd, oc;
  if (probe_lookup(app_events(), &boi, &owd, &oc) == 0 && oc > 0.0)
    return oc;
  if (m) {
    size_t n = rp_mon_packet_doubles(1, app_events(), M.cfg.filter, M.apps);
    return rp_mon_model_msg((double)(n * sizeof(double)), (void *)m);
  }
  return -1.0;
}

RP_EXPORT int revprof_monitor_info(int events, double *boi, double *owd,
                                   double *oc) {
  double b = 0.0, w = 0.0, c = 0.0;
  int rc = M.on ? probe_lookup(events, &b, &w, &c) : REVPROF_EINVAL;
  if (boi)
    *boi = b;
  if (owd)
    *owd = w;
  if (oc)
    *oc = c;
  return rc;
}

RP_EXPORT int revprof_monitor_offload(void) {
  if (!M.on || M.busy)
    return 0;
  int took = rp_mt_hold();
  M.explicit_seen = 1;
  long c = ++M.calls;
  int keep = 1;
  if (M.cfg.when == RP_MON_AUTO) {
    if (M.auto_state == 0) {
      double w = 0.0, o = 0.0;
      if (probe_lookup(app_events(), &M.auto_boi, &w, &o) == 0 &&
          M.auto_boi > 0.0)
        M.auto_state = 1;
      else {
        M.auto_state = 3;
        rp_report_flag("monitor-auto", "REVPROF_MONITOR_INTERVAL=auto found "
                       "no probed BOI for %d ranks, %d tool ranks, fanout %d "
                       "(run 'revprof monitor-probe'): every call offloaded",
                       M.apps, M.tools, M.cfg.fanout);
      }
    }
    if (M.auto_state == 1) {
      M.auto_t[c - 1] = now_fe();
      if (c == AUTO_WARMUP) { /* the interval all ranks agree on */
        double d = (M.auto_t[AUTO_WARMUP - 1] - M.auto_t[0]) /
                   (AUTO_WARMUP - 1);
        PMPI_Allreduce(&d, &M.auto_d, 1, MPI_DOUBLE, MPI_MAX, rp_g.world);
        M.auto_state = 2;
      }
    } else if (M.auto_state == 2)
      keep = rp_mon_auto_keep(c - AUTO_WARMUP, M.auto_d, M.auto_boi);
  }
  if (keep) {
    if (rp_g.active && rp_g.cfg.compute == RP_COMPUTE_MEASURE)
      rp_measure_gap(); /* the program's computation up to here */
    offload(CALL_BASE + (double)c, app_events(), NULL);
    if (rp_g.active && rp_g.cfg.compute == RP_COMPUTE_MEASURE)
      rp_measure_mark(); /* the offload is none */
  }
  rp_mt_release(took);
  return 0;
}

/* ========================================================= tool ranks */

/* a round a tool rank holds */
typedef struct mround {
  double r;
  int events, nhave, ngone_d;
  unsigned char *from; /* per child: 1 data, 2 discarded */
  double *acc;
  uint64_t *bits;
  double tmin, tmax, ranks, discard, prevoc;
} mround;

/* a round that reached the front-end */
typedef struct frec {
  double r, arrival, tmin, tmax, ranks, discard, oc, prevoc;
  int discarded;
  uint64_t *bits;
} frec;

static struct {
  int t, root, parent;      /* tool index, parent's world rank (-1) */
  int nchild, child0, leaf; /* children: world ranks child0 .. + nchild */
  double *last;             /* per child: last round seen */
  unsigned char *done;
  int ndone;
  mround *rounds;
  int nr, rcap;
  double *buf, *out;
  size_t bcap, ocap;
  int words;
  /* front-end */
  frec *rec;
  int nrec, reccap;
  int ndone_apps;
  double *sent, *drops;     /* per application rank */
  double **oc;              /* per application rank: its off_recs */
  long *noc;
  int nsync;
  FILE *prof;
  FILE *live;               /* rounds.csv as the rounds arrive (no OC) */
  double live_prev;         /* arrival of the last round delivered */
  double t_start;           /* host seconds at the front-end's start */
  int steps_in;             /* probe: STEP messages of the step */
  double *step_oc;          /* probe: max OC per round of the step */
  int step_rounds;
  int events;               /* of the last round that arrived */
} T;

static size_t grow_buf(double **b, size_t *cap, size_t n) {
  if (n > *cap) {
    *b = xrealloc(*b, n * sizeof **b);
    *cap = n;
  }
  return n;
}

static double shown_id(double r);
static double round_row(FILE *f, int idx, const frec *r, double *prev,
                        int with_oc);

static void fe_record(mround *m, int discarded) {
  if (T.nrec == T.reccap) {
    T.reccap = T.reccap ? 2 * T.reccap : 256;
    T.rec = xrealloc(T.rec, (size_t)T.reccap * sizeof *T.rec);
  }
  frec *f = &T.rec[T.nrec++];
  f->r = m->r;
  f->arrival = rp_host_seconds();
  f->tmin = m->tmin;
  f->tmax = m->tmax;
  f->ranks = m->ranks;
  f->discard = m->discard;
  f->oc = 0.0;
  f->prevoc = m->prevoc;
  f->discarded = discarded;
  f->bits = m->bits; /* kept */
  m->bits = NULL;
  if (!discarded)
    T.events = m->events;
  if (T.live) { /* watchable while the job runs; OC comes at the end */
    round_row(T.live, T.nrec, f, &T.live_prev, 0);
    fflush(T.live);
  }
  if (discarded || !T.prof)
    return;
  char name[RP_MON_NAME + 32]; /* "region." NAME ".calls" */
  long idx = T.nrec;
  for (int e = 0; e < m->events; e++) {
    if (M.cfg.filter == RP_MON_STATS) {
      double mean, sd, mn, mx, n;
      rp_mon_stats_of(m->acc, e, &mean, &sd, &mn, &mx, &n);
      if (n <= 0.0 || (mn == 0.0 && mx == 0.0))
        continue;
      event_name(e, m->events, name, sizeof name);
      fprintf(T.prof, "%ld,%s,%.0f,%.9g,%.9g,%.9g,%.9g\n", idx, name, n, mean,
              sd, mn, mx);
    } else {
      const double *h = m->acc + (size_t)RP_MON_BINS * e;
      if (h[0] == m->ranks)
        continue; /* all zero */
      event_name(e, m->events, name, sizeof name);
      for (int b = 0; b < RP_MON_BINS; b++)
        if (h[b] > 0.0)
          fprintf(T.prof, "%ld,%s,%.9g,%.0f\n", idx, name, rp_mon_hist_lo(b),
                  h[b]);
    }
  }
}

static void round_free(mround *m) {
  free(m->from);
  free(m->acc);
  free(m->bits);
}

/* sends round m up (or records it at the front-end) */
static void emit(mround *m, int discarded) {
  if (T.root) {
    fe_record(m, discarded);
    return;
  }
  int events = discarded ? 0 : m->events;
  size_t n = grow_buf(&T.out, &T.ocap,
                      rp_mon_packet_doubles(0, events, M.cfg.filter, M.apps));
  double *p = T.out;
  memset(p, 0, RP_MON_HDR * sizeof *p);
  p[RP_MON_H_ROUND] = m->r;
  p[RP_MON_H_FLAGS] = discarded ? RP_MON_F_DISCARDED : 0.0;
  p[RP_MON_H_EVENTS] = events;
  p[RP_MON_H_RANKS] = m->ranks;
  p[RP_MON_H_TMIN] = m->tmin;
  p[RP_MON_H_TMAX] = m->tmax;
  p[RP_MON_H_DISCARD] = m->discard + (discarded ? m->ranks : 0.0);
  p[RP_MON_H_PREVOC] = m->prevoc;
  size_t pay = rp_mon_payload(0, events, M.cfg.filter);
  if (pay)
    memcpy(p + RP_MON_HDR, m->acc, pay * sizeof *p);
  memcpy(rp_mon_bitmap(p, 0, events, M.cfg.filter), m->bits,
         (size_t)T.words * sizeof(uint64_t));
  PMPI_Send(p, (int)n, MPI_DOUBLE, T.parent, TAG_DATA, M.comm);
}

/* rounds decided in order: a child's rounds climb, so a later round is
 * never ready before an earlier one */
static void try_emit(void) {
  int k = 0;
  while (k < T.nr) {
    mround *m = &T.rounds[k];
    int gone = m->ngone_d;
    for (int i = 0; i < T.nchild; i++)
      if (m->from[i] == 0 && (T.done[i] || T.last[i] > m->r))
        gone++;
    int d = rp_mon_decide(T.nchild, m->nhave, gone, M.cfg.accept);
    if (d == RP_MON_WAIT)
      break;
    emit(m, d == RP_MON_DISCARD);
    round_free(m);
    k++;
  }
  if (k) {
    memmove(T.rounds, T.rounds + k, (size_t)(T.nr - k) * sizeof *T.rounds);
    T.nr -= k;
  }
}

static mround *round_of(double r, int events) {
  int i = 0;
  while (i < T.nr && T.rounds[i].r < r)
    i++;
  if (i < T.nr && T.rounds[i].r == r)
    return &T.rounds[i];
  if (T.nr == T.rcap) {
    T.rcap = T.rcap ? 2 * T.rcap : 16;
    T.rounds = xrealloc(T.rounds, (size_t)T.rcap * sizeof *T.rounds);
  }
  memmove(T.rounds + i + 1, T.rounds + i, (size_t)(T.nr - i) * sizeof *T.rounds);
  T.nr++;
  mround *m = &T.rounds[i];
  memset(m, 0, sizeof *m);
  m->r = r;
  m->events = events;
  m->from = xrealloc(NULL, (size_t)T.nchild);
  memset(m->from, 0, (size_t)T.nchild);
  size_t pay = rp_mon_payload(0, events, M.cfg.filter);
  m->acc = xrealloc(NULL, pay * sizeof *m->acc);
  rp_mon_acc_init(m->acc, events, M.cfg.filter);
  m->bits = xrealloc(NULL, (size_t)T.words * sizeof *m->bits);
  memset(m->bits, 0, (size_t)T.words * sizeof *m->bits);
  m->tmin = INFINITY;
  m->tmax = -INFINITY;
  return m;
}

static void on_data(int child, double *p, int n) {
  if (n < RP_MON_HDR)
    return;
  double r = p[RP_MON_H_ROUND];
  int raw = p[RP_MON_H_FLAGS] == RP_MON_F_RAW;
  int disc = p[RP_MON_H_FLAGS] == RP_MON_F_DISCARDED;
  int events = (int)p[RP_MON_H_EVENTS];
  if ((size_t)n != rp_mon_packet_doubles(raw, events, M.cfg.filter, M.apps))
    return; /* not ours */
  mround *m = round_of(r, events);
  if (disc) {
    m->from[child] = 2;
    m->ngone_d++;
    m->discard += p[RP_MON_H_DISCARD];
  } else if (events == m->events && m->from[child] == 0) {
    m->from[child] = 1;
    m->nhave++;
    if (raw)
      rp_mon_acc_raw(m->acc, p + RP_MON_HDR, events, M.cfg.filter);
    else
      rp_mon_acc_merge(m->acc, p + RP_MON_HDR, events, M.cfg.filter);
    rp_mon_bit_or(m->bits, rp_mon_bitmap(p, raw, events, M.cfg.filter),
                  T.words);
    m->ranks += p[RP_MON_H_RANKS];
    m->discard += p[RP_MON_H_DISCARD];
    m->tmin = fmin(m->tmin, p[RP_MON_H_TMIN]);
    m->tmax = fmax(m->tmax, p[RP_MON_H_TMAX]);
    m->prevoc = fmax(m->prevoc, p[RP_MON_H_PREVOC]);
  }
  if (r > T.last[child])
    T.last[child] = r;
  try_emit();
}

/* An application rank asks for the slot of a region name (the front-end
 * only): the name's slot, a new one while there are free ones, else -1
 * and the name noted as left out. */
static void on_name(const MPI_Status *st) {
  char name[RP_MON_NAME + 2];
  int n = 0;
  PMPI_Get_count(st, MPI_CHAR, &n);
  if (n < 0 || n > RP_MON_NAME + 1) /* the sender sends at most that */
    n = RP_MON_NAME + 1;
  PMPI_Recv(name, n, MPI_CHAR, st->MPI_SOURCE, TAG_NAME, M.comm,
            MPI_STATUS_IGNORE);
  name[n] = '\0';
  for (char *c = name; *c; c++) /* profile.csv's event column */
    if (*c == ',' || *c == '"' || *c == '\n' || *c == '\r')
      *c = '_';
  double slot = -1.0;
  for (int i = 0; i < R.n && slot < 0.0; i++)
    if (strcmp(R.name[i], name) == 0)
      slot = i;
  if (slot < 0.0 && R.n < RP_MON_REGIONS) {
    R.name[R.n] = strdup(name);
    if (R.name[R.n])
      slot = R.n++;
  }
  if (slot < 0.0) {
    int known = 0;
    for (int i = 0; i < R.nout && !known; i++)
      known = strcmp(R.out[i], name) == 0;
    if (!known) {
      R.out = xrealloc(R.out, (size_t)(R.nout + 1) * sizeof *R.out);
      if ((R.out[R.nout] = strdup(name)) != NULL)
        R.nout++;
    }
  }
  PMPI_Send(&slot, 1, MPI_DOUBLE, st->MPI_SOURCE, TAG_NAME, M.comm);
}

/* One message handled; returns its tag. */
static int pump(void) {
  MPI_Status st;
  int n = 0;
  wait_msg(MPI_ANY_SOURCE, MPI_ANY_TAG, &st);
  if (st.MPI_TAG == TAG_NAME) {
    on_name(&st);
    return TAG_NAME;
  }
  PMPI_Get_count(&st, MPI_DOUBLE, &n);
  grow_buf(&T.buf, &T.bcap, (size_t)(n > 0 ? n : 1));
  PMPI_Recv(T.buf, n, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, M.comm,
            MPI_STATUS_IGNORE);
  int src = st.MPI_SOURCE, child = src - T.child0;
  int is_child = child >= 0 && child < T.nchild;
  switch (st.MPI_TAG) {
  case TAG_DATA:
    if (is_child)
      on_data(child, T.buf, n);
    break;
  case TAG_FIN:
    if (is_child && !T.done[child]) {
      T.done[child] = 1;
      T.ndone++;
      try_emit();
    }
    break;
  case TAG_SYNC: {
    double t = rp_host_seconds();
    PMPI_Send(&t, 1, MPI_DOUBLE, src, TAG_SYNC, M.comm);
    break;
  }
  case TAG_DONE:
    if (T.root && src < M.apps && n >= 3) {
      T.sent[src] = T.buf[0];
      T.drops[src] = T.buf[1];
      T.noc[src] = (long)T.buf[2];
      T.oc[src] = xrealloc(NULL, (size_t)(n - 3) * sizeof(double));
      memcpy(T.oc[src], T.buf + 3, (size_t)(n - 3) * sizeof(double));
      T.ndone_apps++;
    }
    break;
  case TAG_STEP:
    if (T.root && T.step_oc) {
      for (int i = 0; i < n && i < T.step_rounds; i++)
        T.step_oc[i] = fmax(T.step_oc[i], T.buf[i]);
      T.steps_in++;
    }
    break;
  default:
    break;
  }
  return st.MPI_TAG;
}

/* ------------------------------------------------- front-end's files */

static FILE *open_out(const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", M.dir, name);
  FILE *f = fopen(path, "w");
  if (!f)
    fprintf(stderr, "revprof: monitoring: cannot write %s: %s\n", path,
            strerror(errno));
  return f;
}

static int frec_by_round(double r) {
  int lo = 0, hi = T.nrec - 1; /* recorded in round order */
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (T.rec[mid].r == r)
      return mid;
    if (T.rec[mid].r < r)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* 1 when application rank a dropped its offload of round r */
static int dropped_at(int a, double r) {
  const off_rec *o = (const off_rec *)T.oc[a];
  long lo = 0, hi = o ? T.noc[a] - 1 : -1; /* offloaded in round order */
  while (lo <= hi) {
    long mid = (lo + hi) / 2;
    if (o[mid].round == r)
      return o[mid].dropped != 0.0;
    if (o[mid].round < r)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0;
}

/* a round's id as the files show it: the revprof_monitor_offload() call's
 * number, or the timer's slot (front-end clock / interval) */
static double shown_id(double r) { return r >= CALL_BASE ? r - CALL_BASE : r; }

/* One row of rounds.csv for the idx-th round recorded, r; *prev is the
 * arrival of the last round delivered before it (NAN: none), updated. The
 * OC column stays empty while the ranks' offload costs are not in
 * (with_oc 0); the last column, the largest cost of the offload before
 * this one among the round's ranks (which each sends with its next), is
 * there as the round arrives. Returns the data arrival interval (NAN:
 * none). */
static double round_row(FILE *f, int idx, const frec *r, double *prev,
                        int with_oc) {
  double owd = r->arrival - r->tmin, ai = NAN;
  int lost = M.apps - rp_mon_bit_count(r->bits, T.words);
  const char *status = r->discarded ? "discarded"
                       : lost       ? "partial"
                                    : "complete";
  if (!r->discarded) {
    if (*prev == *prev)
      ai = r->arrival - *prev;
    *prev = r->arrival;
  }
  if (f) {
    fprintf(f, "%d,%.17g,%.9f,%.9g,", idx, shown_id(r->r),
            r->arrival - T.t_start, r->discarded ? NAN : owd);
    if (with_oc)
      fprintf(f, "%.9g", r->oc);
    fprintf(f, ",%.0f,%d,%s,%.9g,%.9g\n", r->ranks, lost, status, ai,
            r->prevoc);
  }
  return ai;
}

static const char rounds_header[] = "round,id,arrival_s,owd_s,oc_s,ranks,"
                                    "lost_ranks,status,arrival_interval_s,"
                                    "prev_oc_s\n";

static void fe_write(void) {
  /* offload costs: each rank's records, the maximum per round */
  long lost_local = 0, sent = 0;
  for (int a = 0; a < M.apps; a++) {
    const off_rec *o = (const off_rec *)T.oc[a];
    for (long i = 0; o && i < T.noc[a]; i++) {
      int k = frec_by_round(o[i].round);
      if (k >= 0)
        T.rec[k].oc = fmax(T.rec[k].oc, o[i].oc);
    }
    lost_local += (long)T.drops[a];
    sent += (long)T.sent[a];
  }
  /* rounds.csv again, now with the OC, in place of the live one */
  if (T.live)
    fclose(T.live);
  T.live = NULL;
  FILE *f = open_out("rounds.csv.tmp");
  int complete = 0, partial = 0, discarded = 0;
  double *iv = xrealloc(NULL, (size_t)(T.nrec + 1) * sizeof *iv);
  int niv = 0;
  double oc_sum = 0.0, owd_sum = 0.0;
  if (f)
    fputs(rounds_header, f);
  double prev = NAN;
  for (int i = 0; i < T.nrec; i++) {
    frec *r = &T.rec[i];
    int lost = M.apps - rp_mon_bit_count(r->bits, T.words);
    if (r->discarded)
      discarded++;
    else if (lost)
      partial++;
    else
      complete++;
    double ai = round_row(f, i + 1, r, &prev, 1);
    if (ai == ai)
      iv[niv++] = ai;
    if (!r->discarded)
      owd_sum += r->arrival - r->tmin;
    oc_sum += r->oc;
  }
  if (f) {
    char from[4200], to[4200];
    snprintf(from, sizeof from, "%s/rounds.csv.tmp", M.dir);
    snprintf(to, sizeof to, "%s/rounds.csv", M.dir);
    if (fclose(f) != 0 || rename(from, to) != 0)
      fprintf(stderr, "revprof: monitoring: cannot write %s: %s\n", to,
              strerror(errno));
  }
  /* the loss map: a rank's data missing from a round, and why: dropped
     by its lossy queue, or thrown away in the tree (a node over the
     acceptance threshold); rounds every rank dropped have no number */
  f = open_out("loss.csv");
  if (f) {
    fprintf(f, "round,id,rank,cause\n");
    for (int i = 0; i < T.nrec; i++)
      for (int a = 0; a < M.apps; a++)
        if (T.rec[i].discarded || !rp_mon_bit_get(T.rec[i].bits, a))
          fprintf(f, "%d,%.17g,%d,%s\n", i + 1, shown_id(T.rec[i].r), a,
                  dropped_at(a, T.rec[i].r) ? "dropped" : "tree");
    for (int a = 0; a < M.apps; a++) {
      const off_rec *o = (const off_rec *)T.oc[a];
      for (long i = 0; o && i < T.noc[a]; i++)
        if (o[i].dropped != 0.0 && frec_by_round(o[i].round) < 0)
          fprintf(f, ",%.17g,%d,dropped\n", shown_id(o[i].round), a);
    }
    fclose(f);
  }
  double med = NAN, spread;
  if (niv)
    rp_mon_median_mad(iv, niv, &med, &spread);
  int delivered = complete + partial;
  f = open_out("summary.txt");
  if (f) {
    fprintf(f,
            "application ranks: %d\ntool ranks: %d\nfanout: %d\ntree depth: "
            "%d\noffload: %s",
            M.apps, M.tools, M.cfg.fanout,
            rp_mon_depth(M.tools, M.cfg.fanout),
            rp_mon_offload_name(M.cfg.offload));
    if (M.cfg.offload == RP_MON_LOSSY)
      fprintf(f, ":%d", M.cfg.lossy_cap);
    fprintf(f, "\naccept: %d\nfilter: %s\nevents per profile: %d\n"
            "interval: ", M.cfg.accept, rp_mon_filter_name(M.cfg.filter),
            T.events);
    if (M.cfg.when == RP_MON_TIMER)
      fprintf(f, "%g s\n", M.cfg.interval);
    else
      fprintf(f, "%s\n", rp_mon_when_name(M.cfg.when));
    fprintf(f, "clocks: %s\n",
            M.one_host ? "one host, its monotonic clock (no offsets)"
                       : "each application rank's offset to the front-end "
                         "(Cristian's method, the shortest of its round "
                         "trips)");
    fprintf(f,
            "rounds: %d (complete %d, partial %d, discarded %d: %.1f %% "
            "complete global profiles)\n"
            "offloads: %ld sent, %ld dropped by lossy queues\n"
            "mean offload cost (max over ranks): %.9g s\n"
            "mean one-way delay: %.9g s\n",
            T.nrec, complete, partial, discarded,
            T.nrec ? 100.0 * complete / T.nrec : 0.0, sent, lost_local,
            T.nrec ? oc_sum / T.nrec : 0.0,
            delivered ? owd_sum / delivered : 0.0);
    if (niv)
      fprintf(f, "median data arrival interval: %.9g s\n", med);
    else
      fprintf(f, "median data arrival interval: none (fewer than two rounds "
                 "delivered)\n");
    fprintf(f, "regions in the profile: %d of %d slots", R.n,
            RP_MON_REGIONS);
    for (int i = 0; i < R.n; i++)
      fprintf(f, "%s%s", i ? ", " : " (", R.name[i]);
    fprintf(f, "%s\n", R.n ? ")" : "");
    if (R.nout) {
      fprintf(f, "regions left out of the profile (no slot left): %d (",
              R.nout);
      for (int i = 0; i < R.nout; i++)
        fprintf(f, "%s%s", i ? ", " : "", R.out[i]);
      fprintf(f, ")\n");
    }
    fclose(f);
  }
  free(iv);
  f = open_out("plot.gp");
  if (f) {
    fprintf(f,
            "# gnuplot script of revprof's monitoring (revprof run draws "
            "it)\nset datafile separator ','\nset terminal pngcairo size "
            "900,600\nset key autotitle columnhead\nset xlabel 'round'\n"
            "set output 'oc.png'\nset ylabel 'offload cost (ms, max over "
            "ranks)'\nplot 'rounds.csv' using 1:($5*1e3) with linespoints "
            "title 'OC'\nset output 'owd.png'\nset ylabel 'one-way delay "
            "(ms)'\nplot 'rounds.csv' using 1:($4*1e3) with linespoints "
            "title 'OWD'\n");
    fclose(f);
  }
}

/* ------------------------------------------------------------- probe */

/* the front-end's side of one phase: rounds r0 .. r0+n-1 */
static void probe_send_all(const double *c) {
  for (int a = 0; a < M.apps; a++)
    PMPI_Send((void *)c, CTRL_N, MPI_DOUBLE, a, TAG_CTRL, M.comm);
}

static void probe_step(int cmd, int events, double interval, int scheme,
                       int n, double *r0, double *owd, double *ocmean,
                       double *arrival) {
  double c[CTRL_N] = {cmd, events, interval, n, *r0,
                      rp_host_seconds() + 2e-3 + 1e-4 * M.apps, scheme};
  T.step_rounds = n;
  T.step_oc = xrealloc(T.step_oc, (size_t)n * sizeof *T.step_oc);
  for (int i = 0; i < n; i++)
    T.step_oc[i] = 0.0;
  T.steps_in = 0;
  probe_send_all(c);
  for (int i = 0; i < n; i++) {
    double r = *r0 + i;
    int k;
    while ((k = frec_by_round(r)) < 0)
      pump();
    owd[i] = T.rec[k].arrival - T.rec[k].tmin;
    if (arrival)
      arrival[i] = T.rec[k].arrival;
    if (cmd == CMD_REST) {
      double ack[CTRL_N] = {CMD_ACK, 0, 0, 0, 0, 0, 0};
      probe_send_all(ack);
    }
  }
  while (T.steps_in < M.apps)
    pump();
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += T.step_oc[i];
  *ocmean = s / n;
  *r0 += n;
}

/* The probe's front-end: per profile size, R times (REVPROF_MONITOR_PROBE's
 * fifth field, default 1) the resting phase, the BOI search and the
 * figures at the BOI; probe.csv gets the medians over the R searches and
 * the BOI's least and largest (on a loaded machine one search's BOI moves
 * by several times from run to run: R > 1 says by how much, and its median
 * moves less). */
enum { PROBE_REPEAT_MAX = 100 };
static void probe_fe(const char *spec) {
  int emin = 16, emax = 1024, l = RP_BOI_L, reps = 1;
  double k = RP_BOI_K;
  char rule[8] = "step";
  int got = sscanf(spec, "%d:%d:%d:%lf:%d:%7s", &emin, &emax, &l, &k, &reps,
                   rule);
  if (got < 2 || emin < 1 || emax < emin || l < 2 || !(k >= 0.0) ||
      reps < 1 || reps > PROBE_REPEAT_MAX || rp_boi_rule_of(rule) < 0) {
    fprintf(stderr, "revprof: monitoring: REVPROF_MONITOR_PROBE='%s': "
                    "expected EMIN:EMAX[:L[:K[:R[:step|round]]]], R from 1 "
                    "to %d\n", spec, PROBE_REPEAT_MAX);
    emin = emax = 0;
  }
  revprof_model *model = NULL;
  const char *mp = getenv("REVPROF_MODEL");
  char err[1024];
  if (mp && *mp && revprof_model_load(mp, &model, err, sizeof err) != 0) {
    fprintf(stderr, "revprof: monitoring: no model BOI: %s\n", err);
    model = NULL;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  FILE *f = open_out("probe.csv");
  FILE *s = open_out("probe-steps.csv");
  if (f)
    fprintf(f, "apps,tools,fanout,filter,offload,events,rest_owd_s,"
               "rest_sd_s,boi_s,owd_s,oc_s,lo_pct,steps,model_boi_s,"
               "model_oc_s,model_lo_pct,repeats,boi_min_s,boi_max_s,"
               "capacity_s,growth\n");
  if (s)
    fprintf(s, "events,step,interval_s,mean_owd_s,growth_s,queued,"
               "mean_oc_s,repeat,rounds\n");
  /* a step's rounds: up to RP_BOI_LONG times l (rp_boi_rounds) */
  double *owd =
      xrealloc(NULL, ((size_t)l * RP_BOI_LONG + REST_WARM) * sizeof *owd);
  double *arr = xrealloc(NULL, (size_t)l * sizeof *arr);
  double r0 = 0.0, low = 0.0;
  /* the pause between resting rounds: the tool ranks go to sleep (poll)
     as they do between the rounds of a search step */
  double rest_pause = fmax(1e-3, 20e-6 * M.cfg.poll_us);
  /* per search: restOWD, restSD, BOI, OWD and OC there, steps, capacity */
  double v[7][PROBE_REPEAT_MAX];
  for (int e = emin; emin > 0 && e <= emax; e *= 2) {
    for (int rep = 0; rep < reps; rep++) {
      double rest, sd, oc;
      /* resting phase: stop and go with a pause, the first rounds (first
         touches) left out, median and robust spread */
      probe_step(CMD_REST, e, rest_pause, -1, l + REST_WARM, &r0, owd, &oc,
                 NULL);
      rp_mon_median_mad(owd + REST_WARM, l, &rest, &sd);
      rp_boi_search bs;
      rp_boi_init(&bs, rest, sd, low, k);
      bs.rule = rp_boi_rule_of(rule);
      int step = 0;
      for (;;) {
        double cur = bs.cur;
        int n = rp_boi_rounds(&bs, l);
        /* non-blocking: queuing shows in the OWD (a blocking offload would
           hold the application back instead, as TCP's buffers did not) */
        probe_step(CMD_RUN, e, cur, RP_MON_NONBLOCKING, n, &r0, owd, &oc, NULL);
        int done = rp_boi_step(&bs, owd, n);
        if (s)
          fprintf(s, "%d,%d,%.9g,%.9g,%.9g,%d,%.9g,%d,%d\n", e, ++step, cur,
                  bs.mean, bs.growth, bs.last_queued, oc, rep + 1, n);
        if (done)
          break;
      }
      /* OWD and OC at the BOI */
      double owd_boi, sd_boi, oc_boi;
      probe_step(CMD_RUN, e, bs.boi, -1, l, &r0, owd, &oc_boi, NULL);
      rp_mon_mean_sd(owd, l, &owd_boi, &sd_boi);
      v[0][rep] = rest;
      v[1][rep] = sd;
      v[2][rep] = bs.boi;
      v[3][rep] = owd_boi;
      v[4][rep] = oc_boi;
      v[5][rep] = step;
      /* the capacity: every round offloaded at once, queued; each arrives
         one round's processing after the one before */
      probe_step(CMD_RUN, e, 0.0, RP_MON_NONBLOCKING, l, &r0, owd, &oc, arr);
      v[6][rep] = rp_mon_capacity(arr, l);
    }
    double med[7], spread, bmin = v[2][0], bmax = v[2][0];
    for (int q = 0; q < 7; q++)
      rp_mon_median_mad(v[q], reps, &med[q], &spread);
    for (int rep = 1; rep < reps; rep++) {
      bmin = fmin(bmin, v[2][rep]);
      bmax = fmax(bmax, v[2][rep]);
    }
    double rest = med[0], sd = med[1], boi = med[2], owd_boi = med[3],
           oc_boi = med[4];
    int steps = (int)lround(med[5]);
    rp_mon_pred pr = {0};
    if (model)
      rp_mon_predict_model(model, M.apps, M.tools, M.cfg.fanout, e,
                           M.cfg.filter, (int)cores, &pr);
    char line[700];
    snprintf(line, sizeof line,
             "%d,%d,%d,%s,%s,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.4g,%d,%.9g,%.9g,"
             "%.4g,%d,%.9g,%.9g,%.9g,%s\n",
             M.apps, M.tools, M.cfg.fanout, rp_mon_filter_name(M.cfg.filter),
             rp_mon_offload_name(M.cfg.offload), e, rest, sd, boi, owd_boi,
             oc_boi, rp_mon_lo(oc_boi, boi), steps, model ? pr.boi : NAN,
             model ? pr.oc : NAN, model ? rp_mon_lo(pr.oc, pr.boi) : NAN,
             reps, bmin, bmax, med[6], rule);
    if (f) {
      fputs(line, f);
      fflush(f);
    }
    printf("monitor-probe: events %d: restOWD %.3g ms (sd %.3g), BOI %.3g ms "
           "after %d steps, OWD %.3g ms, OC %.3g ms, LO %.2f %%",
           e, rest * 1e3, sd * 1e3, boi * 1e3, steps, owd_boi * 1e3,
           oc_boi * 1e3, rp_mon_lo(oc_boi, boi));
    if (reps > 1)
      printf(" (medians of %d searches; BOI %.3g..%.3g ms)", reps,
             bmin * 1e3, bmax * 1e3);
    printf("; capacity %.3g ms", med[6] * 1e3);
    if (model)
      printf("; model BOI %.3g ms, LO %.2f %%", pr.boi * 1e3,
             rp_mon_lo(pr.oc, pr.boi));
    printf("\n");
    fflush(stdout);
    low = 0.5 * boi; /* the next size's search starts below */
  }
  double end[CTRL_N] = {CMD_END, 0, 0, 0, 0, 0, 0};
  probe_send_all(end);
  free(owd);
  free(arr);
  if (f)
    fclose(f);
  if (s)
    fclose(s);
  revprof_model_free(model);
}

/* ---------------------------------------------------------- the node */

static void tool_main(int t) {
  int F = M.cfg.fanout, K = M.tools, N = M.apps;
  T.t = t;
  T.root = t == 0;
  T.parent = t == 0 ? -1 : N + rp_mon_parent(t, F);
  T.words = rp_mon_words(N);
  int first = 0, count = 0;
  if (rp_mon_app_range(t, N, K, F, &first, &count)) {
    T.leaf = 1;
    T.child0 = first;
    T.nchild = count;
  } else {
    T.child0 = N + t * F + 1;
    T.nchild = rp_mon_tool_children(t, K, F);
  }
  T.last = xrealloc(NULL, (size_t)T.nchild * sizeof *T.last);
  T.done = xrealloc(NULL, (size_t)T.nchild);
  for (int i = 0; i < T.nchild; i++)
    T.last[i] = -INFINITY;
  memset(T.done, 0, (size_t)T.nchild);
  const char *probe = getenv("REVPROF_MONITOR_PROBE");
  T.t_start = rp_host_seconds();
  if (T.root) {
    T.sent = xrealloc(NULL, (size_t)N * sizeof *T.sent);
    T.drops = xrealloc(NULL, (size_t)N * sizeof *T.drops);
    T.noc = xrealloc(NULL, (size_t)N * sizeof *T.noc);
    T.oc = xrealloc(NULL, (size_t)N * sizeof *T.oc);
    memset(T.sent, 0, (size_t)N * sizeof *T.sent);
    memset(T.drops, 0, (size_t)N * sizeof *T.drops);
    memset(T.noc, 0, (size_t)N * sizeof *T.noc);
    memset(T.oc, 0, (size_t)N * sizeof *T.oc);
    if (rp_mkdir_p(M.dir) != 0)
      fprintf(stderr, "revprof: monitoring: cannot create %s: %s\n", M.dir,
              strerror(errno));
    /* the probe's front-end writes its rounds as a real one does */
    T.prof = open_out(probe && *probe ? "probe-profile.csv" : "profile.csv");
    if (T.prof)
      fprintf(T.prof, M.cfg.filter == RP_MON_STATS
                          ? "round,event,ranks,mean,sd,min,max\n"
                          : "round,event,bin_lo,count\n");
    T.live_prev = NAN;
    if (!(probe && *probe) && (T.live = open_out("rounds.csv")) != NULL) {
      fputs(rounds_header, T.live);
      fflush(T.live);
    }
  }
  if (T.root && probe && *probe)
    probe_fe(probe);
  while (T.ndone < T.nchild || T.nr > 0 ||
         (T.root && T.ndone_apps < N))
    pump();
  if (!T.root) {
    double none = 0.0;
    PMPI_Send(&none, 1, MPI_DOUBLE, T.parent, TAG_FIN, M.comm);
  } else {
    if (T.prof)
      fclose(T.prof);
    if (!(probe && *probe))
      fe_write();
  }
}

/* ========================================================= start-up */

void rp_monitor_startup(void) {
  char err[512];
  PMPI_Comm_rank(MPI_COMM_WORLD, &M.wrank);
  if (rp_mon_config_read(&M.cfg, env_get, NULL, err, sizeof err) != 0)
    fatal(err);
  if (M.cfg.tools == 0)
    return;
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  M.tools = M.cfg.tools;
  M.apps = size - M.tools;
  if (M.apps < 1) {
    snprintf(err, sizeof err, "REVPROF_MONITOR=%d tool ranks leave no "
             "application rank in a job of %d (start N + K ranks: revprof "
             "run --monitor K -np N)", M.tools, size);
    fatal(err);
  }
  if (rp_mon_shape_check(M.apps, M.tools, M.cfg.fanout, err, sizeof err))
    fatal(err);
  const char *out = getenv("REVPROF_OUTPUT_DIR");
  snprintf(M.dir, sizeof M.dir, "%s/monitor", out && *out ? out : "revprof-out");
  M.fe = M.apps;
  M.on = 1;
  M.scheme = M.cfg.offload;
  PMPI_Comm_dup(MPI_COMM_WORLD, &M.comm);
  /* every process on one host: they share the front-end's clock */
  MPI_Comm host;
  int hsize = 0;
  if (PMPI_Comm_split_type(M.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                           &host) == MPI_SUCCESS) {
    PMPI_Comm_size(host, &hsize);
    PMPI_Comm_free(&host);
  }
  M.one_host = hsize == size;
  int tool = M.wrank >= M.apps;
  MPI_Comm mine;
  PMPI_Comm_split(MPI_COMM_WORLD, tool, M.wrank, &mine);
  if (tool) {
    PMPI_Comm_free(&mine);
#ifdef PR_SET_TIMERSLACK
    /* a tool rank's short sleeps between polls: no default 50 us of
       timer slack on top (Linux) */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
    tool_main(M.wrank - M.apps);
    PMPI_Comm_free(&M.comm);
    PMPI_Finalize();
    exit(0);
  }
  /* the name MPI_Comm_get_name gives MPI_COMM_WORLD */
  PMPI_Comm_set_name(mine, "MPI_COMM_WORLD");
  rp_g.world = mine;
  rp_g.remap = 1;
  M.app = 1;
  PMPI_Comm_rank(mine, &rp_g.rank);
  PMPI_Comm_size(mine, &rp_g.size);
  M.leaf = M.apps + rp_mon_leaf_of_app(rp_g.rank, M.apps, M.tools,
                                       M.cfg.fanout);
  clock_sync();
  const char *probe = getenv("REVPROF_MONITOR_PROBE");
  if (probe && *probe) {
#ifdef PR_SET_TIMERSLACK
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); /* no program runs here */
#endif
    probe_app();
    double none[3] = {0.0, 0.0, 0.0};
    PMPI_Send(none, 3, MPI_DOUBLE, M.fe, TAG_DONE, M.comm);
    PMPI_Send(none, 1, MPI_DOUBLE, M.leaf, TAG_FIN, M.comm);
    PMPI_Comm_free(&M.comm);
    PMPI_Comm_free(&mine);
    PMPI_Finalize();
    exit(0);
  }
  double l = rp_local_seconds(), h = rp_host_seconds();
  /* the slot of the start, the latest of the ranks': one that read its
     clock just before a slot's start would else offload alone in it */
  M.last_slot = floor((h + M.offset) / M.cfg.interval);
  PMPI_Allreduce(MPI_IN_PLACE, &M.last_slot, 1, MPI_DOUBLE, MPI_MAX, mine);
  M.next_due = due_local(M.last_slot, l, h);
  rp_g.mon_poll = poll_app;
  char when[64];
  if (M.cfg.when == RP_MON_TIMER)
    snprintf(when, sizeof when, "every %g s", M.cfg.interval);
  else
    snprintf(when, sizeof when, "%s",
             M.cfg.when == RP_MON_CALLS ? "at revprof_monitor_offload()"
                                        : "at revprof_monitor_offload(), "
                                          "thinned to the probed BOI");
  snprintf(M.line, sizeof M.line, "%d tool ranks beside these %d (fanout "
           "%d, %s offload, %s filter, acceptance threshold %d), profiles "
           "offloaded %s; rounds in %s", M.tools, M.apps, M.cfg.fanout,
           rp_mon_offload_name(M.cfg.offload),
           rp_mon_filter_name(M.cfg.filter), M.cfg.accept, when, M.dir);
  const char *quiet = getenv("REVPROF_QUIET");
  if (rp_g.rank == 0 && !(quiet && strcmp(quiet, "1") == 0))
    fprintf(stderr, "revprof: monitoring: %d application ranks, %d tool "
            "ranks (fanout %d, %s offload, %s filter), output in %s\n",
            M.apps, M.tools, M.cfg.fanout, rp_mon_offload_name(M.cfg.offload),
            rp_mon_filter_name(M.cfg.filter), M.dir);
}
