/* One writer process of test_log_concurrent: opens PATH as a log container
 * through the library on MPI_COMM_SELF (created when missing), writes LEN
 * bytes of value BYTE at OFFSET with ostio_write_at, closes. Several run at
 * once against one container with the preload's writers.
 * Usage: log_conc_writer PATH OFFSET LEN BYTE; exit 0 on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ostio.h"

int main(int argc, char **argv)
{
  if (argc != 5) {
    fprintf(stderr, "usage: log_conc_writer PATH OFFSET LEN BYTE\n");
    return 2;
  }
  long long off = atoll(argv[2]);
  size_t len = (size_t)atoll(argv[3]);
  char *buf = malloc(len ? len : 1);
  if (!buf) return 2;
  memset(buf, atoi(argv[4]), len);
  MPI_Init(&argc, &argv);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_container", "log");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_SELF, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  if (rc == 0) rc = ostio_write_at(fh, off, buf, len);
  int rc2 = fh ? ostio_close(&fh) : 0;
  if (rc == 0) rc = rc2;
  if (rc < 0) fprintf(stderr, "log_conc_writer %s: %s\n", argv[1], ostio_last_error());
  MPI_Info_free(&info);
  free(buf);
  MPI_Finalize();
  return rc < 0 ? 1 : 0;
}
