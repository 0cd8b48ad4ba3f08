/* MPI-IO (issue 17): the clock rules of files, in predict mode. Each file
 * revprof saw opened keeps a private communicator over its group (for the
 * clocks of collective calls; MPI_File has no attributes, so a small table
 * maps the handle to it). The rules (docs/revprof.md, "MPI-IO"):
 *   - MPI_File_open and MPI_File_close are collectives over the file's
 *     group: the clocks meet (their maximum), then the model's
 *     MPI_File_open or MPI_File_close at p = the group's size is added;
 *   - an independent data access (read/write at an offset, through the
 *     individual or the shared file pointer, and their non-blocking
 *     forms, costed when issued) adds the model's MPI_File_write_at or
 *     MPI_File_read_at of its bytes at p = the group's size (the model
 *     measures p ranks accessing at once);
 *   - a blocking collective data access (the _all and _ordered calls, and
 *     the _begin of split collectives) is a collective: the clocks meet
 *     and MPI_File_write_at_all or _read_at_all of the members' largest
 *     block is added. The non-blocking collectives (MPI_File_iwrite_all,
 *     ...) are costed locally when issued: a blocking exchange there could
 *     deadlock a correct program;
 *   - MPI_File_sync, _set_size, _preallocate and _set_view are collectives
 *     over the file's group like the blocking collective accesses, d the
 *     size asked for (set_size, preallocate) or 0;
 *   - MPI_File_delete names a file, not a handle: this rank alone adds the
 *     model's MPI_File_delete at p = 1.
 * Where the model has no row for a call (models without an I/O part,
 * compensate mode), the call runs natively and its host time is counted
 * in the report's "not predicted" line. */
#include "rp_ops.h"

#include <stdlib.h>

typedef struct rp_file {
  MPI_File fh;
  MPI_Comm comm; /* private, over the file's group */
  int size;
} rp_file;

static rp_file *files;
static size_t nfiles, files_cap;

static rp_file *find(MPI_File fh) {
  for (size_t i = 0; fh != MPI_FILE_NULL && i < nfiles; i++)
    if (files[i].fh == fh)
      return &files[i];
  return NULL;
}

static void forget(rp_file *f) {
  if (f->comm != MPI_COMM_NULL)
    PMPI_Comm_free(&f->comm);
  *f = files[--nfiles];
}

void rp_io_shutdown(void) {
  while (nfiles > 0)
    forget(&files[nfiles - 1]);
  free(files);
  files = NULL;
  files_cap = 0;
}

/* A call costed on this rank alone at p members */
static void local(int p, revprof_fn fn, double d) {
  double cost[RP_NB];
  rp_cost_fast(fn, (double)p, d, cost);
  rp_clock_local(&rp_g.clk, cost);
}

void rp_io_access(rp_wid w, MPI_File fh, revprof_fn fn, double d, int coll,
                  int rc, double host) {
  if (fn == REVPROF_FN_COUNT)
    return; /* costs nothing (a split collective's _end, a seek) */
  if (!rp_costed(fn)) {
    rp_g.host_unc[w] += host;
    return;
  }
  rp_file *f = find(fh);
  if (f == NULL) { /* opened where revprof did not see it */
    rp_report_flag("io", "a file revprof did not see opened: its calls are "
                   "costed at p = 1, without the other members' clocks");
    if (rc == MPI_SUCCESS)
      local(1, fn, d);
  } else if (coll) {
    rp_coll_meet_on(f->comm, f->size, fn, rc == MPI_SUCCESS ? d : 0.0);
  } else if (rc == MPI_SUCCESS) {
    local(f->size, fn, d);
  }
  rp_t.cur_bytes += d;
}

/* After MPI_File_open on comm (every member): the file's private
 * communicator (split, not dup: the application's copy callbacks never see
 * it), then the open's clock rule. */
static void opened(MPI_Comm comm, MPI_File fh, int rc, double host) {
  if (rp_g.model == NULL || (rp_g.dynamic && rp_comm_foreign(comm))) {
    rp_g.host_unc[RP_W_MPI_File_open] += host;
    return;
  }
  int rank = 0;
  MPI_Comm mine = MPI_COMM_NULL;
  PMPI_Comm_rank(comm, &rank);
  int src;
  RP_UNLOCKED(src = PMPI_Comm_split(comm, 0, rank, &mine));
  if (src != MPI_SUCCESS)
    mine = MPI_COMM_NULL;
  if (rc == MPI_SUCCESS && mine != MPI_COMM_NULL) {
    rp_file *grown = rp_grow(files, &files_cap, nfiles + 1, sizeof *files);
    if (grown == NULL) {
      rp_report_flag("io", "out of memory: a file's calls costed at p = 1");
    } else {
      files = grown;
      files[nfiles].fh = fh;
      files[nfiles].comm = mine;
      PMPI_Comm_size(mine, &files[nfiles].size);
      nfiles++;
      mine = MPI_COMM_NULL;
    }
  }
  rp_file *f = find(fh);
  if (!rp_costed(REVPROF_FN_FILE_OPEN))
    rp_g.host_unc[RP_W_MPI_File_open] += host;
  else if (f != NULL)
    rp_coll_meet_on(f->comm, f->size, REVPROF_FN_FILE_OPEN, 0.0);
  else if (mine != MPI_COMM_NULL) { /* this member's open failed */
    int size = 1;
    PMPI_Comm_size(mine, &size);
    rp_coll_meet_on(mine, size, REVPROF_FN_FILE_OPEN, 0.0);
  }
  if (mine != MPI_COMM_NULL)
    PMPI_Comm_free(&mine);
}

RP_EXPORT int MPI_File_open(MPI_Comm comm, const char *filename, int amode,
                            MPI_Info info, MPI_File *fh) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_File_open(comm, filename, amode, info, fh);
  rp_enter(RP_W_MPI_File_open);
  double h0 = rp_host_seconds();
  int rc;
  RP_UNLOCKED(rc = PMPI_File_open(comm, filename, amode, info, fh));
  opened(comm, rc == MPI_SUCCESS ? *fh : MPI_FILE_NULL, rc,
         rp_host_seconds() - h0);
  rp_leave(RP_W_MPI_File_open);
  return rc;
}

RP_EXPORT int MPI_File_close(MPI_File *fh) {
  if (rp_bypass())
    return PMPI_File_close(fh);
  rp_enter(RP_W_MPI_File_close);
  MPI_File was = *fh; /* the table may change while the call runs */
  double h0 = rp_host_seconds();
  int rc;
  RP_UNLOCKED(rc = PMPI_File_close(fh));
  double host = rp_host_seconds() - h0;
  rp_file *f = find(was);
  if (!rp_costed(REVPROF_FN_FILE_CLOSE))
    rp_g.host_unc[RP_W_MPI_File_close] += host;
  else if (f != NULL) {
    rp_file copy = *f;
    rp_coll_meet_on(copy.comm, copy.size, REVPROF_FN_FILE_CLOSE, 0.0);
    f = find(was);
  }
  if (f != NULL)
    forget(f);
  rp_leave(RP_W_MPI_File_close);
  return rc;
}

RP_EXPORT int MPI_File_delete(const char *filename, MPI_Info info) {
  if (rp_bypass())
    return PMPI_File_delete(filename, info);
  rp_enter(RP_W_MPI_File_delete);
  double h0 = rp_host_seconds();
  int rc;
  RP_UNLOCKED(rc = PMPI_File_delete(filename, info));
  double host = rp_host_seconds() - h0;
  if (!rp_costed(REVPROF_FN_FILE_DELETE))
    rp_g.host_unc[RP_W_MPI_File_delete] += host;
  else if (rc == MPI_SUCCESS)
    local(1, REVPROF_FN_FILE_DELETE, 0.0);
  rp_leave(RP_W_MPI_File_delete);
  return rc;
}
