/* Datasheet generator: a LaTeX document with one section per MPI function
 * (equations in microseconds with errors, regime limits, fit quality), a CSV
 * of all equations and gnuplot figures of measured points and fitted curves. */
#ifndef RP_DATASHEET_H
#define RP_DATASHEET_H

#include <stddef.h>

#include "revprof_model.h"

typedef struct rp_datasheet_options {
  int pdf;     /* 1: run pdflatex when it is installed (default 1) */
  int figures; /* 1: run gnuplot for the figures when installed (default 1) */
  int verbose; /* 1: say what is written, on stderr */
} rp_datasheet_options;

void rp_datasheet_options_init(rp_datasheet_options *o);

/* Writes into dir (created if missing): datasheet.tex, equations.csv,
 * fig/<function>.gp (+ .pdf/.png when gnuplot ran), and datasheet.pdf when
 * pdflatex ran. raw may be NULL (figures then show the fitted curves only).
 * Files are written under temporary names and renamed when complete.
 * Returns 0 or a negative REVPROF_E* code with a message in err. A missing
 * gnuplot or pdflatex is not an error: *pdf_path is set to "" then. */
int rp_datasheet_write(const revprof_model *m, const revprof_raw *raw,
                       const char *dir, const rp_datasheet_options *o,
                       char *pdf_path, size_t pdf_len, char *err,
                       size_t errlen);

#endif
