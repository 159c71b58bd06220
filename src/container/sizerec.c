/* The size record ostio.size of a container:
 *
 *   ostio-size 1           (2 when the "indexes" line is present)
 *   state clean            clean: written at close / set_size; open: a
 *   size 1234567           writer has the container open (or crashed)
 *   indexes 0123456789abcdef   version 2 only: the fingerprint of the index
 *                              logs the size was derived from (log kind)
 *   checksum fnv1a64 HEX
 *
 * Replaced atomically (temporary file, fsync, rename), so a reader sees the
 * old record or the new one, never a mix. The temporary file's name is unique
 * across nodes (host hash, pid, thread, counter, random bits) and created with
 * O_EXCL, so two writers never share one. See docs/container-format.md. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "core/error.h"
#include "core/fdio.h"

#define MAGIC_LINE "ostio-size 1\n"
#define MAGIC_LINE2 "ostio-size 2\n"
#define REC_MAX 4096

int ostio__sizerec_format(const ostio__sizerec *r, char **text, size_t *len)
{
  char body[160];
  int n;
  if (r->has_fp)
    n = snprintf(body, sizeof body, MAGIC_LINE2 "state %s\nsize %" PRId64 "\nindexes %016" PRIx64
                 "\n", r->clean ? "clean" : "open", r->size, r->fp);
  else
    n = snprintf(body, sizeof body, MAGIC_LINE "state %s\nsize %" PRId64 "\n",
                 r->clean ? "clean" : "open", r->size);
  return ostio__ctr_seal(body, (size_t)n, text, len);
}

int ostio__sizerec_parse(const char *buf, size_t len, const char *what, ostio__sizerec *r)
{
  char text[REC_MAX];
  size_t body = 0;
  memset(r, 0, sizeof *r);
  if (len >= REC_MAX)
    return ostio__fail(OSTIO_EFORMAT, "%s: %zu bytes; a size record is a few lines", what, len);
  int v2 = len >= sizeof MAGIC_LINE2 - 1 && !memcmp(buf, MAGIC_LINE2, sizeof MAGIC_LINE2 - 1);
  if (!v2 && (len < sizeof MAGIC_LINE - 1 || memcmp(buf, MAGIC_LINE, sizeof MAGIC_LINE - 1)))
    return ostio__fail(OSTIO_EFORMAT, "%s: not a size record: expected it to start with "
                       "\"ostio-size 1\" or \"ostio-size 2\"", what);
  int rc = ostio__ctr_verify_seal(buf, len, what, &body);
  if (rc < 0) return rc;
  memcpy(text, buf, body);
  text[body] = '\0';
  char state[16], canon[192];
  long long size = -1;
  unsigned long long fp = 0;
  /* Parse loosely, then demand the one canonical spelling. */
  canon[0] = '\0';
  if (!v2 && sscanf(text, MAGIC_LINE "state %15[a-z]\nsize %lld", state, &size) == 2)
    snprintf(canon, sizeof canon, MAGIC_LINE "state %s\nsize %lld\n", state, size);
  else if (v2 && sscanf(text, MAGIC_LINE2 "state %15[a-z]\nsize %lld\nindexes %16llx", state,
                        &size, &fp) == 3)
    snprintf(canon, sizeof canon, MAGIC_LINE2 "state %s\nsize %lld\nindexes %016llx\n", state,
             size, fp);
  if (strcmp(canon, text) || size < 0 || (strcmp(state, "clean") && strcmp(state, "open")))
    return ostio__fail(OSTIO_EFORMAT, "%s: expected the lines \"state clean\" or \"state "
                       "open\", then \"size N\" with N >= 0 (version 2: then \"indexes\" "
                       "and 16 hex digits)", what);
  r->clean = !strcmp(state, "clean");
  r->size = size;
  r->has_fp = v2;
  r->fp = fp;
  return 0;
}

/* ".ostio.size.tmp.HOST.PID.TID.N.RANDOM": a pid repeats across nodes, a
 * host name hash can collide; the counter and random bits make a clash
 * vanishingly rare, and O_EXCL turns one into a retry, never a shared file. */
static void tmp_name(char *buf, size_t cap)
{
  static unsigned long counter;
  char host[256] = "";
  uint64_t rnd = 0;
  gethostname(host, sizeof host - 1);
  if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
    rnd ^= (uint64_t)(uintptr_t)&rnd ^ (uint64_t)getpid() << 32;
  unsigned long n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  snprintf(buf, cap, ".%s.tmp.%08" PRIx32 ".%ld.%ld.%lu.%016" PRIx64, OSTIO__CTR_SIZEREC,
           (uint32_t)ostio__fnv1a64(host, strlen(host)), (long)getpid(), (long)gettid(), n, rnd);
}

static int write_rec(int dirfd, const char *path, const ostio__sizerec *r, int durable);

int ostio__sizerec_write(int dirfd, const char *path, const ostio__sizerec *r)
{
  return write_rec(dirfd, path, r, 1);
}

int ostio__sizerec_write_light(int dirfd, const char *path, const ostio__sizerec *r)
{
  return write_rec(dirfd, path, r, 0);
}

static int write_rec(int dirfd, const char *path, const ostio__sizerec *r, int durable)
{
  char *text = NULL, tmp[128];
  size_t len = 0;
  int rc = ostio__sizerec_format(r, &text, &len), fd = -1;
  if (rc < 0) return rc;
  for (int tries = 0; fd < 0 && tries < 16; tries++) {
    tmp_name(tmp, sizeof tmp);
    fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    rc = ostio__fail(ostio__from_errno(errno), "%s: cannot write the size record: %s", path,
                     strerror(errno));
    goto done;
  }
  int e = ostio__write_full(fd, text, len);
  if (e == 0 && durable && fsync(fd) < 0) e = errno;
  if (e)
    rc = ostio__fail(ostio__from_errno(e), "%s: cannot write the size record: %s", path,
                     strerror(e));
  close(fd);
  if (rc == 0 && renameat(dirfd, tmp, dirfd, OSTIO__CTR_SIZEREC) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "%s: cannot replace the size record: %s", path,
                     strerror(errno));
  if (rc < 0) unlinkat(dirfd, tmp, 0);
done:
  free(text);
  return rc;
}

int ostio__sizerec_read(int dirfd, const char *path, ostio__sizerec *r)
{
  char buf[REC_MAX], what[600];
  memset(r, 0, sizeof *r);
  snprintf(what, sizeof what, "%s/%s", path, OSTIO__CTR_SIZEREC);
  int fd = openat(dirfd, OSTIO__CTR_SIZEREC, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return OSTIO_ENOENT;
    return ostio__fail(ostio__from_errno(errno), "%s: %s", what, strerror(errno));
  }
  struct stat st;
  ssize_t n = -1;
  int rc = 0;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
    rc = ostio__fail(OSTIO_EFORMAT, "%s: not a regular file", what);
  else if ((n = pread(fd, buf, sizeof buf, 0)) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "%s: %s", what, strerror(errno));
  close(fd);
  if (rc == 0) rc = ostio__sizerec_parse(buf, (size_t)n, what, r);
  return rc;
}
