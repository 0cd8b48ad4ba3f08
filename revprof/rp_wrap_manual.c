/* The irregular MPI wrappers of librevprof, by hand: start-up and shut-down,
 * MPI_Wtime, Sendrecv, the completion calls (Wait*, Test*), persistent
 * starts, request free and status, probes and matched receives, Comm_idup,
 * Type_free and the Bsend buffer. Same shape as the generated ones: guard,
 * take the time, rule, PMPI, record. */
#include "rp_engine.h"
#include "rp_flags.h"
#include "rp_p2p.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---------------------------------------------------- start and stop */

/* The wrapped entry points a mode may time itself by (rp_entries): given
 * to the engine here, so that it never names a wrapper. */
static const rp_entries entries = {MPI_Wtime, MPI_Sendrecv};

static void startup(int provided, MPI_Comm world) {
  rp_t.in_tool = 1;
  rp_g.entry = &entries;
  rp_startup(provided, world);
  rp_t.in_tool = 0;
}

RP_EXPORT int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv), provided = MPI_THREAD_SINGLE;
  if (rc == MPI_SUCCESS && !rp_g.initialized) {
    PMPI_Query_thread(&provided);
    startup(provided, MPI_COMM_NULL);
  }
  return rc;
}

RP_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required,
                              int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && !rp_g.initialized) {
    startup(*provided, MPI_COMM_NULL);
  }
  return rc;
}

/* The report, traces and shadows, before the MPI goes (MPI_Finalize, or a
 * sessions program's last MPI_Session_finalize); wid: the call that ends. */
static void finish(rp_wid wid) {
  rp_monitor_finish(); /* the last profile; tool ranks told */
  if (rp_bypass()) {
    rp_g.finalized = 1;
    return;
  }
  rp_enter(wid);
  rp_zombies_progress(0);
  rp_leave(wid);
  rp_t.in_tool = 1;
  int took = rp_mt_hold(); /* other threads are done with MPI by now */
  rp_shutdown(); /* report, traces, shadows */
  rp_fold_finalize();
  rp_mt_release(took);
  rp_t.in_tool = 0;
}

#if MPI_VERSION >= 4
/* MPI-4 sessions. A program that never calls MPI_Init gets revprof at its
 * first MPI_Session_init: revprof opens a session of its own, makes its
 * world from the process set mpi://WORLD (collective: every process of the
 * job opens a session) and starts as at MPI_Init; the program's
 * communicators get their clock rules when they are created
 * (MPI_Comm_create_from_group) or first used. The report is written at the
 * last MPI_Session_finalize that leaves no session of the program open
 * (or at MPI_Finalize, when the program also initialized the world model).
 * When the world cannot be made, nothing is predicted and the report at
 * exit says so (rp_report.c). */
static MPI_Session own_session = MPI_SESSION_NULL;
static int open_sessions; /* the program's, opened and not finalized */
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;

/* The thread support the program's session was given (its info's
 * "thread_level"; MPI_THREAD_SINGLE when it does not say). */
static int session_thread_level(MPI_Session s) {
  static const struct {
    const char *name;
    int level;
  } levels[] = {{"MPI_THREAD_MULTIPLE", MPI_THREAD_MULTIPLE},
                {"MPI_THREAD_SERIALIZED", MPI_THREAD_SERIALIZED},
                {"MPI_THREAD_FUNNELED", MPI_THREAD_FUNNELED}};
  MPI_Info info = MPI_INFO_NULL;
  char v[64] = "";
  int len = (int)sizeof v, flag = 0;
  if (PMPI_Session_get_info(s, &info) != MPI_SUCCESS)
    return MPI_THREAD_SINGLE;
  if (info != MPI_INFO_NULL) {
    PMPI_Info_get_string(info, "thread_level", &len, v, &flag);
    PMPI_Info_free(&info);
  }
  for (size_t i = 0; flag && i < sizeof levels / sizeof *levels; i++)
    if (strcmp(v, levels[i].name) == 0)
      return levels[i].level;
  return MPI_THREAD_SINGLE;
}

static void session_start(MPI_Session user) {
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Comm world = MPI_COMM_NULL;
  int ok = PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN,
                             &own_session) == MPI_SUCCESS;
  ok = ok && PMPI_Group_from_session_pset(own_session, "mpi://WORLD", &g) ==
                 MPI_SUCCESS;
  ok = ok && PMPI_Comm_create_from_group(g, "org.revprof.world",
                                         MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL,
                                         &world) == MPI_SUCCESS;
  if (g != MPI_GROUP_NULL)
    PMPI_Group_free(&g);
  if (!ok) { /* the report at exit: NOT PREDICTED */
    if (own_session != MPI_SESSION_NULL)
      PMPI_Session_finalize(&own_session);
    rp_warn("MPI_Session_init: revprof cannot make a communicator of the "
            "process set mpi://WORLD; nothing is predicted");
    return;
  }
  startup(session_thread_level(user), world);
}

/* revprof's world and session go, after its report. */
static void session_close(void) {
  if (own_session == MPI_SESSION_NULL)
    return;
  if (rp_g.world != MPI_COMM_NULL)
    PMPI_Comm_free(&rp_g.world);
  PMPI_Session_finalize(&own_session);
}

RP_EXPORT int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
                               MPI_Session *session) {
  int rc = PMPI_Session_init(info, errhandler, session);
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&session_lock);
  rp_g.sessions = 1;
  open_sessions++;
  static int tried; /* once: the world is made collectively */
  if (!rp_g.initialized && !tried++)
    session_start(*session);
  else if (rp_g.by_session && rp_g.finalized) {
    static int said;
    if (!said++ && rp_g.rank == 0 && !rp_g.cfg.quiet)
      rp_warn("MPI_Session_init after the program's sessions were all "
              "finalized: revprof wrote its report then, and calls from "
              "here on are not in it");
  }
  pthread_mutex_unlock(&session_lock);
  return rc;
}

RP_EXPORT int MPI_Session_finalize(MPI_Session *session) {
  pthread_mutex_lock(&session_lock);
  if (open_sessions > 0 && --open_sessions == 0 && rp_g.by_session &&
      !rp_g.finalized) {
    finish(RP_W_MPI_Session_finalize);
    session_close();
  }
  pthread_mutex_unlock(&session_lock);
  return PMPI_Session_finalize(session);
}

/* Beside monitoring's tool ranks (rp_g.remap), the process set
 * mpi://WORLD is the application's ranks, as MPI_COMM_WORLD is: the tool
 * ranks never come back to the program, so a communicator made from the
 * whole job would wait for them. */
static int world_pset(const char *name) {
  return name != NULL && strcasecmp(name, "mpi://WORLD") == 0;
}

RP_EXPORT int MPI_Group_from_session_pset(MPI_Session session,
                                          const char *pset_name,
                                          MPI_Group *newgroup) {
  int rc = PMPI_Group_from_session_pset(session, pset_name, newgroup);
  if (rc == MPI_SUCCESS && RP_UNLIKELY(rp_g.remap) && world_pset(pset_name)) {
    int range[1][3] = {{0, rp_g.size - 1, 1}}; /* tool ranks come last */
    MPI_Group apps;
    rc = PMPI_Group_range_incl(*newgroup, 1, range, &apps);
    if (rc == MPI_SUCCESS) {
      PMPI_Group_free(newgroup);
      *newgroup = apps;
    }
  }
  return rc;
}

RP_EXPORT int MPI_Session_get_pset_info(MPI_Session session,
                                        const char *pset_name,
                                        MPI_Info *info) {
  int rc = PMPI_Session_get_pset_info(session, pset_name, info);
  if (rc == MPI_SUCCESS && RP_UNLIKELY(rp_g.remap) && world_pset(pset_name)) {
    char n[32];
    snprintf(n, sizeof n, "%d", rp_g.size);
    PMPI_Info_set(*info, "mpi_size", n);
  }
  return rc;
}
#else
static void session_close(void) {}
#endif

/* PMPI_Finalize with stderr through a temporary file when revprof's struct
 * types were left by cancelled receives (rp_p2p_leaked): MPICH's warning
 * about them then says what the program alone would have said
 * (rp_leak_line), and every other line comes out as it was written. */
static int finalize_mpi(void) {
  long ours = rp_p2p_leaked();
  FILE *tmp = ours > 0 ? tmpfile() : NULL;
  fflush(stderr);
  int saved = tmp ? dup(STDERR_FILENO) : -1;
  if (saved < 0 || dup2(fileno(tmp), STDERR_FILENO) < 0) {
    if (saved >= 0)
      close(saved);
    if (tmp)
      fclose(tmp);
    return PMPI_Finalize();
  }
  int rc = PMPI_Finalize();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  rewind(tmp);
  char *line = NULL, out[160];
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, tmp)) > 0) {
    if (rp_leak_line(out, sizeof out, line, ours))
      fputs(out, stderr);
    else
      fwrite(line, 1, (size_t)n, stderr);
  }
  free(line);
  fclose(tmp);
  return rc;
}

RP_EXPORT int MPI_Finalize(void) {
  finish(RP_W_MPI_Finalize);
  rp_t.in_tool = 1;
  session_close(); /* a sessions program that also initialized the world */
  int rc = finalize_mpi();
  rp_annotate_free(rp_g.lua);
  rp_g.lua = NULL;
  rp_t.in_tool = 0;
  return rc;
}

/* Attributes of the application's MPI_COMM_WORLD (rp_attr_comm). Not in
 * wrappers.spec: no wrapper id (nothing is counted); their Fortran
 * bindings are written by hand in rp_fortran.c.in. */
RP_EXPORT int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *val,
                                int *flag) {
  return PMPI_Comm_get_attr(rp_attr_comm(comm, keyval), keyval, val, flag);
}

RP_EXPORT int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val) {
  return PMPI_Comm_set_attr(rp_attr_comm(comm, keyval), keyval, val);
}

RP_EXPORT int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  return PMPI_Comm_delete_attr(rp_attr_comm(comm, keyval), keyval);
}

/* MPI-1's names of the same calls (deprecated, still in both MPIs, and
 * the same in C): their own implementations do not go through the calls
 * above, so they are mapped here too. */
RP_EXPORT int MPI_Attr_get(MPI_Comm comm, int keyval, void *val, int *flag) {
  return PMPI_Comm_get_attr(rp_attr_comm(comm, keyval), keyval, val, flag);
}

RP_EXPORT int MPI_Attr_put(MPI_Comm comm, int keyval, void *val) {
  return PMPI_Comm_set_attr(rp_attr_comm(comm, keyval), keyval, val);
}

RP_EXPORT int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  return PMPI_Comm_delete_attr(rp_attr_comm(comm, keyval), keyval);
}

RP_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  if (rp_g.active) {
    char reason[64];
    rp_t.in_tool = 1;
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
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                         recvbuf, recvcount, recvtype, source, recvtag, comm,
                         status);
  rp_enter(RP_W_MPI_Sendrecv);
  int rc = rp_sendrecv(RP_W_MPI_Sendrecv, sendbuf, sendcount, sendtype, dest,
                       sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, status, 0, NULL);
  rp_leave(RP_W_MPI_Sendrecv);
  return rc;
}

RP_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
                                   int dest, int sendtag, int source,
                                   int recvtag, MPI_Comm comm,
                                   MPI_Status *status) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source,
                                 recvtag, comm, status);
  rp_enter(RP_W_MPI_Sendrecv_replace);
  int rc = rp_sendrecv(RP_W_MPI_Sendrecv_replace, NULL, 0, datatype, dest,
                       sendtag, buf, count, datatype, source, recvtag, comm,
                       status, 1, NULL);
  rp_leave(RP_W_MPI_Sendrecv_replace);
  return rc;
}

#if MPI_VERSION >= 4
/* MPI 4: the non-blocking Sendrecv, and the large-count forms, all through
 * rp_sendrecv (a count beyond int: rp_big_in). */

RP_EXPORT int MPI_Isendrecv(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, int dest, int sendtag,
                            void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int source, int recvtag,
                            MPI_Comm comm, MPI_Request *request) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                          recvbuf, recvcount, recvtype, source, recvtag, comm,
                          request);
  rp_enter(RP_W_MPI_Isendrecv);
  int rc = rp_sendrecv(RP_W_MPI_Isendrecv, sendbuf, sendcount, sendtype, dest,
                       sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, MPI_STATUS_IGNORE, 0, request);
  rp_leave(RP_W_MPI_Isendrecv);
  return rc;
}

RP_EXPORT int MPI_Isendrecv_replace(void *buf, int count,
                                    MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag,
                                    MPI_Comm comm, MPI_Request *request) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source,
                                  recvtag, comm, request);
  rp_enter(RP_W_MPI_Isendrecv_replace);
  int rc = rp_sendrecv(RP_W_MPI_Isendrecv_replace, NULL, 0, datatype, dest,
                       sendtag, buf, count, datatype, source, recvtag, comm,
                       MPI_STATUS_IGNORE, 1, request);
  rp_leave(RP_W_MPI_Isendrecv_replace);
  return rc;
}

/* The _c forms of the four above: request NULL for the blocking ones. */
static int sendrecv_c(rp_wid w, const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, int dest, int sendtag,
                      void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int source, int recvtag,
                      MPI_Comm comm, MPI_Status *status, int replace,
                      MPI_Request *request) {
  rp_bigc sb, rb;
  rp_enter(w);
  rp_big_in(&sb, sendcount, sendtype);
  rp_big_in(&rb, recvcount, recvtype);
  int rc = rp_sendrecv(w, sendbuf, sb.count, sb.type, dest, sendtag, recvbuf,
                       rb.count, rb.type, source, recvtag, comm, status,
                       replace, request);
  rp_big_out(&sb);
  rp_big_out(&rb);
  rp_leave(w);
  return rc;
}

RP_EXPORT int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, int dest, int sendtag,
                             void *recvbuf, MPI_Count recvcount,
                             MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status *status) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag,
                           recvbuf, recvcount, recvtype, source, recvtag,
                           comm, status);
  return sendrecv_c(RP_W_MPI_Sendrecv_c, sendbuf, sendcount, sendtype, dest,
                    sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                    comm, status, 0, NULL);
}

RP_EXPORT int MPI_Sendrecv_replace_c(void *buf, MPI_Count count,
                                     MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag,
                                     MPI_Comm comm, MPI_Status *status) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag,
                                   source, recvtag, comm, status);
  return sendrecv_c(RP_W_MPI_Sendrecv_replace_c, NULL, 0, datatype, dest,
                    sendtag, buf, count, datatype, source, recvtag, comm,
                    status, 1, NULL);
}

RP_EXPORT int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, int dest, int sendtag,
                              void *recvbuf, MPI_Count recvcount,
                              MPI_Datatype recvtype, int source, int recvtag,
                              MPI_Comm comm, MPI_Request *request) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag,
                            recvbuf, recvcount, recvtype, source, recvtag,
                            comm, request);
  return sendrecv_c(RP_W_MPI_Isendrecv_c, sendbuf, sendcount, sendtype, dest,
                    sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                    comm, MPI_STATUS_IGNORE, 0, request);
}

RP_EXPORT int MPI_Isendrecv_replace_c(void *buf, MPI_Count count,
                                      MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag,
                                      MPI_Comm comm, MPI_Request *request) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Isendrecv_replace_c(buf, count, datatype, dest, sendtag,
                                    source, recvtag, comm, request);
  return sendrecv_c(RP_W_MPI_Isendrecv_replace_c, NULL, 0, datatype, dest,
                    sendtag, buf, count, datatype, source, recvtag, comm,
                    MPI_STATUS_IGNORE, 1, request);
}
#endif

/* ---------------------------------------------------------- completion */

RP_EXPORT int MPI_Request_get_status(MPI_Request request, int *flag,
                                     MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Request_get_status(request, flag, status);
  rp_enter(RP_W_MPI_Request_get_status);
  rp_req *r = rp_req_find(request);
  rp_defer_ready(&r, 1, 0);
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
  if (r && rp_g.sampling) /* predict and compensate: not even a call */
    rp_req_started(r, RP_W_MPI_Start);
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
  for (int i = 0; rp_g.sampling && i < count; i++) {
    rp_req *r = rp_req_find(array_of_requests[i]);
    if (r)
      rp_req_started(r, RP_W_MPI_Startall);
  }
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
  rp_req *r = rp_g.wild_open > 0 ? rp_req_find(*request) : NULL;
  if (r && r->dstate != RP_DEF_NONE)
    rp_defer_cancel(r); /* a deferred wildcard receive */
  rp_match_unsure(); /* the counts of messages and posts part ways */
  int rc = PMPI_Cancel(request); /* the completion sees the cancel */
  rp_leave(RP_W_MPI_Cancel);
  return rc;
}

/* -------------------------------------------------------------- probes */

RP_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm,
                        MPI_Status *status) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Probe(source, tag, comm, status);
  rp_enter(RP_W_MPI_Probe);
  int rc, src = rp_recv_source(source, tag, comm);
  RP_UNLOCKED(rc = PMPI_Probe(src, tag, comm, status));
  if (rc == MPI_SUCCESS)
    rp_status_unpiggyback(status, comm);
  rp_leave(RP_W_MPI_Probe);
  return rc;
}

RP_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                         MPI_Status *status) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Iprobe(source, tag, comm, flag, status);
  rp_enter_poll(RP_W_MPI_Iprobe);
  rp_defer_flush(tag, comm);
  int src = source, k = source == MPI_ANY_SOURCE
                           ? rp_match_try(tag, comm, &src) : 1, rc;
  if (k == 0) { /* no message proven first yet: none, after progress */
    rc = PMPI_Iprobe(source, tag, comm, flag, MPI_STATUS_IGNORE);
    *flag = 0;
  } else {
    rc = PMPI_Iprobe(src, tag, comm, flag, status);
    if (k == -1 && rc == MPI_SUCCESS && *flag)
      rp_match_real_probe();
  }
  if (rc == MPI_SUCCESS && *flag)
    rp_status_unpiggyback(status, comm);
  rp_leave(RP_W_MPI_Iprobe);
  return rc;
}

RP_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm,
                         MPI_Message *message, MPI_Status *status) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Mprobe(source, tag, comm, message, status);
  rp_enter(RP_W_MPI_Mprobe);
  int rc, src = rp_recv_source(source, tag, comm);
  RP_UNLOCKED(rc = PMPI_Mprobe(src, tag, comm, message, status));
  if (rc == MPI_SUCCESS) {
    rp_status_unpiggyback(status, comm);
    rp_message_probed(*message, comm);
  }
  rp_leave(RP_W_MPI_Mprobe);
  return rc;
}

RP_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                          MPI_Message *message, MPI_Status *status) {
  comm = rp_world_map(comm);
  if (rp_bypass())
    return PMPI_Improbe(source, tag, comm, flag, message, status);
  rp_enter_poll(RP_W_MPI_Improbe);
  rp_defer_flush(tag, comm);
  int src = source, k = source == MPI_ANY_SOURCE
                           ? rp_match_try(tag, comm, &src) : 1, rc;
  if (k == 0) { /* as MPI_Iprobe: progress, and no message yet */
    int f = 0;
    rc = PMPI_Iprobe(source, tag, comm, &f, MPI_STATUS_IGNORE);
    *flag = 0;
  } else {
    rc = PMPI_Improbe(src, tag, comm, flag, message, status);
    if (k == -1 && rc == MPI_SUCCESS && *flag)
      rp_match_real_probe();
  }
  if (rc == MPI_SUCCESS && *flag) {
    rp_status_unpiggyback(status, comm);
    rp_message_probed(*message, comm);
  }
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

#if MPI_VERSION >= 4
static int mrecv_c(rp_wid w, void *buf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Message *message,
                   MPI_Status *status, MPI_Request *request) {
  rp_bigc b;
  rp_enter(w);
  rp_big_in(&b, count, datatype);
  int rc = rp_mrecv(buf, b.count, b.type, message, status, request);
  rp_big_out(&b);
  rp_leave(w);
  return rc;
}

RP_EXPORT int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Message *message, MPI_Status *status) {
  if (rp_bypass())
    return PMPI_Mrecv_c(buf, count, datatype, message, status);
  return mrecv_c(RP_W_MPI_Mrecv_c, buf, count, datatype, message, status,
                 NULL);
}

RP_EXPORT int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Message *message, MPI_Request *request) {
  if (rp_bypass())
    return PMPI_Imrecv_c(buf, count, datatype, message, request);
  return mrecv_c(RP_W_MPI_Imrecv_c, buf, count, datatype, message,
                 MPI_STATUS_IGNORE, request);
}
#endif

/* ------------------------------------------------------- communicators */

RP_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm,
                            MPI_Request *request) {
  comm = rp_world_map(comm);
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
  if (comm != NULL)
    rp_p2p_comm_freed(*comm);
  int rc; /* the attribute's delete frees the shadow */
  RP_UNLOCKED(rc = PMPI_Comm_free(comm));
  rp_leave(RP_W_MPI_Comm_free);
  return rc;
}

/* ------------------------------------------------ datatypes and buffers */

RP_EXPORT int MPI_Type_free(MPI_Datatype *datatype) {
  if (rp_g.active && datatype) { /* even inside the tool: handles recycle */
    int took = rp_mt_hold();
    rp_p2p_type_freed(*datatype);
    rp_mt_release(took);
  }
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
