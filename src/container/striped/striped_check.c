/* The striped kind's check hook (`ostio container check`; ctr_check.c
 * parsed the manifest): every object (present, a regular file, one link),
 * the size record against the sizes the objects imply, and entries that do
 * not belong. Reports every problem, not just the first. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "core/error.h"

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

int ostio__striped_check(const char *path, int dirfd, const ostio__manifest *m,
                         ostio__ctr_report report, void *arg)
{
  int n = 0;
  int64_t *os = calloc((size_t)m->nobjects, sizeof *os);
  if (!os) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  int objects_ok = 1;
  for (int32_t i = 0; i < m->nobjects; i++) {
    struct stat st;
    if (fstatat(dirfd, m->names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
      n += ostio__ctr_say(report, arg, "%s: object %d (%s) is missing", path, (int)i, m->names[i]);
      objects_ok = 0;
    } else if (!S_ISREG(st.st_mode)) {
      n += ostio__ctr_say(report, arg, "%s: object %d (%s) is not a regular file", path, (int)i,
                          m->names[i]);
      objects_ok = 0;
    } else if (st.st_nlink > 1) {
      n += ostio__ctr_say(report, arg, "%s: object %d (%s) has %lu hard links: it may be a "
                          "link to a file outside the container, so ostio neither reads nor "
                          "writes it; if it holds the object's data, give it a copy of its "
                          "own (cp %s %s.new && mv %s.new %s)", path, (int)i, m->names[i],
                          (unsigned long)st.st_nlink, m->names[i], m->names[i], m->names[i],
                          m->names[i]);
      objects_ok = 0;
    } else {
      os[i] = (int64_t)st.st_size;
    }
  }
  int64_t derived = ostio__striped_size(m->stripe_size, m->nobjects, os);
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
    for (int32_t i = 0; i < m->nobjects; i++) {
      int64_t want = ostio__striped_objsize(m->stripe_size, m->nobjects, i, rec.size);
      ostio__ctr_short sh;
      if (os[i] > want)
        n += ostio__ctr_say(report, arg, "%s: object %s is longer than the size record says: %lld "
                            "bytes, the clean size record (%lld bytes) allows %lld", path,
                            m->names[i], (long long)os[i], (long long)rec.size, (long long)want);
      else if (ostio__ctr_short_object(m, rec.size, i, os[i], &sh))
        n += ostio__ctr_say(report, arg, "%s: object %s is shorter than the size record says: "
                            "%lld bytes, the clean size record (%lld bytes) needs %lld: %lld "
                            "bytes are lost, from logical offset %lld on; reads of the "
                            "container fail until it is repaired: restore %s from a copy, or "
                            "accept the loss (zeros there) with `truncate -s %lld %s/%s`", path,
                            m->names[i], (long long)os[i], (long long)rec.size,
                            (long long)sh.want, (long long)sh.lost, (long long)sh.first,
                            m->names[i], (long long)sh.want, path, m->names[i]);
    }
  }
  n += strays(path, dirfd, m, report, arg);
  free(os);
  return n;
}
