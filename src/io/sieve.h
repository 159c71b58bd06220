/* Running a sieving plan (io/sieve_plan.h) over a batch's system requests
 * (io.c run(), for ostio__io_read_batch_sieved). */
#ifndef OSTIO_IO_SIEVE_H
#define OSTIO_IO_SIEVE_H

#include <stddef.h>

#include "io/io.h"
#include "io/uring.h"

/* Reads the nq system requests q (sorted by object and offset, as the
 * backend's route or the merged batch leaves them): the pieces the plan
 * groups are read as one span into io->sieve_buf and copied out, the rest
 * moves as ostio__io_move_all moves them. A span's read goes through the
 * backend's move, so sys_reads, bytes_read (the span's bytes, holes
 * included), OSTIO_FAULT and zeros past the end of the file are as for any
 * request. When the span buffer cannot be had, every piece is read alone.
 * Returns the first failure after every request was attempted. */
int ostio__io_sieve_read(ostio__io *io, const ostio__io_preq *q, size_t nq,
                         const ostio__io_sieve *sv);

/* Frees io's sieving arrays and buffer (ostio__io_fini). */
void ostio__io_sieve_free(ostio__io *io);

#endif
