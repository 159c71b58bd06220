/* Process ops of a container kind: what one process needs to serve a
 * container by itself, with no MPI and no other process to agree with
 * (libostio-preload.so, src/preload/backend.c). One ops struct per kind,
 * filled with designated initializers in the kind's folder
 * (striped/striped_store.c, log/log_store.c); one registry (stores.c)
 * maps the manifest's kind name to it.
 *
 * Why a second table beside the file layer's ostio__kind_ops
 * (src/file/kind.h), keyed by the same names: those ops take an open
 * ostio_file and call MPI, and libostio-preload.so links no MPI library,
 * so it cannot reach that table. This one holds the MPI-free, per-process
 * half. tests/test_store_registry.c checks that the two tables name the
 * same kinds ("plain" has no process ops: the preload leaves plain files
 * to libc).
 *
 * Conventions. Every call returns 0 or a negative OSTIO_E* code with the
 * detail in ostio_last_error (the caller maps it to errno). The caller
 * serializes the calls on one store (one lock per open container) and
 * makes sure the container code's own system calls reach libc. open,
 * close and dirfd are required of every store. A NULL
 * data call (open, writable, pread, pwrite, truncate, size, sync, remove,
 * bytes) means "not supported by this kind": the preload answers
 * EOPNOTSUPP (EINVAL for sync, as fsync does on a file that cannot be
 * synchronized). A NULL "other processes" call (reload, changed, flush,
 * locked, forked) means the kind has nothing to do there: what one
 * process writes is visible to every other at once (no cached index). */
#ifndef OSTIO_CONTAINER_STORE_H
#define OSTIO_CONTAINER_STORE_H

#include <stddef.h>
#include <stdint.h>

#define OSTIO__STORE_VERSION 1

struct ostio__hints;
struct ostio__store_ops;
struct ostio__ctr_kind;

/* An open container in one process. Each kind's state begins with it. */
typedef struct ostio__store {
  const struct ostio__store_ops *ops;
  /* The container's current name, owned by the caller: it follows renames
   * (the caller changes it under the lock it calls the ops under). */
  const char *path;
} ostio__store;

typedef struct ostio__store_ops {
  int version;                       /* OSTIO__STORE_VERSION                   */
  const char *name;                  /* the manifest's kind name              */
  /* The kind's manifest keys, creation, check and removal (container.h);
   * its name is this store's. Required: the registry's manifest parser
   * finds the kinds through it. */
  const struct ostio__ctr_kind *ctr;
  /* Makes path a new container of this kind, its parameters from h (excl:
   * OSTIO_EEXIST when path exists; without it an existing container of any
   * kind is fine). */
  int (*create)(const char *path, const struct ostio__hints *h, int excl);
  /* Opens the container at path for reading; (*out)->path = path. */
  int (*open)(const char *path, ostio__store **out);
  /* The last close in this process: publishes what this process wrote
   * (unless removing: the container is removed right after) and frees s.
   * Errors are dropped: there is no caller left to tell. */
  void (*close)(ostio__store *s, int removing);
  /* Removes the container at path: its own files and the directory. */
  int (*remove)(const char *path);
  /* The container directory's fd (stat, placeholders, the lock file). */
  int (*dirfd)(const ostio__store *s);
  /* Before every write and truncate: makes s writable (at once when it is). */
  int (*writable)(ostio__store *s);
  /* The logical size, as this process knows it (reload refreshes it). */
  int (*size)(ostio__store *s, int64_t *size);
  /* Reads at most len bytes at off, fewer at the end of the file, none
   * past it: *got receives the count. */
  int (*pread)(ostio__store *s, void *buf, size_t len, int64_t off, size_t *got);
  /* Writes len > 0 bytes at off (after writable). */
  int (*pwrite)(ostio__store *s, const void *buf, size_t len, int64_t off);
  /* Sets the logical size (after writable). */
  int (*truncate)(ostio__store *s, int64_t size);
  /* Makes what this process wrote durable, then sees what others published. */
  int (*sync)(ostio__store *s);
  /* Bytes of data stored (st_blocks; the caller caps them at the size). */
  int (*bytes)(ostio__store *s, int64_t *bytes);
  /* ---- other processes ---- */
  /* Rereads what other processes published (a new open, a fork sibling's
   * write): this process's own pending writes stay. */
  int (*reload)(ostio__store *s);
  /* 1 when another process published since the last load (cheap next to a
   * reload: stat calls it on every call), else 0. */
  int (*changed)(ostio__store *s);
  /* Publishes this process's pending writes, so another process that
   * reloads sees them (fork, an unlock, exit). */
  int (*flush)(ostio__store *s);
  /* A lock between processes was just taken: see what the previous holder
   * published, and order what this process writes next after it. */
  int (*locked)(ostio__store *s);
  /* In the child after fork: the child writes as its own writer (the
   * parent's identity stays the parent's). */
  void (*forked)(ostio__store *s);
  /* This process stops using it without closing it (exit, exec), after a
   * flush: a writer staged on a node-local directory drains and finishes
   * now (docs/staging.md). NULL: nothing to do. */
  void (*end)(ostio__store *s);
} ostio__store_ops;

/* ---- stores.c: the registry ---------------------------------------------------- */
/* NULL when no store has that name. */
const ostio__store_ops *ostio__store_find(const char *name);
/* The stores in table order: i = 0, 1, ... until NULL. */
const ostio__store_ops *ostio__store_at(size_t i);
/* The store of the existing container at path (by its manifest's kind);
 * OSTIO_ENOTSUP for a kind that has none. */
int ostio__store_of_path(const char *path, const ostio__store_ops **ops);
/* The store a new container gets when the hint ostio_container is
 * hint_name: that store when it can create, else the default (log: the
 * kind that serves many processes writing one file). Never NULL. */
const ostio__store_ops *ostio__store_for_create(const char *hint_name);

/* The members of the table, each defined in its kind's folder. */
extern const ostio__store_ops ostio__store_striped; /* striped/striped_store.c */
extern const ostio__store_ops ostio__store_log;     /* log/log_store.c         */
/* The kinds' container halves their stores point at (.ctr). */
extern const struct ostio__ctr_kind ostio__ctr_striped; /* striped/striped_manifest.c */
extern const struct ostio__ctr_kind ostio__ctr_log;     /* log/log_manifest.c         */

#endif
