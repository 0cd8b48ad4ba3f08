/* Unit tests of common/rp_util.c: mkdir -p (nested, existing, trailing and
 * doubled slashes, a file in the way, where it failed), running a program
 * (exit status, signals, missing programs, working directory, redirected
 * streams), growable arrays (from empty, contents kept, overflow) and the
 * libraries an ELF file names (itself, non-ELF and damaged files, the MPI
 * family of a library name). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rp_util.h"

/* ---------------------------------------------------------------- helpers */

typedef struct scratch {
  char dir[64];   /* a fresh directory under /tmp */
  char path[512]; /* room for paths inside it */
} scratch;

static int setup(void **state) {
  scratch *s = calloc(1, sizeof *s);
  assert_non_null(s);
  snprintf(s->dir, sizeof s->dir, "/tmp/rp_util_XXXXXX");
  assert_non_null(mkdtemp(s->dir));
  *state = s;
  return 0;
}

static int teardown(void **state) {
  scratch *s = *state;
  char *argv[] = {"rm", "-rf", s->dir, NULL};
  assert_int_equal(rp_spawn_wait(argv, NULL, -1, -1, -1), 0);
  free(s);
  return 0;
}

/* s->path = dir "/" rel */
static const char *in(scratch *s, const char *rel) {
  int n = snprintf(s->path, sizeof s->path, "%s/%s", s->dir, rel);
  assert_true(n > 0 && (size_t)n < sizeof s->path);
  return s->path;
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_true(fputs(text, f) >= 0);
  assert_int_equal(fclose(f), 0);
}

/* The whole of a small file, in buf. */
static const char *read_text(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int open_out(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  assert_true(fd >= 0);
  return fd;
}

/* ------------------------------------------------------- whole files */

/* rp_write_whole replaces a file's content at once and leaves no .tmp;
 * where it cannot write, the old file stays and errno says why. */
static void test_util_write_whole(void **state) {
  scratch *s = *state;
  char buf[64], tmp[RP_UTIL_PATH_MAX + 8];
  const char *f = in(s, "w.csv");
  assert_int_equal(rp_write_whole(f, "first\n", 6), 0);
  assert_string_equal(read_text(f, buf, sizeof buf), "first\n");
  assert_int_equal(rp_write_whole(f, "2\n", 2), 0); /* shorter: replaced */
  assert_string_equal(read_text(f, buf, sizeof buf), "2\n");
  assert_int_equal(rp_write_whole(f, "", 0), 0);
  assert_string_equal(read_text(f, buf, sizeof buf), "");
  snprintf(tmp, sizeof tmp, "%s.tmp", f);
  assert_int_equal(access(tmp, F_OK), -1);
  errno = 0;
  assert_int_equal(rp_write_whole(in(s, "none/w.csv"), "x", 1), -1);
  assert_int_equal(errno, ENOENT);
  char lng[RP_UTIL_PATH_MAX];
  memset(lng, 'a', sizeof lng - 1);
  lng[sizeof lng - 1] = '\0';
  assert_int_equal(rp_write_whole(lng, "x", 1), -1);
  assert_int_equal(errno, ENAMETOOLONG);
}

/* -------------------------------------------------------------- mkdir -p */

static void test_util_mkdir_p_creates_nested(void **state) {
  scratch *s = *state;
  assert_int_equal(rp_mkdir_p(in(s, "a/b/c")), 0);
  assert_true(is_dir(in(s, "a")));
  assert_true(is_dir(in(s, "a/b")));
  assert_true(is_dir(in(s, "a/b/c")));
}

static void test_util_mkdir_p_existing_dir_is_fine(void **state) {
  scratch *s = *state;
  assert_int_equal(rp_mkdir_p(s->dir), 0);
  assert_int_equal(rp_mkdir_p(in(s, "x/y")), 0);
  assert_int_equal(rp_mkdir_p(in(s, "x/y")), 0); /* again */
  assert_int_equal(rp_mkdir_p(in(s, "x")), 0);
  assert_int_equal(rp_mkdir_p("/"), 0);
  assert_int_equal(rp_mkdir_p("."), 0);
}

static void test_util_mkdir_p_trailing_and_double_slashes(void **state) {
  scratch *s = *state;
  assert_int_equal(rp_mkdir_p(in(s, "t/u/")), 0);
  assert_true(is_dir(in(s, "t/u")));
  assert_int_equal(rp_mkdir_p(in(s, "v//w///")), 0);
  assert_true(is_dir(in(s, "v/w")));
  assert_int_equal(rp_mkdir_p(in(s, "t/u//")), 0); /* existing, slashes */
}

static void test_util_mkdir_p_relative_path(void **state) {
  scratch *s = *state;
  char cwd[PATH_MAX];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(s->dir), 0);
  int rc = rp_mkdir_p("rel/sub");
  assert_int_equal(chdir(cwd), 0);
  assert_int_equal(rc, 0);
  assert_true(is_dir(in(s, "rel/sub")));
}

static void test_util_mkdir_p_parent_is_file_fails(void **state) {
  scratch *s = *state;
  size_t at = 0;
  write_text(in(s, "f"), "a file\n");
  errno = 0;
  assert_int_equal(rp_mkdir_p(in(s, "f/sub")), -1);
  assert_int_equal(errno, ENOTDIR);
  /* deeper: the first name under the file is where it fails */
  assert_int_equal(rp_mkdir_p_at(in(s, "f/g/h"), &at), -1);
  assert_int_equal(errno, ENOTDIR);
  assert_int_equal(at, strlen(s->dir) + strlen("/f/g"));
}

static void test_util_mkdir_p_file_in_place_fails(void **state) {
  scratch *s = *state;
  size_t at = 0;
  write_text(in(s, "f"), "a file\n");
  errno = 0;
  assert_int_equal(rp_mkdir_p_at(in(s, "f"), &at), -1);
  assert_int_equal(errno, EEXIST);
  assert_int_equal(at, strlen(s->path));
  assert_int_equal(rp_mkdir_p(in(s, "f/")), -1); /* "f/" is "f" */
  assert_int_equal(errno, EEXIST);
}

static void test_util_mkdir_p_bad_names(void **state) {
  (void)state;
  char *longname = malloc(RP_UTIL_PATH_MAX + 1);
  size_t at = 99;
  assert_non_null(longname);
  memset(longname, 'a', RP_UTIL_PATH_MAX);
  longname[RP_UTIL_PATH_MAX] = '\0';
  assert_int_equal(rp_mkdir_p_at(longname, &at), -1);
  assert_int_equal(errno, ENAMETOOLONG);
  assert_int_equal(at, 0); /* nothing tried */
  free(longname);
  assert_int_equal(rp_mkdir_p(""), -1);
  assert_int_equal(errno, ENOENT);
}

/* ------------------------------------------------------- running programs */

static void test_util_spawn_exit_status(void **state) {
  (void)state;
  char *t[] = {"true", NULL}, *f[] = {"false", NULL};
  char *seven[] = {"sh", "-c", "exit 7", NULL};
  assert_int_equal(rp_spawn_wait(t, NULL, -1, -1, -1), 0);
  assert_int_equal(rp_spawn_wait(f, NULL, -1, -1, -1), 1);
  assert_int_equal(rp_spawn_wait(seven, NULL, -1, -1, -1), 7);
}

static void test_util_spawn_killed_is_128_plus_signal(void **state) {
  (void)state;
  char *argv[] = {"sh", "-c", "kill -TERM $$", NULL};
  assert_int_equal(rp_spawn_wait(argv, NULL, -1, -1, -1), 128 + 15);
}

static void test_util_spawn_missing_program_is_127(void **state) {
  (void)state;
  char *name[] = {"rp-util-no-such-program", NULL};
  char *path[] = {"/nonexistent/rp-util-no-such-program", NULL};
  assert_int_equal(rp_spawn_wait(name, NULL, -1, -1, -1), 127);
  assert_int_equal(rp_spawn_wait(path, NULL, -1, -1, -1), 127);
}

static void test_util_spawn_bad_cwd_is_126(void **state) {
  scratch *s = *state;
  char *argv[] = {"true", NULL};
  assert_int_equal(rp_spawn_wait(argv, in(s, "missing"), -1, -1, -1), 126);
}

static void test_util_spawn_redirects_output(void **state) {
  scratch *s = *state;
  char buf[256], out[512], err[512];
  char *argv[] = {"sh", "-c", "echo to-out; echo to-err >&2", NULL};
  snprintf(out, sizeof out, "%s", in(s, "out.txt"));
  snprintf(err, sizeof err, "%s", in(s, "err.txt"));
  /* stdout and stderr to one file */
  int fd = open_out(out);
  assert_int_equal(rp_spawn_wait(argv, NULL, -1, fd, fd), 0);
  close(fd);
  assert_string_equal(read_text(out, buf, sizeof buf), "to-out\nto-err\n");
  /* each to its own */
  int fo = open_out(out), fe = open_out(err);
  assert_int_equal(rp_spawn_wait(argv, NULL, -1, fo, fe), 0);
  close(fo);
  close(fe);
  assert_string_equal(read_text(out, buf, sizeof buf), "to-out\n");
  assert_string_equal(read_text(err, buf, sizeof buf), "to-err\n");
}

static void test_util_spawn_stdin_and_cwd(void **state) {
  scratch *s = *state;
  char buf[256], out[512], real[PATH_MAX], expect[PATH_MAX + 2];
  char *cat[] = {"cat", NULL}, *pwd[] = {"sh", "-c", "pwd -P", NULL};
  write_text(in(s, "in.txt"), "from stdin\n");
  int fi = open(s->path, O_RDONLY | O_CLOEXEC);
  assert_true(fi >= 0);
  snprintf(out, sizeof out, "%s", in(s, "out.txt"));
  int fo = open_out(out);
  assert_int_equal(rp_spawn_wait(cat, NULL, fi, fo, -1), 0);
  close(fi);
  close(fo);
  assert_string_equal(read_text(out, buf, sizeof buf), "from stdin\n");
  fo = open_out(out);
  assert_int_equal(rp_spawn_wait(pwd, s->dir, -1, fo, -1), 0);
  close(fo);
  assert_non_null(realpath(s->dir, real));
  snprintf(expect, sizeof expect, "%s\n", real);
  assert_string_equal(read_text(out, buf, sizeof buf), expect);
}

/* -------------------------------------------------------- growable arrays */

static void test_util_grow_from_empty(void **state) {
  (void)state;
  size_t cap = 0;
  int *a = rp_grow(NULL, &cap, 1, sizeof *a);
  assert_non_null(a);
  assert_true(cap >= 1);
  a[cap - 1] = 1; /* all of it usable */
  free(a);
  cap = 0; /* need 0 still gives a buffer: NULL only means failure */
  a = rp_grow(NULL, &cap, 0, sizeof *a);
  assert_non_null(a);
  free(a);
}

static void test_util_grow_keeps_contents(void **state) {
  (void)state;
  size_t cap = 0, n = 100000, grows = 0;
  long *a = NULL;
  for (size_t i = 0; i < n; i++) {
    size_t before = cap;
    long *b = rp_grow(a, &cap, i + 1, sizeof *b);
    assert_non_null(b);
    assert_true(cap >= i + 1);
    if (cap != before) {
      assert_true(cap >= 2 * before); /* doubles: few reallocations */
      grows++;
    } else {
      assert_ptr_equal(b, a); /* room left: the same buffer */
    }
    a = b;
    a[i] = (long)(i * 7 + 3);
  }
  assert_true(grows <= 20);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(a[i], (long)(i * 7 + 3));
  free(a);
}

static void test_util_grow_overflow_keeps_buffer(void **state) {
  (void)state;
  size_t cap = 0;
  int *a = rp_grow(NULL, &cap, 4, sizeof *a);
  assert_non_null(a);
  a[0] = 42;
  size_t cap0 = cap;
  errno = 0;
  assert_null(rp_grow(a, &cap, SIZE_MAX / 2, sizeof *a)); /* bytes overflow */
  assert_int_equal(errno, ENOMEM);
  assert_int_equal(cap, cap0);
  errno = 0;
  assert_null(rp_grow(a, &cap, SIZE_MAX, 1)); /* elements overflow */
  assert_int_equal(errno, ENOMEM);
  assert_int_equal(cap, cap0);
  assert_int_equal(a[0], 42); /* still the caller's */
  free(a);
}

static void test_util_vec_push_appends(void **state) {
  (void)state;
  typedef struct pair {
    int k;
    double v;
  } pair;
  rp_vec v = {NULL, 0, 0, sizeof(pair)};
  for (int i = 0; i < 1000; i++) {
    pair *p = rp_vec_push(&v);
    assert_non_null(p);
    p->k = i;
    p->v = 0.5 * i;
  }
  assert_int_equal(v.n, 1000);
  for (int i = 0; i < 1000; i++) {
    assert_int_equal(((pair *)v.p)[i].k, i);
    assert_true(((pair *)v.p)[i].v == 0.5 * i);
  }
  free(v.p);
}

static void test_util_parse_double(void **state) {
  (void)state;
  double d = 0;
  assert_true(rp_parse_double("1.5e-3", &d));
  assert_true(d == 1.5e-3);
  assert_true(rp_parse_double("-2", &d) && d == -2.0);
  assert_false(rp_parse_double("", &d));
  assert_false(rp_parse_double("1x", &d));
  assert_false(rp_parse_double("1 ", &d));
  assert_false(rp_parse_double("inf", &d));
  assert_false(rp_parse_double("nan", &d));
  assert_false(rp_parse_double("1e999", &d));
}

static void test_util_edits(void **state) {
  (void)state;
  assert_int_equal(rp_edits("", "", 0), 0);
  assert_int_equal(rp_edits("abc", "abc", 0), 0);
  assert_int_equal(rp_edits("", "abc", 0), 3);
  assert_int_equal(rp_edits("abc", "", 0), 3);
  assert_int_equal(rp_edits("kitten", "sitting", 0), 3);
  assert_int_equal(rp_edits("MPI_Bcats", "MPI_Bcast", 0), 2); /* a swap */
  assert_int_equal(rp_edits("REVPROF_MDOE", "REVPROF_MODE", 0), 2);
  assert_int_equal(rp_edits("mpi_bcast", "MPI_Bcast", 0), 4);
  assert_int_equal(rp_edits("mpi_bcast", "MPI_Bcast", 1), 0);
  assert_int_equal(rp_edits("gap_al", "gap_all", 1), 1);
  char longer[80];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  assert_int_equal(rp_edits(longer, "a", 0), 99); /* beyond 63 bytes */
}

/* ------------------------------------------------ libraries of a program */

static int collect(const char *name, void *arg) {
  char *all = arg;
  size_t n = strlen(all);
  snprintf(all + n, 1024 - n, "%s;", name);
  return 0;
}

static int stop_at_first(const char *name, void *arg) {
  (void)name;
  ++*(int *)arg;
  return 1;
}

/* This test program is linked with the C library and CMocka. */
static void test_util_elf_needed_self(void **state) {
  (void)state;
  char all[1024] = "";
  int n = rp_elf_needed("/proc/self/exe", collect, all);
  assert_true(n >= 2);
  assert_non_null(strstr(all, "libc.so.6;"));
  assert_non_null(strstr(all, "libcmocka.so"));
  int seen = 0;
  assert_int_equal(rp_elf_needed("/proc/self/exe", stop_at_first, &seen), 1);
  assert_int_equal(seen, 1);
  assert_int_equal(rp_elf_needed("/proc/self/exe", NULL, NULL), n);
}

/* Copies the first n bytes of this program to path (all: n = 0). */
static void copy_self(const char *path, size_t n, size_t patch_at,
                      const void *patch, size_t patch_len) {
  FILE *in = fopen("/proc/self/exe", "rb");
  assert_non_null(in);
  FILE *out = fopen(path, "wb");
  assert_non_null(out);
  char buf[4096];
  size_t done = 0, k;
  while ((k = fread(buf, 1, sizeof buf, in)) > 0 && (n == 0 || done < n)) {
    if (n && k > n - done)
      k = n - done;
    for (size_t i = 0; i < patch_len; i++)
      if (patch_at + i >= done && patch_at + i < done + k)
        buf[patch_at + i - done] = ((const char *)patch)[i];
    assert_int_equal(fwrite(buf, 1, k, out), k);
    done += k;
  }
  fclose(in);
  assert_int_equal(fclose(out), 0);
}

static void test_util_elf_needed_rejects(void **state) {
  scratch *s = *state;
  write_text(in(s, "script"), "#!/bin/sh\necho hi\n");
  assert_int_equal(rp_elf_needed(s->path, collect, NULL), -1);
  write_text(in(s, "empty"), "");
  assert_int_equal(rp_elf_needed(s->path, collect, NULL), -1);
  assert_int_equal(rp_elf_needed(s->dir, collect, NULL), -1);
  assert_int_equal(rp_elf_needed(in(s, "none"), collect, NULL), -1);
  copy_self(in(s, "head"), 40, 0, NULL, 0); /* shorter than a header */
  assert_int_equal(rp_elf_needed(s->path, collect, NULL), -1);
  copy_self(in(s, "cut"), 4096, 0, NULL, 0); /* segments beyond the end */
  char all[1024] = "";
  assert_int_equal(rp_elf_needed(s->path, collect, all), -1);
  unsigned char c32 = 1; /* ELFCLASS32 */
  copy_self(in(s, "class"), 0, 4, &c32, 1);
  assert_int_equal(rp_elf_needed(s->path, collect, NULL), -1);
  uint64_t far = UINT64_MAX / 2; /* e_phoff */
  copy_self(in(s, "phoff"), 0, 32, &far, sizeof far);
  assert_int_equal(rp_elf_needed(s->path, collect, NULL), -1);
  copy_self(in(s, "whole"), 0, 0, NULL, 0); /* the copy itself reads */
  assert_true(rp_elf_needed(s->path, collect, all) >= 2);
}

static void test_util_mpi_of_soname(void **state) {
  (void)state;
  assert_string_equal(rp_mpi_of_soname("libmpi.so.40"), "Open MPI");
  assert_string_equal(rp_mpi_of_soname("libmpi_mpifh.so.40"), "Open MPI");
  assert_string_equal(rp_mpi_of_soname("libmpi_usempif08.so.40"), "Open MPI");
  assert_string_equal(rp_mpi_of_soname("libmpich.so.12"), "MPICH");
  assert_string_equal(rp_mpi_of_soname("libmpichfort.so.12"), "MPICH");
  assert_string_equal(rp_mpi_of_soname("libmpi.so.12"), "MPICH");
  assert_null(rp_mpi_of_soname("libc.so.6"));
  assert_null(rp_mpi_of_soname("libmpi.so"));
  assert_null(rp_mpi_of_soname("libmpix.so.1"));
  assert_null(rp_mpi_of_soname(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_util_parse_double),
      cmocka_unit_test(test_util_edits),
      cmocka_unit_test_setup_teardown(test_util_write_whole, setup, teardown),
      cmocka_unit_test_setup_teardown(test_util_mkdir_p_creates_nested, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_util_mkdir_p_existing_dir_is_fine,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_util_mkdir_p_trailing_and_double_slashes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_util_mkdir_p_relative_path, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_util_mkdir_p_parent_is_file_fails,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_util_mkdir_p_file_in_place_fails,
                                      setup, teardown),
      cmocka_unit_test(test_util_mkdir_p_bad_names),
      cmocka_unit_test(test_util_spawn_exit_status),
      cmocka_unit_test(test_util_spawn_killed_is_128_plus_signal),
      cmocka_unit_test(test_util_spawn_missing_program_is_127),
      cmocka_unit_test_setup_teardown(test_util_spawn_bad_cwd_is_126, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_util_spawn_redirects_output, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_util_spawn_stdin_and_cwd, setup,
                                      teardown),
      cmocka_unit_test(test_util_grow_from_empty),
      cmocka_unit_test(test_util_grow_keeps_contents),
      cmocka_unit_test(test_util_grow_overflow_keeps_buffer),
      cmocka_unit_test(test_util_vec_push_appends),
      cmocka_unit_test(test_util_elf_needed_self),
      cmocka_unit_test_setup_teardown(test_util_elf_needed_rejects, setup,
                                      teardown),
      cmocka_unit_test(test_util_mpi_of_soname),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
