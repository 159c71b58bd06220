/* resized: MPI_Type_create_resized in file and memory.
 *   OUTPATH    filetype: B ints at byte 16 + rank*4B, resized to lb 0, extent
 *              np*4B (so the file starts with a 16-byte hole); memory: MPI_INT
 *              resized to lb -4, extent 8 (every other int); collective write,
 *              independent read. (A filetype with lb != 0 is left out: ROMIO
 *              (MPICH 4.0) shifts such a view by the lb, against MPI's tiling.)
 *   OUTPATH.b  filetype: a vector of 3 x 2 ints resized to a larger extent (a gap
 *              of 4 ints after every tile); independent write, collective read */
#include "mpiio_util.h"

#include <stdlib.h>

#define B 10
#define T 6 /* tiles */

static void first(void)
{
    int np = mu_nprocs;
    MPI_Aint ext = (MPI_Aint)np * 4 * B;
    MPI_Aint d = 16 + (MPI_Aint)mu_rank * 4 * B;
    int one = B;
    MPI_Datatype in, ft, mt;
    MPI_Type_create_hindexed(1, &one, &d, MPI_INT, &in);
    MPI_Type_create_resized(in, 0, ext, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_create_resized(MPI_INT, -4, 8, &mt);
    MPI_Type_commit(&mt);
    int n = B * T;
    int *w = mu_calloc(2 * (size_t)n, sizeof(int)), *r = mu_calloc(2 * (size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        w[2 * i] = mu_ival(mu_rank, i);
        w[2 * i + 1] = -1;
        r[2 * i + 1] = -1;
    }
    MPI_Aint lb, e;
    MPI_Type_get_extent(ft, &lb, &e);
    if (lb != 0 || e != ext)
        mu_fail("resized filetype lb %ld extent %ld", (long)lb, (long)e);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL), "set_view");
        MPI_Offset bo = -1;
        mu_ok(MPI_File_get_byte_offset(fh, B + 1, &bo), "get_byte_offset");
        if (bo != 16 + ext + (MPI_Aint)mu_rank * 4 * B + 4)
            mu_fail("get_byte_offset(%d) = %lld", B + 1, (long long)bo);
        mu_ok(MPI_File_write_all(fh, w, n, mt, &st), "write_all");
        mu_count_is(&st, mt, n, "write_all");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        mu_ok(MPI_File_read_at(fh, 0, r, n, mt, &st), "read_at");
        mu_count_is(&st, mt, n, "read_at");
        mu_same(r, w, 2 * (size_t)n * sizeof(int), "read_at resized");
        mu_ok(MPI_File_close(&fh), "close");
    }
    size_t total = 16 + (size_t)ext * T; /* the last rank's data end 16 bytes into tile T */
    unsigned char *img = mu_calloc(total, 1);
    for (int p = 0; p < np; p++)
        for (int i = 0; i < n; i++)
            ((int *)(img + 16 + (size_t)(i / B) * ext + (size_t)p * 4 * B))[i % B] = mu_ival(p, i);
    mu_check_file(mu_out, img, (MPI_Offset)total);
    free(img);
    free(w);
    free(r);
    MPI_Type_free(&in);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
}

static void second(void)
{
    const char *path = mu_path(".b");
    int np = mu_nprocs;
    MPI_Datatype vec, ft;
    MPI_Type_vector(3, 2, 2 * np, MPI_INT, &vec);
    MPI_Aint ext = (MPI_Aint)(3 * 2 * np + 4) * 4;
    MPI_Type_create_resized(vec, 0, ext, &ft);
    MPI_Type_commit(&ft);
    int n = 6 * T;
    int *w = mu_calloc((size_t)n, sizeof(int)), *r = mu_calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++)
        w[i] = mu_ival(mu_rank, 1000 + i);
    size_t total = (size_t)ext * T;
    unsigned char *img = mu_calloc(total, 1);
    for (int p = 0; p < np; p++)
        for (int i = 0; i < n; i++) {
            int t = i / 6, k = i % 6;
            size_t off = (size_t)t * ext + ((size_t)(k / 2) * 2 * np + (size_t)p * 2 + k % 2) * 4;
            *(int *)(img + off) = mu_ival(p, 1000 + i);
        }
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open .b")) {
        mu_ok(MPI_File_set_size(fh, (MPI_Offset)total), "set_size"); /* gaps are zeros */
        mu_ok(MPI_File_set_view(fh, (MPI_Offset)mu_rank * 8, MPI_INT, ft, "native", MPI_INFO_NULL),
              "set_view .b");
        mu_ok(MPI_File_write(fh, w, n, MPI_INT, &st), "write .b");
        mu_count_is(&st, MPI_INT, n, "write .b");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        mu_ok(MPI_File_read_at_all(fh, 0, r, n, MPI_INT, &st), "read_at_all .b");
        mu_count_is(&st, MPI_INT, n, "read_at_all .b");
        mu_same(r, w, (size_t)n * sizeof(int), "read_at_all .b");
        mu_ok(MPI_File_close(&fh), "close .b");
    }
    mu_check_file(path, img, (MPI_Offset)total);
    free(img);
    free(w);
    free(r);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    first();
    second();
    return mu_finish();
}
