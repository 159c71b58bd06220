/* Path handling for the preload: lexical normalization (the cheap
 * "could this be in a prefix?" test), the kernel-like resolution of a
 * candidate path (through the system calls the caller passes in), and the
 * set of OSTIO_PRELOAD_PATHS prefixes. No preload state: the unit test
 * drives it with libc's own functions on a real directory tree. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/preload.h"

int ostio__pl_path_norm(const char *cwd, const char *path, char *out, size_t cap)
{
  size_t n = 0;
  if (cap < 2) return -1;
  out[n++] = '/';
  const char *parts[2] = {path[0] == '/' ? NULL : cwd, path};
  for (int k = 0; k < 2; k++) {
    const char *s = parts[k];
    if (!s) continue;
    while (*s) {
      while (*s == '/') s++;
      if (!*s) break;
      const char *e = s;
      while (*e && *e != '/') e++;
      size_t len = (size_t)(e - s);
      if (len == 1 && s[0] == '.') {
        /* nothing */
      } else if (len == 2 && s[0] == '.' && s[1] == '.') {
        while (n > 1 && out[n - 1] != '/') n--;
        if (n > 1) n--; /* the slash before the removed component */
      } else {
        if (n > 1) {
          if (n + 1 >= cap) return -1;
          out[n++] = '/';
        }
        if (n + len >= cap) return -1;
        memcpy(out + n, s, len);
        n += len;
      }
      s = e;
    }
  }
  out[n] = '\0';
  return 0;
}

/* ---- /proc links -------------------------------------------------------------------------- */

/* The component at *s equals word (followed by '/' or the end): advance. */
static int eat(const char **s, const char *word)
{
  size_t l = strlen(word);
  if (strncmp(*s, word, l) || ((*s)[l] != '/' && (*s)[l] != '\0')) return 0;
  *s += l;
  return 1;
}

static int eat_digits(const char **s)
{
  const char *p = *s;
  while (*p >= '0' && *p <= '9') p++;
  if (p == *s || (*p != '/' && *p != '\0')) return 0;
  *s = p;
  return 1;
}

int ostio__pl_is_procpath(const char *norm)
{
  const char *s = norm;
  if (!strncmp(s, "/dev/", 5)) {
    s += 5;
    return eat(&s, "fd") || eat(&s, "stdin") || eat(&s, "stdout") || eat(&s, "stderr");
  }
  if (strncmp(s, "/proc/", 6)) return 0;
  s += 6;
  if (eat(&s, "thread-self")) {
    /* /proc/thread-self/{fd,cwd,root} */
  } else if (eat(&s, "self") || eat_digits(&s)) {
    if (!strncmp(s, "/task/", 6)) { /* /proc/P/task/T/... */
      s += 6;
      if (!eat_digits(&s)) return 0;
    }
  } else {
    return 0;
  }
  if (*s != '/') return 0;
  s++;
  return eat(&s, "fd") || eat(&s, "cwd") || eat(&s, "root");
}

/* R is a /proc/.../fd directory (its entries are the magic fd links). */
static int is_proc_fd_dir(const char *r)
{
  size_t l = strlen(r);
  return !strncmp(r, "/proc/", 6) && l > 9 && !strcmp(r + l - 3, "/fd");
}

/* ---- resolution ---------------------------------------------------------------------------- */

/* The real path of the directory dir (relative to dirfd, or base when dir
 * is ""), into out: the kernel's own answer (an O_PATH open, then its
 * /proc/self/fd link), so symlinks are resolved before "..", exactly. */
static int real_dir(const ostio__pl_fsops *ops, int dirfd, const char *base, const char *dir,
                    char *out, size_t cap)
{
  if (!*dir) {
    if (!base) return -ENOENT;
    size_t l = strlen(base);
    if (base[0] != '/' || l >= cap) return base[0] != '/' ? -ENOENT : -ENAMETOOLONG;
    memcpy(out, base, l + 1);
    return 0;
  }
  int fd = ops->openat(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -errno;
  char link[40];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ops->readlinkat(AT_FDCWD, link, out, cap);
  int e = errno;
  ops->close(fd);
  if (n >= (ssize_t)cap) return -ENAMETOOLONG;
  if (n <= 0 || out[0] != '/') return n <= 0 && e != ENOENT ? -e : -ENOENT; /* no /proc */
  out[n] = '\0';
  return 0;
}

/* out = dir + "/" + name ("/" + name when dir is "/"). */
static int join(char *out, size_t cap, const char *dir, const char *name, size_t nlen)
{
  size_t dl = strlen(dir);
  if (dl == 1) dl = 0; /* "/" */
  if (dl + 1 + nlen >= cap) return -ENAMETOOLONG;
  if (out != dir) memmove(out, dir, dl);
  out[dl] = '/';
  memcpy(out + dl + 1, name, nlen);
  out[dl + 1 + nlen] = '\0';
  return 0;
}

static int is_dots(const char *s) { return !strcmp(s, ".") || !strcmp(s, ".."); }

/* dir (dl bytes) could not be resolved: its ancestors, textually, until one
 * resolves; out = that real directory + "/" + the component below it. */
static int deepest(const ostio__pl_fsops *ops, int dirfd, const char *base, char *dir, size_t dl,
                   char *out, size_t cap)
{
  char comp[PL_PATH_MAX];
  for (;;) {
    while (dl > 1 && dir[dl - 1] == '/') dl--;
    char *cut = memrchr(dir, '/', dl);
    const char *c = cut ? cut + 1 : dir;
    size_t clen = dl - (size_t)(c - dir);
    memcpy(comp, c, clen);
    comp[clen] = '\0';
    size_t nl = !cut ? 0 : cut == dir ? 1 : (size_t)(cut - dir);
    dir[nl] = '\0';
    if (clen && !is_dots(comp) && real_dir(ops, dirfd, base, dir, out, cap) == 0)
      return join(out, cap, out, comp, clen);
    if (nl == 0 || (nl == 1 && dir[0] == '/')) return -1;
    dl = nl;
  }
}

int ostio__pl_path_resolve(const ostio__pl_fsops *ops, int dirfd, const char *path,
                           const char *base, int how, char *out, size_t cap, ostio__pl_res *res)
{
  char p[PL_PATH_MAX], dir[PL_PATH_MAX];
  res->kind = PL_RES_NAME;
  res->lerr = ENOENT;
  out[0] = '\0';
  if (cap < 2) return -ENAMETOOLONG;
  size_t len = strnlen(path, sizeof p);
  if (len >= sizeof p) return -ENAMETOOLONG; /* the kernel's limit: PATH_MAX with the NUL */
  memcpy(p, path, len + 1);
  int magic = 0; /* the last hop was a /proc fd link */
  int follow = !(how & PL_NOFOLLOW);
  for (int hops = 0;; hops++) {
    if (hops > 40) return -ELOOP; /* the kernel's MAXSYMLINKS */
    /* the final component, trailing slashes (which force following) aside */
    int slash = 0;
    while (len > 1 && p[len - 1] == '/') p[--len] = '\0', slash = 1;
    char *last = strrchr(p, '/');
    const char *name = last ? last + 1 : p;
    if (!*p || (len == 1 && p[0] == '/') || is_dots(name)) { /* the directory itself */
      int rc = real_dir(ops, dirfd, base, p, out, cap);
      if (rc < 0) return rc;
      res->kind = PL_RES_DIR;
      return 0;
    }
    size_t dl = last ? (size_t)(last - p) : 0;
    if (last && dl == 0) dl = 1; /* "/name" */
    memcpy(dir, p, dl);
    dir[dl] = '\0';
    int rc = real_dir(ops, dirfd, base, dir, out, cap);
    if (rc == -ENOENT || rc == -ENOTDIR) {
      /* A directory on the way is missing or not a directory: out becomes
       * the deepest real directory + the component that failed, for the
       * caller's "is a container on the way?" (the kernel: ENOTDIR). */
      if (deepest(ops, dirfd, base, dir, dl, out, cap) < 0) out[0] = '\0';
      return rc;
    }
    if (rc < 0) return rc;
    size_t nlen = strlen(name);
    if ((rc = join(out, cap, out, name, nlen)) < 0) return rc;
    if (slash) follow = 1; /* "link/" names the link's target, even for lstat */
    if (!follow && !(how & PL_LSTAT)) return 0;
    if (ops->fstatat(AT_FDCWD, out, &res->st, AT_SYMLINK_NOFOLLOW) < 0) {
      res->lerr = errno;
      /* an fd link to a deleted file: the kernel reopens the inode, no name */
      return magic ? -ENOENT : 0;
    }
    res->lerr = 0;
    if (!follow || !S_ISLNK(res->st.st_mode)) return 0;
    /* A final symlink: its target, relative to the real directory. */
    char tgt[PL_PATH_MAX];
    ssize_t n = ops->readlinkat(AT_FDCWD, out, tgt, sizeof tgt);
    if (n <= 0 || n >= (ssize_t)sizeof tgt) return n <= 0 ? -errno : -ENAMETOOLONG;
    tgt[n] = '\0';
    size_t ol = strlen(out) - nlen - 1; /* out[0..ol) is the real directory */
    if (ol == 0) ol = 1;
    out[ol] = '\0';
    if ((magic = is_proc_fd_dir(out))) {
      /* A magic fd link: "pipe:[..]" and the like name no file; a
       * container's placeholder (its manifest) stands for the container. */
      if (tgt[0] != '/') return -ENOENT;
      static const char man[] = "/ostio.manifest";
      size_t ml = sizeof man - 1;
      if ((size_t)n > ml && !strcmp(tgt + n - ml, man)) tgt[n -= (ssize_t)ml] = '\0';
    }
    if (tgt[0] == '/') {
      memcpy(p, tgt, (size_t)n + 1);
      len = (size_t)n;
    } else {
      if ((rc = join(p, sizeof p, out, tgt, (size_t)n)) < 0) return rc;
      len = strlen(p);
    }
    dirfd = AT_FDCWD;
    base = NULL;
    res->lerr = ENOENT;
  }
}

/* ---- the prefix set --------------------------------------------------------------------------- */

int ostio__pl_prefixes_add(ostio__pl_prefixes *ps, const char *norm)
{
  if (!strcmp(norm, "/")) return 0;
  for (int i = 0; i < ps->n; i++)
    if (!strcmp(ps->p[i], norm)) return 0;
  char *c = ps->n < PL_PREFIX_MAX ? strdup(norm) : NULL;
  if (!c) return -1;
  ps->p[ps->n] = c;
  ps->len[ps->n++] = strlen(c);
  return 0;
}

/* A printable copy of an entry for a one-line message. */
static void quote(char *dst, size_t cap, const char *s, size_t len)
{
  size_t n = 0;
  for (; n < len && n + 4 < cap; n++)
    dst[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
  if (n < len) memcpy(dst + n, "...", 3), n += 3;
  dst[n] = '\0';
}

#define PL_ACCEPTED "absolute paths of existing directories other than /, separated by ':'"

int ostio__pl_prefixes_parse(ostio__pl_prefixes *spelled, ostio__pl_prefixes *real,
                             const char *spec, const char *var, char *why, size_t whycap)
{
  char item[PL_PATH_MAX], norm[PL_PATH_MAX], q[96];
  int count = 0;
  if (whycap) why[0] = '\0';
  if (!spec || !*spec) return 0;
  for (const char *s = spec; s; count++) {
    const char *e = strchr(s, ':');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    quote(q, sizeof q, s, len);
    const char *bad = NULL;
    char *rp = NULL;
    struct stat st;
    if (count >= PL_PREFIX_ENTRIES) bad = "more than " PL_STR(PL_PREFIX_ENTRIES) " directories";
    else if (len == 0) bad = "an empty entry (a leading, trailing or doubled ':')";
    else if (s[0] != '/') bad = "a relative path";
    else if (len >= sizeof item) bad = "a path too long";
    if (!bad) {
      memcpy(item, s, len);
      item[len] = '\0';
      if (!(rp = realpath(item, NULL))) bad = strerror(errno);
      else if (stat(rp, &st) < 0 || !S_ISDIR(st.st_mode)) bad = "not a directory";
      else if (!strcmp(rp, "/")) bad = "the root directory (every file would become a container)";
      else if (ostio__pl_path_norm("/", item, norm, sizeof norm) < 0) bad = "a path too long";
    }
    if (bad) {
      free(rp);
      snprintf(why, whycap, "%s entry \"%s\": %s; accepted: " PL_ACCEPTED, var, q, bad);
      ostio__pl_prefixes_free(spelled);
      ostio__pl_prefixes_free(real);
      return -1;
    }
    /* as written and real: the cheap lexical test; real: what resolved
     * paths are matched against */
    int r = ostio__pl_prefixes_add(spelled, norm) | ostio__pl_prefixes_add(spelled, rp) |
            ostio__pl_prefixes_add(real, rp);
    free(rp);
    if (r < 0) {
      snprintf(why, whycap, "%s: out of memory", var);
      ostio__pl_prefixes_free(spelled);
      ostio__pl_prefixes_free(real);
      return -1;
    }
    s = e ? e + 1 : NULL;
  }
  return real->n;
}

void ostio__pl_prefixes_free(ostio__pl_prefixes *ps)
{
  for (int i = 0; i < ps->n; i++) free(ps->p[i]);
  memset(ps, 0, sizeof *ps);
}

int ostio__pl_prefixes_match(const ostio__pl_prefixes *ps, const char *norm)
{
  for (int i = 0; i < ps->n; i++) {
    size_t l = ps->len[i];
    if (strncmp(norm, ps->p[i], l) != 0) continue;
    if (norm[l] == '/') return 1;
    if (norm[l] == '\0') return 2;
  }
  return 0;
}
