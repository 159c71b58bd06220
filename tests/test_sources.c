/* Layout sources on a real directory: emulated records on files and
 * directories, inheritance at creation, resolution order and the hints
 * that select a source. Off Lustre the Lustre source must stay silent. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "hints/hints.h"
#include "container/layout_sources.h"
#include "testutil.h"

static char dir[512];

static const char *at(const char *name)
{
  static char buf[4][1024];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

static int resolve(const char *path, const char *env, ostio_layout **l)
{
  ostio__hints h;
  ostio__hints_init(&h);
  int rc = ostio__hints_apply_env(&h, path, env);
  return rc < 0 ? rc : ostio__layout_resolve(path, &h, l);
}

static void write_bytes(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
}

int main(void)
{
  ostio_layout *l = NULL, *want = NULL, *dflt = NULL;
  if (tu_tmpdir(dir, sizeof dir, "sources") < 0) { perror("mkdtemp"); return 1; }
  if (setxattr(dir, "user.ostio.probe", "x", 1, 0) < 0 && errno == ENOTSUP) {
    printf("SKIP: %s has no user xattrs\n", dir);
    tu_rmtree(dir);
    return TEST_DONE();
  }
  CHECK(!ostio__path_is_lustre(dir));
  CHECK(ostio__source_lustre.query(dir, NULL, &l) == OSTIO_ENOLAYOUT);

  /* a plain file: defaults, or hints when striping hints are given */
  write_bytes(at("plain"), "abc");
  CHECK(resolve(at("plain"), NULL, &l) == 0 && !strcmp(l->source, "default") &&
        l->comp[0].stripe_count == 1 && l->comp[0].stripe_size == 1 << 20);
  ostio__layout_destroy(l);
  CHECK(resolve(at("plain"), "*:striping_factor=3:striping_unit=64k:start_iodevice=2", &l) == 0);
  CHECK(l && !strcmp(l->source, "hints") && l->comp[0].stripe_count == 3 &&
        l->comp[0].stripe_size == 65536 && l->comp[0].osts && l->comp[0].osts[2] == 4);
  ostio__layout_destroy(l);

  /* a directory default is inherited by files without their own record */
  CHECK(ostio__layout_simple(1 << 20, 4, 0, &dflt) == 0);
  CHECK(ostio__layout_set_dir_default(dir, dflt) == 0);
  CHECK(resolve(dir, NULL, &l) == 0 && ostio__layout_equal(l, dflt) && !l->inherited);
  ostio__layout_destroy(l);
  CHECK(resolve(at("plain"), NULL, &l) == 0 && ostio__layout_equal(l, dflt) && l->inherited &&
        !strcmp(l->source, "emulated"));
  ostio__layout_destroy(l);
  CHECK(ostio__layout_set_dir_default(at("plain"), dflt) == OSTIO_ENOTDIR);

  /* creation copies the directory default onto the new file */
  CHECK(ostio__layout_create(at("new1"), NULL, NULL, 0644, &l) == 0);
  CHECK(l && ostio__layout_equal(l, dflt) && !l->inherited);
  ostio__layout_destroy(l);
  char rec[4096];
  ssize_t n = getxattr(at("new1"), OSTIO__LAYOUT_XATTR, rec, sizeof rec - 1);
  CHECK(n > 0);
  if (n > 0) { rec[n] = 0; CHECK(strstr(rec, "stripe_count=4") != NULL); }

  /* striping hints beat the directory default at creation */
  ostio__hints h;
  ostio__hints_init(&h);
  CHECK(ostio__hints_set(&h, "striping_factor", "2") == 0);
  CHECK(ostio__hints_set(&h, "striping_unit", "4m") == 0);
  CHECK(ostio__layout_create(at("new2"), &h, NULL, 0644, &l) == 0);
  CHECK(l && l->comp[0].stripe_count == 2 && l->comp[0].stripe_size == 4 << 20);
  /* issue 14 item 5: ... with OSTs, as `ostio setstripe -c 2` gives them
   * (before: first_ost -1 and no OST list) */
  CHECK(l && l->comp[0].osts && l->comp[0].osts[0] == 0 && l->comp[0].osts[1] == 1 &&
        l->comp[0].first_ost == 0 && l->comp[0].instantiated);
  ostio__layout_destroy(l);
  n = getxattr(at("new2"), OSTIO__LAYOUT_XATTR, rec, sizeof rec - 1);
  CHECK(n > 0);
  if (n > 0) {
    rec[n] = 0;
    CHECKF(!strcmp(rec, "ostio-layout 1\ncomponent start=0 end=eof stripe_size=4194304 "
                        "stripe_count=2 first_ost=0 pattern=raid0 instantiated=1 osts=0-1\n"),
           "record: %s", rec);
  }
  /* an emulated layout may have any stripe size, even from hints */
  ostio__hints h4;
  ostio__hints_init(&h4);
  CHECK(ostio__hints_set(&h4, "striping_factor", "3") == 0);
  CHECK(ostio__hints_set(&h4, "striping_unit", "4096") == 0);
  CHECK(ostio__hints_set(&h4, "start_iodevice", "2") == 0);
  CHECK(ostio__layout_create(at("new4k"), &h4, NULL, 0644, &l) == 0);
  CHECK(l && l->comp[0].stripe_size == 4096 && l->comp[0].osts && l->comp[0].osts[2] == 4);
  ostio__layout_destroy(l);
  /* a directory default without OSTs gets them too, and new files inherit them */
  CHECK(ostio__layout_simple(65536, 3, -1, &want) == 0 && !want->comp[0].osts);
  mkdir(at("sub"), 0755);
  CHECK(ostio__layout_set_dir_default(at("sub"), want) == 0);
  CHECK(resolve(at("sub"), NULL, &l) == 0 && l->comp[0].osts && l->comp[0].osts[2] == 2);
  ostio__layout_destroy(l);
  CHECK(ostio__layout_create(at("sub/f"), NULL, NULL, 0644, &l) == 0);
  CHECK(l && !l->inherited && l->comp[0].osts && l->comp[0].osts[0] == 0);
  ostio__layout_destroy(l);
  ostio__layout_destroy(want);
  want = NULL;
  /* overstriping cannot be emulated without saying which OSTs are shared */
  CHECK(ostio__layout_simple(65536, 4, -1, &want) == 0);
  want->comp[0].pattern |= OSTIO_PATTERN_OVERSTRIPING;
  CHECK(ostio__layout_create(at("over"), NULL, want, 0644, &l) == OSTIO_ELAYOUT);
  CHECKF(strstr(ostio_last_error(), "overstriping") != NULL, "%s", ostio_last_error());
  CHECK(access(at("over"), F_OK) < 0);
  ostio__layout_destroy(want);
  want = NULL;

  /* issue 14 item 4b: the stripe sizes Lustre accepts, and the message
   * naming the nearest ones (used by setstripe and the Lustre source) */
  CHECK(ostio__check_lustre_stripe_size(65536, "stripe size") == 0);
  CHECK(ostio__check_lustre_stripe_size(1 << 20, "stripe size") == 0);
  CHECK(ostio__check_lustre_stripe_size(4294901760LL, "stripe size") == 0);
  CHECK(ostio__check_lustre_stripe_size(1000, "hint striping_unit") == OSTIO_ELAYOUT);
  CHECKF(strstr(ostio_last_error(), "hint striping_unit 1000") &&
         strstr(ostio_last_error(), "multiple of 64 KiB") &&
         strstr(ostio_last_error(), "64k (65536)") && !strstr(ostio_last_error(), " or "),
         "%s", ostio_last_error());
  CHECK(ostio__check_lustre_stripe_size(100000, "stripe size") == OSTIO_ELAYOUT);
  CHECKF(strstr(ostio_last_error(), "64k (65536) or 128k (131072)"), "%s", ostio_last_error());
  CHECK(ostio__check_lustre_stripe_size(3LL << 30 | 1, "stripe size") == OSTIO_ELAYOUT);
  CHECKF(strstr(ostio_last_error(), "3g (3221225472) or 3145792k (3221291008)"), "%s",
         ostio_last_error());
  CHECK(ostio__check_lustre_stripe_size(4294967295LL, "stripe size") == OSTIO_ELAYOUT);
  CHECKF(strstr(ostio_last_error(), "4194240k (4294901760)") && !strstr(ostio_last_error(), " or "),
         "%s", ostio_last_error());
  CHECK(ostio__check_lustre_stripe_size(0, "stripe size") == OSTIO_ELAYOUT);
  /* ... but an existing file's own record beats the hints */
  CHECK(ostio__layout_resolve(at("new1"), &h, &l) == 0 && l->comp[0].stripe_count == 4);
  ostio__layout_destroy(l);
  /* ostio_layout_source=hints ignores the file system */
  CHECK(ostio__hints_set(&h, "ostio_layout_source", "hints") == 0);
  CHECK(ostio__layout_resolve(at("new1"), &h, &l) == 0 && !strcmp(l->source, "hints") &&
        l->comp[0].stripe_count == 2);
  ostio__layout_destroy(l);
  /* ostio_layout_source=lustre off Lustre is a clear error */
  CHECK(ostio__hints_set(&h, "ostio_layout_source", "lustre") == 0);
  CHECK(ostio__layout_resolve(at("new1"), &h, &l) == OSTIO_ENOLAYOUT && !l);
  CHECK(strstr(ostio_last_error(), "lustre") != NULL);
  CHECK(ostio__hints_set(&h, "ostio_layout_source", "emulated") == 0);
  CHECK(ostio__layout_resolve(at("new1"), &h, &l) == 0 && !strcmp(l->source, "emulated"));
  ostio__layout_destroy(l);

  /* an explicit layout on an empty existing file; refusal on one with data */
  int fd = open(at("empty"), O_CREAT | O_WRONLY, 0644);
  close(fd);
  struct stat before, after;
  stat(at("empty"), &before);
  CHECK(ostio__layout_simple(65536, 3, 5, &want) == 0);
  CHECK(ostio__layout_create(at("empty"), NULL, want, 0644, &l) == 0);
  stat(at("empty"), &after);
  CHECK(before.st_ino == after.st_ino);
  CHECK(l && ostio__layout_equal(l, want));
  ostio__layout_destroy(l);
  write_bytes(at("data"), "payload");
  CHECK(ostio__layout_create(at("data"), NULL, want, 0644, &l) == OSTIO_ENOTEMPTY);
  CHECK(strstr(ostio_last_error(), "7 bytes") != NULL);
  FILE *f = fopen(at("data"), "r");
  char back[16] = {0};
  if (f) { CHECK(fread(back, 1, sizeof back, f) == 7); fclose(f); }
  CHECK(!strcmp(back, "payload"));
  CHECK(getxattr(at("data"), OSTIO__LAYOUT_XATTR, rec, sizeof rec) < 0);
  CHECK(ostio__layout_create(dir, NULL, want, 0644, &l) == OSTIO_EISDIR);
  CHECK(ostio__layout_create(at("nodir/x"), NULL, want, 0644, &l) == OSTIO_ENOENT);
  /* issue 14 item 6: the missing directory is named (before: "cannot
   * create: No such file or directory", or "cannot read user.ostio.layout"
   * without a layout) */
  char want_msg[1200];
  snprintf(want_msg, sizeof want_msg, "%s: directory %s does not exist", at("nodir/x"),
           at("nodir"));
  CHECKF(strstr(ostio_last_error(), want_msg), "%s", ostio_last_error());
  CHECK(ostio__layout_create(at("nodir/x"), NULL, NULL, 0644, &l) == OSTIO_ENOENT);
  CHECKF(strstr(ostio_last_error(), want_msg), "%s", ostio_last_error());
  CHECK(resolve(at("nodir/x"), NULL, &l) == OSTIO_ENOENT && !l);
  CHECKF(strstr(ostio_last_error(), want_msg), "%s", ostio_last_error());
  snprintf(want_msg, sizeof want_msg, "directory %s does not exist", at("nodir"));
  CHECK(ostio__layout_create(at("nodir/deeper/x"), NULL, want, 0644, &l) == OSTIO_ENOENT);
  CHECKF(strstr(ostio_last_error(), want_msg), "%s", ostio_last_error());
  snprintf(want_msg, sizeof want_msg, "%s is not a directory", at("data"));
  CHECK(ostio__layout_create(at("data/x"), NULL, want, 0644, &l) == OSTIO_ENOTDIR);
  CHECKF(strstr(ostio_last_error(), want_msg), "%s", ostio_last_error());
  CHECK(resolve(at("data/x"), NULL, &l) == OSTIO_ENOTDIR);
  CHECKF(strstr(ostio_last_error(), want_msg), "%s", ostio_last_error());
  /* a missing file in a directory that exists: the plain message */
  CHECK(ostio__layout_resolve(at("nofile"), NULL, &l) == OSTIO_ENOENT);
  CHECKF(!strstr(ostio_last_error(), "does not exist"), "%s", ostio_last_error());

  /* a corrupt record is an error naming the path, not a silent default */
  CHECK(setxattr(at("plain"), OSTIO__LAYOUT_XATTR, "junk", 4, 0) == 0);
  CHECK(resolve(at("plain"), NULL, &l) == OSTIO_EFORMAT && !l);
  CHECK(strstr(ostio_last_error(), "plain") != NULL);
  CHECK(resolve(at("missing"), NULL, &l) == OSTIO_ENOENT);

  ostio__layout_destroy(want);
  ostio__layout_destroy(dflt);
  tu_rmtree(dir);
  return TEST_DONE();
}
