/* The data-access MPI_File_* calls of the interposer (mfile.h): blocking,
 * split collective and nonblocking forms, and the MPI-4 large-count (_c)
 * forms where mpi.h declares them. Each takes its handle from the table or
 * hands the call to the next PMPI_File_* (mpiio_next.h); the work is in
 * ostio__mpiio_rw. Each is exported under its PMPI_File_* name too.
 *
 * Split collectives (_begin / _end) do the whole collective in _begin; _end
 * returns its status (MPI allows either half to do the work). Nonblocking
 * calls complete before they return and give a generalized request that is
 * already complete: no overlap of I/O and computation (docs/mpiio.md). */
#include <stdlib.h>

#include "mpiio/mfile.h"

#include "core/error.h"

static int split_begin(ostio__mfile *mf, const char *call, int flags, MPI_Offset offset,
                       void *buf, MPI_Count count, MPI_Datatype datatype)
{
  if (mf->split_active)
    return ostio__mpiio_failc(mf, call, MPI_ERR_OTHER, "a split collective is already in "
                              "progress on this file; MPI allows one at a time");
  int64_t n = 0;
  int rc = ostio__mpiio_rw(mf, call, flags | OSTIO__OP_COLL, offset, buf, count, datatype,
                           MPI_STATUS_IGNORE, &n);
  if (rc == MPI_SUCCESS) {
    mf->split_active = 1;
    mf->split_bytes = n;
  }
  return rc;
}

static int split_end(ostio__mfile *mf, const char *call, MPI_Status *status)
{
  if (!mf->split_active)
    return ostio__mpiio_failc(mf, call, MPI_ERR_OTHER, "no split collective is in progress "
                              "on this file (its _begin failed or was not called)");
  mf->split_active = 0;
  ostio__mpiio_set_status(status, mf->split_bytes);
  return MPI_SUCCESS;
}

static int greq_query(void *extra, MPI_Status *st)
{
  ostio__mpiio_set_status(st, *(int64_t *)extra);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  st->MPI_ERROR = MPI_SUCCESS;
  return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
  free(extra);
  return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
  (void)extra;
  (void)complete;
  return MPI_SUCCESS; /* complete already: nothing to cancel */
}

static int start(ostio__mfile *mf, const char *call, int flags, MPI_Offset offset, void *buf,
                 MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  *request = MPI_REQUEST_NULL;
  int64_t moved = 0;
  int rc = ostio__mpiio_rw(mf, call, flags, offset, buf, count, datatype, MPI_STATUS_IGNORE,
                           &moved);
  if (rc != MPI_SUCCESS) return rc;
  int64_t *n = malloc(sizeof *n);
  if (!n)
    return ostio__mpiio_failc(mf, call, MPI_ERR_NO_MEM, "out of memory for the request (the "
                              "data was moved)");
  *n = moved;
  if (MPI_Grequest_start(greq_query, greq_free, greq_cancel, n, request) != MPI_SUCCESS) {
    free(n);
    return ostio__mpiio_failc(mf, call, MPI_ERR_OTHER, "MPI_Grequest_start failed (the data "
                              "was moved)");
  }
  MPI_Grequest_complete(*request);
  return MPI_SUCCESS;
}

OSTIO__MPIIO_API int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_at(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_at", 0, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_at);

OSTIO__MPIIO_API int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_at_all(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_at_all", OSTIO__OP_COLL, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_at_all);

OSTIO__MPIIO_API int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_at(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_at", OSTIO__OP_WRITE, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_at);

OSTIO__MPIIO_API int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_at_all(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_at_all", OSTIO__OP_WRITE | OSTIO__OP_COLL, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_at_all);

OSTIO__MPIIO_API int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read", OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read);

OSTIO__MPIIO_API int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_all(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_all", OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_all);

OSTIO__MPIIO_API int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write", OSTIO__OP_WRITE | OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write);

OSTIO__MPIIO_API int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_all(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_all", OSTIO__OP_WRITE | OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_all);

OSTIO__MPIIO_API int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_shared(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_shared", OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_shared);

OSTIO__MPIIO_API int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_shared(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_shared", OSTIO__OP_WRITE | OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_shared);

OSTIO__MPIIO_API int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_ordered(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_ordered", OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_ordered);

OSTIO__MPIIO_API int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_ordered(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_ordered", OSTIO__OP_WRITE | OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_ordered);

OSTIO__MPIIO_API int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_at_all_begin(fh, offset, buf, count, datatype);
  return split_begin(mf, "MPI_File_read_at_all_begin", OSTIO__OP_COLL, offset, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(read_at_all_begin);

OSTIO__MPIIO_API int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_at_all_end(fh, buf, status);
  return split_end(mf, "MPI_File_read_at_all_end", status);
}
OSTIO__MPIIO_PMPI(read_at_all_end);

OSTIO__MPIIO_API int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_at_all_begin(fh, offset, buf, count, datatype);
  return split_begin(mf, "MPI_File_write_at_all_begin", OSTIO__OP_WRITE | OSTIO__OP_COLL, offset, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(write_at_all_begin);

OSTIO__MPIIO_API int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_at_all_end(fh, buf, status);
  return split_end(mf, "MPI_File_write_at_all_end", status);
}
OSTIO__MPIIO_PMPI(write_at_all_end);

OSTIO__MPIIO_API int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_all_begin(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_read_all_begin", OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(read_all_begin);

OSTIO__MPIIO_API int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_all_end(fh, buf, status);
  return split_end(mf, "MPI_File_read_all_end", status);
}
OSTIO__MPIIO_PMPI(read_all_end);

OSTIO__MPIIO_API int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_all_begin(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_write_all_begin", OSTIO__OP_WRITE | OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(write_all_begin);

OSTIO__MPIIO_API int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_all_end(fh, buf, status);
  return split_end(mf, "MPI_File_write_all_end", status);
}
OSTIO__MPIIO_PMPI(write_all_end);

OSTIO__MPIIO_API int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_ordered_begin(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_read_ordered_begin", OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(read_ordered_begin);

OSTIO__MPIIO_API int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_ordered_end(fh, buf, status);
  return split_end(mf, "MPI_File_read_ordered_end", status);
}
OSTIO__MPIIO_PMPI(read_ordered_end);

OSTIO__MPIIO_API int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_ordered_begin(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_write_ordered_begin", OSTIO__OP_WRITE | OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(write_ordered_begin);

OSTIO__MPIIO_API int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_ordered_end(fh, buf, status);
  return split_end(mf, "MPI_File_write_ordered_end", status);
}
OSTIO__MPIIO_PMPI(write_ordered_end);

OSTIO__MPIIO_API int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_at(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_at", 0, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_at);

OSTIO__MPIIO_API int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_at(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_at", OSTIO__OP_WRITE, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_at);

OSTIO__MPIIO_API int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_at_all(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_at_all", OSTIO__OP_COLL, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_at_all);

OSTIO__MPIIO_API int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_at_all(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_at_all", OSTIO__OP_WRITE | OSTIO__OP_COLL, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_at_all);

OSTIO__MPIIO_API int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iread", OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread);

OSTIO__MPIIO_API int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite", OSTIO__OP_WRITE | OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite);

OSTIO__MPIIO_API int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_all(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_all", OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_all);

OSTIO__MPIIO_API int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_all(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_all", OSTIO__OP_WRITE | OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_all);

OSTIO__MPIIO_API int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_shared(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_shared", OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_shared);

OSTIO__MPIIO_API int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_shared(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_shared", OSTIO__OP_WRITE | OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_shared);

#if MPI_VERSION >= 4
/* MPI-4 large-count forms. */
OSTIO__MPIIO_API int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_at_c(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_at_c", 0, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_at_c);

OSTIO__MPIIO_API int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_at_all_c(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_at_all_c", OSTIO__OP_COLL, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_at_all_c);

OSTIO__MPIIO_API int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_at_c(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_at_c", OSTIO__OP_WRITE, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_at_c);

OSTIO__MPIIO_API int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_at_all_c(fh, offset, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_at_all_c", OSTIO__OP_WRITE | OSTIO__OP_COLL, offset, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_at_all_c);

OSTIO__MPIIO_API int MPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_c", OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_c);

OSTIO__MPIIO_API int MPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_all_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_all_c", OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_all_c);

OSTIO__MPIIO_API int MPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_c", OSTIO__OP_WRITE | OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_c);

OSTIO__MPIIO_API int MPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_all_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_all_c", OSTIO__OP_WRITE | OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_all_c);

OSTIO__MPIIO_API int MPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_shared_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_shared_c", OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_shared_c);

OSTIO__MPIIO_API int MPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_shared_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_shared_c", OSTIO__OP_WRITE | OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_shared_c);

OSTIO__MPIIO_API int MPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_ordered_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_read_ordered_c", OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(read_ordered_c);

OSTIO__MPIIO_API int MPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_ordered_c(fh, buf, count, datatype, status);
  return ostio__mpiio_rw(mf, "MPI_File_write_ordered_c", OSTIO__OP_WRITE | OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype, status, NULL);
}
OSTIO__MPIIO_PMPI(write_ordered_c);

OSTIO__MPIIO_API int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_at_all_begin_c(fh, offset, buf, count, datatype);
  return split_begin(mf, "MPI_File_read_at_all_begin_c", OSTIO__OP_COLL, offset, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(read_at_all_begin_c);

OSTIO__MPIIO_API int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_at_all_begin_c(fh, offset, buf, count, datatype);
  return split_begin(mf, "MPI_File_write_at_all_begin_c", OSTIO__OP_WRITE | OSTIO__OP_COLL, offset, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(write_at_all_begin_c);

OSTIO__MPIIO_API int MPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_all_begin_c(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_read_all_begin_c", OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(read_all_begin_c);

OSTIO__MPIIO_API int MPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_all_begin_c(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_write_all_begin_c", OSTIO__OP_WRITE | OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(write_all_begin_c);

OSTIO__MPIIO_API int MPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.read_ordered_begin_c(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_read_ordered_begin_c", OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(read_ordered_begin_c);

OSTIO__MPIIO_API int MPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.write_ordered_begin_c(fh, buf, count, datatype);
  return split_begin(mf, "MPI_File_write_ordered_begin_c", OSTIO__OP_WRITE | OSTIO__AT_ORDERED, 0, (void *)buf, count, datatype);
}
OSTIO__MPIIO_PMPI(write_ordered_begin_c);

OSTIO__MPIIO_API int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_at_c(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_at_c", 0, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_at_c);

OSTIO__MPIIO_API int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_at_c(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_at_c", OSTIO__OP_WRITE, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_at_c);

OSTIO__MPIIO_API int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_at_all_c(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_at_all_c", OSTIO__OP_COLL, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_at_all_c);

OSTIO__MPIIO_API int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_at_all_c(fh, offset, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_at_all_c", OSTIO__OP_WRITE | OSTIO__OP_COLL, offset, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_at_all_c);

OSTIO__MPIIO_API int MPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_c(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_c", OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_c);

OSTIO__MPIIO_API int MPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_c(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_c", OSTIO__OP_WRITE | OSTIO__AT_INDIV, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_c);

OSTIO__MPIIO_API int MPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_all_c(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_all_c", OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_all_c);

OSTIO__MPIIO_API int MPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_all_c(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_all_c", OSTIO__OP_WRITE | OSTIO__AT_INDIV | OSTIO__OP_COLL, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_all_c);

OSTIO__MPIIO_API int MPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iread_shared_c(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iread_shared_c", OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iread_shared_c);

OSTIO__MPIIO_API int MPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.iwrite_shared_c(fh, buf, count, datatype, request);
  return start(mf, "MPI_File_iwrite_shared_c", OSTIO__OP_WRITE | OSTIO__AT_SHARED, 0, (void *)buf, count, datatype, request);
}
OSTIO__MPIIO_PMPI(iwrite_shared_c);
#endif
