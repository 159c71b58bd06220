/* byte_blocks: file views of one-byte blocks (issue 27), every byte of the
 * file written by one rank, the ranks' bytes interleaved one by one.
 *   OUTPATH    filetype MPI_Type_vector(N, 1, np, MPI_BYTE) resized to N * np,
 *              displacement rank (rank r owns bytes r, r + np, ...); collective
 *              write_at_all, then read_at_all back
 *   OUTPATH.i  the same view; independent write_at, read_at back
 *   OUTPATH.x  an indexed filetype of one-byte blocks owned by rank
 *              own(b) (irregular: runs of one to three bytes of one rank, so
 *              some blocks touch); collective write_all, independent read
 * The files are compared with ROMIO's by compare.sh and with the image here. */
#include "mpiio_util.h"

#include <stdlib.h>

#define N 6000 /* bytes per rank in the vector views */
#define X 20000 /* file bytes of the indexed view */

static int own(long b)
{
    return (int)(((unsigned long)b * 2654435761u >> 7) % 3 + b / 3) % mu_nprocs;
}

static void vector_view(const char *path, int coll)
{
    int np = mu_nprocs;
    MPI_Datatype vec, ft;
    MPI_Type_vector(N, 1, np, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)N * np, &ft);
    MPI_Type_commit(&ft);
    unsigned char *w = mu_calloc(N, 1), *r = mu_calloc(N, 1);
    for (long i = 0; i < N; i++) w[i] = mu_byte(mu_rank, i * np + mu_rank);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_view(fh, mu_rank, MPI_BYTE, ft, "native", MPI_INFO_NULL), "set_view");
        if (coll) mu_ok(MPI_File_write_at_all(fh, 0, w, N, MPI_BYTE, &st), "write_at_all");
        else mu_ok(MPI_File_write_at(fh, 0, w, N, MPI_BYTE, &st), "write_at");
        mu_count_is(&st, MPI_BYTE, N, "write");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        if (coll) mu_ok(MPI_File_read_at_all(fh, 0, r, N, MPI_BYTE, &st), "read_at_all");
        else mu_ok(MPI_File_read_at(fh, 0, r, N, MPI_BYTE, &st), "read_at");
        mu_count_is(&st, MPI_BYTE, N, "read");
        mu_same(r, w, N, coll ? "read_at_all of one-byte blocks" : "read_at of one-byte blocks");
        mu_ok(MPI_File_close(&fh), "close");
    }
    size_t total = (size_t)N * np;
    unsigned char *img = mu_calloc(total, 1);
    for (size_t b = 0; b < total; b++) img[b] = mu_byte((int)(b % np), (long long)b);
    mu_check_file(path, img, (MPI_Offset)total);
    free(img);
    free(w);
    free(r);
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);
}

static void indexed_view(const char *path)
{
    int n = 0;
    int *len = mu_calloc(X, sizeof(int)), *disp = mu_calloc(X, sizeof(int));
    for (long b = 0; b < X; b++)
        if (own(b) == mu_rank) {
            len[n] = 1;
            disp[n++] = (int)b;
        }
    MPI_Datatype it, ft;
    MPI_Type_indexed(n, len, disp, MPI_BYTE, &it);
    MPI_Type_create_resized(it, 0, X, &ft);
    MPI_Type_commit(&ft);
    unsigned char *w = mu_calloc((size_t)n + 1, 1), *r = mu_calloc((size_t)n + 1, 1);
    for (int i = 0; i < n; i++) w[i] = mu_byte(mu_rank, disp[i]);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL), "set_view");
        mu_ok(MPI_File_write_all(fh, w, n, MPI_BYTE, &st), "write_all");
        mu_count_is(&st, MPI_BYTE, n, "write_all");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        mu_ok(MPI_File_read_at(fh, 0, r, n, MPI_BYTE, &st), "read_at");
        mu_count_is(&st, MPI_BYTE, n, "read_at");
        mu_same(r, w, (size_t)n, "read_at of indexed one-byte blocks");
        mu_ok(MPI_File_close(&fh), "close");
    }
    unsigned char *img = mu_calloc(X, 1);
    for (long b = 0; b < X; b++) img[b] = mu_byte(own(b), b); /* every byte has an owner */
    mu_check_file(path, img, X);
    free(img);
    free(w);
    free(r);
    free(len);
    free(disp);
    MPI_Type_free(&ft);
    MPI_Type_free(&it);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return 1;
    vector_view(mu_out, 1);
    vector_view(mu_path(".i"), 0);
    indexed_view(mu_path(".x"));
    return mu_finish();
}
