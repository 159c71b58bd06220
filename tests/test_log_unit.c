/* Log containers, the pure parts (no MPI, no disk): the 64-byte record codec
 * and its CRC, value checks, the compressor (1M interleaved pieces -> one
 * record; breaks on seq, length, stride or physical change), read planning
 * against a byte-array model with random overlapping records and TRUNCs,
 * the size, the log manifest, the name grammar, and fuzzing of the record
 * parser and the log manifest (OSTIO_TEST_FUZZ=N mutations, default 4000);
 * the process's clock of a container (issue 28; a temporary directory and a
 * link to it give its identity). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/log/log.h"
#include "testutil.h"

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

static ostio__logrec random_write(tu_rng *r)
{
  ostio__logrec w = {.type = OSTIO__LOGREC_WRITE, .writer = (uint32_t)tu_rng_range(r, 0, 9),
                     .seq = tu_rng_next(r), .lstart = tu_rng_range(r, 0, 1 << 30),
                     .length = tu_rng_range(r, 1, 1 << 20), .count = tu_rng_range(r, 1, 1000),
                     .pstart = tu_rng_range(r, 0, 1 << 30)};
  if (w.count > 1) w.lstride = w.length + tu_rng_range(r, 0, 1 << 20);
  return w;
}

static void test_codec(tu_rng *r)
{
  for (int i = 0; i < 2000; i++) {
    ostio__logrec a = random_write(r), b;
    if (i % 5 == 0) a = (ostio__logrec){.type = OSTIO__LOGREC_TRUNC, .writer = 3, .seq = 77,
                                        .lstart = tu_rng_range(r, 0, INT64_MAX / 2)};
    /* Issue 28: a seq above its session's block (version 2, the session in
     * bytes 56..59) for one record in three; else version 1, where a
     * session of 0 encodes as seq >> 32, as earlier releases wrote. */
    if (i % 3 == 1 && a.seq >> 32 > 1)
      a.session = (uint32_t)tu_rng_range(r, 1, (int64_t)(a.seq >> 32) - 1);
    else if (i % 3 == 2)
      a.session = (uint32_t)(a.seq >> 32);
    unsigned char buf[OSTIO__LOGREC_SIZE];
    ostio__logrec_encode(&a, buf);
    CHECKF(ostio__logrec_decode(buf, &b) == 0, "%d: %s", i, ostio_last_error());
    int v2 = a.session && a.session != (uint32_t)(a.seq >> 32);
    CHECKF(buf[2] == (v2 ? 2 : 1) && (v2 || !(buf[56] | buf[57] | buf[58] | buf[59])),
           "%d: version %d", i, buf[2]);
    if (!a.session) a.session = (uint32_t)(a.seq >> 32);
    CHECK(!memcmp(&a, &b, sizeof a));
    /* Every single damaged byte is caught (CRC-32C finds bursts <= 32 bits). */
    int k = (int)tu_rng_range(r, 0, 63);
    buf[k] ^= (unsigned char)tu_rng_range(r, 1, 255);
    CHECKF(ostio__logrec_decode(buf, &b) == OSTIO_EFORMAT, "byte %d", k);
  }
  /* Known CRC-32C check value. */
  CHECK(ostio__crc32c("123456789", 9) == 0xE3069283u);
  /* Little-endian layout: magic, version, type, writer at 4, seq at 8. */
  unsigned char buf[OSTIO__LOGREC_SIZE];
  ostio__logrec a = {.type = 1, .writer = 0x01020304, .seq = 0x1122334455667788ull,
                     .lstart = 5, .length = 1, .count = 1};
  ostio__logrec_encode(&a, buf);
  CHECK(buf[0] == 'o' && buf[1] == 'l' && buf[2] == 1 && buf[3] == 1 && buf[4] == 4 &&
        buf[7] == 1 && buf[8] == 0x88 && buf[15] == 0x11 && buf[16] == 5);
  /* Values: each invalid one, re-sealed, is refused with a reason. */
  struct { ostio__logrec r; const char *needle; } bad[] = {
    {{.type = 1, .lstart = -1, .length = 1, .count = 1}, "negative"},
    {{.type = 1, .length = 0, .count = 1}, "length or count"},
    {{.type = 1, .length = 1, .count = 0}, "length or count"},
    {{.type = 1, .length = 8, .count = 2, .lstride = 4}, "overlap"},
    {{.type = 1, .length = 8, .count = 1, .lstride = 4}, "stride"},
    {{.type = 1, .lstart = INT64_MAX - 4, .length = 8, .count = 1}, "overflow"},
    {{.type = 1, .length = 8, .count = 3, .lstride = INT64_MAX / 2}, "2^63"},
    {{.type = 1, .length = INT64_MAX / 2, .count = 3, .lstride = INT64_MAX / 2}, "2^63"},
    {{.type = 2, .lstart = 5, .length = 1}, "nonzero"},
    {{.type = 9, .lstart = 5}, "unknown type"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ostio__logrec b;
    ostio__logrec_encode(&bad[i].r, buf);
    CHECKF(ostio__logrec_decode(buf, &b) == OSTIO_EFORMAT && has(bad[i].needle), "case %zu: %s",
           i, ostio_last_error());
  }
  ostio__logrec_encode(&a, buf);
  buf[57] = 1; /* reserved, with a correct CRC */
  uint32_t c = ostio__crc32c(buf, 60);
  for (int i = 0; i < 4; i++) buf[60 + i] = (unsigned char)(c >> (8 * i));
  CHECK(ostio__logrec_decode(buf, &a) == OSTIO_EFORMAT && has("reserved"));
  /* Version 2 whose session is 0, or not below the seq's high half (a seq
   * never lies below its session's first, session << 32): refused. */
  uint32_t sess[] = {0, 7, 8};
  for (int k = 0; k < 3; k++) {
    ostio__logrec v = {.type = 2, .writer = 1, .session = 3, .seq = (uint64_t)7 << 32 | 5};
    ostio__logrec_encode(&v, buf);
    CHECK(buf[2] == 2 && buf[56] == 3);
    for (int i = 0; i < 4; i++) buf[56 + i] = (unsigned char)(sess[k] >> (8 * i));
    c = ostio__crc32c(buf, 60);
    for (int i = 0; i < 4; i++) buf[60 + i] = (unsigned char)(c >> (8 * i));
    CHECKF(ostio__logrec_decode(buf, &v) == OSTIO_EFORMAT && has("version 2"), "session %u: %s",
           sess[k], ostio_last_error());
  }
  /* A version 3 record is refused naming the versions read. */
  buf[2] = 3;
  c = ostio__crc32c(buf, 60);
  for (int i = 0; i < 4; i++) buf[60 + i] = (unsigned char)(c >> (8 * i));
  CHECK(ostio__logrec_decode(buf, &a) == OSTIO_EFORMAT && has("versions 1 and 2"));
}

static void test_compressor(void)
{
  ostio__logcomp c = {0};
  ostio__logrec out;
  int flushed = 0;
  /* Rank 1 of 2 writing 1M interleaved 4 KiB pieces in one epoch. */
  for (int64_t i = 0; i < (1 << 20); i++)
    flushed += ostio__logcomp_add(&c, 7, 1, (2 * i + 1) * 4096, 4096, i * 4096, &out);
  CHECK_EQ_I64(flushed, 0);
  CHECK(ostio__logcomp_take(&c, &out) == 1 && out.count == (1 << 20) && out.lstride == 8192 &&
        out.lstart == 4096 && out.length == 4096 && out.pstart == 0);
  CHECK(ostio__logcomp_take(&c, &out) == 0);
  /* 47,008-byte pieces, contiguous (stride == length). */
  for (int64_t i = 0; i < 1000; i++)
    flushed += ostio__logcomp_add(&c, 7, 0, i * 47008, 47008, 100 + i * 47008, &out);
  CHECK(flushed == 0 && ostio__logcomp_take(&c, &out) && out.count == 1000 && out.lstride == 47008);
  /* Breaks: seq, length, stride, physical gap, backwards, overlap. */
  struct { int64_t l, len, p; uint64_t seq; int breaks; } steps[] = {
    {0, 10, 0, 1, 0}, {100, 10, 10, 1, 0}, {200, 10, 20, 1, 0}, /* stride 100 */
    {300, 10, 30, 2, 1},                                        /* new seq */
    {400, 10, 40, 2, 0}, {500, 11, 50, 2, 1},                   /* new length */
    {600, 11, 61, 2, 0}, {650, 11, 72, 2, 1},                   /* stride 550 then 50 */
    {700, 11, 90, 2, 1},                                        /* physical gap */
    {600, 11, 101, 2, 1},                                       /* backwards */
    {605, 11, 112, 2, 1},                                       /* overlaps: stride < len */
  };
  int got = 0;
  memset(&c, 0, sizeof c);
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    int f = ostio__logcomp_add(&c, steps[i].seq, 0, steps[i].l, steps[i].len, steps[i].p, &out);
    CHECKF(f == steps[i].breaks, "step %zu", i);
    got += f;
  }
  CHECK_EQ_I64(got, 6);
}

/* ---- resolve against a byte model ------------------------------------------------- */

#define N 4096
typedef struct { int32_t src; int64_t phys; } mbyte;

static void model_apply(mbyte *b, int64_t *size, const ostio__logent *e)
{
  const ostio__logrec *r = &e->r;
  if (r->type == OSTIO__LOGREC_TRUNC) {
    for (int64_t x = r->lstart; x < N; x++) b[x] = (mbyte){-1, 0};
    *size = r->lstart;
    return;
  }
  for (int64_t i = 0; i < r->count; i++)
    for (int64_t k = 0; k < r->length; k++) {
      int64_t x = r->lstart + i * r->lstride + k;
      if (x < N) b[x] = (mbyte){e->src, r->pstart + i * r->length + k};
    }
  if (ostio__logrec_end(r) > *size) *size = ostio__logrec_end(r);
}

static ostio__logent random_ent(tu_rng *r, uint64_t idx)
{
  ostio__logent e = {.idx = idx, .src = (int32_t)tu_rng_range(r, 0, 5)};
  e.r.seq = (uint64_t)tu_rng_range(r, 0, 6);
  e.r.writer = (uint32_t)tu_rng_range(r, 0, 3);
  if (tu_rng_range(r, 0, 9) == 0) {
    e.r.type = OSTIO__LOGREC_TRUNC;
    e.r.lstart = tu_rng_range(r, 0, N);
    e.src = -1;
    return e;
  }
  e.r.type = OSTIO__LOGREC_WRITE;
  e.r.length = tu_rng_range(r, 1, 64);
  e.r.count = tu_rng_range(r, 1, 8);
  e.r.lstride = e.r.count > 1 ? e.r.length + tu_rng_range(r, 0, 64) : 0;
  e.r.lstart = tu_rng_range(r, 0, N - 1 - (e.r.count - 1) * e.r.lstride - e.r.length);
  if (e.r.lstart < 0) e.r.lstart = 0, e.r.count = 1, e.r.lstride = 0;
  e.r.pstart = tu_rng_range(r, 0, 100000);
  return e;
}

static void test_resolve(tu_rng *r)
{
  ostio__logres res = {0};
  for (int round = 0; round < 300; round++) {
    ostio__logmap m;
    ostio__logmap_init(&m);
    int n = (int)tu_rng_range(r, 0, 60);
    ostio__logent *e = calloc((size_t)n + 2, sizeof *e);
    for (int i = 0; i < n; i++) e[i] = random_ent(r, (uint64_t)i);
    /* Added in two batches, in any order; some rounds add a sorted tail later. */
    int half = n / 2;
    CHECK(ostio__logmap_add(&m, e, (size_t)half) == 0);
    CHECK(ostio__logmap_build(&m) == 0);
    CHECK(ostio__logmap_add(&m, e + half, (size_t)(n - half)) == 0);
    ostio__logent extra = random_ent(r, 1000);
    extra.r.seq = 99; /* after everything */
    int use_extra = round % 3 == 0;
    /* The model applies everything in key order. */
    ostio__logent *sorted = calloc((size_t)n + 2, sizeof *sorted);
    memcpy(sorted, e, (size_t)n * sizeof *e);
    qsort(sorted, (size_t)n, sizeof *sorted, ostio__logent_cmp);
    if (use_extra) sorted[n] = extra;
    static mbyte b[N];
    int64_t size = 0;
    for (int x = 0; x < N; x++) b[x] = (mbyte){-1, 0};
    for (int i = 0; i < n + use_extra; i++) model_apply(b, &size, &sorted[i]);
    int64_t msize = 0;
    for (int i = 0; i < n; i++) model_apply((mbyte[N]){0}, &msize, &sorted[i]);
    CHECKF(m.size == msize, "round %d: size %lld, model %lld", round, (long long)m.size,
           (long long)msize);
    for (int q = 0; q < 20; q++) {
      int64_t off = tu_rng_range(r, 0, N - 1), len = tu_rng_range(r, 1, N - off);
      CHECK(ostio__logmap_resolve(&m, &extra, (size_t)use_extra, off, len, &res) == 0);
      int64_t at = off;
      int ok = 1;
      for (size_t s = 0; s < res.nseg && ok; s++) {
        const ostio__logseg *g = &res.seg[s];
        ok = g->off == at && g->len > 0;
        for (int64_t k = 0; k < g->len && ok; k++) {
          mbyte want = b[g->off + k];
          ok = g->src == want.src && (g->src < 0 || g->phys + k == want.phys);
        }
        at += g->len;
      }
      CHECKF(ok && at == off + len, "round %d range [%lld, +%lld)", round, (long long)off,
             (long long)len);
    }
    free(e);
    free(sorted);
    ostio__logmap_free(&m);
  }
  ostio__logres_free(&res);
}

/* A small read's lookup examines the records near its range, not every
 * record before it: one strided record over the whole file (a writer's
 * pattern compressed, its span the file) and NW small records between its
 * pieces (issue 29: a 4 KiB collective read of a log container scanned half
 * the index per call). The segments name the right record and bytes. */
static void test_resolve_near(void)
{
  enum { NW = 4000, B = 4096 };
  ostio__logent *e = calloc(NW + 1, sizeof *e);
  e[0] = (ostio__logent){.src = 0, .idx = 0};
  e[0].r = (ostio__logrec){.type = OSTIO__LOGREC_WRITE, .lstart = 0, .lstride = 2 * B,
                           .length = B, .count = NW, .pstart = 0};
  for (int i = 1; i <= NW; i++) {
    e[i] = (ostio__logent){.src = 1, .idx = (uint64_t)i};
    e[i].r = (ostio__logrec){.type = OSTIO__LOGREC_WRITE, .seq = 1,
                             .lstart = (int64_t)(2 * (i - 1) + 1) * B, .length = B, .count = 1,
                             .pstart = (int64_t)(i - 1) * B};
  }
  ostio__logmap m;
  ostio__logmap_init(&m);
  CHECK(ostio__logmap_add(&m, e, NW + 1) == 0);
  CHECK(ostio__logmap_build(&m) == 0);
  ostio__logres res = {0};
  size_t most = 0;
  int bad = 0;
  for (int i = 0; i < NW; i += 7) {
    int64_t off = (int64_t)(2 * i + 1) * B; /* record i + 1's bytes, one each side */
    CHECK(ostio__logmap_resolve(&m, NULL, 0, off - 1, B + 2, &res) == 0);
    if (res.visited > most) most = res.visited;
    bad += res.nseg != 3 || res.seg[0].src != 0 || res.seg[0].phys != (int64_t)i * B + B - 1 ||
           res.seg[1].src != 1 || res.seg[1].phys != (int64_t)i * B || res.seg[1].len != B ||
           res.seg[2].src != 0 || res.seg[2].phys != (int64_t)(i + 1) * B;
  }
  CHECKF(bad == 0, "%d small reads resolved to the wrong records or bytes", bad);
  CHECKF(most <= 8, "a %d-byte read examined %zu of %d records: expected the few near it",
         B + 2, most, NW + 1);
  ostio__logres_free(&res);
  ostio__logmap_free(&m);
  free(e);
}

/* ---- manifest, names, fuzz -------------------------------------------------------- */

static void log_manifest(ostio__manifest *m)
{
  memset(m, 0, sizeof *m);
  m->version = 1;
  m->kind = &ostio__ctr_log;
  snprintf(m->created, sizeof m->created, "2026-11-21T13:00:00Z");
  snprintf(m->created_by, sizeof m->created_by, "host=n1 pid=1 ostio=0.1.0");
  snprintf(m->requested, sizeof m->requested, "hostdirs=3");
  m->hostdirs = 3;
}

static int parse_sealed(const char *body)
{
  char *t;
  size_t n;
  ostio__manifest m;
  if (ostio__ctr_seal(body, strlen(body), &t, &n) < 0) return -999;
  int rc = ostio__manifest_parse(t, n, "M", &m);
  ostio__manifest_free(&m);
  free(t);
  return rc;
}

static void test_manifest_names(void)
{
  ostio__manifest m, back;
  char *t = NULL;
  size_t n = 0;
  log_manifest(&m);
  CHECK(ostio__manifest_format(&m, &t, &n) == 0);
  CHECK(t && strstr(t, "kind log\n") && strstr(t, "hostdirs 3\nwriters rank\n"));
  CHECK(ostio__manifest_parse(t, n, "M", &back) == 0 && back.kind == &ostio__ctr_log &&
        back.hostdirs == 3 && back.writers == OSTIO__LOG_WRITERS_RANK);
  free(t);
  const char *head = "ostio-container 1\nkind log\nbyte_order little\ncreated t\ncreated_by x\n"
                     "requested -\n";
  char body[512];
  struct { const char *tail, *needle; } cases[] = {
    {"hostdirs 3\nwriters node\n", NULL},
    {"hostdirs 0\nwriters rank\n", "from 1 to 1000"},
    {"hostdirs 1001\nwriters rank\n", "from 1 to 1000"},
    {"hostdirs 03\nwriters rank\n", "from 1 to 1000"},
    {"hostdirs 3\nwriters host\n", "\"rank\""},
    {"hostdirs 3\n", "\"writers\" is missing"},
    {"writers rank\n", "\"hostdirs\" is missing"},
    {"hostdirs 3\nhostdirs 3\nwriters rank\n", "given twice"},
    {"hostdirs 3\nwriters rank\nobjects 2\n", "unknown key"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(body, sizeof body, "%s%s", head, cases[i].tail);
    int rc = parse_sealed(body);
    if (!cases[i].needle) CHECKF(rc == 0, "case %zu: %s", i, ostio_last_error());
    else CHECKF(rc == OSTIO_EFORMAT && has(cases[i].needle), "case %zu: %s", i, ostio_last_error());
  }
  uint32_t s, w;
  CHECK(ostio__log_parse_name("data.1.0", &s, &w) == 1 && s == 1 && w == 0);
  CHECK(ostio__log_parse_name("index.4294967295.2147483647", &s, &w) == 2 && s == 4294967295u);
  const char *refused[] = {"data.0.1", "data.01.1", "data.1.01", "data.1", "data.1.1.",
                           "data.1.1/../x", "../data.1.1", "data.4294967296.0",
                           "index.1.2147483648", "data.1.-1", "data.+1.1", "Data.1.1", "",
                           "data..1", "index.1.1 ", "data.1.1\n"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    CHECKF(ostio__log_parse_name(refused[i], &s, &w) == 0, "\"%s\"", refused[i]);
  char name[64];
  ostio__log_name(name, sizeof name, 7, "index", 3, 12);
  CHECK(!strcmp(name, "hostdir.007/index.3.12"));
  CHECK(ostio__log_hostdir_of("n01", 1) == 0);
  CHECK(ostio__log_hostdir_of("n01", 5) == ostio__log_hostdir_of("n01", 5));
}

static void test_fuzz(tu_rng *r)
{
  int rounds = 4000, valid = 0;
  const char *env = getenv("OSTIO_TEST_FUZZ");
  if (env && atoi(env) > 0) rounds = atoi(env);
  for (int i = 0; i < rounds; i++) {
    /* Records: random bytes, or a valid record with bytes changed, re-sealed
     * half of the time so the value checks are reached. */
    unsigned char b[OSTIO__LOGREC_SIZE];
    ostio__logrec a = random_write(r), out;
    ostio__logrec_encode(&a, b);
    int nmut = (int)tu_rng_range(r, 1, 6);
    for (int k = 0; k < nmut; k++) b[tu_rng_range(r, 0, 63)] = (unsigned char)tu_rng_next(r);
    if (i % 7 == 0)
      for (int k = 0; k < 64; k++) b[k] = (unsigned char)tu_rng_next(r);
    if (i % 2) {
      uint32_t c = ostio__crc32c(b, 60);
      for (int k = 0; k < 4; k++) b[60 + k] = (unsigned char)(c >> (8 * k));
    }
    int rc = ostio__logrec_decode(b, &out);
    CHECKF(rc == 0 || (rc == OSTIO_EFORMAT && ostio_last_error()[0]), "record %d: rc %d", i, rc);
    if (rc == 0) {
      valid++;
      unsigned char again[OSTIO__LOGREC_SIZE];
      ostio__logrec_encode(&out, again);
      CHECK(!memcmp(again, b, sizeof b));
      CHECK(ostio__logrec_end(&out) >= out.lstart && ostio__logrec_pend(&out) >= 0);
    }
    /* The log manifest: bytes changed, inserted or deleted, sealed or not. */
    ostio__manifest m, back;
    char *t = NULL;
    size_t n = 0;
    log_manifest(&m);
    ostio__manifest_format(&m, &t, &n);
    char *body = malloc(n + 16);
    memcpy(body, t, n);
    size_t len = n - (i % 2 ? 34 : 0); /* without the checksum line: re-sealed below */
    int op = (int)tu_rng_range(r, 0, 2);
    size_t at = (size_t)tu_rng_range(r, 0, (int64_t)len - 1);
    if (op == 0) body[at] = (char)tu_rng_range(r, 1, 255);
    if (op == 1) {
      memmove(body + at + 1, body + at, len - at);
      body[at] = (char)tu_rng_next(r);
      len++;
    } else if (op == 2) {
      memmove(body + at, body + at + 1, len - at - 1);
      len--;
    }
    char *sealed = NULL;
    size_t slen = len;
    if (i % 2) ostio__ctr_seal(body, len, &sealed, &slen);
    rc = ostio__manifest_parse(sealed ? sealed : body, slen, "M", &back);
    CHECKF(rc == 0 || (rc == OSTIO_EFORMAT && ostio_last_error()[0]), "manifest %d: rc %d", i, rc);
    if (rc == 0) {
      char *t2 = NULL;
      size_t n2 = 0;
      CHECK(ostio__manifest_format(&back, &t2, &n2) == 0);
      free(t2);
    }
    ostio__manifest_free(&back);
    free(sealed);
    free(body);
    free(t);
  }
  printf("fuzz: %d mutations of records and log manifests (%d records still valid)\n", rounds,
         valid);
}

/* Issue 28: the process's clock of a container (log_clock.c). */
static void test_clock(void)
{
  char dir[] = "/tmp/ostio_clock_XXXXXX", link[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(link, sizeof link, "%s.lnk", dir);
  CHECK(symlink(dir, link) == 0);
  int fa = open(dir, O_RDONLY | O_DIRECTORY), fb = open(link, O_RDONLY | O_DIRECTORY);
  ostio__logclock *a = NULL, *b = NULL;
  /* Two paths of one directory: one clock (device and inode, not the text). */
  CHECK(ostio__log_clock_get(fa, dir, &a) == 0 && ostio__log_clock_get(fb, link, &b) == 0 &&
        a == b);
  const int g = 1, h = 2; /* two handles */
  uint64_t cg = (uint64_t)5 << 32 | 1, ch = (uint64_t)6 << 32 | 1;
  ostio__log_clock_took(a, &g, cg);
  ostio__log_clock_took(a, &h, ch);
  /* g writes after h: above h's seq; again: unchanged (its own, compresses). */
  CHECK(ostio__log_clock_issue(a, &g, &cg) == 0 && cg == ch + 1);
  CHECK(ostio__log_clock_issue(a, &g, &cg) == 0 && cg == ch + 1);
  /* h after g, then g after h: each above the other. */
  CHECK(ostio__log_clock_issue(a, &h, &ch) == 0 && ch == cg + 1);
  CHECK(ostio__log_clock_issue(a, &g, &cg) == 0 && cg == ch + 1);
  /* A seq seen (another rank, the disk) is passed by the next write. */
  ostio__log_clock_saw(b, cg + 10);
  CHECK(ostio__log_clock_max(a) == cg + 10);
  CHECK(ostio__log_clock_issue(a, &g, &cg) == 0 && cg == ostio__log_clock_max(a) &&
        cg == ch + 12);
  /* Never into the next session's block. */
  uint64_t v = 0;
  CHECK(ostio__log_clock_next((uint64_t)6 << 32 | 0xfffffffeu, &v) == 0 &&
        v == ((uint64_t)6 << 32 | 0xffffffffu));
  CHECK(ostio__log_clock_next(v, &v) == OSTIO_ERANGE && has("2^32"));
  ostio__log_clock_saw(a, (uint64_t)6 << 32 | 0xffffffffu);
  uint64_t cur = cg;
  CHECK(ostio__log_clock_issue(a, &h, &cur) == OSTIO_ERANGE && cur == cg);
  ostio__log_clock_put(&a);
  ostio__log_clock_put(&b);
  CHECK(a == NULL && b == NULL);
  /* Freed with the last handle: a new one starts at 0. */
  CHECK(ostio__log_clock_get(fa, dir, &a) == 0 && ostio__log_clock_max(a) == 0);
  ostio__log_clock_put(&a);
  close(fa);
  close(fb);
  unlink(link);
  rmdir(dir);
}

int main(void)
{
  tu_rng r;
  tu_rng_seed(&r, tu_seed(20261121));
  test_codec(&r);
  test_compressor();
  test_resolve(&r);
  test_resolve_near();
  test_manifest_names();
  test_fuzz(&r);
  test_clock();
  return TEST_DONE();
}
