/* Placeholder until the datasheet generator lands. */
#include "rp_datasheet.h"

#include <stdio.h>
#include <string.h>

void rp_datasheet_options_init(rp_datasheet_options *o) {
  memset(o, 0, sizeof *o);
  o->pdf = 1;
  o->figures = 1;
}

int rp_datasheet_write(const revprof_model *m, const revprof_raw *raw,
                       const char *dir, const rp_datasheet_options *o,
                       char *pdf_path, size_t pdf_len, char *err,
                       size_t errlen) {
  (void)m; (void)raw; (void)dir; (void)o;
  if (pdf_path && pdf_len) pdf_path[0] = '\0';
  snprintf(err, errlen, "datasheet not implemented yet");
  return REVPROF_EINVAL;
}
