/* mpiio:best's sweep (issue 29): the candidate hint sets for one phase of one
 * pattern. Pure: no MPI calls, no I/O; bench_run.c runs the candidates and
 * keeps the fastest. The list is fixed (not adaptive), the defaults first,
 * then one factor at a time away from them, so its cost is known before it
 * runs (docs/benchmarks.md, "mpiio:best"):
 *
 *   collective calls  romio_cb_X automatic (ROMIO's default), enable, disable;
 *                     enable with cb_nodes k and cb_config_list *:* for k in
 *                     1, 2, 4, ... and P (the default cb_config_list *:1 gives
 *                     one aggregator per host: on one machine, one);
 *                     noncontiguous calls: disable with romio_ds_X enable and
 *                     disable (each rank sieves its own holes);
 *                     enable, *:*, romio_no_indep_rw true (only aggregators
 *                     open the file: ROMIO's deferred open) with cb_nodes 1
 *                     (when P > 1) and P. cb_nodes 1 matters on a file system
 *                     that stops a client's caching once a second client has
 *                     the file open (CephFS: docs/pfs.md): there the one
 *                     aggregator alone opens it and its client caches
 *   independent calls romio_ds_X automatic (default); noncontiguous calls:
 *                     enable and disable. cb hints do not apply.
 *   striping          striping_factor P and 2P, striping_unit 1 MiB, only when
 *                     the file system takes them (Lustre, GPFS; not ext4, xfs
 *                     or tmpfs, where ROMIO's UFS driver ignores them)
 *   Open MPI (OMPIO)  the defaults only: its choices (fcoll, fbtl, the number
 *                     of aggregators) are MCA parameters read at MPI_Init, so
 *                     one process cannot try several; romio_* keys do not apply.
 * X is write or read: write and read are swept separately. */
#include <string.h>

#include "bench.h"

static int add(ob_hintset *out, int cap, int *n, const char *const kv[][2], int nkv)
{
  if (*n >= cap || nkv > OB_HINTSET_MAX) return -1;
  ob_hintset *h = &out[*n];
  memset(h, 0, sizeof *h);
  for (int i = 0; i < nkv; i++) {
    snprintf(h->key[i], sizeof h->key[i], "%s", kv[i][0]);
    snprintf(h->val[i], sizeof h->val[i], "%s", kv[i][1]);
  }
  h->n = nkv;
  (*n)++;
  return 0;
}

int ob_best_candidates(const ob_best_query *q, ob_hintset *out, int cap)
{
  int n = 0, P = q->nprocs > 0 ? q->nprocs : 1;
  if (cap > OB_BEST_MAX_CAND) cap = OB_BEST_MAX_CAND;
  const char *cb = q->phase == OB_PHASE_READ ? "romio_cb_read" : "romio_cb_write";
  const char *ds = q->phase == OB_PHASE_READ ? "romio_ds_read" : "romio_ds_write";
  if (!q->romio) {
    add(out, cap, &n, NULL, 0);
    return n;
  }
  if (q->collective) {
    add(out, cap, &n, (const char *const[][2]){{cb, "automatic"}}, 1);
    add(out, cap, &n, (const char *const[][2]){{cb, "enable"}}, 1);
    add(out, cap, &n, (const char *const[][2]){{cb, "disable"}}, 1);
    for (int k = 1; k <= P; k = k * 2 > P && k < P ? P : k * 2) {
      char v[16];
      snprintf(v, sizeof v, "%d", k);
      add(out, cap, &n, (const char *const[][2]){{cb, "enable"}, {"cb_nodes", v},
                                                 {"cb_config_list", "*:*"}}, 3);
    }
    if (q->noncontig) {
      add(out, cap, &n, (const char *const[][2]){{cb, "disable"}, {ds, "enable"}}, 2);
      add(out, cap, &n, (const char *const[][2]){{cb, "disable"}, {ds, "disable"}}, 2);
    }
    if (P > 1)
      add(out, cap, &n, (const char *const[][2]){{cb, "enable"}, {"cb_nodes", "1"},
                                                 {"cb_config_list", "*:*"},
                                                 {"romio_no_indep_rw", "true"}}, 4);
    char v[16];
    snprintf(v, sizeof v, "%d", P);
    add(out, cap, &n, (const char *const[][2]){{cb, "enable"}, {"cb_nodes", v},
                                               {"cb_config_list", "*:*"},
                                               {"romio_no_indep_rw", "true"}}, 4);
  } else {
    add(out, cap, &n, (const char *const[][2]){{ds, "automatic"}}, 1);
    if (q->noncontig) {
      add(out, cap, &n, (const char *const[][2]){{ds, "enable"}}, 1);
      add(out, cap, &n, (const char *const[][2]){{ds, "disable"}}, 1);
    }
  }
  if (q->striping)
    for (int m = 1; m <= 2; m++) {
      char v[16];
      snprintf(v, sizeof v, "%d", m * P);
      add(out, cap, &n, (const char *const[][2]){{"striping_factor", v},
                                                 {"striping_unit", "1048576"}}, 2);
    }
  return n;
}

int ob_hintset_parse(const char *s, ob_hintset *h)
{
  memset(h, 0, sizeof *h);
  if (!s || !*s || !strcmp(s, "defaults")) return 0;
  const char *p = s;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (!eq || eq == p || h->n == OB_HINTSET_MAX) return -1;
    size_t kl = (size_t)(eq - p), vl = len - kl - 1;
    if (kl >= sizeof h->key[0] || vl >= sizeof h->val[0]) return -1;
    memcpy(h->key[h->n], p, kl);
    memcpy(h->val[h->n], eq + 1, vl);
    h->n++;
    if (!end) break;
    p = end + 1;
    if (!*p) return -1;                 /* a trailing comma */
  }
  return 0;
}

void ob_hintset_str(const ob_hintset *h, char *buf, size_t cap)
{
  size_t len = 0;
  if (!cap) return;
  buf[0] = '\0';
  if (h->n == 0) {
    snprintf(buf, cap, "(defaults)");
    return;
  }
  for (int i = 0; i < h->n && len < cap; i++) {
    int w = snprintf(buf + len, cap - len, "%s%s=%s", i ? "," : "", h->key[i], h->val[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
}

/* Runs every candidate of sw (filled by the caller) through fn: each until
 * its phases have taken OB_BEST_MIN_SECONDS or OB_BEST_MAX_REPS phases, its
 * bandwidth = all bytes / all time; the fastest wins (ties: the earlier, so
 * the defaults). fn's failure stops the sweep and is returned. */
int ob_best_sweep(ob_sweep *sw, int phase, ob_best_run_fn fn, void *ctx)
{
  double best = -1;
  for (int i = 0; i < sw->ncand; i++) {
    double t = 0;
    int64_t bytes = 0;
    sw->reps[i] = 0;
    while (t < OB_BEST_MIN_SECONDS && sw->reps[i] < OB_BEST_MAX_REPS) {
      ob_result r = {.phase = phase};
      int rc = fn(ctx, phase == OB_PHASE_WRITE, &sw->cand[i], &r);
      if (rc) return rc;
      t += r.t_total;
      bytes += r.bytes;
      sw->reps[i]++;
    }
    sw->bw[i] = ob_bandwidth_mib(bytes, t);
    if (sw->bw[i] > best) best = sw->bw[i], sw->chosen = i;
  }
  sw->done = 1;
  return 0;
}
