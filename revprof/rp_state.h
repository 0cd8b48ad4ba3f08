/* The core of librevprof's engine, below every other layer (docs/design.md):
 * the per-rank state (rp_g) and the call under way (rp_t), the request
 * record, the engine lock (rp_mt.c), model costs, datatype sizes, timers,
 * report flags (rp_state.c), communicator info (rp_comm.c) and the table
 * of hooks a mode plugs in (rp_mode_ops). Everything here has hidden
 * visibility; only MPI_* and revprof_* leave the shared library. */
#ifndef RP_STATE_H
#define RP_STATE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "revprof.h"
#include "revprof_model.h"
#include "rp_annotate.h"
#include "rp_clock.h"
#include "rp_config.h"
#include "rp_flags.h"
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
 * MPI_Get_count. bytes 2^32 - 1 means "unknown: ask the status". Then the
 * message's number among those the sender sent to this receiver (its
 * entry in the sender's log, rp_match.c), -1 when not logged. */
#define RP_PB_DOUBLES 5
#define RP_PB_BYTES ((int)(RP_PB_DOUBLES * sizeof(double)))
#define RP_PB_META 3
#define RP_PB_SEQ 4
/* What collectives' clock exchanges carry: the three clocks and d. */
#define RP_XCH_DOUBLES 4
#define RP_XCH_BYTES ((int)(RP_XCH_DOUBLES * sizeof(double)))
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

enum rp_def_state {
  RP_DEF_NONE = 0,    /* an ordinary request */
  RP_DEF_PENDING = 1, /* deferred: nothing posted to the MPI yet */
  RP_DEF_INNER = 2,   /* left to the MPI's order: inner posted */
  RP_DEF_DONE = 3     /* received; the generalized request completed */
};

enum rp_req_kind {
  RP_REQ_SEND = 0, RP_REQ_RECV = 1, RP_REQ_COLL = 2, RP_REQ_IDUP = 3,
  RP_REQ_PSEND = 4, RP_REQ_PRECV = 5, /* partitioned (rp_part.c) */
  RP_REQ_KINDS
};

#define RP_REQ_INLINE 128 /* bytes of pack space inside each record */

/* A message a synchronous send (or a standard one at or above the model's
 * eager limit) logged, for the rendezvous rule
 * (rp_match_rendezvous): to world rank w, on cid with tag, the k-th from
 * this rank there, departing at t (valid 0: none). */
typedef struct rp_rdv_key {
  int valid, w, cid, tag;
  uint64_t k;
  double t[RP_NB];
} rp_rdv_key;

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
      nbr : 1,        /* a persistent neighbourhood collective */
      comm_gone : 1;  /* the application freed comm while this was pending:
                         no MPI call may name it (MPICH: an invalid handle) */
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
  unsigned char sflag[8];   /* sample mode: the piggyback on the wire, its
                               flag first (rp_sample.h); struct types point
                               here */
  MPI_Comm sshadow;         /* sample mode, comm_gone: comm's shadow, kept
                               for the stamps still to come on it */
  rp_rdv_key rdv;           /* MPI_Issend: its message */
  double t_mark[RP_NB];     /* with the model's overlap rows: a send's
                               message has left (t_send + gap); a receive
                               was posted (rp_arrival_at) */
  /* MPI_Isendrecv: this receive's send half, held until completion (NULL:
     it carried nothing), and the bytes it sent */
  struct rp_req *partner;
  double sr_send;
  /* non-blocking collectives and Comm_idup */
  MPI_Request sreq;         /* clock exchange (or shadow idup) request */
  MPI_Request preq;         /* persistent collectives: the exchange's own
                               persistent collective on the shadow */
  double cmine[RP_XCH_DOUBLES], cmax[RP_XCH_DOUBLES]; /* clocks + d, max */
  double p;                 /* group size */
  int root_dir, is_root;    /* rooted: RP_ROOT_OUT/IN (rp_clock.h), else 0 */
  double *nbr_in;           /* non-blocking neighbourhood collectives: the
                               in-neighbours' clocks (nbr_slots blocks of
                               RP_XCH_DOUBLES), freed at completion */
  int nbr_slots;
  /* partitioned: the clocks' own message on the communicator's shadow,
     the partitions, how many are ready in this start */
  MPI_Comm side;
  int parts, nready;
  MPI_Comm *newcomm;        /* Comm_idup: where the new comm appears */
  MPI_Comm shadow_new;      /* Comm_idup: its shadow */
  /* a non-blocking receive from MPI_ANY_SOURCE deferred until its message
     is decided in predicted time (rp_p2p.c, "Deferred wildcard receives"):
     the application holds a generalized request (handle) meanwhile */
  int dstate;               /* enum rp_def_state */
  MPI_Request inner;        /* RP_DEF_INNER: the real receive posted */
  MPI_Status dst;           /* the real receive's status, for the query */
  struct rp_req *qnext;     /* RP_DEF_PENDING: next in posting order */
  char inl[RP_REQ_INLINE];  /* small pack buffers live here */
} rp_req;

/* Per-communicator data, cached as an MPI attribute. */
typedef struct rp_comm {
  MPI_Comm shadow; /* private duplicate for the clock exchange */
  int rank, size;  /* in the (local) group */
  int intra;       /* 0 for inter-communicators: no clock exchange */
  int inter;       /* an inter-communicator (its collectives: flagged) */
  int cid;         /* id its members agree on, for the message log of
                      wildcard receives (rp_match.c); -1: none */
  int *world;      /* MPI_COMM_WORLD rank of each member (NULL: the
                      identity, or cid < 0) */
  uint64_t syncs;  /* collectives of rp_coll_start_sync begun on it */
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
  /* the receives and sends one completion call completes, settled
     together at its end (rp_batch_begin, rp_batch_settle) */
  rp_arrival *arr;
  size_t narr, arr_cap;
  int batching;
  int nsent;
  int nserial;                 /* receives charged by the old rule */
  double sent[RP_NB];          /* the latest t_mark of its sends */
  struct rp_thr *next;         /* all threads' blocks, freed at shutdown */
} rp_thr;

/* A mode of the interception (predict, compensate; rp_mode.h lists them):
 * the hooks the engine runs, chosen once at MPI_Init (rp_g.mode). A NULL
 * hook does nothing. Only the thread that initialized MPI runs enter and
 * leave (its profile is the mode's). A new mode is a new file defining one
 * of these and a line in rp_engine.c's table. */
typedef struct rp_mode_ops {
  const char *name; /* its REVPROF_MODE value */
  const char *what; /* what it does, for messages ("compensation") */
  /* the clocks are a simulated time (revprof_now, the monitor's "clock"
     event); 0: they carry the mode's own figures (compensate's delays) */
  int simulates;
  /* Settings read and model loaded: adjust the settings, take the model
     (*model NULL afterwards: every MPI call costs 0 s on the clocks). */
  void (*configure)(rp_config *cfg, revprof_model **model);
  /* End of MPI_Init, every layer ready, the hooks live (calibration):
     0, or a negative code and a message (revprof then turns off). */
  int (*startup)(char *err, size_t errlen);
  /* Start and end of each MPI call (rp_enter_extras and rp_leave: only
     when rp_g.extras is set, which a mode with these hooks forces). */
  void (*enter)(rp_wid w);
  void (*leave)(rp_wid w);
  /* MPI_Finalize: the final report (collective over MPI_COMM_WORLD). */
  void (*report)(void);
  /* This rank's report so far, on a fatal signal or exit without
     MPI_Finalize (no malloc), or as a checkpoint (checkpoint 1: files only,
     nothing said); and the removal of the rank's partial files (an
     earlier run's at MPI_Init, the checkpoint after the final report);
     NULL: the report writer's own (rp_report.h). */
  void (*report_partial)(const char *reason, int checkpoint);
  void (*report_startup)(void);
  /* The instrumentation cost model (rp_icost.h): the event kinds the mode
     has (bits 1 << rp_ic_kind; the MPI calls are always there), and its
     regulation under REVPROF_MAX_OVERHEAD: after a period whose observed
     cost was share (of one CPU) over elapsed seconds, lower (action
     RP_IC_LOWER) or give back (RP_IC_RAISE) its own cost, each change
     logged with rp_icost_decision; returns the number of things changed
     (0: nothing could). NULL: nothing to regulate. */
  unsigned cost_kinds;
  int (*regulate)(int action, double share, double elapsed);
} rp_mode_ops;

/* The wrapped entry points a mode may call to time revprof itself
 * (compensate's calibration), given by the MPI_Init wrapper: the engine
 * never calls up into the wrappers by name. */
typedef struct rp_entries {
  double (*wtime)(void);
  int (*sendrecv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status);
} rp_entries;

/* Everything librevprof knows about this rank. One instance, rp_g, shared
 * by the threads: under MPI_THREAD_MULTIPLE a thread touches it only while
 * it holds the engine lock (rp_mt_*); what belongs to one call lives in
 * rp_t, per thread. */
typedef struct rp_state {
  int active;      /* wrappers do their work */
  int initialized; /* MPI_Init* wrapper ran */
  int finalized;   /* MPI_Finalize wrapper ran */
  int rank, size;  /* in world */
  MPI_Comm world;  /* the application's MPI_COMM_WORLD: MPI_COMM_WORLD,
                      or its ranks' own communicator beside the tool ranks
                      of monitoring (rp_monitor.c), or, in a sessions
                      program, revprof's own from mpi://WORLD */
  int remap;       /* 1 when world is not MPI_COMM_WORLD: every wrapper
                      maps the application's MPI_COMM_WORLD to it */
  MPI_Comm node;   /* world's ranks on this host (MPI_COMM_TYPE_SHARED),
                      made once at MPI_Init for every module that asks
                      (compensate's and sample's one clock, predict's
                      published states, the oversubscribed flag);
                      MPI_COMM_NULL where the split failed */
  int node_rank, node_size; /* in node; 0 and 0 without it */
  int thread_level;
  void (*mon_poll)(void); /* monitoring's look at its timer and queue at
                             every call's end (NULL: off; rp_monitor.c) */
  const char *timer_name; /* what times measured gaps (rp_engine.c) */
  rp_config cfg;
  revprof_model *model;
  rp_annotate *lua;      /* NULL when REVPROF_LUA unset or after a fault */
  int lua_fault;         /* 1 after a Lua fault (reported once) */
  char lua_error[1024];  /* first Lua fault, for the report */
  rp_clock clk;
  rp_wild wild;
  long rendezvous; /* synchronous sends the rendezvous rule costed */
  long rdv_std;    /* standard sends it costed (at or above eager_limit) */
  long rdv_std_missed; /* standard sends at or above eager_limit it could
                          not cost (costed as eager: flag eager-guess) */
  double eager_limit; /* predict mode: the model's machine.eager_limit,
                         from which standard sends get the rendezvous rule;
                         INFINITY without one (none, unknown, other modes) */
  rp_fstat fstat[RP_W_COUNT];
  double host_unc[RP_W_COUNT]; /* host seconds inside calls of kind
                                  uncosted (no cost rule: not predicted) */
  double host_start;           /* rp_host_seconds() at MPI_Init */
  int sessions;                /* MPI_Session_init succeeded (MPI 4) */
  int by_session;              /* revprof started at MPI_Session_init:
                                  world is its own, from mpi://WORLD */
  int dynamic;                 /* processes outside MPI_COMM_WORLD may be
                                  reached: spawned, connected, a parent */
  revprof_fn eff[REVPROF_FN_COUNT]; /* model row used for each function */
  unsigned char missing[REVPROF_FN_COUNT]; /* used but not in the model */
  /* compute measurement */
  double cpu_mark;  /* CPU seconds at the last exit (when cpu_valid) */
  double cpu_anchor; /* CPU seconds at the CPU clock's last read */
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
  double load_p;    /* > 0: the model has "gap_all" and REVPROF_CONTENTION
                       is world: a message's bytes drain at the rate of
                       load_p ranks sending at once (rp_cost) */
  int epoch_load;   /* the model has "gap" and "gap_all" and
                       REVPROF_CONTENTION is epoch: one-sided operations
                       of active-target epochs drain at the rate of the
                       window's group all moving data (rp_rma.c), and
                       a message received while its receiver was sending
                       (rp_exchanging) at the rate of its communicator's
                       (rp_p2p.c) */
  int p2p_overlap;  /* the model has the "gap" row: messages overlap
                       (rp_clock_inject, rp_clock_complete) */
  int pair_exchange; /* ... and the "MPI_Sendrecv" row, and
                        REVPROF_EXCHANGE=sendrecv: a message of an
                        exchange from the eager limit on travels no
                        shorter than a pair's exchange (rp_p2p.c) */
  double nic_free[RP_NB]; /* when this rank's next message can leave */
  double burst_from; /* avg clock: when the endpoint's current run of
                        messages, ending at nic_free, began (epoch_load) */
  rp_endpoint rx;        /* what its endpoint took of the messages Wait
                            and Test calls completed (rp_clock_complete) */
  int recv_post;    /* the model has the "post" row: posting a non-blocking
                       receive costs its rank T_post(d) */
  double serial_calls; /* without overlap rows: completion calls that
                          charged several receives one after another */
  struct rp_mpub *pub; /* this rank's published state for the others'
                          wildcard receives (rp_match.c); NULL: off */
  struct rp_req *wildq; /* deferred wildcard receives nothing was posted
                           for yet, in posting order (rp_p2p.c) */
  int wild_open;        /* deferred ones not completed yet (pending or
                           left to the MPI) */
  int sampling;         /* sample mode: messages stamped (rp_sample.c) */
  long sample_skip;     /* sample mode: the next messages certainly not
                           sampled, stamped "no" without the sampler
                           (rp_sample_out) */
  long sample_skipped;  /* ... of which these went since the sampler last
                           ran (rp_sample.c gives them to it) */
  int clockless;        /* sample mode: no model, so no simulated clock to
                           keep (it would stay at 0): the point-to-point
                           paths skip its arithmetic, and the piggyback on
                           the wire is sample mode's flag byte */
  int pbw;              /* bytes of piggyback in front of every message:
                           RP_PB_BYTES, or in sample mode RP_SFLAG_BYTES
                           (rp_sample.h) */
  /* with deferred wildcard receives pending, a wrapper that may block on
     other ranks first lets the MPI have them (a sender waiting for their
     match must not wait for ever): defer_block, set by the point-to-point
     layer at MPI_Init, unless defer_safe[w] */
  void (*defer_block)(void);
  unsigned char defer_safe[RP_W_COUNT];
  double any_reordered; /* Waitany/Testany calls that took another
                           completed receive than the first one */
  int tracing;      /* rp_trace_* active */
  int extras;       /* tracing or REVPROF_COMPUTE=measure: leave's slow part */
  rp_thr th0;       /* blocking records of the thread that initialized */
  size_t scratch_cap; /* bytes of each rp_thr pack buffer (0: none) */
  /* MPI_THREAD_MULTIPLE (rp_mt.c): on in every process when one has it */
  int mt;
  int inflight;     /* threads inside a wrapper */
  double overlap[RP_W_COUNT]; /* calls that began while another thread
                                 was inside one */
  double other_calls; /* calls of threads other than the main one */
  const struct rp_mode_ops *mode;  /* the mode's hooks (rp_mode.h), from
                                      MPI_Init; NULL while revprof is off */
  const struct rp_entries *entry;  /* wrapped entry points (rp_entries) */
  rp_thr *threads;  /* blocks of the other threads */
  int partial_done; /* a partial report was written */
  rp_flag_store flags; /* this rank's report flags (rp_report_flag) */
  /* the instrumentation cost model (rp_icost.c): events counted by kind
     (the MPI calls are fstat's), seconds per event (< 0: not calibrated),
     host time the period ends, MPI calls left before a look at the clock */
  double ic_n[RP_IC_KINDS];
  double ic_cost[RP_IC_KINDS];
  double ic_cached[RP_IC_KINDS]; /* the model's overhead table's cost_<mode>_
                                    <kind> (characterize), < 0: none or
                                    REVPROF_OVERHEAD=calibrate */
  unsigned ic_from_model;        /* kinds whose cost came from the model */
  double ic_due;
  double ic_budget; /* region events left before the period's cost is at
                       the bound (a period closes early then) */
  int ic_tick;
  /* the partial report's next checkpoint (host seconds) and its writer,
     looked at with the cost period (rp_icost_poll); NULL: none */
  double checkpoint_due;
  void (*checkpoint)(double now);
} rp_state;

extern rp_state rp_g;

/* The call under way, per thread. */
typedef struct rp_call {
  int in_tool;      /* re-entry guard: set while a wrapper runs */
  const void *site; /* sample mode: the application's call site of the
                       wrapper under way (its return address) */
  const void *fsite; /* ... as a Fortran binding saw it, for the C
                        wrapper it calls (NULL: none) */
  double sample_t0; /* sample mode: send start of the message this call
                       stamped (global seconds), < 0: none; its bytes */
  double sample_bytes;
  int stamps;       /* sample mode: stamps of this thread's sampled messages
                       wait to be sent (rp_sample_flush, at rp_leave) */
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

/* rp_sample.c: sends the stamps of the sampled messages this thread's
 * call sent (sample mode: they follow their messages). */
void rp_sample_flush(void);

static inline rp_thr *rp_th(void) {
  return RP_LIKELY(rp_t.th == NULL) ? &rp_g.th0 : rp_t.th;
}

/* The communicator a wrapper works on: the application's MPI_COMM_WORLD
 * is world (rp_monitor.c), whether revprof is active or not. */
static inline MPI_Comm rp_world_map(MPI_Comm c) {
  return RP_UNLIKELY(rp_g.remap) && c == MPI_COMM_WORLD ? rp_g.world : c;
}

/* The communicator an attribute call works on: the application's world
 * for the program's own keys, MPI_COMM_WORLD itself for the predefined
 * ones (MPI_TAG_UB, ...: MPI attaches them to MPI_COMM_WORLD only). */
static inline MPI_Comm rp_attr_comm(MPI_Comm c, int keyval) {
  if (keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
      keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_APPNUM ||
      keyval == MPI_UNIVERSE_SIZE || keyval == MPI_LASTUSEDCODE)
    return c;
  return rp_world_map(c);
}

/* Wrappers call PMPI directly when this is true. */
static inline int rp_bypass(void) {
  return !RP_LIKELY(rp_g.active) || rp_t.in_tool;
}

/* The clocks hold a simulated time (the mode's `simulates`): revprof_now
 * and the monitor's "clock" event read them only then. */
static inline int rp_simulating(void) {
  return rp_g.active && rp_g.mode && rp_g.mode->simulates;
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
/* Frees the other threads' blocks (after rp_p2p_shutdown). */
void rp_mt_shutdown(void);
/* How a thread's block (rp_thr) is made and freed: registered by the
 * point-to-point layer at its start-up (hooks, not calls). */
void rp_mt_thread_hooks(void (*init)(rp_thr *), void (*fini)(rp_thr *));

/* ------------------------------------------------------- rp_state.c */

/* Computation since the last MPI call, measured (REVPROF_COMPUTE=measure). */
void rp_measure_gap(void);
void rp_measure_mark(void);
/* Timers, PAPI and the noise calibration of REVPROF_COMPUTE=measure (at
 * MPI_Init), and their end. */
void rp_measure_startup(void);
void rp_measure_shutdown(void);
/* The cost cache emptied, the model row of each function resolved
 * (rp_g.eff: its fallback where the model lacks it). */
void rp_cost_startup(void);

/* Monotonic host seconds (the calls without a cost rule are timed by it):
 * CLOCK_MONOTONIC, the one clock every process of the host reads alike,
 * so that stamps compare across processes (monitoring's one-way delays,
 * sample mode's latencies). Measured gaps read the cycle counter instead
 * (rp_measure_gap), whose rate and origin each process calibrates for
 * itself. */
double rp_host_seconds(void);

/* This process's cheap clock, the one of measured gaps (the cycle counter
 * where usable): for times compared within one process only, read where
 * a call's end pays for it (monitoring's timer, sample mode's timer:
 * decision). Its origin and rate differ from rp_host_seconds's by the
 * start-up calibration's error, so no stamp that travels comes from it. */
double rp_local_seconds(void);

/* rp_enter's part for tracing, REVPROF_COMPUTE=measure and compensate
 * mode (rp_g.extras), out of the predict fast path. */
void rp_enter_extras(rp_wid w);


/* What a rank publishes for the wildcard receives of the others
 * (rp_match.c), in its window: v0 and v1 frame each update (a reader that
 * sees them differ reads again). */
typedef struct rp_mpub {
  uint64_t v0;
  double clock;      /* lower bound of its next message's departure */
  int32_t state, on; /* enum rp_peer_state; RP_PEER_RECV: its source's
                        MPI_COMM_WORLD rank */
  int32_t cid, pad;  /* RP_PEER_COLL: the communicator's id */
  uint64_t got;      /* RP_PEER_RECV: messages it has taken from on;
                        RP_PEER_ANY: from anyone; RP_PEER_COLL: the
                        collective's number on cid; RP_PEER_SEND: the
                        message's bytes */
  uint64_t v1;
  double release;    /* RP_PEER_ANY: when its receive can complete, at
                        the earliest (rp_match.c) */
} rp_mpub;

static inline void rp_publish(int state, int on, int cid, uint64_t got) {
  rp_mpub *m = rp_g.pub;
  uint64_t v = m->v1 + 1;
  __atomic_store_n(&m->v0, v, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  m->clock = rp_g.clk.now[RP_AVG];
  m->state = state;
  m->on = on;
  m->cid = cid;
  m->got = got;
  m->release = m->clock;
  __atomic_store_n(&m->v1, v, __ATOMIC_RELEASE);
}

/* Start of a wrapper's work: guard on, computation since the last MPI call
 * (REVPROF_COMPUTE=measure) added, entry time taken; in sample mode the
 * call site (always inlined into the wrapper, so that its return address
 * is the application's). */
__attribute__((always_inline)) static inline void rp_enter(rp_wid w) {
  rp_t.in_tool = 1;
  if (RP_UNLIKELY(rp_t.stamps)) /* (a call that ended without rp_leave) */
    rp_sample_flush();
  if (RP_UNLIKELY(rp_g.sampling)) {
    rp_t.site = rp_t.fsite ? rp_t.fsite : __builtin_return_address(0);
    rp_t.fsite = NULL;
    rp_t.sample_t0 = -1.0;
  }
  if (RP_UNLIKELY(rp_g.wildq != NULL) && !rp_g.defer_safe[w])
    rp_g.defer_block();
  if (RP_UNLIKELY(rp_g.mt))
    rp_mt_enter(w);
  if (rp_g.extras)
    rp_enter_extras(w);
  rp_t.t0 = rp_g.clk.now[RP_AVG];
  rp_t.cur_bytes = 0.0;
  rp_t.cur_wait = 0.0;
  if (rp_g.pub)
    rp_publish(RP_PEER_IN, -1, -1, 0);
}

/* rp_icost.c: every RP_IC_TICK MPI calls, a look at the clock, and the
 * instrumentation cost's period closed when it is over (and the partial
 * report's checkpoint written when it is due). */
void rp_icost_poll(void);


/* End: per-function statistics, trace state, guard off. */
/* rp_enter for a poll that may complete nothing (MPI_Iprobe, MPI_Test*):
 * under REVPROF_COMPUTE=measure a poll the model did not cost (the clocks
 * did not move) runs at host speed, its time counted with the next gap. */
__attribute__((always_inline)) static inline void rp_enter_poll(rp_wid w) {
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
  if (RP_UNLIKELY(rp_g.mon_poll != NULL)) /* before the mark: an offload */
    rp_g.mon_poll();                     /* is no computation */
  if (rp_g.extras) {
    if (rp_g.tracing)
      rp_trace_state(rp_wrap_name[w], rp_t.t0, t1, rp_t.cur_bytes);
    /* the call itself is not computation; with threads, computation is
       host time while no thread is inside MPI */
    if (rp_g.cfg.compute == RP_COMPUTE_MEASURE &&
        !(rp_t.poll && t1 == rp_t.t0) && (!rp_g.mt || rp_g.inflight == 1))
      rp_measure_mark();
    rp_t.poll = 0;
    if (rp_g.mode->leave && (!rp_g.mt || rp_t.main))
      rp_g.mode->leave(w);
  }
  if (RP_UNLIKELY(rp_t.stamps))
    rp_sample_flush();
  if (rp_g.pub)
    rp_publish(RP_PEER_OUT, -1, -1, 0);
  if (RP_UNLIKELY(--rp_g.ic_tick <= 0))
    rp_icost_poll();
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
  int lowconf; /* costed by a low-confidence regime */
} rp_lastcost;
extern rp_lastcost rp_lastcost_tab[REVPROF_FN_COUNT];

/* Model uses outside the measured range of p and d, per called function on
 * this rank (rp_engine.c): counted per call, the factors found when rp_cost
 * evaluates the model (memo misses). */
typedef struct rp_extrap {
  double calls;  /* calls costed outside the range */
  double fp, fd; /* largest factor outside, in p and in d (1 = inside) */
  double p, d;   /* largest p and d among those calls */
  double lowc;   /* calls costed by a regime whose cv_error is above
                    REVPROF_LOW_CONFIDENCE */
  double cv;     /* the largest such cv_error */
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
/* The same for the calls costed by low-confidence regimes (after
 * rp_extrap_reduce): the report's "low-confidence" flag ("N calls of K
 * function(s) ...: MPI_Reduce 12 (cv up to 29 %), ..."), its total. */
double rp_lowconf_text(char *buf, size_t len);
double rp_lowconf_fn_text(revprof_fn fn, char *buf, size_t len);

/* Under the load of p ranks moving data at once (p > 0; the model has
 * gap_all): what the bytes of a d-byte message or one-sided operation
 * take longer to drain, per bound, max(0, gap_all(p, d) - gap(d)); 0 for
 * p <= 0. rp_cost adds it, at p = rp_g.load_p (REVPROF_CONTENTION=world),
 * to the gap (g = max(gap, gap_all)) and to a message's latency; one-sided
 * operations add it to their completion (rp_rma.c picks their p). Every
 * evaluation of gap_all outside its measured range counts as one
 * extrapolated cost (as rp_cost counts its rows), remembered or not;
 * returns 1 for those. */
int rp_load_extra(double p, double d, double extra[RP_NB]);

static inline void rp_cost_fast(revprof_fn fn, double p, double d,
                                double out[RP_NB]) {
  const rp_lastcost *l = &rp_lastcost_tab[fn];
  if (RP_LIKELY(l->d == d && l->p == p)) {
    out[0] = l->out[0];
    out[1] = l->out[1];
    out[2] = l->out[2];
    if (l->outside)
      rp_extrap_tab[fn].calls += 1.0;
    if (l->lowconf)
      rp_extrap_tab[fn].lowc += 1.0;
  } else
    rp_cost(fn, p, d, out);
}


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

/* Collective over comm (MPI_COMM_WORLD or its shadow, rank 0 the same):
 * every rank's len bytes of text gathered to rank 0, in rank order,
 * NUL-terminated (malloc'ed); NULL elsewhere and when out of memory. */
char *rp_gather_text(const char *text, size_t len, MPI_Comm comm);

/* 1 when wrapper w's calls are not predicted in this run: no cost rule,
 * or an I/O call whose row the model lacks (rp_wrap_uncosted). */
int rp_uncosted(rp_wid w);
/* 1 when the model costs fn (its own row or a fallback). */
int rp_costed(revprof_fn fn);

#define RP_MAXD(a, b) ((a) > (b) ? (a) : (b))
/* This member's start clocks and d, as every exchange sends them */
static inline void rp_my_clocks(double d, double v[RP_XCH_DOUBLES]) {
  __builtin_memcpy(v, rp_g.clk.now, sizeof rp_g.clk.now);
  v[RP_NB] = d;
}

/* ---------------------------------------------------------- rp_comm.c */

/* Attribute key and MPI_COMM_WORLD's and MPI_COMM_SELF's info. */
void rp_comm_startup(void);
void rp_comm_shutdown(void);
/* comm's info, NULL when revprof has none (never creates it). The
 * communicator looked up last is remembered (cleared when its attribute
 * goes): programs send and call collectives on one or two, and a message
 * looks its communicator up three or four times. */
extern MPI_Comm rp_comm_last;
extern rp_comm *rp_comm_last_info;
rp_comm *rp_comm_lookup_slow(MPI_Comm comm);
static inline rp_comm *rp_comm_lookup(MPI_Comm comm) {
  if (comm == rp_comm_last && comm != MPI_COMM_NULL)
    return rp_comm_last_info;
  return rp_comm_lookup_slow(comm);
}
/* Records comm with its shadow (MPI_COMM_NULL: creates one, a collective
 * call over comm). */
void rp_comm_attach(MPI_Comm comm, MPI_Comm shadow);
/* 1 when comm reaches a process outside this job's MPI_COMM_WORLD (a
 * spawned or connected job, or the parent: it may not run revprof), so
 * messages on it go without piggyback and its collectives are costed
 * locally. Only asked when rp_g.dynamic; cached on comm. */
int rp_comm_foreign(MPI_Comm comm);
/* Fills c for comm, creating its shadow on first use (blocking
 * collectives: every member is in the same call). */
void rp_coll_start(rp_comm *c, MPI_Comm comm);
/* Same for a collective no member leaves before every member has joined
 * (the non-rooted ones: an allreduce of the clocks, or their own data from
 * everyone): counted on comm, and published for the others' wildcard
 * receives (rp_match.c) as the n-th such collective of comm. */
void rp_coll_start_sync(rp_comm *c, MPI_Comm comm);
/* Same for non-blocking collectives: never blocks; without a shadow the
 * clocks are not combined (warned once). */
void rp_coll_start_nb(rp_comm *c, MPI_Comm comm);
/* A communicator-creating call returned newcomm (MPI_COMM_NULL ignored). */
void rp_comm_created(MPI_Comm newcomm);
/* The same for newcomm, a duplicate of parent (MPI_Comm_dup and
 * MPI_Comm_dup_with_info): a cheaper shadow. */
void rp_comm_dup_created(MPI_Comm parent, MPI_Comm newcomm);
/* The communicator of this rank with id cid (rp_comm.cid); NULL: none. */
rp_comm *rp_comm_by_cid(int cid);
/* MPI_COMM_WORLD rank of rank r of c (r itself when c knows no table). */
static inline int rp_comm_world(const rp_comm *c, int r) {
  return c->world && r >= 0 && r < c->size ? c->world[r] : r;
}
MPI_Comm rp_world_shadow(void);
/* comm's shadow (intra-communicators revprof saw), else MPI_COMM_NULL;
 * never creates one (not collective). */
MPI_Comm rp_comm_shadow(MPI_Comm comm);

#endif
