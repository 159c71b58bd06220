/* Tiny test harness: CHECK records a failure with file:line and goes on;
 * tests end with TEST_DONE(), which prints "N passed, N failed" and
 * returns the exit status. */
#ifndef OSTIO_TESTUTIL_H
#define OSTIO_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

extern long tu_passed, tu_failed;

#define CHECK(cond) tu_check(!!(cond), #cond, __FILE__, __LINE__, NULL)
#define CHECKF(cond, ...) tu_checkf(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_EQ_I64(a, b) tu_check_i64((int64_t)(a), (int64_t)(b), #a, #b, __FILE__, __LINE__)

int tu_check(int ok, const char *expr, const char *file, int line, const char *msg);
int tu_checkf(int ok, const char *expr, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int tu_check_i64(int64_t a, int64_t b, const char *ea, const char *eb,
                 const char *file, int line);
int tu_done(const char *name);
#define TEST_DONE() tu_done(__FILE__)
/* The same for an MPI test : failures are summed over comm
 * and rank 0 prints prefix then the verdict line. Returns the exit status on
 * every rank; MPI stays initialised. */
int tu_done_mpi(MPI_Comm comm, const char *prefix, const char *file);

/* xorshift64* PRNG; seed printed by tests so failures reproduce. */
typedef struct { uint64_t s; } tu_rng;
void tu_rng_seed(tu_rng *r, uint64_t seed);
uint64_t tu_rng_next(tu_rng *r);
/* Uniform in [lo, hi]. */
int64_t tu_rng_range(tu_rng *r, int64_t lo, int64_t hi);
/* Seed from OSTIO_TEST_SEED or a fixed default, printed once. */
uint64_t tu_seed(uint64_t dflt);

/* A valid random layout: 1-3 components, counts 1..160, sizes 4 KiB..64 MiB,
 * sometimes overstriped; with small set, stripe sizes 1..16 and counts 1..5. */
struct ostio_layout;
struct ostio_layout *tu_random_layout(tu_rng *r, int small);

/* A fresh temporary directory under $TMPDIR (removed by tu_rmtree). */
int tu_tmpdir(char *buf, size_t cap, const char *tag);
int tu_rmtree(const char *path);

#endif
