/* Helpers shared by the hand-written collective tests: test_coll_cases.c,
 * test_coll_cases2.c (ROMIO-style cases), test_coll_faults.c (injected
 * faults) and test_coll_errors.c (bad input). All collective calls are over
 * MPI_COMM_WORLD.
 *
 *  Data      The byte at file offset off written under a tag (tags >= 3) is a
 *            hash of (off / 8, tag); three tags are reserved: CC_T_SENT (the
 *            sentinel CT_SENTINEL of pre-filled holes), CC_T_ZERO (zeros) and
 *            CC_T_ANY (any bytes: cc_find accepts everything).
 *  Agreement cc_expect_rc: a return code that must be the same on every rank;
 *            cc_open: ostio_open with that check and an agreed handle.
 *  Blocks    The fixed block-cyclic files of the faults and errors tests:
 *            pre-fill with the sentinel and a whole-file check.
 *  Cases     The common case of the ROMIO-style tests (cc_wr_case): create,
 *            (pre-fill), write_all, check on disk with plain pread, check
 *            the size, read_all back and compare, close, unlink.
 *  Program   MPI start-up, the shared temporary directory, a SIGALRM
 *            watchdog, the section runner of the cases tests and the common
 *            epilogue (failures summed over ranks, "ranks N: ..." verdict).
 *
 * Checks go through CHECK/CHECKF (testutil.h), so they count in the test's
 * "N passed" line; each helper says how many checks it records. */
#ifndef OSTIO_COLLCASE_H
#define OSTIO_COLLCASE_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "colltest.h"

#define CC_T_SENT 0u                 /* reserved tags (see above)          */
#define CC_T_ZERO 1u
#define CC_T_ANY 2u
#define CC_CHUNK ((int64_t)4 << 20)  /* I/O and compare granule of the cases */

/* ---- data pattern ------------------------------------------------------- */
/* The bytes tag puts at file offsets [off, off+len) into b. CC_T_SENT gives
 * CT_SENTINEL, CC_T_ZERO and CC_T_ANY give zeros. */
void cc_fill(uint8_t *b, int64_t off, int64_t len, uint32_t tag);
/* Index of the first byte of b[0..len) that differs from what tag puts at
 * off, or -1 (always -1 for CC_T_ANY). */
int64_t cc_find(const uint8_t *b, int64_t off, int64_t len, uint32_t tag);
/* The single byte tag puts at off. */
uint8_t cc_byte(int64_t off, uint32_t tag);
/* Sum of the lengths of e[0..n). */
int64_t cc_ext_bytes(const ostio_extent *e, size_t n);
/* Fills b with tag's bytes of e[0..n) back to back (the write_all layout). */
void cc_fill_ext(uint8_t *b, const ostio_extent *e, size_t n, uint32_t tag);
/* malloc(max(bytes, 1)) filled by cc_fill_ext; NULL only when out of memory. */
uint8_t *cc_pack(const ostio_extent *e, size_t n, uint32_t tag);
/* One check per extent: the bytes of e[i] in buf (back to back) are tag's;
 * else "<name>: <label> at <offset of e[i]>". */
void cc_check_each(const uint8_t *buf, const ostio_extent *e, size_t n, uint32_t tag,
                   const char *name, const char *label);
/* Cyclic blocks: block i (i < nblocks) of len bytes at base + i * stride
 * belongs to rank i % np. Rank r's blocks into e; returns their number. */
size_t cc_cyclic(int r, int np, int nblocks, int64_t base, int64_t stride, int64_t len,
                 ostio_extent *e);

/* ---- agreement over ranks ------------------------------------------------ */
/* Allreduce of one double with op. */
double cc_reduce_d(double v, MPI_Op op);
/* Collective, 2 checks: rc is the same on every rank, and it is want on this
 * rank ("<what>: <call> gave X, expected Y (detail)"). 1 when both hold. */
int cc_expect_rc(int rc, int want, const char *what, const char *call);
/* Collective: ostio_open(MPI_COMM_WORLD, path, amode, info); the code must be
 * want (cc_expect_rc). want == 0: 1 on every rank when a handle is open on
 * every rank, else 0 with no handle left open. want != 0: 0, and one more
 * check that no handle came back. */
int cc_open(const char *path, int amode, MPI_Info info, ostio_file **fh, int want,
            const char *what);
/* A new MPI_Info from "key=value;key=value" (NULL: empty). */
MPI_Info cc_info(const char *hints);
/* fh's statistics counter `name` (1 check: ostio_stat_get succeeds), or -1. */
double cc_stat(ostio_file *fh, const char *name);

/* ---- fixed block files (test_coll_faults, test_coll_errors) -------------- */
typedef struct cc_blocks {
  int64_t base, stride, len; /* block i: len bytes at base + i * stride     */
  int nblocks;               /* blocks 0 .. nblocks-1 hold data             */
  int64_t region;            /* bytes [0, region) are pre-filled and checked */
} cc_blocks;
/* Rank 0 (not collective), 1 check: path's first region bytes are the
 * sentinel and the file is exactly region bytes long. */
void cc_blocks_prefill(const cc_blocks *b, const char *path);
/* Rank 0, 1 check: [0, region) of path: data blocks hold tag's bytes
 * (CC_T_ANY: anything), all else the sentinel. Messages name "<name> <when>". */
void cc_blocks_check(const cc_blocks *b, const char *path, uint32_t tag, const char *name,
                     const char *when);

/* ---- the ROMIO-style cases (test_coll_cases*.c) -------------------------- */
typedef struct cc_outcome {      /* what one write_all reported on this rank */
  double objects_max, aggr_calls, rounds, rmw;
  char strategy[16];
} cc_outcome;
enum { CC_ZERO_CALL = 1 };       /* cc_wr_case flag: also a zero-count call  */
/* dir/name of the directory made by cc_tmpdir. */
void cc_path(const char *name, char *path, size_t cap);
/* Collective: cc_open of dir/name with hints "key=value;key=value". */
int cc_xopen(const char *name, int amode, const char *hints, ostio_file **fh, int want,
             const char *what);
/* pread of len <= CC_CHUNK bytes at off, zeros past EOF: len, or -1. */
int64_t cc_pread_z(int fd, uint8_t *b, int64_t len, int64_t off);
/* Streams reads of [off, off+len) of fd (zeros past EOF) and compares them
 * with tag's bytes; 1 check. */
int cc_disk_expect(int fd, int64_t off, int64_t len, uint32_t tag, const char *what);
/* 1 check: a read_all buffer holds tag's bytes of e[0..n) back to back. */
int cc_check_buf(const uint8_t *b, const ostio_extent *e, size_t n, uint32_t tag,
                 const char *what);
/* Collective, the common case in a new file with hints: pre-fill [0, pre)
 * with the sentinel, write_all e[0..n) of a fresh tag, check every byte on
 * disk (holes: sentinel or zeros), the size, read_all, the strategy used
 * (want, NULL: any; "auto": not checked after the read), optionally a
 * zero-count call (CC_ZERO_CALL); out (may be NULL) gets the statistics. */
void cc_wr_case(const char *hints, const ostio_extent *e, size_t n, int64_t pre,
                const char *want, int flags, cc_outcome *out);
/* One of the collective strategies even, aligned, ost, single. */
int cc_is_coll(const char *strategy);

/* ---- the program ----------------------------------------------------------- */
/* MPI_Init, this rank and the number of ranks; prog names the program in
 * messages. More than maxnp ranks (maxnp > 0): rank 0 says so, MPI_Finalize,
 * returns 1 (the exit status); else 0. */
int cc_init(int *argc, char ***argv, const char *prog, int maxnp, int *rank, int *nprocs);
/* Collective: a fresh directory made by rank 0 (tu_tmpdir) into dir (cap
 * bytes), broadcast; cc_path names files in it, cc_finish removes it. */
void cc_tmpdir(char *dir, size_t cap, const char *tag);
/* Installs the SIGALRM handler: it prints "<prog>: rank R stuck for secs s
 * in case: <*casename>" (casename NULL: "<prog>: no progress for secs s (a
 * hang?)") and exits with 3. The caller arms it with alarm(). */
void cc_watchdog(int secs, const char *casename);
/* The sections of a cases test: each runs when nprocs <= maxnp and its name
 * is in OSTIO_TEST_ONLY (when set). */
typedef struct cc_section {
  const char *name;
  void (*fn)(void);
  int maxnp;
} cc_section;
/* The whole body of a cases test after cc_init: no OSTIO_HINTS/OSTIO_FAULT, a
 * temporary directory, every section under a 280 s watchdog (timed on
 * stderr with OSTIO_TEST_VERBOSE=1), then cc_finish(file). */
int cc_run_sections(const cc_section *sec, size_t n, const char *file);
/* Collective epilogue: barrier, rank 0 removes the directory of cc_tmpdir,
 * failures are summed over ranks and rank 0 prints "ranks N: " and the
 * verdict of tu_done(file); MPI_Finalize. Returns the exit status. */
int cc_finish(const char *file);
#define CC_FINISH() cc_finish(__FILE__)

#endif
