/* System I/O of one open file: pread/pwrite loops, batches, statistics and
 * OSTIO_FAULT injection, and the "fd" and "objects" backends (backend.h).
 * Every system read or write call goes through ostio__io_call_begin, on the
 * loop path, the io_uring path and the O_DIRECT path alike, so NTH in
 * OSTIO_FAULT and the sys_* counters mean the same on all. time_io is added
 * in one place: run(). */
#include "io/io.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "io/backend.h"
#include "io/sieve.h"
#include "io/uring.h"

#define DETAIL_KEEP 512

/* ---- setup ------------------------------------------------------------- */

int ostio__io_init(ostio__io *io, int fd, int rank, const ostio_layout *layout,
                   ostio__stats *stats)
{
  memset(io, 0, sizeof *io);
  io->fd = fd;
  io->be = &ostio__io_backend_fd;
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
  if (io->be && io->be->fini) io->be->fini(io);
  io->be_state = NULL;
#ifdef OSTIO_HAVE_URING
  ostio__uring_free(io);
#endif
  io->uring = NULL;
  free(io->obj_used);
  io->obj_used = NULL;
  io->obj = NULL;
  ostio__scratch_free(&io->merged);
  ostio__scratch_free(&io->preq);
  ostio__io_sieve_free(io);
}

int ostio__io_set_objects(ostio__io *io, const ostio__io_objects *o)
{
  free(io->obj_used);
  io->obj_used = NULL;
  io->obj = NULL;
  if (io->be && io->be->fini) io->be->fini(io);
  io->be = &ostio__io_backend_fd;
  if (!o) return 0;
  if (o->n < 1 || o->stripe_size < 1 || !o->fd)
    return ostio__fail(OSTIO_EINVAL, "io: object table with %d objects and stripe size %lld; "
                       "expected at least 1 of each", (int)o->n, (long long)o->stripe_size);
  if (!(io->obj_used = calloc((size_t)o->n, 1)))
    return ostio__fail(OSTIO_ENOMEM, "io: out of memory for %d objects", (int)o->n);
  io->obj = o;
  io->be = &ostio__io_backend_objects;
  return 0;
}

/* The logical offset of object offset off in object obj. For an object
 * offset that came from a logical one (every request here) the result is
 * that offset, so it fits; anything larger saturates at 2^63-1 instead of
 * overflowing (the value only names places in error details). */
int64_t ostio__io_logical(const ostio__io *io, int32_t obj, int64_t off)
{
  if (obj < 0 || !io->obj || off < 0) return off;
  int64_t s = io->obj->stripe_size, row = off / s, n = io->obj->n;
  if (row > (INT64_MAX - obj) / n) return INT64_MAX;
  int64_t stripe = row * n + obj;
  if (stripe > (INT64_MAX - off % s) / s) return INT64_MAX;
  return stripe * s + off % s;
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
  if ((int64_t)len == c->stripe_size && c->stripe_size <= c->end - off)
    ostio__stat_add(io->stats, OSTIO__STAT_stripe_sized_writes, 1);
}

void ostio__io_call_begin(ostio__io *io, int is_write, const ostio__io_preq *q, size_t done,
                          size_t len, ostio__io_call *c)
{
  int64_t nth = is_write ? ++io->nwrites : ++io->nreads;
  const ostio__fault *f = &io->fault;
  c->fault = -1;
  c->err = 0;
  c->len = len;
  if (f->active && !f->on_shm && f->is_write == is_write && f->nth == nth &&
      (f->rank < 0 || f->rank == io->rank)) {
    c->fault = f->mode;
    c->err = f->err;
    if (f->mode == OSTIO__FAULT_SHORT) c->len = len / 2 ? len / 2 : len;
    if (io->stats) ostio__stat_add(io->stats, OSTIO__STAT_faults_injected, 1);
  }
  if (!io->stats) return;
  ostio__stat_add(io->stats, is_write ? OSTIO__STAT_sys_writes : OSTIO__STAT_sys_reads, 1);
  ostio__stat_hist(io->stats, is_write, (int64_t)c->len);
  if (is_write) count_stripes(io, ostio__io_logical(io, q->obj, q->off + (int64_t)done), c->len);
  if (q->obj >= 0 && io->obj_used && !(io->obj_used[q->obj] & (is_write ? 1 : 2))) {
    io->obj_used[q->obj] |= is_write ? 1 : 2;
    ostio__stat_add(io->stats, is_write ? OSTIO__STAT_objfiles_written
                                        : OSTIO__STAT_objfiles_read, 1);
  }
}

/* ---- errors -------------------------------------------------------------- */

static const char *advice(int err)
{
  switch (err) {
  case ENOSPC: case EDQUOT: return "free space on the file system or raise the quota";
  case EFBIG:
    return "the offset is past the largest file the file system allows (ext4: 16 TiB; in a "
           "striped container the limit applies to each object file); write at lower offsets "
           "or use a file system with larger files";
  case EROFS: case EACCES: case EPERM:
    return "check the file's permissions and that the file system is mounted read-write";
  case ENOMEM: return "the node is out of memory; use smaller buffers (cb_buffer_size)";
  default: return "check the file system's health (dmesg, lfs check servers) and retry";
  }
}

/* " (object NAME at object offset N)" for container requests, else "". */
static const char *where(const ostio__io *io, const ostio__io_preq *q, int64_t at, char *buf,
                         size_t cap)
{
  buf[0] = '\0';
  if (q->obj >= 0 && io->obj)
    snprintf(buf, cap, " (object %s at object offset %lld)",
             io->obj->name ? io->obj->name[q->obj] : "?", (long long)at);
  return buf;
}

int ostio__io_fail_errno(const ostio__io *io, int is_write, const ostio__io_preq *q,
                         size_t done, int err, int injected)
{
  char w[128];
  int64_t at = q->off + (int64_t)done;
  return ostio__fail(ostio__from_errno(err),
                     "%s %lld bytes at offset %lld failed at offset %lld%s: %s (errno %d)%s; %s",
                     is_write ? "writing" : "reading", (long long)q->len,
                     (long long)ostio__io_logical(io, q->obj, q->off),
                     (long long)ostio__io_logical(io, q->obj, at), where(io, q, at, w, sizeof w),
                     strerror(err), err, injected ? ", injected by OSTIO_FAULT" : "",
                     injected ? "unset OSTIO_FAULT to run without faults" : advice(err));
}

int ostio__io_fail_stuck(const ostio__io *io, int is_write, const ostio__io_preq *q,
                         size_t done, int injected)
{
  char w[128];
  int64_t at = q->off + (int64_t)done;
  return ostio__fail(OSTIO_EIO,
                     "%s %lld bytes at offset %lld: a %s call at offset %lld%s moved 0 bytes (no "
                     "progress)%s; %s", is_write ? "writing" : "reading", (long long)q->len,
                     (long long)ostio__io_logical(io, q->obj, q->off),
                     is_write ? "write" : "read", (long long)ostio__io_logical(io, q->obj, at),
                     where(io, q, at, w, sizeof w), injected ? ", injected by OSTIO_FAULT" : "",
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

int ostio__io_loop(ostio__io *io, int is_write, const ostio__io_preq *q, size_t done)
{
  size_t len = (size_t)q->len;
  char *buf = q->buf;
  while (done < len) {
    int64_t at = q->off + (int64_t)done;
    ostio__io_call c;
    ostio__io_call_begin(io, is_write, q, done, len - done, &c);
    if (c.fault == OSTIO__FAULT_ERRNO) return ostio__io_fail_errno(io, is_write, q, done, c.err, 1);
    if (c.fault == OSTIO__FAULT_STUCK) return ostio__io_fail_stuck(io, is_write, q, done, 1);
    ssize_t n = is_write ? pwrite(q->fd, buf + done, c.len, (off_t)at)
                         : pread(q->fd, buf + done, c.len, (off_t)at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ostio__io_fail_errno(io, is_write, q, done, errno, 0);
    }
    if (n == 0) {
      if (is_write) return ostio__io_fail_stuck(io, is_write, q, done, 0);
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

/* ---- routing to objects --------------------------------------------------- */

static int by_place(const void *a, const void *b)
{
  const ostio__io_preq *x = a, *y = b;
  if (x->obj != y->obj) return x->obj < y->obj ? -1 : 1;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* The objects backend's route: the system requests for n sorted,
 * non-overlapping logical requests, each cut at stripe boundaries, sorted by
 * (object, object offset) and parts adjacent in one object and in memory
 * merged. Without an object table (never, once set_objects chose this
 * backend) each request stays one request on io->fd. *out is io->preq. */
static int route_objects(ostio__io *io, int is_write, const ostio__io_req *r, size_t n,
                         ostio__io_preq **out, size_t *nout)
{
  const ostio__io_objects *o = io->obj;
  size_t cap = 0;
  *out = NULL;
  *nout = 0;
  for (size_t i = 0; i < n; i++) {
    size_t parts = 1;
    if (o) {
      int64_t first = r[i].off / o->stripe_size;
      int64_t last = (r[i].off + r[i].len - 1) / o->stripe_size;
      parts = (size_t)(last - first + 1);
    }
    if (parts > SIZE_MAX / sizeof **out - cap)
      return ostio__fail(OSTIO_ENOMEM, "batch: too many stripe pieces");
    cap += parts;
  }
  ostio__io_preq *p = ostio__scratch_get(&io->preq, cap, sizeof *p);
  if (!p)
    return ostio__fail(OSTIO_ENOMEM, "%s %zu requests: out of memory for %zu stripe pieces",
                       is_write ? "writing" : "reading", n, cap);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!o) {
      p[k++] = (ostio__io_preq){io->fd, -1, r[i].off, r[i].len, r[i].buf};
      continue;
    }
    /* off + len <= 2^63-1 (checked by the callers), and every value below
     * stays within [off, off + len]: the end of pos's stripe is computed as
     * pos + (bytes left in the stripe), never as (stripe + 1) * s, which
     * overflows in the last stripe below 2^63. The object offset
     * (stripe / n) * s + pos % s is at most pos. */
    int64_t s = o->stripe_size, pos = r[i].off, end = r[i].off + r[i].len;
    while (pos < end) {
      int64_t stripe = pos / s, room = s - pos % s;
      int64_t lim = end - pos <= room ? end : pos + room;
      int32_t obj = (int32_t)(stripe % o->n);
      p[k++] = (ostio__io_preq){o->fd[obj], obj, stripe / o->n * s + pos % s, lim - pos,
                                r[i].buf + (pos - r[i].off)};
      pos = lim;
    }
  }
  if (o && k > 1) {
    qsort(p, k, sizeof *p, by_place);
    size_t j = 0;
    for (size_t i = 0; i < k; i++) {
      ostio__io_preq *q = j ? &p[j - 1] : NULL;
      if (q && q->obj == p[i].obj && q->off + q->len == p[i].off && q->buf + q->len == p[i].buf)
        q->len += p[i].len;
      else
        p[j++] = p[i];
    }
    k = j;
  }
  *out = p;
  *nout = k;
  return 0;
}

/* ---- backends: fd and objects --------------------------------------------- */

int ostio__io_uring_batch(ostio__io *io, int is_write, const ostio__io_preq *q, size_t n,
                          int *used)
{
  *used = 0;
#ifdef OSTIO_HAVE_URING
  if (io->uring_use && io->uring_state >= 0 && n >= io->uring_min)
    return ostio__uring_batch(io, is_write, q, n, used); /* *used 0: no ring, loop */
#else
  (void)io; (void)is_write; (void)q; (void)n;
#endif
  return 0;
}

const ostio__io_backend ostio__io_backend_fd = {
  .version = OSTIO__IO_BACKEND_VERSION,
  .name = "fd",
  .batch = ostio__io_uring_batch,
};

const ostio__io_backend ostio__io_backend_objects = {
  .version = OSTIO__IO_BACKEND_VERSION,
  .name = "objects",
  .route = route_objects,
  .batch = ostio__io_uring_batch,
};

/* ---- the one path every request takes ------------------------------------- */

/* Moves k sorted, merged, non-empty logical requests through io's backend:
 * route, then the backend's batch or one move per system request; the first
 * failure is returned after every request was attempted. The only place
 * that adds to time_io. */
int ostio__io_move_all(ostio__io *io, int is_write, const ostio__io_preq *q, size_t nq)
{
  const ostio__io_backend *b = io->be ? io->be : &ostio__io_backend_fd;
  int used = 0, rc = 0;
  if (b->batch) rc = b->batch(io, is_write, q, nq, &used);
  if (used) return rc;
  char keep[DETAIL_KEEP];
  int first = 0;
  for (size_t i = 0; i < nq; i++)
    ostio__io_keep_first(b->move ? b->move(io, is_write, &q[i])
                                 : ostio__io_loop(io, is_write, &q[i], 0),
                         &first, keep, sizeof keep);
  if (first < 0) ostio__set_detail(keep);
  return first;
}

/* sv: sieve the reads (io/sieve.c), or NULL. */
static int run(ostio__io *io, int is_write, const ostio__io_req *m, size_t k,
               const ostio__io_sieve *sv)
{
  if (io->late_open) {
    int rc = io->late_open(io->late_arg);
    if (rc < 0) return rc;
    io->late_open = NULL;
  }
  const ostio__io_backend *b = io->be ? io->be : &ostio__io_backend_fd;
  double t0 = io->stats ? ostio__now() : 0;
  ostio__io_preq one, *q = &one;
  size_t nq = 1;
  int rc = 0;
  if (b->route) {
    if ((rc = b->route(io, is_write, m, k, &q, &nq)) < 0) goto done;
  } else if (k > 1) {
    if (!(q = ostio__scratch_get(&io->preq, k, sizeof *q))) {
      rc = ostio__fail(OSTIO_ENOMEM, "%s %zu requests: out of memory",
                       is_write ? "writing" : "reading", k);
      goto done;
    }
    nq = k;
  }
  if (!b->route)
    for (size_t i = 0; i < k; i++) q[i] = (ostio__io_preq){io->fd, -1, m[i].off, m[i].len, m[i].buf};
  if (sv && !is_write) rc = ostio__io_sieve_read(io, q, nq, sv);
  else rc = ostio__io_move_all(io, is_write, q, nq);
done:
  if (io->stats) io->stats->t[OSTIO__T_time_io] += ostio__now() - t0;
  return rc; /* q is &one or io->preq, kept for the next batch */
}

static int one(ostio__io *io, int is_write, char *buf, size_t len, int64_t off)
{
  int rc = check_range(is_write, len, off);
  if (rc < 0 || len == 0) return rc;
  ostio__io_req r = {off, (int64_t)len, buf};
  return run(io, is_write, &r, 1, NULL);
}

int ostio__io_pwrite(ostio__io *io, const void *buf, size_t len, int64_t off)
{
  return one(io, 1, (char *)(uintptr_t)buf, len, off);
}

int ostio__io_pread(ostio__io *io, void *buf, size_t len, int64_t off)
{
  return one(io, 0, buf, len, off);
}

/* ---- batches ------------------------------------------------------------- */

static int by_offset(const void *a, const void *b)
{
  const ostio__io_req *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorted copy of r without empty requests, adjacent ones (file range and
 * buffer) merged. *out is io->merged (NULL when *nout is 0). */
static int merge(ostio__io *io, int is_write, const ostio__io_req *r, size_t n,
                 ostio__io_req **out, size_t *nout)
{
  *out = NULL;
  *nout = 0;
  ostio__io_req *m = ostio__scratch_get(&io->merged, n, sizeof *m);
  if (!m)
    return ostio__fail(OSTIO_ENOMEM, "batch of %zu %s requests: out of memory for the sorted "
                       "copy", n, is_write ? "write" : "read");
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].len < 0 || r[i].off < 0 || r[i].len > INT64_MAX - r[i].off ||
        (r[i].len > 0 && !r[i].buf)) {
      return ostio__fail(OSTIO_EINVAL, "batch request %zu (offset %lld, length %lld, buffer %s): "
                         "expected offset >= 0, length >= 0, offset+length <= 2^63-1 and a "
                         "buffer", i, (long long)r[i].off, (long long)r[i].len,
                         r[i].buf ? "set" : "NULL");
    }
    if (r[i].len > 0) m[k++] = r[i];
  }
  /* the engine's extents come sorted (plan_local_in): no qsort then */
  size_t unsorted = 0;
  for (size_t i = 1; i < k && !unsorted; i++) unsorted = m[i - 1].off > m[i].off;
  if (unsorted) qsort(m, k, sizeof *m, by_offset);
  size_t j = 0;
  for (size_t i = 0; i < k; i++) {
    if (j > 0) {
      ostio__io_req *p = &m[j - 1];
      if (p->off + p->len > m[i].off) {
        int rc = ostio__fail(OSTIO_EINVAL, "batch requests at offset %lld (length %lld) and "
                             "offset %lld (length %lld) overlap; a batch takes non-overlapping "
                             "ranges", (long long)p->off, (long long)p->len,
                             (long long)m[i].off, (long long)m[i].len);
        return rc;
      }
      if (p->off + p->len == m[i].off && p->buf + p->len == m[i].buf) {
        p->len += m[i].len;
        continue;
      }
    }
    m[j++] = m[i];
  }
  *out = j ? m : NULL;
  *nout = j;
  return 0;
}

static int batch(ostio__io *io, int is_write, const ostio__io_req *r, size_t n,
                 const ostio__io_sieve *sv)
{
  ostio__io_req *m;
  size_t k;
  int rc = merge(io, is_write, r, n, &m, &k);
  if (rc < 0 || k == 0) return rc;
  return run(io, is_write, m, k, sv);
}

int ostio__io_write_batch(ostio__io *io, const ostio__io_req *r, size_t n)
{
  return batch(io, 1, r, n, NULL);
}

int ostio__io_read_batch(ostio__io *io, const ostio__io_req *r, size_t n)
{
  return batch(io, 0, r, n, NULL);
}

int ostio__io_read_batch_sieved(ostio__io *io, const ostio__io_req *r, size_t n,
                                const ostio__io_sieve *sv)
{
  return batch(io, 0, r, n, sv);
}
