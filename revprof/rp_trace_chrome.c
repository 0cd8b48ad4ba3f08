/* Chrome trace JSON (chrome://tracing, Perfetto) from revprof trace streams:
 * complete events "X" per state, flow events "s"/"f" per message. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rp_trace_int.h"

/* Writes s as a JSON string; bytes outside printable ASCII become '?' so
 * the file stays valid UTF-8 whatever a region name holds. */
static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      fputc('?', f);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static double us(double seconds) { /* simulated seconds -> µs */
  return seconds > 0 ? seconds * 1e6 : 0.0;
}

/* One rank's events. Returns 0, or < 0 with err set; a missing stream is
 * not an error: it sets *partial. */
static int write_rank(FILE *out, const char *dir, int rank, int *partial,
                      char *err, size_t errlen) {
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  fprintf(out,
          ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
          "\"args\":{\"name\":\"rank %d\"}},\n"
          "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,"
          "\"tid\":%d,\"args\":{\"sort_index\":%d}}",
          rank, rank, rank, rank);
  int rc = rp_trace_open_rank(dir, rank, &r, err, errlen);
  if (rc == 1) { /* left out, said once here */
    if (!rp_trace_quiet)
      fprintf(stderr, "revprof: trace: %s: left out of the trace\n", err);
    *partial = 1;
    return 0;
  }
  if (rc != 0)
    return rc;
  uint64_t nmsg = 0;
  while ((rc = rp_trace_reader_next(r, &ev, err, errlen)) == 1) {
    if (ev.kind == 'S') {
      rp_trace_class c = rp_trace_classify(ev.name);
      fputs(",\n{\"name\":", out);
      json_string(out, ev.name);
      fprintf(out,
              ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,"
              "\"ts\":%.3f,\"dur\":%.3f",
              rp_trace_class_key(c), rank, us(ev.t0),
              ev.t1 > ev.t0 ? us(ev.t1) - us(ev.t0) : 0.0);
      if (ev.bytes > 0)
        fprintf(out, ",\"args\":{\"bytes\":%.0f}", ev.bytes);
      fputc('}', out);
    } else { /* the message: flow from the sender's to this rank's row */
      uint64_t id = ((uint64_t)rank << 32) | nmsg++;
      fprintf(out,
              ",\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\","
              "\"id\":%llu,\"pid\":0,\"tid\":%d,\"ts\":%.3f,"
              "\"args\":{\"to\":%d,\"tag\":%d,\"bytes\":%.0f}},\n"
              "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\","
              "\"bp\":\"e\",\"id\":%llu,\"pid\":0,\"tid\":%d,\"ts\":%.3f}",
              (unsigned long long)id, ev.src, us(ev.t0), rank, ev.tag,
              ev.bytes, (unsigned long long)id, rank, us(ev.t1));
    }
  }
  if (rc == 0 && rp_trace_reader_end(r) != RP_TRACE_END_COMPLETE)
    *partial = 1;
  rp_trace_reader_close(r);
  return rc;
}

int rp_trace_chrome_write(const char *dir, int first, int n, int size,
                          const char *path, int *partial, char *err,
                          size_t errlen) {
  char tmp[4096];
  int rc = 0;
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
    return rp_trace_fail(REVPROF_EIO, err, errlen, "%s: path too long", path);
  FILE *out = fopen(tmp, "w");
  if (!out)
    return rp_trace_fail(REVPROF_EIO, err, errlen, "%s: %s", tmp,
                         strerror(errno));
  fputs("{\"traceEvents\":[\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
        "\"args\":{\"name\":\"revprof (simulated time)\"}}",
        out);
  for (int rank = first; rank < first + n && rc == 0; rank++)
    rc = write_rank(out, dir, rank, partial, err, errlen);
  fprintf(out,
          "\n],\n\"displayTimeUnit\":\"ns\",\n"
          "\"otherData\":{\"generator\":\"revprof\",\"clock\":\"simulated\","
          "\"ranks\":%d,\"first_rank\":%d,\"nranks\":%d,\"partial\":%s}}\n",
          size, first, n, *partial ? "true" : "false");
  if (ferror(out) && rc == 0)
    rc = rp_trace_fail(REVPROF_EIO, err, errlen, "%s: write error", tmp);
  if (fclose(out) != 0 && rc == 0)
    rc = rp_trace_fail(REVPROF_EIO, err, errlen, "%s: %s", tmp,
                       strerror(errno));
  if (rc == 0 && rename(tmp, path) != 0)
    rc = rp_trace_fail(REVPROF_EIO, err, errlen, "%s: %s", path,
                       strerror(errno));
  if (rc != 0)
    remove(tmp);
  return rc;
}
