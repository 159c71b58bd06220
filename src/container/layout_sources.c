/* The registry of layout sources and the rules that combine them (see
 * layout_sources.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "container/layout_sources.h"
#include "core/error.h"
#include "core/runtime.h"

/* Tried in this order; each answers OSTIO_ENOLAYOUT to pass. A container
 * directory speaks for itself, before the file system's view of it. */
static const ostio__layout_source *const registry[] = {
  &ostio__source_container,
  &ostio__source_lustre,
  &ostio__source_ceph,
  &ostio__source_emulated,
  &ostio__source_hints,
  &ostio__source_default,
};
#define NSOURCES (sizeof registry / sizeof registry[0])

/* When path cannot be reached because a directory on its way does not
 * exist, or is not a directory, fails again with a detail naming it ("P:
 * directory D does not exist", "P: F is not a directory"). Otherwise rc
 * and its detail are returned unchanged: a missing file in a directory
 * that exists is only a missing file. */
static int explain_missing(const char *path, int rc)
{
  char dir[4096], up[4096], missing[4096] = "";
  struct stat st;
  if (rc != OSTIO_ENOENT && rc != OSTIO_ENOTDIR) return rc;
  ostio__parent_dir(path, dir, sizeof dir);
  for (;;) {
    if (stat(dir, &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return ostio__fail(OSTIO_ENOTDIR, "%s: %s is not a directory", path, dir);
      if (!missing[0]) return rc;
      return ostio__fail(OSTIO_ENOENT, "%s: directory %s does not exist", path, missing);
    }
    if (errno != ENOENT && errno != ENOTDIR) return rc;
    snprintf(missing, sizeof missing, "%s", dir);
    ostio__parent_dir(dir, up, sizeof up);
    if (!strcmp(up, dir)) return rc;
    snprintf(dir, sizeof dir, "%s", up);
  }
}

/* Asks one source; a layout it gives carries the source's name (so
 * ostio_layout_source returns one of the documented names, never a blank). */
static int ask(const ostio__layout_source *s, const char *path, const ostio__hints *h,
               ostio_layout **out)
{
  int rc = s->query(path, h, out);
  if (rc == 0 && !(*out)->source[0]) snprintf((*out)->source, sizeof (*out)->source, "%s", s->name);
  return rc;
}

static int only(const ostio__layout_source *s, const char *path, const ostio__hints *h,
                ostio_layout **out)
{
  int rc = ask(s, path, h, out);
  if (rc == OSTIO_ENOLAYOUT)
    rc = ostio__fail(OSTIO_ENOLAYOUT, "%s: no %s layout (hint ostio_layout_source=%s)", path,
                     s->name, s->name);
  return rc;
}

int ostio__layout_resolve(const char *path, const ostio__hints *h, ostio_layout **out)
{
  int rc = OSTIO_ENOLAYOUT;
  *out = NULL;
  if (!path || !*path) return ostio__fail(OSTIO_EINVAL, "empty path");
  int src = h ? h->ostio_layout_source : OSTIO__SRC_AUTO;
  if (src != OSTIO__SRC_HINTS) atomic_fetch_add(&ostio__rt.layout_fs_queries, 1);
  /* A container has its own layout whichever file-system source is asked. */
  if (src != OSTIO__SRC_HINTS) rc = ask(&ostio__source_container, path, h, out);
  if (rc != OSTIO_ENOLAYOUT) {
    /* answered (or failed) by the container source */
  } else if (src == OSTIO__SRC_LUSTRE) rc = only(&ostio__source_lustre, path, h, out);
  else if (src == OSTIO__SRC_CEPH) rc = only(&ostio__source_ceph, path, h, out);
  else if (src == OSTIO__SRC_EMULATED) rc = only(&ostio__source_emulated, path, h, out);
  else {
    for (size_t i = 0; i < NSOURCES && rc == OSTIO_ENOLAYOUT; i++) {
      if (registry[i] == &ostio__source_container) continue; /* asked above */
      if (src == OSTIO__SRC_HINTS && (registry[i] == &ostio__source_lustre ||
                                      registry[i] == &ostio__source_ceph ||
                                      registry[i] == &ostio__source_emulated))
        continue;
      rc = ask(registry[i], path, h, out);
    }
  }
  return explain_missing(path, rc);
}

int ostio__layout_create(const char *path, const ostio__hints *h,
                         const ostio_layout *explicit_layout, mode_t mode, ostio_layout **out)
{
  ostio_layout *from_hints = NULL;
  const ostio_layout *l = explicit_layout;
  int rc = 0;
  if (out) *out = NULL;
  if (!path || !*path) return ostio__fail(OSTIO_EINVAL, "empty path");
  if (l && (rc = ostio__layout_validate(l)) < 0) return rc;
  if (!l && h) {
    rc = ostio__source_hints.query(path, h, &from_hints);
    if (rc < 0 && rc != OSTIO_ENOLAYOUT) return rc;
    l = from_hints;
  }
  /* A real layout from the hint striping_unit follows Lustre's rule (ROMIO
   * passes it to Lustre, which refuses it; ROMIO then only warns on stderr
   * and the file gets the default layout). An emulated layout may have
   * any stripe size: the tests use 4 KiB and smaller. */
  rc = 0;
  if (from_hints && h->striping_unit > 0 && ostio__path_is_lustre(path)) {
    char what[4200];
    snprintf(what, sizeof what, "%s: hint striping_unit", path);
    rc = ostio__check_lustre_stripe_size(from_hints->comp[0].stripe_size, what);
  } else if (from_hints && h->striping_unit > 0 && ostio__path_is_ceph(path) == 1) {
    char what[4200];  /* the same for Ceph, whose stripe unit has the same rule */
    snprintf(what, sizeof what, "%s: hint striping_unit", path);
    rc = ostio__check_stripe_align(from_hints->comp[0].stripe_size, what, "Ceph");
  }
  if (rc == 0) rc = OSTIO_ENOLAYOUT;
  for (size_t i = 0; i < NSOURCES && rc == OSTIO_ENOLAYOUT; i++)
    if (registry[i]->create) rc = registry[i]->create(path, l, mode);
  if (rc == OSTIO_ENOLAYOUT)
    rc = ostio__fail(OSTIO_ENOTSUP, "%s: no layout source can create files here", path);
  rc = explain_missing(path, rc);
  if (rc == 0 && out) rc = ostio__layout_resolve(path, h, out);
  ostio__layout_destroy(from_hints);
  return rc;
}

int ostio__layout_set_dir_default(const char *dir, const ostio_layout *l)
{
  struct stat st;
  int rc = ostio__layout_validate(l);
  if (rc < 0) return rc;
  if (stat(dir, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: %s", dir, strerror(errno));
  if (!S_ISDIR(st.st_mode)) return ostio__fail(OSTIO_ENOTDIR, "%s: not a directory", dir);
  rc = OSTIO_ENOLAYOUT;
  for (size_t i = 0; i < NSOURCES && rc == OSTIO_ENOLAYOUT; i++)
    if (registry[i]->set_dir_default) rc = registry[i]->set_dir_default(dir, l);
  if (rc == OSTIO_ENOLAYOUT)
    rc = ostio__fail(OSTIO_ENOTSUP, "%s: no layout source can set a directory default here", dir);
  return rc;
}
