/* libostio-mpiio: a bad hint value warns and keeps the default (issue 28 item 6;
 * docs/hints.md, "Through libostio-mpiio"), as ROMIO does. Checks the exact
 * warning lines (captured from stderr: on rank 0 of the open's communicator
 * only, once per key and value per process), the effective values
 * (MPI_File_get_info: the defaults), the bytes written through the open, a
 * bad value from the ROMIO_HINTS file, and the keys that stay errors. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static int rank, nprocs;
static char dir[512], cap[600];
static int saved_err = -1;

static void capture_start(void)
{
  fflush(stderr);
  saved_err = dup(2);
  int fd = open(cap, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  CHECK(fd >= 0);
  dup2(fd, 2);
  close(fd);
}

/* What was written to stderr since capture_start (malloc'd). */
static char *capture_end(void)
{
  fflush(stderr);
  dup2(saved_err, 2);
  close(saved_err);
  static char text[8192];
  int fd = open(cap, O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
  if (fd >= 0) close(fd);
  text[n > 0 ? n : 0] = '\0';
  return text;
}

static void expect(MPI_File fh, const char *key, const char *want)
{
  MPI_Info info;
  char v[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  CHECK(MPI_File_get_info(fh, &info) == MPI_SUCCESS);
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
  MPI_Info_free(&info);
  CHECKF(flag && !strcmp(v, want), "key %s: want \"%s\", got \"%s\"", key, want, v);
}

static int count_lines(const char *text)
{
  int n = 0;
  for (const char *c = text; *c; c++) n += *c == '\n';
  return n;
}

static void has_line(const char *text, const char *line)
{
  char want[2600];
  snprintf(want, sizeof want, "%s\n", line);
  CHECKF(strstr(text, want) != NULL, "missing line:\n%s\nin stderr:\n%s", line, text);
}

static void bad_values(void)
{
  char path[600], hf[600];
  snprintf(path, sizeof path, "%s/data", dir);
  snprintf(hf, sizeof hf, "%s/hints", dir);
  if (rank == 0) {
    FILE *f = fopen(hf, "w");
    if (f) {
      fputs("romio_ds_write sometimes\n", f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("ROMIO_HINTS", hf, 1);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "12x");
  MPI_Info_set(info, "romio_cb_write", "maybe");
  MPI_Info_set(info, "ostio_container", "logs");
  MPI_Info_set(info, "ostio_strategy", "evn");
  MPI_Info_set(info, "striping_factor", "5");
  MPI_File fh;
  for (int round = 0; round < 2; round++) {
    capture_start();
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    char *text = capture_end();
    CHECKF(rc == MPI_SUCCESS, "open with bad values failed (round %d)", round);
    if (rc != MPI_SUCCESS) break;
    if (rank == 0 && round == 0) {
      char l[2400];
      snprintf(l, sizeof l, "ostio-mpiio: warning: MPI_File_open %s: hint cb_buffer_size=\"12x\": "
               "expected a byte count such as 16777216, 16m or 4k (suffixes k, m, g, t; from 1 "
               "to 2147483648); ignored, cb_buffer_size is 16777216", path);
      has_line(text, l);
      snprintf(l, sizeof l, "ostio-mpiio: warning: MPI_File_open %s: hint romio_cb_write="
               "\"maybe\": expected enable, disable or automatic; ignored, romio_cb_write is "
               "automatic", path);
      has_line(text, l);
      snprintf(l, sizeof l, "ostio-mpiio: warning: MPI_File_open %s: hint ostio_container="
               "\"logs\": expected one of plain, striped or log; ignored, ostio_container is "
               "plain", path);
      has_line(text, l);
      snprintf(l, sizeof l, "ostio-mpiio: warning: MPI_File_open %s: hint romio_ds_write="
               "\"sometimes\": expected enable, disable or automatic (from the hints file %s); "
               "ignored, romio_ds_write is automatic", path, hf);
      has_line(text, l);
      CHECKF(strstr(text, "hint ostio_strategy=\"evn\"") != NULL, "no strategy line in:\n%s",
             text);
      CHECKF(count_lines(text) == 5, "rank 0: %d lines, want 5:\n%s", count_lines(text), text);
    } else {
      /* Other ranks never; rank 0 once per key and value per process. */
      CHECKF(text[0] == '\0', "rank %d round %d: unexpected stderr:\n%s", rank, round, text);
    }
    expect(fh, "cb_buffer_size", "16777216");
    expect(fh, "romio_cb_write", "automatic");
    expect(fh, "romio_ds_write", "automatic");
    expect(fh, "ostio_strategy", "auto");
    expect(fh, "ostio_container", "plain");
    expect(fh, "striping_factor", "5");
    char buf[100];
    for (int i = 0; i < 100; i++) buf[i] = (char)(rank + 3 * i + round);
    CHECK(MPI_File_write_at_all(fh, rank * 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE) == 0);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    if (rank == 0) {
      int fd = open(path, O_RDONLY);
      CHECK(fd >= 0);
      for (int r = 0; fd >= 0 && r < nprocs; r++) {
        char got[100];
        CHECK_EQ_I64(pread(fd, got, 100, r * 100), 100);
        for (int i = 0; i < 100; i++) CHECK_EQ_I64(got[i], (char)(r + 3 * i + round));
      }
      if (fd >= 0) close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  unsetenv("ROMIO_HINTS");
  MPI_Info_free(&info);
}

/* Keys that stay errors: the open fails on every rank, MPI_ERR_INFO_VALUE. */
static void still_errors(void)
{
  static const char *const kv[][2] = {
    {"ostio_atomic", "yes"}, {"ostio_stage_sync", "always"}, {"ostio_stratgy", "even"}};
  for (int i = 0; i < 3; i++) {
    char path[600];
    snprintf(path, sizeof path, "%s/strict%d", dir, i);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, kv[i][0], kv[i][1]);
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    int c = -1;
    MPI_Error_class(rc, &c);
    CHECKF(c == MPI_ERR_INFO_VALUE, "%s=%s: class %d", kv[i][0], kv[i][1], c);
    if (rc == MPI_SUCCESS) MPI_File_close(&fh);
    CHECK(access(path, F_OK) != 0);
    MPI_Info_free(&info);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "badhint") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(cap, sizeof cap, "%s/stderr.%d", dir, rank);
  setenv("OSTIO_MPIIO_PATHS", dir, 1);
  unsetenv("OSTIO_HINTS");
  unsetenv("OSTIO_MPIIO_VERBOSE");
  bad_values();
  still_errors();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
