/* noncontig (and noncontig_coll, built from this file with -DMU_COLL=1):
 * noncontiguous memory and/or file types, ranks interleaved in the file.
 *   OUTPATH.a  memory vector,     file contiguous (per-rank region)
 *   OUTPATH.b  memory contiguous, file vector interleaving the ranks
 *   OUTPATH    memory vector,     file vector
 * Each writes two instances of the memory type (two file tiles), reads them
 * back into a buffer whose gaps must stay untouched, then the whole file is
 * checked against the image every rank computes. */
#include "mpiio_util.h"

#include <stdlib.h>

#ifndef MU_COLL
#define MU_COLL 0
#endif

#define B 7  /* ints per block */
#define C 40 /* blocks per instance */
#define NI (2 * C * B) /* ints written per rank */

/* Memory index of stream element i (noncontig memory: gaps of B ints). */
static long mem_pos(long i, int nc)
{
    if (!nc)
        return i;
    long ext = (long)(C - 1) * 2 * B + B;
    long m = i / (C * B), rem = i % (C * B);
    return m * ext + rem / B * 2 * B + rem % B;
}

/* File int index of element i of rank p. */
static long file_pos(int p, long i, int nc)
{
    if (!nc)
        return (long)p * NI + i;
    long tile = (long)C * B * mu_nprocs;
    long t = i / (C * B), rem = i % (C * B);
    return t * tile + rem / B * B * mu_nprocs + (long)p * B + rem % B;
}

static void run_case(const char *path, int mem_nc, int file_nc)
{
    MPI_Datatype memtype = MPI_INT, filetype = MPI_INT, vec;
    int count = NI;
    long mem_ints = NI;
    if (mem_nc) {
        MPI_Type_vector(C, B, 2 * B, MPI_INT, &memtype);
        MPI_Type_commit(&memtype);
        count = 2;
        mem_ints = mem_pos(NI - 1, 1) + 1;
    }
    if (file_nc) {
        MPI_Type_vector(C, B, B * mu_nprocs, MPI_INT, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)C * B * mu_nprocs * 4, &filetype);
        MPI_Type_commit(&filetype);
        MPI_Type_free(&vec);
    }
    int *buf = mu_calloc((size_t)mem_ints, sizeof(int));
    for (long k = 0; k < mem_ints; k++)
        buf[k] = -1;
    for (long i = 0; i < NI; i++)
        buf[mem_pos(i, mem_nc)] = mu_ival(mu_rank, i);
    MPI_Offset disp = file_nc ? (MPI_Offset)mu_rank * B * 4 : (MPI_Offset)mu_rank * NI * 4;
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh), "open")) {
        mu_ok(MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL), "view");
        if (MU_COLL)
            mu_ok(MPI_File_write_all(fh, buf, count, memtype, &st), "write_all");
        else
            mu_ok(MPI_File_write(fh, buf, count, memtype, &st), "write");
        mu_count_is(&st, memtype, count, "write count");
        MPI_Offset pos = -1;
        mu_ok(MPI_File_get_position(fh, &pos), "get_position");
        if (pos != NI)
            mu_fail("position after write %lld, expected %d", (long long)pos, NI);
        for (long k = 0; k < mem_ints; k++)
            buf[k] = -7;
        if (MU_COLL)
            mu_ok(MPI_File_read_at_all(fh, 0, buf, count, memtype, &st), "read_at_all");
        else
            mu_ok(MPI_File_read_at(fh, 0, buf, count, memtype, &st), "read_at");
        mu_count_is(&st, memtype, count, "read count");
        int bad = 0;
        for (long i = 0; i < NI && !bad; i++)
            if (buf[mem_pos(i, mem_nc)] != mu_ival(mu_rank, i)) {
                mu_fail("%s: element %ld is %d", path, i, buf[mem_pos(i, mem_nc)]);
                bad = 1;
            }
        for (long i = 0; i < NI; i++)
            buf[mem_pos(i, mem_nc)] = -7;
        for (long k = 0; k < mem_ints && !bad; k++)
            if (buf[k] != -7) {
                mu_fail("%s: memory gap int %ld overwritten (%d)", path, k, buf[k]);
                bad = 1;
            }
        mu_ok(MPI_File_close(&fh), "close");
    }
    long total = (long)NI * mu_nprocs;
    if (file_nc) /* the last tile: every rank's blocks, so no hole at the end */
        total = file_pos(mu_nprocs - 1, NI - 1, 1) + 1;
    int *img = mu_calloc((size_t)total, sizeof(int));
    for (int p = 0; p < mu_nprocs; p++)
        for (long i = 0; i < NI; i++)
            img[file_pos(p, i, file_nc)] = mu_ival(p, i);
    MPI_Barrier(MPI_COMM_WORLD);
    mu_check_file(path, (unsigned char *)img, (MPI_Offset)total * 4);
    free(img);
    free(buf);
    if (mem_nc)
        MPI_Type_free(&memtype);
    if (file_nc)
        MPI_Type_free(&filetype);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    run_case(mu_path(".a"), 1, 0);
    run_case(mu_path(".b"), 0, 1);
    run_case(mu_out, 1, 1);
    return mu_finish();
}
