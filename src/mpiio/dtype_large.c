/* Types made with the MPI-4 large-count constructors (MPI_Type_vector_c,
 * MPI_Type_create_subarray_c, ...; mpi4py 4 builds every derived type so).
 * The classic MPI_Type_get_envelope fails on them; MPI_Type_get_envelope_c /
 * MPI_Type_get_contents_c give their counts and byte displacements as
 * MPI_Count ("large counts"). Here they are put back into the classic layout
 * of the combiner (MPI-4.0, section 5.1.13: the large-count layout of each
 * combiner), so the decoder (dtype.c) reads both kinds the same way: element
 * counts become ints (a value beyond INT_MAX is refused with OSTIO_ERANGE),
 * byte displacements MPI_Aints. Compiled to a refusal where mpi.h has no
 * large-count calls (MPI < 4: Open MPI 4.1). */
#include "mpiio/dtype.h"

#include <limits.h>
#include <stdlib.h>

#include "core/error.h"

#if MPI_VERSION >= 4

/* Appends large count v to ints (a checked narrowing). */
static int put_int(int *ints, int *ni, MPI_Count v, const char *name)
{
  if (v > INT_MAX || v < INT_MIN)
    return ostio__fail(OSTIO_ERANGE, "%s (large-count constructor): the value %lld is beyond "
                       "what ostio decodes (counts and element displacements up to %d)", name,
                       (long long)v, INT_MAX);
  ints[(*ni)++] = (int)v;
  return OSTIO_OK;
}

/* The classic layout from the large one. i, c, ni_c, nc: what
 * get_contents_c gave; out: ints and addrs sized for ni_c + nc each. */
static int relayout(int comb, const int *i, MPI_Count ni_c, const MPI_Count *c, MPI_Count nc,
                    int *ints, int *ni, MPI_Aint *addrs, int *na)
{
  const char *name = "MPI_Type_*_c";
  MPI_Count n = nc > 0 ? c[0] : 0, k = 0;
  int rc = OSTIO_OK;
  *ni = *na = 0;
  switch (comb) {
  case MPI_COMBINER_CONTIGUOUS: /* count */
  case MPI_COMBINER_VECTOR:     /* count, blocklength, stride */
  case MPI_COMBINER_INDEXED:    /* count, blocklengths[n], displacements[n] */
  case MPI_COMBINER_INDEXED_BLOCK: /* count, blocklength, displacements[n] */
    for (k = 0; k < nc && !rc; k++) rc = put_int(ints, ni, c[k], name);
    break;
  case MPI_COMBINER_HVECTOR: /* count, blocklength | stride */
  case MPI_COMBINER_HINDEXED_BLOCK: /* count, blocklength | displacements[n] */
    for (k = 0; k < nc && k < 2 && !rc; k++) rc = put_int(ints, ni, c[k], name);
    for (; k < nc; k++) addrs[(*na)++] = (MPI_Aint)c[k];
    break;
  case MPI_COMBINER_HINDEXED: /* count, blocklengths[n] | displacements[n] */
  case MPI_COMBINER_STRUCT:
    if (n < 0 || nc < 1 + 2 * n)
      return ostio__fail(OSTIO_EMPI, "MPI_Type_get_contents_c gave %lld large counts for %lld "
                         "entries", (long long)nc, (long long)n);
    for (k = 0; k <= n && !rc; k++) rc = put_int(ints, ni, c[k], name);
    for (; k < 1 + 2 * n; k++) addrs[(*na)++] = (MPI_Aint)c[k];
    break;
  case MPI_COMBINER_SUBARRAY: /* i: ndims, order; c: sizes, subsizes, starts */
    if (ni_c < 2) return ostio__fail(OSTIO_EMPI, "MPI_Type_get_contents_c: subarray without order");
    ints[(*ni)++] = i[0];
    for (k = 0; k < nc && !rc; k++) rc = put_int(ints, ni, c[k], name);
    ints[(*ni)++] = i[1];
    break;
  case MPI_COMBINER_DARRAY: /* i: size, rank, ndims, distribs, dargs, psizes, order; c: gsizes */
    if (ni_c < 3) return ostio__fail(OSTIO_EMPI, "MPI_Type_get_contents_c: darray too short");
    for (k = 0; k < 3; k++) ints[(*ni)++] = i[k];
    for (k = 0; k < nc && !rc; k++) rc = put_int(ints, ni, c[k], name);
    for (k = 3; k < ni_c; k++) ints[(*ni)++] = i[k];
    break;
  case MPI_COMBINER_RESIZED: /* lb, extent */
    for (k = 0; k < nc; k++) addrs[(*na)++] = (MPI_Aint)c[k];
    break;
  default: /* DUP and the rest: no large counts; the classic integers as they are */
    for (k = 0; k < ni_c; k++) ints[(*ni)++] = i[k];
    break;
  }
  return rc;
}

int ostio__dtype_large_kind(MPI_Datatype t)
{
  MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
  int comb = 0;
  if (MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb) != MPI_SUCCESS) return -1;
  if (comb == MPI_COMBINER_NAMED) return 0;
  return nc > 0 ? 2 : 1;
}

int ostio__dtype_contents_large(MPI_Datatype t, int *ni, int *na, int *nd, int *comb,
                                int **ints, MPI_Aint **addrs, MPI_Datatype **types)
{
  MPI_Count cni = 0, cna = 0, cnc = 0, cnd = 0;
  *ints = NULL;
  *addrs = NULL;
  *types = NULL;
  if (MPI_Type_get_envelope_c(t, &cni, &cna, &cnc, &cnd, comb) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Type_get_envelope_c failed");
  if (*comb == MPI_COMBINER_NAMED) return OSTIO_OK;
  if (cni < 0 || cna < 0 || cnc < 0 || cnd < 0 || cni > INT_MAX / 2 || cnc > INT_MAX / 2 ||
      cnd > INT_MAX || cna > 0)
    return ostio__fail(OSTIO_ERANGE, "MPI_Type_get_envelope_c: %lld integers, %lld addresses, "
                       "%lld large counts, %lld types: beyond what ostio decodes",
                       (long long)cni, (long long)cna, (long long)cnc, (long long)cnd);
  size_t room = (size_t)(cni + cnc) + 1;
  int *ci = malloc(((size_t)cni + 1) * sizeof *ci);
  MPI_Count *cc = malloc(((size_t)cnc + 1) * sizeof *cc);
  *ints = malloc(room * sizeof **ints);
  *addrs = malloc(room * sizeof **addrs);
  *types = malloc(((size_t)cnd + 1) * sizeof **types);
  MPI_Aint dummy[1];
  int rc = OSTIO_OK;
  if (!ci || !cc || !*ints || !*addrs || !*types)
    rc = ostio__fail(OSTIO_ENOMEM, "datatype: no memory for large-count contents");
  else if (MPI_Type_get_contents_c(t, cni, cna, cnc, cnd, ci, dummy, cc, *types) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "MPI_Type_get_contents_c failed (combiner %d)", *comb);
  else
    rc = relayout(*comb, ci, cni, cc, cnc, *ints, ni, *addrs, na);
  if (rc == OSTIO_OK) *nd = (int)cnd;
  /* On an error after get_contents_c the caller frees the types it got. */
  else if (*types && rc != OSTIO_ENOMEM && rc != OSTIO_EMPI) *nd = (int)cnd;
  else *nd = 0;
  free(ci);
  free(cc);
  return rc;
}

#else

int ostio__dtype_large_kind(MPI_Datatype t)
{
  int ni, na, nd, comb = 0;
  if (MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return -1;
  return comb == MPI_COMBINER_NAMED ? 0 : 1;
}

int ostio__dtype_contents_large(MPI_Datatype t, int *ni, int *na, int *nd, int *comb,
                                int **ints, MPI_Aint **addrs, MPI_Datatype **types)
{
  (void)t;
  *ni = *na = *nd = *comb = 0;
  *ints = NULL;
  *addrs = NULL;
  *types = NULL;
  return ostio__fail(OSTIO_EMPI, "MPI_Type_get_envelope failed on a datatype (this MPI "
                     "library has no MPI_Type_get_envelope_c to try next)");
}

#endif
