/* Data sieving of an independent read through a noncontiguous view
 * (mfile.h): extents close together in the file are read as one window
 * into a bounded buffer and copied out, one ostio_read_at per window
 * instead of one per extent. Reads only: a read of bytes between the
 * extents changes nothing, so it needs no lock (independent writes are
 * never sieved: docs/hints.md).
 *
 * Hints (read at each call from the file's hints): romio_ds_read
 * `disable` reads extent by extent; `enable` crosses any hole that fits
 * the window; `automatic` (the default) crosses a hole only when it is at
 * most SMALL_HOLE bytes or at most the data bytes gathered in the window
 * so far, so a sparse view (a byte every MiB) is not read whole.
 * ind_rd_buffer_size bounds the window; an extent that does not fit in it
 * is read directly, and so are a window's blocks when its buffer cannot be
 * had. Bytes past the end of the file read as zeros either way
 * (ostio_read_at); the caller counts the bytes that exist. */
#include <stdlib.h>
#include <string.h>

#include "mpiio/mfile.h"

#include "file/file.h"

#define SMALL_HOLE 4096

/* The extents [i, *j) of one window and its span [*lo, *hi): *j == i + 1
 * when the extent is read alone. */
static void window(const ostio_extent *e, size_t n, size_t i, int mode, int64_t cap,
                   size_t *j, int64_t *lo, int64_t *hi)
{
  int64_t start = e[i].offset, end = start + e[i].length, data = e[i].length;
  size_t k = i + 1;
  if (mode != OSTIO__TRI_DISABLE && e[i].length < cap) {
    for (; k < n; k++) {
      int64_t off = e[k].offset, len = e[k].length;
      if (off < end || len > cap || off - start > cap - len) break; /* back, or too far */
      int64_t hole = off - end;
      if (mode == OSTIO__TRI_AUTO && hole > SMALL_HOLE && hole > data) break;
      end = off + len;
      data += len;
    }
  }
  *j = k;
  *lo = start;
  *hi = end;
}

int ostio__mpiio_sieve_read(ostio__mfile *mf, const ostio_extent *e, size_t n, char *data)
{
  const ostio__hints *h = &mf->fh->hints;
  int mode = h->romio_ds_read;
  int64_t cap = h->ind_rd_buffer_size;
  char *win = NULL;
  size_t win_room = 0;
  int64_t at = 0;
  int rc = 0;
  for (size_t i = 0, j; i < n && rc == 0; i = j) {
    int64_t lo, hi;
    window(e, n, i, mode, cap, &j, &lo, &hi);
    if (j == i + 1) {
      rc = ostio_read_at(mf->fh, e[i].offset, data + at, (size_t)e[i].length);
      at += e[i].length;
      continue;
    }
    if ((size_t)(hi - lo) > win_room) { /* at most ind_rd_buffer_size */
      free(win);
      win_room = (size_t)(hi - lo);
      win = malloc(win_room);
    }
    if (!win) { /* no memory for the window (a large ind_rd_buffer_size): block by block */
      win_room = 0;
      for (size_t k = i; k < j && rc == 0; k++) {
        rc = ostio_read_at(mf->fh, e[k].offset, data + at, (size_t)e[k].length);
        at += e[k].length;
      }
      continue;
    }
    rc = ostio__file_read_at(mf->fh, lo, win, (size_t)(hi - lo), 0);
    if (rc == 0) ostio__stats_pieces(&mf->fh->stats, 0, e + i, j - i); /* the pieces asked */
    for (size_t k = i; k < j && rc == 0; k++) {
      const char *src = win + (e[k].offset - lo);
      if (e[k].length == 1) data[at] = *src; /* one-byte blocks: no call per byte */
      else memcpy(data + at, src, (size_t)e[k].length);
      at += e[k].length;
    }
  }
  free(win);
  return rc;
}
