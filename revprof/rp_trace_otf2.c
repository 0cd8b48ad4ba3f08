/* OTF2 archive from revprof trace streams: one location per rank, regions
 * for MPI functions, compute and user regions, MpiSend/MpiRecv events, in
 * nanoseconds of simulated time. Written after the run from the per-rank
 * streams, so no MPI is needed: the global definitions come last. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rp_trace_int.h"
#include "rp_util.h"

#ifndef RP_HAVE_OTF2

int rp_trace_otf2_write(const char *dir, int size, int *partial, char *err,
                        size_t errlen) {
  (void)size;
  (void)partial;
  return rp_trace_fail(REVPROF_ENOOTF2, err, errlen,
                       "%s/traces.otf2 not written: revprof was built "
                       "without OTF2 (install libotf2-dev and rebuild)", dir);
}

#else

#include <dirent.h>
#include <unistd.h>

#include <otf2/otf2.h>

/* -------------------------------------------------------- region names */

typedef struct names {
  char **name;     /* region id -> name */
  uint32_t n;
  size_t cap;      /* room in name */
  uint32_t *slot;  /* hash table of region id + 1, 0 = empty */
  uint32_t nslot;  /* power of two */
} names;

static uint32_t hash(const char *s) { /* FNV-1a */
  uint32_t h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static void names_free(names *t) {
  for (uint32_t i = 0; i < t->n; i++)
    free(t->name[i]);
  free(t->name);
  free(t->slot);
}

/* Doubles the hash table; 0 or REVPROF_ENOMEM. */
static int names_grow(names *t) {
  uint32_t nslot = t->nslot ? 2 * t->nslot : 64;
  uint32_t *slot = calloc(nslot, sizeof *slot);
  if (!slot)
    return REVPROF_ENOMEM;
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t h = hash(t->name[i]) & (nslot - 1);
    while (slot[h])
      h = (h + 1) & (nslot - 1);
    slot[h] = i + 1;
  }
  free(t->slot);
  t->slot = slot;
  t->nslot = nslot;
  return 0;
}

/* Region id of name, added when new; UINT32_MAX when out of memory. */
static uint32_t names_id(names *t, const char *name) {
  if (2 * (t->n + 1) > t->nslot && names_grow(t) != 0)
    return UINT32_MAX;
  uint32_t h = hash(name) & (t->nslot - 1);
  for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
    if (strcmp(t->name[t->slot[h] - 1], name) == 0)
      return t->slot[h] - 1;
  char **p = rp_grow(t->name, &t->cap, (size_t)t->n + 1, sizeof *p);
  if (!p)
    return UINT32_MAX;
  t->name = p;
  if (!(t->name[t->n] = strdup(name)))
    return UINT32_MAX;
  t->slot[h] = t->n + 1;
  return t->n++;
}

/* ---------------------------------------------------------- rank events */

typedef struct state {
  double t0, t1;   /* seconds */
  uint32_t region; /* names id */
  int64_t child;   /* first state inside this one, -1 none */
  int64_t next;    /* next state inside the same parent, -1 none */
} state;

typedef struct point {  /* a message end: MpiSend or MpiRecv */
  double t;             /* seconds */
  double bytes;
  int32_t peer, tag;    /* receiver (send) or sender (recv) */
  int32_t recv;         /* 1: MpiRecv, 0: MpiSend */
  uint32_t seq;
} point;

typedef struct sendrec { /* a send as stored in the bucket file */
  double t, bytes;
  int32_t dst, tag;
} sendrec;

static int cmp_point(const void *a, const void *b) {
  const point *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  if (x->recv != y->recv) /* a receive ends its call: before a send starts */
    return x->recv ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static OTF2_TimeStamp ticks(double seconds) { /* simulated s -> ns */
  if (!(seconds > 0))
    return 0;
  if (seconds > 1.8e10) /* beyond 2^64 ns */
    return UINT64_MAX - 1;
  return (OTF2_TimeStamp)llround(seconds * 1e9);
}

typedef struct writer {
  OTF2_Archive *archive;
  names regions;
  OTF2_TimeStamp last; /* latest timestamp written, for the flush record */
  uint64_t clipped;    /* states cut to nest in their parent */
} writer;

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type,
                                OTF2_LocationRef loc, void *caller,
                                bool final) {
  (void)user, (void)type, (void)loc, (void)caller, (void)final;
  return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type,
                                 OTF2_LocationRef loc) {
  (void)type, (void)loc;
  return ((writer *)user)->last;
}

/* Reads rank's stream: its states and receives; with sends != NULL, only
 * counts (pass 0) or stores (pass 1) the sends into the bucket file. */
static int read_stream(const char *dir, int rank, int size, writer *w,
                       rp_vec *states, rp_vec *points, uint64_t *count,
                       uint64_t *fill, int bucket_fd, int *partial,
                       char *err, size_t errlen) {
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  int rc = rp_trace_open_rank(dir, rank, &r, err, errlen);
  if (rc == 1) { /* left out (the Chrome writer said so already) */
    *partial = 1;
    return 0;
  }
  uint32_t seq = 0;
  while (rc == 0 && (rc = rp_trace_reader_next(r, &ev, err, errlen)) == 1) {
    rc = 0;
    seq++;
    if (ev.kind == 'S') {
      uint32_t id = names_id(&w->regions, ev.name);
      state *s = id == UINT32_MAX ? NULL : states ? rp_vec_push(states) : NULL;
      if (id == UINT32_MAX || (states && !s))
        rc = rp_trace_fail(REVPROF_ENOMEM, err, errlen, "out of memory");
      else if (s)
        *s = (state){ev.t0, ev.t1 > ev.t0 ? ev.t1 : ev.t0, id, -1, -1};
    } else if (ev.src < size) {
      if (count)
        count[ev.src]++;
      if (bucket_fd >= 0) {
        sendrec sr = {ev.t0, ev.bytes, rank, ev.tag};
        off_t at = (off_t)(fill[ev.src]++ * sizeof sr);
        if (pwrite(bucket_fd, &sr, sizeof sr, at) != (ssize_t)sizeof sr)
          rc = rp_trace_fail(REVPROF_EIO, err, errlen, "temporary file: %s",
                             strerror(errno));
      }
      if (points) {
        point *p = rp_vec_push(points);
        if (!p)
          rc = rp_trace_fail(REVPROF_ENOMEM, err, errlen, "out of memory");
        else
          *p = (point){ev.t1, ev.bytes, ev.src, ev.tag, 1, seq};
      }
    }
  }
  if (rc == 0 && rp_trace_reader_end(r) != RP_TRACE_END_COMPLETE)
    *partial = 1;
  rp_trace_reader_close(r);
  return rc;
}

/* Emits the points due before an event at time t: all earlier ones, and at
 * t itself the receives when the event is a Leave. */
static OTF2_ErrorCode emit_points(OTF2_EvtWriter *ew, writer *w,
                                  const point *pt, size_t np, size_t *next,
                                  OTF2_TimeStamp t, int leaving,
                                  uint64_t *nev) {
  OTF2_ErrorCode e = OTF2_SUCCESS;
  for (; *next < np && e == OTF2_SUCCESS; (*next)++) {
    const point *p = &pt[*next];
    OTF2_TimeStamp pt_t = ticks(p->t);
    if (!(pt_t < t || (leaving && p->recv && pt_t == t)))
      break;
    w->last = pt_t > w->last ? pt_t : w->last;
    uint64_t len = p->bytes > 0 ? (uint64_t)p->bytes : 0;
    if (p->recv)
      e = OTF2_EvtWriter_MpiRecv(ew, NULL, w->last, (uint32_t)p->peer, 0,
                                 (uint32_t)p->tag, len);
    else
      e = OTF2_EvtWriter_MpiSend(ew, NULL, w->last, (uint32_t)p->peer, 0,
                                 (uint32_t)p->tag, len);
    (*nev)++;
  }
  return e;
}

/* Emits Enter or Leave of state st at its start or end (never before the
 * last event: a state that began before its parent enters with it). */
static OTF2_ErrorCode emit_state(OTF2_EvtWriter *ew, writer *w,
                                 const state *st, int leave, const point *pt,
                                 size_t np, size_t *next, uint64_t *nev) {
  OTF2_TimeStamp t = ticks(leave ? st->t1 : st->t0);
  t = t > w->last ? t : w->last;
  OTF2_ErrorCode e = emit_points(ew, w, pt, np, next, t, leave, nev);
  if (e == OTF2_SUCCESS)
    e = leave ? OTF2_EvtWriter_Leave(ew, NULL, t, st->region)
              : OTF2_EvtWriter_Enter(ew, NULL, t, st->region);
  w->last = t;
  (*nev)++;
  return e;
}

/* Writes one location: states as properly nested Enter/Leave pairs with
 * the message points between them. States come in the order they ended
 * (librevprof records a state when it ends), so a state encloses the
 * states recorded just before it that were still running when it began;
 * one that ended as it began (at the same time) came before it. */
static OTF2_ErrorCode write_location(writer *w, OTF2_EvtWriter *ew,
                                     state *st, size_t ns, point *pt,
                                     size_t np, uint64_t *nev) {
  size_t *stack = malloc((ns ? ns : 1) * sizeof *stack);
  int64_t *path = malloc((ns ? ns : 1) * sizeof *path);
  int64_t *todo = malloc((ns ? ns : 1) * sizeof *todo);
  size_t depth = 0, next = 0;
  OTF2_ErrorCode e = stack && path && todo ? OTF2_SUCCESS
                                           : OTF2_ERROR_MEM_ALLOC_FAILED;
  if (np > 1) /* pt is NULL for a rank without messages */
    qsort(pt, np, sizeof *pt, cmp_point);
  for (size_t i = 0; i < ns && e == OTF2_SUCCESS; i++) {
    int64_t kids = -1;
    while (depth && st[stack[depth - 1]].t1 > st[i].t0) {
      size_t j = stack[--depth]; /* still running when st[i] began */
      st[j].next = kids;
      kids = (int64_t)j;
    }
    st[i].child = kids;
    stack[depth++] = i;
  }
  for (size_t r = 0; r < depth && e == OTF2_SUCCESS; r++) {
    size_t plen = 1;
    path[0] = (int64_t)stack[r];
    todo[0] = st[stack[r]].child;
    e = emit_state(ew, w, &st[stack[r]], 0, pt, np, &next, nev);
    while (plen && e == OTF2_SUCCESS) {
      int64_t c = todo[plen - 1];
      if (c < 0) { /* all inside done */
        e = emit_state(ew, w, &st[path[--plen]], 1, pt, np, &next, nev);
        continue;
      }
      todo[plen - 1] = st[c].next;
      if (st[c].t1 > st[path[plen - 1]].t1) { /* overlaps the parent's end */
        st[c].t1 = st[path[plen - 1]].t1;
        w->clipped++;
      }
      e = emit_state(ew, w, &st[c], 0, pt, np, &next, nev);
      path[plen] = c;
      todo[plen++] = st[c].child;
    }
  }
  if (e == OTF2_SUCCESS)
    e = emit_points(ew, w, pt, np, &next, UINT64_MAX, 1, nev);
  free(stack);
  free(path);
  free(todo);
  return e;
}

/* ------------------------------------------------------- definitions */

static OTF2_RegionRole region_role(const char *name, OTF2_Paradigm *par) {
  rp_trace_class c = rp_trace_classify(name);
  const char *f = name + (strncmp(name, "PMPI_", 5) == 0 ? 5 : 4);
  *par = OTF2_PARADIGM_MPI;
  switch (c) {
  case RP_TRACE_CLASS_SEND:
  case RP_TRACE_CLASS_RECV:
    return OTF2_REGION_ROLE_POINT2POINT;
  case RP_TRACE_CLASS_COLL:
    if (f[0] == 'I' && f[1] != 'n')
      f++;
    if (strncasecmp(f, "Barrier", 7) == 0)
      return OTF2_REGION_ROLE_BARRIER;
    if (strncasecmp(f, "Bcast", 5) == 0 || strncasecmp(f, "Scatter", 7) == 0)
      return OTF2_REGION_ROLE_COLL_ONE2ALL;
    if (strncasecmp(f, "Reduce", 6) == 0 &&
        strncasecmp(f, "Reduce_scatter", 14) != 0)
      return OTF2_REGION_ROLE_COLL_ALL2ONE;
    if (strncasecmp(f, "Gather", 6) == 0)
      return OTF2_REGION_ROLE_COLL_ALL2ONE;
    if (strncasecmp(f, "Scan", 4) == 0 || strncasecmp(f, "Exscan", 6) == 0 ||
        strncasecmp(f, "Neighbor", 8) == 0)
      return OTF2_REGION_ROLE_COLL_OTHER;
    return OTF2_REGION_ROLE_COLL_ALL2ALL;
  case RP_TRACE_CLASS_WAIT:
  case RP_TRACE_CLASS_MPI:
    return OTF2_REGION_ROLE_FUNCTION;
  case RP_TRACE_CLASS_IDLE:
    *par = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    return OTF2_REGION_ROLE_ARTIFICIAL;
  case RP_TRACE_CLASS_COMPUTE:
    *par = OTF2_PARADIGM_USER;
    return OTF2_REGION_ROLE_CODE;
  default:
    *par = OTF2_PARADIGM_USER;
    return OTF2_REGION_ROLE_CODE;
  }
}

/* String ids: the fixed ones, then one per region, then one per rank. */
enum { S_EMPTY, S_MACHINE, S_NODE, S_WORLD, S_WORLD_GROUP, S_LOCS, S_COUNT };

static OTF2_ErrorCode write_globals(writer *w, OTF2_GlobalDefWriter *g,
                                    int size, const uint64_t *nevents,
                                    OTF2_TimeStamp length) {
  static const char *const fixed[S_COUNT] = {
      "", "revprof simulated machine", "machine", "MPI_COMM_WORLD",
      "MPI_COMM_WORLD group", "MPI_COMM_WORLD locations"};
  const uint32_t s_region = S_COUNT, s_rank = S_COUNT + w->regions.n;
  char buf[64];
  OTF2_ErrorCode e =
      OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 0, length,
                                                OTF2_UNDEFINED_TIMESTAMP);
  for (uint32_t i = 0; i < S_COUNT && e == OTF2_SUCCESS; i++)
    e = OTF2_GlobalDefWriter_WriteString(g, i, fixed[i]);
  for (uint32_t i = 0; i < w->regions.n && e == OTF2_SUCCESS; i++)
    e = OTF2_GlobalDefWriter_WriteString(g, s_region + i, w->regions.name[i]);
  for (int r = 0; r < size && e == OTF2_SUCCESS; r++) {
    snprintf(buf, sizeof buf, "rank %d", r);
    e = OTF2_GlobalDefWriter_WriteString(g, s_rank + (uint32_t)r, buf);
  }
  for (uint32_t i = 0; i < w->regions.n && e == OTF2_SUCCESS; i++) {
    OTF2_Paradigm par;
    OTF2_RegionRole role = region_role(w->regions.name[i], &par);
    e = OTF2_GlobalDefWriter_WriteRegion(g, i, s_region + i, s_region + i,
                                         S_EMPTY, role, par,
                                         OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
  }
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteSystemTreeNode(
        g, 0, S_MACHINE, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (int r = 0; r < size && e == OTF2_SUCCESS; r++)
    e = OTF2_GlobalDefWriter_WriteLocationGroup(
        g, (OTF2_LocationGroupRef)r, s_rank + (uint32_t)r,
        OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
  for (int r = 0; r < size && e == OTF2_SUCCESS; r++)
    e = OTF2_GlobalDefWriter_WriteLocation(
        g, (OTF2_LocationRef)r, s_rank + (uint32_t)r,
        OTF2_LOCATION_TYPE_CPU_THREAD, nevents[r], (OTF2_LocationGroupRef)r);
  uint64_t *members = malloc((size_t)size * sizeof *members);
  if (!members)
    return OTF2_ERROR_MEM_ALLOC_FAILED;
  for (int r = 0; r < size; r++)
    members[r] = (uint64_t)r;
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteGroup(g, 0, S_LOCS,
                                        OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)size, members);
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteGroup(g, 1, S_WORLD_GROUP,
                                        OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)size, members);
  free(members);
  if (e == OTF2_SUCCESS)
    e = OTF2_GlobalDefWriter_WriteComm(g, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
  return e;
}

/* Removes an earlier archive: traces.otf2, traces.def, traces/ (only the
 * .evt and .def files OTF2 writes there). */
static int remove_archive(const char *dir, char *err, size_t errlen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/traces.otf2", dir);
  remove(path);
  snprintf(path, sizeof path, "%s/traces.def", dir);
  remove(path);
  snprintf(path, sizeof path, "%s/traces", dir);
  DIR *d = opendir(path);
  if (!d)
    return 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    size_t n = strlen(de->d_name);
    if (n > 4 && (strcmp(de->d_name + n - 4, ".evt") == 0 ||
                  strcmp(de->d_name + n - 4, ".def") == 0)) {
      char f[4400];
      snprintf(f, sizeof f, "%s/%s", path, de->d_name);
      remove(f);
    }
  }
  closedir(d);
  if (rmdir(path) != 0)
    return rp_trace_fail(REVPROF_EIO, err, errlen,
                         "cannot replace the OTF2 archive %s: %s", path,
                         strerror(errno));
  return 0;
}

static int otf2_fail(OTF2_ErrorCode e, const char *dir, char *err,
                     size_t errlen) {
  return rp_trace_fail(REVPROF_EOTF2, err, errlen, "%s/traces.otf2: %s: %s",
                       dir, OTF2_Error_GetName(e),
                       OTF2_Error_GetDescription(e));
}

int rp_trace_otf2_write(const char *dir, int size, int *partial, char *err,
                        size_t errlen) {
  writer w = {0};
  rp_vec states = {.elt = sizeof(state)}, points = {.elt = sizeof(point)};
  uint64_t *count = calloc((size_t)size, sizeof *count);
  uint64_t *start = calloc((size_t)size + 1, sizeof *start);
  uint64_t *fill = calloc((size_t)size, sizeof *fill);
  uint64_t *nevents = calloc((size_t)size, sizeof *nevents);
  FILE *bucket = tmpfile();
  int rc = 0;
  OTF2_ErrorCode e = OTF2_SUCCESS;
  if (!count || !start || !fill || !nevents)
    rc = rp_trace_fail(REVPROF_ENOMEM, err, errlen, "out of memory");
  else if (!bucket)
    rc = rp_trace_fail(REVPROF_EIO, err, errlen, "temporary file: %s",
                       strerror(errno));
  /* pass 0: region names and sends per sender; pass 1: sends into their
   * sender's bucket, so each location gets its sends in one read */
  for (int r = 0; r < size && rc == 0; r++)
    rc = read_stream(dir, r, size, &w, NULL, NULL, count, NULL, -1, partial,
                     err, errlen);
  for (int r = 0; r < size && rc == 0; r++)
    start[r + 1] = start[r] + count[r];
  if (rc == 0)
    memcpy(fill, start, (size_t)size * sizeof *fill);
  for (int r = 0; r < size && rc == 0; r++)
    rc = read_stream(dir, r, size, &w, NULL, NULL, NULL, fill,
                     fileno(bucket), partial, err, errlen);
  if (rc == 0)
    rc = remove_archive(dir, err, errlen);
  if (rc == 0) {
    w.archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE,
                                  1024 * 1024, 4 * 1024 * 1024,
                                  OTF2_SUBSTRATE_POSIX,
                                  OTF2_COMPRESSION_NONE);
    if (!w.archive)
      rc = rp_trace_fail(REVPROF_EOTF2, err, errlen,
                         "%s/traces.otf2: cannot create the OTF2 archive", dir);
  }
  if (rc == 0) {
    static const OTF2_FlushCallbacks fcb = {pre_flush, post_flush};
    e = OTF2_Archive_SetFlushCallbacks(w.archive, &fcb, &w); /* kept */
    if (e == OTF2_SUCCESS)
      e = OTF2_Archive_SetSerialCollectiveCallbacks(w.archive);
    if (e == OTF2_SUCCESS)
      e = OTF2_Archive_SetCreator(w.archive, "revprof (reverse profiling)");
    if (e == OTF2_SUCCESS)
      e = OTF2_Archive_SetDescription(
          w.archive, *partial ? "revprof prediction in simulated time "
                               "(PARTIAL: the run did not finish)"
                             : "revprof prediction in simulated time");
    if (e == OTF2_SUCCESS)
      e = OTF2_Archive_SetProperty(w.archive, "REVPROF::PARTIAL",
                                   *partial ? "true" : "false", true);
    if (e == OTF2_SUCCESS)
      e = OTF2_Archive_SetProperty(w.archive, "REVPROF::CLOCK", "simulated",
                                   true);
    if (e == OTF2_SUCCESS)
      e = OTF2_Archive_OpenEvtFiles(w.archive);
  }
  OTF2_TimeStamp length = 0;
  for (int r = 0; r < size && rc == 0 && e == OTF2_SUCCESS; r++) {
    states.n = points.n = 0;
    rc = read_stream(dir, r, size, &w, &states, &points, NULL, NULL, -1,
                     partial, err, errlen);
    for (uint64_t i = 0; i < count[r] && rc == 0; i++) {
      sendrec sr;
      point *p = rp_vec_push(&points);
      off_t at = (off_t)((start[r] + i) * sizeof sr);
      if (!p)
        rc = rp_trace_fail(REVPROF_ENOMEM, err, errlen, "out of memory");
      else if (pread(fileno(bucket), &sr, sizeof sr, at) != (ssize_t)sizeof sr)
        rc = rp_trace_fail(REVPROF_EIO, err, errlen, "temporary file: %s",
                           strerror(errno));
      else
        *p = (point){sr.t, sr.bytes, sr.dst, sr.tag, 0, (uint32_t)i};
    }
    if (rc != 0)
      break;
    OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w.archive,
                                                   (OTF2_LocationRef)r);
    if (!ew) {
      rc = rp_trace_fail(REVPROF_EOTF2, err, errlen,
                         "%s/traces.otf2: no event writer for rank %d", dir, r);
      break;
    }
    w.last = 0;
    e = write_location(&w, ew, states.p, states.n, points.p, points.n,
                       &nevents[r]);
    length = w.last > length ? w.last : length;
    OTF2_ErrorCode e2 = OTF2_Archive_CloseEvtWriter(w.archive, ew);
    if (e == OTF2_SUCCESS)
      e = e2;
  }
  if (w.archive && rc == 0 && e == OTF2_SUCCESS)
    e = OTF2_Archive_CloseEvtFiles(w.archive);
  if (w.archive && rc == 0 && e == OTF2_SUCCESS)
    e = OTF2_Archive_OpenDefFiles(w.archive);
  for (int r = 0; r < size && rc == 0 && e == OTF2_SUCCESS; r++) {
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w.archive,
                                                   (OTF2_LocationRef)r);
    e = dw ? OTF2_Archive_CloseDefWriter(w.archive, dw)
           : OTF2_ERROR_MEM_ALLOC_FAILED;
  }
  if (w.archive && rc == 0 && e == OTF2_SUCCESS)
    e = OTF2_Archive_CloseDefFiles(w.archive);
  if (w.archive && rc == 0 && e == OTF2_SUCCESS) {
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w.archive);
    e = g ? write_globals(&w, g, size, nevents, length + 1)
          : OTF2_ERROR_MEM_ALLOC_FAILED;
  }
  if (w.archive) {
    OTF2_ErrorCode e2 = OTF2_Archive_Close(w.archive);
    if (e == OTF2_SUCCESS)
      e = e2;
  }
  if (rc == 0 && e != OTF2_SUCCESS)
    rc = otf2_fail(e, dir, err, errlen);
  if (bucket)
    fclose(bucket);
  free(states.p);
  free(points.p);
  free(count);
  free(start);
  free(fill);
  free(nevents);
  names_free(&w.regions);
  return rc;
}

#endif /* RP_HAVE_OTF2 */
