/* See bufcache.h. */
#include "engine/bufcache.h"

#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *cached;
static size_t cached_size;
static int hooked; /* the MPI_Finalize hook is installed */

static void drop(void)
{
  pthread_mutex_lock(&lock);
  free(cached);
  cached = NULL;
  cached_size = 0;
  hooked = 0;
  pthread_mutex_unlock(&lock);
}

static int on_finalize(MPI_Comm comm, int keyval, void *attr, void *extra)
{
  (void)comm, (void)keyval, (void)attr, (void)extra;
  drop();
  return MPI_SUCCESS;
}

/* Called with lock held. Without the hook nothing is cached (the block
 * would outlive MPI and show as a leak), so failure just disables caching. */
static int hook(void)
{
  if (hooked) return 1;
  int finalized = 1, key;
  MPI_Finalized(&finalized);
  if (finalized) return 0;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &key, NULL) != MPI_SUCCESS)
    return 0;
  if (MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) != MPI_SUCCESS) {
    MPI_Comm_free_keyval(&key);
    return 0;
  }
  MPI_Comm_free_keyval(&key); /* the attribute keeps it alive */
  hooked = 1;
  return 1;
}

void *ostio__bufcache_get(size_t size, size_t *got)
{
  void *p = NULL;
  if (size == 0) size = 1;
  pthread_mutex_lock(&lock);
  if (cached && cached_size >= size) {
    p = cached;
    *got = cached_size;
    cached = NULL;
    cached_size = 0;
  }
  pthread_mutex_unlock(&lock);
  if (p) return p;
  *got = size;
  return posix_memalign(&p, OSTIO__BUFCACHE_ALIGN, size) == 0 ? p : NULL;
}

void ostio__bufcache_put(void *block, size_t size)
{
  if (!block) return;
  pthread_mutex_lock(&lock);
  if (size <= OSTIO__BUFCACHE_MAX && (!cached || cached_size < size) && hook()) {
    void *old = cached;
    cached = block;
    cached_size = size;
    block = old;
  }
  pthread_mutex_unlock(&lock);
  free(block);
}
