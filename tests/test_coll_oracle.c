/* ROMIO as the oracle. For every strategy and several random patterns, the
 * same extents are written with ostio_write_all into file A and with
 * MPI_File_write_all through an hindexed file view into file B (both
 * pre-filled alike with the sentinel); rank 0 compares A and B byte for
 * byte (and each against the expected content, so a disagreement says who is
 * wrong). The reverse: file B is read with ostio_read_all and with
 * MPI_File_read_all through a view, with the written extents dealt
 * differently and with an unrelated list inside the file, and the buffers
 * are compared.
 *
 * MPI file views need non-decreasing displacements: each rank's extents are
 * sorted by offset for the filetype, and an hindexed memory datatype picks
 * the bytes from the buffer, which stays in list order (as ostio wants it).
 *
 * OSTIO_TEST_SEED reproduces; OSTIO_COLL_CASE=k runs case k alone;
 * OSTIO_COLL_CASES=n sets the number of cases; OSTIO_COLL_VERBOSE=1 prints them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colltest.h"

static const char *const strat_name[] = {"even", "aligned", "ost", "independent", "auto"};

static int g_rank, g_np, g_case_failed;
static uint64_t g_seed;

typedef struct ocase {
  int idx;
  uint64_t seed;
  ct_params prm, prm2;     /* second write in the same open when prm2.kind >= 0 */
  int64_t pf_lo, pf_hi;
  char spec[400];
  char desc[900];
} ocase;

static void make_case(ocase *oc, int idx)
{
  tu_rng r;
  memset(oc, 0, sizeof *oc);
  oc->idx = idx;
  oc->seed = ct_mix(g_seed, (uint64_t)idx);
  tu_rng_seed(&r, oc->seed);
  static const int counts[] = {1, 2, 4, 7, 16};
  int K = counts[tu_rng_range(&r, 0, 4)];
  int64_t S = (int64_t)4096 << tu_rng_range(&r, 0, 8);
  if (tu_rng_range(&r, 0, 3) == 0) S = tu_rng_range(&r, 4096, 30000);
  ct_spec_add(oc->spec, sizeof oc->spec, "ostio_strategy", "%s", strat_name[idx % 5]);
  ct_spec_add(oc->spec, sizeof oc->spec, "striping_factor", "%d", K);
  ct_spec_add(oc->spec, sizeof oc->spec, "striping_unit", "%lld", (long long)S);
  if (tu_rng_range(&r, 0, 1)) {
    ct_spec_add(oc->spec, sizeof oc->spec, "cb_nodes", "%d", (int)tu_rng_range(&r, 1, 2 * K));
    ct_spec_add(oc->spec, sizeof oc->spec, "cb_config_list", "*:*");
  }
  if (tu_rng_range(&r, 0, 2) == 0)
    ct_spec_add(oc->spec, sizeof oc->spec, "cb_buffer_size", "%d", 16384 << tu_rng_range(&r, 0, 4));
  /* Patterns by case: random, strided, contig, random, sparse high, ... */
  static const int kinds[] = {CT_RANDOM, CT_STRIDED, CT_CONTIG, CT_RANDOM, CT_SPARSE_HIGH,
                              CT_RANDOM, CT_STRIDED};
  int kind = kinds[(idx / 5 + idx) % 7];
  int64_t span = tu_rng_range(&r, 8 << 10, g_np <= 2 ? 2 << 20 : 1 << 20);
  int64_t base = tu_rng_range(&r, 0, 1) ? 0 : tu_rng_range(&r, 1, 2 * S);
  oc->prm = ct_params_default(kind, base, span);
  oc->prm.block = span / tu_rng_range(&r, 4, 200) + 1;
  oc->prm.holes = tu_rng_range(&r, 0, 3) != 0;
  oc->prm.shuffle = 1;
  if (kind == CT_STRIDED) {
    oc->prm.block = tu_rng_range(&r, 0, 1) ? tu_rng_range(&r, 1, 100) : tu_rng_range(&r, 1, 40000);
    int64_t most = oc->prm.block * g_np * 1500;
    if (oc->prm.span > most) oc->prm.span = most;
  }
  if (kind == CT_SPARSE_HIGH) {
    oc->prm.span = span / 3 + 1;
    oc->prm.clusters = 2;
    oc->prm.gap = ((int64_t)1 << 28) + tu_rng_range(&r, 0, S);
  }
  int64_t lo = base, hi = base + oc->prm.span;
  if (kind == CT_SPARSE_HIGH) lo = ((int64_t)1 << 32) - oc->prm.span / 2, hi = lo + oc->prm.span;
  /* Mostly pre-filled over every extent: ROMIO's read-modify-write fills
   * holes past EOF with junk, so holes compare only where pre-filled. */
  int pf = (int)tu_rng_range(&r, 0, 5);
  if (pf <= 3) {
    oc->pf_lo = kind == CT_SPARSE_HIGH ? lo : tu_rng_range(&r, 0, lo);
    oc->pf_hi = hi + tu_rng_range(&r, 0, 5000);
  } else if (pf == 4) {
    oc->pf_lo = lo + (hi - lo) / 3;
    oc->pf_hi = hi - (hi - lo) / 3;
  }
  oc->prm2.kind = -1;
  if (kind != CT_SPARSE_HIGH && tu_rng_range(&r, 0, 1)) {
    oc->prm2 = ct_params_default(CT_RANDOM, lo + (hi - lo) / 4, (hi - lo) / 2 + 1);
    oc->prm2.block = oc->prm2.span / 20 + 1;
  }
  snprintf(oc->desc, sizeof oc->desc, "case %d (seed %llu): %s; pattern %s base %lld span %lld "
           "block %lld; prefill [%lld, %lld); second write %s", idx,
           (unsigned long long)oc->seed, oc->spec, ct_kind_name(kind), (long long)oc->prm.base,
           (long long)oc->prm.span, (long long)oc->prm.block, (long long)oc->pf_lo,
           (long long)oc->pf_hi, oc->prm2.kind < 0 ? "no" : "yes");
}

static int verdict(const ocase *oc, int ok, const char *what)
{
  return ct_case_check(ok, what, "test_coll_oracle", oc->desc, oc->idx, g_seed, &g_case_failed);
}

/* ---- MPI-IO through an hindexed view ---------------------------------------- */
typedef struct view {
  MPI_Datatype ftype, mtype;
  int count;             /* of mtype: 0 when the rank has no bytes */
} view;

static const ostio_extent *g_sort_ext;
static int by_offset(const void *a, const void *b)
{
  int64_t x = g_sort_ext[*(const size_t *)a].offset, y = g_sort_ext[*(const size_t *)b].offset;
  return x < y ? -1 : x > y;
}

/* Filetype: the non-empty extents by offset. Memory type: the same blocks at
 * their positions in the list-ordered buffer. */
static void make_view(const ostio_extent *ext, size_t n, view *v)
{
  size_t m = 0;
  int64_t *pos = ct_xmalloc((n + 1) * sizeof *pos);
  size_t *idx = ct_xmalloc((n + 1) * sizeof *idx);
  pos[0] = 0;
  for (size_t i = 0; i < n; i++) {
    pos[i + 1] = pos[i] + ext[i].length;
    if (ext[i].length > 0) idx[m++] = i;
  }
  g_sort_ext = ext;
  qsort(idx, m, sizeof *idx, by_offset);
  v->ftype = v->mtype = MPI_BYTE;
  v->count = 0;
  if (m) {
    int *bl = ct_xmalloc(m * sizeof *bl);
    MPI_Aint *fd = ct_xmalloc(m * sizeof *fd), *md = ct_xmalloc(m * sizeof *md);
    for (size_t j = 0; j < m; j++) {
      bl[j] = (int)ext[idx[j]].length;
      fd[j] = (MPI_Aint)ext[idx[j]].offset;
      md[j] = (MPI_Aint)pos[idx[j]];
    }
    MPI_Type_create_hindexed((int)m, bl, fd, MPI_BYTE, &v->ftype);
    MPI_Type_create_hindexed((int)m, bl, md, MPI_BYTE, &v->mtype);
    MPI_Type_commit(&v->ftype);
    MPI_Type_commit(&v->mtype);
    v->count = 1;
    free(bl);
    free(fd);
    free(md);
  }
  free(pos);
  free(idx);
}

static void free_view(view *v)
{
  if (v->count) {
    MPI_Type_free(&v->ftype);
    MPI_Type_free(&v->mtype);
  }
}

static int mpi_err(int err, const char *what)
{
  if (err == MPI_SUCCESS) return 0;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, msg, &len);
  fprintf(stderr, "rank %d: %s: %s\n", g_rank, what, msg);
  return -1;
}

/* One collective MPI-IO transfer of this rank's list through a view. */
static int romio_xfer(MPI_File fh, const ostio_extent *ext, size_t n, void *buf, int write)
{
  view v;
  MPI_Status st;
  make_view(ext, n, &v);
  int rc = mpi_err(MPI_File_set_view(fh, 0, MPI_BYTE, v.ftype, "native", MPI_INFO_NULL),
                   "MPI_File_set_view");
  if (rc == 0)
    rc = write ? mpi_err(MPI_File_write_all(fh, buf, v.count, v.mtype, &st), "MPI_File_write_all")
               : mpi_err(MPI_File_read_all(fh, buf, v.count, v.mtype, &st), "MPI_File_read_all");
  free_view(&v);
  return rc;
}

/* ---- one case ------------------------------------------------------------------- */
static int ostio_write(const ocase *oc, const char *path, const ct_pattern *p1,
                       const ct_pattern *p2)
{
  MPI_Info info;
  ostio_file *fh = NULL;
  ct_info(oc->spec, &info);
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Info_free(&info);
  if (rc == 0 && ct_prefill(MPI_COMM_WORLD, path, oc->pf_lo, oc->pf_hi) < 0) rc = OSTIO_EIO;
  for (int k = 0; k < 2 && rc == 0; k++) {
    const ct_pattern *p = k ? p2 : p1;
    if (!p) break;
    uint8_t *buf = ct_xmalloc((size_t)p->bytes[g_rank]);
    ct_fill(buf, p->ext[g_rank], p->n[g_rank], g_rank, (uint32_t)k + 1);
    rc = ostio_write_all(fh, p->ext[g_rank], p->n[g_rank], buf);
    free(buf);
  }
  if (rc != 0) fprintf(stderr, "case %d: rank %d: ostio: %s (%s)\n", oc->idx, g_rank,
                       ostio_errname(rc), ostio_last_error());
  int rc2 = fh ? ostio_close(&fh) : 0;
  if (rc2 != 0) fprintf(stderr, "case %d: rank %d: ostio_close: %s (%s)\n", oc->idx, g_rank,
                        ostio_errname(rc2), ostio_last_error());
  return verdict(oc, ct_agree(MPI_COMM_WORLD, rc == 0 && rc2 == 0), "ostio write of file A");
}

static int romio_write(const ocase *oc, const char *path, const ct_pattern *p1,
                       const ct_pattern *p2)
{
  MPI_File fh;
  int rc = ct_prefill(MPI_COMM_WORLD, path, oc->pf_lo, oc->pf_hi);
  if (rc == 0) rc = mpi_err(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                            "MPI_File_open");
  if (!ct_agree(MPI_COMM_WORLD, rc == 0)) return verdict(oc, 0, "ROMIO write of file B");
  for (int k = 0; k < 2; k++) {
    const ct_pattern *p = k ? p2 : p1;
    if (!p) break;
    uint8_t *buf = ct_xmalloc((size_t)p->bytes[g_rank]);
    ct_fill(buf, p->ext[g_rank], p->n[g_rank], g_rank, (uint32_t)k + 1);
    if (romio_xfer(fh, p->ext[g_rank], p->n[g_rank], buf, 1) < 0) rc = -1;
    free(buf);
  }
  if (mpi_err(MPI_File_close(&fh), "MPI_File_close") < 0) rc = -1;
  return verdict(oc, ct_agree(MPI_COMM_WORLD, rc == 0), "ROMIO write of file B");
}

/* Reads pattern p of file path with ostio_read_all and with ROMIO; compares. */
static void read_both(const ocase *oc, const char *path, const ct_pattern *p, const ct_expect *e,
                      const char *label)
{
  char what[160];
  size_t n = p->n[g_rank];
  int64_t nb = p->bytes[g_rank];
  uint8_t *x = ct_xmalloc((size_t)nb), *y = ct_xmalloc((size_t)nb);
  memset(x, 0x11, (size_t)nb);
  memset(y, 0x22, (size_t)nb);
  MPI_Info info;
  ostio_file *fh = NULL;
  ct_info(oc->spec, &info);
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
  MPI_Info_free(&info);
  if (rc == 0) rc = ostio_read_all(fh, p->ext[g_rank], n, x);
  if (rc != 0) fprintf(stderr, "case %d %s: rank %d: ostio: %s (%s)\n", oc->idx, label, g_rank,
                       ostio_errname(rc), ostio_last_error());
  if (fh && ostio_close(&fh) != 0) rc = -1;
  int ok[4] = {rc == 0, 0, 1, 1};  /* ostio read, ROMIO read, same bytes, as expected */

  MPI_File mf;
  rc = mpi_err(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &mf),
               "MPI_File_open");
  if (rc == 0) {  /* MPI_File_open fails on every rank or on none */
    rc = romio_xfer(mf, p->ext[g_rank], n, y, 0);
    MPI_File_close(&mf);
  }
  ok[1] = rc == 0;
  if (ok[0] && ok[1]) {
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < nb; i++)
      if (x[i] != y[i] && bad++ == 0) first = i;
    if (bad) {
      size_t k = 0;
      int64_t pos = 0;
      while (k < n && pos + p->ext[g_rank][k].length <= first) pos += p->ext[g_rank][k++].length;
      fprintf(stderr, "MISMATCH case %d %s: rank %d buffer position %lld (extent #%zu, file "
              "offset %lld): ostio read 0x%02x, ROMIO read 0x%02x; %lld bad bytes [seed %llu]\n",
              oc->idx, label, g_rank, (long long)first, k,
              (long long)(p->ext[g_rank][k].offset + first - pos), x[first], y[first],
              (long long)bad, (unsigned long long)g_seed);
    }
    ok[2] = bad == 0;
    snprintf(what, sizeof what, "case %d %s: ostio buffer vs expected", oc->idx, label);
    ok[3] = ct_check_buf(e, p->ext[g_rank], n, x, g_rank, g_seed, what) == 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, ok, 4, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  snprintf(what, sizeof what, "case %d %s: ostio_read_all", oc->idx, label);
  verdict(oc, ok[0], what);
  snprintf(what, sizeof what, "case %d %s: MPI_File_read_all", oc->idx, label);
  verdict(oc, ok[1], what);
  if (ok[0] && ok[1]) {
    snprintf(what, sizeof what, "case %d %s: ostio_read_all == MPI_File_read_all", oc->idx, label);
    verdict(oc, ok[2], what);
    snprintf(what, sizeof what, "case %d %s: ostio buffer vs expected", oc->idx, label);
    verdict(oc, ok[3], what);
  }
  free(x);
  free(y);
}

static void run_case(const ocase *oc, const char *dir)
{
  char a[700], b[700], what[160];
  ct_pattern p1, p2, q;
  ct_expect e;
  int have2 = 0;
  g_case_failed = 0;
  snprintf(a, sizeof a, "%s/a%03d", dir, oc->idx);
  snprintf(b, sizeof b, "%s/b%03d", dir, oc->idx);
  if (ct_pattern_make(&p1, oc->seed, g_np, &oc->prm) < 0) {
    verdict(oc, 0, "pattern generation");
    return;
  }
  if (oc->prm2.kind >= 0 && ct_pattern_make(&p2, ct_mix(oc->seed, 2), g_np, &oc->prm2) == 0)
    have2 = 1;
  ct_expect_init(&e, oc->pf_lo, oc->pf_hi);
  ct_expect_add(&e, &p1, 1);
  if (have2) ct_expect_add(&e, &p2, 2);

  ct_expect eo = e;  /* for file B: holes outside the pre-fill are undefined */
  eo.holes_undefined = 1;

  int ok_a = ostio_write(oc, a, &p1, have2 ? &p2 : NULL);
  int ok_b = romio_write(oc, b, &p1, have2 ? &p2 : NULL);
  if (ok_b) {  /* the oracle agrees with the generator, or the harness is wrong */
    snprintf(what, sizeof what, "case %d ROMIO file B vs expected (harness check)", oc->idx);
    verdict(oc, ct_check_file(MPI_COMM_WORLD, b, &eo, g_seed, what), what);
  }
  if (ok_a && ok_b) {
    snprintf(what, sizeof what, "case %d ostio file A == ROMIO file B", oc->idx);
    verdict(oc, ct_compare_files(MPI_COMM_WORLD, a, b, &eo, g_seed, what), what);
    snprintf(what, sizeof what, "case %d ostio file A vs expected", oc->idx);
    verdict(oc, ct_check_file(MPI_COMM_WORLD, a, &e, g_seed, what), what);
  }
  if (ok_b) {
    /* Reverse: read file B. Extents stay inside the file (ROMIO leaves
     * bytes past EOF undefined). */
    if (ct_pattern_reshuffle(&q, &p1, ct_mix(oc->seed, 5)) == 0) {
      read_both(oc, b, &q, &eo, "read of the written bytes, dealt differently");
      ct_pattern_free(&q);
    }
    int64_t size = ct_expect_size(&e);
    int64_t lo = p1.lo, hi = oc->prm.kind == CT_SPARSE_HIGH ? p1.lo + oc->prm.span : size;
    if (oc->pf_hi > oc->pf_lo && oc->pf_lo < lo) lo = oc->pf_lo;
    ct_params rp = ct_params_default(CT_RANDOM, lo, hi - lo);
    rp.block = rp.span / 40 + 1;
    if (hi > lo && ct_pattern_make(&q, ct_mix(oc->seed, 6), g_np, &rp) == 0) {
      read_both(oc, b, &q, &eo, "read of an unrelated list (holes, sentinel)");
      ct_pattern_free(&q);
    }
  }
  if (g_case_failed && g_rank == 0) {
    char d[200];
    ct_pattern_describe(&p1, d, sizeof d);
    fprintf(stderr, "  write 1: %s\n", d);
  }
  if (have2) ct_pattern_free(&p2);
  ct_pattern_free(&p1);
  if (g_rank == 0) {
    remove(a);
    remove(b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  char dir[512] = "";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_np);
  g_seed = ct_seed(MPI_COMM_WORLD, 777001);
  int first, end;
  ct_case_range(g_np <= 2 ? 15 : 5, &first, &end); /* every strategy 3 times / once */
  double t0 = MPI_Wtime();
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "colloracle") < 0) {
    MPI_Finalize();
    return 1;
  }
  int ran = 0;
  for (int i = first; i < end; i++, ran++) {
    ocase oc;
    make_case(&oc, i);
    if (g_rank == 0 && getenv("OSTIO_COLL_VERBOSE")) printf("%s\n", oc.desc);
    double tc0 = MPI_Wtime();
    run_case(&oc, dir);
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
