/* ostio model: predicts a pattern's write bandwidth on a described cluster
 * for each strategy (issue 18). The pattern is ostio-bench's (the same
 * builder, bench/patterns.c), the traffic comes from the engine's plan
 * functions (model/model_plan.h) and the time from the flow-level
 * simulator (model/sim.h). docs/model.md. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "layout/layout.h"
#include "model/model_plan.h"
#include "model/sim.h"
#include "model/sysdesc.h"
#include "patterns.h"
#include "tools/cli.h"
#include "tools/model_args.h"
#include "tools/pytool.h"
#include "tools/svgplot.h"

#define CMD "model"

static const char *help =
  "Usage: ostio model --system FILE [OPTIONS]\n\n"
  "Predicts the write bandwidth of an ostio-bench pattern (or of a real run's\n"
  "statistics, --stats) on the cluster that FILE\n"
  "describes (JSON: docs/model.md; shipped ones: --system), for each strategy:\n"
  "  ost          ostio's Y-lib rule: one object per aggregator\n"
  "  even         ROMIO's classic contiguous equal file domains\n"
  "  aligned      ROMIO's Lustre driver: stripe-aligned contiguous domains\n"
  "  independent  every rank writes its own extents (POSIX, MPI-IO independent)\n"
  "  fpp          a file per process with the same layout\n"
  "The plans are the engine's own (aggregator counts, placement, file domains);\n"
  "the time is a flow-level estimate (exchange, OST and link loads, extent-lock\n"
  "conflicts, metadata). A model, not a measurement: docs/model.md says what it\n"
  "leaves out and how it was checked.\n\n"
  "Options:\n"
  "  --system FILE        the cluster (required); shipped ones in\n"
  "                       PREFIX/share/ostio/systems/ (source tree: systems/)\n"
  "  --ranks N            MPI ranks  [--stats: the run's; else nodes x ranks per\n"
  "                       node of FILE, at most 1024]\n"
  "  --ranks-per-node K   [the description's]\n"
  "  --sweep ranks=A,B,...  or  --sweep stripe_count=A,B,...: one row per value\n"
  "  --stripe-count K     objects of the shared file  [--stats: the run's; else 4]\n"
  "  --stripe-size S      a multiple of 64k, below 4g, as Lustre takes it\n"
  "                       [--stats: the run's; else 1m]\n"
  "  --strategy LIST      comma-separated strategies  [all]\n"
  "  --cb-nodes N         aggregators  [each strategy's rule]\n"
  "  --plot PREFIX        also write PREFIX.svg and PREFIX.png (bandwidth against\n"
  "                       the swept value, one line per strategy) and PREFIX.csv\n"
  "                       (the PNG drawn with matplotlib by model-plot.py, in\n"
  "                       PREFIX/share/ostio/scripts/; source tree: scripts/)\n"
  "  -p NAME -b SIZE -t SIZE -s N --btio-class C   the pattern, as ostio-bench's\n"
  "                       (ior, strided, btio, flash, random)  [ior -b 1m -t 1m -s 1]\n"
  "  --stats FILE         or the pattern of a run: an OSTIO_STATS=json:PATH document\n"
  "                       (format ostio-stats, version 2), one of its files as\n"
  "                       IOR's segmented pattern with the run's ranks, calls,\n"
  "                       bytes and layout, or its strided one when the\n"
  "                       recorded application pieces are uniform and strided\n"
  "                       (docs/model.md says what is lost)\n"
  "  --stats-file I       which file of the document (0-based index in \"files\")\n"
  "                       [the one with the most bytes written]\n"
  "  -h, --help           this text\n"
  "SIZE takes k, m, g (powers of 1024). Exit status 0, 1 on a model or\n"
  "statistics-file error, 2 on a usage error.\n";

enum { OPT_SYSTEM = OPT_MAX_PIECES + 1, OPT_RANKS, OPT_RPN, OPT_SWEEP, OPT_SC, OPT_SS,
       OPT_STRAT, OPT_CB, OPT_PLOT, OPT_STATS, OPT_STATS_FILE };

typedef struct margs {
  const char *system, *stats;
  int64_t ranks, rpn, stripe_count, stripe_size, cb_nodes; /* 0: not given  */
  int64_t stats_file;        /* --stats-file; -1: the most bytes written  */
  int sweep_ranks;           /* 1: sweep ranks, 0: sweep stripe_count     */
  int64_t sweep[64];
  int nsweep;
  int strat[OSTIO__MS_COUNT], nstrat;
  ob_pattern_opts pat;
  const char *plot;          /* --plot PREFIX: PREFIX.csv, .svg and .png   */
  double mbps[64][OSTIO__MS_COUNT]; /* the rows' predictions, for the plot */
} margs;

static int parse_list(const char *s, int64_t *out, int cap, int *n)
{
  *n = 0;
  while (*s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 1 || *n == cap || (*end && *end != ',')) return -1;
    out[(*n)++] = v;
    s = *end ? end + 1 : end;
  }
  return *n ? 0 : -1;
}

static int parse_strategies(const char *s, margs *a)
{
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  a->nstrat = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = ostio__mstrategy_from_name(t);
    if (k < 0 || a->nstrat == OSTIO__MS_COUNT) return -1;
    a->strat[a->nstrat++] = k;
  }
  return a->nstrat ? 0 : -1;
}

static int parse(int argc, char **argv, margs *a)
{
  static const struct option opts[] = {
    {"system", required_argument, NULL, OPT_SYSTEM}, {"ranks", required_argument, NULL, OPT_RANKS},
    {"ranks-per-node", required_argument, NULL, OPT_RPN},
    {"sweep", required_argument, NULL, OPT_SWEEP},
    {"stripe-count", required_argument, NULL, OPT_SC},
    {"stripe-size", required_argument, NULL, OPT_SS},
    {"strategy", required_argument, NULL, OPT_STRAT},
    {"cb-nodes", required_argument, NULL, OPT_CB},
    {"btio-class", required_argument, NULL, MODEL_OPT_BTIO},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"stats", required_argument, NULL, OPT_STATS},
    {"stats-file", required_argument, NULL, OPT_STATS_FILE},
    {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  *a = (margs){.nstrat = OSTIO__MS_COUNT, .stats_file = -1};
  for (int s = 0; s < OSTIO__MS_COUNT; s++) a->strat[s] = s;
  model_pattern pat;
  model_pattern_init(&pat);
  int c, rc;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, MODEL_SHORT_OPTS, opts, NULL)) != -1) {
    if (model_pattern_is_opt(c)) {
      if ((rc = model_pattern_opt(CMD, &pat, c, optarg)) != 0) return rc;
      continue;
    }
    switch (c) {
    case 'h': fputs(help, stdout); return 1;
    case OPT_SYSTEM: a->system = optarg; break;
    case OPT_RANKS: a->ranks = strtoll(optarg, NULL, 10);
      if (a->ranks < 1) return cli_usage_error(CMD, "--ranks %s: expected a count >= 1", optarg);
      break;
    case OPT_RPN: a->rpn = strtoll(optarg, NULL, 10);
      if (a->rpn < 1) return cli_usage_error(CMD, "--ranks-per-node %s: expected >= 1", optarg);
      break;
    case OPT_SWEEP:
      a->sweep_ranks = !strncmp(optarg, "ranks=", 6);
      if ((!a->sweep_ranks && strncmp(optarg, "stripe_count=", 13)) ||
          parse_list(optarg + (a->sweep_ranks ? 6 : 13), a->sweep, 64, &a->nsweep) < 0)
        return cli_usage_error(CMD, "--sweep %s: expected ranks=A,B,... or stripe_count=A,B,... "
                               "(up to 64 counts >= 1)", optarg);
      break;
    case OPT_SC: a->stripe_count = strtoll(optarg, NULL, 10);
      if (a->stripe_count < 1 || a->stripe_count > 65535)
        return cli_usage_error(CMD, "--stripe-count %s: expected 1 to 65535", optarg);
      break;
    case OPT_SS:
      if ((rc = model_stripe_size_arg(CMD, optarg, &a->stripe_size)) != 0) return rc;
      break;
    case OPT_STRAT:
      if (parse_strategies(optarg, a) < 0)
        return cli_usage_error(CMD, "--strategy %s: expected a comma-separated list of ost, even, "
                               "aligned, independent, fpp", optarg);
      break;
    case OPT_CB: a->cb_nodes = strtoll(optarg, NULL, 10);
      if (a->cb_nodes < 1) return cli_usage_error(CMD, "--cb-nodes %s: expected >= 1", optarg);
      break;
    case OPT_PLOT: a->plot = optarg; break;
    case OPT_STATS: a->stats = optarg; break;
    case OPT_STATS_FILE: {
      char *end;
      errno = 0;
      a->stats_file = strtoll(optarg, &end, 10);
      if (end == optarg || *end || errno || a->stats_file < 0 || a->stats_file > INT32_MAX)
        return cli_usage_error(CMD, "--stats-file %s: expected an index >= 0", optarg);
      break;
    }
    default: return cli_bad_option(CMD, argv);
    }
  }
  if (optind < argc) return cli_usage_error(CMD, "unexpected argument %s (see --help)", argv[optind]);
  if (!a->system) {
    char dir[PATH_MAX];
    return cli_usage_error(CMD, "--system FILE is required (shipped ones in %s)",
                           model_systems_dir(dir, sizeof dir));
  }
  if (a->stats && pat.given)
    return cli_usage_error(CMD, "--stats gives the pattern: -p, -b, -t, -s and --btio-class "
                           "cannot be combined with it");
  if (a->stats_file >= 0 && !a->stats) return cli_usage_error(CMD, "--stats-file needs --stats FILE");
  model_pattern_opts(&pat, &a->pat);
  return 0;
}

/* One row: the pattern for P ranks under each strategy. */
static int row(margs *a, const ostio__sys *sys, int64_t P, int64_t K, int64_t value, int idx)
{
  ostio_layout *l = NULL;
  int rc = ostio__layout_simple(a->stripe_size, (int32_t)K, -1, &l);
  if (rc < 0) return cli_lib_error(CMD, rc);
  model_plans p;
  int status = model_plans_build(CMD, &a->pat, P, &p);
  const ostio_extent **ext = calloc((size_t)P, sizeof *ext);
  size_t *n = calloc((size_t)P, sizeof *n);
  if (status == CLI_OK && !(ext && n))
    status = cli_runtime_error(CMD, "out of memory for %lld ranks", (long long)P);
  ostio__model_job j = {.l = l, .nranks = P, .ranks_per_node = (int)(a->rpn ? a->rpn : sys->ranks_per_node),
                        .nost = ostio__sys_nost(sys), .co_ratio = 1, .cb_nodes = a->cb_nodes};
  for (int k = 0; status == CLI_OK && k < a->nstrat; k++) {
    ostio__model_acc acc;
    ostio__traffic t;
    ostio__sim_result res;
    memset(&res, 0, sizeof res);
    clock_t c0 = clock();
    rc = ostio__model_acc_init(&acc, P);
    for (int st = 0; rc == 0 && st < p.ncalls; st++) {
      model_plans_call(&p, st, ext, n);
      rc = ostio__model_add_call(&acc, &j, a->strat[k], ext, n);
    }
    if (rc == 0) rc = ostio__model_traffic(&acc, &t);
    if (rc == 0) rc = ostio__sim_run(sys, &t, &res);
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (rc < 0) {
      status = cli_lib_error(CMD, rc);
    } else {
      a->mbps[idx][k] = res.bandwidth / 1e6;
      printf("%-8lld %-11s %10.1f %9.3f %8.3f %8.3f %8.3f %8.3f %8.3f %6lld %6lld %10.0f  %s  (%.2f s)\n",
             (long long)value, ostio__mstrategy_name(a->strat[k]), res.bandwidth / 1e6, res.time,
             res.t_meta, res.t_exchange, res.t_io, res.t_lock, res.t_queue,
             (long long)res.max_osts_per_client, (long long)res.max_clients_per_ost,
             res.conflicts, res.bottleneck, secs);
    }
    ostio__sim_result_free(&res);
    ostio__model_acc_free(&acc);
  }
  model_plans_free(&p);
  free(ext);
  free(n);
  ostio__layout_destroy(l);
  return status;
}

/* PREFIX.csv (value, strategy, MB/s), PREFIX.svg (src/tools/svgplot.c) and
 * PREFIX.png, drawn with matplotlib by scripts/model-plot.py (the PNG as
 * `ostio report` draws its charts; exit 1 with what to install when
 * matplotlib is missing, the CSV and SVG written). */
static int plot(const margs *a, const ostio__sys *sys, int n, int64_t ranks)
{
  char path[4096];
  double x[64], y[OSTIO__MS_COUNT * 64];
  const char *names[OSTIO__MS_COUNT];
  int by_stripes = a->nsweep && !a->sweep_ranks;
  for (int i = 0; i < n; i++) x[i] = (double)(a->nsweep ? a->sweep[i] : ranks);
  for (int k = 0; k < a->nstrat; k++) {
    names[k] = ostio__mstrategy_name(a->strat[k]);
    for (int i = 0; i < n; i++) y[k * n + i] = a->mbps[i][k];
  }
  snprintf(path, sizeof path, "%s.csv", a->plot);
  FILE *f = fopen(path, "w");
  if (!f) return cli_runtime_error(CMD, "%s: cannot be written: %s", path, strerror(errno));
  fprintf(f, "%s,strategy,MBps\n", by_stripes ? "stripe_count" : "ranks");
  for (int i = 0; i < n; i++)
    for (int k = 0; k < a->nstrat; k++) fprintf(f, "%g,%s,%.3f\n", x[i], names[k], y[k * n + i]);
  if (fclose(f) != 0) return cli_runtime_error(CMD, "%s: cannot be written", path);
  char title[256];
  snprintf(title, sizeof title, "%s: %s pattern, predicted (ostio model)", sys->name,
           ob_pattern_name(a->pat.kind));
  int logx = n > 1 && x[0] > 0;
  for (int i = 1; i < n; i++) logx = logx && x[i] > x[i - 1];
  logx = logx && x[n - 1] / x[0] >= 16;
  chart c = {.title = title, .xlabel = by_stripes ? "stripe count" : "ranks",
                 .ylabel = "MB/s", .nx = n, .x = x, .nseries = a->nstrat, .names = names,
                 .y = y, .logx = logx};
  snprintf(path, sizeof path, "%s.svg", a->plot);
  f = fopen(path, "wb");
  int bad = !f || svg_plot(f, &c) < 0;
  if (f && fclose(f) != 0) bad = 1;
  if (bad) return cli_runtime_error(CMD, "%s: cannot be written", path);
  char csv[4200], png[4200];
  snprintf(csv, sizeof csv, "%s.csv", a->plot);
  snprintf(png, sizeof png, "%s.png", a->plot);
  char *args[] = {csv, png, "--title", title};
  int rc = cli_run_script(CMD, "model-plot.py", args, 4, 1);
  if (rc != 0)
    return cli_runtime_error(CMD, "wrote %s.csv and %s.svg, but not %s (scripts/model-plot.py "
                             "exit %d%s)", a->plot, a->plot, png, rc,
                             rc == 3 ? ": matplotlib is missing; install python3-matplotlib "
                                       "or set OSTIO_PYTHON to a python3 that has it" : "");
  fprintf(stderr, "ostio model: wrote %s.csv, %s.svg and %s.png\n", a->plot, a->plot, a->plot);
  return CLI_OK;
}

int cmd_model(int argc, char **argv)
{
  margs a;
  int rc = parse(argc, argv, &a);
  if (rc != 0) return rc == 1 ? CLI_OK : rc;
  ostio__sys sys;
  model_run run = {0};
  if ((rc = ostio__sys_load(a.system, &sys)) < 0) return cli_lib_error(CMD, rc);
  if (a.stats && (rc = model_stats_read(CMD, a.stats, a.stats_file, &run)) != CLI_OK) return rc;
  if (a.stats && run.container == OSTIO__MC_LOG)
    return cli_runtime_error(CMD, "--stats %s: files[%lld] is a log container (no stripe layout); "
                             "`ostio model` models a striped file's strategies (`ostio advise "
                             "--stats` weighs a log container against them)", a.stats,
                             (long long)run.index);
  int64_t dflt = sys.nodes * sys.ranks_per_node;
  int64_t ranks = a.ranks ? a.ranks : a.stats ? model_stats_ranks(&run) : (dflt < 1024 ? dflt : 1024);
  if (a.stats) model_stats_pattern(&run, &a.pat);
  if (!a.stripe_count) a.stripe_count = a.stats ? run.stripe_count : 4;
  if (!a.stripe_size) a.stripe_size = a.stats ? run.stripe_size : (int64_t)1 << 20;
  if (a.stats)
    printf("# from %s, files[%lld] %s: %lld ranks%s, %lld calls per rank, %lld bytes, stripe "
           "count %lld, strategy %s\n", a.stats, (long long)run.index, run.file,
           (long long)run.nprocs, run.fpp ? " (one file of a file-per-process set)" : "",
           (long long)run.calls, (long long)run.bytes, (long long)run.stripe_count,
           ostio__mstrategy_name(run.fpp ? OSTIO__MS_FPP : run.strategy));
  printf("# %s: %lld OSTs behind %d OSS; pattern %s -b %lld -t %lld -s %lld; stripe size %lld\n",
         sys.name, (long long)ostio__sys_nost(&sys), sys.noss, ob_pattern_name(a.pat.kind),
         (long long)a.pat.block, (long long)a.pat.transfer, (long long)a.pat.segments,
         (long long)a.stripe_size);
  printf("%-8s %-11s %10s %9s %8s %8s %8s %8s %8s %6s %6s %10s  %s\n",
         a.nsweep && !a.sweep_ranks ? "stripes" : "ranks", "strategy", "MB/s", "time_s",
         "meta", "exch", "io", "lock", "queue", "ost/c", "c/ost", "conflicts", "bottleneck");
  int n = a.nsweep ? a.nsweep : 1;
  for (int i = 0; i < n; i++) {
    int64_t P = a.nsweep && a.sweep_ranks ? a.sweep[i] : ranks;
    int64_t K = a.nsweep && !a.sweep_ranks ? a.sweep[i] : a.stripe_count;
    int status = row(&a, &sys, P, K, a.nsweep && !a.sweep_ranks ? K : P, i);
    if (status != CLI_OK) return status;
  }
  return a.plot ? plot(&a, &sys, n, ranks) : CLI_OK;
}
