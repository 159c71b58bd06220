/* status: MPI_Get_count / MPI_Get_elements on the statuses of reads and writes.
 * Rank 0 writes 1000 bytes; every rank then reads whole counts, a derived type
 * (3 ints), reads past EOF that return fewer bytes (a partial type: MPI_UNDEFINED
 * count, whole elements), reads at EOF (0), a collective read past EOF, and counts
 * that end inside the filetype of a vector view (OUTPATH.v, written by all). */
#include "mpiio_util.h"

#include <stdlib.h>
#include <string.h>

#define SZ 1000

static void elements_are(const MPI_Status *st, MPI_Datatype t, int want, const char *what)
{
    int got = -12345;
    if (mu_ok(MPI_Get_elements(st, t, &got), what) && got != want)
        mu_fail("%s: MPI_Get_elements %d, expected %d", what, got, want);
    MPI_Count gx = -1;
    if (mu_ok(MPI_Get_elements_x(st, t, &gx), what) && gx != want)
        mu_fail("%s: MPI_Get_elements_x %lld, expected %d", what, (long long)gx, want);
}

static void read_case(MPI_File fh, MPI_Offset off, int count, MPI_Datatype t, int want_count,
                      int want_elems, MPI_Datatype et, const unsigned char *img, const char *what)
{
    unsigned char buf[64];
    MPI_Status st;
    memset(buf, 0, sizeof buf);
    if (!mu_ok(MPI_File_read_at(fh, off, buf, count, t, &st), what))
        return;
    mu_count_is(&st, t, want_count, what);
    elements_are(&st, et, want_elems, what);
    int nb = 0;
    MPI_Get_count(&st, MPI_BYTE, &nb);
    if (nb > 0)
        mu_same(buf, img + off, (size_t)nb, what);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    unsigned char img[SZ + 64];
    memset(img, 0, sizeof img);
    mu_fill(img, SZ, 0, 0);
    MPI_Datatype t3;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        if (mu_rank == 0) {
            mu_ok(MPI_File_write_at(fh, 0, img, SZ / 4, MPI_INT, &st), "write");
            mu_count_is(&st, MPI_INT, SZ / 4, "write");
            elements_are(&st, MPI_INT, SZ / 4, "write");
        }
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        read_case(fh, 0, 10, MPI_INT, 10, 10, MPI_INT, img, "10 ints");
        read_case(fh, 100, 2, t3, 2, 6, MPI_INT, img, "2 x 3 ints");
        read_case(fh, 990, 5, MPI_INT, MPI_UNDEFINED, MPI_UNDEFINED, MPI_INT, img,
                  "past EOF, 10 of 20 bytes");
        read_case(fh, 990, 20, MPI_BYTE, 10, 10, MPI_BYTE, img,
                  "past EOF, 10 of 20 bytes as bytes");
        read_case(fh, 988, 2, t3, 1, 3, MPI_INT, img, "past EOF, 1 of 2 x 3 ints");
        read_case(fh, 992, 2, t3, MPI_UNDEFINED, 2, MPI_INT, img, "past EOF, 2 ints of 2 x 3");
        read_case(fh, SZ, 4, MPI_INT, 0, 0, MPI_INT, img, "at EOF");
        read_case(fh, SZ + 500, 4, MPI_INT, 0, 0, MPI_INT, img, "beyond EOF");
        unsigned char buf[64];
        /* Every rank reads the same header collectively (legal: reads may overlap). */
        if (mu_ok(MPI_File_read_at_all(fh, 0, buf, 16, MPI_BYTE, &st),
                  "read_at_all same 16 bytes")) {
            mu_count_is(&st, MPI_BYTE, 16, "read_at_all same 16 bytes");
            mu_same(buf, img, 16, "read_at_all same 16 bytes");
        }
        MPI_Offset off = 960 + 8 * (MPI_Offset)mu_rank;
        int rc = MPI_File_read_at_all(fh, off, buf, 12, MPI_INT, &st);
        /* ROMIO (MPICH 4.0) reports a collective read's full request even past
         * EOF; MPI says the bytes read. Either is accepted here. */
        int want = off >= SZ ? 0 : (int)((SZ - off) / 4), got = -1;
        if (mu_ok(rc, "read_at_all past EOF (ranks' extents overlap)"))
            mu_ok(MPI_Get_count(&st, MPI_INT, &got), "read_at_all past EOF");
        if (rc == MPI_SUCCESS && got != want && got != 12)
            mu_fail("read_at_all past EOF: count %d, expected %d (or 12)", got, want);
        if (rc == MPI_SUCCESS && want > 0)
            mu_same(buf, img + off, (size_t)want * 4, "read_at_all past EOF");
        mu_ok(MPI_File_read_at(fh, 0, buf, 4, MPI_INT, MPI_STATUS_IGNORE), "MPI_STATUS_IGNORE");
        mu_same(buf, img, 16, "MPI_STATUS_IGNORE");
        mu_ok(MPI_File_close(&fh), "close");
    }
    mu_check_file(mu_out, img, SZ);

    /* A vector view of 4-int blocks: counts of 7 and 6 ints end inside it. */
    const char *vpath = mu_path(".v");
    int np = mu_nprocs;
    MPI_Datatype vec, ft;
    MPI_Type_vector(2, 4, 4 * np, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 32 * (MPI_Aint)np, &ft);
    MPI_Type_commit(&ft);
    int w[13], r[13];
    for (int k = 0; k < 13; k++)
        w[k] = mu_ival(mu_rank, k);
    size_t vtotal = 0; /* element 12 of the last rank: tile 1, block 1 */
    vtotal = (size_t)(32 * np + 16 * np + 16 * (np - 1) + 4);
    int *vimg = mu_calloc(vtotal / 4, sizeof(int));
    for (int p = 0; p < np; p++)
        for (int k = 0; k < 13; k++)
            vimg[k / 8 * 8 * np + (k % 8) / 4 * 4 * np + 4 * p + k % 4] = mu_ival(p, k);
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, vpath, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open .v")) {
        /* Zeros first: no holes past EOF in collective writes (ROMIO's
         * read-modify-write fills them with stale buffer bytes). */
        mu_ok(MPI_File_set_size(fh, (MPI_Offset)vtotal), "set_size");
        mu_ok(MPI_File_set_view(fh, 16 * (MPI_Offset)mu_rank, MPI_INT, ft, "native", MPI_INFO_NULL),
              "set_view");
        mu_ok(MPI_File_write_all(fh, w, 7, MPI_INT, &st), "write_all 7");
        mu_count_is(&st, MPI_INT, 7, "write_all 7");
        mu_ok(MPI_File_write_all(fh, w + 7, 6, MPI_INT, &st), "write_all 6");
        elements_are(&st, MPI_INT, 6, "write_all 6");
        MPI_Offset pos = -1;
        mu_ok(MPI_File_get_position(fh, &pos), "get_position");
        if (pos != 13)
            mu_fail("position %lld, expected 13", (long long)pos);
        mu_ok(MPI_File_read_at_all(fh, 3, r, 9, MPI_INT, &st), "read_at_all 9");
        mu_count_is(&st, MPI_INT, 9, "read_at_all 9");
        mu_same(r, w + 3, 9 * sizeof(int), "read_at_all 9");
        mu_ok(MPI_File_read_at_all(fh, 9, r, 2, t3, &st), "read_at_all 2 x 3 past EOF");
        int last = mu_rank == np - 1; /* only the last rank's view runs into EOF */
        int got = -1;
        mu_ok(MPI_Get_count(&st, t3, &got), "read_at_all 2 x 3 near EOF");
        if (got != (last ? MPI_UNDEFINED : 2) && got != 2) /* ROMIO: the full request */
            mu_fail("read_at_all 2 x 3 near EOF: count %d", got);
        mu_same(r, w + 9, 4 * sizeof(int), "read_at_all near EOF");
        memset(r, 0, sizeof r);
        mu_ok(MPI_File_read_at(fh, 9, r, 2, t3, &st), "read_at 2 x 3 near EOF");
        /* ROMIO's noncontiguous reads also report the full request. */
        mu_ok(MPI_Get_count(&st, t3, &got), "read_at 2 x 3 near EOF");
        if (got != (last ? MPI_UNDEFINED : 2) && got != 2)
            mu_fail("read_at 2 x 3 near EOF: count %d", got);
        mu_same(r, w + 9, 4 * sizeof(int), "read_at near EOF");
        mu_ok(MPI_File_close(&fh), "close .v");
    }
    mu_check_file(vpath, (unsigned char *)vimg, (MPI_Offset)vtotal);
    free(vimg);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Type_free(&t3);
    return mu_finish();
}
