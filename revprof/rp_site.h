/* Names of code addresses for the report's call sites of MPI calls:
 * "file:line function" from the program's debug information (libdw), or
 * what the dynamic symbols tell (dladdr) when the build has no libdw. No
 * MPI; not for hot paths, and one thread at a time. */
#ifndef RP_SITE_H
#define RP_SITE_H

#include <stddef.h>
#include <stdint.h>

/* Names the code address addr (a return address taken with
 * __builtin_return_address(0) in an MPI wrapper, i.e. the instruction after
 * the call: addr - 1 is resolved) as "file:line function" (file: base
 * name; function: the innermost one, inlined or not, whose code holds the
 * call), or "function+0xOFF (object)" when no line information is found
 * (OFF: addr less the function's start; object: base name), or
 * "object+0xOFF" when the object is known but no symbol covers addr, or
 * "0xADDR" (addr itself) when nothing is known. Without libdw only the
 * dynamic symbols name functions (link programs with -rdynamic).
 * Writes at most len bytes, always NUL-terminated when len > 0; returns
 * buf. The first call reads the process's mappings and keeps them (with
 * each object's debug information as it is needed) until rp_site_done:
 * objects mapped later are unknown until then. Not for hot paths: called a
 * few hundred times at the end of a run. Debug information is that of the
 * objects themselves or found by build ID under /usr/lib/debug, never
 * fetched from debuginfod servers. */
const char *rp_site_name(uintptr_t addr, char *buf, size_t len);

/* Frees what rp_site_name cached (debug info sessions); the next call
 * starts afresh. Safe to call when nothing is cached, and twice. */
void rp_site_done(void);

#endif
