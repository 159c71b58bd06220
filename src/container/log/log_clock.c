/* The process's clock of a log container (issue 28): for each container this
 * process has open (its directory's device and inode, not its path text:
 * two paths of one container share one clock), the largest seq any of its
 * handles issued or saw. A handle's write takes a seq above every one its
 * process issued before, so of two handles open at once the newer write
 * wins, as in a plain file. No MPI: log_file.c agrees on the maximum across
 * a handle's ranks at its collective events. docs/containers.md, "The
 * ordering rule". */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/log/log.h"
#include "core/error.h"
#include "core/fdio.h"

struct ostio__logclock {
  dev_t dev;
  ino_t ino;
  int refs;
  uint64_t max;              /* the largest seq issued or seen              */
  const void *owner;         /* the handle that issued max; NULL: seen only  */
  struct ostio__logclock *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ostio__logclock *clocks;

int ostio__log_clock_get(int dirfd, const char *path, ostio__logclock **out)
{
  struct stat st;
  *out = NULL;
  if (fstat(dirfd, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: cannot stat the container directory",
                       path);
  pthread_mutex_lock(&lock);
  struct ostio__logclock *c = clocks;
  while (c && !(c->dev == st.st_dev && c->ino == st.st_ino)) c = c->next;
  if (!c && (c = calloc(1, sizeof *c))) {
    c->dev = st.st_dev;
    c->ino = st.st_ino;
    c->next = clocks;
    clocks = c;
  }
  if (c) c->refs++;
  pthread_mutex_unlock(&lock);
  if (!c) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  *out = c;
  return 0;
}

void ostio__log_clock_put(ostio__logclock **cp)
{
  struct ostio__logclock *c = *cp;
  if (!c) return;
  *cp = NULL;
  pthread_mutex_lock(&lock);
  if (--c->refs == 0) { /* the last handle: a later open starts above the disk */
    struct ostio__logclock **p = &clocks;
    while (*p != c) p = &(*p)->next;
    *p = c->next;
    free(c);
  }
  pthread_mutex_unlock(&lock);
}

uint64_t ostio__log_clock_max(ostio__logclock *c)
{
  pthread_mutex_lock(&lock);
  uint64_t v = c->max;
  pthread_mutex_unlock(&lock);
  return v;
}

void ostio__log_clock_saw(ostio__logclock *c, uint64_t seq)
{
  pthread_mutex_lock(&lock);
  if (seq > c->max) c->max = seq, c->owner = NULL;
  pthread_mutex_unlock(&lock);
}

void ostio__log_clock_took(ostio__logclock *c, const void *who, uint64_t seq)
{
  pthread_mutex_lock(&lock);
  if (seq >= c->max) c->max = seq, c->owner = who;
  pthread_mutex_unlock(&lock);
}

int ostio__log_clock_next(uint64_t v, uint64_t *next)
{
  /* Never into the next 2^32 block: that block's first seq is a later
   * session's (session << 32), and a later open must win over all before. */
  if ((v & UINT32_MAX) == UINT32_MAX)
    return ostio__fail(OSTIO_ERANGE, "log container: 2^32 - 1 ordered steps in session %" PRIu64
                       " (collective calls, and writes alternating between handles open "
                       "at once); close every handle and reopen", v >> 32);
  *next = v + 1;
  return 0;
}

int ostio__log_clock_issue(ostio__logclock *c, const void *who, uint64_t *cur)
{
  int rc = 0;
  pthread_mutex_lock(&lock);
  /* Another handle issued (or this process saw) a seq at or above ours
   * since our last: ours goes past it, so this write is the newest. */
  if (*cur < c->max || (*cur == c->max && c->owner != who))
    rc = ostio__log_clock_next(c->max, cur);
  if (rc == 0 && *cur >= c->max) c->max = *cur, c->owner = who;
  pthread_mutex_unlock(&lock);
  return rc;
}

/* The last valid record of the log open as fd (size bytes): its seq, or 0.
 * Each writer appends its records in seq order (and index.compact holds
 * them in key order), so the last one carries the log's largest seq; a torn
 * last record (a crash while appending) is passed over for the one before. */
static uint64_t last_seq(int fd, int64_t size)
{
  int64_t n = size / OSTIO__LOGREC_SIZE;
  for (int64_t k = n - 1; k >= 0 && k >= n - 2; k--) {
    unsigned char b[OSTIO__LOGREC_SIZE];
    size_t got = 0;
    ostio__logrec r;
    if (ostio__pread_full(fd, b, sizeof b, k * OSTIO__LOGREC_SIZE, &got) || got != sizeof b)
      return 0;
    if (ostio__logrec_decode(b, &r) == 0 && r.type != OSTIO__LOGREC_COVER) return r.seq;
    ostio__clear_error();
  }
  return 0;
}

int ostio__log_disk_seq(const ostio__logdir *d, uint64_t *out)
{
  ostio__logdir *f = NULL;
  char *text = NULL;
  size_t len = 0;
  uint64_t top = 0;
  *out = 0;
  int rc = ostio__manifest_format(&d->m, &text, &len);
  if (rc == 0) rc = ostio__log_open_fd(d->dirfd, d->path, text, len, &f);
  if (rc == 0) rc = ostio__log_scan(f);
  for (size_t i = 0; rc == 0 && i < f->nsrc; i++) {
    if (!(f->src[i].flags & OSTIO__LOGSRC_INDEX)) continue;
    int fd = ostio__log_open_src(f, i, "index");
    if (fd < 0) continue; /* gone since the listing: nothing to order after */
    uint64_t s = last_seq(fd, f->src[i].index_size);
    close(fd);
    if (s >> 32 <= f->max_session && s > top) top = s;
  }
  if (rc == 0 && f->compact) {
    int fd = openat(f->dirfd, OSTIO__LOG_COMPACT, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    uint64_t s = fd >= 0 ? last_seq(fd, f->compact_size) : 0;
    if (fd >= 0) close(fd);
    if (s >> 32 <= f->max_session && s > top) top = s;
  }
  ostio__log_close(&f);
  free(text);
  *out = top;
  return rc;
}
