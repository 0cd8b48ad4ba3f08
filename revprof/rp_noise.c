/* Bounds of measured computation (rp_noise.h). */
#include "rp_noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* q-quantile (0..1) of sorted v[0..n-1], linear between neighbours. */
static double quantile(const double *v, int n, double q) {
  double pos = q * (double)(n - 1);
  int i = (int)pos;
  if (i >= n - 1)
    return v[n - 1];
  return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

static double clampd(double x, double lo, double hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

void rp_noise_from_samples(const double *cpu, const double *wall, int n,
                           double floor, rp_noise *out) {
  double c[64], r[64];
  int nc = 0, nr = 0;
  for (int i = 0; i < n && nc < 64; i++) {
    if (!(cpu[i] > 0.0) || !isfinite(cpu[i]))
      continue;
    c[nc++] = cpu[i];
    if (wall != NULL && wall[i] > 0.0 && isfinite(wall[i]))
      r[nr++] = wall[i] / cpu[i];
  }
  out->lo = out->hi = floor;
  out->busy = 0.0;
  if (nc < 3)
    return;
  qsort(c, (size_t)nc, sizeof c[0], cmp_double);
  double med = quantile(c, nc, 0.5);
  out->lo = clampd(1.0 - quantile(c, nc, 0.1) / med, floor, RP_NOISE_LO_CAP);
  out->hi = clampd(quantile(c, nc, 0.9) / med - 1.0, floor, RP_NOISE_HI_CAP);
  if (nr >= 3) {
    qsort(r, (size_t)nr, sizeof r[0], cmp_double);
    out->busy = quantile(r, nr, 0.5);
  }
}

void rp_noise_widen(double dt[RP_NB], const rp_noise *nz) {
  double t = dt[RP_AVG];
  dt[RP_MIN] = t * (1.0 - nz->lo);
  dt[RP_MAX] = t * (1.0 + nz->hi);
}

/* A few hundred microseconds of arithmetic on a cache-resident buffer:
 * what matters is that every repetition does the same work. */
static double kernel(double *buf, int len) {
  double s = 0.0;
  for (int rep = 0; rep < 40; rep++)
    for (int i = 0; i < len; i++) {
      buf[i] = buf[i] * 0.999 + 0.5;
      s += buf[i];
    }
  return s;
}

void rp_noise_calibrate(double (*cpu)(void), double (*wall)(void),
                        double floor, rp_noise *out) {
  enum { LEN = 2048 }; /* 16 KiB */
  static double buf[LEN];
  double tc[RP_NOISE_REPS], tw[RP_NOISE_REPS];
  volatile double sink = 0.0;
  for (int i = 0; i < LEN; i++)
    buf[i] = (double)i;
  sink += kernel(buf, LEN); /* warm-up: caches, page faults */
  for (int k = 0; k < RP_NOISE_REPS; k++) {
    double w0 = wall(), c0 = cpu();
    sink += kernel(buf, LEN);
    double c1 = cpu(), w1 = wall();
    tc[k] = c1 - c0;
    tw[k] = w1 - w0;
  }
  (void)sink;
  rp_noise_from_samples(tc, tw, RP_NOISE_REPS, floor, out);
}

double rp_read_cost(double (*clock)(void)) {
  double d[RP_READ_REPS];
  (void)clock(); /* first call: page faults, vDSO set-up */
  for (int k = 0; k < RP_READ_REPS; k++) {
    double a = clock();
    double b = clock();
    d[k] = b - a;
  }
  qsort(d, RP_READ_REPS, sizeof d[0], cmp_double);
  double m = d[RP_READ_REPS / 2];
  return m > 0.0 && isfinite(m) ? m : 0.0;
}

/* 1 when word is one of the blank-separated words of line */
static int has_word(const char *line, const char *word) {
  size_t n = strlen(word);
  for (const char *p = line; (p = strstr(p, word)) != NULL; p += n)
    if ((p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':') &&
        (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
      return 1;
  return 0;
}

int rp_tsc_usable(const char *flags) {
  return flags != NULL && has_word(flags, "constant_tsc") &&
         has_word(flags, "nonstop_tsc");
}
