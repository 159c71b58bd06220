/* Pass-through cost of libostio-mpiio.so (issue 16, docs/mpiio.md): many
 * small independent MPI-IO calls on a file the interposer does NOT take, so
 * the same binary is timed with and without LD_PRELOAD
 * (scripts/bench-mpiio-passthru.sh alternates the two). Each rank writes
 * then reads N records of S bytes at its own offsets (write_at / read_at),
 * then one collective write_at_all and read_at_all per record, then N / 50
 * opens and closes; prints the slowest rank's seconds per phase. Not linked
 * against ostio.
 *   mpiexec -n 2 ostio_bench_mpiio_passthru PATH [N [S]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    if (rank == 0)
      printf("usage: mpiexec -n P %s PATH [N [S]]\n"
             "Times N independent write_at and read_at calls of S bytes per rank, then N\n"
             "write_at_all and read_at_all calls, then N/50 opens + closes, on PATH\n"
             "(default N 20000, S 64); prints\n"
             "the slowest rank's seconds per phase. Run it with and without\n"
             "LD_PRELOAD=libostio-mpiio.so on a path outside OSTIO_MPIIO_PATHS to measure\n"
             "the interposer's pass-through cost (scripts/bench-mpiio-passthru.sh).\n",
             argv[0]);
    MPI_Finalize();
    return argc < 2;
  }
  long n = argc > 2 ? atol(argv[2]) : 20000;
  int s = argc > 3 ? atoi(argv[3]) : 64;
  if (n <= 0 || s <= 0) {
    if (rank == 0) fprintf(stderr, "N and S must be positive (got %ld, %d)\n", n, s);
    MPI_Finalize();
    return 2;
  }
  char *buf = calloc((size_t)s, 1);
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS || !buf) {
    if (rank == 0) fprintf(stderr, "cannot open %s\n", argv[1]);
    MPI_Finalize();
    return 1;
  }
  const char *names[4] = {"write_at", "read_at", "write_at_all", "read_at_all"};
  double t[4];
  int bad = 0;
  for (int phase = 0; phase < 4; phase++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
      MPI_Offset off = ((MPI_Offset)i * np + rank) * s;
      switch (phase) {
      case 0: bad |= MPI_File_write_at(fh, off, buf, s, MPI_BYTE, MPI_STATUS_IGNORE); break;
      case 1: bad |= MPI_File_read_at(fh, off, buf, s, MPI_BYTE, MPI_STATUS_IGNORE); break;
      case 2: bad |= MPI_File_write_at_all(fh, off, buf, s, MPI_BYTE, MPI_STATUS_IGNORE); break;
      default: bad |= MPI_File_read_at_all(fh, off, buf, s, MPI_BYTE, MPI_STATUS_IGNORE); break;
      }
    }
    double dt = MPI_Wtime() - t0;
    MPI_Reduce(&dt, &t[phase], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  }
  MPI_File_close(&fh);
  /* Opens and closes: the interposer's one Allreduce (and rank 0's look
   * for a container) per open. */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < n / 50; i++) {
    bad |= MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    bad |= MPI_File_close(&fh);
  }
  double dt = MPI_Wtime() - t0, topen = 0;
  MPI_Reduce(&dt, &topen, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_File_delete(argv[1], MPI_INFO_NULL);
    for (int p = 0; p < 4; p++) printf("%s %.6f\n", names[p], t[p]);
    printf("open+close %.6f\n", topen);
  }
  free(buf);
  MPI_Finalize();
  return bad != 0;
}
