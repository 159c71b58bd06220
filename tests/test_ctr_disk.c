/* Striped containers on disk through the module API (no MPI): creation and
 * what it leaves, the io layer's routing to object files against a model,
 * damage (missing / short objects, symlinks and hostile names never reach
 * outside the directory), the check, removal, and concurrent creation by 8
 * forked processes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container/container.h"
#include "io/io.h"
#include "testutil.h"

static char dir[512];

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

static void pathof(char *buf, size_t cap, const char *a, const char *b)
{
  snprintf(buf, cap, "%s/%s%s%s", dir, a, b ? "/" : "", b ? b : "");
}

static ostio__ctr_params params(int32_t k, int64_t s)
{
  ostio__ctr_params p = {.nobjects = k, .stripe_size = s, .first_ost = -1};
  snprintf(p.requested, sizeof p.requested, "test");
  return p;
}

/* Entries of dir whose name contains needle. */
static int count_entries(const char *d, const char *needle)
{
  int n = 0;
  DIR *dp = opendir(d);
  struct dirent *e;
  while (dp && (e = readdir(dp)))
    if (strstr(e->d_name, needle)) n++;
  if (dp) closedir(dp);
  return n;
}

static void write_file(const char *p, const char *text, size_t len)
{
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && write(fd, text, len) == (ssize_t)len);
  close(fd);
}

static int64_t file_size(const char *p)
{
  struct stat st;
  return lstat(p, &st) == 0 ? (int64_t)st.st_size : -1;
}

static void test_create(void)
{
  char p[700], q[800];
  int created = -1;
  pathof(p, sizeof p, "c3", NULL);
  ostio__ctr_params pr = params(3, 65536);
  CHECK(ostio__ctr_create(p, &pr, 0, &created) == 0 && created == 1);
  CHECK(ostio__ctr_is_container(p) == 1);
  CHECK(count_entries(p, "obj.") == 3 && count_entries(p, "ostio.") == 2);
  CHECK(count_entries(dir, ".tmp.") == 0);
  pathof(q, sizeof q, "c3", "obj.0002");
  CHECK(file_size(q) == 0);
  /* Again: exists (not created); with excl: OSTIO_EEXIST. */
  CHECK(ostio__ctr_create(p, &pr, 0, &created) == 0 && created == 0);
  CHECK(ostio__ctr_create(p, &pr, 1, &created) == OSTIO_EEXIST && has("MPI_MODE_EXCL"));
  /* A plain file or a plain directory in the way. */
  pathof(q, sizeof q, "plain", NULL);
  write_file(q, "x", 1);
  CHECK(ostio__ctr_create(q, &pr, 0, &created) == OSTIO_EEXIST && has("not a container"));
  CHECK(ostio__ctr_is_container(q) == 0);
  /* Bad parameters. */
  ostio__ctr_params bad = params(0, 65536);
  pathof(q, sizeof q, "bad", NULL);
  CHECK(ostio__ctr_create(q, &bad, 0, &created) == OSTIO_EINVAL && has("1 to 2000"));
  bad = params(2, 4096);
  CHECK(ostio__ctr_create(q, &bad, 0, &created) == OSTIO_EINVAL && has("multiple of 64 KiB"));
  CHECK(file_size(q) == -1 && count_entries(dir, ".tmp.") == 0);

  ostio__ctr *c = NULL;
  CHECK(ostio__ctr_open(p, 1, &c) == 0 && c->m.nobjects == 3 && c->m.stripe_size == 65536);
  ostio_layout *l = NULL;
  CHECK(ostio__ctr_layout(c, &l) == 0 && !strcmp(l->source, "container") &&
        l->comp[0].stripe_count == 3 && l->comp[0].osts[2] == 2);
  ostio__layout_destroy(l);
  ostio__sizerec rec;
  CHECK(ostio__sizerec_read(c->dirfd, p, &rec) == 0 && rec.clean == 0); /* open for writing */
  CHECK(ostio__ctr_close(&c, 1) == 0 && c == NULL);
  int dfd = open(p, O_RDONLY | O_DIRECTORY);
  CHECK(ostio__sizerec_read(dfd, p, &rec) == 0 && rec.clean == 1 && rec.size == 0);
  close(dfd);
}

/* Writes random extents through the io layer with the object table and
 * checks the object files against the Lustre mapping, and reads back. */
static void test_routing(tu_rng *r)
{
  const int64_t S = 65536, SPAN = 40 * 65536;
  for (int32_t k = 1; k <= 7; k++) {
    char p[700];
    int created;
    snprintf(p, sizeof p, "%s/route%d", dir, (int)k);
    ostio__ctr_params pr = params(k, S);
    CHECK(ostio__ctr_create(p, &pr, 0, &created) == 0);
    ostio__ctr *c = NULL;
    CHECK(ostio__ctr_open(p, 1, &c) == 0);
    ostio__io_objects ot = {k, S, c->fd, c->m.names};
    ostio__stats st;
    memset(&st, 0, sizeof st);
    ostio__io io;
    CHECK(ostio__io_init(&io, -1, 0, NULL, &st) == 0 && ostio__io_set_objects(&io, &ot) == 0);
    uint8_t *model = calloc((size_t)SPAN, 1), *buf = malloc((size_t)SPAN);
    int64_t end = 0;
    ostio__io_req q[16];
    for (int round = 0; round < 6; round++) {
      /* up to 16 disjoint extents: cut [0, SPAN) at random points, keep some */
      int64_t pos = tu_rng_range(r, 0, S);
      size_t n = 0;
      while (n < 16 && pos < SPAN) {
        int64_t len = tu_rng_range(r, 1, 3 * S);
        if (pos + len > SPAN) len = SPAN - pos;
        if (tu_rng_range(r, 0, 2)) {
          q[n] = (ostio__io_req){pos, len, (char *)buf + pos};
          for (int64_t b = pos; b < pos + len; b++) buf[b] = model[b] = (uint8_t)(b * 7 + round + 1);
          if (pos + len > end) end = pos + len;
          n++;
        }
        pos += len + tu_rng_range(r, 0, S / 2);
      }
      if (round % 2) {
        CHECK(ostio__io_write_batch(&io, q, n) == 0);
      } else {
        for (size_t i = 0; i < n; i++)
          CHECK(ostio__io_pwrite(&io, q[i].buf, (size_t)q[i].len, q[i].off) == 0);
      }
    }
    /* Each object holds exactly its stripes at (stripe / k) * S. */
    int64_t size = -1;
    CHECK(ostio__ctr_size(c, &size, NULL) == 0 && size == end);
    int nonempty = 0;
    for (int32_t o = 0; o < k; o++) {
      struct stat sb;
      fstat(c->fd[o], &sb);
      int64_t osz = (int64_t)sb.st_size;
      nonempty += osz > 0;
      uint8_t *ob = calloc((size_t)osz + 1, 1);
      CHECK(pread(c->fd[o], ob, (size_t)osz, 0) == (ssize_t)osz);
      int64_t bad = 0;
      for (int64_t x = 0; x < osz; x++) {
        int64_t logical = (x / S * k + o) * S + x % S;
        if (ob[x] != (logical < SPAN ? model[logical] : 0)) bad++;
      }
      CHECKF(bad == 0, "k=%d object %d: %lld bytes differ from the mapping", (int)k, (int)o,
             (long long)bad);
      free(ob);
    }
    /* Reads: everything, across stripes and past the end (zeros). */
    memset(buf, 0xEE, (size_t)SPAN);
    CHECK(ostio__io_pread(&io, buf, (size_t)SPAN, 0) == 0 && !memcmp(buf, model, (size_t)SPAN));
    ostio__io_req rq[3] = {{SPAN - 5, 5, (char *)buf}, {3, S * 2, (char *)buf + 5},
                           {S * 2 + 10, 100, (char *)buf + 5 + S * 2}};
    CHECK(ostio__io_read_batch(&io, rq, 3) == 0);
    CHECK(!memcmp(buf, model + SPAN - 5, 5) && !memcmp(buf + 5, model + 3, (size_t)S * 2) &&
          !memcmp(buf + 5 + S * 2, model + S * 2 + 10, 100));
    char tail[64];
    memset(tail, 1, sizeof tail);
    CHECK(ostio__io_pread(&io, tail, sizeof tail, SPAN + 12345) == 0);
    for (size_t i = 0; i < sizeof tail; i++) CHECK(tail[i] == 0);
    CHECK_EQ_I64(st.c[OSTIO__STAT_objfiles_written], nonempty);
    CHECK(st.c[OSTIO__STAT_objfiles_read] >= 1 && st.c[OSTIO__STAT_objfiles_read] <= k);
    /* set_size: shrink then grow (sparse tail), the derived size follows. */
    CHECK(ostio__ctr_set_size(c, 3 * S + 17) == 0 && ostio__ctr_size(c, &size, NULL) == 0 &&
          size == 3 * S + 17);
    CHECK(ostio__ctr_set_size(c, 100 * S + 1) == 0 && ostio__ctr_size(c, &size, NULL) == 0 &&
          size == 100 * S + 1);
    CHECK(ostio__io_pread(&io, buf, (size_t)(4 * S), 0) == 0 &&
          !memcmp(buf, model, (size_t)(3 * S + 17)));
    for (int64_t b = 3 * S + 17; b < 4 * S; b++)
      if (buf[b]) { CHECKF(0, "byte %lld after shrink+grow is %d", (long long)b, buf[b]); break; }
    ostio__io_fini(&io);
    CHECK(ostio__ctr_close(&c, 1) == 0);
    CHECK(ostio__ctr_open(p, 0, &c) == 0 && ostio__ctr_close(&c, 0) == 0);
    CHECK(ostio__ctr_remove(p) == 0 && file_size(p) == -1);
    free(model);
    free(buf);
  }
}

static int nproblems;
static char problems[2048];
static void collect(void *arg, const char *msg)
{
  (void)arg;
  nproblems++;
  strncat(problems, msg, sizeof problems - strlen(problems) - 2);
  strcat(problems, "\n");
}
static int check(const char *p)
{
  nproblems = 0;
  problems[0] = '\0';
  return ostio__ctr_check(p, collect, NULL);
}

/* Damage: each case gives a clear error and never touches ../victim. */
static void test_damage(void)
{
  char p[700], q[800], victim[700];
  int created;
  pathof(victim, sizeof victim, "victim", NULL);
  write_file(victim, "precious", 8);
  pathof(p, sizeof p, "dmg", NULL);
  ostio__ctr_params pr = params(4, 65536);
  CHECK(ostio__ctr_create(p, &pr, 0, &created) == 0);
  ostio__ctr *c = NULL;
  CHECK(ostio__ctr_open(p, 1, &c) == 0);
  char data[300000];
  memset(data, 'd', sizeof data);
  for (int32_t o = 0; o < 4; o++) CHECK(pwrite(c->fd[o], data, 70000, 0) == 70000);
  CHECK(ostio__ctr_close(&c, 1) == 0);
  CHECK(check(p) == 0);
  /* The logical size is 3*64Ki + 70000 (object 3's last byte). */
  int dfd = open(p, O_RDONLY | O_DIRECTORY);
  ostio__sizerec rec;
  CHECK(ostio__sizerec_read(dfd, p, &rec) == 0 && rec.clean && rec.size == 4 * 65536 + 65536 * 3 + 4464);
  close(dfd);

  /* An object shorter than the clean size record says. */
  pathof(q, sizeof q, "dmg", "obj.0003");
  CHECK(truncate(q, 1000) == 0);
  CHECK(ostio__ctr_open(p, 0, &c) == OSTIO_EFORMAT && c == NULL &&
        has("object obj.0003 is shorter than the size record says"));
  CHECK(check(p) == 1 && strstr(problems, "obj.0003 is shorter"));
  CHECK(truncate(q, 70000) == 0 && check(p) == 0);
  /* Longer than the record: trusted at open (data is there), reported by check. */
  CHECK(truncate(q, 80000) == 0);
  CHECK(ostio__ctr_open(p, 0, &c) == 0 && ostio__ctr_close(&c, 0) == 0);
  CHECK(check(p) == 1 && strstr(problems, "obj.0003 is longer"));
  CHECK(truncate(q, 70000) == 0);

  /* A missing object; a symbolic link to a file outside. */
  char moved[800];
  pathof(moved, sizeof moved, "moved-away", NULL);
  CHECK(rename(q, moved) == 0);
  CHECK(ostio__ctr_open(p, 1, &c) == OSTIO_EFORMAT && has("object 3 (obj.0003) is missing"));
  CHECK(check(p) == 1 && strstr(problems, "obj.0003) is missing"));
  CHECK(symlink("../victim", q) == 0);
  CHECK(ostio__ctr_open(p, 1, &c) == OSTIO_EFORMAT && has("symbolic link"));
  CHECK(check(p) == 1 && strstr(problems, "not a regular file"));
  CHECK(unlink(q) == 0 && rename(moved, q) == 0 && check(p) == 0);

  /* Forged manifests (correct checksums): hostile names, K = 0, newer version. */
  static const char *const forged[] = {
    "ostio-container 1\nkind striped\nbyte_order little\ncreated t\ncreated_by x\nrequested -\n"
    "stripe_size 65536\nobjects 1\nobject 0 ../victim\n",
    "ostio-container 1\nkind striped\nbyte_order little\ncreated t\ncreated_by x\nrequested -\n"
    "stripe_size 65536\nobjects 0\n",
    "ostio-container 9\nkind striped\nbyte_order little\n",
    "ostio-kontainer 1\n"};
  static const char *const needle[] = {"\"../victim\"", "objects \"0\"", "upgrade ostio",
                                       "not a container manifest"};
  char mpath[800], *orig = NULL;
  size_t olen = 0;
  pathof(mpath, sizeof mpath, "dmg", "ostio.manifest");
  dfd = open(p, O_RDONLY | O_DIRECTORY);
  CHECK(ostio__ctr_read_manifest(p, dfd, &orig, &olen) == 0);
  close(dfd);
  for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
    char *t;
    size_t n;
    ostio__ctr_seal(forged[i], strlen(forged[i]), &t, &n);
    chmod(mpath, 0644);
    write_file(mpath, t, n);
    free(t);
    CHECKF(ostio__ctr_open(p, 1, &c) == OSTIO_EFORMAT && has(needle[i]), "forged %zu: %s", i,
           ostio_last_error());
    CHECK(check(p) >= 1 && strstr(problems, needle[i]));
    CHECK(ostio__ctr_remove(p) == OSTIO_EFORMAT && has("not removing it"));
  }
  /* Bad checksum. */
  char *t = strdup(orig);
  t[olen / 2] ^= 1;
  write_file(mpath, t, olen);
  free(t);
  CHECK(ostio__ctr_open(p, 0, &c) == OSTIO_EFORMAT && has("checksum mismatch"));
  write_file(mpath, orig, olen);
  free(orig);
  CHECK(check(p) == 0);
  /* A stray file is reported, and removal leaves it (and the directory). */
  pathof(q, sizeof q, "dmg", "notes.txt");
  write_file(q, "mine", 4);
  CHECK(check(p) == 1 && strstr(problems, "\"notes.txt\" is not part of the container"));
  CHECK(ostio__ctr_remove(p) == OSTIO_ENOTEMPTY && file_size(q) == 4);
  unlink(q);
  rmdir(p);
  /* The victim outside was never touched, and nothing else appeared. */
  char buf[16] = {0};
  int fd = open(victim, O_RDONLY);
  CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 8 && !memcmp(buf, "precious", 8));
  close(fd);
  CHECK(count_entries(dir, "victim") == 1);
  /* Not a container at all. */
  CHECK(ostio__ctr_open(victim, 0, &c) < 0);
  CHECK(ostio__ctr_open(dir, 0, &c) == OSTIO_EFORMAT && has("cannot open ostio.manifest"));
}

/* Issue 13: lost data is found, never read as zeros. A clean close leaves
 * every object exactly its share of the size (a tail that is a hole becomes
 * a sparse extension), so an object shorter than its share of a clean size
 * is damage: refused at open, named by check with what to do. A hard link
 * planted as an object is refused too. */
static void test_lost(void)
{
  char p[700], q[800], victim[700];
  int created;
  const int64_t S = 65536;
  pathof(p, sizeof p, "lost", NULL);
  ostio__ctr_params pr = params(4, S);
  CHECK(ostio__ctr_create(p, &pr, 0, &created) == 0);
  ostio__ctr *c = NULL;
  CHECK(ostio__ctr_open(p, 1, &c) == 0);
  /* 10 bytes in stripe 0 and 10 in stripe 7 (object 3, row 1): objects 0-2
   * end in holes. */
  CHECK(pwrite(c->fd[0], "0123456789", 10, 0) == 10);
  CHECK(pwrite(c->fd[3], "abcdefghij", 10, S) == 10);
  CHECK(ostio__ctr_close(&c, 1) == 0);
  const int64_t L = 7 * S + 10;
  int64_t want[4] = {2 * S, 2 * S, 2 * S, S + 10};
  for (int32_t o = 0; o < 4; o++) {
    char name[32];
    snprintf(name, sizeof name, "obj.%04d", (int)o);
    pathof(q, sizeof q, "lost", name);
    CHECKF(file_size(q) == want[o], "after a clean close %s holds %lld bytes, its share of "
           "%lld is %lld", name, (long long)file_size(q), (long long)L, (long long)want[o]);
  }
  CHECKF(check(p) == 0, "%s", problems);
  CHECKF(ostio__ctr_open(p, 0, &c) == 0, "%s", ostio_last_error());
  if (c) {
    char b[16] = {1};
    int64_t size = 0;
    CHECK(ostio__ctr_size(c, &size, NULL) == 0 && size == L);
    CHECK(pread(c->fd[0], b, 16, 0) == 16 && !memcmp(b, "0123456789\0\0\0\0\0\0", 16));
    ostio__ctr_close(&c, 0);
  }
  /* Full data, closed clean; then object 1 cut to 1000 bytes (it does not
   * hold the last byte, so the derived size does not change). */
  CHECK(ostio__ctr_open(p, 1, &c) == 0);
  char *data = malloc((size_t)(2 * S));
  memset(data, 'd', (size_t)(2 * S));
  for (int32_t o = 0; c && o < 4; o++) CHECK(pwrite(c->fd[o], data, (size_t)want[o], 0) == want[o]);
  free(data);
  CHECK(ostio__ctr_close(&c, 1) == 0 && check(p) == 0);
  pathof(q, sizeof q, "lost", "obj.0001");
  CHECK(truncate(q, 1000) == 0);
  int rc = ostio__ctr_open(p, 0, &c);
  CHECKF(rc == OSTIO_EFORMAT && c == NULL && has("obj.0001") && has("1000 bytes") &&
         has("lost") && has("131072"), "rc %d: %s", rc, ostio_last_error());
  rc = ostio__ctr_open(p, 1, &c);
  CHECKF(rc == OSTIO_EFORMAT && c == NULL && has("obj.0001"), "rc %d: %s", rc,
         ostio_last_error());
  CHECKF(check(p) == 1 && strstr(problems, "obj.0001 is shorter") &&
         strstr(problems, "130072 bytes") && strstr(problems, "logical offset 66536") &&
         strstr(problems, "truncate -s 131072"), "%s", problems);
  /* Accepting the loss as check says: the bytes are zeros and the container clean. */
  CHECK(truncate(q, 2 * S) == 0 && check(p) == 0);
  CHECK(ostio__ctr_open(p, 0, &c) == 0 && ostio__ctr_close(&c, 0) == 0);
  /* While a writer has it open (or crashed: state open), nothing tells a hole
   * from a cut: the derived size is trusted, as after a crash. */
  CHECK(ostio__ctr_open(p, 1, &c) == 0);
  CHECK(truncate(q, 1000) == 0);
  ostio__ctr *r = NULL;
  CHECK(ostio__ctr_open(p, 0, &r) == 0 && ostio__ctr_close(&r, 0) == 0);
  CHECK(ostio__ctr_close(&c, 1) == 0 && file_size(q) == 2 * S && check(p) == 0);
  /* A hard link to a file outside planted as an object: refused, untouched. */
  pathof(victim, sizeof victim, "lost-victim", NULL);
  write_file(victim, "secret", 6);
  pathof(q, sizeof q, "lost", "obj.0002");
  CHECK(unlink(q) == 0 && link(victim, q) == 0);
  rc = ostio__ctr_open(p, 1, &c);
  CHECKF(rc == OSTIO_EFORMAT && c == NULL && has("obj.0002") && has("hard link"), "rc %d: %s",
         rc, ostio_last_error());
  CHECKF(check(p) >= 1 && strstr(problems, "obj.0002") && strstr(problems, "hard link"), "%s",
         problems);
  char vb[16] = {0};
  int fd = open(victim, O_RDONLY);
  CHECK(fd >= 0 && read(fd, vb, sizeof vb) == 6 && !memcmp(vb, "secret", 6));
  if (fd >= 0) close(fd);
  CHECK(unlink(q) == 0 && unlink(victim) == 0);
  write_file(q, "", 0);
  CHECK(truncate(q, 2 * S) == 0 && check(p) == 0 && ostio__ctr_remove(p) == 0);
}

/* 8 processes create the same container at once: one wins, the others open
 * it; one valid container, no temporary directory left. */
static void test_concurrent(void)
{
  char p[700];
  for (int trial = 0; trial < 5; trial++) {
    snprintf(p, sizeof p, "%s/race%d", dir, trial);
    pid_t kids[8];
    int pipefd[2];
    CHECK(pipe(pipefd) == 0);
    for (int i = 0; i < 8; i++) {
      kids[i] = fork();
      if (kids[i] == 0) {
        close(pipefd[0]);
        ostio__ctr_params pr = params(5, 131072);
        int created = 0;
        ostio__ctr *c = NULL;
        int rc = ostio__ctr_create(p, &pr, 0, &created);
        if (rc == 0) rc = ostio__ctr_open(p, 0, &c);
        if (rc == 0) rc = ostio__ctr_close(&c, 0);
        char msg = (char)(rc == 0 ? (created ? 'W' : 'L') : 'E');
        if (write(pipefd[1], &msg, 1) != 1) _exit(3);
        _exit(rc == 0 ? 0 : 1);
      }
    }
    close(pipefd[1]);
    int winners = 0, losers = 0, errors = 0, status;
    char m;
    while (read(pipefd[0], &m, 1) == 1) winners += m == 'W', losers += m == 'L', errors += m == 'E';
    close(pipefd[0]);
    for (int i = 0; i < 8; i++) waitpid(kids[i], &status, 0);
    CHECKF(winners == 1 && losers == 7 && errors == 0, "trial %d: %d created, %d opened, %d "
           "failed", trial, winners, losers, errors);
    CHECK(count_entries(dir, ".tmp.") == 0 && count_entries(p, "obj.") == 5);
    CHECK(check(p) == 0);
    CHECK(ostio__ctr_remove(p) == 0);
  }
}

int main(void)
{
  tu_rng r;
  tu_rng_seed(&r, tu_seed(5006));
  if (tu_tmpdir(dir, sizeof dir, "ctr") != 0) {
    fprintf(stderr, "cannot make a temporary directory\n");
    return 1;
  }
  test_create();
  test_routing(&r);
  test_damage();
  test_lost();
  test_concurrent();
  tu_rmtree(dir);
  return TEST_DONE();
}
