/* Reading a log container through its map (no MPI): data-log descriptors
 * (a staged writer's log on its own node, the container's copy elsewhere,
 * waiting for a drain that is under way), and the serial read in which
 * holes and cut bytes are zeros and missing bytes are errors. Split from
 * logfile.c (listing and loading). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "container/log/log.h"
#include "container/log/log_stage.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fdio.h"

/* ---- reading ------------------------------------------------------------------------ */

int ostio__log_data_fd(ostio__logdir *d, int32_t src, int *fd)
{
  if (src < 0 || (size_t)src >= d->nsrc)
    return ostio__fail(OSTIO_EINVAL, "%s: no data log number %d", d->path, (int)src);
  if (d->fd[src] < 0) {
    char name[64];
    const ostio__logsrc *s = &d->src[src];
    ostio__log_name(name, sizeof name, s->hostdir, "data", s->session, s->writer);
    d->fd[src] = ostio__log_open_src(d, (size_t)src, "data");
    if (d->fd[src] < 0 && errno == ENOENT && (s->flags & OSTIO__LOGSRC_STAGED))
      return ostio__fail(OSTIO_ESTAGED, "%s/%s: the data log is staged on another node and "
                         "not drained yet; `ostio stage status %s` says where", d->path, name,
                         d->path);
    if (d->fd[src] < 0)
      return ostio__fail(errno == ENOENT ? OSTIO_EFORMAT : ostio__from_errno(errno),
                         "%s/%s: cannot open the data log: %s", d->path, name, strerror(errno));
  }
  *fd = d->fd[src];
  return 0;
}

/* A staged writer's bytes read on another node come from the container's
 * copy, which that node's drain fills: wait while it makes progress. */
#define STAGE_PATIENCE 10.0 /* seconds without a drained byte */

int ostio__log_data_upto(ostio__logdir *d, int32_t src, int64_t need, int *fd)
{
  const ostio__logsrc *s = src >= 0 && (size_t)src < d->nsrc ? &d->src[src] : NULL;
  if (!s || !(s->flags & OSTIO__LOGSRC_STAGED) || ostio__stage_local_fd(d, (size_t)src) >= 0)
    return ostio__log_data_fd(d, src, fd);
  double last = ostio__now();
  int64_t seen = -1;
  for (;;) {
    struct stat st;
    int rc = ostio__log_data_fd(d, src, fd);
    if (rc < 0 && rc != OSTIO_ESTAGED) return rc;
    int64_t have = rc == 0 && fstat(*fd, &st) == 0 ? (int64_t)st.st_size : 0;
    if (have >= need) return 0;
    if (have > seen) {
      seen = have;
      last = ostio__now();
    } else if (ostio__now() - last > STAGE_PATIENCE) {
      return ostio__fail(OSTIO_ESTAGED, "%s: writer %" PRIu32 " of session %" PRIu32 " is "
                         "staged on another node and its drain brought no byte for %.0f s "
                         "(%lld of the %lld bytes needed are here); `ostio stage status %s` "
                         "says where, `ostio stage drain` on that node moves them", d->path,
                         s->writer, s->session, STAGE_PATIENCE, (long long)have,
                         (long long)need, d->path);
    }
    ostio__clear_error();
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

int ostio__log_read(ostio__logdir *d, ostio__logmap *map, ostio__logres *res, int64_t off,
                    int64_t len, void *buf)
{
  return ostio__log_read_x(d, map, NULL, 0, res, off, len, buf);
}

int ostio__log_read_x(ostio__logdir *d, ostio__logmap *map, const ostio__logent *extra,
                      size_t nextra, ostio__logres *res, int64_t off, int64_t len, void *buf)
{
  int rc = ostio__logmap_resolve(map, extra, nextra, off, len, res);
  for (size_t i = 0; rc == 0 && i < res->nseg; i++) {
    const ostio__logseg *s = &res->seg[i];
    char *p = (char *)buf + (s->off - off);
    if (s->src < 0) {
      memset(p, 0, (size_t)s->len);
      continue;
    }
    int fd;
    if ((rc = ostio__log_data_upto(d, s->src, s->phys + s->len, &fd)) < 0) break;
    size_t got = 0;
    if (ostio__pread_full(fd, p, (size_t)s->len, s->phys, &got) != 0)
      rc = ostio__fail(ostio__from_errno(errno), "%s: reading a data log: %s", d->path,
                       strerror(errno));
    else if (got < (size_t)s->len && (d->src[s->src].flags & OSTIO__LOGSRC_STAGED))
      rc = ostio__fail(OSTIO_ESTAGED, "%s: logical bytes [%lld, %lld) are staged on another "
                       "node and not drained yet (writer %" PRIu32 ", session %" PRIu32 "); "
                       "`ostio stage status %s` says where, `ostio stage drain` on that node "
                       "moves them", d->path, (long long)(s->off + (int64_t)got),
                       (long long)(s->off + s->len), d->src[s->src].writer,
                       d->src[s->src].session, d->path);
    else if (got < (size_t)s->len) /* past the end: zeros (records are checked: unexpected) */
      memset(p + got, 0, (size_t)s->len - got);
  }
  return rc;
}
