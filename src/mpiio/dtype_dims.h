/* Subarray and darray decoders (dtype_dims.c): both are runs of indices per
 * dimension of a global array of old-type elements. Private to mpiio. */
#ifndef OSTIO_MPIIO_DTYPE_DIMS_H
#define OSTIO_MPIIO_DTYPE_DIMS_H

#include "mpiio/dtype_build.h"

/* ints: what MPI_Type_get_contents gives for the combiner; child: the old
 * type's blocks; ext: its extent. */
int ostio__dtype_subarray(const int *ints, const ostio__dtype_list *child, int64_t ext,
                          ostio__dtype_list *out);
int ostio__dtype_darray(const int *ints, const ostio__dtype_list *child, int64_t ext,
                        ostio__dtype_list *out);

#endif
