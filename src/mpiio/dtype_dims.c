/* Subarray and darray. Both select, in each dimension of a global array of
 * old-type elements, runs of indices; the type map lists the selected
 * elements with the fastest dimension innermost (the last in C order, the
 * first in Fortran order), indices increasing. Built from the fastest
 * dimension out: level k repeats level k-1 once per selected index, at the
 * dimension's stride (the product of the faster global sizes, in bytes). */
#include "mpiio/dtype_dims.h"

#include <stdlib.h>

#include "core/error.h"

typedef struct {
  int64_t start, len; /* indices [start, start + len) */
} run;

/* One dimension (level k from the fastest): its global size and runs. */
typedef struct {
  int64_t gsize;
  run *runs;
  int64_t nruns;
} dim;

static int build(int ndims, const dim *d, const ostio__dtype_list *child, int64_t ext,
                 const char *what, ostio__dtype_list *out)
{
  ostio__dtype_list cur = {0}, next = {0};
  int64_t stride = ext; /* bytes between two indices of level k */
  int rc = ostio__dtype_rep(&cur, child, 1, 0, 0, what);
  for (int k = 0; k < ndims && !rc; k++) {
    for (int64_t r = 0; r < d[k].nruns && !rc; r++) {
      int64_t disp;
      if (__builtin_mul_overflow(d[k].runs[r].start, stride, &disp))
        rc = ostio__fail(OSTIO_ERANGE, "%s: index %lld x stride %lld bytes overflows 64 bits",
                         what, (long long)d[k].runs[r].start, (long long)stride);
      else
        rc = ostio__dtype_rep(&next, &cur, d[k].runs[r].len, stride, disp, what);
    }
    if (!rc && k + 1 < ndims && __builtin_mul_overflow(stride, d[k].gsize, &stride))
      rc = ostio__fail(OSTIO_ERANGE, "%s: array of %lld-byte elements, dimension size %lld: "
                       "strides overflow 64 bits", what, (long long)ext, (long long)d[k].gsize);
    ostio__dtype_list_free(&cur);
    cur = next;
    next = (ostio__dtype_list){0};
  }
  if (!rc)
    rc = ostio__dtype_rep(out, &cur, 1, 0, 0, what);
  ostio__dtype_list_free(&cur);
  ostio__dtype_list_free(&next);
  return rc;
}

/* Level k of ndims in the given order: which dimension of the arrays. */
static int dim_at(int ndims, int order, int k)
{
  return order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
}

int ostio__dtype_subarray(const int *ints, const ostio__dtype_list *child, int64_t ext,
                          ostio__dtype_list *out)
{
  const char *what = "MPI_Type_create_subarray";
  int n = ints[0];
  const int *sizes = ints + 1, *subsizes = ints + 1 + n, *starts = ints + 1 + 2 * n;
  int order = ints[1 + 3 * n];
  dim *d = calloc((size_t)n + 1, sizeof *d);
  run *r = calloc((size_t)n + 1, sizeof *r);
  int rc = d && r ? OSTIO_OK
                  : ostio__fail(OSTIO_ENOMEM, "%s: no memory for %d dimensions", what, n);
  for (int k = 0; k < n && !rc; k++) {
    int i = dim_at(n, order, k);
    r[k] = (run){starts[i], subsizes[i]};
    d[k] = (dim){sizes[i], &r[k], 1};
  }
  if (!rc)
    rc = build(n, d, child, ext, what, out);
  free(d);
  free(r);
  return rc;
}

/* The runs of one darray dimension for process coordinate c of p, counted
 * only (d->nruns, and first / step / len for darray_fill): nothing is
 * allocated before every dimension is known to hold some. */
typedef struct {
  int64_t first, step, len;
} runs_at;

static int darray_count(int g, int distrib, int darg, int p, int c, dim *d, runs_at *ra,
                        const char *what)
{
  int64_t first, step, len, n;
  d->gsize = g;
  if (distrib == MPI_DISTRIBUTE_NONE) {
    first = 0; len = g; step = g; n = g > 0;
  } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
    len = darg == MPI_DISTRIBUTE_DFLT_DARG ? ((int64_t)g + p - 1) / p : darg;
    first = (int64_t)c * len; step = len * p;
    n = first < g ? 1 : 0;
  } else if (distrib == MPI_DISTRIBUTE_CYCLIC) {
    len = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    first = (int64_t)c * len; step = len * p;
    n = first < g ? (g - first + step - 1) / step : 0;
  } else {
    return ostio__fail(OSTIO_ENOTSUP, "%s: distribution %d is not supported", what, distrib);
  }
  if (len <= 0 && n > 0)
    return ostio__fail(OSTIO_EMPI, "%s: block size %lld (darg %d)", what, (long long)len, darg);
  if (p == 1 && n > 1)
    n = 1, len = g; /* one process: the cyclic blocks touch */
  d->nruns = n;
  *ra = (runs_at){first, step, len};
  return OSTIO_OK;
}

static int darray_fill(dim *d, const runs_at *ra, const char *what)
{
  if (d->nruns > ostio__dtype_max_blocks())
    return ostio__fail(OSTIO_ERANGE, "%s: %lld blocks in one dimension of size %lld, more "
                       "than %lld; refused", what, (long long)d->nruns, (long long)d->gsize,
                       (long long)ostio__dtype_max_blocks());
  d->runs = malloc((size_t)d->nruns * sizeof *d->runs);
  if (!d->runs)
    return ostio__fail(OSTIO_ENOMEM, "%s: no memory for %lld runs", what, (long long)d->nruns);
  for (int64_t i = 0; i < d->nruns; i++) {
    int64_t s = ra->first + i * ra->step; /* < gsize: no overflow */
    d->runs[i] = (run){s, s + ra->len <= d->gsize ? ra->len : d->gsize - s};
  }
  return OSTIO_OK;
}

int ostio__dtype_darray(const int *ints, const ostio__dtype_list *child, int64_t ext,
                        ostio__dtype_list *out)
{
  const char *what = "MPI_Type_create_darray";
  int size = ints[0], rank = ints[1], n = ints[2];
  const int *gsizes = ints + 3, *distribs = ints + 3 + n, *dargs = ints + 3 + 2 * n;
  const int *psizes = ints + 3 + 3 * n;
  int order = ints[3 + 4 * n];
  dim *d = calloc((size_t)n + 1, sizeof *d);
  runs_at *ra = calloc((size_t)n + 1, sizeof *ra);
  int *coord = calloc((size_t)n + 1, sizeof *coord);
  int rc = d && ra && coord ? OSTIO_OK
                      : ostio__fail(OSTIO_ENOMEM, "%s: no memory for %d dimensions", what, n);
  /* Processes form a row-major grid whatever the array order. */
  int r = rank;
  for (int i = n - 1; i >= 0 && !rc; i--) {
    if (psizes[i] < 1)
      rc = ostio__fail(OSTIO_EMPI, "%s: psizes[%d] = %d", what, i, psizes[i]);
    else {
      coord[i] = r % psizes[i];
      r /= psizes[i];
    }
  }
  if (!rc && (rank < 0 || rank >= size))
    rc = ostio__fail(OSTIO_EMPI, "%s: rank %d of %d", what, rank, size);
  int empty = 0;
  for (int k = 0; k < n && !rc; k++) {
    int i = dim_at(n, order, k);
    rc = darray_count(gsizes[i], distribs[i], dargs[i], psizes[i], coord[i], &d[k], &ra[k],
                      what);
    empty |= !rc && d[k].nruns == 0;
  }
  for (int k = 0; k < n && !rc && !empty; k++)
    rc = darray_fill(&d[k], &ra[k], what);
  if (!rc && !empty)
    rc = build(n, d, child, ext, what, out);
  for (int k = 0; d && k < n; k++)
    free(d[k].runs);
  free(d);
  free(ra);
  free(coord);
  return rc;
}
