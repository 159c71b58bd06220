/* ostio_h5_bench (issue 16): parallel HDF5 write bandwidth, to compare ROMIO
 * with libostio-mpiio.so under an unmodified HDF5 (scripts/bench-h5.sh).
 *
 *   mpiexec -n P ostio_h5_bench [--file PATH] [-n N] [--warmup W] [--size MIB] [-V] [-k]
 *
 * One 3-D dataset of doubles, contiguous, block-decomposed over a 3-D rank
 * grid (MPI_Dims_create); each rank writes its block as one hyperslab with
 * collective transfer (H5FD_MPIO_COLLECTIVE). An iteration times open
 * (H5Fcreate, truncating) + dataset create + write + close, per rank from a
 * barrier; the iteration's time is the maximum over the ranks, and the
 * result the median over N iterations (warm-up iterations left out), printed
 * as MiB/s of dataset bytes. -V reads every block back (a neighbour's,
 * outside the timing) and checks it. The file (or container directory) is
 * removed before each iteration and at the end unless -k.
 *
 * Output, rank 0: one line per iteration and the last line
 *   h5_bench: RANKS ranks, BYTES bytes, median T s, X MiB/s (...)
 * Exit 0 ok, 1 an HDF5 call or the check failed, 2 usage. */
#define _GNU_SOURCE
#include <ftw.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct opts {
  char file[1024];
  int iters, warmup, verify, keep;
  long long mib;
} opts;

typedef struct grid {
  int rank, nprocs, pdims[3];
  hsize_t block[3], gdims[3];
} grid;

static void usage(FILE *f)
{
  fprintf(f,
    "usage: mpiexec -n P ostio_h5_bench [flags]\n"
    "Parallel HDF5 write: one contiguous 3-D dataset of doubles, a block per rank\n"
    "written as a hyperslab with collective transfer; times H5Fcreate + H5Dcreate +\n"
    "H5Dwrite + H5Fclose (max over ranks), median of the iterations, in MiB/s.\n"
    "  --file PATH   the HDF5 file  [./ostio-h5bench.h5]\n"
    "  -n N          timed iterations  [5]\n"
    "  --warmup W    extra first iterations, not timed  [1]\n"
    "  --size MIB    dataset size in MiB, rounded up to whole blocks  [256]\n"
    "  -V            read back and check a neighbour's block after each write  [off]\n"
    "  -k            keep the file at the end  [off]\n"
    "  -h, --help    this text\n");
}

static int parse(int argc, char **argv, opts *o, int *help)
{
  *o = (opts){.iters = 5, .warmup = 1, .mib = 256};
  snprintf(o->file, sizeof o->file, "./ostio-h5bench.h5");
  *help = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int more = i + 1 < argc;
    char *end = NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) *help = 1;
    else if (!strcmp(a, "-V")) o->verify = 1;
    else if (!strcmp(a, "-k")) o->keep = 1;
    else if (!strcmp(a, "--file") && more) {
      if (strlen(argv[++i]) >= sizeof o->file || !argv[i][0]) return fprintf(stderr, "--file: empty or too long\n"), 2;
      snprintf(o->file, sizeof o->file, "%s", argv[i]);
    } else if ((!strcmp(a, "-n") || !strcmp(a, "--warmup") || !strcmp(a, "--size")) && more) {
      long long v = strtoll(argv[++i], &end, 10);
      long long lo = !strcmp(a, "--warmup") ? 0 : 1;
      if (!end || *end || v < lo || v > 1000000)
        return fprintf(stderr, "%s: \"%s\" is not a number >= %lld\n", a, argv[i], lo), 2;
      if (!strcmp(a, "-n")) o->iters = (int)v;
      else if (!strcmp(a, "--warmup")) o->warmup = (int)v;
      else o->mib = v;
    } else return fprintf(stderr, "%s: unknown flag or missing value (see --help)\n", a), 2;
  }
  return 0;
}

/* Block edges for about mib MiB over P ranks: rows of 256 doubles, 64 rows a
 * plane, as many planes as needed (the total is rounded up). */
static void layout(grid *g, long long mib)
{
  long long elems = (mib << 20) / 8, per = (elems + g->nprocs - 1) / g->nprocs;
  g->block[2] = 256;
  g->block[1] = 64;
  g->block[0] = (hsize_t)((per + 256 * 64 - 1) / (256 * 64));
  MPI_Dims_create(g->nprocs, 3, g->pdims);
  for (int d = 0; d < 3; d++) g->gdims[d] = (hsize_t)g->pdims[d] * g->block[d];
}

static void block_start(const grid *g, int r, hsize_t start[3])
{
  int c[3] = {r / (g->pdims[1] * g->pdims[2]), (r / g->pdims[2]) % g->pdims[1], r % g->pdims[2]};
  for (int d = 0; d < 3; d++) start[d] = (hsize_t)c[d] * g->block[d];
}

static void fill(const grid *g, int r, double *buf)
{
  hsize_t s[3];
  size_t i = 0;
  block_start(g, r, s);
  for (hsize_t x = 0; x < g->block[0]; x++)
    for (hsize_t y = 0; y < g->block[1]; y++)
      for (hsize_t z = 0; z < g->block[2]; z++)
        buf[i++] = (double)(((s[0] + x) * g->gdims[1] + s[1] + y) * g->gdims[2] + s[2] + z);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb, (void)ftw;
  if (flag == FTW_DP) rmdir(p);
  else unlink(p);
  return 0;
}

/* Rank 0 removes the file or container directory; everyone waits. */
static void remove_file(const grid *g, const char *path)
{
  struct stat sb;
  if (g->rank == 0 && lstat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode)) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    else unlink(path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Writes (or reads back, write = 0) the block of rank `owner`. 0 or 1. */
static int h5_io(const grid *g, const char *path, int write, int owner, double *buf)
{
  hid_t fapl = -1, file = -1, dcpl = -1, fspace = -1, mspace = -1, dset = -1, dxpl = -1;
  int err = 1;
  hsize_t start[3];
  block_start(g, owner, start);
  if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
      H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0)
    goto done;
  if (write) {
    if ((file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0) goto done;
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 ||
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0)
      goto done;
    if ((fspace = H5Screate_simple(3, g->gdims, NULL)) < 0) goto done;
    if ((dset = H5Dcreate2(file, "data", H5T_IEEE_F64LE, fspace, H5P_DEFAULT, dcpl,
                           H5P_DEFAULT)) < 0)
      goto done;
  } else {
    if ((file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0) goto done;
    if ((dset = H5Dopen2(file, "data", H5P_DEFAULT)) < 0 || (fspace = H5Dget_space(dset)) < 0)
      goto done;
  }
  if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, g->block, NULL) < 0) goto done;
  if ((mspace = H5Screate_simple(3, g->block, NULL)) < 0) goto done;
  if ((dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0 || H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
    goto done;
  if ((write ? H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, buf)
             : H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, buf)) < 0)
    goto done;
  err = 0;
done:
  if (dxpl >= 0) H5Pclose(dxpl);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (dset >= 0 && H5Dclose(dset) < 0) err = 1;
  if (dcpl >= 0) H5Pclose(dcpl);
  if (file >= 0 && H5Fclose(file) < 0) err = 1;
  if (fapl >= 0) H5Pclose(fapl);
  return err;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  grid g = {0};
  opts o;
  int help, status = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.nprocs);
  int rc = parse(argc, argv, &o, &help);
  if (rc || help) {
    if (g.rank == 0) usage(rc ? stderr : stdout);
    MPI_Finalize();
    return rc;
  }
  layout(&g, o.mib);
  size_t n = (size_t)(g.block[0] * g.block[1] * g.block[2]);
  double *buf = malloc(n * sizeof *buf), *chk = o.verify ? malloc(n * sizeof *chk) : NULL;
  double *times = calloc((size_t)o.iters, sizeof *times);
  int ok = buf && times && (!o.verify || chk), all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (g.rank == 0) fprintf(stderr, "h5_bench: no memory for %zu bytes per rank\n", n * 8);
    status = 1;
    goto done;
  }
  fill(&g, g.rank, buf);
  long long bytes = (long long)(g.gdims[0] * g.gdims[1] * g.gdims[2]) * 8;
  if (g.rank == 0)
    printf("h5_bench: %d ranks as %dx%dx%d, dataset %llux%llux%llu doubles (%.1f MiB), block "
           "%llux%llux%llu per rank, file %s\n", g.nprocs, g.pdims[0], g.pdims[1], g.pdims[2],
           (unsigned long long)g.gdims[0], (unsigned long long)g.gdims[1],
           (unsigned long long)g.gdims[2], (double)bytes / 1048576.0,
           (unsigned long long)g.block[0], (unsigned long long)g.block[1],
           (unsigned long long)g.block[2], o.file);
  for (int it = 0; it < o.warmup + o.iters && !status; it++) {
    remove_file(&g, o.file);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int err = h5_io(&g, o.file, 1, g.rank, buf), anyerr = 0;
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&err, &anyerr, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anyerr) {
      if (g.rank == 0) fprintf(stderr, "h5_bench: iteration %d: the HDF5 write failed\n", it + 1);
      status = 1;
      break;
    }
    int bad = 0, nbad = 0;
    if (o.verify) {
      int owner = (g.rank + 1) % g.nprocs;
      bad = h5_io(&g, o.file, 0, owner, chk);
      if (!bad) {
        fill(&g, owner, buf);
        bad = memcmp(buf, chk, n * sizeof *buf) != 0;
        fill(&g, g.rank, buf);
      }
      MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (nbad) status = 1;
    }
    if (it >= o.warmup) times[it - o.warmup] = tmax;
    if (g.rank == 0) {
      printf("iteration %d/%d%s: %.3f s, %.1f MiB/s%s\n", it + 1, o.warmup + o.iters,
             it < o.warmup ? " (warm-up)" : "", tmax, (double)bytes / tmax / 1048576.0,
             !o.verify ? "" : nbad ? " VERIFY FAILED" : ", verified");
      fflush(stdout);
    }
  }
  if (!status && g.rank == 0) {
    qsort(times, (size_t)o.iters, sizeof *times, cmp_double);
    double med = o.iters % 2 ? times[o.iters / 2]
                             : (times[o.iters / 2 - 1] + times[o.iters / 2]) / 2;
    printf("h5_bench: %d ranks, %lld bytes, median %.4f s, %.1f MiB/s (open+create+write+close, "
           "max over ranks, median of %d)\n", g.nprocs, bytes, med,
           (double)bytes / med / 1048576.0, o.iters);
  }
  if (!o.keep) remove_file(&g, o.file);
done:
  free(buf);
  free(chk);
  free(times);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
