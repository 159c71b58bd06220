/* One data access of the interposer (mfile.h): the memory datatype walked
 * into a contiguous buffer (or used in place when it is one piece), the
 * view walked into file extents, then one ostio call -- ostio_write_all /
 * ostio_read_all for the collective forms, ostio_write_at per extent for the
 * independent writes, sieved ostio_read_at windows for the independent reads
 * (mpiio_sieve.c) -- and the byte count for the status.
 *
 * Errors: a collective access hands the outcome of its local checks to
 * ostio__file_coll_checked, which agrees on it before any byte moves -- in
 * the engine's first collective where the engine serves the file, so a
 * small collective access costs two MPI collectives, as ROMIO's -- and a
 * rank with a bad datatype makes every rank return the same error instead
 * of leaving the others in the collective; ostio's collective calls agree
 * on their own outcome. */
#include <stdlib.h>
#include <string.h>

#include "mpiio/mfile.h"

#include "core/access.h"
#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"

/* The call's file extents: a few in place (a contiguous view gives one),
 * more on the heap; hi is the end of the last byte named. */
#define EXT_INLINE 4
typedef struct {
  ostio_extent *e;
  size_t n, cap;
  int64_t hi;
  ostio_extent inl[EXT_INLINE];
} ext_list;

static int emit(void *arg, int64_t off, int64_t len)
{
  ext_list *l = arg;
  if (!l->e) l->e = l->inl, l->cap = EXT_INLINE;
  if (l->n == l->cap) {
    size_t cap = l->e == l->inl ? 64 : 2 * l->cap;
    ostio_extent *n = l->e == l->inl ? malloc(cap * sizeof *n) : realloc(l->e, cap * sizeof *n);
    if (!n) return ostio__fail(OSTIO_ENOMEM, "out of memory listing file extents");
    if (l->e == l->inl) memcpy(n, l->inl, sizeof l->inl);
    l->e = n, l->cap = cap;
  }
  l->e[l->n++] = (ostio_extent){off, len};
  if (off + len > l->hi) l->hi = off + len; /* the view checked: no overflow */
  return 0;
}

/* Copies between the typed memory buffer and a contiguous one. */
static int move_memory(const ostio__dtype_map *mm, void *buf, MPI_Count count, int64_t total,
                       char *flat, int to_flat)
{
  ostio__dtype_iter it;
  int rc = ostio__dtype_iter_init(&it, mm, (int64_t)(intptr_t)buf, count, 0, total);
  int64_t off, len, at = 0;
  while (rc == 0 && (rc = ostio__dtype_iter_next(&it, &off, &len)) == 1) {
    char *mem = (char *)(intptr_t)off;
    if (to_flat) memcpy(flat + at, mem, (size_t)len);
    else memcpy(mem, flat + at, (size_t)len);
    at += len;
    rc = 0;
  }
  return rc < 0 ? rc : 0;
}

/* The memory piece when the buffer's data is one contiguous run, else NULL. */
static char *contiguous(const ostio__dtype_map *mm, void *buf, MPI_Count count, int64_t total,
                        int *rc)
{
  ostio__dtype_iter it;
  int64_t off = 0, len = 0;
  /* One block as long as the extent (a named type, a contiguous one): the
   * count instances are one run from the first block, no walk needed. */
  if (mm->nblocks == 1 && mm->seam &&
      !__builtin_add_overflow((int64_t)(intptr_t)buf, mm->blocks[0].off, &off)) {
    *rc = 0;
    return (char *)(intptr_t)off; /* an overflow is left to the walk, which names it */
  }
  *rc = ostio__dtype_iter_init(&it, mm, (int64_t)(intptr_t)buf, count, 0, total);
  if (*rc < 0) return NULL;
  int r = ostio__dtype_iter_next(&it, &off, &len);
  if (r < 0) {
    *rc = r;
    return NULL;
  }
  return r == 1 && len == total ? (char *)(intptr_t)off : NULL;
}

static int check_args(ostio__mfile *mf, const ostio__mpiio_op *op, int64_t pos,
                      MPI_Count count, const ostio__dtype_map *mm, int64_t *total)
{
  int rc = ostio__check_access(mf->path, mf->fh->can_read, mf->fh->can_write, op->is_write,
                               NULL);
  if (rc < 0) return rc;
  if (count < 0)
    return ostio__fail(OSTIO_EINVAL, "count %lld is negative", (long long)count);
  if (pos < 0)
    return ostio__fail(OSTIO_EINVAL, "offset %lld (etypes) is negative", (long long)pos);
  if (__builtin_mul_overflow((int64_t)count, mm->size, total))
    return ostio__fail(OSTIO_ERANGE, "count %lld of a %lld-byte datatype overflows 64 bits",
                       (long long)count, (long long)mm->size);
  /* MPI: an access through a filetype of no data can move no byte; ROMIO
   * moves the bytes as through a byte view at disp (onto whatever lies
   * there), we refuse before any byte moves. */
  if (*total > 0 && mf->view.ftype->size == 0)
    return ostio__fail(OSTIO_EINVAL, "%lld bytes asked through a file view whose filetype "
                       "holds no data: only accesses of 0 bytes are valid there",
                       (long long)*total);
  if (*total % mf->view.etype_size != 0)
    return ostio__fail(OSTIO_EINVAL, "%lld bytes is not a whole number of etypes (%lld bytes "
                       "each): MPI accesses whole etypes", (long long)*total,
                       (long long)mf->view.etype_size);
  return 0;
}

/* Data bytes of [pos, pos + total) that lie before the end of the file.
 * All of them when the last byte lies below the size the handle knows the
 * file has at least (size_floor; not in atomic mode, where every rank's
 * change is visible at once): the file shrinks only by set_size, which
 * resets the floor, or by another process, whose change MPI makes visible
 * after a sync, which resets it too. Else the size is read (a system call
 * on a plain file) and becomes the floor. */
static int readable(ostio__mfile *mf, const ext_list *l, int64_t pos, int64_t total,
                    int64_t *avail)
{
  if (!mf->atomic && l->hi <= mf->size_floor) {
    *avail = total;
    return 0;
  }
  int64_t size = 0, before = 0, start;
  int rc = ostio_get_size(mf->fh, &size);
  if (rc == 0) mf->size_floor = size;
  if (rc == 0) rc = ostio__view_data_before(&mf->view, size, &before);
  if (rc < 0) return rc;
  if (__builtin_mul_overflow(pos, mf->view.etype_size, &start)) start = INT64_MAX;
  int64_t a = before > start ? before - start : 0;
  *avail = a < total ? a : total;
  return 0;
}

static int independent(ostio__mfile *mf, const ostio__mpiio_op *op, const ext_list *l,
                       char *data)
{
  int rc = 0;
  if (mf->atomic && (rc = ostio__mpiio_mutex_lock(mf)) < 0) return rc;
  int64_t at = 0;
  if (!op->is_write) rc = ostio__mpiio_sieve_read(mf, l->e, l->n, data);
  for (size_t i = 0; op->is_write && i < l->n && rc == 0; i++) {
    rc = ostio_write_at(mf->fh, l->e[i].offset, data + at, (size_t)l->e[i].length);
    at += l->e[i].length;
  }
  if (mf->atomic) {
    int rc2 = ostio__mpiio_mutex_unlock(mf);
    if (rc == 0) rc = rc2;
  }
  return rc;
}

int ostio__mpiio_access(ostio__mfile *mf, const ostio__mpiio_op *op, int64_t pos, void *buf,
                        MPI_Count count, MPI_Datatype dt, int64_t *nbytes)
{
  ostio__dtype_map *mm = NULL;
  ext_list l = {0};
  char *flat = NULL, *data = NULL;
  int64_t total = 0, avail = 0;
  *nbytes = 0;
  int rc = ostio__dtype_flatten(dt, &mm);
  if (rc == 0) rc = check_args(mf, op, pos, count, mm, &total);
  if (rc == 0 && total > 0) {
    data = contiguous(mm, buf, count, total, &rc);
    if (rc == 0 && !data) {
      data = flat = malloc((size_t)total);
      if (!flat) rc = ostio__fail(OSTIO_ENOMEM, "out of memory for a %lld-byte staging buffer",
                                  (long long)total);
      else if (op->is_write) rc = move_memory(mm, buf, count, total, flat, 1);
    }
  }
  if (rc == 0 && total > 0) rc = ostio__view_extents(&mf->view, pos, total, emit, &l);
  if (rc == 0 && !op->is_write && total > 0) rc = readable(mf, &l, pos, total, &avail);
  if (op->coll) {
    /* The local checks' outcome rides in the collective call's first
     * collective (one MPI call fewer than agreeing on it here). */
    rc = ostio__file_coll_checked(mf->fh, rc, op->is_write, l.e, l.n, data);
    /* ostio's collective calls refuse bytes named by two ranks (agreed on
     * every rank, before any byte moves); MPI allows it: every rank reads
     * the same header, or overlapping writes whose outcome MPI leaves open
     * (atomic mode: one whole write wins, the mutex sees to it). So each
     * rank does its own part independently and the outcome is agreed. */
    if (rc == OSTIO_EOVERLAP) rc = ostio__agree(mf->comm, independent(mf, op, &l, data));
  } else if (rc == 0 && total > 0) {
    rc = independent(mf, op, &l, data);
  }
  if (rc == 0 && flat && !op->is_write) rc = move_memory(mm, buf, count, total, flat, 0);
  if (rc == 0) *nbytes = op->is_write ? total : avail;
  if (rc == 0 && op->is_write && l.hi > mf->size_floor) mf->size_floor = l.hi;
  free(flat);
  if (l.e != l.inl) free(l.e);
  ostio__dtype_map_release(mm);
  return rc;
}

void ostio__mpiio_set_status(MPI_Status *st, int64_t nbytes)
{
  if (st == MPI_STATUS_IGNORE) return;
  MPI_Status_set_elements_x(st, MPI_BYTE, (MPI_Count)nbytes);
  MPI_Status_set_cancelled(st, 0);
}
