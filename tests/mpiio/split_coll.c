/* split_coll: split collective calls with a view interleaving the ranks and a
 * noncontiguous memory type: write_all_begin/end (tile 0), write_at_all_begin/end
 * (tile 1), read_all_begin/end, read_at_all_begin/end; statuses from the _end calls. */
#include "mpiio_util.h"

#include <stdlib.h>

#define B 5
#define C 30
#define NT (C * B) /* ints per tile per rank */

static long file_pos(int p, long i)
{
    long t = i / NT, rem = i % NT;
    return t * NT * mu_nprocs + rem / B * B * mu_nprocs + (long)p * B + rem % B;
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    MPI_Datatype vec, ft, mt;
    MPI_Type_vector(C, B, B * mu_nprocs, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)NT * mu_nprocs * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_vector(NT, 1, 2, MPI_INT, &mt); /* every other int */
    MPI_Type_commit(&mt);
    int *w0 = mu_calloc(2 * NT, sizeof(int)), *w1 = mu_calloc(2 * NT, sizeof(int));
    int *r0 = mu_calloc(2 * NT, sizeof(int)), *r1 = mu_calloc(NT, sizeof(int));
    for (long i = 0; i < NT; i++) {
        w0[2 * i] = mu_ival(mu_rank, i);
        w0[2 * i + 1] = -1;
        w1[i] = mu_ival(mu_rank, NT + i);
    }
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_view(fh, (MPI_Offset)mu_rank * B * 4, MPI_INT, ft, "native",
                                MPI_INFO_NULL), "set_view");
        mu_ok(MPI_File_write_all_begin(fh, w0, 1, mt), "write_all_begin");
        mu_ok(MPI_File_write_all_end(fh, w0, &st), "write_all_end");
        mu_count_is(&st, mt, 1, "write_all_end");
        mu_ok(MPI_File_write_at_all_begin(fh, NT, w1, NT, MPI_INT), "write_at_all_begin");
        mu_ok(MPI_File_write_at_all_end(fh, w1, &st), "write_at_all_end");
        mu_count_is(&st, MPI_INT, NT, "write_at_all_end");
        MPI_Offset pos = -1;
        mu_ok(MPI_File_get_position(fh, &pos), "get_position");
        if (pos != NT)
            mu_fail("position %lld after write_all_begin/end, expected %d", (long long)pos, NT);
        mu_ok(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek");
        for (long i = 0; i < 2 * NT; i++)
            r0[i] = -7;
        mu_ok(MPI_File_read_all_begin(fh, r0, 1, mt), "read_all_begin");
        mu_ok(MPI_File_read_all_end(fh, r0, &st), "read_all_end");
        mu_count_is(&st, mt, 1, "read_all_end");
        mu_ok(MPI_File_read_at_all_begin(fh, NT, r1, NT, MPI_INT), "read_at_all_begin");
        mu_ok(MPI_File_read_at_all_end(fh, r1, &st), "read_at_all_end");
        mu_count_is(&st, MPI_INT, NT, "read_at_all_end");
        for (long i = 0; i < NT; i++)
            w0[2 * i + 1] = -7;
        mu_same(r0, w0, 2 * NT * sizeof(int), "read_all_begin/end data and gaps");
        mu_same(r1, w1, NT * sizeof(int), "read_at_all_begin/end");
        mu_ok(MPI_File_close(&fh), "close");
    }
    long total = 2L * NT * mu_nprocs;
    int *img = mu_calloc((size_t)total, sizeof(int));
    for (int p = 0; p < mu_nprocs; p++)
        for (long i = 0; i < 2 * NT; i++)
            img[file_pos(p, i)] = mu_ival(p, i);
    mu_check_file(mu_out, (unsigned char *)img, (MPI_Offset)total * 4);
    free(img);
    free(w0);
    free(w1);
    free(r0);
    free(r1);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    return mu_finish();
}
