/* ostio stage: node-local staging of log containers (issue 19) from the
 * command line. status lists the staged writers of a container (where, how
 * much is staged and drained); drain finishes the drain of every writer
 * staged on this node, e.g. in a job epilogue after the writing job ended.
 * No MPI: the drain is log_stage.h's, the view logtool_stage.h's.
 * See docs/cli.md ("ostio stage") and docs/staging.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "container/container.h"
#include "container/log/logtool_stage.h"
#include "core/clock.h"
#include "core/error.h"
#include "file/kind.h"
#include "hints/hints.h"
#include "tools/cli.h"

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

/* Opens PATH as a log container and lists it; a message naming what PATH
 * is otherwise. CLI_OK or the exit status. */
static int open_log(const char *who, const char *path, ostio__logdir **d)
{
  struct stat st;
  const ostio__kind_ops *k = NULL;
  *d = NULL;
  if (stat(path, &st) < 0)
    return cli_runtime_error(who, "%s: %s", path, strerror(errno));
  int rc = ostio__kind_of_path(path, &k);
  if (rc < 0) return cli_lib_error(who, rc);
  if (strcmp(k->name, "log")) {
    int ctr = ostio__ctr_is_container(path);
    return cli_runtime_error(who, "%s is %s%s%s, not a log container: staging applies to log "
                             "containers (written with the hints ostio_container=log and "
                             "ostio_stage_dir=DIR)", path, ctr ? "a " : "not a container",
                             ctr ? k->name : "", ctr ? " container" : "");
  }
  if ((rc = ostio__log_open(path, NULL, 0, d)) == 0) rc = ostio__log_scan(*d);
  if (rc < 0) {
    ostio__log_close(d);
    return cli_lib_error(who, rc);
  }
  return CLI_OK;
}

static int staged_count(const ostio__logdir *d)
{
  int n = 0;
  for (size_t i = 0; i < d->nsrc; i++) n += (d->src[i].flags & OSTIO__LOGSRC_STAGED) != 0;
  return n;
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
      if (!optarg[0] || strlen(optarg) >= OSTIO__STAGE_HOST_MAX || strpbrk(optarg, "\r\n"))
        return cli_usage_error(who, "--host '%s': a node name as stage records give it "
                               "(1 to %d bytes, no line break) is accepted", optarg,
                               OSTIO__STAGE_HOST_MAX - 1);
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
  if (o->host) ostio__stage_set_self(o->host);
  return 0;
}

/* ---- status ---------------------------------------------------------------------------- */

static void json_num_or_null(int64_t v)
{
  if (v < 0) printf("null");
  else printf("%" PRId64, v);
}

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
  ostio__logdir *d;
  int rc = parse(CMD " status", usage, argc, argv, 0, &o, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if ((rc = open_log(CMD " status", path, &d)) != CLI_OK) return rc;
  int64_t tot[4] = {0, 0, 0, 0};
  int n = 0, here = 0;
  if (o.json) {
    printf("{\"path\": ");
    json_string(stdout, path);
    printf(", \"host\": ");
    json_string(stdout, ostio__stage_self());
    printf(", \"writers\": [");
  } else if (!staged_count(d)) {
    printf("%s: nothing staged (every writer's logs are in the container)\n", path);
  }
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    ostio__stageview v;
    if (!(s->flags & OSTIO__LOGSRC_STAGED)) continue;
    if ((rc = ostio__stage_view(d, i, &v)) < 0) break;
    int64_t drained = v.drained_data < v.indexed ? v.drained_data : v.indexed;
    if (o.json) {
      printf("%s{\"session\": %" PRIu32 ", \"writer\": %" PRIu32 ", \"hostdir\": %d, \"host\": ",
             n ? ", " : "", s->session, s->writer, (int)s->hostdir);
      if (v.rec_ok) json_string(stdout, v.rec.host);
      else printf("null");
      printf(", \"dir\": ");
      if (v.rec_ok) json_string(stdout, v.rec.dir);
      else printf("null");
      printf(", \"this_node\": %s, \"reachable\": %s, \"staged_data_bytes\": ",
             v.here ? "true" : "false", v.reachable ? "true" : "false");
      json_num_or_null(v.staged_data);
      printf(", \"staged_index_bytes\": ");
      json_num_or_null(v.staged_index);
      printf(", \"drained_data_bytes\": %" PRId64 ", \"drained_index_bytes\": %" PRId64
             ", \"indexed_data_bytes\": %" PRId64 ", \"undrained_ranges\": %zu, "
             "\"record_error\": ", v.drained_data, v.drained_index, v.indexed, v.nlost);
      if (v.rec_ok) printf("null");
      else json_string(stdout, v.problem);
      printf("}");
    } else {
      printf("session %" PRIu32 " writer %" PRIu32 " (hostdir.%03d): ", s->session, s->writer,
             (int)s->hostdir);
      if (v.rec_ok) printf("host %s%s, dir %s\n", v.rec.host, v.here ? " (this node)" : "",
                           v.rec.dir);
      else printf("%s\n", v.problem);
      if (v.staged_data >= 0 || v.staged_index >= 0)
        printf("  staged:  data %" PRId64 " bytes, index %" PRId64 " bytes\n",
               v.staged_data < 0 ? 0 : v.staged_data, v.staged_index < 0 ? 0 : v.staged_index);
      else
        printf("  staged:  unknown (the stage directory cannot be reached from here)\n");
      printf("  drained: data %" PRId64 " bytes (%" PRId64 " of the %" PRId64 " the container's "
             "index names), index %" PRId64 " bytes; %zu range%s not drained\n",
             v.drained_data, drained, v.indexed, v.drained_index, v.nlost,
             v.nlost == 1 ? "" : "s");
    }
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
    if (o.json) printf("]}\n");
    return cli_lib_error(CMD " status", rc);
  }
  if (o.json)
    printf("], \"totals\": {\"writers\": %d, \"this_node\": %d, \"elsewhere\": %d, "
           "\"staged_data_bytes\": %" PRId64 ", \"staged_index_bytes\": %" PRId64
           ", \"drained_data_bytes\": %" PRId64 ", \"drained_index_bytes\": %" PRId64 "}}\n",
           n, here, n - here, tot[0], tot[1], tot[2], tot[3]);
  else if (n)
    printf("total: %d staged writer%s (%d on this node %s, %d elsewhere); staged data %" PRId64
           " bytes, index %" PRId64 " bytes (where reachable); drained data %" PRId64
           " bytes, index %" PRId64 " bytes\n", n, n == 1 ? "" : "s", here,
           ostio__stage_self(), n - here, tot[0], tot[1], tot[2], tot[3]);
  return CLI_OK;
}

/* ---- drain ------------------------------------------------------------------------------ */

/* The progress timer: every second the drain stops at its next chunk and
 * the loop below prints a line and goes on. */
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

typedef struct drain_run {
  const char *path;
  int quiet;
  ostio__throttle t;
  int64_t copied;
  double t0;
} drain_run;

static double mib_s(const drain_run *r)
{
  double dt = ostio__now() - r->t0;
  return dt > 0 ? (double)r->copied / dt / (1 << 20) : 0.0;
}

/* Drains and finishes src i (staged on this node, its directory dir). */
static int drain_one(ostio__logdir *d, size_t i, const char *dir, drain_run *r)
{
  const ostio__logsrc *s = &d->src[i];
  int sfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (sfd < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: cannot open the stage directory %s of "
                       "writer %" PRIu32 " of session %" PRIu32 ": %s", d->path, dir,
                       s->writer, s->session, strerror(errno));
  ostio__drainw st = {0};
  int rc;
  while ((rc = ostio__stage_drain(d, s->hostdir, s->session, s->writer, sfd, 0, &st, &r->t,
                                  &r->copied)) == 1) {
    tick = 0;
    if (!r->quiet)
      fprintf(stderr, "ostio stage drain: %s: %.1f MiB copied, %.1f MiB/s\n", r->path,
              (double)r->copied / (1 << 20), mib_s(r));
  }
  if (rc == 0) rc = ostio__stage_finish(d, s->hostdir, s->session, s->writer, sfd);
  close(sfd);
  if (rc == 0) rmdir(dir); /* the last writer's: empty now (others keep it) */
  return rc;
}

/* After the last staged writer went: the size record, clean, as the job's
 * close would have written it (the job ended without closing). */
static int size_clean(const char *path)
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
      printf("%s: size record written clean: %" PRId64 " bytes (the writing job ended "
             "without closing)\n", path, size);
  }
  ostio__log_close(&d);
  return rc;
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
  ostio__logdir *d;
  int rc = parse(CMD " drain", usage, argc, argv, 1, &o, &path);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if ((rc = open_log(CMD " drain", path, &d)) != CLI_OK) return rc;
  drain_run r = {.path = path, .quiet = o.quiet, .t0 = ostio__now()};
  ostio__throttle_init(&r.t, o.bw, &tick);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, &old);
  timer_set(1);
  int drained = 0, left = 0;
  char others[1024] = "";
  size_t olen = 0;
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    ostio__stageview v;
    if (!(s->flags & OSTIO__LOGSRC_STAGED)) continue;
    if ((rc = ostio__stage_view(d, i, &v)) < 0) break;
    if (v.rec_ok && v.here && v.reachable) {
      int64_t before = r.copied;
      if ((rc = drain_one(d, i, v.rec.dir, &r)) == 0) {
        drained++;
        printf("%s: drained writer %" PRIu32 " of session %" PRIu32 " (host %s): %" PRId64
               " bytes copied\n", path, s->writer, s->session, v.rec.host, r.copied - before);
      }
    } else {
      left++;
      if (v.rec_ok && v.here)
        printf("%s: writer %" PRIu32 " of session %" PRIu32 " is staged on this node, but its "
               "stage directory %s is gone: nothing to drain; `ostio container check %s` "
               "names what is lost, `ostio container recover %s` gives it up\n", path,
               s->writer, s->session, v.rec.dir, path, path);
      else if (olen < sizeof others)
        olen += (size_t)snprintf(others + olen, sizeof others - olen, "%s%s (writer %" PRIu32
                                 " of session %" PRIu32 ")", olen ? ", " : "",
                                 v.rec_ok ? v.rec.host : "unknown: damaged stage record",
                                 s->writer, s->session);
    }
    ostio__stage_view_free(&v);
  }
  timer_set(0);
  sigaction(SIGALRM, &old, NULL);
  ostio__log_close(&d);
  if (rc < 0) return cli_lib_error(CMD " drain", rc);
  if (drained)
    printf("%s: %d writer%s drained, %" PRId64 " bytes in %.1f s (%.1f MiB/s)\n", path, drained,
           drained == 1 ? "" : "s", r.copied, ostio__now() - r.t0, mib_s(&r));
  else if (!left)
    printf("%s: nothing staged (every writer's logs are in the container)\n", path);
  if (drained && !left && (rc = size_clean(path)) < 0) return cli_lib_error(CMD " drain", rc);
  if (olen)
    printf("%s: staged on other nodes, not drained here: %s%s; run `ostio stage drain %s` "
           "there\n", path, others, olen >= sizeof others ? "..." : "", path);
  if (left) {
    fprintf(stderr, "ostio stage drain: %s: %d writer%s remain%s staged (not on this node %s, "
            "or its stage directory is gone)\n", path, left, left == 1 ? "" : "s",
            left == 1 ? "s" : "", ostio__stage_self());
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
