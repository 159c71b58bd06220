/* The size record ostio.size of a container:
 *
 *   ostio-size 1
 *   state clean            clean: written at close / set_size; open: a
 *   size 1234567           writer has the container open (or crashed)
 *   checksum fnv1a64 HEX
 *
 * Replaced atomically (temporary file, fsync, rename), so a reader sees the
 * old record or the new one, never a mix. See docs/container-format.md. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "core/error.h"

#define MAGIC_LINE "ostio-size 1\n"
#define REC_MAX 4096

int ostio__sizerec_format(const ostio__sizerec *r, char **text, size_t *len)
{
  char body[128];
  int n = snprintf(body, sizeof body, MAGIC_LINE "state %s\nsize %" PRId64 "\n",
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
  if (len < sizeof MAGIC_LINE - 1 || memcmp(buf, MAGIC_LINE, sizeof MAGIC_LINE - 1))
    return ostio__fail(OSTIO_EFORMAT, "%s: not a size record: expected it to start with "
                       "\"ostio-size 1\"", what);
  int rc = ostio__ctr_verify_seal(buf, len, what, &body);
  if (rc < 0) return rc;
  memcpy(text, buf, body);
  text[body] = '\0';
  char state[16], canon[128];
  long long size = -1;
  /* Parse loosely, then demand the one canonical spelling. */
  if (sscanf(text, MAGIC_LINE "state %15[a-z]\nsize %lld", state, &size) == 2)
    snprintf(canon, sizeof canon, MAGIC_LINE "state %s\nsize %lld\n", state, size);
  else
    canon[0] = '\0';
  if (strcmp(canon, text) || size < 0 || (strcmp(state, "clean") && strcmp(state, "open")))
    return ostio__fail(OSTIO_EFORMAT, "%s: expected the lines \"state clean\" or \"state "
                       "open\", then \"size N\" with N >= 0", what);
  r->clean = !strcmp(state, "clean");
  r->size = size;
  return 0;
}

int ostio__sizerec_write(int dirfd, const char *path, const ostio__sizerec *r)
{
  char *text = NULL, tmp[64];
  size_t len = 0;
  int rc = ostio__sizerec_format(r, &text, &len);
  if (rc < 0) return rc;
  snprintf(tmp, sizeof tmp, ".%s.tmp.%ld", OSTIO__CTR_SIZEREC, (long)getpid());
  int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    rc = ostio__fail(ostio__from_errno(errno), "%s: cannot write the size record: %s", path,
                     strerror(errno));
    goto done;
  }
  ssize_t n = write(fd, text, len);
  int e = n < 0 ? errno : EIO;
  if (n != (ssize_t)len || fsync(fd) < 0) {
    if (n == (ssize_t)len) e = errno;
    rc = ostio__fail(ostio__from_errno(e), "%s: cannot write the size record: %s", path,
                     strerror(e));
  }
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
