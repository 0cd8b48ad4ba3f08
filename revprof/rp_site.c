/* Names of code addresses (rp_site.h): libdw's view of this process when the
 * build has it (RP_HAVE_LIBDW), dladdr's dynamic symbols otherwise and
 * whenever libdw knows nothing of an address. */
#define _GNU_SOURCE 1 /* dladdr */
#include "rp_site.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RP_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>
#endif

/* The last component of a path ("" stays ""). */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* ---------------------------------------------------- dynamic symbols */

/* addr named by dladdr into buf; 0 when it knows nothing of addr. */
static int name_by_dladdr(uintptr_t addr, char *buf, size_t len) {
  Dl_info di;
  if (!dladdr((const void *)(addr - 1), &di))
    return 0;
  const char *obj = di.dli_fname && di.dli_fname[0] ? base_name(di.dli_fname)
                                                     : NULL;
  if (di.dli_sname && di.dli_saddr) {
    uintptr_t off = addr - (uintptr_t)di.dli_saddr;
    if (obj)
      snprintf(buf, len, "%s+0x%" PRIxPTR " (%s)", di.dli_sname, off, obj);
    else
      snprintf(buf, len, "%s+0x%" PRIxPTR, di.dli_sname, off);
  } else if (obj) {
    snprintf(buf, len, "%s+0x%" PRIxPTR, obj, addr - (uintptr_t)di.dli_fbase);
  } else {
    return 0;
  }
  return 1;
}

/* ------------------------------------------------------- debug information */

#ifdef RP_HAVE_LIBDW

static Dwfl *session;      /* this process's objects; NULL before first use */
static int session_failed; /* 1: it could not be made (dladdr only) */

/* The session, made at the first call from /proc/self/maps. Separate debug
 * information is looked up by build ID on this machine only
 * (/usr/lib/debug/.build-id, where Debian's -dbg and -dbgsym packages put
 * it): dwfl_standard_find_debuginfo would also ask the debuginfod servers of
 * DEBUGINFOD_URLS, up to 90 s an object, on every rank. */
static Dwfl *get_session(void) {
  static char *debuginfo_path; /* NULL: libdw's default search path */
  static const Dwfl_Callbacks callbacks = {
      .find_elf = dwfl_linux_proc_find_elf,
      .find_debuginfo = dwfl_build_id_find_debuginfo,
      .debuginfo_path = &debuginfo_path,
  };
  if (session != NULL || session_failed)
    return session;
  session = dwfl_begin(&callbacks);
  if (session != NULL && (dwfl_linux_proc_report(session, getpid()) != 0 ||
                          dwfl_report_end(session, NULL, NULL) != 0)) {
    dwfl_end(session);
    session = NULL;
  }
  session_failed = session == NULL;
  return session;
}

/* The name of the innermost function, inlined or not, whose code holds pc
 * (a DIE name: valid while the session lives); NULL when the debug
 * information does not say. */
static const char *function_at(Dwfl_Module *mod, Dwarf_Addr pc) {
  Dwarf_Addr bias;
  Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
  Dwarf_Die *scopes = NULL;
  int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
  const char *name = NULL;
  for (int i = 0; i < n; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      name = dwarf_diename(&scopes[i]); /* follows abstract_origin */
      break;
    }
  }
  free(scopes);
  return name;
}

/* addr named from the session into buf; 0 when no object holds addr. */
static int name_by_libdw(uintptr_t addr, char *buf, size_t len) {
  Dwfl *dwfl = get_session();
  Dwarf_Addr pc = (Dwarf_Addr)(addr - 1);
  Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
  Dwarf_Addr start = 0, end = 0; /* the object's addresses, [start, end) */
  const char *obj = mod ? dwfl_module_info(mod, NULL, &start, &end, NULL, NULL,
                                           NULL, NULL)
                        : NULL;
  if (mod == NULL || pc < start || pc >= end) /* libdw 0.188 names one for
                                               * addresses above [vsyscall] */
    return 0;
  GElf_Off off; /* pc less the symbol's start */
  GElf_Sym sym;
  const char *sym_name =
      dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
  Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
  int line_no = 0;
  const char *file =
      line ? dwfl_lineinfo(line, NULL, &line_no, NULL, NULL, NULL) : NULL;
  if (file != NULL && line_no > 0) {
    const char *fn = function_at(mod, pc);
    if (fn == NULL)
      fn = sym_name;
    if (fn)
      snprintf(buf, len, "%s:%d %s", base_name(file), line_no, fn);
    else
      snprintf(buf, len, "%s:%d", base_name(file), line_no);
    return 1;
  }
  obj = obj ? base_name(obj) : "?";
  if (sym_name)
    snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", sym_name, (uint64_t)off + 1,
             obj);
  else
    snprintf(buf, len, "%s+0x%" PRIx64, obj, (uint64_t)(addr - start));
  return 1;
}

void rp_site_done(void) {
  if (session != NULL)
    dwfl_end(session);
  session = NULL;
  session_failed = 0;
}

#else /* no libdw: nothing is cached */

void rp_site_done(void) {}

#endif

/* ------------------------------------------------------------ the name */

const char *rp_site_name(uintptr_t addr, char *buf, size_t len) {
  if (buf == NULL || len == 0)
    return buf;
  buf[0] = '\0';
#ifdef RP_HAVE_LIBDW
  if (addr != 0 && name_by_libdw(addr, buf, len))
    return buf;
#endif
  if (addr != 0 && name_by_dladdr(addr, buf, len))
    return buf;
  snprintf(buf, len, "0x%" PRIxPTR, addr);
  return buf;
}
