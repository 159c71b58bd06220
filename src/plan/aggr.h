/* Which ranks aggregate: pure functions over what every rank reported about
 * itself (node, processor name), honouring cb_nodes and cb_config_list,
 * spreading aggregators across nodes. And the `auto` strategy rule.
 * No MPI here; the engine gathers the inputs. See docs/collective.md. */
#ifndef OSTIO_PLAN_AGGR_H
#define OSTIO_PLAN_AGGR_H

#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"

/* Node of every rank: node[i] is a small integer, equal for ranks on the
 * same node (the engine numbers nodes by their lowest rank via
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)). names[i] is rank i's
 * processor name (MPI_Get_processor_name), used by cb_config_list entries
 * that name hosts.
 *
 * cb_config_list: comma-separated "NAME:COUNT" entries (hints/cblist.h);
 * NAME is a host name or *, COUNT a count or * (all ranks of the node). ROMIO's
 * rules: the first entry that matches a host decides its count; a host that
 * no entry matches gets no aggregators. Empty string: no cap per node.
 *
 * Output: eligible ranks ordered so that a prefix of any length is spread
 * over nodes as evenly as possible: the first eligible rank of every node
 * (nodes in order of their lowest rank), then the second of every node,
 * and so on. *n receives the count (>= 1 unless the list excludes every
 * host, which is OSTIO_EHINT). order has room for nprocs entries. */
int ostio__aggr_eligible(int nprocs, const int *node, const char *const *names,
                         const char *cb_config_list, int *order, int *n);

/* Validates cb_config_list syntax only, with the grammar of hints/cblist.h
 * (which the hint check uses too); NULL or "" means no cap per node. 0 or
 * OSTIO_EHINT with a detail. */
int ostio__aggr_config_check(const char *cb_config_list);

/* Aggregator counts the strategies want (cb_nodes and the eligible list
 * cap them afterwards). default: the most objects any component has, times
 * co_ratio (>= 1), at most nprocs -- one aggregator per object, as `ost`
 * wants. contig: that, or the node count (at most nprocs) when larger, as
 * ROMIO's contiguous domains want one aggregator per node. */
int ostio__aggr_default_count(const ostio_layout *l, int64_t co_ratio, int nprocs);
int ostio__aggr_contig_count(const ostio_layout *l, int64_t co_ratio, int nprocs, int nnodes);

/* ---- the auto rule ---------------------------------------------------- */
typedef struct ostio__auto_in {
  int nprocs;
  int nnodes;                /* nodes the ranks run on; 0 = not known        */
  int is_write;
  int cb_hint;               /* romio_cb_write / romio_cb_read: ostio__tri  */
  int64_t coll_threshold;    /* romio_lustre_coll_threshold, 0 = unset      */
  int interleaved;           /* 1 when two ranks' [lo, hi) ranges intersect */
  int64_t total_bytes;       /* over all ranks                               */
  int64_t total_extents;     /* non-empty extents over all ranks             */
  int64_t stripe_size;       /* of the component holding the lowest offset   */
  int stripe_count;          /* largest over components                      */
  int open_drops_cache;      /* 1: the file system stops every client's caching
                                of a file once a second client opens it (CephFS:
                                the layout's source is "ceph"); 0 otherwise     */
} ostio__auto_in;

/* Rule c″ (docs/collective-auto.md): a write on a file system that drops
 * client caching at a second client's open (open_drops_cache), ranks on more
 * than one node, and either the ranks' ranges interleave or there are at most
 * OSTIO__AUTO_ONE_OPENER_NODES nodes. Beyond that count a call whose ranks
 * each write their own range (ior, flash) is left to the other rules: every
 * client writing its own large requests uncached, in parallel, beat one
 * caching client on the CephFS bed at 4 clients (docs/pfs.md). 1 or 0. */
#define OSTIO__AUTO_ONE_OPENER_NODES 2
int ostio__auto_one_opener(const ostio__auto_in *in);

/* Strategy names as in the hint: returns "ost", "aligned", "single" or
 * "independent", and a one-line reason (static storage) in *why. */
const char *ostio__auto_choose(const ostio__auto_in *in, const char **why);

#endif
