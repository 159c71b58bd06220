/* See opencount.h. No fortified <fcntl.h> here: this file defines open. */
#undef _FORTIFY_SOURCE
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "opencount.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char watched[PATH_MAX];
static long count;

void oc_watch(const char *suffix)
{
  snprintf(watched, sizeof watched, "%s", suffix ? suffix : "");
  __atomic_store_n(&count, 0, __ATOMIC_SEQ_CST);
}

long oc_count(void) { return __atomic_load_n(&count, __ATOMIC_SEQ_CST); }

static void seen(const char *path)
{
  size_t n = strlen(watched), m = path ? strlen(path) : 0;
  if (n && m >= n && !strcmp(path + m - n, watched)) __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
}

static int wants_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

#define OPEN_LIKE(name)                                                       \
  int name(const char *path, int flags, ...)                                  \
  {                                                                           \
    static open_fn real;                                                      \
    mode_t mode = 0;                                                          \
    if (wants_mode(flags)) {                                                  \
      va_list ap;                                                             \
      va_start(ap, flags);                                                    \
      mode = (mode_t)va_arg(ap, int);                                         \
      va_end(ap);                                                             \
    }                                                                         \
    if (!real) real = (open_fn)next(#name);                                   \
    seen(path);                                                               \
    return real(path, flags, mode);                                           \
  }
#define OPENAT_LIKE(name)                                                     \
  int name(int dirfd, const char *path, int flags, ...)                       \
  {                                                                           \
    static openat_fn real;                                                    \
    mode_t mode = 0;                                                          \
    if (wants_mode(flags)) {                                                  \
      va_list ap;                                                             \
      va_start(ap, flags);                                                    \
      mode = (mode_t)va_arg(ap, int);                                         \
      va_end(ap);                                                             \
    }                                                                         \
    if (!real) real = (openat_fn)next(#name);                                 \
    seen(path);                                                               \
    return real(dirfd, path, flags, mode);                                    \
  }

OPEN_LIKE(open)
OPEN_LIKE(open64)
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __open_2(const char *path, int flags) { return open(path, flags); }
int __open64_2(const char *path, int flags) { return open64(path, flags); }

int oc_held(const char *path)
{
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int held = 0;
  char want[PATH_MAX], link[PATH_MAX + 32], target[PATH_MAX];
  if (!realpath(path, want)) snprintf(want, sizeof want, "%s", path);
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0) continue;
    target[n] = '\0';
    held += !strcmp(target, want);
  }
  closedir(d);
  return held;
}
