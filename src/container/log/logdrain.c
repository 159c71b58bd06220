/* Node-local staging, on disk (log_stage.h): the drain that copies a
 * writer's staged logs into the container at the same offsets, the rescue
 * of a writer whose stage directory was removed (the same copy from its own
 * open logs), and a drained writer's end. No MPI and no threads here:
 * log/log_file_stage.c runs drains in a node leader's thread, the CLI runs
 * them in its own. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "container/log/log_stage.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fdio.h"

#define CHUNK ((int64_t)4 << 20)           /* bytes per copy step */

/* ---- throttle ------------------------------------------------------------------------- */

void ostio__throttle_init(ostio__throttle *t, int64_t bw, const volatile int *stop)
{
  t->bw = bw > 0 ? bw : 0;
  t->t0 = ostio__now();
  t->bytes = 0;
  t->stop = stop;
}

/* Waits until n more bytes keep the average at or below bw; 1 when stopped. */
static int pace(ostio__throttle *t, int64_t n)
{
  if (!t) return 0;
  for (;;) {
    if (t->stop && *t->stop) return 1;
    if (t->bw <= 0) break;
    double ahead = (double)(t->bytes + n) / (double)t->bw - (ostio__now() - t->t0);
    if (ahead <= 0) break;
    if (ahead > 0.05) ahead = 0.05; /* poll the stop flag */
    struct timespec ts = {0, (long)(ahead * 1e9)};
    nanosleep(&ts, NULL);
  }
  t->bytes += n;
  return 0;
}

/* ---- drain ------------------------------------------------------------------------------ */

static int dfail(const ostio__logdir *d, const char *name, const char *what, int e)
{
  return ostio__fail(ostio__from_errno(e), "%s/%s: %s: %s", d->path, name, what, strerror(e));
}

/* The container's copy of a log, made when missing (*made then). */
static int open_copy(const ostio__logdir *d, int hfd, const char *name, int *made)
{
  int fd = openat(hfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd >= 0) *made = 1;
  else if (errno == EEXIST) fd = openat(hfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
    close(fd);
    return ostio__fail(OSTIO_EFORMAT, "%s: %s is not a regular file with one name: not "
                       "overwritten by the drain", d->path, name);
  }
  return fd >= 0 ? fd : dfail(d, name, "cannot open the drained copy", errno);
}

static int64_t fsize(int fd)
{
  struct stat st;
  return fstat(fd, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* Copies [from, to) of src to dst at the same offsets, paced. 1 when stopped. */
static int copy_range(const ostio__logdir *d, const char *name, int src, int dst, int64_t from,
                      int64_t to, char *buf, ostio__throttle *t, int64_t *copied, int64_t *done)
{
  for (int64_t at = from; at < to;) {
    int64_t n = to - at < CHUNK ? to - at : CHUNK;
    if (pace(t, n)) return 1;
    size_t got = 0;
    int e = ostio__pread_full(src, buf, (size_t)n, at, &got);
    if (e) return dfail(d, name, "cannot read the staged log", e);
    if ((int64_t)got < n)
      return ostio__fail(OSTIO_ESTAGED, "%s: the staged %s ends at %lld bytes, its index "
                         "points to %lld: the stage directory was damaged; the stage record "
                         "stays", d->path, name, (long long)(at + (int64_t)got), (long long)to);
    if ((e = ostio__pwrite_full(dst, buf, (size_t)n, at)))
      return dfail(d, name, "cannot write the drained copy", e);
    at += n;
    if (copied) *copied += n;
    if (done) *done = at;
  }
  return 0;
}

/* Decodes the stage index from st->idx_scanned: the valid records' end
 * (first invalid one: being appended, or damage) and their largest data end. */
static int scan_index(const ostio__logdir *d, int sifd, ostio__drainw *st, char *buf)
{
  int64_t size = fsize(sifd);
  while (st->idx_scanned + OSTIO__LOGREC_SIZE <= size) {
    int64_t n = (size - st->idx_scanned) / OSTIO__LOGREC_SIZE * OSTIO__LOGREC_SIZE;
    if (n > CHUNK) n = CHUNK;
    size_t got = 0;
    int e = ostio__pread_full(sifd, buf, (size_t)n, st->idx_scanned, &got);
    if (e) return dfail(d, "stage index", "cannot read the staged index", e);
    got -= got % OSTIO__LOGREC_SIZE;
    if (got == 0) break;
    for (size_t k = 0; k < got; k += OSTIO__LOGREC_SIZE) {
      ostio__logrec r;
      if (ostio__logrec_decode((const unsigned char *)buf + k, &r) < 0) {
        ostio__clear_error();
        return 0;
      }
      if (r.type == OSTIO__LOGREC_WRITE && ostio__logrec_pend(&r) > st->maxpend)
        st->maxpend = ostio__logrec_pend(&r);
      st->idx_scanned += OSTIO__LOGREC_SIZE;
    }
  }
  return 0;
}

/* A staged writer whose staged logs are missing or shorter than what the
 * container already holds: its stage directory was removed or altered under
 * it. The drain fails (the stage record stays: the writer's bytes that are
 * not drained are unreachable, and reading them is an error). */
static int lost(const ostio__logdir *d, uint32_t session, uint32_t writer, const char *sdir,
                const char *what)
{
  return ostio__fail(OSTIO_ESTAGED, "%s: writer %" PRIu32 " of session %" PRIu32 " is staged "
                     "in %s, but %s (the stage directory was removed or altered while the "
                     "writer was staged): the bytes not drained are unreachable; the stage "
                     "record stays, `ostio container check` names what is lost, `ostio "
                     "container recover` gives it up", d->path, writer, session,
                     sdir ? sdir : "its stage directory", what);
}

/* The drain of one writer from its staged index sifd and staged data sdfd
 * (-1: missing), wherever they come from: the stage directory (the leader's
 * and the CLI's drains) or the writer's own open logs (ostio__stage_rescue).
 * The callers own sifd and sdfd. */
static int drain_fds(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer,
                     int sifd, int sdfd, int index_only, ostio__drainw *st, ostio__throttle *t,
                     int64_t *copied)
{
  char iname[64], dname[64], what[160];
  snprintf(iname, sizeof iname, "index.%" PRIu32 ".%" PRIu32, session, writer);
  snprintf(dname, sizeof dname, "data.%" PRIu32 ".%" PRIu32, session, writer);
  int hfd = -1, pifd = -1, pdfd = -1, made = 0, hmade = 0, rc = 0;
  char *buf = malloc((size_t)CHUNK);
  if (!buf) rc = ostio__fail(OSTIO_ENOMEM, "out of memory for the drain's buffer");
  if (rc == 0) rc = scan_index(d, sifd, st, buf);
  if (rc == 0 && (rc = hfd = ostio__log_hostdir_open(d, hostdir, 1, &hmade)) >= 0) rc = 0;
  if (rc == 0 && (rc = pifd = open_copy(d, hfd, iname, &made)) >= 0) rc = 0;
  /* The index first: the container then names every range staged so far,
   * also while its bytes are still on their way (a lost node's ranges are
   * known). A partial last record from a killed drain is rewritten. */
  if (rc == 0) {
    int64_t have = fsize(pifd) / OSTIO__LOGREC_SIZE * OSTIO__LOGREC_SIZE;
    int64_t staged = fsize(sifd) / OSTIO__LOGREC_SIZE * OSTIO__LOGREC_SIZE;
    if (staged < have) {
      snprintf(what, sizeof what, "its staged index holds %lld bytes, the container's copy "
               "%lld", (long long)staged, (long long)have);
      rc = lost(d, session, writer, st->dir, what);
    }
    if (rc == 0 && have < st->idx_scanned)
      rc = copy_range(d, iname, sifd, pifd, have, st->idx_scanned, buf, NULL, NULL, NULL);
    if (rc == 0 && fdatasync(pifd) < 0) rc = dfail(d, iname, "fdatasync", errno);
  }
  if (rc == 0 && !index_only) {
    if ((rc = pdfd = open_copy(d, hfd, dname, &made)) >= 0) rc = 0;
    int64_t end = sdfd >= 0 ? fsize(sdfd) : 0, have = rc == 0 ? fsize(pdfd) : 0;
    if (rc == 0 && (end < have || (sdfd < 0 && st->maxpend > 0))) {
      snprintf(what, sizeof what, sdfd < 0 ? "its staged data log is missing" : "its staged "
               "data log holds %lld bytes, the container's copy %lld", (long long)end,
               (long long)have);
      rc = lost(d, session, writer, st->dir, what);
    }
    if (rc == 0 && st->drained == 0) {
      /* Resuming (a new process): the container's tail may be a killed
       * drain's partial write; copy its last chunk again. */
      int64_t from = have / CHUNK * CHUNK - CHUNK;
      st->drained = from > 0 ? from : 0;
    }
    /* Up to the staged log's size, indexed or not: a data log is append-only
     * and the bytes below its size are written (the size grows after the
     * bytes), so a checkpoint of write_at calls drains before any record
     * reaches the index (records come at flush points). */
    if (end < st->maxpend) end = st->maxpend; /* short: copy_range names the damage */
    if (rc == 0 && st->drained < end && sdfd >= 0)
      rc = copy_range(d, dname, sdfd, pdfd, st->drained, end, buf, t, copied, &st->drained);
    if (rc >= 0 && fdatasync(pdfd) < 0) rc = dfail(d, dname, "fdatasync", errno);
  }
  if (rc >= 0 && made && fsync(hfd) < 0) rc = dfail(d, "hostdir", "fsync", errno);
  if (rc >= 0 && hmade && fsync(d->dirfd) < 0) rc = dfail(d, ".", "fsync", errno);
  int fds[3] = {hfd, pifd, pdfd};
  for (int k = 0; k < 3; k++)
    if (fds[k] >= 0) close(fds[k]);
  free(buf);
  return rc;
}

int ostio__stage_drain(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer,
                       int sdirfd, int index_only, ostio__drainw *st, ostio__throttle *t,
                       int64_t *copied)
{
  char iname[64], dname[64], rname[64];
  snprintf(iname, sizeof iname, "index.%" PRIu32 ".%" PRIu32, session, writer);
  snprintf(dname, sizeof dname, "data.%" PRIu32 ".%" PRIu32, session, writer);
  ostio__stage_rec_name(rname, sizeof rname, session, writer);
  int made = 0, rc = 0;
  int sifd = openat(sdirfd, iname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (sifd < 0 && errno != ENOENT) return dfail(d, iname, "cannot open the staged index", errno);
  if (sifd < 0) {
    /* No staged index: a writer that never wrote (no record either), one
     * whose stage directory went (its record says it was made: the writer
     * makes its staged logs before its record), or one rescued by its own
     * process (ostio__stage_rescue: its record went first). */
    struct stat rs;
    int hfd = ostio__log_hostdir_open(d, hostdir, 0, &made);
    ostio__clear_error();
    rc = hfd >= 0 && fstatat(hfd, rname, &rs, AT_SYMLINK_NOFOLLOW) == 0
           ? lost(d, session, writer, st->dir, "its staged index is missing") : 0;
    if (hfd >= 0) close(hfd);
    return rc;
  }
  int sdfd = -1;
  if (!index_only && (sdfd = openat(sdirfd, dname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 &&
      errno != ENOENT)
    rc = dfail(d, dname, "cannot open the staged data", errno);
  if (rc == 0)
    rc = drain_fds(d, hostdir, session, writer, sifd, sdfd, index_only, st, t, copied);
  close(sifd);
  if (sdfd >= 0) close(sdfd);
  return rc;
}

/* 1 when name in dirfd is not the file open on fd (removed, or another
 * file under that name), 0 when it is, <0 when that cannot be told. */
static int not_there(int dirfd, const char *name, int fd)
{
  struct stat a, b;
  if (fstat(fd, &a) < 0) return -1;
  if (fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0) return errno == ENOENT ? 1 : -1;
  return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

int ostio__stage_rescue(ostio__logw *w, int64_t *copied)
{
  char iname[64], dname[64], what[200];
  if (w->sdirfd < 0 || w->dfd < 0 || w->ifd < 0) return 0; /* not staged, or never wrote */
  ostio__logdir *d = w->d;
  snprintf(iname, sizeof iname, "index.%" PRIu32 ".%" PRIu32, w->session, w->writer);
  snprintf(dname, sizeof dname, "data.%" PRIu32 ".%" PRIu32, w->session, w->writer);
  int gi = not_there(w->sdirfd, iname, w->ifd), gd = not_there(w->sdirfd, dname, w->dfd);
  if (gi == 0 && gd == 0) return 0; /* there: the node's drain copies them */
  /* Gone (or unknowable: rescue all the same, the copies are idempotent).
   * The writer's own open logs hold every byte and record it wrote: the
   * drain's copy from them, to the same offsets; then the writer is
   * finished (record, staged names) and goes on in the container's logs. */
  ostio__drainw st = {.dir = w->stage_dir};
  int64_t got = 0;
  int rc = ostio__logw_flush(w);
  if (rc == 0)
    rc = drain_fds(d, w->hostdir, w->session, w->writer, w->ifd, w->dfd, 0, &st, NULL, &got);
  int pifd = -1, pdfd = -1;
  if (rc == 0) {
    pifd = openat(w->hfd, iname, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    pdfd = openat(w->hfd, dname, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (pifd < 0 || pdfd < 0) rc = dfail(d, pifd < 0 ? iname : dname, "cannot open the "
                                          "container's copy after the rescue", errno);
  }
  if (rc == 0 && (fsize(pifd) != w->iend || fsize(pdfd) != w->dend)) {
    snprintf(what, sizeof what, "after the copy from the writer's open logs, the container's "
             "copies hold %lld index and %lld data bytes, the writer wrote %lld and %lld",
             (long long)fsize(pifd), (long long)fsize(pdfd), (long long)w->iend,
             (long long)w->dend);
    rc = lost(d, w->session, w->writer, w->stage_dir, what);
  }
  if (rc == 0) rc = ostio__stage_unrecord(d, w->hostdir, w->session, w->writer);
  if (rc == 0) rc = ostio__stage_discard(d->path, w->session, w->writer, w->sdirfd);
  if (rc < 0) {
    if (pifd >= 0) close(pifd);
    if (pdfd >= 0) close(pdfd);
    return rc;
  }
  close(w->ifd);
  close(w->dfd);
  w->ifd = pifd;
  w->dfd = pdfd;
  w->sdirfd = -1;
  w->stage_dir = w->stage_host = NULL;
  if (copied) *copied += got;
  return 1;
}

int ostio__stage_unrecord(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer)
{
  char name[64];
  int made = 0, rc = 0, hfd = ostio__log_hostdir_open(d, hostdir, 1, &made);
  if (hfd < 0) return hfd;
  ostio__stage_rec_name(name, sizeof name, session, writer);
  if (unlinkat(hfd, name, 0) < 0 && errno != ENOENT) rc = dfail(d, name, "cannot remove", errno);
  else if (fsync(hfd) < 0) rc = dfail(d, "hostdir", "fsync", errno);
  close(hfd);
  return rc;
}

int ostio__stage_discard(const char *ctr, uint32_t session, uint32_t writer, int sdirfd)
{
  const char *kinds[2] = {"data", "index"};
  for (int k = 0; k < 2; k++) {
    char name[64];
    snprintf(name, sizeof name, "%s.%" PRIu32 ".%" PRIu32, kinds[k], session, writer);
    if (unlinkat(sdirfd, name, 0) < 0 && errno != ENOENT)
      return ostio__fail(ostio__from_errno(errno), "%s: cannot remove the staged log %s: %s",
                         ctr, name, strerror(errno));
  }
  return 0;
}

int ostio__stage_drain_finish(ostio__logdir *d, int32_t hostdir, uint32_t session,
                              uint32_t writer, int sdirfd, const char *sdir, ostio__drainw *st,
                              ostio__throttle *t, int64_t *copied)
{
  st->dir = sdir;
  int rc = ostio__stage_drain(d, hostdir, session, writer, sdirfd, 0, st, t, copied);
  if (rc == 0) rc = ostio__stage_unrecord(d, hostdir, session, writer);
  if (rc == 0) rc = ostio__stage_discard(d->path, session, writer, sdirfd);
  if (rc == 0 && sdir) rmdir(sdir); /* the last writer's: empty now (others keep it) */
  return rc;
}

int ostio__stage_drain_local(ostio__logdir *d, ostio__throttle *t, int64_t *copied,
                             int *drained, int *elsewhere)
{
  int rc = 0;
  if (drained) *drained = 0;
  if (elsewhere) *elsewhere = 0;
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (!(s->flags & OSTIO__LOGSRC_STAGED)) continue;
    int sfd = ostio__stage_local_fd(d, i);
    if (sfd < 0) {
      if (elsewhere) ++*elsewhere;
      continue;
    }
    ostio__drainw st = {0};
    ostio__stagerec r;
    if ((rc = ostio__stage_rec_read(d, i, &r)) < 0) break;
    rc = ostio__stage_drain_finish(d, s->hostdir, s->session, s->writer, sfd, r.dir, &st, t,
                                   copied);
    if (rc == 1) return 1;
    if (rc == OSTIO_ESTAGED) { /* its staged logs are lost: as if elsewhere (recover) */
      ostio__clear_error();
      if (elsewhere) ++*elsewhere;
      rc = 0;
      continue;
    }
    if (rc == 0 && drained) ++*drained;
  }
  return rc;
}
