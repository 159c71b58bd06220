/* The consistency check behind `ostio container check`, kind-neutral: the
 * manifest, then the kind's own check (its ostio__ctr_kind's hook: the
 * striped kind's is striped/striped_check.c). Reports every problem, not
 * just the first; reads only inside the directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "core/error.h"

int ostio__ctr_say(ostio__ctr_report report, void *arg, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (report) report(arg, msg);
  return 1;
}

int ostio__ctr_check(const char *path, ostio__ctr_report report, void *arg)
{
  char *text = NULL, what[4200];
  size_t len = 0;
  ostio__manifest m;
  memset(&m, 0, sizeof m);
  int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: %s", path, strerror(errno));
  int n = 0;
  snprintf(what, sizeof what, "%s/%s", path, OSTIO__CTR_MANIFEST);
  if (ostio__ctr_read_manifest(path, dirfd, &text, &len) < 0 ||
      ostio__manifest_parse(text, len, what, &m) < 0)
    n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
  else /* the kind checks its own files */
    n = m.kind->check(path, dirfd, &m, report, arg);
  free(text);
  ostio__manifest_free(&m);
  close(dirfd);
  return n;
}
