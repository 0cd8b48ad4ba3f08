/* Sample mode's pure rules (after PHOTON, Vetter 2002, section 3): which
 * messages to sample (REVPROF_SAMPLE: random, counter or timer based). No
 * MPI, no clocks, no I/O. */
#ifndef RP_SAMPLE_RULE_H
#define RP_SAMPLE_RULE_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

/* ------------------------------------------------------------ techniques */

typedef enum rp_sample_kind {
  RP_SAMPLE_OFF = 0, /* no message */
  RP_SAMPLE_ALL,     /* every message */
  RP_SAMPLE_RANDOM,  /* each message with probability p */
  RP_SAMPLE_COUNTER, /* every n-th message */
  RP_SAMPLE_TIMER    /* the first message after each period */
} rp_sample_kind;

#define RP_SAMPLE_COUNTER_MAX 1000000000L /* largest counter period n */

typedef struct rp_sample_spec {
  rp_sample_kind kind;
  double p;      /* random: probability in [0, 1] */
  long n;        /* counter: every n-th message, 1 <= n <= RP_SAMPLE_COUNTER_MAX */
  double period; /* timer: seconds > 0 */
  double jitter; /* counter: J messages (whole number, 0 <= J < n); timer:
                    J seconds (0 <= J < period); 0: none */
} rp_sample_spec;

/* "off", "all", "random", "counter" or "timer" ("?" for another value). */
const char *rp_sample_kind_name(rp_sample_kind k);

/* Reads a REVPROF_SAMPLE value: "off", "all", "random:P", "counter:N",
 * "counter:N:J", "timer:S" or "timer:S:J" (lowercase, no blanks; P, S and J
 * of the timer are decimal numbers, N and J of the counter whole numbers).
 * Returns 0 and fills *out (fields a technique does not use are 0), or
 * REVPROF_EINVAL, leaves *out untouched and writes to err (may be NULL) a
 * message naming the text and what is wrong with it. */
int rp_sample_parse(const char *text, rp_sample_spec *out, char *err,
                    size_t errlen);

/* 0 when *s is a technique rp_sample_parse could have returned; else
 * REVPROF_EINVAL with a message in err (may be NULL). */
int rp_sample_check(const rp_sample_spec *s, char *err, size_t errlen);

/* The canonical text of a spec, which rp_sample_parse reads back to the
 * same spec, e.g. "counter:8:2", "timer:0.01" (numbers in the fewest
 * digits that give them back exactly). Cut to len - 1 bytes. */
void rp_sample_format(const rp_sample_spec *s, char *buf, size_t len);

/* ------------------------------------------------------------- a sampler */

/* One rank's sampling state. By value; its only allocation is the
 * generator. Read the fields, never write them. */
typedef struct rp_sampler {
  rp_sample_spec spec; /* the technique in force */
  gsl_rng *rng;        /* mt19937, seeded by rp_sample_seed; NULL when the
                          allocation failed */
  long count;          /* counter: messages since the last sample */
  long gap;            /* counter: the message (counting from 1 after the
                          last sample) that is sampled next */
  double deadline;     /* timer: host time (s) from which the next message
                          is sampled; NAN until the first message */
} rp_sampler;

/* The generator's seed for rank (>= 0) from REVPROF_SEED: a 32-bit value
 * (mt19937 uses no more), reproducible, different for every rank of one
 * seed. */
unsigned long rp_sample_seed(unsigned long seed, int rank);

/* Sets s up for spec with a generator seeded by rp_sample_seed(seed,
 * rank). Returns 0; REVPROF_EINVAL when spec fails rp_sample_check;
 * REVPROF_ENOMEM when the generator cannot be allocated. On an error s
 * samples nothing (off), and rp_sampler_free is still to be called. */
int rp_sampler_init(rp_sampler *s, const rp_sample_spec *spec,
                    unsigned long seed, int rank);

/* Frees the generator; s then samples nothing. NULL, or a second call, is a
 * no-op. */
void rp_sampler_free(rp_sampler *s);

/* One message about to leave at host time now (seconds, monotonic,
 * finite): 1 to sample it, 0 not. The hot path: a compare and an increment
 * for off, all and counter; one uniform draw for random.
 * - counter:N samples messages N, 2N, 3N, ... (counting from 1); with
 *   counter:N:J each gap is N + u, u a whole number uniform in [-J, J],
 *   the first gap (to the first sample) included: the rate stays 1/N.
 * - timer:S samples the first message at or after each deadline. The first
 *   message is never sampled: it sets the first deadline, its time + S + v;
 *   after a sample at time t the next is t + S + v (v uniform in [-J, J],
 *   drawn each time; 0 without jitter).
 * - random:P samples when a uniform draw in [0, 1) is below P. */
int rp_sampler_decide(rp_sampler *s, double now);

/* Changes the technique while running; the generator (and so the stream
 * of draws) goes on. A counter starts counting again from the next message
 * and a timer from its next message, as after init. A spec that fails
 * rp_sample_check, or one that needs draws when s has no generator, turns
 * sampling off. */
void rp_sampler_set(rp_sampler *s, const rp_sample_spec *spec);

#endif
