/* Subcommands of the revprof tool that live outside revprof.c (timeline,
 * trace, run, sweep, validate) and the process helpers they share. The helpers fail
 * with REVPROF_E* codes (revprof_model.h). */
#ifndef RP_TOOLS_H
#define RP_TOOLS_H

#include <stddef.h>

/* Entry points: argv[0] is the subcommand name; return the exit status. */
int rp_cmd_timeline(int argc, char **argv);
int rp_cmd_trace(int argc, char **argv);
int rp_cmd_run(int argc, char **argv);
int rp_cmd_sweep(int argc, char **argv);
int rp_cmd_validate(int argc, char **argv);
int rp_cmd_monitor_probe(int argc, char **argv);

/* Monitoring's options of 'revprof run' (monitor_cmd.c): --monitor K,
 * --fanout F, --offload S, --accept AT, --filter S, --interval S set the
 * REVPROF_MONITOR* variables. rp_monitor_option returns 1 (and moves *i
 * past the value) for one of them, 0 for another option, -1 after a
 * message; rp_monitor_check reads the variables by librevprof's rule and
 * returns K (0: no monitoring), or -1 after a message naming the bad one;
 * rp_monitor_plot draws DIR/monitor/oc.png and owd.png with gnuplot where
 * it is installed. */
extern const char rp_monitor_help[];
int rp_monitor_option(const char *cmd, int argc, char **argv, int *i);
int rp_monitor_check(const char *cmd);
void rp_monitor_plot(const char *dir);
/* For the commands that start ranks of their own (characterize, sweep):
 * REVPROF_MONITOR unset, with a word on stderr when it was set (tool
 * ranks would take ranks the command counts on). */
void rp_monitor_none(const char *cmd);

/* Runs lib (NULL: natively) under mpiexec with np ranks on app (program
 * and arguments, NULL-terminated), the REVPROF_* variables exported;
 * stdout to out when not NULL. Returns rp_spawn's status. */
int rp_launch(const char *lib, int np, char **app, const char *out);

/* rp_spawn_wait with the tool's messages: runs argv (argv[0] looked up in
 * PATH) and waits. With out != NULL its stdout goes to that file (created
 * or truncated), with err_to_out also stderr. Returns the exit status
 * (0..255, 128 + signal when killed), or, with a message naming the file
 * or program on stderr, REVPROF_EIO when out cannot be created and
 * REVPROF_ESPAWN when no child could be started or waited for. *seconds,
 * when not NULL, gets the wall time from start to exit. */
int rp_spawn(char *const argv[], const char *out, int err_to_out,
             double *seconds);

/* Finds an executable: the env variable's value when set, else name in
 * PATH. Returns 0 and the path in buf, or REVPROF_EMISSING (no message:
 * the caller says what to install or set). */
int rp_find_program(const char *env, const char *name, char *buf,
                    size_t len);

/* Path of librevprof.so: $REVPROF_LIB, else the build tree's, else next to
 * this binary, else the installed one. 0 and the path in buf, or
 * REVPROF_EMISSING (no message). */
int rp_find_revprof_lib(char *buf, size_t len);

/* Path of one of revprof's MPI programs (revprof-characterize,
 * revprof-probe): $env, else the build tree's characterize/ folder next to
 * this binary's, else ../libexec/revprof next to it, else the installed
 * libexec one. 0, or REVPROF_EMISSING (no message). */
int rp_find_libexec(const char *env, const char *name, char *buf,
                    size_t len);

#endif
