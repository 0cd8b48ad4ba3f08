/* Unit tests of the model's BOI's figures (revprof/rp_monitor_cal.c): the
 * model's message time, the timed filter and row costs, and the
 * front-end's rows added at the root. */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_monitor_cal.h"
#include "rp_test.h"

/* MPI_Send 1 us + 1 ns/B, MPI_Recv 2 us + 0.5 ns/B: the longer of the two */
static const char *model_text =
    "local function lin(c, k) return { { dmin = 0, n = 0, form = { '1', "
    "'d' }, avg = { c, k }, min = { c, k }, max = { c, k } } } end\n"
    "return { format = 'revprof-model 1', machine = { name = 't', mpi = "
    "'none', date = '2026-01-01', ranks = 2, notes = '' }, method = "
    "'default', functions = { MPI_Send = lin(1e-6, 1e-9), MPI_Recv = "
    "lin(2e-6, 5e-10) } }\n";

static revprof_model *load(void) {
  revprof_model *m = NULL;
  char err[512] = "";
  if (revprof_model_load_string(model_text, "cal.lua", &m, err, sizeof err))
    fail_msg("model: %s", err);
  return m;
}

static void test_monitor_cal_msg(void **state) {
  (void)state;
  revprof_model *m = load();
  assert_near(rp_mon_model_msg(0.0, m), 2e-6, 1e-15); /* Recv longer */
  /* 1e-6 + 1e-9 d = 2e-6 + 5e-10 d at d = 2000; beyond, Send is longer */
  assert_near(rp_mon_model_msg(4000.0, m), 1e-6 + 4e-6, 1e-15);
  revprof_model_free(m);
}

static void test_monitor_cal_timed(void **state) {
  (void)state;
  for (int f = RP_MON_STATS; f <= RP_MON_HIST; f++) {
    double e = rp_mon_time_filter(f), r = rp_mon_time_row(f);
    /* timed: positive and finite, whatever the machine's speed */
    if (!(e > 0.0 && isfinite(e)) || !(r > 0.0 && isfinite(r)))
      fail_msg("filter %d: %g s per event, %g s per row", f, e, r);
  }
}

/* the root's rows come on top of the rule's prediction, nowhere else */
static void test_monitor_cal_predict(void **state) {
  (void)state;
  revprof_model *m = load();
  rp_mon_pred with, without;
  rp_mon_predict_model(m, 1, 1, 1, 16, RP_MON_STATS, 0, &with);
  rp_mon_predict_x(1, 1, 1, 16, RP_MON_STATS, rp_mon_model_msg, m,
                   rp_mon_time_filter(RP_MON_STATS), 0.0, 0, &without);
  assert_true(with.boi > without.boi);
  assert_near(with.oc, without.oc, 0);
  /* the difference is the rows' (timed again: within a factor) */
  double rows = 16 * rp_mon_time_row(RP_MON_STATS);
  assert_true(with.boi - without.boi > 0.0 && rows > 0.0);
  revprof_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_monitor_cal_msg),
      cmocka_unit_test(test_monitor_cal_timed),
      cmocka_unit_test(test_monitor_cal_predict),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
