/* Sample mode: message latencies sampled through the piggyback (see
 * rp_sample.h). Per rank: the sampler, the classes of the messages it
 * received (an open-addressing table), the call sites it stamped, the
 * counts; at MPI_Finalize everything goes to rank 0, which names the call
 * sites (each rank names its own addresses: they differ between
 * processes) and writes latency.csv, latency.dat/latency.gp and
 * sample.txt. */
#include "rp_sample.h"
#include "rp_icost.h"
#include "rp_monitor.h"
#include "rp_report.h"
#include "rp_sample_rule.h"
#include "rp_site.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a class of received messages; dst is this rank */
typedef struct cls {
  int used, src, sclass;
  uintptr_t ssite, rsite;
  rp_lstat st;
  rp_ldrift dr; /* for the correction of clock drift at the end */
} cls;

/* the sender's time in the send calls that stamped a sampled message, by
   wrapper and size class */
typedef struct ccls {
  int wid, fn, sclass;
  rp_lstat st;
} ccls;

/* what one class travels as to rank 0 */
enum { W_SRC, W_DST, W_CLASS, W_SSITE, W_RSITE, W_N, W_MEAN, W_M2, W_MIN,
       W_MAX, W_BYTES, W_HIST, W_LEN = W_HIST + RP_LHIST_N };

/* ... and one call class */
enum { C_WID, C_FN, C_CLASS, C_N, C_MEAN, C_M2, C_MIN, C_MAX, C_BYTES,
       C_HIST, C_LEN = C_HIST + RP_LHIST_N };

enum { OFFSET_ROUNDS = 16, OFFSET_TAG = 7 };

/* what each rank sends rank 0 at the end: messages seen, sampled and
   received with a stamp, its clock offset at MPI_Init and MPI_Finalize,
   the best round trips of the two measurements, the time between them,
   the largest correction of a class's mean for drift, and u0 */
enum { Q_SEEN, Q_SAMPLED, Q_RECEIVED, Q_OFF0, Q_OFF1, Q_RTT0, Q_RTT1,
       Q_SPAN, Q_SHIFT, Q_U0, Q_LEN };

/* Both travel with a class's statistics from their _N on: n, mean, m2,
   min, max, bytes, then the histogram. */
_Static_assert(W_HIST - W_N == 6 && C_HIST - C_N == 6 &&
                   W_MEAN == W_N + 1 && C_MEAN == C_N + 1,
               "the statistics' layout");
static void lstat_pack(double *w, const rp_lstat *st) {
  w[0] = st->n;
  w[1] = st->mean;
  w[2] = st->m2;
  w[3] = st->min;
  w[4] = st->max;
  w[5] = st->bytes;
  memcpy(w + 6, st->hist, sizeof st->hist);
}

static struct {
  rp_sampler s;
  double skew, skew_ref; /* REVPROF_TEST_DRIFT on odd ranks: the clock runs
                            fast by skew s per s from host time skew_ref */
  int own_offsets;       /* REVPROF_TEST_DRIFT set: every rank measures its
                            own offset (on every rank, collectively) */
  int one_clock;         /* every rank on one node: no drift to correct,
                            nothing kept for it */
  double u0; /* global time at this rank's MPI_Init: a sample's u is its
                receive time less u0 */
  int have_sampler;
  double offset, offset_end; /* this rank's clock to rank 0's: at init, end */
  double rtt, rtt_end;       /* the best round trip of each measurement */
  double t_init, t_end;      /* host seconds: when the offsets were
                                measured (rank 0: when it answered) */
  double seen, sampled, received;
  cls *tab;
  size_t cap, n; /* cap: a power of two */
  uintptr_t *sites; /* call sites this rank names: the send sites it
                       stamped, its receive sites added at the end */
  size_t nsites, sites_cap;
  ccls *calls; /* call classes, in the order first seen */
  size_t ncalls, calls_cap, last_call;
  FILE *wf; /* REVPROF_ANALYSIS=write: samples.rank<N>.csv */
  int write_failed;
  MPI_Comm comm;
  MPI_Comm self; /* stamps of messages on communicators of one rank */
} S;

/* This rank's clock: the host's (skewed for the tests of drift). */
static double sm_seconds(void) {
  double h = rp_host_seconds();
  return S.skew != 0.0 ? h + S.skew * (h - S.skew_ref) : h;
}

static double global_now(void) { return sm_seconds() + S.offset; }

/* ------------------------------------------------------- the hot paths */

static void site_add(uintptr_t a) {
  for (size_t i = 0; i < S.nsites; i++)
    if (S.sites[i] == a)
      return;
  uintptr_t *nb = rp_grow(S.sites, &S.sites_cap, S.nsites + 1, sizeof *nb);
  if (nb == NULL)
    return; /* the site is then named by its address */
  S.sites = nb;
  S.sites[S.nsites++] = a;
}

/* The messages rp_sample_out marked "not sampled" since the sampler last
 * ran, given to it: counted as seen, and as the counter's or random gap's
 * messages they were. */
static void skipped_flush(void) {
  S.seen += (double)rp_g.sample_skipped;
  rp_sampler_pass(&S.s, rp_g.sample_skipped);
  rp_g.sample_skipped = 0;
}

/* How many of the next messages rp_sample_out marks without the sampler. */
static void skip_set(void) { rp_g.sample_skip = rp_sampler_skip(&S.s); }

/* The technique from now on (the messages marked under the old one
 * counted first). */
static void sampler_set(const rp_sample_spec *spec) {
  skipped_flush();
  rp_sampler_set(&S.s, spec);
  skip_set();
}

void rp_sample_out_slow(double *pb) {
  /* the clock only where the decision needs it: an unsampled message
     costs a count and a compare */
  if (rp_g.sample_skipped > 0)
    skipped_flush();
  S.seen += 1.0;
  /* timer: decides on this process's cheap clock (a comparison within the
     process); the stamp that travels reads the host's */
  int take = rp_sampler_decide(
      &S.s, S.s.spec.kind == RP_SAMPLE_TIMER ? rp_local_seconds() : 0.0);
  skip_set();
  if (!take) {
    pb[RP_PB_STAMP] = -1.0;
    rp_t.sample_t0 = -1.0; /* the send call then times nothing */
    return;
  }
  double now = global_now();
  uintptr_t site = (uintptr_t)rp_t.site;
  S.sampled += 1.0;
  rp_g.ic_n[RP_IC_SAMPLE] += 0.5;
  pb[RP_PB_STAMP] = now;
  pb[RP_PB_SITE] = (double)site; /* user-space addresses fit 53 bits */
  rp_t.sample_t0 = now; /* for the send call's own time (rp_sample_sent) */
  rp_t.sample_bytes = rp_pb_size(pb);
  if (S.nsites == 0 || S.sites[S.nsites - 1] != site)
    site_add(site);
}

/* Stamps of sampled messages whose call has not ended, per thread: sent
 * at rp_leave (rp_sample_flush), before the thread waits for another
 * rank's stamp, and at once when more than STAMPS_MAX are waiting. They
 * go by MPI_Isend (a blocking send of a stamp to this rank itself, whose
 * receive comes later, would never return with MPICH), from buffers of
 * their own (fly), each reused once its send is complete. */
#define STAMPS_MAX 8
typedef struct stamp_out {
  double pb[RP_PB_DOUBLES];
  int dest, tag;
  MPI_Comm shadow;
} stamp_out;
static _Thread_local stamp_out pending[STAMPS_MAX];
static _Thread_local int npending;
typedef struct stamp_fly {
  double pb[RP_PB_DOUBLES];
  MPI_Request rq;
} stamp_fly;
static _Thread_local stamp_fly *fly;
static _Thread_local size_t nfly, fly_cap;

/* A buffer whose send is complete, or a new one; NULL: out of memory. */
static stamp_fly *fly_slot(void) {
  for (size_t i = 0; i < nfly; i++) {
    int done = 0;
    if (fly[i].rq == MPI_REQUEST_NULL ||
        (PMPI_Test(&fly[i].rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
         done))
      return &fly[i];
  }
  stamp_fly *nb = rp_grow(fly, &fly_cap, nfly + 1, sizeof *nb);
  if (nb == NULL)
    return NULL;
  fly = nb;
  fly[nfly].rq = MPI_REQUEST_NULL;
  return &fly[nfly++];
}

void rp_sample_flush(void) {
  for (int i = 0; i < npending; i++) {
    stamp_out *o = &pending[i];
    stamp_fly *f = fly_slot();
    if (f == NULL) {
      rp_report_flag("out-of-memory", "out of memory for the stamps of "
                     "sampled messages: some receivers wait for them");
      continue;
    }
    memcpy(f->pb, o->pb, sizeof f->pb);
    RP_UNLOCKED(PMPI_Isend(f->pb, RP_PB_DOUBLES, MPI_DOUBLE, o->dest,
                           o->tag, o->shadow, &f->rq));
  }
  npending = 0;
  rp_t.stamps = 0;
}

/* MPI_Finalize: this thread's stamp sends not complete yet go on alone
 * (their buffers then stay, for the MPI to read). */
static void fly_release(void) {
  int busy = 0;
  for (size_t i = 0; i < nfly; i++) {
    int done = 0;
    if (fly[i].rq != MPI_REQUEST_NULL &&
        (PMPI_Test(&fly[i].rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
         !done)) {
      PMPI_Request_free(&fly[i].rq);
      busy = 1;
    }
  }
  if (!busy)
    free(fly);
  fly = NULL;
  nfly = fly_cap = 0;
}

/* Where the stamps of messages on comm go: its shadow; a duplicate of
 * MPI_COMM_SELF for a communicator of this rank alone (it has none);
 * MPI_COMM_NULL for an inter-communicator or one revprof did not see
 * created. */
static MPI_Comm stamp_comm(MPI_Comm comm) {
  MPI_Comm sh = rp_comm_shadow(comm);
  int n = 0, inter = 1;
  if (sh != MPI_COMM_NULL)
    return sh;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
      PMPI_Comm_size(comm, &n) != MPI_SUCCESS || n != 1)
    return MPI_COMM_NULL;
  return S.self;
}

unsigned char rp_sample_flag_slow(double bytes, int dest, int tag,
                                  MPI_Comm comm) {
  double pb[RP_PB_DOUBLES] = {-1.0, 0.0, 0.0, rp_pb_meta(rp_g.rank, bytes),
                              -1.0};
  rp_sample_out_slow(pb);
  if (pb[RP_PB_STAMP] < 0.0)
    return RP_SFLAG_NO;
  MPI_Comm shadow = stamp_comm(comm);
  if (shadow == MPI_COMM_NULL) { /* no way for its stamp */
    S.sampled -= 1.0;
    rp_g.ic_n[RP_IC_SAMPLE] -= 0.5;
    rp_t.sample_t0 = -1.0;
    rp_report_flag("sample-lost", "sampled messages on "
                   "inter-communicators or communicators revprof did not "
                   "see created went without their stamp (counted as not "
                   "sampled)");
    return RP_SFLAG_NO;
  }
  if (npending == STAMPS_MAX)
    rp_sample_flush();
  stamp_out *o = &pending[npending++];
  memcpy(o->pb, pb, sizeof pb);
  o->dest = dest;
  o->tag = tag;
  o->shadow = shadow;
  rp_t.stamps = 1;
  return RP_SFLAG_YES;
}

static void sample_in_at(const double *pb, double bytes, double t);

void rp_sample_stamp_in(double bytes, MPI_Comm comm, MPI_Comm shadow,
                        const MPI_Status *st) {
  double pb[RP_PB_DOUBLES], t = global_now(); /* received: before the
                                                  stamp that follows */
  if (comm != MPI_COMM_NULL)
    shadow = stamp_comm(comm);
  if (rp_t.stamps)
    rp_sample_flush(); /* its receiver may be waiting for one of these */
  if (shadow == MPI_COMM_NULL) /* (no memory to keep it: rp_p2p.c) */
    return;
  int rc;
  RP_UNLOCKED(rc = PMPI_Recv(pb, RP_PB_DOUBLES, MPI_DOUBLE, st->MPI_SOURCE,
                             st->MPI_TAG, shadow, MPI_STATUS_IGNORE));
  if (rc == MPI_SUCCESS)
    sample_in_at(pb, bytes, t);
}

void rp_sample_sent_slow(rp_wid w, revprof_fn fn) {
  double t = global_now(), bytes = rp_t.sample_bytes;
  double dur = t - rp_t.sample_t0;
  unsigned an = rp_g.cfg.analysis;
  rp_t.sample_t0 = -1.0;
  if (!(an & (RP_ANALYSIS_STAT | RP_ANALYSIS_FREQ)) || bytes >= RP_PB_NOSIZE)
    return;
  int sc = rp_size_class(bytes);
  ccls *c = S.last_call < S.ncalls ? &S.calls[S.last_call] : NULL;
  if (c == NULL || c->wid != (int)w || c->sclass != sc) {
    size_t i = 0;
    while (i < S.ncalls && (S.calls[i].wid != (int)w || S.calls[i].sclass != sc))
      i++;
    if (i == S.ncalls) {
      ccls *nb = rp_grow(S.calls, &S.calls_cap, S.ncalls + 1, sizeof *nb);
      if (nb == NULL) {
        rp_report_flag("out-of-memory", "out of memory for message classes: "
                       "some samples were not counted");
        return;
      }
      S.calls = nb;
      S.calls[i].wid = (int)w;
      S.calls[i].fn = (int)fn;
      S.calls[i].sclass = sc;
      rp_lstat_init(&S.calls[i].st);
      S.ncalls++;
    }
    S.last_call = i;
    c = &S.calls[i];
  }
  rp_lstat_add(&c->st, dur < 0.0 ? 0.0 : dur, bytes,
               (an & RP_ANALYSIS_FREQ) != 0);
}

static uint64_t key_hash(int src, int sclass, uintptr_t a, uintptr_t b) {
  uint64_t h = ((uint64_t)(unsigned)src << 8 | (unsigned)sclass) *
               0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)a * 0xC2B2AE3D27D4EB4Full;
  h ^= (uint64_t)b * 0x165667B19E3779F9ull;
  return h ^ h >> 29;
}

static int tab_grow(void) {
  size_t cap = S.cap ? 2 * S.cap : 64;
  cls *nt = calloc(cap, sizeof *nt);
  if (nt == NULL)
    return REVPROF_ENOMEM;
  for (size_t i = 0; i < S.cap; i++) {
    cls *c = &S.tab[i];
    if (!c->used)
      continue;
    size_t j = key_hash(c->src, c->sclass, c->ssite, c->rsite) & (cap - 1);
    while (nt[j].used)
      j = (j + 1) & (cap - 1);
    nt[j] = *c;
  }
  free(S.tab);
  S.tab = nt;
  S.cap = cap;
  return 0;
}

static cls *class_of(int src, int sclass, uintptr_t ssite, uintptr_t rsite) {
  if ((S.n + 1) * 2 > S.cap && tab_grow() != 0)
    return NULL;
  size_t j = key_hash(src, sclass, ssite, rsite) & (S.cap - 1);
  for (;; j = (j + 1) & (S.cap - 1)) {
    cls *c = &S.tab[j];
    if (!c->used) {
      c->used = 1;
      c->src = src;
      c->sclass = sclass;
      c->ssite = ssite;
      c->rsite = rsite;
      rp_lstat_init(&c->st);
      rp_ldrift_init(&c->dr);
      S.n++;
      return c;
    }
    if (c->src == src && c->sclass == sclass && c->ssite == ssite &&
        c->rsite == rsite)
      return c;
  }
}

/* A sampled message of bytes with stamp pb was received at t (global). */
static void sample_in_at(const double *pb, double bytes, double t) {
  double lat = t - pb[RP_PB_STAMP];
  int src = rp_pb_rank(pb);
  uintptr_t ssite = (uintptr_t)pb[RP_PB_SITE], rsite = (uintptr_t)rp_t.site;
  unsigned an = rp_g.cfg.analysis;
  S.received += 1.0;
  rp_g.ic_n[RP_IC_SAMPLE] += 0.5;
  if (an & (RP_ANALYSIS_STAT | RP_ANALYSIS_FREQ)) {
    cls *c = class_of(src, rp_size_class(bytes), ssite, rsite);
    if (c) {
      int with_hist = (an & RP_ANALYSIS_FREQ) != 0;
      if (!S.one_clock)
        rp_ldrift_add(&c->dr, &c->st, lat, t - S.u0, with_hist);
      rp_lstat_add(&c->st, lat, bytes, with_hist);
    } else
      rp_report_flag("out-of-memory", "out of memory for message classes: "
                     "some samples were not counted");
  }
  /* the latency twice, formatted once: as measured, and corrected for
     the clocks' drift (the same until MPI_Finalize knows the drift:
     correct_written) */
  char l[32];
  if (S.wf && snprintf(l, sizeof l, "%.9e", lat) > 0 &&
      fprintf(S.wf, "%d,%d,0x%lx,0x%lx,%.0f,%.9f,%s,%s\n", src, rp_g.rank,
              (unsigned long)ssite, (unsigned long)rsite, bytes,
              pb[RP_PB_STAMP], l, l) < 0 &&
      !S.write_failed++)
    rp_report_flag("sample-write", "samples.rank%d.csv could not be "
                   "written to the end (%s)", rp_g.rank, strerror(errno));
}

void rp_sample_in_slow(const double *pb, double bytes) {
  sample_in_at(pb, bytes, global_now());
}

/* ------------------------------------------------------- clock offsets */

/* Cristian's rule against rank 0 over comm (rank 0 there is rank 0 of
 * MPI_COMM_WORLD), OFFSET_ROUNDS round trips per rank, the shortest kept:
 * v[0] rank 0's time minus this rank's at the round trip's middle, v[1]
 * the round trip, v[2] this rank's time at its middle (rank 0: now). */
static void cristian(MPI_Comm comm, double v[3]) {
  int me, n;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &n);
  v[0] = v[1] = 0.0;
  v[2] = sm_seconds();
  if (me == 0) {
    for (int r = 1; r < n; r++)
      for (int k = 0; k < OFFSET_ROUNDS; k++) {
        double t;
        PMPI_Recv(&t, 1, MPI_DOUBLE, r, OFFSET_TAG, comm, MPI_STATUS_IGNORE);
        t = sm_seconds();
        PMPI_Send(&t, 1, MPI_DOUBLE, r, OFFSET_TAG, comm);
      }
    return;
  }
  double best = INFINITY;
  for (int k = 0; k < OFFSET_ROUNDS; k++) {
    double t0 = sm_seconds(), ts;
    PMPI_Send(&t0, 1, MPI_DOUBLE, 0, OFFSET_TAG, comm);
    PMPI_Recv(&ts, 1, MPI_DOUBLE, 0, OFFSET_TAG, comm, MPI_STATUS_IGNORE);
    double t1 = sm_seconds();
    if (t1 - t0 < best) {
      best = t1 - t0;
      v[0] = ts - 0.5 * (t0 + t1);
      v[2] = 0.5 * (t0 + t1);
    }
  }
  v[1] = best;
}

/* This rank's clock offset to rank 0, the round trip it was measured with
 * and this rank's time when it was measured. Ranks of one node read the
 * same clock: their offset is their node's, which its first rank measures
 * against rank 0 (0 on rank 0's node, exactly). Collective over S.comm
 * and the engine's node communicator (rp_g.node: S.comm is a duplicate of
 * the world, whose ranks it splits). */
static void measure_offset(double *offset, double *rtt, double *when) {
  MPI_Comm lead = MPI_COMM_NULL;
  /* without rp_g.node every rank measures its own; the tests' skewed
     clocks (own_offsets) differ within a node */
  MPI_Comm node = S.own_offsets ? MPI_COMM_NULL : rp_g.node;
  int nrank = node != MPI_COMM_NULL ? rp_g.node_rank : 0;
  int nsize = node != MPI_COMM_NULL ? rp_g.node_size : 0;
  double v[3] = {0.0, 0.0, sm_seconds()};
  S.one_clock = nsize == rp_g.size; /* the same on every rank */
  PMPI_Comm_split(S.comm, nrank == 0 ? 0 : MPI_UNDEFINED, rp_g.rank, &lead);
  if (lead != MPI_COMM_NULL) {
    cristian(lead, v);
    PMPI_Comm_free(&lead);
  }
  if (node != MPI_COMM_NULL)
    PMPI_Bcast(v, 3, MPI_DOUBLE, 0, node);
  *offset = v[0];
  *rtt = v[1];
  *when = v[2];
}

/* --------------------------------------------------------------- mode */

static void sm_configure(rp_config *cfg, revprof_model **model) {
  cfg->compute = RP_COMPUTE_ZERO;
  cfg->wtime_real = 1;
  cfg->trace[0] = '\0';
  cfg->lua[0] = '\0';
  revprof_model_free(*model); /* native speed: nothing to cost */
  *model = NULL;
}

static int sm_startup(char *err, size_t errlen) {
  if (PMPI_Comm_dup(rp_g.world, &S.comm) != MPI_SUCCESS ||
      PMPI_Comm_dup(MPI_COMM_SELF, &S.self) != MPI_SUCCESS) {
    snprintf(err, errlen, "sample mode: cannot duplicate MPI_COMM_WORLD "
             "and MPI_COMM_SELF (for the clock offsets and the stamps)");
    return REVPROF_EMPI;
  }
  if (rp_sampler_init(&S.s, &rp_g.cfg.sample, rp_g.cfg.seed, rp_g.rank) !=
      0) {
    snprintf(err, errlen, "sample mode: no random number generator");
    return REVPROF_ENOMEM;
  }
  S.have_sampler = 1;
  skip_set();
  const char *skew = getenv("REVPROF_TEST_DRIFT");
  if (skew && *skew) {
    char *end;
    double v = strtod(skew, &end);
    if (*end != '\0' || !isfinite(v) || fabs(v) >= 1.0) {
      snprintf(err, errlen, "REVPROF_TEST_DRIFT=\"%s\": expected a rate "
               "in s per s, between -1 and 1", skew);
      return REVPROF_EINVAL;
    }
    S.skew = rp_g.rank % 2 == 1 ? v : 0.0;
    S.own_offsets = 1;
    S.skew_ref = rp_host_seconds();
  }
  measure_offset(&S.offset, &S.rtt, &S.t_init);
  S.u0 = S.t_init + S.offset;
  if (rp_g.cfg.analysis & RP_ANALYSIS_WRITE) {
    char path[RP_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/samples.rank%d.csv", rp_g.cfg.outdir,
             rp_g.rank);
    if (rp_mkdir_p(rp_g.cfg.outdir) != 0 ||
        (S.wf = fopen(path, "w")) == NULL) {
      snprintf(err, errlen, "sample mode: cannot write %s: %s", path,
               strerror(errno));
      return REVPROF_EIO;
    }
    fprintf(S.wf, "src,dst,send_site,recv_site,bytes,t_send_s,latency_s,"
                  "latency_corrected_s\n");
  }
  rp_g.sampling = 1;
  rp_g.clockless = 1;
  rp_g.pbw = RP_SFLAG_BYTES; /* the flag (rp_sample.h) */
  return 0;
}

void rp_sample_calibrating(int pass) {
  static FILE *wf, *null;
  static int saved;
  rp_sample_spec sp = {0};
  if (!S.have_sampler)
    return;
  if (pass >= 0) {
    if (!saved) {
      saved = 1;
      wf = S.wf;
      if (wf)
        S.wf = null = fopen("/dev/null", "w");
    }
    sp.kind = pass ? RP_SAMPLE_ALL : RP_SAMPLE_OFF;
    sampler_set(&sp);
    return;
  }
  if (null)
    fclose(null);
  null = NULL;
  S.wf = wf;
  saved = 0;
  sampler_set(&rp_g.cfg.sample);
  free(S.tab);
  free(S.sites);
  S.tab = NULL;
  S.sites = NULL;
  S.cap = S.n = S.nsites = S.sites_cap = 0;
  S.seen = S.sampled = S.received = 0.0;
  S.ncalls = 0;
}

int rp_sample_set(const char *spec, char *err, size_t errlen) {
  rp_sample_spec sp;
  int rc = rp_sample_parse(spec, &sp, err, errlen);
  if (rc != 0)
    return rc;
  if (S.have_sampler)
    sampler_set(&sp);
  rp_g.cfg.sample = sp;
  return 0;
}

/* ------------------------------------------------------------- report */

/* This rank's site names, "ADDR NAME\n" each, every address once: the
 * send sites it stamped and the receive sites of its classes. Malloc'ed;
 * *len bytes. */
static char *name_sites(int *len) {
  size_t cap = 0, n = 0;
  char *out = NULL, name[512], line[600];
  for (size_t i = 0; i < S.cap; i++)
    if (S.tab[i].used)
      site_add(S.tab[i].rsite);
  for (size_t i = 0; i < S.nsites; i++) {
    uintptr_t a = S.sites[i];
    int k = snprintf(line, sizeof line, "%lx %s\n", (unsigned long)a,
                     rp_site_name(a, name, sizeof name));
    if (k <= 0 || (size_t)k >= sizeof line)
      continue;
    char *nb = rp_grow(out, &cap, n + (size_t)k + 1, 1);
    if (nb == NULL)
      break;
    out = nb;
    memcpy(out + n, line, (size_t)k + 1);
    n += (size_t)k;
  }
  rp_site_done();
  *len = (int)n;
  return out;
}

/* Gathers cnt items of size elt from every rank to rank 0 (its buffer
 * malloc'ed, counts and displacements in items); NULL elsewhere. */
static void *gather(const void *mine, int cnt, MPI_Datatype t, int elt,
                    int **counts, int **displs, int *total) {
  int p = rp_g.size;
  *counts = rp_g.rank == 0 ? calloc((size_t)p, sizeof **counts) : NULL;
  *displs = rp_g.rank == 0 ? calloc((size_t)p, sizeof **displs) : NULL;
  PMPI_Gather(&cnt, 1, MPI_INT, *counts, 1, MPI_INT, 0, S.comm);
  char *all = NULL;
  *total = 0;
  if (rp_g.rank == 0) {
    for (int r = 0; r < p; r++) {
      (*displs)[r] = *total;
      *total += (*counts)[r];
    }
    all = malloc((size_t)(*total > 0 ? *total : 1) * (size_t)elt);
  }
  PMPI_Gatherv(mine, cnt, t, all, *counts, *displs, t, 0, S.comm);
  return all;
}

typedef struct site_name {
  int rank;
  uintptr_t addr;
  const char *name;
} site_name;

static const char *lookup(const site_name *v, size_t n, int rank, uintptr_t a,
                          char *buf, size_t len) {
  for (size_t i = 0; i < n; i++)
    if (v[i].rank == rank && v[i].addr == a)
      return v[i].name;
  snprintf(buf, len, "0x%lx", (unsigned long)a);
  return buf;
}

/* the names gathered: text[displs[r] ..] holds rank r's lines */
static site_name *parse_names(char *text, const int *counts,
                              const int *displs, size_t *n) {
  size_t cap = 0;
  site_name *v = NULL;
  *n = 0;
  for (int r = 0; r < rp_g.size; r++) {
    char *p = text + displs[r], *end = p + counts[r];
    while (p < end) {
      char *nl = memchr(p, '\n', (size_t)(end - p));
      if (nl == NULL)
        break;
      *nl = '\0';
      char *sp = strchr(p, ' ');
      site_name *nb = sp ? rp_grow(v, &cap, *n + 1, sizeof *nb) : NULL;
      if (nb) {
        v = nb;
        *sp = '\0';
        v[*n].rank = r;
        v[*n].addr = (uintptr_t)strtoull(p, NULL, 16);
        v[*n].name = sp + 1;
        (*n)++;
      }
      p = nl + 1;
    }
  }
  return v;
}

static void csv_site(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++)
    fputc(*s == '"' ? '\'' : *s, f);
  fputc('"', f);
}

/* The report's flags (its "  key: text" lines) as CSV comments. */
static void csv_flags(FILE *f, const char *flags) {
  for (const char *l = flags; l && *l;) {
    size_t n = strcspn(l, "\n");
    if (n > 2 && l[0] == ' ' && l[1] == ' ')
      fprintf(f, "# flag: %.*s\n", (int)(n - 2), l + 2);
    l += n + (l[n] == '\n');
  }
}

/* dir/name opened for writing with its comment line (what), the report's
 * flags, a warning line (warn, unless NULL or empty) and the header:
 * columns, then the histogram's b00..b33; NULL (said) when it cannot be.
 * path gets its name. */
static FILE *csv_open(const char *name, const char *what, const char *flags,
                      const char *warn, const char *columns, char *path,
                      size_t len) {
  snprintf(path, len, "%s/%s", rp_g.cfg.outdir, name);
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    rp_warn("sample mode: cannot write %s: %s", path, strerror(errno));
    return NULL;
  }
  fprintf(f, "# revprof sample mode: %s\n", what);
  csv_flags(f, flags);
  if (warn && *warn)
    fprintf(f, "# warning: %s\n", warn);
  fputs(columns, f);
  for (int k = 0; k < RP_LHIST_N; k++)
    fprintf(f, ",b%02d", k);
  fputc('\n', f);
  return f;
}

/* A row's columns from size_class on: the class sc, then the statistics
 * as lstat_pack laid them out at s, and the line's end. */
static void csv_stats(FILE *f, int sc, const double *s) {
  rp_lstat st;
  st.n = s[0];
  st.m2 = s[2];
  fprintf(f, ",%d,%.0f,%.0f,%.6g,%.0f,%.9e,%.9e,%.9e,%.9e", sc,
          rp_size_class_lo(sc), rp_size_class_hi(sc),
          s[0] > 0 ? s[5] / s[0] : 0.0, s[0], s[1], s[3], s[4],
          rp_lstat_sd(&st));
  for (int k = 0; k < RP_LHIST_N; k++)
    fprintf(f, ",%.0f", s[6 + k]);
  fputc('\n', f);
}

static int by_total(const void *a, const void *b) {
  const double *x = a, *y = b;
  double tx = x[W_N] * x[W_MEAN], ty = y[W_N] * y[W_MEAN];
  return (tx < ty) - (tx > ty);
}

/* latency.dat and latency.gp; latency.png drawn with REVPROF_GNUPLOT. What
 * became of the picture goes to how (for sample.txt). */
static void write_plot(const double *rows, int nrows, char *how,
                       size_t howlen) {
  char path[RP_PATH_MAX + 64];
  snprintf(how, howlen, "not drawn (latency.gp could not be written)");
  snprintf(path, sizeof path, "%s/latency.dat", rp_g.cfg.outdir);
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return;
  fprintf(f, "# bytes_mean mean_s min_s max_s count (one line per class)\n");
  for (int i = 0; i < nrows; i++) {
    const double *w = rows + (size_t)i * W_LEN;
    if (w[W_N] > 0)
      fprintf(f, "%.6g %.6e %.6e %.6e %.0f\n",
              w[W_BYTES] / w[W_N] > 0 ? w[W_BYTES] / w[W_N] : 1.0, w[W_MEAN],
              w[W_MIN], w[W_MAX], w[W_N]);
  }
  fclose(f);
  snprintf(path, sizeof path, "%s/latency.gp", rp_g.cfg.outdir);
  if ((f = fopen(path, "w")) == NULL)
    return;
  fprintf(f, "# gnuplot latency.gp (in this folder): latency.png, the sampled\n"
             "# one-way latencies by message size (mean, min-max bars)\n"
             "set terminal pngcairo size 900,600\n"
             "set output 'latency.png'\n"
             "set logscale xy\n"
             "set xlabel 'message size (bytes; 0 B shown at 1)'\n"
             "set ylabel 'one-way latency (s)'\n"
             "set key top left\n"
             "plot 'latency.dat' using 1:2:3:4 with yerrorbars "
             "title 'mean, min-max per class'\n");
  fclose(f);
  if (nrows == 0) {
    snprintf(how, howlen, "not drawn (no class)");
    return;
  }
  if (rp_g.cfg.gnuplot[0] == '\0') {
    snprintf(how, howlen, "not drawn (REVPROF_GNUPLOT is empty)");
    return;
  }
  snprintf(path, sizeof path, "%s/latency.gp.log", rp_g.cfg.outdir);
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  int log = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  char *argv[] = {rp_g.cfg.gnuplot, "latency.gp", NULL};
  int rc = rp_spawn_wait(argv, rp_g.cfg.outdir, null, null, log);
  if (null >= 0)
    close(null);
  if (log >= 0)
    close(log);
  if (rc == 0) {
    unlink(path);
    snprintf(how, howlen, "drawn");
  } else
    snprintf(how, howlen, "not drawn (%s latency.gp: %s; see latency.gp.log, "
             "REVPROF_GNUPLOT)", rp_g.cfg.gnuplot,
             rc == 127 ? "not found" : rc < 0 ? strerror(errno)
                                            : "it failed");
}

/* samples.rank<N>.csv's last column corrected for the drift: latency_s +
 * rate[dst] (t_send_s + latency_s - u0[dst]) - rate[src] (t_send_s -
 * u0[src]) (all: every rank's rate and u0), by rewriting the file beside
 * it and renaming it over it; the file stays as it was when that fails
 * (flagged). Closes S.wf. */
static void correct_written(const double *all) {
  char path[RP_PATH_MAX + 64], tmp[RP_PATH_MAX + 80], line[512];
  int any = 0;
  for (int r = 0; r < rp_g.size; r++)
    any |= all[2 * r] != 0.0;
  if (S.wf == NULL || !any)
    return;
  snprintf(path, sizeof path, "%s/samples.rank%d.csv", rp_g.cfg.outdir,
           rp_g.rank);
  snprintf(tmp, sizeof tmp, "%s.drift", path);
  FILE *wf = S.wf;
  S.wf = NULL;
  if (fclose(wf) != 0 && !S.write_failed++) {
    rp_warn("sample mode: samples.rank%d.csv: %s", rp_g.rank,
            strerror(errno));
    return;
  }
  FILE *in = fopen(path, "r"), *out = in ? fopen(tmp, "w") : NULL;
  const double rd = all[2 * rp_g.rank], u0d = all[2 * rp_g.rank + 1];
  long bad = 0, n = 0;
  int ok = in && out;
  while (ok && fgets(line, sizeof line, in)) {
    int src;
    double t_send, lat;
    char *last = strrchr(line, ',');
    if (n++ == 0 || last == NULL ||
        sscanf(line, "%d,%*d,%*[^,],%*[^,],%*[^,],%lf,%lf", &src, &t_send,
               &lat) != 3 || src < 0 || src >= rp_g.size) {
      bad += n > 1; /* the header, or a line left as it is */
      ok = fputs(line, out) >= 0;
      continue;
    }
    double rs = all[2 * src], u0s = all[2 * src + 1];
    double c = lat + rd * (t_send + lat - u0d) - rs * (t_send - u0s);
    ok = fprintf(out, "%.*s,%.9e\n", (int)(last - line), line, c) >= 0;
  }
  ok = ok && !ferror(in);
  if (in)
    fclose(in);
  if (out && fclose(out) != 0)
    ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    rp_report_flag("sample-write", "samples.rank%d.csv: the latencies "
                   "could not be corrected for the drift (%s); its last "
                   "column is as measured", rp_g.rank, strerror(errno));
    remove(tmp);
  } else if (bad)
    rp_report_flag("sample-write", "samples.rank%d.csv: %ld lines not "
                   "corrected for the drift (not as revprof wrote them)",
                   rp_g.rank, bad);
}

/* At the end, on every rank: its classes' statistics corrected for the
 * drift of its clock against each sender's (rp_lstat_undrift), from every
 * rank's offsets at MPI_Init and MPI_Finalize (collective over S.comm);
 * flagged (clock-drift) when a mean moved by more than 1 % and 1 us,
 * since the histograms (and the medians of revprof validate) are
 * corrected only bucket by bucket. Returns the largest |correction| of a
 * mean, seconds. */
static double undrift(void) {
  if (S.one_clock) /* on every rank: one clock, no drift, nothing kept */
    return 0.0;
  double me[2] = {rp_drift_rate(S.offset, S.offset_end, S.rtt, S.rtt_end,
                                S.t_end - S.t_init), S.u0};
  double *all = malloc(2 * sizeof *all * (size_t)rp_g.size);
  int ok = all != NULL; /* every rank must have room, or none gathers */
  PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, S.comm);
  if (!ok || PMPI_Allgather(me, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE,
                            S.comm) != MPI_SUCCESS) {
    if (me[0] != 0.0)
      rp_report_flag("clock-drift", "the clock drifted by %.3g s per s "
                     "during the run and the latencies could not be "
                     "corrected (out of memory)", me[0]);
    free(all);
    return 0.0;
  }
  correct_written(all);
  double shift_max = 0.0, worst_mean = 0.0;
  int worst_src = -1, matters = 0;
  for (size_t i = 0; i < S.cap; i++) {
    cls *c = &S.tab[i];
    if (!c->used || c->src < 0 || c->src >= rp_g.size)
      continue;
    double as = all[2 * c->src], u0s = all[2 * c->src + 1];
    /* u counts from this rank's measurement at MPI_Init, the sender's
       drift from its own, u0 - u0s earlier */
    double shift = rp_lstat_undrift(&c->st, &c->dr, me[0] - as,
                                    -as * (S.u0 - u0s));
    if (fabs(shift) > 1e-6 && fabs(shift) > 0.01 * fabs(c->st.mean))
      matters = 1;
    if (fabs(shift) > shift_max) {
      shift_max = fabs(shift);
      worst_src = c->src;
      worst_mean = c->st.mean;
    }
  }
  free(all);
  if (matters)
    rp_report_flag("clock-drift", "the clocks drifted during the run: "
                   "latencies corrected by up to %.3g s (messages %d->%d, "
                   "mean %.3g s after it); means, sds, min and max are "
                   "corrected for a linear drift exactly, the histograms "
                   "bucket by bucket (revprof validate's medians are "
                   "exact where REVPROF_ANALYSIS has write)",
                   shift_max, worst_src, rp_g.rank, worst_mean);
  return shift_max;
}

static void write_outputs(double *rows, int nrows, const site_name *names,
                          size_t nnames, const double *per_rank,
                          const char *flags) {
  char path[RP_PATH_MAX + 64], b1[64], b2[64];
  const char *dir = rp_g.cfg.outdir;
  char spec[128];
  rp_sample_format(&rp_g.cfg.sample, spec, sizeof spec);
  double seen = 0, sampled = 0, received = 0, drift = 0, off = 0;
  double drift_shift_max = 0;
  for (int r = 0; r < rp_g.size; r++) {
    const double *q = per_rank + Q_LEN * r;
    seen += q[Q_SEEN];
    sampled += q[Q_SAMPLED];
    received += q[Q_RECEIVED];
    if (fabs(q[Q_OFF1] - q[Q_OFF0]) > fabs(drift))
      drift = q[Q_OFF1] - q[Q_OFF0];
    if (fabs(q[Q_OFF0]) > fabs(off))
      off = q[Q_OFF0];
    if (q[Q_SHIFT] > drift_shift_max)
      drift_shift_max = q[Q_SHIFT];
  }
  /* nothing sampled: why, in the first lines of sample.txt and in
     latency.csv (a program of collectives alone sends no message this mode
     stamps) */
  char warn[320] = "";
  if (sampled == 0 && seen == 0)
    snprintf(warn, sizeof warn, "no point-to-point message was sent: sample "
             "mode stamps point-to-point messages only (collectives, "
             "one-sided and I/O calls are not sampled); latency.csv is "
             "empty");
  else if (sampled == 0)
    snprintf(warn, sizeof warn, "no message was sampled (REVPROF_SAMPLE=%s, "
             "%.0f messages): latency.csv is empty", spec, seen);
  FILE *f = csv_open("latency.csv", "one-way message latencies by class, "
                     "all ranks (seconds)", flags, warn,
                     "src,dst,send_site,recv_site,size_class,bytes_lo,"
                     "bytes_hi,bytes_mean,count,mean_s,min_s,max_s,sd_s",
                     path, sizeof path);
  if (f == NULL)
    return;
  for (int i = 0; i < nrows; i++) {
    double *w = rows + (size_t)i * W_LEN;
    int src = (int)w[W_SRC], dst = (int)w[W_DST];
    fprintf(f, "%d,%d,", src, dst);
    csv_site(f, lookup(names, nnames, src, (uintptr_t)w[W_SSITE], b1,
                       sizeof b1));
    fputc(',', f);
    csv_site(f, lookup(names, nnames, dst, (uintptr_t)w[W_RSITE], b2,
                       sizeof b2));
    csv_stats(f, (int)w[W_CLASS], w + W_N);
  }
  fclose(f);
  char plot[RP_PATH_MAX + 128];
  write_plot(rows, nrows, plot, sizeof plot);

  /* the summary */
  snprintf(path, sizeof path, "%s/sample.txt", dir);
  if ((f = fopen(path, "w")) == NULL) {
    rp_warn("sample mode: cannot write %s: %s", path, strerror(errno));
    return;
  }
  fprintf(f, "==== revprof: sampled message latencies (FINAL) ====\n");
  if (flags)
    fputs(flags, f);
  if (warn[0])
    fprintf(f, "warning:   %s\n", warn);
  if (received != sampled)
    fprintf(f, "warning:   %.0f messages sampled, %.0f received with their "
               "stamp (the rest were cancelled, not received, or received "
               "after MPI_Finalize began)\n", sampled, received);
  char an[64];
  rp_analysis_format(rp_g.cfg.analysis, an, sizeof an);
  fprintf(f, "technique: REVPROF_SAMPLE=%s REVPROF_SEED=%lu "
             "REVPROF_ANALYSIS=%s (the technique at the end of the run)\n",
          spec, rp_g.cfg.seed, an);
  fprintf(f, "ranks:     %d\n", rp_g.size);
  fprintf(f, "cost:      %s\n", rp_icost_line());
  if (rp_monitor_line()[0])
    fprintf(f, "monitor:   %s\n", rp_monitor_line());
  fprintf(f, "messages:  %.0f sent, %.0f sampled (%.2f %%), %.0f received "
             "with a stamp; %d classes\n", seen, sampled,
          seen > 0 ? 100.0 * sampled / seen : 0.0, received, nrows);
  fprintf(f, "clocks:    largest offset to rank 0 %.3e s, largest drift "
             "over the run %.3e s (measured at MPI_Init and MPI_Finalize); "
             "latencies corrected for it by up to %.3e s (a class's mean)\n",
          off, drift, drift_shift_max);
  fprintf(f, "\nrank       sent    sampled   received   offset s    drift s   "
             "best round trip s   drift rate s/s   u0 s (measured at, on rank "
             "0's clock)\n");
  for (int r = 0; r < rp_g.size; r++) {
    const double *q = per_rank + Q_LEN * r;
    fprintf(f, "%4d %10.0f %10.0f %10.0f %10.3e %10.3e %10.3e %16.9e %.9f\n",
            r, q[Q_SEEN], q[Q_SAMPLED], q[Q_RECEIVED], q[Q_OFF0],
            q[Q_OFF1] - q[Q_OFF0], q[Q_RTT0],
            rp_drift_rate(q[Q_OFF0], q[Q_OFF1], q[Q_RTT0], q[Q_RTT1],
                          q[Q_SPAN]),
            q[Q_U0]);
  }
  qsort(rows, (size_t)nrows, W_LEN * sizeof *rows, by_total);
  fprintf(f, "\nclasses with the highest total latency (count x mean):\n");
  fprintf(f, "   total s      count     mean s      max s  src->dst  bytes  "
             "send site -> receive site\n");
  for (int i = 0; i < nrows && i < 10; i++) {
    const double *w = rows + (size_t)i * W_LEN;
    int src = (int)w[W_SRC], dst = (int)w[W_DST];
    fprintf(f, "%10.3e %10.0f %10.3e %10.3e %4d->%-4d %6.0f  %s -> %s\n",
            w[W_N] * w[W_MEAN], w[W_N], w[W_MEAN], w[W_MAX], src, dst,
            w[W_N] > 0 ? w[W_BYTES] / w[W_N] : 0.0,
            lookup(names, nnames, src, (uintptr_t)w[W_SSITE], b1, sizeof b1),
            lookup(names, nnames, dst, (uintptr_t)w[W_RSITE], b2, sizeof b2));
  }
  fprintf(f, "\nfiles:     latency.csv (one row per class), calls.csv (the "
             "send calls' own time), latency.dat and "
             "latency.gp (gnuplot latency.gp: latency.png, %s)%s\n", plot,
          rp_g.cfg.analysis & RP_ANALYSIS_WRITE
              ? ", samples.rank<N>.csv (every sample)" : "");
  if (rp_g.cfg.analysis & RP_ANALYSIS_WRITE)
    fprintf(f, "           samples.rank<N>.csv: latency_s as measured, "
               "latency_corrected_s = latency_s + rate[dst] x (t_send_s + "
               "latency_s - u0[dst]) - rate[src] x (t_send_s - u0[src]) "
               "(the drift's correction; rates and u0 above)\n");
  fclose(f);
  if (!rp_g.cfg.quiet) /* stderr, as the predict report: stdout is the
                          program's */
    fprintf(stderr, "revprof: %.0f of %.0f messages sampled; latencies in "
            "%s/latency.csv, summary in %s/sample.txt%s%s\n", sampled, seen,
            dir, dir, warn[0] ? "\nrevprof: warning: " : "", warn);
}

/* calls.csv: per rank, the sender's time in the send calls that stamped a
 * sampled message, by wrapper and size class; rows[displs[r] ..] holds
 * counts[r] doubles of rank r's. */
static void write_calls(const double *rows, const int *counts,
                        const int *displs, const char *flags) {
  char path[RP_PATH_MAX + 64];
  FILE *f = csv_open("calls.csv", "the sender's time in the send calls "
                     "that stamped a sampled message (seconds), per rank; "
                     "costed_as: the model row predict mode charges", flags,
                     NULL, "call,costed_as,rank,size_class,bytes_lo,bytes_hi,"
                     "bytes_mean,count,mean_s,min_s,max_s,sd_s",
                     path, sizeof path);
  if (f == NULL)
    return;
  for (int r = 0; r < rp_g.size; r++)
    for (int i = 0; i + C_LEN <= counts[r]; i += C_LEN) {
      const double *w = rows + displs[r] + i;
      int wid = (int)w[C_WID];
      fprintf(f, "%s,%s,%d",
              wid >= 0 && wid < RP_W_COUNT ? rp_wrap_name[wid] : "?",
              revprof_fn_name((revprof_fn)w[C_FN]), r);
      csv_stats(f, (int)w[C_CLASS], w + C_N);
    }
  if (fclose(f) != 0)
    rp_warn("sample mode: cannot write %s: %s", path, strerror(errno));
}

static void sm_report(void) {
  rp_g.sampling = 0;
  fly_release();
  measure_offset(&S.offset_end, &S.rtt_end, &S.t_end);
  double shift_max = undrift();
  if (S.wf && fclose(S.wf) != 0 && !S.write_failed++)
    rp_warn("sample mode: samples.rank%d.csv: %s", rp_g.rank,
            strerror(errno));
  S.wf = NULL;

  /* this rank's classes */
  double *mine = malloc((S.n > 0 ? S.n : 1) * W_LEN * sizeof *mine);
  int nm = 0;
  for (size_t i = 0; mine && i < S.cap; i++) {
    const cls *c = &S.tab[i];
    if (!c->used)
      continue;
    double *w = mine + (size_t)nm++ * W_LEN;
    w[W_SRC] = c->src;
    w[W_DST] = rp_g.rank;
    w[W_CLASS] = c->sclass;
    w[W_SSITE] = (double)c->ssite;
    w[W_RSITE] = (double)c->rsite;
    lstat_pack(w + W_N, &c->st);
  }
  int *counts, *displs, total;
  double *rows = gather(mine, nm * W_LEN, MPI_DOUBLE, (int)sizeof(double),
                        &counts, &displs, &total);
  int nrows = total / W_LEN;
  free(counts);
  free(displs);
  double *cmine = malloc((S.ncalls > 0 ? S.ncalls : 1) * C_LEN *
                         sizeof *cmine);
  int nc = 0;
  for (size_t i = 0; cmine && i < S.ncalls; i++) {
    const ccls *c = &S.calls[i];
    double *w = cmine + (size_t)nc++ * C_LEN;
    w[C_WID] = c->wid;
    w[C_FN] = c->fn;
    w[C_CLASS] = c->sclass;
    lstat_pack(w + C_N, &c->st);
  }
  int *ccounts, *cdispls, ctotal;
  double *crows = gather(cmine, nc * C_LEN, MPI_DOUBLE, (int)sizeof(double),
                         &ccounts, &cdispls, &ctotal);
  int tlen;
  char *text = name_sites(&tlen);
  char *all = gather(text ? text : "", text ? tlen : 0, MPI_CHAR, 1, &counts,
                     &displs, &total);
  skipped_flush();
  double q[Q_LEN] = {S.seen, S.sampled, S.received, S.offset, S.offset_end,
                     S.rtt, S.rtt_end, S.t_end - S.t_init, shift_max,
                     S.u0};
  double *per_rank = rp_g.rank == 0 ? malloc(Q_LEN * sizeof *per_rank *
                                             (size_t)rp_g.size) : NULL;
  PMPI_Gather(q, Q_LEN, MPI_DOUBLE, per_rank, Q_LEN, MPI_DOUBLE, 0, S.comm);
  char *flags = rp_report_flags_block();
  if (rp_g.rank == 0 && rows && all && per_rank && counts && displs) {
    size_t nn;
    site_name *names = parse_names(all, counts, displs, &nn);
    if (rp_mkdir_p(rp_g.cfg.outdir) != 0)
      rp_warn("sample mode: cannot create %s: %s", rp_g.cfg.outdir,
              strerror(errno));
    else {
      write_outputs(rows, nrows, names, nn, per_rank, flags);
      if (crows && ccounts && cdispls)
        write_calls(crows, ccounts, cdispls, flags);
    }
    free(names);
  }
  free(crows);
  free(ccounts);
  free(cdispls);
  free(cmine);
  free(S.calls);
  S.calls = NULL;
  S.ncalls = S.calls_cap = 0;
  free(flags);
  free(per_rank);
  free(all);
  free(counts);
  free(displs);
  free(text);
  free(rows);
  free(mine);
  free(S.tab);
  free(S.sites);
  S.tab = NULL;
  S.sites = NULL;
  S.cap = S.n = S.nsites = S.sites_cap = 0;
  if (S.have_sampler)
    rp_sampler_free(&S.s);
  S.have_sampler = 0;
  PMPI_Comm_free(&S.comm);
}

/* Writes n bytes of b as OUTDIR/NAME.partial.rank<N>.csv, whole or not at
 * all (rp_write_whole: a checkpoint may be killed); says so on stderr when
 * say. Async-signal-safe but for snprintf, as before. */
static void partial_file(const char *name, const char *b, size_t n,
                         int say) {
  static char path[RP_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s.partial.rank%d.csv", rp_g.cfg.outdir,
           name, rp_g.rank);
  rp_mkdir_p(rp_g.cfg.outdir);
  if (rp_write_whole(path, b, n) == 0 && say && !rp_g.cfg.quiet) {
    static const char m[] = "revprof: PARTIAL sample report written to ";
    ssize_t ignored = write(2, m, sizeof m - 1);
    ignored = write(2, path, strlen(path));
    ignored = write(2, "\n", 1);
    (void)ignored;
  }
}

/* A run that ends before MPI_Finalize (signal, exit, abort), or a
 * checkpoint (REVPROF_CHECKPOINT; nothing said): this rank's counts and
 * classes so far, sites as addresses, in sample.partial.rank<N>.csv, and
 * the send calls' own times so far (calls.csv's columns for this rank) in
 * calls.partial.rank<N>.csv (static buffers, no malloc: it may run in a
 * signal handler). */
static void sm_report_partial(const char *reason, int checkpoint) {
  static char b[65536];
  size_t n = 0;
#define SM_PUT(...)                                                            \
  do {                                                                         \
    int k_ = n < sizeof b ? snprintf(b + n, sizeof b - n, __VA_ARGS__) : 0;   \
    n += k_ > 0 ? (size_t)k_ : 0;                                              \
  } while (0)
  SM_PUT("# revprof sample mode, PARTIAL (%s): rank %d of %d, %.0f messages "
         "sent, %.0f sampled, %.0f received with a stamp; classes so far\n",
         reason, rp_g.rank, rp_g.size, S.seen + (double)rp_g.sample_skipped,
         S.sampled, S.received);
  static char cost[320];
  rp_icost_partial_line(cost, sizeof cost);
  if (cost[0])
    SM_PUT("# %s\n", cost);
  SM_PUT("src,dst,send_site,recv_site,size_class,count,mean_s,min_s,max_s\n");
  for (size_t i = 0; i < S.cap && n < sizeof b; i++) {
    const cls *c = &S.tab[i];
    if (c->used)
      SM_PUT("%d,%d,0x%lx,0x%lx,%d,%.0f,%.9e,%.9e,%.9e\n", c->src, rp_g.rank,
             (unsigned long)c->ssite, (unsigned long)c->rsite, c->sclass,
             c->st.n, c->st.mean, c->st.min, c->st.max);
  }
  partial_file("sample", b, n > sizeof b ? sizeof b : n, !checkpoint);
  n = 0;
  SM_PUT("# revprof sample mode, PARTIAL (%s): rank %d of %d, the sender's "
         "time in the send calls that stamped a sampled message so far\n",
         reason, rp_g.rank, rp_g.size);
  SM_PUT("call,costed_as,rank,size_class,count,mean_s,min_s,max_s\n");
  for (size_t i = 0; i < S.ncalls && n < sizeof b; i++) {
    const ccls *c = &S.calls[i];
    SM_PUT("%s,%s,%d,%d,%.0f,%.9e,%.9e,%.9e\n",
           c->wid >= 0 && c->wid < RP_W_COUNT ? rp_wrap_name[c->wid] : "?",
           revprof_fn_name((revprof_fn)c->fn), rp_g.rank, c->sclass, c->st.n,
           c->st.mean, c->st.min, c->st.max);
  }
#undef SM_PUT
  partial_file("calls", b, n > sizeof b ? sizeof b : n, 0);
}

/* Removes this rank's partial reports of an earlier run. */
static void sm_report_startup(void) {
  char path[RP_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/sample.partial.rank%d.csv",
           rp_g.cfg.outdir, rp_g.rank);
  unlink(path);
  snprintf(path, sizeof path, "%s/calls.partial.rank%d.csv",
           rp_g.cfg.outdir, rp_g.rank);
  unlink(path);
}

/* REVPROF_MAX_OVERHEAD: the sampling rate halved (or doubled back up to
 * the technique the regulation started from). */
static int sm_regulate(int action, double share, double elapsed) {
  static rp_sample_spec orig;
  static int lowered;
  rp_sample_spec next, cur = rp_g.cfg.sample;
  char from[64], to[64], what[160];
  int ok;
  if (action == RP_IC_LOWER) {
    if (!lowered)
      orig = cur;
    ok = rp_ic_sample_lower(&cur, &next);
  } else
    ok = lowered && rp_ic_sample_raise(&cur, &orig, &next);
  if (!ok)
    return 0;
  double msgs = elapsed > 0.0 ? rp_icost_period_events(RP_IC_MPI) / elapsed
                              : 0.0;
  double f0 = rp_ic_sample_fraction(&cur, msgs);
  double f1 = rp_ic_sample_fraction(&next, msgs);
  double part = elapsed > 0.0 ? rp_icost_period_events(RP_IC_SAMPLE) *
                                    rp_g.ic_cost[RP_IC_SAMPLE] / elapsed
                              : 0.0;
  double after = f0 > 0.0 ? share - part + part * f1 / f0 : share;
  if (action == RP_IC_RAISE &&
      !rp_ic_fits(share, after - share, rp_g.cfg.max_overhead))
    return 0;
  rp_sample_format(&cur, from, sizeof from);
  rp_sample_format(&next, to, sizeof to);
  snprintf(what, sizeof what, "sampling %s (was %s)", to, from);
  rp_icost_decision(action == RP_IC_LOWER ? "lower" : "raise", what,
                    action == RP_IC_LOWER ? "observed cost over the bound"
                                          : "well under the bound",
                    share, after);
  sampler_set(&next);
  rp_g.cfg.sample = next;
  lowered += action == RP_IC_LOWER ? 1 : -1;
  if (lowered > 0)
    rp_report_flag("sample-lowered", "REVPROF_MAX_OVERHEAD lowered the "
                   "sampling on this rank (to %s at the end): fewer "
                   "samples, the same classes (cost-decisions.csv)", to);
  else
    rp_report_flag("sample-lowered", "REVPROF_MAX_OVERHEAD lowered the "
                   "sampling for a while and gave it back "
                   "(cost-decisions.csv)");
  return 1;
}

const rp_mode_ops rp_mode_sample = {
    .name = "sample",
    .what = "sampling",
    .configure = sm_configure,
    .startup = sm_startup,
    .report = sm_report,
    .report_partial = sm_report_partial,
    .report_startup = sm_report_startup,
    .cost_kinds = 1u << RP_IC_SAMPLE,
    .regulate = sm_regulate,
};
