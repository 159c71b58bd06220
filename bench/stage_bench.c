/* ostio_bench_stage: a checkpoint written to a log container straight to the
 * parallel file system (then ostio_sync, then close) against the same
 * checkpoint staged on a node-local directory (ostio_stage_dir) with a
 * compute phase before close during which the node's drain runs; and the
 * drain's bandwidth against `cp` of the same bytes between the two file
 * systems (then fsync). Issue 19's targets; docs/staging.md. Same run, same
 * bytes; every run's container is read back and compared with the pattern.
 *
 *   mpiexec -n 2 ostio_bench_stage --dir PFSDIR --stage STAGEDIR
 *       [--size PER_RANK] [--piece BYTES] [--compute SECONDS] [--reps N]
 *       [--bandwidth BYTES/s]
 *
 * Application time = write + close (staged: the compute phase between them
 * is not counted; direct: write + sync + close). The compute phase is as
 * long as --compute, or 1.5x the direct run's time; rank 0 notes when the
 * container holds every byte. Drain bandwidth = bytes drained / the
 * drains' busy time (statistics stage_drained_bytes, time_stage_drain:
 * copies and fdatasync, not the idle waits), against cp + fsync. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ostio.h"

static int rank, nprocs;
static int64_t size = (int64_t)512 << 20, piece = (int64_t)8 << 20, bw = 0;
static double compute = 0;
static int reps = 3;
static const char *dir, *stage;

static void die(const char *what)
{
  if (rank == 0) fprintf(stderr, "ostio_bench_stage: %s\n", what);
  MPI_Finalize();
  exit(2);
}

static int64_t size_arg(const char *s)
{
  char *end;
  double v = strtod(s, &end);
  int64_t m = 1;
  if (*end == 'k' || *end == 'K') m = 1 << 10;
  else if (*end == 'm' || *end == 'M') m = 1 << 20;
  else if (*end == 'g' || *end == 'G') m = 1 << 30;
  else if (*end) die("a size is a number with an optional k, m or g suffix");
  if (v <= 0) die("sizes must be positive");
  return (int64_t)(v * (double)m);
}

static void fill(char *buf, int64_t off, int64_t len)
{
  for (int64_t i = 0; i < len; i += 8) {
    uint64_t v = (uint64_t)(off + i) * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank;
    memcpy(buf + i, &v, len - i < 8 ? (size_t)(len - i) : 8);
  }
}

/* Bytes of the container's data logs (rank 0): the sizes of data.S.W in its hostdirs. */
static int64_t container_bytes(const char *path)
{
  int64_t total = 0;
  DIR *d = opendir(path);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, "hostdir.", 8)) continue;
    int hfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY);
    DIR *h = hfd >= 0 ? fdopendir(hfd) : NULL;
    struct dirent *f;
    while (h && (f = readdir(h))) {
      struct stat st;
      if (!strncmp(f->d_name, "data.", 5) && fstatat(dirfd(h), f->d_name, &st, 0) == 0)
        total += (int64_t)st.st_size;
    }
    if (h) closedir(h);
    else if (hfd >= 0) close(hfd);
  }
  if (d) closedir(d);
  return total;
}

static void rmtree(const char *path)
{
  if (rank == 0) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "warning: %s failed\n", cmd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static double maxof(double v)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

/* The checkpoint: this rank's state, made once (an application's state is
 * in memory before it checkpoints; making it is not I/O). */
static char *state;

static int write_ckpt(ostio_file *fh, char *buf)
{
  (void)buf;
  for (int64_t at = 0; at < size; at += piece) {
    int64_t n = size - at < piece ? size - at : piece, off = (int64_t)rank * size + at;
    if (ostio_write_at(fh, off, state + at, (size_t)n) != 0) return -1;
  }
  return 0;
}

static int verify(const char *path, char *buf, char *want)
{
  ostio_file *fh = NULL;
  int bad = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != 0;
  for (int64_t at = 0; !bad && at < size; at += piece) {
    int64_t n = size - at < piece ? size - at : piece, off = (int64_t)rank * size + at;
    fill(want, off, n);
    bad = ostio_read_at(fh, off, buf, (size_t)n) != 0 || memcmp(buf, want, (size_t)n) != 0;
  }
  if (fh) ostio_close(&fh);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return bad;
}

static MPI_Info info_for(int staged)
{
  MPI_Info info;
  char v[64];
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_container", "log");
  if (staged) {
    MPI_Info_set(info, "ostio_stage_dir", stage);
    snprintf(v, sizeof v, "%lld", (long long)bw);
    if (bw > 0) MPI_Info_set(info, "ostio_stage_bandwidth", v);
  }
  return info;
}

/* Direct: open, write, sync, close. Returns the time (max over ranks). */
static double run_direct(const char *path, char *buf)
{
  rmtree(path);
  MPI_Info info = info_for(0);
  ostio_file *fh = NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  if (rc == 0) rc = write_ckpt(fh, buf);
  if (rc == 0) rc = ostio_sync(fh);
  if (fh && ostio_close(&fh) != 0) rc = -1;
  double t = MPI_Wtime() - t0;
  MPI_Info_free(&info);
  if (rc) die(ostio_last_error());
  return maxof(t);
}

/* Staged: open, write, compute (rank 0 watches the drain), close. */
static double run_staged(const char *path, char *buf, double *drain_s, double *wait_close)
{
  rmtree(path);
  MPI_Info info = info_for(1);
  ostio_file *fh = NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  if (rc == 0) rc = write_ckpt(fh, buf);
  double t1 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  double tw = maxof(t1), ts = MPI_Wtime();
  /* The compute phase: rank 0 samples the container's size every 20 ms. */
  double done = -1;
  int64_t total = size * nprocs;
  while (MPI_Wtime() - ts < compute) {
    if (rank == 0 && done < 0 && container_bytes(path) >= total) done = MPI_Wtime();
    usleep(20000);
  }
  double t2 = MPI_Wtime();
  if (fh && ostio_close(&fh) != 0) rc = -1;
  double t3 = MPI_Wtime();
  MPI_Info_free(&info);
  if (rc) die(ostio_last_error());
  if (rank == 0) *drain_s = done < 0 ? -1 : done - tw;
  MPI_Bcast(drain_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  *wait_close = maxof(t3 - t2);
  return maxof((t1 - t0) + (t3 - t2));
}

/* cp of the same number of bytes from the stage file system to the PFS,
 * then fsync (rank 0; the bytes of one node). */
static double run_cp(char *buf)
{
  double t = 0;
  if (rank == 0) {
    char src[1200], dst[1200], cmd[4000];
    snprintf(src, sizeof src, "%s/cp-src", stage);
    snprintf(dst, sizeof dst, "%s/cp-dst", dir);
    int fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int64_t at = 0; fd >= 0 && at < size * nprocs; at += piece) {
      fill(buf, at, piece);
      if (write(fd, buf, (size_t)piece) != piece) break;
    }
    if (fd >= 0) close(fd);
    unlink(dst);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && sync '%s'", src, dst, dst);
    double t0 = MPI_Wtime();
    if (system(cmd) != 0) fprintf(stderr, "warning: %s failed\n", cmd);
    t = MPI_Wtime() - t0;
    unlink(src);
    unlink(dst);
  }
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return t;
}

/* The job's statistics document so far (OSTIO_STATS=json:PATH, set by main):
 * the summary's staged bytes drained and the drains' busy time (sum over
 * ranks; only node leaders drain). Rank 0 reads, everyone gets them. */
static char stats_path[1200];
static void drain_totals(double *bytes, double *secs)
{
  double v[2] = {0, 0};
  if (rank == 0) {
    FILE *f = fopen(stats_path, "r");
    static char text[1 << 20];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f) fclose(f);
    const char *sum = strstr(text, "\"summary\"");
    const char *a = sum ? strstr(sum, "\"stage_drained_bytes\": ") : NULL;
    const char *b = sum ? strstr(sum, "\"time_stage_drain\": {\"sum\": ") : NULL;
    if (a) v[0] = atof(a + strlen("\"stage_drained_bytes\": "));
    if (b) v[1] = atof(b + strlen("\"time_stage_drain\": {\"sum\": "));
  }
  MPI_Bcast(v, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  *bytes = v[0];
  *secs = v[1];
}

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  static const struct option opts[] = {
    {"dir", required_argument, NULL, 'd'}, {"stage", required_argument, NULL, 's'},
    {"size", required_argument, NULL, 'z'}, {"piece", required_argument, NULL, 'p'},
    {"compute", required_argument, NULL, 'c'}, {"reps", required_argument, NULL, 'r'},
    {"bandwidth", required_argument, NULL, 'b'}, {"help", no_argument, NULL, 'h'},
    {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'd': dir = optarg; break;
    case 's': stage = optarg; break;
    case 'z': size = size_arg(optarg); break;
    case 'p': piece = size_arg(optarg); break;
    case 'c': compute = atof(optarg); break;
    case 'r': reps = atoi(optarg); break;
    case 'b': bw = size_arg(optarg); break;
    case 'h':
      if (rank == 0)
        printf("Usage: mpiexec -n N ostio_bench_stage --dir PFSDIR --stage STAGEDIR [--size "
               "PER_RANK (512m)] [--piece BYTES (8m)] [--compute SECONDS (1.5x direct)] "
               "[--reps N (3)] [--bandwidth BYTES/s (unlimited)]\n"
               "A checkpoint to a log container: straight to PFSDIR with sync, against staged "
               "in STAGEDIR (node-local) with a compute phase before close; and the drain "
               "against cp + fsync. docs/staging.md.\n");
      MPI_Finalize();
      return 0;
    default: die("unknown option; see --help");
    }
  }
  if (!dir || !stage) die("--dir (the parallel file system) and --stage (node-local) are required");
  if (piece % 8 || size % piece) die("--size must be a multiple of --piece, --piece of 8");
  char path[1200];
  snprintf(path, sizeof path, "%s/ckpt.log", dir);
  char *buf = malloc((size_t)piece), *want = malloc((size_t)piece);
  state = malloc((size_t)size);
  if (!buf || !want || !state) die("out of memory");
  for (int64_t at = 0; at < size; at += piece) fill(state + at, (int64_t)rank * size + at, piece);
  double td[64], ts[64], dr[64], wc[64], tc[64], busy[64], b0 = 0, s0 = 0;
  snprintf(stats_path, sizeof stats_path, "%s/stage-bench-stats.json", dir);
  char env[1300];
  snprintf(env, sizeof env, "json:%s", stats_path);
  setenv("OSTIO_STATS", env, 1); /* read at each close */
  if (reps > 64) reps = 64;
  double gib = (double)(size * nprocs) / (1 << 30);
  if (rank == 0)
    printf("# %d ranks, %.2f GiB checkpoint (%lld MiB per rank in %lld MiB write_at calls), "
           "PFS %s, stage %s\n", nprocs, gib, (long long)(size >> 20),
           (long long)(piece >> 20), dir, stage);
  for (int r = 0; r < reps; r++) {
    td[r] = run_direct(path, buf);
    if (verify(path, buf, want)) die("direct: the container does not read back as written");
    if (compute <= 0) compute = 1.5 * td[r];
    ts[r] = run_staged(path, buf, &dr[r], &wc[r]);
    double b1, s1;
    drain_totals(&b1, &s1);
    busy[r] = s1 > s0 && b1 > b0 ? (b1 - b0) / (s1 - s0) / (1 << 20) : 0; /* MiB/s */
    b0 = b1, s0 = s1;
    if (verify(path, buf, want)) die("staged: the container does not read back as written");
    tc[r] = run_cp(buf);
    if (rank == 0)
      printf("rep %d: direct write+sync+close %.3f s | staged write+close %.3f s (close %.3f s, "
             "compute %.2f s) %.2fx | drain done %.3f s after the writes | drain busy %.0f MiB/s "
             "| cp+fsync %.3f s (%.0f MiB/s) | drain/cp %.2fx\n", r, td[r], ts[r], wc[r],
             compute, td[r] / ts[r], dr[r], busy[r], tc[r], gib * 1024 / tc[r],
             busy[r] / (gib * 1024 / tc[r]));
  }
  qsort(td, (size_t)reps, sizeof *td, cmpd);
  qsort(ts, (size_t)reps, sizeof *ts, cmpd);
  qsort(dr, (size_t)reps, sizeof *dr, cmpd);
  qsort(tc, (size_t)reps, sizeof *tc, cmpd);
  qsort(busy, (size_t)reps, sizeof *busy, cmpd);
  int m = reps / 2;
  if (rank == 0)
    printf("median: direct %.3f s, staged %.3f s: %.2fx faster; drain done %.3f s after the "
           "writes; drain busy %.0f MiB/s, cp+fsync %.0f MiB/s: drain %.2fx of cp\n", td[m],
           ts[m], td[m] / ts[m], dr[m], busy[m], gib * 1024 / tc[m],
           busy[m] / (gib * 1024 / tc[m]));
  unsetenv("OSTIO_STATS");
  if (rank == 0) unlink(stats_path);
  rmtree(path);
  free(buf);
  free(want);
  free(state);
  MPI_Finalize();
  return 0;
}
