/* Directory listings: an entry that is a container reports DT_REG (its
 * internals are never listed: it is one entry). Only streams opened on a
 * directory under (or at) a prefix are tracked. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/preload.h"

PL_DECL_REAL(opendir);
PL_DECL_REAL(fdopendir);
PL_DECL_REAL(readdir);
PL_DECL_REAL(readdir64);
PL_DECL_REAL(closedir);
PL_DECL_REAL(faccessat);

#define NTRACK 64
static DIR *tracked[NTRACK];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int ntracked;

static void track(DIR *d, int on)
{
  pthread_mutex_lock(&mu);
  for (int i = 0; i < NTRACK; i++) {
    if (on && !tracked[i]) {
      tracked[i] = d;
      ntracked++;
      break;
    }
    if (!on && tracked[i] == d) {
      tracked[i] = NULL;
      ntracked--;
      break;
    }
  }
  pthread_mutex_unlock(&mu);
}

static int is_tracked(DIR *d)
{
  if (!__atomic_load_n(&ntracked, __ATOMIC_RELAXED)) return 0;
  int r = 0;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < NTRACK && !r; i++) r = tracked[i] == d;
  pthread_mutex_unlock(&mu);
  return r;
}

static DIR *maybe_track(int dirfd, const char *path, DIR *d)
{
  char norm[PL_PATH_MAX];
  if (d && ostio__pl_active() && ostio__pl_resolve_at(dirfd, path, norm, 0)) track(d, 1);
  return d;
}

PL_EXPORT DIR *opendir(const char *path)
{
  char norm[PL_PATH_MAX];
  int k = ostio__pl_active() ? ostio__pl_classify(AT_FDCWD, path, norm) : PL_PATH_PLAIN;
  if (k == PL_PATH_CTR || k == PL_PATH_BELOW) {
    errno = ENOTDIR; /* a container is a file */
    return NULL;
  }
  return maybe_track(AT_FDCWD, path, PL_REAL(opendir)(path));
}

PL_EXPORT DIR *fdopendir(int fd)
{
  if (OURS(fd)) {
    errno = ENOTDIR;
    return NULL;
  }
  DIR *d = PL_REAL(fdopendir)(fd);
  return ostio__pl_inside ? d : maybe_track(fd, "", d);
}

PL_EXPORT int closedir(DIR *d)
{
  if (is_tracked(d)) track(d, 0);
  return PL_REAL(closedir)(d);
}

/* DT_DIR (or unknown) entries holding ostio.manifest become DT_REG. */
static void fix_type(DIR *d, const char *name, unsigned char *type)
{
  if (*type != DT_DIR && *type != DT_UNKNOWN) return;
  if (!strcmp(name, ".") || !strcmp(name, "..")) return;
  char m[512];
  if (snprintf(m, sizeof m, "%s/ostio.manifest", name) >= (int)sizeof m) return;
  ostio__pl_inside++;
  if (PL_REAL(faccessat)(dirfd(d), m, F_OK, AT_EACCESS) == 0)
    *type = DT_REG;
  ostio__pl_inside--;
}

/* A container unlinked while open (renamed to a hidden name until its last
 * close) is not listed. */
static int hidden(const char *name)
{
  return !strncmp(name, PL_UNLINKED_PREFIX, sizeof PL_UNLINKED_PREFIX - 1);
}

PL_EXPORT struct dirent *readdir(DIR *d)
{
  struct dirent *e = PL_REAL(readdir)(d);
  if (!e || ostio__pl_inside || !is_tracked(d)) return e;
  while (e && hidden(e->d_name)) e = PL_REAL(readdir)(d);
  if (e) fix_type(d, e->d_name, &e->d_type);
  return e;
}

PL_EXPORT struct dirent64 *readdir64(DIR *d)
{
  struct dirent64 *e = PL_REAL(readdir64)(d);
  if (!e || ostio__pl_inside || !is_tracked(d)) return e;
  while (e && hidden(e->d_name)) e = PL_REAL(readdir64)(d);
  if (e) fix_type(d, e->d_name, &e->d_type);
  return e;
}
