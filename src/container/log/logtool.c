/* Log containers offline: check (every problem, named), recover (repairs
 * what check reports), compact (one merged index) and remove. Run them when
 * no job has the container open for writing. Staged writers (issue 19) are
 * logtool_stage.c's: check names them, recover drains or gives them up
 * first, compact refuses them. See docs/containers.md. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/log/log.h"
#include "container/log/logtool_stage.h"
#include "core/error.h"
#include "core/fdio.h"


static int leftover(const char *n)
{
  return !strncmp(n, ".ostio.size.tmp.", 16) || !strncmp(n, ".index.compact.tmp.", 19);
}

/* Entries outside the name grammar: reported (check) or, for leftover
 * temporary files, removed (recover). Returns the count reported. */
static int strays(ostio__logdir *d, int fix, ostio__ctr_report report, void *arg)
{
  int n = 0, fd = dup(d->dirfd);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir) {
    if (fd >= 0) close(fd);
    return 0;
  }
  rewinddir(dir); /* a dup shares the directory offset with d->dirfd */
  struct dirent *e;
  while ((e = readdir(dir))) {
    const char *nm = e->d_name;
    if (!strcmp(nm, ".") || !strcmp(nm, "..") || !strcmp(nm, OSTIO__CTR_MANIFEST) ||
        !strcmp(nm, OSTIO__CTR_SIZEREC) || !strcmp(nm, OSTIO__LOG_COMPACT))
      continue;
    if (fix && leftover(nm)) {
      if (unlinkat(d->dirfd, nm, 0) == 0)
        n += ostio__ctr_say(report, arg, "%s: removed the leftover temporary file %s", d->path, nm);
      continue;
    }
    int h = -1;
    if (!strncmp(nm, "hostdir.", 8) && strlen(nm) == 11 && nm[8] >= '0' && nm[8] <= '9' &&
        nm[9] >= '0' && nm[9] <= '9' && nm[10] >= '0' && nm[10] <= '9')
      h = atoi(nm + 8);
    int hfd = h >= 0 && h < d->m.hostdirs
                  ? openat(d->dirfd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (hfd < 0) {
      if (!fix)
        n += ostio__ctr_say(report, arg, "%s: \"%s\" is not part of the container (expected "
                            "hostdir.000 to hostdir.%03d, %s, %s or %s); readers ignore it",
                            d->path, nm, (int)d->m.hostdirs - 1, OSTIO__CTR_MANIFEST,
                            OSTIO__CTR_SIZEREC, OSTIO__LOG_COMPACT);
      continue;
    }
    DIR *hd = fdopendir(hfd);
    struct dirent *f;
    while (hd && (f = readdir(hd))) {
      uint32_t s, w;
      struct stat st;
      if (!strcmp(f->d_name, ".") || !strcmp(f->d_name, "..")) continue;
      int ok = ostio__log_parse_name(f->d_name, &s, &w) &&
               fstatat(hfd, f->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
      if (ok) {
        int i = ostio__log_src_find(d, s, w);
        ok = i >= 0 && d->src[i].hostdir == h;
      }
      if (!ok && !fix)
        n += ostio__ctr_say(report, arg,
                            "%s: %s/%s is not a log of this container (expected regular "
                            "files data.S.W and index.S.W, each writer in one hostdir); "
                            "readers ignore it", d->path, nm, f->d_name);
    }
    if (hd) closedir(hd);
    else close(hfd);
  }
  closedir(dir);
  return n;
}

/* A loading problem, with what to do when records lost their data. */
static int say_load(const char *path, const ostio__logload *st, ostio__ctr_report report,
                    void *arg)
{
  (void)path;
  if (st->past_data && strstr(st->first_problem, "are lost"))
    return ostio__ctr_say(report, arg, "%s; reads of those bytes fail: restore the data log "
                          "from a copy, or `ostio container recover` cuts the index log "
                          "there (accepting the loss)", st->first_problem);
  return ostio__ctr_say(report, arg, "%s", st->first_problem);
}

/* Data-log bytes after the last one a record of src i describes (e[0..ne),
 * its loaded records, cut at the first lost one): reported, or cut off by
 * recover (fix). A writer killed before it wrote its pending record leaves
 * them (never part of the file); so does an index log emptied or cut
 * (then they are lost data). */
static int unindexed(ostio__logdir *d, size_t i, const ostio__logent *e, size_t ne, int fix,
                     ostio__ctr_report report, void *arg)
{
  const ostio__logsrc *s = &d->src[i];
  int64_t end = 0;
  for (size_t j = 0; j < ne && !e[j].lost; j++)
    if (e[j].r.type == OSTIO__LOGREC_WRITE && ostio__logrec_pend(&e[j].r) > end)
      end = ostio__logrec_pend(&e[j].r);
  if (!(s->flags & OSTIO__LOGSRC_DATA) || s->data_size <= end) return 0;
  char name[64], iname[64];
  ostio__log_name(name, sizeof name, s->hostdir, "data", s->session, s->writer);
  ostio__log_name(iname, sizeof iname, s->hostdir, "index", s->session, s->writer);
  if (!fix)
    return ostio__ctr_say(report, arg, "%s: %s: bytes [%lld, %lld) (%lld bytes) have no index "
                          "record: a writer that crashed before recording them leaves this "
                          "(they were never part of the file; `ostio container recover` cuts "
                          "them off), and so does %s emptied or cut (then they are lost data: "
                          "restore %s from a copy before running recover)", d->path, name,
                          (long long)end, (long long)s->data_size,
                          (long long)(s->data_size - end), iname, iname);
  int fd = openat(d->dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), rc = 0;
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1 ||
      ftruncate(fd, (off_t)end) < 0 || fsync(fd) < 0)
    rc = ostio__fail(ostio__from_errno(fd < 0 || errno ? errno : EINVAL), "%s/%s: cannot cut "
                     "the data log: %s", d->path, name,
                     fd >= 0 && st.st_nlink > 1 ? "it has hard links" : strerror(errno));
  if (fd >= 0) close(fd);
  if (rc < 0) return rc;
  return ostio__ctr_say(report, arg, "%s: cut %s from %lld to %lld bytes (no index record "
                        "described the rest)", d->path, name, (long long)s->data_size,
                        (long long)end);
}

static int open_scanned(const char *path, ostio__logdir **d)
{
  int rc = ostio__log_open(path, NULL, 0, d);
  if (rc == 0) rc = ostio__log_scan(*d);
  if (rc < 0) ostio__log_close(d);
  return rc;
}

int ostio__log_check(const char *path, ostio__ctr_report report, void *arg)
{
  ostio__logdir *d = NULL;
  int n = 0, rc = open_scanned(path, &d);
  if (rc < 0) return ostio__ctr_say(report, arg, "%s", ostio_last_error());
  ostio__logmap map;
  ostio__logmap_init(&map);
  ostio__logent *e = NULL;
  size_t ne = 0, cap = 0;
  /* A staged writer's copies in the container are a drain's work in
   * progress (data behind the index): its findings are the staging ones. */
  n += ostio__log_check_stage(d, report, arg);
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    char name[64];
    if (s->flags & OSTIO__LOGSRC_STAGED) continue;
    if (!(s->flags & OSTIO__LOGSRC_DATA) && (s->flags & OSTIO__LOGSRC_INDEX)) {
      ostio__log_name(name, sizeof name, s->hostdir, "index", s->session, s->writer);
      n += ostio__ctr_say(report, arg, "%s: %s has no data log beside it", path, name);
    }
    if ((s->flags & OSTIO__LOGSRC_DATA) && !(s->flags & OSTIO__LOGSRC_INDEX) &&
        s->data_size > 0) {
      /* Never a crash leftover: the index log is made before any data. */
      char iname[64];
      ostio__log_name(name, sizeof name, s->hostdir, "data", s->session, s->writer);
      ostio__log_name(iname, sizeof iname, s->hostdir, "index", s->session, s->writer);
      n += ostio__ctr_say(report, arg, "%s: %s holds %lld bytes but its index log %s is "
                          "missing: no record says where those bytes belong, so they are "
                          "lost from the file; restore %s from a copy (recover leaves this "
                          "alone), or remove %s to accept the loss", path, name,
                          (long long)s->data_size, iname, iname, name);
    }
    ostio__logload st = {0};
    ne = 0;
    if ((rc = ostio__log_load_src(d, i, &e, &ne, &cap, &st)) < 0) {
      n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
      continue;
    }
    if (st.first_problem[0]) n += say_load(path, &st, report, arg);
    if (s->flags & OSTIO__LOGSRC_INDEX) n += unindexed(d, i, e, ne, 0, report, arg);
  }
  if (d->compact) {
    ostio__logload cst = {0};
    ne = 0;
    if ((rc = ostio__log_load_compact(d, &e, &ne, &cap, &cst)) < 0)
      n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
    else if (cst.first_problem[0])
      n += ostio__ctr_say(report, arg, "%s; `ostio container recover` removes %s (readers then "
                          "use the index logs it covers, which are intact)%s",
                          cst.first_problem, OSTIO__LOG_COMPACT,
                          cst.past_data + cst.bad_records > 1 ? " (more records are damaged)"
                                                              : "");
  }
  if (!d->compact && faccessat(d->dirfd, OSTIO__LOG_COMPACT, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    n += ostio__ctr_say(report, arg,
                        "%s: %s is stale (the logs it covers changed) or damaged; readers "
                        "ignore it; `ostio container recover` removes it, `compact` rewrites it",
                        path, OSTIO__LOG_COMPACT);
  ostio__logload st = {0};
  if ((rc = ostio__log_load_all(d, &map, &st)) < 0) {
    n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
  } else {
    ostio__sizerec rec;
    rc = ostio__sizerec_read(d->dirfd, path, &rec);
    if (rc == OSTIO_ENOENT)
      n += ostio__ctr_say(report, arg, "%s: the size record %s is missing (the index implies %lld "
                          "bytes)", path, OSTIO__CTR_SIZEREC, (long long)map.size);
    else if (rc < 0) n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
    else if (!rec.clean)
      n += ostio__ctr_say(report, arg,
                          "%s: the size record says \"open\": a writer has the container "
                          "open or crashed (the index implies %lld bytes); `recover` records it "
                          "clean",
                          path, (long long)map.size);
    else if (rec.has_fp && !ostio__log_rec_trusted(d, &rec))
      n += ostio__ctr_say(report, arg,
                          "%s: the clean size record (%lld bytes) is stale: the index logs "
                          "changed after it was written (the index implies %lld); readers "
                          "ignore it; `recover` rewrites it", path, (long long)rec.size,
                          (long long)map.size);
    else if (rec.size != map.size)
      n += ostio__ctr_say(report, arg,
                          "%s: the clean size record says %lld bytes, the index implies "
                          "%lld; readers with the index trust it", path, (long long)rec.size,
                          (long long)map.size);
  }
  n += strays(d, 0, report, arg);
  free(e);
  ostio__logmap_free(&map);
  ostio__log_close(&d);
  ostio__clear_error();
  return n;
}

int ostio__log_recover(const char *path, ostio__ctr_report report, void *arg)
{
  ostio__logdir *d = NULL;
  /* Staged writers first: drained here, or given up (their stage records
   * removed, so the cuts below treat them as any writer). */
  int n = ostio__log_recover_stage(path, report, arg);
  if (n < 0) return n;
  int rc = open_scanned(path, &d);
  if (rc < 0) return rc;
  ostio__logent *e = NULL;
  size_t ne = 0, cap = 0;
  int cut_index = 0, compact_bad = 0;
  if (d->compact) {
    ostio__logload cst = {0};
    if ((rc = ostio__log_load_compact(d, &e, &ne, &cap, &cst)) == 0)
      compact_bad = cst.first_problem[0] != '\0';
  }
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (!(s->flags & OSTIO__LOGSRC_INDEX) || (s->flags & OSTIO__LOGSRC_STAGED)) continue;
    ostio__logload st = {0};
    ne = 0;
    if ((rc = ostio__log_load_src(d, i, &e, &ne, &cap, &st)) < 0) break;
    int64_t keep = (int64_t)ne * OSTIO__LOGREC_SIZE;
    for (size_t j = 0; j < ne; j++)
      if (e[j].lost) { /* the first record whose data is gone: cut there */
        keep = (int64_t)e[j].idx * OSTIO__LOGREC_SIZE;
        break;
      }
    int cut = unindexed(d, i, e, ne, 1, report, arg);
    if (cut < 0) {
      rc = cut;
      break;
    }
    n += cut;
    if (keep >= s->index_size) continue;
    cut_index = 1;
    char name[64];
    ostio__log_name(name, sizeof name, s->hostdir, "index", s->session, s->writer);
    int hfd = openat(d->dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (hfd < 0 || ftruncate(hfd, (off_t)keep) < 0 || fsync(hfd) < 0)
      rc = ostio__fail(ostio__from_errno(errno), "%s/%s: cannot cut the index log: %s", path,
                       name, strerror(errno));
    if (hfd >= 0) close(hfd);
    if (rc == 0)
      n += ostio__ctr_say(report, arg, "%s: cut %s from %lld to %lld bytes (%s)", path, name,
                          (long long)s->index_size, (long long)keep, st.first_problem);
  }
  free(e);
  /* A stale one, one whose covered logs were just cut, or a damaged one (the
   * index logs it copies are intact: nothing is lost). */
  if (rc == 0 && (!d->compact || cut_index || compact_bad) &&
      unlinkat(d->dirfd, OSTIO__LOG_COMPACT, 0) == 0)
    n += ostio__ctr_say(report, arg, "%s: removed the %s %s", path,
                        compact_bad ? "damaged" : "stale", OSTIO__LOG_COMPACT);
  if (rc == 0) n += strays(d, 1, report, arg);
  ostio__log_close(&d);
  if (rc < 0) return rc;
  /* The size, from the repaired index, recorded clean. */
  ostio__logmap map;
  ostio__logmap_init(&map);
  ostio__logload st = {0};
  ostio__sizerec old = {.clean = 0, .size = -1};
  if ((rc = open_scanned(path, &d)) == 0) rc = ostio__log_load_all(d, &map, &st);
  int had = rc == 0 ? ostio__sizerec_read(d->dirfd, path, &old) : rc;
  if (rc == 0 && (had < 0 || !ostio__log_rec_trusted(d, &old) || old.size != map.size)) {
    rc = ostio__log_publish_clean(d, NULL);
    if (rc == 0) n += ostio__ctr_say(report, arg,
                                     "%s: size record written: clean, %lld bytes", path,
                                     (long long)map.size);
  }
  ostio__logmap_free(&map);
  ostio__log_close(&d);
  if (rc == 0) ostio__clear_error();
  return rc < 0 ? rc : n;
}

int ostio__log_compact(const char *path, int64_t *nrecords)
{
  ostio__logdir *d = NULL;
  ostio__logmap map;
  ostio__logload st = {0};
  char tmp[64];
  ostio__logmap_init(&map);
  ostio__sizerec old = {0};
  int rc = open_scanned(path, &d), fd = -1, trusted = 0;
  if (rc == 0) rc = ostio__log_refuse_staged(d);
  /* A clean size record that matches the logs now is republished after the
   * rename (index.compact is part of its fingerprint); an open, stale or
   * missing one is left as it is: compact vouches for no size. */
  if (rc == 0) trusted = ostio__sizerec_read(d->dirfd, path, &old) == 0 &&
                         ostio__log_rec_trusted(d, &old);
  if (rc == 0) ostio__clear_error();
  if (rc == 0) rc = ostio__log_load_all(d, &map, &st);
  if (rc == 0 && st.past_data > 0) /* would be copied into index.compact as it is */
    rc = ostio__fail(OSTIO_EFORMAT, "%s; compact copies every record as it is, so it refuses "
                     "records whose data is missing: `ostio container check` names the damage, "
                     "`ostio container recover` cuts it (accepting the loss)", st.first_problem);
  if (rc < 0) goto done;
  snprintf(tmp, sizeof tmp, ".%s.tmp.%ld", OSTIO__LOG_COMPACT, (long)getpid());
  fd = openat(d->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    rc = ostio__fail(ostio__from_errno(errno), "%s/%s: %s", path, tmp, strerror(errno));
    goto done;
  }
  size_t nrec = map.n;
  for (size_t i = 0; i < d->nsrc; i++) nrec += (d->src[i].flags & OSTIO__LOGSRC_INDEX) != 0;
  unsigned char *buf = malloc(nrec * OSTIO__LOGREC_SIZE + 1);
  if (!buf) {
    rc = ostio__fail(OSTIO_ENOMEM, "out of memory for %zu records", nrec);
    goto done;
  }
  size_t k = 0;
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (!(s->flags & OSTIO__LOGSRC_INDEX)) continue;
    ostio__logrec c = {.type = OSTIO__LOGREC_COVER, .writer = s->writer,
                       .session = s->session, .seq = (uint64_t)s->session << 32,
                       .lstart = s->index_size};
    ostio__logrec_encode(&c, buf + OSTIO__LOGREC_SIZE * k++);
  }
  for (size_t i = 0; i < map.n; i++)
    ostio__logrec_encode(&map.e[i].r, buf + OSTIO__LOGREC_SIZE * k++);
  int e = ostio__write_full(fd, buf, k * OSTIO__LOGREC_SIZE);
  free(buf);
  if (e == 0 && fsync(fd) < 0) e = errno;
  if (e)
    rc = ostio__fail(ostio__from_errno(e), "%s/%s: cannot write: %s", path, tmp, strerror(e));
  if (rc == 0 && renameat(d->dirfd, tmp, d->dirfd, OSTIO__LOG_COMPACT) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "%s: cannot rename %s into place: %s", path,
                     tmp, strerror(errno));
  if (rc < 0) unlinkat(d->dirfd, tmp, 0);
  else fsync(d->dirfd);
  if (rc == 0 && trusted) rc = ostio__log_publish_clean(d, NULL);
  if (rc == 0 && nrecords) *nrecords = (int64_t)map.n;
done:
  if (fd >= 0) close(fd);
  ostio__logmap_free(&map);
  ostio__log_close(&d);
  return rc;
}

int ostio__log_remove(const char *path)
{
  ostio__logdir *d = NULL;
  int rc = open_scanned(path, &d), left = 0;
  if (rc < 0) return rc;
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    char name[64];
    for (int k = 0; k < 2; k++) {
      ostio__log_name(name, sizeof name, s->hostdir, k ? "index" : "data", s->session,
                      s->writer);
      if (unlinkat(d->dirfd, name, 0) < 0 && errno != ENOENT && rc == 0)
        rc = ostio__fail(ostio__from_errno(errno), "%s/%s: %s", path, name, strerror(errno));
    }
    if (s->flags & OSTIO__LOGSRC_STAGED) { /* the record; staged logs on nodes stay */
      ostio__log_name(name, sizeof name, s->hostdir, "stage", s->session, s->writer);
      if (unlinkat(d->dirfd, name, 0) < 0 && errno != ENOENT && rc == 0)
        rc = ostio__fail(ostio__from_errno(errno), "%s/%s: %s", path, name, strerror(errno));
    }
  }
  for (int32_t h = 0; h < d->m.hostdirs; h++) {
    char hd[32];
    snprintf(hd, sizeof hd, "hostdir.%03d", (int)h);
    if (unlinkat(d->dirfd, hd, AT_REMOVEDIR) < 0 && errno != ENOENT) left = 1;
  }
  unlinkat(d->dirfd, OSTIO__LOG_COMPACT, 0);
  unlinkat(d->dirfd, OSTIO__CTR_SIZEREC, 0);
  if (rc == 0 && unlinkat(d->dirfd, OSTIO__CTR_MANIFEST, 0) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "%s: %s", path, strerror(errno));
  ostio__log_close(&d);
  if (rc == 0 && (left || rmdir(path) < 0))
    rc = left || errno == ENOTEMPTY || errno == EEXIST
             ? ostio__fail(OSTIO_ENOTEMPTY, "%s: removed the container's files, but other "
                           "files remain in the directory; they were left alone", path)
             : ostio__fail(ostio__from_errno(errno), "%s: cannot remove: %s", path,
                           strerror(errno));
  return rc;
}
