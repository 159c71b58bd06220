/* Staged writers in the offline tools (logtool_stage.h): what the
 * container's own copies of a staged writer's logs hold (the index the
 * drain copied first, the data so far), the ranges not drained, check's
 * findings, recover's first step and compact's refusal. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/log/logtool_stage.h"
#include "core/error.h"
#include "core/fdio.h"

#define RECS 4096          /* index records read at a time */
#define MAX_SAID 8         /* ranges check names per writer */

/* ---- the view -------------------------------------------------------------------------- */

static int64_t size_at(int dirfd, const char *name)
{
  struct stat st;
  if (dirfd < 0 || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
    return -1;
  return (int64_t)st.st_size;
}

static int add_range(ostio__stageview *v, size_t *cap, const ostio__logrec *r)
{
  if (v->nlost == *cap) {
    size_t c = *cap ? 2 * *cap : 16;
    ostio__stagerange *p = realloc(v->lost, c * sizeof *p);
    if (!p) return ostio__fail(OSTIO_ENOMEM, "out of memory listing staged ranges");
    v->lost = p;
    *cap = c;
  }
  int run = r->count == 1 || r->lstride == r->length;
  v->lost[v->nlost++] = (ostio__stagerange){
    .start = r->lstart, .end = ostio__logrec_end(r), .length = run ? ostio__logrec_end(r) -
    r->lstart : r->length, .stride = run ? 0 : r->lstride, .count = run ? 1 : r->count};
  v->lost_bytes += r->length * r->count;
  return 0;
}

static int range_cmp(const void *a, const void *b)
{
  const ostio__stagerange *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Sorts the ranges and merges runs that touch or overlap (bytes named by
 * two records count once in the merged run, lost_bytes stays the sum). */
static void merge_ranges(ostio__stageview *v)
{
  if (v->nlost < 2) return;
  qsort(v->lost, v->nlost, sizeof *v->lost, range_cmp);
  size_t k = 0;
  for (size_t i = 1; i < v->nlost; i++) {
    ostio__stagerange *a = &v->lost[k], *b = &v->lost[i];
    if (a->count == 1 && b->count == 1 && b->start <= a->end) {
      if (b->end > a->end) a->end = b->end;
      a->length = a->end - a->start;
    } else {
      v->lost[++k] = *b;
    }
  }
  v->nlost = k + 1;
}

/* The container's index copy of src i: its valid records (up to the first
 * invalid or foreign one), the largest data end, and the records whose data
 * ends past the drained data. */
static int read_index_copy(ostio__logdir *d, size_t i, int hfd, ostio__stageview *v)
{
  const ostio__logsrc *s = &d->src[i];
  char name[64];
  snprintf(name, sizeof name, "index.%" PRIu32 ".%" PRIu32, s->session, s->writer);
  int fd = hfd >= 0 ? openat(hfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) : -1;
  if (fd < 0) return errno == ENOENT || hfd < 0 ? 0 : ostio__fail(ostio__from_errno(errno),
                     "%s/hostdir.%03d/%s: cannot open: %s", d->path, (int)s->hostdir, name,
                     strerror(errno));
  unsigned char *buf = malloc((size_t)RECS * OSTIO__LOGREC_SIZE);
  size_t cap = 0;
  int rc = buf ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory reading an index");
  for (int64_t at = 0, done = 0; rc == 0 && !done;) {
    size_t got = 0;
    int e = ostio__pread_full(fd, buf, (size_t)RECS * OSTIO__LOGREC_SIZE, at, &got);
    if (e) {
      rc = ostio__fail(ostio__from_errno(e), "%s/hostdir.%03d/%s: cannot read: %s", d->path,
                       (int)s->hostdir, name, strerror(e));
      break;
    }
    done = got < (size_t)RECS * OSTIO__LOGREC_SIZE;
    for (size_t k = 0; rc == 0 && k + OSTIO__LOGREC_SIZE <= got; k += OSTIO__LOGREC_SIZE) {
      ostio__logrec r;
      if (ostio__logrec_decode(buf + k, &r) < 0 || r.writer != s->writer ||
          r.session != s->session || r.type == OSTIO__LOGREC_COVER) {
        done = 1; /* a torn tail (a killed drain rewrites it) or damage: check says */
        break;
      }
      v->records++;
      if (r.type != OSTIO__LOGREC_WRITE) continue;
      int64_t pend = ostio__logrec_pend(&r);
      if (pend > v->indexed) v->indexed = pend;
      if (pend > v->drained_data) rc = add_range(v, &cap, &r);
    }
    at += (int64_t)got;
  }
  free(buf);
  close(fd);
  if (rc == 0) merge_ranges(v);
  return rc;
}

int ostio__stage_view(ostio__logdir *d, size_t i, ostio__stageview *v)
{
  const ostio__logsrc *s = &d->src[i];
  char name[64];
  memset(v, 0, sizeof *v);
  v->staged_data = v->staged_index = -1;
  int rc = ostio__stage_rec_read(d, i, &v->rec), sfd = -1;
  if (rc == 0) {
    v->rec_ok = 1;
    v->here = !strcmp(v->rec.host, ostio__stage_self());
    rc = ostio__stage_rec_open(&v->rec, &sfd);
  }
  if (rc == 0) {
    snprintf(name, sizeof name, "data.%" PRIu32 ".%" PRIu32, s->session, s->writer);
    v->staged_data = size_at(sfd, name);
    snprintf(name, sizeof name, "index.%" PRIu32 ".%" PRIu32, s->session, s->writer);
    v->staged_index = size_at(sfd, name);
    v->reachable = v->staged_index >= 0; /* a record means its staged logs were made */
    close(sfd);
  } else if (rc == OSTIO_EACCES || !v->rec_ok) {
    v->refused = rc == OSTIO_EACCES;
    v->rec_err = rc;
    if (v->refused) v->rec_ok = 0;
    snprintf(v->problem, sizeof v->problem, "%s", ostio_last_error());
  }
  ostio__clear_error();
  int made = 0, hfd = ostio__log_hostdir_open(d, s->hostdir, 0, &made);
  ostio__clear_error();
  snprintf(name, sizeof name, "data.%" PRIu32 ".%" PRIu32, s->session, s->writer);
  v->drained_data = size_at(hfd, name);
  snprintf(name, sizeof name, "index.%" PRIu32 ".%" PRIu32, s->session, s->writer);
  v->drained_index = size_at(hfd, name);
  if (v->drained_data < 0) v->drained_data = 0;
  if (v->drained_index < 0) v->drained_index = 0;
  rc = read_index_copy(d, i, hfd, v);
  if (hfd >= 0) close(hfd);
  if (rc < 0) ostio__stage_view_free(v);
  return rc;
}

void ostio__stage_view_free(ostio__stageview *v)
{
  free(v->lost);
  v->lost = NULL;
  v->nlost = 0;
}

void ostio__stage_range_text(const ostio__stagerange *r, char *buf, size_t cap)
{
  if (r->count == 1)
    snprintf(buf, cap, "[%" PRId64 ", %" PRId64 ")", r->start, r->end);
  else
    snprintf(buf, cap, "[%" PRId64 ", %" PRId64 ") in %" PRId64 " pieces of %" PRId64
             " bytes every %" PRId64, r->start, r->end, r->count, r->length, r->stride);
}

/* ---- check ------------------------------------------------------------------------------- */

int ostio__log_check_stage(ostio__logdir *d, ostio__ctr_report report, void *arg)
{
  int n = 0;
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (!(s->flags & OSTIO__LOGSRC_STAGED)) continue;
    ostio__stageview v;
    if (ostio__stage_view(d, i, &v) < 0) {
      n += ostio__ctr_say(report, arg, "%s", ostio_last_error());
      ostio__clear_error();
      continue;
    }
    int64_t drained = v.drained_data < v.indexed ? v.drained_data : v.indexed;
    if (v.refused)
      n += ostio__ctr_say(report, arg, "%s; writer %" PRIu32 " of session %" PRIu32 " is "
                          "staged, %" PRId64 " of %" PRId64 " indexed data bytes drained",
                          v.problem, s->writer, s->session, drained, v.indexed);
    else if (!v.rec_ok)
      n += ostio__ctr_say(report, arg, "%s; writer %" PRIu32 " of session %" PRIu32 " is "
                          "staged, %" PRId64 " of %" PRId64 " indexed data bytes drained; if "
                          "its node is lost, `ostio container recover %s` gives up the rest",
                          v.problem, s->writer, s->session, drained, v.indexed, d->path);
    else
      n += ostio__ctr_say(report, arg, "%s: writer %" PRIu32 " of session %" PRIu32 " is "
                          "staged on host %s (%s), %" PRId64 " of %" PRId64 " indexed data "
                          "bytes drained; run `ostio stage drain %s` on %s%s", d->path,
                          s->writer, s->session, v.rec.host, v.rec.dir, drained, v.indexed,
                          d->path, v.rec.host,
                          v.reachable ? "" : " (its stage directory cannot be reached from "
                          "here, or lost its staged logs; if so, `ostio container recover` "
                          "gives up what is not drained)");
    for (size_t k = 0; k < v.nlost && k < MAX_SAID; k++) {
      char t[160];
      ostio__stage_range_text(&v.lost[k], t, sizeof t);
      n += ostio__ctr_say(report, arg, "%s: writer %" PRIu32 " of session %" PRIu32 ": "
                          "logical bytes %s are staged, not drained", d->path, s->writer,
                          s->session, t);
    }
    if (v.nlost > MAX_SAID)
      n += ostio__ctr_say(report, arg, "%s: writer %" PRIu32 " of session %" PRIu32 ": and "
                          "%zu more ranges are staged, not drained (%" PRId64 " bytes named "
                          "by records not drained in all); `ostio stage status %s` lists "
                          "the writers", d->path, s->writer, s->session, v.nlost - MAX_SAID,
                          v.lost_bytes, d->path);
    ostio__stage_view_free(&v);
  }
  return n;
}

/* ---- recover ----------------------------------------------------------------------------- */

static int open_scanned(const char *path, ostio__logdir **d)
{
  int rc = ostio__log_open(path, NULL, 0, d);
  if (rc == 0) rc = ostio__log_scan(*d);
  if (rc < 0) ostio__log_close(d);
  return rc;
}

/* The ranges of v as one sentence part into buf. */
static void ranges_text(const ostio__stageview *v, char *buf, size_t cap)
{
  size_t at = 0;
  buf[0] = 0;
  for (size_t k = 0; k < v->nlost && k < MAX_SAID && at < cap; k++) {
    char t[160];
    ostio__stage_range_text(&v->lost[k], t, sizeof t);
    at += (size_t)snprintf(buf + at, cap - at, "%s%s", k ? ", " : "", t);
  }
  if (v->nlost > MAX_SAID && at < cap)
    snprintf(buf + at, cap - at, " and %zu more ranges", v->nlost - MAX_SAID);
}

/* Removes src i's stage record (the writer is then an ordinary one whose
 * data log ends where the drain stopped). */
static int drop_record(ostio__logdir *d, size_t i)
{
  const ostio__logsrc *s = &d->src[i];
  return ostio__stage_unrecord(d, s->hostdir, s->session, s->writer);
}

int ostio__log_recover_stage(const char *path, ostio__ctr_report report, void *arg)
{
  ostio__logdir *d = NULL;
  int n = 0, rc = open_scanned(path, &d), drained = 0, elsewhere = 0, refused = 0;
  char why[1536] = "";
  int64_t copied = 0;
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++)
    elsewhere += (d->src[i].flags & OSTIO__LOGSRC_STAGED) != 0;
  if (rc == 0 && elsewhere) rc = ostio__stage_drain_local(d, NULL, &copied, &drained, &elsewhere);
  if (rc == 0 && drained)
    n += ostio__ctr_say(report, arg, "%s: drained %d writer%s staged on this node (%s): %"
                        PRId64 " bytes copied, stage records and staged files removed", path,
                        drained, drained == 1 ? "" : "s", ostio__stage_self(), copied);
  if (rc == 0 && drained && elsewhere) {
    ostio__log_close(&d);
    rc = open_scanned(path, &d);
  }
  for (size_t i = 0; rc == 0 && elsewhere && i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (!(s->flags & OSTIO__LOGSRC_STAGED)) continue;
    ostio__stageview v;
    if ((rc = ostio__stage_view(d, i, &v)) < 0) break;
    if (v.refused) {
      /* Not given up: the bytes may be drainable (a moved container), and
       * nothing is read or removed where the record points. */
      if (!refused) {
        refused = v.rec_err;
        snprintf(why, sizeof why, "%s", v.problem);
      }
      ostio__stage_view_free(&v);
      continue;
    }
    if (v.rec_ok && v.reachable) {
      /* Staged on a node that may be alive: its drain belongs there. */
      (void)ostio__ctr_say(report, arg, "%s: left writer %" PRIu32 " of session %" PRIu32
                           " staged on host %s: its stage directory %s is reachable from "
                           "here; run `ostio stage drain --host %s %s` once the job there "
                           "has ended", path, s->writer, s->session, v.rec.host, v.rec.dir,
                           v.rec.host, path);
      ostio__stage_view_free(&v);
      continue;
    }
    char where[OSTIO__STAGE_HOST_MAX + OSTIO__STAGE_DIR_MAX + 64], lost[800];
    if (v.rec_ok)
      snprintf(where, sizeof where, "on host %s: %s cannot be reached from here", v.rec.host,
               v.rec.dir);
    else
      snprintf(where, sizeof where, "by a damaged stage record");
    ranges_text(&v, lost, sizeof lost);
    if ((rc = drop_record(d, i)) == 0)
      n += ostio__ctr_say(report, arg, "%s: gave up writer %" PRIu32 " of session %" PRIu32
                          " staged %s; %" PRId64 " of %" PRId64 " indexed data bytes were "
                          "drained and stay; %s%s%s", path, s->writer, s->session, where,
                          v.drained_data < v.indexed ? v.drained_data : v.indexed, v.indexed,
                          v.nlost ? "logical bytes " : "no range its index names is lost",
                          lost, v.nlost ? " are lost (the index is cut below)" : "");
    ostio__stage_view_free(&v);
  }
  ostio__log_close(&d);
  if (rc == 0 && refused)
    rc = ostio__fail(refused, "%s; that writer is left staged, recover refused", why);
  return rc < 0 ? rc : n;
}

/* ---- compact ----------------------------------------------------------------------------- */

int ostio__log_refuse_staged(const ostio__logdir *d)
{
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (s->flags & OSTIO__LOGSRC_STAGED)
      return ostio__fail(OSTIO_ESTAGED, "%s: writer %" PRIu32 " of session %" PRIu32 " is "
                         "staged (not drained into the container yet): drain first (`ostio "
                         "stage drain %s` on its node; `ostio stage status %s` says which), or "
                         "`ostio container recover %s` when that node is lost; compact "
                         "refused", d->path, s->writer, s->session, d->path, d->path, d->path);
  }
  return 0;
}
