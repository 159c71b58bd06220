/* Container kinds: how an open file is stored. One ops struct per kind,
 * filled with designated initializers in the kind's own file; one registry
 * (kind.c) maps the manifest's kind name to it. "plain" (a regular file or
 * device) is a kind like the others, so src/file/file.c has no kind
 * branches. See docs/architecture.md, "Container kinds".
 *
 * The struct lives in src/file, not src/container: its file-layer calls take
 * an open ostio_file (MPI) and src/container stays MPI-free (the CLI and the
 * preload library use it). The tool hooks at the end take a path and no MPI,
 * so the CLI and the preload backend can dispatch through the same table.
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
#include "ostio.h"

#define OSTIO__KIND_VERSION 1

typedef struct ostio__kind_ops {
  int version;                       /* OSTIO__KIND_VERSION                     */
  const char *name;                  /* the manifest's kind name; the hint word */
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
  /* Tool hooks, by path, no MPI (the CLI's `ostio container check` and
   * `recover`): each problem or repair to report; the count, or < 0. */
  int (*check)(const char *path, ostio__ctr_report report, void *arg);
  int (*recover)(const char *path, ostio__ctr_report report, void *arg);
} ostio__kind_ops;

/* The registry (kind.c). NULL when no kind has that name. */
const ostio__kind_ops *ostio__kind_find(const char *name);
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
