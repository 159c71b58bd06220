/* Parallel HDF5 over MPI-IO (issue 16): h5_hyperslab OUTFILE
 *
 * Writes OUTFILE with H5Pset_fapl_mpio: four 3-D datasets, a contiguous one
 * and a chunked one (chunks that do not line up with the blocks), once with
 * collective transfer (group /collective, H5FD_MPIO_COLLECTIVE) and once
 * independent (group /independent). The ranks form a 3-D grid
 * (MPI_Dims_create); each writes its block as a hyperslab. Every value names
 * its dataset and global coordinate, so a misplaced block says where it came
 * from. Then the file is reopened read-only and each rank reads its own block
 * and its right neighbour's (rank + 1 mod P, written by another process),
 * with the same transfer mode, and checks every value.
 *
 * The file is deterministic: no object times (H5Pset_obj_track_times 0 on the
 * groups and datasets), and every byte is defined: storage is allocated and
 * filled (-1) at creation, so the parts of the edge chunks beyond the extent
 * hold the fill value. Without the fill they are holes that nobody writes:
 * ostio leaves them zero, while ROMIO's two-phase write puts there whatever
 * its collective buffer held (another dataset's values; the same in every run,
 * so two native runs agree but differ from ostio's file at 4 ranks). Two runs
 * with the same rank count give the same bytes (tests/mpiio/h5_compare.sh
 * checks that before comparing a native and an interposed run byte for byte).
 *
 * Prints "No Errors" on rank 0 and exits 0 on success; one pass/fail per run
 * (Allreduce). Used natively and under libostio-mpiio.so (LD_PRELOAD). */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDS 4
#define MAX_REPORT 5

/* Per-rank block edge and chunk edge: the chunks straddle the blocks. */
static const hsize_t block_edge[3] = {6, 5, 7};
static const hsize_t chunk_edge[3] = {4, 3, 5};

typedef struct grid {
  int rank, nprocs;
  int pdims[3];
  hsize_t gdims[3];                 /* global dataset extent                  */
} grid;

typedef struct dsdesc {
  const char *group, *name;
  int chunked, collective;
} dsdesc;

static const dsdesc dsets[NDS] = {
  {"collective", "contiguous", 0, 1},
  {"collective", "chunked", 1, 1},
  {"independent", "contiguous", 0, 0},
  {"independent", "chunked", 1, 0},
};

static int64_t value(const grid *g, int ds, hsize_t x, hsize_t y, hsize_t z)
{
  return (int64_t)(ds + 1) * 1000000000LL +
         (int64_t)((x * g->gdims[1] + y) * g->gdims[2] + z);
}

/* The block of rank r: start and count per dimension (row-major rank grid). */
static void block_of(const grid *g, int r, hsize_t start[3], hsize_t count[3])
{
  int c[3];
  c[2] = r % g->pdims[2];
  c[1] = (r / g->pdims[2]) % g->pdims[1];
  c[0] = r / (g->pdims[2] * g->pdims[1]);
  for (int d = 0; d < 3; d++) {
    start[d] = (hsize_t)c[d] * block_edge[d];
    count[d] = block_edge[d];
  }
}

static void fill(const grid *g, int ds, const hsize_t start[3], const hsize_t count[3],
                 int64_t *buf)
{
  size_t i = 0;
  for (hsize_t x = 0; x < count[0]; x++)
    for (hsize_t y = 0; y < count[1]; y++)
      for (hsize_t z = 0; z < count[2]; z++)
        buf[i++] = value(g, ds, start[0] + x, start[1] + y, start[2] + z);
}

static long check(const grid *g, int ds, int owner, const hsize_t start[3],
                  const hsize_t count[3], const int64_t *buf)
{
  long bad = 0;
  size_t i = 0;
  for (hsize_t x = 0; x < count[0]; x++)
    for (hsize_t y = 0; y < count[1]; y++)
      for (hsize_t z = 0; z < count[2]; z++, i++) {
        int64_t want = value(g, ds, start[0] + x, start[1] + y, start[2] + z);
        if (buf[i] == want) continue;
        if (bad++ < MAX_REPORT)
          fprintf(stderr, "h5_hyperslab: rank %d /%s/%s (block of rank %d) at (%llu,%llu,%llu):"
                  " %lld, expected %lld\n", g->rank, dsets[ds].group, dsets[ds].name, owner,
                  (unsigned long long)(start[0] + x), (unsigned long long)(start[1] + y),
                  (unsigned long long)(start[2] + z), (long long)buf[i], (long long)want);
      }
  return bad;
}

static int fail(const grid *g, const char *what)
{
  fprintf(stderr, "h5_hyperslab: rank %d: %s failed\n", g->rank, what);
  return 1;
}

static hid_t file_access(MPI_Comm comm)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
  if (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) {
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

static hid_t transfer(int collective)
{
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (dxpl < 0) return dxpl;
  if (H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT) < 0) {
    H5Pclose(dxpl);
    return -1;
  }
  return dxpl;
}

/* Reads or writes the block of rank `owner` in dataset ds (file already open). */
static int block_io(const grid *g, hid_t file, int ds, int owner, int write, int64_t *buf)
{
  char path[64];
  hsize_t start[3], count[3];
  hid_t dset = -1, fspace = -1, mspace = -1, dxpl = -1;
  int err = 1;
  snprintf(path, sizeof path, "/%s/%s", dsets[ds].group, dsets[ds].name);
  block_of(g, owner, start, count);
  if ((dset = H5Dopen2(file, path, H5P_DEFAULT)) < 0) { fail(g, "H5Dopen2"); goto done; }
  if ((fspace = H5Dget_space(dset)) < 0) { fail(g, "H5Dget_space"); goto done; }
  hsize_t dims[3];
  if (H5Sget_simple_extent_dims(fspace, dims, NULL) != 3 || dims[0] != g->gdims[0] ||
      dims[1] != g->gdims[1] || dims[2] != g->gdims[2]) {
    fail(g, "the dataset's extent check");
    goto done;
  }
  if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0) {
    fail(g, "H5Sselect_hyperslab");
    goto done;
  }
  if ((mspace = H5Screate_simple(3, count, NULL)) < 0) { fail(g, "H5Screate_simple"); goto done; }
  if ((dxpl = transfer(dsets[ds].collective)) < 0) { fail(g, "H5Pset_dxpl_mpio"); goto done; }
  herr_t rc = write ? H5Dwrite(dset, H5T_NATIVE_INT64, mspace, fspace, dxpl, buf)
                    : H5Dread(dset, H5T_NATIVE_INT64, mspace, fspace, dxpl, buf);
  if (rc < 0) { fail(g, write ? "H5Dwrite" : "H5Dread"); goto done; }
  err = 0;
done:
  if (dxpl >= 0) H5Pclose(dxpl);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (dset >= 0) H5Dclose(dset);
  return err;
}

/* Creates the file, its two groups and four datasets (collective), then writes. */
static int write_file(const grid *g, const char *path, int64_t *buf)
{
  hid_t fapl = -1, file = -1, gcpl = -1, dcpl[2] = {-1, -1}, space = -1;
  const int64_t fillv = -1;
  int err = 1;
  if ((fapl = file_access(MPI_COMM_WORLD)) < 0) { fail(g, "H5Pset_fapl_mpio"); goto done; }
  if ((file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0) {
    fail(g, "H5Fcreate");
    goto done;
  }
  if ((gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 || H5Pset_obj_track_times(gcpl, 0) < 0) {
    fail(g, "the group creation list");
    goto done;
  }
  for (int k = 0; k < 2; k++) {
    if ((dcpl[k] = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_obj_track_times(dcpl[k], 0) < 0 ||
        H5Pset_fill_value(dcpl[k], H5T_NATIVE_INT64, &fillv) < 0 ||
        H5Pset_fill_time(dcpl[k], H5D_FILL_TIME_ALLOC) < 0 ||
        H5Pset_alloc_time(dcpl[k], H5D_ALLOC_TIME_EARLY) < 0 ||
        (k == 1 && H5Pset_chunk(dcpl[k], 3, chunk_edge) < 0)) {
      fail(g, "the dataset creation list");
      goto done;
    }
  }
  if ((space = H5Screate_simple(3, g->gdims, NULL)) < 0) { fail(g, "H5Screate_simple"); goto done; }
  for (int k = 0; k < 2; k++) {
    hid_t grp = H5Gcreate2(file, k == 0 ? "collective" : "independent", H5P_DEFAULT, gcpl,
                           H5P_DEFAULT);
    if (grp < 0) { fail(g, "H5Gcreate2"); goto done; }
    H5Gclose(grp);
  }
  for (int ds = 0; ds < NDS; ds++) {
    char name[64];
    snprintf(name, sizeof name, "/%s/%s", dsets[ds].group, dsets[ds].name);
    hid_t d = H5Dcreate2(file, name, H5T_STD_I64LE, space, H5P_DEFAULT,
                         dcpl[dsets[ds].chunked], H5P_DEFAULT);
    if (d < 0) { fail(g, "H5Dcreate2"); goto done; }
    H5Dclose(d);
  }
  hsize_t start[3], count[3];
  block_of(g, g->rank, start, count);
  for (int ds = 0; ds < NDS; ds++) {
    fill(g, ds, start, count, buf);
    if (block_io(g, file, ds, g->rank, 1, buf)) goto done;
  }
  err = 0;
done:
  if (space >= 0) H5Sclose(space);
  for (int k = 0; k < 2; k++)
    if (dcpl[k] >= 0) H5Pclose(dcpl[k]);
  if (gcpl >= 0) H5Pclose(gcpl);
  if (file >= 0 && H5Fclose(file) < 0) err = fail(g, "H5Fclose (write)");
  if (fapl >= 0) H5Pclose(fapl);
  return err;
}

/* Reopens read-only; each rank checks its own block and its neighbour's. */
static long read_file(const grid *g, const char *path, int64_t *buf)
{
  hid_t fapl = -1, file = -1;
  long bad = 0;
  if ((fapl = file_access(MPI_COMM_WORLD)) < 0) { bad = fail(g, "H5Pset_fapl_mpio"); goto done; }
  if ((file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0) { bad = fail(g, "H5Fopen"); goto done; }
  for (int ds = 0; ds < NDS; ds++)
    for (int k = 0; k < 2; k++) {
      int owner = (g->rank + k) % g->nprocs;
      hsize_t start[3], count[3];
      block_of(g, owner, start, count);
      memset(buf, 0xa5, (size_t)(count[0] * count[1] * count[2]) * sizeof *buf);
      if (block_io(g, file, ds, owner, 0, buf)) { bad++; continue; }
      bad += check(g, ds, owner, start, count, buf);
    }
done:
  if (file >= 0 && H5Fclose(file) < 0) bad += fail(g, "H5Fclose (read)");
  if (fapl >= 0) H5Pclose(fapl);
  return bad;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  grid g = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.nprocs);
  if (argc != 2) {
    if (g.rank == 0) fprintf(stderr, "usage: mpiexec -n P h5_hyperslab OUTFILE\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Dims_create(g.nprocs, 3, g.pdims);
  for (int d = 0; d < 3; d++) g.gdims[d] = (hsize_t)g.pdims[d] * block_edge[d];
  size_t n = (size_t)(block_edge[0] * block_edge[1] * block_edge[2]);
  int64_t *buf = malloc(n * sizeof *buf);
  long bad = buf ? 0 : fail(&g, "malloc");
  int werr = bad ? 1 : write_file(&g, argv[1], buf), wall = 0;
  MPI_Allreduce(&werr, &wall, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (wall) bad++;
  else bad += read_file(&g, argv[1], buf);
  long total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g.rank == 0) {
    if (total == 0) printf("No Errors\n");
    else fprintf(stderr, "h5_hyperslab: %ld error(s) (%s, %d ranks as %dx%dx%d)\n", total,
                 argv[1], g.nprocs, g.pdims[0], g.pdims[1], g.pdims[2]);
  }
  free(buf);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
