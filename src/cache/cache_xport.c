/* How the cache reaches an owner's window: load/store and CPU atomics on a
 * shared-memory window when every rank of the file is on one node, MPI
 * one-sided communication otherwise. Each call here is complete at the
 * owner when it returns. See docs/cache.md, "Two transports". */

#include "cache/cache_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/error.h"
#include "core/fault.h"

/* 1 when every rank of comm shares this node's memory (agreed). */
static int one_node(MPI_Comm comm, int nprocs)
{
  MPI_Comm node;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return 0;
  int n = 0, all = 0;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  int mine = n == nprocs;
  if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
  return all;
}

/* OSTIO_CACHE_TRANSPORT=rma forces MPI one-sided communication on one node
 * (tests use it to run the multi-node path); anything else: automatic. */
static int want_shm(MPI_Comm comm, int nprocs)
{
  const char *t = getenv("OSTIO_CACHE_TRANSPORT");
  int force_rma = t && !strcmp(t, "rma");
  return one_node(comm, nprocs) && !force_rma;
}

/* ---- shared memory: one POSIX shared-memory object per open ------------------------------ */

/* Why not MPI_Win_allocate_shared: MPICH 4.0 (ch4) spends ~30 ms in every
 * such call probing address ranges with one msync per page for a
 * symmetric mapping (perf: 53 % of an open-close of a file with the
 * cache), which made the cache's open cost more than a small file's whole
 * write phase. A named object, mapped by every rank and unlinked as soon
 * as all have it, costs a few system calls.
 * Its pages are reserved at open, each rank its own window's range
 * (posix_fallocate, in parallel): a tmpfs page that cannot be backed at
 * its first touch is a SIGBUS, which would kill the application in the
 * middle of a write (two files open at once, or another job filling
 * /dev/shm, pass any check of free space made without reserving). A
 * shortage is then OSTIO_ENOMEM at open, agreed, with the remedy. The
 * cost is the pages' zeroing, moved from their first touch to the open
 * (docs/cache.md, "Two transports"). */

#define SHM_SHORT "lower ostio_cache_size or free /dev/shm (docs/cache.md, \"Two transports\")"

/* OSTIO_FAULT=shm:RANK:NTH:WHAT: the errno to fake for this process's
 * NTH reservation, or 0. A bad OSTIO_FAULT was refused by ostio_open. */
static int shm_fault(int rank)
{
  static int64_t count;
  ostio__fault f;
  int64_t nth = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
  if (ostio__fault_parse(getenv("OSTIO_FAULT"), &f) < 0 || !f.active || !f.on_shm) return 0;
  return f.nth == nth && (f.rank < 0 || f.rank == rank) ? f.err : 0;
}

/* Reserves [off, off + n) of the object: 0 or OSTIO_ENOMEM with the remedy. */
static int reserve(int fd, int rank, int64_t off, int64_t n)
{
  int injected = shm_fault(rank);
  if (n <= 0 && !injected) return 0;
  int e = injected ? injected : posix_fallocate(fd, (off_t)off, (off_t)n);
  if (e == 0) return 0;
  return ostio__fail(OSTIO_ENOMEM, "cache: reserving rank %d's %lld bytes of shared memory "
                     "for the cache failed: %s%s; " SHM_SHORT, rank, (long long)n, strerror(e),
                     injected ? ", injected by OSTIO_FAULT" : "");
}

/* Rank 0: sizes the object (sparse), refusing at once when its file system
 * has fewer free bytes than that. 0 or OSTIO_ENOMEM with the remedy. */
static int size_object(int fd, int64_t bytes)
{
  struct statvfs v;
  if (fstatvfs(fd, &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < (uint64_t)bytes)
    return ostio__fail(OSTIO_ENOMEM, "cache: %lld bytes of shared memory for the cache, but "
                       "/dev/shm has %llu free; " SHM_SHORT, (long long)bytes,
                       (unsigned long long)v.f_bavail * v.f_frsize);
  if (ftruncate(fd, (off_t)bytes) == 0) return 0;
  return ostio__fail(OSTIO_ENOMEM, "cache: sizing %lld bytes of shared memory for the cache "
                     "failed: %s; " SHM_SHORT, (long long)bytes, strerror(errno));
}

static int shm_map(ostio__cache *c, int64_t bytes)
{
  int P = c->nprocs;
  int64_t pg = (int64_t)sysconf(_SC_PAGESIZE), mine = (bytes + pg - 1) / pg * pg;
  int64_t *at = malloc((size_t)(P + 1) * sizeof *at);
  c->peer = calloc((size_t)P, sizeof *c->peer);
  int rc = at && c->peer ? 0 : ostio__fail(OSTIO_ENOMEM, "cache: out of memory");
  if ((rc = ostio__agree(c->comm, rc)) < 0) goto out;
  if (MPI_Allgather(&mine, 1, MPI_INT64_T, at + 1, 1, MPI_INT64_T, c->comm) != MPI_SUCCESS) {
    rc = ostio__agree(c->comm, ostio__fail(OSTIO_EMPI, "cache: MPI_Allgather failed"));
    goto out;
  }
  at[0] = 0;
  for (int r = 0; r < P; r++) at[r + 1] += at[r]; /* at[r]: rank r's start */
  int64_t total = at[P] > 0 ? at[P] : pg;
  /* Rank 0 makes the object under a name no other open uses. */
  static unsigned serial;
  char name[96] = "", made[96] = "";
  int fd = -1;
  if (c->rank == 0) {
    for (int tries = 0; fd < 0 && tries < 16; tries++) {
      snprintf(name, sizeof name, "/ostio-cache-%ld-%u-%ld", (long)getpid(),
               __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED), (long)(MPI_Wtime() * 1e6));
      fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd >= 0) memcpy(made, name, sizeof made);
    if (fd < 0)
      rc = ostio__fail(errno == ENOSPC || errno == ENOMEM ? OSTIO_ENOMEM : OSTIO_EIO,
                       "cache: shm_open failed (%s); the cache needs POSIX shared memory "
                       "(/dev/shm) on one node; " SHM_SHORT, strerror(errno));
    else
      rc = size_object(fd, total);
    if (rc < 0) name[0] = '\0';
  }
  if (MPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, c->comm) != MPI_SUCCESS && rc == 0)
    rc = ostio__fail(OSTIO_EMPI, "cache: MPI_Bcast failed");
  /* No name: rank 0 failed, and its code and detail are what all report. */
  int go = rc == 0 && name[0];
  if (go && c->rank != 0 && (fd = shm_open(name, O_RDWR, 0)) < 0)
    rc = ostio__fail(OSTIO_EIO, "cache: shm_open of %s failed (%s)", name, strerror(errno));
  if (go && rc == 0) rc = reserve(fd, c->rank, at[c->rank], at[c->rank + 1] - at[c->rank]);
  void *p = MAP_FAILED;
  if (go && rc == 0 &&
      (p = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
    rc = ostio__fail(OSTIO_ENOMEM, "cache: mapping %lld bytes of shared memory failed (%s)",
                     (long long)total, strerror(errno));
  if (fd >= 0) close(fd);
  rc = ostio__agree(c->comm, rc);
  /* Every rank has it mapped (or gave up): the name can go. */
  if (made[0]) shm_unlink(made);
  if (rc < 0) {
    if (p != MAP_FAILED) munmap(p, (size_t)total);
    goto out;
  }
  c->map = p;
  c->map_bytes = total;
  for (int r = 0; r < P; r++) c->peer[r] = at[r + 1] > at[r] ? (unsigned char *)p + at[r] : NULL;
  c->base = c->peer[c->rank];
out:
  free(at);
  return rc;
}

void ostio__cache_xwin_free(ostio__cache *c)
{
  if (c->map) munmap(c->map, (size_t)c->map_bytes);
  c->map = NULL;
  if (c->win != MPI_WIN_NULL) {
    if (c->epoch) MPI_Win_unlock_all(c->win);
    MPI_Win_free(&c->win);
  }
  c->epoch = 0;
}

void ostio__cache_xsync(ostio__cache *c)
{
  if (c->shm)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else
    MPI_Win_sync(c->win);
}

/* Collective, agreed. */
int ostio__cache_xwin_create(ostio__cache *c, int64_t bytes)
{
  c->shm = want_shm(c->comm, c->nprocs);
  if (c->shm) return shm_map(c, bytes);
  int rc = MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, c->comm, &c->base, &c->win) ==
                   MPI_SUCCESS
               ? 0 : ostio__fail(OSTIO_ENOMEM, "cache: allocating a window of %lld bytes "
                                 "failed; lower ostio_cache_size", (long long)bytes);
  if (rc < 0) c->win = MPI_WIN_NULL;
  else MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
  if ((rc = ostio__agree(c->comm, rc)) < 0) return rc;
  /* Nobody reaches a window before its owner has initialised it (the
   * caller's barrier); the epoch lasts until close. */
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, c->win) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "cache: MPI_Win_lock_all failed");
  else
    c->epoch = 1;
  return ostio__agree(c->comm, rc);
}

static int rma_fail(const char *what, int owner)
{
  return ostio__fail(OSTIO_EMPI, "cache: %s at rank %d failed (MPI one-sided communication; "
                     "see docs/cache.md, \"Two transports\")", what, owner);
}

static int rma_done(const ostio__cache *c, int rc, const char *what, int owner)
{
  if (rc != MPI_SUCCESS || MPI_Win_flush(owner, c->win) != MPI_SUCCESS)
    return rma_fail(what, owner);
  return 0;
}

int ostio__cache_xget(ostio__cache *c, int owner, int64_t disp, void *buf, int64_t n,
                      const char *what)
{
  if (c->shm) {
    memcpy(buf, c->peer[owner] + disp, (size_t)n);
    return 0;
  }
  return rma_done(c, MPI_Get(buf, (int)n, MPI_BYTE, owner, (MPI_Aint)disp, (int)n, MPI_BYTE,
                             c->win), what, owner);
}

int ostio__cache_xput(ostio__cache *c, int owner, int64_t disp, const void *buf, int64_t n,
                      const char *what)
{
  int rc = ostio__cache_xput_later(c, owner, disp, buf, n, what);
  return rc < 0 ? rc : ostio__cache_xflush(c, owner, what);
}

/* Atomic add (add = 0: an atomic read), *old the value before. Acquire and
 * release ordering on shared memory: the lock words order the bytes. */
int ostio__cache_xfao(ostio__cache *c, int owner, int64_t disp, int64_t add, int64_t *old,
                      const char *what)
{
  if (c->shm) {
    int64_t *w = (int64_t *)(void *)(c->peer[owner] + disp);
    *old = add ? __atomic_fetch_add(w, add, __ATOMIC_ACQ_REL) : __atomic_load_n(w, __ATOMIC_ACQUIRE);
    return 0;
  }
  return rma_done(c, MPI_Fetch_and_op(add ? &add : NULL, old, MPI_INT64_T, owner,
                                      (MPI_Aint)disp, add ? MPI_SUM : MPI_NO_OP, c->win),
                  what, owner);
}

int ostio__cache_xput_later(ostio__cache *c, int owner, int64_t disp, const void *buf,
                            int64_t n, const char *what)
{
  if (c->shm) {
    memcpy(c->peer[owner] + disp, buf, (size_t)n);
    return 0;
  }
  if (MPI_Put(buf, (int)n, MPI_BYTE, owner, (MPI_Aint)disp, (int)n, MPI_BYTE, c->win) !=
      MPI_SUCCESS)
    return rma_fail(what, owner);
  return 0;
}

int ostio__cache_xflush(ostio__cache *c, int owner, const char *what)
{
  if (c->shm) return 0;
  return MPI_Win_flush(owner, c->win) == MPI_SUCCESS ? 0 : rma_fail(what, owner);
}
