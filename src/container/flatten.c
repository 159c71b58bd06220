/* Flatten: a container (or any file ostio opens) copied into a new plain
 * file through the collective API, so it runs in parallel under mpiexec.
 * Chunk by chunk, each rank reads its share with ostio_read_all and writes
 * it with ostio_write_all; stripes of zeros are skipped so holes stay holes,
 * and the size is set at the end. Collective over comm; every rank returns
 * the same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/flatten.h"
#include "core/agree.h"
#include "core/error.h"

static int all_zero(const char *p, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

/* Info for the output: the caller's (layout hints) plus ostio_container=plain,
 * so OSTIO_HINTS asking for containers cannot turn the output into one. */
static int out_info(MPI_Info given, MPI_Info *out)
{
  int rc = given == MPI_INFO_NULL ? MPI_Info_create(out) : MPI_Info_dup(given, out);
  if (rc != MPI_SUCCESS) return ostio__fail(OSTIO_EMPI, "flatten: MPI_Info_create failed");
  MPI_Info_set(*out, "ostio_container", "plain");
  return 0;
}

int ostio__flatten(MPI_Comm comm, const char *src, const char *dst, MPI_Info dst_info,
                   int64_t chunk, ostio__flatten_progress progress, void *arg)
{
  ostio_file *in = NULL, *out = NULL;
  MPI_Info info = MPI_INFO_NULL;
  int rank = 0, nprocs = 1, rc;
  int64_t size = 0;
  char *buf = NULL;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nprocs);
  if (chunk <= 0) chunk = OSTIO__FLATTEN_CHUNK;
  if ((rc = ostio_open(comm, src, MPI_MODE_RDONLY, MPI_INFO_NULL, &in)) < 0) return rc;
  rc = ostio_get_size(in, &size);
  if ((rc = ostio__agree(comm, rc)) < 0) goto done;
  MPI_Bcast(&size, 1, MPI_INT64_T, 0, comm);
  rc = out_info(dst_info, &info);
  if ((rc = ostio__agree(comm, rc)) < 0) goto done;
  rc = ostio_open(comm, dst, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, info, &out);
  if (rc == OSTIO_EEXIST)
    rc = ostio__fail(rc, "%s exists; flatten writes a new plain file: remove it or choose "
                     "another name", dst);
  if (rc < 0) goto done;
  /* Each rank's share of a chunk: a multiple of 64 KiB, so shares start on
   * stripe boundaries of common layouts. */
  int64_t share = (chunk + nprocs - 1) / nprocs;
  share = (share + 65535) / 65536 * 65536;
  if (!(buf = malloc((size_t)share))) rc = ostio__fail(OSTIO_ENOMEM, "flatten: no memory for "
                                                       "a %lld-byte buffer", (long long)share);
  if ((rc = ostio__agree(comm, rc)) < 0) goto done;
  for (int64_t pos = 0; pos < size; pos += share * nprocs) {
    int64_t off = pos + share * rank, len = off < size ? size - off : 0;
    if (len > share) len = share;
    ostio_extent e = {off, len};
    if ((rc = ostio_read_all(in, &e, len > 0, buf)) < 0) goto done;
    if (all_zero(buf, len)) e.length = 0; /* keep holes */
    if ((rc = ostio_write_all(out, &e, e.length > 0, buf)) < 0) goto done;
    int64_t done_bytes = pos + share * nprocs < size ? pos + share * nprocs : size;
    if (progress && rank == 0) progress(done_bytes, size, arg);
  }
  rc = ostio_set_size(out, size);
done:
  free(buf);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  char keep[512] = "";
  if (rc < 0) snprintf(keep, sizeof keep, "%s", ostio_last_error());
  int rc2 = out ? ostio_close(&out) : 0;
  int rc3 = in ? ostio_close(&in) : 0;
  if (rc < 0) ostio__set_detail(keep);
  return rc < 0 ? rc : rc2 < 0 ? rc2 : rc3;
}
