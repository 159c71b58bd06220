/* Walking the data bytes of count instances of a map (pure code). The
 * position is (instance, block, bytes into the block); one step produces one
 * piece, merged with the pieces that touch it. */
#include "mpiio/dtype.h"

#include "core/error.h"

int ostio__dtype_iter_init(ostio__dtype_iter *it, const ostio__dtype_map *map, int64_t base,
                           int64_t count, int64_t start, int64_t nbytes)
{
  *it = (ostio__dtype_iter){.map = map, .base = base};
  int64_t end;
  if (start < 0 || nbytes < 0 || __builtin_add_overflow(start, nbytes, &end))
    return ostio__fail(OSTIO_EINVAL, "datatype range: bytes [%lld, +%lld) are not a range",
                       (long long)start, (long long)nbytes);
  if (count >= 0) {
    int64_t total;
    /* More bytes than int64 can count cannot be asked for: saturate. */
    if (__builtin_mul_overflow(count, map->size, &total))
      total = INT64_MAX;
    if (end > total)
      return ostio__fail(OSTIO_EINVAL,
                         "datatype range: bytes [%lld, %lld) pass the end of %lld instances "
                         "of %lld bytes",
                         (long long)start, (long long)end, (long long)count,
                         (long long)map->size);
  }
  if (nbytes == 0)
    return OSTIO_OK;
  if (map->size == 0)
    return ostio__fail(OSTIO_EINVAL, "datatype range: %lld bytes asked of a type with no data",
                       (long long)nbytes);
  it->inst = start / map->size;
  int64_t rem = start % map->size;
  /* The block holding data byte rem: the last with pos <= rem. */
  int64_t lo = 0, hi = map->nblocks - 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (map->pos[mid] <= rem)
      lo = mid;
    else
      hi = mid - 1;
  }
  it->blk = lo;
  it->skip = rem - map->pos[lo];
  it->left = nbytes;
  return OSTIO_OK;
}

/* Address of the current position: base + inst * extent + off + skip. */
static int here(const ostio__dtype_iter *it, int64_t *addr)
{
  const ostio__dtype_map *m = it->map;
  int64_t a;
  if (__builtin_mul_overflow(it->inst, m->extent, &a) || __builtin_add_overflow(a, it->base, &a)
      || __builtin_add_overflow(a, m->blocks[it->blk].off, &a)
      || __builtin_add_overflow(a, it->skip, &a))
    return ostio__fail(OSTIO_ERANGE,
                       "datatype range: address of instance %lld (extent %lld) block %lld "
                       "from base %lld overflows 64 bits",
                       (long long)it->inst, (long long)m->extent, (long long)it->blk,
                       (long long)it->base);
  *addr = a;
  return OSTIO_OK;
}

int ostio__dtype_iter_next(ostio__dtype_iter *it, int64_t *off, int64_t *len)
{
  const ostio__dtype_map *m = it->map;
  if (it->left == 0)
    return 0;
  int64_t start = 0, end;
  int rc = here(it, &start);
  if (rc)
    return rc;
  if (m->nblocks == 1 && m->seam) {
    /* One block as long as the extent: every instance continues the last. */
    if (__builtin_add_overflow(start, it->left, &end))
      return ostio__fail(OSTIO_ERANGE, "datatype range: %lld bytes from %lld overflow 64 bits",
                         (long long)it->left, (long long)start);
    *off = start;
    *len = it->left;
    it->left = 0;
    return 1;
  }
  int64_t got = 0;
  for (;;) {
    int64_t room = m->blocks[it->blk].len - it->skip;
    int64_t take = room < it->left - got ? room : it->left - got;
    got += take;
    if (take < room) {
      it->skip += take; /* the range ends inside this block */
      break;
    }
    it->skip = 0;
    if (++it->blk == m->nblocks) {
      it->blk = 0;
      it->inst++;
    }
    if (got == it->left)
      break;
    /* Blocks of a map never touch inside an instance; only the seam can. */
    if (it->blk != 0 || !m->seam)
      break;
  }
  if (__builtin_add_overflow(start, got, &end))
    return ostio__fail(OSTIO_ERANGE, "datatype range: %lld bytes from %lld overflow 64 bits",
                       (long long)got, (long long)start);
  it->left -= got;
  *off = start;
  *len = got;
  return 1;
}

int64_t ostio__dtype_iter_fill(ostio__dtype_iter *it, ostio__dtype_block *out, int64_t cap)
{
  int64_t n = 0;
  while (n < cap) {
    int rc = ostio__dtype_iter_next(it, &out[n].off, &out[n].len);
    if (rc < 0)
      return rc;
    if (rc == 0)
      break;
    n++;
  }
  return n;
}
