/* The Lustre source: the raw "lustre.lov" xattr parsed by lov.c, without
 * liblustreapi. Lustre is recognised by statfs magic; elsewhere this source
 * answers OSTIO_ENOLAYOUT. Layouts are set at creation: open with
 * O_LOV_DELAY_CREATE, then LL_IOC_LOV_SETSTRIPE (one component) or the
 * lustre.lov xattr (composite). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/error.h"
#include "layout/lov.h"
#include "layout/source.h"

#define LOV_XATTR "lustre.lov"
/* From lustre_user.h: _IOW('f', 154, long) and O_NOCTTY | FASYNC. */
#define LL_IOC_LOV_SETSTRIPE _IOW('f', 154, long)
#define O_LOV_DELAY_CREATE (O_NOCTTY | FASYNC)

int ostio__path_is_lustre(const char *path)
{
  struct statfs sf;
  char dir[4096];
  if (statfs(path, &sf) == 0) return (uint32_t)sf.f_type == OSTIO__LL_SUPER_MAGIC;
  ostio__parent_dir(path, dir, sizeof dir);
  return statfs(dir, &sf) == 0 && (uint32_t)sf.f_type == OSTIO__LL_SUPER_MAGIC;
}

static int query(const char *path, const ostio__hints *h, ostio_layout **out)
{
  size_t cap = 4096;
  char *buf = NULL;
  int rc;
  (void)h;
  if (!ostio__path_is_lustre(path)) return OSTIO_ENOLAYOUT;
  for (;;) {
    char *grown = realloc(buf, cap);
    if (!grown) { rc = ostio__fail(OSTIO_ENOMEM, "out of memory"); goto done; }
    buf = grown;
    ssize_t n = getxattr(path, LOV_XATTR, buf, cap);
    if (n >= 0) {
      rc = ostio__lov_parse(buf, (size_t)n, out);
      goto done;
    }
    if (errno == ERANGE && cap < (1u << 24)) { cap *= 4; continue; }
    if (errno == ENODATA) { rc = OSTIO_ENOLAYOUT; goto done; } /* directory without default */
    rc = ostio__fail(ostio__from_errno(errno), "%s: cannot read %s: %s", path, LOV_XATTR,
                     strerror(errno));
    goto done;
  }
done:
  free(buf);
  return rc;
}

/* Applies l to the open, not yet instantiated fd (a new file or a directory). */
static int apply(int fd, const char *path, const ostio_layout *l)
{
  void *blob = NULL;
  size_t len = 0;
  int rc = ostio__lov_encode(l, &blob, &len);
  if (rc < 0) return rc;
  int single = l->ncomp == 1 && l->comp[0].end == OSTIO_EOF; /* lov_encode made a plain md */
  if ((single ? ioctl(fd, LL_IOC_LOV_SETSTRIPE, blob) : fsetxattr(fd, LOV_XATTR, blob, len, 0)) < 0)
    rc = ostio__fail(errno == EEXIST ? OSTIO_EEXIST : ostio__from_errno(errno),
                     "%s: Lustre refused the layout: %s", path,
                     errno == EEXIST ? "the file already has objects" : strerror(errno));
  free(blob);
  return rc;
}

/* "64k (65536)": the shortest suffix form, then the bytes. */
static void size_text(char *buf, size_t cap, int64_t v)
{
  static const struct { int64_t unit; char suffix; } units[] = {
    {1ll << 40, 't'}, {1ll << 30, 'g'}, {1ll << 20, 'm'}, {1ll << 10, 'k'}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (v % units[i].unit == 0) {
      snprintf(buf, cap, "%lld%c (%lld)", (long long)(v / units[i].unit), units[i].suffix,
               (long long)v);
      return;
    }
  snprintf(buf, cap, "%lld", (long long)v);
}

int ostio__check_lustre_stripe_size(int64_t size, const char *what)
{
  return ostio__check_stripe_align(size, what, "Lustre");
}

int ostio__check_stripe_align(int64_t size, const char *what, const char *fs)
{
  const int64_t a = OSTIO__LUSTRE_STRIPE_ALIGN, max = OSTIO__LUSTRE_STRIPE_MAX;
  if (size >= a && size <= max && size % a == 0) return 0;
  int64_t below = size > max ? max : size > 0 ? size / a * a : 0;
  int64_t above = size > max ? 0 : size < a ? a : below + a;
  char lo[64] = "", hi[64] = "";
  if (below >= a) size_text(lo, sizeof lo, below);
  if (above >= a && above <= max) size_text(hi, sizeof hi, above);
  return ostio__fail(OSTIO_ELAYOUT, "%s %lld: %s needs a multiple of 64 KiB (65536 bytes), "
                     "from 64k to 4194240k; nearest valid sizes: %s%s%s", what, (long long)size,
                     fs, lo, lo[0] && hi[0] ? " or " : "", hi);
}

static int check_lustre_limits(const char *path, const ostio_layout *l)
{
  char what[4200];
  for (int i = 0; i < l->ncomp; i++) {
    if (l->comp[i].object_size > 0)
      return ostio__fail(OSTIO_ELAYOUT, "%s: object size %lld: Lustre's objects are unbounded "
                         "(object sets are Ceph's); give no object size on Lustre", path,
                         (long long)l->comp[i].object_size);
    if (l->ncomp == 1) snprintf(what, sizeof what, "%s: stripe size", path);
    else snprintf(what, sizeof what, "%s: component %d: stripe size", path, i + 1);
    int rc = ostio__check_lustre_stripe_size(l->comp[i].stripe_size, what);
    if (rc < 0) return rc;
  }
  return 0;
}

static int create(const char *path, const ostio_layout *l, mode_t mode)
{
  if (!ostio__path_is_lustre(path)) return OSTIO_ENOLAYOUT;
  int rc = l ? check_lustre_limits(path, l) : 0;
  if (rc < 0) return rc;
  int created = 0;
  int fd = ostio__open_new_or_empty(path, mode, l ? O_LOV_DELAY_CREATE : 0, &created);
  if (fd < 0) return fd;
  if (l && (rc = apply(fd, path, l)) < 0 && created) unlink(path);
  close(fd);
  return rc;
}

static int set_dir_default(const char *dir, const ostio_layout *l)
{
  if (!ostio__path_is_lustre(dir)) return OSTIO_ENOLAYOUT;
  int rc = check_lustre_limits(dir, l);
  if (rc < 0) return rc;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: cannot open: %s", dir, strerror(errno));
  rc = apply(fd, dir, l);
  close(fd);
  return rc;
}

const ostio__layout_source ostio__source_lustre = {
  .version = OSTIO__LAYOUT_SOURCE_VERSION,
  .name = "lustre",
  .query = query,
  .create = create,
  .set_dir_default = set_dir_default,
};
