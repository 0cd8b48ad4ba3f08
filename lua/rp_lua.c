/* Sandboxed execution of Lua chunks: empty environments, text only, bounded
 * run time, errors with file, line and traceback. */
#include "rp_lua.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#define RP_LUA_MAX_INSTRUCTIONS 100000000L /* per chunk run */
#define RP_LUA_HOOK_EVERY 100000

static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}

lua_State *rp_lua_new(void) {
  lua_State *L = lua_newstate(sandbox_alloc, NULL);
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
  if (err && errlen)
    snprintf(err, errlen, "%s", msg ? msg : "unknown Lua error");
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
