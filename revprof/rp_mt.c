/* MPI_THREAD_MULTIPLE: one simulated clock per process, shared by its
 * threads. One lock guards the engine (rp_g, the request table, the model
 * memo, the type cache, the trace): a wrapper holds it from rp_enter to
 * rp_leave except around the MPI calls that may wait (RP_UNLOCKED), so a
 * thread blocked in MPI_Recv never stops another from sending what it waits
 * for. What belongs to one call (entry clock, bytes, the blocking records)
 * is per thread (rp_t, rp_thr).
 *
 * The clock takes the threads' calls in the order the host ran them. When
 * calls of two threads overlap in host time that order is the host's, not
 * the predicted machine's: such calls are counted here and named in the
 * report's "thread-order" flag. Compensate mode profiles the thread that
 * initialized MPI; its report counts the calls of the others
 * (rp_g.other_calls). */
#include "rp_state.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Blocks of threads that ended, for the next new thread: a program that
 * starts a thread per task (MPICH's threads/pt2pt/alltoall: 10000) keeps as
 * many blocks as it has threads at once. */
static rp_thr *spare;
/* what makes and frees a thread's block (the point-to-point layer's,
   registered at its start-up) */
static void (*thr_init)(rp_thr *), (*thr_free)(rp_thr *);
static pthread_key_t thread_key;
static int have_key;

void rp_mt_lock(void) {
  pthread_mutex_lock(&lock);
  rp_t.held = 1;
}

void rp_mt_unlock(void) {
  rp_t.held = 0;
  pthread_mutex_unlock(&lock);
}

/* A thread that called MPI ended: its block goes to the spares (after
 * MPI_Finalize, when the blocks are freed, there is nothing to do). */
static void thread_ended(void *v) {
  rp_thr *t = v;
  pthread_mutex_lock(&lock);
  if (rp_g.active) {
    rp_thr **pp = &rp_g.threads;
    while (*pp && *pp != t)
      pp = &(*pp)->next;
    if (*pp) {
      *pp = t->next;
      t->next = spare;
      spare = t;
    }
  }
  pthread_mutex_unlock(&lock);
}

/* Every process runs alike (the collectives that fold their clocks into
 * the application's call must be chosen the same way everywhere): the
 * clocks are shared by threads where any process has
 * MPI_THREAD_MULTIPLE. */
void rp_mt_startup(int provided) {
  int mine = provided == MPI_THREAD_MULTIPLE, any = mine;
  PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, rp_g.world);
  rp_t.main = 1;
  rp_g.inflight = 0;
  rp_g.other_calls = 0.0;
  for (int i = 0; i < RP_W_COUNT; i++)
    rp_g.overlap[i] = 0.0;
  rp_g.mt = any;
  if (any && !have_key)
    have_key = pthread_key_create(&thread_key, thread_ended) == 0;
}

/* A thread's first call: its own blocking records (a spare block, else a
 * new one). Out of memory, it shares the main thread's (a race the report
 * names). */
static void thread_records(void) {
  rp_thr *t = spare;
  if (t != NULL) {
    spare = t->next;
    t->next = rp_g.threads;
    rp_g.threads = t;
    rp_t.th = t;
    if (have_key)
      pthread_setspecific(thread_key, t);
    return;
  }
  t = malloc(sizeof *t);
  if (t == NULL) {
    rp_report_flag("thread-memory",
                   "no memory for a thread's records: threads share them, "
                   "messages sent at once by two threads may mix");
    rp_t.th = &rp_g.th0;
    return;
  }
  thr_init(t);
  t->next = rp_g.threads;
  rp_g.threads = t;
  rp_t.th = t;
  if (have_key)
    pthread_setspecific(thread_key, t);
}

void rp_mt_thread_hooks(void (*init)(rp_thr *), void (*fini)(rp_thr *)) {
  thr_init = init;
  thr_free = fini;
}

void rp_mt_enter(rp_wid w) {
  rp_mt_lock();
  if (RP_UNLIKELY(rp_t.th == NULL) && !rp_t.main)
    thread_records();
  rp_t.alone = rp_g.inflight == 0;
  if (!rp_t.alone)
    rp_g.overlap[w] += 1.0;
  rp_g.inflight++;
  if (!rp_t.main)
    rp_g.other_calls += 1.0;
}

void rp_mt_leave(void) {
  rp_g.inflight--;
  if (rp_t.held)
    rp_mt_unlock();
}

/* Every rank (collective): the counts summed over the ranks, so that all
 * say the same and the report shows one line. */
void rp_mt_report(void) {
  if (!rp_g.mt)
    return;
  PMPI_Allreduce(MPI_IN_PLACE, rp_g.overlap, RP_W_COUNT, MPI_DOUBLE, MPI_SUM,
                 rp_g.world);
  char list[700] = "";
  size_t used = 0;
  int shown = 0, more = 0;
  double total = 0.0;
  for (int i = 0; i < RP_W_COUNT; i++)
    total += rp_g.overlap[i];
  /* the functions by count, most first (a few of them) */
  unsigned char done[RP_W_COUNT] = {0};
  while (total > 0.0) {
    int best = -1;
    for (int i = 0; i < RP_W_COUNT; i++)
      if (!done[i] && rp_g.overlap[i] > 0.0 &&
          (best < 0 || rp_g.overlap[i] > rp_g.overlap[best]))
        best = i;
    if (best < 0)
      break;
    done[best] = 1;
    if (shown == 6) {
      more++;
      continue;
    }
    int n = snprintf(list + used, sizeof list - used, "%s%s %.0f",
                     shown ? ", " : "", rp_wrap_name[best],
                     rp_g.overlap[best]);
    if (n > 0 && (size_t)n < sizeof list - used)
      used += (size_t)n;
    shown++;
  }
  if (more)
    snprintf(list + used, sizeof list - used, ", %d more", more);
  if (total > 0.0)
    rp_report_flag("thread-order",
                   "MPI_THREAD_MULTIPLE: %.0f MPI calls (all ranks) began "
                   "while another thread of their process was inside one "
                   "(%s); the one clock per process takes them in the "
                   "host's order, so the prediction depends on how the host "
                   "ran the threads",
                   total, list);
}

void rp_mt_shutdown(void) {
  rp_thr **lists[2] = {&rp_g.threads, &spare};
  for (int i = 0; i < 2; i++)
    while (*lists[i]) {
      rp_thr *t = *lists[i];
      *lists[i] = t->next;
      thr_free(t); /* registered before any block existed */
      free(t);
    }
}
