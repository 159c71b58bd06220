/* psimple: simple.c through the profiling names (PMPI_File_*): each rank
 * writes its own file OUTPATH.rN on MPI_COMM_SELF (write, seek, read, explicit
 * offsets), then all ranks write disjoint blocks of one shared file OUTPATH
 * with write_at and read it back. Under libostio-mpiio the PMPI names reach the
 * MPI library directly, so these files are ROMIO's in every run. */
#include "mpiio_util.h"

#include <stdio.h>
#include <stdlib.h>

#define N 4000 /* bytes per rank */

static void own_file(void)
{
    char sfx[32];
    snprintf(sfx, sizeof sfx, ".r%d", mu_rank);
    const char *path = mu_path(sfx);
    unsigned char *w = mu_calloc(N, 1), *r = mu_calloc(N, 1);
    MPI_File fh;
    MPI_Status st;
    mu_fill(w, N, mu_rank, 0);
    if (mu_ok(PMPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open own")) {
        mu_ok(PMPI_File_write(fh, w, N / 2, MPI_BYTE, &st), "write first half");
        mu_count_is(&st, MPI_BYTE, N / 2, "write first half");
        mu_ok(PMPI_File_write(fh, w + N / 2, N / 2, MPI_BYTE, &st), "write second half");
        mu_ok(PMPI_File_seek(fh, 0, MPI_SEEK_SET), "seek 0");
        mu_ok(PMPI_File_read(fh, r, N, MPI_BYTE, &st), "read");
        mu_count_is(&st, MPI_BYTE, N, "read");
        mu_same(r, w, N, "own file read");
        MPI_Offset size = 0;
        mu_ok(PMPI_File_get_size(fh, &size), "get_size own");
        if (size != N)
            mu_fail("own file size %lld, expected %d", (long long)size, N);
        /* Overwrite the middle with explicit offsets, read it back. */
        mu_fill(w + 100, 200, mu_rank + 50, 100);
        mu_ok(PMPI_File_write_at(fh, 100, w + 100, 200, MPI_BYTE, &st), "write_at own");
        mu_ok(PMPI_File_read_at(fh, 0, r, N, MPI_BYTE, &st), "read_at own");
        mu_same(r, w, N, "own file after write_at");
        mu_ok(PMPI_File_close(&fh), "close own");
    }
    free(w);
    free(r);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    own_file();

    MPI_File fh;
    MPI_Status st;
    unsigned char *img = mu_calloc((size_t)N * mu_nprocs, 1);
    for (int p = 0; p < mu_nprocs; p++)
        mu_fill(img + (size_t)p * N, N, p, (long long)p * N);
    if (mu_ok(PMPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open shared")) {
        unsigned char *mine = img + (size_t)mu_rank * N;
        mu_ok(PMPI_File_write_at(fh, (MPI_Offset)mu_rank * N, mine, N, MPI_BYTE, &st),
              "write_at shared");
        mu_count_is(&st, MPI_BYTE, N, "write_at shared");
        mu_ok(PMPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(PMPI_File_sync(fh), "sync");
        /* Read the next rank's block. */
        int peer = (mu_rank + 1) % mu_nprocs;
        unsigned char *r = mu_calloc(N, 1);
        mu_ok(PMPI_File_read_at(fh, (MPI_Offset)peer * N, r, N, MPI_BYTE, &st), "read peer");
        mu_count_is(&st, MPI_BYTE, N, "read peer");
        mu_same(r, img + (size_t)peer * N, N, "peer block");
        free(r);
        mu_ok(PMPI_File_close(&fh), "close shared");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    mu_check_file(mu_out, img, (MPI_Offset)N * mu_nprocs);
    free(img);
    return mu_finish();
}
