/* The container directory, whatever its kind: race-free creation (built
 * under a temporary sibling and renamed into place), reading the manifest,
 * the kind of a path, and removal. What differs by kind (its manifest keys,
 * its object files, its removal) is the kind's ostio__ctr_kind, so nothing
 * here names a kind. No MPI. See docs/containers.md. */
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
#include "core/error.h"
#include "core/fdio.h"

#define PATH_CAP 4096
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

/* The common keys; the kind fills its own. */
static int fill_manifest(const ostio__ctr_kind *kind, const ostio__ctr_params *p,
                         ostio__manifest *m)
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
  m->kind = kind;
  snprintf(m->byte_order, sizeof m->byte_order, "little");
  return kind->fill(p, m); /* the kind's keys; the object files it names */
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

int ostio__ctr_create(const char *path, const ostio__ctr_params *p, int excl, int *created)
{
  char dir[PATH_CAP], base[PATH_CAP], tmp[2 * PATH_CAP + 300], host[64] = "h";
  ostio__manifest m;
  struct stat st;
  int dirfd = -1, rc;
  const ostio__ctr_kind *kind = p->kind ? p->kind : ostio__ctr_kind_default();
  *created = 0;
  memset(&m, 0, sizeof m);
  if ((rc = split(path, dir, base)) < 0 || (rc = kind->check_params(path, p)) < 0) return rc;
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
  if ((rc = fill_manifest(kind, p, &m)) < 0) goto fail;
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

int ostio__ctr_open_dir(const char *path, const char *text, size_t len, int *dirfd,
                        ostio__manifest *m)
{
  char *own = NULL, what[4096 + 32];
  int rc = 0;
  if ((*dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return sys_fail(path, "cannot open the container directory", errno);
  if (!text) {
    if ((rc = ostio__ctr_read_manifest(path, *dirfd, &own, &len)) < 0) return rc;
    text = own;
  }
  snprintf(what, sizeof what, "%s/%s", path, OSTIO__CTR_MANIFEST);
  rc = ostio__manifest_parse(text, len, what, m);
  free(own);
  return rc;
}

int ostio__ctr_kind_of(const char *path, const char **name)
{
  char *text = NULL, what[PATH_CAP + 32];
  size_t len = 0;
  ostio__manifest m;
  *name = NULL;
  int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) return sys_fail(path, "cannot open the container directory", errno);
  int rc = ostio__ctr_read_manifest(path, dirfd, &text, &len);
  snprintf(what, sizeof what, "%s/%s", path, OSTIO__CTR_MANIFEST);
  if (rc == 0) rc = ostio__manifest_parse(text, len, what, &m);
  if (rc == 0) *name = m.kind->name;
  if (rc == 0) ostio__manifest_free(&m);
  free(text);
  close(dirfd);
  return rc;
}

int ostio__ctr_remove(const char *path)
{
  char *text = NULL, what[PATH_CAP + 32];
  size_t len = 0;
  ostio__manifest m;
  memset(&m, 0, sizeof m);
  int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) return sys_fail(path, "cannot open the container directory", errno);
  int rc = ostio__ctr_read_manifest(path, dirfd, &text, &len);
  snprintf(what, sizeof what, "%s/%s", path, OSTIO__CTR_MANIFEST);
  if (rc == 0) rc = ostio__manifest_parse(text, len, what, &m);
  free(text);
  if (rc == OSTIO_EFORMAT) {
    /* A damaged container is not removed blindly: say what to do. */
    char keep[512];
    snprintf(keep, sizeof keep, "%s", ostio_last_error());
    rc = ostio__fail(OSTIO_EFORMAT, "%s; not removing it: check it with `ostio container "
                     "check` and remove it by hand", keep);
  }
  if (rc == 0) rc = m.kind->remove(path, dirfd, &m);
  ostio__manifest_free(&m);
  close(dirfd);
  return rc;
}
