/* Process ops of the log kind (store.h): one process serving a log
 * container by itself (libostio-preload.so), with one writer identity per
 * process, claimed at its first write. Other processes' appends are seen
 * by rereading the index logs: at a new open, after a lock, a sync, a fork
 * sibling's write, or when a stat finds an index log that changed. No MPI.
 * See docs/containers.md, "The size record of a log container". */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/log/log.h"
#include "container/log/log_stage.h"
#include "container/store.h"
#include "core/error.h"
#include "hints/hints.h"

typedef struct log_store {
  ostio__store base;
  ostio__logdir *d;
  ostio__logmap map;
  ostio__logres res;
  ostio__logw w;
  int wactive;               /* this process has a writer identity               */
  int32_t own_src;           /* its index in d->src (-1 none)                     */
  uint32_t epoch;            /* of this writer's records (raised under locks)     */
  int sdirfd;                /* ostio_stage_dir: the writer's stage directory, or -1 */
  char *key;                 /* the path at open: stage leaves derive from it, renamed or not */
  char *stage_dir;           /* its path (docs/staging.md)                        */
} log_store;

static log_store *of(ostio__store *s) { return (log_store *)s; }

/* One hostdir and one writer per process: the preload knows no ranks. */
static int create(const char *path, const struct ostio__hints *h, int excl)
{
  ostio__ctr_params p;
  int created = 0;
  (void)h;
  memset(&p, 0, sizeof p);
  p.kind = &ostio__ctr_log;
  p.hostdirs = 1;
  p.writers = OSTIO__LOG_WRITERS_RANK;
  snprintf(p.requested, sizeof p.requested, "hostdirs=1 writers=rank (libostio-preload)");
  return ostio__ctr_create(path, &p, excl, &created);
}

/* dirfd >= 0 (a reload): the directory the store has open, whatever its
 * name is now (another thread or process may rename it at any time); path
 * is then its name for messages. key: the name stage leaves derive from.
 * sdirfd >= 0: this process's staged writer (session, writer) is read from
 * the stage directory it holds, not found again through its record (the
 * container may have been renamed since). */
static int load(int dirfd, const char *path, const char *key, int sdirfd, uint32_t session,
                uint32_t writer, ostio__logdir **dp, ostio__logmap *map)
{
  ostio__logload st;
  memset(&st, 0, sizeof st);
  ostio__logmap_init(map);
  int rc = dirfd >= 0 ? ostio__log_open_fd(dirfd, path, NULL, 0, dp)
                      : ostio__log_open(path, NULL, 0, dp);
  if (rc == 0) {
    (*dp)->stage_key = key;
    rc = ostio__log_scan(*dp);
  }
  if (rc == 0 && sdirfd >= 0)
    rc = ostio__stage_mark(*dp, ostio__log_src_find(*dp, session, writer),
                           ostio__stage_host_hash(ostio__stage_self()), sdirfd);
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
static int lg_reload(ostio__store *s)
{
  log_store *l = of(s);
  ostio__logdir *d = NULL;
  ostio__logmap map;
  if (l->wactive) {
    int rc = ostio__logw_flush(&l->w);
    if (rc < 0) return rc;
  }
  int staged = l->wactive && l->sdirfd >= 0;
  int rc = load(l->d->dirfd, s->path, l->key, staged ? l->sdirfd : -1, l->w.session,
                l->w.writer, &d, &map);
  if (rc < 0) return rc;
  if (l->wactive) {
    l->w.d = d;
    l->w.nfresh = 0;
    l->own_src = ostio__log_src_find(d, l->w.session, l->w.writer);
  }
  ostio__log_close(&l->d);
  ostio__logmap_free(&l->map);
  l->d = d;
  l->map = map;
  return 0;
}

/* Did another process publish since the indexes were read? Each hostdir is
 * listed (O_NOATIME, by the preload's open wrapper): an index log that is
 * new, or whose size differs from the listing the load used, says yes. Our
 * own index (we know what we appended) does not count. One open, a listing
 * and one fstatat per index log: cheap next to a reload. */
static int lg_changed(ostio__store *s)
{
  log_store *l = of(s);
  ostio__logdir *d = l->d;
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
      if (i == l->own_src && i >= 0) continue;
      if (i < 0 || !(d->src[i].flags & OSTIO__LOGSRC_INDEX)) changed = 1;
      else if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               (int64_t)st.st_size != d->src[i].index_size)
        changed = 1;
    }
    closedir(dir);
  }
  return changed;
}

static int lg_open(const char *path, ostio__store **out)
{
  log_store *l = calloc(1, sizeof *l);
  if (!l) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  l->base.ops = &ostio__store_log;
  l->base.path = path;
  l->own_src = -1;
  l->sdirfd = -1;
  char abs[PATH_MAX]; /* canonical now: a later rename leaves no name to resolve */
  l->key = strdup(realpath(path, abs) ? abs : path);
  int rc = l->key ? load(-1, path, l->key, -1, 0, 0, &l->d, &l->map)
                  : ostio__fail(OSTIO_ENOMEM, "out of memory");
  if (rc < 0) {
    free(l->key);
    free(l);
    return rc;
  }
  *out = &l->base;
  return 0;
}

/* A staged writer's end (docs/staging.md): the complete drain at the last
 * close (a process has no compute phase to hide it behind), then the
 * record and the staged logs go; on removal only the staged logs. A failed
 * drain leaves the writer staged: `ostio container check` names it and
 * `ostio stage drain` finishes it. */
/* Lets go of the writer's stage directory (its fd and path), leaving the
 * directory and its files as they are. */
static void drop_stage(log_store *l)
{
  if (l->sdirfd >= 0) close(l->sdirfd);
  l->sdirfd = -1;
  free(l->stage_dir);
  l->stage_dir = NULL;
}

static void unstage(log_store *l, int removing)
{
  if (l->sdirfd < 0) return;
  ostio__drainw st = {0};
  if (!removing)
    ostio__stage_drain_finish(l->d, l->w.hostdir, l->w.session, l->w.writer, l->sdirfd,
                              l->stage_dir, &st, NULL, NULL);
  else if (ostio__stage_discard(l->d->path, l->w.session, l->w.writer, l->sdirfd) == 0)
    rmdir(l->stage_dir); /* the last writer of the session's: empty now */
  ostio__clear_error();
  drop_stage(l);
}

/* This process's staged writer, when its staged logs are gone (the stage
 * directory removed under it): every byte and record it wrote is copied
 * from its open logs into the container (ostio__stage_rescue, which also
 * removes its record and points the writer at the container's logs); the
 * store then goes on unstaged: its own src is read from the container, the
 * reloads no longer mark it staged, the close has nothing to drain.
 * Returns 1 when it rescued, 0 when there was nothing to do, <0 on error
 * (the writer then stays staged). */
static int rescue(log_store *l)
{
  if (!l->wactive || l->sdirfd < 0) return 0;
  int rc = ostio__stage_rescue(&l->w, NULL);
  if (rc != 1) return rc;
  ostio__stage_unmark(l->d, l->own_src);
  rmdir(l->stage_dir); /* removed already, or the session's others keep it */
  drop_stage(l);
  return 1;
}

static void lg_close(ostio__store *s, int removing)
{
  log_store *l = of(s);
  if (l->wactive && removing) {
    ostio__logw_close(&l->w);
    unstage(l, 1);
    l->wactive = 0;
  }
  if (l->wactive && l->sdirfd >= 0) { /* staged: drained before the size is published */
    int ok = ostio__logw_flush(&l->w) == 0;
    if (ok) ok = rescue(l) >= 0; /* its stage directory removed: unstaged now */
    if (l->sdirfd >= 0) {
      ostio__logw_close(&l->w);
      if (ok) unstage(l, 0);
      else drop_stage(l);
    }
  }
  free(l->stage_dir);
  if (l->wactive) {
    /* The last close of a process that wrote publishes the size clean,
     * derived from every writer's index with their fingerprint; a record
     * that a later append or a racing closer makes stale is never trusted
     * (logsize.c, docs/containers.md "The size record"). */
    if (ostio__logw_flush(&l->w) == 0) ostio__log_publish_clean(l->d, NULL);
    ostio__clear_error();
    ostio__logw_close(&l->w);
  }
  ostio__log_close(&l->d);
  ostio__logmap_free(&l->map);
  ostio__logres_free(&l->res);
  free(l->key);
  free(l);
}

static int lg_dirfd(const ostio__store *s) { return ((const log_store *)s)->d->dirfd; }

/* With ostio_stage_dir (OSTIO_HINTS for the path): the writer just claimed
 * in the container (its empty logs there are the drain's targets) writes
 * to a node-local stage directory instead; its reads use the staged logs
 * (docs/staging.md). The drain is at the last close. */
static int stage(log_store *l, uint32_t session, int32_t hd, int at)
{
  ostio__hints h;
  int rc = ostio__hints_resolve_env(l->base.path, &h);
  if (rc < 0 || !ostio__hints_stage_dir(&h)) return rc;
  char dir[OSTIO__STAGE_DIR_MAX];
  uint32_t writer = l->w.writer;
  /* The staged logs are made here, at once. Processes of one session share
   * the stage directory, and the last one to finish removes it (rmdir, when
   * empty): between our mkdir and our first file it may be removed under
   * us (seen in test_log_concurrent with staging: dd failing ENOENT). Then
   * it is made again; once our logs are in it, no rmdir can succeed. */
  for (int attempt = 0;; attempt++) {
    int fd = -1;
    if ((rc = ostio__stage_dir_open(h.ostio_stage_dir, l->key, session, dir, sizeof dir,
                                    &fd)) < 0)
      return rc;
    free(l->stage_dir);
    if (!(l->stage_dir = strdup(dir))) {
      close(fd);
      return ostio__fail(OSTIO_ENOMEM, "out of memory");
    }
    l->sdirfd = fd;
    ostio__logw_close(&l->w);
    ostio__logw_init(&l->w, l->d, session, writer, hd);
    ostio__logw_stage(&l->w, l->sdirfd, l->stage_dir, ostio__stage_self());
    if ((rc = ostio__logw_create(&l->w)) == 0) break;
    struct stat st;
    int removed = fstat(fd, &st) == 0 && st.st_nlink == 0;
    ostio__logw_close(&l->w);
    close(fd);
    l->sdirfd = -1;
    if (!removed || attempt == 7) return rc;
    ostio__clear_error();
  }
  return ostio__stage_mark(l->d, at, ostio__stage_host_hash(ostio__stage_self()), l->sdirfd);
}

/* This process's writer: session = the largest on disk + 1 (a later process
 * wins), writer id = the first free one from OSTIO__LOG_PROCESS_WRITERS
 * (O_EXCL on the log names), both taken at the first write: processes whose
 * first writes race share a session (fcntl locks order them by epoch), a
 * later one gets a larger session; library jobs use ids below that base
 * (their ranks) and claim a session by its writer 0, so neither can take the
 * other's name (docs/containers.md, "The size record of a log container"). */
static int lg_writable(ostio__store *s)
{
  log_store *l = of(s);
  if (l->wactive) return 0;
  int rc = lg_reload(s);
  if (rc < 0) return rc;
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  int32_t hd = ostio__log_hostdir_of(host, l->d->m.hostdirs);
  if (l->d->max_session == UINT32_MAX)
    return ostio__fail(OSTIO_ERANGE, "%s: 2^32 - 1 write sessions", s->path);
  uint32_t session = l->d->max_session + 1;
  rc = OSTIO_EEXIST;
  for (uint32_t k = 0; rc == OSTIO_EEXIST && k < 1000000; k++) {
    ostio__logw_init(&l->w, l->d, session, OSTIO__LOG_PROCESS_WRITERS + k, hd);
    if ((rc = ostio__logw_create(&l->w)) == 0) break;
    ostio__logw_close(&l->w);
    if (rc != OSTIO_EEXIST) return rc;
    ostio__clear_error();
  }
  if (rc < 0) return ostio__fail(rc, "%s: no free writer id", s->path);
  int at = ostio__log_src_add(l->d, session, l->w.writer, hd);
  if (at < 0) return at;
  l->own_src = at;
  if ((rc = stage(l, session, hd, at)) < 0) {
    ostio__logw_close(&l->w);
    return rc;
  }
  l->wactive = 1;
  l->epoch = 0;
  /* Say "open" (information: the index log just made already makes a clean
   * record stale, so it is not fsync'ed; docs/containers.md). */
  ostio__sizerec r;
  if (ostio__sizerec_read(l->d->dirfd, s->path, &r) == 0 && r.clean)
    ostio__sizerec_write_light(l->d->dirfd, s->path,
                               &(ostio__sizerec){.clean = 0, .size = r.size});
  ostio__clear_error();
  return 0;
}

static uint64_t seq_of(const log_store *l) { return (uint64_t)l->w.session << 32 | l->epoch; }

/* This writer's appended records into the map. */
static int own_to_map(log_store *l)
{
  if (!l->wactive || l->w.nfresh == 0) return 0;
  for (size_t i = 0; i < l->w.nfresh; i++) l->w.fresh[i].src = l->own_src;
  int rc = ostio__logmap_add(&l->map, l->w.fresh, l->w.nfresh);
  l->w.nfresh = 0;
  return rc;
}

/* The pending record to the index log, and into the map. */
static int lg_flush(ostio__store *s)
{
  log_store *l = of(s);
  if (!l->wactive) return 0;
  int rc = ostio__logw_flush(&l->w);
  return rc < 0 ? rc : own_to_map(l);
}

static int lg_size(ostio__store *s, int64_t *size)
{
  log_store *l = of(s);
  int rc = own_to_map(l);
  if (rc == 0 && l->map.nsorted < l->map.n) rc = ostio__logmap_build(&l->map);
  if (rc < 0) return rc;
  int64_t sz = l->map.size;
  if (l->wactive && l->w.comp.pending && ostio__logrec_end(&l->w.comp.rec) > sz)
    sz = ostio__logrec_end(&l->w.comp.rec);
  *size = sz;
  return 0;
}

static int lg_pread(ostio__store *s, void *buf, size_t len, int64_t off, size_t *got)
{
  log_store *l = of(s);
  int64_t size = 0;
  *got = 0;
  int rc = lg_size(s, &size);
  if (rc < 0 || off >= size) return rc;
  if ((int64_t)len > size - off) len = (size_t)(size - off);
  ostio__logent pend;
  size_t np = 0;
  if (l->wactive && l->w.comp.pending) { /* our pending record wins over the map */
    pend = (ostio__logent){.r = l->w.comp.rec, .idx = l->w.nrec, .src = l->own_src};
    np = 1;
  }
  rc = ostio__log_read_x(l->d, &l->map, &pend, np, &l->res, off, (int64_t)len, buf);
  if (rc == OSTIO_ESTAGED && rescue(l) == 1) { /* its own staged logs removed: rescued */
    ostio__clear_error();
    return lg_pread(s, buf, len, off, got); /* once: unstaged now (its pending record flushed) */
  }
  if (rc == 0) *got = len;
  return rc;
}

static int lg_pwrite(ostio__store *s, const void *buf, size_t len, int64_t off)
{
  log_store *l = of(s);
  return ostio__logw_write(&l->w, seq_of(l), off, buf, (int64_t)len);
}

static int lg_truncate(ostio__store *s, int64_t size)
{
  log_store *l = of(s);
  ostio__logrec t = {.type = OSTIO__LOGREC_TRUNC, .writer = l->w.writer, .seq = seq_of(l),
                     .lstart = size};
  int rc = ostio__logw_append(&l->w, &t);
  return rc < 0 ? rc : own_to_map(l);
}

static int lg_locked(ostio__store *s);

static int lg_sync(ostio__store *s)
{
  log_store *l = of(s);
  int rc = l->wactive ? ostio__logw_sync(&l->w) : 0;
  /* Its stage directory removed: rescued, unstaged from now on. */
  if (rc == 0 && (rc = rescue(l)) > 0) rc = 0;
  if (rc == 0 && l->wactive && l->sdirfd >= 0) { /* staged: the container names the ranges */
    ostio__drainw st = {0};
    rc = ostio__stage_drain(l->d, l->w.hostdir, l->w.session, l->w.writer, l->sdirfd, 1, &st,
                            NULL, NULL);
    /* Removed between the rescue's look and the drain: rescued now. */
    if (rc == OSTIO_ESTAGED && rescue(l) == 1) {
      ostio__clear_error();
      rc = 0;
    }
  }
  /* See what the others published, and write after it: a write that
   * follows this fsync is newer than everything published before it (the
   * job's side of that order is its ostio_sync, docs/containers.md rule 5). */
  return rc < 0 ? rc : lg_locked(s);
}

/* Every other writer's data log as listed, and ours as written. */
static int lg_bytes(ostio__store *s, int64_t *bytes)
{
  log_store *l = of(s);
  *bytes = 0;
  for (size_t i = 0; i < l->d->nsrc; i++)
    if ((int32_t)i != l->own_src) *bytes += l->d->src[i].data_size;
  if (l->wactive) *bytes += l->w.dend;
  return 0;
}

/* Under a lock, what this process writes next must win over everything
 * published before: the epoch goes past the largest seq of our session; a
 * larger session on disk (a process that started writing later) makes this
 * process claim a new writer (session = largest + 1) at its next write. */
static void order_after_all(log_store *l)
{
  uint64_t mx = 0;
  for (size_t i = 0; i < l->map.n; i++)
    if (l->map.e[i].r.seq > mx) mx = l->map.e[i].r.seq;
  if (!l->wactive || mx < seq_of(l)) return;
  if ((mx >> 32) == l->w.session && (uint32_t)mx < UINT32_MAX) {
    l->epoch = (uint32_t)mx + 1;
    return;
  }
  if (ostio__logw_flush(&l->w) == 0) own_to_map(l);
  rescue(l); /* its stage directory removed: from its open logs, before they close */
  ostio__logw_close(&l->w);
  unstage(l, 0); /* this writer ends: its staged logs go to the container now */
  l->wactive = 0;
  l->epoch = 0;
}

/* See what the previous holder published, then order our next writes. */
static int lg_locked(ostio__store *s)
{
  int rc = lg_reload(s);
  if (rc == 0) order_after_all(of(s));
  return rc;
}

/* Exit or exec with the container still open: a staged writer ends here
 * (its logs drained into the container, the stage record and files gone);
 * the next write, if the process goes on, claims a new writer. */
static void lg_end(ostio__store *s)
{
  log_store *l = of(s);
  if (!l->wactive || l->sdirfd < 0) return;
  if (ostio__logw_flush(&l->w) == 0) own_to_map(l);
  rescue(l); /* its stage directory removed: from the open logs */
  ostio__logw_close(&l->w);
  unstage(l, 0);
  l->wactive = 0;
  l->epoch = 0;
}

static void lg_forked(ostio__store *s)
{
  log_store *l = of(s);
  if (!l->wactive) return;
  ostio__logw_close(&l->w);
  l->wactive = 0;
  drop_stage(l); /* the parent drains its staged writer */
}

const ostio__store_ops ostio__store_log = {
  .version = OSTIO__STORE_VERSION,
  .name = "log",
  .ctr = &ostio__ctr_log,
  .create = create,
  .open = lg_open,
  .close = lg_close,
  .remove = ostio__log_remove,
  .end = lg_end,
  .dirfd = lg_dirfd,
  .writable = lg_writable,
  .size = lg_size,
  .pread = lg_pread,
  .pwrite = lg_pwrite,
  .truncate = lg_truncate,
  .sync = lg_sync,
  .bytes = lg_bytes,
  .reload = lg_reload,
  .changed = lg_changed,
  .flush = lg_flush,
  .locked = lg_locked,
  .forked = lg_forked,
};
