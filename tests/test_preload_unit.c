/* The pure parts of libostio-preload.so (issue 7): lexical path
 * normalization, the prefix set, the fd -> description table and the
 * offset sharing of dup'ed descriptions. */
#include <fcntl.h>
#include <string.h>

#include "preload/preload.h"
#include "testutil.h"

static void norm_is(const char *cwd, const char *path, const char *want)
{
  char out[PL_PATH_MAX];
  int rc = ostio__pl_path_norm(cwd, path, out, sizeof out);
  CHECKF(rc == 0 && !strcmp(out, want), "norm(%s, %s) = %s, want %s", cwd, path,
         rc ? "(error)" : out, want);
}

static void test_norm(void)
{
  norm_is("/", "/a/b", "/a/b");
  norm_is("/x", "/a//b/", "/a/b");
  norm_is("/x", "/a/./b/.", "/a/b");
  norm_is("/x", "/a/b/../c", "/a/c");
  norm_is("/x", "/../../a", "/a");
  norm_is("/x", "/", "/");
  norm_is("/x", "/a/..", "/");
  norm_is("/home/u", "f", "/home/u/f");
  norm_is("/home/u/", "./d/../f", "/home/u/f");
  norm_is("/home/u", "../v/f", "/home/v/f");
  norm_is("/home/u", "../../../f", "/f");
  norm_is("/home/u", "", "/home/u");
  norm_is("/home/u", "..", "/home");
  char small[8];
  CHECK(ostio__pl_path_norm("/", "/abcdefgh", small, sizeof small) == -1);
  CHECK(ostio__pl_path_norm("/", "/abcdef", small, sizeof small) == 0);
}

static void test_prefixes(void)
{
  ostio__pl_prefixes ps = {0};
  CHECK(ostio__pl_prefixes_parse(&ps, "/scratch/ctr/:rel/dir::/:/scratch/ctr", "/home/u") == 2);
  CHECK(!strcmp(ps.p[0], "/scratch/ctr"));
  CHECK(!strcmp(ps.p[1], "/home/u/rel/dir"));
  CHECK(ostio__pl_prefixes_match(&ps, "/scratch/ctr/f") == 1);
  CHECK(ostio__pl_prefixes_match(&ps, "/scratch/ctr/sub/f") == 1);
  CHECK(ostio__pl_prefixes_match(&ps, "/scratch/ctr") == 2);
  CHECK(ostio__pl_prefixes_match(&ps, "/scratch/ctrx/f") == 0);
  CHECK(ostio__pl_prefixes_match(&ps, "/scratch") == 0);
  CHECK(ostio__pl_prefixes_match(&ps, "/home/u/rel/dir/a") == 1);
  CHECK(ostio__pl_prefixes_match(&ps, "/home/u/rel") == 0);
  ostio__pl_prefixes_free(&ps);
  CHECK(ps.n == 0);
  CHECK(ostio__pl_prefixes_parse(&ps, "", "/") == 0);
  CHECK(ostio__pl_prefixes_parse(&ps, NULL, "/") == 0);
}

static void test_fdtab(void)
{
  CHECK(ostio__pl_fdtab_init(128) == 0);
  int obj = 7;
  ostio__pl_desc *d = ostio__pl_desc_new(&obj, O_RDWR | O_APPEND);
  CHECK(d != NULL);
  CHECK(!ostio__pl_fd_ours(5));
  CHECK(ostio__pl_fdtab_set(5, d) == 0);
  CHECK(ostio__pl_fdtab_set(5, d) == -1);   /* taken */
  CHECK(ostio__pl_fdtab_set(500, d) == -1); /* out of range */
  CHECK(ostio__pl_fdtab_set(-1, d) == -1);
  CHECK(ostio__pl_fd_ours(5));
  CHECK(!ostio__pl_fd_ours(6) && !ostio__pl_fd_ours(-3) && !ostio__pl_fd_ours(1000));
  /* dup: a second fd on the same description shares the offset */
  CHECK(ostio__pl_fdtab_set(9, d) == 0);
  ostio__pl_desc *a = ostio__pl_fdtab_get(5), *b = ostio__pl_fdtab_get(9);
  CHECK(a == b && a == d);
  a->off = 4096;
  CHECK_EQ_I64(b->off, 4096);
  CHECK((b->flags & O_ACCMODE) == O_RDWR && (b->flags & O_APPEND));
  CHECK(ostio__pl_desc_put(a) == NULL); /* calls in progress end */
  CHECK(ostio__pl_desc_put(b) == NULL);
  int ours;
  CHECK(ostio__pl_fdtab_clear(5, &ours) == NULL && ours == 1); /* fd 9 still holds it */
  CHECK(!ostio__pl_fd_ours(5) && ostio__pl_fd_ours(9));
  CHECK(ostio__pl_fdtab_clear(5, &ours) == NULL && ours == 0);
  /* a call in progress keeps the description alive past the last close */
  ostio__pl_desc *c = ostio__pl_fdtab_get(9);
  CHECK(ostio__pl_fdtab_clear(9, &ours) == NULL && ours == 1);
  CHECK(c->off == 4096);
  CHECK(ostio__pl_desc_put(c) == &obj); /* the last reference: the object is released */
  CHECK(ostio__pl_fdtab_get(9) == NULL);
  /* fork marks live descriptions shared */
  ostio__pl_desc *e = ostio__pl_desc_new(&obj, O_RDONLY);
  CHECK(ostio__pl_fdtab_set(3, e) == 0);
  ostio__pl_fdtab_mark_shared();
  CHECK(e->shared == 1);
  CHECK(ostio__pl_fdtab_clear(3, &ours) == &obj);
  ostio__pl_fdtab_fini();
  CHECK(!ostio__pl_fd_ours(3));
}

int main(void)
{
  test_norm();
  test_prefixes();
  test_fdtab();
  return TEST_DONE();
}
