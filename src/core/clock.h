/* A monotonic clock for the timers (stats), the I/O layer and the container
 * code. In core so MPI-free users (libostio-preload.so) link it without
 * stats. */
#ifndef OSTIO_CORE_CLOCK_H
#define OSTIO_CORE_CLOCK_H

/* Monotonic seconds; 0.0 if the clock cannot be read. */
double ostio__now(void);

#endif
