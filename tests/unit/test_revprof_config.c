/* Unit tests of librevprof's settings (revprof/rp_config.c): defaults,
 * every variable, and the bad values docs/revprof.md promises to reject. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_config.h"
#include "rp_noise.h"
#include "rp_test.h"

/* A fake environment: NULL-terminated name, value pairs. */
static const char *table_get(const char *name, void *ud) {
  const char *const *kv = ud;
  for (; kv[0]; kv += 2)
    if (strcmp(kv[0], name) == 0)
      return kv[1];
  return NULL;
}

static int read_env(rp_config *c, const char *const *kv, char *err,
                    size_t len) {
  return rp_config_read(c, table_get, (void *)kv, err, len);
}

static void test_revprof_config_defaults(void **state) {
  (void)state;
  const char *kv[] = {"REVPROF_MODEL", "m.lua", NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.mode, RP_MODE_PREDICT);
  assert_int_equal(c.compute, RP_COMPUTE_AUTO);
  assert_near(c.step[RP_AVG], 1e-9, 0);
  assert_near(c.cpu_scale, 1.0, 0);
  assert_true(c.compute_spread < 0); /* unset: rp_compute_spread decides */
  assert_int_equal(c.wtime_real, 0);
  assert_int_equal(c.timer_monotonic, 0);
  assert_string_equal(c.outdir, "revprof-out");
  assert_string_equal(c.model, "m.lua");
  assert_string_equal(c.trace, "");
  assert_near(c.pack_max, -1.0, 0); /* the engine picks per MPI library */
  assert_int_equal(c.wildcard_real, 0); /* predicted order by default */
  /* active-target one-sided epochs at their group's load by default */
  assert_int_equal(c.contention, RP_CONTENTION_EPOCH);
  assert_int_equal(c.exchange_sendrecv, 0); /* REVPROF_EXCHANGE=latency */
  assert_near(c.wildcard_timeout, 0.2, 0);
  assert_near(c.wildcard_stall, 60.0, 0); /* a wait is said after a minute */
  /* sample mode: random:0.1, seed 1, stat and freq, gnuplot from PATH */
  assert_int_equal(c.sample.kind, RP_SAMPLE_RANDOM);
  assert_near(c.sample.p, 0.1, 0);
  assert_int_equal(c.seed, 1);
  assert_int_equal(c.analysis, RP_ANALYSIS_STAT | RP_ANALYSIS_FREQ);
  assert_string_equal(c.gnuplot, "gnuplot");
  assert_true(c.checkpoint < 0); /* auto */
}

/* REVPROF_CHECKPOINT: auto, off, 0 and seconds; the schedule of each. */
static void test_revprof_config_checkpoint(void **state) {
  (void)state;
  static const struct {
    const char *value;
    double setting;
  } ok[] = {{"auto", -1.0}, {"off", 0.0}, {"0", 0.0}, {"2.5", 2.5}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    const char *kv[] = {"REVPROF_MODEL", "m", "REVPROF_CHECKPOINT",
                        ok[i].value, NULL};
    rp_config c;
    char err[512] = "";
    assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
    assert_near(c.checkpoint, ok[i].setting, 0);
  }
  /* auto: 10 s first, doubling, at most 300 s */
  double gap = 0.0, want[] = {10, 20, 40, 80, 160, 300, 300};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    gap = rp_checkpoint_next(-1.0, gap);
    assert_near(gap, want[i], 0);
  }
  assert_near(rp_checkpoint_next(2.5, 0.0), 2.5, 0);
  assert_near(rp_checkpoint_next(2.5, 2.5), 2.5, 0);
  assert_true(isinf(rp_checkpoint_next(0.0, 0.0)));
}

/* REVPROF_MODE=sample needs no model; its settings are read. */
static void test_revprof_config_sample(void **state) {
  (void)state;
  const char *kv[] = {"REVPROF_MODE", "sample", "REVPROF_SAMPLE",
                      "counter:64:8", "REVPROF_SEED", "4294967295",
                      "REVPROF_ANALYSIS", "freq,write", "REVPROF_GNUPLOT", "",
                      NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.mode, RP_MODE_SAMPLE);
  assert_string_equal(rp_mode_name(c.mode), "sample");
  assert_int_equal(c.sample.kind, RP_SAMPLE_COUNTER);
  assert_int_equal(c.sample.n, 64);
  assert_near(c.sample.jitter, 8, 0);
  assert_int_equal(c.seed, 4294967295ul);
  assert_int_equal(c.analysis, RP_ANALYSIS_FREQ | RP_ANALYSIS_WRITE);
  assert_string_equal(c.gnuplot, ""); /* empty: no plot */
}

static void test_revprof_config_compute_spread(void **state) {
  (void)state;
  const char *from = NULL;
  assert_near(rp_compute_spread(0.2, 0.15, &from), 0.2, 0);
  assert_string_equal(from, "REVPROF_COMPUTE_SPREAD");
  assert_near(rp_compute_spread(-1.0, 0.15, &from), 0.15, 0);
  assert_non_null(strstr(from, "machine.compute_spread"));
  assert_near(rp_compute_spread(-1.0, -1.0, &from), RP_NOISE_FLOOR, 0);
  assert_string_equal(from, "default");
  assert_near(rp_compute_spread(0.0, 0.15, &from), 0.0, 0); /* 0 is a value */
}

static void test_revprof_config_compute_auto(void **state) {
  (void)state;
  const char *kv[] = {"REVPROF_MODEL", "m.lua", "REVPROF_COMPUTE", "auto",
                      NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.compute, RP_COMPUTE_AUTO);
  assert_string_equal(rp_compute_name(RP_COMPUTE_AUTO), "auto");
  /* each value its own mode (annotate was once read as auto) */
  static const struct {
    const char *v;
    rp_compute_mode k;
  } each[] = {{"zero", RP_COMPUTE_ZERO},
              {"annotate", RP_COMPUTE_ANNOTATE},
              {"measure", RP_COMPUTE_MEASURE},
              {"auto", RP_COMPUTE_AUTO}};
  for (size_t i = 0; i < sizeof each / sizeof *each; i++) {
    const char *kv2[] = {"REVPROF_MODEL", "m.lua", "REVPROF_COMPUTE", each[i].v,
                         NULL};
    assert_int_equal(read_env(&c, kv2, err, sizeof err), 0);
    assert_int_equal(c.compute, each[i].k);
    assert_string_equal(rp_compute_name(each[i].k), each[i].v);
  }
  /* an unmodified program is measured; a Lua cost file means annotations */
  assert_int_equal(rp_compute_resolve(RP_COMPUTE_AUTO, 0), RP_COMPUTE_MEASURE);
  assert_int_equal(rp_compute_resolve(RP_COMPUTE_AUTO, 1),
                   RP_COMPUTE_ANNOTATE);
  /* an explicit choice is kept */
  assert_int_equal(rp_compute_resolve(RP_COMPUTE_ZERO, 1), RP_COMPUTE_ZERO);
  assert_int_equal(rp_compute_resolve(RP_COMPUTE_MEASURE, 1),
                   RP_COMPUTE_MEASURE);
  assert_int_equal(rp_compute_resolve(RP_COMPUTE_ANNOTATE, 0),
                   RP_COMPUTE_ANNOTATE);
  /* only an auto run that measures switches at the first annotation */
  assert_int_equal(rp_compute_switches(1, RP_COMPUTE_MEASURE), 1);
  assert_int_equal(rp_compute_switches(1, RP_COMPUTE_ANNOTATE), 0);
  assert_int_equal(rp_compute_switches(0, RP_COMPUTE_MEASURE), 0);
}

static void test_revprof_config_every_variable(void **state) {
  (void)state;
  const char *kv[] = {"REVPROF_MODEL", "/x/m.lua", "REVPROF_MODE", "predict",
                      "REVPROF_COMPUTE", "measure", "REVPROF_STEP", "2e-9",
                      "REVPROF_STEP_MIN", "1e-9", "REVPROF_STEP_MAX", "5e-9",
                      "REVPROF_CPU_SCALE", "0.5", "REVPROF_LUA", "c.lua",
                      "REVPROF_OUTPUT_DIR", "out/dir", "REVPROF_TRACE",
                      "otf2,chrome", "REVPROF_WTIME", "real", "REVPROF_TIMER", "monotonic",
                      "REVPROF_QUIET", "1",
                      "REVPROF_PACK_MAX", "1024", "REVPROF_INSTRUCTION_TIME",
                      "3e-10", "REVPROF_WILDCARD", "real",
                      "REVPROF_WILDCARD_TIMEOUT", "0.05",
                      "REVPROF_WILDCARD_STALL", "0.5",
                      "REVPROF_CONTENTION", "world",
                      "REVPROF_EXCHANGE", "sendrecv", NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.compute, RP_COMPUTE_MEASURE);
  assert_near(c.step[RP_MIN], 1e-9, 0);
  assert_near(c.step[RP_AVG], 2e-9, 0);
  assert_near(c.step[RP_MAX], 5e-9, 0);
  assert_near(c.cpu_scale, 0.5, 0);
  assert_near(c.pack_max, 1024, 0);
  assert_near(c.sec_per_ins, 3e-10, 0);
  assert_int_equal(c.wtime_real, 1);
  assert_int_equal(c.timer_monotonic, 1);
  assert_int_equal(c.quiet, 1);
  assert_string_equal(c.lua, "c.lua");
  assert_string_equal(c.outdir, "out/dir");
  assert_string_equal(c.trace, "otf2,chrome");
  assert_int_equal(c.wildcard_real, 1);
  assert_near(c.wildcard_timeout, 0.05, 0);
  assert_near(c.wildcard_stall, 0.5, 0);
  assert_int_equal(c.contention, RP_CONTENTION_WORLD);
  assert_int_equal(c.exchange_sendrecv, 1);
}

static void test_revprof_config_off_needs_no_model(void **state) {
  (void)state;
  const char *kv[] = {"REVPROF_MODE", "off", NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.mode, RP_MODE_OFF);
}

/* The mode names, as REVPROF_MODE and revprof run's --mode read them:
   each one's mode, and its name back; others refused, *m untouched */
static void test_revprof_config_mode_names(void **state) {
  (void)state;
  const rp_mode all[] = {RP_MODE_PREDICT, RP_MODE_OFF, RP_MODE_COMPENSATE,
                         RP_MODE_SAMPLE};
  for (int i = 0; i < 4; i++) {
    rp_mode m = (rp_mode)-1;
    assert_int_equal(rp_mode_parse(rp_mode_name(all[i]), &m), 0);
    assert_int_equal(m, all[i]);
  }
  rp_mode m = RP_MODE_SAMPLE;
  assert_int_equal(rp_mode_parse("measure", &m), -1);
  assert_int_equal(rp_mode_parse("Predict", &m), -1);
  assert_int_equal(rp_mode_parse("", &m), -1);
  assert_int_equal(rp_mode_parse(NULL, &m), -1);
  assert_int_equal(m, RP_MODE_SAMPLE);
}

/* REVPROF_CONTENTION's three values (world: every_variable), and
 * REVPROF_EXCHANGE's latency (sendrecv: every_variable) */
static void test_revprof_config_contention(void **state) {
  (void)state;
  const char *names[] = {"off", "epoch"};
  const int want[] = {RP_CONTENTION_OFF, RP_CONTENTION_EPOCH};
  for (int i = 0; i < 2; i++) {
    const char *kv[] = {"REVPROF_MODEL", "m", "REVPROF_CONTENTION", names[i],
                        NULL};
    rp_config c;
    char err[512];
    assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
    assert_int_equal(c.contention, want[i]);
    assert_string_equal(rp_contention_name(c.contention), names[i]);
  }
  assert_string_equal(rp_contention_name(RP_CONTENTION_WORLD), "world");
  assert_string_equal(rp_contention_name(7), "?");
  const char *kv[] = {"REVPROF_MODEL", "m", "REVPROF_EXCHANGE", "sendrecv",
                      NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.exchange_sendrecv, 1);
  kv[3] = "latency";
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.exchange_sendrecv, 0);
}

/* Compensate mode: no model needed (calibration), unless the overhead
 * must come from one; the injection aid is read. */
static void test_revprof_config_compensate_settings(void **state) {
  (void)state;
  const char *kv[] = {"REVPROF_MODE", "compensate", "REVPROF_OVERHEAD",
                      "calibrate", "REVPROF_INJECT_OVERHEAD", "2e-6", NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_int_equal(c.mode, RP_MODE_COMPENSATE);
  assert_int_equal(c.overhead, RP_OVERHEAD_CALIBRATE);
  assert_near(c.inject, 2e-6, 0);
  assert_string_equal(rp_mode_name(c.mode), "compensate");
  const char *kv2[] = {"REVPROF_MODE", "compensate", "REVPROF_OVERHEAD",
                       "model", NULL};
  assert_int_equal(read_env(&c, kv2, err, sizeof err), REVPROF_EINVAL);
  assert_non_null(strstr(err, "needs REVPROF_MODEL"));
  const char *kv3[] = {"REVPROF_MODE", "compensate", NULL};
  assert_int_equal(read_env(&c, kv3, err, sizeof err), 0);
  assert_int_equal(c.overhead, RP_OVERHEAD_AUTO);
  assert_near(c.inject, 0, 0);
}

static void test_revprof_config_step_bounds_default_to_step(void **state) {
  (void)state;
  const char *kv[] = {"REVPROF_MODEL", "m", "REVPROF_STEP", "3e-9", NULL};
  rp_config c;
  char err[512];
  assert_int_equal(read_env(&c, kv, err, sizeof err), 0);
  assert_near(c.step[RP_MIN], 3e-9, 0);
  assert_near(c.step[RP_MAX], 3e-9, 0);
}

/* Each bad setting: rejected with a message naming the variable. */
static void test_revprof_config_rejects_bad_values(void **state) {
  (void)state;
  struct {
    const char *var, *value, *says;
  } bad[] = {
      {"REVPROF_MODE", "measure", "not implemented yet"},
      {"REVPROF_OVERHEAD", "guess", "'calibrate' or 'model'"},
      {"REVPROF_INJECT_OVERHEAD", "-1", "non-negative"},
      {"REVPROF_INJECT_OVERHEAD", "5", "at most 1 second"},
      {"REVPROF_MODE", "fast", "unknown mode"},
      {"REVPROF_COMPUTE", "guess", "auto, zero, annotate or measure"},
      {"REVPROF_STEP", "abc", "non-negative number"},
      {"REVPROF_STEP", "-1e-9", "non-negative"},
      {"REVPROF_STEP_MAX", "1e-12", "does not hold"},
      {"REVPROF_CPU_SCALE", "0", "positive"},
      {"REVPROF_COMPUTE_SPREAD", "-0.1", "non-negative"},
      {"REVPROF_COMPUTE_SPREAD", "0.9", "at most"},
      {"REVPROF_WTIME", "wall", "'real' or 'simulated'"},
      {"REVPROF_TIMER", "tsc", "'auto' or 'monotonic'"},
      {"REVPROF_QUIET", "yes", "'0' or '1'"},
      {"REVPROF_PACK_MAX", "1e9", "at most"},
      {"REVPROF_WILDCARD", "host", "predicted or real"},
      {"REVPROF_WILDCARD_TIMEOUT", "0", "positive number of seconds"},
      {"REVPROF_CONTENTION", "all", "epoch, world or off"},
      {"REVPROF_EXCHANGE", "pair", "latency or sendrecv"},
      {"REVPROF_WILDCARD_TIMEOUT", "soon", "positive number of seconds"},
      {"REVPROF_WILDCARD_STALL", "-1", "non-negative number of seconds"},
      {"REVPROF_WILDCARD_STALL", "later", "non-negative number of seconds"},
      {"REVPROF_SAMPLE", "random:2", "between 0 and 1"},
      {"REVPROF_SAMPLE", "sometimes", "REVPROF_SAMPLE"},
      {"REVPROF_SEED", "-1", "integer from 0 to 4294967295"},
      {"REVPROF_SEED", "4294967296", "integer from 0 to 4294967295"},
      {"REVPROF_SEED", "7x", "integer from 0 to 4294967295"},
      {"REVPROF_ANALYSIS", "stats", "REVPROF_ANALYSIS"},
      {"REVPROF_CHECKPOINT", "often", "auto, off, or seconds"},
      {"REVPROF_CHECKPOINT", "-5", "auto, off, or seconds"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const char *kv[] = {"REVPROF_MODEL", "m", bad[i].var, bad[i].value, NULL};
    rp_config c;
    char err[512] = "";
    assert_int_not_equal(read_env(&c, kv, err, sizeof err), 0);
    if (!strstr(err, bad[i].var) && strcmp(bad[i].var, "REVPROF_STEP_MAX"))
      fail_msg("%s=%s: message '%s' does not name it", bad[i].var,
               bad[i].value, err);
    if (!strstr(err, bad[i].says))
      fail_msg("%s=%s: message '%s' lacks '%s'", bad[i].var, bad[i].value,
               err, bad[i].says);
  }
}

static void test_revprof_config_predict_without_model(void **state) {
  (void)state;
  const char *kv[] = {NULL};
  rp_config c;
  char err[512] = "";
  assert_int_equal(read_env(&c, kv, err, sizeof err), REVPROF_EINVAL);
  assert_non_null(strstr(err, "REVPROF_MODEL is not set"));
}

/* A report written without MPI finds its rank and size where the
 * launcher left them, and its folder even when other variables are bad. */
static void test_revprof_config_launcher_and_outdir(void **state) {
  (void)state;
  int rank = -1, size = -1;
  const char *none[] = {NULL};
  rp_launcher_rank(table_get, (void *)none, &rank, &size);
  assert_int_equal(rank, 0);
  assert_int_equal(size, 1);
  const char *ompi[] = {"OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE",
                        "8", "PMI_RANK", "5", NULL};
  rp_launcher_rank(table_get, (void *)ompi, &rank, &size);
  assert_int_equal(rank, 3); /* Open MPI's first */
  assert_int_equal(size, 8);
  const char *hydra[] = {"OMPI_COMM_WORLD_RANK", "", "PMI_RANK", "2",
                         "PMI_SIZE", "4", NULL};
  rp_launcher_rank(table_get, (void *)hydra, &rank, &size);
  assert_int_equal(rank, 2); /* an empty value says nothing */
  assert_int_equal(size, 4);
  const char *pmix[] = {"PMIX_RANK", "1", NULL};
  rp_launcher_rank(table_get, (void *)pmix, &rank, &size);
  assert_int_equal(rank, 1);
  assert_int_equal(size, 1);

  const char *dir[] = {"REVPROF_OUTPUT_DIR", "out/here", "REVPROF_MODE",
                       "bogus", NULL};
  assert_string_equal(rp_config_outdir(table_get, (void *)dir, "x"),
                      "out/here");
  const char *empty[] = {"REVPROF_OUTPUT_DIR", "", NULL};
  assert_string_equal(rp_config_outdir(table_get, (void *)empty, "x"), "x");
  assert_string_equal(rp_config_outdir(table_get, (void *)none, "y"), "y");
}

/* REVPROF_* names that are none of revprof's: the closest within two
 * edits named; known ones and other prefixes pass */
static void test_revprof_config_unknown_variables(void **state) {
  (void)state;
  char hint[64];
  assert_int_equal(rp_env_unknown("REVPROF_MODE=predict", hint, sizeof hint),
                   0);
  assert_int_equal(rp_env_unknown("REVPROF_STEP_MIN", hint, sizeof hint), 0);
  assert_int_equal(rp_env_unknown("REVPROF_SETUP_OUT=x", hint, sizeof hint),
                   0);
  assert_int_equal(rp_env_unknown("PATH=/bin", hint, sizeof hint), 0);
  assert_int_equal(rp_env_unknown("REVPROFMODE=x", hint, sizeof hint), 0);
  assert_int_equal(
      rp_env_unknown("REVPROF_MDOE=compensate", hint, sizeof hint), 1);
  assert_string_equal(hint, "REVPROF_MODE");
  assert_int_equal(rp_env_unknown("REVPROF_SMAPLE=all", hint, sizeof hint),
                   1);
  assert_string_equal(hint, "REVPROF_SAMPLE");
  assert_int_equal(rp_env_unknown("REVPROF_OUTPUT_DIRS=d", hint, sizeof hint),
                   1);
  assert_string_equal(hint, "REVPROF_OUTPUT_DIR");
  assert_int_equal(rp_env_unknown("REVPROF_FOO=1", hint, sizeof hint), 1);
  assert_string_equal(hint, ""); /* 3 edits from REVPROF_LIB: no guess */
  char longname[300];
  memset(longname, 'A', sizeof longname - 1);
  memcpy(longname, "REVPROF_", 8);
  longname[sizeof longname - 1] = '\0';
  assert_int_equal(rp_env_unknown(longname, hint, sizeof hint), 1);
  assert_string_equal(hint, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_revprof_config_defaults),
      cmocka_unit_test(test_revprof_config_sample),
      cmocka_unit_test(test_revprof_config_checkpoint),
      cmocka_unit_test(test_revprof_config_every_variable),
      cmocka_unit_test(test_revprof_config_compute_auto),
      cmocka_unit_test(test_revprof_config_compute_spread),
      cmocka_unit_test(test_revprof_config_off_needs_no_model),
      cmocka_unit_test(test_revprof_config_mode_names),
      cmocka_unit_test(test_revprof_config_contention),
      cmocka_unit_test(test_revprof_config_compensate_settings),
      cmocka_unit_test(test_revprof_config_step_bounds_default_to_step),
      cmocka_unit_test(test_revprof_config_rejects_bad_values),
      cmocka_unit_test(test_revprof_config_predict_without_model),
      cmocka_unit_test(test_revprof_config_launcher_and_outdir),
      cmocka_unit_test(test_revprof_config_unknown_variables),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
