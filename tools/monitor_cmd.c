/* Online monitoring from the command line: the options 'revprof run' shares
 * (--monitor K ...), its pictures, and 'revprof monitor-probe', the search
 * for the Bottleneck Offload Interval (seed 004 section IV) with the
 * model's BOI next to it (revprof/rp_monitor.c does the work inside the
 * MPI job; the rules are revprof/rp_monitor_rule.c's). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model_int.h" /* rp_perror */
#include "revprof_model.h"
#include "rp_monitor_cal.h"
#include "rp_monitor_rule.h"
#include "rp_tools.h"
#include "rp_util.h"

const char rp_monitor_help[] =
    "\nonline monitoring (seed 004; the program sees a world of N ranks):\n"
    "  --monitor K        K tool ranks beside the N application ranks "
    "(N + K started;\n"
    "                     REVPROF_MONITOR)\n"
    "  --fanout F         the tool ranks' tree fanout (default 8; "
    "REVPROF_MONITOR_FANOUT)\n"
    "  --offload S        blocking, nonblocking or lossy[:B] (default "
    "blocking;\n"
    "                     REVPROF_MONITOR_OFFLOAD)\n"
    "  --accept AT        reduce a round with up to AT children missing "
    "(default 0;\n"
    "                     REVPROF_MONITOR_ACCEPT)\n"
    "  --filter S         stats or hist (default stats; "
    "REVPROF_MONITOR_FILTER)\n"
    "  --interval S       seconds, calls or auto (default 1 s until the "
    "program calls\n"
    "                     revprof_monitor_offload(); "
    "REVPROF_MONITOR_INTERVAL)\n";

static const struct {
  const char *opt, *var;
} opts[] = {{"--monitor", "REVPROF_MONITOR"},
            {"--fanout", "REVPROF_MONITOR_FANOUT"},
            {"--offload", "REVPROF_MONITOR_OFFLOAD"},
            {"--accept", "REVPROF_MONITOR_ACCEPT"},
            {"--filter", "REVPROF_MONITOR_FILTER"},
            {"--interval", "REVPROF_MONITOR_INTERVAL"}};

int rp_monitor_option(const char *cmd, int argc, char **argv, int *i) {
  for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
    if (strcmp(argv[*i], opts[k].opt) == 0) {
      if (*i + 1 >= argc) {
        fprintf(stderr, "revprof %s: %s needs a value\n", cmd, opts[k].opt);
        return -1;
      }
      setenv(opts[k].var, argv[++*i], 1);
      return 1;
    }
  return 0;
}

static const char *env_get(const char *name, void *ctx) {
  (void)ctx;
  return getenv(name);
}

int rp_monitor_check(const char *cmd) {
  rp_mon_config c;
  char err[512];
  if (rp_mon_config_read(&c, env_get, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "revprof %s: %s\n", cmd, err);
    return -1;
  }
  return c.tools;
}

void rp_monitor_none(const char *cmd) {
  const char *v = getenv("REVPROF_MONITOR");
  if (v && *v && strcmp(v, "0") != 0)
    fprintf(stderr, "revprof %s: REVPROF_MONITOR=%s ignored: %s runs its "
            "ranks without tool ranks\n", cmd, v, cmd);
  unsetenv("REVPROF_MONITOR");
}

void rp_monitor_plot(const char *dir) {
  char gp[PATH_MAX], mdir[PATH_MAX], abs[PATH_MAX], script[PATH_MAX + 16],
      cd[PATH_MAX + 16];
  snprintf(mdir, sizeof mdir, "%s/monitor", dir);
  if (realpath(mdir, abs) == NULL)
    return; /* no monitor folder: the front-end said why */
  /* gnuplot reads the script after the -e commands: both absolute */
  snprintf(script, sizeof script, "%s/plot.gp", abs);
  if (access(script, R_OK) != 0 ||
      rp_find_program("REVPROF_GNUPLOT", "gnuplot", gp, sizeof gp) != 0)
    return; /* the CSV files are there; pictures are extra */
  snprintf(cd, sizeof cd, "cd '%s'", abs);
  char *argv[] = {gp, "-e", cd, script, NULL};
  char log[PATH_MAX + 32];
  snprintf(log, sizeof log, "%s/gnuplot.log", mdir);
  if (rp_spawn(argv, log, 1, NULL) != 0)
    fprintf(stderr, "revprof: gnuplot failed on %s (see %s)\n", script, log);
}

/* ------------------------------------------------------ monitor-probe */

static void probe_usage(FILE *f) {
  fprintf(f,
          "usage: revprof monitor-probe [--monitor K] [--fanout F] [-np N] "
          "[OPTIONS]\n"
          "\n"
          "Finds the operating range of online monitoring (seed 004 "
          "section IV): for\n"
          "each profile size (events, powers of two) a stop-and-go resting "
          "phase gives\n"
          "the resting one-way delay (restOWD) and its spread (restSD); a "
          "binary search\n"
          "on the offload interval, L rounds per step, then finds the "
          "Bottleneck Offload\n"
          "Interval (BOI: the shortest that does not queue), and the "
          "offload cost (OC)\n"
          "and one-way delay there; LO = OC / (BOI + OC) x 100 is the "
          "Limiting Overhead.\n"
          "Each search ends with L rounds offloaded at once: the spacing of "
          "their arrivals\n"
          "is the tree's capacity, its time per round (capacity_s; "
          "where ranks\n"
          "outnumber the cores the offloads cannot start at once and it "
          "means little).\n"
          "N application ranks and K tool ranks are started (N + K). "
          "Results go to\n"
          "DIR/monitor/probe.csv (revprof_monitor_info and "
          "REVPROF_MONITOR_INTERVAL=auto\n"
          "read it) and probe-steps.csv.\n"
          "\n"
          "options:\n"
          "  --monitor K        tool ranks (default 1)\n"
          "  --fanout F         tree fanout (default 8)\n"
          "  -np N, -n N        application ranks (default 2)\n"
          "  --events A:B       profile sizes A, 2A, ... up to B (default "
          "16:1024)\n"
          "  --rounds L         rounds per search step (default %d)\n"
          "  --k K              OWD threshold restOWD + K restSD (default "
          "%g)\n"
          "  --growth step|round  a step is queued when its OWD rises by "
          "more than restSD\n"
          "                     over the step (step, default) or each "
          "round (round: the\n"
          "                     seed's rule, which misses queues that grow "
          "by less than\n"
          "                     the resting spread a round), and its mean "
          "OWD is above\n"
          "                     the threshold\n"
          "  --repeat R         R searches per size (1 to 100, default 1): "
          "probe.csv\n"
          "                     gets their medians and the BOI's least and "
          "largest\n"
          "  --offload S        blocking, nonblocking or lossy[:B]\n"
          "  --filter S         stats or hist\n"
          "  --predict          also the BOI and LO the machine model "
          "predicts (needs\n"
          "                     --model or REVPROF_MODEL)\n"
          "  --model-only       only the model's BOI and LO, no job "
          "started\n"
          "  --model M.lua      the machine model\n"
          "  -o DIR             output folder (default revprof-out)\n",
          RP_BOI_L, RP_BOI_K);
}

static int parse_int(const char *s, int lo, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > 1000000)
    return -1;
  *out = (int)v;
  return 0;
}

static int model_only(const char *model, int n, int k, int f, int emin,
                      int emax) {
  char err[1024];
  revprof_model *m = NULL;
  int rc = revprof_model_load(model, &m, err, sizeof err);
  if (rc != 0)
    return rp_perror("revprof monitor-probe", rc, err);
  rp_mon_config c;
  if (rp_mon_config_read(&c, env_get, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "revprof monitor-probe: %s\n", err);
    revprof_model_free(m);
    return 2;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  printf("model BOI for %d application ranks, %d tool ranks, fanout %d, %s "
         "filter (%s; filter %.3g ns per event and front-end %.3g us per "
         "row timed here, %ld cores)\n",
         n, k, f, rp_mon_filter_name(c.filter), model,
         rp_mon_time_filter(c.filter) * 1e9, rp_mon_time_row(c.filter) * 1e6,
         cores);
  printf("%8s %14s %14s %10s %s\n", "events", "model_boi_ms", "model_oc_ms",
         "model_lo_%", "slowest");
  for (int e = emin; e <= emax; e *= 2) {
    rp_mon_pred p;
    rp_mon_predict_model(m, n, k, f, e, c.filter, (int)cores, &p);
    printf("%8d %14.4g %14.4g %10.3g %s\n", e, p.boi * 1e3, p.oc * 1e3,
           rp_mon_lo(p.oc, p.boi),
           p.boi > p.node_max ? "all ranks over the cores" : "a tool rank");
  }
  revprof_model_free(m);
  return 0;
}

int rp_cmd_monitor_probe(int argc, char **argv) {
  int n = 2, emin = 16, emax = 1024, rounds = RP_BOI_L, predict = 0,
      only = 0, repeat = 1, rule = RP_BOI_STEP;
  double k = RP_BOI_K;
  const char *model = getenv("REVPROF_MODEL"), *dir = "revprof-out";
  if (!getenv("REVPROF_MONITOR"))
    setenv("REVPROF_MONITOR", "1", 1);
  for (int i = 1; i < argc; i++) {
    int took = rp_monitor_option("monitor-probe", argc, argv, &i);
    if (took < 0)
      return 2;
    if (took)
      continue;
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      probe_usage(stdout);
      return 0;
    } else if ((strcmp(a, "-np") == 0 || strcmp(a, "-n") == 0) && v) {
      if (parse_int(v, 1, &n) != 0) {
        fprintf(stderr, "revprof monitor-probe: -np needs a count >= 1, "
                        "not '%s'\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--events") == 0 && v) {
      char *end = NULL;
      long x = strtol(v, &end, 10), y = x;
      if (end != v && *end == ':')
        y = strtol(end + 1, &end, 10);
      if (*end || x < 1 || y < x || y > 1 << 20) {
        fprintf(stderr, "revprof monitor-probe: --events needs A:B with "
                        "1 <= A <= B <= 1048576, not '%s'\n", v);
        return 2;
      }
      emin = (int)x;
      emax = (int)y;
      i++;
    } else if (strcmp(a, "--rounds") == 0 && v) {
      if (parse_int(v, 2, &rounds) != 0) {
        fprintf(stderr, "revprof monitor-probe: --rounds needs a count >= "
                        "2, not '%s'\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--k") == 0 && v) {
      char *end = NULL;
      k = strtod(v, &end);
      if (end == v || *end || !(k >= 0.0) || !isfinite(k)) {
        fprintf(stderr, "revprof monitor-probe: --k needs a number >= 0, "
                        "not '%s'\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--growth") == 0 && v) {
      if ((rule = rp_boi_rule_of(v)) < 0) {
        fprintf(stderr, "revprof monitor-probe: --growth needs step or "
                        "round, not '%s'\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--repeat") == 0 && v) {
      if (parse_int(v, 1, &repeat) != 0 || repeat > 100) {
        fprintf(stderr, "revprof monitor-probe: --repeat needs a count from "
                        "1 to 100, not '%s'\n", v);
        return 2;
      }
      i++;
    } else if (strcmp(a, "--model") == 0 && v) {
      model = v;
      i++;
    } else if (strcmp(a, "-o") == 0 && v) {
      dir = v;
      i++;
    } else if (strcmp(a, "--predict") == 0)
      predict = 1;
    else if (strcmp(a, "--model-only") == 0)
      only = 1;
    else {
      fprintf(stderr, "revprof monitor-probe: unknown option '%s'\n", a);
      probe_usage(stderr);
      return 2;
    }
  }
  int tools = rp_monitor_check("monitor-probe");
  if (tools < 0)
    return 2;
  if (tools < 1) {
    fprintf(stderr, "revprof monitor-probe: --monitor needs at least 1 "
                    "tool rank\n");
    return 2;
  }
  rp_mon_config c;
  char err[512];
  rp_mon_config_read(&c, env_get, NULL, err, sizeof err);
  if (rp_mon_shape_check(n, tools, c.fanout, err, sizeof err) != 0) {
    fprintf(stderr, "revprof monitor-probe: %s\n", err);
    return 2;
  }
  if ((predict || only) && !(model && *model)) {
    fprintf(stderr, "revprof monitor-probe: --predict and --model-only "
                    "need a machine model: --model FILE.lua or "
                    "REVPROF_MODEL\n");
    return 2;
  }
  if (only)
    return model_only(model, n, tools, c.fanout, emin, emax);
  char lib[PATH_MAX], exe[PATH_MAX], spec[128], abs[PATH_MAX];
  if (rp_find_revprof_lib(lib, sizeof lib) != 0) {
    fprintf(stderr, "revprof monitor-probe: cannot find librevprof.so "
                    "(set REVPROF_LIB)\n");
    return 1;
  }
  if (rp_find_libexec("REVPROF_PROBE", "revprof-probe", exe, sizeof exe) !=
      0) {
    fprintf(stderr, "revprof monitor-probe: cannot find revprof-probe "
                    "(build revprof, or set REVPROF_PROBE to its path)\n");
    return 1;
  }
  if (rp_mkdir_p(dir) != 0) {
    fprintf(stderr, "revprof monitor-probe: %s: %s\n", dir, strerror(errno));
    return 1;
  }
  snprintf(spec, sizeof spec, "%d:%d:%d:%.17g:%d:%s", emin, emax, rounds, k,
           repeat, rp_boi_rule_name(rule));
  setenv("REVPROF_MONITOR_PROBE", spec, 1);
  setenv("REVPROF_OUTPUT_DIR", dir, 1);
  setenv("REVPROF_MODE", "off", 1); /* the transport is probed, not MPI */
  if (predict)
    setenv("REVPROF_MODEL", realpath(model, abs) ? abs : model, 1);
  else
    unsetenv("REVPROF_MODEL");
  fprintf(stderr, "revprof monitor-probe: %d application ranks, %d tool "
          "ranks, fanout %d, events %d..%d, %d rounds per step, growth "
          "per %s, %d search(es) per size\n",
          n, tools, c.fanout, emin, emax, rounds,
          rp_boi_rule_name(rule), repeat);
  char *app[] = {exe, NULL};
  int st = rp_launch(lib, n + tools, app, NULL);
  if (st != 0) {
    fprintf(stderr, "revprof monitor-probe: the probe job failed (status "
                    "%d)\n", st);
    return st < 0 ? 1 : st;
  }
  fprintf(stderr, "revprof monitor-probe: results in %s/monitor/probe.csv\n",
          dir);
  return 0;
}
