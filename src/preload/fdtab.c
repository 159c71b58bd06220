/* The fd table of the preload: fd -> open file description (shared by
 * dup'ed fds, like the kernel's struct file). Lookups of "is this fd ours"
 * take no lock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preload/preload.h"

ostio__pl_desc *volatile *ostio__pl_fdtab_slot;
int ostio__pl_fdtab_cap;
static pthread_mutex_t tab_mu = PTHREAD_MUTEX_INITIALIZER;

int ostio__pl_fdtab_init(int cap)
{
  if (ostio__pl_fdtab_slot) return 0;
  if (cap < 64) cap = 64;
  ostio__pl_desc *volatile *s = calloc((size_t)cap, sizeof *s);
  if (!s) return -1;
  ostio__pl_fdtab_slot = s;
  __atomic_store_n(&ostio__pl_fdtab_cap, cap, __ATOMIC_RELEASE);
  return 0;
}

void ostio__pl_fdtab_fini(void)
{
  ostio__pl_fdtab_cap = 0;
  free((void *)ostio__pl_fdtab_slot);
  ostio__pl_fdtab_slot = NULL;
}

void ostio__pl_fdtab_lock(void) { pthread_mutex_lock(&tab_mu); }
void ostio__pl_fdtab_unlock(void) { pthread_mutex_unlock(&tab_mu); }

ostio__pl_desc *ostio__pl_desc_new(void *obj, int flags)
{
  ostio__pl_desc *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->flags = flags;
  d->obj = obj;
  pthread_mutex_init(&d->mu, NULL);
  return d;
}

int ostio__pl_fdtab_set(int fd, ostio__pl_desc *d)
{
  int rc = -1;
  pthread_mutex_lock(&tab_mu);
  if (fd >= 0 && fd < ostio__pl_fdtab_cap && !ostio__pl_fdtab_slot[fd]) {
    d->refs++;
    __atomic_store_n(&ostio__pl_fdtab_slot[fd], d, __ATOMIC_RELEASE);
    rc = 0;
  }
  pthread_mutex_unlock(&tab_mu);
  return rc;
}

ostio__pl_desc *ostio__pl_fdtab_get(int fd)
{
  ostio__pl_desc *d = NULL;
  if (fd < 0 || fd >= ostio__pl_fdtab_cap) return NULL;
  pthread_mutex_lock(&tab_mu);
  d = ostio__pl_fdtab_slot[fd];
  if (d) d->refs++;
  pthread_mutex_unlock(&tab_mu);
  return d;
}

void *ostio__pl_desc_put(ostio__pl_desc *d)
{
  pthread_mutex_lock(&tab_mu);
  int last = --d->refs == 0;
  pthread_mutex_unlock(&tab_mu);
  if (!last) return NULL;
  void *obj = d->obj;
  pthread_mutex_destroy(&d->mu);
  free(d);
  return obj;
}

void *ostio__pl_fdtab_clear(int fd, int *was_ours)
{
  ostio__pl_desc *d = NULL;
  *was_ours = 0;
  if (fd < 0 || fd >= ostio__pl_fdtab_cap) return NULL;
  pthread_mutex_lock(&tab_mu);
  d = ostio__pl_fdtab_slot[fd];
  __atomic_store_n(&ostio__pl_fdtab_slot[fd], NULL, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&tab_mu);
  if (!d) return NULL;
  *was_ours = 1;
  return ostio__pl_desc_put(d);
}

void ostio__pl_fdtab_mark_shared(void)
{
  for (int fd = 0; fd < ostio__pl_fdtab_cap; fd++)
    if (ostio__pl_fdtab_slot[fd]) ostio__pl_fdtab_slot[fd]->shared = 1;
}
