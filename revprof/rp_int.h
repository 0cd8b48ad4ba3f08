/* Internals of librevprof shared by the engine, the piggyback layer, the
 * collectives, the report and the (generated and hand-written) wrappers.
 * Everything here has hidden visibility; only MPI_* and revprof_* leave
 * the shared library. */
#ifndef RP_INT_H
#define RP_INT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "revprof.h"
#include "revprof_model.h"
#include "rp_annotate.h"
#include "rp_clock.h"
#include "rp_config.h"
#include "rp_noise.h"
#include "rp_trace.h"
#include "rp_util.h" /* rp_mkdir_p, rp_grow */
#include "rp_wrap_ids.h" /* generated from wrappers.spec */

#define RP_EXPORT __attribute__((visibility("default")))
#if defined(__GNUC__)
#define RP_PRINTF_(a, b) __attribute__((format(printf, a, b)))
#define RP_LIKELY(x) __builtin_expect(!!(x), 1)
#define RP_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* thread-local state of a library that is preloaded or linked, never
   dlopen'ed late: the cheapest access (no __tls_get_addr call) */
#define RP_TLS __attribute__((tls_model("initial-exec")))
#else
#define RP_PRINTF_(a, b)
#define RP_LIKELY(x) (x)
#define RP_UNLIKELY(x) (x)
#define RP_TLS
#endif

/* ------------------------------------------------------------ piggyback */

/* What travels in front of every point-to-point message: the sender's
 * three clocks at the send start, then its MPI_COMM_WORLD rank and the
 * message's data bytes as one integer-valued double, rank * 2^32 + bytes
 * (exact below 2^53), so that a receiver that ignores the status needs no
 * MPI_Get_count. bytes 2^32 - 1 means "unknown: ask the status". */
#define RP_PB_DOUBLES 4
#define RP_PB_BYTES ((int)(RP_PB_DOUBLES * sizeof(double)))
#define RP_PB_META 3
#define RP_PB_NOSIZE 4294967295.0

static inline double rp_pb_meta(int rank, double bytes) {
  return (double)rank * 4294967296.0 +
         (bytes >= 0 && bytes < RP_PB_NOSIZE ? bytes : RP_PB_NOSIZE);
}
static inline int rp_pb_rank(const double *pb) {
  return (int)((uint64_t)pb[RP_PB_META] >> 32);
}
static inline double rp_pb_size(const double *pb) {
  return (double)((uint64_t)pb[RP_PB_META] & 0xffffffffu);
}

enum rp_enc {
  RP_ENC_NATIVE = 0, /* user arguments unchanged (MPI_PROC_NULL, bad args) */
  RP_ENC_PACK = 1,   /* [piggyback | data] copied, sent as MPI_PACKED */
  RP_ENC_STRUCT = 2  /* struct type {4 doubles at pb, count x type at buf} */
};

enum rp_req_kind {
  RP_REQ_SEND = 0, RP_REQ_RECV = 1, RP_REQ_COLL = 2, RP_REQ_IDUP = 3,
  RP_REQ_PSEND = 4, RP_REQ_PRECV = 5 /* partitioned (rp_part.c) */
};

#define RP_REQ_INLINE 128 /* bytes of pack space inside each record */

/* An operation in flight: a non-blocking or persistent request the
 * application holds (keyed by its handle), or the record of the blocking
 * call under way. */
typedef struct rp_req {
  struct rp_req *next;      /* hash chain, free list or zombie list */
  MPI_Request handle;       /* the application's request */
  const void *owner;        /* the rp_t of the thread that filed it */
  int kind;                 /* enum rp_req_kind */
  int enc;                  /* enum rp_enc */
  int wid;                  /* wrapper that started it (statistics) */
  revprof_fn fn;            /* model function of the completion rule */
  unsigned persistent : 1, active : 1, owns_type : 1, unpacked : 1,
      in_table : 1, blocking : 1, claimed : 1, sendrecv : 1,
      mpi_packed : 1, /* PACK whose data MPI_Unpack delivers */
      nbr : 1;        /* a persistent neighbourhood collective */
  /* the application's side */
  void *ubuf;               /* user buffer */
  int ucount;               /* user count */
  MPI_Datatype utype;       /* user datatype */
  double ubytes;            /* send: bytes sent; bytes */
  int peer_spec, tag_spec;  /* receive: source and tag as posted */
  MPI_Comm comm;
  /* what PMPI gets */
  void *wbuf;
  int wcount;
  MPI_Datatype wtype;
  char *pack;               /* [pb | data] buffer when enc == PACK */
  size_t packcap;           /* bytes */
  int pack_heap;            /* pack was malloc'ed */
  MPI_Datatype stype;       /* struct type when enc == STRUCT */
  struct rp_stype *sref;    /* the cached stype this record holds a
                               reference to (NULL: none, or owns_type) */
  double pb[RP_PB_DOUBLES]; /* the piggyback slot (struct types point here) */
  /* MPI_Isendrecv: this receive's send half, held until completion (NULL:
     it carried nothing), and the bytes it sent */
  struct rp_req *partner;
  double sr_send;
  /* non-blocking collectives and Comm_idup */
  MPI_Request sreq;         /* clock exchange (or shadow idup) request */
  MPI_Request preq;         /* persistent collectives: the exchange's own
                               persistent collective on the shadow */
  double cmine[RP_PB_DOUBLES], cmax[RP_PB_DOUBLES]; /* clocks + d, max */
  double p;                 /* group size */
  int root_dir, is_root;    /* rooted: RP_ROOT_OUT/IN (rp_clock.h), else 0 */
  double *nbr_in;           /* non-blocking neighbourhood collectives: the
                               in-neighbours' clocks (nbr_slots blocks of
                               RP_PB_DOUBLES), freed at completion */
  int nbr_slots;
  /* partitioned: the clocks' own message on the communicator's shadow,
     the partitions, how many are ready in this start */
  MPI_Comm side;
  int parts, nready;
  MPI_Comm *newcomm;        /* Comm_idup: where the new comm appears */
  MPI_Comm shadow_new;      /* Comm_idup: its shadow */
  char inl[RP_REQ_INLINE];  /* small pack buffers live here */
} rp_req;

/* Per-communicator data, cached as an MPI attribute. */
typedef struct rp_comm {
  MPI_Comm shadow; /* private duplicate for the clock exchange */
  int rank, size;  /* in the (local) group */
  int intra;       /* 0 for inter-communicators: no clock exchange */
} rp_comm;

/* Per-wrapper statistics (simulated avg clock). */
typedef struct rp_fstat {
  double calls;
  double bytes;    /* bytes sent or received (p2p), d (collectives) */
  double time;     /* seconds of simulated time inside the call */
  double wait;     /* of which waiting */
} rp_fstat;

/* A thread's records of the blocking call under way and its scratch: the
 * thread that initialized MPI uses rp_g.th0; under MPI_THREAD_MULTIPLE each
 * other thread that calls MPI gets its own at its first call (rp_mt.c). */
typedef struct rp_thr {
  rp_req bsend, brecv;         /* blocking operations under way */
  char *scratch_s, *scratch_r; /* their pack buffers (rp_g.scratch_cap) */
  rp_req **recs;               /* completion calls: records of a request */
  size_t recs_cap;             /* array, and statuses when the application */
  MPI_Status *st;              /* ignores them (rp_reqs_claim, */
  size_t st_cap;               /* rp_statuses_for) */
  struct rp_thr *next;         /* all threads' blocks, freed at shutdown */
} rp_thr;

/* Everything librevprof knows about this rank. One instance, rp_g, shared
 * by the threads: under MPI_THREAD_MULTIPLE a thread touches it only while
 * it holds the engine lock (rp_mt_*); what belongs to one call lives in
 * rp_t, per thread. */
typedef struct rp_state {
  int active;      /* wrappers do their work */
  int initialized; /* MPI_Init* wrapper ran */
  int finalized;   /* MPI_Finalize wrapper ran */
  int rank, size;  /* MPI_COMM_WORLD */
  int thread_level;
  const char *timer_name; /* what times measured gaps (rp_engine.c) */
  rp_config cfg;
  revprof_model *model;
  rp_annotate *lua;      /* NULL when REVPROF_LUA unset or after a fault */
  int lua_fault;         /* 1 after a Lua fault (reported once) */
  char lua_error[1024];  /* first Lua fault, for the report */
  rp_clock clk;
  rp_wild wild;
  rp_fstat fstat[RP_W_COUNT];
  double host_unc[RP_W_COUNT]; /* host seconds inside calls of kind
                                  uncosted (no cost rule: not predicted) */
  double host_start;           /* rp_host_seconds() at MPI_Init */
  int sessions;                /* MPI_Session_init succeeded (MPI 4) */
  int dynamic;                 /* processes outside MPI_COMM_WORLD may be
                                  reached: spawned, connected, a parent */
  revprof_fn eff[REVPROF_FN_COUNT]; /* model row used for each function */
  unsigned char missing[REVPROF_FN_COUNT]; /* used but not in the model */
  /* compute measurement */
  double cpu_mark;  /* CPU seconds at the last exit (when cpu_valid) */
  double wall_mark; /* monotonic seconds at the last exit */
  int cpu_valid;    /* cpu_mark was read (the gap was expected long) */
  int want_cpu;     /* read the CPU clock at the next exit */
  double ins_mark;  /* instructions at the last exit */
  int use_papi_ins; /* instruction counter running */
  rp_noise noise;   /* spread of measured compute (rp_noise.h) */
  rp_gap_tool gap_tool; /* revprof's own seconds inside each measured gap,
                           calibrated at MPI_Init */
  int short_run;    /* short measured gaps in a row (rp_gap_wants_cpu) */
  const char *spread_from; /* where cfg.compute_spread came from */
  int compute_auto; /* REVPROF_COMPUTE=auto (cfg.compute: what it chose) */
  double auto_calls; /* auto switched to annotate after this many calls */
  double auto_t;     /* ... at this avg clock, s; -1: it did not switch */
  int fast_copy;    /* memcpy produces MPI_Pack's format */
  double fast_max;  /* inline copy path up to this many bytes; -1: off */
  int tracing;      /* rp_trace_* active */
  int extras;       /* tracing or REVPROF_COMPUTE=measure: leave's slow part */
  rp_thr th0;       /* blocking records of the thread that initialized */
  size_t scratch_cap; /* bytes of each rp_thr pack buffer (0: none) */
  /* MPI_THREAD_MULTIPLE (rp_mt.c): on in every process when one has it */
  int mt;
  int inflight;     /* threads inside a wrapper */
  double overlap[RP_W_COUNT]; /* calls that began while another thread
                                 was inside one */
  double cm_other;  /* compensate: calls of other threads (not profiled) */
  rp_thr *threads;  /* blocks of the other threads */
  int partial_done; /* a partial report was written */
} rp_state;

extern rp_state rp_g;

/* The call under way, per thread. */
typedef struct rp_call {
  int in_tool;      /* re-entry guard: set while a wrapper runs */
  int poll;         /* the call under way is a poll (Iprobe, Test*): when it
                       costs nothing on the clocks, its host time counts
                       with the next gap */
  int held;         /* MPI_THREAD_MULTIPLE: this thread holds the lock */
  int alone;        /* ... and no other thread was inside a wrapper when
                       this call began */
  int main;         /* the thread that initialized MPI */
  double t0;        /* avg clock at entry, seconds */
  double cur_bytes;
  double cur_wait;
  rp_thr *th;       /* this thread's records; NULL: rp_g.th0 */
} rp_call;
extern _Thread_local rp_call rp_t RP_TLS;

static inline rp_thr *rp_th(void) {
  return RP_LIKELY(rp_t.th == NULL) ? &rp_g.th0 : rp_t.th;
}

/* Wrappers call PMPI directly when this is true. */
static inline int rp_bypass(void) {
  return !RP_LIKELY(rp_g.active) || rp_t.in_tool;
}

/* ------------------------------------------------------------ rp_mt.c */

/* Under MPI_THREAD_MULTIPLE (rp_g.mt) one lock guards rp_g and every table
 * of the engine: a wrapper takes it at rp_enter and gives it back at
 * rp_leave, and lets go of it around every MPI call that may wait for
 * another thread or process (RP_UNLOCKED), so that a thread blocked in MPI
 * never stops the others. Without MPI_THREAD_MULTIPLE these cost a branch. */
void rp_mt_startup(int provided);
void rp_mt_enter(rp_wid w); /* lock, this thread's records, overlap count */
void rp_mt_leave(void);
void rp_mt_lock(void);
void rp_mt_unlock(void);
/* Gives the lock back if this thread holds it; returns whether it did. */
static inline int rp_mt_off(void) {
  if (RP_LIKELY(!rp_g.mt) || !rp_t.held)
    return 0;
  rp_mt_unlock();
  return 1;
}
static inline void rp_mt_on(int was) {
  if (RP_UNLIKELY(was))
    rp_mt_lock();
}
/* Takes the lock unless this thread holds it (callbacks that MPI runs
 * inside a call made unlocked, the public API); returns whether it did. */
static inline int rp_mt_hold(void) {
  if (RP_LIKELY(!rp_g.mt) || rp_t.held)
    return 0;
  rp_mt_lock();
  return 1;
}
static inline void rp_mt_release(int took) {
  if (RP_UNLIKELY(took))
    rp_mt_unlock();
}
/* stmt runs without the lock (an MPI call that may block). */
#define RP_UNLOCKED(stmt)                                                   \
  do {                                                                      \
    int rp_was_ = rp_mt_off();                                              \
    stmt;                                                                   \
    rp_mt_on(rp_was_);                                                      \
  } while (0)
/* The report's "thread-order" flag (rp_shutdown), when calls overlapped. */
void rp_mt_report(void);
/* Frees the other threads' blocks (rp_p2p_shutdown). */
void rp_mt_shutdown(void);

/* ------------------------------------------------------- rp_engine.c */

/* Computation since the last MPI call, measured (REVPROF_COMPUTE=measure). */
void rp_measure_gap(void);
void rp_measure_mark(void);

/* Monotonic host seconds (the calls without a cost rule are timed by it). */
double rp_host_seconds(void);

/* rp_enter's part for tracing, REVPROF_COMPUTE=measure and compensate
 * mode (rp_g.extras), out of the predict fast path. */
void rp_enter_extras(rp_wid w);

/* rp_compensate.c: compensate mode. Startup after the model is loaded
 * (calibration; 0 or a negative code with a message); hooks of every MPI
 * wrapper (the delay travels in the clocks, see there); the report. */
int rp_cm_startup(const revprof_model *m, char *err, size_t errlen);
void rp_cm_enter(rp_wid w);
void rp_cm_leave(rp_wid w);
void rp_cm_report(void);
/* This rank's compensate profile so far, marked PARTIAL: reason
 * (compensate.partial.rank<r>.txt/.csv); no malloc. Startup removes old
 * ones. */
void rp_cm_report_partial(const char *reason);
void rp_cm_report_startup(void);

/* Start of a wrapper's work: guard on, computation since the last MPI call
 * (REVPROF_COMPUTE=measure) added, entry time taken. */
static inline void rp_enter(rp_wid w) {
  rp_t.in_tool = 1;
  if (RP_UNLIKELY(rp_g.mt))
    rp_mt_enter(w);
  if (rp_g.extras)
    rp_enter_extras(w);
  rp_t.t0 = rp_g.clk.now[RP_AVG];
  rp_t.cur_bytes = 0.0;
  rp_t.cur_wait = 0.0;
}

/* End: per-function statistics, trace state, guard off. */
/* rp_enter for a poll that may complete nothing (MPI_Iprobe, MPI_Test*):
 * under REVPROF_COMPUTE=measure a poll the model did not cost (the clocks
 * did not move) runs at host speed, its time counted with the next gap. */
static inline void rp_enter_poll(rp_wid w) {
  rp_enter(w);
  rp_t.poll = 1;
}
static inline void rp_leave(rp_wid w) {
  rp_fstat *f = &rp_g.fstat[w];
  double t1 = rp_g.clk.now[RP_AVG];
  f->calls += 1.0;
  f->bytes += rp_t.cur_bytes;
  f->time += t1 - rp_t.t0;
  f->wait += rp_t.cur_wait;
  if (rp_g.extras) {
    if (rp_g.tracing)
      rp_trace_state(rp_wrap_name[w], rp_t.t0, t1, rp_t.cur_bytes);
    /* the call itself is not computation; with threads, computation is
       host time while no thread is inside MPI */
    if (rp_g.cfg.compute == RP_COMPUTE_MEASURE &&
        !(rp_t.poll && t1 == rp_t.t0) && (!rp_g.mt || rp_g.inflight == 1))
      rp_measure_mark();
    rp_t.poll = 0;
    if (rp_g.cfg.mode == RP_MODE_COMPENSATE && (!rp_g.mt || rp_t.main))
      rp_cm_leave(w);
  }
  rp_t.in_tool = 0;
  if (RP_UNLIKELY(rp_g.mt))
    rp_mt_leave();
}

/* Model time of fn for p ranks and d bytes, with the documented fallbacks
 * when the model lacks fn (warned once); out = 0 when nothing applies. */
void rp_cost(revprof_fn fn, double p, double d, double out[RP_NB]);

/* The last result of rp_cost per function: repeated calls skip the model. */
typedef struct rp_lastcost {
  double p, d; /* NaN until the first call */
  double out[RP_NB];
  int outside; /* (p, d) is outside the model's measured range */
} rp_lastcost;
extern rp_lastcost rp_lastcost_tab[REVPROF_FN_COUNT];

/* Model uses outside the measured range of p and d, per called function on
 * this rank (rp_engine.c): counted per call, the factors found when rp_cost
 * evaluates the model (memo misses). */
typedef struct rp_extrap {
  double calls;  /* calls costed outside the range */
  double fp, fd; /* largest factor outside, in p and in d (1 = inside) */
  double p, d;   /* largest p and d among those calls */
} rp_extrap;
extern rp_extrap rp_extrap_tab[REVPROF_FN_COUNT];
/* Collective over comm (every rank calls it once, at the final report):
 * rank 0 gets the sums of calls and maxima of the rest in rp_extrap_tab. */
void rp_extrap_reduce(MPI_Comm comm);
/* The report's "extrapolated:" line (without the key) into buf: "none",
 * "not detected (...)" or "N calls: MPI_Allreduce 12 at p=64 (32x outside
 * the measured p 2..2), ...". Returns the total of extrapolated calls. */
double rp_extrap_text(char *buf, size_t len);
/* One CSV-ready description of fn's extrapolation into buf ("" if none);
 * returns its calls. */
double rp_extrap_fn_text(revprof_fn fn, char *buf, size_t len);

static inline void rp_cost_fast(revprof_fn fn, double p, double d,
                                double out[RP_NB]) {
  const rp_lastcost *l = &rp_lastcost_tab[fn];
  if (RP_LIKELY(l->d == d && l->p == p)) {
    out[0] = l->out[0];
    out[1] = l->out[1];
    out[2] = l->out[2];
    if (l->outside)
      rp_extrap_tab[fn].calls += 1.0;
  } else
    rp_cost(fn, p, d, out);
}

/* Called from MPI_Init* after PMPI succeeded: settings, model, agreement
 * among ranks, shadows, handlers. Leaves rp_g.active set or not. */
void rp_startup(int provided);
/* Called from MPI_Finalize before PMPI_Finalize. */
void rp_shutdown(void);

/* Warning to stderr, prefixed "revprof: " (and the rank when size > 1). */
void rp_warn(const char *fmt, ...) RP_PRINTF_(1, 2);

/* Datatype size (bytes) and whether memcpy of count * size bytes is the
 * same as packing it (a named, gap-free type); cached per handle. */
typedef struct rp_tinfo {
  double size;
  int plain;
} rp_tinfo;
rp_tinfo rp_type_info(MPI_Datatype t);
extern MPI_Datatype rp_last_type; /* the type rp_type_info saw last */
extern rp_tinfo rp_last_tinfo;
static inline rp_tinfo rp_type_info_fast(MPI_Datatype t) {
  return RP_LIKELY(t == rp_last_type) ? rp_last_tinfo : rp_type_info(t);
}
void rp_type_forget(MPI_Datatype t);
double rp_tsize(const void *type); /* rp_tsize_fn over an MPI_Datatype */
static inline int rp_inplace(const void *buf) { return buf == MPI_IN_PLACE; }

/* Bits of a handle, for hashing and comparing. */
static inline uint64_t rp_bits_req(MPI_Request r) {
  uint64_t k = 0;
  __builtin_memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
  return k;
}
static inline unsigned long rp_bits_comm(MPI_Comm c) {
  unsigned long k = 0;
  __builtin_memcpy(&k, &c, sizeof c < sizeof k ? sizeof c : sizeof k);
  return k;
}

/* Simulated-time trace and compute bookkeeping. */
void rp_add_compute(const double dt[RP_NB], const char *what);

/* ---------------------------------------------------------- rp_p2p.c */

void rp_p2p_startup(void);
void rp_p2p_shutdown(void);
/* A thread's blocking records and scratch (rp_thr), made and freed. */
void rp_thr_init(rp_thr *t);
void rp_thr_free(rp_thr *t);

rp_req *rp_req_new(void);
/* After the PMPI call that created *request: files the record under the
 * handle, or drops it when the call failed. */
void rp_req_post(rp_req *r, int rc, MPI_Request *request);
/* The oldest record filed under h. Handles are not unique: Open MPI hands
 * out one shared handle for operations that completed at once. */
rp_req *rp_req_find(MPI_Request h);
/* Same, skipping records claimed by this call already, and claims the one
 * returned (array completions: duplicates get distinct records). */
rp_req *rp_req_claim(MPI_Request h);
/* What a Wait or Test takes: rp_req_find; with threads rp_req_claim, the
 * claim kept (like those of rp_reqs_claim) until rp_reqs_unclaim after the
 * completion has run. */
rp_req *rp_req_take(MPI_Request h);
void rp_reqs_unclaim(rp_req **recs, int n);
/* A completion call reported the request done with status st (the
 * library's status; want_status: the application looks at it). Runs the
 * completion rule, unpacks, fixes the status, releases the record unless it
 * is persistent. */
void rp_req_done(rp_req *r, MPI_Status *st, int want_status);
/* MPI_Request_get_status saw it complete: deliver data and status early. */
void rp_req_peek(rp_req *r, MPI_Status *st, int want_status);
/* MPI_Start on a persistent request. */
void rp_req_start(rp_req *r);
/* MPI_Request_free on a request revprof knows. */
int rp_req_free_user(rp_req *r, MPI_Request *request);
/* Progress of requests the application freed while active. */
void rp_zombies_progress(int final);

/* The completion calls (Wait*, Test*: kinds complete_* of wrappers.spec).
 * Records of n requests, NULL for the ones revprof does not know (*found
 * counts the known ones; NULL when out of memory); statuses to pass to
 * PMPI (the application's, or scratch when it ignores them but revprof
 * needs them); whether array entry st completed without error; the
 * records of a Waitsome/Testsome, whose statuses follow the indices. */
rp_req **rp_reqs_claim(int n, const MPI_Request reqs[], int *found);
MPI_Status *rp_statuses_for(int n, MPI_Status *user, int found);
int rp_completed_ok(int rc, const MPI_Status *st);
void rp_done_some(rp_req **recs, int found, int rc, int outcount,
                  const int *indices, MPI_Status *st, int want);

/* Sends: r NULL for a blocking call (uses the built-in record). The
 * inline versions below handle the common blocking case (small gap-free
 * data to a real peer) without calls; everything else goes here. */
rp_req *rp_send_begin_slow(rp_req *r, rp_wid w, revprof_fn fn,
                           const void *buf, int count, MPI_Datatype type,
                           int dest, MPI_Comm comm);
rp_req *rp_send_init(rp_wid w, revprof_fn fn, const void *buf, int count,
                     MPI_Datatype type, int dest, MPI_Comm comm);
rp_req *rp_recv_begin_slow(rp_req *r, rp_wid w, revprof_fn fn, void *buf,
                           int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm);
void rp_recv_end_slow(rp_req *r, int rc, MPI_Status *st, int want_status);
/* After a receive's rule: wildcard bookkeeping and the trace message. */
void rp_recv_after(rp_req *r, const MPI_Status *st, const double *pb,
                   const double lat[RP_NB], double bytes);
rp_req *rp_recv_init(rp_wid w, revprof_fn fn, void *buf, int count,
                     MPI_Datatype type, int source, int tag, MPI_Comm comm);

/* memcpy for the copy path: payloads of up to 16 bytes (the latency-bound
 * ones) without a library call, as two possibly overlapping moves. */
static inline void rp_copy(void *dst, const void *src, size_t n) {
  char *d = dst;
  const char *s = src;
  if (n >= 8 && n <= 16) {
    uint64_t a, b;
    __builtin_memcpy(&a, s, 8);
    __builtin_memcpy(&b, s + n - 8, 8);
    __builtin_memcpy(d, &a, 8);
    __builtin_memcpy(d + n - 8, &b, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t a, b;
    __builtin_memcpy(&a, s, 4);
    __builtin_memcpy(&b, s + n - 4, 4);
    __builtin_memcpy(d, &a, 4);
    __builtin_memcpy(d + n - 4, &b, 4);
  } else if (n < 4) {
    for (size_t i = 0; i < n; i++)
      d[i] = s[i];
  } else
    __builtin_memcpy(d, s, n);
}

/* Sends the wrapper passes to PMPI as (r->wbuf, r->wcount, r->wtype). */
static inline rp_req *rp_send_begin(rp_req *r, rp_wid w, revprof_fn fn,
                                    const void *buf, int count,
                                    MPI_Datatype type, int dest,
                                    MPI_Comm comm) {
  if (r == NULL && type == rp_last_type && rp_last_tinfo.plain &&
      count >= 0 && dest != MPI_PROC_NULL && !rp_g.dynamic) {
    double bytes = (double)count * rp_last_tinfo.size;
    if (bytes <= rp_g.fast_max) { /* copy path, blocking record */
      rp_req *b = &rp_th()->bsend;
      double cost[RP_NB];
      double *pb = (double *)(void *)b->pack; /* malloc'ed: aligned */
      rp_cost_fast(fn, 2.0, bytes, cost);
      rp_clock_send(&rp_g.clk, cost, pb);
      pb[RP_PB_META] = rp_pb_meta(rp_g.rank, bytes);
      rp_copy(b->pack + RP_PB_BYTES, buf, (size_t)bytes);
      b->enc = RP_ENC_PACK;
      b->wbuf = b->pack;
      b->wcount = (int)bytes + RP_PB_BYTES;
      b->wtype = MPI_PACKED;
      rp_t.cur_bytes += bytes;
      return b;
    }
  }
  return rp_send_begin_slow(r, w, fn, buf, count, type, dest, comm);
}

static inline void rp_send_end(rp_req *r, int rc) {
  (void)r;
  (void)rc;
}

/* Receives: the wrapper passes (r->wbuf, r->wcount, r->wtype) to PMPI. */
static inline rp_req *rp_recv_begin(rp_req *r, rp_wid w, revprof_fn fn,
                                    void *buf, int count, MPI_Datatype type,
                                    int source, int tag, MPI_Comm comm) {
  if (r == NULL && type == rp_last_type && rp_last_tinfo.plain &&
      count >= 0 && source != MPI_PROC_NULL && !rp_g.dynamic) {
    double cap = (double)count * rp_last_tinfo.size;
    if (cap <= rp_g.fast_max) {
      rp_req *b = &rp_th()->brecv; /* only what rp_recv_end's fast path reads */
      b->fn = fn;
      b->ubuf = buf;
      b->peer_spec = source;
      b->tag_spec = tag;
      b->comm = comm;
      b->enc = RP_ENC_PACK;
      b->unpacked = 0;
      b->wbuf = b->pack;
      b->wcount = (int)cap + RP_PB_BYTES;
      b->wtype = MPI_PACKED;
      return b;
    }
  }
  return rp_recv_begin_slow(r, w, fn, buf, count, type, source, tag, comm);
}

/* The status to give PMPI: the application's; else none at all when the
 * copy path needs nothing from it (the size travels in the piggyback; no
 * wildcard to record, no trace); else revprof's own. */
static inline MPI_Status *rp_recv_status(const rp_req *r, MPI_Status *user,
                                         MPI_Status *local) {
  if (user != MPI_STATUS_IGNORE)
    return user;
  if (r->enc == RP_ENC_PACK && r->blocking &&
      r->peer_spec != MPI_ANY_SOURCE && !rp_g.tracing)
    return MPI_STATUS_IGNORE;
  return local;
}

/* After the PMPI receive: data and piggyback out, status corrected (when
 * want_status), receive rule applied. st may be MPI_STATUS_IGNORE only as
 * rp_recv_status allows. */
static inline void rp_recv_end(rp_req *r, int rc, MPI_Status *st,
                               int want_status) {
  if (rc == MPI_SUCCESS && r->enc == RP_ENC_PACK && r->blocking) {
    double pb[RP_PB_DOUBLES], cost[RP_NB], lat[RP_NB];
    __builtin_memcpy(pb, r->pack, RP_PB_BYTES);
    double d = rp_pb_size(pb), cap = (double)(r->wcount - RP_PB_BYTES);
    int n = 0;
    if (st == MPI_STATUS_IGNORE) {
      if (d > cap) /* cannot be: more would have been a truncation error */
        d = cap;
    } else if (d > cap || want_status) {
      if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n < RP_PB_BYTES)
        goto slow; /* no piggyback? let the general path say so */
      d = n - RP_PB_BYTES;
      if (want_status)
        PMPI_Status_set_elements(st, MPI_BYTE, n - RP_PB_BYTES);
    }
    rp_copy(r->ubuf, r->pack + RP_PB_BYTES, (size_t)d);
    rp_cost_fast(r->fn, 2.0, d, cost);
    rp_cost_fast(REVPROF_FN_LATENCY, 2.0, d, lat);
    rp_t.cur_wait += rp_clock_recv(&rp_g.clk, cost, pb, lat);
    rp_t.cur_bytes += d;
    if (r->peer_spec == MPI_ANY_SOURCE || rp_g.tracing)
      rp_recv_after(r, st, pb, lat, d);
    return;
  }
slow:
  rp_recv_end_slow(r, rc, st, want_status);
}

/* Removes the piggyback from a probed message's status (count - 32 B). */
void rp_status_unpiggyback(MPI_Status *st, MPI_Comm comm);
/* A message matched by MPI_(I)mprobe on comm: remembered when comm reaches
 * another job, so that its MPI_(I)mrecv is native. */
void rp_message_probed(MPI_Message message, MPI_Comm comm);

/* MPI_Sendrecv and MPI_Sendrecv_replace (request NULL), MPI_Isendrecv and
 * MPI_Isendrecv_replace (MPI 4); w: the wrapper, for the statistics. */
int rp_sendrecv(rp_wid w, const void *sendbuf, int sendcount,
                MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                MPI_Comm comm, MPI_Status *status, int replace,
                MPI_Request *request);

/* Mrecv / Imrecv: receive a matched message (request NULL: blocking). */
int rp_mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
             MPI_Status *status, MPI_Request *request);

/* ------------------------------------------------ MPI-4 large counts */

/* MPI_Count arrays are read as 64-bit integers (rp_counts). */
_Static_assert(sizeof(MPI_Count) == 8, "MPI_Count is not 64 bits");

/* Whether a large-count argument fits the int path. */
static inline int rp_fits_int(MPI_Count n) {
  return n >= INT_MIN && n <= INT_MAX;
}

/* A point-to-point (count, type) of a _c binding as the int path takes it:
 * the same when count fits in an int, else one element of a contiguous
 * type of count elements (same type signature, so any binding on the
 * other side matches it), freed by rp_big_out once the call is posted. */
typedef struct rp_bigc {
  int count;
  MPI_Datatype type;
  MPI_Datatype made; /* MPI_DATATYPE_NULL: none */
} rp_bigc;
void rp_big_make(rp_bigc *b, MPI_Count count, MPI_Datatype type);
void rp_big_out(rp_bigc *b);
static inline void rp_big_in(rp_bigc *b, MPI_Count count, MPI_Datatype type) {
  b->made = MPI_DATATYPE_NULL;
  b->count = (int)count;
  b->type = type;
  if (!rp_fits_int(count))
    rp_big_make(b, count, type);
}

/* The MPI_Type_free wrapper: forget cached types built on t. */
void rp_p2p_type_freed(MPI_Datatype t);

/* Bsend buffer: revprof attaches a larger one so piggybacks fit. */
int rp_buffer_attach(void *buf, int size);
int rp_buffer_detach(void *addr, int *size);

/* ---------------------------------------------------------- rp_coll.c */

void rp_coll_startup(void);
void rp_coll_shutdown(void);

/* 1 when comm reaches a process outside this job's MPI_COMM_WORLD (a
 * spawned or connected job, or the parent: it may not run revprof), so
 * messages on it go without piggyback and its collectives are costed
 * locally. Only asked when rp_g.dynamic; cached on comm. */
int rp_comm_foreign(MPI_Comm comm);

/* ---------------------------------------------------------- rp_rma.c */

/* One-sided rules (predict mode; no-ops without a model): the window
 * attribute key, a window's clock state at its creation, an operation of
 * d bytes (fn: REVPROF_FN_PUT, _GET, _ACCUMULATE), and the synchronizations. */
void rp_rma_startup(void);
void rp_rma_shutdown(void);
void rp_rma_created(MPI_Win win, MPI_Comm comm);
void rp_rma_op(MPI_Win win, revprof_fn fn, double d);
void rp_rma_fence(MPI_Win win);
void rp_rma_post(MPI_Group group, MPI_Win win);
void rp_rma_start(MPI_Group group, MPI_Win win);
void rp_rma_complete(MPI_Win win);
void rp_rma_wait(MPI_Win win);
void rp_rma_test(MPI_Win win, int flag);
void rp_rma_unlock(MPI_Win win);
void rp_rma_flush(MPI_Win win);
/* ----------------------------------------------------------- rp_io.c */

/* MPI-IO rules (rp_io.c; the open and close wrappers live there too): a
 * data access of wrapper w on fh costed by the model's fn with d bytes,
 * collective (coll: the clocks meet over the file's group) or not; rc the
 * call's result, host its host seconds (counted as not predicted where the
 * model has no row for fn). fn REVPROF_FN_COUNT: costs nothing. */
void rp_io_access(rp_wid w, MPI_File fh, revprof_fn fn, double d, int coll,
                  int rc, double host);
void rp_io_shutdown(void);
/* 1 when wrapper w's calls are not predicted in this run: no cost rule,
 * or an I/O call whose row the model lacks (rp_wrap_uncosted). */
int rp_uncosted(rp_wid w);

/* ---------------------------------------------------------- rp_nbr.c */

/* A blocking neighbourhood collective fn of d bytes per block on the
 * topology communicator comm (predict mode; no-op without a model or a
 * topology): the clocks meet the in-neighbours', the model's fn at
 * p = neighbours + 1 is added. */
void rp_nbr_meet(MPI_Comm comm, revprof_fn fn, double d);
/* The same for a non-blocking one: the clocks go to the out-neighbours by
 * an MPI_Ineighbor_allgather started now; rp_inbr_done (at completion)
 * applies now = max(now, max(own, in-neighbours' starts) + T_fn(k + 1, d)).
 * NULL (nothing to do) without a model or a topology. */
rp_req *rp_inbr_begin(MPI_Comm comm, rp_wid w, revprof_fn fn, double d);
/* A persistent one (MPI 4 MPI_Neighbor_*_init): the record, and each start
 * (from rp_req_start) sending the clocks of that start. */
rp_req *rp_pnbr_init(MPI_Comm comm, rp_wid w, revprof_fn fn, double d);
void rp_pnbr_start(rp_req *r);
void rp_inbr_done(rp_req *r);
/* Bytes per block of a v/w neighbourhood alltoall on comm: the mean over
 * its out-neighbour slots of counts[i] elements of types[i] (types NULL:
 * all of type). */
double rp_nbr_mean_bytes(MPI_Comm comm, rp_counts counts,
                         const MPI_Datatype *types, MPI_Datatype type);

/* the larger of two sizes (spec SIZE expressions) */
#define RP_MAXD(a, b) ((a) > (b) ? (a) : (b))
/* Fills c for comm, creating its shadow on first use (blocking
 * collectives: every member is in the same call). */
void rp_coll_start(rp_comm *c, MPI_Comm comm);
/* Same for non-blocking collectives: never blocks; without a shadow the
 * clocks are not combined (warned once). */
void rp_coll_start_nb(rp_comm *c, MPI_Comm comm);
/* A blocking collective's clock exchange: the members' start clocks and d
 * (maximum), then now = max(starts) + T_fn(p, d). rp_coll_post exchanges
 * them before the application's collective, rp_coll_finish applies the
 * rule after it. */
typedef struct rp_coll_ex {
  double v[RP_PB_DOUBLES]; /* start clocks and d; the maximum after */
  revprof_fn fn;
  double p;
  int synced; /* 1: exchanged by a blocking allreduce on the shadow, which
                 every member enters before any leaves: a barrier */
} rp_coll_ex;
/* This member's start clocks and d, as every exchange sends them */
static inline void rp_my_clocks(double d, double v[RP_PB_DOUBLES]) {
  __builtin_memcpy(v, rp_g.clk.now, sizeof rp_g.clk.now);
  v[RP_NB] = d;
}
void rp_coll_post(rp_comm *c, revprof_fn fn, double d, rp_coll_ex *x);
void rp_coll_finish(rp_coll_ex *x);
/* Rooted collectives (MPI_Bcast, MPI_Scatter(v), MPI_Reduce, MPI_Gather(v)
 * and their non-blocking forms) exchange only what their data carries: the
 * root's clocks to the others, or everyone's maximum to the root; each
 * member then knows what rp_root_known says. The direction of fn's data
 * (RP_ROOT_OUT, RP_ROOT_IN; 0 for a collective that is not rooted). */
int rp_coll_root_dir(revprof_fn fn);
void rp_coll_post_rooted(rp_comm *c, revprof_fn fn, double d, int root,
                         rp_coll_ex *x);
/* rp_coll_fold.c: the same exchange inside the application's call; 1 when
 * done so (rc: the call's return code), 0 when the call does not fold and
 * nothing was done. Every member decides alike. */
int rp_fold_MPI_Allgather(rp_comm *c, revprof_fn fn, double d, int *rc,
                          const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm);
int rp_fold_MPI_Alltoall(rp_comm *c, revprof_fn fn, double d, int *rc,
                         const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm);
int rp_fold_MPI_Allreduce(rp_comm *c, revprof_fn fn, double d, int *rc,
                          const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int rp_fold_MPI_Reduce(rp_comm *c, revprof_fn fn, double d, int *rc,
                       const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm);
int rp_fold_MPI_Bcast(rp_comm *c, revprof_fn fn, double d, int *rc,
                      void *buffer, int count, MPI_Datatype datatype, int root,
                      MPI_Comm comm);
int rp_fold_MPI_Scatter(rp_comm *c, revprof_fn fn, double d, int *rc,
                        const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm);
int rp_fold_MPI_Gather(rp_comm *c, revprof_fn fn, double d, int *rc,
                       const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm);
void rp_fold_finalize(void);
/* Non-blocking collective: starts the clock exchange; the rule runs when
 * the application's request completes. */
rp_req *rp_icoll_begin(rp_comm *c, rp_wid w, revprof_fn fn, double d);
rp_req *rp_icoll_begin_rooted(rp_comm *c, rp_wid w, revprof_fn fn, double d,
                              int root);
void rp_icoll_done(rp_req *r);
/* A persistent collective's record (inactive; root -1: not rooted), and
 * the clock exchange of each of its starts (from rp_req_start). */
rp_req *rp_pcoll_init(rp_comm *c, rp_wid w, revprof_fn fn, double d,
                      int root);
void rp_pcoll_start(rp_req *r);
/* A communicator-creating call returned newcomm (MPI_COMM_NULL ignored). */
void rp_comm_created(MPI_Comm newcomm);
MPI_Comm rp_world_shadow(void);
/* The clocks of comm's p members meet (an allreduce of clocks and d on
 * comm, which every member calls), then fn at p and the largest d is
 * added: the rule of the collectives revprof costs on a private
 * communicator (a fence, file open/close and collective access). */
void rp_coll_meet_on(MPI_Comm comm, int p, revprof_fn fn, double d);
/* comm's shadow (intra-communicators revprof saw), else MPI_COMM_NULL;
 * never creates one (not collective). */
MPI_Comm rp_comm_shadow(MPI_Comm comm);

/* ---------------------------------------------------------- rp_part.c */

/* Partitioned communication (MPI 4): a start of the request (rp_req_start)
 * and its completion (rp_req_done). */
void rp_part_start(rp_req *r);
void rp_part_done(rp_req *r);
/* Comm_idup: second idup of the parent for the shadow. */
rp_req *rp_idup_begin(MPI_Comm comm, MPI_Comm *newcomm);
void rp_idup_done(rp_req *r);

/* -------------------------------------------------------- rp_report.c */

/* Marks the run as degraded or partly guessed (a feature turned off after
 * a fault, a fallback, an extrapolation, no computation, nothing
 * intercepted, ...). key: a short lowercase word ([a-z0-9-], e.g.
 * "extrapolated", "compute"); fmt: one line (printf). The same key again
 * replaces this rank's text. Callable at any time from the thread that
 * calls MPI, not from a signal handler. Rank 0 merges all ranks' flags:
 * each distinct (key, text) is printed in the first lines of report.txt,
 * "flags:" block, with the number of ranks that set it, and written to
 * report.csv as rows flags,all,<key;key;...>,<n> and
 * flag,all,"<key>: <text>",<ranks>; partial reports show this rank's. */
void rp_report_flag(const char *key, const char *fmt, ...) RP_PRINTF_(2, 3);

/* Rewrites the report's settings line (after REVPROF_COMPUTE=auto chose
 * again). */
void rp_report_settings(void);
/* Rank 0 writes report.txt / report.csv (and stderr) from all ranks. */
void rp_report_final(void);
/* This rank's PARTIAL report (async-signal-safe as far as possible). */
void rp_report_partial(const char *reason);
/* Rank 0's report of a run that revprof did not predict at all (STATUS
 * its status line, KEY: WHAT its one flag), stderr too unless quiet;
 * without MPI calls, so usable at exit and when revprof turned off. */
void rp_report_unpredicted(const char *status, const char *key,
                           const char *what, int size, int echo);
/* Paths, handlers; called from rp_startup. */
void rp_report_startup(void);
void rp_report_shutdown(void);

#endif
