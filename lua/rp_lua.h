/* Sandboxed Lua for revprof: run a text chunk with an empty environment and
 * a traceback handler, shared by the model loader and the annotation API. */
#ifndef RP_LUA_H
#define RP_LUA_H

#include <stddef.h>

#include <lua.h>

/* Creates a state with no libraries opened at all, whose memory is capped
 * at 256 MiB (an allocation over it is a Lua error naming the cap). NULL on
 * memory error. */
lua_State *rp_lua_new(void);

/* Loads a text chunk (binary chunks refused) from a file (text == NULL) or
 * from text, with chunkname "@name", sets its _ENV to env_index's table (0:
 * a fresh empty table) and runs it under a traceback handler, with an
 * instruction limit so an endless loop fails instead of hanging. On success
 * leaves nresults values on the stack and returns 0. On failure returns -1
 * and writes "name:line: message" to err. */
int rp_lua_run(lua_State *L, const char *name, const char *text,
               int env_index, int nresults, char *err, size_t errlen);

/* Calls the function below nargs arguments on the stack under the traceback
 * handler; same conventions as lua_pcall, with the message copied to err. */
int rp_lua_pcall(lua_State *L, int nargs, int nresults, char *err,
                 size_t errlen);

#endif
