/* A process-wide cache of one round-buffer block, so that a collective
 * call does not map and fault in fresh pages for its round buffers every
 * time (glibc serves blocks this large with mmap and unmaps them on free:
 * measured ~10 % of a 32 MiB strided write on tmpfs in page faults and page
 * clearing). The block is kept between calls and between files, and freed
 * at MPI_Finalize (an attribute on MPI_COMM_SELF). Thread-safe. */
#ifndef OSTIO_ENGINE_BUFCACHE_H
#define OSTIO_ENGINE_BUFCACHE_H

#include <stddef.h>

/* Blocks above this size are never kept. */
#define OSTIO__BUFCACHE_MAX ((size_t)256 << 20)
/* Blocks start on a page boundary. malloc gives a block it maps (above
 * glibc's mmap threshold, 128 KiB until a large free raises it) 16 bytes
 * past one, and the kernel's copies into such a round buffer (pread from
 * the page cache) and the copies out of it ran ~1.7x slower: measured on
 * 4 KiB strided reads, where a run's first block decided the speed of the
 * whole run (docs/benchmarks.md, "the order of -a"). */
#define OSTIO__BUFCACHE_ALIGN 4096

/* A block of at least size bytes, OSTIO__BUFCACHE_ALIGN-aligned (the
 * cached one when it is big enough, else a new one), or NULL; *got is its
 * real size. */
void *ostio__bufcache_get(size_t size, size_t *got);
/* Gives back a block from ostio__bufcache_get with its *got size: it
 * becomes the cached block when the cache is empty or held a smaller one
 * (and it is at most OSTIO__BUFCACHE_MAX), else it is freed. */
void ostio__bufcache_put(void *block, size_t size);

#endif
