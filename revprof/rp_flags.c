/* Flags of a revprof report (see rp_flags.h). */
#include "rp_flags.h"
#include "revprof_model.h" /* error codes */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rp_flag_store_set(rp_flag_store *s, const char *key, const char *text) {
  char k[RP_FLAG_KEY];
  size_t n = 0;
  for (; key && key[n] && n + 1 < sizeof k; n++) {
    char c = key[n];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    k[n] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '-';
  }
  k[n] = '\0';
  if (n == 0)
    return REVPROF_EINVAL;
  int i = 0;
  while (i < s->n && strcmp(s->f[i].key, k) != 0)
    i++;
  if (i == s->n) {
    if (s->n == RP_FLAGS_MAX) {
      s->lost++;
      return REVPROF_ERANGE;
    }
    s->n++;
  }
  memcpy(s->f[i].key, k, n + 1);
  size_t t = 0;
  for (; text && text[t] && t + 1 < RP_FLAG_TEXT; t++) {
    char c = text[t];
    s->f[i].text[t] = c == '\n' || c == '\r' || c == '\t' ? ' ' : c;
  }
  s->f[i].text[t] = '\0';
  return 0;
}

size_t rp_flag_store_lines(const rp_flag_store *s, char *out, size_t cap) {
  size_t len = 0;
  if (cap == 0)
    return 0;
  for (int i = 0; i < s->n; i++) {
    size_t kl = strlen(s->f[i].key), tl = strlen(s->f[i].text);
    if (len + kl + tl + 2 >= cap)
      break;
    memcpy(out + len, s->f[i].key, kl);
    out[len + kl] = '\t';
    memcpy(out + len + kl + 1, s->f[i].text, tl);
    out[len + kl + 1 + tl] = '\n';
    len += kl + tl + 2;
  }
  out[len] = '\0';
  return len;
}

void rp_flag_set_add(rp_flag_set *fs, const char *key, const char *text,
                     int ranks) {
  for (int i = 0; i < fs->n; i++)
    if (strcmp(fs->row[i].key, key) == 0 &&
        strcmp(fs->row[i].text, text) == 0) {
      fs->row[i].ranks += ranks;
      return;
    }
  if (fs->n == RP_FLAG_ROWS) {
    fs->lost++;
    return;
  }
  fs->row[fs->n].key = key;
  fs->row[fs->n].text = text;
  fs->row[fs->n].ranks = ranks;
  fs->n++;
}

void rp_flag_set_parse(rp_flag_set *fs, char *lines) {
  for (char *l = lines; l && *l;) {
    char *nl = strchr(l, '\n');
    if (nl == NULL)
      break;
    *nl = '\0';
    char *tab = strchr(l, '\t');
    if (tab && tab > l) {
      *tab = '\0';
      rp_flag_set_add(fs, l, tab + 1, 1);
    }
    l = nl + 1;
  }
}

void rp_flag_set_keys(const rp_flag_set *fs, char *out, size_t cap) {
  size_t k = 0;
  if (cap == 0)
    return;
  out[0] = '\0';
  for (int i = 0; i < fs->n; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = strcmp(fs->row[j].key, fs->row[i].key) == 0;
    size_t kl = strlen(fs->row[i].key), sep = k > 0;
    if (seen || k + sep + kl >= cap)
      continue;
    if (sep)
      out[k++] = ';';
    memcpy(out + k, fs->row[i].key, kl);
    k += kl;
    out[k] = '\0';
  }
}

/* ------------------------------------------------------ the host's MPI */

const char *rp_mpi_family(const char *version) {
  static const struct {
    const char *needle, *family;
  } known[] = {/* the derived MPICHs before MPICH itself */
               {"Open MPI", "Open MPI"},      {"MVAPICH", "MVAPICH"},
               {"Intel(R) MPI", "Intel MPI"}, {"Intel MPI", "Intel MPI"},
               {"SMPI", "SimGrid SMPI"},      {"SimGrid", "SimGrid SMPI"},
               {"MPICH", "MPICH"}};
  if (version == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strstr(version, known[i].needle))
      return known[i].family;
  return NULL;
}

int rp_host_line(char *out, size_t cap, const char *hostname,
                 const char *mpi_version, const char *model_mpi) {
  if (cap == 0)
    return 0;
  char v[160];
  size_t m = 0;
  int blank = 0;
  const char *p = mpi_version ? mpi_version : "";
  while (*p == ' ' || *p == '\t')
    p++;
  for (; *p && *p != '\n' && *p != '\r' && m + 1 < sizeof v; p++) {
    if (*p == ' ' || *p == '\t') {
      blank = 1;
      continue;
    }
    if (blank && m + 2 < sizeof v)
      v[m++] = ' ';
    blank = 0;
    v[m++] = *p;
  }
  v[m] = '\0';
  const char *host = rp_mpi_family(v), *model = rp_mpi_family(model_mpi);
  int differs = host && model && strcmp(host, model) != 0;
  snprintf(out, cap, "%s | %s%s%s%s", hostname && hostname[0] ? hostname : "?",
           v[0] ? v : "?",
           differs ? " (the model was characterized with " : "",
           differs ? model : "",
           differs ? ": the times predicted are that MPI's, not this one's)"
                   : "");
  return differs;
}

int rp_leak_line(char *out, size_t cap, const char *line, long ours) {
  static const char head[] = "[WARNING] yaksa: ";
  static const char tail[] = " leaked handle pool objects";
  size_t nh = sizeof head - 1, nt = sizeof tail - 1;
  if (cap == 0)
    return 0;
  size_t n = strlen(line);
  size_t body = n > 0 && line[n - 1] == '\n' ? n - 1 : n;
  const char *p = line + nh;
  char *end = NULL;
  long objs = -1;
  if (body > nh + nt && strncmp(line, head, nh) == 0 &&
      memcmp(line + body - nt, tail, nt) == 0 && *p >= '0' && *p <= '9') {
    errno = 0;
    objs = strtol(p, &end, 10);
    if (errno != 0 || end != line + body - nt)
      objs = -1;
  }
  if (objs < 0) {
    snprintf(out, cap, "%s", line);
    return 0;
  }
  long left = objs - (ours > 0 ? ours : 0);
  if (left <= 0)
    out[0] = '\0';
  else
    snprintf(out, cap, "%s%ld%s%s", head, left, tail, body < n ? "\n" : "");
  return 1;
}

double rp_schedstat_wait(const char *line) {
  unsigned long long run, wait;
  if (line == NULL || sscanf(line, "%llu %llu", &run, &wait) != 2)
    return -1.0;
  return (double)wait * 1e-9;
}

double rp_stat_steal(const char *line, double ticks_per_s) {
  unsigned long long v[8] = {0};
  if (line == NULL || strncmp(line, "cpu ", 4) != 0 || !(ticks_per_s > 0.0))
    return -1.0;
  int n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                 &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  if (n < 4)
    return -1.0;
  return n == 8 ? (double)v[7] / ticks_per_s : 0.0;
}

double rp_busy_share(double seconds, double wall) {
  return seconds >= RP_BUSY_MIN_S && wall > 0.0 ? seconds / wall : 0.0;
}

int rp_busy_text(char *out, size_t cap, double wait, double steal,
                 double wall, int measured) {
  if (cap > 0)
    out[0] = '\0';
  if (!(wall > 0.0))
    return 0;
  double w = wait / wall, s = steal / wall;
  int by_wait = w >= RP_BUSY_SHARE, by_steal = s >= RP_BUSY_SHARE;
  if (!by_wait && !by_steal)
    return 0;
  char a[160] = "", b[160] = "";
  if (by_wait)
    snprintf(a, sizeof a, "ranks waited for a core held by another process "
             "up to %.0f %% of the run", 100.0 * w);
  if (by_steal)
    snprintf(b, sizeof b, "the hypervisor gave up to %.0f %% of the host's "
             "CPU time to other machines", 100.0 * s);
  if (cap > 0)
    snprintf(out, cap, "%s%s%s: %s", a, by_wait && by_steal ? "; " : "", b,
             measured ? "the times measured here include those waits"
                      : "the prediction is for cores of their own; a native "
                        "run then would have been slower");
  return 1;
}

int rp_oversub_text(char *out, size_t cap, int ranks, int cores,
                    const char *host, int measured) {
  if (cap > 0)
    out[0] = '\0';
  if (cores < 1 || ranks <= cores)
    return 0;
  if (cap > 0)
    snprintf(out, cap, "%d ranks on %s share %d core%s: %s", ranks,
             host && host[0] ? host : "this host", cores,
             cores == 1 ? "" : "s",
             measured ? "the times measured here include the ranks' waits "
                        "for a core (longer still with an MPI that polls "
                        "while it waits); with a core per rank they would be "
                        "shorter"
                      : "the prediction is for a core per rank; a native "
                        "run on this host time-shares them and takes longer "
                        "(far longer with an MPI that polls while it waits)");
  return 1;
}
