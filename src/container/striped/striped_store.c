/* Process ops of the striped kind (store.h): one process serving a striped
 * container by itself (libostio-preload.so). The objects are opened
 * read-only first and reopened read-write at the first write; the io
 * layer's object routing turns logical offsets into object offsets. What
 * a process writes is in the object files at once, so there is nothing to
 * publish to other processes. No MPI. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "container/container.h"
#include "container/store.h"
#include "core/error.h"
#include "io/io.h"

typedef struct striped_store {
  ostio__store base;
  ostio__ctr *c;
  int writable;              /* objects opened O_RDWR                            */
  ostio__io io;              /* routes to the objects of ob                      */
  ostio__io_objects ob;
  int64_t size_hint;         /* the size last seen (reads below it trust it)     */
} striped_store;

static striped_store *of(ostio__store *s) { return (striped_store *)s; }

static int create(const char *path, const struct ostio__hints *h, int excl)
{
  ostio__ctr_params p;
  int created = 0, rc = ostio__ctr_params_resolve(path, h, &p);
  p.kind = &ostio__ctr_striped;
  if (rc == 0) rc = ostio__ctr_create(path, &p, excl, &created);
  return rc;
}

/* (Re)opens the objects: read-only at open, read-write at the first write.
 * On failure to open, the previous objects stay. */
static int reopen(striped_store *st, int writable)
{
  ostio__ctr *c = NULL;
  int rc = ostio__ctr_open(st->base.path, writable, &c);
  if (rc < 0) return rc;
  if (st->c) {
    ostio__io_fini(&st->io);
    ostio__ctr_close(&st->c, 0);
  }
  st->c = c;
  st->writable = writable;
  st->ob = (ostio__io_objects){c->m.nobjects, c->m.stripe_size, c->fd, c->m.names};
  rc = ostio__io_init(&st->io, -1, 0, NULL, NULL);
  if (rc == 0) rc = ostio__io_set_objects(&st->io, &st->ob);
  if (rc == 0) rc = ostio__ctr_size(c, &st->size_hint, NULL);
  return rc;
}

static void st_close(ostio__store *s, int removing)
{
  striped_store *st = of(s);
  (void)removing; /* the objects hold the data: nothing is pending */
  if (st->c) {
    ostio__io_fini(&st->io);
    ostio__ctr_close(&st->c, st->writable);
  }
  free(st);
}

static int st_open(const char *path, ostio__store **out)
{
  striped_store *st = calloc(1, sizeof *st);
  if (!st) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  st->base.ops = &ostio__store_striped;
  st->base.path = path;
  int rc = reopen(st, 0);
  if (rc < 0) {
    int keep = rc;
    st_close(&st->base, 0);
    return keep;
  }
  *out = &st->base;
  return 0;
}

static int st_dirfd(const ostio__store *s) { return ((const striped_store *)s)->c->dirfd; }

static int st_writable(ostio__store *s)
{
  striped_store *st = of(s);
  return st->writable ? 0 : reopen(st, 1);
}

static int st_size(ostio__store *s, int64_t *size)
{
  int rc = ostio__ctr_size(of(s)->c, size, NULL);
  if (rc == 0) of(s)->size_hint = *size;
  return rc;
}

static int st_pread(ostio__store *s, void *buf, size_t len, int64_t off, size_t *got)
{
  striped_store *st = of(s);
  int64_t size = st->size_hint;
  int rc = 0;
  *got = 0;
  if (off + (int64_t)len > size) rc = st_size(s, &size); /* past what we knew: ask */
  if (rc < 0 || off >= size) return rc;
  if ((int64_t)len > size - off) len = (size_t)(size - off);
  rc = ostio__io_pread(&st->io, buf, len, off);
  if (rc == 0) *got = len;
  return rc;
}

static int st_pwrite(ostio__store *s, const void *buf, size_t len, int64_t off)
{
  striped_store *st = of(s);
  int rc = ostio__io_pwrite(&st->io, buf, len, off);
  if (rc == 0 && off + (int64_t)len > st->size_hint) st->size_hint = off + (int64_t)len;
  return rc;
}

static int st_truncate(ostio__store *s, int64_t size)
{
  int rc = ostio__ctr_set_size(of(s)->c, size);
  if (rc == 0) of(s)->size_hint = size;
  return rc;
}

static int st_sync(ostio__store *s) { return ostio__ctr_sync(of(s)->c); }

/* What the object files hold on disk. */
static int st_bytes(ostio__store *s, int64_t *bytes)
{
  const ostio__ctr *c = of(s)->c;
  *bytes = 0;
  for (int32_t i = 0; i < c->m.nobjects; i++) {
    struct stat os;
    if (fstat(c->fd[i], &os) == 0) *bytes += (int64_t)os.st_blocks * 512;
  }
  return 0;
}

/* Another process may have truncated while the lock was not ours: the next
 * read asks the objects again. */
static int st_locked(ostio__store *s)
{
  of(s)->size_hint = 0;
  return 0;
}

const ostio__store_ops ostio__store_striped = {
  .version = OSTIO__STORE_VERSION,
  .name = "striped",
  .ctr = &ostio__ctr_striped,
  .create = create,
  .open = st_open,
  .close = st_close,
  .remove = ostio__ctr_remove,
  .dirfd = st_dirfd,
  .writable = st_writable,
  .size = st_size,
  .pread = st_pread,
  .pwrite = st_pwrite,
  .truncate = st_truncate,
  .sync = st_sync,
  .bytes = st_bytes,
  .locked = st_locked,
};
