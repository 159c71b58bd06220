/* The library's one runtime struct: process-wide counters that tests and the
 * statistics read. Everything else is per handle. The only other mutable
 * state is the per-thread error detail in core/error.c.
 * Thread-safety: the counters are C11 atomics; handles are not thread-safe
 * (one thread per handle at a time, like MPI_File). */
#ifndef OSTIO_CORE_RUNTIME_H
#define OSTIO_CORE_RUNTIME_H

#include <stdatomic.h>

typedef struct ostio__runtime {
  atomic_long layout_fs_queries;   /* times this process asked the FS for a layout */
} ostio__runtime;

extern ostio__runtime ostio__rt;

#endif
