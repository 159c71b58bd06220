/* File-level MPI_File_* calls of the interposer (mfile.h): open, close,
 * delete, sizes, sync, info, amode, group, atomicity, error handlers. A
 * handle that is not ours goes to the next PMPI_File_* unchanged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpiio/mfile.h"

#include "container/container.h"
#include "core/access.h"
#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"
#include "file/kind.h"

#define MF(h) ((ostio__mfile *)(void *)(h))

/* ROMIO accepts "ufs:/path" (a file-system prefix of two or more letters). */
static const char *strip_prefix(const char *name)
{
  const char *c = strchr(name, ':'), *s = strchr(name, '/');
  if (c && c - name >= 2 && (!s || c < s)) return c + 1;
  return name;
}

/* path made absolute against the working directory (no symlinks resolved),
 * for the prefix match only. */
static int selected_path(const char *path)
{
  const char *paths = getenv("OSTIO_MPIIO_PATHS");
  if (!paths || !*paths) return 0;
  if (path[0] == '/') return ostio__mpiio_path_selected(path, paths);
  char cwd[4096], abs[8192];
  if (!getcwd(cwd, sizeof cwd)) return 0;
  snprintf(abs, sizeof abs, "%s/%s", cwd, path);
  return ostio__mpiio_path_selected(abs, paths);
}

/* 1: the file is ostio's by the hint or OSTIO_MPIIO_PATHS; 0: not; the hint
 * ostio_mpiio=disable also says no to an existing container (*veto). */
static int take(const char *path, MPI_Info info, int *veto)
{
  int hint = ostio__mpiio_hint(info);
  *veto = hint == 0;
  if (hint == 1) return 1;
  if (hint == 0) return 0;
  return selected_path(path);
}
void ostio__mpiio_destroy(ostio__mfile *mf)
{
  if (!mf) return;
  ostio__mpiio_shared_close(mf);
  if (mf->fh) ostio_close(&mf->fh);
  if (mf->comm != MPI_COMM_NULL) MPI_Comm_free(&mf->comm);
  if (mf->info != MPI_INFO_NULL) MPI_Info_free(&mf->info);
  ostio__mpiio_drop_type(&mf->etype);
  ostio__mpiio_drop_type(&mf->ftype);
  ostio__dtype_map_release(mf->ftmap);
  free(mf->path);
  mf->magic = 0;
  free(mf);
}

static int open_ours(MPI_Comm comm, const char *path, int amode, MPI_Info info,
                     ostio__mfile **out, int *amode_bad)
{
  ostio__mfile *mf = calloc(1, sizeof *mf);
  int rc = mf ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory");
  if (mf) {
    mf->magic = OSTIO__MFILE_MAGIC;
    mf->comm = MPI_COMM_NULL;
    mf->info = MPI_INFO_NULL;
    mf->win = MPI_WIN_NULL;
    mf->etype = mf->ftype = MPI_BYTE;
    mf->errh = MPI_ERRORS_RETURN;
    mf->amode = amode;
    ostio__view_default(&mf->view);
    if (!(mf->path = strdup(path))) rc = ostio__fail(OSTIO_ENOMEM, "out of memory");
  }
  if (rc == 0 && (rc = ostio__check_amode(amode)) == OSTIO_EINVAL) *amode_bad = 1;
  if ((rc = ostio__agree(comm, rc)) < 0) {
    /* Every rank reports the class of the rank whose amode was wrong. */
    MPI_Allreduce(MPI_IN_PLACE, amode_bad, 1, MPI_INT, MPI_MAX, comm);
    goto fail;
  }
  if (MPI_Comm_dup(comm, &mf->comm) != MPI_SUCCESS) {
    rc = ostio__agree(comm, ostio__fail(OSTIO_EMPI, "MPI_Comm_dup failed"));
    goto fail;
  }
  MPI_Comm_rank(mf->comm, &mf->rank);
  MPI_Comm_size(mf->comm, &mf->nprocs);
  if ((rc = ostio_open(mf->comm, path, amode, info, &mf->fh)) < 0) goto fail;
  mf->atomic_ok = mf->fh->kind->coherent;
  if ((rc = ostio__mpiio_shared_open(mf)) < 0) goto fail;
  if (info != MPI_INFO_NULL) rc = MPI_Info_dup(info, &mf->info) == MPI_SUCCESS ? 0 : OSTIO_EMPI;
  else rc = MPI_Info_create(&mf->info) == MPI_SUCCESS ? 0 : OSTIO_EMPI;
  if (rc == 0 && (amode & MPI_MODE_APPEND)) {
    int64_t size = 0;
    rc = ostio_get_size(mf->fh, &size);
    mf->fp = size;
    if (rc == 0 && mf->rank == 0) rc = ostio__mpiio_shared_set(mf, size);
  }
  if (rc == 0) rc = ostio__mpiio_register(mf);
  if ((rc = ostio__agree(mf->comm, rc)) < 0) {
    ostio__mpiio_unregister(mf);
    goto fail;
  }
  /* The default file error handler at open time becomes the file's. */
  MPI_Errhandler eh = MPI_ERRORS_RETURN;
  if (ostio__mpiio_next.get_errhandler(MPI_FILE_NULL, &eh) == MPI_SUCCESS) {
    mf->errh = eh;
    mf->errh_fn = ostio__mpiio_errhandler_fn(eh);
  }
  *out = mf;
  return 0;
fail:
  ostio__mpiio_destroy(mf);
  return rc;
}

static int rank0(MPI_Comm comm)
{
  int r = -1;
  return MPI_Comm_rank(comm, &r) == MPI_SUCCESS && r == 0;
}

OSTIO__MPIIO_API int MPI_File_open(MPI_Comm comm, const char *filename, int amode,
                                   MPI_Info info, MPI_File *fh)
{
  if (!filename) return ostio__mpiio_next.open(comm, filename, amode, info, fh);
  const char *path = strip_prefix(filename);
  /* Every rank must take the same decision, or some would wait in ROMIO's
   * open for ranks that went to ostio's. An existing container is ostio's
   * wherever it is (the MPI library would see a directory): rank 0 looks,
   * once for the job. */
  int veto = 0, mine = take(path, info, &veto);
  ostio__mpiio_posix_enter();
  int v[3] = {mine, -mine, !mine && !veto && rank0(comm) && ostio__ctr_is_container(path) == 1};
  ostio__mpiio_posix_leave();
  int r[3];
  if (MPI_Allreduce(v, r, 3, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return ostio__mpiio_next.open(comm, filename, amode, info, fh);
  if (r[0] != -r[1])
    return ostio__mpiio_failc(NULL, "MPI_File_open", MPI_ERR_ARG, "%s: the ranks disagree on "
                              "whether ostio serves the file (OSTIO_MPIIO_PATHS or the hint "
                              "ostio_mpiio differ between ranks); give every rank the same",
                              filename);
  if (!mine && !r[2]) return ostio__mpiio_next.open(comm, filename, amode, info, fh);
  if (ostio__mpiio_hint(info) == -2)
    return ostio__mpiio_failc(NULL, "MPI_File_open", MPI_ERR_INFO_VALUE,
                              "hint ostio_mpiio: accepted values are enable and disable");
  ostio__mfile *mf = NULL;
  int amode_bad = 0;
  /* The program's hints over the hints file's; bad values dropped (mpiio_hints.c). */
  MPI_Info used = MPI_INFO_NULL;
  ostio__mpiio_posix_enter();
  int rc = ostio__agree(comm, ostio__mpiio_open_info(comm, path, info, &used));
  if (rc == 0) rc = open_ours(comm, path, amode, used, &mf, &amode_bad);
  ostio__mpiio_posix_leave();
  if (used != MPI_INFO_NULL) MPI_Info_free(&used);
  if (rc < 0) {
    *fh = MPI_FILE_NULL;
    /* Every rank checked the same amode (ostio_open agrees that it is). */
    int cls = amode_bad ? MPI_ERR_AMODE : ostio__mpiio_class_of(rc);
    return ostio__mpiio_failc(NULL, "MPI_File_open", cls, "%s", ostio_last_error());
  }
  ostio__mpiio_finalize_arm();
  *fh = (MPI_File)(void *)mf;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(open);

/* Also run by MPI_Finalize for files left open (mpiio_finalize.c): the same
 * steps in the same order, so a rank in MPI_File_close meets a peer that
 * closes the file inside MPI_Finalize. */
int ostio__mpiio_close(ostio__mfile *mf)
{
  ostio__mpiio_unregister(mf);
  int rc = mf->split_active
               ? ostio__fail(OSTIO_EINVAL, "a split collective is still in progress on %s",
                             mf->path)
               : 0;
  rc = ostio__agree(mf->comm, rc);
  ostio__mpiio_shared_close(mf);
  ostio__mpiio_posix_enter();
  int rc2 = ostio_close(&mf->fh);
  ostio__mpiio_posix_leave();
  return rc < 0 ? rc : rc2;
}

OSTIO__MPIIO_API int MPI_File_close(MPI_File *fh)
{
  ostio__mfile *mf = fh ? ostio__mpiio_lookup(*fh) : NULL;
  if (!mf) return ostio__mpiio_next.close(fh);
  int rc = ostio__mpiio_close(mf);
  int code = MPI_SUCCESS;
  if (rc < 0) code = ostio__mpiio_fail(mf, "MPI_File_close", rc);
  ostio__mpiio_destroy(mf);
  *fh = MPI_FILE_NULL;
  return code;
}
OSTIO__MPIIO_PMPI(close);

OSTIO__MPIIO_API int MPI_File_delete(const char *filename, MPI_Info info)
{
  if (!filename) return ostio__mpiio_next.delete(filename, info);
  const char *path = strip_prefix(filename);
  int veto = 0, rc = 0;
  ostio__mpiio_posix_enter();
  int ctr = ostio__ctr_is_container(path) == 1, ours = take(path, info, &veto) || (!veto && ctr);
  if (ours && ctr) rc = ostio__ctr_remove(path);
  else if (ours && unlink(path) != 0)
    rc = ostio__fail(ostio__from_errno(errno), "%s: cannot delete: %s", path, strerror(errno));
  ostio__mpiio_posix_leave();
  if (!ours) return ostio__mpiio_next.delete(filename, info);
  return rc < 0 ? ostio__mpiio_fail(NULL, "MPI_File_delete", rc) : MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(delete);

OSTIO__MPIIO_API int MPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_size(fh, size);
  int64_t s = 0;
  ostio__mpiio_posix_enter();
  int rc = ostio_get_size(mf->fh, &s);
  ostio__mpiio_posix_leave();
  if (rc < 0) return ostio__mpiio_fail(mf, "MPI_File_get_size", rc);
  *size = (MPI_Offset)s;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_size);

OSTIO__MPIIO_API int MPI_File_set_size(MPI_File fh, MPI_Offset size)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.set_size(fh, size);
  mf->size_floor = 0;
  ostio__mpiio_posix_enter();
  int rc = ostio_set_size(mf->fh, (int64_t)size);
  ostio__mpiio_posix_leave();
  return rc < 0 ? ostio__mpiio_fail(mf, "MPI_File_set_size", rc) : MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(set_size);

OSTIO__MPIIO_API int MPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.preallocate(fh, size);
  int64_t cur = 0, want = (int64_t)size;
  int rc = want < 0 ? ostio__fail(OSTIO_EINVAL, "size %lld is negative", (long long)want) : 0;
  /* Rank 0's view of the size decides for everyone: set_size is collective. */
  mf->size_floor = 0;
  ostio__mpiio_posix_enter();
  if (rc == 0 && mf->rank == 0) rc = ostio_get_size(mf->fh, &cur);
  MPI_Bcast(&cur, 1, MPI_INT64_T, 0, mf->comm);
  if ((rc = ostio__agree(mf->comm, rc)) == 0 && cur < want) rc = ostio_set_size(mf->fh, want);
  ostio__mpiio_posix_leave();
  return rc < 0 ? ostio__mpiio_fail(mf, "MPI_File_preallocate", rc) : MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(preallocate);

OSTIO__MPIIO_API int MPI_File_sync(MPI_File fh)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.sync(fh);
  mf->size_floor = 0; /* other processes' changes are visible after a sync */
  ostio__mpiio_posix_enter();
  int rc = ostio_sync(mf->fh);
  ostio__mpiio_posix_leave();
  return rc < 0 ? ostio__mpiio_fail(mf, "MPI_File_sync", rc) : MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(sync);

OSTIO__MPIIO_API int MPI_File_get_amode(MPI_File fh, int *amode)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_amode(fh, amode);
  *amode = mf->amode;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_amode);

OSTIO__MPIIO_API int MPI_File_get_group(MPI_File fh, MPI_Group *group)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_group(fh, group);
  return MPI_Comm_group(mf->comm, group);
}
OSTIO__MPIIO_PMPI(get_group);

/* Every key of src set in dst (src may be MPI_INFO_NULL). */
static void copy_keys(MPI_Info dst, MPI_Info src)
{
  int nkeys = 0;
  if (src == MPI_INFO_NULL || MPI_Info_get_nkeys(src, &nkeys) != MPI_SUCCESS) return;
  for (int i = 0; i < nkeys; i++) {
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (MPI_Info_get_nthkey(src, i, key) != MPI_SUCCESS) continue;
    if (MPI_Info_get(src, key, MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag)
      MPI_Info_set(dst, key, val);
  }
}

OSTIO__MPIIO_API int MPI_File_set_info(MPI_File fh, MPI_Info info)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.set_info(fh, info);
  /* Kept for get_info; ostio reads its hints at open (docs/mpiio.md). Bad
   * values are dropped with a warning, as at open. */
  MPI_Info tmp = MPI_INFO_NULL;
  if (info != MPI_INFO_NULL && MPI_Info_dup(info, &tmp) == MPI_SUCCESS) {
    ostio__mpiio_clean_info("MPI_File_set_info", mf->path, tmp, MPI_INFO_NULL, "", mf->rank == 0);
    copy_keys(mf->info, tmp);
    MPI_Info_free(&tmp);
  }
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(set_info);

OSTIO__MPIIO_API int MPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_info(fh, info_used);
  MPI_Info out = MPI_INFO_NULL, eff = MPI_INFO_NULL;
  if (MPI_Info_dup(mf->info, &out) != MPI_SUCCESS)
    return ostio__mpiio_failc(mf, "MPI_File_get_info", MPI_ERR_OTHER, "MPI_Info_dup failed");
  /* The effective hints: ostio's resolution of the keys it knows. */
  if (ostio_hints_effective(mf->path, mf->info, &eff) == 0) {
    copy_keys(out, eff);
    MPI_Info_free(&eff);
  }
  MPI_Info_set(out, "ostio_mpiio", "enable");
  MPI_Info_set(out, "ostio_container", mf->fh->kind->name);
  *info_used = out;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_info);

OSTIO__MPIIO_API int MPI_File_set_atomicity(MPI_File fh, int flag)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.set_atomicity(fh, flag);
  int f = !!flag, v[2] = {f, -f}, r[2];
  int rc = 0;
  if (MPI_Allreduce(v, r, 2, MPI_INT, MPI_MIN, mf->comm) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "MPI_Allreduce failed");
  else if (r[0] != -r[1])
    rc = ostio__fail(OSTIO_EINVAL, "the ranks passed different flags; MPI_File_set_atomicity "
                     "is collective with one flag");
  else if (f && !mf->atomic_ok)
    rc = ostio__fail(OSTIO_ENOTSUP, "%s is a %s container: its writes reach other processes "
                     "at sync, so atomic mode is refused (kinds whose writes are seen at "
                     "once honour it: plain files, striped containers)", mf->path, mf->fh->kind->name);
  if (rc < 0) return ostio__mpiio_fail(mf, "MPI_File_set_atomicity", rc);
  mf->atomic = f;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(set_atomicity);

OSTIO__MPIIO_API int MPI_File_get_atomicity(MPI_File fh, int *flag)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_atomicity(fh, flag);
  *flag = mf->atomic;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_atomicity);

OSTIO__MPIIO_API int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype,
                                              MPI_Aint *extent)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_type_extent(fh, datatype, extent);
  MPI_Aint lb = 0; /* native representation: the memory extent */
  return MPI_Type_get_extent(datatype, &lb, extent);
}
OSTIO__MPIIO_PMPI(get_type_extent);

#if MPI_VERSION >= 4
OSTIO__MPIIO_API int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype,
                                                MPI_Count *extent)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_type_extent_c(fh, datatype, extent);
  MPI_Count lb = 0; /* native representation: the memory extent */
  return MPI_Type_get_extent_c(datatype, &lb, extent);
}
OSTIO__MPIIO_PMPI(get_type_extent_c);
#endif

OSTIO__MPIIO_API int MPI_File_create_errhandler(MPI_File_errhandler_function *fn,
                                                MPI_Errhandler *eh)
{
  int rc = ostio__mpiio_next.create_errhandler(fn, eh);
  if (rc == MPI_SUCCESS) ostio__mpiio_note_errhandler(*eh, fn);
  return rc;
}
OSTIO__MPIIO_PMPI(create_errhandler);

OSTIO__MPIIO_API int MPI_File_set_errhandler(MPI_File fh, MPI_Errhandler eh)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.set_errhandler(fh, eh);
  mf->errh = eh;
  mf->errh_fn = ostio__mpiio_errhandler_fn(eh);
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(set_errhandler);

OSTIO__MPIIO_API int MPI_File_get_errhandler(MPI_File fh, MPI_Errhandler *eh)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.get_errhandler(fh, eh);
  *eh = mf->errh;
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(get_errhandler);

OSTIO__MPIIO_API int MPI_File_call_errhandler(MPI_File fh, int errorcode)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.call_errhandler(fh, errorcode);
  ostio__mpiio_raise(mf, errorcode);
  return MPI_SUCCESS;
}
OSTIO__MPIIO_PMPI(call_errhandler);
