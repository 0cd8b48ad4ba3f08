/* Point-to-point piggyback of librevprof: every message carries the
 * sender's three clocks in front of the user data, either copied together
 * with small gap-free data and sent as MPI_PACKED, or through a struct
 * datatype over MPI_BOTTOM (cached); request records for non-blocking and
 * persistent operations; statuses corrected to the user's counts. */
#include "rp_p2p.h"
#include "rp_match.h"
#include "rp_sample.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ============================================================ records */

#define RP_POOL_CHUNK 64

static rp_req *free_list;    /* records ready for reuse */
static rp_req **chunks;      /* every chunk allocated, freed at shutdown */
static size_t nchunks, chunks_cap;
static rp_req **table;       /* requests the application holds */
static unsigned table_bits;  /* table has 1 << table_bits buckets */
static size_t table_count;
static rp_req *zombies;      /* freed by the application while active */

static void struct_release(rp_req *r);

static void req_reset(rp_req *r) {
  char *pack = r->pack;
  size_t cap = r->packcap;
  int heap = r->pack_heap;
  memset(r, 0, offsetof(rp_req, inl));
  r->handle = MPI_REQUEST_NULL;
  r->sreq = MPI_REQUEST_NULL;
  r->preq = MPI_REQUEST_NULL;
  r->stype = MPI_DATATYPE_NULL;
  r->utype = MPI_DATATYPE_NULL;
  r->wtype = MPI_DATATYPE_NULL;
  r->comm = MPI_COMM_NULL;
  r->shadow_new = MPI_COMM_NULL;
  r->side = MPI_COMM_NULL;
  if (heap) {
    r->pack = pack;
    r->packcap = cap;
    r->pack_heap = 1;
  } else {
    r->pack = r->inl;
    r->packcap = RP_REQ_INLINE;
  }
}

rp_req *rp_req_new(void) {
  static rp_req emergency; /* out of memory: one shared record, never freed */
  if (free_list == NULL) {
    rp_req **nc = rp_grow(chunks, &chunks_cap, nchunks + 1, sizeof *nc);
    rp_req *c = nc ? calloc(RP_POOL_CHUNK, sizeof *c) : NULL;
    if (nc)
      chunks = nc;
    if (c == NULL) {
      static int warned;
      if (!warned++)
        rp_warn("out of memory for request records");
      rp_report_flag("out-of-memory", "out of memory for request records; "
                     "%d operation(s) shared one record", warned);
      struct_release(&emergency);
      req_reset(&emergency);
      emergency.blocking = 1;
      return &emergency;
    }
    chunks[nchunks++] = c;
    for (int i = 0; i < RP_POOL_CHUNK; i++) {
      c[i].pack = c[i].inl;
      c[i].packcap = RP_REQ_INLINE;
      c[i].next = free_list;
      free_list = &c[i];
    }
  }
  rp_req *r = free_list;
  free_list = r->next;
  req_reset(r);
  return r;
}

static void table_remove(rp_req *r);

static void req_release(rp_req *r) {
  if (r == NULL || r->blocking)
    return;
  if (r->partner) { /* the send half of an MPI_Isendrecv */
    req_release(r->partner);
    r->partner = NULL;
  }
  if (r->preq != MPI_REQUEST_NULL) /* inactive: the application's is too */
    PMPI_Request_free(&r->preq);
  table_remove(r); /* never on the free list and in the table at once */
  struct_release(r);
  free(r->nbr_in); /* a neighbourhood exchange never completed */
  r->nbr_in = NULL;
  if (r->kind == RP_REQ_PSEND && r->sreq != MPI_REQUEST_NULL)
    RP_UNLOCKED(PMPI_Wait(&r->sreq, MPI_STATUS_IGNORE)); /* clocks in r */
  r->next = free_list;
  free_list = r;
}

static size_t bucket_of(MPI_Request h) {
  return (size_t)((rp_bits_req(h) * 0x9E3779B97F4A7C15ull) >>
                  (64 - table_bits));
}

static int table_grow(void) {
  unsigned bits = table_bits ? table_bits + 1 : 10;
  rp_req **nt = calloc((size_t)1 << bits, sizeof *nt);
  if (nt == NULL)
    return REVPROF_ENOMEM;
  rp_req **old = table;
  size_t oldn = table_bits ? (size_t)1 << table_bits : 0;
  table = nt;
  table_bits = bits;
  for (size_t i = 0; i < oldn; i++)
    for (rp_req *r = old[i], *nx; r; r = nx) {
      nx = r->next;
      size_t b = bucket_of(r->handle);
      r->next = table[b];
      table[b] = r;
    }
  free(old);
  return 0;
}

static int table_insert(rp_req *r) {
  if (r->in_table)
    return 0;
  if ((table_bits == 0 || table_count >= ((size_t)1 << table_bits)) &&
      table_grow() != 0 && table_bits == 0)
    return REVPROF_ENOMEM;
  size_t b = bucket_of(r->handle);
  r->next = table[b];
  table[b] = r;
  r->in_table = 1;
  table_count++;
  return 0;
}

static void table_remove(rp_req *r) {
  if (!r->in_table)
    return;
  rp_req **pp = &table[bucket_of(r->handle)];
  while (*pp && *pp != r)
    pp = &(*pp)->next;
  if (*pp)
    *pp = r->next;
  r->in_table = 0;
  r->next = NULL;
  table_count--;
}

/* With threads (rp_g.mt) a handle shared by several records is taken by
 * the thread that filed the record where it can be. */
static rp_req *find_oldest(MPI_Request h, int unclaimed) {
  rp_req *found = NULL, *mine = NULL;
  if (table_count == 0 || h == MPI_REQUEST_NULL)
    return NULL;
  for (rp_req *r = table[bucket_of(h)]; r; r = r->next) /* newest first */
    if (r->handle == h && !(unclaimed && r->claimed)) {
      found = r;
      if (r->owner == &rp_t)
        mine = r;
    }
  return rp_g.mt && mine ? mine : found;
}

/* With threads, records claimed by a completion under way are another
 * thread's: MPI may have given their handle to a new request already. */
rp_req *rp_req_find(MPI_Request h) { return find_oldest(h, rp_g.mt); }

rp_req *rp_req_take(MPI_Request h) {
  return rp_g.mt ? rp_req_claim(h) : find_oldest(h, 0);
}

void rp_reqs_unclaim(rp_req **recs, int n) {
  for (int i = 0; rp_g.mt && recs && i < n; i++)
    if (recs[i])
      recs[i]->claimed = 0;
}

rp_req *rp_req_claim(MPI_Request h) {
  rp_req *r = find_oldest(h, 1);
  if (r)
    r->claimed = 1;
  return r;
}

void rp_req_post(rp_req *r, int rc, MPI_Request *request) {
  if (r == NULL)
    return;
  if (r->kind == RP_REQ_SEND) /* an MPI_Isend's own time, as rp_send_end */
    rp_sample_sent((rp_wid)r->wid, r->fn);
  if (rc != MPI_SUCCESS || *request == MPI_REQUEST_NULL ||
      (r->kind <= RP_REQ_RECV && r->enc == RP_ENC_NATIVE && !r->partner)) {
    if (r->kind == RP_REQ_COLL && r->sreq != MPI_REQUEST_NULL)
      RP_UNLOCKED(PMPI_Wait(&r->sreq, MPI_STATUS_IGNORE)); /* others too */
    req_release(r); /* nothing to do at completion */
    return;
  }
  r->handle = *request;
  r->owner = &rp_t;
  if (table_insert(r) != 0) {
    static int warned;
    if (!warned++)
      rp_warn("out of memory for request records; some receives lose "
              "their piggyback");
    rp_report_flag("out-of-memory", "out of memory for request records; "
                   "%d receive(s) lost their piggyback", warned);
    req_release(r);
  }
}

/* ========================================================= struct types */

#define RP_SCACHE 128

/* A committed struct type shared by the cache and the operations that use
 * it: freed when the last reference goes. An operation in flight (a pending
 * request, or the blocking call under way, e.g. both halves of one
 * MPI_Sendrecv that hash to the same cache slot) thus never sees its type
 * freed under it when the cache evicts the entry or the user frees the
 * type it was built on. */
typedef struct rp_stype {
  MPI_Datatype t;
  int refs;
} rp_stype;

/* Committed struct types {RP_PB_DOUBLES doubles at slot (sample mode: one
 * flag, rp_req.sflag), count x type at buf} over MPI_BOTTOM, by (buf,
 * count, type, slot). Entries whose user
 * type is freed are dropped in the MPI_Type_free wrapper, since handles are
 * reused. */
static struct {
  const void *buf;
  int count;
  MPI_Datatype type;
  const void *slot;
  rp_stype *h; /* NULL: slot unused */
} scache[RP_SCACHE];

static void stype_unref(rp_stype *h) {
  if (--h->refs == 0) {
    PMPI_Type_free(&h->t);
    free(h);
  }
}

/* Drops the struct type r holds (a reference or its own type). Blocking
 * records call it at their next use: their previous call has ended. */
static void struct_release(rp_req *r) {
  if (r->sref) {
    stype_unref(r->sref);
    r->sref = NULL;
  }
  if (r->owns_type && r->stype != MPI_DATATYPE_NULL)
    PMPI_Type_free(&r->stype);
  r->owns_type = 0;
  r->stype = MPI_DATATYPE_NULL;
}

static int make_struct(const void *buf, int count, MPI_Datatype type,
                       const void *slot, MPI_Datatype *out) {
  int lens[2] = {rp_g.clockless ? RP_SFLAG_BYTES : RP_PB_DOUBLES, count};
  MPI_Aint disp[2];
  MPI_Datatype types[2] = {rp_g.clockless ? MPI_BYTE : MPI_DOUBLE, type};
  if (PMPI_Get_address(slot, &disp[0]) != MPI_SUCCESS ||
      PMPI_Get_address(buf, &disp[1]) != MPI_SUCCESS ||
      PMPI_Type_create_struct(2, lens, disp, types, out) != MPI_SUCCESS)
    return REVPROF_EMPI;
  if (PMPI_Type_commit(out) != MPI_SUCCESS) {
    PMPI_Type_free(out);
    return REVPROF_EMPI;
  }
  return 0;
}

/* Index of the cache slot for (buf, count, type, slot). */
static unsigned scache_slot(const void *buf, int count, MPI_Datatype type,
                            const void *slot) {
  uintptr_t h = (uintptr_t)buf * 31u + (uintptr_t)count * 7u +
                (uintptr_t)slot;
  uint64_t tb = 0;
  memcpy(&tb, &type, sizeof type < sizeof tb ? sizeof type : sizeof tb);
  h ^= (uintptr_t)(tb * 0x9E3779B97F4A7C15ull);
  return (unsigned)((h * 0x9E3779B97F4A7C15ull) >> 57) & (RP_SCACHE - 1);
}

/* Where r's piggyback is on the wire when it goes by a struct type. */
static void *wire_slot(rp_req *r) {
  return rp_g.clockless ? (void *)r->sflag : (void *)r->pb;
}

/* Struct type for r (slot wire_slot(r)), held by r until struct_release:
 * cached (r takes a reference) unless r is persistent (r owns it). */
static int struct_for(rp_req *r, const void *buf, int count,
                      MPI_Datatype type) {
  const void *slot = wire_slot(r);
  struct_release(r);
  if (r->persistent) {
    if (make_struct(buf, count, type, slot, &r->stype) != 0)
      return REVPROF_EMPI;
    r->owns_type = 1;
    return 0;
  }
  unsigned s = scache_slot(buf, count, type, slot);
  if (scache[s].h && scache[s].buf == buf && scache[s].count == count &&
      scache[s].type == type && scache[s].slot == slot) {
    r->sref = scache[s].h;
    r->sref->refs++;
    r->stype = r->sref->t;
    return 0;
  }
  MPI_Datatype t;
  if (make_struct(buf, count, type, slot, &t) != 0)
    return REVPROF_EMPI;
  rp_stype *h = malloc(sizeof *h);
  if (h == NULL) { /* uncached: r's own */
    r->stype = t;
    r->owns_type = 1;
    return 0;
  }
  h->t = t;
  h->refs = 2; /* the cache and r */
  if (scache[s].h)
    stype_unref(scache[s].h); /* freed once its last user is done */
  scache[s].buf = buf;
  scache[s].count = count;
  scache[s].type = type;
  scache[s].slot = slot;
  scache[s].h = h;
  r->sref = h;
  r->stype = t;
  return 0;
}

static void scache_purge(MPI_Datatype type, int all) {
  for (int s = 0; s < RP_SCACHE; s++)
    if (scache[s].h && (all || scache[s].type == type)) {
      stype_unref(scache[s].h);
      scache[s].h = NULL;
    }
}

/* ======================================================== encodings */

static int ensure_pack(rp_req *r, size_t need) {
  if (need <= r->packcap)
    return 0;
  if (r->blocking)
    return REVPROF_ERANGE; /* scratch is sized for REVPROF_PACK_MAX */
  char *p = malloc(need);
  if (p == NULL)
    return REVPROF_ENOMEM;
  if (r->pack_heap)
    free(r->pack);
  r->pack = p;
  r->packcap = need;
  r->pack_heap = 1;
  return 0;
}

/* Chooses how the message travels; wbuf/wcount/wtype are what PMPI gets. */
static void encode(rp_req *r, const void *buf, int count, MPI_Datatype type,
                   int peer, MPI_Comm comm) {
  r->ubuf = (void *)buf;
  r->ucount = count;
  r->utype = type;
  r->enc = RP_ENC_NATIVE;
  r->wbuf = (void *)buf;
  r->wcount = count;
  r->wtype = type;
  r->ubytes = 0.0;
  /* no message (or MPI reports the error as usual), or a peer in another
     job: the type is not even looked at */
  int none = peer == MPI_PROC_NULL || count < 0;
  int foreign = !none && rp_g.dynamic && rp_comm_foreign(comm);
  rp_tinfo ti = {0.0, 0};
  if (!none && !foreign)
    ti = rp_type_info_fast(type);
  double bytes = none ? 0.0 : (double)count * ti.size;
  rp_pb_way way = rp_pb_choose(none, foreign, bytes, ti.plain,
                               rp_g.fast_copy, rp_g.cfg.pack_max);
  if (way == RP_PB_COPY && ensure_pack(r, (size_t)bytes + rp_g.pbw) != 0)
    way = rp_pb_choose(0, 0, bytes, ti.plain, 0, rp_g.cfg.pack_max);
  if (way == RP_PB_NONE)
    return;
  r->ubytes = bytes;
  if (way == RP_PB_COPY) {
    r->enc = RP_ENC_PACK;
    r->wbuf = r->pack;
    r->wcount = (int)bytes + rp_g.pbw;
    r->wtype = MPI_PACKED;
  } else if (way == RP_PB_CLOCKS) {
    struct_release(r);
    r->enc = RP_ENC_STRUCT;
    r->wbuf = wire_slot(r);
    r->wcount = rp_g.clockless ? RP_SFLAG_BYTES : RP_PB_DOUBLES;
    r->wtype = rp_g.clockless ? MPI_BYTE : MPI_DOUBLE;
  } else if (struct_for(r, buf, count, type) == 0) {
    r->enc = RP_ENC_STRUCT;
    r->wbuf = MPI_BOTTOM;
    r->wcount = 1;
    r->wtype = r->stype;
  } else {
    static int warned;
    if (!warned++)
      rp_warn("cannot build a piggyback datatype; this message goes "
              "without clocks and its receiver will be confused");
    rp_report_flag("no-piggyback-type", "%d message(s) went without clocks "
                   "(no piggyback datatype could be built)", warned);
  }
}

/* A standard non-blocking send of the model's eager limit or more: its
 * message, for sent()'s rendezvous rule; one it cannot cost (no gap row to
 * complete sends by, a message not counted) is counted at once. */
static void rdv_std_request(rp_req *r) {
  rp_match_last_sent(&r->rdv);
  if (!rp_g.p2p_overlap || !r->rdv.valid) {
    r->rdv.valid = 0;
    rp_g.rdv_std_missed++;
  }
}

/* Send rule and piggyback: t_send = now, now += T_fn(d). */
static void send_stamp(rp_req *r) {
  if (r->enc == RP_ENC_NATIVE)
    return;
  rp_t.cur_bytes += r->ubytes;
  if (rp_g.clockless) { /* sample mode: [flag | data] */
    memset(r->sflag, 0, sizeof r->sflag);
    r->sflag[0] = rp_sample_flag(r->ubytes, r->peer_spec, r->tag_spec,
                                 r->comm);
    /* its send start, for MPI_Startall's per-request time */
    r->pb[RP_PB_STAMP] = r->sflag[0] == RP_SFLAG_YES ? rp_t.sample_t0 : -1.0;
    r->pb[RP_PB_META] = rp_pb_meta(rp_g.rank, r->ubytes);
    if (r->enc == RP_ENC_PACK) {
      memcpy(r->pack, r->sflag, RP_SFLAG_BYTES);
      if (r->ubytes > 0)
        memcpy(r->pack + RP_SFLAG_BYTES, r->ubuf, (size_t)r->ubytes);
    }
    return;
  }
  rp_send_clock(r->fn, r->ubytes, r->pb, r->t_mark);
  r->pb[RP_PB_META] = rp_pb_meta(rp_g.rank, r->ubytes);
  rp_match_log(r->pb, r->ubytes, r->peer_spec, r->tag_spec, r->comm);
  if (RP_UNLIKELY(rp_g.pub != NULL) && rp_w_sync_request((rp_wid)r->wid))
    rp_match_last_sent(&r->rdv); /* for sent(), the rendezvous rule */
  else if (RP_UNLIKELY(r->ubytes >= rp_g.eager_limit) &&
           rp_w_std_request((rp_wid)r->wid))
    rdv_std_request(r);
  if (r->enc == RP_ENC_PACK) {
    memcpy(r->pack, r->pb, RP_PB_BYTES);
    if (r->ubytes > 0)
      memcpy(r->pack + RP_PB_BYTES, r->ubuf, (size_t)r->ubytes);
  }
}

static rp_req *prepare(rp_req *r, int blocking_send, rp_wid w,
                       revprof_fn fn, int kind) {
  if (r == NULL) {
    r = blocking_send ? &rp_th()->bsend : &rp_th()->brecv;
    r->unpacked = 0;
  }
  r->wid = w;
  r->fn = fn;
  r->kind = kind;
  r->active = 1;
  memcpy(r->t_mark, rp_g.clk.now, sizeof r->t_mark); /* a receive's post */
  return r;
}

rp_req *rp_send_begin_slow(rp_req *r, rp_wid w, revprof_fn fn,
                           const void *buf, int count, MPI_Datatype type,
                           int dest, int tag, MPI_Comm comm) {
  r = prepare(r, 1, w, fn, RP_REQ_SEND);
  r->comm = comm;
  r->peer_spec = dest;
  r->tag_spec = tag;
  encode(r, buf, count, type, dest, comm);
  send_stamp(r);
  return r;
}

rp_req *rp_send_init(rp_wid w, revprof_fn fn, const void *buf, int count,
                     MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  rp_req *r = rp_req_new();
  if (r == NULL)
    return NULL;
  r->persistent = 1;
  r = prepare(r, 1, w, fn, RP_REQ_SEND);
  r->active = 0;
  r->comm = comm;
  r->peer_spec = dest;
  r->tag_spec = tag;
  encode(r, buf, count, type, dest, comm);
  return r;
}

/* ===================================== deferred wildcard receives */

/* A non-blocking receive from MPI_ANY_SOURCE (MPI_Irecv) is not posted to
 * the MPI, which would match it in the host's order: the application gets
 * a generalized request, and the receive waits in posting order (the
 * queue rp_g.wildq) until a completion call asks for it. There its message
 * is decided in predicted time as a blocking receive's is (rp_match.c),
 * received from its source, and the generalized request completed with
 * the real status. MPI's order among receives stays: a receive or probe
 * posted later on the communicator with a tag that may match first takes
 * the pending ones' messages where already proven (rp_match_try), else
 * posts them to the MPI from MPI_ANY_SOURCE before itself (counted, and
 * the report says so), as it does for the rest of that communicator's
 * queue. */

static double status_bytes(const MPI_Status *st);

static int tags_meet(int a, int b) {
  return a == MPI_ANY_TAG || b == MPI_ANY_TAG || a == b;
}

const char rp_held_why[] = "a receive posted before it on the communicator "
                           "was still with the MPI";

int rp_recvs_held(int tag, MPI_Comm comm) {
  for (size_t b = 0; table_count && b < (size_t)1 << table_bits; b++)
    for (const rp_req *q = table[b]; q; q = q->next)
      if (q->kind == RP_REQ_RECV && q->active && q->comm == comm &&
          (q->dstate == RP_DEF_NONE || q->dstate == RP_DEF_INNER) &&
          q->enc != RP_ENC_NATIVE && tags_meet(q->tag_spec, tag))
        return 1;
  return 0;
}

/* Why r cannot be deferred (the report's words), or NULL. A receive
 * posted earlier on the communicator that the MPI holds and that may
 * match the same messages would take them first in the MPI's order. */
static const char *defer_refused(const rp_req *r) {
  rp_comm *c;
  if (r->enc == RP_ENC_NATIVE || r->persistent || r->mpi_packed ||
      r->sendrecv)
    return "persistent receives (MPI_Recv_init), MPI_Isendrecv and "
           "receives into types MPI packs are matched by the MPI";
  if ((c = rp_comm_lookup(r->comm)) == NULL || c->cid < 0 ||
      (rp_g.dynamic && rp_comm_foreign(r->comm)))
    return "a communicator without an id";
  if (rp_recvs_held(r->tag_spec, r->comm))
    return rp_held_why;
  return NULL;
}

static int defer_query(void *extra, MPI_Status *st) {
  *st = ((const rp_req *)extra)->dst;
  return MPI_SUCCESS;
}
static int defer_free(void *extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int defer_cancel(void *extra, int complete) {
  (void)extra; /* MPI_Cancel's wrapper did the work (rp_defer_cancel) */
  (void)complete;
  return MPI_SUCCESS;
}

int rp_defer_post(rp_req *r, MPI_Request *request) {
  int rc = PMPI_Grequest_start(defer_query, defer_free, defer_cancel, r,
                               request);
  if (rc != MPI_SUCCESS) { /* as before: the MPI's order */
    r->dstate = RP_DEF_NONE;
    rp_match_real("no generalized request to defer it with");
    RP_UNLOCKED(rc = PMPI_Irecv(r->wbuf, r->wcount, r->wtype, MPI_ANY_SOURCE,
                                r->tag_spec, r->comm, request));
    return rc;
  }
  rp_req **pp = &rp_g.wildq;
  while (*pp)
    pp = &(*pp)->qnext;
  r->qnext = NULL;
  *pp = r;
  rp_g.wild_open++;
  return MPI_SUCCESS;
}

static void defer_unlink(rp_req *r) {
  rp_req **pp = &rp_g.wildq;
  while (*pp && *pp != r)
    pp = &(*pp)->qnext;
  if (*pp)
    *pp = r->qnext;
  r->qnext = NULL;
}

/* The real receive is over (its status in r->dst): the application's
 * request completes. */
static void defer_complete(rp_req *r) {
  r->dstate = RP_DEF_DONE;
  rp_g.wild_open--;
  PMPI_Grequest_complete(r->handle);
}

/* r's message is decided: from rank src of its communicator. Received
 * now, so that the next decision sees it taken. */
static void defer_receive(rp_req *r, int src) {
  int rc;
  defer_unlink(r);
  rp_match_block_recv(src, r->comm);
  RP_UNLOCKED(rc = PMPI_Recv(r->wbuf, r->wcount, r->wtype, src, r->tag_spec,
                             r->comm, &r->dst));
  r->dst.MPI_ERROR = rc;
  if (rc == MPI_SUCCESS && status_bytes(&r->dst) >= RP_PB_BYTES) {
    double pb[RP_PB_DOUBLES];
    memcpy(pb, r->enc == RP_ENC_PACK ? (const void *)r->pack : r->pb,
           RP_PB_BYTES);
    rp_match_got(pb);
  }
  if (rp_g.pub)
    rp_publish(RP_PEER_IN, -1, -1, 0);
  defer_complete(r);
}

/* r and every later pending receive of its communicator go to the MPI
 * from MPI_ANY_SOURCE, in posting order (why: counted; NULL: counted
 * already for r). */
static void defer_to_mpi(rp_req *r, const char *why) {
  MPI_Comm comm = r->comm;
  for (rp_req *q = r, *nx; q; q = nx) {
    nx = q->qnext;
    if (q->comm != comm || q->dstate != RP_DEF_PENDING)
      continue;
    defer_unlink(q);
    if (q != r || why)
      rp_match_real(why ? why : "a wildcard receive posted before it on the "
                                "communicator took the MPI's order");
    int rc;
    RP_UNLOCKED(rc = PMPI_Irecv(q->wbuf, q->wcount, q->wtype, MPI_ANY_SOURCE,
                                q->tag_spec, comm, &q->inner));
    if (rc == MPI_SUCCESS)
      q->dstate = RP_DEF_INNER;
    else {
      memset(&q->dst, 0, sizeof q->dst);
      q->dst.MPI_SOURCE = MPI_ANY_SOURCE;
      q->dst.MPI_TAG = MPI_ANY_TAG;
      q->dst.MPI_ERROR = rc;
      defer_complete(q);
    }
  }
}

/* One pending receive decided: wait for the proof (wait), else one look.
 * 1 received, 0 still undecided (left pending), -1 left to the MPI. */
static int defer_decide(rp_req *r, int wait) {
  int src = MPI_ANY_SOURCE, k;
  if (wait) {
    src = rp_match_source(MPI_ANY_SOURCE, r->tag_spec, r->comm);
    k = src == MPI_ANY_SOURCE ? -2 : 1; /* -2: rp_match_real counted it */
  } else
    k = rp_match_try(r->tag_spec, r->comm, &src);
  if (k == 1) {
    defer_receive(r, src);
    return 1;
  }
  if (k == 0)
    return 0;
  defer_to_mpi(r, k == -2 ? NULL : "matching in predicted time is off here");
  return -1;
}

/* The pending receives of r's communicator up to r, in posting order
 * (those before it match first). */
static void defer_upto(rp_req *r, int wait) {
  for (rp_req *q = rp_g.wildq, *nx; q && r->dstate == RP_DEF_PENDING;
       q = nx) {
    nx = q->qnext;
    if (q->comm == r->comm && q->dstate == RP_DEF_PENDING &&
        defer_decide(q, wait) == 0)
      return; /* the ones after it wait too */
  }
}

void rp_defer_flush_slow(int tag, MPI_Comm comm) {
  for (rp_req *q = rp_g.wildq, *nx; q; q = nx) {
    nx = q->qnext;
    if (q->comm != comm || !tags_meet(q->tag_spec, tag))
      continue;
    int src, k = rp_match_try(q->tag_spec, comm, &src);
    if (k == 1) {
      defer_receive(q, src);
      continue;
    }
    defer_to_mpi(q, k == -2 ? NULL
                 : "another receive or probe on the communicator came "
                   "before its message could be proven first");
    return; /* the rest of comm's queue went with it */
  }
}

/* Every pending receive (of every communicator) that is not one of the n
 * records: decided where proven, else given to the MPI. Before a call that
 * may block on other ranks: one of them may wait for such a receive to be
 * matched (a synchronous send, a rendezvous) before it does what this
 * rank's call waits for. */
static int defer_mine(const rp_req *q, rp_req **recs, int n) {
  for (int i = 0; recs && i < n; i++)
    if (recs[i] == q)
      return 1;
  return 0;
}

static void defer_flush_others(rp_req **recs, int n) {
  for (rp_req *q = rp_g.wildq, *nx; q; q = nx) {
    nx = q->qnext;
    if (q->dstate != RP_DEF_PENDING || defer_mine(q, recs, n))
      continue;
    /* one of the call's own posted before it on its communicator matches
       first: it is decided by the call, and this one stays behind it (given
       to the MPI now, it could take that one's message) */
    int behind = 0;
    for (const rp_req *e = rp_g.wildq; e != q && !behind; e = e->qnext)
      behind = e->comm == q->comm && defer_mine(e, recs, n);
    if (behind)
      continue;
    int src, k = rp_match_try(q->tag_spec, q->comm, &src);
    if (k == 1)
      defer_receive(q, src);
    else
      defer_to_mpi(q, k == -2 ? NULL
                   : "a call that may wait for other ranks came before its "
                     "message could be proven first");
    nx = rp_g.wildq; /* the queue changed: from its head again */
  }
}

static void defer_block_all(void) { defer_flush_others(NULL, 0); }

void rp_defer_send_slow(rp_wid w, int count, MPI_Datatype type) {
  double bytes = (double)count * rp_type_info_fast(type).size;
  if (bytes > RP_DEFER_EAGER || strncmp(rp_wrap_name[w], "MPI_Ssend", 9) == 0)
    defer_flush_others(NULL, 0);
}

/* the wrappers that never wait for other ranks, or see to it themselves
 * (sends by size, completions by their arrays) */
static void defer_safe_init(void) {
  static const char *const safe[] = {
      "MPI_Send", "MPI_Bsend", "MPI_Rsend", "MPI_Ssend", "MPI_Isend",
      "MPI_Ibsend", "MPI_Irsend", "MPI_Issend", "MPI_Irecv", "MPI_Wait",
      "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test",
      "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Request_get_status",
      "MPI_Iprobe", "MPI_Improbe", "MPI_Imrecv", "MPI_Mrecv", "MPI_Cancel",
      "MPI_Request_free", "MPI_Wtime", "MPI_Wtick", "MPI_Send_init",
      "MPI_Bsend_init", "MPI_Rsend_init", "MPI_Ssend_init", "MPI_Recv_init",
      "MPI_Start", "MPI_Startall"};
  for (int w = 0; w < RP_W_COUNT; w++) {
    const char *name = rp_wrap_name[w];
    size_t len = strlen(name);
    if (len > 2 && strcmp(name + len - 2, "_c") == 0)
      len -= 2; /* the large-count twin */
    rp_g.defer_safe[w] = 0;
    for (size_t i = 0; i < sizeof safe / sizeof *safe; i++)
      if (strlen(safe[i]) == len && strncmp(safe[i], name, len) == 0)
        rp_g.defer_safe[w] = 1;
  }
  rp_g.defer_block = defer_block_all;
}

void rp_defer_ready_slow(rp_req **recs, int n, int wait) {
  if (wait)
    defer_flush_others(recs, n);
  for (int i = 0; i < n; i++) {
    rp_req *r = recs[i];
    if (r == NULL || r->dstate == RP_DEF_NONE || r->dstate == RP_DEF_DONE)
      continue;
    if (r->dstate == RP_DEF_PENDING)
      defer_upto(r, wait);
    if (r->dstate == RP_DEF_INNER) {
      int f = 1;
      if (wait)
        RP_UNLOCKED(PMPI_Wait(&r->inner, &r->dst));
      else
        RP_UNLOCKED(PMPI_Test(&r->inner, &f, &r->dst));
      if (f) {
        r->dst.MPI_ERROR = MPI_SUCCESS;
        defer_complete(r);
      }
    }
  }
}

void rp_wait_publish_slow(rp_req **recs, int n, const MPI_Request reqs[]) {
  for (int i = 0; i < n; i++) {
    const rp_req *r = recs[i];
    if (r != NULL && reqs[i] != MPI_REQUEST_NULL && r->kind == RP_REQ_RECV &&
        r->active && !r->unpacked && !r->sendrecv && !r->blocking &&
        r->enc != RP_ENC_NATIVE && r->dstate == RP_DEF_NONE &&
        r->peer_spec >= 0 && !r->comm_gone) {
      rp_match_block_recv(r->peer_spec, r->comm);
      return;
    }
  }
}

void rp_defer_cancel(rp_req *r) {
  if (r->dstate == RP_DEF_PENDING) {
    defer_unlink(r);
    memset(&r->dst, 0, sizeof r->dst);
    r->dst.MPI_SOURCE = MPI_ANY_SOURCE;
    r->dst.MPI_TAG = MPI_ANY_TAG;
    PMPI_Status_set_elements(&r->dst, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(&r->dst, 1);
    defer_complete(r);
  } else if (r->dstate == RP_DEF_INNER) {
    PMPI_Cancel(&r->inner);
    RP_UNLOCKED(PMPI_Wait(&r->inner, &r->dst));
    defer_complete(r);
  }
}

/* Whether any of n records is a deferred receive not completed yet. */
static int defer_open(rp_req **recs, int n) {
  for (int i = 0; rp_g.wild_open > 0 && recs && i < n; i++)
    if (recs[i] && (recs[i]->dstate == RP_DEF_PENDING ||
                    recs[i]->dstate == RP_DEF_INNER))
      return 1;
  return 0;
}

/* A non-blocking receive posted (MPI_Irecv, MPI_Start): with the model's
 * "post" row its rank spends T_post(d) on it, d the bytes it can take;
 * its t_mark (when it was posted) stays the clock before. */
static void posted(const rp_req *r) {
  if (!rp_g.recv_post || r->enc == RP_ENC_NATIVE)
    return;
  double cost[RP_NB];
  rp_cost_fast(REVPROF_FN_POST, 2.0, r->ubytes, cost);
  rp_clock_local(&rp_g.clk, cost);
}

rp_req *rp_recv_begin_slow(rp_req *r, rp_wid w, revprof_fn fn, void *buf,
                           int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm) {
  int nonblocking = r != NULL && !r->persistent;
  r = prepare(r, 0, w, fn, RP_REQ_RECV);
  r->peer_spec = source;
  r->tag_spec = tag;
  r->comm = comm;
  encode(r, buf, count, type, source, comm);
  if (nonblocking) {
    rp_match_posted(source, tag, comm);
    posted(r);
  }
  if (source == MPI_ANY_SOURCE && !r->blocking &&
      rp_g.cfg.mode == RP_MODE_PREDICT) {
    const char *why = rp_g.pub ? defer_refused(r) : NULL;
    if (rp_g.pub && why == NULL) {
      r->dstate = RP_DEF_PENDING; /* rp_defer_post, in place of PMPI */
      return r;
    }
    if (why)
      rp_match_real(why);
    else
      rp_match_real_probe(); /* why matching in predicted time is off */
  }
  rp_defer_flush(tag, comm);
  return r;
}

rp_req *rp_recv_init(rp_wid w, revprof_fn fn, void *buf, int count,
                     MPI_Datatype type, int source, int tag, MPI_Comm comm) {
  rp_req *r = rp_req_new();
  if (r == NULL)
    return NULL;
  r->persistent = 1;
  r = rp_recv_begin(r, w, fn, buf, count, type, source, tag, comm);
  r->active = 0;
  return r;
}

/* ======================================================== completion */

/* Bytes a status says arrived. */
static double status_bytes(const MPI_Status *st) {
  int n = 0;
  if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED)
    return (double)n;
  MPI_Count c = 0;
  PMPI_Get_elements_x(st, MPI_BYTE, &c);
  return (double)c;
}

static int cancelled(const MPI_Status *st) {
  int c = 0;
  PMPI_Test_cancelled(st, &c);
  return c;
}

void rp_status_unpiggyback(MPI_Status *st, MPI_Comm comm) {
  if (st == MPI_STATUS_IGNORE || st->MPI_SOURCE == MPI_PROC_NULL ||
      (rp_g.dynamic && rp_comm_foreign(comm)))
    return;
  double n = status_bytes(st);
  if (n >= rp_g.pbw)
    PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)(n - rp_g.pbw));
}

static void no_piggyback(void) {
  static int warned;
  if (!warned++)
    rp_warn("a message arrived without piggyback (was the sender running "
            "without revprof?); its clocks are ignored");
  rp_report_flag("no-piggyback", "%d message(s) arrived without "
                 "piggyback; their senders' clocks were ignored", warned);
}

/* MPI_Isendrecv's receive half in sample mode, whose status MPICH 4.0 may
 * leave without a count (see isendrecv_status): its whole pack buffer is
 * delivered, since the bytes past the message are the user buffer's own,
 * copied there when it was posted (rp_sendrecv). */
static int whole_pack(const rp_req *r) {
  return r->sendrecv && !r->blocking && r->enc == RP_ENC_PACK;
}

/* Moves data and piggyback out of the pack buffer once; returns the user
 * bytes received, or -1 when the message had no piggyback. In sample mode
 * the piggyback is the flag byte, and a sampled message's stamp is
 * received after it (rp_sample_flag_in). */
static double deliver(rp_req *r, MPI_Status *st) {
  double n = status_bytes(st), w = rp_g.pbw, put = n;
  unsigned char f = 0;
  if (rp_g.clockless) {
    f = r->enc == RP_ENC_PACK ? (unsigned char)r->pack[0] : r->sflag[0];
    if (whole_pack(r)) {
      put = (double)r->wcount;
      if (n < w || n > put)
        n = put; /* (the count MPICH 4.0 did not set) */
    }
    if (f != RP_SFLAG_NO && f != RP_SFLAG_YES)
      n = -1.0; /* not revprof's */
  }
  if (n < w) {
    no_piggyback();
    return -1.0;
  }
  int first = !r->unpacked;
  if (r->enc == RP_ENC_PACK && first) {
    if (!rp_g.clockless)
      memcpy(r->pb, r->pack, RP_PB_BYTES);
    if (put > w && !r->mpi_packed)
      memcpy(r->ubuf, r->pack + (int)w, (size_t)(put - w));
    else if (put > w) { /* packed by MPI: the elements that came */
      int tsz = 0, pos = (int)w;
      PMPI_Type_size(r->utype, &tsz);
      int k = tsz > 0 ? (int)((put - w) / tsz) : 0;
      PMPI_Unpack(r->pack, (int)put, &pos, r->ubuf,
                  k < r->ucount ? k : r->ucount, r->utype,
                  r->comm_gone ? MPI_COMM_SELF : r->comm);
    }
  }
  r->unpacked = 1;
  if (!rp_g.clockless)
    rp_match_got(r->pb);
  else if (first)
    rp_sample_flag_in(f, n - w, r->comm_gone ? MPI_COMM_NULL : r->comm,
                      r->comm_gone ? r->sshadow : MPI_COMM_NULL, st);
  return n - w;
}

/* ---------------------------------------------- completions that overlap */

void rp_batch_begin(void) {
  rp_thr *t = rp_th();
  t->batching = 1;
  t->narr = 0;
  t->nsent = 0;
  t->nserial = 0;
}

void rp_batch_settle(void) {
  rp_thr *t = rp_th();
  t->batching = 0;
  if (t->narr > 0) {
    rp_t.cur_wait +=
        rp_clock_complete(&rp_g.clk, t->arr, (int)t->narr, &rp_g.rx);
    for (size_t i = 0; rp_g.tracing && i < t->narr; i++)
      rp_trace_message(t->arr[i].src, t->arr[i].t_send, t->arr[i].done,
                       t->arr[i].tag, t->arr[i].bytes);
  }
  if (t->nsent > 0)
    rp_clock_sent(&rp_g.clk, t->sent);
  if (t->nserial > 1 && rp_g.model != NULL) { /* a model that lacks the rows
      (compensate and sample modes cost no messages: nothing to say) */
    rp_g.serial_calls += 1.0;
    rp_report_flag("no-overlap-rows",
                   "the model has no 'gap' row (made before format 2): %.0f "
                   "completion call(s) charged their receives one after "
                   "another, not overlapped; re-characterize",
                   rp_g.serial_calls);
  }
  t->narr = 0;
  t->nsent = 0;
  t->nserial = 0;
}

/* When a receive's message of un bytes sent at pb is there (at), and its
 * latency (lat): rp_arrival_at with the model's rows. */
static void arrival_of(const rp_req *r, const double *pb, double un,
                       double lat[RP_NB], double at[RP_NB]) {
  double late[RP_NB];
  rp_cost_fast(REVPROF_FN_LATENCY, 2.0, un, lat);
  rp_cost_fast(r->fn, 2.0, un, late);
  rp_arrival_at(pb, lat, r->t_mark, late, at);
}

/* A message that travelled while this rank was sending (rp_exchanging) is
 * one of an exchange (a halo), and costs more than alone:
 * - REVPROF_CONTENTION=epoch: its communicator's members send at once, so
 *   its bytes drain at their shared rate (rp_load_extra at p = the
 *   group's size); its travel, lat, and its time on the endpoint grow by
 *   the extra;
 * - REVPROF_EXCHANGE=sendrecv, from the model's eager limit on, with its
 *   MPI_Sendrecv row, and from another rank: its transfer is a
 *   rendezvous that each rank of the pair serves while serving its own,
 *   so its travel is no shorter than that row (an exchange of one message
 *   each way) less the receiver's own cost o(d): a lone exchange then
 *   ends T_Sendrecv(d) after it began.
 * It is then there at max(at, t_send + lat): rp_arrival_at's max(travel,
 * late post) with a travel no shorter than before. */
static void exchange_cost(const rp_req *r, double un, double lat[RP_NB],
                          rp_arrival *a) {
  double extra[RP_NB] = {0.0, 0.0, 0.0};
  double pair[RP_NB] = {-INFINITY, -INFINITY, -INFINITY};
  if (rp_g.epoch_load) {
    rp_comm *c = r->comm_gone ? NULL : rp_comm_lookup(r->comm);
    if (c != NULL && c->intra && c->size >= 2) /* (freed: the pair's rate) */
      rp_load_extra((double)c->size, un, extra);
  }
  if (rp_g.pair_exchange && un >= rp_g.eager_limit &&
      rp_pb_rank(r->pb) != rp_g.rank) {
    rp_cost_fast(REVPROF_FN_SENDRECV, 2.0, un, pair);
    for (int b = 0; b < RP_NB; b++)
      pair[b] -= a->own[b];
  }
  for (int b = 0; b < RP_NB; b++) {
    lat[b] = fmax(lat[b] + extra[b], pair[b]);
    a->gap[b] += extra[b];
    if (r->pb[b] + lat[b] > a->at[b])
      a->at[b] = r->pb[b] + lat[b];
  }
}

/* With the model's overlap rows, a receive a Wait or Test completed joins
 * its call's batch: its message is there at max(t_send + latency, t_post +
 * T_Irecv(d)), the endpoint's gap g(d) and the rank's own MPI_Wait cost
 * o(d) (rp_clock_complete). 0 when the old rule applies instead (no rows,
 * or no memory for the batch). */
static int overlapped(rp_req *r, const MPI_Status *st, double un) {
  rp_thr *t = rp_th();
  if (!rp_g.p2p_overlap) {
    t->nserial++;
    return 0;
  }
  rp_arrival *nb = rp_grow(t->arr, &t->arr_cap, t->narr + 1, sizeof *nb);
  if (nb == NULL)
    return 0;
  t->arr = nb;
  rp_arrival *a = &nb[t->narr++];
  double lat[RP_NB];
  arrival_of(r, r->pb, un, lat, a->at);
  rp_cost_fast(REVPROF_FN_GAP, 2.0, un, a->gap);
  rp_cost_fast(REVPROF_FN_WAIT, 2.0, un, a->own);
  if ((rp_g.epoch_load || rp_g.pair_exchange) &&
      rp_exchanging(r->pb[RP_AVG], a->at[RP_AVG], rp_g.burst_from,
                    rp_g.nic_free[RP_AVG]))
    exchange_cost(r, un, lat, a); /* part of an exchange */
  a->src = rp_pb_rank(r->pb);
  a->tag = st->MPI_TAG;
  a->bytes = un;
  a->t_send = r->pb[RP_AVG];
  rp_t.cur_bytes += un;
  if (r->peer_spec == MPI_ANY_SOURCE)
    rp_wild_record(&rp_g.wild, rp_bits_comm(r->comm), r->tag_spec,
                   st->MPI_SOURCE, st->MPI_TAG, rp_clock_arrival(r->pb, lat));
  if (!t->batching)
    rp_batch_settle();
  return 1;
}

/* When a completed receive's message is there in predicted time (avg
 * clock; st from MPI_Request_get_status, before the completion). */
static double predicted_at(const rp_req *r, const MPI_Status *st) {
  double n = status_bytes(st), pb[RP_PB_DOUBLES], lat[RP_NB], at[RP_NB];
  if (cancelled(st) || n < RP_PB_BYTES)
    return -INFINITY; /* no message, or no clocks: nothing to wait for */
  memcpy(pb, r->enc == RP_ENC_PACK ? (const void *)r->pack : r->pb,
         RP_PB_BYTES);
  arrival_of(r, pb, n - RP_PB_BYTES, lat, at);
  return at[RP_AVG];
}

/* rp_match_any's arrival of the i-th receive: idx[i] of recs */
typedef struct any_ctx {
  rp_req **recs;
  const int *idx;
} any_ctx;

static double any_arrival(int i, const double t[RP_NB], double bytes,
                          void *ud) {
  const any_ctx *x = ud;
  double pb[RP_PB_DOUBLES] = {t[0], t[1], t[2], 0.0, -1.0};
  double lat[RP_NB], at[RP_NB];
  if (!rp_g.p2p_overlap) { /* the old rule: there at t_send + latency */
    rp_cost_fast(REVPROF_FN_LATENCY, 2.0, bytes, lat);
    return t[RP_AVG] + lat[RP_AVG];
  }
  arrival_of(x->recs[x->idx[i]], pb, bytes, lat, at);
  return at[RP_AVG];
}

/* Waitany/Testany (flag NULL: Waitany) over receives from distinct
 * sources of one communicator, decided in predicted time (rp_match_any):
 * 1 when it made the call, 0 when that does not apply here. */
static int any_by_proof(int n, MPI_Request reqs[], rp_req **recs, int *index,
                        int *flag, MPI_Status *status, int *rc) {
  static int *buf;
  static double *known;
  static size_t cap, kcap;
  int m = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  int *nb = rp_grow(buf, &cap, 3 * (size_t)n, sizeof *nb);
  if (nb == NULL)
    return 0;
  buf = nb;
  double *nk = rp_grow(known, &kcap, (size_t)n, sizeof *nk);
  if (nk == NULL)
    return 0;
  known = nk;
  int *idx = buf, *src = buf + n, *tags = buf + 2 * n;
  for (int i = 0; i < n; i++) {
    if (reqs[i] == MPI_REQUEST_NULL)
      continue;
    if (m > 0 && recs[i]->comm != comm)
      return 0;
    comm = recs[i]->comm;
    idx[m] = i;
    src[m] = recs[i]->peer_spec;
    tags[m] = recs[i]->tag_spec;
    known[m] = NAN; /* delivered early: its clocks are in the record */
    if (recs[i]->unpacked) {
      double lat[RP_NB], at[RP_NB];
      arrival_of(recs[i], recs[i]->pb, rp_pb_size(recs[i]->pb), lat, at);
      known[m] = at[RP_AVG];
    }
    m++;
  }
  any_ctx x = {recs, idx};
  int k = rp_match_any(m, src, tags, known, comm, any_arrival, &x,
                       flag == NULL);
  if (k == -2)
    return 0;
  if (k < 0) { /* Testany: none proven first yet */
    *flag = 0;
    *index = MPI_UNDEFINED;
    *rc = MPI_SUCCESS;
    return 1;
  }
  if (flag) { /* proven first, maybe not there yet in real time */
    RP_UNLOCKED(*rc = PMPI_Test(&reqs[idx[k]], flag, status));
    *index = *flag ? idx[k] : MPI_UNDEFINED;
  } else {
    RP_UNLOCKED(*rc = PMPI_Wait(&reqs[idx[k]], status));
    *index = idx[k];
  }
  return 1;
}

/* 1 when at least two of the n requests are active and every active one
 * is a receive revprof sees whole. */
static int receives_only(int n, MPI_Request reqs[], rp_req **recs,
                         int found) {
  int active = 0;
  if (recs == NULL || found < 2)
    return 0;
  for (int i = 0; i < n; i++) {
    const rp_req *r = recs[i];
    if (reqs[i] == MPI_REQUEST_NULL)
      continue;
    if (r == NULL || r->kind != RP_REQ_RECV || !r->active || r->sendrecv ||
        r->enc == RP_ENC_NATIVE || r->blocking)
      return 0; /* only receives revprof sees whole */
    active++;
  }
  return active >= 2;
}

int rp_some_predicted(int n, MPI_Request reqs[], rp_req **recs, int found,
                      int test, int *outcount, int *indices,
                      MPI_Status *statuses, int *rc) {
  int index = MPI_UNDEFINED, flag = 0;
  MPI_Status st;
  if (!test && rp_g.wildq)
    defer_flush_others(recs, n); /* Waitsome may block on others */
  if (defer_open(recs, n)) /* polls: the deferred ones decide meanwhile */
    for (;;) {
      rp_defer_ready_slow(recs, n, 0);
      RP_UNLOCKED(*rc = PMPI_Testsome(n, reqs, outcount, indices, statuses));
      if (test || *rc != MPI_SUCCESS || *outcount != 0)
        return 1;
      sched_yield();
    }
  if (!rp_g.pub || !receives_only(n, reqs, recs, found) ||
      !any_by_proof(n, reqs, recs, &index, test ? &flag : NULL, &st, rc))
    return 0;
  if ((test && !flag) || index == MPI_UNDEFINED) {
    *outcount = 0; /* Testsome: none proven first and there yet */
    return 1;
  }
  *outcount = 1;
  indices[0] = index;
  if (statuses != MPI_STATUSES_IGNORE)
    statuses[0] = st;
  return 1;
}

int rp_any_predicted(int n, MPI_Request reqs[], rp_req **recs, int found,
                     int *index, int *flag, MPI_Status *status, int *rc) {
  if (!flag && rp_g.wildq)
    defer_flush_others(recs, n); /* Waitany may block on others */
  if (defer_open(recs, n)) /* polls: the deferred ones decide meanwhile */
    for (;;) {
      int f = 0;
      rp_defer_ready_slow(recs, n, 0);
      RP_UNLOCKED(*rc = PMPI_Testany(n, reqs, index, &f, status));
      if (flag)
        *flag = f;
      if (flag || f || *rc != MPI_SUCCESS)
        return 1;
      sched_yield();
    }
  if (!receives_only(n, reqs, recs, found))
    return 0;
  if (rp_g.pub && any_by_proof(n, reqs, recs, index, flag, status, rc))
    return 1;
  if (!rp_g.p2p_overlap)
    return 0;
  for (;;) {
    int best = -1, first = -1, done = 0;
    double tbest = 0.0;
    for (int i = 0; i < n; i++) {
      MPI_Status st;
      int f = 0, e;
      if (reqs[i] == MPI_REQUEST_NULL)
        continue;
      RP_UNLOCKED(e = PMPI_Request_get_status(reqs[i], &f, &st));
      if (e != MPI_SUCCESS)
        return 0; /* let the MPI's own call report it */
      if (!f)
        continue;
      double at = predicted_at(recs[i], &st);
      done++;
      if (first < 0)
        first = i;
      if (best < 0 || at < tbest) {
        best = i;
        tbest = at;
      }
    }
    if (best >= 0) {
      RP_UNLOCKED(*rc = PMPI_Wait(&reqs[best], status));
      *index = best;
      if (flag)
        *flag = 1;
      if (done > 1 && best != first) {
        rp_g.any_reordered += 1.0;
        rp_report_flag("any-order", "%.0f MPI_Waitany/Testany call(s) "
                       "completed the receive first in predicted time, not "
                       "the first completed one in the array",
                       rp_g.any_reordered);
      }
      return 1;
    }
    if (flag) { /* Testany: nothing completed yet */
      *flag = 0;
      *index = MPI_UNDEFINED;
      *rc = MPI_SUCCESS;
      return 1;
    }
  }
}

/* A send the rendezvous rule looked up (std: a standard one): costed with
 * its receive's post when found, else as an eager send, counted for the
 * flags (synchronous-send from the calls, eager-guess from these). */
static void rdv_count(int std, int found) {
  if (found && std)
    rp_g.rdv_std++;
  else if (found)
    rp_g.rendezvous++;
  else
    rp_g.rdv_std_missed += std;
}

void rp_rendezvous_slow(int std) {
  rp_rdv_key key;
  double t_post[RP_NB];
  rp_match_last_sent(&key);
  int found = rp_match_rendezvous(&key, t_post);
  if (found)
    rp_t.cur_wait += rp_clock_rendezvous(&rp_g.clk, key.t, t_post);
  rdv_count(std, found);
}

/* A non-blocking send completes no earlier than its message has left; an
 * MPI_Issend (and an MPI_Isend or a start of MPI_Send_init of the model's
 * eager limit or more) no earlier than that plus the rendezvous rule's
 * wait, max(0, t_post - t_send), where its receive's post is found. */
static void sent(rp_req *r) {
  rp_thr *t = rp_th();
  if (!rp_g.p2p_overlap || r->enc == RP_ENC_NATIVE)
    return;
  double done[RP_NB], t_post[RP_NB];
  memcpy(done, r->t_mark, sizeof done);
  if (RP_UNLIKELY(r->rdv.valid)) {
    int found = rp_match_rendezvous(&r->rdv, t_post);
    for (int b = 0; found && b < RP_NB; b++)
      if (t_post[b] > r->rdv.t[b])
        done[b] += t_post[b] - r->rdv.t[b];
    rdv_count(!rp_w_sync_request((rp_wid)r->wid), found);
    r->rdv.valid = 0;
  }
  for (int b = 0; b < RP_NB; b++)
    if (t->nsent == 0 || done[b] > t->sent[b])
      t->sent[b] = done[b];
  t->nsent++;
  if (!t->batching)
    rp_batch_settle();
}

/* ------------------------------------ MPICH's leak of cancelled receives */
#if defined(MPICH_VERSION)
static struct {
  pthread_mutex_t lock;
  MPI_Datatype *types; /* distinct objects kept alive, by handle: MPICH */
  size_t n, cap;       /* does not reuse a handle whose object lives */
} leak = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static void leak_add(MPI_Datatype t) {
  for (size_t i = 0; i < leak.n; i++)
    if (leak.types[i] == t)
      return;
  if (leak.n == leak.cap) {
    size_t cap = leak.cap ? 2 * leak.cap : 16;
    MPI_Datatype *nt = realloc(leak.types, cap * sizeof *nt);
    if (nt == NULL)
      return; /* the warning keeps one object more */
    leak.types = nt;
    leak.cap = cap;
  }
  leak.types[leak.n++] = t;
}

/* t and every derived type it is built from. */
static void leak_tree(MPI_Datatype t, int depth) {
  int ni, na, nd, comb;
  if (depth > 16 ||
      PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
      comb == MPI_COMBINER_NAMED)
    return;
  leak_add(t);
  int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
  MPI_Aint *addrs = malloc(((size_t)na + 1) * sizeof *addrs);
  MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
  if (ints && addrs && types &&
      PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) ==
          MPI_SUCCESS)
    for (int i = 0; i < nd; i++) {
      int a, b, c, kind;
      PMPI_Type_get_envelope(types[i], &a, &b, &c, &kind);
      leak_tree(types[i], depth + 1);
      if (kind != MPI_COMBINER_NAMED)
        PMPI_Type_free(&types[i]); /* get_contents' own handle */
    }
  free(ints);
  free(addrs);
  free(types);
}

/* count x t, contiguous as MPICH sees it (no gap, no reordering): then a
 * cancelled receive of it alone would keep nothing. */
static int leak_contiguous(int count, MPI_Datatype t) {
  MPI_Count size, lb, extent, tlb, textent;
  if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent_x(t, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_x(t, &tlb, &textent) != MPI_SUCCESS)
    return 0;
  return size == textent && (count <= 1 || size == extent);
}

/* r, a receive with revprof's struct type, was cancelled. */
static void leak_cancelled(const rp_req *r) {
  MPI_Datatype made = r->sref    ? r->sref->t
                      : r->owns_type ? r->stype
                                     : MPI_DATATYPE_NULL;
  if (made == MPI_DATATYPE_NULL)
    return; /* the clocks alone (a zero-byte receive): a predefined type */
  pthread_mutex_lock(&leak.lock);
  leak_add(made);
  if (r->utype != MPI_DATATYPE_NULL && leak_contiguous(r->ucount, r->utype))
    leak_tree(r->utype, 0);
  pthread_mutex_unlock(&leak.lock);
}

long rp_p2p_leaked(void) {
  pthread_mutex_lock(&leak.lock);
  long n = (long)leak.n;
  pthread_mutex_unlock(&leak.lock);
  return n;
}
#else
static void leak_cancelled(const rp_req *r) { (void)r; }
long rp_p2p_leaked(void) { return 0; }
#endif

/* Receive completion: data delivered, status shows the user's count, and
 * now = max(now + cost, t_send + latency). sr_send_bytes >= 0 selects the
 * Sendrecv costing (T_Sendrecv(max(ds, dr)), else T_Send(ds) + T_Recv(dr)). */
static void recv_complete(rp_req *r, MPI_Status *st, int want_status,
                          double sr_send_bytes) {
  double cost[RP_NB], lat[RP_NB];
  if (r->enc == RP_ENC_NATIVE)
    return;
  if (!r->blocking && cancelled(st)) { /* (a blocking one cannot be) */
    if (r->enc == RP_ENC_STRUCT)
      leak_cancelled(r);
    return;
  }
  double un = deliver(r, st);
  if (un < 0)
    return;
  if (want_status)
    PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)un);
  if (RP_UNLIKELY(rp_g.clockless)) { /* sample mode: no model, no clock */
    rp_t.cur_bytes += un;
    return;
  }
  if (sr_send_bytes < 0 && !r->blocking && overlapped(r, st, un))
    return;
  if (sr_send_bytes < 0)
    rp_cost_fast(r->fn, 2.0, un, cost);
  else if (revprof_model_has(rp_g.model, REVPROF_FN_SENDRECV))
    rp_cost(REVPROF_FN_SENDRECV, 2.0,
            un > sr_send_bytes ? un : sr_send_bytes, cost);
  else {
    double c2[RP_NB];
    rp_cost(REVPROF_FN_SEND, 2.0, sr_send_bytes, cost);
    rp_cost(REVPROF_FN_RECV, 2.0, un, c2);
    for (int b = 0; b < RP_NB; b++)
      cost[b] += c2[b];
  }
  rp_cost_fast(REVPROF_FN_LATENCY, 2.0, un, lat);
  rp_t.cur_wait += rp_clock_recv(&rp_g.clk, cost, r->pb, lat);
  rp_t.cur_bytes += un;
  rp_recv_after(r, st, r->pb, lat, un);
}

void rp_recv_after(rp_req *r, const MPI_Status *st, const double *pb,
                   const double lat[RP_NB], double bytes) {
  if (r->peer_spec == MPI_ANY_SOURCE)
    rp_wild_record(&rp_g.wild, rp_bits_comm(r->comm), r->tag_spec,
                   st->MPI_SOURCE, st->MPI_TAG, rp_clock_arrival(pb, lat));
  if (rp_g.tracing)
    rp_trace_message(rp_pb_rank(pb), pb[RP_AVG], rp_g.clk.now[RP_AVG],
                     st->MPI_TAG, bytes);
}

void rp_recv_end_slow(rp_req *r, int rc, MPI_Status *st, int want_status) {
  if (rc == MPI_SUCCESS)
    recv_complete(r, st, want_status, -1.0);
  r->active = 0;
}

static void sendrecv_complete(rp_req *r, MPI_Status *st, int want_status,
                              int sent, double sent_bytes);

/* the request kinds of the layers above (rp_req_kind_register) */
static const rp_req_kind_ops *kind_ops[RP_REQ_KINDS];

void rp_req_kind_register(int kind, const rp_req_kind_ops *ops) {
  if (kind >= 0 && kind < RP_REQ_KINDS)
    kind_ops[kind] = ops;
}

void rp_req_done(rp_req *r, MPI_Status *st, int want_status) {
  if (r->active) {
    switch (r->kind) {
    case RP_REQ_RECV:
      if (r->sendrecv)
        sendrecv_complete(r, st, want_status, r->partner != NULL, r->sr_send);
      else
        recv_complete(r, st, want_status, -1.0);
      break;
    case RP_REQ_SEND: /* costed at its start; done once it has left */
      if (st != MPI_STATUS_IGNORE && r->enc != RP_ENC_NATIVE &&
          !r->comm_gone && cancelled(st))
        rp_match_cancelled(r->pb, r->peer_spec, r->comm); /* never comes */
      sent(r);
      break;
    default:
      if (kind_ops[r->kind] && kind_ops[r->kind]->done)
        kind_ops[r->kind]->done(r);
      break;
    }
  }
  r->active = 0;
  r->unpacked = 0;
  if (!r->persistent) {
    table_remove(r);
    req_release(r);
  }
}

void rp_req_peek(rp_req *r, MPI_Status *st, int want_status) {
  if (r->kind != RP_REQ_RECV || !r->active || r->enc == RP_ENC_NATIVE ||
      cancelled(st))
    return;
  double un = deliver(r, st);
  if (un >= 0 && want_status)
    PMPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)un);
}

void rp_req_start(rp_req *r) {
  r->active = 1;
  r->unpacked = 0;
  if (r->kind == RP_REQ_RECV) { /* a persistent receive posted again */
    memcpy(r->t_mark, rp_g.clk.now, sizeof r->t_mark);
    rp_match_posted(r->peer_spec, r->tag_spec, r->comm);
    posted(r);
    rp_defer_flush(r->tag_spec, r->comm);
  }
  if (r->kind == RP_REQ_SEND)
    send_stamp(r);
  else if (kind_ops[r->kind] && kind_ops[r->kind]->start)
    kind_ops[r->kind]->start(r);
}

void rp_req_started(rp_req *r, rp_wid w) {
  if (!rp_g.sampling || r->kind != RP_REQ_SEND || r->enc == RP_ENC_NATIVE ||
      r->pb[RP_PB_STAMP] < 0.0)
    return;
  rp_t.sample_t0 = r->pb[RP_PB_STAMP]; /* Startall: one per request */
  rp_t.sample_bytes = rp_pb_size(r->pb);
  rp_sample_sent(w, r->fn);
}

int rp_req_free_user(rp_req *r, MPI_Request *request) {
  table_remove(r);
  if (r->dstate == RP_DEF_PENDING) /* it must still take its message */
    defer_to_mpi(r, "freed (MPI_Request_free) before its completion");
  if (r->dstate == RP_DEF_INNER) { /* the real receive lives on */
    defer_complete(r);
    int rc = PMPI_Request_free(request);
    r->dstate = RP_DEF_NONE;
    r->handle = r->inner;
    r->next = zombies;
    zombies = r;
    return rc;
  }
  if (r->dstate == RP_DEF_DONE) { /* received already: the data lands */
    int rc = PMPI_Request_free(request);
    if (r->dst.MPI_ERROR == MPI_SUCCESS && !cancelled(&r->dst))
      deliver(r, &r->dst);
    req_release(r);
    return rc;
  }
  if (!r->active) {
    int rc = PMPI_Request_free(request);
    req_release(r);
    return rc;
  }
  r->next = zombies; /* MPI still works on it: keep the buffers */
  zombies = r;
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

void rp_zombies_progress(int final) {
  for (rp_req **pp = &zombies; *pp;) {
    rp_req *z = *pp;
    int flag = 0;
    MPI_Status st;
    if (z->kind == RP_REQ_COLL || z->kind == RP_REQ_IDUP)
      flag = 1; /* erroneous to free those; just let go */
    else
      PMPI_Test(&z->handle, &flag, &st);
    if (flag) {
      if (z->kind == RP_REQ_RECV && z->enc != RP_ENC_NATIVE &&
          !cancelled(&st))
        deliver(z, &st); /* the data must land; nobody waits for clocks */
      if (z->persistent && z->handle != MPI_REQUEST_NULL)
        PMPI_Request_free(&z->handle);
      *pp = z->next;
      req_release(z);
    } else
      pp = &z->next;
  }
  (void)final;
}

/* ===================================================== Sendrecv & co */

/* The send half of a Sendrecv: t_send = now (its cost is charged with the
 * receive, seed 003's T_Sendrecv); with replace, the data is copied away
 * first, since the receive overwrites the buffer: into tmp (blocking, so
 * the scratch record keeps its size) or the record's own pack buffer. */
static void sendrecv_stamp(rp_req *s, int replace, MPI_Comm comm, char **tmp) {
  if (s->enc == RP_ENC_NATIVE)
    return;
  int w = rp_g.pbw;
  rp_t.cur_bytes += s->ubytes;
  if (rp_g.clockless) { /* sample mode: the flag */
    memset(s->sflag, 0, sizeof s->sflag);
    s->sflag[0] = rp_sample_flag(s->ubytes, s->peer_spec, s->tag_spec, comm);
  } else {
    memcpy(s->pb, rp_g.clk.now, sizeof rp_g.clk.now); /* t_send = now */
    s->pb[RP_PB_META] = rp_pb_meta(rp_g.rank, s->ubytes);
    rp_match_log(s->pb, s->ubytes, s->peer_spec, s->tag_spec, comm);
  }
  if (s->enc == RP_ENC_PACK) {
    memcpy(s->pack, wire_slot(s), (size_t)w);
    if (s->ubytes > 0)
      memcpy(s->pack + w, s->ubuf, (size_t)s->ubytes);
    return;
  }
  if ((!replace && s->blocking) || s->ubytes <= 0)
    return; /* (non-blocking: never a derived type, see rp_sendrecv; no
               data: the clocks alone, from r->pb; MPICH 4.0.2's pack
               divides by a zero type size) */
  int psz = 0, pos = 0;
  char *buf = NULL;
  if (PMPI_Pack_size(s->ucount, s->utype, comm, &psz) == MPI_SUCCESS &&
      psz <= INT_MAX - 2 * RP_PB_BYTES) {
    size_t need = (size_t)psz + 2 * RP_PB_BYTES; /* (room for MPI's own
                                                     header, if any) */
    if (s->blocking)
      buf = *tmp = malloc(need);
    else if (ensure_pack(s, need) == 0)
      buf = s->pack;
  }
  if (buf != NULL &&
      PMPI_Pack(wire_slot(s), rp_g.clockless ? RP_SFLAG_BYTES : RP_PB_DOUBLES,
                rp_g.clockless ? MPI_BYTE : MPI_DOUBLE, buf,
                psz + 2 * RP_PB_BYTES, &pos, comm) == MPI_SUCCESS &&
      PMPI_Pack(s->ubuf, s->ucount, s->utype, buf, psz + 2 * RP_PB_BYTES,
                &pos, comm) == MPI_SUCCESS) {
    s->wbuf = buf;
    s->wcount = pos;
    s->wtype = MPI_PACKED;
    return;
  }
  free(*tmp);
  *tmp = NULL; /* the struct path then reads the overwritten buffer */
  rp_warn("out of memory copying MPI_Sendrecv_replace data");
}

/* MPICH 4.0's MPI_Isendrecv releases a derived datatype it never took a
 * reference to (the program aborts when the type is freed): its receive
 * half goes as MPI_PACKED instead of a struct type, unpacked by MPI at
 * completion, as its send half does (sendrecv_stamp). */
static void packed_recv(rp_req *r) {
  int psz = 0;
  if (PMPI_Pack_size(r->ucount, r->utype, r->comm, &psz) != MPI_SUCCESS ||
      psz > INT_MAX - RP_PB_BYTES ||
      ensure_pack(r, (size_t)psz + rp_g.pbw) != 0)
    return; /* the struct type, then */
  struct_release(r);
  r->enc = RP_ENC_PACK;
  r->mpi_packed = 1;
  r->wbuf = r->pack;
  r->wcount = psz + rp_g.pbw;
  r->wtype = MPI_PACKED;
}

/* The receive half's completion: the receive rule with the Sendrecv cost,
 * or, when nothing came (MPI_PROC_NULL), the send's own cost. */
/* Where a receive's clocks land. */
static char *pb_slot(rp_req *r) {
  return r->enc == RP_ENC_PACK ? r->pack : (char *)r->pb;
}

/* MPICH 4.0's MPI_Isendrecv completes with a status whose count is not
 * set (0 or stale). rp_sendrecv filled the clock slot with 0xFF bytes
 * before posting; when clocks replaced them, the count is theirs. */
static void isendrecv_status(rp_req *r, MPI_Status *st) {
  double pb[RP_PB_DOUBLES];
  const unsigned char *slot = (const unsigned char *)pb_slot(r);
  int unset = 1;
  if (r->enc == RP_ENC_NATIVE || r->blocking || rp_g.clockless)
    return; /* (sample mode: deliver, whole_pack) */
  for (int i = 0; i < RP_PB_BYTES && unset; i++)
    unset = slot[i] == 0xFF;
  if (unset)
    return;
  memcpy(pb, pb_slot(r), RP_PB_BYTES);
  PMPI_Status_set_elements_x(st, MPI_BYTE,
                             (MPI_Count)(RP_PB_BYTES + rp_pb_size(pb)));
}

/* Sample mode: MPI_Isendrecv's receive half is delivered whole
 * (whole_pack): the user buffer's bytes go to its pack buffer first, where
 * the message then overwrites its own. */
static void prefill_flagged(rp_req *r, MPI_Comm comm) {
  if (r->enc != RP_ENC_PACK)
    return;
  if (!r->mpi_packed) {
    if (r->wcount > RP_SFLAG_BYTES)
      memcpy(r->pack + RP_SFLAG_BYTES, r->ubuf,
             (size_t)r->wcount - RP_SFLAG_BYTES);
    return;
  }
  int pos = RP_SFLAG_BYTES;
  PMPI_Pack(r->ubuf, r->ucount, r->utype, r->pack, r->wcount, &pos, comm);
}

static void sendrecv_complete(rp_req *r, MPI_Status *st, int want_status,
                              int sent, double sent_bytes) {
  isendrecv_status(r, st);
  if (r->enc != RP_ENC_NATIVE)
    recv_complete(r, st, want_status, sent ? sent_bytes : 0.0);
  else if (sent) {
    double cost[RP_NB];
    rp_cost(REVPROF_FN_SEND, 2.0, sent_bytes, cost);
    rp_clock_local(&rp_g.clk, cost);
  }
}

/* A blocking Sendrecv from MPI_ANY_SOURCE with matching in predicted
 * time: the send posted, the receive's source decided (rp_recv_source),
 * the receive, then the send completed; what MPI_Sendrecv does, with the
 * source known before the receive is posted. */
static int sendrecv_any(rp_req *s, rp_req *r, int dest, int sendtag,
                        int recvtag, MPI_Comm comm, MPI_Status *st) {
  MPI_Request sq;
  int rc, rc2;
  RP_UNLOCKED(rc = PMPI_Isend(s->wbuf, s->wcount, s->wtype, dest, sendtag,
                              comm, &sq));
  if (rc != MPI_SUCCESS)
    return rc;
  int src = rp_recv_source(MPI_ANY_SOURCE, recvtag, comm);
  RP_UNLOCKED(rc = PMPI_Recv(r->wbuf, r->wcount, r->wtype, src, recvtag, comm,
                             st));
  RP_UNLOCKED(rc2 = PMPI_Wait(&sq, MPI_STATUS_IGNORE));
  return rc != MPI_SUCCESS ? rc : rc2;
}

int rp_sendrecv(rp_wid w, const void *sendbuf, int sendcount,
                MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                MPI_Comm comm, MPI_Status *status, int replace,
                MPI_Request *request) {
  MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
  rp_defer_flush(recvtag, comm);
  rp_req *s = prepare(request ? rp_req_new() : NULL, 1, w,
                      REVPROF_FN_SENDRECV, RP_REQ_SEND);
  rp_req *r = prepare(request ? rp_req_new() : NULL, 0, w, REVPROF_FN_RECV,
                      RP_REQ_RECV);
  rp_match_posted(source, recvtag, comm); /* at the call's clock */
  char *tmp = NULL;
  if (replace) {
    sendbuf = recvbuf;
    sendcount = recvcount;
    sendtype = recvtype;
  }
  s->peer_spec = dest;
  s->tag_spec = sendtag;
  encode(s, sendbuf, sendcount, sendtype, dest, comm);
  sendrecv_stamp(s, replace, comm, &tmp);
  r->peer_spec = source;
  r->tag_spec = recvtag;
  r->comm = comm;
  encode(r, recvbuf, recvcount, recvtype, source, comm);
  if (request != NULL && r->enc == RP_ENC_STRUCT && r->ubytes > 0)
    packed_recv(r);
  int rc;
  if (source == MPI_ANY_SOURCE && rp_g.cfg.mode == RP_MODE_PREDICT &&
      (request != NULL || rp_g.pub == NULL)) {
    if (rp_g.pub)
      rp_match_real("MPI_Isendrecv from MPI_ANY_SOURCE is matched by the MPI");
    else
      rp_match_real_probe();
  }
  if (request == NULL) {
    if (source == MPI_ANY_SOURCE && rp_g.pub)
      rc = sendrecv_any(s, r, dest, sendtag, recvtag, comm, st);
    else {
      /* its message logged: for the others' wildcard decisions it is a
         rank blocked on a receive from source, as in MPI_Recv */
      if (rp_g.pub && source >= 0)
        rp_match_block_recv(source, comm);
      RP_UNLOCKED(rc = PMPI_Sendrecv(s->wbuf, s->wcount, s->wtype, dest,
                                     sendtag, r->wbuf, r->wcount, r->wtype,
                                     source, recvtag, comm, st));
    }
    rp_send_end(w, REVPROF_FN_SENDRECV); /* sample mode: its own time */
    if (rc == MPI_SUCCESS)
      sendrecv_complete(r, st, st != &local, s->enc != RP_ENC_NATIVE,
                        s->ubytes);
    s->active = r->active = 0;
    free(tmp);
    return rc;
  }
  if (r->enc != RP_ENC_NATIVE && rp_g.clockless)
    prefill_flagged(r, comm);
  else if (r->enc != RP_ENC_NATIVE)
    memset(pb_slot(r), 0xFF, RP_PB_BYTES); /* see isendrecv_status */
#if MPI_VERSION >= 4
  rc = PMPI_Isendrecv(s->wbuf, s->wcount, s->wtype, dest, sendtag, r->wbuf,
                      r->wcount, r->wtype, source, recvtag, comm, request);
#else
  rc = MPI_ERR_INTERN; /* no wrapper calls it without MPI 4 */
#endif
  rp_send_end(w, REVPROF_FN_ISEND); /* the post's own time, as MPI_Isend */
  r->sendrecv = 1;
  if (s->enc != RP_ENC_NATIVE) {
    r->sr_send = s->ubytes;
    r->partner = s; /* its buffers stay until the request completes */
  } else
    req_release(s);
  rp_req_post(r, rc, request);
  return rc;
}

/* Messages matched by a probe on a communicator that reaches another job
 * (rp_comm_foreign): they carry no clocks, so their MPI_Mrecv is native. */
enum { RP_FOREIGN_MSGS = 64 };
static MPI_Message foreign_msgs[RP_FOREIGN_MSGS];
static int nforeign_msgs;

/* Sample mode: the communicators of messages probed and not yet received,
 * where MPI_Mrecv receives their stamps (rp_sample_flag_in). */
enum { RP_PROBED_MSGS = 64 };
static struct {
  MPI_Message m;
  MPI_Comm comm;
} probed_msgs[RP_PROBED_MSGS];
static int nprobed_msgs;

static void probed_add(MPI_Message message, MPI_Comm comm) {
  if (nprobed_msgs == RP_PROBED_MSGS) { /* the oldest is forgotten */
    memmove(probed_msgs, probed_msgs + 1,
            (RP_PROBED_MSGS - 1) * sizeof probed_msgs[0]);
    nprobed_msgs--;
    rp_report_flag("sample-lost", "more than %d messages probed and not yet "
                   "received: a sampled one among them loses its stamp",
                   RP_PROBED_MSGS);
  }
  probed_msgs[nprobed_msgs].m = message;
  probed_msgs[nprobed_msgs++].comm = comm;
}

static MPI_Comm probed_comm(MPI_Message m) {
  for (int i = 0; i < nprobed_msgs; i++)
    if (probed_msgs[i].m == m) {
      MPI_Comm c = probed_msgs[i].comm;
      memmove(probed_msgs + i, probed_msgs + i + 1,
              (size_t)(nprobed_msgs - i - 1) * sizeof probed_msgs[0]);
      nprobed_msgs--;
      return c;
    }
  return MPI_COMM_NULL;
}

void rp_message_probed(MPI_Message message, MPI_Comm comm) {
  if (message != MPI_MESSAGE_NO_PROC && message != MPI_MESSAGE_NULL)
    rp_match_unsure(); /* a message taken outside the receives' order */
  if (rp_g.clockless && message != MPI_MESSAGE_NO_PROC &&
      message != MPI_MESSAGE_NULL)
    probed_add(message, comm);
  if (!rp_g.dynamic || message == MPI_MESSAGE_NO_PROC ||
      message == MPI_MESSAGE_NULL || !rp_comm_foreign(comm))
    return;
  if (nforeign_msgs < RP_FOREIGN_MSGS)
    foreign_msgs[nforeign_msgs++] = message;
  else
    rp_report_flag("other-job", "more than %d messages of another job "
                   "probed and not yet received: some decoded as if they "
                   "carried clocks", RP_FOREIGN_MSGS);
}

static int foreign_message(MPI_Message m) {
  for (int i = 0; i < nforeign_msgs; i++)
    if (foreign_msgs[i] == m) {
      foreign_msgs[i] = foreign_msgs[--nforeign_msgs];
      return 1;
    }
  return 0;
}

int rp_mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
             MPI_Status *status, MPI_Request *request) {
  if (*message == MPI_MESSAGE_NO_PROC || *message == MPI_MESSAGE_NULL ||
      (nforeign_msgs > 0 && foreign_message(*message))) {
    int rc;
    RP_UNLOCKED(rc = request ? PMPI_Imrecv(buf, count, type, message, request)
                             : PMPI_Mrecv(buf, count, type, message, status));
    return rc;
  }
  /* the source is known, so no wildcard bookkeeping: peer 0 stands in
     (sample mode: the communicator, for a stamp) */
  MPI_Comm comm = rp_g.clockless ? probed_comm(*message) : MPI_COMM_NULL;
  if (request) {
    rp_req *r = rp_recv_begin(rp_req_new(), RP_W_MPI_Imrecv,
                              REVPROF_FN_IRECV, buf, count, type, 0, 0, comm);
    int rc = PMPI_Imrecv(r->wbuf, r->wcount, r->wtype, message, request);
    rp_req_post(r, rc, request);
    return rc;
  }
  MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
  rp_req *r = rp_recv_begin(NULL, RP_W_MPI_Mrecv, REVPROF_FN_RECV, buf,
                            count, type, 0, 0, comm);
  int rc;
  RP_UNLOCKED(rc = PMPI_Mrecv(r->wbuf, r->wcount, r->wtype, message, st));
  rp_recv_end(r, rc, st, st != &local);
  return rc;
}

/* ====================================================== large counts */

void rp_big_make(rp_bigc *b, MPI_Count count, MPI_Datatype type) {
#if MPI_VERSION >= 4
  if (count > 0 && PMPI_Type_contiguous_c(count, type, &b->made) == MPI_SUCCESS) {
    if (PMPI_Type_commit(&b->made) == MPI_SUCCESS) {
      b->count = 1;
      b->type = b->made;
      return;
    }
    PMPI_Type_free(&b->made);
  }
#else
  (void)type;
#endif
  b->made = MPI_DATATYPE_NULL;
  b->count = -1; /* MPI reports the error, nothing moves */
  rp_warn("cannot describe a message of %lld elements to MPI; it is "
          "refused (count -1)",
          (long long)count);
}

void rp_big_out(rp_bigc *b) {
  if (b->made == MPI_DATATYPE_NULL)
    return;
  rp_p2p_type_freed(b->made); /* cached struct types built on it go */
  PMPI_Type_free(&b->made);   /* operations in flight keep their copy */
}

/* ============================================================ buffers */

static void *user_bbuf;   /* what the application attached */
static int user_bsize;
static char *own_bbuf;    /* what revprof attached instead */

int rp_buffer_attach(void *buf, int size) {
  long long extra = (long long)RP_PB_BYTES *
                    ((long long)size / MPI_BSEND_OVERHEAD + 1);
  long long total = (long long)size + extra;
  char *mine = total <= INT_MAX && size >= 0 ? malloc((size_t)total) : NULL;
  if (mine == NULL)
    return PMPI_Buffer_attach(buf, size); /* piggybacks may not fit */
  int rc = PMPI_Buffer_attach(mine, (int)total);
  if (rc != MPI_SUCCESS) {
    free(mine);
    return rc;
  }
  own_bbuf = mine;
  user_bbuf = buf;
  user_bsize = size;
  return rc;
}

int rp_buffer_detach(void *addr, int *size) {
  void *b = NULL;
  int s = 0;
  int rc;
  RP_UNLOCKED(rc = PMPI_Buffer_detach(&b, &s));
  if (rc == MPI_SUCCESS && b != NULL && b == own_bbuf) {
    free(own_bbuf);
    own_bbuf = NULL;
    b = user_bbuf;
    s = user_bsize;
  }
  if (rc == MPI_SUCCESS) {
    memcpy(addr, &b, sizeof b);
    *size = s;
  }
  return rc;
}

/* ============================================================ set-up */

/* Whether MPI_Pack of n elements of t at hdr (hb bytes), then three ints,
 * gives the bytes of memcpy. */
static int packs_as_copied(const void *hdr, int n, MPI_Datatype t,
                           size_t hb) {
  int data[3] = {1, -2, 3}, pos = 0;
  char a[128], b[128];
  memset(a, 0, sizeof a);
  if (PMPI_Pack(hdr, n, t, a, sizeof a, &pos, rp_g.world) != MPI_SUCCESS ||
      PMPI_Pack(data, 3, MPI_INT, a, sizeof a, &pos, rp_g.world) !=
          MPI_SUCCESS)
    return 0;
  memcpy(b, hdr, hb);
  memcpy(b + hb, data, sizeof data);
  return pos == (int)(hb + sizeof data) && memcmp(a, b, (size_t)pos) == 0;
}

/* memcpy is MPI_Pack here (homogeneous, no header): the copy path may
 * build MPI_PACKED messages by hand, with the clocks or sample mode's
 * flag in front. */
static int check_fast_copy(void) {
  double pb[RP_PB_DOUBLES] = {1.5, -2.25, 3e300, 7.0};
  unsigned char flag[RP_SFLAG_BYTES] = {RP_SFLAG_YES};
  int psz = 0;
  if (PMPI_Pack_size(RP_PB_DOUBLES, MPI_DOUBLE, rp_g.world, &psz) !=
          MPI_SUCCESS ||
      psz != RP_PB_BYTES)
    return 0;
  return packs_as_copied(pb, RP_PB_DOUBLES, MPI_DOUBLE, sizeof pb) &&
         packs_as_copied(flag, RP_SFLAG_BYTES, MPI_BYTE, sizeof flag);
}

/* A thread's blocking records over its pack buffers (rp_g.scratch_cap
 * bytes each; the inline space when there are none). */
void rp_thr_init(rp_thr *t) {
  memset(t, 0, sizeof *t);
  if (rp_g.scratch_cap) {
    t->scratch_s = malloc(rp_g.scratch_cap);
    t->scratch_r = malloc(rp_g.scratch_cap);
  }
  rp_req *b[2] = {&t->bsend, &t->brecv};
  char *sc[2] = {t->scratch_s, t->scratch_r};
  int ok = t->scratch_s && t->scratch_r;
  for (int i = 0; i < 2; i++) {
    b[i]->blocking = 1;
    b[i]->pack = ok ? sc[i] : b[i]->inl;
    b[i]->packcap = ok ? rp_g.scratch_cap : RP_REQ_INLINE;
    b[i]->stype = MPI_DATATYPE_NULL;
    b[i]->handle = MPI_REQUEST_NULL;
    b[i]->sreq = MPI_REQUEST_NULL;
  }
}

void rp_thr_free(rp_thr *t) {
  struct_release(&t->bsend);
  struct_release(&t->brecv);
  free(t->scratch_s);
  free(t->scratch_r);
  free(t->recs);
  free(t->st);
  free(t->arr);
  t->arr = NULL;
  t->narr = t->arr_cap = 0;
  t->scratch_s = t->scratch_r = NULL;
  t->recs = NULL;
  t->st = NULL;
  t->recs_cap = t->st_cap = 0;
}

void rp_p2p_startup(void) {
  defer_safe_init();
  rp_g.pbw = RP_PB_BYTES; /* (sample mode's startup makes it 1) */
  rp_g.fast_copy = check_fast_copy();
  rp_g.scratch_cap = (size_t)rp_g.cfg.pack_max + RP_PB_BYTES;
  rp_mt_thread_hooks(rp_thr_init, rp_thr_free);
  rp_thr_init(&rp_g.th0);
  if (rp_g.th0.scratch_s == NULL || rp_g.th0.scratch_r == NULL)
    rp_g.scratch_cap = 0; /* every message takes the struct path */
  rp_g.fast_max = rp_g.fast_copy && rp_g.scratch_cap ? rp_g.cfg.pack_max
                                                      : -1.0;
  rp_g.p2p_overlap = revprof_model_has(rp_g.model, REVPROF_FN_GAP);
  int loads = rp_g.p2p_overlap &&
              revprof_model_has(rp_g.model, REVPROF_FN_GAP_ALL);
  rp_g.load_p = loads && rp_g.cfg.contention == RP_CONTENTION_WORLD &&
                        rp_g.size > 1
                    ? (double)rp_g.size
                    : 0.0;
  rp_g.epoch_load = loads && rp_g.cfg.contention == RP_CONTENTION_EPOCH;
  rp_g.recv_post = revprof_model_has(rp_g.model, REVPROF_FN_POST);
  rp_g.pair_exchange = rp_g.cfg.exchange_sendrecv && rp_g.p2p_overlap &&
                       revprof_model_has(rp_g.model, REVPROF_FN_SENDRECV);
  rp_g.eager_limit = rp_g.cfg.mode == RP_MODE_PREDICT && rp_g.model &&
                             rp_g.model->machine_eager_limit > 0
                         ? rp_g.model->machine_eager_limit
                         : INFINITY;
}

/* Sample mode: shadows of communicators the application freed while
 * receives on them were pending, kept for their stamps until MPI_Finalize
 * (a freed communicator's shadow goes with it: rp_comm.c). */
static MPI_Comm *kept_shadows;
static size_t nkept, kept_cap;

void rp_p2p_shutdown(void) {
  for (size_t i = 0; i < nkept; i++)
    PMPI_Comm_free(&kept_shadows[i]);
  free(kept_shadows);
  kept_shadows = NULL;
  nkept = kept_cap = 0;
  scache_purge(MPI_DATATYPE_NULL, 1);
  rp_thr_free(&rp_g.th0);
  for (size_t i = 0; table && i < ((size_t)1 << table_bits); i++)
    for (rp_req *r = table[i]; r; r = r->next)
      struct_release(r);
}

static MPI_Comm keep_shadow(MPI_Comm comm) {
  rp_comm *c = rp_comm_lookup(comm);
  MPI_Comm *nb = rp_grow(kept_shadows, &kept_cap, nkept + 1, sizeof *nb);
  if (c == NULL || c->shadow == MPI_COMM_NULL || nb == NULL)
    return MPI_COMM_NULL;
  kept_shadows = nb;
  kept_shadows[nkept++] = c->shadow;
  MPI_Comm sh = c->shadow;
  c->shadow = MPI_COMM_NULL; /* not freed with comm */
  return sh;
}

void rp_p2p_comm_freed(MPI_Comm comm) {
  rp_defer_flush(MPI_ANY_TAG, comm);
  if (table == NULL || table_count == 0)
    return;
  MPI_Comm sh = MPI_COMM_NULL;
  int kept = 0;
  for (size_t i = 0; i < ((size_t)1 << table_bits); i++)
    for (rp_req *r = table[i]; r; r = r->next)
      if (r->comm == comm) {
        if (rp_g.clockless && r->kind == RP_REQ_RECV && !kept++)
          sh = keep_shadow(comm);
        r->sshadow = sh;
        r->comm_gone = 1;
      }
}

void rp_p2p_type_freed(MPI_Datatype t) {
  scache_purge(t, 0);
  rp_type_forget(t);
}

/* ------------------------------------ completion calls (Wait*, Test*) */


/* Records of n requests (NULL for the ones revprof does not know); *found
 * counts the known ones. NULL when out of memory. */
rp_req **rp_reqs_claim(int n, const MPI_Request reqs[], int *found) {
  rp_thr *t = rp_th();
  *found = 0;
  if (n <= 0)
    return t->recs;
  rp_req **nb = rp_grow(t->recs, &t->recs_cap, (size_t)n, sizeof *nb);
  if (nb == NULL)
    return NULL;
  t->recs = nb;
  for (int i = 0; i < n; i++) {
    nb[i] = rp_req_claim(reqs[i]);
    *found += nb[i] != NULL;
  }
  /* claims last for this call only; with threads until the completion
     has run (rp_reqs_unclaim): meanwhile MPI may hand the same handle to
     another thread's new request */
  for (int i = 0; !rp_g.mt && i < n; i++)
    if (nb[i])
      nb[i]->claimed = 0;
  return nb;
}

/* Statuses to pass to PMPI: the application's, or scratch when it ignores
 * them but revprof needs them. */
MPI_Status *rp_statuses_for(int n, MPI_Status *user, int found) {
  rp_thr *t = rp_th();
  if (user != MPI_STATUSES_IGNORE || !found || n <= 0)
    return user;
  MPI_Status *nb = rp_grow(t->st, &t->st_cap, (size_t)n, sizeof *nb);
  if (nb == NULL)
    return user;
  t->st = nb;
  return nb;
}

int rp_completed_ok(int rc, const MPI_Status *st) {
  return rc == MPI_SUCCESS ||
         (rc == MPI_ERR_IN_STATUS && st != MPI_STATUSES_IGNORE &&
          st->MPI_ERROR == MPI_SUCCESS);
}

/* Waitsome and Testsome: statuses follow the order of indices. */
void rp_done_some(rp_req **recs, int found, int rc, int outcount,
                  const int *indices, MPI_Status *st, int want) {
  if (recs == NULL || !found || outcount == MPI_UNDEFINED ||
      st == MPI_STATUSES_IGNORE)
    return;
  rp_batch_begin();
  for (int k = 0; k < outcount; k++)
    if (recs[indices[k]] && rp_completed_ok(rc, &st[k]))
      rp_req_done(recs[indices[k]], &st[k], want);
  rp_batch_settle();
}

void rp_done_all(rp_req **recs, int found, int rc, int n, MPI_Status *st,
                 int want) {
  if (recs == NULL || !found || st == MPI_STATUSES_IGNORE)
    return;
  rp_batch_begin();
  for (int i = 0; i < n; i++)
    if (recs[i] && rp_completed_ok(rc, &st[i]))
      rp_req_done(recs[i], &st[i], want);
  rp_batch_settle();
}
