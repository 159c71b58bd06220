/* Open containers of the preload: one object per container per process
 * (like an inode), shared by every description that opened it. What is the
 * same for every kind lives here: the registry of open objects by device
 * and inode, their locks, the fork generation, names that follow unlink
 * and rename, stat. Everything a kind does differently goes through its
 * process ops (src/container/store.h), found by the manifest's kind name.
 * Every function returns 0 or -errno and runs with the caller's "inside"
 * flag set, so the container code's own system calls reach libc. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "container/container.h"
#include "container/store.h"
#include "core/error.h"
#include "core/clock.h"
#include "hints/hints.h"
#include "preload/preload.h"
#include "stats/stats.h"

struct ostio__pl_obj {
  ostio__pl_obj *next;
  dev_t dev;
  ino_t ino;
  char *path;
  int refs;
  pthread_mutex_t mu;        /* serializes the store's calls                    */
  const ostio__store_ops *ops;
  ostio__store *s;           /* the kind's state (NULL until opened)             */
  uint64_t seen_gen;         /* *fork_gen when the store last reloaded          */
  int lockfd;                /* the manifest, read-only, for flock (-1 none)   */
  int nlocks;                /* fcntl locks this process holds on it         */
  pid_t unlinked;            /* renamed away by unlink in this pid: removed at
                              * its last close (0: not unlinked)              */
  ostio__stats st;           /* this process's calls on it since the last report
                              * (plstats.c; under mu)                          */
};

/* After a fork the processes of the tree publish every write (a kind with
 * pending state flushes it at once) and count them in a shared counter; a
 * reader whose count is behind reloads, so parent and child see each
 * other's writes as with a kernel file. */
int ostio__pl_forked;
static uint64_t *fork_gen;

static uint64_t gen_now(void) { return fork_gen ? __atomic_load_n(fork_gen, __ATOMIC_ACQUIRE) : 0; }

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static ostio__pl_obj *reg;

static int to_errno(int rc)
{
  switch (rc) {
  case 0: return 0;
  case OSTIO_EINVAL: return -EINVAL;
  case OSTIO_ENOMEM: return -ENOMEM;
  case OSTIO_ENOENT: return -ENOENT;
  case OSTIO_EEXIST: return -EEXIST;
  case OSTIO_EACCES: return -EACCES;
  case OSTIO_ENOTSUP: return -EOPNOTSUPP;
  case OSTIO_ENOSPC: return -ENOSPC;
  case OSTIO_ERANGE: return -EFBIG;
  case OSTIO_EFBIG: return -EFBIG;
  case OSTIO_EISDIR: return -EISDIR;
  case OSTIO_ENOTDIR: return -ENOTDIR;
  case OSTIO_ENOTEMPTY: return -ENOTEMPTY;
  default: return -EIO;
  }
}

/* rc: an OSTIO_E* code (never -errno). */
static int fail(int rc, const char *what, const char *path)
{
  if (rc < 0) ostio__pl_debug("ostio-preload: %s %s: %s", what, path, ostio_last_error());
  return to_errno(rc);
}

/* A call the kind does not have (store.h: NULL is "not supported"). */
static int unsupported(const ostio__pl_obj *o, const char *call)
{
  ostio__pl_debug("ostio-preload: %s: the %s kind has no %s", o->path, o->ops->name, call);
  return -EOPNOTSUPP;
}

const char *ostio__pl_obj_path(const ostio__pl_obj *o) { return o->path; }
int ostio__pl_obj_dirfd(const ostio__pl_obj *o) { return o->ops->dirfd(o->s); }

/* ---- creation ----------------------------------------------------------------------- */

/* The kind the hint ostio_container names when it has process ops, else
 * the default (store.h). A bad OSTIO_HINTS refuses the creation (the
 * debug line names the hint). */
static int create(const char *path, int excl)
{
  ostio__hints h;
  char name[32];
  int rc = ostio__hints_resolve_env(path, &h);
  if (rc < 0) return fail(rc, "cannot create the container", path);
  ostio__hints_format(&h, ostio__hints_index("ostio_container"), name, sizeof name);
  const ostio__store_ops *k = ostio__store_for_create(name);
  return fail(k->create(path, &h, excl), "cannot create the container", path);
}

/* ---- the registry of open objects ------------------------------------------------------ */

static ostio__pl_obj *reg_find(dev_t dev, ino_t ino)
{
  for (ostio__pl_obj *o = reg; o; o = o->next)
    if (o->dev == dev && o->ino == ino) return o;
  return NULL;
}

/* The statistics of o's calls since the last report (plstats.c; OSTIO_STATS
 * off: nothing), then zeroed. */
static void obj_report(ostio__pl_obj *o)
{
  ostio__stats st;
  pthread_mutex_lock(&o->mu);
  st = o->st;
  memset(&o->st, 0, sizeof o->st);
  pthread_mutex_unlock(&o->mu);
  ostio__pl_stats_report(o->path, &st);
}

/* One call on o counted (under o->mu): the program's read/write calls are
 * both its independent calls and, for the report, its system calls. */
static void count(ostio__pl_obj *o, int is_write, int64_t off, size_t len, double t0)
{
  ostio__stats *st = &o->st;
  ostio__stats_piece(st, is_write, off, (int64_t)len); /* the program's calls are its pieces */
  ostio__stat_add(st, is_write ? OSTIO__STAT_indep_writes : OSTIO__STAT_indep_reads, 1);
  ostio__stat_add(st, is_write ? OSTIO__STAT_sys_writes : OSTIO__STAT_sys_reads, 1);
  ostio__stat_add(st, is_write ? OSTIO__STAT_bytes_written : OSTIO__STAT_bytes_read,
                  (int64_t)len);
  ostio__stat_hist(st, is_write, (int64_t)len);
  double dt = ostio__now() - t0;
  st->t[OSTIO__T_time_io] += dt;
  st->t[OSTIO__T_time_total] += dt;
}

static void obj_free(ostio__pl_obj *o)
{
  if (o->s) obj_report(o); /* opened (not a failed open) */
  int remove_it = o->unlinked && o->unlinked == getpid();
  if (o->s) o->ops->close(o->s, remove_it);
  if (o->lockfd >= 0) close(o->lockfd);
  if (remove_it) ostio__pl_ctr_remove(o->path); /* the last close of an unlinked one */
  pthread_mutex_destroy(&o->mu);
  free(o->path);
  free(o);
}

/* o's directory is now at path (a rename): the container code's later opens
 * (reloads, a writable reopen) use the new name. Under reg_mu. */
static int obj_set_path(ostio__pl_obj *o, const char *path)
{
  char *p = strdup(path);
  if (!p) return -ENOMEM;
  pthread_mutex_lock(&o->mu);
  free(o->path);
  o->path = p;
  if (o->s) o->s->path = p;
  pthread_mutex_unlock(&o->mu);
  return 0;
}

static ostio__pl_obj *reg_find_path(const char *norm)
{
  struct stat st;
  if (stat(norm, &st) < 0) return NULL;
  return reg_find(st.st_dev, st.st_ino);
}

/* unlink of a container: when this process has it open, the kernel would
 * keep the file until the last close. It is renamed to a hidden name in the
 * same directory (NFS's "silly rename"), which readdir does not list, and
 * removed at the last close in this process (or at exit). 1 when renamed,
 * 0 when not open here (remove it), -errno. */
int ostio__pl_ctr_unlink_open(const char *norm)
{
  static unsigned n;
  int rc = 0;
  pthread_mutex_lock(&reg_mu);
  ostio__pl_obj *o = reg_find_path(norm);
  if (o) {
    const char *slash = strrchr(norm, '/');
    char np[PL_PATH_MAX + 64];
    snprintf(np, sizeof np, "%.*s/%s%ld.%u", (int)(slash - norm), norm, PL_UNLINKED_PREFIX,
             (long)getpid(), __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED));
    if (rename(norm, np) < 0) rc = -errno;
    else if ((rc = obj_set_path(o, np)) == 0) {
      o->unlinked = getpid();
      rc = 1;
    }
  }
  pthread_mutex_unlock(&reg_mu);
  return rc;
}

/* After a rename of a container: an open object follows its new name. */
void ostio__pl_ctr_renamed(const char *newnorm)
{
  pthread_mutex_lock(&reg_mu);
  ostio__pl_obj *o = reg_find_path(newnorm);
  if (o && strcmp(o->path, newnorm)) obj_set_path(o, newnorm);
  pthread_mutex_unlock(&reg_mu);
}

/* At exit: the unlinked containers this process still has open go. */
void ostio__pl_obj_exit(void)
{
  pthread_mutex_lock(&reg_mu);
  for (ostio__pl_obj *o = reg; o; o = o->next) /* still open at exit: reported now */
    obj_report(o);
  for (ostio__pl_obj *o = reg; o; o = o->next)
    if (o->unlinked && o->unlinked == getpid()) {
      ostio__pl_ctr_remove(o->path);
      o->unlinked = 0;
    }
  pthread_mutex_unlock(&reg_mu);
}

static int obj_new(const char *path, const struct stat *st, ostio__pl_obj **out)
{
  const ostio__store_ops *ops = NULL;
  int rc = ostio__store_of_path(path, &ops); /* OSTIO_ENOTSUP: a kind with no store */
  if (rc < 0) return fail(rc, "not a usable container:", path);
  ostio__pl_obj *o = calloc(1, sizeof *o);
  if (!o || !(o->path = strdup(path))) {
    free(o);
    return -ENOMEM;
  }
  pthread_mutex_init(&o->mu, NULL);
  o->dev = st->st_dev;
  o->ino = st->st_ino;
  o->ops = ops;
  o->lockfd = -1;
  o->refs = 1;
  rc = ops->open ? fail(ops->open(o->path, &o->s), "cannot open", path) : -EOPNOTSUPP;
  if (rc < 0) {
    obj_free(o);
    return rc;
  }
  *out = o;
  return 0;
}

int ostio__pl_obj_open(const char *norm, int exists, int flags, mode_t mode,
                       ostio__pl_obj **out)
{
  int acc = flags & O_ACCMODE, rc = 0;
  (void)mode; /* a container's directory gets the creator's umask, like mkdir */
  if (!exists) {
    if (!(flags & O_CREAT)) return -ENOENT;
    if ((rc = create(norm, !!(flags & O_EXCL))) < 0 && !(rc == -EEXIST && !(flags & O_EXCL)))
      return rc;
  } else if ((flags & O_CREAT) && (flags & O_EXCL)) {
    return -EEXIST;
  }
  if (flags & O_DIRECTORY) return -ENOTDIR;
  if (acc != O_RDONLY && access(norm, W_OK) < 0) return -errno;
  struct stat st;
  if (stat(norm, &st) < 0) return -errno;
  ostio__pl_obj *o = NULL;
  pthread_mutex_lock(&reg_mu);
  if ((o = reg_find(st.st_dev, st.st_ino))) {
    o->refs++;
    pthread_mutex_unlock(&reg_mu);
    pthread_mutex_lock(&o->mu);
    if (o->ops->reload && !(flags & O_PATH)) /* a new open sees every writer */
      rc = fail(o->ops->reload(o->s), "cannot reload", o->path);
    pthread_mutex_unlock(&o->mu);
  } else {
    rc = obj_new(norm, &st, &o);
    if (rc < 0) o = NULL;
    if (rc == 0) {
      o->next = reg;
      reg = o;
    }
    pthread_mutex_unlock(&reg_mu);
  }
  if (rc == 0 && (flags & O_TRUNC) && acc != O_RDONLY) rc = ostio__pl_obj_truncate(o, 0);
  if (rc < 0) {
    if (o) ostio__pl_obj_release(o);
    return rc;
  }
  *out = o;
  return 0;
}

void ostio__pl_obj_release(ostio__pl_obj *o)
{
  pthread_mutex_lock(&reg_mu);
  if (--o->refs > 0) {
    pthread_mutex_unlock(&reg_mu);
    return;
  }
  for (ostio__pl_obj **p = &reg; *p; p = &(*p)->next)
    if (*p == o) {
      *p = o->next;
      break;
    }
  pthread_mutex_unlock(&reg_mu);
  obj_free(o);
}

int ostio__pl_obj_close(ostio__pl_obj *o)
{
  int rc = 0;
  pthread_mutex_lock(&o->mu);
  if (o->ops->flush) rc = fail(o->ops->flush(o->s), "cannot flush", o->path);
  pthread_mutex_unlock(&o->mu);
  ostio__pl_obj_release(o);
  return rc;
}

/* ---- other processes of a forked tree ----------------------------------------------------- */

/* In a forked tree: what this process wrote to disk now, and the count up.
 * A kind without pending state (no flush) has nothing to publish. */
static int publish(ostio__pl_obj *o)
{
  if (!ostio__pl_forked || !fork_gen || !o->ops->flush) return 0;
  int rc = o->ops->flush(o->s);
  if (rc == 0 && __atomic_fetch_add(fork_gen, 1, __ATOMIC_ACQ_REL) == o->seen_gen)
    o->seen_gen++; /* else another process wrote meanwhile: the next read reloads */
  return fail(rc, "cannot flush", o->path);
}

/* Another process of the tree wrote since we last looked: reload. */
static int catch_up(ostio__pl_obj *o)
{
  if (!o->ops->reload || !ostio__pl_forked || gen_now() == o->seen_gen) return 0;
  o->seen_gen = gen_now();
  return fail(o->ops->reload(o->s), "cannot reload", o->path);
}

/* ---- data ---------------------------------------------------------------------------- */

static int obj_size_locked(ostio__pl_obj *o, int64_t *size)
{
  int rc = catch_up(o);
  if (rc < 0) return rc;
  if (!o->ops->size) return unsupported(o, "size");
  return fail(o->ops->size(o->s, size), "cannot size", o->path);
}

int ostio__pl_obj_size(ostio__pl_obj *o, int64_t *size)
{
  pthread_mutex_lock(&o->mu);
  int rc = obj_size_locked(o, size);
  pthread_mutex_unlock(&o->mu);
  return rc;
}

ssize_t ostio__pl_obj_pread(ostio__pl_obj *o, void *buf, size_t len, int64_t off)
{
  size_t got = 0;
  double t0 = ostio__now();
  pthread_mutex_lock(&o->mu);
  int rc = catch_up(o);
  if (rc == 0 && !o->ops->pread) rc = unsupported(o, "read");
  else if (rc == 0) rc = fail(o->ops->pread(o->s, buf, len, off, &got), "cannot read", o->path);
  if (rc == 0) count(o, 0, off, got, t0);
  pthread_mutex_unlock(&o->mu);
  return rc < 0 ? rc : (ssize_t)got;
}

static int make_writable(ostio__pl_obj *o)
{
  if (!o->ops->writable) return unsupported(o, "write");
  return fail(o->ops->writable(o->s), "cannot write", o->path);
}

ssize_t ostio__pl_obj_pwrite(ostio__pl_obj *o, const void *buf, size_t len, int64_t off,
                             int append, int64_t *endoff)
{
  double t0 = ostio__now();
  pthread_mutex_lock(&o->mu);
  int rc = make_writable(o);
  int64_t size;
  if (rc == 0 && append && (rc = obj_size_locked(o, &size)) == 0) off = size;
  if (rc == 0 && len > 0 && !o->ops->pwrite) rc = unsupported(o, "write");
  else if (rc == 0 && len > 0) {
    rc = fail(o->ops->pwrite(o->s, buf, len, off), "cannot write", o->path);
    if (rc == 0) count(o, 1, off, len, t0);
    if (rc == 0) rc = publish(o);
  }
  pthread_mutex_unlock(&o->mu);
  if (rc < 0) return rc;
  *endoff = off + (int64_t)len;
  return (ssize_t)len;
}

int ostio__pl_obj_truncate(ostio__pl_obj *o, int64_t size)
{
  pthread_mutex_lock(&o->mu);
  int rc = make_writable(o);
  if (rc == 0 && !o->ops->truncate) rc = unsupported(o, "truncate");
  else if (rc == 0) rc = fail(o->ops->truncate(o->s, size), "cannot truncate", o->path);
  if (rc == 0) rc = publish(o);
  pthread_mutex_unlock(&o->mu);
  return rc;
}

int ostio__pl_obj_sync(ostio__pl_obj *o)
{
  pthread_mutex_lock(&o->mu);
  int rc = o->ops->sync ? fail(o->ops->sync(o->s), "cannot sync", o->path) : -EINVAL;
  pthread_mutex_unlock(&o->mu);
  return rc;
}

int ostio__pl_obj_lock(ostio__pl_obj *o, int type, int wait)
{
  pthread_mutex_lock(&o->mu);
  if (o->lockfd < 0)
    o->lockfd = openat(ostio__pl_obj_dirfd(o), OSTIO__CTR_MANIFEST, O_RDONLY | O_CLOEXEC);
  int fd = o->lockfd, rc = 0;
  if (type == F_UNLCK) {
    if (o->ops->flush) /* publish, then let go */
      rc = fail(o->ops->flush(o->s), "cannot flush", o->path);
    if (o->nlocks > 0 && --o->nlocks == 0 && fd >= 0) flock(fd, LOCK_UN);
    pthread_mutex_unlock(&o->mu);
    return rc;
  }
  pthread_mutex_unlock(&o->mu);
  if (fd >= 0 && flock(fd, (type == F_WRLCK ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)) < 0)
    return errno == EWOULDBLOCK ? -EAGAIN : -errno;
  pthread_mutex_lock(&o->mu);
  o->nlocks++;
  if (o->ops->locked) rc = fail(o->ops->locked(o->s), "cannot reload", o->path);
  pthread_mutex_unlock(&o->mu);
  return rc;
}

/* ---- fork ----------------------------------------------------------------------------- */

void ostio__pl_obj_flush_all(int end)
{
  pthread_mutex_lock(&reg_mu);
  for (ostio__pl_obj *o = reg; o; o = o->next) {
    pthread_mutex_lock(&o->mu);
    /* A failed flush keeps the record pending (logwriter.c): the next
     * fsync or close says so. */
    if (o->ops->flush) o->ops->flush(o->s);
    if (end && o->ops->end) o->ops->end(o->s); /* exit or exec: see store.h */
    pthread_mutex_unlock(&o->mu);
  }
  pthread_mutex_unlock(&reg_mu);
}

void ostio__pl_obj_atfork(int phase)
{
  if (phase == 0) {
    if (!fork_gen) {
      void *p = mmap(NULL, sizeof *fork_gen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                     -1, 0);
      if (p != MAP_FAILED) fork_gen = p;
    }
    pthread_mutex_lock(&reg_mu);
    for (ostio__pl_obj *o = reg; o; o = o->next) {
      pthread_mutex_lock(&o->mu);
      if (o->ops->flush) o->ops->flush(o->s);
    }
    return;
  }
  if (fork_gen) ostio__pl_forked = 1;
  for (ostio__pl_obj *o = reg; o; o = o->next) {
    o->seen_gen = gen_now();
    if (phase == 2) memset(&o->st, 0, sizeof o->st); /* the parent's calls are the parent's */
    if (phase == 2 && o->ops->forked) o->ops->forked(o->s); /* the child's own writer */
    pthread_mutex_unlock(&o->mu);
  }
  pthread_mutex_unlock(&reg_mu);
}

/* ---- stat ------------------------------------------------------------------------------ */

/* The directory's identity and times, S_IFREG with its permissions minus x,
 * the logical size, blocks from the data (at most the size's). */
int ostio__pl_obj_stat(ostio__pl_obj *o, struct stat *st)
{
  int64_t size = 0, bytes = 0;
  int rc = 0;
  pthread_mutex_lock(&o->mu);
  /* The kernel's size is always current: what another process (one that
   * exec'd, or any other) published since the load is read now. */
  if (o->ops->changed && o->ops->reload && o->ops->changed(o->s))
    rc = fail(o->ops->reload(o->s), "cannot reload", o->path);
  if (rc == 0) rc = obj_size_locked(o, &size);
  if (rc == 0 && fstat(ostio__pl_obj_dirfd(o), st) < 0) rc = -errno;
  if (rc == 0 && o->ops->bytes) rc = fail(o->ops->bytes(o->s, &bytes), "cannot stat", o->path);
  pthread_mutex_unlock(&o->mu);
  if (rc < 0) return rc;
  if (bytes > size) bytes = size;
  st->st_mode = S_IFREG | (st->st_mode & 0666);
  st->st_nlink = 1;
  st->st_size = size;
  st->st_blocks = (bytes + 511) / 512;
  st->st_blksize = 1 << 20;
  return 0;
}
