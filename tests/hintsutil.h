/* Shared by the hints tests (test_hints.c, test_hints_env.c): small
 * helpers and the LeakSanitizer pause around MPI_Init/MPI_Finalize. */
#ifndef OSTIO_TESTS_HINTSUTIL_H
#define OSTIO_TESTS_HINTSUTIL_H

#include <stdio.h>
#include <string.h>

#include "hints/hints.h"
#include "ostio.h"

/* MPICH keeps a few allocations from MPI_Init until exit, and the suite runs
 * the serial tests with leak checking on: MPI_Init and MPI_Finalize run with
 * LeakSanitizer paused (for their own allocations only). */
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#define LSAN_PAUSE() __lsan_disable()
#define LSAN_RESUME() __lsan_enable()
#else
#define LSAN_PAUSE() ((void)0)
#define LSAN_RESUME() ((void)0)
#endif

#define NKEYS 34

static inline int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

/* Canonical text of key in h ("?" when the key is unknown). */
static inline const char *fmt(const ostio__hints *h, const char *key, char *buf, size_t cap)
{
  int i = ostio__hints_index(key);
  if (i < 0 || ostio__hints_format(h, i, buf, cap) != 0) snprintf(buf, cap, "?");
  return buf;
}

static inline int same(const ostio__hints *a, const ostio__hints *b)
{
  return memcmp(a, b, sizeof *a) == 0;
}

/* Fresh defaults in a struct whose padding is zero, so memcmp works. */
static inline void fresh(ostio__hints *h)
{
  memset(h, 0, sizeof *h);
  ostio__hints_init(h);
}

#endif
