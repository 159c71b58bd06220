/* Issue 30: what a log container's write phase costs the file system's
 * metadata server, counted (on CephFS each of these is a synchronous round
 * trip; docs/pfs.md, "The log container's fixed cost"):
 *  - a writing open of an existing container fsyncs nothing (its `open`
 *    size record is information only, docs/containers.md);
 *  - close (rank 0 derives and publishes the clean size) opens no writer's
 *    data log: the listing's sizes serve, and a record past them makes the
 *    loader look again (checked here too, with data appended after a
 *    listing);
 * and the bytes read back, the size, and the clean size record trusted.
 * fsync, fdatasync and the opens are counted by wrappers in this program
 * (the library is linked in statically; opencount.c for opens). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colltest.h"
#include "container/container.h"
#include "container/log/log.h"
#include "opencount.h"

static long nsync;

int fsync(int fd)
{
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  __atomic_add_fetch(&nsync, 1, __ATOMIC_SEQ_CST);
  return real(fd);
}

int fdatasync(int fd)
{
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  __atomic_add_fetch(&nsync, 1, __ATOMIC_SEQ_CST);
  return real(fd);
}

#define BLK 4096
#define NBLK 32

static int rank, nprocs, fails;

#define MCHECK(c, ...)                                                         \
  do {                                                                        \
    if (!(c)) {                                                               \
      fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);          \
      fprintf(stderr, __VA_ARGS__);                                           \
      fprintf(stderr, "\n");                                                  \
      fails++;                                                                \
    }                                                                         \
  } while (0)

static unsigned char byte_of(int pass, int64_t off)
{
  return (unsigned char)(1 + (off * 7 + pass * 31 + off / BLK) % 253);
}

/* One collective write: rank r's blocks i at (i * P + r) * BLK. */
static void write_pass(ostio_file *fh, int pass)
{
  ostio_extent ext[NBLK];
  unsigned char *buf = malloc((size_t)NBLK * BLK);
  for (int i = 0; i < NBLK; i++) {
    ext[i].offset = ((int64_t)i * nprocs + rank) * BLK;
    ext[i].length = BLK;
    for (int k = 0; k < BLK; k++) buf[(size_t)i * BLK + k] = byte_of(pass, ext[i].offset + k);
  }
  MCHECK(ostio_write_all(fh, ext, NBLK, buf) == 0, "write_all: %s", ostio_last_error());
  free(buf);
}

static MPI_Info log_info(void)
{
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_container", "log");
  return info;
}

/* Every byte read back (read_all on every rank: the whole file) is pass's. */
static void check_bytes(const char *path, int pass)
{
  ostio_file *fh = NULL;
  int64_t total = (int64_t)NBLK * nprocs * BLK, size = -1;
  MCHECK(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0, "open: %s",
        ostio_last_error());
  if (!fh) return;
  MCHECK(ostio_get_size(fh, &size) == 0 && size == total, "size %lld, want %lld",
        (long long)size, (long long)total);
  unsigned char *buf = malloc((size_t)total);
  ostio_extent e = {0, total};
  MCHECK(ostio_read_all(fh, &e, 1, buf) == 0, "read_all: %s", ostio_last_error());
  int64_t bad = -1;
  for (int64_t o = 0; o < total && bad < 0; o++)
    if (buf[o] != byte_of(pass, o)) bad = o;
  MCHECK(bad < 0, "byte %lld differs after pass %d", (long long)bad, pass);
  free(buf);
  MCHECK(ostio_close(&fh) == 0, "close: %s", ostio_last_error());
}

/* Rank 0: the size record is clean, trusted (matches the index logs) and exact. */
static void check_record(const char *path)
{
  if (rank != 0) return;
  ostio__logdir *d = NULL;
  ostio__sizerec rec;
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc == 0) rc = ostio__sizerec_read(d->dirfd, path, &rec);
  MCHECK(rc == 0 && rec.clean && ostio__log_rec_trusted(d, &rec) &&
        rec.size == (int64_t)NBLK * nprocs * BLK,
        "size record not clean, trusted and exact (rc %d): %s", rc, ostio_last_error());
  ostio__log_close(&d);
}

/* Module API, one process: a listing, then a writer appends data and a
 * record; loading with that (older) listing finds every record's data. */
static void test_listing_older(const char *dir)
{
  char path[512];
  snprintf(path, sizeof path, "%s/old.log", dir);
  ostio_file *fh = NULL;
  MPI_Info info = log_info();
  MCHECK(ostio_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh) == 0,
        "open: %s", ostio_last_error());
  MPI_Info_free(&info);
  unsigned char b[BLK];
  for (int k = 0; k < BLK; k++) b[k] = byte_of(5, k);
  MCHECK(fh && ostio_write_at(fh, 0, b, BLK) == 0 && ostio_sync(fh) == 0, "write: %s",
        ostio_last_error());
  ostio__logdir *d = NULL;
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d); /* data log: 4096 bytes listed */
  for (int k = 0; k < BLK; k++) b[k] = byte_of(6, BLK + k);
  MCHECK(ostio_write_at(fh, BLK, b, BLK) == 0 && ostio_close(&fh) == 0, "write: %s",
        ostio_last_error());
  ostio__logmap map;
  ostio__logload st = {0};
  ostio__logmap_init(&map);
  if (rc == 0) rc = ostio__log_load_all(d, &map, &st);
  MCHECK(rc == 0 && st.past_data == 0 && map.size == 2 * BLK,
        "load with an older listing: rc %d, %lld records past their data, size %lld", rc,
        (long long)st.past_data, (long long)map.size);
  ostio__logmap_free(&map);
  ostio__log_close(&d);
  unsigned char r[2 * BLK];
  MCHECK(ostio_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0 &&
        ostio_read_at(fh, 0, r, sizeof r) == 0 && ostio_close(&fh) == 0, "read: %s",
        ostio_last_error());
  for (int k = 0; k < 2 * BLK; k++)
    if (r[k] != byte_of(k < BLK ? 5 : 6, k)) {
      MCHECK(0, "byte %d of the older-listing container differs", k);
      break;
    }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char dir[256];
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "logmeta") < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  char path[512], last[32];
  snprintf(path, sizeof path, "%s/c.log", dir);

  /* Session 1: create, write, sync, close. */
  ostio_file *fh = NULL;
  MPI_Info info = log_info();
  MCHECK(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh) == 0,
        "open: %s", ostio_last_error());
  MPI_Info_free(&info);
  write_pass(fh, 1);
  MCHECK(ostio_sync(fh) == 0, "sync: %s", ostio_last_error());
  /* Close: rank 0 derives the size; the last rank's data log is not opened. */
  snprintf(last, sizeof last, "data.1.%d", nprocs - 1);
  oc_watch(last);
  MCHECK(ostio_close(&fh) == 0, "close: %s", ostio_last_error());
  long opened = oc_count();
  oc_watch(NULL);
  MCHECK(opened == 0, "close opened %s %ld times (want 0: the listing's size serves)", last,
        opened);
  check_record(path);
  check_bytes(path, 1);

  /* Session 2: a writing open of the existing container fsyncs nothing. */
  MPI_Barrier(MPI_COMM_WORLD);
  __atomic_store_n(&nsync, 0, __ATOMIC_SEQ_CST);
  MCHECK(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) == 0, "open: %s",
        ostio_last_error());
  long synced = __atomic_load_n(&nsync, __ATOMIC_SEQ_CST);
  MCHECK(synced == 0, "a writing open made %ld fsync/fdatasync calls (want 0)", synced);
  write_pass(fh, 2);
  MCHECK(ostio_close(&fh) == 0, "close: %s", ostio_last_error());
  check_record(path);
  check_bytes(path, 2);

  if (rank == 0) test_listing_older(dir);

  ct_rmtree(MPI_COMM_WORLD, dir);
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_log_meta: %s (%d failures)\n", all ? "FAILED" : "ok", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
