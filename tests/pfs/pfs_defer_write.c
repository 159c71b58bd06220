/* pfs_defer_write PATH MIB [HINTS [indep]]: the collective write of
 * tests/pfs/defer_open.sh. Every rank writes its 4 KiB blocks of MIB MiB, blocks
 * interleaved over the ranks (block i is rank i % P's), in one ostio_write_all with
 * HINTS ("key=value ..."; none: ostio's defaults, strategy auto), then ostio_sync
 * and ostio_close. With `indep` (tests/pfs/cache_one_client.sh) each block is one
 * ostio_write_at instead. Then every rank reads the
 * whole file back with read(2) on its own client and checks every byte (the
 * pattern names the block's writer and offset). Prints "ok" on rank 0; exit 0
 * when every rank found every byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ostio.h"

#define BLK 4096

static unsigned char pat(int64_t off, int r) { return (unsigned char)(off * 13 + (off >> 12) * 7 + r * 41 + 3); }

static int info_from(const char *spec, MPI_Info info)
{
  char *copy = strdup(spec ? spec : ""), *save = NULL;
  if (!copy) return -1;
  for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(w, '=');
    if (!eq) {
      free(copy);
      return -1;
    }
    *eq = '\0';
    MPI_Info_set(info, w, eq + 1);
  }
  free(copy);
  return 0;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, P, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long mib = argc >= 3 ? atol(argv[2]) : 0;
  if (argc < 3 || mib < 1 || mib > 1024) {
    if (rank == 0) fprintf(stderr, "usage: pfs_defer_write PATH MIB(1-1024) [HINTS [indep]]\n");
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1];
  int64_t total = (int64_t)mib << 20, nblk = total / BLK;
  size_t mine = 0;
  ostio_extent *e = malloc((size_t)(nblk / P + 1) * sizeof *e);
  unsigned char *buf = malloc((size_t)(nblk / P + 1) * BLK);
  if (!e || !buf) bad = 1;
  for (int64_t b = rank; !bad && b < nblk; b += P) {
    e[mine] = (ostio_extent){b * BLK, BLK};
    for (int k = 0; k < BLK; k++) buf[mine * BLK + (size_t)k] = pat(b * BLK + k, rank);
    mine++;
  }
  MPI_Info info;
  MPI_Info_create(&info);
  if (info_from(argc >= 4 ? argv[3] : "", info) < 0) bad = 1;
  ostio_file *fh = NULL;
  int rc = bad ? OSTIO_EINVAL : 0;
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rc == 0) rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  int indep = argc >= 5 && !strcmp(argv[4], "indep");
  if (rc == 0 && !indep) rc = ostio_write_all(fh, e, mine, buf);
  for (size_t i = 0; rc == 0 && indep && i < mine; i++)
    rc = ostio_write_at(fh, e[i].offset, buf + i * BLK, BLK);
  if (rc == 0) rc = ostio_sync(fh);
  if (fh) {
    int rc2 = ostio_close(&fh);
    if (rc == 0) rc = rc2;
  }
  if (rc < 0) {
    fprintf(stderr, "rank %d: %s (%s)\n", rank, ostio_strerror(rc), ostio_last_error());
    bad = 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Every byte, read back on this rank's own client. */
  int fd = bad ? -1 : open(path, O_RDONLY);
  unsigned char blk[BLK];
  int64_t wrong = 0, got = 0;
  for (int64_t b = 0; fd >= 0 && b < nblk; b++) {
    ssize_t n = pread(fd, blk, BLK, (off_t)(b * BLK));
    got += n > 0 ? n : 0;
    for (int k = 0; k < BLK; k++) wrong += n != BLK || blk[k] != pat(b * BLK + k, (int)(b % P));
  }
  if (fd >= 0) close(fd);
  if (!bad && (got != total || wrong)) {
    fprintf(stderr, "rank %d: read %lld of %lld bytes back, %lld wrong\n", rank, (long long)got,
            (long long)total, (long long)wrong);
    bad = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !bad)
    printf("ok: %d ranks, %ld MiB in 4 KiB blocks (%s), every byte read back on every rank\n", P,
           mib, indep ? "independent calls" : "one collective call");
  MPI_Info_free(&info);
  free(e);
  free(buf);
  MPI_Finalize();
  return bad;
}
