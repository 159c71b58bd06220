/* The two container-kind tables cannot drift: every kind with process ops
 * (src/container/store.h, the MPI-free table libostio-preload.so uses) is a
 * file-layer kind (src/file/kind.h, the MPI table) of the same name, and
 * every kind a manifest can name is in both. Two tables because the
 * preload links no MPI library: the file layer's ops take an ostio_file.
 * "plain" is the one file-layer kind without process ops (plain files are
 * libc's under the preload).
 *
 * Then every store goes through its contract on disk, through the
 * registry only: create, found by path, open, write, read back (short at
 * the end), size, truncate, sync, bytes, close, reopen, remove. No MPI. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "container/store.h"
#include "file/kind.h"
#include "hints/hints.h"
#include "testutil.h"

static void tables_agree(void)
{
  size_t n = 0;
  for (const ostio__store_ops *s; (s = ostio__store_at(n)); n++) {
    CHECKF(s->version == OSTIO__STORE_VERSION && s->name && *s->name, "store %zu", n);
    CHECKF(s->open && s->close && s->dirfd, "store %s: open, close, dirfd required", s->name);
    CHECKF(ostio__store_find(s->name) == s, "store %s not found by its name", s->name);
    const ostio__kind_ops *k = ostio__kind_find(s->name);
    CHECKF(k && strcmp(k->name, s->name) == 0, "store %s has no file-layer kind", s->name);
    for (size_t j = 0; j < n; j++)
      CHECKF(strcmp(ostio__store_at(j)->name, s->name), "store %s twice", s->name);
  }
  CHECK(n >= 2);
  size_t nk = ostio__kind_count(), nonplain = 0;
  for (size_t i = 0; i < nk; i++) {
    const ostio__kind_ops *k = ostio__kind_at(i);
    if (!k || strcmp(k->name, "plain") == 0) continue;
    nonplain++;
    const ostio__store_ops *s = ostio__store_find(k->name);
    CHECKF(s && strcmp(s->name, k->name) == 0, "kind %s has no store", k->name);
  }
  CHECK_EQ_I64(nonplain, n);
  size_t kinds = 0;
  /* The manifest's kinds are the stores' container halves, named alike. */
  for (const ostio__store_ops *s; (s = ostio__store_at(kinds)); kinds++) {
    CHECKF(s->ctr && strcmp(s->ctr->name, s->name) == 0, "store %s: container half %s",
           s->name, s->ctr ? s->ctr->name : "(none)");
    const char *name = s->ctr->name;
    const ostio__kind_ops *k = ostio__kind_find(name);
    CHECKF(k && strcmp(k->name, name) == 0, "manifest kind %s has no file-layer kind", name);
    CHECKF(ostio__store_find(name) != NULL, "file-layer kind %s has no store", name);
  }
  CHECK_EQ_I64(kinds, n);
  CHECK(ostio__store_find("plain") == NULL); /* plain files are libc's */
  CHECK(ostio__kind_find("plain") != NULL);
  CHECK(ostio__store_find(NULL) == NULL && ostio__store_find("nope") == NULL);
  /* What a new container gets: the store the hint names, else the default. */
  CHECK(ostio__store_for_create("striped") == ostio__store_find("striped"));
  CHECK(ostio__store_for_create("log") == ostio__store_find("log"));
  CHECK(ostio__store_for_create("plain") == ostio__store_find("log"));
  CHECK(ostio__store_for_create(NULL) == ostio__store_find("log"));
}

static void roundtrip(const ostio__store_ops *ops, const char *dir)
{
  char path[600];
  snprintf(path, sizeof path, "%s/%s.ctr", dir, ops->name);
  ostio__hints h;
  ostio__hints_init(&h);
  CHECKF(ops->create(path, &h, 1) == 0, "%s: create: %s", ops->name, ostio_last_error());
  CHECKF(ops->create(path, &h, 1) == OSTIO_EEXIST, "%s: create excl twice", ops->name);
  const ostio__store_ops *found = NULL;
  CHECKF(ostio__store_of_path(path, &found) == 0 && found == ops, "%s: by path", ops->name);
  ostio__store *s = NULL;
  CHECKF(ops->open(path, &s) == 0 && s && s->ops == ops, "%s: open", ops->name);
  if (!s) return;
  CHECK(ops->dirfd(s) >= 0);
  CHECK(ops->writable(s) == 0);
  CHECK(ops->pwrite(s, "hello", 5, 10) == 0);
  int64_t size = -1, bytes = -1;
  CHECK(ops->size(s, &size) == 0);
  CHECK_EQ_I64(size, 15);
  char buf[64];
  size_t got = 0;
  memset(buf, 'x', sizeof buf);
  CHECK(ops->pread(s, buf, sizeof buf, 0, &got) == 0);
  CHECK_EQ_I64(got, 15);
  CHECKF(memcmp(buf, "\0\0\0\0\0\0\0\0\0\0hello", 15) == 0, "%s: bytes read", ops->name);
  CHECK(ops->pread(s, buf, 4, 15, &got) == 0 && got == 0); /* at the end: none */
  CHECK(ops->truncate(s, 12) == 0);
  CHECK(ops->size(s, &size) == 0);
  CHECK_EQ_I64(size, 12);
  CHECK(ops->sync(s) == 0);
  CHECK(ops->bytes(s, &bytes) == 0 && bytes >= 0);
  ops->close(s, 0);
  s = NULL;
  CHECKF(ops->open(path, &s) == 0 && s, "%s: reopen", ops->name);
  if (s) {
    CHECK(ops->size(s, &size) == 0);
    CHECK_EQ_I64(size, 12);
    CHECK(ops->pread(s, buf, sizeof buf, 8, &got) == 0 && got == 4);
    CHECK(memcmp(buf, "\0\0he", 4) == 0);
    ops->close(s, 0);
  }
  CHECKF(ops->remove(path) == 0, "%s: remove: %s", ops->name, ostio_last_error());
  struct stat st;
  CHECK(lstat(path, &st) < 0);
}

int main(void)
{
  tables_agree();
  char dir[512];
  if (tu_tmpdir(dir, sizeof dir, "store") == 0) {
    for (size_t i = 0; ostio__store_at(i); i++) roundtrip(ostio__store_at(i), dir);
    tu_rmtree(dir);
  } else {
    CHECK(!"tmpdir");
  }
  return TEST_DONE();
}
