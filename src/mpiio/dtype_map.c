/* Building and owning a datatype map (pure code: no MPI call). */
#include "mpiio/dtype.h"

#include <stdlib.h>

#include "core/error.h"

int ostio__dtype_map_new(const ostio__dtype_block *in, int64_t n, int64_t lb, int64_t extent,
                         ostio__dtype_map **out)
{
  *out = NULL;
  if (n < 0)
    return ostio__fail(OSTIO_EINVAL, "datatype map: %lld blocks", (long long)n);
  /* Merge first (one pass) so the allocation has the final count. */
  int64_t kept = 0, prev_end = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t end;
    if (in[i].len < 0)
      return ostio__fail(OSTIO_EINVAL, "datatype map: block %lld has length %lld",
                         (long long)i, (long long)in[i].len);
    if (in[i].len == 0)
      continue;
    if (__builtin_add_overflow(in[i].off, in[i].len, &end))
      return ostio__fail(OSTIO_ERANGE, "datatype map: block %lld at %lld + %lld bytes overflows",
                         (long long)i, (long long)in[i].off, (long long)in[i].len);
    if (!(kept > 0 && in[i].off == prev_end))
      kept++;
    prev_end = end;
  }
  size_t bytes = sizeof(ostio__dtype_map) + (size_t)kept * sizeof(ostio__dtype_block)
                 + (size_t)(kept + 1) * sizeof(int64_t);
  ostio__dtype_map *m = malloc(bytes);
  if (!m)
    return ostio__fail(OSTIO_ENOMEM, "datatype map: no memory for %lld blocks", (long long)kept);
  ostio__dtype_block *b = (ostio__dtype_block *)(m + 1);
  int64_t *pos = (int64_t *)(b + kept);
  int64_t k = 0, size = 0, lo = 0, hi = 0;
  for (int64_t i = 0; i < n; i++) {
    if (in[i].len == 0)
      continue;
    if (k > 0 && b[k - 1].off + b[k - 1].len == in[i].off)
      b[k - 1].len += in[i].len; /* cannot overflow: the end was computed above */
    else
      b[k++] = in[i];
  }
  for (int64_t i = 0; i < k; i++) {
    pos[i] = size;
    if (__builtin_add_overflow(size, b[i].len, &size)) {
      free(m);
      return ostio__fail(OSTIO_ERANGE, "datatype map: data size overflows 64 bits at block %lld",
                         (long long)i);
    }
    int64_t end = b[i].off + b[i].len;
    if (i == 0 || b[i].off < lo)
      lo = b[i].off;
    if (i == 0 || end > hi)
      hi = end;
  }
  pos[k] = size;
  m->nblocks = k;
  m->blocks = b;
  m->pos = pos;
  m->size = size;
  m->lb = lb;
  m->extent = extent;
  m->true_lb = lo;
  if (__builtin_sub_overflow(hi, lo, &m->true_extent)) {
    free(m);
    return ostio__fail(OSTIO_ERANGE, "datatype map: data spans [%lld, %lld), over 64 bits",
                       (long long)lo, (long long)hi);
  }
  /* Instance k's last block ends at k*extent + end; k+1's first starts at
   * (k+1)*extent + first.off. Compared without overflow. */
  int64_t next_first;
  m->seam = k > 0 && !__builtin_add_overflow(extent, b[0].off, &next_first)
            && b[k - 1].off + b[k - 1].len == next_first;
  m->refs = 1;
  *out = m;
  return OSTIO_OK;
}

void ostio__dtype_map_retain(ostio__dtype_map *map)
{
  __atomic_add_fetch(&map->refs, 1, __ATOMIC_RELAXED);
}

void ostio__dtype_map_release(ostio__dtype_map *map)
{
  if (map && __atomic_sub_fetch(&map->refs, 1, __ATOMIC_ACQ_REL) == 0)
    free(map);
}
