/* Issue 27: threads that write and fsync a container through
 * libostio-preload.so while other threads start programs and rename the
 * container. Run under the preload (OSTIO_PRELOAD_PATHS holding CTR's
 * directory). Every pwrite and fsync must succeed; every chunk reads back
 * exactly through the writing fd, and (mode "verify", a fresh process) from
 * the closed container.
 *
 * Usage: pl_spawn CTR CHUNKS CHUNK WRITERS MODES
 *   Writer w (0..WRITERS-1) writes chunk k (0..CHUNKS-1) at
 *   (k * WRITERS + w) * CHUNK, every byte 1 + (w * 131 + k * 29) % 255, and
 *   fsyncs after each. MODES, comma-separated, each a helper thread that
 *   runs until the writers are done:
 *     spawn     posix_spawn("/bin/true") and waitpid, in a loop
 *     pool      four threads doing the same with posix_spawnp("true")
 *     vfork     vfork(); the child closes the container fd, dup2s onto it
 *               and onto a spare fd, then execve("/bin/true") (what
 *               CPython's subprocess does between vfork and exec)
 *     rename    rename(CTR, CTR.mv) and back, through the preload
 *     rawrename the same by raw system calls (as another process would:
 *               the preload does not see it)
 *     none      no helper
 *   Before the close, the renamers put CTR back at its name.
 * Usage: pl_spawn --verify CTR CHUNKS CHUNK WRITERS
 *   Opens CTR read-only: the size and every byte as written above.
 * Exit 0 when everything holds, 1 with one line per failure on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *ctr;
static char moved[4096];
static long nchunks, chunk;
static int nwriters, fd = -1;
static volatile int done;
static int failures;
static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;
static long spawned, renamed;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
  va_list ap;
  pthread_mutex_lock(&fail_mu);
  if (failures++ < 20) {
    fprintf(stderr, "pl_spawn: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
  }
  pthread_mutex_unlock(&fail_mu);
}

static unsigned char val(long w, long k) { return (unsigned char)(1 + (w * 131 + k * 29) % 255); }

static void *writer(void *arg)
{
  long w = (long)arg;
  unsigned char *b = malloc((size_t)chunk);
  if (!b) {
    fail("writer %ld: out of memory", w);
    return NULL;
  }
  for (long k = 0; k < nchunks; k++) {
    memset(b, val(w, k), (size_t)chunk);
    off_t off = (off_t)(k * nwriters + w) * chunk;
    ssize_t n = pwrite(fd, b, (size_t)chunk, off);
    if (n != chunk) fail("writer %ld chunk %ld: pwrite returned %zd: %s", w, k, n, strerror(errno));
    if (fsync(fd) < 0) fail("writer %ld chunk %ld: fsync: %s", w, k, strerror(errno));
  }
  free(b);
  return NULL;
}

static void reap(pid_t pid, const char *what)
{
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail("%s: child status 0x%x", what, st);
  __atomic_fetch_add(&spawned, 1, __ATOMIC_RELAXED);
}

static void *spawner(void *arg)
{
  int usep = arg != NULL;
  char *av[] = {"true", NULL};
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    pid_t pid;
    int rc = usep ? posix_spawnp(&pid, "true", NULL, NULL, av, environ)
                  : posix_spawn(&pid, "/bin/true", NULL, NULL, av, environ);
    if (rc) {
      fail("posix_spawn: %s", strerror(rc));
      break;
    }
    reap(pid, usep ? "posix_spawnp" : "posix_spawn");
  }
  return NULL;
}

static void *vforker(void *arg)
{
  char *av[] = {"true", NULL};
  (void)arg;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    int spare = dup(0);
    pid_t pid = vfork();
    if (pid == 0) { /* the parent's memory: only the wrappers run here */
      dup2(fd, spare);
      fcntl(spare, F_SETFD, 0);
      close(fd);
      close(spare);
      execve("/bin/true", av, environ);
      _exit(127);
    }
    if (spare >= 0) close(spare);
    if (pid < 0) {
      fail("vfork: %s", strerror(errno));
      break;
    }
    reap(pid, "vfork");
  }
  return NULL;
}

static void *renamer(void *arg)
{
  static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER; /* the renamers take turns */
  int raw = arg != NULL;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&turn);
    for (int back = 0; back < 2; back++) {
      const char *from = back ? moved : ctr, *to = back ? ctr : moved;
      long rc = raw ? syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 0)
                    : rename(from, to);
      if (rc < 0) fail("rename %s -> %s: %s", from, to, strerror(errno));
      else __atomic_fetch_add(&renamed, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&turn);
  }
  return NULL;
}

/* Every chunk through fd (pread): the size and the bytes. */
static void check_all(int rfd, const char *how)
{
  unsigned char *b = malloc((size_t)chunk);
  struct stat st;
  long bad = 0, zeros = 0;
  if (!b) {
    fail("out of memory");
    return;
  }
  if (fstat(rfd, &st) < 0) fail("%s: fstat: %s", how, strerror(errno));
  else if (st.st_size != (off_t)(nchunks * nwriters * chunk))
    fail("%s: size %lld, expected %lld", how, (long long)st.st_size,
         (long long)(nchunks * nwriters * chunk));
  for (long k = 0; k < nchunks; k++)
    for (long w = 0; w < nwriters; w++) {
      off_t off = (off_t)(k * nwriters + w) * chunk;
      ssize_t n = pread(rfd, b, (size_t)chunk, off);
      int e = n < 0 ? errno : 0;
      long diff = 0;
      for (long i = 0; n == chunk && i < chunk; i++) diff += b[i] != val(w, k);
      if (n == chunk && diff == 0) continue;
      if (n == chunk && b[0] == 0 && b[chunk - 1] == 0) zeros++;
      if (bad++ < 5)
        fail("%s: writer %ld chunk %ld at %lld: pread %zd, %ld bytes differ (first 0x%02x, "
             "expected 0x%02x)%s%s", how, w, k, (long long)off, n, diff, n > 0 ? b[0] : 0,
             val(w, k), e ? ": " : "", e ? strerror(e) : "");
    }
  if (bad) fail("%s: %ld of %ld chunks wrong (%ld read back as zeros)", how, bad,
                nchunks * nwriters, zeros);
  free(b);
}

int main(int argc, char **argv)
{
  int verify = argc > 1 && !strcmp(argv[1], "--verify");
  if (argc != 6) {
    fprintf(stderr, "usage: pl_spawn CTR CHUNKS CHUNK WRITERS MODES\n"
                    "       pl_spawn --verify CTR CHUNKS CHUNK WRITERS\n");
    return 2;
  }
  ctr = argv[1 + verify];
  nchunks = atol(argv[2 + verify]);
  chunk = atol(argv[3 + verify]);
  nwriters = atoi(argv[4 + verify]);
  if (nchunks <= 0 || chunk <= 0 || nwriters <= 0 || nwriters > 64) {
    fprintf(stderr, "pl_spawn: CHUNKS, CHUNK > 0 and WRITERS 1..64\n");
    return 2;
  }
  if (verify) {
    int rfd = open(ctr, O_RDONLY);
    if (rfd < 0) fail("open %s: %s", ctr, strerror(errno));
    else check_all(rfd, "verify");
    if (rfd >= 0) close(rfd);
    return failures ? 1 : 0;
  }
  snprintf(moved, sizeof moved, "%s.mv", ctr);
  fd = open(ctr, O_RDWR | O_CREAT, 0644);
  if (fd < 0) {
    fprintf(stderr, "pl_spawn: open %s: %s\n", ctr, strerror(errno));
    return 1;
  }
  pthread_t wt[64], ht[16];
  int nh = 0;
  char *modes = strdup(argv[5]);
  for (char *save = NULL, *m = strtok_r(modes, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
    void *(*f)(void *) = NULL;
    void *a = NULL;
    int copies = 1;
    if (!strcmp(m, "spawn")) f = spawner;
    else if (!strcmp(m, "pool")) f = spawner, a = (void *)1, copies = 4;
    else if (!strcmp(m, "vfork")) f = vforker;
    else if (!strcmp(m, "rename")) f = renamer;
    else if (!strcmp(m, "rawrename")) f = renamer, a = (void *)1;
    else if (strcmp(m, "none")) {
      fprintf(stderr, "pl_spawn: unknown mode %s (spawn pool vfork rename rawrename none)\n", m);
      return 2;
    }
    for (int c = 0; f && c < copies && nh < 16; c++) pthread_create(&ht[nh++], NULL, f, a);
  }
  free(modes);
  for (long w = 0; w < nwriters; w++) pthread_create(&wt[w], NULL, writer, (void *)w);
  for (int w = 0; w < nwriters; w++) pthread_join(wt[w], NULL);
  check_all(fd, "own fd, before the helpers stop");
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  for (int h = 0; h < nh; h++) pthread_join(ht[h], NULL);
  check_all(fd, "own fd");
  if (close(fd) < 0) fail("close: %s", strerror(errno));
  printf("pl_spawn: %ld chunks x %d writers, %ld programs started, %ld renames, %d failures\n",
         nchunks, nwriters, spawned, renamed, failures);
  return failures ? 1 : 0;
}
