#include "testutil.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/layout.h"

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

int tu_checkf(int ok, const char *expr, const char *file, int line, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  if (ok) return tu_check(1, expr, file, line, NULL);
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tu_check(0, expr, file, line, msg);
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

/* A random layout: 1-3 components, counts 1..160, sizes 4 KiB..64 MiB
 * (tiny sizes when small is set), sometimes overstriped. */
ostio_layout *tu_random_layout(tu_rng *r, int small)
{
  ostio_layout *l = ostio__layout_new();
  int ncomp = (int)tu_rng_range(r, 1, 3);
  int64_t start = 0;
  for (int i = 0; i < ncomp; i++) {
    ostio__comp c = {.start = start, .pattern = OSTIO_PATTERN_RAID0, .first_ost = -1};
    if (small) {
      c.stripe_size = tu_rng_range(r, 1, 16);
      c.stripe_count = (int32_t)tu_rng_range(r, 1, 5);
    } else {
      int64_t unit = tu_rng_range(r, 0, 3) == 0 ? 4096 : 65536;
      c.stripe_size = unit * tu_rng_range(r, 1, (64LL << 20) / unit);
      if (tu_rng_range(r, 0, 2) == 0) c.stripe_size = 4096LL << tu_rng_range(r, 0, 14);
      c.stripe_count = (int32_t)tu_rng_range(r, 1, 160);
    }
    int32_t *osts = malloc(sizeof(int32_t) * (size_t)c.stripe_count);
    int over = tu_rng_range(r, 0, 3) == 0;
    int32_t nost = over ? (int32_t)tu_rng_range(r, 1, c.stripe_count) : 0;
    int32_t first = (int32_t)tu_rng_range(r, 0, 100);
    for (int32_t k = 0; k < c.stripe_count; k++)
      osts[k] = over ? first + k % nost : first + k;
    if (over) c.pattern |= OSTIO_PATTERN_OVERSTRIPING;
    c.osts = osts;
    c.first_ost = first;
    c.instantiated = 1;
    if (i == ncomp - 1) {
      c.end = OSTIO_EOF;
    } else {
      int64_t span = small ? tu_rng_range(r, 1, 64) : c.stripe_size * tu_rng_range(r, 1, 8);
      c.end = start + span;
    }
    ostio__layout_add(l, &c);
    free(osts);
    start = c.end;
  }
  return l;
}


int tu_done_mpi(MPI_Comm comm, const char *prefix, const char *file)
{
  int rank = 0, status = 0;
  long bad = tu_failed, allbad = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, comm);
  if (rank == 0) {
    printf("%s", prefix);
    tu_failed = allbad;
    status = tu_done(file);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  return status;
}
