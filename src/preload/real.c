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
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/preload.h"

__thread int ostio__pl_inside __attribute__((tls_model("initial-exec")));
int ostio__pl_enabled;
pid_t ostio__pl_owner_pid;
ostio__pl_prefixes ostio__pl_paths;
static int debug_on;
static pthread_once_t once = PTHREAD_ONCE_INIT;

PL_DECL_REAL(write);
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
  ostio__pl_owner_pid = (pid_t)syscall(SYS_getpid); /* the child's own copy from now on */
  ostio__pl_fdtab_unlock();
  ostio__pl_inside++;
  ostio__pl_obj_atfork(2);
  ostio__pl_inside--;
}

/* A refused OSTIO_PRELOAD_PATHS (or OSTIO_MPIIO_PATHS in its place): one line on stderr, whatever
 * OSTIO_PRELOAD_DEBUG says (the user asked for containers and gets none). */
static void warn_line(const char *why)
{
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "ostio-preload: %s; the library is disabled\n", why);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1, buf[n - 1] = '\n';
  ssize_t r = PL_REAL(write)(2, buf, (size_t)n);
  (void)r;
}

static ostio__pl_prefixes spelled; /* the cheap lexical test (path.c)        */
static ostio__pl_fsops fsops;      /* libc's real calls, for resolution      */
PL_DECL_REAL(openat);
PL_DECL_REAL(readlinkat);
PL_DECL_REAL(fstatat);
PL_DECL_REAL(close);

/* libostio-mpiio.so is in the process (preloaded or linked): its marker
 * symbol is found. Both are loaded before any constructor runs. */
static int mpiio_loaded(void) { return dlsym(RTLD_DEFAULT, "ostio__mpiio_marker") != NULL; }

/* Called by libostio-mpiio.so around its own work on the files it serves
 * (docs/mpiio.md, "POSIX calls on the same files"): its container code
 * makes the same system calls as the application, and they must reach libc,
 * as the preload's own do. delta +1 on entry, -1 on the way out (this
 * thread only); returns the new depth. */
PL_EXPORT int ostio__preload_inside(int delta)
{
  ostio__pl_inside += delta;
  return ostio__pl_inside;
}

static void do_init(void)
{
  ostio__pl_inside++;
  ostio__pl_owner_pid = (pid_t)syscall(SYS_getpid);
  const char *dbg = getenv("OSTIO_PRELOAD_DEBUG");
  debug_on = dbg && !strcmp(dbg, "1");
  const char *var = "OSTIO_PRELOAD_PATHS", *spec = getenv(var);
  char why[768];
  if ((!spec || !*spec) && mpiio_loaded()) spec = getenv(var = "OSTIO_MPIIO_PATHS");
  if (!spec || !*spec) goto out; /* not asked for: silent */
  fsops.openat = PL_REAL(openat);
  fsops.readlinkat = PL_REAL(readlinkat);
  fsops.fstatat = PL_REAL(fstatat);
  fsops.close = PL_REAL(close);
  if (!fsops.openat || !fsops.readlinkat || !fsops.fstatat || !fsops.close ||
      !PL_REAL(readlink) || !PL_REAL(faccessat)) {
    warn_line("libc functions missing (dlsym)");
    goto out;
  }
  if (ostio__pl_prefixes_parse(&spelled, &ostio__pl_paths, spec, var, why, sizeof why) <= 0) {
    warn_line(why);
    goto out;
  }
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
    ostio__pl_debug("ostio-preload: serving containers under %s (%s)", ostio__pl_paths.p[i], var);
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
  /* A vfork child's _exit (its exec failed): the writers are the parent's. */
  if (!ostio__pl_enabled || !ostio__pl_owner()) return;
  ostio__pl_inside++;
  ostio__pl_offsets_sync();
  ostio__pl_obj_flush_all(1);
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

/* The cheap test, before any system call beyond what a relative path
 * needs (getcwd, or the dirfd's /proc link): can (dirfd, path) be in a
 * prefix? Lexically inside or at a prefix (as written or real), or through
 * a /proc or /dev/fd link. Anything else passes to libc with no further
 * cost (docs/preload.md: a path that reaches a prefix only through a
 * symlink outside every prefix is not looked at). base receives the real
 * directory of a relative path. */
static int candidate(int dirfd, const char *path, char *base, char *lex)
{
  if (path[0] != '/') {
    if (dirfd == AT_FDCWD) {
      if (!getcwd(base, PL_PATH_MAX) || base[0] != '/') return 0;
    } else {
      char link[40];
      snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
      ssize_t n = PL_REAL(readlink)(link, base, PL_PATH_MAX);
      if (n <= 0 || n >= PL_PATH_MAX || base[0] != '/') return 0;
      base[n] = '\0';
    }
  }
  if (ostio__pl_path_norm(path[0] == '/' ? "/" : base, path, lex, PL_PATH_MAX) < 0) return 0;
  return ostio__pl_prefixes_match(&spelled, lex) != 0 || ostio__pl_is_procpath(lex);
}

/* No "." or ".." component in path. */
static int no_dots(const char *path)
{
  for (const char *s = path; *s;) {
    while (*s == '/') s++;
    const char *e = s;
    while (*e && *e != '/') e++;
    if ((e - s == 1 && s[0] == '.') || (e - s == 2 && s[0] == '.' && s[1] == '.')) return 0;
    s = e;
  }
  return 1;
}

/* dir (normalized, absolute) is a real prefix or a chain of real
 * directories (no symlink) below one. */
static int real_below_prefix(const char *dir)
{
  size_t plen = 0;
  for (int i = 0; i < ostio__pl_paths.n; i++) {
    size_t l = ostio__pl_paths.len[i];
    if (!strncmp(dir, ostio__pl_paths.p[i], l) && (dir[l] == '/' || !dir[l]) && l > plen) plen = l;
  }
  if (!plen) return 0;
  char p[PL_PATH_MAX];
  struct stat st;
  int ok = 1, e = errno;
  ostio__pl_inside++;
  for (const char *s = dir + plen; ok && *s == '/';) {
    const char *n = strchr(s + 1, '/');
    size_t l = n ? (size_t)(n - dir) : strlen(dir);
    memcpy(p, dir, l);
    p[l] = '\0';
    ok = PL_REAL(fstatat)(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    s = dir + l;
  }
  ostio__pl_inside--;
  errno = e;
  return ok;
}

/* Resolution of a candidate: the path-resolve result (0 or -errno). */
static int resolve(int dirfd, const char *path, char *norm, int how, ostio__pl_res *res)
{
  char base[PL_PATH_MAX];
  norm[0] = '\0';
  /* Not ours: outside every prefix, or in a vfork child (the system call
   * only for a path that may be in a prefix). */
  if (!path || !candidate(dirfd, path, base, norm) || !ostio__pl_owner()) {
    norm[0] = '\0';
    return -EXDEV;
  }
  /* Spelled without "." or "..", the path's directory is lexically its
   * real one when no component below the prefix is a symlink (the prefix
   * itself was realpath'd at start-up): one lstat per level below the
   * prefix proves it, none for a name directly in it, instead of the
   * kernel round trip through /proc. */
  const char *name = strrchr(norm, '/');
  char dir[PL_PATH_MAX];
  dir[0] = '\0';
  const char *sl = strchr(path, '/');
  int simple = path[0] != '/' && (!sl || !sl[strspn(sl, "/")]); /* "name": in base, real */
  if (name && name > norm && path[0] && !simple && no_dots(path)) {
    size_t dl = (size_t)(name - norm);
    memcpy(dir, norm, dl);
    dir[dl] = '\0';
    if (!real_below_prefix(dir)) {
      dir[0] = '\0';
    } else {
      size_t nl = strlen(name + 1), pl = strlen(path);
      memmove(base, name + 1, nl + 1);
      if (pl && path[pl - 1] == '/' && nl + 1 < PL_PATH_MAX) memcpy(base + nl, "/", 2);
      dirfd = AT_FDCWD;
      path = base; /* the final name (and its trailing slash) in dir */
    }
  }
  int e = errno;
  ostio__pl_inside++;
  int rc = ostio__pl_path_resolve(&fsops, dirfd, path,
                                  dir[0] ? dir : path[0] == '/' ? NULL : base, how, norm,
                                  PL_PATH_MAX, res);
  ostio__pl_inside--;
  errno = e;
  if (rc < 0 && rc != -ENOENT && rc != -ENOTDIR) norm[0] = '\0';
  return rc;
}

int ostio__pl_resolve_at(int dirfd, const char *path, char *norm, int how)
{
  ostio__pl_res res;
  int rc = resolve(dirfd, path, norm, how, &res);
  if (rc < 0) return norm[0] && ostio__pl_prefixes_match(&ostio__pl_paths, norm) == 1;
  return ostio__pl_prefixes_match(&ostio__pl_paths, norm) != 0;
}

int ostio__pl_resolve(int dirfd, const char *path, char *norm)
{
  return ostio__pl_resolve_at(dirfd, path, norm, PL_NOFOLLOW);
}

static int has_manifest(const char *dir)
{
  char m[PL_PATH_MAX + 32];
  snprintf(m, sizeof m, "%s/ostio.manifest", dir);
  ostio__pl_inside++;
  int e = errno, r = PL_REAL(faccessat)(AT_FDCWD, m, F_OK, AT_EACCESS) == 0;
  errno = e;
  ostio__pl_inside--;
  return r;
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

int ostio__pl_classify_at(int dirfd, const char *path, char *norm, int how)
{
  ostio__pl_res res;
  int rc = resolve(dirfd, path, norm, how | PL_LSTAT, &res);
  if (rc < 0) /* a directory on the way does not resolve: a container there? */
    return norm[0] && ostio__pl_prefixes_match(&ostio__pl_paths, norm) == 1 &&
                   ostio__pl_below_ctr(norm)
               ? PL_PATH_BELOW
               : PL_PATH_PLAIN;
  if (ostio__pl_prefixes_match(&ostio__pl_paths, norm) != 1) return PL_PATH_PLAIN;
  if (ostio__pl_below_ctr(norm)) return PL_PATH_BELOW;
  if (res.kind == PL_RES_DIR) /* "ctr/." names a file's directory: ENOTDIR */
    return has_manifest(norm) ? PL_PATH_BELOW : PL_PATH_PLAIN;
  if (res.lerr == 0)
    return S_ISDIR(res.st.st_mode) && has_manifest(norm) ? PL_PATH_CTR : PL_PATH_PLAIN;
  return res.lerr == ENOENT ? PL_PATH_NEW : PL_PATH_PLAIN; /* the parent is no container */
}

int ostio__pl_classify(int dirfd, const char *path, char *norm)
{
  return ostio__pl_classify_at(dirfd, path, norm, 0);
}
