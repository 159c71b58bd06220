/* A writer for test_log_disk's crash test through the library: ostio_open
 * (hint ostio_container=log) on MPI_COMM_SELF, the same seeded writes as the
 * module-level writer with ostio_write_at, ostio_sync every 7 writes, then
 * the step number into a side file (fsync'ed). Killed with SIGKILL by the
 * parent at a random moment. Usage: log_crash_writer PATH SIDE SEED ROUND */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "ostio.h"
#include "testutil.h"

#define CF 65536
#define CSTEPS 4000

int main(int argc, char **argv)
{
  if (argc != 5) return 2;
  uint64_t seed = strtoull(argv[3], NULL, 10);
  int round = atoi(argv[4]);
  MPI_Init(&argc, &argv);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_container", "log");
  ostio_file *fh = NULL;
  if (ostio_open(MPI_COMM_SELF, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) < 0) return 3;
  int sfd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0666);
  uint8_t buf[3000];
  for (int s = 0; s < CSTEPS; s++) {
    tu_rng g;
    tu_rng_seed(&g, seed * 1000003 + (uint64_t)s);
    int64_t off = tu_rng_range(&g, 0, CF - 1), len = tu_rng_range(&g, 1, 3000);
    if (off + len > CF) len = CF - off;
    for (int64_t k = 0; k < len; k++)
      buf[k] = (uint8_t)((uint64_t)((off + k) * 131 + s * 31 + round * 57) % 251 + 1);
    if (ostio_write_at(fh, off, buf, (size_t)len) < 0) return 4;
    if (s % 7 == 6) {
      if (ostio_sync(fh) < 0) return 5;
      int32_t done = s;
      if (pwrite(sfd, &done, sizeof done, 0) != sizeof done || fsync(sfd) < 0) return 6;
    }
  }
  ostio_close(&fh);
  MPI_Finalize();
  _exit(0); /* no leak report of MPICH's allocations under ASan (normally killed earlier) */
}
