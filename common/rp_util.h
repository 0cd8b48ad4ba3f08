/* Small POSIX helpers shared by every part of revprof: mkdir -p, running a
 * program and waiting for it, growing an array. libc only (no MPI, Lua or
 * GSL); linked statically with hidden symbols, so never exported. They fail
 * as the POSIX calls they wrap do, with -1 (or NULL) and errno set, not
 * with REVPROF_E* codes: errno says more than a code would (callers print
 * strerror(errno)), and common/ stays below the model library. */
#ifndef RP_UTIL_H
#define RP_UTIL_H

#include <stddef.h>

/* Longest path rp_mkdir_p takes, terminating '\0' included. */
#define RP_UTIL_PATH_MAX 4096

/* mkdir -p: creates dir and its missing parents (mode 0777 less the
 * umask); an existing directory is fine, an existing non-directory fails
 * with EEXIST. Returns 0, or -1 with errno set (ENAMETOOLONG when dir has
 * RP_UTIL_PATH_MAX bytes or more). Async-signal-safe: no malloc, no stdio. */
int rp_mkdir_p(const char *dir);

/* Writes the n bytes at b as the whole of file path, or leaves path as it
 * was: through path.tmp, renamed over it once written and closed (a run
 * killed meanwhile leaves at most the .tmp, removed on failure). Returns
 * 0, or -1 with errno set (ENAMETOOLONG when path has RP_UTIL_PATH_MAX - 4
 * bytes or more). Async-signal-safe: no malloc, no stdio (partial reports
 * from signal handlers). */
int rp_write_whole(const char *path, const void *b, size_t n);

/* rp_mkdir_p that also says where it failed: on -1, *fail_len is the
 * length of the leading part of dir that could not be created
 * (strlen(dir) without trailing slashes when it is dir itself; 0 when
 * nothing was tried). */
int rp_mkdir_p_at(const char *dir, size_t *fail_len);

/* Runs argv (argv[0] looked up in PATH when it has no '/') and waits for
 * it. The child runs in cwd (NULL: the parent's directory) with in, out
 * and err as its stdin, stdout and stderr (-1: the parent's); the caller
 * keeps and closes those descriptors (open them O_CLOEXEC). stdout and
 * stderr are flushed first. Returns the exit status (0..255; 128 + signal
 * number when killed; 126 when the child could not enter cwd or take the
 * descriptors, 127 when argv[0] could not be executed), or -1 with errno
 * set when no child could be started or waited for. */
int rp_spawn_wait(char *const argv[], const char *cwd, int in, int out,
                  int err);

/* Edits (insertions, deletions, substitutions) that turn a into b, for
 * names up to 63 bytes (99 when either is longer); nocase: letters that
 * differ only in case are equal. For "did you mean" hints. */
int rp_edits(const char *a, const char *b, int nocase);

/* A finite number with nothing after it (strtod, no overflow): 1 with
 * *out, else 0. */
int rp_parse_double(const char *s, double *out);

/* Room for at least need elements of elem bytes in p (realloc'ed; NULL
 * allocates), which holds *cap elements now: the capacity doubles (from
 * 16) until need fits, so n appends cost O(n). Returns the buffer, p itself
 * when need <= *cap, and sets *cap. NULL with errno = ENOMEM when the size
 * overflows or memory runs out: then p and *cap are unchanged and p is
 * still the caller's to free. At least one element is always allocated,
 * so NULL means failure. Typical use:
 *   T *np = rp_grow(a->p, &a->cap, a->n + 1, sizeof *np);
 *   if (np == NULL) return error;
 *   a->p = np; */
void *rp_grow(void *p, size_t *cap, size_t need, size_t elem);

/* A growable array of elements of elt bytes, grown by rp_grow; empty is
 * {NULL, 0, 0, sizeof(T)}, and free(v.p) frees it. */
typedef struct rp_vec {
  void *p;     /* n elements, room for cap */
  size_t n, cap;
  size_t elt;  /* bytes per element */
} rp_vec;

/* Appends one element and returns it (its bytes unset); NULL with errno =
 * ENOMEM when out of memory, the array unchanged. */
void *rp_vec_push(rp_vec *v);

/* The shared libraries an ELF file names itself (its DT_NEEDED entries, not
 * theirs): each(name, arg) for each, in order, while it returns 0. Returns
 * how many were seen, or -1 when path is not a readable 64-bit ELF file of
 * this machine's byte order, or its dynamic section is out of bounds (a
 * script, a 32-bit program). A statically linked program names none. */
int rp_elf_needed(const char *path, int (*each)(const char *name, void *arg),
                  void *arg);

/* The MPI family a shared library's name belongs to ("Open MPI" or
 * "MPICH", whose ABI Intel MPI and MVAPICH share), or NULL when it is not
 * an MPI library of theirs. */
const char *rp_mpi_of_soname(const char *soname);

#endif
