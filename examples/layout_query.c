/* Example: what an MPI application sees through the public API. With
 * STRIPE_COUNT and STRIPE_SIZE, FILE is first created (when it does not
 * exist) by ostio_open with the striping hints striping_factor and
 * striping_unit, as an application creates its output; a new file gets its
 * OSTs then (Lustre chooses them; elsewhere the emulated layout numbers them
 * from start_iodevice, else 0, as `ostio setstripe` does). Every rank then
 * calls ostio_layout_query (rank 0 reads the file system once and
 * broadcasts), maps the block it would write in an IOR-style segmented
 * pattern and prints which OSTs that block touches.
 *
 *   mpiexec -n 2 ./layout_query FILE [BLOCK_BYTES [STRIPE_COUNT STRIPE_SIZE]]
 *
 * Built against the installed library only: ostio.h and -lostio. */
#include <stdio.h>
#include <stdlib.h>

#include <ostio.h>

int main(int argc, char **argv)
{
  int rank, nprocs, rc;
  ostio_layout *layout = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 2 || argc == 4 || argc > 5) {
    if (rank == 0)
      fprintf(stderr, "usage: %s FILE [BLOCK_BYTES [STRIPE_COUNT STRIPE_SIZE]]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  int64_t block = argc > 2 ? atoll(argv[2]) : 3 << 20;
  if (argc == 5) {
    /* Create FILE with a layout (nothing happens to an existing file: a
     * layout is given at creation only, as on Lustre). */
    ostio_file *fh = NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "striping_factor", argv[3]);
    MPI_Info_set(info, "striping_unit", argv[4]);
    rc = ostio_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
    MPI_Info_free(&info);
    if (rc == 0) rc = ostio_close(&fh);
    if (rc < 0) {
      if (rank == 0)
        fprintf(stderr, "%s: %s (%s)\n", argv[1], ostio_last_error(), ostio_errname(rc));
      MPI_Finalize();
      return 1;
    }
  }
  rc = ostio_layout_query(MPI_COMM_WORLD, argv[1], MPI_INFO_NULL, &layout);
  if (rc < 0) {
    if (rank == 0)
      fprintf(stderr, "%s: %s (%s)\n", argv[1], ostio_last_error(), ostio_errname(rc));
    MPI_Finalize();
    return 1;
  }
  ostio_layout_component c;
  ostio_layout_get_component(layout, 0, &c);
  if (rank == 0)
    printf("%s: %s layout, %d component(s); first: %d x %lld bytes\n", argv[1],
           ostio_layout_source(layout), ostio_layout_ncomponents(layout), c.stripe_count,
           (long long)c.stripe_size);
  size_t n = 0;
  int64_t off = (int64_t)rank * block;
  ostio_layout_map(layout, off, block, NULL, 0, &n);
  ostio_piece *pieces = malloc(n * sizeof *pieces);
  ostio_layout_map(layout, off, block, pieces, n, &n);
  for (int r = 0; r < nprocs; r++) {
    if (r == rank) {
      printf("rank %d block [%lld, %lld): %zu pieces on OSTs", rank, (long long)off,
             (long long)(off + block), n);
      for (size_t i = 0; i < n; i++) printf(" %d", pieces[i].ost);
      printf("\n");
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(pieces);
  ostio_layout_free(&layout);
  MPI_Finalize();
  return 0;
}
