/* Every point-to-point binding against every other, for librevprof's
 * piggyback (issue 17): a message sent by any binding must arrive intact,
 * with its count, at any other, whatever the encodings on both sides.
 *
 *   rp_bindings matrix   rank 0 sends with each sender binding, rank 1
 *                        receives with each receiver binding: contiguous
 *                        and gapped (derived) types on either side, 0 B,
 *                        8 B and 64 KiB (above the copy threshold); data,
 *                        untouched gaps and counts checked on both sides
 *   rp_bindings exchange both ranks at once: Sendrecv against Isendrecv,
 *                        Sendrecv_replace against Isendrecv_replace
 *   rp_bindings zeros    zero-size derived types with NULL buffers (MPICH's
 *                        datatype/hindexed_zeros, coll/bcastzerotype):
 *                        send/receive, Sendrecv_replace, Bcast
 *   rp_bindings big      MPI 4: Send_c / Recv_c of INT_MAX + 16 bytes
 *
 * Prints "bindings MODE: N messages, F failed checks" on rank 0; exits 1
 * when F > 0. Runs natively too (2 ranks). */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBIG 16384 /* ints: 64 KiB */

static int rank, failed, messages;

static void check(int ok, const char *what, const char *s, const char *r,
                  int tp, int n) {
  if (ok)
    return;
  if (failed++ < 20)
    fprintf(stderr, "rank %d: %s wrong: sender %s, receiver %s, types %d, "
            "%d elements\n", rank, what, s, r, tp, n);
}

/* ------------------------------------------------------------ bindings */

enum { B_PLAIN, B_NB, B_C, B_NB_C, B_SR, B_ISR, B_SR_C, B_PERSIST, B_MPROBE,
       B_COUNT };
static const char *const bname[B_COUNT] = {
    "plain", "nonblocking", "large-count", "nonblocking-large-count",
    "Sendrecv", "Isendrecv", "Sendrecv_c", "persistent", "Mprobe"};

static int available(int b) {
#if MPI_VERSION >= 4
  (void)b;
  return 1;
#else
  return b != B_C && b != B_NB_C && b != B_ISR && b != B_SR_C;
#endif
}

static void sender(int b, const void *buf, int n, MPI_Datatype t, int tag) {
  MPI_Request req = MPI_REQUEST_NULL;
  switch (b) {
  case B_PLAIN:
  case B_MPROBE: MPI_Send(buf, n, t, 1, tag, MPI_COMM_WORLD); break;
  case B_NB: MPI_Isend(buf, n, t, 1, tag, MPI_COMM_WORLD, &req); break;
  case B_SR:
    MPI_Sendrecv(buf, n, t, 1, tag, NULL, 0, MPI_INT, MPI_PROC_NULL, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    break;
  case B_PERSIST:
    MPI_Send_init(buf, n, t, 1, tag, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
    break;
#if MPI_VERSION >= 4
  case B_C: MPI_Send_c(buf, n, t, 1, tag, MPI_COMM_WORLD); break;
  case B_NB_C: MPI_Isend_c(buf, n, t, 1, tag, MPI_COMM_WORLD, &req); break;
  case B_ISR:
    MPI_Isendrecv(buf, n, t, 1, tag, NULL, 0, MPI_INT, MPI_PROC_NULL, 0,
                  MPI_COMM_WORLD, &req);
    break;
  case B_SR_C:
    MPI_Sendrecv_c(buf, n, t, 1, tag, NULL, 0, MPI_INT, MPI_PROC_NULL, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    break;
#endif
  default: break;
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* Receives; returns the element count the status gives. */
static long long receiver(int b, void *buf, int n, MPI_Datatype t, int tag) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;
  switch (b) {
  case B_PLAIN: MPI_Recv(buf, n, t, 0, tag, MPI_COMM_WORLD, &st); break;
  case B_NB:
    MPI_Irecv(buf, n, t, 0, tag, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    break;
  case B_SR:
    MPI_Sendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, buf, n, t, 0, tag,
                 MPI_COMM_WORLD, &st);
    break;
  case B_PERSIST:
    MPI_Recv_init(buf, n, t, 0, tag, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Wait(&req, &st);
    MPI_Request_free(&req);
    break;
  case B_MPROBE: {
    MPI_Message m;
    MPI_Status pst;
    int pn = -1, ok;
    MPI_Mprobe(0, tag, MPI_COMM_WORLD, &m, &pst);
    MPI_Get_count(&pst, t, &pn); /* the probe shows the user's count */
    ok = pn == n;
    check(ok, "probed count", "?", bname[b], 0, n);
    MPI_Mrecv(buf, n, t, &m, &st);
    break;
  }
#if MPI_VERSION >= 4
  case B_C: MPI_Recv_c(buf, n, t, 0, tag, MPI_COMM_WORLD, &st); break;
  case B_NB_C:
    MPI_Irecv_c(buf, n, t, 0, tag, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    break;
  case B_ISR:
    MPI_Isendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, buf, n, t, 0, tag,
                  MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    break;
  case B_SR_C:
    MPI_Sendrecv_c(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, buf, n, t, 0, tag,
                   MPI_COMM_WORLD, &st);
    break;
  default: break;
#endif
  }
#if MPI_VERSION >= 4
  MPI_Count c = -1;
  MPI_Get_count_c(&st, t, &c);
  return c;
#else
  int c = -1;
  MPI_Get_count(&st, t, &c);
  return c;
#endif
}

/* ------------------------------------------------------------- the modes */

/* Element i of a message: at buf[i] (contiguous) or buf[2 i] (gapped). */
static int at(int gapped, int i) { return gapped ? 2 * i : i; }

static void matrix(void) {
  MPI_Datatype gap;
  MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &gap);
  MPI_Type_commit(&gap);
  const int sizes[3] = {0, 2, NBIG};
  int *buf = malloc(2 * NBIG * sizeof *buf), tag = 0;
  for (int sb = 0; sb < B_COUNT; sb++)
    for (int rb = 0; rb < B_COUNT; rb++)
      for (int tp = 0; tp < 4; tp++) /* bit 0: sender gapped, 1: receiver */
        for (int k = 0; k < 3; k++, tag++) {
          int n = sizes[k], sg = tp & 1, rg = (tp >> 1) & 1;
          if (!available(sb) || !available(rb) || sb == B_MPROBE)
            continue; /* (Mprobe is a receiver's binding) */
          if (rank == 0) {
            for (int i = 0; i < 2 * NBIG; i++)
              buf[i] = 1000 * tag + i;
            sender(sb, buf, n, sg ? gap : MPI_INT, tag);
            int same = 1;
            for (int i = 0; i < 2 * NBIG; i++)
              same &= buf[i] == 1000 * tag + i;
            check(same, "sender's buffer", bname[sb], bname[rb], tp, n);
          } else {
            for (int i = 0; i < 2 * NBIG; i++)
              buf[i] = -1;
            long long c =
                receiver(rb, buf, n, rg ? gap : MPI_INT, tag);
            int ok = 1;
            for (int i = 0; i < n; i++)
              ok &= buf[at(rg, i)] == 1000 * tag + at(sg, i);
            check(ok, "data", bname[sb], bname[rb], tp, n);
            ok = 1;
            for (int i = 0; i < 2 * NBIG; i++) {
              int written = rg ? i % 2 == 0 && i < 2 * n : i < n;
              ok &= written || buf[i] == -1;
            }
            check(ok, "gaps and bytes past the message", bname[sb], bname[rb],
                  tp, n);
            check(c == n, "count", bname[sb], bname[rb], tp, n);
          }
          messages++;
        }
  free(buf);
  MPI_Type_free(&gap);
}

static void exchange(void) {
  int peer = 1 - rank, a[64], b[64];
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 64; i++) {
      a[i] = 100 * rank + i;
      b[i] = -1;
    }
    MPI_Status st;
    int c = -1;
    if (round == 0) { /* both ways, a Sendrecv against an Isendrecv */
#if MPI_VERSION >= 4
      if (rank == 1) {
        MPI_Request req;
        MPI_Isendrecv(a, 64, MPI_INT, peer, 5, b, 64, MPI_INT, peer, 5,
                      MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st);
      } else
#endif
        MPI_Sendrecv(a, 64, MPI_INT, peer, 5, b, 64, MPI_INT, peer, 5,
                     MPI_COMM_WORLD, &st);
      int ok = 1;
      for (int i = 0; i < 64; i++)
        ok &= b[i] == 100 * peer + i && a[i] == 100 * rank + i;
      check(ok, "exchanged data", "Sendrecv", "Isendrecv", 0, 64);
    } else { /* in place */
#if MPI_VERSION >= 4
      if (rank == 1) {
        MPI_Request req;
        MPI_Isendrecv_replace(a, 64, MPI_INT, peer, 6, peer, 6,
                              MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st);
      } else
#endif
        MPI_Sendrecv_replace(a, 64, MPI_INT, peer, 6, peer, 6,
                             MPI_COMM_WORLD, &st);
      int ok = 1;
      for (int i = 0; i < 64; i++)
        ok &= a[i] == 100 * peer + i;
      check(ok, "replaced data", "Sendrecv_replace", "Isendrecv_replace", 0,
            64);
    }
    MPI_Get_count(&st, MPI_INT, &c);
    check(c == 64, "count", "Sendrecv", "Isendrecv", round, 64);
    messages++;
  }
}

static void zeros(void) {
  /* a contiguous type of nothing, and an hindexed one of empty blocks */
  MPI_Datatype none, holes;
  int lens[2] = {0, 0};
  MPI_Aint disp[2] = {0, 64};
  MPI_Type_contiguous(0, MPI_INT, &none);
  MPI_Type_commit(&none);
  MPI_Type_create_hindexed(2, lens, disp, MPI_INT, &holes);
  MPI_Type_commit(&holes);
  MPI_Datatype ts[2] = {none, holes};
  for (int k = 0; k < 2; k++) {
    MPI_Status st;
    int c = -1;
    if (rank == 0) {
      MPI_Send(NULL, 1, ts[k], 1, 10 + k, MPI_COMM_WORLD);
      MPI_Request req;
      MPI_Isend(NULL, 3, ts[k], 1, 20 + k, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Request req;
      MPI_Irecv(NULL, 2, ts[k], 0, 10 + k, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, &st);
      MPI_Get_count(&st, MPI_INT, &c);
      check(c == 0, "count of an empty message", "Send", "Irecv", k, 0);
      MPI_Recv(NULL, 1, ts[k], 0, 20 + k, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_INT, &c);
      check(c == 0, "count of an empty message", "Isend", "Recv", k, 0);
    }
    messages += 2;
    /* both ways at once, the buffer replaced; and a broadcast of ten
       empty elements (MPICH's coll/bcastzerotype): nothing to pack */
    int other = 1 - rank;
    MPI_Sendrecv_replace(NULL, 4, ts[k], other, 40 + k, other, 40 + k,
                         MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    check(c == 0, "count of an empty message", "Sendrecv_replace",
          "Sendrecv_replace", k, 0);
    MPI_Bcast(NULL, 10, ts[k], 0, MPI_COMM_WORLD);
    int dummy = 7;
    MPI_Allreduce(MPI_IN_PLACE, &dummy, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(dummy == 14, "allreduce after an empty broadcast", "Bcast",
          "Bcast", k, 10);
    messages += 2;
  }
  MPI_Type_free(&none);
  MPI_Type_free(&holes);
}

static void big(void) {
#if MPI_VERSION >= 4
  MPI_Count n = (MPI_Count)INT_MAX + 16;
  unsigned char *buf = malloc((size_t)n);
  if (buf == NULL) {
    check(0, "memory for the large message", "Send_c", "Recv_c", 0, 0);
    return;
  }
  if (rank == 0) {
    for (MPI_Count i = 0; i < n; i += 4096)
      buf[i] = (unsigned char)(i / 4096);
    buf[n - 1] = 0xAB;
    MPI_Send_c(buf, n, MPI_BYTE, 1, 30, MPI_COMM_WORLD);
  } else {
    MPI_Status st;
    MPI_Count c = -1;
    memset(buf, 0, (size_t)n);
    MPI_Recv_c(buf, n, MPI_BYTE, 0, 30, MPI_COMM_WORLD, &st);
    int ok = buf[n - 1] == 0xAB;
    for (MPI_Count i = 0; i < n; i += 4096)
      ok &= buf[i] == (unsigned char)(i / 4096);
    check(ok, "data", "Send_c", "Recv_c", 0, -1);
    MPI_Get_count_c(&st, MPI_BYTE, &c);
    check(c == n, "count", "Send_c", "Recv_c", 0, -1);
  }
  messages++;
  free(buf);
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "matrix";
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0)
      fprintf(stderr, "rp_bindings: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (strcmp(mode, "matrix") == 0)
    matrix();
  else if (strcmp(mode, "exchange") == 0)
    exchange();
  else if (strcmp(mode, "zeros") == 0)
    zeros();
  else if (strcmp(mode, "big") == 0)
    big();
  else {
    if (rank == 0)
      fprintf(stderr, "rp_bindings: unknown mode '%s'\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int all = 0;
  MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("bindings %s: %d messages, %d failed checks\n", mode, messages,
           all);
  MPI_Finalize();
  return all > 0;
}
