/* The decoder's block list: appending with merging, replicating with
 * checked arithmetic and the block limit (pure code). */
#include "mpiio/dtype_build.h"

#include <stdlib.h>

#include "core/error.h"

static int64_t max_blocks = OSTIO__DTYPE_MAX_BLOCKS;

int64_t ostio__dtype_set_max_blocks(int64_t max)
{
  int64_t old = max_blocks;
  max_blocks = max > 0 ? max : OSTIO__DTYPE_MAX_BLOCKS;
  return old;
}

int64_t ostio__dtype_max_blocks(void) { return max_blocks; }

void ostio__dtype_list_free(ostio__dtype_list *l)
{
  free(l->b);
  *l = (ostio__dtype_list){0};
}

static int too_many(const char *what, int64_t n)
{
  return ostio__fail(OSTIO_ERANGE,
                     "%s: the datatype flattens into more than %lld blocks (at least %lld); "
                     "refused",
                     what, (long long)max_blocks, (long long)n);
}

int ostio__dtype_push(ostio__dtype_list *l, int64_t off, int64_t len, const char *what)
{
  int64_t end;
  if (len == 0)
    return OSTIO_OK;
  if (__builtin_add_overflow(off, len, &end))
    return ostio__fail(OSTIO_ERANGE, "%s: block at %lld of %lld bytes overflows 64 bits", what,
                       (long long)off, (long long)len);
  if (l->n > 0 && l->b[l->n - 1].off + l->b[l->n - 1].len == off) {
    int64_t *last = &l->b[l->n - 1].len;
    if (__builtin_add_overflow(*last, len, last))
      return ostio__fail(OSTIO_ERANGE, "%s: block of %lld + %lld bytes overflows 64 bits", what,
                         (long long)*last, (long long)len);
    return OSTIO_OK;
  }
  if (l->n >= max_blocks)
    return too_many(what, l->n + 1);
  if (l->n == l->cap) {
    int64_t cap = l->cap ? l->cap * 2 : 16;
    if (cap > max_blocks)
      cap = max_blocks;
    ostio__dtype_block *b = realloc(l->b, (size_t)cap * sizeof *b);
    if (!b)
      return ostio__fail(OSTIO_ENOMEM, "%s: no memory for %lld blocks", what, (long long)cap);
    l->b = b;
    l->cap = cap;
  }
  l->b[l->n++] = (ostio__dtype_block){off, len};
  return OSTIO_OK;
}

int ostio__dtype_rep(ostio__dtype_list *out, const ostio__dtype_list *child, int64_t count,
                     int64_t stride, int64_t disp, const char *what)
{
  if (count < 0)
    return ostio__fail(OSTIO_EINVAL, "%s: negative count %lld", what, (long long)count);
  if (count == 0 || child->n == 0)
    return OSTIO_OK;
  const ostio__dtype_block *c = child->b;
  int64_t off, len;
  if (child->n == 1 && (count == 1 || stride == c[0].len)) {
    /* The copies touch: one block. */
    if (__builtin_mul_overflow(c[0].len, count, &len) || __builtin_add_overflow(disp, c[0].off, &off))
      return ostio__fail(OSTIO_ERANGE,
                         "%s: %lld copies of %lld bytes at %lld + %lld overflow 64 bits", what,
                         (long long)count, (long long)c[0].len, (long long)disp,
                         (long long)c[0].off);
    return ostio__dtype_push(out, off, len, what);
  }
  /* Each copy adds at least one block (n == 1, the copies do not touch) or
   * n - 1 (only a copy's first block can merge with the one before). */
  int64_t need;
  if (__builtin_mul_overflow(count, child->n == 1 ? 1 : child->n - 1, &need)
      || __builtin_add_overflow(need, out->n, &need) || need > max_blocks)
    return too_many(what, need < 0 ? INT64_MAX : need);
  /* The last copy's shift bounds every other one: check it once. */
  int64_t last;
  if (__builtin_mul_overflow(count - 1, stride, &last) || __builtin_add_overflow(last, disp, &last))
    return ostio__fail(OSTIO_ERANGE, "%s: %lld copies at stride %lld from %lld overflow 64 bits",
                       what, (long long)count, (long long)stride, (long long)disp);
  int64_t shift = disp;
  for (int64_t i = 0; i < count; i++, shift += i < count ? stride : 0) {
    for (int64_t j = 0; j < child->n; j++) {
      if (__builtin_add_overflow(shift, c[j].off, &off))
        return ostio__fail(OSTIO_ERANGE, "%s: copy %lld at %lld, block at %lld overflows 64 bits",
                           what, (long long)i, (long long)shift, (long long)c[j].off);
      int rc = ostio__dtype_push(out, off, c[j].len, what);
      if (rc)
        return rc;
    }
  }
  return OSTIO_OK;
}
