/* Sieved reads (io/sieve.h): the plan of io/sieve_plan.c run over one
 * batch's system requests. The requests of a container are per object
 * (the objects backend's route cut them at stripe boundaries and sorted
 * them by object), so a span never reaches into another object. */
#include "io/sieve.h"

#include <string.h>

#include "core/error.h"
#include "hints/hints.h"
#include "io/backend.h"
#include "io/sieve_plan.h"

#define DETAIL_KEEP 512

void ostio__io_sieve_free(ostio__io *io)
{
  ostio__scratch_free(&io->sieve_in);
  ostio__scratch_free(&io->sieve_chunk);
  ostio__scratch_free(&io->sieve_lone);
  ostio__scratch_free(&io->sieve_buf);
}

/* One span: read [c->off, c->off + c->len) of q[c->first]'s file into
 * win, then each piece's bytes out of it. */
static int read_span(ostio__io *io, const ostio__io_preq *q, const ostio__sieve_chunk *c,
                     char *win)
{
  const ostio__io_backend *b = io->be ? io->be : &ostio__io_backend_fd;
  const ostio__io_preq *p = &q[c->first];
  ostio__io_preq span = {p->fd, p->obj, c->off, c->len, win};
  int rc = b->move ? b->move(io, 0, &span) : ostio__io_loop(io, 0, &span, 0);
  if (rc < 0) return rc;
  for (size_t k = c->first; k < c->first + c->n; k++)
    memcpy(q[k].buf, win + (q[k].off - c->off), (size_t)q[k].len);
  return 0;
}

int ostio__io_sieve_read(ostio__io *io, const ostio__io_preq *q, size_t nq,
                         const ostio__io_sieve *sv)
{
  if (nq < 2 || sv->mode == OSTIO__TRI_DISABLE) return ostio__io_move_all(io, 0, q, nq);
  ostio__sieve_in *in = ostio__scratch_get(&io->sieve_in, nq, sizeof *in);
  ostio__sieve_chunk *ch = in ? ostio__scratch_get(&io->sieve_chunk, nq, sizeof *ch) : NULL;
  if (!ch) return ostio__io_move_all(io, 0, q, nq); /* no memory to plan: piece by piece */
  for (size_t i = 0; i < nq; i++) in[i] = (ostio__sieve_in){q[i].obj, q[i].off, q[i].len};
  size_t spans;
  int64_t widest;
  size_t nc = ostio__sieve_plan(sv->mode, sv->buf, in, nq, ch, &spans, &widest);
  char *win = spans ? ostio__scratch_get(&io->sieve_buf, (size_t)widest, 1) : NULL;
  ostio__io_preq *lone = win ? ostio__scratch_get(&io->sieve_lone, nq, sizeof *lone) : NULL;
  if (!lone) return ostio__io_move_all(io, 0, q, nq); /* nothing to sieve, or no buffer */

  char keep[DETAIL_KEEP];
  int first = 0;
  size_t nl = 0;
  for (size_t i = 0; i < nc; i++) {
    if (ch[i].n == 1) lone[nl++] = q[ch[i].first];
    else ostio__io_keep_first(read_span(io, q, &ch[i], win), &first, keep, sizeof keep);
  }
  if (nl) ostio__io_keep_first(ostio__io_move_all(io, 0, lone, nl), &first, keep, sizeof keep);
  if (first < 0) ostio__set_detail(keep);
  return first;
}
