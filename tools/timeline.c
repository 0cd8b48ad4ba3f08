/* revprof timeline: a timing diagram in simulated time from a run's trace
 * streams (one row per rank, a coloured box per state, arrows for
 * messages), drawn by gnuplot, in the spirit of seed 003's HASE diagrams. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_int.h" /* rp_perror */
#include "rp_tools.h"
#include "rp_trace_int.h"
#include "rp_util.h"

static const char *const colours[RP_TRACE_CLASS_COUNT] = {
    "#4daf4a", /* compute: green */
    "#377eb8", /* send: blue */
    "#984ea3", /* receive: purple */
    "#ff7f00", /* wait/test: orange */
    "#e41a1c", /* collective: red */
    "#777777", /* other MPI: grey */
    "#d9d9d9", /* waiting: light grey */
    "#e6ab02", /* user region (revprof_region's computation): gold */
};

typedef struct box {
  double t0, t1;  /* seconds */
  int rank;
  int cls;        /* rp_trace_class */
  int lo, hi;     /* the part of the row's height it fills, in LEVELS_ */
  char label[40]; /* name shown inside a wide box; "" none */
} box;

#define LEVELS_ 12 /* height steps of a row in the per-pixel view */

typedef struct arrow {
  double ts, tr; /* send and receive time, seconds */
  int src, dst;
} arrow;

typedef struct opts {
  const char *trace, *out, *title;
  double from, to;    /* window, seconds; NAN = the whole run */
  int width, height;  /* pixels; 0 = automatic height */
  int messages;       /* draw message arrows */
  long max_messages;  /* arrows drawn at most (evenly thinned beyond) */
  long max_boxes;     /* boxes per rank before the per-pixel view */
} opts;

typedef rp_vec vec;

static void *push(vec *v) { /* out of memory ends the command */
  void *e = rp_vec_push(v);
  if (!e) {
    fprintf(stderr, "revprof timeline: out of memory\n");
    exit(1);
  }
  return e;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: revprof timeline TRACE [-o PICTURE] [--from S] [--to S]\n"
          "                        [--size WxH] [--title TEXT] "
          "[--no-messages]\n"
          "                        [--max-messages N]\n"
          "\n"
          "Draws the timing diagram of a revprof run in simulated time: one "
          "row per rank,\n"
          "a box per state coloured by kind (compute, MPI send, receive, "
          "wait/test,\n"
          "collective, other MPI, waiting, user region) and an arrow per "
          "message from\n"
          "its send to its arrival.\n"
          "\n"
          "TRACE is the run's output directory (REVPROF_OUTPUT_DIR) holding "
          "the per-rank\n"
          "streams p<rank>.trace, or one of those files. PICTURE ends in "
          ".png (default\n"
          "timeline.png), .svg or .pdf; the gnuplot script is kept next to "
          "it (.gp) to\n"
          "edit and re-run. --from/--to zoom to a window in seconds of "
          "simulated time.\n"
          "Boxes narrower than a pixel are drawn one pixel wide. A rank "
          "with more boxes\n"
          "than half the plot's pixel columns is drawn per column instead: "
          "a stack with\n"
          "a part per kind, as high as the share of the column's time it "
          "takes. At most\n"
          "--max-messages arrows (default 1500) are drawn, evenly "
          "thinned.\n");
}

static int parse_num(const char *s, double *out) {
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return end != s && *end == '\0' && errno == 0 && isfinite(*out);
}

/* ------------------------------------------------------------- reading */

/* TRACE as a directory: the directory itself, or the file's directory. */
static void trace_dir(const char *trace, char *dir, size_t len) {
  struct stat st;
  if (stat(trace, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(dir, len, "%s", trace);
    return;
  }
  const char *slash = strrchr(trace, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else
    snprintf(dir, len, "%.*s", (int)(slash - trace) ? (int)(slash - trace)
                                                     : 1, trace);
}

static int cmp_box(const void *a, const void *b) {
  const box *x = a, *y = b;
  return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Reads one rank: its boxes and the messages it received. Returns 0, 1
 * when the stream is missing, or the reader's negative REVPROF_E* code on
 * a read error (reported). */
static int read_rank(const char *dir, int rank, vec *states, vec *arrows,
                     int *partial, double *tmax) {
  char err[1024];
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  int rc = rp_trace_open_rank(dir, rank, &r, err, sizeof err);
  if (rc == 1) {
    fprintf(stderr, "revprof timeline: warning: %s: its row is empty\n", err);
    *partial = 1;
    return 1;
  }
  while (rc == 0 && (rc = rp_trace_reader_next(r, &ev, err, sizeof err)) == 1) {
    rc = 0;
    if (ev.kind == 'S') {
      int c = (int)rp_trace_classify(ev.name);
      box *b = push(states);
      b->t0 = ev.t0;
      b->t1 = ev.t1 > ev.t0 ? ev.t1 : ev.t0;
      b->rank = rank;
      b->cls = c;
      b->lo = 0;
      b->hi = LEVELS_;
      snprintf(b->label, sizeof b->label, "%.39s", ev.name);
      *tmax = b->t1 > *tmax ? b->t1 : *tmax;
    } else if (arrows) {
      arrow *a = push(arrows);
      *a = (arrow){ev.t0, ev.t1, ev.src, rank};
      *tmax = ev.t1 > *tmax ? ev.t1 : *tmax;
    }
  }
  if (rc == 0 && rp_trace_reader_end(r) != RP_TRACE_END_COMPLETE)
    *partial = 1;
  rp_trace_reader_close(r);
  if (rc != 0)
    return rp_perror("revprof timeline", rc, err);
  return 0;
}

static int mpi_class(int c) {
  return c != RP_TRACE_CLASS_COMPUTE && c != RP_TRACE_CLASS_REGION &&
         c != RP_TRACE_CLASS_IDLE;
}

/* Clips boxes to [from, to], sorts them and merges neighbours of one class
 * closer than half a pixel (px seconds wide) when both are narrow, or when
 * they are computation of the same name (a run of compute steps is one
 * compute phase; MPI calls stay apart). */
static void simplify(vec *v, size_t first, double from, double to,
                     double px) {
  box *b = (box *)v->p + first;
  size_t n = v->n - first, k = 0;
  qsort(b, n, sizeof *b, cmp_box);
  for (size_t i = 0; i < n; i++) {
    box x = b[i];
    if (x.t1 < from || x.t0 > to)
      continue;
    x.t0 = x.t0 < from ? from : x.t0;
    x.t1 = x.t1 > to ? to : x.t1;
    box *prev = k ? &b[k - 1] : NULL;
    if (prev && prev->cls == x.cls && x.t0 - prev->t1 <= 0.5 * px &&
        ((x.t1 - x.t0 < 2 * px && prev->t1 - prev->t0 < 2 * px) ||
         (strcmp(prev->label, x.label) == 0 && !mpi_class(x.cls)))) {
      if (x.t1 > b[k - 1].t1)
        b[k - 1].t1 = x.t1;
      if (strcmp(b[k - 1].label, x.label) != 0)
        b[k - 1].label[0] = '\0'; /* several calls: no single name */
      continue;
    }
    b[k++] = x;
  }
  v->n = first + k;
}

/* Classes in drawing order: later ones on top (a region's computation
 * under the MPI calls it may surround). */
static const rp_trace_class draw_order[RP_TRACE_CLASS_COUNT] = {
    RP_TRACE_CLASS_REGION, RP_TRACE_CLASS_COMPUTE, RP_TRACE_CLASS_IDLE,
    RP_TRACE_CLASS_MPI,    RP_TRACE_CLASS_SEND,    RP_TRACE_CLASS_RECV,
    RP_TRACE_CLASS_WAIT,   RP_TRACE_CLASS_COLL};

/* Replaces a rank's boxes by a per-pixel-column view: each column is a
 * stack, one part per class in proportion to the time it takes in that
 * column (at least a step when it takes 2 %), and runs of equal columns
 * are merged. Shows what a column holds when boxes are thinner than a
 * pixel. */
static void rasterize(vec *v, size_t first, double from, double to,
                      int width) {
  size_t n = v->n - first;
  double *fill = calloc((size_t)width * RP_TRACE_CLASS_COUNT, sizeof *fill);
  double px = (to - from) / width;
  box *b = (box *)v->p + first;
  if (!fill) {
    fprintf(stderr, "revprof timeline: out of memory\n");
    exit(1);
  }
  int rank = n ? b[0].rank : 0;
  for (size_t i = 0; i < n; i++) {
    double t0 = (b[i].t0 - from) / px, t1 = (b[i].t1 - from) / px;
    for (int c = (int)floor(t0); c <= (int)floor(t1) && c < width; c++) {
      if (c < 0)
        continue;
      double lo = t0 > c ? t0 : c, hi = t1 < c + 1 ? t1 : c + 1;
      if (hi > lo)
        fill[(size_t)c * RP_TRACE_CLASS_COUNT + (size_t)b[i].cls] += hi - lo;
    }
  }
  v->n = first;
  size_t open[RP_TRACE_CLASS_COUNT]; /* box extended by the next column */
  for (int k = 0; k < RP_TRACE_CLASS_COUNT; k++)
    open[k] = SIZE_MAX;
  for (int c = 0; c < width; c++) {
    double *f = &fill[(size_t)c * RP_TRACE_CLASS_COUNT], t0 = from + c * px;
    int q[RP_TRACE_CLASS_COUNT], sum = 0, big = 0;
    for (int k = 0; k < RP_TRACE_CLASS_COUNT; k++) {
      q[k] = (int)lround(f[k] * LEVELS_);
      if (q[k] == 0 && f[k] > 0.02)
        q[k] = 1;
      sum += q[k];
      big = q[k] > q[big] ? k : big;
    }
    if (sum > LEVELS_) /* overlapping states: trim the largest part */
      q[big] -= sum - LEVELS_ < q[big] ? sum - LEVELS_ : q[big] - 1;
    int at = 0;
    for (int j = 0; j < RP_TRACE_CLASS_COUNT; j++) {
      int k = (int)draw_order[j];
      if (q[k] <= 0 || at >= LEVELS_) {
        open[k] = SIZE_MAX;
        continue;
      }
      int lo = at, hi = at + q[k] > LEVELS_ ? LEVELS_ : at + q[k];
      at = hi;
      box *o = open[k] != SIZE_MAX ? (box *)v->p + open[k] : NULL;
      if (o && o->lo == lo && o->hi == hi) {
        o->t1 = t0 + px;
        continue;
      }
      open[k] = v->n;
      box *x = push(v);
      *x = (box){t0, t0 + px, rank, k, lo, hi, ""};
    }
  }
  free(fill);
}

/* ------------------------------------------------------------- drawing */

static void unit_of(double span, const char **name, double *scale) {
  if (span >= 1.0) {
    *name = "s";
    *scale = 1.0;
  } else if (span >= 1e-3) {
    *name = "ms";
    *scale = 1e3;
  } else {
    *name = "µs";
    *scale = 1e6;
  }
}

/* Quotes s for a gnuplot double-quoted string. */
static void gp_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
  }
  fputc('"', f);
}

static const char *ext_of(const char *path) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* Writes the gnuplot script of the picture to f: 0, or REVPROF_EIO when a
 * write failed (the caller names the file). */
static int write_script(FILE *f, const opts *o, int size, int partial,
                        const vec *states, const vec *arrows,
                        size_t nshown) {
  const char *uname, *ext = ext_of(o->out);
  double scale, span = o->to - o->from, px = span / (o->width - 160);
  unit_of(span, &uname, &scale);
  int height = o->height ? o->height : 150 + 46 * (size < 2 ? 2 : size);
  if (!o->height && height > 4000)
    height = 4000;
  if (strcmp(ext, "svg") == 0)
    fprintf(f, "set terminal svg size %d,%d font 'Sans,11' noenhanced "
               "background rgb 'white'\n", o->width, height);
  else if (strcmp(ext, "pdf") == 0)
    fprintf(f, "set terminal pdfcairo size %.2f,%.2f font 'Sans,9' "
               "noenhanced\n", o->width / 96.0, height / 96.0);
  else
    fprintf(f, "set terminal pngcairo size %d,%d font 'Sans,10' noenhanced "
               "background rgb 'white'\n", o->width, height);
  fputs("set output ", f);
  gp_string(f, o->out);
  fputs("\nset title ", f);
  char title[512];
  snprintf(title, sizeof title, "%s%s%d rank%s, simulated time%s",
           o->title ? o->title : "", o->title ? " — " : "revprof timeline: ",
           size, size == 1 ? "" : "s",
           partial ? " — PARTIAL (run did not finish)" : "");
  gp_string(f, title);
  fprintf(f, "%s\n", partial ? " textcolor rgb '#c00000'" : "");
  fprintf(f, "set xlabel 'simulated time (%s)'\n", uname);
  fprintf(f, "set xrange [%.9g:%.9g]\n", o->from * scale, o->to * scale);
  fprintf(f, "set yrange [%g:%g]\n", size - 0.5, -0.6); /* rank 0 on top */
  int step = size <= 32 ? 1 : (size + 31) / 32;
  fputs("set ytics (", f);
  for (int r = 0; r < size; r += step)
    fprintf(f, "%s\"rank %d\" %d", r ? ", " : "", r, r);
  fputs(") nomirror\nset xtics nomirror out\nset mxtics\n"
        "set grid xtics mxtics lc rgb '#e8e8e8' lw 1\n"
        "set border 3 lc rgb '#555555'\n"
        "set bmargin 5.5\nset key horizontal center bottom at screen 0.5, screen 0.0 reverse Left samplen 1.2 width 1\n"
        "set style fill solid 1.0 noborder\n"
        "set lmargin 10\nset rmargin 4\n",
        f);
  /* labels: MPI calls wide enough to hold their name */
  int nlabels = 0;
  const box *sb = states->p;
  for (size_t i = 0; i < states->n && nlabels < 300; i++) {
    double w_px = (sb[i].t1 - sb[i].t0) / px;
    if (!sb[i].label[0] || sb[i].cls == RP_TRACE_CLASS_COMPUTE ||
        w_px < 7.0 * (double)strlen(sb[i].label) + 8)
      continue;
    fprintf(f, "set label %d ", ++nlabels);
    gp_string(f, sb[i].label);
    fprintf(f, " at %.9g,%d center front font ',8' textcolor rgb 'white'\n",
            0.5 * (sb[i].t0 + sb[i].t1) * scale, sb[i].rank);
  }
  /* data: x y xlow xhigh ylow yhigh, a block per class */
  int present[RP_TRACE_CLASS_COUNT] = {0};
  for (int c = 0; c < RP_TRACE_CLASS_COUNT; c++) {
    const box *b = sb;
    fprintf(f, "$c%d << EOD\n", c);
    for (size_t i = 0; i < states->n; i++) {
      if (b[i].cls != c)
        continue;
      double t0 = b[i].t0, t1 = b[i].t1;
      if (t1 - t0 < px) /* at least a pixel wide */
        t1 = t0 + px;
      if (t1 - t0 > 4 * px && b[i].hi - b[i].lo == LEVELS_)
        t1 -= 0.8 * px; /* a white gap shows where the next call begins */
      else
        t1 += 0.3 * px; /* no antialiasing seams between neighbours */
      double y0 = b[i].rank - 0.3 + 0.6 * b[i].lo / LEVELS_;
      double y1 = b[i].rank - 0.3 + 0.6 * b[i].hi / LEVELS_;
      fprintf(f, "%.9g %g %.9g %.9g %g %g\n", 0.5 * (t0 + t1) * scale,
              0.5 * (y0 + y1), t0 * scale, t1 * scale, y0, y1);
      present[c] = 1;
    }
    fputs("EOD\n", f);
  }
  const arrow *a = arrows->p;
  fputs("$msg << EOD\n", f);
  size_t inside = 0, seen = 0; /* drawable messages touching the window */
  for (size_t i = 0; o->messages && i < arrows->n; i++)
    inside += a[i].src != a[i].dst && a[i].src < size &&
              a[i].ts <= o->to && a[i].tr >= o->from;
  size_t stride = inside > nshown && nshown ? (inside + nshown - 1) / nshown
                                            : 1;
  int any_msg = 0;
  for (size_t i = 0; inside && i < arrows->n; i++) {
    if (a[i].src == a[i].dst || a[i].src >= size || a[i].ts > o->to ||
        a[i].tr < o->from || seen++ % stride != 0)
      continue;
    double dir = a[i].dst > a[i].src ? 1 : -1;
    double y0 = a[i].src + 0.3 * dir, y1 = a[i].dst - 0.3 * dir;
    fprintf(f, "%.9g %g %.9g %g\n", a[i].ts * scale, y0,
            (a[i].tr - a[i].ts) * scale, y1 - y0);
    any_msg = 1;
  }
  fputs("EOD\nplot ", f);
  int first = 1;
  for (int k = 0; k < RP_TRACE_CLASS_COUNT; k++) {
    int c = (int)draw_order[k];
    if (!present[c])
      continue;
    fprintf(f, "%s$c%d using 1:2:3:4:5:6 with boxxyerror lc rgb '%s' "
               "title '%s'",
            first ? "" : ", \\\n     ", c, colours[c],
            rp_trace_class_label((rp_trace_class)c));
    first = 0;
  }
  if (any_msg) {
    char t[64];
    snprintf(t, sizeof t, stride > 1 ? "message (1 in %zu)" : "message",
             stride);
    if (stride > 1) /* dense: light lines, no heads */
      fprintf(f, "%s$msg using 1:2:3:4 with vectors nohead lc rgb "
                 "'#a0202020' lw 0.6 title '%s'",
              first ? "" : ", \\\n     ", t);
    else
      fprintf(f, "%s$msg using 1:2:3:4 with vectors head filled size "
                 "screen 0.006,20 lc rgb '#202020' lw 0.8 title '%s'",
              first ? "" : ", \\\n     ", t);
    first = 0;
  }
  if (first) /* nothing in the window: an empty frame */
    fputs("NaN notitle", f);
  fputc('\n', f);
  return ferror(f) ? REVPROF_EIO : 0;
}

int rp_cmd_timeline(int argc, char **argv) {
  opts o = {.out = "timeline.png", .from = NAN, .to = NAN, .width = 1400,
            .messages = 1, .max_messages = 1500};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 && more)
      o.out = argv[++i];
    else if (strcmp(a, "--from") == 0 && more) {
      if (!parse_num(argv[++i], &o.from) || o.from < 0) {
        fprintf(stderr, "revprof timeline: --from needs seconds >= 0\n");
        return 2;
      }
    } else if (strcmp(a, "--to") == 0 && more) {
      if (!parse_num(argv[++i], &o.to) || o.to <= 0) {
        fprintf(stderr, "revprof timeline: --to needs seconds > 0\n");
        return 2;
      }
    } else if (strcmp(a, "--size") == 0 && more) {
      char x;
      if (sscanf(argv[++i], "%d%c%d", &o.width, &x, &o.height) != 3 ||
          x != 'x' || o.width < 300 || o.height < 150 || o.width > 20000 ||
          o.height > 20000) {
        fprintf(stderr, "revprof timeline: --size needs WxH in pixels, "
                        "e.g. 1600x600 (at least 300x150)\n");
        return 2;
      }
    } else if (strcmp(a, "--title") == 0 && more)
      o.title = argv[++i];
    else if (strcmp(a, "--no-messages") == 0)
      o.messages = 0;
    else if (strcmp(a, "--max-messages") == 0 && more) {
      double n;
      if (!parse_num(argv[++i], &n) || n < 0 || n != floor(n)) {
        fprintf(stderr, "revprof timeline: --max-messages needs a count\n");
        return 2;
      }
      o.max_messages = (long)n;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "revprof timeline: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!o.trace)
      o.trace = a;
    else {
      usage(stderr);
      return 2;
    }
  }
  if (!o.trace) {
    usage(stderr);
    return 2;
  }
  const char *ext = ext_of(o.out);
  if (strcmp(ext, "png") && strcmp(ext, "svg") && strcmp(ext, "pdf")) {
    fprintf(stderr, "revprof timeline: %s: the picture must end in .png, "
                    ".svg or .pdf\n", o.out);
    return 2;
  }
  char dir[4096], err[1024], gnuplot[4096];
  struct stat tst;
  if (stat(o.trace, &tst) != 0) {
    fprintf(stderr, "revprof timeline: %s: %s\n", o.trace, strerror(errno));
    return 1;
  }
  trace_dir(o.trace, dir, sizeof dir);
  int size = rp_trace_dir_size(dir, err, sizeof err), partial = 0;
  if (size < 0) {
    fprintf(stderr, "revprof timeline: %s (run with REVPROF_TRACE=chrome, "
                    "otf2 or text)\n", err);
    return 1;
  }
  if (rp_find_program("REVPROF_GNUPLOT", "gnuplot", gnuplot,
                      sizeof gnuplot) != 0) {
    fprintf(stderr, "revprof timeline: gnuplot not found (install it, or "
                    "set REVPROF_GNUPLOT)\n");
    return 1;
  }

  /* read every rank: boxes and arrows; then fit them to the window */
  vec states = {.elt = sizeof(box)}, arrows = {.elt = sizeof(arrow)};
  size_t *first = calloc((size_t)size + 1, sizeof *first);
  double tmax = 0;
  if (!first) {
    fprintf(stderr, "revprof timeline: out of memory\n");
    return 1;
  }
  for (int rank = 0; rank < size; rank++) {
    first[rank] = states.n;
    if (read_rank(dir, rank, &states, &arrows, &partial, &tmax) < 0)
      return 1;
  }
  first[size] = states.n;
  if (isnan(o.from))
    o.from = 0;
  if (isnan(o.to))
    o.to = tmax > o.from ? tmax : o.from + 1e-6;
  if (o.to <= o.from) {
    fprintf(stderr, "revprof timeline: empty window: --from %g >= --to %g "
                    "(the run ends at %g s)\n", o.from, o.to, tmax);
    return 2;
  }
  double px = (o.to - o.from) / (o.width - 160);
  o.max_boxes = (o.width - 160) / 2; /* more: boxes thinner than 2 px */
  /* per rank: copy, clip to the window, merge, rasterize when too many */
  vec shown = {.elt = sizeof(box)};
  for (int rank = 0; rank < size; rank++) {
    size_t at = shown.n;
    for (size_t i = first[rank]; i < first[rank + 1]; i++)
      *(box *)push(&shown) = ((box *)states.p)[i];
    simplify(&shown, at, o.from, o.to, px);
    if ((long)(shown.n - at) > o.max_boxes)
      rasterize(&shown, at, o.from, o.to, o.width - 160);
  }
  free(states.p);
  free(first);

  char script[4200];
  snprintf(script, sizeof script, "%.*s.gp",
           (int)(strlen(o.out) - strlen(ext) - 1), o.out);
  FILE *f = fopen(script, "w");
  if (!f) {
    fprintf(stderr, "revprof timeline: %s: %s\n", script, strerror(errno));
    return 1;
  }
  int rc = write_script(f, &o, size, partial, &shown, &arrows,
                        (size_t)o.max_messages);
  if (fclose(f) != 0 || rc != 0) {
    fprintf(stderr, "revprof timeline: %s: write error\n", script);
    return 1;
  }
  free(shown.p);
  free(arrows.p);
  remove(o.out);
  char *gargv[] = {gnuplot, script, NULL};
  int st = rp_spawn(gargv, NULL, 0, NULL);
  struct stat sb;
  if (st != 0 || stat(o.out, &sb) != 0 || sb.st_size == 0) {
    fprintf(stderr, "revprof timeline: gnuplot failed on %s (status %d)\n",
            script, st);
    return 1;
  }
  printf("timeline: %s (%d ranks%s; script %s)\n", o.out, size,
         partial ? ", PARTIAL" : "", script);
  return 0;
}
