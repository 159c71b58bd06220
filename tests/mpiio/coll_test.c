/* coll_test: a 3-D int array distributed with MPI_Type_create_darray as the
 * filetype, written with write_all and read back with read_all.
 *   OUTPATH      block x block x block over MPI_Dims_create's grid
 *   OUTPATH.cyc  cyclic(3) x none x block over np x 1 x 1, Fortran order */
#include "mpiio_util.h"

#include <stdlib.h>

#define N0 20
#define N1 18
#define N2 17

struct dist {
    int gs[3], distribs[3], dargs[3], ps[3], order;
};

/* The process coordinate along one dimension that owns index i. */
static int coord(const struct dist *d, int dim, int i)
{
    int n = d->gs[dim], p = d->ps[dim];
    switch (d->distribs[dim]) {
    case MPI_DISTRIBUTE_BLOCK:
        return i / ((n + p - 1) / p);
    case MPI_DISTRIBUTE_CYCLIC:
        return (i / d->dargs[dim]) % p;
    default:
        return 0;
    }
}

/* Owner of element (i0, i1, i2); processes in row-major grid order. */
static int owner(const struct dist *d, const int *ix)
{
    int r = 0;
    for (int k = 0; k < 3; k++)
        r = r * d->ps[k] + coord(d, k, ix[k]);
    return r;
}

/* File element index of (i0, i1, i2): C order or Fortran order. */
static long linear(const struct dist *d, const int *ix)
{
    if (d->order == MPI_ORDER_C)
        return ((long)ix[0] * d->gs[1] + ix[1]) * d->gs[2] + ix[2];
    return ((long)ix[2] * d->gs[1] + ix[1]) * d->gs[0] + ix[0];
}

static void run(const char *path, const struct dist *d)
{
    long total = (long)N0 * N1 * N2;
    int *img = mu_calloc((size_t)total, sizeof(int));
    int *mine = mu_calloc((size_t)total, sizeof(int));
    long nmine = 0;
    /* The darray's type map is in file order restricted to this rank. */
    int *owned = mu_calloc((size_t)total, sizeof(int));
    int ix[3];
    for (ix[0] = 0; ix[0] < N0; ix[0]++)
        for (ix[1] = 0; ix[1] < N1; ix[1]++)
            for (ix[2] = 0; ix[2] < N2; ix[2]++) {
                long g = linear(d, ix);
                int o = owner(d, ix);
                img[g] = mu_ival(o, g);
                owned[g] = o == mu_rank;
            }
    for (long g = 0; g < total; g++)
        if (owned[g])
            mine[nmine++] = img[g];
    MPI_Datatype ft;
    int rc = MPI_Type_create_darray(mu_nprocs, mu_rank, 3, d->gs, d->distribs, d->dargs, d->ps,
                                    d->order, MPI_INT, &ft);
    if (!mu_ok(rc, "darray"))
        return;
    MPI_Type_commit(&ft);
    int tsize = 0;
    MPI_Type_size(ft, &tsize);
    if (tsize != nmine * 4)
        mu_fail("%s: darray size %d, expected %ld", path, tsize, nmine * 4);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL), "set_view");
        mu_ok(MPI_File_write_all(fh, mine, (int)nmine, MPI_INT, &st), "write_all");
        mu_count_is(&st, MPI_INT, (int)nmine, "write_all");
        int *back = mu_calloc((size_t)nmine + 1, sizeof(int));
        mu_ok(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek");
        mu_ok(MPI_File_read_all(fh, back, (int)nmine, MPI_INT, &st), "read_all");
        mu_count_is(&st, MPI_INT, (int)nmine, "read_all");
        mu_same(back, mine, (size_t)nmine * 4, path);
        /* Once more as one instance of the darray in memory terms: bytes. */
        mu_ok(MPI_File_read_at_all(fh, 0, back, tsize, MPI_BYTE, &st), "read_at_all bytes");
        mu_count_is(&st, MPI_BYTE, tsize, "read_at_all bytes");
        mu_same(back, mine, (size_t)nmine * 4, path);
        free(back);
        mu_ok(MPI_File_close(&fh), "close");
    }
    mu_check_file(path, (unsigned char *)img, (MPI_Offset)total * 4);
    MPI_Type_free(&ft);
    free(img);
    free(mine);
    free(owned);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    struct dist blk = {{N0, N1, N2},
                       {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
                       {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG,
                        MPI_DISTRIBUTE_DFLT_DARG},
                       {0, 0, 0},
                       MPI_ORDER_C};
    MPI_Dims_create(mu_nprocs, 3, blk.ps);
    run(mu_out, &blk);
    struct dist cyc = {{N0, N1, N2},
                       {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK},
                       {3, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG},
                       {mu_nprocs, 1, 1},
                       MPI_ORDER_FORTRAN};
    run(mu_path(".cyc"), &cyc);
    return mu_finish();
}
