/* Compensate mode (REVPROF_MODE=compensate, seed 000): real measurement of
 * user regions and MPI calls, per-event overhead (model or calibration),
 * delays carried in the piggyback, and the compensated profile report. The
 * rules themselves are in rp_comp.c. */
#define _GNU_SOURCE 1 /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rp_comp.h"
#include "rp_icost.h"
#include "rp_mode.h"
#include "rp_monitor.h"
#include "rp_report.h"

/* ------------------------------------------------------------- state */

#define CM_REGIONS 512 /* distinct region names per rank */
#define CM_DEPTH 256   /* nesting depth kept */
#define CM_BIG 1e300   /* "no message" in the receive component */

typedef struct cm_region {
  const char *name;      /* interned (user regions: strdup'ed); NULL for a
                            function until the report names it */
  const void *fn;        /* -finstrument-functions: its address */
  double count;          /* completed calls */
  double incl, excl;     /* measured, seconds */
  double incl_l, excl_l; /* local compensation, seconds */
  double incl_p, excl_p; /* parallel compensation, seconds */
  /* REVPROF_MAX_OVERHEAD (rp_icost.h): turned off by the regulation, its
     calls while off, those not closed yet, and its calls at the last
     regulation (rates between two) */
  int off, mpi;          /* off; mpi: an MPI call's region, never off */
  int fixed;             /* off from the start (REVPROF_REGIONS_OFF) */
  int mslot;             /* online monitoring's slot + 1; 0 not asked yet,
                            -1 none left */
  double skipped, mark;
} cm_region;

typedef struct cm_frame {
  int id;
  double t0;                    /* real time at entry, seconds */
  double o0, a0;                /* rp_comp o and adj at entry, seconds */
  double ch, ch_l, ch_p;        /* children's inclusive times, seconds */
  long skips;                   /* skipped enters open when it began */
} cm_frame;

static struct {
  rp_comp st;
  cm_region reg[CM_REGIONS];
  int nreg, full;
  cm_frame stack[CM_DEPTH];
  int depth, lost;              /* frames not kept (too deep) */
  double t_init, t_end;         /* real times, seconds */
  double o_pair;   /* cost of a region enter + exit seen from outside, s */
  double o_inner;  /* the part of it inside the region's own time, s */
  double o_fpair, o_finner; /* the same for a function (its hooks) */
  double o_skip;   /* an enter + exit of a region turned off, s */
  double o_mpi;    /* MPI wrapper cost, seconds */
  double o_pb;     /* piggyback cost per MPI call, seconds */
  const char *src; /* where the values came from */
  double mpi_t0;   /* real time at the MPI call's entry, seconds */
  int timed;       /* every rank on one node, one clock: the parallel rule
                      uses the messages' send times (rp_comp_recv_timed) */
  int mismatched;  /* region_end names that did not match (warned once) */
  int nlow;        /* regions the regulation turned off (offs) */
  long skips;      /* enters skipped (their region off) and not exited,
                      above the innermost frame: the next exits are
                      theirs, found without a look-up */
  int offs[CM_REGIONS]; /* their ids, in the order they went off */
  double reg_t;    /* real time of the last regulation */
} cm;

static inline double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink; /* keeps calibration work alive */

static void spin(double s) { /* REVPROF_INJECT_OVERHEAD */
  if (s > 0.0) {
    double end = now_s() + s;
    while (now_s() < end)
      ;
  }
}

/* Region names: open addressing on the name's hash, so every lookup costs
 * about the same (calibration measures one). */
#define CM_SLOTS 1024 /* power of 2, > 2 * CM_REGIONS */
static short slot[CM_SLOTS]; /* region id + 1; 0: empty */

/* A region id that profiles nothing (table full, out of memory). */
#define CM_NONE (-1)

/* Takes the next region entry (cleared) and files it in the hash table
 * slots at hash h; CM_NONE, with one warning per run, when the table is
 * full. */
static int add_region(short *slots, unsigned h) {
  if (cm.nreg == CM_REGIONS) {
    if (!cm.full++)
      rp_warn("more than %d region names; the others are not profiled",
              CM_REGIONS);
    return CM_NONE;
  }
  memset(&cm.reg[cm.nreg], 0, sizeof cm.reg[0]);
  unsigned i = h & (CM_SLOTS - 1);
  while (slots[i])
    i = (i + 1) & (CM_SLOTS - 1);
  slots[i] = (short)(cm.nreg + 1);
  return cm.nreg++;
}

/* REVPROF_REGIONS_OFF: a region (or function) it names is off from its
 * first call, for the whole run. */
static void fixed_off(int id, const char *name) {
  const char *l = rp_g.cfg.regions_off;
  size_t n = strlen(name);
  while (*l) {
    size_t k = strcspn(l, ",");
    if (k == n && strncmp(l, name, n) == 0) {
      cm.reg[id].off = cm.reg[id].fixed = 1;
      return;
    }
    l += k + (l[k] == ',');
  }
}

static int region_id(const char *name, int copy) {
  unsigned h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 16777619u;
  for (unsigned i = h & (CM_SLOTS - 1);; i = (i + 1) & (CM_SLOTS - 1)) {
    int id = slot[i] - 1;
    if (id < 0)
      break;
    if (cm.reg[id].name == name ||
        (cm.reg[id].name && strcmp(cm.reg[id].name, name) == 0))
      return id;
  }
  if (cm.nreg == CM_REGIONS)
    return add_region(slot, h); /* warns once */
  const char *n = copy ? strdup(name) : name;
  if (n == NULL)
    return CM_NONE;
  int id = add_region(slot, h);
  cm.reg[id].name = n;
  fixed_off(id, n);
  return id;
}

/* The last names seen, by their address: a program names its regions with
 * string literals mostly, whose look-up is then an address compare and a
 * strcmp (a buffer reused for another name fails the strcmp). */
#define CM_NCACHE 64
static struct {
  const char *p;
  int id;
} ncache[CM_NCACHE];

/* strcmp's answer to "equal?", inline: region names are short, and a
 * call to strcmp costs about as much as a turned-off region otherwise. */
static inline int same_name(const char *a, const char *b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

static int region_id_cached(const char *name) {
  unsigned h = (unsigned)((uintptr_t)name >> 4) & (CM_NCACHE - 1);
  int id = ncache[h].id;
  if (ncache[h].p == name && same_name(cm.reg[id].name, name))
    return id;
  id = region_id(name, 1);
  if (id >= 0) {
    ncache[h].p = name;
    ncache[h].id = id;
  }
  return id;
}

/* Functions (-finstrument-functions): the same, keyed by address. */
static short fslot[CM_SLOTS];

static const char *function_name(const void *fn, char *buf, size_t len);

static int function_id(const void *fn) {
  uintptr_t a = (uintptr_t)fn;
  unsigned h = (unsigned)((a * 0x9E3779B97F4A7C15ull) >> 40);
  for (unsigned i = h & (CM_SLOTS - 1);; i = (i + 1) & (CM_SLOTS - 1)) {
    int id = fslot[i] - 1;
    if (id < 0)
      break;
    if (cm.reg[id].fn == fn)
      return id;
  }
  int id = add_region(fslot, h);
  if (id >= 0) {
    cm.reg[id].fn = fn;
    if (rp_g.cfg.regions_off[0]) {
      char buf[RP_PATH_MAX + 32];
      fixed_off(id, function_name(fn, buf, sizeof buf));
    }
  }
  return id;
}

/* A function's name for the report: its symbol (dladdr: exported symbols
 * only, link programs with -rdynamic), else module+offset for addr2line. */
static const char *function_name(const void *fn, char *buf, size_t len) {
  Dl_info di;
  if (dladdr(fn, &di) && di.dli_sname)
    return di.dli_sname;
  if (dladdr(fn, &di) && di.dli_fname)
    snprintf(buf, len, "%s+0x%lx", di.dli_fname,
             (unsigned long)((uintptr_t)fn - (uintptr_t)di.dli_fbase));
  else
    snprintf(buf, len, "%p", fn);
  return buf;
}

/* ------------------------------------------------- regions (the profile) */

static void push(int id, double t) {
  if (cm.depth == CM_DEPTH || id < 0) {
    cm.lost++;
    return;
  }
  cm_frame *f = &cm.stack[cm.depth++];
  f->skips = cm.skips;
  cm.skips = 0;
  f->id = id;
  f->t0 = t;
  f->o0 = cm.st.o;
  f->a0 = cm.st.adj;
  f->ch = f->ch_l = f->ch_p = 0.0;
}

/* Closes the innermost frame at real time t; own: overhead of this
 * region's own enter/exit that falls inside its measured time. */
static void pop(double t, double outside) {
  if (cm.lost) {
    cm.lost--;
    return;
  }
  if (cm.depth == 0)
    return;
  cm_frame *f = &cm.stack[--cm.depth];
  cm_region *r = &cm.reg[f->id];
  cm.skips = f->skips;
  double incl = t - f->t0;
  double ov = cm.st.o - f->o0 - outside; /* overhead inside this region */
  double adj = cm.st.adj - f->a0;
  double il = rp_comp_local(incl, ov), ip = rp_comp_parallel(incl, ov, adj);
  r->count += 1.0;
  r->incl += incl;
  r->excl += incl - f->ch;
  r->incl_l += il;
  r->excl_l += il - f->ch_l;
  r->incl_p += ip;
  r->excl_p += ip - f->ch_p;
  if (cm.depth > 0) {
    cm_frame *p = &cm.stack[cm.depth - 1];
    p->ch += incl;
    p->ch_l += il;
    p->ch_p += ip;
  }
}

/* A region or function that the regulation turned off: its enter counts
 * as skipped (its exit is skipped too); 1 when id is off. */
static int skip_enter(int id) {
  if (id < 0 || !cm.reg[id].off)
    return 0;
  cm.reg[id].skipped += 1.0;
  cm.skips++;
  rp_g.ic_n[RP_IC_SKIPPED] += 1.0;
  return 1;
}

/* The exit of an enter that was skipped (events nest: the innermost open
 * enter is a skipped one): 1, and the exit is skipped too. */
static int skip_exit(void) {
  if (cm.skips <= 0)
    return 0;
  cm.skips--;
  return 1;
}

static void region_begin(const char *name) {
  int id = region_id_cached(name);
  if (skip_enter(id))
    return;
  spin(rp_g.cfg.inject);
  double t = now_s();
  rp_icost_at(t); /* may turn regions off, this one too: it is open */
  push(id, t);
  rp_g.ic_n[RP_IC_REGION] += 1.0;
  rp_comp_overhead(&cm.st, cm.o_pair);
}

static void region_end(const char *name) {
  if (skip_exit())
    return;
  double t = now_s();
  if (cm.depth > 0 && !cm.lost && name &&
      cm.reg[cm.stack[cm.depth - 1].id].name &&
      strcmp(cm.reg[cm.stack[cm.depth - 1].id].name, name) != 0 &&
      !cm.mismatched++)
    rp_warn("revprof_region_end(\"%s\") closes region \"%s\"", name,
            cm.reg[cm.stack[cm.depth - 1].id].name);
  pop(t, cm.o_pair - cm.o_inner);
  spin(rp_g.cfg.inject);
}

/* The region API's fast path: without threads no lock (its cost is what
 * a region turned off costs). */
RP_EXPORT void revprof_region_begin(const char *name) {
  rp_monitor_at_region();
  if (!rp_g.active || rp_g.cfg.mode != RP_MODE_COMPENSATE || rp_t.in_tool ||
      name == NULL)
    return;
  if (RP_LIKELY(!rp_g.mt)) {
    region_begin(name);
  } else if (rp_t.main) {
    int took = rp_mt_hold();
    region_begin(name);
    rp_mt_release(took);
  }
}

RP_EXPORT void revprof_region_end(const char *name) {
  rp_monitor_at_region();
  if (!rp_g.active || rp_g.cfg.mode != RP_MODE_COMPENSATE || rp_t.in_tool)
    return;
  if (RP_LIKELY(!rp_g.mt)) {
    region_end(name);
  } else if (rp_t.main) {
    int took = rp_mt_hold();
    region_end(name);
    rp_mt_release(took);
  }
}

/* -finstrument-functions: every function of the program compiled with it
 * is a region (not those of librevprof, which is not). Entries before
 * MPI_Init and exits after MPI_Finalize are ignored. */
RP_EXPORT __attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *fn, void *site) {
  (void)site;
  if (rp_g.active && rp_g.cfg.mode == RP_MODE_COMPENSATE && !rp_t.in_tool &&
      (!rp_g.mt || rp_t.main)) {
    int took = rp_mt_hold();
    int id = function_id(fn);
    if (!skip_enter(id)) {
      spin(rp_g.cfg.inject);
      double t = now_s();
      rp_icost_at(t);
      push(id, t);
      rp_g.ic_n[RP_IC_FUNCTION] += 1.0;
      rp_comp_overhead(&cm.st, cm.o_fpair);
    }
    rp_mt_release(took);
  }
}

RP_EXPORT __attribute__((no_instrument_function)) void
__cyg_profile_func_exit(void *fn, void *site) {
  (void)site;
  if (rp_g.active && rp_g.cfg.mode == RP_MODE_COMPENSATE && !rp_t.in_tool &&
      (!rp_g.mt || rp_t.main) && skip_exit())
    return;
  if (rp_g.active && rp_g.cfg.mode == RP_MODE_COMPENSATE && !rp_t.in_tool &&
      (!rp_g.mt || rp_t.main) &&
      (cm.lost || (cm.depth > 0 && cm.reg[cm.stack[cm.depth - 1].id].fn == fn))) {
    int took = rp_mt_hold();
    pop(now_s(), cm.o_fpair - cm.o_finner);
    spin(rp_g.cfg.inject);
    rp_mt_release(took);
  }
}

/* ----------------------------------------------------------- regulation */

static const char *region_label(const cm_region *g, char *buf, size_t len) {
  return g->name ? g->name : function_name(g->fn, buf, len);
}

/* REVPROF_MAX_OVERHEAD (rp_icost.h): lower turns off the regions and
 * functions that save the most (rp_ic_pick: many calls, little time per
 * call) until the period's cost would be at RP_IC_TARGET x the bound;
 * raise turns the last one turned off on again when its cost fits. Rates
 * are the calls since the last regulation. MPI calls' regions never. */
static int cm_regulate(int action, double share, double elapsed) {
  double now = now_s(), span = now - cm.reg_t, bound = rp_g.cfg.max_overhead;
  char nm[RP_PATH_MAX + 32], what[200], why[200];
  int changed = 0;
  if (span <= 0.0)
    span = elapsed;
  if (action == RP_IC_LOWER) {
    static rp_ic_cand cand[CM_REGIONS];
    static size_t pick[CM_REGIONS];
    for (int i = 0; i < cm.nreg; i++) {
      const cm_region *g = &cm.reg[i];
      double on = g->fn ? cm.o_fpair : cm.o_pair;
      cand[i].calls = (g->count + g->skipped - g->mark) / span * elapsed;
      cand[i].per_call = g->count > 0.0 ? g->incl / g->count : 0.0;
      cand[i].saving = on - cm.o_skip;
      cand[i].off = g->off || g->mpi || (g->name == NULL && g->fn == NULL);
    }
    double excess = (share - RP_IC_TARGET * bound) * elapsed;
    size_t k = rp_ic_pick(cand, (size_t)cm.nreg, excess, pick, CM_REGIONS);
    double after = share;
    for (size_t j = 0; j < k; j++) {
      cm_region *g = &cm.reg[pick[j]];
      const rp_ic_cand *c = &cand[pick[j]];
      double saves = elapsed > 0.0 ? c->calls * c->saving / elapsed : 0.0;
      g->off = 1;
      cm.offs[cm.nlow++] = (int)pick[j];
      snprintf(what, sizeof what, "%s %s off", g->fn ? "function" : "region",
               region_label(g, nm, sizeof nm));
      snprintf(why, sizeof why, "%.4g calls/s of %.3g s each; saves %.3g %%",
               c->calls / (elapsed > 0.0 ? elapsed : 1.0), c->per_call,
               100.0 * saves);
      rp_icost_decision("lower", what, why, after, after - saves);
      after -= saves;
      changed++;
    }
  } else if (cm.nlow > 0) {
    cm_region *g = &cm.reg[cm.offs[cm.nlow - 1]];
    double rate = (g->count + g->skipped - g->mark) / span;
    double add = rate * ((g->fn ? cm.o_fpair : cm.o_pair) - cm.o_skip);
    if (rp_ic_fits(share, add, bound)) {
      g->off = 0;
      cm.nlow--;
      snprintf(what, sizeof what, "%s %s on", g->fn ? "function" : "region",
               region_label(g, nm, sizeof nm));
      snprintf(why, sizeof why, "well under the bound; %.4g calls/s add "
               "%.3g %%", rate, 100.0 * add);
      rp_icost_decision("raise", what, why, share, share + add);
      changed = 1;
    }
  }
  for (int i = 0; i < cm.nreg; i++)
    cm.reg[i].mark = cm.reg[i].count + cm.reg[i].skipped;
  cm.reg_t = now;
  return changed;
}

/* ------------------------------------------------------------ MPI calls */

/* each wrapper's region, by wrapper id: 0 until its first call, else the
 * region id + 1 (no name hashing per MPI call) */
static int wid_region[RP_W_COUNT];

static int wrapper_region(rp_wid w) {
  if (wid_region[w] == 0) {
    int id = region_id(rp_wrap_name[w], 0);
    if (id < 0)
      return CM_NONE; /* table full: looked up again next time */
    cm.reg[id].mpi = 1;
    cm.reg[id].off = cm.reg[id].fixed = 0; /* MPI calls: never off */
    wid_region[w] = id + 1;
  }
  return wid_region[w] - 1;
}

/* The simulated clocks carry the delay in compensate mode (model costs are
 * all 0), and receives and collectives keep each component's maximum over
 * the messages and members. On one node (cm.timed) every call's clocks are
 * {t0 - x, t0, x}, t0 its host entry time: afterwards now[RP_MIN] is the
 * latest send time without measurement and now[RP_AVG] the latest
 * measured one (this call's own when no message came later). Otherwise
 * they are {x, -x, x}: -now[RP_AVG] afterwards is the least delay among
 * the messages if it is below x, and now[RP_MIN] the sender's delay if
 * above (seed 000's rule, which needs no common clock). */
static void cm_enter(rp_wid w) {
  double x = cm.st.x;
  cm.mpi_t0 = now_s();
  rp_g.clk.now[RP_MIN] = cm.timed ? cm.mpi_t0 - x : x;
  rp_g.clk.now[RP_AVG] = cm.timed ? cm.mpi_t0 : -x;
  rp_g.clk.now[RP_MAX] = x;
  push(wrapper_region(w), cm.mpi_t0);
}

static void cm_leave(rp_wid w) {
  (void)w;
  double t = now_s(), x = cm.st.x, xs = x;
  if (cm.timed)
    rp_comp_recv_timed(&cm.st, t - cm.mpi_t0,
                       rp_g.clk.now[RP_MIN] - (cm.mpi_t0 - x),
                       rp_g.clk.now[RP_AVG] - cm.mpi_t0);
  else {
    if (-rp_g.clk.now[RP_AVG] < x)
      xs = -rp_g.clk.now[RP_AVG]; /* a message with less delay */
    else if (rp_g.clk.now[RP_MIN] > x)
      xs = rp_g.clk.now[RP_MIN];  /* messages with more delay */
    rp_comp_recv(&cm.st, t - cm.mpi_t0, xs);
  }
  rp_comp_overhead(&cm.st, cm.o_mpi + cm.o_pb);
  pop(t, cm.o_mpi + cm.o_pb - cm.o_inner);
  spin(rp_g.cfg.inject);
}

/* -------------------------------------------------------- start and stop */

/* A step of work inside calibrated regions, so that the loop is not the
 * instrumentation alone. */
static double chain(double g) { return g * 0.9999999 + 1e-7; }

static const char cal_name[] = "(calibration)";

enum { CAL_N = 20000 }; /* events of a calibration round */

/* The address a calibrated function event names. */
#define CAL_FN ((void *)(uintptr_t)calibrate_pair)
static double calibrate_pair(int function, int off, double *inner);

/* One round of CAL_N enter + exit pairs around chain(), of a region or of
 * a function, called through the exported entry points as the program
 * calls them: its seconds. */
static double cal_round(int function, double *g) {
  void (*volatile begin)(const char *) = revprof_region_begin;
  void (*volatile end)(const char *) = revprof_region_end;
  void (*volatile fe)(void *, void *) = __cyg_profile_func_enter;
  void (*volatile fx)(void *, void *) = __cyg_profile_func_exit;
  double t0 = now_s();
  if (function)
    for (int i = 0; i < CAL_N; i++) {
      fe(CAL_FN, NULL);
      *g = chain(*g);
      fx(CAL_FN, NULL);
    }
  else
    for (int i = 0; i < CAL_N; i++) {
      begin(cal_name);
      *g = chain(*g);
      end(cal_name);
    }
  return now_s() - t0;
}

/* Cost of an enter + exit of a region (or a function), seen from outside
 * (return value) and inside the region's own time (*inner), seconds: the
 * best of a few rounds against the best of chain() alone. With off set, the region is
 * turned off first: the cost of a skipped one. */
static double calibrate_pair(int function, int off, double *inner) {
  enum { ROUNDS = 5 };
  double inj = rp_g.cfg.inject, in = 0.0;
  double g = sink + 1.5; /* unknown to the compiler, or it folds chain() */
  double best_with = INFINITY, best_alone = INFINITY;
  int in_tool = rp_t.in_tool, id;
  rp_g.cfg.inject = 0.0;
  rp_t.in_tool = 0;
  if (function) { /* interns it */
    __cyg_profile_func_enter(CAL_FN, NULL);
    __cyg_profile_func_exit(CAL_FN, NULL);
    id = function_id(CAL_FN);
  } else {
    revprof_region_begin(cal_name);
    revprof_region_end(cal_name);
    id = region_id(cal_name, 0);
  }
  if (off && id >= 0)
    cm.reg[id].off = 1;
  for (int r = 0; r < ROUNDS; r++) {
    double incl0 = id >= 0 ? cm.reg[id].incl : 0.0;
    double with = cal_round(function, &g);
    double t1 = now_s();
    for (int i = 0; i < CAL_N; i++)
      g = chain(g);
    sink = g; /* the loop's work before the clock is read, not after it */
    double alone = now_s() - t1;
    best_alone = fmin(best_alone, alone);
    if (with < best_with) { /* each variant's least disturbed round */
      best_with = with;
      in = id >= 0 ? (cm.reg[id].incl - incl0) / CAL_N : 0.0;
    }
  }
  double best = (best_with - best_alone) / CAL_N;
  in -= best_alone / CAL_N;
  if (off && id >= 0)
    cm.reg[id].off = 0;
  rp_t.in_tool = in_tool;
  rp_g.cfg.inject = inj;
  if (inner)
    *inner = in > 0.0 ? (in < best ? in : best) : 0.0;
  return best > 0.0 ? best : 0.0;
}

/* Cost of the MPI wrapper (an MPI_Wtime through revprof against
 * PMPI_Wtime) and of the piggyback per message (8 B to self by
 * MPI_Sendrecv, through revprof against PMPI), seconds: each variant's
 * least disturbed round, as calibrate_pair takes them (the smallest of
 * per-round differences would take a round whose PMPI loop alone was
 * disturbed, and come out at 0 on a loaded machine). Up to ATTEMPTS times
 * ROUNDS rounds while either cost is not above 0; returns what stayed at
 * 0 (RP_CAL_WRAPPER, RP_CAL_PB; the caller flags it), 0 for none. */
enum { CAL_MPI_ROUNDS = 5, CAL_MPI_ATTEMPTS = 4 };
enum { RP_CAL_WRAPPER = 1, RP_CAL_PB = 2 };
static int calibrate_mpi(double *wrapper, double *pb) {
  enum { N = 2000, ROUNDS = CAL_MPI_ROUNDS, ATTEMPTS = CAL_MPI_ATTEMPTS };
  double inj = rp_g.cfg.inject, a = 0, b = 0;
  int in_tool = rp_t.in_tool, me = rp_g.rank;
  /* revprof's MPI_Wtime, PMPI_Wtime, revprof's and PMPI's MPI_Sendrecv */
  double best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
  double w = 0.0, p = 0.0;
  rp_g.cfg.inject = 0.0;
  rp_t.in_tool = 0;
  for (int r = 0; r < ROUNDS * ATTEMPTS; r++) {
    double t[5];
    t[0] = now_s();
    for (int i = 0; i < N; i++)
      a += rp_g.entry->wtime();
    t[1] = now_s();
    for (int i = 0; i < N; i++)
      a += PMPI_Wtime();
    t[2] = now_s();
    for (int i = 0; i < N; i++)
      rp_g.entry->sendrecv(&a, 1, MPI_DOUBLE, me, 7, &b, 1, MPI_DOUBLE, me,
                           7, rp_g.world, MPI_STATUS_IGNORE);
    t[3] = now_s();
    for (int i = 0; i < N; i++)
      PMPI_Sendrecv(&a, 1, MPI_DOUBLE, me, 7, &b, 1, MPI_DOUBLE, me, 7,
                    rp_g.world, MPI_STATUS_IGNORE);
    t[4] = now_s();
    for (int v = 0; v < 4; v++)
      best[v] = fmin(best[v], t[v + 1] - t[v]);
    w = (best[0] - best[1]) / N;
    p = 0.5 * ((best[2] - best[3]) / N - w);
    if ((r + 1) % ROUNDS == 0 && w > 0.0 && p > 0.0)
      break;
  }
  if (rp_g.cfg.test_cal_zero)
    w = p = 0.0;
  rp_t.in_tool = in_tool;
  rp_g.cfg.inject = inj;
  *wrapper = w > 0.0 ? w : 0.0;
  *pb = p > 0.0 ? p : 0.0;
  return (w > 0.0 ? 0 : RP_CAL_WRAPPER) | (p > 0.0 ? 0 : RP_CAL_PB);
}

/* The model's overhead table, taken at configure: compensate costs no MPI
 * call on the clocks. */
static revprof_model *cm_model;

/* Real time, no simulated costs: the clocks carry delays only. */
static void cm_configure(rp_config *cfg, revprof_model **model) {
  cfg->compute = RP_COMPUTE_ZERO;
  cfg->wtime_real = 1;
  cfg->trace[0] = '\0';
  cfg->lua[0] = '\0';
  cm_model = *model;
  *model = NULL;
}

/* Online monitoring's region data (rp_monitor_regions): each region's
 * calls and inclusive time (parallel compensation) in the slot the
 * front-end gave its name, asked for when the region first has calls to
 * show: named regions first, then -finstrument-functions' functions (by
 * symbol, as the report names them), so that within one offload the
 * program's own regions get the slots before its functions do. MPI calls
 * are in the profile as themselves, not here. */
static void cm_monitor_fill(double *out) {
  int took = rp_mt_hold();
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < cm.nreg; i++) {
      cm_region *r = &cm.reg[i];
      /* the calibration's region has no calls: cm_startup zeroed them */
      if ((pass == 0) != (r->fn == NULL) || r->mpi || r->count <= 0.0 ||
          r->mslot < 0 || (!r->name && !r->fn))
        continue;
      if (r->mslot == 0) {
        char buf[RP_PATH_MAX + 32];
        int s = rp_monitor_region_slot(
            r->fn ? function_name(r->fn, buf, sizeof buf) : r->name);
        r->mslot = s >= 0 ? s + 1 : -1;
        if (s < 0)
          continue;
      }
      out[2 * (r->mslot - 1)] = r->count;
      out[2 * (r->mslot - 1) + 1] = r->incl_p;
    }
  rp_mt_release(took);
}

/* 1 when every rank of the world runs on this node (one clock), agreed
 * by all; collective. REVPROF_TEST_NODES=many: 0, as on several nodes. */
static int one_node(void) {
  const char *t = getenv("REVPROF_TEST_NODES");
  if (t && strcmp(t, "many") == 0)
    return 0;
  int all = 0, mine = rp_g.node_size == rp_g.size;
  if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, rp_g.world) !=
      MPI_SUCCESS)
    return 0;
  return all;
}

static int cm_startup(char *err, size_t errlen) {
  const revprof_model *m = cm_model;
  double enter = revprof_model_overhead(m, "region_enter", -1.0);
  double exit_ = revprof_model_overhead(m, "region_exit", -1.0);
  double mpi = revprof_model_overhead(m, "mpi_wrapper", -1.0);
  double pb = revprof_model_overhead(m, "piggyback", 0.0);
  int have = m && enter >= 0.0 && exit_ >= 0.0 && mpi >= 0.0;
  revprof_model_free(cm_model); /* its numbers are all it was for */
  cm_model = NULL;
  memset(&cm, 0, sizeof cm);
  memset(ncache, 0, sizeof ncache);
  memset(wid_region, 0, sizeof wid_region);
  rp_comp_init(&cm.st);
  if (rp_g.cfg.overhead == RP_OVERHEAD_MODEL && !have) {
    snprintf(err, errlen,
             "REVPROF_OVERHEAD=model: model %s lacks region_enter, "
             "region_exit or mpi_wrapper in its overhead table",
             rp_g.cfg.model);
    return REVPROF_EINVAL;
  }
  if (have && rp_g.cfg.overhead != RP_OVERHEAD_CALIBRATE) {
    cm.o_pair = enter + exit_;
    cm.o_inner = 0.5 * (enter + exit_);
    cm.o_mpi = mpi;
    cm.o_pb = pb;
    cm.src = "model";
  } else {
    cm.o_pair = calibrate_pair(0, 0, &cm.o_inner);
    int zero = calibrate_mpi(&cm.o_mpi, &cm.o_pb);
    if (zero)
      rp_report_flag("cost-calibration", "compensate's calibration found "
                     "revprof's %s no dearer than PMPI's in %d rounds (a "
                     "loaded machine?): taken as 0 s, so MPI calls are "
                     "compensated for less than they cost",
                     zero == RP_CAL_WRAPPER ? "MPI wrapper"
                     : zero == RP_CAL_PB    ? "piggyback per message"
                                            : "MPI wrapper and piggyback",
                     CAL_MPI_ROUNDS * CAL_MPI_ATTEMPTS);
    cm.src = "calibrate";
  }
  /* functions and turned-off regions: characterize's rows for them
     (cost_compensate_function, _skipped) when the model has them */
  if (rp_g.ic_cached[RP_IC_FUNCTION] >= 0.0) {
    cm.o_fpair = rp_g.ic_cached[RP_IC_FUNCTION];
    cm.o_finner = 0.5 * cm.o_fpair;
    rp_g.ic_from_model |= 1u << RP_IC_FUNCTION;
  } else
    cm.o_fpair = calibrate_pair(1, 0, &cm.o_finner);
  if (rp_g.ic_cached[RP_IC_SKIPPED] >= 0.0) {
    cm.o_skip = rp_g.ic_cached[RP_IC_SKIPPED];
    rp_g.ic_from_model |= 1u << RP_IC_SKIPPED;
  } else
    cm.o_skip = calibrate_pair(0, 1, NULL);
  if (cm.src && strcmp(cm.src, "model") == 0)
    rp_g.ic_from_model |= 1u << RP_IC_MPI | 1u << RP_IC_REGION;
  cm.o_fpair += 2.0 * rp_g.cfg.inject;
  cm.o_pair += 2.0 * rp_g.cfg.inject; /* outside the region */
  cm.o_mpi += rp_g.cfg.inject;
  rp_g.ic_cost[RP_IC_MPI] = cm.o_mpi + cm.o_pb;
  rp_g.ic_cost[RP_IC_REGION] = cm.o_pair;
  rp_g.ic_cost[RP_IC_FUNCTION] = cm.o_fpair;
  rp_g.ic_cost[RP_IC_SKIPPED] = cm.o_skip;
  rp_comp_init(&cm.st);
  cm.timed = one_node();
  cm.depth = cm.lost = 0;
  cm.skips = 0;
  for (int i = 0; i < cm.nreg; i++) { /* calibration counts nothing */
    const char *n = cm.reg[i].name;
    const void *fn = cm.reg[i].fn;
    int is_mpi = cm.reg[i].mpi;
    memset(&cm.reg[i], 0, sizeof cm.reg[i]);
    cm.reg[i].name = n;
    cm.reg[i].fn = fn;
    cm.reg[i].mpi = is_mpi;
  }
  cm.nlow = 0;
  cm.reg_t = now_s();
  rp_monitor_regions(cm_monitor_fill);
  /* every rank starts together: MPI_Init ends in a collective anyway */
  PMPI_Barrier(rp_g.world);
  cm.t_init = now_s();
  return 0;
}

/* ---------------------------------------------------------------- report */

typedef struct cm_buf {
  char *p;
  size_t n, cap;
  int fixed; /* p is a static buffer of cap bytes: truncate, never grow */
} cm_buf;

static void RP_PRINTF_(2, 3) put(cm_buf *b, const char *fmt, ...) {
  va_list ap;
  if (b->fixed) { /* the partial report: no malloc in a signal handler */
    if (b->n + 1 >= b->cap)
      return;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (k > 0)
      b->n = b->n + (size_t)k < b->cap ? b->n + (size_t)k : b->cap - 1;
    return;
  }
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0,
                      fmt, ap);
    va_end(ap);
    if (k < 0)
      return;
    if (b->p && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    char *q = rp_grow(b->p, &b->cap, b->n + (size_t)k + 1, 1);
    if (q == NULL)
      return;
    b->p = q;
  }
}

static void write_file(const char *name, const char *head, const char *body) {
  char path[RP_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", rp_g.cfg.outdir, name);
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    rp_warn("cannot write %s: %s", path, strerror(errno));
    return;
  }
  fputs(head, f);
  fputs(body ? body : "", f);
  if (fclose(f) != 0)
    rp_warn("cannot write %s: %s", path, strerror(errno));
}

/* This rank's rows (CSV) and lines (text) at real time t_end; regions
 * still open end there. */
static void rank_rows(cm_buf *csv, cm_buf *txt, double t_end) {
  while (cm.depth > 0 || cm.lost) /* regions left open end here */
    pop(t_end, 0.0);
  double el = t_end - cm.t_init;
  double el_l = rp_comp_local(el, cm.st.o);
  double el_p = rp_comp_parallel(el, cm.st.o, cm.st.adj);
  int r = rp_g.rank;
  put(csv, "%d,(program),1,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,0\n", r, el, el,
      el_l, el_l, el_p, el_p);
  put(txt,
      "rank %d: elapsed %.6f s measured, %.6f s local, %.6f s parallel "
      "(estimated uninstrumented); overhead %.6f s, delay %.6f s, MPI "
      "time %.6f s measured, %.6f s compensated\n",
      r, el, el_l, el_p, cm.st.o, cm.st.x, cm.st.wait, cm.st.wait_c);
  put(txt, "  %-28s %10s %12s %12s %12s %12s %12s %12s %10s\n", "region",
      "count", "incl", "excl", "incl_local", "excl_local", "incl_par",
      "excl_par", "throttled");
  for (int i = 0; i < cm.nreg; i++) {
    const cm_region *g = &cm.reg[i];
    char fname[RP_PATH_MAX + 32];
    if (g->count == 0 && g->skipped == 0)
      continue;
    const char *nm = region_label(g, fname, sizeof fname);
    put(csv, "%d,%s,%.0f,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.0f\n", r, nm,
        g->count, g->incl, g->excl, g->incl_l, g->excl_l, g->incl_p,
        g->excl_p, g->skipped);
    put(txt, "  %-28s %10.0f %12.6f %12.6f %12.6f %12.6f %12.6f %12.6f "
        "%10.0f%s\n", nm, g->count, g->incl, g->excl, g->incl_l, g->excl_l,
        g->incl_p, g->excl_p, g->skipped,
        g->fixed ? " OFF (REVPROF_REGIONS_OFF)" : g->off ? " OFF"
        : g->skipped > 0 ? " (was off)" : "");
  }
}

#define CM_CSV_HEAD                                                        \
  "rank,region,count,incl_s,excl_s,incl_local_s,excl_local_s,"            \
  "incl_parallel_s,excl_parallel_s,throttled_calls\n"

/* The overhead line of both reports. */
static void overhead_line(cm_buf *b) {
  put(b,
      "overhead per event (%s): region enter+exit %.3e s (%.3e s "
      "inside the region), MPI wrapper %.3e s, piggyback %.3e s; "
      "injected %.3e s per event\n"
      "local = measured - own overhead; parallel = local - waiting "
      "removed by delays from other ranks (seed 000%s)\n",
      cm.src ? cm.src : "?", cm.o_pair, cm.o_inner, cm.o_mpi, cm.o_pb,
      rp_g.cfg.inject,
      cm.timed ? "'s rule with the messages' send times: the ranks share "
                 "one node's clock"
               : "'s rule with each message taken as sent when its "
                 "receive ended: the ranks are not all on one node");
}

/* Writes all of b to a new file path (rp_write_whole): 0 or REVPROF_EIO.
 * No malloc (partial reports). */
static int dump(const char *path, const cm_buf *b) {
  return rp_write_whole(path, b->p, b->n) == 0 ? 0 : REVPROF_EIO;
}

static void cm_report_partial(const char *reason, int checkpoint) {
  static char tb[65536], cb[65536];
  static char tpath[RP_PATH_MAX + 64], cpath[RP_PATH_MAX + 64];
  cm_buf txt = {tb, 0, sizeof tb, 1}, csv = {cb, 0, sizeof cb, 1};
  put(&txt, "revprof compensate report (PARTIAL: %s): rank %d of %d\n",
      reason, rp_g.rank, rp_g.size);
  put(&txt, "PARTIAL: %s; this rank's profile up to that point, regions "
            "still open end there\n", reason);
  overhead_line(&txt);
  char cl[300];
  rp_icost_partial_line(cl, sizeof cl);
  put(&txt, "%s\n\n", cl);
  put(&csv, CM_CSV_HEAD);
  put(&csv, "%d,\"(status) PARTIAL: %s\",0,,,,,,,\n", rp_g.rank, reason);
  rank_rows(&csv, &txt, now_s());
  snprintf(tpath, sizeof tpath, "%s/compensate.partial.rank%d.txt",
           rp_g.cfg.outdir, rp_g.rank);
  snprintf(cpath, sizeof cpath, "%s/compensate.partial.rank%d.csv",
           rp_g.cfg.outdir, rp_g.rank);
  rp_mkdir_p(rp_g.cfg.outdir);
  int ok = dump(cpath, &csv) == 0;
  if (dump(tpath, &txt) == 0 && ok) {
    if (rp_g.cfg.quiet || checkpoint)
      return;
    static const char m[] = "revprof: PARTIAL compensate report written to ";
    ssize_t ignored = write(2, m, sizeof m - 1);
    ignored = write(2, tpath, strlen(tpath));
    ignored = write(2, "\n", 1);
    (void)ignored;
  } else if (!rp_g.cfg.quiet && !checkpoint) {
    ssize_t ignored = write(2, tb, txt.n); /* at least on stderr */
    (void)ignored;
  }
}

/* Removes partial reports of an earlier run with the same output folder. */
static void cm_report_startup(void) {
  char path[RP_PATH_MAX + 64];
  static const char *const ext[] = {"txt", "csv"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/compensate.partial.rank%d.%s",
             rp_g.cfg.outdir, rp_g.rank, ext[i]);
    unlink(path);
  }
}

static void cm_report(void) {
  cm_buf csv = {0}, txt = {0};
  cm.t_end = now_s();
  double skipped = 0.0;
  int nskip = 0;
  for (int i = 0; i < cm.nreg; i++)
    if (cm.reg[i].skipped > 0.0) {
      skipped += cm.reg[i].skipped;
      nskip++;
    }
  if (nskip)
    rp_report_flag("throttled", "regions or functions turned off "
                   "(REVPROF_MAX_OVERHEAD, REVPROF_REGIONS_OFF): %.0f calls "
                   "of %d of them are not in the profile (column "
                   "throttled_calls; cost-decisions.csv)", skipped, nskip);
  char *flags = rp_report_flags_block();
  rank_rows(&csv, &txt, cm.t_end);
  int r = rp_g.rank;
  char *all_csv = rp_gather_text(csv.p, csv.n, rp_g.world),
       *all_txt = rp_gather_text(txt.p, txt.n, rp_g.world);
  /* MPI_THREAD_MULTIPLE: the calls of threads the profile leaves out */
  double other = 0.0;
  PMPI_Reduce(&rp_g.other_calls, &other, 1, MPI_DOUBLE, MPI_SUM, 0,
              rp_g.world);
  rp_g.partial_done = 1; /* nothing partial from here on */
  if (r == 0 && all_csv && all_txt) {
    cm_buf head = {0}, chead = {0};
    char threads[400] = "";
    if (other > 0.0)
      snprintf(threads, sizeof threads,
               "thread-profile: MPI_THREAD_MULTIPLE; the profile is that of "
               "the thread that initialized MPI on each rank; %.0f MPI calls "
               "of other threads moved the clocks but are not in it",
               other);
    rp_mkdir_p(rp_g.cfg.outdir);
    put(&chead, CM_CSV_HEAD);
    for (const char *l = flags; l && *l;) { /* its "  key: text" lines */
      size_t n = strcspn(l, "\n");
      if (n > 2 && l[0] == ' ' && l[1] == ' ') {
        put(&chead, "all,\"(flag) ");
        for (size_t i = 2; i < n; i++)
          put(&chead, "%c", l[i] == '"' ? '\'' : l[i]);
        put(&chead, "\",0,,,,,,,\n");
      }
      l += n + (l[n] == '\n');
    }
    if (threads[0])
      put(&chead, "all,\"(flag) %s\",%.0f,,,,,,,\n", threads, other);
    write_file("compensate.csv", chead.p ? chead.p : CM_CSV_HEAD, all_csv);
    free(chead.p);
    put(&head, "revprof compensate report: %d ranks\n", rp_g.size);
    if (flags)
      put(&head, "%s", flags);
    if (threads[0])
      put(&head, "%s\n", threads);
    overhead_line(&head);
    put(&head, "cost: %s\n", rp_icost_line());
    if (rp_monitor_line()[0])
      put(&head, "monitor: %s\n", rp_monitor_line());
    put(&head, "\n");
    write_file("compensate.txt", head.p ? head.p : "", all_txt);
    if (!rp_g.cfg.quiet) {
      fputs(head.p ? head.p : "", stderr);
      fputs(all_txt, stderr);
    }
    free(head.p);
  }
  free(flags);
  free(all_csv);
  free(all_txt);
  free(csv.p);
  free(txt.p);
}

const rp_mode_ops rp_mode_compensate = {
    .name = "compensate",
    .what = "compensation",
    .configure = cm_configure,
    .startup = cm_startup,
    .enter = cm_enter,
    .leave = cm_leave,
    .report = cm_report,
    .report_partial = cm_report_partial,
    .report_startup = cm_report_startup,
    .cost_kinds = 1u << RP_IC_REGION | 1u << RP_IC_FUNCTION |
                  1u << RP_IC_SKIPPED,
    .regulate = cm_regulate,
};
