/* The common path of the read / write calls and the view and pointer calls
 * (mfile.h): MPI_File_set_view / get_view, seek, get_position,
 * get_byte_offset, and their shared-pointer forms. */
#include <string.h>
#include <strings.h>

#include "mpiio/mfile.h"

#include "core/agree.h"
#include "core/error.h"

/* Etypes of count elements of dt (a whole number, or an error later). */
static int etypes_of(ostio__mfile *mf, MPI_Count count, MPI_Datatype dt, int64_t *n)
{
  MPI_Count size = 0;
  if (MPI_Type_size_x(dt, &size) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EINVAL, "the datatype is not valid");
  int64_t bytes;
  if (count < 0 || __builtin_mul_overflow((int64_t)count, (int64_t)size, &bytes))
    return ostio__fail(OSTIO_ERANGE, "count %lld of a %lld-byte datatype is out of range",
                       (long long)count, (long long)size);
  *n = bytes / mf->view.etype_size;
  return 0;
}

static int ordered_base(ostio__mfile *mf, int64_t mine, int64_t *pos)
{
  int64_t prefix = 0, total = 0, base = 0;
  int rc = 0;
  if (MPI_Exscan(&mine, &prefix, 1, MPI_INT64_T, MPI_SUM, mf->comm) != MPI_SUCCESS ||
      MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, mf->comm) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "MPI_Exscan / MPI_Allreduce failed");
  if (mf->rank == 0) prefix = 0; /* MPI_Exscan leaves rank 0's undefined */
  if (rc == 0 && mf->rank == 0) rc = ostio__mpiio_shared_fetch_add(mf, total, &base);
  if (MPI_Bcast(&base, 1, MPI_INT64_T, 0, mf->comm) != MPI_SUCCESS && rc == 0)
    rc = ostio__fail(OSTIO_EMPI, "MPI_Bcast failed");
  *pos = base + prefix;
  return rc;
}

int ostio__mpiio_rw(ostio__mfile *mf, const char *call, int flags, MPI_Offset offset,
                    void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *st,
                    int64_t *nbytes)
{
  ostio__mpiio_op op = {.is_write = !!(flags & OSTIO__OP_WRITE),
                        .coll = !!(flags & (OSTIO__OP_COLL | OSTIO__AT_ORDERED)), .call = call};
  int64_t pos = (int64_t)offset, n = 0, want = 0;
  int rc = 0;
  if (flags & OSTIO__AT_INDIV) pos = mf->fp;
  if (flags & OSTIO__AT_SHARED) {
    rc = etypes_of(mf, count, dt, &want);
    if (rc == 0) rc = ostio__mpiio_shared_fetch_add(mf, want, &pos);
  }
  if (flags & OSTIO__AT_ORDERED) {
    rc = etypes_of(mf, count, dt, &want);
    int rc2 = ordered_base(mf, rc == 0 ? want : 0, &pos);
    if (rc == 0) rc = rc2;
  }
  if (rc < 0) {
    /* A collective call still joins the agreement its peers wait in. */
    if (op.coll) rc = ostio__agree(mf->comm, rc);
    return ostio__mpiio_fail(mf, call, rc);
  }
  ostio__mpiio_posix_enter();
  rc = ostio__mpiio_access(mf, &op, pos, buf, count, dt, &n);
  ostio__mpiio_posix_leave();
  /* A write on a read-only open: MPI_ERR_READ_ONLY, as ROMIO and OMPIO say. */
  if (rc == OSTIO_EACCES && op.is_write &&
      (mf->amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR)) == MPI_MODE_RDONLY)
    return ostio__mpiio_failc(mf, call, MPI_ERR_READ_ONLY, "%s", ostio_last_error());
  if (rc < 0) return ostio__mpiio_fail(mf, call, rc);
  if (flags & OSTIO__AT_INDIV) mf->fp = pos + n / mf->view.etype_size;
  ostio__mpiio_set_status(st, n);
  if (nbytes) *nbytes = n;
  return MPI_SUCCESS;
}

static int is_named(MPI_Datatype t)
{
  return ostio__dtype_large_kind(t) == 0; /* large-count types too (MPI-4) */
}

/* A copy the file keeps (named types are their own copy). */
static int keep_type(MPI_Datatype t, MPI_Datatype *out)
{
  if (is_named(t)) {
    *out = t;
    return 0;
  }
  return MPI_Type_dup(t, out) == MPI_SUCCESS ? 0 : OSTIO_EMPI;
}

void ostio__mpiio_drop_type(MPI_Datatype *t)
{
  if (*t != MPI_DATATYPE_NULL && !is_named(*t)) MPI_Type_free(t);
  *t = MPI_DATATYPE_NULL;
}

OSTIO__MPIIO_API int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                       MPI_Datatype filetype, const char *datarep,
                                       MPI_Info info)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.set_view(fh, disp, etype, filetype, datarep, info);
  ostio__dtype_map *em = NULL, *fm = NULL;
  MPI_Datatype ek = MPI_DATATYPE_NULL, fk = MPI_DATATYPE_NULL;
  int cls = 0, rc = 0;
  if (!datarep || strcasecmp(datarep, "native") != 0) {
    cls = MPI_ERR_UNSUPPORTED_DATAREP;
    rc = ostio__fail(OSTIO_ENOTSUP, "data representation \"%s\": ostio serves \"native\" only",
                     datarep ? datarep : "(null)");
  }
  if (rc == 0 && disp == MPI_DISPLACEMENT_CURRENT)
    rc = ostio__fail(OSTIO_EINVAL, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL, "
                     "which ostio does not serve");
  if (rc == 0) rc = ostio__dtype_flatten(etype, &em);
  if (rc == 0) rc = ostio__dtype_flatten(filetype, &fm);
  ostio__view v = {.disp = (int64_t)disp, .etype_size = em ? em->size : 0, .ftype = fm};
  if (rc == 0) rc = ostio__view_check(&v);
  if (rc == 0) rc = keep_type(etype, &ek);
  if (rc == 0) rc = keep_type(filetype, &fk);
  /* Collective and all or nothing: the ranks agree on their checks first;
   * only then does rank 0 reset the shared pointer (MPI: set_view resets
   * both pointers), and a second agreement on that makes every rank install
   * the new view or every rank keep its old one, pointers unchanged. Rank 0
   * resets before the second agreement, so no rank can use the old value. */
  int arc = ostio__agree(mf->comm, rc);
  if (arc == 0) {
    if (mf->rank == 0) rc = ostio__mpiio_shared_set(mf, 0);
    arc = ostio__agree(mf->comm, rc);
  }
  if (arc < 0) {
    ostio__mpiio_drop_type(&ek);
    ostio__mpiio_drop_type(&fk);
    ostio__dtype_map_release(em);
    ostio__dtype_map_release(fm);
    if (cls && rc < 0) return ostio__mpiio_failc(mf, "MPI_File_set_view", cls, "%s",
                                                  ostio_last_error());
    return ostio__mpiio_fail(mf, "MPI_File_set_view", arc);
  }
  ostio__dtype_map_release(em);
  ostio__dtype_map_release(mf->ftmap);
  ostio__mpiio_drop_type(&mf->etype);
  ostio__mpiio_drop_type(&mf->ftype);
  mf->ftmap = fm;
  mf->view = v;
  mf->etype = ek;
  mf->ftype = fk;
  mf->fp = 0;
  if (info != MPI_INFO_NULL) MPI_File_set_info(fh, info);
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(set_view);

OSTIO__MPIIO_API int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                                       MPI_Datatype *filetype, char *datarep)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_view(fh, disp, etype, filetype, datarep);
  *disp = (MPI_Offset)mf->view.disp;
  if (keep_type(mf->etype, etype) < 0 || keep_type(mf->ftype, filetype) < 0)
    return ostio__mpiio_failc(mf, "MPI_File_get_view", MPI_ERR_OTHER, "MPI_Type_dup failed");
  strcpy(datarep, "native");
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_view);

/* The position (etypes) whence + offset names; END counts the view's data
 * before the end of the file, a partial etype as a whole one. */
static int seek_target(ostio__mfile *mf, int64_t cur, MPI_Offset offset, int whence,
                       int64_t *out)
{
  int64_t base = 0;
  if (whence == MPI_SEEK_SET) base = 0;
  else if (whence == MPI_SEEK_CUR) base = cur;
  else if (whence == MPI_SEEK_END) {
    int64_t size = 0, bytes = 0;
    ostio__mpiio_posix_enter();
    int rc = ostio_get_size(mf->fh, &size);
    ostio__mpiio_posix_leave();
    if (rc == 0) rc = ostio__view_data_before(&mf->view, size, &bytes);
    if (rc < 0) return rc;
    base = bytes / mf->view.etype_size + (bytes % mf->view.etype_size != 0);
  } else {
    return ostio__fail(OSTIO_EINVAL, "whence %d: accepted are MPI_SEEK_SET, MPI_SEEK_CUR, "
                       "MPI_SEEK_END", whence);
  }
  if (__builtin_add_overflow(base, (int64_t)offset, out) || *out < 0)
    return ostio__fail(OSTIO_EINVAL, "seek to %lld%+lld etypes: the position would be "
                       "negative or overflow", (long long)base, (long long)offset);
  return 0;
}

OSTIO__MPIIO_API int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.seek(fh, offset, whence);
  int64_t to = 0;
  int rc = seek_target(mf, mf->fp, offset, whence, &to);
  if (rc < 0) return ostio__mpiio_fail(mf, "MPI_File_seek", rc);
  mf->fp = to;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(seek);

OSTIO__MPIIO_API int MPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_position(fh, offset);
  *offset = (MPI_Offset)mf->fp;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_position);

OSTIO__MPIIO_API int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_byte_offset(fh, offset, disp);
  int64_t off = 0;
  int rc = ostio__view_byte_offset(&mf->view, (int64_t)offset, &off);
  if (rc < 0) return ostio__mpiio_fail(mf, "MPI_File_get_byte_offset", rc);
  *disp = (MPI_Offset)off;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_byte_offset);

OSTIO__MPIIO_API int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.seek_shared(fh, offset, whence);
  /* Collective: every rank passes the same arguments; rank 0 moves the
   * pointer before the agreement, so it is moved when any rank returns. */
  int64_t v[4] = {(int64_t)offset, whence, -(int64_t)offset, -whence}, r[4];
  int rc = 0;
  if (MPI_Allreduce(v, r, 4, MPI_INT64_T, MPI_MIN, mf->comm) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "MPI_Allreduce failed");
  else if (r[0] != -r[2] || r[1] != -r[3])
    rc = ostio__fail(OSTIO_EINVAL, "MPI_File_seek_shared is collective: the ranks passed "
                     "different offsets or whence values");
  if (rc == 0 && mf->rank == 0) {
    int64_t cur = 0, to = 0;
    rc = ostio__mpiio_shared_fetch_add(mf, 0, &cur);
    if (rc == 0) rc = seek_target(mf, cur, offset, whence, &to);
    if (rc == 0) rc = ostio__mpiio_shared_set(mf, to);
  }
  rc = ostio__agree(mf->comm, rc);
  return rc < 0 ? ostio__mpiio_fail(mf, "MPI_File_seek_shared", rc) : MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(seek_shared);

OSTIO__MPIIO_API int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_position_shared(fh, offset);
  int64_t cur = 0;
  int rc = ostio__mpiio_shared_fetch_add(mf, 0, &cur);
  if (rc < 0) return ostio__mpiio_fail(mf, "MPI_File_get_position_shared", rc);
  *offset = (MPI_Offset)cur;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_position_shared);
