/* ostio-bench runner under MPI (bench/bench_run.c), called as a library:
 * bandwidth and times from a fake clock, every pattern x API with -W -R,
 * the reader shift (-C), a file per process (-F), an injected corruption
 * (OSTIO_BENCH_CORRUPT=1) giving OB_EVERIFY on every rank, and btio with a
 * non-square rank count giving OB_EUSAGE on every rank. The CLI itself
 * (exit status, JSON) is tested by tests/bench/test_bench_cli.py.
 *
 * The MPI-IO calls the runner makes are observed through the MPI profiling
 * interface (the MPI_File_* wrappers below forward to PMPI_*): a step that is
 * one contiguous run on every rank must reach ROMIO as write_at_all(offset)
 * with no file view, as IOR does (a one-block view makes ROMIO lock around
 * every pwrite), and every buffer must be page aligned (issue 14, item 8).
 * With -I (issue 17) every pattern runs as independent calls, one per
 * transfer, at the transfer's own offset without a view, checked by -W -R
 * and by comparing the files byte for byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "testutil.h"

static int rank, nprocs;
static char dir[512];

/* ---- MPI-IO calls seen by the profiling wrappers -------------------------- */
static struct {
  long views;            /* MPI_File_set_view calls                             */
  long calls;            /* read_at(_all) / write_at(_all) calls                */
  long coll;             /* ... of them collective (_all)                       */
  long unaligned;        /* ... whose buffer is not 4096-byte aligned           */
  long nonzero_off;      /* ... at an offset other than 0                       */
  MPI_Offset first_off;  /* offset of the first one                             */
} seen;

static void saw(MPI_Offset off, const void *buf)
{
  if (seen.calls++ == 0) seen.first_off = off;
  if ((uintptr_t)buf % 4096 != 0) seen.unaligned++;
  if (off != 0) seen.nonzero_off++;
}
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
  seen.views++;
  return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count,
                          MPI_Datatype type, MPI_Status *st)
{
  saw(off, buf);
  seen.coll++;
  return PMPI_File_write_at_all(fh, off, buf, count, type, st);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype type,
                         MPI_Status *st)
{
  saw(off, buf);
  seen.coll++;
  return PMPI_File_read_at_all(fh, off, buf, count, type, st);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype type,
                      MPI_Status *st)
{
  saw(off, buf);
  return PMPI_File_write_at(fh, off, buf, count, type, st);
}
int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype type,
                     MPI_Status *st)
{
  saw(off, buf);
  return PMPI_File_read_at(fh, off, buf, count, type, st);
}

static int parse(const char *line, ob_config *c)
{
  static char buf[2048];
  char *argv[64], err[512];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s -o %s/f", line, dir);
  argv[argc++] = "ostio-bench";
  for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
  int rc = ob_parse_args(argc, argv, c, err, sizeof err);
  CHECKF(rc == OB_OK, "%s: %s", line, err);
  return rc;
}

/* Agreed over ranks: did every rank see the same rc? */
static int same_everywhere(int rc)
{
  int lo, hi;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

typedef struct { double now; } fake_clock;
static double tick(void *ctx) { return ((fake_clock *)ctx)->now += 0.5; }

static void test_fake_clock(void)
{
  ob_config c;
  if (parse("-a ostio:ost,mpiio,posix -c -b 64k -t 16k -s 2 -i 2 --warmup 1 -W -R", &c)) return;
  fake_clock f = {1000.0};
  c.clock = tick, c.clock_ctx = &f;
  ob_results res;
  char err[512];
  int rc = ob_run(&c, &res, err, sizeof err);
  CHECKF(rc == OB_OK, "fake clock run: %s", err);
  CHECK(same_everywhere(rc));
  CHECK_EQ_I64(res.n, 3 * 3 * 2);
  CHECK_EQ_I64(res.total_bytes, (int64_t)nprocs * 128 * 1024);
  for (int i = 0; i < res.n; i++) {
    const ob_result *r = &res.r[i];
    /* Four readings per phase, 0.5 s apart: open, io, close 0.5 s each. */
    CHECK(r->t_open == 0.5 && r->t_io == 0.5 && r->t_close == 0.5 && r->t_total == 1.5);
    CHECK(r->bw_mib == (double)nprocs * 0.125 / 1.5);
    CHECK(r->verify_errors == 0);
    CHECK(r->warmup == (r->iteration == 0));
    CHECK((r->api == 0) == (r->aggr_max >= 1));
    if (r->api == 0) CHECK(!strcmp(r->strategy, "ost") && r->sys_writes >= 0);
  }
  ob_results_free(&res);
}

static void run_ok(const char *line, int napis)
{
  ob_config c;
  if (parse(line, &c)) return;
  ob_results res;
  char err[512];
  int rc = ob_run(&c, &res, err, sizeof err);
  CHECKF(rc == OB_OK, "%s: rc %d: %s", line, rc, err);
  CHECK(same_everywhere(rc));
  int phases = (c.write ? 1 : 0) + (c.read ? 1 : 0);
  CHECKF(res.n == napis * phases * (c.iterations + c.warmup), "%s: %d results", line, res.n);
  for (int i = 0; i < res.n; i++)
    CHECKF(res.r[i].verify_errors == 0 && res.r[i].bytes == res.total_bytes && res.r[i].bytes > 0,
           "%s: result %d", line, i);
  ob_results_free(&res);
}

/* Every pattern, small; coll: MPI-IO collective (-c) in test_matrix. */
static const struct {
  const char *args;
  int coll;
} pats[] = {
  {"-p ior -b 64k -t 16k -s 2", 1},
  {"-p strided -b 4k -t 4k -s 16", 1},
  {"-p strided -b 47008 -t 47008 -s 3", 0},
  {"-p flash --flash-blocks 2 --flash-nxb 4", 1},
  {"-p random -b 16k -s 2 --seed 7", 1},
  {"-p ior -b 32k -t 8k -s 2 -C", 1},
};
#define NPATS (sizeof pats / sizeof *pats)

/* run_ok for apis (napis of them) with each pattern and its flags (flags(i)),
 * and btio class S when the rank count allows. */
static void run_patterns(const char *apis, int napis, const char *(*flags)(size_t i))
{
  char line[1024];
  /* With more ranks than the 2 cores every small collective costs ~5 ms:
   * the many-step patterns (flash 24 calls, btio 40) run at 4 ranks only in
   * tests/bench/test_bench_cli.py. */
  int many = nprocs <= 2;
  for (size_t i = 0; i < NPATS; i++) {
    if (!many && strstr(pats[i].args, "flash")) continue;
    snprintf(line, sizeof line, "%s %s %s", apis, pats[i].args, flags(i));
    run_ok(line, napis);
  }
  if (nprocs == 1) {
    snprintf(line, sizeof line, "%s -p btio --btio-class S %s", apis, flags(0));
    run_ok(line, napis);
  }
}

static const char *matrix_flags(size_t i) { return pats[i].coll ? "-c" : ""; }

static void test_matrix(void)
{
  run_patterns("-a ostio:ost,ostio:even,ostio:independent,mpiio,posix -W -R --warmup 0", 5,
               matrix_flags);
  run_ok("-F -a ostio:independent,mpiio,posix -p ior -b 32k -t 8k -s 2 -W -R -C -e --warmup 0", 3);
  run_ok("-a ostio:aligned,ostio:auto -p strided -b 4k -t 4k -s 8 -W -R -i 2 -e "
         "--stripe-count 2 --stripe-size 64k -O cb_buffer_size=65536", 2);
}

/* Runs line (MPI-IO only) and returns what the wrappers saw on this rank. */
static int mpiio_run(const char *line)
{
  ob_config c;
  if (parse(line, &c)) return -1;
  ob_results res;
  char err[512];
  memset(&seen, 0, sizeof seen);
  int rc = ob_run(&c, &res, err, sizeof err);
  CHECKF(rc == OB_OK, "%s: rc %d: %s", line, rc, err);
  ob_results_free(&res);
  return rc;
}

static void test_mpiio_calls(void)
{
  /* ior: every step is one transfer, contiguous on every rank: no view, the
   * transfer's own offset (rank r's first one at r * 64 KiB), aligned buffers. */
  const char *ior[] = {"-a mpiio -c -p ior -b 64k -t 16k -s 2 -W -R --warmup 0",
                       "-a mpiio -p ior -b 64k -t 16k -s 2 -W -R --warmup 0",
                       "-a mpiio -c -p ior -b 32k -t 8k -s 2 -C -W -R --warmup 0"};
  for (size_t i = 0; i < sizeof ior / sizeof *ior; i++) {
    if (mpiio_run(ior[i])) continue;
    CHECKF(seen.views == 0, "%s: %ld MPI_File_set_view calls, want none", ior[i], seen.views);
    CHECKF(seen.calls == 2 * 8, "%s: %ld MPI-IO calls", ior[i], seen.calls);
    CHECKF(seen.unaligned == 0, "%s: %ld of %ld buffers not page aligned", ior[i],
           seen.unaligned, seen.calls);
    CHECKF(seen.first_off == (MPI_Offset)rank * (i == 2 ? 32768 : 65536),
           "%s: first offset %lld", ior[i], (long long)seen.first_off);
    CHECKF(nprocs == 1 || seen.nonzero_off > 0, "%s: every call at offset 0", ior[i]);
  }
  /* flash: one contiguous region per rank and variable: no view either. */
  if (!mpiio_run("-a mpiio -c -p flash --flash-blocks 2 --flash-nxb 4 -W -R --warmup 0"))
    CHECKF(seen.views == 0 && seen.unaligned == 0, "flash: %ld views, %ld unaligned",
           seen.views, seen.unaligned);
  /* Interleaved pieces need the hindexed view (one per step and phase), at
   * offset 0; with 1 rank the pieces are adjacent, one run: no view. */
  if (!mpiio_run("-a mpiio -c -p strided -b 4k -t 4k -s 16 -W -R --warmup 0")) {
    CHECKF(nprocs == 1 ? seen.views == 0 : seen.views == 2, "strided: %ld views", seen.views);
    CHECKF(seen.unaligned == 0, "strided: %ld unaligned", seen.unaligned);
  }
  /* random with 1 rank: one step of disjoint pieces; with more, the steps of
   * some ranks may be contiguous and others not: the view is agreed. */
  if (!mpiio_run("-a mpiio -c -p random -b 16k -s 2 --seed 7 -W -R --warmup 0"))
    CHECKF(seen.unaligned == 0, "random: %ld unaligned", seen.unaligned);
}

/* The whole file at path, or NULL (*len = -1). */
static uint8_t *slurp(const char *path, int64_t *len)
{
  FILE *f = fopen(path, "rb");
  uint8_t *b = NULL;
  *len = -1;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    rewind(f);
    if (b && fread(b, 1, (size_t)n, f) == (size_t)n) {
      *len = n;
    } else {
      free(b);
      b = NULL;
    }
  }
  fclose(f);
  return b;
}

/* -I: every pattern as independent calls (one per transfer) for ostio, MPI-IO
 * and POSIX, -W -R verified; the calls reaching MPI-IO; ostio's system calls;
 * the files' bytes. */
static const char *indep_flags(size_t i) { return i + 1 == NPATS ? "-c" : ""; }

static void test_indep(void)
{
  /* The last pattern with -c: mpiio collective, the others independent.
   * Oversubscribed (more ranks than the 2 cores) each phase's collectives
   * cost ~50 ms: fewer APIs and cases there. */
  int few = nprocs > 2;
  if (few) run_patterns("-I -a ostio,mpiio -W -R --warmup 0", 2, indep_flags);
  else run_patterns("-I -a ostio,ostio:ost,mpiio,posix -W -R --warmup 0", 4, indep_flags);
  const char *more[] = {
    "-p strided -b 8k -t 4k -s 2",
    "-p strided -b 4k -t 4k -s 40 --container striped --stripe-count 2 --stripe-size 64k",
    "-p strided -b 4k -t 4k -s 8 --container log",
    /* -O reaches ostio_open: the same calls through the cooperative cache */
    "-p strided -b 4k -t 4k -s 8 -O ostio_cache=enable -O ostio_cache_size=1m",
  };
  char line[1024];
  for (size_t i = 0; i < (few ? 1 : sizeof more / sizeof *more); i++) {
    snprintf(line, sizeof line, "-I -a ostio,mpiio -W -R --warmup 0 %s", more[i]);
    run_ok(line, 2);
  }
  run_ok("-F -I -a ostio:ost,ostio,mpiio,posix -p ior -b 32k -t 8k -s 2 -W -R -C --warmup 0", 4);

  /* What MPI-IO sees: 16 write_at and 16 read_at per rank at the pieces' own
   * offsets (rank r's first at r * 4 KiB), no view, nothing collective. */
  if (!mpiio_run("-I -a mpiio -p strided -b 4k -t 4k -s 16 -W -R --warmup 0")) {
    CHECKF(seen.views == 0 && seen.coll == 0, "-I strided: %ld views, %ld collective calls",
           seen.views, seen.coll);
    CHECKF(seen.calls == 2 * 16, "-I strided: %ld MPI-IO calls", seen.calls);
    CHECKF(seen.first_off == (MPI_Offset)rank * 4096 && seen.unaligned == 0,
           "-I strided: first offset %lld, %ld unaligned", (long long)seen.first_off,
           seen.unaligned);
  }
  /* random: one call per non-empty extent of this rank's plan. */
  ob_config c;
  if (!parse("-I -a mpiio -p random -b 16k -s 2 --seed 7 -W -R --warmup 0", &c)) {
    ob_plan plan;
    char perr[256];
    long want = 0;
    if (ob_pattern_build(&c.pat, rank, nprocs, &plan, perr, sizeof perr) == 0) {
      for (int s = 0; s < plan.nsteps; s++)
        for (size_t e = 0; e < plan.steps[s].n; e++) want += plan.steps[s].ext[e].length > 0;
      ob_plan_free(&plan);
    }
    if (!mpiio_run("-I -a mpiio -p random -b 16k -s 2 --seed 7 -W -R --warmup 0"))
      CHECKF(seen.views == 0 && seen.coll == 0 && seen.calls == 2 * want,
             "-I random: %ld views, %ld collective, %ld calls for %ld extents", seen.views,
             seen.coll, seen.calls, want);
  }
  /* -I -c: plain mpiio keeps its collective calls. */
  if (!mpiio_run("-I -c -a mpiio -p strided -b 4k -t 4k -s 16 -W -R --warmup 0"))
    CHECKF(seen.calls == 2 && seen.coll == 2, "-I -c: %ld calls, %ld collective", seen.calls,
           seen.coll);

  /* ostio: one system call per transfer (a plain file; the cache is off by default). */
  if (!parse("-I -a ostio -p strided -b 4k -t 4k -s 16 --warmup 0", &c)) {
    ob_results res;
    char err[512];
    int rc = ob_run(&c, &res, err, sizeof err);
    CHECKF(rc == OB_OK && res.n == 2, "-I ostio: rc %d, %s", rc, err);
    for (int i = 0; rc == OB_OK && i < res.n; i++) {
      double ops = res.r[i].phase == OB_PHASE_WRITE ? res.r[i].sys_writes : res.r[i].sys_reads;
      CHECKF(ops == 16.0 * nprocs, "-I ostio phase %d: %g system calls", res.r[i].phase, ops);
    }
    ob_results_free(&res);
  }

  /* The bytes: ostio's, ROMIO's and POSIX's files are equal and hold ob_fill's data. */
  if (!parse("-I -k -w -a ostio,mpiio,posix -p strided -b 4k -t 4k -s 16 --warmup 0", &c)) {
    ob_results res;
    char err[512];
    int rc = ob_run(&c, &res, err, sizeof err);
    CHECKF(rc == OB_OK, "-I -k: rc %d, %s", rc, err);
    if (rc == OB_OK && rank == 0) {
      const char *names[] = {"ostio", "mpiio", "posix"};
      uint8_t *first = NULL;
      for (int a = 0; a < 3; a++) {
        char path[600];
        int64_t len;
        snprintf(path, sizeof path, "%s/f.%s", dir, names[a]);
        uint8_t *b = slurp(path, &len);
        ostio_extent all = {0, len};
        CHECKF(b && len == res.total_bytes, "%s: %lld bytes, want %lld", path, (long long)len,
               (long long)res.total_bytes);
        if (b && len == res.total_bytes) {
          CHECKF(ob_check(b, &all, 1, c.pat.seed) < 0, "%s: wrong byte at %lld", path,
                 (long long)ob_check(b, &all, 1, c.pat.seed));
          if (first) CHECKF(memcmp(first, b, (size_t)len) == 0, "%s differs from ostio's", path);
        }
        if (!first) first = b;
        else free(b);
      }
      free(first);
    }
    ob_results_free(&res);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

static void test_failures(void)
{
  ob_config c;
  ob_results res;
  char err[512];
  int rc;
  setenv("OSTIO_BENCH_CORRUPT", "1", 1);
  if (!parse("-a posix,ostio:ost -p ior -b 16k -t 16k -s 2 -W -R --warmup 0", &c)) {
    rc = ob_run(&c, &res, err, sizeof err);
    CHECKF(rc == OB_EVERIFY && strstr(err, "verification failed"), "corrupt: rc %d, %s", rc, err);
    CHECK(same_everywhere(rc));
    CHECK(res.n == 4 && res.r[0].verify_errors >= 1 && res.r[1].verify_errors >= 1);
    ob_results_free(&res);
  }
  /* The same through independent calls (-I). */
  if (!parse("-I -a ostio,mpiio -p strided -b 4k -t 4k -s 4 -W -R --warmup 0", &c)) {
    rc = ob_run(&c, &res, err, sizeof err);
    CHECKF(rc == OB_EVERIFY && strstr(err, "verification failed"), "-I corrupt: rc %d, %s", rc,
           err);
    CHECK(same_everywhere(rc));
    for (int i = 0; rc == OB_EVERIFY && i < res.n; i++)
      CHECKF(res.r[i].verify_errors >= 1, "-I corrupt: result %d not failed", i);
    ob_results_free(&res);
  }
  unsetenv("OSTIO_BENCH_CORRUPT");
  if (nprocs == 2 || nprocs == 3) {
    if (!parse("-a ostio -p btio --btio-class S", &c)) {
      rc = ob_run(&c, &res, err, sizeof err);
      CHECKF(rc == OB_EUSAGE && strstr(err, "btio"), "btio non-square: rc %d, %s", rc, err);
      CHECK(same_everywhere(rc));
      CHECK(res.n == 0);
      ob_results_free(&res);
    }
  }
  /* Reading files that do not exist: an agreed I/O error. */
  if (!parse("-a posix,mpiio -r -p ior -b 16k -t 16k --warmup 0", &c)) {
    rc = ob_run(&c, &res, err, sizeof err);
    CHECKF(rc == OB_EIO && err[0], "missing file: rc %d, %s", rc, err);
    CHECK(same_everywhere(rc));
    ob_results_free(&res);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "bench_run") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  test_fake_clock();
  test_matrix();
  test_mpiio_calls();
  test_indep();
  test_failures();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  long f = tu_failed, all;
  MPI_Allreduce(&f, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rc = TEST_DONE();
  MPI_Finalize();
  return all ? 1 : rc;
}
