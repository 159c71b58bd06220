/* atomicity: MPI_File_set_atomicity(fh, 1). Either it succeeds, get_atomicity
 * says 1, and readers racing with rank 0's writes (contiguous, then through a
 * vector view) see all old or all new data; or it is refused with the documented
 * class MPI_ERR_UNSUPPORTED_OPERATION, atomicity stays 0, and the same data go
 * through the non-atomic rule (sync, barrier, sync). Rank 0 prints which.
 * Through the view, each block of 10 ints must be all old or all new (Open MPI
 * 4.1 does not make a noncontiguous access atomic as a whole).
 * The file ends with rank 0's data either way. */
#include "mpiio_util.h"

#include <stdlib.h>

#define N 20000 /* ints */

/* Readers (ranks > 0) read N ints through the current view while rank 0 writes
 * `neu` over `old`; every read must be all old or all new. */
static void race(MPI_File fh, const int *old, const int *neu, int atomic, int unit,
                 const char *what)
{
    MPI_Status st;
    int *r = mu_calloc(N, sizeof(int));
    if (!atomic) {
        if (mu_rank == 0)
            mu_ok(MPI_File_write_at(fh, 0, neu, N, MPI_INT, &st), what);
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        mu_ok(MPI_File_read_at(fh, 0, r, N, MPI_INT, &st), what);
        mu_same(r, neu, N * sizeof(int), what);
    } else if (mu_rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_write_at(fh, 0, neu, N, MPI_INT, &st), what);
        mu_count_is(&st, MPI_INT, N, what);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_read_at(fh, 0, r, N, MPI_INT, &st), what);
        mu_count_is(&st, MPI_INT, N, what);
        const int *ref = old;
        for (int i = 0; i < N; i++) {
            if (i % unit == 0)
                ref = r[i] == old[i] ? old : neu;
            if (r[i] != ref[i]) {
                mu_fail("%s: int %d is %d: a mix of old and new data", what, i, r[i]);
                break;
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(r);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    int *a = mu_calloc(2 * N, sizeof(int)), *b = mu_calloc(N, sizeof(int));
    int *c = mu_calloc(N, sizeof(int));
    for (int i = 0; i < N; i++) {
        a[i] = mu_ival(0, i);
        a[N + i] = mu_ival(0, 3 * N + i);
        b[i] = mu_ival(0, N + i);
        c[i] = mu_ival(0, 2 * N + i);
    }
    MPI_File fh;
    MPI_Status st;
    if (!mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh), "open"))
        return mu_finish();
    /* The old data cover every byte the views reach: no holes past EOF (ROMIO's
     * read-modify-write would fill them with stale buffer bytes). */
    if (mu_rank == 0)
        mu_ok(MPI_File_write_at(fh, 0, a, 2 * N, MPI_INT, &st), "write old");
    mu_ok(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    int flag = -1;
    mu_ok(MPI_File_get_atomicity(fh, &flag), "get_atomicity");
    if (flag != 0)
        mu_fail("default atomicity %d, expected 0", flag);
    int rc = MPI_File_set_atomicity(fh, 1);
    int atomic = rc == MPI_SUCCESS, lo = 0, hi = 0;
    if (!atomic)
        mu_expect_class(rc, MPI_ERR_UNSUPPORTED_OPERATION, "set_atomicity(1)");
    MPI_Allreduce(&atomic, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&atomic, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi)
        mu_fail("ranks disagree on set_atomicity(1)");
    mu_note("%s", atomic ? "atomic mode supported"
                         : "atomic mode refused with MPI_ERR_UNSUPPORTED_OPERATION");
    mu_ok(MPI_File_get_atomicity(fh, &flag), "get_atomicity");
    if (flag != atomic)
        mu_fail("get_atomicity %d, expected %d", flag, atomic);
    race(fh, a, b, lo, N, "contiguous");
    /* Through a view: the ints in blocks of 10 at stride 20, rank 0 writes all. */
    MPI_Datatype vec;
    MPI_Type_vector(N / 10, 10, 20, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    mu_ok(MPI_File_set_view(fh, 0, MPI_INT, vec, "native", MPI_INFO_NULL), "set_view");
    /* The old data seen through the view: b's and a's ints in the blocks. */
    int *old = mu_calloc(N, sizeof(int));
    for (long i = 0; i < N; i++) {
        long k = i / 10 * 20 + i % 10;
        old[i] = k < N ? b[k] : a[k];
    }
    race(fh, old, c, lo, 10, "vector view");
    free(old);
    if (atomic)
        mu_ok(MPI_File_set_atomicity(fh, 0), "set_atomicity(0)");
    mu_ok(MPI_File_close(&fh), "close");
    /* Image: a, then b over the first N ints, then c in the vector's blocks. */
    long total = 2L * N;
    int *img = mu_calloc((size_t)total, sizeof(int));
    for (long k = 0; k < total; k++)
        img[k] = k < N ? b[k] : a[k];
    for (long i = 0; i < N; i++)
        img[i / 10 * 20 + i % 10] = c[i];
    mu_check_file(mu_out, (unsigned char *)img, (MPI_Offset)total * 4);
    MPI_Type_free(&vec);
    free(img);
    free(a);
    free(b);
    free(c);
    return mu_finish();
}
