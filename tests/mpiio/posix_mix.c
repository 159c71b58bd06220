/* posix_mix: POSIX calls on the path of an MPI-IO file, in the shape of
 * PnetCDF's ncmpi_create (NC_CLOBBER) and ncmpi_open (issue 28 item 3).
 *
 *  1. every rank writes a first image (a 4-byte "CDF\5" signature, then
 *     rank-tagged blocks) with MPI_File_write_at_all, close;
 *  2. rank 0 reads the signature with open() + read() (PnetCDF's format
 *     check), then lseek() to 512 and read() again (its HDF5 signature
 *     search), stat() gives the first image's size;
 *  3. "create with clobber": rank 0 access(F_OK) then truncate(path, 0),
 *     stat() size 0; MPI_File_open(CREATE|RDWR) on every rank, a shorter
 *     second image written, close;
 *  4. rank 0 open()+read() of the whole file, bytes and stat size checked;
 *     every rank reads it back through MPI-IO.
 *
 * Under libostio-mpiio.so alone a container path is a directory for the
 * POSIX calls (open EISDIR, truncate EISDIR): they fail. With
 * libostio-preload.so loaded too, the interposer's paths are served for
 * POSIX calls (docs/mpiio.md, "POSIX calls on the same files"). */
#define _GNU_SOURCE /* truncate */
#include "mpiio_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLK1 3000 /* bytes per rank, first image  */
#define BLK2 700  /* bytes per rank, second image */

static void image(unsigned char *img, int blk, int tag)
{
    for (int p = 0; p < mu_nprocs; p++)
        mu_fill(img + (size_t)p * blk, (size_t)blk, p + tag, (long long)p * blk);
    memcpy(img, "CDF\5", 4);
}

static void write_image(const unsigned char *img, int blk, int amode)
{
    MPI_File fh;
    MPI_Status st;
    if (!mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, amode, MPI_INFO_NULL, &fh), "open"))
        return;
    mu_ok(MPI_File_write_at_all(fh, (MPI_Offset)mu_rank * blk, img + (size_t)mu_rank * blk, blk,
                                MPI_BYTE, &st),
          "write_at_all");
    mu_ok(MPI_File_close(&fh), "close");
}

/* rank 0: open() + read() of n bytes at off, compared with want. */
static void posix_read(const unsigned char *want, size_t n, off_t off, const char *what)
{
    unsigned char *got = mu_calloc(n, 1);
    int fd = open(mu_out, O_RDONLY, 0400);
    if (fd < 0) {
        mu_fail("%s: open(%s): %s", what, mu_out, strerror(errno));
        free(got);
        return;
    }
    if (off && lseek(fd, off, SEEK_SET) != off)
        mu_fail("%s: lseek %lld: %s", what, (long long)off, strerror(errno));
    size_t done = 0;
    while (done < n) {
        ssize_t r = read(fd, got + done, n - done);
        if (r <= 0) {
            mu_fail("%s: read at %zu returned %zd (%s)", what, done, r, r < 0 ? strerror(errno) : "EOF");
            break;
        }
        done += (size_t)r;
    }
    if (done == n)
        mu_same(got, want, n, what);
    if (close(fd) != 0)
        mu_fail("%s: close: %s", what, strerror(errno));
    free(got);
}

static void stat_size(long long want, const char *what)
{
    struct stat st;
    if (stat(mu_out, &st) != 0)
        mu_fail("%s: stat: %s", what, strerror(errno));
    else if (!S_ISREG(st.st_mode) || (long long)st.st_size != want)
        mu_fail("%s: stat: mode 0%o size %lld, expected a regular file of %lld bytes", what,
                (unsigned)st.st_mode, (long long)st.st_size, want);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    size_t n1 = (size_t)BLK1 * mu_nprocs, n2 = (size_t)BLK2 * mu_nprocs;
    unsigned char *img1 = mu_calloc(n1, 1), *img2 = mu_calloc(n2, 1);
    image(img1, BLK1, 0);
    image(img2, BLK2, 40);

    write_image(img1, BLK1, MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mu_rank == 0) { /* ncmpi_open's format check */
        posix_read(img1, 8, 0, "signature");
        posix_read(img1 + 512, 8, 512, "bytes at 512");
        stat_size((long long)n1, "first image");
    }
    /* ncmpi_create(NC_CLOBBER): rank 0 truncates, everyone waits */
    int err = 0;
    if (mu_rank == 0) {
        if (access(mu_out, F_OK) != 0) {
            mu_fail("access(F_OK): %s", strerror(errno));
        } else if (truncate(mu_out, 0) != 0) {
            mu_fail("truncate(path, 0): %s", strerror(errno));
        } else {
            stat_size(0, "after truncate");
        }
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
    write_image(img2, BLK2, MPI_MODE_CREATE | MPI_MODE_RDWR);
    MPI_Barrier(MPI_COMM_WORLD);
    if (mu_rank == 0) {
        posix_read(img2, n2, 0, "second image by read()");
        stat_size((long long)n2, "second image");
    }
    mu_check_file(mu_out, img2, (MPI_Offset)n2);
    free(img1);
    free(img2);
    return mu_finish();
}
