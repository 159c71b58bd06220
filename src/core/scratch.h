/* A grow-only scratch block: one array that a handle reuses from call to
 * call instead of a malloc and a free per call. glibc serves blocks above
 * its mmap threshold (128 KiB until a large free raises it) with a fresh
 * mmap and unmaps them on free, and returns heap memory above its trim
 * threshold to the kernel, so a per-call array of a few MiB is faulted in
 * and cleared again call after call. A scratch block grows geometrically,
 * never shrinks, and is freed by its owner's close. Blocks of a page or
 * more start on a page boundary, so one can hold file data too (malloc
 * puts a block it maps 16 bytes past a page boundary, where the kernel's
 * copies into it ran ~1.7x slower: docs/benchmarks.md). Not thread-safe:
 * one block belongs to one handle, whose calls are not concurrent. */
#ifndef OSTIO_CORE_SCRATCH_H
#define OSTIO_CORE_SCRATCH_H

#include <stddef.h>

#define OSTIO__SCRATCH_PAGE 4096

typedef struct ostio__scratch {
  void *p;        /* posix_memalign'ed, NULL before the first get */
  size_t cap;     /* bytes at p                                    */
} ostio__scratch;

/* Room for n elements of size bytes each (at least 1 byte, so never NULL
 * on success, also for n == 0). The contents are undefined: a block that
 * grows is replaced, not copied. It grows to at least twice its size.
 * NULL when n * size overflows or memory is short; no detail is set (the
 * caller names what it wanted) and the block is then empty (freed), so a
 * failed get never keeps memory the caller cannot use. */
void *ostio__scratch_get(ostio__scratch *s, size_t n, size_t size);

/* As ostio__scratch_get, but the first `keep` bytes are kept (copied when
 * the block is replaced); for arrays filled before their final size is
 * known. On failure the block is freed, as for ostio__scratch_get. */
void *ostio__scratch_grow(ostio__scratch *s, size_t n, size_t size, size_t keep);

/* Frees the block; s is empty afterwards (a second call is harmless). */
void ostio__scratch_free(ostio__scratch *s);

#endif
