/* Trace writers of librevprof (rp_trace.h): each rank streams its states and
 * messages to DIR/p<rank>.trace through a fixed buffer as the run goes; the
 * last rank to close builds DIR/trace.json and the OTF2 archive from all
 * streams (rp_trace_merge, also run by 'revprof trace merge DIR'). */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rp_trace.h"
#include "rp_trace_int.h"
#include "rp_util.h"

#define BUFSIZE_ (256 * 1024) /* the stream's buffer: the memory bound */
#define LINE_ROOM_ (RP_TRACE_NAME_MAX + 128) /* longest event line */
#define FLUSH_SECONDS_ 1.0
#ifndef CLOCK_MONOTONIC_COARSE /* Linux: a tick-resolution read, no syscall */
#define CLOCK_MONOTONIC_COARSE CLOCK_MONOTONIC
#endif
#define FLUSH_CHECK_ 16

/* The stream goes through write(2) from our own buffer, so that a partial
 * close from a signal handler can flush it with async-signal-safe calls. */
static struct {
  int on;             /* streaming events now */
  int opened;         /* rp_trace_open succeeded and close not done yet */
  unsigned formats;   /* RP_TRACE_FMT_* */
  int rank, size;
  int fd;             /* DIR/p<rank>.trace.part */
  char *buf;          /* BUFSIZE_ bytes */
  size_t len;         /* bytes in buf not written yet */
  volatile int busy;  /* inside a write: a signal must not flush again */
  char dir[2048];
  char part[2300];    /* DIR/p<rank>.trace.part while running */
  char done[2300];    /* DIR/p<rank>.trace once closed */
  unsigned long events; /* lines written, for the periodic flush */
  double records;     /* event lines kept (the cost model's count) */
  double last_flush;  /* CLOCK_MONOTONIC_COARSE seconds */
} tr = {.fd = -1};

static void warn(const char *fmt, ...) {
  va_list ap;
  if (rp_trace_quiet)
    return;
  fprintf(stderr, "revprof: trace: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* A failure stops tracing for good: warn once, drop the stream. */
static void fail_off(const char *path, const char *what) {
  if (!tr.opened)
    return;
  warn("rank %d: %s: %s; tracing is off for this rank", tr.rank, path, what);
  tr.on = tr.opened = 0;
  if (tr.fd >= 0)
    close(tr.fd);
  tr.fd = -1;
  free(tr.buf);
  tr.buf = NULL;
}

/* Writes n bytes whole; async-signal-safe. 0, or REVPROF_EIO with errno
 * set by write(2). */
static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return REVPROF_EIO;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Writes the buffer out; async-signal-safe. 0, or REVPROF_EIO with errno
 * set. */
static int flush_buf(void) {
  if (tr.len == 0)
    return 0;
  tr.busy = 1;
  int rc = write_all(tr.fd, tr.buf, tr.len);
  tr.len = 0;
  tr.busy = 0;
  return rc;
}

static double now_coarse(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Room for one more event line, flushing when the buffer is full or, every
 * FLUSH_CHECK_ events, when it was last written over FLUSH_SECONDS_ ago (a
 * rank killed by SIGKILL loses at most that much); NULL after a failure
 * (tracing is then off). */
static char *room(void) {
  int due = BUFSIZE_ - tr.len < LINE_ROOM_;
  if (!due && ++tr.events % FLUSH_CHECK_ == 0) {
    double t = now_coarse();
    due = t - tr.last_flush >= FLUSH_SECONDS_;
  }
  if (due) {
    if (flush_buf() != 0) {
      fail_off(tr.part, strerror(errno));
      return NULL;
    }
    tr.last_flush = now_coarse();
  }
  return tr.buf + tr.len;
}

static void remove_file(const char *dir, const char *fmt, int n) {
  char path[sizeof tr.dir + 64], name[64];
  snprintf(name, sizeof name, fmt, n);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  remove(path);
}

/* Rank 0 removes what an earlier run with more ranks left in dir. */
static void remove_stale(const char *dir, int size) {
  DIR *d = opendir(dir);
  struct dirent *de;
  if (!d)
    return;
  while ((de = readdir(d)) != NULL) {
    int r, used = 0;
    if ((sscanf(de->d_name, "p%d.trace%n", &r, &used) == 1 ||
         sscanf(de->d_name, "trace-%d.json%n", &r, &used) == 1) &&
        used > 0 && r >= size) {
      char path[sizeof tr.dir + 300];
      snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
      remove(path);
    }
  }
  closedir(d);
  remove_file(dir, "trace.json", 0);
  remove_file(dir, "PARTIAL", 0);
  remove_file(dir, ".merge-lock", 0);
}

static void at_exit(void);

int rp_trace_open(const rp_trace_config *c) {
  char bad[256];
  if (tr.opened || !c)
    return 0;
  rp_trace_quiet = c->quiet;
  free(tr.buf); /* kept by a partial close, which must not free */
  memset(&tr, 0, sizeof tr);
  tr.fd = -1;
  tr.formats = rp_trace_parse_formats(c->formats, bad, sizeof bad);
  if (bad[0] && c->rank == 0)
    warn("unknown format '%s' in REVPROF_TRACE ignored (otf2, chrome, text)",
         bad);
  if (tr.formats == 0)
    return 0;
#ifndef RP_HAVE_OTF2
  if ((tr.formats & RP_TRACE_FMT_OTF2) && c->rank == 0)
    warn("revprof was built without OTF2: no OTF2 archive, the other "
         "formats are written");
  tr.formats &= ~(unsigned)RP_TRACE_FMT_OTF2;
#endif
  tr.rank = c->rank;
  tr.size = c->size;
  const char *dir = c->dir && *c->dir ? c->dir : ".";
  if (snprintf(tr.dir, sizeof tr.dir, "%s", dir) >= (int)sizeof tr.dir) {
    warn("output directory name too long: %.60s...; tracing is off", dir);
    return REVPROF_EIO;
  }
  snprintf(tr.part, sizeof tr.part, "%s/p%d.trace.part", tr.dir, tr.rank);
  snprintf(tr.done, sizeof tr.done, "%s/p%d.trace", tr.dir, tr.rank);
  tr.opened = 1;
  if (rp_mkdir_p(tr.dir) != 0) {
    fail_off(tr.dir, strerror(errno));
    return REVPROF_EIO;
  }
  remove(tr.done);
  remove_file(tr.dir, "trace-%d.json", tr.rank);
  if (tr.rank == 0)
    remove_stale(tr.dir, tr.size);
  tr.buf = malloc(BUFSIZE_);
  tr.fd = tr.buf ? open(tr.part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        0666)
                 : -1;
  if (tr.fd < 0) {
    fail_off(tr.part, tr.buf ? strerror(errno) : "out of memory");
    return REVPROF_EIO;
  }
  tr.len = (size_t)snprintf(tr.buf, BUFSIZE_, RP_TRACE_MAGIC "\nH %d %d\n",
                            tr.rank, tr.size);
  /* the header at once: a rank killed early (SIGKILL: no handler runs)
     leaves a readable, truncated stream, not an empty file */
  if (flush_buf() != 0) {
    fail_off(tr.part, strerror(errno));
    return REVPROF_EIO;
  }
  tr.last_flush = now_coarse();
  tr.on = 1;
  static int registered;
  if (!registered++)
    atexit(at_exit);
  return 0;
}

/* One state line at p (LINE_ROOM_ bytes): its length, or <= 0. */
static int state_line(char *p, const char *name, double t0, double t1,
                      double bytes) {
  char clean[RP_TRACE_NAME_MAX];
  size_t n = 0;
  for (const char *s = name ? name : ""; *s && n + 1 < sizeof clean; s++)
    clean[n++] = (unsigned char)*s < 0x20 ? '_' : *s; /* one line per event */
  if (n == 0)
    clean[n++] = '?';
  clean[n] = '\0';
  return snprintf(p, LINE_ROOM_, "S %.17g %.17g %.17g %s\n", t0, t1, bytes,
                  clean);
}

void rp_trace_state(const char *name, double t0, double t1, double bytes) {
  char *p;
  if (!tr.on || !(p = room()))
    return;
  int w = state_line(p, name, t0, t1, bytes);
  if (w > 0 && w < LINE_ROOM_) {
    tr.len += (size_t)w; /* counted once complete: a signal sees whole lines */
    tr.records += 1.0;
  }
}

double rp_trace_records(void) { return tr.records; }

double rp_trace_record_cost(void) {
  enum { N = 2000, ROUNDS = 5 };
  double best = 1e30;
  unsigned long events = tr.events;
  if (!tr.on)
    return 0.0;
  for (int r = 0; r < ROUNDS; r++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < N; i++) {
      char *p = room();
      if (p == NULL)
        return 0.0;
      state_line(p, "MPI_Sendrecv", 1.0 + 1e-6 * i, 1.0 + 2e-6 * i, 8.0);
    } /* tr.len unchanged: nothing kept */
    clock_gettime(CLOCK_MONOTONIC, &b);
    double t = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec -
                                                              a.tv_nsec);
    best = t < best ? t : best;
  }
  tr.events = events;
  return best / N;
}

void rp_trace_message(int src, double t_send, double t_recv, int tag,
                      double bytes) {
  char *p;
  if (!tr.on || src < 0 || !(p = room()))
    return;
  int w = snprintf(p, LINE_ROOM_, "M %d %.17g %.17g %d %.17g\n", src, t_send,
                   t_recv, tag, bytes);
  if (w > 0 && w < LINE_ROOM_) {
    tr.len += (size_t)w;
    tr.records += 1.0;
  }
}

/* 1 when every rank's finished stream is in dir. */
static int all_done(void) {
  char path[sizeof tr.dir + 32];
  for (int r = 0; r < tr.size; r++) {
    snprintf(path, sizeof path, "%s/p%d.trace", tr.dir, r);
    if (access(path, F_OK) != 0)
      return 0;
  }
  return 1;
}

/* Appends a line to DIR/PARTIAL in one write, so that ranks ending at the
 * same time do not mix their lines; async-signal-safe. */
static void mark_partial(const char *dir, const char *why) {
  char path[sizeof tr.dir + 16], line[128];
  size_t n = strlen(dir), w = strlen(why);
  if (n + 9 > sizeof path || w + 2 > sizeof line)
    return;
  memcpy(path, dir, n);
  memcpy(path + n, "/PARTIAL", 9);
  memcpy(line, why, w);
  line[w] = '\n';
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd >= 0) {
    write_all(fd, line, w + 1);
    close(fd);
  }
}

/* The end of a run that did not reach MPI_Finalize; may run in a signal
 * handler, so only async-signal-safe calls: the buffer, the end line, the
 * rename and PARTIAL. Nothing is merged. */
static void close_partial(void) {
  static char why[64] = "rank ";
  char digits[16];
  int nd = 0;
  unsigned r = (unsigned)tr.rank;
  do
    digits[nd++] = (char)('0' + r % 10);
  while ((r /= 10) && nd < 15);
  size_t at = 5;
  while (nd)
    why[at++] = digits[--nd];
  memcpy(why + at, " did not reach MPI_Finalize", 28);
  if (!tr.busy) /* else a write was cut short: the end line starts anew */
    flush_buf();
  write_all(tr.fd, "\nE partial\n", 11);
  close(tr.fd);
  tr.fd = -1;
  tr.opened = 0;
  if (rename(tr.part, tr.done) == 0)
    mark_partial(tr.dir, why);
}

/* A process that exits without closing the trace (exit() before
 * MPI_Finalize) still leaves what it buffered, marked partial. */
static void at_exit(void) { rp_trace_close(1); }

void rp_trace_close(int partial) {
  char err[1024] = "", path[sizeof tr.dir + 32];
  if (!tr.on)
    return;
  tr.on = 0;
  if (partial) {
    close_partial();
    return;
  }
  memcpy(tr.buf + tr.len, "E complete\n", 11); /* room() kept space */
  tr.len += 11;
  int bad = flush_buf() != 0;
  if (close(tr.fd) != 0 || bad) {
    tr.fd = -1;
    fail_off(tr.part, "write error (disk full?)");
    return;
  }
  tr.fd = -1;
  free(tr.buf);
  tr.buf = NULL;
  tr.opened = 0;
  if (rename(tr.part, tr.done) != 0) {
    warn("rank %d: %s: %s", tr.rank, tr.done, strerror(errno));
    return;
  }
  if (tr.formats & RP_TRACE_FMT_CHROME) {
    int part = 0;
    snprintf(path, sizeof path, "%s/trace-%d.json", tr.dir, tr.rank);
    if (rp_trace_chrome_write(tr.dir, tr.rank, 1, tr.size, path, &part, err,
                              sizeof err) != 0)
      warn("rank %d: %s", tr.rank, err);
  }
  if (!(tr.formats & (RP_TRACE_FMT_CHROME | RP_TRACE_FMT_OTF2)) || !all_done())
    return;
  snprintf(path, sizeof path, "%s/.merge-lock", tr.dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) /* another rank finished at the same time and merges */
    return;
  close(fd);
  if (rp_trace_merge(tr.dir, tr.formats, tr.size, err, sizeof err) != 0)
    warn("%s; the streams p*.trace are in %s ('revprof trace merge %s' "
         "retries)", err, tr.dir, tr.dir);
}

/* ----------------------------------------------------------------- merge */

int rp_trace_merge(const char *dir, unsigned formats, int size, char *err,
                   size_t errlen) {
  char path[4096];
  int partial = 0, rc = 0;
  if (size <= 0 && (size = rp_trace_dir_size(dir, err, errlen)) < 0)
    return size;
  for (int rank = 0; rank < size; rank++) {
    snprintf(path, sizeof path, "%s/p%d.trace", dir, rank);
    if (access(path, F_OK) != 0)
      partial = 1; /* missing or never closed (.part) */
  }
  if (formats & RP_TRACE_FMT_CHROME) {
    snprintf(path, sizeof path, "%s/trace.json", dir);
    rc = rp_trace_chrome_write(dir, 0, size, size, path, &partial, err,
                               errlen);
  }
  if (rc == 0 && (formats & RP_TRACE_FMT_OTF2))
    rc = rp_trace_otf2_write(dir, size, &partial, err, errlen);
  if (partial)
    mark_partial(dir, "merged from incomplete streams");
  return rc;
}
