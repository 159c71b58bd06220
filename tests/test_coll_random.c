/* Randomized matrix for ostio_write_all / ostio_read_all: every strategy x
 * striped layouts (counts 1, 2, 4, 7, 16; sizes 4 KiB .. 1 MiB) x aggregator
 * counts below, at and above the stripe count (cb_nodes, co_ratio 2) x tiny
 * cb_buffer_size (hundreds of rounds) x ostio_pipeline. Per case: a new file
 * (CREATE with striping hints), sentinel pre-fill, write_all, every byte
 * checked with plain pread; read_all with the same extents, with the same
 * bytes dealt differently, and with an unrelated list over holes and past
 * EOF; half the cases write_all a second, partly overlapping pattern in the
 * same open and check again.
 *
 * OSTIO_TEST_SEED reproduces a run; OSTIO_COLL_CASE=k runs case k alone;
 * OSTIO_COLL_CASES=n overrides the number of cases; OSTIO_COLL_VERBOSE=1
 * prints every case; OSTIO_COLL_DUMP=1 also prints every rank's extents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colltest.h"

static const char *const strat_name[] = {"even", "aligned", "ost", "independent", "auto"};
static const int stripe_counts[] = {1, 2, 4, 7, 16};

typedef struct tcase {
  int idx;
  uint64_t seed;              /* the case's own seed: ct_mix(run seed, idx)      */
  int strategy, K;            /* index into strat_name; stripe count            */
  int64_t S;                  /* stripe size                                    */
  int cb_nodes;               /* 0: not given                                   */
  int64_t cb_buf;             /* 0: not given                                   */
  ct_params prm, prm2;        /* first write; second write (prm2.kind < 0: none) */
  int64_t pf_lo, pf_hi;       /* sentinel pre-fill                              */
  char spec[512];             /* the hints, as key=value words                  */
  char desc[1024];
} tcase;

static int g_rank, g_np, g_case_failed;
static uint64_t g_seed;

/* Rounds a case may force per call; oversubscribed ranks make rounds slow. */
static int64_t max_rounds(void) { return g_np <= 2 ? 600 : g_np <= 4 ? 150 : 48; }

static int64_t pick_stripe_size(tu_rng *r)
{
  switch (tu_rng_range(r, 0, 3)) {
  case 0: return tu_rng_range(r, 4096, 20000);            /* not a multiple of 4 KiB */
  case 1: return 4096 * tu_rng_range(r, 1, 256);
  default: return (int64_t)4096 << tu_rng_range(r, 0, 8);  /* 4 KiB .. 1 MiB */
  }
}

static void make_case(tcase *tc, int idx)
{
  tu_rng r;
  memset(tc, 0, sizeof *tc);
  tc->idx = idx;
  tc->seed = ct_mix(g_seed, (uint64_t)idx);
  tu_rng_seed(&r, tc->seed);
  /* Cases 0..24 cover every (strategy, stripe count) pair. */
  tc->strategy = idx % 5;
  tc->K = stripe_counts[(idx % 5 + idx / 5) % 5];
  tc->S = pick_stripe_size(&r);
  ct_spec_add(tc->spec, sizeof tc->spec, "ostio_strategy", "%s", strat_name[tc->strategy]);
  ct_spec_add(tc->spec, sizeof tc->spec, "striping_factor", "%d", tc->K);
  ct_spec_add(tc->spec, sizeof tc->spec, "striping_unit", "%lld", (long long)tc->S);
  int rel = (int)tu_rng_range(&r, 0, 5);  /* aggregators vs stripe count */
  if (rel == 1) tc->cb_nodes = tc->K > 1 ? (int)tu_rng_range(&r, 1, tc->K - 1) : 1;
  if (rel == 2) tc->cb_nodes = tc->K;
  if (rel >= 3) tc->cb_nodes = (int)tu_rng_range(&r, tc->K + 1, 2 * tc->K + 1);
  if (rel == 5) tc->cb_nodes = g_np > tc->K ? g_np : tc->K + 1;
  if (tc->cb_nodes) {
    ct_spec_add(tc->spec, sizeof tc->spec, "cb_nodes", "%d", tc->cb_nodes);
    if (tu_rng_range(&r, 0, 4)) ct_spec_add(tc->spec, sizeof tc->spec, "cb_config_list", "*:*");
  }
  if (rel == 4 || rel == 5)
    ct_spec_add(tc->spec, sizeof tc->spec, idx % 2 ? "romio_lustre_co_ratio" : "ostio_co_ratio",
                "2");
  int pipe = (int)tu_rng_range(&r, 0, 2);
  if (pipe) ct_spec_add(tc->spec, sizeof tc->spec, "ostio_pipeline", pipe == 1 ? "true" : "false");

  /* The pattern. */
  int kr = (int)tu_rng_range(&r, 0, 19);
  int kind = kr < 10 ? CT_RANDOM : kr < 14 ? CT_STRIDED : kr < 17 ? CT_CONTIG : CT_SPARSE_HIGH;
  int64_t span = tu_rng_range(&r, 16 << 10, (g_np <= 4 ? 3 : 2) << 20);
  if (tu_rng_range(&r, 0, 2) == 0) {  /* tiny collective buffer: many rounds */
    tc->cb_buf = (int64_t)4096 << tu_rng_range(&r, 0, 4);
    if (span > tc->cb_buf * max_rounds()) span = tc->cb_buf * max_rounds();
  } else if (tu_rng_range(&r, 0, 1)) {
    tc->cb_buf = tu_rng_range(&r, 64 << 10, 4 << 20);
  }
  if (tc->cb_buf) ct_spec_add(tc->spec, sizeof tc->spec, "cb_buffer_size", "%lld",
                              (long long)tc->cb_buf);
  int64_t base = tu_rng_range(&r, 0, 3) ? 0 : tu_rng_range(&r, 1, 3 * tc->S);
  tc->prm = ct_params_default(kind, base, span);
  tc->prm.block = span / tu_rng_range(&r, 4, 256) + 1;
  tc->prm.holes = tu_rng_range(&r, 0, 4) != 0;
  tc->prm.empty_ranks = tu_rng_range(&r, 0, 2) != 0;
  tc->prm.shuffle = (int)tu_rng_range(&r, 0, 1);
  if (kind == CT_STRIDED) {
    int b = (int)tu_rng_range(&r, 0, 3);
    tc->prm.block = b == 0 ? tu_rng_range(&r, 1, 64) : b == 1 ? tc->S : tu_rng_range(&r, 1, 65536);
    int64_t most = tc->prm.block * g_np * (g_np <= 2 ? 3000 : 800);
    if (tc->prm.span > most) tc->prm.span = most;
  }
  if (kind == CT_SPARSE_HIGH) {
    tc->prm.span = span / 3 + 1;
    tc->prm.gap = ((int64_t)1 << 28) * tu_rng_range(&r, 1, 4) + tu_rng_range(&r, 0, tc->S);
  }
  /* Pre-fill: none, past the end, inside, or the first half. */
  ct_pattern probe;
  int64_t lo = 0, hi = 0;
  if (ct_pattern_make(&probe, tc->seed, g_np, &tc->prm) == 0) {
    lo = probe.lo;
    hi = probe.hi;
    ct_pattern_free(&probe);
  }
  if (kind == CT_SPARSE_HIGH) hi = lo + tc->prm.span;
  switch (tu_rng_range(&r, 0, 3)) {
  case 0: break;
  case 1:  /* from 0 (sparse: from just below the first window) to past the end */
    tc->pf_lo = kind == CT_SPARSE_HIGH ? lo - tu_rng_range(&r, 0, tc->S) : 0;
    tc->pf_hi = hi + tu_rng_range(&r, 0, tc->S);
    break;
  case 2:
    tc->pf_lo = lo + (hi - lo) / 4 + tu_rng_range(&r, 0, 100);
    tc->pf_hi = hi - (hi - lo) / 4;
    break;
  default: tc->pf_lo = lo; tc->pf_hi = lo + (hi - lo) / 2; break;
  }
  /* A second write over part of the first one, half the time. */
  tc->prm2.kind = -1;
  if (tu_rng_range(&r, 0, 1)) {
    int64_t a = lo + tu_rng_range(&r, 0, (hi - lo) / 2);
    int64_t len = (hi - lo) / 2 + tu_rng_range(&r, 1, 4096);
    tc->prm2 = ct_params_default(tu_rng_range(&r, 0, 2) ? CT_RANDOM : CT_STRIDED, a, len);
    tc->prm2.block = len / tu_rng_range(&r, 8, 128) + 1;
    if (tc->cb_buf && len > tc->cb_buf * max_rounds()) tc->prm2.span = tc->cb_buf * max_rounds();
  }
  snprintf(tc->desc, sizeof tc->desc,
           "case %d (seed %llu): %s; pattern %s base %lld span %lld block %lld holes %d "
           "empty_ranks %d; prefill [%lld, %lld); second write %s",
           idx, (unsigned long long)tc->seed, tc->spec, ct_kind_name(kind),
           (long long)tc->prm.base, (long long)tc->prm.span, (long long)tc->prm.block,
           tc->prm.holes, tc->prm.empty_ranks, (long long)tc->pf_lo, (long long)tc->pf_hi,
           tc->prm2.kind < 0 ? "no" : ct_kind_name(tc->prm2.kind));
}

/* Records an agreed verdict (see ct_case_check). */
static int verdict(const tcase *tc, int ok, const char *what)
{
  return ct_case_check(ok, what, "test_coll_random", tc->desc, tc->idx, g_seed, &g_case_failed);
}

/* read_all of pattern p (this rank's list) and a check against e. */
static int read_check(const tcase *tc, ostio_file *fh, const ct_pattern *p, const ct_expect *e,
                      const char *label)
{
  char what[128];
  snprintf(what, sizeof what, "case %d %s", tc->idx, label);
  size_t n = p->n[g_rank];
  uint8_t *buf = ct_xmalloc((size_t)p->bytes[g_rank]);
  memset(buf, 0x5C, (size_t)p->bytes[g_rank]);
  int rc = ostio_read_all(fh, p->ext[g_rank], n, buf);
  if (rc != 0) fprintf(stderr, "case %d %s: rank %d: ostio_read_all: %s (%s)\n", tc->idx, label,
                       g_rank, ostio_errname(rc), ostio_last_error());
  int64_t bad = rc == 0 ? ct_check_buf(e, p->ext[g_rank], n, buf, g_rank, g_seed, what) : 0;
  int ok = verdict(tc, ct_agree(MPI_COMM_WORLD, rc == 0 && bad == 0), what);
  free(buf);
  return ok;
}

static int write_pattern(const tcase *tc, ostio_file *fh, const ct_pattern *p, uint32_t call,
                         const char *label)
{
  uint8_t *buf = ct_xmalloc((size_t)p->bytes[g_rank]);
  ct_fill(buf, p->ext[g_rank], p->n[g_rank], g_rank, call);
  int rc = ostio_write_all(fh, p->ext[g_rank], p->n[g_rank], buf);
  if (rc != 0) fprintf(stderr, "case %d %s: rank %d: ostio_write_all: %s (%s)\n", tc->idx, label,
                       g_rank, ostio_errname(rc), ostio_last_error());
  free(buf);
  int codes[2] = {rc, -rc};  /* max and -min of the codes, in one collective */
  MPI_Allreduce(MPI_IN_PLACE, codes, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  verdict(tc, codes[0] == -codes[1], "write_all returns the same code on every rank");
  return verdict(tc, codes[0] == 0 && codes[1] == 0, label);
}

/* OSTIO_COLL_DUMP=1: every rank prints its list, in order, for a reproducer. */
static void dump(const ct_pattern *p, const char *label)
{
  for (int r = 0; r < g_np; r++) {
    if (r == g_rank) {
      printf("%s rank %d, %zu entries:", label, r, p->n[r]);
      for (size_t i = 0; i < p->n[r]; i++)
        printf(" {%lld,%lld}", (long long)p->ext[r][i].offset, (long long)p->ext[r][i].length);
      printf("\n");
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

static void run_case(const tcase *tc, const char *dir)
{
  char path[700], what[128], d1[200], d2[200];
  ct_pattern p1, p1b, p3, p2;
  ct_expect e;
  MPI_Info info;
  ostio_file *fh = NULL;
  int ok, have2 = 0;

  g_case_failed = 0;
  snprintf(path, sizeof path, "%s/case%03d", dir, tc->idx);
  if (ct_pattern_make(&p1, tc->seed, g_np, &tc->prm) < 0) {
    verdict(tc, 0, "pattern generation");
    return;
  }
  ct_pattern_describe(&p1, d1, sizeof d1);
  if (g_rank == 0 && getenv("OSTIO_COLL_VERBOSE"))
    printf("%s\n  write 1: %s\n", tc->desc, d1);
  if (getenv("OSTIO_COLL_DUMP")) dump(&p1, "write 1");
  if (ct_info(tc->spec, &info) < 0) abort();
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Info_free(&info);
  if (rc != 0) fprintf(stderr, "case %d: rank %d: ostio_open: %s (%s)\n", tc->idx, g_rank,
                       ostio_errname(rc), ostio_last_error());
  /* Opened everywhere, and the striping hints of the new file are honoured. */
  ostio_layout_component c = {0};
  const ostio_layout *l = rc == 0 ? ostio_file_layout(fh) : NULL;
  int oks[2] = {rc == 0, l && ostio_layout_get_component(l, 0, &c) == 0 && c.stripe_count == tc->K &&
                             c.stripe_size == tc->S};
  MPI_Allreduce(MPI_IN_PLACE, oks, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!verdict(tc, oks[0], "ostio_open")) {
    if (fh) ostio_close(&fh);
    ct_pattern_free(&p1);
    return;
  }
  if (!oks[1] && g_rank == 0)
    fprintf(stderr, "case %d: layout %d x %lld, asked for %d x %lld\n", tc->idx,
            (int)c.stripe_count, (long long)c.stripe_size, tc->K, (long long)tc->S);
  verdict(tc, oks[1], "new file has the striping hints' layout");

  verdict(tc, ct_prefill(MPI_COMM_WORLD, path, tc->pf_lo, tc->pf_hi) == 0, "prefill");
  ct_expect_init(&e, tc->pf_lo, tc->pf_hi);
  ct_expect_add(&e, &p1, 1);
  if (write_pattern(tc, fh, &p1, 1, "write_all #1")) {
    snprintf(what, sizeof what, "case %d file after write #1", tc->idx);
    ok = verdict(tc, ct_check_file(MPI_COMM_WORLD, path, &e, g_seed, what), what);
    /* The hinted strategy was used; no more aggregators than cb_nodes. */
    const char *s = ostio_file_strategy(fh);
    ok = tc->strategy == 4 ? (!strcmp(s, "even") || !strcmp(s, "aligned") || !strcmp(s, "ost") ||
                              !strcmp(s, "independent"))
                           : !strcmp(s, strat_name[tc->strategy]);
    if (!ok) fprintf(stderr, "case %d: rank %d: strategy used: %s\n", tc->idx, g_rank, s);
    double v[3] = {0, !ok, 0};
    v[2] = ostio_stat_get(fh, "aggr_max", &v[0]) != 0;
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    verdict(tc, v[1] == 0, "ostio_file_strategy is the hinted one");
    ok = v[2] == 0 && v[0] <= g_np && (!tc->cb_nodes || v[0] <= tc->cb_nodes);
    if (!ok && g_rank == 0)
      fprintf(stderr, "case %d: aggr_max %g (cb_nodes %d, %d ranks)\n", tc->idx, v[0],
              tc->cb_nodes, g_np);
    verdict(tc, ok, "aggregators <= cb_nodes and <= ranks");

    read_check(tc, fh, &p1, &e, "read_all, same extents");
    if (ct_pattern_reshuffle(&p1b, &p1, tc->seed) == 0) {
      read_check(tc, fh, &p1b, &e, "read_all, same bytes dealt differently");
      ct_pattern_free(&p1b);
    }
    /* An unrelated list: holes, sentinel, and past the end of file. */
    int64_t size = ct_expect_size(&e), lo3 = p1.lo > 8192 ? p1.lo - 8192 : 0;
    ct_params q = ct_params_default(CT_RANDOM, lo3, (p1.hi - lo3) + 8192);
    q.block = q.span / 32 + 1;
    if (tc->prm.kind == CT_SPARSE_HIGH) q.span = tc->prm.span + 16384;
    if (size > p1.hi && size - p1.hi < (1 << 20)) q.span = size - lo3 + 8192;
    if (ct_pattern_make(&p3, ct_mix(tc->seed, 3), g_np, &q) == 0) {
      read_check(tc, fh, &p3, &e, "read_all, unrelated extents (holes, past EOF)");
      ct_pattern_free(&p3);
    }
    /* Every 4th case: calls that name no byte (zero-length entries past EOF
     * and above 2^33, or none) write nothing, extend nothing, read nothing. */
    if (tc->idx % 4 == 3) {
      ostio_extent z[2] = {{size + 1 + g_rank, 0}, {((int64_t)1 << 33) + g_rank, 0}};
      uint8_t one = 0x77;
      int zr = ostio_write_all(fh, z, (size_t)(g_rank % 3), &one);
      if (zr == 0) zr = ostio_read_all(fh, z, (size_t)(g_rank % 3), &one);
      if (zr != 0) fprintf(stderr, "case %d: rank %d: empty call: %s (%s)\n", tc->idx, g_rank,
                           ostio_errname(zr), ostio_last_error());
      verdict(tc, ct_agree(MPI_COMM_WORLD, zr == 0 && one == 0x77), "calls without bytes");
    }
    /* Second write in the same open, overwriting part of the first. */
    if (tc->prm2.kind >= 0 && ct_pattern_make(&p2, ct_mix(tc->seed, 2), g_np, &tc->prm2) == 0) {
      have2 = 1;
      ct_pattern_describe(&p2, d2, sizeof d2);
      if (getenv("OSTIO_COLL_DUMP")) dump(&p2, "write 2");
      if (g_rank == 0 && getenv("OSTIO_COLL_VERBOSE")) printf("  write 2: %s\n", d2);
      ct_expect_add(&e, &p2, 2);
      if (write_pattern(tc, fh, &p2, 2, "write_all #2")) {
        snprintf(what, sizeof what, "case %d file after write #2", tc->idx);
        verdict(tc, ct_check_file(MPI_COMM_WORLD, path, &e, g_seed, what), what);
        read_check(tc, fh, &p1, &e, "read_all #1 extents after write #2");
      }
    }
  }
  rc = ostio_close(&fh);
  if (rc != 0) fprintf(stderr, "case %d: rank %d: ostio_close: %s (%s)\n", tc->idx, g_rank,
                       ostio_errname(rc), ostio_last_error());
  verdict(tc, ct_agree(MPI_COMM_WORLD, rc == 0 && fh == NULL), "ostio_close");
  snprintf(what, sizeof what, "case %d file after close", tc->idx);
  verdict(tc, ct_check_file(MPI_COMM_WORLD, path, &e, g_seed, what), what);
  if (g_case_failed && g_rank == 0) fprintf(stderr, "  write 1: %s\n", d1);
  if (g_case_failed && g_rank == 0 && have2) fprintf(stderr, "  write 2: %s\n", d2);
  if (have2) ct_pattern_free(&p2);
  ct_pattern_free(&p1);
  if (g_rank == 0) remove(path);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  char dir[512] = "";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_np);
  g_seed = ct_seed(MPI_COMM_WORLD, 20240611);
  int first, end;
  ct_case_range(g_np <= 2 ? 60 : g_np <= 4 ? 15 : 5, &first, &end);
  double t0 = MPI_Wtime();
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "collrandom") < 0) {
    if (g_rank == 0) fprintf(stderr, "cannot make a temporary directory\n");
    MPI_Finalize();
    return 1;
  }
  int ran = 0;
  for (int i = first; i < end; i++, ran++) {
    tcase tc;
    make_case(&tc, i);
    double tc0 = MPI_Wtime();
    run_case(&tc, dir);
    if (g_rank == 0 && getenv("OSTIO_COLL_VERBOSE")) printf("  %.2f s\n", MPI_Wtime() - tc0);
  }
  ct_rmtree(MPI_COMM_WORLD, dir);
  char prefix[128];
  snprintf(prefix, sizeof prefix, "ranks %d: %d cases in %.1f s, seed %llu: ", g_np, ran,
           MPI_Wtime() - t0, (unsigned long long)g_seed);
  int status = tu_done_mpi(MPI_COMM_WORLD, prefix, __FILE__);
  MPI_Finalize();
  return status;
}
