/* Which ranks aggregate: cb_config_list and the spread over nodes; see aggr.h
 * and docs/collective-auto.md. Pure C, no MPI. */
#include "plan/aggr.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"

#define QMAX 96 /* value characters quoted in a detail (as in hints.c) */
#define QV(v) QMAX, (v), (strlen(v) > QMAX ? "..." : "")

/* cb_config_list, as ROMIO defines it:
 *   list := hostspec [',' list];  hostspec := host [':' maxprocs]
 *   host := name | '*';           maxprocs := digits | '*'
 * A hostspec without maxprocs means 1. maxprocs 0 is accepted (as in ROMIO):
 * the entry matches its host and gives it no aggregator, which is how a
 * host is left out before a later '*' entry ("n01:0,*:2").
 * The hint check (hints.c) uses this same grammar through
 * ostio__aggr_config_check, so the two cannot drift apart. */
#define CFG_FORM                                                                \
  "; expected a comma-separated list of host[:maxprocs] (host a name or *, "   \
  "maxprocs digits or *), e.g. *:1 or n01:2,n02:2"

#define COUNT_ALL (-1) /* maxprocs '*': every rank of the host */

typedef struct cfg_entry {
  const char *name; /* not terminated; NULL for '*' */
  size_t len;
  int count;        /* >= 0, or COUNT_ALL */
} cfg_entry;

static int cfg_error(const char *list, const char *what, int entry)
{
  return ostio__fail(OSTIO_EHINT, "cb_config_list=\"%.*s%s\": %s in entry %d" CFG_FORM,
                     QV(list), what, entry);
}

static int host_char(unsigned char c) { return isalnum(c) || c == '-' || c == '.' || c == '_'; }

/* Parses a non-empty list. With out set (room for one entry per ',' plus
 * one), stores the entries; *nent receives their number. */
static int cfg_parse(const char *list, cfg_entry *out, int *nent)
{
  const char *p = list;
  for (int entry = 1;; entry++) {
    cfg_entry e = {.name = p, .len = strcspn(p, ":,"), .count = 1};
    if (e.len == 0) return cfg_error(list, "empty host name", entry);
    if (e.len == 1 && p[0] == '*') {
      e.name = NULL;
    } else {
      for (size_t i = 0; i < e.len; i++)
        if (!host_char((unsigned char)p[i]))
          return cfg_error(list, "bad character in host name", entry);
    }
    p += e.len;
    if (*p == ':') {
      p++;
      size_t ml = strcspn(p, ",");
      int ok = ml > 0;
      if (ok && ml == 1 && p[0] == '*') {
        e.count = COUNT_ALL;
      } else {
        int64_t v = 0;
        for (size_t i = 0; i < ml && ok; i++) {
          ok = p[i] >= '0' && p[i] <= '9';
          if (ok) v = v * 10 + (p[i] - '0');
          ok = ok && v <= INT_MAX;
        }
        e.count = (int)v;
      }
      if (!ok) return cfg_error(list, "bad maxprocs (digits or *)", entry);
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

int ostio__aggr_config_check(const char *cb_config_list)
{
  int nent = 0;
  if (!cb_config_list || !cb_config_list[0]) return 0; /* no cap per node */
  return cfg_parse(cb_config_list, NULL, &nent);
}

/* The count the first matching entry gives host; 0 when none matches. */
static int cfg_count(const cfg_entry *ent, int nent, const char *host)
{
  for (int i = 0; i < nent; i++) {
    if (!ent[i].name) return ent[i].count;
    if (host && strlen(host) == ent[i].len && strncasecmp(host, ent[i].name, ent[i].len) == 0)
      return ent[i].count;
  }
  return 0;
}

typedef struct slot {
  int node, rank;
} slot;

typedef struct group {
  int first; /* lowest rank of the node */
  int start; /* its ranks are slots[start .. start + take) (ascending) */
  int take;  /* eligible ranks: min(ranks on the node, its count) */
} group;

static int by_node_rank(const void *a, const void *b)
{
  const slot *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static int by_first(const void *a, const void *b)
{
  const group *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

int ostio__aggr_eligible(int nprocs, const int *node, const char *const *names,
                         const char *cb_config_list, int *order, int *n)
{
  if (n) *n = 0;
  if (nprocs < 1 || !node || !order || !n)
    return ostio__fail(OSTIO_EINVAL, "aggr: %s", nprocs < 1 ? "no ranks" : "NULL argument");
  const char *list = cb_config_list ? cb_config_list : "";
  int rc = 0, nent = 0, ngroups = 0;
  cfg_entry *ent = NULL;
  slot *slots = NULL;
  group *groups = NULL;

  if (list[0]) {
    size_t commas = 0;
    for (const char *p = list; *p; p++) commas += *p == ',';
    ent = malloc((commas + 1) * sizeof *ent);
    if (!ent) {
      rc = ostio__fail(OSTIO_ENOMEM, "aggr: no memory for %zu cb_config_list entries",
                       commas + 1);
      goto done;
    }
    rc = cfg_parse(list, ent, &nent);
    if (rc != 0) goto done;
    for (int i = 0; i < nent && !names; i++) {
      if (ent[i].name) {
        rc = ostio__fail(OSTIO_EINVAL, "aggr: cb_config_list=\"%.*s%s\" names hosts, but "
                         "no processor names were given", QV(list));
        goto done;
      }
    }
  }

  slots = malloc((size_t)nprocs * sizeof *slots);
  groups = malloc((size_t)nprocs * sizeof *groups);
  if (!slots || !groups) {
    rc = ostio__fail(OSTIO_ENOMEM, "aggr: no memory for %d ranks", nprocs);
    goto done;
  }
  for (int i = 0; i < nprocs; i++) slots[i] = (slot){.node = node[i], .rank = i};
  qsort(slots, (size_t)nprocs, sizeof *slots, by_node_rank);

  /* One group per node; its count comes from the name of its lowest rank
   * (all ranks of a node share the name). */
  for (int i = 0; i < nprocs;) {
    int j = i + 1;
    while (j < nprocs && slots[j].node == slots[i].node) j++;
    int first = slots[i].rank, size = j - i;
    int cap = nent == 0 ? COUNT_ALL : cfg_count(ent, nent, names ? names[first] : NULL);
    int take = cap == COUNT_ALL || cap > size ? size : cap;
    if (take > 0) groups[ngroups++] = (group){.first = first, .start = i, .take = take};
    i = j;
  }
  if (ngroups == 0) {
    const char *host = names && names[0] ? names[0] : "";
    rc = ostio__fail(OSTIO_EHINT, "cb_config_list=\"%.*s%s\" gives no aggregator to any "
                     "node of this job (rank 0 runs on \"%.*s%s\"); name one of its hosts "
                     "with a count of 1 or more, or use *, e.g. *:1", QV(list), QV(host));
    goto done;
  }
  qsort(groups, (size_t)ngroups, sizeof *groups, by_first);

  /* Round k takes the k-th eligible rank of every node that still has one,
   * nodes in order of their lowest rank; exhausted nodes drop out. */
  int out = 0;
  for (int k = 0, active = ngroups; active > 0; k++) {
    int keep = 0;
    for (int g = 0; g < active; g++) {
      order[out++] = slots[groups[g].start + k].rank;
      if (groups[g].take > k + 1) groups[keep++] = groups[g];
    }
    active = keep;
  }
  *n = out;

done:
  free(ent);
  free(slots);
  free(groups);
  return rc;
}
