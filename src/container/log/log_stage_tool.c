/* The log kind's stage hooks (src/file/kind.h, ctr_hooks.h): `ostio stage
 * status` lists the staged writers of a log container (ostio__stage_view,
 * logtool_stage.h); `ostio stage drain` drains and finishes those staged on
 * this node (log_stage.h) and writes the size record clean once nothing is
 * staged. By path, no MPI; the CLI (src/tools/cmd_stage.c) parses the
 * options and prints the progress line. See docs/cli.md ("ostio stage"). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "container/ctr_hooks.h"
#include "container/log/logtool_stage.h"
#include "core/clock.h"
#include "core/error.h"

_Static_assert(OSTIO__CTR_HOST_MAX == OSTIO__STAGE_HOST_MAX,
               "the CLI's --host limit is a stage record's host");

/* Opens and lists path; takes o->host as this node's name. */
static int open_log(const char *path, ostio__stage_opts *o, ostio__logdir **d)
{
  if (o->host) ostio__stage_set_self(o->host);
  o->self = ostio__stage_self();
  int rc = ostio__log_open(path, NULL, 0, d);
  if (rc == 0) rc = ostio__log_scan(*d);
  if (rc < 0) ostio__log_close(d);
  return rc;
}

static int staged_count(const ostio__logdir *d)
{
  int n = 0;
  for (size_t i = 0; i < d->nsrc; i++) n += (d->src[i].flags & OSTIO__LOGSRC_STAGED) != 0;
  return n;
}

/* ---- status ---------------------------------------------------------------------------- */

static void json_num_or_null(FILE *f, int64_t v)
{
  if (v < 0) fprintf(f, "null");
  else fprintf(f, "%" PRId64, v);
}

static void json_str_or_null(FILE *f, int ok, const char *s)
{
  if (ok) ostio__show_str(f, s);
  else fprintf(f, "null");
}

/* One staged writer (src s, its view v), the n-th listed. */
static void status_one(FILE *f, int json, int n, const ostio__logsrc *s,
                       const ostio__stageview *v)
{
  int64_t drained = v->drained_data < v->indexed ? v->drained_data : v->indexed;
  if (json) {
    fprintf(f, "%s{\"session\": %" PRIu32 ", \"writer\": %" PRIu32 ", \"hostdir\": %d, "
            "\"host\": ", n ? ", " : "", s->session, s->writer, (int)s->hostdir);
    json_str_or_null(f, v->rec_ok, v->rec.host);
    fprintf(f, ", \"dir\": ");
    json_str_or_null(f, v->rec_ok, v->rec.dir);
    fprintf(f, ", \"this_node\": %s, \"reachable\": %s, \"staged_data_bytes\": ",
            v->here ? "true" : "false", v->reachable ? "true" : "false");
    json_num_or_null(f, v->staged_data);
    fprintf(f, ", \"staged_index_bytes\": ");
    json_num_or_null(f, v->staged_index);
    fprintf(f, ", \"drained_data_bytes\": %" PRId64 ", \"drained_index_bytes\": %" PRId64
            ", \"indexed_data_bytes\": %" PRId64 ", \"undrained_ranges\": %zu, "
            "\"record_error\": ", v->drained_data, v->drained_index, v->indexed, v->nlost);
    json_str_or_null(f, !v->rec_ok, v->problem);
    fprintf(f, "}");
    return;
  }
  fprintf(f, "session %" PRIu32 " writer %" PRIu32 " (hostdir.%03d): ", s->session, s->writer,
          (int)s->hostdir);
  if (v->rec_ok)
    fprintf(f, "host %s%s, dir %s\n", v->rec.host, v->here ? " (this node)" : "", v->rec.dir);
  else
    fprintf(f, "%s\n", v->problem);
  if (v->staged_data >= 0 || v->staged_index >= 0)
    fprintf(f, "  staged:  data %" PRId64 " bytes, index %" PRId64 " bytes\n",
            v->staged_data < 0 ? 0 : v->staged_data, v->staged_index < 0 ? 0 : v->staged_index);
  else
    fprintf(f, "  staged:  unknown (the stage directory cannot be reached from here)\n");
  fprintf(f, "  drained: data %" PRId64 " bytes (%" PRId64 " of the %" PRId64 " the container's "
          "index names), index %" PRId64 " bytes; %zu range%s not drained\n", v->drained_data,
          drained, v->indexed, v->drained_index, v->nlost, v->nlost == 1 ? "" : "s");
}

int ostio__log_hook_stage_status(const char *path, ostio__stage_opts *o)
{
  ostio__logdir *d = NULL;
  FILE *f = o->out;
  int rc = open_log(path, o, &d);
  if (rc < 0) return rc;
  int64_t tot[4] = {0, 0, 0, 0};
  int n = 0, here = 0;
  if (o->json) {
    fprintf(f, "{\"path\": ");
    ostio__show_str(f, path);
    fprintf(f, ", \"host\": ");
    ostio__show_str(f, o->self);
    fprintf(f, ", \"writers\": [");
  } else if (!staged_count(d)) {
    fprintf(f, "%s: nothing staged (every writer's logs are in the container)\n", path);
  }
  for (size_t i = 0; i < d->nsrc; i++) {
    ostio__stageview v;
    if (!(d->src[i].flags & OSTIO__LOGSRC_STAGED)) continue;
    if ((rc = ostio__stage_view(d, i, &v)) < 0) break;
    status_one(f, o->json, n, &d->src[i], &v);
    n++;
    here += v.here;
    tot[0] += v.staged_data > 0 ? v.staged_data : 0;
    tot[1] += v.staged_index > 0 ? v.staged_index : 0;
    tot[2] += v.drained_data;
    tot[3] += v.drained_index;
    ostio__stage_view_free(&v);
  }
  ostio__log_close(&d);
  if (rc < 0) {
    if (o->json) fprintf(f, "]}\n");
    return rc;
  }
  if (o->json)
    fprintf(f, "], \"totals\": {\"writers\": %d, \"this_node\": %d, \"elsewhere\": %d, "
            "\"staged_data_bytes\": %" PRId64 ", \"staged_index_bytes\": %" PRId64
            ", \"drained_data_bytes\": %" PRId64 ", \"drained_index_bytes\": %" PRId64 "}}\n",
            n, here, n - here, tot[0], tot[1], tot[2], tot[3]);
  else if (n)
    fprintf(f, "total: %d staged writer%s (%d on this node %s, %d elsewhere); staged data %"
            PRId64 " bytes, index %" PRId64 " bytes (where reachable); drained data %" PRId64
            " bytes, index %" PRId64 " bytes\n", n, n == 1 ? "" : "s", here, o->self, n - here,
            tot[0], tot[1], tot[2], tot[3]);
  return 0;
}

/* ---- drain ------------------------------------------------------------------------------ */

typedef struct drain_run {
  const char *path;
  ostio__stage_opts *o;
  ostio__throttle t;
  int64_t copied;
  double t0;
} drain_run;

static double mib_s(const drain_run *r)
{
  double dt = ostio__now() - r->t0;
  return dt > 0 ? (double)r->copied / dt / (1 << 20) : 0.0;
}

/* Drains and finishes src i (staged on this node, its record r). */
static int drain_one(ostio__logdir *d, size_t i, const ostio__stagerec *rec, drain_run *r)
{
  const ostio__logsrc *s = &d->src[i];
  int sfd = -1, rc = ostio__stage_rec_open(rec, &sfd);
  if (rc < 0) return rc;
  ostio__drainw st = {0};
  while ((rc = ostio__stage_drain_finish(d, s->hostdir, s->session, s->writer, sfd, rec->dir,
                                         &st, &r->t, &r->copied)) == 1) {
    if (r->o->tick) *r->o->tick = 0;
    if (r->o->progress) r->o->progress(r->o->arg, r->path, r->copied, ostio__now() - r->t0);
  }
  close(sfd);
  return rc;
}

/* After the last staged writer went: the size record, clean, as the job's
 * close would have written it (the job ended without closing). */
static int size_clean(const char *path, FILE *f)
{
  ostio__logdir *d = NULL;
  ostio__sizerec rec;
  int64_t size = 0;
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc == 0 && staged_count(d) == 0 &&
      (ostio__sizerec_read(d->dirfd, path, &rec) < 0 || !rec.clean ||
       !ostio__log_rec_trusted(d, &rec))) {
    ostio__clear_error();
    if ((rc = ostio__log_publish_clean(d, &size)) == 0)
      fprintf(f, "%s: size record written clean: %" PRId64 " bytes (the writing job ended "
              "without closing)\n", path, size);
  }
  ostio__log_close(&d);
  return rc;
}

int ostio__log_hook_stage_drain(const char *path, ostio__stage_opts *o)
{
  ostio__logdir *d = NULL;
  FILE *f = o->out;
  int rc = open_log(path, o, &d);
  if (rc < 0) return rc;
  drain_run r = {.path = path, .o = o, .t0 = ostio__now()};
  ostio__throttle_init(&r.t, o->bandwidth, o->tick);
  int drained = 0, left = 0, refused = 0;
  char others[1024] = "";
  size_t olen = 0;
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    ostio__stageview v;
    if (!(s->flags & OSTIO__LOGSRC_STAGED)) continue;
    if ((rc = ostio__stage_view(d, i, &v)) < 0) break;
    if (v.refused) {
      /* A record naming a directory that is not this writer's: nothing is
       * read or removed there; the other writers are drained, then the
       * refusal is the outcome. */
      fprintf(stderr, "ostio stage drain: %s\n", v.problem);
      if (!refused) refused = v.rec_err;
      left++;
    } else if (v.rec_ok && v.here && v.reachable) {
      int64_t before = r.copied;
      if ((rc = drain_one(d, i, &v.rec, &r)) == 0) {
        drained++;
        fprintf(f, "%s: drained writer %" PRIu32 " of session %" PRIu32 " (host %s): %" PRId64
                " bytes copied\n", path, s->writer, s->session, v.rec.host, r.copied - before);
      }
    } else {
      left++;
      if (v.rec_ok && v.here)
        fprintf(f, "%s: writer %" PRIu32 " of session %" PRIu32 " is staged on this node, but "
                "its stage directory %s is gone or lost its staged logs: nothing to drain; "
                "`ostio container check %s` names what is lost, `ostio container recover %s` "
                "gives it up\n", path, s->writer, s->session, v.rec.dir, path, path);
      else if (olen < sizeof others)
        olen += (size_t)snprintf(others + olen, sizeof others - olen, "%s%s (writer %" PRIu32
                                 " of session %" PRIu32 ")", olen ? ", " : "",
                                 v.rec_ok ? v.rec.host : "unknown: damaged stage record",
                                 s->writer, s->session);
    }
    ostio__stage_view_free(&v);
  }
  ostio__log_close(&d);
  if (rc < 0) return rc;
  if (drained)
    fprintf(f, "%s: %d writer%s drained, %" PRId64 " bytes in %.1f s (%.1f MiB/s)\n", path,
            drained, drained == 1 ? "" : "s", r.copied, ostio__now() - r.t0, mib_s(&r));
  else if (!left)
    fprintf(f, "%s: nothing staged (every writer's logs are in the container)\n", path);
  if (drained && !left && (rc = size_clean(path, f)) < 0) return rc;
  if (olen)
    fprintf(f, "%s: staged on other nodes, not drained here: %s%s; run `ostio stage drain %s` "
            "there\n", path, others, olen >= sizeof others ? "..." : "", path);
  if (refused)
    return ostio__fail(refused, "%s: %d writer%s not drained: %s stage record%s refused "
                       "(above); nothing was read or removed in the director%s it names",
                       path, left, left == 1 ? "" : "s", left == 1 ? "its" : "a",
                       left == 1 ? " was" : "s were", left == 1 ? "y" : "ies");
  return left;
}
