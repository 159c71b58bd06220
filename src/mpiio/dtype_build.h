/* The decoder's growing block list (dtype_build.c), shared by the combiner
 * decoders (dtype.c) and the named types (dtype_named.c). Private to mpiio. */
#ifndef OSTIO_MPIIO_DTYPE_BUILD_H
#define OSTIO_MPIIO_DTYPE_BUILD_H

#include <stdint.h>

#include "mpiio/dtype.h"

typedef struct {
  ostio__dtype_block *b;
  int64_t n, cap;
} ostio__dtype_list;

void ostio__dtype_list_free(ostio__dtype_list *l);
/* The effective block limit (ostio__dtype_set_max_blocks). */
int64_t ostio__dtype_max_blocks(void);
/* Appends [off, off + len): dropped when len is 0, merged with the last block
 * when it starts where that one ends. OSTIO_ERANGE past the block limit
 * (what names the combiner in the message), OSTIO_ENOMEM. */
int ostio__dtype_push(ostio__dtype_list *l, int64_t off, int64_t len, const char *what);
/* Appends count copies of child, copy i shifted by disp + i * stride, with
 * every sum and product checked. A child that is one block as long as the
 * stride gives one block; a count whose blocks would pass the limit is
 * refused before any copy is made. */
int ostio__dtype_rep(ostio__dtype_list *out, const ostio__dtype_list *child, int64_t count,
                     int64_t stride, int64_t disp, const char *what);
/* The blocks of a named (predefined) type. */
int ostio__dtype_named(MPI_Datatype type, ostio__dtype_list *out);

#endif
