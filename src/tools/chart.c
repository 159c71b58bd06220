/* See chart.h. */
#include "tools/chart.h"

#include <math.h>

static const uint32_t colours[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd, 0xff7f0e,
                                   0x8c564b, 0xe377c2, 0x7f7f7f};

uint32_t chart_colour(int k)
{
  int n = (int)(sizeof colours / sizeof *colours);
  return colours[(k % n + n) % n];
}

/* A round step giving about n ticks over [0, top]. */
static double nice_step(double top, int n)
{
  double raw = top / n, mag = pow(10, floor(log10(raw))), r = raw / mag;
  return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

int chart_scale_of(const chart *c, chart_scale *s)
{
  if (c->nx < 1 || c->nseries < 1) return -1;
  for (int i = 0; i < c->nx; i++)
    if (c->logx && c->x[i] <= 0) return -1;
  s->lo = c->x[0];
  s->hi = c->x[c->nx - 1];
  s->top = 0;
  for (int i = 0; i < c->nx * c->nseries; i++)
    if (c->y[i] > s->top) s->top = c->y[i];
  if (s->top <= 0) s->top = 1;
  s->step = nice_step(s->top, 5);
  s->top = ceil(s->top / s->step) * s->step;
  return 0;
}

double chart_fx(const chart *c, const chart_scale *s, double v)
{
  double a = c->logx ? log2(v) : v, l = c->logx ? log2(s->lo) : s->lo;
  double h = c->logx ? log2(s->hi) : s->hi;
  return h > l ? (a - l) / (h - l) : 0.5;
}

double chart_fy(const chart_scale *s, double v) { return v / s->top; }
