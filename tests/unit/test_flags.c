/* Unit tests of the report flags (revprof/rp_flags.c): a rank's store (key
 * cleaning, replacement, one-line texts, limits), its serialization, and
 * the merge over ranks that report.txt / report.csv show. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_flags.h"

static rp_flag_store store; /* large: not on the stack */
static rp_flag_set set;

static void reset(void) {
  memset(&store, 0, sizeof store);
  memset(&set, 0, sizeof set);
}

static void test_flags_key_cleaned(void **state) {
  (void)state;
  reset();
  assert_int_equal(rp_flag_store_set(&store, "Extrapolated Calls!", "x"), 0);
  assert_string_equal(store.f[0].key, "extrapolated-calls-");
  char long_key[100];
  memset(long_key, 'k', sizeof long_key - 1);
  long_key[sizeof long_key - 1] = '\0';
  assert_int_equal(rp_flag_store_set(&store, long_key, "y"), 0);
  assert_int_equal((int)strlen(store.f[1].key), RP_FLAG_KEY - 1);
}

static void test_flags_empty_key_rejected(void **state) {
  (void)state;
  reset();
  assert_int_equal(rp_flag_store_set(&store, "", "text"), REVPROF_EINVAL);
  assert_int_equal(rp_flag_store_set(&store, NULL, "text"),
                   REVPROF_EINVAL);
  assert_int_equal(store.n, 0);
}

static void test_flags_same_key_replaces(void **state) {
  (void)state;
  reset();
  rp_flag_store_set(&store, "extrapolated", "3 calls");
  rp_flag_store_set(&store, "lua", "off");
  rp_flag_store_set(&store, "EXTRAPOLATED", "5 calls");
  assert_int_equal(store.n, 2);
  assert_string_equal(store.f[0].text, "5 calls");
  assert_string_equal(store.f[1].text, "off");
}

static void test_flags_text_one_line_and_cut(void **state) {
  (void)state;
  reset();
  rp_flag_store_set(&store, "a", "two\nlines\tand\rtab");
  assert_string_equal(store.f[0].text, "two lines and tab");
  char big[1000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  rp_flag_store_set(&store, "b", big);
  assert_int_equal((int)strlen(store.f[1].text), RP_FLAG_TEXT - 1);
  rp_flag_store_set(&store, "c", NULL);
  assert_string_equal(store.f[2].text, "");
}

static void test_flags_store_full_counts_lost(void **state) {
  (void)state;
  reset();
  char k[16];
  for (int i = 0; i < RP_FLAGS_MAX; i++) {
    snprintf(k, sizeof k, "k%d", i);
    assert_int_equal(rp_flag_store_set(&store, k, "t"), 0);
  }
  assert_int_equal(rp_flag_store_set(&store, "one-more", "t"),
                   REVPROF_ERANGE);
  assert_int_equal(store.lost, 1);
  assert_int_equal(rp_flag_store_set(&store, "k3", "replaced"), 0);
  assert_string_equal(store.f[3].text, "replaced");
}

static void test_flags_lines_round_trip(void **state) {
  (void)state;
  reset();
  char buf[4096];
  rp_flag_store_set(&store, "extrapolated", "7 calls of MPI_Bcast");
  rp_flag_store_set(&store, "compute", "measured");
  size_t n = rp_flag_store_lines(&store, buf, sizeof buf);
  assert_string_equal(buf, "extrapolated\t7 calls of MPI_Bcast\n"
                           "compute\tmeasured\n");
  assert_int_equal((int)n, (int)strlen(buf));
  rp_flag_set_parse(&set, buf);
  assert_int_equal(set.n, 2);
  assert_string_equal(set.row[0].key, "extrapolated");
  assert_string_equal(set.row[0].text, "7 calls of MPI_Bcast");
  assert_string_equal(set.row[1].key, "compute");
  assert_int_equal(set.row[1].ranks, 1);
}

static void test_flags_lines_whole_only(void **state) {
  (void)state;
  reset();
  char buf[20];
  rp_flag_store_set(&store, "abc", "0123456");  /* 12 bytes with \t \n */
  rp_flag_store_set(&store, "def", "0123456");  /* would need 24 */
  size_t n = rp_flag_store_lines(&store, buf, sizeof buf);
  assert_int_equal((int)n, 12);
  assert_string_equal(buf, "abc\t0123456\n");
  assert_int_equal((int)rp_flag_store_lines(&store, buf, 0), 0);
}

static void test_flags_merge_counts_ranks(void **state) {
  (void)state;
  reset();
  /* three ranks: two agree, one has another text; rank 3 sets nothing */
  char r0[] = "lua\tfault at x.lua:3\nextrapolated\t2 calls\n";
  char r1[] = "lua\tfault at x.lua:3\n";
  char r2[] = "extrapolated\t5 calls\n";
  rp_flag_set_parse(&set, r0);
  rp_flag_set_parse(&set, r1);
  rp_flag_set_parse(&set, r2);
  assert_int_equal(set.n, 3);
  assert_string_equal(set.row[0].key, "lua");
  assert_int_equal(set.row[0].ranks, 2);
  assert_string_equal(set.row[1].text, "2 calls");
  assert_int_equal(set.row[1].ranks, 1);
  assert_string_equal(set.row[2].text, "5 calls");
  char keys[64];
  rp_flag_set_keys(&set, keys, sizeof keys);
  assert_string_equal(keys, "lua;extrapolated");
}

static void test_flags_parse_skips_bad_lines(void **state) {
  (void)state;
  reset();
  char lines[] = "no tab here\n\tempty key\ngood\tone\nunterminated\tx";
  rp_flag_set_parse(&set, lines);
  assert_int_equal(set.n, 1);
  assert_string_equal(set.row[0].key, "good");
  rp_flag_set_parse(&set, NULL);
  assert_int_equal(set.n, 1);
}

static void test_flags_set_full_counts_lost(void **state) {
  (void)state;
  reset();
  static char texts[RP_FLAG_ROWS + 2][8];
  for (int i = 0; i < RP_FLAG_ROWS + 2; i++) {
    snprintf(texts[i], sizeof texts[i], "t%d", i);
    rp_flag_set_add(&set, "k", texts[i], 1);
  }
  assert_int_equal(set.n, RP_FLAG_ROWS);
  assert_int_equal(set.lost, 2);
  rp_flag_set_add(&set, "k", "t0", 4); /* a kept pair still counts */
  assert_int_equal(set.row[0].ranks, 5);
}

static void test_flags_keys_limited(void **state) {
  (void)state;
  reset();
  rp_flag_set_add(&set, "alpha", "1", 1);
  rp_flag_set_add(&set, "beta", "2", 1);
  rp_flag_set_add(&set, "alpha", "3", 1);
  char keys[11];
  rp_flag_set_keys(&set, keys, sizeof keys);
  assert_string_equal(keys, "alpha;beta");
  char small[8];
  rp_flag_set_keys(&set, small, sizeof small);
  assert_string_equal(small, "alpha"); /* ";beta" does not fit whole */
  memset(&set, 0, sizeof set);
  rp_flag_set_keys(&set, small, sizeof small);
  assert_string_equal(small, "");
}

/* The host line: the MPI's first line with its blanks made single spaces,
 * and a note only when the model's MPI family is another, known one. */
/* more ranks on a host than cores they may use: flagged, with the counts
 * and what it means for a prediction or for measured times; never for as
 * many ranks as cores, nor for an unknown core count */
/* the host's load over a run: /proc's lines parsed, the flag at 5 % of the
   run waited for a core or stolen by the hypervisor, not below */
static void test_flags_busy(void **state) {
  (void)state;
  char b[400], small[10];
  assert_true(fabs(rp_schedstat_wait("2167133 63710000 2\n") - 0.06371) <
              1e-12);
  assert_true(rp_schedstat_wait("garbage") < 0.0);
  assert_true(rp_schedstat_wait("12") < 0.0);
  assert_true(rp_schedstat_wait(NULL) < 0.0);
  assert_true(fabs(rp_stat_steal("cpu  7025378 30080 1522977 6166992 6444 0 "
                                 "13548 250 0 0\n", 100.0) - 2.5) < 1e-12);
  /* an old kernel without the steal field: none */
  assert_true(rp_stat_steal("cpu  1 2 3 4 5 6 7\n", 100.0) == 0.0);
  assert_true(rp_stat_steal("cpu0 1 2 3 4 5 6 7 8\n", 100.0) < 0.0);
  assert_true(rp_stat_steal("cpu  1 2\n", 100.0) < 0.0);
  assert_true(rp_stat_steal("cpu  1 2 3 4 5 6 7 8\n", 0.0) < 0.0);

  /* a share only from 10 ms of waiting on */
  assert_true(fabs(rp_busy_share(0.5, 2.0) - 0.25) < 1e-12);
  assert_true(fabs(rp_busy_share(0.01, 0.02) - 0.5) < 1e-12);
  assert_true(rp_busy_share(0.0099, 0.02) == 0.0);
  assert_true(rp_busy_share(0.5, 0.0) == 0.0);
  assert_true(rp_busy_share(-1.0, 2.0) == 0.0);

  assert_int_equal(rp_busy_text(b, sizeof b, 0.26, 0.0, 1.0, 0), 1);
  assert_non_null(strstr(b, "ranks waited for a core held by another process "
                            "up to 26 % of the run: the prediction is for "
                            "cores of their own"));
  assert_null(strstr(b, "hypervisor"));
  assert_int_equal(rp_busy_text(b, sizeof b, 0.0, 0.5, 4.0, 1), 1);
  assert_non_null(strstr(b, "the hypervisor gave up to 12 % of the host's "
                            "CPU time to other machines: the times measured "
                            "here include those waits"));
  assert_null(strstr(b, "prediction"));
  assert_int_equal(rp_busy_text(b, sizeof b, 0.1, 0.1, 1.0, 0), 1);
  assert_non_null(strstr(b, "10 % of the run; the hypervisor gave up to 10 %"));
  /* the threshold, and a quiet run (0.5 %) */
  assert_int_equal(rp_busy_text(b, sizeof b, 0.05, 0.0, 1.0, 0), 1);
  assert_int_equal(rp_busy_text(b, sizeof b, 0.049, 0.049, 1.0, 0), 0);
  assert_string_equal(b, "");
  assert_int_equal(rp_busy_text(b, sizeof b, 0.005, 0.0, 1.0, 1), 0);
  assert_int_equal(rp_busy_text(b, sizeof b, 1.0, 1.0, 0.0, 0), 0);
  assert_int_equal(rp_busy_text(small, sizeof small, 1.0, 0.0, 2.0, 0), 1);
  assert_int_equal(strlen(small), sizeof small - 1);
}

static void test_flags_oversub_text(void **state) {
  (void)state;
  char b[400], small[12];
  assert_int_equal(rp_oversub_text(b, sizeof b, 8, 2, "vm", 0), 1);
  assert_non_null(strstr(b, "8 ranks on vm share 2 cores"));
  assert_int_equal(rp_oversub_text(b, sizeof b, 3, 1, NULL, 0), 1);
  assert_non_null(strstr(b, "3 ranks on this host share 1 core:"));
  assert_non_null(strstr(b, "the prediction is for a core per rank"));
  assert_int_equal(rp_oversub_text(b, sizeof b, 3, 2, "vm", 1), 1);
  assert_non_null(strstr(b, "3 ranks on vm share 2 cores: the times measured "
                            "here include the ranks' waits for a core"));
  assert_null(strstr(b, "prediction"));
  assert_int_equal(rp_oversub_text(b, sizeof b, 2, 2, "vm", 0), 0);
  assert_string_equal(b, "");
  assert_int_equal(rp_oversub_text(b, sizeof b, 1, 16, "vm", 0), 0);
  assert_int_equal(rp_oversub_text(b, sizeof b, 4, 0, "vm", 0), 0);
  assert_int_equal(rp_oversub_text(b, sizeof b, 4, -1, "vm", 0), 0);
  assert_int_equal(rp_oversub_text(small, sizeof small, 8, 2, "vm", 0), 1);
  assert_int_equal(strlen(small), sizeof small - 1);
}

static void test_flags_host_line(void **state) {
  (void)state;
  const char *ompi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: "
                     "4.1.4, repo rev: v4.1.4, May 26, 2022";
  const char *mpich = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu "
                      "May 26 2022\nMPICH ABI:\t14:2:2\n";
  assert_string_equal(rp_mpi_family(ompi), "Open MPI");
  assert_string_equal(rp_mpi_family(mpich), "MPICH");
  assert_string_equal(rp_mpi_family("MVAPICH2 Version:\t2.3.7"), "MVAPICH");
  assert_string_equal(rp_mpi_family("Intel(R) MPI Library 2021.6"),
                      "Intel MPI");
  assert_string_equal(rp_mpi_family("SMPI Version 3.32"), "SimGrid SMPI");
  assert_null(rp_mpi_family("none"));
  assert_null(rp_mpi_family(""));
  assert_null(rp_mpi_family(NULL));
  char b[400];
  assert_int_equal(rp_host_line(b, sizeof b, "node1", mpich, ompi), 1);
  assert_string_equal(b, "node1 | MPICH Version: 4.0.2 (the model was "
                         "characterized with Open MPI: the times predicted "
                         "are that MPI's, not this one's)");
  assert_int_equal(rp_host_line(b, sizeof b, "node1", ompi, ompi), 0);
  assert_string_equal(b, "node1 | Open MPI v4.1.4, package: Debian OpenMPI, "
                         "ident: 4.1.4, repo rev: v4.1.4, May 26, 2022");
  /* a model of no known MPI (a test model's "none"), or none at all */
  assert_int_equal(rp_host_line(b, sizeof b, "n", "  MPICH  x \t y", "none"),
                   0);
  assert_string_equal(b, "n | MPICH x y");
  assert_int_equal(rp_host_line(b, sizeof b, NULL, NULL, NULL), 0);
  assert_string_equal(b, "? | ?");
  char small[12];
  assert_int_equal(rp_host_line(small, sizeof small, "node1", mpich, ompi),
                   1);
  assert_string_equal(small, "node1 | MPI"); /* cut, still NUL-ended */
}

/* The MPICH leak warning loses the objects revprof caused; other lines
 * pass unchanged. */
static void test_flags_leak_line(void **state) {
  (void)state;
  char b[128];
  const char *w = "[WARNING] yaksa: 5 leaked handle pool objects\n";
  assert_int_equal(rp_leak_line(b, sizeof b, w, 2), 1);
  assert_string_equal(b, "[WARNING] yaksa: 3 leaked handle pool objects\n");
  assert_int_equal(rp_leak_line(b, sizeof b, w, 5), 1);
  assert_string_equal(b, ""); /* the program alone leaked none */
  assert_int_equal(rp_leak_line(b, sizeof b, w, 9), 1);
  assert_string_equal(b, "");
  assert_int_equal(rp_leak_line(b, sizeof b, w, 0), 1);
  assert_string_equal(b, w);
  /* no newline at the end (the last line of the stream) */
  assert_int_equal(rp_leak_line(b, sizeof b,
                                "[WARNING] yaksa: 12 leaked handle pool "
                                "objects", 1),
                   1);
  assert_string_equal(b, "[WARNING] yaksa: 11 leaked handle pool objects");
  /* anything else, even close to it, is the program's own */
  const char *other[] = {
      "[WARNING] yaksa: x leaked handle pool objects\n",
      "[WARNING] yaksa: 3 leaked handle pool objects, and more\n",
      "[WARNING] yaksa: -3 leaked handle pool objects\n",
      "[WARNING] yaksa:  leaked handle pool objects\n",
      "leaked handle pool objects\n",
      "hello\n",
      "",
  };
  for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
    assert_int_equal(rp_leak_line(b, sizeof b, other[i], 3), 0);
    assert_string_equal(b, other[i]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flags_key_cleaned),
      cmocka_unit_test(test_flags_empty_key_rejected),
      cmocka_unit_test(test_flags_same_key_replaces),
      cmocka_unit_test(test_flags_text_one_line_and_cut),
      cmocka_unit_test(test_flags_store_full_counts_lost),
      cmocka_unit_test(test_flags_lines_round_trip),
      cmocka_unit_test(test_flags_lines_whole_only),
      cmocka_unit_test(test_flags_merge_counts_ranks),
      cmocka_unit_test(test_flags_parse_skips_bad_lines),
      cmocka_unit_test(test_flags_set_full_counts_lost),
      cmocka_unit_test(test_flags_keys_limited),
      cmocka_unit_test(test_flags_host_line),
      cmocka_unit_test(test_flags_oversub_text),
      cmocka_unit_test(test_flags_busy),
      cmocka_unit_test(test_flags_leak_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
