/* Internal to src/io: what io.c and the io_uring batch path (uring.c, built
 * only when CMake finds liburing and defines OSTIO_HAVE_URING) share. Both
 * paths count system calls, statistics and faults through the same
 * functions, so a batch behaves the same on either. */
#ifndef OSTIO_IO_URING_H
#define OSTIO_IO_URING_H

#include <stddef.h>
#include <stdint.h>

#include "io/io.h"

/* Default for io->uring_min: the fewest requests (after merging) worth a
 * ring. OSTIO_IO_URING=1 sends batches of at least this many to the ring. */
#define OSTIO__URING_MIN_BATCH 16
/* Submission queue depth of a ring. */
#define OSTIO__URING_DEPTH 256

/* ---- from io.c ----------------------------------------------------------- */
/* One system call about to be made: counted in io->nwrites / nreads and the
 * statistics (sys_*, and for writes stripe_sized / stripe_aligned), and
 * checked against io->fault. */
typedef struct ostio__io_call {
  int fault;    /* -1 none, else the ostio__fault_mode that fired          */
  int err;      /* OSTIO__FAULT_ERRNO: the errno to fail with               */
  size_t len;   /* bytes to ask the system for (halved for short)          */
} ostio__io_call;
void ostio__io_call_begin(ostio__io *io, int is_write, int64_t off, size_t len,
                          ostio__io_call *c);

/* Moves the rest of one request: len bytes at off of which done have moved
 * already, with the pread / pwrite loop (EINTR and short transfers retried,
 * EOF zero-filled for reads). Counts bytes; does not time. */
int ostio__io_loop(ostio__io *io, int is_write, char *buf, size_t len, int64_t off, size_t done);

/* The error of a failed call inside a request (len bytes at off) at offset
 * at: err is the errno, injected says OSTIO_FAULT caused it. */
int ostio__io_fail_errno(int is_write, size_t len, int64_t off, int64_t at, int err,
                         int injected);
/* The error of a call that moved 0 bytes (a write, or an injected stuck). */
int ostio__io_fail_stuck(int is_write, size_t len, int64_t off, int64_t at, int injected);

/* Keeps the first failure of a batch: code in *first, detail in keep. */
void ostio__io_keep_first(int rc, int *first, char *keep, size_t cap);

/* ---- from uring.c (OSTIO_HAVE_URING only) ------------------------------- */
#ifdef OSTIO_HAVE_URING
/* Issues n requests (sorted, merged, non-empty) through io's ring, setting
 * the ring up on first use. When the ring cannot be set up (ENOSYS, EPERM,
 * ENOMEM, ...) io->uring_state becomes -1, *used 0, and nothing was counted
 * or moved: the caller falls back to the loop. Otherwise *used is 1 and the
 * result is the first failure, after every request was attempted; short
 * completions are finished with ostio__io_loop. */
int ostio__uring_batch(ostio__io *io, int is_write, const ostio__io_req *r, size_t n,
                       int *used);
/* Tears the ring down; safe when there is none. */
void ostio__uring_free(ostio__io *io);
#endif

#endif
