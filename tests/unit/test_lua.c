/* Unit tests of the Lua sandbox: empty environment, text chunks only,
 * bounded run time and memory, errors that name the file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <lauxlib.h>

#include "rp_lua.h"

static void test_lua_runs_and_returns(void **state) {
  (void)state;
  lua_State *L = rp_lua_new();
  char err[256] = "";
  assert_int_equal(rp_lua_run(L, "t.lua", "local x = 20\nreturn x + 22", 0,
                              1, err, sizeof err),
                   0);
  assert_int_equal(lua_tointeger(L, -1), 42);
  lua_close(L);
}

static void test_lua_sandbox_has_no_libraries(void **state) {
  (void)state;
  const char *escapes[] = {"return io.open('/etc/passwd')",
                           "return os.getenv('HOME')", "return require('os')",
                           "return load('return 1')()",
                           "return string.rep('x', 3)", "return _G.print"};
  for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++) {
    lua_State *L = rp_lua_new();
    char err[512] = "";
    assert_int_equal(rp_lua_run(L, "evil.lua", escapes[i], 0, 1, err,
                                sizeof err),
                     -1);
    assert_non_null(strstr(err, "evil.lua:1:"));
    lua_close(L);
  }
}

static void test_lua_refuses_binary_chunks(void **state) {
  (void)state;
  lua_State *L = rp_lua_new();
  char err[256] = "";
  assert_int_equal(rp_lua_run(L, "bin.lua", "\x1bLua", 0, 1, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "binary"));
  lua_close(L);
}

/* a chunk that doubles a string until it holds GBs is stopped at the cap,
 * says so, and leaves the state usable and closable */
static void test_lua_memory_is_capped(void **state) {
  (void)state;
  lua_State *L = rp_lua_new();
  char err[512] = "";
  assert_int_equal(rp_lua_run(L, "big.lua",
                              "local s = 'x'\nfor i = 1, 40 do s = s .. s end\n"
                              "return #s",
                              0, 1, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "more than the sandbox's 256 MiB"));
  lua_gc(L, LUA_GCCOLLECT);
  assert_int_equal(rp_lua_run(L, "ok.lua", "return 7", 0, 1, err, sizeof err),
                   0);
  assert_int_equal(lua_tointeger(L, -1), 7);
  lua_close(L);
}

static void test_lua_endless_loop_stops(void **state) {
  (void)state;
  lua_State *L = rp_lua_new();
  char err[512] = "";
  assert_int_equal(rp_lua_run(L, "loop.lua", "\n\nwhile true do end", 0, 0,
                              err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "loop.lua:3:"));
  assert_non_null(strstr(err, "too long"));
  lua_close(L);
}

static void test_lua_error_has_traceback(void **state) {
  (void)state;
  lua_State *L = rp_lua_new();
  char err[1024] = "";
  assert_int_equal(rp_lua_run(L, "tb.lua",
                              "local function f() local t = nil; return t.x end\n"
                              "f()",
                              0, 0, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "tb.lua:1: attempt to index a nil value"));
  assert_non_null(strstr(err, "traceback"));
  lua_close(L);
}

static void test_lua_missing_file(void **state) {
  (void)state;
  lua_State *L = rp_lua_new();
  char err[256] = "";
  assert_int_equal(rp_lua_run(L, "/nonexistent/x.lua", NULL, 0, 0, err,
                              sizeof err),
                   -1);
  assert_non_null(strstr(err, "/nonexistent/x.lua: cannot open"));
  lua_close(L);
}

static void test_lua_given_environment(void **state) {
  (void)state;
  lua_State *L = rp_lua_new();
  char err[256] = "";
  lua_newtable(L);
  lua_pushinteger(L, 7);
  lua_setfield(L, -2, "seven");
  assert_int_equal(rp_lua_run(L, "env.lua", "answer = seven * 6", -1, 0, err,
                              sizeof err),
                   0);
  lua_getfield(L, -1, "answer");
  assert_int_equal(lua_tointeger(L, -1), 42);
  lua_close(L);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lua_runs_and_returns),
      cmocka_unit_test(test_lua_sandbox_has_no_libraries),
      cmocka_unit_test(test_lua_refuses_binary_chunks),
      cmocka_unit_test(test_lua_endless_loop_stops),
      cmocka_unit_test(test_lua_memory_is_capped),
      cmocka_unit_test(test_lua_error_has_traceback),
      cmocka_unit_test(test_lua_missing_file),
      cmocka_unit_test(test_lua_given_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
