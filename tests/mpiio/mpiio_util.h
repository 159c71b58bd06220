/* Shared helpers for the MPI-IO coverage programs (issue 16, tests/mpiio/).
 *
 * Every program is `prog OUTPATH [args]`: it writes OUTPATH (and OUTPATH.suffix
 * files), checks every return code, reads its data back, and ends with
 * mu_finish(): the error count is summed over the ranks, rank 0 prints
 * "No Errors" (exit 0) or the count (exit 1). File handles use the default
 * errhandler of MPI_FILE_NULL, MPI_ERRORS_RETURN, which mu_init sets again.
 * Data bytes come from mu_byte(rank, offset): deterministic, so two runs give
 * byte-identical files, and a misplaced byte names its writer. */
#ifndef MPIIO_UTIL_H
#define MPIIO_UTIL_H

#include <mpi.h>
#include <stddef.h>

extern int mu_rank;
extern int mu_nprocs;
extern const char *mu_out; /* OUTPATH, argv[1] */

/* MPI_Init, rank, size, OUTPATH. Returns 0, or nonzero after printing the usage
 * (the caller then returns mu_finish()). */
int mu_init(int *argc, char ***argv);
/* Counts an error and prints it with the rank. */
void mu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 if rc is MPI_SUCCESS; otherwise counts an error naming `what` and MPI's string. */
int mu_ok(int rc, const char *what);
/* 1 if rc failed with error class `cls`; otherwise counts an error. */
int mu_expect_class(int rc, int cls, const char *what);
/* The error class of rc, or MPI_SUCCESS. */
int mu_class(int rc);
unsigned char mu_byte(int rank, long long off);
/* buf[i] = mu_byte(rank, off + i). */
void mu_fill(unsigned char *buf, size_t n, int rank, long long off);
/* Compares n bytes; on a mismatch counts one error naming the first differing index. */
int mu_same(const void *got, const void *want, size_t n, const char *what);
/* An int value that encodes rank and index, for int arrays. */
int mu_ival(int rank, long long i);
/* Checks MPI_Get_count(status, type) == want (want may be MPI_UNDEFINED). */
int mu_count_is(const MPI_Status *st, MPI_Datatype type, int want, const char *what);
/* OUTPATH followed by suffix, in a static buffer of 4 (rotating) slots. */
const char *mu_path(const char *suffix);
/* Opens path on MPI_COMM_WORLD read-only and checks its size is `size` and its
 * bytes equal `image` (every rank reads the whole file). */
int mu_check_file(const char *path, const unsigned char *image, MPI_Offset size);
/* The same, opening with hints. */
int mu_check_file_info(const char *path, const unsigned char *image, MPI_Offset size,
                       MPI_Info info);
/* Allreduce of the error count, report, MPI_Finalize; the exit status for main. */
int mu_finish(void);
/* One line from rank 0 (informational). */
void mu_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* calloc that counts an error when it fails. */
void *mu_calloc(size_t n, size_t size);

#endif
