/* ostio__stats_report under MPI: the JSON written by rank 0 holds the fold
 * of every rank's statistics; the text goes to rank 0's stderr only; off
 * specs print nothing; a bad spec, on every rank or on one, and a path that
 * cannot be written give the same code and detail on every rank. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void test_json(void)
{
  char spec[700], path[600], *printed = NULL;
  snprintf(path, sizeof path, "%s/stats.json", dir);
  snprintf(spec, sizeof spec, "json:%s", path);
  int rc = report_captured(MPI_COMM_WORLD, spec, &printed);
  CHECKF(rc == 0, "rank %d: rc %d %s", rank, rc, ostio_last_error());
  CHECK(printed && printed[0] == '\0');
  free(printed);
  if (rank != 0) return;

  char *doc = slurp(path), *want = NULL, line[256];
  ostio__stats_reduced r;
  ostio__stats s;
  ostio__stats_reduced_init(&r);
  for (int k = 0; k < nprocs; k++) {
    stats_of(k, &s);
    ostio__stats_fold(&r, &s);
  }
  if (!CHECK(doc && ostio__stats_format_json(&r, &info, &want) == 0)) goto done;
  CHECKF(!strcmp(doc, want), "file:\n%s\nwant:\n%s", doc, want);
  snprintf(line, sizeof line, "\"coll_writes\": {\"sum\": %d, \"max\": %d, \"min\": 1}",
           nprocs * (nprocs + 1) / 2, nprocs);
  CHECKF(strstr(doc, line), "no '%s' in\n%s", line, doc);
  snprintf(line, sizeof line, "\"objects_max\": {\"sum\": %d, \"max\": %d, \"min\": 10}",
           10 * nprocs + nprocs * (nprocs - 1) / 2, 9 + nprocs);
  CHECKF(strstr(doc, line), "no '%s'", line);
  snprintf(line, sizeof line, "\"nprocs\": %d,", nprocs);
  CHECK(strstr(doc, line));
  /* objects mean = sum 2(r+1) / nprocs calls = nprocs + 1 */
  snprintf(line, sizeof line, "\"objects_per_aggregator_mean\": %d,", nprocs + 1);
  CHECKF(strstr(doc, line), "no '%s'", line);
  CHECK(strstr(doc, "\"file\": \"/scratch/\\\"quoted\\\"\\\\file\""));
done:
  free(doc);
  free(want);
  unlink(path);
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
  char *printed = NULL, spec[700];
  int rc = report_captured(MPI_COMM_WORLD, "json:", &printed);
  check_agreed(rc, OSTIO_EINVAL, "OSTIO_STATS", "json: on every rank");
  CHECK(strstr(ostio_last_error(), "json:PATH"));
  free(printed);

  rc = report_captured(MPI_COMM_WORLD, "verbose", &printed);
  check_agreed(rc, OSTIO_EINVAL, "\"verbose\"", "verbose on every rank");
  free(printed);

  /* Only the last rank has a bad spec: everyone fails, with its detail,
   * and rank 0 prints nothing. */
  rc = report_captured(MPI_COMM_WORLD, rank == nprocs - 1 ? "yes" : "1", &printed);
  check_agreed(rc, OSTIO_EINVAL, "\"yes\"", "bad spec on the last rank");
  CHECKF(printed && printed[0] == '\0', "rank %d printed '%s'", rank, printed);
  free(printed);

  snprintf(spec, sizeof spec, "json:%s/no-such-dir/stats.json", dir);
  rc = report_captured(MPI_COMM_WORLD, spec, &printed);
  check_agreed(rc, OSTIO_ENOENT, "no-such-dir", "unwritable path");
  free(printed);

  ostio__stats s;
  stats_of(rank, &s);
  CHECK(ostio__stats_report(MPI_COMM_NULL, &s, &info, "1") == OSTIO_EINVAL);
  rc = ostio__stats_report(MPI_COMM_WORLD, rank == 0 ? NULL : &s, &info, "1");
  check_agreed(rc, OSTIO_EINVAL, "NULL statistics", "NULL stats on rank 0");
}

/* A sub-communicator in reverse order: its rank 0 is the last world rank. */
static void test_subcomm(void)
{
  MPI_Comm rev;
  char spec[700], path[600], *printed = NULL, line[128];
  MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - rank, &rev);
  snprintf(path, sizeof path, "%s/rev.json", dir);
  snprintf(spec, sizeof spec, "json:%s", path);
  int rc = report_captured(rev, spec, &printed);
  CHECK(rc == 0);
  free(printed);
  MPI_Comm_free(&rev);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char *doc = slurp(path);
    snprintf(line, sizeof line, "\"coll_writes\": {\"sum\": %d, \"max\": %d, \"min\": 1}",
             nprocs * (nprocs + 1) / 2, nprocs);
    CHECKF(doc && strstr(doc, line), "rev.json: %s", doc ? doc : "(missing)");
    free(doc);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "stats") < 0) perror("mkdtemp");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);

  test_json();
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
