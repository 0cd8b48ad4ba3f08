/* Unit tests of the trace writers without MPI: the per-rank streams, their
 * reader, Chrome JSON (checked by a strict JSON parser) and OTF2 (read back
 * through the OTF2 reader: nesting, order, messages), partial runs, and
 * failures that must only switch tracing off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rp_test.h"
#include "rp_trace.h"
#include "rp_trace_int.h"

#ifdef RP_HAVE_OTF2
#include <otf2/otf2.h>
#endif

/* ---------------------------------------------------------------- helpers */

static char *tmpdir(void) {
  char *d = strdup("/tmp/rp_trace_XXXXXX");
  assert_non_null(d);
  assert_non_null(mkdtemp(d));
  return d;
}

static void rmtree(const char *dir) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}

static int exists(const char *dir, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

/* A strict JSON syntax check (RFC 8259 grammar); returns the end of the
 * value or NULL. */
static const char *json_value(const char *s);

static const char *json_ws(const char *s) {
  while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
    s++;
  return s;
}

static const char *json_string(const char *s) {
  if (*s++ != '"')
    return NULL;
  for (; *s != '"'; s++) {
    if ((unsigned char)*s < 0x20)
      return NULL;
    if (*s == '\\') {
      s++;
      if (*s == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
            return NULL;
        s += 4;
      } else if (!*s || !strchr("\"\\/bfnrt", *s))
        return NULL;
    }
  }
  return s + 1;
}

static const char *json_number(const char *s) {
  if (*s == '-')
    s++;
  if (*s == '0')
    s++;
  else if (*s >= '1' && *s <= '9')
    while (*s >= '0' && *s <= '9')
      s++;
  else
    return NULL;
  if (*s == '.') {
    if (!(*++s >= '0' && *s <= '9'))
      return NULL;
    while (*s >= '0' && *s <= '9')
      s++;
  }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-')
      s++;
    if (!(*s >= '0' && *s <= '9'))
      return NULL;
    while (*s >= '0' && *s <= '9')
      s++;
  }
  return s;
}

static const char *json_value(const char *s) {
  s = json_ws(s);
  if (*s == '{' || *s == '[') {
    char close = *s == '{' ? '}' : ']';
    s = json_ws(s + 1);
    if (*s == close)
      return s + 1;
    for (;;) {
      if (close == '}') {
        if (!(s = json_string(json_ws(s))))
          return NULL;
        s = json_ws(s);
        if (*s++ != ':')
          return NULL;
      }
      if (!(s = json_value(s)))
        return NULL;
      s = json_ws(s);
      if (*s == close)
        return s + 1;
      if (*s++ != ',')
        return NULL;
    }
  }
  if (*s == '"')
    return json_string(s);
  if (strncmp(s, "true", 4) == 0 || strncmp(s, "null", 4) == 0)
    return s + 4;
  if (strncmp(s, "false", 5) == 0)
    return s + 5;
  return json_number(s);
}

static void assert_valid_json(const char *path) {
  char *text = slurp(path);
  assert_non_null(text);
  const char *end = json_value(text);
  if (!end || *json_ws(end) != '\0')
    fail_msg("%s: invalid JSON near byte %ld", path,
             end ? (long)(end - text) : -1L);
  free(text);
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *s = hay; (s = strstr(s, needle)) != NULL; s++)
    n++;
  return n;
}

/* A small run of rank `rank` of `size`: compute, a region around a send,
 * and a message received from the next rank. */
static void fake_rank(const char *dir, const char *formats, int rank,
                      int size, int partial) {
  rp_trace_config c = {dir, formats, rank, size, 0};
  assert_int_equal(rp_trace_open(&c), 0);
  double t = 1e-3 * rank;
  rp_trace_state("MPI_Init", 0.0, t + 1e-6, 0);
  rp_trace_state("compute", t + 1e-6, t + 2e-4, 0);
  rp_trace_state("MPI_Send", t + 2e-4, t + 2.5e-4, 800);
  rp_trace_state("MPI_Recv", t + 2.5e-4, t + 4e-4, 800);
  rp_trace_message((rank + 1) % size, t + 1.9e-4, t + 4e-4, 7, 800);
  rp_trace_state("row", t + 1e-6, t + 4e-4, 0); /* recorded at its end */
  rp_trace_state("MPI_Allreduce", t + 4e-4, 5e-3, 8);
  rp_trace_state("MPI_Finalize", 5e-3, 5e-3, 0);
  rp_trace_close(partial);
}

/* ------------------------------------------------------------------ tests */

static void test_trace_formats_parse(void **state) {
  (void)state;
  char bad[64];
  assert_int_equal(rp_trace_parse_formats("otf2,chrome", bad, sizeof bad),
                   RP_TRACE_FMT_OTF2 | RP_TRACE_FMT_CHROME);
  assert_string_equal(bad, "");
  assert_int_equal(rp_trace_parse_formats(" Chrome , text", bad, sizeof bad),
                   RP_TRACE_FMT_CHROME | RP_TRACE_FMT_TEXT);
  assert_int_equal(rp_trace_parse_formats("all", bad, sizeof bad),
                   RP_TRACE_FMT_OTF2 | RP_TRACE_FMT_CHROME);
  assert_int_equal(rp_trace_parse_formats("", bad, sizeof bad), 0);
  assert_int_equal(rp_trace_parse_formats("none", bad, sizeof bad), 0);
  assert_int_equal(rp_trace_parse_formats(NULL, bad, sizeof bad), 0);
  assert_int_equal(rp_trace_parse_formats("vtf,json,xml", bad, sizeof bad),
                   RP_TRACE_FMT_CHROME);
  assert_string_equal(bad, "vtf,xml");
}

static void test_trace_classify_names(void **state) {
  (void)state;
  assert_int_equal(rp_trace_classify("compute"), RP_TRACE_CLASS_COMPUTE);
  assert_int_equal(rp_trace_classify("MPI_Send"), RP_TRACE_CLASS_SEND);
  assert_int_equal(rp_trace_classify("MPI_Isend"), RP_TRACE_CLASS_SEND);
  assert_int_equal(rp_trace_classify("MPI_Recv"), RP_TRACE_CLASS_RECV);
  assert_int_equal(rp_trace_classify("MPI_Sendrecv"), RP_TRACE_CLASS_RECV);
  assert_int_equal(rp_trace_classify("MPI_Waitall"), RP_TRACE_CLASS_WAIT);
  assert_int_equal(rp_trace_classify("MPI_Allreduce"), RP_TRACE_CLASS_COLL);
  assert_int_equal(rp_trace_classify("MPI_Ibcast"), RP_TRACE_CLASS_COLL);
  assert_int_equal(rp_trace_classify("MPI_Iallreduce"), RP_TRACE_CLASS_COLL);
  assert_int_equal(rp_trace_classify("MPI_Irecv"), RP_TRACE_CLASS_RECV);
  assert_int_equal(rp_trace_classify("MPI_Issend"), RP_TRACE_CLASS_SEND);
  assert_int_equal(rp_trace_classify("MPI_Init"), RP_TRACE_CLASS_MPI);
  assert_int_equal(rp_trace_classify("MPI_Comm_split"), RP_TRACE_CLASS_MPI);
  assert_int_equal(rp_trace_classify("idle"), RP_TRACE_CLASS_IDLE);
  assert_int_equal(rp_trace_classify("row"), RP_TRACE_CLASS_REGION);
  assert_string_equal(rp_trace_class_label(RP_TRACE_CLASS_COLL),
                      "MPI collective");
}

static void test_trace_off_writes_nothing(void **state) {
  (void)state;
  char *dir = tmpdir();
  rp_trace_config c = {dir, "", 0, 1, 0};
  assert_int_equal(rp_trace_open(&c), 0);
  rp_trace_state("MPI_Send", 0, 1, 8);
  rp_trace_message(0, 0, 1, 0, 8);
  rp_trace_close(0);
  rp_trace_close(0); /* twice is safe */
  assert_false(exists(dir, "p0.trace"));
  assert_false(exists(dir, "p0.trace.part"));
  rmtree(dir);
  free(dir);
}

static void test_trace_stream_round_trips(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200], err[512];
  rp_trace_config c = {dir, "text", 0, 1, 0};
  assert_int_equal(rp_trace_open(&c), 0);
  assert_true(exists(dir, "p0.trace.part"));
  rp_trace_state("MPI_Send", 0.1, 0.1 + 1.0 / 3.0, 1e6);
  rp_trace_state("a \"region\"\nwith newline", 0.5, 0.75, 0);
  rp_trace_message(0, 1e-7, 2.5e-7, 42, 16);
  rp_trace_close(0);
  assert_false(exists(dir, "p0.trace.part"));
  assert_false(exists(dir, "trace.json")); /* text only: nothing merged */
  snprintf(path, sizeof path, "%s/p0.trace", dir);
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_rank(r), 0);
  assert_int_equal(rp_trace_reader_size(r), 1);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 1);
  assert_int_equal(ev.kind, 'S');
  assert_string_equal(ev.name, "MPI_Send");
  assert_true(ev.t1 == 0.1 + 1.0 / 3.0); /* exact: 17 digits */
  assert_true(ev.bytes == 1e6);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 1);
  assert_string_equal(ev.name, "a \"region\"_with newline");
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 1);
  assert_int_equal(ev.kind, 'M');
  assert_int_equal(ev.src, 0);
  assert_int_equal(ev.tag, 42);
  assert_true(ev.t0 == 1e-7 && ev.t1 == 2.5e-7 && ev.bytes == 16);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_end(r), RP_TRACE_END_COMPLETE);
  rp_trace_reader_close(r);
  rmtree(dir);
  free(dir);
}

/* The cost model's count and cost of a record: timing a line keeps
 * nothing in the stream. */
static void test_trace_record_cost(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200], err[512];
  rp_trace_config off = {dir, "", 0, 1, 0}, on = {dir, "text", 0, 1, 0};
  assert_int_equal(rp_trace_open(&off), 0);
  assert_true(rp_trace_record_cost() == 0.0);
  rp_trace_close(0);
  assert_int_equal(rp_trace_open(&on), 0);
  double n0 = rp_trace_records();
  rp_trace_state("MPI_Send", 0.1, 0.2, 8);
  double c = rp_trace_record_cost();
  assert_true(c > 0.0 && c < 1e-3);
  rp_trace_message(0, 1e-7, 2.5e-7, 42, 16);
  assert_true(rp_trace_records() - n0 == 2.0);
  rp_trace_close(0);
  snprintf(path, sizeof path, "%s/p0.trace", dir);
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  int lines = 0;
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err), 0);
  while (rp_trace_reader_next(r, &ev, err, sizeof err) == 1)
    lines++;
  assert_int_equal(lines, 2); /* the timed lines are not in the trace */
  rp_trace_reader_close(r);
  rmtree(dir);
  free(dir);
}

static void test_trace_stream_is_bounded_in_memory(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200];
  rp_trace_config c = {dir, "text", 0, 1, 0};
  struct stat st;
  assert_int_equal(rp_trace_open(&c), 0);
  snprintf(path, sizeof path, "%s/p0.trace.part", dir);
  for (int i = 0; i < 20000; i++)
    rp_trace_state("MPI_Barrier", i * 1e-6, (i + 0.5) * 1e-6, 0);
  /* ~1 MB of events: the buffer (256 KiB) must have gone to disk */
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size > 512 * 1024);
  rp_trace_close(0);
  rmtree(dir);
  free(dir);
}

static void test_trace_reader_rejects_bad_streams(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200], err[512];
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  FILE *f;
  snprintf(path, sizeof path, "%s/p0.trace", dir);
  f = fopen(path, "w");
  fputs("hello\n", f);
  fclose(f);
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err),
                   REVPROF_EFORMAT);
  assert_non_null(strstr(err, path));
  f = fopen(path, "w");
  fputs(RP_TRACE_MAGIC "\nH 0 1\nS 0 1 0 ok\nS zero 1 0 bad\n", f);
  fclose(f);
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 1);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err),
                   REVPROF_ESYNTAX);
  assert_non_null(strstr(err, ":4:"));
  rp_trace_reader_close(r);
  /* a crash cuts the last line and leaves no end line: truncated */
  f = fopen(path, "w");
  fputs(RP_TRACE_MAGIC "\nH 0 1\nS 0 1 0 ok\nS 1 2", f);
  fclose(f);
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 1);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_end(r), RP_TRACE_END_TRUNCATED);
  rp_trace_reader_close(r);
  /* a line longer than any writer makes is malformed, not cut short */
  f = fopen(path, "w");
  fprintf(f, RP_TRACE_MAGIC "\nH 0 1\nS 0 1 0 %02000d\n", 7);
  fclose(f);
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err),
                   REVPROF_ESYNTAX);
  assert_non_null(strstr(err, ":3: line too long"));
  rp_trace_reader_close(r);
  snprintf(path, sizeof path, "%s/missing.trace", dir);
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err),
                   REVPROF_EMISSING);
  assert_non_null(strstr(err, "missing.trace"));
  assert_int_equal(rp_trace_stream_path(dir, 5, path, sizeof path),
                   REVPROF_EMISSING);
  rmtree(dir);
  free(dir);
}

/* A run where rank 0 left no stream and rank 1 an empty one (killed
 * before it wrote): the size comes from rank 2's stream, ranks 0 and 1 are
 * "left out" (1) with a message naming them, not errors. */
static void test_trace_lost_ranks_are_left_out(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200], err[512];
  rp_trace_reader *r = NULL;
  FILE *f;
  snprintf(path, sizeof path, "%s/p1.trace.part", dir);
  f = fopen(path, "w");
  fclose(f);
  snprintf(path, sizeof path, "%s/p2.trace", dir);
  f = fopen(path, "w");
  fputs(RP_TRACE_MAGIC "\nH 2 3\nS 0 1 0 ok\nE complete\n", f);
  fclose(f);
  assert_int_equal(rp_trace_dir_size(dir, err, sizeof err), 3);
  assert_int_equal(rp_trace_open_rank(dir, 0, &r, err, sizeof err), 1);
  assert_null(r);
  assert_non_null(strstr(err, "rank 0 has no trace stream"));
  assert_int_equal(rp_trace_open_rank(dir, 1, &r, err, sizeof err), 1);
  assert_non_null(strstr(err, "empty (rank 1 ended before it wrote"));
  assert_int_equal(rp_trace_open_rank(dir, 2, &r, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_rank(r), 2);
  rp_trace_reader_close(r);
  rmtree(dir);
  free(dir);
  /* no stream at all: an error that names the directory */
  dir = tmpdir();
  assert_int_equal(rp_trace_dir_size(dir, err, sizeof err), REVPROF_EMISSING);
  assert_non_null(strstr(err, "no trace stream p0.trace"));
  rmtree(dir);
  free(dir);
}

static void test_trace_chrome_merges_ranks(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200];
  for (int rank = 0; rank < 3; rank++) {
    fake_rank(dir, "chrome", rank, 3, 0);
    snprintf(path, sizeof path, "%s/trace-%d.json", dir, rank);
    assert_valid_json(path);
    /* merged by the last rank to close, not before */
    assert_int_equal(exists(dir, "trace.json"), rank == 2);
  }
  snprintf(path, sizeof path, "%s/trace.json", dir);
  assert_valid_json(path);
  char *text = slurp(path);
  assert_int_equal(count(text, "\"ph\":\"X\""), 3 * 7);
  assert_int_equal(count(text, "\"ph\":\"s\""), 3);
  assert_int_equal(count(text, "\"ph\":\"f\""), 3);
  assert_int_equal(count(text, "\"thread_name\""), 3);
  assert_non_null(strstr(text, "\"partial\":false"));
  /* rank 1's MPI_Send: ts and dur in µs of simulated time */
  assert_non_null(strstr(text, "\"name\":\"MPI_Send\",\"cat\":\"send\","
                               "\"ph\":\"X\",\"pid\":0,\"tid\":1,"
                               "\"ts\":1200.000,\"dur\":50.000,"
                               "\"args\":{\"bytes\":800}"));
  assert_false(exists(dir, "PARTIAL"));
  free(text);
  rmtree(dir);
  free(dir);
}

static void test_trace_partial_is_marked(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200], err[512];
  fake_rank(dir, "chrome", 0, 2, 0);
  fake_rank(dir, "chrome", 1, 2, 1); /* rank 1 aborted */
  assert_true(exists(dir, "PARTIAL"));
  assert_false(exists(dir, "trace.json")); /* no merging in an abort */
  assert_int_equal(rp_trace_merge(dir, RP_TRACE_FMT_CHROME, 0, err,
                                  sizeof err), 0);
  snprintf(path, sizeof path, "%s/trace.json", dir);
  assert_valid_json(path);
  char *text = slurp(path);
  assert_non_null(strstr(text, "\"partial\":true"));
  free(text);
  /* a rank that never closed: its .part stream is read, output partial */
  rmtree(dir);
  free(dir);
}

/* A rank that exits without MPI_Finalize: its buffered events reach the
 * stream at exit, marked partial. */
static void test_trace_exit_without_close_is_partial(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200], err[512];
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    rp_trace_config c = {dir, "chrome", 0, 1, 0};
    if (rp_trace_open(&c) != 0)
      _exit(3);
    rp_trace_state("compute", 0, 1e-3, 0);
    exit(0); /* atexit handlers run, no rp_trace_close */
  }
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_true(exists(dir, "p0.trace"));
  assert_true(exists(dir, "PARTIAL"));
  snprintf(path, sizeof path, "%s/p0.trace", dir);
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  assert_int_equal(rp_trace_reader_open(path, &r, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 1);
  assert_string_equal(ev.name, "compute");
  assert_int_equal(rp_trace_reader_next(r, &ev, err, sizeof err), 0);
  assert_int_equal(rp_trace_reader_end(r), RP_TRACE_END_PARTIAL);
  rp_trace_reader_close(r);
  rmtree(dir);
  free(dir);
}

static void test_trace_missing_rank_merges_partial(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200], err[512];
  fake_rank(dir, "text", 0, 3, 0); /* ranks 1 and 2 never wrote */
  assert_int_equal(rp_trace_merge(dir, RP_TRACE_FMT_CHROME, 0, err,
                                  sizeof err), 0);
  snprintf(path, sizeof path, "%s/trace.json", dir);
  assert_valid_json(path);
  char *text = slurp(path);
  assert_non_null(strstr(text, "\"partial\":true"));
  assert_int_equal(count(text, "\"thread_name\""), 3);
  free(text);
  assert_true(exists(dir, "PARTIAL"));
  rmtree(dir);
  free(dir);
}

static void test_trace_unwritable_dir_turns_off(void **state) {
  (void)state;
  rp_trace_config c = {"/proc/self/no/such/dir", "chrome", 0, 1, 0};
  assert_int_equal(rp_trace_open(&c), REVPROF_EIO);
  rp_trace_state("MPI_Send", 0, 1, 8); /* no-ops, no crash */
  rp_trace_message(0, 0, 1, 0, 8);
  rp_trace_close(0);
}

static void test_trace_stale_files_removed(void **state) {
  (void)state;
  char *dir = tmpdir(), path[4200];
  for (int rank = 0; rank < 4; rank++) /* an earlier run with 4 ranks */
    fake_rank(dir, "chrome", rank, 4, 0);
  assert_true(exists(dir, "p3.trace"));
  fake_rank(dir, "chrome", 0, 2, 0);
  assert_false(exists(dir, "p3.trace"));
  assert_false(exists(dir, "trace-3.json"));
  fake_rank(dir, "chrome", 1, 2, 0);
  snprintf(path, sizeof path, "%s/trace.json", dir);
  char *text = slurp(path);
  assert_int_equal(count(text, "\"thread_name\""), 2);
  free(text);
  rmtree(dir);
  free(dir);
}

#ifdef RP_HAVE_OTF2

typedef struct otf2_check {
  uint64_t last[8];          /* last timestamp per location */
  uint32_t stack[8][16];     /* open regions per location */
  int depth[8];
  int enters, leaves, sends, recvs, bad;
  int max_depth;
  int ring; /* messages as fake_rank sends them: check peers, tag, size */
} otf2_check;

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp t,
                                  void *user, OTF2_AttributeList *a,
                                  OTF2_RegionRef region) {
  otf2_check *c = user;
  (void)a;
  if (loc >= 8 || t < c->last[loc] || c->depth[loc] >= 16)
    c->bad++;
  else {
    c->last[loc] = t;
    c->stack[loc][c->depth[loc]++] = region;
    if (c->depth[loc] > c->max_depth)
      c->max_depth = c->depth[loc];
  }
  c->enters++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp t,
                                  void *user, OTF2_AttributeList *a,
                                  OTF2_RegionRef region) {
  otf2_check *c = user;
  (void)a;
  if (loc >= 8 || t < c->last[loc] || c->depth[loc] == 0 ||
      c->stack[loc][c->depth[loc] - 1] != region)
    c->bad++;
  else {
    c->last[loc] = t;
    c->depth[loc]--;
  }
  c->leaves++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_send(OTF2_LocationRef loc, OTF2_TimeStamp t,
                                 void *user, OTF2_AttributeList *a,
                                 uint32_t receiver, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len) {
  otf2_check *c = user;
  (void)a, (void)comm;
  if (loc >= 8 || t < c->last[loc] ||
      (c->ring && (receiver != (loc + 2) % 3 || tag != 7 || len != 800)))
    c->bad++;
  else
    c->last[loc] = t;
  c->sends++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_recv(OTF2_LocationRef loc, OTF2_TimeStamp t,
                                 void *user, OTF2_AttributeList *a,
                                 uint32_t sender, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len) {
  otf2_check *c = user;
  (void)a, (void)comm;
  if (loc >= 8 || t < c->last[loc] ||
      (c->ring && (sender != (loc + 1) % 3 || tag != 7 || len != 800)))
    c->bad++;
  else
    c->last[loc] = t;
  c->recvs++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef loc,
                                     OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nev,
                                     OTF2_LocationGroupRef group) {
  (void)name, (void)type, (void)nev, (void)group;
  OTF2_Reader *r = user;
  OTF2_Reader_SelectLocation(r, loc);
  return OTF2_CALLBACK_SUCCESS;
}

/* Reads the archive in dir back through the OTF2 reader into c. */
static void read_otf2(const char *dir, uint64_t want_locations,
                      otf2_check *c) {
  char anchor[4200];
  snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
  OTF2_Reader *r = OTF2_Reader_Open(anchor);
  assert_non_null(r);
  assert_int_equal(OTF2_Reader_SetSerialCollectiveCallbacks(r),
                   OTF2_SUCCESS);
  uint64_t nloc = 0;
  assert_int_equal(OTF2_Reader_GetNumberOfLocations(r, &nloc), OTF2_SUCCESS);
  assert_int_equal(nloc, want_locations);
  OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
  assert_non_null(gdr);
  OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
  OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, gcb, r);
  OTF2_GlobalDefReaderCallbacks_Delete(gcb);
  uint64_t ndefs = 0;
  assert_int_equal(OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &ndefs),
                   OTF2_SUCCESS);
  OTF2_Reader_CloseGlobalDefReader(r, gdr);
  assert_int_equal(OTF2_Reader_OpenDefFiles(r), OTF2_SUCCESS);
  assert_int_equal(OTF2_Reader_OpenEvtFiles(r), OTF2_SUCCESS);
  for (uint64_t loc = 0; loc < nloc; loc++) {
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, loc);
    uint64_t n = 0;
    if (dr) {
      OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
      OTF2_Reader_CloseDefReader(r, dr);
    }
    assert_non_null(OTF2_Reader_GetEvtReader(r, loc));
  }
  OTF2_Reader_CloseDefFiles(r);
  OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(r);
  OTF2_GlobalEvtReaderCallbacks *ecb = OTF2_GlobalEvtReaderCallbacks_New();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, on_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, on_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ecb, on_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ecb, on_recv);
  OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, ecb, c);
  OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
  uint64_t nev = 0;
  assert_int_equal(OTF2_Reader_ReadAllGlobalEvents(r, ger, &nev),
                   OTF2_SUCCESS);
  OTF2_Reader_CloseGlobalEvtReader(r, ger);
  OTF2_Reader_CloseEvtFiles(r);
  OTF2_Reader_Close(r);
}

static void test_trace_otf2_reads_back(void **state) {
  (void)state;
  char *dir = tmpdir();
  for (int rank = 0; rank < 3; rank++)
    fake_rank(dir, "otf2", rank, 3, 0);
  assert_true(exists(dir, "traces.otf2"));
  assert_false(exists(dir, "trace.json"));
  otf2_check c = {.ring = 1};
  read_otf2(dir, 3, &c);
  assert_int_equal(c.bad, 0);
  assert_int_equal(c.enters, 3 * 7);
  assert_int_equal(c.leaves, 3 * 7);
  assert_int_equal(c.sends, 3); /* each rank's send, from the receivers */
  assert_int_equal(c.recvs, 3);
  assert_int_equal(c.max_depth, 2); /* "row" around compute, send, recv */
  for (int loc = 0; loc < 3; loc++)
    assert_int_equal(c.depth[loc], 0);
  /* a second run replaces the archive */
  for (int rank = 0; rank < 3; rank++)
    fake_rank(dir, "otf2,chrome", rank, 3, 0);
  assert_true(exists(dir, "traces.otf2"));
  assert_true(exists(dir, "trace.json"));
  rmtree(dir);
  free(dir);
}

/* Calls that end as they begin (MPI_Irecv, a send to MPI_PROC_NULL) at
 * the start of the next call come before it, not inside it. */
static void test_trace_otf2_zero_length_calls_are_sequential(void **state) {
  (void)state;
  char *dir = tmpdir();
  rp_trace_config cfg = {dir, "otf2", 0, 1, 0};
  assert_int_equal(rp_trace_open(&cfg), 0);
  rp_trace_state("MPI_Irecv", 1e-6, 1e-6, 0);
  rp_trace_state("MPI_Isend", 1e-6, 1e-6, 0);
  rp_trace_state("MPI_Isend", 1e-6, 5e-6, 64);
  rp_trace_state("MPI_Waitall", 5e-6, 5e-6, 64);
  rp_trace_state("compute", 5e-6, 9e-6, 0);
  rp_trace_state("outer", 0.5e-6, 9e-6, 0); /* a region around them all */
  rp_trace_close(0);
  otf2_check c = {0};
  read_otf2(dir, 1, &c);
  assert_int_equal(c.bad, 0);
  assert_int_equal(c.enters, 6);
  assert_int_equal(c.max_depth, 2); /* "outer", then one call at a time */
  rmtree(dir);
  free(dir);
}

#endif /* RP_HAVE_OTF2 */

static void test_trace_otf2_without_library_says_so(void **state) {
  (void)state;
#ifdef RP_HAVE_OTF2
  skip();
#else
  char err[512];
  int partial = 0;
  assert_int_equal(rp_trace_otf2_write("/tmp", 1, &partial, err, sizeof err),
                   REVPROF_ENOOTF2);
  assert_non_null(strstr(err, "without OTF2"));
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trace_formats_parse),
      cmocka_unit_test(test_trace_classify_names),
      cmocka_unit_test(test_trace_off_writes_nothing),
      cmocka_unit_test(test_trace_stream_round_trips),
      cmocka_unit_test(test_trace_record_cost),
      cmocka_unit_test(test_trace_stream_is_bounded_in_memory),
      cmocka_unit_test(test_trace_reader_rejects_bad_streams),
      cmocka_unit_test(test_trace_lost_ranks_are_left_out),
      cmocka_unit_test(test_trace_chrome_merges_ranks),
      cmocka_unit_test(test_trace_partial_is_marked),
      cmocka_unit_test(test_trace_missing_rank_merges_partial),
      cmocka_unit_test(test_trace_exit_without_close_is_partial),
      cmocka_unit_test(test_trace_unwritable_dir_turns_off),
      cmocka_unit_test(test_trace_stale_files_removed),
#ifdef RP_HAVE_OTF2
      cmocka_unit_test(test_trace_otf2_reads_back),
      cmocka_unit_test(test_trace_otf2_zero_length_calls_are_sequential),
#endif
      cmocka_unit_test(test_trace_otf2_without_library_says_so),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
