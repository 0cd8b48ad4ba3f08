/* The irregular MPI wrappers of librevprof, by hand: start-up and shut-down,
 * MPI_Wtime, Sendrecv, the completion calls (Wait*, Test*), persistent
 * starts, request free and status, probes and matched receives, Comm_idup,
 * Type_free and the Bsend buffer. Same shape as the generated ones: guard,
 * take the time, rule, PMPI, record. */
#include "rp_int.h"

#include <stdlib.h>

/* ------------------------------------------------- scratch for arrays */

static rp_req **recs_buf;
static size_t recs_cap;
static MPI_Status *st_buf;
static size_t st_cap;

/* Records of n requests (NULL for the ones revprof does not know); *found
 * counts the known ones. NULL when out of memory. */
static rp_req **lookup_all(int n, const MPI_Request reqs[], int *found) {
  *found = 0;
  if (n <= 0)
    return recs_buf;
  rp_req **nb = rp_grow(recs_buf, &recs_cap, (size_t)n, sizeof *nb);
  if (nb == NULL)
    return NULL;
  recs_buf = nb;
  for (int i = 0; i < n; i++) {
    recs_buf[i] = rp_req_claim(reqs[i]);
    *found += recs_buf[i] != NULL;
  }
  for (int i = 0; i < n; i++) /* claims last for this call only */
    if (recs_buf[i])
      recs_buf[i]->claimed = 0;
  return recs_buf;
}

/* Statuses to pass to PMPI: the application's, or scratch when it ignores
 * them but revprof needs them. */
static MPI_Status *statuses_for(int n, MPI_Status *user, int found) {
  if (user != MPI_STATUSES_IGNORE || !found || n <= 0)
    return user;
  MPI_Status *nb = rp_grow(st_buf, &st_cap, (size_t)n, sizeof *nb);
  if (nb == NULL)
    return user;
  st_buf = nb;
  return st_buf;
}

static int completed_ok(int rc, const MPI_Status *st) {
  return rc == MPI_SUCCESS ||
         (rc == MPI_ERR_IN_STATUS && st != MPI_STATUSES_IGNORE &&
          st->MPI_ERROR == MPI_SUCCESS);
}

/* ---------------------------------------------------- start and stop */

RP_EXPORT int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv), provided = MPI_THREAD_SINGLE;
  if (rc == MPI_SUCCESS && !rp_g.initialized) {
    rp_g.in_tool = 1;
    PMPI_Query_thread(&provided);
    rp_startup(provided);
    rp_g.in_tool = 0;
  }
  return rc;
}

RP_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required,
                              int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && !rp_g.initialized) {
    rp_g.in_tool = 1;
    rp_startup(*provided);
    rp_g.in_tool = 0;
  }
  return rc;
}

RP_EXPORT int MPI_Finalize(void) {
  if (rp_bypass()) {
    rp_g.finalized = 1;
    return PMPI_Finalize();
  }
  rp_enter(RP_W_MPI_Finalize);
  rp_zombies_progress(0);
  rp_leave(RP_W_MPI_Finalize);
  rp_g.in_tool = 1;
  rp_shutdown(); /* report, traces, shadows */
  rp_fold_finalize();
  int rc = PMPI_Finalize();
  rp_annotate_free(rp_g.lua);
  rp_g.lua = NULL;
  rp_g.in_tool = 0;
  return rc;
}

RP_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  if (rp_g.active) {
    char reason[64];
    rp_g.in_tool = 1;
    snprintf(reason, sizeof reason, "MPI_Abort with error code %d",
             errorcode);
    rp_report_partial(reason);
    if (rp_g.tracing)
      rp_trace_close(1);
    rp_g.tracing = 0;
  }
  return PMPI_Abort(comm, errorcode);
}

RP_EXPORT double MPI_Wtime(void) {
  double cost[RP_NB];
  if (rp_bypass())
    return PMPI_Wtime();
  rp_enter(RP_W_MPI_Wtime);
  rp_cost(REVPROF_FN_WTIME, 1.0, 0.0, cost);
  rp_clock_local(&rp_g.clk, cost);
  double t = rp_g.cfg.wtime_real ? PMPI_Wtime() : rp_g.clk.now[RP_AVG];
  rp_leave(RP_W_MPI_Wtime);
  return t;
}

/* ------------------------------------------------------------ Sendrecv */

RP_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                         recvbuf, recvcount, recvtype, source, recvtag, comm,
                         status);
  rp_enter(RP_W_MPI_Sendrecv);
  int rc = rp_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status, 0);
  rp_leave(RP_W_MPI_Sendrecv);
  return rc;
}

RP_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
                                   int dest, int sendtag, int source,
                                   int recvtag, MPI_Comm comm,
                                   MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source,
                                 recvtag, comm, status);
  rp_enter(RP_W_MPI_Sendrecv_replace);
  int rc = rp_sendrecv(NULL, 0, datatype, dest, sendtag, buf, count, datatype,
                       source, recvtag, comm, status, 1);
  rp_leave(RP_W_MPI_Sendrecv_replace);
  return rc;
}

/* ---------------------------------------------------------- completion */

RP_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Wait(request, status);
  rp_enter(RP_W_MPI_Wait);
  rp_zombies_progress(0);
  rp_req *r = rp_req_find(*request);
  MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Wait(request, r ? st : status);
  if (r && rc == MPI_SUCCESS)
    rp_req_done(r, st, st != &local);
  rp_leave(RP_W_MPI_Wait);
  return rc;
}

RP_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Test(request, flag, status);
  rp_enter_poll(RP_W_MPI_Test);
  rp_zombies_progress(0);
  rp_req *r = rp_req_find(*request);
  MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Test(request, flag, r ? st : status);
  if (r && rc == MPI_SUCCESS && *flag)
    rp_req_done(r, st, st != &local);
  rp_leave(RP_W_MPI_Test);
  return rc;
}

RP_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[],
                          MPI_Status array_of_statuses[]) {
  int found;
  if (rp_bypass())
    return PMPI_Waitall(count, array_of_requests, array_of_statuses);
  rp_enter(RP_W_MPI_Waitall);
  rp_zombies_progress(0);
  rp_req **recs = lookup_all(count, array_of_requests, &found);
  MPI_Status *st = statuses_for(count, array_of_statuses, found);
  int rc = PMPI_Waitall(count, array_of_requests, st);
  for (int i = 0; recs && found && st != MPI_STATUSES_IGNORE && i < count;
       i++)
    if (recs[i] && completed_ok(rc, &st[i]))
      rp_req_done(recs[i], &st[i], st == array_of_statuses);
  rp_leave(RP_W_MPI_Waitall);
  return rc;
}

RP_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[],
                          int *flag, MPI_Status array_of_statuses[]) {
  int found;
  if (rp_bypass())
    return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
  rp_enter_poll(RP_W_MPI_Testall);
  rp_zombies_progress(0);
  rp_req **recs = lookup_all(count, array_of_requests, &found);
  MPI_Status *st = statuses_for(count, array_of_statuses, found);
  int rc = PMPI_Testall(count, array_of_requests, flag, st);
  for (int i = 0;
       recs && found && *flag && st != MPI_STATUSES_IGNORE && i < count; i++)
    if (recs[i] && completed_ok(rc, &st[i]))
      rp_req_done(recs[i], &st[i], st == array_of_statuses);
  rp_leave(RP_W_MPI_Testall);
  return rc;
}

RP_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[],
                          int *index, MPI_Status *status) {
  int found;
  if (rp_bypass())
    return PMPI_Waitany(count, array_of_requests, index, status);
  rp_enter(RP_W_MPI_Waitany);
  rp_zombies_progress(0);
  rp_req **recs = lookup_all(count, array_of_requests, &found);
  MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Waitany(count, array_of_requests, index, st);
  if (recs && found && rc == MPI_SUCCESS && *index != MPI_UNDEFINED &&
      recs[*index])
    rp_req_done(recs[*index], st, st != &local);
  rp_leave(RP_W_MPI_Waitany);
  return rc;
}

RP_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[],
                          int *index, int *flag, MPI_Status *status) {
  int found;
  if (rp_bypass())
    return PMPI_Testany(count, array_of_requests, index, flag, status);
  rp_enter_poll(RP_W_MPI_Testany);
  rp_zombies_progress(0);
  rp_req **recs = lookup_all(count, array_of_requests, &found);
  MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Testany(count, array_of_requests, index, flag, st);
  if (recs && found && rc == MPI_SUCCESS && *flag &&
      *index != MPI_UNDEFINED && recs[*index])
    rp_req_done(recs[*index], st, st != &local);
  rp_leave(RP_W_MPI_Testany);
  return rc;
}

/* Waitsome and Testsome: statuses follow the order of indices. */
static void done_some(rp_req **recs, int found, int rc, int outcount,
                      const int *indices, MPI_Status *st, int want) {
  if (recs == NULL || !found || outcount == MPI_UNDEFINED ||
      st == MPI_STATUSES_IGNORE)
    return;
  for (int k = 0; k < outcount; k++)
    if (recs[indices[k]] && completed_ok(rc, &st[k]))
      rp_req_done(recs[indices[k]], &st[k], want);
}

RP_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[],
                           int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[]) {
  int found;
  if (rp_bypass())
    return PMPI_Waitsome(incount, array_of_requests, outcount,
                         array_of_indices, array_of_statuses);
  rp_enter(RP_W_MPI_Waitsome);
  rp_zombies_progress(0);
  rp_req **recs = lookup_all(incount, array_of_requests, &found);
  MPI_Status *st = statuses_for(incount, array_of_statuses, found);
  int rc = PMPI_Waitsome(incount, array_of_requests, outcount,
                         array_of_indices, st);
  done_some(recs, found, rc, *outcount, array_of_indices, st,
            st == array_of_statuses);
  rp_leave(RP_W_MPI_Waitsome);
  return rc;
}

RP_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[],
                           int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[]) {
  int found;
  if (rp_bypass())
    return PMPI_Testsome(incount, array_of_requests, outcount,
                         array_of_indices, array_of_statuses);
  rp_enter_poll(RP_W_MPI_Testsome);
  rp_zombies_progress(0);
  rp_req **recs = lookup_all(incount, array_of_requests, &found);
  MPI_Status *st = statuses_for(incount, array_of_statuses, found);
  int rc = PMPI_Testsome(incount, array_of_requests, outcount,
                         array_of_indices, st);
  done_some(recs, found, rc, *outcount, array_of_indices, st,
            st == array_of_statuses);
  rp_leave(RP_W_MPI_Testsome);
  return rc;
}

RP_EXPORT int MPI_Request_get_status(MPI_Request request, int *flag,
                                     MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Request_get_status(request, flag, status);
  rp_enter(RP_W_MPI_Request_get_status);
  rp_req *r = rp_req_find(request);
  MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Request_get_status(request, flag, r ? st : status);
  if (r && rc == MPI_SUCCESS && *flag)
    rp_req_peek(r, st, st != &local); /* data now, clocks at the Wait */
  rp_leave(RP_W_MPI_Request_get_status);
  return rc;
}

/* ------------------------------------------------ persistent, free, cancel */

RP_EXPORT int MPI_Start(MPI_Request *request) {
  if (rp_bypass())
    return PMPI_Start(request);
  rp_enter(RP_W_MPI_Start);
  rp_req *r = rp_req_find(*request);
  if (r)
    rp_req_start(r); /* sends: clock rule and piggyback now */
  int rc = PMPI_Start(request);
  rp_leave(RP_W_MPI_Start);
  return rc;
}

RP_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  if (rp_bypass())
    return PMPI_Startall(count, array_of_requests);
  rp_enter(RP_W_MPI_Startall);
  for (int i = 0; i < count; i++) {
    rp_req *r = rp_req_find(array_of_requests[i]);
    if (r)
      rp_req_start(r);
  }
  int rc = PMPI_Startall(count, array_of_requests);
  rp_leave(RP_W_MPI_Startall);
  return rc;
}

RP_EXPORT int MPI_Request_free(MPI_Request *request) {
  if (rp_bypass())
    return PMPI_Request_free(request);
  rp_enter(RP_W_MPI_Request_free);
  rp_req *r = rp_req_find(*request);
  int rc = r ? rp_req_free_user(r, request) : PMPI_Request_free(request);
  rp_leave(RP_W_MPI_Request_free);
  return rc;
}

RP_EXPORT int MPI_Cancel(MPI_Request *request) {
  if (rp_bypass())
    return PMPI_Cancel(request);
  rp_enter(RP_W_MPI_Cancel);
  int rc = PMPI_Cancel(request); /* the completion sees the cancel */
  rp_leave(RP_W_MPI_Cancel);
  return rc;
}

/* -------------------------------------------------------------- probes */

RP_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm,
                        MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Probe(source, tag, comm, status);
  rp_enter(RP_W_MPI_Probe);
  int rc = PMPI_Probe(source, tag, comm, status);
  if (rc == MPI_SUCCESS)
    rp_status_unpiggyback(status);
  rp_leave(RP_W_MPI_Probe);
  return rc;
}

RP_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                         MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Iprobe(source, tag, comm, flag, status);
  rp_enter_poll(RP_W_MPI_Iprobe);
  int rc = PMPI_Iprobe(source, tag, comm, flag, status);
  if (rc == MPI_SUCCESS && *flag)
    rp_status_unpiggyback(status);
  rp_leave(RP_W_MPI_Iprobe);
  return rc;
}

RP_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm,
                         MPI_Message *message, MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Mprobe(source, tag, comm, message, status);
  rp_enter(RP_W_MPI_Mprobe);
  int rc = PMPI_Mprobe(source, tag, comm, message, status);
  if (rc == MPI_SUCCESS)
    rp_status_unpiggyback(status);
  rp_leave(RP_W_MPI_Mprobe);
  return rc;
}

RP_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                          MPI_Message *message, MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Improbe(source, tag, comm, flag, message, status);
  rp_enter_poll(RP_W_MPI_Improbe);
  int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
  if (rc == MPI_SUCCESS && *flag)
    rp_status_unpiggyback(status);
  rp_leave(RP_W_MPI_Improbe);
  return rc;
}

RP_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype,
                        MPI_Message *message, MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Mrecv(buf, count, datatype, message, status);
  rp_enter(RP_W_MPI_Mrecv);
  int rc = rp_mrecv(buf, count, datatype, message, status, NULL);
  rp_leave(RP_W_MPI_Mrecv);
  return rc;
}

RP_EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype,
                         MPI_Message *message, MPI_Request *request) {
  if (rp_bypass())
    return PMPI_Imrecv(buf, count, datatype, message, request);
  rp_enter(RP_W_MPI_Imrecv);
  int rc = rp_mrecv(buf, count, datatype, message, MPI_STATUS_IGNORE,
                    request);
  rp_leave(RP_W_MPI_Imrecv);
  return rc;
}

/* ------------------------------------------------------- communicators */

RP_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm,
                            MPI_Request *request) {
  if (rp_bypass())
    return PMPI_Comm_idup(comm, newcomm, request);
  rp_enter(RP_W_MPI_Comm_idup);
  rp_req *r = rp_idup_begin(comm, newcomm); /* the shadow: a second idup */
  int rc = PMPI_Comm_idup(comm, newcomm, request);
  rp_req_post(r, rc, request);
  rp_leave(RP_W_MPI_Comm_idup);
  return rc;
}

RP_EXPORT int MPI_Comm_free(MPI_Comm *comm) {
  if (rp_bypass())
    return PMPI_Comm_free(comm);
  rp_enter(RP_W_MPI_Comm_free);
  int rc = PMPI_Comm_free(comm); /* the attribute's delete frees the shadow */
  rp_leave(RP_W_MPI_Comm_free);
  return rc;
}

/* ------------------------------------------------ datatypes and buffers */

RP_EXPORT int MPI_Type_free(MPI_Datatype *datatype) {
  if (rp_g.active && datatype)
    rp_p2p_type_freed(*datatype); /* even inside the tool: handles recycle */
  if (rp_bypass())
    return PMPI_Type_free(datatype);
  rp_enter(RP_W_MPI_Type_free);
  int rc = PMPI_Type_free(datatype);
  rp_leave(RP_W_MPI_Type_free);
  return rc;
}

RP_EXPORT int MPI_Buffer_attach(void *buffer, int size) {
  if (rp_bypass())
    return PMPI_Buffer_attach(buffer, size);
  rp_enter(RP_W_MPI_Buffer_attach);
  int rc = rp_buffer_attach(buffer, size);
  rp_leave(RP_W_MPI_Buffer_attach);
  return rc;
}

RP_EXPORT int MPI_Buffer_detach(void *buffer_addr, int *size) {
  if (rp_bypass())
    return PMPI_Buffer_detach(buffer_addr, size);
  rp_enter(RP_W_MPI_Buffer_detach);
  int rc = rp_buffer_detach(buffer_addr, size);
  rp_leave(RP_W_MPI_Buffer_detach);
  return rc;
}
