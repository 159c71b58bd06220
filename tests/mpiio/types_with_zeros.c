/* types_with_zeros: zero-length blocks in indexed types, in the file (first,
 * middle and last blocks empty) and in memory, a struct with an empty member,
 * zero counts and a zero-size type (no bytes move, the size stays). */
#include "mpiio_util.h"

#include <stdlib.h>

#define T 3 /* tiles */
static const int flen[8] = {0, 3, 0, 0, 5, 0, 2, 0};
static const int fdsp[8] = {0, 1, 4, 4, 6, 11, 12, 15}; /* ints; 10 ints of 16 */
static const int mlen[6] = {2, 0, 4, 0, 0, 4};
static const int mdsp[6] = {0, 3, 3, 8, 8, 9}; /* ints; 10 ints of 13 */

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    int np = mu_nprocs;
    MPI_Datatype idx, ft, mt, st2, empty;
    MPI_Type_indexed(8, flen, fdsp, MPI_INT, &idx);
    MPI_Type_create_resized(idx, 0, 16 * 4 * (MPI_Aint)np, &ft); /* view disp: rank * 64 */
    MPI_Type_commit(&ft);
    MPI_Type_indexed(6, mlen, mdsp, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    int bl[3] = {0, 1, 0};
    MPI_Aint sd[3] = {0, 8, 16};
    MPI_Datatype sty[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
    MPI_Type_create_struct(3, bl, sd, sty, &st2); /* one int at byte 8 */
    MPI_Type_commit(&st2);
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    int mext = 13; /* ints per memory instance */
    int *w = mu_calloc((size_t)mext * T + 4, sizeof(int));
    int *r = mu_calloc((size_t)mext * T + 4, sizeof(int));
    int *want = mu_calloc((size_t)mext * T + 4, sizeof(int));
    long s = 0;
    for (int t = 0; t < T; t++)
        for (int b = 0; b < 6; b++)
            for (int i = 0; i < mlen[b]; i++, s++)
                w[t * mext + mdsp[b] + i] = want[t * mext + mdsp[b] + i] = mu_ival(mu_rank, s);
    size_t total = (size_t)64 * np * T + 12; /* the struct's int goes at total - 12 */
    int *img = mu_calloc(total / 4, sizeof(int));
    for (int p = 0; p < np; p++) {
        long k = 0;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < 8; b++)
                for (int i = 0; i < flen[b]; i++, k++)
                    img[(t * np + p) * 16 + fdsp[b] + i] = mu_ival(p, k);
    }
    img[(total - 12) / 4] = mu_ival(0, 99999);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_size(fh, (MPI_Offset)total - 12), "set_size"); /* holes are zeros */
        mu_ok(MPI_File_set_view(fh, (MPI_Offset)mu_rank * 64, MPI_INT, ft, "native", MPI_INFO_NULL),
              "set_view");
        mu_ok(MPI_File_write_all(fh, w, T, mt, &st), "write_all");
        mu_count_is(&st, mt, T, "write_all");
        mu_ok(MPI_File_write_all(fh, w, 0, mt, &st), "write_all count 0");
        mu_count_is(&st, mt, 0, "write_all count 0");
        mu_ok(MPI_File_write_at(fh, 1000000, w, 5, empty, &st), "write_at zero-size type");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Offset size = -1;
        mu_ok(MPI_File_get_size(fh, &size), "get_size");
        if (size != (MPI_Offset)total - 12)
            mu_fail("size %lld after the empty writes, expected %lld", (long long)size,
                    (long long)total - 12);
        for (int k = 0; k < mext * T + 4; k++)
            r[k] = want[k] = w[k] ? w[k] : -5;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < 6; b++)
                for (int i = 0; i < mlen[b]; i++)
                    r[t * mext + mdsp[b] + i] = 0;
        mu_ok(MPI_File_read_at(fh, 0, r, T, mt, &st), "read_at");
        mu_count_is(&st, mt, T, "read_at");
        mu_same(r, want, ((size_t)mext * T + 4) * sizeof(int), "read_at (data and gaps)");
        mu_ok(MPI_File_read_at(fh, 0, r, 0, mt, &st), "read_at count 0");
        mu_count_is(&st, mt, 0, "read_at count 0");
        /* The struct: one int, at the int after the last tile (rank 0). */
        mu_ok(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "view bytes");
        int v[6] = {0, 0, mu_ival(0, 99999), 0, 0, 0};
        if (mu_rank == 0)
            mu_ok(MPI_File_write_at(fh, (MPI_Offset)total - 12, v, 1, st2, &st), "write struct");
        mu_ok(MPI_File_close(&fh), "close");
    }
    mu_check_file(mu_out, (unsigned char *)img, (MPI_Offset)total - 8);
    free(img);
    free(w);
    free(r);
    free(want);
    MPI_Type_free(&idx);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    MPI_Type_free(&st2);
    MPI_Type_free(&empty);
    return mu_finish();
}
