/* file_ops: the file's bookkeeping calls. get_amode, get_group (MPI_IDENT with
 * the communicator's group), get_atomicity, set_view / get_view (disp, etype,
 * filetype, datarep), get_type_extent, seek (SET, CUR, END) / get_position /
 * get_byte_offset through a vector view, a write whose count ends inside the
 * filetype, get_size, set_size (grow, shrink), preallocate (grow, no shrink),
 * sync, and writes placed with seek(SEEK_END) under a byte view. */
#include "mpiio_util.h"

#include <stdlib.h>
#include <string.h>

static void expect_off(MPI_Offset got, MPI_Offset want, const char *what)
{
    if (got != want)
        mu_fail("%s: %lld, expected %lld", what, (long long)got, (long long)want);
}

/* Byte offset of etype k in rank p's view: disp 64 + 8p, 2 ints per block, 4
 * blocks per tile, stride 2*np ints. */
static MPI_Offset boff(int p, MPI_Offset k)
{
    MPI_Offset tile = 8 * 4 * (MPI_Offset)mu_nprocs;
    return 64 + 8 * p + k / 8 * tile + (k % 8) / 2 * 8 * mu_nprocs + k % 2 * 4;
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    int np = mu_nprocs, amode = 0, flag = -1, cmp = -1;
    int mode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    MPI_File fh;
    MPI_Status st;
    if (!mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, mode, MPI_INFO_NULL, &fh), "open"))
        return mu_finish();
    mu_ok(MPI_File_get_amode(fh, &amode), "get_amode");
    expect_off(amode, mode, "get_amode");
    MPI_Group g, wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (mu_ok(MPI_File_get_group(fh, &g), "get_group")) {
        MPI_Group_compare(g, wg, &cmp);
        expect_off(cmp, MPI_IDENT, "get_group compare");
        MPI_Group_free(&g);
    }
    MPI_Group_free(&wg);
    mu_ok(MPI_File_get_atomicity(fh, &flag), "get_atomicity");
    expect_off(flag, 0, "get_atomicity");

    /* Zeros first: ROMIO's data sieving would fill holes past EOF inside a
     * rank's write with stale buffer bytes. */
    MPI_Offset end = boff(np - 1, 10) + 4, size = -1;
    mu_ok(MPI_File_set_size(fh, end), "set_size");
    MPI_Datatype vec, ft, et, gft;
    MPI_Type_vector(4, 2, 2 * np, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 8 * 4 * (MPI_Aint)np, &ft);
    MPI_Type_commit(&ft);
    MPI_Offset disp = 64 + 8 * (MPI_Offset)mu_rank, gd = -1, pos = -1, bo = -1;
    mu_ok(MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL), "set_view");
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    if (mu_ok(MPI_File_get_view(fh, &gd, &et, &gft, rep), "get_view")) {
        expect_off(gd, disp, "get_view disp");
        int ni, na, nd, comb = -1, sz = 0;
        MPI_Type_get_envelope(et, &ni, &na, &nd, &comb);
        expect_off(comb, MPI_COMBINER_NAMED, "etype combiner");
        expect_off(et == MPI_INT, 1, "etype is MPI_INT");
        MPI_Type_size(gft, &sz);
        expect_off(sz, 32, "filetype size");
        MPI_Aint lb, ext;
        MPI_Type_get_extent(gft, &lb, &ext);
        expect_off(ext, 32 * np, "filetype extent");
        if (strcmp(rep, "native") != 0)
            mu_fail("get_view datarep '%s'", rep);
        MPI_Type_get_envelope(gft, &ni, &na, &nd, &comb);
        if (comb != MPI_COMBINER_NAMED)
            MPI_Type_free(&gft);
    }
    MPI_Aint ext = 0;
    mu_ok(MPI_File_get_type_extent(fh, MPI_INT, &ext), "get_type_extent int");
    expect_off(ext, 4, "get_type_extent int");
    mu_ok(MPI_File_get_type_extent(fh, ft, &ext), "get_type_extent ft");
    expect_off(ext, 32 * np, "get_type_extent ft");
    mu_ok(MPI_File_seek(fh, 5, MPI_SEEK_SET), "seek set");
    mu_ok(MPI_File_get_position(fh, &pos), "get_position");
    expect_off(pos, 5, "position after seek 5");
    mu_ok(MPI_File_get_byte_offset(fh, pos, &bo), "get_byte_offset");
    expect_off(bo, boff(mu_rank, 5), "get_byte_offset(5)");
    int w[6], r[3];
    for (int k = 0; k < 6; k++)
        w[k] = mu_ival(mu_rank, 5 + k);
    mu_ok(MPI_File_write(fh, w, 6, MPI_INT, &st), "write 6 ints"); /* elements 5..10 */
    mu_count_is(&st, MPI_INT, 6, "write 6 ints");
    mu_ok(MPI_File_get_position(fh, &pos), "get_position");
    expect_off(pos, 11, "position after write");
    mu_ok(MPI_File_seek(fh, -3, MPI_SEEK_CUR), "seek cur");
    mu_ok(MPI_File_read(fh, r, 3, MPI_INT, &st), "read 3");
    mu_same(r, w + 3, sizeof r, "read after seek cur");
    mu_ok(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    mu_ok(MPI_File_sync(fh), "sync");
    mu_ok(MPI_File_get_size(fh, &size), "get_size");
    expect_off(size, end, "size after writes");
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked before the size changes */
    mu_ok(MPI_File_set_size(fh, end + 1000), "set_size grow");
    mu_ok(MPI_File_get_size(fh, &size), "get_size");
    expect_off(size, end + 1000, "size after grow");
    MPI_Barrier(MPI_COMM_WORLD);
    mu_ok(MPI_File_set_size(fh, 200), "set_size shrink");
    mu_ok(MPI_File_get_size(fh, &size), "get_size");
    expect_off(size, 200, "size after shrink");
    MPI_Barrier(MPI_COMM_WORLD);
    mu_ok(MPI_File_preallocate(fh, 300), "preallocate 300");
    mu_ok(MPI_File_preallocate(fh, 100), "preallocate 100");
    mu_ok(MPI_File_get_size(fh, &size), "get_size");
    expect_off(size, 300, "size after preallocate");
    /* A byte view: each rank seeks rank*10 past the end, all before anyone writes. */
    mu_ok(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "view bytes");
    mu_ok(MPI_File_seek(fh, 10 * (MPI_Offset)mu_rank, MPI_SEEK_END), "seek end");
    mu_ok(MPI_File_get_position(fh, &pos), "get_position");
    expect_off(pos, 300 + 10 * (MPI_Offset)mu_rank, "position after seek end");
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char tail[10];
    mu_fill(tail, 10, mu_rank, pos);
    mu_ok(MPI_File_write(fh, tail, 10, MPI_BYTE, &st), "write tail");
    mu_ok(MPI_File_close(&fh), "close");

    size_t total = 300 + 10 * (size_t)np;
    unsigned char *img = mu_calloc(total, 1);
    for (int p = 0; p < np; p++) {
        for (int k = 5; k <= 10; k++) {
            int v = mu_ival(p, k);
            MPI_Offset o = boff(p, k);
            for (int b = 0; b < 4; b++)
                if (o + b < 200)
                    img[o + b] = ((unsigned char *)&v)[b];
        }
        mu_fill(img + 300 + 10 * p, 10, p, 300 + 10 * p);
    }
    mu_check_file(mu_out, img, (MPI_Offset)total);
    free(img);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    return mu_finish();
}
