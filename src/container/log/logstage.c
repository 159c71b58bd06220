/* Node-local staging, on disk (log_stage.h): stage records, where a
 * writer's staged logs are, and the drain that copies them into the
 * container. No MPI and no threads here: log/log_file_stage.c runs drains
 * in a node leader's thread, the CLI runs them in its own. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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
#define REC_MAGIC "ostio stage 1\n"

/* ---- this node ------------------------------------------------------------------ */

static char self[OSTIO__STAGE_HOST_MAX];

const char *ostio__stage_self(void)
{
  if (!self[0] && (gethostname(self, sizeof self - 1) < 0 || !self[0]))
    snprintf(self, sizeof self, "localhost");
  return self;
}

void ostio__stage_set_self(const char *host)
{
  snprintf(self, sizeof self, "%s", host ? host : "");
}

uint64_t ostio__stage_host_hash(const char *host)
{
  uint64_t h = ostio__fnv1a64(host, strlen(host));
  return h ? h : 1; /* 0 means "unknown" in ostio__logsrc */
}

/* ---- records ------------------------------------------------------------------------ */

void ostio__stage_rec_name(char *buf, size_t cap, uint32_t session, uint32_t writer)
{
  snprintf(buf, cap, "stage.%" PRIu32 ".%" PRIu32, session, writer);
}

static int bad_text(const char *s)
{
  for (; *s; s++)
    if (*s == '\n' || *s == '\r') return 1;
  return 0;
}

int ostio__stage_rec_write(const char *ctr, int hfd, uint32_t session, uint32_t writer,
                           const ostio__stagerec *r)
{
  char name[64], text[OSTIO__STAGE_HOST_MAX + OSTIO__STAGE_DIR_MAX + 64];
  ostio__stage_rec_name(name, sizeof name, session, writer);
  if (bad_text(r->host) || bad_text(r->dir) || r->dir[0] != '/')
    return ostio__fail(OSTIO_EINVAL, "%s: stage directory %s on host %s: an absolute path "
                       "and a host name without line breaks are accepted", ctr, r->dir, r->host);
  int n = snprintf(text, sizeof text, REC_MAGIC "host %s\ndir %s\n", r->host, r->dir);
  int fd = openat(hfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0)
    return ostio__fail(errno == EEXIST ? OSTIO_EEXIST : ostio__from_errno(errno),
                       "%s: cannot create the stage record %s: %s", ctr, name, strerror(errno));
  int e = ostio__write_full(fd, text, (size_t)n);
  if (close(fd) < 0 && !e) e = errno;
  if (e)
    return ostio__fail(ostio__from_errno(e), "%s: cannot write the stage record %s: %s", ctr,
                       name, strerror(e));
  return 0;
}

int ostio__stage_rec_read(ostio__logdir *d, size_t i, ostio__stagerec *r)
{
  const ostio__logsrc *s = &d->src[i];
  char hd[32], name[64], text[sizeof *r + 64];
  snprintf(hd, sizeof hd, "hostdir.%03d", (int)s->hostdir);
  ostio__stage_rec_name(name, sizeof name, s->session, s->writer);
  memset(r, 0, sizeof *r);
  int hfd = openat(d->dirfd, hd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int fd = hfd >= 0 ? openat(hfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) : -1;
  int e = errno;
  if (hfd >= 0) close(hfd);
  if (fd < 0)
    return ostio__fail(e == ENOENT ? OSTIO_ENOENT : ostio__from_errno(e),
                       "%s/%s/%s: cannot open the stage record: %s", d->path, hd, name,
                       strerror(e));
  size_t got = 0;
  e = ostio__pread_full(fd, text, sizeof text - 1, 0, &got);
  close(fd);
  text[got] = 0;
  const char *h = strstr(text, "\nhost "), *p = strstr(text, "\ndir ");
  const char *he = h ? strchr(h + 6, '\n') : NULL, *pe = p ? strchr(p + 5, '\n') : NULL;
  if (e || strncmp(text, REC_MAGIC, strlen(REC_MAGIC)) || !he || !pe ||
      he - (h + 6) >= (ptrdiff_t)sizeof r->host || pe - (p + 5) >= (ptrdiff_t)sizeof r->dir ||
      p[5] != '/')
    return ostio__fail(OSTIO_EFORMAT, "%s/%s/%s: damaged stage record (expected \"ostio stage "
                       "1\", \"host NAME\", \"dir /PATH\" lines): where the writer's staged "
                       "logs are is unknown", d->path, hd, name);
  memcpy(r->host, h + 6, (size_t)(he - (h + 6)));
  memcpy(r->dir, p + 5, (size_t)(pe - (p + 5)));
  return 0;
}

/* ---- stage directories ------------------------------------------------------------ */

static int mkdirs(char *path)
{
  for (char *s = path + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    int r = mkdir(path, 0777);
    *s = '/';
    if (r < 0 && errno != EEXIST) return -1;
  }
  return mkdir(path, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

int ostio__stage_dir_path(const char *base, const char *ctr_path, uint32_t session,
                          char *out, size_t cap, int make)
{
  char abs[PATH_MAX];
  if (!base || base[0] != '/')
    return ostio__fail(OSTIO_EHINT, "ostio_stage_dir=%s: an absolute directory path on a "
                       "node-local file system is accepted", base ? base : "");
  if (!realpath(ctr_path, abs)) snprintf(abs, sizeof abs, "%s", ctr_path);
  uint64_t h = ostio__fnv1a64(abs, strlen(abs));
  int n = snprintf(out, cap, "%s/ostio.%016" PRIx64 ".%" PRIu32, base, h, session);
  if (n < 0 || (size_t)n >= cap || bad_text(out))
    return ostio__fail(OSTIO_EHINT, "ostio_stage_dir=%s: too long (at most %zu bytes with "
                       "the container's part) or has a line break", base, cap - 40);
  if (make && mkdirs(out) < 0)
    return ostio__fail(ostio__from_errno(errno), "ostio_stage_dir: cannot make %s: %s; give a "
                       "writable node-local directory", out, strerror(errno));
  return 0;
}

int ostio__stage_local_fd(ostio__logdir *d, size_t i)
{
  if (i >= d->nsrc || !(d->src[i].flags & OSTIO__LOGSRC_STAGED)) return -1;
  if (d->sfd[i] != -2) return d->sfd[i];
  ostio__stagerec r;
  d->sfd[i] = -1;
  if (d->src[i].stage_host && d->src[i].stage_host != ostio__stage_host_hash(ostio__stage_self()))
    return -1;
  if (ostio__stage_rec_read(d, i, &r) == 0 && !strcmp(r.host, ostio__stage_self()))
    d->sfd[i] = open(r.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d->sfd[i] < 0) d->sfd[i] = -1;
  ostio__clear_error();
  return d->sfd[i];
}

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

/* Opens (making) hostdir HHH of the container; *made when it is new. */
static int open_hostdir(const ostio__logdir *d, int32_t hostdir, int *made)
{
  char hd[32];
  snprintf(hd, sizeof hd, "hostdir.%03d", (int)hostdir);
  if (mkdirat(d->dirfd, hd, 0777) == 0) *made = 1;
  else if (errno != EEXIST) return dfail(d, hd, "cannot make the hostdir", errno);
  int hfd = openat(d->dirfd, hd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return hfd >= 0 ? hfd : dfail(d, hd, "cannot open the hostdir", errno);
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
      return ostio__fail(OSTIO_EFORMAT, "%s: the staged %s ends at %lld bytes, its index "
                         "points to %lld: the stage directory was damaged", d->path, name,
                         (long long)(at + (int64_t)got), (long long)to);
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

int ostio__stage_drain(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer,
                       int sdirfd, int index_only, ostio__drainw *st, ostio__throttle *t,
                       int64_t *copied)
{
  char iname[64], dname[64];
  snprintf(iname, sizeof iname, "index.%" PRIu32 ".%" PRIu32, session, writer);
  snprintf(dname, sizeof dname, "data.%" PRIu32 ".%" PRIu32, session, writer);
  int sifd = openat(sdirfd, iname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (sifd < 0) return errno == ENOENT ? 0 : dfail(d, iname, "cannot open the staged index", errno);
  int sdfd = -1, hfd = -1, pifd = -1, pdfd = -1, made = 0, hmade = 0, rc = 0;
  char *buf = malloc((size_t)CHUNK);
  if (!buf) rc = ostio__fail(OSTIO_ENOMEM, "out of memory for the drain's buffer");
  if (rc == 0) rc = scan_index(d, sifd, st, buf);
  if (rc == 0 && (rc = hfd = open_hostdir(d, hostdir, &hmade)) >= 0) rc = 0;
  if (rc == 0 && (rc = pifd = open_copy(d, hfd, iname, &made)) >= 0) rc = 0;
  /* The index first: the container then names every range staged so far,
   * also while its bytes are still on their way (a lost node's ranges are
   * known). A partial last record from a killed drain is rewritten. */
  if (rc == 0) {
    int64_t have = fsize(pifd) / OSTIO__LOGREC_SIZE * OSTIO__LOGREC_SIZE;
    if (have < st->idx_scanned)
      rc = copy_range(d, iname, sifd, pifd, have, st->idx_scanned, buf, NULL, NULL, NULL);
    if (rc == 0 && fdatasync(pifd) < 0) rc = dfail(d, iname, "fdatasync", errno);
  }
  if (rc == 0 && !index_only) {
    if ((sdfd = openat(sdirfd, dname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
      rc = errno == ENOENT && st->maxpend == 0 ? 0 : dfail(d, dname, "cannot open the staged data", errno);
    if (rc == 0 && (rc = pdfd = open_copy(d, hfd, dname, &made)) >= 0) rc = 0;
    if (rc == 0 && st->drained == 0) {
      /* Resuming (a new process): the container's tail may be a killed
       * drain's partial write; copy its last chunk again. */
      int64_t have = fsize(pdfd) / CHUNK * CHUNK - CHUNK;
      st->drained = have > 0 ? have : 0;
    }
    /* Up to the staged log's size, indexed or not: a data log is append-only
     * and the bytes below its size are written (the size grows after the
     * bytes), so a checkpoint of write_at calls drains before any record
     * reaches the index (records come at flush points). */
    int64_t end = sdfd >= 0 ? fsize(sdfd) : 0;
    if (end < st->maxpend) end = st->maxpend; /* short: copy_range names the damage */
    if (rc == 0 && st->drained < end && sdfd >= 0)
      rc = copy_range(d, dname, sdfd, pdfd, st->drained, end, buf, t, copied, &st->drained);
    if (rc >= 0 && fdatasync(pdfd) < 0) rc = dfail(d, dname, "fdatasync", errno);
  }
  if (rc >= 0 && made && fsync(hfd) < 0) rc = dfail(d, "hostdir", "fsync", errno);
  if (rc >= 0 && hmade && fsync(d->dirfd) < 0) rc = dfail(d, ".", "fsync", errno);
  int fds[5] = {sifd, sdfd, hfd, pifd, pdfd};
  for (int k = 0; k < 5; k++)
    if (fds[k] >= 0) close(fds[k]);
  free(buf);
  return rc;
}

int ostio__stage_finish(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer,
                        int sdirfd)
{
  int rc = ostio__stage_unrecord(d, hostdir, session, writer);
  return rc < 0 ? rc : ostio__stage_discard(d->path, session, writer, sdirfd);
}

int ostio__stage_unrecord(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer)
{
  char name[64];
  int made = 0, rc = 0, hfd = open_hostdir(d, hostdir, &made);
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
    rc = ostio__stage_drain(d, s->hostdir, s->session, s->writer, sfd, 0, &st, t, copied);
    if (rc == 1) return 1;
    if (rc == 0) rc = ostio__stage_finish(d, s->hostdir, s->session, s->writer, sfd);
    if (rc == 0 && drained) ++*drained;
    if (rc == 0) rmdir(r.dir); /* the last writer's: empty now (others keep it) */
  }
  return rc;
}
