/* The hints source: striping_factor, striping_unit and start_iodevice, as
 * ROMIO reads them. Speaks only when at least one striping hint was given;
 * the parts not given take the defaults. striping_factor -1 ("all OSTs") is
 * only meaningful to Lustre at creation; here it counts as not given. */
#include <stdio.h>

#include "core/error.h"
#include "layout/source.h"

int ostio__hints_give_striping(const ostio__hints *h)
{
  return h && (h->striping_factor > 0 || h->striping_unit > 0);
}

static int query(const char *path, const ostio__hints *h, ostio_layout **out)
{
  (void)path;
  if (!ostio__hints_give_striping(h)) return OSTIO_ENOLAYOUT;
  int have_factor = h->striping_factor > 0;
  int have_unit = h->striping_unit > 0;
  int rc = ostio__layout_simple(have_unit ? h->striping_unit : OSTIO__DEFAULT_STRIPE_SIZE,
                                have_factor ? (int32_t)h->striping_factor
                                            : OSTIO__DEFAULT_STRIPE_COUNT,
                                h->start_iodevice >= 0 ? (int32_t)h->start_iodevice : -1, out);
  if (rc == 0) snprintf((*out)->source, sizeof (*out)->source, "hints");
  return rc;
}

const ostio__layout_source ostio__source_hints = {
  .version = OSTIO__LAYOUT_SOURCE_VERSION,
  .name = "hints",
  .query = query,
};
