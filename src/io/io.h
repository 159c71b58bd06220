/* System I/O of one open file: full-length pread/pwrite loops (EINTR and
 * short transfers retried), batches of non-contiguous requests, statistics
 * and fault injection (OSTIO_FAULT). The collective engine and the
 * independent calls do all their file I/O through here. See docs/io.md. */
#ifndef OSTIO_IO_IO_H
#define OSTIO_IO_IO_H

#include <stddef.h>
#include <stdint.h>

#include "core/fault.h"
#include "core/scratch.h"
#include "layout/layout.h"
#include "stats/stats.h"

/* ---- container objects ----------------------------------------------------
 * A striped container (src/container) stores the logical file as n object
 * files, stripe k in object k mod n at object offset (k / n) * stripe_size.
 * With an object table every request is split at stripe boundaries and each
 * part goes to (object fd, object offset); callers keep logical offsets. */
typedef struct ostio__io_objects {
  int32_t n;                  /* objects, >= 1                              */
  int64_t stripe_size;        /* > 0                                        */
  const int *fd;              /* n open object files                        */
  char *const *name;          /* n names, for error details                 */
} ostio__io_objects;

/* ---- one open file ------------------------------------------------------ */
struct ostio__io_backend;     /* the ops of a backend: io/backend.h        */
typedef struct ostio__io {
  int fd;                     /* the plain file (unused with objects)      */
  const struct ostio__io_backend *be; /* fd, objects, direct, ... (chosen at
                                 init, set_objects, enable_direct or use)  */
  void *be_state;             /* the backend's own state (direct: its fd)  */
  const ostio__io_objects *obj; /* NULL for a plain file; borrowed         */
  unsigned char *obj_used;    /* per object: 1 written, 2 read (counters)  */
  int rank;                   /* in the file's communicator (for faults)   */
  const ostio_layout *layout; /* for stripe-sized / stripe-aligned counts  */
  ostio__stats *stats;        /* counters: sys_*, bytes_*, stripe_*, faults_injected; timer time_io */
  ostio__fault fault;
  int64_t nwrites, nreads;    /* system calls so far (for fault NTH)       */
  /* Batches through io_uring (uring.c; only when built with liburing). */
  int uring_use;              /* from OSTIO_IO_URING: 0 off, 1 on          */
  int uring_state;            /* 0 not tried, 1 ring ready, -1 unavailable */
  size_t uring_min;           /* fewest requests (after merging) for the ring */
  void *uring;                /* the ring, NULL until a batch needs it     */
  /* Per-call arrays kept between calls (core/scratch.h: a few MiB for a
   * batch of 65,536 requests would otherwise be mapped and faulted in on
   * every call); freed by ostio__io_fini. */
  ostio__scratch merged;      /* a batch's sorted, merged copy             */
  ostio__scratch preq;        /* its system requests (the backend's route) */
  /* Deferred open (docs/collective.md, "Deferred open"): when set, called
   * before the first request that moves bytes; it opens the file and sets
   * fd (and may enable O_DIRECT). Cleared once it succeeds; on failure the
   * request fails with its error and the next request calls it again. */
  int (*late_open)(void *arg);
  void *late_arg;
  /* Sieved reads (io/sieve.c): the plan's arrays and the span buffer. */
  ostio__scratch sieve_in, sieve_chunk, sieve_lone, sieve_buf;
} ostio__io;

/* Sets up io for fd; reads OSTIO_FAULT and OSTIO_IO_URING from the
 * environment (a bad value is OSTIO_EINVAL with a detail; io is still set
 * up, without the fault). stats and layout are borrowed. */
int ostio__io_init(ostio__io *io, int fd, int rank, const ostio_layout *layout,
                   ostio__stats *stats);

/* Routes every later request to the objects of o (borrowed; must outlive
 * io). Counts objfiles_written / objfiles_read per distinct object. */
int ostio__io_set_objects(ostio__io *io, const ostio__io_objects *o);

/* O_DIRECT (hints direct_read / direct_write; docs/io.md "O_DIRECT"). Opens
 * path a second time with O_DIRECT (same access mode as io->fd, checked to be
 * the same file) and from then on serves the aligned middle of every plain
 * file request in the enabled directions through it, with an aligned bounce
 * buffer; the unaligned head and tail stay on io->fd. Never fails the open:
 * when O_DIRECT is refused (tmpfs: EINVAL; container objects; no alignment)
 * the file stays buffered and direct_fallbacks counts it. Call after
 * ostio__io_set_objects. Returns 0, or OSTIO_EINVAL for a NULL io or path. */
int ostio__io_enable_direct(ostio__io *io, const char *path, int rd, int wr);
/* 1 when enable_direct succeeded for this direction (is_write 1 or 0). */
int ostio__io_direct_active(const ostio__io *io, int is_write);

/* Selects a backend of the registry by name (io/backend.h; "fd", "objects",
 * "template" in the tests). OSTIO_EINVAL naming the known ones otherwise. */
int ostio__io_use(ostio__io *io, const char *name);

/* Writes all len bytes at off; retries EINTR and short writes; a call that
 * makes no progress is OSTIO_EIO. Errors name the offset and the errno. */
int ostio__io_pwrite(ostio__io *io, const void *buf, size_t len, int64_t off);
/* Reads len bytes at off; bytes past end of file are zero-filled. */
int ostio__io_pread(ostio__io *io, void *buf, size_t len, int64_t off);

/* A batch of requests at distinct, non-overlapping file ranges, in any order.
 * write_batch merges requests whose file ranges and buffers are both
 * adjacent (in a sorted copy) and issues them all: one pwrite loop each, or
 * io_uring when built with liburing, OSTIO_IO_URING=1 (off by default: it
 * did not pay in docs/io.md's measurements), the kernel allows it and at
 * least uring_min requests remain; the first failure is returned after the
 * rest were attempted. */
typedef struct ostio__io_req {
  int64_t off;
  int64_t len;
  char *buf;
} ostio__io_req;
int ostio__io_write_batch(ostio__io *io, const ostio__io_req *r, size_t n);
int ostio__io_read_batch(ostio__io *io, const ostio__io_req *r, size_t n);
/* The same read batch with data sieving (docs/collective.md, "Sieved
 * reads"): mode is romio_ds_read (ostio__tri), buf ind_rd_buffer_size.
 * Pieces close together in one file or container object are read as one
 * span into a buffer of at most buf bytes and copied out (io/sieve_plan.h
 * decides which); the bytes returned, zeros past the end of the file
 * included, are those of ostio__io_read_batch. */
typedef struct ostio__io_sieve {
  int mode;
  int64_t buf;
} ostio__io_sieve;
int ostio__io_read_batch_sieved(ostio__io *io, const ostio__io_req *r, size_t n,
                                const ostio__io_sieve *sv);

/* Frees batch resources (io_uring ring, object counters, the backend's
 * state such as the O_DIRECT descriptor, the batch arrays). Safe to call
 * twice. */
void ostio__io_fini(ostio__io *io);

#endif
