/* Unit tests of the sample-mode latency.csv reader (tools/latency.c): size
 * classes and histogram buckets, the median of a histogram, rows parsed and
 * rejected, rows merged by size class, and whole files read from memory;
 * the same for calls.csv (the send calls' own time). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_latency.h"
#include "rp_test.h"

/* The 13 named columns given, then the histogram: hist[k] in bucket k. */
static char *row_text(char *buf, size_t len, const char *named,
                      const double hist[RP_LATENCY_BUCKETS]) {
  size_t n = (size_t)snprintf(buf, len, "%s", named);
  for (int k = 0; k < RP_LATENCY_BUCKETS; k++)
    n += (size_t)snprintf(buf + n, len - n, ",%.17g", hist[k]);
  return buf;
}

static const char header[] =
    "src,dst,send_site,recv_site,size_class,bytes_lo,bytes_hi,bytes_mean,"
    "count,mean_s,min_s,max_s,sd_s,b00,b01,b02,b03,b04,b05,b06,b07,b08,b09,"
    "b10,b11,b12,b13,b14,b15,b16,b17,b18,b19,b20,b21,b22,b23,b24,b25,b26,"
    "b27,b28,b29,b30,b31,b32,b33\n";

static void test_latency_class_bytes_and_bucket_edges(void **state) {
  (void)state;
  double lo, hi;
  rp_latency_class_bytes(0, &lo, &hi);
  assert_true(lo == 0 && hi == 0);
  rp_latency_class_bytes(4, &lo, &hi);
  assert_true(lo == 8 && hi == 15);
  rp_latency_class_bytes(21, &lo, &hi);
  assert_true(lo == 1048576 && hi == 2097151);
  /* the class of a size is the inverse, at both ends of each class */
  assert_int_equal(rp_latency_class_of(0), 0);
  assert_int_equal(rp_latency_class_of(0.5), 0);
  for (int k = 1; k <= 53; k++) { /* (2^k - 1 exact in a double) */
    rp_latency_class_bytes(k, &lo, &hi);
    assert_int_equal(rp_latency_class_of(lo), k);
    assert_int_equal(rp_latency_class_of(hi), k);
  }
  assert_int_equal(rp_latency_class_of(ldexp(1.0, 70)), 63);
  rp_latency_bucket_edges(0, &lo, &hi);
  assert_true(lo == 0);
  assert_rel(hi, 1e-7, 1e-15);
  rp_latency_bucket_edges(1, &lo, &hi);
  assert_rel(lo, 1e-7, 1e-15);
  assert_rel(hi, 1e-7 * pow(10, 0.25), 1e-15);
  rp_latency_bucket_edges(13, &lo, &hi); /* [1e-4, 1.78e-4) s */
  assert_rel(lo, 1e-4, 1e-14);
  rp_latency_bucket_edges(32, &lo, &hi);
  assert_rel(hi, 10, 1e-14);
  rp_latency_bucket_edges(33, &lo, &hi);
  assert_rel(lo, 10, 1e-14);
  assert_true(isinf(hi));
}

static void test_latency_median_interpolates_in_its_bucket(void **state) {
  (void)state;
  double h[RP_LATENCY_BUCKETS] = {0}, lo, hi, x;
  rp_latency_bucket_edges(9, &lo, &hi); /* [1e-5, 1.78e-5) s */
  h[9] = 7;                             /* all in one bucket: its middle */
  assert_int_equal(rp_latency_hist_median(h, 1e-6, 1e-3, &x), 0);
  assert_rel(x, 0.5 * (lo + hi), 1e-14);
  h[8] = 200; /* 200 below, 400 inside, 400 above: 3/4 of the way */
  h[9] = 400;
  h[10] = 400;
  assert_int_equal(rp_latency_hist_median(h, 1e-6, 1e-3, &x), 0);
  assert_rel(x, lo + 0.75 * (hi - lo), 1e-14);
  h[8] = 100; /* the middle message is the bucket's last: its upper edge */
  h[10] = 500;
  assert_int_equal(rp_latency_hist_median(h, 1e-6, 1e-3, &x), 0);
  assert_rel(x, hi, 1e-14);
  h[8] = 0; /* an empty bucket below changes nothing */
  h[2] = 100;
  assert_int_equal(rp_latency_hist_median(h, 1e-8, 1e-3, &x), 0);
  assert_rel(x, hi, 1e-14);
}

static void test_latency_median_clamped_to_min_and_max(void **state) {
  (void)state;
  double h[RP_LATENCY_BUCKETS] = {0}, lo, hi, x;
  rp_latency_bucket_edges(20, &lo, &hi);
  h[20] = 10;
  /* every message took 1.01 lo: the bucket's middle is not the median */
  assert_int_equal(rp_latency_hist_median(h, 1.01 * lo, 1.01 * lo, &x), 0);
  assert_rel(x, 1.01 * lo, 1e-14);
  assert_int_equal(rp_latency_hist_median(h, 0.99 * hi, hi, &x), 0);
  assert_rel(x, 0.99 * hi, 1e-14);
  /* min > max: min and max unknown, not used */
  assert_int_equal(rp_latency_hist_median(h, 1, 0, &x), 0);
  assert_rel(x, 0.5 * (lo + hi), 1e-14);
}

static void test_latency_median_open_buckets_closed_by_min_max(void **state) {
  (void)state;
  double h[RP_LATENCY_BUCKETS] = {0}, x;
  h[0] = 4; /* below 1e-7 s: from min up */
  assert_int_equal(rp_latency_hist_median(h, 2e-8, 9e-8, &x), 0);
  assert_rel(x, 6e-8, 1e-14);
  h[0] = 0; /* from 10 s: up to max */
  h[33] = 4;
  assert_int_equal(rp_latency_hist_median(h, 11, 30, &x), 0);
  assert_rel(x, 20, 1e-14);
}

static void test_latency_median_of_empty_histogram_fails(void **state) {
  (void)state;
  double h[RP_LATENCY_BUCKETS] = {0}, x = -1;
  assert_int_equal(rp_latency_hist_median(h, 0, 1, &x), REVPROF_EINVAL);
  assert_true(x == -1);
}

static void test_latency_parse_row_with_quoted_sites(void **state) {
  (void)state;
  double h[RP_LATENCY_BUCKETS] = {0};
  char buf[1024], err[256] = "";
  rp_latency_row r;
  h[4] = 600;
  h[5] = 400;
  row_text(buf, sizeof buf,
           "3,1,\"pp.c:42 main, loop\",\"pp.c:57 main\",4,8,15,11.5,1000,"
           "1.2e-06,9e-07,3.1e-05,4e-07",
           h);
  assert_int_equal(rp_latency_parse_row(buf, &r, err, sizeof err), 0);
  assert_true(r.src == 3 && r.dst == 1 && r.size_class == 4);
  assert_true(r.bytes_lo == 8 && r.bytes_hi == 15 && r.bytes_mean == 11.5);
  assert_true(r.count == 1000 && r.hist[4] == 600 && r.hist[5] == 400);
  assert_true(r.mean == 1.2e-06 && r.min == 9e-07 && r.max == 3.1e-05);
  assert_true(r.sd == 4e-07 && r.hist[33] == 0);
  /* stat without freq: an empty histogram is fine */
  row_text(buf, sizeof buf, "0,1,a,b,0,0,0,0,5,1e-06,1e-06,1e-06,0",
           (double[RP_LATENCY_BUCKETS]){0});
  assert_int_equal(rp_latency_parse_row(buf, &r, err, sizeof err), 0);
  assert_true(r.size_class == 0 && r.count == 5);
}

static void test_latency_parse_row_rejects_bad_fields(void **state) {
  (void)state;
  /* each row's 13 named columns, b04 = 10 and the other buckets 0 (b07 =
     2.5 where hist7 is set) */
  static const struct {
    const char *named;
    int hist7, rc;
    const char *frag;
  } bad[] = {
      {"0,1,\"a,b,4,8,15,12,10,1e-6,1e-6,1e-6,0", 0, REVPROF_EFORMAT,
       "send_site: a quote that does not close"},
      {"0,1,\"a\"x,b,4,8,15,12,10,1e-6,1e-6,1e-6,0", 0, REVPROF_EFORMAT,
       "send_site: a quote that does not close, or text after the closing "
       "quote"},
      {"0,1,a,b,4,8,15,12,10,abc,1e-6,1e-6,0", 0, REVPROF_EFIELD,
       "mean_s: 'abc' is not a number >= 0"},
      {"0,1,a,b,4,8,15,12,10,1e-6,1e-6,1e-6,-1", 0, REVPROF_EFIELD,
       "sd_s: '-1' is not a number >= 0"},
      {"0,1,a,b,4,8,15,12,10,1e-6,1e-6,nan,0", 0, REVPROF_EFIELD,
       "max_s: 'nan' is not a number >= 0"},
      {"0,1,a,b,4,8,15,12,10.5,1e-6,1e-6,1e-6,0", 0, REVPROF_EFIELD,
       "count: '10.5' is not a whole number >= 0"},
      {"0,,a,b,4,8,15,12,10,1e-6,1e-6,1e-6,0", 0, REVPROF_EFIELD,
       "dst: '' is not a whole number >= 0"},
      {"0,1,a,b,65,8,15,12,10,1e-6,1e-6,1e-6,0", 0, REVPROF_EFIELD,
       "size_class: 65 is above 64"},
      {"0,1,a,b,4,8,16,12,10,1e-6,1e-6,1e-6,0", 0, REVPROF_EFIELD,
       "size_class 4 is bytes 8..15, not 8..16"},
      {"0,1,a,b,4,8,15,40,10,1e-6,1e-6,1e-6,0", 0, REVPROF_EFIELD,
       "bytes_mean 40 is outside size_class 4 (8..15 bytes)"},
      {"0,1,a,b,4,8,15,12,10,1e-6,2e-6,1e-6,0", 0, REVPROF_EFIELD,
       "min_s 2e-06 is above max_s 1e-06"},
      {"0,1,a,b,4,8,15,12,11,1e-6,1e-6,1e-6,0", 0, REVPROF_EFIELD,
       "the histogram b00..b33 holds 10 messages, count says 11"},
      {"0,1,a,b,4,8,15,12,10,1e-6,1e-6,1e-6,0", 1, REVPROF_EFIELD,
       "b07: '2.5' is not a whole number >= 0"},
  };
  char buf[1024], err[256] = "";
  rp_latency_row r;
  snprintf(buf, sizeof buf, "0,1,\"a\",\"b\",4,8,15,12,500,1e-06,1e-06,"
                            "1e-06");
  assert_int_equal(rp_latency_parse_row(buf, &r, err, sizeof err),
                   REVPROF_EFORMAT);
  assert_string_equal(err, "expected 47 fields, found 12");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    double h[RP_LATENCY_BUCKETS] = {[4] = 10};
    h[7] = bad[i].hist7 ? 2.5 : 0;
    row_text(buf, sizeof buf, bad[i].named, h);
    err[0] = '\0';
    assert_int_equal(rp_latency_parse_row(buf, &r, err, sizeof err),
                     bad[i].rc);
    if (strstr(err, bad[i].frag) == NULL)
      fail_msg("message \"%s\" lacks \"%s\" (row %s)", err, bad[i].frag,
               bad[i].named);
  }
}

static void test_latency_rows_merge_by_size_class(void **state) {
  (void)state;
  rp_latency_class cls[RP_LATENCY_CLASSES];
  rp_latency_row a = {.src = 0, .dst = 1, .size_class = 10, .bytes_lo = 512,
                      .bytes_hi = 1023, .bytes_mean = 600, .count = 300,
                      .mean = 2e-6, .min = 1e-6, .max = 5e-6, .sd = 1e-7};
  rp_latency_row b = a, empty = a, other = a;
  memset(cls, 0, sizeof cls);
  a.hist[11] = 300;
  b.src = 1;
  b.bytes_mean = 1000;
  b.count = 100;
  b.mean = 6e-6;
  b.min = 3e-6;
  b.max = 9e-6;
  b.hist[11] = 40;
  b.hist[12] = 60;
  empty.count = 0;
  empty.min = 0; /* no messages: its min and max are not used */
  empty.max = 1;
  other.size_class = 3;
  other.hist[11] = 300;
  rp_latency_class_add(cls, &a);
  rp_latency_class_add(cls, &empty);
  rp_latency_class_add(cls, &b);
  rp_latency_class_add(cls, &other);
  const rp_latency_class *c = &cls[10];
  assert_int_equal(c->rows, 3);
  assert_true(c->count == 400);
  assert_rel(rp_latency_class_bytes_mean(c, 10), (600 * 300 + 1000 * 100) / 400.0,
             1e-15);
  assert_rel(c->mean_sum / c->count, (2e-6 * 300 + 6e-6 * 100) / 400, 1e-15);
  assert_true(c->min == 1e-6 && c->max == 9e-6);
  assert_true(c->hist[11] == 340 && c->hist[12] == 60);
  assert_int_equal(cls[3].rows, 1);
  assert_int_equal(cls[4].rows, 0);
  assert_true(rp_latency_class_bytes_mean(&cls[4], 4) == 8); /* no message */
}

/* Reads text as latency.csv: rc, rows and the message. */
static int read_text(const char *text, rp_latency_class *cls, long *nrows,
                     char *err, size_t errlen) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  memset(cls, 0, RP_LATENCY_CLASSES * sizeof *cls);
  int rc = rp_latency_read(f, "run/latency.csv", cls, nrows, err, errlen);
  fclose(f);
  return rc;
}

static void test_latency_read_merges_a_file(void **state) {
  (void)state;
  rp_latency_class cls[RP_LATENCY_CLASSES];
  double h[RP_LATENCY_BUCKETS] = {0};
  char text[4096], r1[1024], r2[1024], err[256] = "";
  long nrows = 0;
  double x;
  h[2] = 10; /* [1.78e-7, 3.16e-7) s */
  row_text(r1, sizeof r1, "0,1,\"a.c:1 f\",\"b.c:2 g\",4,8,15,8,10,3e-7,"
                          "2e-7,4e-7,1e-8", h);
  h[2] = 0;
  h[3] = 30; /* [3.16e-7, 5.62e-7) s */
  row_text(r2, sizeof r2, "1,0,\"a.c:9 f\",\"b.c:2 g\",4,8,15,12,30,4e-7,"
                          "3e-7,5e-7,1e-8", h);
  snprintf(text, sizeof text, "# revprof sample mode: one-way message "
           "latencies by class, all ranks (seconds)\n%s\n%s\r\n# end\n%s\n",
           header, r1, r2);
  assert_int_equal(read_text(text, cls, &nrows, err, sizeof err), 0);
  assert_int_equal(nrows, 2);
  assert_int_equal(cls[4].rows, 2);
  assert_true(cls[4].count == 40);
  assert_rel(rp_latency_class_bytes_mean(&cls[4], 4), 11, 1e-15);
  assert_true(cls[4].min == 2e-7 && cls[4].max == 5e-7);
  double lo, hi; /* 20th of 40: 10 of its 30 into bucket 3 */
  rp_latency_bucket_edges(3, &lo, &hi);
  assert_int_equal(
      rp_latency_hist_median(cls[4].hist, cls[4].min, cls[4].max, &x), 0);
  assert_rel(x, lo + (hi - lo) / 3, 1e-14);
}

static void read_bad(const char *text, int want_rc, const char *want) {
  rp_latency_class cls[RP_LATENCY_CLASSES];
  char err[512] = "";
  long nrows;
  assert_int_equal(read_text(text, cls, &nrows, err, sizeof err), want_rc);
  assert_string_equal(err, want);
}

static void test_latency_read_names_file_and_line(void **state) {
  (void)state;
  char text[4096], row[1024];
  double h[RP_LATENCY_BUCKETS] = {[3] = 2};
  row_text(row, sizeof row, "0,1,a,b,4,8,15,8,2,3e-7,2e-7,4e-7,0", h);
  snprintf(text, sizeof text, "# c\n%s%s\n\n0,1,a,b,4\n", header, row);
  read_bad(text, REVPROF_EFORMAT,
           "run/latency.csv:5: expected 47 fields, found 5");
  read_bad("# only comments\n", REVPROF_EFORMAT,
           "run/latency.csv: empty (no header line "
           "'src,dst,send_site,...')");
  snprintf(text, sizeof text, "# c\n%s", header);
  read_bad(text, REVPROF_EFORMAT,
           "run/latency.csv: no rows after the header (no message sampled)");
  snprintf(text, sizeof text, "%s\n", row);
  read_bad(text, REVPROF_EFORMAT,
           "run/latency.csv:1: not the header of a sample-mode latency.csv: "
           "column 1 is '0', expected 'src'");
  read_bad("src,dst,send_site,recv_site,size_class,bytes_lo,bytes_hi,"
           "bytes_mean,count,mean_s,min_s,max_s,sd_s,b00\n",
           REVPROF_EFORMAT,
           "run/latency.csv:1: not the header of a sample-mode latency.csv: "
           "column 15 is 'missing', expected 'b01'");
}

static const char calls_header[] =
    "call,costed_as,rank,size_class,bytes_lo,bytes_hi,bytes_mean,"
    "count,mean_s,min_s,max_s,sd_s,b00,b01,b02,b03,b04,b05,b06,b07,b08,b09,"
    "b10,b11,b12,b13,b14,b15,b16,b17,b18,b19,b20,b21,b22,b23,b24,b25,b26,"
    "b27,b28,b29,b30,b31,b32,b33\n";

/* Reads text as calls.csv: rc, rows and the message. */
static int read_calls(const char *text, rp_call_set *set, long *nrows,
                      char *err, size_t errlen) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  int rc = rp_calls_read(f, "run/calls.csv", set, nrows, err, errlen);
  fclose(f);
  return rc;
}

static void test_calls_parse_row(void **state) {
  (void)state;
  double h[RP_LATENCY_BUCKETS] = {[2] = 7};
  char buf[1024], err[256] = "";
  rp_latency_row r;
  row_text(buf, sizeof buf, "MPI_Ssend_c,MPI_Send,3,4,8,15,9,7,1e-7,9e-8,"
           "2e-7,1e-8", h);
  assert_int_equal(rp_calls_parse_row(buf, &r, err, sizeof err), 0);
  assert_string_equal(r.call, "MPI_Ssend_c");
  assert_string_equal(r.costed_as, "MPI_Send");
  assert_true(r.src == 3 && r.size_class == 4 && r.count == 7);
  assert_true(r.bytes_mean == 9 && r.mean == 1e-7 && r.hist[2] == 7);
  /* a latency.csv row is not a calls.csv row, nor the other way round */
  row_text(buf, sizeof buf, "0,1,a,b,4,8,15,12,7,1e-6,1e-6,1e-6,0", h);
  assert_int_equal(rp_calls_parse_row(buf, &r, err, sizeof err),
                   REVPROF_EFORMAT);
  assert_string_equal(err, "expected 46 fields, found 47");
  row_text(buf, sizeof buf, "MPI_Send,MPI_Send,x,4,8,15,9,7,1e-7,9e-8,2e-7,"
           "1e-8", h);
  assert_int_equal(rp_calls_parse_row(buf, &r, err, sizeof err),
                   REVPROF_EFIELD);
  assert_string_equal(err, "rank: 'x' is not a whole number >= 0");
  row_text(buf, sizeof buf, ",MPI_Send,0,4,8,15,9,7,1e-7,9e-8,2e-7,1e-8",
           h);
  assert_int_equal(rp_calls_parse_row(buf, &r, err, sizeof err),
                   REVPROF_EFIELD);
  assert_string_equal(err, "call: a function name (of 1 to 47 characters) "
                           "is due");
}

static void test_calls_read_merges_by_call_and_class(void **state) {
  (void)state;
  rp_call_set *set = malloc(sizeof *set);
  char text[8192], r1[1024], r2[1024], r3[1024], err[512] = "";
  long nrows = 0;
  assert_non_null(set);
  row_text(r1, sizeof r1, "MPI_Send,MPI_Send,0,4,8,15,8,10,1e-7,9e-8,2e-7,"
           "1e-8", (double[RP_LATENCY_BUCKETS]){[1] = 10});
  row_text(r2, sizeof r2, "MPI_Isend,MPI_Isend,0,11,1024,2047,1024,5,2e-7,"
           "1e-7,3e-7,1e-8", (double[RP_LATENCY_BUCKETS]){[2] = 5});
  row_text(r3, sizeof r3, "MPI_Send,MPI_Send,1,4,8,15,12,30,1e-7,8e-8,3e-7,"
           "1e-8", (double[RP_LATENCY_BUCKETS]){[1] = 30});
  snprintf(text, sizeof text, "# c\n%s%s\n%s\n%s\n", calls_header, r1, r2,
           r3);
  assert_int_equal(read_calls(text, set, &nrows, err, sizeof err), 0);
  assert_int_equal(nrows, 3);
  assert_int_equal(set->n, 2);
  assert_string_equal(set->c[0].call, "MPI_Send");
  assert_int_equal(set->c[0].cls[4].rows, 2);
  assert_true(set->c[0].cls[4].count == 40 && set->c[0].cls[4].min == 8e-8);
  assert_rel(rp_latency_class_bytes_mean(&set->c[0].cls[4], 4), 11, 1e-15);
  assert_string_equal(set->c[1].costed_as, "MPI_Isend");
  assert_true(set->c[1].cls[11].count == 5);
  /* one call, two model rows */
  row_text(r3, sizeof r3, "MPI_Send,MPI_Isend,1,4,8,15,12,30,1e-7,8e-8,"
           "3e-7,1e-8", (double[RP_LATENCY_BUCKETS]){[1] = 30});
  snprintf(text, sizeof text, "%s%s\n%s\n", calls_header, r1, r3);
  assert_int_equal(read_calls(text, set, &nrows, err, sizeof err),
                   REVPROF_EFIELD);
  assert_string_equal(err, "run/calls.csv:3: costed_as: MPI_Isend, where an "
                           "earlier row of MPI_Send said MPI_Send");
  /* a latency.csv's header */
  snprintf(text, sizeof text, "%s%s\n", header, r1);
  assert_int_equal(read_calls(text, set, &nrows, err, sizeof err),
                   REVPROF_EFORMAT);
  assert_string_equal(err, "run/calls.csv:1: not the header of a "
                           "sample-mode calls.csv: column 1 is 'src', "
                           "expected 'call'");
  assert_int_equal(read_calls("", set, &nrows, err, sizeof err),
                   REVPROF_EFORMAT);
  assert_string_equal(err, "run/calls.csv: empty (no header line "
                           "'call,costed_as,rank,...')");
  free(set);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_latency_class_bytes_and_bucket_edges),
      cmocka_unit_test(test_latency_median_interpolates_in_its_bucket),
      cmocka_unit_test(test_latency_median_clamped_to_min_and_max),
      cmocka_unit_test(test_latency_median_open_buckets_closed_by_min_max),
      cmocka_unit_test(test_latency_median_of_empty_histogram_fails),
      cmocka_unit_test(test_latency_parse_row_with_quoted_sites),
      cmocka_unit_test(test_latency_parse_row_rejects_bad_fields),
      cmocka_unit_test(test_latency_rows_merge_by_size_class),
      cmocka_unit_test(test_latency_read_merges_a_file),
      cmocka_unit_test(test_latency_read_names_file_and_line),
      cmocka_unit_test(test_calls_parse_row),
      cmocka_unit_test(test_calls_read_merges_by_call_and_class),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
