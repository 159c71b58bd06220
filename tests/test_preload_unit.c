/* The pure parts of libostio-preload.so (issue 7): lexical path
 * normalization, the kernel-like resolution on a real directory tree with
 * symlinks (issue 13 item 4), the prefix set and OSTIO_PRELOAD_PATHS
 * validation, the fd -> description table and the offset sharing of
 * dup'ed descriptions. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/preload.h"
#include "testutil.h"

static void norm_is(const char *cwd, const char *path, const char *want)
{
  char out[PL_PATH_MAX];
  int rc = ostio__pl_path_norm(cwd, path, out, sizeof out);
  CHECKF(rc == 0 && !strcmp(out, want), "norm(%s, %s) = %s, want %s", cwd, path,
         rc ? "(error)" : out, want);
}

static void test_norm(void)
{
  norm_is("/", "/a/b", "/a/b");
  norm_is("/x", "/a//b/", "/a/b");
  norm_is("/x", "/a/./b/.", "/a/b");
  norm_is("/x", "/a/b/../c", "/a/c");
  norm_is("/x", "/../../a", "/a");
  norm_is("/x", "/", "/");
  norm_is("/x", "/a/..", "/");
  norm_is("/home/u", "f", "/home/u/f");
  norm_is("/home/u/", "./d/../f", "/home/u/f");
  norm_is("/home/u", "../v/f", "/home/v/f");
  norm_is("/home/u", "../../../f", "/f");
  norm_is("/home/u", "", "/home/u");
  norm_is("/home/u", "..", "/home");
  char small[8];
  CHECK(ostio__pl_path_norm("/", "/abcdefgh", small, sizeof small) == -1);
  CHECK(ostio__pl_path_norm("/", "/abcdef", small, sizeof small) == 0);
}

/* ---- resolution on a real tree ------------------------------------------------------- */

static char T[PL_PATH_MAX]; /* the tree's real root */
static const ostio__pl_fsops libc_ops = {openat, readlinkat, fstatat, close};

static void mk(const char *rel, int dir)
{
  char p[PL_PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/%s", T, rel);
  if (dir) CHECKF(mkdir(p, 0755) == 0, "mkdir %s", p);
  else {
    FILE *f = fopen(p, "w");
    CHECKF(f != NULL, "create %s", p);
    if (f) fclose(f);
  }
}

static void ln(const char *target, const char *rel)
{
  char p[PL_PATH_MAX + 64], t[PL_PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/%s", T, rel);
  if (target[0] == '@') snprintf(t, sizeof t, "%s/%s", T, target + 1); /* absolute in T */
  else snprintf(t, sizeof t, "%s", target);
  CHECKF(symlink(t, p) == 0, "symlink %s", p);
}

/* path and want use "@" for T; want NULL: only the return code matters. */
static void res_is(int dirfd, const char *path, const char *base, int how, int want_rc,
                   const char *want, int want_kind, int want_lerr)
{
  char pp[PL_PATH_MAX + 64], wp[PL_PATH_MAX + 64], bp[PL_PATH_MAX + 64], out[PL_PATH_MAX];
  snprintf(pp, sizeof pp, "%s%s", path[0] == '@' ? T : "", path + (path[0] == '@'));
  if (want) snprintf(wp, sizeof wp, "%s%s", want[0] == '@' ? T : "", want + (want[0] == '@'));
  if (base) snprintf(bp, sizeof bp, "%s%s", base[0] == '@' ? T : "", base + (base[0] == '@'));
  ostio__pl_res r;
  int rc = ostio__pl_path_resolve(&libc_ops, dirfd, pp, base ? bp : NULL, how, out, sizeof out, &r);
  CHECKF(rc == want_rc, "resolve(%s): rc %d (%s), want %d", path, rc, strerror(-rc), want_rc);
  if (want)
    CHECKF(!strcmp(out, wp), "resolve(%s) = %s, want %s", path, out, wp);
  if (rc == 0) {
    CHECKF(r.kind == want_kind, "resolve(%s): kind %d, want %d", path, r.kind, want_kind);
    if (want_lerr >= 0)
      CHECKF(r.lerr == want_lerr, "resolve(%s): lerr %d, want %d", path, r.lerr, want_lerr);
  }
}

static void test_resolve(void)
{
  char tmpl[PL_PATH_MAX];
  const char *td = getenv("TMPDIR");
  snprintf(tmpl, sizeof tmpl, "%s/ostio-pl-unit.XXXXXX", td && *td ? td : "/tmp");
  char *d = mkdtemp(tmpl);
  CHECK(d != NULL);
  if (!d) return;
  char *rp = realpath(d, NULL);
  snprintf(T, sizeof T, "%s", rp);
  free(rp);
  mk("P", 1), mk("P/c.dat", 1), mk("P/c.dat/ostio.manifest", 0), mk("P/real", 1);
  mk("O", 1), mk("O/sub", 1), mk("O/file", 0);
  ln("@O/sub", "P/lnk");      /* the issue's case: PREFIX/lnk/../c.dat is O/c.dat */
  ln("real", "P/rel");        /* a relative symlink to a directory inside     */
  ln("c.dat", "P/s");         /* a symlink to a container                      */
  ln("loop", "P/loop");       /* ELOOP                                         */
  ln("real/target.dat", "P/dangling");
  ln("@P", "Plink");          /* a prefix spelled through a symlink            */
  ln("../O/file", "P/tofile");

  /* symlinks before "..": not the lexical PREFIX/c.dat */
  char lex[PL_PATH_MAX], p[PL_PATH_MAX + 32];
  snprintf(p, sizeof p, "%s/P/lnk/../c.dat", T);
  CHECK(ostio__pl_path_norm("/", p, lex, sizeof lex) == 0);
  res_is(AT_FDCWD, "@/P/lnk/../c.dat", NULL, 0, 0, "@/O/c.dat", PL_RES_NAME, ENOENT);
  res_is(AT_FDCWD, "@/P/lnk/../file", NULL, 0, 0, "@/O/file", PL_RES_NAME, 0);
  res_is(AT_FDCWD, "@/P/lnk/../../P/c.dat", NULL, 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  res_is(AT_FDCWD, "@//P/./c.dat", NULL, 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  res_is(AT_FDCWD, "@/Plink/c.dat", NULL, 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  /* a final symlink: followed, or the name itself */
  res_is(AT_FDCWD, "@/P/s", NULL, 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  res_is(AT_FDCWD, "@/P/s", NULL, PL_NOFOLLOW, 0, "@/P/s", PL_RES_NAME, -1);
  ostio__pl_res r;
  char out[PL_PATH_MAX];
  snprintf(p, sizeof p, "%s/P/s", T);
  CHECK(ostio__pl_path_resolve(&libc_ops, AT_FDCWD, p, NULL, PL_NOFOLLOW | PL_LSTAT, out,
                               sizeof out, &r) == 0 && r.lerr == 0 && S_ISLNK(r.st.st_mode));
  res_is(AT_FDCWD, "@/P/s/", NULL, PL_NOFOLLOW, 0, "@/P/c.dat", PL_RES_NAME, 0); /* "/" follows */
  res_is(AT_FDCWD, "@/P/tofile", NULL, 0, 0, "@/O/file", PL_RES_NAME, 0);
  res_is(AT_FDCWD, "@/P/loop", NULL, 0, -ELOOP, NULL, 0, -1);
  /* new names: the real parent + the name */
  res_is(AT_FDCWD, "@/P/rel/new.dat", NULL, 0, 0, "@/P/real/new.dat", PL_RES_NAME, ENOENT);
  res_is(AT_FDCWD, "@/P/dangling", NULL, 0, 0, "@/P/real/target.dat", PL_RES_NAME, ENOENT);
  res_is(AT_FDCWD, "@/P/new.dat", NULL, PL_NOFOLLOW, 0, "@/P/new.dat", PL_RES_NAME, -1);
  /* directories named by ".", "..": at and across the prefix boundary */
  res_is(AT_FDCWD, "@/P/..", NULL, 0, 0, "@", PL_RES_DIR, -1);
  res_is(AT_FDCWD, "@/P/lnk/..", NULL, 0, 0, "@/O", PL_RES_DIR, -1);
  res_is(AT_FDCWD, "@/P/c.dat/.", NULL, 0, 0, "@/P/c.dat", PL_RES_DIR, -1);
  res_is(AT_FDCWD, "@/P/", NULL, 0, 0, "@/P", PL_RES_NAME, 0);
  res_is(AT_FDCWD, "/", NULL, 0, 0, "/", PL_RES_DIR, -1);
  /* a directory on the way that does not resolve: the deepest real one + the next name */
  res_is(AT_FDCWD, "@/P/nonexist/x", NULL, 0, -ENOENT, "@/P/nonexist", 0, -1);
  res_is(AT_FDCWD, "@/P/c.dat/sub/deeper/x", NULL, 0, -ENOENT, "@/P/c.dat/sub", 0, -1);
  res_is(AT_FDCWD, "@/P/c.dat/ostio.manifest/x", NULL, 0, -ENOTDIR, "@/P/c.dat/ostio.manifest",
         0, -1);
  res_is(AT_FDCWD, "@/P/lnk/nonexist/../x", NULL, 0, -ENOENT, "@/O/sub/nonexist", 0, -1);
  /* relative: against the dirfd (base: its real path) and the cwd */
  snprintf(p, sizeof p, "%s/P", T);
  int dfd = open(p, O_RDONLY | O_DIRECTORY);
  CHECK(dfd >= 0);
  res_is(dfd, "lnk/../c.dat", "@/P", 0, 0, "@/O/c.dat", PL_RES_NAME, ENOENT);
  res_is(dfd, "c.dat", "@/P", 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  res_is(dfd, "../Plink/s", "@/P", 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  res_is(dfd, "", "@/P", 0, 0, "@/P", PL_RES_DIR, -1);
  char cwd[PL_PATH_MAX];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK(chdir(p) == 0);
  res_is(AT_FDCWD, "lnk/../x", "@/P", 0, 0, "@/O/x", PL_RES_NAME, ENOENT);
  res_is(AT_FDCWD, "s", "@/P", PL_NOFOLLOW, 0, "@/P/s", PL_RES_NAME, -1);
  CHECK(chdir(cwd) == 0);
  /* /proc/self/fd: a placeholder (the manifest) is its container; a dirfd's
   * link is the directory; a pipe names no file */
  snprintf(p, sizeof p, "%s/P/c.dat/ostio.manifest", T);
  int mfd = open(p, O_RDONLY), pfd[2] = {-1, -1};
  CHECK(mfd >= 0 && pipe(pfd) == 0);
  char fp[64];
  snprintf(fp, sizeof fp, "/proc/self/fd/%d", mfd);
  res_is(AT_FDCWD, fp, NULL, 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  snprintf(fp, sizeof fp, "/dev/fd/%d", mfd);
  res_is(AT_FDCWD, fp, NULL, 0, 0, "@/P/c.dat", PL_RES_NAME, 0);
  snprintf(fp, sizeof fp, "/proc/self/fd/%d/n.dat", dfd);
  res_is(AT_FDCWD, fp, NULL, 0, 0, "@/P/n.dat", PL_RES_NAME, ENOENT);
  snprintf(fp, sizeof fp, "/proc/self/fd/%d", pfd[0]);
  res_is(AT_FDCWD, fp, NULL, 0, -ENOENT, NULL, 0, -1);
  close(mfd), close(pfd[0]), close(pfd[1]), close(dfd);
  /* too long: refused, never truncated or overflowed */
  char *lp = malloc(3 * PL_PATH_MAX);
  CHECK(lp != NULL);
  if (lp) {
    size_t n = (size_t)snprintf(lp, 3 * PL_PATH_MAX, "%s/P/", T);
    for (; n < 2 * PL_PATH_MAX; n += 2) memcpy(lp + n, "a/", 3);
    CHECK(ostio__pl_path_resolve(&libc_ops, AT_FDCWD, lp, NULL, 0, out, sizeof out, &r) ==
          -ENAMETOOLONG);
    lp[PL_PATH_MAX - 1] = '\0'; /* 4095 bytes: within the limit; the kernel says ENOENT */
    CHECK(ostio__pl_path_resolve(&libc_ops, AT_FDCWD, lp, NULL, 0, out, sizeof out, &r) == -ENOENT);
    free(lp);
  }
  snprintf(p, sizeof p, "%s/P/c.dat", T);
  char small[8];
  CHECK(ostio__pl_path_resolve(&libc_ops, AT_FDCWD, p, NULL, 0, small, sizeof small, &r) ==
        -ENAMETOOLONG);
  char longname[300];
  memset(longname, 'x', 299);
  longname[299] = '\0';
  char big[PL_PATH_MAX + 320];
  snprintf(big, sizeof big, "%s/P/%s", T, longname); /* NAME_MAX is the kernel's business */
  CHECK(ostio__pl_path_resolve(&libc_ops, AT_FDCWD, big, NULL, 0, out, sizeof out, &r) == 0 &&
        r.lerr == ENAMETOOLONG);
}

static void test_procpath(void)
{
  CHECK(ostio__pl_is_procpath("/proc/self/fd/3"));
  CHECK(ostio__pl_is_procpath("/proc/self/fd/3/x"));
  CHECK(ostio__pl_is_procpath("/proc/thread-self/fd/3"));
  CHECK(ostio__pl_is_procpath("/proc/123/fd/3"));
  CHECK(ostio__pl_is_procpath("/proc/123/task/124/fd/3"));
  CHECK(ostio__pl_is_procpath("/proc/self/cwd/x"));
  CHECK(ostio__pl_is_procpath("/proc/self/root/x"));
  CHECK(ostio__pl_is_procpath("/dev/fd/0"));
  CHECK(ostio__pl_is_procpath("/dev/stdout"));
  CHECK(!ostio__pl_is_procpath("/dev/null"));
  CHECK(!ostio__pl_is_procpath("/dev/stdoutx"));
  CHECK(!ostio__pl_is_procpath("/proc/meminfo"));
  CHECK(!ostio__pl_is_procpath("/proc/self/status"));
  CHECK(!ostio__pl_is_procpath("/proc/12x/fd/1"));
  CHECK(!ostio__pl_is_procpath("/proc/self/fdx"));
  CHECK(!ostio__pl_is_procpath("/scratch/proc/self/fd/1"));
}

static void refused(const char *spec, const char *what)
{
  ostio__pl_prefixes sp = {0}, re = {0};
  char why[768];
  int rc = ostio__pl_prefixes_parse(&sp, &re, spec, "OSTIO_PRELOAD_PATHS", why, sizeof why);
  CHECKF(rc == -1 && sp.n == 0 && re.n == 0, "OSTIO_PRELOAD_PATHS=%.60s accepted", spec);
  CHECKF(rc != -1 || (strstr(why, "OSTIO_PRELOAD_PATHS") && strstr(why, what) &&
                      strstr(why, "accepted: absolute paths") && !strchr(why, '\n')),
         "why: %s", why);
}

static void test_prefixes(void)
{
  char spec[4 * PL_PATH_MAX + 64];
  ostio__pl_prefixes sp = {0}, ps = {0};
  char why[768];
  snprintf(spec, sizeof spec, "%s/Plink/:%s/O:%s/P", T, T, T);
  CHECK(ostio__pl_prefixes_parse(&sp, &ps, spec, "OSTIO_PRELOAD_PATHS", why, sizeof why) == 2);
  char a[PL_PATH_MAX + 32];
  snprintf(a, sizeof a, "%s/P", T);
  CHECK(ps.n == 2 && !strcmp(ps.p[0], a));
  CHECK(ostio__pl_prefixes_match(&sp, (snprintf(a, sizeof a, "%s/Plink/f", T), a)) == 1);
  CHECK(ostio__pl_prefixes_match(&ps, a) == 0); /* only real paths match the real set */
  CHECK(ostio__pl_prefixes_match(&ps, (snprintf(a, sizeof a, "%s/P/sub/f", T), a)) == 1);
  CHECK(ostio__pl_prefixes_match(&ps, (snprintf(a, sizeof a, "%s/P", T), a)) == 2);
  CHECK(ostio__pl_prefixes_match(&ps, (snprintf(a, sizeof a, "%s/Px/f", T), a)) == 0);
  CHECK(ostio__pl_prefixes_match(&ps, T) == 0);
  ostio__pl_prefixes_free(&sp);
  ostio__pl_prefixes_free(&ps);
  CHECK(ps.n == 0);
  CHECK(ostio__pl_prefixes_parse(&sp, &ps, "", "OSTIO_PRELOAD_PATHS", why, sizeof why) == 0);
  CHECK(ostio__pl_prefixes_parse(&sp, &ps, NULL, "OSTIO_PRELOAD_PATHS", why, sizeof why) == 0);
  refused("/", "\"/\": the root directory");
  refused("//", "the root directory");
  snprintf(spec, sizeof spec, "%s/P/../../../../../../../../../../../../../../../../..", T);
  refused(spec, "the root directory");
  snprintf(spec, sizeof spec, "%s/P:", T);
  refused(spec, "an empty entry");
  snprintf(spec, sizeof spec, "%s/P::%s/O", T, T);
  refused(spec, "an empty entry");
  refused("rel/dir", "a relative path");
  snprintf(spec, sizeof spec, "%s/P:%s/nonexistent", T, T);
  refused(spec, "No such file or directory");
  snprintf(spec, sizeof spec, "%s/O/file", T);
  refused(spec, "not a directory");
  size_t n = 0;
  for (int i = 0; i < PL_PREFIX_ENTRIES + 1; i++)
    n += (size_t)snprintf(spec + n, sizeof spec - n, "%s%s/P", i ? ":" : "", T);
  refused(spec, "more than 32 directories");
  memset(spec, 'x', sizeof spec - 1);
  spec[0] = '/';
  spec[sizeof spec - 1] = '\0';
  refused(spec, "a path too long");
  refused("/a\nb", "\"/a?b\"");
}

static void test_fdtab(void)
{
  CHECK(ostio__pl_fdtab_init(128) == 0);
  int obj = 7;
  ostio__pl_desc *d = ostio__pl_desc_new(&obj, O_RDWR | O_APPEND);
  CHECK(d != NULL);
  CHECK(!ostio__pl_fd_ours(5));
  CHECK(ostio__pl_fdtab_set(5, d) == 0);
  CHECK(ostio__pl_fdtab_set(5, d) == -1);   /* taken */
  CHECK(ostio__pl_fdtab_set(500, d) == -1); /* out of range */
  CHECK(ostio__pl_fdtab_set(-1, d) == -1);
  CHECK(ostio__pl_fd_ours(5));
  CHECK(!ostio__pl_fd_ours(6) && !ostio__pl_fd_ours(-3) && !ostio__pl_fd_ours(1000));
  /* dup: a second fd on the same description shares the offset */
  CHECK(ostio__pl_fdtab_set(9, d) == 0);
  ostio__pl_desc *a = ostio__pl_fdtab_get(5), *b = ostio__pl_fdtab_get(9);
  CHECK(a == b && a == d);
  a->off = 4096;
  CHECK_EQ_I64(b->off, 4096);
  CHECK((b->flags & O_ACCMODE) == O_RDWR && (b->flags & O_APPEND));
  CHECK(ostio__pl_desc_put(a) == NULL); /* calls in progress end */
  CHECK(ostio__pl_desc_put(b) == NULL);
  int ours;
  CHECK(ostio__pl_fdtab_clear(5, &ours) == NULL && ours == 1); /* fd 9 still holds it */
  CHECK(!ostio__pl_fd_ours(5) && ostio__pl_fd_ours(9));
  CHECK(ostio__pl_fdtab_clear(5, &ours) == NULL && ours == 0);
  /* a call in progress keeps the description alive past the last close */
  ostio__pl_desc *c = ostio__pl_fdtab_get(9);
  CHECK(ostio__pl_fdtab_clear(9, &ours) == NULL && ours == 1);
  CHECK(c->off == 4096);
  CHECK(ostio__pl_desc_put(c) == &obj); /* the last reference: the object is released */
  CHECK(ostio__pl_fdtab_get(9) == NULL);
  /* fork marks live descriptions shared */
  ostio__pl_desc *e = ostio__pl_desc_new(&obj, O_RDONLY);
  CHECK(ostio__pl_fdtab_set(3, e) == 0);
  ostio__pl_fdtab_mark_shared();
  CHECK(e->shared == 1);
  CHECK(ostio__pl_fdtab_clear(3, &ours) == &obj);
  ostio__pl_fdtab_fini();
  CHECK(!ostio__pl_fd_ours(3));
}

static void rm_tree(void)
{
  char cmd[PL_PATH_MAX + 32];
  if (!T[0] || !strstr(T, "ostio-pl-unit.")) return;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", T);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", T);
}

int main(void)
{
  test_norm();
  test_resolve();
  test_procpath();
  test_prefixes();
  test_fdtab();
  rm_tree();
  return TEST_DONE();
}
