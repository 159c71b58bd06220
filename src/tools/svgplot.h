/* A line chart (chart.h) as SVG text: axes with ticks, one line per
 * series, a legend. No dependencies. Used by `ostio model --plot`, whose
 * PNG scripts/model-plot.py draws with matplotlib. */
#ifndef OSTIO_TOOLS_SVGPLOT_H
#define OSTIO_TOOLS_SVGPLOT_H

#include <stdio.h>

#include "tools/chart.h"

/* Writes the chart; 0, or -1 with nothing sensible to draw (nx < 1,
 * nseries < 1, logx with x <= 0). */
int svg_plot(FILE *f, const chart *c);

#endif
