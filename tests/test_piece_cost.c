/* The per-piece cost of the independent strategy (issue 29, docs/mpiio.md
 * "Small calls"): a collective call of many 4 KiB pieces, each rank's at
 * (i * nprocs + rank) * 4096 (IOR's -c shape in one call), with
 * ostio_strategy=independent. The program defines the MPI collectives and
 * qsort (the library is linked in statically: its calls reach these, which
 * count and forward; qsort only sorts of at least NP elements, not the
 * ranks' spans). Such a call makes ROMIO's two collectives and no
 * sort: the extents arrive sorted (plan_local_in keeps them so; the io
 * batch must not sort them again), and interleaved ranks of one stride and
 * piece length whose offsets stay apart are proven disjoint from the first
 * Allgather, without exchanging every piece's offset. The bytes read back
 * and the bytes on disk name their writer's block. Overlaps the shortcut
 * must not accept are still OSTIO_EOVERLAP on every rank: a rank shifted by
 * half a block (its pieces reach into the next period's first rank), and
 * a regular rank overlapping a neighbour. Any rank count. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ostio.h"
#include "testutil.h"

#define BLK 4096
#define NP 64 /* pieces per rank and call */

static int rank, nprocs;
static int counting;
static long ncoll, nsort;

#define EXPORT __attribute__((visibility("default")))
static void count(void)
{
  if (counting) ncoll++;
}
EXPORT int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
  count();
  return PMPI_Allreduce(s, r, n, t, op, c);
}
EXPORT int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                         MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
EXPORT int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
  count();
  return PMPI_Bcast(b, n, t, root, c);
}
EXPORT int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                        MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
EXPORT int MPI_Alltoallv(const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r,
                         const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c);
}

typedef void (*qsort_fn)(void *, size_t, size_t, int (*)(const void *, const void *));
EXPORT void qsort(void *b, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
  static qsort_fn real;
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "qsort");
  if (counting && n >= NP) nsort++; /* the pieces, not the ranks' spans */
  real(b, n, sz, cmp);
}

/* Byte j of the block at file offset off. */
static unsigned char pat(int64_t off, int j)
{
  return (unsigned char)((off / BLK) * 37 + j * 13 + 1);
}

static int64_t at(int i)
{
  return ((int64_t)i * nprocs + rank) * BLK;
}

static ostio_file *open_indep(const char *path, int amode)
{
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_strategy", "independent");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, amode, info, &fh);
  MPI_Info_free(&info);
  CHECKF(rc == 0, "open %s: %s", path, ostio_last_error());
  return rc == 0 ? fh : NULL;
}

/* The strided write and read: two collectives and no sort per call. */
static void strided(const char *path)
{
  ostio_file *fh = open_indep(path, MPI_MODE_CREATE | MPI_MODE_RDWR);
  if (!fh) return;
  ostio_extent ext[NP];
  unsigned char *buf = malloc((size_t)NP * BLK);
  if (!buf) abort();
  for (int i = 0; i < NP; i++) {
    ext[i] = (ostio_extent){at(i), BLK};
    for (int j = 0; j < BLK; j++) buf[(size_t)i * BLK + j] = pat(at(i), j);
  }
  ncoll = nsort = 0;
  counting = 1;
  int rc = ostio_write_all(fh, ext, NP, buf);
  counting = 0;
  CHECKF(rc == 0, "write_all: %s", ostio_last_error());
  CHECKF(ncoll <= 2, "write_all of %d interleaved 4 KiB pieces made %ld MPI collectives; "
         "ROMIO makes 2", NP, ncoll);
  CHECKF(nsort == 0, "write_all of %d sorted pieces called qsort %ld times", NP, nsort);
  CHECK(strcmp(ostio_file_strategy(fh), "independent") == 0);

  memset(buf, 0, (size_t)NP * BLK);
  ncoll = nsort = 0;
  counting = 1;
  rc = ostio_read_all(fh, ext, NP, buf);
  counting = 0;
  CHECKF(rc == 0, "read_all: %s", ostio_last_error());
  CHECKF(ncoll <= 2, "read_all made %ld MPI collectives; ROMIO makes 2", ncoll);
  CHECKF(nsort == 0, "read_all of %d sorted pieces called qsort %ld times", NP, nsort);
  int bad = 0;
  for (int i = 0; i < NP; i++)
    for (int j = 0; j < BLK; j++) bad += buf[(size_t)i * BLK + j] != pat(at(i), j);
  CHECKF(bad == 0, "read_all: %d bytes differ from what was written", bad);
  CHECK(ostio_close(&fh) == 0);

  /* the bytes on disk: every block names its writer's offset */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    int64_t total = (int64_t)NP * nprocs * BLK, dbad = 0;
    unsigned char blk[BLK];
    for (int64_t off = 0; fd >= 0 && off < total; off += BLK) {
      CHECK(pread(fd, blk, BLK, off) == BLK);
      for (int j = 0; j < BLK; j++) dbad += blk[j] != pat(off, j);
    }
    CHECKF(dbad == 0, "%lld bytes on disk differ", (long long)dbad);
    if (fd >= 0) close(fd);
  }
  free(buf);
}

/* Regular pieces that do overlap: still OSTIO_EOVERLAP on every rank. */
static void overlapping(const char *path, int64_t (*where)(int i), const char *what)
{
  ostio_file *fh = open_indep(path, MPI_MODE_CREATE | MPI_MODE_RDWR);
  if (!fh) return;
  ostio_extent ext[NP];
  unsigned char *buf = calloc((size_t)NP, BLK);
  if (!buf) abort();
  for (int i = 0; i < NP; i++) ext[i] = (ostio_extent){where(i), BLK};
  int rc = ostio_write_all(fh, ext, NP, buf);
  CHECKF(rc == OSTIO_EOVERLAP, "%s: write_all gave %d (%s), expected OSTIO_EOVERLAP", what, rc,
         ostio_last_error());
  rc = ostio_read_all(fh, ext, NP, buf);
  CHECKF(rc == OSTIO_EOVERLAP, "%s: read_all gave %d (%s), expected OSTIO_EOVERLAP", what, rc,
         ostio_last_error());
  CHECK(ostio_close(&fh) == 0);
  free(buf);
}

/* The last rank half a block late: its pieces reach into the first rank's
 * next ones (only the wrap-around of the residues shows it). */
static int64_t last_late(int i)
{
  return at(i) + (rank == nprocs - 1 ? BLK / 2 : 0);
}
/* Each rank half a block after the one before: neighbours overlap. */
static int64_t half_steps(int i)
{
  return (int64_t)i * nprocs * BLK + (int64_t)rank * (BLK / 2);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char dir[512] = "";
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "piece") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  char path[600];
  snprintf(path, sizeof path, "%s/strided", dir);
  strided(path);
  if (nprocs > 1) {
    snprintf(path, sizeof path, "%s/late", dir);
    overlapping(path, last_late, "last rank half a block late");
    snprintf(path, sizeof path, "%s/half", dir);
    overlapping(path, half_steps, "ranks half a block apart");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
