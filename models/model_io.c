/* Model files: reading a Lua table in a sandbox into revprof_model, checking
 * every field on the way, and writing a model back out as a Lua table. */
#include "model_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rp_lua.h"

/* --------------------------------------------------------------- loading */

typedef struct loader {
  lua_State *L;
  const char *name; /* file name for messages */
  char *err;
  size_t errlen;
} loader;

static const char *const top_keys[] = {"format", "machine", "method",
                                       "functions", "overhead", NULL};
static const char *const machine_keys[] = {"name",  "mpi",   "filesystem",
                                           "date",  "ranks", "notes",
                                           "compute_spread", "eager_limit",
                                           NULL};
static const char *const regime_keys[] = {"dmin", "dmax", "form", "avg",
                                          "err", "min", "max", "n",
                                          "cv_error", NULL};

/* Every string key of the table at idx must be in keys. */
static int check_keys(loader *ld, int idx, const char *const *keys,
                      const char *where) {
  lua_State *L = ld->L;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      if (lua_type(L, -1) == LUA_TNUMBER)
        rp_errf(ld->err, ld->errlen,
                "%s: %s: unexpected list entry [%g] (fields must be named)",
                ld->name, where, lua_tonumber(L, -1));
      else
        rp_errf(ld->err, ld->errlen, "%s: %s: unexpected key of type %s",
                ld->name, where, luaL_typename(L, -1));
      lua_pop(L, 1);
      return REVPROF_EFIELD;
    }
    const char *k = lua_tostring(L, -1);
    int known = 0;
    for (int i = 0; keys[i]; i++)
      known |= strcmp(keys[i], k) == 0;
    if (!known) {
      rp_errf(ld->err, ld->errlen, "%s: %s.%s: unknown field", ld->name,
              where, k);
      lua_pop(L, 1);
      return REVPROF_EFIELD;
    }
  }
  return 0;
}

/* Reads field key of the table at idx as a string into buf. */
static int get_string(loader *ld, int idx, const char *key, const char *where,
                      int required, char *buf, size_t len) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, idx, key);
  int rc = 0;
  if (t == LUA_TNIL) {
    if (required) {
      rp_errf(ld->err, ld->errlen, "%s: %s%s%s: missing", ld->name, where,
              *where ? "." : "", key);
      rc = REVPROF_EFIELD;
    }
  } else if (t != LUA_TSTRING) {
    rp_errf(ld->err, ld->errlen, "%s: %s%s%s: expected a string, got %s",
            ld->name, where, *where ? "." : "", key, lua_typename(L, t));
    rc = REVPROF_EFIELD;
  } else
    snprintf(buf, len, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  return rc;
}

/* Reads field key of the table at idx as a number; *out untouched if absent
 * and not required. */
static int get_number(loader *ld, int idx, const char *key, const char *where,
                      int required, double *out) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, idx, key);
  int rc = 0;
  if (t == LUA_TNIL) {
    if (required) {
      rp_errf(ld->err, ld->errlen, "%s: %s.%s: missing", ld->name, where,
              key);
      rc = REVPROF_EFIELD;
    }
  } else if (t != LUA_TNUMBER) {
    rp_errf(ld->err, ld->errlen, "%s: %s.%s: expected a number, got %s",
            ld->name, where, key, lua_typename(L, t));
    rc = REVPROF_EFIELD;
  } else {
    *out = lua_tonumber(L, -1);
    if (isnan(*out)) {
      rp_errf(ld->err, ld->errlen, "%s: %s.%s: is NaN", ld->name, where, key);
      rc = REVPROF_EFIELD;
    }
  }
  lua_pop(L, 1);
  return rc;
}

/* machine.eager_limit of the machine table at idx, when there: a whole
 * number of bytes >= 1 or "none" (INFINITY). */
static int get_eager_limit(loader *ld, int idx, double *out) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, idx, "eager_limit");
  char text[64] = "";
  if (t == LUA_TNUMBER)
    snprintf(text, sizeof text, "%.17g", lua_tonumber(L, -1));
  else if (t == LUA_TSTRING)
    snprintf(text, sizeof text, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  if (t == LUA_TNIL)
    return 0;
  int text_ok = t == LUA_TNUMBER || t == LUA_TSTRING;
  if (!text_ok || revprof_eager_parse(text, out) != 0 ||
      (t == LUA_TNUMBER) == (isinf(*out) != 0)) {
    rp_errf(ld->err, ld->errlen, "%s: machine.eager_limit: expected a whole "
            "number of bytes >= 1 or \"none\", got %s", ld->name,
            text_ok ? text : lua_typename(L, t));
    return REVPROF_EFIELD;
  }
  return 0;
}

/* Reads the list field key (numbers) of the regime at idx into out[n]. */
static int get_coefs(loader *ld, int idx, const char *key, const char *where,
                     int n, int required, double *out, int *present) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, idx, key);
  int rc = 0;
  *present = 0;
  if (t == LUA_TNIL) {
    if (required) {
      rp_errf(ld->err, ld->errlen, "%s: %s.%s: missing", ld->name, where,
              key);
      rc = REVPROF_EFIELD;
    }
    goto out;
  }
  if (t != LUA_TTABLE) {
    rp_errf(ld->err, ld->errlen,
            "%s: %s.%s: expected a list of numbers, got %s", ld->name, where,
            key, lua_typename(L, t));
    rc = REVPROF_EFIELD;
    goto out;
  }
  if ((int)luaL_len(L, -1) != n) {
    rp_errf(ld->err, ld->errlen,
            "%s: %s.%s: has %d entries, but form has %d terms", ld->name,
            where, key, (int)luaL_len(L, -1), n);
    rc = REVPROF_EFIELD;
    goto out;
  }
  for (int k = 0; k < n && rc == 0; k++) {
    int tk = lua_geti(L, -1, k + 1);
    if (tk != LUA_TNUMBER) {
      rp_errf(ld->err, ld->errlen, "%s: %s.%s[%d]: expected a number, got %s",
              ld->name, where, key, k + 1, lua_typename(L, tk));
      rc = REVPROF_EFIELD;
    } else {
      out[k] = lua_tonumber(L, -1);
      if (isnan(out[k])) {
        rp_errf(ld->err, ld->errlen, "%s: %s.%s[%d]: is NaN", ld->name,
                where, key, k + 1);
        rc = REVPROF_EFIELD;
      }
    }
    lua_pop(L, 1);
  }
  *present = rc == 0;
out:
  lua_pop(L, 1);
  return rc;
}

static int load_form(loader *ld, int idx, const char *where,
                     revprof_regime *r) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, idx, "form");
  int rc = 0;
  if (t != LUA_TTABLE) {
    rp_errf(ld->err, ld->errlen,
            t == LUA_TNIL ? "%s: %s.form: missing%s"
                          : "%s: %s.form: expected a list of term names%s",
            ld->name, where, "");
    lua_pop(L, 1);
    return REVPROF_EFIELD;
  }
  int n = (int)luaL_len(L, -1);
  if (n < 1 || n > REVPROF_MAX_TERMS) {
    rp_errf(ld->err, ld->errlen, "%s: %s.form: %d terms (need 1 to %d)",
            ld->name, where, n, REVPROF_MAX_TERMS);
    lua_pop(L, 1);
    return REVPROF_EFIELD;
  }
  r->nterms = n;
  for (int k = 0; k < n && rc == 0; k++) {
    if (lua_geti(L, -1, k + 1) != LUA_TSTRING) {
      rp_errf(ld->err, ld->errlen, "%s: %s.form[%d]: expected a term name",
              ld->name, where, k + 1);
      rc = REVPROF_EFIELD;
    } else {
      const char *s = lua_tostring(L, -1);
      r->form[k] = revprof_basis_lookup(s);
      if (r->form[k] == REVPROF_BASIS_COUNT) {
        rp_errf(ld->err, ld->errlen,
                "%s: %s.form[%d]: unknown term \"%s\" (known: 1, p, log2(p), "
                "p^2, log2(p)^2, sqrt(p), 1/p, d, p*d, log2(p)*d, p^2*d, "
                "(p-1)/p*d, (p-1)*d, sqrt(p)*d, max(p-K,0) and max(p-K,0)*d "
                "for K = 4, 8, ..., 512)",
                ld->name, where, k + 1, s);
        rc = REVPROF_EFIELD;
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return rc;
}

static int load_regime(loader *ld, int idx, const char *where,
                       revprof_regime *r, const revprof_regime *prev) {
  int rc, present;
  double n = 0.0;
  memset(r, 0, sizeof *r);
  r->dmin = prev ? prev->dmax + 1.0 : 0.0;
  r->dmax = HUGE_VAL;
  r->cv_error = -1.0;
  if ((rc = check_keys(ld, idx, regime_keys, where)) ||
      (rc = get_number(ld, idx, "dmin", where, 0, &r->dmin)) ||
      (rc = get_number(ld, idx, "dmax", where, 0, &r->dmax)) ||
      (rc = load_form(ld, idx, where, r)) ||
      (rc = get_coefs(ld, idx, "avg", where, r->nterms, 1, r->avg,
                      &present)) ||
      (rc = get_coefs(ld, idx, "err", where, r->nterms, 0, r->err,
                      &present)))
    return rc;
  if ((rc = get_coefs(ld, idx, "min", where, r->nterms, 0, r->min,
                      &present)))
    return rc;
  if (!present)
    memcpy(r->min, r->avg, sizeof r->min);
  if ((rc = get_coefs(ld, idx, "max", where, r->nterms, 0, r->max,
                      &present)))
    return rc;
  if (!present)
    memcpy(r->max, r->avg, sizeof r->max);
  if ((rc = get_number(ld, idx, "n", where, 0, &n)) ||
      (rc = get_number(ld, idx, "cv_error", where, 0, &r->cv_error)))
    return rc;
  if (n < 0 || n > 1e9 || n != floor(n)) {
    rp_errf(ld->err, ld->errlen, "%s: %s.n: must be a count, got %g",
            ld->name, where, n);
    return REVPROF_EFIELD;
  }
  r->n = (int)n;
  return 0;
}

/* Reads {lo, hi} of the range table at idx's field key. */
static int load_pair(loader *ld, int idx, const char *key, const char *where,
                     double *lo, double *hi) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, idx, key), rc = 0;
  if (t != LUA_TTABLE || luaL_len(L, -1) != 2) {
    rp_errf(ld->err, ld->errlen, "%s: %s.%s: %s (need {smallest, largest})",
            ld->name, where, key,
            t == LUA_TNIL ? "missing" : "expected a list of two numbers");
    lua_pop(L, 1);
    return REVPROF_EFIELD;
  }
  for (int k = 0; k < 2 && rc == 0; k++) {
    if (lua_geti(L, -1, k + 1) != LUA_TNUMBER ||
        isnan(lua_tonumber(L, -1))) {
      rp_errf(ld->err, ld->errlen, "%s: %s.%s[%d]: expected a number",
              ld->name, where, key, k + 1);
      rc = REVPROF_EFIELD;
    } else
      *(k ? hi : lo) = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return rc;
}

static const char *const range_keys[] = {"p", "d", NULL};

/* The optional range = { p = {pmin, pmax}, d = {dmin, dmax} } of the
 * function table at idx; every other non-list key is an error. */
static int load_range(loader *ld, int idx, const char *where,
                      revprof_range *r) {
  lua_State *L = ld->L;
  char rw[192];
  int rc = 0;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING &&
        strcmp(lua_tostring(L, -1), "range") != 0) {
      rp_errf(ld->err, ld->errlen,
              "%s: %s.%s: unknown field (a function has a list of regimes "
              "and an optional range)",
              ld->name, where, lua_tostring(L, -1));
      lua_pop(L, 1);
      return REVPROF_EFIELD;
    }
  }
  snprintf(rw, sizeof rw, "%s.range", where);
  int t = lua_getfield(L, idx, "range");
  if (t == LUA_TTABLE) {
    int ri = lua_gettop(L);
    if ((rc = check_keys(ld, ri, range_keys, rw)) == 0 &&
        (rc = load_pair(ld, ri, "p", rw, &r->pmin, &r->pmax)) == 0 &&
        (rc = load_pair(ld, ri, "d", rw, &r->dmin, &r->dmax)) == 0)
      r->known = 1;
  } else if (t != LUA_TNIL) {
    rp_errf(ld->err, ld->errlen,
            "%s: %s: expected a table { p = {pmin, pmax}, d = {dmin, dmax} }",
            ld->name, rw);
    rc = REVPROF_EFIELD;
  }
  lua_pop(L, 1);
  return rc;
}

static int load_function(loader *ld, int idx, const char *fname,
                         revprof_fnmodel *fm) {
  lua_State *L = ld->L;
  char where[160];
  snprintf(where, sizeof where, "functions.%s", fname);
  if (lua_type(L, idx) != LUA_TTABLE) {
    rp_errf(ld->err, ld->errlen, "%s: %s: expected a list of regimes, got %s",
            ld->name, where, luaL_typename(L, idx));
    return REVPROF_EFIELD;
  }
  int n = (int)luaL_len(L, idx);
  if (n < 1 || n > REVPROF_MAX_REGIMES) {
    rp_errf(ld->err, ld->errlen, "%s: %s: %d regimes (need 1 to %d)",
            ld->name, where, n, REVPROF_MAX_REGIMES);
    return REVPROF_EFIELD;
  }
  fm->nregimes = n;
  int rc0 = load_range(ld, idx, where, &fm->range);
  if (rc0)
    return rc0;
  for (int i = 0; i < n; i++) {
    char rw[192];
    snprintf(rw, sizeof rw, "%s[%d]", where, i + 1);
    if (lua_geti(L, idx, i + 1) != LUA_TTABLE) {
      rp_errf(ld->err, ld->errlen, "%s: %s: expected a table, got %s",
              ld->name, rw, luaL_typename(L, -1));
      lua_pop(L, 1);
      return REVPROF_EFIELD;
    }
    int rc = load_regime(ld, lua_gettop(L), rw, &fm->regime[i],
                         i ? &fm->regime[i - 1] : NULL);
    lua_pop(L, 1);
    if (rc)
      return rc;
  }
  return 0;
}

static int load_functions(loader *ld, int top, revprof_model *m) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, top, "functions");
  int rc = 0;
  if (t != LUA_TTABLE) {
    rp_errf(ld->err, ld->errlen,
            t == LUA_TNIL ? "%s: functions: missing"
                          : "%s: functions: expected a table",
            ld->name);
    lua_pop(L, 1);
    return REVPROF_EFIELD;
  }
  int fidx = lua_gettop(L);
  lua_pushnil(L);
  while (rc == 0 && lua_next(L, fidx) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      rp_errf(ld->err, ld->errlen,
              "%s: functions: keys must be MPI function names", ld->name);
      rc = REVPROF_EFIELD;
    } else {
      const char *fname = lua_tostring(L, -2);
      revprof_fn fn = revprof_fn_lookup(fname);
      if (fn == REVPROF_FN_COUNT) {
        char hint[96];
        rp_errf(ld->err, ld->errlen,
                "%s: functions.%s: unknown function name (%ssee 'revprof "
                "characterize --list')",
                ld->name, fname, revprof_fn_hint(fname, hint, sizeof hint));
        rc = REVPROF_ENOFUNC;
      } else
        rc = load_function(ld, lua_gettop(L), fname, &m->fn[fn]);
    }
    lua_pop(L, 1);
  }
  if (rc)
    lua_pop(L, 1); /* the key lua_next left */
  lua_pop(L, 1);
  return rc;
}

static int load_overhead(loader *ld, int top, revprof_model *m) {
  lua_State *L = ld->L;
  int t = lua_getfield(L, top, "overhead");
  int rc = 0;
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (t != LUA_TTABLE) {
    rp_errf(ld->err, ld->errlen, "%s: overhead: expected a table", ld->name);
    lua_pop(L, 1);
    return REVPROF_EFIELD;
  }
  int oidx = lua_gettop(L);
  lua_pushnil(L);
  while (rc == 0 && lua_next(L, oidx) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TNUMBER) {
      rp_errf(ld->err, ld->errlen,
              "%s: overhead: entries must be name = seconds", ld->name);
      rc = REVPROF_EFIELD;
    } else if (m->noverhead == REVPROF_MAX_OVERHEAD ||
               lua_rawlen(L, -2) >= sizeof m->overhead[0].name) {
      rp_errf(ld->err, ld->errlen,
              "%s: overhead.%s: too many entries or name too long", ld->name,
              lua_tostring(L, -2));
      rc = REVPROF_ERANGE;
    } else {
      revprof_overhead *o = &m->overhead[m->noverhead++];
      snprintf(o->name, sizeof o->name, "%s", lua_tostring(L, -2));
      o->seconds = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
  }
  if (rc)
    lua_pop(L, 1);
  lua_pop(L, 1);
  return rc;
}

/* The N of format "revprof-model N" into *version, when it is one this
 * revprof reads; else REVPROF_EFORMAT with a message that says what to do. */
static int check_version(loader *ld, const char *format, int *version) {
  static const char prefix[] = "revprof-model ";
  char *end = NULL;
  long v = -1;
  if (strncmp(format, prefix, sizeof prefix - 1) == 0 &&
      format[sizeof prefix - 1] >= '1' && format[sizeof prefix - 1] <= '9') {
    errno = 0;
    v = strtol(format + sizeof prefix - 1, &end, 10);
    if (*end != '\0' || errno)
      v = -1;
  }
  if (v >= REVPROF_MODEL_VERSION_OLDEST && v <= REVPROF_MODEL_VERSION) {
    *version = (int)v;
    return 0;
  }
  char known[128] = "";
  size_t n = 0;
  for (int i = REVPROF_MODEL_VERSION_OLDEST;
       i <= REVPROF_MODEL_VERSION && n < sizeof known; i++)
    n += (size_t)snprintf(known + n, sizeof known - n, "%s\"%s%d\"",
                          i == REVPROF_MODEL_VERSION_OLDEST ? ""
                          : i == REVPROF_MODEL_VERSION      ? " and "
                                                            : ", ",
                          prefix, i);
  if (v > REVPROF_MODEL_VERSION)
    rp_errf(ld->err, ld->errlen,
            "%s: format \"%s\" is newer than this revprof, which reads %s: "
            "upgrade revprof, or re-characterize the machine with this one "
            "('revprof characterize')",
            ld->name, format, known);
  else
    rp_errf(ld->err, ld->errlen,
            "%s: format \"%s\" is not one this revprof reads (%s): "
            "re-characterize the machine ('revprof characterize') to make a "
            "\"%s\" model",
            ld->name, format, known, REVPROF_MODEL_FORMAT);
  return REVPROF_EFORMAT;
}

static int load_top(loader *ld, revprof_model *m) {
  lua_State *L = ld->L;
  char format[64] = "";
  int top = lua_gettop(L), rc;
  double ranks = 0, spread = -1.0;
  if (lua_type(L, top) != LUA_TTABLE) {
    rp_errf(ld->err, ld->errlen,
            "%s: the file must 'return { format = \"%s\", ... }' (it "
            "returned %s)",
            ld->name, REVPROF_MODEL_FORMAT, luaL_typename(L, top));
    return REVPROF_EFORMAT;
  }
  if ((rc = get_string(ld, top, "format", "", 1, format, sizeof format)))
    return REVPROF_EFORMAT;
  if ((rc = check_version(ld, format, &m->format_version)))
    return rc;
  if ((rc = check_keys(ld, top, top_keys, "(top level)")))
    return rc;
  if ((rc = get_string(ld, top, "method", "", 0, m->method,
                       sizeof m->method)))
    return rc;
  int t = lua_getfield(L, top, "machine");
  if (t == LUA_TTABLE) {
    int mi = lua_gettop(L);
    if ((rc = check_keys(ld, mi, machine_keys, "machine")) ||
        (rc = get_string(ld, mi, "name", "machine", 0, m->machine_name,
                         sizeof m->machine_name)) ||
        (rc = get_string(ld, mi, "mpi", "machine", 0, m->machine_mpi,
                         sizeof m->machine_mpi)) ||
        (rc = get_string(ld, mi, "filesystem", "machine", 0,
                         m->machine_filesystem,
                         sizeof m->machine_filesystem)) ||
        (rc = get_string(ld, mi, "date", "machine", 0, m->machine_date,
                         sizeof m->machine_date)) ||
        (rc = get_string(ld, mi, "notes", "machine", 0, m->machine_notes,
                         sizeof m->machine_notes)) ||
        (rc = get_number(ld, mi, "ranks", "machine", 0, &ranks)) ||
        (rc = get_number(ld, mi, "compute_spread", "machine", 0, &spread))) {
      lua_pop(L, 1);
      return rc;
    }
    m->machine_ranks = ranks > 0 && ranks < 1e9 ? (int)ranks : 0;
    if (spread != -1.0 && !(spread >= 0.0 && spread <= 0.5)) {
      rp_errf(ld->err, ld->errlen, "%s: machine.compute_spread: expected a "
              "fraction from 0 to 0.5, not %g", ld->name, spread);
      lua_pop(L, 1);
      return REVPROF_EFIELD;
    }
    m->machine_compute_spread = spread;
    if ((rc = get_eager_limit(ld, mi, &m->machine_eager_limit))) {
      lua_pop(L, 1);
      return rc;
    }
  } else if (t != LUA_TNIL) {
    rp_errf(ld->err, ld->errlen, "%s: machine: expected a table", ld->name);
    lua_pop(L, 1);
    return REVPROF_EFIELD;
  }
  lua_pop(L, 1);
  if ((rc = load_functions(ld, top, m)) || (rc = load_overhead(ld, top, m)))
    return rc;
  return revprof_model_check(m, ld->name, ld->err, ld->errlen);
}

static int load_any(const char *text, const char *name, revprof_model **out,
                    char *err, size_t errlen) {
  *out = NULL;
  if (text == NULL) {
    FILE *f = fopen(name, "r");
    if (f == NULL) {
      rp_errf(err, errlen, "%s: cannot open model file: %s", name,
              strerror(errno));
      return REVPROF_EIO;
    }
    errno = 0;
    int c = fgetc(f);
    int bad = ferror(f), e = errno;
    fclose(f);
    if (bad) { /* a directory, an unreadable device */
      rp_errf(err, errlen, "%s: cannot read model file: %s", name,
              strerror(e ? e : EIO));
      return REVPROF_EIO;
    }
    if (c == EOF) {
      rp_errf(err, errlen, "%s: model file is empty", name);
      return REVPROF_EFORMAT;
    }
  }
  revprof_model *m = revprof_model_alloc();
  lua_State *L = rp_lua_new();
  if (m == NULL || L == NULL) {
    revprof_model_free(m);
    if (L)
      lua_close(L);
    rp_errf(err, errlen, "%s: out of memory", name);
    return REVPROF_ENOMEM;
  }
  loader ld = {L, name, err, errlen};
  int rc;
  if (rp_lua_run(L, name, text, 0, 1, err, errlen) != 0)
    rc = REVPROF_ESYNTAX;
  else
    rc = load_top(&ld, m);
  lua_close(L);
  if (rc) {
    revprof_model_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

int revprof_model_load(const char *path, revprof_model **out, char *err,
                       size_t errlen) {
  return load_any(NULL, path, out, err, errlen);
}

int revprof_model_load_string(const char *text, const char *name,
                              revprof_model **out, char *err, size_t errlen) {
  return load_any(text, name, out, err, errlen);
}

/* --------------------------------------------------------------- writing */

void rp_fmt_double(char *buf, size_t len, double x) {
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, x);
    if (strtod(buf, NULL) == x)
      return;
  }
}

static void write_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\%03u", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void write_list(FILE *f, const char *key, const double *c, int n) {
  char b[40];
  fprintf(f, "        %s = { ", key);
  for (int k = 0; k < n; k++) {
    rp_fmt_double(b, sizeof b, c[k]);
    fprintf(f, "%s%s", k ? ", " : "", b);
  }
  fprintf(f, " },\n");
}

int revprof_model_write_stream(const revprof_model *m, FILE *f) {
  char b[40];
  fprintf(f, "-- revprof machine model (%s). Read it with 'revprof model "
             "show FILE'.\n",
          REVPROF_MODEL_FORMAT);
  fprintf(f, "-- Each function lists regimes by message size d (bytes); a "
             "regime's time in seconds is\n-- sum(avg[k] * form[k](p, d)), "
             "its bounds the same sum over min and max.\n-- range: the "
             "group sizes p and sizes d measured; beyond them is "
             "extrapolated.\n");
  fprintf(f, "return {\n  format = ");
  write_string(f, REVPROF_MODEL_FORMAT);
  fprintf(f, ",\n  machine = {\n    name = ");
  write_string(f, m->machine_name);
  fprintf(f, ",\n    mpi = ");
  write_string(f, m->machine_mpi);
  if (m->machine_filesystem[0]) { /* models without file I/O: none */
    fprintf(f, ",\n    filesystem = ");
    write_string(f, m->machine_filesystem);
  }
  fprintf(f, ",\n    date = ");
  write_string(f, m->machine_date);
  fprintf(f, ",\n    ranks = %d,\n", m->machine_ranks);
  if (m->machine_compute_spread >= 0) { /* shortest exact: 0.15, not 0.149... */
    char num[32];
    for (int digits = 1; digits <= 17; digits++) {
      snprintf(num, sizeof num, "%.*g", digits, m->machine_compute_spread);
      if (strtod(num, NULL) == m->machine_compute_spread)
        break;
    }
    fprintf(f, "    compute_spread = %s,\n", num);
  }
  if (m->machine_eager_limit > 0) {
    char num[32];
    revprof_eager_format(m->machine_eager_limit, num, sizeof num);
    fprintf(f, isinf(m->machine_eager_limit) ? "    eager_limit = \"%s\",\n"
                                             : "    eager_limit = %s,\n",
            num);
  }
  fprintf(f, "    notes = ");
  write_string(f, m->machine_notes);
  fprintf(f, ",\n  },\n  method = ");
  write_string(f, m->method);
  fprintf(f, ",\n  functions = {\n");
  for (int fn = 0; fn < REVPROF_FN_COUNT; fn++) {
    const revprof_fnmodel *fm = &m->fn[fn];
    if (fm->nregimes == 0)
      continue;
    fprintf(f, "    %s = {\n", revprof_fn_name((revprof_fn)fn));
    if (fm->range.known) {
      char b2[40], b3[40], b4[40];
      rp_fmt_double(b, sizeof b, fm->range.pmin);
      rp_fmt_double(b2, sizeof b2, fm->range.pmax);
      rp_fmt_double(b3, sizeof b3, fm->range.dmin);
      rp_fmt_double(b4, sizeof b4, fm->range.dmax);
      fprintf(f, "      range = { p = { %s, %s }, d = { %s, %s } },\n", b, b2,
              b3, b4);
    }
    for (int i = 0; i < fm->nregimes; i++) {
      const revprof_regime *r = &fm->regime[i];
      fprintf(f, "      {");
      if (i > 0) {
        rp_fmt_double(b, sizeof b, r->dmin);
        fprintf(f, " dmin = %s,", b);
      } else
        fprintf(f, " dmin = 0,");
      if (i < fm->nregimes - 1 || !isinf(r->dmax)) {
        rp_fmt_double(b, sizeof b, r->dmax);
        fprintf(f, " dmax = %s,", b);
      }
      fprintf(f, " n = %d,", r->n);
      if (r->cv_error >= 0.0) {
        rp_fmt_double(b, sizeof b, r->cv_error);
        fprintf(f, " cv_error = %s,", b);
      }
      fprintf(f, "\n        form = { ");
      for (int k = 0; k < r->nterms; k++) {
        fprintf(f, "%s", k ? ", " : "");
        write_string(f, revprof_basis_name(r->form[k]));
      }
      fprintf(f, " },\n");
      write_list(f, "avg", r->avg, r->nterms);
      write_list(f, "err", r->err, r->nterms);
      write_list(f, "min", r->min, r->nterms);
      write_list(f, "max", r->max, r->nterms);
      fprintf(f, "      },\n");
    }
    fprintf(f, "    },\n");
  }
  fprintf(f, "  },\n");
  if (m->noverhead) {
    fprintf(f, "  overhead = {\n");
    for (int i = 0; i < m->noverhead; i++) {
      rp_fmt_double(b, sizeof b, m->overhead[i].seconds);
      fprintf(f, "    %s = %s,\n", m->overhead[i].name, b);
    }
    fprintf(f, "  },\n");
  }
  fprintf(f, "}\n");
  return ferror(f) ? REVPROF_EIO : 0;
}

int revprof_model_write(const revprof_model *m, const char *path, char *err,
                        size_t errlen) {
  char tmp[4096];
  int rc = revprof_model_check(m, path, err, errlen);
  if (rc)
    return rc;
  FILE *f = rp_open_tmp(path, tmp, sizeof tmp, err, errlen);
  if (f == NULL)
    return REVPROF_EIO;
  rc = revprof_model_write_stream(m, f);
  return rp_commit_file(f, tmp, path, rc == 0, err, errlen);
}
