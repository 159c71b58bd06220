/* The library's one runtime struct: process-wide counters that tests and the
 * statistics read. Everything else is per handle, except this other
 * process-wide mutable state, each piece guarded where it lives:
 *   - core/error.c: the per-thread error detail (_Thread_local);
 *   - engine/bufcache.c: one cached collective buffer (mutex; freed by an
 *     MPI_Finalize hook);
 *   - stats/stats_report.c: the OSTIO_STATS=json job document being grown
 *     and the warn-once flags (mutex);
 *   - container/sizerec.c: a counter for unique temporary names (atomic);
 *   - container/log/logrec.c: the CRC table, filled once (pthread_once);
 *   - container/log/logmap.c: qsort's comparison context (_Thread_local).
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
