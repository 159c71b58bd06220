/* The error table: every code has a distinct name and message, strerror
 * of unknown values is safe, and the detail is per thread. */
#include <string.h>

#include "core/error.h"
#include "testutil.h"

int main(void)
{
  static const int codes[] = {
#define CODE_(name, value, msg) OSTIO_##name,
    OSTIO_ERRNO_MAP(CODE_)
#undef CODE_
  };
  size_t n = sizeof codes / sizeof codes[0];
  for (size_t i = 0; i < n; i++) {
    CHECK(codes[i] < 0 && codes[i] > OSTIO_ERRNO_MIN_);
    CHECK(strcmp(ostio_strerror(codes[i]), "unknown error") != 0);
    CHECK(strncmp(ostio_errname(codes[i]), "OSTIO_E", 7) == 0);
    for (size_t j = 0; j < i; j++) {
      CHECK(codes[i] != codes[j]);
      CHECK(strcmp(ostio_strerror(codes[i]), ostio_strerror(codes[j])) != 0);
    }
  }
  CHECK(!strcmp(ostio_strerror(0), "success"));
  CHECK(!strcmp(ostio_strerror(12345), "unknown error"));
  CHECK(!strcmp(ostio_strerror(-9999), "unknown error"));
  CHECK(!strcmp(ostio_errname(OSTIO_EHINT), "OSTIO_EHINT"));
  CHECK(ostio__fail(OSTIO_ERANGE, "value %d too big", 7) == OSTIO_ERANGE);
  CHECK(!strcmp(ostio_last_error(), "value 7 too big"));
  ostio__clear_error();
  CHECK(ostio_last_error()[0] == '\0');
  CHECK(ostio__from_errno(2) == OSTIO_ENOENT);   /* ENOENT */
  CHECK(ostio__from_errno(28) == OSTIO_ENOSPC);  /* ENOSPC */
  CHECK(ostio__from_errno(5) == OSTIO_EIO);      /* EIO */
  CHECK(ostio__from_errno(27) == OSTIO_EFBIG);   /* EFBIG: "file too large", not ENOSPC */
  int maj = -1, min = -1, pat = -1;
  ostio_version(&maj, &min, &pat);
  CHECK(maj >= 0 && min >= 0 && pat >= 0 && ostio_version_string()[0]);
  return TEST_DONE();
}
