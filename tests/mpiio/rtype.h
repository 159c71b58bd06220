/* Random derived datatypes for random.c, each with its own flattening (byte
 * blocks in type-map order) computed alongside, so the program knows where every
 * byte goes without asking MPI. */
#ifndef RTYPE_H
#define RTYPE_H

#include <mpi.h>
#include <stdint.h>

struct rt_block {
    long long off, len;
};

struct rtype {
    MPI_Datatype type;
    int named; /* type is a named type: not freed */
    struct rt_block *b;
    int nb, cap;
    long long ext, size; /* lb is always 0 */
};

/* Whether indexed and hindexed types may have empty blocks (default 0). */
extern int rt_allow_empty;

uint64_t rt_rand(uint64_t *s);
int rt_below(uint64_t *s, int n);
/* A random nest (vector, hvector, indexed with zero-length blocks, hindexed,
 * struct, resized, subarray, contiguous) over named types, depth <= depth: lb 0,
 * blocks non-decreasing, non-overlapping, inside [0, ext), size > 0 (a valid
 * filetype). Returns 0, or -1 when out of memory. */
int rt_gen(struct rtype *o, uint64_t *rng, int depth);
/* A memory type: 1-3 copies of `in` in descending address order (so the type
 * map is not monotone) with gaps. */
int rt_permuted(struct rtype *o, const struct rtype *in, uint64_t *rng);
void rt_free(struct rtype *t);

#endif
