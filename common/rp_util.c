/* mkdir -p, running a program, growing an array (rp_util.h): written once
 * here for the tools, the characterization program and librevprof. */
#include "rp_util.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* ------------------------------------------------- libraries of a program */

/* The file offset of virtual address v in a PT_LOAD segment, or -1. */
static long elf_offset(const unsigned char *b, size_t n, const Elf64_Ehdr *eh,
                       uint64_t v) {
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, b + eh->e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && v >= ph.p_vaddr &&
        v - ph.p_vaddr < ph.p_filesz && ph.p_offset <= n &&
        v - ph.p_vaddr < n - ph.p_offset)
      return (long)(ph.p_offset + (v - ph.p_vaddr));
  }
  return -1;
}

static int elf_needed_in(const unsigned char *b, size_t n,
                         int (*each)(const char *, void *), void *arg) {
  Elf64_Ehdr eh;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const int order = ELFDATA2LSB;
#else
  const int order = ELFDATA2MSB;
#endif
  if (n < sizeof eh)
    return -1;
  memcpy(&eh, b, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != order ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > n ||
      eh.e_phnum > (n - eh.e_phoff) / sizeof(Elf64_Phdr))
    return -1;
  Elf64_Phdr dyn = {0};
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, b + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_DYNAMIC)
      dyn = ph;
  }
  if (dyn.p_type != PT_DYNAMIC)
    return 0; /* linked statically */
  if (dyn.p_offset > n || dyn.p_filesz > n - dyn.p_offset)
    return -1;
  size_t ndyn = dyn.p_filesz / sizeof(Elf64_Dyn);
  uint64_t strtab = 0, strsz = 0;
  for (size_t i = 0; i < ndyn; i++) {
    Elf64_Dyn d;
    memcpy(&d, b + dyn.p_offset + i * sizeof d, sizeof d);
    if (d.d_tag == DT_NULL)
      break;
    if (d.d_tag == DT_STRTAB)
      strtab = d.d_un.d_ptr;
    else if (d.d_tag == DT_STRSZ)
      strsz = d.d_un.d_val;
  }
  long off = elf_offset(b, n, &eh, strtab);
  if (off < 0 || strsz > n - (size_t)off)
    return -1;
  const char *str = (const char *)b + off;
  int count = 0;
  for (size_t i = 0; i < ndyn; i++) {
    Elf64_Dyn d;
    memcpy(&d, b + dyn.p_offset + i * sizeof d, sizeof d);
    if (d.d_tag == DT_NULL)
      break;
    if (d.d_tag != DT_NEEDED)
      continue;
    if (d.d_un.d_val >= strsz ||
        memchr(str + d.d_un.d_val, '\0', strsz - d.d_un.d_val) == NULL)
      return -1;
    count++;
    if (each && each(str + d.d_un.d_val, arg) != 0)
      break;
  }
  return count;
}

int rp_elf_needed(const char *path, int (*each)(const char *name, void *arg),
                  void *arg) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) {
    close(fd);
    return -1;
  }
  size_t n = (size_t)sb.st_size;
  void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED)
    return -1;
  int count = elf_needed_in(m, n, each, arg);
  munmap(m, n);
  return count;
}

const char *rp_mpi_of_soname(const char *so) {
  static const struct {
    const char *prefix, *family;
  } known[] = {
      {"libmpi.so.40", "Open MPI"},  {"libmpi.so.20", "Open MPI"},
      {"libmpi_mpifh.so", "Open MPI"}, {"libmpi_usempi", "Open MPI"},
      {"libmpi_cxx.so", "Open MPI"}, {"libopen-rte.so", "Open MPI"},
      {"libopen-pal.so", "Open MPI"}, {"libmpich", "MPICH"},
      {"libmpi.so.12", "MPICH"},     {"libmpifort.so.12", "MPICH"},
      {"libmpicxx.so.12", "MPICH"},
  };
  for (size_t i = 0; so && i < sizeof known / sizeof *known; i++)
    if (strncmp(so, known[i].prefix, strlen(known[i].prefix)) == 0)
      return known[i].family;
  return NULL;
}
