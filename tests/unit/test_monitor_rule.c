/* Unit tests of online monitoring's pure rules (revprof/rp_monitor_rule.c,
 * seed 004): the settings, the tree's shape, packets and filters, the
 * acceptance threshold, the BOI search on a simulated system, the Limiting
 * Overhead, the thinning to the BOI and the model's BOI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_monitor_rule.h"
#include "rp_test.h"

/* ------------------------------------------------------------- settings */

/* A fake environment: up to 8 name=value pairs. */
typedef struct fake_env {
  const char *name[8], *value[8];
  int n;
} fake_env;

static const char *fake_get(const char *name, void *ctx) {
  const fake_env *e = ctx;
  for (int i = 0; i < e->n; i++)
    if (strcmp(e->name[i], name) == 0)
      return e->value[i];
  return NULL;
}

static void fake_set(fake_env *e, const char *name, const char *value) {
  for (int i = 0; i < e->n; i++)
    if (strcmp(e->name[i], name) == 0) {
      e->value[i] = value;
      return;
    }
  e->name[e->n] = name;
  e->value[e->n++] = value;
}

static void assert_defaults(const rp_mon_config *c) {
  assert_int_equal(c->tools, 0);
  assert_int_equal(c->fanout, RP_MON_DEFAULT_FANOUT);
  assert_int_equal(c->offload, RP_MON_BLOCKING);
  assert_int_equal(c->lossy_cap, RP_MON_DEFAULT_LOSSY);
  assert_int_equal(c->accept, 0);
  assert_int_equal(c->filter, RP_MON_STATS);
  assert_int_equal(c->when, RP_MON_TIMER);
  assert_near(c->interval, RP_MON_DEFAULT_INTERVAL, 0);
  assert_near(c->poll_us, RP_MON_DEFAULT_POLL_US, 0);
}

static const char *const all_vars[] = {
    "REVPROF_MONITOR",        "REVPROF_MONITOR_FANOUT",
    "REVPROF_MONITOR_OFFLOAD", "REVPROF_MONITOR_ACCEPT",
    "REVPROF_MONITOR_FILTER", "REVPROF_MONITOR_INTERVAL",
    "REVPROF_MONITOR_POLL_US"};

/* Unset and empty variables both give the defaults. */
static void test_monitor_config_defaults(void **state) {
  (void)state;
  rp_mon_config c;
  fake_env env = {{0}, {0}, 0};
  char err[256] = "x";
  rp_mon_config_default(&c);
  assert_defaults(&c);
  assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                   0);
  assert_defaults(&c);
  for (size_t i = 0; i < sizeof all_vars / sizeof *all_vars; i++)
    fake_set(&env, all_vars[i], "");
  assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                   0);
  assert_defaults(&c);
  assert_string_equal(rp_mon_offload_name(RP_MON_LOSSY), "lossy");
  assert_string_equal(rp_mon_offload_name(RP_MON_NONBLOCKING), "nonblocking");
  assert_string_equal(rp_mon_offload_name(RP_MON_BLOCKING), "blocking");
  assert_string_equal(rp_mon_offload_name(3), "?");
  assert_string_equal(rp_mon_filter_name(RP_MON_STATS), "stats");
  assert_string_equal(rp_mon_filter_name(RP_MON_HIST), "hist");
  assert_string_equal(rp_mon_filter_name(-1), "?");
  assert_string_equal(rp_mon_when_name(RP_MON_TIMER), "timer");
  assert_string_equal(rp_mon_when_name(RP_MON_CALLS), "calls");
  assert_string_equal(rp_mon_when_name(RP_MON_AUTO), "auto");
  assert_string_equal(rp_mon_when_name(7), "?");
}

static void test_monitor_config_values(void **state) {
  (void)state;
  rp_mon_config c;
  fake_env env = {{0}, {0}, 0};
  char err[256] = "";
  fake_set(&env, "REVPROF_MONITOR", "4");
  fake_set(&env, "REVPROF_MONITOR_FANOUT", "2");
  fake_set(&env, "REVPROF_MONITOR_OFFLOAD", "lossy:7");
  fake_set(&env, "REVPROF_MONITOR_ACCEPT", "1");
  fake_set(&env, "REVPROF_MONITOR_FILTER", "hist");
  fake_set(&env, "REVPROF_MONITOR_INTERVAL", "0.25");
  fake_set(&env, "REVPROF_MONITOR_POLL_US", "0");
  assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                   0);
  assert_int_equal(c.tools, 4);
  assert_int_equal(c.fanout, 2);
  assert_int_equal(c.offload, RP_MON_LOSSY);
  assert_int_equal(c.lossy_cap, 7);
  assert_int_equal(c.accept, 1);
  assert_int_equal(c.filter, RP_MON_HIST);
  assert_int_equal(c.when, RP_MON_TIMER);
  assert_near(c.interval, 0.25, 0);
  assert_near(c.poll_us, 0.0, 0);

  fake_set(&env, "REVPROF_MONITOR_OFFLOAD", "lossy");
  fake_set(&env, "REVPROF_MONITOR_INTERVAL", "calls");
  fake_set(&env, "REVPROF_MONITOR_FILTER", "stats");
  fake_set(&env, "REVPROF_MONITOR_POLL_US", "12.5");
  assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                   0);
  assert_int_equal(c.offload, RP_MON_LOSSY);
  assert_int_equal(c.lossy_cap, RP_MON_DEFAULT_LOSSY);
  assert_int_equal(c.when, RP_MON_CALLS);
  assert_int_equal(c.filter, RP_MON_STATS);
  assert_near(c.poll_us, 12.5, 0);

  fake_set(&env, "REVPROF_MONITOR_OFFLOAD", "nonblocking");
  fake_set(&env, "REVPROF_MONITOR_INTERVAL", "auto");
  fake_set(&env, "REVPROF_MONITOR", "0");
  assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                   0);
  assert_int_equal(c.offload, RP_MON_NONBLOCKING);
  assert_int_equal(c.when, RP_MON_AUTO);
  assert_int_equal(c.tools, 0);

  fake_set(&env, "REVPROF_MONITOR_OFFLOAD", "blocking");
  fake_set(&env, "REVPROF_MONITOR_INTERVAL", "2e-3");
  assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                   0);
  assert_int_equal(c.offload, RP_MON_BLOCKING);
  assert_int_equal(c.when, RP_MON_TIMER);
  assert_near(c.interval, 2e-3, 0);
}

/* Every bad value of every variable: REVPROF_EINVAL with a message that
 * names the variable and its value ("NAME=value: ..."). */
static void test_monitor_config_rejects(void **state) {
  (void)state;
  static const struct {
    const char *name, *value;
  } bad[] = {
      {"REVPROF_MONITOR", "-1"},
      {"REVPROF_MONITOR", "x"},
      {"REVPROF_MONITOR", "3x"},
      {"REVPROF_MONITOR", " 3"},
      {"REVPROF_MONITOR", "3 "},
      {"REVPROF_MONITOR", "1.5"},
      {"REVPROF_MONITOR", "0x10"},
      {"REVPROF_MONITOR", "99999999999999999999"},
      {"REVPROF_MONITOR", "4294967296"},
      {"REVPROF_MONITOR_FANOUT", "0"},
      {"REVPROF_MONITOR_FANOUT", "-2"},
      {"REVPROF_MONITOR_FANOUT", "two"},
      {"REVPROF_MONITOR_FANOUT", "2.0"},
      {"REVPROF_MONITOR_FANOUT", "1e3"},
      {"REVPROF_MONITOR_OFFLOAD", "lossy:0"},
      {"REVPROF_MONITOR_OFFLOAD", "lossy:"},
      {"REVPROF_MONITOR_OFFLOAD", "lossy:-1"},
      {"REVPROF_MONITOR_OFFLOAD", "lossy:2x"},
      {"REVPROF_MONITOR_OFFLOAD", "lossy: 2"},
      {"REVPROF_MONITOR_OFFLOAD", "lossy:99999999999"},
      {"REVPROF_MONITOR_OFFLOAD", "lossy2"},
      {"REVPROF_MONITOR_OFFLOAD", "Blocking"},
      {"REVPROF_MONITOR_OFFLOAD", "queue"},
      {"REVPROF_MONITOR_OFFLOAD", "blocking "},
      {"REVPROF_MONITOR_ACCEPT", "-1"},
      {"REVPROF_MONITOR_ACCEPT", "one"},
      {"REVPROF_MONITOR_ACCEPT", "1 "},
      {"REVPROF_MONITOR_FILTER", "mean"},
      {"REVPROF_MONITOR_FILTER", "Stats"},
      {"REVPROF_MONITOR_FILTER", "stat"},
      {"REVPROF_MONITOR_FILTER", "histogram"},
      {"REVPROF_MONITOR_INTERVAL", "0"},
      {"REVPROF_MONITOR_INTERVAL", "-1"},
      {"REVPROF_MONITOR_INTERVAL", "nan"},
      {"REVPROF_MONITOR_INTERVAL", "inf"},
      {"REVPROF_MONITOR_INTERVAL", "1e999"},
      {"REVPROF_MONITOR_INTERVAL", "1s"},
      {"REVPROF_MONITOR_INTERVAL", " 1"},
      {"REVPROF_MONITOR_INTERVAL", "call"},
      {"REVPROF_MONITOR_INTERVAL", "Auto"},
      {"REVPROF_MONITOR_INTERVAL", "timer"},
      {"REVPROF_MONITOR_POLL_US", "-1"},
      {"REVPROF_MONITOR_POLL_US", "nan"},
      {"REVPROF_MONITOR_POLL_US", "inf"},
      {"REVPROF_MONITOR_POLL_US", "50us"},
      {"REVPROF_MONITOR_POLL_US", "1e400"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    rp_mon_config c;
    fake_env env = {{0}, {0}, 0};
    char err[256] = "", want[128];
    fake_set(&env, bad[i].name, bad[i].value);
    assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                     REVPROF_EINVAL);
    snprintf(want, sizeof want, "%s=%s:", bad[i].name, bad[i].value);
    if (strstr(err, want) == NULL)
      fail_msg("%s=\"%s\": message \"%s\" does not start with \"%s\"",
               bad[i].name, bad[i].value, err, want);
  }
  /* the example of the documentation, word for word */
  rp_mon_config c;
  fake_env env = {{0}, {0}, 0};
  char err[256] = "";
  fake_set(&env, "REVPROF_MONITOR_OFFLOAD", "lossy:0");
  assert_int_equal(rp_mon_config_read(&c, fake_get, &env, err, sizeof err),
                   REVPROF_EINVAL);
  assert_string_equal(err, "REVPROF_MONITOR_OFFLOAD=lossy:0: the queue bound "
                           "must be an integer >= 1");
}

/* ----------------------------------------------------------------- tree */

/* Every tool's parent has it among its children, the leaves are the tools
 * without children and come last, the leaves' ranges partition 0..N-1 in
 * order with sizes within one of each other, and every application rank's
 * leaf holds it in its range. */
static void check_shape(int n, int k, int f) {
  char err[256] = "";
  int l = rp_mon_leaves(k, f), children = 0, maxd = 0, next = 0;
  int minc = n + 1, maxc = -1;
  assert_int_equal(rp_mon_shape_check(n, k, f, err, sizeof err), 0);
  assert_true(l >= 1 && l <= k);
  for (int t = 0; t < k; t++) {
    int m = rp_mon_tool_children(t, k, f), d = 1, mine = 0;
    for (int s = 1; s < k; s++)
      mine += rp_mon_parent(s, f) == t;
    assert_int_equal(m, mine);
    children += m;
    for (int p = t; p > 0; p = rp_mon_parent(p, f))
      d++;
    maxd = d > maxd ? d : maxd;
    if (t == 0)
      assert_int_equal(rp_mon_parent(t, f), -1);
    else
      assert_true(rp_mon_parent(t, f) >= 0 && rp_mon_parent(t, f) < t);
    int first = -1, count = -1, leaf = rp_mon_app_range(t, n, k, f, &first,
                                                        &count);
    assert_int_equal(leaf, m == 0);
    assert_int_equal(leaf, t >= k - l);
    if (!leaf) {
      assert_int_equal(count, 0);
      continue;
    }
    assert_int_equal(first, next); /* contiguous, in leaf order */
    assert_true(count >= 1);
    minc = count < minc ? count : minc;
    maxc = count > maxc ? count : maxc;
    for (int a = first; a < first + count; a++)
      assert_int_equal(rp_mon_leaf_of_app(a, n, k, f), t);
    next = first + count;
  }
  assert_int_equal(next, n); /* every rank in exactly one range */
  assert_true(maxc - minc <= 1);
  assert_int_equal(children, k - 1);
  assert_int_equal(rp_mon_depth(k, f), maxd);
  for (int a = 0; a < n; a++) {
    int t = rp_mon_leaf_of_app(a, n, k, f), first, count;
    assert_int_equal(rp_mon_app_range(t, n, k, f, &first, &count), 1);
    assert_true(a >= first && a < first + count);
  }
  int first = -1, count = -1;
  assert_int_equal(rp_mon_app_range(k, n, k, f, &first, &count), 0);
  assert_int_equal(count, 0);
  assert_int_equal(rp_mon_leaf_of_app(n, n, k, f), -1);
  assert_int_equal(rp_mon_leaf_of_app(-1, n, k, f), -1);
}

static void test_monitor_tree_shape(void **state) {
  (void)state;
  static const int shapes[][3] = {
      {1, 1, 1},    {5, 1, 8},    {10, 3, 2},   {100, 9, 8},  {37, 13, 3},
      {73, 73, 8},  {7, 7, 1},    {1000, 100, 4}, {20, 20, 20}, {64, 10, 3},
      {8, 2, 8},    {1001, 585, 8}, {3, 4, 3}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
    check_shape(shapes[i][0], shapes[i][1], shapes[i][2]);
  /* hand-checked shapes */
  assert_int_equal(rp_mon_leaves(1, 8), 1);
  assert_int_equal(rp_mon_depth(1, 8), 1);
  assert_int_equal(rp_mon_leaves(2, 8), 1);
  assert_int_equal(rp_mon_depth(2, 8), 2);
  assert_int_equal(rp_mon_leaves(9, 8), 8);
  assert_int_equal(rp_mon_depth(9, 8), 2);
  assert_int_equal(rp_mon_leaves(10, 8), 8); /* tool 1 has tool 9 */
  assert_int_equal(rp_mon_depth(10, 8), 3);
  assert_int_equal(rp_mon_leaves(10, 3), 7);   /* 0: 1 2 3, 1: 4 5 6, 2: 7 8 9 */
  assert_int_equal(rp_mon_tool_children(0, 10, 3), 3);
  assert_int_equal(rp_mon_tool_children(2, 10, 3), 3);
  assert_int_equal(rp_mon_tool_children(3, 10, 3), 0);
  assert_int_equal(rp_mon_leaves(7, 1), 1); /* a chain */
  assert_int_equal(rp_mon_depth(7, 1), 7);
  /* N = 10 over 3 leaves: ceil(j * 10 / 3) = 0, 4, 7, 10 */
  int first, count;
  assert_int_equal(rp_mon_app_range(1, 10, 4, 3, &first, &count), 1);
  assert_int_equal(first, 0);
  assert_int_equal(count, 4);
  assert_int_equal(rp_mon_app_range(2, 10, 4, 3, &first, &count), 1);
  assert_int_equal(first, 4);
  assert_int_equal(count, 3);
  assert_int_equal(rp_mon_app_range(3, 10, 4, 3, &first, &count), 1);
  assert_int_equal(first, 7);
  assert_int_equal(count, 3);
  assert_int_equal(rp_mon_app_range(0, 10, 4, 3, &first, &count), 0);
  assert_int_equal(rp_mon_leaf_of_app(3, 10, 4, 3), 1);
  assert_int_equal(rp_mon_leaf_of_app(4, 10, 4, 3), 2);
  assert_int_equal(rp_mon_leaf_of_app(9, 10, 4, 3), 3);
}

static void test_monitor_shape_check_rejects(void **state) {
  (void)state;
  static const int bad[][3] = {
      {7, 9, 8}, /* 8 leaves for 7 ranks */
      {1, 3, 2}, /* 2 leaves */
      {5, 0, 8}, {5, -1, 8}, {5, 2, 0}, {0, 1, 8}, {-3, 1, 8}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char err[256] = "";
    assert_int_equal(rp_mon_shape_check(bad[i][0], bad[i][1], bad[i][2], err,
                                        sizeof err),
                     REVPROF_EINVAL);
    if (strstr(err, "REVPROF_MONITOR") == NULL)
      fail_msg("N=%d K=%d F=%d: message \"%s\"", bad[i][0], bad[i][1],
               bad[i][2], err);
  }
  char err[256] = "";
  assert_int_equal(rp_mon_shape_check(8, 9, 8, err, sizeof err), 0);
  assert_int_equal(rp_mon_shape_check(8, 9, 8, NULL, 0), 0);
  assert_int_equal(rp_mon_shape_check(7, 9, 8, NULL, 0), REVPROF_EINVAL);
}

/* -------------------------------------------------------------- packets */

static void test_monitor_packet_sizes(void **state) {
  (void)state;
  assert_int_equal(rp_mon_words(0), 0);
  assert_int_equal(rp_mon_words(1), 1);
  assert_int_equal(rp_mon_words(64), 1);
  assert_int_equal(rp_mon_words(65), 2);
  assert_int_equal(rp_mon_words(1000), 16);
  assert_int_equal(rp_mon_payload(1, 3, RP_MON_STATS), 3);
  assert_int_equal(rp_mon_payload(1, 3, RP_MON_HIST), 3);
  assert_int_equal(rp_mon_payload(0, 3, RP_MON_STATS), 15);
  assert_int_equal(rp_mon_payload(0, 3, RP_MON_HIST), 192);
  assert_int_equal(rp_mon_packet_doubles(0, 3, RP_MON_STATS, 100),
                   8 + 15 + 2);
  assert_int_equal(rp_mon_packet_doubles(1, 3, RP_MON_HIST, 64), 8 + 3 + 1);
  assert_int_equal(rp_mon_packet_doubles(0, 2, RP_MON_HIST, 65),
                   8 + 128 + 2);
}

/* The bitmap sits after the payload, ends with the packet and leaves
 * header and payload alone. */
static void test_monitor_packet_bitmap(void **state) {
  (void)state;
  static const int kinds[][2] = {{1, RP_MON_STATS},
                                 {0, RP_MON_STATS},
                                 {0, RP_MON_HIST}};
  const int apps = 130, events = 3;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    int raw = kinds[k][0], filter = kinds[k][1];
    size_t n = rp_mon_packet_doubles(raw, events, filter, apps);
    size_t body = RP_MON_HDR + rp_mon_payload(raw, events, filter);
    int words = rp_mon_words(apps);
    double *p = malloc(n * sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < body; i++)
      p[i] = (double)i + 0.5;
    uint64_t *w = rp_mon_bitmap(p, raw, events, filter);
    assert_ptr_equal((void *)w, (void *)(p + body));
    assert_ptr_equal((void *)(w + words), (void *)(p + n));
    for (int i = 0; i < words; i++)
      w[i] = 0;
    rp_mon_bit_set(w, 0);
    rp_mon_bit_set(w, 63);
    rp_mon_bit_set(w, 64);
    rp_mon_bit_set(w, 129);
    rp_mon_bit_set(w, 64); /* twice: still one rank */
    assert_int_equal(rp_mon_bit_count(w, words), 4);
    for (int a = 0; a < apps; a++)
      assert_int_equal(rp_mon_bit_get(w, a),
                       a == 0 || a == 63 || a == 64 || a == 129);
    uint64_t other[3] = {0, 0, 0};
    rp_mon_bit_set(other, 1);
    rp_mon_bit_set(other, 64);
    rp_mon_bit_set(other, 128);
    rp_mon_bit_or(w, other, words);
    assert_int_equal(rp_mon_bit_count(w, words), 6);
    assert_true(rp_mon_bit_get(w, 128) && rp_mon_bit_get(w, 1));
    for (size_t i = 0; i < body; i++)
      assert_near(p[i], (double)i + 0.5, 0);
    free(p);
  }
}

/* --------------------------------------------------------------- filters */

enum { NR = 5, NE = 2 };
/* NR ranks' values of NE events */
static const double vals[NR][NE] = {
    {1.0, -2.0}, {2.0, 0.5}, {3.0, 1e-3}, {4.0, 6.0}, {10.0, 0.0}};

static void test_monitor_stats_filter(void **state) {
  (void)state;
  double acc[RP_MON_STAT * NE], mean, sd, mn, mx, n;
  rp_mon_acc_init(acc, NE, RP_MON_STATS);
  rp_mon_stats_of(acc, 0, &mean, &sd, &mn, &mx, &n); /* empty: all 0 */
  assert_near(mean, 0, 0);
  assert_near(sd, 0, 0);
  assert_near(mn, 0, 0);
  assert_near(mx, 0, 0);
  assert_near(n, 0, 0);
  rp_mon_acc_raw(acc, vals[0], NE, RP_MON_STATS);
  rp_mon_stats_of(acc, 0, &mean, &sd, &mn, &mx, &n); /* one rank: sd 0 */
  assert_near(mean, 1.0, 0);
  assert_near(sd, 0.0, 0);
  assert_near(n, 1.0, 0);
  for (int r = 1; r < NR; r++)
    rp_mon_acc_raw(acc, vals[r], NE, RP_MON_STATS);
  /* event 0: mean 4, squared deviations 9 4 1 0 36 = 50 over 4 */
  rp_mon_stats_of(acc, 0, &mean, &sd, &mn, &mx, &n);
  assert_near(n, 5.0, 0);
  assert_near(mean, 4.0, 1e-15);
  assert_near(sd, sqrt(12.5), 1e-14);
  assert_near(mn, 1.0, 0);
  assert_near(mx, 10.0, 0);
  /* event 1: against the two-pass formula */
  double m = 0.0, ss = 0.0;
  for (int r = 0; r < NR; r++)
    m += vals[r][1] / NR;
  for (int r = 0; r < NR; r++)
    ss += (vals[r][1] - m) * (vals[r][1] - m);
  rp_mon_stats_of(acc, 1, &mean, &sd, &mn, &mx, &n);
  assert_near(mean, m, 1e-15);
  assert_near(sd, sqrt(ss / (NR - 1)), 1e-14);
  assert_near(mn, -2.0, 0);
  assert_near(mx, 6.0, 0);
}

/* Reducing ranks 0..1 and 2..4 apart and merging gives what reducing all
 * five at once gives; merging the identity changes nothing. */
static void test_monitor_stats_merge(void **state) {
  (void)state;
  double all[RP_MON_STAT * NE], a[RP_MON_STAT * NE], b[RP_MON_STAT * NE],
      none[RP_MON_STAT * NE];
  rp_mon_acc_init(all, NE, RP_MON_STATS);
  rp_mon_acc_init(a, NE, RP_MON_STATS);
  rp_mon_acc_init(b, NE, RP_MON_STATS);
  rp_mon_acc_init(none, NE, RP_MON_STATS);
  for (int r = 0; r < NR; r++) {
    rp_mon_acc_raw(all, vals[r], NE, RP_MON_STATS);
    rp_mon_acc_raw(r < 2 ? a : b, vals[r], NE, RP_MON_STATS);
  }
  rp_mon_acc_merge(a, b, NE, RP_MON_STATS);
  rp_mon_acc_merge(a, none, NE, RP_MON_STATS);
  for (int i = 0; i < RP_MON_STAT * NE; i++)
    assert_near(a[i], all[i], 1e-12 * fabs(all[i]));
  for (int e = 0; e < NE; e++) {
    double m1, s1, lo1, hi1, n1, m2, s2, lo2, hi2, n2;
    rp_mon_stats_of(a, e, &m1, &s1, &lo1, &hi1, &n1);
    rp_mon_stats_of(all, e, &m2, &s2, &lo2, &hi2, &n2);
    assert_near(m1, m2, 1e-14);
    assert_near(s1, s2, 1e-13);
    assert_near(lo1, lo2, 0);
    assert_near(hi1, hi2, 0);
    assert_near(n1, n2, 0);
  }
}

static void test_monitor_hist_bins(void **state) {
  (void)state;
  assert_int_equal(rp_mon_hist_bin(0.0), 0);
  assert_int_equal(rp_mon_hist_bin(-0.0), 0);
  assert_int_equal(rp_mon_hist_bin(-1.0), 0);
  assert_int_equal(rp_mon_hist_bin(NAN), 0);
  assert_int_equal(rp_mon_hist_bin(-INFINITY), 0);
  assert_int_equal(rp_mon_hist_bin(1.0), 32);
  assert_int_equal(rp_mon_hist_bin(1.5), 32);
  assert_int_equal(rp_mon_hist_bin(nextafter(2.0, 0.0)), 32);
  assert_int_equal(rp_mon_hist_bin(2.0), 33);
  assert_int_equal(rp_mon_hist_bin(0.5), 31);
  assert_int_equal(rp_mon_hist_bin(0.75), 31);
  assert_int_equal(rp_mon_hist_bin(1e-6), 12); /* 2^-20 <= 1e-6 < 2^-19 */
  assert_int_equal(rp_mon_hist_bin(ldexp(1.0, -31)), 1);
  assert_int_equal(rp_mon_hist_bin(ldexp(1.0, -40)), 1); /* open end */
  assert_int_equal(rp_mon_hist_bin(5e-324), 1);
  assert_int_equal(rp_mon_hist_bin(ldexp(1.0, 31)), 63);
  assert_int_equal(rp_mon_hist_bin(1e300), 63); /* open end */
  assert_int_equal(rp_mon_hist_bin(INFINITY), 63);
  assert_near(rp_mon_hist_lo(0), 0.0, 0);
  assert_near(rp_mon_hist_lo(32), 1.0, 0);
  assert_near(rp_mon_hist_lo(1), ldexp(1.0, -31), 0);
  assert_near(rp_mon_hist_lo(63), ldexp(1.0, 31), 0);
  for (int b = 1; b < RP_MON_BINS - 1; b++) { /* each edge exactly */
    assert_int_equal(rp_mon_hist_bin(rp_mon_hist_lo(b)), b);
    assert_int_equal(rp_mon_hist_bin(nextafter(rp_mon_hist_lo(b + 1), 0.0)),
                     b);
  }
}

/* Bin counts of known values, and merging two partial histograms is their
 * sum. */
static void test_monitor_hist_merge(void **state) {
  (void)state;
  double all[RP_MON_BINS * NE], a[RP_MON_BINS * NE], b[RP_MON_BINS * NE];
  rp_mon_acc_init(all, NE, RP_MON_HIST);
  rp_mon_acc_init(a, NE, RP_MON_HIST);
  rp_mon_acc_init(b, NE, RP_MON_HIST);
  for (int i = 0; i < RP_MON_BINS * NE; i++)
    assert_near(all[i], 0.0, 0);
  for (int r = 0; r < NR; r++) {
    rp_mon_acc_raw(all, vals[r], NE, RP_MON_HIST);
    rp_mon_acc_raw(r % 2 ? a : b, vals[r], NE, RP_MON_HIST);
  }
  /* event 0: 1 -> 32, 2 and 3 -> 33, 4 -> 34, 10 -> 35 */
  assert_near(all[32], 1, 0);
  assert_near(all[33], 2, 0);
  assert_near(all[34], 1, 0);
  assert_near(all[35], 1, 0);
  /* event 1: -2 and 0 -> 0, 0.5 -> 31, 1e-3 -> 22, 6 -> 34 */
  const double *h1 = all + RP_MON_BINS;
  assert_near(h1[0], 2, 0);
  assert_near(h1[31], 1, 0);
  assert_near(h1[22], 1, 0);
  assert_near(h1[34], 1, 0);
  for (int e = 0; e < NE; e++) {
    double total = 0;
    for (int i = 0; i < RP_MON_BINS; i++)
      total += all[RP_MON_BINS * e + i];
    assert_near(total, NR, 0);
  }
  double sum[RP_MON_BINS * NE];
  for (int i = 0; i < RP_MON_BINS * NE; i++)
    sum[i] = a[i] + b[i];
  rp_mon_acc_merge(a, b, NE, RP_MON_HIST);
  for (int i = 0; i < RP_MON_BINS * NE; i++) {
    assert_near(a[i], sum[i], 0);
    assert_near(a[i], all[i], 0);
  }
}

/* --------------------------------------------------- acceptance threshold */

static void test_monitor_decide_table(void **state) {
  (void)state;
  static const int rows[][5] = {
      /* nchild, nhave, ngone, accept, decision */
      {3, 0, 0, 0, RP_MON_WAIT},    {3, 2, 0, 0, RP_MON_WAIT},
      {3, 2, 0, 5, RP_MON_WAIT},    {3, 1, 1, 1, RP_MON_WAIT},
      {3, 3, 0, 0, RP_MON_REDUCE},  {3, 2, 1, 0, RP_MON_DISCARD},
      {3, 2, 1, 1, RP_MON_REDUCE},  {3, 1, 2, 1, RP_MON_DISCARD},
      {3, 1, 2, 2, RP_MON_REDUCE},  {3, 0, 3, 2, RP_MON_DISCARD},
      {3, 0, 3, 3, RP_MON_REDUCE},  {1, 0, 0, 5, RP_MON_WAIT},
      {1, 1, 0, 0, RP_MON_REDUCE},  {1, 0, 1, 0, RP_MON_DISCARD},
      {8, 6, 2, 2, RP_MON_REDUCE},  {8, 5, 3, 2, RP_MON_DISCARD},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    if (rp_mon_decide(rows[i][0], rows[i][1], rows[i][2], rows[i][3]) !=
        rows[i][4])
      fail_msg("decide(%d, %d, %d, %d) = %d, expected %d", rows[i][0],
               rows[i][1], rows[i][2], rows[i][3],
               rp_mon_decide(rows[i][0], rows[i][1], rows[i][2], rows[i][3]),
               rows[i][4]);
}

/* ------------------------------------------------------------ BOI search */

/* the search's growth: the least-squares slope, unmoved by one outlying
 * end; and an error threshold never wider than an eighth of the range */
static void test_monitor_slope_and_err(void **state) {
  (void)state;
  double line[10], bumpy[10];
  for (int i = 0; i < 10; i++) {
    line[i] = 3.0 + 0.5 * i;
    bumpy[i] = 1.0;
  }
  bumpy[9] = 10.0; /* one late outlier */
  assert_near(rp_boi_slope(line, 10), 0.5, 1e-12);
  assert_near(rp_boi_growth(bumpy, 10), 1.0, 1e-12);
  assert_true(rp_boi_slope(bumpy, 10) < 0.5); /* 9 x 4.5 / 82.5 */
  assert_near(rp_boi_slope(line, 1), 0.0, 0);
  rp_boi_search s;
  rp_boi_init(&s, 1e-3, 5e-3, 0.0, RP_BOI_K); /* spread 5x restOWD */
  assert_near(s.err, 0.125e-3, 1e-15);
  rp_boi_init(&s, 1e-3, 1e-5, 0.0, RP_BOI_K);
  assert_near(s.err, 2e-5, 1e-15);
}

/* the capacity: rounds offloaded at once to a tree that takes S seconds
 * per round queue, and arrive S apart (a D/D/1 queue), whatever the host
 * clock's origin; jitter moves the slope little; arrivals all at one time
 * give 0, and a single round no slope */
static void test_monitor_capacity(void **state) {
  (void)state;
  const double S = 40e-6, t0 = 86400.0 * 12; /* a host uptime's seconds */
  double arr[20];
  for (int i = 0; i < 20; i++)
    arr[i] = t0 + 140e-6 + i * S;
  assert_near(rp_mon_capacity(arr, 20), S, 1e-9);
  for (int i = 0; i < 20; i++)
    arr[i] = t0 + i * S + (i % 2 ? 3e-6 : -3e-6); /* jitter */
  assert_near(rp_mon_capacity(arr, 20), S, 1e-6);
  for (int i = 0; i < 20; i++)
    arr[i] = t0;
  assert_near(rp_mon_capacity(arr, 20), 0.0, 0);
  assert_near(rp_mon_capacity(arr, 1), 0.0, 0);
}

/* the robust resting figures: a descheduled round moves neither */
static void test_monitor_median_mad(void **state) {
  (void)state;
  double med = -1.0, spread = -1.0;
  const double v[] = {10, 11, 9, 10, 12, 8, 10, 500};
  rp_mon_median_mad(v, 8, &med, &spread);
  assert_near(med, 10.0, 1e-12);
  assert_near(spread, 1.4826 * 1.0, 1e-12); /* |v - 10|: 0 1 1 0 2 2 0 490 */
  const double one[] = {3};
  rp_mon_median_mad(one, 1, &med, &spread);
  assert_near(med, 3.0, 0);
  assert_near(spread, 0.0, 0);
  rp_mon_median_mad(one, 0, &med, &spread);
  assert_near(med, 0.0, 0);
}

static void test_monitor_mean_sd_growth(void **state) {
  (void)state;
  const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
  double mean, sd;
  rp_mon_mean_sd(v, 8, &mean, &sd);
  assert_near(mean, 5.0, 0);
  assert_near(sd, sqrt(32.0 / 7.0), 1e-15);
  rp_mon_mean_sd(v, 1, &mean, &sd);
  assert_near(mean, 2.0, 0);
  assert_near(sd, 0.0, 0);
  rp_mon_mean_sd(v, 0, &mean, &sd);
  assert_near(mean, 0.0, 0);
  assert_near(sd, 0.0, 0);
  const double owd[] = {1, 3, 6, 10}; /* differences 2 3 4 */
  assert_near(rp_boi_growth(owd, 4), 3.0, 0);
  assert_near(rp_boi_growth(owd, 1), 0.0, 0);
  assert_near(rp_boi_growth(owd, 0), 0.0, 0);
  const double down[] = {5, 4, 3};
  assert_near(rp_boi_growth(down, 3), -1.0, 0);
}

static void test_monitor_boi_init(void **state) {
  (void)state;
  rp_boi_search s;
  rp_boi_init(&s, 1e-3, 2e-5, 0.0, RP_BOI_K);
  assert_near(s.lo, 0.0, 0);
  assert_near(s.hi, 1e-3, 0);
  assert_near(s.cur, 1e-3, 0);
  assert_near(s.err, 4e-5, 1e-20); /* 2 * restSD */
  assert_near(s.k, RP_BOI_K, 0);
  assert_int_equal(s.done, 0);
  rp_boi_init(&s, 1e-3, 0.0, 0.0, RP_BOI_K);
  assert_near(s.err, 1e-6, 1e-20); /* 1e-3 of the first high */
  rp_boi_init(&s, 1e-3, 0.0, 3e-3, RP_BOI_K); /* previous BOI above */
  assert_near(s.lo, 3e-3, 0);
  assert_near(s.hi, 4e-3, 1e-18);
  assert_near(s.cur, s.hi, 0);
  rp_boi_init(&s, 0.0, 0.0, 0.0, RP_BOI_K); /* no resting OWD */
  assert_true(s.hi > s.lo);
  assert_true(s.err > 0.0);
  /* rp_boi_queued decides without moving anything */
  rp_boi_init(&s, 1e-3, 1e-5, 0.0, RP_BOI_K);
  double flat[RP_BOI_L], rising[RP_BOI_L];
  for (int r = 0; r < RP_BOI_L; r++) {
    flat[r] = 1e-3 + (r % 2 ? 1e-6 : -1e-6);
    rising[r] = 1e-3 + 5e-5 * r;
  }
  assert_false(rp_boi_queued(&s, flat, RP_BOI_L));
  assert_true(rp_boi_queued(&s, rising, RP_BOI_L));
  assert_near(s.cur, 1e-3, 0);
  assert_int_equal(s.steps, 0);
  /* growth above restSD but the mean within k restSD: not queued */
  double slow[RP_BOI_L];
  for (int r = 0; r < RP_BOI_L; r++)
    slow[r] = 1e-3 - 1e-4 + 1.1e-5 * r;
  assert_false(rp_boi_queued(&s, slow, RP_BOI_L));
  assert_int_equal(s.rule, RP_BOI_STEP); /* rp_boi_init's default */
}

/* the growth rule's words, both ways, and a word that is neither */
static void test_monitor_boi_rule_names(void **st) {
  (void)st;
  assert_int_equal(rp_boi_rule_of("step"), RP_BOI_STEP);
  assert_int_equal(rp_boi_rule_of("round"), RP_BOI_ROUND);
  assert_int_equal(rp_boi_rule_of("Step"), -1);
  assert_int_equal(rp_boi_rule_of(""), -1);
  assert_string_equal(rp_boi_rule_name(RP_BOI_STEP), "step");
  assert_string_equal(rp_boi_rule_name(RP_BOI_ROUND), "round");
  assert_int_equal(rp_boi_rule_of(rp_boi_rule_name(RP_BOI_ROUND)),
                   RP_BOI_ROUND);
}

/* The growth's rules: a queue that grows by 0.3 restSD a round rises by
 * 5.7 restSD over a step of 20, and its mean is 2.85 restSD up: queued
 * by the step's rise, not by the seed's per-round growth. Noise alone
 * (rising by 2 restSD over the step, mean at restOWD) is queued by
 * neither: the mean's test holds it back. */
static void test_monitor_boi_growth_rules(void **state) {
  (void)state;
  const double rest = 1e-3, sd = 3e-5;
  double slow[RP_BOI_L], noisy[RP_BOI_L];
  for (int r = 0; r < RP_BOI_L; r++) {
    slow[r] = rest + 0.3 * sd * r;
    noisy[r] = rest - sd + 2.0 * sd * r / (RP_BOI_L - 1);
  }
  rp_boi_search s;
  rp_boi_init(&s, rest, sd, 0.0, RP_BOI_K);
  assert_true(rp_boi_queued(&s, slow, RP_BOI_L));
  assert_false(rp_boi_queued(&s, noisy, RP_BOI_L));
  s.rule = RP_BOI_ROUND;
  assert_false(rp_boi_queued(&s, slow, RP_BOI_L));
  assert_false(rp_boi_queued(&s, noisy, RP_BOI_L));
}

/* A simulated system whose true BOI is b: offloading every i seconds, the
 * OWD stays at rest plus noise when i >= b, and grows by b - i a round
 * when i < b (the queue fills). The noise is deterministic, uniform in
 * [-amp, amp]. */
typedef struct sim {
  double rest, b, amp;
  uint64_t x; /* the noise generator's state */
} sim;

static double noise(sim *m) {
  m->x = m->x * 6364136223846793005ull + 1442695040888963407ull;
  return m->amp * (2.0 * (double)(m->x >> 11) / 9007199254740992.0 - 1.0);
}

static void sim_rounds(sim *m, double i, double *owd, int l) {
  double grow = m->b > i ? m->b - i : 0.0;
  for (int r = 0; r < l; r++)
    owd[r] = m->rest + grow * r + noise(m);
}

/* The resting phase, then the search from low under the growth's rule;
 * returns the BOI found. */
static double sim_search_by(sim *m, double low, int rule, rp_boi_search *s) {
  static double owd[RP_BOI_L * RP_BOI_LONG];
  double rest_owd, rest_sd;
  for (int r = 0; r < 200; r++)
    owd[r] = m->rest + noise(m);
  rp_mon_mean_sd(owd, 200, &rest_owd, &rest_sd);
  rp_boi_init(s, rest_owd, rest_sd, low, RP_BOI_K);
  s->rule = rule;
  int steps = 0;
  for (;;) {
    int n = rp_boi_rounds(s, RP_BOI_L); /* the probe's rounds (rp_monitor.c) */
    sim_rounds(m, s->cur, owd, n);
    steps++;
    if (rp_boi_step(s, owd, n))
      break;
    assert_true(steps < RP_BOI_MAX_STEPS);
  }
  assert_int_equal(s->steps, steps);
  assert_int_equal(rp_boi_step(s, owd, RP_BOI_L), 1); /* done stays done */
  assert_int_equal(s->steps, steps);
  return s->boi;
}

static double sim_search(sim *m, double low, rp_boi_search *s) {
  return sim_search_by(m, low, RP_BOI_STEP, s);
}

static void test_monitor_boi_search_finds_boi(void **state) {
  (void)state;
  static const struct {
    double rest, b, amp, low;
    int grows; /* 1: restOWD < b, the high must grow */
  } cases[] = {
      {1e-3, 0.4e-3, 0.0, 0.0, 0},    {1e-3, 0.4e-3, 2e-5, 0.0, 0},
      {1e-3, 0.9e-3, 5e-5, 0.0, 0},   {1e-3, 0.123e-3, 1e-6, 0.0, 0},
      {1e-3, 0.8e-3, 1e-5, 0.5e-3, 0}, {1e-3, 7.3e-3, 1e-5, 0.0, 1},
      {1e-3, 4e-3, 0.0, 0.0, 1},      {2e-4, 0.05, 0.0, 0.0, 1},
      {2e-4, 0.05, 5e-6, 0.0, 1},     {5e-6, 3e-4, 2e-7, 0.0, 1},
      {1e-3, 2.5e-3, 1e-5, 2e-3, 0}, /* previous BOI above restOWD */
  };
  for (int rule = RP_BOI_STEP; rule <= RP_BOI_ROUND; rule++)
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      sim m = {cases[i].rest, cases[i].b, cases[i].amp, 12345 + i};
      rp_boi_search s;
      double boi = sim_search_by(&m, cases[i].low, rule, &s);
      /* the queue is seen once the mean passes restOWD + k restSD (the
         step's rise: the edge found is b - 2k restSD / (L - 1)) or once
         the growth passes restSD a round (the seed's: b - restSD), give
         or take the noise's growth, within err */
      double tol = s.err + 1.5 * s.rest_sd;
      if (!(fabs(boi - cases[i].b) <= tol))
        fail_msg("rule %d, case %zu: BOI %g, expected %g within %g (%d "
                 "steps, %d grown)", rule, i, boi, cases[i].b, tol, s.steps,
                 s.grown);
      assert_int_equal(s.grown > 0, cases[i].grows);
      assert_true(s.done);
    }
  /* nothing ever queues: the BOI goes down to low within err */
  sim calm = {1e-3, 0.0, 1e-5, 7};
  rp_boi_search s;
  double boi = sim_search(&calm, 0.0, &s);
  assert_true(boi >= 0.0 && boi <= s.err);
  assert_int_equal(s.grown, 0);
}

/* This VM's figures: restOWD 150 us, restSD about 30 us (uniform noise
 * of +-52 us), a tree that takes 70 us a round. The step's rise finds the
 * BOI within the error threshold and 0.3 restSD (the mean's test's
 * 2k restSD / (L - 1)); the seed's per-round growth stops about restSD
 * short, below it. */
static void test_monitor_boi_search_rules_on_a_noisy_vm(void **state) {
  (void)state;
  rp_boi_search step, round;
  sim a = {150e-6, 70e-6, 52e-6, 99}, b = a;
  double by_step = sim_search_by(&a, 0.0, RP_BOI_STEP, &step);
  double by_round = sim_search_by(&b, 0.0, RP_BOI_ROUND, &round);
  if (!(fabs(by_step - 70e-6) <= step.err + 0.3 * step.rest_sd))
    fail_msg("step: BOI %g, expected 70e-6 within %g", by_step,
             step.err + 0.3 * step.rest_sd);
  if (!(by_round < 70e-6 - 0.5 * round.rest_sd && by_round < by_step))
    fail_msg("round: BOI %g, step's %g, restSD %g", by_round, by_step,
             round.rest_sd);
}

/* A step's rounds: l under the seed's rule and from the first high up;
 * below it under the step's rule as long as the first step lasted, at
 * most RP_BOI_LONG times l. */
static void test_monitor_boi_rounds(void **state) {
  (void)state;
  rp_boi_search s;
  memset(&s, 0, sizeof s);
  s.cur = 1e-6;
  assert_int_equal(rp_boi_rounds(&s, 20), 20); /* before rp_boi_init */
  rp_boi_init(&s, 120e-6, 30e-6, 0.0, RP_BOI_K);
  assert_int_equal(rp_boi_rounds(&s, 20), 20); /* at the first high */
  s.cur = 60e-6;
  assert_int_equal(rp_boi_rounds(&s, 20), 40);
  s.cur = 7.5e-6;
  assert_int_equal(rp_boi_rounds(&s, 20), 320);
  s.cur = 50e-6; /* 48 rounds: 20 * 2.4 */
  assert_int_equal(rp_boi_rounds(&s, 20), 48);
  s.cur = 1e-9;
  assert_int_equal(rp_boi_rounds(&s, 20), 20 * RP_BOI_LONG);
  s.cur = 240e-6; /* grown above the first high */
  assert_int_equal(rp_boi_rounds(&s, 20), 20);
  s.cur = 7.5e-6;
  s.rule = RP_BOI_ROUND;
  assert_int_equal(rp_boi_rounds(&s, 20), 20);
}

/* This VM's smallest profile (README, Figs. 9 and 11): restOWD 120 us,
 * restSD about 30 us, a tree that takes 10 us a round, so 2 restSD is
 * six times the BOI. With l rounds a step and the seed's end the search
 * stopped at [0, 7.7 us] or [7.7, 15.4] and said 3.9 or 15.4 us; with
 * steps as long as the first and the relative end it finds 10 us within
 * an eighth, give or take the mean's test's 2k restSD / (n - 1). */
static void test_monitor_boi_search_small_boi(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    sim m = {120e-6, 10e-6, 52e-6, seed};
    rp_boi_search s;
    double boi = sim_search(&m, 0.0, &s);
    if (!(fabs(boi - 10e-6) <= 0.125 * 10e-6 + 0.5e-6))
      fail_msg("seed %d: BOI %g, expected 1e-05 within 1.75e-06 (%d steps)",
               (int)seed, boi, s.steps);
  }
}

/* Always queued: the high doubles RP_BOI_GROW times, then gives up with
 * it. */
static void test_monitor_boi_search_grow_limit(void **state) {
  (void)state;
  sim m = {1e-3, 1e3, 0.0, 1};
  rp_boi_search s;
  double boi = sim_search(&m, 0.0, &s);
  assert_int_equal(s.grown, RP_BOI_GROW);
  assert_int_equal(s.steps, RP_BOI_GROW + 1);
  assert_near(boi, 1e-3 * (double)(1 << RP_BOI_GROW), 1e-12);
}

static void test_monitor_lo(void **state) {
  (void)state;
  assert_near(rp_mon_lo(1e-6, 99e-6), 1.0, 1e-12);
  assert_near(rp_mon_lo(1.0, 3.0), 25.0, 0);
  assert_near(rp_mon_lo(0.0, 0.0), 0.0, 0);
  assert_near(rp_mon_lo(1.0, 0.0), 100.0, 0);
  assert_near(rp_mon_lo(0.0, 1.0), 0.0, 0);
}

/* ------------------------------------------------- offloads thinned to BOI */

static void test_monitor_auto_keep(void **state) {
  (void)state;
  /* d = 75 ms, BOI 100 ms: floor(0.75 c) steps at c = 2, 3, 4, then 6, 7,
     8, ...: 3 of every 4 calls, every block of 4 alike */
  long kept = 0;
  for (long c = 1; c <= 4000; c++) {
    int k = rp_mon_auto_keep(c, 0.075, 0.1);
    assert_int_equal(k, c % 4 != 1);
    assert_int_equal(rp_mon_auto_keep(c, 0.075, 0.1), k); /* deterministic */
    kept += k;
  }
  assert_int_equal(kept, 3000);
  /* one in 10 */
  kept = 0;
  for (long c = 1; c <= 1000; c++) {
    int k = rp_mon_auto_keep(c, 0.01, 0.1);
    assert_int_equal(k, c % 10 == 0);
    kept += k;
  }
  assert_int_equal(kept, 100);
  /* a share of 0.3: 300 of 1000, never two skipped calls more than
     ceil(1 / 0.3) apart */
  kept = 0;
  long last = 0;
  for (long c = 1; c <= 1000; c++)
    if (rp_mon_auto_keep(c, 0.03, 0.1)) {
      kept++;
      assert_true(c - last <= 4);
      last = c;
    }
  assert_int_equal(kept, 300);
  /* d >= boi or no BOI: every call */
  for (long c = 1; c <= 100; c++) {
    assert_int_equal(rp_mon_auto_keep(c, 0.1, 0.1), 1);
    assert_int_equal(rp_mon_auto_keep(c, 0.25, 0.1), 1);
    assert_int_equal(rp_mon_auto_keep(c, 0.01, 0.0), 1);
    assert_int_equal(rp_mon_auto_keep(c, 0.01, -1.0), 1);
  }
}

/* --------------------------------------------------------- model's BOI */

typedef struct linear {
  double a, b; /* s, s per byte */
} linear;

static double linear_msg(double bytes, void *ctx) {
  const linear *l = ctx;
  return l->a + l->b * bytes;
}

/* N = 6, K = 3, F = 2: the root has leaves 1 (ranks 0-2) and 2 (3-5). */
static void test_monitor_predict_small_tree(void **state) {
  (void)state;
  linear l = {1e-6, 1e-9};
  rp_mon_pred p;
  /* stats, E = 2: raw 8 + 2 + 1 doubles = 88 bytes, reduced 8 + 10 + 1 =
     152 bytes; msg 1.088 us and 1.152 us; elem 0.1 us */
  rp_mon_predict(6, 3, 2, 2, RP_MON_STATS, linear_msg, &l, 1e-7, 0, &p);
  double leaf = 3 * (1.088e-6 + 2e-7) + 1.152e-6; /* 5.016 us */
  double root = 2 * (1.152e-6 + 2e-7);             /* 2.704 us */
  double total = root + 2 * leaf + 6 * 1.088e-6;   /* 19.264 us */
  assert_near(p.oc, 1.088e-6, 1e-18);
  assert_near(p.node_max, leaf, 1e-18);
  assert_near(p.node_max, 5.016e-6, 1e-18);
  assert_int_equal(p.node, 1);
  assert_near(p.total, total, 1e-18);
  assert_near(p.total, 19.264e-6, 1e-18);
  assert_near(p.boi, leaf, 0);
  /* cores: 16 and 9 >= N + K change nothing; on fewer the slowest node
     shares them with the 6 application ranks, running all round, and with
     the tools while busy (root + 2 leaves = 12.736 us of tools' work):
     (6 x 5.016 + 12.736) / C = 42.832 us / C, 5.354 us on 8 cores */
  rp_mon_predict(6, 3, 2, 2, RP_MON_STATS, linear_msg, &l, 1e-7, 16, &p);
  assert_near(p.boi, leaf, 0);
  rp_mon_predict(6, 3, 2, 2, RP_MON_STATS, linear_msg, &l, 1e-7, 9, &p);
  assert_near(p.boi, leaf, 0);
  rp_mon_predict(6, 3, 2, 2, RP_MON_STATS, linear_msg, &l, 1e-7, 8, &p);
  assert_near(p.boi, (6 * leaf + root + 2 * leaf) / 8, 1e-18);
  assert_near(p.boi, 5.354e-6, 1e-18);
  rp_mon_predict(6, 3, 2, 2, RP_MON_STATS, linear_msg, &l, 1e-7, 2, &p);
  assert_near(p.boi, 42.832e-6 / 2, 1e-18);
  assert_near(p.node_max, leaf, 1e-18);
  /* 1 + 1 on one core: the tool's time doubles (it and the application
     rank share the core) */
  rp_mon_predict(1, 1, 8, 2, RP_MON_STATS, linear_msg, &l, 1e-7, 1, &p);
  assert_near(p.boi, 2 * p.node_max, 1e-18);
  /* hist, E = 2: reduced 8 + 128 + 1 doubles = 1096 bytes, 2.096 us; the
     root merges 64 bins per event */
  rp_mon_predict(6, 3, 2, 2, RP_MON_HIST, linear_msg, &l, 1e-7, 0, &p);
  leaf = 3 * (1.088e-6 + 2e-7) + 2.096e-6;  /* 5.96 us */
  root = 2 * (2.096e-6 + 2 * 64 * 1e-7);    /* 29.792 us */
  assert_near(p.oc, 1.088e-6, 1e-18);
  assert_int_equal(p.node, 0);
  assert_near(p.node_max, 29.792e-6, 1e-17);
  assert_near(p.total, root + 2 * leaf + 6 * 1.088e-6, 1e-17);
  assert_near(p.boi, p.node_max, 0);
}

static void test_monitor_predict_edges(void **state) {
  (void)state;
  linear l = {1e-6, 0.0};
  rp_mon_pred p;
  /* a lone root is the leaf of all N ranks and sends nothing up */
  rp_mon_predict(4, 1, 8, 3, RP_MON_STATS, linear_msg, &l, 1e-7, 0, &p);
  assert_int_equal(p.node, 0);
  assert_near(p.node_max, 4 * (1e-6 + 3e-7), 1e-18);
  assert_near(p.total, 4 * (1e-6 + 3e-7) + 4 * 1e-6, 1e-18);
  /* K = 10, F = 3, N = 14: leaves 3..9 get two ranks each */
  rp_mon_predict(14, 10, 3, 1, RP_MON_STATS, linear_msg, &l, 0.0, 0, &p);
  /* root 3 receives; tools 1 and 2: 3 receives + 1 send; leaves 2 + 1 */
  assert_near(p.node_max, 4e-6, 1e-18);
  assert_int_equal(p.node, 1); /* the first of the slowest */
  assert_near(p.total, 3e-6 + 2 * 4e-6 + 7 * 3e-6 + 14e-6, 1e-17);
  assert_near(p.boi, 4e-6, 1e-18);
  assert_near(p.oc, 1e-6, 0);
  /* 23 ranks on 2 cores: (14 x 4 us + the tools' 32 us) / 2 */
  rp_mon_predict(14, 10, 3, 1, RP_MON_STATS, linear_msg, &l, 0.0, 2, &p);
  assert_near(p.boi, 44e-6, 1e-18);
  /* a shape rp_mon_shape_check rejects: all zero, node -1 */
  rp_mon_predict(3, 9, 8, 1, RP_MON_STATS, linear_msg, &l, 0.0, 0, &p);
  assert_int_equal(p.node, -1);
  assert_near(p.boi, 0.0, 0);
  assert_near(p.total, 0.0, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_monitor_config_defaults),
      cmocka_unit_test(test_monitor_config_values),
      cmocka_unit_test(test_monitor_config_rejects),
      cmocka_unit_test(test_monitor_tree_shape),
      cmocka_unit_test(test_monitor_shape_check_rejects),
      cmocka_unit_test(test_monitor_packet_sizes),
      cmocka_unit_test(test_monitor_packet_bitmap),
      cmocka_unit_test(test_monitor_stats_filter),
      cmocka_unit_test(test_monitor_stats_merge),
      cmocka_unit_test(test_monitor_hist_bins),
      cmocka_unit_test(test_monitor_hist_merge),
      cmocka_unit_test(test_monitor_decide_table),
      cmocka_unit_test(test_monitor_slope_and_err),
      cmocka_unit_test(test_monitor_capacity),
      cmocka_unit_test(test_monitor_median_mad),
      cmocka_unit_test(test_monitor_mean_sd_growth),
      cmocka_unit_test(test_monitor_boi_init),
      cmocka_unit_test(test_monitor_boi_rounds),
      cmocka_unit_test(test_monitor_boi_search_small_boi),
      cmocka_unit_test(test_monitor_boi_rule_names),
      cmocka_unit_test(test_monitor_boi_growth_rules),
      cmocka_unit_test(test_monitor_boi_search_rules_on_a_noisy_vm),
      cmocka_unit_test(test_monitor_boi_search_finds_boi),
      cmocka_unit_test(test_monitor_boi_search_grow_limit),
      cmocka_unit_test(test_monitor_lo),
      cmocka_unit_test(test_monitor_auto_keep),
      cmocka_unit_test(test_monitor_predict_small_tree),
      cmocka_unit_test(test_monitor_predict_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
