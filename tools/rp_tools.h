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

#endif
