/* Counting the objects and OSTs a rank's I/O touches (the Y-lib metric in
 * the statistics). */
#ifndef OSTIO_ENGINE_TOUCH_H
#define OSTIO_ENGINE_TOUCH_H

#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"

/* The first two fields of any array element that names a file range. */
typedef struct ostio__range {
  int64_t off, len;
} ostio__range;

/* Distinct objects (over all components) and distinct known OSTs of n
 * ranges; elements are stride bytes apart and start with an ostio__range.
 * -1 when out of memory. */
int ostio__count_objects(const ostio_layout *l, const ostio__range *r, size_t n, size_t stride,
                       int64_t *objects, int64_t *osts);

#endif
