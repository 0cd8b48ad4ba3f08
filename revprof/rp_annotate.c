/* Lua cost functions of annotated regions: loading the REVPROF_LUA file in
 * a sandbox and calling one function per region (see rp_annotate.h). */
#include "rp_annotate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "revprof_model.h"
#include "rp_lua.h"

struct rp_annotate {
  lua_State *L;
  int regions;  /* registry reference of the table of cost functions */
  char name[512]; /* file name, for messages */
};

/* Base functions a cost function may use; everything that reaches files,
 * the process or other chunks (load, dofile, require, io, os) stays out. */
static const char *const safe_base[] = {
    "assert", "error",  "ipairs",   "next",   "pairs", "pcall", "rawequal",
    "rawget", "rawlen", "rawset",   "select", "tonumber", "tostring",
    "type",   "xpcall", NULL};

/* Pushes the environment table the file runs in. */
static void push_env(lua_State *L) {
  lua_newtable(L);
  int env = lua_gettop(L);
  luaL_requiref(L, "_G", luaopen_base, 0); /* into the hidden globals */
  for (int i = 0; safe_base[i]; i++) {
    lua_getfield(L, -1, safe_base[i]);
    lua_setfield(L, env, safe_base[i]);
  }
  lua_pop(L, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 0);
  lua_setfield(L, env, LUA_MATHLIBNAME);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 0);
  lua_setfield(L, env, LUA_STRLIBNAME);
}

int rp_annotate_open(const char *name, const char *text, rp_annotate **out,
                     char *err, size_t errlen) {
  *out = NULL;
  rp_annotate *a = calloc(1, sizeof *a);
  lua_State *L = rp_lua_new();
  if (a == NULL || L == NULL) {
    free(a);
    if (L)
      lua_close(L);
    snprintf(err, errlen, "%s: out of memory", name);
    return REVPROF_ENOMEM;
  }
  a->L = L;
  snprintf(a->name, sizeof a->name, "%s", name);
  push_env(L);
  int env = lua_gettop(L);
  if (rp_lua_run(L, name, text, env, 1, err, errlen) != 0) {
    rp_annotate_free(a);
    return REVPROF_ESYNTAX;
  }
  if (lua_type(L, -1) == LUA_TTABLE)
    lua_remove(L, env); /* the returned table holds the functions */
  else if (lua_isnil(L, -1))
    lua_pop(L, 1); /* the globals do */
  else {
    snprintf(err, errlen,
             "%s: the file must define cost functions or return a table of "
             "them (it returned a %s)",
             name, luaL_typename(L, -1));
    rp_annotate_free(a);
    return REVPROF_ELUA;
  }
  a->regions = luaL_ref(L, LUA_REGISTRYINDEX);
  *out = a;
  return 0;
}

/* "file:line" of the Lua function on the top of the stack. */
static void where_defined(lua_State *L, const char *file, char *buf,
                          size_t len) {
  lua_Debug ar;
  lua_pushvalue(L, -1);
  if (lua_getinfo(L, ">S", &ar) && ar.linedefined > 0)
    snprintf(buf, len, "%s:%d", file, ar.linedefined);
  else
    snprintf(buf, len, "%s", file);
}

static int bad_number(double x) { return !isfinite(x) || x < 0.0; }

int rp_annotate_cost(rp_annotate *a, const char *region, int nargs,
                     const double *args, double out[RP_NB], char *err,
                     size_t errlen) {
  char where[600];
  lua_State *L = a->L;
  int top = lua_gettop(L), rc = 0;
  out[0] = out[1] = out[2] = 0.0;
  if (region == NULL || nargs < 0 || nargs > RP_ANNOTATE_MAX_ARGS) {
    snprintf(err, errlen, "%s: region %s: bad call (name NULL or more than "
             "%d arguments)", a->name, region ? region : "(null)",
             RP_ANNOTATE_MAX_ARGS);
    return REVPROF_EINVAL;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, a->regions);
  if (lua_getfield(L, -1, region) != LUA_TFUNCTION) {
    snprintf(err, errlen,
             "%s: no cost function for region \"%s\" (found %s)", a->name,
             region, luaL_typename(L, -1));
    lua_settop(L, top);
    return REVPROF_ELUA;
  }
  where_defined(L, a->name, where, sizeof where);
  for (int i = 0; i < nargs; i++)
    lua_pushnumber(L, args[i]);
  if (rp_lua_pcall(L, nargs, LUA_MULTRET, err, errlen) != 0) {
    lua_settop(L, top);
    return REVPROF_ELUA;
  }
  int nres = lua_gettop(L) - top - 1;
  int first = top + 2;
  if (nres == 1 && lua_type(L, first) == LUA_TNUMBER) {
    out[0] = out[1] = out[2] = lua_tonumber(L, first);
  } else if (nres == 3 && lua_type(L, first) == LUA_TNUMBER &&
             lua_type(L, first + 1) == LUA_TNUMBER &&
             lua_type(L, first + 2) == LUA_TNUMBER) {
    for (int b = 0; b < RP_NB; b++)
      out[b] = lua_tonumber(L, first + b);
  } else {
    snprintf(err, errlen,
             "%s: cost function of region \"%s\" returned %d value%s (first "
             "a %s); expected seconds, or min, avg, max",
             where, region, nres, nres == 1 ? "" : "s",
             nres ? luaL_typename(L, first) : "nothing");
    rc = REVPROF_ELUA;
  }
  if (rc == 0 && (bad_number(out[0]) || bad_number(out[1]) ||
                  bad_number(out[2]) || out[0] > out[1] || out[1] > out[2])) {
    snprintf(err, errlen,
             "%s: cost function of region \"%s\" returned %g, %g, %g; "
             "expected finite seconds >= 0 with min <= avg <= max",
             where, region, out[0], out[1], out[2]);
    rc = REVPROF_ERANGE;
  }
  if (rc)
    out[0] = out[1] = out[2] = 0.0;
  lua_settop(L, top);
  return rc;
}

void rp_annotate_free(rp_annotate *a) {
  if (a == NULL)
    return;
  if (a->L)
    lua_close(a->L);
  free(a);
}
