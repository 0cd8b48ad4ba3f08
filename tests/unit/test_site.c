/* Unit tests of the names of code addresses (revprof/rp_site.c): a call's
 * file, line and function, inlined functions, a shared library's symbol,
 * unknown addresses, truncation, and the cache freed and made again. Built
 * with -g; with RP_HAVE_LIBDW the exact "file:line function" is checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rp_site.h"

/* What an MPI wrapper takes: the address its caller returns to. */
__attribute__((noinline, noclone)) static uintptr_t return_address(void) {
  return (uintptr_t)__builtin_return_address(0);
}

/* A call site in a function of its own; *line: the call's line. Exported
 * (default visibility, the test is linked with ENABLE_EXPORTS) so that
 * dladdr, the fallback without libdw, names it too. */
__attribute__((visibility("default"), noinline)) uintptr_t
site_caller(int *line);
uintptr_t site_caller(int *line) {
  uintptr_t ra = return_address(); *line = __LINE__; /* on the call's line */
  return ra;
}

/* A call site inlined into its caller. */
static inline __attribute__((always_inline)) uintptr_t
site_inlined(int *line) {
  uintptr_t ra = return_address(); *line = __LINE__;
  return ra;
}

static void test_site_names_file_line_function(void **state) {
  (void)state;
  int line;
  uintptr_t ra = site_caller(&line);
  char buf[256];
  assert_ptr_equal(rp_site_name(ra, buf, sizeof buf), buf);
  print_message("rp_site_name(site_caller's call) = \"%s\"\n", buf);
#ifdef RP_HAVE_LIBDW
  char want[128];
  snprintf(want, sizeof want, "test_site.c:%d site_caller", line);
  assert_string_equal(buf, want);
#else
  assert_non_null(strstr(buf, "site_caller+0x"));
#endif
}

static void test_site_names_inlined_function(void **state) {
  (void)state;
  int line;
  uintptr_t ra = site_inlined(&line);
  char buf[256];
  rp_site_name(ra, buf, sizeof buf);
  print_message("rp_site_name(site_inlined's call) = \"%s\"\n", buf);
#ifdef RP_HAVE_LIBDW
  char want[128];
  snprintf(want, sizeof want, "test_site.c:%d site_inlined", line);
  assert_string_equal(buf, want);
#else
  assert_true(strlen(buf) > 0 && strncmp(buf, "0x", 2) != 0);
#endif
}

/* Shared libraries' exported functions, without line information unless
 * their debug information is installed: "print_message+0x1
 * (libcmocka.so.0)", "msort.c:307 qsort" with libc6-dbg. */
static void test_site_names_library_symbol(void **state) {
  (void)state;
  const struct {
    uintptr_t addr;
    const char *name, *plain; /* plain: without line information */
  } fn[] = {
      {(uintptr_t)qsort, "qsort", "qsort+0x1 (libc.so."},
      {(uintptr_t)print_message, "print_message",
       "print_message+0x1 (libcmocka.so."},
  };
  for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++) {
    char buf[256];
    rp_site_name(fn[i].addr + 1, buf, sizeof buf);
    print_message("rp_site_name(%s + 1) = \"%s\"\n", fn[i].name, buf);
    if (strchr(buf, ':') == NULL) /* no line information */
      assert_non_null(strstr(buf, fn[i].plain));
    else
      assert_non_null(strstr(buf, fn[i].name));
  }
}

static void test_site_unknown_address_is_hex(void **state) {
  (void)state;
  char buf[64];
  assert_string_equal(rp_site_name(0, buf, sizeof buf), "0x0");
  assert_string_equal(rp_site_name(0x10, buf, sizeof buf), "0x10"); /* page 0 */
  char want[64];
  snprintf(want, sizeof want, "0x%" PRIxPTR, UINTPTR_MAX); /* kernel space */
  assert_string_equal(rp_site_name(UINTPTR_MAX, buf, sizeof buf), want);
}

static void test_site_truncates_tiny_buffer(void **state) {
  (void)state;
  int line;
  uintptr_t ra = site_caller(&line);
  char buf[16];
  memset(buf, 'x', sizeof buf);
  rp_site_name(ra, buf, 5);
  assert_int_equal(strlen(buf), 4);
  assert_int_equal(buf[5], 'x'); /* nothing written past len */
  rp_site_name(0x1234, buf, 4);
  assert_string_equal(buf, "0x1");
  rp_site_name(ra, buf, 1);
  assert_string_equal(buf, "");
  buf[0] = 'x';
  assert_ptr_equal(rp_site_name(ra, buf, 0), buf);
  assert_int_equal(buf[0], 'x'); /* len 0: untouched */
  assert_null(rp_site_name(ra, NULL, 0));
}

static void test_site_done_then_again(void **state) {
  (void)state;
  int line;
  uintptr_t ra = site_caller(&line);
  char first[256], again[256];
  rp_site_name(ra, first, sizeof first);
  rp_site_done();
  rp_site_done(); /* nothing cached: a no-op */
  rp_site_name(ra, again, sizeof again);
  assert_string_equal(again, first);
}

static int free_cache(void **state) {
  (void)state;
  rp_site_done();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_site_names_file_line_function),
      cmocka_unit_test(test_site_names_inlined_function),
      cmocka_unit_test(test_site_names_library_symbol),
      cmocka_unit_test(test_site_unknown_address_is_hex),
      cmocka_unit_test(test_site_truncates_tiny_buffer),
      cmocka_unit_test(test_site_done_then_again),
  };
  return cmocka_run_group_tests(tests, NULL, free_cache);
}
