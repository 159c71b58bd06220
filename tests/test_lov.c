/* Tests of the lustre.lov codec. Parser inputs are byte vectors written
 * field by field by lov_blobs.c (never by the library's
 * encoder); the encoder is checked by round trip. Every parse gets an
 * exact-size heap copy so ASan sees any read past the end. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "layout/lov.h"

#include "lov_blobs.h"

/* ---- helpers ------------------------------------------------------------- */
static int parse_exact(const unsigned char *b, size_t len, ostio_layout **out)
{
  unsigned char *copy = malloc(len ? len : 1);
  if (!copy) abort();
  memcpy(copy, b, len);
  int rc = ostio__lov_parse(copy, len, out);
  free(copy);
  return rc;
}

static void expect_err(const unsigned char *b, size_t len, int code, const char *what)
{
  ostio_layout *l = NULL;
  ostio__clear_error();
  int rc = parse_exact(b, len, &l);
  CHECKF(rc == code, "%s: got %s, want %s (%s)", what, ostio_errname(rc),
         ostio_errname(code), ostio_last_error());
  CHECKF(ostio_last_error()[0] != '\0', "%s: no detail", what);
  CHECKF(l == NULL, "%s: layout returned on error", what);
  ostio__layout_destroy(l);
}

static int osts_are(const ostio__comp *c, const int32_t *want, int n)
{
  if (!c->osts || c->stripe_count != n) return 0;
  for (int i = 0; i < n; i++)
    if (c->osts[i] != want[i]) return 0;
  return 1;
}

/* What a one-component [0, EOF) layout must hold; osts NULL: no list. */
typedef struct {
  int64_t size;
  int32_t count, first;
  uint32_t pattern;
  int inst;
  const char *pool;
  const int32_t *osts;
} want1;

static void expect_one(const unsigned char *b, size_t len, want1 w, const char *what)
{
  ostio_layout *l = NULL;
  int rc = parse_exact(b, len, &l);
  CHECKF(rc == 0, "%s: %s (%s)", what, ostio_errname(rc), ostio_last_error());
  if (rc < 0) return;
  const ostio__comp *c = &l->comp[0];
  CHECKF(l->ncomp == 1 && c->start == 0 && c->end == OSTIO_EOF, "%s: extent", what);
  CHECKF(strcmp(l->source, "lustre") == 0, "%s: source %s", what, l->source);
  CHECKF(c->stripe_size == w.size, "%s: size %lld", what, (long long)c->stripe_size);
  CHECKF(c->stripe_count == w.count, "%s: count %d", what, (int)c->stripe_count);
  CHECKF(c->first_ost == w.first, "%s: first_ost %d", what, (int)c->first_ost);
  CHECKF(c->pattern == w.pattern, "%s: pattern 0x%x", what, (unsigned)c->pattern);
  CHECKF(c->instantiated == w.inst, "%s: instantiated %d", what, (int)c->instantiated);
  CHECKF(strcmp(c->pool, w.pool ? w.pool : "") == 0, "%s: pool '%s'", what, c->pool);
  CHECKF(w.osts ? osts_are(c, w.osts, w.count) : c->osts == NULL, "%s: OST list", what);
  ostio__layout_destroy(l);
}

/* ---- well-formed blobs --------------------------------------------------- */
static void test_plain(void)
{
  enum { RAID0 = OSTIO_PATTERN_RAID0, OVER = OSTIO_PATTERN_RAID0 | OSTIO_PATTERN_OVERSTRIPING };
  static const int32_t o4[] = {7, 2, 9, 4}, o2[] = {11, 12}, o8[] = {0, 1, 0, 1, 0, 1, 0, 1},
                       o3[] = {3, 1, 6};
  const want1 v1 = {.size = MIB, .count = 4, .first = 7, .pattern = RAID0, .inst = 1,
                    .osts = o4};
  unsigned char b[4096];
  size_t n = build_v1(b);
  CHECK_EQ_I64(n, 32 + 4 * 24);
  expect_one(b, n, v1, "v1 with 4 objects");
  memset(b + n, 0xAB, 40);
  expect_one(b, n + 40, v1, "v1 with trailing bytes");
  w_swap = 1;
  n = build_v1(b);
  w_swap = 0;
  expect_one(b, n, v1, "byte-swapped v1");

  n = build_v3(b);
  expect_one(b, n, (want1){.size = 2 * MIB, .count = 2, .first = 11, .pattern = RAID0,
                           .inst = 1, .pool = "flash", .osts = o2}, "v3 with pool");
  n = put_md(b, 0, V3, 1, MIB, 2, NO_OFF, "abcdefghijklmnopXYZ", (const uint32_t[]){11, 12}, 2);
  expect_one(b, n, (want1){.size = MIB, .count = 2, .first = 11, .pattern = RAID0, .inst = 1,
                           .pool = "abcdefghijklmnop", .osts = o2}, "16-byte pool, no NUL");
  n = build_overstripe(b);
  expect_one(b, n, (want1){.size = MIB, .count = 8, .first = 0, .pattern = OVER, .inst = 1,
                           .osts = o8}, "overstriped");
  /* Specific: an explicit OST request; the OST list is known. */
  n = put_md(b, 0, SPEC, 1, MIB, 3, 3, "", (const uint32_t[]){3, 1, 6}, 3);
  expect_one(b, n, (want1){.size = MIB, .count = 3, .first = 3, .pattern = RAID0, .inst = 1,
                           .osts = o3}, "specific");
  /* Header only (request form / template): no objects, first OST unknown. */
  n = put_md(b, 0, V1, 1, MIB, 4, 2, NULL, NULL, 0);
  expect_one(b, n, (want1){.size = MIB, .count = 4, .first = -1, .pattern = RAID0},
             "v1 header only");
  n = put_md(b, 0, V3, 1, MIB, 4, 2, "p", NULL, 0);
  expect_one(b, n, (want1){.size = MIB, .count = 4, .first = -1, .pattern = RAID0,
                           .pool = "p"}, "v3 header only");
  /* HSM-released: objects ignored. Pattern 0 (default) means RAID0. */
  n = put_md(b, 0, V1, 0x80000000u, MIB, 2, NO_OFF, NULL, (const uint32_t[]){1, 2}, 2);
  expect_one(b, n, (want1){.size = MIB, .count = 2, .first = -1, .pattern = RAID0},
             "released");
}

static void check_comp(const ostio__comp *c, int64_t start, int64_t end, int64_t size,
                       int32_t count, int inst, const int32_t *osts, const char *what)
{
  CHECKF(c->start == start && c->end == end, "%s: extent [%lld,%lld)", what,
         (long long)c->start, (long long)c->end);
  CHECKF(c->stripe_size == size && c->stripe_count == count, "%s: size %lld count %d", what,
         (long long)c->stripe_size, (int)c->stripe_count);
  CHECKF(c->instantiated == inst, "%s: instantiated %d", what, (int)c->instantiated);
  CHECKF(osts ? osts_are(c, osts, count) && c->first_ost == osts[0]
              : !c->osts && c->first_ost == -1, "%s: OSTs", what);
}

static void test_composite(void)
{
  static const int32_t o1[] = {5}, o2[] = {1, 2, 3, 4}, o3[] = {6, 7, 8, 9};
  unsigned char b[4096];
  ostio_layout *l;
  /* second: 1 instantiated (both byte orders), 0 / 2 uninstantiated with
   * absent / zeroed objects, 3 uninstantiated specific. */
  for (int k = 0; k < 5; k++) {
    int second = k < 2 ? 1 : k - 1;
    w_swap = k == 1;
    size_t n = build_comp2(b, second);
    w_swap = 0;
    char what[64];
    snprintf(what, sizeof what, "composite (second=%d, swap=%d)", second, k == 1);
    l = NULL;
    CHECKF(parse_exact(b, n, &l) == 0, "%s: %s", what, ostio_last_error());
    if (!l) continue;
    CHECK(strcmp(l->source, "lustre") == 0);
    CHECK_EQ_I64(l->ncomp, 2);
    check_comp(&l->comp[0], 0, 4 * MIB, MIB, 1, 1, o1, what);
    check_comp(&l->comp[1], 4 * MIB, OSTIO_EOF, 4 * MIB, 4, second % 2,
               second == 1 ? o2 : second == 3 ? o3 : NULL, what);
    ostio__layout_destroy(l);
  }

  size_t n = build_mirrors(b);
  l = NULL;
  CHECKF(parse_exact(b, n, &l) == 0, "mirrors: %s", ostio_last_error());
  if (l) {
    CHECK_EQ_I64(l->ncomp, 2);
    check_comp(&l->comp[0], 0, 4 * MIB, MIB, 1, 1, o1, "mirror 1");
    check_comp(&l->comp[1], 4 * MIB, OSTIO_EOF, 4 * MIB, 4, 1, o2, "mirror 1");
  }
  ostio__layout_destroy(l);
}

/* ---- malformed blobs ----------------------------------------------------- */
/* Every proper prefix is an error, except a plain md cut right after its
 * header: that is a valid template (no objects), checked in test_plain. */
static void test_truncation(void)
{
  unsigned char b[4096];
  long cases = 0;
  for (int which = 0; which < 4; which++) {
    size_t n = which == 0 ? build_v1(b) : which == 1 ? build_v3(b)
             : which == 2 ? build_comp2(b, 1) : build_mirrors(b);
    size_t skip = which == 0 ? 32 : which == 1 ? 48 : SIZE_MAX;
    for (size_t len = 0; len < n; len++) {
      if (len == skip) continue;
      char what[64];
      snprintf(what, sizeof what, "blob %d truncated to %zu", which, len);
      expect_err(b, len, OSTIO_EFORMAT, what);
      cases++;
    }
  }
  CHECK(cases > 700);
}

static void test_errors(void)
{
  unsigned char b[8192];
  size_t n;

  ostio_layout *l = (ostio_layout *)b;
  CHECK_EQ_I64(ostio__lov_parse(NULL, 10, &l), OSTIO_EINVAL);
  CHECK(l == NULL);
  CHECK_EQ_I64(ostio__lov_parse(b, 10, NULL), OSTIO_EINVAL);

  static const uint32_t dup[] = {1, 2, 1}, neg[] = {1, 0xFFFFFFFFu};
  static const struct {
    uint32_t magic, pattern, size;
    uint16_t count;
    int nobj;
    const uint32_t *osts;
    int code;
    const char *what;
  } md[] = {
    {V1, 1, MIB, 6, 4, OSTS4, OSTIO_EFORMAT, "stripe count 6 with 4 objects"},
    {SPEC, 1, MIB, 2, 0, NULL, OSTIO_EFORMAT, "specific without its OST list"},
    {0xDEADBEEF, 1, MIB, 4, 4, OSTS4, OSTIO_EFORMAT, "bad magic"},
    {V1, 1, 0, 4, 4, OSTS4, OSTIO_ELAYOUT, "zero stripe size"},
    {V1, 1, MIB, 0, 0, NULL, OSTIO_ELAYOUT, "zero stripe count"},
    {V1, 1, MIB, 2001, 0, NULL, OSTIO_EFORMAT, "stripe count 2001"},
    {V1, 1, MIB, 0xFFFF, 0, NULL, OSTIO_EFORMAT, "stripe count -1"},
    {V1, 0x100, MIB, 1, 1, OSTS4, OSTIO_ENOTSUP, "data on MDT"},
    {V1, 0x4, MIB, 1, 1, OSTS4, OSTIO_ENOTSUP, "unknown pattern"},
    {V1, 1, MIB, 2, 2, neg, OSTIO_EFORMAT, "OST index -1"},
    {V1, 1, MIB, 3, 3, dup, OSTIO_ELAYOUT, "repeated OST without overstriping"},
  };
  for (size_t i = 0; i < sizeof md / sizeof md[0]; i++) {
    n = put_md(b, 0, md[i].magic, md[i].pattern, md[i].size, md[i].count, NO_OFF, NULL,
               md[i].osts, md[i].nobj);
    expect_err(b, n, md[i].code, md[i].what);
  }
  memset(b, 0, 64);
  w32(b, 0, FOREIGN);
  expect_err(b, 64, OSTIO_ENOTSUP, "foreign");
  CHECK(strstr(ostio_last_error(), "foreign") != NULL);
  w_swap = 1;
  w32(b, 0, FOREIGN);
  w_swap = 0;
  expect_err(b, 64, OSTIO_ENOTSUP, "foreign, swapped");

  /* Composite blobs from build_comp2(second), one field patched. */
  enum { E1 = 32 + 48, M2 = 128 + 56 };   /* entry 1, entry 1's md */
  static const struct {
    int second, width;
    size_t at;
    uint64_t v;
    int code;
    const char *what;
  } patch[] = {
    {1, 2, 14, 0, OSTIO_EFORMAT, "entry_count 0"},
    {1, 2, 14, 65, OSTIO_EFORMAT, "entry_count 65"},
    {1, 2, 14, 40, OSTIO_EFORMAT, "entry table past lcm_size"},
    {1, 4, 4, 100000, OSTIO_EFORMAT, "lcm_size past the blob"},
    {1, 1, 18, 2, OSTIO_ENOTSUP, "erasure coded"},
    {1, 4, E1 + 24, 0, OSTIO_EFORMAT, "offset inside the header"},
    {1, 4, E1 + 24, 100, OSTIO_EFORMAT, "offset inside the entry table"},
    {1, 4, E1 + 24, 4096, OSTIO_EFORMAT, "offset past the end"},
    {1, 4, E1 + 24, 0xFFFFFFF0u, OSTIO_EFORMAT, "offset + size wraps"},
    {1, 4, E1 + 28, 4096, OSTIO_EFORMAT, "size past the end"},
    {1, 4, E1 + 28, 0xFFFFFFFFu, OSTIO_EFORMAT, "size all ones"},
    {1, 4, E1 + 28, 16, OSTIO_EFORMAT, "size smaller than a v1 header"},
    {1, 4, E1 + 28, 32 + 3 * 24, OSTIO_EFORMAT, "INIT entry with 3 of 4 objects"},
    {1, 4, M2, COMP, OSTIO_EFORMAT, "nested composite magic"},
    {1, 4, M2, 0x12345678, OSTIO_EFORMAT, "nested bad magic"},
    {1, 4, M2, FOREIGN, OSTIO_ENOTSUP, "nested foreign"},
    {1, 4, M2, 0xD00BD10Bu, OSTIO_EFORMAT, "nested md in the other byte order"},
    {1, 4, M2 + 24, 0, OSTIO_ELAYOUT, "nested zero stripe size"},
    {1, 8, E1 + 8, 8 * MIB, OSTIO_ELAYOUT, "gap between components"},
    {1, 8, 32 + 8, MIB, OSTIO_ELAYOUT, "first component not at 0"},
    {1, 8, E1 + 8, 0x8000000000000000ull, OSTIO_EFORMAT, "start beyond INT64_MAX"},
    {1, 8, 32 + 16, UINT64_MAX, OSTIO_ELAYOUT, "EOF component not last"},
  };
  for (size_t i = 0; i < sizeof patch / sizeof patch[0]; i++) {
    n = build_comp2(b, patch[i].second);
    if (patch[i].width == 1) b[patch[i].at] = (unsigned char)patch[i].v;
    if (patch[i].width == 2) w16(b, patch[i].at, (uint16_t)patch[i].v);
    if (patch[i].width == 4) w32(b, patch[i].at, (uint32_t)patch[i].v);
    if (patch[i].width == 8) w64(b, patch[i].at, patch[i].v);
    expect_err(b, n, patch[i].code, patch[i].what);
  }
}

/* An uninstantiated PFL component asking for the default (0) or every OST
 * (-1), as `lfs setstripe -E 4M -c 1 -E -1 -c -1` leaves it: Lustre resolves
 * the count only at instantiation; until then it is modelled as 1. */
static void test_unresolved_count(void)
{
  unsigned char b[1024];
  static const uint16_t counts[] = {0, 0xFFFF};
  for (int i = 0; i < 2; i++) {
    enum { M2 = 128 + 56 };
    size_t n = build_comp2(b, 0);
    w16(b, M2 + 28, counts[i]);
    ostio_layout *l = NULL;
    int rc = ostio__lov_parse(b, n, &l);
    CHECKF(rc == 0, "count 0x%x: %s", counts[i], ostio_last_error());
    if (!l) continue;
    CHECK(l->ncomp == 2 && l->comp[1].stripe_count == 1 && !l->comp[1].instantiated &&
          !l->comp[1].osts);
    ostio__layout_destroy(l);
  }
}

/* ---- encoder round trip -------------------------------------------------- */
static ostio_layout *mk(const ostio__comp *c, int n)
{
  ostio_layout *l = ostio__layout_new();
  for (int i = 0; l && i < n; i++)
    if (ostio__layout_add(l, &c[i]) < 0) abort();
  return l;
}

static void round_trip(const ostio_layout *l, uint32_t want_magic, const char *what)
{
  void *buf = NULL;
  size_t len = 0;
  ostio_layout *back = NULL;
  int rc = ostio__lov_encode(l, &buf, &len);
  CHECKF(rc == 0, "%s: encode: %s", what, ostio_last_error());
  if (rc < 0) return;
  uint32_t magic;
  memcpy(&magic, buf, 4);
  CHECKF(magic == want_magic, "%s: magic 0x%08x", what, (unsigned)magic);
  if (magic == COMP) {
    uint32_t lcm_size, off;
    uint16_t cnt;
    memcpy(&lcm_size, (char *)buf + 4, 4);
    memcpy(&cnt, (char *)buf + 14, 2);
    CHECK_EQ_I64(lcm_size, len);
    CHECK_EQ_I64(cnt, l->ncomp);
    for (int i = 0; i < cnt; i++) {
      uint32_t flags;
      memcpy(&flags, (char *)buf + 32 + 48 * i + 4, 4);
      memcpy(&off, (char *)buf + 32 + 48 * i + 24, 4);
      CHECKF(off % 8 == 0, "%s: entry %d offset %u", what, i, (unsigned)off);
      CHECKF(flags == 0, "%s: entry %d flags 0x%x in a request", what, i, (unsigned)flags);
    }
  }
  rc = parse_exact(buf, len, &back);
  CHECKF(rc == 0, "%s: parse back: %s", what, ostio_last_error());
  CHECKF(back && ostio__layout_equal(l, back), "%s: round trip differs", what);
  ostio__layout_destroy(back);
  free(buf);
}

static void rt(const ostio__comp *c, int n, uint32_t want_magic, const char *what)
{
  ostio_layout *l = mk(c, n);
  round_trip(l, want_magic, what);
  ostio__layout_destroy(l);
}

static void test_round_trip(void)
{
  int32_t o3[] = {5, 3, 8}, o1[] = {2}, o6[] = {0, 1, 0, 1, 0, 1}, o4[] = {9, 10, 11, 12};
  const ostio__comp base = {.end = OSTIO_EOF, .stripe_size = MIB, .stripe_count = 4,
                            .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  ostio__comp c[3];
  ostio_layout *l;

  c[0] = base;
  rt(c, 1, V1, "1 component");
  c[0] = base;
  strcpy(c[0].pool, "flash");
  c[0].stripe_size = 4 * MIB;
  rt(c, 1, V3, "pool");
  c[0] = base;
  c[0].stripe_count = 3, c[0].osts = o3, c[0].first_ost = 5, c[0].instantiated = 1;
  rt(c, 1, SPEC, "explicit OSTs");
  c[0] = base;
  c[0].osts = o4, c[0].first_ost = 9, c[0].instantiated = 1;
  strcpy(c[0].pool, "abcdefghijklmnop");
  rt(c, 1, SPEC, "explicit OSTs and a 16-byte pool");
  c[0] = base;
  c[0].pattern |= OSTIO_PATTERN_OVERSTRIPING;
  c[0].stripe_count = 6, c[0].osts = o6, c[0].first_ost = 0, c[0].instantiated = 1;
  rt(c, 1, SPEC, "overstriping");
  c[0] = base;
  c[0].end = MIB, c[0].stripe_count = 1, c[0].osts = o1, c[0].first_ost = 2;
  c[0].instantiated = 1;
  c[1] = base;
  c[1].start = MIB, c[1].end = 64 * MIB;
  strcpy(c[1].pool, "p1");
  c[2] = base;
  c[2].start = 64 * MIB, c[2].stripe_size = 4 * MIB, c[2].stripe_count = 3;
  c[2].osts = o3, c[2].first_ost = 5, c[2].instantiated = 1;
  rt(c, 3, COMP, "3-component PFL");

  c[1].pattern |= OSTIO_PATTERN_OVERSTRIPING;
  c[1].stripe_count = 6, c[1].osts = o6, c[1].first_ost = 0, c[1].instantiated = 1;
  c[2].end = 1024LL * MIB;   /* last component need not reach EOF */
  rt(c, 3, COMP, "PFL with overstriping, bounded");

  /* Parsed vectors re-encode to the same layout. */
  unsigned char b[4096];
  size_t n = build_comp2(b, 0);
  l = NULL;
  if (parse_exact(b, n, &l) == 0) round_trip(l, COMP, "parsed composite");
  ostio__layout_destroy(l);

  /* encode_md: sizes and errors. */
  unsigned char md[256];
  size_t len = 0;
  c[0] = base;
  CHECK_EQ_I64(ostio__lov_encode_md(&c[0], md, sizeof md, &len), 0);
  CHECK_EQ_I64(len, 32);
  uint16_t soff;
  memcpy(&soff, md + 30, 2);
  CHECK_EQ_I64(soff, 0xFFFF);
  c[0].first_ost = 6;
  CHECK_EQ_I64(ostio__lov_encode_md(&c[0], md, sizeof md, &len), 0);
  memcpy(&soff, md + 30, 2);
  CHECK_EQ_I64(soff, 6);
  c[0].osts = o4, c[0].first_ost = 9;
  strcpy(c[0].pool, "p");
  CHECK_EQ_I64(ostio__lov_encode_md(&c[0], md, sizeof md, &len), 0);
  uint32_t u32[3];
  memcpy(&u32[0], md, 4);
  memcpy(&u32[1], md + 48 + 0 * 24 + 20, 4);
  memcpy(&u32[2], md + 48 + 3 * 24 + 20, 4);
  CHECK(u32[0] == SPEC && u32[1] == 9 && u32[2] == 12 && md[32] == 'p' && md[33] == 0);
  CHECK_EQ_I64(ostio__lov_encode_md(&c[0], md, 100, &len), OSTIO_ERANGE);
  CHECK_EQ_I64(len, 48 + 4 * 24);
  CHECK(ostio_last_error()[0] != '\0');
  c[0] = base;
  c[0].first_ost = 0x10000;
  CHECK_EQ_I64(ostio__lov_encode_md(&c[0], md, sizeof md, &len), OSTIO_ELAYOUT);
  c[0] = base;
  c[0].stripe_size = 0;
  CHECK_EQ_I64(ostio__lov_encode_md(&c[0], md, sizeof md, &len), OSTIO_ELAYOUT);

  void *buf = (void *)md;
  c[0] = base;
  c[0].start = MIB;
  l = mk(c, 1);
  CHECK_EQ_I64(ostio__lov_encode(l, &buf, &len), OSTIO_ELAYOUT);
  CHECK(buf == NULL);
  ostio__layout_destroy(l);
}

/* ---- random mutation fuzz ------------------------------------------------ */
static void test_fuzz(void)
{
  enum { NSEED = 11, CAP = 4096 };
  static unsigned char seeds[NSEED][CAP];
  size_t slen[NSEED];
  slen[0] = build_v1(seeds[0]);
  slen[1] = build_v3(seeds[1]);
  slen[2] = build_overstripe(seeds[2]);
  slen[3] = build_comp2(seeds[3], 1);
  slen[4] = build_comp2(seeds[4], 0);
  slen[5] = build_comp2(seeds[5], 2);
  slen[6] = build_mirrors(seeds[6]);
  w_swap = 1;
  slen[7] = build_v1(seeds[7]);
  slen[8] = build_comp2(seeds[8], 1);
  w_swap = 0;
  slen[9] = put_md(seeds[9], 0, SPEC, 1, MIB, 3, 3, "pool", (const uint32_t[]){3, 1, 6}, 3);
  slen[10] = build_comp2(seeds[10], 3);

  tu_rng r;
  tu_rng_seed(&r, tu_seed(0x10ec0dec));
  static unsigned char work[CAP];
  long ok = 0, bad = 0;
  for (int iter = 0; iter < 6000; iter++) {
    int s = (int)tu_rng_range(&r, 0, NSEED - 1);
    size_t len = slen[s];
    memcpy(work, seeds[s], len);
    int nmut = (int)tu_rng_range(&r, 1, 4);
    for (int m = 0; m < nmut; m++) {
      int kind = (int)tu_rng_range(&r, 0, 6);
      static const uint64_t pick[] = {0, 0xFFFF, 0xFFFFFFFFu, UINT64_MAX, 1, 2000, 2001,
                                      0x10, INT64_MAX, 0x8000000000000000ull, 4 * MIB};
      if (kind <= 1 && len > 0) {          /* flip a bit / set a byte */
        size_t at = (size_t)tu_rng_range(&r, 0, (int64_t)len - 1);
        if (kind == 0) work[at] ^= (unsigned char)(1u << tu_rng_range(&r, 0, 7));
        else work[at] = (unsigned char)tu_rng_next(&r);
      } else if (kind <= 4 && len >= 8) {  /* aligned u16/u32/u64 field */
        size_t w = (size_t)1 << (kind - 1);
        size_t at = (size_t)tu_rng_range(&r, 0, (int64_t)(len - w)) & ~(w - 1);
        int how = (int)tu_rng_range(&r, 0, 3);
        uint64_t v = how == 0 ? tu_rng_next(&r)
                   : how == 1 ? (uint64_t)tu_rng_range(&r, 0, (int64_t)len + 64)
                   : pick[tu_rng_range(&r, 0, sizeof pick / sizeof pick[0] - 1)];
        for (size_t k = 0; k < w; k++) work[at + k] = (unsigned char)(v >> (8 * k));
      } else if (kind == 5) {              /* truncate */
        len = (size_t)tu_rng_range(&r, 0, (int64_t)len);
      } else if (kind == 6 && len + 64 <= CAP) { /* extend with junk */
        size_t add = (size_t)tu_rng_range(&r, 1, 64);
        for (size_t k = 0; k < add; k++) work[len + k] = (unsigned char)tu_rng_next(&r);
        len += add;
      }
    }
    ostio_layout *l = NULL;
    ostio__clear_error();
    int rc = parse_exact(work, len, &l);
    if (rc == 0) {
      ok++;
      CHECKF(l && ostio__layout_validate(l) == 0, "iter %d: invalid layout accepted", iter);
      if (l) CHECK(strcmp(l->source, "lustre") == 0);
      /* Whatever parses must survive a round trip through the encoder. */
      void *enc = NULL;
      size_t elen = 0;
      ostio_layout *back = NULL;
      int same = l && ostio__lov_encode(l, &enc, &elen) == 0 &&
                 parse_exact(enc, elen, &back) == 0 && ostio__layout_equal(l, back);
      CHECKF(same, "iter %d: parsed layout does not survive encode + parse", iter);
      ostio__layout_destroy(back);
      free(enc);
    } else {
      bad++;
      CHECKF(rc == OSTIO_EFORMAT || rc == OSTIO_ELAYOUT || rc == OSTIO_ENOTSUP,
             "iter %d: unexpected code %s", iter, ostio_errname(rc));
      CHECKF(ostio_last_error()[0] != '\0', "iter %d: no detail", iter);
      CHECK(l == NULL);
    }
    ostio__layout_destroy(l);
  }
  printf("fuzz: %ld parsed, %ld rejected\n", ok, bad);
  CHECK(ok > 100 && bad > 100);
}

int main(void)
{
  test_plain();
  test_composite();
  test_truncation();
  test_errors();
  test_unresolved_count();
  test_round_trip();
  test_fuzz();
  return TEST_DONE();
}
