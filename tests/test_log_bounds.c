/* Issue 27: index records that claim more than their data logs hold.
 *
 *  - resolve against a byte model: random small maps with lost records
 *    (data log too short) among good ones and TRUNCs; a read fails exactly
 *    when a lost record wins a byte of the range, naming the first such byte,
 *    and otherwise gives the model's segments;
 *  - a forged record (valid CRC) with 2^40 pieces, or a huge stride or
 *    length, on disk: reading a range over it fails at once with the lost
 *    error, reading the other records' bytes works, and the map and extents
 *    hooks fail the same way; compact refuses. All with the address space
 *    capped at 1 GiB (the unbounded expansion needs terabytes).
 *  - compact of a clean container republishes the size record (check passes,
 *    the bytes read back unchanged). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/ctr_hooks.h"
#include "container/log/log.h"
#include "core/error.h"
#include "testutil.h"

static char dir[512];

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

/* ---- resolve against a byte model ---------------------------------------------- */

#define SPAN 400

/* Winner of each byte of [0, SPAN): entry index or -1 (never painted). */
static void model(const ostio__logent *e, size_t n, int *win)
{
  for (int b = 0; b < SPAN; b++) win[b] = -1;
  for (size_t k = 0; k < n; k++) { /* e is in key order */
    const ostio__logrec *r = &e[k].r;
    if (r->type == OSTIO__LOGREC_TRUNC) {
      for (int64_t b = r->lstart; b < SPAN; b++) win[b] = (int)k;
      continue;
    }
    for (int64_t i = 0; i < r->count; i++)
      for (int64_t b = r->lstart + i * r->lstride; b < r->lstart + i * r->lstride + r->length; b++)
        if (b < SPAN) win[b] = (int)k;
  }
}

static void test_resolve_model(tu_rng *rng)
{
  ostio__logent e[12];
  int win[SPAN];
  for (int round = 0; round < 3000; round++) {
    size_t n = (size_t)tu_rng_range(rng, 1, 10);
    for (size_t k = 0; k < n; k++) {
      ostio__logent *x = &e[k];
      memset(x, 0, sizeof *x);
      x->idx = k;
      x->r.seq = 1ull << 32 | 1;
      x->r.writer = (uint32_t)tu_rng_range(rng, 0, 2);
      if (tu_rng_range(rng, 0, 9) == 0) {
        x->r.type = OSTIO__LOGREC_TRUNC;
        x->r.lstart = tu_rng_range(rng, 0, SPAN);
        x->src = -1;
        continue;
      }
      x->r.type = OSTIO__LOGREC_WRITE;
      x->r.length = tu_rng_range(rng, 1, 40);
      x->r.count = tu_rng_range(rng, 1, 6);
      x->r.lstride = x->r.count > 1 ? x->r.length + tu_rng_range(rng, 0, 30) : 0;
      x->r.lstart = tu_rng_range(rng, 0, SPAN - 50);
      x->r.pstart = tu_rng_range(rng, 0, 1000);
      x->src = x->r.writer;
      x->lost = tu_rng_range(rng, 0, 3) == 0;
    }
    qsort(e, n, sizeof *e, ostio__logent_cmp);
    model(e, n, win);
    ostio__logmap m;
    ostio__logres res = {0};
    ostio__logmap_init(&m);
    CHECK(ostio__logmap_add(&m, e, n) == 0 && ostio__logmap_build(&m) == 0);
    int64_t lo = tu_rng_range(rng, 0, SPAN - 1), hi = tu_rng_range(rng, lo + 1, SPAN);
    int first_lost = -1;
    for (int64_t b = lo; b < hi && first_lost < 0; b++)
      if (win[b] >= 0 && m.e[win[b]].lost) first_lost = (int)b;
    int rc = ostio__logmap_resolve(&m, NULL, 0, lo, hi - lo, &res);
    if (first_lost >= 0) {
      char want[64];
      snprintf(want, sizeof want, "logical bytes [%d, ", first_lost);
      CHECKF(rc == OSTIO_EFORMAT && has(want), "round %d [%lld, %lld): rc %d, want %s: %s",
             round, (long long)lo, (long long)hi, rc, want, ostio_last_error());
    } else {
      CHECKF(rc == 0, "round %d: rc %d: %s", round, rc, ostio_last_error());
      int ok = 1;
      int64_t at = lo;
      for (size_t s = 0; rc == 0 && s < res.nseg; s++) {
        const ostio__logseg *g = &res.seg[s];
        ok &= g->off == at;
        for (int64_t b = g->off; b < g->off + g->len && ok; b++) {
          int w = win[b];
          const ostio__logrec *r = w >= 0 ? &m.e[w].r : NULL;
          if (!r || r->type == OSTIO__LOGREC_TRUNC) {
            ok &= g->src == -1;
            continue;
          }
          int64_t i = r->count > 1 ? (b - r->lstart) / r->lstride : 0;
          ok &= g->src == m.e[w].src &&
                g->phys + (b - g->off) == r->pstart + i * r->length + (b - r->lstart - i * r->lstride);
        }
        at = g->off + g->len;
      }
      CHECKF(rc != 0 || (ok && at == hi), "round %d: segments differ from the model", round);
    }
    ostio__logres_free(&res);
    ostio__logmap_free(&m);
    ostio__clear_error();
  }
}

/* ---- forged records on disk ------------------------------------------------------ */

static int make(const char *path)
{
  ostio__ctr_params p = {.kind = &ostio__ctr_log, .hostdirs = 2};
  snprintf(p.requested, sizeof p.requested, "test");
  int created = 0;
  return ostio__ctr_create(path, &p, 1, &created);
}

/* Writer 0 of session 1: [0,100) 'a' and [1000,1200) 'b', then a forged
 * WRITE at [5000, ...) with the given shape, its CRC valid. */
static void forged(const char *path, int64_t stride, int64_t length, int64_t count)
{
  ostio__logdir *d = NULL;
  ostio__logw w;
  char buf[200];
  CHECK(make(path) == 0);
  CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__log_scan(d) == 0);
  if (!d) return;
  ostio__logw_init(&w, d, 1, 0, 1);
  memset(buf, 'a', 100);
  CHECK(ostio__logw_write(&w, 1ull << 32 | 1, 0, buf, 100) == 0);
  memset(buf, 'b', 200);
  CHECK(ostio__logw_write(&w, 1ull << 32 | 1, 1000, buf, 200) == 0);
  CHECK(ostio__logw_sync(&w) == 0 && w.nrec == 2);
  ostio__logw_close(&w);
  ostio__log_close(&d);
  ostio__logrec r = {.type = OSTIO__LOGREC_WRITE, .writer = 0, .seq = 1ull << 32 | 2,
                     .lstart = 5000, .lstride = stride, .length = length, .count = count};
  unsigned char b[OSTIO__LOGREC_SIZE];
  ostio__logrec_encode(&r, b);
  char p[1200];
  snprintf(p, sizeof p, "%s/hostdir.001/index.1.0", path);
  int fd = open(p, O_WRONLY | O_APPEND);
  CHECK(fd >= 0 && write(fd, b, sizeof b) == (ssize_t)sizeof b);
  if (fd >= 0) close(fd);
}

static int read_range(const char *path, int64_t off, int64_t len, char *buf)
{
  ostio__logdir *d = NULL;
  ostio__logres res = {0};
  ostio__logmap m;
  ostio__logload st = {0};
  ostio__logmap_init(&m);
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc == 0) rc = ostio__log_load_all(d, &m, &st);
  if (rc == 0) rc = ostio__log_read(d, &m, &res, off, len, buf);
  ostio__logres_free(&res);
  ostio__logmap_free(&m);
  ostio__log_close(&d);
  return rc;
}

static int no_extent(void *arg, int64_t off, int64_t len)
{
  (void)off, (void)len;
  ++*(int *)arg;
  return 0;
}

static void test_forged(void)
{
  static const int64_t shapes[][3] = {{1, 1, 1ll << 40}, {1 << 20, 4096, 1ll << 40},
                                      {1 << 29, 1, 1ll << 33}, {0, 1ll << 50, 1},
                                      {64, 64, 1ll << 50}};
  enum { BIG = 64 << 20 };
  char *big = malloc(BIG);
  CHECK(big != NULL);
  if (!big) return;
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    char path[600];
    snprintf(path, sizeof path, "%s/f%zu", dir, k);
    forged(path, shapes[k][0], shapes[k][1], shapes[k][2]);
    /* The good records read back. */
    memset(big, 'x', 1200);
    int rc = read_range(path, 0, 1200, big);
    CHECKF(rc == 0 && big[0] == 'a' && big[99] == 'a' && big[100] == 0 && big[999] == 0 &&
           big[1000] == 'b' && big[1199] == 'b', "shape %zu: rc %d %s", k, rc, ostio_last_error());
    /* 64 MiB over the forged record: one error, at once. */
    rc = read_range(path, 4000, BIG, big);
    CHECKF(rc == OSTIO_EFORMAT && has("logical bytes [5000, ") && has("are lost") &&
           has("writer 0, session 1") && has("data.1.0") && has("ostio container check"),
           "shape %zu: rc %d: %s", k, rc, ostio_last_error());
    /* The map and the extents flatten copies: the same error. */
    FILE *out = tmpfile();
    ostio__show o = {.out = out, .note = out};
    rc = ostio__log_hook_map(path, &o);
    CHECKF(rc == OSTIO_EFORMAT && has("logical bytes [5000, "), "shape %zu: map rc %d: %s", k,
           rc, ostio_last_error());
    if (out) fclose(out);
    int next = 0;
    rc = ostio__log_hook_extents(path, 5001, no_extent, &next);
    CHECKF(rc == OSTIO_EFORMAT && has("are lost"), "shape %zu: extents rc %d", k, rc);
    /* Compact would bake the damage into index.compact: refused. */
    int64_t n = 0;
    rc = ostio__log_compact(path, &n);
    CHECKF(rc == OSTIO_EFORMAT && has("record 2 points past the end") &&
           has("ostio container check"), "shape %zu: compact rc %d: %s", k, rc,
           ostio_last_error());
    ostio__clear_error();
  }
  free(big);
}

/* ---- compact of a clean container ------------------------------------------------- */

static int nproblems;
static void count(void *arg, const char *msg)
{
  (void)arg;
  nproblems++;
  fprintf(stderr, "  check: %s\n", msg);
}

static void test_compact_clean(void)
{
  char path[600], before[1200], after[1200];
  snprintf(path, sizeof path, "%s/clean", dir);
  forged(path, 0, 100, 1); /* a fourth record that fits: [5000, 5100) from bytes 0..100 */
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1); /* records the size clean */
  nproblems = 0;
  CHECK(ostio__ctr_check(path, count, NULL) == 0);
  CHECK(read_range(path, 0, 1200, before) == 0);
  int64_t n = 0;
  CHECK(ostio__log_compact(path, &n) == 0 && n == 3);
  nproblems = 0;
  int found = ostio__ctr_check(path, count, NULL);
  CHECKF(found == 0, "%d problems after compact", found);
  ostio__logdir *d = NULL;
  ostio__sizerec rec = {0};
  CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__log_scan(d) == 0 && d->compact);
  CHECK(d && ostio__sizerec_read(d->dirfd, path, &rec) == 0 && rec.clean && rec.size == 5100 &&
        ostio__log_rec_trusted(d, &rec));
  ostio__log_close(&d);
  CHECK(read_range(path, 0, 1200, after) == 0 && !memcmp(before, after, sizeof before));
}

/* Virtual size of this process in bytes (0 when unknown). */
static long long vm_size(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %lld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb * 1024;
}

int main(void)
{
  tu_rng rng;
  tu_rng_seed(&rng, tu_seed(27));
  if (tu_tmpdir(dir, sizeof dir, "logbounds") < 0) return 1;
  test_resolve_model(&rng);
  /* Every expansion is bounded by the data: 1 GiB of address space is plenty.
   * A sanitizer's shadow maps terabytes up front: there the cap cannot be set,
   * and the 64 MiB read's one error is what is checked. */
  struct rlimit lim = {1ull << 30, 1ull << 30};
  if (vm_size() < (1ll << 29)) CHECK(setrlimit(RLIMIT_AS, &lim) == 0);
  else fprintf(stderr, "test_log_bounds: %lld bytes mapped already (a sanitizer): no "
               "address-space cap\n", vm_size());
  test_forged();
  test_compact_clean();
  tu_rmtree(dir);
  return TEST_DONE();
}
