/* The cb_config_list grammar, once: the hint check (hints.c) and the
 * planner (plan/aggr.c) both parse with it, so they cannot drift apart.
 * Pure C, no MPI. */
#ifndef OSTIO_HINTS_CBLIST_H
#define OSTIO_HINTS_CBLIST_H

#include <stddef.h>

/* cb_config_list, as ROMIO defines it:
 *   list := hostspec [',' list];  hostspec := host [':' maxprocs]
 *   host := name | '*';           maxprocs := digits | '*'
 * A hostspec without maxprocs means 1. maxprocs 0 is accepted (as in ROMIO):
 * the entry matches its host and gives it no aggregator, which is how a
 * host is left out before a later '*' entry ("n01:0,*:2"). */
#define OSTIO__CBLIST_ALL (-1) /* maxprocs '*': every rank of the host */

typedef struct ostio__cblist_entry {
  const char *name; /* not terminated; NULL for '*' */
  size_t len;
  int count;        /* >= 0, or OSTIO__CBLIST_ALL */
} ostio__cblist_entry;

/* Entries a list can hold at most: one per ',' plus one. */
size_t ostio__cblist_max_entries(const char *list);

/* Parses list (an empty list is an empty host name in entry 1). With out
 * set (room for ostio__cblist_max_entries), stores the entries; *nent
 * receives their number. 0, or OSTIO_EHINT with the detail
 * `cb_config_list="LIST": WHAT in entry N; expected ...`. */
int ostio__cblist_parse(const char *list, ostio__cblist_entry *out, int *nent);

/* The count the first entry matching host gives it (names compare without
 * case; '*' matches every host, and a NULL host only '*'); 0 when none
 * matches. */
int ostio__cblist_count(const ostio__cblist_entry *ent, int nent, const char *host);

#endif
