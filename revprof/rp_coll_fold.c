/* Collectives whose clock exchange rides in the application's own call,
 * instead of a second collective on the shadow communicator (rp_coll.c):
 * at small sizes that second call cost more than the application's
 * (bench/collective-overhead.sh). Each function here returns 1 when it
 * made the call (its return code in *rc, the clock rule applied), 0 when
 * the call is not one it folds, having done nothing; then the wrapper
 * takes the general path. Whether a call folds depends only on arguments
 * every member passes alike (the block size, MPI_IN_PLACE, the operation,
 * the group size, the root), never on local state, so all members take the
 * same path. The rule is the general path's: for the collectives without a
 * root every member ends with the maximum of all members' start clocks and
 * sizes, then now = that + T_fn(p, d); for rooted ones the maximum over
 * what the data brought (rp_root_known in rp_clock.h).
 *
 *   MPI_Allgather, MPI_Alltoall: each block travels as MPI_PACKED behind
 *     the sender's clocks; every member receives every other's.
 *   MPI_Allreduce: the data and the clocks reduce together under one
 *     user-defined operation, which applies the application's predefined
 *     operation to the data (MPI_Reduce_local) and the maximum to the
 *     clocks. Only where that gives the same bits as the application's own
 *     call whatever order the MPI combines the members in: operations that
 *     are exact (MAX, MIN, MAXLOC, MINLOC, logical and bitwise), SUM and
 *     PROD of integers, and SUM and PROD of anything on 2 members (one
 *     combination, commutative). Floating-point sums on 3 or more members
 *     keep the general path. MPI_Reduce: the same, to the root.
 *   MPI_Bcast, MPI_Scatter: the root's clocks travel in front of the data
 *     (every block); MPI_Gather: each member's in front of its block. */
#include "rp_coll.h"

#include <math.h>
#include <string.h>

/* largest block (bytes per member) that folds, and the staging buffers:
 * static so that no member can fail to get them (a member that fell back
 * alone would deadlock the others) */
#define RP_FOLD_BLOCK 2048
#define RP_FOLD_BUF (512 * 1024)
static unsigned char fold_send[RP_FOLD_BUF], fold_recv[RP_FOLD_BUF];

static void fold_max(double acc[RP_XCH_DOUBLES], const double v[RP_XCH_DOUBLES]) {
  for (int k = 0; k < RP_XCH_DOUBLES; k++)
    if (v[k] > acc[k])
      acc[k] = v[k];
}

/* The rule, from the maximum over what the member knows, v; a rooted
 * call's member's own part (rp_coll_part) with the root's start clocks
 * where they arrived (root, else NULL) */
static void fold_rule_part(rp_comm *c, revprof_fn fn,
                           const double v[RP_XCH_DOUBLES], revprof_fn part,
                           const double *root) {
  rp_coll_ex x;
  x.fn = fn;
  x.p = (double)c->size;
  x.synced = 1;
  x.part = part;
  x.has_arr = root != NULL;
  memcpy(x.v, v, sizeof x.v);
  if (root)
    memcpy(x.arr, root, sizeof x.arr);
  rp_coll_finish(&x);
}

static void fold_rule(rp_comm *c, revprof_fn fn, const double v[RP_XCH_DOUBLES]) {
  fold_rule_part(c, fn, v, REVPROF_FN_COUNT, NULL);
}

/* Bytes of one block (the clocks, then count of type) when the call folds,
 * else 0. The same formula on every member, from the type signature only,
 * so that members whose types differ but match agree on it. */
static int fold_block(rp_comm *c, int count, MPI_Datatype type) {
  /* the fold buffers are one per process: not with threads (rp_mt.c) */
  if (!c->intra || c->size < 2 || count < 0 || rp_g.mt)
    return 0;
  double data = (double)count * rp_type_info_fast(type).size;
  if (data > RP_FOLD_BLOCK)
    return 0;
  long block = (long)data + RP_XCH_BYTES;
  return block * c->size <= RP_FOLD_BUF ? (int)block : 0;
}

static MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0, ext = 0;
  PMPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

/* Block b of fold_send: v, then count of type at buf. A gap-free named
 * type is copied, others packed; both give the bytes the native
 * representation has, so the block travels as MPI_PACKED either way. */
static void pack_block(const void *buf, int count, MPI_Datatype type,
                       const double *v, int b, int block, MPI_Comm comm) {
  unsigned char *out = fold_send + (size_t)b * (size_t)block;
  memcpy(out, v, RP_XCH_BYTES);
  if (rp_type_info_fast(type).plain)
    memcpy(out + RP_XCH_BYTES, buf, (size_t)block - RP_XCH_BYTES);
  else if (block > RP_XCH_BYTES) { /* (MPICH 4.0.2's pack and unpack
                                     divide by the size: not for 0 B) */
    int pos = RP_XCH_BYTES;
    PMPI_Pack(buf, count, type, out, block, &pos, comm);
  }
}

/* Block b of from (fold_recv, or fold_send after a broadcast): its data
 * into count of type at buf (NULL: the data stays where it is), its clocks
 * into acc (maximum) */
static void unpack_block(const unsigned char *from, void *buf, int count,
                         MPI_Datatype type, double *acc, int b, int block,
                         MPI_Comm comm) {
  double v[RP_XCH_DOUBLES];
  const unsigned char *in = from + (size_t)b * (size_t)block;
  memcpy(v, in, RP_XCH_BYTES);
  if (buf == NULL)
    ;
  else if (rp_type_info_fast(type).plain)
    memcpy(buf, in + RP_XCH_BYTES, (size_t)block - RP_XCH_BYTES);
  else if (block > RP_XCH_BYTES) { /* zero-size data: nothing to unpack */
    int pos = RP_XCH_BYTES;
    PMPI_Unpack(in, block, &pos, buf, count, type, comm);
  }
  fold_max(acc, v);
}

/* Allgather (every member sends the same block to all) or Alltoall (block
 * j to member j) of the packed blocks; the application's arguments */
static int fold_blocks(int alltoall, rp_comm *c, revprof_fn fn, double d,
                       int *rc, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm) {
  int block =
      sendbuf == MPI_IN_PLACE ? 0 : fold_block(c, recvcount, recvtype);
  if (block == 0)
    return 0;
  double mine[RP_XCH_DOUBLES], acc[RP_XCH_DOUBLES];
  rp_my_clocks(d, mine);
  memcpy(acc, mine, sizeof acc);
  MPI_Aint sext = extent_of(sendtype);
  for (int j = 0; j < (alltoall ? c->size : 1); j++)
    pack_block((const char *)sendbuf + (MPI_Aint)j * sendcount * sext,
               sendcount, sendtype, mine, j, block, comm);
  *rc = alltoall ? PMPI_Alltoall(fold_send, block, MPI_PACKED, fold_recv,
                                 block, MPI_PACKED, comm)
                 : PMPI_Allgather(fold_send, block, MPI_PACKED, fold_recv,
                                  block, MPI_PACKED, comm);
  if (*rc == MPI_SUCCESS) {
    MPI_Aint ext = extent_of(recvtype);
    for (int j = 0; j < c->size; j++)
      unpack_block(fold_recv, (char *)recvbuf + (MPI_Aint)j * recvcount * ext,
                   recvcount, recvtype, acc, j, block, comm);
  }
  fold_rule(c, fn, acc);
  return 1;
}

int rp_fold_MPI_Allgather(rp_comm *c, revprof_fn fn, double d, int *rc,
                          const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  return fold_blocks(0, c, fn, d, rc, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm);
}

int rp_fold_MPI_Alltoall(rp_comm *c, revprof_fn fn, double d, int *rc,
                         const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm) {
  return fold_blocks(1, c, fn, d, rc, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, comm);
}

/* ---- rooted: MPI_Bcast, MPI_Scatter, MPI_Gather. The blocks carry the
 * clocks the data's way: the root's to the others (Bcast, Scatter), every
 * member's to the root (Gather); each member applies what it learnt
 * (rp_root_known). The root's block is described by its receive (Gather)
 * or send (Scatter) arguments, the others' by their own: the same bytes,
 * since MPI requires matching type signatures. */

static int bad_root(const rp_comm *c, int root) {
  return root < 0 || root >= c->size;
}

/* Scatter and Gather: the block as the root describes it (root_count of
 * root_type) or as the others do (own_count of own_type); 0 when the call
 * does not fold. *me: this member is the root. */
static int rooted_block(rp_comm *c, int root, int *me, int root_count,
                        MPI_Datatype root_type, int own_count,
                        MPI_Datatype own_type) {
  *me = !bad_root(c, root) && c->rank == root;
  return bad_root(c, root) ? 0
         : *me             ? fold_block(c, root_count, root_type)
                           : fold_block(c, own_count, own_type);
}

int rp_fold_MPI_Bcast(rp_comm *c, revprof_fn fn, double d, int *rc,
                      void *buffer, int count, MPI_Datatype datatype, int root,
                      MPI_Comm comm) {
  int block = bad_root(c, root) ? 0 : fold_block(c, count, datatype);
  if (block == 0)
    return 0;
  double mine[RP_XCH_DOUBLES], acc[RP_XCH_DOUBLES], from[RP_XCH_DOUBLES];
  int got = 0;
  rp_my_clocks(d, mine);
  if (c->rank == root)
    pack_block(buffer, count, datatype, mine, 0, block, comm);
  *rc = PMPI_Bcast(fold_send, block, MPI_PACKED, root, comm);
  if (*rc == MPI_SUCCESS && c->rank != root) {
    for (int k = 0; k < RP_XCH_DOUBLES; k++)
      from[k] = -HUGE_VAL; /* the root's, exactly */
    unpack_block(fold_send, buffer, count, datatype, from, 0, block, comm);
    got = 1;
  }
  memcpy(acc, mine, sizeof acc);
  if (got)
    fold_max(acc, from);
  fold_rule_part(c, fn, acc, rp_coll_part(fn, c->rank == root),
                 got ? from : NULL);
  return 1;
}

int rp_fold_MPI_Scatter(rp_comm *c, revprof_fn fn, double d, int *rc,
                        const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int me, block = rooted_block(c, root, &me, sendcount, sendtype, recvcount,
                               recvtype);
  if (block == 0)
    return 0;
  double mine[RP_XCH_DOUBLES], acc[RP_XCH_DOUBLES];
  rp_my_clocks(d, mine);
  memcpy(acc, mine, sizeof acc);
  if (me) {
    MPI_Aint sext = extent_of(sendtype);
    for (int j = 0; j < c->size; j++)
      pack_block((const char *)sendbuf + (MPI_Aint)j * sendcount * sext,
                 sendcount, sendtype, mine, j, block, comm);
  }
  *rc = PMPI_Scatter(fold_send, block, MPI_PACKED, fold_recv, block,
                     MPI_PACKED, root, comm);
  if (*rc == MPI_SUCCESS && !(me && recvbuf == MPI_IN_PLACE))
    unpack_block(fold_recv, recvbuf, recvcount, recvtype, acc, 0, block, comm);
  fold_rule(c, fn, acc);
  return 1;
}

int rp_fold_MPI_Gather(rp_comm *c, revprof_fn fn, double d, int *rc,
                       const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm) {
  int me, block = rooted_block(c, root, &me, recvcount, recvtype, sendcount,
                               sendtype);
  if (block == 0)
    return 0;
  double mine[RP_XCH_DOUBLES], acc[RP_XCH_DOUBLES];
  rp_my_clocks(d, mine);
  memcpy(acc, mine, sizeof acc);
  MPI_Aint rext = me ? extent_of(recvtype) : 0;
  if (me && sendbuf == MPI_IN_PLACE) /* the root's block is in place */
    pack_block((const char *)recvbuf + (MPI_Aint)root * recvcount * rext,
               recvcount, recvtype, mine, 0, block, comm);
  else
    pack_block(sendbuf, sendcount, sendtype, mine, 0, block, comm);
  *rc = PMPI_Gather(fold_send, block, MPI_PACKED, fold_recv, block,
                    MPI_PACKED, root, comm);
  if (*rc == MPI_SUCCESS && me)
    for (int j = 0; j < c->size; j++)
      unpack_block(fold_recv,
                   j == root && sendbuf == MPI_IN_PLACE
                       ? NULL
                       : (char *)recvbuf + (MPI_Aint)j * recvcount * rext,
                   recvcount, recvtype, acc, j, block, comm);
  fold_rule(c, fn, acc);
  return 1;
}

/* ---- MPI_Allreduce, MPI_Reduce */

/* What the combined operation applies to the data part: set before each
 * folded call (no folding under MPI_THREAD_MULTIPLE, so one call at a
 * time). The data is at offset 0 of each element, the clocks at
 * clock_off. */
static struct {
  int count;
  MPI_Datatype type;
  MPI_Op op;
  size_t clock_off;
} fold_cur;
static MPI_Op fold_op = MPI_OP_NULL;

/* the combined element types, one per element size (the data rounded up to
 * 16 bytes, then the clocks), made at first use */
#define RP_FOLD_TYPES (RP_FOLD_BLOCK / 16 + 1)
static MPI_Datatype fold_types[RP_FOLD_TYPES];
static int fold_made;

/* MPI could not make a type or an operation: the members cannot be known
 * to agree on the path any more, so the run stops, saying why */
static void fold_fail(const char *what) {
  rp_warn("cannot create %s for a collective's clock exchange; stopping", what);
  PMPI_Abort(MPI_COMM_WORLD, 70);
}

static void fold_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  int bytes = (int)fold_cur.clock_off + RP_XCH_BYTES;
  for (int e = 0; e < *len; e++) {
    unsigned char *a = (unsigned char *)in + (size_t)e * (size_t)bytes;
    unsigned char *b = (unsigned char *)inout + (size_t)e * (size_t)bytes;
    double va[RP_XCH_DOUBLES], vb[RP_XCH_DOUBLES];
    PMPI_Reduce_local(a, b, fold_cur.count, fold_cur.type, fold_cur.op);
    memcpy(va, a + fold_cur.clock_off, sizeof va);
    memcpy(vb, b + fold_cur.clock_off, sizeof vb);
    fold_max(vb, va);
    memcpy(b + fold_cur.clock_off, vb, sizeof vb);
  }
}

/* the combined type of an element whose data rounds up to off bytes */
static MPI_Datatype bytes_type(size_t off) {
  size_t k = off / 16;
  if (!fold_made) {
    for (int i = 0; i < RP_FOLD_TYPES; i++)
      fold_types[i] = MPI_DATATYPE_NULL;
    fold_made = 1;
  }
  if (fold_types[k] == MPI_DATATYPE_NULL) {
    MPI_Datatype t;
    if (PMPI_Type_contiguous((int)off + RP_XCH_BYTES, MPI_BYTE, &t) !=
            MPI_SUCCESS ||
        PMPI_Type_commit(&t) != MPI_SUCCESS)
      fold_fail("a datatype");
    fold_types[k] = t;
  }
  return fold_types[k];
}

/* 1 when type is a predefined integer type (sums and products exact) */
static int int_type(MPI_Datatype t) {
  static const MPI_Datatype ints[] = {
      MPI_CHAR,           MPI_SIGNED_CHAR,    MPI_UNSIGNED_CHAR,
      MPI_SHORT,          MPI_UNSIGNED_SHORT, MPI_INT,
      MPI_UNSIGNED,       MPI_LONG,           MPI_UNSIGNED_LONG,
      MPI_LONG_LONG_INT,  MPI_UNSIGNED_LONG_LONG, MPI_INT8_T,
      MPI_INT16_T,        MPI_INT32_T,        MPI_INT64_T,
      MPI_UINT8_T,        MPI_UINT16_T,       MPI_UINT32_T,
      MPI_UINT64_T,       MPI_AINT,           MPI_OFFSET,
      MPI_COUNT,          MPI_BYTE};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
    if (t == ints[i])
      return 1;
  return 0;
}

/* 1 when op is predefined and combining in any order gives the bits the
 * application's own call would */
static int exact_op_look(MPI_Op op, MPI_Datatype type, int members) {
  static const MPI_Op any_order[] = {MPI_MAX,  MPI_MIN,  MPI_MAXLOC,
                                     MPI_MINLOC, MPI_LAND, MPI_LOR,
                                     MPI_LXOR, MPI_BAND, MPI_BOR,
                                     MPI_BXOR};
  for (size_t i = 0; i < sizeof any_order / sizeof *any_order; i++)
    if (op == any_order[i])
      return 1;
  if (op == MPI_SUM || op == MPI_PROD)
    return members == 2 || int_type(type);
  return 0;
}

/* exact_op_look, its last answer kept: a program reduces with the same
 * operation, type and group over and over, and the look-up through the
 * handles (addresses in Open MPI, so no switch) was a tenth of revprof's
 * own instructions in an 8-byte MPI_Reduce (bench/coll-instructions.sh).
 * One call at a time: folding is off with threads (fold_block, fold_reduce). */
static int exact_op(MPI_Op op, MPI_Datatype type, int members) {
  static MPI_Op last_op = MPI_OP_NULL;
  static MPI_Datatype last_type = MPI_DATATYPE_NULL;
  static int last_members, last_exact;
  if (op != last_op || type != last_type || members != last_members) {
    last_exact = exact_op_look(op, type, members);
    last_op = op;
    last_type = type;
    last_members = members;
  }
  return last_exact;
}

/* Allreduce (root -1) or Reduce to root: the data and the clocks under
 * the combined operation; the root (all members for Allreduce) learns the
 * maximum of the clocks. */
static int fold_reduce(rp_comm *c, revprof_fn fn, double d, int *rc,
                       const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm) {
  rp_tinfo ti = rp_type_info_fast(datatype); /* plain: named, gap-free */
  int learns = root < 0 || c->rank == root;
  if (!c->intra || c->size < 2 || count <= 0 || root >= c->size || rp_g.mt ||
      !ti.plain || (double)count * ti.size > RP_FOLD_BLOCK ||
      !exact_op(op, datatype, c->size))
    return 0;
  size_t tsize = (size_t)ti.size;
  if (fold_op == MPI_OP_NULL && PMPI_Op_create(fold_fn, 1, &fold_op) != MPI_SUCCESS)
    fold_fail("an operation");
  size_t data = (size_t)count * tsize;
  size_t off = (data + 15) & ~(size_t)15; /* clocks 16-aligned after it */
  MPI_Datatype bt = bytes_type(off);
  double mine[RP_XCH_DOUBLES];
  rp_my_clocks(d, mine);
  /* MPI_IN_PLACE is allowed where the result lands: the data is there */
  memcpy(fold_send, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, data);
  /* the bytes between data and off travel but are never read (fold_fn
     reduces count elements at 0 and the clocks at off); fold_send is
     static, so they are never uninitialized either */
  memcpy(fold_send + off, mine, sizeof mine);
  fold_cur.count = count;
  fold_cur.type = datatype;
  fold_cur.op = op;
  fold_cur.clock_off = off;
  *rc = root < 0 ? PMPI_Allreduce(fold_send, fold_recv, 1, bt, fold_op, comm)
                 : PMPI_Reduce(fold_send, fold_recv, 1, bt, fold_op, root,
                               comm);
  double acc[RP_XCH_DOUBLES];
  memcpy(acc, mine, sizeof acc);
  if (*rc == MPI_SUCCESS && learns) {
    double v[RP_XCH_DOUBLES];
    memcpy(recvbuf, fold_recv, data);
    memcpy(v, fold_recv + off, sizeof v);
    fold_max(acc, v);
  }
  fold_rule_part(c, fn, acc,
                 root < 0 ? REVPROF_FN_COUNT : rp_coll_part(fn, learns), NULL);
  return 1;
}

int rp_fold_MPI_Allreduce(rp_comm *c, revprof_fn fn, double d, int *rc,
                          const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return fold_reduce(c, fn, d, rc, sendbuf, recvbuf, count, datatype, op, -1,
                     comm);
}

int rp_fold_MPI_Reduce(rp_comm *c, revprof_fn fn, double d, int *rc,
                       const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm) {
  return root < 0 ? 0
                  : fold_reduce(c, fn, d, rc, sendbuf, recvbuf, count,
                                datatype, op, root, comm);
}

void rp_fold_finalize(void) {
  for (int i = 0; fold_made && i < RP_FOLD_TYPES; i++)
    if (fold_types[i] != MPI_DATATYPE_NULL)
      PMPI_Type_free(&fold_types[i]);
  fold_made = 0;
  if (fold_op != MPI_OP_NULL)
    PMPI_Op_free(&fold_op);
}
