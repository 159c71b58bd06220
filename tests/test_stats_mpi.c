/* ostio__stats_report under MPI: the JSON written by rank 0 holds the fold
 * of every rank's statistics, one document per job with every file reported
 * (checked with Python's json by tests/check_stats_json.py); PATH patterns
 * %r %p %j %%; the text goes to rank 0's stderr only; off specs print
 * nothing; a bad spec or a path that cannot be written never fails the
 * report: rank 0 warns once per process on stderr and every rank returns 0
 * (issue 14 item 3). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "stats/stats.h"
#include "testutil.h"

static int rank, nprocs;
static char dir[512];

/* Rank r's statistics: every value says which rank it came from. */
static void stats_of(int r, ostio__stats *s)
{
  memset(s, 0, sizeof *s);
  s->c[OSTIO__STAT_coll_writes] = r + 1;
  s->c[OSTIO__STAT_sys_writes] = 2 * (r + 1);
  s->hist[OSTIO__HIST_WRITE][4] = 2 * (r + 1); /* the same writes by size (issue 31) */
  s->c[OSTIO__STAT_aggr_calls] = 1;
  s->c[OSTIO__STAT_objects_touched] = 2 * (r + 1);
  s->c[OSTIO__STAT_objects_max] = 10 + r;
  s->t[OSTIO__T_time_io] = 0.5 * (r + 1);
}

static const ostio__stats_info info = {
  .path = "/scratch/\"quoted\"\\file", .nprocs = 0, .stripe_count = 8,
  .stripe_size = 4 << 20, .ncomponents = 2, .layout_source = "emulated", .strategy = "ost",
};

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *buf = calloc(1, 1 << 16);
  size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
  (void)n;
  fclose(f);
  return buf;
}

/* Runs the report with this rank's stderr sent to a file; returns the code
 * and what the rank printed (malloc'ed). */
static int report_captured(MPI_Comm comm, const char *spec, char **printed)
{
  char path[600];
  ostio__stats s;
  stats_of(rank, &s);
  snprintf(path, sizeof path, "%s/stderr.%d", dir, rank);
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 2);
  close(fd);
  int rc = ostio__stats_report(comm, &s, &info, spec);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  *printed = slurp(path);
  unlink(path);
  return rc;
}

/* Without the "rank R: " that ostio__agree puts before another rank's detail. */
static const char *own_detail(const char *d)
{
  int r, n = 0;
  if (sscanf(d, "rank %d: %n", &r, &n) == 1 && n > 0) return d + n;
  return d;
}

/* Every rank got code want and the same detail, which contains needle. */
static void check_agreed(int rc, int want, const char *needle, const char *what)
{
  char mine[512], root[512];
  snprintf(mine, sizeof mine, "%s", own_detail(ostio_last_error()));
  memcpy(root, mine, sizeof root);
  MPI_Bcast(root, sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECKF(rc == want, "%s: rank %d rc %d (%s), want %d", what, rank, rc, ostio_errname(rc), want);
  CHECKF(!strcmp(mine, root), "%s: rank %d detail '%s' differs from rank 0's '%s'", what, rank,
         mine, root);
  CHECKF(strstr(mine, needle) != NULL, "%s: detail '%s' lacks '%s'", what, mine, needle);
}

/* Runs tests/check_stats_json.py on path (rank 0 only); its facts, or NULL
 * when the document does not parse or breaks the format. */
static char *check_doc(const char *path)
{
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "'%s' '%s/check_stats_json.py' '%s'", OSTIO_PYTHON, OSTIO_TESTS_DIR,
           path);
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  char *out = calloc(1, 1 << 16);
  size_t n = out ? fread(out, 1, (1 << 16) - 1, p) : 0;
  (void)n;
  int st = pclose(p);
  if (st != 0) {
    fprintf(stderr, "check_stats_json.py %s: exit status %d\n", path, st);
    free(out);
    return NULL;
  }
  return out;
}

/* fact "key=value\n" is in the checker's output. */
static int has_fact(const char *facts, const char *key, const char *value)
{
  char line[512];
  snprintf(line, sizeof line, "%s=%s\n", key, value);
  for (const char *p = facts; p && (p = strstr(p, line)); p++)
    if (p == facts || p[-1] == '\n') return 1;
  return 0;
}
#define FACT(facts, key, value)                                                         \
  CHECKF(has_fact(facts, key, value), "no %s=%s in:\n%s", key, value, facts ? facts : "(no document)")

/* Lines of text that contain needle. */
static int count_lines(const char *text, const char *needle)
{
  int n = 0;
  for (const char *p = text; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    if (strstr(line, needle)) n++;
    p = nl ? nl + 1 : NULL;
  }
  return n;
}

/* Names in dir (rank 0) other than . and .., joined by '|', sorted by readdir. */
static int dir_entries(const char *d)
{
  DIR *dp = opendir(d);
  int n = 0;
  struct dirent *e;
  while (dp && (e = readdir(dp)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  if (dp) closedir(dp);
  return n;
}

/* Issue 14 item 3: a bad OSTIO_STATS never fails the close. Rank 0 (whose
 * setting decides) warns once per process, one line naming the variable,
 * the value and the accepted forms; the other ranks say nothing; nothing
 * else is printed and the report is off. Must run first: the warning is
 * once per process. */
static void test_bad_spec_warns_once(void)
{
  char *printed = NULL, all[4096] = "";
  const char *specs[] = {"yes", "json:", "verbose", " 1"};
  for (int i = 0; i < 4; i++) {
    int rc = report_captured(MPI_COMM_WORLD, specs[i], &printed);
    CHECKF(rc == 0, "spec '%s': rank %d rc %d %s", specs[i], rank, rc, ostio_last_error());
    if (printed) strncat(all, printed, sizeof all - strlen(all) - 1);
    free(printed);
  }
  if (rank == 0) {
    CHECKF(count_lines(all, "OSTIO_STATS") == 1 && count_lines(all, "") == 1,
           "rank 0 printed (want exactly one warning line):\n%s", all);
    CHECKF(strstr(all, "\"yes\"") && strstr(all, "json:PATH") && strstr(all, "ostio"),
           "the warning names the value and the accepted forms:\n%s", all);
  } else {
    CHECKF(all[0] == '\0', "rank %d printed '%s'", rank, all);
  }
  /* Only rank 0's setting counts: a bad value elsewhere is not looked at,
   * and rank 0's "1" prints the report. */
  int rc = report_captured(MPI_COMM_WORLD, rank == 0 ? "1" : "yes", &printed);
  CHECK(rc == 0);
  if (rank == 0)
    CHECKF(printed && !strncmp(printed, "ostio stats for ", 16) &&
           !strstr(printed, "OSTIO_STATS"), "rank 0 printed:\n%s", printed);
  else
    CHECKF(printed && printed[0] == '\0', "rank %d printed '%s'", rank, printed);
  free(printed);
}

/* A report that cannot be written is warned about once and the close goes
 * on: rc 0 on every rank. */
static void test_unwritable_warns_once(void)
{
  char spec[700], *printed = NULL, all[4096] = "";
  snprintf(spec, sizeof spec, "json:%s/no-such-dir/stats.json", dir);
  for (int i = 0; i < 3; i++) {
    int rc = report_captured(MPI_COMM_WORLD, spec, &printed);
    CHECKF(rc == 0, "rank %d: rc %d %s", rank, rc, ostio_last_error());
    if (printed) strncat(all, printed, sizeof all - strlen(all) - 1);
    free(printed);
  }
  if (rank == 0)
    CHECKF(count_lines(all, "") == 1 && strstr(all, "no-such-dir") && strstr(all, "OSTIO_STATS"),
           "rank 0 printed (want one warning line naming the path):\n%s", all);
  else
    CHECKF(all[0] == '\0', "rank %d printed '%s'", rank, all);
}

/* One document per job: every report to the same PATH adds its file, the
 * document is valid JSON after each close (replaced atomically: no temporary
 * left), and the summary folds the files. PATH patterns: %j (SLURM_JOB_ID),
 * %r (world rank of the writer), %p (its pid), %%. */
static void test_json_job(void)
{
  char spec[1400], path[1400], *printed = NULL, want[128];
  char sub[600];
  snprintf(sub, sizeof sub, "%s/job", dir);
  if (rank == 0) mkdir(sub, 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("SLURM_JOB_ID", "4242", 1);
  long pid0 = (long)getpid();
  MPI_Bcast(&pid0, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  snprintf(spec, sizeof spec, "json:%s/stats-%%j-%%r-%%p-%%%%.json", sub);
  snprintf(path, sizeof path, "%s/stats-4242-0-%ld-%%.json", sub, pid0);

  const char *names[] = {"/run/a.dat", "/run/b.dat", "/run/c.dat"};
  const char *strat[] = {"ost", "auto", "ost"};
  for (int f = 0; f < 3; f++) {
    ostio__stats_info fi = info;
    fi.path = names[f];
    fi.strategy = strat[f];
    ostio__stats s;
    stats_of(rank, &s);
    s.t[OSTIO__T_time_io] = f == 1 ? 9.0 : 0.5; /* b is the slowest */
    char cap[600];
    snprintf(cap, sizeof cap, "%s/stderr.%d", dir, rank);
    fflush(stderr);
    int saved = dup(2), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    int rc = ostio__stats_report(MPI_COMM_WORLD, &s, &fi, spec);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    printed = slurp(cap);
    unlink(cap);
    CHECKF(rc == 0, "rank %d: rc %d %s", rank, rc, ostio_last_error());
    CHECKF(printed && printed[0] == '\0', "rank %d printed '%s'", rank, printed);
    free(printed);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) continue;
    /* Valid after every close, with every file so far, and nothing else in
     * the directory (the temporary was renamed). */
    char *facts = check_doc(path);
    snprintf(want, sizeof want, "%d", f + 1);
    FACT(facts, "files", want);
    FACT(facts, "files_listed", want);
    CHECKF(dir_entries(sub) == 1, "%d entries in %s", dir_entries(sub), sub);
    if (f == 2) {
      FACT(facts, "names", "/run/a.dat|/run/b.dat|/run/c.dat");
      FACT(facts, "files_omitted", "0");
      FACT(facts, "job_id", "4242");
      FACT(facts, "job_id_source", "SLURM_JOB_ID");
      FACT(facts, "world_rank", "0");
      snprintf(want, sizeof want, "%ld", pid0);
      FACT(facts, "pid", want);
      snprintf(want, sizeof want, "%d", 3 * nprocs * (nprocs + 1) / 2);
      FACT(facts, "coll_writes", want);
      snprintf(want, sizeof want, "%d", 9 + nprocs);
      FACT(facts, "objects_max", want);
      FACT(facts, "strategies", "auto:1,ost:2");
      FACT(facts, "slowest", "/run/b.dat");
      snprintf(want, sizeof want, "%d|%d|%d", nprocs, nprocs, nprocs);
      FACT(facts, "nprocs", want);
    }
    free(facts);
  }
  unsetenv("SLURM_JOB_ID");
}

static void test_text_and_off(void)
{
  char *printed = NULL, row[128];
  int rc = report_captured(MPI_COMM_WORLD, "1", &printed);
  CHECKF(rc == 0, "rank %d: rc %d %s", rank, rc, ostio_last_error());
  if (printed && rank == 0) {
    snprintf(row, sizeof row, "  %-24s %18d %18d\n", "coll_writes", nprocs * (nprocs + 1) / 2,
             nprocs);
    const char *head = "ostio stats for /scratch/\"quoted\"\\file\n";
    CHECKF(!strncmp(printed, head, strlen(head)) &&
           strstr(printed, row), "rank 0 printed:\n%s", printed);
    snprintf(row, sizeof row, "  ranks %d, strategy hint ost\n", nprocs);
    CHECK(strstr(printed, row));
  } else {
    CHECKF(printed && printed[0] == '\0', "rank %d printed '%s'", rank, printed);
  }
  free(printed);

  const char *off[] = {NULL, "", "0"};
  for (int i = 0; i < 3; i++) {
    rc = report_captured(MPI_COMM_WORLD, off[i], &printed);
    CHECK(rc == 0 && printed && printed[0] == '\0');
    free(printed);
  }
  /* Rank 0's spec decides what is done: rank 0 off, the others "1". */
  rc = report_captured(MPI_COMM_WORLD, rank == 0 ? "0" : "1", &printed);
  CHECK(rc == 0 && printed && printed[0] == '\0');
  free(printed);
}

static void test_errors(void)
{
  ostio__stats s;
  stats_of(rank, &s);
  CHECK(ostio__stats_report(MPI_COMM_NULL, &s, &info, "1") == OSTIO_EINVAL);
  int rc = ostio__stats_report(MPI_COMM_WORLD, rank == 0 ? NULL : &s, &info, "1");
  check_agreed(rc, OSTIO_EINVAL, "NULL statistics", "NULL stats on rank 0");
}

/* A sub-communicator in reverse order: its rank 0 is the last world rank,
 * which writes, and %r is its world rank. MPI_COMM_SELF: every rank writes
 * its own document with its own statistics. */
static void test_subcomm(void)
{
  MPI_Comm rev;
  char spec[1400], path[1400], *printed = NULL, want[128];
  MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - rank, &rev);
  snprintf(spec, sizeof spec, "json:%s/rev-%%r.json", dir);
  int rc = report_captured(rev, spec, &printed);
  CHECK(rc == 0);
  free(printed);
  MPI_Comm_free(&rev);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    snprintf(path, sizeof path, "%s/rev-%d.json", dir, nprocs - 1);
    char *facts = check_doc(path);
    snprintf(want, sizeof want, "%d", nprocs * (nprocs + 1) / 2);
    FACT(facts, "coll_writes", want);
    snprintf(want, sizeof want, "%d", nprocs - 1);
    FACT(facts, "world_rank", want);
    free(facts);
  }

  snprintf(spec, sizeof spec, "json:%s/self-%%r.json", dir);
  rc = report_captured(MPI_COMM_SELF, spec, &printed);
  CHECK(rc == 0);
  free(printed);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < nprocs; r++) {
      snprintf(path, sizeof path, "%s/self-%d.json", dir, r);
      char *facts = check_doc(path);
      snprintf(want, sizeof want, "%d", r + 1);
      FACT(facts, "coll_writes", want);
      FACT(facts, "nprocs", "1");
      free(facts);
    }
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "stats") < 0) perror("mkdtemp");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

  test_bad_spec_warns_once();
  test_unwritable_warns_once();
  test_json_job();
  test_text_and_off();
  test_errors();
  test_subcomm();

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  char prefix[32];
  snprintf(prefix, sizeof prefix, "ranks %d: ", nprocs);
  int status = tu_done_mpi(MPI_COMM_WORLD, prefix, __FILE__);
  MPI_Finalize();
  return status;
}
