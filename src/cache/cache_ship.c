/* The one-client rule's flush step (docs/cache.md, "One writing client"):
 * on a file system that stops every client's caching of a file as soon as a
 * second client opens it (CephFS), the ranks of other nodes than the
 * flusher's never touch the file; at each collective flush they send their
 * buffered writes to the flusher, which drains them into the owners' pages
 * (all on its node) as if they were its own. Point-to-point, in chunks of
 * fixed size (cache_impl.h), so neither side holds a second copy of a whole
 * buffer and nothing is allocated at a flush. */
#include "cache/cache_impl.h"

#include <string.h>

#include "core/error.h"

#define TAG 0x5ca1

/* A shipping rank: every live record of its buffer in chunks (a piece longer
 * than a chunk's room is cut; its parts keep its order number and do not
 * overlap each other, so the flusher's order stays right), then an empty
 * header. The header always follows, also after an error, so the flusher
 * never waits for a chunk that will not come. */
static int send_all(ostio__cache *c)
{
  const ostio__cache_wbuf *w = &c->wb;
  ostio__cache_wrec *r = c->ship_rec;
  int rc = 0;
  size_t i = 0;
  int64_t done = 0; /* bytes of record i already sent */
  while (rc == 0 && i < w->nrec) {
    size_t n = 0;
    int64_t bytes = 0;
    while (i < w->nrec && n < OSTIO__CACHE_SHIP_RECS && bytes < OSTIO__CACHE_SHIP_BYTES) {
      const ostio__cache_wrec *src = &w->rec[i];
      int64_t take = src->len - done, room = OSTIO__CACHE_SHIP_BYTES - bytes;
      if (take > room) take = room;
      if (take > 0) {
        r[n] = *src;
        r[n].in_page += done;
        r[n].len = take;
        r[n].at = bytes;
        memcpy(c->ship_data + bytes, w->arena + src->at + done, (size_t)take);
        n++;
        bytes += take;
        done += take;
      }
      if (done >= src->len) {
        i++;
        done = 0;
      }
    }
    if (n == 0) break;
    int64_t head[2] = {(int64_t)n, bytes};
    if (MPI_Send(head, 2, MPI_INT64_T, c->flusher, TAG, c->comm) != MPI_SUCCESS ||
        MPI_Send(r, (int)(n * sizeof *r), MPI_BYTE, c->flusher, TAG, c->comm) != MPI_SUCCESS ||
        MPI_Send(c->ship_data, (int)bytes, MPI_BYTE, c->flusher, TAG, c->comm) != MPI_SUCCESS)
      rc = ostio__fail(OSTIO_EMPI, "cache: sending writes to rank %d failed", c->flusher);
  }
  int64_t end[2] = {0, 0};
  if (MPI_Send(end, 2, MPI_INT64_T, c->flusher, TAG, c->comm) != MPI_SUCCESS && rc == 0)
    rc = ostio__fail(OSTIO_EMPI, "cache: sending writes to rank %d failed", c->flusher);
  return rc;
}

/* 1 when the n shipped records lie in their chunk of bytes and in a page,
 * with that page's owner and set (they index the windows). */
static int chunk_ok(const ostio__cache *c, const ostio__cache_wrec *r, int64_t n, int64_t bytes)
{
  for (int64_t k = 0; k < n; k++)
    if (r[k].len < 0 || r[k].at < 0 || r[k].at > bytes - r[k].len || r[k].in_page < 0 ||
        r[k].in_page > c->geom.page - r[k].len || r[k].page < 0 ||
        r[k].page > c->geom.last_page || r[k].owner != ostio__cache_owner(&c->geom, r[k].page) ||
        r[k].set != ostio__cache_set_of(&c->wl, r[k].page))
      return 0;
  return 1;
}

/* The flusher: every shipping rank's chunks, in rank order, each drained into
 * the pages. After an error it still receives everything (the senders must
 * not wait) but puts nothing more in; the flush agrees on the error. */
static int recv_all(ostio__cache *c)
{
  int rc = 0;
  for (int s = 0; s < c->nshippers; s++) {
    int from = c->shippers[s];
    for (;;) {
      int64_t head[2];
      if (MPI_Recv(head, 2, MPI_INT64_T, from, TAG, c->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return ostio__fail(OSTIO_EMPI, "cache: receiving writes from rank %d failed", from);
      if (head[0] == 0) break;
      /* The sender is this library on a rank of the same job; checked all
       * the same, before anything is received into a buffer of fixed size. */
      if (head[0] < 0 || head[0] > OSTIO__CACHE_SHIP_RECS || head[1] < 0 ||
          head[1] > OSTIO__CACHE_SHIP_BYTES)
        return ostio__fail(OSTIO_EMPI, "cache: rank %d shipped a chunk of %lld pieces and %lld "
                           "bytes", from, (long long)head[0], (long long)head[1]);
      if (MPI_Recv(c->ship_rec, (int)((size_t)head[0] * sizeof *c->ship_rec), MPI_BYTE, from,
                   TAG, c->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
          MPI_Recv(c->ship_data, (int)head[1], MPI_BYTE, from, TAG, c->comm,
                   MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return ostio__fail(OSTIO_EMPI, "cache: receiving writes from rank %d failed", from);
      if (rc == 0 && !chunk_ok(c, c->ship_rec, head[0], head[1]))
        rc = ostio__fail(OSTIO_EMPI, "cache: rank %d shipped a piece outside its chunk", from);
      if (rc == 0) rc = ostio__cache_drain_recs(c, c->ship_rec, (size_t)head[0], c->ship_data);
    }
  }
  return rc;
}

int ostio__cache_ship(ostio__cache *c)
{
  if (!c->one_client) return 0;
  if (c->ships) return send_all(c);
  if (c->rank == c->flusher) return recv_all(c);
  return 0;
}
