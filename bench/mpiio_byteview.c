/* A file view of one-byte blocks through MPI-IO (issue 27, docs/mpiio.md):
 * rank r's filetype is MPI_Type_vector(N, 1, P, MPI_BYTE) resized to N * P
 * bytes, displacement r, so the ranks' bytes interleave one by one. Each
 * phase writes or reads N bytes per rank REPS times: write_all, read_all,
 * write, read (independent, the same view). The read phases check the bytes.
 * Prints the slowest rank's seconds per phase. Run the same binary with and
 * without LD_PRELOAD=libostio-mpiio.so (scripts/bench-mpiio-byteview.sh).
 *   mpiexec -n 2 ostio_bench_mpiio_byteview PATH [N [REPS [coll|indep]]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pat(int rank, long i, int rep)
{
  return (unsigned char)(rank * 31 + i * 7 + rep);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    if (rank == 0)
      printf("usage: mpiexec -n P %s PATH [N [REPS [coll|indep]]]\n"
             "Writes and reads N bytes per rank REPS times through a view of one-byte\n"
             "blocks interleaving the ranks (default N 1048576, REPS 4); prints the slowest\n"
             "rank's seconds per phase (write_all, read_all, write, read; coll or indep:\n"
             "only the first two or the last two).\n", argv[0]);
    MPI_Finalize();
    return argc < 2;
  }
  long n = argc > 2 ? atol(argv[2]) : 1048576;
  int reps = argc > 3 ? atoi(argv[3]) : 4;
  const char *only = argc > 4 ? argv[4] : "";
  if (n <= 0 || n > (1L << 30) || reps <= 0) {
    if (rank == 0) fprintf(stderr, "N must be 1..2^30 and REPS positive (got %ld, %d)\n", n, reps);
    MPI_Finalize();
    return 2;
  }
  MPI_Datatype vec, ft;
  MPI_Type_vector((int)n, 1, np, MPI_BYTE, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)n * np, &ft);
  MPI_Type_commit(&ft);
  unsigned char *buf = malloc((size_t)n);
  MPI_File fh;
  MPI_File_delete(argv[1], MPI_INFO_NULL);
  if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                    &fh) != MPI_SUCCESS) {
    fprintf(stderr, "cannot open %s\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_File_set_view(fh, rank, MPI_BYTE, ft, "native", MPI_INFO_NULL);
  const char *names[4] = {"write_all", "read_all", "write", "read"};
  long bad = 0;
  for (int ph = 0; ph < 4; ph++) {
    int wr = ph % 2 == 0, coll = ph < 2;
    if ((!strcmp(only, "coll") && !coll) || (!strcmp(only, "indep") && coll)) continue;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < reps; k++) {
      if (wr)
        for (long i = 0; i < n; i++) buf[i] = pat(rank, i, k + ph);
      else
        memset(buf, 0, (size_t)n);
      if (wr && coll) MPI_File_write_at_all(fh, 0, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
      if (wr && !coll) MPI_File_write_at(fh, 0, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
      if (!wr && coll) MPI_File_read_at_all(fh, 0, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
      if (!wr && !coll) MPI_File_read_at(fh, 0, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
      if (!wr) /* the write phase before this one ended with rep reps - 1 */
        for (long i = 0; i < n; i++) bad += buf[i] != pat(rank, i, reps - 1 + ph - 1);
      if (!wr || !coll) MPI_Barrier(MPI_COMM_WORLD); /* a read sees every rank's write */
    }
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %.4f\n", names[ph], t);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_File_close(&fh);
  if (rank == 0) MPI_File_delete(argv[1], MPI_INFO_NULL);
  if (rank == 0 && bad) fprintf(stderr, "%ld wrong bytes read back\n", bad);
  free(buf);
  MPI_Type_free(&ft);
  MPI_Type_free(&vec);
  MPI_Finalize();
  return bad != 0;
}
