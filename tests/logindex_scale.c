/* Index scale of a log container: W writers each make N interleaved writes
 * of B bytes (writer w's i-th piece at logical (i*W + w)*B, appended back to
 * back in its data log), as `ostio_write_at` in one epoch would. The index
 * logs are written through the compressor (data logs are sparse files of
 * the right size, no data), then timed: scan + load + merge (every record
 * into one map) and a full read plan (resolve of the whole file in 64 MiB
 * ranges). --vary makes every other piece 1 byte longer, so nothing
 * compresses (the PLFS worst case: one record per write). Prints records,
 * index bytes, peak memory (getrusage maxrss) and times. No MPI: the load
 * here is what the ranks of ostio_open share. docs/containers.md. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "container/log/log.h"
#include "core/error.h"
#include "testutil.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  int64_t W = 8, N = 1 << 20, B = 4096;
  int vary = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--writers") && i + 1 < argc) W = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--writes") && i + 1 < argc) N = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--size") && i + 1 < argc) B = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--vary")) vary = 1;
    else {
      printf("Usage: logindex_scale [--writers W] [--writes N] [--size B] [--vary]\n");
      return strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  char dir[512], path[600];
  if (tu_tmpdir(dir, sizeof dir, "logscale") < 0) return 1;
  snprintf(path, sizeof path, "%s/c", dir);
  ostio__ctr_params p = {.kind = &ostio__ctr_log, .hostdirs = 1};
  snprintf(p.requested, sizeof p.requested, "scale");
  int created = 0, rc = ostio__ctr_create(path, &p, 1, &created);
  ostio__logdir *d = NULL;
  if (rc == 0) rc = ostio__log_open(path, NULL, 0, &d);
  double t0 = now();
  for (int64_t w = 0; rc == 0 && w < W; w++) {
    ostio__logw lw;
    ostio__logw_init(&lw, d, 1, (uint32_t)w, 0);
    rc = ostio__logw_create(&lw);
    int64_t phys = 0;
    for (int64_t i = 0; rc == 0 && i < N; i++) {
      int64_t len = B + (vary && (i & 1));
      rc = ostio__logw_piece(&lw, 1ull << 32 | 1, (i * W + w) * (B + vary), len, phys);
      phys += len;
      if (lw.nfresh > 4096) lw.nfresh = 0; /* the writer's copy is not needed here */
    }
    if (rc == 0) rc = ostio__logw_flush(&lw);
    if (rc == 0 && ftruncate(lw.dfd, (off_t)phys) < 0) rc = -1;
    ostio__logw_close(&lw);
  }
  double t_write = now() - t0;
  ostio__log_close(&d);
  if (rc < 0) {
    fprintf(stderr, "logindex_scale: %s\n", ostio_last_error());
    return 1;
  }
  ostio__logmap m;
  ostio__logload st = {0};
  ostio__logres res = {0};
  ostio__logmap_init(&m);
  t0 = now();
  rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc == 0) rc = ostio__log_load_all(d, &m, &st);
  double t_load = now() - t0;
  int64_t index_bytes = 0, segs = 0, bytes = 0;
  for (size_t i = 0; d && i < d->nsrc; i++) index_bytes += d->src[i].index_size;
  t0 = now();
  const int64_t chunk = INT64_C(64) << 20;
  for (int64_t off = 0; rc == 0 && off < m.size; off += chunk) {
    int64_t len = m.size - off < chunk ? m.size - off : chunk;
    rc = ostio__logmap_resolve(&m, NULL, 0, off, len, &res);
    segs += (int64_t)res.nseg;
    for (size_t k = 0; k < res.nseg; k++) bytes += res.seg[k].src >= 0 ? res.seg[k].len : 0;
  }
  double t_plan = now() - t0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  if (rc < 0) {
    fprintf(stderr, "logindex_scale: %s\n", ostio_last_error());
    return 1;
  }
  printf("writers %lld x writes %lld of %lld%s bytes: records %zu, index bytes %lld, "
         "logical size %lld, data bytes mapped %lld in %lld segments\n"
         "index write %.3f s, scan+load+merge %.3f s, full read plan %.3f s, "
         "peak memory (maxrss) %ld KiB\n",
         (long long)W, (long long)N, (long long)B, vary ? "/+1" : "", m.n, (long long)index_bytes,
         (long long)m.size, (long long)bytes, (long long)segs, t_write, t_load, t_plan,
         ru.ru_maxrss);
  int ok = bytes == W * N * B + (vary ? W * (N / 2) : 0);
  ostio__logres_free(&res);
  ostio__logmap_free(&m);
  ostio__log_close(&d);
  tu_rmtree(dir);
  if (!ok) fprintf(stderr, "logindex_scale: mapped %lld data bytes, expected %lld\n",
                   (long long)bytes, (long long)(W * N * B));
  return ok ? 0 : 1;
}
