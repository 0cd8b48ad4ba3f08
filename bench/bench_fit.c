/* Fitting benchmark: held-out accuracy of the paper and default methods on
 * a raw CSV, the time each takes to fit it, and a synthetic raw CSV
 * generator for development. Prints figures; asserts nothing. */
#include "revprof_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ utilities */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static void rng_seed(unsigned long long s) {
  rng_state = s ? s * 0x9e3779b97f4a7c15ULL : 0x9e3779b97f4a7c15ULL;
}

static double urand(void) { /* xorshift64*, uniform in [0, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ULL) >> 11) /
         9007199254740992.0;
}

static double nrand(void) { /* standard normal, Box-Muller */
  double u = urand(), v = urand();
  return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median (interpolated) and 90th percentile (nearest rank) of v[0..n),
 * which is sorted in place. */
static void quantiles(double *v, size_t n, double *med, double *p90) {
  if (n == 0) {
    *med = *p90 = NAN;
    return;
  }
  qsort(v, n, sizeof *v, cmp_double);
  *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  size_t r = (size_t)ceil(0.9 * (double)n);
  *p90 = v[r > 0 ? r - 1 : 0];
}

/* ------------------------------------------------- synthetic machine */

/* Times of an imaginary 16-rank cluster (seconds): latency alpha, link
 * bandwidth 1/beta degrading past 512 KiB (caches), reduction cost gamma,
 * eager limit 64 KiB, and algorithm switches as in common MPI libraries.
 * Deliberately not built from the fitter's basis (ceil(log2 p), smooth
 * bandwidth loss) so that no method can be exact. */
static double truth(revprof_fn fn, double p, double d) {
  const double alpha = 1.6e-6, beta0 = 1.0 / 6e9, gamma = 1.0 / 4e9;
  const double copy = 1.0 / 10e9, eager = 65536.0;
  double beta = beta0 * (1.0 + 0.35 * d / (d + 524288.0));
  double lg = ceil(log2(p)), pw2 = exp2(floor(log2(p))) == p;
  double t;
  switch (fn) {
  case REVPROF_FN_SEND:
    return d <= eager ? 0.45e-6 + d * copy : 3.0e-6 + d * beta;
  case REVPROF_FN_RECV:
    return d <= eager ? 0.30e-6 + d * copy : 2.6e-6 + d * beta;
  case REVPROF_FN_LATENCY:
    return d <= eager ? 1.25e-6 + d * beta : 4.5e-6 + d * beta;
  case REVPROF_FN_ISEND:
    return d <= eager ? 0.25e-6 + d * copy : 0.55e-6;
  case REVPROF_FN_IRECV:
    return d <= eager ? 0.40e-6 + d * copy : 2.9e-6 + d * beta;
  case REVPROF_FN_SENDRECV:
    return d <= eager ? 1.6e-6 + d * (beta + copy) : 5.0e-6 + d * beta;
  case REVPROF_FN_WAIT:
    return d <= eager ? 0.08e-6 : 0.2e-6 + d * copy;
  case REVPROF_FN_GAP:
    return d <= eager ? 0.15e-6 + d * copy : d * beta;
  case REVPROF_FN_POST:
    return 0.05e-6;
  case REVPROF_FN_GAP_ALL: /* a backbone of 8 links: shared beyond 8 */
    return d <= eager ? 0.15e-6 + d * copy
                      : d * beta * (p > 8.0 ? p / 8.0 : 1.0);
  case REVPROF_FN_BARRIER:
    return 0.4e-6 + lg * 1.1e-6;
  case REVPROF_FN_IBARRIER:
    return 0.9e-6 + lg * 1.2e-6;
  case REVPROF_FN_BCAST:
  case REVPROF_FN_IBCAST:
    t = d < 12288.0 ? lg * (alpha + d * beta)
                    : (lg + p - 1.0) * alpha + 2.0 * (p - 1.0) / p * d * beta;
    return fn == REVPROF_FN_IBCAST ? 1.1 * t + 0.8e-6 : t;
  case REVPROF_FN_BCAST_ROOT: /* eager: its sends; else the transfer */
    return d < 12288.0 ? lg * (0.2e-6 + d * copy)
                       : (lg + p - 1.0) * alpha + 2.0 * (p - 1.0) / p * d * beta;
  case REVPROF_FN_BCAST_LATE: /* takes the data, forwards nothing */
    return d < 12288.0 ? 0.1e-6 + d * copy : alpha + d * beta;
  case REVPROF_FN_REDUCE_LATE: /* combines nothing: one send */
    return d < 8192.0 ? 0.2e-6 + d * copy : alpha + d * beta;
  case REVPROF_FN_REDUCE:
    return d < 8192.0 ? lg * (alpha + d * (beta + gamma))
                      : 2.0 * lg * alpha +
                            (p - 1.0) / p * d * (2.0 * beta + gamma);
  case REVPROF_FN_ALLREDUCE:
  case REVPROF_FN_IALLREDUCE:
    t = d < 8192.0 ? lg * (alpha + d * (beta + gamma)) +
                         (pw2 ? 0.0 : 2.0 * (alpha + d * beta))
                   : 2.0 * lg * alpha +
                         (p - 1.0) / p * d * (2.0 * beta + gamma);
    return fn == REVPROF_FN_IALLREDUCE ? 1.1 * t + 0.8e-6 : t;
  case REVPROF_FN_GATHER:
  case REVPROF_FN_GATHERV:
  case REVPROF_FN_SCATTER:
  case REVPROF_FN_SCATTERV:
    t = lg * alpha + (p - 1.0) * d * beta;
    return fn == REVPROF_FN_GATHERV || fn == REVPROF_FN_SCATTERV
               ? t + 0.3e-6 * p / 4.0
               : t;
  case REVPROF_FN_ALLGATHER:
  case REVPROF_FN_ALLGATHERV:
    t = d * p < 81920.0 ? lg * alpha + (p - 1.0) * d * beta
                        : (p - 1.0) * (alpha + d * beta);
    return fn == REVPROF_FN_ALLGATHERV ? t + 0.3e-6 : t;
  case REVPROF_FN_ALLTOALL:
  case REVPROF_FN_ALLTOALLV:
  case REVPROF_FN_IALLTOALL:
    t = d < 256.0 ? lg * alpha + lg * (p / 2.0) * d * beta
                  : (p - 1.0) * (alpha + d * beta);
    if (fn == REVPROF_FN_ALLTOALLV)
      t += 0.2e-6 * p;
    return fn == REVPROF_FN_IALLTOALL ? 1.1 * t + 0.8e-6 : t;
  case REVPROF_FN_REDUCE_SCATTER:
  case REVPROF_FN_REDUCE_SCATTER_BLOCK:
    t = d * p < 16384.0 ? lg * alpha + (p - 1.0) * d * (beta + gamma)
                        : (p - 1.0) * (alpha + d * (beta + gamma));
    return fn == REVPROF_FN_REDUCE_SCATTER ? t + 0.4e-6 : t;
  case REVPROF_FN_SCAN:
  case REVPROF_FN_EXSCAN:
    return lg * (alpha + d * (beta + gamma)) +
           (fn == REVPROF_FN_EXSCAN ? 0.2e-6 : 0.0);
  case REVPROF_FN_WTIME:
    return 25e-9;
  case REVPROF_FN_PUT:
  case REVPROF_FN_GET:
  case REVPROF_FN_ACCUMULATE:
  case REVPROF_FN_WIN_LOCK:
  case REVPROF_FN_WIN_FENCE:
  case REVPROF_FN_NEIGHBOR_ALLGATHER:
  case REVPROF_FN_NEIGHBOR_ALLTOALL:
  case REVPROF_FN_FILE_OPEN:
  case REVPROF_FN_FILE_CLOSE:
  case REVPROF_FN_FILE_WRITE_AT:
  case REVPROF_FN_FILE_READ_AT:
  case REVPROF_FN_FILE_WRITE_AT_ALL:
  case REVPROF_FN_FILE_READ_AT_ALL:
  case REVPROF_FN_FILE_SYNC:
  case REVPROF_FN_FILE_SET_SIZE:
  case REVPROF_FN_FILE_PREALLOCATE:
  case REVPROF_FN_FILE_SET_VIEW:
  case REVPROF_FN_FILE_DELETE:
  case REVPROF_FN_COUNT:
    break; /* not simulated: main skips the one-sided rows */
  }
  return 0.0;
}

/* One measured point: reps samples of truth x (1 + system noise), where a
 * point's conditions shift it by 2 % (normal) and each repetition adds
 * |N(0, 2 %)| plus a 2 % chance of a 20-100 % outlier. */
static void measure(revprof_point *q, double t) {
  long reps = q->d <= 65536.0 ? 100 : q->d <= 1048576.0 ? 30 : 10;
  double s[100], sum = 0.0, sum2 = 0.0;
  double shift = 1.0 + 0.02 * nrand();
  if (shift < 0.9)
    shift = 0.9;
  for (long r = 0; r < reps; r++) {
    double x = t * shift * (1.0 + fabs(0.02 * nrand()));
    if (urand() < 0.02)
      x *= 1.2 + 0.8 * urand();
    s[r] = x;
    sum += x;
    sum2 += x * x;
  }
  qsort(s, (size_t)reps, sizeof *s, cmp_double);
  q->reps = reps;
  q->min = s[0];
  q->max = s[reps - 1];
  q->median = reps % 2 ? s[reps / 2] : 0.5 * (s[reps / 2 - 1] + s[reps / 2]);
  q->mean = sum / (double)reps;
  double var = (sum2 - sum * sum / (double)reps) / (double)(reps - 1);
  q->rse = var > 0.0 ? sqrt(var / (double)reps) / q->mean : 0.0;
}

static int cmd_gen(const char *path, unsigned long long seed) {
  revprof_raw *raw = revprof_raw_alloc();
  char err[512];
  if (raw == NULL)
    return 1;
  rng_seed(seed);
  for (int f = 0; f < REVPROF_FN_COUNT; f++) {
    revprof_fn fn = (revprof_fn)f;
    revprof_fn_kind kind = revprof_fn_kind_of(fn);
    if (fn >= REVPROF_FN_PUT)
      continue; /* the synthetic cluster predates the one-sided and
                   neighbourhood rows: its figures (README) stay those of
                   the same functions */
    int pmin = kind == REVPROF_KIND_COLL ? 2 : kind == REVPROF_KIND_P2P ? 2 : 1;
    int pmax = kind == REVPROF_KIND_COLL ? 16 : pmin;
    int dsizes = fn == REVPROF_FN_BARRIER || fn == REVPROF_FN_IBARRIER ||
                         kind == REVPROF_KIND_LOCAL
                     ? 1
                     : 24; /* 0, then 1 B .. 4 MiB in powers of two */
    for (int p = pmin; p <= pmax; p++)
      for (int e = 0; e < dsizes; e++) {
        revprof_point q;
        memset(&q, 0, sizeof q);
        q.fn = fn;
        q.p = p;
        q.d = e == 0 ? 0.0 : ldexp(1.0, e - 1);
        measure(&q, truth(fn, p, q.d));
        if (revprof_raw_add(raw, &q)) {
          revprof_raw_free(raw);
          return 1;
        }
      }
  }
  int rc = revprof_raw_write(raw, path, err, sizeof err);
  if (rc)
    fprintf(stderr, "bench_fit: %s\n", err);
  else
    printf("wrote %zu synthetic points to %s\n", raw->n, path);
  revprof_raw_free(raw);
  return rc ? 1 : 0;
}

/* ---------------------------------------------------- held-out accuracy */

/* Scheme A: per function, withhold the points of every third distinct
 * message size (the 2nd, 5th, 8th, ... smallest), never the largest, so
 * that prediction is interpolation; a function measured at one size
 * withholds every third group size instead; with fewer than three of
 * either nothing is withheld. Scheme B: a random 25 % of each function's
 * points (fixed seed), for functions with at least 8 points. */
static void choose_heldout(const revprof_raw *raw, int scheme,
                           unsigned char *held) {
  double *v = malloc(raw->n * sizeof *v);
  if (v == NULL)
    return;
  memset(held, 0, raw->n);
  rng_seed(1);
  for (int f = 0; f < REVPROF_FN_COUNT; f++) {
    size_t k = 0;
    for (size_t i = 0; i < raw->n; i++)
      if ((int)raw->pt[i].fn == f)
        k++;
    if (k == 0)
      continue;
    if (scheme == 1) {
      if (k < 8)
        continue;
      for (size_t i = 0; i < raw->n; i++)
        if ((int)raw->pt[i].fn == f && urand() < 0.25)
          held[i] = 1;
      continue;
    }
    for (int axis = 0; axis < 2; axis++) { /* d first, then p */
      size_t nd = 0;
      for (size_t i = 0; i < raw->n; i++)
        if ((int)raw->pt[i].fn == f)
          v[nd++] = axis == 0 ? raw->pt[i].d : raw->pt[i].p;
      qsort(v, nd, sizeof *v, cmp_double);
      size_t u = 0;
      for (size_t i = 0; i < nd; i++)
        if (u == 0 || v[i] != v[u - 1])
          v[u++] = v[i];
      if (u < 3)
        continue;
      for (size_t i = 0; i < raw->n; i++) {
        if ((int)raw->pt[i].fn != f)
          continue;
        double x = axis == 0 ? raw->pt[i].d : raw->pt[i].p;
        size_t j = 0;
        while (v[j] != x)
          j++;
        held[i] = j % 3 == 1 && j + 1 < u;
      }
      break;
    }
  }
  free(v);
}

/* Fits the kept points with one method and writes the relative error of the
 * predicted median time for every withheld point to e (NAN elsewhere). */
static double cov_inside[2], cov_width[2], cov_n[2]; /* per method */

static int heldout_errors(const revprof_raw *raw, const unsigned char *held,
                          revprof_method method, double *e) {
  cov_inside[method] = cov_width[method] = cov_n[method] = 0.0;
  revprof_raw *train = revprof_raw_alloc();
  revprof_model *m = revprof_model_alloc();
  revprof_fit_options o;
  char err[512];
  int rc = train && m ? 0 : 1;
  for (size_t i = 0; rc == 0 && i < raw->n; i++)
    if (!held[i])
      rc = revprof_raw_add(train, &raw->pt[i]);
  revprof_fit_options_init(&o);
  o.method = method;
  if (rc == 0 && (rc = revprof_fit(train, &o, m, err, sizeof err)))
    fprintf(stderr, "bench_fit: %s\n", err);
  for (size_t i = 0; rc == 0 && i < raw->n; i++) {
    double out[3];
    const revprof_point *q = &raw->pt[i];
    e[i] = NAN;
    if (!held[i] || q->median <= 0.0)
      continue;
    if (revprof_model_eval(m, q->fn, q->p, q->d, out) == 0) {
      e[i] = fabs(out[REVPROF_AVG] - q->median) / q->median;
      cov_inside[method] += out[REVPROF_MIN] <= q->median &&
                            q->median <= out[REVPROF_MAX];
      if (out[REVPROF_AVG] > 0.0)
        cov_width[method] +=
            0.5 * (out[REVPROF_MAX] - out[REVPROF_MIN]) / out[REVPROF_AVG];
      cov_n[method] += 1.0;
    }
  }
  revprof_raw_free(train);
  revprof_model_free(m);
  return rc;
}

/* The noise floor: each withheld point predicted from its kept neighbours
 * (same function and p, the nearest kept sizes below and above), linearly
 * in log(d + 1) and log(t); one side only: that point's time. No fit can be
 * expected to beat this by much on data this noisy. */
static void neighbour_errors(const revprof_raw *raw, const unsigned char *held,
                             double *e) {
  for (size_t i = 0; i < raw->n; i++) {
    const revprof_point *q = &raw->pt[i];
    const revprof_point *lo = NULL, *hi = NULL;
    e[i] = NAN;
    if (!held[i] || q->median <= 0.0)
      continue;
    for (size_t j = 0; j < raw->n; j++) {
      const revprof_point *r = &raw->pt[j];
      if (held[j] || r->fn != q->fn || r->p != q->p || r->median <= 0.0)
        continue;
      if (r->d <= q->d && (lo == NULL || r->d > lo->d))
        lo = r;
      if (r->d >= q->d && (hi == NULL || r->d < hi->d))
        hi = r;
    }
    double t;
    if (lo && hi && hi->d > lo->d) {
      double x = log(q->d + 1.0), x0 = log(lo->d + 1.0), x1 = log(hi->d + 1.0);
      t = exp(log(lo->median) +
              (x - x0) / (x1 - x0) * (log(hi->median) - log(lo->median)));
    } else if (lo || hi)
      t = (lo ? lo : hi)->median;
    else
      continue;
    e[i] = fabs(t - q->median) / q->median;
  }
}

/* Collects e[i] over the points of fn (or all when fn < 0) into buf. */
static size_t gather(const revprof_raw *raw, const double *e, int fn,
                     double *buf) {
  size_t k = 0;
  for (size_t i = 0; i < raw->n; i++)
    if ((fn < 0 || (int)raw->pt[i].fn == fn) && !isnan(e[i]))
      buf[k++] = e[i];
  return k;
}

static int cmd_accuracy(const revprof_raw *raw) {
  unsigned char *held = malloc(raw->n);
  double *ep = malloc(raw->n * sizeof *ep), *ed = malloc(raw->n * sizeof *ed);
  double *en = malloc(raw->n * sizeof *en);
  double *buf = malloc(raw->n * sizeof *buf);
  int rc = held && ep && ed && en && buf ? 0 : 1;
  for (int scheme = 0; rc == 0 && scheme < 2; scheme++) {
    choose_heldout(raw, scheme, held);
    if ((rc = heldout_errors(raw, held, REVPROF_METHOD_PAPER, ep)) ||
        (rc = heldout_errors(raw, held, REVPROF_METHOD_DEFAULT, ed)))
      break;
    neighbour_errors(raw, held, en);
    if (getenv("BENCH_FIT_DETAIL"))
      for (size_t i = 0; i < raw->n; i++)
        if (!isnan(ed[i]) && ed[i] > atof(getenv("BENCH_FIT_DETAIL")))
          printf("detail %s p=%d d=%.0f median=%.3g default=%.1f%% "
                 "paper=%.1f%% neighbours=%.1f%%\n",
                 revprof_fn_name(raw->pt[i].fn), raw->pt[i].p, raw->pt[i].d,
                 raw->pt[i].median, 100 * ed[i], 100 * ep[i], 100 * en[i]);
    printf("\nheld-out scheme %s\n",
           scheme == 0 ? "A: every 3rd distinct message size withheld "
                         "(2nd, 5th, ...; never the largest)"
                       : "B: random 25 % of each function's points "
                         "withheld (seed 1)");
    printf("relative error |predicted - measured median| / measured "
           "median\n");
    printf("%-26s %5s   %8s %8s   %8s %8s   %8s %8s\n", "function", "held",
           "paper", "", "default", "", "neighbou", "rs");
    printf("%-26s %5s   %8s %8s   %8s %8s   %8s %8s\n", "", "", "median",
           "p90", "median", "p90", "median", "p90");
    for (int fn = 0; fn <= REVPROF_FN_COUNT; fn++) {
      int f = fn == REVPROF_FN_COUNT ? -1 : fn;
      double pm, p9, dm, d9, nm, n9;
      size_t k = gather(raw, ep, f, buf);
      if (k == 0)
        continue;
      quantiles(buf, k, &pm, &p9);
      gather(raw, ed, f, buf);
      quantiles(buf, k, &dm, &d9);
      size_t kn = gather(raw, en, f, buf);
      quantiles(buf, kn, &nm, &n9);
      printf("%-26s %5zu   %7.2f%% %7.2f%%   %7.2f%% %7.2f%%   %7.2f%% "
             "%7.2f%%\n",
             f < 0 ? "OVERALL" : revprof_fn_name((revprof_fn)f), k, 100 * pm,
             100 * p9, 100 * dm, 100 * d9, 100 * nm, 100 * n9);
    }
    printf("(neighbours: each withheld point interpolated from the kept "
           "points next to it, the\n noise floor of the data; not a model)\n");
    printf("bounds: withheld medians inside the model's [min, max]: paper "
           "%.1f %% (mean half-width %.1f %%), default %.1f %% (%.1f %%)\n",
           100.0 * cov_inside[1] / cov_n[1], 100.0 * cov_width[1] / cov_n[1],
           100.0 * cov_inside[0] / cov_n[0], 100.0 * cov_width[0] / cov_n[0]);
  }
  free(held);
  free(ep);
  free(ed);
  free(en);
  free(buf);
  return rc;
}

/* ------------------------------------------------------------ fit time */

static int cmd_time(const revprof_raw *raw, int runs) {
  double t[2][64];
  char err[512];
  int nfn = 0;
  for (int f = 0; f < REVPROF_FN_COUNT; f++)
    for (size_t i = 0; i < raw->n; i++)
      if ((int)raw->pt[i].fn == f) {
        nfn++;
        break;
      }
  if (runs > 64)
    runs = 64;
  if (runs < 1)
    runs = 1;
  for (int r = 0; r < runs; r++)
    for (int meth = 0; meth < 2; meth++) { /* interleaved, same conditions */
      revprof_model *m = revprof_model_alloc();
      revprof_fit_options o;
      revprof_fit_options_init(&o);
      o.method = meth ? REVPROF_METHOD_DEFAULT : REVPROF_METHOD_PAPER;
      double t0 = now_s();
      int rc = m ? revprof_fit(raw, &o, m, err, sizeof err) : 1;
      t[meth][r] = now_s() - t0;
      revprof_model_free(m);
      if (rc) {
        fprintf(stderr, "bench_fit: %s\n", err);
        return 1;
      }
    }
  double pm, p9, dm, d9;
  quantiles(t[0], (size_t)runs, &pm, &p9);
  quantiles(t[1], (size_t)runs, &dm, &d9);
  printf("\nfit time, all %d functions (%zu points), median of %d runs:\n",
         nfn, raw->n, runs);
  printf("  paper   %9.2f ms\n  default %9.2f ms  (%.1f x paper)\n",
         1e3 * pm, 1e3 * dm, dm / pm);
  return 0;
}

/* ------------------------------------------------- in-sample, top of range */

/* The default fit of all points, then each point's relative error
 * (predicted - measured median) / measured median: per function the mean
 * |error| and the error at its largest measured size (the largest p
 * there), and over all functions the mean, the share of points off by
 * more than 25 %, and the same at the largest sizes. */
static int cmd_fitted(const revprof_raw *raw) {
  revprof_model *m = revprof_model_alloc();
  revprof_fit_options o;
  char err[512];
  if (m == NULL)
    return 1;
  revprof_fit_options_init(&o);
  if (revprof_fit(raw, &o, m, err, sizeof err)) {
    fprintf(stderr, "bench_fit: %s\n", err);
    revprof_model_free(m);
    return 1;
  }
  double sum = 0.0, tsum = 0.0;
  size_t n = 0, over = 0, tn = 0, tover = 0;
  printf("%-26s %6s %9s   %10s %9s\n", "function", "points", "mean|e|",
         "top bytes", "e at top");
  for (int f = 0; f < REVPROF_FN_COUNT; f++) {
    double fs = 0.0, top = -1.0, topp = 0.0, tope = NAN;
    size_t fn = 0;
    for (size_t i = 0; i < raw->n; i++) {
      const revprof_point *q = &raw->pt[i];
      double out[3];
      if ((int)q->fn != f || q->median <= 0.0 ||
          revprof_model_eval(m, q->fn, q->p, q->d, out) != 0)
        continue;
      double e = (out[REVPROF_AVG] - q->median) / q->median;
      fs += fabs(e);
      fn++;
      over += fabs(e) > 0.25;
      if (q->d > top || (q->d == top && q->p > topp)) {
        top = q->d;
        topp = q->p;
        tope = e;
      }
    }
    if (fn == 0)
      continue;
    sum += fs;
    n += fn;
    if (top > 0.0) {
      tsum += fabs(tope);
      tn++;
      tover += fabs(tope) > 0.25;
    }
    printf("%-26s %6zu %8.1f%%   %10.0f %+8.1f%%\n",
           revprof_fn_name((revprof_fn)f), fn, 100.0 * fs / (double)fn, top,
           100.0 * tope);
  }
  printf("\nall %zu points: mean |error| %.1f %%, %zu (%.1f %%) off by more "
         "than 25 %%\n",
         n, n ? 100.0 * sum / (double)n : 0.0, over,
         n ? 100.0 * (double)over / (double)n : 0.0);
  printf("largest size of each of %zu functions: mean |error| %.1f %%, %zu "
         "off by more than 25 %%\n",
         tn, tn ? 100.0 * tsum / (double)tn : 0.0, tover);
  revprof_model_free(m);
  return 0;
}

int main(int argc, char **argv) {
  char err[512];
  revprof_raw *raw = NULL;
  if (argc >= 3 && strcmp(argv[1], "gen") == 0)
    return cmd_gen(argv[2], argc > 3 ? strtoull(argv[3], NULL, 10) : 2024);
  if (argc < 3 || (strcmp(argv[1], "accuracy") != 0 &&
                   strcmp(argv[1], "fitted") != 0 &&
                   strcmp(argv[1], "time") != 0)) {
    fprintf(stderr, "usage: bench_fit gen OUT.csv [SEED]\n"
                    "       bench_fit accuracy RAW.csv\n"
                    "       bench_fit fitted RAW.csv\n"
                    "       bench_fit time RAW.csv [RUNS]\n");
    return 2;
  }
  if (revprof_raw_read(argv[2], &raw, err, sizeof err)) {
    fprintf(stderr, "bench_fit: %s\n", err);
    return 1;
  }
  int rc = strcmp(argv[1], "accuracy") == 0 ? cmd_accuracy(raw)
           : strcmp(argv[1], "fitted") == 0
               ? cmd_fitted(raw)
               : cmd_time(raw, argc > 3 ? atoi(argv[3]) : 7);
  revprof_raw_free(raw);
  return rc;
}
