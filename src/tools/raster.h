/* An RGB raster (8 bits per channel, rows top to bottom) with the few
 * drawing operations the PNG chart needs: pixels, lines, filled discs and
 * text in a built-in 5x7 bitmap font (raster.c). Drawing outside the
 * raster is clipped. Used by pngplot.c. */
#ifndef OSTIO_TOOLS_RASTER_H
#define OSTIO_TOOLS_RASTER_H

#include <stdint.h>

typedef struct raster {
  int w, h;
  uint8_t *px;               /* w x h x 3 bytes: R, G, B                      */
} raster;

/* A w x h raster filled with rgb (0xRRGGBB): 0, or -1 out of memory or a
 * size outside 1 - 16384. Free with raster_free. */
int raster_init(raster *r, int w, int h, uint32_t rgb);
void raster_free(raster *r);
void raster_set(raster *r, int x, int y, uint32_t rgb);
/* 0xRRGGBB at (x, y); 0xFFFFFFFF outside the raster. */
uint32_t raster_get(const raster *r, int x, int y);
/* A line from (x0, y0) to (x1, y1), width pixels wide (a square brush). */
void raster_line(raster *r, int x0, int y0, int x1, int y1, int width, uint32_t rgb);
void raster_disc(raster *r, int cx, int cy, int radius, uint32_t rgb);

/* Text: glyphs of 5 x 7 cells, each cell scale x scale pixels, one empty
 * column between glyphs; printable ASCII (a character without a glyph is
 * drawn as a box). (x, y) is the top left corner of the first glyph; up:
 * rotated 90 degrees counter-clockwise, reading upwards from (x, y) as its
 * bottom left corner. */
#define RASTER_GLYPH_W 5
#define RASTER_GLYPH_H 7
void raster_text(raster *r, int x, int y, const char *s, int scale, int up, uint32_t rgb);
/* The width in pixels of s at scale. */
int raster_text_width(const char *s, int scale);

#endif
