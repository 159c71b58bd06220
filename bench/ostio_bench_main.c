/* ostio-bench: thin main over the runner library (bench/bench.h).
 * Exit status: 0 ok, 1 verification or I/O failure, 2 usage error. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

static void progress(void *ctx, const char *line)
{
  (void)ctx;
  fprintf(stderr, "ostio-bench: %s\n", line);
  fflush(stderr);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, status = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ob_config c;
  ob_results res = {0};
  char err[1024] = "";
  int rc = ob_parse_args(argc, argv, &c, err, sizeof err);
  if (rc == OB_OK && c.help) {
    if (rank == 0) ob_usage(stdout);
    MPI_Finalize();
    return 0;
  }
#ifndef OB_HAVE_MPIIO_OSTIO
  /* Built without libostio-mpiio.so: mpiio+ostio works only under LD_PRELOAD. */
  for (int a = 0; rc == OB_OK && a < c.napis; a++)
    if (c.apis[a].ostio_mpiio && !ob_mpiio_ostio_present(NULL, 0)) {
      snprintf(err, sizeof err, "-a mpiio+ostio: this ostio-bench was built without "
               "libostio-mpiio.so (no CMake target ostio_mpiio); run it with "
               "LD_PRELOAD=libostio-mpiio.so or leave mpiio+ostio out");
      rc = OB_EUSAGE;
    }
#endif
  if (rc == OB_OK) {
    c.progress = progress;
    rc = ob_run(&c, &res, err, sizeof err);
  }
  if (rank == 0) {
    if (res.n > 0) {
      ob_report_text(stdout, &c, &res);
      fflush(stdout);
    }
    if (rc != OB_EUSAGE && res.n > 0 && c.json[0]) {
      FILE *f = fopen(c.json, "w");
      if (f) ob_report_json(f, &c, &res);
      if (!f || fclose(f) != 0) {
        fprintf(stderr, "ostio-bench: --json %s: %s\n", c.json, strerror(errno));
        status = 1;
      }
    }
    if (rc) fprintf(stderr, "ostio-bench: %s%s\n", err[0] ? err : "failed",
                    rc == OB_EUSAGE ? " (see --help)" : "");
  }
  if (rc == OB_EUSAGE) status = 2;
  else if (rc) status = 1;
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ob_results_free(&res);
  MPI_Finalize();
  return status;
}
