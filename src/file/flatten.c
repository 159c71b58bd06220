/* Flatten: a container (or any file ostio opens) copied into a new plain
 * file through the collective API, so it runs in parallel under mpiexec.
 *
 * The cost is proportional to the data, not to the logical size (issue 13):
 * rank 0 asks the source's kind for its data extents (the extents hook,
 * src/file/kind.h: a striped container lists each object's data regions by
 * SEEK_DATA/SEEK_HOLE, mapped to logical offsets; a log container the
 * resolved map's segments that are not zeros; a plain file its
 * SEEK_DATA/SEEK_HOLE regions), broadcasts them, and the ranks copy only
 * those bytes in rounds (each rank at most `share` bytes and MAX_EXT
 * extents a round).
 * Blocks of zeros inside the data (64 KiB, aligned on logical offsets) are
 * not written either, so holes stay holes; the size is set at the end with
 * ostio_set_size (ftruncate). Collective over comm; every rank returns the
 * same code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file/flatten.h"
#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"
#include "file/kind.h"

#define ZERO_BLOCK 65536        /* zero blocks (logical alignment) are skipped  */
#define MAX_EXT ((size_t)1 << 16) /* extents per rank and round                */

/* ---- the data extents (rank 0) ------------------------------------------------- */

typedef struct {
  ostio_extent *e;
  size_t n, cap;
} extlist;

static int ext_add(extlist *l, int64_t off, int64_t len)
{
  if (len <= 0) return 0;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 256;
    ostio_extent *g = cap > SIZE_MAX / sizeof *g ? NULL : realloc(l->e, cap * sizeof *g);
    if (!g) return ostio__fail(OSTIO_ENOMEM, "flatten: out of memory for %zu data extents", cap);
    l->e = g;
    l->cap = cap;
  }
  l->e[l->n++] = (ostio_extent){off, len};
  return 0;
}

static int by_offset(const void *a, const void *b)
{
  const ostio_extent *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sorts, merges overlapping or adjacent extents and clips them to [0, size). */
static void ext_normalise(extlist *l, int64_t size)
{
  qsort(l->e, l->n, sizeof *l->e, by_offset);
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++) {
    int64_t off = l->e[i].offset, end = off + l->e[i].length;
    if (off >= size) break;
    if (end > size) end = size;
    if (k && off <= l->e[k - 1].offset + l->e[k - 1].length) {
      int64_t pend = l->e[k - 1].offset + l->e[k - 1].length;
      if (end > pend) l->e[k - 1].length = end - l->e[k - 1].offset;
    } else {
      l->e[k++] = (ostio_extent){off, end - off};
    }
  }
  l->n = k;
}

static int add_extent(void *arg, int64_t off, int64_t len)
{
  return ext_add(arg, off, len);
}

/* Rank 0: every data extent of the open source, sorted, merged, in
 * [0, size): its kind lists them (the extents hook); a kind that cannot is
 * copied whole. */
static int data_extents(ostio_file *in, const char *src, int64_t size, extlist *l)
{
  if (size <= 0) return 0;
  int rc = in->kind->extents ? in->kind->extents(src, size, add_extent, l)
                             : ext_add(l, 0, size);
  if (rc == 0) ext_normalise(l, size);
  return rc;
}

/* ---- what flatten refuses before opening anything ------------------------------- */

static const char *kind_of(mode_t m)
{
  return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* Rank 0, with stat/lstat only (a FIFO is never opened, so nothing blocks):
 * the source must be a directory (a container) or a regular file; OUT must
 * not exist. */
static int check_paths(const char *src, const char *dst)
{
  struct stat st;
  if (stat(src, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: %s; flatten copies a container or a "
                       "regular file", src, strerror(errno));
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
    return ostio__fail(OSTIO_EINVAL, "%s is %s: flatten copies a container (a directory) or "
                       "a regular file", src, kind_of(st.st_mode));
  if (lstat(dst, &st) == 0) {
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))
      return ostio__fail(OSTIO_EEXIST, "%s exists; flatten writes a new plain file: remove it "
                         "or choose another name", dst);
    return ostio__fail(OSTIO_EEXIST, "%s exists and is %s; flatten writes a new plain file: "
                       "choose another name", dst, kind_of(st.st_mode));
  }
  return 0;
}

/* ---- the copy ------------------------------------------------------------------- */

/* Info for the output: the caller's (layout hints) plus ostio_container=plain,
 * so OSTIO_HINTS asking for containers cannot turn the output into one. */
static int out_info(MPI_Info given, MPI_Info *out)
{
  int rc = given == MPI_INFO_NULL ? MPI_Info_create(out) : MPI_Info_dup(given, out);
  if (rc != MPI_SUCCESS) return ostio__fail(OSTIO_EMPI, "flatten: MPI_Info_create failed");
  MPI_Info_set(*out, "ostio_container", "plain");
  return 0;
}

/* Every rank: broadcasts rank 0's list (n then the pairs, in pieces whose
 * counts fit an int). */
static int bcast_extents(MPI_Comm comm, int rank, extlist *l)
{
  uint64_t n = l->n;
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm);
  int rc = 0;
  if (rank != 0) {
    l->n = 0;
    if (n && (n > SIZE_MAX / sizeof *l->e || !(l->e = malloc((size_t)n * sizeof *l->e))))
      rc = ostio__fail(OSTIO_ENOMEM, "flatten: no memory for %llu data extents",
                       (unsigned long long)n);
    else
      l->n = l->cap = (size_t)n;
  }
  if ((rc = ostio__agree(comm, rc)) < 0) return rc;
  for (uint64_t i = 0; i < n;) {
    uint64_t k = n - i < (1u << 26) ? n - i : (1u << 26);
    MPI_Bcast(&l->e[i], (int)(2 * k), MPI_INT64_T, 0, comm);
    i += k;
  }
  return 0;
}

/* Walks the extents from cursor (*ci, *cin: bytes of extent ci already
 * taken), taking at most maxb bytes and MAX_EXT extents into out (when not
 * NULL); returns how many, *bytes the bytes. */
static size_t take(const extlist *l, size_t *ci, int64_t *cin, int64_t maxb, ostio_extent *out,
                   int64_t *bytes)
{
  size_t k = 0;
  *bytes = 0;
  while (*ci < l->n && k < MAX_EXT && *bytes < maxb) {
    const ostio_extent *e = &l->e[*ci];
    int64_t len = e->length - *cin;
    if (len > maxb - *bytes) len = maxb - *bytes;
    if (out) out[k] = (ostio_extent){e->offset + *cin, len};
    k++;
    *bytes += len;
    *cin += len;
    if (*cin == e->length) (*ci)++, *cin = 0;
  }
  return k;
}

static int all_zero(const char *p, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

/* The parts of e[0..n) (bytes packed in buf, in order) that are not aligned
 * ZERO_BLOCK-sized blocks of zeros, into w (adjacent ones merged); buf is
 * compacted in place to match. Returns the count. */
static size_t drop_zeros(ostio_extent *e, size_t n, char *buf, ostio_extent *w)
{
  size_t k = 0;
  int64_t from = 0, to = 0; /* read and write positions in buf */
  for (size_t i = 0; i < n; i++) {
    int64_t off = e[i].offset, end = off + e[i].length;
    while (off < end) {
      int64_t room = ZERO_BLOCK - off % ZERO_BLOCK; /* to the next block boundary */
      int64_t lim = end - off <= room ? end : off + room;
      int64_t len = lim - off;
      if (!all_zero(buf + from, len)) {
        if (to != from) memmove(buf + to, buf + from, (size_t)len);
        if (k && w[k - 1].offset + w[k - 1].length == off) w[k - 1].length += len;
        else w[k++] = (ostio_extent){off, len};
        to += len;
      }
      from += len;
      off = lim;
    }
  }
  return k;
}

int ostio__flatten(MPI_Comm comm, const char *src, const char *dst, MPI_Info dst_info,
                   int64_t chunk, ostio__flatten_progress progress, void *arg)
{
  ostio_file *in = NULL, *out = NULL;
  MPI_Info info = MPI_INFO_NULL;
  int rank = 0, nprocs = 1, rc = 0;
  int64_t size = 0;
  char *buf = NULL;
  extlist l = {0};
  ostio_extent *mine = NULL, *wr = NULL;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  if (chunk <= 0) chunk = OSTIO__FLATTEN_CHUNK;
  if (rank == 0) rc = check_paths(src, dst);
  if ((rc = ostio__agree(comm, rc)) < 0) return rc;
  if ((rc = ostio_open(comm, src, MPI_MODE_RDONLY, MPI_INFO_NULL, &in)) < 0) return rc;
  rc = ostio_get_size(in, &size);
  if ((rc = ostio__agree(comm, rc)) < 0) goto done;
  MPI_Bcast(&size, 1, MPI_INT64_T, 0, comm);
  if (rank == 0) rc = data_extents(in, src, size, &l);
  if ((rc = ostio__agree(comm, rc)) < 0) goto done;
  if ((rc = bcast_extents(comm, rank, &l)) < 0) goto done;
  int64_t total = 0;
  for (size_t i = 0; i < l.n; i++) total += l.e[i].length;
  rc = out_info(dst_info, &info);
  if ((rc = ostio__agree(comm, rc)) < 0) goto done;
  rc = ostio_open(comm, dst, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, info, &out);
  if (rc == OSTIO_EEXIST)
    rc = ostio__fail(rc, "%s exists; flatten writes a new plain file: remove it or choose "
                     "another name", dst);
  if (rc < 0) goto done;
  /* Each rank's share of a round: a multiple of 64 KiB. The write list has
   * room for every non-zero block: an extent of len bytes spans at most
   * len / ZERO_BLOCK + 2 blocks, so at most share / ZERO_BLOCK + 2 * MAX_EXT. */
  int64_t share = (chunk + nprocs - 1) / nprocs;
  share = (share + 65535) / 65536 * 65536;
  size_t wcap = 2 * MAX_EXT + (size_t)(share / ZERO_BLOCK) + 2;
  buf = malloc((size_t)share);
  mine = malloc(MAX_EXT * sizeof *mine);
  wr = malloc(wcap * sizeof *wr);
  if (!buf || !mine || !wr)
    rc = ostio__fail(OSTIO_ENOMEM, "flatten: no memory for a %lld-byte buffer",
                     (long long)share);
  if ((rc = ostio__agree(comm, rc)) < 0) goto done;
  size_t ci = 0;
  int64_t cin = 0, done_bytes = 0;
  while (ci < l.n) {
    size_t n = 0;
    for (int r = 0; r < nprocs; r++) { /* every rank walks the same partition */
      int64_t b;
      size_t k = take(&l, &ci, &cin, share, r == rank ? mine : NULL, &b);
      if (r == rank) n = k;
      done_bytes += b;
    }
    if ((rc = ostio_read_all(in, mine, n, buf)) < 0) goto done;
    size_t nw = drop_zeros(mine, n, buf, wr); /* keep holes */
    if ((rc = ostio_write_all(out, wr, nw, buf)) < 0) goto done;
    if (progress && rank == 0) progress(done_bytes, total, arg);
  }
  rc = ostio_set_size(out, size);
done:
  free(buf);
  free(mine);
  free(wr);
  free(l.e);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  char keep[512] = "";
  if (rc < 0) snprintf(keep, sizeof keep, "%s", ostio_last_error());
  int created = out != NULL;
  int rc2 = out ? ostio_close(&out) : 0;
  int rc3 = in ? ostio_close(&in) : 0;
  /* A failed flatten leaves no partial output (OUT was created here, O_EXCL). */
  if ((rc < 0 || rc2 < 0 || rc3 < 0) && created) {
    if (rank == 0) unlink(dst);
    MPI_Barrier(comm); /* gone for every rank when the call returns */
  }
  if (rc < 0) ostio__set_detail(keep);
  return rc < 0 ? rc : rc2 < 0 ? rc2 : rc3;
}
