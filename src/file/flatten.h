/* Flatten a container (or any file ostio opens) into a new plain file, in
 * parallel over comm. Used by `ostio container flatten` and the tests. */
#ifndef OSTIO_CONTAINER_FLATTEN_H
#define OSTIO_CONTAINER_FLATTEN_H

#include <stdint.h>
#include <mpi.h>

#include "ostio.h"

#define OSTIO__FLATTEN_CHUNK (INT64_C(64) << 20) /* bytes per round over all ranks */

/* Called on rank 0 after each round: data bytes done so far of total (the
 * bytes of the source's data extents; holes cost nothing and are not counted). */
typedef void (*ostio__flatten_progress)(int64_t done, int64_t total, void *arg);

/* Collective over comm. Copies src into dst, which must not exist (created
 * with MPI_MODE_EXCL and dst_info's layout hints, always a plain file).
 * src must be a container or a regular file and dst must not exist, checked
 * with stat/lstat before anything is opened (a FIFO would block): else
 * OSTIO_EINVAL / OSTIO_EEXIST. Only the source's data extents are read, as
 * its kind lists them (the extents hook, src/file/kind.h: striped:
 * SEEK_DATA/SEEK_HOLE of each object; log: the map's segments that are not
 * zeros; plain: SEEK_DATA/SEEK_HOLE; a kind without it: all of [0, size)),
 * so the cost is proportional to
 * the data, not to the size; 64 KiB blocks of zeros are not written either
 * (holes stay holes); dst gets src's size by ftruncate. chunk <= 0 means
 * OSTIO__FLATTEN_CHUNK (bytes per round over all ranks). Same code on every
 * rank. */
int ostio__flatten(MPI_Comm comm, const char *src, const char *dst, MPI_Info dst_info,
                   int64_t chunk, ostio__flatten_progress progress, void *arg);

#endif
