/* A line chart (chart.h) as a PNG: the same picture as svgplot.c's
 * (axes with ticks and grid lines, one coloured line with dots per series,
 * a legend, title and axis labels), rasterized here (raster.h, with its
 * built-in bitmap font) and encoded by pngwriter.h without a library. Used
 * by `ostio model --plot`. */
#ifndef OSTIO_TOOLS_PNGPLOT_H
#define OSTIO_TOOLS_PNGPLOT_H

#include <stdio.h>

#include "tools/chart.h"
#include "tools/raster.h"

/* The picture: PNGPLOT_W x PNGPLOT_H pixels; the plot area between the
 * margins (left, right, top, bottom). A point (x, y) of the chart is at
 * pixel column L + fx * (W - L - R), row H - B - fy * (H - T - B), rounded
 * (chart_fx, chart_fy). */
#define PNGPLOT_W 800
#define PNGPLOT_H 480
#define PNGPLOT_L 100
#define PNGPLOT_R 180
#define PNGPLOT_T 50
#define PNGPLOT_B 60

/* Draws c into r (initialised here; free with raster_free): 0, or -1 with
 * nothing sensible to draw (as svg_plot) or out of memory. */
int png_chart_draw(const chart *c, raster *r);
/* Draws c and writes it to f as a PNG: 0, or -1 (as png_chart_draw, or f
 * cannot be written). */
int png_plot(FILE *f, const chart *c);

#endif
