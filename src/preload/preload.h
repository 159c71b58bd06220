/* libostio-preload.so (issue 7): POSIX and stdio calls on paths inside the
 * directories of OSTIO_PRELOAD_PATHS are served by containers; everything
 * else goes straight to libc. No MPI. See docs/preload.md.
 *
 *   real.c     init, the real libc functions (dlsym RTLD_NEXT), the
 *              thread-local "inside" flag, debug output, fork handlers
 *   path.c     pure: lexical path normalization, the prefix set
 *   fdtab.c    fd -> open file description table
 *   backend.c  open containers (one object per container per process):
 *              open/create, read, write, size, truncate, sync, stat; each
 *              kind's own steps through its process ops (container/store.h)
 *   posix.c    open family, close, read/write family, lseek
 *   fdctl.c   fcntl, dup family, ioctl, zero-copy refusals, mmap, sync
 *   meta.c     stat family, statx, statfs, unlink, rename, truncate, times
 *   dir.c      opendir/readdir: a container lists as a regular file
 *   stdio.c    fopen/fdopen/freopen through fopencookie, fileno */
#ifndef OSTIO_PRELOAD_PRELOAD_H
#define OSTIO_PRELOAD_PRELOAD_H

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define PL_EXPORT __attribute__((visibility("default")))

/* ---- path.c --------------------------------------------------------------------- */
#define PL_PATH_MAX 4096
#define PL_PREFIX_ENTRIES 32  /* directories in OSTIO_PRELOAD_PATHS             */
#define PL_PREFIX_MAX 64      /* a set: each entry as written and its realpath   */
#define PL_STR_(x) #x
#define PL_STR(x) PL_STR_(x)
typedef struct ostio__pl_prefixes {
  int n;
  char *p[PL_PREFIX_MAX];   /* normalized, no trailing slash, "/" never  */
  size_t len[PL_PREFIX_MAX];
} ostio__pl_prefixes;
/* Lexical normalization: path joined to cwd when relative (cwd absolute),
 * "//" and "." collapsed, ".." removes the previous component (never above
 * "/"), no trailing slash except for "/". Symlinks are not resolved: only
 * the cheap "can this path be in a prefix?" test uses it.
 * 0, or -1 when the result does not fit in cap (ENAMETOOLONG). */
int ostio__pl_path_norm(const char *cwd, const char *path, char *out, size_t cap);
/* OSTIO_PRELOAD_PATHS (or OSTIO_MPIIO_PATHS in its place: var names the
 * variable in messages): every colon-separated entry must be an absolute path
 * of an existing directory whose realpath is not "/" (at most
 * PL_PREFIX_ENTRIES). spelled receives each entry as written (normalized)
 * and its realpath, real the realpaths. Returns the number of real
 * prefixes; 0 for an empty or NULL spec; -1 when an entry is refused (why:
 * one line naming the variable, the entry, what is wrong and what is
 * accepted; both sets left empty). */
int ostio__pl_prefixes_parse(ostio__pl_prefixes *spelled, ostio__pl_prefixes *real,
                             const char *spec, const char *var, char *why, size_t whycap);
/* Adds one normalized prefix (when new and not "/"); -1 when full or out of memory. */
int ostio__pl_prefixes_add(ostio__pl_prefixes *ps, const char *norm);
void ostio__pl_prefixes_free(ostio__pl_prefixes *ps);
/* 1 when norm is strictly inside a prefix directory, 2 when it is a prefix
 * directory itself, 0 otherwise. */
int ostio__pl_prefixes_match(const ostio__pl_prefixes *ps, const char *norm);
/* 1 for a lexically normalized path through a /proc or /dev link the
 * kernel resolves by itself: /dev/fd/..., /dev/std{in,out,err},
 * /proc/{self,thread-self,PID}[/task/TID]/{fd,cwd,root}[/...]. */
int ostio__pl_is_procpath(const char *norm);

/* The system calls resolution uses (the preload passes libc's real ones,
 * the unit test libc's). */
typedef struct ostio__pl_fsops {
  int (*openat)(int dirfd, const char *path, int flags, ...);
  ssize_t (*readlinkat)(int dirfd, const char *path, char *buf, size_t cap);
  int (*fstatat)(int dirfd, const char *path, struct stat *st, int flags);
  int (*close)(int fd);
} ostio__pl_fsops;
enum { PL_NOFOLLOW = 1, /* a final symlink is the name itself (lstat, unlink, O_NOFOLLOW) */
       PL_LSTAT = 2 };  /* fill res->st even when not following                         */
enum { PL_RES_NAME = 0, /* out: a real directory + "/" + the final name               */
       PL_RES_DIR = 1 }; /* out: the real directory a path ending in ".", "..", "/" names */
typedef struct ostio__pl_res {
  int kind;        /* PL_RES_NAME or PL_RES_DIR                                  */
  int lerr;        /* PL_RES_NAME, when looked at: 0 (st is out's lstat) or errno */
  struct stat st;
} ostio__pl_res;
/* The path the kernel would reach for (dirfd, path): the directory part is
 * resolved by the kernel itself (an O_PATH|O_DIRECTORY open at dirfd, then
 * its /proc/self/fd link), so symlinks are resolved before "..", and
 * relative paths use dirfd (base: its real path, or the cwd's for
 * AT_FDCWD; NULL for an absolute path). A final symlink is followed (at
 * most 40 links: ELOOP) unless PL_NOFOLLOW without a trailing slash; a
 * /proc/.../fd/N link to a container's ostio.manifest (a placeholder)
 * stands for the container. A final name that does not exist stays as
 * named (res->lerr ENOENT: an O_CREAT makes it there).
 * 0, or -errno: ENAMETOOLONG (path or result of PL_PATH_MAX bytes or more:
 * never truncated), ELOOP, and ENOENT/ENOTDIR/EACCES when the directory
 * part does not resolve (then out is the deepest real directory + "/" +
 * the component that failed, or "", for the "container on the way" test). */
int ostio__pl_path_resolve(const ostio__pl_fsops *ops, int dirfd, const char *path,
                           const char *base, int how, char *out, size_t cap, ostio__pl_res *res);

/* ---- fdtab.c ----------------------------------------------------------------------
 * An open file description: what dup'ed fds share (offset, flags). obj is
 * the open container (backend.c); the table never looks inside it. */
typedef struct ostio__pl_desc {
  int refs;                /* fds pointing here plus calls in progress     */
  int flags;               /* open flags: O_ACCMODE, O_APPEND, O_NONBLOCK  */
  int64_t off;             /* the offset (while not shared)                 */
  int shared;              /* after fork: the kernel placeholder's offset    */
  int kdirty;              /* off not yet written to the placeholder's kernel
                            * offset (written before fork, exec, spawn)       */
  pthread_mutex_t mu;      /* offset updates (read/write/lseek)             */
  void *obj;
} ostio__pl_desc;
/* Sizes the table (fds 0..cap-1 can be ours). */
int ostio__pl_fdtab_init(int cap);
void ostio__pl_fdtab_fini(void);
extern ostio__pl_desc *volatile *ostio__pl_fdtab_slot;
extern int ostio__pl_fdtab_cap;
/* Fast check without a lock: 1 when fd is one of ours. */
static inline int ostio__pl_fd_ours(int fd)
{
  return fd >= 0 && fd < ostio__pl_fdtab_cap && ostio__pl_fdtab_slot &&
         __atomic_load_n(&ostio__pl_fdtab_slot[fd], __ATOMIC_ACQUIRE) != NULL;
}
/* 1 when d's access mode (O_ACCMODE of its open flags) allows a write
 * (is_write) or a read. */
static inline int ostio__pl_desc_allows(const ostio__pl_desc *d, int is_write)
{
  int acc = d->flags & O_ACCMODE;
  return is_write ? acc != O_RDONLY : acc != O_WRONLY;
}
/* A new description (refs 0) for obj. */
ostio__pl_desc *ostio__pl_desc_new(void *obj, int flags);
/* Installs d at fd (refs + 1). -1 when fd is out of range or taken. */
int ostio__pl_fdtab_set(int fd, ostio__pl_desc *d);
/* The description at fd with refs + 1 (release it), or NULL. */
ostio__pl_desc *ostio__pl_fdtab_get(int fd);
/* Drops one reference; returns the object when it was the last (the caller
 * releases the object; the description is freed), else NULL. */
void *ostio__pl_desc_put(ostio__pl_desc *d);
/* Removes fd from the table; returns what ostio__pl_desc_put returned. */
void *ostio__pl_fdtab_clear(int fd, int *was_ours);
/* Marks every live description shared (before fork). */
void ostio__pl_fdtab_mark_shared(void);
void ostio__pl_fdtab_lock(void);
void ostio__pl_fdtab_unlock(void);

/* ---- real.c ------------------------------------------------------------------------ */
extern __thread int ostio__pl_inside __attribute__((tls_model("initial-exec")));
extern int ostio__pl_enabled;              /* 1 once init succeeded           */
extern ostio__pl_prefixes ostio__pl_paths;
void ostio__pl_init(void);                 /* idempotent, thread-safe         */
/* Exported for libostio-mpiio.so (src/mpiio/mpiio_posix.c): its own work on
 * the files it serves runs "inside" (this thread's calls go to libc). */
PL_EXPORT int ostio__preload_inside(int delta);
void *ostio__pl_dlsym(const char *name);   /* dlsym(RTLD_NEXT), never recursing */
void ostio__pl_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The real function: resolved on first use. */
#define PL_REAL(name)                                                                  \
  __extension__({                                                                      \
    if (!real_##name) real_##name = (__typeof__(real_##name))ostio__pl_dlsym(#name);  \
    real_##name;                                                                       \
  })
#define PL_DECL_REAL(name) static __typeof__(&name) real_##name
/* The process that owns the library's state (the fd table, the open
 * containers and their writers): the one that started it, and after a
 * fork the child (its handler). A child of vfork, posix_spawn or
 * clone(CLONE_VM) shares that memory until it execs, and no fork handler
 * runs in it: there every wrapper passes straight to libc and touches
 * nothing of the parent's (docs/preload.md, "Programs started by a
 * thread"). One system call (getpid is not cached by glibc, and must not
 * be: a vfork child sees the parent's memory). */
extern pid_t ostio__pl_owner_pid;
static inline int ostio__pl_owner(void) { return (pid_t)syscall(SYS_getpid) == ostio__pl_owner_pid; }
/* Should a path call be looked at (enabled, not the library's own)? */
static inline int ostio__pl_active(void)
{
  if (!ostio__pl_enabled) ostio__pl_init();
  return ostio__pl_enabled && !ostio__pl_inside;
}
/* Should an fd call be served here: fd is one of ours, the call is not
 * the library's own (its container code calls the same wrappers), and this
 * process owns the state (the system call only for our fds). */
#define OURS(fd) (ostio__pl_fd_ours(fd) && !ostio__pl_inside && ostio__pl_owner())

/* Classify a path for the wrappers: norm receives the path the kernel
 * would reach (docs/preload.md, "Which paths"). */
enum { PL_PATH_PLAIN = 0, PL_PATH_CTR = 1, PL_PATH_NEW = 2, PL_PATH_BELOW = 3 };
/* dirfd AT_FDCWD or a directory fd; how 0 or PL_NOFOLLOW (unlink, rename,
 * O_NOFOLLOW, O_CREAT|O_EXCL: a final symlink is the name itself, so
 * PL_PATH_PLAIN). PL_PATH_CTR: an existing container; PL_PATH_NEW: inside
 * a prefix and does not exist (a creat would make a container);
 * PL_PATH_BELOW: a directory on the way (below the prefix) is a container:
 * ENOTDIR, as for a regular file in a path; PL_PATH_PLAIN: anything else
 * (libc serves it). */
int ostio__pl_classify_at(int dirfd, const char *path, char *norm, int how);
int ostio__pl_classify(int dirfd, const char *path, char *norm); /* how 0 */
/* 1 when a proper ancestor of norm strictly inside a prefix is a container. */
int ostio__pl_below_ctr(const char *norm);
/* 1 when the resolved path (into norm; a final symlink not followed) is
 * under or is a prefix, without a stat of the final name. */
int ostio__pl_resolve(int dirfd, const char *path, char *norm);
/* The same with how 0 (follow a final symlink: opendir) or PL_NOFOLLOW. */
int ostio__pl_resolve_at(int dirfd, const char *path, char *norm, int how);

/* ---- backend.c ---------------------------------------------------------------------- */
typedef struct ostio__pl_obj ostio__pl_obj;
/* Opens (or creates, with O_CREAT) the container at norm; -errno. O_PATH
 * (internal use): a stat-only open that does not reload the indexes. */
int ostio__pl_obj_open(const char *norm, int exists, int flags, mode_t mode,
                       ostio__pl_obj **out);
void ostio__pl_obj_release(ostio__pl_obj *o);
/* The close of a description's last fd: publishes the pending record (a
 * failure is close's EIO: the record stays pending, the last close in the
 * process retries it), then releases o. -errno. */
int ostio__pl_obj_close(ostio__pl_obj *o);
/* ostio__pl_desc_put, then the object's release (inside the library) when it
 * was the last reference. */
void ostio__pl_desc_release(ostio__pl_desc *d);
/* errno = -rc; returns -1 (a wrapper's failure return). */
static inline int ostio__pl_errno(int rc)
{
  errno = -rc;
  return -1;
}
ssize_t ostio__pl_obj_pread(ostio__pl_obj *o, void *buf, size_t len, int64_t off);
ssize_t ostio__pl_obj_pwrite(ostio__pl_obj *o, const void *buf, size_t len, int64_t off,
                             int append, int64_t *endoff);
int ostio__pl_obj_size(ostio__pl_obj *o, int64_t *size);
int ostio__pl_obj_truncate(ostio__pl_obj *o, int64_t size);
int ostio__pl_obj_sync(ostio__pl_obj *o);
/* fcntl locks: a whole-container flock (shared for F_RDLCK, exclusive for
 * F_WRLCK) between processes, counted per process; taking one rereads the
 * indexes, F_UNLCK publishes the pending record first. -errno. */
int ostio__pl_obj_lock(ostio__pl_obj *o, int type, int wait);
int ostio__pl_obj_stat(ostio__pl_obj *o, struct stat *st);
const char *ostio__pl_obj_path(const ostio__pl_obj *o);
int ostio__pl_obj_dirfd(const ostio__pl_obj *o);
/* stat of a container path (the process's open object when there is one). */
int ostio__pl_ctr_stat(const char *norm, struct stat *st);
/* Removes the container at norm; -errno. */
int ostio__pl_ctr_remove(const char *norm);
/* unlink of a container this process has open: renamed to a hidden name
 * (PL_UNLINKED_PREFIX<pid>.<n> in the same directory), removed at the last
 * close here or at exit. 1 renamed, 0 not open here, -errno. */
#define PL_UNLINKED_PREFIX ".ostio-unlinked."
int ostio__pl_ctr_unlink_open(const char *norm);
/* After a rename: an open container follows its new name. */
void ostio__pl_ctr_renamed(const char *newnorm);
/* At exit and _exit: removes the unlinked containers still open. */
void ostio__pl_obj_exit(void);
/* ---- plstats.c: OSTIO_STATS for the files the preload serves ---------------
 * Reports st (this process's calls on the container at path since its last
 * report) as OSTIO_STATS asks: off, text on stderr, or this process's JSON
 * record next to PATH (docs/stats.md, "Preloaded programs"). Never fails. */
struct ostio__stats;
void ostio__pl_stats_report(const char *path, const struct ostio__stats *st);
/* Writes every pending index record (the store's flush); with end (exit,
 * _exit, exec: the process stops using its writers) also ends staged
 * writers (the store's end). A spawn (posix_spawn, system, popen) only
 * flushes: the process goes on writing. */
void ostio__pl_obj_flush_all(int end);
/* Fork: before (flush writers, lock), after in parent and child. */
void ostio__pl_obj_atfork(int phase);
/* The placeholder fd for a new open of o (O_CLOEXEC, O_APPEND of flags),
 * made at fd reserved (when >= 0): a real fd; -errno. */
int ostio__pl_placeholder(ostio__pl_obj *o, int reserved, int flags);
/* A fd inherited through exec: adopt it when it is a placeholder. */
void ostio__pl_adopt_fds(void);

/* ---- posix.c: entry points other files reuse -------------------------------------------- */
int ostio__pl_open_ctr(const char *norm, int exists, int flags, mode_t mode);
ssize_t ostio__pl_fd_read(int fd, void *buf, size_t len);
ssize_t ostio__pl_fd_write(int fd, const void *buf, size_t len);
off_t ostio__pl_fd_lseek(int fd, off_t off, int whence);
int ostio__pl_fd_close(int fd);
/* Writes every dirty offset through to its placeholder's kernel offset
 * (what fork, exec and spawned programs see). */
void ostio__pl_offsets_sync(void);

/* ---- stdio.c ---------------------------------------------------------------------------- */
/* A FILE over our fd (fopencookie); NULL with errno. */
struct _IO_FILE *ostio__pl_cookie_file(int fd, const char *mode);
/* After dup2/dup3 onto fd 0..2: the standard stream follows the fd. */
void ostio__pl_std_swap(int fd);

#endif
