/* Unit tests of the datasheet generator: the LaTeX document and equations.csv
 * for a model with and without raw data, escaping, errors for directories
 * that cannot be written, figures and PDF when gnuplot and pdflatex exist. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "revprof_model.h"
#include "rp_datasheet.h"
#include "rp_test.h"
#include "rp_util.h"

#define ERRLEN 1024

/* ---------------------------------------------------------------- helpers */

typedef struct fixture {
  char dir[PATH_MAX];  /* fresh temporary directory, removed afterwards */
  revprof_model *m;    /* tests/unit/data/sample_model.lua */
  revprof_raw *raw;    /* tests/unit/data/sample_raw.csv */
  char *gnuplot_env;   /* REVPROF_GNUPLOT / REVPROF_PDFLATEX before the test */
  char *pdflatex_env;
} fixture;

static char *dup_env(const char *name) {
  const char *v = getenv(name);
  return v ? strdup(v) : NULL;
}

static void restore_env(const char *name, char *saved) {
  if (saved)
    setenv(name, saved, 1);
  else
    unsetenv(name);
  free(saved);
}

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  char err[ERRLEN];
  const char *tmp = getenv("TMPDIR");
  if (fx == NULL)
    return -1;
  snprintf(fx->dir, sizeof fx->dir, "%s/rp_datasheet_XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(fx->dir) == NULL)
    return -1;
  if (revprof_model_load(RP_TEST_DATA "/sample_model.lua", &fx->m, err,
                         sizeof err) != 0 ||
      revprof_raw_read(RP_TEST_DATA "/sample_raw.csv", &fx->raw, err,
                       sizeof err) != 0) {
    fprintf(stderr, "setup: %s\n", err);
    return -1;
  }
  fx->gnuplot_env = dup_env("REVPROF_GNUPLOT");
  fx->pdflatex_env = dup_env("REVPROF_PDFLATEX");
  *state = fx;
  return 0;
}

static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path, 0700);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
      char sub[PATH_MAX];
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) <
          (int)sizeof sub)
        remove_tree(sub);
    }
    if (d)
      closedir(d);
    rmdir(path);
  } else
    unlink(path);
}

static int teardown(void **state) {
  fixture *fx = *state;
  remove_tree(fx->dir);
  revprof_model_free(fx->m);
  revprof_raw_free(fx->raw);
  restore_env("REVPROF_GNUPLOT", fx->gnuplot_env);
  restore_env("REVPROF_PDFLATEX", fx->pdflatex_env);
  free(fx);
  return 0;
}

static void path_in(char *buf, const fixture *fx, const char *sub) {
  if (snprintf(buf, PATH_MAX, "%s/%s", fx->dir, sub) >= PATH_MAX)
    fail_msg("%s/%s: path too long", fx->dir, sub);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 0, n = 0, k = 1;
  char *buf = NULL;
  while (k > 0) {
    char *nb = rp_grow(buf, &cap, n + 4096, 1);
    if (nb == NULL) {
      free(buf);
      fclose(f);
      return NULL;
    }
    buf = nb;
    k = fread(buf + n, 1, cap - n - 1, f);
    n += k;
  }
  fclose(f);
  buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

/* Contents of dir/sub; fails the test when the file is missing. */
static char *read_out(const fixture *fx, const char *sub) {
  char path[PATH_MAX];
  path_in(path, fx, sub);
  char *s = slurp(path, NULL);
  if (s == NULL)
    fail_msg("%s: cannot read: %s", path, strerror(errno));
  return s;
}

/* The fixture's model becomes the model file text (named name). */
static void use_model(fixture *fx, const char *text, const char *name) {
  revprof_model *m = NULL;
  char err[ERRLEN];
  if (revprof_model_load_string(text, name, &m, err, sizeof err))
    fail_msg("%s", err);
  revprof_model_free(fx->m);
  fx->m = m;
}

static int exists_in(const fixture *fx, const char *sub) {
  char path[PATH_MAX];
  struct stat st;
  path_in(path, fx, sub);
  return stat(path, &st) == 0;
}

static void assert_contains(const char *text, const char *frag) {
  if (strstr(text, frag) == NULL)
    fail_msg("output lacks \"%s\"", frag);
}

/* Counts files under path whose names end in suffix. */
static int count_suffix(const char *path, const char *suffix) {
  DIR *d = opendir(path);
  struct dirent *e;
  int n = 0;
  size_t ls = strlen(suffix);
  while (d && (e = readdir(d)) != NULL) {
    char sub[PATH_MAX];
    struct stat st;
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >=
        (int)sizeof sub)
      continue;
    size_t l = strlen(e->d_name);
    if (l >= ls && strcmp(e->d_name + l - ls, suffix) == 0)
      n++;
    if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
      n += count_suffix(sub, suffix);
  }
  if (d)
    closedir(d);
  return n;
}

/* Entries in a directory, "." and ".." not counted. */
static int count_entries(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) != NULL)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  if (d)
    closedir(d);
  return n;
}

/* Full path of an executable found in PATH into buf; 0 when absent. */
static int on_path(const char *name, char *buf, size_t len) {
  const char *p = getenv("PATH");
  while (p && *p) {
    const char *c = strchr(p, ':');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    snprintf(buf, len, "%.*s/%s", (int)n, p, name);
    if (n && access(buf, X_OK) == 0)
      return 1;
    p = c ? c + 1 : NULL;
  }
  return 0;
}

/* Writes the datasheet of fx's model into fx->dir/sub; expects success. */
static void write_ok(const fixture *fx, const revprof_raw *raw,
                     const char *sub, int figures, int pdf, char *pdf_path) {
  rp_datasheet_options o;
  char dir[PATH_MAX], err[ERRLEN] = "", pdfbuf[PATH_MAX];
  rp_datasheet_options_init(&o);
  o.figures = figures;
  o.pdf = pdf;
  path_in(dir, fx, sub);
  int rc = rp_datasheet_write(fx->m, raw, dir, &o,
                              pdf_path ? pdf_path : pdfbuf, PATH_MAX, err,
                              sizeof err);
  if (rc != 0)
    fail_msg("rp_datasheet_write: %d: %s", rc, err);
  assert_int_equal(count_suffix(dir, ".tmp"), 0);
}

/* Splits one CSV line into fields (double quotes group, no escapes). */
static int csv_split(char *line, char **field, int max) {
  int n = 0, quoted = 0;
  char *out = line;
  field[n++] = line;
  for (char *s = line; *s && *s != '\n'; s++) {
    if (*s == '"')
      quoted = !quoted;
    else if (*s == ',' && !quoted) {
      *out++ = '\0';
      if (n == max)
        return -1;
      field[n++] = out;
    } else
      *out++ = *s;
  }
  *out = '\0';
  return n;
}

/* Parses a ';'-separated list of numbers (µs) and compares with c (s). */
static void check_list(const char *text, const double *c, int n,
                       const char *what) {
  const char *s = text;
  for (int k = 0; k < n; k++) {
    char *end;
    double v = strtod(s, &end);
    if (end == s)
      fail_msg("%s: \"%s\": entry %d is not a number", what, text, k + 1);
    assert_near(v * 1e-6, c[k], 1e-11 * fabs(c[k]) + 1e-300);
    s = end;
    if (k < n - 1) {
      if (*s != ';')
        fail_msg("%s: \"%s\": expected %d entries", what, text, n);
      s++;
    }
  }
  if (*s != '\0')
    fail_msg("%s: \"%s\": more than %d entries", what, text, n);
}

/* ------------------------------------------------------------------ tests */

static void test_datasheet_writes_tex_and_csv_with_raw(void **state) {
  fixture *fx = *state;
  char pdf[PATH_MAX] = "x";
  write_ok(fx, fx->raw, "out", 0, 0, pdf);
  assert_string_equal(pdf, "");
  assert_false(exists_in(fx, "out/datasheet.pdf"));
  char *tex = read_out(fx, "out/datasheet.tex");
  assert_contains(tex, "\\documentclass");
  assert_contains(tex, "testbox\\_01 (Xeon \\& IB)");
  assert_contains(tex, "Open MPI 4.1.4");
  assert_contains(tex, "2024-05-14");
  assert_null(strstr(tex, "File system &")); /* no file I/O rows */
  assert_contains(tex, "How to read this datasheet");
  /* one section per function, in table order */
  const char *order[] = {"\\section{MPI\\_Send}", "\\section{MPI\\_Barrier}",
                         "\\section{MPI\\_Bcast}", "\\section{MPI\\_Reduce}",
                         "\\section{MPI\\_Allreduce}",
                         "\\section{MPI\\_Wtime}"};
  const char *prev = tex;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    const char *at = strstr(tex, order[i]);
    if (at == NULL || at < prev)
      fail_msg("section %s missing or out of order", order[i]);
    prev = at;
  }
  assert_null(strstr(tex, "\\section{MPI\\_Gather}"));
  /* equations with errors and regime limits, as math */
  assert_contains(tex, "(1.52 \\pm 0.05) + (1.980 \\pm 0.030)\\,\\log_2 p + "
                       "(4.1 \\pm 1.1)\\times 10^{-3}\\,d & d \\le 32");
  assert_contains(tex, "33 \\le d \\le 65\\,536");
  assert_contains(tex, "d \\ge 65\\,537");
  assert_contains(tex, "T_{\\min}(p,d)");
  assert_contains(tex, "T_{\\max}(p,d)");
  assert_contains(tex, "from 33~B up to 64~KiB");
  assert_contains(tex, "above 64~KiB");
  assert_contains(tex, "25.0\\,\\% & \\textbf{low confidence}");
  assert_contains(tex, "d = bytes per rank, MPI\\_SUM");
  assert_contains(tex, "168 points at 7 group sizes");
  /* figures not requested: scripts and data written, no picture */
  assert_contains(tex, "No figure: figures were not requested");
  assert_null(strstr(tex, "\\includegraphics"));
  assert_true(exists_in(fx, "out/fig/MPI_Allreduce.gp"));
  assert_true(exists_in(fx, "out/fig/MPI_Allreduce.points.dat"));
  assert_true(exists_in(fx, "out/fig/MPI_Allreduce.fit.dat"));
  assert_false(exists_in(fx, "out/fig/MPI_Allreduce.pdf"));
  assert_true(exists_in(fx, "out/equations.csv"));
  free(tex);
  /* only the group sizes chosen for the figure, each as one data block */
  char *gp = read_out(fx, "out/fig/MPI_Bcast.gp");
  assert_contains(gp, "title \"p = 2\"");
  assert_contains(gp, "title \"p = 16\"");
  assert_contains(gp, "title \"p = 32\"");
  assert_null(strstr(gp, "title \"p = 3\""));
  assert_contains(gp, "set logscale x 2");
  free(gp);
}

static void test_datasheet_writes_without_raw_data(void **state) {
  fixture *fx = *state;
  write_ok(fx, NULL, "noraw", 0, 0, NULL);
  char *tex = read_out(fx, "noraw/datasheet.tex");
  assert_contains(tex, "\\section{MPI\\_Allreduce}");
  assert_contains(tex, "Raw data & not given");
  assert_null(strstr(tex, "\\textbf{Measured:}"));
  free(tex);
  assert_true(exists_in(fx, "noraw/fig/MPI_Allreduce.gp"));
  assert_true(exists_in(fx, "noraw/fig/MPI_Allreduce.fit.dat"));
  assert_false(exists_in(fx, "noraw/fig/MPI_Allreduce.points.dat"));
  /* without measurements the group sizes drawn follow machine.ranks = 32 */
  char *gp = read_out(fx, "noraw/fig/MPI_Allreduce.gp");
  assert_contains(gp, "title \"p = 32\"");
  assert_null(strstr(gp, "points.dat"));
  free(gp);
}

static void test_datasheet_escapes_latex_specials(void **state) {
  fixture *fx = *state;
  char pdflatex[PATH_MAX];
  snprintf(fx->m->machine_name, sizeof fx->m->machine_name,
           "node_1 & co: 100%% #1 $x$ {y} ~z ^w \\v <u> |t --x");
  snprintf(fx->m->machine_notes, sizeof fx->m->machine_notes,
           "Z\xc3\xbcrich line1\nline2 \xe6\x97\xa5 bad\xff end");
  snprintf(fx->m->machine_mpi, sizeof fx->m->machine_mpi, "MPICH_3.4");
  int have_latex = on_path("pdflatex", pdflatex, sizeof pdflatex);
  if (have_latex)
    setenv("REVPROF_PDFLATEX", pdflatex, 1);
  char pdf[PATH_MAX];
  write_ok(fx, NULL, "esc", 0, have_latex, pdf);
  char *tex = read_out(fx, "esc/datasheet.tex");
  assert_contains(tex, "node\\_1 \\& co: 100\\% \\#1 \\$x\\$ \\{y\\} "
                       "\\textasciitilde{}z \\textasciicircum{}w "
                       "\\textbackslash{}v \\textless{}u\\textgreater{} "
                       "\\textbar{}t -{}-x");
  assert_null(strstr(tex, "node_1"));
  assert_contains(tex, "Z\xc3\xbcrich line1 line2 ? bad? end");
  assert_contains(tex, "MPICH\\_3.4");
  free(tex);
  /* pdflatex accepts the result */
  if (have_latex) {
    char want[PATH_MAX];
    path_in(want, fx, "esc/datasheet.pdf");
    assert_string_equal(pdf, want);
    char *p = read_out(fx, "esc/datasheet.pdf");
    assert_memory_equal(p, "%PDF", 4);
    free(p);
  }
}

static void test_datasheet_csv_rows_match_model(void **state) {
  fixture *fx = *state;
  write_ok(fx, fx->raw, "csv", 0, 0, NULL);
  char *csv = read_out(fx, "csv/equations.csv");
  char *save = NULL, *line = strtok_r(csv, "\n", &save);
  assert_non_null(line);
  assert_string_equal(line, "function,regime,dmin,dmax,form,avg_us,err_us,"
                            "min_us,max_us,n,cv_error,range_pmin,range_pmax,"
                            "range_dmin,range_dmax");
  int rows = 0, want = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    want += fx->m->fn[i].nregimes;
  while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
    char *fld[16];
    assert_int_equal(csv_split(line, fld, 16), 15);
    revprof_fn fn = revprof_fn_lookup(fld[0]);
    assert_int_not_equal(fn, REVPROF_FN_COUNT);
    int reg = atoi(fld[1]);
    assert_in_range(reg, 1, fx->m->fn[fn].nregimes);
    const revprof_regime *r = &fx->m->fn[fn].regime[reg - 1];
    assert_near(strtod(fld[2], NULL), r->dmin, 0.0);
    if (isinf(r->dmax))
      assert_string_equal(fld[3], "");
    else
      assert_near(strtod(fld[3], NULL), r->dmax, 0.0);
    char form[256] = "";
    for (int k = 0; k < r->nterms; k++)
      snprintf(form + strlen(form), sizeof form - strlen(form), "%s%s",
               k ? ";" : "", revprof_basis_name(r->form[k]));
    assert_string_equal(fld[4], form);
    check_list(fld[5], r->avg, r->nterms, "avg_us");
    check_list(fld[6], r->err, r->nterms, "err_us");
    check_list(fld[7], r->min, r->nterms, "min_us");
    check_list(fld[8], r->max, r->nterms, "max_us");
    assert_int_equal(atoi(fld[9]), r->n);
    if (r->cv_error < 0.0)
      assert_string_equal(fld[10], "");
    else
      assert_near(strtod(fld[10], NULL), r->cv_error, 1e-12);
    const revprof_range *g = &fx->m->fn[fn].range;
    if (!g->known)
      assert_string_equal(fld[11], "");
    else {
      assert_near(strtod(fld[11], NULL), g->pmin, 0.0);
      assert_near(strtod(fld[12], NULL), g->pmax, 0.0);
      assert_near(strtod(fld[13], NULL), g->dmin, 0.0);
      assert_near(strtod(fld[14], NULL), g->dmax, 0.0);
    }
    rows++;
  }
  assert_int_equal(rows, want);
  free(csv);
}

/* The measured range of each function, and what lies outside it. */
static void test_datasheet_states_measured_range(void **state) {
  fixture *fx = *state;
  revprof_range *g = &fx->m->fn[REVPROF_FN_ALLREDUCE].range;
  revprof_range saved = *g;
  assert_true(fx->m->fn[REVPROF_FN_ALLREDUCE].nregimes > 0);
  g->known = 1;
  g->pmin = g->pmax = 2;
  g->dmin = 0;
  g->dmax = 4194304;
  write_ok(fx, fx->raw, "range", 0, 0, NULL);
  *g = saved;
  char *tex = read_out(fx, "range/datasheet.tex");
  assert_non_null(strstr(tex, "\\textbf{Measured range:} $p$ from 2 to 2, $d$ "
                              "from 0~B to 4~MiB. Outside it the equations are "
                              "\\textbf{extrapolated}"));
  int has_unknown = 0;
  for (int i = 0; i < REVPROF_FN_COUNT; i++)
    has_unknown |= i != REVPROF_FN_ALLREDUCE && fx->m->fn[i].nregimes > 0 &&
                   !fx->m->fn[i].range.known;
  if (has_unknown)
    assert_non_null(strstr(tex, "\\textbf{Measured range: unknown}"));
  free(tex);
  char *csv = read_out(fx, "range/equations.csv");
  assert_non_null(strstr(csv, ",2,2,0,4194304\n"));
  free(csv);
}

/* Seed 003's example equation for MPI_Allreduce comes out as printed there. */
static void test_datasheet_equation_matches_seed_example(void **state) {
  fixture *fx = *state;
  const char *text =
      "return { format = \"revprof-model 1\", method = \"paper\",\n"
      "  functions = { MPI_Allreduce = {\n"
      "    { dmax = 32, form = { \"1\", \"log2(p)\", \"d\" },\n"
      "      avg = { 50e-6, 200e-6, 4e-6 }, err = { 30e-6, 10e-6, 1e-6 } },\n"
      "    { dmin = 33, form = { \"1\", \"p\", \"log2(p)*d\" },\n"
      "      avg = { 300e-6, 20e-6, 0.9e-6 }, err = { 30e-6, 2e-6, 0.03e-6 } "
      "},\n"
      "  } } }\n";
  use_model(fx, text, "seed.lua");
  write_ok(fx, NULL, "seed", 0, 0, NULL);
  char *tex = read_out(fx, "seed/datasheet.tex");
  assert_contains(tex, "(50 \\pm 30) + (200 \\pm 10)\\,\\log_2 p + "
                       "(4.0 \\pm 1.0)\\,d & d \\le 32\\\\");
  assert_contains(tex, "(300 \\pm 30) + (20.0 \\pm 2.0)\\,p + "
                       "(0.900 \\pm 0.030)\\,d\\log_2 p & d \\ge 33");
  assert_contains(tex, "from 33~B");
  assert_contains(tex, "unnamed machine");
  assert_contains(tex, "method \\emph{paper}");
  free(tex);
}

/* A model with file I/O rows names its file system under Machine, and
 * their pages say what p and d mean for them. */
static void test_datasheet_names_file_system(void **state) {
  fixture *fx = *state;
  const char *text =
      "return { format = \"revprof-model 1\", machine = { name = \"io\", "
      "filesystem = \"lustre at /scratch/run_1\" }, functions = {\n"
      "  MPI_File_write_at = { { form = { \"1\", \"d\" }, "
      "avg = { 2e-6, 1e-10 } } },\n"
      "  MPI_File_open = { { form = { \"1\" }, avg = { 3e-4 } } } } }\n";
  use_model(fx, text, "io.lua");
  write_ok(fx, NULL, "io", 0, 0, NULL);
  char *tex = read_out(fx, "io/datasheet.tex");
  assert_contains(tex, "File system & lustre at /scratch/run\\_1 \\\\");
  assert_contains(tex, "\\section{MPI\\_File\\_write\\_at}");
  assert_contains(tex, "\\section{MPI\\_File\\_open}");
  assert_contains(tex, "File I/O: a group of $p$ ranks shares one file");
  free(tex);
}

/* The rows for overlapping messages (format 2) get their page, their
 * fit error in the summary and a sentence on what they stand for. */
static void test_datasheet_explains_overlap_rows(void **state) {
  fixture *fx = *state;
  const char *text =
      "return { format = \"revprof-model 3\", functions = {\n"
      "  MPI_Wait = { { form = { \"1\" }, avg = { 4e-8 }, n = 25, "
      "cv_error = 0.091 } },\n"
      "  gap = { { dmax = 4095, form = { \"1\" }, avg = { 7e-8 } },\n"
      "    { dmin = 4096, form = { \"1\", \"d\" }, avg = { 1.5e-6, 7e-11 }, "
      "n = 8, cv_error = 0.017 } },\n"
      "  gap_all = { { form = { \"1\", \"max(p-8,0)\", \"d\", "
      "\"max(p-8,0)*d\" }, avg = { 1.5e-6, 2e-7, 7e-11, 1e-11 } } } } }\n";
  use_model(fx, text, "overlap.lua");
  write_ok(fx, NULL, "overlap", 0, 0, NULL);
  char *tex = read_out(fx, "overlap/datasheet.tex");
  assert_contains(tex, "\\section{MPI\\_Wait}");
  assert_contains(tex, "\\section{gap}");
  assert_contains(tex, "{MPI\\_Wait} & 1 & 25 & 9.1\\,\\%");
  assert_contains(tex, "{gap} & 2 & 8 & 1.7\\,\\%");
  assert_contains(tex, "without this row uses \\texttt{MPI\\_Irecv}'s");
  assert_contains(tex, "$(T_8 - T_1)/7$ on the receiver's clock");
  assert_contains(tex, "without this row does not queue messages");
  /* the hinge max(p-8,0) as (p-8)_+, alone and times d */
  assert_contains(tex, "\\,(p-8)_+ + ");
  assert_contains(tex, "\\,(p-8)_+\\,d");
  free(tex);
}

/* A last regime that is the fit's top of the range (the regime below
 * times 1.5, no CV error) is named so, with its factor; a last regime of
 * another form, or one with a CV error, is not. */
static void test_datasheet_names_top_of_range(void **state) {
  fixture *fx = *state;
  const char *text =
      "return { format = \"revprof-model 3\", functions = {\n"
      "  MPI_Send = { { dmax = 1048575, form = { \"1\", \"d\" }, "
      "avg = { 2e-6, 1e-10 }, n = 12, cv_error = 0.05 },\n"
      "    { dmin = 1048576, form = { \"1\", \"d\" }, "
      "avg = { 3e-6, 1.5e-10 }, n = 2 } },\n"
      "  MPI_Recv = { { dmax = 1048575, form = { \"1\", \"d\" }, "
      "avg = { 2e-6, 1e-10 }, n = 12, cv_error = 0.05 },\n"
      "    { dmin = 1048576, form = { \"d\" }, avg = { 1.5e-10 }, n = 2 "
      "} } } }\n";
  use_model(fx, text, "top.lua");
  double factor = 0.0;
  assert_true(
      revprof_fnmodel_top_of_range(&fx->m->fn[REVPROF_FN_SEND], &factor));
  assert_true(fabs(factor - 1.5) < 1e-12);
  assert_false(revprof_fnmodel_top_of_range(&fx->m->fn[REVPROF_FN_RECV], NULL));
  write_ok(fx, NULL, "top", 0, 0, NULL);
  char *tex = read_out(fx, "top/datasheet.tex");
  assert_contains(tex, "2 & from 1~MiB & 2 & n/a & top of the range \\\\");
  assert_contains(tex, "\\textbf{Top of the range:} the largest sizes "
                       "measured (2 points)");
  assert_contains(tex, "equation times 1.5, fitted to them");
  /* once: MPI_Recv's last regime has another form */
  const char *at = strstr(tex, "\\textbf{Top of the range:}");
  assert_null(strstr(at + 1, "\\textbf{Top of the range:}"));
  free(tex);
}

static void test_datasheet_unwritable_dir_fails_and_leaves_nothing(
    void **state) {
  fixture *fx = *state;
  rp_datasheet_options o;
  char file[PATH_MAX], dir[PATH_MAX], err[ERRLEN] = "", pdf[64] = "x";
  rp_datasheet_options_init(&o);
  o.pdf = o.figures = 0;
  /* a directory below a regular file cannot be created */
  path_in(file, fx, "plain");
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  if (snprintf(dir, sizeof dir, "%s/sheet", file) >= (int)sizeof dir)
    fail_msg("path too long");
  int rc = rp_datasheet_write(fx->m, fx->raw, dir, &o, pdf, sizeof pdf, err,
                              sizeof err);
  assert_int_equal(rc, REVPROF_EIO);
  assert_string_equal(pdf, "");
  assert_contains(err, dir);
  assert_int_equal(count_entries(fx->dir), 1);
  /* the output directory exists but fig/ cannot be made in it */
  path_in(dir, fx, "out");
  assert_int_equal(mkdir(dir, 0777), 0);
  path_in(file, fx, "out/fig");
  f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  err[0] = '\0';
  rc = rp_datasheet_write(fx->m, fx->raw, dir, &o, pdf, sizeof pdf, err,
                          sizeof err);
  assert_int_equal(rc, REVPROF_EIO);
  assert_contains(err, file);
  assert_int_equal(count_entries(dir), 1); /* only our file "fig" */
  /* no model, no directory */
  rc = rp_datasheet_write(NULL, NULL, dir, &o, pdf, sizeof pdf, err,
                          sizeof err);
  assert_int_equal(rc, REVPROF_EINVAL);
  rc = rp_datasheet_write(fx->m, NULL, "", &o, pdf, sizeof pdf, err,
                          sizeof err);
  assert_int_equal(rc, REVPROF_EINVAL);
}

static void test_datasheet_readonly_parent_is_reported(void **state) {
  fixture *fx = *state;
  rp_datasheet_options o;
  char parent[PATH_MAX], dir[PATH_MAX], err[ERRLEN] = "";
  if (geteuid() == 0)
    skip(); /* root may write anywhere */
  rp_datasheet_options_init(&o);
  o.pdf = o.figures = 0;
  path_in(parent, fx, "ro");
  assert_int_equal(mkdir(parent, 0555), 0);
  if (snprintf(dir, sizeof dir, "%s/sheet", parent) >= (int)sizeof dir)
    fail_msg("path too long");
  int rc = rp_datasheet_write(fx->m, NULL, dir, &o, NULL, 0, err,
                              sizeof err);
  assert_int_equal(rc, REVPROF_EIO);
  assert_contains(err, dir);
  assert_contains(err, strerror(EACCES));
  assert_int_equal(count_entries(parent), 0);
}

static void test_datasheet_renders_figures_and_pdf(void **state) {
  fixture *fx = *state;
  char gnuplot[PATH_MAX], pdflatex[PATH_MAX], pdf[PATH_MAX], want[PATH_MAX];
  if (!on_path("gnuplot", gnuplot, sizeof gnuplot) ||
      !on_path("pdflatex", pdflatex, sizeof pdflatex))
    skip();
  setenv("REVPROF_GNUPLOT", gnuplot, 1);
  setenv("REVPROF_PDFLATEX", pdflatex, 1);
  write_ok(fx, fx->raw, "full", 1, 1, pdf);
  path_in(want, fx, "full/datasheet.pdf");
  assert_string_equal(pdf, want);
  const char *figs[] = {"MPI_Send", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce",
                        "MPI_Allreduce"};
  char *tex = read_out(fx, "full/datasheet.tex");
  for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
    char sub[128], inc[160];
    snprintf(sub, sizeof sub, "full/fig/%s.pdf", figs[i]);
    char *p = read_out(fx, sub);
    assert_memory_equal(p, "%PDF", 4);
    free(p);
    snprintf(sub, sizeof sub, "full/fig/%s.png", figs[i]);
    p = read_out(fx, sub);
    assert_memory_equal(p, "\x89PNG", 4);
    free(p);
    snprintf(inc, sizeof inc, "\\includegraphics[width=\\textwidth]{fig/%s.pdf}",
             figs[i]);
    assert_contains(tex, inc);
  }
  /* Wtime was measured at one (p, d): no figure, and the page says so */
  assert_false(exists_in(fx, "full/fig/MPI_Wtime.gp"));
  assert_contains(tex, "measured at a single group and message size");
  /* Barrier has one message size: drawn against p */
  char *gp = read_out(fx, "full/fig/MPI_Barrier.gp");
  assert_contains(gp, "set xlabel \"group size p");
  free(gp);
  free(tex);
  char *p = read_out(fx, "full/datasheet.pdf");
  assert_memory_equal(p, "%PDF", 4);
  free(p);
  char figdir[PATH_MAX];
  path_in(figdir, fx, "full/fig");
  assert_int_equal(count_suffix(figdir, ".log"), 0); /* logs of successes */
}

static void test_datasheet_missing_tools_are_not_errors(void **state) {
  fixture *fx = *state;
  char pdf[PATH_MAX] = "x";
  setenv("REVPROF_GNUPLOT", "", 1);
  setenv("REVPROF_PDFLATEX", "/nonexistent/pdflatex", 1);
  write_ok(fx, fx->raw, "bare", 1, 1, pdf);
  assert_string_equal(pdf, "");
  assert_false(exists_in(fx, "bare/datasheet.pdf"));
  assert_false(exists_in(fx, "bare/fig/MPI_Allreduce.pdf"));
  assert_true(exists_in(fx, "bare/fig/MPI_Allreduce.gp"));
  char *tex = read_out(fx, "bare/datasheet.tex");
  assert_contains(tex, "gnuplot was not found");
  assert_contains(tex, "gnuplot MPI\\_Allreduce.gp");
  assert_null(strstr(tex, "\\includegraphics"));
  free(tex);
}

static void test_datasheet_gnuplot_failure_names_log(void **state) {
  fixture *fx = *state;
  rp_datasheet_options o;
  char dir[PATH_MAX], err[ERRLEN] = "", pdf[64];
  if (access("/bin/false", X_OK) != 0)
    skip();
  setenv("REVPROF_GNUPLOT", "/bin/false", 1);
  rp_datasheet_options_init(&o);
  o.pdf = 0;
  path_in(dir, fx, "gpfail");
  int rc = rp_datasheet_write(fx->m, fx->raw, dir, &o, pdf, sizeof pdf, err,
                              sizeof err);
  assert_int_equal(rc, REVPROF_EIO);
  assert_contains(err, "gnuplot failed (exit status 1)");
  assert_contains(err, "/fig/MPI_Send.gp");
  assert_contains(err, "/fig/MPI_Send.log");
  /* nothing presented as a result */
  assert_false(exists_in(fx, "gpfail/datasheet.tex"));
  assert_false(exists_in(fx, "gpfail/equations.csv"));
  assert_false(exists_in(fx, "gpfail/fig/MPI_Send.pdf"));
  assert_int_equal(count_suffix(dir, ".tmp"), 0);
}

static void test_datasheet_pdflatex_failure_names_log(void **state) {
  fixture *fx = *state;
  rp_datasheet_options o;
  char dir[PATH_MAX], err[ERRLEN] = "", pdf[64] = "x", fake[PATH_MAX];
  if (access("/bin/sh", X_OK) != 0)
    skip();
  /* a stand-in for pdflatex that fails the way TeX does */
  path_in(fake, fx, "fake-pdflatex");
  FILE *f = fopen(fake, "w");
  assert_non_null(f);
  fputs("#!/bin/sh\n"
        "printf 'This is a stand-in\\n! Undefined control sequence.\\n"
        "l.12 \\\\oops\\n' > latex/datasheet.log\n"
        "exit 1\n", f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(chmod(fake, 0755), 0);
  setenv("REVPROF_PDFLATEX", fake, 1);
  rp_datasheet_options_init(&o);
  o.figures = 0;
  path_in(dir, fx, "texfail");
  int rc = rp_datasheet_write(fx->m, fx->raw, dir, &o, pdf, sizeof pdf, err,
                              sizeof err);
  assert_int_equal(rc, REVPROF_EIO);
  assert_string_equal(pdf, "");
  assert_contains(err, "pdflatex failed (exit status 1): Undefined control "
                       "sequence.; see ");
  assert_contains(err, "texfail/latex/datasheet.log");
  assert_false(exists_in(fx, "texfail/datasheet.pdf"));
  /* when pdflatex cannot even write its log, its output is named */
  if (access("/bin/false", X_OK) == 0) {
    setenv("REVPROF_PDFLATEX", "/bin/false", 1);
    rc = rp_datasheet_write(fx->m, fx->raw, dir, &o, pdf, sizeof pdf, err,
                            sizeof err);
    assert_int_equal(rc, REVPROF_EIO);
    assert_contains(err, "latex/pdflatex.out");
  }
}

/* Two runs on the same input give byte-identical files (no timestamps). */
static void test_datasheet_output_is_reproducible(void **state) {
  fixture *fx = *state;
  const char *files[] = {
      "datasheet.tex",          "equations.csv",
      "fig/MPI_Bcast.gp",       "fig/MPI_Bcast.points.dat",
      "fig/MPI_Bcast.fit.dat",  "fig/MPI_Bcast.pdf",
      "fig/MPI_Bcast.png",      "datasheet.pdf"};
  write_ok(fx, fx->raw, "a", 1, 1, NULL);
  sleep(1); /* a clock in the output would now differ */
  write_ok(fx, fx->raw, "b", 1, 1, NULL);
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char pa[PATH_MAX], pb[PATH_MAX], sub[128];
    size_t la, lb;
    snprintf(sub, sizeof sub, "a/%s", files[i]);
    path_in(pa, fx, sub);
    snprintf(sub, sizeof sub, "b/%s", files[i]);
    path_in(pb, fx, sub);
    char *a = slurp(pa, &la), *b = slurp(pb, &lb);
    if (a == NULL && b == NULL && i >= 5)
      continue; /* no gnuplot or pdflatex here */
    if (a == NULL || b == NULL)
      fail_msg("%s: made in one run only", files[i]);
    if (la != lb || memcmp(a, b, la) != 0)
      fail_msg("%s differs between two runs", files[i]);
    free(a);
    free(b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_datasheet_writes_tex_and_csv_with_raw),
      T(test_datasheet_writes_without_raw_data),
      T(test_datasheet_escapes_latex_specials),
      T(test_datasheet_csv_rows_match_model),
      T(test_datasheet_states_measured_range),
      T(test_datasheet_equation_matches_seed_example),
      T(test_datasheet_names_file_system),
      T(test_datasheet_explains_overlap_rows),
      T(test_datasheet_names_top_of_range),
      T(test_datasheet_unwritable_dir_fails_and_leaves_nothing),
      T(test_datasheet_readonly_parent_is_reported),
      T(test_datasheet_renders_figures_and_pdf),
      T(test_datasheet_missing_tools_are_not_errors),
      T(test_datasheet_gnuplot_failure_names_log),
      T(test_datasheet_pdflatex_failure_names_log),
      T(test_datasheet_output_is_reproducible),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
