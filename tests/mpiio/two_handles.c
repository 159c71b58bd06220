/* two_handles: one file open twice at once (issue 28), as PnetCDF keeps its
 * collective handle (MPI_COMM_WORLD) and its independent-mode handle
 * (MPI_COMM_SELF, rank 0 here) open together. Writes to the same bytes
 * alternate between the handles: in program order on rank 0 without sync,
 * and across ranks with MPI's sync + barrier + sync; collective and
 * independent; PnetCDF's header (collective write, independent rewrite,
 * collective write last). The newest write wins, as ROMIO gives in a plain
 * file; each of the two files closes its handles in another order. */
#include "mpiio_util.h"

#include <string.h>

#define SLOT 64
#define NSLOT 10
#define FSIZE (SLOT * NSLOT)

static unsigned char model[FSIZE];
static int ntag;

static unsigned char byte_of(int tag, long long off) { return (unsigned char)(1 + (tag * 37 + off) % 251); }

static void fill(unsigned char *b, int tag, long long off, int len)
{
    for (int i = 0; i < len; i++)
        b[i] = byte_of(tag, off + i);
}

/* write_at of [off, off+len) by rank who through fh; the model on every rank. */
static void wr(MPI_File fh, int who, long long off, int len)
{
    unsigned char b[FSIZE];
    MPI_Status st;
    fill(b, ++ntag, off, len);
    if (mu_rank == who)
        mu_ok(MPI_File_write_at(fh, off, b, len, MPI_BYTE, &st), "write_at");
    memcpy(model + off, b, (size_t)len);
}

/* write_at_all: rank who writes, the others count 0. */
static void wr_all(MPI_File fh, int who, long long off, int len)
{
    unsigned char b[FSIZE];
    MPI_Status st;
    fill(b, ++ntag, off, len);
    mu_ok(MPI_File_write_at_all(fh, off, b, mu_rank == who ? len : 0, MPI_BYTE, &st),
          "write_at_all");
    memcpy(model + off, b, (size_t)len);
}

static void one_file(int close_self_first)
{
    const char *path = mu_path(close_self_first ? ".self_first" : ".world_first");
    int last = mu_nprocs - 1;
    MPI_File g = MPI_FILE_NULL, h = MPI_FILE_NULL;
    memset(model, 0, sizeof model);
    ntag = 0;
    if (!mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &g), "open WORLD"))
        return;
    if (mu_rank == 0)
        mu_ok(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, MPI_INFO_NULL, &h),
              "open SELF");
    /* Program order on rank 0, no sync. */
    wr(g, 0, 0, SLOT), wr(h, 0, 0, SLOT);
    wr(h, 0, SLOT, SLOT), wr(g, 0, SLOT, SLOT);
    wr(g, 0, 2 * SLOT, SLOT), wr(h, 0, 2 * SLOT, SLOT), wr(g, 0, 2 * SLOT, SLOT);
    wr(h, 0, 3 * SLOT, SLOT), wr(g, 0, 3 * SLOT + 8, 40), wr(h, 0, 3 * SLOT + 16, 8);
    wr(g, 0, 3 * SLOT + 20, 30);
    /* PnetCDF's header: collective, independent rewrite, collective last. */
    wr_all(g, 0, 4 * SLOT, 32), wr(h, 0, 4 * SLOT, 32), wr_all(g, 0, 4 * SLOT, 32);
    wr_all(g, 0, 5 * SLOT, 32), wr(h, 0, 5 * SLOT + 4, 8);
    /* Across ranks: write; sync; barrier; sync; write. */
    wr(h, 0, 6 * SLOT, SLOT);
    if (mu_rank == 0)
        mu_ok(MPI_File_sync(h), "sync SELF");
    MPI_Barrier(MPI_COMM_WORLD);
    mu_ok(MPI_File_sync(g), "sync WORLD");
    wr(g, last, 6 * SLOT + 8, 16);
    wr(g, last, 7 * SLOT, SLOT);
    mu_ok(MPI_File_sync(g), "sync WORLD");
    MPI_Barrier(MPI_COMM_WORLD);
    if (mu_rank == 0)
        mu_ok(MPI_File_sync(h), "sync SELF");
    wr(h, 0, 7 * SLOT + 4, 4);
    /* A collective write after the other handle's independent one, on the
     * same rank (another rank's part would need a sync first: Open MPI's
     * own MPI-IO lets rank 1 write before rank 0's independent write). */
    wr(h, 0, 8 * SLOT, SLOT);
    wr_all(g, 0, 8 * SLOT + 16, 16);
    wr(h, 0, 9 * SLOT, SLOT);
    wr(g, 0, 9 * SLOT + 4, 4);
    if (close_self_first && mu_rank == 0)
        mu_ok(MPI_File_close(&h), "close SELF");
    mu_ok(MPI_File_close(&g), "close WORLD");
    if (!close_self_first && mu_rank == 0)
        mu_ok(MPI_File_close(&h), "close SELF");
    mu_check_file(path, model, FSIZE);
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    one_file(0);
    one_file(1);
    return mu_finish();
}
