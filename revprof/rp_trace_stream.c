/* Reader of the per-rank trace streams (p<rank>.trace), the classes of state
 * names and the parsing of REVPROF_TRACE format lists. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rp_trace_int.h"

/* set by rp_trace_open (rp_trace.c); here, below every writer that reads it */
int rp_trace_quiet;

int rp_trace_fail(int code, char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* ---------------------------------------------------------------- reader */

#define LINE_MAX_ 1024 /* longest line written: 5 numbers + a name */

struct rp_trace_reader {
  FILE *f;
  char path[4096];
  long line;          /* number of the line last read */
  int rank, size;
  enum rp_trace_end end;
  char buf[LINE_MAX_ + 2];
};

/* Reads one line without its newline; 1 on success, 0 at EOF or when the
 * last line has no newline (cut off by a crash), REVPROF_ESYNTAX when it
 * is too long. */
static int read_line(rp_trace_reader *r) {
  if (!fgets(r->buf, sizeof r->buf, r->f))
    return 0;
  size_t n = strlen(r->buf);
  r->line++;
  if (n == 0 || r->buf[n - 1] != '\n') {
    if (n + 1 >= sizeof r->buf)
      return REVPROF_ESYNTAX;
    return 0;
  }
  r->buf[n - 1] = '\0';
  return 1;
}

int rp_trace_reader_open(const char *path, rp_trace_reader **out, char *err,
                         size_t errlen) {
  *out = NULL;
  rp_trace_reader *r = calloc(1, sizeof *r);
  if (!r)
    return rp_trace_fail(REVPROF_ENOMEM, err, errlen, "%s: out of memory",
                         path);
  snprintf(r->path, sizeof r->path, "%s", path);
  r->end = RP_TRACE_END_TRUNCATED;
  r->f = fopen(path, "r");
  if (!r->f) {
    int e = errno;
    free(r);
    return rp_trace_fail(e == ENOENT ? REVPROF_EMISSING : REVPROF_EIO, err,
                         errlen, "%s: %s", path, strerror(e));
  }
  if (read_line(r) != 1 || strcmp(r->buf, RP_TRACE_MAGIC) != 0) {
    rp_trace_reader_close(r);
    return rp_trace_fail(REVPROF_EFORMAT, err, errlen,
                         "%s: not a revprof trace stream (no '" RP_TRACE_MAGIC
                         "' line)", path);
  }
  char c;
  if (read_line(r) != 1 ||
      sscanf(r->buf, "H %d %d %c", &r->rank, &r->size, &c) != 2 ||
      r->rank < 0 || r->size < 1 || r->rank >= r->size) {
    rp_trace_reader_close(r);
    return rp_trace_fail(REVPROF_EFORMAT, err, errlen,
                         "%s:2: bad header, expected 'H RANK SIZE'", path);
  }
  *out = r;
  return 0;
}

static int bad_line(rp_trace_reader *r, char *err, size_t errlen) {
  return rp_trace_fail(REVPROF_ESYNTAX, err, errlen,
                       "%s:%ld: malformed line '%.60s'", r->path, r->line,
                       r->buf);
}

int rp_trace_reader_next(rp_trace_reader *r, rp_trace_event *ev, char *err,
                         size_t errlen) {
  for (;;) {
    int got = read_line(r);
    if (got < 0)
      return rp_trace_fail(REVPROF_ESYNTAX, err, errlen,
                           "%s:%ld: line too long", r->path, r->line);
    if (got == 0)
      return 0;
    const char *s = r->buf;
    int used = 0;
    char c;
    switch (s[0]) {
    case '#':
    case '\0':
      continue;
    case 'S':
      memset(ev, 0, offsetof(rp_trace_event, name));
      ev->kind = 'S';
      if (sscanf(s, "S %lf %lf %lf %n", &ev->t0, &ev->t1, &ev->bytes,
                 &used) != 3 || used == 0 || s[used] == '\0')
        return bad_line(r, err, errlen);
      snprintf(ev->name, sizeof ev->name, "%s", s + used);
      return 1;
    case 'M':
      memset(ev, 0, sizeof *ev);
      ev->kind = 'M';
      if (sscanf(s, "M %d %lf %lf %d %lf %c", &ev->src, &ev->t0, &ev->t1,
                 &ev->tag, &ev->bytes, &c) != 5 || ev->src < 0)
        return bad_line(r, err, errlen);
      return 1;
    case 'E':
      if (strcmp(s, "E complete") == 0)
        r->end = RP_TRACE_END_COMPLETE;
      else if (strcmp(s, "E partial") == 0)
        r->end = RP_TRACE_END_PARTIAL;
      else
        return bad_line(r, err, errlen);
      return 0;
    default:
      return bad_line(r, err, errlen);
    }
  }
}

int rp_trace_reader_rank(const rp_trace_reader *r) { return r->rank; }
int rp_trace_reader_size(const rp_trace_reader *r) { return r->size; }
enum rp_trace_end rp_trace_reader_end(const rp_trace_reader *r) {
  return r->end;
}

void rp_trace_reader_close(rp_trace_reader *r) {
  if (!r)
    return;
  if (r->f)
    fclose(r->f);
  free(r);
}

int rp_trace_stream_path(const char *dir, int rank, char *buf, size_t len) {
  snprintf(buf, len, "%s/p%d.trace", dir, rank);
  if (access(buf, R_OK) == 0)
    return 0;
  snprintf(buf, len, "%s/p%d.trace.part", dir, rank);
  return access(buf, R_OK) == 0 ? 0 : REVPROF_EMISSING;
}

int rp_trace_open_rank(const char *dir, int rank, rp_trace_reader **out,
                       char *err, size_t errlen) {
  char path[4096];
  *out = NULL;
  if (rp_trace_stream_path(dir, rank, path, sizeof path) != 0) {
    rp_trace_fail(REVPROF_EMISSING, err, errlen,
                  "%s: rank %d has no trace stream (p%d.trace)", dir, rank,
                  rank);
    return 1;
  }
  int rc = rp_trace_reader_open(path, out, err, errlen);
  if (rc == REVPROF_EFORMAT) {
    struct stat sb;
    if (stat(path, &sb) == 0 && sb.st_size == 0)
      rp_trace_fail(rc, err, errlen, "%s: empty (rank %d ended before it "
                    "wrote anything)", path, rank);
    return 1;
  }
  return rc;
}

int rp_trace_dir_size(const char *dir, char *err, size_t errlen) {
  enum { GAP = 64 }; /* missing ranks in a row before giving up */
  int missing = 0;
  rp_trace_fail(REVPROF_EMISSING, err, errlen,
                "%s: no trace stream p0.trace", dir);
  for (int rank = 0; missing < GAP; rank++) {
    rp_trace_reader *r = NULL;
    char e[1024];
    int rc = rp_trace_open_rank(dir, rank, &r, e, sizeof e);
    if (rc == 0) {
      int size = rp_trace_reader_size(r);
      rp_trace_reader_close(r);
      return size;
    }
    if (rc != 1)
      return rp_trace_fail(rc, err, errlen, "%s", e);
    missing++;
  }
  return REVPROF_EMISSING;
}

/* --------------------------------------------------------------- classes */

static const char *const class_labels[] = {
#define RP_TRACE_CLASS_LABEL_(id, label) label,
    RP_TRACE_CLASS_TABLE(RP_TRACE_CLASS_LABEL_)
#undef RP_TRACE_CLASS_LABEL_
};

static const char *const class_keys[] = {"compute", "send", "recv", "wait",
                                         "collective", "mpi", "idle",
                                         "region"};

const char *rp_trace_class_label(rp_trace_class c) {
  return (unsigned)c < RP_TRACE_CLASS_COUNT ? class_labels[c] : "?";
}

const char *rp_trace_class_key(rp_trace_class c) {
  return (unsigned)c < RP_TRACE_CLASS_COUNT ? class_keys[c] : "?";
}

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int any_prefix(const char *s, const char *const *list, int nocase) {
  for (int i = 0; list[i]; i++)
    if (nocase ? strncasecmp(s, list[i], strlen(list[i])) == 0
               : starts(s, list[i]))
      return 1;
  return 0;
}

rp_trace_class rp_trace_classify(const char *name) {
  static const char *const coll[] = {
      "Barrier", "Bcast",   "Reduce", "Allreduce", "Gather",    "Scatter",
      "Allgather", "Alltoall", "Scan", "Exscan",   "Neighbor_", NULL};
  static const char *const send[] = {"Send", "Ssend", "Bsend", "Rsend",
                                     "Isend", "Issend", "Ibsend", "Irsend",
                                     NULL};
  static const char *const recv[] = {"Recv", "Irecv", "Mrecv", "Imrecv",
                                     "Sendrecv", "Probe", "Iprobe", "Mprobe",
                                     "Improbe", NULL};
  static const char *const wait[] = {"Wait", "Test", "Start", NULL};
  if (strcmp(name, "compute") == 0)
    return RP_TRACE_CLASS_COMPUTE;
  if (strcmp(name, "wait") == 0 || strcmp(name, "idle") == 0 ||
      strcmp(name, "waiting") == 0)
    return RP_TRACE_CLASS_IDLE;
  const char *f = starts(name, "MPI_") ? name + 4
                  : starts(name, "PMPI_") ? name + 5 : NULL;
  if (!f)
    return RP_TRACE_CLASS_REGION;
  if (any_prefix(f, coll, 0) || (f[0] == 'I' && any_prefix(f + 1, coll, 1)))
    return RP_TRACE_CLASS_COLL; /* MPI_Ibcast: lowercase after the I */
  if (any_prefix(f, recv, 0)) /* before send: "Sendrecv" */
    return RP_TRACE_CLASS_RECV;
  if (any_prefix(f, send, 0))
    return RP_TRACE_CLASS_SEND;
  if (any_prefix(f, wait, 0))
    return RP_TRACE_CLASS_WAIT;
  return RP_TRACE_CLASS_MPI;
}

/* --------------------------------------------------------------- formats */

static void append_word(char *bad, size_t badlen, const char *w, size_t n) {
  size_t have = strlen(bad);
  if (have + n + 2 > badlen)
    return;
  if (have)
    bad[have++] = ',';
  memcpy(bad + have, w, n);
  bad[have + n] = '\0';
}

unsigned rp_trace_parse_formats(const char *list, char *bad, size_t badlen) {
  unsigned bits = 0;
  if (bad && badlen)
    bad[0] = '\0';
  if (!list)
    return 0;
  for (const char *s = list; *s;) {
    while (*s == ',' || isspace((unsigned char)*s))
      s++;
    const char *w = s;
    while (*s && *s != ',' && !isspace((unsigned char)*s))
      s++;
    size_t n = (size_t)(s - w);
    if (n == 0)
      continue;
    if (n == 4 && strncasecmp(w, "otf2", 4) == 0)
      bits |= RP_TRACE_FMT_OTF2;
    else if (n == 6 && strncasecmp(w, "chrome", 6) == 0)
      bits |= RP_TRACE_FMT_CHROME;
    else if (n == 4 && strncasecmp(w, "json", 4) == 0)
      bits |= RP_TRACE_FMT_CHROME;
    else if (n == 4 && strncasecmp(w, "text", 4) == 0)
      bits |= RP_TRACE_FMT_TEXT;
    else if (n == 3 && strncasecmp(w, "all", 3) == 0)
      bits |= RP_TRACE_FMT_OTF2 | RP_TRACE_FMT_CHROME;
    else if ((n == 4 && strncasecmp(w, "none", 4) == 0) ||
             (n == 3 && strncasecmp(w, "off", 3) == 0) ||
             (n == 1 && w[0] == '0'))
      ;
    else if (bad && badlen)
      append_word(bad, badlen, w, n);
  }
  return bits;
}
