/* Data sieving of one rank's reads (docs/collective.md, "Sieved reads"):
 * which of a sorted list of pieces to read as one span into a bounded
 * buffer (then copied out) and which to read alone. A pure function: no
 * I/O, no MPI, no allocation; io/sieve.c runs it. */
#ifndef OSTIO_IO_SIEVE_PLAN_H
#define OSTIO_IO_SIEVE_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* `automatic`: a piece joins the span before it when the hole before it
 * plus its own length is at most this many bytes (one system call saved
 * for at most this many bytes copied more) ... */
#define OSTIO__SIEVE_AUTO_STEP 16384
/* ... and the span's hole bytes stay at most this many times its data
 * bytes. */
#define OSTIO__SIEVE_AUTO_RATIO 8
/* `enable`: any piece joins when the span fits the buffer and its hole
 * bytes stay at most this many times its data bytes. */
#define OSTIO__SIEVE_ENABLE_RATIO 64

/* One piece: key (the object of a striped container, or any constant for
 * a plain file; a span never crosses a change of key), file or object
 * offset, length. */
typedef struct ostio__sieve_in {
  int64_t key, off, len;
} ostio__sieve_in;

/* Pieces [first, first + n) read as one span [off, off + len); n == 1:
 * the piece is read alone (off and len are then the piece's). */
typedef struct ostio__sieve_chunk {
  size_t first, n;
  int64_t off, len;
} ostio__sieve_chunk;

/* Plans n pieces sorted by (key, off). mode is romio_ds_read (ostio__tri:
 * disable reads every piece alone), buf is ind_rd_buffer_size (the most
 * bytes one span covers; a piece of buf bytes or more is read alone). A
 * piece that is not after the previous one in (key, off) order, or that
 * has a length <= 0, a negative offset or an end past 2^63-1, is read alone
 * and starts no span, so any input is safe. Writes one chunk per span or
 * lone piece to out (room for n), in order, and returns their count;
 * *spans is the number of chunks with n > 1 and *widest the largest len
 * among them (0 when none). Work O(n). */
size_t ostio__sieve_plan(int mode, int64_t buf, const ostio__sieve_in *p, size_t n,
                         ostio__sieve_chunk *out, size_t *spans, int64_t *widest);

#endif
