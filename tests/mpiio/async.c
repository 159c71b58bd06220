/* async: nonblocking explicit-offset I/O. K iwrite_at per rank (blocks
 * interleaved by rank) completed with MPI_Waitall, K iread_at of the next rank's
 * blocks completed with MPI_Test loops and MPI_Waitall; then MPI_File_iwrite_at_all
 * / iread_at_all (MPI 3.1) on OUTPATH.all; statuses checked with MPI_Get_count. */
#include "mpiio_util.h"

#include <stdlib.h>

#define K 8
#define BS 512

static MPI_Offset blk_off(int p, int k) { return ((MPI_Offset)k * mu_nprocs + p) * BS; }

static void check_image(const char *path, long nblk_per_rank, int bs)
{
    size_t total = (size_t)nblk_per_rank * mu_nprocs * bs;
    unsigned char *img = mu_calloc(total, 1);
    for (int p = 0; p < mu_nprocs; p++)
        for (int k = 0; k < nblk_per_rank; k++) {
            MPI_Offset off = ((MPI_Offset)k * mu_nprocs + p) * bs;
            mu_fill(img + off, (size_t)bs, p, off);
        }
    mu_check_file(path, img, (MPI_Offset)total);
    free(img);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    unsigned char *w = mu_calloc(K, BS), *r = mu_calloc(K, BS), *want = mu_calloc(K, BS);
    MPI_Request req[K];
    MPI_Status st[K];
    MPI_File fh;
    for (int k = 0; k < K; k++)
        mu_fill(w + (size_t)k * BS, BS, mu_rank, blk_off(mu_rank, k));
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        for (int k = 0; k < K; k++)
            mu_ok(MPI_File_iwrite_at(fh, blk_off(mu_rank, k), w + (size_t)k * BS, BS, MPI_BYTE,
                                     &req[k]), "iwrite_at");
        mu_ok(MPI_Waitall(K, req, st), "Waitall writes");
        for (int k = 0; k < K; k++)
            mu_count_is(&st[k], MPI_BYTE, BS, "iwrite_at status");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        int peer = (mu_rank + 1) % mu_nprocs;
        for (int k = 0; k < K; k++) {
            mu_fill(want + (size_t)k * BS, BS, peer, blk_off(peer, k));
            mu_ok(MPI_File_iread_at(fh, blk_off(peer, k), r + (size_t)k * BS, BS, MPI_BYTE,
                                    &req[k]), "iread_at");
        }
        int flag = 0;
        for (int spin = 0; spin < 1000000 && !flag; spin++)
            mu_ok(MPI_Test(&req[0], &flag, &st[0]), "Test");
        if (!flag)
            mu_ok(MPI_Wait(&req[0], &st[0]), "Wait");
        mu_count_is(&st[0], MPI_BYTE, BS, "iread_at status (Test)");
        mu_ok(MPI_Waitall(K - 1, req + 1, st + 1), "Waitall reads");
        for (int k = 1; k < K; k++)
            mu_count_is(&st[k], MPI_BYTE, BS, "iread_at status");
        mu_same(r, want, (size_t)K * BS, "iread_at data");
        mu_ok(MPI_File_close(&fh), "close");
    }
    check_image(mu_out, K, BS);

    /* Nonblocking collectives: one block of 3*BS per rank. */
    const char *all = mu_path(".all");
    MPI_Offset off = (MPI_Offset)mu_rank * 3 * BS;
    unsigned char *w3 = mu_calloc(3, BS), *r3 = mu_calloc(3, BS);
    mu_fill(w3, 3 * BS, mu_rank, off);
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, all, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh), "open .all")) {
        mu_ok(MPI_File_iwrite_at_all(fh, off, w3, 3 * BS, MPI_BYTE, &req[0]), "iwrite_at_all");
        mu_ok(MPI_Wait(&req[0], &st[0]), "Wait iwrite_at_all");
        mu_count_is(&st[0], MPI_BYTE, 3 * BS, "iwrite_at_all status");
        mu_ok(MPI_File_iread_at_all(fh, off, r3, 3, MPI_INT, &req[0]), "iread_at_all");
        mu_ok(MPI_Wait(&req[0], &st[0]), "Wait iread_at_all");
        mu_count_is(&st[0], MPI_INT, 3, "iread_at_all status");
        mu_same(r3, w3, 12, "iread_at_all data");
        mu_ok(MPI_File_close(&fh), "close .all");
    }
    check_image(all, 1, 3 * BS);
    free(w);
    free(r);
    free(want);
    free(w3);
    free(r3);
    return mu_finish();
}
