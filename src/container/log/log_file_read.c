/* The data copies of a log container read (log_file.h): collected while a
 * read is resolved against the record map, then done sorted by data log and
 * offset, adjacent copies merged into one pread. */
#include <stdlib.h>

#include "container/log/log_file.h"
#include "core/error.h"

int ostio__logreads_add(ostio__logreads *rl, int32_t src, int64_t phys, int64_t len, char *buf)
{
  if (rl->n == rl->cap) {
    size_t c = rl->cap ? 2 * rl->cap : 64;
    ostio__logread *q = realloc(rl->r, c * sizeof *q);
    if (!q) return ostio__fail(OSTIO_ENOMEM, "out of memory planning a read");
    rl->r = q;
    rl->cap = c;
  }
  rl->r[rl->n++] = (ostio__logread){src, phys, len, buf};
  return 0;
}

static int cmp(const void *a, const void *b)
{
  const ostio__logread *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  return (x->phys > y->phys) - (x->phys < y->phys);
}

int ostio__logreads_run(ostio__logreads *rl, ostio__logdir *d, ostio__io *io)
{
  int rc = 0;
  if (rl->n > 1) qsort(rl->r, rl->n, sizeof *rl->r, cmp);
  for (size_t i = 0; i < rl->n && rc == 0;) {
    ostio__logread q = rl->r[i++];
    while (i < rl->n && rl->r[i].src == q.src && rl->r[i].phys == q.phys + q.len &&
           rl->r[i].buf == q.buf + q.len)
      q.len += rl->r[i++].len;
    int fd;
    if ((rc = ostio__log_data_upto(d, q.src, q.phys + q.len, &fd)) < 0) break;
    io->fd = fd;
    rc = ostio__io_pread(io, q.buf, (size_t)q.len, q.phys);
  }
  rl->n = 0;
  return rc;
}
