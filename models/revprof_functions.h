/* The MPI functions a machine model can describe, as one X-macro table.
 * Each row: X(id, "name in model files and raw CSV", kind, what is timed). */
#ifndef REVPROF_FUNCTIONS_H
#define REVPROF_FUNCTIONS_H

#include <stddef.h>

/* kind: how characterize times the function and what p means for it.
 *   P2P  - two ranks, p is always 2; d is the message size
 *   COLL - a collective over a group of p ranks; d is per-rank bytes
 *   LOCAL- one rank, no communication (p = 1, d = 0) */
#define REVPROF_FUNCTION_TABLE(X)                                              \
  X(SEND, "MPI_Send", P2P, "sender's cost of MPI_Send, receive pre-posted")   \
  X(RECV, "MPI_Recv", P2P, "receiver's cost of MPI_Recv, message arrived")    \
  X(LATENCY, "latency", P2P, "transit time: half a ping-pong round trip")     \
  X(ISEND, "MPI_Isend", P2P, "cost of starting MPI_Isend")                   \
  X(IRECV, "MPI_Irecv", P2P, "MPI_Irecv + MPI_Wait, message arrived")        \
  X(SENDRECV, "MPI_Sendrecv", P2P, "pairwise exchange, max over both")       \
  X(WAIT, "MPI_Wait", P2P,                                                   \
    "MPI_Wait on a pre-posted receive whose message has arrived")           \
  X(GAP, "gap", P2P,                                                         \
    "injection gap: period of a train of 8 messages, receives pre-posted")  \
  X(POST, "post", P2P,                                                       \
    "MPI_Irecv posted before its message is sent, per receive of 8")        \
  X(GAP_ALL, "gap_all", COLL,                                                \
    "injection gap with every member sending a train of 8 to the next")     \
  X(BARRIER, "MPI_Barrier", COLL, "barrier, d = 0")                          \
  X(BCAST, "MPI_Bcast", COLL, "d = buffer bytes, root 0")                    \
  X(REDUCE, "MPI_Reduce", COLL, "d = bytes per rank, MPI_SUM, root 0")       \
  X(BCAST_ROOT, "bcast_root", COLL,                                          \
    "MPI_Bcast: the root's own time, members starting together")             \
  X(BCAST_LATE, "bcast_late", COLL,                                          \
    "MPI_Bcast: a member's own time, entering after the data reached it")    \
  X(REDUCE_LATE, "reduce_late", COLL,                                        \
    "MPI_Reduce: a non-root's own time, entering after all the others")      \
  X(ALLREDUCE, "MPI_Allreduce", COLL, "d = bytes per rank, MPI_SUM")         \
  X(GATHER, "MPI_Gather", COLL, "d = bytes sent by each rank")               \
  X(GATHERV, "MPI_Gatherv", COLL, "d = bytes sent by each rank")             \
  X(SCATTER, "MPI_Scatter", COLL, "d = bytes received by each rank")         \
  X(SCATTERV, "MPI_Scatterv", COLL, "d = bytes received by each rank")       \
  X(ALLGATHER, "MPI_Allgather", COLL, "d = bytes sent by each rank")         \
  X(ALLGATHERV, "MPI_Allgatherv", COLL, "d = bytes sent by each rank")       \
  X(ALLTOALL, "MPI_Alltoall", COLL, "d = bytes sent to each rank")           \
  X(ALLTOALLV, "MPI_Alltoallv", COLL, "d = bytes sent to each rank")         \
  X(REDUCE_SCATTER, "MPI_Reduce_scatter", COLL, "d = bytes kept per rank")   \
  X(REDUCE_SCATTER_BLOCK, "MPI_Reduce_scatter_block", COLL,                  \
    "d = bytes kept per rank")                                               \
  X(SCAN, "MPI_Scan", COLL, "d = bytes per rank, MPI_SUM")                   \
  X(EXSCAN, "MPI_Exscan", COLL, "d = bytes per rank, MPI_SUM")               \
  X(IBARRIER, "MPI_Ibarrier", COLL, "MPI_Ibarrier + MPI_Wait")               \
  X(IBCAST, "MPI_Ibcast", COLL, "MPI_Ibcast + MPI_Wait")                     \
  X(IALLREDUCE, "MPI_Iallreduce", COLL, "MPI_Iallreduce + MPI_Wait")         \
  X(IALLTOALL, "MPI_Ialltoall", COLL, "MPI_Ialltoall + MPI_Wait")            \
  X(WTIME, "MPI_Wtime", LOCAL, "one call of MPI_Wtime")                    \
  X(PUT, "MPI_Put", P2P, "MPI_Put + MPI_Win_flush, shared lock held")        \
  X(GET, "MPI_Get", P2P, "MPI_Get + MPI_Win_flush, shared lock held")        \
  X(ACCUMULATE, "MPI_Accumulate", P2P,                                       \
    "MPI_Accumulate (MPI_SUM) + MPI_Win_flush, shared lock held")            \
  X(WIN_LOCK, "MPI_Win_lock", P2P,                                           \
    "MPI_Win_lock + MPI_Win_unlock, exclusive, no operation, d = 0")         \
  X(WIN_FENCE, "MPI_Win_fence", COLL, "MPI_Win_fence, no operation, d = 0") \
  X(NEIGHBOR_ALLGATHER, "MPI_Neighbor_allgather", COLL,                      \
    "every member a neighbour of every other (p - 1 each); d = bytes sent")  \
  X(NEIGHBOR_ALLTOALL, "MPI_Neighbor_alltoall", COLL,                        \
    "every member a neighbour of every other; d = bytes to each neighbour")  \
  X(FILE_OPEN, "MPI_File_open", COLL,                                        \
    "p ranks open one new file (create, read-write), d = 0")                \
  X(FILE_CLOSE, "MPI_File_close", COLL,                                      \
    "p ranks close the file they opened, d = 0")                             \
  X(FILE_WRITE_AT, "MPI_File_write_at", COLL,                                \
    "p ranks each write d bytes at their own offset, at once")               \
  X(FILE_READ_AT, "MPI_File_read_at", COLL,                                  \
    "p ranks each read d bytes at their own offset, at once")                \
  X(FILE_WRITE_AT_ALL, "MPI_File_write_at_all", COLL,                        \
    "collective write, d bytes per rank at its own offset")                  \
  X(FILE_READ_AT_ALL, "MPI_File_read_at_all", COLL,                          \
    "collective read, d bytes per rank at its own offset")                   \
  X(FILE_SYNC, "MPI_File_sync", COLL,                                        \
    "p ranks sync the file after each wrote 64 KiB to it, d = 0")            \
  X(FILE_SET_SIZE, "MPI_File_set_size", COLL,                                \
    "p ranks grow an empty file to d bytes (its new size)")                  \
  X(FILE_PREALLOCATE, "MPI_File_preallocate", COLL,                          \
    "p ranks preallocate d bytes of an empty file")                          \
  X(FILE_SET_VIEW, "MPI_File_set_view", COLL,                                \
    "p ranks set a contiguous byte view at 0, d = 0")                        \
  X(FILE_DELETE, "MPI_File_delete", LOCAL,                                   \
    "one rank deletes a closed file it made, d = 0")

/* Messages in the "gap" row's train. */
#define REVPROF_GAP_TRAIN 8

typedef enum revprof_fn {
#define RP_FN_ENUM_(id, name, kind, what) REVPROF_FN_##id,
  REVPROF_FUNCTION_TABLE(RP_FN_ENUM_)
#undef RP_FN_ENUM_
  REVPROF_FN_COUNT
} revprof_fn;

typedef enum revprof_fn_kind {
  REVPROF_KIND_P2P,
  REVPROF_KIND_COLL,
  REVPROF_KIND_LOCAL
} revprof_fn_kind;

/* Name as written in model files and raw CSV ("MPI_Send", "latency"). */
const char *revprof_fn_name(revprof_fn fn);
/* What characterize times for this function, one line. */
const char *revprof_fn_what(revprof_fn fn);
revprof_fn_kind revprof_fn_kind_of(revprof_fn fn);
/* Looks a name up; case-sensitive. Returns REVPROF_FN_COUNT when unknown. */
revprof_fn revprof_fn_lookup(const char *name);
/* For "did you mean" hints: the known name closest to name, ignoring case
 * and a missing "MPI_" prefix, when it is within 2 edits of it ("bcast",
 * "MPI_Bcats": "MPI_Bcast"); NULL when none is. */
const char *revprof_fn_nearest(const char *name);
/* The hint for an unknown name, as every message puts it: "did you mean
 * MPI_Bcast? " (trailing space), or "" when no name is near; written into
 * buf (64 bytes are enough) and returned. */
const char *revprof_fn_hint(const char *name, char *buf, size_t len);

#endif
