/* Decoding an MPI datatype into blocks with MPI_Type_get_envelope /
 * MPI_Type_get_contents (portable across MPI libraries: no internals). One
 * instance of a type is decoded recursively: a combiner's blocks are copies
 * of its old types' blocks (ostio__dtype_rep), shifted by displacements in
 * bytes. The lb and extent come from MPI itself (MPI_Type_get_extent_x), so
 * resized, dup and the bounds of subarray and darray need no rules here. */
#include "mpiio/dtype.h"

#include <stdlib.h>

#include "core/error.h"
#include "mpiio/dtype_build.h"
#include "mpiio/dtype_dims.h"

/* What get_contents returned, freed by contents_free (derived types only). */
typedef struct {
  int ni, na, nd, comb;
  int *ints;
  MPI_Aint *addrs;
  MPI_Datatype *types;
} contents;

static void contents_free(contents *c)
{
  for (int i = 0; c->types && i < c->nd; i++)
    if (ostio__dtype_large_kind(c->types[i]) > 0) MPI_Type_free(&c->types[i]);
  free(c->ints);
  free(c->addrs);
  free(c->types);
}

static int contents_get(MPI_Datatype t, contents *c)
{
  *c = (contents){0};
  int kind = ostio__dtype_large_kind(t);
  if (kind == 2) { /* MPI_Type_*_c: its contents in the classic layout */
    int rc = ostio__dtype_contents_large(t, &c->ni, &c->na, &c->nd, &c->comb, &c->ints,
                                         &c->addrs, &c->types);
    if (rc) contents_free(c);
    return rc;
  }
  if (kind < 0 || MPI_Type_get_envelope(t, &c->ni, &c->na, &c->nd, &c->comb) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Type_get_envelope failed");
  if (c->comb == MPI_COMBINER_NAMED)
    return OSTIO_OK;
  c->ints = malloc(((size_t)c->ni + 1) * sizeof *c->ints);
  c->addrs = malloc(((size_t)c->na + 1) * sizeof *c->addrs);
  c->types = malloc(((size_t)c->nd + 1) * sizeof *c->types);
  if (!c->ints || !c->addrs || !c->types) {
    int nd = c->nd;
    c->nd = 0;
    contents_free(c);
    return ostio__fail(OSTIO_ENOMEM, "datatype: no memory for %d + %d + %d contents", c->ni,
                       c->na, nd);
  }
  if (MPI_Type_get_contents(t, c->ni, c->na, c->nd, c->ints, c->addrs, c->types)
      != MPI_SUCCESS) {
    c->nd = 0;
    contents_free(c);
    return ostio__fail(OSTIO_EMPI, "MPI_Type_get_contents failed (combiner %d)", c->comb);
  }
  return OSTIO_OK;
}

static int decode(MPI_Datatype t, int depth, ostio__dtype_list *out);

/* The blocks and extent of an old type. */
static int child_of(MPI_Datatype t, int depth, ostio__dtype_list *l, int64_t *extent)
{
  MPI_Count lb, ext;
  *l = (ostio__dtype_list){0};
  *extent = 0; /* defined on the error paths too (GCC 12 -O3 warned) */
  if (MPI_Type_get_extent_x(t, &lb, &ext) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Type_get_extent_x failed");
  *extent = (int64_t)ext;
  int rc = decode(t, depth + 1, l);
  if (rc)
    ostio__dtype_list_free(l);
  return rc;
}

/* Elements i * unit bytes: the displacement of element index i. */
static int scaled(int64_t i, int64_t unit, const char *what, int64_t *out)
{
  if (__builtin_mul_overflow(i, unit, out))
    return ostio__fail(OSTIO_ERANGE, "%s: displacement %lld x extent %lld overflows 64 bits",
                       what, (long long)i, (long long)unit);
  return OSTIO_OK;
}

/* contiguous, vector, hvector: count copies of blocklength elements. */
static int dec_strided(const contents *c, const ostio__dtype_list *ch, int64_t ext,
                       ostio__dtype_list *out)
{
  int64_t count = c->ints[0], bl = 1, stride = ext;
  const char *what = "MPI_Type_contiguous";
  int rc = OSTIO_OK;
  if (c->comb == MPI_COMBINER_VECTOR) {
    what = "MPI_Type_vector";
    bl = c->ints[1];
    rc = scaled(c->ints[2], ext, what, &stride);
  } else if (c->comb == MPI_COMBINER_HVECTOR) {
    what = "MPI_Type_create_hvector";
    bl = c->ints[1];
    stride = c->addrs[0];
  } else {
    bl = count; /* contiguous: one run of count elements */
    count = 1;
  }
  ostio__dtype_list run = {0};
  if (!rc)
    rc = ostio__dtype_rep(&run, ch, bl, ext, 0, what);
  if (!rc)
    rc = ostio__dtype_rep(out, &run, count, stride, 0, what);
  ostio__dtype_list_free(&run);
  return rc;
}

/* indexed, hindexed, indexed_block, hindexed_block: entry i is bl(i)
 * elements at disp(i) (elements or bytes). */
static int dec_indexed(const contents *c, const ostio__dtype_list *ch, int64_t ext,
                       ostio__dtype_list *out)
{
  int count = c->ints[0];
  const char *what;
  int rc = OSTIO_OK;
  for (int i = 0; i < count && !rc; i++) {
    int64_t bl, disp;
    switch (c->comb) {
    case MPI_COMBINER_INDEXED:
      what = "MPI_Type_indexed";
      bl = c->ints[1 + i];
      rc = scaled(c->ints[1 + count + i], ext, what, &disp);
      break;
    case MPI_COMBINER_HINDEXED:
      what = "MPI_Type_create_hindexed";
      bl = c->ints[1 + i];
      disp = c->addrs[i];
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      what = "MPI_Type_create_indexed_block";
      bl = c->ints[1];
      rc = scaled(c->ints[2 + i], ext, what, &disp);
      break;
    default:
      what = "MPI_Type_create_hindexed_block";
      bl = c->ints[1];
      disp = c->addrs[i];
      break;
    }
    if (!rc)
      rc = ostio__dtype_rep(out, ch, bl, ext, disp, what);
  }
  return rc;
}

static int dec_struct(const contents *c, int depth, ostio__dtype_list *out)
{
  int count = c->ints[0], rc = OSTIO_OK;
  for (int i = 0; i < count && !rc; i++) {
    ostio__dtype_list ch;
    int64_t ext;
    rc = child_of(c->types[i], depth, &ch, &ext);
    if (!rc)
      rc = ostio__dtype_rep(out, &ch, c->ints[1 + i], ext, c->addrs[i],
                            "MPI_Type_create_struct");
    ostio__dtype_list_free(&ch);
  }
  return rc;
}

/* How many integers, addresses and types each combiner must return: a short
 * answer from the MPI library would otherwise be read past its end. */
static int check_counts(const contents *c, const char **name)
{
  int n0 = c->ni > 0 ? c->ints[0] : -1, ni = -1, na = 0, nd = 1;
  switch (c->comb) {
  case MPI_COMBINER_DUP: *name = "MPI_Type_dup"; ni = 0; break;
  case MPI_COMBINER_RESIZED: *name = "MPI_Type_create_resized"; ni = 0; na = 2; break;
  case MPI_COMBINER_CONTIGUOUS: *name = "MPI_Type_contiguous"; ni = 1; break;
  case MPI_COMBINER_VECTOR: *name = "MPI_Type_vector"; ni = 3; break;
  case MPI_COMBINER_HVECTOR: *name = "MPI_Type_create_hvector"; ni = 2; na = 1; break;
  case MPI_COMBINER_INDEXED: *name = "MPI_Type_indexed"; ni = 1 + 2 * n0; break;
  case MPI_COMBINER_HINDEXED: *name = "MPI_Type_create_hindexed"; ni = 1 + n0; na = n0; break;
  case MPI_COMBINER_INDEXED_BLOCK: *name = "MPI_Type_create_indexed_block"; ni = 2 + n0; break;
  case MPI_COMBINER_HINDEXED_BLOCK: *name = "MPI_Type_create_hindexed_block"; ni = 2; na = n0;
    break;
  case MPI_COMBINER_STRUCT: *name = "MPI_Type_create_struct"; ni = 1 + n0; na = n0; nd = n0;
    break;
  case MPI_COMBINER_SUBARRAY: *name = "MPI_Type_create_subarray"; ni = 2 + 3 * n0; break;
  case MPI_COMBINER_DARRAY:
    *name = "MPI_Type_create_darray";
    ni = c->ni > 2 ? 4 + 4 * c->ints[2] : -1;
    break;
  default:
    return ostio__fail(OSTIO_ENOTSUP, "datatype combiner %d is not supported (Fortran "
                       "*_INTEGER and F90 combiners)", c->comb);
  }
  if (n0 < 0 && ni != 0)
    return ostio__fail(OSTIO_EMPI, "%s: MPI_Type_get_contents gave no integers", *name);
  if (ni < 0 || c->ni < ni || c->na < na || c->nd < nd)
    return ostio__fail(OSTIO_EMPI, "%s: MPI_Type_get_contents gave %d/%d/%d values, %d/%d/%d "
                       "expected", *name, c->ni, c->na, c->nd, ni, na, nd);
  return OSTIO_OK;
}

static int decode(MPI_Datatype t, int depth, ostio__dtype_list *out)
{
  if (depth > OSTIO__DTYPE_MAX_DEPTH)
    return ostio__fail(OSTIO_ERANGE, "datatype nested deeper than %d constructors; refused",
                       OSTIO__DTYPE_MAX_DEPTH);
  contents c;
  int rc = contents_get(t, &c);
  if (rc)
    return rc;
  if (c.comb == MPI_COMBINER_NAMED)
    return ostio__dtype_named(t, out);
  const char *name = "datatype";
  rc = check_counts(&c, &name);
  if (!rc && c.comb == MPI_COMBINER_STRUCT) {
    rc = dec_struct(&c, depth, out);
  } else if (!rc) {
    ostio__dtype_list ch;
    int64_t ext;
    rc = child_of(c.types[0], depth, &ch, &ext);
    if (!rc) {
      switch (c.comb) {
      case MPI_COMBINER_DUP:
      case MPI_COMBINER_RESIZED: /* same blocks; lb and extent come from MPI */
        rc = ostio__dtype_rep(out, &ch, 1, 0, 0, name);
        break;
      case MPI_COMBINER_CONTIGUOUS:
      case MPI_COMBINER_VECTOR:
      case MPI_COMBINER_HVECTOR:
        rc = dec_strided(&c, &ch, ext, out);
        break;
      case MPI_COMBINER_SUBARRAY:
        rc = ostio__dtype_subarray(c.ints, &ch, ext, out);
        break;
      case MPI_COMBINER_DARRAY:
        rc = ostio__dtype_darray(c.ints, &ch, ext, out);
        break;
      default:
        rc = dec_indexed(&c, &ch, ext, out);
        break;
      }
    }
    ostio__dtype_list_free(&ch);
  }
  contents_free(&c);
  return rc;
}

int ostio__dtype_decode(MPI_Datatype type, ostio__dtype_map **out)
{
  *out = NULL;
  MPI_Count lb, ext, size;
  if (MPI_Type_get_extent_x(type, &lb, &ext) != MPI_SUCCESS
      || MPI_Type_size_x(type, &size) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Type_get_extent_x / MPI_Type_size_x failed");
  if (size == MPI_UNDEFINED)
    return ostio__fail(OSTIO_ERANGE, "datatype: MPI_Type_size_x is undefined (over MPI_Count)");
  ostio__dtype_list l = {0};
  int rc = decode(type, 0, &l);
  if (!rc)
    rc = ostio__dtype_map_new(l.b, l.n, (int64_t)lb, (int64_t)ext, out);
  ostio__dtype_list_free(&l);
  /* A safety net, not a rule: a decoding that disagrees with MPI about the
   * data size is an error, never a wrong answer. */
  if (!rc && (*out)->size != (int64_t)size) {
    rc = ostio__fail(OSTIO_ENOTSUP, "datatype: flattened into %lld bytes but MPI_Type_size "
                     "says %lld; not supported", (long long)(*out)->size, (long long)size);
    ostio__dtype_map_release(*out);
    *out = NULL;
  }
  return rc;
}
