/* One rank's page pool (cache/cache_pool.c, issue 17): dirty-range edge
 * cases, a reference model under random operations (seeded), exact memory
 * accounting through a counting allocator, allocation failures. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache_pool.h"
#include "ostio.h"
#include "testutil.h"

/* ---- a counting allocator that fails on demand ------------------------------ */

typedef struct acct {
  int64_t live;      /* bytes handed out and not released                     */
  int fail_in;       /* > 0: the fail_in-th next allocation fails             */
  int bad_release;   /* releases whose size differs from the allocation's     */
} acct;

#define HDR 16
static void *acct_alloc(void *ctx, size_t bytes)
{
  acct *a = ctx;
  if (a->fail_in > 0 && --a->fail_in == 0) return NULL;
  unsigned char *p = malloc(bytes + HDR);
  if (!p) return NULL;
  memcpy(p, &bytes, sizeof bytes);
  a->live += (int64_t)bytes;
  return p + HDR;
}

static void acct_release(void *ctx, void *q, size_t bytes)
{
  acct *a = ctx;
  unsigned char *p = (unsigned char *)q - HDR;
  size_t had;
  memcpy(&had, p, sizeof had);
  if (had != bytes) a->bad_release++;
  a->live -= (int64_t)had;
  free(p);
}

static ostio__cache_pool_info info_of(const ostio__cache_pool *pool)
{
  ostio__cache_pool_info i;
  ostio__cache_pool_info_get(pool, &i);
  return i;
}

/* ---- dirty ranges --------------------------------------------------------------- */

static int ranges_are(const ostio__cache_range *r, int n, const int64_t *want, int nwant)
{
  if (n != nwant) return 0;
  for (int i = 0; i < n; i++)
    if (r[i].start != want[2 * i] || r[i].end != want[2 * i + 1]) return 0;
  return 1;
}

static void ranges_edges(void)
{
  ostio__cache_range r[OSTIO__CACHE_DIRTY_MAX];
  int n = 0;
  CHECK(ostio__cache_ranges_add(r, &n, 4, 5, 5, 0) == 0 && n == 0);      /* empty */
  CHECK(ostio__cache_ranges_add(r, &n, 4, 10, 20, 0) == 0);
  CHECK(ostio__cache_ranges_add(r, &n, 4, 20, 25, 0) == 0);              /* adjacent after */
  CHECK(ranges_are(r, n, (int64_t[]){10, 25}, 1));
  CHECK(ostio__cache_ranges_add(r, &n, 4, 5, 10, 0) == 0);               /* adjacent before */
  CHECK(ranges_are(r, n, (int64_t[]){5, 25}, 1));
  CHECK(ostio__cache_ranges_add(r, &n, 4, 12, 14, 0) == 0);              /* inside */
  CHECK(ranges_are(r, n, (int64_t[]){5, 25}, 1));
  CHECK(ostio__cache_ranges_add(r, &n, 4, 30, 31, 0) == 0);
  CHECK(ostio__cache_ranges_add(r, &n, 4, 0, 2, 0) == 0);                /* first */
  CHECK(ostio__cache_ranges_add(r, &n, 4, 40, 50, 0) == 0);              /* last */
  CHECK(ranges_are(r, n, (int64_t[]){0, 2, 5, 25, 30, 31, 40, 50}, 4));
  /* Full (cap 4): a fifth range is refused on a page that is not full ... */
  CHECK(ostio__cache_ranges_add(r, &n, 4, 27, 28, 0) == OSTIO__CACHE_NEED_FILL);
  CHECK(ranges_are(r, n, (int64_t[]){0, 2, 5, 25, 30, 31, 40, 50}, 4));
  /* ... but one that merges is fine: bridging three ranges. */
  CHECK(ostio__cache_ranges_add(r, &n, 4, 20, 41, 0) == 0);
  CHECK(ranges_are(r, n, (int64_t[]){0, 2, 5, 50}, 2));
  CHECK(ostio__cache_ranges_add(r, &n, 4, 60, 61, 0) == 0 &&
        ostio__cache_ranges_add(r, &n, 4, 70, 71, 0) == 0);
  /* On a full page the two closest ranges join: with [53, 54) the gaps are
   * 3, 3, 6 and 9, and the first of the two closest pairs joins. */
  CHECK(ostio__cache_ranges_add(r, &n, 4, 53, 54, 1) == 0);
  CHECK(ranges_are(r, n, (int64_t[]){0, 50, 53, 54, 60, 61, 70, 71}, 4));
  CHECK(ostio__cache_ranges_add(r, &n, 4, 66, 67, 1) == 0); /* gaps 3, 6, 5, 3: 50..53 */
  CHECK(ranges_are(r, n, (int64_t[]){0, 54, 60, 61, 66, 67, 70, 71}, 4));
  /* Ties: the first pair joins. */
  n = 0;
  CHECK(ostio__cache_ranges_add(r, &n, 2, 0, 1, 1) == 0 && ostio__cache_ranges_add(r, &n, 2, 3, 4, 1) == 0);
  CHECK(ostio__cache_ranges_add(r, &n, 2, 6, 7, 1) == 0);
  CHECK(ranges_are(r, n, (int64_t[]){0, 4, 6, 7}, 2));
  CHECK(ostio__cache_ranges_add(r, &n, OSTIO__CACHE_DIRTY_MAX + 1, 8, 9, 1) == OSTIO_EINVAL);
}

/* ---- basic use -------------------------------------------------------------------- */

static void basics(void)
{
  acct a = {0};
  ostio__cache_alloc al = {acct_alloc, acct_release, &a};
  ostio__cache_pool *pool = NULL;
  CHECK(ostio__cache_pool_create(100, 0, &al, &pool) == OSTIO_EINVAL && !pool);
  CHECK(ostio__cache_pool_create(10, 32, &al, &pool) == OSTIO_EINVAL);
  CHECK(ostio__cache_pool_create(100, 32, &al, &pool) == 0 && info_of(pool).max_pages == 3);
  ostio__cache_page *p0, *p1, *p2, *px;
  CHECK(ostio__cache_pool_insert(pool, 7, &p0) == 0 && ostio__cache_pool_find(pool, 7) == p0);
  CHECK(ostio__cache_pool_insert(pool, 7, &px) == OSTIO_EEXIST);
  CHECK(ostio__cache_pool_insert(pool, -1, &px) == OSTIO_ERANGE);
  CHECK(ostio__cache_pool_insert(pool, INT64_MAX, &p1) == 0);
  CHECK(ostio__cache_pool_insert(pool, 0, &p2) == 0);
  CHECK(ostio__cache_pool_insert(pool, 3, &px) == OSTIO_ENOSPC);
  CHECK(ostio__cache_pool_find(pool, 3) == NULL);
  CHECK(ostio__cache_pool_victim(pool) == p0);
  ostio__cache_pool_touch(pool, p0);
  CHECK(ostio__cache_pool_victim(pool) == p1);
  ostio__cache_pool_pin(pool, p1);
  ostio__cache_pool_pin(pool, p1);
  CHECK(ostio__cache_pool_victim(pool) == p2 && info_of(pool).pinned == 1);
  CHECK(ostio__cache_pool_remove(pool, p1, 1) == OSTIO_EINVAL);
  ostio__cache_pool_unpin(pool, p1);
  CHECK(ostio__cache_pool_victim(pool) == p2);
  ostio__cache_pool_unpin(pool, p1); /* now most recently used */
  ostio__cache_pool_unpin(pool, p1); /* not pinned: nothing */
  CHECK(ostio__cache_pool_victim(pool) == p2 && info_of(pool).pinned == 0);
  CHECK(ostio__cache_pool_mark_dirty(pool, p2, 4, 8) == 0 && info_of(pool).dirty_bytes == 4);
  CHECK(ostio__cache_pool_mark_dirty(pool, p2, 8, 33) == OSTIO_EINVAL);
  CHECK(ostio__cache_pool_mark_dirty(pool, p2, 9, 8) == OSTIO_EINVAL);
  CHECK(ostio__cache_pool_remove(pool, p2, 0) == OSTIO_EINVAL && strstr(ostio_last_error(), "flush"));
  ostio__cache_pool_clean(pool, p2);
  CHECK(info_of(pool).dirty_bytes == 0 && info_of(pool).dirty_pages == 0);
  CHECK(ostio__cache_pool_remove(pool, p2, 0) == 0 && ostio__cache_pool_find(pool, 0) == NULL);
  CHECK(ostio__cache_pool_victim(pool) == p0);
  CHECK(ostio__cache_pool_insert(pool, 3, &px) == 0 && info_of(pool).memory == a.live);
  ostio__cache_pool_free(&pool);
  CHECK(!pool && a.live == 0 && a.bad_release == 0);
  ostio__cache_pool_free(&pool); /* NULL: nothing */
}

/* ---- the reference model -------------------------------------------------------------- */

#define MPAGE 24 /* room for more runs than OSTIO__CACHE_DIRTY_MAX */
#define MIDX 40
#define MMAX 12
typedef struct mpage {
  int present, pins, full;
  int64_t stamp;
  unsigned char dirty[MPAGE];
} mpage;

static int runs(const unsigned char *d, int64_t *st, int64_t *en)
{
  int n = 0;
  for (int b = 0; b < MPAGE; b++) {
    if (!d[b] || (b && d[b - 1])) continue;
    int e = b;
    while (e < MPAGE && d[e]) e++;
    st[n] = b;
    en[n++] = e;
  }
  return n;
}

/* The model's mark: the new bitmap, or -1 (refused) when it has more runs
 * than the cap on a page that is not full; else joins the closest gap. */
static long refused, joined; /* how often the model saw each case */
static int model_mark(mpage *m, int64_t s, int64_t e)
{
  unsigned char d[MPAGE];
  memcpy(d, m->dirty, sizeof d);
  for (int64_t b = s; b < e; b++) d[b] = 1;
  int64_t st[MPAGE], en[MPAGE];
  int n = runs(d, st, en);
  if (n > OSTIO__CACHE_DIRTY_MAX) {
    if (!m->full) return refused++, -1;
    joined++;
    int best = 0;
    for (int i = 1; i + 1 < n; i++)
      if (st[i + 1] - en[i] < st[best + 1] - en[best]) best = i;
    for (int64_t b = en[best]; b < st[best + 1]; b++) d[b] = 1;
  }
  memcpy(m->dirty, d, sizeof d);
  return 0;
}

static int model_dirty(const mpage *m)
{
  for (int b = 0; b < MPAGE; b++)
    if (m->dirty[b]) return 1;
  return 0;
}

static void check_against(const ostio__cache_pool *pool, const mpage *m, const acct *a)
{
  int64_t pages = 0, pinned = 0, dpages = 0, dbytes = 0, best = -1;
  for (int i = 0; i < MIDX; i++) {
    const ostio__cache_page *pg = ostio__cache_pool_find(pool, i);
    if (!CHECKF(!!pg == m[i].present, "page %d present %d", i, m[i].present)) return;
    if (!pg) continue;
    pages++;
    pinned += m[i].pins > 0;
    dpages += model_dirty(&m[i]);
    for (int b = 0; b < MPAGE; b++) dbytes += m[i].dirty[b];
    if (!m[i].pins && (best < 0 || m[i].stamp < m[best].stamp)) best = i;
    int64_t st[MPAGE], en[MPAGE];
    int n = runs(m[i].dirty, st, en);
    CHECK(pg->pins == m[i].pins && pg->ndirty == n);
    for (int k = 0; k < n && k < pg->ndirty; k++)
      CHECKF(pg->dirty[k].start == st[k] && pg->dirty[k].end == en[k], "page %d range %d", i, k);
  }
  const ostio__cache_page *v = ostio__cache_pool_victim(pool);
  CHECKF(best < 0 ? v == NULL : v && v->index == best, "victim %lld, model %lld",
         v ? (long long)v->index : -1LL, (long long)best);
  ostio__cache_pool_info in = info_of(pool);
  CHECK(in.pages == pages && in.pinned == pinned && in.dirty_pages == dpages &&
        in.dirty_bytes == dbytes);
  CHECK(in.memory == a->live);
}

static void check_dirty_order(const ostio__cache_pool *pool, const mpage *m, size_t cap)
{
  ostio__cache_page *out[8];
  int64_t after = -1;
  int i = 0;
  for (;;) {
    size_t n = ostio__cache_pool_dirty(pool, after, out, cap);
    for (size_t k = 0; k < n; k++) {
      while (i < MIDX && !(m[i].present && model_dirty(&m[i]))) i++;
      CHECKF(i < MIDX && out[k]->index == i, "dirty page %lld, model %d", (long long)out[k]->index, i);
      after = out[k]->index;
      i++;
    }
    if (n < cap) break;
  }
  while (i < MIDX && !(m[i].present && model_dirty(&m[i]))) i++;
  CHECK(i == MIDX);
}

static void model_run(uint64_t seed)
{
  tu_rng r;
  tu_rng_seed(&r, seed);
  acct a = {0};
  ostio__cache_alloc al = {acct_alloc, acct_release, &a};
  ostio__cache_pool *pool = NULL;
  CHECK(ostio__cache_pool_create(MPAGE * MMAX + 5, MPAGE, &al, &pool) == 0);
  mpage m[MIDX];
  memset(m, 0, sizeof m);
  int64_t now = 0, count = 0;
  for (int step = 0; step < 50000 && tu_failed == 0; step++) {
    int i = (int)tu_rng_range(&r, 0, MIDX - 1), op = (int)tu_rng_range(&r, 0, 24);
    if (op > 8) op = 5; /* marks are most of the traffic */
    ostio__cache_page *pg = ostio__cache_pool_find(pool, i);
    if (op == 0 || (op != 8 && !pg)) { /* insert */
      ostio__cache_page *np;
      int rc = ostio__cache_pool_insert(pool, i, &np);
      int want = m[i].present ? OSTIO_EEXIST : count == MMAX ? OSTIO_ENOSPC : 0;
      CHECKF(rc == want, "step %d insert %d: %d, want %d", step, i, rc, want);
      if (rc == 0) {
        m[i] = (mpage){.present = 1, .stamp = ++now};
        count++;
      }
    } else if (op == 1) {
      ostio__cache_pool_touch(pool, pg);
      if (!m[i].pins) m[i].stamp = ++now;
    } else if (op == 2) {
      ostio__cache_pool_pin(pool, pg);
      m[i].pins++;
    } else if (op == 3) {
      ostio__cache_pool_unpin(pool, pg);
      if (m[i].pins && --m[i].pins == 0) m[i].stamp = ++now;
    } else if (op == 4) {
      int discard = (int)tu_rng_range(&r, 0, 1);
      int want = m[i].pins || (model_dirty(&m[i]) && !discard) ? OSTIO_EINVAL : 0;
      CHECK(ostio__cache_pool_remove(pool, pg, discard) == want);
      if (!want) {
        memset(&m[i], 0, sizeof m[i]);
        count--;
      }
    } else if (op == 5 || op == 6) {
      /* Mostly single even bytes, so pages reach more runs than the cap. */
      int64_t s = tu_rng_range(&r, 0, 3) ? 2 * tu_rng_range(&r, 0, MPAGE / 2 - 1)
                                         : tu_rng_range(&r, 0, MPAGE);
      int64_t e = s + (tu_rng_range(&r, 0, 7) ? 1 : tu_rng_range(&r, 0, 4));
      if (e > MPAGE) e = MPAGE;
      int rc = ostio__cache_pool_mark_dirty(pool, pg, s, e);
      int want = model_mark(&m[i], s, e) < 0 ? OSTIO__CACHE_NEED_FILL : 0;
      CHECKF(rc == want, "step %d mark %d [%lld, %lld): %d, want %d", step, i, (long long)s,
             (long long)e, rc, want);
    } else if (op == 7) {
      if (tu_rng_range(&r, 0, 3) == 0) {
        ostio__cache_pool_clean(pool, pg);
        memset(m[i].dirty, 0, sizeof m[i].dirty);
      } else {
        pg->full = m[i].full = 1;
      }
    } else { /* evict the victim as a cache would: clean it, drop it */
      ostio__cache_page *v = ostio__cache_pool_victim(pool);
      if (v) {
        int vi = (int)v->index;
        ostio__cache_pool_clean(pool, v);
        CHECK(ostio__cache_pool_remove(pool, v, 0) == 0);
        memset(&m[vi], 0, sizeof m[vi]);
        count--;
      }
    }
    check_against(pool, m, &a);
    if (step % 97 == 0) check_dirty_order(pool, m, (size_t)tu_rng_range(&r, 1, 8));
  }
  ostio__cache_pool_free(&pool);
  CHECK(a.live == 0 && a.bad_release == 0);
  printf("model: %ld marks refused (page not full), %ld joined two ranges\n", refused, joined);
  CHECK(refused > 0 && joined > 0);
}

/* ---- memory: exact, and within 10 % of the capacity at real page sizes ------------- */

static void memory_bound(void)
{
  static const int64_t pages[] = {4096, 65536, 1 << 20};
  for (size_t k = 0; k < sizeof pages / sizeof pages[0]; k++) {
    acct a = {0};
    ostio__cache_alloc al = {acct_alloc, acct_release, &a};
    ostio__cache_pool *pool = NULL;
    const int64_t cap = 64 << 20;
    if (!CHECK(ostio__cache_pool_create(cap, pages[k], &al, &pool) == 0)) continue;
    ostio__cache_page *pg;
    int64_t i = 0;
    while (ostio__cache_pool_insert(pool, i * 7919, &pg) == 0) i++;
    ostio__cache_pool_info in = info_of(pool);
    CHECK(i == cap / pages[k] && in.pages == i && in.memory == a.live);
    printf("page %lld: %lld pages, %lld bytes for %lld of pages (+%.2f %%)\n",
           (long long)pages[k], (long long)i, (long long)in.memory, (long long)cap,
           100.0 * (double)(in.memory - cap) / (double)cap);
    CHECK(in.memory <= cap + cap / 10);
    ostio__cache_pool_free(&pool);
    CHECK(a.live == 0);
  }
}

/* ---- allocation failures leave the pool as it was ----------------------------------- */

static void enomem(void)
{
  acct a = {0};
  ostio__cache_alloc al = {acct_alloc, acct_release, &a};
  ostio__cache_pool *pool = NULL;
  a.fail_in = 1; /* the pool itself */
  CHECK(ostio__cache_pool_create(1 << 20, 64, &al, &pool) == OSTIO_ENOMEM && !pool && !a.live);
  a.fail_in = 2; /* its table */
  CHECK(ostio__cache_pool_create(1 << 20, 64, &al, &pool) == OSTIO_ENOMEM && !pool && !a.live);
  CHECK(ostio__cache_pool_create(1 << 20, 64, &al, &pool) == 0);
  ostio__cache_page *pg;
  for (int i = 0; i < 16; i++) CHECK(ostio__cache_pool_insert(pool, i, &pg) == 0);
  ostio__cache_pool_info before = info_of(pool);
  int64_t live = a.live;
  a.fail_in = 1; /* the page */
  CHECK(ostio__cache_pool_insert(pool, 16, &pg) == OSTIO_ENOMEM);
  ostio__cache_pool_info after = info_of(pool);
  CHECK(!memcmp(&before, &after, sizeof before) && a.live == live);
  a.fail_in = 2; /* the page is allocated, the larger table is not */
  CHECK(ostio__cache_pool_insert(pool, 16, &pg) == OSTIO_ENOMEM && a.live == live);
  after = info_of(pool);
  CHECK(!memcmp(&before, &after, sizeof before) && !ostio__cache_pool_find(pool, 16));
  for (int i = 0; i < 16; i++) CHECK(ostio__cache_pool_find(pool, i) != NULL);
  CHECK(ostio__cache_pool_insert(pool, 16, &pg) == 0 && info_of(pool).memory == a.live);
  for (int i = 0; i <= 16; i++) CHECK(ostio__cache_pool_find(pool, i)->index == i);
  ostio__cache_pool_free(&pool);
  CHECK(a.live == 0 && a.bad_release == 0);
}

int main(void)
{
  uint64_t seed = tu_seed(1717);
  ranges_edges();
  basics();
  model_run(seed);
  memory_bound();
  enomem();
  return TEST_DONE();
}
