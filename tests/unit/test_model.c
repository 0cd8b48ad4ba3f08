/* Unit tests of the model library: loading, checking, evaluating and writing
 * machine models, and every bad model file the README promises to reject. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model_int.h" /* rp_perror */
#include "revprof_model.h"
#include "rp_test.h"

#define GOOD_HEAD "return { format = \"" REVPROF_MODEL_FORMAT "\", "

static const char *good_model =
    GOOD_HEAD "machine = { name = \"t3d\", mpi = \"EPCC MPI\", "
              "date = \"1996-01-01\", ranks = 16, notes = \"hand \\\"made\\\"\" },\n"
              "  method = \"paper\",\n"
              "  functions = {\n"
              "    MPI_Allreduce = {\n"
              "      { dmax = 32, form = { \"1\", \"log2(p)\", \"d\" },\n"
              "        avg = { 50e-6, 200e-6, 4e-6 }, err = { 30e-6, 10e-6, 1e-6 },\n"
              "        min = { 20e-6, 190e-6, 3e-6 }, max = { 80e-6, 210e-6, 5e-6 },\n"
              "        n = 96, cv_error = 0.04 },\n"
              "      { dmin = 33, form = { \"1\", \"p\", \"log2(p)*d\" },\n"
              "        avg = { 300e-6, 20e-6, 0.9e-6 } },\n"
              "    },\n"
              "    latency = { { form = { \"1\", \"d\" }, avg = { 1.5e-6, 1e-10 } } },\n"
              "  },\n"
              "  overhead = { mpi_wrapper = 1.25e-7 },\n"
              "}\n";

static revprof_model *load_ok(const char *text) {
  revprof_model *m = NULL;
  char err[512] = "";
  int rc = revprof_model_load_string(text, "good.lua", &m, err, sizeof err);
  if (rc != 0)
    fail_msg("load failed: %s", err);
  return m;
}

/* Loads text, expects failure with code rc and a message containing each
 * of the given fragments (NULL-terminated). */
/* What 'revprof model show' prints for m, into buf. */
static void show(const revprof_model *m, char *buf, size_t len) {
  FILE *f = fmemopen(buf, len, "w");
  assert_non_null(f);
  revprof_model_print(m, f);
  fclose(f);
}

static void load_bad(const char *text, int want_rc, ...) {
  revprof_model *m = (revprof_model *)0x1;
  char err[512] = "";
  int rc = revprof_model_load_string(text, "bad.lua", &m, err, sizeof err);
  assert_int_equal(rc, want_rc);
  assert_null(m);
  assert_non_null(strstr(err, "bad.lua"));
  va_list ap;
  va_start(ap, want_rc);
  for (const char *frag; (frag = va_arg(ap, const char *)) != NULL;)
    if (strstr(err, frag) == NULL)
      fail_msg("message \"%s\" lacks \"%s\"", err, frag);
  va_end(ap);
}

static void test_model_load_fields(void **state) {
  (void)state;
  revprof_model *m = load_ok(good_model);
  assert_string_equal(m->machine_name, "t3d");
  assert_string_equal(m->machine_notes, "hand \"made\"");
  assert_int_equal(m->machine_ranks, 16);
  assert_string_equal(m->method, "paper");
  assert_true(revprof_model_has(m, REVPROF_FN_ALLREDUCE));
  assert_true(revprof_model_has(m, REVPROF_FN_LATENCY));
  assert_false(revprof_model_has(m, REVPROF_FN_BCAST));
  const revprof_fnmodel *f = &m->fn[REVPROF_FN_ALLREDUCE];
  assert_int_equal(f->nregimes, 2);
  assert_true(f->regime[0].dmin == 0.0 && f->regime[0].dmax == 32.0);
  assert_true(f->regime[1].dmin == 33.0 && isinf(f->regime[1].dmax));
  assert_int_equal(f->regime[0].n, 96);
  assert_true(f->regime[1].cv_error < 0.0); /* absent: not computed */
  /* bounds default to avg when absent */
  assert_true(f->regime[1].min[2] == 0.9e-6 && f->regime[1].max[1] == 20e-6);
  assert_true(revprof_model_overhead(m, "mpi_wrapper", 0) == 1.25e-7);
  assert_true(revprof_model_overhead(m, "piggyback", -1) == -1);
  revprof_model_free(m);
}

/* Seed 003's T3D Allreduce equation, by hand. */
static void test_model_eval_paper_equation(void **state) {
  (void)state;
  revprof_model *m = load_ok(good_model);
  double t[3];
  assert_int_equal(revprof_model_eval(m, REVPROF_FN_ALLREDUCE, 8, 16, t), 0);
  assert_near(t[REVPROF_AVG], 50e-6 + 200e-6 * 3 + 4e-6 * 16, 1e-15);
  assert_near(t[REVPROF_MIN], 20e-6 + 190e-6 * 3 + 3e-6 * 16, 1e-15);
  assert_near(t[REVPROF_MAX], 80e-6 + 210e-6 * 3 + 5e-6 * 16, 1e-15);
  /* regime edges: 32 is small, 33 is large, huge extrapolates */
  revprof_model_eval(m, REVPROF_FN_ALLREDUCE, 8, 32, t);
  assert_near(t[REVPROF_AVG], 50e-6 + 600e-6 + 128e-6, 1e-15);
  revprof_model_eval(m, REVPROF_FN_ALLREDUCE, 8, 33, t);
  assert_near(t[REVPROF_AVG], 300e-6 + 160e-6 + 0.9e-6 * 3 * 33,
                      1e-15);
  revprof_model_eval(m, REVPROF_FN_ALLREDUCE, 4, 1e9, t);
  assert_near(t[REVPROF_AVG], 300e-6 + 80e-6 + 0.9e-6 * 2 * 1e9,
                      1e-6);
  revprof_model_free(m);
}

static void test_model_eval_missing_function(void **state) {
  (void)state;
  revprof_model *m = load_ok(good_model);
  double t[3] = {1, 1, 1};
  assert_int_equal(revprof_model_eval(m, REVPROF_FN_BCAST, 4, 8, t),
                   REVPROF_ENOFUNC);
  assert_true(t[0] == 0 && t[1] == 0 && t[2] == 0);
  revprof_model_free(m);
}

/* The bounds are ordered even when the min/max equations cross avg. */
static void test_model_eval_bounds_ordered(void **state) {
  (void)state;
  revprof_model *m = load_ok(
      GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\", \"d\" }, "
                "avg = { 1e-6, 1e-9 }, min = { 2e-6, 0 }, max = { 0, 5e-10 } "
                "} } } }");
  double t[3];
  for (double d = 0; d < 1e7; d = d * 4 + 1) {
    revprof_model_eval(m, REVPROF_FN_BCAST, 2, d, t);
    assert_true(t[REVPROF_MIN] >= 0.0);
    assert_true(t[REVPROF_MIN] <= t[REVPROF_AVG]);
    assert_true(t[REVPROF_AVG] <= t[REVPROF_MAX]);
  }
  revprof_model_free(m);
}

static void test_model_write_round_trip(void **state) {
  (void)state;
  revprof_model *m = load_ok(good_model), *m2 = NULL;
  char path[] = "/tmp/rp_test_model_XXXXXX";
  char err[512] = "";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  /* awkward values must survive exactly */
  m->fn[REVPROF_FN_ALLREDUCE].regime[0].avg[0] = 1.0 / 3.0 * 1e-5;
  m->fn[REVPROF_FN_ALLREDUCE].regime[0].err[2] = 4.9406564584124654e-324;
  assert_int_equal(revprof_model_write(m, path, err, sizeof err), 0);
  assert_int_equal(revprof_model_load(path, &m2, err, sizeof err), 0);
  assert_string_equal(m->machine_notes, m2->machine_notes);
  assert_int_equal(m2->noverhead, 1);
  assert_int_equal(m2->format_version, REVPROF_MODEL_VERSION);
  assert_memory_equal(m->fn, m2->fn, sizeof m->fn);
  /* the .tmp file is gone */
  char tmp[600];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  assert_int_equal(access(tmp, F_OK), -1);
  remove(path);
  revprof_model_free(m);
  revprof_model_free(m2);
}

static void test_model_write_unwritable(void **state) {
  (void)state;
  revprof_model *m = load_ok(good_model);
  char err[512] = "";
  int rc = revprof_model_write(m, "/nonexistent-dir/model.lua", err,
                               sizeof err);
  assert_int_equal(rc, REVPROF_EIO);
  assert_non_null(strstr(err, "/nonexistent-dir/model.lua"));
  revprof_model_free(m);
}

static void test_model_print_readable(void **state) {
  (void)state;
  revprof_model *m = load_ok(good_model);
  char buf[8192];
  show(m, buf, sizeof buf);
  assert_non_null(strstr(buf, "MPI_Allreduce"));
  assert_non_null(strstr(buf, "d <= 32"));
  assert_non_null(strstr(buf, "(50 ± 30) + (200 ± 10)*log2(p) + (4 ± 1)*d"));
  revprof_model_free(m);
}

static void test_model_reject_missing_file(void **state) {
  (void)state;
  revprof_model *m = NULL;
  char err[512] = "";
  assert_int_equal(revprof_model_load("/nonexistent/m.lua", &m, err,
                                      sizeof err),
                   REVPROF_EIO);
  assert_null(m);
  assert_non_null(strstr(err, "/nonexistent/m.lua"));
}

static void test_model_reject_empty_file(void **state) {
  (void)state;
  char path[] = "/tmp/rp_test_empty_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  revprof_model *m = NULL;
  char err[512] = "";
  assert_int_equal(revprof_model_load(path, &m, err, sizeof err),
                   REVPROF_EFORMAT);
  assert_non_null(strstr(err, "empty"));
  assert_non_null(strstr(err, path));
  remove(path);
}

static void test_model_reject_syntax_error(void **state) {
  (void)state;
  load_bad("return {\n format = \"revprof-model 1\",\n functions = {,\n}",
           REVPROF_ESYNTAX, "bad.lua:3:", NULL);
}

static void test_model_reject_runtime_error(void **state) {
  (void)state;
  /* the sandbox has no libraries: io and os are nil */
  load_bad("os.execute('true')\nreturn {}", REVPROF_ESYNTAX, "bad.lua:1:",
           NULL);
  load_bad("while true do end", REVPROF_ESYNTAX, "too long", NULL);
}

static void test_model_reject_not_a_table(void **state) {
  (void)state;
  load_bad("return 42", REVPROF_EFORMAT, "must 'return {", NULL);
}

/* Version 2 added the MPI_Wait and gap rows; a version-1 file, which has
 * neither, still loads and says which version it is. */
static void test_model_load_versions(void **state) {
  (void)state;
  static const char v1[] =
      "return { format = \"revprof-model 1\", functions = {\n"
      "  MPI_Irecv = { { form = { \"1\", \"d\" }, avg = { 1e-6, 1e-10 } } },\n"
      "  latency = { { form = { \"1\" }, avg = { 2e-6 } } } } }\n";
  revprof_model *m = load_ok(v1);
  assert_int_equal(m->format_version, 1);
  assert_false(revprof_model_has(m, REVPROF_FN_WAIT));
  assert_false(revprof_model_has(m, REVPROF_FN_GAP));
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_WAIT),
                   REVPROF_FN_IRECV);
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_GAP),
                   REVPROF_FN_COUNT);
  char buf[4096];
  show(m, buf, sizeof buf);
  assert_non_null(strstr(buf, "format:  revprof-model 1 (made before"));
  revprof_model_free(m);
  m = load_ok(GOOD_HEAD "functions = {\n"
              "  MPI_Wait = { { form = { \"1\" }, avg = { 5e-8 } } },\n"
              "  gap = { { form = { \"1\", \"d\" }, avg = { 1e-7, 1e-10 } } "
              "} } }\n");
  assert_int_equal(m->format_version, REVPROF_MODEL_VERSION);
  assert_int_equal(REVPROF_MODEL_VERSION, 3);
  assert_true(revprof_model_has(m, REVPROF_FN_WAIT));
  assert_true(revprof_model_has(m, REVPROF_FN_GAP));
  revprof_model_free(m);
  m = revprof_model_alloc(); /* made in memory: the version revprof writes */
  assert_int_equal(m->format_version, REVPROF_MODEL_VERSION);
  revprof_model_free(m);
}

/* A version-1 model written back is a version-3 file (a superset). */
static void test_model_write_current_version(void **state) {
  (void)state;
  revprof_model *m = load_ok("return { format = \"revprof-model 1\", "
                             "functions = { MPI_Send = { { form = { \"1\" }, "
                             "avg = { 1e-6 } } } } }"),
                *m2 = NULL;
  char buf[8192], err[512] = "";
  FILE *f = fmemopen(buf, sizeof buf, "w");
  assert_int_equal(revprof_model_write_stream(m, f), 0);
  fclose(f);
  assert_non_null(strstr(buf, "format = \"revprof-model 3\""));
  assert_int_equal(revprof_model_load_string(buf, "back.lua", &m2, err,
                                             sizeof err), 0);
  assert_int_equal(m2->format_version, 3);
  revprof_model_free(m);
  revprof_model_free(m2);
}

/* machine.eager_limit (format 3): bytes or "none", absent = unknown (0);
 * written back as read, printed by 'revprof model show'. */
static void test_model_eager_limit(void **state) {
  (void)state;
  static const char *const ok[] = {"65536", "1", "\"none\""};
  static const double want[] = {65536.0, 1.0, INFINITY};
  for (int i = 0; i < 3; i++) {
    char text[512], buf[8192], err[512] = "";
    snprintf(text, sizeof text,
             "return { format = \"revprof-model 3\", machine = { "
             "eager_limit = %s }, functions = { MPI_Send = { { form = { "
             "\"1\" }, avg = { 1e-6 } } } } }", ok[i]);
    revprof_model *m = load_ok(text), *m2 = NULL;
    assert_true(m->machine_eager_limit == want[i]);
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_int_equal(revprof_model_write_stream(m, f), 0);
    fclose(f);
    assert_int_equal(revprof_model_load_string(buf, "back.lua", &m2, err,
                                               sizeof err), 0);
    assert_true(m2->machine_eager_limit == want[i]);
    show(m, buf, sizeof buf);
    assert_non_null(strstr(buf, i == 2 ? "eager limit: none"
                                : i == 0 ? "eager limit: 65536 B"
                                         : "eager limit: 1 B"));
    revprof_model_free(m);
    revprof_model_free(m2);
  }
  revprof_model *m = load_ok("return { format = \"revprof-model 2\", "
                             "functions = { MPI_Send = { { form = { \"1\" }, "
                             "avg = { 1e-6 } } } } }");
  assert_true(m->machine_eager_limit == 0.0);
  char buf[4096];
  show(m, buf, sizeof buf);
  assert_non_null(strstr(buf, "eager limit: not measured"));
  revprof_model_free(m);
  static const char *const bad[] = {"0", "-1", "1.5", "\"65536\"", "true",
                                    "{}", "1e300"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[512];
    snprintf(text, sizeof text,
             "return { format = \"revprof-model 3\", machine = { "
             "eager_limit = %s }, functions = {} }", bad[i]);
    load_bad(text, REVPROF_EFIELD, "machine.eager_limit",
             "whole number of bytes", NULL);
  }
}

static void test_model_reject_wrong_version(void **state) {
  (void)state;
  /* newer: upgrade revprof, or re-characterize with this one */
  load_bad("return { format = \"revprof-model 4\", functions = {} }",
           REVPROF_EFORMAT, "format \"revprof-model 4\"",
           "\"revprof-model 1\", \"revprof-model 2\" and \"revprof-model 3\"",
           "upgrade revprof",
           "re-characterize", NULL);
  /* anything else: re-characterize */
  const char *bad[] = {"revprof-model 0", "revprof-model 01",
                       "revprof-model 2 ", "revprof-model 2.0",
                       "revprof-model", "revprof-model -1", "Revprof-model 2",
                       "revprof-model 99999999999999999999", "lua"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "return { format = \"%s\", functions = {} }",
             bad[i]);
    load_bad(text, REVPROF_EFORMAT, bad[i], "\"revprof-model 1\", ",
             "re-characterize", NULL);
  }
  load_bad("return { functions = {} }", REVPROF_EFORMAT, "format", NULL);
  load_bad("return { format = 2, functions = {} }", REVPROF_EFORMAT,
           "format", NULL);
}

/* A version-1 file with the rows of version 2 (hand-written, or made
 * between the rows and the version) loads them: the rows decide. */
static void test_model_load_new_rows_in_old_version(void **state) {
  (void)state;
  revprof_model *m = load_ok(
      "return { format = \"revprof-model 1\", functions = {\n"
      "  MPI_Wait = { { form = { \"1\" }, avg = { 1e-7 } } },\n"
      "  gap = { { form = { \"1\" }, avg = { 2e-7 } } } } }");
  assert_int_equal(m->format_version, 1);
  assert_true(revprof_model_has(m, REVPROF_FN_WAIT));
  assert_true(revprof_model_has(m, REVPROF_FN_GAP));
  char buf[4096];
  show(m, buf, sizeof buf);
  assert_non_null(strstr(buf, "format:  revprof-model 1\n"));
  revprof_model_free(m);
}

static void test_model_reject_missing_fields(void **state) {
  (void)state;
  load_bad(GOOD_HEAD "}", REVPROF_EFIELD, "functions: missing", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { avg = { 1 } } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1].form: missing", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" } } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1].avg: missing", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { } } }", REVPROF_EFIELD,
           "functions.MPI_Bcast: 0 regimes", NULL);
}

static void test_model_reject_non_numeric(void **state) {
  (void)state;
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" }, "
                     "avg = { \"5e-6\" } } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1].avg[1]", "number", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" }, "
                     "avg = { 1 }, dmax = \"big\" } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1].dmax", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\", \"d\" }, "
                     "avg = { 1 } } } } }",
           REVPROF_EFIELD, "avg: has 1 entries, but form has 2", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" }, "
                     "avg = { 1 }, n = 2.5 } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1].n", NULL);
}

static void test_model_reject_negative_or_nan(void **state) {
  (void)state;
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\", \"d\" }, "
                     "avg = { 1e-6, -1e-9 } } } } }",
           REVPROF_ERANGE, "functions.MPI_Bcast[1].avg[2]", "negative", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" }, "
                     "avg = { 0/0 } } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1].avg[1]", "NaN", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" }, "
                     "avg = { 1/0 } } } } }",
           REVPROF_EFIELD, "avg[1]", "finite", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" }, "
                     "avg = { 1 }, max = { -2 } } } } }",
           REVPROF_ERANGE, "max[1]", NULL);
  load_bad(GOOD_HEAD "functions = {}, overhead = { piggyback = -1 } }",
           REVPROF_ERANGE, "overhead.piggyback", NULL);
}

static void test_model_reject_unknown_names(void **state) {
  (void)state;
  load_bad(GOOD_HEAD "functions = { MPI_Bcats = { { form = { \"1\" }, "
                     "avg = { 1 } } } } }",
           REVPROF_ENOFUNC, "functions.MPI_Bcats", "unknown function",
           "did you mean MPI_Bcast?", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"ln(p)\" }, "
                     "avg = { 1 } } } } }",
           REVPROF_EFIELD, "form[1]", "ln(p)", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"1\" }, "
                     "avg = { 1 }, cv_eror = 0.1 } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1].cv_eror: unknown field",
           NULL);
  load_bad(GOOD_HEAD "machine = { nmae = \"x\" }, functions = {} }",
           REVPROF_EFIELD, "machine.nmae: unknown field", NULL);
  load_bad(GOOD_HEAD "machine = { compute_spread = 0.9 }, functions = {} }",
           REVPROF_EFIELD, "machine.compute_spread: expected a fraction", NULL);
  load_bad(GOOD_HEAD "machine = { compute_spread = \"wide\" }, functions = {} }",
           REVPROF_EFIELD, "machine.compute_spread: expected a number", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = { { form = { \"d\", \"d\" }, "
                     "avg = { 1, 2 } } } } }",
           REVPROF_EFIELD, "repeated", NULL);
}

static void test_model_reject_unsorted_or_overlapping(void **state) {
  (void)state;
  const char *two = GOOD_HEAD
      "functions = { MPI_Bcast = {\n"
      "  { dmax = %s, form = { \"1\" }, avg = { 1 } },\n"
      "  { dmin = %s, form = { \"1\" }, avg = { 2 } } } } }";
  char text[1024];
  snprintf(text, sizeof text, two, "64", "33"); /* unsorted / overlapping */
  load_bad(text, REVPROF_ERANGE, "functions.MPI_Bcast[2]", "overlap", NULL);
  snprintf(text, sizeof text, two, "64", "64");
  load_bad(text, REVPROF_ERANGE, "overlap", NULL);
  snprintf(text, sizeof text, two, "64", "100"); /* gap */
  load_bad(text, REVPROF_ERANGE, "gap", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = {\n"
                     "  { form = { \"1\" }, avg = { 1 } },\n"
                     "  { form = { \"1\" }, avg = { 2 } } } } }",
           REVPROF_EFIELD, "functions.MPI_Bcast[1]", "dmax missing", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Bcast = {\n"
                     "  { dmin = 10, dmax = 5, form = { \"1\" }, avg = { 1 } "
                     "} } } }",
           REVPROF_ERANGE, "bad size range", NULL);
}


#define RANGED_MODEL(range, coef)                                              \
  GOOD_HEAD "functions = { MPI_Allreduce = { " range                           \
            "{ form = { \"1\", \"log2(p)*d\" }, avg = { 1e-6, " coef " } } } } }"

/* m written to a temporary file and loaded back */
static revprof_model *write_and_load(const revprof_model *m) {
  char path[] = "/tmp/rp_test_model_XXXXXX", err[512];
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(revprof_model_write(m, path, err, sizeof err), 0);
  revprof_model *m2 = NULL;
  assert_int_equal(revprof_model_load(path, &m2, err, sizeof err), 0);
  remove(path);
  return m2;
}

static void test_model_range_loads_and_round_trips(void **state) {
  (void)state;
  revprof_model *m =
      load_ok(RANGED_MODEL("range = { p = { 2, 8 }, d = { 0, 65536 } }, ", "1e-9"));
  const revprof_range *r = &m->fn[REVPROF_FN_ALLREDUCE].range;
  assert_int_equal(r->known, 1);
  assert_true(r->pmin == 2 && r->pmax == 8 && r->dmin == 0 && r->dmax == 65536);
  revprof_model *m2 = write_and_load(m);
  assert_memory_equal(&m->fn[REVPROF_FN_ALLREDUCE].range,
                      &m2->fn[REVPROF_FN_ALLREDUCE].range, sizeof *r);
  revprof_model_free(m);
  revprof_model_free(m2);
}

/* machine.compute_spread: unknown (< 0) when absent, kept through a
 * write and a load */
static void test_model_compute_spread_round_trips(void **state) {
  (void)state;
  revprof_model *m = load_ok(GOOD_HEAD "machine = { name = \"vm\", "
                             "compute_spread = 0.15 }, functions = {} }");
  assert_near(m->machine_compute_spread, 0.15, 0);
  revprof_model *m2 = write_and_load(m);
  assert_near(m2->machine_compute_spread, 0.15, 0);
  revprof_model_free(m);
  revprof_model_free(m2);
  m = load_ok(GOOD_HEAD "machine = { name = \"vm\" }, functions = {} }");
  assert_true(m->machine_compute_spread < 0);
  revprof_model_free(m);
}

/* machine.filesystem names where the file I/O rows were measured: kept
 * through a write and a load, shown by model show; absent in older models
 * (and then not written), a wrong type rejected. */
static void test_model_filesystem_round_trips(void **state) {
  (void)state;
  revprof_model *m = load_ok(GOOD_HEAD "machine = { name = \"vm\", "
                             "filesystem = \"ext2/3/4 at /tmp\" }, "
                             "functions = {} }");
  assert_string_equal(m->machine_filesystem, "ext2/3/4 at /tmp");
  revprof_model *m2 = write_and_load(m);
  assert_string_equal(m2->machine_filesystem, "ext2/3/4 at /tmp");
  char buf[4096];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  revprof_model_print(m2, f);
  fclose(f);
  assert_non_null(strstr(buf, "file system: ext2/3/4 at /tmp"));
  revprof_model_free(m);
  revprof_model_free(m2);
  m = load_ok(good_model);
  assert_string_equal(m->machine_filesystem, "");
  f = fmemopen(buf, sizeof buf, "w");
  assert_int_equal(revprof_model_write_stream(m, f), 0);
  fclose(f);
  assert_null(strstr(buf, "filesystem"));
  revprof_model_free(m);
  load_bad(GOOD_HEAD "machine = { filesystem = 4 }, functions = {} }",
           REVPROF_EFIELD, "machine.filesystem: expected a string", NULL);
}

static void test_model_range_outside_factors(void **state) {
  (void)state;
  revprof_model *m =
      load_ok(RANGED_MODEL("range = { p = { 2, 2 }, d = { 0, 4194303 } }, ", "1e-9"));
  double out[3], far[2];
  revprof_fn f = REVPROF_FN_ALLREDUCE;
  assert_int_equal(revprof_model_eval_x(m, f, 2, 1024, out, far), REVPROF_INSIDE);
  assert_true(far[0] == 1.0 && far[1] == 1.0);
  assert_true(out[REVPROF_AVG] > 0.0);
  /* the shipped model's case: measured at p = 2, asked for p = 64 */
  assert_int_equal(revprof_model_eval_x(m, f, 64, 1024, out, far), REVPROF_OUTSIDE);
  assert_true(fabs(far[0] - 32.0) < 1e-12 && far[1] == 1.0);
  assert_int_equal(revprof_model_eval_x(m, f, 2, 8388607, out, far), REVPROF_OUTSIDE);
  assert_true(fabs(far[1] - 2.0) < 1e-12 && far[0] == 1.0);
  assert_int_equal(revprof_model_outside(m, f, 1, 0, &far[0], &far[1]), REVPROF_OUTSIDE);
  assert_true(fabs(far[0] - 2.0) < 1e-12);
  assert_int_equal(revprof_model_outside(m, REVPROF_FN_BCAST, 2, 0, NULL, NULL),
                   REVPROF_ENOFUNC);
  char buf[128];
  revprof_range_format(&m->fn[f].range, buf, sizeof buf);
  assert_string_equal(buf, "p 2..2, d 0..4194303");
  revprof_model_free(m);
}

static void test_model_range_unknown_in_old_models(void **state) {
  (void)state;
  revprof_model *m = load_ok(good_model);
  double out[3], far[2] = {0, 0};
  assert_int_equal(revprof_model_eval_x(m, REVPROF_FN_ALLREDUCE, 64, 1e6, out, far),
                   REVPROF_RANGE_UNKNOWN);
  assert_true(far[0] == 1.0 && far[1] == 1.0);
  char buf[64];
  revprof_range_format(&m->fn[REVPROF_FN_ALLREDUCE].range, buf, sizeof buf);
  assert_string_equal(buf, "range unknown");
  /* model show says it once, for all functions */
  char path[] = "/tmp/rp_test_show_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w+");
  revprof_model_print(m, f);
  rewind(f);
  char line[512];
  int said = 0;
  while (fgets(line, sizeof line, f))
    said += strstr(line, "unknown") != NULL;
  fclose(f);
  remove(path);
  assert_int_equal(said, 1);
  revprof_model_free(m);
}

static void test_model_reject_bad_range(void **state) {
  (void)state;
  load_bad(RANGED_MODEL("range = { p = { 8, 2 }, d = { 0, 1 } }, ", "1e-9"),
           REVPROF_ERANGE, "functions.MPI_Allreduce.range.p", NULL);
  load_bad(RANGED_MODEL("range = { p = { 0, 2 }, d = { 0, 1 } }, ", "1e-9"),
           REVPROF_ERANGE, "functions.MPI_Allreduce.range.p", NULL);
  load_bad(RANGED_MODEL("range = { p = { 2, 2 }, d = { 5, 1 } }, ", "1e-9"),
           REVPROF_ERANGE, "functions.MPI_Allreduce.range.d", NULL);
  load_bad(RANGED_MODEL("range = { p = { 2, 2 } }, ", "1e-9"), REVPROF_EFIELD,
           "functions.MPI_Allreduce.range.d", "missing", NULL);
  load_bad(RANGED_MODEL("range = { p = { 2 }, d = { 0, 1 } }, ", "1e-9"),
           REVPROF_EFIELD, "range.p", NULL);
  load_bad(RANGED_MODEL("range = { q = { 2, 2 }, p = { 2, 2 }, d = { 0, 1 } }, ",
                        "1e-9"),
           REVPROF_EFIELD, "range.q", "unknown field", NULL);
  load_bad(RANGED_MODEL("range = 3, ", "1e-9"), REVPROF_EFIELD,
           "functions.MPI_Allreduce.range", NULL);
  load_bad(RANGED_MODEL("ranges = { }, ", "1e-9"), REVPROF_EFIELD,
           "functions.MPI_Allreduce.ranges", "unknown field", NULL);
}

/* Issue 8: coefficients of 1e308 loaded and predicted inf. */
static void test_model_reject_infinite_times(void **state) {
  (void)state;
  load_bad(RANGED_MODEL("range = { p = { 2, 2 }, d = { 0, 1024 } }, ", "1e308"),
           REVPROF_ERANGE, "functions.MPI_Allreduce[1].avg", "predicts", NULL);
  load_bad(RANGED_MODEL("", "1e308"), REVPROF_ERANGE,
           "functions.MPI_Allreduce[1].avg", NULL);
  /* absurd but finite: 1e3 s per byte gives 1e6 s within 4x the range */
  load_bad(RANGED_MODEL("range = { p = { 2, 2 }, d = { 0, 1024 } }, ", "1e3"),
           REVPROF_ERANGE, "functions.MPI_Allreduce[1].avg", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Send = { { form = { \"1\" }, "
                     "avg = { 1e-6 }, max = { 1e300 }, min = { 0 } } } } }",
           REVPROF_ERANGE, "functions.MPI_Send[1].max", NULL);
  load_bad(GOOD_HEAD "functions = { MPI_Send = { { form = { \"1\" }, "
                     "avg = { 1e-6 }, min = { -1e-6 } } } } }",
           REVPROF_ERANGE, "functions.MPI_Send[1].min", NULL);
  /* a plausible ranged model still loads */
  revprof_model_free(load_ok(
      RANGED_MODEL("range = { p = { 2, 64 }, d = { 0, 4194304 } }, ", "1e-9")));
}

static void test_model_function_table(void **state) {
  (void)state;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    assert_int_equal(revprof_fn_lookup(revprof_fn_name((revprof_fn)i)), i);
  assert_int_equal(revprof_fn_lookup("MPI_Nope"), REVPROF_FN_COUNT);
  /* "did you mean": case, a missing MPI_ prefix and 2 edits are forgiven */
  assert_string_equal(revprof_fn_nearest("MPI_Bcats"), "MPI_Bcast");
  assert_string_equal(revprof_fn_nearest("bcast"), "MPI_Bcast");
  assert_string_equal(revprof_fn_nearest("mpi_allreduce"), "MPI_Allreduce");
  assert_string_equal(revprof_fn_nearest("Allgatherv"), "MPI_Allgatherv");
  assert_string_equal(revprof_fn_nearest("Latenc"), "latency");
  assert_string_equal(revprof_fn_nearest("MPI_Send"), "MPI_Send");
  assert_null(revprof_fn_nearest("zzz"));
  assert_null(revprof_fn_nearest("MPI_Nothing_like_it"));
  char hint[64];
  assert_string_equal(revprof_fn_hint("bcast", hint, sizeof hint),
                      "did you mean MPI_Bcast? ");
  assert_string_equal(revprof_fn_hint("zzz", hint, sizeof hint), "");
  /* cut to the buffer, never past it */
  assert_string_equal(revprof_fn_hint("bcast", hint, 8), "did you");
  assert_int_equal(revprof_fn_kind_of(REVPROF_FN_SEND), REVPROF_KIND_P2P);
  assert_int_equal(revprof_fn_kind_of(REVPROF_FN_ALLTOALL),
                   REVPROF_KIND_COLL);
  for (int b = 0; b < REVPROF_BASIS_COUNT; b++)
    assert_int_equal(revprof_basis_lookup(revprof_basis_name((revprof_basis)b)),
                     b);
  assert_near(revprof_basis_eval(REVPROF_BASIS_PM1_P_D, 4, 100), 75,
                      1e-12);
  assert_near(revprof_basis_eval(REVPROF_BASIS_LOG2P_2, 8, 0), 9,
                      1e-12);
  /* hinges: flat up to the knot, linear beyond, alone and times d */
  assert_near(revprof_basis_eval(REVPROF_BASIS_HINGE8, 4, 100), 0, 0);
  assert_near(revprof_basis_eval(REVPROF_BASIS_HINGE8, 8, 100), 0, 0);
  assert_near(revprof_basis_eval(REVPROF_BASIS_HINGE8, 12, 100), 4, 1e-12);
  assert_near(revprof_basis_eval(REVPROF_BASIS_HINGE8D, 12, 100), 400,
                      1e-12);
  assert_near(revprof_basis_eval(REVPROF_BASIS_HINGE512D, 600, 2), 176,
                      1e-12);
  assert_string_equal(revprof_basis_name(REVPROF_BASIS_HINGE16D),
                      "max(p-16,0)*d");
  assert_near(revprof_basis_knot(REVPROF_BASIS_HINGE16D), 16, 0);
  assert_near(revprof_basis_knot(REVPROF_BASIS_SQRTPD), 0, 0);
  assert_true(revprof_basis_uses_p(REVPROF_BASIS_HINGE4));
  assert_false(revprof_basis_uses_d(REVPROF_BASIS_HINGE4));
  assert_true(revprof_basis_uses_d(REVPROF_BASIS_HINGE4D));
  assert_string_equal(revprof_strerror(REVPROF_ERANGE), "value out of range");
  assert_string_equal(revprof_strerror(12345), "unknown error");
}

/* REVPROF_ERROR_TABLE, the one table of all of revprof: OK is 0, the
 * others count down from -1 in table order with no value used twice, and
 * each has a message of its own, which revprof_strerror returns. */
static void test_model_error_table_codes_distinct(void **state) {
  (void)state;
  static const struct {
    int code;
    const char *msg;
  } table[] = {
#define RP_TEST_ROW_(id, code, msg) {REVPROF_##id, msg},
      REVPROF_ERROR_TABLE(RP_TEST_ROW_)
#undef RP_TEST_ROW_
  };
  const size_t n = sizeof table / sizeof table[0];
  assert_int_equal(REVPROF_OK, 0);
  assert_int_equal(REVPROF_EMEASURE, -16); /* codes are never renumbered */
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(table[i].code, -(int)i); /* a new code: the next one */
    assert_non_null(table[i].msg);
    assert_true(table[i].msg[0] != '\0');
    assert_string_equal(revprof_strerror(table[i].code), table[i].msg);
    assert_string_not_equal(table[i].msg, "unknown error");
    for (size_t j = 0; j < i; j++) {
      if (table[i].code == table[j].code)
        fail_msg("codes %zu and %zu are both %d", j, i, table[i].code);
      assert_string_not_equal(table[i].msg, table[j].msg);
    }
  }
  /* the codes the trace writers used to number on their own */
  assert_string_equal(revprof_strerror(REVPROF_ENOOTF2),
                      "revprof was built without OTF2");
  assert_string_equal(revprof_strerror(REVPROF_EOTF2), "OTF2 error");
}

/* Any value outside the table is "unknown error", never NULL. */
static void test_model_strerror_unknown_code(void **state) {
  (void)state;
  int lowest = 0;
#define RP_TEST_MIN_(id, code, msg) lowest = code < lowest ? code : lowest;
  REVPROF_ERROR_TABLE(RP_TEST_MIN_)
#undef RP_TEST_MIN_
  const int unknown[] = {1, 12345, lowest - 1, -1000, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    assert_string_equal(revprof_strerror(unknown[i]), "unknown error");
}

/* rp_perror, the programs' way to report a failed call: "who: message",
 * or the code's text when the call left no message. */
static void test_model_perror_message_or_code(void **state) {
  (void)state;
  char path[] = "/tmp/rp_perror_XXXXXX", buf[512];
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  assert_true(saved >= 0);
  assert_int_equal(dup2(fd, 2), 2);
  int r1 = rp_perror("revprof trace merge", REVPROF_EMISSING,
                     "d: no trace stream p0.trace");
  int r2 = rp_perror("revprof-characterize", REVPROF_ENOMEM, "");
  int r3 = rp_perror("revprof fit", REVPROF_EFIT, NULL);
  fflush(stderr);
  assert_int_equal(dup2(saved, 2), 2);
  close(saved);
  assert_int_equal(r1, REVPROF_EMISSING);
  assert_int_equal(r2, REVPROF_ENOMEM);
  assert_int_equal(r3, REVPROF_EFIT);
  ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
  close(fd);
  unlink(path);
  assert_true(got > 0);
  buf[got] = '\0';
  assert_string_equal(buf, "revprof trace merge: d: no trace stream p0.trace\n"
                           "revprof-characterize: out of memory\n"
                           "revprof fit: fit failed\n");
}

/* The fallback chain: every chain ends (no loop), and a model without a
 * row is costed by the first row of the chain it has, as librevprof and
 * 'revprof model eval' both do. good_model has MPI_Allreduce and latency. */
static void test_model_fallback_chain(void **state) {
  (void)state;
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    revprof_fn f = (revprof_fn)i;
    int hops = 0;
    while (f != REVPROF_FN_COUNT && hops++ <= REVPROF_FN_COUNT)
      f = revprof_fn_fallback(f);
    if (f != REVPROF_FN_COUNT)
      fail_msg("the fallback chain of %s loops",
               revprof_fn_name((revprof_fn)i));
  }
  assert_int_equal(revprof_fn_fallback(REVPROF_FN_IALLREDUCE),
                   REVPROF_FN_ALLREDUCE);
  assert_int_equal(revprof_fn_fallback(REVPROF_FN_SEND), REVPROF_FN_COUNT);
  revprof_model *m = load_ok(good_model);
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_ALLREDUCE),
                   REVPROF_FN_ALLREDUCE);
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_IALLREDUCE),
                   REVPROF_FN_ALLREDUCE);
  /* Exscan -> Scan (absent) -> Allreduce */
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_EXSCAN),
                   REVPROF_FN_ALLREDUCE);
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_REDUCE_SCATTER_BLOCK),
                   REVPROF_FN_ALLREDUCE);
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_BCAST),
                   REVPROF_FN_COUNT);
  assert_int_equal(revprof_model_row_for(m, REVPROF_FN_IBCAST),
                   REVPROF_FN_COUNT);
  assert_int_equal(revprof_model_row_for(NULL, REVPROF_FN_SEND),
                   REVPROF_FN_COUNT);
  revprof_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_model_load_fields),
      cmocka_unit_test(test_model_eval_paper_equation),
      cmocka_unit_test(test_model_eval_missing_function),
      cmocka_unit_test(test_model_eval_bounds_ordered),
      cmocka_unit_test(test_model_write_round_trip),
      cmocka_unit_test(test_model_write_unwritable),
      cmocka_unit_test(test_model_print_readable),
      cmocka_unit_test(test_model_reject_missing_file),
      cmocka_unit_test(test_model_reject_empty_file),
      cmocka_unit_test(test_model_reject_syntax_error),
      cmocka_unit_test(test_model_reject_runtime_error),
      cmocka_unit_test(test_model_reject_not_a_table),
      cmocka_unit_test(test_model_load_versions),
      cmocka_unit_test(test_model_write_current_version),
      cmocka_unit_test(test_model_reject_wrong_version),
      cmocka_unit_test(test_model_eager_limit),
      cmocka_unit_test(test_model_load_new_rows_in_old_version),
      cmocka_unit_test(test_model_reject_missing_fields),
      cmocka_unit_test(test_model_reject_non_numeric),
      cmocka_unit_test(test_model_reject_negative_or_nan),
      cmocka_unit_test(test_model_reject_unknown_names),
      cmocka_unit_test(test_model_reject_unsorted_or_overlapping),
      cmocka_unit_test(test_model_range_loads_and_round_trips),
      cmocka_unit_test(test_model_compute_spread_round_trips),
      cmocka_unit_test(test_model_filesystem_round_trips),
      cmocka_unit_test(test_model_range_outside_factors),
      cmocka_unit_test(test_model_range_unknown_in_old_models),
      cmocka_unit_test(test_model_reject_bad_range),
      cmocka_unit_test(test_model_reject_infinite_times),
      cmocka_unit_test(test_model_function_table),
      cmocka_unit_test(test_model_error_table_codes_distinct),
      cmocka_unit_test(test_model_strerror_unknown_code),
      cmocka_unit_test(test_model_perror_message_or_code),
      cmocka_unit_test(test_model_fallback_chain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
