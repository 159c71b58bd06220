/* i_noncontig: MPI_File_iwrite / iread with a vector filetype interleaving the
 * ranks and a vector memory type, completed with MPI_Wait; then MPI_File_iwrite_all /
 * iread_all (MPI 3.1) on the same view for the second tile; positions and statuses. */
#include "mpiio_util.h"

#include <stdlib.h>

#define B 6
#define C 25
#define NT (C * B)

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
    MPI_Type_vector(C, B, B + 3, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    long mext = (long)(C - 1) * (B + 3) + B;
    int *w = mu_calloc((size_t)mext * 2, sizeof(int));
    int *r = mu_calloc((size_t)mext * 2, sizeof(int));
    int *want = mu_calloc((size_t)mext * 2, sizeof(int));
    for (long k = 0; k < 2 * mext; k++)
        w[k] = want[k] = -1;
    for (long i = 0; i < 2 * NT; i++) {
        long m = i / NT, rem = i % NT, pos = m * mext + rem / B * (B + 3) + rem % B;
        w[pos] = want[pos] = mu_ival(mu_rank, i);
    }
    MPI_File fh;
    MPI_Request req;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_view(fh, (MPI_Offset)mu_rank * B * 4, MPI_INT, ft, "native",
                                MPI_INFO_NULL), "set_view");
        mu_ok(MPI_File_iwrite(fh, w, 1, mt, &req), "iwrite");
        MPI_Offset pos = -1;
        mu_ok(MPI_File_get_position(fh, &pos), "get_position");
        if (pos != NT) /* the pointer moves when the call starts */
            mu_fail("position %lld after iwrite, expected %d", (long long)pos, NT);
        mu_ok(MPI_Wait(&req, &st), "Wait iwrite");
        mu_count_is(&st, mt, 1, "iwrite status");
        mu_ok(MPI_File_iwrite_all(fh, w + mext, 1, mt, &req), "iwrite_all");
        mu_ok(MPI_Wait(&req, &st), "Wait iwrite_all");
        mu_count_is(&st, mt, 1, "iwrite_all status");
        mu_ok(MPI_File_seek(fh, 0, MPI_SEEK_SET), "seek");
        for (long k = 0; k < 2 * mext; k++)
            r[k] = -1;
        mu_ok(MPI_File_iread(fh, r, 1, mt, &req), "iread");
        mu_ok(MPI_Wait(&req, &st), "Wait iread");
        mu_count_is(&st, mt, 1, "iread status");
        mu_ok(MPI_File_iread_all(fh, r + mext, NT, MPI_INT, &req), "iread_all");
        mu_ok(MPI_Wait(&req, &st), "Wait iread_all");
        mu_count_is(&st, MPI_INT, NT, "iread_all status");
        /* iread_all read contiguously into memory: rearrange before comparing. */
        int *tmp = mu_calloc(NT, sizeof(int));
        for (long i = 0; i < NT; i++)
            tmp[i] = r[mext + i];
        for (long k = 0; k < mext; k++)
            r[mext + k] = -1;
        for (long i = 0; i < NT; i++)
            r[mext + i / B * (B + 3) + i % B] = tmp[i];
        free(tmp);
        mu_same(r, want, (size_t)mext * 2 * sizeof(int), "iread/iread_all data");
        mu_ok(MPI_File_close(&fh), "close");
    }
    long total = 2L * NT * mu_nprocs;
    int *img = mu_calloc((size_t)total, sizeof(int));
    for (int p = 0; p < mu_nprocs; p++)
        for (long i = 0; i < 2 * NT; i++)
            img[file_pos(p, i)] = mu_ival(p, i);
    mu_check_file(mu_out, (unsigned char *)img, (MPI_Offset)total * 4);
    free(img);
    free(w);
    free(r);
    free(want);
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    return mu_finish();
}
