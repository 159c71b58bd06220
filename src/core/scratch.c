/* See scratch.h. */
#include "core/scratch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* n bytes, page-aligned from a page up (scratch.h), or NULL. */
static void *block(size_t n)
{
  void *p = NULL;
  size_t align = n >= OSTIO__SCRATCH_PAGE ? OSTIO__SCRATCH_PAGE : 2 * sizeof(void *);
  return posix_memalign(&p, align, n) == 0 ? p : NULL;
}

void *ostio__scratch_get(ostio__scratch *s, size_t n, size_t size)
{
  if (size && n > SIZE_MAX / size) {
    ostio__scratch_free(s);
    return NULL;
  }
  size_t need = n * size;
  if (need == 0) need = 1;
  if (need <= s->cap) return s->p;
  /* Geometric: at least twice the old size, so a handle whose calls grow
   * step by step reallocates O(log) times; exactly need when doubling
   * would overflow or is refused. */
  size_t grown = s->cap <= SIZE_MAX / 2 ? 2 * s->cap : need;
  if (grown < need) grown = need;
  /* The old contents are not kept: free first, so the old and the new
   * block are never held together. */
  ostio__scratch_free(s);
  void *p = block(grown);
  if (!p && grown > need) p = block(grown = need);
  if (!p) return NULL;
  s->p = p;
  s->cap = grown;
  return p;
}

void *ostio__scratch_grow(ostio__scratch *s, size_t n, size_t size, size_t keep)
{
  if (size && n > SIZE_MAX / size) {
    ostio__scratch_free(s);
    return NULL;
  }
  size_t need = n * size;
  if (need == 0) need = 1;
  if (need <= s->cap) return s->p;
  ostio__scratch old = *s;
  *s = (ostio__scratch){0};
  size_t want = old.cap <= SIZE_MAX / 2 && 2 * old.cap > need ? 2 * old.cap : need;
  void *p = ostio__scratch_get(s, want, 1);
  if (!p && want > need) p = ostio__scratch_get(s, need, 1);
  if (p && old.p) memcpy(p, old.p, keep < old.cap ? keep : old.cap);
  free(old.p);
  return p;
}

void ostio__scratch_free(ostio__scratch *s)
{
  free(s->p);
  s->p = NULL;
  s->cap = 0;
}
