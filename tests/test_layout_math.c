/* Property tests of the stripe math over many random layouts. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/layout.h"
#include "testutil.h"

/* Splitting covers [off, off+len) exactly once, in order; every piece sits
 * in one stripe of one component and its fields agree with locate(). */
static void check_split(const ostio_layout *l, int64_t off, int64_t len)
{
  ostio__piece_iter it;
  ostio_piece p, q;
  int64_t pos = off;
  int rc;
  long n = 0;
  CHECK(ostio__piece_iter_init(&it, l, off, len) == 0);
  while ((rc = ostio__piece_iter_next(&it, &p)) == 1) {
    const ostio__comp *c = &l->comp[p.component];
    n++;
    if (!CHECKF(p.file_offset == pos, "piece %ld starts at %lld, expected %lld", n,
                (long long)p.file_offset, (long long)pos))
      return;
    CHECK(p.length > 0);
    CHECK(p.file_offset >= c->start && p.file_offset + p.length <= c->end);
    CHECK(p.file_offset / c->stripe_size == (p.file_offset + p.length - 1) / c->stripe_size);
    CHECK(p.stripe == p.file_offset / c->stripe_size);
    CHECK(p.object == (int32_t)(p.stripe % c->stripe_count));
    CHECK(p.ost == c->osts[p.object]);
    CHECK(ostio__layout_locate(l, p.file_offset + p.length - 1, &q) == 0);
    CHECK(q.component == p.component && q.object == p.object &&
          q.object_offset == p.object_offset + p.length - 1);
    pos += p.length;
  }
  CHECK(rc == 0);
  CHECK_EQ_I64(pos, off + len);
}

/* Grouping partitions the pieces of non-overlapping extents by object. */
static void check_group(const ostio_layout *l, tu_rng *r)
{
  int64_t offs[8], lens[8], total = 0, cursor = 0;
  size_t n = (size_t)tu_rng_range(r, 0, 8);
  for (size_t i = 0; i < n; i++) {
    offs[i] = cursor + tu_rng_range(r, 0, 3 * l->comp[0].stripe_size);
    lens[i] = tu_rng_range(r, 0, 5 * l->comp[0].stripe_size);
    cursor = offs[i] + lens[i];
    total += lens[i];
  }
  ostio_piece *pieces;
  size_t np, *groups, ng;
  if (!CHECK(ostio__layout_group(l, offs, lens, n, &pieces, &np, &groups, &ng) == 0)) return;
  int64_t sum = 0;
  CHECK(groups[0] == 0 && groups[ng] == np);
  for (size_t g = 0; g < ng; g++) {
    CHECK(groups[g] < groups[g + 1]);
    for (size_t i = groups[g]; i < groups[g + 1]; i++) {
      sum += pieces[i].length;
      CHECK(pieces[i].component == pieces[groups[g]].component &&
            pieces[i].object == pieces[groups[g]].object);
      if (i > groups[g]) CHECK(pieces[i - 1].file_offset + pieces[i - 1].length <= pieces[i].file_offset);
    }
    if (g) CHECK(pieces[groups[g - 1]].component != pieces[groups[g]].component ||
                 pieces[groups[g - 1]].object != pieces[groups[g]].object);
  }
  CHECK_EQ_I64(sum, total);
  free(pieces);
  free(groups);
}

/* Independent byte-by-byte model: walk the file one byte at a time, count
 * stripes, and hand each byte to the next free position of its object. */
static void check_naive(const ostio_layout *l)
{
  enum { N = 600 };
  for (int ci = 0; ci < l->ncomp; ci++) {
    const ostio__comp *c = &l->comp[ci];
    int64_t objpos[8] = {0};
    int64_t in_stripe = 0, stripe = 0;
    for (int64_t b = 0; b < N; b++) {
      int32_t obj = (int32_t)(stripe % c->stripe_count);
      if (b >= c->start && b < c->end) {
        ostio_piece p;
        CHECK(ostio__layout_locate(l, b, &p) == 0);
        if (!CHECKF(p.component == ci && p.object == obj && p.object_offset == objpos[obj],
                    "byte %lld: got comp %d obj %d objoff %lld, naive comp %d obj %d objoff %lld",
                    (long long)b, p.component, p.object, (long long)p.object_offset, ci, obj,
                    (long long)objpos[obj]))
          return;
      }
      objpos[obj]++;
      if (++in_stripe == c->stripe_size) { in_stripe = 0; stripe++; }
    }
  }
}

static void check_summary(const ostio_layout *l, int64_t off, int64_t len);

/* Gives some components object sets: object_size = stripe_size * 1..max_k
 * (0, unbounded, for the others). */
static void add_object_sets(ostio_layout *l, tu_rng *r, int64_t max_k)
{
  for (int i = 0; i < l->ncomp; i++)
    if (tu_rng_range(r, 0, 3) != 0) {
      int64_t k = tu_rng_range(r, 1, max_k);
      if (l->comp[i].stripe_size * k <= 0xFFFFFFFFll) l->comp[i].object_size = l->comp[i].stripe_size * k;
    }
}

/* Object sets checked against an independent model of Ceph's rule, walked
 * one byte at a time: stripe units go round-robin over the stripe_count
 * objects of the current set; when every object of the set holds
 * object_size bytes the next set starts. The model knows no division:
 * it keeps the current set, the column and how full each object is. */
static void check_naive_objsets(const ostio_layout *l)
{
  enum { N = 900 };
  for (int ci = 0; ci < l->ncomp; ci++) {
    const ostio__comp *c = &l->comp[ci];
    int64_t fill[8] = {0}, set = 0, in_unit = 0;
    int32_t col = 0;
    for (int64_t b = 0; b < N; b++) {
      int64_t want_obj = c->object_size ? set * c->stripe_count + col : col;
      if (b >= c->start && b < c->end) {
        ostio_piece p;
        int64_t objno = -1, objoff = -1;
        CHECK(ostio__layout_locate(l, b, &p) == 0);
        ostio__piece_object(l, &p, &objno, &objoff);
        if (!CHECKF(p.component == ci && p.object == col && objno == want_obj &&
                    objoff == fill[col], "byte %lld (su %lld sc %d os %lld): got column %d "
                    "object %lld offset %lld, naive column %d object %lld offset %lld",
                    (long long)b, (long long)c->stripe_size, c->stripe_count,
                    (long long)c->object_size, p.object, (long long)objno, (long long)objoff,
                    col, (long long)want_obj, (long long)fill[col]))
          return;
      }
      fill[col]++;
      if (++in_unit < c->stripe_size) continue;
      in_unit = 0;
      if (++col < c->stripe_count) continue;
      col = 0;
      if (c->object_size && fill[c->stripe_count - 1] == c->object_size) {
        set++;
        memset(fill, 0, sizeof fill);
      }
    }
  }
}

/* Each piece lies in one object of its set (never across two), and its
 * last byte is where the first byte's object offset plus the length says. */
static void check_pieces_objsets(const ostio_layout *l, int64_t off, int64_t len)
{
  ostio__piece_iter it;
  ostio_piece p, q;
  CHECK(ostio__piece_iter_init(&it, l, off, len) == 0);
  while (ostio__piece_iter_next(&it, &p) == 1) {
    int64_t o1, f1, o2, f2;
    const ostio__comp *c = &l->comp[p.component];
    ostio__piece_object(l, &p, &o1, &f1);
    CHECK(ostio__layout_locate(l, p.file_offset + p.length - 1, &q) == 0);
    ostio__piece_object(l, &q, &o2, &f2);
    if (!CHECKF(o1 == o2 && f2 == f1 + p.length - 1 && o1 >= 0 && f1 >= 0 &&
                (!c->object_size || f2 < c->object_size) && o1 % c->stripe_count == p.object,
                "piece at %lld+%lld: object %lld offset %lld, last byte object %lld offset %lld",
                (long long)p.file_offset, (long long)p.length, (long long)o1, (long long)f1,
                (long long)o2, (long long)f2))
      return;
  }
}

static void objset_cases(tu_rng *r)
{
  /* known values: su 64 KiB, count 3, object 256 KiB (4 stripe units per
   * object, object set of 768 KiB) */
  ostio_layout *l;
  ostio_piece p;
  int64_t o, f;
  CHECK(ostio__layout_simple(65536, 3, -1, &l) == 0);
  l->comp[0].object_size = 262144;
  CHECK(ostio__layout_validate(l) == 0);
  static const int64_t at[][3] = {
    {0, 0, 0}, {65536, 1, 0}, {131072 + 5, 2, 5}, {196608, 0, 65536},
    {786432 - 1, 2, 262143}, {786432, 3, 0}, {786432 + 65536 * 4, 4, 65536},
    {3 * 786432 + 7, 9, 7}};
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
    CHECK(ostio__layout_locate(l, at[i][0], &p) == 0);
    ostio__piece_object(l, &p, &o, &f);
    CHECKF(o == at[i][1] && f == at[i][2], "offset %lld: object %lld offset %lld, expected "
           "%lld %lld", (long long)at[i][0], (long long)o, (long long)f, (long long)at[i][1],
           (long long)at[i][2]);
  }
  /* the largest offsets: object numbers stay below the stripe number */
  CHECK(ostio__layout_locate(l, INT64_MAX - 1, &p) == 0);
  ostio__piece_object(l, &p, &o, &f);
  CHECK(o >= 0 && o <= p.stripe && f >= 0 && f < 262144);
  /* validation: the object size is a multiple of the stripe size */
  l->comp[0].object_size = 65536 * 3 + 1;
  CHECK(ostio__layout_validate(l) == OSTIO_ELAYOUT);
  CHECK(strstr(ostio_last_error(), "object size 196609") != NULL);
  l->comp[0].object_size = -1;
  CHECK(ostio__layout_validate(l) == OSTIO_ELAYOUT);
  l->comp[0].object_size = 1LL << 32;
  CHECK(ostio__layout_validate(l) == OSTIO_ELAYOUT);
  ostio__layout_destroy(l);
  CHECK(ostio__layout_simple(1, 1, -1, &l) == 0);
  l->comp[0].object_size = 1;  /* every byte its own object */
  CHECK(ostio__layout_locate(l, INT64_MAX - 1, &p) == 0);
  ostio__piece_object(l, &p, &o, &f);
  CHECK(o == INT64_MAX - 1 && f == 0);
  ostio__layout_destroy(l);
  /* random layouts with object sets, small (byte model) and large (pieces) */
  for (int i = 0; i < 400; i++) {
    l = tu_random_layout(r, 1);
    add_object_sets(l, r, 5);
    if (CHECK(ostio__layout_validate(l) == 0)) check_naive_objsets(l);
    ostio__layout_destroy(l);
  }
  for (int i = 0; i < 200; i++) {
    l = tu_random_layout(r, 0);
    add_object_sets(l, r, 64);
    if (CHECK(ostio__layout_validate(l) == 0))
      for (int k = 0; k < 10; k++) {
        int64_t ss = l->comp[0].stripe_size;
        int64_t off = tu_rng_range(r, 0, 3) == 0 ? tu_rng_range(r, 0, 1LL << 42)
                                                 : tu_rng_range(r, 0, 4 * ss * 160);
        int64_t len = tu_rng_range(r, 0, 6 * ss);
        check_pieces_objsets(l, off, len);
        check_summary(l, off, len); /* columns: the same as without sets */
      }
    ostio__layout_destroy(l);
  }
}

static void edge_cases(void)
{
  ostio_layout *l;
  ostio_piece p;
  ostio__piece_iter it;
  CHECK(ostio__layout_simple(1 << 20, 4, 0, &l) == 0);
  CHECK(ostio__layout_locate(l, -1, &p) == OSTIO_ERANGE);
  CHECK(ostio__piece_iter_init(&it, l, INT64_MAX - 10, 11) == OSTIO_ERANGE);
  CHECK(ostio__piece_iter_init(&it, l, 0, -1) == OSTIO_ERANGE);
  check_split(l, INT64_MAX - (3 << 20), 3 << 20);
  /* offsets past 4 GiB and 2^40 */
  CHECK(ostio__layout_locate(l, (5LL << 30) + 7, &p) == 0);
  CHECK(p.stripe == 5 * 1024 && p.object == 0 && p.object_offset == (5LL << 28) + 7);
  CHECK(ostio__layout_locate(l, (1LL << 40) + (3 << 20) + 1, &p) == 0);
  CHECK(p.object == 3 && p.ost == 3 && p.object_offset == (1LL << 38) + 1);
  /* known values: 1 MiB x 4, offset 5.5 MiB -> stripe 5, object 1, objoff 1.5 MiB */
  CHECK(ostio__layout_locate(l, 5 * (1 << 20) + (1 << 19), &p) == 0);
  CHECK(p.stripe == 5 && p.object == 1 && p.object_offset == (1 << 20) + (1 << 19));
  size_t np = 0;
  CHECK(ostio_layout_map(l, (1 << 20) - 10, (2 << 20) + 20, NULL, 0, &np) == 0);
  CHECK(np == 4);
  ostio__layout_destroy(l);

  /* a last component ending before EOF: bytes past it are out of range */
  l = ostio__layout_new();
  ostio__comp c = {.start = 0, .end = 1 << 20, .stripe_size = 65536, .stripe_count = 2,
                   .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  ostio__layout_add(l, &c);
  CHECK(ostio__layout_validate(l) == 0);
  CHECK(ostio__layout_locate(l, 1 << 20, &p) == OSTIO_ERANGE);
  CHECK(ostio__layout_locate(l, 3, &p) == 0 && p.ost == -1);
  CHECK(ostio__piece_iter_init(&it, l, (1 << 20) - 5, 10) == 0);
  CHECK(ostio__piece_iter_next(&it, &p) == 1 && p.length == 5);
  CHECK(ostio__piece_iter_next(&it, &p) == OSTIO_ERANGE);
  ostio__layout_destroy(l);

  /* validation never lets a zero reach the math */
  CHECK(ostio__layout_simple(0, 4, 0, &l) == OSTIO_ELAYOUT && l == NULL);
  CHECK(ostio__layout_simple(65536, 0, -1, &l) == OSTIO_ELAYOUT && l == NULL);
  CHECK(ostio__layout_simple(65536, 2001, -1, &l) == OSTIO_ELAYOUT);
  CHECK(ostio__layout_simple(1LL << 32, 1, -1, &l) == OSTIO_ELAYOUT);
  l = ostio__layout_new();
  c = (ostio__comp){.start = 0, .end = 100, .stripe_size = 10, .stripe_count = 1,
                    .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  ostio__layout_add(l, &c);
  c.start = 200; c.end = OSTIO_EOF;
  ostio__layout_add(l, &c);
  CHECK(ostio__layout_validate(l) == OSTIO_ELAYOUT);
  ostio__layout_destroy(l);
  int32_t dup[2] = {3, 3};
  l = ostio__layout_new();
  c = (ostio__comp){.start = 0, .end = OSTIO_EOF, .stripe_size = 10, .stripe_count = 2,
                    .first_ost = 3, .pattern = OSTIO_PATTERN_RAID0, .osts = dup};
  ostio__layout_add(l, &c);
  CHECK(ostio__layout_validate(l) == OSTIO_ELAYOUT);
  l->comp[0].pattern |= OSTIO_PATTERN_OVERSTRIPING;
  CHECK(ostio__layout_validate(l) == 0);
  l->comp[0].pattern = 0x100;
  CHECK(ostio__layout_validate(l) == OSTIO_ELAYOUT);
  ostio__layout_destroy(l);
}

/* Issue 13 item 9: the totals of ostio__layout_summary (arithmetic, per
 * stripe period) equal a piece-by-piece walk; ostio_layout_map counts by the
 * same arithmetic. */
static void check_summary(const ostio_layout *l, int64_t off, int64_t len)
{
  size_t cap = 0;
  for (int i = 0; i < l->ncomp; i++) cap += (size_t)l->comp[i].stripe_count;
  ostio__objspan *want = calloc(cap, sizeof *want), *got = calloc(cap, sizeof *got);
  size_t base[OSTIO_MAX_COMPONENTS];
  for (int i = 0, acc = 0; i < l->ncomp; i++) base[i] = (size_t)acc, acc += l->comp[i].stripe_count;
  ostio__piece_iter it;
  ostio_piece p;
  int64_t n = 0;
  int rc, walk_rc;
  CHECK(ostio__piece_iter_init(&it, l, off, len) == 0);
  while ((walk_rc = ostio__piece_iter_next(&it, &p)) == 1) {
    ostio__objspan *o = &want[base[p.component] + (size_t)p.object];
    if (!o->pieces)
      *o = (ostio__objspan){p.component, p.object, p.ost, 0, 0, p.object_offset, 0};
    o->pieces++;
    o->bytes += p.length;
    o->last_objend = p.object_offset + p.length;
    n++;
  }
  size_t k = 0;
  for (size_t i = 0; i < cap; i++) if (want[i].pieces) want[k++] = want[i];
  int64_t total = -1;
  size_t ns = 0;
  rc = ostio__layout_summary(l, off, len, &total, got, cap, &ns);
  if (walk_rc < 0) {
    CHECKF(rc == walk_rc, "extent %lld+%lld: summary %d, walk %d", (long long)off,
           (long long)len, rc, walk_rc);
  } else if (CHECKF(rc == 0 && total == n && ns == k, "extent %lld+%lld: summary %d, %lld "
                    "pieces over %zu objects; walk %lld over %zu", (long long)off, (long long)len,
                    rc, (long long)total, ns, (long long)n, k)) {
    for (size_t i = 0; i < k; i++)
      if (!CHECKF(!memcmp(&got[i], &want[i], sizeof got[i]), "extent %lld+%lld object %zu: "
                  "summary comp %d obj %d %lld pieces %lld bytes [%lld, %lld); walk comp %d obj "
                  "%d %lld pieces %lld bytes [%lld, %lld)", (long long)off, (long long)len, i,
                  got[i].component, got[i].object, (long long)got[i].pieces,
                  (long long)got[i].bytes, (long long)got[i].first_objoff,
                  (long long)got[i].last_objend, want[i].component, want[i].object,
                  (long long)want[i].pieces, (long long)want[i].bytes,
                  (long long)want[i].first_objoff, (long long)want[i].last_objend))
        break;
    size_t np = 0;
    CHECK(ostio_layout_map(l, off, len, NULL, 0, &np) == 0 && (int64_t)np == n);
  }
  free(want);
  free(got);
}

static void on_alarm(int sig)
{
  (void)sig;
  static const char m[] = "FAIL test_layout_math: the whole-range map took more than 20 s "
                          "(counting pieces one by one)\n";
  if (write(2, m, sizeof m - 1) < 0) _exit(1);
  _exit(1);
}

/* The whole range [0, 2^63-1) of 64 KiB stripes is 2^47 pieces: counting
 * them one by one takes days; the arithmetic answers at once. */
static void whole_range(void)
{
  ostio_layout *l;
  CHECK(ostio__layout_simple(65536, 7, 0, &l) == 0);
  signal(SIGALRM, on_alarm);
  alarm(20);
  ostio_piece p[3];
  size_t np = 0;
  CHECK(ostio_layout_map(l, 0, INT64_MAX, p, 3, &np) == 0);
  CHECK_EQ_I64(np, (INT64_MAX - 1) / 65536 + 1);
  CHECK(p[0].file_offset == 0 && p[2].file_offset == 2 * 65536 && p[2].object == 2);
  ostio__objspan sp[7];
  size_t ns = 0;
  int64_t total = 0;
  CHECK(ostio__layout_summary(l, 1, INT64_MAX - 1, &total, sp, 7, &ns) == 0 && ns == 7);
  int64_t bytes = 0;
  for (int i = 0; i < 7; i++) bytes += sp[i].bytes;
  CHECK_EQ_I64(bytes, INT64_MAX - 1);
  /* the last stripe below 2^63 is partial: its object ends exactly there */
  int64_t last = (INT64_MAX - 1) / 65536;
  CHECK_EQ_I64(sp[last % 7].last_objend, last / 7 * 65536 + (INT64_MAX - last * 65536));
  alarm(0);
  ostio__layout_destroy(l);
  /* near the end, small stripes: the same as the walk */
  CHECK(ostio__layout_simple(1, 3, 0, &l) == 0);
  check_summary(l, INT64_MAX - 100, 100);
  check_summary(l, INT64_MAX - 1, 1);
  ostio__layout_destroy(l);
  CHECK(ostio__layout_simple(4096, 5, 0, &l) == 0);
  check_summary(l, INT64_MAX - 3 * 4096 - 17, 3 * 4096 + 17);
  ostio__layout_destroy(l);
}

int main(void)
{
  tu_rng r;
  tu_rng_seed(&r, tu_seed(20261121));
  for (int i = 0; i < 400; i++) {
    ostio_layout *l = tu_random_layout(&r, 0);
    if (!CHECK(ostio__layout_validate(l) == 0)) { ostio__layout_destroy(l); continue; }
    for (int k = 0; k < 20; k++) {
      int64_t ss = l->comp[0].stripe_size;
      int64_t off = tu_rng_range(&r, 0, 3) == 0 ? tu_rng_range(&r, 0, 1LL << 42)
                                                : tu_rng_range(&r, 0, 4 * ss * 160);
      int64_t len = tu_rng_range(&r, 0, 6 * ss);
      check_split(l, off, len);
      check_summary(l, off, len);
    }
    check_group(l, &r);
    ostio__layout_destroy(l);
  }
  for (int i = 0; i < 300; i++) {
    ostio_layout *l = tu_random_layout(&r, 1);
    if (CHECK(ostio__layout_validate(l) == 0)) {
      check_naive(l);
      check_split(l, tu_rng_range(&r, 0, 100), tu_rng_range(&r, 0, 200));
      for (int k = 0; k < 5; k++)
        check_summary(l, tu_rng_range(&r, 0, 100), tu_rng_range(&r, 0, 200));
    }
    ostio__layout_destroy(l);
  }
  edge_cases();
  whole_range();
  objset_cases(&r);
  return TEST_DONE();
}
