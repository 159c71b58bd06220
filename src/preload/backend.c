/* Open containers of the preload: one object per container per process
 * (like an inode), shared by every description that opened it. Striped
 * containers go through src/container/striped/striped.c and the io layer's object
 * routing; log containers through logfile.c/logwriter.c with one writer
 * identity per process (claimed on the first write). Every function returns
 * 0 or -errno and runs with the caller's "inside" flag set, so the container
 * code's own system calls reach libc. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "container/log/log.h"
#include "core/error.h"
#include "hints/hints.h"
#include "io/io.h"
#include "preload/preload.h"

struct ostio__pl_obj {
  ostio__pl_obj *next;
  dev_t dev;
  ino_t ino;
  char *path;
  int kind;
  int refs;
  pthread_mutex_t mu;
  int writable;              /* opened for writing (striped: objects O_RDWR) */
  /* striped */
  ostio__ctr *c;
  ostio__io io;
  ostio__io_objects ob;
  int64_t size_hint;         /* the size last seen (reads below it trust it) */
  /* log */
  ostio__logdir *d;
  ostio__logmap map;
  ostio__logres res;
  ostio__logw w;
  int wactive;               /* this process has a writer identity           */
  int32_t own_src;
  uint64_t seen_gen;         /* *fork_gen when the indexes were read         */
  uint32_t epoch;            /* of this writer's records (raised under locks)  */
  int lockfd;                /* the manifest, read-only, for flock (-1 none)   */
  int nlocks;                /* fcntl locks this process holds on it         */
  pid_t unlinked;            /* renamed away by unlink in this pid: removed at
                              * its last close (0: not unlinked)              */
};

/* After a fork the processes of the tree publish every write (the record is
 * flushed at once) and count them in a shared counter; a reader whose count
 * is behind rereads the indexes, so parent and child see each other's
 * writes as with a kernel file. */
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

static int fail(int rc, const char *what, const char *path)
{
  if (rc < 0) ostio__pl_debug("ostio-preload: %s %s: %s", what, path, ostio_last_error());
  return to_errno(rc);
}

const char *ostio__pl_obj_path(const ostio__pl_obj *o) { return o->path; }
int ostio__pl_obj_dirfd(const ostio__pl_obj *o) { return o->c ? o->c->dirfd : o->d->dirfd; }

/* ---- creation ----------------------------------------------------------------------- */

static int create(const char *path, int excl)
{
  ostio__hints h;
  ostio__ctr_params p;
  int created = 0, rc = ostio__hints_resolve_env(path, &h);
  if (rc < 0) ostio__hints_init(&h); /* a bad OSTIO_HINTS: the defaults */
  if (h.ostio_container == OSTIO__CONTAINER_STRIPED) {
    rc = ostio__ctr_params_resolve(path, &h, &p);
    p.kind = OSTIO__CTR_KIND_STRIPED;
  } else {
    memset(&p, 0, sizeof p);
    p.kind = OSTIO__CTR_KIND_LOG;
    p.hostdirs = 1;
    p.writers = OSTIO__LOG_WRITERS_RANK;
    snprintf(p.requested, sizeof p.requested, "hostdirs=1 writers=rank (libostio-preload)");
  }
  if (rc == 0) rc = ostio__ctr_create(path, &p, excl, &created);
  return fail(rc, "cannot create the container", path);
}

/* ---- opening ------------------------------------------------------------------------- */

static int striped_open(ostio__pl_obj *o, int writable)
{
  ostio__ctr *c = NULL;
  int rc = ostio__ctr_open(o->path, writable, &c);
  if (rc < 0) return fail(rc, "cannot open", o->path);
  if (o->c) {
    ostio__io_fini(&o->io);
    ostio__ctr_close(&o->c, 0);
  }
  o->c = c;
  o->writable = writable;
  o->ob = (ostio__io_objects){c->m.nobjects, c->m.stripe_size, c->fd, c->m.names};
  rc = ostio__io_init(&o->io, -1, 0, NULL, NULL);
  if (rc == 0) rc = ostio__io_set_objects(&o->io, &o->ob);
  if (rc == 0) rc = ostio__ctr_size(c, &o->size_hint, NULL);
  return fail(rc, "cannot set up", o->path);
}

static int log_load(const char *path, ostio__logdir **dp, ostio__logmap *map)
{
  ostio__logload st;
  memset(&st, 0, sizeof st);
  ostio__logmap_init(map);
  int rc = ostio__log_open(path, NULL, 0, dp);
  if (rc == 0) rc = ostio__log_scan(*dp);
  if (rc == 0) rc = ostio__log_load_all(*dp, map, &st);
  if (rc == 0) rc = ostio__logmap_build(map);
  if (rc < 0) {
    ostio__log_close(dp);
    ostio__logmap_free(map);
  }
  return rc;
}

/* Reloads every index (other processes' writes); our flushed records come
 * back from our own index log, the pending one stays pending. */
static int log_reload(ostio__pl_obj *o)
{
  ostio__logdir *d = NULL;
  ostio__logmap map;
  if (o->wactive) {
    int rc = ostio__logw_flush(&o->w);
    if (rc < 0) return fail(rc, "cannot flush", o->path);
  }
  int rc = log_load(o->path, &d, &map);
  if (rc < 0) return fail(rc, "cannot reload", o->path);
  if (o->wactive) {
    o->w.d = d;
    o->w.nfresh = 0;
    o->own_src = ostio__log_src_find(d, o->w.session, o->w.writer);
  }
  ostio__log_close(&o->d);
  ostio__logmap_free(&o->map);
  o->d = d;
  o->map = map;
  return 0;
}

/* Did another process publish since the indexes were read? Each hostdir is
 * listed (O_NOATIME, by the open wrapper): an index log that is new, or
 * whose size differs from the listing the load used, says yes. Our own
 * index (we know what we appended) does not count. One open, a listing and
 * one fstatat per index log: cheap next to a reload. */
static int log_changed(ostio__pl_obj *o)
{
  ostio__logdir *d = o->d;
  int changed = 0;
  for (int32_t h = 0; h < d->m.hostdirs && !changed; h++) {
    char name[32];
    snprintf(name, sizeof name, "hostdir.%03d", (int)h);
    int hfd = openat(d->dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *dir = hfd >= 0 ? fdopendir(hfd) : NULL;
    if (!dir) {
      if (hfd >= 0) close(hfd);
      continue; /* not made yet (or unreadable: the load said so) */
    }
    struct dirent *e;
    while (!changed && (e = readdir(dir))) {
      uint32_t se, wr;
      struct stat st;
      if (ostio__log_parse_name(e->d_name, &se, &wr) != 2) continue; /* index logs only */
      int i = ostio__log_src_find(d, se, wr);
      if (i == o->own_src && i >= 0) continue;
      if (i < 0 || !(d->src[i].flags & OSTIO__LOGSRC_INDEX)) changed = 1;
      else if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               (int64_t)st.st_size != d->src[i].index_size)
        changed = 1;
    }
    closedir(dir);
  }
  return changed;
}

static int log_size(ostio__pl_obj *o, int64_t *size);

static ostio__pl_obj *reg_find(dev_t dev, ino_t ino)
{
  for (ostio__pl_obj *o = reg; o; o = o->next)
    if (o->dev == dev && o->ino == ino) return o;
  return NULL;
}

static void obj_free(ostio__pl_obj *o)
{
  int remove_it = o->unlinked && o->unlinked == getpid();
  if (o->c) {
    ostio__io_fini(&o->io);
    ostio__ctr_close(&o->c, o->writable);
  }
  if (o->d) {
    if (o->wactive && remove_it) {
      ostio__logw_close(&o->w);
      o->wactive = 0;
    }
    if (o->wactive) {
      /* The last close of a process that wrote publishes the size clean,
       * derived from every writer's index with their fingerprint; a record
       * that a later append or a racing closer makes stale is never trusted
       * (logsize.c, docs/containers.md "The size record"). */
      if (ostio__logw_flush(&o->w) == 0) ostio__log_publish_clean(o->d, NULL);
      ostio__clear_error();
      ostio__logw_close(&o->w);
    }
    ostio__log_close(&o->d);
    ostio__logmap_free(&o->map);
    ostio__logres_free(&o->res);
  }
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
  for (ostio__pl_obj *o = reg; o; o = o->next)
    if (o->unlinked && o->unlinked == getpid()) {
      ostio__pl_ctr_remove(o->path);
      o->unlinked = 0;
    }
  pthread_mutex_unlock(&reg_mu);
}

static int obj_new(const char *path, const struct stat *st, ostio__pl_obj **out)
{
  int kind = 0, rc = ostio__ctr_kind_of(path, &kind);
  if (rc < 0) return fail(rc, "not a usable container:", path);
  ostio__pl_obj *o = calloc(1, sizeof *o);
  if (!o || !(o->path = strdup(path))) {
    free(o);
    return -ENOMEM;
  }
  pthread_mutex_init(&o->mu, NULL);
  o->dev = st->st_dev;
  o->ino = st->st_ino;
  o->kind = kind;
  o->own_src = -1;
  o->lockfd = -1;
  o->refs = 1;
  if (kind == OSTIO__CTR_KIND_STRIPED) rc = striped_open(o, 0);
  else if (kind == OSTIO__CTR_KIND_LOG) rc = fail(log_load(path, &o->d, &o->map), "cannot open", path);
  else rc = -EOPNOTSUPP;
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
    if (o->d && !(flags & O_PATH)) rc = log_reload(o); /* a new open sees every writer */
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

/* ---- log writer ---------------------------------------------------------------------- */

/* This process's writer: session = the largest on disk + 1 (a later process
 * wins), writer id = the first free one from OSTIO__LOG_PROCESS_WRITERS
 * (O_EXCL on the log names), both taken at the first write: processes whose
 * first writes race share a session (fcntl locks order them by epoch), a
 * later one gets a larger session; library jobs use ids below that base
 * (their ranks) and claim a session by its writer 0, so neither can take the
 * other's name (docs/containers.md, "The size record of a log container"). */
static int log_writer(ostio__pl_obj *o)
{
  if (o->wactive) return 0;
  int rc = log_reload(o);
  if (rc < 0) return rc;
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  int32_t hd = ostio__log_hostdir_of(host, o->d->m.hostdirs);
  if (o->d->max_session == UINT32_MAX)
    return fail(ostio__fail(OSTIO_ERANGE, "2^32 - 1 write sessions"), "cannot write", o->path);
  uint32_t session = o->d->max_session + 1;
  rc = OSTIO_EEXIST;
  for (uint32_t k = 0; rc == OSTIO_EEXIST && k < 1000000; k++) {
    ostio__logw_init(&o->w, o->d, session, OSTIO__LOG_PROCESS_WRITERS + k, hd);
    if ((rc = ostio__logw_create(&o->w)) == 0) break;
    ostio__logw_close(&o->w);
    if (rc != OSTIO_EEXIST) return fail(rc, "cannot create a writer in", o->path);
    ostio__clear_error();
  }
  if (rc < 0) return fail(rc, "no free writer id in", o->path);
  int at = ostio__log_src_add(o->d, session, o->w.writer, hd);
  if (at < 0) return fail(at, "cannot add a writer to", o->path);
  o->own_src = at;
  o->wactive = 1;
  o->epoch = 0;
  /* A clean size record would let readers skip the indexes: say "open". */
  ostio__sizerec r;
  if (ostio__sizerec_read(o->d->dirfd, o->path, &r) == 0 && r.clean)
    ostio__sizerec_write(o->d->dirfd, o->path, &(ostio__sizerec){.clean = 0, .size = r.size});
  ostio__clear_error();
  return 0;
}

static int log_own_to_map(ostio__pl_obj *o);

/* In a forked tree: the record to the index now, and the count up. */
static int publish(ostio__pl_obj *o)
{
  if (!ostio__pl_forked || !fork_gen) return 0;
  int rc = ostio__logw_flush(&o->w);
  if (rc == 0) rc = log_own_to_map(o);
  if (rc == 0 && __atomic_fetch_add(fork_gen, 1, __ATOMIC_ACQ_REL) == o->seen_gen)
    o->seen_gen++; /* else another process wrote meanwhile: the next read rereads */
  return fail(rc, "cannot flush", o->path);
}

static uint64_t log_seq(const ostio__pl_obj *o)
{
  return (uint64_t)o->w.session << 32 | o->epoch;
}

/* Under a lock, what this process writes next must win over everything
 * published before: the epoch goes past the largest seq of our session; a
 * larger session on disk (a process that started writing later) makes this
 * process claim a new writer (session = largest + 1) at its next write. */
static void log_order_after_all(ostio__pl_obj *o)
{
  uint64_t mx = 0;
  for (size_t i = 0; i < o->map.n; i++)
    if (o->map.e[i].r.seq > mx) mx = o->map.e[i].r.seq;
  if (!o->wactive || mx < log_seq(o)) return;
  if ((mx >> 32) == o->w.session && (uint32_t)mx < UINT32_MAX) {
    o->epoch = (uint32_t)mx + 1;
    return;
  }
  if (ostio__logw_flush(&o->w) == 0) log_own_to_map(o);
  ostio__logw_close(&o->w);
  o->wactive = 0;
  o->epoch = 0;
}

/* This writer's appended records into the map. */
static int log_own_to_map(ostio__pl_obj *o)
{
  if (!o->wactive || o->w.nfresh == 0) return 0;
  for (size_t i = 0; i < o->w.nfresh; i++) o->w.fresh[i].src = o->own_src;
  int rc = ostio__logmap_add(&o->map, o->w.fresh, o->w.nfresh);
  o->w.nfresh = 0;
  return rc;
}

static int log_size(ostio__pl_obj *o, int64_t *size)
{
  int rc = log_own_to_map(o);
  if (rc == 0 && o->map.nsorted < o->map.n) rc = ostio__logmap_build(&o->map);
  if (rc < 0) return fail(rc, "cannot index", o->path);
  int64_t s = o->map.size;
  if (o->wactive && o->w.comp.pending && ostio__logrec_end(&o->w.comp.rec) > s)
    s = ostio__logrec_end(&o->w.comp.rec);
  *size = s;
  return 0;
}

/* ---- data ---------------------------------------------------------------------------- */

static int obj_size_locked(ostio__pl_obj *o, int64_t *size)
{
  if (o->d && ostio__pl_forked && gen_now() != o->seen_gen) {
    o->seen_gen = gen_now(); /* another process of the tree wrote: reread */
    int rc = log_reload(o);
    if (rc < 0) return rc;
  }
  if (o->d) return log_size(o, size);
  int rc = ostio__ctr_size(o->c, size, NULL);
  if (rc == 0) o->size_hint = *size;
  return fail(rc, "cannot size", o->path);
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
  int64_t size = 0;
  int rc = 0;
  pthread_mutex_lock(&o->mu);
  if (o->c && off + (int64_t)len <= o->size_hint) size = o->size_hint;
  else rc = obj_size_locked(o, &size);
  if (rc == 0 && off < size) {
    if ((int64_t)len > size - off) len = (size_t)(size - off);
    if (o->c) {
      rc = fail(ostio__io_pread(&o->io, buf, len, off), "cannot read", o->path);
    } else {
      ostio__logent pend;
      size_t np = 0;
      if (o->wactive && o->w.comp.pending) {
        pend = (ostio__logent){.r = o->w.comp.rec, .idx = o->w.nrec, .src = o->own_src};
        np = 1;
      }
      rc = fail(ostio__log_read_x(o->d, &o->map, &pend, np, &o->res, off, (int64_t)len, buf),
                "cannot read", o->path);
    }
  } else if (rc == 0) {
    len = 0;
  }
  pthread_mutex_unlock(&o->mu);
  return rc < 0 ? rc : (ssize_t)len;
}

static int make_writable(ostio__pl_obj *o)
{
  if (o->d) return log_writer(o);
  if (o->writable) return 0;
  return striped_open(o, 1);
}

ssize_t ostio__pl_obj_pwrite(ostio__pl_obj *o, const void *buf, size_t len, int64_t off,
                             int append, int64_t *endoff)
{
  pthread_mutex_lock(&o->mu);
  int rc = make_writable(o);
  int64_t size;
  if (rc == 0 && append && (rc = obj_size_locked(o, &size)) == 0) off = size;
  if (rc == 0 && len > 0) {
    if (o->d) rc = ostio__logw_write(&o->w, log_seq(o), off, buf, (int64_t)len);
    else rc = ostio__io_pwrite(&o->io, buf, len, off);
    rc = fail(rc, "cannot write", o->path);
    if (rc == 0 && o->c && off + (int64_t)len > o->size_hint) o->size_hint = off + (int64_t)len;
    if (rc == 0 && o->d) rc = publish(o);
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
  if (rc == 0 && o->d) {
    ostio__logrec t = {.type = OSTIO__LOGREC_TRUNC, .writer = o->w.writer, .seq = log_seq(o),
                       .lstart = size};
    rc = fail(ostio__logw_append(&o->w, &t), "cannot truncate", o->path);
    if (rc == 0) rc = fail(log_own_to_map(o), "cannot index", o->path);
    if (rc == 0) rc = publish(o);
  } else if (rc == 0) {
    rc = fail(ostio__ctr_set_size(o->c, size), "cannot truncate", o->path);
    if (rc == 0) o->size_hint = size;
  }
  pthread_mutex_unlock(&o->mu);
  return rc;
}

int ostio__pl_obj_sync(ostio__pl_obj *o)
{
  int rc = 0;
  pthread_mutex_lock(&o->mu);
  if (o->d && o->wactive) rc = ostio__logw_sync(&o->w);
  else if (o->c) rc = ostio__ctr_sync(o->c);
  rc = fail(rc, "cannot sync", o->path);
  if (rc == 0 && o->d) rc = log_reload(o); /* and see what the others published */
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
    if (o->d && o->wactive) rc = ostio__logw_flush(&o->w); /* publish, then let go */
    rc = fail(rc, "cannot flush", o->path);
    if (o->nlocks > 0 && --o->nlocks == 0 && fd >= 0) flock(fd, LOCK_UN);
    pthread_mutex_unlock(&o->mu);
    return rc;
  }
  pthread_mutex_unlock(&o->mu);
  if (fd >= 0 && flock(fd, (type == F_WRLCK ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)) < 0)
    return errno == EWOULDBLOCK ? -EAGAIN : -errno;
  pthread_mutex_lock(&o->mu);
  o->nlocks++;
  if (o->d) rc = log_reload(o); /* see what the previous holder published */
  if (rc == 0 && o->d) log_order_after_all(o);
  else o->size_hint = 0;
  pthread_mutex_unlock(&o->mu);
  return rc;
}

/* ---- fork ----------------------------------------------------------------------------- */

void ostio__pl_obj_flush_all(void)
{
  pthread_mutex_lock(&reg_mu);
  for (ostio__pl_obj *o = reg; o; o = o->next) {
    pthread_mutex_lock(&o->mu);
    if (o->d && o->wactive) ostio__logw_flush(&o->w);
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
      if (o->d && o->wactive && ostio__logw_flush(&o->w) == 0) log_own_to_map(o);
    }
    return;
  }
  if (fork_gen) ostio__pl_forked = 1;
  for (ostio__pl_obj *o = reg; o; o = o->next) {
    o->seen_gen = gen_now();
    if (phase == 2 && o->d && o->wactive) { /* the child writes as its own writer */
      ostio__logw_close(&o->w);
      o->wactive = 0;
    }
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
  if (o->d && log_changed(o)) rc = log_reload(o);
  if (rc == 0) rc = obj_size_locked(o, &size);
  if (rc == 0 && fstat(ostio__pl_obj_dirfd(o), st) < 0) rc = -errno;
  if (rc == 0 && o->c) {
    for (int32_t i = 0; i < o->c->m.nobjects; i++) {
      struct stat os;
      if (fstat(o->c->fd[i], &os) == 0) bytes += (int64_t)os.st_blocks * 512;
    }
  } else if (rc == 0) {
    for (size_t i = 0; i < o->d->nsrc; i++)
      if ((int32_t)i != o->own_src) bytes += o->d->src[i].data_size;
    if (o->wactive) bytes += o->w.dend;
  }
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
