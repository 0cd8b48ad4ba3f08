/* Least-squares fitting of per-function equations (GSL): seed 003's paper
 * method and the default method (term search, LOO-CV, breakpoints). */
#include "model_int.h"

#include <string.h>

void revprof_fit_options_init(revprof_fit_options *o) {
  memset(o, 0, sizeof *o);
  o->method = REVPROF_METHOD_DEFAULT;
  o->paper_split = 32.0;
  o->min_sizes = 4;
  o->max_regimes = 6;
  o->regime_gain = 0.1;
}

const char *revprof_method_name(revprof_method m) {
  return m == REVPROF_METHOD_PAPER ? "paper" : "default";
}

int revprof_method_lookup(const char *name, revprof_method *out) {
  if (strcmp(name, "default") == 0)
    *out = REVPROF_METHOD_DEFAULT;
  else if (strcmp(name, "paper") == 0)
    *out = REVPROF_METHOD_PAPER;
  else
    return REVPROF_EINVAL;
  return 0;
}

int revprof_fit_function(const revprof_point *pts, size_t n,
                         const revprof_fit_options *o, revprof_fnmodel *out,
                         char *err, size_t errlen) {
  (void)pts; (void)n; (void)o; (void)out;
  rp_errf(err, errlen, "fitting not implemented yet");
  return REVPROF_EFIT;
}

int revprof_fit(const revprof_raw *raw, const revprof_fit_options *o,
                revprof_model *model, char *err, size_t errlen) {
  (void)raw; (void)o; (void)model;
  rp_errf(err, errlen, "fitting not implemented yet");
  return REVPROF_EFIT;
}
