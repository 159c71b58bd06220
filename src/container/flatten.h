/* Flatten a container (or any file ostio opens) into a new plain file, in
 * parallel over comm. Used by `ostio container flatten` and the tests. */
#ifndef OSTIO_CONTAINER_FLATTEN_H
#define OSTIO_CONTAINER_FLATTEN_H

#include <stdint.h>
#include <mpi.h>

#include "ostio.h"

#define OSTIO__FLATTEN_CHUNK (INT64_C(64) << 20) /* bytes per round over all ranks */

/* Called on rank 0 after each chunk: bytes done so far of total. */
typedef void (*ostio__flatten_progress)(int64_t done, int64_t total, void *arg);

/* Collective over comm. Copies src into dst, which must not exist (created
 * with MPI_MODE_EXCL and dst_info's layout hints, always a plain file).
 * chunk <= 0 means OSTIO__FLATTEN_CHUNK. Stripes of zeros are not written
 * (holes stay holes); dst gets src's size. Same code on every rank. */
int ostio__flatten(MPI_Comm comm, const char *src, const char *dst, MPI_Info dst_info,
                   int64_t chunk, ostio__flatten_progress progress, void *arg);

#endif
