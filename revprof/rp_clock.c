/* Prediction rules of librevprof: clock advance for compute, sends,
 * receives and collectives, collective message sizes, and the wildcard
 * order detector. Pure functions, no MPI (see rp_clock.h). */
#include "rp_clock.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- clocks */

void rp_clock_init(rp_clock *c) { memset(c, 0, sizeof *c); }

void rp_clock_compute(rp_clock *c, const double dt[RP_NB]) {
  for (int b = 0; b < RP_NB; b++) {
    c->now[b] += dt[b];
    c->compute[b] += dt[b];
  }
}

void rp_clock_local(rp_clock *c, const double cost[RP_NB]) {
  for (int b = 0; b < RP_NB; b++) {
    c->now[b] += cost[b];
    c->comm[b] += cost[b];
  }
}

double rp_clock_coll(rp_clock *c, const double start_max[RP_NB],
                     const double cost[RP_NB]) {
  double wavg = 0.0;
  for (int b = 0; b < RP_NB; b++) {
    double w = start_max[b] > c->now[b] ? start_max[b] - c->now[b] : 0.0;
    c->wait[b] += w;
    c->comm[b] += cost[b];
    c->now[b] += w + cost[b];
    if (b == RP_AVG)
      wavg = w;
  }
  return wavg;
}

double rp_clock_coll_complete(rp_clock *c, const double start_max[RP_NB],
                              const double cost[RP_NB]) {
  double wavg = 0.0;
  for (int b = 0; b < RP_NB; b++) {
    double done = start_max[b] + cost[b];
    double inc = done > c->now[b] ? done - c->now[b] : 0.0;
    double cm = inc < cost[b] ? inc : cost[b]; /* overlapped part is free */
    c->comm[b] += cm;
    c->wait[b] += inc - cm;
    c->now[b] += inc;
    if (b == RP_AVG)
      wavg = inc - cm;
  }
  return wavg;
}

double rp_clock_rooted(rp_clock *c, const double *arrived,
                       const double cost[RP_NB], const double part[RP_NB]) {
  double wavg = 0.0;
  for (int b = 0; b < RP_NB; b++) {
    double done = c->now[b] + part[b], w = 0.0;
    if (arrived && arrived[b] + cost[b] > done)
      done = arrived[b] + cost[b];
    double inc = done - c->now[b];
    if (arrived && arrived[b] > c->now[b])
      w = arrived[b] - c->now[b] < inc ? arrived[b] - c->now[b] : inc;
    c->wait[b] += w;
    c->comm[b] += inc - w;
    c->now[b] = done;
    if (b == RP_AVG)
      wavg = w;
  }
  return wavg;
}

void rp_arrival_at(const double t_send[RP_NB], const double latency[RP_NB],
                   const double t_post[RP_NB], const double late[RP_NB],
                   double at[RP_NB]) {
  for (int b = 0; b < RP_NB; b++) {
    double travelled = t_send[b] + latency[b], taken = t_post[b] + late[b];
    at[b] = travelled > taken ? travelled : taken;
  }
}

static int by_arrival(const void *x, const void *y) {
  double a = ((const rp_arrival *)x)->at[RP_AVG];
  double b = ((const rp_arrival *)y)->at[RP_AVG];
  return (a > b) - (a < b);
}

double rp_endpoint_take(rp_endpoint *ep, int b, double a, double len) {
  double *s = ep->start[b], *e = ep->end[b];
  int n = ep->n[b], i = n;
  double t = a;
  /* disjoint and sorted: the ends are sorted too; skip (from the last,
     the common case being a message later than all) those over by a */
  while (i > 0 && e[i - 1] > a)
    i--;
  for (; i < n; i++) {
    if (s[i] >= t + len)
      break; /* free from t until this one */
    t = e[i];
  }
  if (!(len > 0.0))
    return t; /* occupies nothing */
  /* i: the first one that starts after t (all before it end by t); one
     that touches its neighbours joins them, so that a queue of any length
     is one busy time */
  int to_prev = i > 0 && e[i - 1] == t, to_next = i < n && s[i] == t + len;
  if (to_prev && to_next) {
    e[i - 1] = e[i];
    memmove(s + i, s + i + 1, (size_t)(n - i - 1) * sizeof *s);
    memmove(e + i, e + i + 1, (size_t)(n - i - 1) * sizeof *e);
    ep->n[b] = n - 1;
    return t;
  }
  if (to_prev || to_next) {
    if (to_prev)
      e[i - 1] = t + len;
    else
      s[i] = t;
    return t;
  }
  if (n == RP_EP_HIST) { /* forget the older half at once */
    int drop = RP_EP_HIST / 2;
    if (i < drop)
      return t; /* among those forgotten: not kept */
    memmove(s, s + drop, (size_t)(n - drop) * sizeof *s);
    memmove(e, e + drop, (size_t)(n - drop) * sizeof *e);
    n -= drop;
    i -= drop;
  }
  memmove(s + i + 1, s + i, (size_t)(n - i) * sizeof *s);
  memmove(e + i + 1, e + i, (size_t)(n - i) * sizeof *e);
  s[i] = t;
  e[i] = t + len;
  ep->n[b] = n + 1;
  return t;
}

double rp_clock_complete(rp_clock *c, rp_arrival *a, int n,
                         rp_endpoint *ep) {
  double wavg = 0.0;
  if (n <= 0)
    return 0.0;
  if (n > 1)
    qsort(a, (size_t)n, sizeof *a, by_arrival);
  for (int b = 0; b < RP_NB; b++) {
    for (int i = 0; i < n; i++) {
      double e = rp_endpoint_take(ep, b, a[i].at[b], a[i].gap[b]);
      double ready = c->now[b] + a[i].own[b];
      double w = e > ready ? e - ready : 0.0;
      c->comm[b] += a[i].own[b];
      c->wait[b] += w;
      c->now[b] = ready + w;
      if (b == RP_AVG) {
        wavg += w;
        a[i].done = c->now[b];
      }
    }
  }
  return wavg;
}

void rp_clock_sent(rp_clock *c, const double done[RP_NB]) {
  for (int b = 0; b < RP_NB; b++)
    if (done[b] > c->now[b]) {
      c->comm[b] += done[b] - c->now[b];
      c->now[b] = done[b];
    }
}

double rp_clock_rendezvous(rp_clock *c, const double t_send[RP_NB],
                           const double t_post[RP_NB]) {
  double wavg = 0.0;
  for (int b = 0; b < RP_NB; b++) {
    double w = t_post[b] > t_send[b] ? t_post[b] - t_send[b] : 0.0;
    c->now[b] += w;
    c->wait[b] += w;
    if (b == RP_AVG)
      wavg = w;
  }
  return wavg;
}

int rp_root_learns(int dir, int is_root) {
  return (dir == RP_ROOT_OUT && !is_root) || (dir == RP_ROOT_IN && is_root);
}

void rp_root_known(int dir, int is_root, const double *own,
                   const double *arrived, double *known, int n) {
  int learns = rp_root_learns(dir, is_root);
  for (int k = 0; k < n; k++)
    known[k] = learns && arrived[k] > own[k] ? arrived[k] : own[k];
}

void rp_rma_queue(const double now[RP_NB], double pending[RP_NB],
                  const double cost[RP_NB], const double *gap,
                  double *nic_free) {
  for (int b = 0; b < RP_NB; b++) {
    double done;
    if (gap == NULL) {
      done = (pending[b] > now[b] ? pending[b] : now[b]) + cost[b];
    } else {
      double t = now[b] > nic_free[b] ? now[b] : nic_free[b];
      nic_free[b] = t + gap[b];
      done = t + cost[b];
    }
    if (done > pending[b])
      pending[b] = done;
  }
}

void rp_rma_settle(rp_clock *c, double pending[RP_NB],
                   const double overlap[RP_NB]) {
  for (int b = 0; b < RP_NB; b++) {
    double until = pending[b] - (overlap ? overlap[b] : 0.0);
    if (until > c->now[b]) {
      c->comm[b] += until - c->now[b];
      c->now[b] = until;
    }
    pending[b] = 0.0;
  }
}

double rp_clock_arrival(const double t_send[RP_NB],
                        const double latency[RP_NB]) {
  return t_send[RP_AVG] + latency[RP_AVG];
}

/* ----------------------------------------------------- compute amounts */

static double nonneg(double x) { return isfinite(x) && x > 0.0 ? x : 0.0; }

void rp_compute_steps(const double step[RP_NB], double n, double out[RP_NB]) {
  n = nonneg(n);
  for (int b = 0; b < RP_NB; b++)
    out[b] = n * step[b];
}

void rp_compute_seconds(double s, double out[RP_NB]) {
  s = nonneg(s);
  out[0] = out[1] = out[2] = s;
}

void rp_compute_measured(double cpu, double scale, double out[RP_NB]) {
  rp_compute_seconds(cpu * scale, out);
}

void rp_compute_instructions(double ins, double sec_per_ins,
                             double out[RP_NB]) {
  rp_compute_seconds(ins * sec_per_ins, out);
}

/* ------------------------------------------------------ message sizes */

double rp_d_count(double count, const void *type, rp_tsize_fn tsize) {
  count = nonneg(count);
  return count > 0.0 ? count * nonneg(tsize(type)) : 0.0;
}

double rp_d_send_block(int inplace, double sendcount, const void *sendtype,
                       double recvcount, const void *recvtype,
                       rp_tsize_fn tsize) {
  return inplace ? rp_d_count(recvcount, recvtype, tsize)
                 : rp_d_count(sendcount, sendtype, tsize);
}

double rp_count_at(rp_counts c, int i) {
  if (c.wide) {
    int64_t v;
    memcpy(&v, (const char *)c.a + (size_t)i * sizeof v, sizeof v);
    return (double)v;
  }
  return ((const int *)c.a)[i];
}

double rp_d_send_blockv(int inplace, double sendcount, const void *sendtype,
                        rp_counts recvcounts, int rank, int n,
                        const void *recvtype, rp_tsize_fn tsize) {
  if (!inplace)
    return rp_d_count(sendcount, sendtype, tsize);
  return recvcounts.a && rank >= 0 && rank < n
             ? rp_d_count(rp_count_at(recvcounts, rank), recvtype, tsize)
             : 0.0;
}

double rp_d_recv_block(int inplace, double sendcount, const void *sendtype,
                       double recvcount, const void *recvtype,
                       rp_tsize_fn tsize) {
  return inplace ? rp_d_count(sendcount, sendtype, tsize)
                 : rp_d_count(recvcount, recvtype, tsize);
}

double rp_d_recv_blockv(int inplace, rp_counts sendcounts, int rank, int n,
                        const void *sendtype, double recvcount,
                        const void *recvtype, rp_tsize_fn tsize) {
  if (!inplace)
    return rp_d_count(recvcount, recvtype, tsize);
  return sendcounts.a && rank >= 0 && rank < n
             ? rp_d_count(rp_count_at(sendcounts, rank), sendtype, tsize)
             : 0.0;
}

double rp_d_alltoallv(int inplace, rp_counts sendcounts, const void *sendtype,
                      rp_counts recvcounts, const void *recvtype, int n,
                      rp_tsize_fn tsize) {
  rp_counts c = inplace ? recvcounts : sendcounts;
  double sum = 0.0;
  if (c.a == NULL || n <= 0)
    return 0.0;
  for (int i = 0; i < n; i++)
    sum += nonneg(rp_count_at(c, i));
  return sum > 0.0 ? sum * nonneg(tsize(inplace ? recvtype : sendtype)) / n
                   : 0.0;
}

double rp_d_alltoallw(int inplace, rp_counts sendcounts,
                      const void *sendtypes, rp_counts recvcounts,
                      const void *recvtypes, int n, size_t stride,
                      rp_tsize_fn tsize) {
  rp_counts c = inplace ? recvcounts : sendcounts;
  const char *t = inplace ? recvtypes : sendtypes;
  double sum = 0.0;
  if (c.a == NULL || t == NULL || n <= 0)
    return 0.0;
  for (int i = 0; i < n; i++)
    sum += rp_d_count(rp_count_at(c, i), t + (size_t)i * stride, tsize);
  return sum / n;
}

double rp_d_reduce_scatter(rp_counts recvcounts, int rank, int n,
                           const void *type, rp_tsize_fn tsize) {
  return recvcounts.a && rank >= 0 && rank < n
             ? rp_d_count(rp_count_at(recvcounts, rank), type, tsize)
             : 0.0;
}

/* --------------------------------------------------- wildcard receives */

void rp_wild_init(rp_wild *w, int any_tag) {
  memset(w, 0, sizeof *w);
  w->any_tag = any_tag;
}

int rp_wild_record(rp_wild *w, unsigned long comm, int tag_spec, int src,
                   int tag, double arrival) {
  int bad = 0;
  w->receives++;
  for (int i = 0; i < w->n && !bad; i++) {
    const rp_wild_entry *e = &w->e[i];
    if (e->comm == comm && e->src != src &&
        (e->tag_spec == w->any_tag || e->tag_spec == tag) &&
        arrival < e->arrival)
      bad = 1; /* that earlier receive would have taken this message */
  }
  w->suspicious += bad;
  w->e[w->next] = (rp_wild_entry){comm, tag_spec, src, arrival};
  w->next = (w->next + 1) % RP_WILD_KEEP;
  if (w->n < RP_WILD_KEEP)
    w->n++;
  return bad;
}

rp_pb_way rp_pb_choose(int no_message, int foreign, double bytes, int plain,
                       int copy_ok, double pack_max) {
  if (no_message || foreign)
    return RP_PB_NONE;
  if (plain && copy_ok && bytes <= pack_max)
    return RP_PB_COPY;
  /* the clocks alone: the buffer may be NULL, and a struct over
     MPI_BOTTOM would point at it */
  return bytes == 0 ? RP_PB_CLOCKS : RP_PB_TYPE;
}

/* Lower bounds of every rank's next departure into p[].bound (INFINITY:
 * never before the waiting rank self acts): a blocked rank with nothing
 * under way to it departs after what releases it (its source, or for a
 * wildcard the earliest other rank) plus the lookahead; relaxed from
 * INFINITY until nothing moves (a cycle of blocked ranks stays there). */
static void match_bounds(rp_match_peer *p, int n, int self, double la) {
  for (int s = 0; s < n; s++) {
    rp_match_peer *q = &p[s];
    int blocked = (q->state == RP_PEER_RECV && q->on >= 0 && q->on < n) ||
                  q->state == RP_PEER_ANY;
    if (s == self || q->state == RP_PEER_GONE || q->state == RP_PEER_COLL ||
        (blocked && !q->fed))
      q->bound = INFINITY;
    else
      q->bound = q->clock;
    if (q->state == RP_PEER_ANY && q->fed && q->release > q->bound)
      q->bound = q->release; /* it sends after its receive completes */
  }
  for (int round = 0; round <= n; round++) {
    int changed = 0, i1 = -1;
    double m1 = INFINITY, m2 = INFINITY; /* the two least bounds */
    for (int s = 0; s < n; s++)
      if (p[s].bound < m1) {
        m2 = m1;
        m1 = p[s].bound;
        i1 = s;
      } else if (p[s].bound < m2)
        m2 = p[s].bound;
    for (int s = 0; s < n; s++) {
      rp_match_peer *q = &p[s];
      if (s == self || q->fed || (q->state != RP_PEER_ANY &&
                                  (q->state != RP_PEER_RECV || q->on < 0 ||
                                   q->on >= n)))
        continue;
      double dep = q->state == RP_PEER_RECV ? p[q->on].bound
                                            : (i1 == s ? m2 : m1);
      double b = dep + la > q->clock ? dep + la : q->clock;
      if (q->state == RP_PEER_ANY && q->release > b)
        b = q->release;
      if (b < q->bound) {
        q->bound = b;
        changed = 1;
      }
    }
    if (!changed)
      break;
  }
}

int rp_match_decide(rp_match_peer *p, int n, int self, double lookahead,
                    int *who, int *stuck, double *release) {
  int best = -1;
  double la = lookahead > 0 ? lookahead : 0.0;
  *stuck = 0;
  match_bounds(p, n, self, la);
  *release = INFINITY;
  for (int s = 0; s < n; s++) {
    if (!p[s].member || s == self || (p[s].has && !p[s].unknown))
      continue;
    double b = p[s].unknown ? -INFINITY : p[s].bound + la;
    if (b < *release)
      *release = b;
  }
  for (int s = 0; s < n; s++)
    if (p[s].member && p[s].has &&
        (best < 0 || p[s].arrival < p[best].arrival))
      best = s;
  if (best < 0)
    return RP_MATCH_WAIT; /* nothing known yet: as the MPI, wait */
  double a = p[best].arrival;
  if (a < *release)
    *release = a;
  int running = 0, undercut = 0;
  for (int s = 0; s < n; s++) {
    if (!p[s].member || s == self || (p[s].has && !p[s].unknown))
      continue;
    double b = p[s].unknown ? -INFINITY : p[s].bound + la;
    if (b < a || (b == a && s < best)) {
      undercut = 1;
      running |= p[s].active && !p[s].unknown;
    }
  }
  if (undercut) {
    *stuck = !running;
    return RP_MATCH_WAIT;
  }
  *who = best;
  return RP_MATCH_TAKE;
}
