/* Random derived datatypes with their own flattening; see rtype.h. */
#include "rtype.h"

#include <stdlib.h>

int rt_allow_empty;

uint64_t rt_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int rt_below(uint64_t *s, int n) { return (int)(rt_rand(s) % (uint64_t)n); }

/* Appends a block in type-map order; empty blocks dropped, touching ones merged. */
static int add(struct rtype *o, long long off, long long len)
{
    if (len == 0)
        return 0;
    if (o->nb > 0 && o->b[o->nb - 1].off + o->b[o->nb - 1].len == off) {
        o->b[o->nb - 1].len += len;
    } else {
        if (o->nb == o->cap) {
            int cap = o->cap ? 2 * o->cap : 16;
            struct rt_block *nb = realloc(o->b, (size_t)cap * sizeof *nb);
            if (!nb)
                return -1;
            o->b = nb;
            o->cap = cap;
        }
        o->b[o->nb].off = off;
        o->b[o->nb].len = len;
        o->nb++;
    }
    o->size += len;
    return 0;
}

/* Appends count copies of in's blocks starting at byte base, in.ext apart. */
static int add_copies(struct rtype *o, const struct rtype *in, long long base, int count)
{
    for (int c = 0; c < count; c++)
        for (int k = 0; k < in->nb; k++)
            if (add(o, base + c * in->ext + in->b[k].off, in->b[k].len))
                return -1;
    return 0;
}

static void leaf(struct rtype *o, uint64_t *r)
{
    static const MPI_Datatype ty[4] = {MPI_BYTE, MPI_SHORT, MPI_INT, MPI_DOUBLE};
    static const int sz[4] = {1, 2, 4, 8};
    int k = rt_below(r, 4);
    o->type = ty[k];
    o->named = 1;
    add(o, 0, sz[k]);
    o->ext = sz[k];
}

void rt_free(struct rtype *t)
{
    if (!t->named && t->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&t->type);
    free(t->b);
    t->b = NULL;
}

/* Gives o the type t resized to lb 0 and extent ext (at least its last end). */
static void finish(struct rtype *o, MPI_Datatype t, long long ext)
{
    if (o->nb > 0 && o->b[o->nb - 1].off + o->b[o->nb - 1].len > ext)
        ext = o->b[o->nb - 1].off + o->b[o->nb - 1].len;
    MPI_Type_create_resized(t, 0, (MPI_Aint)ext, &o->type);
    MPI_Type_free(&t);
    MPI_Type_commit(&o->type);
    o->ext = ext;
}

int rt_gen(struct rtype *o, uint64_t *r, int depth)
{
    *o = (struct rtype){.type = MPI_DATATYPE_NULL};
    if (depth == 0 || rt_below(r, 4) == 0) {
        leaf(o, r);
        return 0;
    }
    struct rtype in, in2 = {.type = MPI_DATATYPE_NULL};
    if (rt_gen(&in, r, depth - 1))
        return -1;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    long long ext = 0, e = in.ext;
    int n = 1 + rt_below(r, 4), bl[4], err = 0;
    int d[4];
    MPI_Aint hd[4];
    switch (rt_below(r, 8)) {
    case 0:
        MPI_Type_contiguous(n, in.type, &t);
        err = add_copies(o, &in, 0, n);
        ext = n * e;
        break;
    case 1: {
        int b = 1 + rt_below(r, 3), stride = b + rt_below(r, 4);
        MPI_Type_vector(n, b, stride, in.type, &t);
        for (int k = 0; k < n && !err; k++)
            err = add_copies(o, &in, (long long)k * stride * e, b);
        ext = ((long long)(n - 1) * stride + b) * e;
        break;
    }
    case 2: {
        int b = 1 + rt_below(r, 3);
        long long hs = b * e + rt_below(r, 11);
        MPI_Type_create_hvector(n, b, (MPI_Aint)hs, in.type, &t);
        for (int k = 0; k < n && !err; k++)
            err = add_copies(o, &in, k * hs, b);
        ext = (n - 1) * hs + b * e;
        break;
    }
    case 3:
    case 4: { /* indexed (elements) or hindexed (bytes); some blocks empty */
        int hidx = rt_below(r, 2);
        long long at = rt_below(r, 3) * (hidx ? 1 : e);
        for (int k = 0; k < n; k++) {
            bl[k] = rt_allow_empty ? rt_below(r, 4) : 1 + rt_below(r, 3);
            if (k == n - 1 && bl[k] == 0)
                bl[k] = 1;
            d[k] = (int)(at / e);
            hd[k] = (MPI_Aint)at;
            if (!hidx)
                at = (long long)d[k] * e;
            err = err || add_copies(o, &in, at, bl[k]);
            at += bl[k] * e + rt_below(r, 4) * (hidx ? 1 : e);
        }
        if (hidx)
            MPI_Type_create_hindexed(n, bl, hd, in.type, &t);
        else
            MPI_Type_indexed(n, bl, d, in.type, &t);
        ext = at;
        break;
    }
    case 5: { /* struct of in and another random type */
        if (rt_gen(&in2, r, depth - 1)) {
            rt_free(&in);
            return -1;
        }
        int b2[2] = {1 + rt_below(r, 2), 1 + rt_below(r, 2)};
        MPI_Aint sd[2];
        sd[0] = rt_below(r, 6);
        sd[1] = sd[0] + b2[0] * e + rt_below(r, 8);
        MPI_Datatype st[2] = {in.type, in2.type};
        MPI_Type_create_struct(2, b2, sd, st, &t);
        err = add_copies(o, &in, sd[0], b2[0]) || add_copies(o, &in2, sd[1], b2[1]);
        ext = sd[1] + b2[1] * in2.ext;
        break;
    }
    case 6: /* resized: padding after the data */
        MPI_Type_dup(in.type, &t);
        err = add_copies(o, &in, 0, 1);
        ext = e + 1 + rt_below(r, 16);
        break;
    default: { /* 2-D subarray, C order */
        int sz[2] = {1 + rt_below(r, 4), 1 + rt_below(r, 4)}, sub[2], st[2];
        for (int k = 0; k < 2; k++) {
            sub[k] = 1 + rt_below(r, sz[k]);
            st[k] = rt_below(r, sz[k] - sub[k] + 1);
        }
        MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, in.type, &t);
        for (int i = st[0]; i < st[0] + sub[0] && !err; i++)
            err = add_copies(o, &in, ((long long)i * sz[1] + st[1]) * e, sub[1]);
        ext = (long long)sz[0] * sz[1] * e;
        break;
    }
    }
    finish(o, t, ext);
    rt_free(&in);
    rt_free(&in2);
    return err ? -1 : 0;
}

int rt_permuted(struct rtype *o, const struct rtype *in, uint64_t *r)
{
    *o = (struct rtype){.type = MPI_DATATYPE_NULL};
    int n = 1 + rt_below(r, 3), bl[3] = {1, 1, 1}, err = 0;
    long long step = in->ext + rt_below(r, 9);
    MPI_Aint d[3];
    for (int k = 0; k < n; k++) {
        d[k] = (MPI_Aint)((n - 1 - k) * step + 3);
        err = err || add_copies(o, in, d[k], 1);
    }
    MPI_Datatype t;
    MPI_Type_create_hindexed(n, bl, d, in->type, &t);
    finish(o, t, n * step + 3 + rt_below(r, 5));
    return err ? -1 : 0;
}
