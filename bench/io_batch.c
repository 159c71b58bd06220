/* Micro-benchmark of ostio__io_write_batch: the pwrite loop against the
 * io_uring path, on the pieces one object of a striped file receives (N
 * pieces of SIZE bytes, one every COUNT*SIZE bytes: a stride pattern that
 * never merges). Best of REPS, without and with the final fsync; a fresh
 * file each time. Not a test: it prints a table (docs/io.md quotes it).
 *
 *   ostio_bench_io_batch [-d DIR] [-n PIECES] [-r REPS] [-c COUNT] [-s SIZE,...]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  double write, total; /* seconds: batch only, batch + fsync */
} timing;

/* One run: fresh file, one batch, fsync. ring: 0 loop, 1 io_uring. */
static int run(const char *path, const ostio__io_req *q, size_t n, int ring, timing *t,
               int *ring_used)
{
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    fprintf(stderr, "ostio_bench_io_batch: cannot create %s: %s\n", path, strerror(errno));
    return -1;
  }
  ostio__io io;
  int rc = ostio__io_init(&io, fd, 0, NULL, NULL);
  io.uring_use = ring;
  io.uring_min = 1;
  double t0 = now();
  if (rc == 0) rc = ostio__io_write_batch(&io, q, n);
  double t1 = now();
  if (rc == 0 && fsync(fd) != 0) rc = -1;
  double t2 = now();
  *ring_used = io.uring_state > 0;
  ostio__io_fini(&io);
  close(fd);
  unlink(path);
  if (rc != 0) {
    fprintf(stderr, "ostio_bench_io_batch: %s\n", ostio_last_error());
    return -1;
  }
  t->write = t1 - t0;
  t->total = t2 - t0;
  return 0;
}

int main(int argc, char **argv)
{
  const char *dir = "/tmp";
  size_t npieces = 4096;
  int reps = 5, count = 4;
  char sizes_arg[256] = "4096,65536,1048576";
  int opt;
  while ((opt = getopt(argc, argv, "d:n:r:c:s:h")) != -1) {
    switch (opt) {
    case 'd': dir = optarg; break;
    case 'n': npieces = (size_t)strtoull(optarg, NULL, 10); break;
    case 'r': reps = atoi(optarg); break;
    case 'c': count = atoi(optarg); break;
    case 's': snprintf(sizes_arg, sizeof sizes_arg, "%s", optarg); break;
    default:
      printf("usage: %s [-d DIR] [-n PIECES] [-r REPS] [-c STRIPE_COUNT] [-s SIZE,...]\n",
             argv[0]);
      return opt == 'h' ? 0 : 2;
    }
  }
  if (npieces < 1 || reps < 1 || count < 1) {
    fprintf(stderr, "ostio_bench_io_batch: -n, -r and -c take positive numbers\n");
    return 2;
  }
  char path[512];
  snprintf(path, sizeof path, "%s/ostio-bench-io-batch.%d", dir, (int)getpid());
  printf("# %zu pieces per batch, one every %d pieces (one object of a %d-stripe file), "
         "best of %d, file %s\n", npieces, count, count, reps, path);
  printf("# %-9s %-7s %12s %12s %12s %12s\n", "size", "path", "write ms", "MiB/s",
         "+fsync ms", "MiB/s");

  for (char *tok = strtok(sizes_arg, ","); tok; tok = strtok(NULL, ",")) {
    size_t size = (size_t)strtoull(tok, NULL, 0);
    if (size < 1) continue;
    char *buf = malloc(size);
    ostio__io_req *q = malloc(npieces * sizeof *q);
    if (!buf || !q) {
      fprintf(stderr, "ostio_bench_io_batch: out of memory\n");
      return 1;
    }
    memset(buf, 'x', size);
    for (size_t k = 0; k < npieces; k++)
      q[k] = (ostio__io_req){.off = (int64_t)(k * (size_t)count * size), .len = (int64_t)size,
                             .buf = buf};
    timing best[2] = {{1e30, 1e30}, {1e30, 1e30}};
    int used = 0;
    for (int r = 0; r < reps; r++)
      for (int i = 0; i < 2; i++) {
        int ring = (r + i) % 2; /* alternate which goes first */
        timing t;
        int u;
        if (run(path, q, npieces, ring, &t, &u) < 0) return 1;
        if (ring) used = u;
        if (t.write < best[ring].write) best[ring].write = t.write;
        if (t.total < best[ring].total) best[ring].total = t.total;
      }
    double mib = (double)npieces * (double)size / (1 << 20);
    for (int ring = 0; ring < 2; ring++)
      printf("  %-9zu %-7s %12.2f %12.0f %12.2f %12.0f\n", size,
             ring ? (used ? "uring" : "uring*") : "pwrite", 1e3 * best[ring].write,
             mib / best[ring].write, 1e3 * best[ring].total, mib / best[ring].total);
    free(buf);
    free(q);
  }
  printf("# uring*: the ring could not be set up, the loop ran instead\n");
  return 0;
}
