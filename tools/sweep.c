/* revprof run and revprof sweep: launch an MPI program under librevprof
 * (LD_PRELOAD through mpiexec), and repeat that over process counts to
 * compare predicted with measured speedup (seed 003, Figure 3). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rp_config.h" /* rp_mode_parse */
#include "rp_icost_rule.h"
#include <unistd.h>

#include "model_int.h" /* rp_perror */
#include "revprof_model.h"
#include "rp_tools.h"
#include "rp_util.h"

extern char **environ;

#define MAXNP 64 /* process counts in one sweep */

/* ------------------------------------------------------------ launching */

static const char *mpiexec_path(void) {
  const char *m = getenv("REVPROF_MPIEXEC");
  return m && *m ? m : RP_MPIEXEC;
}

static int is_mpich(const char *mpiexec) {
  return strstr(mpiexec, "mpich") || strstr(mpiexec, "hydra");
}

typedef struct launch {
  const char *lib;   /* librevprof.so to preload; NULL: run natively */
  int np;
  char **app;        /* program and its arguments, NULL-terminated */
} launch;

/* Builds the mpiexec command line; REVPROF_* variables of this process are
 * exported to the ranks. Returns a calloc'ed argv whose own strings live in
 * one buffer *own (both freed by the caller), or NULL. */
static char **launch_argv(const launch *l, char *npbuf, char **own) {
  size_t napp = 0, nenv = 0, room = l->lib ? strlen(l->lib) + 16 : 1;
  const char *mpiexec = mpiexec_path();
  while (l->app[napp])
    napp++;
  for (char **e = environ; *e; e++)
    if (strncmp(*e, "REVPROF_", 8) == 0) {
      nenv++;
      room += strlen(*e) + 1;
    }
  char **argv = calloc(napp + 2 * nenv + 16, sizeof *argv);
  char *buf = *own = malloc(room);
  if (!argv || !buf) {
    free(argv);
    free(buf);
    return NULL;
  }
  size_t n = 0;
  int mpich = is_mpich(mpiexec);
  argv[n++] = (char *)mpiexec;
  if (!mpich) {
    argv[n++] = "--oversubscribe"; /* more ranks than cores is fine here */
    if (geteuid() == 0) {
      setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
      setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
  }
  snprintf(npbuf, 16, "%d", l->np);
  argv[n++] = "-n";
  argv[n++] = npbuf;
  if (l->lib) {
    if (mpich) { /* hydra passes the rest of the environment anyway */
      argv[n++] = "-genv";
      argv[n++] = "LD_PRELOAD";
      buf += sprintf(buf, "%s", l->lib) + 1;
    } else {
      argv[n++] = "-x";
      buf += sprintf(buf, "LD_PRELOAD=%s", l->lib) + 1;
    }
    argv[n++] = *own;
  }
  for (char **e = environ; !mpich && *e; e++) {
    char *eq = strchr(*e, '=');
    if (strncmp(*e, "REVPROF_", 8) == 0 && eq) {
      argv[n++] = "-x"; /* "-x NAME" exports NAME's current value */
      argv[n++] = buf;
      buf += sprintf(buf, "%.*s", (int)(eq - *e), *e) + 1;
    }
  }
  for (size_t i = 0; i < napp; i++)
    argv[n++] = l->app[i];
  argv[n] = NULL;
  return argv;
}

/* Runs l through mpiexec: the exit status as rp_spawn returns it, or
 * REVPROF_ENOMEM (reported). */
static int run_launch(const launch *l, const char *out, double *seconds) {
  char npbuf[16], *own = NULL;
  char **argv = launch_argv(l, npbuf, &own);
  if (!argv) {
    fprintf(stderr, "revprof: out of memory\n");
    return REVPROF_ENOMEM;
  }
  int st = rp_spawn(argv, out, 1, seconds);
  free(own);
  free(argv);
  return st;
}

int rp_launch(const char *lib, int np, char **app, const char *out) {
  launch l = {lib, np, app};
  return run_launch(&l, out, NULL);
}


/* A whole number 1..1e6 into *out: 0, or REVPROF_EINVAL (the caller
 * names the option). */
static int parse_count(const char *s, int *out) {
  double d;
  if (!rp_parse_double(s, &d) || d < 1 || d > 1e6 || d != floor(d))
    return REVPROF_EINVAL;
  *out = (int)d;
  return 0;
}

/* Options shared by run and sweep; they become REVPROF_* variables. */
typedef struct common {
  const char *model, *dir, *trace, *compute, *step, *step_min, *step_max;
  const char *lua;
} common;

/* 1 when v is a REVPROF_COMPUTE value (rp_config.c checks it again in
 * every rank; here it fails before any rank starts). */
static int compute_mode_ok(const char *v) {
  static const char *const modes[] = {"auto", "zero", "annotate", "measure"};
  for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
    if (strcmp(v, modes[k]) == 0)
      return 1;
  return 0;
}

/* Consumes one shared option at argv[*i]: 1 when taken, 0 when not one,
 * REVPROF_EINVAL on a bad value (reported). */
static int common_option(const char *cmd, int argc, char **argv, int *i,
                         common *c) {
  static const struct {
    const char *flag;
    size_t off;
    int seconds; /* value must be a time in seconds */
  } flags[] = {
      {"--model", offsetof(common, model), 0},
      {"--trace", offsetof(common, trace), 0},
      {"--compute", offsetof(common, compute), 0},
      {"--step", offsetof(common, step), 1},
      {"--step-min", offsetof(common, step_min), 1},
      {"--step-max", offsetof(common, step_max), 1},
      {"--lua", offsetof(common, lua), 0},
      {"-o", offsetof(common, dir), 0},
  };
  for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
    if (strcmp(argv[*i], flags[k].flag) != 0)
      continue;
    if (*i + 1 >= argc) {
      fprintf(stderr, "revprof %s: %s needs a value\n", cmd, flags[k].flag);
      return REVPROF_EINVAL;
    }
    const char *v = argv[++*i];
    double d;
    if (flags[k].seconds && (!rp_parse_double(v, &d) || d < 0)) {
      fprintf(stderr, "revprof %s: %s needs seconds >= 0, not '%s'\n", cmd,
              flags[k].flag, v);
      return REVPROF_EINVAL;
    }
    if (flags[k].off == offsetof(common, compute) && !compute_mode_ok(v)) {
      fprintf(stderr, "revprof %s: --compute needs auto, zero, annotate or "
                      "measure, not '%s'\n", cmd, v);
      return REVPROF_EINVAL;
    }
    *(const char **)((char *)c + flags[k].off) = v;
    return 1;
  }
  return 0;
}

/* REVPROF_MODE's values are librevprof's own (rp_mode_parse). Every mode
 * but predict measures the program for real (compensate, sample) or runs
 * it without revprof (off): a machine model is optional there
 * (compensate's overheads and sample mode's model rows are calibrated or
 * left out without one). */
static int model_optional(void) {
  rp_mode m;
  return rp_mode_parse(getenv("REVPROF_MODE"), &m) == 0 &&
         m != RP_MODE_PREDICT;
}

/* Checks the model and the library and exports the settings: 0, or a
 * REVPROF_E* code (reported). sweep predicts, so it always needs a model;
 * run only in predict mode. */
static int common_setup(const char *cmd, const common *c, char *lib,
                        size_t liblen) {
  char err[1024];
  const char *model = c->model ? c->model : getenv("REVPROF_MODEL");
  int optional = strcmp(cmd, "run") == 0 && model_optional();
  if ((!model || !*model) && !optional) {
    fprintf(stderr, "revprof %s: no machine model: give --model FILE.lua "
                    "(e.g. from 'revprof characterize') or set "
                    "REVPROF_MODEL%s\n", cmd,
            strcmp(cmd, "run") == 0
                ? " (compensate and sample mode run without one: --mode "
                  "or REVPROF_MODE)"
                : "");
    return REVPROF_EINVAL;
  }
  if (model && *model) {
    revprof_model *m = NULL;
    int rc = revprof_model_load(model, &m, err, sizeof err);
    if (rc != 0) {
      char who[32];
      snprintf(who, sizeof who, "revprof %s", cmd);
      return rp_perror(who, rc, err);
    }
    revprof_model_free(m);
  }
  if (rp_find_revprof_lib(lib, liblen) != 0) {
    fprintf(stderr, "revprof %s: cannot find librevprof.so (build the "
                    "revprof library, or set REVPROF_LIB to its path)\n",
            cmd);
    return REVPROF_EMISSING;
  }
  char abs[4096];
  if (model && *model)
    setenv("REVPROF_MODEL", realpath(model, abs) ? abs : model, 1);
  if (c->trace)
    setenv("REVPROF_TRACE", c->trace, 1);
  if (c->compute)
    setenv("REVPROF_COMPUTE", c->compute, 1);
  if (c->step)
    setenv("REVPROF_STEP", c->step, 1);
  if (c->step_min)
    setenv("REVPROF_STEP_MIN", c->step_min, 1);
  if (c->step_max)
    setenv("REVPROF_STEP_MAX", c->step_max, 1);
  if (c->lua)
    setenv("REVPROF_LUA", realpath(c->lua, abs) ? abs : c->lua, 1);
  return 0;
}

static const char common_help[] =
    "  --model FILE.lua   machine model to predict for (or REVPROF_MODEL;\n"
    "                     run needs none with REVPROF_MODE=compensate or\n"
    "                     sample)\n"
    "  --trace FORMATS    traces: otf2,chrome,text (REVPROF_TRACE)\n"
    "  --compute MODE     auto (default), zero, annotate or measure\n"
    "                     (REVPROF_COMPUTE)\n"
    "  --step S           seconds per REVPROF_COMPUTE_STEPS step "
    "(REVPROF_STEP);\n"
    "  --step-min S, --step-max S   its bounds (REVPROF_STEP_MIN/MAX)\n"
    "  --lua FILE.lua     cost functions of regions (REVPROF_LUA)\n"
    "Other REVPROF_* variables set in the environment reach the ranks "
    "too.\n"
    "mpiexec is " RP_MPIEXEC " (REVPROF_MPIEXEC overrides); librevprof.so "
    "is found\n"
    "next to this program, in the install tree, or at REVPROF_LIB.\n";

/* ------------------------------------------------------------------ run */

static void run_usage(FILE *f) {
  fprintf(f,
          "usage: revprof run --model M.lua [-np N] [-o DIR] [OPTIONS] -- "
          "PROGRAM [ARGS]\n"
          "\n"
          "Runs the MPI program on N ranks (default 2) with librevprof "
          "preloaded, so\n"
          "every MPI call advances a simulated clock by the model's time: "
          "the report\n"
          "(predicted elapsed time avg [min, max]) and traces go to DIR "
          "(default\n"
          "revprof-out; REVPROF_OUTPUT_DIR). With --timeline PIC.png the "
          "timing diagram\n"
          "is drawn afterwards (needs --trace). Exit status: the "
          "program's; 2\n"
          "when PROGRAM is neither an executable file nor found in PATH "
          "or the current\nfolder; 1 when it ended with 0 but no rank "
          "started MPI through librevprof.\n"
          "\n"
          "options:\n"
          "  -np N, -n N        ranks\n"
          "  --mode M           predict (default), compensate, sample or off\n"
          "                     (REVPROF_MODE; compensate and sample need no "
          "model)\n"
          "  --timeline PIC     draw the timeline of the run to PIC\n"
          "  --max-overhead P%%  keep revprof's own cost under P %% of one "
          "CPU per rank\n"
          "                     (REVPROF_MAX_OVERHEAD)\n"
          "  --cost-profile F   expected event rates from a previous run's "
          "cost.csv\n"
          "                     (REVPROF_COST_PROFILE)\n"
          "  --dry-cost         print the predicted instrumentation cost "
          "and exit: the\n"
          "                     program starts on one rank and stops at the "
          "end of MPI_Init\n"
          "%s%s",
          rp_monitor_help, common_help);
}

/* The program a run starts (argv[0] of the application): 0 when it is a
 * path to an executable file, or a name found in PATH or, as Open MPI's
 * mpiexec also looks there, in the current folder; else 2 after a message
 * naming it. Without the check a mistyped name reads as a rank killed by
 * a signal: Open MPI's mpiexec exits 132 or 134 when it finds no program.
 * A first word starting with '-' (a launcher's option) is not checked. */
static int program_check(const char *cmd, const char *prog, char *buf,
                         size_t len) {
  char here[4096];
  struct stat sb;
  buf[0] = '\0';
  if (prog[0] == '-' || rp_find_program(NULL, prog, buf, len) == 0)
    return 0;
  if (strchr(prog, '/') == NULL) {
    snprintf(here, sizeof here, "./%s", prog);
    if (rp_find_program(NULL, here, buf, len) == 0)
      return 0;
    fprintf(stderr, "revprof %s: %s: no such program in PATH or the "
                    "current folder\n", cmd, prog);
  } else if (stat(prog, &sb) != 0)
    fprintf(stderr, "revprof %s: %s: %s\n", cmd, prog, strerror(errno));
  else
    fprintf(stderr, "revprof %s: %s: not an executable file\n", cmd, prog);
  return 2;
}

/* The first MPI library an ELF file names (rp_elf_needed). */
typedef struct mpi_named {
  const char *family;
  char so[128];
} mpi_named;

static int first_mpi(const char *name, void *arg) {
  mpi_named *m = arg;
  m->family = rp_mpi_of_soname(name);
  if (m->family == NULL)
    return 0;
  snprintf(m->so, sizeof m->so, "%s", name);
  return 1;
}

/* The program (path, as found) and librevprof against each other, by the
 * MPI libraries each names itself: 2, with a message, when they are of two
 * families (the program would fail in its first MPI call); else 0. What
 * cannot be told here (a script, a program that reaches MPI through
 * another library) librevprof tells as it loads (rp_engine.c). */
static int mpi_check(const char *cmd, const char *prog, const char *path,
                     const char *lib) {
  mpi_named p = {NULL, ""}, l = {NULL, ""};
  if (!path[0] || rp_elf_needed(path, first_mpi, &p) < 0 || !p.family ||
      rp_elf_needed(lib, first_mpi, &l) < 0 || !l.family ||
      strcmp(p.family, l.family) == 0)
    return 0;
  fprintf(stderr,
          "revprof %s: %s is linked with %s (%s), but %s was built for %s "
          "(%s).\nUse a revprof built for the program's MPI (cmake "
          "-DREVPROF_MPI=%s), or build the program with %s's compiler "
          "wrappers.\n",
          cmd, prog, p.family, p.so, lib, l.family, l.so,
          strcmp(p.family, "MPICH") == 0 ? "mpich" : "openmpi", l.family);
  return 2;
}

/* Index of "--" in argv, or argc. */
static int dashdash(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--") == 0)
      return i;
  return argc;
}

/* What a failed run left: how it ended (a signal, as mpiexec reports it
 * with status 128 + N) and the partial reports its ranks wrote since t0. */
static void run_failed(const char *dir, int st, time_t t0) {
  if (st < 0)
    fprintf(stderr, "revprof run: could not run or wait for mpiexec\n");
  else if (st > 128 && st <= 128 + 64)
    fprintf(stderr, "revprof run: a rank of the program was killed by "
                    "signal %d (%s): exit status %d\n",
            st - 128, strsignal(st - 128), st);
  else
    fprintf(stderr, "revprof run: the program exited with status %d\n", st);
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char path[4096];
    struct stat sb;
    if (strstr(e->d_name, ".partial") == NULL ||
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
            (int)sizeof path ||
        stat(path, &sb) != 0 || sb.st_mtime < t0)
      continue;
    /* the reason the rank wrote, from the report's first line */
    char why[256] = "";
    FILE *f = strstr(e->d_name, ".txt") ? fopen(path, "r") : NULL;
    if (f) {
      char line[512];
      const char *p;
      if (fgets(line, sizeof line, f) && (p = strstr(line, "(PARTIAL: ")))
        snprintf(why, sizeof why, " %.*s", (int)strcspn(p, "\n=") - 1, p);
      fclose(f);
    }
    fprintf(stderr, "revprof run: partial report: %s%s\n", path, why);
    n++;
  }
  if (d)
    closedir(d);
  if (n == 0)
    fprintf(stderr, "revprof run: no partial report in %s (the program "
                    "ended before MPI_Init, or revprof could not write)\n",
            dir);
}

/* 1 when a file in dir was written at t0 or later: a rank's report, cost
 * or sample files (every mode writes cost.txt at least). */
static int wrote_since(const char *dir, time_t t0) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && n == 0 && (e = readdir(d)) != NULL) {
    char path[4096];
    struct stat sb;
    n = e->d_name[0] != '.' &&
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name) <
            (int)sizeof path &&
        stat(path, &sb) == 0 && sb.st_mtime >= t0;
  }
  if (d)
    closedir(d);
  return n;
}

int rp_cmd_run(int argc, char **argv) {
  common c = {0};
  const char *timeline = NULL;
  int np = 2, dry = 0, end = dashdash(argc, argv);
  for (int i = 1; i < end; i++) {
    int took = common_option("run", end, argv, &i, &c);
    if (took < 0)
      return 2;
    if (took)
      continue;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      run_usage(stdout);
      return 0;
    } else if ((strcmp(argv[i], "-np") == 0 || strcmp(argv[i], "-n") == 0 ||
                strcmp(argv[i], "--np") == 0) && i + 1 < end) {
      if (parse_count(argv[++i], &np) != 0) {
        fprintf(stderr, "revprof run: -np needs a count >= 1, not '%s'\n",
                argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--mode") == 0 && i + 1 < end) {
      const char *m = argv[++i];
      rp_mode mode;
      if (rp_mode_parse(m, &mode) != 0) {
        fprintf(stderr, "revprof run: --mode needs predict, compensate, "
                        "sample or off, not '%s'\n", m);
        return 2;
      }
      setenv("REVPROF_MODE", m, 1);
    } else if (strcmp(argv[i], "--timeline") == 0 && i + 1 < end)
      timeline = argv[++i];
    else if (strcmp(argv[i], "--max-overhead") == 0 && i + 1 < end) {
      double b;
      char err[256];
      if (rp_ic_bound_parse(argv[++i], &b, err, sizeof err) != 0) {
        fprintf(stderr, "revprof run: --max-overhead: %s\n", err);
        return 2;
      }
      setenv("REVPROF_MAX_OVERHEAD", argv[i], 1);
    } else if (strcmp(argv[i], "--cost-profile") == 0 && i + 1 < end) {
      char abs[4096];
      setenv("REVPROF_COST_PROFILE",
             realpath(argv[i + 1], abs) ? abs : argv[i + 1], 1);
      i++;
    } else if (strcmp(argv[i], "--dry-cost") == 0)
      dry = 1;
    else if ((took = rp_monitor_option("run", end, argv, &i)) != 0) {
      if (took < 0)
        return 2;
    } else {
      fprintf(stderr, "revprof run: unknown option '%s' (the program goes "
                      "after --)\n", argv[i]);
      run_usage(stderr);
      return 2;
    }
  }
  if (end + 1 >= argc) {
    fprintf(stderr, "revprof run: no program: revprof run [OPTIONS] -- "
                    "PROGRAM [ARGS]\n");
    return 2;
  }
  char path[4096];
  if (program_check("run", argv[end + 1], path, sizeof path) != 0)
    return 2;
  int tools = rp_monitor_check("run");
  if (tools < 0)
    return 2;
  char lib[4096];
  if (common_setup("run", &c, lib, sizeof lib) != 0)
    return 1;
  if (mpi_check("run", argv[end + 1], path, lib) != 0)
    return 2;
  const char *dir = c.dir ? c.dir : getenv("REVPROF_OUTPUT_DIR");
  if (!dir || !*dir)
    dir = "revprof-out";
  if (timeline && !c.trace && !getenv("REVPROF_TRACE"))
    setenv("REVPROF_TRACE", "text", 1);
  if (rp_mkdir_p(dir) != 0) {
    fprintf(stderr, "revprof run: %s: %s\n", dir, strerror(errno));
    return 1;
  }
  setenv("REVPROF_OUTPUT_DIR", dir, 1);
  if (dry) { /* one rank: the costs per event are a rank's own */
    setenv("REVPROF_DRY_COST", "1", 1);
    np = 1;
  }
  launch l = {lib, np + (dry ? 0 : tools), argv + end + 1};
  if (dry)
    unsetenv("REVPROF_MONITOR");
  time_t t0 = time(NULL);
  int st = run_launch(&l, NULL, NULL);
  if (st != 0) {
    run_failed(dir, st, t0);
    return st < 0 ? 1 : st;
  }
  if (dry)
    return 0;
  const char *mode = getenv("REVPROF_MODE");
  if (!(mode && strcmp(mode, "off") == 0) && !wrote_since(dir, t0)) {
    fprintf(stderr,
            "revprof run: the program ended with status 0, but revprof "
            "wrote nothing in %s:\nno rank started MPI through librevprof "
            "(the program does not call MPI_Init,\nor is linked statically "
            "or with another MPI than the one revprof was built for)\n",
            dir);
    return 1;
  }
  if (tools > 0)
    rp_monitor_plot(dir);
  fprintf(stderr, "revprof run: output in %s\n", dir);
  if (timeline) {
    char *targv[] = {"timeline", (char *)dir, "-o", (char *)timeline, NULL};
    return rp_cmd_timeline(4, targv);
  }
  return 0;
}

/* ---------------------------------------------------------- report.csv */

/* Splits a CSV line in place into at most max fields; quotes are removed
 * (no embedded commas inside quotes expected in a report). */
static int split_csv(char *line, char **field, int max) {
  int n = 0;
  char *s = line;
  s[strcspn(s, "\r\n")] = '\0';
  while (n < max) {
    while (*s == ' ')
      s++;
    field[n++] = s;
    char *comma = strchr(s, ',');
    if (comma)
      *comma = '\0';
    size_t len = strlen(s);
    while (len && s[len - 1] == ' ')
      s[--len] = '\0';
    if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
      s[len - 1] = '\0';
      field[n - 1] = s + 1;
    }
    if (!comma)
      break;
    s = comma + 1;
  }
  return n;
}

static void lower(char *s) {
  for (; *s; s++)
    *s = (char)tolower((unsigned char)*s);
}

/* Which bound a name stands for: 0 min, 1 avg, 2 max, -1 none. */
static int bound_of(const char *name) {
  if (strstr(name, "min") || strstr(name, "low"))
    return 0;
  if (strstr(name, "max") || strstr(name, "high") || strstr(name, "upp"))
    return 2;
  if (strstr(name, "avg") || strstr(name, "mean") || strstr(name, "pred") ||
      strstr(name, "value") || strstr(name, "typ"))
    return 1;
  return -1;
}

static int is_elapsed(const char *name) {
  return strstr(name, "elapsed") || strstr(name, "total_time") ||
         strcmp(name, "time") == 0 || strstr(name, "makespan") ||
         strstr(name, "run_time") || strstr(name, "runtime");
}

/* Scope column values naming the whole run rather than one rank. */
static int whole_run(const char *v) {
  return strcmp(v, "all") == 0 || strcmp(v, "total") == 0 ||
         strcmp(v, "run") == 0 || strcmp(v, "elapsed") == 0 ||
         strcmp(v, "max") == 0 || strcmp(v, "-1") == 0 ||
         strcmp(v, "*") == 0 || strcmp(v, "program") == 0;
}

/* Reads the predicted elapsed time avg [min, max] (seconds) from the
 * report.csv that librevprof writes at MPI_Finalize. Understands, whatever
 * the column order and case:
 *  - wide: a header with elapsed_min / elapsed_avg / elapsed_max columns
 *    (first row, or the row whose rank/scope column says all/total/-1);
 *  - long: rows "elapsed,<min>,<avg>,<max>" under a header naming min, avg
 *    and max columns, or "elapsed_avg,<value>" key/value rows.
 * A missing min or max is set to avg. Returns 0, or with a message naming
 * the file REVPROF_EIO (unreadable) or REVPROF_EFIELD (no elapsed time). */
static int read_report(const char *path, double t[3], char *err,
                       size_t errlen) {
  FILE *f = fopen(path, "r");
  char line[4096], hdr[4096], *h[64], *v[64];
  int nh = 0, found[3] = {0, 0, 0};
  if (!f) {
    snprintf(err, errlen, "%.900s: %s (did the program call MPI_Finalize "
                          "under revprof?)", path, strerror(errno));
    return REVPROF_EIO;
  }
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[strspn(line, " \r\n")] == '\0')
      continue;
    lower(line);
    if (nh == 0) { /* first line: the header */
      snprintf(hdr, sizeof hdr, "%s", line);
      nh = split_csv(hdr, h, 64);
      /* a header that is itself a key/value row: "elapsed_avg,1.2" */
      if (nh >= 2 && is_elapsed(h[0])) {
        double d;
        int b = bound_of(h[0]);
        if (rp_parse_double(h[1], &d) && b >= 0) {
          t[b] = d;
          found[b] = 1;
        }
      }
      continue;
    }
    int nv = split_csv(line, v, 64);
    /* wide: elapsed columns, in the whole-run row or the first */
    int scope_col = -1, wide = 0;
    for (int k = 0; k < nh; k++)
      if (strcmp(h[k], "rank") == 0 || strcmp(h[k], "scope") == 0 ||
          strcmp(h[k], "what") == 0)
        scope_col = k;
    for (int k = 0; k < nh && k < nv; k++) {
      int b = bound_of(h[k]);
      double d;
      if (is_elapsed(h[k]) && b >= 0 && rp_parse_double(v[k], &d)) {
        if (!found[b] || (scope_col >= 0 && whole_run(v[scope_col]))) {
          t[b] = d;
          found[b] = 1;
          wide = 1;
        }
      }
    }
    if (wide || nv < 2)
      continue;
    /* long: the first field names the quantity */
    if (!is_elapsed(v[0]))
      continue;
    double d;
    int b0 = bound_of(v[0]);
    if (b0 >= 0 && rp_parse_double(v[1], &d)) { /* elapsed_avg,1.2 */
      t[b0] = d;
      found[b0] = 1;
      continue;
    }
    for (int k = 1; k < nh && k < nv; k++) { /* elapsed,min,avg,max */
      int b = bound_of(h[k]);
      if (b >= 0 && rp_parse_double(v[k], &d)) {
        t[b] = d;
        found[b] = 1;
      }
    }
  }
  fclose(f);
  if (!found[1] && found[0] && found[2]) {
    t[1] = 0.5 * (t[0] + t[2]);
    found[1] = 1;
  }
  if (!found[1]) {
    snprintf(err, errlen, "%.900s: no predicted elapsed time found (looked for "
                          "columns or rows named elapsed with min/avg/max)",
             path);
    return REVPROF_EFIELD;
  }
  for (int b = 0; b < 3; b += 2)
    if (!found[b])
      t[b] = t[1];
  return 0;
}

/* The number after key in a program's output (e.g. "elapsed 0.25 s" with
 * key "elapsed"), the last such line. Returns 0, or REVPROF_EIO (path
 * unreadable) or REVPROF_EFIELD (no such number); the caller reports. */
static int read_keyed_time(const char *path, const char *key, double *out) {
  FILE *f = fopen(path, "r");
  char line[4096];
  int got = 0;
  if (!f)
    return REVPROF_EIO;
  while (fgets(line, sizeof line, f)) {
    char *at = strstr(line, key);
    if (!at)
      continue;
    at += strlen(key);
    while (*at && !(isdigit((unsigned char)*at) || *at == '.' ||
                    ((*at == '-' || *at == '+') &&
                     isdigit((unsigned char)at[1]))))
      at++;
    char *end;
    double d = strtod(at, &end);
    if (end != at && isfinite(d)) {
      *out = d;
      got = 1;
    }
  }
  fclose(f);
  return got ? 0 : REVPROF_EFIELD;
}

/* ---------------------------------------------------------------- sweep */

static void sweep_usage(FILE *f) {
  fprintf(f,
          "usage: revprof sweep --np 1,2,4,8 --model M.lua [-o DIR] "
          "[--measure] [--reps R]\n"
          "                     [--time-key KEY] [OPTIONS] -- PROGRAM "
          "[ARGS]\n"
          "\n"
          "Runs the program under revprof at each process count and reads "
          "the predicted\n"
          "elapsed time avg [min, max] from DIR/p<N>/report.csv; with "
          "--measure also runs\n"
          "it natively (best of R runs, default 1) and takes the wall time "
          "of mpiexec,\n"
          "or with --time-key KEY the number after KEY in the program's "
          "output (its\n"
          "own MPI_Wtime timing, without the launch cost). Writes "
          "DIR/sweep.csv and\n"
          "DIR/sweep.png (gnuplot): speedup vs p, predicted with its "
          "interval and\n"
          "measured, beside the elapsed times. Speedup is T(p0)/T(p) x p0 "
          "for the\n"
          "smallest count p0; the interval is the min-bound and max-bound "
          "predictions,\n"
          "each against its own base. DIR defaults to revprof-sweep; each "
          "run's output\n"
          "is kept in DIR/p<N>/ (stdout.txt, native.txt, report, "
          "traces).\n"
          "\n"
          "options:\n"
          "%s",
          common_help);
}

typedef struct point {
  int np;
  double t[3];     /* predicted elapsed min avg max, seconds */
  double measured; /* seconds; NAN when not measured */
  int over;        /* measured with more ranks than this host's cores */
  char flags[256]; /* the prediction's flags (report.csv), "" when none */
} point;

/* The report's flags (report.csv row "flags,all,NAMES,..."): "" when none
 * or when the file has no such row. */
static void read_flags(const char *path, char *out, size_t len) {
  FILE *f = fopen(path, "r");
  char line[4096];
  out[0] = '\0';
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "flags,all,", 10) == 0) {
      snprintf(out, len, "%.*s", (int)strcspn(line + 10, ",\r\n"),
               line + 10);
      break;
    }
  if (f)
    fclose(f);
}

/* "1,2,4,8" into np[], sorted, duplicates dropped: the number of counts,
 * or REVPROF_EINVAL when one is no count or there are more than max (the
 * caller names the option). */
static int parse_np_list(const char *s, int *np, int max) {
  int n = 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
    int v;
    if (parse_count(tok, &v) != 0 || n == max)
      return REVPROF_EINVAL;
    int k = n++;
    while (k > 0 && np[k - 1] > v) { /* keep sorted */
      np[k] = np[k - 1];
      k--;
    }
    if (k > 0 && np[k - 1] == v) { /* duplicate */
      for (int j = k; j < n - 1; j++)
        np[j] = np[j + 1];
      n--;
      continue;
    }
    np[k] = v;
  }
  return n;
}

static void tail(const char *path, int lines) {
  FILE *f = fopen(path, "r");
  char buf[512][160];
  int n = 0;
  if (!f)
    return;
  while (n < 512 && fgets(buf[n % 512], sizeof buf[0], f))
    n++;
  fclose(f);
  int from = n > lines ? n - lines : 0;
  for (int i = from; i < n; i++)
    fprintf(stderr, "  | %s", buf[i % 512]);
}

/* Cores this process may run on (at least 1). */
static long cores_here(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

/* DIR/sweep.csv, then DIR/sweep.png through gnuplot when it is installed:
 * 0, or REVPROF_EIO (a file) or REVPROF_ESPAWN (gnuplot), reported. */
static int write_sweep(const char *dir, const point *pt, int n,
                       int measured) {
  char path[4200];
  snprintf(path, sizeof path, "%s/sweep.csv", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "revprof sweep: %s: %s\n", path, strerror(errno));
    return REVPROF_EIO;
  }
  /* speedup against the smallest count, scaled by it */
  const point *b = &pt[0];
  fprintf(f, "np,pred_min_s,pred_avg_s,pred_max_s,speedup_avg,"
             "speedup_lo,speedup_hi,measured_s,measured_speedup,"
             "oversubscribed,flags\n");
  for (int i = 0; i < n; i++) {
    double s[3];
    for (int k = 0; k < 3; k++)
      s[k] = pt[i].t[k] > 0 ? b->np * b->t[k] / pt[i].t[k] : NAN;
    double lo = fmin(s[0], s[2]), hi = fmax(s[0], s[2]);
    fprintf(f, "%d,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g", pt[i].np, pt[i].t[0],
            pt[i].t[1], pt[i].t[2], s[1], fmin(lo, s[1]), fmax(hi, s[1]));
    if (measured && isfinite(pt[i].measured) && pt[i].measured > 0 &&
        isfinite(b->measured))
      fprintf(f, ",%.9g,%.6g", pt[i].measured,
              b->np * b->measured / pt[i].measured);
    else
      fputs(",,", f);
    fprintf(f, ",%d,%s\n", measured && pt[i].over, pt[i].flags);
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "revprof sweep: %s: write error\n", path);
    return REVPROF_EIO;
  }
  printf("sweep: %s\n", path);

  char gnuplot[4096];
  if (rp_find_program("REVPROF_GNUPLOT", "gnuplot", gnuplot,
                      sizeof gnuplot) != 0) {
    fprintf(stderr, "revprof sweep: gnuplot not found: no sweep.png\n");
    return 0;
  }
  snprintf(path, sizeof path, "%s/sweep.gp", dir);
  if (!(f = fopen(path, "w"))) {
    fprintf(stderr, "revprof sweep: %s: %s\n", path, strerror(errno));
    return REVPROF_EIO;
  }
  /* measured points: the machine's own where p <= cores; hollow grey
     where the run was oversubscribed (time-shared cores: not a speedup
     of this machine) */
  char measured_speedup[512], measured_time[512];
  snprintf(measured_speedup, sizeof measured_speedup,
           ", \\\n  'sweep.csv' skip 1 using 1:($10 == 0 ? $9 : 1/0) with "
           "linespoints lw 2 pt 5 lc rgb '#e41a1c' title 'measured', \\\n"
           "  'sweep.csv' skip 1 using 1:($10 == 1 ? $9 : 1/0) with points "
           "pt 4 ps 1.5 lc rgb '#888888' title 'measured, oversubscribed "
           "(p > %ld cores)'", cores_here());
  snprintf(measured_time, sizeof measured_time,
           ", \\\n  'sweep.csv' skip 1 using 1:($10 == 0 ? $8 : 1/0) with "
           "linespoints lw 2 pt 5 lc rgb '#e41a1c' title 'measured', \\\n"
           "  'sweep.csv' skip 1 using 1:($10 == 1 ? $8 : 1/0) with points "
           "pt 4 ps 1.5 lc rgb '#888888' title 'measured, oversubscribed'");
  /* linear axes as in seed 003's Figure 3; log-log over wide ranges */
  int pmax = pt[n - 1].np, logx = pmax / pt[0].np >= 32;
  fprintf(f,
          "# revprof sweep: predicted and measured speedup (seed 003 Fig. 3)\n"
          "set terminal pngcairo size 1300,540 font 'Sans,11' noenhanced\n"
          "set output 'sweep.png'\n"
          "set datafile separator ','\n"
          "set key top left box opaque\n"
          "set grid lc rgb '#e0e0e0'\n"
          "set multiplot layout 1,2 title 'revprof sweep: %s'\n",
          measured ? "predicted vs measured" : "predicted");
  if (logx)
    fprintf(f, "set logscale xy 2\nset xrange [%g:%g]\nset yrange [%g:*]\n",
            pt[0].np / 1.3, pmax * 1.3, pt[0].np / 1.3);
  else
    fprintf(f, "set xrange [0:%g]\nset yrange [0:*]\n", pmax * 1.05);
  fputs("set xtics (", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s%d", i ? ", " : "", pt[i].np);
  fprintf(f,
          ")\nset xlabel 'processes p'\n"
          "set ylabel 'speedup'\nset title 'speedup'\n"
          "plot x with lines dt 2 lc rgb '#888888' title 'ideal', \\\n"
          "  'sweep.csv' skip 1 using 1:5:6:7 with yerrorlines lw 2 pt 7 "
          "lc rgb '#377eb8' title 'predicted [min, max]'%s\n",
          measured ? measured_speedup : "");
  fprintf(f,
          "set title 'elapsed time'\nset ylabel 'seconds'\n"
          "set logscale y 10\nset yrange [*:*]\nset format y '%%g'\n"
          "set key top right\n"
          "plot 'sweep.csv' skip 1 using 1:3:2:4 with yerrorlines lw 2 pt 7 "
          "lc rgb '#377eb8' title 'predicted [min, max]'%s\n"
          "unset multiplot\n",
          measured ? measured_time : "");
  if (fclose(f) != 0) {
    fprintf(stderr, "revprof sweep: %s: write error\n", path);
    return REVPROF_EIO;
  }
  /* gnuplot runs in dir so the script refers to sweep.csv by name */
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd) || chdir(dir) != 0) {
    fprintf(stderr, "revprof sweep: cannot enter %s\n", dir);
    return REVPROF_EIO;
  }
  char *gargv[] = {gnuplot, "sweep.gp", NULL};
  int st = rp_spawn(gargv, NULL, 0, NULL);
  if (chdir(cwd) != 0) {
    fprintf(stderr, "revprof sweep: cannot return to %s: %s\n", cwd,
            strerror(errno));
    return REVPROF_EIO;
  }
  if (st != 0) {
    fprintf(stderr, "revprof sweep: gnuplot failed on %s/sweep.gp\n", dir);
    return REVPROF_ESPAWN;
  }
  printf("sweep: %s/sweep.png\n", dir);
  return 0;
}

int rp_cmd_sweep(int argc, char **argv) {
  common c = {0};
  int np[MAXNP], nnp = 0, measure = 0, reps = 1;
  const char *key = NULL;
  int end = dashdash(argc, argv);
  rp_monitor_none("sweep");
  for (int i = 1; i < end; i++) {
    int took = common_option("sweep", end, argv, &i, &c);
    if (took < 0)
      return 2;
    if (took)
      continue;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      sweep_usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "--np") == 0 && i + 1 < end) {
      if ((nnp = parse_np_list(argv[++i], np, MAXNP)) <= 0) {
        fprintf(stderr, "revprof sweep: --np needs a list of counts >= 1 "
                        "like 1,2,4,8 (at most %d), not '%s'\n", MAXNP,
                argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--measure") == 0)
      measure = 1;
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < end) {
      if (parse_count(argv[++i], &reps) != 0) {
        fprintf(stderr, "revprof sweep: --reps needs a count >= 1\n");
        return 2;
      }
    } else if (strcmp(argv[i], "--time-key") == 0 && i + 1 < end)
      key = argv[++i];
    else {
      fprintf(stderr, "revprof sweep: unknown option '%s' (the program goes "
                      "after --)\n", argv[i]);
      sweep_usage(stderr);
      return 2;
    }
  }
  if (nnp == 0) {
    fprintf(stderr, "revprof sweep: give the process counts: --np "
                    "1,2,4,8\n");
    return 2;
  }
  if (end + 1 >= argc) {
    fprintf(stderr, "revprof sweep: no program: revprof sweep [OPTIONS] -- "
                    "PROGRAM [ARGS]\n");
    return 2;
  }
  char path[4096];
  if (program_check("sweep", argv[end + 1], path, sizeof path) != 0)
    return 2;
  char lib[4096], err[1024];
  if (common_setup("sweep", &c, lib, sizeof lib) != 0)
    return 1;
  if (mpi_check("sweep", argv[end + 1], path, lib) != 0)
    return 2;
  const char *dir = c.dir ? c.dir : "revprof-sweep";
  if (rp_mkdir_p(dir) != 0) {
    fprintf(stderr, "revprof sweep: %s: %s\n", dir, strerror(errno));
    return 1;
  }
  point pt[MAXNP];
  for (int i = 0; i < nnp; i++) {
    char sub[4200], out[4300], rep[4300];
    pt[i].np = np[i];
    pt[i].measured = NAN;
    pt[i].over = 0;
    pt[i].flags[0] = '\0';
    snprintf(sub, sizeof sub, "%s/p%d", dir, np[i]);
    if (rp_mkdir_p(sub) != 0) {
      fprintf(stderr, "revprof sweep: %s: %s\n", sub, strerror(errno));
      return 1;
    }
    snprintf(rep, sizeof rep, "%s/report.csv", sub);
    remove(rep);
    setenv("REVPROF_OUTPUT_DIR", sub, 1);
    snprintf(out, sizeof out, "%s/stdout.txt", sub);
    launch l = {lib, np[i], argv + end + 1};
    fprintf(stderr, "revprof sweep: p = %d under revprof ...\n", np[i]);
    int st = run_launch(&l, out, NULL);
    if (st != 0) {
      fprintf(stderr, "revprof sweep: p = %d: the program exited with "
                      "status %d; its output (%s) ends:\n", np[i], st, out);
      tail(out, 15);
      return 1;
    }
    int rc = read_report(rep, pt[i].t, err, sizeof err);
    if (rc != 0) {
      char who[64];
      snprintf(who, sizeof who, "revprof sweep: p = %d", np[i]);
      rp_perror(who, rc, err);
      return 1;
    }
    read_flags(rep, pt[i].flags, sizeof pt[i].flags);
    if (pt[i].flags[0])
      fprintf(stderr, "revprof sweep: warning: p = %d: the prediction is "
                      "flagged (%s): see %s/report.txt\n", np[i],
              pt[i].flags, sub);
    pt[i].over = np[i] > cores_here();
    if (!measure)
      continue;
    /* natively: no preload, and a program linked with librevprof (the
     * _rp examples) passes every call straight through */
    l.lib = NULL;
    setenv("REVPROF_MODE", "off", 1);
    snprintf(out, sizeof out, "%s/native.txt", sub);
    for (int r = 0; r < reps; r++) {
      double wall, t;
      fprintf(stderr, "revprof sweep: p = %d natively (%d/%d) ...\n", np[i],
              r + 1, reps);
      if ((st = run_launch(&l, out, &wall)) != 0) {
        fprintf(stderr, "revprof sweep: p = %d natively: status %d; its "
                        "output (%s) ends:\n", np[i], st, out);
        tail(out, 15);
        return 1;
      }
      if (key && read_keyed_time(out, key, &t) != 0) {
        fprintf(stderr, "revprof sweep: p = %d: no number after '%s' in the "
                        "program's output %s\n", np[i], key, out);
        return 1;
      }
      t = key ? t : wall;
      if (isnan(pt[i].measured) || t < pt[i].measured)
        pt[i].measured = t;
    }
    unsetenv("REVPROF_MODE");
  }
  unsetenv("REVPROF_OUTPUT_DIR");
  for (int i = 0, said = 0; measure && i < nnp; i++)
    if (pt[i].over && !said++)
      fprintf(stderr, "revprof sweep: warning: the measured runs with p > %ld "
                      "(the cores here) time-share cores: they are not this "
                      "machine's speedup; sweep.csv marks them "
                      "(oversubscribed = 1) and sweep.png draws them apart\n",
              cores_here());
  return write_sweep(dir, pt, nnp, measure) ? 1 : 0;
}
