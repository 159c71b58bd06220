/* libostio-mpiio and ROMIO's system hints file (issue 28 item 5; docs/hints.md,
 * "Through libostio-mpiio"): the file named by ROMIO_HINTS gives hints to every
 * file ostio opens, under the program's MPI_Info and under OSTIO_HINTS. The
 * shape of ROMIO's syshints test (a file of "key value" lines, one key twice,
 * the program's own romio_cb_read), plus comments, malformed lines and the
 * precedence of the three sources, read back with MPI_File_get_info; the
 * bytes written through such an open are checked with pread. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int rank, nprocs;

static void expect(MPI_Info info, const char *key, const char *want)
{
  char v[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
  if (!want) {
    CHECKF(!flag, "key %s should be absent, is \"%s\"", key, v);
    return;
  }
  CHECKF(flag && !strcmp(v, want), "key %s: want \"%s\", got \"%s\"%s", key, want, v,
         flag ? "" : " (absent)");
}

static void write_file(const char *path, const char *text)
{
  if (rank == 0) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
      fputs(text, f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* ROMIO's own case: the hints file itself opened read-only. */
static void romio_shape(const char *dir)
{
  char hf[600];
  snprintf(hf, sizeof hf, "%s/test_hintfile", dir);
  write_file(hf, "romio_cb_read enable\n"
                 "# a comment line: only the first of two lines of a key counts\n"
                 "ind_rd_buffer_size 49\n"
                 "ind_rd_buffer_size 60\n"
                 "romio_no_indep_rw true\n");
  setenv("ROMIO_HINTS", hf, 1);
  MPI_Info mine, used;
  MPI_Info_create(&mine);
  MPI_Info_set(mine, "romio_cb_read", "disable");
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, hf, MPI_MODE_RDONLY, mine, &fh);
  CHECKF(rc == MPI_SUCCESS, "open %s", hf);
  if (rc == MPI_SUCCESS) {
    CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
    expect(used, "ostio_mpiio", "enable");
    expect(used, "ind_rd_buffer_size", "49");
    expect(used, "romio_no_indep_rw", "true");
    expect(used, "romio_cb_read", "disable");
    MPI_Info_free(&used);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  }
  MPI_Info_free(&mine);
}

/* file < MPI_Info < OSTIO_HINTS; malformed lines skipped; bytes right. */
static void precedence(const char *dir)
{
  char hf[600], path[600];
  snprintf(hf, sizeof hf, "%s/hints2", dir);
  snprintf(path, sizeof path, "%s/data", dir);
  write_file(hf, "\n"
                 "cb_buffer_size 4m\n"          /* the program says 1m      */
                 "cb_nodes\t2\r\n"              /* OSTIO_HINTS says 1; CRLF */
                 "striping_unit 65536 extra\n"  /* three words: skipped     */
                 "romio_ds_read\n"              /* one word: skipped        */
                 "#romio_ds_write enable\n"     /* comment                  */
                 "   ind_wr_buffer_size   1k  \n"
                 "romio_cb_write disable\n"
                 "some_other_layer_key 7\n");
  setenv("ROMIO_HINTS", hf, 1);
  setenv("OSTIO_HINTS", "*:cb_nodes=1", 1);
  MPI_Info mine, used;
  MPI_Info_create(&mine);
  MPI_Info_set(mine, "cb_buffer_size", "1m");
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, mine, &fh);
  CHECKF(rc == MPI_SUCCESS, "open %s", path);
  if (rc != MPI_SUCCESS) goto out;
  CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
  expect(used, "cb_buffer_size", "1048576");
  expect(used, "cb_nodes", "1");
  expect(used, "striping_unit", "0");
  expect(used, "romio_ds_read", "automatic");
  expect(used, "romio_ds_write", "automatic");
  expect(used, "ind_wr_buffer_size", "1024");
  expect(used, "romio_cb_write", "disable");
  expect(used, "some_other_layer_key", "7");
  expect(used, "#romio_ds_write", NULL);
  MPI_Info_free(&used);
  char buf[64];
  for (int i = 0; i < 64; i++) buf[i] = (char)(rank * 64 + i);
  CHECK(MPI_File_write_at_all(fh, rank * 64, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE) == 0);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  if (rank == 0) {
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    for (int r = 0; fd >= 0 && r < nprocs; r++) {
      char got[64];
      CHECK_EQ_I64(pread(fd, got, 64, r * 64), 64);
      for (int i = 0; i < 64; i++) CHECK_EQ_I64(got[i], (char)(r * 64 + i));
    }
    CHECK_EQ_I64(lseek(fd, 0, SEEK_END), 64 * nprocs);
    if (fd >= 0) close(fd);
  }
out:
  unsetenv("OSTIO_HINTS");
  MPI_Info_free(&mine);
}

/* No hints file (ROMIO_HINTS names a missing file): the program's hints alone. */
static void missing(const char *dir)
{
  char hf[600], path[600];
  snprintf(hf, sizeof hf, "%s/no-such-hints", dir);
  snprintf(path, sizeof path, "%s/data2", dir);
  setenv("ROMIO_HINTS", hf, 1);
  MPI_File fh;
  MPI_Info used;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                         &fh);
  CHECK(rc == MPI_SUCCESS);
  if (rc != MPI_SUCCESS) return;
  CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
  expect(used, "ind_rd_buffer_size", "4194304");
  MPI_Info_free(&used);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char dir[512] = "";
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "syshints") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  setenv("OSTIO_MPIIO_PATHS", dir, 1);
  unsetenv("OSTIO_HINTS");
  romio_shape(dir);
  precedence(dir);
  missing(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
