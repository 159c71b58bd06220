/* pfs_crash_check FILE SEED ROUND DONE: FILE is the flattened log container that
 * log_crash_writer (tests/log_crash_writer.c) left when it was killed after its
 * side file said step DONE was synced. Every byte of steps 0..DONE must be there:
 * each offset holds the value of the last step <= DONE that wrote it, or of a
 * later step (written, maybe not synced, before the kill); offsets no step <= DONE
 * wrote hold zero or a later step's value. Exit 0 when so, 1 naming the offset. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

#define CF 65536
#define CSTEPS 4000

static uint8_t val(int64_t off, int s, int round)
{
  return (uint8_t)((uint64_t)(off * 131 + s * 31 + round * 57) % 251 + 1);
}

int main(int argc, char **argv)
{
  if (argc != 5) {
    fprintf(stderr, "usage: pfs_crash_check FILE SEED ROUND DONE\n");
    return 2;
  }
  uint64_t seed = strtoull(argv[2], NULL, 10);
  int round = atoi(argv[3]), done = atoi(argv[4]);
  static uint8_t got[CF];
  static int last[CF]; /* the last step <= done that wrote each offset, -1: none */
  static uint8_t later_ok[CF]; /* 1 when some later step's value matches */
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  size_t n = fread(got, 1, CF, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if (extra) {
    fprintf(stderr, "%s: longer than %d bytes\n", argv[1], CF);
    return 1;
  }
  for (int64_t i = 0; i < CF; i++) last[i] = -1;
  for (int s = 0; s < CSTEPS; s++) {
    tu_rng g;
    tu_rng_seed(&g, seed * 1000003 + (uint64_t)s);
    int64_t off = tu_rng_range(&g, 0, CF - 1), len = tu_rng_range(&g, 1, 3000);
    if (off + len > CF) len = CF - off;
    for (int64_t k = off; k < off + len; k++) {
      if (s <= done)
        last[k] = s;
      else if (k < (int64_t)n && got[k] == val(k, s, round))
        later_ok[k] = 1;
    }
  }
  int64_t synced = 0;
  for (int64_t k = 0; k < CF; k++) {
    uint8_t g = k < (int64_t)n ? got[k] : 0;
    if (last[k] >= 0) {
      synced++;
      if (g != val(k, last[k], round) && !later_ok[k]) {
        fprintf(stderr, "offset %lld: 0x%02x, step %d wrote 0x%02x (synced, done=%d)\n", (long long)k, g,
                last[k], val(k, last[k], round), done);
        return 1;
      }
    } else if (g != 0 && !later_ok[k]) {
      fprintf(stderr, "offset %lld: 0x%02x, written by no step\n", (long long)k, g);
      return 1;
    }
  }
  printf("ok: %lld synced bytes of steps 0..%d all there (%zu bytes read)\n", (long long)synced, done, n);
  return 0;
}
