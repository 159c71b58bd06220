/* The container source: a path that is a container directory (src/container)
 * has the container's own layout, RAID0 over its object files, whatever the
 * file system says about the directory. Tried first, so `ostio getstripe`,
 * `ostio map` and ostio_layout_query see containers; creation is not done
 * here (ostio_open and `ostio container create` make containers). */
#include "container/container.h"
#include "core/error.h"
#include "container/layout_sources.h"

static int query(const char *path, const ostio__hints *h, ostio_layout **out)
{
  ostio__ctr *c = NULL;
  (void)h;
  if (!ostio__ctr_is_container(path)) return OSTIO_ENOLAYOUT;
  int rc = ostio__ctr_open(path, 0, &c);
  if (rc == 0) rc = ostio__ctr_layout(c, out);
  int rc2 = ostio__ctr_close(&c, 0);
  return rc < 0 ? rc : rc2;
}

const ostio__layout_source ostio__source_container = {
  .version = OSTIO__LAYOUT_SOURCE_VERSION,
  .name = "container",
  .query = query,
};
