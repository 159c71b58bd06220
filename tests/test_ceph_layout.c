/* The CephFS source without a cluster: the ceph.*.layout text read as Ceph
 * writes it and rejected when it could upset the math, Ceph's rule with
 * messages naming the value, the default object size, and silence off
 * CephFS. (tests/pfs/layout.sh checks the same against a live CephFS.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/source.h"
#include "testutil.h"

static int parse(const char *text, ostio_layout **l)
{
  *l = NULL;
  return ostio__ceph_parse_layout("f", "ceph.file.layout", text, strlen(text), l);
}

static void bad(const char *text, int code, const char *needle)
{
  ostio_layout *l;
  int rc = parse(text, &l);
  CHECKF(rc == code && !l, "\"%s\": rc %d, expected %d", text, rc, code);
  CHECKF(strstr(ostio_last_error(), needle) != NULL, "\"%s\": detail \"%s\" lacks \"%s\"",
         text, ostio_last_error(), needle);
  ostio__layout_destroy(l);
}

static void reading(void)
{
  ostio_layout *l;
  CHECK(parse("stripe_unit=65536 stripe_count=3 object_size=262144 pool=cephfs_data", &l) == 0);
  if (l) {
    const ostio__comp *c = &l->comp[0];
    CHECK(l->ncomp == 1 && c->start == 0 && c->end == OSTIO_EOF && c->stripe_size == 65536 &&
          c->stripe_count == 3 && c->object_size == 262144 && !c->osts && c->first_ost == -1 &&
          !strcmp(c->pool, "cephfs_data") && !strcmp(l->source, "ceph"));
  }
  ostio__layout_destroy(l);
  /* a namespace, keys of later versions, a pool name too long for the model */
  CHECK(parse("stripe_unit=4194304 stripe_count=1 object_size=4194304 "
              "pool=a_pool_name_longer_than_sixteen pool_namespace=ns new_key=1", &l) == 0);
  CHECK(l && l->comp[0].pool[0] == '\0' && l->comp[0].object_size == 4194304);
  ostio__layout_destroy(l);
  bad("stripe_unit=65536 stripe_count=3", OSTIO_EFORMAT, "object_size -1");
  bad("stripe_unit=0 stripe_count=3 object_size=65536", OSTIO_EFORMAT, "stripe_unit 0");
  bad("stripe_unit=65536 stripe_count=3 object_size=98304", OSTIO_EFORMAT, "multiple");
  bad("stripe_unit=65536 stripe_count=4294967296 object_size=65536", OSTIO_EFORMAT, "2^32");
  bad("stripe_unit=-65536 stripe_count=1 object_size=65536", OSTIO_EFORMAT, "stripe_unit=-65536");
  bad("stripe_unit=65536 stripe_count=2001 object_size=65536", OSTIO_ENOTSUP, "2001");
  bad("garbage", OSTIO_EFORMAT, "garbage");
  bad("", OSTIO_EFORMAT, "expected all three");
  char big[2048];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  bad(big, OSTIO_EFORMAT, "short text");
}

static void rule(void)
{
  ostio_layout *l;
  CHECK(ostio__layout_simple(65536, 3, -1, &l) == 0);
  CHECK(ostio__check_ceph_layout(l, "f") == 0);   /* no object size: Ceph's default */
  l->comp[0].object_size = 262144;
  CHECK(ostio__check_ceph_layout(l, "f") == 0);
  l->comp[0].object_size = 131072 * 3;  /* 384 KiB: a multiple of 64 KiB */
  CHECK(ostio__check_ceph_layout(l, "f") == 0);
  l->comp[0].stripe_size = 131072;
  l->comp[0].object_size = 65536 * 5;
  CHECK(ostio__check_ceph_layout(l, "f") == OSTIO_ELAYOUT);
  CHECKF(strstr(ostio_last_error(), "f: object size 327680: Ceph needs a multiple of the "
                "stripe unit 131072") != NULL, "%s", ostio_last_error());
  l->comp[0].stripe_size = 100000;
  l->comp[0].object_size = 0;
  CHECK(ostio__check_ceph_layout(l, "f") == OSTIO_ELAYOUT);
  CHECKF(strstr(ostio_last_error(), "f: stripe unit 100000: Ceph needs a multiple of 64 KiB "
                "(65536 bytes)") && strstr(ostio_last_error(), "64k (65536) or 128k (131072)"),
         "%s", ostio_last_error());
  l->comp[0].stripe_size = 65536;
  l->comp[0].pattern |= OSTIO_PATTERN_OVERSTRIPING;
  CHECK(ostio__check_ceph_layout(l, "f") == OSTIO_ELAYOUT);
  CHECK(strstr(ostio_last_error(), "overstriping") != NULL);
  ostio__layout_destroy(l);
  l = ostio__layout_new();
  ostio__comp c = {.start = 0, .end = 1 << 20, .stripe_size = 65536, .stripe_count = 1,
                   .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  ostio__layout_add(l, &c);
  c.start = 1 << 20;
  c.end = OSTIO_EOF;
  ostio__layout_add(l, &c);
  CHECK(ostio__check_ceph_layout(l, "f") == OSTIO_ELAYOUT);
  CHECK(strstr(ostio_last_error(), "2 components") != NULL);
  ostio__layout_destroy(l);
  /* Ceph's 4 MiB default rounded up to a multiple of the stripe unit */
  CHECK(ostio__ceph_default_object_size(65536) == 4 << 20);
  CHECK(ostio__ceph_default_object_size(3 * 65536) == 22 * 3 * 65536);
  CHECK(ostio__ceph_default_object_size(8 << 20) == 8 << 20);
  CHECK(ostio__ceph_default_object_size(0xFFFF0000ll) == 0xFFFF0000ll);
}

static void off_cephfs(void)
{
  char dir[512], path[600];
  ostio_layout *l = NULL;
  if (tu_tmpdir(dir, sizeof dir, "ceph") < 0) { CHECK(0); return; }
  snprintf(path, sizeof path, "%s/f", dir);
  CHECK(ostio__path_is_ceph(dir) == 0 && ostio__path_is_ceph(path) == 0);
  CHECK(ostio__source_ceph.query(dir, NULL, &l) == OSTIO_ENOLAYOUT && !l);
  CHECK(ostio__source_ceph.create(path, NULL, 0644) == OSTIO_ENOLAYOUT);
  CHECK(ostio__source_ceph.set_dir_default(dir, NULL) == OSTIO_ENOLAYOUT);
  tu_rmtree(dir);
}

int main(void)
{
  reading();
  rule();
  off_cephfs();
  return TEST_DONE();
}
