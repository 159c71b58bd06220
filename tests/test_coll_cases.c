/* Collective I/O cases with the coverage of ROMIO's collective tests: a 3-D
 * block-distributed array, zero-length ranks, aggregator subsets, holes at
 * file-domain edges (with and without read-modify-write), offsets past 2^32,
 * more than 2 GiB in one call (1 and 2 ranks), statistics of the ost
 * strategy, the auto rule, the independent calls, EXCL and DELETE_ON_CLOSE.
 * Every write is checked on disk with plain pread and read back with
 * ostio_read_all. OSTIO_TEST_VERBOSE=1 prints the time of each section. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ostio.h"
#include "testutil.h"

#define COMM MPI_COMM_WORLD
#define SENT 0xA5              /* sentinel byte of pre-filled holes        */
#define T_SENT 0u              /* tags: expected sentinel, expected zeros, */
#define T_ZERO 1u              /* else the data pattern of that tag        */
#define CHUNK ((int64_t)4 << 20)
#define HOLE_FULL ((int64_t)1 << 20) /* longer holes: only their edges read */
#define GIB ((int64_t)1 << 30)

static int rank, nprocs, verbose;
static char dir[512];
static uint8_t *chunk, *expbuf; /* CHUNK bytes each */

/* ---- data pattern: byte at file offset off written under tag ------------ */
static uint64_t pword(int64_t w, uint32_t tag)
{
  uint64_t x = (uint64_t)w * 0x9E3779B97F4A7C15ull ^ ((uint64_t)tag * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 29);
}
static void efill(uint8_t *b, int64_t off, int64_t len, uint32_t tag)
{
  if (tag == T_SENT || tag == T_ZERO) {
    memset(b, tag == T_SENT ? SENT : 0, (size_t)len);
    return;
  }
  int64_t i = 0; /* byte k of a word is bits 8k..8k+7 of its hash */
  for (; i < len && ((off + i) & 7); i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (uint64_t x; i + 8 <= len; i += 8) x = pword((off + i) >> 3, tag), memcpy(b + i, &x, 8);
#endif
  for (; i < len; i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
}
/* Index of the first byte of b that differs from what tag puts at off, or -1. */
static int64_t efind(const uint8_t *b, int64_t off, int64_t len, uint32_t tag)
{
  for (int64_t i = 0; i < len; i += CHUNK) {
    int64_t c = len - i < CHUNK ? len - i : CHUNK;
    efill(expbuf, off + i, c, tag);
    if (memcmp(b + i, expbuf, (size_t)c) == 0) continue;
    for (int64_t j = 0; j < c; j++)
      if (b[i + j] != expbuf[j]) return i + j;
  }
  return -1;
}
static int64_t ext_bytes(const ostio_extent *e, size_t n)
{
  int64_t b = 0;
  for (size_t i = 0; i < n; i++) b += e[i].length;
  return b;
}
/* The bytes of e[0..n) back to back (never NULL unless out of memory). */
static uint8_t *pack(const ostio_extent *e, size_t n, uint32_t tag)
{
  int64_t bytes = ext_bytes(e, n), pos = 0;
  uint8_t *b = malloc(bytes ? (size_t)bytes : 1);
  for (size_t i = 0; b && i < n; pos += e[i].length, i++) efill(b + pos, e[i].offset, e[i].length, tag);
  return b;
}
static int check_buf(const uint8_t *b, const ostio_extent *e, size_t n, uint32_t tag, const char *what)
{
  int64_t pos = 0;
  for (size_t i = 0; i < n; pos += e[i].length, i++) {
    int64_t bad = efind(b + pos, e[i].offset, e[i].length, tag);
    if (bad >= 0)
      return CHECKF(0, "%s: read_all byte at file offset %lld is 0x%02x, expected 0x%02x",
                    what, (long long)(e[i].offset + bad), b[pos + bad], expbuf[bad % CHUNK]);
  }
  return CHECK(1);
}

/* ---- files on disk ------------------------------------------------------- */
static void pathof(const char *name, char *path, size_t cap) { snprintf(path, cap, "%s/%s", dir, name); }
static int64_t pread_z(int fd, uint8_t *b, int64_t len, int64_t off) /* zeros past EOF */
{
  ssize_t r = pread(fd, b, (size_t)len, (off_t)off); /* len <= CHUNK: one call, short only at EOF */
  if (r >= 0) memset(b + r, 0, (size_t)(len - r));
  return r < 0 ? -1 : len;
}
/* Streams [off, off+len) of the file and compares it with tag's bytes. */
static int disk_expect(int fd, int64_t off, int64_t len, uint32_t tag, const char *what)
{
  for (int64_t done = 0; done < len; done += CHUNK) {
    int64_t c = len - done < CHUNK ? len - done : CHUNK;
    if (pread_z(fd, chunk, c, off + done) < 0) return CHECKF(0, "%s: pread: %s", what, strerror(errno));
    int64_t bad = efind(chunk, off + done, c, tag);
    if (bad >= 0)
      return CHECKF(0, "%s: on disk byte %lld is 0x%02x, expected 0x%02x (%s)", what,
                    (long long)(off + done + bad), chunk[bad], expbuf[bad],
                    tag == T_SENT ? "sentinel" : tag == T_ZERO ? "zero" : "data");
  }
  return CHECK(1);
}
typedef struct { int64_t off, len; } seg;
static int seg_cmp(const void *a, const void *b)
{
  return (((const seg *)a)->off > ((const seg *)b)->off) - (((const seg *)a)->off < ((const seg *)b)->off);
}
/* Rank 0: the file's bytes in [0, end): named bytes hold tag's data, holes hold
 * hole_tag (holes longer than HOLE_FULL are read at both ends only). */
static void check_file(const char *path, seg *s, size_t n, int64_t end, uint32_t tag,
                       uint32_t hole_tag, const char *what)
{
  int fd = open(path, O_RDONLY);
  if (!CHECKF(fd >= 0, "%s: open %s: %s", what, path, strerror(errno))) return;
  qsort(s, n, sizeof *s, seg_cmp);
  int64_t pos = 0;
  for (size_t i = 0; i <= n; i++) {
    int64_t next = i < n ? s[i].off : end;
    if (next - pos > HOLE_FULL) {
      disk_expect(fd, pos, 4096, hole_tag, what);
      disk_expect(fd, next - 4096, 4096, hole_tag, what);
    } else if (next > pos) {
      disk_expect(fd, pos, next - pos, hole_tag, what);
    }
    if (i == n) break;
    disk_expect(fd, s[i].off, s[i].len, tag, what);
    if (s[i].off + s[i].len > pos) pos = s[i].off + s[i].len;
  }
  close(fd);
}
/* Everyone's non-empty extents, at rank 0. */
static seg *gather_segs(const ostio_extent *e, size_t n, size_t *nout)
{
  int cnt = (int)n * 2, total = 0, *cnts = calloc((size_t)nprocs, sizeof(int)),
      *displs = calloc((size_t)nprocs, sizeof(int));
  MPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, COMM);
  for (int i = 0; i < nprocs; i++) displs[i] = total, total += cnts[i];
  int64_t *all = malloc(sizeof(int64_t) * (size_t)(total + 2));
  MPI_Gatherv(n ? (const void *)e : (const void *)all, cnt, MPI_INT64_T, all, cnts, displs, MPI_INT64_T, 0, COMM);
  seg *s = malloc(sizeof(seg) * (size_t)(total / 2 + 1));
  size_t k = 0;
  for (int i = 0; rank == 0 && i < total; i += 2)
    if (all[i + 1] > 0) s[k++] = (seg){all[i], all[i + 1]};
  *nout = k;
  free(cnts), free(displs), free(all);
  return s;
}
static void prefill(const char *path, int64_t len)
{
  int fd = open(path, O_WRONLY);
  memset(chunk, SENT, (size_t)(len < CHUNK ? len : CHUNK));
  for (int64_t d = 0; fd >= 0 && d < len; d += CHUNK)
    CHECK(pwrite(fd, chunk, (size_t)(len - d < CHUNK ? len - d : CHUNK), (off_t)d) >= 0);
  CHECK(fd >= 0 && close(fd) == 0);
}

/* ---- MPI helpers ------------------------------------------------------------ */
static double reduce_d(double v, MPI_Op op)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, op, COMM);
  return v;
}
/* rc is want on this rank and the same on every rank. */
static int expect_rc(int rc, int want, const char *what, const char *call)
{
  int v[2] = {rc, -rc}; /* one reduction: the smallest and the largest code */
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, COMM);
  int lo = v[0], hi = -v[1];
  CHECKF(lo == hi, "%s: %s returned different codes over ranks (%d..%d)", what, call, lo, hi);
  return CHECKF(rc == want, "%s: %s gave %s, expected %s (%s)", what, call, ostio_errname(rc),
                ostio_errname(want), ostio_last_error()) && lo == hi;
}
/* ostio_open of dir/name with hints "key=value;key=value"; the code must be
 * want on every rank. 1 on every rank when a handle is open everywhere. */
static int xopen(const char *name, int amode, const char *hints, ostio_file **fh, int want,
                 const char *what)
{
  char path[720], buf[512], *save = NULL;
  MPI_Info info;
  MPI_Info_create(&info);
  snprintf(buf, sizeof buf, "%s", hints ? hints : "");
  for (char *kv = strtok_r(buf, ";", &save), *eq; kv; kv = strtok_r(NULL, ";", &save))
    if ((eq = strchr(kv, '='))) *eq = 0, MPI_Info_set(info, kv, eq + 1);
  pathof(name, path, sizeof path);
  int ok = expect_rc(ostio_open(COMM, path, amode, info, fh), want, what, "ostio_open");
  MPI_Info_free(&info);
  if (!want && reduce_d(ok && *fh != NULL, MPI_MIN)) return 1;
  CHECKF(!want || !*fh, "%s: a handle after a failed open", what);
  if (*fh) ostio_close(fh);
  return 0;
}
static double stat_of(ostio_file *fh, const char *name)
{
  double v = -1;
  CHECKF(ostio_stat_get(fh, name, &v) == 0, "ostio_stat_get(%s): %s", name, ostio_last_error());
  return v;
}

/* ---- the common case: create, (prefill), write_all, check, read_all ------ */
typedef struct {
  double objects_max, aggr_calls, rounds, rmw;
  char strategy[16];
} outcome;
enum { ZERO_CALL = 1 };
static const char *section;   /* the running section, for messages */
static void wr_case(const char *hints, const ostio_extent *e, size_t n, int64_t pre,
                    const char *want, int flags, outcome *out)
{
  char path[720], file[32], what[400];
  ostio_file *fh = NULL;
  static uint32_t ncase; /* the same on every rank */
  uint32_t tag = 2 + ++ncase % 60000;
  snprintf(what, sizeof what, "%s [%s]", section, hints);
  snprintf(file, sizeof file, "case-%u", ncase); /* a new file every case */
  pathof(file, path, sizeof path);
  if (!xopen(file, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh, 0, what)) return;
  if (pre > 0 && rank == 0) prefill(path, pre);
  CHECKF(!strcmp(ostio_file_strategy(fh), "none"), "%s: strategy before any call: %s", what,
         ostio_file_strategy(fh));
  uint8_t *buf = pack(e, n, tag);
  int64_t bytes = ext_bytes(e, n), hi = 0, size = -1;
  for (size_t i = 0; i < n; i++)
    if (e[i].length > 0 && e[i].offset + e[i].length > hi) hi = e[i].offset + e[i].length;
  hi = (int64_t)reduce_d((double)(pre > hi ? pre : hi), MPI_MAX); /* also after the prefill */
  expect_rc(ostio_write_all(fh, n ? e : NULL, n, bytes ? buf : NULL), 0, what, "ostio_write_all");
  const char *st = ostio_file_strategy(fh);
  if (want) CHECKF(!strcmp(st, want), "%s: write used strategy %s, expected %s", what, st, want);
  if (out) {
    snprintf(out->strategy, sizeof out->strategy, "%s", st);
    out->objects_max = stat_of(fh, "objects_max");
    out->aggr_calls = stat_of(fh, "aggr_calls");
    out->rounds = stat_of(fh, "rounds");
    out->rmw = stat_of(fh, "rmw");
  }
  size_t ns = 0;
  seg *s = gather_segs(e, n, &ns);
  if (rank == 0) check_file(path, s, ns, hi, tag, pre > 0 ? T_SENT : T_ZERO, what);
  free(s);
  CHECKF(ostio_get_size(fh, &size) == 0 && size == hi, "%s: size %lld, expected %lld", what,
         (long long)size, (long long)hi);
  if (buf) memset(buf, 0, bytes ? (size_t)bytes : 1);
  int rc = ostio_read_all(fh, n ? e : NULL, n, bytes ? buf : NULL);
  if (expect_rc(rc, 0, what, "ostio_read_all") && buf) check_buf(buf, e, n, tag, what);
  if (want && strcmp(want, "auto"))
    CHECKF(!strcmp(ostio_file_strategy(fh), want), "%s: read used strategy %s, expected %s", what,
           ostio_file_strategy(fh), want);
  free(buf);
  if (flags & ZERO_CALL) { /* a call where no rank names anything */
    expect_rc(ostio_write_all(fh, NULL, 0, NULL), 0, what, "zero-count write_all");
    expect_rc(ostio_read_all(fh, NULL, 0, NULL), 0, what, "zero-count read_all");
    CHECKF(ostio_get_size(fh, &size) == 0 && size == hi, "%s: size %lld after zero-count calls",
           what, (long long)size);
  }
  expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  CHECK(fh == NULL);
  if (rank == 0) unlink(path);
}

static const char *const strategies[] = {"auto", "even", "aligned", "ost", "independent"};
#define NSTRAT 5
static const char *want_of(const char *s) { return strcmp(s, "auto") ? s : NULL; }
static int is_coll(const char *s) { return !strcmp(s, "even") || !strcmp(s, "aligned") || !strcmp(s, "ost"); }
/* Cyclic blocks: block i of len bytes at base + i * stride belongs to rank i % np. */
static size_t cyclic(int r, int np, int nblocks, int64_t base, int64_t stride, int64_t len, ostio_extent *e)
{
  size_t n = 0;
  for (int i = r; i < nblocks; i += np) e[n++] = (ostio_extent){base + i * stride, len};
  return n;
}

/* ---- 1. 3-D block-distributed array --------------------------------------- */
#define NX 24
#define NY 19
#define NZ 37
static void t_array3d(void)
{
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(nprocs, 3, dims);
  int c[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
  const int N[3] = {NX, NY, NZ};
  int lo[3], hi[3];
  for (int d = 0; d < 3; d++) lo[d] = c[d] * N[d] / dims[d], hi[d] = (c[d] + 1) * N[d] / dims[d];
  ostio_extent *e = malloc(sizeof *e * NX * NY);
  size_t n = 0, m = (size_t)(hi[0] - lo[0]) * (size_t)(hi[1] - lo[1]);
  for (int x = lo[0]; x < hi[0]; x++) /* one extent per row; odd ranks list them backwards */
    for (int y = lo[1]; y < hi[1]; y++, n++)
      e[rank % 2 ? m - 1 - n : n] = (ostio_extent){(((int64_t)x * NY + y) * NZ + lo[2]) * 8,
                                                   (int64_t)(hi[2] - lo[2]) * 8};
  for (int k = 0; k < 2 * NSTRAT; k++) { /* every strategy, default and 8 KiB buffers */
    const char *st = strategies[k / 2];
    char h[256];
    outcome o;
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;cb_config_list=*:*;ostio_strategy=%s%s",
             st, k % 2 ? ";cb_buffer_size=8192" : "");
    wr_case(h, e, n, 0, want_of(st), 0, &o);
    double rounds = reduce_d(o.rounds, MPI_MAX);
    CHECKF(!(k % 2) || !is_coll(st) || rounds >= 2, "array3d [%s]: %g rounds", h, rounds);
  }
  free(e);
}

/* ---- 2. zero-length ranks and extents -------------------------------------- */
static void t_zero(void)
{
  /* kind 0: data (plus zero-length extents); 1: n = 0, ext NULL; 2: only empty extents */
  int kind = rank % 3, ndata = (nprocs + 2) / 3, me = rank / 3;
  ostio_extent e[64];
  size_t n = 0;
  if (kind == 0) {
    n = cyclic(me, ndata, 24, 0, 2500, 2500, e);
    e[n++] = (ostio_extent){1250, 0};            /* inside someone's data */
    e[n++] = (ostio_extent){1000000000, 0};      /* far past the end      */
    ostio_extent t = e[0];
    e[0] = e[n - 2], e[n - 2] = t;
  } else if (kind == 2) {
    e[0] = (ostio_extent){3750, 0}, e[1] = (ostio_extent){0, 0}, e[2] = (ostio_extent){INT64_MAX / 2, 0};
    n = 3;
  }
  for (int k = 0; k < NSTRAT; k++) {
    char h[256];
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;cb_config_list=*:*;"
             "romio_cb_write=enable;ostio_strategy=%s", strategies[k]);
    wr_case(h, kind == 1 ? NULL : e, n, 0, want_of(strategies[k]), ZERO_CALL, NULL);
  }
}

/* ---- 3. aggregator subsets ------------------------------------------------- */
static void t_subsets(void)
{
  static const char *const cfg[] = {"cb_nodes=1;cb_config_list=*:*", "cb_nodes=2;cb_config_list=*:*",
                                    "cb_config_list=*:1", "cb_config_list=*:2"};
  const int naggr[] = {1, nprocs < 2 ? nprocs : 2, 1, nprocs < 2 ? nprocs : 2};
  ostio_extent e[64];
  size_t n = cyclic(rank, nprocs, 48, 11, 1777, 1777, e);
  for (int k = 0; k < 4 * NSTRAT; k++) {
    char h[256];
    outcome o;
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;romio_cb_write=enable;"
             "romio_cb_read=enable;ostio_strategy=%s;%s", strategies[k % NSTRAT], cfg[k / NSTRAT]);
    wr_case(h, e, n, 0, want_of(strategies[k % NSTRAT]), 0, &o);
    double active = reduce_d(o.aggr_calls > 0, MPI_SUM);
    CHECKF(!is_coll(o.strategy) || active == naggr[k / NSTRAT], "subsets [%s]: %g ranks aggregated, "
           "expected %d", h, active, naggr[k / NSTRAT]);
  }
}

/* ---- 4. holes at file-domain edges ------------------------------------------ */
#define H_LO 100
#define H_BLOCKS 164
#define H_PRE 170000
static int i64_cmp(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
/* Rank r's blocks of 1000 bytes (963 of data), minus 400-byte windows around
 * every stripe boundary and every boundary of an even split over nprocs. */
static size_t holes_pattern(int r, ostio_extent *e)
{
  int64_t win[128];
  int nw = 0;
  const int64_t hi = H_LO + (H_BLOCKS - 1) * 1000 + 963, dom = (hi - H_LO + nprocs - 1) / nprocs;
  for (int64_t b = 4096; b < hi - 400; b += 4096) win[nw++] = b;
  for (int k = 1; k < nprocs; k++) win[nw++] = H_LO + k * dom;
  qsort(win, (size_t)nw, sizeof win[0], i64_cmp);
  size_t n = 0;
  for (int i = r; i < H_BLOCKS; i += nprocs) {
    int64_t p = H_LO + (int64_t)i * 1000, z = p + 963;
    for (int w = 0; w < nw && p < z; w++) {
      int64_t wa = win[w] - 200, wz = win[w] + 200;
      if (wz <= p) continue;
      if (wa >= z) break;
      if (wa > p) e[n++] = (ostio_extent){p, wa - p};
      p = wz;
    }
    if (p < z) e[n++] = (ostio_extent){p, z - p};
  }
  return n;
}
static void t_holes(void)
{
  static const char *const ds[] = {"romio_ds_write=automatic", "romio_ds_write=enable",
                                   "romio_ds_write=enable;cb_buffer_size=6000", "romio_ds_write=disable"};
  static const char *const strat[] = {"even", "aligned"};
  ostio_extent *e = malloc(sizeof *e * 1024);
  size_t n = holes_pattern(rank, e);
  for (int k = 0; k < 8; k++) {
    char h[256];
    outcome o = {0};
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;cb_config_list=*:*;romio_cb_write=enable;"
             "romio_cb_read=enable;ostio_strategy=%s;%s", strat[k / 4], ds[k % 4]);
    wr_case(h, e, n, H_PRE, strat[k / 4], 0, &o);
    double rmw = reduce_d(o.rmw, MPI_SUM);
    CHECKF(k % 4 != 3 || rmw == 0, "holes [%s]: %g read-modify-writes although disabled", h, rmw);
  }
  free(e);
}

/* ---- 5. offsets past 2^31 and 2^32 (sparse file) ---------------------------- */
static void t_far(void)
{
  const int64_t base[3] = {((int64_t)1 << 31) - 3000, ((int64_t)1 << 32) - 3000,
                           ((int64_t)1 << 32) + 7 * ((int64_t)1 << 20) + 123};
  ostio_extent e[16];
  size_t n = 0;
  for (int b = 2; b >= 0; b--) n += cyclic(rank, nprocs, 2 * nprocs, base[b], 1024, 1000, e + n);
  for (int k = 0; k < NSTRAT; k++) {
    char h[256];
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=1m;cb_config_list=*:*;ostio_strategy=%s",
             strategies[k]);
    wr_case(h, e, n, 0, want_of(strategies[k]), 0, NULL);
  }
}

/* ---- 6. more than 2 GiB in one call (1 and 2 ranks only) ----------------- */
static void t_big(void)
{
  const char *what = "2 GiB + 12345 bytes in one write_all";
  const ostio_extent big[3] = {{GIB + 100, GIB}, {0, GIB}, {2 * GIB + 200, 12345}};
  const int64_t total = 2 * GIB + 12345, end = 2 * GIB + 200 + 12345;
  char path[720];
  ostio_file *fh = NULL;
  int writer = rank == nprocs - 1;
  uint8_t *buf = writer ? pack(big, 3, 77) : NULL;
  CHECKF(!writer || buf, "%s: no memory for the buffer", what);
  size_t n = buf ? 3 : 0;
  pathof("big", path, sizeof path);
  if (!xopen("big", MPI_MODE_CREATE | MPI_MODE_RDWR,
             "striping_factor=4;striping_unit=1m;cb_config_list=*:*;ostio_strategy=ost", &fh, 0, what)) {
    free(buf);
    return;
  }
  int rc = ostio_write_all(fh, n ? big : NULL, n, buf);
  expect_rc(rc, 0, what, "ostio_write_all");
  CHECKF(!strcmp(ostio_file_strategy(fh), "ost"), "%s: strategy %s", what, ostio_file_strategy(fh));
  if (buf) { /* stream the file back and compare with the buffer */
    int fd = open(path, O_RDONLY);
    int64_t pos = 0, bad = -1;
    for (int i = 0; fd >= 0 && i < 3 && bad < 0; pos += big[i].length, i++)
      for (int64_t d = 0; d < big[i].length && bad < 0; d += CHUNK) {
        int64_t c = big[i].length - d < CHUNK ? big[i].length - d : CHUNK;
        if (pread_z(fd, chunk, c, big[i].offset + d) < 0 || memcmp(chunk, buf + pos + d, (size_t)c))
          bad = big[i].offset + d;
      }
    CHECKF(fd >= 0 && bad < 0, "%s: on disk the 4 MiB from %lld differ", what, (long long)bad);
    if (fd >= 0) {
      disk_expect(fd, GIB, 100, T_ZERO, what);
      disk_expect(fd, 2 * GIB + 100, 100, T_ZERO, what);
      close(fd);
    }
    struct stat sb;
    CHECKF(stat(path, &sb) == 0 && sb.st_size == end, "%s: size %lld", what, (long long)sb.st_size);
    memset(buf, 0, (size_t)total);
  }
  rc = ostio_read_all(fh, n ? big : NULL, n, buf);
  if (expect_rc(rc, 0, what, "ostio_read_all") && buf) check_buf(buf, big, 3, 77, what);
  free(buf);
  expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  if (rank == 0) unlink(path);
}

/* ---- 7. statistics: ost gives one object per aggregator, even does not ---- */
static void t_stats(void)
{
  ostio_extent e[64];
  size_t n = cyclic(rank, nprocs, 8 * nprocs, 0, 3000, 3000, e);
  for (int k = 0; k < (nprocs > 1 ? 2 : 1); k++) { /* ost, then even */
    char h[256];
    outcome o;
    snprintf(h, sizeof h, "striping_factor=%d;striping_unit=4096;cb_nodes=%d;cb_config_list=*:*;"
             "ostio_strategy=%s", nprocs, nprocs, k ? "even" : "ost");
    wr_case(h, e, n, 0, k ? "even" : "ost", 0, &o);
    double omax = reduce_d(o.objects_max, MPI_MAX), omin = reduce_d(o.objects_max, MPI_MIN);
    double amin = reduce_d(o.aggr_calls, MPI_MIN);
    CHECKF(k || (omin == 1 && omax == 1), "stats [%s]: objects_max %g..%g, expected 1", h, omin, omax);
    CHECKF(k || amin >= 1, "stats [%s]: a rank has aggr_calls %g", h, amin);
    CHECKF(!k || omax > 1, "stats [%s]: objects_max %g, expected more than 1", h, omax);
  }
}

/* ---- 8. the auto rule ------------------------------------------------------- */
static void t_auto(void)
{
  const char *hints = "striping_factor=4;striping_unit=4096;cb_config_list=*:*";
  ostio_extent e[64] = {{(int64_t)rank * 10000, 10000}};
  outcome o;
  wr_case(hints, e, 1, 0, NULL, 0, &o);
  CHECKF(!strcmp(o.strategy, "independent"), "auto, contiguous per rank: chose %s", o.strategy);
  if (nprocs < 2) return;
  size_t n = cyclic(rank, nprocs, 40, 0, 1000, 1000, e);
  wr_case(hints, e, n, 0, NULL, 0, &o);
  CHECKF(is_coll(o.strategy), "auto, interleaved: chose %s", o.strategy);
}

/* ---- 9. independent calls, sizes, sync ---------------------------------------- */
static void t_basic(void)
{
  const char *what = "independent calls";
  char path[720];
  ostio_file *fh = NULL;
  uint8_t b[1200];
  int64_t size = -1, want = (int64_t)(nprocs - 1) * 1000 + 805, me = (int64_t)rank * 1000 + 5;
  int64_t peer = (int64_t)((rank + 1) % nprocs) * 1000 + 5;
  struct stat sb;
  pathof("basic", path, sizeof path);
  if (!xopen("basic", MPI_MODE_CREATE | MPI_MODE_RDWR, "striping_factor=3;striping_unit=8192", &fh, 0, what))
    return;
  const ostio_layout *l = ostio_file_layout(fh);
  ostio_layout_component c = {0};
  CHECKF(l && ostio_layout_get_component(l, 0, &c) == 0 && c.stripe_count == 3 && c.stripe_size == 8192,
         "%s: new file layout %d x %lld, expected 3 x 8192", what, c.stripe_count, (long long)c.stripe_size);
  efill(b, me, 800, 9);
  CHECK(ostio_write_at(fh, me, b, 800) == 0);
  expect_rc(ostio_sync(fh), 0, what, "ostio_sync"); /* also a barrier */
  CHECKF(ostio_get_size(fh, &size) == 0 && size == want, "%s: size %lld", what, (long long)size);
  memset(b, 0, sizeof b);
  CHECK(ostio_read_at(fh, peer, b, 800) == 0 && efind(b, peer, 800, 9) < 0);
  CHECK(ostio_read_at(fh, want - 100, b, 300) == 0 && efind(b, want - 100, 100, 9) < 0 &&
        efind(b + 100, want, 200, T_ZERO) < 0);                      /* zeros past EOF */
  for (int k = 0; k < 2; k++) { /* extend (zeros), then truncate */
    int64_t sz = k ? 300 : 50000;
    MPI_Barrier(COMM); /* everyone's reads are done */
    expect_rc(ostio_set_size(fh, sz), 0, what, "ostio_set_size");
    CHECKF(ostio_get_size(fh, &size) == 0 && size == sz && stat(path, &sb) == 0 && sb.st_size == sz,
           "%s: size %lld (stat %lld) after set_size(%lld)", what, (long long)size,
           (long long)sb.st_size, (long long)sz);
    memset(b, 1, sizeof b);
    CHECK(ostio_read_at(fh, k ? 0 : 40000, b, k ? 400 : 1000) == 0);
    CHECK(k ? efind(b, 0, 5, T_ZERO) < 0 && efind(b + 5, 5, 295, 9) < 0 && efind(b + 300, 300, 100, T_ZERO) < 0
            : efind(b, 40000, 1000, T_ZERO) < 0);
  }
  expect_rc(ostio_set_size(fh, -1), OSTIO_EINVAL, what, "ostio_set_size(-1)");
  CHECK(ostio_write_at(fh, -1, b, 10) == OSTIO_EINVAL);
  CHECK(ostio_read_at(fh, 0, NULL, 10) == OSTIO_EINVAL);
  expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  if (rank == 0) unlink(path);
}

/* ---- 10. MPI_MODE_EXCL and MPI_MODE_DELETE_ON_CLOSE -------------------------- */
static void t_modes(void)
{
  const char *what = "EXCL / DELETE_ON_CLOSE";
  const int rw = MPI_MODE_RDWR, cx = MPI_MODE_CREATE | MPI_MODE_EXCL;
  char path[720];
  ostio_file *fh = NULL;
  pathof("modes", path, sizeof path);
  if (xopen("modes", cx | rw, NULL, &fh, 0, "EXCL of a new file")) ostio_close(&fh);
  xopen("modes", cx | rw, NULL, &fh, OSTIO_EEXIST, "EXCL of an existing file");
  CHECKF(ostio_last_error()[0], "%s: no detail after EEXIST", what);
  xopen("missing", MPI_MODE_RDONLY, NULL, &fh, OSTIO_ENOENT, "RDONLY of a missing file");
  if (xopen("modes", rw | MPI_MODE_DELETE_ON_CLOSE, NULL, &fh, 0, what)) {
    ostio_extent e = {(int64_t)rank * 100, 100};
    uint8_t b[100];
    efill(b, e.offset, 100, 5);
    expect_rc(ostio_write_all(fh, &e, 1, b), 0, what, "ostio_write_all");
    expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  }
  MPI_Barrier(COMM);
  CHECKF(access(path, F_OK) != 0 && errno == ENOENT, "%s: the file is still there after close", what);
}

static void on_alarm(int sig)
{
  static const char m[] = "test_coll_cases: no progress for 280 s (a hang?)\n";
  (void)sig;
  if (write(2, m, sizeof m - 1)) {}
  _exit(3);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &nprocs);
  verbose = getenv("OSTIO_TEST_VERBOSE") && *getenv("OSTIO_TEST_VERBOSE");
  unsetenv("OSTIO_HINTS"); /* the cases choose their hints themselves */
  unsetenv("OSTIO_FAULT");
  chunk = malloc((size_t)CHUNK);
  expbuf = malloc((size_t)CHUNK);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "collcases") < 0) perror("mkdtemp");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, COMM);
  signal(SIGALRM, on_alarm);
  static const struct { const char *name; void (*fn)(void); int maxnp; } sec[] = {
    {"array3d", t_array3d, 64}, {"zero", t_zero, 64}, {"subsets", t_subsets, 64},
    {"holes", t_holes, 64}, {"far", t_far, 64}, {"big", t_big, 2}, {"stats", t_stats, 64},
    {"auto", t_auto, 64}, {"basic", t_basic, 64}, {"modes", t_modes, 64}};
  const char *only = getenv("OSTIO_TEST_ONLY");
  for (size_t i = 0; i < sizeof sec / sizeof sec[0]; i++) {
    if (nprocs > sec[i].maxnp || (only && *only && !strstr(only, sec[i].name))) continue;
    double t0 = MPI_Wtime();
    section = sec[i].name;
    alarm(280);
    sec[i].fn();
    if (verbose && rank == 0) fprintf(stderr, "# %-8s %6.2f s\n", sec[i].name, MPI_Wtime() - t0);
  }
  alarm(0);
  MPI_Barrier(COMM);
  if (rank == 0) tu_rmtree(dir);
  free(chunk), free(expbuf);
  long bad = tu_failed, allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, COMM);
  int status = 0;
  if (rank == 0) {
    printf("ranks %d: ", nprocs);
    tu_failed = allbad;
    status = TEST_DONE();
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, COMM);
  MPI_Finalize();
  return status;
}
