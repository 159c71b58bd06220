/* Statistics: lookup by name, the fold over ranks, the text report and the
 * JSON document (both pure), and the collective report at close.
 * Everything is driven by the X-macro lists in stats.h. See docs/stats.md. */
#include "stats/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/error.h"
#include "core/strbuf.h"

enum { RED_SUM, RED_MAX };

static const struct {
  const char *name;
  int reduce;
  const char *desc;
} counters[OSTIO__NSTAT] = {
#define COUNTER_(n, r, d) {#n, RED_##r, d},
  OSTIO_STATS_COUNTERS(COUNTER_)
#undef COUNTER_
};

static const struct {
  const char *name;
  const char *desc;
} timers[OSTIO__NTIMER] = {
#define TIMER_(n, d) {#n, d},
  OSTIO_STATS_TIMERS(TIMER_)
#undef TIMER_
};

/* Shown in the text report even when zero on every rank. */
static int is_core(int id)
{
  switch (id) {
  case OSTIO__STAT_coll_writes: case OSTIO__STAT_coll_reads:
  case OSTIO__STAT_indep_writes: case OSTIO__STAT_indep_reads:
  case OSTIO__STAT_sys_writes: case OSTIO__STAT_sys_reads:
  case OSTIO__STAT_bytes_written: case OSTIO__STAT_bytes_read:
    return 1;
  default:
    return 0;
  }
}

int ostio__stats_get(const ostio__stats *s, const char *name, double *value)
{
  if (!s || !value) return ostio__fail(OSTIO_EINVAL, "statistics lookup: NULL statistics or "
                                       "value pointer; pass both");
  for (int i = 0; name && i < OSTIO__NSTAT; i++)
    if (!strcmp(name, counters[i].name)) {
      *value = (double)s->c[i];
      return 0;
    }
  for (int i = 0; name && i < OSTIO__NTIMER; i++)
    if (!strcmp(name, timers[i].name)) {
      *value = s->t[i];
      return 0;
    }
  /* The detail lists every known name (about 500 characters in all). */
  char known[640];
  size_t len = 0;
  known[0] = '\0';
  for (int i = 0; i < OSTIO__NSTAT + OSTIO__NTIMER; i++) {
    const char *n = i < OSTIO__NSTAT ? counters[i].name : timers[i - OSTIO__NSTAT].name;
    int w = snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", n);
    if (w < 0 || (size_t)w >= sizeof known - len) break;
    len += (size_t)w;
  }
  return ostio__fail(OSTIO_EINVAL, "unknown statistic \"%.24s\"; known: %s",
                     name ? name : "(null)", known);
}

/* Sums saturate instead of overflowing (counters never get near, but a
 * corrupted one must not make the report undefined). */
static int64_t sat_add(int64_t a, int64_t b)
{
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}

void ostio__stats_reduced_init(ostio__stats_reduced *r)
{
  /* All zero (padding too: the struct travels as bytes in the report). */
  memset(r, 0, sizeof *r);
}

void ostio__stats_fold(ostio__stats_reduced *r, const ostio__stats *s)
{
  int first = r->nprocs == 0;
  for (int i = 0; i < OSTIO__NSTAT; i++) {
    int64_t v = s->c[i];
    r->sum[i] = sat_add(r->sum[i], v);
    if (first || v > r->max[i]) r->max[i] = v;
    if (first || v < r->min[i]) r->min[i] = v;
  }
  for (int i = 0; i < OSTIO__NTIMER; i++) {
    r->tsum[i] += s->t[i];
    if (first || s->t[i] > r->tmax[i]) r->tmax[i] = s->t[i];
  }
  r->nprocs++;
}

/* Merges b (a fold of other ranks) into a: the reduction operator. */
static void merge(ostio__stats_reduced *a, const ostio__stats_reduced *b)
{
  if (b->nprocs == 0) return;
  if (a->nprocs == 0) {
    memcpy(a, b, sizeof *a);
    return;
  }
  for (int i = 0; i < OSTIO__NSTAT; i++) {
    a->sum[i] = sat_add(a->sum[i], b->sum[i]);
    if (b->max[i] > a->max[i]) a->max[i] = b->max[i];
    if (b->min[i] < a->min[i]) a->min[i] = b->min[i];
  }
  for (int i = 0; i < OSTIO__NTIMER; i++) {
    a->tsum[i] += b->tsum[i];
    if (b->tmax[i] > a->tmax[i]) a->tmax[i] = b->tmax[i];
  }
  a->nprocs += b->nprocs;
}

/* ---- text output (core/strbuf.h) ---------------------------------------- */

static int finish(ostio__sbuf *s, char **out, const char *what)
{
  if (s->oom || !s->buf) {
    free(s->buf);
    return ostio__fail(OSTIO_ENOMEM, "statistics %s: out of memory", what);
  }
  *out = s->buf;
  return 0;
}

/* ---- text report ---------------------------------------------------------- */

/* A string for a terminal: control characters become '?'. */
static void put_plain(ostio__sbuf *s, const char *str)
{
  if (!str) { ostio__sbuf_put(s, "-"); return; }
  for (const unsigned char *p = (const unsigned char *)str; *p; p++)
    ostio__sbuf_put(s, "%c", *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
}

/* mean = num / den with two decimals, or "-" when den is 0. */
static const char *ratio_text(char *buf, size_t cap, int64_t num, int64_t den)
{
  if (den == 0) snprintf(buf, cap, "-");
  else snprintf(buf, cap, "%.2f", (double)num / (double)den);
  return buf;
}

#define COLS "  %-24s %18s %18s\n"

int ostio__stats_format_text(const ostio__stats_reduced *r, const ostio__stats_info *info,
                             char **out)
{
  ostio__sbuf s = {0};
  char a[32], b[32];
  if (!out) return ostio__fail(OSTIO_EINVAL, "statistics text: NULL output pointer");
  *out = NULL;
  if (!r) return ostio__fail(OSTIO_EINVAL, "statistics text: NULL reduced statistics");
  ostio__stats_info none = {0};
  if (!info) info = &none;

  ostio__sbuf_put(&s, "ostio stats for ");
  put_plain(&s, info->path);
  ostio__sbuf_put(&s, "\n  ranks %d, strategy hint ", r->nprocs);
  put_plain(&s, info->strategy);
  ostio__sbuf_put(&s, "\n  layout %d x %" PRId64 " B, %d component%s, source ", info->stripe_count,
      info->stripe_size, info->ncomponents, info->ncomponents == 1 ? "" : "s");
  put_plain(&s, info->layout_source);
  ostio__sbuf_put(&s, "\n");
  if (info->hints && info->hints->nunknown > 0) {
    int n = info->hints->nunknown > OSTIO__HINTS_NUNKNOWN ? OSTIO__HINTS_NUNKNOWN
                                                          : info->hints->nunknown;
    ostio__sbuf_put(&s, "  unknown hints:");
    for (int i = 0; i < n; i++) {
      const ostio__hint_unknown *u = &info->hints->unknown[i];
      char key[sizeof u->key], sug[sizeof u->suggestion];
      snprintf(key, sizeof key, "%.*s", (int)sizeof u->key - 1, u->key);
      snprintf(sug, sizeof sug, "%.*s", (int)sizeof u->suggestion - 1, u->suggestion);
      ostio__sbuf_put(&s, "%s ", i ? "," : "");
      put_plain(&s, key);
      if (sug[0]) {
        ostio__sbuf_put(&s, " (did you mean ");
        put_plain(&s, sug);
        ostio__sbuf_put(&s, "?)");
      }
    }
    if (info->hints->unknown_more > 0)
      ostio__sbuf_put(&s, ", and %d more", info->hints->unknown_more);
    ostio__sbuf_put(&s, "\n");
  }
  ostio__sbuf_put(&s, COLS, "counter", "total over ranks", "max of one rank");

  int omitted = 0;
  for (int i = 0; i < OSTIO__NSTAT; i++) {
    if (!is_core(i) && r->sum[i] == 0 && r->max[i] == 0 && r->min[i] == 0) {
      omitted++;
      continue;
    }
    if (counters[i].reduce == RED_SUM) snprintf(a, sizeof a, "%" PRId64, r->sum[i]);
    else snprintf(a, sizeof a, "-");
    snprintf(b, sizeof b, "%" PRId64, r->max[i]);
    ostio__sbuf_put(&s, COLS, counters[i].name, a, b);
  }
  if (omitted)
    ostio__sbuf_put(&s, "  (%d counter%s zero on every rank not shown)\n", omitted, omitted == 1 ? "" : "s");

  const int64_t *sum = r->sum, *max = r->max;
  ostio__sbuf_put(&s, "  objects per aggregator per call: max %" PRId64 ", mean %s\n",
      max[OSTIO__STAT_objects_max],
      ratio_text(a, sizeof a, sum[OSTIO__STAT_objects_touched], sum[OSTIO__STAT_aggr_calls]));
  ostio__sbuf_put(&s, "  OSTs per aggregator per call: max %" PRId64 ", mean %s\n",
      max[OSTIO__STAT_osts_max],
      ratio_text(a, sizeof a, sum[OSTIO__STAT_osts_touched], sum[OSTIO__STAT_aggr_calls]));
  ostio__sbuf_put(&s, "  bytes per system write: mean %s\n",
      ratio_text(a, sizeof a, sum[OSTIO__STAT_bytes_written], sum[OSTIO__STAT_sys_writes]));
  ostio__sbuf_put(&s, "  bytes per system read: mean %s\n",
      ratio_text(a, sizeof a, sum[OSTIO__STAT_bytes_read], sum[OSTIO__STAT_sys_reads]));

  ostio__sbuf_put(&s, COLS, "timer (seconds)", "max of one rank", "mean");
  for (int i = 0; i < OSTIO__NTIMER; i++) {
    snprintf(a, sizeof a, "%.6f", r->tmax[i]);
    if (r->nprocs > 0) snprintf(b, sizeof b, "%.6f", r->tsum[i] / r->nprocs);
    else snprintf(b, sizeof b, "-");
    ostio__sbuf_put(&s, COLS, timers[i].name, a, b);
  }
  return finish(&s, out, "report");
}

/* ---- JSON ----------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p, or 0 when it is not one
 * (overlong forms, surrogates and code points above U+10FFFF are not). */
static int utf8_len(const unsigned char *p)
{
  unsigned c = p[0], cp;
  int n;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
  else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
  else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
  else return 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0; /* also stops at the terminating NUL */
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

/* A JSON string (null for NULL): quotes, backslashes and control characters
 * escaped; bytes that are not UTF-8 become U+FFFD, so the document stays
 * valid whatever the path holds. */
static void put_json_string(ostio__sbuf *s, const char *str)
{
  if (!str) { ostio__sbuf_put(s, "null"); return; }
  ostio__sbuf_put(s, "\"");
  const unsigned char *p = (const unsigned char *)str;
  while (*p) {
    unsigned c = *p;
    int n = utf8_len(p);
    if (c == '"' || c == '\\') ostio__sbuf_put(s, "\\%c", (char)c);
    else if (c == '\n') ostio__sbuf_put(s, "\\n");
    else if (c == '\t') ostio__sbuf_put(s, "\\t");
    else if (c == '\r') ostio__sbuf_put(s, "\\r");
    else if (c < 0x20 || c == 0x7f) ostio__sbuf_put(s, "\\u%04x", c);
    else if (n == 0) ostio__sbuf_put(s, "\\ufffd");
    else ostio__sbuf_put(s, "%.*s", n, (const char *)p);
    p += n ? n : 1;
  }
  ostio__sbuf_put(s, "\"");
}

/* A JSON number for v (null when not finite). The decimal point is forced
 * to '.' whatever LC_NUMERIC the application set. */
static const char *json_double(char *buf, size_t cap, double v)
{
  char raw[64];
  if (!isfinite(v)) {
    snprintf(buf, cap, "null");
    return buf;
  }
  snprintf(raw, sizeof raw, "%.9g", v);
  size_t j = 0;
  for (size_t i = 0; raw[i] && j + 1 < cap; i++) {
    char c = raw[i];
    int plain = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e';
    if (plain) buf[j++] = c;
    else if (j == 0 || buf[j - 1] != '.') buf[j++] = '.'; /* multi-byte point: one '.' */
  }
  buf[j] = '\0';
  return buf;
}

static const char *json_ratio(char *buf, size_t cap, int64_t num, int64_t den)
{
  if (den == 0) {
    snprintf(buf, cap, "null");
    return buf;
  }
  return json_double(buf, cap, (double)num / (double)den);
}

/* One file, as the job document keeps it. */
typedef struct file_rec {
  ostio__stats_reduced r;
  char *path, *strategy, *source;
  int stripe_count, ncomponents;
  int64_t stripe_size;
  int nunknown, unknown_more;
  ostio__hint_unknown unknown[OSTIO__HINTS_NUNKNOWN];
} file_rec;

/* A view of r and info (no copies). */
static void rec_view(file_rec *f, const ostio__stats_reduced *r, const ostio__stats_info *info)
{
  memset(f, 0, sizeof *f);
  f->r = *r;
  f->path = (char *)info->path;
  f->strategy = (char *)info->strategy;
  f->source = (char *)info->layout_source;
  f->stripe_count = info->stripe_count;
  f->stripe_size = info->stripe_size;
  f->ncomponents = info->ncomponents;
  if (info->hints) {
    int n = info->hints->nunknown;
    f->nunknown = n < 0 ? 0 : n > OSTIO__HINTS_NUNKNOWN ? OSTIO__HINTS_NUNKNOWN : n;
    f->unknown_more = info->hints->unknown_more;
    memcpy(f->unknown, info->hints->unknown, sizeof f->unknown);
    for (int i = 0; i < OSTIO__HINTS_NUNKNOWN; i++) { /* terminated, whatever came in */
      f->unknown[i].key[sizeof f->unknown[i].key - 1] = '\0';
      f->unknown[i].suggestion[sizeof f->unknown[i].suggestion - 1] = '\0';
    }
  }
}

/* The "derived" object, from per-counter totals (SUM counters: sums; MAX
 * counters: maxima). */
static void put_derived(ostio__sbuf *s, const char *ind, const int64_t *sum, const int64_t *max)
{
  char a[64];
  int64_t calls = sum[OSTIO__STAT_aggr_calls];
  ostio__sbuf_put(s, "%s\"derived\": {\n", ind);
  ostio__sbuf_put(s, "%s  \"objects_per_aggregator_max\": %" PRId64 ",\n", ind,
      max[OSTIO__STAT_objects_max]);
  ostio__sbuf_put(s, "%s  \"objects_per_aggregator_mean\": %s,\n", ind,
      json_ratio(a, sizeof a, sum[OSTIO__STAT_objects_touched], calls));
  ostio__sbuf_put(s, "%s  \"osts_per_aggregator_max\": %" PRId64 ",\n", ind,
      max[OSTIO__STAT_osts_max]);
  ostio__sbuf_put(s, "%s  \"osts_per_aggregator_mean\": %s,\n", ind,
      json_ratio(a, sizeof a, sum[OSTIO__STAT_osts_touched], calls));
  ostio__sbuf_put(s, "%s  \"bytes_per_sys_write_mean\": %s,\n", ind,
      json_ratio(a, sizeof a, sum[OSTIO__STAT_bytes_written], sum[OSTIO__STAT_sys_writes]));
  ostio__sbuf_put(s, "%s  \"bytes_per_sys_read_mean\": %s\n%s}", ind,
      json_ratio(a, sizeof a, sum[OSTIO__STAT_bytes_read], sum[OSTIO__STAT_sys_reads]), ind);
}

static void put_unknown(ostio__sbuf *s, const ostio__hint_unknown *u, int64_t files)
{
  ostio__sbuf_put(s, "{\"key\": ");
  put_json_string(s, u->key);
  ostio__sbuf_put(s, ", \"suggestion\": ");
  put_json_string(s, u->suggestion[0] ? u->suggestion : NULL);
  if (files >= 0) ostio__sbuf_put(s, ", \"files\": %" PRId64, files);
  ostio__sbuf_put(s, "}");
}

/* One file's object; every line but the first starts with ind. */
static void put_file(ostio__sbuf *s, const file_rec *f, const char *ind)
{
  char a[64], b[64];
  const ostio__stats_reduced *r = &f->r;
  ostio__sbuf_put(s, "{\n%s  \"file\": ", ind);
  put_json_string(s, f->path);
  ostio__sbuf_put(s, ",\n%s  \"nprocs\": %d,\n", ind, r->nprocs);
  ostio__sbuf_put(s, "%s  \"layout\": {\"stripe_count\": %d, \"stripe_size\": %" PRId64
          ", \"ncomponents\": %d, \"source\": ", ind,
      f->stripe_count, f->stripe_size, f->ncomponents);
  put_json_string(s, f->source);
  ostio__sbuf_put(s, "},\n%s  \"strategy\": ", ind);
  put_json_string(s, f->strategy);
  ostio__sbuf_put(s, ",\n%s  \"unknown_hints\": [", ind);
  for (int i = 0; i < f->nunknown; i++) {
    if (i) ostio__sbuf_put(s, ", ");
    put_unknown(s, &f->unknown[i], -1);
  }
  ostio__sbuf_put(s, "],\n%s  \"unknown_hints_more\": %d", ind, f->unknown_more);

  ostio__sbuf_put(s, ",\n%s  \"counters\": {\n", ind);
  for (int i = 0; i < OSTIO__NSTAT; i++)
    ostio__sbuf_put(s, "%s    \"%s\": {\"sum\": %" PRId64 ", \"max\": %" PRId64 ", \"min\": %" PRId64 "}%s\n",
        ind, counters[i].name, r->sum[i], r->max[i], r->min[i], i + 1 < OSTIO__NSTAT ? "," : "");
  ostio__sbuf_put(s, "%s  },\n%s  \"timers\": {\n", ind, ind);
  for (int i = 0; i < OSTIO__NTIMER; i++)
    ostio__sbuf_put(s, "%s    \"%s\": {\"sum\": %s, \"max\": %s}%s\n", ind, timers[i].name,
        json_double(a, sizeof a, r->tsum[i]), json_double(b, sizeof b, r->tmax[i]),
        i + 1 < OSTIO__NTIMER ? "," : "");
  ostio__sbuf_put(s, "%s  },\n", ind);
  char ind2[64];
  snprintf(ind2, sizeof ind2, "%s  ", ind);
  put_derived(s, ind2, r->sum, r->max);
  ostio__sbuf_put(s, "\n%s}", ind);
}

int ostio__stats_format_json(const ostio__stats_reduced *r, const ostio__stats_info *info,
                             char **out)
{
  ostio__sbuf s = {0};
  if (!out) return ostio__fail(OSTIO_EINVAL, "statistics JSON: NULL output pointer");
  *out = NULL;
  if (!r) return ostio__fail(OSTIO_EINVAL, "statistics JSON: NULL reduced statistics");
  ostio__stats_info none = {0};
  file_rec f;
  rec_view(&f, r, info ? info : &none);
  put_file(&s, &f, "");
  ostio__sbuf_put(&s, "\n");
  return finish(&s, out, "JSON");
}

/* ---- the job document ----------------------------------------------------- */

#define JOB_NSTRAT 16
#define JOB_NUNKNOWN 32

struct ostio__stats_job {
  ostio__stats_jobid id;
  int max_files;
  int64_t nfiles;
  int nrec, caprec;
  file_rec *rec;
  int nprocs_max;
  int64_t total[OSTIO__NSTAT];          /* SUM counters: sum; MAX counters: max */
  double tsum[OSTIO__NTIMER], tmax[OSTIO__NTIMER];
  struct { char name[32]; int64_t files; } strat[JOB_NSTRAT];
  int nstrat;
  int64_t slow_index;                   /* -1: none, or the slowest is not listed */
  double slow_time;
  char *slow_path;
  int have_slow;
  struct { ostio__hint_unknown u; int64_t files; } unk[JOB_NUNKNOWN];
  int nunk;
};

static char *dup_or_null(const char *str, int *oom)
{
  if (!str) return NULL;
  char *d = strdup(str);
  if (!d) *oom = 1;
  return d;
}

ostio__stats_job *ostio__stats_job_new(const ostio__stats_jobid *id, int max_files)
{
  ostio__stats_job *job = calloc(1, sizeof *job);
  if (!job) return NULL;
  if (id) job->id = *id;
  job->id.id[sizeof job->id.id - 1] = '\0';
  job->max_files = max_files < 0 ? 0 : max_files;
  job->slow_index = -1;
  return job;
}

void ostio__stats_job_free(ostio__stats_job *job)
{
  if (!job) return;
  for (int i = 0; i < job->nrec; i++) {
    free(job->rec[i].path);
    free(job->rec[i].strategy);
    free(job->rec[i].source);
  }
  free(job->rec);
  free(job->slow_path);
  free(job);
}

int ostio__stats_job_add(ostio__stats_job *job, const ostio__stats_reduced *r,
                         const ostio__stats_info *info)
{
  if (!job || !r) return ostio__fail(OSTIO_EINVAL, "statistics job: NULL job or statistics");
  ostio__stats_info none = {0};
  file_rec view;
  rec_view(&view, r, info ? info : &none);
  int oom = 0;

  if (job->nrec < job->max_files) {
    if (job->nrec == job->caprec) {
      int cap = job->caprec ? 2 * job->caprec : 8;
      if (cap > job->max_files) cap = job->max_files;
      file_rec *n = realloc(job->rec, (size_t)cap * sizeof *n);
      if (!n) return ostio__fail(OSTIO_ENOMEM, "statistics job: out of memory");
      job->rec = n;
      job->caprec = cap;
    }
    file_rec *f = &job->rec[job->nrec];
    *f = view;
    f->path = dup_or_null(view.path, &oom);
    f->strategy = dup_or_null(view.strategy, &oom);
    f->source = dup_or_null(view.source, &oom);
    if (oom) {
      free(f->path);
      free(f->strategy);
      free(f->source);
      return ostio__fail(OSTIO_ENOMEM, "statistics job: out of memory");
    }
    job->nrec++;
  }

  /* The summary. */
  for (int i = 0; i < OSTIO__NSTAT; i++) {
    if (counters[i].reduce == RED_SUM) job->total[i] = sat_add(job->total[i], r->sum[i]);
    else if (job->nfiles == 0 || r->max[i] > job->total[i]) job->total[i] = r->max[i];
  }
  for (int i = 0; i < OSTIO__NTIMER; i++) {
    job->tsum[i] += r->tsum[i];
    if (job->nfiles == 0 || r->tmax[i] > job->tmax[i]) job->tmax[i] = r->tmax[i];
  }
  if (r->nprocs > job->nprocs_max) job->nprocs_max = r->nprocs;
  double t = r->tmax[OSTIO__T_time_io];
  if (!isfinite(t)) t = 0;
  if (!job->have_slow || t > job->slow_time) {
    char *p = dup_or_null(view.path, &oom);
    if (!oom) {
      free(job->slow_path);
      job->slow_path = p;
      job->slow_time = t;
      job->have_slow = 1;
      job->slow_index = job->nfiles < job->max_files ? job->nfiles : -1;
    }
  }
  const char *sname = view.strategy ? view.strategy : "(none)";
  int k = 0;
  while (k < job->nstrat && strcmp(job->strat[k].name, sname) != 0) k++;
  if (k == job->nstrat && k < JOB_NSTRAT) {
    snprintf(job->strat[k].name, sizeof job->strat[k].name, "%s", sname);
    job->nstrat++;
  }
  if (k < job->nstrat) job->strat[k].files++;
  for (int u = 0; u < view.nunknown; u++) {
    int j = 0;
    while (j < job->nunk && strcmp(job->unk[j].u.key, view.unknown[u].key) != 0) j++;
    if (j == job->nunk && j < JOB_NUNKNOWN) {
      job->unk[j].u = view.unknown[u];
      job->nunk++;
    }
    if (j < job->nunk) job->unk[j].files++;
  }
  job->nfiles++;
  return 0;
}

int ostio__stats_job_format(const ostio__stats_job *job, char **out)
{
  ostio__sbuf s = {0};
  char a[64], b[64];
  if (!out) return ostio__fail(OSTIO_EINVAL, "statistics job: NULL output pointer");
  *out = NULL;
  if (!job) return ostio__fail(OSTIO_EINVAL, "statistics job: NULL job");

  ostio__sbuf_put(&s, "{\n  \"format\": \"ostio-stats\",\n  \"version\": 2,\n  \"job\": {\"id\": ");
  put_json_string(&s, job->id.id);
  ostio__sbuf_put(&s, ", \"id_source\": ");
  put_json_string(&s, job->id.source);
  ostio__sbuf_put(&s, ", \"pid\": %ld, \"world_rank\": %d, \"world_size\": %d, "
          "\"max_files\": %d},\n", job->id.pid, job->id.world_rank, job->id.world_size,
      job->max_files);

  ostio__sbuf_put(&s, "  \"summary\": {\n");
  ostio__sbuf_put(&s, "    \"files\": %" PRId64 ",\n    \"files_listed\": %d,\n"
          "    \"files_omitted\": %" PRId64 ",\n    \"nprocs_max\": %d,\n",
      job->nfiles, job->nrec, job->nfiles - job->nrec, job->nprocs_max);
  ostio__sbuf_put(&s, "    \"bytes_written\": %" PRId64 ",\n    \"bytes_read\": %" PRId64 ",\n",
      job->total[OSTIO__STAT_bytes_written], job->total[OSTIO__STAT_bytes_read]);
  ostio__sbuf_put(&s, "    \"counters\": {");
  for (int i = 0; i < OSTIO__NSTAT; i++)
    ostio__sbuf_put(&s, "%s\n      \"%s\": %" PRId64, i ? "," : "", counters[i].name,
        job->total[i]);
  ostio__sbuf_put(&s, "\n    },\n    \"timers\": {");
  for (int i = 0; i < OSTIO__NTIMER; i++)
    ostio__sbuf_put(&s, "%s\n      \"%s\": {\"sum\": %s, \"max\": %s}", i ? "," : "",
        timers[i].name, json_double(a, sizeof a, job->tsum[i]),
        json_double(b, sizeof b, job->tmax[i]));
  ostio__sbuf_put(&s, "\n    },\n");
  put_derived(&s, "    ", job->total, job->total);
  ostio__sbuf_put(&s, ",\n    \"strategies\": {");
  for (int k = 0; k < job->nstrat; k++) {
    ostio__sbuf_put(&s, "%s", k ? ", " : "");
    put_json_string(&s, job->strat[k].name);
    ostio__sbuf_put(&s, ": %" PRId64, job->strat[k].files);
  }
  ostio__sbuf_put(&s, "},\n    \"slowest_file\": ");
  if (!job->have_slow) {
    ostio__sbuf_put(&s, "null");
  } else {
    ostio__sbuf_put(&s, "{\"file\": ");
    put_json_string(&s, job->slow_path);
    if (job->slow_index >= 0) ostio__sbuf_put(&s, ", \"index\": %" PRId64, job->slow_index);
    else ostio__sbuf_put(&s, ", \"index\": null");
    ostio__sbuf_put(&s, ", \"time_io_max\": %s}", json_double(a, sizeof a, job->slow_time));
  }
  ostio__sbuf_put(&s, ",\n    \"unknown_hints\": [");
  for (int u = 0; u < job->nunk; u++) {
    if (u) ostio__sbuf_put(&s, ", ");
    put_unknown(&s, &job->unk[u].u, job->unk[u].files);
  }
  ostio__sbuf_put(&s, "]\n  },\n  \"files\": [");
  for (int i = 0; i < job->nrec; i++) {
    ostio__sbuf_put(&s, "%s\n    ", i ? "," : "");
    put_file(&s, &job->rec[i], "    ");
  }
  ostio__sbuf_put(&s, "%s]\n}\n", job->nrec ? "\n  " : "");
  return finish(&s, out, "JSON");
}

/* ---- OSTIO_STATS and PATH patterns ---------------------------------------- */

#define SPEC_FORMS                                                                      \
  "accepted: unset, empty or 0 (no statistics), 1 (text report on stderr of rank 0 at " \
  "close), json:PATH (one JSON document per job at PATH, written by rank 0; %%r, %%p, " \
  "%%j and %%%% in PATH are the writer's rank, its pid, the job id and %%)"

/* "%.64s" of text with control characters shown as '?' (one line). */
static void quote_plain(char *buf, size_t cap, const char *text)
{
  size_t j = 0, n = strlen(text);
  for (size_t i = 0; i < n && i < 64 && j + 1 < cap; i++) {
    unsigned char c = (unsigned char)text[i];
    buf[j++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  if (n > 64 && j + 4 < cap) {
    memcpy(buf + j, "...", 3);
    j += 3;
  }
  buf[j] = '\0';
}

int ostio__stats_parse_spec(const char *spec, int *mode, char *why, size_t cap)
{
  char q[80];
  int m = OSTIO__STATS_OFF;
  if (why && cap) why[0] = '\0';
  if (mode) *mode = OSTIO__STATS_OFF;
  if (!spec || !*spec || !strcmp(spec, "0")) return 0;
  if (!strcmp(spec, "1")) m = OSTIO__STATS_TEXT;
  else if (!strncmp(spec, "json:", 5) && spec[5]) m = OSTIO__STATS_JSON;
  quote_plain(q, sizeof q, spec);
  if (m == OSTIO__STATS_OFF) {
    if (why && cap)
      snprintf(why, cap, !strcmp(spec, "json:") ? "OSTIO_STATS=\"%s\" names no file; " SPEC_FORMS
                                                : "OSTIO_STATS=\"%s\" is not a statistics "
                                                  "setting; " SPEC_FORMS, q);
    return OSTIO_EINVAL;
  }
  if (m == OSTIO__STATS_JSON) {
    for (const char *p = spec + 5; *p; p++) {
      if (*p != '%') continue;
      if (p[1] && strchr("rpj%", p[1])) {
        p++;
        continue;
      }
      char what[16];
      if (p[1] && (unsigned char)p[1] >= 0x20 && (unsigned char)p[1] < 0x7f)
        snprintf(what, sizeof what, "%%%c", p[1]);
      else
        snprintf(what, sizeof what, "%s", p[1] ? "a %" : "a final %");
      if (why && cap)
        snprintf(why, cap, "OSTIO_STATS=\"%s\": %s in PATH is not a pattern (%%r, %%p, %%j "
                 "or %%%%); " SPEC_FORMS, q, what);
      return OSTIO_EINVAL;
    }
  }
  if (mode) *mode = m;
  return 0;
}

void ostio__stats_jobid_get(ostio__stats_jobid *id)
{
  static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"};
  memset(id, 0, sizeof *id);
  id->pid = (long)getpid();
  id->world_size = 1;
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) {
    MPI_Comm_rank(MPI_COMM_WORLD, &id->world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &id->world_size);
  }
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) {
      snprintf(id->id, sizeof id->id, "%s", v);
      id->source = vars[i];
      return;
    }
  }
  snprintf(id->id, sizeof id->id, "pid%ld", id->pid);
  id->source = "pid";
}

int ostio__stats_expand_path(const char *pattern, const ostio__stats_jobid *id, char *out,
                             size_t cap)
{
  size_t j = 0;
  char num[32];
  if (!pattern || !id || !out || cap == 0) return OSTIO_EINVAL;
  for (const char *p = pattern; *p; p++) {
    const char *add = NULL;
    char one[2] = {*p, '\0'};
    int job = 0;
    if (*p != '%') {
      add = one;
    } else {
      switch (p[1]) {
      case 'r': snprintf(num, sizeof num, "%d", id->world_rank); add = num; break;
      case 'p': snprintf(num, sizeof num, "%ld", id->pid); add = num; break;
      case 'j': add = id->id; job = 1; break;
      case '%': add = "%"; break;
      default: out[0] = '\0'; return OSTIO_EINVAL;
      }
      p++;
    }
    for (const char *c = add; *c; c++) {
      if (j + 1 >= cap) {
        out[0] = '\0';
        return OSTIO_ERANGE;
      }
      out[j++] = job && *c == '/' ? '_' : *c;
    }
  }
  out[j] = '\0';
  return 0;
}

/* ---- the collective report ------------------------------------------------ */

/* MPI reduction operator over ostio__stats_reduced (a contiguous type of
 * sizeof bytes, so MPI never splits one element). memcpy: MPI's buffers
 * need not be aligned for int64_t. */
static void merge_op(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
  ostio__stats_reduced a, b;
  char *in = invec, *io = inoutvec;
  (void)type;
  for (int i = 0; i < *len; i++) {
    memcpy(&a, io + (size_t)i * sizeof a, sizeof a);
    memcpy(&b, in + (size_t)i * sizeof b, sizeof b);
    merge(&a, &b);
    memcpy(io + (size_t)i * sizeof a, &a, sizeof a);
  }
}

/* Folds every rank's stats into *all on rank 0. 0, or -1 when MPI failed. */
static int reduce_to_root(MPI_Comm comm, const ostio__stats *s, ostio__stats_reduced *all)
{
  ostio__stats_reduced mine;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int rc = 0;
  ostio__stats_reduced_init(&mine);
  ostio__stats_reduced_init(all);
  ostio__stats_fold(&mine, s);
  if (MPI_Type_contiguous((int)sizeof mine, MPI_BYTE, &type) != MPI_SUCCESS ||
      MPI_Type_commit(&type) != MPI_SUCCESS || MPI_Op_create(merge_op, 1, &op) != MPI_SUCCESS ||
      MPI_Reduce(&mine, all, 1, type, op, 0, comm) != MPI_SUCCESS)
    rc = -1;
  if (op != MPI_OP_NULL) MPI_Op_free(&op);
  if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  return rc;
}

/* The process's state: its job document (for the expanded PATH it was
 * made for) and whether it warned. One lock: threads may close files. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static ostio__stats_job *cur_job;
static char *cur_path;
static int warned_spec, warned_write;

void ostio__stats_reset(void)
{
  pthread_mutex_lock(&state_lock);
  ostio__stats_job_free(cur_job);
  cur_job = NULL;
  free(cur_path);
  cur_path = NULL;
  warned_spec = warned_write = 0;
  pthread_mutex_unlock(&state_lock);
}

/* The documented exception to "the library never prints": one line, once
 * per process and kind (state_lock held). */
static void warn_once(int *flag, const char *what)
{
  if (*flag) return;
  *flag = 1;
  fprintf(stderr, "ostio: warning: %s; the statistics are skipped and the application goes "
          "on (said once per process)\n", what);
  fflush(stderr);
}

static int write_all(int fd, const char *buf, size_t len)
{
  while (len > 0) {
    ssize_t w = write(fd, buf, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : EIO;
    buf += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Writes doc to path so that path always holds a whole document: a
 * temporary next to it, then rename. A path that exists and is not a
 * regular file (a terminal, /dev/stdout, a FIFO with a reader) is written
 * in place, never blocking. 0 or an errno, with what failed in why. */
static int write_doc(const char *path, const char *doc, char *why, size_t cap)
{
  char q[80], *tmp = NULL, *real = NULL;
  struct stat st;
  int e = 0, fd;
  quote_plain(q, sizeof q, path);
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      e = errno;
      snprintf(why, cap, "OSTIO_STATS=json:%s: cannot open it for writing: %s", q, strerror(e));
      return e;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    e = write_all(fd, doc, strlen(doc));
    if (close(fd) != 0 && !e) e = errno;
    if (e) snprintf(why, cap, "OSTIO_STATS=json:%s: writing the statistics failed: %s", q,
                    strerror(e));
    return e;
  }
  /* A symbolic link is followed, not replaced. */
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) real = realpath(path, NULL);
  const char *target = real ? real : path;
  size_t n = strlen(target) + 48;
  tmp = malloc(n);
  if (!tmp) {
    free(real);
    snprintf(why, cap, "OSTIO_STATS=json:%s: out of memory", q);
    return ENOMEM;
  }
  snprintf(tmp, n, "%s.tmp.%ld", target, (long)getpid());
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0 && errno == EEXIST) { /* left by a crashed process that had our pid */
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  }
  if (fd < 0) {
    e = errno;
    snprintf(why, cap, "OSTIO_STATS=json:%s: cannot create a file next to it: %s", q,
             strerror(e));
  } else {
    e = write_all(fd, doc, strlen(doc));
    if (close(fd) != 0 && !e) e = errno;
    if (!e && rename(tmp, target) != 0) e = errno;
    if (e) {
      snprintf(why, cap, "OSTIO_STATS=json:%s: writing the statistics failed: %s", q,
               strerror(e));
      unlink(tmp);
    }
  }
  free(tmp);
  free(real);
  return e;
}

/* Rank 0: adds the file to the job document of path and rewrites it. */
static void emit_json(const char *path, const ostio__stats_reduced *all,
                      const ostio__stats_info *info, const ostio__stats_jobid *id)
{
  char why[700];
  char *doc = NULL;
  if (!cur_path || strcmp(cur_path, path) != 0) {
    ostio__stats_job_free(cur_job);
    free(cur_path);
    cur_job = ostio__stats_job_new(id, OSTIO__STATS_MAX_FILES);
    cur_path = strdup(path);
    if (!cur_job || !cur_path) {
      ostio__stats_job_free(cur_job);
      free(cur_path);
      cur_job = NULL;
      cur_path = NULL;
      warn_once(&warned_write, "OSTIO_STATS: out of memory for the statistics");
      return;
    }
  }
  /* The job's identity follows the writer (its pid changes after a fork). */
  cur_job->id = *id;
  char saved[512];
  snprintf(saved, sizeof saved, "%s", ostio_last_error());
  int rc = ostio__stats_job_add(cur_job, all, info);
  if (rc == 0) rc = ostio__stats_job_format(cur_job, &doc);
  if (rc < 0) {
    warn_once(&warned_write, ostio_last_error());
  } else if (write_doc(path, doc, why, sizeof why) != 0) {
    warn_once(&warned_write, why);
  }
  ostio__set_detail(saved);
  free(doc);
}

static void emit_text(const ostio__stats_reduced *all, const ostio__stats_info *info)
{
  char *doc = NULL;
  char saved[512];
  snprintf(saved, sizeof saved, "%s", ostio_last_error());
  if (ostio__stats_format_text(all, info, &doc) == 0) {
    fputs(doc, stderr); /* nowhere to say that stderr failed */
    fflush(stderr);
  } else {
    warn_once(&warned_write, ostio_last_error());
  }
  ostio__set_detail(saved);
  free(doc);
}

int ostio__stats_report(MPI_Comm comm, const ostio__stats *s, const ostio__stats_info *info,
                        const char *spec)
{
  int mode = OSTIO__STATS_OFF, rank = 0, initialized = 0, finalized = 0;
  int rc = s ? 0 : ostio__fail(OSTIO_EINVAL, "statistics report: NULL statistics; pass this "
                                "rank's");
  if (comm == MPI_COMM_NULL)
    return rc < 0 ? rc : ostio__fail(OSTIO_EINVAL, "statistics report: MPI_COMM_NULL given; "
                                     "pass the file's communicator");
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return rc < 0 ? rc : ostio__fail(OSTIO_EMPI, "statistics report: MPI is not initialized "
                                     "(call between MPI_Init and MPI_Finalize)");
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "statistics report: MPI_Comm_rank failed");

  /* Misuse (NULL statistics) is agreed; then rank 0's setting decides, the
   * others' are not looked at. */
  rc = ostio__agree(comm, rc);
  if (rc < 0) return rc;
  char why[700], path[4096];
  ostio__stats_jobid id;
  if (rank == 0) {
    if (ostio__stats_parse_spec(spec, &mode, why, sizeof why) < 0) {
      pthread_mutex_lock(&state_lock);
      warn_once(&warned_spec, why);
      pthread_mutex_unlock(&state_lock);
    } else if (mode == OSTIO__STATS_JSON) {
      ostio__stats_jobid_get(&id);
      int erc = ostio__stats_expand_path(spec + 5, &id, path, sizeof path);
      if (erc < 0) {
        char q[80];
        quote_plain(q, sizeof q, spec);
        snprintf(why, sizeof why, "OSTIO_STATS=\"%s\": the path is too long once expanded", q);
        pthread_mutex_lock(&state_lock);
        warn_once(&warned_spec, why);
        pthread_mutex_unlock(&state_lock);
        mode = OSTIO__STATS_OFF;
      }
    }
  }
  if (MPI_Bcast(&mode, 1, MPI_INT, 0, comm) != MPI_SUCCESS || mode == OSTIO__STATS_OFF)
    return 0;

  ostio__stats_reduced all;
  if (reduce_to_root(comm, s, &all) != 0) {
    if (rank == 0) {
      pthread_mutex_lock(&state_lock);
      warn_once(&warned_write, "OSTIO_STATS: reducing the statistics to rank 0 failed");
      pthread_mutex_unlock(&state_lock);
    }
    return 0;
  }
  if (rank != 0) return 0;
  pthread_mutex_lock(&state_lock);
  if (mode == OSTIO__STATS_JSON) emit_json(path, &all, info, &id);
  else emit_text(&all, info);
  pthread_mutex_unlock(&state_lock);
  return 0;
}
