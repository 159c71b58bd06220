/* MPI datatypes flattened into byte blocks (issue 16, "Datatypes"; docs/mpiio.md).
 *
 * A map is one instance of a datatype as a list of (displacement, length)
 * blocks in type-map order: zero-length blocks dropped, blocks that touch in
 * that order merged, displacements relative to the type's origin (may be
 * negative; with MPI_BOTTOM they are absolute addresses). The map also keeps
 * what tiling needs: lb and extent (resized honoured), the data size and the
 * data's bounds.
 *
 * Two halves:
 *   - pure code (dtype_map.c, dtype_iter.c): building a map from blocks and
 *     walking `count` instances tiled by extent, from a data-byte offset, for
 *     a number of bytes; no MPI call, testable without MPI;
 *   - MPI (dtype.c, dtype_named.c, dtype_cache.c): ostio__dtype_flatten
 *     decodes a datatype with MPI_Type_get_envelope / _get_contents and
 *     caches the map on the datatype (an attribute, dropped when the type is
 *     freed). */
#ifndef OSTIO_MPIIO_DTYPE_H
#define OSTIO_MPIIO_DTYPE_H

#include <stdint.h>
#include <mpi.h>

/* The default limit on blocks per map: a hostile type (a vector of 2^40
 * single bytes) is refused with OSTIO_ERANGE instead of exhausting memory. */
#define OSTIO__DTYPE_MAX_BLOCKS (INT64_C(1) << 26)
/* Nesting deeper than this is refused (the decoder recurses). */
#define OSTIO__DTYPE_MAX_DEPTH 64

typedef struct {
  int64_t off; /* bytes from the type's origin; may be negative */
  int64_t len; /* bytes, > 0 in a map */
} ostio__dtype_block;

typedef struct ostio__dtype_map {
  int64_t nblocks;
  const ostio__dtype_block *blocks; /* nblocks entries, type-map order */
  const int64_t *pos;  /* pos[i]: data bytes before block i; pos[nblocks] == size */
  int64_t size;        /* data bytes of one instance (MPI_Type_size) */
  int64_t lb, extent;  /* tiling: instance k starts at k * extent (MPI_Type_get_extent) */
  int64_t true_lb, true_extent; /* bounds of the data bytes (0, 0 when size is 0) */
  int seam;            /* 1: the last block of an instance touches the next one's first */
  int refs;            /* owners: callers of flatten and the cache */
} ostio__dtype_map;

/* ---- pure code ---------------------------------------------------------- */

/* A new map (refs 1) from n blocks in type-map order: lengths must be >= 0
 * (zero ones are dropped), adjacent ones are merged. OSTIO_EINVAL for a
 * negative length, OSTIO_ERANGE when a sum overflows, OSTIO_ENOMEM. */
int ostio__dtype_map_new(const ostio__dtype_block *blocks, int64_t n, int64_t lb,
                         int64_t extent, ostio__dtype_map **out);
void ostio__dtype_map_retain(ostio__dtype_map *map);
/* Drops one reference; frees the map with the last one. NULL is ignored. */
void ostio__dtype_map_release(ostio__dtype_map *map);

/* Walks the data bytes [start, start + nbytes) of `count` instances of a map
 * placed at base (instance k's origin at base + k * extent): the file extents
 * of a view (base = displacement, count < 0 = tiled without end) or the
 * memory pieces of a buffer (base = its address). Pieces that touch are
 * merged, also across instances; a map that is one block as long as its
 * extent gives one piece however large count is. No allocation: memory and
 * time are independent of count and proportional to the pieces produced. */
typedef struct {
  const ostio__dtype_map *map;
  int64_t base;
  int64_t inst;  /* current instance */
  int64_t blk;   /* current block of it */
  int64_t skip;  /* bytes of that block already produced */
  int64_t left;  /* data bytes still to produce */
} ostio__dtype_iter;

/* OSTIO_EINVAL when the range passes the end of count instances (count *
 * size bytes) or start / nbytes are negative, or nbytes > 0 with a map that
 * holds no data. */
int ostio__dtype_iter_init(ostio__dtype_iter *it, const ostio__dtype_map *map, int64_t base,
                           int64_t count, int64_t start, int64_t nbytes);
/* The next piece: 1 and *off / *len set, 0 at the end, or OSTIO_ERANGE when
 * an address overflows 64 bits. */
int ostio__dtype_iter_next(ostio__dtype_iter *it, int64_t *off, int64_t *len);
/* Up to cap pieces into out: how many (0 at the end), or a negative code. */
int64_t ostio__dtype_iter_fill(ostio__dtype_iter *it, ostio__dtype_block *out, int64_t cap);

/* ---- MPI ---------------------------------------------------------------- */

/* The map of type with one reference for the caller (release it with
 * ostio__dtype_map_release). Cached: a named type in a table for the
 * process's life, a derived type in an attribute dropped by MPI_Type_free;
 * MPI_Type_dup shares the map. Errors (with ostio_last_error naming the
 * combiner and the values): OSTIO_ERANGE (overflow, too many blocks, too
 * deep), OSTIO_ENOTSUP (a combiner or named type it cannot decode, a type
 * made with MPI-4 large-count constructors), OSTIO_EMPI, OSTIO_ENOMEM. */
int ostio__dtype_flatten(MPI_Datatype type, ostio__dtype_map **out);
/* The decoder alone: a new map (refs 1), no cache. */
int ostio__dtype_decode(MPI_Datatype type, ostio__dtype_map **out);

/* Test hooks. The block limit (<= 0 restores the default); returns the old one. */
int64_t ostio__dtype_set_max_blocks(int64_t max);
/* How many cached maps the attribute delete callback has dropped. */
int64_t ostio__dtype_cache_drops(void);

/* ---- MPI-4 large-count types (dtype_large.c) ---- */
/* 0: a named type; 1: derived, classic contents (MPI_Type_get_envelope
 * works); 2: derived with large counts (made with an MPI_Type_*_c
 * constructor); -1: MPI failed. Never calls the classic envelope on a
 * large-count type, whose error would go to MPI_COMM_WORLD's handler. */
int ostio__dtype_large_kind(MPI_Datatype t);
/* The contents of a kind-2 type in the classic layout of its combiner
 * (element counts as ints, byte displacements as MPI_Aints); ints, addrs and
 * types are malloc'd, *nd types are the caller's to free even on an error.
 * OSTIO_ERANGE when a count exceeds INT_MAX. Without MPI-4: OSTIO_EMPI. */
int ostio__dtype_contents_large(MPI_Datatype t, int *ni, int *na, int *nd, int *comb,
                                int **ints, MPI_Aint **addrs, MPI_Datatype **types);

#endif
