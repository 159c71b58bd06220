/* The cb_config_list grammar; see cblist.h. */
#include "hints/cblist.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"

#define QMAX 96 /* value characters quoted in a detail (as in hints.c) */
#define QV(v) QMAX, (v), (strlen(v) > QMAX ? "..." : "")

#define FORM                                                                    \
  "; expected a comma-separated list of host[:maxprocs] (host a name or *, "   \
  "maxprocs digits or *), e.g. *:1 or n01:2,n02:2"

static int cblist_error(const char *list, const char *what, int entry)
{
  return ostio__fail(OSTIO_EHINT, "cb_config_list=\"%.*s%s\": %s in entry %d" FORM, QV(list),
                     what, entry);
}

static int host_char(unsigned char c) { return isalnum(c) || c == '-' || c == '.' || c == '_'; }

size_t ostio__cblist_max_entries(const char *list)
{
  size_t commas = 0;
  for (const char *p = list; *p; p++) commas += *p == ',';
  return commas + 1;
}

/* maxprocs: the ml characters at p, digits (at most INT_MAX) or '*'. */
static int parse_count(const char *p, size_t ml, int *count)
{
  if (ml == 1 && p[0] == '*') {
    *count = OSTIO__CBLIST_ALL;
    return 1;
  }
  int64_t v = 0;
  for (size_t i = 0; i < ml; i++) {
    if (p[i] < '0' || p[i] > '9') return 0;
    v = v * 10 + (p[i] - '0');
    if (v > INT_MAX) return 0;
  }
  *count = (int)v;
  return ml > 0;
}

int ostio__cblist_parse(const char *list, ostio__cblist_entry *out, int *nent)
{
  const char *p = list;
  for (int entry = 1;; entry++) {
    ostio__cblist_entry e = {.name = p, .len = strcspn(p, ":,"), .count = 1};
    if (e.len == 0) return cblist_error(list, "empty host name", entry);
    if (e.len == 1 && p[0] == '*') {
      e.name = NULL;
    } else {
      for (size_t i = 0; i < e.len; i++)
        if (!host_char((unsigned char)p[i]))
          return cblist_error(list, "bad character in host name", entry);
    }
    p += e.len;
    if (*p == ':') {
      p++;
      size_t ml = strcspn(p, ",");
      if (!parse_count(p, ml, &e.count))
        return cblist_error(list, "bad maxprocs (digits or *)", entry);
      p += ml;
    }
    if (out) out[entry - 1] = e;
    if (*p == '\0') {
      *nent = entry;
      return 0;
    }
    p++; /* ',' */
  }
}

int ostio__cblist_count(const ostio__cblist_entry *ent, int nent, const char *host)
{
  for (int i = 0; i < nent; i++) {
    if (!ent[i].name) return ent[i].count;
    if (host && strlen(host) == ent[i].len && strncasecmp(host, ent[i].name, ent[i].len) == 0)
      return ent[i].count;
  }
  return 0;
}
