/* Helpers shared by test_coll_cases*.c, test_coll_faults.c and
 * test_coll_errors.c. See collcase.h. */
#include "collcase.h"
#include "colltest.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COMM MPI_COMM_WORLD
#define HOLE_FULL ((int64_t)1 << 20) /* longer holes: only their edges read */
#define CMP_CHUNK 65536              /* cc_find compares this much at once */

static int rank, nprocs;
static const char *prog = "", *tmpdir_;
static const char *section;          /* the running section, for messages */
static uint8_t *chunk;               /* CC_CHUNK bytes, in cc_run_sections */

/* ---- data pattern: byte at file offset off written under tag ------------ */
static uint64_t pword(int64_t w, uint32_t tag)
{
  uint64_t x = (uint64_t)w * 0x9E3779B97F4A7C15ull ^ ((uint64_t)tag * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 29);
}
void cc_fill(uint8_t *b, int64_t off, int64_t len, uint32_t tag)
{
  if (tag <= CC_T_ANY) {
    memset(b, tag == CC_T_SENT ? CT_SENTINEL : 0, (size_t)len);
    return;
  }
  int64_t i = 0; /* byte k of a word is bits 8k..8k+7 of its hash */
  for (; i < len && ((off + i) & 7); i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (uint64_t x; i + 8 <= len; i += 8) x = pword((off + i) >> 3, tag), memcpy(b + i, &x, 8);
#endif
  for (; i < len; i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
}
uint8_t cc_byte(int64_t off, uint32_t tag)
{
  uint8_t b;
  cc_fill(&b, off, 1, tag);
  return b;
}
int64_t cc_find(const uint8_t *b, int64_t off, int64_t len, uint32_t tag)
{
  uint8_t want[CMP_CHUNK];
  if (tag == CC_T_ANY) return -1;
  for (int64_t i = 0; i < len; i += CMP_CHUNK) {
    int64_t c = len - i < CMP_CHUNK ? len - i : CMP_CHUNK;
    cc_fill(want, off + i, c, tag);
    if (memcmp(b + i, want, (size_t)c) == 0) continue;
    for (int64_t j = 0; j < c; j++)
      if (b[i + j] != want[j]) return i + j;
  }
  return -1;
}
int64_t cc_ext_bytes(const ostio_extent *e, size_t n)
{
  int64_t b = 0;
  for (size_t i = 0; i < n; i++) b += e[i].length;
  return b;
}
void cc_fill_ext(uint8_t *b, const ostio_extent *e, size_t n, uint32_t tag)
{
  int64_t pos = 0;
  for (size_t i = 0; i < n; pos += e[i].length, i++) cc_fill(b + pos, e[i].offset, e[i].length, tag);
}
uint8_t *cc_pack(const ostio_extent *e, size_t n, uint32_t tag)
{
  int64_t bytes = cc_ext_bytes(e, n);
  uint8_t *b = malloc(bytes ? (size_t)bytes : 1);
  if (b) cc_fill_ext(b, e, n, tag);
  return b;
}
void cc_check_each(const uint8_t *buf, const ostio_extent *e, size_t n, uint32_t tag,
                   const char *name, const char *label)
{
  int64_t pos = 0;
  for (size_t i = 0; i < n; pos += e[i].length, i++)
    CHECKF(cc_find(buf + pos, e[i].offset, e[i].length, tag) < 0, "%s: %s at %lld", name, label,
           (long long)e[i].offset);
}
size_t cc_cyclic(int r, int np, int nblocks, int64_t base, int64_t stride, int64_t len, ostio_extent *e)
{
  size_t n = 0;
  for (int i = r; i < nblocks; i += np) e[n++] = (ostio_extent){base + i * stride, len};
  return n;
}

/* ---- agreement over ranks ------------------------------------------------ */
double cc_reduce_d(double v, MPI_Op op)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, op, COMM);
  return v;
}
int cc_expect_rc(int rc, int want, const char *what, const char *call)
{
  int v[2] = {rc, -rc}; /* one reduction: the smallest and the largest code */
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, COMM);
  int lo = v[0], hi = -v[1];
  CHECKF(lo == hi, "%s: %s returned different codes over ranks (%s..%s)", what, call,
         ostio_errname(lo), ostio_errname(hi));
  return CHECKF(rc == want, "%s: %s gave %s, expected %s (%s)", what, call, ostio_errname(rc),
                ostio_errname(want), ostio_last_error()) && lo == hi;
}
int cc_open(const char *path, int amode, MPI_Info info, ostio_file **fh, int want, const char *what)
{
  int ok = cc_expect_rc(ostio_open(COMM, path, amode, info, fh), want, what, "ostio_open");
  if (!want && ct_agree(COMM, ok && *fh != NULL)) return 1;
  if (want) CHECKF(!*fh, "%s: a handle after a failed open", what);
  if (*fh) ostio_close(fh);
  return 0;
}
MPI_Info cc_info(const char *hints)
{
  char buf[512], *save = NULL;
  MPI_Info info;
  MPI_Info_create(&info);
  snprintf(buf, sizeof buf, "%s", hints ? hints : "");
  for (char *kv = strtok_r(buf, ";", &save), *eq; kv; kv = strtok_r(NULL, ";", &save))
    if ((eq = strchr(kv, '='))) *eq = 0, MPI_Info_set(info, kv, eq + 1);
  return info;
}
double cc_stat(ostio_file *fh, const char *name)
{
  double v = -1;
  CHECKF(ostio_stat_get(fh, name, &v) == 0, "ostio_stat_get(%s): %s", name, ostio_last_error());
  return v;
}

/* ---- fixed block files ---------------------------------------------------- */
void cc_blocks_prefill(const cc_blocks *b, const char *path)
{
  uint8_t *s = ct_xmalloc((size_t)b->region);
  memset(s, CT_SENTINEL, (size_t)b->region);
  int fd = open(path, O_WRONLY);
  CHECK(fd >= 0 && pwrite(fd, s, (size_t)b->region, 0) == b->region && ftruncate(fd, b->region) == 0);
  if (fd >= 0) close(fd);
  free(s);
}
void cc_blocks_check(const cc_blocks *b, const char *path, uint32_t tag, const char *name,
                     const char *when)
{
  const int64_t region = b->region;
  uint8_t *buf = ct_xmalloc((size_t)region);
  int fd = open(path, O_RDONLY);
  ssize_t got = fd >= 0 ? pread(fd, buf, (size_t)region, 0) : -1;
  if (fd >= 0) close(fd);
  int ok = CHECKF(got == region, "%s %s: read %zd of %lld bytes", name, when, got, (long long)region);
  for (int64_t pos = 0; ok && pos < region;) {
    int64_t k = pos < b->base ? -1 : (pos - b->base) / b->stride, bs = b->base + k * b->stride;
    int data = k >= 0 && k < b->nblocks && pos < bs + b->len;
    int64_t next = k < 0 ? b->base : data ? bs + b->len : bs + b->stride;
    if (next > region) next = region;
    int64_t bad = cc_find(buf + pos, pos, next - pos, data ? tag : CC_T_SENT);
    if (bad >= 0)
      ok = CHECKF(0, "%s %s: byte %lld is 0x%02x (%s expected)", name, when, (long long)(pos + bad),
                  buf[pos + bad], data ? "data" : "sentinel");
    pos = next;
  }
  if (ok) CHECK(1);
  free(buf);
}

/* ---- files of the cases --------------------------------------------------- */
void cc_path(const char *name, char *path, size_t cap) { snprintf(path, cap, "%s/%s", tmpdir_, name); }
int cc_xopen(const char *name, int amode, const char *hints, ostio_file **fh, int want, const char *what)
{
  char path[720];
  MPI_Info info = cc_info(hints);
  cc_path(name, path, sizeof path);
  int ok = cc_open(path, amode, info, fh, want, what);
  MPI_Info_free(&info);
  return ok;
}
int64_t cc_pread_z(int fd, uint8_t *b, int64_t len, int64_t off)
{
  ssize_t r = pread(fd, b, (size_t)len, (off_t)off); /* len <= CC_CHUNK: one call, short only at EOF */
  if (r >= 0) memset(b + r, 0, (size_t)(len - r));
  return r < 0 ? -1 : len;
}
int cc_disk_expect(int fd, int64_t off, int64_t len, uint32_t tag, const char *what)
{
  for (int64_t done = 0; done < len; done += CC_CHUNK) {
    int64_t c = len - done < CC_CHUNK ? len - done : CC_CHUNK;
    if (cc_pread_z(fd, chunk, c, off + done) < 0) return CHECKF(0, "%s: pread: %s", what, strerror(errno));
    int64_t bad = cc_find(chunk, off + done, c, tag);
    if (bad >= 0)
      return CHECKF(0, "%s: on disk byte %lld is 0x%02x, expected 0x%02x (%s)", what,
                    (long long)(off + done + bad), chunk[bad], cc_byte(off + done + bad, tag),
                    tag == CC_T_SENT ? "sentinel" : tag == CC_T_ZERO ? "zero" : "data");
  }
  return CHECK(1);
}
int cc_check_buf(const uint8_t *b, const ostio_extent *e, size_t n, uint32_t tag, const char *what)
{
  int64_t pos = 0;
  for (size_t i = 0; i < n; pos += e[i].length, i++) {
    int64_t bad = cc_find(b + pos, e[i].offset, e[i].length, tag);
    if (bad >= 0)
      return CHECKF(0, "%s: read_all byte at file offset %lld is 0x%02x, expected 0x%02x", what,
                    (long long)(e[i].offset + bad), b[pos + bad], cc_byte(e[i].offset + bad, tag));
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
      cc_disk_expect(fd, pos, 4096, hole_tag, what);
      cc_disk_expect(fd, next - 4096, 4096, hole_tag, what);
    } else if (next > pos) {
      cc_disk_expect(fd, pos, next - pos, hole_tag, what);
    }
    if (i == n) break;
    cc_disk_expect(fd, s[i].off, s[i].len, tag, what);
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
  memset(chunk, CT_SENTINEL, (size_t)(len < CC_CHUNK ? len : CC_CHUNK));
  for (int64_t d = 0; fd >= 0 && d < len; d += CC_CHUNK)
    CHECK(pwrite(fd, chunk, (size_t)(len - d < CC_CHUNK ? len - d : CC_CHUNK), (off_t)d) >= 0);
  CHECK(fd >= 0 && close(fd) == 0);
}

/* ---- the common case: create, (prefill), write_all, check, read_all ------ */
void cc_wr_case(const char *hints, const ostio_extent *e, size_t n, int64_t pre,
                const char *want, int flags, cc_outcome *out)
{
  char path[720], file[32], what[400];
  ostio_file *fh = NULL;
  static uint32_t ncase; /* the same on every rank */
  uint32_t tag = 2 + ++ncase % 60000;
  snprintf(what, sizeof what, "%s [%s]", section, hints);
  snprintf(file, sizeof file, "case-%u", ncase); /* a new file every case */
  cc_path(file, path, sizeof path);
  if (!cc_xopen(file, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &fh, 0, what)) return;
  if (pre > 0 && rank == 0) prefill(path, pre);
  CHECKF(!strcmp(ostio_file_strategy(fh), "none"), "%s: strategy before any call: %s", what,
         ostio_file_strategy(fh));
  uint8_t *buf = cc_pack(e, n, tag);
  int64_t bytes = cc_ext_bytes(e, n), hi = 0, size = -1;
  for (size_t i = 0; i < n; i++)
    if (e[i].length > 0 && e[i].offset + e[i].length > hi) hi = e[i].offset + e[i].length;
  hi = (int64_t)cc_reduce_d((double)(pre > hi ? pre : hi), MPI_MAX); /* also after the prefill */
  cc_expect_rc(ostio_write_all(fh, n ? e : NULL, n, bytes ? buf : NULL), 0, what, "ostio_write_all");
  const char *st = ostio_file_strategy(fh);
  if (want) CHECKF(!strcmp(st, want), "%s: write used strategy %s, expected %s", what, st, want);
  if (out) {
    snprintf(out->strategy, sizeof out->strategy, "%s", st);
    out->objects_max = cc_stat(fh, "objects_max");
    out->aggr_calls = cc_stat(fh, "aggr_calls");
    out->rounds = cc_stat(fh, "rounds");
    out->rmw = cc_stat(fh, "rmw");
  }
  size_t ns = 0;
  seg *s = gather_segs(e, n, &ns);
  if (rank == 0) check_file(path, s, ns, hi, tag, pre > 0 ? CC_T_SENT : CC_T_ZERO, what);
  free(s);
  CHECKF(ostio_get_size(fh, &size) == 0 && size == hi, "%s: size %lld, expected %lld", what,
         (long long)size, (long long)hi);
  if (buf) memset(buf, 0, bytes ? (size_t)bytes : 1);
  int rc = ostio_read_all(fh, n ? e : NULL, n, bytes ? buf : NULL);
  if (cc_expect_rc(rc, 0, what, "ostio_read_all") && buf) cc_check_buf(buf, e, n, tag, what);
  if (want && strcmp(want, "auto"))
    CHECKF(!strcmp(ostio_file_strategy(fh), want), "%s: read used strategy %s, expected %s", what,
           ostio_file_strategy(fh), want);
  free(buf);
  if (flags & CC_ZERO_CALL) { /* a call where no rank names anything */
    cc_expect_rc(ostio_write_all(fh, NULL, 0, NULL), 0, what, "zero-count write_all");
    cc_expect_rc(ostio_read_all(fh, NULL, 0, NULL), 0, what, "zero-count read_all");
    CHECKF(ostio_get_size(fh, &size) == 0 && size == hi, "%s: size %lld after zero-count calls",
           what, (long long)size);
  }
  cc_expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  CHECK(fh == NULL);
  if (rank == 0) unlink(path);
}
int cc_is_coll(const char *s)
{
  return !strcmp(s, "even") || !strcmp(s, "aligned") || !strcmp(s, "ost") || !strcmp(s, "single");
}

/* ---- the program ------------------------------------------------------------ */
int cc_init(int *argc, char ***argv, const char *name, int maxnp, int *r, int *np)
{
  MPI_Init(argc, argv);
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &nprocs);
  *r = rank, *np = nprocs, prog = name;
  if (maxnp <= 0 || nprocs <= maxnp) return 0;
  if (rank == 0) printf("%s: at most %d ranks\n", prog, maxnp);
  MPI_Finalize();
  return 1;
}
void cc_tmpdir(char *dir, size_t cap, const char *tag)
{
  if (rank == 0 && tu_tmpdir(dir, cap, tag) < 0) perror("mkdtemp");
  MPI_Bcast(dir, (int)cap, MPI_CHAR, 0, COMM);
  tmpdir_ = dir;
}
static int alarm_secs;
static const char *alarm_case;
static void on_alarm(int sig)
{
  char m[512];
  int len = alarm_case ? snprintf(m, sizeof m, "%s: rank %d stuck for %d s in case: %s\n", prog, rank,
                                  alarm_secs, alarm_case)
                       : snprintf(m, sizeof m, "%s: no progress for %d s (a hang?)\n", prog, alarm_secs);
  (void)sig;
  if (len > (int)sizeof m - 1) len = (int)sizeof m - 1;
  if (len > 0 && write(2, m, (size_t)len)) {}
  _exit(3);
}
void cc_watchdog(int secs, const char *casename)
{
  alarm_secs = secs, alarm_case = casename;
  signal(SIGALRM, on_alarm);
}
int cc_run_sections(const cc_section *sec, size_t n, const char *file)
{
  int verbose = getenv("OSTIO_TEST_VERBOSE") && *getenv("OSTIO_TEST_VERBOSE");
  char dir[512];
  unsetenv("OSTIO_HINTS"); /* the cases choose their hints themselves */
  unsetenv("OSTIO_FAULT");
  chunk = malloc((size_t)CC_CHUNK);
  cc_tmpdir(dir, sizeof dir, "collcases");
  cc_watchdog(280, NULL);
  const char *only = getenv("OSTIO_TEST_ONLY");
  for (size_t i = 0; i < n; i++) {
    if (nprocs > sec[i].maxnp || (only && *only && !strstr(only, sec[i].name))) continue;
    double t0 = MPI_Wtime();
    section = sec[i].name;
    alarm(280);
    sec[i].fn();
    if (verbose && rank == 0) fprintf(stderr, "# %-8s %6.2f s\n", sec[i].name, MPI_Wtime() - t0);
  }
  alarm(0);
  int status = cc_finish(file);
  free(chunk);
  return status;
}
int cc_finish(const char *file)
{
  MPI_Barrier(COMM);
  if (rank == 0 && tmpdir_) tu_rmtree(tmpdir_);
  char prefix[32];
  snprintf(prefix, sizeof prefix, "ranks %d: ", nprocs);
  int status = tu_done_mpi(COMM, prefix, file);
  MPI_Finalize();
  return status;
}
