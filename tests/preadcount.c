/* See preadcount.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "preadcount.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static char watched[PATH_MAX];
static long calls;
static long long bytes;

void pc_watch(const char *part)
{
  snprintf(watched, sizeof watched, "%s", part ? part : "");
  calls = 0;
  bytes = 0;
}

long pc_calls(void) { return calls; }
long long pc_bytes(void) { return bytes; }

static void seen(int fd, ssize_t n)
{
  if (!watched[0]) return;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t m = readlink(link, path, sizeof path - 1);
  if (m < 0) return;
  path[m] = '\0';
  if (!strstr(path, watched)) return;
  calls++;
  if (n > 0) bytes += n;
}

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

#define PREAD_LIKE(name)                                                      \
  ssize_t name(int fd, void *buf, size_t len, off_t off)                      \
  {                                                                           \
    static pread_fn real;                                                     \
    if (!real) real = (pread_fn)dlsym(RTLD_NEXT, #name);                      \
    ssize_t n = real(fd, buf, len, off);                                      \
    seen(fd, n);                                                              \
    return n;                                                                 \
  }

PREAD_LIKE(pread)
PREAD_LIKE(pread64)
