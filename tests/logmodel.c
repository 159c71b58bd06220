/* The model-based checker of log containers (logmodel.h says what it
 * checks): one random program per seed, applied to the container through
 * ostio_open and to an in-memory model. */
#include "logmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colltest.h"
#include "file/flatten.h"
#include "container/log/log.h"

#define F LM_SPAN
static int rank, nprocs;
static uint8_t model[F + 8192];
static int64_t msize;

static uint8_t val(int step, int r, int64_t off)
{
  return (uint8_t)((uint64_t)(off * 131 + step * 31 + r * 17) % 251 + 1);
}

static void fill(uint8_t *buf, int step, int r, int64_t off, int64_t len)
{
  for (int64_t k = 0; k < len; k++) buf[k] = val(step, r, off + k);
}

static void mwrite(int step, int r, int64_t off, int64_t len)
{
  fill(model + off, step, r, off, len);
  if (off + len > msize) msize = off + len;
}

/* Independent writes wait for the next collective call: then rank 0's
 * apply in program order, then rank 1's, ... (same epoch: higher writer
 * wins). */
typedef struct { int step, r; int64_t off, len; } iw;
static iw pend[4096];
static int npend;
void lm_flush(void)
{
  for (int r = 0; r < nprocs; r++)
    for (int i = 0; i < npend; i++)
      if (pend[i].r == r) mwrite(pend[i].step, r, pend[i].off, pend[i].len);
  npend = 0;
}

/* Disjoint random extents of one rank, in shuffled order. */
static size_t extents(tu_rng *g, ostio_extent *e, size_t max)
{
  size_t n = (size_t)tu_rng_range(g, 0, (int64_t)max);
  int64_t at = tu_rng_range(g, 0, F / 4);
  size_t k = 0;
  for (; k < n; k++) {
    int64_t len = tu_rng_range(g, 1, 6000);
    if (at + len > F) break;
    e[k] = (ostio_extent){at, len};
    at += len + tu_rng_range(g, 0, 20000);
  }
  for (size_t i = k; i > 1; i--) {
    size_t j = (size_t)tu_rng_range(g, 0, (int64_t)i - 1);
    ostio_extent t = e[i - 1];
    e[i - 1] = e[j];
    e[j] = t;
  }
  return k;
}

int lm_open(MPI_Comm comm, const char *path, int amode, const char *hints, ostio_file **fh)
{
  char spec[512];
  snprintf(spec, sizeof spec, "ostio_container=log %s", hints ? hints : "");
  MPI_Info info;
  if (ct_info(spec, &info) < 0) return OSTIO_EINVAL;
  int rc = ostio_open(comm, path, amode, info, fh);
  MPI_Info_free(&info);
  return rc;
}

void lm_init(int *rank_out, int *nprocs_out)
{
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  *rank_out = rank;
  *nprocs_out = nprocs;
  lm_reset();
}

void lm_reset(void)
{
  memset(model, 0, sizeof model);
  msize = 0;
  npend = 0;
}

int64_t lm_size(void) { return msize; }

/* One session of nsteps random steps on fh (every rank runs the same program). */
void lm_session(ostio_file *fh, uint64_t seed, int first_step, int nsteps, int indep)
{
  tu_rng g;
  tu_rng_seed(&g, seed);
  uint8_t *buf = ct_xmalloc(F);
  for (int s = first_step; s < first_step + nsteps; s++) {
    int kind = (int)tu_rng_range(&g, indep ? 0 : 5, 9);
    if (kind <= 4) { /* independent writes, overlapping anywhere */
      for (int r = 0; r < nprocs; r++) {
        int k = (int)tu_rng_range(&g, 0, 4);
        for (int i = 0; i < k; i++) {
          int64_t off = tu_rng_range(&g, 0, F - 1), len = tu_rng_range(&g, 1, 5000);
          if (off + len > F) len = F - off;
          pend[npend++] = (iw){s, r, off, len};
          if (r == rank) {
            fill(buf, s, r, off, len);
            CHECKF(ostio_write_at(fh, off, buf, (size_t)len) == 0, "%s", ostio_last_error());
          }
        }
      }
      if (npend > 4000) { /* keep the model's list short: a sync orders them */
        lm_flush();
        CHECK(ostio_sync(fh) == 0);
      }
    } else if (kind <= 7) { /* write_all: overlaps across ranks, higher rank wins */
      lm_flush();
      ostio_extent e[8], mine[8];
      size_t nmine = 0;
      for (int r = 0; r < nprocs; r++) {
        size_t n = extents(&g, e, 8);
        for (size_t i = 0; i < n; i++) mwrite(s, r, e[i].offset, e[i].length);
        if (r == rank) memcpy(mine, e, n * sizeof *e), nmine = n;
      }
      int64_t pos = 0;
      for (size_t i = 0; i < nmine; i++) {
        fill(buf + pos, s, rank, mine[i].offset, mine[i].length);
        pos += mine[i].length;
      }
      CHECKF(ostio_write_all(fh, mine, nmine, buf) == 0, "%s", ostio_last_error());
    } else if (kind == 8) {
      lm_flush();
      CHECK(ostio_sync(fh) == 0);
    } else {
      lm_flush();
      int c = (int)tu_rng_range(&g, 0, 2);
      int64_t L = c == 0 ? 0 : c == 1 ? msize / 2 : msize + tu_rng_range(&g, 1, 5000);
      if (L > F) L = F;
      if (L < msize) memset(model + L, 0, (size_t)(msize - L));
      msize = L;
      CHECKF(ostio_set_size(fh, L) == 0, "%s", ostio_last_error());
      int64_t got = -1;
      CHECK(ostio_get_size(fh, &got) == 0 && got == L);
    }
  }
  free(buf);
}

void lm_write_at(ostio_file *fh, int step, int r, int64_t off, int64_t len)
{
  pend[npend++] = (iw){step, r, off, len};
  if (r != rank) return;
  uint8_t *buf = ct_xmalloc((size_t)len);
  fill(buf, step, r, off, len);
  CHECKF(ostio_write_at(fh, off, buf, (size_t)len) == 0, "%s", ostio_last_error());
  free(buf);
}

void lm_blocks(ostio_file *fh, int step, int64_t base, int64_t block)
{
  lm_flush();
  for (int r = 0; r < nprocs; r++) mwrite(step, r, base + r * block, block);
  ostio_extent e = {base + rank * block, block};
  uint8_t *buf = ct_xmalloc((size_t)block);
  fill(buf, step, rank, e.offset, block);
  CHECKF(ostio_write_all(fh, &e, 1, buf) == 0, "%s", ostio_last_error());
  free(buf);
}

/* read_all of [0, msize + 100) in 4 KiB blocks, block i on rank i mod P of
 * comm, listed backwards; every rank also read_at's a random range. */
void lm_verify(ostio_file *fh, MPI_Comm comm, const char *what)
{
  int r, p;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &p);
  int64_t end = msize + 100, nb = (end + 4095) / 4096;
  ostio_extent *e = ct_xmalloc((size_t)(nb + 1) * sizeof *e);
  uint8_t *buf = ct_xmalloc((size_t)end + 4096);
  size_t n = 0;
  for (int64_t b = nb - 1; b >= 0; b--)
    if (b % p == r)
      e[n++] = (ostio_extent){b * 4096, b * 4096 + 4096 > end ? end - b * 4096 : 4096};
  CHECKF(ostio_read_all(fh, e, n, buf) == 0, "%s: %s", what, ostio_last_error());
  int64_t pos = 0, bad = -1;
  for (size_t i = 0; i < n && bad < 0; i++) {
    for (int64_t k = 0; k < e[i].length && bad < 0; k++)
      if (buf[pos + k] != (e[i].offset + k < msize ? model[e[i].offset + k] : 0))
        bad = e[i].offset + k;
    pos += e[i].length;
  }
  CHECKF(bad < 0, "%s: read_all byte %lld is %d, model %d", what, (long long)bad,
         bad >= 0 ? buf[0] : 0, bad >= 0 ? model[bad] : 0);
  int64_t off = (int64_t)(r * 7919) % (msize + 1), len = end - off;
  CHECK(ostio_read_at(fh, off, buf, (size_t)len) == 0);
  bad = -1;
  for (int64_t k = 0; k < len && bad < 0; k++)
    if (buf[k] != (off + k < msize ? model[off + k] : 0)) bad = off + k;
  CHECKF(bad < 0, "%s: read_at byte %lld", what, (long long)bad);
  int64_t size = -1;
  CHECKF(ostio_get_size(fh, &size) == 0 && size == msize, "%s: size %lld, model %lld", what,
         (long long)size, (long long)msize);
  free(e);
  free(buf);
}

void lm_serial_check(const char *path, const char *what)
{
  ostio__logdir *d = NULL;
  ostio__logmap m;
  ostio__logload st = {0};
  ostio__logres res = {0};
  ostio__logmap_init(&m);
  uint8_t *buf = ct_xmalloc(F + 8192);
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc == 0) rc = ostio__log_load_all(d, &m, &st);
  if (rc == 0) rc = ostio__log_read(d, &m, &res, 0, msize + 100, buf);
  CHECKF(rc == 0, "%s: %s", what, ostio_last_error());
  CHECKF(m.size == msize, "%s: size %lld, model %lld", what, (long long)m.size, (long long)msize);
  CHECKF(rc == 0 && !memcmp(buf, model, (size_t)msize + 100), "%s: bytes differ", what);
  ostio__logres_free(&res);
  ostio__logmap_free(&m);
  ostio__log_close(&d);
  free(buf);
}

void lm_test_random(const char *dir, uint64_t seed, const char *hints)
{
  char path[600], flat[600];
  snprintf(path, sizeof path, "%s/rand.log", dir);
  snprintf(flat, sizeof flat, "%s/rand.flat", dir);
  lm_reset();
  ostio_file *fh = NULL;
  /* Session 1 and 2 (the second opens the container again: a new session). */
  for (int sess = 0; sess < 2; sess++) {
    CHECKF(lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh) == 0, "%s",
           ostio_last_error());
    if (!fh) return;
    lm_session(fh, ct_mix(seed, (uint64_t)sess), sess * 100, 60, 1);
    lm_flush();
    CHECK(ostio_sync(fh) == 0);
    lm_verify(fh, MPI_COMM_WORLD, sess ? "session 2, same ranks" : "session 1, same ranks");
    CHECK(ostio_close(&fh) == 0);
  }
  /* The size record is clean with the model's size. */
  if (rank == 0) {
    ostio__sizerec rec = {.clean = 0, .size = -1};
    char rp[700];
    snprintf(rp, sizeof rp, "%s", path);
    ostio__logdir *d = NULL;
    CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__sizerec_read(d->dirfd, rp, &rec) == 0 &&
          rec.clean && rec.size == msize);
    ostio__log_close(&d);
  }
  /* Another rank count: all ranks but the last (rank 0 alone when P = 1, 2). */
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < (nprocs > 2 ? nprocs - 1 : 1), rank, &sub);
  if (rank < (nprocs > 2 ? nprocs - 1 : 1)) {
    CHECK(ostio_open(sub, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0);
    if (fh) lm_verify(fh, sub, "other rank count"), ostio_close(&fh);
  }
  MPI_Comm_free(&sub);
  if (rank == 0) lm_serial_check(path, "serial");
  /* Flatten (in parallel) equals the model. */
  CHECKF(ostio__flatten(MPI_COMM_WORLD, path, flat, MPI_INFO_NULL, 65536, NULL, NULL) == 0, "%s",
         ostio_last_error());
  if (rank == 0) {
    FILE *f = fopen(flat, "rb");
    uint8_t *buf = ct_xmalloc(F + 8192);
    size_t got = f ? fread(buf, 1, F + 8192, f) : 0;
    CHECKF(got == (size_t)msize && !memcmp(buf, model, got), "flatten: %zu bytes, model %lld",
           got, (long long)msize);
    if (f) fclose(f);
    free(buf);
    int64_t nrec = 0;
    CHECKF(ostio__log_compact(path, &nrec) == 0, "%s", ostio_last_error());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0);
  if (fh) lm_verify(fh, MPI_COMM_WORLD, "after compact"), ostio_close(&fh);
  /* A third session after compaction: new logs are read beside index.compact. */
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, hints, &fh) == 0);
  if (fh) {
    lm_session(fh, ct_mix(seed, 3), 300, 30, 1);
    lm_flush();
    CHECK(ostio_sync(fh) == 0);
    CHECK(ostio_close(&fh) == 0);
  }
  CHECK(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                   MPI_INFO_NULL, &fh) == 0);
  if (fh) lm_verify(fh, MPI_COMM_WORLD, "session 3 after compact"), CHECK(ostio_close(&fh) == 0);
  CHECK(access(path, F_OK) != 0); /* DELETE_ON_CLOSE removed the container */
  if (rank == 0) unlink(flat);
  MPI_Barrier(MPI_COMM_WORLD);
}

