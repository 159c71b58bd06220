/* The log kind's tool hooks (src/file/kind.h, ctr_hooks.h): `ostio
 * container create`, `ls`, `stat`, `map` and `compact`, and the data extents
 * flatten copies. By path, no MPI; check and recover are logtool.c's. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "container/ctr_hooks.h"
#include "container/log/log.h"
#include "core/error.h"

/* Opens and lists path; with map, loads every index into it. */
static int open_log(const char *path, ostio__logdir **d, ostio__logmap *map, ostio__logload *st)
{
  int rc = ostio__log_open(path, NULL, 0, d);
  if (rc == 0) rc = ostio__log_scan(*d);
  if (rc == 0 && map) rc = ostio__log_load_all(*d, map, st);
  if (rc < 0) ostio__log_close(d);
  return rc;
}

/* hostdirs: the command line's, else 1 (ostio_open picks ceil(sqrt(nodes))). */
int ostio__log_hook_make(const char *path, const ostio__make *a, ostio__ctr_report report,
                         void *arg)
{
  ostio__ctr_params p = {.kind = &ostio__ctr_log,
                         .hostdirs = a->hostdirs ? (int32_t)a->hostdirs : 1};
  snprintf(p.requested, sizeof p.requested, "hostdirs=%d (from the command line) writers=rank",
           (int)p.hostdirs);
  int made = 0, rc = ostio__ctr_create(path, &p, 1, &made);
  if (rc < 0) return rc;
  ostio__ctr_say(report, arg, "%s: log container, %d hostdir%s", path, (int)p.hostdirs,
                 p.hostdirs == 1 ? "" : "s");
  return 0;
}

int ostio__log_hook_ls(const char *path, const ostio__show *o)
{
  ostio__logdir *d = NULL;
  int rc = open_log(path, &d, NULL, NULL);
  if (rc < 0) return rc;
  FILE *f = o->out;
  if (o->json) fprintf(f, "{\"path\": "), ostio__show_str(f, path), fprintf(f, ", \"logs\": [");
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (o->json)
      fprintf(f, "%s{\"hostdir\": %d, \"session\": %" PRIu32 ", \"writer\": %" PRIu32
              ", \"data_bytes\": %" PRId64 ", \"index_bytes\": %" PRId64 ", \"records\": %" PRId64
              ", \"compacted\": %s}", i ? ", " : "", (int)s->hostdir, s->session, s->writer,
              s->data_size, s->index_size, s->index_size / OSTIO__LOGREC_SIZE,
              s->flags & OSTIO__LOGSRC_COVERED ? "true" : "false");
    else
      fprintf(f, "hostdir.%03d  session %-5" PRIu32 " writer %-6" PRIu32 " data %14" PRId64
              "  index %10" PRId64 " (%" PRId64 " records)%s\n", (int)s->hostdir, s->session,
              s->writer, s->data_size, s->index_size, s->index_size / OSTIO__LOGREC_SIZE,
              s->flags & OSTIO__LOGSRC_COVERED ? "  compacted" : "");
  }
  if (o->json) fprintf(f, "], \"compact_bytes\": %" PRId64 "}\n", d->compact_size);
  else if (d->compact)
    fprintf(f, "%s: %" PRId64 " bytes, current\n", OSTIO__LOG_COMPACT, d->compact_size);
  ostio__log_close(&d);
  return 0;
}

int ostio__log_hook_stat(const char *path, const ostio__show *o)
{
  ostio__logdir *d = NULL;
  int rc = open_log(path, &d, NULL, NULL);
  if (rc < 0) return rc;
  ostio__stat_head h = {.path = path, .kind = "log", .m = &d->m, .size_from = "size record",
                        .rec = {.size = -1}};
  h.have_rec = ostio__sizerec_read(d->dirfd, path, &h.rec) == 0;
  h.size = h.rec.size;
  /* The rule readers use (logsize.c): a clean record counts only while the
   * index logs on disk are the ones it was derived from; otherwise (an
   * unclean close, or logs added behind its back) the index decides. */
  if (!h.have_rec || !ostio__log_rec_trusted(d, &h.rec)) {
    ostio__logmap map;
    ostio__logload st = {0};
    ostio__logmap_init(&map);
    rc = ostio__log_load_all(d, &map, &st);
    h.size = map.size;
    h.size_from = "index";
    ostio__logmap_free(&map);
    if (rc < 0) {
      ostio__log_close(&d);
      return rc;
    }
  }
  int64_t index_bytes = 0, data_bytes = 0;
  for (size_t i = 0; i < d->nsrc; i++) {
    index_bytes += d->src[i].index_size;
    data_bytes += d->src[i].data_size;
  }
  const ostio__manifest *m = &d->m;
  ostio__show_head(o, &h);
  ostio__show_num(o, "hostdirs", m->hostdirs);
  ostio__show_word(o, "writers", m->writers == OSTIO__LOG_WRITERS_NODE ? "node" : "rank");
  ostio__show_num(o, "sessions", d->max_session);
  if (o->json) {
    fprintf(o->out, ", \"logs\": %zu, \"index_bytes\": %" PRId64 ", \"data_bytes\": %" PRId64
            ", \"compact\": %s", d->nsrc, index_bytes, data_bytes, d->compact ? "true" : "false");
  } else {
    fprintf(o->out, "logs:         %zu writers, %" PRId64 " index bytes, %" PRId64 " data bytes"
            "\n", d->nsrc, index_bytes, data_bytes);
    ostio__show_word(o, "compact", d->compact ? "current" : "none");
  }
  ostio__show_foot(o, m);
  ostio__log_close(&d);
  return 0;
}

/* The resolved map: each run of [0, size) with the data log and offset that
 * hold it, or "zeros". */
static int print_map(ostio__logdir *d, ostio__logmap *map, FILE *f)
{
  ostio__logres res = {0};
  int rc = ostio__logmap_resolve(map, NULL, 0, 0, map->size, &res);
  for (size_t i = 0; rc == 0 && i < res.nseg; i++) {
    const ostio__logseg *s = &res.seg[i];
    if (s->src < 0) {
      fprintf(f, "%" PRId64 " %" PRId64 " zeros\n", s->off, s->len);
      continue;
    }
    char name[64];
    const ostio__logsrc *w = &d->src[s->src];
    ostio__log_name(name, sizeof name, w->hostdir, "data", w->session, w->writer);
    fprintf(f, "%" PRId64 " %" PRId64 " %s %" PRId64 "\n", s->off, s->len, name, s->phys);
  }
  ostio__logres_free(&res);
  return rc;
}

int ostio__log_hook_map(const char *path, const ostio__show *o)
{
  ostio__logdir *d = NULL;
  ostio__logmap map;
  ostio__logload st = {0};
  ostio__logmap_init(&map);
  int rc = open_log(path, &d, &map, &st);
  if (rc < 0) {
    ostio__logmap_free(&map);
    return rc;
  }
  if (o->records) {
    for (size_t i = 0; i < map.n; i++) {
      const ostio__logrec *r = &map.e[i].r;
      fprintf(o->out, "%s seq %" PRIu64 ".%" PRIu64 " writer %" PRIu32 " start %" PRId64
              " stride %" PRId64 " length %" PRId64 " count %" PRId64 " phys %" PRId64,
              r->type == OSTIO__LOGREC_TRUNC ? "TRUNC" : "WRITE", r->seq >> 32,
              r->seq & 0xffffffffu, r->writer, r->lstart, r->lstride, r->length, r->count,
              r->pstart);
      /* A record whose seq left its session's range (two handles at once):
       * its data log is data.SESSION.W. */
      if (r->session != (uint32_t)(r->seq >> 32)) fprintf(o->out, " session %" PRIu32, r->session);
      fputc('\n', o->out);
    }
  } else {
    rc = print_map(d, &map, o->out);
  }
  /* The summary after a failed resolve too: the first problem loading says why. */
  fprintf(o->note, "%s: %zu records, size %" PRId64 "%s%s\n", path, map.n, map.size,
          st.first_problem[0] ? "; " : "", st.first_problem);
  ostio__logmap_free(&map);
  ostio__log_close(&d);
  return rc;
}

int ostio__log_hook_compact(const char *path, ostio__ctr_report report, void *arg)
{
  int64_t n = 0;
  int rc = ostio__log_compact(path, &n);
  if (rc < 0) return rc;
  ostio__ctr_say(report, arg, "%s: %s written, %" PRId64 " records", path, OSTIO__LOG_COMPACT, n);
  return n > INT_MAX ? INT_MAX : (int)n;
}

/* The segments of [0, size) that are not zeros. A read of lost data fails,
 * so does this (resolve reports it). */
int ostio__log_hook_extents(const char *path, int64_t size, ostio__ctr_extent_fn add, void *arg)
{
  ostio__logdir *d = NULL;
  ostio__logmap map;
  ostio__logres res = {0};
  ostio__logload st = {0};
  ostio__logmap_init(&map);
  int rc = open_log(path, &d, &map, &st);
  if (rc == 0 && size > 0) rc = ostio__logmap_resolve(&map, NULL, 0, 0, size, &res);
  for (size_t i = 0; rc == 0 && size > 0 && i < res.nseg; i++)
    if (res.seg[i].src != -1) rc = add(arg, res.seg[i].off, res.seg[i].len);
  ostio__logres_free(&res);
  ostio__logmap_free(&map);
  ostio__log_close(&d);
  return rc;
}
