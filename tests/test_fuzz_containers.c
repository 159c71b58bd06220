/* Fuzz test of damaged containers (issue 13): seeded mutations of the
 * manifests, size records (ostio.size), index logs (index.S.W),
 * index.compact, data logs and objects, the directory structure, and the
 * emulated layout record (user.ostio.layout) of striped and log containers;
 * on each mutated container the CLI's own code runs in-process (container
 * check, ls, stat, map, getstripe, map, flatten, recover, compact) and the
 * library opens and reads it (ostio_open on MPI_COMM_SELF, singleton MPI):
 * no crash, no hang, no sanitizer report, nothing outside the container
 * changed. See docs/fuzz.md.
 *
 * Isolation: a worker process (forked, MPI initialised once) runs the cases
 * one after another and publishes the current case and operation in shared
 * memory; the parent kills it when a case runs longer than --timeout, and
 * starts a new worker at the next case after a crash, a hang or a
 * sanitizer report. Each case is reproducible alone from (seed, case):
 *   scripts/fuzz.sh --seed S --case N     (or this program with the same flags)
 * A case prints nothing unless it fails. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "container/container.h"
#include "container/log/log.h"
#include "core/error.h"
#include "layout/layout.h"
#include "layout/source.h"
#include "ostio.h"
#include "testutil.h"
#include "tools/cli.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define FUZZ_ASAN 1
#define LSAN_PAUSE() __lsan_disable()
#define LSAN_RESUME() __lsan_enable()
#else
#define FUZZ_ASAN 0
#define LSAN_PAUSE() ((void)0)
#define LSAN_RESUME() ((void)0)
#endif
#if !FUZZ_ASAN
#include <execinfo.h>
#endif

/* ---- options ---------------------------------------------------------------------- */

enum {
  OP_CHECK = 1 << 0, OP_LS = 1 << 1, OP_STAT = 1 << 2, OP_MAP = 1 << 3, OP_FLATTEN = 1 << 4,
  OP_OPEN = 1 << 5, OP_WRITE = 1 << 6, OP_REPAIR = 1 << 7, OP_LAYOUT = 1 << 8,
  OP_ALL = (1 << 9) - 1
};
static const char *op_names[] = {"check", "ls", "stat", "map", "flatten", "open",
                                 "write", "repair", "layout"};

typedef struct opts {
  uint64_t seed;
  int64_t first, cases;     /* cases [first, first+cases)                           */
  int one;                  /* --case N: that case alone, its output shown          */
  double timeout;           /* seconds per case                                     */
  double progress;          /* seconds between progress lines; 0: none              */
  int max_failures;
  unsigned ops;
  const char *keep;         /* --keep DIR: the mutated container of --case N        */
  const char *emit;         /* --emit DIR: write mutated containers, run nothing   */
  const char *work;         /* --workdir                                            */
  int strict;               /* also: a failing call must leave an error detail     */
  int self_test;            /* plant faults and expect each to be reported         */
} opts;

static const char *usage_text =
  "Usage: test_fuzz_containers [--cases N] [--seed S] [--first N] [--case N]\n"
  "                            [--timeout SEC] [--progress SEC] [--max-failures N]\n"
  "                            [--ops LIST] [--keep DIR] [--emit DIR] [--workdir DIR]\n"
  "                            [--strict] [--self-test]\n\n"
  "Builds small striped and log containers with the library, then for each case\n"
  "copies one, applies seeded mutations (bit flips, truncation, garbage, splices,\n"
  "records with fields changed and checksums fixed, files replaced by symlinks,\n"
  "FIFOs, directories, a hard link, stray names, a damaged user.ostio.layout) and\n"
  "runs container check/ls/stat/map, getstripe, map, flatten, recover, compact and\n"
  "ostio_open + reads (+ a write) on it: no crash, no hang, no sanitizer report,\n"
  "nothing outside the container changed. Prints only failures and one summary.\n\n"
  "  --cases N        number of cases (default $OSTIO_FUZZ_CASES, else 1500)\n"
  "  --seed S         seed (default $OSTIO_FUZZ_SEED, else 1)\n"
  "  --first N        first case number (default 0)\n"
  "  --case N         run case N alone and show its mutations and output\n"
  "  --timeout SEC    a case running longer is a hang (default 5; 20 under ASan)\n"
  "  --progress SEC   a progress line on stderr every SEC seconds (default off)\n"
  "  --max-failures N stop after N failing cases (default 10)\n"
  "  --ops LIST       comma-separated subset of: check,ls,stat,map,flatten,open,\n"
  "                   write,repair,layout (default all)\n"
  "  --keep DIR       with --case: copy the mutated container (before any\n"
  "                   operation) to DIR\n"
  "  --emit DIR       write the mutated containers of the cases as DIR/NNNNNN/c\n"
  "                   (and DIR/cases.txt) and run nothing (the preload fuzz)\n"
  "  --workdir DIR    where to work (default a new directory in $OSTIO_FUZZ_DIR, else\n"
  "                   /dev/shm when it takes user xattrs, else $TMPDIR)\n"
  "  --strict         a failing call must also leave an error detail\n"
  "  --self-test      plant a crash, a hang, a closed fd, a write outside the\n"
  "                   container (and under ASan an overflow and a leak) in cases\n"
  "                   --first.. and check that each is reported\n"
  "Exit status: 0 no failure, 1 failures (each printed with how to reproduce it),\n"
  "2 usage or setup error.\n";

/* ---- shared state between the parent and a worker ------------------------------------ */

typedef struct shm {
  volatile int64_t cur;          /* case running, -1 before the first              */
  volatile int64_t done;         /* cases finished                                   */
  volatile double t0;            /* when the current case started (monotonic)       */
  volatile double slowest;       /* seconds of the slowest finished case             */
  volatile int64_t slowest_case;
  char op[64];                   /* the operation running                            */
  char base[32];                 /* the base container of the case                   */
  char desc[4096];               /* the mutations applied                            */
} shm;

static shm *sh;
static opts O;
static char work[1024];          /* working directory                               */
static char bases[1100];         /* work/bases                                      */
static char outfile[1100];       /* a worker's stdout/stderr                        */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void set_op(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_op(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sh->op, sizeof sh->op, fmt, ap);
  va_end(ap);
}

static void describe(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void describe(const char *fmt, ...)
{
  size_t n = strlen(sh->desc);
  if (n + 4 >= sizeof sh->desc) return;
  if (n) sh->desc[n++] = ';', sh->desc[n++] = ' ', sh->desc[n] = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sh->desc + n, sizeof sh->desc - n, fmt, ap);
  va_end(ap);
}

/* ---- files --------------------------------------------------------------------------- */

static int read_all(const char *path, char **buf, size_t *len)
{
  *buf = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
    close(fd);
    return -1;
  }
  char *b = malloc((size_t)st.st_size + 1);
  ssize_t got = 0, n;
  while (b && got < st.st_size && (n = read(fd, b + got, (size_t)(st.st_size - got))) > 0)
    got += n;
  close(fd);
  if (!b) return -1;
  b[got] = 0;
  *buf = b;
  *len = (size_t)got;
  return 0;
}

/* Replaces path's content, keeping its mode. */
static int write_all(const char *path, const char *buf, size_t len)
{
  struct stat st;
  mode_t mode = lstat(path, &st) == 0 ? st.st_mode & 07777 : 0644;
  unlink(path);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, buf + done, len - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  fchmod(fd, mode);
  close(fd);
  return done == len ? 0 : -1;
}

static int copy_file(const char *src, const char *dst, mode_t mode)
{
  char *b;
  size_t n;
  if (read_all(src, &b, &n) < 0) return -1;
  int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0600);
  int rc = fd >= 0 && write(fd, b, n) == (ssize_t)n ? 0 : -1;
  if (fd >= 0) fchmod(fd, mode), close(fd);
  free(b);
  return rc;
}

static int copy_tree(const char *src, const char *dst)
{
  struct stat st;
  if (lstat(src, &st) < 0) return -1;
  if (S_ISREG(st.st_mode)) return copy_file(src, dst, st.st_mode & 07777);
  if (!S_ISDIR(st.st_mode)) return 0;
  if (mkdir(dst, 0755) < 0) return -1;
  DIR *d = opendir(src);
  if (!d) return -1;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char a[2048], b[2048];
    snprintf(a, sizeof a, "%s/%s", src, e->d_name);
    snprintf(b, sizeof b, "%s/%s", dst, e->d_name);
    if (copy_tree(a, b) < 0) rc = -1;
  }
  closedir(d);
  return rc;
}

/* Removes a tree whatever it holds (a directory made unreadable, FIFOs). */
static void rm_tree(const char *path)
{
  struct stat st;
  if (lstat(path, &st) < 0) return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path, 0700);
    DIR *d = opendir(path);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char a[2048];
        snprintf(a, sizeof a, "%s/%s", path, e->d_name);
        rm_tree(a);
      }
      closedir(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

/* ---- random numbers: one stream per case ---------------------------------------------- */

static uint64_t splitmix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
static tu_rng R;
static uint64_t rnd(void) { return tu_rng_next(&R); }
static int64_t range(int64_t lo, int64_t hi) { return tu_rng_range(&R, lo, hi); }
static int chance(int percent) { return (int)(rnd() % 100) < percent; }

/* ---- the base containers ---------------------------------------------------------------- */

static const char *base_names[] = {"striped3", "striped1", "log", "log3"};
enum { NBASES = 4 };

static void pattern(char *buf, size_t n, unsigned salt)
{
  for (size_t i = 0; i < n; i++) buf[i] = (char)('a' + (i * 7 + salt) % 26);
}

static int lib_write(const char *path, const char *kind, const char *objects, int amode,
                     const int64_t *off, const int64_t *len, int n, int64_t set_size)
{
  MPI_Info info;
  MPI_Info_create(&info);
  if (kind) MPI_Info_set(info, "ostio_container", kind);
  if (objects) MPI_Info_set(info, "ostio_objects", objects), MPI_Info_set(info, "striping_unit", "65536");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_SELF, path, amode, info, &fh);
  MPI_Info_free(&info);
  char *buf = malloc(1 << 20);
  for (int i = 0; rc == 0 && i < n; i++) {
    pattern(buf, (size_t)len[i], (unsigned)i * 3 + 1);
    rc = ostio_write_at(fh, off[i], buf, (size_t)len[i]);
  }
  if (rc == 0 && n > 0) { /* one strided write_all: a compressed record */
    ostio_extent ext[3] = {{40000, 500}, {41000, 500}, {42000, 500}};
    pattern(buf, 1500, 11);
    rc = ostio_write_all(fh, ext, 3, buf);
  }
  if (rc == 0 && set_size >= 0) rc = ostio_set_size(fh, set_size);
  if (fh) {
    int rc2 = ostio_close(&fh);
    if (rc == 0) rc = rc2;
  }
  free(buf);
  if (rc < 0) fprintf(stderr, "fuzz setup: %s: %s\n", path, ostio_last_error());
  return rc;
}

/* Writers the library cannot make from one process: writer w of a new session
 * in hostdir h, plain pieces and optionally a TRUNC record. */
static int lowlevel_writer(const char *path, uint32_t writer, int32_t hostdir, int trunc)
{
  ostio__logdir *d = NULL;
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc < 0) {
    ostio__log_close(&d);
    return rc;
  }
  uint32_t s = d->max_session + 1;
  ostio__logw w;
  char buf[3000];
  ostio__logw_init(&w, d, s, writer, hostdir);
  pattern(buf, sizeof buf, writer);
  uint64_t seq = (uint64_t)s << 32 | 1;
  rc = ostio__logw_write(&w, seq, 1000 * writer, buf, 2000);
  if (rc == 0) rc = ostio__logw_write(&w, seq, 30000 + 100 * writer, buf, 3000);
  if (rc == 0 && trunc) {
    ostio__logrec t = {.type = OSTIO__LOGREC_TRUNC, .writer = writer, .seq = seq + 1,
                       .lstart = 31000};
    rc = ostio__logw_append(&w, &t);
    if (rc == 0) rc = ostio__logw_write(&w, seq + 2, 35000, buf, 100);
  }
  if (rc == 0) rc = ostio__logw_sync(&w);
  ostio__logw_close(&w);
  ostio__log_close(&d);
  return rc;
}

static int build_bases(void)
{
  char p[1200];
  int rc = 0;
  const int W = MPI_MODE_CREATE | MPI_MODE_WRONLY;
  if (mkdir(bases, 0755) < 0) return -1;
  {
    int64_t off[] = {0, 300000}, len[] = {150000, 100};
    snprintf(p, sizeof p, "%s/striped3", bases);
    rc |= lib_write(p, "striped", "3", W, off, len, 2, -1);
  }
  {
    int64_t off[] = {0}, len[] = {5000};
    snprintf(p, sizeof p, "%s/striped1", bases);
    rc |= lib_write(p, "striped", "1", W, off, len, 1, -1);
    rc |= lib_write(p, NULL, NULL, MPI_MODE_RDWR, NULL, NULL, 0, 44000);
  }
  {
    snprintf(p, sizeof p, "%s/log", bases);
    int64_t o1[] = {0, 10000}, l1[] = {1000, 3000};
    rc |= lib_write(p, "log", NULL, W, o1, l1, 2, -1);
    int64_t o2[] = {500, 20000}, l2[] = {2000, 100};
    rc |= lib_write(p, NULL, NULL, MPI_MODE_RDWR, o2, l2, 2, 43000);
    rc |= lowlevel_writer(p, 5, 0, 1);
    int64_t n = 0;
    rc |= ostio__log_compact(p, &n);
    int64_t o3[] = {15000}, l3[] = {500};
    rc |= lib_write(p, NULL, NULL, MPI_MODE_WRONLY, o3, l3, 1, -1);
  }
  {
    snprintf(p, sizeof p, "%s/log3", bases);
    ostio__ctr_params lp = {.kind = &ostio__ctr_log, .hostdirs = 3};
    snprintf(lp.requested, sizeof lp.requested, "hostdirs=3 (fuzz) writers=rank");
    int made = 0;
    rc |= ostio__ctr_create(p, &lp, 1, &made);
    int64_t o1[] = {0}, l1[] = {7000};
    rc |= lib_write(p, NULL, NULL, MPI_MODE_WRONLY, o1, l1, 1, -1);
    char host[256] = "localhost";
    gethostname(host, sizeof host);
    int32_t h = ostio__log_hostdir_of(host, 3);
    rc |= lowlevel_writer(p, 1, (h + 1) % 3, 0);
    rc |= lowlevel_writer(p, 2, (h + 2) % 3, 1);
    char s[1300];
    snprintf(s, sizeof s, "%s/%s", p, OSTIO__CTR_SIZEREC);
    unlink(s); /* a crashed writer's container: the index decides */
  }
  return rc ? -1 : 0;
}

/* ---- the entries of a container ------------------------------------------------------------ */

enum { E_MANIFEST, E_SIZE, E_INDEX, E_COMPACT, E_DATA, E_HOSTDIR, E_OTHER };
typedef struct entry {
  char rel[128];
  int type;
} entry;
static entry ents[256];
static int nents;

static void list_entries(const char *ctr)
{
  nents = 0;
  DIR *d = opendir(ctr);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) && nents < 250) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, ".."))) continue;
    entry *x = &ents[nents++];
    snprintf(x->rel, sizeof x->rel, "%.120s", e->d_name);
    if (!strcmp(e->d_name, OSTIO__CTR_MANIFEST)) x->type = E_MANIFEST;
    else if (!strcmp(e->d_name, OSTIO__CTR_SIZEREC)) x->type = E_SIZE;
    else if (!strcmp(e->d_name, OSTIO__LOG_COMPACT)) x->type = E_COMPACT;
    else if (!strncmp(e->d_name, "obj.", 4)) x->type = E_DATA;
    else if (!strncmp(e->d_name, "hostdir.", 8)) {
      x->type = E_HOSTDIR;
      char sub[1500];
      snprintf(sub, sizeof sub, "%s/%.120s", ctr, e->d_name);
      DIR *h = opendir(sub);
      struct dirent *f;
      while (h && (f = readdir(h)) && nents < 250) {
        if (f->d_name[0] == '.') continue;
        entry *y = &ents[nents++];
        snprintf(y->rel, sizeof y->rel, "%.60s/%.60s", e->d_name, f->d_name);
        y->type = !strncmp(f->d_name, "index.", 6) ? E_INDEX
                  : !strncmp(f->d_name, "data.", 5) ? E_DATA : E_OTHER;
      }
      if (h) closedir(h);
    } else x->type = E_OTHER;
  }
  closedir(d);
}

/* A random entry of the type, or of any type when none (or type < 0). */
static entry *pick(int type)
{
  int idx[256], n = 0;
  for (int i = 0; i < nents; i++)
    if (type < 0 || ents[i].type == type) idx[n++] = i;
  if (!n) {
    if (!nents) return NULL;
    return &ents[range(0, nents - 1)];
  }
  return &ents[idx[range(0, n - 1)]];
}

/* ---- mutations: bytes ----------------------------------------------------------------------- */

static const char *num_dict[] = {
  "0", "1", "-1", "2", "3", "63", "64", "65", "999", "1000", "1001", "2000", "2001",
  "4095", "65535", "65536", "65537", "131072", "4294901760", "4294901761", "4294967295",
  "4294967296", "2147483647", "2147483648", "-2147483648", "1073741824", "1099511627776",
  "4611686018427387904", "9223372036854710272", "9223372036854775806",
  "9223372036854775807", "9223372036854775808", "-9223372036854775808",
  "18446744073709551615", "18446744073709551616", "99999999999999999999999999",
  "007", "+1", "1e9", "0x10", "1k", "", " 5", "5 ", "-0"};
#define NNUM (sizeof num_dict / sizeof num_dict[0])

static const char *line_dict[] = {
  "ostio-container 1", "ostio-container 2", "ostio-container 0", "ostio-container 99999999999",
  "kind log", "kind striped", "kind plain", "byte_order little", "byte_order big",
  "objects 0", "objects 1", "objects 3", "objects 2000", "objects 2001",
  "object 0 obj.0000", "object 1 obj.0001", "object 2 obj.0002", "object 3 obj.0003",
  "object 0 ../victim", "object 1 .", "object 1 ..", "object 2 ostio.size",
  "object 0 hostdir.000", "object 0 ostio.manifest", "object 2000 obj.2000",
  "object -1 obj.0000", "object 0 obj.0001",
  "stripe_size 0", "stripe_size 65536", "stripe_size 4294901760", "stripe_size 4294967296",
  "stripe_size 9223372036854775807", "hostdirs 0", "hostdirs 1", "hostdirs 3",
  "hostdirs 1000", "hostdirs 1001", "writers rank", "writers node", "writers all",
  "created 2026-01-01T00:00:00Z", "created_by host=x pid=1 ostio=9", "requested x",
  "ostio-size 1", "ostio-size 2", "ostio-size 3", "state open", "state clean",
  "state dirty", "size 0", "size -1", "size 1", "size 9223372036854775807",
  "size 4611686018427387904", "size 1099511627776", "indexes 0000000000000000",
  "indexes ffffffffffffffff", "indexes 0", "checksum fnv1a64 0000000000000000", "",
  " ", "ostio-layout 1", "ostio-layout 2",
  "component start=0 end=eof stripe_size=65536 stripe_count=4 first_ost=0 pattern=raid0 "
  "instantiated=1 osts=0-3",
  "component start=0 end=eof stripe_size=1 stripe_count=2000 first_ost=-1 pattern=raid0 "
  "instantiated=0",
  "component start=0 end=9223372036854775807 stripe_size=4294967296 stripe_count=1",
  "component start=1048576 end=eof stripe_size=65536 stripe_count=1 osts=0-2147483647",
  "component start=0 end=eof stripe_size=65536 stripe_count=2 pattern=raid0,overstriping "
  "osts=5,5"};
#define NLINES (sizeof line_dict / sizeof line_dict[0])

typedef struct sbuf {
  char *b;
  size_t n, cap;
} sbuf;
static void sb_put(sbuf *s, const char *p, size_t n)
{
  if (s->n + n + 1 > s->cap) {
    s->cap = (s->n + n + 1) * 2;
    s->b = realloc(s->b, s->cap);
  }
  memcpy(s->b + s->n, p, n);
  s->n += n;
  s->b[s->n] = 0;
}
static void sb_str(sbuf *s, const char *p) { sb_put(s, p, strlen(p)); }

/* Byte-level mutation of buf (any file). */
static void mutate_bytes(sbuf *s, const char *what)
{
  size_t n = s->n;
  switch (range(0, 7)) {
  case 0: { /* bit flips */
    int k = (int)range(1, 8);
    for (int i = 0; i < k && n; i++) s->b[range(0, (int64_t)n - 1)] ^= (char)(1 << range(0, 7));
    describe("%s: %d bit flips", what, k);
    break;
  }
  case 1: { /* interesting bytes */
    static const char bytes[] = {0, '\n', ' ', '-', '9', '0', (char)0xff, (char)0x80, '\t', '='};
    int k = (int)range(1, 4);
    for (int i = 0; i < k && n; i++)
      s->b[range(0, (int64_t)n - 1)] = bytes[range(0, sizeof bytes - 1)];
    describe("%s: %d bytes set", what, k);
    break;
  }
  case 2: { /* truncate */
    size_t to = chance(30) ? 0 : chance(50) ? n - (n > 0) : (size_t)range(0, (int64_t)n);
    if (to <= n) s->n = to;
    describe("%s: truncated to %zu of %zu bytes", what, s->n, n);
    break;
  }
  case 3: { /* garbage at the end */
    size_t k = (size_t)(chance(20) ? range(1, 70000) : range(1, 200));
    int zeros = chance(30);
    for (size_t i = 0; i < k; i++) {
      char c = zeros ? 0 : (char)rnd();
      sb_put(s, &c, 1);
    }
    describe("%s: %zu %s bytes appended", what, k, zeros ? "zero" : "random");
    break;
  }
  case 4: { /* delete a range */
    if (!n) break;
    size_t a = (size_t)range(0, (int64_t)n - 1), k = (size_t)range(1, (int64_t)(n - a));
    memmove(s->b + a, s->b + a + k, n - a - k);
    s->n -= k;
    describe("%s: %zu bytes deleted at %zu", what, k, a);
    break;
  }
  case 5: { /* duplicate a range in place */
    if (!n) break;
    size_t a = (size_t)range(0, (int64_t)n - 1), k = (size_t)range(1, (int64_t)(n - a));
    if (k > 4096) k = 4096;
    char *copy = malloc(k);
    memcpy(copy, s->b + a, k);
    size_t at = (size_t)range(0, (int64_t)n);
    sbuf t = {0};
    sb_put(&t, s->b, at);
    sb_put(&t, copy, k);
    sb_put(&t, s->b + at, n - at);
    free(copy);
    free(s->b);
    *s = t;
    describe("%s: %zu bytes from %zu copied to %zu", what, k, a, at);
    break;
  }
  case 6: { /* insert random bytes */
    size_t at = (size_t)range(0, (int64_t)n), k = (size_t)range(1, 16);
    sbuf t = {0};
    sb_put(&t, s->b, at);
    for (size_t i = 0; i < k; i++) {
      char c = (char)rnd();
      sb_put(&t, &c, 1);
    }
    sb_put(&t, s->b + at, n - at);
    free(s->b);
    *s = t;
    describe("%s: %zu random bytes inserted at %zu", what, k, at);
    break;
  }
  default: { /* swap two bytes far apart */
    if (n < 2) break;
    size_t a = (size_t)range(0, (int64_t)n - 1), b = (size_t)range(0, (int64_t)n - 1);
    char c = s->b[a];
    s->b[a] = s->b[b];
    s->b[b] = c;
    describe("%s: bytes %zu and %zu swapped", what, a, b);
  }
  }
}

/* ---- mutations: text records (manifest, size record, layout record) ------------------------- */

/* Lines of text; the checksum line (when last) is kept apart. */
typedef struct lines {
  char *l[4096];
  int n;
  int sealed;
} lines;

static void split_lines(const char *buf, size_t len, lines *L)
{
  L->n = 0;
  L->sealed = 0;
  size_t i = 0;
  while (i < len && L->n < 4000) {
    size_t j = i;
    while (j < len && buf[j] != '\n') j++;
    L->l[L->n++] = strndup(buf + i, j - i);
    i = j + 1;
  }
  if (L->n && !strncmp(L->l[L->n - 1], "checksum ", 9)) {
    free(L->l[--L->n]);
    L->sealed = 1;
  }
}

static void free_lines(lines *L)
{
  for (int i = 0; i < L->n; i++) free(L->l[i]);
  L->n = 0;
}

/* Replaces token t (0-based, space separated) of line s; in key=value
 * tokens, the value. */
static char *replace_token(const char *s, int t, const char *with, int value_only)
{
  sbuf o = {0};
  int cur = 0;
  const char *p = s;
  for (;;) {
    const char *e = strchr(p, ' ');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (cur == t) {
      const char *eq = value_only ? memchr(p, '=', n) : NULL;
      if (eq) sb_put(&o, p, (size_t)(eq - p + 1));
      sb_str(&o, with);
    } else {
      sb_put(&o, p, n);
    }
    if (!e) break;
    sb_put(&o, " ", 1);
    p = e + 1;
    cur++;
  }
  if (!o.b) sb_str(&o, "");
  return o.b;
}

static int count_tokens(const char *s)
{
  int n = 1;
  for (; *s; s++) n += *s == ' ';
  return n;
}

/* One structural change of the lines; returns a description. */
static void mutate_lines(lines *L, const char *what)
{
  int i = L->n ? (int)range(0, L->n - 1) : 0;
  switch (L->n ? range(0, 8) : 5) {
  case 0: case 1: case 2: { /* a token becomes a number from the dictionary */
    int t = (int)range(0, count_tokens(L->l[i]) - 1);
    if (t == 0 && count_tokens(L->l[i]) > 1 && chance(70)) t = 1;
    const char *v = num_dict[range(0, NNUM - 1)];
    char *x = replace_token(L->l[i], t, v, 1);
    describe("%s line %d token %d -> '%s'", what, i + 1, t + 1, v);
    free(L->l[i]);
    L->l[i] = x;
    break;
  }
  case 3: { /* a token becomes a word from another line, or a long one */
    int t = (int)range(0, count_tokens(L->l[i]) - 1);
    char w[5000];
    if (chance(30)) {
      size_t k = (size_t)(chance(50) ? range(60, 70) : range(200, 4500));
      memset(w, 'x', k);
      w[k] = 0;
    } else {
      const char *src = line_dict[range(0, NLINES - 1)];
      snprintf(w, sizeof w, "%s", src);
      char *sp = strrchr(w, ' ');
      if (sp) memmove(w, sp + 1, strlen(sp));
    }
    char *x = replace_token(L->l[i], t, w, 0);
    describe("%s line %d token %d -> '%.40s' (%zu chars)", what, i + 1, t + 1, w, strlen(w));
    free(L->l[i]);
    L->l[i] = x;
    break;
  }
  case 4: /* duplicate a line */
    if (L->n < 4000) {
      int at = (int)range(0, L->n);
      memmove(&L->l[at + 1], &L->l[at], sizeof(char *) * (size_t)(L->n - at));
      L->l[at] = strdup(L->l[i < at ? i : i + 1]);
      L->n++;
      describe("%s line %d duplicated at %d", what, i + 1, at + 1);
    }
    break;
  case 5: /* a line from the dictionary inserted */
    if (L->n < 4000) {
      int at = (int)range(0, L->n);
      const char *v = line_dict[range(0, NLINES - 1)];
      memmove(&L->l[at + 1], &L->l[at], sizeof(char *) * (size_t)(L->n - at));
      L->l[at] = strdup(v);
      L->n++;
      describe("%s line '%.60s' inserted at %d", what, v, at + 1);
    }
    break;
  case 6: /* a line removed */
    describe("%s line %d removed", what, i + 1);
    free(L->l[i]);
    memmove(&L->l[i], &L->l[i + 1], sizeof(char *) * (size_t)(L->n - i - 1));
    L->n--;
    break;
  case 7: { /* two lines swapped */
    int j = (int)range(0, L->n - 1);
    char *t = L->l[i];
    L->l[i] = L->l[j];
    L->l[j] = t;
    describe("%s lines %d and %d swapped", what, i + 1, j + 1);
    break;
  }
  default: { /* a line replaced by a dictionary line */
    const char *v = line_dict[range(0, NLINES - 1)];
    describe("%s line %d -> '%.60s'", what, i + 1, v);
    free(L->l[i]);
    L->l[i] = strdup(v);
  }
  }
}

/* Mutates a text record; reseals it (a valid checksum) most of the time so
 * that the parser's checks after the checksum are reached. */
static void mutate_text(sbuf *s, const char *what, int sealable)
{
  if (chance(15)) {
    mutate_bytes(s, what);
    return;
  }
  lines L;
  split_lines(s->b ? s->b : "", s->n, &L);
  int k = chance(25) ? (int)range(2, 4) : 1;
  for (int i = 0; i < k; i++) mutate_lines(&L, what);
  sbuf body = {0};
  for (int i = 0; i < L.n; i++) {
    sb_str(&body, L.l[i]);
    sb_put(&body, "\n", 1);
  }
  if (!body.b) sb_str(&body, "");
  int reseal = sealable && (L.sealed || chance(10)) && chance(85);
  free(s->b);
  s->b = NULL;
  s->n = s->cap = 0;
  if (reseal) {
    char *t = NULL;
    size_t tl = 0;
    if (ostio__ctr_seal(body.b, body.n, &t, &tl) == 0) {
      sb_put(s, t, tl);
      free(t);
    } else {
      sb_put(s, body.b, body.n);
    }
    describe("%s resealed", what);
  } else {
    sb_put(s, body.b, body.n);
    if (L.sealed && chance(50)) sb_str(s, "checksum fnv1a64 0123456789abcdef\n");
  }
  if (chance(5) && s->n) s->n--; /* no final newline */
  free(body.b);
  free_lines(&L);
}

/* ---- mutations: index records --------------------------------------------------------------- */

static uint64_t get_le(const unsigned char *p, int n)
{
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static void put_le(unsigned char *p, int n, uint64_t v)
{
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void fix_crc(unsigned char *r) { put_le(r + 60, 4, ostio__crc32c(r, 60)); }

static const int64_t int_dict[] = {
  0, 1, -1, 2, 63, 64, 65, 4095, 4096, 65536, 1000000, INT32_MAX, (int64_t)INT32_MAX + 1,
  UINT32_MAX, (int64_t)UINT32_MAX + 1, INT64_C(1) << 40, INT64_C(1) << 62, INT64_MAX - 1,
  INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_MAX / 2, INT64_MAX - 4096, -4096};
#define NINT (sizeof int_dict / sizeof int_dict[0])

static const struct {
  const char *name;
  int off, len;
} fields[] = {{"magic", 0, 2}, {"version", 2, 1}, {"type", 3, 1}, {"writer", 4, 4},
              {"epoch", 8, 4}, {"session", 12, 4}, {"lstart", 16, 8}, {"lstride", 24, 8},
              {"length", 32, 8}, {"count", 40, 8}, {"pstart", 48, 8}, {"reserved", 56, 4}};
#define NFIELDS (sizeof fields / sizeof fields[0])

static int64_t interesting(int64_t cur)
{
  switch (range(0, 5)) {
  case 0: return (int64_t)((uint64_t)cur + (uint64_t)range(-2, 2)); /* wrapping */
  case 1: return (int64_t)((uint64_t)cur * 2);
  case 2: return (int64_t)rnd();
  case 3: return range(0, 100000);
  default: return int_dict[range(0, NINT - 1)];
  }
}

/* other: the bytes of another index file (records to borrow). */
static void mutate_index(sbuf *s, const char *what, const sbuf *other)
{
  size_t nrec = s->n / 64;
  int fix = chance(85);
  if (!nrec || chance(12)) {
    mutate_bytes(s, what);
    return;
  }
  size_t i = (size_t)range(0, (int64_t)nrec - 1);
  unsigned char *r = (unsigned char *)s->b + 64 * i;
  switch (range(0, 9)) {
  case 0: case 1: case 2: case 3: { /* one or more fields */
    int k = chance(30) ? (int)range(2, 3) : 1;
    for (int j = 0; j < k; j++) {
      int f = (int)range(0, NFIELDS - 1);
      if (chance(50)) f = (int)range(6, 10); /* the value fields, mostly */
      int64_t cur = (int64_t)get_le(r + fields[f].off, fields[f].len);
      int64_t v = fields[f].len == 1 && chance(60) ? range(0, 4) : interesting(cur);
      put_le(r + fields[f].off, fields[f].len, (uint64_t)v);
      describe("%s record %zu: %s %" PRId64 " -> %" PRId64, what, i, fields[f].name, cur, v);
    }
    if (fix) fix_crc(r), describe("crc fixed");
    break;
  }
  case 4: { /* a record duplicated elsewhere */
    size_t at = (size_t)range(0, (int64_t)nrec);
    unsigned char rec[64];
    memcpy(rec, r, 64);
    sbuf t = {0};
    sb_put(&t, s->b, 64 * at);
    sb_put(&t, (char *)rec, 64);
    sb_put(&t, s->b + 64 * at, s->n - 64 * at);
    free(s->b);
    *s = t;
    describe("%s record %zu duplicated at %zu", what, i, at);
    break;
  }
  case 5: /* a record removed */
    memmove(r, r + 64, s->n - 64 * (i + 1));
    s->n -= 64;
    describe("%s record %zu removed", what, i);
    break;
  case 6: { /* two records swapped */
    size_t j = (size_t)range(0, (int64_t)nrec - 1);
    unsigned char t[64];
    memcpy(t, r, 64);
    memcpy(r, s->b + 64 * j, 64);
    memcpy(s->b + 64 * j, t, 64);
    describe("%s records %zu and %zu swapped", what, i, j);
    break;
  }
  case 7: /* a record from another index file */
    if (other && other->n >= 64) {
      size_t j = (size_t)range(0, (int64_t)(other->n / 64) - 1);
      memcpy(r, other->b + 64 * j, 64);
      describe("%s record %zu replaced by record %zu of another index", what, i, j);
    }
    break;
  case 8: { /* a new record: type, writer and session of this one, values from the dictionary */
    unsigned char n[64];
    memcpy(n, r, 64);
    put_le(n + 3, 1, (uint64_t)range(1, 3));
    for (int f = 6; f <= 10; f++) put_le(n + fields[f].off, 8, (uint64_t)interesting(0));
    fix_crc(n);
    if (chance(50)) sb_put(s, (char *)n, 64);
    else memcpy(r, n, 64);
    describe("%s: a forged record (type %d, crc valid)", what, n[3]);
    break;
  }
  default: { /* torn tail */
    size_t cut = (size_t)range(1, 63);
    s->n = s->n > cut ? s->n - cut : 0;
    describe("%s: torn tail (%zu bytes cut)", what, cut);
  }
  }
}

/* ---- mutations: structure ------------------------------------------------------------------- */

static char cdir[1200], ctr[1300], victim[1300], victimdir[1300], plain[1300];

static void replace_entry(const char *rel)
{
  char p[1500];
  snprintf(p, sizeof p, "%s/%s", ctr, rel);
  int how = (int)range(0, 10);
  rm_tree(p);
  int rc = 0;
  switch (how) {
  case 0: rc = symlink(victim, p), describe("%s -> symlink to the victim file", rel); break;
  case 1: rc = symlink(victimdir, p), describe("%s -> symlink to the victim directory", rel); break;
  case 2: rc = symlink("/dev/zero", p), describe("%s -> symlink to /dev/zero", rel); break;
  case 3: rc = symlink("nowhere", p), describe("%s -> dangling symlink", rel); break;
  case 4: rc = mkfifo(p, 0644), describe("%s -> FIFO", rel); break;
  case 5: rc = mkdir(p, 0755), describe("%s -> empty directory", rel); break;
  case 6: {
    rc = mkdir(p, 0755);
    char q[1600];
    snprintf(q, sizeof q, "%s/%s", p, OSTIO__CTR_MANIFEST);
    write_all(q, "x\n", 2);
    describe("%s -> directory with a file", rel);
    break;
  }
  case 7: rc = link(victim, p), describe("%s -> hard link to the victim file", rel); break;
  case 8: describe("%s removed", rel); break;
  default: rc = write_all(p, "", 0), describe("%s -> empty file", rel);
  }
  if (rc < 0) describe("(failed: %s)", strerror(errno));
}

static void add_stray(void)
{
  static const char *names[] = {
    ".ostio.size.tmp.1234", "hostdir.999", "hostdir.001", "hostdir.002", "hostdir.000",
    "hostdir.1", "hostdir.0000", "index.1.0", "obj.9999", ".index.compact.tmp.7",
    "hostdir.000/index.1.99", "hostdir.000/data.9.9", "hostdir.000/index.01.0",
    "hostdir.000/index.4294967296.0", "hostdir.000/data.1.2147483648",
    "hostdir.000/index.4294967295.2147483647", "hostdir.000/index.0.0", "hostdir.000/x",
    "hostdir.001/index.1.0", "hostdir.001/data.1.0", "hostdir.002/index.99.3"};
  const char *n = names[range(0, sizeof names / sizeof names[0] - 1)];
  char p[1500];
  snprintf(p, sizeof p, "%s/%s", ctr, n);
  char *slash = strrchr(n, '/');
  if (slash) {
    char d[1500];
    snprintf(d, sizeof d, "%s/%.*s", ctr, (int)(slash - n), n);
    mkdir(d, 0755);
  }
  if (!strchr(n, '/') && !strncmp(n, "hostdir.", 8)) {
    mkdir(p, 0755);
    describe("stray directory %s", n);
    return;
  }
  /* a copy of a real index or data log, or garbage */
  entry *e = pick(chance(50) ? E_INDEX : E_DATA);
  char src[1500];
  if (e && chance(70)) {
    snprintf(src, sizeof src, "%s/%s", ctr, e->rel);
    if (copy_file(src, p, 0644) == 0) {
      describe("stray %s (a copy of %s)", n, e->rel);
      return;
    }
  }
  write_all(p, "garbage\n", 8);
  describe("stray file %s", n);
}

/* Renames a log to another session/writer, or an object to another name. */
static void rename_entry(void)
{
  entry *e = pick(chance(50) ? E_INDEX : E_DATA);
  if (!e) return;
  char a[1500], b[1500], rel[160];
  snprintf(a, sizeof a, "%s/%s", ctr, e->rel);
  snprintf(rel, sizeof rel, "%s", e->rel);
  char *last = strrchr(rel, '.');
  if (!last) return;
  static const char *to[] = {"0", "1", "2", "3", "7", "99", "4294967295", "2147483647",
                             "2147483648", "01"};
  snprintf(last + 1, sizeof rel - (size_t)(last + 1 - rel), "%s", to[range(0, 9)]);
  snprintf(b, sizeof b, "%s/%s", ctr, rel);
  rename(a, b);
  describe("%s renamed to %s", e->rel, rel);
}

/* Sparse or shortened object / data log (the logical size follows). */
static void resize_data(void)
{
  entry *e = pick(E_DATA);
  if (!e) return;
  char p[1500];
  snprintf(p, sizeof p, "%s/%s", ctr, e->rel);
  struct stat st;
  if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode)) return;
  int64_t to;
  int r = (int)range(0, 9);
  if (r < 4) to = range(0, st.st_size);
  else if (r < 7) to = st.st_size + range(1, 70000);
  else if (r < 9 || strncmp(e->rel, "obj.", 4)) to = st.st_size + range(1, 1 << 24);
  else to = INT64_C(1) << range(30, 40); /* an object with a big hole: bounded time wanted */
  /* (data logs stay below 16 MiB more: a record may then claim gigabytes of
   * real data, whose copy takes as long as it should) */
  if (truncate(p, to) < 0) describe("(truncate failed: %s)", strerror(errno));
  describe("%s resized from %lld to %" PRId64 " bytes", e->rel, (long long)st.st_size, to);
}

/* The layout record: a valid one, mutated, set as user.ostio.layout on the
 * case directory (the default of new files there), the container, an
 * object or data log, or a plain file. */
static int layout_touched;
static void mutate_layout(void)
{
  ostio_layout *l = tu_random_layout(&R, chance(30));
  char *text = NULL;
  size_t len = 0;
  sbuf s = {0};
  if (l && ostio__record_encode(l, &text, &len) == 0) sb_put(&s, text, len);
  else sb_str(&s, "ostio-layout 1\n");
  free(text);
  ostio__layout_destroy(l);
  mutate_text(&s, "layout record", 0);
  const char *where;
  char p[1500];
  int w = (int)range(0, 3);
  if (w == 0) where = cdir;
  else if (w == 1) where = ctr;
  else if (w == 2) where = plain;
  else {
    entry *e = pick(E_DATA);
    snprintf(p, sizeof p, "%s/%s", ctr, e ? e->rel : OSTIO__CTR_MANIFEST);
    where = p;
  }
  if (lsetxattr(where, OSTIO__LAYOUT_XATTR, s.b ? s.b : "", s.n, 0) < 0)
    describe("(setting the layout record on %s failed: %s)", where, strerror(errno));
  else
    describe("user.ostio.layout set on %s", where == cdir ? "the case directory"
                                            : where == ctr ? "the container"
                                            : where == plain ? "a plain file" : p);
  /* the decoder on the same text, directly */
  ostio_layout *d = NULL;
  if (ostio__record_decode(s.b ? s.b : "", s.n, &d) == 0) ostio__layout_destroy(d);
  free(s.b);
  layout_touched = 1;
}

/* Reads the file (or none), mutates it by its kind, writes it back. */
static void mutate_file(entry *e, const char *base)
{
  char p[1500];
  snprintf(p, sizeof p, "%s/%s", ctr, e->rel);
  sbuf s = {0};
  char *b;
  size_t n;
  if (read_all(p, &b, &n) < 0) return;
  s.b = b;
  s.n = n;
  s.cap = n + 1;
  if (e->type == E_MANIFEST || e->type == E_SIZE) {
    mutate_text(&s, e->rel, 1);
  } else if (e->type == E_INDEX || e->type == E_COMPACT) {
    sbuf other = {0};
    entry *o = pick(chance(50) ? E_INDEX : E_COMPACT);
    char q[1500];
    if (o && o != e) {
      snprintf(q, sizeof q, "%s/%s", ctr, o->rel);
      if (read_all(q, &b, &n) == 0) other.b = b, other.n = n;
    } else if (chance(50)) { /* from another base */
      snprintf(q, sizeof q, "%s/%s/%s", bases, !strcmp(base, "log") ? "log3" : "log",
               OSTIO__LOG_COMPACT);
      if (read_all(q, &b, &n) == 0) other.b = b, other.n = n;
    }
    int k = chance(20) ? (int)range(2, 4) : 1;
    for (int i = 0; i < k; i++) mutate_index(&s, e->rel, &other);
    free(other.b);
  } else {
    mutate_bytes(&s, e->rel);
  }
  write_all(p, s.b ? s.b : "", s.n);
  free(s.b);
}

/* Copies a record file of another base over this one's. */
static void swap_with_other_base(const char *base)
{
  static const char *files[] = {OSTIO__CTR_MANIFEST, OSTIO__CTR_SIZEREC, OSTIO__LOG_COMPACT};
  const char *f = files[range(0, 2)];
  const char *other = base_names[range(0, NBASES - 1)];
  char a[1500], b[1500];
  snprintf(a, sizeof a, "%s/%s/%s", bases, other, f);
  snprintf(b, sizeof b, "%s/%s", ctr, f);
  unlink(b);
  if (copy_file(a, b, 0444) == 0) describe("%s copied from base %s", f, other);
  else describe("%s removed (base %s has none)", f, other);
}

/* Builds the case: the case directory with a victim file and directory, a
 * plain file, and the mutated copy of a base container at cdir/c. */
static int make_case(int64_t c, int emit)
{
  tu_rng_seed(&R, splitmix(O.seed * 0x9e3779b97f4a7c15ull + (uint64_t)c) | 1);
  sh->desc[0] = 0;
  layout_touched = 0;
  rm_tree(cdir);
  if (mkdir(cdir, 0755) < 0) return -1;
  snprintf(ctr, sizeof ctr, "%s/c", cdir);
  snprintf(victim, sizeof victim, "%s/victim", cdir);
  snprintf(victimdir, sizeof victimdir, "%s/victimdir", cdir);
  snprintf(plain, sizeof plain, "%s/plain", cdir);
  write_all(victim, "victim: never written\n", 22);
  mkdir(victimdir, 0755);
  char v2[1400];
  snprintf(v2, sizeof v2, "%s/index.1.0", victimdir);
  write_all(v2, "victim directory entry\n", 23);
  write_all(plain, "a plain file\n", 13);
  int b = (int)range(0, 9);
  const char *base = base_names[b < 3 ? 0 : b < 4 ? 1 : b < 7 ? 2 : 3];
  snprintf(sh->base, sizeof sh->base, "%s", base);
  char src[1200];
  snprintf(src, sizeof src, "%s/%s", bases, base);
  if (copy_tree(src, ctr) < 0) return -1;
  int k = chance(20) ? (int)range(2, 4) : 1;
  for (int i = 0; i < k; i++) {
    list_entries(ctr);
    int r = (int)range(0, 99);
    entry *e;
    if (r < 16) e = pick(E_MANIFEST), e ? mutate_file(e, base) : (void)0;
    else if (r < 32) e = pick(E_SIZE), e ? mutate_file(e, base) : (void)0;
    else if (r < 50) e = pick(E_INDEX), e ? mutate_file(e, base) : (void)0;
    else if (r < 60) e = pick(E_COMPACT), e ? mutate_file(e, base) : (void)0;
    else if (r < 64) e = pick(E_DATA), e ? mutate_file(e, base) : (void)0;
    else if (r < 70) resize_data();
    else if (r < 80) mutate_layout();
    else if (r < 87) {
      e = pick(chance(30) ? E_HOSTDIR : -1);
      if (e) replace_entry(e->rel);
    } else if (r < 91) add_stray();
    else if (r < 94) rename_entry();
    else if (r < 97) swap_with_other_base(base);
    else if (!emit) { /* the container path itself */
      rm_tree(ctr);
      int how = (int)range(0, 3);
      if (how == 0) how = mkfifo(ctr, 0644), describe("the container path is a FIFO");
      else if (how == 1) { /* to a copy: writes through it must not reach the base */
        char real[1300];
        snprintf(real, sizeof real, "%s/real", cdir);
        how = copy_tree(src, real) < 0 ? -1 : symlink(real, ctr);
        describe("the container path is a symlink to a container");
      }
      else if (how == 2) write_all(ctr, "", 0), describe("the container path is an empty file");
      else mkdir(ctr, 0755), describe("the container is an empty directory");
    } else {
      e = pick(E_INDEX);
      if (e) mutate_file(e, base);
    }
  }
  return 0;
}

/* ---- the operations ------------------------------------------------------------------------- */

static int nfail_soft; /* --strict findings in this worker */

static void soft_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void soft_fail(const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FUZZ-SOFT-FAILURE: %s\n", msg);
  nfail_soft++;
}

static int cli(int (*cmd)(int, char **), int n, ...)
{
  char *argv[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n && i < 7; i++) argv[i] = va_arg(ap, char *);
  va_end(ap);
  argv[n] = NULL;
  set_op("%s %s", argv[0], n > 1 ? argv[1] : "");
  int rc = cmd(n, argv);
  fflush(stdout);
  if (rc == CLI_USAGE) soft_fail("'%s %s' was a usage error", argv[0], argv[1]);
  return rc;
}

static void lib_rc(const char *what, int rc)
{
  if (rc < 0 && O.strict && !ostio_last_error()[0])
    soft_fail("%s failed with %d and no detail", what, rc);
}

static void op_open_read(const char *p)
{
  ostio_file *fh = NULL;
  set_op("ostio_open rdonly");
  int rc = ostio_open(MPI_COMM_SELF, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  lib_rc("ostio_open", rc);
  if (rc < 0) return;
  int64_t size = -1;
  static char buf[1 << 18];
  set_op("ostio_get_size");
  if ((rc = ostio_get_size(fh, &size)) == 0 && size >= 0 && size < INT64_MAX - (1 << 20)) {
    set_op("ostio_read_at");
    lib_rc("read_at", ostio_read_at(fh, 0, buf, (size_t)(size < (int64_t)sizeof buf ? size : (int64_t)sizeof buf)));
    lib_rc("read_at", ostio_read_at(fh, size > 4096 ? size - 4096 : 0, buf, 8192));
    ostio_extent ext[2] = {{size / 3, 1000}, {size / 2 + 1000, 3000}};
    set_op("ostio_read_all");
    lib_rc("read_all", ostio_read_all(fh, ext, 2, buf));
  }
  set_op("ostio_close rdonly");
  lib_rc("close", ostio_close(&fh));
}

static void op_open_write(const char *p)
{
  ostio_file *fh = NULL;
  set_op("ostio_open rdwr");
  int rc = ostio_open(MPI_COMM_SELF, p, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  lib_rc("ostio_open rdwr", rc);
  if (rc < 0) return;
  char buf[4096];
  memset(buf, 'w', sizeof buf);
  int64_t off = range(0, 200000);
  set_op("ostio_write_at");
  lib_rc("write_at", ostio_write_at(fh, off, buf, sizeof buf));
  set_op("ostio_read_at rdwr");
  lib_rc("read_at", ostio_read_at(fh, off, buf, sizeof buf));
  if (chance(30)) {
    set_op("ostio_set_size");
    lib_rc("set_size", ostio_set_size(fh, range(0, 100000)));
  }
  set_op("ostio_close rdwr");
  lib_rc("close", ostio_close(&fh));
}

static int victim_intact(void)
{
  char *b;
  size_t n;
  int ok = read_all(victim, &b, &n) == 0 && n == 22 && !memcmp(b, "victim: never written\n", 22);
  if (ok) free(b);
  char v2[1400];
  snprintf(v2, sizeof v2, "%s/index.1.0", victimdir);
  if (ok && read_all(v2, &b, &n) == 0) {
    ok = n == 23 && !memcmp(b, "victim directory entry\n", 23);
    free(b);
  } else {
    ok = 0;
  }
  DIR *d = opendir(victimdir);
  int entries = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) entries += e->d_name[0] != '.';
  if (d) closedir(d);
  return ok && entries == 1;
}

static void run_ops(void)
{
  char out[1400], newc[1400], newp[1400], off[32], len[32];
  snprintf(out, sizeof out, "%s/out", cdir);
  snprintf(newc, sizeof newc, "%s/new", cdir);
  snprintf(newp, sizeof newp, "%s/newplain", cdir);
  int islog = !strncmp(sh->base, "log", 3);
  unsigned ops = O.ops;
  if (ops & OP_CHECK) cli(cmd_container, 3, "container", "check", ctr);
  if (ops & OP_LS) {
    cli(cmd_container, 3, "container", "ls", ctr);
    cli(cmd_container, 4, "container", "ls", "--json", ctr);
  }
  if (ops & OP_STAT) {
    cli(cmd_container, 3, "container", "stat", ctr);
    cli(cmd_container, 4, "container", "stat", "--json", ctr);
  }
  if (ops & OP_MAP) {
    cli(cmd_container, 3, "container", "map", ctr);
    cli(cmd_container, 4, "container", "map", "--records", ctr);
    snprintf(off, sizeof off, "%" PRId64, chance(80) ? range(0, 400000) : range(0, INT64_MAX / 2));
    snprintf(len, sizeof len, "%" PRId64, range(1, 1 << 20));
    cli(cmd_map, 4, "map", ctr, off, len);
    cli(cmd_getstripe, 2, "getstripe", ctr);
    cli(cmd_getstripe, 3, "getstripe", "--json", ctr);
  }
  if (ops & OP_LAYOUT && layout_touched) {
    cli(cmd_getstripe, 3, "getstripe", cdir, plain);
    cli(cmd_map, 4, "map", plain, "0", "1m");
    cli(cmd_container, 3, "container", "create", newc);
    cli(cmd_container, 3, "container", "check", newc);
    ostio_file *fh = NULL;
    set_op("ostio_open create plain");
    int rc = ostio_open(MPI_COMM_SELF, newp, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    lib_rc("ostio_open create", rc);
    if (rc == 0) {
      char buf[5000];
      memset(buf, 'p', sizeof buf);
      set_op("write_at plain");
      lib_rc("write_at", ostio_write_at(fh, 70000, buf, sizeof buf));
      lib_rc("read_at", ostio_read_at(fh, 0, buf, sizeof buf));
      set_op("ostio_close plain");
      lib_rc("close", ostio_close(&fh));
    }
    ostio_layout *l = NULL;
    set_op("ostio_layout_query");
    if (ostio_layout_query(MPI_COMM_SELF, plain, MPI_INFO_NULL, &l) == 0) ostio_layout_free(&l);
  }
  if (ops & OP_FLATTEN) {
    cli(cmd_container, 4, "container", "flatten", ctr, out);
    unlink(out);
  }
  if (ops & OP_OPEN) op_open_read(ctr);
  if (ops & OP_WRITE && chance(40)) op_open_write(ctr);
  if (ops & OP_REPAIR && islog && chance(40)) {
    cli(cmd_container, 3, "container", "recover", ctr);
    cli(cmd_container, 3, "container", "compact", ctr);
    cli(cmd_container, 3, "container", "check", ctr);
    if (ops & OP_OPEN) op_open_read(ctr);
  }
}

/* ---- the parsers swept directly ------------------------------------------------------------
 * Before the cases: every numeric-looking token of every line of the bases'
 * manifests and size records, and of a layout record, replaced by every number
 * of the dictionary, resealed and parsed (a few thousand parses, deterministic):
 * the boundary values reach each field's check at least once per run. */
static void sweep_text(const char *text, size_t len, int kind)
{
  lines L;
  split_lines(text, len, &L);
  for (int i = 0; i < L.n; i++) {
    int nt = count_tokens(L.l[i]);
    for (int t = 0; t < nt; t++) {
      for (size_t v = 0; v < NNUM; v++) {
        char *line = replace_token(L.l[i], t, num_dict[v], 1);
        sbuf body = {0};
        for (int j = 0; j < L.n; j++) {
          sb_str(&body, j == i ? line : L.l[j]);
          sb_put(&body, "\n", 1);
        }
        char *sealed = NULL;
        size_t sl = 0;
        set_op("sweep: line %d token %d = '%s'", i + 1, t + 1, num_dict[v]);
        if (kind == 2) {
          ostio_layout *l = NULL;
          if (ostio__record_decode(body.b, body.n, &l) == 0) ostio__layout_destroy(l);
        } else if (ostio__ctr_seal(body.b, body.n, &sealed, &sl) == 0) {
          if (kind == 0) {
            ostio__manifest m;
            if (ostio__manifest_parse(sealed, sl, "sweep", &m) == 0) ostio__manifest_free(&m);
          } else {
            ostio__sizerec r;
            (void)ostio__sizerec_parse(sealed, sl, "sweep", &r);
          }
        }
        free(sealed);
        free(body.b);
        free(line);
      }
    }
  }
  free_lines(&L);
}

static void parser_sweep(void)
{
  for (int b = 0; b < NBASES; b++) {
    static const char *files[] = {OSTIO__CTR_MANIFEST, OSTIO__CTR_SIZEREC};
    for (int f = 0; f < 2; f++) {
      char p[1400], *text;
      size_t n;
      snprintf(p, sizeof p, "%s/%s/%s", bases, base_names[b], files[f]);
      if (read_all(p, &text, &n) < 0) continue;
      snprintf(sh->desc, sizeof sh->desc, "parser sweep of %s of base %s", files[f],
               base_names[b]);
      sweep_text(text, n, f);
      free(text);
    }
  }
  ostio_layout *l = NULL;
  char *text = NULL;
  size_t n = 0;
  int32_t osts[3] = {4, 5, 6};
  ostio__comp c1 = {.start = 0, .end = 1 << 20, .stripe_size = 65536, .stripe_count = 2,
                    .first_ost = 0, .pattern = OSTIO_PATTERN_RAID0, .instantiated = 1};
  ostio__comp c2 = {.start = 1 << 20, .end = OSTIO_EOF, .stripe_size = 1 << 20,
                    .stripe_count = 3, .first_ost = 4, .pattern = OSTIO_PATTERN_RAID0,
                    .instantiated = 1, .osts = osts};
  l = ostio__layout_new();
  if (l && ostio__layout_add(l, &c1) == 0 && ostio__layout_add(l, &c2) == 0 &&
      ostio__record_encode(l, &text, &n) == 0) {
    snprintf(sh->desc, sizeof sh->desc, "parser sweep of a layout record");
    sweep_text(text, n, 2);
  }
  free(text);
  ostio__layout_destroy(l);
  sh->desc[0] = 0;
}

/* ---- --self-test: faults planted after the operations of a case, each of
 * which the parent must report (the harness cannot silently miss them). ---------------------- */

enum { PLANT_NONE, PLANT_SEGV, PLANT_HANG, PLANT_CLOSE_FD, PLANT_VICTIM, PLANT_OVERFLOW,
       PLANT_LEAK, NPLANTS };
static const char *plant_names[] = {"none", "SIGSEGV", "hang", "closed fd 0",
                                    "write outside the container", "heap overflow", "leak"};
static volatile int sink;
static void plant(int64_t k)
{
  set_op("planted %s", plant_names[k % NPLANTS]);
  switch (k % NPLANTS) {
  case PLANT_SEGV: sink = *(volatile int *)(uintptr_t)sink; break;
  case PLANT_HANG: for (;;) sink++;
  case PLANT_CLOSE_FD: close(0); break;
  case PLANT_VICTIM: write_all(victim, "changed\n", 8); break;
  case PLANT_OVERFLOW: {
    volatile char *p = malloc(8);
    p[sink + 8] = 1; /* caught by ASan; without it nothing is reported */
    free((void *)p);
    break;
  }
  case PLANT_LEAK: {
    void *volatile p = malloc(100);
    sink += p != NULL;
    p = NULL;
    break;
  }
  default: break;
  }
}

/* ---- the worker ----------------------------------------------------------------------------- */

/* The worker's own descriptors (stdin/out/err, MPI's) must survive every case
 * unchanged, and no descriptor may stay open on a file of the case after it:
 * a library that closes a caller's fd (or leaks one) is a bug, and would make
 * later cases fail for no reason of their own. */
typedef struct fdid {
  int fd;
  dev_t dev;
  ino_t ino;
} fdid;
static fdid base_fds[256];
static int nbase_fds;

static int list_fds(fdid *out, int cap)
{
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  if (!d) return 0;
  int self = dirfd(d);
  struct dirent *e;
  while ((e = readdir(d)) && n < cap) {
    if (e->d_name[0] == '.') continue;
    int fd = atoi(e->d_name);
    struct stat st;
    if (fd == self || fstat(fd, &st) < 0) continue;
    out[n++] = (fdid){fd, st.st_dev, st.st_ino};
  }
  closedir(d);
  return n;
}

/* 0, or a description of what changed. */
static int fds_intact(char *why, size_t cap)
{
  fdid now_fds[1024];
  int n = list_fds(now_fds, 1024);
  for (int i = 0; i < nbase_fds; i++) {
    int found = 0;
    for (int j = 0; j < n; j++)
      found |= now_fds[j].fd == base_fds[i].fd && now_fds[j].dev == base_fds[i].dev &&
               now_fds[j].ino == base_fds[i].ino;
    if (!found) {
      snprintf(why, cap, "fd %d of the caller was closed or replaced", base_fds[i].fd);
      return 0;
    }
  }
  for (int j = 0; j < n; j++) {
    int known = 0;
    for (int i = 0; i < nbase_fds; i++)
      known |= now_fds[j].fd == base_fds[i].fd && now_fds[j].ino == base_fds[i].ino;
    if (known) continue;
    char l[64], target[2048];
    snprintf(l, sizeof l, "/proc/self/fd/%d", now_fds[j].fd);
    ssize_t k = readlink(l, target, sizeof target - 1);
    if (k <= 0) continue;
    target[k] = 0;
    if (!strncmp(target, work, strlen(work))) {
      snprintf(why, cap, "fd %d is still open on %s after the case", now_fds[j].fd, target);
      return 0;
    }
  }
  return 1;
}

#if !FUZZ_ASAN
static void on_crash(int sig)
{
  void *frames[64];
  int n = backtrace(frames, 64);
  static const char m[] = "FUZZ-CRASH: backtrace:\n";
  if (write(2, m, sizeof m - 1) < 0) _exit(9);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}
#endif

static void worker(int64_t first, int64_t last)
{
  if (!O.one) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    close(fd);
    fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    dup2(fd, 2);
    close(fd);
  }
#if !FUZZ_ASAN
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGFPE, on_crash);
  signal(SIGABRT, on_crash);
#endif
  LSAN_PAUSE();
  MPI_Init(NULL, NULL);
  LSAN_RESUME();
  snprintf(cdir, sizeof cdir, "%s/case", work);
  nbase_fds = list_fds(base_fds, 256);
  for (int64_t c = first; c < last; c++) {
    if (!O.one && ftruncate(2, 0) < 0) _exit(5);
    sh->t0 = now();
    sh->cur = c;
    set_op("mutate");
    if (make_case(c, 0) < 0) {
      fprintf(stderr, "fuzz: cannot build case %" PRId64 " in %s: %s\n", c, cdir, strerror(errno));
      _exit(5);
    }
    if (O.one) {
      printf("case %" PRId64 " (seed %" PRIu64 "): base %s; %s\n", c, O.seed, sh->base, sh->desc);
      fflush(stdout);
      if (O.keep) {
        rm_tree(O.keep);
        if (copy_tree(cdir, O.keep) == 0) printf("kept the case directory as %s\n", O.keep);
      }
    }
    nfail_soft = 0;
    run_ops();
    if (O.self_test) plant(c - O.first);
    if (nfail_soft) _exit(6);
    set_op("victim check");
    if (!victim_intact()) {
      fprintf(stderr, "FUZZ-ESCAPE: a file outside the container was changed\n");
      _exit(4);
    }
    char why[2200];
    set_op("descriptor check");
    if (!fds_intact(why, sizeof why)) {
      fprintf(stderr, "FUZZ-FD: %s\n", why);
      _exit(8);
    }
#if FUZZ_ASAN
    set_op("leak check");
    if (__lsan_do_recoverable_leak_check()) _exit(7);
#endif
    double t = now() - sh->t0;
    if (t > sh->slowest) sh->slowest = t, sh->slowest_case = c;
    sh->done++;
  }
  rm_tree(cdir);
  LSAN_PAUSE();
  MPI_Finalize();
  _exit(0);
}

/* --emit DIR: the mutated containers of the cases, for the preload fuzz. */
static int emit(void)
{
  char list[1400];
  mkdir(O.emit, 0755);
  snprintf(list, sizeof list, "%s/cases.txt", O.emit);
  FILE *f = fopen(list, "w");
  if (!f) return 2;
  for (int64_t c = O.first; c < O.first + O.cases; c++) {
    snprintf(cdir, sizeof cdir, "%s/%06" PRId64, O.emit, c);
    if (make_case(c, 1) < 0) {
      fclose(f);
      return 2;
    }
    fprintf(f, "%06" PRId64 "\t%s\t%s\n", c, sh->base, sh->desc);
  }
  fclose(f);
  return 0;
}

/* ---- the parent ------------------------------------------------------------------------------ */

typedef struct failure {
  int64_t c;
  char kind[128], sig[256];
} failure;

static void tail_file(const char *path, int maxlines, char *summary, size_t cap)
{
  char *b;
  size_t n;
  summary[0] = 0;
  if (read_all(path, &b, &n) < 0) return;
  const char *s = strstr(b, "SUMMARY: ");
  if (!s) s = strstr(b, "runtime error:");
  if (s) {
    const char *e = strchr(s, '\n');
    snprintf(summary, cap, "%.*s", (int)(e ? e - s : (long)strlen(s)), s);
  }
  /* A crash outside ASan: resolve the backtrace of the worker (same binary). */
  const char *bt = strstr(b, "FUZZ-CRASH: backtrace:");
  if (bt) {
    char cmd[4096], self[1024];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    self[k > 0 ? k : 0] = 0;
    int m = snprintf(cmd, sizeof cmd, "addr2line -f -p -e '%s'", self);
    int frames = 0;
    for (const char *q = bt; (q = strstr(q, "(+0x")) && frames < 8; q += 4) {
      const char *line = q;
      while (line > bt && line[-1] != '\n') line--;
      if (!strstr(line, "test_fuzz_containers(") || strstr(line, "test_fuzz_containers(") > q)
        continue; /* libc frames */
      m += snprintf(cmd + m, sizeof cmd - (size_t)m, " %.*s", (int)strcspn(q + 2, ")"), q + 2);
      frames++;
    }
    FILE *p = frames ? popen(cmd, "r") : NULL;
    char fl[512];
    int first = 1;
    while (p && fgets(fl, sizeof fl, p)) {
      printf("    frame: %s", fl);
      if (first && !strstr(fl, "on_crash")) {
        snprintf(summary, cap, "%.*s", (int)strcspn(fl, "\n"), fl);
        first = 0;
      }
    }
    if (p) pclose(p);
  }
  int nl = 0;
  size_t i = n;
  while (i > 0 && nl <= maxlines) nl += b[--i] == '\n';
  if (i > 0) i++;
  const char *p = b + i;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    printf("    | %.*s\n", (int)(len > 300 ? 300 : len), p);
    if (!e) break;
    p = e + 1;
  }
  free(b);
}

static volatile pid_t worker_pid;
static void on_stop(int sig)
{
  if (worker_pid > 0) kill(worker_pid, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

static int run(void)
{
  failure fails[4096];
  int nf = 0;
  int64_t next = O.first, last = O.first + O.cases;
  double start = now(), lastprog = start;
  while (next < last && nf < O.max_failures) {
    sh->cur = -1;
    sh->op[0] = 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) worker(next, last);
    worker_pid = pid;
    int status = 0, hung = 0;
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      double t = now();
      if (sh->cur >= 0 && t - sh->t0 > O.timeout) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        hung = 1;
        break;
      }
      if (O.progress > 0 && t - lastprog >= O.progress) {
        fprintf(stderr, "fuzz: %" PRId64 "/%" PRId64 " cases, %d failing, %.1f cases/s\n",
                sh->done, O.cases, nf, sh->done / (t - start));
        lastprog = t;
      }
      usleep(sh->cur < 0 ? 2000 : 5000);
    }
    if (!hung && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      next = last;
      break;
    }
    if (sh->cur < 0) {
      printf("fuzz: the worker failed before its first case (status %d)\n", status);
      tail_file(outfile, 30, fails[0].sig, sizeof fails[0].sig);
      return 2;
    }
    failure *f = &fails[nf++];
    f->c = sh->cur;
    if (hung) snprintf(f->kind, sizeof f->kind, "hang (over %.0f s)", O.timeout);
    else if (WIFSIGNALED(status))
      snprintf(f->kind, sizeof f->kind, "crash (signal %d, %s)", WTERMSIG(status),
               strsignal(WTERMSIG(status)));
    else {
      int x = WEXITSTATUS(status);
      snprintf(f->kind, sizeof f->kind, "%s (exit %d)",
               x == 4 ? "a file outside the container changed" : x == 6 ? "strict check failed"
               : x == 7 ? "leak" : x == 8 ? "descriptor closed or leaked"
               : x == 1 ? "sanitizer report" : "worker died", x);
    }
    printf("FAIL case %" PRId64 " (seed %" PRIu64 "): %s during '%s'\n", f->c, O.seed, f->kind,
           sh->op);
    printf("  base %s; mutations: %s\n", sh->base, sh->desc);
    printf("  reproduce: scripts/fuzz.sh --seed %" PRIu64 " --case %" PRId64 "\n", O.seed, f->c);
    printf("  output of the case (tail):\n");
    tail_file(outfile, 25, f->sig, sizeof f->sig);
    char k[128];
    snprintf(k, sizeof k, "%s", f->kind);
    snprintf(f->kind, sizeof f->kind, "%.60s in '%.30s'", k, sh->op);
    next = sh->cur + 1;
  }
  double t = now() - start;
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec * 1e-6;
  int64_t ran = nf ? fails[nf - 1].c + 1 - O.first : O.cases;
  if (next >= last) ran = O.cases;
  printf("fuzz: seed %" PRIu64 ", cases %" PRId64 "..%" PRId64 ": %d failing, %.1f s, cpu %.1f s "
         "(slowest case %" PRId64 ": %.2f s)%s\n", O.seed, O.first, O.first + ran - 1, nf, t, cpu,
         sh->slowest_case, sh->slowest, nf >= O.max_failures ? "; stopped at --max-failures" : "");
  if (nf) {
    printf("distinct failures (kind, operation, sanitizer summary):\n");
    for (int i = 0; i < nf; i++) {
      int seen = 0;
      for (int j = 0; j < i; j++)
        seen |= !strcmp(fails[i].kind, fails[j].kind) && !strcmp(fails[i].sig, fails[j].sig);
      if (!seen)
        printf("  case %" PRId64 ": %s%s%s\n", fails[i].c, fails[i].kind,
               fails[i].sig[0] ? ": " : "", fails[i].sig);
    }
  }
  if (O.self_test) { /* each planted fault must be reported, the clean case not */
    int bad = 0;
    for (int64_t k = 0; k < NPLANTS; k++) {
      int want = k != PLANT_NONE && ((k != PLANT_OVERFLOW && k != PLANT_LEAK) || FUZZ_ASAN);
      int got = 0;
      for (int i = 0; i < nf; i++) got |= fails[i].c == O.first + k;
      if (got != want) {
        printf("self-test: planted '%s' in case %" PRId64 " was %sreported\n", plant_names[k],
               O.first + k, got ? "" : "not ");
        bad = 1;
      }
    }
    printf("self-test: %s\n", bad ? "FAILED" : "every planted fault was reported");
    return bad;
  }
  return nf ? 1 : 0;
}

static unsigned parse_ops(const char *s)
{
  unsigned m = 0;
  char *copy = strdup(s), *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    unsigned bit = 0;
    for (unsigned i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
      if (!strcmp(t, op_names[i])) bit = 1u << i;
    if (!strcmp(t, "all")) bit = OP_ALL;
    if (!bit) {
      free(copy);
      return 0;
    }
    m |= bit;
  }
  free(copy);
  return m;
}

int main(int argc, char **argv)
{
  const char *e;
  O.seed = (e = getenv("OSTIO_FUZZ_SEED")) && *e ? strtoull(e, NULL, 0) : 1;
  O.cases = (e = getenv("OSTIO_FUZZ_CASES")) && *e ? strtoll(e, NULL, 0) : 1500;
  O.timeout = FUZZ_ASAN ? 20 : 5;
  O.max_failures = 10;
  O.ops = OP_ALL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage_text, stdout);
      return 0;
    } else if (!strcmp(a, "--strict")) {
      O.strict = 1;
      takes = 0;
    } else if (!strcmp(a, "--self-test")) {
      O.self_test = 1;
      takes = 0;
    } else if (!v) {
      fprintf(stderr, "test_fuzz_containers: %s: unknown option or missing value\n%s", a,
              usage_text);
      return 2;
    } else if (!strcmp(a, "--cases")) O.cases = strtoll(v, NULL, 0);
    else if (!strcmp(a, "--seed")) O.seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--first")) O.first = strtoll(v, NULL, 0);
    else if (!strcmp(a, "--case")) O.first = strtoll(v, NULL, 0), O.cases = 1, O.one = 1;
    else if (!strcmp(a, "--timeout")) O.timeout = strtod(v, NULL);
    else if (!strcmp(a, "--progress")) O.progress = strtod(v, NULL);
    else if (!strcmp(a, "--max-failures")) O.max_failures = atoi(v);
    else if (!strcmp(a, "--ops")) O.ops = parse_ops(v);
    else if (!strcmp(a, "--keep")) O.keep = v;
    else if (!strcmp(a, "--emit")) O.emit = v;
    else if (!strcmp(a, "--workdir")) O.work = v;
    else {
      fprintf(stderr, "test_fuzz_containers: unknown option %s\n%s", a, usage_text);
      return 2;
    }
    i += takes;
  }
  if (O.cases < 0 || O.first < 0 || !O.ops || O.timeout <= 0 || O.max_failures < 1 ||
      O.max_failures > 4000) {
    fprintf(stderr, "test_fuzz_containers: bad option value\n%s", usage_text);
    return 2;
  }
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) return 2;
  memset(sh, 0, sizeof *sh);
  if (O.work) {
    snprintf(work, sizeof work, "%s", O.work);
    mkdir(work, 0755);
  } else {
    /* tmpfs when there is one with user xattrs: fsync is free there and the
     * library fsyncs at every create and close (5x faster than ext4 here). */
    const char *shm_dir = getenv("OSTIO_FUZZ_DIR");
    int ok = 0;
    if (!shm_dir || !*shm_dir) shm_dir = "/dev/shm";
    snprintf(work, sizeof work, "%s/ostio-fuzz-XXXXXX", shm_dir);
    if (mkdtemp(work)) {
      ok = setxattr(work, "user.ostio.probe", "1", 1, 0) == 0;
      if (!ok) rmdir(work);
    }
    if (!ok && tu_tmpdir(work, sizeof work, "fuzz") < 0) {
      perror("mkdtemp");
      return 2;
    }
  }
  snprintf(bases, sizeof bases, "%s/bases", work);
  snprintf(outfile, sizeof outfile, "%s/worker.out", work);
  rm_tree(bases);
  /* The base containers, built with MPI in a child (each worker initialises
   * MPI once for itself). */
  pid_t pid = fork();
  if (pid == 0) {
    LSAN_PAUSE();
    MPI_Init(NULL, NULL);
    LSAN_RESUME();
    int fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (!O.one && fd >= 0) dup2(fd, 2);
    if (fd >= 0) close(fd);
    set_op("building the bases");
    int rc = build_bases();
    if (rc == 0 && !O.emit) parser_sweep();
    LSAN_PAUSE();
    MPI_Finalize();
    _exit(rc < 0 ? 3 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char sum[256];
    printf("FAIL setup (seed %" PRIu64 "): status %d during '%s' (%s)\n", O.seed, status,
           sh->op, sh->desc);
    tail_file(outfile, 25, sum, sizeof sum);
    if (!O.work) rm_tree(work);
    return WIFEXITED(status) && WEXITSTATUS(status) == 3 ? 2 : 1; /* 3: the build failed */
  }
  if (O.self_test) { /* the planted cases, with flatten left out (known hangs) */
    O.cases = NPLANTS;
    O.max_failures = NPLANTS;
    O.ops &= ~(unsigned)OP_FLATTEN;
    if (O.timeout > 3) O.timeout = 3;
  }
  signal(SIGINT, on_stop);
  signal(SIGTERM, on_stop);
  int rc = O.emit ? emit() : run();
  if (!O.work) rm_tree(work);
  return rc;
}
