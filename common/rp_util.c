/* mkdir -p, running a program, growing an array (rp_util.h): written once
 * here for the tools, the characterization program and librevprof. */
#include "rp_util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define GROW_MIN 16 /* elements of a first allocation */

/* ---------------------------------------------------------------- mkdir -p */

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int rp_mkdir_p_at(const char *dir, size_t *fail_len) {
  char p[RP_UTIL_PATH_MAX];
  size_t n = strlen(dir), i = 0;
  if (n == 0) {
    errno = ENOENT;
    goto fail;
  }
  if (n >= sizeof p) {
    errno = ENAMETOOLONG;
    goto fail;
  }
  memcpy(p, dir, n + 1);
  while (n > 1 && p[n - 1] == '/') /* "a/b/" is "a/b" */
    p[--n] = '\0';
  for (i = 1; i <= n; i++) {
    if ((p[i] != '/' && p[i] != '\0') || p[i - 1] == '/')
      continue; /* inside a name, or "a//b" */
    char c = p[i];
    p[i] = '\0';
    if (mkdir(p, 0777) != 0) {
      if (errno != EEXIST)
        goto fail;
      /* a parent that is no directory fails at the next name (ENOTDIR) */
      if (i == n && !is_dir(p)) {
        errno = EEXIST;
        goto fail;
      }
    }
    p[i] = c;
  }
  return 0;
fail:
  *fail_len = i;
  return -1;
}

int rp_write_whole(const char *path, const void *b, size_t n) {
  char tmp[RP_UTIL_PATH_MAX];
  size_t pl = strlen(path);
  if (pl + 5 > sizeof tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(tmp, path, pl);
  memcpy(tmp + pl, ".tmp", 5);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  const char *p = b;
  size_t off = 0;
  int err = 0;
  while (off < n) {
    ssize_t k = write(fd, p + off, n - off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      err = k < 0 ? errno : EIO;
      break;
    }
    off += (size_t)k;
  }
  if (close(fd) != 0 && err == 0)
    err = errno;
  if (err == 0 && rename(tmp, path) != 0)
    err = errno;
  if (err != 0) {
    unlink(tmp);
    errno = err;
    return -1;
  }
  return 0;
}

int rp_mkdir_p(const char *dir) {
  size_t ignored;
  return rp_mkdir_p_at(dir, &ignored);
}

int rp_edits(const char *a, const char *b, int nocase) {
  size_t n = strlen(a), m = strlen(b);
  int row[64];
  if (n > 63 || m > 63)
    return 99;
  for (size_t j = 0; j <= m; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      unsigned char x = (unsigned char)a[i - 1], y = (unsigned char)b[j - 1];
      int same = nocase ? tolower(x) == tolower(y) : x == y;
      int up = row[j], best = diag + !same;
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[m];
}

int rp_parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return end != s && *end == '\0' && errno == 0 && isfinite(*out);
}

/* ------------------------------------------------------- running programs */

int rp_spawn_wait(char *const argv[], const char *cwd, int in, int out,
                  int err) {
  fflush(stdout); /* the parent's output first, then the child's */
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) { /* child: only async-signal-safe calls until exec */
    if ((cwd && chdir(cwd) != 0) || (in >= 0 && dup2(in, 0) < 0) ||
        (out >= 0 && dup2(out, 1) < 0) || (err >= 0 && dup2(err, 2) < 0))
      _exit(126);
    execvp(argv[0], argv);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  errno = ECHILD; /* neither exited nor killed: waitpid(0) never says so */
  return -1;
}

/* -------------------------------------------------------- growable arrays */

void *rp_grow(void *p, size_t *cap, size_t need, size_t elem) {
  if (p != NULL && need <= *cap)
    return p;
  size_t nc = *cap ? *cap : GROW_MIN;
  while (nc < need && nc <= SIZE_MAX / 2)
    nc *= 2;
  void *q = NULL;
  if (nc >= need && elem > 0 && nc <= SIZE_MAX / elem)
    q = realloc(p, nc * elem);
  if (q == NULL) {
    errno = ENOMEM; /* the size overflows, or no memory */
    return NULL;
  }
  *cap = nc;
  return q;
}

void *rp_vec_push(rp_vec *v) {
  void *p = rp_grow(v->p, &v->cap, v->n + 1, v->elt);
  if (p == NULL)
    return NULL;
  v->p = p;
  return (char *)p + v->elt * v->n++;
}
