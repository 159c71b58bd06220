/* libostio-mpiio and MPI-4 large-count datatypes (issue 28 item 9; docs/mpiio.md,
 * "Datatypes"): file views and memory types built with the MPI_Type_*_c
 * constructors (as mpi4py 4 builds every derived type) write and read the same
 * bytes as the same types built with the classic constructors; a count beyond
 * INT_MAX in such a type is refused with a reason, not misread;
 * MPI_File_get_type_extent_c is served on an ostio file. Skipped (77) where
 * mpi.h has no large-count calls (MPI < 4: Open MPI 4.1). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#if MPI_VERSION >= 4

static int rank, nprocs;
static char dir[512];

enum { NCASE = 9 };
static const char *const names[NCASE] = {"contiguous", "vector", "hvector", "indexed",
                                          "hindexed", "indexed_block", "struct", "subarray",
                                          "resized"};

/* Case k as a filetype, classic (large == 0) or large-count. */
static MPI_Datatype make(int k, int large)
{
  MPI_Datatype t = MPI_DATATYPE_NULL, tmp;
  int P = nprocs;
  int bl[3] = {2, 1, 3}, ds[3] = {0, 3 * P, 5 * P};
  MPI_Count cbl[3] = {2, 1, 3}, cds[3] = {0, 3 * P, 5 * P};
  MPI_Aint ads[3] = {0, 12 * P, 20 * P};
  MPI_Count cads[3] = {0, 12 * P, 20 * P};
  switch (k) {
  case 0:
    if (large) MPI_Type_contiguous_c(3, MPI_INT, &tmp);
    else MPI_Type_contiguous(3, MPI_INT, &tmp);
    if (large) MPI_Type_create_resized_c(tmp, 0, 12 * P, &t);
    else MPI_Type_create_resized(tmp, 0, 12 * P, &t);
    MPI_Type_free(&tmp);
    break;
  case 1:
    if (large) MPI_Type_vector_c(4, 2, 2 * P, MPI_INT, &t);
    else MPI_Type_vector(4, 2, 2 * P, MPI_INT, &t);
    break;
  case 2:
    if (large) MPI_Type_create_hvector_c(4, 1, 8 * P, MPI_DOUBLE, &t);
    else MPI_Type_create_hvector(4, 1, 8 * P, MPI_DOUBLE, &t);
    break;
  case 3:
    if (large) MPI_Type_indexed_c(3, cbl, cds, MPI_INT, &t);
    else MPI_Type_indexed(3, bl, ds, MPI_INT, &t);
    break;
  case 4:
    if (large) MPI_Type_create_hindexed_c(3, cbl, cads, MPI_INT, &t);
    else MPI_Type_create_hindexed(3, bl, ads, MPI_INT, &t);
    break;
  case 5:
    if (large) MPI_Type_create_indexed_block_c(3, 2, cds, MPI_INT, &t);
    else MPI_Type_create_indexed_block(3, 2, ds, MPI_INT, &t);
    break;
  case 6: {
    MPI_Datatype ts[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    if (large) MPI_Type_create_struct_c(3, cbl, cads, ts, &t);
    else MPI_Type_create_struct(3, bl, ads, ts, &t);
    break;
  }
  case 7: {
    int sz[2] = {4, 4 * P}, sub[2] = {3, 2}, st[2] = {1, 0};
    MPI_Count csz[2] = {4, 4 * P}, csub[2] = {3, 2}, cst[2] = {1, 0};
    if (large) MPI_Type_create_subarray_c(2, csz, csub, cst, MPI_ORDER_C, MPI_INT, &t);
    else MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
    break;
  }
  case 8:
    if (large) MPI_Type_vector_c(2, 1, 2, MPI_INT, &tmp);
    else MPI_Type_vector(2, 1, 2, MPI_INT, &tmp);
    if (large) MPI_Type_create_resized_c(tmp, -4, 16 * P, &t);
    else MPI_Type_create_resized(tmp, -4, 16 * P, &t);
    MPI_Type_free(&tmp);
    break;
  }
  MPI_Type_commit(&t);
  return t;
}

/* Writes 3 instances' worth of data through case k's view at displacement
 * 64 + 1024 * rank (disjoint per rank) and returns the file's bytes (rank 0; malloc'd, *len). */
static char *run(int k, int large, int64_t *len)
{
  char path[600];
  snprintf(path, sizeof path, "%s/%s.%s", dir, names[k], large ? "large" : "classic");
  MPI_Datatype ft = make(k, large);
  MPI_Count size = 0;
  MPI_Type_size_c(ft, &size);
  int n = (int)size * 3;
  char *buf = malloc((size_t)n), *back = malloc((size_t)n);
  for (int i = 0; i < n; i++) buf[i] = (char)(1 + rank * 50 + i);
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                         &fh);
  CHECKF(rc == MPI_SUCCESS, "%s: open", path);
  rc = MPI_File_set_view(fh, 64 + 1024 * rank, MPI_BYTE, ft, "native", MPI_INFO_NULL);
  CHECKF(rc == MPI_SUCCESS, "%s %s: set_view refused", names[k], large ? "_c" : "classic");
  CHECK(MPI_File_write_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
  memset(back, 0, (size_t)n);
  CHECK(MPI_File_read_all(fh, back, n, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  CHECKF(!memcmp(buf, back, (size_t)n), "%s %s: read back differs", names[k],
         large ? "_c" : "classic");
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  MPI_Type_free(&ft);
  free(buf);
  free(back);
  char *data = NULL;
  *len = 0;
  if (rank == 0) {
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    *len = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
    data = calloc(1, (size_t)*len + 1);
    if (fd >= 0) {
      CHECK_EQ_I64(pread(fd, data, (size_t)*len, 0), *len);
      close(fd);
    }
  }
  return data;
}

/* A memory type built with a _c constructor: every other int of buf. */
static void memory_type(void)
{
  char path[600];
  snprintf(path, sizeof path, "%s/memtype", dir);
  MPI_Datatype mt;
  MPI_Type_vector_c(8, 1, 2, MPI_INT, &mt);
  MPI_Type_commit(&mt);
  int buf[16], want[8];
  for (int i = 0; i < 16; i++) buf[i] = i % 2 ? -1 : 100 * rank + i;
  for (int i = 0; i < 8; i++) want[i] = 100 * rank + 2 * i;
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) == MPI_SUCCESS);
  CHECK(MPI_File_write_at_all(fh, rank * 32, buf, 1, mt, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  MPI_Count ext = 0;
  CHECK(MPI_File_get_type_extent_c(fh, mt, &ext) == MPI_SUCCESS);
  CHECK_EQ_I64(ext, 15 * 4);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  int fd = open(path, O_RDONLY), got[8] = {0};
  CHECK(fd >= 0);
  if (fd >= 0) {
    CHECK_EQ_I64(pread(fd, got, 32, rank * 32), 32);
    close(fd);
  }
  CHECK(!memcmp(got, want, 32));
  MPI_Type_free(&mt);
}

/* A block length beyond INT_MAX: refused by set_view with a reason. */
static void too_large(void)
{
  char path[600];
  snprintf(path, sizeof path, "%s/huge", dir);
  MPI_Datatype t;
  MPI_Type_vector_c(1, (MPI_Count)1 << 32, 1, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) == MPI_SUCCESS);
  int rc = MPI_File_set_view(fh, 0, MPI_BYTE, t, "native", MPI_INFO_NULL);
  CHECK(rc != MPI_SUCCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "largecount") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  setenv("OSTIO_MPIIO_PATHS", dir, 1);
  for (int k = 0; k < NCASE; k++) {
    int64_t la = 0, lb = 0;
    char *a = run(k, 0, &la), *b = run(k, 1, &lb);
    if (rank == 0) {
      CHECKF(la == lb && la > 64, "%s: sizes %lld (classic) and %lld (_c)", names[k],
             (long long)la, (long long)lb);
      CHECKF(la == lb && !memcmp(a, b, (size_t)la), "%s: the _c view wrote other bytes",
             names[k]);
    }
    free(a);
    free(b);
  }
  memory_type();
  too_large();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}

#else

int main(void)
{
  printf("skipped: mpi.h has no MPI-4 large-count calls (MPI_VERSION %d)\n", MPI_VERSION);
  return 77;
}

#endif
