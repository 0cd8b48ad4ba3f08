/* Trace writers of librevprof (rp_trace.h): each rank streams its states and
 * messages to DIR/p<rank>.trace through a fixed buffer as the run goes; the
 * last rank to close builds DIR/trace.json and the OTF2 archive from all
 * streams (rp_trace_merge, also run by 'revprof trace merge DIR'). */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rp_trace.h"
#include "rp_trace_int.h"

#define BUFSIZE_ (256 * 1024) /* stdio buffer of the stream: the memory bound */
#define CHECK_EVERY_ 4096     /* events between write-error checks */

static struct {
  int on;              /* streaming events now */
  int opened;          /* rp_trace_open succeeded and close not done yet */
  unsigned formats;    /* RP_TRACE_FMT_* */
  int rank, size;
  FILE *f;
  char *buf;           /* BUFSIZE_ bytes for f */
  unsigned long nev;   /* events since the last error check */
  char dir[2048];
  char part[2300];     /* DIR/p<rank>.trace.part while running */
  char done[2300];     /* DIR/p<rank>.trace once closed */
} tr;

static void warn(const char *fmt, ...) {
  va_list ap;
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
  if (tr.f)
    fclose(tr.f);
  tr.f = NULL;
  free(tr.buf);
  tr.buf = NULL;
}

static int mkdirs(const char *dir) {
  char p[sizeof tr.dir];
  snprintf(p, sizeof p, "%s", dir);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(p, 0777) != 0 && errno != EEXIST)
        return -1;
      *s = '/';
    }
  return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
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

int rp_trace_open(const rp_trace_config *c) {
  char bad[256];
  if (tr.opened || !c)
    return 0;
  memset(&tr, 0, sizeof tr);
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
    return RP_TRACE_EIO;
  }
  snprintf(tr.part, sizeof tr.part, "%s/p%d.trace.part", tr.dir, tr.rank);
  snprintf(tr.done, sizeof tr.done, "%s/p%d.trace", tr.dir, tr.rank);
  tr.opened = 1;
  if (mkdirs(tr.dir) != 0) {
    fail_off(tr.dir, strerror(errno));
    return RP_TRACE_EIO;
  }
  remove(tr.done);
  remove_file(tr.dir, "trace-%d.json", tr.rank);
  if (tr.rank == 0)
    remove_stale(tr.dir, tr.size);
  tr.buf = malloc(BUFSIZE_);
  tr.f = tr.buf ? fopen(tr.part, "w") : NULL;
  if (!tr.f || setvbuf(tr.f, tr.buf, _IOFBF, BUFSIZE_) != 0) {
    fail_off(tr.part, tr.buf ? strerror(errno) : "out of memory");
    return RP_TRACE_EIO;
  }
  fprintf(tr.f, RP_TRACE_MAGIC "\nH %d %d\n", tr.rank, tr.size);
  tr.on = 1;
  return 0;
}

static void checked(void) {
  if (++tr.nev < CHECK_EVERY_)
    return;
  tr.nev = 0;
  if (ferror(tr.f))
    fail_off(tr.part, "write error (disk full?)");
}

void rp_trace_state(const char *name, double t0, double t1, double bytes) {
  char clean[RP_TRACE_NAME_MAX];
  if (!tr.on)
    return;
  size_t n = 0;
  for (const char *s = name ? name : ""; *s && n + 1 < sizeof clean; s++)
    clean[n++] = (unsigned char)*s < 0x20 ? '_' : *s; /* one line per event */
  if (n == 0)
    clean[n++] = '?';
  clean[n] = '\0';
  fprintf(tr.f, "S %.17g %.17g %.17g %s\n", t0, t1, bytes, clean);
  checked();
}

void rp_trace_message(int src, double t_send, double t_recv, int tag,
                      double bytes) {
  if (!tr.on || src < 0)
    return;
  fprintf(tr.f, "M %d %.17g %.17g %d %.17g\n", src, t_send, t_recv, tag,
          bytes);
  checked();
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

static void mark_partial(const char *dir, const char *why) {
  char path[sizeof tr.dir + 16];
  snprintf(path, sizeof path, "%s/PARTIAL", dir);
  FILE *f = fopen(path, "a");
  if (f) {
    fprintf(f, "%s\n", why);
    fclose(f);
  }
}

void rp_trace_close(int partial) {
  char err[1024] = "", path[sizeof tr.dir + 32];
  if (!tr.on)
    return;
  tr.on = 0;
  fprintf(tr.f, "E %s\n", partial ? "partial" : "complete");
  int bad = ferror(tr.f);
  if (fclose(tr.f) != 0 || bad) {
    tr.f = NULL;
    fail_off(tr.part, "write error (disk full?)");
    return;
  }
  tr.f = NULL;
  free(tr.buf);
  tr.buf = NULL;
  tr.opened = 0;
  if (rename(tr.part, tr.done) != 0) {
    warn("rank %d: %s: %s", tr.rank, tr.done, strerror(errno));
    return;
  }
  if (partial) { /* maybe in a signal handler: no merging here */
    char why[96];
    snprintf(why, sizeof why, "rank %d did not reach MPI_Finalize", tr.rank);
    mark_partial(tr.dir, why);
    if (tr.rank == 0)
      warn("partial trace in %s; 'revprof trace merge %s' builds what it "
           "can", tr.dir, tr.dir);
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
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
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
  if (size <= 0) {
    rp_trace_reader *r = NULL;
    if (rp_trace_stream_path(dir, 0, path, sizeof path) != 0) {
      snprintf(err, errlen, "%s: no trace stream p0.trace", dir);
      return RP_TRACE_EMISSING;
    }
    if ((rc = rp_trace_reader_open(path, &r, err, errlen)) != 0)
      return rc;
    size = rp_trace_reader_size(r);
    rp_trace_reader_close(r);
  }
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
