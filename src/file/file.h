/* An open file: everything a handle holds. See docs/collective.md. */
#ifndef OSTIO_FILE_FILE_H
#define OSTIO_FILE_FILE_H

#include <mpi.h>

#include "cache/cache.h"
#include "engine/engine.h"
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
  int fd;                   /* -1 while this rank's open is deferred      */
  /* Deferred open (docs/collective.md, "Deferred open"): set by a kind's
   * open when this rank opened nothing yet (its late_open runs at the first
   * I/O, through fh->io). home: the rank that opened at ostio_open and
   * serves set_size (the first aggregator; 0 without deferral). file_id:
   * the inode home opened, so a late open of another file under the same
   * name is refused. home_rdwr: home's descriptor reads and writes. */
  int deferred;
  int home;
  int64_t file_id;
  int home_rdwr;
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
  /* The engine's view of this handle (engine/engine.h), filled at open
   * once the kind, the io layer and the aggregators are set; it points at
   * the fields above, so none of them is replaced after open. */
  ostio__engine_ctx engine;
  /* The cooperative cache (src/cache, docs/cache.md) when the hint
   * ostio_cache=enable and the kind is coherent; NULL otherwise. */
  ostio__cache *cache;
};

/* Each kind's calls are static in its own file and reached through its
 * ops struct (kind.h): plain/plain_file.c, striped/striped_file.c, log/log_file.c. */

/* The collective calls of the kinds that store data behind the io layer
 * (plain, striped): the engine on fh->engine (file.c). */
int ostio__file_engine_write_all(ostio_file *fh, const ostio_extent *ext, size_t n,
                                 const void *buf);
int ostio__file_engine_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf);

/* ostio_read_at whose range counts as one application piece only when
 * piece is 1 (the interposer's sieve reads windows and counts the pieces it
 * was asked for itself; docs/stats.md). */
int ostio__file_read_at(ostio_file *fh, int64_t offset, void *buf, size_t len, int piece);
/* Collective: ostio_write_all (is_write 1) or ostio_read_all after checks
 * of the caller's own, whose outcome on this rank is local_rc (0 or
 * negative); every rank returns the same code, and nothing moves when any
 * rank's local_rc is negative. Where the engine serves the call (a kind of
 * the engine, no cache: the same on every rank) local_rc travels in the
 * engine's first collective; else one agreement comes first. */
int ostio__file_coll_checked(ostio_file *fh, int local_rc, int is_write,
                             const ostio_extent *ext, size_t n, void *buf);

#endif
