/* Online monitoring's rounds.csv is there while the job runs (issue 12):
 * every application rank offloads ROUNDS profiles (revprof_monitor_offload,
 * REVPROF_MONITOR_INTERVAL=calls), then rank 0 reads
 * REVPROF_OUTPUT_DIR/monitor/rounds.csv (default revprof-out) until it
 * holds ROUNDS rows, or LIMIT_S seconds have passed, while the job is still
 * inside MPI_Init..MPI_Finalize; it prints "live rounds: N of ROUNDS, oc
 * empty: E, previous oc: P" (E: rows whose oc_s column is empty: the
 * offload costs come at the end; P: rows whose prev_oc_s, the cost of the
 * offload before, is there already). Linked with librevprof.
 *
 * With RP_REGIONS=N in the environment, every rank first runs a region
 * whose name is 250 characters long with a comma in it ("long,name" then
 * x's), then N regions named r0 .. r<N-1> once each (compensate mode
 * profiles them), rank k starting at r<k>, so that the ranks meet them in
 * different orders.
 *
 * With RP_LUA_REGIONS=N, every rank calls the annotated regions "a" N
 * times and "b" 2N times, alternating, their names written into one
 * buffer (predict mode costs them with the REVPROF_LUA file's functions a
 * and b). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "revprof.h"

enum { ROUNDS = 3, LIMIT_S = 120 };

/* the field after the c-th comma of line (NULL: none) */
static const char *field(const char *line, int c) {
  const char *p = line;
  for (int i = 0; i < c && p; i++)
    p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
  return p;
}

/* data rows of path, how many have an empty 5th column (oc_s) and how
 * many a positive 10th (prev_oc_s) */
static int rows(const char *path, int *oc_empty, int *prev_oc) {
  FILE *f = fopen(path, "r");
  char line[512];
  int n = 0;
  *oc_empty = *prev_oc = 0;
  if (f == NULL)
    return 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "round,", 6) == 0 || strchr(line, '\n') == NULL)
      continue; /* the header, or a row being written */
    const char *p = field(line, 4), *q = field(line, 9);
    *oc_empty += p && *p == ',';
    *prev_oc += q && atof(q) > 0.0;
    n++;
  }
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *nr = getenv("RP_REGIONS");
  int regions = nr ? atoi(nr) : 0;
  if (regions > 0) {
    char name[251];
    memset(name, 'x', sizeof name - 1);
    memcpy(name, "long,name", 9);
    name[sizeof name - 1] = '\0';
    revprof_region_begin(name);
    revprof_region_end(name);
  }
  for (int i = 0; i < regions; i++) {
    char name[32]; /* one buffer for every name: revprof copies them */
    snprintf(name, sizeof name, "r%d", (rank + i) % regions);
    revprof_region_begin(name);
    revprof_region_end(name);
  }
  const char *nl = getenv("RP_LUA_REGIONS");
  int lua = nl ? atoi(nl) : 0;
  for (int i = 0; i < 3 * lua; i++) {
    char name[2] = {i % 3 ? 'b' : 'a', '\0'};
    revprof_region(name);
  }
  for (int i = 0; i < ROUNDS; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    revprof_monitor_offload();
  }
  if (rank == 0) {
    const char *dir = getenv("REVPROF_OUTPUT_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/monitor/rounds.csv",
             dir && *dir ? dir : "revprof-out");
    struct timespec pause = {0, 20000000}; /* 20 ms */
    int n = 0, empty = 0, prev = 0;
    for (int t = 0;
         t < LIMIT_S * 50 && (n = rows(path, &empty, &prev)) < ROUNDS; t++)
      nanosleep(&pause, NULL);
    printf("live rounds: %d of %d, oc empty: %d, previous oc: %d\n", n,
           ROUNDS, empty, prev);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
