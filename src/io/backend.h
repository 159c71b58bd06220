/* I/O backends: what the io layer (io.c) does per request and per batch for
 * one kind of target. One ops struct per backend, designated initializers,
 * version field first, NULL for "not supported" (the io layer then does the
 * default named at the member). Built in: "fd" (a plain file: pwrite/pread
 * loops, io_uring batches), "objects" (a striped container's object files),
 * "direct" (a plain file with O_DIRECT for the aligned middle of requests).
 *
 * The io layer keeps what is common to every backend: argument checks,
 * sorting and merging batches, timing (time_io, in one place: io.c run()),
 * and the first-failure rule of batches. A backend makes its system calls
 * through ostio__io_call_begin (sys_* counters, stripe counters,
 * OSTIO_FAULT) and counts bytes_written / bytes_read, or simply calls
 * ostio__io_loop, which does both; errors come from ostio__io_fail_errno /
 * ostio__io_fail_stuck so details read the same on every backend.
 *
 * To add one: one file defining `const ostio__io_backend
 * ostio__io_backend_NAME` and one X(NAME) line in OSTIO__IO_BACKENDS
 * (backends.c); tests/backend_template.c is the do-nothing example. */
#ifndef OSTIO_IO_BACKEND_H
#define OSTIO_IO_BACKEND_H

#include <stddef.h>

#include "io/io.h"
#include "io/uring.h"

#define OSTIO__IO_BACKEND_VERSION 1

typedef struct ostio__io_backend {
  int version;             /* OSTIO__IO_BACKEND_VERSION                        */
  const char *name;        /* registry key                                     */
  /* Cuts n sorted, merged, non-empty logical requests into system requests
   * (*nout of them at *out, in io->preq: ostio__scratch_get, the io layer
   * frees it at fini). NULL: each request is one system request on io->fd. */
  int (*route)(ostio__io *io, int is_write, const ostio__io_req *r, size_t n,
               ostio__io_preq **out, size_t *nout);
  /* Moves n system requests at once (e.g. io_uring). *used 0: declined,
   * nothing moved or counted, the io layer calls move per request. NULL:
   * move per request. Result: the first failure after all were attempted. */
  int (*batch)(ostio__io *io, int is_write, const ostio__io_preq *q, size_t n, int *used);
  /* Moves all of one system request (reads past end of file zero-filled).
   * NULL: ostio__io_loop (pwrite/pread on q->fd). */
  int (*move)(ostio__io *io, int is_write, const ostio__io_preq *q);
  /* Frees io->be_state. NULL: the backend keeps no state. */
  void (*fini)(ostio__io *io);
} ostio__io_backend;

extern const ostio__io_backend ostio__io_backend_fd;      /* io.c     */
extern const ostio__io_backend ostio__io_backend_objects; /* io.c     */
extern const ostio__io_backend ostio__io_backend_direct;  /* direct.c */

/* The registry (backends.c): the backend called name, or NULL. */
const ostio__io_backend *ostio__io_backend_find(const char *name);
/* The registry's names, ", "-separated, for details. */
void ostio__io_backend_names(char *buf, size_t cap);

/* Moves n system requests through io's backend: its batch when it takes
 * them, else its move (or ostio__io_loop) per request; the first failure
 * after every request was attempted (io.c). */
int ostio__io_move_all(ostio__io *io, int is_write, const ostio__io_preq *q, size_t nq);

/* io_uring batch of the fd and objects backends (io.c): used when built
 * with liburing, OSTIO_IO_URING=1 and at least io->uring_min requests. */
int ostio__io_uring_batch(ostio__io *io, int is_write, const ostio__io_preq *q, size_t n,
                          int *used);

#endif
