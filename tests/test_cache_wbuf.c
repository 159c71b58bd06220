/* The write-behind buffer (cache/cache_wbuf.h), without MPI: its size rule,
 * what it takes and when it is full, that it copies the caller's bytes, the
 * hull that decides when a read or a larger write must drain it, the drain
 * order (pages grouped in lock order, each page's pieces in write order, so
 * the last write of a byte wins), and compaction after a partial drain. */
#include <stdint.h>
#include <string.h>

#include "cache/cache_wbuf.h"
#include "testutil.h"

#define P ((int64_t)65536)

static ostio__cache_piece pc(int64_t page, int64_t in_page, int64_t len, int owner)
{
  return (ostio__cache_piece){.page = page, .in_page = in_page, .len = len, .owner = owner};
}

int main(void)
{
  /* Size: a sixteenth of the cache, at most 4 MiB, none below 4 KiB. */
  CHECK(ostio__cache_wbuf_bytes((int64_t)64 << 20) == (int64_t)4 << 20);
  CHECK(ostio__cache_wbuf_bytes((int64_t)1 << 30) == (int64_t)4 << 20);
  CHECK(ostio__cache_wbuf_bytes((int64_t)1 << 20) == (int64_t)64 << 10);
  CHECK(ostio__cache_wbuf_bytes(3 * P) == 12288);
  CHECK(ostio__cache_wbuf_bytes(65535) == 0);
  /* A shipping rank (the one-client rule): the whole cache, at most 1 GiB. */
  CHECK(ostio__cache_wbuf_bytes_shipping((int64_t)64 << 20) == (int64_t)64 << 20);
  CHECK(ostio__cache_wbuf_bytes_shipping((int64_t)4 << 30) == (int64_t)1 << 30);
  CHECK(ostio__cache_wbuf_bytes_shipping(4095) == 0);
  CHECK(ostio__cache_wbuf_bytes_shipping(4096) == 4096);

  /* A disabled buffer takes nothing. */
  ostio__cache_wbuf w;
  CHECK(ostio__cache_wbuf_init(&w, 0) == 0);
  CHECK(!ostio__cache_wbuf_takes(&w, 1, 1) && ostio__cache_wbuf_memory(&w) == 0);
  ostio__cache_wbuf_free(&w);

  CHECK(ostio__cache_wbuf_init(&w, 64 << 10) == 0);
  CHECK(w.cap == 64 << 10 && w.caprec == 64 && w.nrec == 0 && w.used == 0);
  CHECK(ostio__cache_wbuf_memory(&w) >= 64 << 10);
  /* Takes up to a quarter of the arena (and of the records) per write. */
  CHECK(ostio__cache_wbuf_takes(&w, 16 << 10, 1));
  CHECK(!ostio__cache_wbuf_takes(&w, (16 << 10) + 1, 1));
  CHECK(!ostio__cache_wbuf_takes(&w, 100, 17));
  CHECK(!ostio__cache_wbuf_takes(&w, 0, 1));
  /* Empty: no hull, nothing overlaps. */
  CHECK(!ostio__cache_wbuf_overlaps(&w, 0, INT64_MAX));

  /* Appends copy the caller's bytes at once (the caller may reuse them). */
  unsigned char src[4096];
  struct { int64_t page, in_page, len; int owner; unsigned char byte; } wr[] = {
    {5, 100, 50, 1, 0xa1},   /* seq 0 */
    {2, 0, 4096, 0, 0xb2},   /* seq 1 */
    {5, 120, 10, 1, 0xc3},   /* seq 2: overlaps seq 0, written later */
    {3, 8, 8, 1, 0xd4},      /* seq 3 */
    {2, 10, 20, 0, 0xe5},    /* seq 4: overlaps seq 1 */
  };
  for (size_t i = 0; i < sizeof wr / sizeof wr[0]; i++) {
    memset(src, wr[i].byte, sizeof src);
    ostio__cache_piece p = pc(wr[i].page, wr[i].in_page, wr[i].len, wr[i].owner);
    CHECK(ostio__cache_wbuf_fits(&w, p.len, 1));
    ostio__cache_wbuf_add(&w, &p, wr[i].page % 3, wr[i].page * P + wr[i].in_page, src);
    memset(src, 0, sizeof src);
  }
  CHECK(w.nrec == 5 && w.used == 50 + 4096 + 10 + 8 + 20);
  /* Hull: from page 2's first byte to the end of page 5's seq 0 piece. */
  CHECK(w.lo == 2 * P && w.hi == 5 * P + 150);
  CHECK(ostio__cache_wbuf_overlaps(&w, 2 * P - 1, 2));
  CHECK(!ostio__cache_wbuf_overlaps(&w, 2 * P - 1, 1));
  CHECK(ostio__cache_wbuf_overlaps(&w, 5 * P + 149, 100));
  CHECK(!ostio__cache_wbuf_overlaps(&w, 5 * P + 150, 100));
  CHECK(!ostio__cache_wbuf_overlaps(&w, 3 * P, 0));
  CHECK(!ostio__cache_wbuf_overlaps(&w, INT64_MAX - 10, 10));

  /* Order: owner, set, page, then write order. Owner 0: page 2 (set 2)
   * seq 1, 4; owner 1: page 3 (set 0) seq 3, then page 5 (set 2) seq 0, 2. */
  ostio__cache_wbuf_order(&w);
  int64_t want_seq[] = {1, 4, 3, 0, 2};
  for (size_t i = 0; i < 5; i++)
    CHECKF(w.rec[i].seq == want_seq[i], "position %zu: seq %lld, expected %lld", i,
           (long long)w.rec[i].seq, (long long)want_seq[i]);
  /* Each record's bytes are the ones written with it. */
  for (size_t i = 0; i < 5; i++) {
    unsigned char b = wr[w.rec[i].seq].byte;
    for (int64_t k = 0; k < w.rec[i].len; k++) CHECK(w.arena[w.rec[i].at + k] == b);
  }

  /* A partial drain: owner 0's page done; the rest stay, in order, hull
   * recomputed; the arena is not reset while records remain. */
  w.rec[0].len = w.rec[1].len = 0;
  int64_t used = w.used;
  ostio__cache_wbuf_compact(&w, P);
  CHECK(w.nrec == 3 && w.used == used && w.rec[0].seq == 3 && w.rec[2].seq == 2);
  CHECK(w.lo == 3 * P + 8 && w.hi == 5 * P + 150);
  CHECK(!ostio__cache_wbuf_overlaps(&w, 2 * P, 4096));
  /* Fits counts what is used, also after a partial drain. */
  CHECK(!ostio__cache_wbuf_fits(&w, w.cap - used + 1, 1));
  CHECK(ostio__cache_wbuf_fits(&w, w.cap - used, 1));

  /* Everything drained: empty, arena reset. */
  for (size_t i = 0; i < w.nrec; i++) w.rec[i].len = 0;
  ostio__cache_wbuf_compact(&w, P);
  CHECK(w.nrec == 0 && w.used == 0 && !ostio__cache_wbuf_overlaps(&w, 0, INT64_MAX));

  /* Full by records before bytes: 64 one-byte writes. */
  for (int i = 0; i < 64; i++) {
    ostio__cache_piece p = pc(i, 0, 1, 0);
    CHECK(ostio__cache_wbuf_fits(&w, 1, 1));
    ostio__cache_wbuf_add(&w, &p, 0, i * P, src);
  }
  CHECK(!ostio__cache_wbuf_fits(&w, 1, 1));
  ostio__cache_wbuf_free(&w);
  CHECK(w.arena == NULL && w.cap == 0);
  return TEST_DONE();
}
