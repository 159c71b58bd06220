/* Issue 31 item 2: per-rank records and access sizes in the statistics JSON.
 * Two ranks do different amounts through the public API on one file with
 * OSTIO_STATS=json:PATH: rank 0 writes three 1 MiB blocks, rank 1 one
 * 4 KiB block and reads 100 bytes of rank 0's data twice. The document's
 * per-rank records (bytes, calls), its slowest rank and its access-size
 * histogram must say exactly that (tests/check_stats_json.py checks the
 * format and prints the figures); the bytes read back are rank 0's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ostio.h"
#include "testutil.h"

static int rank, nprocs;

/* The checker's facts for path (rank 0), or NULL. */
static char *facts_of(const char *path)
{
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "'%s' '%s/check_stats_json.py' '%s'", OSTIO_PYTHON, OSTIO_TESTS_DIR,
           path);
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  char *out = calloc(1, 1 << 16);
  size_t n = out ? fread(out, 1, (1 << 16) - 1, p) : 0;
  (void)n;
  if (pclose(p) != 0) {
    free(out);
    return NULL;
  }
  return out;
}

static int has(const char *facts, const char *line)
{
  size_t n = strlen(line);
  for (const char *p = facts; p && (p = strstr(p, line)); p++)
    if ((p == facts || p[-1] == '\n') && p[n] == '\n') return 1;
  return 0;
}

int main(int argc, char **argv)
{
  char dir[512], file[600], doc[700], spec[720];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (nprocs != 2) {
    if (rank == 0) fprintf(stderr, "test_stats_ranks: needs 2 ranks (got %d)\n", nprocs);
    MPI_Finalize();
    return 1;
  }
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "statsranks") < 0) perror("mkdtemp");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(file, sizeof file, "%s/data", dir);
  snprintf(doc, sizeof doc, "%s/stats.json", dir);
  snprintf(spec, sizeof spec, "json:%s", doc);
  setenv("OSTIO_STATS", spec, 1);

  const size_t mib = 1 << 20;
  char *buf = malloc(mib);
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, file, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  if (rc == 0 && rank == 0) {
    for (int k = 0; k < 3; k++) {
      memset(buf, 'a' + k, mib);
      CHECK(ostio_write_at(fh, (int64_t)k * (int64_t)mib, buf, mib) == 0);
    }
  }
  if (rc == 0 && rank == 1) {
    memset(buf, 'z', 4096);
    CHECK(ostio_write_at(fh, 3 * (int64_t)mib, buf, 4096) == 0);
  }
  if (rc == 0) CHECK(ostio_sync(fh) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rc == 0 && rank == 1) {
    char got[100];
    CHECK(ostio_read_at(fh, 0, got, 100) == 0);
    CHECK(got[0] == 'a' && got[99] == 'a');
    CHECK(ostio_read_at(fh, 2 * (int64_t)mib + 50, got, 100) == 0);
    CHECK(got[0] == 'c' && got[99] == 'c');
  }
  if (rc == 0) CHECK(ostio_close(&fh) == 0);
  unsetenv("OSTIO_STATS");

  if (rank == 0) {
    char *facts = facts_of(doc);
    CHECKF(facts != NULL, "check_stats_json.py refused %s", doc);
    if (facts) {
      CHECKF(has(facts, "nprocs=2"), "%s", facts);
      /* rank:bytes_written:bytes_read:writes:reads */
      CHECKF(has(facts, "ranks=0:3145728:0:3:0|1:4096:200:1:2"), "%s", facts);
      CHECKF(has(facts, "slowest_rank=0") || has(facts, "slowest_rank=1"), "%s", facts);
      /* 1 MiB is in 100K-1M (upper bounds inclusive, as Darshan's), 4 KiB in
       * 1K-10K, 100 B in 0-100. */
      CHECKF(has(facts, "sizes_write=0,0,1,0,3,0,0,0,0,0"), "%s", facts);
      CHECKF(has(facts, "sizes_read=2,0,0,0,0,0,0,0,0,0"), "%s", facts);
    }
    free(facts);
    tu_rmtree(dir);
  }
  free(buf);
  int status = tu_done_mpi(MPI_COMM_WORLD, "ranks 2: ", __FILE__);
  MPI_Finalize();
  return status;
}
