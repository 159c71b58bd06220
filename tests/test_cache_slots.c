/* The cache window's layout and slot rules (cache/cache_slots.c, issue 17):
 * sizes and displacements, the set hash's spread over an owner's pages, find,
 * the LRU victim with skipped ways, the dirty hull. No MPI. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache_slots.h"
#include "ostio.h"
#include "testutil.h"

static void layouts(void)
{
  ostio__cache_win_layout w;
  /* 64 MiB of 1 MiB pages: 7 sets (odd) of 8 ways. */
  CHECK(ostio__cache_win_layout_init(&w, 64, 1 << 20) == 0);
  CHECK_EQ_I64(w.ways, 8);
  CHECK_EQ_I64(w.nsets, 7);
  CHECK_EQ_I64(w.nslots, 56);
  CHECK_EQ_I64(w.set_bytes, 32 + 8 * 32);
  CHECK_EQ_I64(w.data_off, 4096); /* 7 x 288 bytes of sets, page-aligned data */
  CHECK_EQ_I64(w.bytes, 4096 + (INT64_C(56) << 20));
  CHECK(ostio__cache_win_layout_init(&w, 72, 1 << 20) == 0 && w.nsets == 9 && w.nslots == 72);
  CHECK_EQ_I64(ostio__cache_data_disp(&w, 3, 5), 4096 + (3 * 8 + 5) * (INT64_C(1) << 20));
  CHECK_EQ_I64(ostio__cache_set_disp(&w, 7), 7 * 288);
  /* Fewer pages than ways: one set. 10 pages: one set of 8 (2 unused); 16: still one. */
  CHECK(ostio__cache_win_layout_init(&w, 3, 65536) == 0);
  CHECK(w.ways == 3 && w.nsets == 1 && w.nslots == 3);
  CHECK(ostio__cache_win_layout_init(&w, 10, 65536) == 0);
  CHECK(w.ways == 8 && w.nsets == 1 && w.nslots == 8);
  CHECK(ostio__cache_win_layout_init(&w, 16, 65536) == 0);
  CHECK(w.ways == 8 && w.nsets == 1 && w.nslots == 8);
  /* Odd page sizes: data aligned to 64 bytes, never overlapping the sets. */
  CHECK(ostio__cache_win_layout_init(&w, 16, 1000) == 0);
  CHECK(w.data_off >= w.nsets * w.set_bytes && w.data_off % 64 == 0);
  /* Refused. */
  CHECK(ostio__cache_win_layout_init(&w, 0, 4096) == OSTIO_EINVAL);
  CHECK(ostio__cache_win_layout_init(&w, 4, 0) == OSTIO_EINVAL);
  CHECK(ostio__cache_win_layout_init(&w, INT64_C(1) << 40, INT64_C(1) << 30) == OSTIO_ERANGE);
  CHECK(strstr(ostio_last_error(), "ostio_cache_size") != NULL);
}

/* An owner holds every K-th page (stripe k of K objects, K a power of two,
 * or the objects a of K with a = owner mod naggr): a run of its pages must
 * fill every set evenly (counts differ by at most one). */
static void spread(void)
{
  ostio__cache_win_layout w;
  CHECK(ostio__cache_win_layout_init(&w, 512, 65536) == 0); /* 63 sets */
  CHECK(w.nsets == 63);
  for (int K = 1; K <= 64; K *= 2) {
    for (int first = 0; first < 3; first++) {
      int count[63] = {0};
      int64_t n = 63 * 5 + 17;
      for (int64_t i = 0; i < n; i++) {
        int64_t s = ostio__cache_set_of(&w, first + i * K);
        CHECK(s >= 0 && s < w.nsets);
        count[s]++;
      }
      for (int s = 0; s < 63; s++) CHECKF(count[s] == 5 || count[s] == 6, "K %d set %d: %d", K, s, count[s]);
    }
  }
  /* Objects {0, 2} of 4 (two aggregators): pages 0, 2, 4, ... as well. */
  CHECK(ostio__cache_win_layout_init(&w, 64, 1 << 20) == 0);
  int count[7] = {0};
  for (int64_t p = 0; p < 128; p += 2) count[ostio__cache_set_of(&w, p)]++;
  for (int s = 0; s < 7; s++) CHECK(count[s] >= 9 && count[s] <= 10);
  /* Huge page indices stay in range. */
  CHECK(ostio__cache_set_of(&w, INT64_MAX / 65536) < w.nsets);
}

static void slots(uint64_t seed)
{
  ostio__cache_slot s[8];
  for (int i = 0; i < 8; i++) s[i] = (ostio__cache_slot){.page = -1};
  CHECK(ostio__cache_set_find(s, 8, 5) == -1);
  CHECK(ostio__cache_set_victim(s, 8, 0) == 0);
  CHECK(ostio__cache_set_victim(s, 8, 1u) == 1); /* skip way 0 */
  for (int i = 0; i < 8; i++) s[i] = (ostio__cache_slot){.page = 10 + i, .stamp = 100 - i};
  CHECK(ostio__cache_set_find(s, 8, 13) == 3);
  CHECK(ostio__cache_set_victim(s, 8, 0) == 7);              /* oldest stamp */
  CHECK(ostio__cache_set_victim(s, 8, 1u << 7) == 6);        /* the next oldest */
  CHECK(ostio__cache_set_victim(s, 8, 0xffu) == -1);         /* all skipped */
  s[2].page = -1;
  CHECK(ostio__cache_set_victim(s, 8, 0) == 2);              /* empty first */
  /* Random: the victim is the minimum stamp among the ways not skipped. */
  srand((unsigned)seed);
  for (int t = 0; t < 2000; t++) {
    int ways = 1 + rand() % 8;
    unsigned skip = (unsigned)rand() & 0xffu;
    for (int i = 0; i < ways; i++) s[i] = (ostio__cache_slot){.page = i, .stamp = rand() % 50};
    int v = ostio__cache_set_victim(s, ways, skip), best = -1;
    for (int i = 0; i < ways; i++)
      if (!(skip & (1u << i)) && (best < 0 || s[i].stamp < s[best].stamp)) best = i;
    CHECK(v == best);
  }
  /* Dirty hull. */
  ostio__cache_slot d = {.page = 4};
  CHECK(!ostio__cache_slot_is_dirty(&d));
  ostio__cache_slot_dirty(&d, 100, 200);
  CHECK(ostio__cache_slot_is_dirty(&d) && d.dlo == 100 && d.dhi == 200);
  ostio__cache_slot_dirty(&d, 300, 400);
  CHECK(d.dlo == 100 && d.dhi == 400);
  ostio__cache_slot_dirty(&d, 0, 1);
  CHECK(d.dlo == 0 && d.dhi == 400);
  d.page = -1;
  CHECK(!ostio__cache_slot_is_dirty(&d)); /* an empty slot is never dirty */
}

int main(void)
{
  uint64_t seed = tu_seed(17);
  layouts();
  spread();
  slots(seed);
  return TEST_DONE();
}
