/* See pngwriter.h. */
#include "tools/pngwriter.h"

#include <stdlib.h>
#include <string.h>

#define STORED_MAX 65535 /* the most bytes one stored block holds */

uint32_t png_crc32(uint32_t crc, const void *data, size_t n)
{
  static uint32_t table[256];
  static int ready;
  if (!ready) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = 1;
  }
  const uint8_t *p = data;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

uint32_t png_adler32(uint32_t a, const void *data, size_t n)
{
  const uint8_t *p = data;
  uint32_t s1 = a & 0xFFFF, s2 = a >> 16;
  while (n > 0) {
    size_t run = n < 5552 ? n : 5552; /* the most sums before s2 could pass 2^32 */
    for (size_t i = 0; i < run; i++) {
      s1 += p[i];
      s2 += s1;
    }
    s1 %= 65521;
    s2 %= 65521;
    p += run;
    n -= run;
  }
  return s2 << 16 | s1;
}

static void be32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* One chunk: length, type, data, CRC of type and data. */
static int chunk(FILE *f, const char *type, const uint8_t *data, size_t n)
{
  uint8_t head[8], tail[4];
  be32(head, (uint32_t)n);
  memcpy(head + 4, type, 4);
  be32(tail, png_crc32(png_crc32(0, type, 4), data, n));
  return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
                 fwrite(tail, 1, 4, f) == 4
             ? 0
             : -1;
}

int png_write_rgb(FILE *f, const uint8_t *rgb, int w, int h)
{
  if (w < 1 || h < 1 || w > 16384 || h > 16384) return -1;
  size_t row = 1 + 3 * (size_t)w, raw = row * (size_t)h;
  size_t nblocks = (raw + STORED_MAX - 1) / STORED_MAX;
  uint8_t *z = malloc(2 + raw + 5 * nblocks + 4);
  if (!z) return -1;
  /* zlib header: deflate with a 32 KiB window, no dictionary, FCHECK so that
   * 0x78 * 256 + 0x01 is a multiple of 31. */
  size_t k = 0;
  z[k++] = 0x78;
  z[k++] = 0x01;
  uint32_t adler = 1;
  size_t left = raw, pos = 0; /* pos: offset in the filtered image */
  while (left > 0) {
    size_t len = left < STORED_MAX ? left : STORED_MAX;
    z[k++] = left == len; /* BFINAL on the last block, BTYPE 00: stored */
    z[k++] = (uint8_t)len;
    z[k++] = (uint8_t)(len >> 8);
    z[k++] = (uint8_t)~len;
    z[k++] = (uint8_t)(~len >> 8);
    for (size_t i = 0; i < len; i++, pos++) {
      size_t y = pos / row, x = pos % row;
      /* each row: filter type 0 (none), then its pixels */
      z[k + i] = x == 0 ? 0 : rgb[y * 3 * (size_t)w + x - 1];
    }
    adler = png_adler32(adler, z + k, len);
    k += len;
    left -= len;
  }
  be32(z + k, adler);
  k += 4;
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  uint8_t ihdr[13];
  be32(ihdr, (uint32_t)w);
  be32(ihdr + 4, (uint32_t)h);
  ihdr[8] = 8;  /* bits per channel */
  ihdr[9] = 2;  /* colour type: RGB */
  ihdr[10] = 0; /* compression: deflate */
  ihdr[11] = 0; /* filter method 0 */
  ihdr[12] = 0; /* not interlaced */
  int rc = fwrite(sig, 1, 8, f) == 8 && chunk(f, "IHDR", ihdr, sizeof ihdr) == 0 &&
                   chunk(f, "IDAT", z, k) == 0 && chunk(f, "IEND", NULL, 0) == 0
               ? 0
               : -1;
  free(z);
  return rc;
}
