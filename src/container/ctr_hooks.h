/* The container kinds' tool hooks, MPI-free side (the hooks themselves are
 * members of ostio__kind_ops, src/file/kind.h): what they print into, the
 * pieces every kind's `ostio container stat` shares (so the output keeps
 * one shape across kinds), and the data regions of a file for flatten.
 * The kinds' hook functions live in their folders and are declared at the
 * end, for their tables; none of them uses MPI, so the CLI links them and
 * the preload library may. */
#ifndef OSTIO_CONTAINER_CTR_HOOKS_H
#define OSTIO_CONTAINER_CTR_HOOKS_H

#include <stdint.h>
#include <stdio.h>

#include "container/container.h"

/* Where ls, stat and map print, and how. */
typedef struct ostio__show {
  FILE *out;   /* the listing (the CLI: stdout)                         */
  FILE *note;  /* a summary for people, e.g. map's record count (stderr) */
  int json;    /* ls, stat: one JSON document instead of text           */
  int records; /* map: the index records instead of the resolved map    */
} ostio__show;

/* What `ostio container create` was given; 0: not given (the kind's
 * default). The CLI checks each number's range and which apply to the kind. */
typedef struct ostio__make {
  int64_t objects, stripe_size;      /* striped                              */
  int64_t hostdirs;                  /* log, at most OSTIO__LOG_HOSTDIRS_MAX */
} ostio__make;

/* What `ostio stage status|drain` give a kind's stage hooks (staged writers,
 * docs/staging.md). The CLI keeps the timer and prints the progress line. */
#define OSTIO__CTR_HOST_MAX 256 /* a node name as stage records give it, NUL included */
typedef struct ostio__stage_opts {
  FILE *out;          /* the listing, each writer drained (the CLI: stdout)       */
  int json;           /* status: one JSON document instead of text                */
  const char *host;   /* this node's name as stage records give it (shorter than
                       * OSTIO__CTR_HOST_MAX); NULL: the host name                */
  int64_t bandwidth;  /* drain: at most this many bytes per second; 0: unpaced    */
  /* drain: set (by the CLI's once-a-second timer) when a progress line is
   * due; the drain stops at its next chunk, clears it and calls progress
   * with the bytes copied so far and the seconds since it began. tick NULL:
   * never; progress NULL: no line (--quiet). */
  volatile int *tick;
  void (*progress)(void *arg, const char *path, int64_t copied, double seconds);
  void *arg;
  const char *self;   /* set by the hook: the node name it took as this node's    */
} ostio__stage_opts;

/* A data extent for flatten: [off, off+len) of the logical file. */
typedef int (*ostio__ctr_extent_fn)(void *arg, int64_t off, int64_t len);

/* ---- ctr_hooks.c: shared by the kinds' stat ------------------------------------ */
/* The first lines of stat: path, kind, version, byte order, size (with
 * where it came from when size_from is set) and the size record. */
typedef struct ostio__stat_head {
  const char *path, *kind;
  const ostio__manifest *m;
  int64_t size;
  const char *size_from;       /* "index", "size record"; NULL: not said */
  int have_rec;                /* 0: there is no size record             */
  ostio__sizerec rec;
} ostio__stat_head;
void ostio__show_head(const ostio__show *o, const ostio__stat_head *h);
/* One member: text "key:" padded to the value column, JSON `, "key": v`. */
void ostio__show_num(const ostio__show *o, const char *key, int64_t v);
void ostio__show_word(const ostio__show *o, const char *key, const char *v);
/* The last lines: created, created_by, requested (JSON: and the brace). */
void ostio__show_foot(const ostio__show *o, const ostio__manifest *m);
/* s as a JSON string, quoted and escaped. */
void ostio__show_str(FILE *f, const char *s);

/* The data regions of fd below limit (SEEK_DATA/SEEK_HOLE), each passed to
 * add; a file system without SEEK_DATA: all of [0, limit). what names the
 * file in errors. */
int ostio__fd_extents(int fd, int64_t limit, const char *what, ostio__ctr_extent_fn add,
                      void *arg);

/* ---- the kinds' hooks (src/file/kind.h says what each does) -------------------- */
/* plain/plain_hooks.c */
int ostio__plain_hook_extents(const char *path, int64_t size, ostio__ctr_extent_fn add,
                              void *arg);
/* striped/striped_hooks.c */
int ostio__striped_hook_make(const char *path, const ostio__make *a, ostio__ctr_report report,
                             void *arg);
int ostio__striped_hook_ls(const char *path, const ostio__show *o);
int ostio__striped_hook_stat(const char *path, const ostio__show *o);
int ostio__striped_hook_extents(const char *path, int64_t size, ostio__ctr_extent_fn add,
                                void *arg);
/* log/log_hooks.c */
int ostio__log_hook_make(const char *path, const ostio__make *a, ostio__ctr_report report,
                         void *arg);
int ostio__log_hook_ls(const char *path, const ostio__show *o);
int ostio__log_hook_stat(const char *path, const ostio__show *o);
int ostio__log_hook_map(const char *path, const ostio__show *o);
int ostio__log_hook_compact(const char *path, ostio__ctr_report report, void *arg);
int ostio__log_hook_extents(const char *path, int64_t size, ostio__ctr_extent_fn add,
                            void *arg);
/* log/log_stage_tool.c */
int ostio__log_hook_stage_status(const char *path, ostio__stage_opts *o);
int ostio__log_hook_stage_drain(const char *path, ostio__stage_opts *o);

#endif
