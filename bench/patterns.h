/* ostio-bench access patterns (issue 4): each pattern is expressed once, as
 * a sequence of collective calls ("steps"), each giving every rank a list
 * of extents; every API (ostio strategies, MPI-IO, POSIX) is driven by the
 * same lists, so all do the same work. The bytes written are a function of
 * file offset and seed only (ob_fill), so files written through different
 * APIs compare byte for byte. Pure C, no MPI, no I/O: tested by
 * tests/test_bench_patterns.c. Facts: ../shared/reference/patterns.md. */
#ifndef OSTIO_BENCH_PATTERNS_H
#define OSTIO_BENCH_PATTERNS_H

#include <stddef.h>
#include <stdint.h>

#include "ostio.h"

typedef enum {
  OB_PAT_IOR = 0,   /* segmented: rank r's block of segment i at (i*P + r)*b, in -t transfers */
  OB_PAT_STRIDED,   /* interleaved transfers of -t bytes (IO500 ior-hard: 47008)              */
  OB_PAT_BTIO,      /* NPB BTIO classes S W A B C, P square, 40 steps                          */
  OB_PAT_FLASH,     /* FLASH-IO checkpoint: 24 variables, 80 + r mod 3 blocks of 16^3 per rank */
  OB_PAT_RANDOM     /* seeded random disjoint extents                                          */
} ob_pattern_kind;

typedef struct ob_pattern_opts {
  int kind;                 /* ob_pattern_kind                                  */
  int64_t block;            /* -b: bytes per rank per segment (ior, strided)      */
  int64_t transfer;         /* -t: bytes per transfer (ior, strided)              */
  int64_t segments;         /* -s: segments (ior, strided)                        */
  char btio_class;          /* 'S', 'W', 'A', 'B', 'C'                            */
  int flash_blocks_base;    /* 80 (blocks per rank = base + rank mod 3); tests may shrink */
  int flash_nxb;            /* 16 (cells per block edge); tests may shrink        */
  int64_t random_bytes;     /* random: bytes per rank                             */
  uint64_t seed;
} ob_pattern_opts;

/* Fills the documented defaults for kind (ior: -b 1m -t 1m -s 1 ...). */
void ob_pattern_defaults(int kind, ob_pattern_opts *o);
/* "ior", "strided", "btio", "flash", "random" -> kind, or -1. */
int ob_pattern_kind_from_name(const char *name);
const char *ob_pattern_name(int kind);

/* One collective call of the pattern, for one rank. */
typedef struct ob_step {
  ostio_extent *ext;        /* sorted by offset, disjoint                         */
  size_t n;
  int64_t bytes;
} ob_step;

typedef struct ob_plan {
  int nsteps;
  ob_step *steps;
  int64_t rank_bytes;       /* this rank, all steps                               */
  int64_t total_bytes;      /* all ranks, all steps                               */
  int64_t file_size;        /* end of the last byte any rank writes               */
  ostio_extent *storage;    /* added: every step's ext points into this one block */
} ob_plan;

/* Builds rank's plan among nprocs. Impossible combinations (btio with a
 * non-square nprocs, block not a multiple of transfer, ...) return -1 and
 * write a sentence naming the flag into err. */
int ob_pattern_build(const ob_pattern_opts *o, int rank, int nprocs, ob_plan *out, char *err,
                     size_t errcap);
void ob_plan_free(ob_plan *p);

/* Added: which step rules the patterns use (see docs/benchmarks-patterns.md).
 *  ior     steps = s * (b/t); step k holds one transfer of t bytes: segment
 *          k / (b/t), transfer k mod (b/t), at (i*P + r)*b + j*t (IOR -c).
 *  strided the rank writes s*b bytes as s*b/t pieces of t bytes, its i-th
 *          piece at (i*P + r)*t. A step holds the b/t pieces of one segment
 *          (steps = s) when b > t; when b == t (IO500 ior-hard: -t 47008
 *          -b 47008) all s pieces go into ONE step. So the call size is b,
 *          or s*t when b == t.
 *  btio    40 steps (one collective write per step), the x-runs of the
 *          rank's p cells, 40*cell_x bytes each.
 *  flash   24 steps, one per variable; one contiguous region per step.
 *          The small per-block metadata arrays and the plot files are not
 *          written.
 *  random  1 step. */
#define OB_BTIO_STEPS 40
#define OB_FLASH_NVARS 24
/* Added: grid edge N of a BTIO class ('S' 12, 'W' 24, 'A' 64, 'B' 102,
 * 'C' 162; lower case accepted), or -1. */
int ob_btio_grid(char cls);

/* The benchmark's data: the bytes of extents ext[0..n) back to back, as a
 * function of (file offset, seed) only. ob_check returns the index of the
 * first wrong byte or -1. */
void ob_fill(uint8_t *buf, const ostio_extent *ext, size_t n, uint64_t seed);
int64_t ob_check(const uint8_t *buf, const ostio_extent *ext, size_t n, uint64_t seed);

#endif
