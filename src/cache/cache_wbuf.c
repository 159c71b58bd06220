/* See cache_wbuf.h. */
#include "cache/cache_wbuf.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define MAX_BYTES ((int64_t)4 << 20)
#define MIN_BYTES ((int64_t)4 << 10)
#define BYTES_PER_REC 1024
#define SHIP_MAX_BYTES ((int64_t)1 << 30)

int64_t ostio__cache_wbuf_bytes(int64_t cache_size)
{
  int64_t b = cache_size / 16;
  if (b > MAX_BYTES) b = MAX_BYTES;
  return b < MIN_BYTES ? 0 : b;
}

int64_t ostio__cache_wbuf_bytes_shipping(int64_t cache_size)
{
  int64_t b = cache_size > SHIP_MAX_BYTES ? SHIP_MAX_BYTES : cache_size;
  return b < MIN_BYTES ? 0 : b;
}

int ostio__cache_wbuf_init(ostio__cache_wbuf *w, int64_t bytes)
{
  memset(w, 0, sizeof *w);
  if (bytes <= 0) return 0;
  size_t recs = (size_t)(bytes / BYTES_PER_REC);
  if (recs < 16) recs = 16;
  w->arena = malloc((size_t)bytes);
  w->rec = malloc(recs * sizeof *w->rec);
  if (!w->arena || !w->rec) {
    ostio__cache_wbuf_free(w);
    return ostio__fail(OSTIO_ENOMEM, "cache: out of memory for a write-behind buffer of %lld "
                       "bytes; lower ostio_cache_size", (long long)bytes);
  }
  w->cap = bytes;
  w->caprec = recs;
  return 0;
}

void ostio__cache_wbuf_free(ostio__cache_wbuf *w)
{
  free(w->arena);
  free(w->rec);
  memset(w, 0, sizeof *w);
}

int64_t ostio__cache_wbuf_memory(const ostio__cache_wbuf *w)
{
  return w->cap + (int64_t)(w->caprec * sizeof *w->rec);
}

int ostio__cache_wbuf_takes(const ostio__cache_wbuf *w, int64_t len, size_t npieces)
{
  return w->cap > 0 && len > 0 && len <= w->cap / 4 && npieces <= w->caprec / 4;
}

int ostio__cache_wbuf_fits(const ostio__cache_wbuf *w, int64_t len, size_t npieces)
{
  return len <= w->cap - w->used && npieces <= w->caprec - w->nrec;
}

/* Adds [off, off+len) (len > 0) to the hull of the buffered bytes. */
static void widen(ostio__cache_wbuf *w, int64_t off, int64_t len)
{
  if (w->lo >= w->hi) {
    w->lo = off;
    w->hi = off + len;
  } else {
    if (off < w->lo) w->lo = off;
    if (off + len > w->hi) w->hi = off + len;
  }
}

void ostio__cache_wbuf_add(ostio__cache_wbuf *w, const ostio__cache_piece *p, int64_t set,
                           int64_t off, const void *src)
{
  ostio__cache_wrec *r = &w->rec[w->nrec++];
  *r = (ostio__cache_wrec){.page = p->page, .in_page = p->in_page, .len = p->len,
                           .at = w->used, .set = set, .seq = w->seq++, .owner = p->owner};
  memcpy(w->arena + w->used, src, (size_t)p->len);
  w->used += p->len;
  widen(w, off, p->len);
}

int ostio__cache_wbuf_overlaps(const ostio__cache_wbuf *w, int64_t off, int64_t len)
{
  return w->lo < w->hi && len > 0 && off < w->hi && w->lo - off < len;
}

static int by_page(const void *a, const void *b)
{
  const ostio__cache_wrec *x = a, *y = b;
  if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
  if (x->set != y->set) return x->set < y->set ? -1 : 1;
  if (x->page != y->page) return x->page < y->page ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void ostio__cache_wrec_order(ostio__cache_wrec *rec, size_t n)
{
  if (n > 1) qsort(rec, n, sizeof *rec, by_page);
}

void ostio__cache_wbuf_order(ostio__cache_wbuf *w) { ostio__cache_wrec_order(w->rec, w->nrec); }

void ostio__cache_wbuf_compact(ostio__cache_wbuf *w, int64_t page_bytes)
{
  size_t k = 0;
  w->lo = w->hi = 0;
  for (size_t i = 0; i < w->nrec; i++) {
    const ostio__cache_wrec *r = &w->rec[i];
    if (r->len <= 0) continue;
    widen(w, r->page * page_bytes + r->in_page, r->len);
    w->rec[k++] = *r;
  }
  w->nrec = k;
  if (k == 0) w->used = 0;
}
