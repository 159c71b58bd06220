/* The MPI file view as pure data (issue 16; docs/mpiio.md): displacement,
 * etype size and the filetype's flattened map (src/mpiio/dtype.h). No MPI
 * call: MPI_File_set_view flattens the types, checks the view here once, and
 * every access then asks for the file extents of a range of the view's data
 * stream.
 *
 * The data stream of a view is the filetype tiled without end from disp:
 * instance k's origin at disp + k * extent, its blocks at their displacements
 * from it. Data byte p of the stream is byte p % size of instance p / size.
 * Positions are counted in etypes, as MPI does (MPI_File_seek, _read_at). */
#ifndef OSTIO_MPIIO_VIEW_H
#define OSTIO_MPIIO_VIEW_H

#include <stdint.h>

#include "mpiio/dtype.h"

typedef struct {
  int64_t disp;       /* bytes from the start of the file, >= 0 */
  int64_t etype_size; /* bytes of one etype (MPI_Type_size), > 0 */
  /* Borrowed: whoever sets the view keeps the map's reference (the default
   * map is static and must never be retained or released). */
  const ostio__dtype_map *ftype;
} ostio__view;

/* The default view of MPI_File_open: disp 0, etype = filetype = MPI_BYTE
 * (a filetype of one 1-byte block, extent 1). */
void ostio__view_default(ostio__view *v);

/* The rules MPI puts on a view, checked once when it is set: disp >= 0, an
 * etype of positive size, a filetype size that is a multiple of the etype
 * size, and, for a filetype with data, block displacements non-negative,
 * non-decreasing and not overlapping, tiles that advance and do not overlap
 * (extent >= the span of the data), and the first tile's addresses inside 64
 * bits. A filetype of size 0 (any extent) is accepted, as MPI does: its
 * stream holds no byte, so only walks of 0 bytes succeed. OSTIO_EINVAL with
 * a sentence naming the rule and the values. Work: O(blocks). */
int ostio__view_check(const ostio__view *v);

/* Starts a walk of the file extents of data bytes [pos_etypes * etype_size,
 * + nbytes) of a checked view's stream; take the extents with
 * ostio__dtype_iter_next or ostio__dtype_iter_fill (a capped array, resumed
 * by the next call). Extents are absolute file offsets, merged when they
 * touch. O(log blocks) here, O(1) per extent after: independent of the
 * position. OSTIO_EINVAL for a negative position or length, OSTIO_ERANGE when
 * the byte position overflows 64 bits (the walk reports an offset that
 * overflows the same way). */
int ostio__view_iter_init(ostio__dtype_iter *it, const ostio__view *v, int64_t pos_etypes,
                          int64_t nbytes);

/* Called once per extent in file order; a non-zero return stops the walk and
 * is returned by ostio__view_extents. */
typedef int (*ostio__view_emit_fn)(void *arg, int64_t off, int64_t len);

/* The file extents of data bytes [pos_etypes * etype_size, + nbytes), each
 * passed to emit. 0, emit's non-zero return, or a code of
 * ostio__view_iter_init / ostio__dtype_iter_next. */
int ostio__view_extents(const ostio__view *v, int64_t pos_etypes, int64_t nbytes,
                        ostio__view_emit_fn emit, void *arg);

/* MPI_File_get_byte_offset: the absolute file offset of the data byte at
 * pos_etypes etypes into the view (a position at the end of a tile's data
 * answers the next tile's first byte). Same errors as the walk. */
int ostio__view_byte_offset(const ostio__view *v, int64_t pos_etypes, int64_t *off);

#endif
