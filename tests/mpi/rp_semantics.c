/* MPI semantics under librevprof: exercises what the piggyback must keep
 * (wildcards, probes, counts and elements, MPI_STATUS_IGNORE, MPI_PROC_NULL,
 * zero bytes, derived and large messages, every completion call, persistent
 * and cancelled requests, ordering, Sendrecv, send modes, collectives,
 * communicators) and prints what it observed, rank by rank. The same source
 * runs natively and under revprof; the outputs must be identical. Any check
 * that fails prints FAIL and makes the exit status 1. 2 ranks or more. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* MPICH's MPI_STATUSES_IGNORE is the pointer (MPI_Status *)1, which GCC 12
 * takes for an empty array; passing it is the point of some checks here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static int rank, size, failures;
static char *logbuf;
static size_t loglen, logcap;

static void say(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n >= sizeof line)
    n = sizeof line - 1;
  if (loglen + (size_t)n + 2 > logcap) {
    logcap = 2 * logcap + (size_t)n + 4096;
    logbuf = realloc(logbuf, logcap);
  }
  memcpy(logbuf + loglen, line, (size_t)n);
  loglen += (size_t)n;
  logbuf[loglen++] = '\n';
}

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      say("FAIL line %d: %s", __LINE__, #cond);                                \
      say(__VA_ARGS__);                                                        \
    }                                                                          \
  } while (0)

static unsigned long fnv(const void *p, size_t n) {
  const unsigned char *b = p;
  unsigned long h = 1469598103934665603ul;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ul;
  return h;
}

static int count_of(const MPI_Status *st, MPI_Datatype t) {
  int n;
  MPI_Get_count(st, t, &n);
  return n;
}

static int elements_of(const MPI_Status *st, MPI_Datatype t) {
  int n;
  MPI_Get_elements(st, t, &n);
  return n;
}

static void status_line(const char *what, const MPI_Status *st,
                        MPI_Datatype t) {
  say("%s: source %d tag %d count %d elements %d bytes %d", what,
      st->MPI_SOURCE, st->MPI_TAG, count_of(st, t), elements_of(st, t),
      count_of(st, MPI_BYTE));
}

static int *iota(int n, int base) {
  int *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
  for (int i = 0; i < n; i++)
    a[i] = base + i;
  return a;
}

/* ------------------------------------------------------------- sections */

static void basic(void) {
  int buf[20];
  MPI_Status st;
  if (rank == 0) {
    int *a = iota(10, 1000);
    MPI_Send(a, 10, MPI_INT, 1, 11, MPI_COMM_WORLD);
    free(a);
  } else if (rank == 1) {
    for (int i = 0; i < 20; i++)
      buf[i] = -1;
    st.MPI_ERROR = 4242; /* single-completion calls leave it alone */
    MPI_Recv(buf, 20, MPI_INT, 0, 11, MPI_COMM_WORLD, &st);
    status_line("basic", &st, MPI_INT);
    say("basic: as doubles %d, error field %d, data %lx", count_of(&st, MPI_DOUBLE),
        st.MPI_ERROR, fnv(buf, sizeof buf));
    CHECK(count_of(&st, MPI_INT) == 10 && buf[9] == 1009 && buf[10] == -1,
          "basic count %d", count_of(&st, MPI_INT));
  }
}

static int cmp_int3(const void *a, const void *b) {
  return memcmp(a, b, 3 * sizeof(int));
}

static void wildcards(void) {
  if (rank == 0) {
    int (*seen)[3] = calloc((size_t)size, sizeof *seen);
    for (int k = 1; k < size; k++) {
      int buf[64];
      MPI_Status st;
      MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &st);
      seen[k - 1][0] = st.MPI_SOURCE;
      seen[k - 1][1] = st.MPI_TAG;
      seen[k - 1][2] = count_of(&st, MPI_INT);
      CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE &&
                seen[k - 1][2] == st.MPI_SOURCE && buf[0] == st.MPI_SOURCE,
            "wildcard from %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    }
    qsort(seen, (size_t)size - 1, sizeof *seen, cmp_int3);
    for (int k = 0; k < size - 1; k++)
      say("wildcard: source %d tag %d count %d", seen[k][0], seen[k][1],
          seen[k][2]);
    free(seen);
  } else {
    int *a = iota(rank, rank);
    for (int i = 0; i < rank; i++)
      a[i] = rank;
    MPI_Send(a, rank, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    free(a);
  }
}

static void probes(void) {
  if (rank == 1) {
    double d[7] = {1, 2, 3, 4, 5, 6, 7};
    char c[1000];
    int v[20];
    memset(c, 'x', sizeof c);
    for (int i = 0; i < 20; i++)
      v[i] = i * i;
    MPI_Send(d, 7, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    MPI_Send(NULL, 0, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    MPI_Send(c, 1000, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    MPI_Send(v, 20, MPI_INT, 0, 4, MPI_COMM_WORLD);
    MPI_Send(v, 20, MPI_INT, 0, 5, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Status st;
    int flag = 0, n;
    MPI_Message msg;
    MPI_Probe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
    status_line("probe", &st, MPI_DOUBLE);
    n = count_of(&st, MPI_DOUBLE);
    double *d = malloc((size_t)n * sizeof *d);
    MPI_Recv(d, n, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    CHECK(n == 7 && d[6] == 7.0, "probe n %d", n);
    free(d);
    while (!flag)
      MPI_Iprobe(1, 2, MPI_COMM_WORLD, &flag, &st);
    status_line("iprobe", &st, MPI_CHAR);
    MPI_Recv(NULL, 0, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &st);
    status_line("zero after iprobe", &st, MPI_CHAR);
    MPI_Mprobe(1, 3, MPI_COMM_WORLD, &msg, &st);
    status_line("mprobe", &st, MPI_CHAR);
    n = count_of(&st, MPI_CHAR);
    char *c = malloc((size_t)n);
    MPI_Mrecv(c, n, MPI_CHAR, &msg, &st);
    status_line("mrecv", &st, MPI_CHAR);
    CHECK(n == 1000 && c[999] == 'x', "mrecv %d", n);
    free(c);
    flag = 0;
    while (!flag)
      MPI_Improbe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &flag, &msg, &st);
    status_line("improbe", &st, MPI_INT);
    int v[32];
    MPI_Request rq;
    MPI_Imrecv(v, 32, MPI_INT, &msg, &rq);
    MPI_Wait(&rq, &st);
    status_line("imrecv", &st, MPI_INT);
    CHECK(count_of(&st, MPI_INT) == 20 && v[19] == 361, "imrecv");
    MPI_Mprobe(1, 5, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
    MPI_Mrecv(v, 32, MPI_INT, &msg, MPI_STATUS_IGNORE);
    say("mrecv ignoring statuses: %d", v[5]);
    /* MPI_PROC_NULL probes */
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
    say("mprobe proc_null: source %d tag %d no_proc %d", st.MPI_SOURCE,
        st.MPI_TAG, msg == MPI_MESSAGE_NO_PROC);
    MPI_Mrecv(v, 1, MPI_INT, &msg, &st);
    status_line("mrecv proc_null", &st, MPI_INT);
    MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    status_line("probe proc_null", &st, MPI_INT);
  }
}

static void proc_null(void) {
  int x = 5, y[4] = {7, 7, 7, 7};
  MPI_Status st;
  MPI_Request rq[2];
  MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD);
  MPI_Recv(y, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  if (rank <= 1) {
    status_line("proc_null recv", &st, MPI_INT);
    say("proc_null data untouched %d", y[0]);
  }
  MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(y, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rq[1]);
  MPI_Status sts[2];
  MPI_Waitall(2, rq, sts);
  if (rank <= 1)
    status_line("proc_null irecv", &sts[1], MPI_INT);
  MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, y, 4, MPI_INT, MPI_PROC_NULL,
               1, MPI_COMM_WORLD, &st);
  if (rank <= 1)
    status_line("proc_null sendrecv", &st, MPI_INT);
}

static void zero_bytes(void) {
  MPI_Status st;
  int buf[5] = {9, 9, 9, 9, 9};
  if (rank == 0) {
    MPI_Request rq;
    MPI_Send(NULL, 0, MPI_INT, 1, 50, MPI_COMM_WORLD);
    MPI_Isend(buf, 0, MPI_DOUBLE, 1, 51, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Send(buf, 0, MPI_BYTE, 1, 52, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Request rq;
    MPI_Recv(buf, 5, MPI_INT, 0, 50, MPI_COMM_WORLD, &st);
    status_line("zero", &st, MPI_INT);
    MPI_Irecv(buf, 5, MPI_DOUBLE, 0, 51, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    status_line("zero irecv", &st, MPI_DOUBLE);
    MPI_Recv(buf, 0, MPI_BYTE, 0, 52, MPI_COMM_WORLD, &st);
    status_line("zero into zero", &st, MPI_BYTE);
    CHECK(buf[0] == 9 && buf[4] == 9, "zero bytes wrote data");
  }
}

struct rec {
  int a;
  double b;
  char c;
};

static MPI_Datatype rec_type(void) {
  MPI_Datatype t, r;
  int lens[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(struct rec, a), offsetof(struct rec, b),
                      offsetof(struct rec, c)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, lens, disp, types, &t);
  MPI_Type_create_resized(t, 0, sizeof(struct rec), &r);
  MPI_Type_free(&t);
  MPI_Type_commit(&r);
  return r;
}

static void derived(void) {
  MPI_Datatype vec, rec, pair2;
  MPI_Status st;
  MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  rec = rec_type();
  MPI_Type_contiguous(2, MPI_INT, &pair2);
  MPI_Type_commit(&pair2);
  if (rank == 0) {
    int *a = iota(40, 0);
    struct rec r[3];
    for (int i = 0; i < 3; i++) {
      memset(&r[i], 0, sizeof r[i]);
      r[i].a = i;
      r[i].b = i + 0.5;
      r[i].c = (char)('a' + i);
    }
    struct {
      double d;
      int i;
    } di[4] = {{1.5, 1}, {2.5, 2}, {3.5, 3}, {4.5, 4}};
    MPI_Send(a, 2, vec, 1, 60, MPI_COMM_WORLD);
    MPI_Send(a, 2, vec, 1, 61, MPI_COMM_WORLD);
    MPI_Send(r, 3, rec, 1, 62, MPI_COMM_WORLD);
    MPI_Send(di, 4, MPI_DOUBLE_INT, 1, 63, MPI_COMM_WORLD);
    MPI_Send(a, 3, MPI_INT, 1, 64, MPI_COMM_WORLD);
    free(a);
  } else if (rank == 1) {
    int b[40];
    for (int i = 0; i < 40; i++)
      b[i] = -1;
    MPI_Recv(b, 3, vec, 0, 60, MPI_COMM_WORLD, &st); /* 2 of 3 arrive */
    status_line("vector partial", &st, vec);
    say("vector data %lx (gaps untouched: %d %d)", fnv(b, sizeof b), b[2],
        b[30]);
    CHECK(count_of(&st, vec) == 2 && elements_of(&st, vec) == 16 &&
              b[2] == -1 && b[13] == -1 && b[14] == 14,
          "vector");
    int c[16];
    MPI_Recv(c, 16, MPI_INT, 0, 61, MPI_COMM_WORLD, &st); /* same signature */
    status_line("vector as ints", &st, MPI_INT);
    say("vector as ints %d %d %d", c[0], c[2], c[15]);
    struct rec r[5];
    memset(r, 0x55, sizeof r);
    MPI_Recv(r, 5, rec, 0, 62, MPI_COMM_WORLD, &st);
    status_line("struct", &st, rec);
    say("struct %d %.1f %c %d %.1f %c", r[0].a, r[0].b, r[0].c, r[2].a,
        r[2].b, r[2].c);
    CHECK(count_of(&st, rec) == 3 && elements_of(&st, rec) == 9 &&
              r[2].c == 'c',
          "struct");
    struct {
      double d;
      int i;
    } di[6];
    MPI_Recv(di, 6, MPI_DOUBLE_INT, 0, 63, MPI_COMM_WORLD, &st);
    status_line("double_int", &st, MPI_DOUBLE_INT);
    say("double_int %.1f %d %.1f %d", di[0].d, di[0].i, di[3].d, di[3].i);
    CHECK(count_of(&st, MPI_DOUBLE_INT) == 4 && di[3].d == 4.5 && di[3].i == 4,
          "double_int");
    int p[4] = {-1, -1, -1, -1};
    MPI_Recv(p, 2, pair2, 0, 64, MPI_COMM_WORLD, &st); /* 1.5 pairs */
    say("half element: count %d elements %d data %d %d %d %d",
        count_of(&st, pair2), elements_of(&st, pair2), p[0], p[1], p[2],
        p[3]);
    CHECK(count_of(&st, pair2) == MPI_UNDEFINED &&
              elements_of(&st, pair2) == 3,
          "half element");
  }
  MPI_Type_free(&vec);
  MPI_Type_free(&rec);
  MPI_Type_free(&pair2);
  /* new types may reuse the freed handles: cached piggyback types must
   * not be reused for them */
  for (int round = 0; round < 3; round++) {
    MPI_Datatype t;
    MPI_Type_vector(3, 1, round + 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    int a[16];
    for (int i = 0; i < 16; i++)
      a[i] = rank == 0 ? 100 * round + i : -1;
    if (rank == 0)
      MPI_Send(a, 1, t, 1, 65, MPI_COMM_WORLD);
    else if (rank == 1) {
      MPI_Recv(a, 1, t, 0, 65, MPI_COMM_WORLD, &st);
      say("recycled type %d: %d %d %d %lx", round, a[0], a[round + 2],
          a[2 * (round + 2)], fnv(a, sizeof a));
      CHECK(a[2 * (round + 2)] == 100 * round + 2 * (round + 2),
            "recycled type");
    }
    MPI_Type_free(&t);
  }
}

static void large(void) {
  const int n = 131072; /* 1 MiB of doubles */
  double *d = malloc((size_t)n * sizeof *d);
  char *c = malloc(65536);
  MPI_Status st;
  MPI_Datatype strided;
  MPI_Type_vector(65536, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  if (rank == 0) {
    for (int i = 0; i < n; i++)
      d[i] = i * 0.25;
    memset(c, 'q', 65536);
    MPI_Request rq;
    MPI_Send(d, n, MPI_DOUBLE, 1, 70, MPI_COMM_WORLD);
    MPI_Isend(c, 65536, MPI_CHAR, 1, 71, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Send(d, 1, strided, 1, 72, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Request rq;
    memset(d, 0, (size_t)n * sizeof *d);
    MPI_Recv(d, n, MPI_DOUBLE, 0, 70, MPI_COMM_WORLD, &st);
    status_line("1 MiB", &st, MPI_DOUBLE);
    say("1 MiB data %lx", fnv(d, (size_t)n * sizeof *d));
    MPI_Irecv(c, 65536, MPI_CHAR, 0, 71, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    status_line("64 KiB", &st, MPI_CHAR);
    say("64 KiB data %lx", fnv(c, 65536));
    memset(d, 0, (size_t)n * sizeof *d);
    MPI_Recv(d, n / 2, MPI_DOUBLE, 0, 72, MPI_COMM_WORLD, &st);
    status_line("strided into contiguous", &st, MPI_DOUBLE);
    say("strided data %lx", fnv(d, (size_t)n * sizeof *d));
    CHECK(d[1] == 0.5 && d[65535] == 131070 * 0.25, "strided");
  }
  MPI_Type_free(&strided);
  free(d);
  free(c);
}

/* One round of 4 receives of different sizes, completed by `how`. */
static void completion_round(const char *how, int base_tag) {
  static const int counts[4] = {1, 100, 5000, 200000};
  int *bufs[4];
  MPI_Request rq[4];
  MPI_Status st[4];
  if (rank == 1) {
    for (int k = 3; k >= 0; k--) {
      bufs[k] = iota(counts[k], k * 1000);
      if ((base_tag / 10) % 2)
        MPI_Issend(bufs[k], counts[k], MPI_INT, 0, base_tag + k,
                   MPI_COMM_WORLD, &rq[k]);
      else
        MPI_Isend(bufs[k], counts[k], MPI_INT, 0, base_tag + k,
                  MPI_COMM_WORLD, &rq[k]);
    }
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 4; k++)
      free(bufs[k]);
    return;
  }
  if (rank != 0)
    return;
  for (int k = 0; k < 4; k++) {
    bufs[k] = calloc((size_t)counts[k] + 8, sizeof(int));
    MPI_Irecv(bufs[k], counts[k] + 8, MPI_INT, 1, base_tag + k,
              MPI_COMM_WORLD, &rq[k]);
  }
  int got[4] = {0, 0, 0, 0}, done = 0;
  if (strcmp(how, "waitall") == 0) {
    MPI_Waitall(4, rq, st);
    done = 4;
    for (int k = 0; k < 4; k++)
      got[k] = count_of(&st[k], MPI_INT);
  } else if (strcmp(how, "testall") == 0) {
    int flag = 0;
    while (!flag)
      MPI_Testall(4, rq, &flag, st);
    for (int k = 0; k < 4; k++)
      got[k] = count_of(&st[k], MPI_INT);
    done = 4;
  }
  while (done < 4) {
    int idx, out, flag, ids[4];
    MPI_Status one;
    if (strcmp(how, "waitany") == 0) {
      MPI_Waitany(4, rq, &idx, &one);
      got[idx] = count_of(&one, MPI_INT);
      done++;
    } else if (strcmp(how, "testany") == 0) {
      MPI_Testany(4, rq, &idx, &flag, &one);
      if (flag && idx != MPI_UNDEFINED) {
        got[idx] = count_of(&one, MPI_INT);
        done++;
      }
    } else if (strcmp(how, "waitsome") == 0) {
      MPI_Waitsome(4, rq, &out, ids, st);
      for (int j = 0; j < out; j++)
        got[ids[j]] = count_of(&st[j], MPI_INT);
      done += out;
    } else if (strcmp(how, "testsome") == 0) {
      MPI_Testsome(4, rq, &out, ids, st);
      for (int j = 0; j < out; j++)
        got[ids[j]] = count_of(&st[j], MPI_INT);
      done += out;
    } else { /* test, one by one, ignoring statuses for the first */
      for (int k = 0; k < 4; k++) {
        flag = 0;
        while (!flag)
          MPI_Test(&rq[k], &flag, k == 0 ? MPI_STATUS_IGNORE : &one);
        got[k] = k == 0 ? counts[0] : count_of(&one, MPI_INT);
      }
      done = 4;
    }
  }
  for (int k = 0; k < 4; k++) {
    say("%s: request %d count %d first %d last %d", how, k, got[k],
        bufs[k][0], bufs[k][counts[k] - 1]);
    CHECK(got[k] == counts[k] && bufs[k][counts[k] - 1] ==
                                     k * 1000 + counts[k] - 1 &&
              bufs[k][counts[k]] == 0,
          "%s request %d", how, k);
    free(bufs[k]);
  }
}

static void completions(void) {
  const char *hows[] = {"waitall", "testall", "waitany", "testany",
                        "waitsome", "testsome", "test"};
  for (int i = 0; i < 7; i++) {
    completion_round(hows[i], 200 + 10 * i);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

static void persistent(void) {
  int small[50];
  double *big = malloc(3000 * sizeof *big);
  MPI_Request rq[3];
  MPI_Status st[3];
  int bsize = 0;
  char *bbuf = NULL;
  if (rank == 1) {
    MPI_Pack_size(10, MPI_INT, MPI_COMM_WORLD, &bsize);
    bsize += MPI_BSEND_OVERHEAD;
    bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Send_init(small, 50, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Ssend_init(big, 3000, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &rq[1]);
    MPI_Bsend_init(small, 10, MPI_INT, 0, 9, MPI_COMM_WORLD, &rq[2]);
  } else if (rank == 0) {
    MPI_Recv_init(small, 50, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(big, 3000, MPI_DOUBLE, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD,
                  &rq[1]);
    MPI_Recv_init(small + 40, 10, MPI_INT, 1, 9, MPI_COMM_WORLD, &rq[2]);
  }
  for (int it = 0; it < 3 && rank <= 1; it++) {
    if (rank == 1) {
      for (int i = 0; i < 50; i++)
        small[i] = it * 100 + i;
      for (int i = 0; i < 3000; i++)
        big[i] = it + i * 0.5;
      MPI_Startall(2, rq);
      MPI_Start(&rq[2]);
      MPI_Waitall(3, rq, st);
    } else {
      memset(small, 0, sizeof small);
      MPI_Startall(2, rq);
      MPI_Wait(&rq[0], &st[0]);
      MPI_Start(&rq[2]);
      MPI_Waitall(2, rq + 1, st + 1);
      status_line("persistent small", &st[0], MPI_INT);
      status_line("persistent big", &st[1], MPI_DOUBLE);
      status_line("persistent bsend", &st[2], MPI_INT);
      say("persistent iteration %d: %d %d %.1f %lx", it, small[49], small[40],
          big[2999], fnv(big, 3000 * sizeof *big));
      CHECK(small[40] == it * 100 && big[2999] == it + 1499.5,
            "persistent %d", it);
    }
  }
  if (rank <= 1) {
    int flag = -1;
    MPI_Wait(&rq[0], &st[0]); /* inactive: returns at once */
    MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    say("inactive persistent: flag %d", flag);
    for (int k = 0; k < 3; k++)
      MPI_Request_free(&rq[k]);
    say("freed persistent: null %d", rq[0] == MPI_REQUEST_NULL);
  }
  if (rank == 1) {
    void *b;
    int s;
    MPI_Buffer_detach(&b, &s);
    say("detached buffer: same %d size ok %d", b == bbuf, s == bsize);
    free(bbuf);
  }
  free(big);
}

static void cancel(void) {
  if (rank != 0)
    return;
  int buf[4];
  double *big = malloc(100000 * sizeof *big);
  MPI_Request rq[2];
  MPI_Status st;
  int c;
  MPI_Irecv(buf, 4, MPI_INT, 1, 999, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(big, 100000, MPI_DOUBLE, MPI_ANY_SOURCE, 998, MPI_COMM_WORLD,
            &rq[1]);
  MPI_Cancel(&rq[0]);
  MPI_Cancel(&rq[1]);
  MPI_Wait(&rq[0], &st);
  MPI_Test_cancelled(&st, &c);
  say("cancelled small: %d source-agnostic", c);
  MPI_Wait(&rq[1], &st);
  MPI_Test_cancelled(&st, &c);
  say("cancelled large: %d", c);
  CHECK(c == 1, "cancel");
  /* from a known source, of a contiguous derived type: revprof's struct
   * type for it is cancelled too (MPICH 4.0 keeps such types alive and
   * says so at MPI_Finalize; the stderr of both runs is compared for it) */
  MPI_Datatype row;
  MPI_Type_contiguous(1000, MPI_DOUBLE, &row);
  MPI_Type_commit(&row);
  MPI_Irecv(big, 100, row, 1, 997, MPI_COMM_WORLD, &rq[0]);
  MPI_Type_free(&row);
  MPI_Cancel(&rq[0]);
  MPI_Wait(&rq[0], &st);
  MPI_Test_cancelled(&st, &c);
  say("cancelled large derived: %d", c);
  CHECK(c == 1, "cancel derived");
  free(big);
}

/* A communicator freed while receives on it are pending, as MPI allows
 * (MPICH's comm/cmfree2): a known source, a wildcard and a large message
 * all complete with their data. Rank 1 is in its wait before rank 0
 * sends. */
static void freed_comm(void) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  const int n = 20000;
  double *big = malloc((size_t)n * sizeof *big);
  int small = -1, any = -1;
  if (rank == 1) {
    MPI_Request rq[3];
    MPI_Irecv(&small, 1, MPI_INT, 0, 1, c, &rq[0]);
    MPI_Irecv(&any, 1, MPI_INT, MPI_ANY_SOURCE, 2, c, &rq[1]);
    MPI_Irecv(big, n, MPI_DOUBLE, 0, 3, c, &rq[2]);
    MPI_Comm_free(&c);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Waitall(2, rq + 1, MPI_STATUSES_IGNORE);
    say("freed communicator: %d %d %g", small, any, big[n - 1]);
    CHECK(small == 7 && any == 8 && big[n - 1] == 3.0, "freed communicator");
  } else if (rank == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    struct timespec nap = {0, 50000000};
    nanosleep(&nap, NULL);
    int v = 7;
    MPI_Ssend(&v, 1, MPI_INT, 1, 1, c);
    v = 8;
    MPI_Send(&v, 1, MPI_INT, 1, 2, c);
    for (int i = 0; i < n; i++)
      big[i] = 3.0;
    MPI_Send(big, n, MPI_DOUBLE, 1, 3, c);
    MPI_Comm_free(&c);
  } else {
    MPI_Comm_free(&c);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(big);
}

static void ordering(void) {
  const int big = 20000;
  int *buf = malloc((size_t)big * sizeof *buf);
  if (rank == 1) {
    MPI_Request rq[20];
    int *bufs[20];
    for (int i = 0; i < 20; i++) {
      int n = i % 2 ? big : 1;
      bufs[i] = iota(n, i);
      bufs[i][0] = i;
      if (i % 3 == 0)
        MPI_Send(bufs[i], n, MPI_INT, 0, 33, MPI_COMM_WORLD);
      else
        MPI_Isend(bufs[i], n, MPI_INT, 0, 33, MPI_COMM_WORLD, &rq[i]);
    }
    for (int i = 0; i < 20; i++)
      if (i % 3)
        MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    for (int i = 0; i < 20; i++)
      free(bufs[i]);
  } else if (rank == 0) {
    int order_ok = 1;
    for (int i = 0; i < 20; i++) {
      MPI_Status st;
      MPI_Recv(buf, big, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &st);
      order_ok &= buf[0] == i && count_of(&st, MPI_INT) == (i % 2 ? big : 1);
    }
    say("ordering: in order %d", order_ok);
    CHECK(order_ok, "ordering");
  }
  free(buf);
}

static void sendrecv(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[5], in[8];
  MPI_Status st;
  for (int i = 0; i < 5; i++)
    out[i] = rank * 10 + i;
  memset(in, 0, sizeof in);
  MPI_Sendrecv(out, 5, MPI_INT, right, 40, in, 8, MPI_INT, left, 40,
               MPI_COMM_WORLD, &st);
  status_line("sendrecv", &st, MPI_INT);
  say("sendrecv data %d %d", in[0], in[4]);
  CHECK(in[0] == left * 10, "sendrecv");
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int rep[6];
  for (int i = 0; i < 6; i++)
    rep[i] = rank * 100 + i;
  MPI_Sendrecv_replace(rep, 1, vec, right, 41, left, 41, MPI_COMM_WORLD, &st);
  status_line("sendrecv_replace vector", &st, vec);
  say("replace %d %d %d %d %d %d", rep[0], rep[1], rep[2], rep[3], rep[4],
      rep[5]);
  CHECK(rep[0] == left * 100 && rep[1] == rank * 100 + 1, "replace vector");
  MPI_Type_free(&vec);
  const int n = 100000;
  double *d = malloc((size_t)n * sizeof *d);
  for (int i = 0; i < n; i++)
    d[i] = rank + i;
  MPI_Sendrecv_replace(d, n, MPI_DOUBLE, right, 42, MPI_ANY_SOURCE,
                       MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  status_line("sendrecv_replace large", &st, MPI_DOUBLE);
  say("replace large %.1f %.1f", d[0], d[n - 1]);
  CHECK(d[0] == left && d[n - 1] == left + n - 1, "replace large");
  free(d);
  int small = rank;
  MPI_Sendrecv_replace(&small, 1, MPI_INT, right, 43, left, 43,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  say("replace small %d", small);
}

static void send_modes(void) {
  int a[100], b[100];
  MPI_Status st;
  for (int i = 0; i < 100; i++)
    a[i] = i + 7;
  if (rank == 0) {
    /* Bsend with a buffer that fits exactly what MPI needs natively */
    int sz;
    MPI_Pack_size(100, MPI_INT, MPI_COMM_WORLD, &sz);
    sz += MPI_BSEND_OVERHEAD;
    char *bb = malloc((size_t)sz);
    MPI_Buffer_attach(bb, sz);
    MPI_Bsend(a, 100, MPI_INT, 1, 80, MPI_COMM_WORLD);
    MPI_Ssend(a, 50, MPI_INT, 1, 81, MPI_COMM_WORLD);
    void *back;
    int bs;
    MPI_Buffer_detach(&back, &bs);
    say("bsend buffer back: same %d size ok %d", back == bb, bs == sz);
    free(bb);
    /* ready sends: wait for the receiver's go */
    MPI_Recv(NULL, 0, MPI_INT, 1, 82, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Rsend(a, 30, MPI_INT, 1, 83, MPI_COMM_WORLD);
    MPI_Request rq[3];
    MPI_Recv(NULL, 0, MPI_INT, 1, 84, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Irsend(a, 31, MPI_INT, 1, 85, MPI_COMM_WORLD, &rq[0]);
    MPI_Issend(a, 32, MPI_INT, 1, 86, MPI_COMM_WORLD, &rq[1]);
    MPI_Pack_size(33, MPI_INT, MPI_COMM_WORLD, &sz);
    sz += MPI_BSEND_OVERHEAD;
    bb = malloc((size_t)sz);
    MPI_Buffer_attach(bb, sz);
    MPI_Ibsend(a, 33, MPI_INT, 1, 87, MPI_COMM_WORLD, &rq[2]);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    MPI_Buffer_detach(&back, &bs);
    free(bb);
  } else if (rank == 1) {
    MPI_Recv(b, 100, MPI_INT, 0, 80, MPI_COMM_WORLD, &st);
    status_line("bsend", &st, MPI_INT);
    MPI_Recv(b, 100, MPI_INT, 0, 81, MPI_COMM_WORLD, &st);
    status_line("ssend", &st, MPI_INT);
    MPI_Request rq;
    MPI_Irecv(b, 100, MPI_INT, 0, 83, MPI_COMM_WORLD, &rq);
    MPI_Send(NULL, 0, MPI_INT, 0, 82, MPI_COMM_WORLD);
    MPI_Wait(&rq, &st);
    status_line("rsend", &st, MPI_INT);
    MPI_Request r3[3];
    int c[3][40];
    for (int k = 0; k < 3; k++)
      MPI_Irecv(c[k], 40, MPI_INT, 0, 85 + k, MPI_COMM_WORLD, &r3[k]);
    MPI_Send(NULL, 0, MPI_INT, 0, 84, MPI_COMM_WORLD);
    MPI_Status s3[3];
    MPI_Waitall(3, r3, s3);
    for (int k = 0; k < 3; k++)
      status_line("i-send modes", &s3[k], MPI_INT);
    say("send modes data %d %d %d %d", b[29], c[0][30], c[1][31], c[2][32]);
  }
}

static void request_status_and_free(void) {
  if (rank == 1) {
    int v[10];
    MPI_Request rq;
    for (int i = 0; i < 10; i++)
      v[i] = i * 3;
    MPI_Send(v, 10, MPI_INT, 0, 90, MPI_COMM_WORLD);
    MPI_Isend(v, 10, MPI_INT, 0, 91, MPI_COMM_WORLD, &rq);
    MPI_Request_free(&rq); /* active: MPI finishes it */
    say("freed active send: null %d", rq == MPI_REQUEST_NULL);
    MPI_Recv(NULL, 0, MPI_INT, 0, 92, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 0) {
    int v[10] = {0}, w[10] = {0}, flag = 0;
    MPI_Request rq;
    MPI_Status st;
    MPI_Irecv(v, 10, MPI_INT, 1, 90, MPI_COMM_WORLD, &rq);
    while (!flag)
      MPI_Request_get_status(rq, &flag, &st);
    status_line("get_status", &st, MPI_INT);
    say("get_status data already there: %d", v[9]);
    MPI_Wait(&rq, &st);
    status_line("after get_status", &st, MPI_INT);
    MPI_Recv(w, 10, MPI_INT, 1, 91, MPI_COMM_WORLD, &st);
    status_line("from freed send", &st, MPI_INT);
    say("freed send data %d", w[9]);
    MPI_Send(NULL, 0, MPI_INT, 1, 92, MPI_COMM_WORLD);
  }
}

/* MPI_Barrier synchronizes (under revprof the clock exchange is the
 * barrier): no rank leaves it before the last rank, which sleeps 100 ms
 * first, has entered it. Where the ranks share a host its monotonic clock
 * orders their events (elsewhere the check is left out). A causal test,
 * not a duration: a rank descheduled between the two barriers on a loaded
 * host (MPICH, 3 ranks on 2 cores beside other tests) had waited less than
 * the 25 ms that an earlier form required. */
static double real_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void barrier_synchronizes(void) {
  if (size < 2)
    return;
  MPI_Comm node;
  int on_node = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &node);
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  double entered = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    struct timespec nap = {0, 100000000L};
    nanosleep(&nap, NULL);
    entered = real_now();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double left = real_now();
  MPI_Bcast(&entered, 1, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
  CHECK(on_node < size || left >= entered,
        "rank %d left MPI_Barrier %.6f s before the last rank entered it",
        rank, entered - left);
}

static void collectives(MPI_Comm comm, const char *tag) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  size_t nb = (size_t)n * 640 + 128; /* ints in each buffer */
  int *sb = malloc(nb * sizeof *sb), *rb = malloc(nb * sizeof *rb);
  int *cnt = malloc((size_t)n * sizeof *cnt), *dsp = malloc((size_t)n * sizeof *dsp);
  int *rcnt = malloc((size_t)n * sizeof *rcnt), *rdsp = malloc((size_t)n * sizeof *rdsp);
  MPI_Datatype *types = malloc((size_t)n * sizeof *types);
  unsigned long h = 0;
  for (size_t i = 0; i < nb; i++)
    sb[i] = r * 1000 + (int)i;
#define RESET() memset(rb, 0, nb * sizeof *rb)
#define MIX() (h = h * 31 + fnv(rb, nb * sizeof *rb))
  int x = r + 1, y = 0;
  MPI_Barrier(comm);
  RESET();
  memcpy(rb, sb, 16 * sizeof *rb);
  MPI_Bcast(rb, 16, MPI_INT, n - 1, comm);
  MIX();
  MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, comm);
  say("%s reduce %d", tag, r == 0 ? y : -1);
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, comm);
  say("%s allreduce %d", tag, y);
  y = x;
  MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, comm);
  say("%s allreduce in place %d", tag, y);
  RESET();
  MPI_Gather(sb, 3, MPI_INT, rb, 3, MPI_INT, 0, comm);
  MIX();
  RESET();
  if (r == 0) {
    memcpy(rb, sb, 3 * sizeof *rb);
    MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, rb, 3, MPI_INT, 0, comm);
  } else
    MPI_Gather(sb, 3, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, 0, comm);
  MIX();
  for (int i = 0; i < n; i++) {
    cnt[i] = i + 1;
    dsp[i] = i * 8;
  }
  RESET();
  MPI_Gatherv(sb, r + 1, MPI_INT, rb, cnt, dsp, MPI_INT, n - 1, comm);
  MIX();
  RESET();
  MPI_Scatter(sb, 4, MPI_INT, rb, 4, MPI_INT, 0, comm);
  MIX();
  RESET();
  MPI_Scatterv(sb, cnt, dsp, MPI_INT, rb, r + 1, MPI_INT, 0, comm);
  MIX();
  RESET();
  MPI_Allgather(sb, 2, MPI_INT, rb, 2, MPI_INT, comm);
  MIX();
  RESET();
  MPI_Allgatherv(sb, r + 1, MPI_INT, rb, cnt, dsp, MPI_INT, comm);
  MIX();
  RESET();
  MPI_Alltoall(sb, 5, MPI_INT, rb, 5, MPI_INT, comm);
  MIX();
  { /* collectives whose clocks ride in the call (rp_coll_fold.c), with
     * derived types, pairs, IN_PLACE, sizes on both sides of the limit */
    MPI_Datatype vec;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec); /* ints 0, 2, 4 */
    MPI_Type_commit(&vec);
    RESET();
    MPI_Allgather(sb, 1, vec, rb, 3, MPI_INT, comm);
    MIX();
    RESET();
    MPI_Allgather(sb, 3, MPI_INT, rb, 1, vec, comm);
    MIX();
    RESET();
    MPI_Alltoall(sb, 1, vec, rb, 1, vec, comm);
    MIX();
    /* rooted ones, root not 0, derived types on one side */
    int root = 1 % n;
    RESET();
    if (r == root)
      memcpy(rb, sb, 8 * sizeof *rb);
    MPI_Bcast(rb, 1, vec, root, comm);
    MIX();
    RESET();
    if (r == root)
      memcpy(rb, sb, 700 * sizeof *rb);
    MPI_Bcast(rb, 700, MPI_INT, root, comm); /* 2800 B: not folded */
    MIX();
    RESET();
    MPI_Gather(sb, 1, vec, rb, 3, MPI_INT, root, comm);
    MIX();
    RESET();
    if (r == root) {
      memcpy(rb, sb, nb * sizeof *rb);
      MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, rb, 1, vec, root, comm);
    } else
      MPI_Gather(sb + 1, 3, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm);
    MIX();
    RESET();
    MPI_Scatter(sb, 1, vec, rb, 3, MPI_INT, root, comm);
    MIX();
    RESET();
    if (r == root) {
      memcpy(rb, sb, nb * sizeof *rb);
      MPI_Scatter(rb, 5, MPI_INT, MPI_IN_PLACE, 5, MPI_INT, root, comm);
    } else
      MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, rb, 5, MPI_INT, root, comm);
    MIX();
    RESET();
    MPI_Scatter(sb, 600, MPI_INT, rb, 600, MPI_INT, root, comm); /* large */
    MIX();
    MPI_Type_free(&vec);
    struct { int v, i; } ri = {(r * 3) % 4, r}, ro = {-1, -1};
    MPI_Reduce(&ri, &ro, 1, MPI_2INT, MPI_MAXLOC, n - 1, comm);
    say("%s reduce maxloc %d at %d", tag, r == n - 1 ? ro.v : -1,
        r == n - 1 ? ro.i : -1);
    double rv[3] = {r * 0.3, 1.0 / (r + 3), r * 1e-7};
    if (r == root)
      MPI_Reduce(MPI_IN_PLACE, rv, 3, MPI_DOUBLE, MPI_SUM, root, comm);
    else
      MPI_Reduce(rv, NULL, 3, MPI_DOUBLE, MPI_SUM, root, comm);
    say("%s reduce dsum %a %a %a", tag, r == root ? rv[0] : 0.0,
        r == root ? rv[1] : 0.0, r == root ? rv[2] : 0.0);
    unsigned ub = 1u << (r % 16), uo = 0;
    MPI_Reduce(&ub, &uo, 1, MPI_UNSIGNED, MPI_BOR, 0, comm);
    say("%s reduce bor %x", tag, r == 0 ? uo : 0u);
    RESET();
    MPI_Alltoall(sb, 600, MPI_INT, rb, 600, MPI_INT, comm); /* 2400 B */
    MIX();
    struct { int v, i; } mi = {(r * 7) % 5, r}, mo = {-1, -1};
    MPI_Allreduce(&mi, &mo, 1, MPI_2INT, MPI_MAXLOC, comm);
    say("%s maxloc %d at %d", tag, mo.v, mo.i);
    struct { double v; int i; } di = {(r % 2) * 0.5, r}, dout = {-1, -1};
    MPI_Allreduce(&di, &dout, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm);
    say("%s minloc %a at %d", tag, dout.v, dout.i);
    double dv[3] = {r * 0.1, 1.0 / (r + 1), -r * 1e-3}, dsum[3] = {0};
    MPI_Allreduce(dv, dsum, 3, MPI_DOUBLE, MPI_SUM, comm);
    say("%s dsum %a %a %a", tag, dsum[0], dsum[1], dsum[2]);
    MPI_Allreduce(MPI_IN_PLACE, dv, 3, MPI_DOUBLE, MPI_MAX, comm);
    say("%s dmax %a %a %a", tag, dv[0], dv[1], dv[2]);
    double dm[2] = {1.0 / (r + 3), -0.25 * r}, dp[2] = {1.5 + r, 1.0 / (r + 7)};
    MPI_Allreduce(MPI_IN_PLACE, dm, 2, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Reduce(dp, r == n - 1 ? dsum : NULL, 2, MPI_DOUBLE, MPI_PROD, n - 1,
               comm);
    say("%s dmin %a %a dprod %a %a", tag, dm[0], dm[1],
        r == n - 1 ? dsum[0] : 0.0, r == n - 1 ? dsum[1] : 0.0);
    long long big[300];
    for (int i = 0; i < 300; i++)
      big[i] = (long long)(r + 1) * (i + 1);
    MPI_Allreduce(MPI_IN_PLACE, big, 300, MPI_LONG_LONG, MPI_SUM, comm);
    say("%s big sum %lld %lld", tag, big[0], big[299]);
    int zin = 5, zout = 9;
    MPI_Allreduce(&zin, &zout, 0, MPI_INT, MPI_SUM, comm);
    say("%s empty allreduce left %d", tag, zout);
  }
  for (int i = 0; i < n; i++) {
    cnt[i] = (i + r) % 3 + 1;
    dsp[i] = i * 8;
    rcnt[i] = (r + i) % 3 + 1;
    rdsp[i] = i * 8;
    types[i] = MPI_INT;
  }
  RESET();
  MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, rcnt, rdsp, MPI_INT, comm);
  MIX();
  for (int i = 0; i < n; i++) {
    dsp[i] *= (int)sizeof(int);
    rdsp[i] *= (int)sizeof(int);
  }
  RESET();
  MPI_Alltoallw(sb, cnt, dsp, types, rb, rcnt, rdsp, types, comm);
  MIX();
  for (int i = 0; i < n; i++)
    cnt[i] = i + 1;
  RESET();
  MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, comm);
  MIX();
  RESET();
  MPI_Reduce_scatter_block(sb, rb, 3, MPI_INT, MPI_SUM, comm);
  MIX();
  MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, comm);
  say("%s scan %d", tag, y);
  y = -7;
  MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, comm);
  say("%s exscan %d", tag, r == 0 ? -7 : y);
  /* non-blocking forms */
  MPI_Request rq[6];
  int z[6] = {0};
  RESET();
  MPI_Ibarrier(comm, &rq[0]);
  MPI_Ibcast(rb, 10, MPI_INT, 0, comm, &rq[1]);
  MPI_Iallreduce(&x, &z[0], 1, MPI_INT, MPI_SUM, comm, &rq[2]);
  MPI_Iscan(&x, &z[1], 1, MPI_INT, MPI_SUM, comm, &rq[3]);
  MPI_Ialltoall(sb, 2, MPI_INT, rb + 32, 2, MPI_INT, comm, &rq[4]);
  MPI_Igather(&x, 1, MPI_INT, rb + 64, 1, MPI_INT, 0, comm, &rq[5]);
  MPI_Waitall(6, rq, MPI_STATUSES_IGNORE);
  MIX();
  say("%s iallreduce %d iscan %d", tag, z[0], z[1]);
  RESET();
  MPI_Iallgather(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, &rq[0]);
  MPI_Ireduce(&x, &z[2], 1, MPI_INT, MPI_PROD, n - 1, comm, &rq[1]);
  MPI_Iexscan(&x, &z[3], 1, MPI_INT, MPI_MAX, comm, &rq[2]);
  int flag = 0;
  while (!flag)
    MPI_Testall(3, rq, &flag, MPI_STATUSES_IGNORE);
  MIX();
  say("%s ireduce %d iexscan %d", tag, r == n - 1 ? z[2] : 0,
      r == 0 ? 0 : z[3]);
  for (int i = 0; i < n; i++) {
    cnt[i] = 1;
    dsp[i] = i;
  }
  RESET();
  MPI_Iscatterv(sb, cnt, dsp, MPI_INT, rb, 1, MPI_INT, 0, comm, &rq[0]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  MPI_Ireduce_scatter_block(sb, rb + 8, 2, MPI_INT, MPI_SUM, comm, &rq[0]);
  int idx;
  MPI_Waitany(1, rq, &idx, MPI_STATUS_IGNORE);
  MIX();
  say("%s collective data %lx", tag, h);
  free(sb);
  free(rb);
  free(cnt);
  free(dsp);
  free(rcnt);
  free(rdsp);
  free(types);
}

/* MPI 4 persistent collectives match in the order of their *_init, so
 * the members may start them in different orders (MPICH's coll/p_order):
 * revprof's clock exchanges must match the same way. */
static void persistent_collectives_order(void) {
#if MPI_VERSION >= 4
  int a = rank == 0 ? 4242 : -1;
  MPI_Request rq[2];
  MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
  for (int round = 0; round < 2; round++) {
    if (rank % 2 == 0) {
      MPI_Start(&rq[0]);
      MPI_Start(&rq[1]);
    } else {
      MPI_Start(&rq[1]);
      MPI_Start(&rq[0]);
    }
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK(a == 4242, "persistent bcast started out of order: got %d", a);
  }
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
  say("persistent collectives started in different orders: %d", a);
  /* the same for two persistent neighbourhood allgathers on a ring */
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1}, mine[2] = {rank, 100 + rank};
  int got0[2] = {-1, -1}, got1[2] = {-1, -1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Neighbor_allgather_init(&mine[0], 1, MPI_INT, got0, 1, MPI_INT, ring,
                              MPI_INFO_NULL, &rq[0]);
  MPI_Neighbor_allgather_init(&mine[1], 1, MPI_INT, got1, 1, MPI_INT, ring,
                              MPI_INFO_NULL, &rq[1]);
  for (int round = 0; round < 2; round++) {
    MPI_Start(&rq[rank % 2]);
    MPI_Start(&rq[1 - rank % 2]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    CHECK(got0[0] == left && got0[1] == right && got1[0] == 100 + left &&
              got1[1] == 100 + right,
          "persistent neighbour allgathers out of order: %d %d %d %d",
          got0[0], got0[1], got1[0], got1[1]);
  }
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
  MPI_Comm_free(&ring);
  say("persistent neighbourhood collectives started in different orders");
#endif
}

static void communicators(void) {
  MPI_Comm half, dup, cart, idup, first2;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  collectives(half, rank % 2 ? "odd" : "even");
  int hr, hn;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  if (hn >= 2) { /* p2p on the sub-communicator, wildcard source */
    int v = rank;
    MPI_Status st;
    if (hr == 0)
      MPI_Send(&v, 1, MPI_INT, 1, 5, half);
    else if (hr == 1) {
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, half, &st);
      say("split p2p from %d value %d", st.MPI_SOURCE, v);
    }
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int b = rank == 0 ? 77 : 0;
  MPI_Bcast(&b, 1, MPI_INT, 0, dup);
  say("dup bcast %d", b);
  int dims[1] = {size}, periods[1] = {1}, src, dst;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  int out = rank, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, dst, 0, &in, 1, MPI_INT, src, 0, cart,
               MPI_STATUS_IGNORE);
  say("cart shift got %d", in);
  MPI_Request rq;
  MPI_Comm_idup(MPI_COMM_WORLD, &idup, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  int s = rank;
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, idup);
  MPI_Ibarrier(idup, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  say("idup allreduce %d", s);
  MPI_Group world, g2;
  int ranks[2] = {0, 1};
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 2, ranks, &g2);
  MPI_Comm_create(MPI_COMM_WORLD, g2, &first2);
  if (first2 != MPI_COMM_NULL) {
    int t = rank + 10;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_INT, MPI_SUM, first2);
    say("create allreduce %d", t);
    MPI_Comm_free(&first2);
  } else
    say("create: not a member");
  MPI_Group_free(&g2);
  MPI_Group_free(&world);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&idup);
}

/* copies made by the counting copy callback (attributes below) */
static int copies;
static int count_copy(MPI_Comm old, int key, void *extra, void *in,
                      void *out, int *flag) {
  (void)old;
  (void)key;
  (void)extra;
  copies++;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

/* A duplicate's copy callbacks run once per MPI_Comm_dup and
 * MPI_Comm_dup_with_info of the program, never for revprof's shadow of the
 * new communicator (a duplicate of the parent's shadow); a collective whose
 * clocks go on that shadow (MPI_Scan) works on the duplicate of a
 * duplicate. */
static void dup_callbacks(void) {
  int key, flag = 0, *got = NULL, one = 1, scan = 0;
  static int val;
  MPI_Comm dup, dup2;
  MPI_Info info;
  val = 5 + rank;
  copies = 0;
  MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, &val);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Info_create(&info);
  MPI_Comm_dup_with_info(dup, info, &dup2);
  MPI_Info_free(&info);
  CHECK(copies == 2, "copy callback ran %d times for 2 duplicates", copies);
  MPI_Comm_get_attr(dup2, key, &got, &flag);
  CHECK(flag && got && *got == 5 + rank, "attribute not copied twice");
  MPI_Scan(&one, &scan, 1, MPI_INT, MPI_SUM, dup2);
  CHECK(scan == rank + 1, "scan on a duplicate's duplicate gave %d", scan);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
  MPI_Comm_free_keyval(&key);
  say("duplicates: copy callbacks once per MPI_Comm_dup, scan on one");
}

/* A key set on MPI_COMM_WORLD goes with MPI_Comm_dup (MPI_COMM_DUP_FN),
 * is read back and deleted; the predefined MPI_TAG_UB is there; the same
 * through MPI-1's names (deprecated, in both MPIs). Under monitoring,
 * MPI_COMM_WORLD is the application's world in all of them. */
static void attributes(void) {
  int key, flag = 0, *got = NULL;
  static int val[2];
  val[0] = 42 + rank;
  val[1] = 7 + rank;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key,
                         NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, &val[0]);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_attr(dup, key, &got, &flag);
  CHECK(flag && got && *got == 42 + rank, "comm_set_attr not copied by dup");
  MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
  MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag);
  CHECK(!flag, "comm_delete_attr left the key");
  MPI_Comm_free(&dup);
  MPI_Comm_free_keyval(&key);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &key, NULL);
  MPI_Attr_put(MPI_COMM_WORLD, key, &val[1]);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  got = NULL;
  MPI_Attr_get(dup, key, &got, &flag);
  CHECK(flag && got && *got == 7 + rank, "attr_put not copied by dup");
  MPI_Attr_delete(MPI_COMM_WORLD, key);
  MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag);
  CHECK(!flag, "attr_delete left the key");
  MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &got, &flag);
  CHECK(flag && got && *got >= 32767, "attr_get of MPI_TAG_UB");
  MPI_Keyval_free(&key);
#pragma GCC diagnostic pop
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &got, &flag);
  CHECK(flag && got && *got >= 32767, "comm_get_attr of MPI_TAG_UB");
  MPI_Comm_free(&dup);
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14,
        "MPI_COMM_WORLD's name is \"%s\"", name);
  say("attributes of MPI_COMM_WORLD: copied, read, deleted; named");
}

/* Whether a 136 KiB block, just above glibc's default mmap threshold
 * (128 KiB), comes from mmap right after MPI_Init: glibc raises that
 * threshold, and the heap's trim threshold with it, for good when the
 * process frees a larger mmapped block. A tool that did so inside MPI_Init
 * (revprof's PAPI start-up and its model's free did) changes how the
 * program's own allocations behave: LULESH ran 3x faster under revprof than
 * natively, its work arrays no longer returned to the kernel every step.
 * Printed, so that the native and the revprof outputs must agree; glibc
 * only (mallinfo2), and the same line either way where the allocator is
 * another (sanitizers, valgrind). */
static void heap_after_init(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  static char *volatile keep; /* or the compiler drops malloc and free */
  size_t before = mallinfo2().hblks;
  char *p = keep = malloc(136 * 1024);
  size_t after = mallinfo2().hblks;
  say("heap after MPI_Init: a 136 KiB block %s",
      after > before ? "is mapped (glibc's default threshold)"
                     : "comes from the heap");
  free(p);
#else
  say("heap after MPI_Init: not probed (not glibc)");
#endif
}

int main(int argc, char **argv) {
  if (getenv("RP_THREAD_MULTIPLE")) { /* the same semantics with threads */
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else
    MPI_Init(&argc, &argv);
  heap_after_init(); /* before anything here frees a large block */
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    fprintf(stderr, "rp_semantics: needs 2 ranks or more\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  void (*sections[])(void) = {basic,       wildcards,  probes,   proc_null,
                              zero_bytes,  derived,    large,    completions,
                              persistent,  cancel,     ordering, sendrecv,
                              send_modes,  request_status_and_free,
                              freed_comm};
  for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
    sections[i]();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  collectives(MPI_COMM_WORLD, "world");
  barrier_synchronizes();
  communicators();
  attributes();
  dup_callbacks();
  persistent_collectives_order();

  /* everybody's log to rank 0, printed in rank order */
  int len = (int)loglen, *lens = NULL, *displs = NULL, total = 0;
  char *all = NULL;
  if (rank == 0) {
    lens = malloc((size_t)size * sizeof *lens);
    displs = malloc((size_t)size * sizeof *displs);
  }
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      displs[r] = total;
      total += lens[r];
    }
    all = malloc((size_t)total + 1);
  }
  MPI_Gatherv(logbuf, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0,
              MPI_COMM_WORLD);
  int fails = 0;
  MPI_Reduce(&failures, &fails, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; r++)
      printf("== rank %d ==\n%.*s", r, lens[r], all + displs[r]);
    printf("semantics: %d ranks, %d failed checks\n", size, fails);
    free(all);
    free(lens);
    free(displs);
  }
  free(logbuf);
  MPI_Finalize();
  return fails ? 1 : 0;
}
