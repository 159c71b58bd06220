/* ostio container ls|stat|map|recover|compact for log containers (issue 6;
 * src/container/log/log.h). cmd_container.c dispatches here on the manifest's
 * kind; check and flatten go through the library for every kind. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "container/log/log.h"
#include "core/error.h"
#include "tools/cli.h"
#include "tools/cli_container.h"

static int open_log(const char *who, const char *path, ostio__logdir **d, ostio__logmap *map,
                    ostio__logload *st)
{
  int rc = ostio__log_open(path, NULL, 0, d);
  if (rc == 0) rc = ostio__log_scan(*d);
  if (rc == 0 && map) rc = ostio__log_load_all(*d, map, st);
  if (rc < 0) {
    ostio__log_close(d);
    return cli_lib_error(who, rc);
  }
  return CLI_OK;
}

int log_ls(const char *path, int json)
{
  ostio__logdir *d = NULL;
  int rc = open_log("container ls", path, &d, NULL, NULL);
  if (rc != CLI_OK) return rc;
  if (json) printf("{\"path\": "), json_string(stdout, path), printf(", \"logs\": [");
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (json)
      printf("%s{\"hostdir\": %d, \"session\": %" PRIu32 ", \"writer\": %" PRIu32
             ", \"data_bytes\": %" PRId64 ", \"index_bytes\": %" PRId64 ", \"records\": %" PRId64
             ", \"compacted\": %s}", i ? ", " : "", (int)s->hostdir, s->session, s->writer,
             s->data_size, s->index_size, s->index_size / OSTIO__LOGREC_SIZE,
             s->flags & OSTIO__LOGSRC_COVERED ? "true" : "false");
    else
      printf("hostdir.%03d  session %-5" PRIu32 " writer %-6" PRIu32 " data %14" PRId64
             "  index %10" PRId64 " (%" PRId64 " records)%s\n", (int)s->hostdir, s->session,
             s->writer, s->data_size, s->index_size, s->index_size / OSTIO__LOGREC_SIZE,
             s->flags & OSTIO__LOGSRC_COVERED ? "  compacted" : "");
  }
  if (json) printf("], \"compact_bytes\": %" PRId64 "}\n", d->compact_size);
  else if (d->compact)
    printf("%s: %" PRId64 " bytes, current\n", OSTIO__LOG_COMPACT, d->compact_size);
  ostio__log_close(&d);
  return CLI_OK;
}

int log_stat(const char *path, int json)
{
  ostio__logdir *d = NULL;
  int rc = open_log("container stat", path, &d, NULL, NULL);
  if (rc != CLI_OK) return rc;
  ostio__sizerec rec = {.clean = 0, .size = -1};
  int have = ostio__sizerec_read(d->dirfd, path, &rec) == 0;
  int64_t size = rec.size, index_bytes = 0, data_bytes = 0;
  const char *from = "size record";
  if (!have || !rec.clean) { /* an unclean close: the index decides */
    ostio__logmap map;
    ostio__logload st = {0};
    ostio__logmap_init(&map);
    if ((rc = ostio__log_load_all(d, &map, &st)) < 0) {
      ostio__logmap_free(&map);
      ostio__log_close(&d);
      return cli_lib_error("container stat", rc);
    }
    size = map.size;
    from = "index";
    ostio__logmap_free(&map);
  }
  for (size_t i = 0; i < d->nsrc; i++) {
    index_bytes += d->src[i].index_size;
    data_bytes += d->src[i].data_size;
  }
  const ostio__manifest *m = &d->m;
  const char *wr = m->writers == OSTIO__LOG_WRITERS_NODE ? "node" : "rank";
  if (json) {
    printf("{\"path\": ");
    json_string(stdout, path);
    printf(", \"kind\": \"log\", \"version\": %d, \"byte_order\": \"%s\", \"size\": %" PRId64
           ", \"size_from\": \"%s\", \"size_record\": ", m->version, m->byte_order, size, from);
    ctr_print_size_record(have, &rec, 1);
    printf(", \"hostdirs\": %d, \"writers\": \"%s\", \"sessions\": %" PRIu32 ", \"logs\": %zu"
           ", \"index_bytes\": %" PRId64 ", \"data_bytes\": %" PRId64 ", \"compact\": %s",
           (int)m->hostdirs, wr, d->max_session, d->nsrc, index_bytes, data_bytes,
           d->compact ? "true" : "false");
  } else {
    printf("%s\nkind:         log\nversion:      %d\nbyte_order:   %s\nsize:         %" PRId64
           " (from the %s)\n", path, m->version, m->byte_order, size, from);
    ctr_print_size_record(have, &rec, 0);
    printf("hostdirs:     %d\nwriters:      %s\nsessions:     %" PRIu32 "\nlogs:         %zu "
           "writers, %" PRId64 " index bytes, %" PRId64 " data bytes\ncompact:      %s\n",
           (int)m->hostdirs, wr, d->max_session, d->nsrc, index_bytes, data_bytes,
           d->compact ? "current" : "none");
  }
  ctr_print_footer(m, json);
  ostio__log_close(&d);
  return CLI_OK;
}

/* Arguments of the log-only subcommands: PATH, --help, and flags in allow. */
static int args(const char *who, const char *usage, int argc, char **argv, const char *allow,
                int *flag, const char **path)
{
  *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return -1;
    }
    if (argv[i][0] == '-') {
      if (allow && !strcmp(argv[i], allow)) {
        *flag = 1;
        continue;
      }
      if (!strcmp(argv[i], "--json"))   /* as parse() in cmd_container.c says it */
        return cli_usage_error(who, "option --json does not apply here");
      return cli_usage_error(who, "unknown option '%s'", argv[i]);
    }
    if (*path) return cli_usage_error(who, "expected one PATH");
    *path = argv[i];
  }
  if (!*path) return cli_usage_error(who, "expected one PATH");
  int kind = 0;
  if (!ostio__ctr_is_container(*path))
    return cli_runtime_error(who, "%s: not a container (no %s inside)", *path,
                             OSTIO__CTR_MANIFEST);
  int rc = ostio__ctr_kind_of(*path, &kind);
  if (rc < 0) return cli_lib_error(who, rc);
  if (kind != OSTIO__CTR_KIND_LOG) {
    /* What the subcommand does, and what to use on this kind instead. */
    const char *why =
      strstr(who, "recover")
        ? "recover repairs a log container after a crash (cuts torn index records and data "
          "no record describes, rewrites the size record); a striped container needs no "
          "recovery: its size comes from its objects, and `ostio container check` reports "
          "damage"
      : strstr(who, "compact")
        ? "compact merges a log container's index logs into one index.compact; a striped "
          "container has no index to merge: its stripes map by arithmetic"
        : "map prints a log container's merged index; a striped container maps by "
          "arithmetic: `ostio map PATH`";
    return cli_runtime_error(who, "%s is a %s container; %s applies to log containers only: "
                             "%s", *path, ostio__ctr_kind_name(kind), who, why);
  }
  return 0;
}

int sub_map(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container map [--records] PATH\n\n"
    "Prints the logical-to-physical map of the log container PATH: for each run of\n"
    "the logical file, OFFSET LENGTH and the data log and offset that hold it, or\n"
    "\"zeros\" (a hole, or bytes cut by a truncation). The map is what reads see:\n"
    "records merged by the overlap rule (docs/containers.md). --records prints the\n"
    "index records in key order instead (type, seq, writer, logical start, stride,\n"
    "length, count, physical start).\n";
  const char *path;
  int records = 0;
  int rc = args("container map", usage, argc, argv, "--records", &records, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  ostio__logdir *d = NULL;
  ostio__logmap map;
  ostio__logload st = {0};
  ostio__logres res = {0};
  ostio__logmap_init(&map);
  if ((rc = open_log("container map", path, &d, &map, &st)) != CLI_OK) return rc;
  if (records) {
    for (size_t i = 0; i < map.n; i++) {
      const ostio__logrec *r = &map.e[i].r;
      printf("%s seq %" PRIu64 ".%" PRIu64 " writer %" PRIu32 " start %" PRId64 " stride %"
             PRId64 " length %" PRId64 " count %" PRId64 " phys %" PRId64 "\n",
             r->type == OSTIO__LOGREC_TRUNC ? "TRUNC" : "WRITE", r->seq >> 32,
             r->seq & 0xffffffffu, r->writer, r->lstart, r->lstride, r->length, r->count,
             r->pstart);
    }
  } else if ((rc = ostio__logmap_resolve(&map, NULL, 0, 0, map.size, &res)) < 0) {
    rc = cli_lib_error("container map", rc);
  } else {
    for (size_t i = 0; i < res.nseg; i++) {
      const ostio__logseg *s = &res.seg[i];
      if (s->src < 0) {
        printf("%" PRId64 " %" PRId64 " zeros\n", s->off, s->len);
        continue;
      }
      char name[64];
      const ostio__logsrc *w = &d->src[s->src];
      ostio__log_name(name, sizeof name, w->hostdir, "data", w->session, w->writer);
      printf("%" PRId64 " %" PRId64 " %s %" PRId64 "\n", s->off, s->len, name, s->phys);
    }
  }
  fprintf(stderr, "%s: %zu records, size %" PRId64 "%s%s\n", path, map.n, map.size,
          st.first_problem[0] ? "; " : "", st.first_problem);
  ostio__logres_free(&res);
  ostio__logmap_free(&map);
  ostio__log_close(&d);
  return rc;
}

static void print_repair(void *arg, const char *msg)
{
  (void)arg;
  printf("%s\n", msg);
}

int sub_recover(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container recover PATH\n\n"
    "Repairs what `ostio container check` reports on the log container PATH after a\n"
    "crash or damage: each index log is cut at its first invalid record (a torn\n"
    "last record, a damaged one, or one pointing past its data log: the records\n"
    "after it cannot be trusted), a stale index.compact and leftover temporary files\n"
    "are removed, and the size record is written clean with the size the index\n"
    "implies. Foreign files are left alone (check names them). Run it when no job\n"
    "has the container open. Each repair is printed; exit 0 when done.\n";
  const char *path;
  int dummy = 0;
  int rc = args("container recover", usage, argc, argv, NULL, &dummy, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  int n = ostio__log_recover(path, print_repair, NULL);
  if (n < 0) return cli_lib_error("container recover", n);
  printf("%s: %d repair%s\n", path, n, n == 1 ? "" : "s");
  return CLI_OK;
}

int sub_compact(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container compact PATH\n\n"
    "Writes index.compact in the log container PATH: every index record in key\n"
    "order plus the size of each index log it covers, so a reader loads one file.\n"
    "Readers use it while the logs it covers are unchanged; a later write session\n"
    "adds new logs that readers load beside it. Run it when no job has the\n"
    "container open.\n";
  const char *path;
  int dummy = 0;
  int rc = args("container compact", usage, argc, argv, NULL, &dummy, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  int64_t n = 0;
  if ((rc = ostio__log_compact(path, &n)) < 0) return cli_lib_error("container compact", rc);
  printf("%s: %s written, %" PRId64 " records\n", path, OSTIO__LOG_COMPACT, n);
  return CLI_OK;
}
