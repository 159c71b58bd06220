/* Container-level helpers of the preload: stat and removal by path, the
 * placeholder fd that gives each open a real, unique fd number, and the
 * adoption of placeholders inherited through exec. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container.h"
#include "container/store.h"
#include "core/error.h"
#include "preload/preload.h"

int ostio__pl_ctr_stat(const char *norm, struct stat *st)
{
  ostio__pl_obj *o;
  int rc = ostio__pl_obj_open(norm, 1, O_RDONLY | O_PATH, 0, &o);
  if (rc < 0) return rc;
  rc = ostio__pl_obj_stat(o, st);
  ostio__pl_obj_release(o);
  return rc;
}

int ostio__pl_ctr_remove(const char *norm)
{
  const ostio__store_ops *k = NULL;
  int rc = ostio__store_of_path(norm, &k);
  if (rc == 0)
    rc = k->remove ? k->remove(norm)
                   : ostio__fail(OSTIO_ENOTSUP, "the %s kind cannot be removed here", k->name);
  if (rc == 0) return 0;
  ostio__pl_debug("ostio-preload: cannot remove %s: %s", norm, ostio_last_error());
  return rc == OSTIO_ENOENT ? -ENOENT : rc == OSTIO_EACCES ? -EACCES
       : rc == OSTIO_ENOTEMPTY ? -ENOTEMPTY : -EIO;
}

/* The container's manifest opened read-only: a real fd whose kernel offset
 * carries the logical offset (shared by dup, fork and exec like any file
 * offset) and whose target names the container after an exec. Nothing is
 * ever written through it. */
int ostio__pl_placeholder(ostio__pl_obj *o, int reserved, int flags)
{
  int cl = flags & O_CLOEXEC;
  int fd = openat(ostio__pl_obj_dirfd(o), OSTIO__CTR_MANIFEST,
                  O_RDONLY | O_NOFOLLOW | cl | (flags & O_APPEND));
  if (fd < 0) return -errno;
  /* onto the number reserved before the container's own fds were opened:
   * the lowest free fd, as the kernel would give */
  if (reserved >= 0 && fd != reserved) {
    int r = dup3(fd, reserved, cl);
    close(fd);
    if (r < 0) return -errno;
    fd = r;
  }
  if (fd >= ostio__pl_fdtab_cap) {
    close(fd);
    return -EMFILE;
  }
  return fd;
}

/* After exec: fds open on DIR/ostio.manifest with DIR a container under a
 * prefix were container fds of the program before. Their offset is the
 * kernel's; the access mode is read-write when the directory is writable
 * (the mode itself did not survive); O_APPEND did. */
void ostio__pl_adopt_fds(void)
{
  DIR *dir = opendir("/proc/self/fd");
  if (!dir) return;
  struct dirent *e;
  const char *suffix = "/" OSTIO__CTR_MANIFEST;
  size_t sl = strlen(suffix);
  while ((e = readdir(dir))) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (*end || fd < 0 || fd >= ostio__pl_fdtab_cap || fd == dirfd(dir)) continue;
    char link[64], target[PL_PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= (ssize_t)sl) continue;
    target[n] = '\0';
    if (strcmp(target + n - sl, suffix)) continue;
    target[n - sl] = '\0';
    if (ostio__pl_prefixes_match(&ostio__pl_paths, target) != 1) continue;
    int fl = fcntl((int)fd, F_GETFL);
    ostio__pl_obj *o;
    if (fl < 0 || (fl & O_ACCMODE) != O_RDONLY ||
        ostio__pl_obj_open(target, 1, O_RDONLY, 0, &o) < 0)
      continue;
    int acc = access(target, W_OK) == 0 ? O_RDWR : O_RDONLY;
    ostio__pl_desc *d = ostio__pl_desc_new(o, acc | (fl & O_APPEND));
    if (d) d->off = lseek((int)fd, 0, SEEK_CUR);
    if (d) d->shared = 1; /* the kernel offset is shared with the program that passed it */
    if (!d || d->off < 0 || ostio__pl_fdtab_set((int)fd, d) < 0) {
      free(d);
      ostio__pl_obj_release(o);
      continue;
    }
    ostio__pl_debug("ostio-preload: fd %ld inherited on %s", fd, target);
    if (fd <= 2) {
      FILE *f = ostio__pl_cookie_file((int)fd, fd == 0 ? "r" : "w");
      if (f && fd == 0) stdin = f;
      if (f && fd == 1) stdout = f;
      if (f && fd == 2) stderr = f;
    }
  }
  closedir(dir);
}

void ostio__pl_desc_release(ostio__pl_desc *d)
{
  void *o = ostio__pl_desc_put(d);
  if (o) {
    ostio__pl_inside++;
    ostio__pl_obj_release(o);
    ostio__pl_inside--;
  }
}
