/* Partitioned communication (MPI 4; issue 17), costed as the message it
 * is. The partitions carry the user's data only, so the sender's clocks
 * travel in a message of their own on the communicator's shadow (same
 * source, destination and tag):
 *   - the send is an MPI_Isend of all partitions' bytes d issued at the
 *     MPI_Pready that makes the last partition ready: the sender's clocks
 *     are stamped there, T_Isend(d) added, and the stamp sent;
 *   - the receive is an MPI_Irecv completing at the MPI_Wait/MPI_Test
 *     that completes the request: the stamp is received (it left at the
 *     sender's last MPI_Pready, which the completion implies), then
 *     now = max(now + T_Irecv(d), stamp + latency(d)).
 * MPI_Parrived is a poll and costs nothing. Two partitioned requests
 * between the same ranks with the same tag in flight at once may see their
 * stamps swapped (their data is untouched). Without a shadow (a
 * communicator revprof did not see created, another job's) the receive
 * costs T_Irecv(d) from its own clock and the report says so. In sample
 * mode (no model needed) the same message carries the sample's stamp, so
 * a partitioned message is seen, sampled and its latency measured like any
 * other (send start: the last MPI_Pready); no send call is timed for it. */
#include "rp_coll.h"

#if MPI_VERSION >= 4
static rp_req *part_init(int send, rp_wid w, int partitions,
                         MPI_Count count, MPI_Datatype type, int peer,
                         int tag, MPI_Comm comm) {
  if (rp_g.model == NULL && !rp_g.sampling)
    return NULL; /* compensate mode: the calls are its regions */
  rp_req *r = rp_req_new();
  r->kind = send ? RP_REQ_PSEND : RP_REQ_PRECV;
  r->wid = w;
  r->fn = send ? REVPROF_FN_ISEND : REVPROF_FN_IRECV;
  r->persistent = 1;
  r->active = 0;
  r->ubytes = (double)partitions * rp_d_count((double)count, &type, rp_tsize);
  r->peer_spec = peer;
  r->tag_spec = tag;
  r->comm = comm;
  r->parts = partitions;
  r->side = peer == MPI_PROC_NULL || (rp_g.dynamic && rp_comm_foreign(comm))
                ? MPI_COMM_NULL
                : rp_comm_shadow(comm);
  if (r->side == MPI_COMM_NULL && peer != MPI_PROC_NULL)
    rp_report_flag("partitioned", "partitioned communication on a "
                   "communicator without a shadow (not seen created, or "
                   "another job's): its receives costed without the "
                   "sender's clocks");
  return r;
}

#endif

void rp_part_start(rp_req *r) {
  r->nready = 0;
  r->sreq = MPI_REQUEST_NULL;
}

#if MPI_VERSION >= 4
/* n more partitions of the send request are ready: at the last one the
 * message leaves */
static void part_ready(MPI_Request request, int n) {
  rp_req *r = rp_req_find(request);
  if (r == NULL || r->kind != RP_REQ_PSEND || !r->active ||
      r->nready >= r->parts)
    return;
  r->nready += n;
  if (r->nready < r->parts)
    return;
  double cost[RP_NB];
  rp_cost_fast(r->fn, 2.0, r->ubytes, cost);
  rp_clock_send(&rp_g.clk, cost, r->pb);
  r->pb[RP_PB_META] = rp_pb_meta(rp_g.rank, r->ubytes);
  r->pb[RP_PB_SEQ] = -1.0; /* not in the log of wildcard receives */
  rp_sample_out_untimed(r->pb); /* sample mode: in the clocks' message */
  rp_t.cur_bytes += r->ubytes;
  if (r->side != MPI_COMM_NULL &&
      PMPI_Isend(r->pb, RP_PB_DOUBLES, MPI_DOUBLE, r->peer_spec, r->tag_spec,
                 r->side, &r->sreq) != MPI_SUCCESS)
    r->sreq = MPI_REQUEST_NULL;
}
#endif

void rp_part_done(rp_req *r) {
  double cost[RP_NB], lat[RP_NB];
  if (r->kind == RP_REQ_PSEND) {
    if (r->sreq != MPI_REQUEST_NULL)
      RP_UNLOCKED(PMPI_Wait(&r->sreq, MPI_STATUS_IGNORE));
    return; /* the send cost at its last MPI_Pready */
  }
  rp_cost_fast(r->fn, 2.0, r->ubytes, cost);
  if (r->side == MPI_COMM_NULL) {
    rp_clock_local(&rp_g.clk, cost);
  } else {
    MPI_Status st;
    RP_UNLOCKED(PMPI_Recv(r->pb, RP_PB_DOUBLES, MPI_DOUBLE, r->peer_spec,
                          r->tag_spec, r->side, &st));
    rp_cost_fast(REVPROF_FN_LATENCY, 2.0, r->ubytes, lat);
    rp_t.cur_wait += rp_clock_recv(&rp_g.clk, cost, r->pb, lat);
    rp_recv_after(r, &st, r->pb, lat, r->ubytes);
    rp_sample_in(r->pb, r->ubytes);
  }
  rp_t.cur_bytes += r->ubytes;
}

#if MPI_VERSION >= 4
RP_EXPORT int MPI_Psend_init(const void *buf, int partitions, MPI_Count count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Info info,
                             MPI_Request *request) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Psend_init(buf, partitions, count, datatype, dest, tag, comm,
                           info, request);
  rp_enter(RP_W_MPI_Psend_init);
  rp_req *r = part_init(1, RP_W_MPI_Psend_init, partitions, count,
                        datatype, dest, tag, comm);
  int rc = PMPI_Psend_init(buf, partitions, count, datatype, dest, tag, comm,
                           info, request);
  rp_req_post(r, rc, request);
  rp_leave(RP_W_MPI_Psend_init);
  return rc;
}

RP_EXPORT int MPI_Precv_init(void *buf, int partitions, MPI_Count count,
                             MPI_Datatype datatype, int source, int tag,
                             MPI_Comm comm, MPI_Info info,
                             MPI_Request *request) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Precv_init(buf, partitions, count, datatype, source, tag,
                           comm, info, request);
  rp_enter(RP_W_MPI_Precv_init);
  rp_req *r = part_init(0, RP_W_MPI_Precv_init, partitions, count,
                        datatype, source, tag, comm);
  int rc = PMPI_Precv_init(buf, partitions, count, datatype, source, tag,
                           comm, info, request);
  rp_req_post(r, rc, request);
  rp_leave(RP_W_MPI_Precv_init);
  return rc;
}

RP_EXPORT int MPI_Pready(int partition, MPI_Request request) {
  if (rp_bypass())
    return PMPI_Pready(partition, request);
  rp_enter(RP_W_MPI_Pready);
  int rc = PMPI_Pready(partition, request);
  if (rc == MPI_SUCCESS)
    part_ready(request, 1);
  rp_leave(RP_W_MPI_Pready);
  return rc;
}

RP_EXPORT int MPI_Pready_range(int partition_low, int partition_high,
                               MPI_Request request) {
  if (rp_bypass())
    return PMPI_Pready_range(partition_low, partition_high, request);
  rp_enter(RP_W_MPI_Pready_range);
  int rc = PMPI_Pready_range(partition_low, partition_high, request);
  if (rc == MPI_SUCCESS && partition_high >= partition_low)
    part_ready(request, partition_high - partition_low + 1);
  rp_leave(RP_W_MPI_Pready_range);
  return rc;
}

RP_EXPORT int MPI_Pready_list(int length, int array_of_partitions[],
                              MPI_Request request) {
  if (rp_bypass())
    return PMPI_Pready_list(length, array_of_partitions, request);
  rp_enter(RP_W_MPI_Pready_list);
  int rc = PMPI_Pready_list(length, array_of_partitions, request);
  if (rc == MPI_SUCCESS && length > 0)
    part_ready(request, length);
  rp_leave(RP_W_MPI_Pready_list);
  return rc;
}

RP_EXPORT int MPI_Parrived(MPI_Request request, int partition, int *flag) {
  if (rp_bypass())
    return PMPI_Parrived(request, partition, flag);
  rp_enter_poll(RP_W_MPI_Parrived);
  int rc = PMPI_Parrived(request, partition, flag);
  rp_leave(RP_W_MPI_Parrived);
  return rc;
}
#endif
