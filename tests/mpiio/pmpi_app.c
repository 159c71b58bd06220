/* pmpi_app PATH [mpi|pmpi]: the MPI-IO program of tests/mpiio/pmpi_tool.sh.
 * Every rank of MPI_COMM_WORLD: open PATH (create, read-write), write_at_all
 * 1 KiB at rank * 1 KiB, write_at 256 bytes at nprocs KiB + rank * 256,
 * read_at_all its KiB back and check it, close; then rank 0 checks the size.
 * Each byte names its writer and offset. "pmpi" makes the same calls through
 * the profiling names (PMPI_File_*), as ROMIO's psimple does. Prints
 * "No Errors" on rank 0 when every rank passed. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#define BLOCK 1024
#define TAIL 256

static unsigned char byte_at(int rank, long off)
{
  return (unsigned char)(rank * 31 + off * 7 + 1);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, np = 1, errs = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: pmpi_app PATH [mpi|pmpi]\n");
    MPI_Finalize();
    return 2;
  }
  int pmpi = argc > 2 && strcmp(argv[2], "pmpi") == 0;
  __typeof__(MPI_File_open) *f_open = pmpi ? PMPI_File_open : MPI_File_open;
  __typeof__(MPI_File_close) *f_close = pmpi ? PMPI_File_close : MPI_File_close;
  __typeof__(MPI_File_write_at) *f_write_at = pmpi ? PMPI_File_write_at : MPI_File_write_at;
  __typeof__(MPI_File_write_at_all) *f_write_at_all =
      pmpi ? PMPI_File_write_at_all : MPI_File_write_at_all;
  __typeof__(MPI_File_read_at_all) *f_read_at_all =
      pmpi ? PMPI_File_read_at_all : MPI_File_read_at_all;
  __typeof__(MPI_File_get_size) *f_get_size = pmpi ? PMPI_File_get_size : MPI_File_get_size;

  unsigned char block[BLOCK], tail[TAIL], back[BLOCK];
  long boff = (long)rank * BLOCK, toff = (long)np * BLOCK + (long)rank * TAIL;
  for (int i = 0; i < BLOCK; i++) block[i] = byte_at(rank, boff + i);
  for (int i = 0; i < TAIL; i++) tail[i] = byte_at(rank, toff + i);

  MPI_File fh = MPI_FILE_NULL;
  int rc = f_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "rank %d: open %s failed (%d)\n", rank, argv[1], rc);
    errs++;
  }
  if (!errs && f_write_at_all(fh, boff, block, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    fprintf(stderr, "rank %d: write_at_all failed\n", rank);
    errs++;
  }
  if (!errs && f_write_at(fh, toff, tail, TAIL, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    fprintf(stderr, "rank %d: write_at failed\n", rank);
    errs++;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  memset(back, 0, sizeof back);
  if (!errs && f_read_at_all(fh, boff, back, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    fprintf(stderr, "rank %d: read_at_all failed\n", rank);
    errs++;
  }
  if (!errs && memcmp(back, block, BLOCK) != 0) {
    fprintf(stderr, "rank %d: read_at_all gave other bytes than written\n", rank);
    errs++;
  }
  MPI_Offset size = -1;
  if (!errs && f_get_size(fh, &size) == MPI_SUCCESS && size != (MPI_Offset)np * (BLOCK + TAIL)) {
    fprintf(stderr, "rank %d: size %lld, expected %d\n", rank, (long long)size, np * (BLOCK + TAIL));
    errs++;
  }
  if (fh != MPI_FILE_NULL && f_close(&fh) != MPI_SUCCESS) {
    fprintf(stderr, "rank %d: close failed\n", rank);
    errs++;
  }
  int all = 0;
  MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) printf("No Errors\n");
  MPI_Finalize();
  return all != 0;
}
