/* The per-call cost of small collective accesses through libostio-mpiio
 * (issue 29; docs/mpiio.md "Measured"): libostio-mpiio linked before MPI,
 * the program defines the MPI collectives the library calls (they reach
 * these, which count and forward to PMPI_*). IOR's shape -- each rank 4 KiB
 * at (i * nprocs + rank) * 4096 with write_at_all, then read_at_all -- must
 * cost at most two MPI collectives per call, as ROMIO's (two Allgathers)
 * and not three (an agreement on the local checks, the engine's Allgather,
 * the agreed outcome); the bytes read back name their writer and offset,
 * and the status counts them. The checks still agree in an agreed call
 * (after MPI_File_sync; the calls before it settle the handle): one rank with a
 * negative count makes every rank fail its write_at_all, and no byte of
 * that call reaches the file; the same for a read_at_all. Reads count the
 * bytes before the end after MPI_File_set_size shrinks the file (the handle
 * remembers a size it saw: the shrink must reset it). Independent and
 * collective accesses of MPI_BYTE make no datatype query per call (counted
 * like the collectives), and a contiguous view at a displacement reads the
 * bytes at disp + position. Any rank count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define BLK 4096
#define NCALL 16

static int rank, nprocs;
static int counting;
static long ncoll;

static void count(void)
{
  if (counting) ncoll++;
}

#define EXPORT __attribute__((visibility("default")))
EXPORT int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
  count();
  return PMPI_Allreduce(s, r, n, t, op, c);
}
EXPORT int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                         MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
EXPORT int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
  count();
  return PMPI_Bcast(b, n, t, root, c);
}
EXPORT int MPI_Barrier(MPI_Comm c)
{
  count();
  return PMPI_Barrier(c);
}
EXPORT int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                        MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
EXPORT int MPI_Alltoallv(const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r,
                         const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c);
}

/* Datatype queries: a small access of a named type through a contiguous
 * view needs none once the type was seen (its map is kept; the handle
 * value of a named type cannot be reused by a derived one). */
static long ndtq;
static void count_dtq(void)
{
  if (counting) ndtq++;
}
EXPORT int MPI_Type_get_envelope(MPI_Datatype t, int *ni, int *na, int *nd, int *comb)
{
  count_dtq();
  return PMPI_Type_get_envelope(t, ni, na, nd, comb);
}
#if MPI_VERSION >= 4
EXPORT int MPI_Type_get_envelope_c(MPI_Datatype t, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                                   MPI_Count *nd, int *comb)
{
  count_dtq();
  return PMPI_Type_get_envelope_c(t, ni, na, nc, nd, comb);
}
#endif
EXPORT int MPI_Type_get_attr(MPI_Datatype t, int kv, void *v, int *flag)
{
  count_dtq();
  return PMPI_Type_get_attr(t, kv, v, flag);
}

/* Byte j of the block at file offset off. */
static unsigned char pat(int64_t off, int j)
{
  return (unsigned char)((off / BLK) * 37 + j * 13 + 1);
}

static MPI_Offset at(int i)
{
  return ((MPI_Offset)i * nprocs + rank) * BLK;
}

static void run(const char *path)
{
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_mpiio", "enable");
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Info_free(&info);
  CHECKF(rc == MPI_SUCCESS, "open %s", path);
  if (rc != MPI_SUCCESS) return;
  unsigned char buf[BLK];
  MPI_Status st;
  int cnt = -1, ok = 1;

  /* Independent write_at / read_at of MPI_BYTE: the bytes, and no datatype
   * query per call (one warm-up call may decode MPI_BYTE first). */
  for (int j = 0; j < BLK; j++) buf[j] = pat(at(0), j);
  ok &= MPI_File_write_at(fh, at(0), buf, BLK, MPI_BYTE, &st) == MPI_SUCCESS;
  ndtq = 0;
  for (int i = 0; i < NCALL; i++) {
    for (int j = 0; j < BLK; j++) buf[j] = pat(at(i), j);
    counting = 1;
    ok &= MPI_File_write_at(fh, at(i), buf, BLK, MPI_BYTE, &st) == MPI_SUCCESS;
    counting = 0;
  }
  int ibad = 0;
  for (int i = 0; i < NCALL; i++) {
    memset(buf, 0, sizeof buf);
    counting = 1;
    ok &= MPI_File_read_at(fh, at(i), buf, BLK, MPI_BYTE, &st) == MPI_SUCCESS;
    counting = 0;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    ibad += cnt != BLK;
    for (int j = 0; j < BLK; j++) ibad += buf[j] != pat(at(i), j);
  }
  CHECK(ok);
  CHECKF(ibad == 0, "%d wrong bytes or counts read back by read_at", ibad);
  CHECKF(ndtq == 0, "%ld datatype queries (MPI_Type_get_envelope / _get_attr) in %d write_at "
         "and %d read_at calls of MPI_BYTE: expected none", ndtq, NCALL, NCALL);
  MPI_Barrier(MPI_COMM_WORLD);

  /* write_at_all: at most two collectives per call */
  ncoll = 0;
  ndtq = 0;
  for (int i = 0; i < NCALL; i++) {
    for (int j = 0; j < BLK; j++) buf[j] = pat(at(i), j);
    counting = 1;
    rc = MPI_File_write_at_all(fh, at(i), buf, BLK, MPI_BYTE, &st);
    counting = 0;
    ok &= rc == MPI_SUCCESS;
  }
  CHECK(ok);
  CHECKF(ncoll <= 2 * NCALL, "%ld MPI collectives in %d write_at_all calls of %d bytes "
         "(ROMIO: 2 per call)", ncoll, NCALL, BLK);

  /* read_at_all: the bytes, the count, at most two collectives per call */
  ncoll = 0;
  int bad = 0;
  for (int i = 0; i < NCALL; i++) {
    memset(buf, 0, sizeof buf);
    counting = 1;
    rc = MPI_File_read_at_all(fh, at(i), buf, BLK, MPI_BYTE, &st);
    counting = 0;
    ok &= rc == MPI_SUCCESS;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    bad += cnt != BLK;
    for (int j = 0; j < BLK; j++) bad += buf[j] != pat(at(i), j);
  }
  CHECK(ok);
  CHECKF(bad == 0, "%d wrong bytes or counts read back", bad);
  CHECKF(ncoll <= 2 * NCALL, "%ld MPI collectives in %d read_at_all calls of %d bytes "
         "(ROMIO: 2 per call)", ncoll, NCALL, BLK);
  CHECKF(ndtq == 0, "%ld datatype queries in %d write_at_all and read_at_all calls of "
         "MPI_BYTE: expected none", ndtq, 2 * NCALL);

  /* A collective read that reaches past the end: the count is the bytes
   * that exist (the last rank's block ends half a block past the end). */
  int64_t end = (int64_t)NCALL * nprocs * BLK;
  MPI_Offset tail = end - BLK / 2 - (MPI_Offset)(nprocs - 1 - rank) * BLK;
  rc = MPI_File_read_at_all(fh, tail, buf, BLK, MPI_BYTE, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  CHECK(rc == MPI_SUCCESS);
  CHECK_EQ_I64(cnt, rank == nprocs - 1 ? BLK / 2 : BLK);

  /* One rank's bad count in an agreed call (the first after a sync; the
   * calls above settled the handle: docs/collective-auto.md): every rank
   * fails, nothing is written. */
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  for (int j = 0; j < BLK; j++) buf[j] = 0xEE;
  int n = rank == nprocs - 1 ? -1 : BLK;
  rc = MPI_File_write_at_all(fh, at(NCALL), buf, n, MPI_BYTE, &st);
  CHECKF(rc != MPI_SUCCESS, "rank %d: write_at_all succeeded though rank %d passed count -1",
         rank, nprocs - 1);
  MPI_Offset size = 0;
  CHECK(MPI_File_get_size(fh, &size) == MPI_SUCCESS);
  CHECK_EQ_I64(size, end);
  rc = MPI_File_read_at_all(fh, at(0), buf, n, MPI_BYTE, &st);
  CHECKF(rc != MPI_SUCCESS, "rank %d: read_at_all succeeded though rank %d passed count -1",
         rank, nprocs - 1);
  /* ... and the file serves the next collective call */
  rc = MPI_File_read_at_all(fh, at(1), buf, BLK, MPI_BYTE, &st);
  CHECK(rc == MPI_SUCCESS);
  bad = 0;
  for (int j = 0; j < BLK; j++) bad += buf[j] != pat(at(1), j);
  CHECK_EQ_I64(bad, 0);

  /* A contiguous filetype at a displacement (one extent per access, found
   * without walking the type): the bytes written through the default view
   * at disp + position x etype size. */
  MPI_Datatype ct;
  MPI_Type_contiguous(4, MPI_INT, &ct);
  MPI_Type_commit(&ct);
  CHECK(MPI_File_set_view(fh, BLK / 2, MPI_INT, ct, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  bad = 0;
  for (int i = 1; i < NCALL; i++) {
    memset(buf, 0, sizeof buf);
    MPI_Offset pos = (at(i) - BLK / 2) / (MPI_Offset)sizeof(int);
    rc = i % 2 ? MPI_File_read_at_all(fh, pos, buf, BLK, MPI_BYTE, &st)
               : MPI_File_read_at(fh, pos, buf, BLK, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    bad += rc != MPI_SUCCESS || cnt != BLK;
    for (int j = 0; j < BLK; j++) bad += buf[j] != pat(at(i), j);
  }
  CHECKF(bad == 0, "%d wrong bytes or counts through a contiguous view at a displacement", bad);
  CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  MPI_Type_free(&ct);

  /* The reads above left the handle knowing the size (no size read per
   * call below it); set_size shrinks the file and the counts follow: the
   * last rank's last block now lies past the end, collective and not. */
  CHECK(MPI_File_set_size(fh, end - BLK) == MPI_SUCCESS);
  rc = MPI_File_read_at_all(fh, at(NCALL - 1), buf, BLK, MPI_BYTE, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  CHECK(rc == MPI_SUCCESS);
  CHECK_EQ_I64(cnt, rank == nprocs - 1 ? 0 : BLK);
  rc = MPI_File_read_at(fh, at(NCALL - 1) + BLK / 2, buf, BLK / 2, MPI_BYTE, &st);
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  CHECK(rc == MPI_SUCCESS);
  CHECK_EQ_I64(cnt, rank == nprocs - 1 ? 0 : BLK / 2);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  char dir[512] = "";
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "cost") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  char path[600];
  snprintf(path, sizeof path, "%s/ior-shape", dir);
  run(path);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
