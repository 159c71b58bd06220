/* Node-local staging when the node's stage directory is taken away or
 * planted (issue 27). Run with 2 ranks, also as two simulated nodes
 * (OSTIO_TEST_RANKS_PER_NODE=1: each rank its own stage directory
 * DIR/node.K):
 *   - the stage directory removed under a running job (`rm -rf STAGE/...`),
 *     after 3 of 10 syncs or between the last write and close: the ranks
 *     still hold their staged logs open, so the sync (or close) that finds
 *     them gone copies them into the container and the writers go on
 *     unstaged; every write, sync and close succeeds, no stage record
 *     stays, check passes and every byte reads back as written (in the job
 *     too), none as zeros;
 *   - a symbolic link planted at the job's stage directory (a predictable
 *     name): the open fails on every rank, nothing is written to the link's
 *     target, no stage record is made and the container reads as before;
 *     the same for a planted directory that others can write. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colltest.h"
#include "container/container.h"
#include "container/log/log.h"
#include "logmodel.h"

static int rank, nprocs, rpn;

#define CH (64 * 1024)
#define NCH 40     /* chunks per rank */
#define SYNC_EVERY 4
#define GONE_AFTER 12 /* chunks written and synced before the removal */

/* Counts files under dir (recursively) whose name starts with prefix. */
static int count_files(const char *dir, const char *prefix)
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
    if (S_ISDIR(st.st_mode)) n += count_files(p, prefix);
    else if (!strncmp(e->d_name, prefix, strlen(prefix))) n++;
  }
  closedir(d);
  return n;
}

/* rm -rf of what is inside dir (dir stays). */
static void empty_dir(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    char p[1200];
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (lstat(p, &st) < 0) continue;
    if (S_ISDIR(st.st_mode)) {
      empty_dir(p);
      rmdir(p);
    } else {
      unlink(p);
    }
  }
  closedir(d);
}

static int64_t chunk_off(int r, int i) { return ((int64_t)r * NCH + i) * CH; }

static void say_problem(void *arg, const char *problem)
{
  (void)arg;
  fprintf(stderr, "check: %s\n", problem);
}

/* Every chunk of every rank reads back as written (rank 0 of the new
 * reader: all of them; in the job: each rank all of them). */
static void read_back(ostio_file *fh, const char *tag, int upto)
{
  uint8_t *buf = ct_xmalloc(CH), *got = ct_xmalloc(CH);
  int bad = 0;
  for (int r = 0; r < nprocs; r++)
    for (int i = 0; i < upto; i++) {
      memset(got, 0xee, CH);
      ct_data(chunk_off(r, i), CH, r, 3, buf);
      int rc = ostio_read_at(fh, chunk_off(r, i), got, CH);
      if (rc != 0 || memcmp(got, buf, CH)) {
        if (!bad++)
          CHECKF(0, "%s: rank %d chunk %d: %d %s%s", tag, r, i, rc,
                 rc ? ostio_last_error() : "", rc == 0 ? "(other bytes than written)" : "");
      }
    }
  CHECKF(bad == 0, "%s: %d of %d chunks do not read back as written", tag, bad, nprocs * upto);
  free(buf);
  free(got);
}

/* Issue 27 item 2: `rm -rf STAGE/...` while the job writes (after chunk
 * gone_after; NCH: after the last write and sync, before close). The ranks
 * still hold their staged logs open: the sync (or close) that finds them
 * gone copies them into the container, and the writers go on unstaged. No
 * byte is lost: every sync and the close succeed, no stage record stays,
 * check passes, every byte reads back (in the job and in a new reader). */
static void test_vanish(const char *dir, int gone_after, int rdwr, int paced)
{
  char path[700], stage[700], spec[1200], tag[64];
  snprintf(tag, sizeof tag, "vanish after %d%s%s", gone_after, rdwr ? " (rdwr)" : "",
           paced ? "" : " (drain running)");
  snprintf(path, sizeof path, "%s/v%d.%d.%d.log", dir, gone_after, rdwr, paced);
  snprintf(stage, sizeof stage, "%s/stage-v%d.%d.%d", dir, gone_after, rdwr, paced);
  /* The background drain held back (1 KiB/s): the bytes stay staged; or
   * unpaced, copying the same logs while their writers rescue them. */
  snprintf(spec, sizeof spec, "ostio_stage_dir=%s%s", stage,
           paced ? " ostio_stage_bandwidth=1k" : "");
  ostio_file *fh = NULL;
  int rc = lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | (rdwr ? MPI_MODE_RDWR :
                   MPI_MODE_WRONLY), spec, &fh);
  CHECKF(rc == 0, "%s: open: %s", tag, ostio_last_error());
  if (!fh) return;
  uint8_t *buf = ct_xmalloc(CH);
  int nfail = 0;
  for (int i = 0; i <= NCH; i++) {
    if (i == gone_after) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) empty_dir(stage); /* every node's stage directory */
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (i == NCH) break;
    ct_data(chunk_off(rank, i), CH, rank, 3, buf);
    rc = ostio_write_at(fh, chunk_off(rank, i), buf, CH);
    if (rc < 0 && !nfail++) CHECKF(0, "%s: write %d: %d %s", tag, i, rc, ostio_last_error());
    if (i % SYNC_EVERY == SYNC_EVERY - 1) {
      rc = ostio_sync(fh);
      if (rc < 0 && !nfail++)
        CHECKF(0, "%s: sync after chunk %d: %d %s", tag, i, rc, ostio_last_error());
    }
  }
  if (rdwr) { /* in the job: the rescued writers' bytes, before and after the removal */
    CHECK(ostio_sync(fh) == 0);
    read_back(fh, tag, NCH);
  }
  double rescued = -1;
  CHECK(ostio_stat_get(fh, "stage_rescued_bytes", &rescued) == 0);
  /* This rank's rescue so far: its whole staged data log at the first sync
   * after the removal (a rescue restarts a step below what the drain copied:
   * less than a step here, so from 0). */
  int64_t want = gone_after < NCH ? (int64_t)(gone_after + SYNC_EVERY) * CH : 0;
  CHECKF(rescued == (double)want, "%s: stage_rescued_bytes %.0f before close, expected %lld",
         tag, rescued, (long long)want);
  rc = ostio_close(&fh);
  CHECKF(rc == 0, "%s: close: %d %s", tag, rc, ostio_last_error());
  if (fh) ostio_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int nrec = count_files(path, "stage."), left = count_files(stage, "");
    CHECKF(nrec == 0, "%s: %d stage records after the close", tag, nrec);
    CHECKF(left == 0, "%s: %d files left in the stage directory", tag, left);
    int problems = ostio__ctr_check(path, say_problem, NULL);
    CHECKF(problems == 0, "%s: check reports %d problems", tag, problems);
  }
  /* A new reader: every byte as written, none zeros or missing. */
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, NULL, &fh) == 0);
  if (fh && rank == 0) {
    int64_t size = 0;
    CHECK(ostio_get_size(fh, &size) == 0);
    CHECKF(size == chunk_off(nprocs - 1, NCH), "%s: size %lld, %lld written", tag,
           (long long)size, (long long)chunk_off(nprocs - 1, NCH));
    read_back(fh, tag, NCH);
  }
  if (fh) CHECK(ostio_close(&fh) == 0);
  free(buf);
}

/* The job's stage directory name: BASE/ostio.HASH.S (logstage.c). */
static void stage_name(const char *base, const char *path, uint32_t session, char *out,
                       size_t cap)
{
  char abs[PATH_MAX];
  if (!realpath(path, abs)) snprintf(abs, sizeof abs, "%s", path);
  snprintf(out, cap, "%s/ostio.%016llx.%u", base,
           (unsigned long long)ostio__fnv1a64(abs, strlen(abs)), (unsigned)session);
}

/* Issue 27 item 4: a link (or an open directory) planted at the name. */
static void test_planted(const char *dir, int as_dir)
{
  char path[700], stage[700], target[700], spec[1200], tag[16];
  snprintf(tag, sizeof tag, "%s", as_dir ? "dir" : "link");
  snprintf(path, sizeof path, "%s/p%s.log", dir, tag);
  snprintf(stage, sizeof stage, "%s/stage-p%s", dir, tag);
  snprintf(target, sizeof target, "%s/target-%s", dir, tag);
  /* Session 1 unstaged: the bytes that must read back afterwards. */
  ostio_file *fh = NULL;
  uint8_t *buf = ct_xmalloc(CH), *got = ct_xmalloc(CH);
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, NULL,
                &fh) == 0);
  if (!fh) return;
  ct_data(chunk_off(rank, 0), CH, rank, 5, buf);
  CHECK(ostio_write_at(fh, chunk_off(rank, 0), buf, CH) == 0);
  CHECK(ostio_close(&fh) == 0);
  /* The next job's session is 2: plant at every node's name for it. */
  if (rank == 0) {
    mkdir(stage, 0700);
    mkdir(target, 0700);
    for (int k = 0; k < (rpn > 0 ? (nprocs + rpn - 1) / rpn : 1); k++) {
      char base[800], name[1000];
      if (rpn > 0) snprintf(base, sizeof base, "%s/node.%d", stage, k);
      else snprintf(base, sizeof base, "%s", stage);
      mkdir(base, 0700);
      stage_name(base, path, 2, name, sizeof name);
      if (as_dir) {
        CHECK(mkdir(name, 0700) == 0 && chmod(name, 0777) == 0);
      } else {
        CHECKF(symlink(target, name) == 0, "symlink %s: %s", name, strerror(errno));
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  snprintf(spec, sizeof spec, "ostio_stage_dir=%s", stage);
  int rc = lm_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, spec, &fh);
  CHECKF(rc == OSTIO_EACCES && strstr(ostio_last_error(), as_dir ? "mode 777" :
                                      "symbolic link"),
         "planted %s: open: %d %s", tag, rc, ostio_last_error());
  if (fh) { /* the unfixed library: write and close to show where it goes */
    ct_data(chunk_off(rank, 1), CH, rank, 6, buf);
    ostio_write_at(fh, chunk_off(rank, 1), buf, CH);
    ostio_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      CHECKF(count_files(target, "") == 0, "planted %s: the job's logs are in the link's "
             "target %s", tag, target);
    ostio_close(&fh);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECKF(count_files(target, "") == 0, "planted %s: files written to the link's target", tag);
    CHECKF(count_files(path, "stage.") == 0, "planted %s: stage records in the container",
           tag);
  }
  /* The container as before: session 1's bytes, no more. */
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, NULL, &fh) == 0);
  if (fh) {
    int64_t size = -1;
    CHECK(ostio_get_size(fh, &size) == 0 && size == chunk_off(nprocs - 1, 0) + CH);
    for (int r = 0; r < nprocs; r++) {
      ct_data(chunk_off(r, 0), CH, r, 5, buf);
      CHECK(ostio_read_at(fh, chunk_off(r, 0), got, CH) == 0 && !memcmp(got, buf, CH));
    }
    CHECK(ostio_close(&fh) == 0);
  }
  free(buf);
  free(got);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  lm_init(&rank, &nprocs);
  const char *knob = getenv("OSTIO_TEST_RANKS_PER_NODE");
  rpn = knob ? atoi(knob) : 0;
  char dir[512];
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "stagehostile") < 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  test_vanish(dir, GONE_AFTER, 0, 1);
  test_vanish(dir, GONE_AFTER, 1, 1);
  test_vanish(dir, NCH, 0, 1);
  test_vanish(dir, GONE_AFTER, 1, 0);
  test_planted(dir, 0);
  test_planted(dir, 1);
  if (rank == 0)
    printf("hostile staging: %d ranks, %s\n", nprocs,
           rpn > 0 ? "simulated nodes (OSTIO_TEST_RANKS_PER_NODE)" : "one node");
  ct_rmtree(MPI_COMM_WORLD, dir);
  int status = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return status;
}
