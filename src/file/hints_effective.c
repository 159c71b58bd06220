/* ostio_hints_effective(): the hints a file would get, as an MPI_Info. It
 * lives in the file layer, not in src/hints, because a strategy name is
 * checked against the engine's registry, which sits above the hints. */
#include "core/error.h"
#include "engine/strategy.h"
#include "hints/hints.h"
#include "ostio.h"

int ostio_hints_effective(const char *path, MPI_Info info, MPI_Info *effective)
{
  if (!effective) return ostio__fail(OSTIO_EINVAL, "ostio_hints_effective: null output");
  *effective = MPI_INFO_NULL;
  if (!path) return ostio__fail(OSTIO_EINVAL, "ostio_hints_effective: null path");
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (!inited || finalized)
    return ostio__fail(OSTIO_EMPI, "ostio_hints_effective: MPI is not initialized");
  ostio__hints h;
  int rc = ostio__hints_resolve(path, info, &h);
  if (rc == 0) rc = ostio__strategy_open(&h, NULL); /* the name is one of the registry's */
  if (rc == 0) rc = ostio__hints_to_info(&h, effective);
  return rc;
}
