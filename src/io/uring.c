/* Batches through io_uring (built only when CMake finds liburing). One ring
 * per open file, set up on the first batch that wants it; any setup failure
 * (ENOSYS on old kernels, EPERM under seccomp or io_uring_disabled, ENOMEM
 * under a locked-memory limit, no IORING_OP_READ/WRITE) marks the ring
 * unavailable and the caller falls back to the pwrite / pread loop.
 *
 * Each request is one system call for OSTIO_FAULT and the statistics, as on
 * the loop path: a fault that fires is applied before submission (errno and
 * stuck: the request is not submitted; short: half of it is). Completions
 * that moved less than asked are finished with ostio__io_loop. */
#include "io/uring.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Largest length one read/write accepts (Linux MAX_RW_COUNT); longer merged
 * requests complete short and the loop does the rest. */
#define SQE_MAX_LEN ((size_t)0x7ffff000)

enum { PENDING, INJECTED, LOOP };

typedef struct ring {
  struct io_uring ring;
  int32_t res[OSTIO__URING_DEPTH];          /* completion result per slot */
  unsigned char state[OSTIO__URING_DEPTH];  /* PENDING, INJECTED or LOOP  */
  ostio__io_call call[OSTIO__URING_DEPTH];
} ring;

static int setup(ostio__io *io)
{
  if (io->uring) return 0;
  ring *g = calloc(1, sizeof *g);
  if (!g) goto unavailable;
  if (io_uring_queue_init(OSTIO__URING_DEPTH, &g->ring, 0) < 0) goto unavailable;
  struct io_uring_probe *p = io_uring_get_probe_ring(&g->ring);
  int ok = p && io_uring_opcode_supported(p, IORING_OP_WRITE) &&
           io_uring_opcode_supported(p, IORING_OP_READ);
  if (p) io_uring_free_probe(p);
  if (!ok) {
    io_uring_queue_exit(&g->ring);
    goto unavailable;
  }
  io->uring = g;
  io->uring_state = 1;
  return 0;
unavailable:
  free(g);
  io->uring_state = -1;
  return -1;
}

void ostio__uring_free(ostio__io *io)
{
  ring *g = io->uring;
  if (!g) return;
  io_uring_queue_exit(&g->ring);
  free(g);
  io->uring = NULL;
}

/* Submits nsqe prepared entries and reaps what was submitted. Returns how
 * many completed; fewer than nsqe means the ring is broken. */
static unsigned submit_and_reap(ring *g, unsigned nsqe)
{
  unsigned submitted = 0, reaped = 0;
  while (submitted < nsqe) {
    int rc = io_uring_submit(&g->ring);
    if (rc == -EINTR) continue;
    if (rc <= 0) break;
    submitted += (unsigned)rc;
  }
  while (reaped < submitted) {
    struct io_uring_cqe *cqe;
    int rc = io_uring_wait_cqe(&g->ring, &cqe);
    if (rc == -EINTR) continue;
    if (rc < 0) break; /* cannot happen with entries in flight; loop redoes the rest */
    size_t i = (size_t)(uintptr_t)io_uring_cqe_get_data(cqe);
    g->res[i] = cqe->res;
    g->state[i] = PENDING; /* completed: res is valid */
    io_uring_cqe_seen(&g->ring, cqe);
    reaped++;
  }
  return reaped;
}

/* Result of slot i of the chunk (request q). */
static int finish(ostio__io *io, int is_write, ring *g, size_t i, const ostio__io_preq *q)
{
  size_t len = (size_t)q->len;
  const ostio__io_call *c = &g->call[i];
  if (g->state[i] == LOOP) return ostio__io_loop(io, is_write, q, 0);
  if (g->state[i] == INJECTED) {
    if (c->fault == OSTIO__FAULT_STUCK)
      return ostio__io_fail_stuck(io, is_write, q, 0, 1);
    return ostio__io_fail_errno(io, is_write, q, 0, c->err, 1);
  }
  int32_t res = g->res[i];
  if (res == -EINTR || res == -EAGAIN) return ostio__io_loop(io, is_write, q, 0);
  if (res < 0) return ostio__io_fail_errno(io, is_write, q, 0, -res, 0);
  if (res == 0) {
    if (is_write) return ostio__io_fail_stuck(io, is_write, q, 0, 0);
    memset(q->buf, 0, len); /* end of file */
    return 0;
  }
  if (io->stats)
    ostio__stat_add(io->stats, is_write ? OSTIO__STAT_bytes_written : OSTIO__STAT_bytes_read,
                    res);
  if ((size_t)res < len) return ostio__io_loop(io, is_write, q, (size_t)res);
  return 0;
}

int ostio__uring_batch(ostio__io *io, int is_write, const ostio__io_preq *r, size_t n,
                       int *used)
{
  *used = 0;
  if (io->uring_state < 0 || setup(io) < 0) return 0;
  *used = 1;
  ring *g = io->uring;
  char keep[512];
  int first = 0;
  size_t base = 0;

  while (base < n) {
    size_t m = n - base < OSTIO__URING_DEPTH ? n - base : OSTIO__URING_DEPTH;
    unsigned nsqe = 0;
    for (size_t i = 0; i < m; i++) {
      const ostio__io_preq *q = &r[base + i];
      size_t len = (size_t)q->len < SQE_MAX_LEN ? (size_t)q->len : SQE_MAX_LEN;
      ostio__io_call_begin(io, is_write, q, 0, len, &g->call[i]);
      int f = g->call[i].fault;
      g->state[i] = f == OSTIO__FAULT_ERRNO || f == OSTIO__FAULT_STUCK ? INJECTED : LOOP;
      if (g->state[i] == INJECTED) continue;
      struct io_uring_sqe *sqe = io_uring_get_sqe(&g->ring);
      if (!sqe) continue; /* cannot happen (the ring is empty, m <= depth): loop does it */
      if (is_write)
        io_uring_prep_write(sqe, q->fd, q->buf, (unsigned)g->call[i].len, (uint64_t)q->off);
      else
        io_uring_prep_read(sqe, q->fd, q->buf, (unsigned)g->call[i].len, (uint64_t)q->off);
      io_uring_sqe_set_data(sqe, (void *)(uintptr_t)i); /* liburing < 2.2 lacks *_data64 */
      nsqe++; /* state stays LOOP until its completion arrives */
    }
    int broken = nsqe && submit_and_reap(g, nsqe) < nsqe;
    /* Entries left in the submission queue must never run later: close the
     * ring first; what did not complete is redone by the loop (same bytes
     * at the same offsets). */
    if (broken) io_uring_queue_exit(&g->ring);
    for (size_t i = 0; i < m; i++)
      ostio__io_keep_first(finish(io, is_write, g, i, &r[base + i]), &first, keep, sizeof keep);
    base += m;
    if (broken) { /* finish the batch, and later ones, with the loop */
      free(g);
      io->uring = NULL;
      io->uring_state = -1;
      for (; base < n; base++)
        ostio__io_keep_first(ostio__io_loop(io, is_write, &r[base], 0), &first, keep,
                             sizeof keep);
    }
  }
  if (first < 0) ostio__set_detail(keep);
  return first;
}
