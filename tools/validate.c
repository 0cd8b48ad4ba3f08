/* revprof validate: the one-way message latencies a sampled run measured
 * (librevprof's sample mode, DIR/latency.csv) beside what a machine model
 * predicts for them, size class by size class, and the send calls' own
 * time (DIR/calls.csv) beside the model rows they are costed by: does the
 * characterization still describe the machine the program ran on? */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_int.h" /* rp_perror, rp_open_tmp, rp_commit_file */
#include "revprof_model.h"
#include "rp_latency.h"
#include "rp_tools.h"

#define WHO "revprof validate"
#define P2P_RANKS 2.0 /* group size p of the point-to-point rows */

static void usage(FILE *f) {
  fprintf(f,
          "usage: revprof validate --model MODEL.lua [--csv FILE] "
          "[--calls-csv FILE] DIR\n"
          "       revprof validate --model MODEL.lua [--csv FILE] "
          "[--calls-csv FILE] DIR/latency.csv\n"
          "\n"
          "Compares the one-way message latencies a run measured in "
          "librevprof's sample\n"
          "mode (DIR/latency.csv) with the transit latency MODEL predicts "
          "(its 'latency'\n"
          "row at p = 2), per message-size class over all ranks, call sites "
          "and pairs:\n"
          "the measured median (from the latency histogram; the mean where "
          "the run kept\n"
          "none; exact, from DIR/samples.rank<N>.csv, where the run wrote "
          "its samples:\n"
          "their latency_corrected_s, corrected for the clocks' drift), "
          "the predicted\n"
          "avg [min, max] at the class's mean size, the error "
          "(median / avg - 1) and\n"
          "whether the median lies inside [min, max]; "
          "then a\n"
          "summary: median |error| and how many classes lie inside. The "
          "first lines say\n"
          "when the model has no latency row or a class lies outside the "
          "sizes it was\n"
          "measured on (extrapolated).\n"
          "\n"
          "Then, from DIR/calls.csv (the sender's time in each send call "
          "that stamped a\n"
          "sampled message), a table per call against the model row predict "
          "mode costs\n"
          "it by (MPI_Ssend as MPI_Send, MPI_Issend as MPI_Isend, ...), with "
          "its summary\n"
          "line 'validate [CALL]: ...'; a missing or unreadable calls.csv "
          "is said in one\n"
          "line and changes nothing above.\n"
          "\n"
          "  --model MODEL.lua  the machine model (or REVPROF_MODEL)\n"
          "  --csv FILE         also write the per-class table as CSV\n"
          "  --calls-csv FILE   ... and the calls' tables (columns call, "
          "costed_as first)\n"
          "\n"
          "Exit status: 0 when it ran, whatever the errors; 2 on bad usage "
          "or an input\n"
          "it cannot read (the message names the file and line); 1 when the "
          "CSV cannot\n"
          "be written.\n");
}

/* One size class of the run beside the model. */
typedef struct verdict {
  int k;           /* size class */
  double bytes;    /* bytes: the class's count-weighted mean size */
  double count;    /* messages sampled */
  double measured; /* seconds: the histogram's median, else the mean */
  int from_hist;   /* 1 when measured is the histogram's median, 2 the
                      written samples' (exact_medians), 0 the mean */
  double t[3];     /* seconds: predicted min, avg, max (REVPROF_MIN...) */
  int where;       /* revprof_model_eval_x's answer (REVPROF_INSIDE,
                      _OUTSIDE, _RANGE_UNKNOWN), REVPROF_ENOFUNC: no row */
  double far[2];   /* how far outside the measured range in p and d */
  double error;    /* measured / predicted avg - 1; NAN when unknown */
  int inside;      /* predicted min <= measured <= predicted max */
} verdict;

/* x's error and inside from its measured value and prediction */
static void compare(verdict *x) {
  x->error = x->where >= 0 && x->t[REVPROF_AVG] > 0
                 ? x->measured / x->t[REVPROF_AVG] - 1
                 : NAN;
  x->inside = x->where >= 0 && x->t[REVPROF_MIN] <= x->measured &&
              x->measured <= x->t[REVPROF_MAX];
}

/* Each class of cls that holds messages, judged against row (of m; none
 * when REVPROF_FN_COUNT) into v. Returns the number of classes judged. */
static int judge(const revprof_model *m, revprof_fn row,
                 const rp_latency_class cls[RP_LATENCY_CLASSES],
                 verdict v[RP_LATENCY_CLASSES]) {
  int n = 0;
  for (int k = 0; k < RP_LATENCY_CLASSES; k++) {
    const rp_latency_class *c = &cls[k];
    if (!(c->count > 0))
      continue;
    verdict *x = &v[n++];
    memset(x, 0, sizeof *x);
    x->k = k;
    x->bytes = rp_latency_class_bytes_mean(c, k);
    x->count = c->count;
    x->from_hist =
        rp_latency_hist_median(c->hist, c->min, c->max, &x->measured) == 0;
    if (!x->from_hist) /* sampled without a histogram */
      x->measured = c->mean_sum / c->count;
    x->where = row == REVPROF_FN_COUNT
                   ? REVPROF_ENOFUNC
                   : revprof_model_eval_x(m, row, P2P_RANKS, x->bytes, x->t,
                                          x->far);
    compare(x);
  }
  return n;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of |error| over the classes that have one; NAN when none. */
static double median_abs_error(const verdict v[], int n) {
  double e[RP_LATENCY_CLASSES];
  int m = 0;
  for (int i = 0; i < n; i++)
    if (!isnan(v[i].error))
      e[m++] = fabs(v[i].error);
  if (m == 0)
    return NAN;
  qsort(e, (size_t)m, sizeof *e, by_value);
  return m % 2 ? e[m / 2] : 0.5 * (e[m / 2 - 1] + e[m / 2]);
}

/* "8..15", or "0" for class 0, into buf. */
static const char *bytes_range(int k, char *buf, size_t len) {
  double lo, hi;
  rp_latency_class_bytes(k, &lo, &hi);
  if (k == 0)
    snprintf(buf, len, "0");
  else
    snprintf(buf, len, "%.0f..%.0f", lo, hi);
  return buf;
}

#define MAX_WRITTEN (1L << 26) /* samples read at most (512 MiB) */

/* The written samples (REVPROF_ANALYSIS=write: dir/samples.rank<N>.csv,
 * their latency_corrected_s, corrected for the clocks' drift one by one,
 * the histograms only bucket by bucket; latency_s in files written before
 * that column),
 * each class's exact median in place of the histogram's where the files
 * hold as many samples of the class as latency.csv counts; said in a note
 * (and where they disagree). Nothing when there are no such files. */
static void exact_medians(const char *dir, verdict v[], int n) {
  char pat[PATH_MAX + 32];
  glob_t g;
  snprintf(pat, sizeof pat, "%s/samples.rank*.csv", dir);
  if (glob(pat, 0, NULL, &g) != 0)
    return; /* none (or unreadable): the histograms stand */
  double *val[RP_LATENCY_CLASSES] = {0};
  size_t cnt[RP_LATENCY_CLASSES] = {0}, cap[RP_LATENCY_CLASSES] = {0};
  long total = 0, bad = 0, old = 0;
  int fail = 0;
  char line[1024], why[PATH_MAX + 64] = "";
  for (size_t f = 0; f < g.gl_pathc && !fail; f++) {
    FILE *in = fopen(g.gl_pathv[f], "r");
    if (in == NULL) {
      snprintf(why, sizeof why, "%s: %s", g.gl_pathv[f], strerror(errno));
      fail = 1;
      break;
    }
    while (fgets(line, sizeof line, in)) {
      double bytes, lat, cor;
      if (strncmp(line, "src,", 4) == 0)
        continue;
      int got = sscanf(line, "%*d,%*d,%*[^,],%*[^,],%lf,%*f,%lf,%lf", &bytes,
                       &lat, &cor);
      if (got < 2 || !isfinite(lat)) {
        bad++;
        continue;
      }
      old += got == 2;
      int k = rp_latency_class_of(bytes);
      if (cnt[k] == cap[k]) {
        size_t nc = cap[k] ? 2 * cap[k] : 1024;
        double *nv = total < MAX_WRITTEN ? realloc(val[k], nc * sizeof *nv)
                                         : NULL;
        if (nv == NULL) {
          snprintf(why, sizeof why, "more than %ld samples, or out of "
                   "memory", total);
          fail = 1;
          break;
        }
        val[k] = nv;
        cap[k] = nc;
      }
      val[k][cnt[k]++] = got == 3 && isfinite(cor) ? cor : lat;
      total++;
    }
    fclose(in);
  }
  if (fail)
    printf("note: the written samples (%s) were not read: %s; the medians "
           "are the histograms'\n", pat, why);
  else {
    int used = 0, off = 0;
    for (int i = 0; i < n; i++) {
      int k = v[i].k;
      if ((double)cnt[k] != v[i].count) {
        printf("%s %d (%zu of %.0f)", off++ ? "," : "note: the written "
               "samples do not hold latency.csv's count in class", k, cnt[k],
               v[i].count);
        continue;
      }
      qsort(val[k], cnt[k], sizeof *val[k], by_value);
      size_t h = cnt[k] / 2;
      v[i].measured =
          cnt[k] % 2 ? val[k][h] : 0.5 * (val[k][h - 1] + val[k][h]);
      v[i].from_hist = 2;
      compare(&v[i]);
      used++;
    }
    if (off)
      printf(": their medians are the histograms' (or means)\n");
    printf("note: medians of %d of %d classes from the %ld written samples "
           "(%zu files %s): exact, %s\n", used, n, total, g.gl_pathc, pat,
           old ? "as measured (files without latency_corrected_s)"
               : "corrected for the clocks' drift (latency_corrected_s)");
    if (bad)
      printf("note: %ld lines of the written samples not read (not as "
             "revprof writes them)\n", bad);
  }
  for (int k = 0; k < RP_LATENCY_CLASSES; k++)
    free(val[k]);
  globfree(&g);
}

/* The sampled run's own flags (latency.csv's "# flag: " lines: a clock
 * drift whose correction the histograms lack, samples lost), each said as
 * a note before the table. */
static void run_flags(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return;
  char line[1024];
  static const char tag[] = "# flag: ";
  while (fgets(line, sizeof line, f) && line[0] == '#') {
    if (strncmp(line, tag, sizeof tag - 1) != 0)
      continue;
    line[strcspn(line, "\n")] = '\0';
    printf("note: the sampled run is flagged: %s\n", line + sizeof tag - 1);
  }
  fclose(f);
}

/* The lines above the table that say what the comparison lacks: no row,
 * no range, extrapolated classes, classes without a histogram or without
 * messages. */
static void notes(const char *model, const revprof_model *m, revprof_fn row,
                  const char *rname,
                  const rp_latency_class cls[RP_LATENCY_CLASSES],
                  const verdict v[], int n) {
  char rb[128];
  int out = 0, nohist = 0, empty = 0;
  if (row == REVPROF_FN_COUNT)
    printf("note: %s has no %s row: measured %s only, nothing to "
           "compare\n", model, rname,
           strcmp(rname, "latency") == 0 ? "latencies" : "times");
  for (int i = 0; i < n; i++) {
    out += v[i].where == REVPROF_OUTSIDE;
    nohist += !v[i].from_hist;
  }
  if (n > 0 && v[0].where == REVPROF_RANGE_UNKNOWN)
    printf("note: %s records no measured range for %s: whether a "
           "class is extrapolated cannot be told\n", model, rname);
  if (out > 0) {
    revprof_range_format(&m->fn[row].range, rb, sizeof rb);
    printf("note: %d of %d classes extrapolated beyond the sizes the model "
           "was measured on (%s):", out, n, rb);
    for (int i = 0; i < n; i++)
      if (v[i].where == REVPROF_OUTSIDE)
        printf(" class %d (%.4g bytes, %.3gx outside in d)", v[i].k,
               v[i].bytes, v[i].far[1]);
    printf("\n");
  }
  if (nohist > 0) {
    printf("note: no %s histogram in class",
           strcmp(rname, "latency") == 0 ? "latency" : "time");
    for (int i = 0; i < n; i++)
      if (!v[i].from_hist)
        printf(" %d", v[i].k);
    printf(" (sampled without the freq analysis): the mean stands for the "
           "median (marked *)\n");
  }
  for (int k = 0; k < RP_LATENCY_CLASSES; k++)
    empty += cls[k].rows > 0 && !(cls[k].count > 0);
  if (empty > 0) {
    printf("note: rows without a sampled message in class");
    for (int k = 0; k < RP_LATENCY_CLASSES; k++)
      if (cls[k].rows > 0 && !(cls[k].count > 0))
        printf(" %d", k);
    printf(": left out\n");
  }
}

/* The table, in microseconds, and the summary line. */
static void table(const verdict v[], int n, const char *label) {
  char rb[64];
  int inside = 0;
  printf("%5s  %-22s %10s %10s %10s  %-30s %9s  %s\n", "class", "bytes",
         "mean B", "count", "median us", "predicted us avg [min, max]",
         "error", "inside");
  for (int i = 0; i < n; i++) {
    const verdict *x = &v[i];
    printf("%5d  %-22s %10.7g %10.0f %10.4g%s  ", x->k,
           bytes_range(x->k, rb, sizeof rb), x->bytes, x->count,
           x->measured * 1e6, x->from_hist ? " " : "*");
    if (x->where < 0)
      printf("%-30s %9s  %s\n", "-", "-", "-");
    else {
      char pred[96], err[32];
      snprintf(pred, sizeof pred, "%.4g [%.4g, %.4g]",
               x->t[REVPROF_AVG] * 1e6, x->t[REVPROF_MIN] * 1e6,
               x->t[REVPROF_MAX] * 1e6);
      if (isnan(x->error))
        snprintf(err, sizeof err, "-");
      else /* no "-0.0 %" */
        snprintf(err, sizeof err, "%+.1f %%",
                 fabs(x->error) < 5e-4 ? 0.0 : 100 * x->error);
      printf("%-30s %9s  %s%s\n", pred, err, x->inside ? "yes" : "no",
             x->where == REVPROF_OUTSIDE ? "  (extrapolated)" : "");
    }
    inside += x->inside;
  }
  double mae = median_abs_error(v, n);
  if (isnan(mae))
    printf("validate%s: %d classes, median |error| n/a, %d of %d inside the "
           "model's bounds\n", label, n, inside, n);
  else
    printf("validate%s: %d classes, median |error| %.1f %%, %d of %d inside "
           "the model's bounds\n", label, n, 100 * mae, inside, n);
}

/* The per-class table's columns as CSV (calls.csv's tables after call and
 * costed_as columns). */
static void csv_header(FILE *f, int calls) {
  fprintf(f, "%ssize_class,bytes_lo,bytes_hi,bytes_mean,count,measured_s,"
             "measured_from,predicted_min_s,predicted_avg_s,"
             "predicted_max_s,error_pct,inside,extrapolated\n",
          calls ? "call,costed_as," : "");
}

/* Its rows (seconds, error in %), each after prefix ("" or "CALL,ROW,"). */
static void csv_rows(FILE *f, const char *prefix, const verdict v[], int n) {
  for (int i = 0; i < n; i++) {
    const verdict *x = &v[i];
    double lo, hi;
    rp_latency_class_bytes(x->k, &lo, &hi);
    fprintf(f, "%s%d,%.0f,%.0f,%.9g,%.0f,%.9g,%s,", prefix, x->k, lo, hi,
            x->bytes, x->count, x->measured,
            x->from_hist == 2 ? "samples"
            : x->from_hist    ? "median"
                              : "mean");
    if (x->where < 0) {
      fprintf(f, ",,,,,\n");
      continue;
    }
    fprintf(f, "%.9g,%.9g,%.9g,", x->t[REVPROF_MIN], x->t[REVPROF_AVG],
            x->t[REVPROF_MAX]);
    if (!isnan(x->error))
      fprintf(f, "%.6g", 100 * x->error);
    fprintf(f, ",%s,%s\n", x->inside ? "yes" : "no",
            x->where == REVPROF_OUTSIDE         ? "yes"
            : x->where == REVPROF_RANGE_UNKNOWN ? "unknown"
                                                : "no");
  }
}

/* The per-class table as CSV, written to path.tmp and renamed. 0 or
 * REVPROF_EIO with a message in err. */
static int write_csv(const char *path, const verdict v[], int n, char *err,
                     size_t errlen) {
  char tmp[PATH_MAX + 8];
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, err, errlen);
  if (f == NULL)
    return REVPROF_EIO;
  csv_header(f, 0);
  csv_rows(f, "", v, n);
  return rp_commit_file(f, tmp, path, 1, err, errlen);
}

/* calls.csv beside the latencies at path (DIR/latency.csv): each send
 * call's own time against the model row predict mode charges it by, a
 * table per call after a blank line (and in csv unless NULL); one line
 * when there is none. Returns 0, or 1 when csv cannot be written. */
static int calls(const char *model, const revprof_model *m, const char *path,
                 const char *csv) {
  char cpath[PATH_MAX], err[PATH_MAX + 512], tmp[PATH_MAX + 8];
  const char *slash = strrchr(path, '/');
  if (slash)
    snprintf(cpath, sizeof cpath, "%.*s/calls.csv", (int)(slash - path), path);
  else
    snprintf(cpath, sizeof cpath, "calls.csv");
  printf("\n");
  FILE *f = fopen(cpath, "r");
  if (f == NULL) {
    printf("calls: %s: %s: send calls not compared (sample mode writes it "
           "with REVPROF_ANALYSIS stat or freq; earlier versions did not)\n",
           cpath, strerror(errno));
    return 0;
  }
  rp_call_set *set = malloc(sizeof *set);
  long nrows = 0;
  int rc = set ? rp_calls_read(f, cpath, set, &nrows, err, sizeof err)
               : REVPROF_ENOMEM;
  fclose(f);
  if (rc != 0) {
    if (set == NULL)
      snprintf(err, sizeof err, "%s: out of memory", cpath);
    printf("calls: %s\n", err); /* the latencies stand */
    free(set);
    return 0;
  }
  FILE *out = csv ? rp_open_tmp(csv, tmp, sizeof tmp, err, sizeof err) : NULL;
  if (out)
    csv_header(out, 1);
  printf("calls: %s: %ld rows; the sender's time in each send call that "
         "stamped a sampled message, against the model row it is costed "
         "by\n", cpath, nrows);
  for (int i = 0; i < set->n; i++) {
    const rp_call_costs *c = &set->c[i];
    revprof_fn fn = revprof_fn_lookup(c->costed_as);
    revprof_fn row =
        fn != REVPROF_FN_COUNT && revprof_model_has(m, fn) ? fn
                                                           : REVPROF_FN_COUNT;
    verdict v[RP_LATENCY_CLASSES];
    char label[128];
    int n = judge(m, row, c->cls, v);
    printf("\n%s (costed as %s at p = %g)\n", c->call, c->costed_as,
           P2P_RANKS);
    notes(model, m, row, c->costed_as, c->cls, v, n);
    snprintf(label, sizeof label, " [%s]", c->call);
    table(v, n, label);
    if (out) {
      snprintf(label, sizeof label, "%s,%s,", c->call, c->costed_as);
      csv_rows(out, label, v, n);
    }
  }
  free(set);
  if (csv && (out == NULL ||
              rp_commit_file(out, tmp, csv, 1, err, sizeof err) != 0)) {
    rp_perror(WHO, REVPROF_EIO, err);
    return 1;
  }
  return 0;
}

int rp_cmd_validate(int argc, char **argv) {
  const char *model = NULL, *csv = NULL, *calls_csv = NULL, *dir = NULL;
  char err[1024], path[PATH_MAX];
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
      model = argv[++i];
    else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
      csv = argv[++i];
    else if (strcmp(argv[i], "--calls-csv") == 0 && i + 1 < argc)
      calls_csv = argv[++i];
    else if (argv[i][0] == '-' || dir) {
      fprintf(stderr, WHO ": unexpected '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    } else
      dir = argv[i];
  }
  if (model == NULL)
    model = getenv("REVPROF_MODEL");
  if (dir == NULL || model == NULL || *model == '\0') {
    if (dir && (model == NULL || *model == '\0'))
      fprintf(stderr, WHO ": no machine model: give --model FILE.lua or "
                      "set REVPROF_MODEL\n");
    usage(stderr);
    return 2;
  }
  struct stat st;
  if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
    snprintf(path, sizeof path, "%s/latency.csv", dir);
  else
    snprintf(path, sizeof path, "%s", dir);

  rp_latency_class cls[RP_LATENCY_CLASSES];
  long nrows = 0;
  int rc;
  memset(cls, 0, sizeof cls);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, WHO ": %s: cannot open: %s\n", path, strerror(errno));
    return 2;
  }
  rc = rp_latency_read(f, path, cls, &nrows, err, sizeof err);
  fclose(f);
  revprof_model *m = NULL;
  if (rc == 0)
    rc = revprof_model_load(model, &m, err, sizeof err);
  if (rc != 0) {
    rp_perror(WHO, rc, err);
    return 2;
  }

  revprof_fn row = revprof_model_has(m, REVPROF_FN_LATENCY)
                       ? REVPROF_FN_LATENCY
                       : REVPROF_FN_COUNT; /* latency has no fallback */
  verdict v[RP_LATENCY_CLASSES];
  int n = judge(m, row, cls, v), status = 0;
  double msgs = 0;
  for (int i = 0; i < n; i++)
    msgs += v[i].count;
  printf("validate: %s: %ld rows, %.0f messages sampled; model %s (%s), "
         "latency at p = %g\n", path, nrows, msgs, model, m->machine_name,
         P2P_RANKS);
  run_flags(path);
  char wdir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (slash)
    snprintf(wdir, sizeof wdir, "%.*s", (int)(slash - path), path);
  else
    snprintf(wdir, sizeof wdir, ".");
  exact_medians(wdir, v, n);
  notes(model, m, row, "latency", cls, v, n);
  table(v, n, "");
  status = calls(model, m, path, calls_csv);
  if (csv && (rc = write_csv(csv, v, n, err, sizeof err)) != 0) {
    rp_perror(WHO, rc, err);
    status = 1;
  }
  revprof_model_free(m);
  return status;
}
