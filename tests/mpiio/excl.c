/* excl: access modes and their error classes (the harness gives a fresh directory).
 *   delete of a missing file, open of a missing file without CREATE -> MPI_ERR_NO_SUCH_FILE
 *   CREATE|EXCL on a new file works; again on the existing file -> MPI_ERR_FILE_EXISTS;
 *   after MPI_File_delete it works again (new, shorter content)
 *   RDONLY|CREATE -> MPI_ERR_AMODE; write to a RDONLY file -> MPI_ERR_READ_ONLY
 *   (ROMIO, Open MPI) or MPI_ERR_ACCESS (libostio-mpiio; MPI names neither for
 *   this case), rank 0 prints which; read from a WRONLY file -> MPI_ERR_ACCESS
 *   DELETE_ON_CLOSE (OUTPATH.doc) leaves no file; get_amode returns the mode. */
#include "mpiio_util.h"

#include <stdlib.h>

static void write_blocks(MPI_File fh, int n, long long salt)
{
    unsigned char *w = mu_calloc((size_t)n, 1);
    MPI_Status st;
    mu_fill(w, (size_t)n, mu_rank, salt);
    mu_ok(MPI_File_write_at_all(fh, (MPI_Offset)mu_rank * n, w, n, MPI_BYTE, &st), "write_at_all");
    free(w);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    MPI_File fh;
    MPI_Status st;
    int amode = 0;
    if (mu_rank == 0)
        mu_expect_class(MPI_File_delete(mu_out, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE,
                        "delete missing");
    mu_expect_class(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                    MPI_ERR_NO_SUCH_FILE, "open missing");
    int m1 = MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, m1, MPI_INFO_NULL, &fh), "open excl new")) {
        mu_ok(MPI_File_get_amode(fh, &amode), "get_amode");
        if (amode != m1)
            mu_fail("get_amode %d, expected %d", amode, m1);
        write_blocks(fh, 3000, 0);
        unsigned char r[4];
        mu_expect_class(MPI_File_read_at(fh, 0, r, 4, MPI_BYTE, &st), MPI_ERR_ACCESS,
                        "read WRONLY");
        mu_ok(MPI_File_close(&fh), "close 1");
    }
    int m2 = MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR;
    mu_expect_class(MPI_File_open(MPI_COMM_WORLD, mu_out, m2, MPI_INFO_NULL, &fh),
                    MPI_ERR_FILE_EXISTS, "open excl existing");
    mu_expect_class(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                                  MPI_INFO_NULL, &fh), MPI_ERR_AMODE, "RDONLY|CREATE");
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              "open rdonly")) {
        unsigned char w[4] = {1, 2, 3, 4};
        int rc = MPI_File_write_at(fh, 0, w, 4, MPI_BYTE, &st), cls = mu_class(rc);
        if (cls == MPI_ERR_ACCESS)
            mu_note("write on a read-only open: MPI_ERR_ACCESS");
        else if (mu_expect_class(rc, MPI_ERR_READ_ONLY, "write RDONLY"))
            mu_note("write on a read-only open: MPI_ERR_READ_ONLY");
        mu_ok(MPI_File_close(&fh), "close rdonly");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (mu_rank == 0)
        mu_ok(MPI_File_delete(mu_out, MPI_INFO_NULL), "delete");
    MPI_Barrier(MPI_COMM_WORLD);
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, m2, MPI_INFO_NULL, &fh), "open excl again")) {
        write_blocks(fh, 1000, 77);
        mu_ok(MPI_File_close(&fh), "close 2");
    }
    unsigned char *img = mu_calloc((size_t)mu_nprocs, 1000);
    for (int p = 0; p < mu_nprocs; p++)
        mu_fill(img + (size_t)p * 1000, 1000, p, 77);
    mu_check_file(mu_out, img, (MPI_Offset)mu_nprocs * 1000);
    free(img);

    const char *doc = mu_path(".doc");
    int m3 = MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, doc, m3, MPI_INFO_NULL, &fh), "open delete_on_close")) {
        write_blocks(fh, 500, 5);
        mu_ok(MPI_File_close(&fh), "close delete_on_close");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_File_open(MPI_COMM_WORLD, doc, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (mu_expect_class(rc, MPI_ERR_NO_SUCH_FILE, "open after delete_on_close") == 0 &&
        rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    return mu_finish();
}
