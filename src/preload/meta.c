/* Metadata: the stat family (glibc 2.33+ names, the old __xstat family,
 * statx), fstatfs, unlink, rmdir, rename, truncate, chmod and utimensat on
 * containers. A container stats as a regular file: the real call runs
 * first and only a directory result under a prefix is looked at again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "preload/preload.h"

PL_DECL_REAL(fstatat);
PL_DECL_REAL(fstat);
PL_DECL_REAL(statx);
PL_DECL_REAL(fstatfs);
PL_DECL_REAL(unlink);
PL_DECL_REAL(unlinkat);
PL_DECL_REAL(rmdir);
PL_DECL_REAL(rename);
PL_DECL_REAL(renameat);
PL_DECL_REAL(renameat2);
PL_DECL_REAL(truncate);
PL_DECL_REAL(chmod);
PL_DECL_REAL(fchmodat);
PL_DECL_REAL(utimensat);

/* NULL or "" (kept out of line: libc declares some of these nonnull). */
__attribute__((noinline)) static int no_name(const char *p) { return !p || !*p; }

static int fd_stat(int fd, struct stat *st)
{
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) return PL_REAL(fstat)(fd, st);
  ostio__pl_inside++;
  int rc = ostio__pl_obj_stat(d->obj, st);
  ostio__pl_inside--;
  ostio__pl_desc_release(d);
  return rc < 0 ? ostio__pl_errno(rc) : 0;
}

/* After a real stat said "directory": a container under a prefix? */
static int is_ctr(int dirfd, const char *path, char *norm)
{
  return ostio__pl_active() && ostio__pl_classify(dirfd, path, norm) == PL_PATH_CTR;
}

/* What a path call should do: PL_PATH_CTR (norm filled), PL_PATH_BELOW
 * (answer ENOTDIR: a container is a regular file in the path), else libc. */
static int kind_of(int dirfd, const char *path, char *norm)
{
  if (!ostio__pl_active() || no_name(path)) return PL_PATH_PLAIN;
  return ostio__pl_classify(dirfd, path, norm);
}

/* kind_of for calls that act on a final symlink itself (unlink, rmdir). */
static int kind_of_link(int dirfd, const char *path, char *norm)
{
  if (!ostio__pl_active() || no_name(path)) return PL_PATH_PLAIN;
  return ostio__pl_classify_at(dirfd, path, norm, PL_NOFOLLOW);
}

/* A regular file reached through /proc/self/fd/N or /dev/std* may be a
 * container's placeholder: the container's stat, not the manifest's. */
static int fd_link(mode_t mode, const char *path, int flags)
{
  return S_ISREG(mode) && !(flags & AT_SYMLINK_NOFOLLOW) && path && ostio__pl_is_procpath(path);
}

/* A path below a container (the kernel: ENOTDIR), without a stat. */
static int below(int dirfd, const char *path)
{
  char norm[PL_PATH_MAX];
  if (!ostio__pl_active() || no_name(path)) return 0;
  int e = errno, r = ostio__pl_resolve(dirfd, path, norm) && ostio__pl_below_ctr(norm);
  errno = e;
  return r;
}

static int at_stat(int dirfd, const char *path, struct stat *st, int flags)
{
  if ((flags & AT_EMPTY_PATH) && no_name(path) && OURS(dirfd)) return fd_stat(dirfd, st);
  int rc = PL_REAL(fstatat)(dirfd, path, st, flags);
  char norm[PL_PATH_MAX];
  if (below(dirfd, path)) return ostio__pl_errno(-ENOTDIR);
  if (rc != 0 || !(S_ISDIR(st->st_mode) || fd_link(st->st_mode, path, flags)) ||
      !is_ctr(dirfd, path, norm))
    return rc;
  ostio__pl_inside++;
  int r = ostio__pl_ctr_stat(norm, st);
  ostio__pl_inside--;
  return r < 0 ? ostio__pl_errno(r) : 0;
}

PL_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
  return at_stat(dirfd, path, st, flags);
}
PL_EXPORT int stat(const char *path, struct stat *st) { return at_stat(AT_FDCWD, path, st, 0); }
PL_EXPORT int lstat(const char *path, struct stat *st)
{
  return at_stat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}
PL_EXPORT int fstat(int fd, struct stat *st)
{
  if (!OURS(fd)) return PL_REAL(fstat)(fd, st);
  return fd_stat(fd, st);
}

/* x86_64: struct stat64 is struct stat. */
_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat64 differs from stat");
PL_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
  return at_stat(dirfd, path, (struct stat *)st, flags);
}
PL_EXPORT int stat64(const char *path, struct stat64 *st)
{
  return at_stat(AT_FDCWD, path, (struct stat *)st, 0);
}
PL_EXPORT int lstat64(const char *path, struct stat64 *st)
{
  return at_stat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}
PL_EXPORT int fstat64(int fd, struct stat64 *st) { return fstat(fd, (struct stat *)st); }

/* Binaries built against glibc < 2.33 call these (version 1 on x86_64:
 * the same struct stat). */
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
PL_EXPORT int __xstat(int ver, const char *path, struct stat *st) { return stat(path, st); }
PL_EXPORT int __lxstat(int ver, const char *path, struct stat *st) { return lstat(path, st); }
PL_EXPORT int __fxstat(int ver, int fd, struct stat *st) { return fstat(fd, st); }
PL_EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
  return at_stat(dirfd, path, st, flags);
}
PL_EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
  return stat64(path, st);
}
PL_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
  return lstat64(path, st);
}
PL_EXPORT int __fxstat64(int ver, int fd, struct stat64 *st) { return fstat64(fd, st); }
PL_EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
  return fstatat64(dirfd, path, st, flags);
}

static void to_statx(const struct stat *st, unsigned mask, struct statx *x)
{
  (void)mask;
  x->stx_mask = STATX_BASIC_STATS;
  x->stx_blksize = (uint32_t)st->st_blksize;
  x->stx_nlink = (uint32_t)st->st_nlink;
  x->stx_uid = st->st_uid;
  x->stx_gid = st->st_gid;
  x->stx_mode = (uint16_t)st->st_mode;
  x->stx_ino = st->st_ino;
  x->stx_size = (uint64_t)st->st_size;
  x->stx_blocks = (uint64_t)st->st_blocks;
  x->stx_attributes_mask = 0;
  x->stx_attributes = 0;
  x->stx_atime = (struct statx_timestamp){st->st_atim.tv_sec, (uint32_t)st->st_atim.tv_nsec, 0};
  x->stx_mtime = (struct statx_timestamp){st->st_mtim.tv_sec, (uint32_t)st->st_mtim.tv_nsec, 0};
  x->stx_ctime = (struct statx_timestamp){st->st_ctim.tv_sec, (uint32_t)st->st_ctim.tv_nsec, 0};
  x->stx_dev_major = major(st->st_dev);
  x->stx_dev_minor = minor(st->st_dev);
}

PL_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *x)
{
  struct stat st;
  if ((flags & AT_EMPTY_PATH) && no_name(path) && OURS(dirfd)) {
    if (fd_stat(dirfd, &st) < 0) return -1;
    /* keep the birth time and what the real call gives besides */
    PL_REAL(statx)(dirfd, path, flags, mask, x);
    to_statx(&st, mask, x);
    return 0;
  }
  int rc = PL_REAL(statx)(dirfd, path, flags, mask, x);
  char norm[PL_PATH_MAX];
  if (below(dirfd, path)) return ostio__pl_errno(-ENOTDIR);
  if (rc != 0 || !(S_ISDIR(x->stx_mode) || fd_link(x->stx_mode, path, flags)) ||
      !is_ctr(dirfd, path, norm))
    return rc;
  ostio__pl_inside++;
  int r = ostio__pl_ctr_stat(norm, &st);
  ostio__pl_inside--;
  if (r < 0) return ostio__pl_errno(r);
  to_statx(&st, mask, x);
  return 0;
}

PL_EXPORT int fstatfs(int fd, struct statfs *sf)
{
  if (!OURS(fd)) return PL_REAL(fstatfs)(fd, sf);
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) return ostio__pl_errno(-EBADF);
  int rc = PL_REAL(fstatfs)(ostio__pl_obj_dirfd(d->obj), sf);
  ostio__pl_desc_release(d);
  return rc;
}
_Static_assert(sizeof(struct statfs) == sizeof(struct statfs64), "statfs64 differs");
PL_EXPORT int fstatfs64(int fd, struct statfs64 *sf) { return fstatfs(fd, (struct statfs *)sf); }

/* ---- names ------------------------------------------------------------------------------------ */

static int remove_ctr(const char *norm)
{
  ostio__pl_inside++;
  int rc = ostio__pl_ctr_unlink_open(norm); /* open here: hidden until the last close */
  if (rc == 0) rc = ostio__pl_ctr_remove(norm);
  else if (rc > 0) rc = 0;
  ostio__pl_inside--;
  return rc < 0 ? ostio__pl_errno(rc) : 0;
}

PL_EXPORT int unlink(const char *path)
{
  char norm[PL_PATH_MAX];
  int k = kind_of_link(AT_FDCWD, path, norm);
  if (k == PL_PATH_CTR) return remove_ctr(norm);
  if (k == PL_PATH_BELOW) return ostio__pl_errno(-ENOTDIR);
  return PL_REAL(unlink)(path);
}

PL_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
  char norm[PL_PATH_MAX];
  int k = kind_of_link(dirfd, path, norm);
  if (k == PL_PATH_CTR) {
    if (flags & AT_REMOVEDIR) return ostio__pl_errno(-ENOTDIR);
    return remove_ctr(norm);
  }
  if (k == PL_PATH_BELOW) return ostio__pl_errno(-ENOTDIR);
  return PL_REAL(unlinkat)(dirfd, path, flags);
}

PL_EXPORT int rmdir(const char *path)
{
  char norm[PL_PATH_MAX];
  int k = kind_of_link(AT_FDCWD, path, norm);
  if (k == PL_PATH_CTR || k == PL_PATH_BELOW) return ostio__pl_errno(-ENOTDIR);
  return PL_REAL(rmdir)(path);
}

/* mkdir over a container is EEXIST (the real call says so: it is a
 * directory); below one, ENOTDIR. */
PL_DECL_REAL(mkdir);
PL_DECL_REAL(mkdirat);
PL_EXPORT int mkdir(const char *path, mode_t mode)
{
  if (below(AT_FDCWD, path)) return ostio__pl_errno(-ENOTDIR);
  return PL_REAL(mkdir)(path, mode);
}

PL_EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
  if (below(dirfd, path)) return ostio__pl_errno(-ENOTDIR);
  return PL_REAL(mkdirat)(dirfd, path, mode);
}

/* access on a container answers for a regular file with the mode stat
 * shows: the directory's r and w bits, no x bit (so X_OK is EACCES even
 * for root, as for a file without any x bit). */
PL_DECL_REAL(faccessat);
PL_DECL_REAL(access);
PL_DECL_REAL(euidaccess);
PL_DECL_REAL(eaccess);
static int ctr_access(int dirfd, const char *path, int mode, int flags, int *out)
{
  char norm[PL_PATH_MAX];
  int k = kind_of(dirfd, path, norm);
  if (k == PL_PATH_BELOW) {
    *out = ostio__pl_errno(-ENOTDIR);
    return 1;
  }
  if (k != PL_PATH_CTR) return 0;
  if (mode & X_OK) {
    *out = ostio__pl_errno(-EACCES);
    return 1;
  }
  *out = PL_REAL(faccessat)(dirfd, path, mode, flags);
  return 1;
}

PL_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
  int r;
  if (ctr_access(dirfd, path, mode, flags, &r)) return r;
  return PL_REAL(faccessat)(dirfd, path, mode, flags);
}

PL_EXPORT int access(const char *path, int mode)
{
  int r;
  if (ctr_access(AT_FDCWD, path, mode, 0, &r)) return r;
  return PL_REAL(access)(path, mode);
}

PL_EXPORT int euidaccess(const char *path, int mode)
{
  int r;
  if (ctr_access(AT_FDCWD, path, mode, AT_EACCESS, &r)) return r;
  return PL_REAL(euidaccess)(path, mode);
}

PL_EXPORT int eaccess(const char *path, int mode)
{
  int r;
  if (ctr_access(AT_FDCWD, path, mode, AT_EACCESS, &r)) return r;
  return PL_REAL(eaccess)(path, mode);
}

/* rename onto an existing name: a container target is removed first (the
 * kernel would refuse to replace a directory); a container moved onto a
 * plain file replaces it. */
static int prepare_rename(int odir, const char *old, int ndir, const char *new, unsigned flags)
{
  char on[PL_PATH_MAX], nn[PL_PATH_MAX];
  if (!ostio__pl_active() || (flags & RENAME_NOREPLACE) || (flags & RENAME_EXCHANGE)) return 0;
  int okind = ostio__pl_classify_at(odir, old, on, PL_NOFOLLOW);
  int nkind = ostio__pl_classify_at(ndir, new, nn, PL_NOFOLLOW);
  if (okind == PL_PATH_BELOW || nkind == PL_PATH_BELOW) return ostio__pl_errno(-ENOTDIR);
  int ok = okind == PL_PATH_CTR, nk = nkind == PL_PATH_CTR;
  if (!ok && !nk) return 0;
  if (ok && nk && !strcmp(on, nn)) return 0;
  struct stat st;
  if (!ok && (PL_REAL(fstatat)(odir, old, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode)))
    return 0; /* the kernel's answer */
  if (nk) return remove_ctr(nn);
  if (PL_REAL(fstatat)(ndir, new, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
    return PL_REAL(unlinkat)(ndir, new, 0);
  return 0;
}

/* After a rename: an open container (old, or both with EXCHANGE) follows. */
static int renamed(int rc, int odir, const char *old, int ndir, const char *new)
{
  char norm[PL_PATH_MAX];
  if (rc < 0 || !ostio__pl_active()) return rc;
  int e = errno;
  ostio__pl_inside++;
  if (ostio__pl_resolve(ndir, new, norm)) ostio__pl_ctr_renamed(norm);
  if (ostio__pl_resolve(odir, old, norm)) ostio__pl_ctr_renamed(norm);
  ostio__pl_inside--;
  errno = e;
  return rc;
}

PL_EXPORT int rename(const char *old, const char *new)
{
  if (prepare_rename(AT_FDCWD, old, AT_FDCWD, new, 0) < 0) return -1;
  return renamed(PL_REAL(rename)(old, new), AT_FDCWD, old, AT_FDCWD, new);
}

PL_EXPORT int renameat(int odir, const char *old, int ndir, const char *new)
{
  if (prepare_rename(odir, old, ndir, new, 0) < 0) return -1;
  return renamed(PL_REAL(renameat)(odir, old, ndir, new), odir, old, ndir, new);
}

PL_EXPORT int renameat2(int odir, const char *old, int ndir, const char *new, unsigned flags)
{
  if (prepare_rename(odir, old, ndir, new, flags) < 0) return -1;
  return renamed(PL_REAL(renameat2)(odir, old, ndir, new, flags), odir, old, ndir, new);
}

PL_EXPORT int truncate(const char *path, off_t len)
{
  char norm[PL_PATH_MAX];
  int k = kind_of(AT_FDCWD, path, norm);
  if (k == PL_PATH_BELOW) return ostio__pl_errno(-ENOTDIR);
  if (k != PL_PATH_CTR) return PL_REAL(truncate)(path, len);
  int fd = ostio__pl_open_ctr(norm, 1, O_WRONLY, 0);
  if (fd < 0) return -1;
  int rc = ftruncate(fd, len), e = errno;
  ostio__pl_fd_close(fd);
  errno = e;
  return rc;
}

PL_EXPORT int truncate64(const char *path, off64_t len) { return truncate(path, len); }

/* A mode without x bits would lock the owner out of the directory. */
PL_EXPORT int chmod(const char *path, mode_t mode)
{
  char norm[PL_PATH_MAX];
  int k = kind_of(AT_FDCWD, path, norm);
  if (k == PL_PATH_BELOW) return ostio__pl_errno(-ENOTDIR);
  if (k == PL_PATH_CTR) return 0;
  return PL_REAL(chmod)(path, mode);
}

PL_EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
  char norm[PL_PATH_MAX];
  int k = kind_of(dirfd, path, norm);
  if (k == PL_PATH_BELOW) return ostio__pl_errno(-ENOTDIR);
  if (k == PL_PATH_CTR) return 0;
  return PL_REAL(fchmodat)(dirfd, path, mode, flags);
}

PL_EXPORT int utimensat(int dirfd, const char *path, const struct timespec t[2], int flags)
{
  if (no_name(path) && OURS(dirfd))
    return futimens(dirfd, t);
  if (below(dirfd, path)) return ostio__pl_errno(-ENOTDIR);
  return PL_REAL(utimensat)(dirfd, path, t, flags);
}
