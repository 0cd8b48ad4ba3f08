/* Files written whole or not at all: write NAME.tmp, rename when complete.
 * Kept free of Lua and GSL so the SimGrid build of characterize can use it. */
#include "model_int.h"

#include <errno.h>
#include <string.h>

FILE *rp_open_tmp(const char *path, char *tmp, size_t tmplen, char *err,
                  size_t errlen) {
  snprintf(tmp, tmplen, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (f == NULL)
    rp_errf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

int rp_commit_file(FILE *f, const char *tmp, const char *path, int ok,
                   char *err, size_t errlen) {
  int bad = ferror(f);
  if (fclose(f) != 0)
    bad = 1;
  if (!ok || bad) {
    remove(tmp);
    if (bad)
      rp_errf(err, errlen, "%s: write failed: %s", path, strerror(errno));
    return REVPROF_EIO;
  }
  if (rename(tmp, path) != 0) {
    rp_errf(err, errlen, "%s: cannot rename from %s: %s", path, tmp,
            strerror(errno));
    remove(tmp);
    return REVPROF_EIO;
  }
  return 0;
}
