/* An open file: everything a handle holds. See docs/collective.md. */
#ifndef OSTIO_FILE_FILE_H
#define OSTIO_FILE_FILE_H

#include <mpi.h>

#include "hints/hints.h"
#include "io/io.h"
#include "layout/layout.h"
#include "stats/stats.h"

struct ostio_file {
  MPI_Comm comm;            /* private duplicate of the caller's          */
  int rank, nprocs;
  char *path;
  int amode;                /* MPI_MODE_* as given                        */
  int can_read, can_write;
  int fd;
  ostio__hints hints;
  ostio_layout *layout;
  ostio__stats stats;
  ostio__io io;
  int *eligible;            /* aggregator candidates, spread over nodes   */
  int neligible;
  int nnodes;
  const char *last_strategy;
  const struct ostio__kind_ops *kind; /* how the file is stored (kind.h) */
  int64_t prepared;         /* the kind's prepare result, for its create   */
  void *kind_data;          /* the kind's own state; its discard frees it  */
  ostio__io_objects objtab; /* what io routes through (borrowed from ctr)  */
  struct ostio__coll_scratch *scratch; /* per-call arrays sized by nprocs (coll.c) */
};

typedef struct ostio__coll_scratch ostio__coll_scratch;

/* Each kind's calls are static in its own file and reached through its
 * ops struct (kind.h): plain/plain_file.c, striped/striped_file.c, log/log_file.c. */

/* The engine's entry points (engine/coll.c): the collective calls of the
 * kinds that store data behind the io layer (plain, striped). */
int ostio__engine_write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf);
int ostio__engine_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf);

/* The collective engine (engine/coll.c). init allocates the handle's
 * per-call arrays at open; fini frees them (safe when init failed). */
int ostio__coll_init(ostio_file *fh);
void ostio__coll_fini(ostio_file *fh);
int ostio__coll(ostio_file *fh, int is_write, const ostio_extent *ext, size_t n, void *buf);

#endif
