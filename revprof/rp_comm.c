/* What librevprof knows of a communicator (rp_comm, cached as an MPI
 * attribute): its rank, size and the private shadow communicator that
 * carries the collectives' clock exchanges, and whether it reaches another
 * job. Part of the engine's core: calls nothing above rp_state. */
#include "rp_state.h"

#include <stdlib.h>
#include <string.h>

static int keyval = MPI_KEYVAL_INVALID;

/* communicators with an id, for rp_comm_by_cid; the next id this rank
   proposes (the members take the largest proposal) */
static rp_comm **with_id;
static size_t nwith_id, with_id_cap;
static int next_cid;

/* rp_comm_lookup's: the attribute lookup was a fifth of a small
 * collective's overhead. */
MPI_Comm rp_comm_last = MPI_COMM_NULL;
rp_comm *rp_comm_last_info;

/* Runs inside MPI_Comm_free, which the wrapper calls without the engine
 * lock (rp_mt.c): takes it. */
static int comm_delete(MPI_Comm comm, int kv, void *attr, void *extra) {
  rp_comm *c = attr;
  int fin = 0, took = rp_mt_hold();
  (void)comm;
  (void)kv;
  (void)extra;
  if (c == rp_comm_last_info) {
    rp_comm_last = MPI_COMM_NULL;
    rp_comm_last_info = NULL;
  }
  for (size_t i = 0; i < nwith_id; i++)
    if (with_id[i] == c) {
      with_id[i] = with_id[--nwith_id];
      break;
    }
  free(c->world);
  PMPI_Finalized(&fin);
  if (!fin && !rp_g.finalized && c->shadow != MPI_COMM_NULL)
    PMPI_Comm_free(&c->shadow);
  free(c);
  rp_mt_release(took);
  return MPI_SUCCESS;
}

rp_comm *rp_comm_lookup_slow(MPI_Comm comm) {
  void *v = NULL;
  int flag = 0;
  if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
      PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag)
    return NULL;
  rp_comm_last = comm;
  rp_comm_last_info = v;
  return v;
}

/* ------------------------------------------- other jobs' processes */

static int foreign_key = MPI_KEYVAL_INVALID;

/* 1 when a member of g is not in this job's MPI_COMM_WORLD */
static int outside_world(MPI_Group g) {
  MPI_Group world;
  int n = 0, out = 0;
  if (PMPI_Group_size(g, &n) != MPI_SUCCESS || n <= 0 ||
      PMPI_Comm_group(rp_g.world, &world) != MPI_SUCCESS)
    return 0;
  int *in = malloc((size_t)n * sizeof *in), *tr = malloc((size_t)n * sizeof *tr);
  if (in && tr) {
    for (int i = 0; i < n; i++)
      in[i] = i;
    if (PMPI_Group_translate_ranks(g, n, in, world, tr) == MPI_SUCCESS)
      for (int i = 0; i < n && !out; i++)
        out = tr[i] == MPI_UNDEFINED;
  } else
    out = 1; /* cannot tell: the safe answer */
  free(in);
  free(tr);
  PMPI_Group_free(&world);
  return out;
}

int rp_comm_foreign(MPI_Comm comm) {
  void *v = NULL;
  int flag = 0, inter = 0, out = 0;
  if (comm == MPI_COMM_NULL || comm == rp_g.world || comm == MPI_COMM_SELF)
    return 0;
  if (foreign_key == MPI_KEYVAL_INVALID &&
      PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN,
                              &foreign_key, NULL) != MPI_SUCCESS)
    foreign_key = MPI_KEYVAL_INVALID;
  if (foreign_key != MPI_KEYVAL_INVALID &&
      PMPI_Comm_get_attr(comm, foreign_key, &v, &flag) == MPI_SUCCESS && flag)
    return v == (void *)&foreign_key; /* cached: &key yes, NULL no */
  MPI_Group g;
  if (PMPI_Comm_group(comm, &g) == MPI_SUCCESS) {
    out = outside_world(g);
    PMPI_Group_free(&g);
  }
  if (!out && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter &&
      PMPI_Comm_remote_group(comm, &g) == MPI_SUCCESS) {
    out = outside_world(g);
    PMPI_Group_free(&g);
  }
  if (foreign_key != MPI_KEYVAL_INVALID)
    PMPI_Comm_set_attr(comm, foreign_key, out ? (void *)&foreign_key : NULL);
  if (out)
    rp_report_flag("other-job", "messages to processes of another job "
                   "(spawned, connected or the parent) went without clocks; "
                   "collectives with them were costed locally");
  return out;
}

/* The id of an intra-communicator with a shadow, while wildcard receives
 * are decided in predicted time: the largest of the members' proposals
 * (each member's ids then differ, so a sender's (id, tag) names one of its
 * communicators), and its members' MPI_COMM_WORLD ranks. */
static void comm_id(MPI_Comm comm, rp_comm *c) {
  int id = -1;
  if (rp_g.pub && c->intra && c->shadow != MPI_COMM_NULL) {
    int rc;
    RP_UNLOCKED(rc = PMPI_Allreduce(&next_cid, &id, 1, MPI_INT, MPI_MAX,
                                    c->shadow));
    if (rc != MPI_SUCCESS)
      id = -1;
  }
  if (id < 0)
    return;
  next_cid = id + 1;
  if (comm != rp_g.world) {
    MPI_Group g, world;
    int *in = malloc((size_t)c->size * sizeof *in);
    c->world = malloc((size_t)c->size * sizeof *c->world);
    int ok = in && c->world && PMPI_Comm_group(comm, &g) == MPI_SUCCESS;
    if (ok) {
      for (int i = 0; i < c->size; i++)
        in[i] = i;
      ok = PMPI_Comm_group(rp_g.world, &world) == MPI_SUCCESS;
      if (ok) {
        ok = PMPI_Group_translate_ranks(g, c->size, in, world, c->world) ==
             MPI_SUCCESS;
        PMPI_Group_free(&world);
      }
      PMPI_Group_free(&g);
    }
    free(in);
    if (!ok) {
      free(c->world);
      c->world = NULL;
      return;
    }
  }
  rp_comm **nw = rp_grow(with_id, &with_id_cap, nwith_id + 1, sizeof *nw);
  if (nw == NULL)
    return;
  with_id = nw;
  with_id[nwith_id++] = c;
  c->cid = id;
}

/* Records comm with its shadow (shadow MPI_COMM_NULL: create one, a
 * collective call over comm); blocking: every member is in this call now,
 * so they can agree on an id for it. */
static void attach(MPI_Comm comm, MPI_Comm shadow, int blocking) {
  int inter = 0;
  rp_comm *c = calloc(1, sizeof *c);
  if (c == NULL) {
    if (shadow != MPI_COMM_NULL)
      PMPI_Comm_free(&shadow);
    return;
  }
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_rank(comm, &c->rank);
  PMPI_Comm_size(comm, &c->size);
  c->intra = !inter;
  c->inter = inter;
  c->shadow = shadow;
  if (c->intra && rp_g.dynamic && rp_comm_foreign(comm))
    c->intra = 0; /* the other job may not take part in a shadow */
  /* split rather than dup: no attribute copy callbacks of the application
   * run for revprof's private communicator */
  if (c->intra && c->shadow == MPI_COMM_NULL && c->size > 1) {
    int rc;
    RP_UNLOCKED(rc = PMPI_Comm_split(comm, 0, c->rank, &c->shadow));
    if (rc != MPI_SUCCESS)
      c->shadow = MPI_COMM_NULL;
  }
  c->cid = -1;
  if (blocking)
    comm_id(comm, c);
  if (PMPI_Comm_set_attr(comm, keyval, c) != MPI_SUCCESS) {
    if (c->shadow != MPI_COMM_NULL)
      PMPI_Comm_free(&c->shadow);
    if (c->cid >= 0)
      nwith_id--; /* it was the last one in */
    free(c->world);
    free(c);
  }
}

rp_comm *rp_comm_by_cid(int cid) {
  for (size_t i = 0; cid >= 0 && i < nwith_id; i++)
    if (with_id[i]->cid == cid)
      return with_id[i];
  return NULL;
}

void rp_comm_attach(MPI_Comm comm, MPI_Comm shadow) {
  attach(comm, shadow, shadow == MPI_COMM_NULL);
}

void rp_comm_created(MPI_Comm newcomm) {
  if (newcomm != MPI_COMM_NULL && keyval != MPI_KEYVAL_INVALID)
    attach(newcomm, MPI_COMM_NULL, 1);
}

/* A duplicate's shadow duplicates the parent's shadow: the same group in
 * the same order, and none of the application's attributes to copy, so one
 * context-id agreement, where splitting the new communicator gathers every
 * member's colour and key first (bench/comm-limit.sh times a duplicate).
 * Whether the parent has a shadow is the same on every member, so all
 * take the same path. */
void rp_comm_dup_created(MPI_Comm parent, MPI_Comm newcomm) {
  if (newcomm == MPI_COMM_NULL || keyval == MPI_KEYVAL_INVALID)
    return;
  rp_comm *p = rp_comm_lookup(parent);
  MPI_Comm shadow = MPI_COMM_NULL;
  if (p && p->intra && p->shadow != MPI_COMM_NULL) {
    int rc;
    RP_UNLOCKED(rc = PMPI_Comm_dup(p->shadow, &shadow));
    if (rc != MPI_SUCCESS)
      shadow = MPI_COMM_NULL;
  }
  attach(newcomm, shadow, 1);
}

static void fill(rp_comm *c, const rp_comm *info) {
  if (info)
    *c = *info;
  else {
    c->shadow = MPI_COMM_NULL;
    c->rank = 0;
    c->size = 1;
    c->intra = 0;
    c->inter = 0;
    c->cid = -1;
    c->world = NULL;
  }
  if (c->intra && c->size > 1 && c->shadow == MPI_COMM_NULL)
    c->intra = 0; /* no shadow after a fault: cost locally */
}

void rp_coll_start(rp_comm *c, MPI_Comm comm) {
  rp_comm *info = rp_comm_lookup(comm);
  if (info == NULL && comm != MPI_COMM_NULL) {
    /* everybody is in this collective now */
    rp_comm_attach(comm, MPI_COMM_NULL);
    info = rp_comm_lookup(comm);
  }
  fill(c, info);
}

void rp_coll_start_sync(rp_comm *c, MPI_Comm comm) {
  rp_coll_start(c, comm);
  rp_comm *info = rp_comm_lookup(comm);
  if (info == NULL)
    return;
  info->syncs++;
  if (rp_g.pub && info->cid >= 0) /* for the others' wildcard receives */
    rp_publish(RP_PEER_COLL, -1, info->cid, info->syncs);
}

void rp_coll_start_nb(rp_comm *c, MPI_Comm comm) {
  rp_comm *info = rp_comm_lookup(comm);
  if (info == NULL) {
    static int warned;
    if (!warned++)
      rp_warn("a non-blocking collective runs on a communicator revprof did "
              "not see created; its members' clocks are not combined");
    rp_report_flag("collective-clocks", "%d non-blocking collective(s) on "
                   "communicators revprof did not see created: members' "
                   "clocks not combined", warned);
  }
  fill(c, info);
}

MPI_Comm rp_comm_shadow(MPI_Comm comm) {
  rp_comm *c = rp_comm_lookup(comm);
  return c && c->intra ? c->shadow : MPI_COMM_NULL;
}

MPI_Comm rp_world_shadow(void) {
  rp_comm *c = rp_comm_lookup(rp_g.world);
  return c && c->shadow != MPI_COMM_NULL ? c->shadow : rp_g.world;
}

void rp_comm_startup(void) {
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &keyval,
                              NULL) != MPI_SUCCESS) {
    keyval = MPI_KEYVAL_INVALID;
    rp_warn("cannot create an attribute key; collectives are costed "
            "without combining clocks");
    rp_report_flag("collective-clocks", "no MPI attribute key: collectives "
                   "costed without combining clocks");
    return;
  }
  rp_comm_created(rp_g.world);
  if (!rp_g.by_session) /* no MPI_COMM_SELF without MPI_Init */
    rp_comm_created(MPI_COMM_SELF);
}

void rp_comm_shutdown(void) {
  if (foreign_key != MPI_KEYVAL_INVALID)
    PMPI_Comm_free_keyval(&foreign_key);
  foreign_key = MPI_KEYVAL_INVALID;
  if (keyval == MPI_KEYVAL_INVALID)
    return;
  PMPI_Comm_delete_attr(rp_g.world, keyval);
  if (!rp_g.by_session)
    PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
  PMPI_Comm_free_keyval(&keyval);
  free(with_id);
  with_id = NULL;
  nwith_id = with_id_cap = 0;
}
