/* pl_mpi_nto1 PATH [BLOCKS]: N ranks write one shared file with MPI-IO only
 * (no ostio), close it, reopen it and verify every byte against the
 * expected image; rank 0 prints a transcript. run_preload_tests.py runs it
 * on a plain directory and under LD_PRELOAD=libostio-preload.so on a
 * preload directory (ROMIO forced to its POSIX driver with
 * ROMIO_FSTYPE_FORCE=ufs:) and compares the transcripts and md5sum of PATH.
 *
 * The file does not depend on the number of ranks: BLOCKS blocks (default
 * 96) of varying, non-4-KiB-multiple lengths laid end to end, block b
 * written by rank b % N with MPI_File_write_at_all (one block per rank per
 * call, so every call writes an interleaved band). Then, after
 * sync/barrier/sync, each rank overwrites 777 bytes at an odd offset with
 * MPI_File_write_at, and finally every rank appends 64 records of 1000
 * bytes through a strided file view (a vector type, MPI_File_write_all),
 * interleaved by rank. Bytes are a function of (phase, offset), never
 * repeating. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_gen.h"

static size_t block_len(int b) { return 47008 + (size_t)((b * 7919) % 4097); }

static void check(int rc, const char *what)
{
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, msg, &n);
    fprintf(stderr, "pl_mpi_nto1: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 2 || argc > 3) {
    if (rank == 0) fprintf(stderr, "usage: pl_mpi_nto1 PATH [BLOCKS]\n");
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1];
  int blocks = argc > 2 ? atoi(argv[2]) : 96;
  if (blocks < 1) blocks = 1;

  /* The expected image, built on every rank. */
  long long *start = malloc(sizeof *start * (size_t)(blocks + 1));
  start[0] = 0;
  for (int b = 0; b < blocks; b++) start[b + 1] = start[b] + (long long)block_len(b);
  const long long body = start[blocks];
  const int recs = 64, reclen = 1000;
  const long long total = body + (long long)recs * np * reclen;
  unsigned char *img = malloc((size_t)total);
  gen(img, (size_t)body, 1, 0);
  for (int r = 0; r < np; r++) gen(img + (r + 1) * 1000003LL % body, 777, 2, (uint64_t)r);
  gen(img + body, (size_t)(total - body), 3, 0);

  MPI_File fh;
  check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open");
  /* phase 1: one interleaved band of blocks per collective call */
  int rounds = (blocks + np - 1) / np;
  for (int r = 0; r < rounds; r++) {
    int b = r * np + rank;
    MPI_Offset off = b < blocks ? start[b] : 0;
    int len = b < blocks ? (int)block_len(b) : 0;
    check(MPI_File_write_at_all(fh, off, img + (b < blocks ? start[b] : 0), len, MPI_BYTE, MPI_STATUS_IGNORE),
          "write_at_all");
  }
  /* phase 2: independent overwrites, ordered after phase 1 by sync-barrier-sync */
  check(MPI_File_sync(fh), "sync");
  MPI_Barrier(MPI_COMM_WORLD);
  check(MPI_File_sync(fh), "sync");
  long long o2 = (rank + 1) * 1000003LL % body;
  check(MPI_File_write_at(fh, o2, img + o2, 777, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
  /* phase 3: a strided view past the end, records interleaved by rank */
  MPI_Datatype rec, ftype;
  MPI_Type_contiguous(reclen, MPI_BYTE, &rec);
  MPI_Type_create_resized(rec, 0, (MPI_Aint)reclen * np, &ftype);
  MPI_Type_commit(&ftype);
  check(MPI_File_set_view(fh, body + (MPI_Offset)rank * reclen, MPI_BYTE, ftype, "native", MPI_INFO_NULL), "set_view");
  unsigned char *mine = malloc((size_t)recs * reclen);
  for (int i = 0; i < recs; i++)
    memcpy(mine + (size_t)i * reclen, img + body + ((long long)i * np + rank) * reclen, (size_t)reclen);
  check(MPI_File_write_all(fh, mine, recs * reclen, MPI_BYTE, MPI_STATUS_IGNORE), "write_all");
  check(MPI_File_close(&fh), "close");
  MPI_Type_free(&ftype);
  MPI_Type_free(&rec);

  /* read back: each rank a share, collectively */
  check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "reopen");
  MPI_Offset size = -1;
  check(MPI_File_get_size(fh, &size), "get_size");
  long long share = (total + np - 1) / np;
  long long lo = share * rank < total ? share * rank : total;
  long long hi = lo + share < total ? lo + share : total;
  unsigned char *got = malloc((size_t)(hi - lo + 1));
  memset(got, 0xEE, (size_t)(hi - lo + 1));
  MPI_Status st;
  check(MPI_File_read_at_all(fh, lo, got, (int)(hi - lo), MPI_BYTE, &st), "read_at_all");
  int count = 0;
  MPI_Get_count(&st, MPI_BYTE, &count);
  check(MPI_File_close(&fh), "close after read");
  long long bad = 0, first = -1;
  for (long long i = 0; i < hi - lo; i++)
    if (got[i] != img[lo + i]) {
      if (first < 0) first = lo + i;
      bad++;
    }
  long long short_by = (hi - lo) - count, sum[2] = {bad, short_by}, all[2];
  MPI_Reduce(sum, all, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  long long firstall = -1;
  if (first < 0) first = INT64_MAX;
  MPI_Reduce(&first, &firstall, 1, MPI_LONG_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("expected size %lld fnv %016llx\n", total, (unsigned long long)fnv(img, (size_t)total));
    printf("MPI_File_get_size %lld\n", (long long)size);
    printf("read back: %lld bytes short, %lld bytes differ", all[1], all[0]);
    if (all[0]) printf(" (first at %lld)", firstall);
    printf("\n");
  }
  free(got);
  free(mine);
  free(img);
  free(start);
  int ok = rank != 0 || (all[0] == 0 && all[1] == 0 && size == total);
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
