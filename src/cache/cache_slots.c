/* The cache window's layout and slot rules. See cache_slots.h. Pure. */
#include "cache/cache_slots.h"

#include <inttypes.h>

#include "core/error.h"

int ostio__cache_win_layout_init(ostio__cache_win_layout *w, int64_t pool_pages, int64_t page)
{
  if (pool_pages < 1 || page < 1)
    return ostio__fail(OSTIO_EINVAL, "cache window: %" PRId64 " pages of %" PRId64 " bytes; "
                       "expected at least one page of at least one byte", pool_pages, page);
  int64_t ways = pool_pages < OSTIO__CACHE_WAYS ? pool_pages : OSTIO__CACHE_WAYS;
  /* An odd number of sets: an owner's pages are every K-th stripe (K a
   * power of two, usually), so page mod nsets visits every set in turn. */
  int64_t nsets = pool_pages / ways;
  if (nsets > 1 && nsets % 2 == 0) nsets--;
  int64_t nslots = nsets * ways;
  int64_t set_bytes = (int64_t)sizeof(ostio__cache_set_head) +
                      ways * (int64_t)sizeof(ostio__cache_slot);
  const int64_t limit = INT64_C(1) << 62;
  if (nsets > limit / set_bytes || nslots > limit / page)
    return ostio__fail(OSTIO_ERANGE, "cache window: %" PRId64 " pages of %" PRId64 " bytes do "
                       "not fit in one window; lower ostio_cache_size", pool_pages, page);
  int64_t meta = nsets * set_bytes, align = page % 4096 == 0 ? 4096 : 64;
  int64_t data_off = (meta + align - 1) / align * align;
  if (data_off > limit - nslots * page)
    return ostio__fail(OSTIO_ERANGE, "cache window: %" PRId64 " pages of %" PRId64 " bytes do "
                       "not fit in one window; lower ostio_cache_size", pool_pages, page);
  *w = (ostio__cache_win_layout){.page = page, .ways = ways, .nsets = nsets, .nslots = nslots,
                                 .set_bytes = set_bytes, .data_off = data_off,
                                 .bytes = data_off + nslots * page};
  return 0;
}

int64_t ostio__cache_set_of(const ostio__cache_win_layout *w, int64_t page)
{
  return page % w->nsets;
}

int64_t ostio__cache_set_disp(const ostio__cache_win_layout *w, int64_t set)
{
  return set * w->set_bytes;
}

int64_t ostio__cache_data_disp(const ostio__cache_win_layout *w, int64_t set, int64_t way)
{
  return w->data_off + (set * w->ways + way) * w->page;
}

int ostio__cache_set_find(const ostio__cache_slot *s, int ways, int64_t page)
{
  for (int i = 0; i < ways; i++)
    if (s[i].page == page) return i;
  return -1;
}

int ostio__cache_set_victim(const ostio__cache_slot *s, int ways, unsigned skip)
{
  int best = -1;
  for (int i = 0; i < ways; i++) {
    if (skip & (1u << i)) continue;
    if (s[i].page < 0) return i;
    if (best < 0 || s[i].stamp < s[best].stamp) best = i;
  }
  return best;
}

void ostio__cache_slot_dirty(ostio__cache_slot *s, int64_t lo, int64_t hi)
{
  if (s->dlo >= s->dhi) {
    s->dlo = lo;
    s->dhi = hi;
    return;
  }
  if (lo < s->dlo) s->dlo = lo;
  if (hi > s->dhi) s->dhi = hi;
}

int ostio__cache_slot_is_dirty(const ostio__cache_slot *s)
{
  return s->page >= 0 && s->dlo < s->dhi;
}
