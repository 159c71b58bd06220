/* libostio-mpiio.so linked before the MPI library (the PMPI way): which
 * files it takes, the bytes it puts on disk (read back with POSIX), error
 * classes and messages through the file's error handler, a failure on one
 * rank of a collective call agreed on every rank, atomic mode, the shared
 * file pointer, MPI_MODE_APPEND, MPI_SEEK_END and statuses. Runs with any
 * rank count; the directory comes from tu_tmpdir. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int rank, nprocs;
static char dir[512];

static int cls(int code)
{
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

static int has_key(MPI_File fh, const char *key, const char *want)
{
  MPI_Info info;
  char v[256];
  int flag = 0;
  if (MPI_File_get_info(fh, &info) != MPI_SUCCESS) return 0;
  MPI_Info_get(info, key, 255, v, &flag);
  MPI_Info_free(&info);
  return flag && (!want || !strcmp(v, want));
}

/* A strided view (each rank owns every nprocs-th 8-byte block) written
 * collectively, checked byte by byte with pread. */
static void bytes_on_disk(const char *path, MPI_Info info)
{
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == MPI_SUCCESS, "open %s: class %d", path, cls(rc));
  if (rc) return;
  CHECK(has_key(fh, "ostio_mpiio", "enable"));
  MPI_Datatype vec, ft;
  MPI_Type_vector(32, 1, nprocs, MPI_DOUBLE, &vec);
  MPI_Type_create_resized(vec, 0, 32 * nprocs * 8, &ft);
  MPI_Type_commit(&ft);
  CHECK(MPI_File_set_view(fh, 16 + rank * 8, MPI_DOUBLE, ft, "native", MPI_INFO_NULL) == 0);
  double buf[64];
  for (int i = 0; i < 64; i++) buf[i] = rank * 1000 + i;
  MPI_Status st;
  int count = -1;
  CHECK(MPI_File_write_all(fh, buf, 64, MPI_DOUBLE, &st) == MPI_SUCCESS);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  CHECK_EQ_I64(count, 64);
  MPI_Offset pos = -1, byte = -1, size = -1;
  MPI_File_get_position(fh, &pos);
  CHECK_EQ_I64(pos, 64);
  MPI_File_get_byte_offset(fh, 33, &byte);
  CHECK_EQ_I64(byte, 16 + rank * 8 + (32 * nprocs + nprocs) * 8);
  CHECK(MPI_File_sync(fh) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_File_get_size(fh, &size) == 0);
  CHECK_EQ_I64(size, 16 + 64 * nprocs * 8);
  /* MPI_SEEK_END: the end of this rank's data in the view. */
  CHECK(MPI_File_seek(fh, -4, MPI_SEEK_END) == 0);
  MPI_File_get_position(fh, &pos);
  CHECK_EQ_I64(pos, 60 + (rank < nprocs - 1 ? 1 : 0) * 0);
  /* A read past the end gets what is there: 4 doubles of 10 asked. */
  double rb[10];
  CHECK(MPI_File_read(fh, rb, 10, MPI_DOUBLE, &st) == 0);
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  CHECK_EQ_I64(count, 4);
  CHECK(rb[0] == buf[60] && rb[3] == buf[63]);
  CHECK(MPI_File_close(&fh) == 0);
  MPI_Type_free(&ft);
  MPI_Type_free(&vec);
  if (rank == 0) {
    int fd = open(path, O_RDONLY);
    CHECKF(fd >= 0, "%s is not a plain file", path);
    double d[64 * 64];
    ssize_t got = pread(fd, d, sizeof d, 16);
    CHECK_EQ_I64(got, 64 * nprocs * 8);
    for (int i = 0; i < 64 * nprocs; i++)
      CHECKF(d[i] == (i % nprocs) * 1000 + i / nprocs, "byte block %d holds %g", i, d[i]);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The MPI-4 large-count forms where mpi.h has them (MPICH 4). */
static void large_count(const char *path)
{
#if MPI_VERSION >= 4
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) == 0);
  int64_t w[4] = {rank, rank + 10, rank + 20, rank + 30}, r[4] = {0};
  MPI_Count c = 4;
  MPI_Status st;
  CHECK(MPI_File_write_at_all_c(fh, 32 * rank, w, c, MPI_INT64_T, &st) == 0);
  MPI_Count got = -1;
  MPI_Get_count_c(&st, MPI_INT64_T, &got);
  CHECK_EQ_I64(got, 4);
  MPI_Request rq;
  CHECK(MPI_File_iread_at_c(fh, 32 * rank, r, c, MPI_INT64_T, &rq) == 0);
  CHECK(MPI_Wait(&rq, &st) == 0);
  MPI_Get_count_c(&st, MPI_INT64_T, &got);
  CHECK_EQ_I64(got, 4);
  CHECK(memcmp(r, w, sizeof w) == 0);
  CHECK(MPI_File_close(&fh) == 0);
#else
  (void)path;
#endif
}

static int seen_code, seen_calls;
static MPI_File seen_fh;
static void handler(MPI_File *fh, int *code, ...)
{
  seen_fh = *fh;
  seen_code = *code;
  seen_calls++;
}

static void errors(const char *path)
{
  char p2[600], msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_File fh;
  snprintf(p2, sizeof p2, "%s/missing", dir);
  int rc = MPI_File_open(MPI_COMM_WORLD, p2, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECKF(cls(rc) == MPI_ERR_NO_SUCH_FILE, "missing file: class %d", cls(rc));
  /* The message travels in the code where the MPI library keeps strings of
   * added codes (Open MPI); MPICH 4.0 does not, and ostio prints it. */
  int code = 0, l2 = 0;
  char probe[MPI_MAX_ERROR_STRING];
  MPI_Add_error_code(MPI_ERR_OTHER, &code);
  MPI_Add_error_string(code, "probe");
  MPI_Error_string(code, probe, &l2);
  MPI_Error_string(rc, msg, &len);
  if (!strcmp(probe, "probe"))
    CHECKF(strstr(msg, "ostio") && strstr(msg, "missing"), "message: %s", msg);
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  CHECKF(cls(rc) == MPI_ERR_AMODE, "RDONLY|CREATE: class %d", cls(rc));
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                     MPI_INFO_NULL, &fh);
  CHECKF(cls(rc) == MPI_ERR_FILE_EXISTS, "EXCL on an existing file: class %d", cls(rc));

  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0);
  char c = 'x';
  rc = MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE);
  CHECKF(cls(rc) == MPI_ERR_READ_ONLY, "write on RDONLY: class %d", cls(rc));
  rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
  CHECKF(cls(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "external32: class %d", cls(rc));
  /* Not a whole number of etypes. */
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == 0);
  rc = MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE);
  CHECKF(cls(rc) == MPI_ERR_ARG, "partial etype: class %d", cls(rc));
  /* One rank passes a bad count to a collective: every rank fails, none hangs. */
  int v[4] = {0};
  rc = MPI_File_read_at_all(fh, 0, v, rank == nprocs - 1 ? -1 : 2, MPI_INT, MPI_STATUS_IGNORE);
  CHECKF(cls(rc) == MPI_ERR_ARG, "bad count on rank %d: class %d", nprocs - 1, cls(rc));
  /* The application's handler runs with the handle it holds. */
  MPI_Errhandler eh;
  CHECK(MPI_File_create_errhandler(handler, &eh) == 0);
  CHECK(MPI_File_set_errhandler(fh, eh) == 0);
  seen_calls = 0;
  rc = MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE);
  CHECK(seen_calls == 1 && seen_fh == fh && cls(seen_code) == MPI_ERR_READ_ONLY);
  CHECK(MPI_File_call_errhandler(fh, MPI_ERR_OTHER) == 0 && seen_calls == 2);
  MPI_Errhandler back;
  CHECK(MPI_File_get_errhandler(fh, &back) == 0 && back == eh);
  CHECK(MPI_File_close(&fh) == 0 && fh == MPI_FILE_NULL);
  MPI_Errhandler_free(&eh);
}

/* Every rank reads the same bytes collectively (a header), and writes
 * overlapping bytes collectively: MPI allows both; ostio's engine refuses
 * shared bytes, so the interposer does each rank's part on its own. */
static void overlap(const char *path)
{
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) == 0);
  char hdr[64], got[64];
  for (int i = 0; i < 64; i++) hdr[i] = (char)(i * 7 + 1);
  if (rank == 0) CHECK(MPI_File_write_at(fh, 0, hdr, 64, MPI_CHAR, MPI_STATUS_IGNORE) == 0);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  MPI_Status st;
  int count = -1;
  CHECK(MPI_File_read_at_all(fh, 0, got, 64, MPI_CHAR, &st) == 0);
  MPI_Get_count(&st, MPI_CHAR, &count);
  CHECK_EQ_I64(count, 64);
  CHECK(memcmp(got, hdr, 64) == 0);
  /* Overlapping collective writes: every byte holds some rank's value. */
  char mine[64];
  memset(mine, 'a' + rank, sizeof mine);
  CHECK(MPI_File_write_at_all(fh, 16, mine, 32, MPI_CHAR, MPI_STATUS_IGNORE) == 0);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  CHECK(MPI_File_read_at_all(fh, 0, got, 64, MPI_CHAR, MPI_STATUS_IGNORE) == 0);
  int odd = 0;
  for (int i = 16; i < 48; i++) odd += got[i] < 'a' || got[i] >= 'a' + nprocs;
  CHECK(odd == 0 && memcmp(got, hdr, 16) == 0 && memcmp(got + 48, hdr + 48, 16) == 0);
  CHECK(MPI_File_close(&fh) == 0);
}

/* Atomic mode: ranks write overlapping noncontiguous ranges of one region
 * in turn without synchronising; every read of the region sees whole
 * writes only (all bytes of one writer in every block). */
static void atomic(const char *path)
{
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) == 0);
  CHECK(MPI_File_set_atomicity(fh, 1) == 0);
  int flag = 0;
  MPI_File_get_atomicity(fh, &flag);
  CHECK(flag == 1);
  MPI_Datatype vec;
  MPI_Type_vector(64, 512, 1024, MPI_BYTE, &vec); /* 64 pieces over 64 KiB */
  MPI_Type_commit(&vec);
  static char w[64 * 1024], r[64 * 1024];
  int torn = 0;
  for (int it = 0; it < 30; it++) {
    memset(w, 'A' + rank, sizeof w);
    CHECK(MPI_File_write_at(fh, 0, w, 1, vec, MPI_STATUS_IGNORE) == 0);
    CHECK(MPI_File_read_at(fh, 0, r, 1, vec, MPI_STATUS_IGNORE) == 0);
    /* The data bytes of the vector, back to back in r's typed layout. */
    char first = r[0];
    for (int b = 0; b < 64; b++)
      for (int i = 0; i < 512; i++) torn += r[b * 1024 + i] != first;
  }
  CHECKF(torn == 0, "atomic mode: %d bytes of a read came from another write", torn);
  MPI_Type_free(&vec);
  CHECK(MPI_File_close(&fh) == 0);
}

/* write_shared: every record exactly once; write_ordered: in rank order;
 * MPI_MODE_APPEND starts both pointers at the end. */
static void shared(const char *path)
{
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh) == 0);
  int rec[2];
  for (int i = 0; i < 20; i++) {
    rec[0] = rank, rec[1] = i;
    CHECK(MPI_File_write_shared(fh, rec, 8, MPI_BYTE, MPI_STATUS_IGNORE) == 0);
  }
  rec[0] = 100 + rank, rec[1] = -1;
  CHECK(MPI_File_write_ordered(fh, rec, 8, MPI_BYTE, MPI_STATUS_IGNORE) == 0);
  MPI_Offset sp = -1;
  MPI_File_get_position_shared(fh, &sp);
  CHECK_EQ_I64(sp, 8 * (21 * nprocs));
  CHECK(MPI_File_close(&fh) == 0);
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL,
                      &fh) == 0);
  MPI_File_get_position(fh, &sp);
  CHECK_EQ_I64(sp, 8 * (21 * nprocs));
  CHECK(MPI_File_close(&fh) == 0);
  if (rank == 0) {
    int fd = open(path, O_RDONLY), d[2 * 21 * 64];
    ssize_t got = pread(fd, d, sizeof d, 0);
    CHECK_EQ_I64(got, 8 * 21 * nprocs);
    int seen[64][20] = {{0}};
    for (int k = 0; k < 20 * nprocs; k++)
      if (d[2 * k] >= 0 && d[2 * k] < nprocs && d[2 * k + 1] >= 0 && d[2 * k + 1] < 20)
        seen[d[2 * k]][d[2 * k + 1]]++;
    for (int r = 0; r < nprocs; r++)
      for (int i = 0; i < 20; i++) CHECKF(seen[r][i] == 1, "record (%d, %d) %d times", r, i, seen[r][i]);
    for (int r = 0; r < nprocs; r++)
      CHECKF(d[2 * (20 * nprocs + r)] == 100 + r, "ordered record %d holds %d", r,
             d[2 * (20 * nprocs + r)]);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Issue 28: a zero-data view takes part in collectives, but more than 0
 * bytes through it are refused on every rank (ROMIO would put them at the
 * view's disp); a view one rank refuses leaves every rank's old view and
 * both pointers in place. The file's bytes show where data went. */
static void zero_view(const char *path)
{
  MPI_File fh;
  MPI_Datatype z;
  MPI_Type_contiguous(0, MPI_BYTE, &z);
  MPI_Type_commit(&z);
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) == 0);
  int last = rank == nprocs - 1;
  CHECK(MPI_File_set_view(fh, last ? 0 : 100 + 8 * rank, MPI_BYTE, last ? z : MPI_BYTE,
                          "native", MPI_INFO_NULL) == 0);
  char b[8];
  memset(b, 'a' + rank, sizeof b);
  int rc = MPI_File_write_at_all(fh, 0, b, 8, MPI_BYTE, MPI_STATUS_IGNORE);
  CHECKF(cls(rc) == MPI_ERR_ARG, "8 bytes through a zero view: class %d", cls(rc));
  if (last) {
    rc = MPI_File_write_at(fh, 0, b, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECKF(cls(rc) == MPI_ERR_ARG, "independent 8 bytes through a zero view: class %d",
           cls(rc));
  }
  MPI_Offset size = -1;
  CHECK(MPI_File_get_size(fh, &size) == 0);
  CHECK_EQ_I64(size, 0);
  /* A set_view refused by the last rank (negative disp): every rank fails
   * and keeps its view; the pointers stay where they were. */
  if (!last) CHECK(MPI_File_seek(fh, 1, MPI_SEEK_SET) == 0);
  CHECK(MPI_File_seek_shared(fh, 2, MPI_SEEK_SET) == 0);
  rc = MPI_File_set_view(fh, last ? -1 : 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  CHECKF(cls(rc) == MPI_ERR_ARG, "one rank's negative disp: class %d", cls(rc));
  MPI_Offset pos = -1, spos = -1;
  CHECK(MPI_File_get_position(fh, &pos) == 0);
  CHECK_EQ_I64(pos, last ? 0 : 1);
  CHECK(MPI_File_get_position_shared(fh, &spos) == 0);
  CHECK_EQ_I64(spos, 2);
  rc = MPI_File_write_all(fh, b, last ? 0 : 1, MPI_BYTE, MPI_STATUS_IGNORE);
  CHECKF(rc == 0, "write_all after the refused view: rc %d", rc);
  CHECK(MPI_File_close(&fh) == 0);
  MPI_Type_free(&z);
  /* Each data rank's byte at 100 + 8 * rank + 1, nothing before 100. */
  if (rank == 0) {
    char want[200] = {0}, got[200];
    int64_t end = nprocs > 1 ? 100 + 8 * (nprocs - 2) + 2 : 0;
    for (int r = 0; r + 1 < nprocs; r++) want[100 + 8 * r + 1] = (char)('a' + r);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(got, 1, sizeof got, f) : 0;
    if (f) fclose(f);
    CHECK_EQ_I64((int64_t)n, end);
    CHECK(memcmp(got, want, n) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "mpiio") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  char path[600], other[600];
  snprintf(path, sizeof path, "%s/a", dir);
  snprintf(other, sizeof other, "%s/plain-romio", dir);
  MPI_Info on;
  MPI_Info_create(&on);
  MPI_Info_set(on, "ostio_mpiio", "enable");
  bytes_on_disk(path, on);
  /* Without the hint or OSTIO_MPIIO_PATHS the file is ROMIO's. */
  unsetenv("OSTIO_MPIIO_PATHS");
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, other, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh) == 0);
  CHECK(!has_key(fh, "ostio_mpiio", NULL));
  CHECK(MPI_File_close(&fh) == 0);
  /* From here on the whole directory is ostio's. */
  setenv("OSTIO_MPIIO_PATHS", dir, 1);
  errors(path);
  snprintf(path, sizeof path, "%s/large", dir);
  large_count(path);
  snprintf(path, sizeof path, "%s/overlap", dir);
  overlap(path);
  snprintf(path, sizeof path, "%s/atomic", dir);
  atomic(path);
  snprintf(path, sizeof path, "%s/shared", dir);
  shared(path);
  snprintf(path, sizeof path, "%s/zero_view", dir);
  zero_view(path);
  /* Log containers refuse atomic mode, by name. */
  MPI_Info log;
  MPI_Info_create(&log);
  MPI_Info_set(log, "ostio_container", "log");
  snprintf(path, sizeof path, "%s/log", dir);
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, log, &fh) == 0);
  int rc = MPI_File_set_atomicity(fh, 1);
  CHECKF(cls(rc) == MPI_ERR_UNSUPPORTED_OPERATION, "atomic on a log container: class %d", cls(rc));
  int64_t word = 0x0123456789abcdefLL;
  CHECK(MPI_File_write_at_all(fh, 8 * rank, &word, 8, MPI_BYTE, MPI_STATUS_IGNORE) == 0);
  CHECK(MPI_File_close(&fh) == 0);
  /* An existing container is ostio's wherever it is; ostio_mpiio=disable
   * still hands it to the MPI library. */
  unsetenv("OSTIO_MPIIO_PATHS");
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0);
  MPI_Offset size = -1;
  MPI_File_get_size(fh, &size);
  CHECK_EQ_I64(size, 8 * nprocs);
  CHECK(has_key(fh, "ostio_container", "log"));
  CHECK(MPI_File_close(&fh) == 0);
  setenv("OSTIO_MPIIO_PATHS", dir, 1);
  /* Independent: one rank deletes, a second delete finds nothing. */
  if (rank == 0) {
    CHECK(MPI_File_delete(path, MPI_INFO_NULL) == 0);
    CHECK(access(path, F_OK) != 0);
    CHECK(cls(MPI_File_delete(path, MPI_INFO_NULL)) == MPI_ERR_NO_SUCH_FILE);
  }
  MPI_Info_free(&log);
  MPI_Info_free(&on);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rcx = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rcx;
}
