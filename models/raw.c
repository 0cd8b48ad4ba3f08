/* Raw characterization data: the CSV written by characterize and read by the
 * fitter and the datasheet ("function,p,bytes,min,median,mean,max,reps,rse"). */
#include "model_int.h"
#include "rp_util.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

revprof_raw *revprof_raw_alloc(void) { return calloc(1, sizeof(revprof_raw)); }

void revprof_raw_free(revprof_raw *r) {
  if (r == NULL)
    return;
  free(r->pt);
  free(r);
}

int revprof_raw_add(revprof_raw *r, const revprof_point *pt) {
  revprof_point *np = rp_grow(r->pt, &r->cap, r->n + 1, sizeof *np);
  if (np == NULL)
    return REVPROF_ENOMEM;
  r->pt = np;
  r->pt[r->n++] = *pt;
  return 0;
}

/* Splits line at commas in place; returns the number of fields. */
static int split(char *line, char **field, int max) {
  int n = 0;
  char *s = line;
  while (n < max) {
    field[n++] = s;
    s = strchr(s, ',');
    if (s == NULL)
      break;
    *s++ = '\0';
  }
  return n;
}

static void chomp(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
    s[--n] = '\0';
}

static int parse_num(const char *s, double *out) {
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  while (*end == ' ')
    end++;
  return end != s && *end == '\0' && errno == 0 && isfinite(*out);
}

/* Row order for the duplicate check: (function, p, bytes), then line. */
typedef struct rowkey {
  int fn, p;
  double d;
  long line;
} rowkey;

static int cmp_rowkey(const void *a, const void *b) {
  const rowkey *x = a, *y = b;
  if (x->fn != y->fn)
    return x->fn < y->fn ? -1 : 1;
  if (x->p != y->p)
    return x->p < y->p ? -1 : 1;
  if (x->d != y->d)
    return x->d < y->d ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* A raw CSV holds one row per (function, p, bytes): a repeated one is an
 * error naming both lines (never averaged silently). */
static int check_duplicates(const revprof_raw *r, const long *lines,
                            const char *path, char *err, size_t errlen) {
  rowkey *k = malloc(r->n * sizeof *k);
  int rc = 0;
  if (k == NULL) {
    rp_errf(err, errlen, "%s: out of memory", path);
    return REVPROF_ENOMEM;
  }
  for (size_t i = 0; i < r->n; i++) {
    k[i].fn = (int)r->pt[i].fn;
    k[i].p = r->pt[i].p;
    k[i].d = r->pt[i].d;
    k[i].line = lines[i];
  }
  qsort(k, r->n, sizeof *k, cmp_rowkey);
  long worst = 0, first = 0;
  for (size_t i = 1; i < r->n; i++)
    if (k[i].fn == k[i - 1].fn && k[i].p == k[i - 1].p &&
        k[i].d == k[i - 1].d && (worst == 0 || k[i].line < worst)) {
      size_t j = i - 1;
      while (j > 0 && k[j - 1].fn == k[i].fn && k[j - 1].p == k[i].p &&
             k[j - 1].d == k[i].d)
        j--;
      worst = k[i].line; /* the earliest line that repeats a row */
      first = k[j].line;
    }
  if (worst) {
    size_t i = 0;
    while (lines[i] != worst)
      i++;
    rp_errf(err, errlen,
            "%s:%ld: duplicate row %s, p = %d, %.0f bytes (first at line "
            "%ld); a raw CSV has one row per function, p and bytes",
            path, worst, revprof_fn_name(r->pt[i].fn), r->pt[i].p,
            r->pt[i].d, first);
    rc = REVPROF_EFIELD;
  }
  free(k);
  return rc;
}

/* The '# machine.KEY: value' lines: the key, where its text goes in
 * revprof_raw (ranks and eager_limit, numbers, have no text field) and its
 * size. */
static const struct {
  const char *key;
  size_t off, len;
} machine_keys[] = {
    {"name", offsetof(revprof_raw, machine_name),
     sizeof ((revprof_raw *)0)->machine_name},
    {"mpi", offsetof(revprof_raw, machine_mpi),
     sizeof ((revprof_raw *)0)->machine_mpi},
    {"filesystem", offsetof(revprof_raw, machine_filesystem),
     sizeof ((revprof_raw *)0)->machine_filesystem},
    {"date", offsetof(revprof_raw, machine_date),
     sizeof ((revprof_raw *)0)->machine_date},
    {"ranks", 0, 0},
    {"eager_limit", 0, 0},
    {"notes", offsetof(revprof_raw, machine_notes),
     sizeof ((revprof_raw *)0)->machine_notes},
};
#define NMACHINE_KEYS (sizeof machine_keys / sizeof machine_keys[0])

int revprof_eager_parse(const char *text, double *bytes) {
  if (strcmp(text, "none") == 0) {
    *bytes = INFINITY;
    return 0;
  }
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !(v >= 1.0) ||
      v > 9007199254740992.0 || v != floor(v))
    return -1;
  *bytes = v;
  return 0;
}

void revprof_eager_format(double bytes, char *buf, size_t len) {
  if (isinf(bytes))
    snprintf(buf, len, "none");
  else
    snprintf(buf, len, "%.0f", bytes);
}

/* One comment line (chomped). '# machine.KEY: value' goes into r's machine
 * fields; seen[] holds the line each key was read on (0: not yet). Other
 * comments are ignored. A machine line with no ': ', an unknown key, a key
 * given twice, a value too long for its field or ranks that is not a whole
 * number 1..10^9 is an error naming path and lineno. */
static int machine_comment(revprof_raw *r, const char *line, long seen[],
                           const char *path, long lineno, char *err,
                           size_t errlen) {
  static const char prefix[] = "# machine.";
  if (strncmp(line, prefix, sizeof prefix - 1) != 0)
    return 0;
  const char *key = line + sizeof prefix - 1, *colon = strchr(key, ':');
  size_t klen = colon ? (size_t)(colon - key) : 0, i;
  if (colon == NULL || (colon[1] != ' ' && colon[1] != '\0')) {
    rp_errf(err, errlen,
            "%s:%ld: a machine line reads '# machine.KEY: value', not "
            "\"%.60s\"",
            path, lineno, line);
    return REVPROF_EFORMAT;
  }
  for (i = 0; i < NMACHINE_KEYS; i++)
    if (strlen(machine_keys[i].key) == klen &&
        strncmp(key, machine_keys[i].key, klen) == 0)
      break;
  if (i == NMACHINE_KEYS) {
    rp_errf(err, errlen,
            "%s:%ld: unknown machine key \"%.*s\" (name, mpi, filesystem, "
            "date, ranks, eager_limit or notes)",
            path, lineno, (int)(klen > 40 ? 40 : klen), key);
    return REVPROF_EFIELD;
  }
  if (seen[i]) {
    rp_errf(err, errlen, "%s:%ld: machine.%s given again (first at line %ld)",
            path, lineno, machine_keys[i].key, seen[i]);
    return REVPROF_EFIELD;
  }
  seen[i] = lineno;
  const char *v = colon[1] ? colon + 2 : colon + 1; /* "" when empty */
  if (strcmp(machine_keys[i].key, "eager_limit") == 0) {
    if (revprof_eager_parse(v, &r->machine_eager_limit) != 0) {
      rp_errf(err, errlen,
              "%s:%ld: machine.eager_limit: \"%.40s\" is neither a whole "
              "number of bytes >= 1 nor \"none\"",
              path, lineno, v);
      return REVPROF_EFIELD;
    }
    return 0;
  }
  if (machine_keys[i].len == 0) { /* ranks */
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno != 0 || n < 1 || n > 1000000000L) {
      rp_errf(err, errlen,
              "%s:%ld: machine.ranks: \"%.40s\" is not a whole number "
              ">= 1",
              path, lineno, v);
      return REVPROF_EFIELD;
    }
    r->machine_ranks = (int)n;
    return 0;
  }
  if (strlen(v) >= machine_keys[i].len) {
    rp_errf(err, errlen,
            "%s:%ld: machine.%s: %zu characters, at most %zu fit", path,
            lineno, machine_keys[i].key, strlen(v),
            machine_keys[i].len - 1);
    return REVPROF_EFIELD;
  }
  memcpy((char *)r + machine_keys[i].off, v, strlen(v) + 1);
  return 0;
}

static const char *const columns[] = {"function", "p",   "bytes",
                                      "min",      "median", "mean",
                                      "max",      "reps", "rse"};

int revprof_raw_read(const char *path, revprof_raw **out, char *err,
                     size_t errlen) {
  *out = NULL;
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    rp_errf(err, errlen, "%s: cannot open raw data: %s", path,
            strerror(errno));
    return REVPROF_EIO;
  }
  revprof_raw *r = revprof_raw_alloc();
  char line[4096];
  char *field[32];
  long lineno = 0, *lines = NULL; /* line of each row */
  size_t nlines = 0;
  long seen[NMACHINE_KEYS] = {0}; /* line of each machine key */
  int rc = 0, header = 0;
  if (r == NULL) {
    fclose(f);
    return REVPROF_ENOMEM;
  }
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    chomp(line);
    if (line[0] == '#') {
      rc = machine_comment(r, line, seen, path, lineno, err, errlen);
      continue;
    }
    if (line[0] == '\0')
      continue;
    int nf = split(line, field, 32);
    if (!header) {
      for (int i = 0; i < 9; i++)
        if (i >= nf || strcmp(field[i], columns[i]) != 0) {
          rp_errf(err, errlen,
                  "%s:%ld: header must start with \"%s\" (column %d is "
                  "\"%s\")",
                  path, lineno, REVPROF_RAW_HEADER, i + 1,
                  i < nf ? field[i] : "missing");
          rc = REVPROF_EFORMAT;
          break;
        }
      header = 1;
      continue;
    }
    if (nf < 9) {
      rp_errf(err, errlen, "%s:%ld: %d columns, need 9", path, lineno, nf);
      rc = REVPROF_EFORMAT;
      break;
    }
    revprof_point pt;
    double v[8];
    pt.fn = revprof_fn_lookup(field[0]);
    if (pt.fn == REVPROF_FN_COUNT) {
      char hint[96];
      rp_errf(err, errlen,
              "%s:%ld: unknown function \"%s\" (%s'revprof characterize "
              "--list' shows the names)",
              path, lineno, field[0],
              revprof_fn_hint(field[0], hint, sizeof hint));
      rc = REVPROF_ENOFUNC;
      break;
    }
    for (int i = 0; i < 8; i++)
      if (!parse_num(field[i + 1], &v[i]) || v[i] < 0.0) {
        rp_errf(err, errlen,
                "%s:%ld: column %s: \"%s\" is not a number >= 0", path,
                lineno, columns[i + 1], field[i + 1]);
        rc = REVPROF_EFIELD;
        break;
      }
    if (rc)
      break;
    if (v[0] < 1 || v[0] != floor(v[0]) || v[0] > 1e7) {
      rp_errf(err, errlen, "%s:%ld: p = %s is not a group size", path,
              lineno, field[1]);
      rc = REVPROF_EFIELD;
      break;
    }
    if (!(v[2] <= v[3] && v[3] <= v[5] && v[2] <= v[4] && v[4] <= v[5])) {
      rp_errf(err, errlen,
              "%s:%ld: need min <= median <= max and min <= mean <= max",
              path, lineno);
      rc = REVPROF_EFIELD;
      break;
    }
    pt.p = (int)v[0];
    pt.d = v[1];
    pt.min = v[2];
    pt.median = v[3];
    pt.mean = v[4];
    pt.max = v[5];
    pt.reps = (long)v[6];
    pt.rse = v[7];
    rc = revprof_raw_add(r, &pt);
    if (rc == 0) {
      long *nl = rp_grow(lines, &nlines, r->n, sizeof *nl);
      if (nl == NULL)
        rc = REVPROF_ENOMEM;
      else
        lines = nl;
    }
    if (rc == 0)
      lines[r->n - 1] = lineno;
  }
  if (rc == 0 && ferror(f)) { /* errno from the failed read: EISDIR, EIO */
    rp_errf(err, errlen, "%s: cannot read raw data: %s", path,
            strerror(errno ? errno : EIO));
    rc = REVPROF_EIO;
  }
  if (rc == 0 && !header) {
    rp_errf(err, errlen, "%s: empty file (no header line \"%s\")", path,
            REVPROF_RAW_HEADER);
    rc = REVPROF_EFORMAT;
  }
  if (rc == 0 && r->n == 0) {
    rp_errf(err, errlen, "%s: no data rows", path);
    rc = REVPROF_EFORMAT;
  }
  if (rc == 0)
    rc = check_duplicates(r, lines, path, err, errlen);
  free(lines);
  fclose(f);
  if (rc) {
    revprof_raw_free(r);
    return rc;
  }
  *out = r;
  return 0;
}

void revprof_raw_write_row(FILE *f, const revprof_point *pt) {
  fprintf(f, "%s,%d,%.0f,%.9g,%.9g,%.9g,%.9g,%ld,%.4g\n",
          revprof_fn_name(pt->fn), pt->p, pt->d, pt->min, pt->median,
          pt->mean, pt->max, pt->reps, pt->rse);
}

/* '# machine.KEY: value' on one line: line breaks in value (a --name
 * "a\nb") written as spaces, so that they cannot start a row. */
static void machine_line(FILE *f, const char *key, const char *value) {
  fprintf(f, "# machine.%s: ", key);
  for (const char *c = value; *c; c++)
    fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
  fputc('\n', f);
}

int revprof_raw_write(const revprof_raw *r, const char *path, char *err,
                      size_t errlen) {
  char tmp[4096];
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, err, errlen);
  if (f == NULL)
    return REVPROF_EIO;
  fprintf(f, "%s\n", REVPROF_RAW_HEADER); /* first: the file starts so */
  for (size_t i = 0; i < NMACHINE_KEYS; i++) {
    const char *v = (const char *)r + machine_keys[i].off;
    if (strcmp(machine_keys[i].key, "eager_limit") == 0) {
      if (r->machine_eager_limit > 0) {
        char b[32];
        revprof_eager_format(r->machine_eager_limit, b, sizeof b);
        fprintf(f, "# machine.eager_limit: %s\n", b);
      }
    } else if (machine_keys[i].len == 0 && r->machine_ranks > 0) /* ranks */
      fprintf(f, "# machine.ranks: %d\n", r->machine_ranks);
    else if (machine_keys[i].len > 0 && v[0])
      machine_line(f, machine_keys[i].key, v);
  }
  for (size_t i = 0; i < r->n; i++)
    revprof_raw_write_row(f, &r->pt[i]);
  return rp_commit_file(f, tmp, path, 1, err, errlen);
}

/* "unknown (fitted from PATH, which records no machine)" or, when raw
 * records some of the machine, "unknown (PATH records no machine.name)";
 * PATH cut to its last component when the whole does not fit. */
static void unknown_name(char *buf, size_t len, const char *path,
                         int described) {
  const char *fmt = described ? "unknown (%s records no machine.name)"
                              : "unknown (fitted from %s, which records no "
                                "machine)";
  const char *base = strrchr(path, '/');
  if ((size_t)snprintf(buf, len, fmt, path) >= len && base && base[1])
    snprintf(buf, len, fmt, base + 1);
}

void revprof_model_machine_from_raw(revprof_model *m, const revprof_raw *raw,
                                    const char *path) {
  int described = raw->machine_name[0] || raw->machine_mpi[0] ||
                  raw->machine_date[0] || raw->machine_notes[0] ||
                  raw->machine_ranks > 0;
  if (raw->machine_name[0])
    snprintf(m->machine_name, sizeof m->machine_name, "%s", raw->machine_name);
  if (raw->machine_mpi[0])
    snprintf(m->machine_mpi, sizeof m->machine_mpi, "%s", raw->machine_mpi);
  if (raw->machine_filesystem[0])
    snprintf(m->machine_filesystem, sizeof m->machine_filesystem, "%s",
             raw->machine_filesystem);
  if (raw->machine_date[0])
    snprintf(m->machine_date, sizeof m->machine_date, "%s", raw->machine_date);
  if (raw->machine_notes[0])
    snprintf(m->machine_notes, sizeof m->machine_notes, "%s",
             raw->machine_notes);
  if (raw->machine_ranks > 0)
    m->machine_ranks = raw->machine_ranks;
  if (raw->machine_eager_limit > 0)
    m->machine_eager_limit = raw->machine_eager_limit;
  if (m->machine_name[0] == '\0')
    unknown_name(m->machine_name, sizeof m->machine_name, path, described);
  if (m->machine_mpi[0] == '\0')
    snprintf(m->machine_mpi, sizeof m->machine_mpi, "unknown");
  if (m->machine_date[0] == '\0')
    snprintf(m->machine_date, sizeof m->machine_date, "unknown");
}
