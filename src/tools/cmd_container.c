/* ostio container: create, ls, stat, check, flatten, map, recover and
 * compact containers (src/container; docs/containers.md). Subcommands
 * dispatch from one table; those on an existing PATH find its kind once
 * and call the kind's tool hook (src/file/kind.h; ctr_kind in
 * cmd_container_kind.c, with map, recover and compact, says "not
 * supported by this kind" for all of them). flatten goes through the
 * library for every kind. Only flatten uses MPI (it runs in parallel under
 * mpiexec). */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container.h"
#include "file/flatten.h"
#include "core/error.h"
#include "hints/hints.h"
#include "layout/source.h"
#include "tools/cli.h"
#include "tools/cli_container.h"

#define CMD "container"

/* MPICH keeps a few allocations from MPI_Init until exit; under
 * AddressSanitizer (the suite's second pass) MPI_Init and MPI_Finalize run
 * with LeakSanitizer paused, for their own allocations only. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LSAN_PAUSE() __lsan_disable()
#define LSAN_RESUME() __lsan_enable()
#else
#define LSAN_PAUSE() ((void)0)
#define LSAN_RESUME() ((void)0)
#endif

static const char *help =
  "Usage: ostio container SUBCOMMAND [OPTIONS] PATH\n\n"
  "A container stores one logical file as a directory: a manifest (ostio.manifest),\n"
  "a size record (ostio.size) and, for the striped kind, K object files with\n"
  "fixed-size stripes assigned round-robin (Lustre's RAID0 object layout made of\n"
  "real files); for the log kind, per-writer data and index logs in hostdir.NNN\n"
  "subdirectories (docs/containers.md). ostio_open uses a container wherever PATH\n"
  "is one.\n\n"
  "Subcommands:\n"
  "  create PATH [--objects K] [--stripe-size S]   make a new, empty striped container\n"
  "  create PATH --log [--hostdirs N]              make a new, empty log container\n"
  "  ls [--json] PATH            the object files or logs, their sizes (and OSTs)\n"
  "  stat [--json] PATH          the manifest, the logical size and the size record\n"
  "  check [--json] PATH         verify manifest, objects/logs and sizes; exit 1 on problems\n"
  "  flatten PATH OUT [--stripe-count N] [--stripe-size S] [--chunk SIZE]\n"
  "                              copy into a new plain file (parallel under mpiexec)\n"
  "  map [--records] PATH        log: the logical-to-physical map (or the records)\n"
  "  recover PATH                log: repair what check reports (torn records, ...)\n"
  "  compact PATH                log: write one merged index (index.compact)\n\n"
  "Every subcommand takes --help; ls, stat and check take --json.\n"
  "Exit status: 0 success (check: no problems), 1 runtime error (check: problems\n"
  "found, each named on stderr), 2 usage error.\n";

/* Parses the options common to the subcommands. opts: NULL-terminated. */
typedef struct sub_opts {
  int json, log;
  int64_t objects, stripe_size, stripe_count, chunk, hostdirs;
} sub_opts;
enum { O_OBJECTS = 300, O_STRIPE_SIZE, O_STRIPE_COUNT, O_CHUNK, O_HOSTDIRS, O_LOG };

static int parse(const char *sub, const char *usage, int argc, char **argv, unsigned allow,
                 sub_opts *o)
{
  static const struct option opts[] = {
    {"json", no_argument, NULL, OPT_JSON}, {"help", no_argument, NULL, 'h'},
    {"objects", required_argument, NULL, O_OBJECTS},
    {"stripe-size", required_argument, NULL, O_STRIPE_SIZE},
    {"stripe-count", required_argument, NULL, O_STRIPE_COUNT},
    {"chunk", required_argument, NULL, O_CHUNK},
    {"hostdirs", required_argument, NULL, O_HOSTDIRS},
    {"log", no_argument, NULL, O_LOG}, {0, 0, 0, 0}};
  char who[32];
  int c;
  snprintf(who, sizeof who, CMD " %s", sub);
  memset(o, 0, sizeof *o);
  optind = 1;
  opterr = 0;
  /* Options may follow PATH, as in the usage lines (GNU argument permutation). */
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == 'h') { fputs(usage, stdout); return -1; }
    unsigned bit = c == OPT_JSON ? 1u : c >= O_OBJECTS && c <= O_LOG ? 2u << (c - O_OBJECTS) : 0;
    if (!bit) return cli_bad_option(who, argv);
    if (!(allow & bit))
      return cli_usage_error(who, "option --%s does not apply here",
                             c == OPT_JSON ? "json" : opts[2 + c - O_OBJECTS].name);
    if (c == OPT_JSON) { o->json = 1; continue; }
    if (c == O_LOG) { o->log = 1; continue; }
    int64_t v = 0;
    int isnum = c == O_OBJECTS || c == O_STRIPE_COUNT || c == O_HOSTDIRS;
    int bad = isnum ? ostio__parse_int(optarg, &v) : ostio__parse_size(optarg, &v);
    if (bad < 0 || v <= 0)
      return cli_usage_error(who, "--%s '%s': expected a positive %s",
                             opts[2 + c - O_OBJECTS].name, optarg,
                             isnum ? "number" : "size such as 1m");
    if (c == O_HOSTDIRS) o->hostdirs = v;
    else if (c == O_OBJECTS) o->objects = v;
    else if (c == O_STRIPE_SIZE) o->stripe_size = v;
    else if (c == O_STRIPE_COUNT) o->stripe_count = v;
    else o->chunk = v;
  }
  return 0;
}
#define A_JSON 1u
#define A_OBJECTS 2u
#define A_STRIPE_SIZE 4u
#define A_STRIPE_COUNT 8u
#define A_CHUNK 16u
#define A_HOSTDIRS 32u
#define A_LOG 64u

/* ---- create ---------------------------------------------------------------- */

static int sub_create(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container create PATH [--objects K] [--stripe-size S]\n"
    "       ostio container create PATH --log [--hostdirs N]\n\n"
    "With --log, makes PATH a new, empty log container with N hostdir\n"
    "subdirectories (1..1000, default 1; ostio_open picks ceil(sqrt(nodes))).\n"
    "Otherwise makes PATH a new striped container with K empty object files (1..2000) and\n"
    "stripes of S bytes (a multiple of 64 KiB). Defaults: OSTIO_HINTS for PATH\n"
    "(ostio_objects, else striping_factor; striping_unit), else the directory's\n"
    "default layout (as `ostio getstripe DIR` shows it), else 1 MiB x 1. The\n"
    "container is built under a temporary name and renamed into place, so a\n"
    "concurrent creator never sees half of it. PATH must not exist.\n";
  sub_opts o;
  int rc = parse("create", usage, argc, argv, A_OBJECTS | A_STRIPE_SIZE | A_HOSTDIRS | A_LOG, &o);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (argc - optind != 1) return cli_usage_error(CMD " create", "expected one PATH");
  const char *path = argv[optind];
  if (o.hostdirs && !o.log)
    return cli_usage_error(CMD " create", "--hostdirs applies to log containers (--log)");
  if (o.log && (o.objects || o.stripe_size))
    return cli_usage_error(CMD " create", "--objects and --stripe-size apply to striped "
                           "containers, not with --log");
  if (o.hostdirs > OSTIO__LOG_HOSTDIRS_MAX)
    return cli_usage_error(CMD " create", "--hostdirs %" PRId64 ": at most 1000", o.hostdirs);
  /* The kind --log names, else the default; its make hook builds it. */
  const ostio__kind_ops *k = ostio__kind_find(o.log ? "log" : "striped");
  if (!k || !ostio__kind_has(k, OSTIO__TOOL_MAKE))
    return cli_runtime_error(CMD " create", "%s: this build cannot create that kind", path);
  ostio__make a = {.objects = o.objects, .stripe_size = o.stripe_size, .hostdirs = o.hostdirs};
  rc = k->make(path, &a, ctr_print_line, NULL);
  return rc < 0 ? cli_lib_error(CMD " create", rc) : CLI_OK;
}

/* ---- ls, stat -------------------------------------------------------------------- */

/* ls and stat: the path's kind prints it (its ls or stat hook). */
static int show(const char *sub, ostio__kind_tool t, const char *usage, int argc, char **argv)
{
  char who[32];
  sub_opts o;
  const ostio__kind_ops *k;
  snprintf(who, sizeof who, CMD " %s", sub);
  int rc = parse(sub, usage, argc, argv, A_JSON, &o);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (argc - optind != 1) return cli_usage_error(who, "expected one PATH");
  const char *path = argv[optind];
  if ((rc = ctr_kind_or_say(sub, path, t, &k)) != CLI_OK) return rc;
  ostio__show out = {.out = stdout, .note = stderr, .json = o.json};
  rc = t == OSTIO__TOOL_LS ? k->ls(path, &out) : k->stat(path, &out);
  return rc < 0 ? cli_lib_error(who, rc) : CLI_OK;
}

static int sub_ls(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container ls [--json] PATH\n\n"
    "Lists the object files of the container PATH: index, name, size in bytes and\n"
    "the OST it sits on (its index off Lustre).\n";
  return show("ls", OSTIO__TOOL_LS, usage, argc, argv);
}

static int sub_stat(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container stat [--json] PATH\n\n"
    "Shows the manifest of the container PATH (kind, format version, stripe size,\n"
    "object count, creation time, creator, requested parameters), the logical size\n"
    "the objects imply and the size record.\n";
  return show("stat", OSTIO__TOOL_STAT, usage, argc, argv);
}

/* ---- check ---------------------------------------------------------------------- */

/* The findings of one check: printed at once (text), or kept for the JSON. */
typedef struct check_out {
  int json;
  char **msg;
  size_t n, cap;
  int oom;
} check_out;

static void report_problem(void *arg, const char *msg)
{
  check_out *o = arg;
  if (!o->json) {
    fprintf(stderr, "ostio container check: %s\n", msg);
    return;
  }
  if (o->n == o->cap) {
    size_t c = o->cap ? 2 * o->cap : 8;
    char **m = realloc(o->msg, c * sizeof *m);
    if (!m) { o->oom = 1; return; }
    o->msg = m;
    o->cap = c;
  }
  if (!(o->msg[o->n] = strdup(msg))) { o->oom = 1; return; }
  o->n++;
}

static int sub_check(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container check [--json] PATH\n\n"
    "Verifies the container PATH: the manifest (magic, version, checksum, keys,\n"
    "object names), that every object file exists as a regular file, the size\n"
    "record against the sizes the objects imply, and that nothing else lies in\n"
    "the directory; for a log container its data and index logs (torn or damaged\n"
    "records, records past their data log, names outside the grammar, a stale\n"
    "index.compact, writers still staged on node-local storage with the ranges not\n"
    "drained yet). Exit 0: no problems; 1: problems found, each on stderr.\n\n"
    "  --json  print {\"path\", \"kind\", \"ok\", \"findings\": [one sentence per\n"
    "          problem]} on stdout instead (and \"error\" when PATH cannot be read\n"
    "          as a container); the exit status is the same\n";
  sub_opts o;
  int rc = parse("check", usage, argc, argv, A_JSON, &o);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (argc - optind != 1) return cli_usage_error(CMD " check", "expected one PATH");
  const char *path = argv[optind];
  check_out out = {.json = o.json};
  const ostio__kind_ops *k = NULL;
  char err[2048];
  int n = 0, status = CLI_OK;
  rc = ctr_kind("check", path, OSTIO__TOOL_CHECK, &k, err, sizeof err);
  /* A container whose kind cannot be read: the container-level check names
   * what is wrong with its manifest, as findings. */
  if (rc < 0 && ostio__ctr_is_container(path)) {
    rc = 0;
    n = ostio__ctr_check(path, report_problem, &out);
  } else if (rc == 0) {
    n = k->check(path, report_problem, &out);
  }
  if (rc == 0 && n < 0) {
    rc = n;
    snprintf(err, sizeof err, "%s (%s)", ostio_last_error(), ostio_errname(n));
  }
  if (rc != 0) {
    if (o.json) {
      printf("{\"path\": ");
      json_string(stdout, path);
      printf(", \"kind\": null, \"ok\": false, \"findings\": [], \"error\": ");
      json_string(stdout, err);
      printf("}\n");
    }
    status = cli_runtime_error(CMD " check", "%s", err);
  } else if (out.oom) {
    status = cli_runtime_error(CMD " check", "%s: out of memory listing the findings", path);
  } else {
    if (o.json) {
      printf("{\"path\": ");
      json_string(stdout, path);
      printf(", \"kind\": ");
      if (k) json_string(stdout, k->name);
      else printf("null");
      printf(", \"ok\": %s, \"findings\": [", n == 0 ? "true" : "false");
      for (size_t i = 0; i < out.n; i++) {
        if (i) printf(", ");
        json_string(stdout, out.msg[i]);
      }
      printf("]}\n");
    } else if (n == 0) {
      printf("%s: ok\n", path);
    }
    if (n > 0) {
      fprintf(stderr, "ostio container check: %s: %d problem%s found\n", path, n,
              n == 1 ? "" : "s");
      status = CLI_ERROR;
    }
  }
  for (size_t i = 0; i < out.n; i++) free(out.msg[i]);
  free(out.msg);
  return status;
}

/* ---- flatten --------------------------------------------------------------------- */

static void progress(int64_t done, int64_t total, void *arg)
{
  (void)arg;
  if (total >= (INT64_C(1) << 30))
    fprintf(stderr, "ostio container flatten: %" PRId64 " of %" PRId64 " MiB (%d%%)\n",
            done >> 20, total >> 20, (int)(done * 100 / total));
}

static int sub_flatten(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio container flatten PATH OUT [--stripe-count N] [--stripe-size S]\n"
    "                                        [--chunk SIZE]\n\n"
    "Copies the container PATH into OUT, a new plain file (it must not exist),\n"
    "optionally with the given layout. Runs through the collective API in chunks\n"
    "of SIZE bytes (default 64m) split over the ranks, so `mpiexec -n N ostio\n"
    "container flatten ...` runs in parallel. Stripes of zeros are not written:\n"
    "holes stay holes. Progress goes to stderr for files of 1 GiB or more.\n";
  sub_opts o;
  int rc = parse("flatten", usage, argc, argv, A_STRIPE_COUNT | A_STRIPE_SIZE | A_CHUNK, &o);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (argc - optind != 2) return cli_usage_error(CMD " flatten", "expected PATH and OUT");
  if (o.stripe_count > OSTIO_MAX_STRIPE_COUNT)
    return cli_usage_error(CMD " flatten", "--stripe-count %" PRId64 ": at most %d",
                           o.stripe_count, OSTIO_MAX_STRIPE_COUNT);
  int inited = 0, rank = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    LSAN_PAUSE();
    MPI_Init(NULL, NULL);
    LSAN_RESUME();
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info info;
  char v[32];
  MPI_Info_create(&info);
  if (o.stripe_count)
    snprintf(v, sizeof v, "%" PRId64, o.stripe_count), MPI_Info_set(info, "striping_factor", v);
  if (o.stripe_size)
    snprintf(v, sizeof v, "%" PRId64, o.stripe_size), MPI_Info_set(info, "striping_unit", v);
  rc = ostio__flatten(MPI_COMM_WORLD, argv[optind], argv[optind + 1], info, o.chunk,
                      progress, NULL);
  MPI_Info_free(&info);
  int status = CLI_OK;
  if (rc < 0) status = rank == 0 ? cli_lib_error(CMD " flatten", rc) : CLI_ERROR;
  if (!inited) {
    LSAN_PAUSE();
    MPI_Finalize();
    LSAN_RESUME();
  }
  return status;
}

/* ---- dispatch ----------------------------------------------------------------------- */

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} subs[] = {{"create", sub_create}, {"ls", sub_ls}, {"stat", sub_stat},
            {"check", sub_check}, {"flatten", sub_flatten}, {"map", sub_map},
            {"recover", sub_recover}, {"compact", sub_compact}};

int cmd_container(int argc, char **argv)
{
  if (argc < 2) return cli_usage_error(CMD, "expected a subcommand: create, ls, stat, check, "
                                       "flatten, map, recover or compact");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(help, stdout);
    return CLI_OK;
  }
  for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
    if (!strcmp(argv[1], subs[i].name)) return subs[i].run(argc - 1, argv + 1);
  return cli_usage_error(CMD, "unknown subcommand '%s'; expected create, ls, stat, check, "
                         "flatten, map, recover or compact", argv[1]);
}
