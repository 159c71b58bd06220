/* Statistics as JSON (pure): one file's object and the job document that
 * holds every file closed plus a job-wide summary (format ostio-stats,
 * docs/stats.md). Split from stats.c. */
#include "stats/stats.h"
#include "stats/stats_advice.h"


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
#include "stats/stats_impl.h"

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
  ostio__stats_rank *ranks;     /* the per-rank records, or NULL (not gathered) */
  int nranks;
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

/* The access-size histogram {"buckets": [...], "write": [...], "read": [...]}. */
static void put_hist(ostio__sbuf *s, const int64_t (*h)[OSTIO__STATS_NHIST])
{
  ostio__sbuf_put(s, "{\"buckets\": [");
  for (int b = 0; b < OSTIO__STATS_NHIST; b++)
    ostio__sbuf_put(s, "%s\"%s\"", b ? ", " : "", ostio__stats_hist_names[b]);
  for (int w = 0; w < 2; w++) {
    ostio__sbuf_put(s, "], \"%s\": [", w == OSTIO__HIST_WRITE ? "write" : "read");
    for (int b = 0; b < OSTIO__STATS_NHIST; b++)
      ostio__sbuf_put(s, "%s%" PRId64, b ? ", " : "", h[w][b]);
  }
  ostio__sbuf_put(s, "]}");
}

/* One rank's record. */
static void put_rank(ostio__sbuf *s, const ostio__stats_rank *k)
{
  char a[64], b[64];
  ostio__sbuf_put(s, "{\"rank\": %d, \"bytes_written\": %" PRId64 ", \"bytes_read\": %" PRId64
                  ", \"writes\": %" PRId64 ", \"reads\": %" PRId64 ", \"time\": %s, "
                  "\"time_io\": %s}", (int)k->rank, k->bytes_written, k->bytes_read, k->writes,
                  k->reads, json_double(a, sizeof a, k->time), json_double(b, sizeof b, k->time_io));
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

  ostio__sbuf_put(s, ",\n%s  \"counters\": {", ind);
  const char *sep = "\n";
  for (int i = 0; i < OSTIO__NCOUNTER; i++) {
    const char *n = ostio__stats_counter_name(r->strat, i, a, sizeof a);
    if (!n) continue;
    ostio__sbuf_put(s, "%s%s    \"%s\": {\"sum\": %" PRId64 ", \"max\": %" PRId64 ", \"min\": %" PRId64 "}",
        sep, ind, n, r->sum[i], r->max[i], r->min[i]);
    sep = ",\n";
  }
  ostio__sbuf_put(s, "\n%s  },\n%s  \"timers\": {\n", ind, ind);
  for (int i = 0; i < OSTIO__NTIMER; i++)
    ostio__sbuf_put(s, "%s    \"%s\": {\"sum\": %s, \"max\": %s}%s\n", ind, ostio__stats_timers[i].name,
        json_double(a, sizeof a, r->tsum[i]), json_double(b, sizeof b, r->tmax[i]),
        i + 1 < OSTIO__NTIMER ? "," : "");
  ostio__sbuf_put(s, "%s  },\n", ind);
  char ind2[64];
  snprintf(ind2, sizeof ind2, "%s  ", ind);
  put_derived(s, ind2, r->sum, r->max);
  ostio__sbuf_put(s, ",\n%s  \"access_sizes\": ", ind);
  put_hist(s, (const int64_t (*)[OSTIO__STATS_NHIST])r->hist);
  ostio__sbuf_put(s, ",\n%s  \"app_piece_sizes\": ", ind);
  put_hist(s, (const int64_t (*)[OSTIO__STATS_NHIST])r->phist);
  ostio__sbuf_put(s, ",\n%s  \"slowest_rank\": ", ind);
  if (r->nprocs > 0) put_rank(s, &r->slowest);
  else ostio__sbuf_put(s, "null");
  ostio__sbuf_put(s, ",\n%s  \"fastest_rank\": ", ind);
  if (r->nprocs > 0) put_rank(s, &r->fastest);
  else ostio__sbuf_put(s, "null");
  ostio__sbuf_put(s, ",\n%s  \"ranks\": ", ind);
  if (!f->ranks) {
    ostio__sbuf_put(s, "null");
  } else {
    ostio__sbuf_put(s, "[");
    for (int i = 0; i < f->nranks; i++) {
      ostio__sbuf_put(s, "%s\n%s    ", i ? "," : "", ind);
      put_rank(s, &f->ranks[i]);
    }
    ostio__sbuf_put(s, "%s%s]", f->nranks ? "\n  " : "", f->nranks ? ind : "");
  }
  ostio__stats_warning w[OSTIO__STATS_NWARN];
  int nw = ostio__stats_warnings(r, f->ncomponents > 0 ? f->stripe_size : 0, w,
                                 OSTIO__STATS_NWARN);
  ostio__sbuf_put(s, ",\n%s  \"warnings\": [", ind);
  for (int i = 0; i < nw; i++) {
    ostio__sbuf_put(s, "%s{\"kind\": \"%s\", \"text\": ", i ? ", " : "", w[i].kind);
    put_json_string(s, w[i].text);
    ostio__sbuf_put(s, "}");
  }
  ostio__sbuf_put(s, "]\n%s}", ind);
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
  return ostio__stats_finish(&s, out, "JSON");
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
  int64_t total[OSTIO__NCOUNTER];       /* SUM counters: sum; MAX counters: max */
  char slots[OSTIO__STATS_NSTRAT][OSTIO__STATS_STRAT_NAME]; /* the files' strategy slots */
  double tsum[OSTIO__NTIMER], tmax[OSTIO__NTIMER];
  struct { char name[32]; int64_t files; } strat[JOB_NSTRAT];
  int nstrat;
  int64_t slow_index;                   /* -1: none, or the slowest is not listed */
  double slow_time;
  char *slow_path;
  int have_slow;
  struct { ostio__hint_unknown u; int64_t files; } unk[JOB_NUNKNOWN];
  int nunk;
  int64_t hist[2][OSTIO__STATS_NHIST];  /* over files                          */
  int64_t phist[2][OSTIO__STATS_NHIST]; /* application piece sizes, over files */
  int64_t nrankrecs;                    /* per-rank records kept               */
  ostio__stats_rank slow_rank;          /* the slowest rank of any file        */
  char *slow_rank_path;
  int64_t slow_rank_index;
  int have_slow_rank;
  char host[256];                       /* "": not a preload process record    */
};

int ostio__stats_job_set_host(ostio__stats_job *job, const char *host)
{
  if (!job || !host) return ostio__fail(OSTIO_EINVAL, "statistics job: NULL job or host");
  snprintf(job->host, sizeof job->host, "%s", host);
  return 0;
}

void ostio__stats_job_set_id(ostio__stats_job *job, const ostio__stats_jobid *id)
{
  job->id = *id;
}

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
    free(job->rec[i].ranks);
  }
  free(job->rec);
  free(job->slow_path);
  free(job->slow_rank_path);
  free(job);
}

int ostio__stats_job_add(ostio__stats_job *job, const ostio__stats_reduced *r,
                         const ostio__stats_info *info)
{
  return ostio__stats_job_add_ranks(job, r, info, NULL, 0);
}

int ostio__stats_job_add_ranks(ostio__stats_job *job, const ostio__stats_reduced *r,
                               const ostio__stats_info *info, const ostio__stats_rank *ranks,
                               int nranks)
{
  if (!job || !r) return ostio__fail(OSTIO_EINVAL, "statistics job: NULL job or statistics");
  if (nranks < 0 || (nranks > 0 && !ranks))
    return ostio__fail(OSTIO_EINVAL, "statistics job: %d rank records at NULL", nranks);
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
    f->ranks = NULL;
    f->nranks = 0;
    if (ranks && nranks <= OSTIO__STATS_MAX_RANK_RECS - job->nrankrecs) {
      f->ranks = malloc((size_t)(nranks ? nranks : 1) * sizeof *ranks);
      if (!f->ranks) oom = 1;
      else if (nranks) memcpy(f->ranks, ranks, (size_t)nranks * sizeof *ranks);
      f->nranks = nranks;
    }
    if (oom) {
      free(f->path);
      free(f->strategy);
      free(f->source);
      free(f->ranks);
      return ostio__fail(OSTIO_ENOMEM, "statistics job: out of memory");
    }
    job->nrankrecs += f->nranks;
    job->nrec++;
  }
  for (int w = 0; w < 2; w++)
    for (int b = 0; b < OSTIO__STATS_NHIST; b++)
      job->hist[w][b] = ostio__stats_sat_add(job->hist[w][b], r->hist[w][b]),
      job->phist[w][b] = ostio__stats_sat_add(job->phist[w][b], r->phist[w][b]);
  if (r->nprocs > 0 && (!job->have_slow_rank || r->slowest.time > job->slow_rank.time)) {
    char *p = dup_or_null(view.path, &oom);
    if (!oom) {
      free(job->slow_rank_path);
      job->slow_rank_path = p;
      job->slow_rank = r->slowest;
      job->have_slow_rank = 1;
      job->slow_rank_index = job->nfiles < job->max_files ? job->nfiles : -1;
    }
  }

  /* The summary. A process's files share the library's registry, so their
   * strategy slots agree; a slot only a later file names is adopted. */
  for (int i = 0; i < OSTIO__STATS_NSTRAT; i++)
    if (!job->slots[i][0]) memcpy(job->slots[i], r->strat[i], sizeof job->slots[i]);
  for (int i = 0; i < OSTIO__NCOUNTER; i++) {
    if (ostio__stats_counter_reduce(i) == OSTIO__STATS_RED_SUM) job->total[i] = ostio__stats_sat_add(job->total[i], r->sum[i]);
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
  if (job->host[0]) { /* a preloaded process's record (merged by `ostio report`) */
    ostio__sbuf_put(&s, "  \"process\": {\"kind\": \"preload\", \"host\": ");
    put_json_string(&s, job->host);
    ostio__sbuf_put(&s, ", \"pid\": %ld},\n", job->id.pid);
  }

  ostio__sbuf_put(&s, "  \"summary\": {\n");
  ostio__sbuf_put(&s, "    \"files\": %" PRId64 ",\n    \"files_listed\": %d,\n"
          "    \"files_omitted\": %" PRId64 ",\n    \"nprocs_max\": %d,\n",
      job->nfiles, job->nrec, job->nfiles - job->nrec, job->nprocs_max);
  ostio__sbuf_put(&s, "    \"bytes_written\": %" PRId64 ",\n    \"bytes_read\": %" PRId64 ",\n",
      job->total[OSTIO__STAT_bytes_written], job->total[OSTIO__STAT_bytes_read]);
  ostio__sbuf_put(&s, "    \"counters\": {");
  for (int i = 0, listed = 0; i < OSTIO__NCOUNTER; i++) {
    const char *n = ostio__stats_counter_name(job->slots, i, a, sizeof a);
    if (n) ostio__sbuf_put(&s, "%s\n      \"%s\": %" PRId64, listed++ ? "," : "", n, job->total[i]);
  }
  ostio__sbuf_put(&s, "\n    },\n    \"timers\": {");
  for (int i = 0; i < OSTIO__NTIMER; i++)
    ostio__sbuf_put(&s, "%s\n      \"%s\": {\"sum\": %s, \"max\": %s}", i ? "," : "",
        ostio__stats_timers[i].name, json_double(a, sizeof a, job->tsum[i]),
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
  ostio__sbuf_put(&s, ",\n    \"slowest_rank\": ");
  if (!job->have_slow_rank) {
    ostio__sbuf_put(&s, "null");
  } else {
    ostio__sbuf_put(&s, "{\"file\": ");
    put_json_string(&s, job->slow_rank_path);
    if (job->slow_rank_index >= 0) ostio__sbuf_put(&s, ", \"index\": %" PRId64 ", \"record\": ",
                                                   job->slow_rank_index);
    else ostio__sbuf_put(&s, ", \"index\": null, \"record\": ");
    put_rank(&s, &job->slow_rank);
    ostio__sbuf_put(&s, "}");
  }
  ostio__sbuf_put(&s, ",\n    \"access_sizes\": ");
  put_hist(&s, (const int64_t (*)[OSTIO__STATS_NHIST])job->hist);
  ostio__sbuf_put(&s, ",\n    \"app_piece_sizes\": ");
  put_hist(&s, (const int64_t (*)[OSTIO__STATS_NHIST])job->phist);
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
  return ostio__stats_finish(&s, out, "JSON");
}
