/* The MPI side of a log container's clock (issue 28): a collective event's
 * entry agrees on its outcome and on the seq the handle's ranks write with
 * from now on, in one Allreduce. The process side (what each process's
 * handles issued or saw) is log_clock.c. docs/containers.md, "The ordering
 * rule". */
#include <stdint.h>

#include "container/log/log_file.h"
#include "core/agree.h"
#include "core/error.h"

int ostio__log_advance(MPI_Comm comm, int rank, ostio__logclock *clk, const void *who,
                       int writable, uint64_t *cur, int rc)
{
  uint64_t mine = *cur, got[2];
  if (clk && ostio__log_clock_max(clk) > mine) mine = ostio__log_clock_max(clk);
  /* The maximum of (-code, -rank) is the lowest code and its lowest rank,
   * as ostio__agree's MINLOC. */
  uint64_t in[2] = {(uint64_t)(uint32_t)(rc < 0 ? -rc : 0) << 32 | (uint32_t)(INT32_MAX - rank),
                    mine};
  if (MPI_Allreduce(in, got, 2, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Allreduce to agree on an outcome failed");
  int worst = -(int)(got[0] >> 32), worst_rank = INT32_MAX - (int)(got[0] & INT32_MAX);
  if ((rc = ostio__agree_known(comm, rc, worst, worst_rank)) < 0) return rc;
  if (!writable) { /* issues no seq: a block's end cannot stop a reader */
    *cur = got[1];
    return 0;
  }
  /* The same on every rank: succeeds or fails alike. */
  if ((rc = ostio__log_clock_next(got[1], cur)) < 0) return rc;
  if (clk) ostio__log_clock_took(clk, who, *cur);
  return 0;
}
