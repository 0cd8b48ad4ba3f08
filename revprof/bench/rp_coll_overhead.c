/* librevprof's cost on collectives, side by side in one run: rounds
 * alternate between the native entry points (PMPI_*, what a program
 * without revprof calls) and the wrapped ones (MPI_* through librevprof:
 * clock exchange and rules), so both see the same machine state. For each
 * collective and size it prints the best time per call of each and their
 * ratio, plus an 8-byte ping-pong for reference. Run with REVPROF_MODEL set
 * (bench/collective-overhead.sh does it, and takes medians over runs).
 * With "sweep" it adds rows Bcast~N and Reduce~N, N = 16 ... 64 bytes
 * (and 12 for Bcast), both columns native: the PMPI_ call on 8 bytes,
 * then on N, and their ratio: what N - 8 more bytes cost the MPI itself,
 * the yardstick of the 32 bytes of clocks revprof adds to an 8-byte call.
 * And rows Allgather/s and Alltoall/s at 64 KiB, both columns native: the
 * call on plain bytes, then on a struct datatype that carries 32 bytes of
 * clocks from a scratch area beside each block (as revprof's
 * point-to-point messages above 2 KiB do): what that way of carrying the
 * clocks in the call would cost where the fold's copy is too dear. And
 * rows Allreduce/u and Reduce/u at 8 bytes, both native: a user function
 * on one 48-byte element (data and 4 doubles of clocks), then MPI_SUM on 7
 * doubles (data and a slot of 3 clocks per rank, 2 ranks): the two ways
 * revprof's fold can carry the clocks in a sum of doubles.
 * With "count N [OP]" it times nothing: for each collective at 8 bytes
 * (or OP alone), N calls through loop_native() then N through
 * loop_wrapped(), for an instruction counter to read per call
 * (bench/coll-instructions.sh runs it under valgrind's callgrind).
 * usage: rp_bench_coll [ROUNDS [CALLS_AT_8B [sweep]]]
 *        rp_bench_coll count N [OP] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "revprof.h"

/* BCAST40, REDUCE40: the floor of carrying 32 bytes of clocks in the
 * call. "native" is the PMPI_ call on the data plus 32 bytes, "revprof"
 * the wrapped call on the data alone: their ratio is what revprof costs
 * beyond the bytes it adds (8 B only). ALLGATHERX, ALLTOALLX: the floor
 * of the general path, where the clocks go by a second collective (above
 * the fold's 2 KiB blocks): "native" is a PMPI_Allreduce of 4 doubles on
 * a duplicate of the world, as revprof's on its shadow communicator, then
 * the PMPI_ call; "revprof" the wrapped call (64 KiB only). */
enum { BARRIER, BCAST, ALLREDUCE, REDUCE, ALLGATHER, ALLTOALL, PINGPONG,
       BCAST40, REDUCE40, ALLGATHERX, ALLTOALLX, NOPS };
static const char *const op_name[NOPS] = {
    "Barrier",   "Bcast",     "Allreduce", "Reduce",      "Allgather",
    "Alltoall",  "Send/Recv", "Bcast+32",  "Reduce+32",   "Allgather+x",
    "Alltoall+x"};

static char *sbuf, *rbuf;
static MPI_Comm dup; /* ALLGATHERX, ALLTOALLX's exchange */

/* The struct-datatype calls (entry point 2, Allgather and Alltoall at the
 * struct size): block j of buf is n bytes, and 4 doubles at scratch +
 * j * n, so that one type with an extent of n describes every block */
enum { NATIVE, WRAPPED, STRUCT, USEROP, SLOTS };

/* The two ways an 8-byte sum of doubles on 2 ranks can carry 3 clocks
 * (rp_coll_fold.c), natively: USEROP, one 48-byte element (the double,
 * padding, 4 doubles of clocks) under a user function that sums the data
 * and takes the maximum of the clocks; SLOTS, 7 doubles under MPI_SUM (the
 * data, then a slot of 3 clocks per rank). */
static MPI_Op user_op = MPI_OP_NULL;
static MPI_Datatype elem48 = MPI_DATATYPE_NULL;

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  for (int e = 0; e < *len; e++) {
    double *a = (double *)in + 6 * e, *b = (double *)inout + 6 * e;
    PMPI_Reduce_local(a, b, 1, MPI_DOUBLE, MPI_SUM);
    for (int k = 2; k < 6; k++)
      if (a[k] > b[k])
        b[k] = a[k];
  }
}
static char *sscratch, *rscratch;
static MPI_Datatype stype, rtype;
static int struct_n;

static MPI_Datatype block_type(char *buf, char *scratch, int n) {
  MPI_Datatype t, r;
  int len[2] = {4, n};
  MPI_Aint at[2], b;
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_BYTE};
  PMPI_Get_address(buf, &b);
  PMPI_Get_address(scratch, &at[0]);
  at[0] = MPI_Aint_diff(at[0], b);
  at[1] = 0;
  PMPI_Type_create_struct(2, len, at, types, &t);
  PMPI_Type_create_resized(t, at[0] < 0 ? at[0] : 0, n, &r);
  PMPI_Type_commit(&r);
  PMPI_Type_free(&t);
  return r;
}

/* what revprof's general path adds natively: a 4-double maximum */
static void exchange(void) {
  double v[4] = {0.0, 0.0, 0.0, 0.0};
  PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, dup);
}

/* One call of op on n bytes per rank (n per destination for Alltoall),
 * native (PMPI_) or wrapped (MPI_). */
__attribute__((always_inline)) static inline void call(int op, int wrapped,
                                                      int n, int rank,
                                                      int size) {
  MPI_Comm w = MPI_COMM_WORLD;
  int cnt = n / 8; /* doubles */
  if (!wrapped && (op == ALLGATHERX || op == ALLTOALLX))
    exchange(); /* then the call itself, below */
  switch (op) {
  case BARRIER:
    wrapped ? MPI_Barrier(w) : PMPI_Barrier(w);
    break;
  case BCAST:
    wrapped ? MPI_Bcast(sbuf, n, MPI_BYTE, 0, w)
            : PMPI_Bcast(sbuf, n, MPI_BYTE, 0, w);
    break;
  case ALLREDUCE:
    if (wrapped == USEROP)
      PMPI_Allreduce(sbuf, rbuf, 1, elem48, user_op, w);
    else if (wrapped == SLOTS)
      PMPI_Allreduce(sbuf, rbuf, 7, MPI_DOUBLE, MPI_SUM, w);
    else
      wrapped ? MPI_Allreduce(sbuf, rbuf, cnt, MPI_DOUBLE, MPI_SUM, w)
            : PMPI_Allreduce(sbuf, rbuf, cnt, MPI_DOUBLE, MPI_SUM, w);
    break;
  case REDUCE:
    if (wrapped == USEROP)
      PMPI_Reduce(sbuf, rbuf, 1, elem48, user_op, 0, w);
    else if (wrapped == SLOTS)
      PMPI_Reduce(sbuf, rbuf, 7, MPI_DOUBLE, MPI_SUM, 0, w);
    else
      wrapped ? MPI_Reduce(sbuf, rbuf, cnt, MPI_DOUBLE, MPI_SUM, 0, w)
            : PMPI_Reduce(sbuf, rbuf, cnt, MPI_DOUBLE, MPI_SUM, 0, w);
    break;
  case ALLGATHER:
  case ALLGATHERX:
    if (wrapped == STRUCT)
      PMPI_Allgather(sbuf, 1, stype, rbuf, 1, rtype, w);
    else
      wrapped ? MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w)
            : PMPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w);
    break;
  case ALLTOALL:
  case ALLTOALLX:
    if (wrapped == STRUCT)
      PMPI_Alltoall(sbuf, 1, stype, rbuf, 1, rtype, w);
    else
      wrapped ? MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w)
            : PMPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, w);
    break;
  case BCAST40:
    wrapped ? MPI_Bcast(sbuf, n, MPI_BYTE, 0, w)
            : PMPI_Bcast(sbuf, n + 32, MPI_BYTE, 0, w);
    break;
  case REDUCE40:
    wrapped ? MPI_Reduce(sbuf, rbuf, cnt, MPI_DOUBLE, MPI_SUM, 0, w)
            : PMPI_Reduce(sbuf, rbuf, cnt + 4, MPI_DOUBLE, MPI_SUM, 0, w);
    break;
  default: /* ping-pong between ranks 0 and 1: one call = one way */
    if (rank == 0) {
      wrapped ? MPI_Send(sbuf, n, MPI_BYTE, 1, 1, w)
              : PMPI_Send(sbuf, n, MPI_BYTE, 1, 1, w);
      wrapped ? MPI_Recv(rbuf, n, MPI_BYTE, 1, 1, w, MPI_STATUS_IGNORE)
              : PMPI_Recv(rbuf, n, MPI_BYTE, 1, 1, w, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      wrapped ? MPI_Recv(rbuf, n, MPI_BYTE, 0, 1, w, MPI_STATUS_IGNORE)
              : PMPI_Recv(rbuf, n, MPI_BYTE, 0, 1, w, MPI_STATUS_IGNORE);
      wrapped ? MPI_Send(sbuf, n, MPI_BYTE, 0, 1, w)
              : PMPI_Send(sbuf, n, MPI_BYTE, 0, 1, w);
    }
    break;
  }
  (void)size;
}

/* Time per call over reps calls, the largest over the ranks (rank 0's
 * figure for the ping-pong, where a call is half a round trip). */
static double timed(int op, int wrapped, int n, int reps, int rank,
                    int size) {
  PMPI_Barrier(MPI_COMM_WORLD);
  double t0 = PMPI_Wtime();
  for (int i = 0; i < reps; i++)
    call(op, wrapped, n, rank, size);
  double t = (PMPI_Wtime() - t0) / (op == PINGPONG ? 2.0 * reps : reps);
  PMPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

/* Best time per call of op over rounds, alternating between a and b
 * (each an entry point, 0 native or 1 wrapped, and a size): t[0] for a,
 * t[1] for b. */
static void best_of(int op, int rounds, long budget, int rank, int size,
                    const int a[2], const int b[2], double t[2]) {
  const int *side[2] = {a, b};
  int reps = (int)(budget / (1 + b[1] / 4096));
  t[0] = t[1] = 1e30;
  timed(op, a[0], a[1], reps / 4 + 1, rank, size); /* warm up both */
  timed(op, b[0], b[1], reps / 4 + 1, rank, size);
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < 2; k++) {
      int w = (r + k) % 2; /* alternate which goes first */
      double x = timed(op, side[w][0], side[w][1], reps, rank, size);
      if (x < t[w])
        t[w] = x;
    }
}

/* "count N": the loops an instruction counter reads, kept out of line so
 * that each is a function of its own in the profile */
__attribute__((noinline)) static void loop_native(int op, long n, int rank,
                                                  int size) {
  for (long i = 0; i < n; i++)
    call(op, 0, 8, rank, size);
}
__attribute__((noinline)) static void loop_wrapped(int op, long n, int rank,
                                                   int size) {
  for (long i = 0; i < n; i++)
    call(op, 1, 8, rank, size);
}
static int count_mode(long n, const char *only, int rank, int size) {
  int first = BARRIER, last = ALLTOALL;
  if (n <= 0) {
    if (rank == 0)
      fprintf(stderr, "rp_bench_coll: count N: N must be a positive number\n");
    return 2;
  }
  if (only) {
    for (first = BARRIER; first <= ALLTOALL; first++)
      if (strcmp(only, op_name[first]) == 0)
        break;
    if (first > ALLTOALL) {
      if (rank == 0)
        fprintf(stderr, "rp_bench_coll: count N OP: OP is one of Barrier, "
                        "Bcast, Allreduce, Reduce, Allgather, Alltoall, not "
                        "'%s'\n", only);
      return 2;
    }
    last = first;
  }
  for (int op = first; op <= last; op++) {
    PMPI_Barrier(MPI_COMM_WORLD);
    loop_native(op, n, rank, size);
    PMPI_Barrier(MPI_COMM_WORLD);
    loop_wrapped(op, n, rank, size);
  }
  if (rank == 0)
    printf("# %ld calls of each collective at 8 bytes, native then wrapped\n",
           n);
  return 0;
}

int main(int argc, char **argv) {
  static const int sizes[] = {8, 65536};
  int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 30;
  long budget = argc > 2 ? atol(argv[2]) : 2000; /* calls at 8 B */
  int sweep = argc > 3 && strcmp(argv[3], "sweep") == 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0)
      fprintf(stderr, "rp_bench_coll: run on 2 or more ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t cap = (size_t)sizes[1] * (size_t)size;
  sbuf = calloc(cap, 1);
  rbuf = calloc(cap, 1);
  if (!sbuf || !rbuf || PMPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (argc > 2 && strcmp(argv[1], "count") == 0) {
    int rc = count_mode(atol(argv[2]), argc > 3 ? argv[3] : NULL, rank, size);
    PMPI_Comm_free(&dup);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return rc;
  }
  if (rank == 0)
    printf("# librevprof %s; %d ranks; best of %d alternating rounds\n"
           "%-10s %8s %12s %12s %8s\n",
           revprof_enabled() ? "predicting" : "OFF (pass-through)", size,
           rounds, "call", "bytes", "native us", "revprof us", "ratio");
  for (int op = 0; op < NOPS; op++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      int n = sizes[s];
      if (op == BARRIER && s > 0)
        continue;
      if ((op == PINGPONG || op == BCAST40 || op == REDUCE40) && s > 0)
        continue;
      if ((op == ALLGATHERX || op == ALLTOALLX) && s == 0)
        continue;
      const int native[2] = {0, n}, wrapped[2] = {1, n};
      double best[2];
      best_of(op, rounds, budget, rank, size, native, wrapped, best);
      if (rank == 0)
        printf("%-10s %8d %12.3f %12.3f %8.2f\n", op_name[op],
               op == BARRIER ? 0 : n, best[0] * 1e6, best[1] * 1e6,
               best[1] / best[0]);
    }
  for (int op = BCAST; sweep && op <= REDUCE; op += REDUCE - BCAST)
    for (int n = op == BCAST ? 12 : 16; n <= 64; n += n == 12 ? 4 : 8) {
      const int at8[2] = {0, 8}, atn[2] = {0, n};
      double best[2];
      best_of(op, rounds, budget, rank, size, at8, atn, best);
      if (rank == 0)
        printf("%s~%-*d %8d %12.3f %12.3f %8.2f\n", op_name[op],
               (int)(9 - strlen(op_name[op])), n, n, best[0] * 1e6,
               best[1] * 1e6, best[1] / best[0]);
    }
  struct_n = sizes[1];
  sscratch = sweep ? calloc(cap, 1) : NULL;
  rscratch = sweep ? calloc(cap, 1) : NULL;
  if (sweep && (!sscratch || !rscratch))
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (sweep) {
    stype = block_type(sbuf, sscratch, struct_n);
    rtype = block_type(rbuf, rscratch, struct_n);
  }
  for (int op = ALLGATHER; sweep && op <= ALLTOALL; op++) {
    const int plain[2] = {NATIVE, struct_n}, st[2] = {STRUCT, struct_n};
    double best[2];
    best_of(op, rounds, budget, rank, size, plain, st, best);
    char name[32];
    snprintf(name, sizeof name, "%s/s", op_name[op]);
    if (rank == 0)
      printf("%-10s %8d %12.3f %12.3f %8.2f\n", name, struct_n,
             best[0] * 1e6, best[1] * 1e6, best[1] / best[0]);
  }
  if (sweep) {
    PMPI_Op_create(user_fn, 1, &user_op);
    PMPI_Type_contiguous(6, MPI_DOUBLE, &elem48);
    PMPI_Type_commit(&elem48);
  }
  for (int op = ALLREDUCE; sweep && op <= REDUCE; op++) {
    const int u[2] = {USEROP, 8}, sl[2] = {SLOTS, 8};
    double best[2];
    best_of(op, rounds, budget, rank, size, u, sl, best);
    char name[32];
    snprintf(name, sizeof name, "%s/u", op_name[op]);
    if (rank == 0)
      printf("%-10s %8d %12.3f %12.3f %8.2f\n", name, 8, best[0] * 1e6,
             best[1] * 1e6, best[1] / best[0]);
  }
  if (sweep) {
    PMPI_Type_free(&stype);
    PMPI_Type_free(&rtype);
    PMPI_Type_free(&elem48);
    PMPI_Op_free(&user_op);
  }
  free(sscratch);
  free(rscratch);
  PMPI_Comm_free(&dup);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
