/* Container manifest and size record codecs (pure, no disks): round trips,
 * every damage case with its message, and a fuzz of random mutations of a
 * valid manifest (no crash, a clean OSTIO_EFORMAT or a manifest that formats
 * again). Also the striped size arithmetic against a byte-walking model.
 * OSTIO_TEST_FUZZ=N sets the number of mutations (default 4000). */
#include <stdlib.h>
#include <string.h>

#include "container/container.h"
#include "container/store.h"
#include "testutil.h"

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

static void sample(ostio__manifest *m, int32_t k)
{
  memset(m, 0, sizeof *m);
  m->version = 1;
  m->kind = &ostio__ctr_striped;
  snprintf(m->byte_order, sizeof m->byte_order, "little");
  snprintf(m->created, sizeof m->created, "2026-01-02T03:04:05Z");
  snprintf(m->created_by, sizeof m->created_by, "host=n1 pid=42 ostio=0.1.0");
  snprintf(m->requested, sizeof m->requested, "objects=%d (from ostio_objects)", (int)k);
  m->stripe_size = 1 << 20;
  m->nobjects = k;
  m->names = calloc((size_t)k, sizeof *m->names);
  for (int32_t i = 0; i < k; i++) {
    m->names[i] = malloc(16);
    snprintf(m->names[i], 16, "obj.%04d", (int)i);
  }
}

/* Parses body + a correct checksum line; returns the code. */
static int parse_sealed(const char *body, ostio__manifest *m)
{
  char *t;
  size_t n;
  if (ostio__ctr_seal(body, strlen(body), &t, &n) < 0) return -999;
  int rc = ostio__manifest_parse(t, n, "M", m);
  ostio__manifest_free(m);
  free(t);
  return rc;
}

static void test_round_trip(void)
{
  for (int32_t k = 1; k <= 2000; k = k < 8 ? k + 1 : k * 3) {
    ostio__manifest m, back;
    sample(&m, k);
    char *t = NULL, *t2 = NULL;
    size_t n = 0, n2 = 0;
    CHECK(ostio__manifest_format(&m, &t, &n) == 0);
    CHECK(strncmp(t, "ostio-container 1\nkind striped\n", 31) == 0);
    CHECKF(ostio__manifest_parse(t, n, "M", &back) == 0, "k=%d: %s", (int)k, ostio_last_error());
    CHECK(back.nobjects == k && back.stripe_size == m.stripe_size &&
          back.kind == &ostio__ctr_striped && back.version == 1);
    CHECK(!strcmp(back.created, m.created) && !strcmp(back.created_by, m.created_by) &&
          !strcmp(back.requested, m.requested) && !strcmp(back.byte_order, "little"));
    for (int32_t i = 0; i < k; i++) CHECK(!strcmp(back.names[i], m.names[i]));
    CHECK(ostio__manifest_format(&back, &t2, &n2) == 0 && n2 == n && !memcmp(t, t2, n));
    ostio__manifest_free(&m);
    ostio__manifest_free(&back);
    free(t);
    free(t2);
  }
  /* Keys in another order, objects listed backwards: the same manifest. */
  ostio__manifest m;
  const char *body = "ostio-container 1\nkind striped\nobjects 2\nobject 1 b\nobject 0 a\n"
                     "stripe_size 65536\nrequested -\ncreated_by x\ncreated t\nbyte_order little\n";
  char *t;
  size_t n;
  ostio__ctr_seal(body, strlen(body), &t, &n);
  CHECK(ostio__manifest_parse(t, n, "M", &m) == 0 && !strcmp(m.names[0], "a") &&
        !strcmp(m.names[1], "b") && m.stripe_size == 65536);
  ostio__manifest_free(&m);
  free(t);
}

/* One damaged body: code and a needle in the detail. */
typedef struct { const char *what, *body, *needle; } damage;

#define HEAD "ostio-container 1\nkind striped\n"
#define COMMON "byte_order little\ncreated t\ncreated_by x\nrequested -\n"
#define GOOD2 "stripe_size 1048576\nobjects 2\nobject 0 obj.0000\nobject 1 obj.0001\n"

static const damage cases[] = {
  {"bad magic", "ostio-kontainer 1\nkind striped\n" COMMON GOOD2, "not a container manifest"},
  {"newer version", "ostio-container 2\nkind striped\n" COMMON GOOD2, "upgrade ostio"},
  {"version 0", "ostio-container 0\nkind striped\n" COMMON GOOD2, "format version \"0\""},
  {"no kind line", "ostio-container 1\n" COMMON GOOD2, "line 2: expected \"kind KIND\""},
  {"unknown kind", "ostio-container 1\nkind mirrored\n" COMMON GOOD2, "unknown kind \"mirrored\""},
  {"K = 0", HEAD COMMON "stripe_size 1048576\nobjects 0\n", "objects \"0\": expected an object count from 1 to 2000"},
  {"K too large", HEAD COMMON "stripe_size 1048576\nobjects 2001\n", "from 1 to 2000"},
  {"K not a number", HEAD COMMON "stripe_size 1048576\nobjects 2x\n", "objects \"2x\""},
  {"stripe 0", HEAD COMMON "stripe_size 0\nobjects 1\nobject 0 a\n", "multiple of 65536"},
  {"stripe 4 KiB", HEAD COMMON "stripe_size 4096\nobjects 1\nobject 0 a\n", "multiple of 65536"},
  {"stripe 4 GiB", HEAD COMMON "stripe_size 4294967296\nobjects 1\nobject 0 a\n", "4294901760"},
  {"leading zero", HEAD COMMON "stripe_size 065536\nobjects 1\nobject 0 a\n", "stripe_size \"065536\""},
  {"missing stripe_size", HEAD COMMON "objects 1\nobject 0 a\n", "\"stripe_size\" is missing"},
  {"missing created", HEAD "byte_order little\ncreated_by x\nrequested -\n" GOOD2, "\"created\" is missing"},
  {"duplicate key", HEAD COMMON "stripe_size 65536\n" GOOD2, "\"stripe_size\" given twice"},
  {"unknown key", HEAD COMMON GOOD2 "compression zstd\n", "unknown key \"compression\""},
  {"byte order big", HEAD "byte_order big\ncreated t\ncreated_by x\nrequested -\n" GOOD2, "only \"little\""},
  {"missing object line", HEAD COMMON "stripe_size 65536\nobjects 2\nobject 0 a\n", "no \"object 1 NAME\" line"},
  {"object index too big", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 1 a\n", "expected 0 to 0"},
  {"object twice", HEAD COMMON "stripe_size 65536\nobjects 2\nobject 0 a\nobject 0 b\n", "object 0 listed twice"},
  {"object before objects", HEAD COMMON "stripe_size 65536\nobject 0 a\nobjects 1\n", "before \"objects\""},
  {"empty name", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0\n", "expected \"object INDEX NAME\""},
  {"name with slash", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 ../victim\n", "no '/'"},
  {"name with slash 2", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 a/b\n", "\"a/b\""},
  {"name ..", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 ..\n", "not starting with '.'"},
  {"name .", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 .\n", "file name \".\""},
  {"hidden name", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 .x\n", "\".x\""},
  {"reserved name", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 ostio.manifest\n", "\"ostio.manifest\""},
  {"name with space", HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 a b\n", "\"a b\""},
  {"duplicate name", HEAD COMMON "stripe_size 65536\nobjects 2\nobject 0 a\nobject 1 a\n", "used twice"},
  {"empty line", HEAD COMMON "\n" GOOD2, "expected \"KEY VALUE\""},
  {"long text", HEAD "byte_order little\ncreated 0123456789012345678901234567890123456789012345678901234567890123456789\ncreated_by x\nrequested -\n" GOOD2, "longer than 63"},
};

static void test_damage(void)
{
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ostio__manifest m;
    int rc = parse_sealed(cases[i].body, &m);
    CHECKF(rc == OSTIO_EFORMAT && has(cases[i].needle), "%s: rc %d, detail \"%s\", wanted \"%s\"",
           cases[i].what, rc, ostio_last_error(), cases[i].needle);
    CHECKF(has("M"), "%s: the detail names the file", cases[i].what);
    CHECK(m.names == NULL && m.nobjects == 0);
  }
  /* Line numbers: the bad line is named. */
  ostio__manifest m;
  CHECK(parse_sealed(HEAD COMMON "stripe_size 65536\nobjects 1\nobject 0 ../x\n", &m) ==
        OSTIO_EFORMAT && has("M line 9:"));
  /* Newer version without our checksum (a future format may seal otherwise). */
  const char *v2 = "ostio-container 7\nkind striped\nchecksum sha256 abc\n";
  CHECK(ostio__manifest_parse(v2, strlen(v2), "M", &m) == OSTIO_EFORMAT &&
        has("version 7 is newer") && has("(version 1)") && has("upgrade ostio"));
  /* Checksum: a changed byte, a missing line, garbage digits, truncation. */
  ostio__manifest good;
  sample(&good, 3);
  char *t;
  size_t n;
  CHECK(ostio__manifest_format(&good, &t, &n) == 0);
  ostio__manifest_free(&good);
  char *c = strstr(t, "objects 3");
  c[8] = '4';
  CHECK(ostio__manifest_parse(t, n, "M", &m) == OSTIO_EFORMAT && has("checksum mismatch"));
  c[8] = '3';
  CHECK(ostio__manifest_parse(t, n, "M", &m) == 0);
  ostio__manifest_free(&m);
  CHECK(ostio__manifest_parse(t, n - 1, "M", &m) == OSTIO_EFORMAT && has("truncated"));
  CHECK(ostio__manifest_parse(t, n / 2, "M", &m) == OSTIO_EFORMAT);
  char *last = strstr(t, "checksum fnv1a64 ");
  last[17] = 'G';
  CHECK(ostio__manifest_parse(t, n, "M", &m) == OSTIO_EFORMAT && has("hex digits"));
  t[5] = '\0';
  CHECK(ostio__manifest_parse(t, n, "M", &m) == OSTIO_EFORMAT && has("printable ASCII"));
  free(t);
  CHECK(ostio__manifest_parse("", 0, "M", &m) == OSTIO_EFORMAT);
  CHECK(ostio__manifest_parse(NULL, 0, "M", &m) == OSTIO_EINVAL);
  /* The size cap: refused before looking inside. */
  size_t big = OSTIO__CTR_MANIFEST_MAX + 1;
  char *huge = malloc(big);
  memset(huge, 'a', big);
  CHECK(ostio__manifest_parse(huge, big, "M", &m) == OSTIO_EFORMAT && has("at most 1048576"));
  free(huge);
}

static void test_sizerec(void)
{
  ostio__sizerec r = {.clean = 1, .size = 123456789012}, back;
  char *t;
  size_t n;
  CHECK(ostio__sizerec_format(&r, &t, &n) == 0);
  CHECK(!strncmp(t, "ostio-size 1\nstate clean\nsize 123456789012\nchecksum fnv1a64 ", 57));
  CHECK(ostio__sizerec_parse(t, n, "S", &back) == 0 && back.clean == 1 &&
        back.size == 123456789012);
  free(t);
  r = (ostio__sizerec){.clean = 0, .size = 0};
  CHECK(ostio__sizerec_format(&r, &t, &n) == 0);
  CHECK(ostio__sizerec_parse(t, n, "S", &back) == 0 && back.clean == 0 && back.size == 0);
  t[20] = 'x';
  CHECK(ostio__sizerec_parse(t, n, "S", &back) == OSTIO_EFORMAT && has("checksum"));
  free(t);
  static const char *const bad[] = {"ostio-size 1\nstate dirty\nsize 1\n",
                                    "ostio-size 1\nstate clean\nsize -1\n",
                                    "ostio-size 1\nstate clean size 1\n",
                                    "ostio-size 1\nstate clean\nsize 1\nextra 2\n",
                                    "ostio-size 1\nsize 1\nstate clean\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ostio__ctr_seal(bad[i], strlen(bad[i]), &t, &n);
    CHECKF(ostio__sizerec_parse(t, n, "S", &back) == OSTIO_EFORMAT && has("state clean"),
           "case %zu: %s", i, ostio_last_error());
    free(t);
  }
  CHECK(ostio__sizerec_parse("ostio-size 3\n", 13, "S", &back) == OSTIO_EFORMAT &&
        has("not a size record"));
  /* Version 2: the fingerprint of the index logs (log containers). */
  r = (ostio__sizerec){.clean = 1, .size = 77, .has_fp = 1, .fp = 0x0123456789abcdefull};
  CHECK(ostio__sizerec_format(&r, &t, &n) == 0);
  CHECK(!strncmp(t, "ostio-size 2\nstate clean\nsize 77\nindexes 0123456789abcdef\nchecksum ",
                 66));
  CHECK(ostio__sizerec_parse(t, n, "S", &back) == 0 && back.clean == 1 && back.size == 77 &&
        back.has_fp == 1 && back.fp == 0x0123456789abcdefull);
  free(t);
  static const char *const bad2[] = {"ostio-size 2\nstate clean\nsize 1\n",
                                     "ostio-size 2\nstate clean\nsize 1\nindexes 12\n",
                                     "ostio-size 1\nstate clean\nsize 1\nindexes "
                                     "0123456789abcdef\n"};
  for (size_t i = 0; i < sizeof bad2 / sizeof bad2[0]; i++) {
    ostio__ctr_seal(bad2[i], strlen(bad2[i]), &t, &n);
    CHECKF(ostio__sizerec_parse(t, n, "S", &back) == OSTIO_EFORMAT && has("state clean"),
           "v2 case %zu: %s", i, ostio_last_error());
    free(t);
  }
}

/* Per-object sizes of a logical file of size bytes, walking each stripe. */
static void model(int64_t s, int32_t k, int64_t size, int64_t *os)
{
  for (int32_t i = 0; i < k; i++) os[i] = 0;
  for (int64_t st = 0; st * s < size; st++) {
    int64_t len = size - st * s < s ? size - st * s : s;
    os[st % k] = st / k * s + len;
  }
}

static void test_arithmetic(tu_rng *r)
{
  int64_t os[16], mine[16];
  for (int i = 0; i < 3000; i++) {
    int64_t s = tu_rng_range(r, 1, 9);
    int32_t k = (int32_t)tu_rng_range(r, 1, 16);
    int64_t size = tu_rng_range(r, 0, 400);
    model(s, k, size, os);
    for (int32_t o = 0; o < k; o++) {
      mine[o] = ostio__striped_objsize(s, k, o, size);
      CHECKF(mine[o] == os[o], "s %lld k %d size %lld obj %d: %lld, model %lld", (long long)s,
             (int)k, (long long)size, (int)o, (long long)mine[o], (long long)os[o]);
    }
    CHECK_EQ_I64(ostio__striped_size(s, k, os), size);
    /* Holes: drop objects to 0; the size is the end of the last byte left. */
    int32_t drop = (int32_t)tu_rng_range(r, 0, k - 1);
    os[drop] = 0;
    int64_t end = 0;
    for (int64_t b = 0; b < size; b++) {
      int64_t st = b / s;
      if (st % k != drop) end = b + 1;
    }
    CHECK_EQ_I64(ostio__striped_size(s, k, os), end);
  }
  int64_t huge[2] = {INT64_MAX, 0};
  CHECK(ostio__striped_size(1 << 20, 2, huge) == INT64_MAX);
}

/* Random mutations of a valid manifest: no crash, and either a clean
 * OSTIO_EFORMAT or a manifest that formats and parses again. */
static void test_fuzz(tu_rng *r)
{
  ostio__manifest m;
  sample(&m, 5);
  char *t;
  size_t n;
  CHECK(ostio__manifest_format(&m, &t, &n) == 0);
  ostio__manifest_free(&m);
  const char *env = getenv("OSTIO_TEST_FUZZ");
  int rounds = env ? atoi(env) : 4000, accepted = 0;
  static const char alphabet[] = "0123456789 ab./\nobjects stripe_size kind 65536 ..";
  for (int i = 0; i < rounds; i++) {
    size_t body = n - 34; /* the checksum line is 34 bytes */
    char *b = malloc(body + 64);
    memcpy(b, t, body);
    size_t len = body;
    int nmut = (int)tu_rng_range(r, 1, 4);
    for (int j = 0; j < nmut && len > 0; j++) {
      size_t at = (size_t)tu_rng_range(r, 0, (int64_t)len - 1);
      switch (tu_rng_range(r, 0, 4)) {
      case 0: b[at] = alphabet[tu_rng_range(r, 0, sizeof alphabet - 2)]; break;
      case 1: b[at] = (char)tu_rng_range(r, 0, 255); break;
      case 2: memmove(b + at, b + at + 1, len - at - 1), len--; break; /* delete */
      case 3: if (len < body + 60) { memmove(b + at + 1, b + at, len - at); b[at] = alphabet[tu_rng_range(r, 0, sizeof alphabet - 2)]; len++; } break;
      default: len = at; break; /* truncate */
      }
    }
    char *sealed;
    size_t sn;
    int reseal = tu_rng_range(r, 0, 3) != 0; /* mostly resealed: reach the key parser */
    if (reseal) ostio__ctr_seal(b, len, &sealed, &sn);
    else sealed = b, sn = len;
    int rc = ostio__manifest_parse(sealed, sn, "F", &m);
    CHECKF(rc == 0 || (rc == OSTIO_EFORMAT && ostio_last_error()[0]), "fuzz %d: rc %d", i, rc);
    if (rc == 0) {
      accepted++;
      char *again;
      size_t an;
      ostio__manifest m2;
      CHECK(ostio__manifest_format(&m, &again, &an) == 0);
      CHECK(ostio__manifest_parse(again, an, "F", &m2) == 0 && m2.nobjects == m.nobjects);
      ostio__manifest_free(&m2);
      free(again);
      ostio__manifest_free(&m);
    }
    if (reseal) free(sealed);
    free(b);
  }
  printf("fuzz: %d mutations, %d still valid\n", rounds, accepted);
  free(t);
}

int main(void)
{
  tu_rng r;
  tu_rng_seed(&r, tu_seed(5005));
  test_round_trip();
  test_damage();
  test_sizerec();
  test_arithmetic(&r);
  test_fuzz(&r);
  return TEST_DONE();
}
