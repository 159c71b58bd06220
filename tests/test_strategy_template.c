/* The strategy extension point (src/engine/strategy.h) with a strategy the
 * library does not ship: the template "template" (strategy_template.c),
 * added to the registry by its one line (this test's build compiles
 * src/engine/strategies.c with -DOSTIO__STRATEGY_EXTRA=template). Through
 * the public API only: the hint selects it (any case), a collective write
 * and read run its ops (counted), the bytes on disk are right, its counter
 * strategy_template is in ostio_stat_get and the OSTIO_STATS JSON, an
 * unknown name is refused at open with the registry's names, and auto
 * still picks a registry member. Run with 1 or 2 ranks. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ostio.h"
#include "strategy_template.h"
#include "testutil.h"

#define B 1000 /* block: not a stripe multiple, so runs cross stripes */
#define NB 24  /* blocks per rank */

static int rank, nprocs;

static unsigned char pat(int64_t off, int w) { return (unsigned char)(off * 13 + off / 253 + w * 71 + 3); }

/* Rank w's blocks: block i at (i * P + w) * B. */
static void extents_of(int w, ostio_extent *e)
{
  for (int i = 0; i < NB; i++) e[i] = (ostio_extent){((int64_t)i * nprocs + w) * B, B};
}

static int same_as(const unsigned char *b, const ostio_extent *e, int w)
{
  for (int i = 0; i < NB; i++)
    for (int64_t k = 0; k < B; k++)
      if (b[(size_t)i * B + (size_t)k] != pat(e[i].offset + k, w)) return 0;
  return 1;
}

static MPI_Info info_of(const char *strategy)
{
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_strategy", strategy);
  MPI_Info_set(info, "striping_factor", "2");
  MPI_Info_set(info, "striping_unit", "4096");
  MPI_Info_set(info, "cb_config_list", "*:*"); /* every rank aggregates */
  MPI_Info_set(info, "cb_buffer_size", "8192"); /* several rounds */
  return info;
}

static double stat_of(ostio_file *fh, const char *name)
{
  double v = -1;
  CHECKF(ostio_stat_get(fh, name, &v) == 0, "%s: %s", name, ostio_last_error());
  return v;
}

/* The registry seen from inside: the template is its last entry. */
static void registry(void)
{
  int n = ostio__strategy_count();
  CHECK(n == 7 && ostio__strategy_at(n - 1) == &ostio__strategy_template);
  CHECK(ostio__strategy_find("template") == &ostio__strategy_template);
  char names[256];
  ostio__strategy_names(names, sizeof names);
  CHECKF(!strcmp(names, "auto, even, aligned, ost, independent, single or template"), "%s", names);
}

/* write_all and read_all through the template; the bytes on disk. */
static void write_read(const char *dir)
{
  char path[600], stats[600], want[160];
  snprintf(path, sizeof path, "%s/file.dat", dir);
  snprintf(stats, sizeof stats, "%s/stats.json", dir);
  char spec[620];
  snprintf(spec, sizeof spec, "json:%s", stats);
  setenv("OSTIO_STATS", spec, 1);
  ostio_extent e[NB], o[NB];
  unsigned char *buf = malloc((size_t)NB * B), *back = malloc((size_t)NB * B);
  extents_of(rank, e);
  for (int i = 0; i < NB; i++)
    for (int64_t k = 0; k < B; k++) buf[(size_t)i * B + (size_t)k] = pat(e[i].offset + k, rank);

  ostio_test_strategy_template_calls = (ostio_test_strategy_calls){0};
  MPI_Info info = info_of("Template"); /* the hint is kept in lower case */
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Info_free(&info);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  if (rc == 0) {
    CHECK(ostio_write_all(fh, e, NB, buf) == 0);
    CHECKF(!strcmp(ostio_file_strategy(fh), "template"), "%s", ostio_file_strategy(fh));
    int w = (rank + 1) % nprocs; /* read the next rank's blocks */
    extents_of(w, o);
    CHECK(ostio_read_all(fh, o, NB, back) == 0 && same_as(back, o, w));
    CHECK(stat_of(fh, "strategy_template") == 2);
    CHECK(stat_of(fh, "strategy_auto") == 0 && stat_of(fh, "strategy_even") == 0);
    ostio_test_strategy_calls c = ostio_test_strategy_template_calls;
    CHECKF(c.want == 2 && c.domains == 2 && c.owner > 0, "want %d domains %d owner %d", c.want,
           c.domains, c.owner);
    CHECK(ostio_close(&fh) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  unsetenv("OSTIO_STATS");

  if (rank == 0) {
    /* On disk: every rank's blocks, read with plain pread. */
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    for (int w = 0; fd >= 0 && w < nprocs; w++) {
      extents_of(w, o);
      for (int i = 0; i < NB; i++)
        CHECK(pread(fd, back + (size_t)i * B, B, o[i].offset) == B);
      CHECKF(same_as(back, o, w), "rank %d's blocks on disk", w);
    }
    if (fd >= 0) close(fd);
    /* The statistics document names the counter (2 calls on each rank). */
    FILE *f = fopen(stats, "r");
    char *doc = calloc(1, 1 << 20);
    size_t len = f ? fread(doc, 1, (1 << 20) - 1, f) : 0;
    if (f) fclose(f);
    CHECK(len > 0);
    snprintf(want, sizeof want, "\"strategy_template\": {\"sum\": %d, \"max\": 2, \"min\": 2}",
             2 * nprocs);
    CHECKF(strstr(doc, want), "no %s in the statistics", want);
    snprintf(want, sizeof want, "\"strategy_template\": %d\n", 2 * nprocs); /* the last */
    CHECKF(strstr(doc, want), "no %s in the summary", want);
    CHECK(strstr(doc, "\"strategies\": {\"template\": 1}"));
    free(doc);
  }
  free(buf);
  free(back);
}

/* An unknown name fails at open on every rank, naming the registry's. */
static void unknown_name(const char *dir)
{
  char path[600];
  snprintf(path, sizeof path, "%s/bad.dat", dir);
  MPI_Info info = info_of("ylib");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Info_free(&info);
  CHECK(rc == OSTIO_EHINT && fh == NULL);
  CHECKF(strstr(ostio_last_error(), "ostio_strategy=\"ylib\"") &&
         strstr(ostio_last_error(), "single or template"), "%s", ostio_last_error());
}

/* auto returns a registry member (never itself, never the template). */
static void auto_choice(const char *dir)
{
  char path[600];
  snprintf(path, sizeof path, "%s/auto.dat", dir);
  MPI_Info info = info_of("auto");
  MPI_Info_set(info, "romio_cb_write", "enable");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Info_free(&info);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  if (rc != 0) return;
  ostio_extent e[NB];
  unsigned char *buf = calloc((size_t)NB, B);
  extents_of(rank, e);
  CHECK(ostio_write_all(fh, e, NB, buf) == 0);
  const char *used = ostio_file_strategy(fh);
  const ostio__strategy *s = ostio__strategy_find(used);
  CHECKF(s && !s->choose && s != &ostio__strategy_template, "auto ran %s", used);
  CHECK(stat_of(fh, "strategy_auto") == 1 && stat_of(fh, "strategy_template") == 0);
  char name[64];
  snprintf(name, sizeof name, "strategy_%s", used);
  CHECK(stat_of(fh, name) == 1);
  CHECK(ostio_close(&fh) == 0);
  free(buf);
}

int main(int argc, char **argv)
{
  char dir[512];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "strategy") < 0) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  registry();
  write_read(dir);
  unknown_name(dir);
  auto_choice(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
