/* Unit tests of models/fileio.c: a file is written whole or not at all
 * (NAME.tmp renamed when complete; an earlier NAME kept when the write is
 * abandoned), and a folder that does not exist is named in the error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model_int.h"

typedef struct scratch {
  char dir[64];
  char path[128], tmp[160];
} scratch;

static int setup(void **state) {
  scratch *s = calloc(1, sizeof *s);
  assert_non_null(s);
  snprintf(s->dir, sizeof s->dir, "/tmp/rp_fileio_XXXXXX");
  assert_non_null(mkdtemp(s->dir));
  snprintf(s->path, sizeof s->path, "%s/model.lua", s->dir);
  *state = s;
  return 0;
}

static int teardown(void **state) {
  scratch *s = *state;
  unlink(s->path);
  unlink(s->tmp);
  rmdir(s->dir);
  free(s);
  return 0;
}

static void slurp(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  fclose(f);
}

static void write_file(scratch *s, const char *text, int ok, int want_rc) {
  char err[256] = "";
  FILE *f = rp_open_tmp(s->path, s->tmp, sizeof s->tmp, err, sizeof err);
  assert_non_null(f);
  assert_string_equal(err, "");
  fputs(text, f);
  assert_int_equal(access(s->tmp, F_OK), 0); /* written beside, first */
  assert_int_equal(rp_commit_file(f, s->tmp, s->path, ok, err, sizeof err),
                   want_rc);
  assert_int_not_equal(access(s->tmp, F_OK), 0); /* never left behind */
}

static void complete_write_replaces(void **state) {
  scratch *s = *state;
  char buf[64];
  write_file(s, "first", 1, 0);
  slurp(s->path, buf, sizeof buf);
  assert_string_equal(buf, "first");
  write_file(s, "second", 1, 0);
  slurp(s->path, buf, sizeof buf);
  assert_string_equal(buf, "second");
}

static void abandoned_write_keeps_old(void **state) {
  scratch *s = *state;
  char buf[64];
  write_file(s, "good", 1, 0);
  write_file(s, "half", 0, REVPROF_EIO);
  slurp(s->path, buf, sizeof buf);
  assert_string_equal(buf, "good");
}

static void missing_folder_named(void **state) {
  scratch *s = *state;
  char path[200], tmp[220], err[512] = "";
  snprintf(path, sizeof path, "%s/no/such/folder/model.lua", s->dir);
  assert_null(rp_open_tmp(path, tmp, sizeof tmp, err, sizeof err));
  assert_non_null(strstr(err, path));
  assert_non_null(strstr(err, "cannot write"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(complete_write_replaces, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(abandoned_write_keeps_old, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(missing_folder_named, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
