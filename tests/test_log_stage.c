/* Node-local staging of log containers (issue 19), through ostio_open. Run
 * with 1-3 ranks, also with OSTIO_TEST_RANKS_PER_NODE=1 (every rank its own
 * simulated node with its own stage directory DIR/node.K):
 *   - while the file is open, the logs are in the node's stage directory
 *     and the container holds a stage record per writer; after close the
 *     stage is empty, no record is left, the container's data logs hold
 *     every byte and it reads back as the same pattern written unstaged;
 *   - reads while staged: a rank's own bytes, other ranks' bytes (on
 *     another simulated node: waiting for that node's drain);
 *   - the background drain moves bytes before close; ostio_stage_sync=drain
 *     has every byte in the container after ostio_sync;
 *   - the random log-container programs (logmodel.c) with a stage dir;
 *   - refusals: a relative stage dir (hint error), an unusable one (agreed
 *     error, no hang). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colltest.h"
#include "container/log/log.h"
#include "file/flatten.h"
#include "logmodel.h"

static int rank, nprocs, rpn;

#define PIECE (256 * 1024)
#define NPIECE 24 /* per rank: 6 MiB */

/* Counts files under dir (recursively) whose name starts with prefix; adds
 * their sizes to *bytes (may be NULL). */
static int count_files(const char *dir, const char *prefix, int64_t *bytes)
{
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char p[1200];
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (lstat(p, &st) < 0) continue;
    if (S_ISDIR(st.st_mode)) n += count_files(p, prefix, bytes);
    else if (!strncmp(e->d_name, prefix, strlen(prefix))) {
      n++;
      if (bytes) *bytes += (int64_t)st.st_size;
    }
  }
  closedir(d);
  return n;
}

/* Piece i of rank r lands at (i * nprocs + r) * PIECE: interleaved. */
static void write_pattern(ostio_file *fh, uint32_t call)
{
  char *buf = ct_xmalloc(PIECE);
  for (int i = 0; i < NPIECE; i++) {
    int64_t off = ((int64_t)i * nprocs + rank) * PIECE;
    ct_data(off, PIECE, rank, call, (uint8_t *)buf);
    if (i % 2 == 0) CHECK(ostio_write_at(fh, off, buf, PIECE) == 0);
    else {
      ostio_extent x = {off, PIECE};
      CHECK(ostio_write_all(fh, &x, 1, buf) == 0);
    }
  }
  free(buf);
}

/* Every rank reads the whole file and compares with the pattern. */
static int64_t verify(ostio_file *fh, uint32_t call, const char *what)
{
  int64_t total = (int64_t)NPIECE * nprocs * PIECE, bad = 0;
  char *got = ct_xmalloc((size_t)total), *want = ct_xmalloc(PIECE);
  int rc = ostio_read_at(fh, 0, got, (size_t)total);
  CHECKF(rc == 0, "%s: read_at: %d %s", what, rc, ostio_last_error());
  for (int64_t p = 0; rc == 0 && p < total / PIECE; p++) {
    ct_data(p * PIECE, PIECE, (int)(p % nprocs), call, (uint8_t *)want);
    if (memcmp(got + p * PIECE, want, PIECE)) bad++;
  }
  CHECKF(bad == 0, "%s: %lld of %lld pieces differ", what, (long long)bad,
         (long long)(total / PIECE));
  free(got);
  free(want);
  return bad;
}

static void hints(char *spec, size_t cap, const char *stage, const char *extra)
{
  snprintf(spec, cap, "ostio_stage_dir=%s %s", stage, extra ? extra : "");
}

/* The main case: logs staged while open, nothing staged after close. */
static void test_staged(const char *dir, const char *extra, const char *tag)
{
  char path[700], plain[700], stage[700], spec[1024];
  snprintf(path, sizeof path, "%s/%s.log", dir, tag);
  snprintf(plain, sizeof plain, "%s/%s.plain.log", dir, tag);
  snprintf(stage, sizeof stage, "%s/stage-%s", dir, tag);
  hints(spec, sizeof spec, stage, extra);
  ostio_file *fh = NULL;
  int rc = lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, spec, &fh);
  CHECKF(rc == 0, "%s: open: %s", tag, ostio_last_error());
  if (!fh) return;
  write_pattern(fh, 7);
  CHECK(ostio_sync(fh) == 0);
  /* On disk while open: every rank's logs staged, one record each. */
  if (rank == 0) {
    int64_t staged = 0;
    int nrec = count_files(path, "stage.", NULL);
    int ndata = count_files(stage, "data.", &staged);
    CHECKF(nrec == nprocs, "%s: %d stage records, %d writers", tag, nrec, nprocs);
    CHECKF(ndata == nprocs && staged == (int64_t)NPIECE * nprocs * PIECE,
           "%s: %d staged data logs, %lld bytes", tag, ndata, (long long)staged);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  verify(fh, 7, tag); /* own node from the stage, others via their drain */
  CHECK(ostio_close(&fh) == 0);
  if (rank == 0) {
    int64_t drained = 0, left = 0;
    int nrec = count_files(path, "stage.", NULL);
    int nleft = count_files(stage, "", &left);
    count_files(path, "data.", &drained);
    CHECKF(nrec == 0 && nleft == 0, "%s: after close %d stage records, %d staged files left",
           tag, nrec, nleft);
    CHECKF(drained == (int64_t)NPIECE * nprocs * PIECE, "%s: container data logs hold %lld bytes",
           tag, (long long)drained);
  }
  /* The same pattern unstaged, and both read back by a fresh job. */
  CHECK(lm_open(MPI_COMM_WORLD, plain, MPI_MODE_CREATE | MPI_MODE_RDWR, "", &fh) == 0);
  if (fh) {
    write_pattern(fh, 7);
    CHECK(ostio_close(&fh) == 0);
  }
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, "", &fh) == 0);
  if (fh) {
    verify(fh, 7, "reopened");
    CHECK(ostio_close(&fh) == 0);
  }
  char what[64];
  snprintf(what, sizeof what, "%s vs unstaged", tag);
  char fa[800], fb[800];
  snprintf(fa, sizeof fa, "%s.flat", path);
  snprintf(fb, sizeof fb, "%s.flat", plain);
  CHECK(ostio__flatten(MPI_COMM_WORLD, path, fa, MPI_INFO_NULL, 0, NULL, NULL) == 0);
  CHECK(ostio__flatten(MPI_COMM_WORLD, plain, fb, MPI_INFO_NULL, 0, NULL, NULL) == 0);
  CHECK(ct_compare_files(MPI_COMM_WORLD, fa, fb, NULL, 0, what));
}

/* The background drain moves bytes while the file is open (no sync). */
static void test_background(const char *dir)
{
  char path[700], stage[700], spec[1024];
  snprintf(path, sizeof path, "%s/bg.log", dir);
  snprintf(stage, sizeof stage, "%s/stage-bg", dir);
  hints(spec, sizeof spec, stage, NULL);
  ostio_file *fh = NULL;
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, spec, &fh) == 0);
  if (!fh) return;
  write_pattern(fh, 9);
  /* write_all flushed each rank's records into its staged index; the leader's
   * thread drains them during this "compute phase" (up to 10 s). */
  int64_t drained = 0;
  if (rank == 0)
    for (int i = 0; i < 1000 && drained == 0; i++) {
      drained = 0;
      count_files(path, "data.", &drained);
      if (!drained) usleep(10000);
    }
  CHECKF(rank != 0 || drained > 0, "no byte drained in 10 s before close");
  CHECK(ostio_close(&fh) == 0);
}

/* ostio_stage_sync=drain: after ostio_sync every byte is in the container. */
static void test_sync_drain(const char *dir)
{
  char path[700], stage[700], spec[1024];
  snprintf(path, sizeof path, "%s/sd.log", dir);
  snprintf(stage, sizeof stage, "%s/stage-sd", dir);
  hints(spec, sizeof spec, stage, "ostio_stage_sync=drain ostio_stage_bandwidth=1k");
  ostio_file *fh = NULL;
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, spec, &fh) == 0);
  if (!fh) return;
  write_pattern(fh, 11);
  CHECK(ostio_sync(fh) == 0);
  if (rank == 0) {
    int64_t drained = 0;
    count_files(path, "data.", &drained);
    CHECKF(drained == (int64_t)NPIECE * nprocs * PIECE, "after sync (drain): %lld bytes in "
           "the container", (long long)drained);
  }
  double t;
  CHECK(ostio_stat_get(fh, "stage_bytes", &t) == 0);
  CHECK(ostio_close(&fh) == 0);
}

static void test_refusals(const char *dir)
{
  char path[700];
  snprintf(path, sizeof path, "%s/bad.log", dir);
  ostio_file *fh = NULL;
  int rc = lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                   "ostio_stage_dir=relative/dir", &fh);
  CHECKF(rc == OSTIO_EHINT && strstr(ostio_last_error(), "absolute"), "relative: %d %s", rc,
         ostio_last_error());
  if (fh) ostio_close(&fh);
  /* A stage directory under a regular file cannot be made: every rank fails. */
  char file[700], spec[1024];
  snprintf(file, sizeof file, "%s/afile", dir);
  if (rank == 0) {
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(spec, sizeof spec, "ostio_stage_dir=%s/sub", file);
  rc = lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, spec, &fh);
  CHECKF(rc < 0 && strstr(ostio_last_error(), "stage"), "unusable stage dir: %d %s", rc,
         ostio_last_error());
  if (fh) ostio_close(&fh);
}

/* Statistics: staged and drained bytes in the JSON report. */
static void test_stats(const char *dir)
{
  char path[700], stage[700], spec[1024], json[800];
  snprintf(path, sizeof path, "%s/st.log", dir);
  snprintf(stage, sizeof stage, "%s/stage-st", dir);
  snprintf(json, sizeof json, "%s/stats.json", dir);
  hints(spec, sizeof spec, stage, NULL);
  char env[900];
  snprintf(env, sizeof env, "json:%s", json);
  setenv("OSTIO_STATS", env, 1);
  ostio_file *fh = NULL;
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, spec, &fh) == 0);
  if (fh) {
    write_pattern(fh, 13);
    CHECK(ostio_close(&fh) == 0);
  }
  unsetenv("OSTIO_STATS");
  if (rank == 0) {
    FILE *f = fopen(json, "r");
    char *text = ct_xmalloc(1 << 20);
    size_t n = f ? fread(text, 1, (1 << 20) - 1, f) : 0;
    text[n] = 0;
    if (f) fclose(f);
    char want[128];
    long long total = (long long)NPIECE * nprocs * PIECE;
    snprintf(want, sizeof want, "\"stage_bytes\": %lld", total);
    const char *a = strstr(text, want);
    snprintf(want, sizeof want, "\"stage_drained_bytes\": %lld", total);
    const char *b = strstr(text, want);
    CHECKF(a && b, "stats JSON lacks stage_bytes/stage_drained_bytes = %lld:\n%.2000s", total,
           text);
    free(text);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  lm_init(&rank, &nprocs);
  const char *knob = getenv("OSTIO_TEST_RANKS_PER_NODE");
  rpn = knob ? atoi(knob) : 0;
  uint64_t seed = ct_seed(MPI_COMM_WORLD, 1919);
  char dir[512], spec[1024];
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "logstage") < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  test_staged(dir, NULL, "plain");
  test_staged(dir, "ostio_log_writers=node", "node");
  test_background(dir);
  test_sync_drain(dir);
  test_stats(dir);
  test_refusals(dir);
  snprintf(spec, sizeof spec, "ostio_stage_dir=%s/stage-random", dir);
  lm_test_random(dir, seed, spec);
  if (rank == 0)
    printf("staging: %d ranks, %s, seed %llu\n", nprocs,
           rpn > 0 ? "simulated nodes (OSTIO_TEST_RANKS_PER_NODE)" : "one node",
           (unsigned long long)seed);
  ct_rmtree(MPI_COMM_WORLD, dir);
  int status = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return status;
}
