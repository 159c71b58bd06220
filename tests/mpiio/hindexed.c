/* hindexed: an hindexed filetype with blocks of different lengths at byte
 * displacements (ranks interleaved: each rank's blocks sit in its own slot of
 * every 64-byte group), an hindexed memory type with gaps; collective write,
 * independent read of the whole view, then an independent read of only the
 * first blocks with a count that ends inside the filetype. */
#include "mpiio_util.h"

#include <stdlib.h>

#define NB 12
static const int len[NB] = {1, 3, 7, 16, 2, 9, 5, 11, 4, 8, 6, 10};

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    /* File: block b of rank p at b * G + p * 16 (length len[b] <= 16), G = 16 * np. */
    MPI_Aint G = 16 * (MPI_Aint)mu_nprocs, fdisp[NB], mdisp[NB];
    int total = 0;
    for (int b = 0; b < NB; b++) {
        fdisp[b] = b * G; /* the view's displacement adds rank * 16 */
        mdisp[b] = b * 20 + (b % 3); /* memory: gaps and odd alignments */
        total += len[b];
    }
    MPI_Datatype hf, ft, mt;
    MPI_Type_create_hindexed(NB, len, fdisp, MPI_BYTE, &hf);
    MPI_Type_create_resized(hf, 0, NB * G, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_create_hindexed(NB, len, mdisp, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    size_t msize = NB * 20 + 2;
    unsigned char *w = mu_calloc(msize, 1), *r = mu_calloc(msize, 1), *want = mu_calloc(msize, 1);
    size_t fsize = (size_t)NB * G;
    unsigned char *img = mu_calloc(fsize, 1);
    for (int p = 0; p < mu_nprocs; p++)
        for (int b = 0; b < NB; b++)
            mu_fill(img + b * G + p * 16, (size_t)len[b], p, b * G + p * 16);
    for (int b = 0; b < NB; b++)
        mu_fill(w + mdisp[b], (size_t)len[b], mu_rank, fdisp[b] + mu_rank * 16);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        /* Zeros first: no holes past EOF in the collective write (ROMIO's
         * read-modify-write would fill them with stale buffer bytes). */
        mu_ok(MPI_File_set_size(fh, (MPI_Offset)fsize), "set_size");
        mu_ok(MPI_File_set_view(fh, mu_rank * 16, MPI_BYTE, ft, "native", MPI_INFO_NULL),
              "set_view");
        mu_ok(MPI_File_write_all(fh, w, 1, mt, &st), "write_all");
        mu_count_is(&st, mt, 1, "write_all");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        mu_ok(MPI_File_read_at(fh, 0, r, 1, mt, &st), "read_at");
        mu_count_is(&st, mt, 1, "read_at");
        mu_same(r, w, msize, "read_at whole view");
        /* The first 20 data bytes (blocks 0-2 and 9 bytes of block 3), contiguous. */
        unsigned char part[20];
        mu_ok(MPI_File_read_at(fh, 0, part, 20, MPI_BYTE, &st), "read_at 20");
        mu_count_is(&st, MPI_BYTE, 20, "read_at 20");
        int k = 0;
        for (int b = 0; b < NB && k < 20; b++)
            for (int i = 0; i < len[b] && k < 20; i++)
                want[k++] = w[mdisp[b] + i];
        mu_same(part, want, 20, "read_at 20 data");
        /* Read another rank's view: displacement shifts to its slot. */
        int peer = (mu_rank + 1) % mu_nprocs;
        mu_ok(MPI_File_set_view(fh, peer * 16, MPI_BYTE, ft, "native", MPI_INFO_NULL),
              "set_view peer");
        mu_ok(MPI_File_read_at(fh, 0, r, 1, mt, &st), "read peer");
        for (int b = 0; b < NB; b++)
            mu_same(r + mdisp[b], img + b * G + peer * 16, (size_t)len[b], "peer block");
        mu_ok(MPI_File_close(&fh), "close");
    }
    mu_check_file(mu_out, img, (MPI_Offset)fsize);
    free(img);
    free(w);
    free(r);
    free(want);
    MPI_Type_free(&hf);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    return mu_finish();
}
