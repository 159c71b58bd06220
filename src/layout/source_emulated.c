/* The emulated layout source: a user.ostio.layout xattr holding the text
 * record of layout_record.c, on a file or, as its default, on a directory
 * (like `lfs setstripe DIR`). A file without its own record shows its
 * directory's default, marked inherited. Works on any file system with user
 * xattrs (ext4, xfs, tmpfs, btrfs). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/error.h"
#include "layout/source.h"

#define XATTR_CAP 65536

/* Reads the record on path: 0, OSTIO_ENOLAYOUT (no record or no xattrs), or
 * an error. */
static int read_record(const char *path, ostio_layout **out)
{
  char *buf = malloc(XATTR_CAP);
  int rc;
  if (!buf) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  ssize_t n = getxattr(path, OSTIO__LAYOUT_XATTR, buf, XATTR_CAP);
  if (n < 0) {
    int e = errno;
    if (e == ENODATA || e == ENOTSUP) rc = OSTIO_ENOLAYOUT;
    else rc = ostio__fail(ostio__from_errno(e), "%s: cannot read %s: %s", path,
                          OSTIO__LAYOUT_XATTR, strerror(e));
  } else {
    rc = ostio__record_decode(buf, (size_t)n, out);
    if (rc < 0) {
      char why[400];
      snprintf(why, sizeof why, "%s", ostio_last_error());
      rc = ostio__fail(rc, "%s: bad %s record: %s", path, OSTIO__LAYOUT_XATTR, why);
    }
  }
  free(buf);
  return rc;
}

static int query(const char *path, const ostio__hints *h, ostio_layout **out)
{
  struct stat st;
  char dir[4096];
  (void)h;
  if (stat(path, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: %s", path, strerror(errno));
  int rc = read_record(path, out);
  if (rc != OSTIO_ENOLAYOUT || S_ISDIR(st.st_mode)) return rc;
  ostio__parent_dir(path, dir, sizeof dir);
  rc = read_record(dir, out);
  if (rc == 0) (*out)->inherited = 1;
  return rc;
}

int ostio__layout_emulated_osts(ostio_layout *l)
{
  for (int i = 0; l && i < l->ncomp; i++) {
    ostio__comp *c = &l->comp[i];
    if (c->osts) continue;
    if (c->pattern & OSTIO_PATTERN_OVERSTRIPING)
      return ostio__fail(OSTIO_ELAYOUT, "component %d: overstriping %d objects off Lustre "
                         "needs an OST list saying which OSTs they share", i + 1,
                         (int)c->stripe_count);
    int32_t first = c->first_ost >= 0 ? c->first_ost : 0;
    if (c->stripe_count < 1 || c->stripe_count > OSTIO_MAX_STRIPE_COUNT ||
        first > INT32_MAX - c->stripe_count)
      return ostio__fail(OSTIO_ELAYOUT, "component %d: %d objects from OST %d: expected a "
                         "stripe count 1..%d and OSTs below 2^31", i + 1,
                         (int)c->stripe_count, (int)first, OSTIO_MAX_STRIPE_COUNT);
    int32_t *osts = malloc(sizeof(int32_t) * (size_t)c->stripe_count);
    if (!osts) return ostio__fail(OSTIO_ENOMEM, "out of memory");
    for (int32_t k = 0; k < c->stripe_count; k++) osts[k] = first + k;
    c->osts = osts;
    c->first_ost = first;
    c->instantiated = 1;
  }
  return 0;
}

/* The text stored for l, with the OSTs an emulated layout gets filled in. */
static int encode_checked(const char *path, const ostio_layout *given, char **text, size_t *len)
{
  ostio_layout *l = NULL;
  int rc = ostio__layout_copy(given, &l);
  if (rc == 0 && (rc = ostio__layout_emulated_osts(l)) < 0) {
    char why[400];
    snprintf(why, sizeof why, "%s", ostio_last_error());
    rc = ostio__fail(rc, "%s: %s", path, why);
  }
  if (rc == 0) rc = ostio__layout_validate(l);
  if (rc == 0) rc = ostio__record_encode(l, text, len);
  ostio__layout_destroy(l);
  if (rc < 0) return rc;
  if (*len > 4000) {
    free(*text);
    *text = NULL;
    return ostio__fail(OSTIO_ERANGE, "%s: the layout record needs %zu bytes; extended "
                       "attributes on most file systems hold about 4000", path, *len);
  }
  return 0;
}

static int xattr_error(const char *path, int e)
{
  if (e == ENOTSUP)
    return ostio__fail(OSTIO_ENOTSUP, "%s: the file system does not support user extended "
                       "attributes, which emulated layouts are stored in; use a file system "
                       "that does (ext4, xfs, tmpfs) or pass striping hints at every open",
                       path);
  return ostio__fail(ostio__from_errno(e), "%s: cannot store %s: %s", path,
                     OSTIO__LAYOUT_XATTR, strerror(e));
}

static int create(const char *path, const ostio_layout *l, mode_t mode)
{
  char *text = NULL;
  size_t len = 0;
  int rc = 0, fd = -1;
  ostio_layout *inherited = NULL;
  if (!l) {
    char dir[4096];
    ostio__parent_dir(path, dir, sizeof dir);
    rc = read_record(dir, &inherited);
    if (rc < 0 && rc != OSTIO_ENOLAYOUT) goto done;
    l = inherited;
    rc = 0;
  }
  if (l && (rc = encode_checked(path, l, &text, &len)) < 0) goto done;
  int created = 0;
  if ((fd = ostio__open_new_or_empty(path, mode, 0, &created)) < 0) {
    rc = fd;
    goto done;
  }
  if (text && fsetxattr(fd, OSTIO__LAYOUT_XATTR, text, len, 0) < 0) {
    rc = xattr_error(path, errno);
    if (created) unlink(path);
  }
done:
  if (fd >= 0) close(fd);
  free(text);
  ostio__layout_destroy(inherited);
  return rc;
}

static int set_dir_default(const char *dir, const ostio_layout *l)
{
  char *text = NULL;
  size_t len = 0;
  int rc = encode_checked(dir, l, &text, &len);
  if (rc < 0) return rc;
  if (setxattr(dir, OSTIO__LAYOUT_XATTR, text, len, 0) < 0) rc = xattr_error(dir, errno);
  free(text);
  return rc;
}

const ostio__layout_source ostio__source_emulated = {
  .version = OSTIO__LAYOUT_SOURCE_VERSION,
  .name = "emulated",
  .query = query,
  .create = create,
  .set_dir_default = set_dir_default,
};
