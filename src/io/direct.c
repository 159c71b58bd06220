/* The "direct" backend: O_DIRECT for plain files (hints direct_read,
 * direct_write; docs/io.md "O_DIRECT").
 *
 * A request [off, off+len) on the plain file is cut at the alignment unit A:
 * the aligned middle [roundup(off), rounddown(off+len)) goes through a second
 * descriptor opened with O_DIRECT, in chunks of at most BOUNCE bytes copied
 * through one aligned bounce buffer; the unaligned head and tail go through
 * the buffered descriptor with the ordinary loop. No block is ever
 * read-modified-written: two ranks may own the two halves of one block, and
 * each writes only its own bytes. A is the larger of the file system's
 * direct I/O offset alignment (statx STATX_DIOALIGN) and the page size, so a
 * buffered head or tail never shares a page-cache page with a direct middle
 * (a page cached around a partial write would be written back over another
 * rank's direct bytes).
 *
 * Every direct call is one system call for OSTIO_FAULT and the counters
 * (ostio__io_call_begin); bytes also count in direct_bytes_written / _read.
 * Refusals fall back to buffered I/O and count direct_fallbacks: at enable
 * (open fails, e.g. EINVAL on tmpfs; container objects; no alignment
 * reported) and at the first direct call that fails with EINVAL (the rest
 * of that request and every later one go buffered). */
#include "io/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

/* Most bytes one direct call moves (the bounce buffer's size). */
#define BOUNCE ((size_t)4 << 20)

typedef struct direct {
  int dfd;              /* the O_DIRECT descriptor                         */
  int base_fd;          /* io->fd it mirrors (others, e.g. a log's, go buffered) */
  int rd, wr;           /* enabled directions                              */
  int off;              /* 1: refused at run time, buffered from then on   */
  int64_t align;        /* offset and length unit                          */
  size_t mem_align;     /* bounce buffer alignment                         */
  size_t cap;           /* bounce size, a multiple of align                */
  char *bounce;         /* allocated on first use                          */
} direct;

static void fallback(ostio__io *io)
{
  if (io->stats) ostio__stat_add(io->stats, OSTIO__STAT_direct_fallbacks, 1);
}

static void direct_fini(ostio__io *io)
{
  direct *d = io->be_state;
  if (!d) return;
  if (d->dfd >= 0) close(d->dfd);
  free(d->bounce);
  free(d);
  io->be_state = NULL;
}

/* Alignment of direct I/O on dfd: 0 when the file system says it has none. */
static void alignment(int dfd, int64_t *align, size_t *mem)
{
  long page = sysconf(_SC_PAGESIZE);
  int64_t a = page > 0 ? page : 4096, m = a;
#ifdef STATX_DIOALIGN
  struct statx sx;
  if (statx(dfd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
    if (sx.stx_dio_offset_align == 0) { /* the file system does not do direct I/O here */
      *align = 0;
      *mem = 0;
      return;
    }
    if ((int64_t)sx.stx_dio_offset_align > a) a = sx.stx_dio_offset_align;
    if ((int64_t)sx.stx_dio_mem_align > m) m = sx.stx_dio_mem_align;
  }
#else
  (void)dfd; /* no statx alignment: the page size (>= 4096, a multiple of 512) */
#endif
  *align = a;
  *mem = (size_t)(m > a ? m : a);
}

int ostio__io_enable_direct(ostio__io *io, const char *path, int rd, int wr)
{
  if (!io || !path)
    return ostio__fail(OSTIO_EINVAL, "O_DIRECT: NULL %s; pass the open io and the file's path",
                       io ? "path" : "io");
  if (!rd && !wr) return 0;
  if (io->be_state || io->obj || io->fd < 0 || io->be != &ostio__io_backend_fd) {
    fallback(io); /* container objects, or another backend: buffered */
    return 0;
  }
  int fl = fcntl(io->fd, F_GETFL);
  int dfd = fl < 0 ? -1 : open(path, (fl & O_ACCMODE) | O_DIRECT | O_CLOEXEC);
  struct stat a, b;
  int64_t align = 0;
  size_t mem = 0;
  if (dfd >= 0 && (fstat(io->fd, &a) < 0 || fstat(dfd, &b) < 0 || a.st_dev != b.st_dev ||
                   a.st_ino != b.st_ino || !S_ISREG(b.st_mode))) {
    close(dfd); /* not the same regular file (replaced since the open): stay buffered */
    dfd = -1;
  }
  if (dfd >= 0) alignment(dfd, &align, &mem);
  direct *d = dfd >= 0 && align > 0 ? calloc(1, sizeof *d) : NULL;
  if (!d) {
    if (dfd >= 0) close(dfd);
    fallback(io);
    return 0;
  }
  d->dfd = dfd;
  d->base_fd = io->fd;
  d->rd = rd;
  d->wr = wr;
  d->align = align;
  d->mem_align = mem;
  d->cap = BOUNCE / (size_t)align * (size_t)align;
  if (d->cap == 0) d->cap = (size_t)align;
  io->be_state = d;
  io->be = &ostio__io_backend_direct;
  return 0;
}

int ostio__io_direct_active(const ostio__io *io, int is_write)
{
  const direct *d = io && io->be == &ostio__io_backend_direct ? io->be_state : NULL;
  return d && !d->off && (is_write ? d->wr : d->rd);
}

/* Part [beg, end) of request q (file offsets) with the buffered loop. */
static int buffered(ostio__io *io, int is_write, const ostio__io_preq *q, int64_t beg,
                    int64_t end)
{
  if (end <= beg) return 0;
  ostio__io_preq p = {q->fd, -1, beg, end - beg, q->buf + (beg - q->off)};
  return ostio__io_loop(io, is_write, &p, 0);
}

static int direct_move(ostio__io *io, int is_write, const ostio__io_preq *q)
{
  direct *d = io->be_state;
  if (!d || d->off || q->fd != d->base_fd || q->obj >= 0 || !(is_write ? d->wr : d->rd))
    return ostio__io_loop(io, is_write, q, 0);
  int64_t A = d->align, beg = q->off, end = q->off + q->len;
  int64_t mb = beg % A ? beg + (A - beg % A) : beg, me = end - end % A;
  if (mb >= me) return ostio__io_loop(io, is_write, q, 0); /* no aligned block inside */
  if (!d->bounce && posix_memalign((void **)&d->bounce, d->mem_align, d->cap) != 0) {
    d->bounce = NULL;
    d->off = 1; /* no memory for the bounce buffer: buffered from now on */
    fallback(io);
    return ostio__io_loop(io, is_write, q, 0);
  }
  int rc = buffered(io, is_write, q, beg, mb); /* head */
  if (rc < 0) return rc;
  int64_t pos = mb;
  while (pos < me) {
    size_t done = (size_t)(pos - beg);
    size_t ask = (size_t)(me - pos) < d->cap ? (size_t)(me - pos) : d->cap;
    ostio__io_call c;
    ostio__io_call_begin(io, is_write, q, done, ask, &c);
    if (c.fault == OSTIO__FAULT_ERRNO && c.err == EINVAL) { /* injected refusal */
      d->off = 1;
      fallback(io);
      return ostio__io_loop(io, is_write, q, done);
    }
    if (c.fault == OSTIO__FAULT_ERRNO) return ostio__io_fail_errno(io, is_write, q, done, c.err, 1);
    if (c.fault == OSTIO__FAULT_STUCK) return ostio__io_fail_stuck(io, is_write, q, done, 1);
    size_t n_ask = c.len / (size_t)A * (size_t)A; /* short: half, kept aligned */
    if (n_ask == 0) n_ask = (size_t)A;
    ssize_t n;
    if (is_write) {
      memcpy(d->bounce, q->buf + done, n_ask);
      n = pwrite(d->dfd, d->bounce, n_ask, (off_t)pos);
    } else {
      n = pread(d->dfd, d->bounce, n_ask, (off_t)pos);
      if (n > 0) memcpy(q->buf + done, d->bounce, (size_t)n);
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EINVAL) { /* refused at run time: this and later requests buffered */
        d->off = 1;
        fallback(io);
        return ostio__io_loop(io, is_write, q, done);
      }
      return ostio__io_fail_errno(io, is_write, q, done, errno, 0);
    }
    if (n == 0) {
      if (is_write) return ostio__io_fail_stuck(io, is_write, q, done, 0);
      memset(q->buf + done, 0, (size_t)(end - pos)); /* end of file: the rest reads as zeros */
      return 0;
    }
    if (io->stats) {
      ostio__stat_add(io->stats, is_write ? OSTIO__STAT_bytes_written : OSTIO__STAT_bytes_read, n);
      ostio__stat_add(io->stats, is_write ? OSTIO__STAT_direct_bytes_written
                                          : OSTIO__STAT_direct_bytes_read, n);
    }
    pos += n;
    /* A short transfer that leaves pos unaligned (end of file) ends the
     * direct part: the loop does the rest (zeros past the end). */
    if (pos % A) return ostio__io_loop(io, is_write, q, (size_t)(pos - beg));
  }
  return buffered(io, is_write, q, me, end); /* tail */
}

const ostio__io_backend ostio__io_backend_direct = {
  .version = OSTIO__IO_BACKEND_VERSION,
  .name = "direct",
  .move = direct_move,
  .fini = direct_fini,
};
