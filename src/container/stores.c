/* The process-ops registry: one line per kind (store.h). A kind is served
 * by libostio-preload.so once its folder has a store file (an
 * ostio__store_ops filled with designated initializers) and its line is
 * here; the name is the manifest's kind name, as in src/file/kind.c. The
 * manifest parser knows the kinds through this table too (each store's
 * .ctr), so that manifest.c stays kind-neutral and below the kinds. */
#include "container/store.h"

#include <string.h>

#include "container/container.h"
#include "core/error.h"

static const ostio__store_ops *const stores[] = {
  &ostio__store_striped,
  &ostio__store_log,
};

/* What a new container gets when the hint names no store that creates
 * (the default hint is "plain", which the preload leaves to libc): the log
 * kind, made for many processes writing one file. */
static const ostio__store_ops *const default_store = &ostio__store_log;

/* What a new container gets when its creator names no kind
 * (ostio__ctr_create with p->kind NULL): striped, the first kind. */
static const ostio__store_ops *const default_ctr = &ostio__store_striped;

const ostio__store_ops *ostio__store_at(size_t i)
{
  return i < sizeof stores / sizeof stores[0] ? stores[i] : NULL;
}

const ostio__store_ops *ostio__store_find(const char *name)
{
  const ostio__store_ops *s;
  for (size_t i = 0; name && (s = ostio__store_at(i)); i++)
    if (strcmp(s->name, name) == 0 && s->version == OSTIO__STORE_VERSION) return s;
  return NULL;
}

/* The manifest parser's kinds: every store's, in table order. */
static const ostio__ctr_kind *ctr_at(size_t i)
{
  const ostio__store_ops *s = ostio__store_at(i);
  return s ? s->ctr : NULL;
}

int ostio__manifest_parse(const char *buf, size_t len, const char *what, ostio__manifest *m)
{
  return ostio__manifest_parse_with(buf, len, what, ctr_at, m);
}

const ostio__ctr_kind *ostio__ctr_kind_default(void) { return default_ctr->ctr; }

int ostio__store_of_path(const char *path, const ostio__store_ops **ops)
{
  const char *name = NULL;
  int rc = ostio__ctr_kind_of(path, &name);
  *ops = NULL;
  if (rc < 0) return rc;
  if (!(*ops = ostio__store_find(name)))
    return ostio__fail(OSTIO_ENOTSUP, "%s: a container of kind \"%s\", which has no "
                       "process ops (src/container/store.h)", path, name);
  return 0;
}

const ostio__store_ops *ostio__store_for_create(const char *hint_name)
{
  const ostio__store_ops *s = ostio__store_find(hint_name);
  return s && s->create ? s : default_store;
}
