/* ostio-bench runner, pure parts (bench/bench_args.c, bench/bench_report.c):
 * every flag, size suffixes, several APIs (mpiio+ostio too), the call style
 * of each API with and without -I / -c, usage errors naming the flag,
 * bandwidth arithmetic, median / min / max against hand values, and the
 * report of results produced with a fake clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "testutil.h"

static int parse(const char *line, ob_config *c, char *err, size_t cap)
{
  static char buf[2048];
  char *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "ostio-bench";
  for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  err[0] = '\0';
  return ob_parse_args(argc, argv, c, err, cap);
}

/* The --help text (free it). */
static char *usage_text(void)
{
  char *text = NULL;
  size_t tl = 0;
  FILE *f = open_memstream(&text, &tl);
  if (!f) return NULL;
  ob_usage(f);
  fclose(f);
  return text;
}

/* The text and JSON reports of res (free both). */
static void reports(const ob_config *c, const ob_results *res, char **text, char **json)
{
  size_t tl = 0, jl = 0;
  FILE *f = open_memstream(text, &tl);
  if (f) {
    ob_report_text(f, c, res);
    fclose(f);
  }
  f = open_memstream(json, &jl);
  if (f) {
    ob_report_json(f, c, res);
    fclose(f);
  }
}

/* A usage error whose message starts with the flag. */
static void bad(const char *line, const char *flag)
{
  ob_config c;
  char err[512];
  int rc = parse(line, &c, err, sizeof err);
  CHECKF(rc == OB_EUSAGE && strncmp(err, flag, strlen(flag)) == 0,
         "\"%s\": rc %d, message \"%s\" should start with %s", line, rc, err, flag);
}

static void test_sizes(void)
{
  CHECK_EQ_I64(ob_parse_size("4k"), 4096);
  CHECK_EQ_I64(ob_parse_size("4K"), 4096);
  CHECK_EQ_I64(ob_parse_size("1m"), 1048576);
  CHECK_EQ_I64(ob_parse_size("2g"), 2147483648LL);
  CHECK_EQ_I64(ob_parse_size("47008"), 47008);
  CHECK_EQ_I64(ob_parse_size("0"), 0);
  CHECK_EQ_I64(ob_parse_size(""), -1);
  CHECK_EQ_I64(ob_parse_size("k"), -1);
  CHECK_EQ_I64(ob_parse_size("1x"), -1);
  CHECK_EQ_I64(ob_parse_size("1kb"), -1);
  CHECK_EQ_I64(ob_parse_size("-1"), -1);
  CHECK_EQ_I64(ob_parse_size("99999999999999999999"), -1);
  CHECK_EQ_I64(ob_parse_size("17179869184g"), -1); /* overflows 2^63 */
}

static void test_defaults(void)
{
  ob_config c;
  char err[512];
  CHECK(parse("", &c, err, sizeof err) == OB_OK);
  CHECK(c.napis == 1 && c.apis[0].kind == OB_API_OSTIO && !strcmp(c.apis[0].strategy, "auto"));
  CHECK(c.write && c.read && c.iterations == 1 && c.warmup == 1 && !c.collective && !c.indep);
  CHECK(c.pat.kind == OB_PAT_IOR && c.pat.block == 1048576 && c.pat.transfer == 1048576);
  CHECK(!c.help && !c.file_per_proc && !c.keep && c.json[0] == '\0' && c.nhints == 0);
  CHECK(parse("-h", &c, err, sizeof err) == OB_OK && c.help);
  CHECK(parse("--help", &c, err, sizeof err) == OB_OK && c.help);
  CHECK(parse("-w", &c, err, sizeof err) == OB_OK && c.write && !c.read);
  CHECK(parse("-r", &c, err, sizeof err) == OB_OK && !c.write && c.read);
}

static void test_every_flag(void)
{
  ob_config c;
  char err[512];
  int rc = parse("-a ostio:ost,ostio:even,ostio:aligned,ostio:independent,ostio:auto,ostio,mpiio,"
                 "posix -b 4m -t 64k -s 3 -p strided -c -w -r -e -C -i 5 --warmup 2 -W -R "
                 "-o /tmp/x -O cb_nodes=2 -O romio_cb_write=enable -k --json /tmp/o.json "
                 "--stripe-count 4 --stripe-size 1m --seed 42", &c, err, sizeof err);
  CHECKF(rc == OB_OK, "every flag: %s", err);
  CHECK(c.napis == 8);
  const char *strat[] = {"ost", "even", "aligned", "independent", "auto", "auto"};
  for (int i = 0; i < 6; i++)
    CHECK(c.apis[i].kind == OB_API_OSTIO && !strcmp(c.apis[i].strategy, strat[i]));
  CHECK(c.apis[6].kind == OB_API_MPIIO && !strcmp(c.apis[6].name, "mpiio"));
  CHECK(c.apis[7].kind == OB_API_POSIX && !strcmp(c.apis[7].name, "posix"));
  CHECK(!strcmp(c.apis[0].name, "ostio:ost") && !strcmp(c.apis[5].name, "ostio"));
  CHECK_EQ_I64(c.pat.block, 4 << 20);
  CHECK_EQ_I64(c.pat.transfer, 64 << 10);
  CHECK_EQ_I64(c.pat.segments, 3);
  CHECK(c.pat.kind == OB_PAT_STRIDED && c.pat.seed == 42);
  CHECK(c.collective && c.write && c.read && c.fsync && c.reorder && c.verify_write &&
        c.verify_read && c.keep);
  CHECK(c.iterations == 5 && c.warmup == 2);
  CHECK(!strcmp(c.path, "/tmp/x") && !strcmp(c.json, "/tmp/o.json"));
  CHECK(c.nhints == 2 && !strcmp(c.hint_key[0], "cb_nodes") && !strcmp(c.hint_val[0], "2"));
  CHECK(!strcmp(c.hint_key[1], "romio_cb_write") && !strcmp(c.hint_val[1], "enable"));
  CHECK(c.stripe_count == 4 && c.stripe_size == 1048576);
  CHECK(!strcmp(c.container, "plain"));
  CHECK(parse("-a ostio:ost,mpiio --container striped", &c, err, sizeof err) == OB_OK);
  CHECK(!strcmp(c.container, "striped"));
  CHECK(parse("-a ostio:independent --container log", &c, err, sizeof err) == OB_OK);
  CHECK(!strcmp(c.container, "log"));
  /* --flag=value, btio, flash, random, -F with the APIs that allow it */
  CHECK(parse("-p btio --btio-class=s --warmup=0", &c, err, sizeof err) == OB_OK);
  CHECK(c.pat.kind == OB_PAT_BTIO && c.pat.btio_class == 'S' && c.warmup == 0);
  CHECK(parse("-p flash --flash-blocks 2 --flash-nxb 4", &c, err, sizeof err) == OB_OK);
  CHECK(c.pat.kind == OB_PAT_FLASH && c.pat.flash_blocks_base == 2 && c.pat.flash_nxb == 4);
  CHECK(parse("-p random -b 64k -s 4", &c, err, sizeof err) == OB_OK);
  CHECK(c.pat.kind == OB_PAT_RANDOM && c.pat.random_bytes == 256 * 1024);
  CHECK(parse("-F -a ostio:independent,mpiio,posix", &c, err, sizeof err) == OB_OK);
  CHECK(c.file_per_proc && c.napis == 3);
  CHECK(parse("-F -c -a posix", &c, err, sizeof err) == OB_OK);
}

/* -I / --indep: which APIs call collectively, and which once per transfer. */
static void test_indep(void)
{
  ob_config c;
  char err[512];
  const char *apis = "-a ostio,ostio:ost,mpiio,mpiio+ostio,posix";
  /* Expected per API (order of apis): collective, per transfer. */
  static const struct {
    const char *flags;
    int coll[5], per[5];
  } cases[] = {
    {"", {1, 1, 0, 0, 0}, {0, 0, 0, 0, 1}},
    {"-c", {1, 1, 1, 1, 0}, {0, 0, 0, 0, 1}},
    {"-I", {0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}},
    {"--indep", {0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}},
    {"-I -c", {0, 0, 1, 0, 0}, {1, 1, 0, 1, 1}},
    {"-c --indep", {0, 0, 1, 0, 0}, {1, 1, 0, 1, 1}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    char line[256];
    snprintf(line, sizeof line, "%s %s", apis, cases[k].flags);
    int rc = parse(line, &c, err, sizeof err);
    CHECKF(rc == OB_OK, "%s: %s", line, err);
    if (rc != OB_OK) continue;
    CHECKF(c.indep == (strstr(cases[k].flags, "I") || strstr(cases[k].flags, "indep")) &&
           c.collective == (strstr(cases[k].flags, "c") != NULL), "%s: flags", line);
    for (int a = 0; a < 5; a++) {
      CHECKF(ob_api_collective(&c, &c.apis[a]) == cases[k].coll[a], "%s: %s collective %d", line,
             c.apis[a].name, ob_api_collective(&c, &c.apis[a]));
      CHECKF(ob_api_per_transfer(&c, &c.apis[a]) == cases[k].per[a], "%s: %s per transfer %d",
             line, c.apis[a].name, ob_api_per_transfer(&c, &c.apis[a]));
    }
  }
  /* A file per process: -I makes any strategy an independent writer, but
   * plain mpiio stays collective under -c. */
  CHECK(parse("-F -I -a ostio:ost,ostio,mpiio,posix", &c, err, sizeof err) == OB_OK);
  CHECK(parse("-F -I -c -a ostio:even,mpiio+ostio", &c, err, sizeof err) == OB_OK);
  bad("-F -I -c -a mpiio", "-F");
  bad("--indep=yes", "--indep");
  bad("-I=1", "-I");
  /* With a pattern, a container, verification: all parse. */
  CHECK(parse("-I -p btio --btio-class S --container log -a ostio -W -R", &c, err, sizeof err) ==
        OB_OK && c.indep && c.verify_write && c.verify_read);
  /* --help names the flag and the calls it makes. */
  char *text = usage_text();
  CHECK(text && strstr(text, "  -I, --indep ") && strstr(text, "ostio_write_at/read_at"));
  free(text);
  /* The reports say which calls each API made. */
  CHECK(parse("-a ostio,mpiio -I -c -w --warmup 0", &c, err, sizeof err) == OB_OK);
  ob_results res = {.nprocs = 2, .total_bytes = 1 << 20};
  for (int a = 0; a < 2; a++) {
    ob_result r = {.api = a, .phase = OB_PHASE_WRITE, .bytes = res.total_bytes, .t_total = 1.0,
                   .aggr_max = -1, .objects_max = -1, .sys_writes = -1, .sys_reads = -1};
    r.bw_mib = ob_bandwidth_mib(r.bytes, r.t_total);
    CHECK(ob_results_add(&res, &r) == OB_OK);
  }
  char *json = NULL;
  text = NULL;
  reports(&c, &res, &text, &json);
  CHECKF(text && strstr(text, "calls: ostio independent, one per transfer; mpiio collective, "
                        "one per step\n"), "text: %s", text ? text : "");
  CHECK(json && strstr(json, "\"collective\": true, \"indep\": true,"));
  CHECK(json && strstr(json, "\"api\": \"ostio\", \"calls\": \"independent\", "
                             "\"one_call_per\": \"transfer\", \"phase\": \"write\""));
  CHECK(json && strstr(json, "\"api\": \"mpiio\", \"calls\": \"collective\", "
                             "\"one_call_per\": \"step\", \"phase\": \"write\""));
  /* runs and summary: two lines per API */
  int nind = 0;
  for (const char *q = json; q && (q = strstr(q, "\"calls\": \"independent\"")); q++) nind++;
  CHECK(nind == 2);
  free(text);
  free(json);
  ob_results_free(&res);
}

/* mpiio+ostio: the MPI-IO backend with the hint ostio_mpiio=enable. */
static void test_mpiio_ostio(void)
{
  ob_config c;
  ob_api a;
  char err[512];
  CHECK(ob_parse_api("mpiio+ostio", &a) == 0 && a.kind == OB_API_MPIIO && a.ostio_mpiio &&
        !strcmp(a.name, "mpiio+ostio"));
  CHECK(ob_parse_api("mpiio", &a) == 0 && a.kind == OB_API_MPIIO && !a.ostio_mpiio);
  CHECK(ob_parse_api("ostio", &a) == 0 && !a.ostio_mpiio);
  CHECK(ob_parse_api("mpiio+ostio:ost", &a) < 0 && ob_parse_api("mpiio+", &a) < 0);
  CHECK(parse("-a mpiio,mpiio+ostio,ostio -c", &c, err, sizeof err) == OB_OK);
  CHECK(c.napis == 3 && c.apis[1].kind == OB_API_MPIIO && c.apis[1].ostio_mpiio);
  CHECK(!c.apis[0].ostio_mpiio && !c.apis[2].ostio_mpiio);
  CHECK(parse("-F -a mpiio+ostio,posix", &c, err, sizeof err) == OB_OK);
  /* The error for an unknown API names the new one among the accepted. */
  CHECK(parse("-a mpiio+posix", &c, err, sizeof err) == OB_EUSAGE && strstr(err, "mpiio+ostio"));
  bad("-a mpiio+ostio,mpiio+ostio", "-a");
  bad("-a mpiio+ostios", "-a");
  bad("-F -c -a mpiio+ostio", "-F");
  bad("-a mpiio+ostio --container log", "--container");
  /* --help lists it. */
  char *text = usage_text();
  CHECK(text && strstr(text, "mpiio+ostio") && strstr(text, "ostio_mpiio=enable"));
  free(text);
  /* This program is not linked with libostio-mpiio.so: MPI_File_open is the MPI
   * library's, so ob_run would refuse mpiio+ostio (unless LD_PRELOADed). */
  char where[512] = "";
  if (!getenv("LD_PRELOAD")) {
    CHECKF(ob_mpiio_ostio_present(where, sizeof where) == 0 && strstr(where, "mpi"),
           "MPI_File_open from \"%s\"", where);
  }
}

static void test_bad_flags(void)
{
  bad("--nope", "--nope");
  bad("-x", "-x");
  bad("-a foo", "-a");
  bad("-a ostio:fast", "-a");
  bad("-a mpiio,mpiio", "-a");
  bad("-a ,", "-a");
  bad("-b 0", "-b");
  bad("-b 1q", "-b");
  bad("-t", "-t");
  bad("-s -3", "-s");
  bad("-p hdf5", "-p");
  bad("-i 0", "-i");
  bad("--warmup x", "--warmup");
  bad("-O novalue", "-O");
  bad("-O =v", "-O");
  bad("--stripe-count 0", "--stripe-count");
  bad("--stripe-count 5000", "--stripe-count");
  bad("--stripe-size 1z", "--stripe-size");
  bad("--seed x", "--seed");
  bad("--btio-class Z -p btio", "--btio-class");
  bad("--btio-class A", "--btio-class");
  bad("--container logs", "--container");
  bad("--container", "--container");
  bad("-a mpiio,posix --container striped", "--container");
  bad("--flash-nxb 4", "--flash-nxb");
  bad("-W -r", "-W");
  bad("-R -w", "-R");
  bad("-F -c -a mpiio", "-F");
  bad("-F -a ostio:ost", "-F");
  bad("-F -a ostio", "-F");
  bad("-c=1", "-c");
  bad("--json", "--json");
  bad("-o", "-o");
}

static void test_arith(void)
{
  CHECK(ob_bandwidth_mib(10 << 20, 2.0) == 5.0);
  CHECK(ob_bandwidth_mib(3 << 20, 0.5) == 6.0);
  CHECK(ob_bandwidth_mib(1 << 20, 0.0) == 0.0);
  double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2}, c1[] = {7};
  CHECK(ob_median(a, 3) == 2.0 && a[0] == 1 && a[2] == 3);
  CHECK(ob_median(b, 4) == 2.5);
  CHECK(ob_median(c1, 1) == 7.0);
  CHECK(ob_median(NULL, 0) == 0.0);
}

/* Results as the runner makes them, with a fake clock: every reading is the
 * previous one plus a fixed step per API (rank-reduced values, 1 rank). */
typedef struct { double now, step; } fake_clock;
static double tick(void *ctx)
{
  fake_clock *f = ctx;
  return f->now += f->step;
}

static void test_report(void)
{
  ob_config c;
  char err[512];
  CHECK(parse("-a ostio:ost,mpiio -i 3 --warmup 1 -W -R", &c, err, sizeof err) == OB_OK);
  ob_results res = {0};
  res.nprocs = 2;
  res.total_bytes = 8 << 20;
  /* ostio:ost phases take 4 clock steps of 0.25 s ... per iteration the steps
   * grow, mpiio always 4 steps of 0.5 s; the warm-up is very slow. */
  for (int it = 0; it < 4; it++)
    for (int a = 0; a < 2; a++)
      for (int ph = 0; ph < 2; ph++) {
        fake_clock f = {100.0 * it, it == 0 ? 10.0 : a == 0 ? 0.25 * it : 0.5};
        double t0 = tick(&f), t1 = tick(&f), t2 = tick(&f), t3 = tick(&f);
        ob_result r = {.iteration = it, .warmup = it == 0, .api = a, .phase = ph,
                       .bytes = res.total_bytes, .t_open = t1 - t0, .t_io = t2 - t1,
                       .t_close = t3 - t2, .t_total = t3 - t0,
                       .aggr_max = a == 0 ? 2 : -1, .objects_max = a == 0 ? 1 : -1,
                       .sys_writes = a == 0 ? 16 : -1, .sys_reads = a == 0 ? 8 : -1};
        r.bw_mib = ob_bandwidth_mib(r.bytes, r.t_total);
        snprintf(r.strategy, sizeof r.strategy, "%s", a == 0 ? "ost" : "");
        CHECK(ob_results_add(&res, &r) == OB_OK);
      }
  CHECK(res.n == 16);
  /* ostio:ost: totals 0.75, 1.5, 2.25 s -> 8/0.75, 8/1.5, 8/2.25 MiB/s; mpiio 8/1.5. */
  ob_summary *s = NULL;
  int n = ob_summarize(&c, &res, &s);
  CHECK(n == 4);
  if (n == 4) {
    CHECK(s[0].api == 0 && s[0].phase == OB_PHASE_WRITE && s[0].count == 3);
    CHECK(s[0].bw_max == 8 / 0.75 && s[0].bw_median == 8 / 1.5 && s[0].bw_min == 8 / 2.25);
    CHECK(s[0].t_total == 1.5 && s[0].t_open == 0.5);
    CHECK(s[2].api == 1 && s[2].bw_median == 8 / 1.5 && s[2].ratio == 1.0);
    CHECK(s[0].ratio == 1.0 && s[1].ratio == 1.0);
    CHECK(s[0].aggr_max == 2 && s[2].aggr_max == -1);
  }
  free(s);
  char *text = NULL, *json = NULL;
  reports(&c, &res, &text, &json);
  CHECK(text && strstr(text, "Summary") && strstr(text, "(warm-up)") && strstr(text, "1.00x"));
  CHECK(text && strstr(text, "ostio:ost") && strstr(text, "mpiio"));
  CHECK(json && strncmp(json, "{\n  \"format\": \"ostio-bench\",\n  \"version\": 1,", 44) == 0);
  CHECK(json && strstr(json, "\"ratio_vs_mpiio\": 1,") && strstr(json, "\"warmup\": true"));
  CHECK(json && strstr(json, "\"apis\": [\"ostio:ost\", \"mpiio\"]"));
  free(text);
  free(json);
  ob_results_free(&res);
}

/* Ratios are to the plain mpiio API wherever mpiio+ostio is listed. */
static void test_report_mpiio_ostio(void)
{
  const char *lines[] = {"-a mpiio+ostio,mpiio -w --warmup 0", "-a mpiio,mpiio+ostio -w --warmup 0"};
  for (int order = 0; order < 2; order++) {
    ob_config c;
    char err[512];
    CHECK(parse(lines[order], &c, err, sizeof err) == OB_OK);
    ob_results res = {.nprocs = 2, .total_bytes = 8 << 20};
    int fast = order == 0 ? 0 : 1;   /* index of mpiio+ostio: twice as fast */
    for (int a = 0; a < 2; a++) {
      ob_result r = {.api = a, .phase = OB_PHASE_WRITE, .bytes = res.total_bytes,
                     .t_total = a == fast ? 0.5 : 1.0, .aggr_max = -1, .objects_max = -1,
                     .sys_writes = -1, .sys_reads = -1};
      r.bw_mib = ob_bandwidth_mib(r.bytes, r.t_total);
      CHECK(ob_results_add(&res, &r) == OB_OK);
    }
    ob_summary *s = NULL;
    int n = ob_summarize(&c, &res, &s);
    CHECK(n == 2);
    for (int i = 0; i < n; i++)
      CHECKF(s[i].ratio == (s[i].api == fast ? 2.0 : 1.0), "order %d api %d ratio %g", order,
             s[i].api, s[i].ratio);
    free(s);
    ob_results_free(&res);
  }
}

/* A usage error whose message starts with start and contains word. */
static void refused(const char *line, const char *start, const char *word)
{
  ob_config c;
  char err[1024];
  int rc = parse(line, &c, err, sizeof err);
  CHECKF(rc == OB_EUSAGE && strncmp(err, start, strlen(start)) == 0 && strstr(err, word),
         "\"%s\": rc %d, message \"%s\" should start with \"%s\" and name \"%s\"", line, rc,
         err, start, word);
  CHECKF(!strstr(err, "see --help"), "\"%s\": the message \"%s\" says \"see --help\" itself "
         "(ostio-bench's main adds it once)", line, err);
}

/* IOR's habits (issue 31 item 7): API names, -v -g -Y -N, -D and -z refused with
 * why, IOR's -O directives as the flags they mean or refused, other keys hints. */
static void test_ior_habits(void)
{
  ob_config c;
  char err[1024];
  CHECK(parse("-a MPIIO", &c, err, sizeof err) == OB_OK);
  CHECK(c.napis == 1 && c.apis[0].kind == OB_API_MPIIO && !strcmp(c.apis[0].name, "mpiio") &&
        !c.apis[0].ostio_mpiio && !c.apis[0].best);
  CHECK(parse("-a POSIX,ostio,mpiio+ostio", &c, err, sizeof err) == OB_OK);
  CHECK(c.napis == 3 && c.apis[0].kind == OB_API_POSIX && !strcmp(c.apis[0].name, "posix"));
  refused("-a POSIX,posix", "-a", "twice");
  refused("-a HDF5", "-a HDF5: ostio-bench has no HDF5 API", "scripts/bench-h5.sh");
  refused("-a ncmpi", "-a ncmpi:", "bench-pnetcdf-aggregation.sh");
  refused("-a MMAP", "-a MMAP:", "IOR's MPIIO and POSIX are accepted");
  /* -a ostio sets ostio_strategy itself: a -O one would be silently overridden. */
  refused("-a ostio -O ostio_strategy=even", "-O ostio_strategy=even: -a ostio sets",
          "write -a ostio:even instead");
  refused("-a mpiio,ostio:ost -O ostio_strategy=even", "-O ostio_strategy=even: -a ostio:ost sets",
          "-a ostio:even");
  CHECK(parse("-a mpiio+ostio -O ostio_strategy=even", &c, err, sizeof err) == OB_OK);
  CHECK(c.nhints == 1 && !strcmp(c.hint_key[0], "ostio_strategy") && !strcmp(c.hint_val[0], "even"));

  CHECK(parse("-v -v -g -Y -N 4", &c, err, sizeof err) == OB_OK);
  CHECK(c.verbose == 2 && c.barriers == 1 && c.fsync_per_write == 1 && c.numtasks == 4);
  CHECK(c.nhints == 0 && !c.fsync);
  CHECK(parse("", &c, err, sizeof err) == OB_OK);
  CHECK(c.verbose == 0 && !c.barriers && !c.fsync_per_write && c.numtasks == 0);
  bad("-N", "-N");
  bad("-N 0", "-N");
  refused("-D 30", "-D: ostio-bench has no stonewalling", "-b, -t and -s");
  refused("-z", "-z: ostio-bench does not shuffle", "-p random");

  /* -O: IOR's directives, case-insensitive as IOR reads them. */
  refused("-O stoneWallingWearOut=1", "-O stoneWallingWearOut: IOR's directive is not supported",
          "no stonewalling");
  refused("-O STONEWALLINGWEAROUT=1", "-O stoneWallingWearOut:", "no stonewalling");
  refused("-O deadlineForStonewalling=10", "-O deadlineForStonewalling:", "stonewalling");
  refused("-O randomOffset=1", "-O randomOffset:", "-p random");
  refused("-O summaryFormat=JSON", "-O summaryFormat:", "--json");
  refused("-O checkRead=1,stoneWallingWearOut=1", "-O stoneWallingWearOut:", "stonewalling");
  CHECK(parse("-O checkRead=1 -O blockSize=64k -O transferSize=16k -O segmentCount=3 "
              "-O api=POSIX -O repetitions=2 -O testFile=/tmp/x -O intraTestBarriers=1 "
              "-O fsyncPerWrite=1 -O verbose=3 -O numTasks=2 -O keepFile=1", &c, err,
              sizeof err) == OB_OK);
  CHECKF(c.verify_read && c.read && c.pat.block == 65536 && c.pat.transfer == 16384 &&
         c.pat.segments == 3 && c.napis == 1 && c.apis[0].kind == OB_API_POSIX &&
         c.iterations == 2 && !strcmp(c.path, "/tmp/x") && c.barriers && c.fsync_per_write &&
         c.verbose == 3 && c.numtasks == 2 && c.keep && c.nhints == 0, "IOR's -O directives: %s",
         err);
  CHECK(c.write);                     /* neither -w nor -r: both phases, as IOR     */
  CHECK(parse("-O writefile=1,checkwrite=1,FILEPERPROC=0,collective=1 -a mpiio", &c, err,
              sizeof err) == OB_OK);
  CHECK(c.write && c.verify_write && !c.file_per_proc && c.collective && c.nhints == 0);
  CHECK(parse("-O filePerProc=1 -I", &c, err, sizeof err) == OB_OK);
  CHECK(c.file_per_proc);
  refused("-O blockSize=1q", "-O blockSize (IOR's directive, as -b): -b", "not a count");
  /* Other keys stay hints, commas and all. */
  CHECK(parse("-O romio_cb_write=enable -O cb_config_list=*:1,host:2 -O a=1,b=2", &c, err,
              sizeof err) == OB_OK);
  CHECK(c.nhints == 3 && !strcmp(c.hint_key[0], "romio_cb_write") &&
        !strcmp(c.hint_val[0], "enable") && !strcmp(c.hint_key[1], "cb_config_list") &&
        !strcmp(c.hint_val[1], "*:1,host:2") && !strcmp(c.hint_key[2], "a") &&
        !strcmp(c.hint_val[2], "1,b=2"));
  /* Mixed: the IOR piece acts, the other piece is a hint. */
  CHECK(parse("-O checkWrite=1,romio_ds_write=disable", &c, err, sizeof err) == OB_OK);
  CHECK(c.verify_write && c.nhints == 1 && !strcmp(c.hint_key[0], "romio_ds_write") &&
        !strcmp(c.hint_val[0], "disable"));
  refused("--bogus", "--bogus: unknown flag", "unknown");

  /* --help names every one of them. */
  char *text = usage_text();
  CHECK(text && strstr(text, "  -Y ") && strstr(text, "  -g ") && strstr(text, "  -v ") &&
        strstr(text, "  -N N ") && strstr(text, "-D S, -z") && strstr(text, "MPIIO = mpiio") &&
        strstr(text, "stoneWallingWearOut"));
  free(text);
}

int main(void)
{
  test_sizes();
  test_defaults();
  test_every_flag();
  test_mpiio_ostio();
  test_indep();
  test_report_mpiio_ostio();
  test_bad_flags();
  test_ior_habits();
  test_arith();
  test_report();
  return TEST_DONE();
}
