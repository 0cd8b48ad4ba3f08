/* Unit tests of the instrumentation cost model's rules
 * (revprof/rp_icost_rule.c, seed 002): the settings, the cost arithmetic,
 * a previous run's profile, the regulation with its hysteresis, the choice
 * of what to turn off and the sampling rate's steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_icost_rule.h"
#include "rp_test.h"

static void test_icost_kind_names_read_back(void **state) {
  (void)state;
  for (int k = 0; k < RP_IC_KINDS; k++)
    assert_int_equal(rp_ic_kind_of(rp_ic_kind_name(k)), k);
  assert_int_equal(rp_ic_kind_of("total"), -1);
  assert_int_equal(rp_ic_kind_of(NULL), -1);
  assert_string_equal(rp_ic_kind_name(RP_IC_KINDS), "?");
}

/* The seed's static rates, and REVPROF_COST_RATES over them. */
static void test_icost_rates(void **state) {
  (void)state;
  double r[RP_IC_KINDS];
  char err[256] = "";
  rp_ic_static_rates(r);
  assert_near(r[RP_IC_MPI], 100.0, 0);
  assert_near(r[RP_IC_REGION], 1000.0, 0);
  assert_near(r[RP_IC_FUNCTION], 1000.0, 0);
  assert_near(r[RP_IC_SKIPPED], 0.0, 0);
  assert_int_equal(rp_ic_rates_parse("region=2e4,mpi=0", r, err, sizeof err),
                   0);
  assert_near(r[RP_IC_REGION], 2e4, 0);
  assert_near(r[RP_IC_MPI], 0.0, 0);
  assert_near(r[RP_IC_FUNCTION], 1000.0, 0);
  static const char *const bad[] = {"region", "regions=5", "region=-1",
                                    "region=x", "mpi=1,=3", "region=1e999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    double before = r[RP_IC_REGION];
    err[0] = '\0';
    assert_int_equal(rp_ic_rates_parse(bad[i], r, err, sizeof err),
                     REVPROF_EINVAL);
    assert_near(r[RP_IC_REGION], before, 0); /* untouched */
    if (strstr(err, "REVPROF_COST_RATES") == NULL)
      fail_msg("\"%s\": message \"%s\" does not name the variable", bad[i],
               err);
  }
}

static void test_icost_bound_parse(void **state) {
  (void)state;
  double b = -1.0;
  char err[256] = "";
  assert_int_equal(rp_ic_bound_parse("5%", &b, err, sizeof err), 0);
  assert_near(b, 0.05, 1e-15);
  assert_int_equal(rp_ic_bound_parse("0.5%", &b, err, sizeof err), 0);
  assert_near(b, 0.005, 1e-15);
  assert_int_equal(rp_ic_bound_parse("100%", &b, err, sizeof err), 0);
  assert_near(b, 1.0, 0);
  assert_int_equal(rp_ic_bound_parse("off", &b, err, sizeof err), 0);
  assert_near(b, 0.0, 0);
  assert_int_equal(rp_ic_bound_parse("", &b, err, sizeof err), 0);
  assert_near(b, 0.0, 0);
  static const char *const bad[] = {"5", "0.05", "%", "0%", "-1%", "101%",
                                    "five%", "5 %"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err[0] = '\0';
    assert_int_equal(rp_ic_bound_parse(bad[i], &b, err, sizeof err),
                     REVPROF_EINVAL);
    if (strstr(err, "REVPROF_MAX_OVERHEAD") == NULL)
      fail_msg("\"%s\": message \"%s\"", bad[i], err);
  }
}

/* Predicted and observed cost are the same sum: events x cost / time. */
static void test_icost_share(void **state) {
  (void)state;
  double cost[RP_IC_KINDS] = {[RP_IC_MPI] = 1e-6, [RP_IC_REGION] = 1e-7,
                              [RP_IC_SAMPLE] = 2e-6};
  double n[RP_IC_KINDS] = {[RP_IC_MPI] = 1000, [RP_IC_REGION] = 1e5,
                           [RP_IC_SAMPLE] = 10};
  /* 1e-3 + 1e-2 + 2e-5 seconds over 0.5 s */
  assert_near(rp_ic_share(n, cost, 0.5), (1e-3 + 1e-2 + 2e-5) / 0.5, 1e-15);
  assert_near(rp_ic_share(n, cost, 0.0), 0.0, 0);
  assert_near(rp_ic_share(n, cost, -1.0), 0.0, 0);
  /* the static rates: 100 MPI calls and 1000 regions per second */
  double r[RP_IC_KINDS];
  rp_ic_static_rates(r);
  assert_near(rp_ic_share(r, cost, 1.0), 100 * 1e-6 + 1000 * 1e-7, 1e-15);
}

static void test_icost_sample_fraction(void **state) {
  (void)state;
  rp_sample_spec s = {0};
  assert_near(rp_ic_sample_fraction(&s, 100), 0.0, 0);
  s.kind = RP_SAMPLE_ALL;
  assert_near(rp_ic_sample_fraction(&s, 100), 1.0, 0);
  s.kind = RP_SAMPLE_RANDOM;
  s.p = 0.01;
  assert_near(rp_ic_sample_fraction(&s, 100), 0.01, 0);
  s.kind = RP_SAMPLE_COUNTER;
  s.n = 8;
  assert_near(rp_ic_sample_fraction(&s, 100), 0.125, 0);
  s.kind = RP_SAMPLE_TIMER;
  s.period = 0.1; /* one per 0.1 s of 100 messages per second */
  assert_near(rp_ic_sample_fraction(&s, 100), 0.1, 1e-15);
  assert_near(rp_ic_sample_fraction(&s, 1), 1.0, 0); /* at most all */
  assert_near(rp_ic_sample_fraction(&s, 0), 0.0, 0);
}

static void test_icost_profile_parse(void **state) {
  (void)state;
  double *r = NULL;
  char err[256] = "";
  const char *csv =
      "rank,kind,count,cost_per_event_s,elapsed_s,observed_pct\n"
      "0,mpi,200,1e-6,2,0.01\n"
      "0,region,4000,1e-7,2,0.02\n"
      "1,mpi,50,1e-6,0.5,0.01\n"
      "1,total,,,0.5,0.01\n"
      "all,mpi,250,,,\n";
  int n = rp_ic_profile_parse(csv, &r, NULL, err, sizeof err);
  assert_int_equal(n, 2);
  assert_near(r[0 * RP_IC_KINDS + RP_IC_MPI], 100.0, 1e-12);
  assert_near(r[0 * RP_IC_KINDS + RP_IC_REGION], 2000.0, 1e-12);
  assert_near(r[1 * RP_IC_KINDS + RP_IC_MPI], 100.0, 1e-12);
  assert_near(r[1 * RP_IC_KINDS + RP_IC_REGION], 0.0, 0);
  free(r);
  /* columns in another order, CRLF line ends */
  n = rp_ic_profile_parse("kind,elapsed_s,rank,count\r\nfunction,4,0,8\r\n",
                          &r, NULL, err, sizeof err);
  assert_int_equal(n, 1);
  assert_near(r[RP_IC_FUNCTION], 2.0, 0);
  free(r);
  static const char *const bad[] = {
      "", "rank,kind,count\n0,mpi,1\n", "rank,kind,count,elapsed_s\n",
      "rank,kind,count,elapsed_s\n0,mpi,1,0\n",
      "rank,kind,count,elapsed_s\n0,mpi,x,1\n",
      "rank,kind,count,elapsed_s\n-1,mpi,1,1\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    r = (double *)1;
    err[0] = '\0';
    assert_int_equal(rp_ic_profile_parse(bad[i], &r, NULL, err, sizeof err),
                     REVPROF_EINVAL);
    assert_null(r);
    assert_true(err[0] != '\0');
  }
  rp_ic_profile_parse("rank,kind,count,elapsed_s\n0,mpi,1,1\n0,mpi,x,1\n",
                      &r, NULL, err, sizeof err);
  if (strstr(err, "line 3") == NULL)
    fail_msg("message \"%s\" does not name line 3", err);
  /* the costs a run timed from its own events: offloads and Lua calls
     with events; calibrated ones, and kinds without events, are not */
  double *c = NULL;
  n = rp_ic_profile_parse(
      "rank,kind,count,cost_per_event_s,elapsed_s,cost_from\n"
      "0,mpi,10,1e-7,1,model\n"
      "0,offload,3,2e-4,1,offloads\n"
      "0,lua,0,0,1,timed-calls\n"
      "1,lua,64,3e-6,1,timed-calls\n"
      "1,offload,2,nan,1,offloads\n",
      &r, &c, err, sizeof err);
  assert_int_equal(n, 2);
  assert_near(c[RP_IC_OFFLOAD], 2e-4, 0);
  assert_near(c[RP_IC_MPI], -1.0, 0);
  assert_near(c[RP_IC_LUA], -1.0, 0);
  assert_near(c[RP_IC_KINDS + RP_IC_LUA], 3e-6, 0);
  assert_near(c[RP_IC_KINDS + RP_IC_OFFLOAD], -1.0, 0);
  assert_near(r[RP_IC_KINDS + RP_IC_LUA], 64.0, 0);
  free(r);
  free(c);
}

/* Lower at once over the bound; raise only after RP_IC_HOLD calm periods
 * in a row under RP_IC_LOW x bound, and only when something was lowered. */
static void test_icost_regulate_hysteresis(void **state) {
  (void)state;
  rp_ic_reg r = {0.05, 0};
  assert_int_equal(rp_ic_regulate(&r, 0.06, 0), RP_IC_LOWER);
  assert_int_equal(rp_ic_regulate(&r, 0.05, 1), RP_IC_KEEP); /* at bound */
  assert_int_equal(rp_ic_regulate(&r, 0.04, 1), RP_IC_KEEP); /* not calm */
  for (int i = 1; i < RP_IC_HOLD; i++)
    assert_int_equal(rp_ic_regulate(&r, 0.01, 1), RP_IC_KEEP);
  assert_int_equal(rp_ic_regulate(&r, 0.01, 1), RP_IC_RAISE);
  /* the count starts again after a raise, and a period in between resets
     it */
  assert_int_equal(rp_ic_regulate(&r, 0.01, 1), RP_IC_KEEP);
  assert_int_equal(rp_ic_regulate(&r, 0.03, 1), RP_IC_KEEP);
  for (int i = 1; i < RP_IC_HOLD; i++)
    assert_int_equal(rp_ic_regulate(&r, 0.01, 1), RP_IC_KEEP);
  assert_int_equal(rp_ic_regulate(&r, 0.01, 1), RP_IC_RAISE);
  /* nothing lowered: nothing to raise */
  for (int i = 0; i < 2 * RP_IC_HOLD; i++)
    assert_int_equal(rp_ic_regulate(&r, 0.0, 0), RP_IC_KEEP);
  /* no bound: never anything */
  rp_ic_reg off = {0.0, 0};
  assert_int_equal(rp_ic_regulate(&off, 10.0, 1), RP_IC_KEEP);
  assert_true(rp_ic_fits(0.01, 0.03, 0.05));   /* 0.04 <= 0.8 x 0.05 */
  assert_false(rp_ic_fits(0.02, 0.03, 0.05));  /* 0.05 > 0.04 */
}

/* The largest savings first, ties to the least time per call, until the
 * excess is covered; regions already off, idle or free never. */
static void test_icost_pick(void **state) {
  (void)state;
  rp_ic_cand c[] = {
      {1000, 1e-3, 1e-7, 0}, /* 1e-4 s */
      {1e5, 1e-7, 1e-7, 0},  /* 1e-2 s */
      {1e5, 1e-6, 1e-7, 0},  /* 1e-2 s, more time per call */
      {1e6, 1e-7, 1e-7, 1},  /* already off */
      {0, 1e-7, 1e-7, 0},    /* not called */
      {1e4, 1e-7, 1e-7, 0},  /* 1e-3 s */
  };
  size_t out[6], n = rp_ic_pick(c, 6, 1.5e-2, out, 6);
  assert_int_equal(n, 2);
  assert_int_equal(out[0], 1);
  assert_int_equal(out[1], 2);
  n = rp_ic_pick(c, 6, 1e-3, out, 6);
  assert_int_equal(n, 1);
  assert_int_equal(out[0], 1);
  n = rp_ic_pick(c, 6, 1.0, out, 6); /* everything there is */
  assert_int_equal(n, 4);
  assert_int_equal(out[2], 5);
  assert_int_equal(out[3], 0);
  assert_int_equal(rp_ic_pick(c, 6, 1.0, out, 1), 1); /* at most max */
  assert_int_equal(rp_ic_pick(c, 0, 1.0, out, 6), 0);
}

static void test_icost_sample_steps(void **state) {
  (void)state;
  rp_sample_spec all = {.kind = RP_SAMPLE_ALL}, s, t;
  assert_true(rp_ic_sample_lower(&all, &s));
  assert_int_equal(s.kind, RP_SAMPLE_RANDOM);
  assert_near(s.p, 0.5, 0);
  assert_true(rp_ic_sample_lower(&s, &t));
  assert_near(t.p, 0.25, 0);
  assert_true(rp_ic_sample_raise(&t, &all, &s));
  assert_near(s.p, 0.5, 0);
  assert_true(rp_ic_sample_raise(&s, &all, &t));
  assert_int_equal(t.kind, RP_SAMPLE_ALL);
  assert_false(rp_ic_sample_raise(&t, &all, &s)); /* back at the start */

  rp_sample_spec cnt = {.kind = RP_SAMPLE_COUNTER, .n = 3, .jitter = 2};
  assert_true(rp_ic_sample_lower(&cnt, &s));
  assert_int_equal(s.n, 6);
  assert_near(s.jitter, 4, 0);
  assert_int_equal(rp_sample_check(&s, NULL, 0), 0);
  assert_true(rp_ic_sample_raise(&s, &cnt, &t));
  assert_int_equal(t.n, 3);
  assert_near(t.jitter, 2, 0);
  assert_int_equal(rp_sample_check(&t, NULL, 0), 0);

  rp_sample_spec tm = {.kind = RP_SAMPLE_TIMER, .period = 0.01};
  assert_true(rp_ic_sample_lower(&tm, &s));
  assert_near(s.period, 0.02, 0);
  assert_true(rp_ic_sample_raise(&s, &tm, &t));
  assert_near(t.period, 0.01, 0);

  rp_sample_spec off = {.kind = RP_SAMPLE_OFF};
  assert_false(rp_ic_sample_lower(&off, &s));
  rp_sample_spec tiny = {.kind = RP_SAMPLE_RANDOM, .p = 1e-7};
  assert_false(rp_ic_sample_lower(&tiny, &s));
  rp_sample_spec big = {.kind = RP_SAMPLE_COUNTER, .n = RP_SAMPLE_COUNTER_MAX};
  assert_false(rp_ic_sample_lower(&big, &s));
  /* the user changed technique meanwhile: nothing to give back */
  assert_false(rp_ic_sample_raise(&cnt, &tm, &s));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_icost_kind_names_read_back),
      cmocka_unit_test(test_icost_rates),
      cmocka_unit_test(test_icost_bound_parse),
      cmocka_unit_test(test_icost_share),
      cmocka_unit_test(test_icost_sample_fraction),
      cmocka_unit_test(test_icost_profile_parse),
      cmocka_unit_test(test_icost_regulate_hysteresis),
      cmocka_unit_test(test_icost_pick),
      cmocka_unit_test(test_icost_sample_steps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
