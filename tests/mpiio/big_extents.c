/* big_extents: a filetype whose extent is 4 GiB + 4 KiB (16 data bytes per rank
 * per tile) so the file is sparse, just over 4 GiB, with 32 data bytes per rank.
 * Data sieving and collective buffering are switched off (hints) so ROMIO writes
 * only the data. Checks get_type_extent, get_byte_offset past 4 GiB, the size,
 * reads through the view, through an hindexed type with a displacement past
 * 4 GiB, and a hole read as zeros. */
#include "mpiio_util.h"

#include <stdlib.h>
#include <string.h>

#define EXT ((MPI_Offset)4 * 1024 * 1024 * 1024 + 4096)

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "disable");
    MPI_Info_set(info, "romio_ds_read", "disable");
    MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_Info_set(info, "romio_cb_read", "disable");
    int len = 16;
    MPI_Aint d0 = 0, d2[2] = {0, (MPI_Aint)EXT};
    int l2[2] = {16, 16};
    MPI_Datatype one, ft, h2;
    MPI_Type_create_hindexed(1, &len, &d0, MPI_BYTE, &one);
    MPI_Type_create_resized(one, 0, (MPI_Aint)EXT, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_create_hindexed(2, l2, d2, MPI_BYTE, &h2);
    MPI_Type_commit(&h2);
    MPI_Offset mine = (MPI_Offset)mu_rank * 16, size = EXT + 16 * (MPI_Offset)mu_nprocs;
    unsigned char w[32], r[32];
    mu_fill(w, 16, mu_rank, mine);
    mu_fill(w + 16, 16, mu_rank, EXT + mine);
    MPI_File fh;
    MPI_Status st;
    if (!mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh),
               "open"))
        return mu_finish();
    mu_ok(MPI_File_set_view(fh, mine, MPI_BYTE, ft, "native", info), "set_view");
    MPI_Aint ext = 0;
    mu_ok(MPI_File_get_type_extent(fh, ft, &ext), "get_type_extent");
    if ((MPI_Offset)ext != EXT)
        mu_fail("get_type_extent %lld, expected %lld", (long long)ext, (long long)EXT);
    MPI_Offset bo = -1;
    mu_ok(MPI_File_get_byte_offset(fh, 20, &bo), "get_byte_offset");
    if (bo != EXT + mine + 4)
        mu_fail("get_byte_offset(20) = %lld, expected %lld", (long long)bo,
                (long long)(EXT + mine + 4));
    mu_ok(MPI_File_write(fh, w, 20, MPI_BYTE, &st), "write 20"); /* ends inside tile 1 */
    mu_ok(MPI_File_write_all(fh, w + 20, 12, MPI_BYTE, &st), "write_all 12");
    mu_count_is(&st, MPI_BYTE, 12, "write_all 12");
    mu_ok(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    mu_ok(MPI_File_sync(fh), "sync");
    MPI_Offset got = -1;
    mu_ok(MPI_File_get_size(fh, &got), "get_size");
    if (got != size)
        mu_fail("size %lld, expected %lld", (long long)got, (long long)size);
    memset(r, 0, sizeof r);
    mu_ok(MPI_File_read_at_all(fh, 0, r, 32, MPI_BYTE, &st), "read_at_all view");
    mu_count_is(&st, MPI_BYTE, 32, "read_at_all view");
    mu_same(r, w, 32, "read through the view");
    /* The next rank's data through an hindexed filetype of 2 blocks 4 GiB apart. */
    int peer = (mu_rank + 1) % mu_nprocs;
    mu_ok(MPI_File_set_view(fh, (MPI_Offset)peer * 16, MPI_BYTE, h2, "native", info), "view h2");
    memset(r, 0, sizeof r);
    mu_ok(MPI_File_read(fh, r, 32, MPI_BYTE, &st), "read h2");
    mu_count_is(&st, MPI_BYTE, 32, "read h2");
    unsigned char want[32];
    mu_fill(want, 16, peer, (MPI_Offset)peer * 16);
    mu_fill(want + 16, 16, peer, EXT + (MPI_Offset)peer * 16);
    mu_same(r, want, 32, "read through h2");
    /* A hole: 32 bytes just below 4 GiB. */
    mu_ok(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info), "view bytes");
    memset(r, 0xee, sizeof r);
    mu_ok(MPI_File_read_at(fh, EXT - 4096 - 32, r, 32, MPI_BYTE, &st), "read hole");
    mu_count_is(&st, MPI_BYTE, 32, "read hole");
    memset(want, 0, sizeof want);
    mu_same(r, want, 32, "hole");
    mu_ok(MPI_File_close(&fh), "close");
    MPI_Info_free(&info);
    MPI_Type_free(&one);
    MPI_Type_free(&ft);
    MPI_Type_free(&h2);
    return mu_finish();
}
