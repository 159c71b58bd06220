/* ostio_layout_query: rank 0 asks the file system once and broadcasts the
 * outcome (code, detail and the layout as its text record), so thousands of
 * ranks never storm the metadata server and every rank returns the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "container/layout_sources.h"

typedef struct {
  int32_t rc;
  int32_t textlen;
  int32_t inherited;
  char source[16];
  char detail[400];
} packet;

/* Runs on the root only: resolve hints and layout, encode the result. */
static void root_query(const char *path, MPI_Info info, packet *pk, char **text)
{
  ostio__hints h;
  ostio_layout *l = NULL;
  size_t len = 0;
  int rc = path ? 0 : ostio__fail(OSTIO_EINVAL, "ostio_layout_query: NULL path on the root");
  if (rc == 0) rc = ostio__hints_resolve(path, info, &h);
  if (rc == 0) rc = ostio__layout_resolve(path, &h, &l);
  if (rc == 0) rc = ostio__record_encode(l, text, &len);
  if (rc == 0 && len > INT32_MAX) rc = ostio__fail(OSTIO_ERANGE, "layout record too large");
  pk->rc = rc;
  if (rc == 0) {
    pk->textlen = (int32_t)len + 1;
    pk->inherited = l->inherited;
    snprintf(pk->source, sizeof pk->source, "%s", l->source);
  } else {
    snprintf(pk->detail, sizeof pk->detail, "%s", ostio_last_error());
  }
  ostio__layout_destroy(l);
}

/* The worst (lowest) code over comm; ranks that were fine get a detail
 * naming the failure elsewhere. */
static int agree(MPI_Comm comm, int rc)
{
  int worst = rc;
  if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Allreduce failed");
  if (worst < 0 && rc == 0)
    return ostio__fail(worst, "failed on another rank: %s", ostio_strerror(worst));
  return worst < 0 ? rc : 0;
}

int ostio_layout_query(MPI_Comm comm, const char *path, MPI_Info info, ostio_layout **layout)
{
  packet pk;
  char *text = NULL;
  int rank, rc;
  if (!layout) return ostio__fail(OSTIO_EINVAL, "ostio_layout_query: NULL output pointer");
  *layout = NULL;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "ostio_layout_query: invalid communicator");
  memset(&pk, 0, sizeof pk);
  if (rank == 0) root_query(path, info, &pk, &text);
  if (MPI_Bcast(&pk, (int)sizeof pk, MPI_BYTE, 0, comm) != MPI_SUCCESS) {
    rc = ostio__fail(OSTIO_EMPI, "ostio_layout_query: MPI_Bcast failed");
    goto done;
  }
  if (pk.rc < 0) {
    ostio__set_detail(pk.detail);
    rc = pk.rc;
    goto done;
  }
  /* Every rank needs a buffer before the second broadcast; agree first so
   * a rank that cannot allocate does not leave the others hanging. */
  rc = 0;
  if (rank != 0 && !(text = malloc((size_t)pk.textlen)))
    rc = ostio__fail(OSTIO_ENOMEM, "ostio_layout_query: out of memory");
  if ((rc = agree(comm, rc)) < 0) goto done;
  if (MPI_Bcast(text, pk.textlen, MPI_CHAR, 0, comm) != MPI_SUCCESS) {
    rc = ostio__fail(OSTIO_EMPI, "ostio_layout_query: MPI_Bcast failed");
    goto done;
  }
  rc = ostio__record_decode(text, (size_t)pk.textlen - 1, layout);
  if (rc == 0) {
    memcpy((*layout)->source, pk.source, sizeof pk.source);
    (*layout)->inherited = pk.inherited;
  }
  if ((rc = agree(comm, rc)) < 0) {
    ostio__layout_destroy(*layout);
    *layout = NULL;
  }
done:
  free(text);
  return rc;
}
