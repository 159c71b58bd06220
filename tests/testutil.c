#include "testutil.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long tu_passed, tu_failed;

int tu_check(int ok, const char *expr, const char *file, int line, const char *msg)
{
  if (ok) {
    tu_passed++;
    return 1;
  }
  tu_failed++;
  if (tu_failed <= 50)
    fprintf(stderr, "FAIL %s:%d: %s%s%s\n", file, line, expr, msg ? " -- " : "",
            msg ? msg : "");
  return 0;
}

int tu_check_i64(int64_t a, int64_t b, const char *ea, const char *eb,
                 const char *file, int line)
{
  if (a == b) {
    tu_passed++;
    return 1;
  }
  tu_failed++;
  if (tu_failed <= 50)
    fprintf(stderr, "FAIL %s:%d: %s == %s (%lld != %lld)\n", file, line, ea, eb,
            (long long)a, (long long)b);
  return 0;
}

int tu_done(const char *name)
{
  const char *base = strrchr(name, '/');
  printf("%s: %ld passed, %ld failed\n", base ? base + 1 : name, tu_passed, tu_failed);
  return tu_failed ? 1 : 0;
}

void tu_rng_seed(tu_rng *r, uint64_t seed) { r->s = seed ? seed : 0x9E3779B97F4A7C15ull; }

uint64_t tu_rng_next(tu_rng *r)
{
  uint64_t x = r->s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

int64_t tu_rng_range(tu_rng *r, int64_t lo, int64_t hi)
{
  uint64_t span = (uint64_t)(hi - lo) + 1;
  if (span == 0) return (int64_t)tu_rng_next(r);
  return lo + (int64_t)(tu_rng_next(r) % span);
}

uint64_t tu_seed(uint64_t dflt)
{
  const char *e = getenv("OSTIO_TEST_SEED");
  uint64_t s = e && *e ? strtoull(e, NULL, 0) : dflt;
  printf("seed %llu (set OSTIO_TEST_SEED to reproduce)\n", (unsigned long long)s);
  return s;
}

int tu_tmpdir(char *buf, size_t cap, const char *tag)
{
  const char *base = getenv("TMPDIR");
  snprintf(buf, cap, "%s/ostio-%s-XXXXXX", base && *base ? base : "/tmp", tag);
  return mkdtemp(buf) ? 0 : -1;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb; (void)flag; (void)ftw;
  return remove(p);
}

int tu_rmtree(const char *path) { return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS); }
