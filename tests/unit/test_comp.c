/* Unit tests of compensate mode's rules (revprof/rp_comp.c) on the
 * scenarios of seed 000 §3: one send, two sends, handshake, pipeline, two
 * receives (case 4: send reordering), collectives, local compensation.
 * Values are binary-exact, so expectations are exact. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "rp_comp.h"

/* A rank that has accumulated overhead o and nothing else. */
static rp_comp rank_with(double o) {
  rp_comp c;
  rp_comp_init(&c);
  rp_comp_overhead(&c, o);
  return c;
}

static void assert_state(const rp_comp *c, double x, double adj) {
  assert_true(c->x == x);
  assert_true(c->adj == adj);
  assert_true(c->x == c->o + c->adj); /* the invariant */
}

/* One send, case 1: o1 >= o2 + w, the receiver would not have waited; its
 * waiting becomes overhead-like delay: x2 = o2 + w. */
static void test_comp_one_send_case1_no_wait(void **state) {
  (void)state;
  rp_comp p1 = rank_with(4.0), p2 = rank_with(1.0);
  assert_true(rp_comp_recv(&p2, 2.0, p1.x) == 0.0);
  assert_state(&p2, 3.0, 2.0);
  assert_true(p2.wait == 2.0 && p2.wait_c == 0.0);
}

/* One send, case 2: o1 < o2 + w; w' = w + o2 - o1 and x2 = x1. The
 * waiting grows when o1 < o2, shrinks when o1 > o2. */
static void test_comp_one_send_case2_delay_from_sender(void **state) {
  (void)state;
  rp_comp p1 = rank_with(1.0), p2 = rank_with(2.0);
  assert_true(rp_comp_recv(&p2, 3.0, p1.x) == 4.0); /* grows */
  assert_state(&p2, 1.0, -1.0);
  rp_comp q1 = rank_with(2.0), q2 = rank_with(1.0);
  assert_true(rp_comp_recv(&q2, 3.0, q1.x) == 2.0); /* shrinks */
  assert_state(&q2, 2.0, 1.0);
}

/* Two sends: P1 sends with delay O1 = x1 + o1a, P2 receives with
 * O2 = x2 + o2a and waits y. first: 1 (no wait) or 2 (wait); second idem. */
static void two_sends(int first_waits, int second_waits, double *y_c,
                      rp_comp *p2) {
  rp_comp p1 = rank_with(first_waits ? 1.0 : 4.0);
  *p2 = rank_with(first_waits ? 2.0 : 1.0);
  rp_comp_recv(p2, first_waits ? 3.0 : 2.0, p1.x);
  rp_comp_overhead(&p1, second_waits ? 0.5 : 3.0); /* o1a */
  rp_comp_overhead(p2, 1.0);                        /* o2a */
  *y_c = rp_comp_recv(p2, second_waits ? 2.0 : 1.0, p1.x);
}

static void test_comp_two_sends_case1(void **state) {
  (void)state;
  double y;
  rp_comp p2;
  two_sends(0, 0, &y, &p2); /* O1 = 7 >= O2 + y = 4 + 1 */
  assert_true(y == 0.0);
  assert_state(&p2, 5.0, 3.0); /* x2' = O2 + y */
}

static void test_comp_two_sends_case2(void **state) {
  (void)state;
  double y;
  rp_comp p2;
  two_sends(1, 0, &y, &p2); /* x2 = 1; O1 = 4 >= O2 + y = 2 + 1 */
  assert_true(y == 0.0);
  assert_state(&p2, 3.0, 0.0); /* -1 on the first, +1 on the second */
}

static void test_comp_two_sends_case3(void **state) {
  (void)state;
  double y;
  rp_comp p2;
  two_sends(0, 1, &y, &p2); /* x2 = 3; O1 = 4.5 < O2 + y = 4 + 2 */
  assert_true(y == 1.5);       /* y' = y + O2 - O1 */
  assert_state(&p2, 4.5, 2.5); /* x2' = O1 */
}

static void test_comp_two_sends_case4(void **state) {
  (void)state;
  double y;
  rp_comp p2;
  two_sends(1, 1, &y, &p2); /* x2 = 1; O1 = 1.5 < O2 + y = 2 + 2 */
  assert_true(y == 2.5);
  assert_state(&p2, 1.5, -1.5);
  assert_true(p2.wait == 5.0 && p2.wait_c == 6.5);
}

/* Handshake: P1 -> P2, then P2 sends back x2 + o2a and P1, at x1 + o1a,
 * waits v. */
static double handshake(int first_waits, int back_waits, rp_comp *p1) {
  *p1 = rank_with(first_waits ? 1.0 : 4.0);
  rp_comp p2 = rank_with(first_waits ? 2.0 : 1.0);
  rp_comp_recv(&p2, first_waits ? 3.0 : 2.0, p1->x); /* x2 = 1 or 3 */
  rp_comp_overhead(&p2, back_waits ? 0.5 : 3.0);    /* o2a */
  rp_comp_overhead(p1, back_waits ? 1.0 : 0.5);     /* o1a */
  return rp_comp_recv(p1, 1.0, p2.x);
}

static void test_comp_handshake_case1(void **state) {
  (void)state;
  rp_comp p1;
  assert_true(handshake(0, 0, &p1) == 0.0); /* 6 >= 4.5 + 1 */
  assert_state(&p1, 5.5, 1.0);
}

static void test_comp_handshake_case2(void **state) {
  (void)state;
  rp_comp p1;
  assert_true(handshake(1, 0, &p1) == 0.0); /* 4 >= 1.5 + 1 */
  assert_state(&p1, 2.5, 1.0);
}

static void test_comp_handshake_case3(void **state) {
  (void)state;
  rp_comp p1;
  assert_true(handshake(0, 1, &p1) == 2.5); /* 3.5 < 5 + 1 */
  assert_state(&p1, 3.5, -1.5);
}

static void test_comp_handshake_case4(void **state) {
  (void)state;
  rp_comp p1;
  assert_true(handshake(1, 1, &p1) == 1.5); /* 1.5 < 2 + 1 */
  assert_state(&p1, 1.5, -0.5);
}

/* Pipeline P1 -> P2 -> P3: P3's update depends on P2's delay only, exactly
 * as if P2 had sent without receiving first. */
static void test_comp_pipeline_delay_propagates(void **state) {
  (void)state;
  for (int waits = 0; waits < 2; waits++) {
    rp_comp p1 = rank_with(4.0), p2 = rank_with(1.0);
    rp_comp_recv(&p2, 2.0, p1.x); /* x2 = 3 */
    rp_comp_overhead(&p2, 0.5);   /* sends 3.5 */
    rp_comp p3 = rank_with(waits ? 2.0 : 1.0), alone = p3;
    double z = rp_comp_recv(&p3, waits ? 3.0 : 1.0, p2.x);
    double z_alone = rp_comp_recv(&alone, waits ? 3.0 : 1.0, 3.5);
    assert_true(z == z_alone && p3.x == alone.x);
    assert_true(z == (waits ? 1.5 : 0.0));
    assert_true(p3.x == (waits ? 3.5 : 2.0));
  }
}

/* Two receives: P2 receives from P1 (wait w) then from P3 (wait y). */
static double two_recv(double o1, double o2, double w, double o3, double y,
                       double *wc, rp_comp *p2) {
  *p2 = rank_with(o2);
  *wc = rp_comp_recv(p2, w, o1);
  rp_comp_overhead(p2, 0.5);
  return rp_comp_recv(p2, y, o3);
}

static void test_comp_two_receives_case1(void **state) {
  (void)state;
  double w, y;
  rp_comp p2;
  y = two_recv(4.0, 1.0, 2.0, 5.0, 1.0, &w, &p2);
  assert_true(w == 0.0 && y == 0.0);
  assert_state(&p2, 4.5, 3.0);
}

static void test_comp_two_receives_case2(void **state) {
  (void)state;
  double w, y;
  rp_comp p2;
  y = two_recv(4.0, 1.0, 2.0, 2.0, 1.0, &w, &p2);
  assert_true(w == 0.0 && y == 2.5);
  assert_state(&p2, 2.0, 0.5);
}

static void test_comp_two_receives_case3(void **state) {
  (void)state;
  double w, y;
  rp_comp p2;
  y = two_recv(1.0, 2.0, 3.0, 0.5, 1.0, &w, &p2);
  assert_true(w == 4.0 && y == 2.0);
  assert_state(&p2, 0.5, -2.0);
}

/* Case 4: P1 sent at 10 with delay 1, P3 at 11 with delay 4: without
 * measurement P3 sends first (at 7, P1 at 9). The rules keep the measured
 * receive order and say so. */
static void test_comp_two_receives_case4_reordering(void **state) {
  (void)state;
  double w, y;
  rp_comp p2;
  y = two_recv(1.0, 2.0, 3.0, 4.0, 0.25, &w, &p2);
  assert_true(w == 4.0 && y == 0.0);
  assert_state(&p2, 1.75, -0.75);
  assert_int_equal(rp_comp_reordered(10.0, 1.0, 11.0, 4.0), 1);
  assert_int_equal(rp_comp_reordered(10.0, 1.0, 11.0, 1.5), 0);
  assert_int_equal(rp_comp_reordered(12.0, 1.0, 11.0, 4.0), 0);
}

/* Gather: the message with the least delay decides (of delays 3, 1.5 and
 * 2: 1.5; the engine takes it as the largest -x of the clock exchange);
 * barrier = gather to the root, then bcast of the root's new delay. */
static void test_comp_collectives_least_delay(void **state) {
  (void)state;
  rp_comp root = rank_with(2.5);
  assert_true(rp_comp_recv(&root, 1.0, 1.5) == 2.0);
  assert_true(root.x == 1.5);
  rp_comp leaf = rank_with(3.0);
  assert_true(rp_comp_recv(&leaf, 0.5, root.x) == 2.0); /* bcast */
  assert_true(leaf.x == 1.5); /* all leave the barrier together */
}

/* The timed rule (one clock): a receive posted at host time t0 with delay
 * xr, completing after w, of one message sent at host time s by a rank
 * with delay xs. */
static double timed_one(rp_comp *r, double t0, double w, double s,
                        double xs) {
  double late = (s - xs) - (t0 - r->x), sent = s - t0;
  return rp_comp_recv_timed(r, w, late > 0 ? late : 0, sent > 0 ? sent : 0);
}

/* A message sent when its receive ended (s = t0 + w) is seed 000's case:
 * the timed rule gives the seed's waiting and delay, for every order of
 * the delays and either case of the two-process analysis. */
static void test_comp_timed_is_the_seed_when_sent_at_the_end(void **state) {
  (void)state;
  const double xr[] = {0.0, 1.0, 2.0, 4.0}, xs[] = {0.0, 0.5, 1.5, 4.0};
  const double w[] = {0.0, 0.25, 1.0, 3.0};
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 4; k++) {
        rp_comp seed = rank_with(xr[i]), timed = rank_with(xr[i]);
        double ws = rp_comp_recv(&seed, w[k], xs[j]);
        double wt = timed_one(&timed, 10.0, w[k], 10.0 + w[k], xs[j]);
        assert_true(ws == wt);
        assert_true(seed.x == timed.x && seed.adj == timed.adj);
        assert_true(timed.x == timed.o + timed.adj);
      }
}

/* A message already there when the receive began: the seed takes it as
 * arrived at the receive's end and gives the receiver the sender's smaller
 * delay (it would have waited 3.5 s), where without measurement it was
 * sent at 4, before the receive at 6: no waiting, the delay stays. When
 * the sender's delay puts its send after the receive without measurement,
 * the receiver waits for it, plus the measured transfer. */
static void test_comp_timed_message_already_there(void **state) {
  (void)state;
  rp_comp seed = rank_with(4.0), timed = rank_with(4.0);
  assert_true(rp_comp_recv(&seed, 0.5, 1.0) == 3.5);
  assert_true(seed.x == 1.0);
  assert_true(timed_one(&timed, 10.0, 0.5, 5.0, 1.0) == 0.5);
  assert_state(&timed, 4.0, 0.0);
  rp_comp r = rank_with(4.0); /* sent at 9.5 - 0.25 = 9.25 > 6 */
  assert_true(timed_one(&r, 10.0, 0.5, 9.5, 0.25) == 3.75);
  assert_state(&r, 0.75, -3.25);
}

/* A collective whose root comes last with the largest delay: members
 * arrive at host times 10, 9.5, 9.25 with delays 0.5, 0.25, 0 (so without
 * measurement at 9.5, 9.25, 9.25) and all leave at 10.125. Without
 * measurement all leave 0.5 s earlier: every member's delay becomes 0.5.
 * (The seed's least-delay rule gives them 0, and the root 0 too.) */
static void test_comp_timed_collective_late_root(void **state) {
  (void)state;
  const double arrive[] = {10.0, 9.5, 9.25}, x[] = {0.5, 0.25, 0.0};
  double amax = 0, smax = 0;
  for (int i = 0; i < 3; i++) {
    amax = arrive[i] - x[i] > amax ? arrive[i] - x[i] : amax;
    smax = arrive[i] > smax ? arrive[i] : smax;
  }
  for (int i = 0; i < 3; i++) {
    rp_comp m = rank_with(x[i]);
    rp_comp_recv_timed(&m, 10.125 - arrive[i], amax - (arrive[i] - x[i]),
                       smax - arrive[i]);
    assert_true(m.x == 0.5);
    assert_true(m.x == m.o + m.adj);
  }
  rp_comp seed_root = rank_with(0.5);
  rp_comp_recv(&seed_root, 0.125, 0.0);
  assert_true(seed_root.x == 0.0);
}

static void test_comp_timed_clamps(void **state) {
  (void)state;
  rp_comp c = rank_with(1.0);
  assert_true(rp_comp_recv_timed(&c, -1.0, -2.0, -3.0) == 0.0);
  assert_state(&c, 1.0, 0.0);
  assert_true(rp_comp_recv_timed(&c, 1.0, 0.0, 2.0) == 0.0); /* never < 0 */
  assert_state(&c, 2.0, 1.0);
}

static void test_comp_negative_wait_is_zero(void **state) {
  (void)state;
  rp_comp c = rank_with(1.0);
  assert_true(rp_comp_recv(&c, -1.0, 5.0) == 0.0);
  assert_state(&c, 1.0, 0.0);
}

static void test_comp_region_local_and_parallel(void **state) {
  (void)state;
  assert_true(rp_comp_local(10.0, 2.5) == 7.5);
  assert_true(rp_comp_local(1.0, 2.5) == 0.0); /* clamped */
  assert_true(rp_comp_parallel(10.0, 2.5, 3.0) == 4.5);
  assert_true(rp_comp_parallel(10.0, 2.5, -1.0) == 8.5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_comp_one_send_case1_no_wait),
      cmocka_unit_test(test_comp_one_send_case2_delay_from_sender),
      cmocka_unit_test(test_comp_two_sends_case1),
      cmocka_unit_test(test_comp_two_sends_case2),
      cmocka_unit_test(test_comp_two_sends_case3),
      cmocka_unit_test(test_comp_two_sends_case4),
      cmocka_unit_test(test_comp_handshake_case1),
      cmocka_unit_test(test_comp_handshake_case2),
      cmocka_unit_test(test_comp_handshake_case3),
      cmocka_unit_test(test_comp_handshake_case4),
      cmocka_unit_test(test_comp_pipeline_delay_propagates),
      cmocka_unit_test(test_comp_two_receives_case1),
      cmocka_unit_test(test_comp_two_receives_case2),
      cmocka_unit_test(test_comp_two_receives_case3),
      cmocka_unit_test(test_comp_two_receives_case4_reordering),
      cmocka_unit_test(test_comp_collectives_least_delay),
      cmocka_unit_test(test_comp_timed_is_the_seed_when_sent_at_the_end),
      cmocka_unit_test(test_comp_timed_message_already_there),
      cmocka_unit_test(test_comp_timed_collective_late_root),
      cmocka_unit_test(test_comp_timed_clamps),
      cmocka_unit_test(test_comp_negative_wait_is_zero),
      cmocka_unit_test(test_comp_region_local_and_parallel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
