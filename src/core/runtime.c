#include "core/runtime.h"
#include "ostio.h"

ostio__runtime ostio__rt;

const char *ostio_version_string(void) { return OSTIO_VERSION_STRING; }

void ostio_version(int *major, int *minor, int *patch)
{
  if (major) *major = OSTIO_VERSION_MAJOR;
  if (minor) *minor = OSTIO_VERSION_MINOR;
  if (patch) *patch = OSTIO_VERSION_PATCH;
}
