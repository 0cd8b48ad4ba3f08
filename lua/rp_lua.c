/* Sandboxed execution of Lua chunks: empty environments, text only, bounded
 * run time and memory, errors with file, line and traceback. */
#include "rp_lua.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#define RP_LUA_MAX_INSTRUCTIONS 100000000L /* per chunk run */
#define RP_LUA_HOOK_EVERY 100000
#define RP_LUA_MAX_MEMORY ((size_t)256 << 20) /* per state */

/* Memory of one state: an allocation that would take it over cap fails,
 * which Lua turns into a "not enough memory" error (reworded by
 * copy_error). Freed with the state's last block. */
typedef struct sandbox_mem {
  size_t used, cap;
  int hit;
} sandbox_mem;

static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  sandbox_mem *m = ud;
  size_t old = ptr ? osize : 0; /* without ptr, osize is a type tag */
  if (nsize == 0) {
    free(ptr);
    m->used -= old;
    if (m->used == 0)
      free(m); /* lua_close frees the state's own block last */
    return NULL;
  }
  if (nsize > old && nsize - old > m->cap - m->used) {
    m->hit = 1;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p)
    m->used = m->used - old + nsize;
  return p;
}

lua_State *rp_lua_new(void) {
  sandbox_mem *m = calloc(1, sizeof *m);
  if (m == NULL)
    return NULL;
  m->cap = RP_LUA_MAX_MEMORY;
  lua_State *L = lua_newstate(sandbox_alloc, m);
  if (L == NULL)
    free(m);
  return L; /* no luaL_openlibs: the sandbox has no libraries */
}

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)",
                          luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

static void count_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  luaL_error(L, "script ran too long (over %d million instructions)",
             (int)(RP_LUA_MAX_INSTRUCTIONS / 1000000L));
}

static void copy_error(lua_State *L, char *err, size_t errlen) {
  const char *msg = lua_tostring(L, -1);
  void *ud;
  lua_getallocf(L, &ud);
  sandbox_mem *m = ud;
  if (err && errlen && m->hit)
    snprintf(err, errlen, "script needs more than the sandbox's %zu MiB of "
             "memory (%s)", RP_LUA_MAX_MEMORY >> 20, msg ? msg : "no message");
  else if (err && errlen)
    snprintf(err, errlen, "%s", msg ? msg : "unknown Lua error");
  m->hit = 0;
  lua_pop(L, 1);
}

int rp_lua_pcall(lua_State *L, int nargs, int nresults, char *err,
                 size_t errlen) {
  int base = lua_gettop(L) - nargs; /* function index */
  lua_pushcfunction(L, traceback);
  lua_insert(L, base);
  lua_sethook(L, count_hook, LUA_MASKCOUNT, RP_LUA_MAX_INSTRUCTIONS);
  int rc = lua_pcall(L, nargs, nresults, base);
  lua_sethook(L, NULL, 0, 0);
  lua_remove(L, base);
  if (rc != LUA_OK) {
    copy_error(L, err, errlen);
    return -1;
  }
  return 0;
}

int rp_lua_run(lua_State *L, const char *name, const char *text,
               int env_index, int nresults, char *err, size_t errlen) {
  char chunk[512];
  int rc;
  if (env_index < 0 && env_index > LUA_REGISTRYINDEX)
    env_index = lua_gettop(L) + env_index + 1; /* absolute before pushes */
  snprintf(chunk, sizeof chunk, "@%s", name);
  if (text)
    rc = luaL_loadbufferx(L, text, strlen(text), chunk, "t");
  else {
    FILE *f = fopen(name, "r");
    if (f == NULL) {
      if (err && errlen)
        snprintf(err, errlen, "%s: cannot open: %s", name, strerror(errno));
      return -1;
    }
    fclose(f);
    rc = luaL_loadfilex(L, name, "t");
  }
  if (rc != LUA_OK) {
    copy_error(L, err, errlen);
    return -1;
  }
  if (env_index)
    lua_pushvalue(L, env_index);
  else
    lua_newtable(L);
  if (lua_setupvalue(L, -2, 1) == NULL) /* _ENV is the chunk's 1st upvalue */
    lua_pop(L, 1);
  return rp_lua_pcall(L, 0, nresults, err, errlen);
}
