/* ostio_open under misuse and damage (issue 13, items 5 and 7): ranks with
 * different hints, paths or amodes; a log container whose ostio.size is
 * damaged in every way we know. Each case must end (a watchdog alarm turns a
 * hang into a failure), agree on the outcome, and never present wrong bytes.
 * Run with 2 or 3 ranks. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ostio.h"
#include "testutil.h"

static int rank, nprocs;
static char dir[512];
static const char *current = "";

static void on_alarm(int sig)
{
  (void)sig;
  char msg[300];
  int n = snprintf(msg, sizeof msg, "FAIL rank %d: case \"%s\" did not finish in 60 s (hang)\n",
                   rank, current);
  if (write(2, msg, (size_t)n) < 0) _exit(3);
  _exit(3);
}

static void begin(const char *name)
{
  current = name;
  MPI_Barrier(MPI_COMM_WORLD);
  alarm(60);
}

static MPI_Info info_of(const char *k1, const char *v1, const char *k2, const char *v2)
{
  MPI_Info info;
  MPI_Info_create(&info);
  if (k1) MPI_Info_set(info, k1, v1);
  if (k2) MPI_Info_set(info, k2, v2);
  return info;
}

/* Each rank writes 1000 bytes of (rank + 1) at rank * 1000 with write_all. */
static int write_blocks(ostio_file *fh)
{
  char buf[1000];
  memset(buf, rank + 1, sizeof buf);
  ostio_extent e = {(int64_t)rank * 1000, 1000};
  return ostio_write_all(fh, &e, 1, buf);
}

/* Every rank reads the whole file back and checks every block. */
static int blocks_ok(const char *path, MPI_Info info)
{
  ostio_file *fh = NULL;
  int ok = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh) == 0;
  int64_t size = -1;
  char *all = malloc((size_t)nprocs * 1000);
  if (ok) ok = ostio_get_size(fh, &size) == 0 && size == (int64_t)nprocs * 1000;
  if (ok) ok = ostio_read_at(fh, 0, all, (size_t)nprocs * 1000) == 0;
  for (int r = 0; ok && r < nprocs; r++)
    for (int k = 0; k < 1000; k++)
      if (all[r * 1000 + k] != (char)(r + 1)) ok = 0;
  if (fh) ostio_close(&fh);
  free(all);
  return ok;
}

/* Item 7: a hint that changes the collective path, different per rank. */
static void test_hints_disagree(void)
{
  static const char *const strat[] = {"even", "independent", "ost", "aligned"};
  char path[600];
  begin("ostio_strategy differs per rank");
  snprintf(path, sizeof path, "%s/strat.dat", dir);
  MPI_Info info = info_of("ostio_strategy", strat[rank % 4], "striping_factor", "2");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == 0, "rank %d: %s", rank, ostio_last_error());
  if (rc == 0) {
    CHECK(write_blocks(fh) == 0);
    /* Everyone took rank 0's strategy. */
    char mine[32] = "", root[32] = "";
    snprintf(mine, sizeof mine, "%s", ostio_file_strategy(fh));
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    CHECKF(!strcmp(mine, root) && !strcmp(root, "even"), "rank %d used %s, rank 0 %s", rank,
           mine, root);
    CHECK(ostio_close(&fh) == 0);
  }
  MPI_Info_free(&info);
  CHECK(blocks_ok(path, MPI_INFO_NULL));

  begin("ostio_container differs per rank at creation");
  snprintf(path, sizeof path, "%s/kind.dat", dir);
  info = info_of("ostio_container", rank == 0 ? "striped" : "log", "ostio_objects", "2");
  rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == 0, "rank %d: %s", rank, ostio_last_error());
  if (rc == 0) {
    CHECK(write_blocks(fh) == 0);
    CHECK(ostio_close(&fh) == 0);
  }
  MPI_Info_free(&info);
  if (rank == 0) {
    /* Rank 0's kind: objects on disk, no hostdir. */
    char p[700];
    struct stat st;
    snprintf(p, sizeof p, "%s/obj.0000", path);
    CHECKF(stat(p, &st) == 0, "%s: rank 0 asked for a striped container", p);
    snprintf(p, sizeof p, "%s/hostdir.000", path);
    CHECK(stat(p, &st) < 0);
  }
  CHECK(blocks_ok(path, MPI_INFO_NULL));
}

/* Items 5 and 7: different paths or amodes are an agreed error. */
static void test_args_disagree(void)
{
  char path[600];
  MPI_Info log = info_of("ostio_container", "log", NULL, NULL);
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/own%d", dir, k);
    ostio_file *fh = NULL;
    begin("make two log containers");
    int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, log, &fh);
    CHECK(rc == 0 && write_blocks(fh) == 0 && ostio_close(&fh) == 0);
  }
  begin("ranks pass different paths");
  snprintf(path, sizeof path, "%s/own%d", dir, rank % 2);
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, log, &fh);
  if (nprocs > 1)
    CHECKF(rc == OSTIO_EINVAL && fh == NULL, "rank %d: rc %d: %s", rank, rc, ostio_last_error());
  if (fh) ostio_close(&fh);
  begin("ranks pass different amodes");
  snprintf(path, sizeof path, "%s/own0", dir);
  rc = ostio_open(MPI_COMM_WORLD, path, rank ? MPI_MODE_RDONLY : MPI_MODE_RDWR, log, &fh);
  if (nprocs > 1)
    CHECKF(rc == OSTIO_EINVAL && fh == NULL, "rank %d: rc %d: %s", rank, rc, ostio_last_error());
  if (fh) ostio_close(&fh);
  begin("a FIFO in the file's place");
  snprintf(path, sizeof path, "%s/fifo", dir);
  if (rank == 0) CHECK(mkfifo(path, 0644) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = 0; k < 3; k++) {
    int amode = k == 0 ? MPI_MODE_RDONLY : k == 1 ? MPI_MODE_WRONLY : MPI_MODE_RDWR;
    rc = ostio_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
    CHECKF(rc == OSTIO_EINVAL && fh == NULL && strstr(ostio_last_error(), "FIFO"),
           "amode %d: rc %d: %s", amode, rc, ostio_last_error());
    if (fh) ostio_close(&fh);
  }
  snprintf(path, sizeof path, "%s/own0", dir);
  MPI_Info_free(&log);
  CHECK(blocks_ok(path, MPI_INFO_NULL));
}

/* Item 5: a damaged ostio.size is no record; the size comes from the index. */
static void damage(const char *rec, int how)
{
  unlink(rec);
  rmdir(rec);
  int fd;
  switch (how) {
  case 0: /* bit flip in a valid clean record */
  case 1: /* truncated */
  case 6: /* a negative size, resealed wrongly */
    break;
  case 2: /* empty */
    fd = open(rec, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    close(fd);
    return;
  case 3:
    if (symlink("/etc/hostname", rec) < 0) perror("symlink");
    return;
  case 4:
    if (mkfifo(rec, 0644) < 0) perror("mkfifo");
    return;
  case 5:
    if (mkdir(rec, 0755) < 0) perror("mkdir");
    return;
  }
  const char *text = how == 6 ? "ostio-size 2\nstate clean\nsize -5\nindexes 0000000000000000\n"
                              : "ostio-size 1\nstate clean\nsize 3000\n";
  fd = open(rec, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  size_t len = strlen(text);
  if (how == 1) len /= 2;
  char buf[128];
  memcpy(buf, text, len);
  if (how == 0) buf[20] ^= 4;
  if (write(fd, buf, len) != (ssize_t)len) perror("write");
  close(fd);
}

static void test_damaged_sizerec(void)
{
  static const char *const names[] = {"bit flip", "truncated", "empty", "symlink", "FIFO",
                                      "directory", "negative size"};
  MPI_Info log = info_of("ostio_container", "log", NULL, NULL);
  for (int how = 0; how < 7; how++) {
    char path[600], rec[700], name[64];
    snprintf(name, sizeof name, "ostio.size: %s", names[how]);
    snprintf(path, sizeof path, "%s/dmg%d", dir, how);
    snprintf(rec, sizeof rec, "%s/ostio.size", path);
    ostio_file *fh = NULL;
    begin(name);
    int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, log, &fh);
    CHECK(rc == 0 && write_blocks(fh) == 0 && ostio_close(&fh) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) damage(rec, how);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Reading: the size and bytes from the index. */
    CHECKF(blocks_ok(path, MPI_INFO_NULL), "%s: read back", name);
    /* A write-only open: it must not trust the damage either. */
    rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (how == 5) {
      /* A directory in the record's place cannot be replaced: a clean error. */
      CHECKF(rc < 0 && fh == NULL, "%s: rc %d", name, rc);
    } else {
      CHECKF(rc == 0, "%s: rank %d: %s", name, rank, ostio_last_error());
      int64_t size = -1;
      if (rc == 0) CHECK(ostio_get_size(fh, &size) == 0 && size == (int64_t)nprocs * 1000);
      if (rc == 0) CHECK(ostio_close(&fh) == 0);
      CHECKF(blocks_ok(path, MPI_INFO_NULL), "%s: after a write-only open", name);
    }
  }
  MPI_Info_free(&log);
}

/* A failed log append names the logical range, not only the data log's
 * offset (issue 13, smaller items). */
static void test_log_write_error(void)
{
  char path[600];
  snprintf(path, sizeof path, "%s/fault", dir);
  MPI_Info log = info_of("ostio_container", "log", NULL, NULL);
  begin("log write error names the logical range");
  setenv("OSTIO_FAULT", "write:*:1:EIO", 1);
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, log, &fh);
  CHECKF(rc == 0, "%s", ostio_last_error());
  if (rc == 0) {
    char buf[100] = {0};
    rc = ostio_write_at(fh, 1000000 + rank * 100, buf, sizeof buf);
    char want[64];
    snprintf(want, sizeof want, "logical bytes [%d, %d)", 1000000 + rank * 100,
             1000100 + rank * 100);
    CHECKF(rc == OSTIO_EIO && strstr(ostio_last_error(), want), "rc %d: %s", rc,
           ostio_last_error());
    ostio_close(&fh);
  }
  unsetenv("OSTIO_FAULT");
  MPI_Info_free(&log);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  signal(SIGALRM, on_alarm);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "misuse") < 0) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  test_hints_disagree();
  test_args_disagree();
  test_damaged_sizerec();
  test_log_write_error();
  alarm(0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
