/* Process and file helpers shared by the revprof subcommands (on top of
 * common/rp_util.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "revprof_model.h" /* REVPROF_E* */
#include "rp_tools.h"
#include "rp_util.h"

static int is_exe(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
         access(path, X_OK) == 0;
}

int rp_find_program(const char *env, const char *name, char *buf,
                    size_t len) {
  const char *v = env ? getenv(env) : NULL;
  if (v && *v)
    name = v;
  if (strchr(name, '/')) {
    snprintf(buf, len, "%s", name);
    return is_exe(buf) ? 0 : REVPROF_EMISSING;
  }
  for (const char *p = getenv("PATH"); p && *p;) {
    const char *colon = strchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    int w = snprintf(buf, len, "%.*s/%s", (int)n, n ? p : ".", name);
    if (w > 0 && (size_t)w < len && is_exe(buf))
      return 0;
    p = colon ? colon + 1 : NULL;
  }
  buf[0] = '\0';
  return REVPROF_EMISSING;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int rp_spawn(char *const argv[], const char *out, int err_to_out,
             double *seconds) {
  int fd = -1;
  if (out && (fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        0666)) < 0) {
    fprintf(stderr, "revprof: %s: %s\n", out, strerror(errno));
    return REVPROF_EIO;
  }
  double t0 = now();
  int st = rp_spawn_wait(argv, NULL, -1, fd, err_to_out ? fd : -1);
  int e = errno;
  if (fd >= 0)
    close(fd);
  if (st < 0) {
    fprintf(stderr, "revprof: cannot start %s: %s\n", argv[0], strerror(e));
    return REVPROF_ESPAWN;
  }
  if (seconds)
    *seconds = now() - t0;
  if (st == 127)
    fprintf(stderr, "revprof: cannot run %s\n", argv[0]);
  return st;
}

/* Path of librevprof.so: $REVPROF_LIB, else the build tree's (next to this
 * binary), else the installed one. */
int rp_find_revprof_lib(char *buf, size_t len) {
  const char *env = getenv("REVPROF_LIB");
  char self[2048];
  if (env && *env) {
    snprintf(buf, len, "%s", env);
    return access(buf, R_OK) == 0 ? 0 : REVPROF_EMISSING;
  }
  if (RP_BUILD_LIB[0]) {
    snprintf(buf, len, "%s", RP_BUILD_LIB);
    if (access(buf, R_OK) == 0)
      return 0;
  }
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      static const char *const rel[] = {"../revprof/librevprof.so",
                                        "../lib/librevprof.so",
                                        "../lib64/librevprof.so", NULL};
      *slash = '\0';
      for (int i = 0; rel[i]; i++) {
        snprintf(buf, len, "%s/%s", self, rel[i]);
        if (access(buf, R_OK) == 0)
          return 0;
      }
    }
  }
  snprintf(buf, len, "%s/librevprof.so", RP_LIBDIR);
  return access(buf, R_OK) == 0 ? 0 : REVPROF_EMISSING;
}

int rp_find_libexec(const char *env, const char *name, char *buf,
                    size_t len) {
  const char *v = getenv(env);
  char self[PATH_MAX / 2];
  if (v && *v) {
    snprintf(buf, len, "%s", v);
    return access(buf, X_OK) == 0 ? 0 : REVPROF_EMISSING;
  }
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = '\0';
      snprintf(buf, len, "%s/../characterize/%s", self, name);
      if (access(buf, X_OK) == 0)
        return 0;
      snprintf(buf, len, "%s/../libexec/revprof/%s", self, name);
      if (access(buf, X_OK) == 0)
        return 0;
    }
  }
  snprintf(buf, len, "%s/%s", RP_LIBEXECDIR, name);
  return access(buf, X_OK) == 0 ? 0 : REVPROF_EMISSING;
}
