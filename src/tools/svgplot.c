/* See svgplot.h. */
#include "tools/svgplot.h"

#include <string.h>

#define W 800.0
#define H 480.0
#define L 80.0   /* plot area: left, right, top, bottom margins */
#define R 170.0
#define T 50.0
#define B 60.0

/* Text with &, <, > escaped. */
static void text(FILE *f, const char *s)
{
  for (; s && *s; s++) {
    if (*s == '&') fputs("&amp;", f);
    else if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else fputc(*s, f);
  }
}

static double xpos(const chart *c, const chart_scale *s, double v)
{
  return L + chart_fx(c, s, v) * (W - L - R);
}

static double ypos(const chart_scale *s, double v) { return H - B - chart_fy(s, v) * (H - T - B); }

static void axes(FILE *f, const chart *c, const chart_scale *s)
{
  fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='black'/>\n", L, H - B, W - R, H - B);
  fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='black'/>\n", L, T, L, H - B);
  for (double v = 0; v <= s->top * 1.0001; v += s->step) {
    double y = ypos(s, v);
    fprintf(f, "<line x1='%g' y1='%.1f' x2='%g' y2='%.1f' stroke='#ddd'/>\n", L, y, W - R, y);
    fprintf(f, "<text x='%g' y='%.1f' text-anchor='end' font-size='12'>%g</text>\n", L - 6,
            y + 4, v);
  }
  for (int i = 0; i < c->nx; i++) {
    double x = xpos(c, s, c->x[i]);
    fprintf(f, "<line x1='%.1f' y1='%g' x2='%.1f' y2='%g' stroke='black'/>\n", x, H - B, x,
            H - B + 5);
    fprintf(f, "<text x='%.1f' y='%g' text-anchor='middle' font-size='12'>%g</text>\n", x,
            H - B + 20, c->x[i]);
  }
  fprintf(f, "<text x='%g' y='%g' text-anchor='middle' font-size='14'>", (L + W - R) / 2,
          H - 15);
  text(f, c->xlabel);
  fprintf(f, "</text>\n<text x='20' y='%g' text-anchor='middle' font-size='14' "
             "transform='rotate(-90 20 %g)'>", (T + H - B) / 2, (T + H - B) / 2);
  text(f, c->ylabel);
  fprintf(f, "</text>\n<text x='%g' y='28' text-anchor='middle' font-size='16'>", W / 2);
  text(f, c->title);
  fputs("</text>\n", f);
}

static void series(FILE *f, const chart *c, int k, const chart_scale *s)
{
  char col[8];
  snprintf(col, sizeof col, "#%06x", (unsigned)chart_colour(k));
  const double *y = c->y + (size_t)k * (size_t)c->nx;
  fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", col);
  for (int i = 0; i < c->nx; i++)
    if (y[i] >= 0) fprintf(f, "%.1f,%.1f ", xpos(c, s, c->x[i]), ypos(s, y[i]));
  fputs("'/>\n", f);
  for (int i = 0; i < c->nx; i++)
    if (y[i] >= 0)
      fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>\n", xpos(c, s, c->x[i]),
              ypos(s, y[i]), col);
  double ly = T + 10 + 22.0 * k;
  fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='%s' stroke-width='2'/>\n",
          W - R + 15, ly, W - R + 40, ly, col);
  fprintf(f, "<text x='%g' y='%g' font-size='13'>", W - R + 46, ly + 4);
  text(f, c->names[k]);
  fputs("</text>\n", f);
}

int svg_plot(FILE *f, const chart *c)
{
  chart_scale s;
  if (chart_scale_of(c, &s) < 0) return -1;
  fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n"
             "<svg xmlns='http://www.w3.org/2000/svg' width='%g' height='%g' "
             "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
          W, H);
  axes(f, c, &s);
  for (int k = 0; k < c->nseries; k++) series(f, c, k, &s);
  fputs("</svg>\n", f);
  return 0;
}
