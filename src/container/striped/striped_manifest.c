/* The striped kind's part of the manifest (docs/container-format.md):
 * "stripe_size S", "objects K" and one "object I NAME" line per object; and
 * what creating, checking and removing one needs from it. manifest.c and
 * ctr_dir.c reach these through ostio__ctr_striped (the store registry
 * names it), so they have no kind branch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container.h"
#include "core/error.h"
#include "core/strbuf.h"

enum { SLOT_STRIPE_SIZE, SLOT_OBJECTS };

static int striped_key(ostio__mparse *s, ostio__manifest *m, const char *key, char *v)
{
  int64_t x;
  if (!strcmp(key, "stripe_size")) {
    int rc = ostio__mparse_once(s, SLOT_STRIPE_SIZE, key);
    if (rc < 0) return rc;
    if (ostio__mparse_num(v, 1, OSTIO__CTR_STRIPE_MAX, &x) < 0 || x % OSTIO__CTR_STRIPE_UNIT)
      return ostio__mparse_bad(s, "stripe_size \"%.40s\": expected a multiple of 65536 (64 "
                               "KiB) from 65536 to 4294901760", v);
    m->stripe_size = x;
    return 0;
  }
  if (!strcmp(key, "objects")) {
    int rc = ostio__mparse_once(s, SLOT_OBJECTS, key);
    if (rc < 0) return rc;
    if (ostio__mparse_num(v, 1, OSTIO__CTR_MAX_OBJECTS, &x) < 0)
      return ostio__mparse_bad(s, "objects \"%.40s\": expected an object count from 1 to %s",
                               v, "2000");
    m->nobjects = (int32_t)x;
    if (!(m->names = calloc((size_t)x, sizeof *m->names)))
      return ostio__fail(OSTIO_ENOMEM, "out of memory");
    return 0;
  }
  if (!strcmp(key, "object")) {
    if (!ostio__mparse_seen(s, SLOT_OBJECTS))
      return ostio__mparse_bad(s, "\"object\" before \"objects\": the object count must come "
                               "first");
    char *name = strchr(v, ' ');
    if (!name) return ostio__mparse_bad(s, "\"object %.40s\": expected \"object INDEX NAME\"", v);
    *name++ = '\0';
    char lim[16];
    snprintf(lim, sizeof lim, "%d", (int)m->nobjects - 1);
    if (ostio__mparse_num(v, 0, m->nobjects - 1, &x) < 0)
      return ostio__mparse_bad(s, "object index \"%.40s\": expected 0 to %s", v, lim);
    if (m->names[x]) return ostio__mparse_bad(s, "object %s listed twice", v);
    if (!ostio__ctr_name_ok(name))
      return ostio__mparse_bad(s, "object file name \"%.80s\": expected 1 to 64 of A-Z a-z "
                               "0-9 . _ -, not starting with '.' or \"ostio.\" (no '/', no "
                               "\"..\")", name);
    for (int32_t i = 0; i < m->nobjects; i++)
      if (m->names[i] && !strcmp(m->names[i], name))
        return ostio__mparse_bad(s, "object file name \"%.80s\" is used twice; each object "
                                 "needs its own file", name);
    if (!(m->names[x] = strdup(name))) return ostio__fail(OSTIO_ENOMEM, "out of memory");
    return 0;
  }
  return 1; /* not a striped key */
}

static int striped_finish(const ostio__mparse *s, const ostio__manifest *m)
{
  static const char *const need[] = {"stripe_size", "objects"};
  for (int k = SLOT_STRIPE_SIZE; k <= SLOT_OBJECTS; k++)
    if (!ostio__mparse_seen(s, k))
      return ostio__mparse_missing(s, "key \"%s\" is missing; a striped manifest needs "
                                   "stripe_size, objects and one object line per object",
                                   need[k]);
  for (int32_t i = 0; i < m->nobjects; i++)
    if (!m->names[i])
      return ostio__mparse_missing(s, "no \"object %d NAME\" line; every object from 0 to %d "
                                   "needs one", (int)i, (int)m->nobjects - 1);
  return 0;
}

static int striped_format(const ostio__manifest *m, ostio__sbuf *b)
{
  if (m->nobjects < 1 || m->nobjects > OSTIO__CTR_MAX_OBJECTS || !m->names)
    return ostio__fail(OSTIO_EINVAL, "manifest: %d objects; expected 1 to %d",
                       (int)m->nobjects, OSTIO__CTR_MAX_OBJECTS);
  if (m->stripe_size < OSTIO__CTR_STRIPE_UNIT || m->stripe_size > OSTIO__CTR_STRIPE_MAX ||
      m->stripe_size % OSTIO__CTR_STRIPE_UNIT)
    return ostio__fail(OSTIO_EINVAL, "container stripe size %lld: expected a multiple of "
                       "64 KiB from 64 KiB to 4 GiB - 64 KiB", (long long)m->stripe_size);
  ostio__sbuf_put(b, "stripe_size %lld\nobjects %d\n", (long long)m->stripe_size,
                  (int)m->nobjects);
  for (int32_t i = 0; i < m->nobjects; i++) {
    if (!ostio__ctr_name_ok(m->names[i]))
      return ostio__fail(OSTIO_EINVAL, "manifest: bad object file name \"%.80s\"",
                         m->names[i] ? m->names[i] : "(null)");
    ostio__sbuf_put(b, "object %d %s\n", (int)i, m->names[i]);
  }
  return 0;
}

static int striped_check_params(const char *path, const ostio__ctr_params *p)
{
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

/* K empty objects named obj.0000 .. (ctr_dir.c makes every named object). */
static int striped_fill(const ostio__ctr_params *p, ostio__manifest *m)
{
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

const ostio__ctr_kind ostio__ctr_striped = {
  .name = "striped",
  .keys = "stripe_size, objects and object lines",
  .key = striped_key,
  .finish = striped_finish,
  .format = striped_format,
  .check_params = striped_check_params,
  .fill = striped_fill,
  .check = ostio__striped_check,
  .remove = ostio__striped_remove,
};
