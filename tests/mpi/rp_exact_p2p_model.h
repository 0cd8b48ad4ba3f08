/* The constants of rp_exact_p2p_model.lua, for the paper simulations of
 * the point-to-point exactness tests (rp_exact_p2p.c, rp_wildcard.c):
 * c + k * d per bound (min, avg, max), seconds, d in bytes. */
#ifndef RP_EXACT_P2P_MODEL_H
#define RP_EXACT_P2P_MODEL_H

#define NB 3

typedef struct lin {
  double c[NB], k[NB];
} lin;

/* not every test uses every row */
#define RP_ROW static const lin __attribute__((unused))
RP_ROW SEND = {{5e-7, 1e-6, 2e-6}, {5e-10, 1e-9, 2e-9}};
RP_ROW RECV = {{1e-6, 2e-6, 4e-6}, {2.5e-10, 5e-10, 1e-9}};
RP_ROW LAT = {{3e-6, 5e-6, 8e-6}, {1e-9, 2e-9, 4e-9}};
RP_ROW ISEND = {{2.5e-7, 5e-7, 1e-6}, {5e-11, 1e-10, 2e-10}};
RP_ROW IRECV = {{2e-6, 3e-6, 6e-6}, {5e-10, 1e-9, 2e-9}};
RP_ROW WAIT = {{1e-7, 2e-7, 4e-7}, {5e-12, 1e-11, 2e-11}};
/* the gap's two regimes: below 64 KiB, and from there */
RP_ROW GAP_SMALL = {{5e-7, 1e-6, 2e-6}, {2.5e-10, 5e-10, 1e-9}};
RP_ROW GAP_LARGE = {{0, 0, 0}, {5e-10, 1e-9, 2e-9}};
/* posting a receive: only in the "post" variant's model (rp_check.sh adds
   the row as post = lin(1e-7, 2e-12, 5e-8, 1e-12, 2e-7, 4e-12)) */
RP_ROW POST = {{5e-8, 1e-7, 2e-7}, {1e-12, 2e-12, 4e-12}};
/* an exchange of one message each way: only in the "pair" variant's
   model (rp_check.sh adds it as MPI_Sendrecv = lin(2e-5, 4e-9, 1e-5,
   2e-9, 4e-5, 8e-9)) */
RP_ROW SENDRECV = {{1e-5, 2e-5, 4e-5}, {2e-9, 4e-9, 8e-9}};
#undef RP_ROW

static inline double L(const lin *f, int b, double d) {
  return f->c[b] + f->k[b] * d;
}
static inline double mx(double a, double b) { return a > b ? a : b; }

#endif
