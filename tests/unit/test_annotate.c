/* Unit tests of librevprof's Lua cost functions (revprof/rp_annotate.c):
 * good files in both styles, bounds, and every failure naming the file and
 * the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_annotate.h"
#include "rp_test.h"

/* Writes text to a fresh file; returns its path in buf. */
static const char *write_tmp(char *buf, size_t len, const char *text) {
  snprintf(buf, len, "/tmp/rp_annotate_XXXXXX");
  int fd = mkstemp(buf);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return buf;
}

static void test_annotate_globals_file(void **state) {
  (void)state;
  char path[64], err[1024] = "";
  rp_annotate *a = NULL;
  double out[RP_NB], args[2] = {1000, 3};
  write_tmp(path, sizeof path,
            "-- cost of one sweep: 2.5 ns per cell and iteration\n"
            "function stencil(n, iters)\n"
            "  return 2.5e-9 * n * iters\n"
            "end\n"
            "function bounded(n) return n * 1e-9, n * 2e-9, n * 4e-9 end\n"
            "function withmath(n) return math.log(n, 2) * 1e-6 end\n");
  assert_int_equal(rp_annotate_open(path, NULL, &a, err, sizeof err), 0);
  assert_int_equal(rp_annotate_cost(a, "stencil", 2, args, out, err,
                                    sizeof err),
                   0);
  for (int b = 0; b < RP_NB; b++)
    assert_near(out[b], 7.5e-6, 1e-18);
  assert_int_equal(rp_annotate_cost(a, "bounded", 1, args, out, err,
                                    sizeof err),
                   0);
  assert_near(out[RP_MIN], 1e-6, 1e-18);
  assert_near(out[RP_AVG], 2e-6, 1e-18);
  assert_near(out[RP_MAX], 4e-6, 1e-18);
  double n8 = 8;
  assert_int_equal(rp_annotate_cost(a, "withmath", 1, &n8, out, err,
                                    sizeof err),
                   0);
  assert_near(out[RP_AVG], 3e-6, 1e-15);
  rp_annotate_free(a);
  unlink(path);
}

static void test_annotate_returned_table(void **state) {
  (void)state;
  char err[1024] = "";
  rp_annotate *a = NULL;
  double out[RP_NB];
  assert_int_equal(rp_annotate_open("costs.lua",
                                    "local t = {}\n"
                                    "t.row = function(n) return 1e-8 * n end\n"
                                    "t.fixed = function() return 0.5 end\n"
                                    "return t\n",
                                    &a, err, sizeof err),
                   0);
  double n = 300;
  assert_int_equal(rp_annotate_cost(a, "row", 1, &n, out, err, sizeof err),
                   0);
  assert_near(out[RP_AVG], 3e-6, 1e-18);
  assert_int_equal(rp_annotate_cost(a, "fixed", 0, NULL, out, err,
                                    sizeof err),
                   0);
  assert_near(out[RP_MAX], 0.5, 0);
  rp_annotate_free(a);
}

static void test_annotate_syntax_error_names_file_and_line(void **state) {
  (void)state;
  char path[64], err[1024] = "";
  rp_annotate *a = (rp_annotate *)1;
  write_tmp(path, sizeof path,
            "function ok(n) return n end\n"
            "\n"
            "function broken(n) return n * end\n");
  assert_int_equal(rp_annotate_open(path, NULL, &a, err, sizeof err),
                   REVPROF_ESYNTAX);
  assert_null(a);
  char want[96];
  snprintf(want, sizeof want, "%s:3:", path);
  assert_non_null(strstr(err, want));
  unlink(path);
}

static void test_annotate_missing_file_is_named(void **state) {
  (void)state;
  char err[1024] = "";
  rp_annotate *a = NULL;
  assert_int_not_equal(rp_annotate_open("/nonexistent/costs.lua", NULL, &a,
                                        err, sizeof err),
                       0);
  assert_non_null(strstr(err, "/nonexistent/costs.lua"));
}

static void test_annotate_runtime_error_names_file_and_line(void **state) {
  (void)state;
  char path[64], err[1024] = "";
  rp_annotate *a = NULL;
  double out[RP_NB], n = 4;
  write_tmp(path, sizeof path,
            "function sweep(n)\n"
            "  local t = nil\n"
            "  return t.x * n\n"
            "end\n");
  assert_int_equal(rp_annotate_open(path, NULL, &a, err, sizeof err), 0);
  assert_int_equal(rp_annotate_cost(a, "sweep", 1, &n, out, err, sizeof err),
                   REVPROF_ELUA);
  char want[96];
  snprintf(want, sizeof want, "%s:3:", path);
  assert_non_null(strstr(err, want));
  assert_near(out[RP_AVG], 0.0, 0);
  rp_annotate_free(a);
  unlink(path);
}

static void test_annotate_bad_results_name_definition_line(void **state) {
  (void)state;
  char err[1024] = "";
  rp_annotate *a = NULL;
  double out[RP_NB], n = 1;
  assert_int_equal(
      rp_annotate_open("bad.lua",
                       "function none() end\n"
                       "function word() return 'fast' end\n"
                       "function neg() return -1 end\n"
                       "function unordered() return 3, 2, 1 end\n"
                       "function two() return 1, 2 end\n",
                       &a, err, sizeof err),
      0);
  struct {
    const char *region, *where;
  } cases[] = {{"none", "bad.lua:1:"},
               {"word", "bad.lua:2:"},
               {"neg", "bad.lua:3:"},
               {"unordered", "bad.lua:4:"},
               {"two", "bad.lua:5:"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    err[0] = '\0';
    assert_true(rp_annotate_cost(a, cases[i].region, 1, &n, out, err,
                                 sizeof err) < 0);
    if (strstr(err, cases[i].where) == NULL || !strstr(err, cases[i].region))
      fail_msg("region %s: message '%s' lacks '%s'", cases[i].region, err,
               cases[i].where);
  }
  rp_annotate_free(a);
}

static void test_annotate_unknown_region_is_named(void **state) {
  (void)state;
  char err[1024] = "";
  rp_annotate *a = NULL;
  double out[RP_NB];
  assert_int_equal(rp_annotate_open("c.lua", "function a() return 0 end\n",
                                    &a, err, sizeof err),
                   0);
  assert_int_equal(rp_annotate_cost(a, "b", 0, NULL, out, err, sizeof err),
                   REVPROF_ELUA);
  assert_non_null(strstr(err, "c.lua"));
  assert_non_null(strstr(err, "\"b\""));
  rp_annotate_free(a);
}

static void test_annotate_sandbox_has_no_io(void **state) {
  (void)state;
  char err[1024] = "";
  rp_annotate *a = NULL;
  double out[RP_NB];
  assert_int_equal(rp_annotate_open("s.lua",
                                    "function f() return io.open('/x') end\n"
                                    "function g() return os.time() end\n"
                                    "function h() return load('return 1')() "
                                    "end\n",
                                    &a, err, sizeof err),
                   0);
  const char *r[] = {"f", "g", "h"};
  for (int i = 0; i < 3; i++)
    assert_int_equal(rp_annotate_cost(a, r[i], 0, NULL, out, err, sizeof err),
                     REVPROF_ELUA);
  rp_annotate_free(a);
}

static void test_annotate_endless_loop_stops(void **state) {
  (void)state;
  char err[1024] = "";
  rp_annotate *a = NULL;
  double out[RP_NB];
  assert_int_equal(rp_annotate_open("loop.lua",
                                    "function spin()\n  while true do end\n"
                                    "end\n",
                                    &a, err, sizeof err),
                   0);
  assert_int_equal(rp_annotate_cost(a, "spin", 0, NULL, out, err, sizeof err),
                   REVPROF_ELUA);
  assert_non_null(strstr(err, "loop.lua:2:"));
  rp_annotate_free(a);
}

static void test_annotate_file_returning_junk(void **state) {
  (void)state;
  char err[1024] = "";
  rp_annotate *a = NULL;
  assert_int_equal(rp_annotate_open("junk.lua", "return 42\n", &a, err,
                                    sizeof err),
                   REVPROF_ELUA);
  assert_non_null(strstr(err, "junk.lua"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_annotate_globals_file),
      cmocka_unit_test(test_annotate_returned_table),
      cmocka_unit_test(test_annotate_syntax_error_names_file_and_line),
      cmocka_unit_test(test_annotate_missing_file_is_named),
      cmocka_unit_test(test_annotate_runtime_error_names_file_and_line),
      cmocka_unit_test(test_annotate_bad_results_name_definition_line),
      cmocka_unit_test(test_annotate_unknown_region_is_named),
      cmocka_unit_test(test_annotate_sandbox_has_no_io),
      cmocka_unit_test(test_annotate_endless_loop_stops),
      cmocka_unit_test(test_annotate_file_returning_junk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
