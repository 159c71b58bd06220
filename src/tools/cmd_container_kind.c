/* `ostio container SUB PATH` (and `ostio stage SUB PATH`) on an existing
 * PATH: its kind is found once (ostio__kind_of_path) and the subcommand
 * calls that kind's tool hook (src/file/kind.h). A kind without the hook
 * gets one message, from ctr_kind below, naming the kinds of the registry
 * that have it: the CLI holds no list of what each kind supports. Also
 * map, recover and compact, whose only options are PATH and --records. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "tools/cli.h"
#include "tools/cli_container.h"

/* What to use instead, after "not supported": shown when the path's kind
 * has the hook the hint names (or when it names a command, need < 0). */
static const struct {
  ostio__kind_tool tool;
  int need;
  const char *hint;
} hints[] = {
  {OSTIO__TOOL_MAP, -1, "`ostio map PATH OFFSET LENGTH` maps a striped layout by arithmetic"},
  {OSTIO__TOOL_RECOVER, OSTIO__TOOL_CHECK, "`ostio container check PATH` reports damage"},
  {OSTIO__TOOL_STAGE_STATUS, -1, "staging applies to a job writing with the hint "
                                 "ostio_stage_dir=DIR (docs/staging.md)"},
  {OSTIO__TOOL_STAGE_DRAIN, -1, "staging applies to a job writing with the hint "
                                "ostio_stage_dir=DIR (docs/staging.md)"},
};

/* The one "not supported" sentence: what PATH is, that the kind lacks SUB,
 * which kinds have it, and what to use instead. */
static void not_supported(char *err, size_t cap, const char *sub, const char *path,
                          const ostio__kind_ops *k, ostio__kind_tool t)
{
  size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(err + n, n < cap ? cap - n : 0, __VA_ARGS__))
  if (ostio__ctr_is_container(path)) PUT("%s is a %s container", path, k->name);
  else PUT("%s is not a container (no %s inside: kind %s)", path, OSTIO__CTR_MANIFEST, k->name);
  PUT("; %s is not supported by this kind (", sub);
  int any = 0;
  for (size_t i = 0; i < ostio__kind_count(); i++)
    if (ostio__kind_has(ostio__kind_at(i), t))
      PUT("%s%s", any++ ? ", " : "kinds that support it: ", ostio__kind_at(i)->name);
  PUT("%s)", any ? "" : "no kind supports it");
  for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
    if (hints[i].tool == t && (hints[i].need < 0 || ostio__kind_has(k, hints[i].need)))
      PUT("; %s", hints[i].hint);
#undef PUT
}

int ctr_kind(const char *sub, const char *path, ostio__kind_tool t, const ostio__kind_ops **k,
             char *err, size_t cap)
{
  struct stat st;
  *k = NULL;
  if (stat(path, &st) < 0) {
    snprintf(err, cap, "%s: %s", path, strerror(errno));
    return CLI_ERROR;
  }
  int rc = ostio__kind_of_path(path, k);
  if (rc < 0) {
    const char *detail = ostio_last_error();
    snprintf(err, cap, "%s (%s)", detail[0] ? detail : ostio_strerror(rc), ostio_errname(rc));
    *k = NULL;
    return rc;
  }
  if (ostio__kind_has(*k, t)) return CLI_OK;
  not_supported(err, cap, sub, path, *k, t);
  return CLI_ERROR;
}

int ctr_kind_or_say(const char *sub, const char *path, ostio__kind_tool t,
                    const ostio__kind_ops **k)
{
  char who[32], err[2048];
  snprintf(who, sizeof who, "container %s", sub);
  return ctr_kind(sub, path, t, k, err, sizeof err) ? cli_runtime_error(who, "%s", err) : CLI_OK;
}

/* Arguments of map, recover and compact: PATH, --help, and the flag allow. */
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
  const ostio__kind_ops *k;
  ostio__show o = {.out = stdout, .note = stderr};
  int rc = args("container map", usage, argc, argv, "--records", &o.records, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if ((rc = ctr_kind_or_say("map", path, OSTIO__TOOL_MAP, &k)) != CLI_OK) return rc;
  rc = k->map(path, &o);
  return rc < 0 ? cli_lib_error("container map", rc) : CLI_OK;
}

void ctr_print_line(void *arg, const char *msg)
{
  (void)arg;
  printf("%s\n", msg);
}

/* recover and compact: each line the kind's hook reports, on stdout; recover
 * then the count of repairs. */
static int run_report(const char *sub, ostio__kind_tool t, const char *usage, int argc,
                      char **argv)
{
  char who[32];
  const char *path;
  const ostio__kind_ops *k;
  int dummy = 0;
  snprintf(who, sizeof who, "container %s", sub);
  int rc = args(who, usage, argc, argv, NULL, &dummy, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if ((rc = ctr_kind_or_say(sub, path, t, &k)) != CLI_OK) return rc;
  int n = t == OSTIO__TOOL_RECOVER ? k->recover(path, ctr_print_line, NULL)
                                   : k->compact(path, ctr_print_line, NULL);
  if (n < 0) return cli_lib_error(who, n);
  if (t == OSTIO__TOOL_RECOVER) printf("%s: %d repair%s\n", path, n, n == 1 ? "" : "s");
  return CLI_OK;
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
    "has the container open. Each repair is printed; exit 0 when done.\n\n"
    "Staged writers (hint ostio_stage_dir, `ostio stage`) come first: those staged\n"
    "on this node are drained; one whose stage directory cannot be reached from here\n"
    "(its node lost) is given up: its stage record is removed and its index cut where\n"
    "it points past the drained data, each lost range named. A node that is merely\n"
    "elsewhere and alive loses those bytes too: run `ostio container check PATH`\n"
    "first, it names every staged writer and its host.\n";
  return run_report("recover", OSTIO__TOOL_RECOVER, usage, argc, argv);
}

int sub_compact(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container compact PATH\n\n"
    "Writes index.compact in the log container PATH: every index record in key\n"
    "order plus the size of each index log it covers, so a reader loads one file.\n"
    "Readers use it while the logs it covers are unchanged; a later write session\n"
    "adds new logs that readers load beside it. Run it when no job has the\n"
    "container open. Refused while a writer is staged (`ostio stage drain` first).\n";
  return run_report("compact", OSTIO__TOOL_COMPACT, usage, argc, argv);
}
