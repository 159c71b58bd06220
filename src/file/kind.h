/* Container kinds: how an open file is stored. One ops struct per kind,
 * filled with designated initializers in the kind's own file; one registry
 * (kind.c) maps the manifest's kind name to it. "plain" (a regular file or
 * device) is a kind like the others, so src/file/file.c has no kind
 * branches. See docs/architecture.md, "Container kinds".
 *
 * The struct lives in src/file, not src/container: its file-layer calls take
 * an open ostio_file (MPI) and src/container stays MPI-free (the CLI and the
 * preload library use it). The tool hooks at the end take a path and no MPI,
 * so the CLI dispatches through this table (their functions sit in MPI-free
 * files in the kinds' folders). The preload library, which has no MPI and
 * so cannot link this table, uses the kinds' process ops instead
 * (src/container/store.h), a second table keyed by the same names. 
 *
 * Conventions for every call below. NULL means "not supported": the file
 * layer answers OSTIO_ENOTSUP naming the kind and the call. "Collective"
 * calls run on every rank of fh->comm and return an outcome agreed with
 * ostio__agree; "local" and "rank 0" calls do not agree (the caller does).
 * The file layer checks the arguments of the independent calls and of
 * set_size (handle, access mode, range, equal sizes: agreed) before it calls
 * a kind; write_all and read_all get the caller's arguments as given (the
 * engine and the log kind check and agree them in their own order). */
#ifndef OSTIO_FILE_KIND_H
#define OSTIO_FILE_KIND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "container/container.h"
#include "container/ctr_hooks.h"
#include "ostio.h"

#define OSTIO__KIND_VERSION 1

typedef struct ostio__kind_ops {
  int version;                       /* OSTIO__KIND_VERSION                     */
  const char *name;                  /* the manifest's kind name; the hint word */
  /* 1 when a write_at is seen by every process's read_at once it returns
   * (the bytes go straight to the file system, not to a per-writer log), so
   * MPI's atomic mode can be honoured (libostio-mpiio, docs/mpiio.md). */
  int coherent;
  /* Collective, before rank 0's create: when MPI_MODE_CREATE is given and
   * the hint ostio_container names this kind (the file may exist already;
   * then another kind may open it). May set fh->prepared for create. */
  int (*prepare)(ostio_file *fh);
  /* Rank 0 only: makes fh->path a new file of this kind (MPI_MODE_EXCL:
   * OSTIO_EEXIST when someone else made it first). */
  int (*create)(ostio_file *fh);
  /* Collective, after rank 0 made or checked the file: opens it on every
   * rank; sets fh->layout, and fh->fd or fh->objtab for the io layer. */
  int (*open)(ostio_file *fh, MPI_Info info);
  /* Local, for a kind whose open may defer (fh->deferred set on this rank,
   * docs/collective.md "Deferred open"): opens the file on this rank at its
   * first I/O and sets fh->fd; < 0 with a detail naming the deferred open
   * when it fails (the file layer's caller returns or agrees that error). */
  int (*late_open)(ostio_file *fh);
  /* Collective: closes what open opened (fh->io is finished already). */
  int (*close)(ostio_file *fh);
  /* Local: frees whatever open or close left (after a failed open too);
   * never does I/O that matters. May be called twice. */
  void (*discard)(ostio_file *fh);
  /* Collective, after close: removes the file (MPI_MODE_DELETE_ON_CLOSE). */
  int (*remove)(ostio_file *fh);
  int (*size)(ostio_file *fh, int64_t *size);             /* local            */
  int (*set_size)(ostio_file *fh, int64_t size);          /* collective       */
  int (*sync)(ostio_file *fh);                            /* collective       */
  /* Collective reads and writes (ostio_write_all / ostio_read_all). */
  int (*write_all)(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf);
  int (*read_all)(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf);
  /* Independent, len > 0 (ostio_write_at / ostio_read_at). */
  int (*write_at)(ostio_file *fh, int64_t off, const void *buf, size_t len);
  int (*read_at)(ostio_file *fh, int64_t off, void *buf, size_t len);
  /* Tool hooks, by path, no MPI: the CLI's `ostio container SUB` and
   * flatten call them through this table (src/container/ctr_hooks.h has
   * their types and the pieces kinds share); `ostio stage` the stage hooks.
   * Each returns < 0 with the error set when it fails. */
  /* check and recover: each problem or repair to report; the count. compact:
   * one report, what it wrote; the records written (at most INT_MAX). */
  int (*check)(const char *path, ostio__ctr_report report, void *arg);
  int (*recover)(const char *path, ostio__ctr_report report, void *arg);
  int (*compact)(const char *path, ostio__ctr_report report, void *arg);
  /* `ostio container create`: makes path a new, empty file of this kind
   * (race-free, PATH must not exist) from what the command line gave, and
   * reports what it made; 0. */
  int (*make)(const char *path, const ostio__make *a, ostio__ctr_report report, void *arg);
  /* Printed into o->out, text or JSON (o->json): ls its objects or logs;
   * stat every line (the shared ones with ostio__show_head and _foot); map
   * the logical-to-physical map (o->records: the index records) and a
   * summary into o->note. */
  int (*ls)(const char *path, const ostio__show *o);
  int (*stat)(const char *path, const ostio__show *o);
  int (*map)(const char *path, const ostio__show *o);
  /* flatten, rank 0: each data extent of [0, size) to add, in any order,
   * overlaps allowed (flatten sorts and merges). NULL: all of [0, size). */
  int (*extents)(const char *path, int64_t size, ostio__ctr_extent_fn add, void *arg);
  /* `ostio stage status` and `drain` (writers staged on node-local storage,
   * docs/staging.md), printed into o->out, text or JSON (o->json), with
   * o->host as this node's name (o->self set to the name taken). status:
   * every staged writer (where, bytes staged and drained, whether on this
   * node) and the totals; 0. drain: drains and finishes every writer staged
   * on this node (paced to o->bandwidth, o->progress when o->tick is set),
   * each one reported, then the size record written clean once nothing is
   * staged; the count of writers left staged (on other nodes, or their stage
   * directory gone). */
  int (*stage_status)(const char *path, ostio__stage_opts *o);
  int (*stage_drain)(const char *path, ostio__stage_opts *o);
} ostio__kind_ops;

/* The tool hooks by name, for callers that dispatch on one (the CLI asks
 * whether a path's kind has it, and which kinds do). */
typedef enum ostio__kind_tool {
  OSTIO__TOOL_CHECK, OSTIO__TOOL_RECOVER, OSTIO__TOOL_COMPACT, OSTIO__TOOL_LS,
  OSTIO__TOOL_STAT, OSTIO__TOOL_MAP, OSTIO__TOOL_EXTENTS, OSTIO__TOOL_MAKE,
  OSTIO__TOOL_STAGE_STATUS, OSTIO__TOOL_STAGE_DRAIN
} ostio__kind_tool;
/* 1 when kind k has hook t (not NULL). */
int ostio__kind_has(const ostio__kind_ops *k, ostio__kind_tool t);

/* The registry (kind.c). NULL when no kind has that name. */
const ostio__kind_ops *ostio__kind_find(const char *name);
/* The registry's members in its order, i < ostio__kind_count() (the test
 * hook's kind is not one of them). */
size_t ostio__kind_count(void);
const ostio__kind_ops *ostio__kind_at(size_t i);
/* The kind of the existing path: a container directory (a manifest inside)
 * by its manifest's kind name, anything else "plain". OSTIO_EFORMAT for a
 * damaged manifest, OSTIO_ENOTSUP for a kind this library does not know. */
int ostio__kind_of_path(const char *path, const ostio__kind_ops **kind);
/* Test hook: while k is not NULL, ostio_open takes kind k for every file it
 * opens or creates, whatever the path holds or the hints say (so a test can
 * exercise a kind that is not in the table: tests/kind_template.c). Call it
 * on every rank alike, with no file being opened. Not thread-safe. */
void ostio__kind_test_use(const ostio__kind_ops *k);

/* The members of the table, each defined in its kind's file. */
extern const ostio__kind_ops ostio__kind_plain;   /* plain/plain_file.c */
extern const ostio__kind_ops ostio__kind_striped; /* striped/striped_file.c   */
extern const ostio__kind_ops ostio__kind_log;     /* log/log_file.c   */

/* Shared by kinds stored behind the io layer (plain, striped): independent
 * reads and writes straight through fh->io (plain/plain_file.c). */
int ostio__kind_io_write_at(ostio_file *fh, int64_t off, const void *buf, size_t len);
int ostio__kind_io_read_at(ostio_file *fh, int64_t off, void *buf, size_t len);

#endif
