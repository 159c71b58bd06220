/* OSTIO_FAULT: the fault-injection setting, parsed (fault.c). In core
 * because two modules inject: io (its system calls, io.c) and cache (its
 * shared memory's reservation, cache_xport.c). See docs/io.md. */
#ifndef OSTIO_CORE_FAULT_H
#define OSTIO_CORE_FAULT_H

#include <stdint.h>

/* ---- fault injection ----------------------------------------------------
 * OSTIO_FAULT=OP:RANK:NTH:WHAT
 *   OP    write | read | shm
 *   RANK  the rank (in the file's communicator) that fails, or * for all
 *   NTH   1-based index of the system call of OP on that rank, counted from
 *         ostio_open, that fails; only that one call fails. For shm: the
 *         NTH reservation of the cache's shared memory by that process
 *         (one per open with the cache on one node; src/cache/cache_xport.c)
 *   WHAT  an errno name (EIO, ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EPERM,
 *         ENOMEM): the call fails with it (shm takes only these);
 *         short: the call moves half of its bytes (the loop retries the
 *         rest, so data stays right);
 *         stuck: the call moves 0 bytes (reported as OSTIO_EIO, "no progress").
 */
typedef enum { OSTIO__FAULT_ERRNO = 0, OSTIO__FAULT_SHORT, OSTIO__FAULT_STUCK } ostio__fault_mode;

typedef struct ostio__fault {
  int active;           /* 0: no fault configured                          */
  int is_write;         /* 1: OP write, 0: read (or shm)                   */
  int on_shm;           /* 1: OP shm (the cache's shared memory, not io.c) */
  int rank;             /* -1 for *                                        */
  int64_t nth;          /* >= 1                                            */
  int mode;             /* ostio__fault_mode                               */
  int err;              /* errno value for OSTIO__FAULT_ERRNO              */
  char spec[128];       /* the value parsed, for details                   */
} ostio__fault;

/* Parses spec (NULL or "" gives an inactive fault, returns 0). Bad spec:
 * OSTIO_EINVAL with a detail naming the bad field and the syntax. */
int ostio__fault_parse(const char *spec, ostio__fault *f);
/* A RANK outside the communicator (nprocs ranks) would never fire: the test
 * that set it would pass without its fault. OSTIO_EINVAL naming the
 * variable, the value and the accepted ranks (0..nprocs-1 or *); the fault
 * is then cleared. ostio_open calls it and agrees on the outcome. */
int ostio__fault_check_ranks(ostio__fault *f, int nprocs);

#endif
