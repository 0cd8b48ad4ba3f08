/* Flags of a revprof report: marks of a run whose prediction degraded or
 * is partly guessed (rp_report_flag). Pure rules, no MPI: a rank's store
 * (one text per key), its serialization for the gather to rank 0, and the
 * report's merged set of distinct (key, text) pairs with rank counts. */
#ifndef RP_FLAGS_H
#define RP_FLAGS_H

#include <stddef.h>

#define RP_FLAGS_MAX 32  /* distinct keys per rank */
#define RP_FLAG_KEY 32   /* bytes of a key, with its NUL */
#define RP_FLAG_TEXT 384 /* bytes of a text, with its NUL */
#define RP_FLAG_ROWS 64  /* distinct (key, text) pairs in a report */

typedef struct rp_flag_store {
  struct {
    char key[RP_FLAG_KEY];
    char text[RP_FLAG_TEXT];
  } f[RP_FLAGS_MAX];
  int n;
  int lost; /* set calls refused: store full */
} rp_flag_store;

/* Sets key's text (replacing an earlier one). The key is made lowercase,
 * characters other than [a-z0-9-] become '-', and it is cut to
 * RP_FLAG_KEY - 1 bytes; the text is cut to RP_FLAG_TEXT - 1 bytes and
 * newlines and tabs become spaces (one line, one CSV field). Returns 0,
 * REVPROF_EINVAL for an empty or NULL key, REVPROF_ERANGE for a full store
 * (counted in lost). */
int rp_flag_store_set(rp_flag_store *s, const char *key, const char *text);

/* The store as "key\ttext\n" lines into out (cap bytes, NUL-terminated,
 * whole lines only). Returns the length written. */
size_t rp_flag_store_lines(const rp_flag_store *s, char *out, size_t cap);

/* A report's flags: distinct (key, text) pairs, pointing into storage that
 * outlives the set, each with the number of ranks that set it. */
typedef struct rp_flag_set {
  struct {
    const char *key, *text;
    int ranks;
  } row[RP_FLAG_ROWS];
  int n;
  int lost;   /* pairs not kept: set full */
  int nranks; /* ranks of the report ([K of N ranks]); 0: one rank's own */
} rp_flag_set;

/* Adds ranks to the pair (key, text), new rows in order of arrival. */
void rp_flag_set_add(rp_flag_set *fs, const char *key, const char *text,
                     int ranks);

/* Adds every "key\ttext\n" line of lines (changed in place: the set points
 * into it), one rank each; lines without a tab or a final newline are
 * skipped. */
void rp_flag_set_parse(rp_flag_set *fs, char *lines);

/* The set's distinct keys, in order, joined by ';' into out (cap bytes,
 * NUL-terminated; keys that do not fit whole are left out). */
void rp_flag_set_keys(const rp_flag_set *fs, char *out, size_t cap);

/* ------------------------------------------------------ the host's MPI */

/* The family of an MPI library version text (MPI_Get_library_version, or a
 * model's machine.mpi): "Open MPI", "MVAPICH", "Intel MPI", "SimGrid SMPI"
 * or "MPICH"; NULL when the text names none of them ("none", "", NULL). */
const char *rp_mpi_family(const char *version);

/* The "oversubscribed" flag's text, when ranks processes of the job share
 * cores CPUs of host (the union of their affinity masks): 1 and out filled
 * when ranks > cores >= 1, else 0 and out empty. Cut to cap - 1 bytes.
 * measured: what it means for a mode that reports host times (compensate
 * and sample mode: the ranks' waits for a core are in them), not for a
 * prediction (0: a core per rank, measured in CPU time). */
int rp_oversub_text(char *out, size_t cap, int ranks, int cores,
                    const char *host, int measured);

/* The host's load over a run, from Linux's /proc (parsed here, read in
 * rp_engine.c). rp_schedstat_wait: the second field of a
 * /proc/self/task/TID/schedstat line, the nanoseconds the thread was runnable
 * but waited for a core, in seconds; -1 when line is not of that form.
 * rp_stat_steal: from /proc/stat's "cpu " line, the ticks (of ticks_per_s)
 * that the hypervisor gave to other machines, in seconds summed over the
 * host's CPUs; 0 when the kernel has no steal field, -1 when line is not a
 * "cpu " line. */
double rp_schedstat_wait(const char *line);
double rp_stat_steal(const char *line, double ticks_per_s);

/* A rank's share of a run spent waiting for a core held by another process
 * (or given by the hypervisor to another machine) from which the run gets
 * the "host-busy" flag: 5 % (proxy apps alone on the 2-core VM: no flag;
 * beside two busy loops: 51 %). And
 * the least such time that counts: 10 ms, a few of the scheduler's time
 * slices (a run of a few milliseconds waits a slice of the launcher's now
 * and then: 7 % of a Fortran ping-pong's run on the quiet VM). */
#define RP_BUSY_SHARE 0.05
#define RP_BUSY_MIN_S 0.01

/* The share of wall seconds that seconds of waiting make, 0 when they are
 * under RP_BUSY_MIN_S (or wall is not positive). */
double rp_busy_share(double seconds, double wall);

/* The "host-busy" flag's text over a run of wall seconds: wait, the
 * seconds the rank waited for a core (the most over the job's ranks), and
 * steal, the seconds per CPU that the hypervisor took (the most over the
 * job's hosts). 1 and out filled when either is at least RP_BUSY_SHARE of
 * wall, else 0 and out empty. Cut to cap - 1 bytes. measured as in
 * rp_oversub_text. */
int rp_busy_text(char *out, size_t cap, double wait, double steal,
                 double wall, int measured);

/* The report's host line: "HOST | MPI" from the host name and the first
 * line of the host's MPI version text, its blanks (tabs, runs of spaces)
 * made one space. When the model was characterized with another MPI family
 * than the host's, a note follows saying that the times are the model's
 * MPI's, e.g. "node1 | MPICH Version: 4.0.2 (the model was characterized
 * with Open MPI: the times predicted are that MPI's, not this one's)".
 * Cut to cap - 1 bytes. Returns 1 when the note was added, else 0. */
int rp_host_line(char *out, size_t cap, const char *hostname,
                 const char *mpi_version, const char *model_mpi);

/* MPICH 4.0 leaks the datatype of a receive that is cancelled when the type
 * is not contiguous, and says so at MPI_Finalize in one stderr line,
 * "[WARNING] yaksa: N leaked handle pool objects". revprof receives large
 * messages with a struct type of its own, so it causes `ours` of them
 * (rp_p2p_leaked). Writes to out the line the program alone would have
 * printed: a line of that form with N - ours objects, none (out = "") when
 * that is 0 or less, any other line unchanged. Returns 1 when line was of
 * that form, else 0. */
int rp_leak_line(char *out, size_t cap, const char *line, long ours);

#endif
