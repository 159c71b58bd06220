#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DETAIL_MAX 2048 /* the longest detail: ostio_stat_get listing every statistic */

/* The only per-thread state of the library: the last failure's detail. */
static _Thread_local char detail[DETAIL_MAX];

const char *ostio_strerror(int err)
{
  switch (err) {
  case OSTIO_OK: return "success";
#define CASE_(name, value, msg) case OSTIO_##name: return msg;
  OSTIO_ERRNO_MAP(CASE_)
#undef CASE_
  default: return "unknown error";
  }
}

const char *ostio_errname(int err)
{
  switch (err) {
  case OSTIO_OK: return "OSTIO_OK";
#define CASE_(name, value, msg) case OSTIO_##name: return "OSTIO_" #name;
  OSTIO_ERRNO_MAP(CASE_)
#undef CASE_
  default: return "OSTIO_UNKNOWN";
  }
}

const char *ostio_last_error(void) { return detail; }

void ostio__clear_error(void) { detail[0] = '\0'; }

void ostio__set_detail(const char *text)
{
  snprintf(detail, sizeof detail, "%s", text ? text : "");
}

int ostio__fail(int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return code;
}

int ostio__from_errno(int e)
{
  switch (e) {
  case 0: return OSTIO_OK;
  case EINVAL: return OSTIO_EINVAL;
  case ENOMEM: return OSTIO_ENOMEM;
  case ENOENT: return OSTIO_ENOENT;
  case EEXIST: return OSTIO_EEXIST;
  case EACCES: case EPERM: case EROFS: return OSTIO_EACCES;
  case ENOSPC: case EDQUOT: return OSTIO_ENOSPC;
  case EFBIG: return OSTIO_EFBIG;
  case ENOTSUP: return OSTIO_ENOTSUP;
  case ERANGE: case EOVERFLOW: return OSTIO_ERANGE;
  case EISDIR: return OSTIO_EISDIR;
  case ENOTDIR: return OSTIO_ENOTDIR;
  case ENOTEMPTY: return OSTIO_ENOTEMPTY;
  default: return OSTIO_EIO;
  }
}
