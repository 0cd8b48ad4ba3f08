/* librevprof public API: annotations a program may add so that reverse
 * profiling accounts for its computation, and read access to the simulated
 * clock. Link with -lrevprof (before the MPI library) or LD_PRELOAD it.
 * Every function is a no-op returning 0 when revprof is off or not yet
 * initialized. Under MPI_THREAD_MULTIPLE any thread may call them. */
#ifndef REVPROF_H
#define REVPROF_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define REVPROF_API __attribute__((visibility("default")))
#else
#define REVPROF_API
#endif

/* Adds n compute steps to the simulated clocks: n * REVPROF_STEP_MIN on
 * the min clock, n * REVPROF_STEP on the avg clock, n * REVPROF_STEP_MAX on
 * the max clock. Counts only when REVPROF_COMPUTE=annotate. */
REVPROF_API void revprof_compute_steps(double n);
#define REVPROF_COMPUTE_STEPS(n) revprof_compute_steps((double)(n))

/* Adds s seconds of computation to all three clocks (annotate mode). */
REVPROF_API void revprof_compute_seconds(double s);

/* Adds the cost of region name, computed by the Lua function of that name
 * in the REVPROF_LUA file from nargs numeric arguments (annotate mode).
 * Returns 0, or a negative code after a fault (the fault is reported once
 * with file and line; Lua costs then stay off for the rest of the run). */
REVPROF_API int revprof_region_v(const char *name, int nargs,
                                 const double *args);

/* revprof_region("name", a, b, ...): the same with up to 16 arguments,
 * each converted to double. */
#define REVPROF_FIRST_(a, ...) a
#define REVPROF_REST_(a, ...) __VA_ARGS__
#define REVPROF_ARGS_(...) ((const double[]){REVPROF_REST_(__VA_ARGS__, 0)})
#define revprof_region(...)                                                    \
  revprof_region_v(REVPROF_FIRST_(__VA_ARGS__, 0),                             \
                   (int)(sizeof REVPROF_ARGS_(__VA_ARGS__) / sizeof(double)) - \
                       1,                                                      \
                   REVPROF_ARGS_(__VA_ARGS__))

/* The simulated time of this rank (avg clock), seconds since MPI_Init; what
 * MPI_Wtime returns unless REVPROF_WTIME=real. 0 where no clock is simulated:
 * compensate and sample modes, revprof off. */
REVPROF_API double revprof_now(void);

/* The three simulated clocks, seconds: *min <= *avg <= *max (any pointer
 * may be NULL); 0 where revprof_now is. */
REVPROF_API void revprof_now_bounds(double *min, double *avg, double *max);

/* Compensate mode (REVPROF_MODE=compensate): a profiled region of the
 * program, from begin to the matching end (properly nested; end names the
 * region it closes). Counts, inclusive and exclusive times, measured and
 * with revprof's own overhead removed, appear in compensate.txt/.csv. */
REVPROF_API void revprof_region_begin(const char *name);
REVPROF_API void revprof_region_end(const char *name);

/* 1 when prediction is running (predict mode, model loaded), else 0. */
REVPROF_API int revprof_enabled(void);

/* Sample mode (REVPROF_MODE=sample): the sampling technique from now on,
 * in REVPROF_SAMPLE's syntax ("off", "all", "random:P", "counter:N[:J]",
 * "timer:S[:J]"), for this rank. Returns 0, or a negative code for a bad
 * text (the message on stderr, the technique unchanged). In other modes
 * the text is checked and kept for nothing. */
REVPROF_API int revprof_sample_set(const char *technique);

/* Online monitoring (revprof run --monitor K): offloads this rank's
 * profile (per-function calls and times of the active mode) to the tool
 * ranks now, one round; every application rank should call it equally
 * often (a round is complete when all ranks sent it). With
 * REVPROF_MONITOR_INTERVAL=auto the calls are thinned to the probed
 * Bottleneck Offload Interval, the same calls on every rank. Returns 0
 * (also without monitoring: then it does nothing). */
REVPROF_API int revprof_monitor_offload(void);

/* What 'revprof monitor-probe' found for this job's ranks, tool ranks and
 * fanout and a profile of events events (the probed size >= events
 * nearest to it, else the largest): the Bottleneck Offload Interval (the
 * search's, or the measured capacity where that is larger), the
 * one-way delay and the offload cost at it, seconds. Returns 0, or a
 * negative code (REVPROF_EMISSING: no probe result; REVPROF_EINVAL:
 * monitoring off), the outputs then 0. Read from
 * REVPROF_MONITOR_PROBE_FILE, default REVPROF_OUTPUT_DIR/monitor/probe.csv. */
REVPROF_API int revprof_monitor_info(int events, double *boi, double *owd,
                                     double *oc);

#ifdef __cplusplus
}
#endif
#endif
