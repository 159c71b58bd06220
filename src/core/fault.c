/* OSTIO_FAULT=OP:RANK:NTH:WHAT parsing (syntax in core/fault.h and docs/io.md).
 * The injection itself is in io/io.c, where the system calls are counted,
 * and in cache/cache_xport.c (OP shm). */
#include "core/fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define SYNTAX                                                                               \
  "expected OP:RANK:NTH:WHAT with OP write, read or shm, RANK a rank >= 0 or *, NTH the 1-based "  \
  "system call number, WHAT one of EIO, ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EPERM, ENOMEM, " \
  "EINVAL, short, stuck (e.g. write:0:3:EIO)"

static const struct {
  const char *name;
  int err;
} errnos[] = {
  {"EIO", EIO},     {"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT}, {"EFBIG", EFBIG},
  {"EROFS", EROFS}, {"EACCES", EACCES}, {"EPERM", EPERM},   {"ENOMEM", ENOMEM},
  {"EINVAL", EINVAL}, /* on an O_DIRECT transfer: the file system refusing it */
};

/* A decimal integer >= min and <= max, the whole field, no sign or spaces. */
static int parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
  if (*s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < min || v > max) return -1;
  *out = v;
  return 0;
}

static int bad(const char *spec, const char *field, const char *value)
{
  return ostio__fail(OSTIO_EINVAL, "OSTIO_FAULT=\"%s\": bad %s \"%s\"; " SYNTAX, spec, field,
                     value);
}

int ostio__fault_parse(const char *spec, ostio__fault *f)
{
  memset(f, 0, sizeof *f);
  f->rank = -1;
  if (!spec || !*spec) return 0;

  /* Split a copy into exactly four fields. */
  char buf[128];
  if (strlen(spec) >= sizeof buf)
    return ostio__fail(OSTIO_EINVAL, "OSTIO_FAULT: value of %zu characters is too long; " SYNTAX,
                       strlen(spec));
  strcpy(buf, spec);
  char *field[4];
  int nf = 0;
  for (const char *c = spec; *c; c++) nf += *c == ':';
  if (nf != 3)
    return ostio__fail(OSTIO_EINVAL, "OSTIO_FAULT=\"%s\": expected 4 fields separated by ':', "
                       "found %d; " SYNTAX, spec, nf + 1);
  char *p = buf;
  for (int i = 0; i < 4; i++) {
    field[i] = p;
    p += strcspn(p, ":");
    if (*p) *p++ = '\0';
  }

  ostio__fault g = {.active = 1, .rank = -1};
  if (strcmp(field[0], "write") == 0) g.is_write = 1;
  else if (strcmp(field[0], "read") == 0) g.is_write = 0;
  else if (strcmp(field[0], "shm") == 0) g.on_shm = 1;
  else return bad(spec, "OP", field[0]);

  int64_t v;
  if (strcmp(field[1], "*") == 0) g.rank = -1;
  else if (parse_int(field[1], 0, INT32_MAX, &v) == 0) g.rank = (int)v;
  else return bad(spec, "RANK", field[1]);

  if (parse_int(field[2], 1, INT64_MAX, &v) == 0) g.nth = v;
  else return bad(spec, "NTH", field[2]);

  if (g.on_shm && (!strcmp(field[3], "short") || !strcmp(field[3], "stuck")))
    return bad(spec, "WHAT for OP shm (an errno name only)", field[3]);
  if (strcmp(field[3], "short") == 0) g.mode = OSTIO__FAULT_SHORT;
  else if (strcmp(field[3], "stuck") == 0) g.mode = OSTIO__FAULT_STUCK;
  else {
    size_t i;
    for (i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
      if (strcmp(field[3], errnos[i].name) == 0) break;
    if (i == sizeof errnos / sizeof errnos[0]) return bad(spec, "WHAT", field[3]);
    g.mode = OSTIO__FAULT_ERRNO;
    g.err = errnos[i].err;
  }
  snprintf(g.spec, sizeof g.spec, "%s", spec);
  *f = g;
  return 0;
}

int ostio__fault_check_ranks(ostio__fault *f, int nprocs)
{
  if (!f->active || f->rank < 0 || f->rank < nprocs) return 0;
  int rank = f->rank;
  char spec[sizeof f->spec];
  memcpy(spec, f->spec, sizeof spec);
  memset(f, 0, sizeof *f);
  f->rank = -1;
  return ostio__fail(OSTIO_EINVAL, "OSTIO_FAULT=\"%s\": RANK %d is not a rank of this file's "
                     "communicator (%d rank%s), so the fault would never be injected; expected "
                     "RANK from 0 to %d, or * for every rank", spec, rank, nprocs,
                     nprocs == 1 ? "" : "s", nprocs - 1);
}
