/* The default source: Lustre's own defaults (1 MiB stripes, one object,
 * OST chosen by the file system). Always speaks. */
#include <stdio.h>

#include "layout/source.h"

static int query(const char *path, const ostio__hints *h, ostio_layout **out)
{
  (void)path;
  (void)h;
  int rc = ostio__layout_simple(OSTIO__DEFAULT_STRIPE_SIZE, OSTIO__DEFAULT_STRIPE_COUNT, -1, out);
  if (rc == 0) snprintf((*out)->source, sizeof (*out)->source, "default");
  return rc;
}

const ostio__layout_source ostio__source_default = {
  .version = OSTIO__LAYOUT_SOURCE_VERSION,
  .name = "default",
  .query = query,
};
