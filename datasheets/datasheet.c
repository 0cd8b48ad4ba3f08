/* Datasheet generator (seed 003 §3.2, Figure 1): a LaTeX document with one
 * page per MPI function of a machine model, a CSV of all equations, gnuplot
 * figures of measured points and fitted curves, and the PDF via pdflatex. */
#include "rp_datasheet.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "model_int.h" /* rp_errf, rp_fmt_double, rp_open_tmp/rp_commit_file */
#include "rp_util.h"

#ifndef RP_GNUPLOT
#define RP_GNUPLOT ""
#endif
#ifndef RP_PDFLATEX
#define RP_PDFLATEX ""
#endif

#define PATHLEN 4096
#define MAX_SHOWN 6        /* most group sizes drawn in one figure */
#define MAX_ALL 5          /* up to this many measured are all drawn */
#define LOW_CONFIDENCE REVPROF_LOW_CONFIDENCE
#define FIT_STEPS 8        /* fitted curves: points per doubling of d or p */
#define US 1e6             /* seconds -> microseconds */

/* Series colours (Okabe-Ito, colour-blind safe), one per group size. */
static const char *const colours[MAX_SHOWN] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#000000"};

/* What one function's figure shows. */
typedef struct figplan {
  size_t npoints;           /* raw points of the function */
  int np, nd;               /* distinct group and message sizes measured */
  double pmin, pmax;        /* group sizes measured (or drawn, without raw) */
  double dmin, dmax;        /* message sizes measured, bytes */
  int single;               /* one (p, d) only: no figure */
  int by_p;                 /* x axis is p (one message size, dfix) */
  double dfix;              /* by_p: the message size, bytes */
  double dlo, dhi;          /* by d: positive sizes drawn, bytes */
  int has_zero;             /* by d: d = 0 drawn at x = dlo / 2 */
  int nshown;               /* group sizes drawn, ascending */
  double shown[MAX_SHOWN];
  int drawn;                /* 1: fig/<fn>.pdf was made in this run */
} figplan;

typedef struct sheet {
  const revprof_model *m;
  const revprof_raw *raw;
  const rp_datasheet_options *o;
  const char *dir;
  char figdir[PATHLEN];
  char latexdir[PATHLEN];
  char gnuplot[PATHLEN];  /* "" when figures are not rendered */
  char pdflatex[PATHLEN]; /* "" when no PDF is made */
  const char *nofig;      /* why there are no figures, for the .tex */
  figplan plan[REVPROF_FN_COUNT];
  char *err;
  size_t errlen;
} sheet;

/* ------------------------------------------------------------ file system */

/* buf = a "/" b; REVPROF_ERANGE (with a message) when it does not fit. */
static int join(char *buf, size_t len, const char *a, const char *b,
                char *err, size_t errlen) {
  int n = snprintf(buf, len, "%s/%s", a, b);
  if (n < 0 || (size_t)n >= len) {
    rp_errf(err, errlen, "%s/%s: path too long", a, b);
    return REVPROF_ERANGE;
  }
  return 0;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Creates dir and its missing parents (like mkdir -p). *created is set to 1
 * when dir itself did not exist. Errors name dir and the failing part. */
static int make_dirs(const char *dir, int *created, char *err,
                     size_t errlen) {
  size_t at;
  *created = 0;
  if (strlen(dir) >= PATHLEN) {
    rp_errf(err, errlen, "%s: path too long", dir);
    return REVPROF_ERANGE;
  }
  if (is_dir(dir))
    return 0;
  if (rp_mkdir_p_at(dir, &at) != 0) {
    if (errno == EEXIST)
      rp_errf(err, errlen, "%s: exists but is not a directory", dir);
    else if (at == strlen(dir))
      rp_errf(err, errlen, "%s: cannot create directory: %s", dir,
              strerror(errno));
    else
      rp_errf(err, errlen, "%s: cannot create directory (at %.*s): %s", dir,
              (int)at, dir, strerror(errno));
    return REVPROF_EIO;
  }
  *created = 1;
  return 0;
}

/* Finds an external program: the environment variable env when set (empty
 * means "none"), else the path compiled in. A name without '/' is looked up
 * in PATH. Writes the path to buf; returns 1 when it is executable. */
static int find_tool(const char *env, const char *builtin, char *buf,
                     size_t len) {
  const char *name = getenv(env);
  if (name == NULL)
    name = builtin;
  buf[0] = '\0';
  if (name == NULL || name[0] == '\0')
    return 0;
  if (strchr(name, '/')) {
    if (access(name, X_OK) != 0 || is_dir(name))
      return 0;
    snprintf(buf, len, "%s", name);
    return 1;
  }
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    int w = snprintf(buf, len, "%.*s/%s", (int)n, path, name);
    if (n > 0 && w > 0 && (size_t)w < len && access(buf, X_OK) == 0 &&
        !is_dir(buf))
      return 1;
    path = colon ? colon + 1 : NULL;
  }
  buf[0] = '\0';
  return 0;
}

/* Runs argv (argv[0] a path) in directory cwd with stdin from /dev/null and
 * stdout and stderr to the file out (relative to cwd). Returns the exit
 * status (0..255; 128 + signal when killed) or REVPROF_EIO when it could not
 * be started or its log file not opened (126: no cwd, 127: exec failed). */
static int run_tool(char *const argv[], const char *cwd, const char *out) {
  char log[PATHLEN];
  int in = open("/dev/null", O_RDONLY | O_CLOEXEC), fd = -1, st = -1;
  if (in >= 0 && snprintf(log, sizeof log, "%s/%s", cwd, out) <
                     (int)sizeof log &&
      (fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) >= 0)
    st = rp_spawn_wait(argv, cwd, in, fd, fd);
  if (fd >= 0)
    close(fd);
  if (in >= 0)
    close(in);
  return st < 0 ? REVPROF_EIO : st;
}

/* Reads a whole (small) file; NULL on failure. Caller frees. */
static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;
  if (f == NULL)
    return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    if (*len != (size_t)n) {
      free(buf);
      buf = NULL;
    }
  }
  fclose(f);
  return buf;
}

/* --------------------------------------------------------------- numbers */

/* Writes x (finite) with 3 significant digits as LaTeX math: "0.0421",
 * "1350", "4.10\times 10^{-4}". */
static void tex_num(char *buf, size_t len, double x) {
  if (x == 0.0) {
    snprintf(buf, len, "0");
    return;
  }
  int k = (int)floor(log10(fabs(x)));
  if (k >= -2 && k <= 4) {
    int dec = 2 - k;
    snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec, x);
  } else {
    double mant = x / pow(10.0, k);
    snprintf(buf, len, "%.2f\\times 10^{%d}", mant, k);
  }
}

/* Writes v with its standard error e as LaTeX math "(v \pm e)", rounded by
 * the Particle Data Group rule: e keeps two significant digits when its
 * leading digits are below 355, else one; v is rounded to the same decimal.
 * Very small or large pairs share a factor: "(1.98 \pm 0.04)\times 10^{-4}". */
static void tex_pm(char *buf, size_t len, double v, double e) {
  char num[64];
  if (!(e > 0.0)) {
    tex_num(num, sizeof num, v);
    snprintf(buf, len, "%s", num);
    return;
  }
  double mag = fmax(fabs(v), e);
  int k = (int)floor(log10(mag));
  int scaled = k < -2 || k > 4;
  double f = scaled ? pow(10.0, k) : 1.0;
  double vs = v / f, es = e / f;
  int ke = (int)floor(log10(es));
  double lead = es / pow(10.0, ke);        /* 1 <= lead < 10 */
  int dec = (lead < 3.55 ? 1 : 0) - ke;    /* decimals shown */
  int kv = vs != 0.0 ? (int)floor(log10(fabs(vs))) : 0;
  if (dec > 5 - kv)
    dec = 5 - kv; /* at most 6 significant digits of v */
  if (dec < 0)
    dec = 0;
  if (scaled)
    snprintf(buf, len, "(%.*f \\pm %.*f)\\times 10^{%d}", dec, vs, dec, es, k);
  else
    snprintf(buf, len, "(%.*f \\pm %.*f)", dec, vs, dec, es);
}

/* Message size d as an exact LaTeX number with thin-space digit groups
 * (65536 -> "65\,536"); non-integers as %g. */
static void tex_bytes(char *buf, size_t len, double d) {
  char digits[64];
  if (d != floor(d) || d >= 1e15) {
    snprintf(buf, len, "%g", d);
    return;
  }
  snprintf(digits, sizeof digits, "%.0f", d);
  size_t n = strlen(digits), used = 0;
  for (size_t i = 0; i < n && used + 3 < len; i++) {
    if (i > 0 && (n - i) % 3 == 0 && n > 4) {
      if (used + 6 >= len)
        break;
      memcpy(buf + used, "\\,", 2);
      used += 2;
    }
    buf[used++] = digits[i];
  }
  buf[used] = '\0';
}

/* Message size readably: "32 B", "64 KiB", "1.5 MiB"; sep goes between the
 * number and the unit. Returns 1 when the text is exact, 0 when rounded
 * ("~64.0 KiB"). */
static int size_text(char *buf, size_t len, double d, const char *sep) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = d;
  while (u < 4 && v >= 1024.0) {
    v /= 1024.0;
    u++;
  }
  double milli = v * 1000.0;
  if (milli == floor(milli) && (u == 0 ? v == floor(v) : 1)) {
    snprintf(buf, len, "%g%s%s", v, sep, unit[u]);
    return 1;
  }
  snprintf(buf, len, u == 0 ? "%.3g%s%s" : "~%.1f%s%s", v, sep, unit[u]);
  return 0;
}

/* ----------------------------------------------------------------- LaTeX */

/* Code points (Latin-1 and Latin Extended-A) that LaTeX's utf8 input with
 * the default OT1 fonts cannot typeset; written as '?'. */
static int tex_unsupported(unsigned cp) {
  static const unsigned bad[] = {0xAB,  0xBB,  0xD0,  0xDE,  0xF0,  0xFE,
                                 0x104, 0x105, 0x110, 0x111, 0x118, 0x119,
                                 0x126, 0x127, 0x12E, 0x12F, 0x138, 0x13F,
                                 0x140, 0x149, 0x14A, 0x14B, 0x166, 0x167,
                                 0x172, 0x173, 0x17F};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (bad[i] == cp)
      return 1;
  return !(cp >= 0xA0 && cp < 0x180) && cp != 0x2013 && cp != 0x2014 &&
         cp != 0x2018 && cp != 0x2019 && cp != 0x201C && cp != 0x201D;
}

/* Writes s as LaTeX text: the ten special characters and < > | are
 * escaped, control characters become spaces, "--" does not turn into a
 * dash, UTF-8 that the document cannot typeset becomes '?'. */
static void tex_text(FILE *f, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  while (*u) {
    unsigned c = *u;
    if (c >= 0x80) { /* UTF-8 sequence */
      int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
      unsigned cp = c & (n == 3 ? 0x07u : n == 2 ? 0x0Fu : 0x1Fu);
      int ok = n > 0;
      for (int i = 1; ok && i <= n; i++) {
        ok = (u[i] & 0xC0) == 0x80;
        cp = cp << 6 | (u[i] & 0x3Fu);
      }
      if (!ok) {
        fputc('?', f);
        u++;
        continue;
      }
      if (tex_unsupported(cp))
        fputc('?', f);
      else
        fwrite(u, 1, (size_t)n + 1, f);
      u += n + 1;
      continue;
    }
    switch (c) {
    case '\\': fputs("\\textbackslash{}", f); break;
    case '{': case '}': case '$': case '&': case '#': case '%': case '_':
      fputc('\\', f);
      fputc((int)c, f);
      break;
    case '^': fputs("\\textasciicircum{}", f); break;
    case '~': fputs("\\textasciitilde{}", f); break;
    case '<': fputs("\\textless{}", f); break;
    case '>': fputs("\\textgreater{}", f); break;
    case '|': fputs("\\textbar{}", f); break;
    case '-': fputs(u[1] == '-' ? "-{}" : "-", f); break;
    default:
      fputc(c < 0x20 || c == 0x7F ? ' ' : (int)c, f);
    }
    u++;
  }
}

/* A basis function as LaTeX math, to follow its coefficient; a hinge
 * max(p-K,0) is written (p-K)_+. */
#define TEX_HINGE_(K)                                                          \
  case REVPROF_BASIS_HINGE##K: return "(p-" #K ")_+";                          \
  case REVPROF_BASIS_HINGE##K##D: return "(p-" #K ")_+\\,d";
static const char *tex_basis(revprof_basis b) {
  switch (b) {
  case REVPROF_BASIS_ONE: return "";
  case REVPROF_BASIS_P: return "p";
  case REVPROF_BASIS_LOG2P: return "\\log_2 p";
  case REVPROF_BASIS_P2: return "p^2";
  case REVPROF_BASIS_LOG2P_2: return "\\log_2^2 p";
  case REVPROF_BASIS_SQRTP: return "\\sqrt{p}";
  case REVPROF_BASIS_INVP: return "p^{-1}";
  case REVPROF_BASIS_D: return "d";
  case REVPROF_BASIS_PD: return "p\\,d";
  case REVPROF_BASIS_LOG2PD: return "d\\log_2 p";
  case REVPROF_BASIS_P2D: return "p^2 d";
  case REVPROF_BASIS_PM1_P_D: return "\\tfrac{p-1}{p}\\,d";
  case REVPROF_BASIS_PM1D: return "(p-1)\\,d";
  case REVPROF_BASIS_SQRTPD: return "\\sqrt{p}\\,d";
    TEX_HINGE_(4)
    TEX_HINGE_(8)
    TEX_HINGE_(16)
    TEX_HINGE_(32)
    TEX_HINGE_(64)
    TEX_HINGE_(128)
    TEX_HINGE_(256)
    TEX_HINGE_(512)
  case REVPROF_BASIS_COUNT: break;
  }
  return "?";
}
#undef TEX_HINGE_

/* Writes one equation of regime r in microseconds: the typical time with
 * standard errors (which = REVPROF_AVG) or a bound without them. After
 * every three terms the line breaks (inside an aligned block). */
static void tex_equation(FILE *f, const revprof_regime *r, int which) {
  const double *c = which == REVPROF_MIN   ? r->min
                    : which == REVPROF_MAX ? r->max
                                           : r->avg;
  char num[96];
  int wrap = r->nterms > 3;
  if (wrap)
    fputs("\\begin{aligned}[t]&", f);
  for (int k = 0; k < r->nterms; k++) {
    if (which == REVPROF_AVG)
      tex_pm(num, sizeof num, c[k] * US, r->err[k] * US);
    else
      tex_num(num, sizeof num, c[k] * US);
    const char *b = tex_basis(r->form[k]);
    if (k > 0)
      fputs(wrap && k % 3 == 0 ? "\\\\&{}+ " : " + ", f);
    if (b[0] == '\0')
      fputs(num, f);
    else
      fprintf(f, "%s\\,%s", num, b);
  }
  if (wrap)
    fputs("\\end{aligned}", f);
}

/* Writes the condition of regime i of fm on d ("d \le 32") as math. */
static void tex_condition(FILE *f, const revprof_fnmodel *fm, int i) {
  const revprof_regime *r = &fm->regime[i];
  char lo[64], hi[64];
  tex_bytes(lo, sizeof lo, r->dmin);
  tex_bytes(hi, sizeof hi, r->dmax);
  if (fm->nregimes == 1)
    fputs("\\text{all } d", f);
  else if (i == 0)
    fprintf(f, "d \\le %s", hi);
  else if (i == fm->nregimes - 1)
    fprintf(f, "d \\ge %s", lo);
  else
    fprintf(f, "%s \\le d \\le %s", lo, hi);
}

/* Writes the message sizes of regime i readably ("above 32 B up to
 * 64 KiB") for a table cell. */
static void tex_range(FILE *f, const revprof_fnmodel *fm, int i) {
  const revprof_regime *r = &fm->regime[i];
  char lo[64], hi[64];
  if (fm->nregimes == 1) {
    fputs("all sizes", f);
    return;
  }
  if (i > 0) {
    if (!size_text(lo, sizeof lo, r->dmin, "~") &&
        size_text(lo, sizeof lo, r->dmin - 1.0, "~"))
      fprintf(f, "above %s", lo);
    else {
      size_text(lo, sizeof lo, r->dmin, "~");
      fprintf(f, "from %s", lo);
    }
  }
  if (i < fm->nregimes - 1) {
    size_text(hi, sizeof hi, r->dmax, "~");
    fprintf(f, "%sup to %s", i > 0 ? " " : "", hi);
  }
}

/* Writes T_label(p,d) = { equation per regime } for one function. */
static void tex_cases(FILE *f, const revprof_fnmodel *fm, const char *label,
                      int which) {
  fprintf(f, "\\[\n  %s(p,d) = ", label);
  if (fm->nregimes == 1) {
    tex_equation(f, &fm->regime[0], which);
    fputs("\n\\]\n", f);
    return;
  }
  fputs("\\begin{cases}\n", f);
  for (int i = 0; i < fm->nregimes; i++) {
    fputs("    ", f);
    tex_equation(f, &fm->regime[i], which);
    fputs(" & ", f);
    tex_condition(f, fm, i);
    fputs(i < fm->nregimes - 1 ? "\\\\\n" : "\n", f);
  }
  fputs("  \\end{cases}\n\\]\n", f);
}

/* ---------------------------------------------------------------- planning */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v and removes repeats; returns the new count. */
static int sort_unique(double *v, size_t n) {
  size_t k = 0;
  qsort(v, n, sizeof *v, cmp_double);
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[i] != v[k - 1])
      v[k++] = v[i];
  return (int)k;
}

static int is_pow2(double p) {
  int e;
  return p >= 1.0 && frexp(p, &e) == 0.5;
}

/* Picks the group sizes a figure draws from the n ascending ones measured:
 * all when at most MAX_ALL, else at most MAX_SHOWN: the powers of two
 * (thinned to every other one until few enough) plus the largest, or
 * evenly spaced ones when there are no powers of two. */
static void choose_shown(const double *ps, int n, figplan *pl) {
  double cand[64];
  int nc = 0;
  if (n <= MAX_ALL) {
    for (int i = 0; i < n; i++)
      pl->shown[i] = ps[i];
    pl->nshown = n;
    return;
  }
  for (int i = 0; i < n && nc < 64; i++)
    if (is_pow2(ps[i]) && ps[i] < ps[n - 1])
      cand[nc++] = ps[i];
  if (nc < 2) {
    nc = 0;
    for (int i = 0; i < MAX_SHOWN - 1; i++)
      cand[nc++] = ps[(size_t)i * (size_t)(n - 1) / (MAX_SHOWN - 1)];
  }
  while (nc > MAX_SHOWN - 1) { /* keep the first and every other one */
    int j = 0;
    for (int i = 0; i < nc; i += 2)
      cand[j++] = cand[i];
    nc = j;
  }
  cand[nc++] = ps[n - 1];
  memcpy(pl->shown, cand, (size_t)nc * sizeof cand[0]);
  pl->nshown = nc;
}

/* Group sizes drawn when there are no measurements: 2 for point-to-point, 1
 * for local calls, powers of two up to the ranks characterized (or 16) for
 * collectives. Returns the count written to ps (at most 64). */
static int default_ps(const revprof_model *m, revprof_fn fn, double *ps) {
  revprof_fn_kind kind = revprof_fn_kind_of(fn);
  int n = 0;
  if (kind != REVPROF_KIND_COLL) {
    ps[0] = kind == REVPROF_KIND_P2P ? 2.0 : 1.0;
    return 1;
  }
  double top = m->machine_ranks >= 2 ? m->machine_ranks : 16;
  for (double p = 2.0; p <= top && n < 63; p *= 2.0)
    ps[n++] = p;
  if (n == 0 || ps[n - 1] < top)
    ps[n++] = top;
  return n;
}

/* Decides what the figure of fn shows, from its raw points when there are
 * any, else from the model. */
static int plan_function(const sheet *s, revprof_fn fn, figplan *pl) {
  const revprof_fnmodel *fm = &s->m->fn[fn];
  size_t n = 0;
  memset(pl, 0, sizeof *pl);
  for (size_t i = 0; s->raw && i < s->raw->n; i++)
    n += s->raw->pt[i].fn == fn;
  pl->npoints = n;
  if (n > 0) {
    double *ps = malloc(n * sizeof *ps), *ds = malloc(n * sizeof *ds);
    if (!ps || !ds) {
      free(ps);
      free(ds);
      rp_errf(s->err, s->errlen, "datasheet: out of memory");
      return REVPROF_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->raw->n; i++)
      if (s->raw->pt[i].fn == fn) {
        ps[k] = s->raw->pt[i].p;
        ds[k++] = s->raw->pt[i].d;
      }
    pl->np = sort_unique(ps, n);
    pl->nd = sort_unique(ds, n);
    pl->pmin = ps[0];
    pl->pmax = ps[pl->np - 1];
    pl->dmin = ds[0];
    pl->dmax = ds[pl->nd - 1];
    pl->by_p = pl->nd == 1;
    pl->single = pl->nd == 1 && pl->np == 1;
    pl->dfix = ds[0];
    pl->has_zero = ds[0] == 0.0;
    pl->dlo = pl->nd > 1 ? ds[pl->has_zero ? 1 : 0] : 1.0;
    pl->dhi = pl->dmax > pl->dlo ? pl->dmax : pl->dlo * 2.0;
    choose_shown(ps, pl->np, pl);
    free(ps);
    free(ds);
    return 0;
  }
  double ps[64];
  int np = default_ps(s->m, fn, ps), uses_d = 0;
  for (int i = 0; i < fm->nregimes; i++)
    for (int k = 0; k < fm->regime[i].nterms; k++)
      uses_d |= revprof_basis_uses_d(fm->regime[i].form[k]);
  pl->pmin = ps[0];
  pl->pmax = ps[np - 1];
  pl->by_p = !uses_d;
  pl->single = !uses_d && np == 1;
  pl->has_zero = 1;
  pl->dlo = 1.0;
  pl->dhi = 4194304.0; /* 4 MiB, or well past the last breakpoint */
  if (fm->nregimes > 1 && fm->regime[fm->nregimes - 1].dmin * 8.0 > pl->dhi)
    pl->dhi = fm->regime[fm->nregimes - 1].dmin * 8.0;
  choose_shown(ps, np, pl);
  return 0;
}

/* --------------------------------------------------------------- figures */

/* x position of message size d on the figure's log axis. */
static double xpos(const figplan *pl, double d) {
  return d > 0.0 ? d : pl->dlo / 2.0;
}

/* Factor that shifts the points of series b sideways on the log axis, so
 * that the bars of different group sizes at one d do not hide each other. */
static double dodge(const figplan *pl, int b) {
  return exp2(0.05 * (b - (pl->nshown - 1) / 2.0));
}

/* Writes y (µs) for a data file: NaN (a gap) when not positive, as a log
 * axis cannot show it. */
static void put_y(FILE *f, double us) {
  if (us > 0.0)
    fprintf(f, " %.6g", us);
  else
    fputs(" NaN", f);
}

/* Writes fig/<fn>.points.dat: per group size drawn (by p: one block) the
 * rows "x median min max" in µs, blocks separated by two blank lines. */
static int write_points(const sheet *s, revprof_fn fn, const figplan *pl,
                        const char *path) {
  char tmp[PATHLEN];
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, s->err, s->errlen);
  if (f == NULL)
    return REVPROF_EIO;
  fprintf(f, "# %s: measured %s, median min max (microseconds)\n",
          revprof_fn_name(fn), pl->by_p ? "p" : "d (bytes; 0 drawn at x = "
                                                "dlo/2)");
  int nblocks = pl->by_p ? 1 : pl->nshown;
  for (int b = 0; b < nblocks; b++) {
    if (!pl->by_p)
      fprintf(f, "%s# p = %g\n", b ? "\n\n" : "", pl->shown[b]);
    for (size_t i = 0; i < s->raw->n; i++) { /* one pass per block */
      const revprof_point *pt = &s->raw->pt[i];
      if (pt->fn != fn || (!pl->by_p && pt->p != pl->shown[b]))
        continue;
      double lo = pt->min > 0.0 ? pt->min : pt->median;
      fprintf(f, "%.17g",
              pl->by_p ? (double)pt->p : xpos(pl, pt->d) * dodge(pl, b));
      put_y(f, pt->median * US);
      put_y(f, lo * US);
      put_y(f, pt->max * US);
      fputc('\n', f);
    }
  }
  return rp_commit_file(f, tmp, path, 1, s->err, s->errlen);
}

/* Writes one fitted row "x avg min max" (µs) of fn at p, d. */
static void fit_row(FILE *f, const revprof_model *m, revprof_fn fn, double x,
                    double p, double d) {
  double t[3];
  revprof_model_eval(m, fn, p, d, t);
  fprintf(f, "%.17g", x);
  put_y(f, t[REVPROF_AVG] * US);
  put_y(f, t[REVPROF_MIN] * US);
  put_y(f, t[REVPROF_MAX] * US);
  fputc('\n', f);
}

/* Writes fig/<fn>.fit.dat: per group size drawn a block of the fitted
 * equation, dense in d (a blank line, i.e. a break in the curve, at each
 * regime limit), or one block dense in p when the x axis is p. */
static int write_fit(const sheet *s, revprof_fn fn, const figplan *pl,
                     const char *path) {
  char tmp[PATHLEN];
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, s->err, s->errlen);
  if (f == NULL)
    return REVPROF_EIO;
  fprintf(f, "# %s: fitted equation, avg min max (microseconds)\n",
          revprof_fn_name(fn));
  if (pl->by_p) {
    int steps = (int)ceil(log2(pl->pmax / pl->pmin) * FIT_STEPS);
    for (int i = 0; i <= steps; i++) {
      double p = steps ? pl->pmin * pow(pl->pmax / pl->pmin,
                                        (double)i / steps)
                       : pl->pmin;
      fit_row(f, s->m, fn, p, p, pl->dfix);
    }
    return rp_commit_file(f, tmp, path, 1, s->err, s->errlen);
  }
  const revprof_fnmodel *fm = &s->m->fn[fn];
  int steps = (int)ceil(log2(pl->dhi / pl->dlo) * FIT_STEPS);
  for (int b = 0; b < pl->nshown; b++) {
    double p = pl->shown[b];
    fprintf(f, "%s# p = %g\n", b ? "\n\n" : "", p);
    if (pl->has_zero)
      fit_row(f, s->m, fn, xpos(pl, 0.0), p, 0.0);
    int reg = 0, i = 0;
    double d = pl->dlo;
    while (i <= steps) {
      double grid = pl->dlo * pow(pl->dhi / pl->dlo, (double)i / steps);
      /* the regime limit comes first when it lies before the next grid
       * point: end the curve there and start the next regime's curve */
      while (reg < fm->nregimes - 1 && fm->regime[reg].dmax < grid) {
        if (fm->regime[reg].dmax >= d)
          fit_row(f, s->m, fn, fm->regime[reg].dmax, p, fm->regime[reg].dmax);
        fputc('\n', f);
        reg++;
        d = fm->regime[reg].dmin;
        if (d >= pl->dlo && d < grid)
          fit_row(f, s->m, fn, d, p, d);
      }
      fit_row(f, s->m, fn, grid, p, grid);
      d = grid;
      i++;
    }
  }
  return rp_commit_file(f, tmp, path, 1, s->err, s->errlen);
}

/* Short tic label for a size in bytes: "16", "4K", "64K", "1M". */
static void tic_label(char *buf, size_t len, double d) {
  if (d >= 1048576.0 && fmod(d, 1048576.0) == 0.0)
    snprintf(buf, len, "%gM", d / 1048576.0);
  else if (d >= 1024.0 && fmod(d, 1024.0) == 0.0)
    snprintf(buf, len, "%gK", d / 1024.0);
  else
    snprintf(buf, len, "%g", d);
}

/* Writes the gnuplot script fig/<fn>.gp; it renders <fn>.pdf and <fn>.png
 * (plus the suffix variable, which the datasheet sets to ".tmp"). */
static int write_script(const sheet *s, revprof_fn fn, const figplan *pl,
                        const char *path) {
  const char *name = revprof_fn_name(fn);
  const revprof_fnmodel *fm = &s->m->fn[fn];
  char tmp[PATHLEN], lab[32];
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, s->err, s->errlen);
  if (f == NULL)
    return REVPROF_EIO;
  fprintf(f,
          "# %s: measured medians (bars: min to max) and fitted equations.\n"
          "# Generated by revprof datasheet from the machine model; do not "
          "edit.\n# Render in this directory: gnuplot %s.gp\n"
          "if (!exists(\"suffix\")) suffix = \"\"\n"
          "set encoding utf8\n"
          "set terminal pdfcairo size 17cm,8.5cm font \"Sans,10\" "
          "noenhanced\n"
          "set output \"%s.pdf\".suffix\n"
          "set ylabel \"time (µs)\"\n"
          "set grid xtics ytics lt 1 lc rgb \"#e0e0e0\" lw 0.6\n"
          "set key outside right top vertical Left reverse samplen 2.5 "
          "spacing 1.2\n"
          "set errorbars small\n"
          "set logscale x 2\n",
          name, name, name);
  if (pl->by_p) {
    char dtxt[64];
    size_text(dtxt, sizeof dtxt, pl->dfix, " ");
    fprintf(f, "set xlabel \"group size p (ranks); message size %s\"\n",
            dtxt);
    fprintf(f, "set xrange [%g:%g]\nset yrange [0:*]\nset xtics (", 
            pl->pmin / 1.25, pl->pmax * 1.25);
    /* label p = 2^k, thinned to at most 10 */
    int n = 0, step = 1;
    while (log2(pl->pmax / pl->pmin) / step > 9)
      step *= 2;
    if (pl->pmax - pl->pmin <= 12.0) /* every group size */
      for (double p = ceil(pl->pmin); p <= pl->pmax; p++)
        fprintf(f, "%s\"%g\" %g", n++ ? ", " : "", p, p);
    else
      for (double p = exp2(ceil(log2(pl->pmin))); p <= pl->pmax;
           p *= exp2(step))
        fprintf(f, "%s\"%g\" %.17g", n++ ? ", " : "", p, p);
    fputs(")\n", f);
  } else {
    fputs("set logscale y 10\nset format y \"%g\"\n"
          "set xlabel \"message size d (bytes; K = 1024, M = 1024 K)\"\n",
          f);
    fprintf(f, "set xrange [%.6g:%.6g]\nset xtics (",
            pl->has_zero ? xpos(pl, 0.0) / 1.5 : pl->dlo / 1.5,
            pl->dhi * 1.5);
    int n = 0, step = 1;
    double lo2 = ceil(log2(pl->dlo)), hi2 = floor(log2(pl->dhi));
    while ((hi2 - lo2) / step > 8)
      step++;
    if (pl->has_zero) {
      fprintf(f, "\"0\" %g", xpos(pl, 0.0));
      n++;
    }
    for (double e = lo2; e <= hi2; e += step) {
      tic_label(lab, sizeof lab, exp2(e));
      fprintf(f, "%s\"%s\" %.17g", n++ ? ", " : "", lab, exp2(e));
    }
    fputs(")\n", f);
    for (int i = 0; i < fm->nregimes - 1; i++) { /* regime limits */
      double x = fm->regime[i].dmax + 0.5;
      if (x > pl->dlo && x < pl->dhi)
        fprintf(f, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 3 "
                   "lc rgb \"#888888\" lw 0.8\n",
                x, x);
    }
  }
  /* legend entries, then the data (all notitle) */
  int pts = pl->npoints > 0;
  fputs("plot \\\n", f);
  if (pl->by_p) {
    if (pts)
      fprintf(f, "  keyentry with yerrorbars lc rgb \"%s\" pt 7 ps 0.5 "
                 "title \"median, bar: min to max\", \\\n", colours[0]);
    fprintf(f, "  keyentry with lines lc rgb \"%s\" lw 1.5 title \"fitted "
               "equation\", \\\n"
               "  keyentry with lines lc rgb \"%s\" dt 2 title \"lower and "
               "upper bound\"", colours[0], colours[0]);
    if (pts)
      fprintf(f, ", \\\n  \"%s.points.dat\" using 1:2:3:4 with yerrorbars "
                 "lc rgb \"%s\" pt 7 ps 0.5 lw 0.7 notitle",
              name, colours[0]);
    fprintf(f, ", \\\n  \"%s.fit.dat\" using 1:2 with lines lc rgb \"%s\" "
               "lw 1.5 notitle, \\\n"
               "  \"\" using 1:3 with lines lc rgb \"%s\" dt 2 notitle, \\\n"
               "  \"\" using 1:4 with lines lc rgb \"%s\" dt 2 notitle\n",
            name, colours[0], colours[0], colours[0]);
  } else {
    for (int b = 0; b < pl->nshown; b++)
      fprintf(f, "  keyentry with %s lc rgb \"%s\" pt 7 ps 0.5 lw 1.5 "
                 "title \"p = %g\", \\\n",
              pts ? "linespoints" : "lines", colours[b], pl->shown[b]);
    if (pts)
      fputs("  keyentry with yerrorbars lc rgb \"#555555\" pt 7 ps 0.5 "
            "title \"median, bar: min to max\", \\\n", f);
    fprintf(f, "  keyentry with lines lc rgb \"#555555\" lw 1.5 title "
               "\"fitted equation\", \\\n"
               "  keyentry with lines lc rgb \"%s\" dt 2 title \"bounds, p "
               "= %g\"",
            colours[pl->nshown - 1], pl->shown[pl->nshown - 1]);
    for (int b = 0; b < pl->nshown; b++) {
      if (pts)
        fprintf(f, ", \\\n  \"%s.points.dat\" index %d using 1:2:3:4 with "
                   "yerrorbars lc rgb \"%s\" pt 7 ps 0.5 lw 0.7 notitle",
                name, b, colours[b]);
      fprintf(f, ", \\\n  \"%s.fit.dat\" index %d using 1:2 with lines lc "
                 "rgb \"%s\" lw 1.5 notitle",
              name, b, colours[b]);
    }
    int last = pl->nshown - 1;
    fprintf(f, ", \\\n  \"%s.fit.dat\" index %d using 1:3 with lines lc rgb "
               "\"%s\" dt 2 notitle, \\\n"
               "  \"\" index %d using 1:4 with lines lc rgb \"%s\" dt 2 "
               "notitle\n",
            name, last, colours[last], last, colours[last]);
  }
  fprintf(f, "set terminal pngcairo size 1100,550 font \"Sans,10\" "
             "noenhanced\nset output \"%s.png\".suffix\nreplot\n"
             "unset output\n",
          name);
  return rp_commit_file(f, tmp, path, 1, s->err, s->errlen);
}

/* cairo stamps the PDF with the time it was made; replaces those digits
 * (same length, so offsets stay valid) with a fixed date for reproducible
 * output: the model's date when it reads YYYY-MM-DD, else 1970-01-01. */
static int fix_pdf_date(const sheet *s, const char *path) {
  size_t len;
  char *buf = read_file(path, &len), date[15] = "19700101000000";
  const char *md = s->m->machine_date;
  int y, mo, d;
  if (buf == NULL) {
    rp_errf(s->err, s->errlen, "%s: cannot read: %s", path, strerror(errno));
    return REVPROF_EIO;
  }
  if (sscanf(md, "%4d-%2d-%2d", &y, &mo, &d) == 3 && y > 0 && y < 10000 &&
      mo >= 1 && mo <= 12 && d >= 1 && d <= 31)
    snprintf(date, sizeof date, "%04d%02d%02d000000", y, mo, d);
  static const char key[] = "/CreationDate (D:";
  for (char *p = buf; (p = memchr(p, '/', (size_t)(buf + len - p)));
       p++) {
    size_t left = (size_t)(buf + len - p);
    if (left >= sizeof key - 1 + 14 && memcmp(p, key, sizeof key - 1) == 0)
      memcpy(p + sizeof key - 1, date, 14);
  }
  FILE *f = fopen(path, "wb");
  int rc = 0;
  if (f == NULL || fwrite(buf, 1, len, f) != len)
    rc = REVPROF_EIO;
  if (f && fclose(f) != 0)
    rc = REVPROF_EIO;
  if (rc)
    rp_errf(s->err, s->errlen, "%s: cannot rewrite: %s", path,
            strerror(errno));
  free(buf);
  return rc;
}

/* buf = figdir/name ext; REVPROF_ERANGE when it does not fit. */
static int fig_file(const sheet *s, char *buf, size_t len, const char *name,
                    const char *ext) {
  int n = snprintf(buf, len, "%s/%s%s", s->figdir, name, ext);
  if (n < 0 || (size_t)n >= len) {
    rp_errf(s->err, s->errlen, "%s/%s%s: path too long", s->figdir, name,
            ext);
    return REVPROF_ERANGE;
  }
  return 0;
}

/* Runs gnuplot on fig/<fn>.gp; on success renames the .tmp outputs to
 * <fn>.pdf and <fn>.png and removes the log, else names the log. */
static int render(sheet *s, revprof_fn fn) {
  static const char *const ext[2] = {".pdf", ".png"};
  const char *name = revprof_fn_name(fn);
  char gp[PATHLEN], logpath[PATHLEN], tmp[2][PATHLEN], fin[2][PATHLEN];
  char gpname[64], logname[64];
  int rc;
  snprintf(gpname, sizeof gpname, "%s.gp", name);
  snprintf(logname, sizeof logname, "%s.log", name);
  if ((rc = fig_file(s, gp, sizeof gp, name, ".gp")) ||
      (rc = fig_file(s, logpath, sizeof logpath, name, ".log")) ||
      (rc = fig_file(s, tmp[0], sizeof tmp[0], name, ".pdf.tmp")) ||
      (rc = fig_file(s, tmp[1], sizeof tmp[1], name, ".png.tmp")) ||
      (rc = fig_file(s, fin[0], sizeof fin[0], name, ext[0])) ||
      (rc = fig_file(s, fin[1], sizeof fin[1], name, ext[1])))
    return rc;
  char *argv[] = {s->gnuplot, "-e", "suffix='.tmp'", gpname, NULL};
  int st = run_tool(argv, s->figdir, logname);
  for (int i = 0; st == 0 && i < 2; i++) {
    struct stat sb;
    if (stat(tmp[i], &sb) != 0 || sb.st_size == 0)
      st = -1; /* exit status 0 but no picture */
  }
  if (st != 0) {
    remove(tmp[0]);
    remove(tmp[1]);
    if (st == REVPROF_EIO || st == 126 || st == 127)
      rp_errf(s->err, s->errlen, "%s: cannot run gnuplot (%s)", gp,
              s->gnuplot);
    else if (st < 0)
      rp_errf(s->err, s->errlen, "%s: gnuplot wrote no figure; see %s", gp,
              logpath);
    else
      rp_errf(s->err, s->errlen,
              "%s: gnuplot failed (exit status %d); see %s", gp, st,
              logpath);
    return REVPROF_EIO;
  }
  if ((rc = fix_pdf_date(s, tmp[0])) != 0)
    return rc;
  for (int i = 0; i < 2; i++)
    if (rename(tmp[i], fin[i]) != 0) {
      rp_errf(s->err, s->errlen, "%s: cannot rename from %s: %s", fin[i],
              tmp[i], strerror(errno));
      remove(tmp[0]);
      remove(tmp[1]);
      return REVPROF_EIO;
    }
  remove(logpath);
  s->plan[fn].drawn = 1;
  return 0;
}

/* Writes the data files and script of every function's figure and runs
 * gnuplot on them when it is there. */
static int write_figures(sheet *s) {
  char path[PATHLEN], file[96];
  int rc;
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    revprof_fn fn = (revprof_fn)i;
    figplan *pl = &s->plan[i];
    if (!revprof_model_has(s->m, fn) || pl->single)
      continue;
    const char *name = revprof_fn_name(fn);
    if (pl->npoints > 0) {
      snprintf(file, sizeof file, "%s.points.dat", name);
      if ((rc = join(path, sizeof path, s->figdir, file, s->err,
                     s->errlen)) ||
          (rc = write_points(s, fn, pl, path)))
        return rc;
    }
    snprintf(file, sizeof file, "%s.fit.dat", name);
    if ((rc = join(path, sizeof path, s->figdir, file, s->err, s->errlen)) ||
        (rc = write_fit(s, fn, pl, path)))
      return rc;
    snprintf(file, sizeof file, "%s.gp", name);
    if ((rc = join(path, sizeof path, s->figdir, file, s->err, s->errlen)) ||
        (rc = write_script(s, fn, pl, path)))
      return rc;
    if (s->gnuplot[0] && (rc = render(s, fn)) != 0)
      return rc;
    if (s->o->verbose)
      fprintf(stderr, "datasheet: %s/%s%s\n", s->figdir, file,
              pl->drawn ? " (+ .pdf, .png)" : "");
  }
  return 0;
}

/* ------------------------------------------------------------------- CSV */

/* Writes a ';'-separated list of n coefficients (seconds) in µs, with 12
 * significant digits (the model file has them exactly). */
static void csv_list(FILE *f, const double *c, int n) {
  fputc('"', f);
  for (int k = 0; k < n; k++)
    fprintf(f, "%s%.12g", k ? ";" : "", c[k] * US);
  fputc('"', f);
}

/* Writes equations.csv: one row per function and regime (columns in the
 * header; the term lists hold one entry per term of form). */
static int write_csv(const sheet *s, const char *path) {
  char tmp[PATHLEN], b[40];
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, s->err, s->errlen);
  if (f == NULL)
    return REVPROF_EIO;
  fputs("function,regime,dmin,dmax,form,avg_us,err_us,min_us,max_us,n,"
        "cv_error,range_pmin,range_pmax,range_dmin,range_dmax\n", f);
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    const revprof_fnmodel *fm = &s->m->fn[i];
    for (int j = 0; j < fm->nregimes; j++) {
      const revprof_regime *r = &fm->regime[j];
      rp_fmt_double(b, sizeof b, r->dmin);
      fprintf(f, "%s,%d,%s,", revprof_fn_name((revprof_fn)i), j + 1, b);
      if (isfinite(r->dmax)) { /* empty: open-ended */
        rp_fmt_double(b, sizeof b, r->dmax);
        fputs(b, f);
      }
      fputs(",\"", f);
      for (int k = 0; k < r->nterms; k++)
        fprintf(f, "%s%s", k ? ";" : "", revprof_basis_name(r->form[k]));
      fputs("\",", f);
      csv_list(f, r->avg, r->nterms);
      fputc(',', f);
      csv_list(f, r->err, r->nterms);
      fputc(',', f);
      csv_list(f, r->min, r->nterms);
      fputc(',', f);
      csv_list(f, r->max, r->nterms);
      fprintf(f, ",%d,", r->n);
      if (r->cv_error >= 0.0) {
        rp_fmt_double(b, sizeof b, r->cv_error);
        fputs(b, f);
      }
      const double rv[4] = {fm->range.pmin, fm->range.pmax, fm->range.dmin,
                            fm->range.dmax};
      for (int k = 0; k < 4; k++) { /* empty: range unknown */
        fputc(',', f);
        if (fm->range.known) {
          rp_fmt_double(b, sizeof b, rv[k]);
          fputs(b, f);
        }
      }
      fputc('\n', f);
    }
  }
  return rp_commit_file(f, tmp, path, 1, s->err, s->errlen);
}

/* ----------------------------------------------------------------- LaTeX */

/* One sentence on what p and d mean for fn's kind, as LaTeX. */
static const char *kind_text(revprof_fn fn) {
  if (strncmp(revprof_fn_name(fn), "MPI_File_", 9) == 0)
    return "File I/O: a group of $p$ ranks shares one file, on the file "
           "system named under Machine.";
  switch (revprof_fn_kind_of(fn)) {
  case REVPROF_KIND_P2P:
    return "Point-to-point between two ranks ($p = 2$); $d$ is the message "
           "size.";
  case REVPROF_KIND_COLL:
    return "Collective over a group of $p$ ranks.";
  case REVPROF_KIND_LOCAL:
    return "Local call on one rank, no communication.";
  }
  return "";
}

/* One sentence more on the rows for overlapping messages (MPI_Wait, gap),
 * as LaTeX; "" for the others. */
static const char *row_text(revprof_fn fn) {
  switch (fn) {
  case REVPROF_FN_WAIT:
    return " The receiver's own cost for each message a wait completes "
           "that is already there. A model without this row uses "
           "\\texttt{MPI\\_Irecv}'s (a receive posted late).";
  case REVPROF_FN_GAP:
    return " The train's messages have $d$ bytes each; the time is how "
           "much later each further one completes, $(T_8 - T_1)/7$ on "
           "the receiver's clock (LogGP's gap): messages from one sender "
           "leave, and a receiver takes them, one gap apart. A model without "
           "this row does not queue messages.";
  case REVPROF_FN_GAP_ALL:
    return " As \\texttt{gap}, with every member of the group sending its "
           "train to the next at once (a ring), the slowest member's: the "
           "gap under load, where the members share a network's backbone "
           "or a memory bus. A model with this row lets a job's messages "
           "drain at the rate of all its ranks sending at once "
           "(\\texttt{REVPROF\\_CONTENTION}).";
  case REVPROF_FN_BCAST_ROOT:
    return " The time of the root (rank 0) alone, the members starting "
           "together: a root that sends eagerly returns before the data "
           "arrives. With this row a broadcast's root pays it instead of "
           "the whole call's time.";
  case REVPROF_FN_BCAST_LATE:
  case REVPROF_FN_REDUCE_LATE:
    return " The last member (rank $p-1$, the root being 0) calls when the "
           "others' data had time to reach it, and times its own call: a "
           "member of a broadcast whose data is there, or a non-root of a "
           "reduction that waits for no one, pays this instead of the "
           "whole call's time.";
  case REVPROF_FN_POST:
    return " Rank 1 posts 8 receives of $d$ bytes whose messages are not "
           "sent yet, timed per receive: what a rank's \\texttt{MPI\\_Irecv} "
           "costs it before its message comes. A model without this row "
           "charges posting a receive nothing.";
  default:
    return "";
  }
}

/* Writes the group sizes drawn, "$p = 2, 4$ and $8$", as LaTeX. */
static void tex_plist(FILE *f, const double *p, int n) {
  fputs("$p = ", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s%g", i == 0 ? "" : i == n - 1 ? "$ and $" : ", ", p[i]);
  fputs("$", f);
}

/* Document class, packages (all in Debian's texlive-latex-base and
 * -recommended), settings for a reproducible PDF, and the title block. */
static void tex_preamble(const sheet *s, FILE *f) {
  const revprof_model *m = s->m;
  fputs("% MPI performance datasheet written by 'revprof datasheet' from a "
        "machine model.\n% Generated file: edit the model, not this.\n"
        "\\documentclass[a4paper,10pt]{article}\n"
        "\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{textcomp}\n"
        "\\usepackage{array}\n"
        "\\usepackage[a4paper,margin=2cm]{geometry}\n"
        "\\usepackage{amsmath}\n"
        "\\usepackage{graphicx}\n"
        "\\usepackage{booktabs}\n"
        "\\usepackage{longtable}\n"
        "\\usepackage{caption}\n"
        "\\usepackage[hidelinks]{hyperref}\n"
        "% reproducible PDF: no dates, no random ID, no embedded file info\n"
        "\\ifdefined\\pdfinfoomitdate \\pdfinfoomitdate=1 \\fi\n"
        "\\ifdefined\\pdftrailerid \\pdftrailerid{} \\fi\n"
        "\\ifdefined\\pdfsuppressptexinfo \\pdfsuppressptexinfo=-1 \\fi\n"
        "\\newcommand{\\us}{\\ensuremath{\\mu}s}\n"
        "\\setlength{\\parindent}{0pt}\n"
        "\\setlength{\\parskip}{0.5em}\n"
        "\\captionsetup{font=small,labelfont=bf,hypcap=false}\n"
        "\\hypersetup{pdftitle={MPI datasheet: ",
        f);
  tex_text(f, m->machine_name[0] ? m->machine_name : "unnamed machine");
  fputs("}, pdfcreator={revprof datasheet}}\n\n"
        "\\begin{document}\n\\begin{center}\n"
        "{\\LARGE\\bfseries MPI performance datasheet}\\\\[1ex]\n{\\Large ",
        f);
  tex_text(f, m->machine_name[0] ? m->machine_name : "unnamed machine");
  fputs("}\\\\[0.5ex]\n{\\small ", f);
  if (m->machine_date[0]) {
    fputs("characterized ", f);
    tex_text(f, m->machine_date);
    fputs(", ", f);
  }
  fputs("written by \\texttt{revprof datasheet}}\n\\end{center}\n\n", f);
}

static void tex_row(FILE *f, const char *key, const char *value) {
  fprintf(f, "%s & ", key);
  tex_text(f, value[0] ? value : "not recorded");
  fputs(" \\\\\n", f);
}

/* The machine description table: what was measured, where and how. */
static void tex_machine(const sheet *s, FILE *f) {
  const revprof_model *m = s->m;
  int nfn = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    nfn += m->fn[i].nregimes > 0;
  fputs("\\section*{Machine}\n"
        "\\begin{tabular}{@{}>{\\bfseries}lp{12.5cm}@{}}\n\\toprule\n", f);
  tex_row(f, "Machine", m->machine_name);
  tex_row(f, "MPI library", m->machine_mpi);
  if (m->machine_filesystem[0]) /* models with file I/O rows */
    tex_row(f, "File system", m->machine_filesystem);
  tex_row(f, "Characterized", m->machine_date);
  if (m->machine_ranks > 0)
    fprintf(f, "Ranks & %d \\\\\n", m->machine_ranks);
  else
    fputs("Ranks & not recorded \\\\\n", f);
  fputs("Fitting method & ", f);
  tex_text(f, m->method);
  fputs(strcmp(m->method, "paper") == 0
            ? " (seed 003: 12 forms, least chi-squared)"
            : " (term search, leave-one-out cross-validation, breakpoints "
              "from the data)",
        f);
  fputs(" \\\\\n", f);
  tex_row(f, "Notes", m->machine_notes);
  fprintf(f, "Functions & %d \\\\\n", nfn);
  fputs("Raw data & ", f);
  if (s->raw) {
    size_t n = 0;
    for (size_t i = 0; i < s->raw->n; i++)
      n += revprof_model_has(m, s->raw->pt[i].fn);
    fprintf(f, "%zu measured points shown with the equations", n);
  } else
    fputs("not given: figures show the fitted equations only", f);
  fputs(" \\\\\n\\bottomrule\n\\end{tabular}\n\n", f);
}

/* "How to read this datasheet": units, regimes, errors, bounds, CV error,
 * figures and the columns of equations.csv. */
static void tex_howto(const sheet *s, FILE *f) {
  int paper = strcmp(s->m->method, "paper") == 0;
  fprintf(f,
    "\\section*{How to read this datasheet}\n"
    "\\begin{itemize}\n"
    "\\item Times are in microseconds (\\us). $p$ is the number of ranks in "
    "the group (the communicator size), $d$ the message size in bytes as "
    "the caller passes it (count $\\times$ type size); what $d$ means for "
    "each function is stated on its page.\n"
    "\\item Each function has one equation per message-size regime. The "
    "limits beside each equation are inclusive; the first regime also "
    "applies below its range and the last above it. Regime limits are where "
    "the MPI library changes its protocol or algorithm.\n"
    "\\item $(a \\pm e)$ is a fitted coefficient with its standard error. "
    "Coefficients of terms in $d$ are in \\us{} per byte.\n"
    "\\item $T_{\\min}$ and $T_{\\max}$ are the lower and upper bound "
    "equations of the model; the predictor uses them for its minimum and "
    "maximum clocks. %s\n"
    "\\item \\emph{Points} is the number of measured points an equation was "
    "fitted to. The \\emph{cross-validated error} is the typical relative "
    "error of the equation on points left out of its fit: it tells how far "
    "to trust a prediction. Regimes above %.0f\\,\\%% are marked "
    "\\textbf{low confidence}.\n"
    "\\item Figures show the median of each measured point with a bar from "
    "its minimum to its maximum over the repetitions, and the fitted "
    "equation as lines of the same colour, against $d$ on logarithmic "
    "axes; functions timed at one message size are drawn against $p$.\n"
    "\\item \\texttt{equations.csv} beside this document holds the same "
    "equations for programs and spreadsheets, one row per function and "
    "regime: \\texttt{function, regime} (1, 2, \\dots), \\texttt{dmin, dmax} "
    "(bytes; \\texttt{dmax} empty when open-ended), \\texttt{form} (terms, "
    "separated by semicolons), \\texttt{avg\\_us, err\\_us, min\\_us, "
    "max\\_us} (coefficients in \\us{} per term, separated by semicolons), "
    "\\texttt{n} (points), \\texttt{cv\\_error} (a fraction; empty when not "
    "computed).\n"
    "\\end{itemize}\n\n",
    paper ? "For this model (method \\emph{paper}, seed 003) they are the "
            "typical equation with every coefficient moved by one standard "
            "error: a rough guide, not a confidence interval."
          : "For method \\emph{default} they come from the spread of the "
            "measurements (fits to the per-point minima and maxima).",
    LOW_CONFIDENCE * 100.0);
}

/* Summary table: every function with its regimes, worst CV error and page. */
static void tex_summary(const sheet *s, FILE *f) {
  fputs("\\section*{Functions}\n"
        "\\begin{longtable}{@{}lrrrl@{}}\n\\toprule\n"
        "Function & Regimes & Points & Worst CV error & Page \\\\\n"
        "\\midrule\n\\endhead\n",
        f);
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    const revprof_fnmodel *fm = &s->m->fn[i];
    if (fm->nregimes == 0)
      continue;
    int n = 0;
    double worst = -1.0;
    for (int j = 0; j < fm->nregimes; j++) {
      n += fm->regime[j].n;
      worst = fmax(worst, fm->regime[j].cv_error);
    }
    fprintf(f, "\\hyperref[fn:%d]{", i);
    tex_text(f, revprof_fn_name((revprof_fn)i));
    fprintf(f, "} & %d & ", fm->nregimes);
    if (n > 0)
      fprintf(f, "%d & ", n);
    else
      fputs("n/a & ", f);
    if (worst >= 0.0)
      fprintf(f, "%.1f\\,\\%%%s", worst * 100.0,
              worst > LOW_CONFIDENCE ? " (low)" : "");
    else
      fputs("n/a", f);
    fprintf(f, " & \\pageref{fn:%d} \\\\\n", i);
  }
  fputs("\\bottomrule\n\\end{longtable}\n", f);
}

/* Writes what was measured: points, group sizes and message sizes. */
static void tex_measured(const figplan *pl, FILE *f) {
  char lo[64], hi[64];
  fprintf(f, "\\textbf{Measured:} %zu point%s", pl->npoints,
          pl->npoints == 1 ? "" : "s");
  if (pl->np > 1)
    fprintf(f, " at %d group sizes ($p = %g$ to $%g$)", pl->np, pl->pmin,
            pl->pmax);
  else
    fprintf(f, " at $p = %g$", pl->pmin);
  size_text(lo, sizeof lo, pl->dmin, "~");
  size_text(hi, sizeof hi, pl->dmax, "~");
  if (pl->nd > 1)
    fprintf(f, " and %d message sizes (%s to %s).\n\n", pl->nd, lo, hi);
  else
    fprintf(f, " with $d$ = %s.\n\n", lo);
}

/* The figure of fn with its caption, or a line saying why there is none. */
static void tex_figure(const sheet *s, revprof_fn fn, FILE *f) {
  const figplan *pl = &s->plan[fn];
  const char *name = revprof_fn_name(fn);
  if (pl->single) {
    fputs("\\emph{No figure: the function was measured at a single group "
          "and message size.}\n\n", f);
    return;
  }
  if (!pl->drawn) {
    fprintf(f, "\\emph{No figure: %s. The script \\texttt{fig/", s->nofig);
    tex_text(f, name);
    fputs(".gp} and its data render it: \\texttt{cd fig; gnuplot ", f);
    tex_text(f, name);
    fputs(".gp}.}\n\n", f);
    return;
  }
  fputs("\\begin{center}\n\\includegraphics[width=\\textwidth]{fig/", f);
  fputs(name, f); /* function names are letters, digits and '_' */
  fputs(".pdf}\n\\captionof{figure}{", f);
  tex_text(f, name);
  if (pl->by_p) {
    char dtxt[64];
    size_text(dtxt, sizeof dtxt, pl->dfix, "~");
    fprintf(f, " against group size $p$ (message size %s)", dtxt);
    fputs(pl->npoints ? ": measured medians (bars from minimum to maximum), "
                        "fitted equation (solid) and its lower and upper "
                        "bounds (dashed)."
                      : ": fitted equation (solid) and its lower and upper "
                        "bounds (dashed); no measurements were given.",
          f);
  } else {
    fputs(" against message size $d$ for ", f);
    tex_plist(f, pl->shown, pl->nshown);
    if (pl->np > pl->nshown)
      fprintf(f, " (%d of the %d group sizes measured)", pl->nshown, pl->np);
    fputs(pl->npoints ? ": measured medians (points, bars from minimum to "
                        "maximum) and the fitted equation (lines)."
                      : ": the fitted equation (lines); no measurements "
                        "were given.",
          f);
    fprintf(f, " Dashed: lower and upper bounds for $p = %g$.",
            pl->shown[pl->nshown - 1]);
    if (s->m->fn[fn].nregimes > 1)
      fputs(" Dotted vertical lines: regime limits.", f);
    if (pl->npoints && pl->nshown > 1)
      fputs(" Points of different $p$ are shifted slightly sideways so that "
            "their bars do not overlap.", f);
    if (pl->has_zero)
      fputs(" The logarithmic $d$ axis cannot show $d = 0$: zero-byte "
            "messages are drawn at the left edge, labelled 0.",
            f);
  }
  fputs("}\n\\end{center}\n\n", f);
}

/* One page per function: what was timed, the typical-time equation with
 * errors and regime limits, fit quality per regime, bounds, figure. */
static void tex_function(const sheet *s, revprof_fn fn, FILE *f) {
  const revprof_fnmodel *fm = &s->m->fn[fn];
  const figplan *pl = &s->plan[fn];
  int low = 0;
  double factor = 1.0;
  int top = revprof_fnmodel_top_of_range(fm, &factor);
  fputs("\\clearpage\n\\section{", f);
  tex_text(f, revprof_fn_name(fn));
  fprintf(f, "}\\label{fn:%d}\n\n\\textbf{Timed:} ", (int)fn);
  tex_text(f, revprof_fn_what(fn));
  fprintf(f, ". %s%s\n\n", kind_text(fn), row_text(fn));
  if (fm->range.known) {
    char lo[64], hi[64];
    size_text(lo, sizeof lo, fm->range.dmin, "~");
    size_text(hi, sizeof hi, fm->range.dmax, "~");
    fprintf(f, "\\textbf{Measured range:} $p$ from %.0f to %.0f, $d$ from %s "
               "to %s. Outside it the equations are \\textbf{extrapolated}: "
               "\\texttt{revprof model eval} and the run report say so, and "
               "how far.\n\n",
            fm->range.pmin, fm->range.pmax, lo, hi);
  } else
    fputs("\\textbf{Measured range: unknown} (the model does not record "
          "it): extrapolation cannot be detected.\n\n",
          f);
  if (pl->npoints)
    tex_measured(pl, f);
  fputs("\\textbf{Typical time} in \\us, coefficient $\\pm$ standard "
        "error:\n",
        f);
  tex_cases(f, fm, "T", REVPROF_AVG);
  fputs("\\begin{center}\n\\begin{tabular}{@{}clrrl@{}}\n\\toprule\n"
        "Regime & Message sizes & Points & CV error & \\\\\n\\midrule\n",
        f);
  for (int i = 0; i < fm->nregimes; i++) {
    const revprof_regime *r = &fm->regime[i];
    fprintf(f, "%d & ", i + 1);
    tex_range(f, fm, i);
    if (r->n > 0)
      fprintf(f, " & %d & ", r->n);
    else
      fputs(" & n/a & ", f);
    if (r->cv_error >= 0.0)
      fprintf(f, "%.1f\\,\\%%", r->cv_error * 100.0);
    else
      fputs("n/a", f);
    if (r->cv_error > LOW_CONFIDENCE) {
      fputs(" & \\textbf{low confidence}", f);
      low++;
    } else if (i == fm->nregimes - 1 && top)
      fputs(" & top of the range", f);
    else
      fputs(" & ", f);
    fputs(" \\\\\n", f);
  }
  fputs("\\bottomrule\n\\end{tabular}\n\\end{center}\n", f);
  if (low)
    fprintf(f, "\\textbf{Low confidence:} %s cross-validated error above "
               "%.0f\\,\\%%; predictions there may be far off.\n\n",
            low > 1 ? "these regimes have a" : "this regime has a",
            LOW_CONFIDENCE * 100.0);
  if (top)
    fprintf(f, "\\textbf{Top of the range:} the largest sizes measured "
               "(%d %s) lay off the equation below on one side, too few "
               "for a regime of their own: the last regime is that "
               "equation times %.3g, fitted to them, with nothing left "
               "over to cross-validate it.\n\n",
            fm->regime[fm->nregimes - 1].n,
            fm->regime[fm->nregimes - 1].n > 1 ? "points" : "point", factor);
  fputs("\\textbf{Bounds} in \\us:\n", f);
  tex_cases(f, fm, "T_{\\min}", REVPROF_MIN);
  tex_cases(f, fm, "T_{\\max}", REVPROF_MAX);
  tex_figure(s, fn, f);
}

static int write_tex(const sheet *s, const char *path) {
  char tmp[PATHLEN];
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, s->err, s->errlen);
  if (f == NULL)
    return REVPROF_EIO;
  tex_preamble(s, f);
  tex_machine(s, f);
  tex_howto(s, f);
  tex_summary(s, f);
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (revprof_model_has(s->m, (revprof_fn)i))
      tex_function(s, (revprof_fn)i, f);
  fputs("\\end{document}\n", f);
  return rp_commit_file(f, tmp, path, 1, s->err, s->errlen);
}

/* ------------------------------------------------------------------- PDF */

/* Copies the first TeX error ("! ...") of the log at path into buf. */
static void first_tex_error(const char *path, char *buf, size_t len) {
  size_t n;
  char *log = read_file(path, &n), *e;
  buf[0] = '\0';
  if (log == NULL)
    return;
  if ((e = strstr(log, "\n! ")) != NULL) {
    e += 3;
    size_t k = strcspn(e, "\n");
    snprintf(buf, len, ": %.*s", (int)(k < 200 ? k : 200), e);
  }
  free(log);
}

/* Runs pdflatex twice (page references) in dir with its auxiliary files in
 * dir/latex, then moves latex/datasheet.pdf to dir/datasheet.pdf. */
static int make_pdf(sheet *s, char *pdf_path, size_t pdf_len) {
  char log[PATHLEN], made[PATHLEN], pdf[PATHLEN], why[256];
  char *argv[] = {s->pdflatex, "-interaction=nonstopmode", "-halt-on-error",
                  "-output-directory=latex", "datasheet.tex", NULL};
  int rc;
  if ((rc = join(log, sizeof log, s->latexdir, "datasheet.log", s->err,
                 s->errlen)) ||
      (rc = join(made, sizeof made, s->latexdir, "datasheet.pdf", s->err,
                 s->errlen)) ||
      (rc = join(pdf, sizeof pdf, s->dir, "datasheet.pdf", s->err,
                 s->errlen)))
    return rc;
  remove(made);
  remove(log); /* a stale log would be blamed for a new failure */
  for (int run = 0; run < 2; run++) {
    int st = run_tool(argv, s->dir, "latex/pdflatex.out");
    if (st == 0)
      continue;
    remove(made);
    if (st == REVPROF_EIO || st == 126 || st == 127) {
      rp_errf(s->err, s->errlen,
              "%s/datasheet.tex: cannot run pdflatex (%s); see "
              "%s/pdflatex.out",
              s->dir, s->pdflatex, s->latexdir);
      return REVPROF_EIO;
    }
    first_tex_error(log, why, sizeof why);
    if (access(log, F_OK) == 0)
      rp_errf(s->err, s->errlen,
              "%s/datasheet.tex: pdflatex failed (exit status %d)%s; see %s",
              s->dir, st, why, log);
    else
      rp_errf(s->err, s->errlen,
              "%s/datasheet.tex: pdflatex failed (exit status %d); see "
              "%s/pdflatex.out",
              s->dir, st, s->latexdir);
    return REVPROF_EIO;
  }
  if (rename(made, pdf) != 0) {
    rp_errf(s->err, s->errlen, "%s: cannot rename from %s: %s", pdf, made,
            strerror(errno));
    return REVPROF_EIO;
  }
  snprintf(pdf_path, pdf_len, "%s", pdf);
  return 0;
}

/* ------------------------------------------------------------------ main */

void rp_datasheet_options_init(rp_datasheet_options *o) {
  memset(o, 0, sizeof *o);
  o->pdf = 1;
  o->figures = 1;
}

int rp_datasheet_write(const revprof_model *m, const revprof_raw *raw,
                       const char *dir, const rp_datasheet_options *o,
                       char *pdf_path, size_t pdf_len, char *err,
                       size_t errlen) {
  rp_datasheet_options defaults;
  char path[PATHLEN], pdf[PATHLEN];
  int made_dir = 0, made_fig = 0, rc;
  char dummy[1];
  if (pdf_path == NULL || pdf_len == 0) {
    pdf_path = dummy;
    pdf_len = sizeof dummy;
  }
  pdf_path[0] = '\0';
  if (m == NULL || dir == NULL || dir[0] == '\0') {
    rp_errf(err, errlen, "datasheet: %s", m ? "no output directory"
                                            : "no model");
    return REVPROF_EINVAL;
  }
  if (o == NULL) {
    rp_datasheet_options_init(&defaults);
    o = &defaults;
  }
  sheet *s = calloc(1, sizeof *s);
  if (s == NULL) {
    rp_errf(err, errlen, "datasheet: out of memory");
    return REVPROF_ENOMEM;
  }
  s->m = m;
  s->raw = raw && raw->n ? raw : NULL;
  s->o = o;
  s->dir = dir;
  s->err = err;
  s->errlen = errlen;
  if ((rc = join(s->figdir, sizeof s->figdir, dir, "fig", err, errlen)) ||
      (rc = join(s->latexdir, sizeof s->latexdir, dir, "latex", err,
                 errlen)) ||
      (rc = make_dirs(dir, &made_dir, err, errlen)) ||
      (rc = make_dirs(s->figdir, &made_fig, err, errlen)))
    goto fail;
  if (!o->figures)
    s->nofig = "figures were not requested";
  else if (!find_tool("REVPROF_GNUPLOT", RP_GNUPLOT, s->gnuplot,
                      sizeof s->gnuplot))
    s->nofig = "gnuplot was not found when this datasheet was written";
  if (o->pdf)
    find_tool("REVPROF_PDFLATEX", RP_PDFLATEX, s->pdflatex,
              sizeof s->pdflatex);
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    if (revprof_model_has(m, (revprof_fn)i) &&
        (rc = plan_function(s, (revprof_fn)i, &s->plan[i])) != 0)
      goto fail;
  /* a stale PDF would not match the new .tex */
  if ((rc = join(pdf, sizeof pdf, dir, "datasheet.pdf", err, errlen)))
    goto fail;
  remove(pdf);
  if ((rc = write_figures(s)) ||
      (rc = join(path, sizeof path, dir, "equations.csv", err, errlen)) ||
      (rc = write_csv(s, path)))
    goto fail;
  if (o->verbose)
    fprintf(stderr, "datasheet: %s\n", path);
  if ((rc = join(path, sizeof path, dir, "datasheet.tex", err, errlen)) ||
      (rc = write_tex(s, path)))
    goto fail;
  if (o->verbose)
    fprintf(stderr, "datasheet: %s\n", path);
  if (s->pdflatex[0]) {
    if (rp_mkdir_p(s->latexdir) != 0) {
      rp_errf(err, errlen, "%s: cannot create directory: %s", s->latexdir,
              strerror(errno));
      rc = REVPROF_EIO;
      goto fail;
    }
    if ((rc = make_pdf(s, pdf_path, pdf_len)))
      goto fail;
    if (o->verbose)
      fprintf(stderr, "datasheet: %s\n", pdf_path);
  }
  free(s);
  return 0;
fail:
  if (made_fig)
    rmdir(s->figdir); /* only when still empty */
  if (made_dir)
    rmdir(dir);
  free(s);
  return rc;
}
