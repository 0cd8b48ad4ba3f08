/* Unit tests of the characterization rules (rp_charlib, no MPI): option
 * parsing and every bad input it rejects, size and group lists, statistics
 * with outlier rejection, the stop rule, jump detection, budget and ETA. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "charlib.h"
#include "rp_test.h"

/* Parses a NULL-terminated list of arguments (argv[0] is added). */
static int parse(rp_char_options *o, char *err, size_t errlen, ...) {
  char *argv[64];
  int argc = 0;
  va_list ap;
  argv[argc++] = "revprof-characterize";
  va_start(ap, errlen);
  for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 63;)
    argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  return rp_char_parse(argc, argv, o, err, errlen);
}

/* Expects parse failure with code rc and a message containing frag. */
static void parse_bad(int rc, const char *frag, ...) {
  char *argv[64];
  int argc = 0;
  char err[512] = "";
  rp_char_options o;
  va_list ap;
  argv[argc++] = "revprof-characterize";
  va_start(ap, frag);
  for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 63;)
    argv[argc++] = a;
  va_end(ap);
  argv[argc] = NULL;
  int got = rp_char_parse(argc, argv, &o, err, sizeof err);
  if (got != rc || strstr(err, frag) == NULL)
    fail_msg("parse of '%s ...' gave %d \"%s\"; expected %d with \"%s\"",
             argc > 1 ? argv[1] : "", got, err, rc, frag);
}

/* ------------------------------------------------------------- options */

static void test_characterize_parse_defaults(void **state) {
  (void)state;
  rp_char_options o;
  char err[256];
  assert_int_equal(parse(&o, err, sizeof err, NULL), 0);
  for (int i = 0; i < REVPROF_FN_COUNT; i++) /* file I/O: with --io-dir */
    assert_int_equal(o.fn_on[i], !rp_char_fn_io((revprof_fn)i));
  assert_string_equal(o.io_dir, "");
  assert_true(rp_char_all_on(&o));
  assert_int_equal(o.smin, 0);
  assert_int_equal(o.smax, 4L << 20);
  assert_near(o.rse, 0.05, 1e-12);
  assert_string_equal(o.outdir, "revprof-out");
  assert_string_equal(o.method, "default");
  assert_near(o.checkpoint, 10.0, 0);
  assert_int_equal(o.resume, 0);
  assert_int_equal(o.sync, RP_SYNC_BARRIER);
  assert_int_equal(o.raw_only, 0);
  assert_int_equal(o.seed_set, 0);
  assert_true(o.min_reps <= o.max_reps);
}

static void test_characterize_parse_presets_overridden(void **state) {
  (void)state;
  rp_char_options o;
  char err[256];
  /* --quick applies first even when written last */
  assert_int_equal(parse(&o, err, sizeof err, "--rse", "3%", "--quick",
                         NULL), 0);
  assert_int_equal(o.preset, RP_PRESET_QUICK);
  assert_int_equal(o.smax, 64L << 10);
  assert_near(o.rse, 0.03, 1e-12);
  assert_int_equal(parse(&o, err, sizeof err, "--full", NULL), 0);
  assert_near(o.rse, 0.02, 1e-12);
  assert_true(o.point_time >= 1.0);
  parse_bad(REVPROF_EINVAL, "exclude each other", "--quick", "--full",
            NULL);
}

static void test_characterize_parse_all_options(void **state) {
  (void)state;
  rp_char_options o;
  char err[256] = "";
  int rc = parse(&o, err, sizeof err, "-o", "out/dir", "--sizes", "1K:2M",
                 "--procs", "8,2,4,4", "--peer", "3", "--point-time",
                 "250ms", "--min-reps", "4", "--max-reps", "99", "--warmup",
                 "0", "--budget", "2min", "--checkpoint", "30s", "--sync",
                 "window", "--seed",
                 "42", "--jump", "2", "--refine", "2", "--max-extra", "5",
                 "--max-buffer", "64M", "--method", "paper", "--name",
                 "t3d", "--raw-only", "--resume", "--no-datasheet",
                 "--no-pdf", "-v",
                 "-n", "4", "--rse=0.01", NULL);
  if (rc)
    fail_msg("%s", err);
  assert_string_equal(o.outdir, "out/dir");
  assert_int_equal(o.smin, 1024);
  assert_int_equal(o.smax, 2L << 20);
  assert_int_equal(o.nplist, 3);
  assert_int_equal(o.plist[0], 2);
  assert_int_equal(o.plist[1], 4);
  assert_int_equal(o.plist[2], 8);
  assert_int_equal(o.peer, 3);
  assert_near(o.point_time, 0.25, 1e-12);
  assert_int_equal(o.min_reps, 4);
  assert_int_equal(o.max_reps, 99);
  assert_int_equal(o.warmup, 0);
  assert_near(o.budget, 120.0, 1e-9);
  assert_near(o.checkpoint, 30.0, 1e-9);
  assert_int_equal(o.resume, 1);
  assert_int_equal(o.sync, RP_SYNC_WINDOW);
  assert_int_equal(o.seed_set, 1);
  assert_int_equal(o.seed, 42);
  assert_near(o.jump, 2.0, 0);
  assert_int_equal(o.refine, 2);
  assert_int_equal(o.max_extra, 5);
  assert_int_equal(o.max_buffer, 64L << 20);
  assert_string_equal(o.method, "paper");
  assert_string_equal(o.name, "t3d");
  assert_true(o.raw_only && o.no_datasheet && o.no_pdf);
  assert_int_equal(o.verbose, 1);
  assert_int_equal(o.np, 4);
  assert_near(o.rse, 0.01, 1e-12);
}

static void test_characterize_parse_functions(void **state) {
  (void)state;
  rp_char_options o;
  char err[256];
  assert_int_equal(parse(&o, err, sizeof err, "--functions",
                         "MPI_Bcast, latency,mpi_allreduce", NULL), 0);
  int n = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    n += o.fn_on[i];
  assert_int_equal(n, 3);
  assert_true(o.fn_on[REVPROF_FN_BCAST] && o.fn_on[REVPROF_FN_LATENCY] &&
              o.fn_on[REVPROF_FN_ALLREDUCE]);
  assert_int_equal(parse(&o, err, sizeof err, "--exclude", "MPI_Wtime",
                         NULL), 0);
  assert_int_equal(o.fn_on[REVPROF_FN_WTIME], 0);
  assert_int_equal(o.fn_on[REVPROF_FN_SEND], 1);
}

static void test_characterize_parse_unknown_function(void **state) {
  (void)state;
  parse_bad(REVPROF_ENOFUNC,
            "unknown function 'MPI_Bcats' (did you mean MPI_Bcast? --list",
            "--functions", "MPI_Bcast,MPI_Bcats", NULL);
  parse_bad(REVPROF_ENOFUNC, "unknown function", "--exclude", "nope", NULL);
  parse_bad(REVPROF_EINVAL, "empty function list", "--functions", ",",
            NULL);
  parse_bad(REVPROF_EINVAL, "no function left", "--exclude", "all", NULL);
}

static void test_characterize_parse_bad_ranges(void **state) {
  (void)state;
  parse_bad(REVPROF_ERANGE, "MIN 4096 is larger than MAX 1024", "--sizes",
            "4K:1K", NULL);
  parse_bad(REVPROF_ERANGE, "negative size", "--sizes", "-8:1K", NULL);
  parse_bad(REVPROF_ERANGE, "negative size", "--sizes", "0:-1", NULL);
  parse_bad(REVPROF_EINVAL, "not a size", "--sizes", "1X:2", NULL);
  parse_bad(REVPROF_ERANGE, "above the largest", "--sizes", "0:2G", NULL);
  parse_bad(REVPROF_ERANGE, "MIN 8 is larger than MAX 4", "--procs", "8:4",
            NULL);
  parse_bad(REVPROF_ERANGE, "below 2", "--procs", "1:4", NULL);
  parse_bad(REVPROF_ERANGE, "below 2", "--procs", "2,0", NULL);
  parse_bad(REVPROF_EINVAL, "not a whole number", "--procs", "2,x", NULL);
  parse_bad(REVPROF_ERANGE, "out of range", "--rse", "-1", NULL);
  parse_bad(REVPROF_ERANGE, "out of range", "--point-time", "-1", NULL);
  parse_bad(REVPROF_ERANGE, "out of range", "--checkpoint", "-1", NULL);
  parse_bad(REVPROF_EINVAL, "not a time in seconds", "--checkpoint", "often",
            NULL);
  parse_bad(REVPROF_ERANGE, "out of range", "--max-reps", "1", NULL);
  parse_bad(REVPROF_ERANGE, "larger than --max-reps", "--min-reps", "50",
            "--max-reps", "10", NULL);
  parse_bad(REVPROF_ERANGE, "above 1", "--jump", "0.5", NULL);
  parse_bad(REVPROF_EINVAL, "neither barrier nor window", "--sync", "x",
            NULL);
  parse_bad(REVPROF_EINVAL, "unknown method", "--method", "best", NULL);
}

static void test_characterize_parse_usage_errors(void **state) {
  (void)state;
  parse_bad(REVPROF_EINVAL, "unknown option '--bogus'", "--bogus", NULL);
  parse_bad(REVPROF_EINVAL, "unexpected argument", "stray", NULL);
  parse_bad(REVPROF_EINVAL, "needs a value", "--sizes", NULL);
  parse_bad(REVPROF_EINVAL, "directory name empty", "-o", "", NULL);
  rp_char_options o;
  char err[256];
  /* --help wins over errors elsewhere on the line */
  assert_int_equal(parse(&o, err, sizeof err, "--bogus", "--help", NULL), 0);
  assert_int_equal(o.help, 1);
  /* a preset name as an option's value is a value */
  assert_int_equal(parse(&o, err, sizeof err, "--name", "--quick", NULL), 0);
  assert_int_equal(o.preset, RP_PRESET_DEFAULT);
  assert_string_equal(o.name, "--quick");
}

/* The file I/O rows need --io-dir: "all" leaves them out without it,
 * naming one is an error that names it and the option. */
static void test_characterize_parse_io_dir(void **state) {
  (void)state;
  rp_char_options o;
  char err[256] = "";
  int nio = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    nio += rp_char_fn_io((revprof_fn)i);
  assert_int_equal(nio, 11);
  assert_true(rp_char_fn_io(REVPROF_FN_FILE_OPEN));
  assert_true(rp_char_fn_io(REVPROF_FN_FILE_READ_AT_ALL));
  assert_true(rp_char_fn_io(REVPROF_FN_FILE_SYNC));
  assert_true(rp_char_fn_io(REVPROF_FN_FILE_SET_VIEW));
  assert_true(rp_char_fn_io(REVPROF_FN_FILE_DELETE));
  assert_false(rp_char_fn_io(REVPROF_FN_WIN_FENCE));
  assert_int_equal(parse(&o, err, sizeof err, "--io-dir", "/scratch/me",
                         NULL), 0);
  assert_string_equal(o.io_dir, "/scratch/me");
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    assert_int_equal(o.fn_on[i], 1);
  assert_true(rp_char_all_on(&o));
  assert_int_equal(parse(&o, err, sizeof err, "--functions", "all", NULL), 0);
  assert_false(o.fn_on[REVPROF_FN_FILE_WRITE_AT]);
  assert_false(o.fn_on[REVPROF_FN_FILE_SYNC] ||
               o.fn_on[REVPROF_FN_FILE_DELETE]);
  assert_true(o.fn_on[REVPROF_FN_BCAST] && rp_char_all_on(&o));
  assert_int_equal(parse(&o, err, sizeof err, "--functions",
                         "MPI_File_read_at,MPI_Bcast", "--io-dir=io", NULL),
                   0);
  assert_true(o.fn_on[REVPROF_FN_FILE_READ_AT] && o.fn_on[REVPROF_FN_BCAST]);
  assert_false(o.fn_on[REVPROF_FN_FILE_WRITE_AT] || rp_char_all_on(&o));
  /* --exclude of a file I/O row is fine without a directory */
  assert_int_equal(parse(&o, err, sizeof err, "--exclude",
                         "MPI_File_open,MPI_Wtime", NULL), 0);
  assert_false(o.fn_on[REVPROF_FN_FILE_OPEN] || o.fn_on[REVPROF_FN_WTIME]);
  assert_int_equal(parse(&o, err, sizeof err, "--io-dir", "io", "--exclude",
                         "MPI_File_open", NULL), 0);
  assert_false(o.fn_on[REVPROF_FN_FILE_OPEN]);
  assert_true(o.fn_on[REVPROF_FN_FILE_CLOSE]);
  parse_bad(REVPROF_EINVAL, "MPI_File_write_at needs --io-dir DIR",
            "--functions", "MPI_File_write_at", NULL);
  parse_bad(REVPROF_EINVAL, "MPI_File_open needs --io-dir", "--functions",
            "MPI_Bcast,mpi_file_open", NULL);
  parse_bad(REVPROF_EINVAL, "MPI_File_preallocate needs --io-dir",
            "--functions", "MPI_File_preallocate", NULL);
  parse_bad(REVPROF_EINVAL, "MPI_File_delete needs --io-dir", "--functions",
            "MPI_File_delete", NULL);
  parse_bad(REVPROF_EINVAL, "--io-dir: directory name empty", "--io-dir",
            "", NULL);
  /* named, then excluded: not timed, so no directory is needed */
  parse_bad(REVPROF_EINVAL, "no function left", "--functions",
            "MPI_File_open", "--exclude", "MPI_File_open", NULL);
}

/* statfs type numbers to names; unknown ones in hexadecimal. */
static void test_characterize_fs_names(void **state) {
  (void)state;
  char b[64];
  const struct {
    unsigned long magic;
    const char *name;
  } want[] = {{0xEF53UL, "ext2/3/4"},      {0x58465342UL, "xfs"},
              {0x9123683EUL, "btrfs"},     {0x01021994UL, "tmpfs"},
              {0x6969UL, "nfs"},           {0x0BD00BD0UL, "lustre"},
              {0x47504653UL, "gpfs"},      {0x19830326UL, "beegfs"},
              {0x794C7630UL, "overlayfs"}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    rp_char_fs_name(want[i].magic, b, sizeof b);
    assert_string_equal(b, want[i].name);
  }
  rp_char_fs_name(0x12345UL, b, sizeof b);
  assert_string_equal(b, "type 0x12345");
  rp_char_fs_name(0xEF53UL, b, 4); /* cut, terminated */
  assert_string_equal(b, "ext");
}

static void test_characterize_validate_world(void **state) {
  (void)state;
  rp_char_options o;
  char err[256] = "";
  assert_int_equal(parse(&o, err, sizeof err, NULL), 0);
  assert_int_equal(rp_char_validate(&o, 1, err, sizeof err), REVPROF_ERANGE);
  assert_non_null(strstr(err, "needs at least 2 ranks: mpirun -n 2"));
  assert_int_equal(rp_char_validate(&o, 2, err, sizeof err), 0);
  assert_int_equal(parse(&o, err, sizeof err, "--procs", "2:8", NULL), 0);
  assert_int_equal(rp_char_validate(&o, 4, err, sizeof err), REVPROF_ERANGE);
  assert_non_null(strstr(err, "larger than the 4 ranks"));
  assert_int_equal(rp_char_validate(&o, 8, err, sizeof err), 0);
  assert_int_equal(parse(&o, err, sizeof err, "--peer", "5", NULL), 0);
  assert_int_equal(rp_char_validate(&o, 4, err, sizeof err), REVPROF_ERANGE);
  assert_non_null(strstr(err, "--peer 5"));
  /* group sizes do not matter when no collective is timed */
  assert_int_equal(parse(&o, err, sizeof err, "--procs", "16",
                         "--functions", "latency", NULL), 0);
  assert_int_equal(rp_char_validate(&o, 2, err, sizeof err), 0);
}

static void test_characterize_usage_documents_options(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  rp_char_usage(f);
  fclose(f);
  const char *must[] = {"--output", "--functions", "--list", "--sizes",
                        "--procs", "--rse", "--point-time", "--budget",
                        "--checkpoint", "--resume",
                        "--sync", "--seed", "--method", "--raw-only",
                        "--no-datasheet", "--quick", "--full", "--help",
                        "--io-dir", "MPI_UNSIGNED_CHAR"};
  for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
    if (strstr(buf, must[i]) == NULL)
      fail_msg("--help lacks %s", must[i]);
  free(buf);
}

static void test_characterize_list_has_every_function(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  rp_char_list(f);
  fclose(f);
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    assert_non_null(strstr(buf, revprof_fn_name((revprof_fn)i)));
    assert_non_null(strstr(buf, revprof_fn_what((revprof_fn)i)));
  }
  /* the file I/O rows say what they need */
  const char *row = strstr(buf, "MPI_File_write_at ");
  assert_non_null(row);
  const char *eol = strchr(row, '\n');
  const char *need = strstr(row, "--io-dir");
  assert_true(need != NULL && eol != NULL && need < eol);
  free(buf);
}

/* ------------------------------------------------------- sizes, groups */

static void test_characterize_sizes_powers_of_two(void **state) {
  (void)state;
  rp_char_options o;
  long s[64];
  rp_char_options_init(&o, RP_PRESET_DEFAULT);
  int n = rp_char_sizes(&o, s, 64);
  assert_int_equal(n, 24); /* 0, 1 .. 4M */
  assert_int_equal(s[0], 0);
  assert_int_equal(s[1], 1);
  assert_int_equal(s[23], 4L << 20);
  for (int i = 2; i < n; i++)
    assert_int_equal(s[i], 2 * s[i - 1]);
  o.smin = 100;
  o.smax = 1000;
  n = rp_char_sizes(&o, s, 64);
  assert_int_equal(n, 5);
  long want[] = {100, 128, 256, 512, 1000};
  for (int i = 0; i < 5; i++)
    assert_int_equal(s[i], want[i]);
  o.smin = o.smax = 0;
  assert_int_equal(rp_char_sizes(&o, s, 64), 1);
  o.smin = o.smax = 64;
  assert_int_equal(rp_char_sizes(&o, s, 64), 1);
  assert_int_equal(s[0], 64);
}

/* A machine whose MPI_Send waits from `limit` bytes on; counts the sizes
 * tried and fails on one outside 1..dmax. */
typedef struct fake_mpi {
  long limit, dmax, calls;
} fake_mpi;

static int fake_waits(long d, void *arg) {
  fake_mpi *f = arg;
  assert_true(d >= 1 && d <= f->dmax);
  f->calls++;
  return d >= f->limit;
}

/* The eager limit is found exactly, in about 2 log2(limit) sizes; none up
 * to dmax is INFINITY; no size to try is 0. */
static void test_characterize_eager_search(void **state) {
  (void)state;
  static const long limits[] = {1, 2, 3, 257, 4096, 4097, 65536, 1000000};
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    fake_mpi f = {limits[i], 1L << 22, 0};
    assert_true(rp_char_eager_search(f.dmax, fake_waits, &f) ==
                (double)limits[i]);
    assert_true(f.calls <= 2 * (long)ceil(log2((double)limits[i])) + 2);
  }
  fake_mpi at_max = {1000, 1000, 0}; /* dmax, not a power of two, waits */
  assert_true(rp_char_eager_search(1000, fake_waits, &at_max) == 1000.0);
  fake_mpi never = {1L << 40, 1000, 0};
  assert_true(isinf(rp_char_eager_search(1000, fake_waits, &never)));
  assert_int_equal(never.calls, 11); /* 1, 2, ..., 512, then 1000 */
  fake_mpi none = {1, 0, 0};
  assert_true(rp_char_eager_search(0, fake_waits, &none) == 0.0);
  assert_int_equal(none.calls, 0);
}

static void test_characterize_procs_lists(void **state) {
  (void)state;
  rp_char_options o;
  int p[64];
  rp_char_options_init(&o, RP_PRESET_DEFAULT);
  assert_int_equal(rp_char_procs(&o, 4, p, 64), 3); /* 2 3 4 */
  assert_int_equal(p[2], 4);
  int n = rp_char_procs(&o, 100, p, 64); /* 2 4 8 16 32 64 100 */
  assert_int_equal(n, 7);
  assert_int_equal(p[0], 2);
  assert_int_equal(p[5], 64);
  assert_int_equal(p[6], 100);
  char err[128];
  assert_int_equal(parse(&o, err, sizeof err, "--procs", "3:5", NULL), 0);
  assert_int_equal(rp_char_procs(&o, 8, p, 64), 3);
  assert_int_equal(p[0], 3);
  assert_int_equal(p[2], 5);
}

static void test_characterize_plan_covers_table(void **state) {
  (void)state;
  rp_char_options o;
  rp_char_plan plan = {0};
  char err[128];
  assert_int_equal(parse(&o, err, sizeof err, "--sizes", "0:16", NULL), 0);
  assert_int_equal(rp_char_plan_build(&o, 3, &plan, err, sizeof err), 0);
  /* sizes 0 1 2 4 8 16 = 6; p2p with data x 6, MPI_Win_lock at d = 0
   * only; colls with data x 2 p x 6; barriers and the fence (no data)
   * x 2 p; Wtime 1; no file I/O without --io-dir */
  int p2p = 0, coll = 0, local = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++) {
    revprof_fn_kind k = revprof_fn_kind_of((revprof_fn)i);
    if (rp_char_fn_io((revprof_fn)i))
      continue;
    p2p += k == REVPROF_KIND_P2P;
    coll += k == REVPROF_KIND_COLL;
    local += k == REVPROF_KIND_LOCAL;
  }
  size_t want = (size_t)((p2p - 1) * 6 + 1 + (coll - 3) * 2 * 6 + 3 * 2 +
                         local);
  assert_int_equal(plan.n, want);
  for (size_t i = 0; i < plan.n; i++)
    assert_false(rp_char_fn_io(plan.pt[i].fn));
  rp_char_plan_free(&plan);
  /* with it: reads, writes, set_size and preallocate over sizes; open,
   * close, sync and set_view at d = 0; delete on one rank */
  assert_int_equal(parse(&o, err, sizeof err, "--sizes", "0:16", "--io-dir",
                         "io", NULL), 0);
  assert_int_equal(rp_char_plan_build(&o, 3, &plan, err, sizeof err), 0);
  assert_int_equal(plan.n, want + 6 * 2 * 6 + 4 * 2 + 1);
  for (size_t i = 0; i < plan.n; i++) {
    const rp_char_spec *s = &plan.pt[i];
    revprof_fn_kind k = revprof_fn_kind_of(s->fn);
    if (k == REVPROF_KIND_P2P)
      assert_int_equal(s->p, 2);
    if (k == REVPROF_KIND_LOCAL)
      assert_true(s->p == 1 && s->d == 0);
    if (s->fn == REVPROF_FN_BARRIER || s->fn == REVPROF_FN_IBARRIER ||
        s->fn == REVPROF_FN_WIN_FENCE || s->fn == REVPROF_FN_WIN_LOCK ||
        s->fn == REVPROF_FN_FILE_OPEN || s->fn == REVPROF_FN_FILE_CLOSE ||
        s->fn == REVPROF_FN_FILE_SYNC || s->fn == REVPROF_FN_FILE_SET_VIEW)
      assert_int_equal(s->d, 0);
  }
  rp_char_plan_free(&plan);
}

static void test_characterize_plan_max_buffer(void **state) {
  (void)state;
  rp_char_options o;
  rp_char_plan plan = {0};
  char err[128];
  assert_int_equal(parse(&o, err, sizeof err, "--functions", "MPI_Alltoall",
                         "--sizes", "1K:4K", "--max-buffer", "8K", NULL),
                   0);
  assert_int_equal(rp_char_plan_build(&o, 4, &plan, err, sizeof err), 0);
  /* p*d <= 8K: p=2: 1K 2K 4K; p=3: 1K 2K; p=4: 1K 2K */
  assert_int_equal(plan.n, 7);
  assert_int_equal(plan.nlimited, 2);
  rp_char_plan_free(&plan);
  assert_int_equal(parse(&o, err, sizeof err, "--functions", "MPI_Alltoall",
                         "--sizes", "1M", "--max-buffer", "1K", NULL), 0);
  assert_int_equal(rp_char_plan_build(&o, 2, &plan, err, sizeof err),
                   REVPROF_ERANGE);
  assert_non_null(strstr(err, "nothing to measure"));
  rp_char_plan_free(&plan);
}

/* the message rows send freshly written data; collectives, one-sided
 * operations and local rows keep their buffers */
static void test_characterize_fresh_send(void **state) {
  (void)state;
  const revprof_fn fresh[] = {REVPROF_FN_SEND,     REVPROF_FN_RECV,
                              REVPROF_FN_LATENCY,  REVPROF_FN_ISEND,
                              REVPROF_FN_IRECV,    REVPROF_FN_SENDRECV,
                              REVPROF_FN_WAIT,     REVPROF_FN_GAP,
                              REVPROF_FN_POST,     REVPROF_FN_GAP_ALL};
  int n = 0;
  for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++)
    assert_true(rp_char_fresh_send(fresh[i]));
  for (int f = 0; f < REVPROF_FN_COUNT; f++)
    n += rp_char_fresh_send((revprof_fn)f);
  assert_int_equal(n, (int)(sizeof fresh / sizeof fresh[0]));
  assert_false(rp_char_fresh_send(REVPROF_FN_BCAST));
  assert_false(rp_char_fresh_send(REVPROF_FN_PUT));
  assert_false(rp_char_fresh_send(REVPROF_FN_WTIME));
}

static void test_characterize_buffers(void **state) {
  (void)state;
  size_t s, r;
  rp_char_buffers(REVPROF_FN_GATHER, 4, 100, &s, &r);
  assert_int_equal(s, 100);
  assert_int_equal(r, 400);
  rp_char_buffers(REVPROF_FN_SCATTERV, 4, 100, &s, &r);
  assert_int_equal(s, 400);
  assert_int_equal(r, 100);
  rp_char_buffers(REVPROF_FN_IALLTOALL, 3, 10, &s, &r);
  assert_true(s == 30 && r == 30);
  rp_char_buffers(REVPROF_FN_REDUCE_SCATTER_BLOCK, 3, 10, &s, &r);
  assert_true(s == 30 && r == 10);
  /* the gap's train lands in one receive buffer per message */
  rp_char_buffers(REVPROF_FN_WAIT, 2, 100, &s, &r);
  assert_true(s == 100 && r == 100);
  rp_char_buffers(REVPROF_FN_GAP, 2, 100, &s, &r);
  assert_true(s == 100 && r == 100 * REVPROF_GAP_TRAIN);
  assert_true(rp_char_fits(REVPROF_FN_GAP, 2, 1024, 8192));
  assert_false(rp_char_fits(REVPROF_FN_GAP, 2, 2048, 8192));
  assert_true(rp_char_fits(REVPROF_FN_WAIT, 2, 8192, 8192));
  assert_false(rp_char_fits(REVPROF_FN_ALLTOALL, 4, 1L << 30, 1L << 40));
  /* file sizes are no buffers; a sync writes a fixed block first */
  rp_char_buffers(REVPROF_FN_FILE_PREALLOCATE, 4, 1L << 30, &s, &r);
  assert_true(s == 0 && r == 0);
  assert_true(rp_char_fits(REVPROF_FN_FILE_SET_SIZE, 4, 1L << 30, 4096));
  assert_false(rp_char_fits(REVPROF_FN_FILE_SET_SIZE, 4, 1L << 32, 4096));
  rp_char_buffers(REVPROF_FN_FILE_SYNC, 4, 0, &s, &r);
  assert_true(s == RP_IO_SYNC_BYTES && r == 0);
}

static void test_characterize_shuffle_deterministic(void **state) {
  (void)state;
  rp_char_options o;
  rp_char_plan a = {0}, b = {0}, c = {0};
  char err[128];
  rp_char_options_init(&o, RP_PRESET_QUICK);
  assert_int_equal(rp_char_plan_build(&o, 4, &a, err, sizeof err), 0);
  assert_int_equal(rp_char_plan_build(&o, 4, &b, err, sizeof err), 0);
  assert_int_equal(rp_char_plan_build(&o, 4, &c, err, sizeof err), 0);
  rp_char_plan_shuffle(&a, 7);
  rp_char_plan_shuffle(&b, 7);
  rp_char_plan_shuffle(&c, 8);
  assert_memory_equal(a.pt, b.pt, a.n * sizeof *a.pt);
  assert_memory_not_equal(a.pt, c.pt, a.n * sizeof *a.pt);
  /* a permutation: same multiset as the unshuffled plan */
  rp_char_plan u = {0};
  assert_int_equal(rp_char_plan_build(&o, 4, &u, err, sizeof err), 0);
  for (size_t i = 0; i < u.n; i++) {
    size_t hits = 0;
    for (size_t j = 0; j < a.n; j++)
      hits += a.pt[j].fn == u.pt[i].fn && a.pt[j].p == u.pt[i].p &&
              a.pt[j].d == u.pt[i].d;
    assert_int_equal(hits, 1);
  }
  uint64_t st = 1;
  assert_true(rp_rand_next(&st) == 0x910a2dec89025cc1ULL); /* splitmix64 */
  rp_char_plan_free(&a);
  rp_char_plan_free(&b);
  rp_char_plan_free(&c);
  rp_char_plan_free(&u);
}

/* ---------------------------------------------------------- statistics */

static void test_characterize_stats_outlier_rejected(void **state) {
  (void)state;
  double x[] = {1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0, 25.0}, w[8];
  rp_stats s;
  assert_int_equal(rp_stats_compute(x, 8, w, &s), 0);
  assert_int_equal(s.n, 7);
  assert_int_equal(s.nrejected, 1);
  assert_near(s.max, 1.1, 1e-12);
  assert_near(s.min, 0.9, 1e-12);
  assert_near(s.median, 1.0, 1e-12);
  assert_near(s.mean, 7.0 / 7.0, 1e-12);
  /* sd of {0.9,0.95,1,1,1,1.05,1.1} = sqrt(0.025/6) */
  assert_near(s.rse, sqrt(0.025 / 6.0) / sqrt(7.0), 1e-12);
  assert_true(s.min <= s.median && s.median <= s.max);
}

static void test_characterize_stats_small_and_constant(void **state) {
  (void)state;
  double w[4];
  rp_stats s;
  double three[] = {3.0, 1.0, 100.0}; /* n < 4: nothing rejected */
  assert_int_equal(rp_stats_compute(three, 3, w, &s), 0);
  assert_int_equal(s.n, 3);
  assert_near(s.median, 3.0, 0);
  assert_near(s.max, 100.0, 0);
  double same[] = {2e-6, 2e-6, 2e-6, 2e-6};
  assert_int_equal(rp_stats_compute(same, 4, w, &s), 0);
  assert_near(s.rse, 0.0, 0);
  assert_int_equal(s.nrejected, 0);
  double zero[] = {0.0, 0.0};
  assert_int_equal(rp_stats_compute(zero, 2, w, &s), 0);
  assert_near(s.rse, 0.0, 0);
  assert_int_equal(rp_stats_compute(zero, 0, w, &s), REVPROF_EINVAL);
}

static void test_characterize_stop_rule(void **state) {
  (void)state;
  rp_stop_rule r = {0.05, 1.0, 10, 1000};
  assert_int_equal(rp_stop_decide(&r, 5, 0.1, 0.01), RP_STOP_NO);
  assert_int_equal(rp_stop_decide(&r, 10, 0.1, 0.01), RP_STOP_RSE);
  assert_int_equal(rp_stop_decide(&r, 10, 0.1, 0.2), RP_STOP_NO);
  assert_int_equal(rp_stop_decide(&r, 10, 0.1, -1.0), RP_STOP_NO);
  assert_int_equal(rp_stop_decide(&r, 3, 1.5, -1.0), RP_STOP_TIME);
  assert_int_equal(rp_stop_decide(&r, 1, 1.5, -1.0), RP_STOP_NO);
  assert_int_equal(rp_stop_decide(&r, 1, 10.0, -1.0), RP_STOP_TIME);
  assert_int_equal(rp_stop_decide(&r, 1000, 0.1, 0.5), RP_STOP_REPS);
  assert_true(rp_stop_check_due(1) && rp_stop_check_due(32));
  int due = 0;
  for (long n = 33; n <= 1000; n++)
    due += rp_stop_check_due(n);
  assert_true(due > 10 && due < 400);
  assert_string_equal(rp_stop_name(RP_STOP_TIME), "time cap");
}

/* ----------------------------------------------------- jump detection */

static void test_characterize_jump_found_at_protocol_switch(void **state) {
  (void)state;
  double d[12], t[12];
  long mid[4];
  double score[4];
  for (int i = 0; i < 12; i++) { /* t = 1us + d/1GB/s, x3 from 8K on */
    d[i] = 64.0 * pow(2.0, i);
    t[i] = 1e-6 + d[i] * 1e-9;
    if (d[i] >= 8192)
      t[i] = 3.0 * t[i] + 5e-6;
  }
  int n = rp_jumps_find(d, t, 12, 1.5, mid, score, 4);
  assert_int_equal(n, 1);
  assert_int_equal(mid[0], 6144); /* between 4K and 8K */
  assert_true(score[0] > log(1.5));
}

static void test_characterize_jump_none_on_smooth_data(void **state) {
  (void)state;
  double d[16], t[16];
  long mid[4];
  double score[4];
  for (int i = 0; i < 16; i++) { /* latency + bandwidth, 3 % wiggle */
    d[i] = pow(2.0, i);
    t[i] = (2e-6 + d[i] / 5e9) * (1.0 + 0.03 * ((i % 3) - 1));
  }
  assert_int_equal(rp_jumps_find(d, t, 16, 1.5, mid, score, 4), 0);
  assert_int_equal(rp_jumps_find(d, t, 3, 1.5, mid, score, 4), 0);
  assert_int_equal(rp_jumps_find(d, t, 16, 0.0, mid, score, 4), 0);
}

static void test_characterize_jump_keeps_largest(void **state) {
  (void)state;
  double d[12], t[12];
  long mid[1];
  double score[1];
  for (int i = 0; i < 12; i++) {
    d[i] = pow(2.0, i + 4);
    t[i] = 1e-6 * (i >= 3 ? 2.0 : 1.0) * (i >= 8 ? 5.0 : 1.0);
  }
  assert_int_equal(rp_jumps_find(d, t, 12, 1.5, mid, score, 1), 1);
  assert_int_equal(mid[0], (long)((d[7] + d[8]) / 2)); /* x5 beats x2 */
}

static revprof_point pt(revprof_fn fn, int p, double d, double t) {
  revprof_point x;
  memset(&x, 0, sizeof x);
  x.fn = fn;
  x.p = p;
  x.d = d;
  x.min = x.median = x.mean = x.max = t;
  x.reps = 10;
  return x;
}

static void test_characterize_refine_adds_midpoints_for_all_p(void **state) {
  (void)state;
  revprof_point pts[64];
  size_t n = 0;
  for (int p = 2; p <= 4; p++)
    for (int i = 0; i < 10; i++) {
      double d = pow(2.0, i + 6);
      double t = 1e-6 * p * (d >= 4096 ? 4.0 : 1.0);
      /* the jump is seen at p = 3 only (noise hides it elsewhere) */
      if (p != 3)
        t = 1e-6 * p;
      pts[n++] = pt(REVPROF_FN_BCAST, p, d, t);
    }
  for (int i = 0; i < 8; i++) /* a smooth function: no extra sizes */
    pts[n++] = pt(REVPROF_FN_LATENCY, 2, pow(2.0, i), 1e-6);
  rp_char_plan extra = {0};
  assert_int_equal(rp_char_refine(pts, n, 1.5, 3, 1L << 30, &extra), 0);
  assert_int_equal(extra.n, 3);
  for (size_t i = 0; i < extra.n; i++) {
    assert_int_equal(extra.pt[i].fn, REVPROF_FN_BCAST);
    assert_int_equal(extra.pt[i].d, 3072);
  }
  rp_char_plan_free(&extra);
  /* a second round does not add what was measured already */
  pts[n++] = pt(REVPROF_FN_BCAST, 3, 3072, 4e-6);
  assert_int_equal(rp_char_refine(pts, n, 1.5, 3, 1L << 30, &extra), 0);
  for (size_t i = 0; i < extra.n; i++)
    assert_true(extra.pt[i].d != 3072);
  rp_char_plan_free(&extra);
}

/* ---------------------------------------------------- budget, progress */

static void test_characterize_budget(void **state) {
  (void)state;
  double cap;
  assert_int_equal(rp_budget_cap(0.0, 100.0, 10, 0.5, &cap), RP_BUDGET_RUN);
  assert_near(cap, 0.5, 0);
  assert_int_equal(rp_budget_cap(60.0, 10.0, 10, 0.5, &cap), RP_BUDGET_RUN);
  assert_near(cap, 0.5, 0);
  assert_int_equal(rp_budget_cap(60.0, 58.0, 10, 0.5, &cap),
                   RP_BUDGET_SHRINK);
  assert_near(cap, 0.2, 1e-12);
  assert_int_equal(rp_budget_cap(60.0, 60.0, 10, 0.5, &cap), RP_BUDGET_SKIP);
  assert_int_equal(rp_budget_cap(60.0, 70.0, 1, 0.5, &cap), RP_BUDGET_SKIP);
}

static void test_characterize_eta(void **state) {
  (void)state;
  assert_true(rp_eta(5.0, 0, 100, 0.0) < 0.0);
  assert_near(rp_eta(10.0, 25, 100, 0.0), 30.0, 1e-9);
  assert_near(rp_eta(10.0, 25, 100, 20.0), 10.0, 1e-9); /* budget left */
  assert_near(rp_eta(10.0, 100, 100, 0.0), 0.0, 0);
  char b[32];
  rp_fmt_duration(42.4, b, sizeof b);
  assert_string_equal(b, "42 s");
  rp_fmt_duration(185.0, b, sizeof b);
  assert_string_equal(b, "3 min 05 s");
  rp_fmt_duration(3720.0, b, sizeof b);
  assert_string_equal(b, "1 h 02 min");
  rp_fmt_duration(-1.0, b, sizeof b);
  assert_string_equal(b, "?");
}

static void test_characterize_clock_offset(void **state) {
  (void)state;
  /* remote clock 5 s ahead; one-way 10 us, one exchange delayed */
  double ts[3] = {100.0, 200.0, 300.0};
  double tr[3] = {105.00001, 205.00051, 305.00001};
  double te[3] = {100.00002, 200.00102, 300.00002};
  assert_near(rp_clock_offset(ts, tr, te, 3), 5.0, 1e-9);
}

static void test_characterize_describe(void **state) {
  (void)state;
  rp_char_options o;
  char err[128], buf[1024];
  assert_int_equal(parse(&o, err, sizeof err, "--quick", "--functions",
                         "latency,MPI_Bcast", "--sync", "window", NULL), 0);
  rp_char_describe(&o, 4, buf, sizeof buf);
  assert_non_null(strstr(buf, "preset quick"));
  assert_non_null(strstr(buf, "latency,MPI_Bcast"));
  assert_non_null(strstr(buf, "sync window"));
  assert_non_null(strstr(buf, "procs 2..4"));
  assert_null(strstr(buf, "io-dir"));
  /* "all" is what the options can time; the directory is recorded */
  assert_int_equal(parse(&o, err, sizeof err, NULL), 0);
  rp_char_describe(&o, 2, buf, sizeof buf);
  assert_non_null(strstr(buf, "functions all;"));
  assert_int_equal(parse(&o, err, sizeof err, "--io-dir", "/tmp", NULL), 0);
  rp_char_describe(&o, 2, buf, sizeof buf);
  assert_non_null(strstr(buf, "functions all; io-dir /tmp;"));
}

/* The reference message's two times: a note beyond the limit either way
 * (the factor and both times in it), none within it, at it, or without
 * both times or a limit above 1. */
static void test_characterize_drift(void **state) {
  (void)state;
  char buf[300] = "x";
  assert_int_equal(rp_char_drift(1e-7, 1.4e-7, 1.5, buf, sizeof buf), 0);
  assert_string_equal(buf, "");
  assert_int_equal(rp_char_drift(1e-7, 1.5e-7, 1.5, buf, sizeof buf), 0);
  assert_int_equal(rp_char_drift(3e-7, 2e-7, 1.5, buf, sizeof buf), 0);
  assert_int_equal(rp_char_drift(1e-7, 3e-7, 1.5, buf, sizeof buf), 1);
  assert_non_null(strstr(buf, REVPROF_NOTES_DRIFT));
  assert_int_equal(strncmp(buf, REVPROF_NOTES_DRIFT,
                           strlen(REVPROF_NOTES_DRIFT)), 0);
  assert_non_null(strstr(buf, "0.1 us before the first point"));
  assert_non_null(strstr(buf, "0.3 us after the last (3.00x)"));
  assert_int_equal(rp_char_drift(4e-7, 1e-7, 1.5, buf, sizeof buf), 1);
  assert_non_null(strstr(buf, "(0.25x)"));
  strcpy(buf, "x");
  assert_int_equal(rp_char_drift(0.0, 3e-7, 1.5, buf, sizeof buf), 0);
  assert_string_equal(buf, "");
  assert_int_equal(rp_char_drift(1e-7, 0.0, 1.5, buf, sizeof buf), 0);
  assert_int_equal(rp_char_drift(1e-7, 3e-7, 1.0, buf, sizeof buf), 0);
  /* a short buffer is cut, not overrun */
  char small[16];
  assert_int_equal(rp_char_drift(1e-7, 3e-7, 1.5, small, sizeof small), 1);
  assert_int_equal(strlen(small), sizeof small - 1);
}

/* Passes merge into one point: median of medians, extremes, summed reps,
 * rse from the spread of the pass means; one pass is left as it is. */
static void test_characterize_merge_passes(void **state) {
  (void)state;
  revprof_point in[3] = {
      {REVPROF_FN_BCAST, 4, 64, 1.0e-6, 2.0e-6, 2.1e-6, 3.0e-6, 10, 0.01},
      {REVPROF_FN_BCAST, 4, 64, 0.8e-6, 2.4e-6, 2.5e-6, 5.0e-6, 20, 0.02},
      {REVPROF_FN_BCAST, 4, 64, 1.2e-6, 1.6e-6, 1.7e-6, 2.0e-6, 30, 0.01}};
  revprof_point out;
  rp_char_merge_passes(in, 3, &out);
  assert_int_equal(out.fn, REVPROF_FN_BCAST);
  assert_int_equal(out.p, 4);
  assert_near(out.d, 64, 0);
  assert_near(out.median, 2.0e-6, 1e-18);
  assert_near(out.mean, 2.1e-6, 1e-18);
  assert_near(out.min, 0.8e-6, 0);
  assert_near(out.max, 5.0e-6, 0);
  assert_int_equal(out.reps, 60);
  /* means 2.1, 2.5, 1.7 (us): sd 0.4, se 0.4/sqrt(3), relative to 2.1 */
  assert_rel(out.rse, 0.4 / sqrt(3.0) / 2.1, 1e-9);
  rp_char_merge_passes(in + 1, 1, &out);
  assert_memory_equal(&out, &in[1], sizeof out);
  /* an even count takes the middle two medians' mean */
  rp_char_merge_passes(in, 2, &out);
  assert_near(out.median, 2.2e-6, 1e-18);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_characterize_parse_defaults),
      cmocka_unit_test(test_characterize_merge_passes),
      cmocka_unit_test(test_characterize_parse_presets_overridden),
      cmocka_unit_test(test_characterize_parse_all_options),
      cmocka_unit_test(test_characterize_parse_functions),
      cmocka_unit_test(test_characterize_parse_unknown_function),
      cmocka_unit_test(test_characterize_parse_bad_ranges),
      cmocka_unit_test(test_characterize_parse_usage_errors),
      cmocka_unit_test(test_characterize_parse_io_dir),
      cmocka_unit_test(test_characterize_fs_names),
      cmocka_unit_test(test_characterize_validate_world),
      cmocka_unit_test(test_characterize_usage_documents_options),
      cmocka_unit_test(test_characterize_list_has_every_function),
      cmocka_unit_test(test_characterize_sizes_powers_of_two),
      cmocka_unit_test(test_characterize_procs_lists),
      cmocka_unit_test(test_characterize_eager_search),
      cmocka_unit_test(test_characterize_plan_covers_table),
      cmocka_unit_test(test_characterize_plan_max_buffer),
      cmocka_unit_test(test_characterize_buffers),
      cmocka_unit_test(test_characterize_fresh_send),
      cmocka_unit_test(test_characterize_shuffle_deterministic),
      cmocka_unit_test(test_characterize_stats_outlier_rejected),
      cmocka_unit_test(test_characterize_stats_small_and_constant),
      cmocka_unit_test(test_characterize_stop_rule),
      cmocka_unit_test(test_characterize_jump_found_at_protocol_switch),
      cmocka_unit_test(test_characterize_jump_none_on_smooth_data),
      cmocka_unit_test(test_characterize_jump_keeps_largest),
      cmocka_unit_test(test_characterize_refine_adds_midpoints_for_all_p),
      cmocka_unit_test(test_characterize_budget),
      cmocka_unit_test(test_characterize_eta),
      cmocka_unit_test(test_characterize_clock_offset),
      cmocka_unit_test(test_characterize_describe),
      cmocka_unit_test(test_characterize_drift),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
