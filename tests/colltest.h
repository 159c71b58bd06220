/* Helpers shared by the collective I/O tests (test_coll_*.c).
 *
 *  Patterns   Every rank computes every rank's extent list from (seed,
 *             nprocs, params), so any rank (rank 0 in practice) can check a
 *             whole file. Extents never overlap across ranks or within one
 *             rank (the API requires it); lists are unsorted and may hold
 *             zero-length entries.
 *  Data       The byte written at file offset `off` by rank `w` in call
 *             `call` is ct_byte(off, w, call): a hash that is never 0 and
 *             never CT_SENTINEL, so a missing, misplaced or foreign byte is
 *             always visible.
 *  Expect     The file content expected after some collective writes (one
 *             pattern per call, later calls win) over a range pre-filled
 *             with CT_SENTINEL; file bytes outside every write and outside
 *             the pre-filled range are 0 (holes of a new file).
 *  Checkers   ct_check_file: rank 0 reads the file with plain pread and
 *             compares every byte; ct_check_buf: a read_all buffer against
 *             the expectation. Both print the first mismatch (offset,
 *             expected, actual, the rank that should have written it), the
 *             number of bad bytes and the seed.
 *  Misc       MPI_Info from "key=value" words, a temporary directory shared
 *             by all ranks, the sentinel pre-fill, verdict agreement.
 *
 * All functions are deterministic and need no MPI unless they take a comm. */
#ifndef OSTIO_COLLTEST_H
#define OSTIO_COLLTEST_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "ostio.h"
#include "testutil.h"

#define CT_SENTINEL 0xA5u  /* pre-filled holes; ct_byte() never returns it */

/* ---- patterns ---------------------------------------------------------- */
typedef enum {
  CT_RANDOM = 0,   /* random disjoint extents over [base, base+span): holes,
                      interleaved owners, unsorted lists, zero-length entries,
                      some ranks without extents                           */
  CT_STRIDED,      /* block-cyclic: rank r owns blocks base + (k*nprocs + r)*block,
                      k = 0 .. span/(nprocs*block)-1 (whole cycles only)      */
  CT_CONTIG,       /* rank r owns [base + r*span/nprocs, base + (r+1)*span/nprocs),
                      as one extent or cut into a few adjacent ones          */
  CT_SPARSE_HIGH,  /* like CT_RANDOM, but in `clusters` windows of `span` bytes
                      above 2^32: window i starts at base + i*gap (base
                      defaults to 2^32 - span/2, so window 0 crosses 2^32)   */
  CT_NKINDS
} ct_kind;

typedef struct ct_params {
  int kind;            /* ct_kind                                             */
  int64_t base;        /* first byte of the range (CT_SPARSE_HIGH: 0 = default) */
  int64_t span;        /* bytes of the range (per window for CT_SPARSE_HIGH)   */
  int64_t block;       /* CT_STRIDED: block size; CT_RANDOM/SPARSE: longest extent */
  int holes;           /* CT_RANDOM/SPARSE: 0 packs extents back to back,
                          1 leaves random gaps                               */
  int zero_len;        /* add 0-3 zero-length entries per rank, at random
                          offsets anywhere in the range (any kind)           */
  int empty_ranks;     /* CT_RANDOM/SPARSE: let some ranks have no extents    */
  int shuffle;         /* shuffle each rank's list (RANDOM/SPARSE always do)  */
  int clusters;        /* CT_SPARSE_HIGH: windows (default 3)                 */
  int64_t gap;         /* CT_SPARSE_HIGH: distance of windows (default 1 GiB) */
} ct_params;

/* A non-empty extent with its writer; sorted by offset in ct_pattern.sorted. */
typedef struct ct_piece {
  int64_t off, len;
  int rank;
} ct_piece;

typedef struct ct_pattern {
  int nprocs;
  size_t *n;            /* n[r]: entries of rank r (zero-length included)   */
  ostio_extent **ext;   /* ext[r]: rank r's list, in the order it is passed */
  int64_t *bytes;       /* bytes[r]: sum of rank r's lengths                */
  int64_t total;        /* bytes over all ranks                             */
  int64_t lo, hi;       /* span of non-empty extents; lo = hi = 0 when none */
  ct_piece *sorted;     /* all non-empty extents by offset                  */
  size_t nsorted;
} ct_pattern;

/* Sensible defaults for a kind over [base, base+span): block span/64 (at
 * least 1), holes, zero-length entries, empty ranks allowed. */
ct_params ct_params_default(int kind, int64_t base, int64_t span);
/* Builds the pattern; 0, or -1 on bad params / no memory (p zeroed). */
int ct_pattern_make(ct_pattern *p, uint64_t seed, int nprocs, const ct_params *prm);
/* A different list over exactly the same bytes: every extent cut at random
 * points, the pieces dealt to random ranks, lists shuffled, zero-length
 * entries added. */
int ct_pattern_reshuffle(ct_pattern *dst, const ct_pattern *src, uint64_t seed);
/* Frees and zeroes; safe on a zeroed pattern. */
void ct_pattern_free(ct_pattern *p);
/* One line: kind, ranks, extents, bytes, [lo, hi). */
void ct_pattern_describe(const ct_pattern *p, char *buf, size_t cap);
const char *ct_kind_name(int kind);

/* ---- data -------------------------------------------------------------- */
/* The byte at file offset off written by rank writer in call call_id. */
uint8_t ct_byte(int64_t off, int writer, uint32_t call_id);
/* ct_byte for len consecutive offsets. */
void ct_data(int64_t off, int64_t len, int writer, uint32_t call_id, uint8_t *out);
/* Fills buf with the bytes of ext[0..n) back to back in list order (the
 * layout ostio_write_all expects). buf holds at least the sum of lengths. */
void ct_fill(uint8_t *buf, const ostio_extent *ext, size_t n, int writer, uint32_t call_id);
/* malloc of max(n, 1) bytes (never NULL: aborts the test on failure). */
void *ct_xmalloc(size_t n);

/* ---- expected file content --------------------------------------------- */
#define CT_MAX_LAYERS 8
typedef struct ct_expect {
  int nlayers;
  const ct_pattern *layer[CT_MAX_LAYERS];   /* borrowed; later layers win     */
  uint32_t call_id[CT_MAX_LAYERS];
  int64_t pf_lo, pf_hi;                      /* pre-filled with CT_SENTINEL  */
  int holes_undefined;  /* 1: bytes neither written nor pre-filled may hold
                           anything (ROMIO's read-modify-write fills holes
                           past EOF with junk); the checkers skip them       */
} ct_expect;

/* Starts an expectation with a pre-filled range (pf_lo == pf_hi: none). */
void ct_expect_init(ct_expect *e, int64_t pf_lo, int64_t pf_hi);
/* Adds the writes of one collective call. 0, or -1 when full. */
int ct_expect_add(ct_expect *e, const ct_pattern *p, uint32_t call_id);
/* File size the writes should leave: max(pf_hi, end of the last byte written). */
int64_t ct_expect_size(const ct_expect *e);
/* Expected bytes of [off, off+len): written data, else CT_SENTINEL inside the
 * pre-filled range, else 0 (holes, and past the end of file as read_all
 * returns it). */
void ct_expect_fill(const ct_expect *e, int64_t off, int64_t len, uint8_t *out);
/* mask[i] = 1 when the byte at off+i is defined: written or pre-filled. */
void ct_expect_defined(const ct_expect *e, int64_t off, int64_t len, uint8_t *mask);
/* Who should have written the byte at off: the rank (and *call_id), or -1
 * when nobody did (then *call_id = 0). */
int ct_expect_writer(const ct_expect *e, int64_t off, uint32_t *call_id);

/* ---- checkers ----------------------------------------------------------
 * what: a short label for the message ("case 12 write#1"). Each prints at
 * most one mismatch report (on stderr, prefixed "MISMATCH") and the seed. */

/* Collective over comm. Rank 0 checks the file at path: size ==
 * ct_expect_size(e), and every byte of [0, size) when size <= 256 MiB; for
 * larger (sparse) files every written extent with 64 KiB around it, the
 * first and last MiB of the pre-filled range, the first MiB and the last 64
 * KiB of the file, and the data regions the file system reports
 * (SEEK_DATA), at most 256 MiB in all. With e->holes_undefined, bytes
 * neither written nor pre-filled are not compared. Returns 1 on every rank
 * when the file is right, else 0 (agreed with MPI_Allreduce). */
int ct_check_file(MPI_Comm comm, const char *path, const ct_expect *e, uint64_t seed,
                  const char *what);
/* Local: buf as read_all returned it for ext[0..n) (list order) against e.
 * Returns the number of wrong bytes (0 = right); reports the first one. */
int64_t ct_check_buf(const ct_expect *e, const ostio_extent *ext, size_t n,
                     const uint8_t *buf, int rank, uint64_t seed, const char *what);
/* Rank 0 compares two files byte for byte (sizes too; path_b NULL: the same
 * as ct_check_file). e (may be NULL)
 * names the writer of a bad byte in the report, and with holes_undefined the
 * bytes it leaves undefined are skipped; with e, sparse files (> 256 MiB) are
 * compared in the ranges ct_check_file would read. Collective; agreed. */
int ct_compare_files(MPI_Comm comm, const char *path_a, const char *path_b,
                     const ct_expect *e, uint64_t seed, const char *what);
/* Logical AND of ok over comm (MPI_Allreduce MIN); 1 when every rank is ok. */
int ct_agree(MPI_Comm comm, int ok);

/* ---- setup --------------------------------------------------------------- */
/* Collective: rank 0 writes CT_SENTINEL over [lo, hi) of path with pwrite
 * (creating the file if needed, 0644), then MPI_Barrier. Returns 0 on every
 * rank, or -1 on every rank when rank 0 failed. */
int ct_prefill(MPI_Comm comm, const char *path, int64_t lo, int64_t hi);
/* Collective: a fresh directory made by rank 0 (tu_tmpdir), broadcast. 0 or -1. */
int ct_tmpdir(MPI_Comm comm, char *buf, size_t cap, const char *tag);
/* Collective: removes the directory tree (rank 0), then MPI_Barrier. */
void ct_rmtree(MPI_Comm comm, const char *dir);
/* A new MPI_Info from whitespace-separated "key=value" words, e.g.
 * "cb_nodes=4 striping_factor=7 cb_config_list=*:*". NULL or "" gives an
 * empty info. 0, or -1 (and MPI_INFO_NULL) for a word without '='. */
int ct_info(const char *spec, MPI_Info *info);
/* Appends " key=value" to a spec buffer with printf formatting of value. */
void ct_spec_add(char *spec, size_t cap, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Mixes two 64-bit values (seed derivation: ct_mix(seed, case_index)). */
uint64_t ct_mix(uint64_t a, uint64_t b);

/* ---- randomized case drivers ---------------------------------------------- */
/* The test's seed: OSTIO_TEST_SEED or dflt, chosen on rank 0 of comm
 * (printed once) and broadcast. */
uint64_t ct_seed(MPI_Comm comm, uint64_t dflt);
/* Cases to run, [*first, *end): [0, dflt), or [0, n) with OSTIO_COLL_CASES=n,
 * or the one case k with OSTIO_COLL_CASE=k. */
void ct_case_range(int dflt, int *first, int *end);
/* Records an agreed check on rank 0 of MPI_COMM_WORLD (other ranks only
 * return ok). The first failure of a case (*failed still 0) prints the case
 * description and the command that reproduces it. */
int ct_case_check(int ok, const char *what, const char *prog, const char *desc, int idx,
                  uint64_t seed, int *failed);

#endif
