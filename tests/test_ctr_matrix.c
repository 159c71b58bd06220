/* Striped containers through ostio_open, every strategy x K in {1,2,3,4,7}:
 * the same two collective writes (block-cyclic blocks of an odd size, then
 * random extents with holes) go to a container and to a plain file; the
 * flattened container (ostio__flatten, as the CLI runs it) must equal the
 * plain file byte for byte; read_all from the container returns the right
 * bytes; rank 0 alone (a communicator of another size) reads it all back;
 * get_size agrees. `--subset` runs ost and even with K 3 and 4 only (the
 * np 4 / np 8 entries). */
#include <stdlib.h>
#include <string.h>

#include "colltest.h"
#include "file/flatten.h"

#define S 65536
static int rank, nprocs;
static const char *const strategies[] = {"even", "aligned", "ost", "independent", "auto"};
static const int ks[] = {1, 2, 3, 4, 7};

static int open_with(MPI_Comm comm, const char *path, int amode, const char *spec,
                     ostio_file **fh)
{
  MPI_Info info;
  ct_info(spec, &info);
  int rc = ostio_open(comm, path, amode, info, fh);
  MPI_Info_free(&info);
  return rc;
}

static int write_patterns(ostio_file *fh, ct_pattern *p, int np)
{
  int rc = 0;
  for (int c = 0; c < np && rc == 0; c++) {
    uint8_t *buf = ct_xmalloc((size_t)p[c].bytes[rank]);
    ct_fill(buf, p[c].ext[rank], p[c].n[rank], rank, (uint32_t)c + 1);
    rc = ostio_write_all(fh, p[c].ext[rank], p[c].n[rank], buf);
    free(buf);
  }
  return rc;
}

static void one_case(const char *dir, const char *strat, int k, uint64_t seed, int idx)
{
  char ctr[600], plain[600], flat[600], spec[512], what[128];
  snprintf(ctr, sizeof ctr, "%s/c%d", dir, idx);
  snprintf(plain, sizeof plain, "%s/p%d", dir, idx);
  snprintf(flat, sizeof flat, "%s/f%d", dir, idx);
  snprintf(what, sizeof what, "%s K=%d np=%d", strat, k, nprocs);
  int64_t span = (int64_t)k * S * 3 + 12345;
  ct_params a = ct_params_default(CT_STRIDED, 777, span - 777);
  a.block = 47008; /* odd: pieces cross stripe boundaries everywhere */
  a.span = (span - 777) / (47008 * nprocs) * (47008 * nprocs);
  ct_params b = ct_params_default(CT_RANDOM, 5000, span);
  b.block = 3 * S / 2;
  ct_pattern p[2];
  ct_pattern_make(&p[0], ct_mix(seed, (uint64_t)idx), nprocs, &a);
  ct_pattern_make(&p[1], ct_mix(seed, (uint64_t)idx + 1000), nprocs, &b);
  ct_expect e;
  ct_expect_init(&e, 0, 0);
  ct_expect_add(&e, &p[0], 1);
  ct_expect_add(&e, &p[1], 2);
  int64_t size = ct_expect_size(&e);

  ostio_file *fh = NULL;
  snprintf(spec, sizeof spec, "ostio_container=striped ostio_objects=%d striping_unit=%d "
           "ostio_strategy=%s cb_config_list=*:* cb_buffer_size=262144", k, S, strat);
  int rc = open_with(MPI_COMM_WORLD, ctr, MPI_MODE_CREATE | MPI_MODE_RDWR, spec, &fh);
  CHECKF(rc == 0, "%s: open container: %s", what, ostio_last_error());
  if (rc < 0) goto done;
  const ostio_layout *l = ostio_file_layout(fh);
  ostio_layout_component c0;
  ostio_layout_get_component(l, 0, &c0);
  CHECKF(!strcmp(ostio_layout_source(l), "container") && c0.stripe_count == k &&
         c0.stripe_size == S && c0.osts && c0.osts[k - 1] == k - 1, "%s: layout", what);
  CHECKF(write_patterns(fh, p, 2) == 0, "%s: write: %s", what, ostio_last_error());
  /* read_all of pattern b's bytes, dealt differently over the ranks */
  ct_pattern re;
  ct_pattern_reshuffle(&re, &p[1], ct_mix(seed, 77));
  uint8_t *rb = ct_xmalloc((size_t)re.bytes[rank]);
  CHECK(ostio_read_all(fh, re.ext[rank], re.n[rank], rb) == 0);
  CHECKF(ct_check_buf(&e, re.ext[rank], re.n[rank], rb, rank, seed, what) == 0, "%s: read_all",
         what);
  free(rb);
  ct_pattern_free(&re);
  int64_t got = -1;
  CHECKF(ostio_get_size(fh, &got) == 0 && got == size, "%s: size %lld, want %lld", what,
         (long long)got, (long long)size);
  CHECK(ostio_close(&fh) == 0);

  /* The same writes to a plain file striped alike. */
  snprintf(spec, sizeof spec, "striping_factor=%d striping_unit=%d ostio_strategy=%s "
           "cb_config_list=*:* cb_buffer_size=262144", k, S, strat);
  CHECK(open_with(MPI_COMM_WORLD, plain, MPI_MODE_CREATE | MPI_MODE_WRONLY, spec, &fh) == 0);
  CHECK(write_patterns(fh, p, 2) == 0);
  CHECK(ostio_close(&fh) == 0);
  CHECK(ct_check_file(MPI_COMM_WORLD, plain, &e, seed, what));

  /* Flatten (small chunks: several rounds) and compare with the plain file. */
  CHECKF(ostio__flatten(MPI_COMM_WORLD, ctr, flat, MPI_INFO_NULL, 3 * S, NULL, NULL) == 0,
         "%s: flatten: %s", what, ostio_last_error());
  CHECKF(ct_compare_files(MPI_COMM_WORLD, flat, plain, &e, seed, what), "%s: flat != plain",
         what);

  /* Another rank count: rank 0 alone reads the whole container. */
  if (rank == 0) {
    ostio_file *one = NULL;
    uint8_t *all = ct_xmalloc((size_t)size), *want = ct_xmalloc((size_t)size);
    ostio_extent whole = {0, size};
    rc = ostio_open(MPI_COMM_SELF, ctr, MPI_MODE_RDONLY, MPI_INFO_NULL, &one);
    CHECKF(rc == 0, "%s: open on MPI_COMM_SELF: %s", what, ostio_last_error());
    if (rc == 0) {
      CHECK(ostio_read_all(one, &whole, 1, all) == 0);
      ct_expect_fill(&e, 0, size, want);
      CHECKF(!memcmp(all, want, (size_t)size), "%s: read back by one rank", what);
      CHECK(ostio_close(&one) == 0);
    }
    free(all);
    free(want);
  }
  MPI_Barrier(MPI_COMM_WORLD);
done:
  ct_pattern_free(&p[0]);
  ct_pattern_free(&p[1]);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int subset = argc > 1 && !strcmp(argv[1], "--subset");
  uint64_t seed = ct_seed(MPI_COMM_WORLD, 5007);
  char dir[512];
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "ctrmx") < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int idx = 0;
  for (int s = 0; s < 5; s++)
    for (int i = 0; i < 5; i++, idx++) {
      if (subset && !((s == 0 || s == 2) && (ks[i] == 3 || ks[i] == 4))) continue;
      one_case(dir, strategies[s], ks[i], seed, idx);
    }
  ct_rmtree(MPI_COMM_WORLD, dir);
  int status = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return status;
}
