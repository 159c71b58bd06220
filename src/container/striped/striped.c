/* Striped containers on disk: opening (every object inside the directory,
 * O_NOFOLLOW, regular files only), the logical size by Lustre's rule,
 * set_size, sync, close and removal of the objects. Creation and the
 * kind-neutral directory code are ctr_dir.c's; the manifest keys
 * striped_manifest.c's. No MPI: src/file calls these on the ranks that need
 * them. See docs/containers.md. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "container/container.h"
#include "container/layout_sources.h"
#include "container/store.h"
#include "core/error.h"
#include "core/fdio.h"

#define PATH_CAP 4096

static int sys_fail(const char *path, const char *what, int e)
{
  return ostio__fail(ostio__from_errno(e), "%s: %s: %s", path, what, strerror(e));
}

/* ---- the arithmetic (pure) ----------------------------------------------- */

int64_t ostio__striped_size(int64_t s, int32_t k, const int64_t *objsize)
{
  int64_t size = 0;
  for (int32_t i = 0; i < k; i++) {
    if (objsize[i] <= 0) continue;
    /* The last byte's stripe row*k+i may be the last stripe below 2^63:
     * end fits exactly when that stripe is at most (2^63-1 - last%s - 1)/s. */
    int64_t last = objsize[i] - 1, row = last / s, top = (INT64_MAX - last % s - 1) / s;
    if (top < i || row > (top - i) / k) return INT64_MAX; /* beyond any offset */
    int64_t end = (row * k + i) * s + last % s + 1;
    if (end > size) size = end;
  }
  return size;
}

int64_t ostio__striped_objsize(int64_t s, int32_t k, int32_t obj, int64_t size)
{
  int64_t row = s * k, part = size % row - (int64_t)obj * s;
  return size / row * s + (part < 0 ? 0 : part > s ? s : part);
}

static void ctr_free(ostio__ctr *c)
{
  if (!c) return;
  for (int32_t i = 0; c->fd && i < c->m.nobjects; i++)
    if (c->fd[i] >= 0) close(c->fd[i]);
  free(c->fd);
  if (c->dirfd >= 0) close(c->dirfd);
  ostio__manifest_free(&c->m);
  free(c->path);
  free(c);
}

/* The object fds, all -1 (the array stays in place: the io layer borrows it). */
static int alloc_fds(ostio__ctr *c)
{
  const ostio__manifest *m = &c->m;
  if (c->fd) return 0;
  if (!(c->fd = malloc((size_t)m->nobjects * sizeof *c->fd)))
    return ostio__fail(OSTIO_ENOMEM, "out of memory");
  for (int32_t i = 0; i < m->nobjects; i++) c->fd[i] = -1;
  return 0;
}

static int open_objects(ostio__ctr *c)
{
  const ostio__manifest *m = &c->m;
  int rc = alloc_fds(c);
  for (int32_t i = 0; rc == 0 && i < m->nobjects; i++) {
    if (c->fd[i] >= 0) continue;
    int flags = (c->writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    c->fd[i] = openat(c->dirfd, m->names[i], flags);
    if (c->fd[i] < 0)
      return ostio__fail(errno == ENOENT || errno == ELOOP ? OSTIO_EFORMAT
                                                           : ostio__from_errno(errno),
                         "%s: object %d (%s) %s: %s; the container is damaged (see `ostio "
                         "container check`)", c->path, (int)i, m->names[i],
                         errno == ENOENT ? "is missing" : "cannot be opened",
                         errno == ELOOP ? "it is a symbolic link" : strerror(errno));
    struct stat st;
    if (fstat(c->fd[i], &st) < 0 || !S_ISREG(st.st_mode))
      return ostio__fail(OSTIO_EFORMAT, "%s: object %d (%s) is not a regular file; the "
                         "container is damaged", c->path, (int)i, m->names[i]);
    if (st.st_nlink > 1)
      return ostio__fail(OSTIO_EFORMAT, "%s: object %d (%s) has %lu hard links: an object "
                         "has exactly one name, this one may be a link to a file outside the "
                         "container, so it is neither read nor written; give it a copy of "
                         "its own (cp, then mv over it) if it holds the object's data",
                         c->path, (int)i, m->names[i], (unsigned long)st.st_nlink);
    fcntl(c->fd[i], F_SETFL, 0); /* drop O_NONBLOCK (it only guarded against FIFOs) */
  }
  return rc;
}

int ostio__ctr_open_objects(ostio__ctr *c)
{
  int rc = open_objects(c);
  /* All or none: a later call tries again from the start. */
  for (int32_t i = 0; rc < 0 && c->fd && i < c->m.nobjects; i++) {
    if (c->fd[i] >= 0) close(c->fd[i]);
    c->fd[i] = -1;
  }
  return rc;
}

static int open_common(const char *path, const char *text, size_t len, int writable,
                       int objects, ostio__ctr **out)
{
  int rc = 0;
  *out = NULL;
  ostio__ctr *c = calloc(1, sizeof *c);
  if (!c || !(c->path = strdup(path))) {
    free(c);
    return ostio__fail(OSTIO_ENOMEM, "out of memory");
  }
  c->writable = writable;
  if ((rc = ostio__ctr_open_dir(path, text, len, &c->dirfd, &c->m)) < 0) goto done;
  if (objects && c->m.kind != &ostio__ctr_striped)
    rc = ostio__fail(OSTIO_EFORMAT, "%s is a %s container, not a striped one: it has no "
                     "object files or stripe layout; `ostio container stat|ls|map` show it",
                     path, c->m.kind->name);
  else if (objects == 2) rc = alloc_fds(c);
  else if (objects) rc = open_objects(c);
done:
  if (rc < 0) ctr_free(c);
  else *out = c;
  return rc;
}

int ostio__ctr_open_text(const char *path, const char *text, size_t len, int writable,
                         ostio__ctr **out)
{
  return open_common(path, text, len, writable, 1, out);
}

int ostio__ctr_open_deferred(const char *path, const char *text, size_t len, int writable,
                             ostio__ctr **out)
{
  return open_common(path, text, len, writable, 2, out);
}

/* The derived size against a clean size record (docs/containers.md). */
static int check_sizes(ostio__ctr *c, ostio__sizerec *rec, int64_t *derived)
{
  const ostio__manifest *m = &c->m;
  int64_t *os = malloc((size_t)m->nobjects * sizeof *os);
  if (!os) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  int rc = ostio__ctr_size(c, derived, os);
  int have = rc == 0 ? ostio__sizerec_read(c->dirfd, c->path, rec) : rc;
  if (have == OSTIO_ENOENT) rc = 0, rec->clean = 0, rec->size = *derived;
  else rc = have;
  /* A clean close leaves every object exactly its share (ostio__ctr_close),
   * so a shorter one lost data: refused, never read as zeros. */
  for (int32_t o = 0; rc == 0 && rec->clean && o < m->nobjects; o++) {
    ostio__ctr_short sh;
    if (!ostio__ctr_short_object(m, rec->size, o, os[o], &sh)) continue;
    rc = ostio__fail(OSTIO_EFORMAT, "%s: object %s is shorter than the size record says: it "
                     "holds %lld bytes, the clean size record (%lld bytes) needs at least "
                     "%lld; %lld bytes from logical offset %lld on are lost; the container "
                     "is damaged (see `ostio container check`)", c->path, m->names[o],
                     (long long)os[o], (long long)rec->size, (long long)sh.want,
                     (long long)sh.lost, (long long)sh.first);
  }
  free(os);
  return rc;
}

int ostio__ctr_short_object(const ostio__manifest *m, int64_t size, int32_t o, int64_t have,
                            ostio__ctr_short *out)
{
  int64_t s = m->stripe_size, want = ostio__striped_objsize(s, m->nobjects, o, size);
  if (have < 0 || have >= want) return 0;
  /* have < want: object byte `have` is below the size, so this fits. */
  out->want = want;
  out->lost = want - have;
  out->first = (have / s * m->nobjects + o) * s + have % s;
  return 1;
}

int ostio__ctr_open(const char *path, int writable, ostio__ctr **out)
{
  ostio__sizerec rec;
  int64_t derived = 0;
  int rc = open_common(path, NULL, 0, writable, 1, out);
  if (rc == 0) rc = check_sizes(*out, &rec, &derived);
  if (rc == 0 && writable)
    rc = ostio__sizerec_write((*out)->dirfd, path, &(ostio__sizerec){.clean = 0, .size = derived});
  if (rc < 0 && *out) {
    ctr_free(*out);
    *out = NULL;
  }
  return rc;
}

/* ---- sizes, sync, close ---------------------------------------------------- */

int ostio__ctr_size(const ostio__ctr *c, int64_t *size, int64_t *objsize)
{
  const ostio__manifest *m = &c->m;
  int64_t *os = objsize ? objsize : malloc((size_t)m->nobjects * sizeof *os);
  int rc = os ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory");
  for (int32_t i = 0; rc == 0 && i < m->nobjects; i++) {
    struct stat st;
    int bad = c->fd[i] >= 0 ? fstat(c->fd[i], &st)
                            : fstatat(c->dirfd, m->names[i], &st, AT_SYMLINK_NOFOLLOW);
    if (bad < 0) rc = sys_fail(c->path, m->names[i], errno);
    else os[i] = (int64_t)st.st_size;
  }
  if (rc == 0) *size = ostio__striped_size(m->stripe_size, m->nobjects, os);
  if (!objsize) free(os);
  return rc;
}

int ostio__ctr_set_size(ostio__ctr *c, int64_t size)
{
  const ostio__manifest *m = &c->m;
  if (size < 0) return ostio__fail(OSTIO_EINVAL, "%s: size %lld < 0", c->path, (long long)size);
  for (int32_t i = 0; i < m->nobjects; i++) {
    int64_t want = ostio__striped_objsize(m->stripe_size, m->nobjects, i, size);
    if (ftruncate(c->fd[i], (off_t)want) < 0)
      return ostio__fail(ostio__from_errno(errno), "%s: truncating object %s to %lld bytes "
                         "(logical size %lld): %s", c->path, m->names[i], (long long)want,
                         (long long)size, strerror(errno));
  }
  /* The state stays "open" until a clean close (docs/containers.md). */
  return ostio__sizerec_write(c->dirfd, c->path, &(ostio__sizerec){.clean = 0, .size = size});
}

int ostio__ctr_sync(const ostio__ctr *c)
{
  for (int32_t i = 0; i < c->m.nobjects; i++)
    if (c->fd[i] >= 0 && fsync(c->fd[i]) < 0)
      return ostio__fail(ostio__from_errno(errno), "fsync %s/%s: %s", c->path,
                         c->m.names[i], strerror(errno));
  if (fsync(c->dirfd) < 0) return sys_fail(c->path, "fsync of the directory", errno);
  return 0;
}

/* Makes fd at least `want` bytes long, never shorter: another process (the
 * preload's independent writers) may be appending to the object meanwhile,
 * and ftruncate to a stale length would cut its data. fallocate of the last
 * byte extends without writing; where it is not supported, ftruncate after
 * a fresh fstat (a narrow window). */
static int extend_to(int fd, int64_t want)
{
  if (fallocate(fd, 0, (off_t)(want - 1), 1) == 0) return 0;
  if (errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) return -1;
  struct stat st;
  if (fstat(fd, &st) < 0) return -1;
  return (int64_t)st.st_size < want ? ftruncate(fd, (off_t)want) : 0;
}

int ostio__ctr_close(ostio__ctr **cp, int clean)
{
  ostio__ctr *c = cp ? *cp : NULL;
  int rc = 0;
  if (!c) return 0;
  *cp = NULL;
  if (clean && c->writable) {
    /* Every object gets exactly its share of the size: a tail that is a hole
     * becomes a sparse extension (no data written), so that with a clean
     * record an object shorter than its share means lost data (check_sizes). */
    int64_t size = 0, *os = malloc((size_t)c->m.nobjects * sizeof *os);
    rc = os ? ostio__ctr_size(c, &size, os) : ostio__fail(OSTIO_ENOMEM, "out of memory");
    for (int32_t i = 0; rc == 0 && i < c->m.nobjects; i++) {
      int64_t want = ostio__striped_objsize(c->m.stripe_size, c->m.nobjects, i, size);
      if (os[i] < want && extend_to(c->fd[i], want) < 0)
        rc = ostio__fail(ostio__from_errno(errno), "%s: extending object %s to its share "
                         "(%lld bytes) of the size %lld at close: %s", c->path, c->m.names[i],
                         (long long)want, (long long)size, strerror(errno));
    }
    free(os);
    if (rc == 0) rc = ostio__sizerec_write(c->dirfd, c->path, &(ostio__sizerec){.clean = 1, .size = size});
  }
  for (int32_t i = 0; i < c->m.nobjects; i++) {
    if (c->fd[i] >= 0 && close(c->fd[i]) < 0 && rc == 0)
      rc = sys_fail(c->path, c->m.names[i], errno);
    c->fd[i] = -1;
  }
  ctr_free(c);
  return rc;
}

/* ---- layout, removal ---------------------------------------------------------- */

int ostio__ctr_layout(const ostio__ctr *c, ostio_layout **out)
{
  const ostio__manifest *m = &c->m;
  int rc = ostio__layout_simple(m->stripe_size, m->nobjects, 0, out);
  if (rc < 0) return rc;
  snprintf((*out)->source, sizeof (*out)->source, "container");
  if (!ostio__path_is_lustre(c->path)) return 0;
  /* On Lustre each object is a one-stripe file: its OST is the object's. */
  ostio__comp *comp = &(*out)->comp[0];
  for (int32_t i = 0; i < m->nobjects; i++) {
    char p[PATH_CAP + 80];
    ostio_layout *ol = NULL;
    snprintf(p, sizeof p, "%s/%s", c->path, m->names[i]);
    comp->osts[i] = -1;
    if (ostio__source_lustre.query(p, NULL, &ol) == 0 && ol->comp[0].osts)
      comp->osts[i] = ol->comp[0].osts[0];
    ostio__layout_destroy(ol);
    for (int32_t j = 0; j < i; j++)
      if (comp->osts[j] == comp->osts[i]) comp->pattern |= OSTIO_PATTERN_OVERSTRIPING;
  }
  comp->first_ost = comp->osts[0];
  ostio__clear_error();
  return 0;
}

/* The striped kind's remove hook (ctr_dir.c's ostio__ctr_remove parsed m):
 * the objects the manifest names, the size record, the manifest and the
 * directory. */
int ostio__striped_remove(const char *path, int dirfd, const ostio__manifest *m)
{
  int rc = 0;
  for (int32_t i = 0; i < m->nobjects; i++)
    if (unlinkat(dirfd, m->names[i], 0) < 0 && errno != ENOENT && rc == 0)
      rc = sys_fail(path, m->names[i], errno);
  if (unlinkat(dirfd, OSTIO__CTR_SIZEREC, 0) < 0 && errno != ENOENT && rc == 0)
    rc = sys_fail(path, OSTIO__CTR_SIZEREC, errno);
  if (rc == 0 && unlinkat(dirfd, OSTIO__CTR_MANIFEST, 0) < 0)
    rc = sys_fail(path, OSTIO__CTR_MANIFEST, errno);
  if (rc == 0 && rmdir(path) < 0)
    rc = errno == ENOTEMPTY || errno == EEXIST
             ? ostio__fail(OSTIO_ENOTEMPTY, "%s: removed the container's files, but other "
                           "files remain in the directory; they were left alone", path)
             : sys_fail(path, "cannot remove the directory", errno);
  return rc;
}
