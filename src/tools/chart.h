/* A line chart as data, for the SVG writer of `ostio model --plot`
 * (svgplot.c; the PNG is matplotlib's, scripts/model-plot.py): one line per
 * series against shared x values, and the scale it is drawn with (chart.c). */
#ifndef OSTIO_TOOLS_CHART_H
#define OSTIO_TOOLS_CHART_H

#include <stdint.h>

typedef struct chart {
  const char *title, *xlabel, *ylabel;
  int nx;                    /* x values, >= 1                                */
  const double *x;           /* ascending, > 0 when logx                      */
  int nseries;
  const char *const *names;  /* nseries                                       */
  const double *y;           /* nseries x nx, row per series; < 0: no point   */
  int logx;                  /* log-2 x axis (sweeps of doubling counts)      */
} chart;

/* The axes' ranges: x from lo to hi, y from 0 to top in ticks of step. */
typedef struct chart_scale {
  double lo, hi, top, step;
} chart_scale;

/* The scale of c: 0, or -1 with nothing sensible to draw (nx < 1,
 * nseries < 1, logx with x <= 0). */
int chart_scale_of(const chart *c, chart_scale *s);
/* Where x value v and y value v sit along their axes, from 0 (x: lo, y: 0)
 * to 1 (x: hi, y: top); x is 0.5 when lo == hi. */
double chart_fx(const chart *c, const chart_scale *s, double v);
double chart_fy(const chart_scale *s, double v);
/* Series k's colour, 0xRRGGBB. */
uint32_t chart_colour(int k);

#endif
