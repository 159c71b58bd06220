/* Test data shared by the preload test programs: non-repeating bytes (the
 * byte at absolute offset off of stream seed), so an offset bug shows, and
 * a FNV-1a hash to print. */
#ifndef OSTIO_TESTS_PRELOAD_PL_GEN_H
#define OSTIO_TESTS_PRELOAD_PL_GEN_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t mix(uint64_t x)
{
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ULL;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dULL;
  x ^= x >> 33;
  return x;
}

static inline void gen(unsigned char *b, size_t n, unsigned seed, uint64_t off)
{
  for (size_t i = 0; i < n; i++) {
    uint64_t o = off + i;
    b[i] = (unsigned char)(mix((o >> 3) * 0x9e3779b97f4a7c15ULL + seed) >> ((o & 7) * 8));
  }
}

static inline uint64_t fnv(const unsigned char *b, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
  return h;
}

#endif
