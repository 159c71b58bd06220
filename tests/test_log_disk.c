/* Log containers on disk through the module API (no MPI):
 *  - damage: a bad record in the middle, a torn tail (partial and a full
 *    record with a bad CRC), a record pointing past its data log, each seen
 *    by loading, reported by check and repaired by recover;
 *  - names: entries outside the grammar (a foreign file, a hostdir beyond
 *    hostdirs, a symlinked log and a symlinked hostdir pointing outside)
 *    are never opened, check names them, the victims stay unchanged;
 *  - compact: current, then stale when a covered log changes;
 *  - crash: a forked writer killed with SIGKILL at a random moment (several
 *    seeds, three sessions each): after recover every byte synced is
 *    intact and every other byte holds its previous value or the value of a
 *    later write, never anything else; readers see the same before and
 *    after recover. With a path to log_crash_writer as argument, every other
 *    seed writes through the library (ostio_open on MPI_COMM_SELF,
 *    ostio_write_at, ostio_sync) instead. OSTIO_TEST_CRASH_ROUNDS=N;
 *  - flush_fail: a pending record whose append fails stays pending. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "container/log/log.h"
#include "core/error.h"
#include "testutil.h"

static char dir[512];
static const char *helper; /* log_crash_writer, when given */

static int make(const char *path, int32_t hostdirs)
{
  ostio__ctr_params p = {.kind = &ostio__ctr_log, .hostdirs = hostdirs};
  snprintf(p.requested, sizeof p.requested, "test");
  int created = 0;
  return ostio__ctr_create(path, &p, 1, &created);
}

/* Three records of one writer: [0,100) 'a', [1000,1200) 'b', [5000,5300) 'c'. */
static void three(const char *path)
{
  ostio__logdir *d = NULL;
  ostio__logw w;
  char buf[300];
  CHECK(make(path, 2) == 0);
  CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__log_scan(d) == 0);
  if (!d) return;
  ostio__logw_init(&w, d, 1, 0, 1);
  memset(buf, 'a', 100);
  CHECK(ostio__logw_write(&w, 1ull << 32 | 1, 0, buf, 100) == 0);
  memset(buf, 'b', 200);
  CHECK(ostio__logw_write(&w, 1ull << 32 | 1, 1000, buf, 200) == 0);
  memset(buf, 'c', 300);
  CHECK(ostio__logw_write(&w, 1ull << 32 | 1, 5000, buf, 300) == 0);
  CHECK(ostio__logw_sync(&w) == 0 && w.nrec == 3);
  ostio__logw_close(&w);
  ostio__log_close(&d);
}

static void load(const char *path, ostio__logmap *m, ostio__logload *st, char *buf, int64_t len)
{
  ostio__logdir *d = NULL;
  ostio__logres res = {0};
  memset(st, 0, sizeof *st);
  ostio__logmap_init(m);
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc == 0) rc = ostio__log_load_all(d, m, st);
  if (rc == 0 && buf) rc = ostio__log_read(d, m, &res, 0, len, buf);
  CHECKF(rc == 0, "%s", ostio_last_error());
  ostio__logres_free(&res);
  ostio__log_close(&d);
}

static char problems[4096];
static int nproblems;
static void collect(void *arg, const char *msg)
{
  (void)arg;
  nproblems++;
  strncat(problems, msg, sizeof problems - strlen(problems) - 2);
  strcat(problems, "\n");
}
static int check(const char *path, const char *needle)
{
  problems[0] = '\0';
  nproblems = 0;
  int n = ostio__ctr_check(path, collect, NULL);
  return needle ? n > 0 && strstr(problems, needle) != NULL : n == 0;
}

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

/* Loads and reads [off, off+len): the read's return code. */
static int try_read(const char *path, int64_t off, int64_t len, char *buf)
{
  ostio__logdir *d = NULL;
  ostio__logres res = {0};
  ostio__logmap m;
  ostio__logload st = {0};
  ostio__logmap_init(&m);
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  if (rc == 0) rc = ostio__log_load_all(d, &m, &st);
  if (rc == 0) rc = ostio__log_read(d, &m, &res, off, len, buf);
  ostio__logres_free(&res);
  ostio__logmap_free(&m);
  ostio__log_close(&d);
  return rc;
}

static void poke(const char *path, const char *name, int64_t off, const void *b, size_t n)
{
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", path, name);
  int fd = open(p, O_WRONLY);
  CHECK(fd >= 0 && pwrite(fd, b, n, off) == (ssize_t)n);
  if (fd >= 0) close(fd);
}

static int64_t fsize(const char *path, const char *name)
{
  char p[1200];
  struct stat st;
  snprintf(p, sizeof p, "%s/%s", path, name);
  return stat(p, &st) == 0 ? (int64_t)st.st_size : -1;
}

static void test_damage(void)
{
  char path[600], buf[6000];
  ostio__logmap m;
  ostio__logload st;
  const char *idx = "hostdir.001/index.1.0", *dat = "hostdir.001/data.1.0";
  /* Clean: three records, check is quiet. */
  snprintf(path, sizeof path, "%s/ok", dir);
  three(path);
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 3 && m.size == 5300 && buf[0] == 'a' && buf[1100] == 'b' && buf[5299] == 'c' &&
        buf[100] == 0);
  ostio__logmap_free(&m);
  /* The writer never recorded its size: the clean record (0 from creation) disagrees. */
  CHECKF(check(path, "clean size record says 0 bytes"), "%s", problems);
  /* Bad record in the middle. */
  snprintf(path, sizeof path, "%s/mid", dir);
  three(path);
  poke(path, idx, 64 + 20, "X", 1);
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 1 && st.bad_records == 1 && buf[0] == 'a' && buf[1100] == 0 && buf[5000] == 0);
  ostio__logmap_free(&m);
  CHECKF(check(path, "record 1 is damaged"), "%s", problems);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1 && fsize(path, idx) == 64);
  CHECKF(check(path, NULL), "after recover: %s", problems);
  /* Torn tail: 30 bytes of a record, then a full last record with a bad CRC. */
  snprintf(path, sizeof path, "%s/torn", dir);
  three(path);
  poke(path, idx, 192, "0123456789012345678901234567890", 30);
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 3 && st.torn_bytes == 30 && buf[5299] == 'c');
  ostio__logmap_free(&m);
  CHECKF(check(path, "torn last record"), "%s", problems);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1 && fsize(path, idx) == 192);
  poke(path, idx, 128 + 61, "Z", 1);
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 2 && st.torn_bytes == 64 && st.bad_records == 0 && buf[5000] == 0);
  ostio__logmap_free(&m);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1 && fsize(path, idx) == 128);
  CHECKF(check(path, NULL), "after recover: %s", problems);
  /* A record pointing past its data log: never read as garbage. */
  snprintf(path, sizeof path, "%s/past", dir);
  three(path);
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", path, dat);
  CHECK(truncate(p, 300) == 0); /* 'c' (physical 300..600) is gone */
  /* The record stays in the map: its bytes are lost, and reading them is an
   * error (issue 13), never zeros; the rest reads normally. */
  load(path, &m, &st, buf, 1200);
  CHECK(m.n == 3 && st.past_data == 1 && buf[1100] == 'b' && m.size == 5300);
  ostio__logmap_free(&m);
  int rc = try_read(path, 0, 5300, buf);
  CHECKF(rc == OSTIO_EFORMAT && has("lost") && has("data.1.0") && has("[5000, 5300)"),
         "rc %d: %s", rc, ostio_last_error());
  CHECKF(check(path, "points past the end"), "%s", problems);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1 && fsize(path, idx) == 128);
  CHECKF(check(path, NULL), "after recover: %s", problems);
  load(path, &m, &st, buf, sizeof buf); /* recover accepted the loss: zeros now */
  CHECK(m.n == 2 && m.size == 1200 && buf[1100] == 'b');
  ostio__logmap_free(&m);
}

static void test_names(void)
{
  char path[600], p[1200], victim[600], outside[600], buf[6000];
  snprintf(path, sizeof path, "%s/names", dir);
  snprintf(victim, sizeof victim, "%s/victim", dir);
  snprintf(outside, sizeof outside, "%s/outside", dir);
  three(path);
  FILE *f = fopen(victim, "w");
  fputs("do not touch", f);
  fclose(f);
  /* A full copy of a valid hostdir outside, linked in as hostdir.000. */
  mkdir(outside, 0777);
  static char cmd[4200];
  snprintf(cmd, sizeof cmd, "cp %s/hostdir.001/index.1.0 %s/index.1.0 && cp %s/hostdir.001/"
           "data.1.0 %s/data.9.0 && cp %s/hostdir.001/index.1.0 %s/index.9.0", path, outside,
           path, outside, path, outside);
  CHECK(system(cmd) == 0);
  snprintf(p, sizeof p, "%s/hostdir.000", path);
  CHECK(symlink(outside, p) == 0);
  snprintf(p, sizeof p, "%s/hostdir.001/data.7.0", path);
  CHECK(symlink(victim, p) == 0);
  snprintf(p, sizeof p, "%s/hostdir.001/index.7.0", path);
  CHECK(symlink("../../victim", p) == 0);
  snprintf(p, sizeof p, "%s/hostdir.001/evil", path);
  fclose(fopen(p, "w"));
  snprintf(p, sizeof p, "%s/hostdir.001/data.01.1", path);
  fclose(fopen(p, "w"));
  snprintf(p, sizeof p, "%s/hostdir.005", path);
  mkdir(p, 0777);
  snprintf(p, sizeof p, "%s/..data.1.0", path);
  fclose(fopen(p, "w"));
  ostio__logmap m;
  ostio__logload st;
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 3 && m.size == 5300 && buf[1100] == 'b'); /* nothing foreign loaded */
  ostio__logmap_free(&m);
  CHECKF(check(path, "hostdir.000"), "%s", problems);
  CHECK(strstr(problems, "data.7.0") && strstr(problems, "index.7.0") &&
        strstr(problems, "evil") && strstr(problems, "data.01.1") &&
        strstr(problems, "hostdir.005") && strstr(problems, "..data.1.0"));
  CHECK(ostio__log_recover(path, NULL, NULL) >= 0);
  CHECK(ostio__log_remove(path) == OSTIO_ENOTEMPTY); /* foreign files stay */
  f = fopen(victim, "r");
  char v[32] = "";
  CHECK(f && fgets(v, sizeof v, f) && !strcmp(v, "do not touch"));
  if (f) fclose(f);
  CHECK(fsize(outside, "data.9.0") == 600 && fsize(outside, "index.1.0") == 192);
}

static void test_compact(void)
{
  char path[600], buf[6000];
  snprintf(path, sizeof path, "%s/compact", dir);
  three(path);
  int64_t n = 0;
  CHECK(ostio__log_compact(path, &n) == 0 && n == 3);
  ostio__logdir *d = NULL;
  CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__log_scan(d) == 0 && d->compact == 1);
  ostio__log_close(&d);
  ostio__logmap m;
  ostio__logload st;
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 3 && buf[5299] == 'c' && buf[0] == 'a');
  ostio__logmap_free(&m);
  /* A covered log changes: the compact index is stale and ignored. */
  unsigned char rec[64];
  char p[1200];
  snprintf(p, sizeof p, "%s/hostdir.001/index.1.0", path);
  int fd = open(p, O_RDWR);
  CHECK(fd >= 0 && pread(fd, rec, 64, 0) == 64 && pwrite(fd, rec, 64, 192) == 64);
  close(fd);
  CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__log_scan(d) == 0 && d->compact == 0);
  ostio__log_close(&d);
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 4 && buf[0] == 'a');
  ostio__logmap_free(&m);
  CHECK(check(path, "stale"));
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1 && fsize(path, "index.compact") == -1);
}

/* Rewrites record k of index.compact (0 is the COVER): pstart moved, writer
 * replaced when >= 0; the CRC stays valid. */
static void forge_compact(const char *path, int k, int64_t add_pstart, int writer)
{
  char p[1200];
  unsigned char b[64];
  ostio__logrec r;
  snprintf(p, sizeof p, "%s/index.compact", path);
  int fd = open(p, O_RDWR);
  CHECK(fd >= 0 && pread(fd, b, 64, 64 * k) == 64 && ostio__logrec_decode(b, &r) == 0);
  r.pstart += add_pstart;
  if (writer >= 0) r.writer = (uint32_t)writer;
  ostio__logrec_encode(&r, b);
  CHECK(pwrite(fd, b, 64, 64 * k) == 64);
  if (fd >= 0) close(fd);
}

/* Issue 13: data that is missing is found by check and never read as zeros
 * without an error: an emptied or deleted index log (its data log left
 * without records), index.compact records pointing past their data log or
 * naming a writer that does not exist, hard links planted as logs. */
static void test_lost(void)
{
  char path[600], p[1200], buf[6000];
  ostio__logmap m;
  ostio__logload st;
  const char *idx = "hostdir.001/index.1.0", *dat = "hostdir.001/data.1.0";
  /* An emptied index log: 600 bytes of data with no record. */
  snprintf(path, sizeof path, "%s/lost-empty", dir);
  three(path);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1);
  CHECKF(check(path, NULL), "%s", problems);
  snprintf(p, sizeof p, "%s/%s", path, idx);
  CHECK(truncate(p, 0) == 0);
  CHECKF(check(path, "hostdir.001/data.1.0: bytes [0, 600) (600 bytes) have no index record"),
         "%s", problems);
  CHECK(strstr(problems, "restore hostdir.001/index.1.0") != NULL);
  /* Cut at 2 records: the last 300 bytes have none. */
  snprintf(path, sizeof path, "%s/lost-cut", dir);
  three(path);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1);
  snprintf(p, sizeof p, "%s/%s", path, idx);
  CHECK(truncate(p, 128) == 0);
  CHECKF(check(path, "bytes [300, 600) (300 bytes) have no index record"), "%s", problems);
  /* recover accepts the loss (a crash leaves the same: data whose record was
   * never written): the data log is cut, check is clean. */
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1 && fsize(path, dat) == 300);
  CHECKF(check(path, NULL), "after recover: %s", problems);
  /* A deleted index log: never a crash leftover (index logs are made before
   * any data); recover leaves the data for a human. */
  snprintf(path, sizeof path, "%s/lost-gone", dir);
  three(path);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1);
  snprintf(p, sizeof p, "%s/%s", path, idx);
  CHECK(unlink(p) == 0);
  CHECKF(check(path, "hostdir.001/data.1.0 holds 600 bytes but its index log "
                     "hostdir.001/index.1.0 is missing"), "%s", problems);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 0 && fsize(path, dat) == 600);
  CHECK(check(path, "is missing"));

  /* index.compact: a record pointing past its data log ('b' moved to 10100),
   * then one naming writer 7 (no such writer). */
  snprintf(path, sizeof path, "%s/lost-compact", dir);
  three(path);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1);
  int64_t n = 0;
  CHECK(ostio__log_compact(path, &n) == 0 && n == 3);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 0 && fsize(path, "index.compact") == 256);
  CHECKF(check(path, NULL), "%s", problems);
  forge_compact(path, 2, 10000, -1);
  CHECKF(check(path, "index.compact: record 2 points past the end of its data log"), "%s",
         problems);
  CHECK(strstr(problems, "recover") != NULL);
  int rc = try_read(path, 0, 5300, buf);
  CHECKF(rc == OSTIO_EFORMAT && has("[1000, 1200)") && has("lost"), "rc %d: %s", rc,
         ostio_last_error());
  CHECK(try_read(path, 0, 1000, buf) == 0 && buf[99] == 'a' && buf[100] == 0);
  forge_compact(path, 2, -10000, -1);
  CHECKF(check(path, NULL), "%s", problems);
  forge_compact(path, 3, 0, 7);
  CHECKF(check(path, "writer 7"), "%s", problems);
  rc = try_read(path, 4000, 2000, buf);
  CHECKF(rc == OSTIO_EFORMAT && has("[5000, 5300)") && has("lost"), "rc %d: %s", rc,
         ostio_last_error());
  /* recover removes the damaged compact index: the index logs it copied
   * are intact, so nothing is lost. */
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1 && fsize(path, "index.compact") == -1);
  CHECKF(check(path, NULL), "after recover: %s", problems);
  load(path, &m, &st, buf, sizeof buf);
  CHECK(m.n == 3 && buf[1100] == 'b' && buf[5299] == 'c');
  ostio__logmap_free(&m);

  /* Hard links to a file outside planted as a data log, then an index log. */
  snprintf(path, sizeof path, "%s/lost-link", dir);
  three(path);
  CHECK(ostio__log_recover(path, NULL, NULL) >= 1);
  char victim[700], cmd[2600];
  snprintf(victim, sizeof victim, "%s/link-victim", dir);
  snprintf(cmd, sizeof cmd, "cp %s/%s %s", path, dat, victim);
  CHECK(system(cmd) == 0);
  for (int k = 0; k < 2; k++) {
    const char *which = k ? idx : dat;
    char saved[1300];
    snprintf(p, sizeof p, "%s/%s", path, which);
    snprintf(saved, sizeof saved, "%s.saved", victim);
    if (k) {
      snprintf(cmd, sizeof cmd, "cp %s %s", p, victim);
      CHECK(system(cmd) == 0);
    }
    CHECK(rename(p, saved) == 0 && link(victim, p) == 0);
    rc = try_read(path, 0, 5300, buf);
    CHECKF(rc == OSTIO_EFORMAT && has(which) && has("hard link"), "%s: rc %d: %s", which, rc,
           ostio_last_error());
    CHECKF(check(path, "hard link"), "%s: %s", which, problems);
    CHECK(strstr(problems, which) != NULL);
    CHECK(unlink(p) == 0 && rename(saved, p) == 0 && check(path, NULL));
  }
  unlink(victim);
}

/* ---- crash ---------------------------------------------------------------------- */

#define CF 65536
#define CSTEPS 4000

static uint8_t cval(int round, int step, int64_t off)
{
  return (uint8_t)((uint64_t)(off * 131 + step * 31 + round * 57) % 251 + 1);
}

static void cstep(uint64_t seed, int step, int64_t *off, int64_t *len)
{
  tu_rng g;
  tu_rng_seed(&g, seed * 1000003 + (uint64_t)step);
  *off = tu_rng_range(&g, 0, CF - 1);
  *len = tu_rng_range(&g, 1, 3000);
  if (*off + *len > CF) *len = CF - *off;
}

static void child(const char *path, const char *side, uint64_t seed, int round)
{
  ostio__logdir *d = NULL;
  ostio__logw w;
  uint8_t buf[3000];
  if (ostio__log_open(path, NULL, 0, &d) < 0 || ostio__log_scan(d) < 0) _exit(3);
  uint32_t session = d->max_session + 1, epoch = 1;
  ostio__logw_init(&w, d, session, 0, ostio__log_hostdir_of("crash", d->m.hostdirs));
  if (ostio__sizerec_write(d->dirfd, path, &(ostio__sizerec){.clean = 0, .size = 0}) < 0) _exit(4);
  int sfd = open(side, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  for (int s = 0; s < CSTEPS; s++) {
    int64_t off, len;
    cstep(seed, s, &off, &len);
    for (int64_t k = 0; k < len; k++) buf[k] = cval(round, s, off + k);
    if (ostio__logw_write(&w, (uint64_t)session << 32 | epoch, off, buf, len) < 0) _exit(5);
    if (s % 7 == 6) {
      if (ostio__logw_sync(&w) < 0) _exit(6);
      epoch++;
      int32_t done = s;
      if (pwrite(sfd, &done, sizeof done, 0) != sizeof done || fsync(sfd) < 0) _exit(7);
    }
  }
  _exit(0);
}

static void test_crash(void)
{
  int rounds = 3;
  const char *env = getenv("OSTIO_TEST_CRASH_ROUNDS");
  if (env && atoi(env) > 0) rounds = atoi(env);
  uint64_t seed0 = tu_seed(6060);
  static uint8_t before[CF], got[CF];
  for (int sd = 0; sd < rounds; sd++) {
    char path[600], side[600];
    snprintf(path, sizeof path, "%s/crash%d", dir, sd);
    snprintf(side, sizeof side, "%s/side%d", dir, sd);
    CHECK(make(path, 3) == 0);
    memset(before, 0, sizeof before);
    int64_t before_size = 0;
    for (int round = 0; round < 3; round++) {
      uint64_t seed = seed0 * 31 + (uint64_t)(sd * 3 + round);
      unlink(side);
      pid_t pid = fork();
      int lib = helper && sd % 2 == 1;
      if (pid == 0 && lib) {
        char s1[32], s2[32];
        snprintf(s1, sizeof s1, "%llu", (unsigned long long)seed);
        snprintf(s2, sizeof s2, "%d", round);
        execl(helper, helper, path, side, s1, s2, (char *)NULL);
        _exit(9);
      }
      if (pid == 0) child(path, side, seed, round);
      tu_rng g;
      tu_rng_seed(&g, seed);
      /* The library writer starts MPI first: a longer window. */
      long ms = lib ? tu_rng_range(&g, 20, 600) : tu_rng_range(&g, 1, 150);
      struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
      nanosleep(&ts, NULL);
      kill(pid, SIGKILL);
      int status = 0;
      waitpid(pid, &status, 0);
      CHECKF(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0),
             "child status %d", status);
      int32_t synced = -1;
      int sfd = open(side, O_RDONLY);
      if (sfd >= 0 && pread(sfd, &synced, sizeof synced, 0) != sizeof synced) synced = -1;
      if (sfd >= 0) close(sfd);
      /* Readers need no repair: a torn tail is ignored; recover then
       * changes nothing a reader sees. */
      static uint8_t unrepaired[CF];
      ostio__logmap m;
      ostio__logload st;
      load(path, &m, &st, (char *)unrepaired, CF);
      int64_t unrepaired_size = m.size;
      ostio__logmap_free(&m);
      CHECKF(ostio__log_recover(path, NULL, NULL) >= 0, "%s", ostio_last_error());
      load(path, &m, &st, (char *)got, CF);
      CHECKF(!memcmp(got, unrepaired, CF) && m.size == unrepaired_size,
             "seed %d round %d: recover changed what readers see", sd, round);
      /* The model up to the last synced step, and what later steps may add. */
      static uint8_t want[CF], later[CF];
      memcpy(want, before, CF);
      memset(later, 0, CF);
      int64_t wsize = before_size;
      for (int s = 0; s < CSTEPS; s++) {
        int64_t off, len;
        cstep(seed, s, &off, &len);
        for (int64_t k = 0; k < len; k++) {
          if (s <= synced) want[off + k] = cval(round, s, off + k);
          else later[off + k] = 1;
        }
        if (s <= synced && off + len > wsize) wsize = off + len;
      }
      int64_t bad = -1;
      for (int64_t b = 0; b < CF && bad < 0; b++) {
        if (got[b] == want[b]) continue;
        int ok = 0;
        for (int s = synced + 1; later[b] && s < CSTEPS && !ok; s++) {
          int64_t off, len;
          cstep(seed, s, &off, &len);
          ok = b >= off && b < off + len && got[b] == cval(round, s, b);
        }
        if (!ok) bad = b;
      }
      CHECKF(bad < 0, "seed %d round %d (synced step %d): byte %lld is %d, synced value %d",
             sd, round, (int)synced, (long long)bad, bad >= 0 ? got[bad] : 0,
             bad >= 0 ? want[bad] : 0);
      CHECKF(m.size >= wsize, "size %lld < synced %lld", (long long)m.size, (long long)wsize);
      CHECKF(check(path, NULL), "after recover: %s", problems);
      before_size = m.size;
      ostio__logmap_free(&m);
      memcpy(before, got, CF);
      if (sd < 2) printf("crash seed %d round %d (%s): synced through step %d\n", sd, round,
                         lib ? "library" : "module", (int)synced);
    }
  }
}

/* Issue 13 item 11: a 4 GiB sparse index log (valid records, then zeros)
 * loads its valid prefix in bounded memory and time, without reading the
 * zeros: a child under a 512 MiB address-space limit must load it. */
static void test_huge_index(void)
{
  char path[600];
  snprintf(path, sizeof path, "%s/huge", dir);
  three(path);
  char ip[700];
  snprintf(ip, sizeof ip, "%s/hostdir.001/index.1.0", path);
  CHECK(truncate(ip, 4LL << 30) == 0);
  pid_t pid = fork();
  if (pid == 0) {
#if !defined(__SANITIZE_ADDRESS__)
    struct rlimit lim = {512L << 20, 512L << 20};
    if (setrlimit(RLIMIT_AS, &lim) < 0) _exit(9);
#endif
    alarm(20);
    ostio__logdir *d = NULL;
    ostio__logmap m;
    ostio__logload st = {0};
    ostio__logmap_init(&m);
    int rc = ostio__log_open(path, NULL, 0, &d);
    if (rc == 0) rc = ostio__log_scan(d);
    if (rc == 0) rc = ostio__log_load_all(d, &m, &st);
    if (rc < 0) {
      fprintf(stderr, "huge index: %s\n", ostio_last_error());
      _exit(2);
    }
    _exit(m.n == 3 && st.records == 3 && st.bad_records == 1 ? 0 : 3);
  }
  int status = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK(waitpid(pid, &status, 0) == pid);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "loading a 4 GiB sparse index: status 0x%x (2: failed, 3: wrong records, "
         "signal 14: took over 20 s)", status);
  CHECK(check(path, "index.1.0"));
}

/* Issue 27: a pending record that cannot be appended (here the index log's
 * fd refuses writes) stays pending: the write that needed the append and a
 * flush fail, and once the index log takes writes again a sync appends it;
 * nothing acknowledged is lost. */
static void test_flush_fail(void)
{
  char path[600], buf[300], got[1200];
  ostio__logdir *d = NULL;
  ostio__logw w;
  snprintf(path, sizeof path, "%s/flushfail", dir);
  CHECK(make(path, 1) == 0);
  CHECK(ostio__log_open(path, NULL, 0, &d) == 0 && ostio__log_scan(d) == 0);
  if (!d) return;
  ostio__logw_init(&w, d, 1, 0, 0);
  memset(buf, 'a', 100);
  CHECK(ostio__logw_write(&w, 1ull << 32, 0, buf, 100) == 0);
  memset(buf, 'b', 200);
  CHECK(ostio__logw_write(&w, 1ull << 32, 1000, buf, 200) == 0); /* 'a' appended, 'b' pending */
  int keep = dup(w.ifd), ro = open("/dev/null", O_RDONLY);
  CHECK(keep >= 0 && ro >= 0 && dup2(ro, w.ifd) == w.ifd);
  memset(buf, 'c', 300);
  CHECK(ostio__logw_write(&w, 1ull << 32, 5000, buf, 300) < 0); /* cannot append 'b' */
  CHECK(ostio__logw_flush(&w) < 0 && w.comp.pending);
  ostio__clear_error();
  CHECK(dup2(keep, w.ifd) == w.ifd);
  CHECK(ostio__logw_sync(&w) == 0 && w.nrec == 2 && !w.comp.pending);
  close(keep);
  close(ro);
  ostio__logw_close(&w);
  ostio__log_close(&d);
  ostio__logmap m;
  ostio__logload st;
  memset(got, 0, sizeof got);
  load(path, &m, &st, got, 1200);
  CHECKF(m.size == 1200, "size %lld", (long long)m.size);
  int ok = 1;
  for (int i = 0; i < 1200; i++) ok &= got[i] == (i < 100 ? 'a' : i < 1000 ? 0 : 'b');
  CHECKF(ok, "the pending record 'b' was lost (%d at 1000)", got[1000]);
  ostio__logmap_free(&m);
}

int main(int argc, char **argv)
{
  helper = argc > 1 ? argv[1] : getenv("OSTIO_TEST_CRASH_HELPER");
  if (helper && !*helper) helper = NULL;
  if (tu_tmpdir(dir, sizeof dir, "logdisk") < 0) return 1;
  test_damage();
  test_names();
  test_compact();
  test_lost();
  test_flush_fail();
  test_huge_index();
  test_crash();
  tu_rmtree(dir);
  return TEST_DONE();
}
