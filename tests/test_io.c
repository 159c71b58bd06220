/* The system-I/O layer (src/io): pread/pwrite loops, OSTIO_FAULT parsing
 * and injection, batches on the loop and io_uring paths, statistics. Every
 * data check reads the bytes back from disk with a plain pread. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "layout/layout.h"
#include "testutil.h"

static char dir[256];
static int nfile;

static int new_file(void)
{
  char path[300];
  snprintf(path, sizeof path, "%s/f%d", dir, nfile++);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) perror(path);
  return fd;
}

/* Self-describing bytes: a misplaced byte shows its offset and writer tag. */
static unsigned char pat(int64_t off, int tag)
{
  return (unsigned char)((off * 131 + (off >> 8) * 7 + tag * 29) & 0xFF);
}
static void fill(char *b, size_t n, int64_t off, int tag)
{
  for (size_t i = 0; i < n; i++) b[i] = (char)pat(off + (int64_t)i, tag);
}
/* 1 when the file holds expect[0..n) at off (raw pread, not the layer). */
static int on_disk(int fd, const char *expect, size_t n, int64_t off)
{
  char *got = malloc(n ? n : 1);
  size_t have = 0;
  while (have < n) {
    ssize_t r = pread(fd, got + have, n - have, off + (off_t)have);
    if (r <= 0) break;
    have += (size_t)r;
  }
  if (have < n) memset(got + have, 0, n - have);
  int ok = memcmp(got, expect, n) == 0;
  free(got);
  return ok;
}

/* io with OSTIO_FAULT=spec (NULL: none) and OSTIO_IO_URING unset. */
static int init_io(ostio__io *io, int fd, int rank, const ostio_layout *l, ostio__stats *s,
                   const char *spec)
{
  if (spec) setenv("OSTIO_FAULT", spec, 1);
  else unsetenv("OSTIO_FAULT");
  unsetenv("OSTIO_IO_URING");
  if (s) memset(s, 0, sizeof *s);
  int rc = ostio__io_init(io, fd, rank, l, s);
  unsetenv("OSTIO_FAULT");
  return rc;
}

static int has(const char *needle) { return strstr(ostio_last_error(), needle) != NULL; }

/* ---- OSTIO_FAULT parsing ------------------------------------------------- */

#define SYNTAX                                                                              \
  "expected OP:RANK:NTH:WHAT with OP write, read or shm, RANK a rank >= 0 or *, NTH the 1-based " \
  "system call number, WHAT one of EIO, ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EPERM, "        \
  "ENOMEM, EINVAL, short, stuck (e.g. write:0:3:EIO)"

static void fault_parse(void)
{
  ostio__fault f;
  CHECK(ostio__fault_parse(NULL, &f) == 0 && !f.active);
  CHECK(ostio__fault_parse("", &f) == 0 && !f.active);
  CHECK(ostio__fault_parse("write:0:3:EIO", &f) == 0);
  CHECK(f.active && f.is_write && f.rank == 0 && f.nth == 3 && f.mode == OSTIO__FAULT_ERRNO &&
        f.err == EIO);
  CHECK(ostio__fault_parse("read:*:1:short", &f) == 0);
  CHECK(f.active && !f.is_write && f.rank == -1 && f.nth == 1 && f.mode == OSTIO__FAULT_SHORT);
  CHECK(ostio__fault_parse("write:12:9000000000:stuck", &f) == 0);
  CHECK(f.rank == 12 && f.nth == 9000000000LL && f.mode == OSTIO__FAULT_STUCK);
  const char *names[] = {"EIO", "ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EACCES", "EPERM", "ENOMEM"};
  const int errs[] = {EIO, ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EPERM, ENOMEM};
  for (int i = 0; i < 8; i++) {
    char spec[64];
    snprintf(spec, sizeof spec, "read:2:5:%s", names[i]);
    CHECKF(ostio__fault_parse(spec, &f) == 0 && f.err == errs[i], "%s", spec);
  }

  CHECK(ostio__fault_parse("writ:0:1:EIO", &f) == OSTIO_EINVAL && !f.active);
  CHECK(!strcmp(ostio_last_error(), "OSTIO_FAULT=\"writ:0:1:EIO\": bad OP \"writ\"; " SYNTAX));
  CHECK(ostio__fault_parse("write:x:1:EIO", &f) == OSTIO_EINVAL);
  CHECK(!strcmp(ostio_last_error(), "OSTIO_FAULT=\"write:x:1:EIO\": bad RANK \"x\"; " SYNTAX));
  CHECK(ostio__fault_parse("write:0:0:EIO", &f) == OSTIO_EINVAL);
  CHECK(!strcmp(ostio_last_error(), "OSTIO_FAULT=\"write:0:0:EIO\": bad NTH \"0\"; " SYNTAX));
  CHECK(ostio__fault_parse("write:0:1:eio", &f) == OSTIO_EINVAL);
  CHECK(!strcmp(ostio_last_error(), "OSTIO_FAULT=\"write:0:1:eio\": bad WHAT \"eio\"; " SYNTAX));
  CHECK(ostio__fault_parse("write:0:1", &f) == OSTIO_EINVAL);
  CHECK(!strcmp(ostio_last_error(), "OSTIO_FAULT=\"write:0:1\": expected 4 fields separated "
                                    "by ':', found 3; " SYNTAX));
  CHECK(ostio__fault_parse("write:0:1:EIO:x", &f) == OSTIO_EINVAL && has("found 5"));
  const char *bad_rank[] = {"write:-1:1:EIO", "write::1:EIO", "write:+1:1:EIO", "write: 1:1:EIO",
                            "write:99999999999:1:EIO"};
  for (int i = 0; i < 5; i++)
    CHECKF(ostio__fault_parse(bad_rank[i], &f) == OSTIO_EINVAL && has("bad RANK"), "%s: %s",
           bad_rank[i], ostio_last_error());
  const char *bad_nth[] = {"write:0:-2:EIO", "write:0:1x:EIO", "write:0::EIO",
                           "write:0:99999999999999999999:EIO"};
  for (int i = 0; i < 4; i++)
    CHECKF(ostio__fault_parse(bad_nth[i], &f) == OSTIO_EINVAL && has("bad NTH"), "%s",
           bad_nth[i]);
  CHECK(ostio__fault_parse("write:0:1:Short", &f) == OSTIO_EINVAL && has("bad WHAT \"Short\""));
  CHECK(ostio__fault_parse("WRITE:0:1:EIO", &f) == OSTIO_EINVAL && has("bad OP \"WRITE\""));
  char longspec[300] = {0};
  memset(longspec, 'w', sizeof longspec - 1);
  CHECK(ostio__fault_parse(longspec, &f) == OSTIO_EINVAL && has("too long"));

  /* Through the environment. */
  ostio__io io;
  CHECK(init_io(&io, -1, 0, NULL, NULL, "read:3:2:ENOSPC") == 0);
  CHECK(io.fault.active && io.fault.rank == 3 && io.fault.err == ENOSPC);
  CHECK(init_io(&io, -1, 0, NULL, NULL, "read:3:2") == OSTIO_EINVAL && !io.fault.active);
  setenv("OSTIO_IO_URING", "yes", 1);
  CHECK(ostio__io_init(&io, -1, 0, NULL, NULL) == OSTIO_EINVAL);
  CHECK(!strcmp(ostio_last_error(), "OSTIO_IO_URING=\"yes\": expected 1 (batches of 16 or more "
                "requests through io_uring when the kernel allows it) or 0 (one pwrite or "
                "pread per request)"));
  setenv("OSTIO_IO_URING", "1", 1);
  CHECK(ostio__io_init(&io, -1, 0, NULL, NULL) == 0 && io.uring_use == 1);
  unsetenv("OSTIO_IO_URING");
}

/* ---- single requests ------------------------------------------------------ */

static void round_trips(void)
{
  int fd = new_file();
  ostio__io io;
  ostio__stats s;
  CHECK(init_io(&io, fd, 0, NULL, &s, NULL) == 0);
  size_t n = 3 << 20;
  char *w = malloc(n), *r = malloc(n);
  fill(w, n, 4096, 1);
  CHECK(ostio__io_pwrite(&io, w, n, 4096) == 0);
  CHECK(on_disk(fd, w, n, 4096));
  memset(r, 0x55, n);
  CHECK(ostio__io_pread(&io, r, n, 4096) == 0 && !memcmp(r, w, n));
  CHECK(s.c[OSTIO__STAT_bytes_written] == (int64_t)n && s.c[OSTIO__STAT_bytes_read] == (int64_t)n);
  CHECK(s.c[OSTIO__STAT_sys_writes] == 1 && s.c[OSTIO__STAT_sys_reads] == 1);
  CHECK(io.nwrites == 1 && io.nreads == 1);
  CHECK(s.t[OSTIO__T_time_io] > 0 && s.t[OSTIO__T_time_io] < 60);

  /* Past 4 GiB (sparse): the hole reads as zeros. */
  int64_t far = (5LL << 30) + 123;
  fill(w, 1 << 20, far, 2);
  CHECK(ostio__io_pwrite(&io, w, 1 << 20, far) == 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == far + (1 << 20));
  CHECK(on_disk(fd, w, 1 << 20, far));
  CHECK(ostio__io_pread(&io, r, 1 << 20, far) == 0 && !memcmp(r, w, 1 << 20));
  memset(r, 0x55, 8192);
  CHECK(ostio__io_pread(&io, r, 8192, 4LL << 30) == 0);
  int zero = 1;
  for (int i = 0; i < 8192; i++) zero &= r[i] == 0;
  CHECK(zero);

  /* Read past end of file: the real bytes, then zeros. */
  CHECK(ftruncate(fd, 0) == 0);
  fill(w, 100, 0, 3);
  CHECK(ostio__io_pwrite(&io, w, 100, 0) == 0);
  memset(r, 0x55, 300);
  CHECK(ostio__io_pread(&io, r, 300, 50) == 0);
  CHECK(!memcmp(r, w + 50, 50));
  zero = 1;
  for (int i = 50; i < 300; i++) zero &= r[i] == 0;
  CHECK(zero);
  memset(r, 0x55, 64);
  CHECK(ostio__io_pread(&io, r, 64, 1000) == 0 && r[0] == 0 && r[63] == 0);
  CHECK(ostio__io_pwrite(&io, w, 0, 7) == 0 && ostio__io_pread(&io, r, 0, 7) == 0);

  CHECK(ostio__io_pwrite(&io, w, 10, -1) == OSTIO_ERANGE && has("offset -1"));
  CHECK(ostio__io_pread(&io, r, 10, INT64_MAX - 5) == OSTIO_ERANGE);
  /* A real system error names the offset, the length and the errno text. */
  ostio__io bad;
  CHECK(init_io(&bad, 1000000, 0, NULL, NULL, NULL) == 0);
  CHECK(ostio__io_pwrite(&bad, w, 10, 77) == OSTIO_EIO);
  CHECKF(has("writing 10 bytes at offset 77 failed at offset 77: Bad file descriptor"), "%s",
         ostio_last_error());
  free(w), free(r), close(fd);
}

static void write_faults(void)
{
  int fd = new_file();
  ostio__io io;
  ostio__stats s;
  char w[3][1000], r[1000], old[1000];
  for (int k = 0; k < 3; k++) fill(w[k], 1000, k * 1000, 10 + k);
  fill(old, 1000, 1000, 99);
  CHECK(pwrite(fd, old, 1000, 1000) == 1000);

  /* EIO on the 2nd write: that call fails, moves nothing; the others work. */
  CHECK(init_io(&io, fd, 0, NULL, &s, "write:*:2:EIO") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 1000, 0) == 0);
  CHECK(ostio__io_pwrite(&io, w[1], 1000, 1000) == OSTIO_EIO);
  CHECKF(!strcmp(ostio_last_error(), "writing 1000 bytes at offset 1000 failed at offset 1000: "
                 "Input/output error (errno 5), injected by OSTIO_FAULT; unset OSTIO_FAULT to "
                 "run without faults"), "%s", ostio_last_error());
  CHECK(ostio__io_pwrite(&io, w[2], 1000, 2000) == 0);
  CHECK(on_disk(fd, w[0], 1000, 0) && on_disk(fd, old, 1000, 1000) && on_disk(fd, w[2], 1000, 2000));
  CHECK(io.nwrites == 3 && s.c[OSTIO__STAT_sys_writes] == 3 && s.c[OSTIO__STAT_faults_injected] == 1);
  CHECK(s.c[OSTIO__STAT_bytes_written] == 2000);
  CHECK(ostio__io_pwrite(&io, w[1], 1000, 1000) == 0 && on_disk(fd, w[1], 1000, 1000));

  /* errno names map to their codes. */
  CHECK(init_io(&io, fd, 0, NULL, NULL, "write:0:1:ENOSPC") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 10, 0) == OSTIO_ENOSPC && has("No space left"));
  CHECK(init_io(&io, fd, 0, NULL, NULL, "write:0:1:EROFS") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 10, 0) == OSTIO_EACCES);

  /* short: the loop finishes the write with one more call. */
  CHECK(ftruncate(fd, 0) == 0);
  CHECK(init_io(&io, fd, 0, NULL, &s, "write:*:1:short") == 0);
  CHECK(ostio__io_pwrite(&io, w[1], 1000, 500) == 0 && on_disk(fd, w[1], 1000, 500));
  CHECK(s.c[OSTIO__STAT_sys_writes] == 2 && io.nwrites == 2);
  CHECK(s.c[OSTIO__STAT_bytes_written] == 1000 && s.c[OSTIO__STAT_faults_injected] == 1);
  CHECK(init_io(&io, fd, 0, NULL, &s, "write:*:1:short") == 0);
  CHECK(ostio__io_pwrite(&io, w[2], 1, 9) == 0 && on_disk(fd, w[2], 1, 9));
  CHECK(s.c[OSTIO__STAT_sys_writes] == 1);

  /* stuck: no progress is an error, not a hang. */
  CHECK(init_io(&io, fd, 0, NULL, &s, "write:*:2:stuck") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 1000, 0) == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 1000, 3000) == OSTIO_EIO);
  CHECKF(!strcmp(ostio_last_error(), "writing 1000 bytes at offset 3000: a write call at offset "
                 "3000 moved 0 bytes (no progress), injected by OSTIO_FAULT; unset OSTIO_FAULT "
                 "to run without faults"), "%s", ostio_last_error());

  /* Rank filter. */
  CHECK(init_io(&io, fd, 0, NULL, NULL, "write:1:1:EIO") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 100, 0) == 0);
  CHECK(init_io(&io, fd, 1, NULL, NULL, "write:1:1:EIO") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 100, 0) == OSTIO_EIO);
  CHECK(init_io(&io, fd, 7, NULL, NULL, "write:*:1:EIO") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 100, 0) == OSTIO_EIO);
  /* A read fault leaves writes alone. */
  CHECK(init_io(&io, fd, 0, NULL, NULL, "read:*:1:EIO") == 0);
  CHECK(ostio__io_pwrite(&io, w[0], 100, 0) == 0);
  CHECK(ostio__io_pread(&io, r, 100, 0) == OSTIO_EIO && has("reading 100 bytes at offset 0"));
  close(fd);
}

static void read_faults(void)
{
  int fd = new_file();
  ostio__io io;
  ostio__stats s;
  char w[4096], r[4096];
  fill(w, sizeof w, 0, 5);
  CHECK(pwrite(fd, w, sizeof w, 0) == (ssize_t)sizeof w);
  CHECK(init_io(&io, fd, 2, NULL, &s, "read:2:2:EIO") == 0);
  CHECK(ostio__io_pread(&io, r, 4096, 0) == 0 && !memcmp(r, w, 4096));
  CHECK(ostio__io_pread(&io, r, 100, 7) == OSTIO_EIO && has("injected"));
  CHECK(ostio__io_pread(&io, r, 100, 7) == 0 && !memcmp(r, w + 7, 100));
  CHECK(io.nreads == 3 && s.c[OSTIO__STAT_sys_reads] == 3 && s.c[OSTIO__STAT_faults_injected] == 1);
  CHECK(init_io(&io, fd, 0, NULL, &s, "read:*:1:short") == 0);
  memset(r, 0, sizeof r);
  CHECK(ostio__io_pread(&io, r, 4096, 0) == 0 && !memcmp(r, w, 4096));
  CHECK(s.c[OSTIO__STAT_sys_reads] == 2 && s.c[OSTIO__STAT_bytes_read] == 4096);
  CHECK(init_io(&io, fd, 0, NULL, &s, "read:*:1:stuck") == 0);
  CHECK(ostio__io_pread(&io, r, 10, 0) == OSTIO_EIO && has("a read call at offset 0 moved 0"));
  CHECK(init_io(&io, fd, 0, NULL, &s, "read:*:1:EACCES") == 0);
  CHECK(ostio__io_pread(&io, r, 10, 0) == OSTIO_EACCES && has("Permission denied"));
  close(fd);
}

/* ---- statistics on a layout ----------------------------------------------- */

static void stripe_counters(void)
{
  int fd = new_file();
  ostio__io io;
  ostio__stats s;
  ostio_layout *l;
  static char w[256 << 10];
  fill(w, sizeof w, 0, 7);
  CHECK(ostio__layout_simple(4096, 4, 0, &l) == 0);
  CHECK(init_io(&io, fd, 0, l, &s, NULL) == 0);
  CHECK(ostio__io_pwrite(&io, w, 4096, 0) == 0);         /* sized + aligned */
  CHECK(ostio__io_pwrite(&io, w, 8192, 8192) == 0);      /* aligned         */
  CHECK(ostio__io_pwrite(&io, w, 4096, 100) == 0);       /* neither         */
  CHECK(ostio__io_pwrite(&io, w, 4096, 3 * 4096) == 0);  /* sized + aligned */
  CHECK(ostio__io_pwrite(&io, w, 100, 4096) == 0);       /* aligned         */
  CHECK(ostio__io_pread(&io, w, 4096, 0) == 0);          /* reads: no count */
  CHECK_EQ_I64(s.c[OSTIO__STAT_stripe_sized_writes], 2);
  CHECK_EQ_I64(s.c[OSTIO__STAT_stripe_aligned_writes], 4);
  /* Per system call: a short first call of a whole stripe is not sized. */
  CHECK(init_io(&io, fd, 0, l, &s, "write:*:1:short") == 0);
  CHECK(ostio__io_pwrite(&io, w, 4096, 4096) == 0);
  CHECK(s.c[OSTIO__STAT_stripe_sized_writes] == 0 && s.c[OSTIO__STAT_stripe_aligned_writes] == 1);
  CHECK(init_io(&io, fd, 0, NULL, &s, NULL) == 0); /* no layout: no counts */
  CHECK(ostio__io_pwrite(&io, w, 4096, 0) == 0 && s.c[OSTIO__STAT_stripe_aligned_writes] == 0);
  CHECK(init_io(&io, fd, 0, l, NULL, NULL) == 0); /* no stats: fine */
  CHECK(ostio__io_pwrite(&io, w, 4096, 0) == 0);
  ostio__layout_destroy(l);

  /* PFL: stripes are numbered from file offset 0 in every component. */
  l = ostio__layout_new();
  ostio__comp c0 = {.start = 0, .end = 192 << 10, .stripe_size = 64 << 10, .stripe_count = 1,
                    .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  ostio__comp c1 = {.start = 192 << 10, .end = 1 << 20, .stripe_size = 128 << 10,
                    .stripe_count = 2, .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  CHECK(ostio__layout_add(l, &c0) == 0 && ostio__layout_add(l, &c1) == 0);
  CHECK(init_io(&io, fd, 0, l, &s, NULL) == 0);
  CHECK(ostio__io_pwrite(&io, w, 64 << 10, 128 << 10) == 0);  /* comp 0: sized        */
  CHECK(ostio__io_pwrite(&io, w, 64 << 10, 160 << 10) == 0);  /* comp 0: neither      */
  CHECK(ostio__io_pwrite(&io, w, 128 << 10, 192 << 10) == 0); /* comp 1 start: neither */
  CHECK(ostio__io_pwrite(&io, w, 128 << 10, 256 << 10) == 0); /* comp 1: sized        */
  CHECK(ostio__io_pwrite(&io, w, 128 << 10, 0) == 0);         /* comp 0: aligned      */
  CHECK(ostio__io_pwrite(&io, w, 128 << 10, 1 << 20) == 0);   /* past the layout      */
  CHECK(ostio__io_pwrite(&io, w, 128 << 10, 896 << 10) == 0); /* comp 1 last: sized   */
  CHECK(ostio__io_pwrite(&io, w, 64 << 10, 960 << 10) == 0);  /* comp 1: neither      */
  CHECK_EQ_I64(s.c[OSTIO__STAT_stripe_sized_writes], 3);
  CHECK_EQ_I64(s.c[OSTIO__STAT_stripe_aligned_writes], 4);
  ostio__layout_destroy(l);
  close(fd);
}

/* ---- batches --------------------------------------------------------------- */

#define FSIZE (1 << 20)

typedef struct {
  ostio__io_req *req;
  size_t n, runs;   /* runs: requests left after merging */
  char *model;      /* the expected file, FSIZE bytes    */
  char *arena;      /* buffers of all requests           */
} req_set;

/* Random non-overlapping requests in [0, FSIZE), shuffled. merged: buffers
 * follow the file (adjacent ranges merge); else each buffer is apart. */
static void make_set(tu_rng *g, req_set *rs, int merged, int tag)
{
  size_t cap = 600;
  rs->req = calloc(cap, sizeof *rs->req);
  rs->model = calloc(FSIZE, 1);
  rs->arena = malloc(2 * FSIZE);
  rs->n = rs->runs = 0;
  int64_t pos = tu_rng_range(g, 0, 5000), prev_end = -1;
  size_t arena_pos = 0;
  while (rs->n < cap) {
    int64_t len = tu_rng_range(g, 0, 9) == 0 ? tu_rng_range(g, 4096, 40000)
                                             : tu_rng_range(g, 1, 3000);
    if (pos + len > FSIZE) break;
    ostio__io_req *q = &rs->req[rs->n++];
    q->off = pos;
    q->len = len;
    q->buf = merged ? rs->arena + pos : rs->arena + arena_pos;
    arena_pos += (size_t)len + 1;
    fill(q->buf, (size_t)len, pos, tag);
    memcpy(rs->model + pos, q->buf, (size_t)len);
    if (!(merged && prev_end == pos)) rs->runs++;
    prev_end = pos + len;
    pos += len + (tu_rng_range(g, 0, 2) == 0 ? 0 : tu_rng_range(g, 1, 5000));
  }
  for (size_t i = rs->n; i > 1; i--) {
    size_t j = (size_t)tu_rng_range(g, 0, (int64_t)i - 1);
    ostio__io_req t = rs->req[i - 1];
    rs->req[i - 1] = rs->req[j];
    rs->req[j] = t;
  }
}

static void free_set(req_set *rs) { free(rs->req), free(rs->model), free(rs->arena); }

/* Forces the loop (ring 0) or the ring for every batch. */
static void use_ring(ostio__io *io, int ring)
{
  io->uring_use = ring;
  io->uring_min = 1;
}

static void batches(tu_rng *g, int ring)
{
  for (int t = 0; t < 12; t++) {
    int merged = t % 2;
    req_set rs;
    make_set(g, &rs, merged, t);
    ostio__io_req *copy = malloc(rs.n * sizeof *copy);
    memcpy(copy, rs.req, rs.n * sizeof *copy);
    int fd = new_file();
    ostio__io io;
    ostio__stats s;
    CHECK(init_io(&io, fd, 0, NULL, &s, NULL) == 0);
    use_ring(&io, ring);
    CHECKF(ostio__io_write_batch(&io, rs.req, rs.n) == 0, "%s", ostio_last_error());
    CHECK(!memcmp(copy, rs.req, rs.n * sizeof *copy)); /* caller's array untouched */
    CHECKF(on_disk(fd, rs.model, FSIZE, 0), "ring %d set %d", ring, t);
    CHECK(s.t[OSTIO__T_time_io] > 0);
    CHECKF(s.c[OSTIO__STAT_sys_writes] == (int64_t)rs.runs, "ring %d merged %d: %lld calls, "
           "%zu runs of %zu", ring, merged, (long long)s.c[OSTIO__STAT_sys_writes], rs.runs, rs.n);
    if (ring && rs.runs > 0) CHECK(io.uring_state != 0);
    /* Read back into cleared buffers (plus past-EOF zero fill). */
    memset(rs.arena, 0x55, 2 * FSIZE);
    CHECK(ftruncate(fd, FSIZE / 2) == 0);
    CHECK(ostio__io_read_batch(&io, rs.req, rs.n) == 0);
    int ok = 1;
    for (size_t i = 0; i < rs.n; i++)
      for (int64_t b = 0; b < rs.req[i].len && ok; b++) {
        int64_t o = rs.req[i].off + b;
        ok = rs.req[i].buf[b] == (o < FSIZE / 2 ? rs.model[o] : 0);
      }
    CHECKF(ok, "ring %d set %d: read batch differs", ring, t);
    /* One call per run, one more for a run that crosses end of file. */
    CHECK(s.c[OSTIO__STAT_sys_reads] - (int64_t)rs.runs == 0 ||
          s.c[OSTIO__STAT_sys_reads] - (int64_t)rs.runs == 1);
    ostio__io_fini(&io);
    ostio__io_fini(&io); /* twice is fine */
    close(fd), free(copy), free_set(&rs);
  }

  /* Bad batches and empty ones. */
  ostio__io io;
  char b[100] = {0};
  CHECK(init_io(&io, -1, 0, NULL, NULL, NULL) == 0);
  use_ring(&io, ring);
  CHECK(ostio__io_write_batch(&io, NULL, 0) == 0);
  ostio__io_req ov[2] = {{.off = 0, .len = 50, .buf = b}, {.off = 40, .len = 10, .buf = b}};
  CHECK(ostio__io_write_batch(&io, ov, 2) == OSTIO_EINVAL && has("overlap"));
  ostio__io_req neg = {.off = -5, .len = 1, .buf = b};
  CHECK(ostio__io_read_batch(&io, &neg, 1) == OSTIO_EINVAL && has("offset -5"));
  ostio__io_req empty = {.off = 5, .len = 0, .buf = NULL};
  CHECK(ostio__io_write_batch(&io, &empty, 1) == 0 && io.nwrites == 0);
  ostio__io_fini(&io);
}

/* Faults in a batch of 10 separate requests: the same on both paths. */
static void batch_faults(int ring)
{
  enum { N = 10, L = 5000 };
  static char bufs[N][L], old[N * 2 * L];
  ostio__io_req q[N];
  for (int i = 0; i < N; i++) {
    q[N - 1 - i] = (ostio__io_req){.off = (int64_t)i * 2 * L, .len = L, .buf = bufs[i]};
    fill(bufs[i], L, i * 2 * L, 40);
  }
  fill(old, sizeof old, 0, 41);
  const char *specs[] = {"write:*:3:EIO", "write:0:4:short", "write:*:10:stuck", "write:0:1:ENOSPC"};
  const int want[] = {OSTIO_EIO, 0, OSTIO_EIO, OSTIO_ENOSPC};
  const int bad[] = {2, -1, 9, 0}; /* index by offset of the request that fails */
  for (int t = 0; t < 4; t++) {
    int fd = new_file();
    CHECK(pwrite(fd, old, sizeof old, 0) == (ssize_t)sizeof old);
    ostio__io io;
    ostio__stats s;
    CHECK(init_io(&io, fd, 0, NULL, &s, specs[t]) == 0);
    use_ring(&io, ring);
    int rc = ostio__io_write_batch(&io, q, N);
    CHECKF(rc == want[t], "ring %d %s: %d %s", ring, specs[t], rc, ostio_last_error());
    if (bad[t] >= 0) {
      char at[64];
      snprintf(at, sizeof at, "at offset %d", bad[t] * 2 * L);
      CHECKF(has(at) && has("injected by OSTIO_FAULT"), "%s", ostio_last_error());
    }
    for (int i = 0; i < N; i++)
      CHECKF(on_disk(fd, i == bad[t] ? old + i * 2 * L : bufs[i], L, i * 2 * L),
             "ring %d %s request %d", ring, specs[t], i);
    CHECK(on_disk(fd, old + L, L, L)); /* the gaps stay */
    CHECK_EQ_I64(s.c[OSTIO__STAT_sys_writes], N + (t == 1));
    CHECK(s.c[OSTIO__STAT_faults_injected] == 1);
    CHECK(s.c[OSTIO__STAT_bytes_written] == (int64_t)(N - (bad[t] >= 0)) * L);
    ostio__io_fini(&io);
    close(fd);
  }
  /* Read faults in a batch; a read fault past the first call. */
  int fd = new_file();
  CHECK(pwrite(fd, old, sizeof old, 0) == (ssize_t)sizeof old);
  ostio__io io;
  ostio__stats s;
  CHECK(init_io(&io, fd, 0, NULL, &s, "read:*:2:short") == 0);
  use_ring(&io, ring);
  CHECK(ostio__io_read_batch(&io, q, N) == 0);
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= !memcmp(bufs[i], old + i * 2 * L, L);
  CHECK(ok && s.c[OSTIO__STAT_sys_reads] == N + 1);
  ostio__io_fini(&io);
  CHECK(init_io(&io, fd, 0, NULL, &s, "read:*:7:EIO") == 0);
  use_ring(&io, ring);
  CHECK(ostio__io_read_batch(&io, q, N) == OSTIO_EIO && has("reading 5000 bytes at offset 60000"));
  ostio__io_fini(&io);
  /* A real error (write on a read-only descriptor) on every request. */
  int ro = open("/proc/self/exe", O_RDONLY);
  CHECK(init_io(&io, ro, 0, NULL, &s, NULL) == 0);
  use_ring(&io, ring);
  CHECK(ostio__io_write_batch(&io, q, N) == OSTIO_EIO && has("Bad file descriptor") &&
        has("at offset 0 failed"));
  ostio__io_fini(&io);
  close(ro);
  close(fd);
}

/* Batches of stripe-sized pieces count the same on both paths. */
static void batch_stripes(int ring)
{
  ostio_layout *l;
  CHECK(ostio__layout_simple(8192, 4, 0, &l) == 0);
  static char buf[64][8192];
  ostio__io_req q[64];
  for (int i = 0; i < 64; i++)
    q[i] = (ostio__io_req){.off = (int64_t)i * 4 * 8192 + (i % 4 == 3 ? 512 : 0),
                           .len = i % 8 == 5 ? 4096 : 8192, .buf = buf[i]};
  int fd = new_file();
  ostio__io io;
  ostio__stats s;
  CHECK(init_io(&io, fd, 0, l, &s, NULL) == 0);
  use_ring(&io, ring);
  CHECK(ostio__io_write_batch(&io, q, 64) == 0);
  CHECK_EQ_I64(s.c[OSTIO__STAT_stripe_aligned_writes], 48);
  CHECK_EQ_I64(s.c[OSTIO__STAT_stripe_sized_writes], 40);
  ostio__io_fini(&io);
  ostio__layout_destroy(l);
  close(fd);
}

/* The ring cannot be set up (no file descriptor left for it): the batch
 * goes through the loop, and later batches do not try again. */
static void ring_fallback(void)
{
  int fd = new_file();
  static char b[32][512];
  ostio__io_req q[32];
  for (int i = 0; i < 32; i++) {
    fill(b[i], 512, i * 1024, 50);
    q[i] = (ostio__io_req){.off = i * 1024, .len = 512, .buf = b[i]};
  }
  ostio__io io;
  ostio__stats s;
  CHECK(init_io(&io, fd, 0, NULL, &s, "write:*:5:EIO") == 0);
  use_ring(&io, 1);
  struct rlimit old, low;
  CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
  low = old;
  low.rlim_cur = 64;
  int dups[64], nd = 0;
  CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
  for (int d; nd < 64 && (d = dup(fd)) >= 0;) dups[nd++] = d;
  CHECK(errno == EMFILE);
  int rc = ostio__io_write_batch(&io, q, 32);
  for (int i = 0; i < nd; i++) close(dups[i]);
  CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
  CHECK(rc == OSTIO_EIO && io.uring_state == -1 && !io.uring);
  for (int i = 0; i < 32; i++) {
    char zero[512] = {0};
    CHECKF(on_disk(fd, i == 4 ? zero : b[i], 512, i * 1024), "request %d", i);
  }
  CHECK(s.c[OSTIO__STAT_sys_writes] == 32 && s.c[OSTIO__STAT_faults_injected] == 1);
  CHECK(ostio__io_write_batch(&io, q, 32) == 0 && on_disk(fd, b[4], 512, 4096));
  ostio__io_fini(&io);
  close(fd);
}

/* Issue 13 item 6: object routing in the last stripes below 2^63. The end of
 * a request's last stripe, (stripe+1)*S, overflowed and the loop wrote past
 * its array. Objects in base (a directory): on ext4 the object offsets are
 * past the largest file, so every call is OSTIO_EFBIG ("File too large", not
 * OSTIO_ENOSPC) and nothing is written; on tmpfs (fits) the bytes land at
 * the object offsets of the Lustre mapping. */
static void near_2p63_objects(const char *base, int fits)
{
  enum { K = 3, SZ = 4096 };
  int fds[K];
  char names[K][16], *np[K];
  for (int i = 0; i < K; i++) {
    char p[400];
    snprintf(names[i], sizeof names[i], "o%d", i);
    np[i] = names[i];
    snprintf(p, sizeof p, "%s/%s", base, names[i]);
    fds[i] = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fds[i] >= 0);
  }
  ostio__io_objects ot = {K, SZ, fds, np};
  ostio__io io;
  ostio__stats st;
  CHECK(init_io(&io, -1, 0, NULL, &st, NULL) == 0 && ostio__io_set_objects(&io, &ot) == 0);
  const int64_t at = INT64_MAX - 99;           /* 2^63-100, in the last stripe */
  const int64_t cross = INT64_MAX / SZ * SZ - 50; /* crosses into the last stripe */
  char w[200], r[200];
  fill(w, sizeof w, 0, 7);
  int rc = ostio__io_pwrite(&io, w, 10, at);
  if (fits) CHECKF(rc == 0, "pwrite near 2^63: %d %s", rc, ostio_last_error());
  else CHECKF(rc == OSTIO_EFBIG && has("File too large") && has("9223372036854775708"),
              "pwrite near 2^63: %d %s", rc, ostio_last_error());
  ostio__io_req q[2] = {{cross, 100, w + 10}, {at + 10, 40, w + 110}};
  rc = ostio__io_write_batch(&io, q, 2);
  if (fits) CHECKF(rc == 0, "batch near 2^63: %d %s", rc, ostio_last_error());
  else CHECKF(rc == OSTIO_EFBIG, "batch near 2^63: %d %s", rc, ostio_last_error());
  memset(r, 0x55, sizeof r);
  CHECK(ostio__io_pread(&io, r, 10, at) == 0);
  ostio__io_req g[2] = {{cross, 100, r + 10}, {at + 10, 40, r + 110}};
  CHECK(ostio__io_read_batch(&io, g, 2) == 0);
  int same = 1;
  for (int i = 0; i < 150; i++) same &= r[i] == (fits ? w[i] : 0);
  CHECK(same);
  /* On disk: each byte at (stripe / K) * S + off % S of object stripe % K. */
  int64_t offs[3] = {at, cross, at + 10}, lens[3] = {10, 100, 40};
  const char *src[3] = {w, w + 10, w + 110};
  for (int e = 0; e < 3; e++)
    for (int64_t b = 0; b < lens[e]; b++) {
      int64_t off = offs[e] + b, stripe = off / SZ;
      char want = fits ? src[e][b] : 0;
      int ok = on_disk(fds[stripe % K], &want, 1, stripe / K * SZ + off % SZ);
      CHECKF(ok, "byte at logical %lld in object %lld", (long long)off, (long long)(stripe % K));
      if (!ok) break;
    }
  for (int i = 0; i < K; i++) {
    struct stat sb;
    CHECK(fstat(fds[i], &sb) == 0);
    if (!fits) CHECKF(sb.st_size == 0, "object %d has %lld bytes", i, (long long)sb.st_size);
    close(fds[i]);
  }
  ostio__io_fini(&io);
}

/* 1 when a file in base can hold a byte at offset at (the file system's
 * largest file), asked of the kernel with a scratch file. */
static int holds(const char *base, int64_t at)
{
  char p[400];
  snprintf(p, sizeof p, "%s/probe", base);
  int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
  int ok = fd >= 0 && pwrite(fd, "x", 1, (off_t)at) == 1;
  if (fd >= 0) close(fd);
  unlink(p);
  return ok;
}

static void near_2p63(void)
{
  /* The largest object offset used below (3 objects of 4 KiB stripes). */
  const int64_t top = (INT64_MAX - 50) / 4096 / 3 * 4096 + 4095;
  near_2p63_objects(dir, holds(dir, top)); /* ext4 here: 16 TiB, too small */
  char shm[] = "/dev/shm/ostio-io-XXXXXX";
  if (!mkdtemp(shm)) return; /* no tmpfs: only the case above */
  near_2p63_objects(shm, holds(shm, top)); /* tmpfs: files up to 2^63-1 */
  tu_rmtree(shm);
}

int main(void)
{
  tu_rng g;
  tu_rng_seed(&g, tu_seed(20240611));
  if (tu_tmpdir(dir, sizeof dir, "io") < 0) return perror("mkdtemp"), 1;
  fault_parse();
  round_trips();
  write_faults();
  read_faults();
  stripe_counters();
  near_2p63();
  /* Does this build and kernel have a ring? (-1 after init: not built.) */
  ostio__io probe;
  ostio__io_init(&probe, -1, 0, NULL, NULL);
  int built = probe.uring_state >= 0;
  for (int ring = 0; ring <= 1; ring++) {
    batches(&g, ring);
    batch_faults(ring);
    batch_stripes(ring);
  }
  if (built) ring_fallback();
  int fd = new_file();
  ostio__io io;
  char b[64] = {0};
  ostio__io_req q[2] = {{.off = 0, .len = 8, .buf = b}, {.off = 32, .len = 8, .buf = b + 32}};
  CHECK(init_io(&io, fd, 0, NULL, NULL, NULL) == 0);
  use_ring(&io, 1);
  CHECK(ostio__io_write_batch(&io, q, 2) == 0);
  printf("io_uring path: %s\n", !built ? "not built (no liburing)"
                                : io.uring_state > 0 ? "used" : "fell back to the loop");
  ostio__io_fini(&io);
  close(fd);
  tu_rmtree(dir);
  return TEST_DONE();
}
