/* The MPI file view as pure data (src/mpiio/view.h): the rules of a view and
 * its data stream mapped to file extents through the map walk of dtype.h. */
#include "mpiio/view.h"

#include "core/error.h"

/* MPI_BYTE as a filetype: one byte at 0, extent 1. It touches the next
 * instance (seam), so any range of the default view is one extent. */
static const ostio__dtype_block byte_block[1] = {{0, 1}};
static const int64_t byte_pos[2] = {0, 1};
static const ostio__dtype_map byte_map = {
    .nblocks = 1,
    .blocks = byte_block,
    .pos = byte_pos,
    .size = 1,
    .lb = 0,
    .extent = 1,
    .true_lb = 0,
    .true_extent = 1,
    .seam = 1,
    .refs = 1,
};

void ostio__view_default(ostio__view *v)
{
  *v = (ostio__view){.disp = 0, .etype_size = 1, .ftype = &byte_map};
}

int ostio__view_check(const ostio__view *v)
{
  const ostio__dtype_map *m = v->ftype;
  if (v->disp < 0)
    return ostio__fail(OSTIO_EINVAL, "file view: displacement %lld is negative",
                       (long long)v->disp);
  if (v->etype_size <= 0)
    return ostio__fail(OSTIO_EINVAL, "file view: etype size %lld is not positive",
                       (long long)v->etype_size);
  if (!m)
    return ostio__fail(OSTIO_EINVAL, "file view: no filetype");
  if (m->size < 0 || m->nblocks < 0)
    return ostio__fail(OSTIO_EINVAL, "file view: filetype size %lld is negative",
                       (long long)m->size);
  /* MPI allows a filetype with no data (size 0, any extent): the rank then
   * sees no bytes of the file, and only accesses of 0 bytes are valid
   * (PnetCDF gives such a view to a rank with no part of a request). */
  if (m->size == 0)
    return OSTIO_OK;
  if (m->size % v->etype_size != 0)
    return ostio__fail(OSTIO_EINVAL,
                       "file view: filetype size %lld is not a multiple of the etype size %lld",
                       (long long)m->size, (long long)v->etype_size);
  /* MPI: filetype displacements are non-negative and monotonically
   * non-decreasing; bytes that overlap would be written twice. */
  int64_t prev_end = 0;
  for (int64_t i = 0; i < m->nblocks; i++) {
    const ostio__dtype_block *b = &m->blocks[i];
    if (b->off < 0)
      return ostio__fail(OSTIO_EINVAL,
                         "file view: filetype block %lld has negative displacement %lld",
                         (long long)i, (long long)b->off);
    if (i > 0 && b->off < m->blocks[i - 1].off)
      return ostio__fail(OSTIO_EINVAL,
                         "file view: filetype displacements decrease: block %lld at %lld "
                         "after block %lld at %lld",
                         (long long)i, (long long)b->off, (long long)(i - 1),
                         (long long)m->blocks[i - 1].off);
    if (i > 0 && b->off < prev_end)
      return ostio__fail(OSTIO_EINVAL,
                         "file view: filetype blocks overlap: block %lld at %lld starts before "
                         "block %lld ends at %lld",
                         (long long)i, (long long)b->off, (long long)(i - 1),
                         (long long)prev_end);
    if (__builtin_add_overflow(b->off, b->len, &prev_end))
      return ostio__fail(OSTIO_EINVAL, "file view: filetype block %lld at %lld + %lld overflows",
                         (long long)i, (long long)b->off, (long long)b->len);
  }
  /* Blocks are in order, so the data spans [blocks[0].off, prev_end). Tile
   * k + 1 starts its data at extent + blocks[0].off past tile k's origin:
   * at or after tile k's data end only when extent covers the span. */
  int64_t span = prev_end - m->blocks[0].off;
  if (m->extent <= 0)
    return ostio__fail(OSTIO_EINVAL, "file view: filetype extent %lld is not positive",
                       (long long)m->extent);
  if (m->extent < span)
    return ostio__fail(OSTIO_EINVAL,
                       "file view: filetype tiles overlap: extent %lld is less than its data "
                       "span %lld",
                       (long long)m->extent, (long long)span);
  int64_t end;
  if (__builtin_add_overflow(v->disp, prev_end, &end))
    return ostio__fail(OSTIO_EINVAL,
                       "file view: displacement %lld + filetype data end %lld overflows 64 bits",
                       (long long)v->disp, (long long)prev_end);
  return OSTIO_OK;
}

int ostio__view_iter_init(ostio__dtype_iter *it, const ostio__view *v, int64_t pos_etypes,
                          int64_t nbytes)
{
  int64_t start;
  *it = (ostio__dtype_iter){.map = v->ftype, .base = v->disp};
  if (pos_etypes < 0)
    return ostio__fail(OSTIO_EINVAL, "file view: position %lld etypes is negative",
                       (long long)pos_etypes);
  if (nbytes < 0)
    return ostio__fail(OSTIO_EINVAL, "file view: length %lld bytes is negative",
                       (long long)nbytes);
  if (__builtin_mul_overflow(pos_etypes, v->etype_size, &start))
    return ostio__fail(OSTIO_ERANGE,
                       "file view: position %lld etypes of %lld bytes overflows 64 bits",
                       (long long)pos_etypes, (long long)v->etype_size);
  /* count < 0: the filetype tiles without end. */
  return ostio__dtype_iter_init(it, v->ftype, v->disp, -1, start, nbytes);
}

/* A filetype of one block as long as its extent (MPI_BYTE, a contiguous
 * type): byte p of the stream lies at disp + off + p, one extent for any
 * range. 1 and the extent set, or 0 when the walk must decide (another
 * filetype, an empty or bad range, an overflow: the walk names the error). */
static int contiguous(const ostio__view *v, int64_t pos_etypes, int64_t nbytes, int64_t *off)
{
  const ostio__dtype_map *m = v->ftype;
  int64_t start, end;
  if (m->nblocks != 1 || !m->seam || pos_etypes < 0 || nbytes <= 0) return 0;
  if (__builtin_mul_overflow(pos_etypes, v->etype_size, &start) ||
      __builtin_add_overflow(start, v->disp + m->blocks[0].off, off) || /* checked: no overflow */
      __builtin_add_overflow(*off, nbytes, &end))
    return 0;
  return 1;
}

int ostio__view_extents(const ostio__view *v, int64_t pos_etypes, int64_t nbytes,
                        ostio__view_emit_fn emit, void *arg)
{
  int64_t at;
  if (contiguous(v, pos_etypes, nbytes, &at)) return emit(arg, at, nbytes);
  ostio__dtype_iter it;
  int rc = ostio__view_iter_init(&it, v, pos_etypes, nbytes);
  if (rc)
    return rc;
  int64_t off, len;
  while ((rc = ostio__dtype_iter_next(&it, &off, &len)) == 1) {
    rc = emit(arg, off, len);
    if (rc)
      return rc;
  }
  return rc;
}

int ostio__view_byte_offset(const ostio__view *v, int64_t pos_etypes, int64_t *off)
{
  /* The first extent of one byte at the position is where that byte lives;
   * the walk already skips to the next tile at a tile's data end. */
  ostio__dtype_iter it;
  int64_t len;
  int rc = ostio__view_iter_init(&it, v, pos_etypes, 1);
  if (rc)
    return rc;
  rc = ostio__dtype_iter_next(&it, off, &len);
  return rc < 0 ? rc : OSTIO_OK;
}
