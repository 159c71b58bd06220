/* Example: a collective write and read-back through the public API.
 *
 * Every rank writes BLOCKS blocks of 4 KiB in a strided pattern (rank r owns
 * blocks r, r + P, r + 2P, ... of the file, P ranks), in one ostio_write_all
 * call, with hints passed as MPI_Info (4 stripes of 64 KiB for a new file,
 * the `ost` strategy). The file is synced and closed, reopened read-only, read
 * back with ostio_read_all, and every byte is compared with what was written.
 * Errors are agreed by every rank and explained by ostio_last_error().
 *
 *   mpiexec -n 2 ./write_read FILE
 *
 * Prints one line per rank, then "write_read: ok ..." on rank 0; exit 1 when a
 * call fails or a byte differs. Built against the installed library only:
 *   mpicc $(pkg-config --cflags ostio) write_read.c $(pkg-config --libs ostio)
 * README.md's "Using the library" is the part between the README markers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ostio.h>

enum { BLOCK = 4096, BLOCKS = 8 };

/* The byte every rank expects at file offset off. */
static unsigned char pattern(int64_t off) { return (unsigned char)(off % 251 + off / BLOCK); }

int main(int argc, char **argv)
{
  int rank, nprocs;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 2) {
    if (rank == 0) fprintf(stderr, "usage: %s FILE\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const char *path = argv[1];
  unsigned char *buf = malloc(BLOCKS * BLOCK), *back = calloc(BLOCKS, BLOCK);
  if (!buf || !back) MPI_Abort(MPI_COMM_WORLD, 1);

  /* --- README: begin --- */
  /* Rank r writes blocks r, r + nprocs, r + 2 nprocs, ...: a strided pattern. */
  ostio_extent ext[BLOCKS];
  for (int i = 0; i < BLOCKS; i++) {
    ext[i] = (ostio_extent){.offset = ((int64_t)i * nprocs + rank) * BLOCK, .length = BLOCK};
    for (int j = 0; j < BLOCK; j++) buf[i * BLOCK + j] = pattern(ext[i].offset + j);
  }
  MPI_Info info;                      /* hints: the MPI-IO way, or OSTIO_HINTS */
  MPI_Info_create(&info);
  MPI_Info_set(info, "striping_factor", "4");   /* a new file: 4 stripes of 64 KiB */
  MPI_Info_set(info, "striping_unit", "65536");
  MPI_Info_set(info, "ostio_strategy", "ost");  /* one aggregator per stripe object */

  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  if (rc == 0) rc = ostio_write_all(fh, ext, BLOCKS, buf);   /* same rc on every rank */
  if (rc == 0) rc = ostio_sync(fh);
  if (fh) {
    int rc_close = ostio_close(&fh);                         /* collective, sets fh = NULL */
    if (rc == 0) rc = rc_close;
  }
  if (rc == 0) rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
  if (rc == 0) rc = ostio_read_all(fh, ext, BLOCKS, back);   /* the same extents, back */
  const char *strategy = fh ? ostio_file_strategy(fh) : "none";
  if (fh) {
    int rc_close = ostio_close(&fh);
    if (rc == 0) rc = rc_close;
  }
  MPI_Info_free(&info);
  if (rc < 0) {
    fprintf(stderr, "rank %d: %s: %s (%s)\n", rank, path, ostio_last_error(), ostio_errname(rc));
    MPI_Finalize();
    return 1;
  }
  /* --- README: end --- */

  /* Every byte read back must be the pattern at its offset. */
  long bad = 0, first_bad = -1;
  for (int i = 0; i < BLOCKS; i++)
    for (int j = 0; j < BLOCK; j++)
      if (back[i * BLOCK + j] != pattern(ext[i].offset + j) && bad++ == 0)
        first_bad = (long)(ext[i].offset + j);
  printf("rank %d: wrote and read back %d blocks of %d bytes at offsets %lld, %lld, ... "
         "(stride %lld): %ld bytes differ%s\n",
         rank, BLOCKS, BLOCK, (long long)ext[0].offset, (long long)ext[1].offset,
         (long long)nprocs * BLOCK, bad, bad ? "" : ", all match");
  if (bad) fprintf(stderr, "rank %d: first wrong byte at offset %ld\n", rank, first_bad);
  fflush(stdout);
  long total_bad = 0;
  MPI_Allreduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total_bad == 0)
      printf("write_read: ok: %d ranks, %lld bytes written with ostio_write_all and read back "
             "with ostio_read_all (strategy %s), every byte checked\n",
             nprocs, (long long)nprocs * BLOCKS * BLOCK, strategy);
    else
      printf("write_read: FAILED: %ld bytes differ\n", total_bad);
  }
  free(buf);
  free(back);
  MPI_Finalize();
  return total_bad ? 1 : 0;
}
