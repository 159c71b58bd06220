/* Start-up of the preload and the real libc functions. Nothing here assumes
 * the constructor ran: every wrapper calls ostio__pl_active() first, which
 * initializes once. A failure at start-up leaves the library disabled: every
 * wrapper is then a direct pass-through. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "preload/preload.h"

__thread int ostio__pl_inside __attribute__((tls_model("initial-exec")));
int ostio__pl_enabled;
ostio__pl_prefixes ostio__pl_paths;
static int debug_on;
static pthread_once_t once = PTHREAD_ONCE_INIT;

PL_DECL_REAL(write);
PL_DECL_REAL(stat);
PL_DECL_REAL(readlink);
PL_DECL_REAL(faccessat);

void *ostio__pl_dlsym(const char *name)
{
  ostio__pl_inside++;
  void *p = dlsym(RTLD_NEXT, name);
  ostio__pl_inside--;
  if (!p && debug_on) {
    static const char m[] = "ostio-preload: a libc symbol is missing\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
  }
  return p;
}

void ostio__pl_debug(const char *fmt, ...)
{
  if (!debug_on) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  ostio__pl_inside++;
  ssize_t r = PL_REAL(write)(2, buf, (size_t)n);
  ostio__pl_inside--;
  (void)r;
}

static void fork_prepare(void)
{
  ostio__pl_inside++;
  ostio__pl_offsets_sync(); /* before the objects' locks: a reader holds its description's */
  ostio__pl_obj_atfork(0);
  ostio__pl_fdtab_lock();
  ostio__pl_fdtab_mark_shared();
  ostio__pl_inside--;
}
static void fork_parent(void)
{
  ostio__pl_fdtab_unlock();
  ostio__pl_obj_atfork(1);
}
static void fork_child(void)
{
  ostio__pl_fdtab_unlock();
  ostio__pl_inside++;
  ostio__pl_obj_atfork(2);
  ostio__pl_inside--;
}

static void do_init(void)
{
  ostio__pl_inside++;
  const char *dbg = getenv("OSTIO_PRELOAD_DEBUG");
  debug_on = dbg && !strcmp(dbg, "1");
  const char *spec = getenv("OSTIO_PRELOAD_PATHS");
  char cwd[PL_PATH_MAX];
  if (!spec || !*spec) goto out;
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "/");
  ostio__pl_prefixes lex = {0};
  ostio__pl_prefixes_parse(&lex, spec, cwd);
  for (int i = 0; i < lex.n; i++) {
    ostio__pl_prefixes_add(&ostio__pl_paths, lex.p[i]);
    char *rp = realpath(lex.p[i], NULL); /* the symlink-free spelling too */
    if (rp) {
      ostio__pl_prefixes_add(&ostio__pl_paths, rp);
      free(rp);
    }
  }
  ostio__pl_prefixes_free(&lex);
  if (ostio__pl_paths.n == 0) goto out;
  struct rlimit rl;
  int cap = 65536;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
      rl.rlim_max > (rlim_t)cap)
    cap = rl.rlim_max > (1u << 20) ? (1 << 20) : (int)rl.rlim_max;
  if (ostio__pl_fdtab_init(cap) < 0 || pthread_atfork(fork_prepare, fork_parent, fork_child)) {
    ostio__pl_debug("ostio-preload: start-up failed; disabled");
    goto out;
  }
  ostio__pl_enabled = 1;
  ostio__pl_adopt_fds();
  for (int i = 0; i < ostio__pl_paths.n; i++)
    ostio__pl_debug("ostio-preload: serving containers under %s", ostio__pl_paths.p[i]);
out:
  ostio__pl_inside--;
}

void ostio__pl_init(void)
{
  if (ostio__pl_inside) return;
  pthread_once(&once, do_init);
}

__attribute__((constructor)) static void pl_ctor(void) { ostio__pl_init(); }

/* Pending index records reach the logs at exit (destructors) and _exit,
 * which skips them: a write() that returned is never lost by exiting. */
__attribute__((destructor)) static void pl_dtor(void)
{
  if (!ostio__pl_enabled) return;
  ostio__pl_inside++;
  ostio__pl_offsets_sync();
  ostio__pl_obj_flush_all();
  ostio__pl_obj_exit();
  ostio__pl_inside--;
}

PL_DECL_REAL(_exit);
PL_EXPORT void _exit(int status)
{
  pl_dtor();
  PL_REAL(_exit)(status);
  __builtin_unreachable();
}

PL_EXPORT void _Exit(int status) { _exit(status); }

int ostio__pl_resolve(int dirfd, const char *path, char *norm)
{
  char base[PL_PATH_MAX];
  if (!path) return 0;
  if (path[0] != '/') {
    if (dirfd == AT_FDCWD) {
      if (!getcwd(base, sizeof base)) return 0;
    } else {
      char link[64];
      snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
      ssize_t n = PL_REAL(readlink)(link, base, sizeof base - 1);
      if (n <= 0 || base[0] != '/') return 0;
      base[n] = '\0';
    }
  }
  if (ostio__pl_path_norm(path[0] == '/' ? "/" : base, path, norm, PL_PATH_MAX) < 0) return 0;
  return ostio__pl_prefixes_match(&ostio__pl_paths, norm) != 0;
}

/* Is a directory strictly between a prefix and norm a container? One
 * faccessat per such level (none for a name directly in a prefix). */
int ostio__pl_below_ctr(const char *norm)
{
  size_t plen = 0;
  for (int i = 0; i < ostio__pl_paths.n; i++) {
    size_t l = ostio__pl_paths.len[i];
    if (!strncmp(norm, ostio__pl_paths.p[i], l) && norm[l] == '/' && (!plen || l < plen))
      plen = l;
  }
  if (!plen) return 0;
  char m[PL_PATH_MAX + 32];
  int below = 0;
  ostio__pl_inside++;
  int e = errno;
  for (const char *s = strchr(norm + plen + 1, '/'); s && !below; s = strchr(s + 1, '/')) {
    snprintf(m, sizeof m, "%.*s/ostio.manifest", (int)(s - norm), norm);
    if (PL_REAL(faccessat)(AT_FDCWD, m, F_OK, AT_EACCESS) == 0) below = 1;
    else if (errno == ENOTDIR) break; /* the kernel's own ENOTDIR */
  }
  errno = e;
  ostio__pl_inside--;
  return below;
}

int ostio__pl_classify(int dirfd, const char *path, char *norm)
{
  if (!ostio__pl_resolve(dirfd, path, norm)) return PL_PATH_PLAIN;
  if (ostio__pl_prefixes_match(&ostio__pl_paths, norm) != 1) return PL_PATH_PLAIN;
  if (ostio__pl_below_ctr(norm)) return PL_PATH_BELOW;
  struct stat st;
  ostio__pl_inside++;
  int rc = PL_REAL(stat)(norm, &st);
  int e = errno, kind = PL_PATH_PLAIN;
  if (rc == 0 && S_ISDIR(st.st_mode)) {
    char m[PL_PATH_MAX + 32];
    snprintf(m, sizeof m, "%s/ostio.manifest", norm);
    if (PL_REAL(faccessat)(AT_FDCWD, m, F_OK, AT_EACCESS) == 0) kind = PL_PATH_CTR;
  } else if (rc < 0 && e == ENOENT) {
    kind = PL_PATH_NEW; /* its parent is not a container: checked above */
  }
  ostio__pl_inside--;
  errno = e;
  return kind;
}
