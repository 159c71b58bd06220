/* Positions in a view (mfile.h): how many data bytes of the view's stream
 * lie before a file offset -- the inverse of the walk in view.c, for
 * MPI_SEEK_END and a read's end of file. Pure; O(log blocks). */
#include "mpiio/mfile.h"

#include "core/error.h"

int ostio__view_data_before(const ostio__view *v, int64_t off, int64_t *bytes)
{
  const ostio__dtype_map *m = v->ftype;
  *bytes = 0;
  if (off <= v->disp || m->size == 0) return 0; /* a zero-size filetype sees no byte */
  int64_t rel = off - v->disp;
  int64_t tile = rel / m->extent, r = rel % m->extent;
  /* tile whole tiles of m->size bytes each, then the blocks of tile `tile`
   * that start before r (view_check: non-negative, increasing blocks). */
  int64_t whole;
  if (__builtin_mul_overflow(tile, m->size, &whole))
    return ostio__fail(OSTIO_ERANGE, "view position overflows 64 bits at offset %lld",
                       (long long)off);
  int64_t lo = 0, hi = m->nblocks; /* first block with off >= r */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (m->blocks[mid].off < r) lo = mid + 1;
    else hi = mid;
  }
  int64_t part = 0;
  if (lo > 0) {
    const ostio__dtype_block *b = &m->blocks[lo - 1];
    int64_t in = r - b->off;
    part = m->pos[lo - 1] + (in < b->len ? in : b->len);
  }
  if (__builtin_add_overflow(whole, part, bytes))
    return ostio__fail(OSTIO_ERANGE, "view position overflows 64 bits at offset %lld",
                       (long long)off);
  return 0;
}
