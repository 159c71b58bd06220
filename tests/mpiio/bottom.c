/* bottom: MPI_BOTTOM with a struct memory type of absolute addresses (an int
 * array, a double array and a char array, from MPI_Get_address): write_at_all,
 * then read_at into other arrays with another absolute struct, then iwrite_at /
 * iread_at with MPI_BOTTOM through a vector file view. */
#include "mpiio_util.h"

#include <stdlib.h>
#include <string.h>

#define NI 10
#define ND 5
#define NC 7
#define REC (NI * 4 + ND * 8 + NC) /* 87 bytes per rank */

struct arrays {
    int i[NI];
    double d[ND];
    char c[NC];
};

static MPI_Datatype absolute(struct arrays *a)
{
    int bl[3] = {NI, ND, NC};
    MPI_Aint disp[3];
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    MPI_Get_address(a->i, &disp[0]);
    MPI_Get_address(a->d, &disp[1]);
    MPI_Get_address(a->c, &disp[2]);
    MPI_Type_create_struct(3, bl, disp, ty, &t);
    MPI_Type_commit(&t);
    return t;
}

static void fill(struct arrays *a, int rank, int salt)
{
    for (int k = 0; k < NI; k++)
        a->i[k] = mu_ival(rank, salt + k);
    for (int k = 0; k < ND; k++)
        a->d[k] = mu_ival(rank, salt + 100 + k) * 0.5;
    for (int k = 0; k < NC; k++)
        a->c[k] = (char)mu_byte(rank, salt + 200 + k);
}

static void pack(const struct arrays *a, unsigned char *out)
{
    memcpy(out, a->i, sizeof a->i);
    memcpy(out + sizeof a->i, a->d, sizeof a->d);
    memcpy(out + sizeof a->i + sizeof a->d, a->c, sizeof a->c);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    /* Separate allocations: the struct's blocks are far apart and in any order. */
    struct arrays *a = mu_calloc(1, sizeof *a), *b = mu_calloc(1, sizeof *b);
    struct arrays *c = mu_calloc(1, sizeof *c), *e = mu_calloc(1, sizeof *e);
    fill(a, mu_rank, 0);
    fill(c, mu_rank, 1000);
    MPI_Datatype ta = absolute(a), tb = absolute(b), tc = absolute(c), te = absolute(e), vec;
    /* Second half of the file: records of REC bytes interleaved in 29-byte pieces. */
    MPI_Type_vector(3, 29, 29 * mu_nprocs, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    MPI_Offset half = (MPI_Offset)REC * mu_nprocs;
    size_t total = (size_t)2 * REC * mu_nprocs;
    unsigned char *img = mu_calloc(total, 1), rec[REC];
    for (int p = 0; p < mu_nprocs; p++) {
        struct arrays t;
        fill(&t, p, 0);
        pack(&t, img + (size_t)p * REC);
        fill(&t, p, 1000);
        pack(&t, rec);
        for (int k = 0; k < REC; k++)
            img[half + (k / 29) * 29 * mu_nprocs + p * 29 + k % 29] = rec[k];
    }
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_write_at_all(fh, (MPI_Offset)mu_rank * REC, MPI_BOTTOM, 1, ta, &st),
              "write_at_all MPI_BOTTOM");
        mu_count_is(&st, ta, 1, "write_at_all MPI_BOTTOM");
        mu_ok(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), "sync");
        int peer = (mu_rank + 1) % mu_nprocs;
        mu_ok(MPI_File_read_at(fh, (MPI_Offset)peer * REC, MPI_BOTTOM, 1, tb, &st),
              "read_at MPI_BOTTOM");
        mu_count_is(&st, tb, 1, "read_at MPI_BOTTOM");
        pack(b, rec);
        mu_same(rec, img + (size_t)peer * REC, REC, "read_at MPI_BOTTOM data");
        mu_ok(MPI_File_set_view(fh, half + (MPI_Offset)mu_rank * 29, MPI_BYTE, vec, "native",
                                MPI_INFO_NULL), "set_view");
        mu_ok(MPI_File_iwrite_at(fh, 0, MPI_BOTTOM, 1, tc, &rq), "iwrite_at MPI_BOTTOM");
        mu_ok(MPI_Wait(&rq, &st), "Wait iwrite_at");
        mu_count_is(&st, tc, 1, "iwrite_at MPI_BOTTOM");
        mu_ok(MPI_File_iread_at(fh, 0, MPI_BOTTOM, 1, te, &rq), "iread_at MPI_BOTTOM");
        mu_ok(MPI_Wait(&rq, &st), "Wait iread_at");
        mu_count_is(&st, te, 1, "iread_at MPI_BOTTOM");
        unsigned char want[REC];
        pack(c, want);
        pack(e, rec);
        mu_same(rec, want, REC, "iread_at MPI_BOTTOM data");
        mu_ok(MPI_File_close(&fh), "close");
    }
    mu_check_file(mu_out, img, (MPI_Offset)total);
    MPI_Type_free(&ta);
    MPI_Type_free(&tb);
    MPI_Type_free(&tc);
    MPI_Type_free(&te);
    MPI_Type_free(&vec);
    free(img);
    free(a);
    free(b);
    free(c);
    free(e);
    return mu_finish();
}
