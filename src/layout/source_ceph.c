/* The CephFS source: the virtual xattrs ceph.file.layout (a file's layout,
 * always present) and ceph.dir.layout (a directory's default, present only
 * where one was set), text such as
 *   stripe_unit=65536 stripe_count=3 object_size=262144 pool=cephfs_data
 * CephFS is recognised by statfs magic under the kernel client; ceph-fuse
 * reports FUSE's magic, so there the presence of Ceph's virtual xattrs
 * decides. Elsewhere this source answers OSTIO_ENOLAYOUT. Layouts are set
 * on an empty file or a directory by writing the whole ceph.*.layout
 * xattr at once, so Ceph checks the three numbers together. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/error.h"
#include "layout/source.h"

#define FILE_XATTR "ceph.file.layout"
#define DIR_XATTR  "ceph.dir.layout"
#define FUSE_SUPER_MAGIC 0x65735546u
#define TEXT_CAP 1024

/* 1 when p is on CephFS, 0 when not, -1 when p cannot be asked. */
static int probe(const char *p)
{
  struct statfs sf;
  if (statfs(p, &sf) < 0) return -1;
  if ((uint32_t)sf.f_type == OSTIO__CEPH_SUPER_MAGIC) return 1;
  if ((uint32_t)sf.f_type != FUSE_SUPER_MAGIC) return 0;
  /* ceph-fuse: every directory has ceph.dir.entries, every file
   * ceph.file.layout (other FUSE file systems have neither). */
  return getxattr(p, "ceph.dir.entries", NULL, 0) >= 0 ||
         getxattr(p, FILE_XATTR, NULL, 0) >= 0;
}

int ostio__path_is_ceph(const char *path)
{
  char dir[4096];
  int r = probe(path);
  if (r >= 0) return r;
  ostio__parent_dir(path, dir, sizeof dir);
  return probe(dir) == 1;
}

int64_t ostio__ceph_default_object_size(int64_t stripe_unit)
{
  const int64_t dflt = OSTIO__CEPH_DEFAULT_OBJECT_SIZE;
  if (stripe_unit <= 0) return dflt;
  return stripe_unit >= dflt ? stripe_unit : (dflt + stripe_unit - 1) / stripe_unit * stripe_unit;
}

int ostio__check_ceph_layout(const ostio_layout *l, const char *what)
{
  char w[4300];
  if (l->ncomp != 1 || l->comp[0].end != OSTIO_EOF)
    return ostio__fail(OSTIO_ELAYOUT, "%s: a layout of %d components: Ceph stripes a whole file "
                       "one way (no composite layouts); give one component", what, l->ncomp);
  const ostio__comp *c = &l->comp[0];
  if (c->pattern & OSTIO_PATTERN_OVERSTRIPING)
    return ostio__fail(OSTIO_ELAYOUT, "%s: overstriping: Ceph places objects by CRUSH, not on "
                       "chosen OSTs; give a plain stripe count", what);
  snprintf(w, sizeof w, "%s: stripe unit", what);
  int rc = ostio__check_stripe_align(c->stripe_size, w, "Ceph");
  if (rc < 0) return rc;
  const int64_t max = 0xFFFFFFFFll / c->stripe_size * c->stripe_size;
  if (c->object_size != 0 && (c->object_size < c->stripe_size || c->object_size > max ||
                              c->object_size % c->stripe_size))
    return ostio__fail(OSTIO_ELAYOUT, "%s: object size %lld: Ceph needs a multiple of the "
                       "stripe unit %lld, up to %lld (below 4 GiB)", what,
                       (long long)c->object_size, (long long)c->stripe_size, (long long)max);
  return 0;
}

/* ---- reading ------------------------------------------------------------ */

static int parse_u32(const char *v, int64_t *out)
{
  char *end;
  if (*v < '0' || *v > '9') return -1;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 10);
  if (errno || *end || x > 0xFFFFFFFFull) return -1;
  *out = (int64_t)x;
  return 0;
}

int ostio__ceph_parse_layout(const char *path, const char *name, const char *text, size_t len,
                             ostio_layout **out)
{
  char buf[TEXT_CAP + 1], *save = NULL;
  int64_t su = -1, sc = -1, os = -1;
  ostio__comp c = {.start = 0, .end = OSTIO_EOF, .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  if (len > TEXT_CAP)
    return ostio__fail(OSTIO_EFORMAT, "%s: %s holds %zu bytes; expected a short text", path,
                       name, len);
  memcpy(buf, text, len);
  buf[len] = '\0';
  for (char *tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) goto bad;
    *eq = '\0';
    const char *k = tok, *v = eq + 1;
    int64_t *slot = !strcmp(k, "stripe_unit") ? &su : !strcmp(k, "stripe_count") ? &sc
                    : !strcmp(k, "object_size") ? &os : NULL;
    if (slot) {
      if (parse_u32(v, slot) < 0) goto bad;
    } else if (!strcmp(k, "pool")) {
      /* Ceph pool names can be longer than the model's 16 characters: such
       * a pool is not shown (it changes nothing in the math). */
      if (ostio__valid_pool_name(v)) snprintf(c.pool, sizeof c.pool, "%s", v);
    } /* pool_namespace and keys of later Ceph versions do not change the striping */
    continue;
  bad:
    return ostio__fail(OSTIO_EFORMAT, "%s: %s: cannot read \"%s%s%s\" (expected key=value with "
                       "numbers below 2^32)", path, name, tok, eq ? "=" : "", eq ? eq + 1 : "");
  }
  if (su < 1 || sc < 1 || os < 1 || os % su)
    return ostio__fail(OSTIO_EFORMAT, "%s: %s gives stripe_unit %lld, stripe_count %lld, "
                       "object_size %lld: expected all three, non-zero, object_size a multiple "
                       "of stripe_unit", path, name, (long long)su, (long long)sc, (long long)os);
  if (sc > OSTIO_MAX_STRIPE_COUNT)
    return ostio__fail(OSTIO_ENOTSUP, "%s: stripe_count %lld: ostio models at most %d objects "
                       "per object set", path, (long long)sc, OSTIO_MAX_STRIPE_COUNT);
  c.stripe_size = su;
  c.stripe_count = (int32_t)sc;
  c.object_size = os;
  ostio_layout *l = ostio__layout_new();
  if (!l) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  int rc = ostio__layout_add(l, &c);
  if (rc == 0) rc = ostio__layout_validate(l);
  if (rc < 0) {
    ostio__layout_destroy(l);
    return rc;
  }
  snprintf(l->source, sizeof l->source, "ceph");
  *out = l;
  return 0;
}

/* 0 and *out, OSTIO_ENOLAYOUT when p has no such xattr (a directory
 * without a default of its own), or an error. */
static int read_xattr(const char *p, const char *name, ostio_layout **out)
{
  char text[TEXT_CAP];
  ssize_t n = getxattr(p, name, text, sizeof text);
  if (n >= 0) return ostio__ceph_parse_layout(p, name, text, (size_t)n, out);
  if (errno == ENODATA) return OSTIO_ENOLAYOUT;
  return ostio__fail(ostio__from_errno(errno), "%s: cannot read %s: %s", p, name,
                     strerror(errno));
}

/* A directory without its own ceph.dir.layout: new files there get the
 * nearest ancestor's, up to the file system's root (which CephFS gives one
 * when the file system is made); as Ceph does. Past the mount point, or
 * with no ancestor holding one, Ceph's built-in default. */
static int inherited_dir_layout(const char *dir, ostio_layout **out)
{
  char cur[PATH_MAX], up[PATH_MAX];
  struct stat st, ust;
  if (!realpath(dir, cur) || stat(cur, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: %s", dir, strerror(errno));
  for (;;) {
    ostio__parent_dir(cur, up, sizeof up);
    if (!strcmp(up, cur) || stat(up, &ust) < 0 || ust.st_dev != st.st_dev || probe(up) != 1)
      break;
    int rc = read_xattr(up, DIR_XATTR, out);
    if (rc != OSTIO_ENOLAYOUT) return rc;
    snprintf(cur, sizeof cur, "%s", up);
  }
  int rc = ostio__layout_simple(OSTIO__CEPH_DEFAULT_OBJECT_SIZE, 1, -1, out);
  if (rc == 0) {
    (*out)->comp[0].object_size = OSTIO__CEPH_DEFAULT_OBJECT_SIZE;
    snprintf((*out)->source, sizeof (*out)->source, "ceph");
  }
  return rc;
}

static int query(const char *path, const ostio__hints *h, ostio_layout **out)
{
  struct stat st;
  (void)h;
  if (ostio__path_is_ceph(path) != 1) return OSTIO_ENOLAYOUT;
  if (stat(path, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: %s", path, strerror(errno));
  if (!S_ISDIR(st.st_mode)) return read_xattr(path, FILE_XATTR, out);
  int rc = read_xattr(path, DIR_XATTR, out);
  if (rc != OSTIO_ENOLAYOUT) return rc;
  rc = inherited_dir_layout(path, out);
  if (rc == 0) (*out)->inherited = 1;
  return rc;
}

/* ---- setting ------------------------------------------------------------ */

/* "stripe_unit=S stripe_count=K object_size=O[ pool=P]" for l, after
 * checking it against Ceph's rule. */
static int layout_text(const char *path, const ostio_layout *l, char *text, size_t cap)
{
  char what[4200];
  snprintf(what, sizeof what, "%s", path);
  int rc = ostio__check_ceph_layout(l, what);
  if (rc < 0) return rc;
  const ostio__comp *c = &l->comp[0];
  int64_t os = c->object_size > 0 ? c->object_size : ostio__ceph_default_object_size(c->stripe_size);
  snprintf(text, cap, "stripe_unit=%lld stripe_count=%d object_size=%lld%s%s",
           (long long)c->stripe_size, (int)c->stripe_count, (long long)os,
           c->pool[0] ? " pool=" : "", c->pool);
  return 0;
}

static int refused(const char *path, const char *name, const char *text, int e)
{
  if (e == ENOTEMPTY)
    return ostio__fail(OSTIO_ENOTEMPTY, "%s: holds data; Ceph gives a layout only to an empty "
                       "file", path);
  if (e == EINVAL)
    return ostio__fail(OSTIO_ELAYOUT, "%s: Ceph refused %s \"%s\": it accepts a stripe_unit "
                       "and an object_size that are multiples of 64 KiB, object_size a multiple "
                       "of stripe_unit, and a pool among the file system's data pools", path,
                       name, text);
  return ostio__fail(ostio__from_errno(e), "%s: cannot set %s: %s", path, name, strerror(e));
}

static int create(const char *path, const ostio_layout *l, mode_t mode)
{
  char text[256] = "";
  int rc = 0, created = 0;
  if (ostio__path_is_ceph(path) != 1) return OSTIO_ENOLAYOUT;
  if (l && (rc = layout_text(path, l, text, sizeof text)) < 0) return rc;
  int fd = ostio__open_new_or_empty(path, mode, 0, &created);
  if (fd < 0) return fd;
  if (l && fsetxattr(fd, FILE_XATTR, text, strlen(text), 0) < 0) {
    rc = refused(path, FILE_XATTR, text, errno);
    if (created) unlink(path);
  }
  close(fd);
  return rc;
}

static int set_dir_default(const char *dir, const ostio_layout *l)
{
  char text[256];
  if (ostio__path_is_ceph(dir) != 1) return OSTIO_ENOLAYOUT;
  int rc = layout_text(dir, l, text, sizeof text);
  if (rc < 0) return rc;
  if (setxattr(dir, DIR_XATTR, text, strlen(text), 0) < 0)
    rc = refused(dir, DIR_XATTR, text, errno);
  return rc;
}

const ostio__layout_source ostio__source_ceph = {
  .version = OSTIO__LAYOUT_SOURCE_VERSION,
  .name = "ceph",
  .query = query,
  .create = create,
  .set_dir_default = set_dir_default,
};
