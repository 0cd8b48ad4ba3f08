/* Unit tests of librevprof's prediction rules (revprof/rp_clock.c): late
 * sender, late receiver, non-blocking completion, collectives and their
 * message sizes, the three clocks, compute amounts, wildcard detection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rp_clock.h"
#include "rp_test.h"

#define TOL 1e-15

static void assert_invariant(const rp_clock *c) {
  for (int b = 0; b < RP_NB; b++)
    assert_near(c->now[b], c->compute[b] + c->comm[b] + c->wait[b], 1e-15);
}

static void set3(double v[RP_NB], double lo, double mid, double hi) {
  v[RP_MIN] = lo;
  v[RP_AVG] = mid;
  v[RP_MAX] = hi;
}

static void test_clock_send_stamps_then_advances(void **state) {
  (void)state;
  rp_clock c;
  double cost[RP_NB], ts[RP_NB], dt[RP_NB];
  rp_clock_init(&c);
  set3(dt, 1e-3, 2e-3, 3e-3);
  rp_clock_compute(&c, dt);
  set3(cost, 1e-6, 2e-6, 4e-6);
  rp_clock_send(&c, cost, ts);
  assert_near(ts[RP_MIN], 1e-3, TOL); /* piggyback: the time before */
  assert_near(ts[RP_AVG], 2e-3, TOL);
  assert_near(ts[RP_MAX], 3e-3, TOL);
  assert_near(c.now[RP_MIN], 1e-3 + 1e-6, TOL);
  assert_near(c.now[RP_AVG], 2e-3 + 2e-6, TOL);
  assert_near(c.now[RP_MAX], 3e-3 + 4e-6, TOL);
  assert_near(c.comm[RP_AVG], 2e-6, TOL);
  assert_invariant(&c);
}

static void test_clock_late_sender_makes_receiver_wait(void **state) {
  (void)state;
  rp_clock r;
  double cost[RP_NB], ts[RP_NB], lat[RP_NB];
  rp_clock_init(&r);
  r.now[0] = r.now[1] = r.now[2] = 1e-5; /* receiver ready early */
  r.compute[0] = r.compute[1] = r.compute[2] = 1e-5;
  set3(cost, 1e-6, 2e-6, 3e-6);
  set3(ts, 1e-4, 1e-4, 1e-4); /* sender starts late */
  set3(lat, 4e-6, 5e-6, 6e-6);
  double w = rp_clock_recv(&r, cost, ts, lat);
  assert_near(r.now[RP_MIN], 1e-4 + 4e-6, TOL);
  assert_near(r.now[RP_AVG], 1e-4 + 5e-6, TOL);
  assert_near(r.now[RP_MAX], 1e-4 + 6e-6, TOL);
  assert_near(w, 1e-4 + 5e-6 - (1e-5 + 2e-6), TOL);
  assert_near(r.wait[RP_AVG], w, TOL);
  assert_near(r.comm[RP_MAX], 3e-6, TOL);
  assert_invariant(&r);
}

static void test_clock_late_receiver_pays_only_the_copy(void **state) {
  (void)state;
  rp_clock r;
  double cost[RP_NB], ts[RP_NB], lat[RP_NB];
  rp_clock_init(&r);
  r.now[0] = r.now[1] = r.now[2] = 1e-3;
  r.compute[0] = r.compute[1] = r.compute[2] = 1e-3;
  set3(cost, 1e-6, 2e-6, 3e-6);
  set3(ts, 1e-5, 1e-5, 1e-5); /* message arrived long ago */
  set3(lat, 4e-6, 5e-6, 6e-6);
  double w = rp_clock_recv(&r, cost, ts, lat);
  assert_near(w, 0.0, TOL);
  assert_near(r.now[RP_MIN], 1e-3 + 1e-6, TOL);
  assert_near(r.now[RP_AVG], 1e-3 + 2e-6, TOL);
  assert_near(r.now[RP_MAX], 1e-3 + 3e-6, TOL);
  assert_near(r.wait[RP_AVG], 0.0, TOL);
  assert_invariant(&r);
}

/* The bounds are independent: a receive may wait on the max clock and not
 * on the min clock. */
static void test_clock_three_clocks_decide_separately(void **state) {
  (void)state;
  rp_clock r;
  double cost[RP_NB] = {0, 0, 0}, ts[RP_NB], lat[RP_NB] = {0, 0, 0};
  rp_clock_init(&r);
  set3(r.now, 1.0, 2.0, 3.0);
  set3(r.compute, 1.0, 2.0, 3.0);
  set3(ts, 0.5, 2.5, 4.0);
  rp_clock_recv(&r, cost, ts, lat);
  assert_near(r.now[RP_MIN], 1.0, TOL); /* min: sender early */
  assert_near(r.now[RP_AVG], 2.5, TOL);
  assert_near(r.now[RP_MAX], 4.0, TOL);
  assert_near(r.wait[RP_MIN], 0.0, TOL);
  assert_near(r.wait[RP_AVG], 0.5, TOL);
  assert_near(r.wait[RP_MAX], 1.0, TOL);
  assert_true(r.now[RP_MIN] <= r.now[RP_AVG] && r.now[RP_AVG] <= r.now[RP_MAX]);
  assert_invariant(&r);
}

/* Isend then Wait: the cost at the start, nothing at completion; Irecv
 * then Wait: the receive rule at the Wait with the clock of the Wait. */
static void test_clock_nonblocking_completion(void **state) {
  (void)state;
  rp_clock s, r;
  double isend[RP_NB] = {1e-7, 2e-7, 3e-7}, irecv[RP_NB] = {1e-6, 1e-6, 1e-6};
  double lat[RP_NB] = {5e-6, 5e-6, 5e-6}, ts[RP_NB], dt[RP_NB];
  rp_clock_init(&s);
  rp_clock_init(&r);
  rp_compute_seconds(1e-5, dt);
  rp_clock_compute(&s, dt);
  rp_clock_send(&s, isend, ts); /* Isend at 10 us */
  assert_near(s.now[RP_AVG], 1e-5 + 2e-7, TOL);
  /* receiver posts at 0, computes 3 us, waits: message arrives at 15 us */
  rp_compute_seconds(3e-6, dt);
  rp_clock_compute(&r, dt);
  rp_clock_recv(&r, irecv, ts, lat);
  assert_near(r.now[RP_AVG], 1.5e-5, TOL);
  assert_near(r.wait[RP_AVG], 1.5e-5 - 4e-6, TOL);
  /* computed past the arrival before the Wait: only the copy */
  rp_clock r2;
  rp_clock_init(&r2);
  rp_compute_seconds(1e-4, dt);
  rp_clock_compute(&r2, dt);
  rp_clock_recv(&r2, irecv, ts, lat);
  assert_near(r2.now[RP_AVG], 1e-4 + 1e-6, TOL);
  assert_invariant(&s);
  assert_invariant(&r);
  assert_invariant(&r2);
}

/* Blocking collective: now = max(starts) + T; the early member waits. */
static void test_clock_collective_waits_for_latest_member(void **state) {
  (void)state;
  rp_clock early, late;
  double start_max[RP_NB], cost[RP_NB] = {1e-6, 2e-6, 3e-6}, dt[RP_NB];
  rp_clock_init(&early);
  rp_clock_init(&late);
  rp_compute_seconds(1e-5, dt);
  rp_clock_compute(&early, dt);
  rp_compute_seconds(5e-5, dt);
  rp_clock_compute(&late, dt);
  for (int b = 0; b < RP_NB; b++)
    start_max[b] = early.now[b] > late.now[b] ? early.now[b] : late.now[b];
  double w1 = rp_clock_coll(&early, start_max, cost);
  double w2 = rp_clock_coll(&late, start_max, cost);
  assert_near(w1, 4e-5, TOL);
  assert_near(w2, 0.0, TOL);
  for (int b = 0; b < RP_NB; b++) {
    assert_near(early.now[b], 5e-5 + cost[b], TOL);
    assert_near(late.now[b], early.now[b], TOL); /* members agree */
  }
  assert_invariant(&early);
  assert_invariant(&late);
}

/* Rooted collectives: a member knows the clocks its data came with. */
/* One-sided: an origin's operations complete one after the other, each
 * from the later of the previous completion and its issue; the epoch's end
 * waits for the last (less what an overlapping synchronization hides) and
 * counts the wait as communication; an empty epoch moves nothing. */
static void test_clock_rma_queue_and_settle(void **state) {
  (void)state;
  rp_clock c;
  rp_clock_init(&c);
  double pending[RP_NB] = {0.0, 0.0, 0.0};
  double step[RP_NB] = {1.0, 2.0, 3.0}, put[RP_NB] = {0.5, 1.0, 2.0};
  rp_clock_compute(&c, step);                  /* now 1, 2, 3 */
  rp_rma_queue(c.now, pending, put, NULL, NULL);           /* 1.5, 3, 5 */
  rp_rma_queue(c.now, pending, put, NULL, NULL);           /* after it: 2, 4, 7 */
  assert_true(pending[RP_MIN] == 2.0 && pending[RP_AVG] == 4.0 &&
              pending[RP_MAX] == 7.0);
  double late[RP_NB] = {10.0, 10.0, 10.0};
  rp_clock_compute(&c, late);                  /* now 11, 12, 13 */
  rp_rma_queue(c.now, pending, put, NULL, NULL);           /* from now: 11.5, 13, 15 */
  assert_true(pending[RP_AVG] == 13.0);
  rp_rma_settle(&c, pending, NULL);
  assert_true(c.now[RP_MIN] == 11.5 && c.now[RP_AVG] == 13.0 &&
              c.now[RP_MAX] == 15.0);
  assert_true(c.comm[RP_AVG] == 1.0 && c.wait[RP_AVG] == 0.0);
  assert_true(pending[RP_AVG] == 0.0);
  rp_rma_settle(&c, pending, NULL);            /* nothing queued */
  assert_true(c.now[RP_AVG] == 13.0 && c.comm[RP_AVG] == 1.0);
  /* a fence of 0.25 s overlaps the last 0.25 s of the queue */
  double fence[RP_NB] = {0.25, 0.25, 0.25};
  rp_rma_queue(c.now, pending, put, NULL, NULL);           /* 12, 14, 17 */
  rp_rma_settle(&c, pending, fence);
  assert_true(c.now[RP_MIN] == 11.75 && c.now[RP_AVG] == 13.75 &&
              c.now[RP_MAX] == 16.75);
  rp_rma_queue(c.now, pending, fence, NULL, NULL);         /* shorter than the fence */
  rp_rma_settle(&c, pending, fence);
  assert_true(c.now[RP_AVG] == 13.75);
}

/* One-sided with the gap row: an origin's operations share its endpoint
 * like messages: each starts when the previous one's gap has passed, so
 * two puts end at gap + cost, not 2 cost; the endpoint's next message
 * (nic_free) waits behind them; a put issued after the endpoint is free
 * starts at now. */
static void test_clock_rma_queue_shares_the_endpoint(void **state) {
  (void)state;
  double now[RP_NB] = {1.0, 2.0, 3.0}, pending[RP_NB] = {0.0, 0.0, 0.0};
  double nic[RP_NB] = {0.0, 2.5, 0.0};
  const double put[RP_NB] = {0.5, 1.0, 2.0}, gap[RP_NB] = {0.1, 0.25, 0.5};
  rp_rma_queue(now, pending, put, gap, nic);
  /* starts 1, 2.5 (the endpoint busy until then), 3 */
  assert_true(pending[RP_MIN] == 1.5 && pending[RP_AVG] == 3.5 &&
              pending[RP_MAX] == 5.0);
  assert_near(nic[RP_MIN], 1.1, 1e-12);
  assert_true(nic[RP_AVG] == 2.75 && nic[RP_MAX] == 3.5);
  rp_rma_queue(now, pending, put, gap, nic);
  /* starts 1.1, 2.75, 3.5: ends one gap after the first, not one cost */
  assert_near(pending[RP_MIN], 1.6, 1e-12);
  assert_true(pending[RP_AVG] == 3.75 && pending[RP_MAX] == 5.5);
  /* a small operation behind a large one ends before it: pending keeps
     the later */
  const double small[RP_NB] = {0.01, 0.01, 0.01}, g0[RP_NB] = {0, 0, 0};
  rp_rma_queue(now, pending, small, g0, nic);
  assert_true(pending[RP_AVG] == 3.75 && nic[RP_AVG] == 3.0);
  /* the endpoint free long before: starts at now */
  double later[RP_NB] = {10.0, 10.0, 10.0};
  rp_rma_queue(later, pending, put, gap, nic);
  assert_true(pending[RP_MIN] == 10.5 && pending[RP_AVG] == 11.0 &&
              pending[RP_MAX] == 12.0);
}

static void test_clock_rooted_collective_knows_what_data_brought(void **state) {
  (void)state;
  const double early[4] = {1.0, 2.0, 3.0, 8.0}, late[4] = {5.0, 1.0, 9.0, 16.0};
  double k[4];
  assert_int_equal(rp_root_learns(RP_ROOT_OUT, 0), 1);
  assert_int_equal(rp_root_learns(RP_ROOT_OUT, 1), 0);
  assert_int_equal(rp_root_learns(RP_ROOT_IN, 1), 1);
  assert_int_equal(rp_root_learns(RP_ROOT_IN, 0), 0);
  assert_int_equal(rp_root_learns(0, 0), 0);
  assert_int_equal(rp_root_learns(7, 1), 0);
  /* broadcast: a non-root takes the later of its own and the root's,
   * per component; the root keeps its own */
  rp_root_known(RP_ROOT_OUT, 0, early, late, k, 4);
  assert_near(k[0], 5.0, TOL);
  assert_near(k[1], 2.0, TOL);
  assert_near(k[2], 9.0, TOL);
  assert_near(k[3], 16.0, TOL);
  rp_root_known(RP_ROOT_OUT, 1, early, late, k, 4);
  for (int i = 0; i < 4; i++)
    assert_near(k[i], early[i], TOL);
  /* reduction: the root takes the maximum, the others their own */
  rp_root_known(RP_ROOT_IN, 1, early, late, k, 4);
  assert_near(k[0], 5.0, TOL);
  assert_near(k[1], 2.0, TOL);
  rp_root_known(RP_ROOT_IN, 0, late, early, k, 4);
  for (int i = 0; i < 4; i++)
    assert_near(k[i], late[i], TOL);
  /* then the blocking rule: a non-root that started before the root waits
   * for it, the root does not wait for anyone */
  rp_clock root, leaf;
  double dt[RP_NB], cost[RP_NB] = {1e-6, 1e-6, 1e-6}, kr[RP_NB], kl[RP_NB];
  rp_clock_init(&root);
  rp_clock_init(&leaf);
  rp_compute_seconds(3e-5, dt);
  rp_clock_compute(&root, dt);
  rp_root_known(RP_ROOT_OUT, 0, leaf.now, root.now, kl, RP_NB);
  rp_root_known(RP_ROOT_OUT, 1, root.now, leaf.now, kr, RP_NB);
  assert_near(rp_clock_coll(&leaf, kl, cost), 3e-5, TOL);
  assert_near(rp_clock_coll(&root, kr, cost), 0.0, TOL);
  assert_near(leaf.now[RP_AVG], 3.1e-5, TOL);
  assert_near(root.now[RP_AVG], 3.1e-5, TOL);
  assert_invariant(&root);
  assert_invariant(&leaf);
}

/* A member's own part of a rooted call (rp_clock_rooted): the root pays
 * its part alone; a member that is there before the data ends when the
 * data comes (root + T), one that comes late pays its part; part = T is the
 * whole call's rule. */
static void test_clock_rooted_own_part(void **state) {
  (void)state;
  double cost[RP_NB], part[RP_NB], dt[RP_NB], root_start[RP_NB];
  set3(cost, 1e-5, 2e-5, 4e-5);
  set3(part, 1e-6, 2e-6, 4e-6);
  rp_clock root, early, late, same, ref;
  rp_clock_init(&root);
  rp_clock_init(&early);
  rp_clock_init(&late);
  rp_clock_init(&same);
  rp_clock_init(&ref);
  /* the root starts at 1e-5: it returns after its part */
  rp_compute_seconds(1e-5, dt);
  rp_clock_compute(&root, dt);
  memcpy(root_start, root.now, sizeof root_start);
  assert_near(rp_clock_rooted(&root, NULL, cost, part), 0.0, TOL);
  assert_near(root.now[RP_AVG], 1.2e-5, TOL);
  assert_near(root.comm[RP_MAX], 4e-6, TOL);
  /* early member (0): waits for the root, then the whole call */
  assert_near(rp_clock_rooted(&early, root_start, cost, part), 1e-5, TOL);
  assert_near(early.now[RP_AVG], 3e-5, TOL);
  assert_near(early.now[RP_MIN], 2e-5, TOL);
  assert_near(early.comm[RP_AVG], 2e-5, TOL);
  /* late member (1e-4): the data is there, it pays its part */
  rp_compute_seconds(1e-4, dt);
  rp_clock_compute(&late, dt);
  assert_near(rp_clock_rooted(&late, root_start, cost, part), 0.0, TOL);
  assert_near(late.now[RP_AVG], 1.02e-4, TOL);
  /* between (2.5e-5): root + T (3e-5) is later than own + part (2.7e-5);
     no waiting, as the root had started */
  rp_compute_seconds(2.5e-5, dt);
  rp_clock_compute(&same, dt);
  assert_near(rp_clock_rooted(&same, root_start, cost, part), 0.0, TOL);
  assert_near(same.now[RP_AVG], 3e-5, TOL);
  assert_near(same.comm[RP_AVG], 5e-6, TOL);
  /* part = cost: the whole call's rule, rp_clock_coll over max(own, root) */
  double known[RP_NB];
  rp_root_known(RP_ROOT_OUT, 0, ref.now, root_start, known, RP_NB);
  rp_clock early2;
  rp_clock_init(&early2);
  double w1 = rp_clock_rooted(&early2, root_start, cost, cost);
  double w2 = rp_clock_coll(&ref, known, cost);
  assert_near(w1, w2, TOL);
  for (int b = 0; b < RP_NB; b++) {
    assert_near(early2.now[b], ref.now[b], TOL);
    assert_near(early2.wait[b], ref.wait[b], TOL);
    assert_near(early2.comm[b], ref.comm[b], TOL);
  }
  assert_invariant(&root);
  assert_invariant(&early);
  assert_invariant(&late);
  assert_invariant(&same);
}

/* Non-blocking collective: overlapped computation hides the cost. */
static void test_clock_nonblocking_collective_overlap(void **state) {
  (void)state;
  rp_clock c;
  double start_max[RP_NB] = {1e-5, 1e-5, 1e-5};
  double cost[RP_NB] = {1e-5, 2e-5, 3e-5}, dt[RP_NB];
  rp_clock_init(&c);
  rp_compute_seconds(1e-5, dt);
  rp_clock_compute(&c, dt); /* start at 10 us */
  rp_compute_seconds(2.5e-5, dt);
  rp_clock_compute(&c, dt); /* wait at 35 us */
  double w = rp_clock_coll_complete(&c, start_max, cost);
  assert_near(c.now[RP_MIN], 3.5e-5, TOL);  /* done at 20 us: hidden */
  assert_near(c.now[RP_AVG], 3.5e-5, TOL);  /* done at 30 us: hidden */
  assert_near(c.now[RP_MAX], 4e-5, TOL);    /* done at 40 us: 5 us more */
  assert_near(c.comm[RP_MAX], 5e-6, TOL);
  assert_near(w, 0.0, TOL);
  /* a late member: the excess beyond the cost is waiting */
  rp_clock d;
  double late[RP_NB] = {1e-4, 1e-4, 1e-4};
  rp_clock_init(&d);
  w = rp_clock_coll_complete(&d, late, cost);
  assert_near(d.now[RP_AVG], 1.2e-4, TOL);
  assert_near(d.comm[RP_AVG], 2e-5, TOL);
  assert_near(w, 1e-4, TOL);
  assert_invariant(&c);
  assert_invariant(&d);
}

/* ------------------------------------------------ collective sizes */

static double fake_size(const void *t) { return *(const double *)t; }

static void test_clock_collective_sizes(void **state) {
  (void)state;
  double four = 4.0, eight = 8.0, poison = -1e300;
  int counts[4] = {1, 2, 3, 6};
  double sizes[4] = {4.0, 8.0, 2.0, 1.0};
  /* Bcast/Reduce/Allreduce/Scan/Exscan/Reduce_scatter_block */
  assert_near(rp_d_count(10, &eight, fake_size), 80.0, 0);
  assert_near(rp_d_count(0, &poison, fake_size), 0.0, 0); /* never asked */
  /* Gather/Allgather/Alltoall: send block, in place: receive block */
  assert_near(rp_d_send_block(0, 3, &eight, 99, &poison, fake_size), 24.0, 0);
  assert_near(rp_d_send_block(1, 99, &poison, 5, &four, fake_size), 20.0, 0);
  /* Gatherv/Allgatherv */
  assert_near(rp_d_send_blockv(0, 2, &four, rp_counts_of(NULL), 0, 4, &poison, fake_size),
              8.0, 0);
  assert_near(rp_d_send_blockv(1, 0, &poison, rp_counts_of(counts), 2, 4, &eight,
                               fake_size),
              24.0, 0);
  /* Scatter: receive block; at the root in place: the send block */
  assert_near(rp_d_recv_block(0, 99, &poison, 7, &four, fake_size), 28.0, 0);
  assert_near(rp_d_recv_block(1, 7, &eight, 0, &poison, fake_size), 56.0, 0);
  /* Scatterv */
  assert_near(rp_d_recv_blockv(0, rp_counts_of(NULL), 1, 4, &poison, 5, &eight, fake_size),
              40.0, 0);
  assert_near(rp_d_recv_blockv(1, rp_counts_of(counts), 3, 4, &four, 0, &poison,
                               fake_size),
              24.0, 0);
  /* Alltoallv: average block sent */
  assert_near(rp_d_alltoallv(0, rp_counts_of(counts), &four, rp_counts_of(NULL), &poison, 4, fake_size),
              12.0, 0);
  assert_near(rp_d_alltoallv(1, rp_counts_of(NULL), &poison, rp_counts_of(counts), &eight, 4, fake_size),
              24.0, 0);
  /* Alltoallw: per-rank types */
  assert_near(rp_d_alltoallw(0, rp_counts_of(counts), sizes, rp_counts_of(NULL), NULL, 4, sizeof(double),
                             fake_size),
              (4.0 + 16.0 + 6.0 + 6.0) / 4, 1e-12);
  /* Reduce_scatter: this rank's block */
  assert_near(rp_d_reduce_scatter(rp_counts_of(counts), 1, 4, &eight, fake_size), 16.0, 0);
  assert_near(rp_d_reduce_scatter(rp_counts_of(counts), 9, 4, &eight, fake_size), 0.0, 0);
  /* the MPI-4 large-count bindings give 64-bit counts: same rules */
  int64_t wide[4] = {1, 2, 3, (int64_t)1 << 33};
  assert_near(rp_d_reduce_scatter(rp_counts_of(wide), 1, 4, &eight, fake_size), 16.0, 0);
  assert_near(rp_d_reduce_scatter(rp_counts_of(wide), 3, 4, &four, fake_size),
              4.0 * 8589934592.0, 0);
  assert_near(rp_d_alltoallv(0, rp_counts_of(wide), &four, rp_counts_of(NULL), &poison, 4,
                             fake_size),
              (6.0 + 8589934592.0) * 4.0 / 4, 1e-3);
}

/* ---------------------------------------------------- compute amounts */

static void test_clock_compute_steps_use_three_step_times(void **state) {
  (void)state;
  double step[RP_NB] = {1e-9, 2e-9, 5e-9}, out[RP_NB];
  rp_compute_steps(step, 1000, out);
  assert_near(out[RP_MIN], 1e-6, 1e-21);
  assert_near(out[RP_AVG], 2e-6, 1e-21);
  assert_near(out[RP_MAX], 5e-6, 1e-21);
  rp_compute_steps(step, -5, out);
  assert_near(out[RP_AVG], 0.0, 0);
}

static void test_clock_compute_seconds_and_measured(void **state) {
  (void)state;
  double out[RP_NB];
  rp_compute_seconds(2.5e-3, out);
  for (int b = 0; b < RP_NB; b++)
    assert_near(out[b], 2.5e-3, 0);
  rp_compute_seconds(-1.0, out);
  assert_near(out[RP_MAX], 0.0, 0);
  rp_compute_seconds(NAN, out);
  assert_near(out[RP_MAX], 0.0, 0);
  rp_compute_measured(0.01, 0.25, out); /* a target 4x faster */
  assert_near(out[RP_AVG], 0.0025, 1e-18);
  rp_compute_instructions(1e6, 3e-10, out);
  assert_near(out[RP_MIN], 3e-4, 1e-18);
}

/* ----------------------------------------------------- wildcard order */

static void test_clock_wildcard_flags_earlier_arrival_from_other(void **state) {
  (void)state;
  rp_wild w;
  rp_wild_init(&w, -1);
  /* first ANY_SOURCE receive matched rank 1's message arriving at 50 us */
  assert_int_equal(rp_wild_record(&w, 7, -1, 1, 3, 5e-5), 0);
  /* the next one matches rank 2's message predicted at 20 us: the first
   * receive would have taken it */
  assert_int_equal(rp_wild_record(&w, 7, -1, 2, 3, 2e-5), 1);
  assert_int_equal(w.receives, 2);
  assert_int_equal(w.suspicious, 1);
}

static void test_clock_wildcard_ignores_same_sender_and_other_scope(
    void **state) {
  (void)state;
  rp_wild w;
  rp_wild_init(&w, -1);
  rp_wild_record(&w, 7, -1, 1, 3, 5e-5);
  /* same sender: non-overtaking keeps the order */
  assert_int_equal(rp_wild_record(&w, 7, -1, 1, 3, 1e-5), 0);
  /* another communicator */
  assert_int_equal(rp_wild_record(&w, 8, -1, 2, 3, 1e-5), 0);
  /* the earlier receive asked for tag 3; this message has tag 4 */
  rp_wild_init(&w, -1);
  rp_wild_record(&w, 7, 3, 1, 3, 5e-5);
  assert_int_equal(rp_wild_record(&w, 7, -1, 2, 4, 1e-5), 0);
  /* later arrival: the order agrees */
  assert_int_equal(rp_wild_record(&w, 7, -1, 2, 3, 9e-5), 0);
  assert_int_equal(w.suspicious, 0);
}

/* --------------------------------- wildcard receives in predicted time */

/* n members, all running at clock c, none with a known message */
static void peers_init(rp_match_peer *p, int n, double c) {
  memset(p, 0, (size_t)n * sizeof *p);
  for (int i = 0; i < n; i++) {
    p[i].member = 1;
    p[i].clock = c;
    p[i].active = 1;
  }
}

static void test_match_takes_first_arrival_once_proven(void **state) {
  (void)state;
  rp_match_peer p[4];
  int who = -1, stuck = -1;
  double rel = 0.0;
  peers_init(p, 4, 0.0);
  /* rank 0 waits; rank 3's message is known at 50 us, rank 1's at 80 us */
  p[3].has = 1, p[3].arrival = 5e-5;
  p[1].has = 1, p[1].arrival = 8e-5;
  /* rank 2 runs at 10 us: with a 5 us lookahead it may still undercut */
  p[2].clock = 1e-5;
  assert_int_equal(rp_match_decide(p, 4, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  assert_int_equal(stuck, 0); /* it is running: wait, no time-out */
  /* its clock passes 45 us: it can no longer arrive before 50 us */
  p[2].clock = 4.6e-5;
  assert_int_equal(rp_match_decide(p, 4, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  assert_int_equal(who, 3);
  /* it sends one arriving earlier: that one */
  p[2].has = 1, p[2].arrival = 4e-5;
  assert_int_equal(rp_match_decide(p, 4, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  assert_int_equal(who, 2);
  /* non-members never count; nothing known: wait, never stuck */
  peers_init(p, 4, 0.0);
  p[1].member = 0, p[1].has = 1, p[1].arrival = 1e-6;
  assert_int_equal(rp_match_decide(p, 4, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  assert_int_equal(stuck, 0);
}

static void test_match_ties_go_to_the_lower_rank(void **state) {
  (void)state;
  rp_match_peer p[3];
  int who = -1, stuck = 0;
  double rel = 0.0;
  peers_init(p, 3, 0.0);
  p[2].has = 1, p[2].arrival = 1e-5;
  /* rank 1 could still arrive exactly at 10 us: it would win the tie */
  p[1].clock = 5e-6;
  assert_int_equal(rp_match_decide(p, 3, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  p[1].has = 1, p[1].arrival = 1e-5;
  assert_int_equal(rp_match_decide(p, 3, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  assert_int_equal(who, 1);
}

/* Ranks blocked on the deciding rank never undercut: no deadlock. */
static void test_match_blocked_chains_and_cycles(void **state) {
  (void)state;
  rp_match_peer p[5];
  int who = -1, stuck = 0;
  double rel = 0.0;
  peers_init(p, 5, 0.0);
  p[1].has = 1, p[1].arrival = 1e-3;
  /* 2 waits for 0 (the decider) with nothing under way; 3 waits for 2;
     4 is in a collective with 0 */
  p[2].state = RP_PEER_RECV, p[2].on = 0;
  p[3].state = RP_PEER_RECV, p[3].on = 2;
  p[4].state = RP_PEER_COLL;
  assert_int_equal(rp_match_decide(p, 5, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  assert_int_equal(who, 1);
  /* a message from 0 to 2 is under way: 2 will run, at its clock */
  p[2].fed = 1;
  assert_int_equal(rp_match_decide(p, 5, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  /* 2 waits for 3 and 3 for 2, nothing under way: deadlocked, never sends */
  p[2].fed = 0, p[2].on = 3;
  assert_int_equal(rp_match_decide(p, 5, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  /* 2 waits for 3, which waits for a running 4 at 0 s: 4 may release 3,
     3 then 2, each one lookahead later: 2 us < 1 ms, so wait */
  p[3].on = 4, p[4].state = RP_PEER_OUT;
  assert_int_equal(rp_match_decide(p, 5, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  /* ... unless that chain's bound passes the message: 4 at 995 us */
  p[4].clock = 9.95e-4;
  p[4].has = 1, p[4].arrival = 2e-3; /* and its own message is later */
  assert_int_equal(rp_match_decide(p, 5, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  assert_int_equal(who, 1);
  /* a finalizing rank never sends */
  peers_init(p, 3, 0.0);
  p[1].has = 1, p[1].arrival = 1e-3;
  p[2].state = RP_PEER_GONE;
  assert_int_equal(rp_match_decide(p, 3, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
}

/* Ranks blocked on wildcards themselves: with nothing under way to them
 * they depart after the earliest other rank, so ranks that all wait for
 * the decider (directly or through each other) never undercut. */
static void test_match_wildcard_waiters(void **state) {
  (void)state;
  rp_match_peer p[4];
  int who = -1, stuck = 0;
  double rel = 0.0;
  peers_init(p, 4, 0.0);
  p[1].has = 1, p[1].arrival = 1e-3;
  /* 2 and 3 wait on wildcards, nothing under way to them: each can only be
     released by another blocked rank or by 0, the decider */
  p[2].state = RP_PEER_ANY, p[3].state = RP_PEER_ANY;
  p[1].state = RP_PEER_RECV, p[1].on = 0;
  assert_int_equal(rp_match_decide(p, 4, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  assert_int_equal(who, 1);
  assert_true(isinf(p[2].bound) && isinf(p[3].bound));
  /* something under way to 3: it departs at its clock */
  p[3].fed = 1;
  assert_int_equal(rp_match_decide(p, 4, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  /* 2 is released by the earliest other rank: 3 at 0 s plus the lookahead */
  assert_near(p[2].bound, 5e-6, 1e-18);
  /* 3's clock past the message: neither undercuts */
  p[3].clock = 9.99e-4;
  assert_int_equal(rp_match_decide(p, 4, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_TAKE);
  assert_near(p[2].bound, 9.99e-4 + 5e-6, 1e-15);
}

/* Deciders waiting on each other: each publishes when its own receive can
 * complete at the earliest, and the others' bounds rise with it (null
 * messages), so two wildcard receives each fed a message do not hold each
 * other back forever. */
static void test_match_releases_rise(void **state) {
  (void)state;
  rp_match_peer a[3], b[3];
  int who = -1, stuck = 0;
  double rel = 0.0, ra = 0.0, rb = 0.0;
  /* ranks 1 and 2 wait on wildcards, each fed a message from 0 (arriving
     at 100 us for 1, 120 us for 2); 0 is finalizing. Each may be released
     by the other, so rank 1 takes its message once rank 2's release has
     risen to 95 us, a lookahead at a time; rank 2 can only take its own
     once rank 1 has gone on (rank 1 could still send one arriving at
     105 us) */
  peers_init(a, 3, 1e-5);
  a[0].state = RP_PEER_GONE;
  a[1].state = a[2].state = RP_PEER_ANY;
  a[1].fed = a[2].fed = 1;
  memcpy(b, a, sizeof b);
  a[0].has = 1, a[0].arrival = 1e-4; /* rank 1's view */
  b[0].has = 1, b[0].arrival = 1.2e-4; /* rank 2's */
  int rounds = 0, took1 = 0, took2 = 0;
  for (; rounds < 100 && !(took1 && took2); rounds++) {
    a[2].release = rb, b[1].release = ra; /* what the other published */
    took1 |= rp_match_decide(a, 3, 1, 5e-6, &who, &stuck, &ra) ==
             RP_MATCH_TAKE;
    if (took1) /* rank 1 received at 100 us and may send: then finalizes */
      b[1].state = RP_PEER_GONE;
    took2 |= rp_match_decide(b, 3, 2, 5e-6, &who, &stuck, &rb) ==
             RP_MATCH_TAKE;
    assert_true(ra <= 1e-4 && rb <= 1.2e-4); /* never past the messages */
  }
  assert_true(took1 && took2);
  assert_true(rounds > 2); /* it took the releases some looks to rise */
  (void)rel;
}

/* Only ranks that make no progress (inside MPI, or a lost log) let the
 * caller time out. */
static void test_match_stuck_only_without_progress(void **state) {
  (void)state;
  rp_match_peer p[3];
  int who = -1, stuck = 0;
  double rel = 0.0;
  peers_init(p, 3, 0.0);
  p[1].has = 1, p[1].arrival = 1e-3;
  p[2].state = RP_PEER_IN, p[2].active = 0;
  assert_int_equal(rp_match_decide(p, 3, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  assert_int_equal(stuck, 1);
  p[2].active = 1; /* its clock moved */
  rp_match_decide(p, 3, 0, 5e-6, &who, &stuck, &rel);
  assert_int_equal(stuck, 0);
  /* a sender whose log lost messages: unknown, so never proven */
  p[2].state = RP_PEER_OUT, p[2].clock = 1.0, p[2].unknown = 1;
  assert_int_equal(rp_match_decide(p, 3, 0, 5e-6, &who, &stuck, &rel),
                   RP_MATCH_WAIT);
  assert_int_equal(stuck, 1);
}

/* The piggyback's way for each kind of message (docs/revprof.md,
 * "Piggyback"). */
static void test_clock_piggyback_choice(void **state) {
  (void)state;
  /* no message, or a peer that may not run revprof: nothing added */
  assert_int_equal(rp_pb_choose(1, 0, 8, 1, 1, 2048), RP_PB_NONE);
  assert_int_equal(rp_pb_choose(0, 1, 8, 1, 1, 2048), RP_PB_NONE);
  assert_int_equal(rp_pb_choose(1, 1, 0, 0, 0, 0), RP_PB_NONE);
  /* small gap-free data: copied with the clocks, up to pack_max */
  assert_int_equal(rp_pb_choose(0, 0, 8, 1, 1, 2048), RP_PB_COPY);
  assert_int_equal(rp_pb_choose(0, 0, 2048, 1, 1, 2048), RP_PB_COPY);
  assert_int_equal(rp_pb_choose(0, 0, 0, 1, 1, 2048), RP_PB_COPY);
  /* larger, gappy, or where memcpy is not MPI_Pack: a datatype */
  assert_int_equal(rp_pb_choose(0, 0, 2049, 1, 1, 2048), RP_PB_TYPE);
  assert_int_equal(rp_pb_choose(0, 0, 8, 0, 1, 2048), RP_PB_TYPE);
  assert_int_equal(rp_pb_choose(0, 0, 8, 1, 0, 2048), RP_PB_TYPE);
  assert_int_equal(rp_pb_choose(0, 0, 8, 1, 1, -1), RP_PB_TYPE);
  /* no data and no copy: the clocks alone, never a struct over a NULL
     buffer */
  assert_int_equal(rp_pb_choose(0, 0, 0, 0, 1, 2048), RP_PB_CLOCKS);
  assert_int_equal(rp_pb_choose(0, 0, 0, 1, 0, 2048), RP_PB_CLOCKS);
}

/* ------------------------------------------------- overlapping messages */

static void test_clock_inject_spaces_a_train_by_the_gap(void **state) {
  (void)state;
  rp_clock c;
  double cost[RP_NB], gap[RP_NB], nic[RP_NB] = {0, 0, 0}, ts[RP_NB];
  rp_clock_init(&c);
  set3(cost, 1e-7, 1e-7, 1e-7);
  set3(gap, 1e-6, 2e-6, 3e-6); /* the endpoint slower than the calls */
  for (int i = 0; i < 3; i++) {
    rp_clock_inject(&c, cost, gap, nic, ts);
    assert_near(ts[RP_MIN], i * 1e-6, TOL);
    assert_near(ts[RP_AVG], i * 2e-6, TOL);
    assert_near(ts[RP_MAX], i * 3e-6, TOL);
  }
  assert_near(c.now[RP_AVG], 3e-7, TOL); /* the calls cost only themselves */
  assert_near(nic[RP_AVG], 6e-6, TOL);
  assert_invariant(&c);
  /* no gap: exactly rp_clock_send */
  rp_clock a, b;
  double zero[RP_NB] = {0, 0, 0}, nic2[RP_NB] = {0, 0, 0}, ta[RP_NB],
         tb[RP_NB];
  rp_clock_init(&a);
  rp_clock_init(&b);
  for (int i = 0; i < 4; i++) {
    rp_clock_inject(&a, cost, zero, nic2, ta);
    rp_clock_send(&b, cost, tb);
    for (int k = 0; k < RP_NB; k++) {
      assert_near(ta[k], tb[k], TOL);
      assert_near(a.now[k], b.now[k], TOL);
    }
  }
}

/* a message belongs to an exchange when it travelled while its receiver
 * was sending: not a reply (sent after our message arrived), not a
 * message to a rank that sent nothing lately */
static void test_clock_exchanging(void **state) {
  (void)state;
  /* the receiver sent from 1.0 until 1.5 (its endpoint's run) */
  assert_true(rp_exchanging(1.2, 1.7, 1.0, 1.5));  /* sent meanwhile */
  assert_true(rp_exchanging(0.8, 1.1, 1.0, 1.5));  /* arrived meanwhile */
  assert_true(rp_exchanging(0.5, 2.0, 1.0, 1.5));  /* spans it */
  assert_false(rp_exchanging(1.5, 1.9, 1.0, 1.5)); /* a reply after it */
  assert_false(rp_exchanging(0.2, 1.0, 1.0, 1.5)); /* there before it */
  assert_false(rp_exchanging(3.0, 3.2, 0.0, 0.0)); /* it never sent */
}

static void test_clock_arrival_is_travel_or_late_post(void **state) {
  (void)state;
  double ts[RP_NB], lat[RP_NB], post[RP_NB], late[RP_NB], at[RP_NB];
  set3(ts, 1e-5, 1e-5, 1e-5);
  set3(lat, 2e-6, 2e-6, 2e-6);
  set3(post, 0.0, 1e-4, 0.0); /* avg: posted long after it arrived */
  set3(late, 5e-7, 5e-7, 5e-7);
  rp_arrival_at(ts, lat, post, late, at);
  assert_near(at[RP_MIN], 1.2e-5, TOL);
  assert_near(at[RP_AVG], 1e-4 + 5e-7, TOL);
  assert_near(at[RP_MAX], 1.2e-5, TOL);
}

static void arrival(rp_arrival *a, double at, double gap, double own) {
  memset(a, 0, sizeof *a);
  set3(a->at, at, at, at);
  set3(a->gap, gap, gap, gap);
  set3(a->own, own, own, own);
}

/* k messages in flight together end at the latest arrival plus the gaps
 * they queue for, not at the sum of k receive costs */
static void test_clock_complete_overlaps_k_receives(void **state) {
  (void)state;
  for (int k = 1; k <= 8; k++) {
    rp_clock c;
    rp_arrival a[8];
    rp_clock_init(&c);
    for (int i = 0; i < k; i++)
      arrival(&a[i], 1e-5, 1e-6, 1e-7);
    rp_endpoint ep = {0};
    double w = rp_clock_complete(&c, a, k, &ep);
    assert_near(c.now[RP_AVG], 1e-5 + (k - 1) * 1e-6, 1e-15);
    assert_near(c.comm[RP_AVG], k * 1e-7, 1e-15);
    assert_near(w, c.wait[RP_AVG], 1e-15);
    assert_near(a[k - 1].done, c.now[RP_AVG], 1e-15);
    assert_invariant(&c);
  }
  /* arrived long ago: only the rank's own cost per message */
  rp_clock c;
  rp_arrival a[3];
  rp_clock_init(&c);
  c.now[0] = c.now[1] = c.now[2] = c.compute[0] = c.compute[1] =
      c.compute[2] = 1.0;
  for (int i = 0; i < 3; i++)
    arrival(&a[i], 1e-5, 1e-6, 1e-7);
  rp_endpoint ep = {0};
  assert_near(rp_clock_complete(&c, a, 3, &ep), 0.0, TOL);
  assert_near(c.now[RP_AVG], 1.0 + 3e-7, 1e-15);
  assert_invariant(&c);
}

/* taken in arrival order whatever the order of the requests */
static void test_clock_complete_takes_arrival_order(void **state) {
  (void)state;
  rp_clock c;
  rp_arrival a[3];
  rp_clock_init(&c);
  arrival(&a[0], 3e-5, 1e-6, 0.0);
  arrival(&a[1], 1e-5, 1e-6, 0.0);
  arrival(&a[2], 2e-5, 1e-6, 0.0);
  rp_endpoint ep = {0};
  rp_clock_complete(&c, a, 3, &ep);
  assert_near(c.now[RP_AVG], 3e-5, 1e-15); /* not 3e-5 + gaps */
  assert_near(a[0].at[RP_AVG], 1e-5, TOL);
  assert_near(a[1].done, 2e-5, 1e-15);
  assert_invariant(&c);
}

/* without the gap and own rows (gap 0, own = T_Irecv) the rule is the one
 * of format-1 models: rp_clock_recv, one receive after another */
static void test_clock_complete_without_gap_is_the_old_rule(void **state) {
  (void)state;
  rp_clock c, old;
  double cost[RP_NB], ts[RP_NB], lat[RP_NB];
  const double sends[4] = {1e-6, 4e-6, 4.5e-6, 2e-5};
  rp_arrival a[4];
  rp_clock_init(&c);
  rp_clock_init(&old);
  set3(cost, 1e-6, 2e-6, 3e-6);
  set3(lat, 3e-6, 3e-6, 3e-6);
  for (int i = 0; i < 4; i++) {
    memset(&a[i], 0, sizeof a[i]);
    set3(ts, sends[i], sends[i], sends[i]);
    for (int b = 0; b < RP_NB; b++) {
      a[i].at[b] = ts[b] + lat[b];
      a[i].own[b] = cost[b];
    }
    rp_clock_recv(&old, cost, ts, lat);
  }
  rp_endpoint ep = {0};
  rp_clock_complete(&c, a, 4, &ep);
  for (int b = 0; b < RP_NB; b++) {
    assert_near(c.now[b], old.now[b], 1e-15);
    assert_near(c.wait[b], old.wait[b], 1e-15);
  }
  /* one call per receive: the same (a gap of 0 queues nothing) */
  rp_clock one;
  rp_endpoint ep1 = {0};
  rp_clock_init(&one);
  for (int i = 0; i < 4; i++)
    rp_clock_complete(&one, &a[i], 1, &ep1);
  for (int b = 0; b < RP_NB; b++)
    assert_near(one.now[b], old.now[b], 1e-15);
}

/* The endpoint's queue is the rank's, not the call's: k receives of
 * messages in flight together completed by k calls of one receive each
 * (MPI_Wait after MPI_Wait, in arrival order) end where one call over all
 * k ends; a message that arrives after the queue has drained waits for
 * nobody. */
static void test_clock_complete_queue_spans_calls(void **state) {
  (void)state;
  for (int k = 1; k <= 8; k++) {
    rp_clock all, one;
    rp_arrival a[8], b[8];
    rp_endpoint ep_all = {0}, ep_one = {0};
    rp_clock_init(&all);
    rp_clock_init(&one);
    for (int i = 0; i < k; i++) {
      arrival(&a[i], 1e-5 + i * 1e-8, 1e-6, 1e-7);
      b[i] = a[i];
    }
    rp_clock_complete(&all, a, k, &ep_all);
    for (int i = 0; i < k; i++)
      rp_clock_complete(&one, &b[i], 1, &ep_one);
    for (int x = 0; x < RP_NB; x++) {
      assert_near(one.now[x], all.now[x], 1e-15);
      assert_near(one.wait[x], all.wait[x], 1e-15);
    }
    assert_near(one.now[RP_AVG], 1e-5 + (k - 1) * 1e-6, 1e-15);
    assert_int_equal(ep_one.n[RP_AVG], 1); /* one busy time */
    assert_invariant(&one);
  }
  /* drained: the next arrival is later than the last one's gap */
  rp_clock c;
  rp_arrival a;
  rp_endpoint ep = {0};
  rp_clock_init(&c);
  arrival(&a, 1e-5, 1e-6, 1e-7);
  rp_clock_complete(&c, &a, 1, &ep);
  arrival(&a, 5e-5, 1e-6, 1e-7);
  rp_clock_complete(&c, &a, 1, &ep);
  assert_near(c.now[RP_AVG], 5e-5, 1e-15);
  assert_invariant(&c);
}

/* Completed in another order than they came (a program waiting for its
 * neighbours in a fixed order): the earlier message takes the endpoint's
 * free time before the later one, not a gap after it; where that time is
 * too short, the first free gap after. */
static void test_clock_complete_out_of_order_takes_free_time(void **state) {
  (void)state;
  rp_clock c;
  rp_arrival a;
  rp_endpoint ep = {0};
  rp_clock_init(&c);
  arrival(&a, 1e-5, 1e-6, 1e-7); /* the later message first */
  rp_clock_complete(&c, &a, 1, &ep);
  arrival(&a, 5e-6, 1e-6, 1e-7); /* came 5 gaps earlier: there already */
  rp_clock_complete(&c, &a, 1, &ep);
  assert_near(c.now[RP_AVG], 1e-5 + 1e-7, 1e-15); /* its own cost only */
  assert_near(a.done, 1e-5 + 1e-7, 1e-15);
  /* [1e-5, 1.1e-5) and [5e-6, 6e-6) taken: 9.5e-6 does not fit before
     1e-5, so it goes after, and so does the next at 1.05e-5 */
  rp_clock_init(&c);
  arrival(&a, 9.5e-6, 1e-6, 0.0);
  rp_clock_complete(&c, &a, 1, &ep);
  assert_near(c.now[RP_AVG], 1.1e-5, 1e-15);
  arrival(&a, 1.05e-5, 1e-6, 0.0);
  rp_clock_complete(&c, &a, 1, &ep);
  assert_near(c.now[RP_AVG], 1.2e-5, 1e-15);
  assert_invariant(&c);
}

/* The pure rule of the endpoint: disjoint and sorted, the older half
 * forgotten when full, a message of no length occupies nothing. */
static void endpoint_sorted(const rp_endpoint *ep, int b) {
  assert_true(ep->n[b] >= 1 && ep->n[b] <= RP_EP_HIST);
  for (int i = 1; i < ep->n[b]; i++)
    assert_true(ep->start[b][i] >= ep->end[b][i - 1]);
}

static void test_endpoint_take_keeps_recent_history(void **state) {
  (void)state;
  rp_endpoint ep = {0};
  const int B = RP_AVG;
  for (int i = 0; i < 2 * RP_EP_HIST; i++) /* in reverse order */
    assert_near(rp_endpoint_take(&ep, B, 100.0 - 2.0 * i, 1.0),
                100.0 - 2.0 * i, 1e-12);
  assert_int_equal(ep.n[B], RP_EP_HIST); /* the oldest were not kept */
  endpoint_sorted(&ep, B);
  assert_near(ep.start[B][0], 100.0 - 2.0 * (RP_EP_HIST - 1), 1e-12);
  assert_near(ep.start[B][ep.n[B] - 1], 100.0, 1e-12);
  /* one that fits in a hole (the older half goes), one that does not */
  assert_near(rp_endpoint_take(&ep, B, 97.2, 0.5), 97.2, 1e-12);
  assert_int_equal(ep.n[B], RP_EP_HIST / 2 + 1);
  endpoint_sorted(&ep, B);
  assert_near(rp_endpoint_take(&ep, B, 97.5, 1.0), 99.0, 1e-12);
  endpoint_sorted(&ep, B);
  int n = ep.n[B];
  assert_near(ep.end[B][n - 1], 101.0, 1e-12);
  /* of no length: waits for the endpoint, takes nothing */
  assert_near(rp_endpoint_take(&ep, B, 100.5, 0.0), 101.0, 1e-12);
  assert_int_equal(ep.n[B], n);
  /* a queue longer than what is kept is one busy time: a message that
     came with its first still waits for its last */
  n = ep.n[B];
  for (int i = 0; i < 5 * RP_EP_HIST; i++)
    assert_near(rp_endpoint_take(&ep, B, 200.0, 1.0), 200.0 + i, 1e-12);
  assert_int_equal(ep.n[B], n + 1);
  assert_near(rp_endpoint_take(&ep, B, 200.0, 1.0), 200.0 + 5 * RP_EP_HIST,
              1e-12);
  /* filling the hole between two busy times joins them */
  assert_near(rp_endpoint_take(&ep, B, 150.0, 1.0), 150.0, 1e-12);
  assert_near(rp_endpoint_take(&ep, B, 152.0, 1.0), 152.0, 1e-12);
  n = ep.n[B];
  assert_near(rp_endpoint_take(&ep, B, 150.5, 1.0), 151.0, 1e-12);
  assert_int_equal(ep.n[B], n - 1);
  endpoint_sorted(&ep, B);
  assert_int_equal(ep.n[RP_MIN], 0);
}

static void test_clock_sent_waits_for_the_message_to_leave(void **state) {
  (void)state;
  rp_clock c;
  double done[RP_NB];
  rp_clock_init(&c);
  c.now[RP_AVG] = c.compute[RP_AVG] = 5e-6;
  set3(done, 1e-6, 4e-6, 9e-6);
  rp_clock_sent(&c, done);
  assert_near(c.now[RP_MIN], 1e-6, TOL);
  assert_near(c.now[RP_AVG], 5e-6, TOL); /* already later: unchanged */
  assert_near(c.now[RP_MAX], 9e-6, TOL);
  assert_near(c.comm[RP_MAX], 9e-6, TOL);
  assert_invariant(&c);
}

/* A synchronous send returns max(0, t_post - t_send) later than a
 * standard one, per bound; the delay is waiting (for the receiver). */
static void test_clock_rendezvous_waits_for_the_post(void **state) {
  (void)state;
  rp_clock c;
  double t_send[RP_NB], t_post[RP_NB];
  rp_clock_init(&c);
  set3(c.now, 2e-6, 3e-6, 5e-6);
  set3(c.compute, 2e-6, 3e-6, 5e-6);
  set3(t_send, 1e-6, 2e-6, 4e-6);
  set3(t_post, 5e-7, 7e-6, 1.4e-5); /* min: posted before the send */
  double w = rp_clock_rendezvous(&c, t_send, t_post);
  assert_near(c.now[RP_MIN], 2e-6, TOL); /* no wait */
  assert_near(c.now[RP_AVG], 8e-6, TOL);
  assert_near(c.now[RP_MAX], 1.5e-5, TOL);
  assert_near(w, 5e-6, TOL);
  assert_near(c.wait[RP_MIN], 0.0, TOL);
  assert_near(c.wait[RP_MAX], 1e-5, TOL);
  assert_near(c.comm[RP_AVG], 0.0, TOL);
  assert_invariant(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clock_send_stamps_then_advances),
      cmocka_unit_test(test_clock_rma_queue_and_settle),
      cmocka_unit_test(test_clock_rma_queue_shares_the_endpoint),
      cmocka_unit_test(test_clock_late_sender_makes_receiver_wait),
      cmocka_unit_test(test_clock_late_receiver_pays_only_the_copy),
      cmocka_unit_test(test_clock_three_clocks_decide_separately),
      cmocka_unit_test(test_clock_nonblocking_completion),
      cmocka_unit_test(test_clock_collective_waits_for_latest_member),
      cmocka_unit_test(test_clock_rooted_collective_knows_what_data_brought),
      cmocka_unit_test(test_clock_rooted_own_part),
      cmocka_unit_test(test_clock_nonblocking_collective_overlap),
      cmocka_unit_test(test_clock_collective_sizes),
      cmocka_unit_test(test_clock_compute_steps_use_three_step_times),
      cmocka_unit_test(test_clock_compute_seconds_and_measured),
      cmocka_unit_test(test_clock_wildcard_flags_earlier_arrival_from_other),
      cmocka_unit_test(test_clock_wildcard_ignores_same_sender_and_other_scope),
      cmocka_unit_test(test_clock_piggyback_choice),
      cmocka_unit_test(test_clock_inject_spaces_a_train_by_the_gap),
      cmocka_unit_test(test_clock_exchanging),
      cmocka_unit_test(test_clock_arrival_is_travel_or_late_post),
      cmocka_unit_test(test_clock_complete_overlaps_k_receives),
      cmocka_unit_test(test_clock_complete_takes_arrival_order),
      cmocka_unit_test(test_clock_complete_queue_spans_calls),
      cmocka_unit_test(test_clock_complete_out_of_order_takes_free_time),
      cmocka_unit_test(test_endpoint_take_keeps_recent_history),
      cmocka_unit_test(test_clock_complete_without_gap_is_the_old_rule),
      cmocka_unit_test(test_clock_sent_waits_for_the_message_to_leave),
      cmocka_unit_test(test_clock_rendezvous_waits_for_the_post),
      cmocka_unit_test(test_match_takes_first_arrival_once_proven),
      cmocka_unit_test(test_match_ties_go_to_the_lower_rank),
      cmocka_unit_test(test_match_blocked_chains_and_cycles),
      cmocka_unit_test(test_match_wildcard_waiters),
      cmocka_unit_test(test_match_releases_rise),
      cmocka_unit_test(test_match_stuck_only_without_progress),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
