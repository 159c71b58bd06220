/* What a new container gets when its creator did not say: K from the hint
 * ostio_objects, else striping_factor, else the stripe count of the
 * directory's default layout (the layout sources: Lustre, the emulated
 * record, hints, defaults); S from striping_unit, else the directory's stripe
 * size. The manifest records where each came from. */
#include <stdio.h>
#include <string.h>

#include "container/container.h"
#include "core/error.h"
#include "container/layout_sources.h"

int ostio__ctr_params_resolve(const char *path, const ostio__hints *h, ostio__ctr_params *p)
{
  ostio_layout *dflt = NULL;
  const char *kfrom = "ostio_objects", *sfrom = "striping_unit";
  char dir[4096];
  memset(p, 0, sizeof *p);
  ostio__parent_dir(path, dir, sizeof dir);
  int need_dir = !(h->ostio_objects > 0 || h->striping_factor > 0) || h->striping_unit <= 0;
  if (need_dir && ostio__layout_resolve(dir, h, &dflt) < 0) {
    ostio__clear_error(); /* no usable directory default: Lustre's own defaults */
    dflt = NULL;
  }
  const ostio__comp *c = dflt ? &dflt->comp[0] : NULL;
  if (h->ostio_objects > 0) p->nobjects = (int32_t)h->ostio_objects;
  else if (h->striping_factor > 0) p->nobjects = (int32_t)h->striping_factor, kfrom = "striping_factor";
  else p->nobjects = c ? c->stripe_count : OSTIO__DEFAULT_STRIPE_COUNT, kfrom = "the directory";
  if (h->striping_unit > 0) p->stripe_size = h->striping_unit;
  else p->stripe_size = c ? c->stripe_size : OSTIO__DEFAULT_STRIPE_SIZE, sfrom = "the directory";
  p->first_ost = h->start_iodevice >= 0 ? (int32_t)h->start_iodevice : -1;
  snprintf(p->requested, sizeof p->requested, "objects=%d (from %s) stripe_size=%lld (from %s) "
           "start_iodevice=%lld", (int)p->nobjects, kfrom, (long long)p->stripe_size, sfrom,
           (long long)h->start_iodevice);
  ostio__layout_destroy(dflt);
  return 0;
}

