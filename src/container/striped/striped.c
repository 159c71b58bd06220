/* Striped containers on disk: race-free creation, opening (every object
 * inside the directory, O_NOFOLLOW, regular files only), the logical size by
 * Lustre's rule, set_size, sync, close and removal. No MPI: src/file calls
 * these on the ranks that need them. See docs/containers.md. */
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
#include "container/log/log.h"
#include "core/error.h"
#include "core/fdio.h"

#define PATH_CAP 4096

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

/* ---- small helpers ----------------------------------------------------------- */

/* dir and last component of path (trailing slashes dropped). */
static int split(const char *path, char *dir, char *base)
{
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') n--;
  if (n == 0 || n >= PATH_CAP) return ostio__fail(OSTIO_EINVAL, "container path \"%.200s\": "
                                                  "expected a non-empty path shorter than "
                                                  "4096 bytes", path);
  char tmp[PATH_CAP];
  memcpy(tmp, path, n);
  tmp[n] = '\0';
  const char *slash = strrchr(tmp, '/');
  snprintf(base, PATH_CAP, "%s", slash ? slash + 1 : tmp);
  ostio__parent_dir(tmp, dir, PATH_CAP);
  if (!base[0] || !strcmp(base, ".") || !strcmp(base, ".."))
    return ostio__fail(OSTIO_EINVAL, "container path \"%.200s\": name a new directory, not "
                       "\".\", \"..\" or \"/\"", path);
  return 0;
}

static int sys_fail(const char *path, const char *what, int e)
{
  return ostio__fail(ostio__from_errno(e), "%s: %s: %s", path, what, strerror(e));
}

/* Removes the named entries of dirfd, then the directory itself. */
static void remove_tmp(const char *tmp, int dirfd, const ostio__manifest *m)
{
  for (int32_t i = 0; m->names && i < m->nobjects; i++)
    if (m->names[i]) unlinkat(dirfd, m->names[i], 0);
  unlinkat(dirfd, OSTIO__CTR_SIZEREC, 0);
  unlinkat(dirfd, OSTIO__CTR_MANIFEST, 0);
  rmdir(tmp);
}

int ostio__ctr_is_container(const char *path)
{
  struct stat st;
  char m[PATH_CAP + 32];
  if (!path || stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) return 0;
  snprintf(m, sizeof m, "%s/%s", path, OSTIO__CTR_MANIFEST);
  return lstat(m, &st) == 0;
}

/* path exists: fine (not created) when it is a container and excl is off. */
static int exists(const char *path, int excl)
{
  if (excl)
    return ostio__fail(OSTIO_EEXIST, "%s exists; exclusive creation (MPI_MODE_EXCL, `ostio "
                       "container create`) needs a new path", path);
  if (!ostio__ctr_is_container(path))
    return ostio__fail(OSTIO_EEXIST, "%s exists and is not a container (no %s inside); "
                       "choose a new path for a striped container", path, OSTIO__CTR_MANIFEST);
  return 0;
}

/* ---- creation ------------------------------------------------------------ */

static int fill_manifest(const ostio__ctr_params *p, ostio__manifest *m)
{
  char host[128] = "unknown";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  for (char *c = host; *c; c++)
    if (*c < 0x21 || *c > 0x7e) *c = '_';
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(m->created, sizeof m->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(m->created_by, sizeof m->created_by, "host=%s pid=%ld ostio=%s", host,
           (long)getpid(), ostio_version_string());
  snprintf(m->requested, sizeof m->requested, "%s", p->requested[0] ? p->requested : "-");
  m->version = OSTIO__CTR_VERSION;
  m->kind = p->kind ? p->kind : OSTIO__CTR_KIND_STRIPED;
  snprintf(m->byte_order, sizeof m->byte_order, "little");
  if (m->kind == OSTIO__CTR_KIND_LOG) { /* no objects: writers add their logs lazily */
    m->hostdirs = p->hostdirs;
    m->writers = p->writers;
    return 0;
  }
  m->stripe_size = p->stripe_size;
  m->nobjects = p->nobjects;
  if (!(m->names = calloc((size_t)p->nobjects, sizeof *m->names)))
    return ostio__fail(OSTIO_ENOMEM, "out of memory");
  for (int32_t i = 0; i < p->nobjects; i++) {
    char name[16];
    snprintf(name, sizeof name, "obj.%04d", (int)i);
    if (!(m->names[i] = strdup(name))) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  }
  return 0;
}

/* One empty object file; on Lustre a one-stripe file on OST first_ost + i. */
static int make_object(const char *tmp, int dirfd, const char *name, int64_t s, int32_t ost,
                       int lustre)
{
  if (lustre) {
    char p[PATH_CAP + 80];
    ostio_layout *l = NULL;
    int n = snprintf(p, sizeof p, "%s/%s", tmp, name);
    if (n < 0 || (size_t)n >= sizeof p)
      return ostio__fail(OSTIO_EINVAL, "%s: the object path is too long", tmp);
    int rc = ostio__layout_simple(s, 1, ost, &l);
    if (rc == 0) rc = ostio__layout_create(p, NULL, l, 0666, NULL);
    ostio__layout_destroy(l);
    return rc;
  }
  int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return sys_fail(tmp, "cannot create an object file", errno);
  int rc = fsync(fd) < 0 ? sys_fail(tmp, "fsync of an object file", errno) : 0;
  close(fd);
  return rc;
}

static int write_manifest(const char *tmp, int dirfd, const ostio__manifest *m)
{
  char *text = NULL;
  size_t len = 0;
  int rc = ostio__manifest_format(m, &text, &len);
  if (rc < 0) return rc;
  int fd = openat(dirfd, OSTIO__CTR_MANIFEST, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                  O_CLOEXEC, 0444);
  if (fd < 0) rc = sys_fail(tmp, "cannot create the manifest", errno);
  else if (ostio__write_full(fd, text, len) != 0 || fsync(fd) < 0)
    rc = sys_fail(tmp, "cannot write the manifest", errno);
  if (fd >= 0) close(fd);
  free(text);
  return rc;
}

static int check_params(const char *path, const ostio__ctr_params *p)
{
  if (p->kind == OSTIO__CTR_KIND_LOG) {
    if (p->hostdirs < 1 || p->hostdirs > OSTIO__LOG_HOSTDIRS_MAX)
      return ostio__fail(OSTIO_EINVAL, "%s: %d hostdirs: a log container has 1 to %d", path,
                         (int)p->hostdirs, OSTIO__LOG_HOSTDIRS_MAX);
    return 0;
  }
  if (p->nobjects < 1 || p->nobjects > OSTIO__CTR_MAX_OBJECTS)
    return ostio__fail(OSTIO_EINVAL, "%s: %d objects: a striped container has 1 to %d "
                       "(ostio_objects, or the stripe count)", path, (int)p->nobjects,
                       OSTIO__CTR_MAX_OBJECTS);
  if (p->stripe_size < OSTIO__CTR_STRIPE_UNIT || p->stripe_size > OSTIO__CTR_STRIPE_MAX ||
      p->stripe_size % OSTIO__CTR_STRIPE_UNIT)
    return ostio__fail(OSTIO_EINVAL, "%s: stripe size %lld: a container's stripe size is a "
                       "multiple of 64 KiB from 64 KiB to 4 GiB - 64 KiB (as on Lustre)", path,
                       (long long)p->stripe_size);
  return 0;
}

int ostio__ctr_create(const char *path, const ostio__ctr_params *p, int excl, int *created)
{
  char dir[PATH_CAP], base[PATH_CAP], tmp[2 * PATH_CAP + 300], host[64] = "h";
  ostio__manifest m;
  struct stat st;
  int dirfd = -1, rc;
  *created = 0;
  memset(&m, 0, sizeof m);
  if ((rc = split(path, dir, base)) < 0 || (rc = check_params(path, p)) < 0) return rc;
  if (lstat(path, &st) == 0) return exists(path, excl);
  if (errno != ENOENT) return sys_fail(path, "cannot stat", errno);
  gethostname(host, sizeof host - 1);
  host[strcspn(host, "/. ")] = '\0';
  /* .NAME.tmp.HOST.PID.RANDOM (NAME cut so the entry fits NAME_MAX); a
   * collision (two threads of one process) draws again. */
  int made = -1;
  for (int attempt = 0; attempt < 16 && made < 0; attempt++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t rnd = ostio__fnv1a64(&ts, sizeof ts) ^ (uint64_t)(uintptr_t)&ts ^
                   (uint64_t)attempt * UINT64_C(0x9e3779b97f4a7c15);
    snprintf(tmp, sizeof tmp, "%s/.%.120s.tmp.%s.%ld.%08" PRIx32, dir, base, host,
             (long)getpid(), (uint32_t)(rnd ^ rnd >> 32));
    made = mkdir(tmp, 0777);
    if (made < 0 && errno != EEXIST) break;
  }
  if (made < 0) return sys_fail(path, "cannot make the temporary directory", errno);
  if ((dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
    rc = sys_fail(tmp, "cannot open", errno);
    rmdir(tmp);
    return rc;
  }
  int lustre = ostio__path_is_lustre(tmp);
  if ((rc = fill_manifest(p, &m)) < 0) goto fail;
  for (int32_t i = 0; i < m.nobjects && rc == 0; i++)
    rc = make_object(tmp, dirfd, m.names[i], p->stripe_size,
                     p->first_ost >= 0 ? p->first_ost + i : -1, lustre);
  if (rc == 0) rc = write_manifest(tmp, dirfd, &m);
  if (rc == 0) rc = ostio__sizerec_write(dirfd, tmp, &(ostio__sizerec){.clean = 1, .size = 0});
  if (rc == 0 && fsync(dirfd) < 0) rc = sys_fail(tmp, "fsync", errno);
  if (rc < 0) goto fail;
  if (rename(tmp, path) < 0) {
    int e = errno;
    remove_tmp(tmp, dirfd, &m);
    if (e == EEXIST || e == ENOTEMPTY || e == ENOTDIR || e == EISDIR) rc = exists(path, excl);
    else rc = sys_fail(path, "cannot rename the new container into place", e);
    goto done;
  }
  *created = 1;
  int pfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd >= 0) {
    fsync(pfd); /* the rename is durable; failure here loses nothing but durability */
    close(pfd);
  }
  goto done;
fail:
  remove_tmp(tmp, dirfd, &m);
done:
  if (dirfd >= 0) close(dirfd);
  ostio__manifest_free(&m);
  return rc;
}

/* ---- opening ------------------------------------------------------------- */

int ostio__ctr_read_manifest(const char *path, int dirfd, char **text, size_t *len)
{
  *text = NULL;
  *len = 0;
  int fd = openat(dirfd, OSTIO__CTR_MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return ostio__fail(errno == ENOENT ? OSTIO_EFORMAT : ostio__from_errno(errno),
                       "%s: cannot open %s: %s; a container directory holds its manifest",
                       path, OSTIO__CTR_MANIFEST, strerror(errno));
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
    rc = ostio__fail(OSTIO_EFORMAT, "%s/%s: not a regular file", path, OSTIO__CTR_MANIFEST);
  else if (st.st_size > OSTIO__CTR_MANIFEST_MAX)
    rc = ostio__fail(OSTIO_EFORMAT, "%s/%s: %lld bytes; a manifest has at most 1 MiB", path,
                     OSTIO__CTR_MANIFEST, (long long)st.st_size);
  char *buf = rc == 0 ? malloc((size_t)st.st_size + 1) : NULL;
  if (rc == 0 && !buf) rc = ostio__fail(OSTIO_ENOMEM, "out of memory");
  size_t got = 0;
  if (rc == 0 && ostio__pread_full(fd, buf, (size_t)st.st_size, 0, &got) != 0)
    rc = sys_fail(path, "cannot read the manifest", errno);
  close(fd);
  if (rc < 0) {
    free(buf);
    return rc;
  }
  buf[got] = '\0';
  *text = buf;
  *len = got;
  return 0;
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

static int open_objects(ostio__ctr *c)
{
  const ostio__manifest *m = &c->m;
  if (!(c->fd = malloc((size_t)m->nobjects * sizeof *c->fd)))
    return ostio__fail(OSTIO_ENOMEM, "out of memory");
  for (int32_t i = 0; i < m->nobjects; i++) c->fd[i] = -1;
  for (int32_t i = 0; i < m->nobjects; i++) {
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
  return 0;
}

int ostio__ctr_kind_of(const char *path, int *kind)
{
  char *text = NULL, what[PATH_CAP + 32];
  size_t len = 0;
  ostio__manifest m;
  *kind = OSTIO__CTR_KIND_NONE;
  int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) return sys_fail(path, "cannot open the container directory", errno);
  int rc = ostio__ctr_read_manifest(path, dirfd, &text, &len);
  snprintf(what, sizeof what, "%s/%s", path, OSTIO__CTR_MANIFEST);
  if (rc == 0) rc = ostio__manifest_parse(text, len, what, &m);
  if (rc == 0) *kind = m.kind;
  if (rc == 0) ostio__manifest_free(&m);
  free(text);
  close(dirfd);
  return rc;
}

static int open_common(const char *path, const char *text, size_t len, int writable,
                       int objects, ostio__ctr **out)
{
  char *own = NULL, what[PATH_CAP + 32];
  int rc = 0;
  *out = NULL;
  ostio__ctr *c = calloc(1, sizeof *c);
  if (!c || !(c->path = strdup(path))) {
    free(c);
    return ostio__fail(OSTIO_ENOMEM, "out of memory");
  }
  c->writable = writable;
  if ((c->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
    rc = sys_fail(path, "cannot open the container directory", errno);
    goto done;
  }
  if (!text) {
    if ((rc = ostio__ctr_read_manifest(path, c->dirfd, &own, &len)) < 0) goto done;
    text = own;
  }
  snprintf(what, sizeof what, "%s/%s", path, OSTIO__CTR_MANIFEST);
  if ((rc = ostio__manifest_parse(text, len, what, &c->m)) < 0) goto done;
  if (objects && c->m.kind != OSTIO__CTR_KIND_STRIPED)
    rc = ostio__fail(OSTIO_EFORMAT, "%s is a %s container, not a striped one: it has no "
                     "object files or stripe layout; `ostio container stat|ls|map` show it",
                     path, ostio__ctr_kind_name(c->m.kind));
  else if (objects) rc = open_objects(c);
done:
  free(own);
  if (rc < 0) ctr_free(c);
  else *out = c;
  return rc;
}

int ostio__ctr_open_text(const char *path, const char *text, size_t len, int writable,
                         ostio__ctr **out)
{
  return open_common(path, text, len, writable, 1, out);
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
    if (fstat(c->fd[i], &st) < 0) rc = sys_fail(c->path, m->names[i], errno);
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
    if (fsync(c->fd[i]) < 0)
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

int ostio__ctr_remove(const char *path)
{
  ostio__ctr *c = NULL;
  int rc = open_common(path, NULL, 0, 0, 0, &c);
  if (rc == OSTIO_EFORMAT) {
    /* A damaged container is not removed blindly: say what to do. */
    char keep[512];
    snprintf(keep, sizeof keep, "%s", ostio_last_error());
    return ostio__fail(OSTIO_EFORMAT, "%s; not removing it: check it with `ostio container "
                       "check` and remove it by hand", keep);
  }
  if (rc < 0) return rc;
  if (c->m.kind == OSTIO__CTR_KIND_LOG) {
    ctr_free(c);
    return ostio__log_remove(path);
  }
  for (int32_t i = 0; i < c->m.nobjects; i++)
    if (unlinkat(c->dirfd, c->m.names[i], 0) < 0 && errno != ENOENT && rc == 0)
      rc = sys_fail(path, c->m.names[i], errno);
  if (unlinkat(c->dirfd, OSTIO__CTR_SIZEREC, 0) < 0 && errno != ENOENT && rc == 0)
    rc = sys_fail(path, OSTIO__CTR_SIZEREC, errno);
  if (rc == 0 && unlinkat(c->dirfd, OSTIO__CTR_MANIFEST, 0) < 0)
    rc = sys_fail(path, OSTIO__CTR_MANIFEST, errno);
  ctr_free(c);
  if (rc == 0 && rmdir(path) < 0)
    rc = errno == ENOTEMPTY || errno == EEXIST
             ? ostio__fail(OSTIO_ENOTEMPTY, "%s: removed the container's files, but other "
                           "files remain in the directory; they were left alone", path)
             : sys_fail(path, "cannot remove the directory", errno);
  return rc;
}
