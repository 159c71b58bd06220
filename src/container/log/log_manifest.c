/* The log kind's part of the manifest (issue 6; docs/container-format.md):
 * "hostdirs N" and "writers rank|node"; and what creating, checking and
 * removing a log container needs from it. manifest.c and ctr_dir.c reach
 * these through ostio__ctr_log (the store registry names it), so they have
 * no kind branch. */
#include <stdio.h>
#include <string.h>

#include "container/container.h"
#include "container/log/log.h"
#include "core/error.h"
#include "core/strbuf.h"

enum { SLOT_HOSTDIRS, SLOT_WRITERS };

static int log_key(ostio__mparse *s, ostio__manifest *m, const char *key, char *v)
{
  int64_t x;
  if (!strcmp(key, "hostdirs")) {
    int rc = ostio__mparse_once(s, SLOT_HOSTDIRS, key);
    if (rc < 0) return rc;
    if (ostio__mparse_num(v, 1, OSTIO__LOG_HOSTDIRS_MAX, &x) < 0)
      return ostio__mparse_bad(s, "hostdirs \"%.40s\": expected a count of subdirectories "
                               "from 1 to %s", v, "1000");
    m->hostdirs = (int32_t)x;
    return 0;
  }
  if (!strcmp(key, "writers")) {
    int rc = ostio__mparse_once(s, SLOT_WRITERS, key);
    if (rc < 0) return rc;
    if (strcmp(v, "rank") && strcmp(v, "node"))
      return ostio__mparse_bad(s, "writers \"%.40s\": expected \"rank\" (one data log per "
                               "rank) or \"node\" (one per node)", v);
    m->writers = strcmp(v, "rank") ? OSTIO__LOG_WRITERS_NODE : OSTIO__LOG_WRITERS_RANK;
    return 0;
  }
  return 1; /* not a log key */
}

static int log_finish(const ostio__mparse *s, const ostio__manifest *m)
{
  static const char *const need[] = {"hostdirs", "writers"};
  (void)m;
  for (int k = SLOT_HOSTDIRS; k <= SLOT_WRITERS; k++)
    if (!ostio__mparse_seen(s, k))
      return ostio__mparse_missing(s, "key \"%s\" is missing; a log manifest needs hostdirs "
                                   "and writers", need[k]);
  return 0;
}

static int log_format(const ostio__manifest *m, ostio__sbuf *b)
{
  if (m->hostdirs < 1 || m->hostdirs > OSTIO__LOG_HOSTDIRS_MAX ||
      (m->writers != OSTIO__LOG_WRITERS_RANK && m->writers != OSTIO__LOG_WRITERS_NODE))
    return ostio__fail(OSTIO_EINVAL, "manifest: log container with %d hostdirs (1 to 1000) "
                       "and writers %d (rank or node)", (int)m->hostdirs, m->writers);
  ostio__sbuf_put(b, "hostdirs %d\nwriters %s\n", (int)m->hostdirs,
                  m->writers == OSTIO__LOG_WRITERS_NODE ? "node" : "rank");
  return 0;
}

static int log_check_params(const char *path, const ostio__ctr_params *p)
{
  if (p->hostdirs < 1 || p->hostdirs > OSTIO__LOG_HOSTDIRS_MAX)
    return ostio__fail(OSTIO_EINVAL, "%s: %d hostdirs: a log container has 1 to %d", path,
                       (int)p->hostdirs, OSTIO__LOG_HOSTDIRS_MAX);
  return 0;
}

/* No objects: writers add their logs lazily. */
static int log_fill(const ostio__ctr_params *p, ostio__manifest *m)
{
  m->hostdirs = p->hostdirs;
  m->writers = p->writers;
  return 0;
}

/* The log kind reads its own files from the path (logtool.c). */
static int log_check(const char *path, int dirfd, const ostio__manifest *m,
                     ostio__ctr_report report, void *arg)
{
  (void)dirfd, (void)m;
  return ostio__log_check(path, report, arg);
}

static int log_remove(const char *path, int dirfd, const ostio__manifest *m)
{
  (void)dirfd, (void)m;
  return ostio__log_remove(path);
}

const ostio__ctr_kind ostio__ctr_log = {
  .name = "log",
  .keys = "hostdirs, writers",
  .key = log_key,
  .finish = log_finish,
  .format = log_format,
  .check_params = log_check_params,
  .fill = log_fill,
  .check = log_check,
  .remove = log_remove,
};
