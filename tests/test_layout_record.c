/* The emulated layout record: round trips, known text, bad records, and
 * random mutations that must give a valid layout or a clean error. */
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "testutil.h"

static void round_trips(tu_rng *r)
{
  for (int i = 0; i < 500; i++) {
    ostio_layout *l = tu_random_layout(r, i % 2), *back = NULL;
    char *text = NULL;
    size_t len = 0;
    if (i % 5 == 0) strcpy(l->comp[0].pool, "flash_pool");
    if (i % 7 == 0) { free(l->comp[0].osts); l->comp[0].osts = NULL; l->comp[0].instantiated = 0; }
    if (i % 3 == 0) l->comp[l->ncomp - 1].object_size = l->comp[l->ncomp - 1].stripe_size * (i % 4 + 1);
    CHECK(ostio__record_encode(l, &text, &len) == 0);
    CHECK(text && strlen(text) == len);
    /* version 2 only when a component has an object size */
    CHECK(text && !strncmp(text, i % 3 == 0 ? "ostio-layout 2\n" : "ostio-layout 1\n", 15));
    CHECKF(ostio__record_decode(text, len, &back) == 0, "%s: %s", text, ostio_last_error());
    CHECK(back && ostio__layout_equal(l, back));
    CHECK(back && !strcmp(back->source, "emulated"));
    ostio__layout_destroy(back);
    free(text);
    ostio__layout_destroy(l);
  }
}

static void known_text(void)
{
  const char *t = "ostio-layout 1\n"
                  "component start=0 end=4194304 stripe_size=1048576 stripe_count=1 "
                  "first_ost=2 pattern=raid0 instantiated=1 osts=2\n"
                  "component start=4194304 end=eof stripe_size=4194304 stripe_count=6 "
                  "first_ost=0 pattern=raid0,overstriping instantiated=1 osts=0-2,0-1,7 pool=p1\n";
  ostio_layout *l = NULL;
  CHECK(ostio__record_decode(t, strlen(t), &l) == 0);
  if (!l) return;
  CHECK(l->ncomp == 2);
  CHECK(l->comp[0].end == 4194304 && l->comp[0].osts[0] == 2);
  CHECK(l->comp[1].end == OSTIO_EOF && l->comp[1].stripe_count == 6);
  CHECK(l->comp[1].pattern == (OSTIO_PATTERN_RAID0 | OSTIO_PATTERN_OVERSTRIPING));
  CHECK(l->comp[1].osts[3] == 0 && l->comp[1].osts[5] == 7 && !strcmp(l->comp[1].pool, "p1"));
  char *enc;
  size_t n;
  CHECK(ostio__record_encode(l, &enc, &n) == 0 && !strcmp(enc, t));
  free(enc);
  ostio__layout_destroy(l);
}

/* Version 2: object_size (Ceph's object sets). */
static void known_text_v2(void)
{
  const char *t = "ostio-layout 2\n"
                  "component start=0 end=eof stripe_size=65536 stripe_count=3 "
                  "object_size=262144 first_ost=-1 pattern=raid0 instantiated=0 pool=cephfs_data\n";
  ostio_layout *l = NULL;
  CHECKF(ostio__record_decode(t, strlen(t), &l) == 0, "%s", ostio_last_error());
  if (!l) return;
  CHECK(l->comp[0].object_size == 262144 && l->comp[0].stripe_count == 3);
  char *enc;
  size_t n;
  CHECK(ostio__record_encode(l, &enc, &n) == 0 && !strcmp(enc, t));
  free(enc);
  /* without an object size the same layout is written as version 1 */
  l->comp[0].object_size = 0;
  CHECK(ostio__record_encode(l, &enc, &n) == 0 && !strncmp(enc, "ostio-layout 1\n", 15) &&
        !strstr(enc, "object_size"));
  free(enc);
  ostio__layout_destroy(l);
}

static void expect_error(const char *t, int code, const char *needle)
{
  ostio_layout *l = (ostio_layout *)1;
  int rc = ostio__record_decode(t, strlen(t), &l);
  CHECKF(rc == code, "record \"%s\": rc %d, expected %d", t, rc, code);
  CHECK(l == NULL);
  CHECKF(strstr(ostio_last_error(), needle) != NULL, "detail \"%s\" lacks \"%s\"",
         ostio_last_error(), needle);
}

static void bad_records(void)
{
  const char *head = "ostio-layout 1\n";
  char buf[512];
  expect_error("", OSTIO_EFORMAT, "empty");
  expect_error("hello\n", OSTIO_EFORMAT, "not an ostio layout record");
  expect_error("ostio-layout 3\ncomponent start=0\n", OSTIO_EFORMAT, "version 3");
  /* object_size is a version 2 key: a version 1 record with it is refused */
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=4096 stripe_count=1 "
                            "object_size=8192\n", head);
  expect_error(buf, OSTIO_EFORMAT, "unknown key \"object_size\"");
  expect_error("ostio-layout 2\ncomponent start=0 end=eof stripe_size=4096 stripe_count=1 "
               "object_size=6144\n", OSTIO_ELAYOUT, "object size 6144");
  expect_error("ostio-layout 2\ncomponent start=0 end=eof stripe_size=4096 stripe_count=1 "
               "object_size=0\n", OSTIO_EFORMAT, "object_size");
  expect_error("ostio-layout 1x\n", OSTIO_EFORMAT, "not an ostio");
  expect_error("ostio-layout 1\n", OSTIO_ELAYOUT, "0 components");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=0 stripe_count=1\n", head);
  expect_error(buf, OSTIO_ELAYOUT, "stripe size 0");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=4096 stripe_count=0\n", head);
  expect_error(buf, OSTIO_EFORMAT, "stripe_count");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=4096\n", head);
  expect_error(buf, OSTIO_EFORMAT, "needs start");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=4096 stripe_count=2 osts=1\n", head);
  expect_error(buf, OSTIO_EFORMAT, "1 entries");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=4096 stripe_count=2 osts=0-999999999\n", head);
  expect_error(buf, OSTIO_EFORMAT, "more than");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=4096 stripe_count=2 osts=3,3\n", head);
  expect_error(buf, OSTIO_ELAYOUT, "overstriping");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=4096 stripe_count=1 colour=red\n", head);
  expect_error(buf, OSTIO_EFORMAT, "unknown key");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=100 stripe_size=10 stripe_count=1\n"
                            "component start=50 end=eof stripe_size=10 stripe_count=1\n", head);
  expect_error(buf, OSTIO_ELAYOUT, "contiguous");
  snprintf(buf, sizeof buf, "%scomponent start=0 end=eof stripe_size=12k stripe_count=1\n", head);
  expect_error(buf, OSTIO_EFORMAT, "stripe_size");
  snprintf(buf, sizeof buf, "%sstripe start=0\n", head);
  expect_error(buf, OSTIO_EFORMAT, "expected \"component");
  ostio_layout *l;
  CHECK(ostio__record_decode("ostio-layout 1\0junk", 19, &l) == OSTIO_EFORMAT);
}

static void mutations(tu_rng *r)
{
  static const char alphabet[] = "0123456789-=, \n=eofraid0k_";
  long ok = 0;
  for (int i = 0; i < 5000; i++) {
    ostio_layout *l = tu_random_layout(r, i % 2), *back = NULL;
    char *text;
    size_t len;
    ostio__record_encode(l, &text, &len);
    int nmut = (int)tu_rng_range(r, 1, 4);
    for (int m = 0; m < nmut && len; m++) {
      size_t at = (size_t)tu_rng_range(r, 0, (int64_t)len - 1);
      switch (tu_rng_range(r, 0, 2)) {
      case 0: text[at] = alphabet[tu_rng_range(r, 0, (int64_t)sizeof alphabet - 2)]; break;
      case 1: len = at; break;
      default: text[at] = (char)tu_rng_range(r, 1, 255); break;
      }
    }
    int rc = ostio__record_decode(text, len, &back);
    if (rc == 0) {
      ok++;
      CHECK(ostio__layout_validate(back) == 0);
    } else {
      CHECK(rc < 0 && back == NULL && ostio_last_error()[0]);
    }
    ostio__layout_destroy(back);
    ostio__layout_destroy(l);
    free(text);
  }
  printf("mutations: %ld of 5000 still decoded to a valid layout\n", ok);
}

int main(void)
{
  tu_rng r;
  tu_rng_seed(&r, tu_seed(7));
  round_trips(&r);
  known_text();
  known_text_v2();
  bad_records();
  mutations(&r);
  return TEST_DONE();
}
