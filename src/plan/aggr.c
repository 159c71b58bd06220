/* Which ranks aggregate: cb_config_list and the spread over nodes; see aggr.h
 * and docs/collective-auto.md. Pure C, no MPI. */
#include "plan/aggr.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "hints/cblist.h" /* one grammar for the hint and the planner */

#define QMAX 96 /* value characters quoted in a detail (as in hints.c) */
#define QV(v) QMAX, (v), (strlen(v) > QMAX ? "..." : "")

int ostio__aggr_config_check(const char *cb_config_list)
{
  int nent = 0;
  if (!cb_config_list || !cb_config_list[0]) return 0; /* no cap per node */
  return ostio__cblist_parse(cb_config_list, NULL, &nent);
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
  ostio__cblist_entry *ent = NULL;
  slot *slots = NULL;
  group *groups = NULL;

  if (list[0]) {
    size_t max = ostio__cblist_max_entries(list);
    ent = malloc(max * sizeof *ent);
    if (!ent) {
      rc = ostio__fail(OSTIO_ENOMEM, "aggr: no memory for %zu cb_config_list entries", max);
      goto done;
    }
    rc = ostio__cblist_parse(list, ent, &nent);
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
    int cap = nent == 0 ? OSTIO__CBLIST_ALL
                       : ostio__cblist_count(ent, nent, names ? names[first] : NULL);
    int take = cap == OSTIO__CBLIST_ALL || cap > size ? size : cap;
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

int ostio__aggr_default_count(const ostio_layout *l, int64_t co_ratio, int nprocs)
{
  int64_t best = 1, r = co_ratio < 1 ? 1 : co_ratio;
  for (int i = 0; i < l->ncomp; i++) {
    int64_t n = (int64_t)l->comp[i].stripe_count * r;
    if (n > best) best = n;
  }
  return best > nprocs ? nprocs : (int)best;
}

int ostio__aggr_contig_count(const ostio_layout *l, int64_t co_ratio, int nprocs, int nnodes)
{
  int n = ostio__aggr_default_count(l, co_ratio, nprocs);
  int nodes = nnodes < nprocs ? nnodes : nprocs;
  return nodes > n ? nodes : n;
}
