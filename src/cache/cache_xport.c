/* How the cache reaches an owner's window: load/store and CPU atomics on a
 * shared-memory window when every rank of the file is on one node, MPI
 * one-sided communication otherwise. Each call here is complete at the
 * owner when it returns. See docs/cache.md, "Two transports". */
#include "cache/cache_impl.h"

#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/error.h"

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

int ostio__cache_xwin_create(ostio__cache *c, int64_t bytes)
{
  c->shm = want_shm(c->comm, c->nprocs);
  int rc;
  if (c->shm) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, c->comm, &c->base, &c->win);
    MPI_Info_free(&info);
  } else {
    rc = MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, c->comm, &c->base, &c->win);
  }
  if (rc != MPI_SUCCESS) {
    c->win = MPI_WIN_NULL;
    return ostio__fail(OSTIO_ENOMEM, "cache: allocating a window of %lld bytes failed; lower "
                       "ostio_cache_size", (long long)bytes);
  }
  MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
  if (!c->shm) return 0;
  c->peer = calloc((size_t)c->nprocs, sizeof *c->peer);
  if (!c->peer) return ostio__fail(OSTIO_ENOMEM, "cache: out of memory");
  for (int r = 0; r < c->nprocs; r++) {
    MPI_Aint size;
    int unit;
    void *p = NULL;
    if (MPI_Win_shared_query(c->win, r, &size, &unit, &p) != MPI_SUCCESS)
      return ostio__fail(OSTIO_EMPI, "cache: MPI_Win_shared_query for rank %d failed", r);
    c->peer[r] = size > 0 ? p : NULL;
  }
  return 0;
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
  if (c->shm) {
    memcpy(c->peer[owner] + disp, buf, (size_t)n);
    return 0;
  }
  return rma_done(c, MPI_Put(buf, (int)n, MPI_BYTE, owner, (MPI_Aint)disp, (int)n, MPI_BYTE,
                             c->win), what, owner);
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
