/* noncontig_coll2: collective I/O of a 2-D int array with subarray types in
 * file and memory (local arrays with a ghost border), under collective-buffering
 * hints (tiny cb_buffer_size so many rounds, cb_nodes, cb_config_list). Written
 * in column blocks, read back in row blocks (each rank reads other ranks' data).
 * OUTPATH.z: a collective write in which rank 0 contributes nothing. (No holes
 * past EOF in collective writes: ROMIO's read-modify-write fills them with
 * stale buffer bytes, so the native file would not be deterministic.) */
#include "mpiio_util.h"

#include <stdlib.h>

#define ROWS 24
#define GH 1 /* ghost width */

static int cols(void) { return 10 * mu_nprocs + 3; }

/* Block decomposition of n into mu_nprocs parts: start and length of part p. */
static void part(int n, int p, int *start, int *len)
{
    int q = n / mu_nprocs, r = n % mu_nprocs;
    *start = p * q + (p < r ? p : r);
    *len = q + (p < r);
}

static int owner_col(int j)
{
    for (int p = 0; p < mu_nprocs; p++) {
        int s, l;
        part(cols(), p, &s, &l);
        if (j >= s && j < s + l)
            return p;
    }
    return -1;
}

static int gval(int i, int j) { return mu_ival(owner_col(j), (long long)i * cols() + j); }

static MPI_Info hints(const char *cb_nodes)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "512");
    MPI_Info_set(info, "cb_nodes", cb_nodes);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_config_list", "*:*");
    return info;
}

static void columns_then_rows(const char *cb_nodes)
{
    int nc = cols(), c0, cl, r0, rl;
    part(nc, mu_rank, &c0, &cl);
    part(ROWS, mu_rank, &r0, &rl);
    MPI_Info info = hints(cb_nodes);
    MPI_Datatype ft, mt, rt;
    int gsz[2] = {ROWS, nc}, sub[2] = {ROWS, cl}, st0[2] = {0, c0};
    MPI_Type_create_subarray(2, gsz, sub, st0, MPI_ORDER_C, MPI_INT, &ft);
    int lsz[2] = {ROWS + 2 * GH, cl + 2 * GH}, lst[2] = {GH, GH};
    MPI_Type_create_subarray(2, lsz, sub, lst, MPI_ORDER_C, MPI_INT, &mt);
    int rsub[2] = {rl, nc}, rst[2] = {r0, 0};
    MPI_Type_create_subarray(2, gsz, rsub, rst, MPI_ORDER_C, MPI_INT, &rt);
    MPI_Type_commit(&ft);
    MPI_Type_commit(&mt);
    MPI_Type_commit(&rt);
    size_t lcount = (size_t)lsz[0] * lsz[1];
    int *local = mu_calloc(lcount, sizeof(int));
    for (size_t k = 0; k < lcount; k++)
        local[k] = -1; /* ghosts must never reach the file */
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < cl; j++)
            local[(size_t)(i + GH) * lsz[1] + j + GH] = gval(i, c0 + j);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh),
              "open")) {
        mu_ok(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", info), "view columns");
        mu_ok(MPI_File_write_all(fh, local, 1, mt, &st), "write_all columns");
        mu_count_is(&st, mt, 1, "write_all columns");
        mu_ok(MPI_File_set_view(fh, 0, MPI_INT, rt, "native", info), "view rows");
        int *rows = mu_calloc((size_t)rl * nc + 1, sizeof(int));
        mu_ok(MPI_File_read_all(fh, rows, rl * nc, MPI_INT, &st), "read_all rows");
        mu_count_is(&st, MPI_INT, rl * nc, "read_all rows");
        for (int i = 0; i < rl; i++)
            for (int j = 0; j < nc; j++)
                if (rows[(size_t)i * nc + j] != gval(r0 + i, j)) {
                    mu_fail("cb_nodes=%s: G[%d][%d] = %d, expected %d", cb_nodes, r0 + i, j,
                            rows[(size_t)i * nc + j], gval(r0 + i, j));
                    i = rl;
                    break;
                }
        free(rows);
        mu_ok(MPI_File_close(&fh), "close");
    }
    int *img = mu_calloc((size_t)ROWS * nc, sizeof(int));
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < nc; j++)
            img[(size_t)i * nc + j] = gval(i, j);
    mu_check_file(mu_out, (unsigned char *)img, (MPI_Offset)ROWS * nc * 4);
    free(img);
    free(local);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    MPI_Type_free(&rt);
    MPI_Info_free(&info);
}

/* Ranks 1.. write 300 bytes each at 300 * (rank - 1) + 5 with write_at_all; rank 0
 * joins with count 0. With one rank the file is created empty. */
static void empty_contributor(void)
{
    const char *path = mu_path(".z");
    MPI_Info info = hints("1");
    MPI_File fh;
    MPI_Status st;
    unsigned char w[300];
    mu_fill(w, sizeof w, mu_rank, 0);
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh),
              "open .z")) {
        int n = mu_rank == 0 ? 0 : (int)sizeof w;
        MPI_Offset at = mu_rank ? 300 * (mu_rank - 1) + 5 : 0;
        mu_ok(MPI_File_write_at_all(fh, at, w, n, MPI_BYTE, &st), "write_at_all .z");
        mu_count_is(&st, MPI_BYTE, n, "write_at_all .z");
        mu_ok(MPI_File_close(&fh), "close .z");
    }
    MPI_Offset size = mu_nprocs > 1 ? 300 * (mu_nprocs - 1) + 5 : 0;
    unsigned char *img = mu_calloc((size_t)size + 1, 1);
    for (int p = 1; p < mu_nprocs; p++)
        mu_fill(img + 300 * (p - 1) + 5, 300, p, 0);
    mu_check_file(path, img, size);
    free(img);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    columns_then_rows("1");
    columns_then_rows(mu_nprocs > 1 ? "2" : "1");
    empty_contributor();
    return mu_finish();
}
