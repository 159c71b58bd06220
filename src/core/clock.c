/* ostio__now (declared in stats/stats.h): a monotonic clock in seconds. On
 * its own so MPI-free users (the container code, libostio-preload.so) link
 * it without stats.c. */
#include <time.h>

#include "stats/stats.h"

double ostio__now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
