/* Unit tests of the raw CSV reader and writer (the format 'revprof fit' and
 * the datasheet read, which other tools may produce too). */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_test.h"

static char path[64];

static const char *write_tmp(const char *text) {
  snprintf(path, sizeof path, "/tmp/rp_test_raw_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static void read_bad(const char *text, int want_rc, const char *frag) {
  revprof_raw *r = (revprof_raw *)0x1;
  char err[512] = "";
  const char *p = write_tmp(text);
  assert_int_equal(revprof_raw_read(p, &r, err, sizeof err), want_rc);
  assert_null(r);
  assert_non_null(strstr(err, p));
  if (strstr(err, frag) == NULL)
    fail_msg("message \"%s\" lacks \"%s\"", err, frag);
  remove(p);
}

static void test_raw_read_rows(void **state) {
  (void)state;
  const char *p = write_tmp(
      "# comment line\n" REVPROF_RAW_HEADER ",extra\n"
      "MPI_Allreduce,4,1024,1.5e-06,2e-06,2.1e-06,3e-06,100,0.012,x\r\n"
      "\n"
      "latency,2,0,2.5e-07,3e-07,3e-07,4e-07,1000,0.001\n");
  revprof_raw *r = NULL;
  char err[256] = "";
  assert_int_equal(revprof_raw_read(p, &r, err, sizeof err), 0);
  assert_int_equal(r->n, 2);
  assert_int_equal(r->pt[0].fn, REVPROF_FN_ALLREDUCE);
  assert_int_equal(r->pt[0].p, 4);
  assert_near(r->pt[0].d, 1024, 0);
  assert_near(r->pt[0].median, 2e-6, 0);
  assert_int_equal(r->pt[0].reps, 100);
  assert_int_equal(r->pt[1].fn, REVPROF_FN_LATENCY);
  assert_near(r->pt[1].rse, 0.001, 0);
  remove(p);
  revprof_raw_free(r);
}

static void test_raw_write_round_trip(void **state) {
  (void)state;
  revprof_raw *r = revprof_raw_alloc(), *r2 = NULL;
  char err[256] = "";
  for (int i = 0; i < 1000; i++) { /* grows past the first allocation */
    revprof_point pt = {REVPROF_FN_BCAST, 2 + i % 7, (double)(i * 8),
                        1e-6 * (1 + i), 1.5e-6 * (1 + i), 1.6e-6 * (1 + i),
                        2e-6 * (1 + i), 10 + i, 0.02};
    assert_int_equal(revprof_raw_add(r, &pt), 0);
  }
  const char *p = write_tmp("");
  assert_int_equal(revprof_raw_write(r, p, err, sizeof err), 0);
  assert_int_equal(revprof_raw_read(p, &r2, err, sizeof err), 0);
  assert_int_equal(r2->n, 1000);
  for (size_t i = 0; i < r->n; i++) {
    assert_int_equal(r2->pt[i].p, r->pt[i].p);
    assert_rel(r2->pt[i].median, r->pt[i].median, 1e-8);
    assert_rel(r2->pt[i].max, r->pt[i].max, 1e-8);
  }
  remove(p);
  revprof_raw_free(r);
  revprof_raw_free(r2);
}

static void test_raw_reject_bad_input(void **state) {
  (void)state;
  read_bad("", REVPROF_EFORMAT, "empty");
  read_bad(REVPROF_RAW_HEADER "\n", REVPROF_EFORMAT, "no data rows");
  read_bad("function,p,size,min,median,mean,max,reps,rse\n", REVPROF_EFORMAT,
           "column 3");
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcast,4,8,1,2,3\n", REVPROF_EFORMAT,
           ":2: 6 columns");
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcats,4,8,1,2,2,3,1,0\n",
           REVPROF_ENOFUNC,
           ":2: unknown function \"MPI_Bcats\" (did you mean MPI_Bcast? "
           "'revprof characterize --list' shows the names)");
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcast,4,eight,1,2,2,3,1,0\n",
           REVPROF_EFIELD, "column bytes");
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcast,4,8,-1,2,2,3,1,0\n",
           REVPROF_EFIELD, "column min");
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcast,2.5,8,1,2,2,3,1,0\n",
           REVPROF_EFIELD, "not a group size");
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcast,4,8,3,2,2,3,1,0\n",
           REVPROF_EFIELD, "min <= median");
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcast,4,8,1,2,2,nan,1,0\n",
           REVPROF_EFIELD, "column max");
}

/* Issue 14: the machine characterize measured travels with raw.csv. */
static void test_raw_machine_comments_round_trip(void **state) {
  (void)state;
  revprof_raw *r = revprof_raw_alloc(), *back = NULL;
  revprof_point q = {REVPROF_FN_BCAST, 4, 8, 1e-6, 2e-6, 2e-6, 3e-6, 10, 0.01};
  char err[512];
  assert_non_null(r);
  assert_int_equal(revprof_raw_add(r, &q), 0);
  snprintf(r->machine_name, sizeof r->machine_name, "cluster-a");
  snprintf(r->machine_mpi, sizeof r->machine_mpi, "Open MPI v4.1.4, x");
  snprintf(r->machine_filesystem, sizeof r->machine_filesystem,
           "lustre at /scratch/run 1");
  snprintf(r->machine_date, sizeof r->machine_date, "2026-11-24");
  snprintf(r->machine_notes, sizeof r->machine_notes, "preset quick; ranks 4");
  r->machine_ranks = 4;
  r->machine_eager_limit = 4097;
  const char *p = write_tmp("");
  assert_int_equal(revprof_raw_write(r, p, err, sizeof err), 0);
  assert_int_equal(revprof_raw_read(p, &back, err, sizeof err), 0);
  assert_string_equal(back->machine_name, "cluster-a");
  assert_string_equal(back->machine_mpi, "Open MPI v4.1.4, x");
  assert_string_equal(back->machine_filesystem, "lustre at /scratch/run 1");
  assert_string_equal(back->machine_date, "2026-11-24");
  assert_string_equal(back->machine_notes, "preset quick; ranks 4");
  assert_int_equal(back->machine_ranks, 4);
  assert_true(back->machine_eager_limit == 4097.0);
  assert_int_equal(back->n, 1);
  revprof_raw_free(back);
  r->machine_eager_limit = INFINITY; /* no size waited: "none" */
  assert_int_equal(revprof_raw_write(r, p, err, sizeof err), 0);
  assert_int_equal(revprof_raw_read(p, &back, err, sizeof err), 0);
  assert_true(isinf(back->machine_eager_limit));
  revprof_raw_free(back);
  /* a line break in a value cannot start a row */
  snprintf(r->machine_name, sizeof r->machine_name, "two\nlines\r");
  assert_int_equal(revprof_raw_write(r, p, err, sizeof err), 0);
  assert_int_equal(revprof_raw_read(p, &back, err, sizeof err), 0);
  assert_string_equal(back->machine_name, "two lines");
  assert_int_equal(back->n, 1);
  revprof_raw_free(back);
  /* a file without them reads as unknown */
  p = write_tmp(REVPROF_RAW_HEADER "\n# note\nMPI_Bcast,4,8,1,2,2,3,1,0\n");
  assert_int_equal(revprof_raw_read(p, &back, err, sizeof err), 0);
  assert_string_equal(back->machine_name, "");
  assert_string_equal(back->machine_filesystem, "");
  assert_int_equal(back->machine_ranks, 0);
  assert_true(back->machine_eager_limit == 0.0);
  revprof_raw_free(back);
  revprof_raw_free(r);
  remove(p);
}

/* Machine lines read anywhere among other comments; an empty value is
 * "not recorded"; fields not given stay empty. */
static void test_raw_machine_lines_parsed(void **state) {
  (void)state;
  revprof_raw *r = NULL;
  char err[512] = "";
  const char *p = write_tmp(
      "# written by hand\n" REVPROF_RAW_HEADER "\n"
      "# machine.name: node 7: the big one\n"
      "# machine.notes:\n"
      "MPI_Bcast,4,8,1,2,2,3,1,0\n"
      "# machine.ranks: 64\n"
      "#machine.mpi: not a machine line (no space)\n"
      "# machine.mpi: MPICH 4.1\n");
  assert_int_equal(revprof_raw_read(p, &r, err, sizeof err), 0);
  assert_string_equal(r->machine_name, "node 7: the big one");
  assert_string_equal(r->machine_mpi, "MPICH 4.1");
  assert_string_equal(r->machine_notes, "");
  assert_string_equal(r->machine_date, "");
  assert_string_equal(r->machine_filesystem, "");
  assert_int_equal(r->machine_ranks, 64);
  assert_int_equal(r->n, 1);
  revprof_raw_free(r);
  remove(p);
}

/* A malformed machine line is an error naming the file and line, never a
 * description silently lost or cut. */
static void test_raw_reject_bad_machine_lines(void **state) {
  (void)state;
  char text[1024], longname[200];
#define ROW "MPI_Bcast,4,8,1,2,2,3,1,0\n"
  read_bad(REVPROF_RAW_HEADER "\n# machine.name lab\n" ROW, REVPROF_EFORMAT,
           ":2: a machine line reads '# machine.KEY: value'");
  read_bad(REVPROF_RAW_HEADER "\n" ROW "# machine.name:lab\n",
           REVPROF_EFORMAT, ":3: a machine line reads");
  read_bad(REVPROF_RAW_HEADER "\n# machine.host: lab\n" ROW, REVPROF_EFIELD,
           ":2: unknown machine key \"host\"");
  read_bad(REVPROF_RAW_HEADER "\n# machine.name: a\n# note\n"
                              "# machine.name: b\n" ROW,
           REVPROF_EFIELD, ":4: machine.name given again (first at line 2)");
  read_bad(REVPROF_RAW_HEADER "\n# machine.ranks: two\n" ROW, REVPROF_EFIELD,
           ":2: machine.ranks: \"two\" is not a whole number");
  read_bad(REVPROF_RAW_HEADER "\n# machine.ranks: 0\n" ROW, REVPROF_EFIELD,
           ":2: machine.ranks: \"0\"");
  read_bad(REVPROF_RAW_HEADER "\n# machine.ranks: 4.5\n" ROW, REVPROF_EFIELD,
           ":2: machine.ranks: \"4.5\"");
  read_bad(REVPROF_RAW_HEADER "\n# machine.ranks:\n" ROW, REVPROF_EFIELD,
           ":2: machine.ranks: \"\"");
  static const char *const eager[] = {"0", "-5", "12.5", "1e300", "lots", "",
                                      "4096 B"};
  for (size_t i = 0; i < sizeof eager / sizeof eager[0]; i++) {
    char line[256], want[96];
    snprintf(line, sizeof line, REVPROF_RAW_HEADER "\n# machine.eager_limit: "
             "%s\n" ROW, eager[i]);
    snprintf(want, sizeof want, ":2: machine.eager_limit: \"%s\" is neither",
             eager[i]);
    read_bad(line, REVPROF_EFIELD, want);
  }
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  snprintf(text, sizeof text, REVPROF_RAW_HEADER "\n" ROW
           "# machine.name: %s\n", longname);
  read_bad(text, REVPROF_EFIELD,
           ":3: machine.name: 199 characters, at most 127 fit");
#undef ROW
}

/* What 'revprof fit' writes into the model's machine table. */
static void test_raw_machine_to_model(void **state) {
  (void)state;
  revprof_raw *r = revprof_raw_alloc();
  revprof_model *m = revprof_model_alloc();
  assert_non_null(r);
  assert_non_null(m);
  /* a described raw file: every field it records */
  snprintf(r->machine_name, sizeof r->machine_name, "cluster-a");
  snprintf(r->machine_mpi, sizeof r->machine_mpi, "Open MPI v4.1.4");
  snprintf(r->machine_date, sizeof r->machine_date, "2026-11-24");
  snprintf(r->machine_filesystem, sizeof r->machine_filesystem, "nfs at /x");
  snprintf(r->machine_notes, sizeof r->machine_notes, "preset quick");
  r->machine_ranks = 8;
  r->machine_eager_limit = 65536;
  revprof_model_machine_from_raw(m, r, "run/raw.csv");
  assert_true(m->machine_eager_limit == 65536.0);
  assert_string_equal(m->machine_name, "cluster-a");
  assert_string_equal(m->machine_mpi, "Open MPI v4.1.4");
  assert_string_equal(m->machine_date, "2026-11-24");
  assert_string_equal(m->machine_filesystem, "nfs at /x");
  assert_string_equal(m->machine_notes, "preset quick");
  assert_int_equal(m->machine_ranks, 8);
  revprof_model_free(m);

  /* a raw file without machine lines: unknown, said plainly */
  revprof_raw *bare = revprof_raw_alloc();
  m = revprof_model_alloc();
  assert_non_null(bare);
  revprof_model_machine_from_raw(m, bare, "old/raw.csv");
  assert_string_equal(m->machine_name,
                      "unknown (fitted from old/raw.csv, which records no "
                      "machine)");
  assert_string_equal(m->machine_mpi, "unknown");
  assert_string_equal(m->machine_date, "unknown");
  assert_string_equal(m->machine_filesystem, "");
  assert_int_equal(m->machine_ranks, 0);
  revprof_model_free(m);

  /* a path too long for the name: its last component */
  char longpath[300];
  memset(longpath, 'd', sizeof longpath);
  snprintf(longpath + 200, sizeof longpath - 200, "/raw-2026.csv");
  m = revprof_model_alloc();
  revprof_model_machine_from_raw(m, bare, longpath);
  assert_string_equal(m->machine_name,
                      "unknown (fitted from raw-2026.csv, which records no "
                      "machine)");
  revprof_model_free(m);

  /* --like: the model's fields stay where the raw file records none, and
   * the raw file's win where it does */
  m = revprof_model_alloc();
  snprintf(m->machine_name, sizeof m->machine_name, "old-name");
  snprintf(m->machine_mpi, sizeof m->machine_mpi, "MPICH 3");
  snprintf(m->machine_date, sizeof m->machine_date, "2020-01-01");
  m->machine_ranks = 2;
  revprof_model_machine_from_raw(m, bare, "raw.csv");
  assert_string_equal(m->machine_name, "old-name");
  assert_string_equal(m->machine_mpi, "MPICH 3");
  assert_string_equal(m->machine_date, "2020-01-01");
  assert_int_equal(m->machine_ranks, 2);
  snprintf(bare->machine_mpi, sizeof bare->machine_mpi, "MPICH 4");
  revprof_model_machine_from_raw(m, bare, "raw.csv");
  assert_string_equal(m->machine_name, "old-name");
  assert_string_equal(m->machine_mpi, "MPICH 4");
  revprof_model_free(m);

  /* some fields but no name: the name says which is missing */
  m = revprof_model_alloc();
  revprof_model_machine_from_raw(m, bare, "raw.csv");
  assert_string_equal(m->machine_name,
                      "unknown (raw.csv records no machine.name)");
  assert_string_equal(m->machine_mpi, "MPICH 4");
  assert_string_equal(m->machine_date, "unknown");
  revprof_model_free(m);
  revprof_raw_free(bare);
  revprof_raw_free(r);
}

/* Issue 8: duplicate (function, p, bytes) rows were silently averaged. */
static void test_raw_reject_duplicate_rows(void **state) {
  (void)state;
  read_bad(REVPROF_RAW_HEADER "\nMPI_Bcast,4,8,1,2,2,3,1,0\n"
                              "MPI_Bcast,2,8,1,2,2,3,1,0\n"
                              "# a comment\n"
                              "MPI_Bcast,4,8,1,5,5,6,1,0\n",
           REVPROF_EFIELD,
           ":5: duplicate row MPI_Bcast, p = 4, 8 bytes (first at line 2)");
  /* the earliest repeat is named when there are several */
  read_bad(REVPROF_RAW_HEADER "\nMPI_Send,2,0,1,2,2,3,1,0\n"
                              "MPI_Bcast,4,8,1,2,2,3,1,0\n"
                              "MPI_Bcast,4,8,1,2,2,3,1,0\n"
                              "MPI_Send,2,0,1,2,2,3,1,0\n",
           REVPROF_EFIELD, ":4: duplicate row MPI_Bcast");
  /* same p and bytes for different functions is fine */
  revprof_raw *r = NULL;
  const char *p = write_tmp(REVPROF_RAW_HEADER "\nMPI_Bcast,4,8,1,2,2,3,1,0\n"
                                               "MPI_Reduce,4,8,1,2,2,3,1,0\n"
                                               "MPI_Bcast,4,16,1,2,2,3,1,0\n");
  char err[512];
  assert_int_equal(revprof_raw_read(p, &r, err, sizeof err), 0);
  assert_int_equal(r->n, 3);
  revprof_raw_free(r);
  remove(p);
}

static void test_raw_reject_missing_file(void **state) {
  (void)state;
  revprof_raw *r = NULL;
  char err[256] = "";
  assert_int_equal(revprof_raw_read("/nonexistent/raw.csv", &r, err,
                                    sizeof err),
                   REVPROF_EIO);
  assert_non_null(strstr(err, "/nonexistent/raw.csv"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_raw_read_rows),
      cmocka_unit_test(test_raw_write_round_trip),
      cmocka_unit_test(test_raw_reject_bad_input),
      cmocka_unit_test(test_raw_reject_missing_file),
      cmocka_unit_test(test_raw_reject_duplicate_rows),
      cmocka_unit_test(test_raw_machine_comments_round_trip),
      cmocka_unit_test(test_raw_machine_lines_parsed),
      cmocka_unit_test(test_raw_reject_bad_machine_lines),
      cmocka_unit_test(test_raw_machine_to_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
