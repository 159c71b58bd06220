/* The PNG of `ostio model --plot` (src/tools/pngwriter.c, pngplot.c,
 * raster.c): the checksums against their published check values; a chart
 * written to a file and decoded back here: the signature, IHDR (13 bytes,
 * 800 x 480, 8-bit RGB), every chunk's CRC, the zlib header, every stored
 * deflate block (BTYPE 00, LEN and NLEN), the Adler-32 of the data, one
 * filter byte 0 per row; then pixels: white background, each series'
 * colour at its data points and in the legend, black axes and text, the
 * font's glyphs; and the refusals. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tools/pngplot.h"
#include "tools/pngwriter.h"

static uint32_t be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The file f holds, read whole. */
static uint8_t *slurp(FILE *f, size_t *n)
{
  long end = (fseek(f, 0, SEEK_END), ftell(f));
  rewind(f);
  uint8_t *buf = end > 0 ? malloc((size_t)end) : NULL;
  *n = buf && fread(buf, 1, (size_t)end, f) == (size_t)end ? (size_t)end : 0;
  return buf;
}

/* The image decoded from a stored-block PNG: w x h x 3 bytes, or NULL
 * with a failed check saying what was wrong. */
static uint8_t *decode(const uint8_t *png, size_t n, int *w, int *h)
{
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (!CHECK(n > 8 && !memcmp(png, sig, 8))) return NULL;
  uint8_t *z = malloc(n), *img = NULL;
  size_t zn = 0, pos = 8;
  int chunks = 0, iend = 0;
  while (z && pos + 12 <= n && !iend) {
    uint32_t len = be32(png + pos);
    const uint8_t *type = png + pos + 4, *data = png + pos + 8;
    if (!CHECKF(pos + 12 + len <= n, "chunk %d runs past the file", chunks)) break;
    CHECKF(png_crc32(0, type, 4 + len) == be32(data + len), "chunk %.4s CRC", (const char *)type);
    if (chunks == 0) {
      CHECK(!memcmp(type, "IHDR", 4));
      CHECK_EQ_I64(len, 13);
      *w = (int)be32(data);
      *h = (int)be32(data + 4);
      CHECK(data[8] == 8 && data[9] == 2 && data[10] == 0 && data[11] == 0 && data[12] == 0);
    } else if (!memcmp(type, "IDAT", 4)) {
      memcpy(z + zn, data, len);
      zn += len;
    }
    iend = !memcmp(type, "IEND", 4);
    chunks++;
    pos += 12 + len;
  }
  CHECK(iend && pos == n);
  size_t row = 1 + 3 * (size_t)*w, raw_n = row * (size_t)*h, got = 0;
  uint8_t *raw = z && CHECK(zn >= 6 && *w == PNGPLOT_W && *h == PNGPLOT_H) ? malloc(raw_n) : NULL;
  if (raw) {
    CHECK((z[0] & 0x0F) == 8 && (z[0] * 256 + z[1]) % 31 == 0 && !(z[1] & 0x20));
    size_t k = 2;
    int last = 0, blocks = 0;
    while (!last && k + 5 <= zn) {
      last = z[k] & 1;
      CHECKF((z[k] >> 1 & 3) == 0, "block %d is not stored", blocks);
      size_t len = z[k + 1] | (size_t)z[k + 2] << 8, nlen = z[k + 3] | (size_t)z[k + 4] << 8;
      CHECKF(nlen == (~len & 0xFFFF), "block %d: LEN %zu NLEN %zu", blocks, len, nlen);
      if (!CHECK(k + 5 + len <= zn && got + len <= raw_n)) break;
      memcpy(raw + got, z + k + 5, len);
      got += len;
      k += 5 + len;
      blocks++;
    }
    CHECK(last && got == raw_n && k + 4 == zn);
    CHECKF(blocks == (int)((raw_n + 65534) / 65535), "%d stored blocks", blocks);
    if (k + 4 <= zn) CHECK(be32(z + k) == png_adler32(1, raw, got));
  }
  if (raw && got == raw_n && (img = malloc((size_t)*w * (size_t)*h * 3))) {
    for (int y = 0; y < *h; y++) {
      CHECKF(raw[y * row] == 0, "row %d filter %d", y, raw[y * row]);
      memcpy(img + (size_t)y * (size_t)*w * 3, raw + y * row + 1, row - 1);
    }
  }
  free(raw);
  free(z);
  return img;
}

static uint32_t at(const uint8_t *img, int w, int x, int y)
{
  const uint8_t *p = img + ((size_t)y * (size_t)w + (size_t)x) * 3;
  return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static long count(const uint8_t *img, int w, int x0, int y0, int x1, int y1, uint32_t rgb)
{
  long c = 0;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) c += at(img, w, x, y) == rgb;
  return c;
}

static void checksums(void)
{
  CHECK(png_crc32(0, "123456789", 9) == 0xCBF43926u);
  CHECK(png_crc32(png_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u);
  CHECK(png_crc32(0, "", 0) == 0);
  CHECK(png_adler32(1, "Wikipedia", 9) == 0x11E60398u);
  CHECK(png_adler32(1, "", 0) == 1);
  /* past the 5,552-byte run where the sums are reduced */
  uint8_t *big = malloc(100000);
  if (big) {
    memset(big, 0xFF, 100000);
    uint32_t s1 = 1, s2 = 0;
    for (int i = 0; i < 100000; i++) {
      s1 = (s1 + 0xFF) % 65521;
      s2 = (s2 + s1) % 65521;
    }
    CHECK(png_adler32(1, big, 100000) == (s2 << 16 | s1));
    free(big);
  }
}

static void chart_png(void)
{
  static const double x[] = {4, 16, 64};
  static const double y[] = {50, 100, 25, /* ost */ 10, 20, -1 /* no point */};
  static const char *const names[] = {"ost", "independent"};
  chart c = {.title = "test: ior pattern", .xlabel = "ranks", .ylabel = "MB/s", .nx = 3,
             .x = x, .nseries = 2, .names = names, .y = y, .logx = 1};
  FILE *f = tmpfile();
  if (!CHECK(f)) return;
  CHECK(png_plot(f, &c) == 0);
  size_t n = 0;
  uint8_t *png = slurp(f, &n);
  fclose(f);
  CHECKF(n > (size_t)PNGPLOT_W * PNGPLOT_H * 3, "%zu bytes", n);
  int w = 0, h = 0;
  uint8_t *img = png ? decode(png, n, &w, &h) : NULL;
  free(png);
  if (!CHECK(img)) return;
  uint32_t blue = chart_colour(0), red = chart_colour(1);
  CHECK(blue == 0x1f77b4 && red == 0xd62728);
  CHECK(at(img, w, 0, 0) == 0xFFFFFF && at(img, w, w - 1, h - 1) == 0xFFFFFF);
  CHECK(at(img, w, PNGPLOT_L + (w - PNGPLOT_L - PNGPLOT_R) * 3 / 4, PNGPLOT_T + 5) == 0xFFFFFF);
  /* top = 100 (ticks of 20); x on a log-2 axis: 4, 16, 64 at 0, 0.5, 1 */
  int span = w - PNGPLOT_L - PNGPLOT_R, tall = h - PNGPLOT_T - PNGPLOT_B;
  CHECK(at(img, w, PNGPLOT_L, h - PNGPLOT_B - tall / 2) == blue);          /* (4, 50)  */
  CHECK(at(img, w, PNGPLOT_L + span / 2, PNGPLOT_T) == blue);              /* (16, 100) */
  CHECK(at(img, w, PNGPLOT_L + span, h - PNGPLOT_B - tall / 4) == blue);   /* (64, 25) */
  CHECK(at(img, w, PNGPLOT_L + span / 2, h - PNGPLOT_B - tall / 5) == red); /* (16, 20) */
  /* the line between two points: its midpoint */
  CHECK(at(img, w, PNGPLOT_L + span / 4, h - PNGPLOT_B - tall * 3 / 4) == blue);
  /* the missing point: nothing red right of x = 16 in the plot area */
  CHECK(count(img, w, PNGPLOT_L + span / 2 + 6, PNGPLOT_T, w - PNGPLOT_R, h - PNGPLOT_B, red) == 0);
  CHECK(count(img, w, PNGPLOT_L, PNGPLOT_T, w - PNGPLOT_R, h - PNGPLOT_B, red) > 100);
  /* the legend: a line of each colour and black text beside it */
  CHECK(count(img, w, w - PNGPLOT_R, PNGPLOT_T, w, PNGPLOT_T + 20, blue) >= 25 * 3);
  CHECK(count(img, w, w - PNGPLOT_R, PNGPLOT_T + 22, w, PNGPLOT_T + 42, red) >= 25 * 3);
  CHECK(count(img, w, w - PNGPLOT_R + 46, PNGPLOT_T, w, PNGPLOT_T + 42, 0) > 50);
  /* the axes: black along the bottom and the left of the plot area */
  CHECK(count(img, w, PNGPLOT_L, h - PNGPLOT_B, w - PNGPLOT_R, h - PNGPLOT_B + 1, 0) ==
        span);
  CHECK(count(img, w, PNGPLOT_L, PNGPLOT_T, PNGPLOT_L + 1, h - PNGPLOT_B, 0) >= tall - 20);
  /* tick labels and title: black pixels left of the axis and above the area */
  CHECK(count(img, w, 0, PNGPLOT_T - 10, PNGPLOT_L - 4, h - PNGPLOT_B, 0) > 100);
  CHECK(count(img, w, 0, 0, w, PNGPLOT_T - 10, 0) > 100);
  free(img);
}

static void font(void)
{
  raster r;
  if (!CHECK(raster_init(&r, 40, 20, 0xFFFFFF) == 0)) return;
  CHECK_EQ_I64(raster_text_width("ab", 2), (2 * 6 - 1) * 2);
  CHECK_EQ_I64(raster_text_width("", 2), 0);
  /* "1": .#..#.. column 2 set in every row but one; the bottom row .###. */
  raster_text(&r, 0, 0, "1", 1, 0, 0);
  CHECK(raster_get(&r, 2, 0) == 0 && raster_get(&r, 2, 6) == 0 && raster_get(&r, 0, 0) == 0xFFFFFF);
  CHECK(raster_get(&r, 1, 6) == 0 && raster_get(&r, 3, 6) == 0 && raster_get(&r, 0, 6) == 0xFFFFFF);
  /* a character without a glyph: a box (corners and edges set, centre clear) */
  raster_text(&r, 10, 0, "\x01", 1, 0, 0x123456);
  CHECK(raster_get(&r, 10, 0) == 0x123456 && raster_get(&r, 14, 6) == 0x123456);
  CHECK(raster_get(&r, 12, 3) == 0xFFFFFF);
  /* upwards: "-" (the middle row) becomes a vertical bar at x + 3 */
  raster_text(&r, 20, 10, "-", 1, 1, 0xFF0000);
  for (int i = 0; i < 5; i++) CHECK(raster_get(&r, 23, 10 - i) == 0xFF0000);
  CHECK(raster_get(&r, 22, 8) == 0xFFFFFF);
  CHECK(raster_get(&r, -1, 0) == 0xFFFFFFFFu && raster_get(&r, 40, 0) == 0xFFFFFFFFu);
  raster_set(&r, 100, 100, 0); /* clipped, no write */
  raster_free(&r);
  CHECK(raster_init(&r, 0, 10, 0) == -1);
}

static void refusals(void)
{
  static const double x[] = {0, 1};
  static const double y[] = {1, 2};
  static const char *const names[] = {"a"};
  chart c = {.nx = 0, .x = x, .nseries = 1, .names = names, .y = y};
  raster r;
  CHECK(png_chart_draw(&c, &r) == -1 && r.px == NULL);
  c.nx = 2;
  c.logx = 1; /* x = 0 on a log axis */
  FILE *f = tmpfile();
  CHECK(f && png_plot(f, &c) == -1);
  if (f) fclose(f);
  uint8_t px[3] = {0};
  CHECK(png_write_rgb(stdout, px, 0, 1) == -1 && png_write_rgb(stdout, px, 1, 16385) == -1);
}

int main(void)
{
  checksums();
  chart_png();
  font();
  refusals();
  return TEST_DONE();
}
