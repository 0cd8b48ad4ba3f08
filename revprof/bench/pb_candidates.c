/* Piggyback candidates measured against native MPI: one-way ping-pong
 * latency of each way of carrying librevprof's piggyback, NPB doubles (the
 * clocks, rank and size, the message's number), with a message (bench
 * only). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* native: the message alone. shadow-msg: data, then the clocks as a second
 * message on a duplicate communicator. pack: MPI_Pack of clocks and data,
 * sent as MPI_PACKED. copy: the same bytes built with memcpy (what MPI_Pack
 * produces for gap-free data here), the receiver unpacking with memcpy and
 * fixing the status. struct-cached / struct-percall: one struct datatype
 * {NPB doubles at the clock slot, data at the buffer} over MPI_BOTTOM, built
 * once or at every call. */
enum { NATIVE, SHADOW, PACK, COPY, STRUCT_CACHED, STRUCT_PERCALL, NCAND };
static const char *cand_name[NCAND] = {"native", "shadow-msg", "pack", "copy",
                                       "struct-cached", "struct-percall"};

/* NPB: RP_PB_DOUBLES (rp_state.h), 5, or the third argument (1 to 8): how
   much the header's size weighs against the mechanism's */
enum { NPB_MAX = 8 };
static int NPB = 5;
#define PBB ((int)(NPB * sizeof(double)))
static double pb_out[NPB_MAX], pb_in[NPB_MAX];
static char *packbuf;

static MPI_Datatype make_struct(void *buf, int n, double *slot) {
  MPI_Datatype t, types[2] = {MPI_DOUBLE, MPI_BYTE};
  int lens[2] = {NPB, n};
  MPI_Aint disp[2];
  MPI_Get_address(slot, &disp[0]);
  MPI_Get_address(buf, &disp[1]);
  MPI_Type_create_struct(2, lens, disp, types, &t);
  MPI_Type_commit(&t);
  return t;
}

static void do_send(int c, char *buf, int n, int peer, MPI_Comm comm,
                    MPI_Comm shadow, MPI_Datatype cached) {
  int pos = 0;
  MPI_Datatype t;
  switch (c) {
  case NATIVE:
    MPI_Send(buf, n, MPI_BYTE, peer, 1, comm);
    break;
  case SHADOW:
    MPI_Send(buf, n, MPI_BYTE, peer, 1, comm);
    MPI_Send(pb_out, NPB, MPI_DOUBLE, peer, 1, shadow);
    break;
  case PACK:
    MPI_Pack(pb_out, NPB, MPI_DOUBLE, packbuf, n + 64, &pos, comm);
    MPI_Pack(buf, n, MPI_BYTE, packbuf, n + 64, &pos, comm);
    MPI_Send(packbuf, pos, MPI_PACKED, peer, 1, comm);
    break;
  case COPY:
    memcpy(packbuf, pb_out, PBB);
    memcpy(packbuf + PBB, buf, (size_t)n);
    MPI_Send(packbuf, n + PBB, MPI_PACKED, peer, 1, comm);
    break;
  case STRUCT_CACHED:
    MPI_Send(MPI_BOTTOM, 1, cached, peer, 1, comm);
    break;
  case STRUCT_PERCALL:
    t = make_struct(buf, n, pb_out);
    MPI_Send(MPI_BOTTOM, 1, t, peer, 1, comm);
    MPI_Type_free(&t);
    break;
  }
}

static void do_recv(int c, char *buf, int n, int peer, MPI_Comm comm,
                    MPI_Comm shadow, MPI_Datatype cached) {
  int pos = 0, got;
  MPI_Status st;
  MPI_Datatype t;
  switch (c) {
  case NATIVE:
    MPI_Recv(buf, n, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE);
    break;
  case SHADOW:
    MPI_Recv(buf, n, MPI_BYTE, peer, 1, comm, &st);
    MPI_Recv(pb_in, NPB, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, shadow,
             MPI_STATUS_IGNORE);
    break;
  case PACK:
    MPI_Recv(packbuf, n + 64, MPI_PACKED, peer, 1, comm, &st);
    MPI_Get_count(&st, MPI_PACKED, &got);
    MPI_Unpack(packbuf, got, &pos, pb_in, NPB, MPI_DOUBLE, comm);
    MPI_Unpack(packbuf, got, &pos, buf, got - PBB, MPI_BYTE, comm);
    break;
  case COPY:
    MPI_Recv(packbuf, n + PBB, MPI_PACKED, peer, 1, comm, &st);
    MPI_Get_count(&st, MPI_PACKED, &got);
    memcpy(pb_in, packbuf, PBB);
    memcpy(buf, packbuf + PBB, (size_t)(got - PBB));
    MPI_Status_set_elements(&st, MPI_BYTE, got - PBB);
    break;
  case STRUCT_CACHED:
    MPI_Recv(MPI_BOTTOM, 1, cached, peer, 1, comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &got);
    MPI_Status_set_elements(&st, MPI_BYTE, got - PBB);
    break;
  case STRUCT_PERCALL:
    t = make_struct(buf, n, pb_in);
    MPI_Recv(MPI_BOTTOM, 1, t, peer, 1, comm, &st);
    MPI_Type_free(&t);
    MPI_Get_count(&st, MPI_BYTE, &got);
    MPI_Status_set_elements(&st, MPI_BYTE, got - PBB);
    break;
  }
}

int main(int argc, char **argv) {
  static const int sizes[] = {8, 1024, 2048, 4096, 8192, 16384, 65536, 1048576};
  int rank, reps = argc > 1 ? atoi(argv[1]) : 2000;
  int rounds = argc > 2 ? atoi(argv[2]) : 7;
  if (argc > 3)
    NPB = atoi(argv[3]);
  if (NPB < 1 || NPB > NPB_MAX) {
    fprintf(stderr, "usage: rp_bench_piggyback [REPS [ROUNDS [DOUBLES]]] "
                    "(DOUBLES of header, 1 to %d)\n", NPB_MAX);
    return 2;
  }
  MPI_Comm shadow;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &shadow);
  if (rank == 0)
    printf("# piggyback candidates, best of %d interleaved rounds\n"
           "%-10s %-15s %12s %8s\n",
           rounds, "bytes", "candidate", "one-way us", "ratio");
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    int n = sizes[si], r = n >= 65536 ? reps / 10 : n >= 4096 ? reps / 2 : reps;
    char *buf = malloc(n);
    memset(buf, rank, n);
    packbuf = malloc(n + 64);
    double best[NCAND];
    MPI_Datatype cs = make_struct(buf, n, pb_out);
    MPI_Datatype cr = make_struct(buf, n, pb_in);
    for (int c = 0; c < NCAND; c++)
      best[c] = 1e30;
    for (int round = 0; round < rounds; round++) /* interleaved */
      for (int c = 0; c < NCAND; c++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < r; i++) {
          if (rank == 0) {
            do_send(c, buf, n, 1, MPI_COMM_WORLD, shadow, cs);
            do_recv(c, buf, n, 1, MPI_COMM_WORLD, shadow, cr);
          } else if (rank == 1) {
            do_recv(c, buf, n, 0, MPI_COMM_WORLD, shadow, cr);
            do_send(c, buf, n, 0, MPI_COMM_WORLD, shadow, cs);
          }
        }
        double t = (MPI_Wtime() - t0) / (2.0 * r);
        if (t < best[c])
          best[c] = t;
      }
    if (rank == 0)
      for (int c = 0; c < NCAND; c++)
        printf("%-10d %-15s %12.3f %8.3f\n", n, cand_name[c], best[c] * 1e6,
               best[c] / best[NATIVE]);
    MPI_Type_free(&cs);
    MPI_Type_free(&cr);
    free(buf);
    free(packbuf);
  }
  MPI_Comm_free(&shadow);
  MPI_Finalize();
  return 0;
}
