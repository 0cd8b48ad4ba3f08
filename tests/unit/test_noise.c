/* Unit tests of the bounds of measured computation (revprof/rp_noise.c):
 * the spread taken from calibration samples, its floor and caps, the
 * time-sharing ratio, and the widening of a measured amount. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>

#include <cmocka.h>

#include "rp_noise.h"

static void test_noise_quiet_host_gets_floor(void **state) {
  (void)state;
  double cpu[11], wall[11];
  for (int i = 0; i < 11; i++) {
    cpu[i] = 1e-3 * (1.0 + 0.001 * (i % 3)); /* 0.2 % jitter */
    wall[i] = cpu[i];
  }
  rp_noise nz;
  rp_noise_from_samples(cpu, wall, 11, 0.05, &nz);
  assert_float_equal(nz.lo, 0.05, 1e-12);
  assert_float_equal(nz.hi, 0.05, 1e-12);
  assert_float_equal(nz.busy, 1.0, 1e-12);
}

static void test_noise_spread_from_quantiles(void **state) {
  (void)state;
  /* 0.8, 0.9, 1.0 x 7, 1.2, 1.5 (ms): median 1.0, q10 0.9, q90 1.2 */
  double cpu[11] = {1.5, 1.0, 0.8, 1.0, 1.0, 1.2, 1.0, 0.9, 1.0, 1.0, 1.0};
  for (int i = 0; i < 11; i++)
    cpu[i] *= 1e-3;
  rp_noise nz;
  rp_noise_from_samples(cpu, NULL, 11, 0.01, &nz);
  assert_float_equal(nz.lo, 0.1, 1e-9);
  assert_float_equal(nz.hi, 0.2, 1e-9);
  assert_float_equal(nz.busy, 0.0, 0.0); /* no wall times */
}

static void test_noise_caps(void **state) {
  (void)state;
  double cpu[5] = {1e-6, 1e-3, 1e-3, 1e-3, 1.0};
  rp_noise nz;
  rp_noise_from_samples(cpu, NULL, 5, 0.05, &nz);
  assert_float_equal(nz.lo, RP_NOISE_LO_CAP, 1e-12);
  assert_float_equal(nz.hi, RP_NOISE_HI_CAP, 1e-12);
}

static void test_noise_time_sharing_ratio(void **state) {
  (void)state;
  double cpu[5] = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
  double wall[5] = {2e-3, 2.1e-3, 1.9e-3, 2e-3, 4e-3};
  rp_noise nz;
  rp_noise_from_samples(cpu, wall, 5, 0.05, &nz);
  assert_float_equal(nz.busy, 2.0, 1e-9);
}

static void test_noise_bad_samples_ignored(void **state) {
  (void)state;
  double cpu[6] = {0.0, -1.0, NAN, INFINITY, 1e-3, 1e-3};
  rp_noise nz;
  rp_noise_from_samples(cpu, NULL, 6, 0.07, &nz); /* 2 usable: too few */
  assert_float_equal(nz.lo, 0.07, 0.0);
  assert_float_equal(nz.hi, 0.07, 0.0);
  assert_float_equal(nz.busy, 0.0, 0.0);
}

static void test_noise_widen(void **state) {
  (void)state;
  rp_noise nz = {0.1, 0.25, 1.0};
  double dt[RP_NB] = {2.0, 2.0, 2.0};
  rp_noise_widen(dt, &nz);
  assert_float_equal(dt[RP_MIN], 1.8, 1e-12);
  assert_float_equal(dt[RP_AVG], 2.0, 0.0);
  assert_float_equal(dt[RP_MAX], 2.5, 1e-12);
}

static double fake_t;
static double fake_clock(void) { return fake_t += 1e-4; }

static void test_noise_calibrate_fills_spread(void **state) {
  (void)state;
  rp_noise nz;
  rp_noise_calibrate(fake_clock, fake_clock, RP_NOISE_FLOOR, &nz); /* every rep 1e-4 s */
  assert_float_equal(nz.lo, RP_NOISE_FLOOR, 1e-9);
  assert_float_equal(nz.hi, RP_NOISE_FLOOR, 1e-9);
  assert_true(nz.busy > 2.9 && nz.busy < 3.1); /* wall spans 3 ticks */
}

static void test_noise_gap_less_tool(void **state) {
  (void)state;
  assert_float_equal(rp_gap_less_tool(5e-6, 1.5e-6), 3.5e-6, 1e-18);
  assert_float_equal(rp_gap_less_tool(1e-6, 1.5e-6), 0.0, 0.0); /* clamped */
  assert_float_equal(rp_gap_less_tool(2e-6, -1.0), 2e-6, 0.0);  /* no tool */
  assert_float_equal(rp_gap_less_tool(NAN, 0.0), 0.0, 0.0);
}

static double step_t;
static int step_n;
/* a clock whose successive reads differ by 2 us, with one 1 ms outlier */
static double step_clock(void) {
  step_t += ++step_n == 40 ? 1e-3 : 2e-6;
  return step_t;
}

static void test_noise_read_cost_median(void **state) {
  (void)state;
  assert_float_equal(rp_read_cost(step_clock), 2e-6, 1e-12);
}

static void test_noise_gap_clock_choice(void **state) {
  (void)state;
  int run = 0;
  /* a few quick calls (MPI_Comm_rank, MPI_Barrier, MPI_Wtime) before a
     computation: the CPU clock is still read around it */
  for (int k = 0; k < RP_GAP_CPU_RUN - 1; k++)
    assert_int_equal(rp_gap_wants_cpu(RP_GAP_CPU_MIN * 0.99, &run), 1);
  /* a loop of polls: the cheap clock only, for as long as it spins */
  assert_int_equal(rp_gap_wants_cpu(1e-7, &run), 0);
  assert_int_equal(rp_gap_wants_cpu(1e-7, &run), 0);
  assert_int_equal(run, RP_GAP_CPU_RUN);
  /* one long gap: the CPU clock again */
  assert_int_equal(rp_gap_wants_cpu(RP_GAP_CPU_MIN, &run), 1);
  assert_int_equal(run, 0);
  rp_gap_tool t = {.wall = 30e-9, .cpu = 1e-6, .wrap = 20e-9};
  /* short gap, monotonic clock: less one wall read and the bookkeeping */
  assert_float_equal(rp_gap_charge(150e-9, 0, 0.0, -1.0, &t), 100e-9, 1e-15);
  /* long gap, CPU clock: less one CPU read and the bookkeeping */
  assert_float_equal(rp_gap_charge(2e-3, 1, 1.5e-3, -1.0, &t), 1.5e-3 - 1e-6 - 20e-9,
                     1e-15);
  /* never more than the time that passed */
  assert_float_equal(rp_gap_charge(1e-3, 1, 5e-3, -1.0, &t), 1e-3 - 30e-9 - 20e-9,
                     1e-15);
  /* an empty gap is all revprof: 0, never negative */
  assert_float_equal(rp_gap_charge(40e-9, 0, 0.0, -1.0, &t), 0.0, 0.0);
  assert_float_equal(rp_gap_charge(1e-6, 1, 0.5e-6, -1.0, &t), 0.0, 0.0);
  /* a long gap after a run of short ones (monotonic clock at its start):
     9 ms passed, but the rank had only 0.4 ms of CPU since the CPU clock's
     last read: it was descheduled, and at most 0.4 ms was computation */
  assert_float_equal(rp_gap_charge(9e-3, 0, 0.0, 0.4e-3, &t),
                     0.4e-3 - 1e-6 - 20e-9, 1e-15);
  /* the bound only lowers: a gap that had the CPU is charged in full */
  assert_float_equal(rp_gap_charge(2e-3, 0, 0.0, 5e-3, &t),
                     2e-3 - 30e-9 - 20e-9, 1e-15);
  /* a CPU bound is not used where the CPU clock timed the gap itself */
  assert_float_equal(rp_gap_charge(2e-3, 1, 1.5e-3, 0.1e-3, &t),
                     1.5e-3 - 1e-6 - 20e-9, 1e-15);
}

/* The cycle counter times gaps only where it ticks at a fixed rate. */
static void test_noise_tsc_usable_needs_both_flags(void **state) {
  (void)state;
  assert_int_equal(rp_tsc_usable("flags\t\t: fpu tsc constant_tsc rep_good "
                                 "nopl nonstop_tsc cpuid\n"),
                   1);
  assert_int_equal(rp_tsc_usable("flags : constant_tsc nonstop_tsc"), 1);
  assert_int_equal(rp_tsc_usable("flags : fpu tsc constant_tsc cpuid"), 0);
  assert_int_equal(rp_tsc_usable("flags : tsc nonstop_tsc"), 0);
  /* a longer word that contains the flag is not the flag */
  assert_int_equal(rp_tsc_usable("flags : xconstant_tsc nonstop_tscx"), 0);
  assert_int_equal(rp_tsc_usable(""), 0);
  assert_int_equal(rp_tsc_usable(NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_noise_quiet_host_gets_floor),
      cmocka_unit_test(test_noise_spread_from_quantiles),
      cmocka_unit_test(test_noise_caps),
      cmocka_unit_test(test_noise_time_sharing_ratio),
      cmocka_unit_test(test_noise_bad_samples_ignored),
      cmocka_unit_test(test_noise_widen),
      cmocka_unit_test(test_noise_calibrate_fills_spread),
      cmocka_unit_test(test_noise_gap_less_tool),
      cmocka_unit_test(test_noise_read_cost_median),
      cmocka_unit_test(test_noise_gap_clock_choice),
      cmocka_unit_test(test_noise_tsc_usable_needs_both_flags),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
