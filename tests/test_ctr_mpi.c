/* Striped containers under MPI, beyond the matrix (test_ctr_matrix.c):
 *  - statistics: with ost and cb_nodes == K each aggregator wrote exactly one
 *    object file (the io layer's objfiles_written); even writes more;
 *  - damage seen through ostio_open: a clear agreed error, nothing outside
 *    the directory read or written;
 *  - creation: every rank calls ostio_open(CREATE) on a new container, and
 *    every rank calls the module's create at once; EXCL; the hint does not
 *    turn an existing plain file into a container;
 *  - set_size grow (sparse tail) and shrink, independent calls across stripe
 *    boundaries, sync, DELETE_ON_CLOSE, ostio_layout_query, OSTIO_FAULT. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colltest.h"
#include "container/container.h"
#include "file/flatten.h"

#define S 65536
static int rank, nprocs;
static char dir[512];

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

static int open_with(MPI_Comm comm, const char *path, int amode, const char *spec,
                     ostio_file **fh)
{
  MPI_Info info;
  ct_info(spec, &info);
  int rc = ostio_open(comm, path, amode, info, fh);
  MPI_Info_free(&info);
  return rc;
}

static double stat_of(ostio_file *fh, const char *name)
{
  double v = -1;
  ostio_stat_get(fh, name, &v);
  return v;
}

/* Each rank writes its own contiguous quarter... of 4 full stripe rows. */
static void whole_rows(int k, ostio_extent *e, uint8_t **buf)
{
  int64_t total = (int64_t)k * S * 4, part = total / nprocs;
  *e = (ostio_extent){part * rank, rank == nprocs - 1 ? total - part * rank : part};
  *buf = ct_xmalloc((size_t)e->length);
  ct_fill(*buf, e, 1, rank, 1);
}

static void test_stats(void)
{
  int k = nprocs; /* np 2: K 2, np 4: K 4 */
  for (int s = 0; s < 2; s++) {
    const char *strat = s ? "even" : "ost";
    char path[600], spec[400];
    snprintf(path, sizeof path, "%s/stats_%s", dir, strat);
    snprintf(spec, sizeof spec, "ostio_container=striped ostio_objects=%d striping_unit=%d "
             "ostio_strategy=%s cb_nodes=%d cb_config_list=*:*", k, S, strat, k);
    ostio_file *fh;
    ostio_extent e;
    uint8_t *buf;
    whole_rows(k, &e, &buf);
    CHECK(open_with(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, spec, &fh) == 0);
    CHECK(ostio_write_all(fh, &e, 1, buf) == 0);
    double objs = stat_of(fh, "objfiles_written"), aggr = stat_of(fh, "aggr_calls");
    double most = 0, least = 0;
    MPI_Allreduce(&objs, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&objs, &least, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    CHECKF(aggr == 1, "%s: rank %d aggregated %g calls (every rank should)", strat, rank, aggr);
    if (s == 0)
      CHECKF(objs == 1, "ost, K = cb_nodes = %d: rank %d wrote %g object files, expected 1",
             k, rank, objs);
    else
      CHECKF(most > 1, "even, K = %d: at most %g object files per aggregator, expected more "
             "than 1", k, most);
    CHECK(ostio_close(&fh) == 0);
    free(buf);
  }
}

/* Plants a container whose manifest is body (sealed) and checks the open. */
static void damaged_open(const char *name, const char *body, int rc_want, const char *needle)
{
  char path[600], victim[600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(victim, sizeof victim, "%s/victim", dir);
  if (rank == 0) {
    int created;
    ostio__ctr_params p = {.nobjects = 2, .stripe_size = S, .first_ost = -1};
    snprintf(p.requested, sizeof p.requested, "test");
    CHECK(ostio__ctr_create(path, &p, 0, &created) == 0);
    if (body) {
      char m[700], *t;
      size_t n;
      snprintf(m, sizeof m, "%s/ostio.manifest", path);
      ostio__ctr_seal(body, strlen(body), &t, &n);
      chmod(m, 0644);
      int fd = open(m, O_WRONLY | O_TRUNC);
      CHECK(fd >= 0 && write(fd, t, n) == (ssize_t)n);
      close(fd);
      free(t);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECKF(rc == rc_want && fh == NULL && has(needle), "%s: rc %d (%s), detail \"%s\"", name, rc,
         ostio_errname(rc), ostio_last_error());
  if (fh) ostio_close(&fh);
  /* ../victim is untouched: same bytes, same size. */
  if (rank == 0) {
    char b[16] = {0};
    int fd = open(victim, O_RDONLY);
    CHECK(fd >= 0 && read(fd, b, sizeof b) == 7 && !memcmp(b, "victim!", 7));
    close(fd);
  }
}

#define HEAD "ostio-container 1\nkind striped\nbyte_order little\ncreated t\ncreated_by x\n" \
             "requested -\nstripe_size 65536\n"

static void test_damage(void)
{
  char victim[600];
  snprintf(victim, sizeof victim, "%s/victim", dir);
  if (rank == 0) {
    int fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(write(fd, "victim!", 7) == 7);
    close(fd);
  }
  damaged_open("d_magic", "ostio-kontainer 1\n", OSTIO_EFORMAT, "not a container manifest");
  damaged_open("d_version", "ostio-container 3\nkind striped\n", OSTIO_EFORMAT,
               "version 3 is newer");
  damaged_open("d_k0", HEAD "objects 0\n", OSTIO_EFORMAT, "expected an object count from 1");
  damaged_open("d_dotdot", HEAD "objects 1\nobject 0 ../victim\n", OSTIO_EFORMAT,
               "\"../victim\"");
  damaged_open("d_slash", HEAD "objects 1\nobject 0 x/../../victim\n", OSTIO_EFORMAT, "no '/'");
  /* Missing object; object shorter than the clean size record; bad checksum. */
  char p[700];
  snprintf(p, sizeof p, "%s/d_missing/obj.0001", dir);
  if (rank == 0) {
    int created;
    char c[600];
    snprintf(c, sizeof c, "%s/d_missing", dir);
    ostio__ctr_params pr = {.nobjects = 2, .stripe_size = S, .first_ost = -1};
    snprintf(pr.requested, sizeof pr.requested, "test");
    CHECK(ostio__ctr_create(c, &pr, 0, &created) == 0 && unlink(p) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ostio_file *fh = NULL;
  snprintf(p, sizeof p, "%s/d_missing", dir);
  CHECK(ostio_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == OSTIO_EFORMAT &&
        has("object 1 (obj.0001) is missing"));
  snprintf(p, sizeof p, "%s/d_short", dir);
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                  "ostio_container=striped ostio_objects=3 striping_unit=65536", &fh) == 0);
  CHECK(ostio_set_size(fh, 5 * S + 100) == 0 && ostio_close(&fh) == 0);
  if (rank == 0) {
    char o[800];
    snprintf(o, sizeof o, "%s/obj.0002", p); /* stripe 5 lives in object 2 */
    CHECK(truncate(o, S) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ostio_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == OSTIO_EFORMAT &&
        has("object obj.0002 is shorter than the size record says"));
  CHECK(fh == NULL);
}

static void test_create(void)
{
  char p[600];
  ostio_file *fh = NULL;
  /* Every rank opens with CREATE; then EXCL on the existing container. */
  snprintf(p, sizeof p, "%s/new", dir);
  const char *spec = "ostio_container=striped ostio_objects=3 striping_unit=131072";
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, spec, &fh) == 0);
  CHECK(ostio_close(&fh) == 0);
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, spec,
                  &fh) == OSTIO_EEXIST);
  /* Opening again without hints: the container's layout, not the defaults. */
  CHECK(ostio_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0);
  ostio_layout_component c;
  CHECK(ostio_layout_get_component(ostio_file_layout(fh), 0, &c) == 0 && c.stripe_count == 3 &&
        c.stripe_size == 131072);
  CHECK(ostio_close(&fh) == 0);
  ostio_layout *l = NULL;
  CHECK(ostio_layout_query(MPI_COMM_WORLD, p, MPI_INFO_NULL, &l) == 0 &&
        !strcmp(ostio_layout_source(l), "container"));
  ostio_layout_free(&l);
  /* Every rank creates the same container through the module at once. */
  snprintf(p, sizeof p, "%s/race", dir);
  MPI_Barrier(MPI_COMM_WORLD);
  ostio__ctr_params pr = {.nobjects = 4, .stripe_size = S, .first_ost = -1};
  snprintf(pr.requested, sizeof pr.requested, "race");
  int created = 0, total = 0;
  CHECK(ostio__ctr_create(p, &pr, 0, &created) == 0);
  MPI_Allreduce(&created, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECKF(total == 1, "%d ranks say they created it", total);
  if (rank == 0) {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) CHECKF(!strstr(e->d_name, ".tmp."), "left over: %s", e->d_name);
    if (d) closedir(d);
  }
  /* The hint applies at creation only: a plain file stays plain. */
  snprintf(p, sizeof p, "%s/plain", dir);
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY, "", &fh) == 0);
  CHECK(ostio_close(&fh) == 0);
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, spec, &fh) == 0);
  CHECK(strcmp(ostio_layout_source(ostio_file_layout(fh)), "container") != 0);
  CHECK(ostio_close(&fh) == 0);
  struct stat st;
  CHECK(stat(p, &st) == 0 && S_ISREG(st.st_mode));
}

static void test_sizes_and_independent(void)
{
  char p[600];
  ostio_file *fh = NULL;
  snprintf(p, sizeof p, "%s/sizes", dir);
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  "ostio_container=striped ostio_objects=3 striping_unit=65536", &fh) == 0);
  /* Independent writes across stripe (and object) boundaries, disjoint. */
  const int64_t step = 2 * S + 3000, len = 2 * S + 2000;
  int64_t off = rank * step + S - 1000, size = 0;
  int64_t want_size = (nprocs - 1) * step + S - 1000 + len;
  static uint8_t w[3 * S], r[3 * S], want[3 * S];
  ostio_extent e = {off, len};
  ct_fill(w, &e, 1, rank, 9);
  CHECK(ostio_write_at(fh, off, w, (size_t)len) == 0);
  CHECK(ostio_sync(fh) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  int peer = (rank + 1) % nprocs;
  ostio_extent pe = {peer * step + S - 1000, len};
  ct_fill(want, &pe, 1, peer, 9);
  CHECK(ostio_read_at(fh, pe.offset, r, (size_t)len) == 0 && !memcmp(r, want, (size_t)len));
  CHECK(ostio_get_size(fh, &size) == 0);
  CHECKF(size == want_size, "size %lld, want %lld", (long long)size, (long long)want_size);
  /* Grow: a sparse tail of zeros; then shrink into the middle of a stripe. */
  CHECK(ostio_set_size(fh, 50 * S + 7) == 0);
  CHECK(ostio_get_size(fh, &size) == 0 && size == 50 * S + 7);
  CHECK(ostio_read_at(fh, 49 * S, r, S) == 0);
  int zeros = 1;
  for (int i = 0; i < S; i++) zeros &= r[i] == 0;
  CHECK(zeros);
  CHECK(ostio_set_size(fh, S + 5) == 0);
  CHECK(ostio_get_size(fh, &size) == 0 && size == S + 5);
  memset(r, 0x55, sizeof r);
  CHECK(ostio_read_at(fh, S, r, 100) == 0);
  for (int i = 5; i < 100; i++) zeros &= r[i] == 0;
  CHECK(zeros);
  CHECK(ostio_set_size(fh, -1) == OSTIO_EINVAL);
  /* A fault injected into a container write is counted and agreed. */
  CHECK(ostio_close(&fh) == 0);
  struct stat st;
  CHECK(stat(p, &st) < 0); /* DELETE_ON_CLOSE removed the directory */

  snprintf(p, sizeof p, "%s/fault", dir);
  setenv("OSTIO_FAULT", "write:0:1:ENOSPC", 1);
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                  "ostio_container=striped ostio_objects=2 striping_unit=65536 "
                  "ostio_strategy=ost cb_config_list=*:*", &fh) == 0);
  unsetenv("OSTIO_FAULT");
  ostio_extent all = {(int64_t)rank * 4 * S, 4 * S};
  uint8_t *big = ct_xmalloc(4 * S);
  ct_fill(big, &all, 1, rank, 3);
  int rc = ostio_write_all(fh, &all, 1, big);
  CHECKF(rc == OSTIO_ENOSPC && has("injected by OSTIO_FAULT") && has("object obj.000"),
         "rc %d: %s", rc, ostio_last_error());
  CHECK(ostio_write_all(fh, &all, 1, big) == 0); /* the handle stays usable */
  CHECK(ostio_close(&fh) == 0);
  free(big);
}

/* Issue 13 item 6: I/O in the last stripe below 2^63 (the stripe end
 * (stripe+1)*S overflowed and corrupted the heap). The logical offsets are
 * representable, so the request goes to the file system: on a file system
 * whose largest file is smaller (ext4: 16 TiB) every call fails with
 * OSTIO_EFBIG ("file too large", not OSTIO_ENOSPC) on every rank and nothing
 * is written; on tmpfs (largest file 2^63-1) it succeeds and reads back. */
static void near_2p63_in(const char *base, int fits)
{
  static const char *strats[] = {"independent", "even", "aligned", "ost"};
  const int64_t at = INT64_MAX - 99; /* 2^63-100 */
  for (int k = 1; k <= 2; k++)
    for (int s = 0; s < 4; s++) {
      char p[700], spec[300];
      snprintf(p, sizeof p, "%s/big_%d_%s", base, k, strats[s]);
      snprintf(spec, sizeof spec, "ostio_container=striped ostio_objects=%d striping_unit=%d "
               "ostio_strategy=%s", k, S, strats[s]);
      ostio_file *fh = NULL;
      int rc = open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR |
                         MPI_MODE_DELETE_ON_CLOSE, spec, &fh);
      CHECKF(rc == 0, "%s: open %d %s", p, rc, ostio_last_error());
      if (rc < 0) continue;
      uint8_t w[10 + 8 * 64], r[10 + 8 * 64]; /* up to 64 ranks (checked below) */
      for (int i = 0; i < (int)sizeof w; i++) w[i] = (uint8_t)(0xa0 + i);
      int64_t size = -1;
      if (rank == 0) {
        rc = ostio_write_at(fh, at, w, 10);
        if (fits)
          CHECKF(rc == 0, "%s: write_at near 2^63: %d %s", p, rc, ostio_last_error());
        else
          CHECKF(rc == OSTIO_EFBIG && has("too large") && has("9223372036854775708"),
                 "%s: write_at near 2^63: %d (%s) %s", p, rc, ostio_errname(rc),
                 ostio_last_error());
        memset(r, 0x55, sizeof r);
        rc = ostio_read_at(fh, at, r, 10);
        CHECKF(rc == 0, "%s: read_at near 2^63: %d %s", p, rc, ostio_last_error());
        int ok = 1;
        for (int i = 0; i < 10; i++) ok &= r[i] == (fits ? w[i] : 0);
        CHECKF(ok, "%s: read_at near 2^63 gave other bytes", p);
        CHECK(ostio_get_size(fh, &size) == 0);
        CHECKF(size == (fits ? at + 10 : 0), "%s: size %lld after write_at", p, (long long)size);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      /* Collective: rank r writes 8 bytes at 2^63-100+10+8r (the last stripe). */
      ostio_extent e = {at + 10 + 8 * rank, 8};
      rc = ostio_write_all(fh, &e, 1, w + 10 + 8 * rank);
      if (fits)
        CHECKF(rc == 0, "%s: write_all near 2^63: %d %s", p, rc, ostio_last_error());
      else
        CHECKF(rc == OSTIO_EFBIG && has("too large"), "%s: write_all near 2^63: %d (%s) %s", p,
               rc, ostio_errname(rc), ostio_last_error());
      memset(r, 0x55, sizeof r);
      ostio_extent all = {at, 10 + 8 * nprocs}; /* rank 0 reads it all */
      rc = ostio_read_all(fh, &all, rank == 0, r);
      CHECKF(rc == 0, "%s: read_all near 2^63: %d %s", p, rc, ostio_last_error());
      int ok = 1;
      for (int i = 0; rank == 0 && i < 10 + 8 * nprocs; i++) ok &= r[i] == (fits ? w[i] : 0);
      CHECKF(ok, "%s: read_all near 2^63 gave other bytes", p);
      CHECK(ostio_get_size(fh, &size) == 0);
      CHECKF(size == (fits ? at + 10 + 8 * nprocs : 0), "%s: size %lld", p, (long long)size);
      CHECK(ostio_close(&fh) == 0);
    }
}

/* 1 on every rank when rank 0 can write a byte at 2^63-2 in a file of base:
 * the file system takes objects as large as the tests below need. */
static int holds(const char *base)
{
  char p[700];
  int ok = 0;
  if (rank == 0) {
    snprintf(p, sizeof p, "%s/probe", base);
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ok = fd >= 0 && pwrite(fd, "x", 1, (off_t)(INT64_MAX - 1)) == 1;
    if (fd >= 0) close(fd);
    unlink(p);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

static void test_near_2p63(void)
{
  if (nprocs > 64) return; /* the buffers of near_2p63_in hold 64 ranks' bytes */
  near_2p63_in(dir, holds(dir)); /* ct_tmpdir: $TMPDIR or /tmp, ext4 here (16 TiB) */
  /* tmpfs takes files up to 2^63-1 bytes: the same calls succeed. */
  char shm[600] = "";
  struct stat st;
  int ok = rank == 0 && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode);
  if (ok) {
    snprintf(shm, sizeof shm, "/dev/shm/ostio-ctrmpi-XXXXXX");
    ok = mkdtemp(shm) != NULL;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(shm, sizeof shm, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!ok) return;
  near_2p63_in(shm, holds(shm)); /* tmpfs: files up to 2^63-1 bytes */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) rmdir(shm);
}

/* Issue 13: OSTIO_FAULT naming a rank the communicator does not have would
 * never fire, and the test that set it would pass without its fault: the
 * open fails with OSTIO_EINVAL on every rank, naming the variable, the value
 * and the accepted ranks; ranks that exist (and *) are accepted. */
static void test_fault_rank_range(void)
{
  char p[600], spec[64], want[64];
  snprintf(p, sizeof p, "%s/fault_rank", dir);
  const char *ctr[2] = {"ostio_container=striped ostio_objects=2 striping_unit=65536", ""};
  for (int kind = 0; kind < 2; kind++)
    for (int r = nprocs - 1; r <= nprocs + 8; r += 9) {
      snprintf(spec, sizeof spec, "write:%d:1:EIO", r);
      setenv("OSTIO_FAULT", spec, 1);
      ostio_file *fh = NULL;
      int rc = open_with(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, ctr[kind], &fh);
      unsetenv("OSTIO_FAULT");
      if (r < nprocs) {
        CHECKF(rc == 0, "OSTIO_FAULT=%s with %d ranks: %d %s", spec, nprocs, rc,
               ostio_last_error());
      } else {
        snprintf(want, sizeof want, "RANK from 0 to %d, or *", nprocs - 1);
        CHECKF(rc == OSTIO_EINVAL && has("OSTIO_FAULT") && has(spec) && has(want) && !fh,
               "OSTIO_FAULT=%s with %d ranks: %d %s", spec, nprocs, rc, ostio_last_error());
      }
      if (fh) CHECK(ostio_close(&fh) == 0);
    }
  setenv("OSTIO_FAULT", "write:*:1000:EIO", 1);
  ostio_file *fh = NULL;
  CHECK(open_with(MPI_COMM_WORLD, p, MPI_MODE_RDWR, "", &fh) == 0);
  unsetenv("OSTIO_FAULT");
  if (fh) CHECK(ostio_close(&fh) == 0);
}

/* ---- issue 13 items 8 and 10: flatten costs what the data costs; refuses
 * FIFOs without blocking ------------------------------------------------------ */

static void on_alarm(int sig)
{
  (void)sig;
  static const char m[] = "FAIL test_ctr_mpi: flatten still running after 60 s (the old "
                          "flatten walked every hole byte)\n";
  if (write(2, m, sizeof m - 1) < 0) _exit(1);
  _exit(1);
}

/* 1 when path holds want[0..len) at off (plain pread). */
static int file_has(const char *path, int64_t off, const void *want, size_t len)
{
  int fd = open(path, O_RDONLY);
  char *got = ct_xmalloc(len ? len : 1);
  int ok = fd >= 0 && pread(fd, got, len, (off_t)off) == (ssize_t)len && !memcmp(got, want, len);
  free(got);
  if (fd >= 0) close(fd);
  return ok;
}

/* Where SEEK_DATA from off lands in path (-1: none). */
static int64_t data_from(const char *path, int64_t off)
{
  int fd = open(path, O_RDONLY);
  off_t d = fd >= 0 ? lseek(fd, (off_t)off, SEEK_DATA) : -1;
  if (fd >= 0) close(fd);
  return (int64_t)d;
}

static int64_t blocks_of(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? (int64_t)st.st_blocks * 512 : -1;
}

/* A 40 GiB hole in a striped container (K 2, the data in object 0 at
 * 20 GiB) and a few bytes at its start: the old flatten read and tested
 * 40 GiB of zeros (67 s for 20 GiB); now the holes cost nothing. */
static void flatten_big_hole(void)
{
  char c[600], o[600];
  snprintf(c, sizeof c, "%s/fl_hole", dir);
  snprintf(o, sizeof o, "%s/fl_hole.out", dir);
  ostio_file *fh = NULL;
  const int64_t far = 40LL << 30;
  CHECK(open_with(MPI_COMM_WORLD, c, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                  "ostio_container=striped ostio_objects=2 striping_unit=65536", &fh) == 0);
  if (rank == 0) {
    CHECK(ostio_write_at(fh, far, "ABCDE", 5) == 0);
    CHECK(ostio_write_at(fh, 70000, "xyz", 3) == 0);
  }
  CHECK(ostio_close(&fh) == 0);
  double t0 = MPI_Wtime();
  alarm(60);
  int rc = ostio__flatten(MPI_COMM_WORLD, c, o, MPI_INFO_NULL, 0, NULL, NULL);
  alarm(0);
  double t = MPI_Wtime() - t0;
  CHECKF(rc == 0, "flatten: %d %s", rc, ostio_last_error());
  if (rank == 0) {
    printf("flatten of a 40 GiB hole (striped, %d ranks): %.3f s\n", nprocs, t);
    struct stat st;
    CHECK(stat(o, &st) == 0 && st.st_size == far + 5);
    CHECK(file_has(o, far, "ABCDE", 5) && file_has(o, 70000, "xyz", 3));
    char z[4096] = {0};
    CHECK(file_has(o, far - 4096, z, 4096) && file_has(o, 0, z, 4096));
    CHECKF(blocks_of(o) <= 1 << 20, "%lld bytes allocated", (long long)blocks_of(o));
    int64_t d0 = data_from(o, 0), d1 = data_from(o, 131072);
    CHECKF(d0 >= 65536 && d0 <= 70000, "first data at %lld", (long long)d0); /* "xyz"'s block */
    CHECKF(d1 > far - 65536 && d1 <= far, "next data at %lld", (long long)d1); /* then the end */
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A log container with 5 bytes at 2^62: a plain file of 2^62 + 5 bytes on
 * tmpfs, made in well under a second (it never finished before); on a file
 * system whose files are smaller (ext4), OSTIO_EFBIG at once. */
static void flatten_2p62(const char *outdir, int fits)
{
  char c[600], o[700];
  snprintf(c, sizeof c, "%s/fl_2p62", dir);
  snprintf(o, sizeof o, "%s/fl_2p62.out", outdir);
  const int64_t far = 1LL << 62;
  ostio_file *fh = NULL;
  if (!ct_agree(MPI_COMM_WORLD, ostio__ctr_is_container(c))) {
    CHECK(open_with(MPI_COMM_WORLD, c, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                    "ostio_container=log", &fh) == 0);
    if (rank == 0) CHECK(ostio_write_at(fh, far, "hello", 5) == 0);
    if (rank == nprocs - 1) CHECK(ostio_write_at(fh, 10, "0123456789", 10) == 0);
    CHECK(ostio_close(&fh) == 0);
  }
  alarm(60);
  int rc = ostio__flatten(MPI_COMM_WORLD, c, o, MPI_INFO_NULL, 0, NULL, NULL);
  alarm(0);
  if (!fits) {
    CHECKF(rc == OSTIO_EFBIG && has("too large"), "flatten to %s: %d %s", o, rc,
           ostio_last_error());
    struct stat st;
    CHECK(stat(o, &st) < 0); /* no partial output left */
  } else if (CHECKF(rc == 0, "flatten to %s: %d %s", o, rc, ostio_last_error()) && rank == 0) {
    struct stat st;
    CHECK(stat(o, &st) == 0 && st.st_size == far + 5);
    CHECK(file_has(o, far, "hello", 5) && file_has(o, 10, "0123456789", 10));
    CHECKF(blocks_of(o) <= 1 << 20, "%lld bytes allocated", (long long)blocks_of(o));
    int64_t d1 = data_from(o, 65536);
    CHECKF(data_from(o, 0) == 0 && d1 > far - 65536 && d1 <= far, "data at %lld",
           (long long)d1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(o);
}

/* Exact bytes: random writes of every rank with holes and an explicitly
 * written 64 KiB block of zeros, striped (K 3) and log (with a shrink and
 * grow: the cut bytes are zeros); the flattened file equals the model byte
 * for byte and holds no data outside the written 64 KiB blocks. */
static void flatten_exact(int log)
{
  enum { SPAN = 3 << 20 };
  char c[600], o[600];
  snprintf(c, sizeof c, "%s/fl_exact%d", dir, log);
  snprintf(o, sizeof o, "%s/fl_exact%d.out", dir, log);
  uint8_t *model = calloc(SPAN, 1), *written = calloc(SPAN / 65536 + 1, 1);
  ostio_file *fh = NULL;
  CHECK(open_with(MPI_COMM_WORLD, c, MPI_MODE_CREATE | MPI_MODE_RDWR,
                  log ? "ostio_container=log"
                      : "ostio_container=striped ostio_objects=3 striping_unit=65536", &fh) == 0);
  tu_rng g;
  tu_rng_seed(&g, 4242 + (uint64_t)log);
  int64_t size = 0;
  for (int step = 0; step < 12; step++) {
    int who = (int)tu_rng_range(&g, 0, nprocs - 1);
    int64_t off = tu_rng_range(&g, 0, SPAN - 200000), len = tu_rng_range(&g, 1, 150000);
    if (step == 5) off = 20 * 65536, len = 65536; /* zeros written: still a hole */
    uint8_t *b = ct_xmalloc((size_t)len);
    for (int64_t i = 0; i < len; i++)
      b[i] = step == 5 ? 0 : (uint8_t)(1 + (off + i) * 7 + step);
    if (rank == who) CHECK(ostio_write_at(fh, off, b, (size_t)len) == 0);
    memcpy(model + off, b, (size_t)len);
    for (int64_t k = off / 65536; k <= (off + len - 1) / 65536; k++) written[k] |= step != 5;
    if (off + len > size) size = off + len;
    free(b);
    CHECK(ostio_sync(fh) == 0);
  }
  if (log) { /* shrink into the data, then grow: the cut bytes read as zeros */
    int64_t cut = size / 2;
    CHECK(ostio_set_size(fh, cut) == 0);
    CHECK(ostio_set_size(fh, size) == 0);
    memset(model + cut, 0, (size_t)(size - cut));
  }
  CHECK(ostio_close(&fh) == 0);
  int rc = ostio__flatten(MPI_COMM_WORLD, c, o, MPI_INFO_NULL, 200000, NULL, NULL);
  CHECKF(rc == 0, "flatten: %d %s", rc, ostio_last_error());
  if (rank == 0) {
    struct stat st;
    CHECK(stat(o, &st) == 0 && st.st_size == size);
    CHECKF(file_has(o, 0, model, (size_t)size), "%s: flatten differs from the model",
           log ? "log" : "striped");
    /* every data region of the output lies in 64 KiB blocks that were written */
    int fd = open(o, O_RDONLY);
    int64_t pos = 0, bad = -1;
    while (fd >= 0 && pos < size) {
      off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
      if (d < 0) break;
      off_t h = lseek(fd, d, SEEK_HOLE);
      for (int64_t k = (int64_t)d / 65536; k <= ((int64_t)h - 1) / 65536 && k <= size / 65536; k++)
        if (!written[k] && bad < 0) bad = k * 65536;
      pos = (int64_t)h;
    }
    if (fd >= 0) close(fd);
    CHECKF(bad < 0, "%s: the output has data in the unwritten block at %lld",
           log ? "log" : "striped", (long long)bad);
  }
  free(model);
  free(written);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A FIFO as PATH or OUT, /dev/null as OUT: refused at once (opening a FIFO
 * blocked forever), nothing created. */
static void flatten_refuses_specials(void)
{
  char c[600], fifo[600], o[600];
  snprintf(c, sizeof c, "%s/fl_exact0", dir);
  snprintf(fifo, sizeof fifo, "%s/fl_fifo", dir);
  snprintf(o, sizeof o, "%s/fl_fifo.out", dir);
  if (rank == 0) CHECK(mkfifo(fifo, 0600) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  alarm(60);
  int rc = ostio__flatten(MPI_COMM_WORLD, fifo, o, MPI_INFO_NULL, 0, NULL, NULL);
  CHECKF(rc == OSTIO_EINVAL && has("is a FIFO") && has("container"), "FIFO as PATH: %d %s",
         rc, ostio_last_error());
  rc = ostio__flatten(MPI_COMM_WORLD, c, fifo, MPI_INFO_NULL, 0, NULL, NULL);
  CHECKF(rc == OSTIO_EEXIST && has("a FIFO"), "FIFO as OUT: %d %s", rc, ostio_last_error());
  rc = ostio__flatten(MPI_COMM_WORLD, c, "/dev/null", MPI_INFO_NULL, 0, NULL, NULL);
  CHECKF(rc == OSTIO_EEXIST && has("character device"), "/dev/null as OUT: %d %s", rc,
         ostio_last_error());
  alarm(0);
  struct stat st;
  CHECK(stat(o, &st) < 0 && errno == ENOENT);
  CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_flatten(void)
{
  signal(SIGALRM, on_alarm);
  flatten_exact(0);
  flatten_exact(1);
  flatten_refuses_specials();
  flatten_big_hole();
  /* The 2^62 output: on this directory's file system (ext4 refuses it), and
   * on tmpfs when there is one. */
  char shm[600] = "";
  int ok = 0;
  if (rank == 0) {
    int fd = -1;
    snprintf(shm, sizeof shm, "%s/probe", dir);
    fd = open(shm, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ok = fd >= 0 && pwrite(fd, "x", 1, (off_t)(1LL << 62) + 4) == 1;
    if (fd >= 0) close(fd);
    unlink(shm);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  flatten_2p62(dir, ok);
  ok = 0;
  if (rank == 0) {
    snprintf(shm, sizeof shm, "/dev/shm/ostio-flatten-XXXXXX");
    ok = mkdtemp(shm) != NULL;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(shm, sizeof shm, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (ok) {
    flatten_2p62(shm, 1);
    if (rank == 0) rmdir(shm);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "ctrmpi") < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  if (nprocs >= 2) test_stats();
  test_damage();
  test_create();
  test_sizes_and_independent();
  test_near_2p63();
  test_fault_rank_range();
  test_flatten();
  ct_rmtree(MPI_COMM_WORLD, dir);
  int status = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return status;
}
