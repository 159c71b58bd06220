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

int ob_baseline_api(const ob_config *c)
{
  int mpiio = -1;
  for (int a = 0; a < c->napis; a++) {
    if (c->apis[a].best) return a;
    if (c->apis[a].kind == OB_API_MPIIO && !c->apis[a].ostio_mpiio) mpiio = a;
  }
  return mpiio;
}

/* Plain mpiio: ROMIO at its default hints (neither mpiio:best nor mpiio+ostio). */
static int default_mpiio(const ob_config *c)
{
  for (int a = 0; a < c->napis; a++)
    if (c->apis[a].kind == OB_API_MPIIO && !c->apis[a].ostio_mpiio && !c->apis[a].best) return a;
  return -1;
}

/* s[i].field = s[i] / s[base]'s median of the same phase, for every i. */
static void set_ratio(ob_summary *s, int n, int base, int which)
{
  for (int i = 0; i < n && base >= 0; i++)
    for (int j = 0; j < n; j++)
      if (s[j].api == base && s[j].phase == s[i].phase && s[j].bw_median > 0) {
        double r = s[i].bw_median / s[j].bw_median;
        if (which) s[i].ratio_mpiio = r;
        else s[i].ratio = r;
      }
}

int ob_summarize(const ob_config *c, const ob_results *res, ob_summary **out)
{
  *out = NULL;
  double *bw = malloc((size_t)(res->n > 0 ? res->n : 1) * sizeof *bw);
  ob_summary *s = malloc((size_t)(2 * c->napis > 0 ? 2 * c->napis : 1) * sizeof *s);
  if (!bw || !s) return free(bw), free(s), OB_ENOMEM;
  int n = 0;
  for (int a = 0; a < c->napis; a++)
    for (int ph = 0; ph < 2; ph++) {
      summarize_one(res, a, ph, bw, &s[n]);
      if (s[n].count > 0) n++;
    }
  set_ratio(s, n, ob_baseline_api(c), 0);
  set_ratio(s, n, default_mpiio(c), 1);
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

/* mpiio:best's chosen hints per phase, and what its sweep measured. */
static void best_text(FILE *f, const ob_config *c, const ob_results *res)
{
  (void)c;
  for (int ph = 0; ph < 2; ph++) {
    const ob_sweep *sw = &res->sweep[ph];
    if (!sw->done) continue;
    char hs[256];
    ob_hintset_str(&sw->cand[sw->chosen], hs, sizeof hs);
    fprintf(f, "\nmpiio:best %s hints: %s", phase_name(ph), hs);
    if (sw->given) fprintf(f, " (%s)\n", sw->note);
    else {
      fprintf(f, " (best of %d candidates, sweep %.1f s)\n", sw->ncand, sw->seconds);
      for (int i = 0; i < sw->ncand; i++) {
        ob_hintset_str(&sw->cand[i], hs, sizeof hs);
        fprintf(f, "  %c %10.1f MiB/s x%d  %s\n", i == sw->chosen ? '*' : ' ', sw->bw[i],
                sw->reps[i], hs);
      }
      if (sw->note[0]) fprintf(f, "  %s\n", sw->note);
    }
  }
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
  int base = ob_baseline_api(c), tuned = base >= 0 && c->apis[base].best;
  best_text(f, c, res);
  fprintf(f, "\nSummary (MiB/s over %d iteration%s, warm-up excluded; ratio = median / %s's "
          "median%s):\n", c->iterations, c->iterations == 1 ? "" : "s",
          base >= 0 ? c->apis[base].name : "mpiio",
          tuned ? ", MPI-IO at the swept hints; vs mpiio = against MPI-IO at its defaults" : "");
  fprintf(f, "%-18s %-5s %10s %10s %10s %10s %9s %6s %10s%s %5s %5s %8s\n", "api", "op", "Max",
          "Median", "Min", "Mean", "Mean(s)", "iters", tuned ? "vs best" : "vs mpiio",
          tuned ? "   vs mpiio" : "", "aggr", "objs", "sys_ops");
  for (int i = 0; i < n; i++) {
    char ratio[24], r2[24] = "", ag[24], ob[24], so[24];
    if (s[i].ratio > 0) snprintf(ratio, sizeof ratio, "%.2fx", s[i].ratio);
    else snprintf(ratio, sizeof ratio, "-");
    if (tuned) snprintf(r2, sizeof r2, " %10s", "-");
    if (tuned && s[i].ratio_mpiio > 0) snprintf(r2, sizeof r2, " %9.2fx", s[i].ratio_mpiio);
    stat_str(ag, sizeof ag, s[i].aggr_max);
    stat_str(ob, sizeof ob, s[i].objects_max);
    stat_str(so, sizeof so, s[i].phase == OB_PHASE_WRITE ? s[i].sys_writes : s[i].sys_reads);
    fprintf(f, "%-18s %-5s %10.1f %10.1f %10.1f %10.1f %9.4f %6d %10s%s %5s %5s %8s\n",
            c->apis[s[i].api].name, phase_name(s[i].phase), s[i].bw_max, s[i].bw_median,
            s[i].bw_min, s[i].bw_mean, s[i].t_total, s[i].count, ratio, r2, ag, ob, so);
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

static void hints_json(FILE *f, const ob_hintset *h)
{
  fprintf(f, "{");
  for (int k = 0; k < h->n; k++) {
    fprintf(f, "%s", k ? ", " : "");
    json_str(f, h->key[k]);
    fprintf(f, ": ");
    json_str(f, h->val[k]);
  }
  fprintf(f, "}");
}

/* {"write": {"hints": {...}, "swept": true, "seconds": s, "note": "...",
 *  "candidates": [{"hints": {...}, "bw_mib": x, "reps": n}, ...]}, "read": ...},
 * or null without mpiio:best. */
static void best_json(FILE *f, const ob_results *res)
{
  if (!res->sweep[0].done && !res->sweep[1].done) {
    fprintf(f, "null");
    return;
  }
  fprintf(f, "{");
  int first = 1;
  for (int ph = 0; ph < 2; ph++) {
    const ob_sweep *sw = &res->sweep[ph];
    if (!sw->done) continue;
    fprintf(f, "%s\n    \"%s\": {\"hints\": ", first ? "" : ",", phase_name(ph));
    first = 0;
    hints_json(f, &sw->cand[sw->chosen]);
    fprintf(f, ", \"swept\": %s, \"seconds\": %.6g, \"note\": ", sw->given ? "false" : "true",
            sw->seconds);
    json_str(f, sw->note);
    fprintf(f, ", \"candidates\": [");
    for (int i = 0; i < sw->ncand && !sw->given; i++) {
      fprintf(f, "%s\n      {\"hints\": ", i ? "," : "");
      hints_json(f, &sw->cand[i]);
      fprintf(f, ", \"bw_mib\": ");
      json_num(f, sw->bw[i]);
      fprintf(f, ", \"reps\": %d, \"chosen\": %s}", sw->reps[i], i == sw->chosen ? "true" : "false");
    }
    fprintf(f, "]}");
  }
  fprintf(f, "\n  }");
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
    if (s[i].ratio_mpiio > 0) fprintf(f, "%.6g", s[i].ratio_mpiio);
    else fprintf(f, "null");
    fprintf(f, ", \"ratio_vs_baseline\": ");
    if (s[i].ratio > 0) fprintf(f, "%.6g", s[i].ratio);
    else fprintf(f, "null");
    fprintf(f, ", \"aggr_max\": ");
    json_num(f, s[i].aggr_max);
    fprintf(f, ", \"objects_max\": ");
    json_num(f, s[i].objects_max);
    fprintf(f, "}");
  }
  free(s);
  fprintf(f, "\n  ],\n  \"baseline\": ");
  int base = ob_baseline_api(c);
  if (base >= 0) json_str(f, c->apis[base].name);
  else fprintf(f, "null");
  fprintf(f, ",\n  \"mpiio_best\": ");
  best_json(f, res);
  fprintf(f, "\n}\n");
}
