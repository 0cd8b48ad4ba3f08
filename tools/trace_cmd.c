/* revprof trace: merge a run's per-rank trace streams into Chrome JSON and
 * OTF2 again (after a crash, or in other formats), and summarize them. */
#include <stdio.h>
#include <string.h>

#include "model_int.h" /* rp_perror */
#include "rp_tools.h"
#include "rp_trace_int.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: revprof trace merge DIR [--formats otf2,chrome]\n"
          "       revprof trace info DIR\n"
          "\n"
          "A revprof run with REVPROF_TRACE set writes DIR/p<rank>.trace per "
          "rank as it\n"
          "goes; the last rank to finish builds DIR/trace.json (Chrome "
          "trace, for\n"
          "Perfetto or chrome://tracing) and the OTF2 archive "
          "DIR/traces.otf2 (Vampir,\n"
          "otf2-print). merge rebuilds both (default: the formats built in) "
          "from the\n"
          "streams, e.g. after a crash, marking them partial when a stream "
          "is incomplete.\n"
          "info prints ranks, events and how each stream ended.\n");
}

/* One row per rank; a rank without a usable stream (missing, or empty:
 * killed before it wrote) is listed as such and left out, with a warning. */
static int info(const char *dir) {
  char err[1024];
  rp_trace_reader *r = NULL;
  rp_trace_event ev;
  int size = rp_trace_dir_size(dir, err, sizeof err), status = 0, lost = 0;
  if (size < 0) {
    rp_perror("revprof trace info", size, err);
    return 1;
  }
  printf("%s: %d ranks\n%6s %10s %10s %14s  %s\n", dir, size, "rank",
         "states", "messages", "end (s)", "stream");
  static const char *const ends[] = {"complete", "partial", "truncated"};
  for (int rank = 0; rank < size; rank++) {
    long ns = 0, nm = 0;
    double tend = 0;
    int rc = rp_trace_open_rank(dir, rank, &r, err, sizeof err);
    if (rc == 1) {
      printf("%6d %10s %10s %14s  %s\n", rank, "-", "-", "-",
             strstr(err, "empty") ? "empty" : "missing");
      fprintf(stderr, "revprof trace info: warning: %s\n", err);
      lost++;
      continue;
    }
    if (rc == 0)
      while ((rc = rp_trace_reader_next(r, &ev, err, sizeof err)) == 1) {
        ns += ev.kind == 'S';
        nm += ev.kind == 'M';
        tend = ev.t1 > tend ? ev.t1 : tend;
      }
    if (rc != 0) {
      rp_perror("revprof trace info", rc, err);
      status = 1;
    } else
      printf("%6d %10ld %10ld %14.9f  %s\n", rank, ns, nm, tend,
             ends[rp_trace_reader_end(r)]);
    rp_trace_reader_close(r);
  }
  if (lost)
    fprintf(stderr, "revprof trace info: warning: %d of %d ranks have no "
                    "events in this trace\n", lost, size);
  return status;
}

int rp_cmd_trace(int argc, char **argv) {
  const char *dir = NULL, *formats = NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
  if (argc < 3 || (strcmp(argv[1], "merge") && strcmp(argv[1], "info"))) {
    usage(stderr);
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--formats") == 0 && i + 1 < argc &&
        strcmp(argv[1], "merge") == 0)
      formats = argv[++i];
    else if (argv[i][0] == '-' || dir) {
      fprintf(stderr, "revprof trace %s: unexpected '%s'\n", argv[1],
              argv[i]);
      usage(stderr);
      return 2;
    } else
      dir = argv[i];
  }
  if (!dir) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "info") == 0)
    return info(dir);
  char bad[256], err[1024];
  unsigned bits = formats ? rp_trace_parse_formats(formats, bad, sizeof bad)
                          : RP_TRACE_FMT_CHROME | RP_TRACE_FMT_OTF2;
  if (formats && bad[0]) {
    fprintf(stderr, "revprof trace merge: unknown format '%s' (otf2, "
                    "chrome)\n", bad);
    return 2;
  }
#ifndef RP_HAVE_OTF2
  if (!formats)
    bits &= ~(unsigned)RP_TRACE_FMT_OTF2;
#endif
  int rc = rp_trace_merge(dir, bits, 0, err, sizeof err);
  if (rc != 0) {
    rp_perror("revprof trace merge", rc, err);
    return 1;
  }
  FILE *p = NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/PARTIAL", dir);
  int partial = (p = fopen(path, "r")) != NULL;
  if (p)
    fclose(p);
  printf("trace: %s%s%s%s%s\n", bits & RP_TRACE_FMT_CHROME ? dir : "",
         bits & RP_TRACE_FMT_CHROME ? "/trace.json " : "",
         bits & RP_TRACE_FMT_OTF2 ? dir : "",
         bits & RP_TRACE_FMT_OTF2 ? "/traces.otf2" : "",
         partial ? " (PARTIAL)" : "");
  return 0;
}
