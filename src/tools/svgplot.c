/* See svgplot.h. */
#include "tools/svgplot.h"

#include <math.h>
#include <string.h>

#define W 800.0
#define H 480.0
#define L 80.0   /* plot area: left, right, top, bottom margins */
#define R 170.0
#define T 50.0
#define B 60.0

static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                     "#8c564b", "#e377c2", "#7f7f7f"};

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

/* A round step giving about n ticks over [0, top]. */
static double nice_step(double top, int n)
{
  double raw = top / n, mag = pow(10, floor(log10(raw))), r = raw / mag;
  return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

static double xpos(const svg_chart *c, double v, double lo, double hi)
{
  double a = c->logx ? log2(v) : v, l = c->logx ? log2(lo) : lo, h = c->logx ? log2(hi) : hi;
  return L + (h > l ? (a - l) / (h - l) : 0.5) * (W - L - R);
}

static double ypos(double v, double top) { return H - B - v / top * (H - T - B); }

static void axes(FILE *f, const svg_chart *c, double lo, double hi, double top, double step)
{
  fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='black'/>\n", L, H - B, W - R, H - B);
  fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='black'/>\n", L, T, L, H - B);
  for (double v = 0; v <= top * 1.0001; v += step) {
    double y = ypos(v, top);
    fprintf(f, "<line x1='%g' y1='%.1f' x2='%g' y2='%.1f' stroke='#ddd'/>\n", L, y, W - R, y);
    fprintf(f, "<text x='%g' y='%.1f' text-anchor='end' font-size='12'>%g</text>\n", L - 6,
            y + 4, v);
  }
  for (int i = 0; i < c->nx; i++) {
    double x = xpos(c, c->x[i], lo, hi);
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

static void series(FILE *f, const svg_chart *c, int s, double lo, double hi, double top)
{
  const char *col = colour[s % (int)(sizeof colour / sizeof *colour)];
  const double *y = c->y + (size_t)s * (size_t)c->nx;
  fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", col);
  for (int i = 0; i < c->nx; i++)
    if (y[i] >= 0) fprintf(f, "%.1f,%.1f ", xpos(c, c->x[i], lo, hi), ypos(y[i], top));
  fputs("'/>\n", f);
  for (int i = 0; i < c->nx; i++)
    if (y[i] >= 0)
      fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>\n", xpos(c, c->x[i], lo, hi),
              ypos(y[i], top), col);
  double ly = T + 10 + 22.0 * s;
  fprintf(f, "<line x1='%g' y1='%g' x2='%g' y2='%g' stroke='%s' stroke-width='2'/>\n",
          W - R + 15, ly, W - R + 40, ly, col);
  fprintf(f, "<text x='%g' y='%g' font-size='13'>", W - R + 46, ly + 4);
  text(f, c->names[s]);
  fputs("</text>\n", f);
}

int svg_plot(FILE *f, const svg_chart *c)
{
  if (c->nx < 1 || c->nseries < 1) return -1;
  double lo = c->x[0], hi = c->x[c->nx - 1], top = 0;
  for (int i = 0; i < c->nx; i++)
    if (c->logx && c->x[i] <= 0) return -1;
  for (int i = 0; i < c->nx * c->nseries; i++)
    if (c->y[i] > top) top = c->y[i];
  if (top <= 0) top = 1;
  double step = nice_step(top, 5);
  top = ceil(top / step) * step;
  fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n"
             "<svg xmlns='http://www.w3.org/2000/svg' width='%g' height='%g' "
             "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
          W, H);
  axes(f, c, lo, hi, top, step);
  for (int s = 0; s < c->nseries; s++) series(f, c, s, lo, hi, top);
  fputs("</svg>\n", f);
  return 0;
}
