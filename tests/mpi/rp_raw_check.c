/* Test helper (no MPI): reads a raw CSV written by revprof-characterize with
 * revprof_raw_read and checks each row against what the run should give.
 * usage: rp_raw_check RAW.csv RANKS [FUNCTIONS|all|simulated|any]
 * "all": every row but file I/O (timed only with --io-dir); "simulated":
 * all but what SimGrid's SMPI does not implement (the neighbourhood
 * collectives).
 * FUNCTIONS: each must have a row at every group size (p = 2..RANKS for
 * collectives) and no other may appear; "any": rows need only be valid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "revprof_model.h"

static int fail(const char *what, const revprof_point *p) {
  fprintf(stderr, "rp_raw_check: %s: %s p=%d d=%.0f\n", what,
          revprof_fn_name(p->fn), p->p, p->d);
  return 1;
}

int main(int argc, char **argv) {
  char err[1024] = "";
  revprof_raw *raw = NULL;
  unsigned char want[REVPROF_FN_COUNT] = {0};
  if (argc < 3) {
    fprintf(stderr, "usage: rp_raw_check RAW.csv RANKS [FUNCTIONS|all|any]\n");
    return 2;
  }
  int ranks = atoi(argv[2]);
  const char *fns = argc > 3 ? argv[3] : "all";
  int any = strcmp(fns, "any") == 0, sim = strcmp(fns, "simulated") == 0;
  if (strcmp(fns, "all") == 0 || any || sim) {
    for (int f = 0; f < REVPROF_FN_COUNT; f++) /* "any" takes them too */
      want[f] = any || strncmp(revprof_fn_name((revprof_fn)f), "MPI_File_",
                               9) != 0;
    if (sim)
      want[REVPROF_FN_NEIGHBOR_ALLGATHER] =
          want[REVPROF_FN_NEIGHBOR_ALLTOALL] = 0;
  } else {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", fns);
    for (char *s = NULL, *t = strtok_r(buf, ",", &s); t;
         t = strtok_r(NULL, ",", &s)) {
      revprof_fn fn = revprof_fn_lookup(t);
      if (fn == REVPROF_FN_COUNT) {
        fprintf(stderr, "rp_raw_check: unknown function %s\n", t);
        return 2;
      }
      want[fn] = 1;
    }
  }
  if (revprof_raw_read(argv[1], &raw, err, sizeof err) != 0) {
    fprintf(stderr, "rp_raw_check: %s\n", err);
    return 1;
  }
  /* seen[fn][p]: rows per function and group size */
  int seen[REVPROF_FN_COUNT][65] = {{0}};
  int bad = 0;
  for (size_t i = 0; i < raw->n && !bad; i++) {
    const revprof_point *p = &raw->pt[i];
    revprof_fn_kind k = revprof_fn_kind_of(p->fn);
    if (!want[p->fn])
      bad = fail("function not asked for", p);
    else if (p->reps < 2)
      bad = fail("fewer than 2 repetitions", p);
    else if (k == REVPROF_KIND_P2P && p->p != 2)
      bad = fail("point-to-point needs p = 2", p);
    else if (k == REVPROF_KIND_LOCAL && (p->p != 1 || p->d != 0))
      bad = fail("local needs p = 1, d = 0", p);
    else if (k == REVPROF_KIND_COLL && (p->p < 2 || p->p > ranks))
      bad = fail("group size out of 2..ranks", p);
    else if ((p->fn == REVPROF_FN_BARRIER || p->fn == REVPROF_FN_IBARRIER ||
              p->fn == REVPROF_FN_FILE_OPEN ||
              p->fn == REVPROF_FN_FILE_CLOSE ||
              p->fn == REVPROF_FN_FILE_SYNC ||
              p->fn == REVPROF_FN_FILE_SET_VIEW) &&
             p->d != 0)
      bad = fail("barrier, file open, close, sync or set_view with data", p);
    else if (p->p <= 64)
      seen[p->fn][p->p]++;
  }
  for (int f = 0; f < REVPROF_FN_COUNT && !bad && !any; f++) {
    if (!want[f])
      continue;
    revprof_fn_kind k = revprof_fn_kind_of((revprof_fn)f);
    int lo = k == REVPROF_KIND_COLL ? 2 : k == REVPROF_KIND_P2P ? 2 : 1;
    int hi = k == REVPROF_KIND_COLL ? (ranks < 64 ? ranks : 64) : lo;
    for (int p = lo; p <= hi; p++)
      if (seen[f][p] == 0) {
        fprintf(stderr, "rp_raw_check: no row for %s at p = %d\n",
                revprof_fn_name((revprof_fn)f), p);
        bad = 1;
        break;
      }
  }
  if (!bad)
    printf("rp_raw_check: %s: ok, %zu rows\n", argv[1], raw->n);
  revprof_raw_free(raw);
  return bad;
}
