/* ostio stage: node-local staging of log containers (issue 19) from the
 * command line. status lists the staged writers of a container (where, how
 * much is staged and drained); drain finishes the drain of every writer
 * staged on this node, e.g. in a job epilogue after the writing job ended.
 * This file parses the options, keeps drain's progress timer and line, and
 * calls the stage hooks of PATH's kind (src/file/kind.h); a kind without
 * them gets the one "not supported by this kind" line (ctr_kind). No MPI.
 * See docs/cli.md ("ostio stage") and docs/staging.md. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "container/ctr_hooks.h"
#include "core/error.h"
#include "file/kind.h"
#include "hints/hints.h"
#include "tools/cli.h"
#include "tools/cli_container.h"

#define CMD "stage"

static const char *help =
  "Usage: ostio stage status [--json] [--host NAME] PATH\n"
  "       ostio stage drain [--host NAME] [--bandwidth BYTES/s] [--quiet] PATH\n\n"
  "A job that writes the log container PATH with the hint ostio_stage_dir=DIR keeps\n"
  "each writer's logs in a node-local directory and drains them into the container\n"
  "behind the job; a stage record in the container says where each writer's logs\n"
  "are until they are drained (docs/staging.md). A job that ended without closing\n"
  "(killed, or a node lost) leaves them staged.\n\n"
  "Subcommands:\n"
  "  status PATH   every staged writer: host, stage directory, bytes staged and\n"
  "                drained, whether it is on this node; totals\n"
  "  drain PATH    drain and finish every writer staged on this node; exit 1 when\n"
  "                writers remain staged on other nodes\n\n"
  "Every subcommand takes --help. Exit status: 0 success, 1 runtime error (drain:\n"
  "also writers left on other nodes), 2 usage error.\n";

/* ---- shared --------------------------------------------------------------------------- */

/* PATH's kind when it has the stage hook t: CLI_OK, else the message (a
 * missing PATH, a damaged manifest, the one "not supported by this kind"
 * line) and the exit status. */
static int stage_kind(const char *who, const char *sub, const char *path, ostio__kind_tool t,
                      const ostio__kind_ops **k)
{
  char err[2048];
  int rc = ctr_kind(sub, path, t, k, err, sizeof err);
  return rc == CLI_OK ? CLI_OK : cli_runtime_error(who, "%s", err);
}

/* Options of both subcommands; allow says which besides --help. */
enum { O_HOST = 300, O_BW, O_QUIET };
typedef struct stage_opts {
  int json, quiet;
  const char *host;
  int64_t bw;
} stage_opts;

static int parse(const char *who, const char *usage, int argc, char **argv, int drain,
                 stage_opts *o, const char **path)
{
  static const struct option opts[] = {
    {"json", no_argument, NULL, OPT_JSON}, {"help", no_argument, NULL, 'h'},
    {"host", required_argument, NULL, O_HOST}, {"bandwidth", required_argument, NULL, O_BW},
    {"quiet", no_argument, NULL, O_QUIET}, {0, 0, 0, 0}};
  int c;
  memset(o, 0, sizeof *o);
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage, stdout);
      return -1;
    }
    if (c == O_HOST) {
      if (!optarg[0] || strlen(optarg) >= OSTIO__CTR_HOST_MAX || strpbrk(optarg, "\r\n"))
        return cli_usage_error(who, "--host '%s': a node name as stage records give it "
                               "(1 to %d bytes, no line break) is accepted", optarg,
                               OSTIO__CTR_HOST_MAX - 1);
      o->host = optarg;
    } else if (c == OPT_JSON && !drain) {
      o->json = 1;
    } else if (c == O_QUIET && drain) {
      o->quiet = 1;
    } else if (c == O_BW && drain) {
      if (ostio__parse_size(optarg, &o->bw) < 0 || o->bw <= 0)
        return cli_usage_error(who, "--bandwidth '%s': a positive number of bytes per second "
                               "is accepted, with an optional suffix k, m, g or t (powers of "
                               "1024), e.g. 200m", optarg);
    } else if (c == OPT_JSON || c == O_QUIET || c == O_BW) {
      return cli_usage_error(who, "option %s does not apply here (%s)", argv[optind - 1],
                             drain ? "drain takes --host, --bandwidth and --quiet"
                                   : "status takes --json and --host");
    } else {
      return cli_bad_option(who, argv);
    }
  }
  if (argc - optind != 1) return cli_usage_error(who, "expected one PATH");
  *path = argv[optind];
  return 0;
}

/* ---- status ---------------------------------------------------------------------------- */

static int sub_status(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio stage status [--json] [--host NAME] PATH\n\n"
    "Lists every staged writer of the log container PATH: session, writer, the host\n"
    "and stage directory its stage record names, the bytes of its data and index logs\n"
    "in that directory (when it can be reached from here), the bytes drained into the\n"
    "container (its copies' sizes), the data bytes the container's index names, and\n"
    "whether it is on this node; then the totals. A container with nothing staged\n"
    "says so. Exit 0 (1 when PATH cannot be read as a log container).\n\n"
    "  --host NAME  this node's name (default: the host name); the test knob\n"
    "               OSTIO_TEST_RANKS_PER_NODE names simulated nodes HOST#nodeN\n"
    "  --json       {\"path\", \"host\", \"writers\": [...], \"totals\": {...}} on stdout\n";
  stage_opts o;
  const char *path;
  const ostio__kind_ops *k;
  int rc = parse(CMD " status", usage, argc, argv, 0, &o, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if ((rc = stage_kind(CMD " status", "stage status", path, OSTIO__TOOL_STAGE_STATUS, &k)))
    return rc;
  ostio__stage_opts so = {.out = stdout, .json = o.json, .host = o.host};
  rc = k->stage_status(path, &so);
  return rc < 0 ? cli_lib_error(CMD " status", rc) : CLI_OK;
}

/* ---- drain ------------------------------------------------------------------------------ */

/* The progress timer: every second the drain stops at its next chunk, clears
 * tick and calls progress below, which prints a line; the drain goes on. */
static volatile int tick;

static void on_alarm(int sig)
{
  (void)sig;
  tick = 1;
}

static void timer_set(int on)
{
  struct itimerval it = {{on, 0}, {on, 0}};
  setitimer(ITIMER_REAL, &it, NULL);
}

static void progress(void *arg, const char *path, int64_t copied, double seconds)
{
  (void)arg;
  fprintf(stderr, "ostio stage drain: %s: %.1f MiB copied, %.1f MiB/s\n", path,
          (double)copied / (1 << 20), seconds > 0 ? (double)copied / seconds / (1 << 20) : 0.0);
}

static int sub_drain(int argc, char **argv)
{
  static const char *usage =
    "Usage: ostio stage drain [--host NAME] [--bandwidth BYTES/s] [--quiet] PATH\n\n"
    "Drains every writer of the log container PATH staged on this node: copies its\n"
    "staged index, then its data, into the container at the same offsets, then\n"
    "removes its stage record and its staged files. Meant for a job epilogue, after\n"
    "the writing job ended (a job still running drains its own writers). A drain that\n"
    "is killed is resumed by running it again: the bytes are the same. Prints each\n"
    "writer drained and the writers staged on other nodes; once nothing is staged any\n"
    "more, writes the size record clean as the job's close would have. Exit 0 when no\n"
    "writer remains staged, 1 when some remain on other nodes (run it there) or the\n"
    "drain failed.\n\n"
    "  --host NAME        this node's name (default: the host name), as the stage\n"
    "                     records give it (`ostio stage status PATH` lists them)\n"
    "  --bandwidth BYTES  at most this many bytes per second (suffix k, m, g, t),\n"
    "                     e.g. to spare the file system; default: as fast as it goes\n"
    "  --quiet            no progress line (stderr, every second)\n";
  stage_opts o;
  const char *path;
  const ostio__kind_ops *k;
  int rc = parse(CMD " drain", usage, argc, argv, 1, &o, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if ((rc = stage_kind(CMD " drain", "stage drain", path, OSTIO__TOOL_STAGE_DRAIN, &k)))
    return rc;
  ostio__stage_opts so = {.out = stdout, .host = o.host, .bandwidth = o.bw, .tick = &tick,
                          .progress = o.quiet ? NULL : progress};
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, &old);
  tick = 0;
  timer_set(1);
  int left = k->stage_drain(path, &so);
  timer_set(0);
  sigaction(SIGALRM, &old, NULL);
  if (left < 0) return cli_lib_error(CMD " drain", left);
  if (left) {
    fprintf(stderr, "ostio stage drain: %s: %d writer%s remain%s staged (not on this node %s, "
            "or its stage directory is gone)\n", path, left, left == 1 ? "" : "s",
            left == 1 ? "s" : "", so.self);
    return CLI_ERROR;
  }
  return CLI_OK;
}

/* ---- dispatch ----------------------------------------------------------------------------- */

int cmd_stage(int argc, char **argv)
{
  if (argc < 2) return cli_usage_error(CMD, "expected a subcommand: status or drain");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(help, stdout);
    return CLI_OK;
  }
  if (!strcmp(argv[1], "status")) return sub_status(argc - 1, argv + 1);
  if (!strcmp(argv[1], "drain")) return sub_drain(argc - 1, argv + 1);
  return cli_usage_error(CMD, "unknown subcommand '%s'; expected status or drain", argv[1]);
}
