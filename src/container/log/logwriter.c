/* A writer of a log container: hostdir.HHH/data.S.W and index.S.W, made on
 * the first write with O_EXCL (a second writer of the same session and id
 * is refused). Data is appended before the record that points at it; index
 * records are appended in order with one pwrite each; the pending record of
 * the compressor reaches the index at flush, sync and close. No MPI. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/log/log.h"
#include "container/log/log_stage.h"
#include "core/error.h"
#include "core/fdio.h"

void ostio__logw_init(ostio__logw *w, ostio__logdir *d, uint32_t session, uint32_t writer,
                      int32_t hostdir)
{
  memset(w, 0, sizeof *w);
  w->d = d;
  w->session = session;
  w->writer = writer;
  w->hostdir = hostdir;
  w->dfd = w->ifd = w->hfd = w->sdirfd = -1;
}

void ostio__logw_stage(ostio__logw *w, int sdirfd, const char *dir, const char *host)
{
  w->sdirfd = sdirfd;
  w->stage_dir = dir;
  w->stage_host = host;
}

static int wfail(const ostio__logw *w, const char *what, const char *name, int e)
{
  return ostio__fail(ostio__from_errno(e), "%s/%s: %s: %s", w->d->path, name, what,
                     strerror(e));
}

int ostio__logw_create(ostio__logw *w)
{
  char name[64];
  if (w->dfd >= 0) return 0;
  int made = 0;
  w->hfd = ostio__log_hostdir_open(w->d, w->hostdir, 1, &made);
  if (w->hfd < 0) {
    int rc = w->hfd;
    w->hfd = -1;
    return rc;
  }
  if (made) w->dir_dirty |= 2;
  const char *kinds[2] = {"data", "index"};
  int *fds[2] = {&w->dfd, &w->ifd};
  for (int k = 0; k < 2; k++) {
    ostio__log_name(name, sizeof name, w->hostdir, kinds[k], w->session, w->writer);
    *fds[k] = openat(w->sdirfd >= 0 ? w->sdirfd : w->hfd, strchr(name, '/') + 1,
                     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (*fds[k] < 0) {
      int e = errno;
      if (e == EEXIST)
        return ostio__fail(OSTIO_EEXIST, "%s/%s exists: another job writes this container "
                           "with the same session number; one writing job at a time",
                           w->d->path, name);
      return wfail(w, w->sdirfd >= 0 ? "cannot create in the stage directory" :
                   "cannot create", name, e);
    }
  }
  /* Staged: the record after the (empty) staged logs and before their first
   * byte, so the container knows where the logs are before they hold one,
   * and a record always means its staged logs were made (a drain that
   * finds them missing knows they were lost; log_stage.h). */
  if (w->sdirfd >= 0) {
    ostio__stagerec r;
    snprintf(r.host, sizeof r.host, "%s", w->stage_host);
    snprintf(r.dir, sizeof r.dir, "%s", w->stage_dir);
    int rc = ostio__stage_rec_write(w->d->path, w->hfd, w->session, w->writer, &r);
    for (int k = 0; rc < 0 && k < 2; k++) { /* no record: the staged logs go again */
      ostio__log_name(name, sizeof name, w->hostdir, kinds[k], w->session, w->writer);
      unlinkat(w->sdirfd, strchr(name, '/') + 1, 0);
    }
    if (rc < 0) return rc;
    w->dir_dirty |= 4;
  }
  w->dir_dirty |= 1;
  return 0;
}

/* Every record in (session, writer)'s index log is of that session. */
static int append_rec(ostio__logw *w, const ostio__logrec *rin)
{
  unsigned char b[OSTIO__LOGREC_SIZE];
  ostio__logrec rs = *rin;
  const ostio__logrec *r = &rs;
  rs.session = w->session;
  if (w->nfresh == w->capfresh) { /* room first: an appended record is always counted */
    size_t c = w->capfresh ? 2 * w->capfresh : 16;
    ostio__logent *f = realloc(w->fresh, c * sizeof *f);
    if (!f) return ostio__fail(OSTIO_ENOMEM, "out of memory for index records");
    w->fresh = f;
    w->capfresh = c;
  }
  ostio__logrec_encode(r, b);
  int e = ostio__pwrite_full(w->ifd, b, sizeof b, w->iend);
  if (e) {
    char name[64];
    ostio__log_name(name, sizeof name, w->hostdir, "index", w->session, w->writer);
    return wfail(w, "cannot append an index record", name, e);
  }
  w->iend += OSTIO__LOGREC_SIZE;
  w->fresh[w->nfresh++] = (ostio__logent){.r = *r, .idx = w->nrec, .src = -1};
  w->nrec++;
  return 0;
}

/* A record taken from the compressor is never dropped: when it cannot be
 * appended, the compressor is put back as it was (the pending record stays
 * pending, the new piece is refused with the error), so the next flush,
 * sync or close retries it and reports a failure that persists. */
int ostio__logw_piece(ostio__logw *w, uint64_t seq, int64_t lstart, int64_t len,
                      int64_t pstart)
{
  ostio__logrec out;
  if (len <= 0) return 0;
  ostio__logcomp was = w->comp;
  int flushed = ostio__logcomp_add(&w->comp, seq, w->writer, lstart, len, pstart, &out);
  w->comp.rec.session = w->session; /* the pending record is read as it is */
  if (flushed) {
    int rc = append_rec(w, &out);
    if (rc < 0) w->comp = was;
    return rc;
  }
  return 0;
}

int ostio__logw_flush(ostio__logw *w)
{
  ostio__logrec out;
  if (!ostio__logcomp_take(&w->comp, &out)) return 0;
  int rc = append_rec(w, &out);
  if (rc < 0) { /* still pending */
    w->comp.rec = out;
    w->comp.pending = 1;
  }
  return rc;
}

int ostio__logw_append(ostio__logw *w, const ostio__logrec *r)
{
  int rc = ostio__logw_create(w);
  if (rc == 0) rc = ostio__logw_flush(w);
  if (rc == 0) rc = append_rec(w, r);
  return rc;
}

int ostio__logw_sync(ostio__logw *w)
{
  int rc = ostio__logw_flush(w);
  if (rc < 0 || w->dfd < 0) return rc;
  char name[64];
  ostio__log_name(name, sizeof name, w->hostdir, "data", w->session, w->writer);
  /* The data first: a record that reaches the disk points at durable bytes. */
  if (fdatasync(w->dfd) < 0) return wfail(w, "fdatasync", name, errno);
  ostio__log_name(name, sizeof name, w->hostdir, "index", w->session, w->writer);
  if (fdatasync(w->ifd) < 0) return wfail(w, "fdatasync", name, errno);
  if ((w->dir_dirty & 1) && w->sdirfd >= 0 && fsync(w->sdirfd) < 0)
    return wfail(w, "fsync of the stage directory", w->stage_dir, errno);
  if ((w->dir_dirty & (w->sdirfd >= 0 ? 4 : 1)) && fsync(w->hfd) < 0)
    return wfail(w, "fsync", "hostdir", errno);
  if ((w->dir_dirty & 2) && fsync(w->d->dirfd) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: fsync: %s", w->d->path, strerror(errno));
  w->dir_dirty = 0;
  return 0;
}

int ostio__logw_write(ostio__logw *w, uint64_t seq, int64_t off, const void *buf, int64_t len)
{
  int rc = ostio__logw_create(w);
  if (rc < 0 || len <= 0) return rc;
  int e = ostio__pwrite_full(w->dfd, buf, (size_t)len, w->dend);
  if (e) {
    char name[64];
    ostio__log_name(name, sizeof name, w->hostdir, "data", w->session, w->writer);
    return wfail(w, "cannot append data", name, e);
  }
  int64_t at = w->dend;
  w->dend += len;
  return ostio__logw_piece(w, seq, off, len, at);
}

int ostio__logw_close(ostio__logw *w)
{
  int rc = 0;
  int *fds[3] = {&w->dfd, &w->ifd, &w->hfd};
  for (int k = 0; k < 3; k++) {
    if (*fds[k] >= 0 && close(*fds[k]) < 0 && rc == 0)
      rc = ostio__fail(ostio__from_errno(errno), "%s: close of a log: %s",
                       w->d ? w->d->path : "?", strerror(errno));
    *fds[k] = -1;
  }
  free(w->fresh);
  w->fresh = NULL;
  w->nfresh = w->capfresh = 0;
  return rc;
}

int ostio__log_claim_session(ostio__logdir *d, ostio__logw *w, int32_t hostdir,
                             uint32_t *session)
{
  int rc = OSTIO_EEXIST;
  uint32_t s = *session;
  for (int tries = 0; rc == OSTIO_EEXIST && tries < 100000; tries++) {
    if (s == UINT32_MAX)
      return ostio__fail(OSTIO_ERANGE, "%s: 2^32 - 1 write sessions; compact or flatten it",
                         d->path);
    ostio__logw_init(w, d, ++s, 0, hostdir);
    if ((rc = ostio__logw_create(w)) < 0) {
      ostio__logw_close(w);
      if (rc == OSTIO_EEXIST) ostio__clear_error();
    }
  }
  if (rc == OSTIO_EEXIST)
    return ostio__fail(OSTIO_EEXIST, "%s: no free session after 100000 tries", d->path);
  *session = s;
  return rc;
}
