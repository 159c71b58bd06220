/* See pngplot.h. */
#include "tools/pngplot.h"

#include <math.h>

#include "tools/pngwriter.h"

#define W PNGPLOT_W
#define H PNGPLOT_H
#define L PNGPLOT_L
#define R PNGPLOT_R
#define T PNGPLOT_T
#define B PNGPLOT_B
#define SCALE 2 /* the font's cells are 2 x 2 pixels: glyphs 10 x 14 */
#define BLACK 0x000000u
#define GRID 0xddddddu
#define WHITE 0xffffffu

static int px(const chart *c, const chart_scale *s, double v)
{
  return (int)lround(L + chart_fx(c, s, v) * (W - L - R));
}

static int py(const chart_scale *s, double v)
{
  return (int)lround(H - B - chart_fy(s, v) * (H - T - B));
}

static void centred(raster *r, int x, int y, const char *t)
{
  int w = raster_text_width(t, SCALE);
  raster_text(r, w < W ? x - w / 2 : 4, y, t, SCALE, 0, BLACK);
}

static void axes(raster *r, const chart *c, const chart_scale *s)
{
  char label[32];
  int th = RASTER_GLYPH_H * SCALE;
  for (double v = 0; v <= s->top * 1.0001; v += s->step) {
    int y = py(s, v);
    if (v > 0) raster_line(r, L + 1, y, W - R, y, 1, GRID);
    snprintf(label, sizeof label, "%g", v);
    raster_text(r, L - 8 - raster_text_width(label, SCALE), y - th / 2, label, SCALE, 0, BLACK);
  }
  raster_line(r, L, H - B, W - R, H - B, 1, BLACK);
  raster_line(r, L, T, L, H - B, 1, BLACK);
  for (int i = 0; i < c->nx; i++) {
    int x = px(c, s, c->x[i]);
    raster_line(r, x, H - B, x, H - B + 5, 1, BLACK);
    snprintf(label, sizeof label, "%g", c->x[i]);
    centred(r, x, H - B + 10, label);
  }
  if (c->xlabel) centred(r, (L + W - R) / 2, H - th - 6, c->xlabel);
  if (c->ylabel)
    raster_text(r, 6, (T + H - B) / 2 + raster_text_width(c->ylabel, SCALE) / 2, c->ylabel,
                SCALE, 1, BLACK);
  if (c->title) centred(r, W / 2, 14, c->title);
}

static void series(raster *r, const chart *c, int k, const chart_scale *s)
{
  uint32_t col = chart_colour(k);
  const double *y = c->y + (size_t)k * (size_t)c->nx;
  int have = 0, x0 = 0, y0 = 0;
  for (int i = 0; i < c->nx; i++) {
    if (y[i] < 0) continue;
    int x1 = px(c, s, c->x[i]), y1 = py(s, y[i]);
    if (have) raster_line(r, x0, y0, x1, y1, 3, col);
    x0 = x1;
    y0 = y1;
    have = 1;
  }
  for (int i = 0; i < c->nx; i++)
    if (y[i] >= 0) raster_disc(r, px(c, s, c->x[i]), py(s, y[i]), 4, col);
  int ly = T + 10 + 22 * k;
  raster_line(r, W - R + 15, ly, W - R + 40, ly, 3, col);
  raster_text(r, W - R + 46, ly - RASTER_GLYPH_H * SCALE / 2, c->names[k], SCALE, 0, BLACK);
}

int png_chart_draw(const chart *c, raster *r)
{
  chart_scale s;
  *r = (raster){0};
  if (chart_scale_of(c, &s) < 0 || raster_init(r, W, H, WHITE) < 0) return -1;
  axes(r, c, &s);
  for (int k = 0; k < c->nseries; k++) series(r, c, k, &s);
  return 0;
}

int png_plot(FILE *f, const chart *c)
{
  raster r;
  int rc = png_chart_draw(c, &r);
  if (rc == 0) rc = png_write_rgb(f, r.px, r.w, r.h);
  raster_free(&r);
  return rc;
}
