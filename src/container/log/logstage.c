/* Node-local staging, on disk (log_stage.h): this node's name, stage
 * records, stage directories and where a writer's staged logs are. The
 * drain that copies them into the container is in logdrain.c. No MPI. */
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

#define REC_MAGIC "ostio stage 2\n"
#define REC_MAGIC_V1 "ostio stage 1\n"       /* the previous release's, no CRC */

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

/* "ostio.HASH.S": the last part of the stage directory of session S of the
 * container at ctr_path (HASH of its absolute path). */
static void stage_leaf(const char *ctr_path, uint32_t session, char *out, size_t cap)
{
  char abs[PATH_MAX];
  if (!realpath(ctr_path, abs)) snprintf(abs, sizeof abs, "%s", ctr_path);
  snprintf(out, cap, "ostio.%016" PRIx64 ".%" PRIu32, ostio__fnv1a64(abs, strlen(abs)),
           session);
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
  n += snprintf(text + n, sizeof text - (size_t)n, "crc32c %08" PRIx32 "\n",
                ostio__crc32c(text, (size_t)n));
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

/* The line at *p that starts with key; its value (without the newline) into
 * out; *p moves past it. 0 or -1 (missing, too long, no newline). */
static int take_line(const char **p, const char *key, char *out, size_t cap)
{
  size_t k = strlen(key);
  const char *e = strncmp(*p, key, k) ? NULL : strchr(*p + k, '\n');
  if (!e || (size_t)(e - (*p + k)) >= cap) return -1;
  memcpy(out, *p + k, (size_t)(e - (*p + k)));
  out[e - (*p + k)] = 0;
  *p = e + 1;
  return 0;
}

/* Parses a record's text: version 2 (the lines and their CRC-32C) or the
 * previous release's version 1 (no CRC; its directory is validated like
 * any other). */
static int rec_parse(const char *text, size_t len, ostio__stagerec *r)
{
  const char *p = text;
  char crc[16];
  int v2 = !strncmp(p, REC_MAGIC, strlen(REC_MAGIC));
  if (!v2 && strncmp(p, REC_MAGIC_V1, strlen(REC_MAGIC_V1))) return -1;
  p += strlen(v2 ? REC_MAGIC : REC_MAGIC_V1);
  if (take_line(&p, "host ", r->host, sizeof r->host) < 0 ||
      take_line(&p, "dir ", r->dir, sizeof r->dir) < 0 || r->dir[0] != '/' || !r->host[0])
    return -1;
  if (!v2) return (size_t)(p - text) == len ? 0 : -1;
  size_t body = (size_t)(p - text);
  char want[16];
  snprintf(want, sizeof want, "%08" PRIx32, ostio__crc32c(text, body));
  if (take_line(&p, "crc32c ", crc, sizeof crc) < 0 || (size_t)(p - text) != len) return -1;
  return strcmp(crc, want) ? -2 : 0;
}

int ostio__stage_rec_read(ostio__logdir *d, size_t i, ostio__stagerec *r)
{
  const ostio__logsrc *s = &d->src[i];
  char hd[32], name[64], text[sizeof *r + 64], leaf[64];
  snprintf(hd, sizeof hd, "hostdir.%03d", (int)s->hostdir);
  ostio__stage_rec_name(name, sizeof name, s->session, s->writer);
  memset(r, 0, sizeof *r);
  int made = 0, hfd = ostio__log_hostdir_open(d, s->hostdir, 0, &made);
  ostio__clear_error();
  int fd = hfd >= 0 ? openat(hfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) : -1;
  int e = hfd >= 0 ? errno : ENOENT;
  if (hfd >= 0) close(hfd);
  if (fd < 0)
    return ostio__fail(e == ENOENT ? OSTIO_ENOENT : ostio__from_errno(e),
                       "%s/%s/%s: cannot open the stage record: %s", d->path, hd, name,
                       strerror(e));
  size_t got = 0;
  e = ostio__pread_full(fd, text, sizeof text - 1, 0, &got);
  close(fd);
  text[got] = 0;
  int bad = e || strlen(text) != got ? -1 : rec_parse(text, got, r);
  if (bad)
    return ostio__fail(OSTIO_EFORMAT, "%s/%s/%s: damaged stage record (%s; expected the "
                       "lines \"ostio stage 2\", \"host NAME\", \"dir /PATH\", \"crc32c "
                       "HEX\"): where the writer's staged logs are is unknown", d->path, hd,
                       name, bad == -2 ? "its CRC-32C does not match its lines" : "unreadable "
                       "or not in the format");
  /* The directory must be the one ostio derives for this container and
   * session: a record naming anything else (another container's hostdir)
   * would have the drain copy from it and remove its files. */
  stage_leaf(d->stage_key ? d->stage_key : d->path, s->session, leaf, sizeof leaf);
  const char *last = strrchr(r->dir, '/');
  if (strcmp(last + 1, leaf) || last == r->dir)
    return ostio__fail(OSTIO_EACCES, "%s/%s/%s: the stage record names the directory %s; "
                       "for this container and session ostio stages in DIR/%s only: refused, "
                       "nothing read or removed there (a container moved since the job: move "
                       "it back to drain; a record written by hand: remove it after "
                       "checking, or `ostio container recover` gives the writer up)",
                       d->path, hd, name, r->dir, leaf);
  return 0;
}

/* ---- stage directories ------------------------------------------------------------ */

/* Checks the directory open on fd (named path): a directory of this user
 * (mode_too: that no one else may write in). */
static int dir_ours(int fd, const char *path, const char *what, int mode_too)
{
  struct stat st;
  if (fstat(fd, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s %s: fstat: %s", what, path,
                       strerror(errno));
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (mode_too && (st.st_mode & 022)))
    return ostio__fail(OSTIO_EACCES, "%s %s is owned by uid %lu with mode %03o; a directory "
                       "of this user (uid %lu) that no one else can write is accepted: not "
                       "used (remove it if it is not yours)", what, path,
                       (unsigned long)st.st_uid, (unsigned)(st.st_mode & 0777),
                       (unsigned long)geteuid());
  return 0;
}

/* open(path) of a directory, not following a link at its last part. */
static int open_dir_nofollow(const char *path, const char *what, int *fd)
{
  *fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (*fd >= 0) return 0;
  int e = errno;
  if (e == ELOOP || e == ENOTDIR)
    return ostio__fail(OSTIO_EACCES, "%s %s is a symbolic link or not a directory: not "
                       "followed (a link planted at a predictable name would send the logs "
                       "elsewhere); remove it", what, path);
  return ostio__fail(e == ENOENT ? OSTIO_ENOENT : ostio__from_errno(e), "%s %s: cannot "
                     "open: %s", what, path, strerror(e));
}

static int mkdirs(char *path)
{
  for (char *s = path + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    int r = mkdir(path, 0777);
    *s = '/';
    if (r < 0 && errno != EEXIST) return -1;
  }
  return 0;
}

int ostio__stage_dir_open(const char *base, const char *ctr_path, uint32_t session,
                          char *out, size_t cap, int *fd)
{
  char leaf[64];
  *fd = -1;
  if (!base || base[0] != '/')
    return ostio__fail(OSTIO_EHINT, "ostio_stage_dir=%s: an absolute directory path on a "
                       "node-local file system is accepted", base ? base : "");
  stage_leaf(ctr_path, session, leaf, sizeof leaf);
  int n = snprintf(out, cap, "%s/%s", base, leaf);
  if (n < 0 || (size_t)n >= cap || bad_text(out))
    return ostio__fail(OSTIO_EHINT, "ostio_stage_dir=%s: too long (at most %zu bytes with "
                       "the container's part) or has a line break", base, cap - 40);
  /* The parents as they are (a shared /local/scratch); the job's own
   * directory 0700, and a link or someone else's directory at its
   * predictable name is refused, never followed. Ranks of one node (and
   * processes of one session) share it: EEXIST is normal. */
  if (mkdirs(out) < 0 || (mkdir(out, 0700) < 0 && errno != EEXIST))
    return ostio__fail(ostio__from_errno(errno), "ostio_stage_dir: cannot make %s: %s; give a "
                       "writable node-local directory", out, strerror(errno));
  int rc = open_dir_nofollow(out, "ostio_stage_dir: the stage directory", fd);
  if (rc == 0) rc = dir_ours(*fd, out, "ostio_stage_dir: the stage directory", 1);
  if (rc < 0 && *fd >= 0) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

int ostio__stage_rec_open(const ostio__stagerec *r, int *fd)
{
  int rc = open_dir_nofollow(r->dir, "the stage directory", fd);
  if (rc == 0 && (rc = dir_ours(*fd, r->dir, "the stage directory", 0)) < 0) {
    close(*fd);
    *fd = -1;
  }
  return rc;
}

int ostio__stage_local_fd(ostio__logdir *d, size_t i)
{
  if (i >= d->nsrc || !(d->src[i].flags & OSTIO__LOGSRC_STAGED)) return -1;
  if (d->sfd[i] != -2) return d->sfd[i];
  ostio__stagerec r;
  int fd = -1;
  d->sfd[i] = -1;
  if (d->src[i].stage_host && d->src[i].stage_host != ostio__stage_host_hash(ostio__stage_self()))
    return -1;
  if (ostio__stage_rec_read(d, i, &r) == 0 && !strcmp(r.host, ostio__stage_self()) &&
      ostio__stage_rec_open(&r, &fd) == 0)
    d->sfd[i] = fd;
  ostio__clear_error();
  return d->sfd[i];
}

int ostio__stage_mark(ostio__logdir *d, int i, uint64_t host, int sdirfd)
{
  if (i < 0 || (size_t)i >= d->nsrc) return 0;
  d->src[i].flags |= OSTIO__LOGSRC_STAGED;
  d->src[i].stage_host = host;
  if (d->sfd[i] >= 0) close(d->sfd[i]);
  d->sfd[i] = sdirfd >= 0 ? dup(sdirfd) : -1;
  if (sdirfd >= 0 && d->sfd[i] < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: dup of the stage directory: %s", d->path,
                       strerror(errno));
  return 0;
}

void ostio__stage_unmark(ostio__logdir *d, int i)
{
  if (i < 0 || (size_t)i >= d->nsrc || !(d->src[i].flags & OSTIO__LOGSRC_STAGED)) return;
  d->src[i].flags &= ~OSTIO__LOGSRC_STAGED;
  d->src[i].stage_host = 0;
  if (d->sfd[i] >= 0) close(d->sfd[i]);
  d->sfd[i] = -1;
  if (d->fd[i] >= 0) close(d->fd[i]);
  d->fd[i] = -1;
}
