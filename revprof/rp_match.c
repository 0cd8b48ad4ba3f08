/* Wildcard receives decided in predicted time (issue 15, seed 003's
 * condition 1). Each rank owns a block of a shared-memory window:
 *
 *   rp_mpub pub              its state (rp_publish: at every wrapper's
 *                            entry and exit, blocked receives, collectives)
 *   uint64_t nsent[P]        messages it has sent to each rank
 *   rp_mlog ring[P][K]       the last K of them, per destination
 *   uint64_t unsure          receives posted whose match cannot be told
 *   uint64_t nposted[P]      receives it posted, per source
 *   rp_mpost posts[P][KP]    the last KP of them, per source
 *
 * A sender writes its own block only; a rank deciding a wildcard receive
 * reads the others' (plain loads: the window is shared memory). It takes
 * the message known to arrive first in predicted time once no member of
 * the communicator can still send one that arrives earlier
 * (rp_match_decide), then receives from that source: the MPI matches the
 * same message (non-overtaking), so status, tag and counts are the
 * MPI's own. Which of a sender's logged messages this rank has taken it
 * knows from the number each one carries in its piggyback (RP_PB_SEQ). */
#include "rp_match.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* One logged message; s0 and s1 frame its writing (seq + 1; 0: empty). */
typedef struct rp_mlog {
  uint64_t s0;
  double t[RP_NB]; /* departure clocks (the piggyback's) */
  double bytes;
  int32_t cid, tag;
  uint64_t s1;
} rp_mlog;

/* A receive from a known source with a known tag, published as it is
 * posted (rp_match_posted), for synchronous senders (rp_match_rendezvous):
 * the k-th its rank posted for (source, cid, tag); s0, s1 as in rp_mlog. */
typedef struct rp_mpost {
  uint64_t s0;
  double t[RP_NB]; /* the receiver's clocks as it posted */
  uint64_t k;
  int32_t cid, tag;
  uint64_t s1;
} rp_mpost;

#define RING_BUDGET (1024.0 * 1024.0) /* bytes of log per rank, about */
#define POSTS_BUDGET (256.0 * 1024.0) /* bytes of posts per rank, about */
#define POSTS_MAX 256 /* entries per source, at most */
#define RING_MAX 1024 /* entries per destination, at most */
/* Seconds a decision waits, when nothing else can move, for a rank still
 * inside a blocking send to this one: an eager send returns by itself in
 * microseconds, so one still there waits for this rank's receive
 * (rendezvous), which comes only after the decision. */
#define RP_MATCH_RENDEZVOUS 0.002
/* Bytes every MPI sends eagerly (their eager limits are 4 KiB and up): a
 * send this small returns by itself, however long the rank takes to be
 * scheduled again. */
#define RP_MATCH_EAGER 1024.0

static MPI_Win win = MPI_WIN_NULL;
static char **blocks;      /* every rank's block, by rp_g.world rank */
static uint64_t ring;      /* K: entries per destination, a power of two */
static uint64_t pring;     /* KP: posts kept per source */
static uint64_t *low;      /* per source: the first message not yet taken */
static uint64_t *taken;    /* ... and bit i: message low + i was taken */
static rp_match_peer *peers;
static uint64_t *seen_v;   /* per rank: pub version at the last look */
static double *seen_clock; /* ... and clock */
static double lookahead;   /* the model's least latency, s */
static int *scratch_who, *scratch_tag; /* a decision's sources and tags */
static size_t scratch_cap;
static uint64_t taken_total; /* messages taken, from anyone */

static rp_mpub *pub_of(int w) { return (rp_mpub *)(void *)blocks[w]; }
static uint64_t *nsent_of(int w) {
  return (uint64_t *)(void *)(blocks[w] + sizeof(rp_mpub));
}
static rp_mlog *ring_of(int w, int dest) {
  return (rp_mlog *)(void *)(blocks[w] + sizeof(rp_mpub) +
                             (size_t)rp_g.size * sizeof(uint64_t)) +
         (size_t)dest * ring;
}

static size_t at_unsure, at_posts; /* byte offsets in a block */
static uint64_t *unsure_of(int w) {
  return (uint64_t *)(void *)(blocks[w] + at_unsure);
}
static uint64_t *nposted_of(int w) { return unsure_of(w) + 1; }
static rp_mpost *posts_of(int w, int src) {
  return (rp_mpost *)(void *)(blocks[w] + at_posts) + (size_t)src * pring;
}
static uint64_t *my_unsure, *my_nposted, *my_nsent; /* this rank's */
static rp_mpost *my_posts;
static rp_mlog *my_ring;

/* Counts of messages per (rank, cid, tag): this rank's to each
 * destination (sent_k), its receives posted from each source (posted_k).
 * Open addressing, a slot with used 0 free, at most KTAB_MAX keys (a
 * program that draws a new tag for every message would fill any table:
 * past that the rule is off, said); last: the slot of the last key. */
#define KTAB_MAX 4096
typedef struct rp_kcount {
  int32_t w, cid, tag, used;
  uint64_t n;
} rp_kcount;
typedef struct rp_ktab {
  rp_kcount *e, *last;
  size_t cap, n;
} rp_ktab;
static rp_ktab sent_k, posted_k;
static int sends_unsure; /* this rank's counts of messages may be ahead of
                            what receivers match (a cancel, a full table) */

static size_t ktab_slot(const rp_ktab *t, int w, int cid, int tag) {
  uint32_t h = ((uint32_t)w * 31u + (uint32_t)cid) * 31u + (uint32_t)tag;
  size_t i = (size_t)(h * 2654435761u) & (t->cap - 1);
  while (t->e[i].used &&
         !(t->e[i].w == w && t->e[i].cid == cid && t->e[i].tag == tag))
    i = (i + 1) & (t->cap - 1);
  return i;
}

/* ktab_next for another key than the last one */
static __attribute__((noinline)) uint64_t ktab_other(rp_ktab *t, int w,
                                                     int cid, int tag) {
  rp_kcount *c;
  if (2 * (t->n + 1) > t->cap) { /* at most half full */
    size_t cap = t->cap ? 2 * t->cap : 64;
    rp_kcount *e = t->n >= KTAB_MAX ? NULL : calloc(cap, sizeof *e);
    if (e == NULL)
      return UINT64_MAX;
    rp_kcount *old = t->e;
    size_t ocap = t->cap;
    t->e = e;
    t->cap = cap;
    for (size_t i = 0; i < ocap; i++)
      if (old[i].used)
        t->e[ktab_slot(t, old[i].w, old[i].cid, old[i].tag)] = old[i];
    free(old);
  }
  c = &t->e[ktab_slot(t, w, cid, tag)];
  if (!c->used) {
    *c = (rp_kcount){w, cid, tag, 1, 0};
    t->n++;
  }
  t->last = c;
  return c->n++;
}

/* The count of (w, cid, tag) before this one, counted; UINT64_MAX when the
 * table is full or no memory is left for a new key. */
static inline uint64_t ktab_next(rp_ktab *t, int w, int cid, int tag) {
  rp_kcount *c = t->last;
  if (c && c->w == w && c->cid == cid && c->tag == tag)
    return c->n++; /* the same key as last time: most messages */
  return ktab_other(t, w, cid, tag);
}

static void ktab_free(rp_ktab *t) {
  free(t->e);
  *t = (rp_ktab){NULL, NULL, 0, 0};
}

/* The last message logged, for rp_match_last_sent (valid 0: none since,
 * or taken). */
static rp_rdv_key last_sent;

static const char *off_why; /* why rp_g.pub is NULL in predict mode */
static const char no_id[] = "on a communicator without an id (made by "
                            "MPI_Comm_idup, an inter-communicator, or "
                            "MPI_COMM_SELF)";

void rp_match_real(const char *why) {
  if (rp_g.cfg.mode != RP_MODE_PREDICT)
    return; /* compensate mode measures the real run: its order is right */
  rp_g.wild.real++;
  rp_report_flag("wildcard-real", "%ld wildcard receive(s) or probe(s) took "
                 "the MPI's order (the host's), not the predicted one: %s",
                 rp_g.wild.real, why);
}

static void off_because(const char *why) { off_why = why; }

void rp_match_startup(void) {
  int p = rp_g.size, shared = rp_g.node_size, ok = 1, all = 0;
  if (rp_g.cfg.wildcard_real || rp_g.cfg.mode != RP_MODE_PREDICT)
    return;
  if (rp_g.mt) {
    off_because("MPI_THREAD_MULTIPLE (one rank's threads would share its "
                "published state)");
    return;
  }
  double per = RING_BUDGET / ((double)p * sizeof(rp_mlog));
  for (ring = 8; ring < RING_MAX && 2.0 * (double)ring <= per;)
    ring *= 2; /* a power of two: a mask where a division was */
  per = POSTS_BUDGET / ((double)p * sizeof(rp_mpost));
  for (pring = 8; pring < POSTS_MAX && 2.0 * (double)pring <= per;)
    pring *= 2; /* a power of two */
  at_unsure = sizeof(rp_mpub) + (size_t)p * sizeof(uint64_t) +
              (size_t)p * ring * sizeof(rp_mlog);
  at_posts = at_unsure + sizeof(uint64_t) + (size_t)p * sizeof(uint64_t);
  size_t bytes = at_posts + (size_t)p * pring * sizeof(rp_mpost);
  char *base = NULL;
  blocks = calloc((size_t)p, sizeof *blocks);
  low = calloc((size_t)p, sizeof *low);
  taken = calloc((size_t)p, sizeof *taken);
  peers = calloc((size_t)p, sizeof *peers);
  seen_v = calloc((size_t)p, sizeof *seen_v);
  seen_clock = calloc((size_t)p, sizeof *seen_clock);
  ok = blocks && low && taken && peers && seen_v && seen_clock &&
       shared == p;
  /* every rank must agree before the collective window */
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, rp_g.world);
  if (all &&
      PMPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL,
                               rp_g.world, &base, &win) != MPI_SUCCESS)
    win = MPI_WIN_NULL;
  for (int w = 0; win != MPI_WIN_NULL && w < p; w++) {
    MPI_Aint sz = 0;
    int du = 0;
    if (PMPI_Win_shared_query(win, w, &sz, &du, &blocks[w]) != MPI_SUCCESS ||
        blocks[w] == NULL)
      all = 0;
  }
  if (win != MPI_WIN_NULL) {
    ok = all;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, rp_g.world);
  }
  if (!all) {
    if (win != MPI_WIN_NULL)
      PMPI_Win_free(&win);
    rp_match_shutdown();
    off_because(shared != p ? "the ranks are not all on one node (the "
                              "published states live in shared memory)"
                            : "no shared-memory window");
    return;
  }
  memset(base, 0, bytes);
  PMPI_Barrier(rp_g.world); /* zeroed everywhere before any use */
  /* read from the model without the costing's bookkeeping (no fallback
     warning, no extrapolation count for a program that may never send);
     0 without the row: still a valid lookahead, only a slower one */
  double l0[RP_NB], l8[RP_NB];
  lookahead = 0.0;
  if (revprof_model_eval(rp_g.model, REVPROF_FN_LATENCY, 2.0, 0.0, l0) == 0 &&
      revprof_model_eval(rp_g.model, REVPROF_FN_LATENCY, 2.0, 8.0, l8) == 0)
    lookahead = l0[RP_AVG] < l8[RP_AVG] ? l0[RP_AVG] : l8[RP_AVG];
  if (!(lookahead > 0.0))
    lookahead = 0.0;
  my_unsure = unsure_of(rp_g.rank);
  my_nposted = nposted_of(rp_g.rank);
  my_nsent = nsent_of(rp_g.rank);
  my_ring = ring_of(rp_g.rank, 0);
  my_posts = posts_of(rp_g.rank, 0);
  rp_g.pub = (rp_mpub *)(void *)blocks[rp_g.rank];
  rp_publish(RP_PEER_IN, -1, -1, 0);
}

void rp_match_shutdown(void) {
  rp_g.pub = NULL;
  if (win != MPI_WIN_NULL)
    PMPI_Win_free(&win); /* collective: nobody reads any more */
  free(blocks);
  free(low);
  free(taken);
  free(peers);
  free(seen_v);
  free(seen_clock);
  free(scratch_who);
  free(scratch_tag);
  ktab_free(&sent_k);
  ktab_free(&posted_k);
  last_sent.valid = sends_unsure = 0;
  scratch_who = scratch_tag = NULL;
  scratch_cap = 0;
  blocks = NULL;
  taken_total = 0;
  low = taken = seen_v = NULL;
  peers = NULL;
  seen_clock = NULL;
}

/* ------------------------------------------------------------ senders */

/* rp_match_log_slow: the world rank the message was logged for, -1 for
 * none */
static inline int log_message(double *pb, double bytes, int dest, int tag,
                              MPI_Comm comm) {
  rp_comm *c = rp_comm_lookup(comm);
  pb[RP_PB_SEQ] = -1.0;
  last_sent.valid = 0;
  if (c == NULL || c->cid < 0 || dest < 0 || dest >= c->size)
    return -1;
  int w = rp_comm_world(c, dest);
  if (w < 0 || w >= rp_g.size)
    return -1;
  uint64_t k = sends_unsure ? UINT64_MAX : ktab_next(&sent_k, w, c->cid, tag);
  if (k == UINT64_MAX)
    sends_unsure = 1; /* a message not counted: later ones cannot be told */
  else {
    last_sent.valid = 1;
    last_sent.w = w;
    last_sent.cid = c->cid;
    last_sent.tag = tag;
    last_sent.k = k;
    memcpy(last_sent.t, pb, sizeof last_sent.t);
  }
  uint64_t *n = &my_nsent[w], seq = *n;
  rp_mlog *e = &my_ring[(size_t)w * ring + (seq & (ring - 1))];
  __atomic_store_n(&e->s0, seq + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  memcpy(e->t, pb, sizeof e->t);
  e->bytes = bytes;
  e->cid = c->cid;
  e->tag = tag;
  __atomic_store_n(&e->s1, seq + 1, __ATOMIC_RELEASE);
  __atomic_store_n(n, seq + 1, __ATOMIC_RELEASE);
  pb[RP_PB_SEQ] = (double)seq;
  return w;
}

void rp_match_log_slow(double *pb, double bytes, int dest, int tag,
                       MPI_Comm comm) {
  log_message(pb, bytes, dest, tag, comm);
}

void rp_match_log_block_slow(double *pb, double bytes, int dest, int tag,
                             MPI_Comm comm) {
  int w = log_message(pb, bytes, dest, tag, comm);
  if (w >= 0)
    rp_publish(RP_PEER_SEND, w, -1, bytes > 0 ? (uint64_t)bytes : 0);
}

void rp_match_cancelled(const double *pb, int dest, MPI_Comm comm) {
  rp_comm *c;
  if (rp_g.pub == NULL || pb[RP_PB_SEQ] < 0.0 ||
      (c = rp_comm_lookup(comm)) == NULL || dest < 0 || dest >= c->size)
    return;
  int w = rp_comm_world(c, dest);
  uint64_t seq = (uint64_t)pb[RP_PB_SEQ];
  rp_mlog *e = &my_ring[(size_t)w * ring + (seq & (ring - 1))];
  if (w >= 0 && w < rp_g.size && e->s1 == seq + 1) /* still in the log */
    __atomic_store_n(&e->cid, -1, __ATOMIC_RELEASE); /* matches nothing */
}

/* ---------------------------------------------------------- receivers */

void rp_match_got_slow(int src, double seqd) {
  if (src < 0 || src >= rp_g.size)
    return;
  uint64_t seq = (uint64_t)seqd, lo = low[src];
  if (seq == lo && taken[src] == 0) { /* the next, in order: most messages */
    low[src] = lo + 1;
    taken_total++;
    return;
  }
  if (seq < lo)
    return; /* taken before (a status peeked, then the completion) */
  uint64_t d = seq - lo;
  if (d < 64 && (taken[src] >> d & 1))
    return; /* the same message again */
  taken_total++;
  if (d >= 64) { /* taken far out of order: forget the oldest */
    uint64_t sh = d - 63;
    taken[src] = sh >= 64 ? 0 : taken[src] >> sh;
    low[src] += sh;
    d = 63;
  }
  taken[src] |= (uint64_t)1 << d;
  while (taken[src] & 1) {
    taken[src] >>= 1;
    low[src]++;
  }
}

static uint64_t taken_count(int src) {
  uint64_t t = taken[src]; /* 0 while messages come in order: no popcount, a
                              libgcc call of 40 instructions without -mpopcnt */
  return low[src] + (t ? (uint64_t)__builtin_popcountll(t) : 0);
}

static int was_taken(int src, uint64_t seq) {
  if (seq < low[src])
    return 1;
  uint64_t d = seq - low[src];
  return d < 64 && (taken[src] >> d & 1);
}

/* rank w's published state, consistent (retries while it is rewritten) */
static rp_mpub read_pub(int w) {
  const rp_mpub *m = pub_of(w);
  rp_mpub r;
  for (int i = 0;; i++) {
    uint64_t v1 = __atomic_load_n(&m->v1, __ATOMIC_ACQUIRE);
    memcpy(&r, m, sizeof r);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint64_t v0 = __atomic_load_n(&m->v0, __ATOMIC_RELAXED);
    if (v0 == v1 || i > 1000) {
      r.v0 = r.v1 = v1;
      return r;
    }
  }
}

/* The message of sender w that a receive (cid, tag) of this rank takes
 * first: the oldest logged one not yet taken that matches. 1 with it in
 * *out; 0 none; -1 one is being written; -2 the log lost some. */
static int candidate(int w, int cid, int tag, rp_mlog *out) {
  uint64_t n = __atomic_load_n(&nsent_of(w)[rp_g.rank], __ATOMIC_ACQUIRE);
  const rp_mlog *r = ring_of(w, rp_g.rank);
  for (uint64_t k = low[w]; k < n; k++) {
    if (was_taken(w, k))
      continue;
    const rp_mlog *e = &r[k & (ring - 1)];
    uint64_t s1 = __atomic_load_n(&e->s1, __ATOMIC_ACQUIRE);
    memcpy(out, e, sizeof *out);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint64_t s0 = __atomic_load_n(&e->s0, __ATOMIC_RELAXED);
    if (s0 > k + 1 || s1 > k + 1)
      return -2; /* overwritten: more than K under way, for good */
    if (s0 != k + 1 || s1 != k + 1)
      return -1; /* being written: look again */
    if (out->cid == cid && (tag == MPI_ANY_TAG || out->tag == tag))
      return 1;
  }
  return 0;
}

/* the rank of c whose MPI_COMM_WORLD rank is w */
static int comm_rank_of(const rp_comm *c, int w) {
  if (c->world == NULL)
    return w;
  for (int r = 0; r < c->size; r++)
    if (c->world[r] == w)
      return r;
  return MPI_ANY_SOURCE;
}

static int in_comm(const rp_comm *c, int w) {
  return c && comm_rank_of(c, w) != MPI_ANY_SOURCE;
}

/* What is being decided: n receives, the i-th from MPI_COMM_WORLD rank
 * who[i] with tag tags[i] on the communicator with id cid (distinct
 * sources); at(i, t_send, bytes, ud): when receive i's message is there in
 * predicted time (avg clock). */
typedef struct choice {
  int cid, n;
  const int *who, *tags;
  const double *known; /* NULL, or receive i's arrival when its message
                          was delivered already (NaN: not) */
  rp_arrival_fn at;
  void *ud;
} choice;

/* One look at every rank: the peers' table for rp_match_decide. first: no
 * earlier look to compare with (everyone counts as active). Returns 1 when
 * a sender's log lost messages of this choice (nothing to wait for). */
static int look(const choice *ch, int first) {
  int p = rp_g.size, lost = 0;
  for (int w = 0; w < p; w++) {
    rp_mpub m = read_pub(w);
    rp_match_peer *q = &peers[w];
    memset(q, 0, sizeof *q);
    q->state = m.state;
    q->on = m.on;
    q->clock = m.clock;
    q->release = m.release;
    q->sent = m.state == RP_PEER_SEND ? (double)m.got : 0.0;
    if (m.state == RP_PEER_COLL) {
      /* it waits for this rank in a collective of one of this rank's
         communicators (w's ids differ: that one) this rank has not begun */
      const rp_comm *cc = rp_comm_by_cid(m.cid);
      if (!in_comm(cc, w) || m.got <= cc->syncs)
        q->state = RP_PEER_IN;
    }
    if (m.state == RP_PEER_RECV && m.on >= 0 && m.on < p)
      q->fed = __atomic_load_n(&nsent_of(m.on)[w], __ATOMIC_ACQUIRE) > m.got;
    if (m.state == RP_PEER_ANY) { /* anything under way to it? */
      uint64_t sent = 0;
      for (int r = 0; r < p; r++)
        sent += __atomic_load_n(&nsent_of(r)[w], __ATOMIC_ACQUIRE);
      q->fed = sent > m.got;
    }
    q->active = first || m.clock != seen_clock[w] ||
                (m.state == RP_PEER_OUT && m.v1 == seen_v[w]);
    seen_v[w] = m.v1;
    seen_clock[w] = m.clock;
  }
  for (int i = 0; i < ch->n; i++) {
    int w = ch->who[i];
    if (w < 0 || w >= p)
      continue;
    rp_match_peer *q = &peers[w];
    rp_mlog e;
    q->member = 1;
    if (ch->known && !isnan(ch->known[i])) { /* taken from the log */
      q->has = 1;
      q->arrival = ch->known[i];
      continue;
    }
    int k = candidate(w, ch->cid, ch->tags[i], &e);
    q->has = k == 1;
    q->unknown = k < 0;
    lost |= k == -2;
    if (q->has)
      q->arrival = ch->at(i, e.t, e.bytes, ch->ud);
  }
  return lost;
}

/* What a rank was doing at the last look, for stall_notice */
static const char *const peer_what[] = {
    [RP_PEER_OUT] = "running the program",
    [RP_PEER_IN] = "inside an MPI call revprof does not describe",
    [RP_PEER_RECV] = "in a receive from rank",
    [RP_PEER_ANY] = "in a receive from any rank",
    [RP_PEER_COLL] = "in a collective this rank has not joined",
    [RP_PEER_GONE] = "in MPI_Finalize",
    [RP_PEER_SEND] = "in a blocking send to rank"};

/* Once a run, a blocking decision that has waited REVPROF_WILDCARD_STALL
 * seconds says so on stderr, with what every rank was doing at the last
 * look: a program that waits as long without revprof is fine, one that
 * does not is waiting for revprof's proof (a rank that could still send
 * an earlier message computes for long) or has found a fault of it. */
static void stall_notice(double waited) {
  char ranks[1280], known[256];
  size_t len = 0, klen = 0;
  int shown = 0, nknown = 0;
  ranks[0] = known[0] = '\0';
  for (int w = 0; w < rp_g.size; w++) {
    const rp_match_peer *q = &peers[w];
    if (q->member && q->has && klen < sizeof known) {
      klen += (size_t)snprintf(known + klen, sizeof known - klen, "%s%d",
                               nknown ? ", " : "", w);
      nknown++;
    }
    if (w == rp_g.rank || len >= sizeof ranks || shown > 16)
      continue;
    if (shown++ == 16) {
      len += (size_t)snprintf(ranks + len, sizeof ranks - len, "; ...");
      continue;
    }
    int st = q->state >= RP_PEER_OUT && q->state <= RP_PEER_SEND
                 ? q->state
                 : RP_PEER_IN;
    len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d %s",
                            shown > 1 ? "; " : "", w, peer_what[st]);
    if ((st == RP_PEER_RECV || st == RP_PEER_SEND) && len < sizeof ranks)
      len += (size_t)snprintf(ranks + len, sizeof ranks - len, " %d", q->on);
  }
  rp_warn("a receive from MPI_ANY_SOURCE (decided in predicted time) "
          "has waited %.0f s: %s%s; the ranks of "
          "MPI_COMM_WORLD: %s. If the program does not wait here without "
          "revprof, rerun with REVPROF_WILDCARD=real (the MPI's order, "
          "flagged) and report it; later waits are not said "
          "(REVPROF_WILDCARD_STALL)",
          waited,
          nknown ? "it waits for a rank that could still send an earlier "
                   "message in predicted time and is making progress, and "
                   "knows messages from ranks "
                 : "it knows no message it may take",
          nknown ? known : "", ranks);
}

/* The decision among ch's receives: 1 with *pick (an index into ch->who)
 * decided, 0 undecided (wait: 0 gives up after one look; probe loops and
 * Testany: the calls of one loop share the time-out's start), -1 left to
 * the MPI (counted). comm: for the MPI's progress while waiting. */
static int decide(const choice *ch, MPI_Comm comm, int wait, int *pick) {
  static double try_calm = -1.0; /* a polling loop's first undecided try */
  static int stall_said;         /* stall_notice ran */
  /* the costs evaluated while deciding are not calls of the program: they
     leave the counts of calls costed outside the model's range alone */
  static rp_extrap extrap[REVPROF_FN_COUNT];
  memcpy(extrap, rp_extrap_tab, sizeof extrap);
  double t0 = rp_host_seconds(), calm = t0;
  int who = -1, outcome = 0, first = 1;
  rp_mpub *me = rp_g.pub;
  if (wait)
    rp_publish(RP_PEER_ANY, -1, -1, taken_total);
  else if (try_calm >= 0.0) { /* the same polling loop goes on */
    calm = try_calm;
    first = 0;
  }
  for (;; first = 0) {
    int stuck = 0, flag = 0;
    double release = 0.0;
    if (look(ch, first)) {
      outcome = 3; /* a log lost messages: they are not known, for good */
      break;
    }
    if (rp_match_decide(peers, rp_g.size, rp_g.rank, lookahead, &who,
                        &stuck, &release) == RP_MATCH_TAKE) {
      outcome = 1;
      break;
    }
    if (wait && release > me->release) { /* for the others' decisions */
      uint64_t v = me->v1 + 1;
      __atomic_store_n(&me->v0, v, __ATOMIC_RELAXED);
      __atomic_thread_fence(__ATOMIC_RELEASE);
      me->release = release;
      __atomic_store_n(&me->v1, v, __ATOMIC_RELEASE);
    }
    double now = rp_host_seconds(), limit = rp_g.cfg.wildcard_timeout;
    if (wait && !stall_said && rp_g.cfg.wildcard_stall > 0.0 &&
        now - t0 > rp_g.cfg.wildcard_stall) {
      stall_said = 1;
      stall_notice(now - t0);
    }
    for (int w = 0; stuck && w < rp_g.size; w++)
      if (peers[w].state == RP_PEER_SEND && peers[w].on == rp_g.rank &&
          peers[w].sent > RP_MATCH_EAGER && !peers[w].active &&
          limit > RP_MATCH_RENDEZVOUS)
        limit = RP_MATCH_RENDEZVOUS; /* most likely waiting for us */
    if (!stuck)
      calm = now;
    else if (now - calm > limit) {
      for (int w = 0; w < rp_g.size; w++) /* the earliest message known */
        if (peers[w].member && peers[w].has &&
            (who < 0 || peers[w].arrival < peers[who].arrival))
          who = w;
      if (who >= 0) {
        outcome = 2;
        break;
      }
    }
    if (!wait)
      break;
    /* let the MPI progress (senders' rendezvous) and the others run */
    RP_UNLOCKED(PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag,
                            MPI_STATUS_IGNORE));
    sched_yield();
  }
  memcpy(rp_extrap_tab, extrap, sizeof extrap);
  if (wait) {
    rp_g.wild.wait_s += rp_host_seconds() - t0;
    rp_publish(RP_PEER_IN, -1, -1, 0);
  }
  try_calm = !wait && outcome == 0 ? calm : -1.0;
  if (outcome == 0)
    return 0;
  if (outcome == 3) {
    rp_match_real("a sender had more messages under way to this rank than "
                  "its log keeps");
    return -1;
  }
  if (outcome == 2) {
    rp_g.wild.timeouts++;
    rp_report_flag("wildcard-timeout", "%ld wildcard receive(s) took the "
                   "earliest message known without proof that no earlier "
                   "one could come, after REVPROF_WILDCARD_TIMEOUT=%g s "
                   "without progress (%g s when a rank that could was "
                   "inside a blocking send to this one, most likely "
                   "waiting for its receive): they may follow the host's "
                   "order", rp_g.wild.timeouts, rp_g.cfg.wildcard_timeout,
                   RP_MATCH_RENDEZVOUS);
  } else
    rp_g.wild.exact++;
  for (int i = 0; i < ch->n; i++)
    if (ch->who[i] == who) {
      *pick = i;
      return 1;
    }
  return 0;
}

/* a message of a wildcard receive is there at t_send + latency(bytes) */
static double travel(int i, const double t[RP_NB], double bytes, void *ud) {
  double lat[RP_NB];
  (void)i;
  (void)ud;
  rp_cost_fast(REVPROF_FN_LATENCY, 2.0, bytes, lat);
  return t[RP_AVG] + lat[RP_AVG];
}

/* room for n sources and tags */
static int scratch(size_t n) {
  if (n <= scratch_cap)
    return 0;
  int *a = realloc(scratch_who, n * sizeof *a);
  if (a)
    scratch_who = a;
  int *b = a ? realloc(scratch_tag, n * sizeof *b) : NULL;
  if (b)
    scratch_tag = b;
  if (a == NULL || b == NULL)
    return REVPROF_ENOMEM;
  scratch_cap = n;
  return 0;
}

/* A wildcard receive or probe (tag, comm): 1 with *src, a rank of comm;
 * 0 undecided; -1 left to the MPI */
static int decide_wildcard(int tag, MPI_Comm comm, int wait, int *src) {
  rp_comm *c = rp_comm_lookup(comm);
  int pick = -1;
  if (c == NULL || c->cid < 0) {
    rp_match_real(no_id);
    return -1;
  }
  if (scratch((size_t)c->size) != 0) {
    rp_match_real("no memory for the decision");
    return -1;
  }
  for (int r = 0; r < c->size; r++) {
    scratch_who[r] = rp_comm_world(c, r);
    scratch_tag[r] = tag;
  }
  choice ch = {c->cid, c->size, scratch_who, scratch_tag, NULL, travel, NULL};
  int k = decide(&ch, comm, wait, &pick);
  if (k == 1)
    *src = pick;
  return k;
}

int rp_match_source(int source, int tag, MPI_Comm comm) {
  int src;
  if (source != MPI_ANY_SOURCE)
    return source;
  if (rp_g.pub == NULL) {
    rp_match_real_probe();
    return source;
  }
  return decide_wildcard(tag, comm, 1, &src) == 1 ? src : source;
}

int rp_match_any(int n, const int *src, const int *tags,
                 const double *known, MPI_Comm comm, rp_arrival_fn at,
                 void *ud, int wait) {
  rp_comm *c = rp_comm_lookup(comm);
  int pick = -1;
  if (rp_g.pub == NULL || c == NULL || c->cid < 0 || n < 2 ||
      scratch((size_t)n) != 0)
    return -2;
  for (int i = 0; i < n; i++) {
    int w = src[i] >= 0 && src[i] < c->size ? rp_comm_world(c, src[i]) : -1;
    for (int j = 0; j < i && w >= 0; j++)
      if (scratch_who[j] == w)
        w = -1; /* two receives from one source: not decided here */
    if (w < 0)
      return -2;
    scratch_who[i] = w;
    scratch_tag[i] = tags[i];
  }
  choice ch = {c->cid, n, scratch_who, scratch_tag, known, at, ud};
  int k = decide(&ch, comm, wait, &pick);
  return k == 1 ? pick : k == 0 ? -1 : -2;
}

int rp_match_try(int tag, MPI_Comm comm, int *src) {
  rp_comm *c;
  if (rp_g.pub == NULL || (c = rp_comm_lookup(comm)) == NULL || c->cid < 0)
    return -1;
  int k = decide_wildcard(tag, comm, 0, src);
  return k < 0 ? -2 : k;
}

void rp_match_real_probe(void) {
  rp_match_real(rp_g.cfg.wildcard_real ? "REVPROF_WILDCARD=real"
                : off_why ? off_why
                : rp_g.pub ? no_id : "the published states were not set up");
}

void rp_match_block_recv(int source, MPI_Comm comm) {
  rp_comm *c;
  if (rp_g.pub == NULL || source < 0 || (c = rp_comm_lookup(comm)) == NULL ||
      c->cid < 0)
    return;
  int w = rp_comm_world(c, source);
  if (w >= 0 && w < rp_g.size)
    rp_publish(RP_PEER_RECV, w, -1, taken_count(w));
}

void rp_match_block_send(int dest, MPI_Comm comm, double bytes) {
  rp_comm *c;
  int w = -1;
  if (dest >= 0 && (c = rp_comm_lookup(comm)) != NULL && c->cid >= 0)
    w = rp_comm_world(c, dest);
  if (w != last_sent.w)
    last_sent.valid = 0; /* this send logged no message (MPI_PROC_NULL) */
  if (w >= 0 && w < rp_g.size)
    rp_publish(RP_PEER_SEND, w, -1, bytes > 0 ? (uint64_t)bytes : 0);
}

/* ---------------------------------------------------------- rendezvous */

void rp_match_unsure(void) {
  if (rp_g.pub == NULL)
    return;
  sends_unsure = 1;
  __atomic_store_n(my_unsure, *my_unsure + 1, __ATOMIC_RELEASE);
}

/* The post of a receive from world rank w on c with tag (not a wildcard),
 * while the rule is on. */
static void post(const rp_comm *c, int w, int tag) {
  uint64_t k = ktab_next(&posted_k, w, c->cid, tag);
  if (k == UINT64_MAX) {
    rp_match_unsure();
    return;
  }
  uint64_t *n = &my_nposted[w], i = *n;
  rp_mpost *e = &my_posts[(size_t)w * pring + (i & (pring - 1))];
  __atomic_store_n(&e->s0, i + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  memcpy(e->t, rp_g.clk.now, sizeof e->t);
  e->k = k;
  e->cid = c->cid;
  e->tag = tag;
  __atomic_store_n(&e->s1, i + 1, __ATOMIC_RELEASE);
  __atomic_store_n(n, i + 1, __ATOMIC_RELEASE);
}

void rp_match_posted_slow(int source, int tag, MPI_Comm comm) {
  if (*my_unsure)
    return; /* no sender reads these posts any more */
  rp_comm *c = rp_comm_lookup(comm);
  if (c == NULL || c->cid < 0 || source == MPI_PROC_NULL)
    return; /* no message, or one no sender logs */
  if (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG || source < 0 ||
      source >= c->size) {
    rp_match_unsure();
    return;
  }
  int w = rp_comm_world(c, source);
  if (w >= 0 && w < rp_g.size)
    post(c, w, tag);
}

void rp_match_recv_slow(int source, int tag, MPI_Comm comm) {
  rp_comm *c = rp_comm_lookup(comm);
  int w;
  if (c == NULL || c->cid < 0 || tag == MPI_ANY_TAG || source >= c->size ||
      (w = rp_comm_world(c, source)) < 0 || w >= rp_g.size) {
    rp_match_posted_slow(source, tag, comm); /* the rules for the others */
    rp_match_block_recv(source, comm);
    return;
  }
  if (!*my_unsure)
    post(c, w, tag);
  rp_publish(RP_PEER_RECV, w, -1, taken_count(w));
}

void rp_match_last_sent(rp_rdv_key *key) {
  *key = last_sent;
  last_sent.valid = 0;
}

int rp_match_rendezvous(const rp_rdv_key *key, double t_post[RP_NB]) {
  if (rp_g.pub == NULL || !key->valid || sends_unsure)
    return 0;
  int w = key->w;
  if (__atomic_load_n(unsure_of(w), __ATOMIC_ACQUIRE) != 0)
    return 0; /* it posted a receive that could take messages out of order */
  uint64_t n = __atomic_load_n(&nposted_of(w)[rp_g.rank], __ATOMIC_ACQUIRE);
  uint64_t lo = n > pring ? n - pring : 0;
  for (uint64_t i = n; i-- > lo;) { /* newest first: mostly the last */
    rp_mpost *e = &posts_of(w, rp_g.rank)[i & (pring - 1)], x;
    uint64_t s1 = __atomic_load_n(&e->s1, __ATOMIC_ACQUIRE);
    memcpy(&x, e, sizeof x);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (s1 != i + 1 || __atomic_load_n(&e->s0, __ATOMIC_RELAXED) != s1)
      return 0; /* overwritten: too old to be found */
    if (x.cid == key->cid && x.tag == key->tag && x.k == key->k) {
      memcpy(t_post, x.t, sizeof x.t);
      return 1;
    }
  }
  return 0;
}

void rp_match_gone(void) {
  if (rp_g.pub)
    rp_publish(RP_PEER_GONE, -1, -1, 0);
}
