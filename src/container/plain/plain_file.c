/* The plain kind: a regular file (or a device) at fh->path, read and written
 * through the io layer on one fd; collective calls go to the engine. Its
 * layout comes from the layout sources (Lustre, emulated, hints, defaults).
 *
 * Deferred open (hint ostio_deferred_open, docs/collective.md "Deferred
 * open"): unless disabled, ostio_open opens the file on one rank only, the
 * first aggregator ("home"), which checks it for everyone; every other rank
 * opens it at its first I/O (late_open, called by the io layer), so a rank
 * that never aggregates and makes no independent call never opens it. On
 * CephFS an open on a second client stops every client's caching of the
 * file; on Lustre each open is a metadata RPC. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"
#include "file/kind.h"
#include "container/layout_sources.h"

static int plain_create(ostio_file *fh)
{
  return ostio__layout_create(fh->path, &fh->hints, NULL, 0666, NULL);
}

static int open_fd(ostio_file *fh)
{
  int flags = fh->can_read && fh->can_write ? O_RDWR : fh->can_write ? O_WRONLY : O_RDONLY;
  /* Read-modify-write and the cache's page fills need to read a write-only
   * file; when the file may not be read, the cache does without (cache.h). */
  fh->fd = -1;
  if (flags == O_WRONLY && (fh->hints.romio_ds_write == OSTIO__TRI_ENABLE ||
                            fh->hints.ostio_cache == OSTIO__TRI_ENABLE))
    fh->fd = open(fh->path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
  /* O_NONBLOCK: a FIFO put in the file's place after rank 0 looked must not
   * block this open; it is refused below, and dropped for everything else. */
  if (fh->fd < 0) fh->fd = open(fh->path, flags | O_CLOEXEC | O_NONBLOCK);
  if (fh->fd < 0)
    return ostio__fail(ostio__from_errno(errno), "open %s: %s", fh->path, strerror(errno));
  struct stat st;
  if (fstat(fh->fd, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "fstat %s: %s", fh->path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return ostio__fail(OSTIO_EISDIR, "%s is a directory", fh->path);
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
    return ostio__fail(OSTIO_EINVAL, "%s is a FIFO or socket; ostio opens regular files, "
                       "devices and containers", fh->path);
  fcntl(fh->fd, F_SETFL, fcntl(fh->fd, F_GETFL) & ~O_NONBLOCK);
  return 0;
}

/* Whether ostio_open defers the open on ranks other than home: the hint,
 * agreed (rank 0's hints). automatic and enable defer; one rank has nothing
 * to defer. */
static int defers(const ostio_file *fh)
{
  return fh->nprocs > 1 && fh->hints.ostio_deferred_open != OSTIO__TRI_DISABLE;
}

static int plain_open(ostio_file *fh, MPI_Info info)
{
  int defer = defers(fh), rc = 0;
  fh->home = defer && fh->neligible > 0 ? fh->eligible[0] : 0;
  if (!defer || fh->rank == fh->home) rc = open_fd(fh);
  /* home's file (inode) and access mode, for the late opens and the cache. */
  int64_t id[2] = {-1, 0};
  struct stat st;
  if (rc == 0 && defer && fh->rank == fh->home) {
    if (fstat(fh->fd, &st) < 0)
      rc = ostio__fail(ostio__from_errno(errno), "fstat %s: %s", fh->path, strerror(errno));
    id[0] = (int64_t)st.st_ino;
    id[1] = (fcntl(fh->fd, F_GETFL) & O_ACCMODE) == O_RDWR;
  }
  if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
  if (defer) {
    MPI_Bcast(id, 2, MPI_INT64_T, fh->home, fh->comm);
    fh->file_id = id[0];
    fh->home_rdwr = (int)id[1];
    fh->deferred = fh->fd < 0;
  }
  return ostio_layout_query(fh->comm, fh->path, info, &fh->layout);
}

/* The rank's first I/O (kind.h late_open): the same open as ostio_open's,
 * refused when the name now leads to another file than home's. */
static int plain_late_open(ostio_file *fh)
{
  if (fh->fd >= 0) return 0;
  int rc = open_fd(fh);
  struct stat st;
  if (rc == 0 && fstat(fh->fd, &st) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "fstat %s: %s", fh->path, strerror(errno));
  if (rc == 0 && (int64_t)st.st_ino != fh->file_id)
    rc = ostio__fail(OSTIO_EIO, "%s is another file (inode %lld) than the one ostio_open "
                     "opened (inode %lld): it was replaced since", fh->path,
                     (long long)st.st_ino, (long long)fh->file_id);
  if (rc < 0) {
    char was[600];
    snprintf(was, sizeof was, "%s", ostio_last_error());
    if (fh->fd >= 0) close(fh->fd);
    fh->fd = -1;
    return ostio__fail(rc, "deferred open (ostio_deferred_open) at rank %d's first I/O: %s; "
                       "the file must stay at its name while open, or give "
                       "ostio_deferred_open=disable to open it on every rank at ostio_open",
                       fh->rank, was);
  }
  return 0;
}

static int plain_close(ostio_file *fh)
{
  int rc = 0;
  if (fh->fd >= 0 && close(fh->fd) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "close %s: %s", fh->path, strerror(errno));
  fh->fd = -1;
  return ostio__agree(fh->comm, rc);
}

static void plain_discard(ostio_file *fh)
{
  if (fh->fd >= 0) close(fh->fd);
  fh->fd = -1;
}

static int plain_remove(ostio_file *fh)
{
  int rc = 0;
  if (fh->rank == 0 && unlink(fh->path) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "delete on close %s: %s", fh->path,
                     strerror(errno));
  return ostio__agree(fh->comm, rc);
}

/* A rank whose open is deferred asks by name (a stat opens nothing), and
 * checks that the name still leads to the file. */
static int plain_size(ostio_file *fh, int64_t *size)
{
  struct stat st;
  if (fh->fd < 0 && fh->deferred) {
    if (stat(fh->path, &st) < 0)
      return ostio__fail(ostio__from_errno(errno), "stat %s (its open is deferred on this "
                         "rank): %s", fh->path, strerror(errno));
    if ((int64_t)st.st_ino != fh->file_id)
      return ostio__fail(OSTIO_EIO, "%s is another file (inode %lld) than the one ostio_open "
                         "opened (inode %lld): it was replaced since", fh->path,
                         (long long)st.st_ino, (long long)fh->file_id);
  } else if (fstat(fh->fd, &st) < 0) {
    return ostio__fail(ostio__from_errno(errno), "fstat %s: %s", fh->path, strerror(errno));
  }
  *size = (int64_t)st.st_size;
  return 0;
}

/* home truncates: it always holds the file open (rank 0 without deferral). */
static int plain_set_size(ostio_file *fh, int64_t size)
{
  int rc = 0;
  if (fh->rank == fh->home && ftruncate(fh->fd, (off_t)size) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "ftruncate %s to %lld: %s", fh->path,
                     (long long)size, strerror(errno));
  return ostio__agree(fh->comm, rc);
}

/* A rank that never opened the file wrote nothing to it through this handle:
 * nothing to sync there (the aggregators sync what they wrote for it). */
static int plain_sync(ostio_file *fh)
{
  int rc = 0;
  if (fh->fd >= 0 && fsync(fh->fd) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "fsync %s: %s", fh->path, strerror(errno));
  return ostio__agree(fh->comm, rc);
}

int ostio__kind_io_write_at(ostio_file *fh, int64_t off, const void *buf, size_t len)
{
  return ostio__io_pwrite(&fh->io, buf, len, off);
}

int ostio__kind_io_read_at(ostio_file *fh, int64_t off, void *buf, size_t len)
{
  return ostio__io_pread(&fh->io, buf, len, off);
}

const ostio__kind_ops ostio__kind_plain = {
  .version = OSTIO__KIND_VERSION,
  .name = "plain",
  .create = plain_create,
  .open = plain_open,
  .late_open = plain_late_open,
  .close = plain_close,
  .discard = plain_discard,
  .remove = plain_remove,
  .size = plain_size,
  .set_size = plain_set_size,
  .sync = plain_sync,
  .write_all = ostio__file_engine_write_all,
  .read_all = ostio__file_engine_read_all,
  .write_at = ostio__kind_io_write_at,
  .read_at = ostio__kind_io_read_at,
  .coherent = 1,
  .extents = ostio__plain_hook_extents, /* plain/plain_hooks.c; no container subcommands */
};
