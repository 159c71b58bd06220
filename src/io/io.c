/* System I/O of one open file: pread/pwrite loops, batches, statistics and
 * OSTIO_FAULT injection. Every system read or write call goes through
 * ostio__io_call_begin, on the loop path and on the io_uring path alike, so
 * NTH in OSTIO_FAULT and the sys_* counters mean the same on both. */
#include "io/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "io/uring.h"

#define DETAIL_KEEP 512

/* ---- setup ------------------------------------------------------------- */

int ostio__io_init(ostio__io *io, int fd, int rank, const ostio_layout *layout,
                   ostio__stats *stats)
{
  memset(io, 0, sizeof *io);
  io->fd = fd;
  io->rank = rank;
  io->layout = layout;
  io->stats = stats;
  io->fault.rank = -1;
  io->uring_min = OSTIO__URING_MIN_BATCH;
  io->uring_use = 0; /* off by default: see "Batches" in docs/io.md */

  const char *u = getenv("OSTIO_IO_URING");
  if (u && *u) {
    if (strcmp(u, "0") == 0) io->uring_use = 0;
    else if (strcmp(u, "1") == 0) io->uring_use = 1;
    else
      return ostio__fail(OSTIO_EINVAL,
                         "OSTIO_IO_URING=\"%s\": expected 1 (batches of %d or more requests "
                         "through io_uring when the kernel allows it) or 0 (one pwrite or "
                         "pread per request)", u, OSTIO__URING_MIN_BATCH);
  }
#ifndef OSTIO_HAVE_URING
  io->uring_state = -1;
#endif
  return ostio__fault_parse(getenv("OSTIO_FAULT"), &io->fault);
}

void ostio__io_fini(ostio__io *io)
{
#ifdef OSTIO_HAVE_URING
  ostio__uring_free(io);
#endif
  io->uring = NULL;
}

/* ---- one system call ----------------------------------------------------- */

/* Stripe counters for a write of len bytes at off (the absolute-offset rule
 * of docs/layout.md: stripe boundaries are multiples of the component's
 * stripe size). */
static void count_stripes(ostio__io *io, int64_t off, size_t len)
{
  const ostio_layout *l = io->layout;
  if (!l || l->ncomp < 1 || off >= l->comp[l->ncomp - 1].end) return;
  int ci = ostio__layout_component_at(l, off);
  if (ci < 0) return;
  const ostio__comp *c = &l->comp[ci];
  if (off % c->stripe_size != 0) return;
  ostio__stat_add(io->stats, OSTIO__STAT_stripe_aligned_writes, 1);
  if ((int64_t)len == c->stripe_size && off + c->stripe_size <= c->end)
    ostio__stat_add(io->stats, OSTIO__STAT_stripe_sized_writes, 1);
}

void ostio__io_call_begin(ostio__io *io, int is_write, int64_t off, size_t len,
                          ostio__io_call *c)
{
  int64_t nth = is_write ? ++io->nwrites : ++io->nreads;
  const ostio__fault *f = &io->fault;
  c->fault = -1;
  c->err = 0;
  c->len = len;
  if (f->active && f->is_write == is_write && f->nth == nth &&
      (f->rank < 0 || f->rank == io->rank)) {
    c->fault = f->mode;
    c->err = f->err;
    if (f->mode == OSTIO__FAULT_SHORT) c->len = len / 2 ? len / 2 : len;
    if (io->stats) ostio__stat_add(io->stats, OSTIO__STAT_faults_injected, 1);
  }
  if (!io->stats) return;
  ostio__stat_add(io->stats, is_write ? OSTIO__STAT_sys_writes : OSTIO__STAT_sys_reads, 1);
  if (is_write) count_stripes(io, off, c->len);
}

/* ---- errors -------------------------------------------------------------- */

static const char *advice(int err)
{
  switch (err) {
  case ENOSPC: case EDQUOT: return "free space on the file system or raise the quota";
  case EFBIG: return "the file reached the largest size the file system allows";
  case EROFS: case EACCES: case EPERM:
    return "check the file's permissions and that the file system is mounted read-write";
  case ENOMEM: return "the node is out of memory; use smaller buffers (cb_buffer_size)";
  default: return "check the file system's health (dmesg, lfs check servers) and retry";
  }
}

int ostio__io_fail_errno(int is_write, size_t len, int64_t off, int64_t at, int err,
                         int injected)
{
  return ostio__fail(ostio__from_errno(err),
                     "%s %zu bytes at offset %lld failed at offset %lld: %s (errno %d)%s; %s",
                     is_write ? "writing" : "reading", len, (long long)off, (long long)at,
                     strerror(err), err, injected ? ", injected by OSTIO_FAULT" : "",
                     injected ? "unset OSTIO_FAULT to run without faults" : advice(err));
}

int ostio__io_fail_stuck(int is_write, size_t len, int64_t off, int64_t at, int injected)
{
  return ostio__fail(OSTIO_EIO,
                     "%s %zu bytes at offset %lld: a %s call at offset %lld moved 0 bytes (no "
                     "progress)%s; %s", is_write ? "writing" : "reading", len, (long long)off,
                     is_write ? "write" : "read", (long long)at,
                     injected ? ", injected by OSTIO_FAULT" : "",
                     injected ? "unset OSTIO_FAULT to run without faults"
                              : "check free space and the file system's health, then retry");
}

void ostio__io_keep_first(int rc, int *first, char *keep, size_t cap)
{
  if (rc >= 0 || *first < 0) return;
  *first = rc;
  strncpy(keep, ostio_last_error(), cap - 1);
  keep[cap - 1] = '\0';
}

/* ---- the loops ----------------------------------------------------------- */

static int check_range(int is_write, size_t len, int64_t off)
{
  if (off < 0 || len > (size_t)INT64_MAX - (size_t)off)
    return ostio__fail(OSTIO_ERANGE,
                       "%s %zu bytes at offset %lld: expected offset >= 0 and offset+length "
                       "<= 2^63-1", is_write ? "writing" : "reading", len, (long long)off);
  return 0;
}

int ostio__io_loop(ostio__io *io, int is_write, char *buf, size_t len, int64_t off, size_t done)
{
  while (done < len) {
    int64_t at = off + (int64_t)done;
    ostio__io_call c;
    ostio__io_call_begin(io, is_write, at, len - done, &c);
    if (c.fault == OSTIO__FAULT_ERRNO)
      return ostio__io_fail_errno(is_write, len, off, at, c.err, 1);
    if (c.fault == OSTIO__FAULT_STUCK) return ostio__io_fail_stuck(is_write, len, off, at, 1);
    ssize_t n = is_write ? pwrite(io->fd, buf + done, c.len, (off_t)at)
                         : pread(io->fd, buf + done, c.len, (off_t)at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ostio__io_fail_errno(is_write, len, off, at, errno, 0);
    }
    if (n == 0) {
      if (is_write) return ostio__io_fail_stuck(is_write, len, off, at, 0);
      memset(buf + done, 0, len - done); /* end of file: the rest reads as zeros */
      break;
    }
    done += (size_t)n;
    if (io->stats)
      ostio__stat_add(io->stats, is_write ? OSTIO__STAT_bytes_written : OSTIO__STAT_bytes_read,
                      n);
  }
  return 0;
}

static void add_time(ostio__io *io, double t0)
{
  if (io->stats) io->stats->t[OSTIO__T_time_io] += ostio__now() - t0;
}

int ostio__io_pwrite(ostio__io *io, const void *buf, size_t len, int64_t off)
{
  int rc = check_range(1, len, off);
  if (rc < 0) return rc;
  double t0 = io->stats ? ostio__now() : 0;
  rc = ostio__io_loop(io, 1, (char *)(uintptr_t)buf, len, off, 0);
  add_time(io, t0);
  return rc;
}

int ostio__io_pread(ostio__io *io, void *buf, size_t len, int64_t off)
{
  int rc = check_range(0, len, off);
  if (rc < 0) return rc;
  double t0 = io->stats ? ostio__now() : 0;
  rc = ostio__io_loop(io, 0, buf, len, off, 0);
  add_time(io, t0);
  return rc;
}

/* ---- batches ------------------------------------------------------------- */

static int by_offset(const void *a, const void *b)
{
  const ostio__io_req *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorted copy of r without empty requests, adjacent ones (file range and
 * buffer) merged. *out is malloc'ed (NULL when *nout is 0). */
static int merge(int is_write, const ostio__io_req *r, size_t n, ostio__io_req **out,
                 size_t *nout)
{
  *out = NULL;
  *nout = 0;
  ostio__io_req *m = malloc((n ? n : 1) * sizeof *m);
  if (!m)
    return ostio__fail(OSTIO_ENOMEM, "batch of %zu %s requests: out of memory for the sorted "
                       "copy", n, is_write ? "write" : "read");
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].len < 0 || r[i].off < 0 || r[i].len > INT64_MAX - r[i].off ||
        (r[i].len > 0 && !r[i].buf)) {
      free(m);
      return ostio__fail(OSTIO_EINVAL, "batch request %zu (offset %lld, length %lld, buffer %s): "
                         "expected offset >= 0, length >= 0, offset+length <= 2^63-1 and a "
                         "buffer", i, (long long)r[i].off, (long long)r[i].len,
                         r[i].buf ? "set" : "NULL");
    }
    if (r[i].len > 0) m[k++] = r[i];
  }
  qsort(m, k, sizeof *m, by_offset);
  size_t j = 0;
  for (size_t i = 0; i < k; i++) {
    if (j > 0) {
      ostio__io_req *p = &m[j - 1];
      if (p->off + p->len > m[i].off) {
        int rc = ostio__fail(OSTIO_EINVAL, "batch requests at offset %lld (length %lld) and "
                             "offset %lld (length %lld) overlap; a batch takes non-overlapping "
                             "ranges", (long long)p->off, (long long)p->len,
                             (long long)m[i].off, (long long)m[i].len);
        free(m);
        return rc;
      }
      if (p->off + p->len == m[i].off && p->buf + p->len == m[i].buf) {
        p->len += m[i].len;
        continue;
      }
    }
    m[j++] = m[i];
  }
  if (j == 0) {
    free(m);
    m = NULL;
  }
  *out = m;
  *nout = j;
  return 0;
}

static int batch(ostio__io *io, int is_write, const ostio__io_req *r, size_t n)
{
  ostio__io_req *m;
  size_t k;
  int rc = merge(is_write, r, n, &m, &k);
  if (rc < 0 || k == 0) return rc;
  double t0 = io->stats ? ostio__now() : 0;
#ifdef OSTIO_HAVE_URING
  if (io->uring_use && io->uring_state >= 0 && k >= io->uring_min) {
    int used;
    rc = ostio__uring_batch(io, is_write, m, k, &used);
    if (used) goto done; /* else the ring could not be set up: use the loop */
  }
#endif
  char keep[DETAIL_KEEP];
  int first = 0;
  for (size_t i = 0; i < k; i++)
    ostio__io_keep_first(ostio__io_loop(io, is_write, m[i].buf, (size_t)m[i].len, m[i].off, 0),
                         &first, keep, sizeof keep);
  if (first < 0) ostio__set_detail(keep);
  rc = first;
#ifdef OSTIO_HAVE_URING
done:
#endif
  add_time(io, t0);
  free(m);
  return rc;
}

int ostio__io_write_batch(ostio__io *io, const ostio__io_req *r, size_t n)
{
  return batch(io, 1, r, n);
}

int ostio__io_read_batch(ostio__io *io, const ostio__io_req *r, size_t n)
{
  return batch(io, 0, r, n);
}
