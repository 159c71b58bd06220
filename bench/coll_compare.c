/* ostio_bench_coll: one interleaved collective pattern written and read
 * with each ostio strategy and with MPICH's MPI_File_write_all /
 * MPI_File_read_all (ROMIO) through an hindexed file view, in the same run,
 * on the same file layout. Prints best-of-N times, bandwidths and the
 * ratio to ROMIO, and checks that every variant leaves identical bytes.
 * The strategies are those of the library's registry that run (auto, which
 * picks one of them per call, is left out), in the registry's order.
 * The fuller IOR-style benchmark is issue 4; this one backs the figures in
 * docs/collective.md.
 *
 *   mpiexec -n 2 ostio_bench_coll [--dir D] [--block B] [--blocks N]
 *       [--stripe-count K] [--stripe-size S] [--cb-buffer-size C] [--reps R]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/strategy.h"
#include "ostio.h"

/* romio, then every registered strategy that runs. */
enum { NV_MAX = 1 + OSTIO__STATS_NSTRAT };
static const char *variants[NV_MAX];
static int nvariants;

static void list_variants(void)
{
  variants[nvariants++] = "romio";
  for (int i = 0; i < ostio__strategy_count() && nvariants < NV_MAX; i++) {
    const ostio__strategy *s = ostio__strategy_at(i);
    if (s && !s->choose) variants[nvariants++] = s->name;
  }
}

static int is_variant(const char *v)
{
  for (int i = 0; i < nvariants; i++)
    if (!strcmp(v, variants[i])) return 1;
  return 0;
}

/* "romio|even|..." or "even, ... and independent" (from variant `from`) into buf. */
static const char *variant_list(char *buf, size_t cap, int from, const char *sep,
                                const char *last)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int i = from; i < nvariants; i++) {
    int w = snprintf(buf + len, cap - len, "%s%s", i == from ? "" : i + 1 == nvariants ? last : sep,
                     variants[i]);
    if (w < 0 || (size_t)w >= cap - len) break;
    len += (size_t)w;
  }
  return buf;
}

typedef struct opts {
  const char *dir, *only;
  long long block, blocks, stripe_size, cb;
  int stripe_count, reps;
} opts;

static int usage(int rank, const char *why)
{
  char bar[256], list[256];
  if (rank == 0) {
    if (why) fprintf(stderr, "ostio_bench_coll: %s\n", why);
    fprintf(why ? stderr : stdout,
            "usage: mpiexec -n P ostio_bench_coll [--dir D] [--block BYTES] [--blocks N]\n"
            "         [--stripe-count K] [--stripe-size BYTES] [--cb-buffer-size BYTES] "
            "[--reps R]\n"
            "         [--only %s]\n"
            "Each rank writes N blocks of BYTES, block i of rank r at (i*P + r)*BYTES\n"
            "(interleaved), with ROMIO's MPI_File_write_all (romio) and the strategies\n"
            "%s, then reads them back the same ways.\n"
            "Defaults: --dir /tmp --block 65536 --blocks 512 --stripe-count 4\n"
            "          --stripe-size 1048576 --cb-buffer-size 16777216 --reps 3\n",
            variant_list(bar, sizeof bar, 0, "|", "|"),
            variant_list(list, sizeof list, 1, ", ", " and "));
  }
  return why ? 2 : 0;
}

static int parse(int argc, char **argv, int rank, opts *o)
{
  *o = (opts){"/tmp", NULL, 65536, 512, 1 << 20, 16 << 20, 4, 3};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(rank, NULL) - 1;
    if (i + 1 >= argc) return usage(rank, "every option takes a value");
    const char *v = argv[++i];
    char *end;
    long long n = strtoll(v, &end, 10);
    if (!strcmp(a, "--dir")) { o->dir = v; continue; }
    if (!strcmp(a, "--only")) {
      char list[256], why[300];
      o->only = v;
      snprintf(why, sizeof why, "--only takes %s", variant_list(list, sizeof list, 0, ", ", " or "));
      if (!is_variant(v)) return usage(rank, why);
      continue;
    }
    if (*end || n <= 0) return usage(rank, "values must be positive integers");
    if (!strcmp(a, "--block")) o->block = n;
    else if (!strcmp(a, "--blocks")) o->blocks = n;
    else if (!strcmp(a, "--stripe-count")) o->stripe_count = (int)n;
    else if (!strcmp(a, "--stripe-size")) o->stripe_size = n;
    else if (!strcmp(a, "--cb-buffer-size")) o->cb = n;
    else if (!strcmp(a, "--reps")) o->reps = (int)n;
    else return usage(rank, "unknown option");
  }
  return 1;
}

static MPI_Info make_info(const opts *o, const char *strategy)
{
  MPI_Info info;
  char v[32];
  MPI_Info_create(&info);
  snprintf(v, sizeof v, "%d", o->stripe_count);
  MPI_Info_set(info, "striping_factor", v);
  snprintf(v, sizeof v, "%lld", o->stripe_size);
  MPI_Info_set(info, "striping_unit", v);
  MPI_Info_set(info, "start_iodevice", "0"); /* emulated layouts then list OSTs 0..K-1 */
  snprintf(v, sizeof v, "%lld", o->cb);
  MPI_Info_set(info, "cb_buffer_size", v);
  /* Same aggregator count for ROMIO as ostio's default. */
  snprintf(v, sizeof v, "%d", o->stripe_count);
  MPI_Info_set(info, "cb_nodes", v);
  if (strategy) MPI_Info_set(info, "ostio_strategy", strategy);
  else MPI_Info_set(info, "romio_cb_write", "enable"), MPI_Info_set(info, "romio_cb_read", "enable");
  return info;
}

/* Seconds for one write (or read) of the pattern with strategy s (NULL: ROMIO). */
static double run(const opts *o, const char *path, const char *s, int write, char *buf,
                  const ostio_extent *ext, MPI_Datatype ftype, int *bad)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info info = make_info(o, s);
  size_t bytes = (size_t)(o->block * o->blocks);
  double t0 = 0, t = 0;
  if (s) {
    ostio_file *fh;
    int rc = ostio_open(MPI_COMM_WORLD, path, write ? MPI_MODE_CREATE | MPI_MODE_WRONLY
                        : MPI_MODE_RDONLY, info, &fh);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (rc == 0) rc = write ? ostio_write_all(fh, ext, (size_t)o->blocks, buf)
                            : ostio_read_all(fh, ext, (size_t)o->blocks, buf);
    t = MPI_Wtime() - t0;
    if (rc == 0) rc = ostio_close(&fh);
    if (rc) *bad = 1, fprintf(stderr, "rank %d %s: %s\n", rank, s, ostio_last_error());
  } else {
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, write ? MPI_MODE_CREATE | MPI_MODE_WRONLY
                           : MPI_MODE_RDONLY, info, &fh);
    if (rc == MPI_SUCCESS) rc = MPI_File_set_view(fh, 0, MPI_BYTE, ftype, "native", info);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (rc == MPI_SUCCESS)
      rc = write ? MPI_File_write_all(fh, buf, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE)
                 : MPI_File_read_all(fh, buf, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE);
    t = MPI_Wtime() - t0;
    MPI_File_close(&fh);
    if (rc != MPI_SUCCESS) *bad = 1, fprintf(stderr, "rank %d ROMIO failed\n", rank);
  }
  MPI_Info_free(&info);
  double tmax;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return tmax;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  opts o;
  list_variants();
  int p = parse(argc, argv, rank, &o);
  if (p != 1) { /* -1: --help; 2: a usage error */
    MPI_Finalize();
    return p < 0 ? 0 : 2;
  }
  size_t bytes = (size_t)(o.block * o.blocks);
  char *buf = malloc(bytes), *rbuf = malloc(bytes);
  ostio_extent *ext = malloc((size_t)o.blocks * sizeof *ext);
  MPI_Aint *disp = malloc((size_t)o.blocks * sizeof *disp);
  int *len = malloc((size_t)o.blocks * sizeof *len);
  for (long long i = 0; i < o.blocks; i++) {
    ext[i] = (ostio_extent){(i * np + rank) * o.block, o.block};
    disp[i] = (MPI_Aint)ext[i].offset;
    len[i] = (int)o.block;
  }
  for (size_t i = 0; i < bytes; i++) buf[i] = (char)(i * 131 + (size_t)rank * 7 + 1);
  MPI_Datatype ftype;
  MPI_Type_create_hindexed((int)o.blocks, len, disp, MPI_BYTE, &ftype);
  MPI_Type_commit(&ftype);
  const char *const *names = variants;
  const int NV = nvariants;
  double best[2][NV_MAX];
  char path[NV_MAX][512];
  int ran = 0;
  for (int v = 0; v < NV; v++) {
    snprintf(path[v], sizeof path[v], "%s/ostio_bench_coll.%s", o.dir, names[v]);
    best[0][v] = best[1][v] = 0;
    if (o.only && strcmp(o.only, names[v]) != 0) continue;
    ran++;
    for (int w = 1; w >= 0; w--) {
      best[w][v] = 1e30;
      for (int r = 0; r < o.reps; r++) {
        if (w && rank == 0) unlink(path[v]);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = run(&o, path[v], v ? names[v] : NULL, w, w ? buf : rbuf, ext, ftype, &bad);
        if (t < best[w][v]) best[w][v] = t;
      }
      if (!w && memcmp(rbuf, buf, bytes) != 0) {
        bad = 1;
        fprintf(stderr, "rank %d: %s read back different bytes\n", rank, names[v]);
      }
    }
  }
  /* Every variant must leave the same file. */
  if (rank == 0) {
    for (int v = 1; v < NV && ran == NV; v++) {
      char cmd[1200];
      snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", path[0], path[v]);
      if (system(cmd) != 0) bad = 1, fprintf(stderr, "%s differs from romio's file\n", names[v]);
    }
    double mib = (double)bytes * np / (1 << 20);
    printf("pattern: %d ranks x %lld blocks of %lld B interleaved (%.1f MiB), layout %d x %lld, "
           "cb_buffer_size %lld, cb_nodes %d, best of %d\n", np, o.blocks, o.block, mib,
           o.stripe_count, o.stripe_size, o.cb, o.stripe_count, o.reps);
    printf("%-12s %10s %10s %9s %10s %10s %9s\n", "variant", "write s", "MiB/s", "vs romio",
           "read s", "MiB/s", "vs romio");
    for (int v = 0; v < NV; v++)
      if (best[1][v] > 0 && best[1][0] > 0) printf("%-12s %10.4f %10.1f %8.2fx %10.4f %10.1f %8.2fx\n", names[v], best[1][v],
             mib / best[1][v], best[1][0] / best[1][v], best[0][v], mib / best[0][v],
             best[0][0] / best[0][v]);
    if (ran == NV) printf("files identical: %s\n", bad ? "NO" : "yes");
    for (int v = 0; v < NV; v++) unlink(path[v]);
  }
  MPI_Type_free(&ftype);
  free(buf); free(rbuf); free(ext); free(disp); free(len);
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return bad;
}
