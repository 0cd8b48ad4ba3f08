/* Unit tests of sample mode's rules (revprof/rp_sample_rule.c): the
 * REVPROF_SAMPLE and REVPROF_ANALYSIS settings, the counter, timer and
 * random samplers on synthetic message streams, size classes, the latency
 * histogram and the latency statistics. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_sample_rule.h"
#include "rp_test.h"

/* ------------------------------------------------------------- settings */

static rp_sample_spec parse_ok(const char *text) {
  rp_sample_spec s;
  char err[256] = "";
  int rc = rp_sample_parse(text, &s, err, sizeof err);
  if (rc != 0)
    fail_msg("rp_sample_parse(\"%s\"): %d, %s", text, rc, err);
  return s;
}

static void test_sample_rule_parse_accepts_every_form(void **state) {
  (void)state;
  rp_sample_spec s = parse_ok("off");
  assert_int_equal(s.kind, RP_SAMPLE_OFF);
  s = parse_ok("all");
  assert_int_equal(s.kind, RP_SAMPLE_ALL);
  s = parse_ok("random:0.25");
  assert_int_equal(s.kind, RP_SAMPLE_RANDOM);
  assert_near(s.p, 0.25, 0);
  assert_near(parse_ok("random:0").p, 0.0, 0);
  assert_near(parse_ok("random:1").p, 1.0, 0);
  s = parse_ok("counter:8");
  assert_int_equal(s.kind, RP_SAMPLE_COUNTER);
  assert_int_equal(s.n, 8);
  assert_near(s.jitter, 0.0, 0);
  s = parse_ok("counter:8:7");
  assert_int_equal(s.n, 8);
  assert_near(s.jitter, 7.0, 0);
  assert_int_equal(parse_ok("counter:1").n, 1);
  assert_int_equal(parse_ok("counter:1000000000").n, RP_SAMPLE_COUNTER_MAX);
  s = parse_ok("timer:0.01");
  assert_int_equal(s.kind, RP_SAMPLE_TIMER);
  assert_near(s.period, 0.01, 0);
  assert_near(s.jitter, 0.0, 0);
  s = parse_ok("timer:2e-3:1.5e-3");
  assert_near(s.period, 2e-3, 0);
  assert_near(s.jitter, 1.5e-3, 0);
}

/* Every bad value is refused with REVPROF_EINVAL, the spec untouched, and
 * a message that names the whole setting and what is wrong. */
static void test_sample_rule_parse_rejects_bad_values(void **state) {
  (void)state;
  static const struct {
    const char *text, *why;
  } bad[] = {
      {"", "expected off, all, random:P"},
      {"sometimes", "expected off, all, random:P"},
      {"ALL", "expected off, all"},
      {"off:1", "expected off"},
      {"all:", "expected all"},
      {"random", "expected random:P"},
      {"random:0.5:1", "expected random:P"},
      {"random:1.5", "the probability must be between 0 and 1"},
      {"random:-0.1", "the probability must be between 0 and 1"},
      {"random:half", "the probability \"half\" is not a number"},
      {"random:0.5x", "the probability \"0.5x\" is not a number"},
      {"random: 0.5", "is not a number"},
      {"random:nan", "is not a number"},
      {"random:", "the probability \"\" is not a number"},
      {"counter:0", "the counter period N must be a whole number from 1"},
      {"counter:-4", "the counter period N must be a whole number from 1"},
      {"counter:8.5", "the counter period N must be a whole number"},
      {"counter:8x", "the counter period N must be a whole number"},
      {"counter:1000000001", "from 1 to 1000000000"},
      {"counter:8:8", "the jitter J must be a whole number of messages with "
                      "0 <= J < N (8)"},
      {"counter:8:9", "0 <= J < N (8)"},
      {"counter:8:-1", "0 <= J < N (8)"},
      {"counter:8:1.5", "0 <= J < N (8)"},
      {"counter:8:2:1", "expected counter:N or counter:N:J"},
      {"timer:0", "the period S must be a positive number of seconds"},
      {"timer:-1", "the period S must be a positive number of seconds"},
      {"timer:inf", "the period S must be a positive number of seconds"},
      {"timer:1s", "the period S must be a positive number of seconds"},
      {"timer:0.01:0.01", "the jitter J must be a number of seconds with "
                          "0 <= J < S (0.01)"},
      {"timer:0.01:-0.001", "0 <= J < S (0.01)"},
      {"timer:0.01:x", "0 <= J < S (0.01)"},
      {"timer", "expected timer:S or timer:S:J"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    rp_sample_spec s = {.kind = RP_SAMPLE_ALL, .p = 0.75};
    char err[256] = "", want[128];
    int rc = rp_sample_parse(bad[i].text, &s, err, sizeof err);
    if (rc != REVPROF_EINVAL)
      fail_msg("\"%s\": rc %d, expected REVPROF_EINVAL", bad[i].text, rc);
    snprintf(want, sizeof want, "REVPROF_SAMPLE=\"%s\": ", bad[i].text);
    if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, bad[i].why))
      fail_msg("\"%s\": message \"%s\", expected \"%s...%s\"", bad[i].text,
               err, want, bad[i].why);
    assert_int_equal(s.kind, RP_SAMPLE_ALL); /* untouched */
    assert_near(s.p, 0.75, 0);
  }
  /* no message wanted, or no text at all */
  rp_sample_spec s;
  assert_int_equal(rp_sample_parse("random:2", &s, NULL, 0), REVPROF_EINVAL);
  assert_int_equal(rp_sample_parse(NULL, &s, NULL, 0), REVPROF_EINVAL);
  /* a short buffer gets a cut, terminated message */
  char small[12];
  assert_int_equal(rp_sample_parse("random:2", &s, small, sizeof small),
                   REVPROF_EINVAL);
  assert_string_equal(small, "REVPROF_SAM");
}

static void test_sample_rule_format_reads_back(void **state) {
  (void)state;
  static const char *canon[] = {
      "off",        "all",         "random:0.5",   "random:0.123456789",
      "random:1",   "counter:8",   "counter:8:2",  "counter:1000000000:999",
      "timer:0.01", "timer:0.01:0.002", "timer:1e-06", "timer:2.5:1",
  };
  for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
    char buf[64];
    rp_sample_spec s = parse_ok(canon[i]);
    rp_sample_format(&s, buf, sizeof buf);
    assert_string_equal(buf, canon[i]);
    assert_int_equal(rp_sample_check(&s, NULL, 0), 0);
  }
  /* other spellings come out canonical */
  char buf[64];
  rp_sample_spec s = parse_ok("counter:08:0");
  rp_sample_format(&s, buf, sizeof buf);
  assert_string_equal(buf, "counter:8");
  s = parse_ok("timer:.5:0");
  rp_sample_format(&s, buf, sizeof buf);
  assert_string_equal(buf, "timer:0.5");
  /* a spec made in code is checked like a parsed one */
  rp_sample_spec c = {.kind = RP_SAMPLE_COUNTER, .n = 4, .jitter = 4};
  char err[256];
  assert_int_equal(rp_sample_check(&c, err, sizeof err), REVPROF_EINVAL);
  assert_string_equal(err, "REVPROF_SAMPLE=\"counter:4:4\": the jitter J must "
                           "be a whole number of messages with 0 <= J < N (4)");
  assert_string_equal(rp_sample_kind_name(RP_SAMPLE_TIMER), "timer");
  assert_string_equal(rp_sample_kind_name((rp_sample_kind)42), "?");
}

/* -------------------------------------------------------------- samplers */

static rp_sampler make(const char *text, unsigned long seed, int rank) {
  rp_sampler s;
  rp_sample_spec spec = parse_ok(text);
  assert_int_equal(rp_sampler_init(&s, &spec, seed, rank), 0);
  return s;
}

static void test_sample_rule_counter_every_nth(void **state) {
  (void)state;
  rp_sampler s = make("counter:8", 1, 0);
  int n = 0;
  for (int i = 1; i <= 1000; i++) {
    int got = rp_sampler_decide(&s, 0.0);
    if (got != (i % 8 == 0))
      fail_msg("counter:8, message %d: %d", i, got);
    n += got;
  }
  assert_int_equal(n, 125);
  rp_sampler_free(&s);
  s = make("counter:1", 1, 0);
  for (int i = 1; i <= 100; i++)
    assert_int_equal(rp_sampler_decide(&s, 0.0), 1);
  rp_sampler_free(&s);
  s = make("counter:1000", 1, 0);
  n = 0;
  for (int i = 1; i <= 999; i++)
    n += rp_sampler_decide(&s, 0.0);
  assert_int_equal(n, 0);
  assert_int_equal(rp_sampler_decide(&s, 0.0), 1); /* the 1000th */
  rp_sampler_free(&s);
}

/* counter:10:3: every gap in [7, 13], each of the 7 values drawn, the mean
 * gap 10 (a gap's sd is 2, so the mean of ~10000 gaps has sd 0.02). */
static void test_sample_rule_counter_jitter(void **state) {
  (void)state;
  rp_sampler s = make("counter:10:3", 7, 3);
  int last = 0, gaps = 0, seen[14] = {0};
  for (int i = 1; i <= 100000; i++)
    if (rp_sampler_decide(&s, 0.0)) {
      int g = i - last;
      if (g < 7 || g > 13)
        fail_msg("gap %d at message %d, outside [7, 13]", g, i);
      seen[g]++;
      gaps++;
      last = i;
    }
  for (int g = 7; g <= 13; g++)
    assert_true(seen[g] > gaps / 7 / 2); /* ~1/7 each */
  assert_near((double)last / gaps, 10.0, 0.1);
  rp_sampler_free(&s);
}

/* A message every 1 ms, timer:0.0095: the first message (t = 0) sets the
 * first deadline, t = 9.5 ms; the message at 10 ms is sampled, then every
 * 10th message after it. */
static void test_sample_rule_timer_one_per_period(void **state) {
  (void)state;
  rp_sampler s = make("timer:0.0095", 1, 0);
  int n = 0;
  for (int i = 0; i < 1000; i++) {
    int got = rp_sampler_decide(&s, i * 1e-3);
    if (got != (i > 0 && i % 10 == 0))
      fail_msg("timer:0.0095, message at %d ms: %d", i, got);
    n += got;
  }
  assert_int_equal(n, 99);
  rp_sampler_free(&s);
  /* a message exactly at the deadline is sampled ("at or after"): times
     in 1/1024 s and the period 10/1024 s are exact */
  s = make("timer:0.009765625", 1, 0);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(rp_sampler_decide(&s, i / 1024.0), i > 0 && i % 10 == 0);
  rp_sampler_free(&s);
  /* a long silence gives one sample, not one per missed period; the next
     deadline counts from it */
  s = make("timer:1", 1, 0);
  assert_int_equal(rp_sampler_decide(&s, 100.0), 0);
  assert_int_equal(rp_sampler_decide(&s, 200.0), 1);
  assert_int_equal(rp_sampler_decide(&s, 200.5), 0);
  assert_int_equal(rp_sampler_decide(&s, 200.99), 0);
  assert_int_equal(rp_sampler_decide(&s, 201.0), 1);
  rp_sampler_free(&s);
}

/* timer:0.01:0.004 with a message every 0.1 ms for 10 s: the time between
 * samples is S + v, v in [-J, J], plus up to one message spacing of wait;
 * the jitter is drawn (gaps near both ends) and averages out. */
static void test_sample_rule_timer_jitter(void **state) {
  (void)state;
  rp_sampler s = make("timer:0.01:0.004", 11, 2);
  const double dt = 1e-4, S = 0.01, J = 0.004;
  double last = -1.0, lo = INFINITY, hi = 0.0, sum = 0.0;
  int gaps = 0;
  for (int i = 0; i < 100000; i++) {
    double t = i * dt;
    if (!rp_sampler_decide(&s, t))
      continue;
    if (last >= 0.0) {
      double g = t - last;
      if (g < S - J - 1e-12 || g > S + J + dt + 1e-12)
        fail_msg("gap %g s at t = %g s, outside [%g, %g]", g, t, S - J,
                 S + J + dt);
      lo = fmin(lo, g);
      hi = fmax(hi, g);
      sum += g;
      gaps++;
    }
    last = t;
  }
  assert_true(gaps > 900 && gaps < 1100);
  assert_true(lo < S - 0.9 * J); /* drawn over the whole range */
  assert_true(hi > S + 0.9 * J);
  /* mean S + dt/2 (the wait for the next message); v's sd J/sqrt(3) over
     ~1000 gaps: 7e-5 */
  assert_near(sum / gaps, S + dt / 2, 4e-4);
  rp_sampler_free(&s);
}

/* The timer's pathology (seed 001 §3.1): a program whose messages come in
 * bursts aligned with the timer's period (8 messages 1/1024 s apart, a
 * burst every 16/1024 s, 1000 bursts; binary fractions, so that rounding
 * decides nothing) under timer:0.015625: every sample is the first message
 * of a burst, the rest of the burst is never seen; with a jitter of 4/1024
 * s the samples fall on several places of the bursts, at about the same
 * rate. */
static int burst_places(const char *technique, int *places, int *n) {
  rp_sampler s = make(technique, 3, 1);
  int seen[8] = {0}, k = 0;
  *n = 0;
  for (int b = 0; b < 1000; b++)
    for (int m = 0; m < 8; m++)
      if (rp_sampler_decide(&s, b * 0.015625 + m * 0.0009765625)) {
        seen[m]++;
        (*n)++;
      }
  for (int m = 0; m < 8; m++)
    k += seen[m] > 0;
  *places = k;
  rp_sampler_free(&s);
  return seen[0];
}

static void test_sample_rule_timer_bursts(void **state) {
  (void)state;
  int places, n;
  int first = burst_places("timer:0.015625", &places, &n);
  assert_int_equal(places, 1); /* aliasing: the first of each burst */
  assert_int_equal(first, n);
  assert_true(n >= 990 && n <= 1000);
  first = burst_places("timer:0.015625:0.00390625", &places, &n);
  assert_true(places >= 5); /* jitter: all over the bursts */
  assert_true(first < n * 9 / 10);
  assert_true(n > 800 && n < 1200);
}

/* random:0.5 over 100000 messages: within 5 binomial sds of 50000; the
 * same seed and rank give the same choices, another rank or seed others. */
static void test_sample_rule_random(void **state) {
  (void)state;
  enum { N = 100000 };
  static char a[N], b[N], c[N], d[N];
  rp_sampler sa = make("random:0.5", 42, 0), sb = make("random:0.5", 42, 0);
  rp_sampler sc = make("random:0.5", 42, 1), sd = make("random:0.5", 43, 0);
  int n = 0;
  for (int i = 0; i < N; i++) {
    a[i] = (char)rp_sampler_decide(&sa, 0.0);
    b[i] = (char)rp_sampler_decide(&sb, 0.0);
    c[i] = (char)rp_sampler_decide(&sc, 0.0);
    d[i] = (char)rp_sampler_decide(&sd, 0.0);
    n += a[i];
  }
  assert_near(n, N * 0.5, 5.0 * sqrt(N * 0.5 * 0.5));
  assert_memory_equal(a, b, N);
  assert_memory_not_equal(a, c, N);
  assert_memory_not_equal(a, d, N);
  /* about half the choices of two independent streams agree */
  int same = 0;
  for (int i = 0; i < N; i++)
    same += a[i] == c[i];
  assert_near(same, N * 0.5, 5.0 * sqrt(N * 0.5 * 0.5));
  rp_sampler_free(&sa);
  rp_sampler_free(&sb);
  rp_sampler_free(&sc);
  rp_sampler_free(&sd);
  /* the ends: never, always */
  rp_sampler s0 = make("random:0", 1, 0), s1 = make("random:1", 1, 0);
  for (int i = 0; i < 10000; i++) {
    assert_int_equal(rp_sampler_decide(&s0, 0.0), 0);
    assert_int_equal(rp_sampler_decide(&s1, 0.0), 1);
  }
  rp_sampler_free(&s0);
  rp_sampler_free(&s1);
}

/* random:P draws the gap to the next sample (a geometric variable) rather
 * than one uniform per message: the gaps must still be those of independent
 * choices. For P = 0.01 and 0.3: the count of sampled messages within 5
 * binomial sds, the mean gap within 5 sds of 1/P, the share of gaps of 1
 * (the next message sampled right after one) within 5 sds of P, and the
 * share of gaps above 2/P within 5 sds of (1 - P)^(2/P). A tiny P never
 * overflows the gap. */
static void test_sample_rule_random_gaps(void **state) {
  (void)state;
  static const double ps[] = {0.01, 0.3};
  for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
    double p = ps[k];
    char text[32];
    snprintf(text, sizeof text, "random:%g", p);
    rp_sampler s = make(text, 7, 3);
    long n = 2000000, sampled = 0, gaps = 0, ones = 0, long_gaps = 0;
    long last = 0, lim = (long)(2.0 / p);
    double gsum = 0.0, gsum2 = 0.0;
    for (long i = 1; i <= n; i++) {
      if (!rp_sampler_decide(&s, 0.0))
        continue;
      sampled++;
      long g = i - last;
      last = i;
      gaps++;
      gsum += (double)g;
      gsum2 += (double)g * (double)g;
      ones += g == 1;
      long_gaps += g > lim;
    }
    double nd = (double)n, gd = (double)gaps;
    assert_near(sampled, nd * p, 5.0 * sqrt(nd * p * (1.0 - p)));
    double mean = gsum / gd, sd_gap = sqrt((1.0 - p)) / p;
    assert_near(mean, 1.0 / p, 5.0 * sd_gap / sqrt(gd));
    assert_near(gsum2 / gd - mean * mean, sd_gap * sd_gap,
                0.15 * sd_gap * sd_gap);
    assert_near(ones, gd * p, 5.0 * sqrt(gd * p * (1.0 - p)));
    double q = pow(1.0 - p, (double)lim);
    assert_near(long_gaps, gd * q, 5.0 * sqrt(gd * q * (1.0 - q)));
    rp_sampler_free(&s);
  }
  rp_sampler s = make("random:1e-12", 7, 0);
  for (int i = 0; i < 100000; i++)
    assert_int_equal(rp_sampler_decide(&s, 0.0), 0);
  assert_true(s.gap > 0);
  rp_sampler_free(&s);
}

/* Every rank of one seed gets its own generator seed, a 32-bit value. */
static void test_sample_rule_seed_differs_per_rank(void **state) {
  (void)state;
  enum { R = 4096 };
  static unsigned long v[R];
  for (unsigned long seed = 0; seed < 3; seed++) {
    for (int r = 0; r < R; r++) {
      v[r] = rp_sample_seed(seed, r);
      assert_true(v[r] <= 0xffffffffUL);
      assert_int_equal(v[r], rp_sample_seed(seed, r)); /* reproducible */
    }
    for (int r = 0; r < R; r++)
      for (int q = 0; q < r; q++)
        if (v[r] == v[q])
          fail_msg("seed %lu: ranks %d and %d share %lu", seed, q, r, v[r]);
  }
  assert_true(rp_sample_seed(1, 0) != rp_sample_seed(2, 0));
}

static void test_sample_rule_set_switches_mid_stream(void **state) {
  (void)state;
  rp_sampler s = make("counter:4", 5, 0);
  for (int i = 1; i <= 6; i++) /* messages 1..6: the 4th sampled */
    assert_int_equal(rp_sampler_decide(&s, 0.0), i == 4);
  rp_sample_spec spec = parse_ok("all");
  rp_sampler_set(&s, &spec);
  for (int i = 0; i < 10; i++)
    assert_int_equal(rp_sampler_decide(&s, 0.0), 1);
  spec = parse_ok("off");
  rp_sampler_set(&s, &spec);
  for (int i = 0; i < 10; i++)
    assert_int_equal(rp_sampler_decide(&s, 0.0), 0);
  /* a counter starts again: the 3rd message after the switch */
  spec = parse_ok("counter:3");
  rp_sampler_set(&s, &spec);
  for (int i = 1; i <= 9; i++)
    assert_int_equal(rp_sampler_decide(&s, 0.0), i % 3 == 0);
  /* a timer starts again from its next message */
  spec = parse_ok("timer:1");
  rp_sampler_set(&s, &spec);
  assert_int_equal(rp_sampler_decide(&s, 50.0), 0);
  assert_int_equal(rp_sampler_decide(&s, 50.5), 0);
  assert_int_equal(rp_sampler_decide(&s, 51.0), 1);
  /* the generator goes on across switches: none of the above drew, so
     random follows a fresh sampler of the same seed and rank, and after a
     switch away and back it carries on that stream, not a new one (a
     sampler set to random draws its first gap at once) */
  rp_sampler ref = make("random:0.5", 5, 0), fresh = make("random:0.5", 5, 0);
  spec = parse_ok("random:0.5");
  rp_sampler_set(&s, &spec);
  int differs = 0;
  for (int i = 0; i < 200; i++)
    differs += rp_sampler_decide(&s, 0.0) != rp_sampler_decide(&ref, 0.0);
  assert_int_equal(differs, 0);
  rp_sample_spec all = parse_ok("all");
  rp_sampler_set(&s, &all);
  rp_sampler_set(&s, &spec);   /* s draws its next gap from the stream */
  rp_sampler_set(&ref, &spec); /* and so does ref, at the same place */
  int from_ref = 0, from_fresh = 0;
  for (int i = 0; i < 200; i++) {
    int got = rp_sampler_decide(&s, 0.0);
    from_ref += got != rp_sampler_decide(&ref, 0.0);
    from_fresh += got != rp_sampler_decide(&fresh, 0.0);
  }
  assert_int_equal(from_ref, 0);
  assert_true(from_fresh > 50); /* ~100 of 200 */
  rp_sampler_free(&fresh);
  /* a bad spec turns sampling off */
  rp_sample_spec badp = {.kind = RP_SAMPLE_RANDOM, .p = 2.0};
  rp_sampler_set(&s, &badp);
  assert_int_equal(s.spec.kind, RP_SAMPLE_OFF);
  assert_int_equal(rp_sampler_decide(&s, 0.0), 0);
  rp_sampler_free(&s);
  rp_sampler_free(&ref);
}

static void test_sample_rule_init_and_free(void **state) {
  (void)state;
  rp_sampler s;
  rp_sample_spec badn = {.kind = RP_SAMPLE_COUNTER, .n = 0};
  assert_int_equal(rp_sampler_init(&s, &badn, 1, 0), REVPROF_EINVAL);
  assert_int_equal(s.spec.kind, RP_SAMPLE_OFF);
  assert_null(s.rng);
  assert_int_equal(rp_sampler_decide(&s, 0.0), 0);
  /* no generator: a technique that draws is refused, one that does not
     works */
  rp_sample_spec r = {.kind = RP_SAMPLE_RANDOM, .p = 0.5};
  rp_sampler_set(&s, &r);
  assert_int_equal(s.spec.kind, RP_SAMPLE_OFF);
  rp_sample_spec c = {.kind = RP_SAMPLE_COUNTER, .n = 2};
  rp_sampler_set(&s, &c);
  assert_int_equal(rp_sampler_decide(&s, 0.0), 0);
  assert_int_equal(rp_sampler_decide(&s, 0.0), 1);
  rp_sampler_free(&s);
  s = make("random:0.5", 1, 0);
  assert_non_null(s.rng);
  rp_sampler_free(&s);
  assert_null(s.rng);
  assert_int_equal(rp_sampler_decide(&s, 0.0), 0); /* off after free */
  rp_sampler_free(&s);                            /* twice: no-op */
  rp_sampler_free(NULL);
}

/* A caller that passes over rp_sampler_skip's messages (telling the
 * sampler with rp_sampler_pass, in runs of any length up to the skip) and
 * decides the others takes the same messages as one that decides each:
 * counter with and without jitter, random, off and all; with a switch of
 * technique half-way. */
static void test_sample_rule_skip_same_choices(void **state) {
  (void)state;
  const char *specs[] = {"counter:8",  "counter:10:3", "counter:1",
                         "random:0.3", "random:0.01",  "random:1",
                         "random:0",   "off",          "all"};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    rp_sampler ref = make(specs[k], 11, 2), s = make(specs[k], 11, 2);
    rp_sample_spec other = parse_ok("counter:3:1");
    long taken = 0, passed = 0; /* before the switch */
    int m = 0;
    while (m < 20000) {
      if (m == 10000) { /* both switch at the same message */
        rp_sampler_set(&ref, &other);
        rp_sampler_set(&s, &other);
      }
      long skip = rp_sampler_skip(&s);
      assert_true(skip >= 0);
      /* pass over a part of the skip (1, 2, ... messages), not beyond the
         switch or the end */
      long run = skip < (long)(m % 5 + 1) ? skip : (long)(m % 5 + 1);
      long stop = (m < 10000 ? 10000 : 20000) - m;
      if (run > stop)
        run = stop;
      for (long i = 0; i < run; i++)
        if (rp_sampler_decide(&ref, 0.0))
          fail_msg("%s: message %d taken by decide, inside a skip of %ld",
                   specs[k], m + (int)i, skip);
      rp_sampler_pass(&s, run);
      passed += m < 10000 ? run : 0;
      m += (int)run;
      if (m == 10000 || m == 20000)
        continue;
      int want = rp_sampler_decide(&ref, 0.0);
      int got = rp_sampler_decide(&s, 0.0);
      if (want != got)
        fail_msg("%s: message %d: %d one by one, %d with skips", specs[k], m,
                 want, got);
      taken += got;
      m++;
    }
    assert_true(taken > 0 || strcmp(specs[k], "off") == 0 ||
                strcmp(specs[k], "random:0") == 0 ||
                strcmp(specs[k], "random:0.01") == 0);
    if (strcmp(specs[k], "all") == 0)
      assert_int_equal(passed, 0);
    rp_sampler_free(&ref);
    rp_sampler_free(&s);
  }
  /* what each technique lets pass */
  rp_sampler s = make("off", 1, 0);
  assert_int_equal(rp_sampler_skip(&s), LONG_MAX);
  rp_sampler_pass(&s, 1000);
  assert_int_equal(rp_sampler_skip(&s), LONG_MAX);
  rp_sampler_free(&s);
  s = make("counter:8", 1, 0);
  assert_int_equal(rp_sampler_skip(&s), 7); /* messages 1..7 */
  rp_sampler_pass(&s, 5);
  assert_int_equal(rp_sampler_skip(&s), 2);
  rp_sampler_pass(&s, 2);
  assert_int_equal(rp_sampler_skip(&s), 0);
  assert_int_equal(rp_sampler_decide(&s, 0.0), 1); /* the 8th */
  assert_int_equal(rp_sampler_skip(&s), 7);
  rp_sampler_free(&s);
  s = make("timer:1", 1, 0);
  assert_int_equal(rp_sampler_skip(&s), 0);
  rp_sampler_free(&s);
  s = make("random:1", 1, 0);
  assert_int_equal(rp_sampler_skip(&s), 0);
  rp_sampler_free(&s);
}

/* ----------------------------------------------------------- size classes */

static void test_sample_rule_size_class_boundaries(void **state) {
  (void)state;
  static const struct {
    double bytes;
    int k;
  } t[] = {{0, 0},     {1, 1},      {2, 2},       {3, 2},         {4, 3},
           {7, 3},     {8, 4},      {1023, 10},   {1024, 11},     {1025, 11},
           {2047, 11}, {1 << 20, 21}, {(1 << 20) - 1, 20}, {-5, 0}, {NAN, 0},
           {0.5, 0},   {1.5, 1}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (rp_size_class(t[i].bytes) != t[i].k)
      fail_msg("rp_size_class(%g) = %d, expected %d", t[i].bytes,
               rp_size_class(t[i].bytes), t[i].k);
  assert_near(rp_size_class_lo(0), 0, 0);
  assert_near(rp_size_class_hi(0), 0, 0);
  assert_near(rp_size_class_lo(1), 1, 0);
  assert_near(rp_size_class_hi(1), 1, 0);
  assert_near(rp_size_class_lo(3), 4, 0);
  assert_near(rp_size_class_hi(3), 7, 0);
  assert_near(rp_size_class_lo(11), 1024, 0);
  assert_near(rp_size_class_hi(11), 2047, 0);
  for (int k = 1; k <= 52; k++) { /* 2^k - 1 exact as a double */
    assert_int_equal(rp_size_class(rp_size_class_lo(k)), k);
    assert_int_equal(rp_size_class(rp_size_class_hi(k)), k);
    assert_int_equal(rp_size_class(rp_size_class_hi(k) + 1), k + 1);
    assert_near(rp_size_class_hi(k) + 1, rp_size_class_lo(k + 1), 0);
  }
  /* the last class holds everything from 2^62 bytes */
  assert_int_equal(rp_size_class(ldexp(1, 62)), RP_SIZE_CLASS_N - 1);
  assert_int_equal(rp_size_class(1e300), RP_SIZE_CLASS_N - 1);
  assert_int_equal(rp_size_class(INFINITY), RP_SIZE_CLASS_N - 1);
  assert_true(isinf(rp_size_class_hi(RP_SIZE_CLASS_N - 1)));
}

/* ------------------------------------------------------ latency histogram */

static void test_sample_rule_lhist_boundaries(void **state) {
  (void)state;
  assert_int_equal(rp_lhist_bucket(0.0), 0);
  assert_int_equal(rp_lhist_bucket(-1.0), 0);
  assert_int_equal(rp_lhist_bucket(NAN), 0);
  assert_int_equal(rp_lhist_bucket(9.99e-8), 0);
  assert_int_equal(rp_lhist_bucket(1e-7), 1);
  assert_int_equal(rp_lhist_bucket(1.7e-7), 1);
  assert_int_equal(rp_lhist_bucket(1.8e-7), 2);
  assert_int_equal(rp_lhist_bucket(1e-6), 5);
  assert_int_equal(rp_lhist_bucket(1e-3), 17);
  assert_int_equal(rp_lhist_bucket(3e-3), 18);  /* [1.78e-3, 3.16e-3) */
  assert_int_equal(rp_lhist_bucket(3.2e-3), 19); /* [3.16e-3, 5.62e-3) */
  assert_int_equal(rp_lhist_bucket(9.99), 32);
  assert_int_equal(rp_lhist_bucket(10.0), 33);
  assert_int_equal(rp_lhist_bucket(1e300), 33);
  assert_int_equal(rp_lhist_bucket(INFINITY), 33);
  assert_near(rp_lhist_lo(0), 0.0, 0);
  assert_near(rp_lhist_lo(1), 1e-7, 0); /* decades exact */
  assert_near(rp_lhist_lo(5), 1e-6, 0);
  assert_near(rp_lhist_lo(29), 1.0, 0);
  assert_near(rp_lhist_lo(33), 10.0, 0);
  assert_true(isinf(rp_lhist_hi(33)));
  for (int k = 1; k < RP_LHIST_N; k++) {
    double lo = rp_lhist_lo(k);
    assert_rel(lo, 1e-7 * pow(10.0, (k - 1) / 4.0), 1e-15);
    assert_near(rp_lhist_hi(k - 1), lo, 0);
    if (rp_lhist_bucket(lo) != k ||
        rp_lhist_bucket(nextafter(lo, 0.0)) != k - 1)
      fail_msg("bucket %d starts at %.17g: bucket(lo) = %d, bucket(lo-) = %d",
               k, lo, rp_lhist_bucket(lo),
               rp_lhist_bucket(nextafter(lo, 0.0)));
    /* the middle of a bucket is in it */
    if (k < RP_LHIST_N - 1)
      assert_int_equal(rp_lhist_bucket(sqrt(lo * rp_lhist_hi(k))), k);
  }
}

/* ----------------------------------------------------- latency statistics */

/* latencies spread over four decades, around a large common part so that
 * a naive sum of squares would lose digits */
static double latency_of(int i) {
  double u = (double)((i * 7919) % 1000) / 1000.0; /* 0 .. 0.999 */
  return 1e-6 * pow(10.0, 4.0 * u);
}

static void test_sample_rule_welford_matches_two_pass(void **state) {
  (void)state;
  enum { N = 1000 };
  double x[N], sum = 0.0;
  for (int i = 0; i < N; i++) {
    x[i] = 1e3 + latency_of(i);
    sum += x[i];
  }
  double mean = sum / N, ss = 0.0, mn = INFINITY, mx = -INFINITY;
  for (int i = 0; i < N; i++) {
    ss += (x[i] - mean) * (x[i] - mean);
    mn = fmin(mn, x[i]);
    mx = fmax(mx, x[i]);
  }
  rp_lstat s;
  rp_lstat_init(&s);
  assert_near(rp_lstat_sd(&s), 0.0, 0);
  assert_true(isnan(rp_lstat_median(&s)));
  for (int i = 0; i < N; i++)
    rp_lstat_add(&s, x[i], 100.0 + i, 0);
  assert_near(s.n, N, 0);
  assert_rel(s.mean, mean, 1e-14);
  assert_rel(rp_lstat_sd(&s), sqrt(ss / (N - 1)), 1e-9);
  assert_near(s.min, mn, 0);
  assert_near(s.max, mx, 0);
  assert_near(s.bytes, 100.0 * N + N * (N - 1) / 2.0, 0);
  for (int k = 0; k < RP_LHIST_N; k++)
    assert_near(s.hist[k], 0.0, 0); /* no histogram asked */
  assert_true(isnan(rp_lstat_median(&s)));
  /* one message: sd 0, median itself */
  rp_lstat one;
  rp_lstat_init(&one);
  rp_lstat_add(&one, 3e-5, 8, 1);
  assert_near(rp_lstat_sd(&one), 0.0, 0);
  assert_near(rp_lstat_median(&one), 3e-5, 0);
}

static void test_sample_rule_merge_halves_equals_whole(void **state) {
  (void)state;
  enum { N = 1001 };
  rp_lstat whole, a, b, empty;
  rp_lstat_init(&whole);
  rp_lstat_init(&a);
  rp_lstat_init(&b);
  rp_lstat_init(&empty);
  for (int i = 0; i < N; i++) {
    double x = latency_of(i) * (i < 300 ? 1.0 : 3.0); /* halves differ */
    rp_lstat_add(&whole, x, i, 1);
    rp_lstat_add(i < 300 ? &a : &b, x, i, 1);
  }
  rp_lstat_merge(&a, &b);
  assert_near(a.n, whole.n, 0);
  assert_rel(a.mean, whole.mean, 1e-13);
  assert_rel(rp_lstat_sd(&a), rp_lstat_sd(&whole), 1e-12);
  assert_near(a.min, whole.min, 0);
  assert_near(a.max, whole.max, 0);
  assert_near(a.bytes, whole.bytes, 0);
  assert_memory_equal(a.hist, whole.hist, sizeof a.hist);
  /* an empty side changes nothing, either way round */
  rp_lstat c = whole;
  rp_lstat_merge(&c, &empty);
  assert_memory_equal(&c, &whole, sizeof c);
  rp_lstat e = empty;
  rp_lstat_merge(&e, &whole);
  assert_near(e.n, whole.n, 0);
  assert_near(e.mean, whole.mean, 0);
  assert_near(e.m2, whole.m2, 0);
  assert_near(e.min, whole.min, 0);
  assert_near(e.max, whole.max, 0);
  assert_memory_equal(e.hist, whole.hist, sizeof e.hist);
}

static int cmp_double(const void *p, const void *q) {
  double x = *(const double *)p, y = *(const double *)q;
  return (x > y) - (x < y);
}

/* ------------------------------------------------------------ clock drift */

/* A class whose samples x_i were taken with a clock drifting by -c per
 * second (measured x_i - c u_i - k): corrected by c and k, its mean, sd,
 * min and max are those of the x_i, computed directly, to rounding. The
 * x_i: a few microseconds with outliers early and late, u_i over 100 s;
 * for drifts of both signs and none. */
static void test_sample_rule_undrift_exact(void **state) {
  (void)state;
  enum { N = 5000 };
  static double x[N], u[N];
  unsigned long r = 12345;
  for (int i = 0; i < N; i++) {
    r = r * 6364136223846793005UL + 1442695040888963407UL;
    x[i] = 2e-6 + 3e-6 * (double)(r >> 11) / 9007199254740992.0;
    u[i] = 100.0 * i / N + 1e-3 * (double)(r & 7);
  }
  x[3] = 9e-4;     /* early outliers */
  x[17] = 1e-7;
  x[N - 5] = 7e-4; /* late ones */
  x[N - 9] = 5e-8;
  double mean = 0, m2 = 0, mn = INFINITY, mx = -INFINITY;
  for (int i = 0; i < N; i++) {
    mean += x[i];
    mn = fmin(mn, x[i]);
    mx = fmax(mx, x[i]);
  }
  mean /= N;
  for (int i = 0; i < N; i++)
    m2 += (x[i] - mean) * (x[i] - mean);
  static const double cs[] = {1e-5, -1e-5, 3e-3, 0.0};
  for (size_t t = 0; t < sizeof cs / sizeof *cs; t++) {
    double c = cs[t], k = 2e-6;
    rp_lstat st;
    rp_ldrift d;
    rp_lstat_init(&st);
    rp_ldrift_init(&d);
    for (int i = 0; i < N; i++) {
      double raw = x[i] - c * u[i] - k;
      rp_ldrift_add(&d, &st, raw, u[i], 1);
      rp_lstat_add(&st, raw, 8, 1);
    }
    double shift = rp_lstat_undrift(&st, &d, c, k);
    assert_near(shift, c * 50.0 + k, fabs(c) * 0.1 + 1e-12);
    assert_near(st.mean, mean, 1e-12);
    assert_near(rp_lstat_sd(&st), sqrt(m2 / (N - 1)), 1e-11);
    assert_near(st.min, mn, 1e-12);
    assert_near(st.max, mx, 1e-12);
    assert_true(d.lo.n <= RP_LHULL_N && d.hi.n <= RP_LHULL_N);
  }
}

/* The histogram follows: latencies x_i of 2-5 us (median 3.5 us) taken
 * with clocks drifting by c per second over 100 s (measured x_i - c u_i -
 * k, up to 10 us more), or shifted by a constant only: corrected, the
 * histogram keeps its count, at least 80 % of it lies in the buckets of
 * 2-5 us (at most 30 % did before), and its median is within one bucket
 * width (a factor 10^(1/4)) of the x_i's, where the uncorrected one was
 * not. */
static void test_sample_rule_undrift_histogram(void **state) {
  (void)state;
  enum { N = 4000 };
  static const double cs[] = {-1e-7, -5e-8, 0.0}, ks[] = {0.0, -1e-6, -6e-6};
  for (size_t t = 0; t < sizeof cs / sizeof *cs; t++) {
    unsigned long r = 777;
    rp_lstat st;
    rp_ldrift d;
    rp_lstat_init(&st);
    rp_ldrift_init(&d);
    for (int i = 0; i < N; i++) {
      r = r * 6364136223846793005UL + 1442695040888963407UL;
      double x = 2e-6 + 3e-6 * (double)(r >> 11) / 9007199254740992.0;
      double u = 100.0 * i / N, raw = x - cs[t] * u - ks[t];
      rp_ldrift_add(&d, &st, raw, u, 1);
      rp_lstat_add(&st, raw, 8, 1);
    }
    double before = rp_lstat_median(&st), total = 0.0, in = 0.0, in0 = 0.0;
    for (int b = rp_lhist_bucket(2e-6); b <= rp_lhist_bucket(5e-6); b++)
      in0 += st.hist[b];
    rp_lstat_undrift(&st, &d, cs[t], ks[t]);
    double after = rp_lstat_median(&st), w = pow(10.0, 0.25);
    for (int b = 0; b < RP_LHIST_N; b++)
      total += st.hist[b];
    for (int b = rp_lhist_bucket(2e-6); b <= rp_lhist_bucket(5e-6); b++)
      in += st.hist[b];
    assert_near(total, N, 1e-9);
    if (!(in >= 0.8 * N) || !(in0 <= 0.3 * N)) /* 86-100 %; 0-23 % */
      fail_msg("case %zu: %.3f of the samples in the buckets of 2-5 us "
               "(%.3f before the correction)", t, in / N, in0 / N);
    if (!(after > 3.5e-6 / w && after < 3.5e-6 * w))
      fail_msg("case %zu: corrected median %g s, want 3.5e-6 within a "
               "bucket", t, after);
    if (before > 3.5e-6 / w && before < 3.5e-6 * w)
      fail_msg("case %zu: uncorrected median %g s: not a test", t, before);
  }
}

/* The hulls: for any c the extreme of x + c u over their vertices is the
 * extreme over all points, checked against the brute force on random
 * points (a few vertices: the cap is not reached); at the cap the
 * extreme found is within the removed vertices' distance to the hull. */
static void test_sample_rule_hull_extremes(void **state) {
  (void)state;
  enum { N = 2000 };
  static double u[N], x[N];
  unsigned long r = 99;
  rp_lhull lo = {0}, hi = {0};
  for (int i = 0; i < N; i++) {
    r = r * 6364136223846793005UL + 1442695040888963407UL;
    u[i] = (double)i;
    x[i] = (double)(r >> 11) / 9007199254740992.0;
    rp_lhull_add(&lo, u[i], x[i], 0);
    rp_lhull_add(&hi, u[i], x[i], 1);
  }
  for (double c = -0.01; c <= 0.01; c += 0.00037) {
    double mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < N; i++) {
      mn = fmin(mn, x[i] + c * u[i]);
      mx = fmax(mx, x[i] + c * u[i]);
    }
    assert_near(rp_lhull_extreme(&lo, c, 0), mn, 1e-9);
    assert_near(rp_lhull_extreme(&hi, c, 1), mx, 1e-9);
  }
  /* a convex curve: every point is a vertex of its lower hull, the cap
     drops the vertex whose neighbours are the closest in u; the minimum
     stays within what the dropped ones added */
  rp_lhull h = {0};
  for (int i = 0; i <= 100; i++) {
    double v = (i - 50) / 50.0;
    rp_lhull_add(&h, v, v * v, 0);
  }
  assert_int_equal(h.n, RP_LHULL_N);
  assert_near(h.u[0], -1.0, 0);
  assert_near(h.u[h.n - 1], 1.0, 0);
  for (double c = -2.0; c <= 2.0; c += 0.25) /* min of v^2 + c v: -c^2/4 */
    assert_near(rp_lhull_extreme(&h, c, 0), -c * c / 4.0, 0.02);
  rp_lhull empty = {0};
  assert_true(isnan(rp_lhull_extreme(&empty, 1.0, 0)));
}

/* The drift rate: the offset's change over the span, none within the
 * measurements' uncertainty (one clock, or a round trip that hides it). */
static void test_sample_rule_drift_rate(void **state) {
  (void)state;
  assert_near(rp_drift_rate(1.0, 1.001, 1e-6, 1e-6, 100.0), 1e-5, 1e-15);
  assert_near(rp_drift_rate(1.0, 0.999, 1e-6, 1e-6, 100.0), -1e-5, 1e-15);
  assert_near(rp_drift_rate(0.0, 0.0, 0.0, 0.0, 100.0), 0.0, 0);
  assert_near(rp_drift_rate(1.0, 1.0 + 4e-6, 5e-6, 4e-6, 10.0), 0.0, 0);
  assert_near(rp_drift_rate(1.0, 2.0, 0.0, 0.0, 0.0), 0.0, 0);
  assert_near(rp_drift_rate(1.0, NAN, 0.0, 0.0, 1.0), 0.0, 0);
  /* no drift and no constant: the statistics are untouched */
  rp_lstat st;
  rp_ldrift d;
  rp_lstat_init(&st);
  rp_ldrift_init(&d);
  rp_ldrift_add(&d, &st, 1e-6, 1.0, 1);
  rp_lstat_add(&st, 1e-6, 8, 1);
  rp_lstat before = st;
  assert_near(rp_lstat_undrift(&st, &d, 0.0, 0.0), 0.0, 0);
  assert_memory_equal(&st, &before, sizeof st);
}

/* The histogram's median is in the true median's bucket or within one
 * bucket width of it. */
static void check_median(const double *x, int n) {
  rp_lstat s;
  rp_lstat_init(&s);
  double *v = malloc((size_t)n * sizeof *v);
  assert_non_null(v);
  for (int i = 0; i < n; i++) {
    rp_lstat_add(&s, x[i], 0, 1);
    v[i] = x[i];
  }
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  int k = rp_lhist_bucket(med);
  double width = rp_lhist_hi(k) - rp_lhist_lo(k);
  double got = rp_lstat_median(&s);
  if (!(fabs(got - med) <= width))
    fail_msg("median %.6g from the histogram, %.6g exact (bucket %d, width "
             "%.3g)", got, med, k, width);
  assert_true(got >= s.min && got <= s.max);
  free(v);
}

static void test_sample_rule_median_within_a_bucket(void **state) {
  (void)state;
  enum { N = 10001 };
  static double x[N];
  for (int i = 0; i < N; i++) /* log-uniform over [1 us, 10 ms) */
    x[i] = latency_of(i);
  check_median(x, N);
  for (int i = 0; i < N; i++) /* uniform over [20, 30) us */
    x[i] = 20e-6 + 10e-6 * (double)((i * 7919) % N) / N;
  check_median(x, N);
  for (int i = 0; i < N; i++) /* most below 1e-7 s, some above 10 s */
    x[i] = i < N / 2 + 10 ? 1e-8 * (1.0 + i % 7) : 12.0 + i % 3;
  check_median(x, N);
  /* a known answer: 100 messages evenly over [1e-6, 1.7782e-6) (bucket 5):
     the median is half way through it */
  rp_lstat s;
  rp_lstat_init(&s);
  for (int i = 0; i < 100; i++)
    rp_lstat_add(&s, 1e-6 + (i + 0.5) * (rp_lhist_hi(5) - 1e-6) / 100, 0, 1);
  assert_near(s.hist[5], 100, 0);
  assert_rel(rp_lstat_median(&s), 0.5 * (s.min + s.max), 1e-9);
}

/* --------------------------------------------------------------- analyses */

static void test_sample_rule_analysis_parse(void **state) {
  (void)state;
  static const struct {
    const char *text;
    unsigned mask;
    const char *canon;
  } ok[] = {{"off", 0, "off"},
            {"stat", RP_ANALYSIS_STAT, "stat"},
            {"freq", RP_ANALYSIS_FREQ, "freq"},
            {"write", RP_ANALYSIS_WRITE, "write"},
            {"freq,stat", RP_ANALYSIS_STAT | RP_ANALYSIS_FREQ, "stat,freq"},
            {"write,freq,stat", 7, "stat,freq,write"}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    unsigned m = 99;
    char err[256] = "", buf[32];
    assert_int_equal(rp_analysis_parse(ok[i].text, &m, err, sizeof err), 0);
    assert_int_equal(m, ok[i].mask);
    rp_analysis_format(m, buf, sizeof buf);
    assert_string_equal(buf, ok[i].canon);
  }
  static const struct {
    const char *text, *why;
  } bad[] = {{"", "unknown analysis \"\""},
             {"stats", "unknown analysis \"stats\""},
             {"stat,", "unknown analysis \"\""},
             {"stat, freq", "unknown analysis \" freq\""},
             {"STAT", "unknown analysis \"STAT\""},
             {"off,stat", "\"off\" goes alone"},
             {"stat,off", "\"off\" goes alone"},
             {"stat,stat", "\"stat\" twice"},
             {"a,b,c,d,e,f,g,h,i", "too many items"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    unsigned m = 5;
    char err[256] = "", want[64];
    assert_int_equal(rp_analysis_parse(bad[i].text, &m, err, sizeof err),
                     REVPROF_EINVAL);
    snprintf(want, sizeof want, "REVPROF_ANALYSIS=\"%s\": ", bad[i].text);
    if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, bad[i].why))
      fail_msg("\"%s\": message \"%s\", expected \"%s...%s\"", bad[i].text,
               err, want, bad[i].why);
    assert_int_equal(m, 5); /* untouched */
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sample_rule_parse_accepts_every_form),
      cmocka_unit_test(test_sample_rule_parse_rejects_bad_values),
      cmocka_unit_test(test_sample_rule_format_reads_back),
      cmocka_unit_test(test_sample_rule_counter_every_nth),
      cmocka_unit_test(test_sample_rule_counter_jitter),
      cmocka_unit_test(test_sample_rule_timer_one_per_period),
      cmocka_unit_test(test_sample_rule_timer_jitter),
      cmocka_unit_test(test_sample_rule_timer_bursts),
      cmocka_unit_test(test_sample_rule_random),
      cmocka_unit_test(test_sample_rule_random_gaps),
      cmocka_unit_test(test_sample_rule_seed_differs_per_rank),
      cmocka_unit_test(test_sample_rule_set_switches_mid_stream),
      cmocka_unit_test(test_sample_rule_init_and_free),
      cmocka_unit_test(test_sample_rule_skip_same_choices),
      cmocka_unit_test(test_sample_rule_size_class_boundaries),
      cmocka_unit_test(test_sample_rule_lhist_boundaries),
      cmocka_unit_test(test_sample_rule_welford_matches_two_pass),
      cmocka_unit_test(test_sample_rule_merge_halves_equals_whole),
      cmocka_unit_test(test_sample_rule_median_within_a_bucket),
      cmocka_unit_test(test_sample_rule_undrift_exact),
      cmocka_unit_test(test_sample_rule_undrift_histogram),
      cmocka_unit_test(test_sample_rule_hull_extremes),
      cmocka_unit_test(test_sample_rule_drift_rate),
      cmocka_unit_test(test_sample_rule_analysis_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
