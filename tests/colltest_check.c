/* Helpers shared by the collective I/O tests, part 2: the checkers (file
 * and buffer against the expected content) and setup (prefill, temporary
 * directories, MPI_Info from text). See colltest.h. */
#include "colltest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((int64_t)1 << 20)
#define FULL_CHECK_MAX ((int64_t)256 << 20)
#define MARGIN ((int64_t)64 << 10)

static void neutralize(const ct_expect *e, int64_t off, int64_t len, uint8_t *act,
                       const uint8_t *exp, uint8_t *mask)
{
  if (!e || !e->holes_undefined) return;
  ct_expect_defined(e, off, len, mask);
  for (int64_t i = 0; i < len; i++)
    if (!mask[i]) act[i] = exp[i];
}

/* ---- checkers ------------------------------------------------------------------ */
/* "rank 3 call 1" / "nobody: sentinel" / "nobody: hole". */
static void who(const ct_expect *e, int64_t off, char *buf, size_t cap)
{
  uint32_t call = 0;
  int w = e ? ct_expect_writer(e, off, &call) : -1;
  if (!e) snprintf(buf, cap, "unknown");
  else if (w >= 0) snprintf(buf, cap, "written by rank %d in call %u", w, call);
  else if (off >= e->pf_lo && off < e->pf_hi) snprintf(buf, cap, "nobody writes it: sentinel");
  else snprintf(buf, cap, "nobody writes it: hole");
}

/* What the actual bytes look like: another writer's data, sentinel, zeros. */
static void guess(const ct_expect *e, int64_t off, const uint8_t *act, int64_t n, char *buf,
                  size_t cap)
{
  uint8_t tmp[16];
  if (n > 16) n = 16;
  snprintf(buf, cap, "%s", act[0] == CT_SENTINEL ? "sentinel (never written)"
                           : act[0] == 0 ? "zero (hole / never written)" : "unknown data");
  if (!e || act[0] == 0 || act[0] == CT_SENTINEL) return;
  for (int l = 0; l < e->nlayers; l++)
    for (int r = 0; r < e->layer[l]->nprocs; r++) {
      ct_data(off, n, r, e->call_id[l], tmp);
      if (!memcmp(tmp, act, (size_t)n)) {
        snprintf(buf, cap, "rank %d's data for this offset in call %u", r, e->call_id[l]);
        return;
      }
    }
}

typedef struct range {
  int64_t lo, hi;
} range;

static int range_cmp(const void *a, const void *b)
{
  const range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The ranges of [0, size) to check, sorted and merged. */
static range *check_ranges(const ct_expect *e, int fd, int64_t size, size_t *nr)
{
  size_t cap = 8, n = 0;
  range *r;
  if (size <= FULL_CHECK_MAX || !e) {
    r = ct_xmalloc(sizeof *r);
    r[0] = (range){0, size < FULL_CHECK_MAX ? size : FULL_CHECK_MAX};
    *nr = 1;
    return r;
  }
  for (int l = 0; l < e->nlayers; l++) cap += e->layer[l]->nsorted;
  cap += 4096;
  r = ct_xmalloc(cap * sizeof *r);
  r[n++] = (range){0, CHUNK};
  r[n++] = (range){size - MARGIN, size};
  if (e->pf_hi > e->pf_lo) {  /* its ends; the middle near extents comes below */
    r[n++] = (range){e->pf_lo, e->pf_lo + CHUNK < e->pf_hi ? e->pf_lo + CHUNK : e->pf_hi};
    r[n++] = (range){e->pf_hi - CHUNK > e->pf_lo ? e->pf_hi - CHUNK : e->pf_lo, e->pf_hi};
  }
  for (int l = 0; l < e->nlayers; l++)
    for (size_t i = 0; i < e->layer[l]->nsorted; i++) {
      const ct_piece *q = &e->layer[l]->sorted[i];
      r[n++] = (range){q->off - MARGIN, q->off + q->len + MARGIN};
    }
  /* Data the file system holds anywhere (stray writes far from any extent). */
  int64_t pos = 0;
  while (n < cap) {
    off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
    if (d < 0) break;
    off_t h = lseek(fd, d, SEEK_HOLE);
    if (h <= d) break;
    r[n++] = (range){(int64_t)d, (int64_t)h};
    pos = (int64_t)h;
  }
  qsort(r, n, sizeof *r, range_cmp);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].lo < 0) r[i].lo = 0;
    if (r[i].hi > size) r[i].hi = size;
    if (r[i].hi <= r[i].lo) continue;
    if (m && r[i].lo <= r[m - 1].hi) {
      if (r[i].hi > r[m - 1].hi) r[m - 1].hi = r[i].hi;
    } else {
      r[m++] = r[i];
    }
  }
  int64_t total = 0;
  for (size_t i = 0; i < m; i++) {  /* cap the work (runaway data regions) */
    if (total + (r[i].hi - r[i].lo) > FULL_CHECK_MAX) r[i].hi = r[i].lo + (FULL_CHECK_MAX - total);
    total += r[i].hi - r[i].lo;
    if (total >= FULL_CHECK_MAX) {
      m = i + 1;
      break;
    }
  }
  *nr = m;
  return r;
}

/* The first bad byte of a scan (its bad run, up to 16 bytes kept) and a count. */
typedef struct scan {
  int64_t bad, first, run, where;  /* where: caller's position of first */
  int open;                        /* the first bad run may still grow */
  uint8_t act[16], exp[16];
} scan;

/* Compares len bytes at file offset off; where0 is the caller's position. */
static void scan_chunk(scan *sc, int64_t off, const uint8_t *act, const uint8_t *exp, int64_t len,
                       int64_t where0)
{
  if (sc->open && off != sc->first + sc->run) sc->open = 0;
  if (!memcmp(act, exp, (size_t)len)) {
    sc->open = 0;
    return;
  }
  for (int64_t i = 0; i < len; i++) {
    if (act[i] == exp[i]) {
      sc->open = 0;
      continue;
    }
    if (sc->bad++ == 0) {
      sc->first = off + i;
      sc->where = where0 + i;
      sc->open = 1;
    }
    if (sc->open && sc->run < 16) {
      sc->act[sc->run] = act[i];
      sc->exp[sc->run] = exp[i];
    }
    if (sc->open) sc->run++;
  }
}

/* Reads len bytes at off; what lies past EOF (or fails) reads as zeros. */
static void pread_full(int fd, uint8_t *buf, int64_t len, int64_t off)
{
  size_t got = 0;
  while (got < (size_t)len) {
    ssize_t k = pread(fd, buf + got, (size_t)len - got, (off_t)off + (off_t)got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  memset(buf + got, 0, (size_t)len - got);
}

int ct_agree(MPI_Comm comm, int ok)
{
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  return all;
}

/* Rank 0's part of ct_check_file / ct_compare_files: compares file a with
 * file b (path_b) or, when path_b is NULL, with the expectation. */
static int check_root(const char *path_a, const char *path_b, const ct_expect *e,
                      uint64_t seed, const char *what)
{
  int fa = open(path_a, O_RDONLY), fb = path_b ? open(path_b, O_RDONLY) : -1, ok = 1;
  struct stat sa, sb;
  if (fa < 0 || (path_b && fb < 0)) {
    fprintf(stderr, "MISMATCH %s: cannot open %s: %s [seed %llu]\n", what,
            fa < 0 ? path_a : path_b, strerror(errno), (unsigned long long)seed);
    if (fa >= 0) close(fa);
    return 0;
  }
  fstat(fa, &sa);
  int64_t size = (int64_t)sa.st_size, want = e ? ct_expect_size(e) : 0;
  if (path_b) {
    fstat(fb, &sb);
    want = (int64_t)sb.st_size;
  }
  if (size != want) {
    fprintf(stderr, "MISMATCH %s: %s has %lld bytes, expected %lld%s [seed %llu]\n", what,
            path_a, (long long)size, (long long)want,
            path_b ? " (size of the oracle file)" : " (max of pre-fill end and last written byte)",
            (unsigned long long)seed);
    ok = 0;
  }
  int64_t n = size > want ? size : want;
  uint8_t *act = ct_xmalloc((size_t)CHUNK), *exp = ct_xmalloc((size_t)CHUNK);
  uint8_t *mask = ct_xmalloc((size_t)CHUNK);
  scan sc = {.first = -1};
  size_t nr = 0;
  range *rg = check_ranges(e, fa, n, &nr);
  for (size_t k = 0; k < nr; k++)
    for (int64_t off = rg[k].lo; off < rg[k].hi; off += CHUNK) {
      int64_t len = rg[k].hi - off < CHUNK ? rg[k].hi - off : CHUNK;
      pread_full(fa, act, len, off);  /* past EOF: zeros (a size error already) */
      if (path_b) {
        pread_full(fb, exp, len, off);
      } else {
        ct_expect_fill(e, off, len, exp);
      }
      neutralize(e, off, len, act, exp, mask);
      scan_chunk(&sc, off, act, exp, len, off);
    }
  if (sc.bad) {
    char w[96], g[96];
    who(e, sc.first, w, sizeof w);
    guess(e, sc.first, sc.act, sc.run < 16 ? sc.run : 16, g, sizeof g);
    fprintf(stderr, "MISMATCH %s: %s offset %lld: expected 0x%02x (%s%s%s), actual 0x%02x "
            "(looks like %s); first bad run %lld bytes, %lld bad bytes in total [seed %llu]\n",
            what, path_a, (long long)sc.first, sc.exp[0], path_b ? "as in " : "",
            path_b ? path_b : "", path_b ? "" : w, sc.act[0], g, (long long)sc.run,
            (long long)sc.bad, (unsigned long long)seed);
    if (path_b && e) fprintf(stderr, "  the byte at %lld is %s\n", (long long)sc.first, w);
    ok = 0;
  }
  free(rg);
  free(mask);
  free(act);
  free(exp);
  close(fa);
  if (fb >= 0) close(fb);
  return ok;
}

int ct_check_file(MPI_Comm comm, const char *path, const ct_expect *e, uint64_t seed,
                  const char *what)
{
  return ct_compare_files(comm, path, NULL, e, seed, what);
}

int ct_compare_files(MPI_Comm comm, const char *path_a, const char *path_b,
                     const ct_expect *e, uint64_t seed, const char *what)
{
  int rank, ok = 1;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) ok = check_root(path_a, path_b, e, seed, what);
  return ct_agree(comm, ok);
}

int64_t ct_check_buf(const ct_expect *e, const ostio_extent *ext, size_t n,
                     const uint8_t *buf, int rank, uint64_t seed, const char *what)
{
  int64_t pos = 0;
  size_t ebad = 0;
  uint8_t *exp = ct_xmalloc((size_t)CHUNK), *tmp = ct_xmalloc((size_t)CHUNK);
  uint8_t *mask = ct_xmalloc((size_t)CHUNK);
  scan sc = {.first = -1};
  for (size_t i = 0; i < n; pos += ext[i++].length)
    for (int64_t d = 0; d < ext[i].length; d += CHUNK) {
      int64_t len = ext[i].length - d < CHUNK ? ext[i].length - d : CHUNK;
      int64_t off = ext[i].offset + d;
      memcpy(tmp, buf + pos + d, (size_t)len);
      ct_expect_fill(e, off, len, exp);
      neutralize(e, off, len, tmp, exp, mask);
      sc.open = 0;  /* a run never continues into another extent */
      int64_t before = sc.bad;
      scan_chunk(&sc, off, tmp, exp, len, pos + d);
      if (!before && sc.bad) ebad = i;
    }
  if (sc.bad) {
    char w[96], g[96];
    who(e, sc.first, w, sizeof w);
    guess(e, sc.first, sc.act, sc.run < 16 ? sc.run : 16, g, sizeof g);
    fprintf(stderr, "MISMATCH %s: rank %d extent #%zu [%lld, +%lld) file offset %lld (buffer "
            "position %lld): expected 0x%02x (%s), read 0x%02x (looks like %s); first bad run "
            "%lld bytes, %lld bad bytes in the buffer [seed %llu]\n", what, rank, ebad,
            (long long)ext[ebad].offset, (long long)ext[ebad].length, (long long)sc.first,
            (long long)sc.where, sc.exp[0], w, sc.act[0], g, (long long)sc.run,
            (long long)sc.bad, (unsigned long long)seed);
  }
  free(exp);
  free(tmp);
  free(mask);
  return sc.bad;
}

/* ---- setup ------------------------------------------------------------------- */
int ct_prefill(MPI_Comm comm, const char *path, int64_t lo, int64_t hi)
{
  int rank, rc = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0) {
      fprintf(stderr, "colltest: prefill %s: %s\n", path, strerror(errno));
      rc = -1;
    } else {
      uint8_t *s = ct_xmalloc((size_t)CHUNK);
      memset(s, CT_SENTINEL, (size_t)CHUNK);
      for (int64_t off = lo; off < hi && rc == 0; off += CHUNK) {
        size_t len = (size_t)(hi - off < CHUNK ? hi - off : CHUNK);
        if (pwrite(fd, s, len, (off_t)off) != (ssize_t)len) {
          fprintf(stderr, "colltest: prefill %s at %lld: %s\n", path, (long long)off,
                  strerror(errno));
          rc = -1;
        }
      }
      free(s);
      close(fd);
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  MPI_Barrier(comm);
  return rc;
}

int ct_tmpdir(MPI_Comm comm, char *buf, size_t cap, const char *tag)
{
  int rank, rc = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    rc = tu_tmpdir(buf, cap, tag);
    if (rc < 0) fprintf(stderr, "colltest: mkdtemp: %s\n", strerror(errno));
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  MPI_Bcast(buf, (int)cap, MPI_CHAR, 0, comm);
  return rc;
}

void ct_rmtree(MPI_Comm comm, const char *dir)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Barrier(comm);
  if (rank == 0) tu_rmtree(dir);
  MPI_Barrier(comm);
}

int ct_info(const char *spec, MPI_Info *info)
{
  char word[512];
  MPI_Info_create(info);
  for (const char *p = spec ? spec : ""; *p;) {
    size_t sp = strspn(p, " \t\n");
    p += sp;
    size_t len = strcspn(p, " \t\n");
    if (!len) break;
    snprintf(word, sizeof word, "%.*s", (int)len, p);
    p += len;
    char *eq = strchr(word, '=');
    if (!eq || eq == word) {
      fprintf(stderr, "colltest: info word \"%s\" is not key=value\n", word);
      MPI_Info_free(info);
      *info = MPI_INFO_NULL;
      return -1;
    }
    *eq = '\0';
    MPI_Info_set(*info, word, eq + 1);
  }
  return 0;
}

void ct_spec_add(char *spec, size_t cap, const char *key, const char *fmt, ...)
{
  size_t len = strlen(spec);
  va_list ap;
  if (len + 2 >= cap) return;
  len += (size_t)snprintf(spec + len, cap - len, "%s%s=", len ? " " : "", key);
  if (len >= cap) return;
  va_start(ap, fmt);
  vsnprintf(spec + len, cap - len, fmt, ap);
  va_end(ap);
}

uint64_t ct_seed(MPI_Comm comm, uint64_t dflt)
{
  int rank = 0;
  unsigned long long s = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) s = tu_seed(dflt);
  MPI_Bcast(&s, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  return s;
}

void ct_case_range(int dflt, int *first, int *end)
{
  const char *env = getenv("OSTIO_COLL_CASES");
  *first = 0;
  *end = env && *env ? atoi(env) : dflt;
  env = getenv("OSTIO_COLL_CASE");
  if (env && *env) {
    *first = atoi(env);
    *end = *first + 1;
  }
}

int ct_case_check(int ok, const char *what, const char *prog, const char *desc, int idx,
                  uint64_t seed, int *failed)
{
  int rank = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (rank != 0) return ok;
  tu_check(ok, what, __FILE__, __LINE__, NULL);
  if (!ok && !*failed) {
    *failed = 1;
    fprintf(stderr, "  in %s\n  reproduce: OSTIO_TEST_SEED=%llu OSTIO_COLL_CASE=%d "
            "mpiexec -n %d %s\n", desc, (unsigned long long)seed, idx, np, prog);
  }
  return ok;
}
