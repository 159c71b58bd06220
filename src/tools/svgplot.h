/* A line chart as SVG text: one line per series against shared x values,
 * axes with ticks, a legend. No dependencies (the PNG comes from
 * scripts/model-plot.py when matplotlib is there). Used by `ostio model
 * --plot`. */
#ifndef OSTIO_TOOLS_SVGPLOT_H
#define OSTIO_TOOLS_SVGPLOT_H

#include <stdio.h>

typedef struct svg_chart {
  const char *title, *xlabel, *ylabel;
  int nx;                    /* x values, >= 1                                */
  const double *x;           /* ascending, > 0 when logx                      */
  int nseries;
  const char *const *names;  /* nseries                                       */
  const double *y;           /* nseries x nx, row per series; < 0: no point   */
  int logx;                  /* log-2 x axis (sweeps of doubling counts)      */
} svg_chart;

/* Writes the chart; 0, or -1 with nothing sensible to draw (nx < 1,
 * nseries < 1, logx with x <= 0). */
int svg_plot(FILE *f, const svg_chart *c);

#endif
