/* The revprof command: one entry point with subcommands for characterizing a
 * machine, fitting, inspecting, evaluating and validating models, and
 * datasheets. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_int.h" /* rp_perror */
#include "revprof_model.h"
#include "rp_datasheet.h"
#include "rp_tools.h"
#include "rp_util.h"

#define ERRLEN 1024

static const char *prog = "revprof";

static void usage(FILE *f) {
  fprintf(f,
          "usage: revprof COMMAND [ARGS]\n"
          "\n"
          "Predict how MPI programs perform on a machine from a model of it.\n"
          "\n"
          "commands:\n"
          "  characterize [OPTIONS]      time every MPI function on this "
          "machine, fit\n"
          "                              the model, write raw CSV, model and "
          "datasheet\n"
          "  fit RAW.csv -o MODEL.lua    fit a model to raw measurements\n"
          "  model show FILE             print a model readably\n"
          "  model check FILE            validate a model file\n"
          "  model eval FILE FUNCTION P BYTES\n"
          "                              predicted min avg max time in "
          "seconds\n"
          "  datasheet MODEL [RAW.csv] -o DIR\n"
          "                              write the LaTeX/PDF datasheet, CSV "
          "and figures\n"
          "  run [OPTIONS] -- PROG ARGS  run an MPI program under revprof "
          "(prediction)\n"
          "  sweep --np 1,2,4 -- PROG    predicted (and measured) speedup "
          "over p\n"
          "  timeline DIR -o PIC.png     timing diagram of a traced run\n"
          "  trace merge|info DIR        rebuild / summarize a run's "
          "traces\n"
          "  validate --model M DIR      a sampled run's message latencies "
          "against\n"
          "                              the model's, per size class\n"
          "  monitor-probe [OPTIONS]     the operating range of online "
          "monitoring:\n"
          "                              Bottleneck Offload Interval, "
          "Limiting Overhead\n"
          "  help [COMMAND]              help on a command\n"
          "\n"
          "'revprof COMMAND --help' tells more. Version " RP_VERSION ".\n");
}


static int has_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
      return 1;
  return 0;
}

/* ------------------------------------------------------------------ fit */

static void fit_usage(FILE *f) {
  fprintf(f,
          "usage: revprof fit RAW.csv -o MODEL.lua [--method default|paper]\n"
          "                   [--name MACHINE] [--like MODEL.lua] [--verbose]\n"
          "\n"
          "Fits one or more equations per MPI function to raw measurements "
          "(the CSV\n"
          "characterize writes: " REVPROF_RAW_HEADER ")\n"
          "and writes a machine model with the measured range of p and d "
          "per function.\n"
          "The machine description (name, mpi, filesystem, date, ranks, "
          "notes) comes from\n"
          "the '# machine.KEY: value' lines characterize writes at the top "
          "of RAW.csv.\n"
          "--like MODEL.lua starts from an existing model's machine and "
          "overhead table\n"
          "instead (to refit a model); fields RAW.csv records still win. "
          "--name overrides\n"
          "the name. What neither records the model calls unknown: a raw "
          "file without\n"
          "machine lines gives the name 'unknown (fitted from RAW.csv, "
          "which records no\n"
          "machine)' and MPI library and date 'unknown'.\n"
          "--method paper uses seed 003's 12 forms with a small/large split "
          "at --split\n"
          "BYTES (default 32). The default method finds the message-size "
          "regimes from the\n"
          "data (README.md, 'Fitting: the exact algorithm'); a cliff among "
          "the largest\n"
          "sizes gets a last regime of its own, the equation below scaled. "
          "--verbose\n"
          "prints each function's regimes, forms, points and CV errors.\n");
}

static int cmd_fit(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *name = NULL, *like = NULL;
  char err[ERRLEN];
  revprof_fit_options o;
  revprof_fit_options_init(&o);
  if (has_help(argc, argv)) {
    fit_usage(stdout);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      out = argv[++i];
    else if (strcmp(argv[i], "--method") == 0 && i + 1 < argc) {
      if (revprof_method_lookup(argv[++i], &o.method) != 0) {
        fprintf(stderr, "%s fit: unknown method '%s' (default or paper)\n",
                prog, argv[i]);
        return 2;
      }
    } else if (strcmp(argv[i], "--split") == 0 && i + 1 < argc) {
      if (!rp_parse_double(argv[++i], &o.paper_split) || o.paper_split < 0) {
        fprintf(stderr, "%s fit: --split needs a size in bytes\n", prog);
        return 2;
      }
    } else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (strcmp(argv[i], "--like") == 0 && i + 1 < argc)
      like = argv[++i];
    else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0)
      o.verbose = 1;
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "%s fit: unknown option '%s'\n", prog, argv[i]);
      fit_usage(stderr);
      return 2;
    } else if (in == NULL)
      in = argv[i];
    else {
      fit_usage(stderr);
      return 2;
    }
  }
  if (in == NULL || out == NULL) {
    fit_usage(stderr);
    return 2;
  }
  revprof_raw *raw = NULL;
  revprof_model *m = NULL;
  int rc = 0;
  if (like) {
    rc = revprof_model_load(like, &m, err, sizeof err);
    if (rc == 0) /* keep machine and overhead, drop the old equations */
      memset(m->fn, 0, sizeof m->fn);
  } else if ((m = revprof_model_alloc()) == NULL)
    rc = REVPROF_ENOMEM;
  if (rc == 0)
    rc = revprof_raw_read(in, &raw, err, sizeof err);
  if (rc == 0) {
    char notes[2 * sizeof m->machine_notes + PATH_MAX];
    snprintf(m->method, sizeof m->method, "%s",
             revprof_method_name(o.method));
    revprof_model_machine_from_raw(m, raw, in);
    if (name)
      snprintf(m->machine_name, sizeof m->machine_name, "%s", name);
    /* a refit of the same data (--like the model it made) says so once */
    char said[PATH_MAX + 64];
    snprintf(said, sizeof said, "fitted by 'revprof fit' from %s", in);
    size_t nl = strlen(m->machine_notes), sl = strlen(said);
    if (nl >= sl && strcmp(m->machine_notes + nl - sl, said) == 0)
      snprintf(notes, sizeof notes, "%s", m->machine_notes);
    else
      snprintf(notes, sizeof notes, "%s%s%s", m->machine_notes,
               m->machine_notes[0] ? "; " : "", said);
    snprintf(m->machine_notes, sizeof m->machine_notes, "%.*s",
             (int)sizeof m->machine_notes - 1, notes);
    if (strlen(notes) >= sizeof m->machine_notes) /* mark the cut */
      memcpy(m->machine_notes + sizeof m->machine_notes - 4, "...", 4);
    rc = revprof_fit(raw, &o, m, err, sizeof err);
  }
  if (rc == 0)
    rc = revprof_model_write(m, out, err, sizeof err);
  if (rc != 0)
    rp_perror("revprof fit", rc, err);
  else
    fprintf(stderr, "%s fit: wrote %s\n", prog, out);
  revprof_raw_free(raw);
  revprof_model_free(m);
  return rc ? 1 : 0;
}

/* ---------------------------------------------------------------- model */

static void model_usage(FILE *f) {
  fprintf(f, "usage: revprof model show FILE\n"
             "       revprof model check FILE\n"
             "       revprof model eval FILE FUNCTION P BYTES\n"
             "\n"
             "show prints the equations in microseconds; check validates "
             "the file and exits\n"
             "with status 1 naming the first bad field; eval prints the "
             "predicted time of\n"
             "FUNCTION (e.g. MPI_Allreduce) for P ranks and BYTES bytes as "
             "'min avg max' in\n"
             "seconds, followed on the same line by 'extrapolated: ...' "
             "when P or BYTES lies\n"
             "outside the range the model was measured on (how far, in "
             "each), or by\n"
             "'(range unknown)' for a model that records no range.\n");
}

static int cmd_model(int argc, char **argv) {
  char err[ERRLEN] = "";
  revprof_model *m = NULL;
  if (has_help(argc, argv)) {
    model_usage(stdout);
    return 0;
  }
  if (argc < 3) {
    model_usage(stderr);
    return 2;
  }
  const char *sub = argv[1], *file = argv[2];
  int want = strcmp(sub, "eval") == 0 ? 6 : 3;
  if ((strcmp(sub, "show") && strcmp(sub, "check") && strcmp(sub, "eval")) ||
      argc != want) {
    model_usage(stderr);
    return 2;
  }
  int rc = revprof_model_load(file, &m, err, sizeof err);
  if (rc != 0) {
    char who[64];
    snprintf(who, sizeof who, "revprof model %s", sub);
    rp_perror(who, rc, err);
    return 1;
  }
  int status = 0;
  if (strcmp(sub, "show") == 0)
    revprof_model_print(m, stdout);
  else if (strcmp(sub, "check") == 0) {
    int nfn = 0;
    for (int i = 0; i < REVPROF_FN_COUNT; i++)
      nfn += revprof_model_has(m, (revprof_fn)i);
    printf("%s: ok (revprof-model %d, %d functions)\n", file,
           m->format_version, nfn);
  } else {
    revprof_fn fn = revprof_fn_lookup(argv[3]), row = REVPROF_FN_COUNT;
    double p, d, t[3];
    if (fn == REVPROF_FN_COUNT) {
      char hint[96];
      fprintf(stderr,
              "%s model eval: unknown function '%s' (%s'revprof "
              "characterize --list' shows the names)\n",
              prog, argv[3], revprof_fn_hint(argv[3], hint, sizeof hint));
      status = 2;
    } else if (!rp_parse_double(argv[4], &p) || p < 1 || p != floor(p)) {
      fprintf(stderr, "%s model eval: P must be a whole number >= 1, not "
                      "'%s'\n", prog, argv[4]);
      status = 2;
    } else if (!rp_parse_double(argv[5], &d) || d < 0) {
      fprintf(stderr, "%s model eval: BYTES must be a number >= 0, not "
                      "'%s'\n", prog, argv[5]);
      status = 2;
    } else if ((row = revprof_model_row_for(m, fn)) == REVPROF_FN_COUNT) {
      fprintf(stderr, "%s model eval: %s: the model has no equation for "
                      "%s (nor for any function it falls back on)\n",
              prog, file, argv[3]);
      status = 1;
    } else {
      double far[2];
      char rb[128];
      if (row != fn) /* librevprof would cost it the same way */
        fprintf(stderr, "%s model eval: %s: no %s row; costed by its "
                        "fallback, the %s row (as librevprof does)\n",
                prog, file, argv[3], revprof_fn_name(row));
      fn = row;
      int where = revprof_model_eval_x(m, fn, p, d, t, far);
      printf("%.6e %.6e %.6e", t[REVPROF_MIN], t[REVPROF_AVG],
             t[REVPROF_MAX]);
      revprof_range_format(&m->fn[fn].range, rb, sizeof rb);
      if (where == REVPROF_OUTSIDE)
        printf("  extrapolated: %.3gx outside in p, %.3gx in d (measured "
               "%s)",
               far[0], far[1], rb);
      else if (where == REVPROF_RANGE_UNKNOWN)
        printf("  (range unknown: the model does not say what was "
               "measured)");
      printf("\n");
    }
  }
  revprof_model_free(m);
  return status;
}

/* ------------------------------------------------------------ datasheet */

static void datasheet_usage(FILE *f) {
  fprintf(f, "usage: revprof datasheet MODEL.lua [RAW.csv] -o DIR [--no-pdf]\n"
             "\n"
             "Writes DIR/datasheet.tex (one section per function: equations "
             "in microseconds\n"
             "with errors, regime limits, fit quality, a figure of measured "
             "points and fitted\n"
             "curves), DIR/equations.csv and DIR/fig/, and DIR/datasheet.pdf "
             "when pdflatex is\n"
             "installed (unless --no-pdf).\n");
}

static int cmd_datasheet(int argc, char **argv) {
  const char *model = NULL, *rawf = NULL, *dir = NULL;
  char err[ERRLEN] = "", pdf[PATH_MAX] = "";
  rp_datasheet_options o;
  rp_datasheet_options_init(&o);
  if (has_help(argc, argv)) {
    datasheet_usage(stdout);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      dir = argv[++i];
    else if (strcmp(argv[i], "--no-pdf") == 0)
      o.pdf = 0;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "%s datasheet: unknown option '%s'\n", prog, argv[i]);
      return 2;
    } else if (!model)
      model = argv[i];
    else if (!rawf)
      rawf = argv[i];
    else {
      datasheet_usage(stderr);
      return 2;
    }
  }
  if (!model || !dir) {
    datasheet_usage(stderr);
    return 2;
  }
  revprof_model *m = NULL;
  revprof_raw *raw = NULL;
  int rc = revprof_model_load(model, &m, err, sizeof err);
  if (rc == 0 && rawf)
    rc = revprof_raw_read(rawf, &raw, err, sizeof err);
  if (rc == 0)
    rc = rp_datasheet_write(m, raw, dir, &o, pdf, sizeof pdf, err,
                            sizeof err);
  if (rc != 0)
    rp_perror("revprof datasheet", rc, err);
  else
    printf("datasheet: %s/datasheet.tex%s%s\n", dir, pdf[0] ? ", " : "",
           pdf);
  revprof_model_free(m);
  revprof_raw_free(raw);
  return rc ? 1 : 0;
}

/* --------------------------------------------------------- characterize */

static int under_mpi_launcher(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                     "PMIX_RANK", "PMI_RANK", NULL};
  for (int i = 0; vars[i]; i++)
    if (getenv(vars[i]))
      return 1;
  return 0;
}

/* Output folder and flags of a characterize command line. */
static const char *characterize_outdir(int argc, char **argv, int *no_model) {
  const char *dir = "revprof-out";
  *no_model = 0;
  for (int i = 1; i < argc; i++) {
    if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) &&
        i + 1 < argc)
      dir = argv[++i];
    else if (strncmp(argv[i], "--output=", 9) == 0)
      dir = argv[i] + 9;
    else if (strcmp(argv[i], "--raw-only") == 0 ||
             strcmp(argv[i], "--list") == 0)
      *no_model = 1;
  }
  return dir;
}

/* The characterize program started once more with librevprof preloaded in
 * mode (REVPROF_OVERHEAD=calibrate, its reports in odir; predict mode
 * predicts for model): 0, or the spawn's failure (its output in log). */
static int overhead_run(const char *mode, const char *mpiexec,
                        const char *exe, const char *lib, const char *model,
                        const char *odir, const char *log) {
  char env_lib[PATH_MAX + 16], env_dir[PATH_MAX + 32], env_mode[64];
  char env_model[PATH_MAX + 16];
  snprintf(env_lib, sizeof env_lib, "LD_PRELOAD=%s", lib);
  snprintf(env_dir, sizeof env_dir, "REVPROF_OUTPUT_DIR=%s", odir);
  snprintf(env_mode, sizeof env_mode, "REVPROF_MODE=%s", mode);
  snprintf(env_model, sizeof env_model, "REVPROF_MODEL=%s", model);
  char *args[16];
  int k = 0;
  args[k++] = (char *)mpiexec;
  if (strstr(mpiexec, "mpich") == NULL && strstr(mpiexec, "hydra") == NULL)
    args[k++] = "--oversubscribe"; /* Open MPI: 2 ranks on 1 core */
  char *rest[] = {"-n", "2", "env", env_lib, env_mode,
                  "REVPROF_OVERHEAD=calibrate", "REVPROF_QUIET=1", env_dir,
                  env_model, (char *)exe, "--list", NULL};
  for (int i = 0; rest[i]; i++)
    args[k++] = rest[i];
  args[k] = NULL;
  return rp_spawn(args, log, 1, NULL);
}

/* Rank 0's cost per event of kind in a run's cost.csv (cost_per_event_s),
 * or -1. */
static double cost_of(const char *odir, const char *kind) {
  char path[PATH_MAX + 16], line[1024], want[64];
  double v = -1.0;
  snprintf(path, sizeof path, "%s/cost.csv", odir);
  snprintf(want, sizeof want, "0,%s,", kind);
  FILE *f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, want, strlen(want)) == 0) {
      double count;
      if (sscanf(line + strlen(want), "%lf,%lf", &count, &v) != 2)
        v = -1.0;
      break;
    }
  if (f)
    fclose(f);
  return v;
}

/* Sets the overhead row name of m to seconds (added when new). */
static void overhead_set(revprof_model *m, const char *name, double seconds) {
  int j = 0;
  while (j < m->noverhead && strcmp(m->overhead[j].name, name) != 0)
    j++;
  if (j == m->noverhead) {
    if (m->noverhead == REVPROF_MAX_OVERHEAD)
      return;
    m->noverhead++;
  }
  snprintf(m->overhead[j].name, sizeof m->overhead[j].name, "%s", name);
  m->overhead[j].seconds = seconds;
}

/* After a characterization: measures librevprof's own cost per
 * instrumentation event by starting the characterize program once more in
 * each mode, preloaded with librevprof with REVPROF_OVERHEAD=calibrate, and
 * stores the values in the model's overhead table: compensate's region
 * enter/exit, MPI wrapper and piggyback (its overhead line), and the cost
 * model's cost_<mode>_<kind> (each run's cost.csv), which librevprof then
 * reads instead of timing them at MPI_Init (docs/revprof.md). Without
 * librevprof it says so and succeeds. */
static int overhead_into_model(int argc, char **argv, const char *mpiexec,
                               const char *exe) {
  int no_model;
  const char *dir = characterize_outdir(argc, argv, &no_model);
  char model[PATH_MAX], odir[PATH_MAX / 2], txt[PATH_MAX], lib[PATH_MAX];
  char err[ERRLEN] = "";
  snprintf(model, sizeof model, "%s/model.lua", dir);
  if (no_model || access(model, R_OK) != 0)
    return 0;
  if (rp_find_revprof_lib(lib, sizeof lib) != 0) {
    fprintf(stderr, "%s characterize: librevprof not found; the model has "
                    "no overhead table (compensate mode will calibrate)\n",
            prog);
    return 0;
  }
  char absmodel[PATH_MAX];
  if (realpath(model, absmodel) == NULL)
    snprintf(absmodel, sizeof absmodel, "%s", model);
  snprintf(odir, sizeof odir, "%s/overhead", dir);
  snprintf(txt, sizeof txt, "%s/compensate.txt", odir);
  char log[PATH_MAX + 16];
  snprintf(log, sizeof log, "%s/overhead.log", dir);
  int rc = overhead_run("compensate", mpiexec, exe, lib, absmodel, odir, log);
  FILE *f = rc == 0 ? fopen(txt, "r") : NULL;
  double pair = -1, inner, wrapper = -1, pb = -1;
  char line[1024];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "overhead per event (calibrate): region enter+exit %lf s "
                     "(%lf s inside the region), MPI wrapper %lf s, piggyback "
                     "%lf s", &pair, &inner, &wrapper, &pb) == 4)
      break;
  if (f)
    fclose(f);
  if (pair < 0 || wrapper < 0 || pb < 0) {
    fprintf(stderr, "%s characterize: could not measure librevprof's "
                    "overhead (see %s); the model has no overhead table\n",
            prog, log);
    return 0;
  }
  /* the cost model's kinds, per mode */
  static const struct {
    const char *mode, *kind;
  } kinds[] = {{"compensate", "function"}, {"compensate", "skipped"},
               {"predict", "mpi"},        {"sample", "mpi"},
               {"sample", "sample"}};
  double cost[5];
  for (int i = 0; i < 5; i++) {
    char mdir[PATH_MAX / 2 + 64], mlog[PATH_MAX / 2 + 64];
    snprintf(mdir, sizeof mdir, "%s/overhead-%s", dir, kinds[i].mode);
    snprintf(mlog, sizeof mlog, "%s/overhead-%s.log", dir, kinds[i].mode);
    if (strcmp(kinds[i].mode, "compensate") == 0)
      snprintf(mdir, sizeof mdir, "%s", odir);
    else if (i == 2 || i == 3) /* each mode's run once */
      overhead_run(kinds[i].mode, mpiexec, exe, lib, absmodel, mdir, mlog);
    cost[i] = cost_of(mdir, kinds[i].kind);
  }
  revprof_model *m = NULL;
  if ((rc = revprof_model_load(model, &m, err, sizeof err)) != 0) {
    rp_perror("revprof characterize", rc, err);
    return 1;
  }
  overhead_set(m, "region_enter", 0.5 * pair);
  overhead_set(m, "region_exit", 0.5 * pair);
  overhead_set(m, "mpi_wrapper", wrapper);
  overhead_set(m, "piggyback", pb);
  int missing = 0;
  for (int i = 0; i < 5; i++) {
    char name[64];
    snprintf(name, sizeof name, "cost_%s_%s", kinds[i].mode, kinds[i].kind);
    if (cost[i] >= 0.0)
      overhead_set(m, name, cost[i]);
    else
      missing++;
  }
  rc = revprof_model_write(m, model, err, sizeof err);
  revprof_model_free(m);
  if (rc != 0) {
    rp_perror("revprof characterize", rc, err);
    return 1;
  }
  fprintf(stderr, "%s characterize: librevprof overhead per event written "
                  "to %s: region enter+exit %.3g us, MPI wrapper %.3g us, "
                  "piggyback %.3g us; MPI call %.3g us (predict), %.3g us "
                  "(sample)%s\n",
          prog, model, pair * 1e6, wrapper * 1e6, pb * 1e6, cost[2] * 1e6,
          cost[3] * 1e6,
          missing ? "; some cost model rows could not be measured (see "
                    "overhead-*.log): librevprof times those at MPI_Init"
                  : "");
  return 0;
}

static int cmd_characterize(int argc, char **argv) {
  char exe[PATH_MAX];
  const char *np = NULL, *mpiexec = getenv("REVPROF_MPIEXEC");
  rp_monitor_none("characterize");
  if (rp_find_libexec("REVPROF_CHARACTERIZE", "revprof-characterize", exe, sizeof exe) != 0) {
    fprintf(stderr,
            "%s characterize: cannot find the MPI program "
            "revprof-characterize (set REVPROF_CHARACTERIZE to its path)\n",
            prog);
    return 1;
  }
  char **args = calloc((size_t)argc + 16, sizeof *args);
  int n = 0;
  if (args == NULL)
    return 1;
  if (under_mpi_launcher()) { /* mpirun -np N revprof characterize ... */
    args[n++] = exe;
    for (int i = 1; i < argc; i++)
      args[n++] = argv[i];
    execv(exe, args);
    fprintf(stderr, "%s characterize: cannot run %s: %s\n", prog, exe,
            strerror(errno));
    free(args);
    return 1;
  }
  if (!mpiexec || !*mpiexec)
    mpiexec = RP_MPIEXEC;
  args[n++] = (char *)mpiexec;
  int help = has_help(argc, argv);
  int skip_np = 0;
  for (int i = 1; i < argc; i++)
    if ((strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--np") == 0) &&
        i + 1 < argc) {
      np = argv[i + 1];
      skip_np = i;
    }
  char npbuf[32];
  if (np == NULL) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(npbuf, sizeof npbuf, "%ld", help ? 1 : (cores < 2 ? 2 : cores));
    np = npbuf;
  }
  if (strstr(mpiexec, "mpich") == NULL && strstr(mpiexec, "hydra") == NULL) {
    args[n++] = "--oversubscribe"; /* Open MPI: more ranks than cores ok */
    if (geteuid() == 0) {
      setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
      setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
  }
  args[n++] = "-n";
  args[n++] = (char *)np;
  args[n++] = exe;
  for (int i = 1; i < argc; i++) {
    if (skip_np && (i == skip_np || i == skip_np + 1))
      continue;
    args[n++] = argv[i];
  }
  args[n] = NULL;
  int status = rp_spawn(args, NULL, 0, NULL);
  if (status < 0) {
    free(args);
    return 1;
  }
  if (status == 0 && !help)
    status = overhead_into_model(argc, argv, mpiexec, exe);
  else if (status != 0 && !help) { /* what a run that died kept */
    int no_model = 0;
    char partial[PATH_MAX + 32];
    snprintf(partial, sizeof partial, "%s/raw.partial.csv",
             characterize_outdir(argc, argv, &no_model));
    if (access(partial, R_OK) == 0)
      fprintf(stderr, "%s characterize: the run did not finish; the points "
              "it measured are in %s: '%s fit %s -o MODEL.lua' makes a "
              "(partial) model of them, the same command with --resume "
              "measures the rest\n", prog, partial, prog, partial);
  }
  free(args);
  return status;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      strcmp(cmd, "help") == 0) {
    if (argc > 2 && strcmp(cmd, "help") == 0) {
      static char help_flag[] = "--help";
      static char *hargv[4];
      hargv[0] = argv[0];
      hargv[1] = argv[2];
      hargv[2] = help_flag;
      argv = hargv;
      argc = 3;
      cmd = argv[1];
    } else {
      usage(stdout);
      return 0;
    }
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("revprof " RP_VERSION "\n");
    return 0;
  }
  if (strcmp(cmd, "fit") == 0)
    return cmd_fit(argc - 1, argv + 1);
  if (strcmp(cmd, "model") == 0)
    return cmd_model(argc - 1, argv + 1);
  if (strcmp(cmd, "datasheet") == 0)
    return cmd_datasheet(argc - 1, argv + 1);
  if (strcmp(cmd, "characterize") == 0)
    return cmd_characterize(argc - 1, argv + 1);
  if (strcmp(cmd, "run") == 0)
    return rp_cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "sweep") == 0)
    return rp_cmd_sweep(argc - 1, argv + 1);
  if (strcmp(cmd, "timeline") == 0)
    return rp_cmd_timeline(argc - 1, argv + 1);
  if (strcmp(cmd, "trace") == 0)
    return rp_cmd_trace(argc - 1, argv + 1);
  if (strcmp(cmd, "validate") == 0)
    return rp_cmd_validate(argc - 1, argv + 1);
  if (strcmp(cmd, "monitor-probe") == 0)
    return rp_cmd_monitor_probe(argc - 1, argv + 1);
  fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
  usage(stderr);
  return 2;
}
