/* Timing kernels of revprof-characterize: for each MPI function of the model,
 * what happens before the synchronization (pre-posted receives, messages
 * that must have arrived), the timed call, and the completion afterwards. */
#ifndef RP_KERNELS_H
#define RP_KERNELS_H

#include <mpi.h>

#include "revprof_functions.h"

#define RP_NOT_TIMED (-1.0) /* this rank's time does not count */

/* Waits until MPI_Wtime() reaches t: spinning natively, a simulated sleep
 * under SimGrid (-DRP_SMPI; its clock moves only in MPI calls and
 * sleeps). */
void rp_wait_until(double t);
/* The eager limit (machine.eager_limit) between the two ranks of p2p
 * (collective over it): rank 0 searches sizes up to dmax
 * (rp_char_eager_search) for the smallest MPI_Send that waits for a
 * receive posted RP_EAGER_DELAY late, the majority of RP_EAGER_REPS sends
 * taking over half that delay; twice, and a third time when the two
 * differ (the median). Rank 0 gets the limit in bytes, INFINITY when no
 * size waited; rank 1 gets 0. */
#define RP_EAGER_DELAY 200e-6
#define RP_EAGER_REPS 5
double rp_eager_probe(MPI_Comm p2p, long dmax);
#define RP_WTIME_CALLS 100  /* MPI_Wtime calls per repetition */
#define RP_IO_PATH 1152     /* --io-dir (under 1024 bytes) + a file name */

/* One point's buffers and arguments on one rank of its group. */
typedef struct rp_kctx {
  revprof_fn fn;
  MPI_Comm comm;        /* the group of the point */
  int rank, size;       /* in comm; P2P: 0 sends or pings, 1 receives */
  int count;            /* d as a count of MPI_BYTE / MPI_UNSIGNED_CHAR */
  unsigned char *sbuf;  /* send buffer, touched before timing */
  size_t sbytes;        /* its bytes (rp_char_buffers) */
  unsigned char fill;   /* the byte rp_kctx_fresh wrote last */
  unsigned char *rbuf;  /* receive buffer, touched before timing */
  int *counts, *displs; /* size entries (v-variants, Reduce_scatter) */
  MPI_Request req;      /* request left open by pre or run */
  MPI_Request train[REVPROF_GAP_TRAIN]; /* the "gap" row's messages */
  MPI_Win win;          /* one-sided functions: a window over rbuf on
                           comm; MPI_WIN_NULL otherwise */
  MPI_Comm graph;       /* neighbourhood collectives: comm as a complete
                           distributed graph; MPI_COMM_NULL otherwise */
  MPI_File fh;          /* file I/O: the point's file while open (across
                           the repetitions of reads, writes, sync,
                           set_size, preallocate and set_view; one
                           repetition for open and close); else
                           MPI_FILE_NULL */
  char path[RP_IO_PATH]; /* file I/O: the point's file; else "" */
} rp_kctx;

/* Where the file I/O rows put their files: DIR/revprof-io-TAG-SEQ.dat, one
 * per point. Every group's rank 0 is world rank 0, which counts seq and
 * sends it to the group, so the members agree on the name. */
typedef struct rp_io_place {
  const char *dir; /* --io-dir; NULL when no file I/O is timed */
  long tag;        /* world rank 0's process id, the same on every rank */
  long seq;        /* files named so far (meaningful on world rank 0) */
} rp_io_place;

/* The three phases of one repetition. pre runs before the synchronization,
 * run is timed: it returns the seconds this rank spent since t0 (its local
 * start of the repetition) or RP_NOT_TIMED; post completes what they left
 * open. pre and post may be NULL. */
typedef struct rp_kernel {
  void (*pre)(rp_kctx *k);
  double (*run)(rp_kctx *k, double t0);
  void (*post)(rp_kctx *k);
} rp_kernel;

/* Kernel of fn; NULL when there is none (a table row without a kernel). */
const rp_kernel *rp_kernel_get(revprof_fn fn);

/* Allocates and touches the buffers for fn with d bytes on comm, for a
 * one-sided fn creates the window, and for a file I/O fn opens the point's
 * file in io (collective over comm, even when this rank's buffers failed):
 * reads, writes and the other calls on an open file keep it open, a
 * read's data written first; open, close and delete try it once and
 * remove it. Returns 0, REVPROF_ENOMEM or
 * REVPROF_EIO (the file cannot be opened or written: said on stderr once);
 * rp_kctx_free must follow on every member either way (it frees the window
 * and closes and removes the file collectively). */
int rp_kctx_init(rp_kctx *k, revprof_fn fn, MPI_Comm comm, long d,
                 rp_io_place *io);
void rp_kctx_free(rp_kctx *k);
/* Before a repetition, outside its timing: where rp_char_fresh_send(fn),
 * writes the send buffer anew (a new byte each time), so that the
 * repetition's messages carry freshly written data. Not under SimGrid
 * (-DRP_SMPI), whose simulated memory has no caches. */
void rp_kctx_fresh(rp_kctx *k);

#endif
