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
  int is_container;         /* 1 striped container (file_ctr.c), 2 log (file_log.c) */
  int log_nodes;            /* nodes, counted when creating a log container */
  struct ostio__loghandle *log; /* a log container's state; NULL otherwise  */
  struct ostio__ctr *ctr;   /* its open objects; NULL for a plain file     */
  ostio__io_objects objtab; /* what io routes through (borrowed from ctr)  */
  struct ostio__coll_scratch *scratch; /* per-call arrays sized by nprocs (coll.c) */
};

typedef struct ostio__coll_scratch ostio__coll_scratch;

/* Striped containers behind an open file (file_ctr.c; docs/containers.md).
 * create: rank 0 makes PATH a container from the hints (ostio_objects, else
 * striping_factor, else the directory's stripe count; striping_unit, else
 * the directory's stripe size). open: collective; rank 0 opens and checks
 * the container, every rank opens the objects; sets fh->ctr, fh->layout,
 * fh->objtab. close: collective; the size record is written clean by rank 0
 * after every rank closed its objects. The others are the small calls. */
int ostio__file_ctr_create(ostio_file *fh);
int ostio__file_ctr_open(ostio_file *fh);
int ostio__file_ctr_close(ostio_file *fh);
int ostio__file_ctr_size(ostio_file *fh, int64_t *size);
int ostio__file_ctr_set_size(ostio_file *fh, int64_t size);
int ostio__file_ctr_sync(ostio_file *fh);
int ostio__file_ctr_delete(ostio_file *fh);

/* Log containers behind an open file (file_log.c; docs/containers.md).
 * create: rank 0, hostdirs from log_nodes. open, close, set_size, sync,
 * coll: collective, agreed. The others are independent. */
int ostio__file_log_create(ostio_file *fh);
int ostio__file_log_open(ostio_file *fh);
int ostio__file_log_close(ostio_file *fh);
void ostio__file_log_free(ostio_file *fh);
int ostio__file_log_size(ostio_file *fh, int64_t *size);
int ostio__file_log_set_size(ostio_file *fh, int64_t size, int rc);
int ostio__file_log_sync(ostio_file *fh);
int ostio__file_log_write_at(ostio_file *fh, int64_t off, const void *buf, size_t len);
int ostio__file_log_read_at(ostio_file *fh, int64_t off, void *buf, size_t len);
int ostio__file_log_coll(ostio_file *fh, int is_write, const ostio_extent *ext, size_t n,
                         void *buf);

/* The engine's entry points: engine/coll.c defines ostio_write_all and
 * ostio_read_all, compiled under these names (CMakeLists.txt) so that
 * file.c can route log containers before the engine. */
int ostio__engine_write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf);
int ostio__engine_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf);

/* The collective engine (engine/coll.c). init allocates the handle's
 * per-call arrays at open; fini frees them (safe when init failed). */
int ostio__coll_init(ostio_file *fh);
void ostio__coll_fini(ostio_file *fh);
int ostio__coll(ostio_file *fh, int is_write, const ostio_extent *ext, size_t n, void *buf);

#endif
