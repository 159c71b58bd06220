/* The consistency check behind `ostio container check`: the manifest, every
 * object (present, a regular file), the size record against the sizes the
 * objects imply, and entries that do not belong. Reports every problem, not
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
#include "container/log/log.h"
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

/* Entries that are neither the manifest, the size record nor an object. */
static int strays(const char *path, int dirfd, const ostio__manifest *m,
                  ostio__ctr_report report, void *arg)
{
  int n = 0, fd = dup(dirfd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return 0;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *name = e->d_name;
    if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, OSTIO__CTR_MANIFEST) ||
        !strcmp(name, OSTIO__CTR_SIZEREC))
      continue;
    int known = 0;
    for (int32_t i = 0; i < m->nobjects && !known; i++) known = !strcmp(name, m->names[i]);
    if (!known)
      n += ostio__ctr_say(report, arg,
                          "%s: \"%s\" is not part of the container (a leftover temporary "
                          "file or a foreign file)", path, name);
  }
  closedir(d);
  return n;
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
      ostio__manifest_parse(text, len, what, &m) < 0) {
    n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
    goto done;
  }
  if (m.kind == OSTIO__CTR_KIND_LOG) { /* the log kind checks its own files */
    n = ostio__log_check(path, report, arg);
    goto done;
  }
  int64_t *os = calloc((size_t)m.nobjects, sizeof *os);
  if (!os) {
    n = ostio__fail(OSTIO_ENOMEM, "out of memory");
    goto done;
  }
  int objects_ok = 1;
  for (int32_t i = 0; i < m.nobjects; i++) {
    struct stat st;
    if (fstatat(dirfd, m.names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
      n += ostio__ctr_say(report, arg, "%s: object %d (%s) is missing", path, (int)i, m.names[i]);
      objects_ok = 0;
    } else if (!S_ISREG(st.st_mode)) {
      n += ostio__ctr_say(report, arg, "%s: object %d (%s) is not a regular file", path, (int)i,
                          m.names[i]);
      objects_ok = 0;
    } else if (st.st_nlink > 1) {
      n += ostio__ctr_say(report, arg, "%s: object %d (%s) has %lu hard links: it may be a "
                          "link to a file outside the container, so ostio neither reads nor "
                          "writes it; if it holds the object's data, give it a copy of its "
                          "own (cp %s %s.new && mv %s.new %s)", path, (int)i, m.names[i],
                          (unsigned long)st.st_nlink, m.names[i], m.names[i], m.names[i],
                          m.names[i]);
      objects_ok = 0;
    } else {
      os[i] = (int64_t)st.st_size;
    }
  }
  int64_t derived = ostio__striped_size(m.stripe_size, m.nobjects, os);
  ostio__sizerec rec;
  int rc = ostio__sizerec_read(dirfd, path, &rec);
  if (rc == OSTIO_ENOENT) {
    n += ostio__ctr_say(report, arg,
                        "%s: the size record %s is missing (the objects imply %lld bytes)",
                        path, OSTIO__CTR_SIZEREC, (long long)derived);
  } else if (rc < 0) {
    n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
  } else if (rec.clean && objects_ok) {
    /* Name each object whose size disagrees with the recorded logical size.
     * A clean close leaves each object exactly its share, so a shorter one
     * lost data (whichever object it is); a longer one holds more. */
    for (int32_t i = 0; i < m.nobjects; i++) {
      int64_t want = ostio__striped_objsize(m.stripe_size, m.nobjects, i, rec.size);
      ostio__ctr_short sh;
      if (os[i] > want)
        n += ostio__ctr_say(report, arg, "%s: object %s is longer than the size record says: %lld "
                            "bytes, the clean size record (%lld bytes) allows %lld", path,
                            m.names[i], (long long)os[i], (long long)rec.size, (long long)want);
      else if (ostio__ctr_short_object(&m, rec.size, i, os[i], &sh))
        n += ostio__ctr_say(report, arg, "%s: object %s is shorter than the size record says: "
                            "%lld bytes, the clean size record (%lld bytes) needs %lld: %lld "
                            "bytes are lost, from logical offset %lld on; reads of the "
                            "container fail until it is repaired: restore %s from a copy, or "
                            "accept the loss (zeros there) with `truncate -s %lld %s/%s`", path,
                            m.names[i], (long long)os[i], (long long)rec.size,
                            (long long)sh.want, (long long)sh.lost, (long long)sh.first,
                            m.names[i], (long long)sh.want, path, m.names[i]);
    }
  }
  n += strays(path, dirfd, &m, report, arg);
  free(os);
done:
  free(text);
  ostio__manifest_free(&m);
  close(dirfd);
  return n;
}
