/* revprof model library: machine models of MPI performance (read, check,
 * evaluate, write), raw characterization data (CSV) and least-squares fitting.
 * No MPI. Times are seconds (double), message sizes d are bytes. */
#ifndef REVPROF_MODEL_H
#define REVPROF_MODEL_H

#include <stddef.h>
#include <stdio.h>

#include "revprof_functions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */

/* The error codes of all of revprof: this library, the trace writers, the
 * revprof tool and revprof-characterize. Every function that can fail
 * returns 0 or one of these negative codes (functions that return -1 and
 * set errno, as POSIX calls do, say so where they are declared). Functions
 * taking (char *err, size_t errlen) also write a full message there naming
 * the file, line, option or field at fault (err may be NULL). Codes are
 * never reused: a new one takes the next free value. */
#define REVPROF_ERROR_TABLE(X)                                                 \
  X(OK, 0, "success")                                                          \
  X(EINVAL, -1, "invalid argument")                                            \
  X(ENOMEM, -2, "out of memory")                                               \
  X(EIO, -3, "input/output error")                                             \
  X(ESYNTAX, -4, "syntax error")                                               \
  X(EFORMAT, -5, "bad or unsupported file format")                             \
  X(EFIELD, -6, "missing or invalid field")                                    \
  X(ENOFUNC, -7, "function not in the model")                                  \
  X(EFIT, -8, "fit failed")                                                    \
  X(EMPI, -9, "MPI error")                                                     \
  X(ELUA, -10, "Lua error")                                                    \
  X(ERANGE, -11, "value out of range")                                         \
  X(EMISSING, -12, "file or program not found")                                \
  X(ENOOTF2, -13, "revprof was built without OTF2")                            \
  X(EOTF2, -14, "OTF2 error")                                                  \
  X(ESPAWN, -15, "a program could not be run or failed")                       \
  X(EMEASURE, -16, "measurement failed")

enum revprof_error {
#define RP_ERR_ENUM_(id, code, msg) REVPROF_##id = code,
  REVPROF_ERROR_TABLE(RP_ERR_ENUM_)
#undef RP_ERR_ENUM_
};

/* Message for a REVPROF_E* code; "unknown error" for any other value,
 * never NULL. */
const char *revprof_strerror(int code);

/* ------------------------------------------------------- basis functions */

/* The terms an equation is built from: t(p,d) = sum_k coef[k] * basis_k(p,d).
 * X(id, "name in model files", uses p, uses d, knot). log2 is the base-2 log.
 * The hinges max(p-K,0) (knot K > 0) are flat up to K group sizes and grow
 * linearly beyond: a resource that p ranks share once more than K of them
 * use it (a backbone behind per-host links). */
#define REVPROF_BASIS_TABLE(X)                                                 \
  X(ONE, "1", 0, 0, 0)                                                         \
  X(P, "p", 1, 0, 0)                                                           \
  X(LOG2P, "log2(p)", 1, 0, 0)                                                 \
  X(P2, "p^2", 1, 0, 0)                                                        \
  X(LOG2P_2, "log2(p)^2", 1, 0, 0)                                             \
  X(SQRTP, "sqrt(p)", 1, 0, 0)                                                 \
  X(INVP, "1/p", 1, 0, 0)                                                      \
  X(D, "d", 0, 1, 0)                                                           \
  X(PD, "p*d", 1, 1, 0)                                                        \
  X(LOG2PD, "log2(p)*d", 1, 1, 0)                                              \
  X(P2D, "p^2*d", 1, 1, 0)                                                     \
  X(PM1_P_D, "(p-1)/p*d", 1, 1, 0)                                             \
  X(PM1D, "(p-1)*d", 1, 1, 0)                                                  \
  X(SQRTPD, "sqrt(p)*d", 1, 1, 0)                                              \
  REVPROF_HINGE_(X, 4)                                                         \
  REVPROF_HINGE_(X, 8)                                                         \
  REVPROF_HINGE_(X, 16)                                                        \
  REVPROF_HINGE_(X, 32)                                                        \
  REVPROF_HINGE_(X, 64)                                                        \
  REVPROF_HINGE_(X, 128)                                                       \
  REVPROF_HINGE_(X, 256)                                                       \
  REVPROF_HINGE_(X, 512)
#define REVPROF_HINGE_(X, K)                                                   \
  X(HINGE##K, "max(p-" #K ",0)", 1, 0, K)                                      \
  X(HINGE##K##D, "max(p-" #K ",0)*d", 1, 1, K)

typedef enum revprof_basis {
#define RP_BASIS_ENUM_(id, name, up, ud, knot) REVPROF_BASIS_##id,
  REVPROF_BASIS_TABLE(RP_BASIS_ENUM_)
#undef RP_BASIS_ENUM_
  REVPROF_BASIS_COUNT
} revprof_basis;

const char *revprof_basis_name(revprof_basis b);
revprof_basis revprof_basis_lookup(const char *name); /* COUNT if unknown */
int revprof_basis_uses_p(revprof_basis b);
int revprof_basis_uses_d(revprof_basis b);
/* The group size K of a hinge max(p-K,0)[*d]; 0 for every other term. */
double revprof_basis_knot(revprof_basis b);
/* Value of one basis function at group size p and d bytes. */
double revprof_basis_eval(revprof_basis b, double p, double d);

/* ----------------------------------------------------------------- model */

/* Model files say format = "revprof-model N". revprof writes version 3 and
 * reads 1 to 3: version 2 added the point-to-point rows MPI_Wait and gap
 * (a version-1 file made by revprof has neither; they load where one has
 * them), version 3 machine.eager_limit (older files have none: standard
 * sends are then all costed as eager); any other version is refused. */
#define REVPROF_MODEL_FORMAT "revprof-model 3"
#define REVPROF_MODEL_VERSION 3        /* the N of REVPROF_MODEL_FORMAT */
#define REVPROF_MODEL_VERSION_OLDEST 1 /* the oldest N still read */
#define REVPROF_MAX_TERMS 6    /* terms in one equation */
#define REVPROF_MAX_REGIMES 12 /* message-size regimes per function */
#define REVPROF_MAX_OVERHEAD 32

/* One equation, valid for message sizes dmin <= d <= dmax (bytes). The first
 * regime of a function also covers d < dmin, the last also d > dmax. */
typedef struct revprof_regime {
  double dmin, dmax;                  /* bytes; dmax = HUGE_VAL if open */
  int nterms;                         /* 1..REVPROF_MAX_TERMS */
  revprof_basis form[REVPROF_MAX_TERMS];
  double avg[REVPROF_MAX_TERMS];      /* coefficients of the typical time */
  double err[REVPROF_MAX_TERMS];      /* standard errors of avg */
  double min[REVPROF_MAX_TERMS];      /* coefficients of the lower bound */
  double max[REVPROF_MAX_TERMS];      /* coefficients of the upper bound */
  int n;                              /* measured points fitted */
  double cv_error;                    /* cross-validated relative error, 0..;
                                         negative when not computed */
} revprof_regime;

/* The measured range of one function: the smallest and largest group size p
 * and message size d (bytes) among the points its equations were fitted to.
 * Written by 'revprof fit' as range = { p = {pmin, pmax}, d = {dmin, dmax} };
 * older models have none (known = 0: "range unknown"). */
typedef struct revprof_range {
  int known;
  double pmin, pmax, dmin, dmax;
} revprof_range;

typedef struct revprof_fnmodel {
  int nregimes; /* 0: function absent from the model */
  revprof_regime regime[REVPROF_MAX_REGIMES];
  revprof_range range;
} revprof_fnmodel;

typedef struct revprof_overhead {
  char name[32];  /* e.g. "region_enter", "mpi_wrapper", "piggyback" */
  double seconds; /* cost of one event */
} revprof_overhead;

typedef struct revprof_model {
  int format_version;     /* N of the file's "revprof-model N" (1: made
                             before the MPI_Wait and gap rows);
                             REVPROF_MODEL_VERSION when made in memory */
  char machine_name[128];
  char machine_mpi[128];  /* MPI library and version measured */
  char machine_filesystem[256]; /* where the file I/O rows were measured,
                                   e.g. "ext2/3/4 at /tmp"; "" unknown */
  char machine_date[32];  /* ISO 8601 date of the characterization */
  char machine_notes[512];
  int machine_ranks;      /* ranks used to characterize; 0 if unknown */
  double machine_compute_spread; /* machine.compute_spread: relative
                                    run-to-run spread of the same
                                    computation here, 0..0.5; < 0 unknown */
  double machine_eager_limit; /* machine.eager_limit: bytes from which an
                                 MPI_Send waits for its receive to be
                                 posted (rendezvous); INFINITY when none
                                 did up to the sizes probed ("none"); 0
                                 unknown (not measured) */
  char method[16];        /* fitting method: "default" or "paper" */
  revprof_fnmodel fn[REVPROF_FN_COUNT];
  int noverhead;
  revprof_overhead overhead[REVPROF_MAX_OVERHEAD];
} revprof_model;

enum revprof_bound { REVPROF_MIN = 0, REVPROF_AVG = 1, REVPROF_MAX = 2 };

/* Allocates an empty model (no functions). NULL when out of memory. */
revprof_model *revprof_model_alloc(void);
void revprof_model_free(revprof_model *m); /* NULL is a no-op */

/* Loads and checks a model file: a Lua chunk returning a table, run in an
 * empty sandbox (text only, no libraries). On error returns < 0 and writes a
 * message naming the file and the field (or line) to err. */
int revprof_model_load(const char *path, revprof_model **out, char *err,
                       size_t errlen);
/* Same, from a string; name is used in messages. */
int revprof_model_load_string(const char *text, const char *name,
                              revprof_model **out, char *err, size_t errlen);

/* Checks the in-memory model (sorted, contiguous regimes, finite and
 * non-negative coefficients, min <= avg <= max coefficients not required,
 * a sane range) and evaluates every regime's avg, min and max equations on a
 * grid of p and d covering the function's range and 4 times beyond it (p up
 * to 256 and d up to 64 MiB when the range is unknown), within each regime's
 * own sizes: a time that is not finite or above REVPROF_TIME_MAX seconds
 * rejects the model, naming the function, the regime and the point. name is
 * used in messages. */
#define REVPROF_TIME_MAX 1e6
int revprof_model_check(const revprof_model *m, const char *name, char *err,
                        size_t errlen);

/* Writes the model as a Lua table file; numbers round-trip exactly. The file
 * is written to path.tmp and renamed, so a failure leaves no partial file. */
int revprof_model_write(const revprof_model *m, const char *path, char *err,
                        size_t errlen);
int revprof_model_write_stream(const revprof_model *m, FILE *f);

/* Prints the model readably (equations in microseconds). */
void revprof_model_print(const revprof_model *m, FILE *f);

/* 1 when the model has an equation for fn. */
int revprof_model_has(const revprof_model *m, revprof_fn fn);

/* The row a model without fn's own row costs fn by, the same everywhere
 * (librevprof, 'revprof model eval'): I-forms as their blocking form
 * (MPI_Isend as MPI_Send, MPI_Iallreduce as MPI_Allreduce, ...), v-forms
 * as the plain one, MPI_Reduce_scatter_block as MPI_Reduce_scatter, that
 * and MPI_Scan as MPI_Allreduce, MPI_Exscan as MPI_Scan.
 * REVPROF_FN_COUNT when fn has none. Pure. */
revprof_fn revprof_fn_fallback(revprof_fn fn);

/* The row of m that costs fn: fn's own, else the first of its fallback
 * chain m has; REVPROF_FN_COUNT when none. */
revprof_fn revprof_model_row_for(const revprof_model *m, revprof_fn fn);

/* cv_error above which a regime is "low confidence" (the datasheet says
 * so, and a prediction that uses it is flagged). */
#define REVPROF_LOW_CONFIDENCE 0.2

/* Regime of fn that applies to d bytes; NULL if fn is absent. */
const revprof_regime *revprof_model_regime(const revprof_model *m,
                                           revprof_fn fn, double d);

/* Predicted time in seconds of fn for a group of p ranks and d bytes:
 * out[REVPROF_MIN] <= out[REVPROF_AVG] <= out[REVPROF_MAX], all >= 0.
 * O(1), no allocation, no string work. Returns REVPROF_ENOFUNC (and zeros)
 * if the model lacks fn. */
int revprof_model_eval(const revprof_model *m, revprof_fn fn, double p,
                       double d, double out[3]);

/* Where (p, d) lies against fn's measured range. Factors are >= 1: 1 inside
 * the range, else how far outside (p / pmax or pmin / p; for sizes
 * (d + 1) / (dmax + 1) or (dmin + 1) / (d + 1), so that 0 bytes counts).
 * Returns REVPROF_INSIDE, REVPROF_OUTSIDE, REVPROF_RANGE_UNKNOWN (factors 1)
 * or REVPROF_ENOFUNC. O(1), no allocation. Factors may be NULL. */
enum { REVPROF_INSIDE = 0, REVPROF_OUTSIDE = 1, REVPROF_RANGE_UNKNOWN = 2 };
int revprof_model_outside(const revprof_model *m, revprof_fn fn, double p,
                          double d, double *fp, double *fd);

/* revprof_model_eval plus revprof_model_outside in one call: returns
 * REVPROF_ENOFUNC, or what revprof_model_outside returns. how_far (may be
 * NULL) gets the factors in p and in d. */
int revprof_model_eval_x(const revprof_model *m, revprof_fn fn, double p,
                         double d, double out[3], double how_far[2]);

/* 1 when fm's last regime is the fit's top of the range (README, "Top of
 * the range"): fitted points but no cv_error, the form of the regime
 * below (one of d > 0) with every coefficient the same multiple of its
 * own; that multiple in *factor (may be NULL). Else 0. */
int revprof_fnmodel_top_of_range(const revprof_fnmodel *fm, double *factor);

/* "p 2..2, d 0..4194304" or "range unknown" into buf (snprintf). */
int revprof_range_format(const revprof_range *r, char *buf, size_t len);

/* Equation of one regime as text, e.g. "5.00e+01 + 2.00e+02*log2(p)" in
 * microseconds when scale = 1e6. Returns the length written (snprintf). */
int revprof_regime_format(const revprof_regime *r, int which, double scale,
                          char *buf, size_t len);

/* Value of named overhead, or fallback when absent. */
double revprof_model_overhead(const revprof_model *m, const char *name,
                              double fallback);

/* --------------------------------------------------------- raw CSV data */

/* One measured point: statistics over repetitions of the time (seconds) of
 * fn for a group of p ranks and d bytes; each repetition is the maximum over
 * the timed ranks. */
typedef struct revprof_point {
  revprof_fn fn;
  int p;
  double d;   /* bytes */
  double min, median, mean, max;
  long reps;  /* repetitions kept */
  double rse; /* relative standard error of the mean */
} revprof_point;

/* The machine a raw file was measured on: '# machine.KEY: value' comment
 * lines (KEY name, mpi, filesystem, date, ranks, eager_limit, notes) right
 * after the header line, written by characterize and read back by 'revprof
 * fit' (read anywhere; each key at most once). Empty / 0 when absent. */
typedef struct revprof_raw {
  size_t n, cap;
  revprof_point *pt;
  char machine_name[128];
  char machine_mpi[128];
  char machine_filesystem[256]; /* of the file I/O rows (--io-dir) */
  char machine_date[32];
  char machine_notes[512];
  int machine_ranks;
  double machine_eager_limit; /* as revprof_model's; 0 when absent */
} revprof_raw;

/* The CSV header line every raw file starts with. */
#define REVPROF_RAW_HEADER "function,p,bytes,min,median,mean,max,reps,rse"

/* What characterize appends to a raw file's notes (and 'revprof fit'
 * carries into the model's) while the run has not finished
 * (raw.partial.csv): "; " REVPROF_NOTES_PARTIAL "N of M points ...". */
#define REVPROF_NOTES_PARTIAL "PARTIAL: "
/* Written by revprof-characterize when its reference message took a
 * different time at the end of the run than at the start
 * (rp_char_drift): "; " REVPROF_NOTES_DRIFT "8 B one way ... (R x): ...". */
#define REVPROF_NOTES_DRIFT "DRIFT: "

/* machine.eager_limit as text: "none" (INFINITY) or a whole number of
 * bytes >= 1 (up to 2^53). revprof_eager_parse returns 0, or -1 for
 * anything else; revprof_eager_format writes what it reads back. */
int revprof_eager_parse(const char *text, double *bytes);
void revprof_eager_format(double bytes, char *buf, size_t len);

revprof_raw *revprof_raw_alloc(void);
void revprof_raw_free(revprof_raw *r); /* NULL is a no-op */
int revprof_raw_add(revprof_raw *r, const revprof_point *pt);
/* Reads a raw CSV file: header line (extra columns after the nine are
 * ignored; '#' lines are comments, '# machine.*' ones fill the machine
 * fields). Errors name the file and line: among them a '# machine.' line
 * with no ': ', an unknown or repeated key, a value too long for its field,
 * ranks that are not a whole number >= 1, an eager_limit that is neither
 * a whole number of bytes >= 1 nor "none". */
int revprof_raw_read(const char *path, revprof_raw **out, char *err,
                     size_t errlen);
/* Puts the machine raw records into m's machine fields (raw read from path,
 * which the text may name): each field raw records replaces m's, the others
 * are kept (an existing model's, for 'revprof fit --like'). A name, MPI
 * library or date still empty then says so plainly: the name "unknown
 * (fitted from PATH, which records no machine)" (or "unknown (PATH records
 * no machine.name)" when it records some fields), the others "unknown".
 * Ranks stay 0 (unknown) when neither records them. */
void revprof_model_machine_from_raw(revprof_model *m, const revprof_raw *raw,
                                    const char *path);
int revprof_raw_write(const revprof_raw *r, const char *path, char *err,
                      size_t errlen);
void revprof_raw_write_row(FILE *f, const revprof_point *pt);

/* -------------------------------------------------------------- fitting */

typedef enum revprof_method {
  REVPROF_METHOD_DEFAULT = 0, /* term search, LOO-CV, pruning, breakpoints */
  REVPROF_METHOD_PAPER = 1    /* seed 003: 12 forms, chi-squared, small/large */
} revprof_method;

typedef struct revprof_fit_options {
  revprof_method method;
  double paper_split;  /* paper: last d (bytes) of the "small" regime; 32 */
  int min_sizes;       /* default: fewest distinct d per regime; 4 (one
                          less at 3 or more group sizes: fit.c) */
  int max_regimes;     /* default: most regimes per function; 6 */
  double regime_gain;  /* default: a new regime must cut the CV error by
                          this factor (0.1 = 10 %) */
  int verbose;         /* print each function's choice to stderr */
} revprof_fit_options;

void revprof_fit_options_init(revprof_fit_options *o);
const char *revprof_method_name(revprof_method m);
int revprof_method_lookup(const char *name, revprof_method *out);

/* Fits every function present in raw and stores its regimes in model
 * (other fields of model untouched). */
int revprof_fit(const revprof_raw *raw, const revprof_fit_options *o,
                revprof_model *model, char *err, size_t errlen);

/* Fits one function from n points (all of the same fn). */
int revprof_fit_function(const revprof_point *pts, size_t n,
                         const revprof_fit_options *o, revprof_fnmodel *out,
                         char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
