/* Whole-buffer system I/O on a descriptor: the "write every byte" and "read
 * until full or end of file" loops, written once. Short counts and EINTR
 * are retried. MPI-free (libostio-preload.so uses it). Data-path I/O goes
 * through src/io instead (statistics, faults, O_DIRECT); these are for
 * metadata: manifests, size records, logs, reports. */
#ifndef OSTIO_CORE_FDIO_H
#define OSTIO_CORE_FDIO_H

#include <stddef.h>
#include <stdint.h>

/* off for ostio__write_part: write at the descriptor's file offset. */
#define OSTIO__FD_CUR ((int64_t)-1)

/* Writes the len bytes at buf to fd at off (pwrite), or at the file offset
 * when off is OSTIO__FD_CUR (write). 0 when all were written; else the
 * errno value of the failure, also left in errno (EIO when the system
 * wrote nothing without an error). *done (may be NULL) receives the bytes
 * written, which is len on success. */
int ostio__write_part(int fd, const void *buf, size_t len, int64_t off, size_t *done);
/* The same, all or an errno value, at the file offset / at off. */
int ostio__write_full(int fd, const void *buf, size_t len);
int ostio__pwrite_full(int fd, const void *buf, size_t len, int64_t off);

/* Reads up to len bytes at off into buf, stopping early only at the end
 * of the file. 0 and the count in *got; or the errno value of the failure
 * (also left in errno), *got holding what was read before it. */
int ostio__pread_full(int fd, void *buf, size_t len, int64_t off, size_t *got);

#endif
