/* ostio__now (core/clock.h): a monotonic clock in seconds. */
#include <time.h>

#include "core/clock.h"

double ostio__now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
