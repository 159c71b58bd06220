/* The grow-only scratch block (core/scratch.h): a block that is big enough
 * is handed back as it is, a bigger request at least doubles it, it never
 * shrinks, blocks of a page or more are page-aligned, n == 0 gives a
 * usable pointer, an overflowing n * size fails without keeping memory,
 * and free empties it (twice is harmless). */
#include <stdint.h>
#include <string.h>

#include "core/scratch.h"
#include "testutil.h"

int main(void)
{
  ostio__scratch s = {0};

  /* n == 0: a valid block of at least 1 byte. */
  void *p = ostio__scratch_get(&s, 0, 8);
  CHECK(p != NULL && s.p == p && s.cap >= 1);

  CHECK((uintptr_t)p % (2 * sizeof(void *)) == 0);

  /* Fits: the same block, the same size. */
  size_t cap = s.cap;
  CHECK(ostio__scratch_get(&s, 0, 0) == p && s.cap == cap);

  /* Grows to what is asked, then geometrically; page-aligned from a page
   * up (malloc would put a mapped block 16 bytes past a page boundary). */
  char *a = ostio__scratch_get(&s, 1000, 8);
  CHECK(a != NULL && s.cap >= 8000 && (uintptr_t)a % OSTIO__SCRATCH_PAGE == 0);
  memset(a, 0x5a, 8000); /* all of it is usable (ASan checks the bounds) */
  size_t old = s.cap;
  char *b = ostio__scratch_get(&s, old + 1, 1);
  CHECK(b != NULL && s.cap >= 2 * old && (uintptr_t)b % OSTIO__SCRATCH_PAGE == 0);
  memset(b, 0xa5, old + 1);

  /* Never shrinks: a smaller call gets the same block, contents as left. */
  cap = s.cap;
  CHECK(ostio__scratch_get(&s, 10, 1) == b && s.cap == cap && (unsigned char)b[old] == 0xa5);
  CHECK(ostio__scratch_get(&s, cap, 1) == b && s.cap == cap);

  /* Many growing calls: O(log) reallocations (each at least doubles). */
  ostio__scratch g = {0};
  int grew = 0;
  size_t last = 0;
  for (size_t n = 1; n <= (size_t)1 << 20; n += 4096) {
    char *q = ostio__scratch_get(&g, n, 1);
    CHECK(q != NULL && (g.cap < OSTIO__SCRATCH_PAGE || (uintptr_t)q % OSTIO__SCRATCH_PAGE == 0));
    if (g.cap != last) grew++;
    CHECK(g.cap >= n && (last == 0 || g.cap == last || g.cap >= 2 * last));
    last = g.cap;
  }
  CHECKF(grew <= 22, "%d reallocations for 256 growing calls up to 1 MiB", grew);
  ostio__scratch_free(&g);

  /* n * size overflows size_t: NULL, and the old block is not kept (no
   * malloc is tried: a request this large would stop ASan). */
  CHECK(ostio__scratch_get(&s, SIZE_MAX / 2 + 1, 2) == NULL);
  CHECK(s.p == NULL && s.cap == 0);
  CHECK(ostio__scratch_get(&s, SIZE_MAX, SIZE_MAX) == NULL && s.p == NULL);

  /* Usable again after a failure. */
  CHECK(ostio__scratch_get(&s, 64, 1) != NULL && s.cap >= 64);

  /* grow keeps the first `keep` bytes across a replacement, page-aligned. */
  ostio__scratch k = {0};
  unsigned char *k1 = ostio__scratch_grow(&k, 100, 1, 0);
  CHECK(k1 != NULL && k.cap >= 100);
  for (int i = 0; i < 100; i++) k1[i] = (unsigned char)(i * 7 + 1);
  size_t kcap = k.cap;
  CHECK(ostio__scratch_grow(&k, 50, 1, 100) == k1 && k.cap == kcap); /* fits: same block */
  unsigned char *k2 = ostio__scratch_grow(&k, 3 * OSTIO__SCRATCH_PAGE, 1, 100);
  CHECK(k2 != NULL && k.cap >= 3 * OSTIO__SCRATCH_PAGE &&
        (uintptr_t)k2 % OSTIO__SCRATCH_PAGE == 0);
  int same = 1;
  for (int i = 0; i < 100; i++) same = same && k2[i] == (unsigned char)(i * 7 + 1);
  CHECKF(same, "ostio__scratch_grow lost the kept bytes");
  CHECK(ostio__scratch_grow(&k, SIZE_MAX, 2, 100) == NULL && k.p == NULL && k.cap == 0);
  ostio__scratch_free(&k);

  /* Free empties it; twice is harmless; an empty block can be freed. */
  CHECK(ostio__scratch_get(&s, 100, 4) != NULL);
  ostio__scratch_free(&s);
  CHECK(s.p == NULL && s.cap == 0);
  ostio__scratch_free(&s);
  ostio__scratch empty = {0};
  ostio__scratch_free(&empty);
  return TEST_DONE();
}
