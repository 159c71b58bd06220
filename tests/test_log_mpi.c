/* Log containers through ostio_open (issue 6), writers=rank. The random
 * programs and the model are in logmodel.c: independent and collective
 * writes overlapping across ranks and calls, syncs and set_size, in two
 * write sessions; the container must read back as the model: read_at and
 * read_all on the writing ranks, read_all on a communicator of another size,
 * serially through the module API, after flatten, and after compact. With 2 ranks
 * also: 1M interleaved 16-byte write_at per rank cost at most 16 index
 * records per rank and at most 1 MiB of index in all. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colltest.h"
#include "container/log/log.h"
#include "logmodel.h"

static int rank, nprocs;

static int open_log(MPI_Comm comm, const char *path, int amode, ostio_file **fh)
{
  return lm_open(comm, path, amode, NULL, fh);
}

static void test_index_size(const char *dir)
{
  char path[600];
  snprintf(path, sizeof path, "%s/idx.log", dir);
  ostio_file *fh = NULL;
  const int64_t n = 1 << 20, len = 16;
  CHECK(open_log(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, &fh) == 0);
  if (!fh) return;
  char piece[16];
  memset(piece, 'a' + rank, sizeof piece);
  double t0 = MPI_Wtime();
  for (int64_t i = 0; i < n; i++)
    if (ostio_write_at(fh, (i * nprocs + rank) * len, piece, (size_t)len) < 0) break;
  CHECK(ostio_sync(fh) == 0);
  CHECK(ostio_close(&fh) == 0);
  double t = MPI_Wtime() - t0;
  if (rank == 0) {
    ostio__logdir *d = NULL;
    int64_t total = 0, most = 0;
    CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__log_scan(d) == 0);
    for (size_t i = 0; d && i < d->nsrc; i++) {
      total += d->src[i].index_size;
      if (d->src[i].index_size / 64 > most) most = d->src[i].index_size / 64;
    }
    CHECKF(most <= 16 && total <= (1 << 20), "records per rank %lld, index bytes %lld",
           (long long)most, (long long)total);
    printf("index size: %d ranks x %lld interleaved %lld-byte write_at: %lld index bytes "
           "(at most %lld records per rank), %.2f s\n", nprocs, (long long)n, (long long)len,
           (long long)total, (long long)most, t);
    ostio__log_close(&d);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* write_all on a read-only handle, and overlapping extents of one rank. */
static void test_refusals(const char *dir)
{
  char path[600];
  ostio_file *fh = NULL;
  int rc;
  snprintf(path, sizeof path, "%s/ro.log", dir);
  CHECK(open_log(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, &fh) == 0);
  if (!fh) return;
  /* a log has no striping to report: no invented layout */
  CHECK(ostio_file_layout(fh) == NULL);
  CHECK(!strcmp(ostio_file_strategy(fh), "log"));
  char buf[200] = {0};
  ostio_extent ov[2] = {{0, 100}, {50, 100}}, ok = {(int64_t)rank * 100, 100};
  rc = ostio_write_all(fh, rank == 0 ? ov : &ok, rank == 0 ? 2 : 1, buf);
  CHECKF(rc == OSTIO_EOVERLAP, "rc %d", rc); /* agreed on every rank */
  CHECK(ostio_write_all(fh, &ok, 1, buf) == 0); /* the handle stays usable */
  CHECK(ostio_close(&fh) == 0);
  CHECK(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                   MPI_INFO_NULL, &fh) == 0);
  if (fh) {
    CHECK(ostio_write_all(fh, &ok, 1, buf) == OSTIO_EACCES);
    int64_t size = 0;
    CHECK(ostio_get_size(fh, &size) == 0 && size == (int64_t)nprocs * 100);
    CHECK(ostio_close(&fh) == 0);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  lm_init(&rank, &nprocs);
  uint64_t seed = ct_seed(MPI_COMM_WORLD, 6006);
  char dir[512];
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "logmpi") < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  for (int i = 0; i < rounds; i++)
    lm_test_random(dir, ct_mix(seed, (uint64_t)i), NULL);
  test_refusals(dir);
  if (nprocs == 2) test_index_size(dir);
  ct_rmtree(MPI_COMM_WORLD, dir);
  int status = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return status;
}
