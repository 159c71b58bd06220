/* The cooperative client cache (issue 17, docs/cache.md) under MPI: the file
 * semantics the cache must keep, checked against a byte model. Written
 * before the cache, so it assumes nothing of its design: every subcase passes
 * with the cache hints having no effect (and with ostio_cache=disable), and
 * the same checks hold with the cache on.
 *
 *   test_cache_mpi SUBCASE KIND [enable|disable]
 *
 *   SUBCASE  random   rounds of small random write_at / read_at by every rank
 *            evict    the same under a cache of 3 pages of 64 KiB
 *            bypass   requests longer than ostio_cache_bypass (2 pages) mixed
 *                     with small ones on the same pages, in both orders
 *            setsize  ostio_set_size (shrink, to a page edge, grow, to 0) with
 *                     dirty data pending or flushed, then writes past it
 *            coll     write_all / read_all mixed with write_at / read_at on
 *                     the same bytes
 *            fault    OSTIO_FAULT EIO / ENOSPC / short on one rank's writes
 *            atomic   ostio_atomic=true: the random rounds, and every rank
 *                     writing its region of 2 or 25-26 pages, overlapping the
 *                     others', at once (write_at, write_all); reads during the
 *                     writes and the regions after a sync must be what some
 *                     serial order of whole calls gives; on a log container
 *                     the hint is refused at open on every rank
 *   KIND     plain (4 x 64 KiB stripes from hints), striped (a container of
 *            3 objects), log (a log container)
 *   enable   (default) ostio_cache=enable; disable: the control run
 *
 * Rules checked (MPI-IO's consistency rules in non-atomic mode):
 *  - after ostio_sync, MPI_Barrier, ostio_sync every rank reads every rank's
 *    writes, through read_at and read_all, and get_size is the model's size;
 *  - a rank reads its own writes at once (before any sync), through read_at
 *    and read_all, and get_size counts them at once;
 *  - ostio_set_size is collective: every rank gets the same code, get_size
 *    gives the new size at once, bytes past it read as zeros; it comes after
 *    every rank's earlier writes also without a sync before it (assumed, as
 *    for a collective write: dirty data past the size is dropped, before it
 *    kept);
 *  - after sync (plain files) and after close (every kind) the bytes are on
 *    disk: plain pread, and a fresh ostio_open without the cache;
 *  - a write error reaches every rank: sync and close return the same code on
 *    every rank, the injected one or 0; the error may come from the write
 *    call or from the next sync or close, and when every call said success
 *    the bytes are on disk (a write-back that failed and then succeeded on a
 *    retry loses nothing; a lost one shows there).
 *
 * The plan: every round cuts [0, SPAN) into zones of random length, each with
 * one writer rank (or none), the same on every rank (one shared seed). A rank
 * writes only in its own zones, so two ranks never write the same byte
 * between two sync-barrier-syncs (MPI leaves such conflicts undefined), while
 * a rank's own writes overlap each other (the last one wins) and neighbouring
 * zones of different ranks share cache pages. Every rank knows every rank's
 * writes and keeps the same model; the bytes of a write are ct_byte(offset,
 * writer, write id), so a wrong byte names the write it came from. Reads
 * before a sync stay in the rank's own and unwritten zones (whose bytes the
 * rank knows). The seed is printed; OSTIO_TEST_SEED=N reproduces a run.
 *
 * Atomic mode has its own test of readers against a writer
 * (test_cache_atomic.c); here it also runs the model's rounds. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collcase.h"

#define COMM MPI_COMM_WORLD
#define PAGE ((int64_t)65536)               /* stripe size and cache page      */
#define SPAN ((int64_t)3 << 20)             /* writes fall in [0, SPAN)        */
#define CAP (SPAN + ((int64_t)1 << 20))     /* model: room to grow, read past EOF */
#define SMALL 9000                          /* longest small request           */
#define UNDEF 0xFFu                         /* writer of bytes a failed write left */
#define MAXEXT 16                           /* extents per rank in a collective call */

/* ---- the subcases --------------------------------------------------------- */
typedef struct plan plan;
typedef struct sub sub;
typedef void (*step_fn)(ostio_file *fh, plan *p, const sub *s, tu_rng *g, tu_rng *loc);
struct sub {
  const char *name;
  const char *cache;       /* hints with ostio_cache=enable                     */
  int rounds, k;           /* rounds; write_at calls per rank and round         */
  int64_t zmin, zmax;      /* zone lengths                                      */
  int64_t big_lo, big_hi;  /* long requests: their lengths ...                  */
  int pbig;                /* ... and the percentage of requests that are long */
  step_fn step;            /* more of the round after the writes, or NULL      */
};
static void setsize_step(ostio_file *fh, plan *p, const sub *s, tu_rng *g, tu_rng *loc);
static void coll_step(ostio_file *fh, plan *p, const sub *s, tu_rng *g, tu_rng *loc);
static void atomic_step(ostio_file *fh, plan *p, const sub *s, tu_rng *g, tu_rng *loc);

static const sub subs[] = {
  {"random", "ostio_cache=enable", 3, 48, 1, 24000, 0, 0, 0, NULL},
  {"evict", "ostio_cache=enable;ostio_cache_page=65536;ostio_cache_size=196608", 3, 64, 1, 24000,
   0, 0, 0, NULL},
  {"bypass", "ostio_cache=enable;ostio_cache_page=65536;ostio_cache_bypass=131072;"
   "ostio_cache_size=1048576", 3, 32, 100000, 600000, 131073, 500000, 40, NULL},
  {"setsize", "ostio_cache=enable;ostio_cache_page=131072", 4, 32, 1, 24000, 0, 0, 0, setsize_step},
  {"coll", "ostio_cache=enable;ostio_cache_size=262144", 3, 32, 1, 24000, 0, 0, 0, coll_step},
  {"fault", "ostio_cache=enable", 1, 40, 1, 24000, 0, 0, 0, NULL},
  {"atomic", "ostio_cache=enable;ostio_atomic=true", 2, 32, 1, 24000, 0, 0, 0, atomic_step},
};
static const char *const kinds[][2] = {
  {"plain", "striping_factor=4;striping_unit=65536"},
  {"striped", "ostio_container=striped;ostio_objects=3;striping_unit=65536"},
  {"log", "ostio_container=log;striping_unit=65536"},
};

static int rank, nprocs, cache_on = 1, is_plain, kind_cached;
static const char *kind_hints;
static char casename[300], dir[512], path[700];
static uint64_t seed;
static uint8_t *wbuf, *rbuf;  /* CAP bytes each */
static int round_no;          /* the round of run_rounds */

/* ---- the model -------------------------------------------------------------- */
static struct {
  uint8_t *b;       /* expected bytes; zeros past the size                    */
  uint32_t *wid;    /* the write that put each byte there, 0: none (a zero)   */
  uint8_t *who;     /* its writer; UNDEF: any value (a failed write)          */
  int64_t size;     /* size without failed writes ...                         */
  int64_t size_hi;  /* ... and with them                                      */
} M;
static uint32_t next_wid; /* write ids: the same sequence on every rank */
/* The size get_size must at least give on this rank: the model's at the last
 * sync-barrier-sync or set_size, grown by this rank's own writes since. Other
 * ranks' writes (collective ones too) may show earlier, or not. */
static int64_t vis_lo;

static void model_reset(void)
{
  memset(M.b, 0, (size_t)CAP);
  memset(M.wid, 0, sizeof *M.wid * (size_t)CAP);
  memset(M.who, 0, (size_t)CAP);
  M.size = M.size_hi = vis_lo = 0;
}
static void model_write(int w, uint32_t id, int64_t off, int64_t len)
{
  ct_data(off, len, w, id, M.b + off);
  for (int64_t i = off; i < off + len; i++) M.wid[i] = id, M.who[i] = (uint8_t)w;
  if (off + len > M.size) M.size = off + len;
  if (M.size > M.size_hi) M.size_hi = M.size;
}
/* A write that failed: its bytes may hold anything, the size may have grown. */
static void model_undef(int64_t off, int64_t len)
{
  memset(M.who + off, UNDEF, (size_t)len);
  if (off + len > M.size_hi) M.size_hi = off + len;
}
static void model_trunc(int64_t size)
{
  int64_t end = M.size_hi > size ? M.size_hi : size;
  memset(M.b + size, 0, (size_t)(end - size));
  memset(M.wid + size, 0, sizeof *M.wid * (size_t)(end - size));
  memset(M.who + size, 0, (size_t)(end - size));
  M.size = M.size_hi = size;
}
static void describe(int64_t off, char *buf, size_t cap)
{
  if (M.wid[off] == 0) snprintf(buf, cap, "a zero: no write");
  else snprintf(buf, cap, "rank %d's write %u", M.who[off], M.wid[off]);
}
/* 1 check: buf holds the model's bytes [off, off+len) (bytes of failed writes
 * match anything); a mismatch names the first bad byte and its writer. */
static int expect_model(const uint8_t *buf, int64_t off, int64_t len, const char *when)
{
  int64_t bad = -1, nbad = 0;
  if (memcmp(buf, M.b + off, (size_t)len) != 0)
    for (int64_t i = 0; i < len; i++)
      if (buf[i] != M.b[off + i] && M.who[off + i] != UNDEF && (nbad++, bad < 0)) bad = i;
  char d[64] = "";
  if (bad >= 0) describe(off + bad, d, sizeof d);
  return CHECKF(nbad == 0, "%s: %s: [%lld, +%lld): byte %lld is 0x%02x, expected 0x%02x (%s); "
                "%lld bad bytes (seed %llu)", casename, when, (long long)off, (long long)len,
                (long long)(off + bad), bad >= 0 ? buf[bad] : 0, bad >= 0 ? M.b[off + bad] : 0, d,
                (long long)nbad, (unsigned long long)seed);
}

/* ---- the plan of a round ----------------------------------------------------- */
typedef struct { int64_t off, len; int owner; } zone; /* owner -1: nobody writes it */
typedef struct { int64_t off, len; uint32_t id; } wr;  /* one write; len 0: none     */
struct plan {
  zone *z;
  size_t nz;
  size_t **own;   /* own[w]: the zones of rank w ... */
  size_t *nown;   /* ... and their number            */
};

static int64_t rnd(tu_rng *g, int64_t lo, int64_t hi) { return tu_rng_range(g, lo, hi); }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static void plan_make(plan *p, const sub *s, tu_rng *g)
{
  p->z = ct_xmalloc(sizeof *p->z * (size_t)(SPAN / s->zmin + 1));
  p->nz = 0;
  for (int64_t pos = 0; pos < SPAN;) {
    int64_t len = min64(rnd(g, s->zmin, s->zmax), SPAN - pos);
    int owner = rnd(g, 0, 7) == 0 ? -1 : (int)rnd(g, 0, nprocs - 1);
    p->z[p->nz++] = (zone){pos, len, owner};
    pos += len;
  }
  p->own = ct_xmalloc(sizeof *p->own * (size_t)nprocs);
  p->nown = calloc((size_t)nprocs, sizeof *p->nown);
  for (int w = 0; w < nprocs; w++) p->own[w] = ct_xmalloc(sizeof **p->own * p->nz);
  for (size_t i = 0; i < p->nz; i++)
    if (p->z[i].owner >= 0) p->own[p->z[i].owner][p->nown[p->z[i].owner]++] = i;
}
static void plan_free(plan *p)
{
  for (int w = 0; w < nprocs; w++) free(p->own[w]);
  free(p->own), free(p->nown), free(p->z);
}
/* A request length for room bytes: small, or long with the subcase's odds. */
static int64_t pick_len(const sub *s, tu_rng *g, int64_t room)
{
  if (s->pbig && room >= s->big_lo && rnd(g, 1, 100) <= s->pbig)
    return rnd(g, s->big_lo, min64(s->big_hi, room));
  return rnd(g, 1, min64(SMALL, room));
}
/* k writes per rank in its own zones: ops[w * k + i], fresh write ids. */
static wr *plan_ops(const plan *p, const sub *s, tu_rng *g, int k)
{
  wr *ops = ct_xmalloc(sizeof *ops * (size_t)(nprocs * k));
  for (int w = 0; w < nprocs; w++)
    for (int i = 0; i < k; i++) {
      wr *o = &ops[w * k + i];
      *o = (wr){0, 0, 0};
      if (!p->nown[w]) continue;
      const zone *z = &p->z[p->own[w][rnd(g, 0, (int64_t)p->nown[w] - 1)]];
      o->len = pick_len(s, g, z->len);
      o->off = z->off + rnd(g, 0, z->len - o->len);
      o->id = ++next_wid;
    }
  return ops;
}
/* A start for len bytes inside [lo, lo+room) so that they hold byte at. */
static int64_t start_holding(tu_rng *g, int64_t lo, int64_t room, int64_t len, int64_t at)
{
  return rnd(g, max64(lo, at - len + 1), min64(at, lo + room - len));
}
/* Up to MAXEXT of rank w's zones spread over the file, in file order. */
static size_t spread_zones(const plan *p, int w, tu_rng *g, size_t *idx)
{
  size_t n = 0, step = p->nown[w] / MAXEXT + 1;
  for (size_t i = (size_t)rnd(g, 0, (int64_t)step - 1); i < p->nown[w] && n < MAXEXT;
       i += (size_t)rnd(g, 1, 2 * (int64_t)step - 1))
    idx[n++] = p->own[w][i];
  return n;
}
/* A zone whose bytes this rank knows during the round: its own or nobody's. */
static int stable(const plan *p, size_t i) { return p->z[i].owner == rank || p->z[i].owner < 0; }

/* ---- calls and their checks ----------------------------------------------------- */
static int read_expect(ostio_file *fh, int64_t off, int64_t len, const char *when)
{
  memset(rbuf, 0x5A, (size_t)len); /* a read that leaves bytes unfilled shows */
  int rc = ostio_read_at(fh, off, rbuf, (size_t)len);
  if (!CHECKF(rc == 0, "%s: %s: read_at(%lld, %lld): %s (%s)", casename, when, (long long)off,
              (long long)len, ostio_errname(rc), ostio_last_error()))
    return 0;
  return expect_model(rbuf, off, len, when);
}
/* The largest size get_size may give before a sync: other ranks may be
 * further on in the round (a collective call need not wait for every rank),
 * but every write ends at SPAN at most; only set_size grows the file more. */
static int64_t size_cap(void) { return max64(M.size, SPAN); }
/* 1 check: lo <= get_size <= hi. */
static void size_within(ostio_file *fh, int64_t lo, int64_t hi, const char *when)
{
  int64_t size = -1;
  int rc = ostio_get_size(fh, &size);
  CHECKF(rc == 0 && size >= lo && size <= hi, "%s: %s: get_size gave %s, size %lld, expected "
         "%lld..%lld", casename, when, ostio_errname(rc), (long long)size, (long long)lo,
         (long long)hi);
}
/* Collective: ostio_sync, MPI_Barrier, ostio_sync, each sync 0 everywhere. */
static void sbs(ostio_file *fh, const char *when)
{
  cc_expect_rc(ostio_sync(fh), 0, casename, when);
  MPI_Barrier(COMM);
  cc_expect_rc(ostio_sync(fh), 0, casename, when);
  vis_lo = M.size;
}
/* The zone holding byte off (zones are sorted). */
static size_t zone_at(const plan *p, int64_t off)
{
  size_t lo = 0, hi = p->nz - 1;
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (p->z[mid].off <= off) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
/* Reads back a random range of this rank's own and unwritten zones around
 * byte at (-1: anywhere in its zones). */
static void ryow_read(ostio_file *fh, const plan *p, const sub *s, tu_rng *loc, int64_t at)
{
  if (!p->nown[rank]) return;
  size_t lo = at >= 0 ? zone_at(p, at) : p->own[rank][rnd(loc, 0, (int64_t)p->nown[rank] - 1)], hi = lo;
  for (int n = 0; n < 3 && lo > 0 && stable(p, lo - 1); n++) lo--;
  for (int n = 0; n < 3 && hi + 1 < p->nz && stable(p, hi + 1); n++) hi++;
  int64_t a = p->z[lo].off, room = p->z[hi].off + p->z[hi].len - a, len = pick_len(s, loc, room);
  int64_t first = at >= 0 ? start_holding(loc, a, room, len, at) : a + rnd(loc, 0, room - len);
  read_expect(fh, first, len, "read-your-own-writes before sync");
}
/* This rank's writes of ops (k per rank), each in the model at once, with
 * reads of its own bytes and size checks in between; then every other rank's
 * writes go into the model. */
static void do_writes(ostio_file *fh, const plan *p, const sub *s, const wr *ops, int k,
                      tu_rng *loc)
{
  for (int i = 0; i < k; i++) {
    const wr *o = &ops[rank * k + i];
    if (!o->len) continue;
    int64_t at = o->off + rnd(loc, 0, o->len - 1); /* a byte of the write */
    if (rnd(loc, 0, 2) == 0) ryow_read(fh, p, s, loc, at); /* its old bytes, then the new */
    ct_data(o->off, o->len, rank, o->id, wbuf);
    int rc = ostio_write_at(fh, o->off, wbuf, (size_t)o->len);
    CHECKF(rc == 0, "%s: write_at(%lld, %lld): %s (%s)", casename, (long long)o->off,
           (long long)o->len, ostio_errname(rc), ostio_last_error());
    model_write(rank, o->id, o->off, o->len);
    vis_lo = max64(vis_lo, o->off + o->len);
    if (rnd(loc, 0, 1) == 0) ryow_read(fh, p, s, loc, at);
    if (rnd(loc, 0, 3) == 0) ryow_read(fh, p, s, loc, -1);
    if (i % 8 == 7) size_within(fh, vis_lo, size_cap(), "get_size before sync");
  }
  for (int i = 0; i < 4; i++) ryow_read(fh, p, s, loc, -1);
  size_within(fh, vis_lo, size_cap(), "get_size after own writes");
  for (int w = 0; w < nprocs; w++)
    for (int i = 0; w != rank && i < k; i++)
      if (ops[w * k + i].len) model_write(w, ops[w * k + i].id, ops[w * k + i].off, ops[w * k + i].len);
}
/* After a sync-barrier-sync: get_size, then every byte to past the end by
 * read_at in random pieces (another cut on every rank). */
static void verify_at(ostio_file *fh, const sub *s, tu_rng *loc, const char *when)
{
  size_within(fh, M.size, M.size, when);
  int64_t end = min64(CAP, M.size + rnd(loc, 1, 70000));
  for (int64_t pos = 0, len; pos < end; pos += len) {
    len = rnd(loc, 0, 9) < 7 ? pick_len(s, loc, SMALL) : rnd(loc, SMALL, max64(200000, s->big_hi));
    len = min64(len, end - pos);
    if (!read_expect(fh, pos, len, when)) break;
  }
}
/* Rank 0: a plain file's bytes and size on disk by pread. */
static void disk_plain(const char *when)
{
  if (rank || !is_plain) return;
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (!CHECKF(fd >= 0 && fstat(fd, &st) == 0, "%s: %s: open %s: %s", casename, when, path,
              strerror(errno))) {
    if (fd >= 0) close(fd);
    return;
  }
  int64_t size = st.st_size;
  CHECKF(size >= M.size && size <= M.size_hi, "%s: %s: %lld bytes on disk, expected %lld..%lld",
         casename, when, (long long)size, (long long)M.size, (long long)M.size_hi);
  size = min64(size, CAP);
  ssize_t got = pread(fd, rbuf, (size_t)size, 0);
  if (CHECKF(got == size, "%s: %s: pread %zd of %lld bytes", casename, when, got, (long long)size))
    expect_model(rbuf, 0, size, when);
  close(fd);
}
/* Collective, containers only (disk_plain reads a plain file): a fresh open
 * without the cache reads the model back (size, then read_all of a share per
 * rank). */
static void disk_reopen(const char *when)
{
  if (is_plain) return;
  ostio_file *fh = NULL;
  MPI_Info info = cc_info("ostio_cache=disable");
  int ok = cc_open(path, MPI_MODE_RDONLY, info, &fh, 0, casename);
  MPI_Info_free(&info);
  if (!ok) return;
  int64_t size = -1;
  CHECKF(ostio_get_size(fh, &size) == 0 && size >= M.size && size <= M.size_hi,
         "%s: %s: size %lld after reopen, expected %lld..%lld", casename, when, (long long)size,
         (long long)M.size, (long long)M.size_hi);
  int64_t part = M.size_hi / nprocs + 1, lo = min64(rank * part, M.size_hi);
  ostio_extent e = {lo, min64(lo + part, M.size_hi) - lo};
  int rc = ostio_read_all(fh, &e, 1, rbuf);
  if (cc_expect_rc(rc, 0, casename, "read_all after reopen")) expect_model(rbuf, e.offset, e.length, when);
  cc_expect_rc(ostio_close(&fh), 0, casename, "close after reopen");
}

/* ---- more of a round: set_size, collective calls ------------------------------- */
static void setsize_step(ostio_file *fh, plan *p, const sub *s, tu_rng *g, tu_rng *loc)
{
  /* rounds: shrink, to a page edge (flushed first), grow, to 0; dirty data pending but in round 1 */
  int flushed = round_no % 4 == 1, how = round_no % 4;
  if (flushed) sbs(fh, "sync before set_size");
  int64_t old = M.size, size;
  switch (how) {
  case 0: size = rnd(g, 0, old); break;
  case 1: size = max64(0, rnd(g, 0, old / PAGE) * PAGE + rnd(g, -3, 3)); break;
  case 2: size = old + rnd(g, 1, 400000); break;
  default: size = 0; break;
  }
  char when[96];
  snprintf(when, sizeof when, "set_size %lld -> %lld (%s)", (long long)old, (long long)size,
           flushed ? "flushed first" : "dirty data pending");
  cc_expect_rc(ostio_set_size(fh, size), 0, casename, when);
  model_trunc(size);
  vis_lo = size;
  size_within(fh, size, size, when);
  int64_t lo = min64(old, size), hi = min64(CAP, max64(old, size) + rnd(loc, 1, 100000));
  read_expect(fh, lo, hi - lo, when); /* zeros past the new size; new bytes are zeros */
  for (int i = 0; i < 3; i++) ryow_read(fh, p, s, loc, -1);
  MPI_Barrier(COMM); /* the reads above end before other ranks write again */
  wr *ops = plan_ops(p, s, g, 6); /* writes after it, some across the new end */
  do_writes(fh, p, s, ops, 6, loc);
  free(ops);
}
/* read_all of e[0..n) (any rank's list) compared with the model. */
static void read_all_expect(ostio_file *fh, const ostio_extent *e, size_t n, const char *when)
{
  int64_t total = cc_ext_bytes(e, n);
  memset(rbuf, 0x5A, (size_t)total);
  if (!cc_expect_rc(ostio_read_all(fh, n ? e : NULL, n, n ? rbuf : NULL), 0, casename, when)) return;
  for (size_t i = 0, pos = 0; i < n; pos += (size_t)e[i].length, i++)
    if (!expect_model(rbuf + pos, e[i].offset, e[i].length, when)) break;
}
static void shuffle(ostio_extent *e, size_t n, tu_rng *g)
{
  for (size_t i = n; i > 1; i--) {
    size_t j = (size_t)rnd(g, 0, (int64_t)i - 1);
    ostio_extent t = e[i - 1];
    e[i - 1] = e[j], e[j] = t;
  }
}
/* Two write_all in the writers' own zones (the second over the first's
 * bytes), read back at once by read_at; write_at over the second's extents;
 * read_all of own zones. */
static void coll_step(ostio_file *fh, plan *p, const sub *s, tu_rng *g, tu_rng *loc)
{
  ostio_extent *e = ct_xmalloc(sizeof *e * (size_t)(nprocs * MAXEXT));
  size_t *n = ct_xmalloc(sizeof *n * (size_t)nprocs), idx[MAXEXT];
  const ostio_extent *mine = e + rank * MAXEXT;
  for (int call = 0; call < 2; call++) {
    uint32_t id0 = next_wid + 1; /* extent j of rank w (list order): write id0 + w * MAXEXT + j */
    next_wid += (uint32_t)(nprocs * MAXEXT);
    for (int w = 0; w < nprocs; w++) { /* the second call: over a byte of each of the first's */
      ostio_extent *ew = e + w * MAXEXT;
      if (!call) n[w] = spread_zones(p, w, g, idx);
      for (size_t j = 0; j < n[w]; j++) {
        const zone *z = &p->z[call ? zone_at(p, ew[j].offset) : idx[j]];
        int64_t len = pick_len(s, g, z->len);
        int64_t first = call ? start_holding(g, z->off, z->len, len, ew[j].offset + rnd(g, 0, ew[j].length - 1))
                             : z->off + rnd(g, 0, z->len - len);
        ew[j] = (ostio_extent){first, len};
      }
      shuffle(ew, n[w], g);
    }
    int64_t pos = 0;
    for (size_t j = 0; j < n[rank]; pos += mine[j].length, j++)
      ct_data(mine[j].offset, mine[j].length, rank, id0 + (uint32_t)(rank * MAXEXT + j), wbuf + pos);
    cc_expect_rc(ostio_write_all(fh, n[rank] ? mine : NULL, n[rank], n[rank] ? wbuf : NULL), 0,
                 casename, call ? "second write_all" : "write_all");
    for (int w = 0; w < nprocs; w++)
      for (size_t j = 0; j < n[w]; j++)
        model_write(w, id0 + (uint32_t)(w * MAXEXT + j), e[w * MAXEXT + j].offset,
                    e[w * MAXEXT + j].length);
    for (size_t j = 0; j < n[rank]; j++) {
      read_expect(fh, mine[j].offset, mine[j].length, "read_at of own write_all before sync");
      vis_lo = max64(vis_lo, mine[j].offset + mine[j].length);
    }
    size_within(fh, vis_lo, size_cap(), "get_size after write_all");
  }
  int k = s->k / 2; /* write_at calls, each over bytes of the second write_all */
  wr *ops = ct_xmalloc(sizeof *ops * (size_t)(nprocs * k));
  for (int w = 0; w < nprocs; w++)
    for (int i = 0; i < k; i++) {
      wr *o = &ops[w * k + i];
      *o = (wr){0, 0, 0};
      if (!n[w]) continue;
      const ostio_extent *x = &e[w * MAXEXT + rnd(g, 0, (int64_t)n[w] - 1)];
      const zone *z = &p->z[zone_at(p, x->offset)];
      o->len = pick_len(s, g, z->len);
      o->off = start_holding(g, z->off, z->len, o->len, x->offset + rnd(g, 0, x->length - 1));
      o->id = ++next_wid;
    }
  do_writes(fh, p, s, ops, k, loc);
  free(ops);
  size_t m = spread_zones(p, rank, loc, idx); /* read_all of own zones before sync */
  for (size_t j = 0; j < m; j++) {
    const zone *z = &p->z[idx[j]];
    int64_t len = pick_len(s, loc, z->len);
    e[j] = (ostio_extent){z->off + rnd(loc, 0, z->len - len), len};
  }
  shuffle(e, m, loc);
  read_all_expect(fh, e, m, "read_all of own bytes before sync");
  free(e), free(n);
}
/* After a sync-barrier-sync: read_all of [0, past the end) cut into pieces
 * dealt to random ranks. */
static void verify_all(ostio_file *fh, tu_rng *g, tu_rng *loc)
{
  int64_t end = min64(CAP, M.size + rnd(g, 1, 70000));
  ostio_extent *e = ct_xmalloc(sizeof *e * (size_t)(end / 2 + 1));
  size_t n = 0;
  for (int64_t pos = 0, len; pos < end; pos += len) {
    len = min64(rnd(g, 1, 100000), end - pos);
    if (rnd(g, 0, nprocs - 1) == rank) e[n++] = (ostio_extent){pos, len};
  }
  shuffle(e, n, loc);
  read_all_expect(fh, e, n, "read_all after sync-barrier-sync");
  free(e);
}

/* Atomic mode: call c = w * A_CALLS + j is rank w's j-th write of all of its
 * region [A.off[w], +A.len); the regions of the ranks overlap. */
#define A_CALLS 12
static struct {
  int64_t off[64], len;
  uint32_t id0;              /* call c has write id id0 + c */
} A;
/* The call whose bytes fill buf = [lo, hi) (inside one or more regions), or
 * -1: a torn range, or bytes of no call. */
static int shown_call(const uint8_t *buf, int64_t lo, int64_t hi)
{
  for (int c = 0; c < nprocs * A_CALLS; c++) {
    int w = c / A_CALLS;
    if (lo < A.off[w] || hi > A.off[w] + A.len || buf[0] != ct_byte(lo, w, A.id0 + (uint32_t)c)) continue;
    ct_data(lo, hi - lo, w, A.id0 + (uint32_t)c, wbuf);
    if (!memcmp(buf, wbuf, (size_t)(hi - lo))) return c;
  }
  return -1;
}
/* Cuts [lo, hi) at the regions' ends into atoms: cut[0] = lo < ... < cut[n] = hi. */
static int atoms(int64_t lo, int64_t hi, int64_t *cut)
{
  int n = 0;
  cut[n++] = lo;
  for (int64_t at = lo, next; at < hi; at = next, cut[n++] = at) {
    next = hi;
    for (int w = 0; w < nprocs; w++) {
      if (A.off[w] > at && A.off[w] < next) next = A.off[w];
      if (A.off[w] + A.len > at && A.off[w] + A.len < next) next = A.off[w] + A.len;
    }
  }
  return n - 1;
}
/* buf = [lo, hi) read by this rank right after its own call `own`: every atom
 * is one call's bytes, never one of this rank's earlier calls (its region is
 * all of [lo, hi)). 1 when so. */
static int atomic_read_ok(const uint8_t *buf, int64_t lo, int64_t hi, int own)
{
  int64_t cut[130];
  for (int i = 0, n = atoms(lo, hi, cut); i < n; i++) {
    int c = shown_call(buf + (cut[i] - lo), cut[i], cut[i + 1]);
    if (c < 0 || (c / A_CALLS == rank && c < own)) return 0;
  }
  return 1;
}
/* The union [lo, hi) of the regions after every call: each atom is one
 * call's bytes, and some serial order of whole calls (each rank's in program
 * order) gives them: the call an atom shows comes after every other call over
 * it, and these constraints have no cycle. The atoms then go into the model. */
static int atomic_final_ok(const uint8_t *buf, int64_t lo, int64_t hi, char *why, size_t cap)
{
  enum { MAXC = 64 * A_CALLS };
  static unsigned char after[MAXC][MAXC]; /* after[x][y]: call x comes after call y */
  int64_t cut[130];
  int n = atoms(lo, hi, cut), nc = nprocs * A_CALLS, shown[130];
  memset(after, 0, sizeof after);
  for (int c = 0; c < nc; c++)
    if (c % A_CALLS) after[c][c - 1] = 1;
  for (int i = 0; i < n; i++) {
    if ((shown[i] = shown_call(buf + (cut[i] - lo), cut[i], cut[i + 1])) < 0) {
      snprintf(why, cap, "[%lld, %lld) is no one call's bytes", (long long)cut[i],
               (long long)cut[i + 1]);
      return 0;
    }
    for (int c = 0; c < nc; c++)
      if (c != shown[i] && A.off[c / A_CALLS] <= cut[i] && cut[i + 1] <= A.off[c / A_CALLS] + A.len)
        after[shown[i]][c] = 1;
  }
  for (int k = 0; k < nc; k++) /* transitive closure: a cycle puts a call after itself */
    for (int x = 0; x < nc; x++)
      for (int y = 0; after[x][k] && y < nc; y++) after[x][y] |= after[k][y];
  for (int c = 0; c < nc; c++)
    if (after[c][c]) {
      snprintf(why, cap, "no serial order of whole calls gives it (rank %d's call %d would "
               "come after itself)", c / A_CALLS, c % A_CALLS);
      return 0;
    }
  for (int i = 0; i < n; i++)
    model_write(shown[i] / A_CALLS, A.id0 + (uint32_t)shown[i], cut[i], cut[i + 1] - cut[i]);
  return 1;
}
/* This rank's call as write_all: its region cut at page edges into ext (at
 * most len / PAGE + 2), listed forwards or backwards, and the bytes packed in
 * list order into pack. Returns the number of extents. */
static size_t region_extents(const uint8_t *data, int backwards, ostio_extent *ext, uint8_t *pack)
{
  size_t n = 0;
  for (int64_t at = A.off[rank], end = at + A.len, next; at < end; at = next) {
    next = min64((at / PAGE + 1) * PAGE, end);
    ext[n++] = (ostio_extent){at, next - at};
  }
  for (size_t i = 0; backwards && i < n / 2; i++) {
    ostio_extent t = ext[i];
    ext[i] = ext[n - 1 - i], ext[n - 1 - i] = t;
  }
  for (size_t i = 0, pos = 0; i < n; pos += (size_t)ext[i].length, i++)
    memcpy(pack + pos, data + (ext[i].offset - A.off[rank]), (size_t)ext[i].length);
  return n;
}
/* Atomic mode, after a barrier (the round's other writes are done): each rank
 * writes all of its region A_CALLS times with nothing else in between, so
 * that calls overlap in time: write_at, each read back at once (the reads
 * are checked afterwards), and write_all of the region's pages listed
 * forwards on some ranks and backwards on others (one atomic call whatever
 * its list; extents overlap across ranks, allowed in atomic mode). After a
 * sync-barrier-sync every rank reads the union of the regions.
 * Without atomicity calls still go through the pages in file order, so a
 * wrong outcome needs a call to be overtaken (a rank descheduled mid-call):
 * likelier with more ranks than cores, never certain. */
static void atomic_step(ostio_file *fh, plan *p, const sub *s, tu_rng *g, tu_rng *loc)
{
  A.len = round_no % 2 ? PAGE + rnd(g, 1, PAGE) : 24 * PAGE + rnd(g, 1, PAGE);
  int64_t shift = rnd(g, 1, A.len / nprocs), lo = rnd(g, 0, SPAN - A.len - (nprocs - 1) * shift);
  for (int w = 0; w < nprocs; w++) A.off[w] = lo + w * shift;
  int64_t hi = A.off[nprocs - 1] + A.len, mine = A.off[rank];
  A.id0 = next_wid + 1;
  next_wid += (uint32_t)(nprocs * A_CALLS);
  uint8_t *data = ct_xmalloc((size_t)(A_CALLS * A.len)), *back = ct_xmalloc((size_t)(A_CALLS * A.len));
  ostio_extent ext[A_CALLS][32];
  size_t next[A_CALLS] = {0};
  for (int j = 0; j < A_CALLS; j++) {
    ct_data(mine, A.len, rank, A.id0 + (uint32_t)(rank * A_CALLS + j), back);
    if (j % 2) next[j] = region_extents(back, (rank + j / 2) % 2, ext[j], data + j * A.len);
    else memcpy(data + j * A.len, back, (size_t)A.len);
  }
  int rcs[A_CALLS] = {0}, bad = 0;
  MPI_Barrier(COMM);
  for (int j = 0; j < A_CALLS; j++) {
    if (j % 2) { /* every rank checks the code below */
      rcs[j] = ostio_write_all(fh, ext[j], next[j], data + j * A.len);
    } else if ((rcs[j] = ostio_write_at(fh, mine, data + j * A.len, (size_t)A.len)) == 0) {
      rcs[j] = ostio_read_at(fh, mine, back + j * A.len, (size_t)A.len);
    }
  }
  for (int j = 0; j < A_CALLS; j++) {
    if (j % 2) cc_expect_rc(rcs[j], 0, casename, "atomic write_all over other ranks' extents");
    else CHECKF(rcs[j] == 0, "%s: atomic write_at or read_at: %s", casename, ostio_errname(rcs[j]));
    bad += j % 2 == 0 && rcs[j] == 0 &&
           !atomic_read_ok(back + j * A.len, mine, mine + A.len, rank * A_CALLS + j);
  }
  CHECKF(!bad, "%s: %d reads of [%lld, +%lld) during atomic writes were no serial outcome "
         "(torn, or older than the rank's own write)", casename, bad, (long long)mine,
         (long long)A.len);
  free(data), free(back);
  sbs(fh, "sync-barrier-sync after atomic writes");
  char why[160] = "";
  memset(rbuf, 0, (size_t)(hi - lo));
  CHECK(ostio_read_at(fh, lo, rbuf, (size_t)(hi - lo)) == 0);
  if (!CHECKF(atomic_final_ok(rbuf, lo, hi, why, sizeof why), "%s: [%lld, %lld) after concurrent "
              "atomic writes: %s", casename, (long long)lo, (long long)hi, why))
    memcpy(M.b + lo, rbuf, (size_t)(hi - lo)); /* go on from what is there */
  (void)p, (void)s, (void)loc;
}

/* ---- the rounds ----------------------------------------------------------------- */
static MPI_Info file_info(const char *cache)
{
  char h[512];
  snprintf(h, sizeof h, "%s;%s", kind_hints, cache_on ? cache : "ostio_cache=disable");
  return cc_info(h);
}
/* The cache's counters (issue 17, "Statistics"), when the build has them:
 * printed; with the cache on, the small calls of random and evict must use it
 * on a plain file or a striped container (log containers ignore the hint). */
static void cache_counters(ostio_file *fh, const sub *s)
{
  static const char *const names[] = {"cache_hits", "cache_misses", "cache_evictions"};
  double v[3] = {0, 0, 0};
  int have = 0;
  for (int i = 0; i < 3; i++) have += ostio_stat_get(fh, names[i], &v[i]) == 0;
  MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, COMM);
  if (rank == 0 && have) printf("cache counters: hits %.0f, misses %.0f, evictions %.0f\n", v[0], v[1], v[2]);
  if (rank == 0 && !have) printf("cache counters: none (no cache in this build)\n");
  if (!have || !kind_cached || (strcmp(s->name, "random") && strcmp(s->name, "evict"))) return;
  CHECKF(cache_on ? v[0] + v[1] > 0 : v[0] + v[1] == 0, "%s: %.0f hits and misses", casename, v[0] + v[1]);
  if (cache_on && !strcmp(s->name, "evict")) CHECKF(v[2] > 0, "%s: no eviction", casename);
}
static void run_rounds(const sub *s)
{
  ostio_file *fh = NULL;
  snprintf(path, sizeof path, "%s/%s", dir, s->name);
  MPI_Info info = file_info(s->cache);
  int refused = s->step == atomic_step && !kind_cached; /* atomic mode needs the cache */
  int ok = cc_open(path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh, refused ? OSTIO_EHINT : 0, casename);
  MPI_Info_free(&info);
  if (!ok) return;
  for (int round = 0; round < s->rounds; round++) {
    tu_rng g, loc; /* g: the same on every rank; loc: this rank's reads */
    tu_rng_seed(&g, ct_mix(seed, (uint64_t)round));
    tu_rng_seed(&loc, ct_mix(seed, 1000003u * (uint64_t)(rank + 1) + (uint64_t)round));
    round_no = round;
    plan p;
    plan_make(&p, s, &g);
    wr *ops = plan_ops(&p, s, &g, s->k);
    do_writes(fh, &p, s, ops, s->k, &loc);
    free(ops);
    if (s->step) s->step(fh, &p, s, &g, &loc);
    sbs(fh, "sync-barrier-sync");
    verify_at(fh, s, &loc, "read_at after sync-barrier-sync");
    verify_all(fh, &g, &loc);
    disk_plain("on disk after sync");
    MPI_Barrier(COMM); /* every read of this round ends before the next writes */
    plan_free(&p);
  }
  cache_counters(fh, s);
  cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
  disk_plain("on disk after close");
  disk_reopen("fresh open after close");
}

/* ---- faults ------------------------------------------------------------------------ */
/* One case: rank R's nth system write fails with what (or is short), during a
 * round of small writes; then sync and close, or close alone. */
static void fault_case(const sub *s, int c, int R, int nth, const char *what, int code, int with_sync,
                       int tiny)
{
  char spec[64], hints[160];
  snprintf(spec, sizeof spec, "write:%d:%d:%s", R, nth, what);
  snprintf(casename, sizeof casename, "fault OSTIO_FAULT=%s, %s, cache %s", spec,
           with_sync ? "write + sync + close" : "write + close",
           !cache_on ? "disabled" : tiny ? "of 3 pages" : "default");
  snprintf(hints, sizeof hints, "%s%s", s->cache, tiny ? ";ostio_cache_size=196608" : "");
  snprintf(path, sizeof path, "%s/fault-%d", dir, c);
  model_reset();
  cc_watchdog(60, casename);
  alarm(60);
  ostio_file *fh = NULL;
  MPI_Info info = file_info(hints);
  setenv("OSTIO_FAULT", spec, 1);
  int ok = cc_open(path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh, 0, casename);
  unsetenv("OSTIO_FAULT");
  MPI_Info_free(&info);
  if (!ok) return;
  tu_rng g;
  tu_rng_seed(&g, ct_mix(seed, 5000u + (uint64_t)c));
  plan p;
  plan_make(&p, s, &g);
  wr *ops = plan_ops(&p, s, &g, s->k);
  uint8_t *failed = calloc((size_t)(nprocs * s->k), 1);
  for (int i = 0; i < s->k; i++) {
    const wr *o = &ops[rank * s->k + i];
    if (!o->len) continue;
    ct_data(o->off, o->len, rank, o->id, wbuf);
    int rc = ostio_write_at(fh, o->off, wbuf, (size_t)o->len);
    CHECKF(rc == 0 || rc == code, "%s: write_at gave %s, expected 0 or %s", casename,
           ostio_errname(rc), ostio_errname(code));
    failed[rank * s->k + i] = rc != 0;
  }
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, failed, s->k, MPI_UINT8_T, COMM);
  int nfailed = 0;
  for (int w = 0; w < nprocs; w++)
    for (int i = 0; i < s->k; i++) {
      const wr *o = &ops[w * s->k + i];
      if (!o->len) continue;
      nfailed += failed[w * s->k + i];
      if (failed[w * s->k + i]) model_undef(o->off, o->len);
      else model_write(w, o->id, o->off, o->len);
    }
  int rc_sync = with_sync ? ostio_sync(fh) : 0;
  if (with_sync) cc_expect_rc(rc_sync, rc_sync, casename, "ostio_sync (the same code on every rank)");
  /* faults fired up to here (those at close are seen only in the bytes on disk) */
  int fired = (int)cc_reduce_d(cc_stat(fh, "faults_injected"), MPI_SUM);
  CHECKF(rc_sync == 0 || rc_sync == code, "%s: sync gave %s", casename, ostio_errname(rc_sync));
  MPI_Barrier(COMM);
  int rc_close = ostio_close(&fh);
  cc_expect_rc(rc_close, rc_close, casename, "ostio_close (the same code on every rank)");
  CHECKF(rc_close == 0 || rc_close == code, "%s: close gave %s", casename, ostio_errname(rc_close));
  CHECKF(fired || !nfailed, "%s: %d write calls failed, no fault fired", casename, nfailed);
  int absorbed = fired && code && !nfailed && !rc_sync && !rc_close;
  if (rank == 0)
    printf("%s: fired before close %d, failed write_at calls %d, sync %s, close %s%s\n", casename,
           fired, nfailed, with_sync ? ostio_errname(rc_sync) : "not called", ostio_errname(rc_close),
           absorbed ? " (a retry absorbed the error: the bytes must be on disk)" : "");
  /* Every write that said success is on disk when sync and close said so,
   * also when a fault fired and no call reported it (a failed write-back
   * retried with success loses nothing). */
  if (!rc_sync && !rc_close) {
    disk_plain("on disk after close");
    disk_reopen("fresh open after close");
  }
  free(failed), free(ops);
  plan_free(&p);
  cc_watchdog(240, casename);
  alarm(240);
}
/* With the cache, a fault may fire in a write-back at eviction (tiny cache)
 * or at the flush of sync or close; without it, in the write_at call. */
static void run_faults(const sub *s)
{
  fault_case(s, 0, 0, 1, "EIO", OSTIO_EIO, 1, 0);
  fault_case(s, 1, nprocs - 1, 2, "EIO", OSTIO_EIO, 0, 1);
  fault_case(s, 2, nprocs - 1, 1, "ENOSPC", OSTIO_ENOSPC, 0, 0);
  fault_case(s, 3, 0, 1, "short", 0, 1, 1);
}

int main(int argc, char **argv)
{
  if (cc_init(&argc, &argv, "test_cache_mpi", 64, &rank, &nprocs)) return 1;
  const sub *s = NULL;
  int k = -1;
  for (size_t i = 0; argc > 2 && i < sizeof subs / sizeof *subs; i++)
    if (!strcmp(argv[1], subs[i].name)) s = &subs[i];
  for (int i = 0; argc > 2 && i < 3; i++)
    if (!strcmp(argv[2], kinds[i][0])) k = i;
  if (argc > 3) cache_on = !strcmp(argv[3], "enable") ? 1 : !strcmp(argv[3], "disable") ? 0 : -1;
  if (!s || k < 0 || cache_on < 0 || argc > 4) {
    if (rank == 0)
      fprintf(stderr, "usage: test_cache_mpi random|evict|bypass|setsize|coll|fault|atomic "
              "plain|striped|log [enable|disable]\n");
    MPI_Finalize();
    return 2;
  }
  kind_hints = kinds[k][1];
  is_plain = k == 0, kind_cached = k < 2;
  unsetenv("OSTIO_FAULT");
  seed = ct_seed(COMM, 1717);
  snprintf(casename, sizeof casename, "%s %s, cache %s", s->name, kinds[k][0],
           cache_on ? "enabled" : "disabled");
  if (rank == 0) printf("%s, %d ranks: hints %s;%s\n", casename, nprocs, kind_hints,
                        cache_on ? s->cache : "ostio_cache=disable");
  cc_tmpdir(dir, sizeof dir, "cache");
  M.b = ct_xmalloc((size_t)CAP), M.who = ct_xmalloc((size_t)CAP);
  M.wid = ct_xmalloc(sizeof *M.wid * (size_t)CAP);
  wbuf = ct_xmalloc((size_t)CAP), rbuf = ct_xmalloc((size_t)CAP);
  model_reset();
  cc_watchdog(240, casename);
  alarm(240);
  if (!strcmp(s->name, "fault")) run_faults(s);
  else run_rounds(s);
  alarm(0);
  long bad = tu_failed;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, COMM);
  if (bad && rank == 0)
    printf("reproduce: OSTIO_TEST_SEED=%llu mpiexec -n %d test_cache_mpi %s %s %s\n",
           (unsigned long long)seed, nprocs, s->name, kinds[k][0], cache_on ? "enable" : "disable");
  free(M.b), free(M.who), free(M.wid), free(wbuf), free(rbuf);
  return CC_FINISH();
}
