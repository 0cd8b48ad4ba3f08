/* Pure rules of revprof-characterize (no MPI): option parsing, point lists,
 * statistics with outlier rejection, stop rule, jump detection, budget and
 * progress estimates. Every function here is unit-tested without MPI. */
#include "charlib.h"
#include "model_int.h"
#include "rp_util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ============================================================== options */

/* X(id, short name or NULL, long name, argument or NULL, help). Help lines
 * after the first are continued with '\n'. The parser and --help both read
 * this table, so every option is documented. */
#define RP_CHAR_OPTION_TABLE(X)                                                \
  X(OUTPUT, "-o", "--output", "DIR",                                           \
    "output directory (default revprof-out): raw.csv, model.lua,\n"            \
    "datasheet/, run.txt; checked for writing before measuring")               \
  X(FUNCTIONS, NULL, "--functions", "LIST",                                    \
    "comma-separated functions to time, e.g. MPI_Bcast,latency\n"              \
    "(default all; names as in --list, case ignored)")                         \
  X(EXCLUDE, NULL, "--exclude", "LIST", "functions not to time")               \
  X(LIST, NULL, "--list", NULL, "print the functions and what is timed, exit") \
  X(IO_DIR, NULL, "--io-dir", "DIR",                                           \
    "also time file I/O (MPI_File_open, _close, _write_at, _read_at\n"         \
    "and their _all forms) on the file system of DIR, which must\n"            \
    "exist and be writable; without it they are not timed")                    \
  X(SIZES, NULL, "--sizes", "MIN:MAX",                                         \
    "message sizes in bytes: MIN, powers of two between, MAX\n"                \
    "(0 adds d = 0; suffixes K M G = KiB MiB GiB; one value = only it)")       \
  X(PROCS, NULL, "--procs", "LIST|MIN:MAX",                                    \
    "group sizes p for collectives, e.g. 2,4,8 or 2:8 (default\n"              \
    "2..ranks when ranks <= 16, else powers of two and ranks);\n"              \
    "point-to-point always uses p = 2")                                        \
  X(PEER, NULL, "--peer", "RANK",                                              \
    "world rank paired with rank 0 for point-to-point (default 1)")            \
  X(RSE, NULL, "--rse", "FRACTION",                                            \
    "target relative standard error of the mean, e.g. 0.05 or 5%")             \
  X(POINT_TIME, NULL, "--point-time", "SECONDS",                               \
    "time cap per point (warm-up included; suffix ms, s, min)")                \
  X(MIN_REPS, NULL, "--min-reps", "N",                                         \
    "repetitions before the rse rule may stop a point")                        \
  X(MAX_REPS, NULL, "--max-reps", "N", "most repetitions per point (>= 2)")    \
  X(WARMUP, NULL, "--warmup", "N", "untimed repetitions before each point")    \
  X(BUDGET, NULL, "--budget", "SECONDS",                                       \
    "total measuring time: caps shrink to fit, points past it are\n"           \
    "skipped and listed in run.txt; the first point always runs\n"             \
    "(default: no limit)")                                                     \
  X(SYNC, NULL, "--sync", "barrier|window",                                    \
    "start of each repetition: MPI_Barrier (default), or window:\n"            \
    "clock offsets by ping-pong and an agreed start time (the\n"               \
    "default of revprof-characterize-smpi, offsets 0)")                        \
  X(SEED, NULL, "--seed", "N",                                                 \
    "seed of the random order of points (default: from the clock)")            \
  X(JUMP, NULL, "--jump", "FACTOR",                                            \
    "add midpoint sizes where t(d2)/t(d1) departs from the local\n"            \
    "trend by more than FACTOR (default 1.5; 0 = never)")                      \
  X(REFINE, NULL, "--refine", "ROUNDS", "rounds of midpoint sizes")            \
  X(PASSES, NULL, "--passes", "N",                                             \
    "sweeps over all points in new random orders, merged per point\n"         \
    "(median of the pass medians)")                                           \
  X(MAX_EXTRA, NULL, "--max-extra", "N",                                       \
    "most midpoint sizes per function and round")                              \
  X(MAX_BUFFER, NULL, "--max-buffer", "BYTES",                                 \
    "skip points needing a bigger buffer per rank (default 1G)")               \
  X(METHOD, NULL, "--method", "default|paper",                                 \
    "fitting method (see revprof fit --help)")                                 \
  X(NAME, NULL, "--name", "MACHINE",                                           \
    "machine name in the model (default: host name)")                          \
  X(CHECKPOINT, NULL, "--checkpoint", "SECONDS",                              \
    "rewrite DIR/raw.partial.csv with the points measured so far\n"           \
    "every SECONDS (default 10; 0 = after every point): what a run\n"        \
    "that dies (MPI error, time limit, signal) leaves for revprof fit")       \
  X(RESUME, NULL, "--resume", NULL,                                           \
    "continue a run that died: the points of DIR/raw.partial.csv\n"          \
    "are kept, not measured again (the same settings and ranks)")            \
  X(RAW_ONLY, NULL, "--raw-only", NULL, "stop after raw.csv (no fit)")         \
  X(NO_DATASHEET, NULL, "--no-datasheet", NULL, "fit the model, no datasheet") \
  X(NO_PDF, NULL, "--no-pdf", NULL, "datasheet without running pdflatex")      \
  X(QUICK, NULL, "--quick", NULL,                                              \
    "preset for tests: sizes to 64K, rse 10%, tiny caps")                      \
  X(FULL, NULL, "--full", NULL,                                                \
    "preset for a careful model: rse 2%, 1 s caps, 2 rounds")                  \
  X(QUIET, "-q", "--quiet", NULL, "no progress lines")                         \
  X(VERBOSE, "-v", "--verbose", NULL, "one line per point")                    \
  X(NP, "-n", "--np", "N",                                                     \
    "ranks (read by 'revprof characterize'; ignored here)")                    \
  X(HELP, "-h", "--help", NULL, "print this help and exit")

enum opt_id {
#define RP_OPT_ENUM_(id, s, l, a, h) OPT_##id,
  RP_CHAR_OPTION_TABLE(RP_OPT_ENUM_)
#undef RP_OPT_ENUM_
  OPT_COUNT
};

static const struct opt_row {
  const char *shortname, *longname, *arg, *help;
} opt_table[OPT_COUNT] = {
#define RP_OPT_ROW_(id, s, l, a, h) {s, l, a, h},
    RP_CHAR_OPTION_TABLE(RP_OPT_ROW_)
#undef RP_OPT_ROW_
};

void rp_char_options_init(rp_char_options *o, rp_preset preset) {
  memset(o, 0, sizeof *o);
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    o->fn_on[i] = !rp_char_fn_io((revprof_fn)i); /* I/O: with io_dir only */
  o->preset = preset;
  o->smin = 0;
  o->smax = 4L << 20;
  o->pmin = 2;
  o->pmax = 0;
  o->peer = 1;
  o->rse = 0.05;
  o->point_time = 0.1;
  o->checkpoint = 10.0;
  o->min_reps = 10;
  o->max_reps = 1000;
  o->warmup = 2;
  o->budget = 0.0;
#ifdef RP_SMPI
  o->sync = RP_SYNC_WINDOW; /* one simulated clock: an exact common start */
#else
  o->sync = RP_SYNC_BARRIER;
#endif
  o->jump = 1.5;
  o->refine = 1;
  o->max_extra = 3;
  o->passes = 3;
  o->max_buffer = 1L << 30;
  snprintf(o->method, sizeof o->method, "default");
  snprintf(o->outdir, sizeof o->outdir, "revprof-out");
  if (preset == RP_PRESET_QUICK) {
    o->smax = 64L << 10;
    o->rse = 0.10;
    o->point_time = 0.02;
    o->min_reps = 3;
    o->max_reps = 200;
    o->warmup = 1;
    o->max_extra = 2;
    o->passes = 1;
  } else if (preset == RP_PRESET_FULL) {
    o->rse = 0.02;
    o->point_time = 1.0;
    o->min_reps = 30;
    o->max_reps = 100000;
    o->warmup = 5;
    o->refine = 2;
    o->max_extra = 4;
    o->passes = 5;
  }
}

static const char *preset_name(rp_preset p) {
  return p == RP_PRESET_QUICK ? "quick" : p == RP_PRESET_FULL ? "full"
                                                               : "default";
}

/* --------------------------------------------------------- value parsers */

/* Whole number of bytes with an optional binary suffix (K, M, G, KiB, ...,
 * B). Negative values are reported as such. */
static int parse_bytes(const char *s, long *out, const char *opt, char *err,
                       size_t errlen) {
  char *end;
  const char *p = s;
  while (isspace((unsigned char)*p))
    p++;
  if (*p == '-') {
    rp_errf(err, errlen, "%s: negative size '%s'", opt, s);
    return REVPROF_ERANGE;
  }
  errno = 0;
  unsigned long long v = strtoull(p, &end, 10);
  if (end == p || errno != 0) {
    rp_errf(err, errlen, "%s: '%s' is not a size in bytes", opt, s);
    return REVPROF_EINVAL;
  }
  unsigned long long mult = 1;
  if (*end == 'k' || *end == 'K')
    mult = 1ULL << 10;
  else if (*end == 'm' || *end == 'M')
    mult = 1ULL << 20;
  else if (*end == 'g' || *end == 'G')
    mult = 1ULL << 30;
  if (mult != 1) {
    end++;
    if (strcasecmp(end, "ib") == 0 || strcasecmp(end, "b") == 0)
      end += strlen(end);
  } else if (strcasecmp(end, "b") == 0)
    end++;
  if (*end != '\0') {
    rp_errf(err, errlen, "%s: '%s' is not a size in bytes (suffixes K M G)",
         opt, s);
    return REVPROF_EINVAL;
  }
  if (v > (unsigned long long)RP_CHAR_MAX_SIZE / mult) {
    rp_errf(err, errlen, "%s: size '%s' is above the largest allowed (1G)",
         opt, s);
    return REVPROF_ERANGE;
  }
  *out = (long)(v * mult);
  return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out,
                      const char *opt, char *err, size_t errlen) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno != 0) {
    rp_errf(err, errlen, "%s: '%s' is not a whole number", opt, s);
    return REVPROF_EINVAL;
  }
  if (v < lo || v > hi) {
    rp_errf(err, errlen, "%s: %ld is out of range (%ld to %ld)", opt, v, lo, hi);
    return REVPROF_ERANGE;
  }
  *out = v;
  return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out,
                     const char *opt, char *err, size_t errlen) {
  long v;
  int rc = parse_long(s, lo, hi, &v, opt, err, errlen);
  if (rc == 0)
    *out = (int)v;
  return rc;
}

/* Seconds, with an optional unit: ms, s, min, h. */
static int parse_seconds(const char *s, double lo, double *out,
                         const char *opt, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno != 0 || !isfinite(v)) {
    rp_errf(err, errlen, "%s: '%s' is not a time in seconds", opt, s);
    return REVPROF_EINVAL;
  }
  if (strcmp(end, "ms") == 0)
    v *= 1e-3;
  else if (strcmp(end, "min") == 0 || strcmp(end, "m") == 0)
    v *= 60.0;
  else if (strcmp(end, "h") == 0)
    v *= 3600.0;
  else if (strcmp(end, "s") != 0 && *end != '\0') {
    rp_errf(err, errlen, "%s: '%s' is not a time (units ms, s, min, h)", opt, s);
    return REVPROF_EINVAL;
  }
  if (!(v >= lo)) {
    rp_errf(err, errlen, "%s: %s is out of range (at least %g s)", opt, s, lo);
    return REVPROF_ERANGE;
  }
  *out = v;
  return 0;
}

static int parse_double_range(const char *s, double lo, double hi,
                              double *out, const char *opt, char *err,
                              size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno != 0 || !isfinite(v)) {
    rp_errf(err, errlen, "%s: '%s' is not a number", opt, s);
    return REVPROF_EINVAL;
  }
  if (*end == '%' && end[1] == '\0') {
    v /= 100.0;
    end++;
  }
  if (*end != '\0') {
    rp_errf(err, errlen, "%s: '%s' is not a number", opt, s);
    return REVPROF_EINVAL;
  }
  if (!(v >= lo && v <= hi)) {
    rp_errf(err, errlen, "%s: %s is out of range (%g to %g)", opt, s, lo, hi);
    return REVPROF_ERANGE;
  }
  *out = v;
  return 0;
}

static revprof_fn fn_lookup_nocase(const char *name) {
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (strcasecmp(revprof_fn_name((revprof_fn)i), name) == 0)
      return (revprof_fn)i;
  return REVPROF_FN_COUNT;
}

/* Sets on[fn] = val for each name in the comma list s ("all" = every one);
 * named[fn] = 1 for each name given as such (named may be NULL). */
static int parse_functions(const char *s, unsigned char *on, int val,
                           unsigned char *named, const char *opt, char *err,
                           size_t errlen) {
  char buf[2048];
  if (strlen(s) >= sizeof buf) {
    rp_errf(err, errlen, "%s: list too long", opt);
    return REVPROF_EINVAL;
  }
  snprintf(buf, sizeof buf, "%s", s);
  int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    while (isspace((unsigned char)*tok))
      tok++;
    char *e = tok + strlen(tok);
    while (e > tok && isspace((unsigned char)e[-1]))
      *--e = '\0';
    if (*tok == '\0')
      continue;
    if (strcasecmp(tok, "all") == 0) {
      for (int i = 0; i < REVPROF_FN_COUNT; i++)
        on[i] = (unsigned char)val;
      n++;
      continue;
    }
    revprof_fn fn = fn_lookup_nocase(tok);
    if (fn == REVPROF_FN_COUNT) {
      char hint[96];
      rp_errf(err, errlen, "%s: unknown function '%s' (%s--list shows the names)",
              opt, tok, revprof_fn_hint(tok, hint, sizeof hint));
      return REVPROF_ENOFUNC;
    }
    on[fn] = (unsigned char)val;
    if (named)
      named[fn] = 1;
    n++;
  }
  if (n == 0) {
    rp_errf(err, errlen, "%s: empty function list", opt);
    return REVPROF_EINVAL;
  }
  return 0;
}

static int parse_sizes(const char *s, rp_char_options *o, char *err,
                       size_t errlen) {
  char buf[128];
  long lo, hi;
  int rc;
  if (strlen(s) >= sizeof buf) {
    rp_errf(err, errlen, "--sizes: '%s' is not MIN:MAX", s);
    return REVPROF_EINVAL;
  }
  snprintf(buf, sizeof buf, "%s", s);
  char *colon = strchr(buf, ':');
  if (colon) {
    *colon = '\0';
    if ((rc = parse_bytes(buf, &lo, "--sizes", err, errlen)) ||
        (rc = parse_bytes(colon + 1, &hi, "--sizes", err, errlen)))
      return rc;
  } else {
    if ((rc = parse_bytes(buf, &lo, "--sizes", err, errlen)))
      return rc;
    hi = lo;
  }
  if (lo > hi) {
    rp_errf(err, errlen, "--sizes: MIN %ld is larger than MAX %ld", lo, hi);
    return REVPROF_ERANGE;
  }
  o->smin = lo;
  o->smax = hi;
  return 0;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int parse_procs(const char *s, rp_char_options *o, char *err,
                       size_t errlen) {
  char buf[2048];
  int rc;
  if (strlen(s) >= sizeof buf) {
    rp_errf(err, errlen, "--procs: list too long");
    return REVPROF_EINVAL;
  }
  snprintf(buf, sizeof buf, "%s", s);
  char *colon = strchr(buf, ':');
  if (colon) {
    int lo, hi;
    *colon = '\0';
    if ((rc = parse_int(buf, INT_MIN, INT_MAX, &lo, "--procs", err,
                        errlen)) ||
        (rc = parse_int(colon + 1, INT_MIN, INT_MAX, &hi, "--procs", err,
                        errlen)))
      return rc;
    if (lo < 2) {
      rp_errf(err, errlen, "--procs: group size %d is below 2", lo);
      return REVPROF_ERANGE;
    }
    if (lo > hi) {
      rp_errf(err, errlen, "--procs: MIN %d is larger than MAX %d", lo, hi);
      return REVPROF_ERANGE;
    }
    o->pmin = lo;
    o->pmax = hi;
    o->nplist = 0;
    return 0;
  }
  int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    int v;
    if ((rc = parse_int(tok, INT_MIN, INT_MAX, &v, "--procs", err, errlen)))
      return rc;
    if (v < 2) {
      rp_errf(err, errlen, "--procs: group size %d is below 2", v);
      return REVPROF_ERANGE;
    }
    if (n == RP_CHAR_MAX_PLIST) {
      rp_errf(err, errlen, "--procs: more than %d group sizes (use MIN:MAX)",
           RP_CHAR_MAX_PLIST);
      return REVPROF_ERANGE;
    }
    o->plist[n++] = v;
  }
  if (n == 0) {
    rp_errf(err, errlen, "--procs: empty list");
    return REVPROF_EINVAL;
  }
  qsort(o->plist, (size_t)n, sizeof o->plist[0], cmp_int);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (k == 0 || o->plist[k - 1] != o->plist[i])
      o->plist[k++] = o->plist[i];
  o->nplist = k;
  return 0;
}

/* Finds the option row for arg ("--sizes", "--sizes=1:2", "-o"); sets
 * *inline_val to the text after '=' when present. OPT_COUNT when arg is no
 * option. */
static int find_option(const char *arg, const char **inline_val) {
  *inline_val = NULL;
  for (int i = 0; i < OPT_COUNT; i++) {
    const struct opt_row *r = &opt_table[i];
    if (r->shortname && strcmp(arg, r->shortname) == 0)
      return i;
    size_t n = strlen(r->longname);
    if (strncmp(arg, r->longname, n) == 0) {
      if (arg[n] == '\0')
        return i;
      if (arg[n] == '=' && r->arg) {
        *inline_val = arg + n + 1;
        return i;
      }
    }
  }
  return OPT_COUNT;
}

/* Applies option id with value v (NULL for flags) to o; named gets the
 * functions named in the last --functions (for the --io-dir rule). */
static int apply_option(int id, const char *v, rp_char_options *o,
                        unsigned char *named, char *err, size_t errlen) {
  const char *name = opt_table[id].longname;
  long l;
  switch ((enum opt_id)id) {
  case OPT_OUTPUT:
    if (*v == '\0' || strlen(v) >= sizeof o->outdir) {
      rp_errf(err, errlen, "%s: directory name empty or too long", name);
      return REVPROF_EINVAL;
    }
    snprintf(o->outdir, sizeof o->outdir, "%s", v);
    return 0;
  case OPT_FUNCTIONS: {
    unsigned char on[REVPROF_FN_COUNT] = {0};
    memset(named, 0, REVPROF_FN_COUNT);
    int rc = parse_functions(v, on, 1, named, name, err, errlen);
    if (rc == 0)
      memcpy(o->fn_on, on, sizeof on);
    return rc;
  }
  case OPT_EXCLUDE:
    return parse_functions(v, o->fn_on, 0, NULL, name, err, errlen);
  case OPT_IO_DIR:
    if (*v == '\0' || strlen(v) >= sizeof o->io_dir) {
      rp_errf(err, errlen, "%s: directory name empty or too long", name);
      return REVPROF_EINVAL;
    }
    snprintf(o->io_dir, sizeof o->io_dir, "%s", v);
    return 0;
  case OPT_SIZES:
    return parse_sizes(v, o, err, errlen);
  case OPT_PROCS:
    return parse_procs(v, o, err, errlen);
  case OPT_PEER:
    return parse_int(v, 1, INT_MAX, &o->peer, name, err, errlen);
  case OPT_RSE:
    return parse_double_range(v, 1e-6, 1.0, &o->rse, name, err, errlen);
  case OPT_POINT_TIME:
    return parse_seconds(v, 1e-6, &o->point_time, name, err, errlen);
  case OPT_MIN_REPS:
    return parse_long(v, 1, 1000000000L, &o->min_reps, name, err, errlen);
  case OPT_MAX_REPS:
    return parse_long(v, 2, 1000000000L, &o->max_reps, name, err, errlen);
  case OPT_WARMUP:
    return parse_int(v, 0, 1000000, &o->warmup, name, err, errlen);
  case OPT_BUDGET:
    return parse_seconds(v, 1e-3, &o->budget, name, err, errlen);
  case OPT_CHECKPOINT:
    return parse_seconds(v, 0.0, &o->checkpoint, name, err, errlen);
  case OPT_SYNC:
    if (strcmp(v, "barrier") == 0)
      o->sync = RP_SYNC_BARRIER;
    else if (strcmp(v, "window") == 0)
      o->sync = RP_SYNC_WINDOW;
    else {
      rp_errf(err, errlen, "%s: '%s' is neither barrier nor window", name, v);
      return REVPROF_EINVAL;
    }
    return 0;
  case OPT_SEED: {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 0);
    if (end == v || *end != '\0' || errno != 0 || *v == '-') {
      rp_errf(err, errlen, "%s: '%s' is not a whole number >= 0", name, v);
      return REVPROF_EINVAL;
    }
    o->seed = (uint64_t)s;
    o->seed_set = 1;
    return 0;
  }
  case OPT_JUMP:
    if (parse_double_range(v, 0.0, 1e6, &o->jump, name, err, errlen))
      return REVPROF_ERANGE;
    if (o->jump != 0.0 && o->jump <= 1.0) {
      rp_errf(err, errlen, "%s: factor must be above 1 (or 0 to turn off)",
           name);
      return REVPROF_ERANGE;
    }
    return 0;
  case OPT_REFINE:
    return parse_int(v, 0, 10, &o->refine, name, err, errlen);
  case OPT_PASSES:
    return parse_int(v, 1, 100, &o->passes, name, err, errlen);
  case OPT_MAX_EXTRA:
    return parse_int(v, 0, 64, &o->max_extra, name, err, errlen);
  case OPT_MAX_BUFFER: {
    int rc = parse_bytes(v, &l, name, err, errlen);
    if (rc == 0 && l < 1) {
      rp_errf(err, errlen, "%s: must be at least 1 byte", name);
      rc = REVPROF_ERANGE;
    }
    if (rc == 0)
      o->max_buffer = l;
    return rc;
  }
  case OPT_METHOD:
    if (strcmp(v, "default") != 0 && strcmp(v, "paper") != 0) {
      rp_errf(err, errlen, "%s: unknown method '%s' (default or paper)", name,
           v);
      return REVPROF_EINVAL;
    }
    snprintf(o->method, sizeof o->method, "%s", v);
    return 0;
  case OPT_NAME:
    if (strlen(v) >= sizeof o->name || strpbrk(v, "\"\\\n")) {
      rp_errf(err, errlen, "%s: name too long or has quotes, backslashes or "
                        "newlines", name);
      return REVPROF_EINVAL;
    }
    snprintf(o->name, sizeof o->name, "%s", v);
    return 0;
  case OPT_RAW_ONLY:
    o->raw_only = 1;
    return 0;
  case OPT_RESUME:
    o->resume = 1;
    return 0;
  case OPT_NO_DATASHEET:
    o->no_datasheet = 1;
    return 0;
  case OPT_NO_PDF:
    o->no_pdf = 1;
    return 0;
  case OPT_QUICK:
  case OPT_FULL:
    return 0; /* applied in the first pass */
  case OPT_QUIET:
    o->verbose = -1;
    return 0;
  case OPT_VERBOSE:
    o->verbose = 1;
    return 0;
  case OPT_NP:
    return parse_int(v, 1, INT_MAX, &o->np, name, err, errlen);
  case OPT_LIST:
    o->list = 1;
    return 0;
  case OPT_HELP:
    o->help = 1;
    return 0;
  case OPT_COUNT:
    break;
  }
  return REVPROF_EINVAL;
}

int rp_char_parse(int argc, char **argv, rp_char_options *o, char *err,
                  size_t errlen) {
  rp_preset preset = RP_PRESET_DEFAULT;
  const char *iv;
  if (err && errlen)
    err[0] = '\0';
  for (int i = 1; i < argc; i++) { /* presets first, wherever they are */
    int id = find_option(argv[i], &iv);
    if (id == OPT_QUICK || id == OPT_FULL) {
      rp_preset p = id == OPT_QUICK ? RP_PRESET_QUICK : RP_PRESET_FULL;
      if (preset != RP_PRESET_DEFAULT && preset != p) {
        rp_errf(err, errlen, "--quick and --full exclude each other");
        rp_char_options_init(o, RP_PRESET_DEFAULT);
        return REVPROF_EINVAL;
      }
      preset = p;
    } else if (id < OPT_COUNT && opt_table[id].arg && iv == NULL)
      i++; /* skip the value */
  }
  rp_char_options_init(o, preset);
  unsigned char named[REVPROF_FN_COUNT] = {0};
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (rp_char_fn_io((revprof_fn)i))
      o->fn_on[i] = 1; /* requested; --io-dir decides below */
  for (int i = 1; i < argc; i++) {
    int id = find_option(argv[i], &iv);
    if (id == OPT_HELP) /* --help wins over any error */
      o->help = 1;
  }
  if (o->help)
    return 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int id = find_option(a, &iv);
    if (id == OPT_COUNT) {
      if (a[0] == '-')
        rp_errf(err, errlen, "unknown option '%s' (--help lists them)", a);
      else
        rp_errf(err, errlen, "unexpected argument '%s' (--help lists the "
                          "options)", a);
      return REVPROF_EINVAL;
    }
    const char *v = NULL;
    if (opt_table[id].arg) {
      if (iv)
        v = iv;
      else if (i + 1 < argc)
        v = argv[++i];
      else {
        rp_errf(err, errlen, "%s needs a value (%s)", a, opt_table[id].arg);
        return REVPROF_EINVAL;
      }
    }
    int rc = apply_option(id, v, o, named, err, errlen);
    if (rc)
      return rc;
  }
  for (int i = 0; i < REVPROF_FN_COUNT && o->io_dir[0] == '\0'; i++) {
    if (!rp_char_fn_io((revprof_fn)i))
      continue;
    if (named[i] && o->fn_on[i]) {
      rp_errf(err, errlen, "--functions: %s needs --io-dir DIR (a writable "
                           "directory on the file system to time it on)",
              revprof_fn_name((revprof_fn)i));
      return REVPROF_EINVAL;
    }
    o->fn_on[i] = 0; /* "all" without a directory: not timed */
  }
  if (o->min_reps > o->max_reps) {
    rp_errf(err, errlen, "--min-reps %ld is larger than --max-reps %ld",
         o->min_reps, o->max_reps);
    return REVPROF_ERANGE;
  }
  int any = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    any |= o->fn_on[i];
  if (!any && !o->list) {
    rp_errf(err, errlen, "no function left to time (--functions/--exclude)");
    return REVPROF_EINVAL;
  }
  return 0;
}

int rp_char_validate(const rp_char_options *o, int world, char *err,
                     size_t errlen) {
  if (world < 2) {
    rp_errf(err, errlen, "needs at least 2 ranks: mpirun -n 2 ... (got %d)",
         world);
    return REVPROF_ERANGE;
  }
  int coll = 0, p2p = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    if (!o->fn_on[i])
      continue;
    revprof_fn_kind k = revprof_fn_kind_of((revprof_fn)i);
    coll |= k == REVPROF_KIND_COLL;
    p2p |= k == REVPROF_KIND_P2P;
  }
  int pmax = o->nplist ? o->plist[o->nplist - 1] : o->pmax;
  if (coll && pmax > world) {
    rp_errf(err, errlen,
         "--procs: group size %d is larger than the %d ranks launched "
         "(mpirun -n %d ... or a smaller --procs)",
         pmax, world, pmax);
    return REVPROF_ERANGE;
  }
  if (coll && o->nplist == 0 && o->pmin > world) {
    rp_errf(err, errlen, "--procs: group size %d is larger than the %d ranks "
                      "launched", o->pmin, world);
    return REVPROF_ERANGE;
  }
  if (p2p && o->peer >= world) {
    rp_errf(err, errlen, "--peer %d: only ranks 1 to %d exist", o->peer,
         world - 1);
    return REVPROF_ERANGE;
  }
  return 0;
}

void rp_char_usage(FILE *f) {
  fprintf(f,
          "usage: mpirun -n N revprof-characterize [OPTIONS]\n"
          "       revprof characterize [-n N] [OPTIONS]\n"
          "\n"
          "Times every MPI function of the model (see --list; MPI-IO with "
          "--io-dir) over\ngroup sizes p and message sizes d on this "
          "machine, writes DIR/raw.csv, fits\nDIR/model.lua and writes the "
          "datasheet to DIR/datasheet/. Needs at least 2 ranks.\n\n"
          "options:\n");
  for (int i = 0; i < OPT_COUNT; i++) {
    const struct opt_row *r = &opt_table[i];
    char head[64];
    snprintf(head, sizeof head, "%s%s%s%s%s", r->shortname ? r->shortname : "",
             r->shortname ? ", " : "    ", r->longname, r->arg ? " " : "",
             r->arg ? r->arg : "");
    fprintf(f, "  %-28s", head);
    if (strlen(head) > 28)
      fprintf(f, "\n  %-28s", "");
    for (const char *h = r->help; *h; h++) {
      fputc(*h, f);
      if (*h == '\n')
        fprintf(f, "  %-28s", "");
    }
    fputc('\n', f);
  }
  fprintf(f, "\npresets (other options override them, in any order):\n");
  fprintf(f, "  %-9s %-9s %-6s %-11s %-10s %-7s %-7s %s\n", "", "sizes",
          "rse", "point-time", "reps", "warmup", "passes", "refine x extra");
  for (int p = 0; p < 3; p++) {
    rp_char_options o;
    char reps[32];
    rp_char_options_init(&o, (rp_preset)p);
    snprintf(reps, sizeof reps, "%ld..%ld", o.min_reps, o.max_reps);
    fprintf(f, "  %-9s 0:%-7ld %-6g %-11g %-10s %-7d %-7d %d x %d\n",
            p == 0 ? "(none)" : p == 1 ? "--quick" : "--full", o.smax, o.rse,
            o.point_time, reps, o.warmup, o.passes, o.refine, o.max_extra);
  }
  fprintf(f,
          "\nEach repetition is the maximum over the timed ranks; samples "
          "outside 1.5 x IQR\nare dropped; a point stops at the target rse "
          "(after --min-reps), the time cap\n(after 2 repetitions) or "
          "--max-reps. Reductions use MPI_UNSIGNED_CHAR with\nMPI_SUM, so d "
          "counts bytes. Ranks outside a group of size p wait.\n"
          "Exit status: 0 done, 1 failed (raw.csv kept when measured), "
          "2 bad usage.\n");
}

static const char *kind_name(revprof_fn_kind k) {
  return k == REVPROF_KIND_P2P ? "p2p" : k == REVPROF_KIND_COLL ? "coll"
                                                                : "local";
}

/* Barriers, fences, lock/unlock, file open, close, sync and set_view have
 * no data: only d = 0 is measured. */
static int fn_has_data(revprof_fn fn) {
  return fn != REVPROF_FN_BARRIER && fn != REVPROF_FN_IBARRIER &&
         fn != REVPROF_FN_WIN_FENCE && fn != REVPROF_FN_WIN_LOCK &&
         fn != REVPROF_FN_FILE_OPEN && fn != REVPROF_FN_FILE_CLOSE &&
         fn != REVPROF_FN_FILE_SYNC && fn != REVPROF_FN_FILE_SET_VIEW &&
         revprof_fn_kind_of(fn) != REVPROF_KIND_LOCAL;
}

int rp_char_fn_io(revprof_fn fn) {
  return strncmp(revprof_fn_name(fn), "MPI_File_", 9) == 0;
}

int rp_char_all_on(const rp_char_options *o) {
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (!o->fn_on[i] && (o->io_dir[0] || !rp_char_fn_io((revprof_fn)i)))
      return 0;
  return 1;
}

/* statfs f_type values of <linux/magic.h> and the file systems' own
 * headers (Lustre, GPFS, BeeGFS, ...), kept here so that the names do not
 * depend on the kernel headers installed. ext2, ext3 and ext4 share one. */
static const struct {
  unsigned long magic;
  const char *name;
} fs_table[] = {
    {0xEF53UL, "ext2/3/4"},      {0x58465342UL, "xfs"},
    {0x9123683EUL, "btrfs"},     {0x01021994UL, "tmpfs"},
    {0x6969UL, "nfs"},           {0x0BD00BD0UL, "lustre"},
    {0x47504653UL, "gpfs"},      {0x19830326UL, "beegfs"},
    {0x794C7630UL, "overlayfs"}, {0x2FC12FC1UL, "zfs"},
    {0x00C36400UL, "ceph"},      {0x65735546UL, "fuse"},
    {0xFF534D42UL, "cifs"},      {0xFE534D42UL, "smb2"},
    {0xF2F52010UL, "f2fs"},      {0x858458F6UL, "ramfs"},
    {0x20030528UL, "orangefs"},
};

void rp_char_fs_name(unsigned long f_type, char *buf, size_t len) {
  for (size_t i = 0; i < sizeof fs_table / sizeof fs_table[0]; i++)
    if (fs_table[i].magic == (f_type & 0xFFFFFFFFUL)) {
      snprintf(buf, len, "%s", fs_table[i].name);
      return;
    }
  snprintf(buf, len, "type 0x%lx", f_type);
}

void rp_char_list(FILE *f) {
  fprintf(f, "%-26s %-5s %-9s %s\n", "function", "kind", "p, d", "timed");
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    revprof_fn fn = (revprof_fn)i;
    revprof_fn_kind k = revprof_fn_kind_of(fn);
    const char *pd = k == REVPROF_KIND_P2P     ? (fn_has_data(fn) ? "2, sizes"
                                                                  : "2, 0")
                     : k == REVPROF_KIND_LOCAL ? "1, 0"
                     : fn_has_data(fn)         ? "procs, sizes"
                                               : "procs, 0";
    fprintf(f, "%-26s %-5s %-9s %s%s\n", revprof_fn_name(fn), kind_name(k),
            pd, revprof_fn_what(fn),
            rp_char_fn_io(fn) ? " (only with --io-dir DIR)" : "");
  }
}

int rp_char_procs(const rp_char_options *o, int world, int *out, int max) {
  int n = 0;
  if (o->nplist) {
    for (int i = 0; i < o->nplist && n < max; i++)
      out[n++] = o->plist[i];
    return n;
  }
  if (o->pmax > 0) {
    for (int p = o->pmin; p <= o->pmax && n < max; p++)
      out[n++] = p;
    return n;
  }
  if (world <= 16) {
    for (int p = o->pmin; p <= world && n < max; p++)
      out[n++] = p;
    return n;
  }
  for (long p = 2; p < world && n < max; p *= 2)
    if (p >= o->pmin)
      out[n++] = (int)p;
  if (n < max && world >= o->pmin)
    out[n++] = world;
  return n;
}

int rp_char_sizes(const rp_char_options *o, long *out, int max) {
  int n = 0;
  long lo = o->smin, hi = o->smax;
  if (lo == 0 && n < max) {
    out[n++] = 0;
    lo = 1;
  }
  if (lo > hi)
    return n;
  if (n < max)
    out[n++] = lo;
  long d = 1;
  while (d <= lo)
    d *= 2;
  for (; d < hi && n < max; d *= 2)
    out[n++] = d;
  if (hi > lo && n < max)
    out[n++] = hi;
  return n;
}

void rp_char_buffers(revprof_fn fn, int p, long d, size_t *send,
                     size_t *recv) {
  size_t sd = (size_t)d, sp = (size_t)(p < 1 ? 1 : p);
  size_t s = sd, r = sd;
  switch (fn) {
  case REVPROF_FN_GATHER:
  case REVPROF_FN_GATHERV:
  case REVPROF_FN_ALLGATHER:
  case REVPROF_FN_ALLGATHERV:
  case REVPROF_FN_NEIGHBOR_ALLGATHER:
    r = sp * sd; /* the root (or everyone) receives p blocks */
    break;
  case REVPROF_FN_SCATTER:
  case REVPROF_FN_SCATTERV:
  case REVPROF_FN_REDUCE_SCATTER:
  case REVPROF_FN_REDUCE_SCATTER_BLOCK:
    s = sp * sd;
    break;
  case REVPROF_FN_ALLTOALL:
  case REVPROF_FN_ALLTOALLV:
  case REVPROF_FN_IALLTOALL:
  case REVPROF_FN_NEIGHBOR_ALLTOALL:
    s = r = sp * sd;
    break;
  case REVPROF_FN_GAP: /* a train: one receive buffer per message */
  case REVPROF_FN_GAP_ALL:
  case REVPROF_FN_POST:
    r = (size_t)REVPROF_GAP_TRAIN * sd;
    break;
  case REVPROF_FN_BARRIER:
  case REVPROF_FN_IBARRIER:
  case REVPROF_FN_WTIME:
  case REVPROF_FN_WIN_LOCK:
  case REVPROF_FN_WIN_FENCE:
  case REVPROF_FN_FILE_OPEN:
  case REVPROF_FN_FILE_CLOSE:
  case REVPROF_FN_FILE_SET_SIZE: /* d is the file's size, not a buffer */
  case REVPROF_FN_FILE_PREALLOCATE:
  case REVPROF_FN_FILE_SET_VIEW:
  case REVPROF_FN_FILE_DELETE:
    s = r = 0;
    break;
  case REVPROF_FN_FILE_SYNC: /* the block written before each sync */
    s = RP_IO_SYNC_BYTES;
    r = 0;
    break;
  default:
    break;
  }
  *send = s;
  *recv = r;
}

int rp_char_fits(revprof_fn fn, int p, long d, long max_buffer) {
  size_t s, r;
  rp_char_buffers(fn, p, d, &s, &r);
  size_t big = s > r ? s : r;
  return big <= (size_t)max_buffer && big <= (size_t)INT_MAX &&
         d <= INT_MAX; /* d is an int count (a file size for set_size) */
}

int rp_char_fresh_send(revprof_fn fn) {
  switch (fn) {
  case REVPROF_FN_SEND:
  case REVPROF_FN_RECV:
  case REVPROF_FN_LATENCY:
  case REVPROF_FN_ISEND:
  case REVPROF_FN_IRECV:
  case REVPROF_FN_SENDRECV:
  case REVPROF_FN_WAIT:
  case REVPROF_FN_GAP:
  case REVPROF_FN_POST:
  case REVPROF_FN_GAP_ALL:
    return 1;
  default:
    return 0;
  }
}

int rp_char_drift(double t0, double t1, double limit, char *buf,
                  size_t len) {
  if (len > 0)
    buf[0] = '\0';
  if (!(t0 > 0.0) || !(t1 > 0.0) || !(limit > 1.0))
    return 0;
  double r = t1 / t0;
  if (r <= limit && r >= 1.0 / limit)
    return 0;
  snprintf(buf, len, REVPROF_NOTES_DRIFT "8 B one way took %.3g us before "
           "the first point, %.3g us after the last (%.2fx): the machine's "
           "speed changed while it was measured",
           t0 * 1e6, t1 * 1e6, r);
  return 1;
}

double rp_char_eager_search(long dmax, int (*waits)(long d, void *arg),
                            void *arg) {
  if (dmax < 1)
    return 0.0;
  long lo = 0, hi = 1; /* lo: the largest size known not to wait */
  while (!waits(hi, arg)) {
    if (hi >= dmax)
      return INFINITY;
    lo = hi;
    hi = hi > dmax / 2 ? dmax : 2 * hi;
  }
  while (hi - lo > 1) { /* lo does not wait, hi does */
    long mid = lo + (hi - lo) / 2;
    if (waits(mid, arg))
      hi = mid;
    else
      lo = mid;
  }
  return (double)hi;
}

void rp_char_describe(const rp_char_options *o, int world, char *buf,
                      size_t len) {
  char fns[256] = "all", io[1100] = "";
  int n = 0;
  if (!rp_char_all_on(o)) {
    fns[0] = '\0';
    for (int i = 0; i < REVPROF_FN_COUNT; i++)
      if (o->fn_on[i] && (size_t)n < sizeof fns)
        n += snprintf(fns + n, sizeof fns - (size_t)n, "%s%s", n ? "," : "",
                      revprof_fn_name((revprof_fn)i));
  }
  int maxp = world > 1 ? world : 1;
  int *procs = malloc((size_t)maxp * sizeof *procs);
  int np = procs ? rp_char_procs(o, world, procs, maxp) : 0;
  int pfirst = np ? procs[0] : 0, plast = np ? procs[np - 1] : 0;
  free(procs);
  char budget[32] = "none";
  if (o->budget > 0)
    snprintf(budget, sizeof budget, "%g s", o->budget);
  if (o->io_dir[0])
    snprintf(io, sizeof io, "; io-dir %s", o->io_dir);
  snprintf(buf, len,
           "preset %s; functions %s%s; sizes %ld:%ld B; "
           "procs %d..%d (%d sizes); ranks %d; rse %g; point-time %g s; reps "
           "%ld..%ld; warmup %d; passes %d; sync %s; budget %s; jump %g, %d "
           "round(s) of %d; method %s; reductions MPI_UNSIGNED_CHAR/MPI_SUM",
           preset_name(o->preset), fns, io, o->smin, o->smax,
           pfirst, plast, np, world, o->rse,
           o->point_time, o->min_reps, o->max_reps, o->warmup, o->passes,
           o->sync == RP_SYNC_WINDOW ? "window" : "barrier", budget, o->jump,
           o->refine, o->max_extra, o->method);
}

/* =============================================================== passes */

static int cmp_double(const void *a, const void *b);

void rp_char_merge_passes(const revprof_point *in, size_t k,
                          revprof_point *out) {
  double med[64];
  size_t nm = k < 64 ? k : 64;
  *out = in[0];
  if (k < 2)
    return;
  double sum = 0.0;
  for (size_t i = 0; i < k; i++) {
    if (i < nm)
      med[i] = in[i].median;
    sum += in[i].mean;
    if (i > 0) {
      out->min = in[i].min < out->min ? in[i].min : out->min;
      out->max = in[i].max > out->max ? in[i].max : out->max;
      out->reps += in[i].reps;
    }
  }
  qsort(med, nm, sizeof *med, cmp_double);
  out->median = nm % 2 ? med[nm / 2] : 0.5 * (med[nm / 2 - 1] + med[nm / 2]);
  out->mean = sum / (double)k;
  double ss = 0.0;
  for (size_t i = 0; i < k; i++)
    ss += (in[i].mean - out->mean) * (in[i].mean - out->mean);
  double se = sqrt(ss / (double)(k - 1) / (double)k);
  out->rse = out->mean > 0.0 ? se / out->mean : 0.0;
  /* keep min <= median, mean <= max for the raw CSV reader */
  if (out->median < out->min) out->median = out->min;
  if (out->median > out->max) out->median = out->max;
  if (out->mean < out->min) out->mean = out->min;
  if (out->mean > out->max) out->mean = out->max;
}

/* ================================================================= plan */

int rp_char_plan_add(rp_char_plan *plan, const rp_char_spec *s) {
  rp_char_spec *np = rp_grow(plan->pt, &plan->cap, plan->n + 1, sizeof *np);
  if (np == NULL)
    return REVPROF_ENOMEM;
  plan->pt = np;
  plan->pt[plan->n++] = *s;
  return 0;
}

void rp_char_plan_free(rp_char_plan *plan) {
  if (plan == NULL)
    return;
  free(plan->pt);
  memset(plan, 0, sizeof *plan);
}

/* Adds (fn, p, d) unless it exceeds the buffer limit (then counted). */
static int plan_try(rp_char_plan *plan, revprof_fn fn, int p, long d,
                    long max_buffer) {
  if (!rp_char_fits(fn, p, d, max_buffer)) {
    plan->nlimited++;
    return 0;
  }
  rp_char_spec s = {fn, p, d};
  return rp_char_plan_add(plan, &s);
}

int rp_char_plan_build(const rp_char_options *o, int world,
                       rp_char_plan *plan, char *err, size_t errlen) {
  long sizes[64];
  int maxp = world > 1 ? world : 1;
  int *procs = malloc((size_t)maxp * sizeof *procs);
  if (procs == NULL) {
    rp_errf(err, errlen, "out of memory building the list of points");
    return REVPROF_ENOMEM;
  }
  int ns = rp_char_sizes(o, sizes, 64);
  int np = rp_char_procs(o, world, procs, maxp);
  int rc = 0;
  for (int i = 0; i < REVPROF_FN_COUNT && rc == 0; i++) {
    revprof_fn fn = (revprof_fn)i;
    if (!o->fn_on[i])
      continue;
    switch (revprof_fn_kind_of(fn)) {
    case REVPROF_KIND_P2P:
      if (!fn_has_data(fn))
        rc = plan_try(plan, fn, 2, 0, o->max_buffer);
      else
        for (int k = 0; k < ns && rc == 0; k++)
          rc = plan_try(plan, fn, 2, sizes[k], o->max_buffer);
      break;
    case REVPROF_KIND_COLL:
      for (int j = 0; j < np && rc == 0; j++) {
        if (!fn_has_data(fn))
          rc = plan_try(plan, fn, procs[j], 0, o->max_buffer);
        else
          for (int k = 0; k < ns && rc == 0; k++)
            rc = plan_try(plan, fn, procs[j], sizes[k], o->max_buffer);
      }
      break;
    case REVPROF_KIND_LOCAL:
      rc = plan_try(plan, fn, 1, 0, o->max_buffer);
      break;
    }
  }
  free(procs);
  if (rc) {
    rp_errf(err, errlen, "out of memory building the list of points");
    return rc;
  }
  if (plan->n == 0) {
    rp_errf(err, errlen, "nothing to measure (%zu points exceed --max-buffer)",
         plan->nlimited);
    return REVPROF_ERANGE;
  }
  return 0;
}

uint64_t rp_rand_next(uint64_t *state) { /* splitmix64 */
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void rp_char_plan_shuffle(rp_char_plan *plan, uint64_t seed) {
  uint64_t st = seed;
  for (size_t i = plan->n; i > 1; i--) {
    size_t j = (size_t)(rp_rand_next(&st) % i); /* bias negligible */
    rp_char_spec t = plan->pt[i - 1];
    plan->pt[i - 1] = plan->pt[j];
    plan->pt[j] = t;
  }
}

/* =========================================================== statistics */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Quantile q of sorted x[0..n-1], linear interpolation between order
 * statistics (R type 7). */
static double quantile(const double *x, size_t n, double q) {
  double h = (double)(n - 1) * q;
  size_t i = (size_t)h;
  if (i + 1 >= n)
    return x[n - 1];
  return x[i] + (h - (double)i) * (x[i + 1] - x[i]);
}

int rp_stats_compute(const double *x, size_t n, double *work, rp_stats *out) {
  memset(out, 0, sizeof *out);
  if (n == 0)
    return REVPROF_EINVAL;
  memcpy(work, x, n * sizeof *work);
  qsort(work, n, sizeof *work, cmp_double);
  size_t lo = 0, hi = n; /* kept: work[lo..hi-1] */
  if (n >= 4) {
    double q1 = quantile(work, n, 0.25), q3 = quantile(work, n, 0.75);
    double iqr = q3 - q1;
    double flo = q1 - 1.5 * iqr, fhi = q3 + 1.5 * iqr;
    while (lo < hi && work[lo] < flo)
      lo++;
    while (hi > lo && work[hi - 1] > fhi)
      hi--;
  }
  size_t k = hi - lo;
  const double *v = work + lo;
  double sum = 0.0;
  for (size_t i = 0; i < k; i++)
    sum += v[i];
  double mean = sum / (double)k, ss = 0.0;
  for (size_t i = 0; i < k; i++)
    ss += (v[i] - mean) * (v[i] - mean);
  out->n = (long)k;
  out->nrejected = (long)(n - k);
  out->min = v[0];
  out->max = v[k - 1];
  out->median = quantile(v, k, 0.5);
  out->mean = mean;
  if (mean < out->min) /* rounding in the sum */
    out->mean = out->min;
  if (mean > out->max)
    out->mean = out->max;
  out->rse = 0.0;
  if (k > 1 && mean > 0.0 && ss > 0.0)
    out->rse = sqrt(ss / (double)(k - 1)) / sqrt((double)k) / mean;
  return 0;
}

rp_stop rp_stop_decide(const rp_stop_rule *r, long nreps, double elapsed,
                       double rse) {
  if (nreps >= r->max_reps)
    return RP_STOP_REPS;
  if (rse >= 0.0 && nreps >= r->min_reps && nreps >= 2 && rse <= r->rse)
    return RP_STOP_RSE;
  if (elapsed >= r->cap && (nreps >= 2 || elapsed >= 10.0 * r->cap))
    return RP_STOP_TIME; /* under 2 reps in 10 caps: given up */
  return RP_STOP_NO;
}

int rp_stop_check_due(long nreps) {
  if (nreps <= 32)
    return 1;
  return nreps % (nreps / 16) == 0;
}

const char *rp_stop_name(rp_stop s) {
  switch (s) {
  case RP_STOP_RSE:
    return "rse";
  case RP_STOP_TIME:
    return "time cap";
  case RP_STOP_REPS:
    return "max reps";
  case RP_STOP_NO:
    break;
  }
  return "running";
}

/* ======================================================= jump detection */

static double median_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int rp_jumps_find(const double *d, const double *t, int n, double factor,
                  long *mid, double *score, int max) {
  int found = 0;
  if (n < 4 || factor <= 1.0 || max <= 0)
    return 0;
  double *slope = malloc((size_t)n * sizeof *slope);
  if (slope == NULL)
    return 0;
  int nint = n - 1;
  for (int i = 0; i < nint; i++) {
    double w = log(d[i + 1] / d[i]);
    slope[i] = (t[i] > 0 && t[i + 1] > 0 && d[i] > 0 && w > 0)
                   ? log(t[i + 1] / t[i]) / w
                   : NAN;
  }
  double limit = log(factor);
  for (int i = 0; i < nint; i++) {
    double nb[4];
    int k = 0;
    if (isnan(slope[i]))
      continue;
    for (int j = i - 2; j <= i + 2; j++)
      if (j >= 0 && j < nint && j != i && !isnan(slope[j]))
        nb[k++] = slope[j];
    if (k < 2)
      continue;
    double trend = median_of(nb, k);
    double w = log(d[i + 1] / d[i]);
    double dev = fabs(slope[i] * w - trend * w);
    long m = (long)floor((d[i] + d[i + 1]) / 2.0 + 0.5);
    if (dev <= limit || m <= (long)d[i] || m >= (long)d[i + 1])
      continue;
    /* insert sorted by score, keep at most max */
    int pos = found < max ? found : max;
    while (pos > 0 && score[pos - 1] < dev)
      pos--;
    if (pos >= max)
      continue;
    int last = found < max ? found : max - 1;
    for (int q = last; q > pos; q--) {
      mid[q] = mid[q - 1];
      score[q] = score[q - 1];
    }
    mid[pos] = m;
    score[pos] = dev;
    if (found < max)
      found++;
  }
  free(slope);
  return found;
}

static int cmp_point(const void *a, const void *b) {
  const revprof_point *x = a, *y = b;
  if (x->fn != y->fn)
    return x->fn < y->fn ? -1 : 1;
  if (x->p != y->p)
    return x->p < y->p ? -1 : 1;
  return (x->d > y->d) - (x->d < y->d);
}

typedef struct cand {
  long d;
  double score;
} cand;

/* Adds (d, score) to c[0..*n-1], keeping the largest score per d. */
static void cand_add(cand *c, int *n, int max, long d, double score) {
  for (int i = 0; i < *n; i++)
    if (c[i].d == d) {
      if (score > c[i].score)
        c[i].score = score;
      return;
    }
  if (*n < max)
    c[(*n)++] = (cand){d, score};
}

static int cmp_cand(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  return (x->d > y->d) - (x->d < y->d);
}

int rp_char_refine(const revprof_point *pts, size_t n, double factor,
                   int max_extra, long max_buffer, rp_char_plan *out) {
  if (n == 0 || factor <= 1.0 || max_extra <= 0)
    return 0;
  revprof_point *s = malloc(n * sizeof *s);
  double *d = malloc(n * sizeof *d), *t = malloc(n * sizeof *t);
  cand *c = malloc(256 * sizeof *c);
  int rc = 0;
  if (!s || !d || !t || !c) {
    rc = REVPROF_ENOMEM;
    goto done;
  }
  memcpy(s, pts, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_point);
  for (size_t a = 0; a < n && rc == 0;) {
    size_t b = a;
    while (b < n && s[b].fn == s[a].fn)
      b++;
    int nc = 0;
    for (size_t i = a; i < b;) { /* each p of this function */
      size_t j = i;
      int k = 0;
      while (j < b && s[j].p == s[i].p) {
        if (s[j].d > 0) {
          d[k] = s[j].d;
          t[k++] = s[j].median;
        }
        j++;
      }
      long mid[64];
      double score[64];
      int m = rp_jumps_find(d, t, k, factor, mid, score, 64);
      for (int q = 0; q < m; q++)
        cand_add(c, &nc, 256, mid[q], score[q]);
      i = j;
    }
    int keep = 0; /* drop sizes already measured for this function */
    for (int q = 0; q < nc; q++) {
      int seen = 0;
      for (size_t i = a; i < b && !seen; i++)
        seen = s[i].d == (double)c[q].d;
      if (!seen)
        c[keep++] = c[q];
    }
    qsort(c, (size_t)keep, sizeof *c, cmp_cand);
    if (keep > max_extra)
      keep = max_extra;
    for (size_t i = a; i < b && rc == 0; i++) {
      if (i > a && s[i].p == s[i - 1].p)
        continue; /* once per p */
      for (int q = 0; q < keep && rc == 0; q++) {
        if (!rp_char_fits(s[i].fn, s[i].p, c[q].d, max_buffer)) {
          out->nlimited++;
          continue;
        }
        rp_char_spec sp = {s[i].fn, s[i].p, c[q].d};
        rc = rp_char_plan_add(out, &sp);
      }
    }
    a = b;
  }
done:
  free(s);
  free(d);
  free(t);
  free(c);
  return rc;
}

/* ==================================================== budget, progress */

rp_budget rp_budget_cap(double budget, double elapsed, size_t left,
                        double point_time, double *cap) {
  *cap = point_time;
  if (budget <= 0.0)
    return RP_BUDGET_RUN;
  double rest = budget - elapsed;
  if (rest <= 0.0 || left == 0) {
    *cap = 0.0;
    return RP_BUDGET_SKIP;
  }
  double share = rest / (double)left;
  if (share >= point_time)
    return RP_BUDGET_RUN;
  *cap = share;
  return RP_BUDGET_SHRINK;
}

double rp_eta(double elapsed, size_t done, size_t total, double budget) {
  if (done == 0)
    return -1.0;
  double est = elapsed / (double)done * (double)(total > done ? total - done
                                                              : 0);
  if (budget > 0.0) {
    double rest = budget - elapsed;
    if (rest < 0.0)
      rest = 0.0;
    if (est > rest)
      est = rest;
  }
  return est;
}

void rp_fmt_duration(double s, char *buf, size_t len) {
  if (!(s >= 0.0) || !isfinite(s)) {
    snprintf(buf, len, "?");
    return;
  }
  long t = (long)(s + 0.5);
  if (t < 60)
    snprintf(buf, len, "%ld s", t);
  else if (t < 3600)
    snprintf(buf, len, "%ld min %02ld s", t / 60, t % 60);
  else
    snprintf(buf, len, "%ld h %02ld min", t / 3600, (t % 3600) / 60);
}

double rp_clock_offset(const double *t_send, const double *t_remote,
                       const double *t_recv, int n) {
  int best = 0;
  for (int i = 1; i < n; i++)
    if (t_recv[i] - t_send[i] < t_recv[best] - t_send[best])
      best = i;
  return t_remote[best] - 0.5 * (t_send[best] + t_recv[best]);
}
