/* The MPI side of the hints: reading an MPI_Info, resolving the effective
 * hints of a file, and the MPI_Info of ostio_hints_effective() (whose checks
 * are in src/file/hints_effective.c: they need the strategy registry). MPI-3
 * calls only. */
#include "hints/hints.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "ostio.h"

static int mpi_fail(int mrc, const char *call)
{
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mrc, msg, &len) != MPI_SUCCESS) {
    msg[0] = '\0';
    len = 0;
  }
  return ostio__fail(OSTIO_EMPI, "hints: %s failed: %.*s", call, len, msg);
}

/* Reads key number n of info into h. */
static int read_nth(ostio__hints *h, MPI_Info info, int n)
{
  char key[MPI_MAX_INFO_KEY + 1];
  int vlen = 0, flag = 0;
  int mrc = MPI_Info_get_nthkey(info, n, key);
  if (mrc != MPI_SUCCESS) return mpi_fail(mrc, "MPI_Info_get_nthkey");
  mrc = MPI_Info_get_valuelen(info, key, &vlen, &flag);
  if (mrc != MPI_SUCCESS) return mpi_fail(mrc, "MPI_Info_get_valuelen");
  if (!flag || vlen < 0) return 0; /* vanished: nothing to read */

  char *value = malloc((size_t)vlen + 1);
  if (!value) return ostio__fail(OSTIO_ENOMEM, "hints: out of memory reading hint %s", key);
  int rc = 0;
  mrc = MPI_Info_get(info, key, vlen, value, &flag);
  if (mrc != MPI_SUCCESS) {
    rc = mpi_fail(mrc, "MPI_Info_get");
  } else if (flag) {
    value[vlen] = '\0';
    rc = ostio__hints_set(h, key, value);
    if (rc > 0) rc = 0; /* not ours: ignored */
  }
  free(value);
  return rc;
}

int ostio__hints_from_info(ostio__hints *h, MPI_Info info)
{
  if (!h) return ostio__fail(OSTIO_EINVAL, "hints: null hints");
  if (info == MPI_INFO_NULL) return 0;
  int nkeys = 0;
  int mrc = MPI_Info_get_nkeys(info, &nkeys);
  if (mrc != MPI_SUCCESS) return mpi_fail(mrc, "MPI_Info_get_nkeys");
  /* A copy keeps h unchanged when one key is bad. */
  ostio__hints tmp = *h;
  int rc = 0;
  for (int n = 0; n < nkeys && rc == 0; n++) rc = read_nth(&tmp, info, n);
  if (rc == 0) *h = tmp;
  return rc;
}

int ostio__hints_resolve(const char *path, MPI_Info info, ostio__hints *h)
{
  if (!h) return ostio__fail(OSTIO_EINVAL, "hints: null output");
  ostio__hints tmp;
  ostio__hints_init(&tmp);
  int rc = ostio__hints_from_info(&tmp, info);
  if (rc == 0) rc = ostio__hints_apply_env(&tmp, path, getenv("OSTIO_HINTS"));
  ostio__hints_init(h);
  if (rc == 0) *h = tmp;
  return rc;
}

int ostio__hints_to_info(const ostio__hints *h, MPI_Info *effective)
{
  *effective = MPI_INFO_NULL;
  MPI_Info out = MPI_INFO_NULL;
  int rc = 0, mrc = MPI_Info_create(&out);
  if (mrc != MPI_SUCCESS) return mpi_fail(mrc, "MPI_Info_create");
  char value[MPI_MAX_INFO_VAL + 1];
  for (int i = 0; i < ostio__hints_count() && rc == 0; i++) {
    rc = ostio__hints_format(h, i, value, sizeof value);
    if (rc == 0) {
      mrc = MPI_Info_set(out, ostio__hints_key(i), value);
      if (mrc != MPI_SUCCESS) rc = mpi_fail(mrc, "MPI_Info_set");
    }
  }
  if (rc == 0)
    *effective = out;
  else
    MPI_Info_free(&out);
  return rc;
}
