/* Internal error helpers: every failure path records a sentence for
 * ostio_last_error() and returns its negative code. */
#ifndef OSTIO_CORE_ERROR_H
#define OSTIO_CORE_ERROR_H

#include "ostio.h"

/* Records a printf-style detail for this thread and returns code. */
int ostio__fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records detail text verbatim (used to carry a detail across ranks). */
void ostio__set_detail(const char *text);
void ostio__clear_error(void);
/* Maps an errno value to the closest OSTIO_E* code. */
int ostio__from_errno(int e);

#endif
