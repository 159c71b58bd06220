/* shared_fp: the shared file pointer. write_shared in rank order (a token passed
 * rank to rank keeps the file deterministic), get_position_shared, write_ordered
 * (records of different sizes), seek_shared + read_ordered, read_shared in rank
 * order, seek_shared(SEEK_END), then a view (set_view resets the pointer) with
 * write_ordered_begin/end, read_ordered_begin/end. (SEEK_END is used with the
 * default view only: Open MPI 4.1 counts it from byte 0, not from the view's
 * displacement.) */
#include "mpiio_util.h"

#include <stdlib.h>

#define R 200 /* write_shared record */
static int r2(int p) { return 100 + 10 * p; } /* write_ordered record */
static long long off2(int p) /* where rank p's write_ordered record starts */
{
    long long o = (long long)R * mu_nprocs;
    for (int q = 0; q < p; q++)
        o += r2(q);
    return o;
}

static void token_wait(void)
{
    if (mu_rank > 0)
        MPI_Recv(NULL, 0, MPI_BYTE, mu_rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
static void token_pass(void)
{
    if (mu_rank + 1 < mu_nprocs)
        MPI_Send(NULL, 0, MPI_BYTE, mu_rank + 1, 7, MPI_COMM_WORLD);
}

static void expect_shared(MPI_File fh, MPI_Offset want, const char *what)
{
    MPI_Offset pos = -1;
    MPI_Barrier(MPI_COMM_WORLD); /* no rank moves the pointer while the others look */
    if (mu_ok(MPI_File_get_position_shared(fh, &pos), what) && pos != want)
        mu_fail("%s: shared position %lld, expected %lld", what, (long long)pos, (long long)want);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    long long end2 = off2(mu_nprocs), disp3 = (end2 + 3) / 4 * 4, n3 = 50 + mu_rank;
    long long tot3 = 0;
    for (int p = 0; p < mu_nprocs; p++)
        tot3 += 50 + p;
    MPI_Offset size = (MPI_Offset)(disp3 + 4 * tot3);
    unsigned char *img = mu_calloc((size_t)size, 1), *r = mu_calloc((size_t)size, 1);
    for (int p = 0; p < mu_nprocs; p++) {
        mu_fill(img + (size_t)p * R, R, p, (long long)p * R);
        mu_fill(img + off2(p), (size_t)r2(p), p, off2(p));
    }
    long long o3 = disp3;
    for (int p = 0; p < mu_nprocs; p++) {
        mu_fill(img + o3, (size_t)(4 * (50 + p)), p, o3);
        o3 += 4 * (50 + p);
    }
    MPI_File fh;
    MPI_Status st;
    if (!mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh), "open"))
        return mu_finish();
    expect_shared(fh, 0, "after open");
    token_wait();
    mu_ok(MPI_File_write_shared(fh, img + (size_t)mu_rank * R, R, MPI_BYTE, &st), "write_shared");
    mu_count_is(&st, MPI_BYTE, R, "write_shared");
    token_pass();
    MPI_Barrier(MPI_COMM_WORLD);
    expect_shared(fh, (MPI_Offset)R * mu_nprocs, "after write_shared");
    mu_ok(MPI_File_write_ordered(fh, img + off2(mu_rank), r2(mu_rank), MPI_BYTE, &st),
          "write_ordered");
    mu_count_is(&st, MPI_BYTE, r2(mu_rank), "write_ordered");
    expect_shared(fh, end2, "after write_ordered");
    mu_ok(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
    mu_ok(MPI_File_read_ordered(fh, r, R, MPI_BYTE, &st), "read_ordered");
    mu_count_is(&st, MPI_BYTE, R, "read_ordered");
    mu_same(r, img + (size_t)mu_rank * R, R, "read_ordered");
    expect_shared(fh, (MPI_Offset)R * mu_nprocs, "after read_ordered");
    MPI_Barrier(MPI_COMM_WORLD);
    token_wait();
    mu_ok(MPI_File_read_shared(fh, r, r2(mu_rank), MPI_BYTE, &st), "read_shared");
    mu_count_is(&st, MPI_BYTE, r2(mu_rank), "read_shared");
    mu_same(r, img + off2(mu_rank), (size_t)r2(mu_rank), "read_shared");
    token_pass();
    MPI_Barrier(MPI_COMM_WORLD);
    expect_shared(fh, end2, "after read_shared");
    mu_ok(MPI_File_seek_shared(fh, -7, MPI_SEEK_END), "seek_shared end");
    expect_shared(fh, end2 - 7, "after seek_shared(-7, SEEK_END)");

    /* A view of ints at disp3: the pointer restarts at 0, counted in ints. */
    mu_ok(MPI_File_set_view(fh, disp3, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "set_view");
    expect_shared(fh, 0, "after set_view");
    long long mine = disp3;
    for (int p = 0; p < mu_rank; p++)
        mine += 4 * (50 + p);
    mu_ok(MPI_File_write_ordered_begin(fh, img + mine, (int)n3, MPI_INT), "write_ordered_begin");
    mu_ok(MPI_File_write_ordered_end(fh, img + mine, &st), "write_ordered_end");
    mu_count_is(&st, MPI_INT, (int)n3, "write_ordered_end");
    mu_ok(MPI_File_sync(fh), "sync"); /* every rank's data counted in the size */
    MPI_Barrier(MPI_COMM_WORLD);
    mu_ok(MPI_File_sync(fh), "sync");
    expect_shared(fh, (MPI_Offset)tot3, "after write_ordered_begin/end");
    mu_ok(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared set");
    mu_ok(MPI_File_read_ordered_begin(fh, r, (int)n3, MPI_INT), "read_ordered_begin");
    mu_ok(MPI_File_read_ordered_end(fh, r, &st), "read_ordered_end");
    mu_count_is(&st, MPI_INT, (int)n3, "read_ordered_end");
    mu_same(r, img + mine, (size_t)(4 * n3), "read_ordered_begin/end");
    mu_ok(MPI_File_seek_shared(fh, 2, MPI_SEEK_CUR), "seek_shared cur");
    expect_shared(fh, (MPI_Offset)tot3 + 2, "after seek_shared(2, SEEK_CUR)");
    mu_ok(MPI_File_close(&fh), "close");
    mu_check_file(mu_out, img, size);
    free(img);
    free(r);
    return mu_finish();
}
