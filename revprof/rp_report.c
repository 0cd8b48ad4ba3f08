/* Reports of librevprof: the final report at MPI_Finalize (rank 0 gathers
 * every rank's clocks and statistics; text to stderr and report.txt, and
 * report.csv), and a rank's PARTIAL report when the run ends early
 * (MPI_Abort, fatal signal, exit without MPI_Finalize), written with
 * async-signal-safe calls only. */
#include "rp_report.h"
#include "rp_flags.h"
#include "rp_icost.h"
#include "rp_monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------ the data vector */

/* One rank's numbers, as gathered to rank 0. */
enum {
  V_NOW = 0,                              /* final clocks, 3 */
  V_COMPUTE = V_NOW + RP_NB,              /* 3 */
  V_COMM = V_COMPUTE + RP_NB,             /* 3 */
  V_WAIT = V_COMM + RP_NB,                /* 3 */
  V_WILD = V_WAIT + RP_NB,                /* wildcard receives */
  V_SUSP = V_WILD + 1,                    /* of which suspicious */
  V_WEXACT = V_SUSP + 1,                  /* decided in predicted time */
  V_WTIME = V_WEXACT + 1,                 /* ... after a time-out */
  V_WREAL = V_WTIME + 1,                  /* left to the MPI */
  V_WWAIT = V_WREAL + 1,                  /* host s waiting for proofs */
  V_RDV = V_WWAIT + 1,                    /* rendezvous rule applied */
  V_RDV_STD = V_RDV + 1,                  /* ... to standard sends */
  V_RDV_MISS = V_RDV_STD + 1,             /* standard sends it could not
                                             cost (flag eager-guess) */
  V_LUA = V_RDV_MISS + 1,                 /* 1 after a Lua fault */
  V_MISSING = V_LUA + 1,                  /* REVPROF_FN_COUNT flags */
  V_FSTAT = V_MISSING + REVPROF_FN_COUNT, /* RP_W_COUNT x 4 */
  V_HOST = V_FSTAT + 4 * RP_W_COUNT,      /* RP_W_COUNT: host s, uncosted */
  V_RUN = V_HOST + RP_W_COUNT,            /* host s since MPI_Init */
  V_COUNT = V_RUN + 1
};

static void fill_vector(double *v) {
  memcpy(v + V_NOW, rp_g.clk.now, sizeof rp_g.clk.now);
  memcpy(v + V_COMPUTE, rp_g.clk.compute, sizeof rp_g.clk.compute);
  memcpy(v + V_COMM, rp_g.clk.comm, sizeof rp_g.clk.comm);
  memcpy(v + V_WAIT, rp_g.clk.wait, sizeof rp_g.clk.wait);
  v[V_WILD] = (double)rp_g.wild.receives;
  v[V_SUSP] = (double)rp_g.wild.suspicious;
  v[V_WEXACT] = (double)rp_g.wild.exact;
  v[V_WTIME] = (double)rp_g.wild.timeouts;
  v[V_WREAL] = (double)rp_g.wild.real;
  v[V_WWAIT] = rp_g.wild.wait_s;
  v[V_RDV] = (double)rp_g.rendezvous;
  v[V_RDV_STD] = (double)rp_g.rdv_std;
  v[V_RDV_MISS] = (double)rp_g.rdv_std_missed;
  v[V_LUA] = rp_g.lua_fault;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    v[V_MISSING + i] = rp_g.missing[i];
  for (int w = 0; w < RP_W_COUNT; w++) {
    v[V_FSTAT + 4 * w + 0] = rp_g.fstat[w].calls;
    v[V_FSTAT + 4 * w + 1] = rp_g.fstat[w].bytes;
    v[V_FSTAT + 4 * w + 2] = rp_g.fstat[w].time;
    v[V_FSTAT + 4 * w + 3] = rp_g.fstat[w].wait;
    v[V_HOST + w] = rp_g.host_unc[w];
  }
  v[V_RUN] = rp_host_seconds() - rp_g.host_start;
}

/* ------------------------------------------------------------- sinks */

/* Where text goes: a growing memory buffer (final report) or a file
 * descriptor through a fixed buffer (partial report: no malloc, no stdio). */
typedef struct sink {
  int fd;             /* >= 0: write here */
  int safe;           /* format numbers without stdio */
  char buf[2048];
  size_t n;
  char *mem;          /* fd < 0: the text */
  size_t len, cap;
  int failed;
} sink;

static void sink_flush(sink *s) {
  size_t off = 0;
  while (s->fd >= 0 && off < s->n) {
    ssize_t k = write(s->fd, s->buf + off, s->n - off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      s->failed = 1;
      break;
    }
    off += (size_t)k;
  }
  s->n = 0;
}

static void put(sink *s, const char *p, size_t len) {
  if (s->fd < 0) {
    char *m = rp_grow(s->mem, &s->cap, s->len + len + 1, 1);
    if (m == NULL) {
      s->failed = 1;
      return;
    }
    s->mem = m;
    memcpy(s->mem + s->len, p, len);
    s->len += len;
    s->mem[s->len] = '\0';
    return;
  }
  while (len) {
    size_t k = sizeof s->buf - s->n < len ? sizeof s->buf - s->n : len;
    memcpy(s->buf + s->n, p, k);
    s->n += k;
    p += k;
    len -= k;
    if (s->n == sizeof s->buf)
      sink_flush(s);
  }
}

static void puts_(sink *s, const char *str) { put(s, str, strlen(str)); }

/* x with `digits` significant digits (2..9), e.g. 1.23456789e-03, without
 * stdio. */
static void fmt_sci(char *out, double x, int digits) {
  char *p = out;
  if (x != x) {
    memcpy(out, "nan", 4);
    return;
  }
  if (x < 0) {
    *p++ = '-';
    x = -x;
  }
  if (x > 1.7e308) {
    memcpy(p, "inf", 4);
    return;
  }
  int e = 0;
  if (x != 0.0) {
    while (x >= 10.0) {
      x /= 10.0;
      e++;
    }
    while (x < 1.0) {
      x *= 10.0;
      e--;
    }
  }
  double scale = 1.0;
  unsigned long long limit = 10;
  for (int i = 1; i < digits; i++) {
    scale *= 10.0;
    limit *= 10;
  }
  unsigned long long m = (unsigned long long)(x * scale + 0.5);
  if (m >= limit) {
    m /= 10;
    e++;
  }
  char d[9];
  for (int i = digits - 1; i >= 0; i--) {
    d[i] = (char)('0' + m % 10);
    m /= 10;
  }
  *p++ = d[0];
  *p++ = '.';
  for (int i = 1; i < digits; i++)
    *p++ = d[i];
  *p++ = 'e';
  *p++ = e < 0 ? '-' : '+';
  if (e < 0)
    e = -e;
  if (e >= 100)
    *p++ = (char)('0' + e / 100);
  *p++ = (char)('0' + e / 10 % 10);
  *p++ = (char)('0' + e % 10);
  *p = '\0';
}

static void fmt_int(char *out, long long v) {
  char t[32];
  int n = 0;
  unsigned long long u = v < 0 ? (unsigned long long)(-(v + 1)) + 1 : (unsigned long long)v;
  do {
    t[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  char *p = out;
  if (v < 0)
    *p++ = '-';
  while (n)
    *p++ = t[--n];
  *p = '\0';
}

static void putd(sink *s, double x) {
  char b[40];
  if (s->safe)
    fmt_sci(b, x, 9);
  else
    snprintf(b, sizeof b, "%.9e", x);
  puts_(s, b);
}

/* Exact value for CSV (round trip in the final report). */
static void putd_csv(sink *s, double x) {
  char b[40];
  if (s->safe)
    fmt_sci(b, x, 9);
  else
    snprintf(b, sizeof b, "%.17g", x);
  puts_(s, b);
}

static void puti(sink *s, long long v) {
  char b[32];
  fmt_int(b, v);
  puts_(s, b);
}

/* str left-aligned (width > 0) or right-aligned (width < 0). */
static void putcol(sink *s, const char *str, int width) {
  int len = (int)strlen(str), w = width < 0 ? -width : width;
  if (width < 0)
    for (int i = len; i < w; i++)
      put(s, " ", 1);
  puts_(s, str);
  if (width > 0)
    for (int i = len; i < w; i++)
      put(s, " ", 1);
}

static void putdcol(sink *s, double x, int width) {
  char b[40];
  if (s->safe)
    fmt_sci(b, x, 7);
  else
    snprintf(b, sizeof b, "%.6e", x);
  putcol(s, b, width);
}

static void putcsv(sink *s, const char *str) {
  int quote = strpbrk(str, ",\"\n") != NULL;
  if (quote)
    put(s, "\"", 1);
  for (; *str; str++) {
    if (*str == '"')
      put(s, "\"", 1);
    put(s, str, 1);
  }
  if (quote)
    put(s, "\"", 1);
}

/* --------------------------------------------------------------- flags */


typedef rp_flag_set flag_set;
#define flagset_add rp_flag_set_add

/* Texts of the flags derived from the report's numbers, built without
 * stdio (the partial report runs in signal handlers). */
static char derived[REVPROF_FN_COUNT + 4][RP_FLAG_TEXT];

static const char *cat(char *out, const char *const *parts, int n) {
  size_t k = 0;
  for (int i = 0; i < n; i++)
    for (const char *p = parts[i]; p && *p && k + 1 < RP_FLAG_TEXT; p++)
      out[k++] = *p;
  out[k] = '\0';
  return out;
}

/* Synchronous sends (MPI_Ssend, MPI_Issend, MPI_Ssend_init and their
 * large-count twins) among the calls of a rank (its vector v) that were
 * costed as standard sends: all but those of the rendezvous rule. */
static double sync_sends(const double *v) {
  double n = 0.0;
  for (int w = 0; w < RP_W_COUNT; w++)
    if (strncmp(rp_wrap_name[w], "MPI_Ssend", 9) == 0 ||
        strncmp(rp_wrap_name[w], "MPI_Issend", 10) == 0)
      n += v[V_FSTAT + 4 * w];
  return n - v[V_RDV];
}

/* The sends the rendezvous rule left as eager ones, and on how many
 * ranks: synchronous send calls (sync_sends) and standard sends at or
 * above the model's eager limit (V_RDV_MISS). */
typedef struct rdv_left {
  double sync, std;
  int sync_ranks, std_ranks;
} rdv_left;

static void rdv_left_add(rdv_left *l, const double *v) {
  double k = sync_sends(v);
  l->sync += k;
  l->sync_ranks += k > 0;
  l->std += v[V_RDV_MISS];
  l->std_ranks += v[V_RDV_MISS] > 0;
}

/* Flags that follow from the numbers: model fallbacks (missing: flags per
 * function, on missing_ranks ranks), Lua faults (lua_ranks), no computation on any rank
 * (no_compute), nothing intercepted (calls: MPI calls seen besides
 * MPI_Finalize), wildcard receives out of predicted order, sends the
 * rendezvous rule left as eager ones (left). */
static void derive_flags(flag_set *fs, const double *missing,
                         int missing_ranks, double lua_ranks, int no_compute,
                         double calls, double suspicious,
                         const rdv_left *left, int nranks) {
  int d = 0;
  char num[32];
  if (calls <= 0) {
    const char *p[] = {
        "no MPI call was intercepted besides MPI_Init and MPI_Finalize; if "
        "the program communicates, it does so through calls revprof does "
        "not see (language bindings it does not wrap, a "
        "statically linked MPI, -lrevprof after the MPI library): nothing "
        "was predicted"};
    flagset_add(fs, "nothing-intercepted", cat(derived[d++], p, 1), nranks);
  }
  if (missing_ranks > 0) {
    char *out = derived[d++];
    size_t k = 0;
    int m = 0;
    const char *head = "the model has no ";
    for (int i = 0; i < REVPROF_FN_COUNT; i++) {
      if (!missing[i])
        continue;
      revprof_fn e = rp_g.eff[i];
      const char *p[] = {m++ ? ", " : head, revprof_fn_name((revprof_fn)i),
                         " (costed as ",
                         e == REVPROF_FN_COUNT ? "0 s" : revprof_fn_name(e),
                         ")"};
      for (int q = 0; q < 5; q++)
        for (const char *c = p[q]; *c && k + 4 < RP_FLAG_TEXT; c++)
          out[k++] = *c;
    }
    if (k + 4 >= RP_FLAG_TEXT)
      memcpy(out + k, "...", 3), k += 3;
    out[k] = '\0';
    flagset_add(fs, "fallback", out, missing_ranks);
  }
  if (lua_ranks > 0) {
    const char *p[] = {"Lua region costs were off for (part of) the run",
                       rp_g.lua_error[0] ? ": " : "", rp_g.lua_error};
    flagset_add(fs, "lua", cat(derived[d++], p, 3), (int)lua_ranks);
  }
  if (no_compute > 0 && rp_g.cfg.mode == RP_MODE_PREDICT) {
    const char *p[] = {"no computation declared or measured (REVPROF_COMPUTE=",
                       rp_compute_name(rp_g.cfg.compute),
                       "): the prediction counts communication only"};
    flagset_add(fs, "no-compute", cat(derived[d++], p, 3), no_compute);
  }
  if (suspicious > 0) {
    fmt_int(num, (long long)suspicious);
    const char *p[] = {num, " wildcard receive(s) would have matched another "
                            "sender in the predicted order"};
    flagset_add(fs, "wildcard-order", cat(derived[d++], p, 2), nranks);
  }
  if (left->sync > 0 && rp_g.cfg.mode == RP_MODE_PREDICT) {
    fmt_int(num, (long long)left->sync);
    const char *p[] = {
        num, " synchronous send call(s) costed as standard sends "
             "(MPI_Ssend_init; MPI_Ssend and MPI_Issend whose receive the "
             "rendezvous rule could not tell: several hosts, "
             "REVPROF_WILDCARD=real, a receiver's wildcard, matched-probe or "
             "cancelled receives, over 4096 tag keys; MPI_Issend without the "
             "gap row): a sender whose receiver posts late is predicted "
             "early"};
    flagset_add(fs, "synchronous-send", cat(derived[d++], p, 2),
                left->sync_ranks);
  }
  if (left->std > 0) {
    char lim[32];
    fmt_int(num, (long long)left->std);
    revprof_eager_format(rp_g.eager_limit, lim, sizeof lim);
    const char *p[] = {
        num, " standard send(s) of ", lim, " B or more (the model's eager "
        "limit) costed as eager: the host's MPI completed them before their "
        "receive was posted (its eager limit is higher), or that post could "
        "not be told (several hosts, REVPROF_WILDCARD=real, a receiver's "
        "wildcard, matched-probe or cancelled receives, over 4096 tag keys, "
        "no gap row): a late receiver's sender is predicted early"};
    flagset_add(fs, "eager-guess", cat(derived[d++], p, 4), left->std_ranks);
  }
}

/* The "flags:" block, right under the report's title. */
static void flags_text(sink *s, const flag_set *fs) {
  char b[32];
  int nranks = fs->nranks;
  puts_(s, "flags:     ");
  if (fs->n == 0) {
    puts_(s, "none\n");
    return;
  }
  fmt_int(b, fs->n);
  puts_(s, b);
  puts_(s, rp_g.cfg.mode == RP_MODE_PREDICT
               ? " (this prediction is degraded or partly guessed)\n"
               : " (these measurements are degraded or partly guessed)\n");
  for (int i = 0; i < fs->n; i++) {
    puts_(s, "  ");
    puts_(s, fs->row[i].key);
    puts_(s, ": ");
    puts_(s, fs->row[i].text);
    if (nranks > 1) {
      puts_(s, " [");
      if (fs->row[i].ranks >= nranks)
        puts_(s, "all ");
      else {
        fmt_int(b, fs->row[i].ranks);
        puts_(s, b);
        puts_(s, " of ");
      }
      fmt_int(b, nranks);
      puts_(s, b);
      puts_(s, " ranks]");
    }
    puts_(s, "\n");
  }
  if (fs->lost) {
    puts_(s, "  (and ");
    fmt_int(b, fs->lost);
    puts_(s, b);
    puts_(s, " more flags not shown)\n");
  }
}

static void csv_row(sink *s, const char *record, int rank, const char *name,
                    const double *calls_bytes, const double *mma,
                    const double *wait);

/* flags,<scope>,<key;key;...>,<n>, then flag,<scope>,"<key>: <text>",<ranks> */
static void flags_csv(sink *s, const flag_set *fs, int rank) {
  char keys[1024];
  rp_flag_set_keys(fs, keys, sizeof keys);
  double cb[2] = {fs->n + fs->lost, 0.0};
  csv_row(s, "flags", rank, keys, cb, NULL, NULL);
  for (int i = 0; i < fs->n; i++) {
    static char line[RP_FLAG_KEY + RP_FLAG_TEXT + 4];
    const char *p[] = {fs->row[i].key, ": ", fs->row[i].text};
    size_t m = 0;
    for (int q = 0; q < 3; q++)
      for (const char *c = p[q]; *c && m + 1 < sizeof line; c++)
        line[m++] = *c;
    line[m] = '\0';
    cb[0] = fs->row[i].ranks;
    csv_row(s, "flag", rank, line, cb, NULL, NULL);
  }
}

/* MPI calls this rank's wrappers saw, MPI_Finalize aside. */
static double calls_seen(const double *fstat) {
  double n = 0.0;
  for (int w = 0; w < RP_W_COUNT; w++)
    if (w != RP_W_MPI_Finalize)
      n += fstat[4 * w];
  return n;
}

/* ------------------------------------------------------------ contents */

static char settings_text[2048]; /* filled at start-up */
static char host_text[400];      /* this host and its MPI, at start-up */
static char txt_path[RP_PATH_MAX + 64], csv_path[RP_PATH_MAX + 64];
static char ptxt_path[RP_PATH_MAX + 64], pcsv_path[RP_PATH_MAX + 64];
static char ptxt_tmp[RP_PATH_MAX + 80], pcsv_tmp[RP_PATH_MAX + 80];
static int have_dir;

/* The model's eager limit: "65536 B", "none" or "not measured: ...". */
static const char *eager_text(void) {
  static char b[96];
  double e = rp_g.model ? rp_g.model->machine_eager_limit : 0.0;
  if (e > 0 && !isinf(e))
    snprintf(b, sizeof b, "%.0f B", e);
  else
    snprintf(b, sizeof b, "%s", e > 0 ? "none"
                                      : "not measured: every standard send "
                                        "costed as eager");
  return b;
}

static void header_text(sink *s, const char *status, int nranks,
                        const flag_set *fs) {
  puts_(s, "==== revprof: predicted performance (");
  puts_(s, status);
  puts_(s, ") ====\n");
  flags_text(s, fs);
  puts_(s, "model:     ");
  puts_(s, rp_g.cfg.model);
  if (rp_g.model) {
    puts_(s, "\nmachine:   ");
    puts_(s, rp_g.model->machine_name[0] ? rp_g.model->machine_name : "?");
    puts_(s, " | ");
    puts_(s, rp_g.model->machine_mpi[0] ? rp_g.model->machine_mpi : "?");
    puts_(s, " | characterized ");
    puts_(s, rp_g.model->machine_date[0] ? rp_g.model->machine_date : "?");
    puts_(s, " | eager limit ");
    puts_(s, eager_text());
  }
  puts_(s, "\nhost:      ");
  puts_(s, host_text);
  puts_(s, "\nsettings:  ");
  puts_(s, settings_text);
  static char so_far[320]; /* a partial report: the cost up to now */
  const char *cost = rp_icost_line();
  if (!cost[0] && strncmp(status, "PARTIAL", 7) == 0) {
    rp_icost_partial_line(so_far, sizeof so_far);
    cost = so_far;
  }
  if (cost[0]) {
    puts_(s, "\ncost:      ");
    puts_(s, cost);
  }
  if (rp_monitor_line()[0]) {
    puts_(s, "\nmonitor:   ");
    puts_(s, rp_monitor_line());
  }
  puts_(s, "\nranks:     ");
  puti(s, nranks);
  puts_(s, "\n");
}

static void rank_line(sink *s, int rank, const double *v) {
  char b[32];
  fmt_int(b, rank);
  putcol(s, b, -6);
  put(s, "  ", 2);
  putdcol(s, v[V_NOW + RP_AVG], -13);
  puts_(s, "  [");
  putdcol(s, v[V_NOW + RP_MIN], 0);
  puts_(s, ", ");
  putdcol(s, v[V_NOW + RP_MAX], 0);
  puts_(s, "]  ");
  putdcol(s, v[V_COMPUTE + RP_AVG], -13);
  put(s, " ", 1);
  putdcol(s, v[V_COMM + RP_AVG], -15);
  put(s, " ", 1);
  putdcol(s, v[V_WAIT + RP_AVG], -12);
  puts_(s, "\n");
}

static void functions_text(sink *s, const double *f, const double *host) {
  puts_(s, "\nfunction                        calls           bytes       "
           "time s    waiting s\n");
  for (int w = 0; w < RP_W_COUNT; w++) {
    const double *x = f + 4 * w;
    if (x[0] <= 0)
      continue;
    putcol(s, rp_wrap_name[w], 26);
    char b[32];
    fmt_int(b, (long long)x[0]);
    putcol(s, b, -11);
    fmt_int(b, (long long)x[1]);
    putcol(s, b, -16);
    put(s, " ", 1);
    putdcol(s, x[2], -12);
    put(s, " ", 1);
    putdcol(s, x[3], -12);
    if (rp_uncosted((rp_wid)w) && host) {
      puts_(s, "  not predicted (host ");
      putd(s, host[w]);
      puts_(s, " s)");
    }
    puts_(s, "\n");
  }
}

/* The calls without a cost rule (kind uncosted), over all ranks. */
typedef struct unpredicted {
  double calls, host; /* how many, their host seconds */
  double run;         /* the ranks' host seconds since MPI_Init */
  int ranks;          /* ranks that made any */
} unpredicted;

/* Counts them from every rank's vector (all, n ranks) and writes the text
 * of the "not-predicted" flag: "N calls, T s of host time (P % of the
 * ranks' time since MPI_Init) in F1 (n1), F2 (n2) ...", functions by host
 * time, most first. */
static unpredicted not_predicted(const double *all, int n, char *text,
                                 size_t len) {
  unpredicted u = {0.0, 0.0, 0.0, 0};
  static double calls[RP_W_COUNT], host[RP_W_COUNT];
  static unsigned char shown[RP_W_COUNT];
  memset(calls, 0, sizeof calls);
  memset(host, 0, sizeof host);
  memset(shown, 0, sizeof shown);
  for (int r = 0; r < n; r++) {
    const double *x = all + (size_t)r * V_COUNT;
    int any = 0;
    u.run += x[V_RUN];
    for (int w = 0; w < RP_W_COUNT; w++)
      if (rp_uncosted((rp_wid)w) && x[V_FSTAT + 4 * w] > 0) {
        calls[w] += x[V_FSTAT + 4 * w];
        host[w] += x[V_HOST + w];
        any = 1;
      }
    u.ranks += any;
  }
  for (int w = 0; w < RP_W_COUNT; w++) {
    u.calls += calls[w];
    u.host += host[w];
  }
  int k = snprintf(text, len, "%.0f calls, %.3g s of host time (%.2g %% of "
                   "the ranks' time since MPI_Init) in",
                   u.calls, u.host, u.run > 0 ? 100.0 * u.host / u.run : 0.0);
  int nfn = 0, shown_n = 0;
  for (int w = 0; w < RP_W_COUNT; w++)
    nfn += calls[w] > 0;
  for (; k > 0 && (size_t)k < len; shown_n++) {
    int best = -1;
    for (int w = 0; w < RP_W_COUNT; w++)
      if (calls[w] > 0 && !shown[w] && (best < 0 || host[w] > host[best]))
        best = w;
    if (best < 0)
      break;
    char item[96];
    int m = snprintf(item, sizeof item, "%s %s (%.0f)", shown_n ? "," : "",
                     rp_wrap_name[best], calls[best]);
    if (m < 0 || (size_t)(k + m) + 40 >= len)
      break; /* room left for the "more" note */
    shown[best] = 1;
    memcpy(text + k, item, (size_t)m + 1);
    k += m;
  }
  if (shown_n < nfn && k > 0 && (size_t)k < len)
    snprintf(text + k, len - (size_t)k, " and %d more (report.csv)",
             nfn - shown_n);
  return u;
}

static void warnings_text(sink *s, const double *wild, const double *missing,
                          double lua_ranks) {
  puts_(s, "\nwildcard receives: ");
  puti(s, (long long)wild[0]);
  puts_(s, "; where the predicted arrival order would have matched another "
           "sender: ");
  puti(s, (long long)wild[1]);
  puts_(s, "\nwildcard matches decided in predicted time: ");
  puti(s, (long long)wild[2]);
  puts_(s, " exactly, ");
  puti(s, (long long)wild[3]);
  puts_(s, " after a time-out; left to the MPI's order: ");
  puti(s, (long long)wild[4]);
  puts_(s, "; host time waiting for proofs: ");
  putd(s, wild[5]);
  puts_(s, " s\nsynchronous sends costed with their receive's post "
           "(rendezvous rule): ");
  puti(s, (long long)wild[V_RDV - V_WILD]);
  puts_(s, "\nstandard sends at or above the eager limit (");
  puts_(s, eager_text());
  puts_(s, "): costed with their receive's post ");
  puti(s, (long long)wild[V_RDV_STD - V_WILD]);
  puts_(s, ", as eager sends ");
  puti(s, (long long)wild[V_RDV_MISS - V_WILD]);
  puts_(s, "\n");
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    if (!missing[i])
      continue;
    revprof_fn e = rp_g.eff[i];
    puts_(s, "warning: the model has no ");
    puts_(s, revprof_fn_name((revprof_fn)i));
    if (e == REVPROF_FN_COUNT)
      puts_(s, "; costed as 0 s\n");
    else {
      puts_(s, "; costed as ");
      puts_(s, revprof_fn_name(e));
      puts_(s, "\n");
    }
  }
  if (lua_ranks > 0) {
    puts_(s, "warning: Lua region costs were off for (part of) the run on ");
    puti(s, (long long)lua_ranks);
    puts_(s, " rank(s)");
    if (rp_g.lua_error[0]) {
      puts_(s, ": ");
      puts_(s, rp_g.lua_error);
    }
    puts_(s, "\n");
  }
}

/* One CSV row; host and status: the last two columns (host_s, status). */
static void csv_row_st(sink *s, const char *record, int rank,
                       const char *name, const double *calls_bytes,
                       const double *mma, const double *wait,
                       const double *host, const char *status) {
  puts_(s, record);
  put(s, ",", 1);
  if (rank < 0)
    puts_(s, "all");
  else
    puti(s, rank);
  put(s, ",", 1);
  putcsv(s, name);
  put(s, ",", 1);
  if (calls_bytes) {
    puti(s, (long long)calls_bytes[0]);
    put(s, ",", 1);
    putd_csv(s, calls_bytes[1]);
  } else
    put(s, ",", 1);
  for (int b = 0; b < RP_NB; b++) {
    put(s, ",", 1);
    if (mma)
      putd_csv(s, mma[b]);
  }
  put(s, ",", 1);
  if (wait)
    putd_csv(s, *wait);
  put(s, ",", 1);
  if (host)
    putd_csv(s, *host);
  put(s, ",", 1);
  if (status)
    puts_(s, status);
  put(s, "\n", 1);
}

static void csv_row(sink *s, const char *record, int rank, const char *name,
                    const double *calls_bytes, const double *mma,
                    const double *wait) {
  csv_row_st(s, record, rank, name, calls_bytes, mma, wait, NULL, NULL);
}

static void csv_settings(sink *s, int rank, const char *status,
                         const flag_set *fs) {
  puts_(s, "record,rank,name,calls,bytes,min_s,avg_s,max_s,wait_s,host_s,"
           "status\n");
  csv_row(s, "status", rank, status, NULL, NULL, NULL);
  flags_csv(s, fs, rank);
  csv_row(s, "setting", -1, settings_text, NULL, NULL, NULL);
  csv_row(s, "host", rank, host_text, NULL, NULL, NULL);
}

static void csv_rank(sink *s, int rank, const double *v) {
  csv_row(s, "rank", rank, "final", NULL, v + V_NOW, NULL);
  csv_row(s, "rank", rank, "compute", NULL, v + V_COMPUTE, NULL);
  csv_row(s, "rank", rank, "communication", NULL, v + V_COMM, NULL);
  csv_row(s, "rank", rank, "waiting", NULL, v + V_WAIT, NULL);
}

/* f: RP_W_COUNT x 4 statistics; host: RP_W_COUNT host seconds of the
 * calls without a cost rule (NULL: not known, partial reports). */
static void csv_functions(sink *s, int rank, const double *f,
                          const double *host) {
  for (int w = 0; w < RP_W_COUNT; w++) {
    const double *x = f + 4 * w;
    double t[RP_NB] = {0.0, x[2], 0.0};
    if (x[0] <= 0)
      continue;
    t[RP_MIN] = t[RP_MAX] = x[2]; /* per-function times: avg clock */
    int unc = rp_uncosted((rp_wid)w);
    csv_row_st(s, "function", rank, rp_wrap_name[w], x, t, &x[3],
               unc && host ? &host[w] : NULL,
               unc ? "not-predicted" : "costed");
  }
}

static void csv_warnings(sink *s, const double *wild, const double *missing) {
  double cb[2] = {wild[0], 0.0};
  csv_row(s, "wildcard", -1, "receives", cb, NULL, NULL);
  cb[0] = wild[1];
  csv_row(s, "wildcard", -1, "suspicious", cb, NULL, NULL);
  cb[0] = wild[2];
  csv_row(s, "wildcard", -1, "decided", cb, NULL, NULL);
  cb[0] = wild[3];
  csv_row(s, "wildcard", -1, "timeouts", cb, NULL, NULL);
  cb[0] = wild[4];
  csv_row(s, "wildcard", -1, "real-order", cb, NULL, NULL);
  csv_row_st(s, "wildcard", -1, "proof-wait", NULL, NULL, NULL, &wild[5],
             NULL); /* host seconds */
  cb[0] = wild[V_RDV - V_WILD];
  csv_row(s, "rendezvous", -1, "costed", cb, NULL, NULL);
  cb[0] = wild[V_RDV_STD - V_WILD];
  csv_row(s, "rendezvous", -1, "standard", cb, NULL, NULL);
  cb[0] = wild[V_RDV_MISS - V_WILD];
  csv_row(s, "rendezvous", -1, "standard-eager", cb, NULL, NULL);
  static char limit[64];
  snprintf(limit, sizeof limit, "eager-limit %s", eager_text());
  csv_row(s, "rendezvous", -1, limit, NULL, NULL, NULL);
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (missing[i])
      csv_row(s, "missing", -1, revprof_fn_name((revprof_fn)i), NULL, NULL,
              NULL);
}

/* The "extrapolated:" line of the final report's header when no call was
 * extrapolated (or none could be detected), and its CSV rows: model uses
 * outside the measured range (rp_engine.c counts them). Extrapolated calls
 * are an "extrapolated" flag, listed with the header's other flags. */
static void extrap_text(sink *s) {
  char b[2048];
  if (rp_extrap_text(b, sizeof b) > 0.0)
    return; /* said by the "extrapolated" flag among the header's flags */
  puts_(s, "extrapolated: ");
  puts_(s, b);
  puts_(s, "\n");
}

static void extrap_csv(sink *s) {
  char b[320];
  double total = rp_extrap_text(b, sizeof b), cb[2] = {total, 0.0};
  csv_row(s, "extrapolated", -1, "all", cb, NULL, NULL);
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if ((cb[0] = rp_extrap_fn_text((revprof_fn)i, b, sizeof b)) > 0.0)
      csv_row(s, "extrapolated", -1, b, cb, NULL, NULL);
}

/* ------------------------------------------------------- final report */

static int write_file(const char *path, const char *text, size_t len) {
  return rp_write_whole(path, text, len) == 0 ? 0 : REVPROF_EIO;
}

/* Every rank's flags to rank 0, as "key\ttext\n" lines (NULL elsewhere
 * or when out of memory). */
static char *gather_flags(void) {
  static char mine[RP_FLAGS_MAX * (RP_FLAG_KEY + RP_FLAG_TEXT + 2) + 1];
  size_t len = rp_flag_store_lines(&rp_g.flags, mine, sizeof mine);
  return rp_gather_text(mine, len, rp_world_shadow());
}

char *rp_report_flags_block(void) {
  char *lines = gather_flags();
  if (rp_g.rank != 0) {
    free(lines);
    return NULL;
  }
  static flag_set fs;
  memset(&fs, 0, sizeof fs);
  fs.nranks = rp_g.size;
  if (lines)
    rp_flag_set_parse(&fs, lines); /* its texts point into lines */
  sink s = {.fd = -1};
  flags_text(&s, &fs);
  free(lines);
  if (s.failed) {
    free(s.mem);
    return NULL;
  }
  return s.mem;
}

void rp_report_final(void) {
  double *v = calloc(V_COUNT, sizeof *v);
  double *all = NULL;
  int n = rp_g.size;
  if (v == NULL)
    return;
  fill_vector(v);
  if (rp_g.rank == 0)
    all = calloc((size_t)n * V_COUNT, sizeof *all);
  int have = rp_g.rank != 0 || all != NULL;
  PMPI_Gather(v, V_COUNT, MPI_DOUBLE, all, V_COUNT, MPI_DOUBLE, 0,
              rp_world_shadow());
  char *flag_lines = gather_flags();
  rp_extrap_reduce(rp_world_shadow()); /* collective: before any return */
  rp_g.partial_done = 1; /* nothing partial from here on */
  free(v);
  if (rp_g.rank != 0 || !have) {
    free(flag_lines);
    return;
  }

  double el[RP_NB] = {0, 0, 0}, sum[V_COUNT];
  memset(sum, 0, sizeof sum);
  for (int r = 0; r < n; r++) {
    const double *x = all + (size_t)r * V_COUNT;
    for (int b = 0; b < RP_NB; b++)
      if (x[V_NOW + b] > el[b])
        el[b] = x[V_NOW + b];
    for (int i = V_WILD; i < V_COUNT; i++)
      sum[i] = i >= V_MISSING && i < V_FSTAT ? (sum[i] || x[i]) : sum[i] + x[i];
  }

  static flag_set fs;
  int no_compute = 0, missing_ranks = 0;
  double calls = 0.0;
  rdv_left left = {0};
  memset(&fs, 0, sizeof fs);
  for (int r = 0; r < n; r++) {
    const double *x = all + (size_t)r * V_COUNT;
    no_compute += x[V_COMPUTE + RP_AVG] == 0.0;
    calls += calls_seen(x + V_FSTAT);
    rdv_left_add(&left, x);
    int any = 0;
    for (int i = 0; i < REVPROF_FN_COUNT; i++)
      any |= x[V_MISSING + i] != 0.0;
    missing_ranks += any;
  }
  fs.nranks = n;
  derive_flags(&fs, sum + V_MISSING, missing_ranks, sum[V_LUA],
               no_compute == n ? n : 0,
               calls, sum[V_SUSP], &left, n);
  rp_flag_set_parse(&fs, flag_lines);
  static char extrap_flag[RP_FLAG_TEXT], unpred_flag[RP_FLAG_TEXT],
      lowc_flag[RP_FLAG_TEXT];
  if (rp_extrap_text(extrap_flag, sizeof extrap_flag) > 0.0)
    rp_flag_set_add(&fs, "extrapolated", extrap_flag, n);
  if (rp_lowconf_text(lowc_flag, sizeof lowc_flag) > 0.0)
    rp_flag_set_add(&fs, "low-confidence", lowc_flag, n);
  unpredicted unp = not_predicted(all, n, unpred_flag, sizeof unpred_flag);
  if (unp.calls > 0)
    rp_flag_set_add(&fs, "not-predicted", unpred_flag, unp.ranks);
  /* more than 1 % of the run went into calls without a cost rule */
  int incomplete = unp.host > 0.01 * unp.run;
  const char *status = incomplete ? "FINAL, INCOMPLETE" : "FINAL";
  if (calls <= 0)
    rp_warn("no MPI call was intercepted besides MPI_Init and MPI_Finalize: "
            "if the program communicates, it does so through calls revprof "
            "does not see (language bindings it does not wrap, a "
            "statically linked MPI, -lrevprof after the MPI library)");

  sink t = {.fd = -1}, c = {.fd = -1};
  header_text(&t, status, n, &fs);
  extrap_text(&t);
  puts_(&t, "\npredicted elapsed time: ");
  putd(&t, el[RP_AVG]);
  puts_(&t, " s  [min ");
  putd(&t, el[RP_MIN]);
  puts_(&t, ", max ");
  putd(&t, el[RP_MAX]);
  puts_(&t, "]\n");
  if (incomplete)
    puts_(&t, "  INCOMPLETE: it leaves out the calls without a cost rule "
              "(not-predicted above), more than 1 % of the run's host time\n");
  puts_(&t, "  (latest final clock over the ranks; min and max from the "
            "model bounds");
  if (rp_g.cfg.compute == RP_COMPUTE_MEASURE) {
    char b[256];
    snprintf(b, sizeof b,
             " and measured compute -%.0f%%/+%.0f%% (its spread on rank 0, "
             "at least %.0f%%: %s; gaps timed by the %s, %.0f ns a read)",
             100.0 * rp_g.noise.lo, 100.0 * rp_g.noise.hi,
             100.0 * rp_g.cfg.compute_spread,
             rp_g.spread_from ? rp_g.spread_from : "default",
             rp_g.timer_name ? rp_g.timer_name : "monotonic clock",
             1e9 * rp_g.gap_tool.wall);
    puts_(&t, b);
  } else
    puts_(&t, " and REVPROF_STEP_MIN/MAX");
  puts_(&t, ")\n\n");
  puts_(&t, "rank    final avg s    [min, max]                          "
            "compute s   communication s    waiting s\n");
  for (int r = 0; r < n; r++)
    rank_line(&t, r, all + (size_t)r * V_COUNT);
  functions_text(&t, sum + V_FSTAT, sum + V_HOST);
  warnings_text(&t, sum + V_WILD, sum + V_MISSING, sum[V_LUA]);

  csv_settings(&c, -1, status, &fs);
  extrap_csv(&c);
  csv_row_st(&c, "elapsed", -1, "predicted", NULL, el, NULL, NULL,
             incomplete ? "incomplete" : "complete");
  for (int r = 0; r < n; r++)
    csv_rank(&c, r, all + (size_t)r * V_COUNT);
  csv_functions(&c, -1, sum + V_FSTAT, sum + V_HOST);
  for (int r = 0; r < n; r++)
    csv_functions(&c, r, all + (size_t)r * V_COUNT + V_FSTAT,
                  all + (size_t)r * V_COUNT + V_HOST);
  csv_warnings(&c, sum + V_WILD, sum + V_MISSING);

  if (t.mem && !rp_g.cfg.quiet)
    fputs(t.mem, stderr);
  if (t.failed || c.failed)
    rp_warn("out of memory writing the report");
  else if (!have_dir || write_file(txt_path, t.mem, t.len) != 0 ||
           write_file(csv_path, c.mem, c.len) != 0)
    rp_warn("cannot write %s and %s: %s", txt_path, csv_path,
            strerror(errno));
  else if (!rp_g.cfg.quiet)
    fprintf(stderr, "revprof: report written to %s and %s\n", txt_path,
            csv_path);
  free(t.mem);
  free(c.mem);
  free(all);
  free(flag_lines);
}

/* ----------------------------------------------------- partial report */

static int open_tmp(const char *path) {
  return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

static volatile sig_atomic_t in_checkpoint; /* a signal then: the last
                                               checkpoint stays */
static int checkpointed;                     /* one was written */
static double checkpoint_gap;

/* This rank's report so far: on a fatal signal or an exit without
 * MPI_Finalize (said on stderr; nothing partial after it), or as a
 * checkpoint (files only, written again at the next one). */
static void partial(const char *reason, int checkpoint) {
  static double v[V_COUNT]; /* no stack growth in a signal handler */
  if (rp_g.partial_done || !rp_g.initialized || (in_checkpoint && !checkpoint))
    return;
  if (rp_g.active && rp_g.mode && rp_g.mode->report_partial) {
    rp_g.partial_done = !checkpoint; /* the mode's own profile */
    rp_g.mode->report_partial(reason, checkpoint);
    return;
  }
  if (rp_g.model == NULL)
    return;
  rp_g.partial_done = !checkpoint;
  if (!have_dir && (rp_g.cfg.quiet || checkpoint))
    return; /* nowhere to write, and stderr is the program's */
  fill_vector(v);
  static sink t, c;
  memset(&t, 0, offsetof(sink, buf));
  memset(&c, 0, offsetof(sink, buf));
  t.safe = c.safe = 1;
  t.fd = have_dir ? open_tmp(ptxt_tmp) : -1;
  c.fd = have_dir ? open_tmp(pcsv_tmp) : -1;
  t.n = c.n = 0;
  t.mem = c.mem = NULL;
  if (t.fd < 0)
    t.fd = 2; /* at least stderr */
  char status[512] = "PARTIAL: ";
  size_t k = strlen(status), rl = strlen(reason);
  if (rl > sizeof status - k - 1)
    rl = sizeof status - k - 1;
  memcpy(status + k, reason, rl);
  status[k + rl] = '\0';

  static flag_set fs;
  memset(&fs, 0, sizeof fs);
  int any_missing = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    any_missing |= v[V_MISSING + i] != 0.0;
  rdv_left left = {0};
  rdv_left_add(&left, v);
  derive_flags(&fs, v + V_MISSING, any_missing, rp_g.lua_fault,
               v[V_COMPUTE + RP_AVG] == 0.0, calls_seen(v + V_FSTAT),
               v[V_SUSP], &left, 1);
  for (int i = 0; i < rp_g.flags.n; i++)
    flagset_add(&fs, rp_g.flags.f[i].key, rp_g.flags.f[i].text, 1);
  header_text(&t, status, rp_g.size, &fs);
  puts_(&t, "rank:      ");
  puti(&t, rp_g.rank);
  puts_(&t, " of ");
  puti(&t, rp_g.size);
  puts_(&t, "\n\nthis rank's simulated time so far: ");
  putd(&t, v[V_NOW + RP_AVG]);
  puts_(&t, " s  [min ");
  putd(&t, v[V_NOW + RP_MIN]);
  puts_(&t, ", max ");
  putd(&t, v[V_NOW + RP_MAX]);
  puts_(&t, "]\n\nrank    final avg s    [min, max]                        "
            "  compute s   communication s    waiting s\n");
  rank_line(&t, rp_g.rank, v);
  functions_text(&t, v + V_FSTAT, v + V_HOST);
  warnings_text(&t, v + V_WILD, v + V_MISSING, rp_g.lua_fault);
  sink_flush(&t);

  if (c.fd >= 0) {
    csv_settings(&c, rp_g.rank, status, &fs);
    csv_rank(&c, rp_g.rank, v);
    csv_functions(&c, rp_g.rank, v + V_FSTAT, v + V_HOST);
    csv_warnings(&c, v + V_WILD, v + V_MISSING);
    sink_flush(&c);
    close(c.fd);
    if (!c.failed)
      rename(pcsv_tmp, pcsv_path);
  }
  if (t.fd != 2) {
    close(t.fd);
    if (!t.failed && rename(ptxt_tmp, ptxt_path) == 0 && !rp_g.cfg.quiet &&
        !checkpoint) {
      static const char m[] = "revprof: PARTIAL report written to ";
      ssize_t ignored = write(2, m, sizeof m - 1);
      ignored = write(2, ptxt_path, strlen(ptxt_path));
      ignored = write(2, "\n", 1);
      (void)ignored;
    }
  }
}

void rp_report_partial(const char *reason) { partial(reason, 0); }

/* REVPROF_CHECKPOINT: the partial report now, the next one scheduled. */
static void checkpoint(double now) {
  char reason[200];
  snprintf(reason, sizeof reason, "checkpoint %.1f s after %s: the run had "
           "not reached %s (ended by a signal revprof cannot catch, e.g. a "
           "launcher's time limit, or still running)",
           now - rp_g.host_start,
           rp_g.by_session ? "MPI_Session_init" : "MPI_Init",
           rp_g.by_session ? "its last MPI_Session_finalize"
                           : "MPI_Finalize");
  in_checkpoint = 1;
  partial(reason, 1);
  in_checkpoint = 0;
  checkpointed = 1;
  checkpoint_gap = rp_checkpoint_next(rp_g.cfg.checkpoint, checkpoint_gap);
  rp_g.checkpoint_due = now + checkpoint_gap;
}

/* The final report is out: the last checkpoint goes. */
static void checkpoint_clean(void) {
  rp_g.checkpoint = NULL;
  if (!checkpointed)
    return;
  checkpointed = 0;
  if (rp_g.mode && rp_g.mode->report_partial) {
    if (rp_g.mode->report_startup)
      rp_g.mode->report_startup(); /* removes the rank's partial files */
    return;
  }
  unlink(ptxt_path);
  unlink(pcsv_path);
}

/* ---------------------------------------------------- handlers, set-up */

static const int fatal_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGSEGV,
                                    SIGBUS,  SIGFPE,  SIGILL, SIGABRT};
#define RP_NSIG ((int)(sizeof fatal_signals / sizeof *fatal_signals))
static struct sigaction old_actions[RP_NSIG];
static int handlers_on;

static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)si;
  (void)uc;
  int saved = errno;
  if (rp_g.initialized && !rp_g.finalized && !rp_g.partial_done &&
      (rp_g.model ||
       (rp_g.active && rp_g.mode && rp_g.mode->report_partial))) {
    static const char names[][8] = {"SIGINT", "SIGTERM", "SIGHUP",
                                    "SIGSEGV", "SIGBUS", "SIGFPE",
                                    "SIGILL", "SIGABRT"};
    char reason[64] = "signal ";
    for (int i = 0; i < RP_NSIG; i++)
      if (fatal_signals[i] == sig) {
        size_t k = strlen(reason);
        memcpy(reason + k, names[i], strlen(names[i]) + 1);
      }
    rp_report_partial(reason);
    if (rp_g.tracing)
      rp_trace_close(1);
  }
  for (int i = 0; i < RP_NSIG; i++)
    if (fatal_signals[i] == sig)
      sigaction(sig, &old_actions[i], NULL); /* whoever was there before */
  errno = saved;
  raise(sig);
}

static void on_exit_(void) {
  if (rp_g.active && rp_g.initialized && !rp_g.finalized &&
      !rp_g.partial_done) {
    rp_report_partial("exit without MPI_Finalize");
    if (rp_g.tracing)
      rp_trace_close(1);
  }
}

/* REVPROF_COMPUTE as the run used it: auto shows what it chose. */
static const char *compute_setting(char *b, size_t n) {
  const char *eff = rp_compute_name(rp_g.cfg.compute);
  if (!rp_g.compute_auto)
    return eff;
  if (rp_g.auto_t < 0.0)
    snprintf(b, n, "auto:%s", eff);
  else
    snprintf(b, n, "auto:measure>annotate@call%.0f", rp_g.auto_calls);
  return b;
}

static void settings_startup(void) {
  const rp_config *c = &rp_g.cfg;
  char cb[96];
  snprintf(settings_text, sizeof settings_text,
           "REVPROF_MODE=%s REVPROF_COMPUTE=%s REVPROF_STEP=%g "
           "REVPROF_STEP_MIN=%g REVPROF_STEP_MAX=%g REVPROF_CPU_SCALE=%g "
           "REVPROF_COMPUTE_SPREAD=%g "
           "REVPROF_WTIME=%s REVPROF_LUA=%s REVPROF_TRACE=%s "
           "REVPROF_PACK_MAX=%g REVPROF_TIMER=%s REVPROF_QUIET=%d "
           "REVPROF_WILDCARD=%s REVPROF_CONTENTION=%s REVPROF_EXCHANGE=%s",
           rp_mode_name(c->mode), compute_setting(cb, sizeof cb),
           c->step[RP_AVG], c->step[RP_MIN], c->step[RP_MAX], c->cpu_scale,
           c->compute_spread,
           c->wtime_real ? "real" : "simulated", c->lua[0] ? c->lua : "-",
           c->trace[0] ? c->trace : "-", c->pack_max,
           c->timer_monotonic ? "monotonic" : "auto", c->quiet,
           c->wildcard_real ? "real" : "predicted",
           rp_contention_name(c->contention),
           c->exchange_sendrecv ? "sendrecv" : "latency");
}

void rp_report_settings(void) { settings_startup(); }

/* The host line: the host's name and MPI, and whether the model is of
 * another MPI (rp_host_line). */
static void host_startup(void) {
  char name[256] = "", version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int n = 0;
  if (gethostname(name, sizeof name - 1) != 0)
    name[0] = '\0';
  if (PMPI_Get_library_version(version, &n) != MPI_SUCCESS)
    version[0] = '\0';
  rp_host_line(host_text, sizeof host_text, name, version,
               rp_g.model ? rp_g.model->machine_mpi : NULL);
}

void rp_report_startup(void) {
  static int atexit_done;
  const char *d = rp_g.cfg.outdir;
  settings_startup();
  host_startup();
  have_dir = rp_mkdir_p(d) == 0;
  if (!have_dir)
    rp_warn("cannot create REVPROF_OUTPUT_DIR %s: %s; reports go to stderr "
            "only",
            d, strerror(errno));
  snprintf(txt_path, sizeof txt_path, "%s/report.txt", d);
  snprintf(csv_path, sizeof csv_path, "%s/report.csv", d);
  snprintf(ptxt_path, sizeof ptxt_path, "%s/report.partial.rank%d.txt", d,
           rp_g.rank);
  snprintf(pcsv_path, sizeof pcsv_path, "%s/report.partial.rank%d.csv", d,
           rp_g.rank);
  snprintf(ptxt_tmp, sizeof ptxt_tmp, "%s.tmp", ptxt_path);
  snprintf(pcsv_tmp, sizeof pcsv_tmp, "%s.tmp", pcsv_path);
  if (have_dir) { /* no stale reports of an earlier run */
    unlink(ptxt_path);
    unlink(pcsv_path);
    if (rp_g.rank == 0) {
      unlink(txt_path);
      unlink(csv_path);
    }
  }
  rp_g.partial_done = 0;
  if (have_dir && rp_g.mode && rp_g.mode->report_startup)
    rp_g.mode->report_startup();
  checkpointed = 0;
  checkpoint_gap = rp_checkpoint_next(rp_g.cfg.checkpoint, 0.0);
  rp_g.checkpoint_due = rp_host_seconds() + checkpoint_gap;
  rp_g.checkpoint = have_dir && isfinite(checkpoint_gap) ? checkpoint : NULL;
  if (!atexit_done++)
    atexit(on_exit_);
  if (!handlers_on) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < RP_NSIG; i++)
      if (sigaction(fatal_signals[i], NULL, &old_actions[i]) == 0 &&
          old_actions[i].sa_handler != SIG_IGN) /* ignored stays ignored */
        sigaction(fatal_signals[i], &sa, NULL);
    handlers_on = 1;
  }
}

/* ------------------------------------------------ nothing intercepted */

static const char *env_of(const char *name, void *ud) {
  (void)ud;
  return getenv(name);
}

/* Rank 0's report of a run revprof did not predict at all: report.txt and
 * report.csv with status STATUS and the flag KEY: WHAT, said on stderr
 * too when ECHO (a warning did not say it already) unless REVPROF_QUIET=1. */
void rp_report_unpredicted(const char *status, const char *key,
                           const char *what, int size, int echo) {
  static flag_set fs;
  memset(&fs, 0, sizeof fs);
  fs.nranks = size;
  flagset_add(&fs, key, what, size);
  rp_g.rank = 0;
  rp_g.size = size;
  settings_startup();
  /* the folder even when an earlier variable stopped rp_config_read */
  const char *d = rp_config_outdir(
      env_of, NULL, rp_g.cfg.outdir[0] ? rp_g.cfg.outdir : "revprof-out");
  snprintf(txt_path, sizeof txt_path, "%s/report.txt", d);
  snprintf(csv_path, sizeof csv_path, "%s/report.csv", d);
  sink t = {.fd = -1}, c = {.fd = -1};
  header_text(&t, status, size, &fs);
  puts_(&t, "\nno prediction: ");
  puts_(&t, what);
  puts_(&t, "\n");
  csv_settings(&c, -1, status, &fs);
  int quiet = rp_quiet_env();
  if (!quiet && echo)
    fprintf(stderr, "revprof: %s\n", what);
  if (!t.failed && !c.failed && rp_mkdir_p(d) == 0 &&
      write_file(txt_path, t.mem, t.len) == 0 &&
      write_file(csv_path, c.mem, c.len) == 0) {
    if (!quiet)
      fprintf(stderr, "revprof: report written to %s and %s\n", txt_path,
              csv_path);
  } else if (!quiet)
    fprintf(stderr, "revprof: cannot write %s and %s: %s\n", txt_path,
            csv_path, strerror(errno));
  free(t.mem);
  free(c.mem);
}

/* At exit: the program used MPI but no wrapper ran, not even MPI_Init's
 * (bindings revprof does not wrap, a static MPI, -lrevprof after -lmpi),
 * or it used MPI sessions and never MPI_Init. Rank 0 writes a report that
 * says so, unless REVPROF_MODE=off. */
static void nothing_intercepted(void) {
  int init = 0, rank, size;
  if (rp_g.initialized ||
      (!rp_g.sessions &&
       (PMPI_Initialized(&init) != MPI_SUCCESS || !init)))
    return;
  rp_launcher_rank(env_of, NULL, &rank, &size);
  if (rank != 0)
    return;
  char err[1024];
  if (rp_config_read(&rp_g.cfg, env_of, NULL, err, sizeof err) == 0 &&
      rp_g.cfg.mode == RP_MODE_OFF)
    return;
  if (rp_g.sessions) { /* MPI_Session_init went through, MPI_Init never */
    rp_report_unpredicted(
        "NOT PREDICTED", "sessions",
        "the program used MPI sessions (MPI_Session_init) and never "
        "MPI_Init: revprof's clocks start at MPI_Init and do not follow "
        "sessions yet, so nothing was predicted",
        size, 1);
    return;
  }
  rp_report_unpredicted(
      "NOTHING INTERCEPTED", "nothing-intercepted",
      "MPI was used but revprof intercepted no MPI call, not even MPI_Init: "
      "the program calls MPI through bindings revprof does not wrap "
      "(Fortran use mpi_f08 or another language), or links the MPI "
      "library statically, or links -lrevprof after the MPI library (it "
      "must come first); nothing was predicted",
      size, 1);
}

__attribute__((destructor)) static void report_at_unload(void) {
  nothing_intercepted();
}

void rp_report_shutdown(void) {
  checkpoint_clean();
  if (!handlers_on)
    return;
  for (int i = 0; i < RP_NSIG; i++) {
    struct sigaction cur;
    /* give back only what is still ours */
    if (sigaction(fatal_signals[i], NULL, &cur) == 0 &&
        (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)
      sigaction(fatal_signals[i], &old_actions[i], NULL);
  }
  handlers_on = 0;
}
