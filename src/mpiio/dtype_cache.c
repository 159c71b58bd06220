/* The map cache. A derived type keeps its map in an MPI attribute: the
 * delete callback drops it when the type is freed, the copy callback shares
 * it with MPI_Type_dup. Named types cannot be freed and are few: a small
 * table for the process's life (setting attributes on predefined handles
 * is best avoided). The table and the keyval are guarded by one mutex so
 * threads that call MPI concurrently stay safe; the maps themselves are
 * immutable and reference-counted. */
#include "mpiio/dtype.h"

#include <pthread.h>

#include "core/error.h"

#define NAMED_MAX 128 /* MPI defines fewer predefined types than this */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int keyval = MPI_KEYVAL_INVALID;
static int64_t drops;
typedef struct {
  MPI_Datatype type;
  ostio__dtype_map *map;
} named_entry;
static named_entry named[NAMED_MAX];
static int nnamed;
/* The entry of named[] the last lookup found, read without the lock: an
 * entry is written once, before it is published here, and never changes
 * (the table keeps its reference for the process's life). A named handle is
 * never freed, and no derived type can share its handle value, so a hit
 * needs no MPI call: a small access of MPI_BYTE costs no envelope query and
 * no mutex. */
static named_entry *last_named;

int64_t ostio__dtype_cache_drops(void)
{
  return __atomic_load_n(&drops, __ATOMIC_RELAXED);
}

static int copy_fn(MPI_Datatype old, int kv, void *extra, void *in, void *out, int *flag)
{
  ostio__dtype_map_retain(in);
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype t, int kv, void *attr, void *extra)
{
  ostio__dtype_map_release(attr);
  __atomic_add_fetch(&drops, 1, __ATOMIC_RELAXED);
  return MPI_SUCCESS;
}

static int get_keyval(int *kv)
{
  int rc = OSTIO_OK;
  pthread_mutex_lock(&lock);
  if (keyval == MPI_KEYVAL_INVALID
      && MPI_Type_create_keyval(copy_fn, delete_fn, &keyval, NULL) != MPI_SUCCESS) {
    keyval = MPI_KEYVAL_INVALID;
    rc = ostio__fail(OSTIO_EMPI, "MPI_Type_create_keyval failed");
  }
  *kv = keyval;
  pthread_mutex_unlock(&lock);
  return rc;
}

static int flatten_named(MPI_Datatype type, ostio__dtype_map **out)
{
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nnamed; i++) {
    if (named[i].type == type) {
      *out = named[i].map;
      ostio__dtype_map_retain(*out);
      __atomic_store_n(&last_named, &named[i], __ATOMIC_RELEASE);
      pthread_mutex_unlock(&lock);
      return OSTIO_OK;
    }
  }
  pthread_mutex_unlock(&lock);
  int rc = ostio__dtype_decode(type, out);
  if (rc)
    return rc;
  pthread_mutex_lock(&lock);
  /* Another thread may have added it meanwhile: the table keeps one. */
  int found = 0;
  for (int i = 0; i < nnamed && !found; i++)
    found = named[i].type == type;
  if (!found && nnamed < NAMED_MAX) {
    ostio__dtype_map_retain(*out);
    named[nnamed].type = type;
    named[nnamed].map = *out;
    __atomic_store_n(&last_named, &named[nnamed++], __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return OSTIO_OK;
}

int ostio__dtype_flatten(MPI_Datatype type, ostio__dtype_map **out)
{
  int kv, flag = 0;
  void *attr = NULL;
  *out = NULL;
  if (type == MPI_DATATYPE_NULL)
    return ostio__fail(OSTIO_EINVAL, "datatype: MPI_DATATYPE_NULL");
  named_entry *hit = __atomic_load_n(&last_named, __ATOMIC_ACQUIRE);
  if (hit && hit->type == type) {
    *out = hit->map;
    ostio__dtype_map_retain(*out);
    return OSTIO_OK;
  }
  int kind = ostio__dtype_large_kind(type); /* large-count types too (MPI-4) */
  if (kind < 0)
    return ostio__fail(OSTIO_EMPI, "MPI_Type_get_envelope failed");
  if (kind == 0)
    return flatten_named(type, out);
  int rc = get_keyval(&kv);
  if (rc)
    return rc;
  if (MPI_Type_get_attr(type, kv, &attr, &flag) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Type_get_attr failed");
  if (flag) {
    *out = attr;
    ostio__dtype_map_retain(*out);
    return OSTIO_OK;
  }
  rc = ostio__dtype_decode(type, out);
  if (rc)
    return rc;
  /* The attribute owns one reference; the caller the other. */
  ostio__dtype_map_retain(*out);
  if (MPI_Type_set_attr(type, kv, *out) != MPI_SUCCESS) {
    ostio__dtype_map_release(*out); /* uncached, still correct */
  }
  return OSTIO_OK;
}
