/* Hints: MPI_Info keys (ROMIO's names where ROMIO has them, ostio_* for
 * ours) merged with the OSTIO_HINTS environment variable. Pure C except
 * hints_mpi.c. See docs/hints.md. */
#ifndef OSTIO_HINTS_HINTS_H
#define OSTIO_HINTS_HINTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <mpi.h>

typedef enum { OSTIO__TRI_AUTO = 0, OSTIO__TRI_ENABLE, OSTIO__TRI_DISABLE } ostio__tri;
typedef enum {
  OSTIO__SRC_AUTO = 0,   /* lustre, ceph, emulated record, hints, defaults */
  OSTIO__SRC_LUSTRE,     /* only Lustre; error elsewhere                   */
  OSTIO__SRC_EMULATED,   /* only the user.ostio.layout record              */
  OSTIO__SRC_HINTS,      /* ignore the file system: hints and defaults     */
  OSTIO__SRC_CEPH        /* only CephFS's ceph.*.layout; error elsewhere   */
} ostio__layout_src;

typedef enum {
  OSTIO__CONTAINER_PLAIN = 0, OSTIO__CONTAINER_STRIPED, OSTIO__CONTAINER_LOG
} ostio__container_hint;

/* ostio_stage_sync: close waits for the node's drain (always); drain: every
 * ostio_sync does too (docs/staging.md). */
typedef enum { OSTIO__STAGE_SYNC_CLOSE = 0, OSTIO__STAGE_SYNC_DRAIN } ostio__stage_sync;

/* An unknown key that looks meant for ostio (romio_*, cb_*, striping_*, or
 * close to a known key), kept for `ostio hints` and the statistics report.
 * Fixed-size: ostio__hints is broadcast as raw bytes at open. */
#define OSTIO__HINTS_NUNKNOWN 8
typedef struct ostio__hint_unknown {
  char key[64];          /* the key as given, cut to 63 bytes               */
  char suggestion[32];   /* the nearest known key, "" when none is close    */
} ostio__hint_unknown;

typedef struct ostio__hints {
  int64_t cb_buffer_size;          /* default 16 MiB                          */
  int64_t cb_nodes;                /* 0 = automatic                           */
  char    cb_config_list[256];     /* default "*:1"                           */
  int     romio_cb_read, romio_cb_write;     /* ostio__tri                    */
  int     romio_ds_read, romio_ds_write;     /* ostio__tri                    */
  int64_t ind_rd_buffer_size;      /* default 4 MiB                           */
  int64_t ind_wr_buffer_size;      /* default 512 KiB                         */
  int     romio_no_indep_rw;       /* bool, default 0                         */
  int64_t striping_factor;         /* 0 = not given                           */
  int64_t striping_unit;           /* 0 = not given                           */
  int64_t start_iodevice;          /* -1 = not given                          */
  int     direct_read, direct_write;         /* bool, default 0               */
  int64_t romio_lustre_co_ratio;   /* default 1                               */
  int64_t romio_lustre_coll_threshold;       /* default 0                     */
  int     romio_lustre_ds_in_coll; /* ostio__tri, default enable              */
  int     ostio_layout_source;     /* ostio__layout_src, default auto         */
  char    ostio_strategy[32];      /* a strategy's name, default "auto": the
                                      engine's registry checks it at open   */
  int     ostio_pipeline;          /* bool, default 1: overlap exchange and I/O */
  int     ostio_container;         /* ostio__container_hint, default plain: at creation */
  int64_t ostio_objects;           /* objects of a new container; 0 = stripe count */
  int     ostio_log_writers;       /* log containers: 0 rank, 1 node (ostio__log_writers) */
  int     ostio_mpiio;             /* ostio__tri: libostio-mpiio.so takes the file */
  int     ostio_cache;             /* ostio__tri, default disable (issue 17)  */
  int64_t ostio_cache_page;        /* cache page bytes; 0 = the stripe size   */
  int64_t ostio_cache_size;        /* cache bytes per rank, default 64 MiB    */
  int64_t ostio_cache_bypass;      /* larger requests skip the cache; 0 = 4 pages */
  int     ostio_atomic;            /* MPI atomic mode through the cache       */
  char    ostio_stage_dir[1024];   /* log containers: node-local stage, or "none"
                                      (ostio__hints_stage_dir)                 */
  int64_t ostio_stage_bandwidth;   /* bytes/s of a node's background drain; 0 any */
  int     ostio_stage_sync;        /* ostio__stage_sync: when a drain is awaited */
  int     ostio_deferred_open;     /* ostio__tri, default automatic: open a plain
                                      file only where I/O happens (issue 30) */
  uint64_t given;                  /* bit i: hint i was set explicitly        */
  int     nunknown;                /* entries used in unknown[]               */
  int     unknown_more;            /* unknown keys that did not fit           */
  ostio__hint_unknown unknown[OSTIO__HINTS_NUNKNOWN]; /* in the order seen    */
} ostio__hints;

/* The node-local stage directory of log containers, or NULL: none. */
static inline const char *ostio__hints_stage_dir(const ostio__hints *h)
{
  const char *d = h->ostio_stage_dir;
  return d[0] && strcmp(d, "none") ? d : NULL;
}

/* Fills defaults. */
void ostio__hints_init(ostio__hints *h);
/* Sets one key. Known key: validated, 0 or OSTIO_EHINT with a detail that
 * names key, value and what is accepted. Unknown "ostio_" key: OSTIO_EHINT
 * with the nearest known key and the list of the known ones. Any other
 * unknown key: ignored, returns 1; when it looks meant for ostio (see
 * docs/hints.md, "Unknown keys") it is recorded in h->unknown. */
int ostio__hints_set(ostio__hints *h, const char *key, const char *value);
/* Applies the entries of an OSTIO_HINTS value (MPICH_MPIIO_HINTS syntax)
 * whose pattern matches path, in order. env may be NULL or "". */
int ostio__hints_apply_env(ostio__hints *h, const char *path, const char *env);
/* Reads every key of info (MPI_INFO_NULL allowed) via ostio__hints_set. */
int ostio__hints_from_info(ostio__hints *h, MPI_Info info);
/* init + info + getenv("OSTIO_HINTS") for path. */
int ostio__hints_resolve(const char *path, MPI_Info info, ostio__hints *h);
/* Every key of h with its value, as a new MPI_Info (ostio_hints_effective). */
int ostio__hints_to_info(const ostio__hints *h, MPI_Info *effective);
/* init + getenv("OSTIO_HINTS") (for tools that run without MPI). */
int ostio__hints_resolve_env(const char *path, ostio__hints *h);

/* Introspection: the known keys in table order. */
int ostio__hints_count(void);
const char *ostio__hints_key(int i);
/* Index of key, or -1. */
int ostio__hints_index(const char *key);
/* 1 when key is a hint of the table or an alias (direct_io...). */
int ostio__hints_known(const char *key);
/* Canonical text of the effective value of hint i ("16777216", "enable",
 * "automatic", "true"...). Returns 0, or OSTIO_EINVAL for a bad index. */
int ostio__hints_format(const ostio__hints *h, int i, char *buf, size_t cap);
/* 1 when key was set explicitly (by info or OSTIO_HINTS). */
int ostio__hints_given(const ostio__hints *h, const char *key);
/* NULL when hint key changes what ostio does; else why it has no effect
 * (accepted and validated for ROMIO compatibility, never read). */
const char *ostio__hints_no_effect(const char *key);

/* The known key nearest to key (case-insensitive restricted Damerau-
 * Levenshtein distance, at most 3 and at most a third of key's length),
 * among the hints, their aliases and the ROMIO hints ostio ignores: 1 and
 * the name in buf, or 0 and "" when none is close. */
int ostio__hints_suggest(const char *key, char *buf, size_t cap);
/* The distance above (case-insensitive; a transposition counts 1). */
int ostio__hints_edit_distance(const char *a, const char *b);

/* Value parsers shared with the CLI (hints_parse.c). */
/* Non-negative byte count, optional suffix k/K, m/M, g/G, t/T (powers of
 * 1024). OSTIO_ERANGE on overflow, OSTIO_EINVAL otherwise; no detail set. */
int ostio__parse_size(const char *s, int64_t *out);
/* Decimal integer (optional sign), OSTIO_ERANGE / OSTIO_EINVAL. */
int ostio__parse_int(const char *s, int64_t *out);

#endif
