/* OSTIO_STATS settings and PATH patterns (pure, MPI-free: the collective
 * report and libostio-preload.so both read them). Split from
 * stats_report.c. */
#include "stats/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "stats/stats_impl.h"

/* ---- OSTIO_STATS and PATH patterns ---------------------------------------- */

#define SPEC_FORMS                                                                      \
  "accepted: unset, empty or 0 (no statistics), 1 (text report on stderr of rank 0 at " \
  "close), json:PATH (one JSON document per job at PATH, written by rank 0; %%r, %%p, " \
  "%%j and %%%% in PATH are the writer's rank, its pid, the job id and %%)"

/* "%.64s" of text with control characters shown as '?' (one line). */
void ostio__stats_quote(char *buf, size_t cap, const char *text)
{
  size_t j = 0, n = strlen(text);
  for (size_t i = 0; i < n && i < 64 && j + 1 < cap; i++) {
    unsigned char c = (unsigned char)text[i];
    buf[j++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  if (n > 64 && j + 4 < cap) {
    memcpy(buf + j, "...", 3);
    j += 3;
  }
  buf[j] = '\0';
}

int ostio__stats_parse_spec(const char *spec, int *mode, char *why, size_t cap)
{
  char q[80];
  int m = OSTIO__STATS_OFF;
  if (why && cap) why[0] = '\0';
  if (mode) *mode = OSTIO__STATS_OFF;
  if (!spec || !*spec || !strcmp(spec, "0")) return 0;
  if (!strcmp(spec, "1")) m = OSTIO__STATS_TEXT;
  else if (!strncmp(spec, "json:", 5) && spec[5]) m = OSTIO__STATS_JSON;
  ostio__stats_quote(q, sizeof q, spec);
  if (m == OSTIO__STATS_OFF) {
    if (why && cap)
      snprintf(why, cap, !strcmp(spec, "json:") ? "OSTIO_STATS=\"%s\" names no file; " SPEC_FORMS
                                                : "OSTIO_STATS=\"%s\" is not a statistics "
                                                  "setting; " SPEC_FORMS, q);
    return OSTIO_EINVAL;
  }
  if (m == OSTIO__STATS_JSON) {
    for (const char *p = spec + 5; *p; p++) {
      if (*p != '%') continue;
      if (p[1] && strchr("rpj%", p[1])) {
        p++;
        continue;
      }
      char what[16];
      if (p[1] && (unsigned char)p[1] >= 0x20 && (unsigned char)p[1] < 0x7f)
        snprintf(what, sizeof what, "%%%c", p[1]);
      else
        snprintf(what, sizeof what, "%s", p[1] ? "a %" : "a final %");
      if (why && cap)
        snprintf(why, cap, "OSTIO_STATS=\"%s\": %s in PATH is not a pattern (%%r, %%p, %%j "
                 "or %%%%); " SPEC_FORMS, q, what);
      return OSTIO_EINVAL;
    }
  }
  if (mode) *mode = m;
  return 0;
}

void ostio__stats_jobid_env(ostio__stats_jobid *id)
{
  static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"};
  memset(id, 0, sizeof *id);
  id->pid = (long)getpid();
  id->world_size = 1;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) {
      snprintf(id->id, sizeof id->id, "%s", v);
      id->source = vars[i];
      return;
    }
  }
  snprintf(id->id, sizeof id->id, "pid%ld", id->pid);
  id->source = "pid";
}

int ostio__stats_expand_path(const char *pattern, const ostio__stats_jobid *id, char *out,
                             size_t cap)
{
  size_t j = 0;
  char num[32];
  if (!pattern || !id || !out || cap == 0) return OSTIO_EINVAL;
  for (const char *p = pattern; *p; p++) {
    const char *add = NULL;
    char one[2] = {*p, '\0'};
    int job = 0;
    if (*p != '%') {
      add = one;
    } else {
      switch (p[1]) {
      case 'r': snprintf(num, sizeof num, "%d", id->world_rank); add = num; break;
      case 'p': snprintf(num, sizeof num, "%ld", id->pid); add = num; break;
      case 'j': add = id->id; job = 1; break;
      case '%': add = "%"; break;
      default: out[0] = '\0'; return OSTIO_EINVAL;
      }
      p++;
    }
    for (const char *c = add; *c; c++) {
      if (j + 1 >= cap) {
        out[0] = '\0';
        return OSTIO_ERANGE;
      }
      out[j++] = job && *c == '/' ? '_' : *c;
    }
  }
  out[j] = '\0';
  return 0;
}

