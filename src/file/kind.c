/* The container-kind registry: one line per kind (kind.h). A kind is added
 * by writing its file (an ostio__kind_ops filled with designated
 * initializers) and adding its line here; the manifest names it. */
#include "file/kind.h"

#include <string.h>

#include "core/error.h"

static const ostio__kind_ops *const kinds[] = {
  &ostio__kind_plain,
  &ostio__kind_striped,
  &ostio__kind_log,
};

/* Test hook (ostio__kind_test_use); NULL outside tests. */
static const ostio__kind_ops *test_kind;

const ostio__kind_ops *ostio__kind_find(const char *name)
{
  if (test_kind) return test_kind;
  for (size_t i = 0; name && i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(kinds[i]->name, name) == 0 && kinds[i]->version == OSTIO__KIND_VERSION)
      return kinds[i];
  return NULL;
}

size_t ostio__kind_count(void) { return sizeof kinds / sizeof kinds[0]; }

const ostio__kind_ops *ostio__kind_at(size_t i)
{
  return i < ostio__kind_count() ? kinds[i] : NULL;
}

int ostio__kind_has(const ostio__kind_ops *k, ostio__kind_tool t)
{
  switch (t) {
  case OSTIO__TOOL_CHECK: return k->check != NULL;
  case OSTIO__TOOL_RECOVER: return k->recover != NULL;
  case OSTIO__TOOL_COMPACT: return k->compact != NULL;
  case OSTIO__TOOL_LS: return k->ls != NULL;
  case OSTIO__TOOL_STAT: return k->stat != NULL;
  case OSTIO__TOOL_MAP: return k->map != NULL;
  case OSTIO__TOOL_EXTENTS: return k->extents != NULL;
  case OSTIO__TOOL_MAKE: return k->make != NULL;
  case OSTIO__TOOL_STAGE_STATUS: return k->stage_status != NULL;
  case OSTIO__TOOL_STAGE_DRAIN: return k->stage_drain != NULL;
  }
  return 0;
}

int ostio__kind_of_path(const char *path, const ostio__kind_ops **kind)
{
  *kind = test_kind;
  if (test_kind) return 0;
  const char *name = "plain";
  if (ostio__ctr_is_container(path)) {
    int rc = ostio__ctr_kind_of(path, &name);
    if (rc < 0) return rc;
  }
  if (!(*kind = ostio__kind_find(name)))
    return ostio__fail(OSTIO_ENOTSUP, "%s: a container of kind \"%s\", which this library "
                       "does not know", path, name);
  return 0;
}

void ostio__kind_test_use(const ostio__kind_ops *k) { test_kind = k; }
