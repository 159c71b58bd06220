/* file_info: hints at open, MPI_File_get_info (an info object with keys; values
 * are implementation business and not compared), MPI_File_set_info, a hint given
 * with set_view, and ordinary I/O under them. OUTPATH.enable is opened with the
 * hint ostio_mpiio=enable, which libostio-mpiio takes wherever the file is (MPI
 * implementations ignore it); compare.sh checks that in its pass-through run. */
#include "mpiio_util.h"

#include <stdlib.h>

#define N 3000

static void check_info(MPI_File fh, const char *what)
{
    MPI_Info info = MPI_INFO_NULL;
    if (!mu_ok(MPI_File_get_info(fh, &info), what))
        return;
    if (info == MPI_INFO_NULL) {
        mu_fail("%s: get_info returned MPI_INFO_NULL", what);
        return;
    }
    int nkeys = -1;
    mu_ok(MPI_Info_get_nkeys(info, &nkeys), "Info_get_nkeys");
    for (int k = 0; k < nkeys; k++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int len = 0, flag = 0;
        mu_ok(MPI_Info_get_nthkey(info, k, key), "Info_get_nthkey");
        mu_ok(MPI_Info_get_valuelen(info, key, &len, &flag), "Info_get_valuelen");
        if (!flag || len < 0 || len > MPI_MAX_INFO_VAL)
            mu_fail("%s: key %s has no usable value (flag %d, len %d)", what, key, flag, len);
        else
            mu_ok(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag), "Info_get");
    }
    mu_ok(MPI_Info_free(&info), "Info_free");
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "striping_unit", "65536");
    MPI_Info_set(info, "a_key_nobody_knows", "some value");
    unsigned char *w = mu_calloc(N, 1), *r = mu_calloc(N, 1);
    MPI_Offset off = (MPI_Offset)mu_rank * N;
    mu_fill(w, N, mu_rank, off);
    MPI_File fh;
    MPI_Status st;
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh),
              "open")) {
        check_info(fh, "get_info after open");
        MPI_Info more;
        MPI_Info_create(&more);
        MPI_Info_set(more, "romio_cb_write", "enable");
        MPI_Info_set(more, "access_style", "write_once");
        mu_ok(MPI_File_set_info(fh, more), "set_info");
        check_info(fh, "get_info after set_info");
        mu_ok(MPI_File_set_view(fh, off, MPI_BYTE, MPI_BYTE, "native", more), "set_view info");
        check_info(fh, "get_info after set_view");
        MPI_Info_free(&more);
        mu_ok(MPI_File_write_all(fh, w, N, MPI_BYTE, &st), "write_all");
        mu_ok(MPI_File_read_at_all(fh, 0, r, N, MPI_BYTE, &st), "read_at_all");
        mu_same(r, w, N, "read back");
        mu_ok(MPI_File_close(&fh), "close");
    }
    unsigned char *img = mu_calloc((size_t)mu_nprocs, N);
    for (int p = 0; p < mu_nprocs; p++)
        mu_fill(img + (size_t)p * N, N, p, (long long)p * N);
    mu_check_file(mu_out, img, (MPI_Offset)mu_nprocs * N);

    const char *en = mu_path(".enable");
    MPI_Info ei;
    MPI_Info_create(&ei);
    MPI_Info_set(ei, "ostio_mpiio", "enable");
    if (mu_ok(MPI_File_open(MPI_COMM_WORLD, en, MPI_MODE_CREATE | MPI_MODE_WRONLY, ei, &fh),
              "open .enable")) {
        check_info(fh, "get_info .enable");
        mu_ok(MPI_File_write_at_all(fh, off, w, N, MPI_BYTE, &st), "write_at_all .enable");
        mu_ok(MPI_File_close(&fh), "close .enable");
    }
    mu_check_file_info(en, img, (MPI_Offset)mu_nprocs * N, ei);
    MPI_Info_free(&ei);
    MPI_Info_free(&info);
    free(img);
    free(w);
    free(r);
    return mu_finish();
}
