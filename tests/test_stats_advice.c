/* The statistics report's warnings (stats/stats_advice.h): each rule fires
 * at its threshold and not below it, names its figures and the remedy, and
 * the text and JSON reports carry them. No MPI. */
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "stats/stats_advice.h"
#include "testutil.h"

static int kinds(const ostio__stats_reduced *r, int64_t stripe, char *out, size_t cap)
{
  ostio__stats_warning w[OSTIO__STATS_NWARN];
  int n = ostio__stats_warnings(r, stripe, w, OSTIO__STATS_NWARN);
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    strncat(out, w[i].kind, cap - strlen(out) - 1);
    strncat(out, " ", cap - strlen(out) - 1);
    CHECKF(strlen(w[i].text) > 40 && strlen(w[i].text) < sizeof w[i].text - 1,
           "%s: text of %zu bytes", w[i].kind, strlen(w[i].text));
  }
  return n;
}

int main(void)
{
  ostio__stats_reduced r;
  char k[256];
  ostio__stats_reduced_init(&r);
  r.nprocs = 4;
  CHECK(kinds(&r, 1 << 20, k, sizeof k) == 0); /* nothing happened: no warning */

  /* Small writes: 1,024 writes of 4 KiB fire, 1,023 do not, 64 KiB do not. */
  r.sum[OSTIO__STAT_sys_writes] = 1024;
  r.sum[OSTIO__STAT_bytes_written] = 1024 * 4096;
  r.sum[OSTIO__STAT_stripe_aligned_writes] = 1024; /* aligned */
  CHECK(kinds(&r, 4096, k, sizeof k) == 1 && !strcmp(k, "small_writes "));
  ostio__stats_warning w[OSTIO__STATS_NWARN];
  CHECK(ostio__stats_warnings(&r, 4096, w, 4) == 1);
  CHECK(strstr(w[0].text, "1024 system writes of 4096 bytes") != NULL);
  CHECK(strstr(w[0].text, "ostio_cache=enable") != NULL);
  r.sum[OSTIO__STAT_sys_writes] = 1023;
  CHECK(kinds(&r, 4096, k, sizeof k) == 0);
  r.sum[OSTIO__STAT_sys_writes] = 1024;
  r.sum[OSTIO__STAT_bytes_written] = (int64_t)1024 * 65536;
  CHECK(kinds(&r, 65536, k, sizeof k) == 0);

  /* Unaligned: under half on a boundary fires; half does not; an unknown
   * stripe size (0) never does. */
  r.sum[OSTIO__STAT_stripe_aligned_writes] = 511;
  CHECK(kinds(&r, 65536, k, sizeof k) == 1 && !strcmp(k, "unaligned_writes "));
  CHECK(ostio__stats_warnings(&r, 65536, w, 4) == 1 && strstr(w[0].text, "513 of 1024") &&
        strstr(w[0].text, "stripe size 65536"));
  CHECK(kinds(&r, 0, k, sizeof k) == 0);
  r.sum[OSTIO__STAT_stripe_aligned_writes] = 512;
  CHECK(kinds(&r, 65536, k, sizeof k) == 0);
  r.sum[OSTIO__STAT_sys_writes] = 63; /* too few to judge */
  r.sum[OSTIO__STAT_stripe_aligned_writes] = 0;
  CHECK(kinds(&r, 65536, k, sizeof k) == 0);

  /* Objects per aggregator and read-modify-write. */
  r.max[OSTIO__STAT_objects_max] = 1;
  CHECK(kinds(&r, 65536, k, sizeof k) == 0);
  r.max[OSTIO__STAT_objects_max] = 8;
  r.max[OSTIO__STAT_osts_max] = 8;
  r.sum[OSTIO__STAT_rmw] = 3;
  CHECK(kinds(&r, 65536, k, sizeof k) == 2 && !strcmp(k, "objects_per_aggregator rmw "));
  CHECK(ostio__stats_warnings(&r, 65536, w, 4) == 2 && strstr(w[0].text, "8 objects (8 OSTs)") &&
        strstr(w[0].text, "ostio_strategy=ost") && strstr(w[1].text, "3 read-modify-write"));
  /* cap bounds the list. */
  CHECK(ostio__stats_warnings(&r, 65536, w, 1) == 1 && !strcmp(w[0].kind, "objects_per_aggregator"));

  /* The reports carry them. */
  ostio__stats_info info = {.path = "f", .nprocs = 4, .stripe_count = 8, .stripe_size = 65536,
                            .ncomponents = 1, .layout_source = "emulated", .strategy = "even"};
  char *text = NULL, *json = NULL;
  CHECK(ostio__stats_format_text(&r, &info, &text) == 0);
  CHECK(text && strstr(text, "  warning: one aggregator wrote 8 objects") &&
        strstr(text, "warning: 3 read-modify-write") && strstr(text, "ostio advise"));
  CHECK(ostio__stats_format_json(&r, &info, &json) == 0);
  CHECK(json && strstr(json, "\"warnings\": [{\"kind\": \"objects_per_aggregator\", \"text\": "));
  free(text);
  free(json);
  ostio__stats_reduced_init(&r);
  CHECK(ostio__stats_format_json(&r, &info, &json) == 0);
  CHECK(json && strstr(json, "\"warnings\": []"));
  free(json);
  return TEST_DONE();
}
