/* A writer for tests/cli/test_cli_stage.py: opens PATH as a log container
 * (hint ostio_container=log) on MPI_COMM_SELF, or on MPI_COMM_WORLD under
 * mpiexec, with whatever OSTIO_HINTS gives (ostio_stage_dir=DIR for a staged
 * run, nothing for the unstaged reference); writes a deterministic pattern
 * of MIB MiB in pieces of varying length (each rank its own block of MIB
 * MiB, rank r at r * MIB MiB), then overwrites a range inside each block
 * with a second pattern, calls ostio_sync, and then either closes ("close")
 * or ends with _exit(0) without closing ("exit": a job killed after its
 * last sync).
 *
 * Usage: stage_writer PATH MIB close|exit
 * Byte at logical offset o: stage_byte(o, 1) outside the overwrites,
 * stage_byte(o, 2) inside them (the test computes the same). Exit 0 when
 * every call succeeded, 3.. naming the failing step otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ostio.h"

#define MiB ((int64_t)1 << 20)

static uint8_t stage_byte(int64_t o, int tag)
{
  return (uint8_t)((uint64_t)(o * 131 + (o >> 12) * 7 + tag * 59) % 251);
}

static void fill(uint8_t *buf, int64_t off, int64_t len, int tag)
{
  for (int64_t k = 0; k < len; k++) buf[k] = stage_byte(off + k, tag);
}

/* The overwrite of the block at base of size total: unaligned, inside. */
static void overwrite_range(int64_t base, int64_t total, int64_t *off, int64_t *len)
{
  *off = base + total / 3 + 1000;
  *len = total / 4 + 123;
}

int main(int argc, char **argv)
{
  if (argc != 4 || atoi(argv[2]) <= 0 || (strcmp(argv[3], "close") && strcmp(argv[3], "exit"))) {
    fprintf(stderr, "usage: stage_writer PATH MIB close|exit (MIB > 0)\n");
    return 2;
  }
  int64_t total = atoi(argv[2]) * MiB;
  int exit_mode = !strcmp(argv[3], "exit"), rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm comm = world > 1 ? MPI_COMM_WORLD : MPI_COMM_SELF;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_container", "log");
  ostio_file *fh = NULL;
  if (ostio_open(comm, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) < 0) {
    fprintf(stderr, "stage_writer: open: %s\n", ostio_last_error());
    return 3;
  }
  MPI_Info_free(&info);
  uint8_t *buf = malloc((size_t)(2 * MiB));
  if (!buf) return 4;
  int64_t base = (int64_t)rank * total;
  /* Pieces of varying length: each ends the compressor's record, so the
   * index holds many records (some drained, some not, at a kill). */
  int64_t at = 0;
  for (int k = 0; at < total; k++) {
    int64_t len = MiB / 4 * (1 + k % 5) + (k * 4099) % 8192;
    if (len > total - at) len = total - at;
    fill(buf, base + at, len, 1);
    if (ostio_write_at(fh, base + at, buf, (size_t)len) < 0) {
      fprintf(stderr, "stage_writer: write at %lld: %s\n", (long long)(base + at),
              ostio_last_error());
      return 5;
    }
    at += len;
  }
  int64_t ooff, olen;
  overwrite_range(base, total, &ooff, &olen);
  for (int64_t done = 0; done < olen;) {
    int64_t len = olen - done < 2 * MiB ? olen - done : 2 * MiB;
    fill(buf, ooff + done, len, 2);
    if (ostio_write_at(fh, ooff + done, buf, (size_t)len) < 0) {
      fprintf(stderr, "stage_writer: overwrite: %s\n", ostio_last_error());
      return 6;
    }
    done += len;
  }
  free(buf);
  if (ostio_sync(fh) < 0) {
    fprintf(stderr, "stage_writer: sync: %s\n", ostio_last_error());
    return 7;
  }
  if (exit_mode) { /* ended after the last sync: no close, so no final drain */
    MPI_Finalize(); /* Open MPI's mpiexec fails a job whose ranks skip it */
    _exit(0);
  }
  if (ostio_close(&fh) < 0) {
    fprintf(stderr, "stage_writer: close: %s\n", ostio_last_error());
    return 8;
  }
  MPI_Finalize();
  _exit(0); /* no leak report of MPICH's allocations under ASan */
}
