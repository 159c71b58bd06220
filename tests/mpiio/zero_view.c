/* zero_view: a filetype that holds no data (issue 28). PnetCDF gives a rank
 * with no part of a request such a view; MPI allows it. Odd ranks set a
 * zero-size filetype built one of several ways, even ranks a byte view at
 * 100 + 24 * (rank / 2); then the collective and independent calls, count 0
 * on the zero-view ranks. The data ranks' bytes must land past 100 and
 * nothing at 0..99: a refused or ignored zero view leaves the old view (disp
 * 0) in use on some rank, and bytes land at 0. One file per construction. */
#include "mpiio_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NKIND 6
#define BLK 24 /* bytes per data rank: write_at_all, write_all, write_at */

static const char *kind_name[NKIND] = {"contiguous(0)", "struct(0)", "indexed zero lengths",
                                       "resized zero-size to extent 16", "vector(0)",
                                       "hindexed zero lengths, etype int"};

static MPI_Datatype zero_type(int k, MPI_Datatype *etype)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, base;
    int bl[3] = {0, 0, 0}, dsp[3] = {0, 4, 8};
    MPI_Aint adsp[3] = {0, 16, 32};
    MPI_Datatype sty[1] = {MPI_INT};
    *etype = MPI_BYTE;
    switch (k) {
    case 0: MPI_Type_contiguous(0, MPI_BYTE, &t); break;
    case 1: MPI_Type_create_struct(0, bl, adsp, sty, &t); break;
    case 2: MPI_Type_indexed(3, bl, dsp, MPI_INT, &t); break;
    case 3:
        MPI_Type_contiguous(0, MPI_INT, &base);
        MPI_Type_create_resized(base, 0, 16, &t);
        MPI_Type_free(&base);
        break;
    case 4: MPI_Type_vector(0, 1, 2, MPI_INT, &t); break;
    default:
        MPI_Type_create_hindexed(3, bl, adsp, MPI_INT, &t);
        *etype = MPI_INT;
        break;
    }
    MPI_Type_commit(&t);
    int size = -1;
    MPI_Type_size(t, &size);
    if (size != 0)
        mu_fail("%s: size %d, expected 0", kind_name[k], size);
    return t;
}

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, comb = -1;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

static MPI_Offset data_disp(int rank) { return 100 + (MPI_Offset)BLK * (rank / 2); }

static void one_kind(int k)
{
    MPI_Datatype et, zt = zero_type(k, &et);
    int zero = mu_rank % 2 == 1;
    int ndata = (mu_nprocs + 1) / 2;
    MPI_Offset total = data_disp(2 * (ndata - 1)) + BLK;
    unsigned char *img = mu_calloc((size_t)total, 1);
    for (int p = 0; p < mu_nprocs; p += 2)
        mu_fill(img + data_disp(p), BLK, p, data_disp(p));
    unsigned char w[BLK], r[BLK];
    mu_fill(w, BLK, mu_rank, data_disp(mu_rank));
    char suffix[16];
    snprintf(suffix, sizeof suffix, ".%d", k);
    const char *path = mu_path(suffix);
    MPI_File fh;
    MPI_Status st;
    int n = zero ? 0 : 8;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        int rc = zero ? MPI_File_set_view(fh, 0, et, zt, "native", MPI_INFO_NULL)
                      : MPI_File_set_view(fh, data_disp(mu_rank), MPI_BYTE, MPI_BYTE, "native",
                                          MPI_INFO_NULL);
        if (!mu_ok(rc, kind_name[k]))
            mu_fail("set_view of %s refused", kind_name[k]);
        mu_ok(MPI_File_write_at_all(fh, 0, w, n, MPI_BYTE, &st), "write_at_all");
        mu_count_is(&st, MPI_BYTE, n, "write_at_all");
        /* write_all from position 8 (the zero-view ranks' position stays 0). */
        if (!zero)
            mu_ok(MPI_File_seek(fh, 8, MPI_SEEK_SET), "seek 8");
        mu_ok(MPI_File_write_all(fh, w + 8, n, MPI_BYTE, &st), "write_all");
        mu_count_is(&st, MPI_BYTE, n, "write_all");
        /* Independent: data at 16 on the data ranks, count 0 on the others. */
        mu_ok(MPI_File_write_at(fh, 16, w + 16, n, MPI_BYTE, &st), "write_at");
        mu_count_is(&st, MPI_BYTE, n, "write_at");
        mu_ok(MPI_File_write(fh, w, 0, MPI_BYTE, &st), "write count 0");
        mu_count_is(&st, MPI_BYTE, 0, "write count 0");
        mu_ok(MPI_File_read_at(fh, 0, r, 0, MPI_BYTE, &st), "read_at count 0");
        mu_count_is(&st, MPI_BYTE, 0, "read_at count 0");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Offset pos = -1, size = -1;
        mu_ok(MPI_File_get_position(fh, &pos), "get_position");
        if (pos != (zero ? 0 : 16))
            mu_fail("%s: position %lld after the writes, expected %d", kind_name[k],
                    (long long)pos, zero ? 0 : 16);
        mu_ok(MPI_File_get_size(fh, &size), "get_size");
        if (size != total)
            mu_fail("%s: size %lld, expected %lld", kind_name[k], (long long)size,
                    (long long)total);
        /* read_all back: all BLK bytes on the data ranks, none on the others. */
        memset(r, 0, sizeof r);
        mu_ok(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek 0");
        mu_ok(MPI_File_read_all(fh, r, zero ? 0 : BLK, MPI_BYTE, &st), "read_all");
        mu_count_is(&st, MPI_BYTE, zero ? 0 : BLK, "read_all");
        if (!zero)
            mu_same(r, w, BLK, "read_all");
        mu_ok(MPI_File_read_at_all(fh, 0, r, zero ? 0 : 8, MPI_BYTE, &st), "read_at_all");
        mu_count_is(&st, MPI_BYTE, zero ? 0 : 8, "read_at_all");
        /* get_view gives back a zero-size filetype. */
        MPI_Offset disp = -1;
        MPI_Datatype ge, gf;
        char rep[MPI_MAX_DATAREP_STRING + 1] = "";
        if (mu_ok(MPI_File_get_view(fh, &disp, &ge, &gf, rep), "get_view")) {
            int fs = -1;
            MPI_Type_size(gf, &fs);
            if (disp != (zero ? 0 : data_disp(mu_rank)) || (fs == 0) != zero)
                mu_fail("%s: get_view disp %lld filetype size %d", kind_name[k],
                        (long long)disp, fs);
            if (!is_named(ge))
                MPI_Type_free(&ge);
            if (!is_named(gf))
                MPI_Type_free(&gf);
        }
        mu_ok(MPI_File_close(&fh), "close");
    }
    mu_check_file(path, img, total);
    free(img);
    MPI_Type_free(&zt);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    for (int k = 0; k < NKIND; k++)
        one_kind(k);
    return mu_finish();
}
