/* Internals of the trace writers, shared by librevprof and the revprof tool:
 * the per-rank text event stream (its reader), state classes, and the
 * converters from streams to Chrome trace JSON and OTF2. No MPI. */
#ifndef RP_TRACE_INT_H
#define RP_TRACE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "revprof_model.h" /* REVPROF_E* codes */

/* ------------------------------------------------------------ stream format
 *
 * Each rank writes DIR/p<rank>.trace (DIR/p<rank>.trace.part while running),
 * one event per line, times in simulated seconds printed with 17 digits:
 *
 *   # revprof trace 1
 *   H <rank> <size>
 *   S <t0> <t1> <bytes> <name>               a state; name is the rest of the line
 *   M <src> <t_send> <t_recv> <tag> <bytes>  a message received here from src
 *   E complete|partial                       the end (missing: truncated)
 */
#define RP_TRACE_MAGIC "# revprof trace 1"
#define RP_TRACE_NAME_MAX 256 /* bytes of a state name kept, with the NUL */

/* How a stream ended. */
enum rp_trace_end {
  RP_TRACE_END_COMPLETE = 0, /* "E complete": the run reached MPI_Finalize */
  RP_TRACE_END_PARTIAL = 1,  /* "E partial": closed after an abort/signal */
  RP_TRACE_END_TRUNCATED = 2 /* no end line: the process died */
};

typedef struct rp_trace_event {
  char kind;    /* 'S' state or 'M' message */
  double t0;    /* S: start; M: send time (seconds, simulated) */
  double t1;    /* S: end; M: receive time (seconds, simulated) */
  double bytes; /* S: bytes the call moved (0 if none); M: message size */
  int src;      /* M: sending world rank */
  int tag;      /* M: message tag */
  char name[RP_TRACE_NAME_MAX]; /* S: state name */
} rp_trace_event;

typedef struct rp_trace_reader rp_trace_reader;

/* Opens a stream and reads its header. Returns 0, or REVPROF_EMISSING (no
 * such file), REVPROF_EIO, REVPROF_ENOMEM or REVPROF_EFORMAT (no revprof
 * header) with a message naming the file in err. */
int rp_trace_reader_open(const char *path, rp_trace_reader **out, char *err,
                         size_t errlen);
/* Next event: 1 when *ev was filled, 0 at the end of the stream,
 * REVPROF_ESYNTAX on a malformed line (message with file and line in err).
 * A last line cut off by a crash ends the stream quietly (see
 * rp_trace_reader_end). */
int rp_trace_reader_next(rp_trace_reader *r, rp_trace_event *ev, char *err,
                         size_t errlen);
int rp_trace_reader_rank(const rp_trace_reader *r);
int rp_trace_reader_size(const rp_trace_reader *r);
/* How the stream ended; meaningful once next returned 0. */
enum rp_trace_end rp_trace_reader_end(const rp_trace_reader *r);
void rp_trace_reader_close(rp_trace_reader *r); /* NULL is a no-op */

/* Finds rank's stream in dir: p<rank>.trace, else p<rank>.trace.part (a run
 * that died). Returns 0 and the path, or REVPROF_EMISSING when there is
 * neither. */
int rp_trace_stream_path(const char *dir, int rank, char *buf, size_t len);

/* Opens rank's stream in dir. 0: *out is open. 1: the rank has no usable
 * stream (missing, or empty or headerless: a rank killed before it wrote
 * anything); *out is NULL and err says which; readers leave the rank out
 * and say so. A negative REVPROF_E* code: an error (err). */
int rp_trace_open_rank(const char *dir, int rank, rp_trace_reader **out,
                       char *err, size_t errlen);

/* Number of ranks of the traced run in dir, from the first rank's stream
 * that opens (rank 0's may be the one lost); REVPROF_EMISSING with err
 * when none, another negative code when a stream is unreadable. */
int rp_trace_dir_size(const char *dir, char *err, size_t errlen);

/* ----------------------------------------------------------------- errors */

/* The trace code fails with the codes of REVPROF_ERROR_TABLE
 * (revprof_model.h): EIO, ENOMEM, EFORMAT (not a revprof trace stream),
 * ESYNTAX (a malformed line), EMISSING (no stream), ENOOTF2, EOTF2.
 * rp_trace_fail writes the message to err (when not NULL) and returns
 * code. */
int rp_trace_fail(int code, char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---------------------------------------------------------- state classes */

/* What a state name stands for; the timeline colours and the OTF2 region
 * roles follow it. X(id, "label") */
#define RP_TRACE_CLASS_TABLE(X)                                                \
  X(COMPUTE, "compute")                                                        \
  X(SEND, "MPI send")                                                          \
  X(RECV, "MPI receive")                                                       \
  X(WAIT, "MPI wait/test")                                                     \
  X(COLL, "MPI collective")                                                    \
  X(MPI, "MPI other")                                                          \
  X(IDLE, "waiting")                                                           \
  X(REGION, "user region")

typedef enum rp_trace_class {
#define RP_TRACE_CLASS_ENUM_(id, label) RP_TRACE_CLASS_##id,
  RP_TRACE_CLASS_TABLE(RP_TRACE_CLASS_ENUM_)
#undef RP_TRACE_CLASS_ENUM_
  RP_TRACE_CLASS_COUNT
} rp_trace_class;

/* Class of a state name: "compute", "MPI_*" by function, "wait"/"idle"/
 * "waiting" as IDLE, anything else is a user region. */
rp_trace_class rp_trace_classify(const char *name);
const char *rp_trace_class_label(rp_trace_class c);
/* Short lowercase key ("compute", "send", ...) for file and JSON fields. */
const char *rp_trace_class_key(rp_trace_class c);

/* ------------------------------------------------------------- converters */

/* Formats in a REVPROF_TRACE list. The per-rank streams are written for
 * any of them; "text" asks for the streams only. */
enum { RP_TRACE_FMT_OTF2 = 1, RP_TRACE_FMT_CHROME = 2, RP_TRACE_FMT_TEXT = 4 };

/* Parses "otf2,chrome" (case-insensitive, spaces allowed; "json" = chrome,
 * "all" = otf2 + chrome, "none", "off", "0" or "" = none) into
 * RP_TRACE_FMT_* bits. Unknown words are copied to bad (comma separated)
 * and otherwise ignored. */
unsigned rp_trace_parse_formats(const char *list, char *bad, size_t badlen);

/* Writes the Chrome trace JSON of ranks [first, first + n) of the streams in
 * dir to path ("X" events, flow events "s"/"f" for messages, pid 0, tid =
 * rank, µs of simulated time). *partial is set when a stream did not end
 * complete, or stays as given; it is written to otherData. */
int rp_trace_chrome_write(const char *dir, int first, int n, int size,
                          const char *path, int *partial, char *err,
                          size_t errlen);

/* Writes the OTF2 archive DIR/traces.otf2 (+ traces.def, traces/) from the
 * streams of all size ranks: one location per rank, regions for MPI
 * functions, compute and user regions, MpiSend/MpiRecv for messages; time
 * in ns of simulated time. Replaces an earlier archive. *partial as for
 * rp_trace_chrome_write (the archive's REVPROF::PARTIAL property). Returns
 * REVPROF_ENOOTF2 when built without OTF2, REVPROF_EOTF2 when the OTF2
 * library fails. */
int rp_trace_otf2_write(const char *dir, int size, int *partial, char *err,
                        size_t errlen);

/* Builds DIR/trace.json and the OTF2 archive from DIR's streams (formats:
 * RP_TRACE_FMT_* bits; size 0: read it from p0's header). Marks outputs as
 * partial when a stream is, and writes DIR/PARTIAL then. */
int rp_trace_merge(const char *dir, unsigned formats, int size, char *err,
                   size_t errlen);

/* rp_trace_open's config said quiet: the writers print nothing. */
extern int rp_trace_quiet;

#endif
