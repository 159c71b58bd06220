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
/* A request as the system sees it: a range of one file descriptor (the
 * plain file, or one container object). obj is the object index (-1 for a
 * plain file), so counters and details can name the logical offset. */
typedef struct ostio__io_preq {
  int fd;
  int32_t obj;
  int64_t off;          /* in the file or the object                       */
  int64_t len;
  char *buf;
} ostio__io_preq;

/* Logical file offset of byte off of q's file (identity for plain files). */
int64_t ostio__io_logical(const ostio__io *io, int32_t obj, int64_t off);

/* One system call about to be made: counted in io->nwrites / nreads and the
 * statistics (sys_*, and for writes stripe_sized / stripe_aligned), and
 * checked against io->fault. */
typedef struct ostio__io_call {
  int fault;    /* -1 none, else the ostio__fault_mode that fired          */
  int err;      /* OSTIO__FAULT_ERRNO: the errno to fail with               */
  size_t len;   /* bytes to ask the system for (halved for short)          */
} ostio__io_call;
void ostio__io_call_begin(ostio__io *io, int is_write, const ostio__io_preq *q, size_t done,
                          size_t len, ostio__io_call *c);

/* Moves the rest of one request, of which done bytes have moved already,
 * with the pread / pwrite loop (EINTR and short transfers retried, EOF
 * zero-filled for reads: past an object's end as past a file's). Counts
 * bytes; does not time. */
int ostio__io_loop(ostio__io *io, int is_write, const ostio__io_preq *q, size_t done);

/* The error of a failed call inside request q at q->off + done: err is the
 * errno, injected says OSTIO_FAULT caused it. */
int ostio__io_fail_errno(const ostio__io *io, int is_write, const ostio__io_preq *q,
                         size_t done, int err, int injected);
/* The error of a call that moved 0 bytes (a write, or an injected stuck). */
int ostio__io_fail_stuck(const ostio__io *io, int is_write, const ostio__io_preq *q,
                         size_t done, int injected);

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
int ostio__uring_batch(ostio__io *io, int is_write, const ostio__io_preq *r, size_t n,
                       int *used);
/* Tears the ring down; safe when there is none. */
void ostio__uring_free(ostio__io *io);
#endif

#endif
