/* Log containers on disk: the listing of writer logs, loading index logs
 * (torn tails and damage stop a log's valid prefix), reading through the
 * map, and a writer's two logs (data appended before the record that points
 * at it). No MPI: log/log_file.c adds the collective steps. Every file is opened
 * relative to the container directory, hostdirs with O_NOFOLLOW|O_DIRECTORY
 * and logs with O_NOFOLLOW; names outside the grammar are never opened.
 * See docs/container-format.md. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/log/log.h"
#include "container/log/log_stage.h"
#include "core/error.h"
#include "core/fdio.h"

#define PATH_CAP 4096

static int sys_fail(const char *path, const char *what, int e)
{
  return ostio__fail(ostio__from_errno(e), "%s: %s: %s", path, what, strerror(e));
}

/* ---- names ---------------------------------------------------------------------- */

int32_t ostio__log_hostdir_of(const char *host, int32_t hostdirs)
{
  return (int32_t)(ostio__fnv1a64(host, strlen(host)) % (uint64_t)(hostdirs > 0 ? hostdirs : 1));
}

void ostio__log_name(char *buf, size_t cap, int32_t hostdir, const char *what,
                     uint32_t session, uint32_t writer)
{
  snprintf(buf, cap, "hostdir.%03d/%s.%" PRIu32 ".%" PRIu32, (int)hostdir, what, session,
           writer);
}

/* Strict decimal without leading zeros, at most max. */
static int dec(const char **p, uint64_t max, uint64_t *out)
{
  const char *s = *p;
  uint64_t v = 0;
  if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9')) return -1;
  for (; *s >= '0' && *s <= '9'; s++) {
    v = v * 10 + (uint64_t)(*s - '0');
    if (v > max) return -1;
  }
  *p = s;
  *out = v;
  return 0;
}

int ostio__log_parse_name(const char *name, uint32_t *session, uint32_t *writer)
{
  int kind = !strncmp(name, "data.", 5) ? 1 : !strncmp(name, "index.", 6) ? 2
             : !strncmp(name, "stage.", 6) ? 3 : 0;
  if (!kind) return 0;
  const char *p = name + (kind == 1 ? 5 : 6);
  uint64_t s, w;
  if (dec(&p, UINT32_MAX, &s) < 0 || s == 0 || *p++ != '.' || dec(&p, INT32_MAX, &w) < 0 || *p)
    return 0;
  *session = (uint32_t)s;
  *writer = (uint32_t)w;
  return kind;
}

/* hostdir.NNN with NNN < hostdirs; -1 otherwise. */
static int parse_hostdir(const char *name, int32_t hostdirs)
{
  if (strncmp(name, "hostdir.", 8) || strlen(name) != 11) return -1;
  int v = 0;
  for (int i = 8; i < 11; i++) {
    if (name[i] < '0' || name[i] > '9') return -1;
    v = v * 10 + name[i] - '0';
  }
  return v < hostdirs ? v : -1;
}

/* ---- open, close, the src table ----------------------------------------------------- */

int ostio__log_open(const char *path, const char *text, size_t len, ostio__logdir **out)
{
  int rc = 0;
  *out = NULL;
  ostio__logdir *d = calloc(1, sizeof *d);
  if (!d || !(d->path = strdup(path))) {
    free(d);
    return ostio__fail(OSTIO_ENOMEM, "out of memory");
  }
  if ((rc = ostio__ctr_open_dir(path, text, len, &d->dirfd, &d->m)) < 0) goto done;
  if (d->m.kind != &ostio__ctr_log)
    rc = ostio__fail(OSTIO_EFORMAT, "%s is a %s container, not a log container", path,
                     d->m.kind->name);
done:
  if (rc < 0) ostio__log_close(&d);
  *out = d;
  return rc;
}

int ostio__log_open_fd(int dirfd, const char *path, const char *text, size_t len,
                       ostio__logdir **out)
{
  char via[64];
  snprintf(via, sizeof via, "/proc/self/fd/%d", dirfd);
  int rc = ostio__log_open(via, text, len, out);
  if (rc == OSTIO_ENOENT) { /* no /proc */
    ostio__clear_error();
    return ostio__log_open(path, text, len, out);
  }
  char *name = rc == 0 ? strdup(path) : NULL;
  if (rc == 0 && !name) {
    ostio__log_close(out);
    return ostio__fail(OSTIO_ENOMEM, "out of memory");
  }
  if (rc == 0) {
    free((*out)->path);
    (*out)->path = name;
  }
  return rc;
}

void ostio__log_close(ostio__logdir **dp)
{
  ostio__logdir *d = dp ? *dp : NULL;
  if (!d) return;
  for (size_t i = 0; d->fd && i < d->nsrc; i++)
    if (d->fd[i] >= 0) close(d->fd[i]);
  for (size_t i = 0; d->sfd && i < d->nsrc; i++)
    if (d->sfd[i] >= 0) close(d->sfd[i]);
  free(d->sfd);
  if (d->dirfd >= 0) close(d->dirfd);
  ostio__manifest_free(&d->m);
  free(d->src);
  free(d->fd);
  free(d->path);
  free(d);
  *dp = NULL;
}

int ostio__log_src_find(const ostio__logdir *d, uint32_t session, uint32_t writer)
{
  size_t a = 0, b = d->nsrc;
  while (a < b) {
    size_t m = (a + b) / 2;
    const ostio__logsrc *s = &d->src[m];
    if (s->session == session && s->writer == writer) return (int)m;
    if (s->session < session || (s->session == session && s->writer < writer)) a = m + 1;
    else b = m;
  }
  return -1;
}

int ostio__log_src_add(ostio__logdir *d, uint32_t session, uint32_t writer, int32_t hostdir)
{
  int at = ostio__log_src_find(d, session, writer);
  if (at >= 0) return at;
  if (d->nsrc == d->capsrc) {
    size_t c = d->capsrc ? 2 * d->capsrc : 16;
    ostio__logsrc *s = realloc(d->src, c * sizeof *s);
    int *f = s ? realloc(d->fd, c * sizeof *f) : NULL;
    if (s) d->src = s;
    if (f) d->fd = f;
    int *g = f ? realloc(d->sfd, c * sizeof *g) : NULL;
    if (!s || !f || !g) return ostio__fail(OSTIO_ENOMEM, "out of memory listing log files");
    d->sfd = g;
    d->capsrc = c;
  }
  size_t i = d->nsrc;
  while (i > 0 && (d->src[i - 1].session > session ||
                   (d->src[i - 1].session == session && d->src[i - 1].writer > writer))) {
    d->src[i] = d->src[i - 1];
    d->fd[i] = d->fd[i - 1];
    d->sfd[i] = d->sfd[i - 1];
    i--;
  }
  d->src[i] = (ostio__logsrc){.session = session, .writer = writer, .hostdir = hostdir};
  d->fd[i] = -1;
  d->sfd[i] = -2;
  d->nsrc++;
  if (session > d->max_session) d->max_session = session;
  return (int)i;
}

/* ---- scan ------------------------------------------------------------------------------ */

int ostio__log_hostdir_open(const ostio__logdir *d, int32_t h, int make, int *made)
{
  char name[32];
  snprintf(name, sizeof name, "hostdir.%03d", (int)h);
  if (make && mkdirat(d->dirfd, name, 0777) == 0) *made = 1;
  else if (make && errno != EEXIST)
    return ostio__fail(ostio__from_errno(errno), "%s/%s: cannot make the hostdir: %s",
                       d->path, name, strerror(errno));
  int fd = openat(d->dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return fd;
  int e = errno;
  int rc = ostio__fail(e == ENOENT ? OSTIO_ENOENT : ostio__from_errno(e), "%s/%s: cannot open "
                       "the hostdir (a directory, not a link): %s", d->path, name, strerror(e));
  errno = e;
  return rc;
}

/* The hostdir for reading: its fd, or -1 with errno (no message). */
static int open_hostdir(const ostio__logdir *d, int32_t h)
{
  int made = 0, fd = ostio__log_hostdir_open(d, h, 0, &made);
  if (fd >= 0) return fd;
  int e = errno;
  ostio__clear_error();
  errno = e;
  return -1;
}

/* Opens hostdir.HHH/NAME (NAME from the grammar) as a regular file. */
static int open_in(const ostio__logdir *d, int32_t h, const char *name, int flags)
{
  int hfd = open_hostdir(d, h);
  if (hfd < 0) return -1;
  int fd = openat(hfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  int e = errno;
  close(hfd);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1)) {
    close(fd);
    fd = -1;
    e = EINVAL; /* a hard link is refused by the scan with its own message */
  }
  if (fd >= 0) fcntl(fd, F_SETFL, flags & O_APPEND);
  errno = e;
  return fd;
}

/* Src i's data or index log, read-only: the staged copy when the writer is
 * staged on this node (and its file is still there: a finished drain
 * removes it after the container's copy is complete), else the container's. */
int ostio__log_open_src(ostio__logdir *d, size_t i, const char *what)
{
  char name[64];
  const ostio__logsrc *s = &d->src[i];
  ostio__log_name(name, sizeof name, s->hostdir, what, s->session, s->writer);
  int sfd = ostio__stage_local_fd(d, i);
  if (sfd >= 0) {
    int fd = openat(sfd, strchr(name, '/') + 1, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 || errno != ENOENT) return fd;
  }
  return open_in(d, s->hostdir, strchr(name, '/') + 1, O_RDONLY);
}

static int scan_hostdir(ostio__logdir *d, int32_t h, int hfd)
{
  DIR *dir = fdopendir(hfd);
  if (!dir) {
    close(hfd);
    return sys_fail(d->path, "cannot list a hostdir", errno);
  }
  struct dirent *e;
  int rc = 0;
  while (rc == 0 && (e = readdir(dir))) {
    uint32_t s, w;
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    int kind = ostio__log_parse_name(e->d_name, &s, &w);
    if (!kind || fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        !S_ISREG(st.st_mode)) {
      d->nstray++;
      continue;
    }
    if (st.st_nlink > 1) { /* issue 13: maybe a link to a file outside */
      rc = ostio__fail(OSTIO_EFORMAT, "%s/hostdir.%03d/%s has %lu hard links: a log has "
                       "exactly one name, this one may be a link to a file outside the "
                       "container, so it is not read; if it holds this container's log, "
                       "give it a copy of its own (cp, then mv over it)", d->path, (int)h,
                       e->d_name, (unsigned long)st.st_nlink);
      break;
    }
    int i = ostio__log_src_find(d, s, w);
    if (i >= 0 && d->src[i].hostdir != h) { /* the same writer in two hostdirs */
      d->nstray++;
      continue;
    }
    if (i < 0 && (rc = i = ostio__log_src_add(d, s, w, h)) < 0) break;
    rc = 0;
    d->src[i].flags |= kind == 1 ? OSTIO__LOGSRC_DATA : kind == 2 ? OSTIO__LOGSRC_INDEX
                       : OSTIO__LOGSRC_STAGED;
    if (kind == 1) d->src[i].data_size = (int64_t)st.st_size;
    else if (kind == 2) d->src[i].index_size = (int64_t)st.st_size;
  }
  closedir(dir);
  return rc;
}

/* index.compact is current when each COVER matches an index log of that size
 * and every index log of a covered session is covered. */
static int scan_compact(ostio__logdir *d)
{
  int fd = openat(d->dirfd, OSTIO__LOG_COMPACT, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  memset(&st, 0, sizeof st);
  if (fd < 0) return 0;
  unsigned char b[OSTIO__LOGREC_SIZE];
  uint32_t maxs = 0;
  int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size % OSTIO__LOGREC_SIZE == 0;
  int64_t ncover = 0;
  for (off_t at = 0; ok && pread(fd, b, sizeof b, at) == (ssize_t)sizeof b; at += sizeof b) {
    ostio__logrec r;
    if (ostio__logrec_decode(b, &r) < 0) ok = 0;
    else if (r.type != OSTIO__LOGREC_COVER) break;
    else {
      int i = ostio__log_src_find(d, r.session, r.writer);
      if (i < 0 || !(d->src[i].flags & OSTIO__LOGSRC_INDEX) || d->src[i].index_size != r.lstart)
        ok = 0;
      else d->src[i].flags |= OSTIO__LOGSRC_COVERED;
      if (r.session > maxs) maxs = r.session;
      ncover++;
    }
  }
  close(fd);
  for (size_t i = 0; ok && i < d->nsrc; i++)
    if (d->src[i].session <= maxs && (d->src[i].flags & OSTIO__LOGSRC_INDEX) &&
        !(d->src[i].flags & OSTIO__LOGSRC_COVERED))
      ok = 0;
  if (!ok || ncover == 0)
    for (size_t i = 0; i < d->nsrc; i++) d->src[i].flags &= ~OSTIO__LOGSRC_COVERED;
  d->compact = ok && ncover > 0;
  d->compact_size = d->compact ? (int64_t)st.st_size : 0;
  ostio__clear_error();
  return 0;
}

int ostio__log_scan(ostio__logdir *d)
{
  int fd = dup(d->dirfd), rc = 0;
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir) {
    if (fd >= 0) close(fd);
    return sys_fail(d->path, "cannot list the container", errno);
  }
  rewinddir(dir); /* a dup shares the directory offset with d->dirfd */
  d->nsrc = 0;
  d->nstray = 0;
  d->max_session = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(dir))) {
    const char *n = e->d_name;
    if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, OSTIO__CTR_MANIFEST) ||
        !strcmp(n, OSTIO__CTR_SIZEREC) || !strcmp(n, OSTIO__LOG_COMPACT))
      continue;
    int h = parse_hostdir(n, d->m.hostdirs);
    int hfd = h >= 0 ? open_hostdir(d, h) : -1;
    if (hfd < 0) {
      d->nstray++;
      continue;
    }
    rc = scan_hostdir(d, h, hfd);
  }
  closedir(dir);
  if (rc == 0) rc = scan_compact(d);
  /* Staged writers: whose node holds them (readers there use the staged logs). */
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++) {
    ostio__stagerec r;
    if (!(d->src[i].flags & OSTIO__LOGSRC_STAGED)) continue;
    d->src[i].stage_host = ostio__stage_rec_read(d, i, &r) == 0 ? ostio__stage_host_hash(r.host) : 0;
    ostio__clear_error();
  }
  return rc;
}

/* ---- loading -------------------------------------------------------------------------------- */

/* Index logs are read in chunks of this many records, so a huge (or sparse)
 * index costs memory for its valid records only, and loading stops at the
 * first invalid one without reading the rest. */
#define CHUNK_RECS 4096

/* Reads up to cap bytes at off (fewer only at the end of the file). */
static int read_chunk(int fd, const char *what, unsigned char *buf, int64_t cap, int64_t off,
                      int64_t *got)
{
  size_t n = 0;
  int e = ostio__pread_full(fd, buf, (size_t)cap, off, &n);
  *got = (int64_t)n;
  return e ? sys_fail(what, "read", e) : 0;
}

static void problem(ostio__logload *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(ostio__logload *st, const char *fmt, ...)
{
  if (!st || st->first_problem[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->first_problem, sizeof st->first_problem, fmt, ap);
  va_end(ap);
}

static int push(ostio__logent **e, size_t *n, size_t *cap, const ostio__logent *x)
{
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 64;
    ostio__logent *p = realloc(*e, c * sizeof *p);
    if (!p) return ostio__fail(OSTIO_ENOMEM, "out of memory loading index records");
    *e = p;
    *cap = c;
  }
  (*e)[(*n)++] = *x;
  return 0;
}

/* The size of src's data log now (grown since the listing when a writer
 * appended: data goes before the record that points at it). */
static int64_t data_size_now(ostio__logdir *d, int32_t src)
{
  ostio__logsrc *s = &d->src[src];
  struct stat st;
  int fd = ostio__log_open_src(d, (size_t)src, "data");
  if (fd >= 0 && fstat(fd, &st) == 0 && (int64_t)st.st_size > s->data_size)
    s->data_size = (int64_t)st.st_size;
  if (fd >= 0) close(fd);
  return s->data_size;
}

/* Decodes the records k0 .. k0 + len/64 of an index log of total bytes
 * (buf holds them): returns 1 at the first record that is torn, damaged or
 * foreign (wrong writer or session), which ends the log's valid prefix; a
 * WRITE past the end of its data log (or of a writer without one) is kept,
 * marked lost. */
static int load_buf(ostio__logdir *d, const char *what, const unsigned char *buf, int64_t len,
                    int64_t k0, int64_t total, const ostio__logsrc *own, ostio__logent **e,
                    size_t *n, size_t *cap, ostio__logload *st)
{
  int64_t nrec = total / OSTIO__LOGREC_SIZE, kend = k0 + len / OSTIO__LOGREC_SIZE;
  int32_t refreshed = -1;
  for (int64_t k = k0; k < kend; k++) {
    ostio__logent x = {.idx = (uint64_t)k, .src = -1};
    const unsigned char *b = buf + (k - k0) * OSTIO__LOGREC_SIZE;
    if (ostio__logrec_decode(b, &x.r) < 0) {
      if (k == nrec - 1 && total % OSTIO__LOGREC_SIZE == 0) {
        st->torn_bytes += OSTIO__LOGREC_SIZE;
        problem(st, "%s: torn last record (a crash while appending): ignored", what);
      } else {
        st->bad_records++;
        problem(st, "%s: record %lld is damaged (%s); it and the %lld after it are ignored",
                what, (long long)k, ostio_last_error(), (long long)(nrec - k - 1));
      }
      ostio__clear_error();
      return 1;
    }
    if (x.r.type == OSTIO__LOGREC_COVER && !own) continue;
    int32_t src = -1;
    if (own) {
      if (x.r.writer != own->writer || x.r.session != own->session ||
          x.r.type == OSTIO__LOGREC_COVER) {
        st->foreign++;
        problem(st, "%s: record %lld names writer %" PRIu32 " session %" PRIu64 "; the file "
                "name says writer %" PRIu32 " session %" PRIu32 ": it and the rest are ignored",
                what, (long long)k, x.r.writer, (uint64_t)x.r.session, own->writer, own->session);
        return 1;
      }
    }
    if (x.r.type == OSTIO__LOGREC_WRITE) {
      src = ostio__log_src_find(d, x.r.session, x.r.writer);
      int64_t dsize = src >= 0 ? d->src[src].data_size : -1;
      if (src >= 0 && ostio__logrec_pend(&x.r) > dsize && src != refreshed)
        dsize = data_size_now(d, refreshed = src);
      if (ostio__logrec_pend(&x.r) > dsize) {
        /* Kept, marked lost: reading its bytes fails (issue 13), never zeros. */
        st->past_data++;
        if (src < 0)
          problem(st, "%s: record %lld names writer %" PRIu32 " of session %" PRIu64 ", "
                  "which has no data log: its logical bytes [%lld, %lld) are lost", what,
                  (long long)k, x.r.writer, (uint64_t)x.r.session, (long long)x.r.lstart,
                  (long long)ostio__logrec_end(&x.r));
      else if (d->src[src].flags & OSTIO__LOGSRC_STAGED)
        problem(st, "%s: record %lld points past the drained part of its data log (%lld > "
                "%lld bytes): its logical bytes [%lld, %lld) are staged on another node and "
                "not drained yet", what, (long long)k, (long long)ostio__logrec_pend(&x.r),
                (long long)dsize, (long long)x.r.lstart, (long long)ostio__logrec_end(&x.r));
        else
          problem(st, "%s: record %lld points past the end of its data log (%lld > %lld "
                  "bytes): its logical bytes [%lld, %lld) are lost", what, (long long)k,
                  (long long)ostio__logrec_pend(&x.r), (long long)dsize,
                  (long long)x.r.lstart, (long long)ostio__logrec_end(&x.r));
        x.lost = src >= 0 && (d->src[src].flags & OSTIO__LOGSRC_STAGED) ? 2 : 1;
      }
    }
    x.src = src;
    int rc = push(e, n, cap, &x);
    if (rc < 0) return rc;
    st->records++;
  }
  return 0;
}

/* Streams the index log open on fd through load_buf, a chunk at a time. */
static int load_fd(ostio__logdir *d, const char *what, int fd, const ostio__logsrc *own,
                   ostio__logent **e, size_t *n, size_t *cap, ostio__logload *st)
{
  struct stat sb;
  if (fstat(fd, &sb) < 0) return sys_fail(what, "fstat", errno);
  int64_t total = (int64_t)sb.st_size, at = 0;
  unsigned char *buf = malloc((size_t)CHUNK_RECS * OSTIO__LOGREC_SIZE);
  if (!buf) return ostio__fail(OSTIO_ENOMEM, "%s: out of memory reading the index", what);
  int rc = 0;
  while (rc == 0 && at + OSTIO__LOGREC_SIZE <= total) {
    int64_t want = (int64_t)CHUNK_RECS * OSTIO__LOGREC_SIZE, got = 0;
    if (want > total - at) want = (total - at) / OSTIO__LOGREC_SIZE * OSTIO__LOGREC_SIZE;
    if ((rc = read_chunk(fd, what, buf, want, at, &got)) < 0) break;
    got -= got % OSTIO__LOGREC_SIZE;
    if (got == 0) {
      total = at; /* shorter than listed: cut meanwhile */
      break;
    }
    rc = load_buf(d, what, buf, got, at / OSTIO__LOGREC_SIZE, total, own, e, n, cap, st);
    at += got;
  }
  free(buf);
  if (rc == 1) return 0; /* stopped at an invalid record: the valid prefix is loaded */
  if (rc == 0 && total % OSTIO__LOGREC_SIZE) {
    st->torn_bytes += total % OSTIO__LOGREC_SIZE;
    problem(st, "%s: %lld bytes of a torn last record (a crash while appending): ignored",
            what, (long long)(total % OSTIO__LOGREC_SIZE));
  }
  return rc;
}

int ostio__log_load_src(ostio__logdir *d, size_t i, ostio__logent **e, size_t *n,
                        size_t *cap, ostio__logload *st)
{
  const ostio__logsrc *s = &d->src[i];
  char name[64], what[PATH_CAP + 64];
  int local = ostio__stage_local_fd(d, i) >= 0;
  if (!(s->flags & OSTIO__LOGSRC_INDEX) && !local) return 0;
  ostio__log_name(name, sizeof name, s->hostdir, "index", s->session, s->writer);
  snprintf(what, sizeof what, "%s/%s%s", d->path, name, local ? " (staged on this node)" : "");
  int fd = ostio__log_open_src(d, i, "index");
  if (fd < 0) {
    if (errno == ENOENT) return 0; /* removed meanwhile: nothing to load */
    return sys_fail(what, "cannot open", errno);
  }
  /* The data log's size from the listing (it only grows while writers
   * write); a record past it makes load_buf look again (data_size_now), so
   * the data log is opened only when a writer appended since the listing.
   * Opening every data log here cost a client a metadata round trip per
   * writer at each close (issue 30). A staged copy on this node is not what
   * the listing saw: its size is read now. */
  if (local) {
    int dfd = ostio__log_open_src(d, i, "data");
    struct stat dst;
    d->src[i].data_size = dfd >= 0 && fstat(dfd, &dst) == 0 ? (int64_t)dst.st_size : 0;
    if (dfd >= 0) close(dfd);
  } else if (!(s->flags & OSTIO__LOGSRC_DATA)) {
    d->src[i].data_size = 0;
  }
  int rc = load_fd(d, what, fd, s, e, n, cap, st);
  close(fd);
  return rc;
}

int ostio__log_load_compact(ostio__logdir *d, ostio__logent **e, size_t *n, size_t *cap,
                            ostio__logload *st)
{
  char what[PATH_CAP + 32];
  if (!d->compact) return 0;
  snprintf(what, sizeof what, "%s/%s", d->path, OSTIO__LOG_COMPACT);
  int fd = openat(d->dirfd, OSTIO__LOG_COMPACT, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return sys_fail(what, "cannot open", errno);
  int rc = load_fd(d, what, fd, NULL, e, n, cap, st);
  close(fd);
  return rc;
}

int ostio__log_load_all(ostio__logdir *d, ostio__logmap *map, ostio__logload *st)
{
  ostio__logent *e = NULL;
  size_t n = 0, cap = 0;
  int rc = ostio__log_load_compact(d, &e, &n, &cap, st);
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++)
    if (!(d->src[i].flags & OSTIO__LOGSRC_COVERED))
      rc = ostio__log_load_src(d, i, &e, &n, &cap, st);
  if (rc < 0) {
    free(e);
    return rc;
  }
  return ostio__logmap_adopt(map, e, n, cap);
}
