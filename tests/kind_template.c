/* A template container kind, for tests only: "xor" stores the logical file
 * in one plain file at the path, every byte XORed with 0x5a. It is the whole
 * of a kind: one ops struct (src/file/kind.h) over a few small functions,
 * no other file touched. A real kind adds its line to the registry
 * (src/file/kind.c); this one is handed to ostio_open by the test hook
 * ostio__kind_test_use (tests/test_kind_template.c). Collective calls are
 * each rank's own preads and pwrites, agreed. One tool hook, stat (`ostio
 * container stat`); remove and the other tool hooks are left NULL (not
 * supported: the file layer and the CLI say so; flatten, without extents,
 * copies the whole size). Copy it to start a kind. */
#include "kind_template.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"

#define KEY 0x5a

typedef struct xor_state {
  int fd;
} xor_state;

static int sys_fail(const ostio_file *fh, const char *what)
{
  return ostio__fail(ostio__from_errno(errno), "%s %s: %s", what, fh->path, strerror(errno));
}

static int xor_fd(const ostio_file *fh) { return ((const xor_state *)fh->kind_data)->fd; }

static int xor_create(ostio_file *fh)
{
  int excl = fh->amode & MPI_MODE_EXCL ? O_EXCL : 0;
  int fd = open(fh->path, O_WRONLY | O_CREAT | O_CLOEXEC | excl, 0666);
  if (fd < 0) return sys_fail(fh, "create");
  close(fd);
  return 0;
}

static int xor_open(ostio_file *fh, MPI_Info info)
{
  (void)info;
  int flags = fh->can_read && fh->can_write ? O_RDWR : fh->can_write ? O_WRONLY : O_RDONLY;
  xor_state *s = malloc(sizeof *s);
  int rc = s ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory");
  if (s) {
    fh->kind_data = s;
    s->fd = open(fh->path, flags | O_CLOEXEC);
    if (s->fd < 0) rc = sys_fail(fh, "open");
  }
  /* One stripe: the statistics and ostio_file_layout print it. */
  if (rc == 0) rc = ostio__layout_simple(1 << 20, 1, 0, &fh->layout);
  if (rc == 0) snprintf(fh->layout->source, sizeof fh->layout->source, "xor");
  return ostio__agree(fh->comm, rc);
}

static void xor_discard(ostio_file *fh)
{
  xor_state *s = fh->kind_data;
  if (s && s->fd >= 0) close(s->fd);
  free(s);
  fh->kind_data = NULL;
}

static int xor_close(ostio_file *fh)
{
  xor_state *s = fh->kind_data;
  int rc = close(s->fd) < 0 ? sys_fail(fh, "close") : 0;
  s->fd = -1;
  xor_discard(fh);
  return ostio__agree(fh->comm, rc);
}

static int xor_size(ostio_file *fh, int64_t *size)
{
  struct stat st;
  if (fstat(xor_fd(fh), &st) < 0) return sys_fail(fh, "fstat");
  *size = (int64_t)st.st_size;
  return 0;
}

static int xor_set_size(ostio_file *fh, int64_t size)
{
  int rc = fh->rank == 0 && ftruncate(xor_fd(fh), (off_t)size) < 0 ? sys_fail(fh, "ftruncate") : 0;
  return ostio__agree(fh->comm, rc);
}

static int xor_sync(ostio_file *fh)
{
  return ostio__agree(fh->comm, fsync(xor_fd(fh)) < 0 ? sys_fail(fh, "fsync") : 0);
}

static int xor_write_at(ostio_file *fh, int64_t off, const void *buf, size_t len)
{
  unsigned char *t = malloc(len);
  if (!t) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  for (size_t i = 0; i < len; i++) t[i] = ((const unsigned char *)buf)[i] ^ KEY;
  ssize_t n = pwrite(xor_fd(fh), t, len, (off_t)off);
  free(t);
  if (n < 0) return sys_fail(fh, "pwrite");
  return (size_t)n == len ? 0 : ostio__fail(OSTIO_EIO, "%s: short write", fh->path);
}

/* Bytes past the end read as zeros, as for a plain file's holes. */
static int xor_read_at(ostio_file *fh, int64_t off, void *buf, size_t len)
{
  ssize_t n = pread(xor_fd(fh), buf, len, (off_t)off);
  if (n < 0) return sys_fail(fh, "pread");
  for (ssize_t i = 0; i < n; i++) ((unsigned char *)buf)[i] ^= KEY;
  memset((char *)buf + n, 0, len - (size_t)n);
  return 0;
}

/* Collective: each rank its own extents (packed in buf in list order). */
static int xor_coll(ostio_file *fh, int is_write, const ostio_extent *ext, size_t n, char *buf)
{
  int rc = 0;
  if (n > 0 && !ext) rc = ostio__fail(OSTIO_EINVAL, "NULL extent list with %zu entries", n);
  for (size_t i = 0; rc == 0 && i < n; buf += ext[i++].length) {
    if (ext[i].offset < 0 || ext[i].length < 0)
      rc = ostio__fail(OSTIO_EINVAL, "extent %zu: negative offset or length", i);
    else if (ext[i].length > 0)
      rc = is_write ? xor_write_at(fh, ext[i].offset, buf, (size_t)ext[i].length)
                    : xor_read_at(fh, ext[i].offset, buf, (size_t)ext[i].length);
  }
  return ostio__agree(fh->comm, rc);
}

static int xor_write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf)
{
  return xor_coll(fh, 1, ext, n, (char *)buf);
}

static int xor_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf)
{
  return xor_coll(fh, 0, ext, n, buf);
}

/* Tool hook, by path and without MPI: `ostio container stat` of an xor
 * file, its path, kind and size, in text or JSON (ctr_hooks.h's pieces, so
 * the lines look like every kind's). */
static int xor_stat(const char *path, const ostio__show *o)
{
  struct stat st;
  if (stat(path, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "stat %s: %s", path, strerror(errno));
  if (o->json) fprintf(o->out, "{\"path\": "), ostio__show_str(o->out, path);
  else fprintf(o->out, "%s\n", path);
  ostio__show_word(o, "kind", "xor");
  ostio__show_num(o, "size", (int64_t)st.st_size);
  if (o->json) fprintf(o->out, "}\n");
  return 0;
}

const ostio__kind_ops ostio_test_kind_xor = {
  .version = OSTIO__KIND_VERSION,
  .name = "xor",
  .create = xor_create,
  .open = xor_open,
  .close = xor_close,
  .discard = xor_discard,
  .size = xor_size,
  .set_size = xor_set_size,
  .sync = xor_sync,
  .write_all = xor_write_all,
  .read_all = xor_read_all,
  .write_at = xor_write_at,
  .read_at = xor_read_at,
  .stat = xor_stat,
};
