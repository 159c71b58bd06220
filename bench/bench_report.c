/* ostio-bench report: summary per (API, phase) over the non-warm-up
 * iterations (min, median, max MiB/s, mean times), ratio of each API to
 * mpiio, an IOR-like text table and the JSON document. Pure: no MPI. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "container/store.h"

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ob_median(double *v, int n)
{
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double maxd(double a, double b) { return a > b ? a : b; }

static void summarize_one(const ob_results *res, int api, int phase, double *bw, ob_summary *s)
{
  memset(s, 0, sizeof *s);
  s->api = api, s->phase = phase;
  s->aggr_max = s->objects_max = s->sys_writes = s->sys_reads = -1;
  for (int i = 0; i < res->n; i++) {
    const ob_result *r = &res->r[i];
    if (r->warmup || r->api != api || r->phase != phase) continue;
    bw[s->count++] = r->bw_mib;
    s->bw_mean += r->bw_mib;
    s->t_open += r->t_open, s->t_io += r->t_io, s->t_close += r->t_close;
    s->t_total += r->t_total;
    s->aggr_max = maxd(s->aggr_max, r->aggr_max);
    s->objects_max = maxd(s->objects_max, r->objects_max);
    s->sys_writes = maxd(s->sys_writes, r->sys_writes);
    s->sys_reads = maxd(s->sys_reads, r->sys_reads);
  }
  if (s->count == 0) return;
  double n = s->count;
  s->bw_mean /= n, s->t_open /= n, s->t_io /= n, s->t_close /= n, s->t_total /= n;
  s->bw_median = ob_median(bw, s->count);
  s->bw_min = bw[0], s->bw_max = bw[s->count - 1];
}

int ob_summarize(const ob_config *c, const ob_results *res, ob_summary **out)
{
  *out = NULL;
  double *bw = malloc((size_t)(res->n > 0 ? res->n : 1) * sizeof *bw);
  ob_summary *s = malloc((size_t)(2 * c->napis > 0 ? 2 * c->napis : 1) * sizeof *s);
  if (!bw || !s) return free(bw), free(s), OB_ENOMEM;
  int n = 0, mpiio = -1;
  for (int a = 0; a < c->napis; a++)
    if (c->apis[a].kind == OB_API_MPIIO && !c->apis[a].ostio_mpiio) mpiio = a;
  for (int a = 0; a < c->napis; a++)
    for (int ph = 0; ph < 2; ph++) {
      summarize_one(res, a, ph, bw, &s[n]);
      if (s[n].count > 0) n++;
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n && mpiio >= 0; j++)
      if (s[j].api == mpiio && s[j].phase == s[i].phase && s[j].bw_median > 0)
        s[i].ratio = s[i].bw_median / s[j].bw_median;
  free(bw);
  *out = s;
  return n;
}

static const char *phase_name(int ph) { return ph == OB_PHASE_WRITE ? "write" : "read"; }

/* The call style of API a: "collective" or "independent", one call per "step" or "transfer". */
static const char *calls_name(const ob_config *c, int a)
{
  return ob_api_collective(c, &c->apis[a]) ? "collective" : "independent";
}
static const char *unit_name(const ob_config *c, int a)
{
  return ob_api_per_transfer(c, &c->apis[a]) ? "transfer" : "step";
}

/* A statistic, or "-" when not applicable (-1). */
static void stat_str(char *b, size_t cap, double v)
{
  if (v < 0) snprintf(b, cap, "-");
  else snprintf(b, cap, "%.0f", v);
}

void ob_report_text(FILE *f, const ob_config *c, const ob_results *res)
{
  const ob_pattern_opts *p = &c->pat;
  fprintf(f, "ostio-bench: pattern %s, %d ranks, %.2f MiB per phase, %s file%s\n",
          ob_pattern_name(p->kind), res->nprocs, (double)res->total_bytes / 1048576.0,
          c->file_per_proc ? "one" : "shared", c->file_per_proc ? " per process" : "");
  fprintf(f, "  calls:");
  for (int a = 0; a < c->napis; a++)
    fprintf(f, "%s %s %s, one per %s", a ? ";" : "", c->apis[a].name, calls_name(c, a),
            unit_name(c, a));
  fprintf(f, "\n");
  fprintf(f, "  block %lld, transfer %lld, segments %lld, iterations %d + %d warm-up, fsync %s\n",
          (long long)p->block, (long long)p->transfer, (long long)p->segments, c->iterations,
          c->warmup, c->fsync ? "on" : "off");
  if (ostio__store_find(c->container)) /* a kind with a store is a container */
    fprintf(f, "  ostio APIs write a %s container; MPI-IO and POSIX a plain file\n", c->container);
  fprintf(f, "\n%-4s %-18s %-5s %10s %9s %9s %9s %9s %-6s %-11s %5s %5s %8s\n", "iter", "api",
          "op", "MiB/s", "open(s)", "io(s)", "close(s)", "total(s)", "verify", "strategy",
          "aggr", "objs", "sys_ops");
  for (int i = 0; i < res->n; i++) {
    const ob_result *r = &res->r[i];
    char ag[24], ob[24], so[24];
    stat_str(ag, sizeof ag, r->aggr_max);
    stat_str(ob, sizeof ob, r->objects_max);
    stat_str(so, sizeof so, r->phase == OB_PHASE_WRITE ? r->sys_writes : r->sys_reads);
    fprintf(f, "%-4d %-18s %-5s %10.1f %9.4f %9.4f %9.4f %9.4f %-6s %-11s %5s %5s %8s%s\n",
            r->iteration + 1, c->apis[r->api].name, phase_name(r->phase), r->bw_mib, r->t_open,
            r->t_io, r->t_close, r->t_total,
            (r->phase == OB_PHASE_WRITE ? c->verify_write : c->verify_read)
                ? (r->verify_errors ? "FAIL" : "ok") : "-",
            r->strategy[0] ? r->strategy : "-", ag, ob, so, r->warmup ? "  (warm-up)" : "");
  }
  ob_summary *s = NULL;
  int n = ob_summarize(c, res, &s);
  if (n < 0) return;
  fprintf(f, "\nSummary (MiB/s over %d iteration%s, warm-up excluded; ratio = median / mpiio's "
          "median):\n", c->iterations, c->iterations == 1 ? "" : "s");
  fprintf(f, "%-18s %-5s %10s %10s %10s %10s %9s %6s %8s %5s %5s %8s\n", "api", "op", "Max",
          "Median", "Min", "Mean", "Mean(s)", "iters", "vs mpiio", "aggr", "objs", "sys_ops");
  for (int i = 0; i < n; i++) {
    char ratio[24], ag[24], ob[24], so[24];
    if (s[i].ratio > 0) snprintf(ratio, sizeof ratio, "%.2fx", s[i].ratio);
    else snprintf(ratio, sizeof ratio, "-");
    stat_str(ag, sizeof ag, s[i].aggr_max);
    stat_str(ob, sizeof ob, s[i].objects_max);
    stat_str(so, sizeof so, s[i].phase == OB_PHASE_WRITE ? s[i].sys_writes : s[i].sys_reads);
    fprintf(f, "%-18s %-5s %10.1f %10.1f %10.1f %10.1f %9.4f %6d %8s %5s %5s %8s\n",
            c->apis[s[i].api].name, phase_name(s[i].phase), s[i].bw_max, s[i].bw_median,
            s[i].bw_min, s[i].bw_mean, s[i].t_total, s[i].count, ratio, ag, ob, so);
  }
  free(s);
}

static void json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

/* A number, or null for "not applicable" (negative) or non-finite values. */
static void json_num(FILE *f, double v)
{
  if (v < 0 || !isfinite(v)) fprintf(f, "null");
  else fprintf(f, "%.9g", v);
}

void ob_report_json(FILE *f, const ob_config *c, const ob_results *res)
{
  const ob_pattern_opts *p = &c->pat;
  fprintf(f, "{\n  \"format\": \"ostio-bench\",\n  \"version\": 1,\n  \"nprocs\": %d,\n",
          res->nprocs);
  fprintf(f, "  \"config\": {\"pattern\": ");
  json_str(f, ob_pattern_name(p->kind));
  fprintf(f, ", \"block\": %lld, \"transfer\": %lld, \"segments\": %lld, \"btio_class\": \"%c\", "
          "\"seed\": %llu, \"file_per_process\": %s, \"collective\": %s, \"indep\": %s, "
          "\"fsync\": %s, \"reorder\": %s, \"iterations\": %d, \"warmup\": %d, "
          "\"stripe_count\": %d, \"stripe_size\": %lld, \"container\": \"%s\", \"path\": ",
          (long long)p->block, (long long)p->transfer, (long long)p->segments,
          p->btio_class ? p->btio_class : '-', (unsigned long long)p->seed,
          c->file_per_proc ? "true" : "false", c->collective ? "true" : "false",
          c->indep ? "true" : "false", c->fsync ? "true" : "false",
          c->reorder ? "true" : "false", c->iterations, c->warmup, c->stripe_count,
          (long long)c->stripe_size, c->container);
  json_str(f, c->path);
  fprintf(f, ",\n    \"apis\": [");
  for (int a = 0; a < c->napis; a++) {
    fprintf(f, "%s", a ? ", " : "");
    json_str(f, c->apis[a].name);
  }
  fprintf(f, "], \"hints\": {");
  for (int h = 0; h < c->nhints; h++) {
    fprintf(f, "%s", h ? ", " : "");
    json_str(f, c->hint_key[h]);
    fprintf(f, ": ");
    json_str(f, c->hint_val[h]);
  }
  fprintf(f, "}},\n  \"total_bytes\": %lld,\n  \"runs\": [", (long long)res->total_bytes);
  for (int i = 0; i < res->n; i++) {
    const ob_result *r = &res->r[i];
    fprintf(f, "%s\n    {\"iteration\": %d, \"warmup\": %s, \"api\": ", i ? "," : "",
            r->iteration, r->warmup ? "true" : "false");
    json_str(f, c->apis[r->api].name);
    fprintf(f, ", \"calls\": \"%s\", \"one_call_per\": \"%s\", \"phase\": \"%s\", \"bytes\": %lld, "
            "\"bw_mib\": ", calls_name(c, r->api), unit_name(c, r->api), phase_name(r->phase),
            (long long)r->bytes);
    json_num(f, r->bw_mib);
    fprintf(f, ", \"t_open\": %.9g, \"t_io\": %.9g, \"t_close\": %.9g, \"t_total\": %.9g, "
            "\"verify_errors\": %lld, \"strategy\": ", r->t_open, r->t_io, r->t_close,
            r->t_total, (long long)r->verify_errors);
    if (r->strategy[0]) json_str(f, r->strategy);
    else fprintf(f, "null");
    fprintf(f, ", \"stats\": {\"aggr_max\": ");
    json_num(f, r->aggr_max);
    fprintf(f, ", \"objects_max\": ");
    json_num(f, r->objects_max);
    fprintf(f, ", \"sys_writes\": ");
    json_num(f, r->sys_writes);
    fprintf(f, ", \"sys_reads\": ");
    json_num(f, r->sys_reads);
    fprintf(f, "}}");
  }
  fprintf(f, "\n  ],\n  \"summary\": [");
  ob_summary *s = NULL;
  int n = ob_summarize(c, res, &s);
  for (int i = 0; i < n; i++) {
    fprintf(f, "%s\n    {\"api\": ", i ? "," : "");
    json_str(f, c->apis[s[i].api].name);
    fprintf(f, ", \"calls\": \"%s\", \"one_call_per\": \"%s\"", calls_name(c, s[i].api),
            unit_name(c, s[i].api));
    fprintf(f, ", \"phase\": \"%s\", \"iterations\": %d, \"bw_min\": %.9g, \"bw_median\": %.9g, "
            "\"bw_max\": %.9g, \"bw_mean\": %.9g, \"t_open\": %.9g, \"t_io\": %.9g, "
            "\"t_close\": %.9g, \"t_total\": %.9g, \"ratio_vs_mpiio\": ",
            phase_name(s[i].phase), s[i].count, s[i].bw_min, s[i].bw_median, s[i].bw_max,
            s[i].bw_mean, s[i].t_open, s[i].t_io, s[i].t_close, s[i].t_total);
    if (s[i].ratio > 0) fprintf(f, "%.6g", s[i].ratio);
    else fprintf(f, "null");
    fprintf(f, ", \"aggr_max\": ");
    json_num(f, s[i].aggr_max);
    fprintf(f, ", \"objects_max\": ");
    json_num(f, s[i].objects_max);
    fprintf(f, "}");
  }
  free(s);
  fprintf(f, "\n  ]\n}\n");
}
