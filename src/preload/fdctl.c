/* fcntl, the dup family, ioctl, the zero-copy calls (refused so callers fall
 * back to read/write), mmap (private read snapshots), sync, ftruncate,
 * fallocate, fadvise, fchmod/fchown/futimens on container fds. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <alloca.h>
#include <spawn.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fdio.h"
#include "preload/preload.h"

PL_DECL_REAL(fcntl);
PL_DECL_REAL(dup);
PL_DECL_REAL(dup2);
PL_DECL_REAL(dup3);
PL_DECL_REAL(ioctl);
PL_DECL_REAL(copy_file_range);
PL_DECL_REAL(sendfile);
PL_DECL_REAL(splice);
PL_DECL_REAL(mmap);
PL_DECL_REAL(fsync);
PL_DECL_REAL(fdatasync);
PL_DECL_REAL(ftruncate);
PL_DECL_REAL(fallocate);
PL_DECL_REAL(posix_fallocate);
PL_DECL_REAL(posix_fadvise);
PL_DECL_REAL(fchmod);
PL_DECL_REAL(fchown);
PL_DECL_REAL(futimens);
PL_DECL_REAL(syncfs);

/* ---- dup --------------------------------------------------------------------------------- */

/* newfd (made by the kernel from a dup of oldfd) shares oldfd's description. */
static int adopt_dup(int oldfd, int newfd)
{
  if (newfd < 0) return newfd;
  ostio__pl_desc *d = ostio__pl_fdtab_get(oldfd);
  if (!d) return newfd;
  int rc = ostio__pl_fdtab_set(newfd, d);
  ostio__pl_desc_release(d);
  if (rc < 0) {
    close(newfd);
    errno = EMFILE;
    return -1;
  }
  return newfd;
}

/* Before newfd is replaced by dup2/dup3: forget what it was. */
static void drop(int newfd)
{
  int ours;
  void *o = ostio__pl_fdtab_clear(newfd, &ours);
  if (o) {
    ostio__pl_inside++;
    ostio__pl_obj_release(o);
    ostio__pl_inside--;
  }
}

PL_EXPORT int dup(int fd)
{
  if (!OURS(fd)) return PL_REAL(dup)(fd);
  return adopt_dup(fd, PL_REAL(dup)(fd));
}

PL_EXPORT int dup2(int oldfd, int newfd)
{
  if (!OURS(oldfd) && !OURS(newfd)) return PL_REAL(dup2)(oldfd, newfd);
  if (oldfd == newfd) return PL_REAL(dup2)(oldfd, newfd);
  int fd = PL_REAL(dup2)(oldfd, newfd);
  if (fd < 0) return fd;
  drop(newfd);
  fd = adopt_dup(oldfd, fd);
  ostio__pl_std_swap(newfd);
  return fd;
}

PL_EXPORT int dup3(int oldfd, int newfd, int flags)
{
  if (!OURS(oldfd) && !OURS(newfd)) return PL_REAL(dup3)(oldfd, newfd, flags);
  int fd = PL_REAL(dup3)(oldfd, newfd, flags);
  if (fd < 0) return fd;
  drop(newfd);
  fd = adopt_dup(oldfd, fd);
  ostio__pl_std_swap(newfd);
  return fd;
}

/* ---- fcntl -------------------------------------------------------------------------------- */

static int ctr_fcntl(int fd, int cmd, void *arg)
{
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) return PL_REAL(fcntl)(fd, cmd, arg);
  int rc = 0;
  switch (cmd) {
  case F_DUPFD:
  case F_DUPFD_CLOEXEC:
    rc = adopt_dup(fd, PL_REAL(fcntl)(fd, cmd, arg));
    break;
  case F_GETFL:
    rc = d->flags | O_LARGEFILE;
    break;
  case F_SETFL: {
    int chg = O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME;
    pthread_mutex_lock(&d->mu);
    d->flags = (d->flags & ~chg) | ((int)(long)arg & chg);
    pthread_mutex_unlock(&d->mu);
    /* The placeholder carries O_APPEND through exec (adoption reads it). */
    PL_REAL(fcntl)(fd, F_SETFL, (void *)(long)((int)(long)arg & O_APPEND));
    break;
  }
  case F_GETLK:
  case F_OFD_GETLK: /* nobody holds a lock that conflicts: locks are not needed */
    if (arg) ((struct flock *)arg)->l_type = F_UNLCK;
    break;
  case F_SETLK:
  case F_SETLKW:
  case F_OFD_SETLK:
  case F_OFD_SETLKW: {
    /* Whole-container flock between processes (ranges are not kept: a
     * lock covers the container); taking one shows the writes the previous
     * holder published, releasing one publishes ours. That is what ROMIO's
     * read-modify-write under a lock (data sieving) needs. */
    const struct flock *l = arg;
    if (!l) {
      rc = ostio__pl_errno(-EFAULT);
      break;
    }
    ostio__pl_inside++;
    int r = ostio__pl_obj_lock(d->obj, l->l_type, cmd == F_SETLKW || cmd == F_OFD_SETLKW);
    ostio__pl_inside--;
    if (r < 0) rc = ostio__pl_errno(r);
    break;
  }
  default:
    rc = PL_REAL(fcntl)(fd, cmd, arg); /* F_GETFD/F_SETFD and the like: the placeholder */
  }
  ostio__pl_desc_release(d);
  return rc;
}

PL_EXPORT int fcntl(int fd, int cmd, ...)
{
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (!OURS(fd)) return PL_REAL(fcntl)(fd, cmd, arg);
  return ctr_fcntl(fd, cmd, arg);
}

PL_EXPORT int fcntl64(int fd, int cmd, ...)
{
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl(fd, cmd, arg);
}

/* ---- ioctl --------------------------------------------------------------------------------- */

PL_EXPORT int ioctl(int fd, unsigned long req, ...)
{
  va_list ap;
  va_start(ap, req);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (!OURS(fd)) return PL_REAL(ioctl)(fd, req, arg);
  if (req == FICLONE || req == FICLONERANGE || req == FS_IOC_FIEMAP) return ostio__pl_errno(-EOPNOTSUPP);
  return ostio__pl_errno(-ENOTTY); /* not a terminal, no file-system specific calls */
}

/* ---- zero-copy: served by copying through the wrappers (one buffer of at
 * most 1 MiB per call: callers loop on short counts) --------------------------- */

static ssize_t copy_through(int in, off64_t *oin, int out, off64_t *oout, size_t len)
{
  size_t n = len < (1u << 20) ? len : (1u << 20);
  char *buf = n ? malloc(n) : NULL;
  if (n && !buf) return ostio__pl_errno(-ENOMEM);
  ssize_t r = n == 0 ? 0 : oin ? pread(in, buf, n, *oin) : read(in, buf, n);
  size_t done = 0; /* through the wrappers: out may be one of ours */
  int e = r > 0 ? ostio__write_part(out, buf, (size_t)r, oout ? *oout : OSTIO__FD_CUR, &done) : 0;
  ssize_t w = (ssize_t)done;
  free(buf);
  if (r < 0) return -1;
  if (e && w == 0) {
    errno = e;
    return -1;
  }
  if (oin) *oin += w;
  else if (w < r) lseek(in, w - r, SEEK_CUR); /* give back what was not written */
  if (oout) *oout += w;
  return w;
}

PL_EXPORT ssize_t copy_file_range(int in, off64_t *oin, int out, off64_t *oout, size_t len,
                                  unsigned flags)
{
  if (!OURS(in) && !OURS(out)) return PL_REAL(copy_file_range)(in, oin, out, oout, len, flags);
  if (flags) return ostio__pl_errno(-EINVAL);
  return copy_through(in, oin, out, oout, len);
}

PL_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t count)
{
  if (!OURS(in) && !OURS(out)) return PL_REAL(sendfile)(out, in, off, count);
  return copy_through(in, off, out, NULL, count);
}

PL_EXPORT ssize_t sendfile64(int out, int in, off64_t *off, size_t count)
{
  return sendfile(out, in, off, count);
}

PL_EXPORT ssize_t splice(int in, off64_t *oin, int out, off64_t *oout, size_t len,
                         unsigned flags)
{
  if (!OURS(in) && !OURS(out)) return PL_REAL(splice)(in, oin, out, oout, len, flags);
  return ostio__pl_errno(-EINVAL);
}

/* ---- mmap ------------------------------------------------------------------------------------ */

PL_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
  if ((flags & MAP_ANONYMOUS) || !OURS(fd)) return PL_REAL(mmap)(addr, len, prot, flags, fd, off);
  if ((flags & (MAP_SHARED | MAP_SHARED_VALIDATE)) && (prot & PROT_WRITE)) {
    errno = ENODEV; /* no shared writable mappings of a container */
    return MAP_FAILED;
  }
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) {
    errno = EBADF;
    return MAP_FAILED;
  }
  int f = (flags & ~(MAP_SHARED | MAP_SHARED_VALIDATE)) | MAP_PRIVATE | MAP_ANONYMOUS;
  void *p = PL_REAL(mmap)(addr, len, PROT_READ | PROT_WRITE, f, -1, 0);
  if (p != MAP_FAILED) {
    ostio__pl_inside++;
    ssize_t n = ostio__pl_obj_pread(d->obj, p, len, off);
    ostio__pl_inside--;
    if (n < 0 || mprotect(p, len, prot) < 0) {
      munmap(p, len);
      p = MAP_FAILED;
      errno = n < 0 ? (int)-n : errno;
    }
  }
  ostio__pl_desc_release(d);
  return p;
}

PL_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
  return mmap(addr, len, prot, flags, fd, off);
}

/* ---- sync, sizes, attributes ------------------------------------------------------------------ */

/* Runs f on the object of fd; -1 with errno on failure. */
static int on_obj(int fd, int need_write, int (*f)(ostio__pl_obj *, int64_t), int64_t arg)
{
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) return ostio__pl_errno(-EBADF);
  int rc = need_write && !ostio__pl_desc_allows(d, 1) ? -EINVAL : 0;
  ostio__pl_inside++;
  if (rc == 0) rc = f(d->obj, arg);
  ostio__pl_inside--;
  ostio__pl_desc_release(d);
  return rc < 0 ? ostio__pl_errno(rc) : 0;
}

static int do_sync(ostio__pl_obj *o, int64_t unused) { return ostio__pl_obj_sync(o); }
static int do_trunc(ostio__pl_obj *o, int64_t size) { return ostio__pl_obj_truncate(o, size); }
static int do_grow(ostio__pl_obj *o, int64_t end)
{
  int64_t size;
  int rc = ostio__pl_obj_size(o, &size);
  if (rc == 0 && end > size) rc = ostio__pl_obj_truncate(o, end);
  return rc;
}

PL_EXPORT int fsync(int fd)
{
  if (!OURS(fd)) return PL_REAL(fsync)(fd);
  return on_obj(fd, 0, do_sync, 0);
}

PL_EXPORT int fdatasync(int fd)
{
  if (!OURS(fd)) return PL_REAL(fdatasync)(fd);
  return on_obj(fd, 0, do_sync, 0);
}

PL_EXPORT int syncfs(int fd)
{
  if (!OURS(fd)) return PL_REAL(syncfs)(fd);
  return on_obj(fd, 0, do_sync, 0);
}

PL_EXPORT int ftruncate(int fd, off_t len)
{
  if (!OURS(fd)) return PL_REAL(ftruncate)(fd, len);
  if (len < 0) return ostio__pl_errno(-EINVAL);
  return on_obj(fd, 1, do_trunc, len);
}

PL_EXPORT int ftruncate64(int fd, off64_t len) { return ftruncate(fd, len); }

PL_EXPORT int fallocate(int fd, int mode, off_t off, off_t len)
{
  if (!OURS(fd)) return PL_REAL(fallocate)(fd, mode, off, len);
  if (off < 0 || len <= 0) return ostio__pl_errno(-EINVAL);
  if (mode & ~FALLOC_FL_KEEP_SIZE) return ostio__pl_errno(-EOPNOTSUPP);
  if (mode & FALLOC_FL_KEEP_SIZE) return 0;
  return on_obj(fd, 1, do_grow, off + len);
}

PL_EXPORT int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
  return fallocate(fd, mode, off, len);
}

PL_EXPORT int posix_fallocate(int fd, off_t off, off_t len)
{
  if (!OURS(fd)) return PL_REAL(posix_fallocate)(fd, off, len);
  if (off < 0 || len <= 0) return EINVAL;
  return on_obj(fd, 1, do_grow, off + len) < 0 ? errno : 0;
}

PL_EXPORT int posix_fallocate64(int fd, off64_t off, off64_t len)
{
  return posix_fallocate(fd, off, len);
}

PL_EXPORT int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
  if (!OURS(fd)) return PL_REAL(posix_fadvise)(fd, off, len, advice);
  return 0; /* advice only */
}

PL_EXPORT int posix_fadvise64(int fd, off64_t off, off64_t len, int advice)
{
  return posix_fadvise(fd, off, len, advice);
}

/* Permissions and owners of a container stay those of its directory (a
 * mode without x would lock its owner out): accepted, not applied. */
PL_EXPORT int fchmod(int fd, mode_t mode)
{
  if (!OURS(fd)) return PL_REAL(fchmod)(fd, mode);
  return 0;
}

PL_EXPORT int fchown(int fd, uid_t uid, gid_t gid)
{
  if (!OURS(fd)) return PL_REAL(fchown)(fd, uid, gid);
  return 0;
}

PL_EXPORT int futimens(int fd, const struct timespec t[2])
{
  if (!OURS(fd)) return PL_REAL(futimens)(fd, t);
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) return ostio__pl_errno(-EBADF);
  ostio__pl_inside++;
  int rc = PL_REAL(futimens)(ostio__pl_obj_dirfd(d->obj), t);
  ostio__pl_inside--;
  ostio__pl_desc_release(d);
  return rc;
}

/* ---- exec, spawn ----------------------------------------------------------------------------
 * Another program sees a container fd's offset only through its
 * placeholder's kernel offset, and the writes of this process only once
 * their index records are in the logs: both are written first, by the
 * process that owns them (in a vfork child the wrappers pass through). A
 * raw clone/syscall exec or an fd passed over a socket (SCM_RIGHTS) is not
 * seen (docs/preload.md). */

static void before_exec(int spawn)
{
  /* Between vfork (or posix_spawn's clone) and exec the child runs in the
   * parent's memory, and the parent still owns the writers: nothing is
   * written or ended here (real.c, ostio__pl_owner). */
  if (!ostio__pl_enabled || ostio__pl_inside || !ostio__pl_owner()) return;
  ostio__pl_inside++;
  ostio__pl_offsets_sync();
  ostio__pl_obj_flush_all(!spawn); /* a spawner goes on writing: only exec ends writers */
  if (spawn) { /* the new program shares the kernel offsets from now on, as after fork */
    ostio__pl_fdtab_lock();
    ostio__pl_fdtab_mark_shared();
    ostio__pl_fdtab_unlock();
  }
  ostio__pl_inside--;
}

PL_DECL_REAL(execve);
PL_DECL_REAL(execv);
PL_DECL_REAL(execvp);
PL_DECL_REAL(execvpe);
PL_DECL_REAL(fexecve);
PL_DECL_REAL(execveat);
PL_DECL_REAL(posix_spawn);
PL_DECL_REAL(posix_spawnp);
PL_DECL_REAL(system);
PL_DECL_REAL(popen);

PL_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
  before_exec(0);
  return PL_REAL(execve)(path, argv, envp);
}

PL_EXPORT int execv(const char *path, char *const argv[])
{
  before_exec(0);
  return PL_REAL(execv)(path, argv);
}

PL_EXPORT int execvp(const char *file, char *const argv[])
{
  before_exec(0);
  return PL_REAL(execvp)(file, argv);
}

PL_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
  before_exec(0);
  return PL_REAL(execvpe)(file, argv, envp);
}

PL_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
  before_exec(0);
  return PL_REAL(fexecve)(fd, argv, envp);
}

PL_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                       int flags)
{
  before_exec(0);
  return PL_REAL(execveat)(dirfd, path, argv, envp, flags);
}

/* execl, execlp, execle: the argument list into an array (on the stack: an
 * exec may follow vfork), then the v forms above. */
#define ARGV_OF(arg, argv, ap)                                                         \
  size_t n_ = 1;                                                                       \
  va_start(ap, arg);                                                                   \
  while (va_arg(ap, const char *)) n_++;                                               \
  va_end(ap);                                                                          \
  const char **argv = alloca((n_ + 1) * sizeof *argv);                                \
  va_start(ap, arg);                                                                   \
  argv[0] = arg;                                                                       \
  for (size_t i_ = 1; i_ <= n_; i_++) argv[i_] = va_arg(ap, const char *);

PL_EXPORT int execl(const char *path, const char *arg, ...)
{
  va_list ap;
  ARGV_OF(arg, argv, ap);
  va_end(ap);
  return execv(path, (char *const *)argv);
}

PL_EXPORT int execlp(const char *file, const char *arg, ...)
{
  va_list ap;
  ARGV_OF(arg, argv, ap);
  va_end(ap);
  return execvp(file, (char *const *)argv);
}

PL_EXPORT int execle(const char *path, const char *arg, ...)
{
  va_list ap;
  ARGV_OF(arg, argv, ap);
  char *const *envp = va_arg(ap, char *const *);
  va_end(ap);
  return execve(path, (char *const *)argv, envp);
}

PL_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *attr, char *const argv[],
                          char *const envp[])
{
  before_exec(1);
  return PL_REAL(posix_spawn)(pid, path, fa, attr, argv, envp);
}

PL_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[],
                           char *const envp[])
{
  before_exec(1);
  return PL_REAL(posix_spawnp)(pid, file, fa, attr, argv, envp);
}

PL_EXPORT int system(const char *cmd)
{
  before_exec(1);
  return PL_REAL(system)(cmd);
}

PL_EXPORT FILE *popen(const char *cmd, const char *type)
{
  before_exec(1);
  return PL_REAL(popen)(cmd, type);
}
