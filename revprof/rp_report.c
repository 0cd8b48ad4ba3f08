/* Reports of librevprof: the final report at MPI_Finalize (rank 0 gathers
 * every rank's clocks and statistics; text to stderr and report.txt, and
 * report.csv), and a rank's PARTIAL report when the run ends early
 * (MPI_Abort, fatal signal, exit without MPI_Finalize), written with
 * async-signal-safe calls only. */
#include "rp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
  V_LUA = V_SUSP + 1,                     /* 1 after a Lua fault */
  V_MISSING = V_LUA + 1,                  /* REVPROF_FN_COUNT flags */
  V_FSTAT = V_MISSING + REVPROF_FN_COUNT, /* RP_W_COUNT x 4 */
  V_COUNT = V_FSTAT + 4 * RP_W_COUNT
};

static void fill_vector(double *v) {
  memcpy(v + V_NOW, rp_g.clk.now, sizeof rp_g.clk.now);
  memcpy(v + V_COMPUTE, rp_g.clk.compute, sizeof rp_g.clk.compute);
  memcpy(v + V_COMM, rp_g.clk.comm, sizeof rp_g.clk.comm);
  memcpy(v + V_WAIT, rp_g.clk.wait, sizeof rp_g.clk.wait);
  v[V_WILD] = (double)rp_g.wild.receives;
  v[V_SUSP] = (double)rp_g.wild.suspicious;
  v[V_LUA] = rp_g.lua_fault;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    v[V_MISSING + i] = rp_g.missing[i];
  for (int w = 0; w < RP_W_COUNT; w++) {
    v[V_FSTAT + 4 * w + 0] = rp_g.fstat[w].calls;
    v[V_FSTAT + 4 * w + 1] = rp_g.fstat[w].bytes;
    v[V_FSTAT + 4 * w + 2] = rp_g.fstat[w].time;
    v[V_FSTAT + 4 * w + 3] = rp_g.fstat[w].wait;
  }
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
    if (s->len + len + 1 > s->cap) {
      size_t cap = (s->cap ? 2 * s->cap : 8192) + len;
      char *m = realloc(s->mem, cap);
      if (m == NULL) {
        s->failed = 1;
        return;
      }
      s->mem = m;
      s->cap = cap;
    }
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

/* ------------------------------------------------------------ contents */

static char settings_text[2048]; /* filled at start-up */
static char txt_path[RP_PATH_MAX + 64], csv_path[RP_PATH_MAX + 64];
static char ptxt_path[RP_PATH_MAX + 64], pcsv_path[RP_PATH_MAX + 64];
static char ptxt_tmp[RP_PATH_MAX + 80], pcsv_tmp[RP_PATH_MAX + 80];
static int have_dir;

static void header_text(sink *s, const char *status, int nranks) {
  puts_(s, "==== revprof: predicted performance (");
  puts_(s, status);
  puts_(s, ") ====\nmodel:     ");
  puts_(s, rp_g.cfg.model);
  if (rp_g.model) {
    puts_(s, "\nmachine:   ");
    puts_(s, rp_g.model->machine_name[0] ? rp_g.model->machine_name : "?");
    puts_(s, " | ");
    puts_(s, rp_g.model->machine_mpi[0] ? rp_g.model->machine_mpi : "?");
    puts_(s, " | characterized ");
    puts_(s, rp_g.model->machine_date[0] ? rp_g.model->machine_date : "?");
  }
  puts_(s, "\nsettings:  ");
  puts_(s, settings_text);
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

static void functions_text(sink *s, const double *f) {
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
    puts_(s, "\n");
  }
}

static void warnings_text(sink *s, const double *wild, const double *missing,
                          double lua_ranks) {
  puts_(s, "\nwildcard receives: ");
  puti(s, (long long)wild[0]);
  puts_(s, "; where the predicted arrival order would have matched another "
           "sender: ");
  puti(s, (long long)wild[1]);
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

static void csv_row(sink *s, const char *record, int rank, const char *name,
                    const double *calls_bytes, const double *mma,
                    const double *wait) {
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
  put(s, "\n", 1);
}

static void csv_settings(sink *s, int rank, const char *status) {
  puts_(s, "record,rank,name,calls,bytes,min_s,avg_s,max_s,wait_s\n");
  csv_row(s, "status", rank, status, NULL, NULL, NULL);
  csv_row(s, "setting", -1, settings_text, NULL, NULL, NULL);
}

static void csv_rank(sink *s, int rank, const double *v) {
  csv_row(s, "rank", rank, "final", NULL, v + V_NOW, NULL);
  csv_row(s, "rank", rank, "compute", NULL, v + V_COMPUTE, NULL);
  csv_row(s, "rank", rank, "communication", NULL, v + V_COMM, NULL);
  csv_row(s, "rank", rank, "waiting", NULL, v + V_WAIT, NULL);
}

static void csv_functions(sink *s, int rank, const double *f) {
  for (int w = 0; w < RP_W_COUNT; w++) {
    const double *x = f + 4 * w;
    double t[RP_NB] = {0.0, x[2], 0.0};
    if (x[0] <= 0)
      continue;
    t[RP_MIN] = t[RP_MAX] = x[2]; /* per-function times: avg clock */
    csv_row(s, "function", rank, rp_wrap_name[w], x, t, &x[3]);
  }
}

static void csv_warnings(sink *s, const double *wild, const double *missing) {
  double cb[2] = {wild[0], 0.0};
  csv_row(s, "wildcard", -1, "receives", cb, NULL, NULL);
  cb[0] = wild[1];
  csv_row(s, "wildcard", -1, "suspicious", cb, NULL, NULL);
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (missing[i])
      csv_row(s, "missing", -1, revprof_fn_name((revprof_fn)i), NULL, NULL,
              NULL);
}

/* The "extrapolated:" line of the final report's header and its CSV rows:
 * model uses outside the measured range (rp_engine.c counts them). */
static void extrap_text(sink *s) {
  char b[2048];
  rp_extrap_text(b, sizeof b);
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
  char tmp[RP_PATH_MAX + 80];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (f == NULL)
    return -1;
  int bad = fwrite(text, 1, len, f) != len;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    return -1;
  }
  return 0;
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
  rp_extrap_reduce(rp_world_shadow()); /* collective: before any return */
  rp_g.partial_done = 1; /* nothing partial from here on */
  free(v);
  if (rp_g.rank != 0 || !have)
    return;

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

  sink t = {.fd = -1}, c = {.fd = -1};
  header_text(&t, "FINAL", n);
  extrap_text(&t);
  puts_(&t, "\npredicted elapsed time: ");
  putd(&t, el[RP_AVG]);
  puts_(&t, " s  [min ");
  putd(&t, el[RP_MIN]);
  puts_(&t, ", max ");
  putd(&t, el[RP_MAX]);
  puts_(&t, "]\n  (latest final clock over the ranks; min and max from the "
            "model bounds and REVPROF_STEP_MIN/MAX)\n\n");
  puts_(&t, "rank    final avg s    [min, max]                          "
            "compute s   communication s    waiting s\n");
  for (int r = 0; r < n; r++)
    rank_line(&t, r, all + (size_t)r * V_COUNT);
  functions_text(&t, sum + V_FSTAT);
  warnings_text(&t, sum + V_WILD, sum + V_MISSING, sum[V_LUA]);

  csv_settings(&c, -1, "FINAL");
  extrap_csv(&c);
  csv_row(&c, "elapsed", -1, "predicted", NULL, el, NULL);
  for (int r = 0; r < n; r++)
    csv_rank(&c, r, all + (size_t)r * V_COUNT);
  csv_functions(&c, -1, sum + V_FSTAT);
  for (int r = 0; r < n; r++)
    csv_functions(&c, r, all + (size_t)r * V_COUNT + V_FSTAT);
  csv_warnings(&c, sum + V_WILD, sum + V_MISSING);

  if (t.mem)
    fputs(t.mem, stderr);
  if (t.failed || c.failed)
    rp_warn("out of memory writing the report");
  else if (!have_dir || write_file(txt_path, t.mem, t.len) != 0 ||
           write_file(csv_path, c.mem, c.len) != 0)
    rp_warn("cannot write %s and %s: %s", txt_path, csv_path,
            strerror(errno));
  else
    fprintf(stderr, "revprof: report written to %s and %s\n", txt_path,
            csv_path);
  free(t.mem);
  free(c.mem);
  free(all);
}

/* ----------------------------------------------------- partial report */

static int open_tmp(const char *path) {
  return open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

void rp_report_partial(const char *reason) {
  static double v[V_COUNT]; /* no stack growth in a signal handler */
  if (rp_g.partial_done || !rp_g.initialized || rp_g.model == NULL)
    return;
  rp_g.partial_done = 1;
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

  header_text(&t, status, rp_g.size);
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
  functions_text(&t, v + V_FSTAT);
  warnings_text(&t, v + V_WILD, v + V_MISSING, rp_g.lua_fault);
  sink_flush(&t);

  if (c.fd >= 0) {
    csv_settings(&c, rp_g.rank, status);
    csv_rank(&c, rp_g.rank, v);
    csv_functions(&c, rp_g.rank, v + V_FSTAT);
    csv_warnings(&c, v + V_WILD, v + V_MISSING);
    sink_flush(&c);
    close(c.fd);
    if (!c.failed)
      rename(pcsv_tmp, pcsv_path);
  }
  if (t.fd != 2) {
    close(t.fd);
    if (!t.failed && rename(ptxt_tmp, ptxt_path) == 0) {
      static const char m[] = "revprof: PARTIAL report written to ";
      ssize_t ignored = write(2, m, sizeof m - 1);
      ignored = write(2, ptxt_path, strlen(ptxt_path));
      ignored = write(2, "\n", 1);
      (void)ignored;
    }
  }
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
      rp_g.model) {
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

int rp_mkdir_p(const char *dir) {
  char p[RP_PATH_MAX];
  snprintf(p, sizeof p, "%s", dir);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return -1;
      *s = '/';
    }
  return mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static void settings_startup(void) {
  const rp_config *c = &rp_g.cfg;
  snprintf(settings_text, sizeof settings_text,
           "REVPROF_MODE=%s REVPROF_COMPUTE=%s REVPROF_STEP=%g "
           "REVPROF_STEP_MIN=%g REVPROF_STEP_MAX=%g REVPROF_CPU_SCALE=%g "
           "REVPROF_WTIME=%s REVPROF_LUA=%s REVPROF_TRACE=%s "
           "REVPROF_PACK_MAX=%g",
           rp_mode_name(c->mode), rp_compute_name(c->compute),
           c->step[RP_AVG], c->step[RP_MIN], c->step[RP_MAX], c->cpu_scale,
           c->wtime_real ? "real" : "simulated", c->lua[0] ? c->lua : "-",
           c->trace[0] ? c->trace : "-", c->pack_max);
}

void rp_report_startup(void) {
  static int atexit_done;
  const char *d = rp_g.cfg.outdir;
  settings_startup();
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

void rp_report_shutdown(void) {
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
