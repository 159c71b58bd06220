/* Statistics: the counter and timer tables, lookup by name, the fold over
 * ranks and the text report (pure). The JSON documents are in stats_json.c,
 * OSTIO_STATS and the collective report at close in stats_report.c.
 * Everything is driven by the X-macro lists in stats.h. See docs/stats.md. */
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


const ostio__stats_counter_def ostio__stats_counters[OSTIO__NSTAT] = {
#define COUNTER_(n, r, d) {#n, OSTIO__STATS_RED_##r, d},
  OSTIO_STATS_COUNTERS(COUNTER_)
#undef COUNTER_
};

const ostio__stats_timer_def ostio__stats_timers[OSTIO__NTIMER] = {
#define TIMER_(n, d) {#n, d},
  OSTIO_STATS_TIMERS(TIMER_)
#undef TIMER_
};

const char *const ostio__stats_hist_names[OSTIO__STATS_NHIST] = {
  "0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M", "10M-100M",
  "100M-1G", "1G+"};

#define STRAT_PREFIX "strategy_"

const char *ostio__stats_counter_name(const char (*strat)[OSTIO__STATS_STRAT_NAME], int i,
                                      char *buf, size_t cap)
{
  if (i < OSTIO__NSTAT) return ostio__stats_counters[i].name;
  const char *n = strat[i - OSTIO__NSTAT];
  if (!n[0]) return NULL;
  snprintf(buf, cap, STRAT_PREFIX "%.*s", OSTIO__STATS_STRAT_NAME - 1, n);
  return buf;
}

int ostio__stats_counter_reduce(int i)
{
  return i < OSTIO__NSTAT ? ostio__stats_counters[i].reduce : OSTIO__STATS_RED_SUM;
}

int ostio__stats_name_strategy(ostio__stats *s, int i, const char *name)
{
  if (!s || !name || i < 0 || i >= OSTIO__STATS_NSTRAT || !name[0] ||
      strlen(name) >= OSTIO__STATS_STRAT_NAME)
    return ostio__fail(OSTIO_EINVAL, "statistics: no strategy slot %d for \"%.24s\" (%d slots, "
                       "names of 1 to %d bytes)", i, name ? name : "(null)", OSTIO__STATS_NSTRAT,
                       OSTIO__STATS_STRAT_NAME - 1);
  snprintf(s->strat[i], sizeof s->strat[i], "%s", name);
  return 0;
}

/* ---- application pieces (issue 31) ---------------------------------------- */

/* The counters of one direction, in the order of the list. */
static const ostio__stat_id piece_ids[2][6] = {
  [OSTIO__HIST_WRITE] = {OSTIO__STAT_app_write_pieces, OSTIO__STAT_app_write_bytes,
                         OSTIO__STAT_app_write_contig, OSTIO__STAT_app_write_strided,
                         OSTIO__STAT_app_write_stride, OSTIO__STAT_app_write_piece_max},
  [OSTIO__HIST_READ] = {OSTIO__STAT_app_read_pieces, OSTIO__STAT_app_read_bytes,
                        OSTIO__STAT_app_read_contig, OSTIO__STAT_app_read_strided,
                        OSTIO__STAT_app_read_stride, OSTIO__STAT_app_read_piece_max},
};

/* One piece of one direction: id, c and q found once per call by the
 * callers; b its size's bucket. off >= 0, len > 0, off + len <= INT64_MAX
 * (checked by the callers). */
static inline void piece_add(const ostio__stat_id *id, int64_t *c, int64_t *ph,
                             ostio__stats_seq *q, int64_t off, int64_t len, int b)
{
  c[id[0]]++;
  c[id[1]] = ostio__stats_sat_add(c[id[1]], len);
  if (len > c[id[5]]) c[id[5]] = len;
  ph[b]++;
  if (q->have && off == q->end) {
    c[id[2]]++;
  } else if (q->have && off > q->start) {
    int64_t step = off - q->start;
    if (c[id[4]] == 0) c[id[4]] = step;
    if (step == c[id[4]]) c[id[3]]++;
  }
  q->start = off;
  q->end = off + len;
  q->have = 1;
}

void ostio__stats_piece(ostio__stats *s, int is_write, int64_t off, int64_t len)
{
  if (!s || off < 0 || len <= 0 || len > INT64_MAX - off) return;
  int h = is_write ? OSTIO__HIST_WRITE : OSTIO__HIST_READ;
  piece_add(piece_ids[h], s->c, s->phist[h], &s->seq[h], off, len,
            ostio__stats_hist_bucket(len));
}

/* The bucket of the last length is kept: a call's pieces are mostly of one
 * size. */
void ostio__stats_pieces(ostio__stats *s, int is_write, const ostio_extent *ext, size_t n)
{
  int64_t off = 0, end = 0, memo_len = -1;
  int open = 0, b = 0;
  if (!s || !ext) return;
  int h = is_write ? OSTIO__HIST_WRITE : OSTIO__HIST_READ;
  const ostio__stat_id *id = piece_ids[h];
  int64_t *c = s->c, *ph = s->phist[h];
  ostio__stats_seq *q = &s->seq[h];
  for (size_t i = 0; i <= n; i++) {
    int64_t o = 0, l = 0;
    if (i < n) {
      o = ext[i].offset;
      l = ext[i].length;
      if (l <= 0) continue;
      if (open && o == end && l <= INT64_MAX - end) {
        end += l;
        continue;
      }
    }
    if (open && off >= 0 && end > off) { /* the piece before this extent (or the last) */
      if (end - off != memo_len) b = ostio__stats_hist_bucket(memo_len = end - off);
      piece_add(id, c, ph, q, off, end - off, b);
    }
    off = o;
    end = l <= INT64_MAX - o ? o + l : o;
    open = 1;
  }
}

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
  char buf[64];
  for (int i = 0; name && i < OSTIO__NCOUNTER; i++) {
    const char *n = ostio__stats_counter_name(s->strat, i, buf, sizeof buf);
    if (n && !strcmp(name, n)) {
      *value = (double)s->c[i];
      return 0;
    }
  }
  for (int i = 0; name && i < OSTIO__NTIMER; i++)
    if (!strcmp(name, ostio__stats_timers[i].name)) {
      *value = s->t[i];
      return 0;
    }
  /* The detail lists every known name (about 700 characters in all). */
  char known[1280];
  size_t len = 0;
  known[0] = '\0';
  for (int i = 0; i < OSTIO__NCOUNTER + OSTIO__NTIMER; i++) {
    const char *n = i < OSTIO__NCOUNTER ? ostio__stats_counter_name(s->strat, i, buf, sizeof buf)
                                        : ostio__stats_timers[i - OSTIO__NCOUNTER].name;
    if (!n) continue;
    int w = snprintf(known + len, sizeof known - len, "%s%s", len ? ", " : "", n);
    if (w < 0 || (size_t)w >= sizeof known - len) break;
    len += (size_t)w;
  }
  return ostio__fail(OSTIO_EINVAL, "unknown statistic \"%.24s\"; known: %s",
                     name ? name : "(null)", known);
}

/* Sums saturate instead of overflowing (counters never get near, but a
 * corrupted one must not make the report undefined). */
int64_t ostio__stats_sat_add(int64_t a, int64_t b)
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

void ostio__stats_rank_of(const ostio__stats *s, int rank, ostio__stats_rank *out)
{
  memset(out, 0, sizeof *out);
  out->rank = rank;
  out->bytes_written = s->c[OSTIO__STAT_bytes_written];
  out->bytes_read = s->c[OSTIO__STAT_bytes_read];
  out->writes = ostio__stats_sat_add(s->c[OSTIO__STAT_coll_writes],
                                     s->c[OSTIO__STAT_indep_writes]);
  out->reads = ostio__stats_sat_add(s->c[OSTIO__STAT_coll_reads], s->c[OSTIO__STAT_indep_reads]);
  const double *t = s->t;
  double parts = t[OSTIO__T_time_plan] + t[OSTIO__T_time_exchange] + t[OSTIO__T_time_io] +
                 t[OSTIO__T_time_wait];
  out->time = t[OSTIO__T_time_total] > parts ? t[OSTIO__T_time_total] : parts;
  if (!isfinite(out->time)) out->time = 0;
  out->time_io = isfinite(t[OSTIO__T_time_io]) ? t[OSTIO__T_time_io] : 0;
}

/* a is slower than b (ties: the lower rank is the slowest and the fastest). */
static int slower(const ostio__stats_rank *a, const ostio__stats_rank *b)
{
  return a->time > b->time || (a->time == b->time && a->rank < b->rank);
}
static int faster(const ostio__stats_rank *a, const ostio__stats_rank *b)
{
  return a->time < b->time || (a->time == b->time && a->rank < b->rank);
}

void ostio__stats_fold(ostio__stats_reduced *r, const ostio__stats *s)
{
  ostio__stats_fold_rank(r, s, r->nprocs);
}

void ostio__stats_fold_rank(ostio__stats_reduced *r, const ostio__stats *s, int rank)
{
  int first = r->nprocs == 0;
  ostio__stats_rank me;
  ostio__stats_rank_of(s, rank, &me);
  if (first || slower(&me, &r->slowest)) r->slowest = me;
  if (first || faster(&me, &r->fastest)) r->fastest = me;
  for (int w = 0; w < 2; w++)
    for (int b = 0; b < OSTIO__STATS_NHIST; b++)
      r->hist[w][b] = ostio__stats_sat_add(r->hist[w][b], s->hist[w][b]),
      r->phist[w][b] = ostio__stats_sat_add(r->phist[w][b], s->phist[w][b]);
  if (first) memcpy(r->strat, s->strat, sizeof r->strat);
  for (int i = 0; i < OSTIO__NCOUNTER; i++) {
    int64_t v = s->c[i];
    r->sum[i] = ostio__stats_sat_add(r->sum[i], v);
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
void ostio__stats_merge(ostio__stats_reduced *a, const ostio__stats_reduced *b)
{
  if (b->nprocs == 0) return;
  if (a->nprocs == 0) {
    memcpy(a, b, sizeof *a);
    return;
  }
  for (int i = 0; i < OSTIO__NCOUNTER; i++) {
    a->sum[i] = ostio__stats_sat_add(a->sum[i], b->sum[i]);
    if (b->max[i] > a->max[i]) a->max[i] = b->max[i];
    if (b->min[i] < a->min[i]) a->min[i] = b->min[i];
  }
  for (int i = 0; i < OSTIO__NTIMER; i++) {
    a->tsum[i] += b->tsum[i];
    if (b->tmax[i] > a->tmax[i]) a->tmax[i] = b->tmax[i];
  }
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < OSTIO__STATS_NHIST; k++)
      a->hist[w][k] = ostio__stats_sat_add(a->hist[w][k], b->hist[w][k]),
      a->phist[w][k] = ostio__stats_sat_add(a->phist[w][k], b->phist[w][k]);
  if (slower(&b->slowest, &a->slowest)) a->slowest = b->slowest;
  if (faster(&b->fastest, &a->fastest)) a->fastest = b->fastest;
  a->nprocs += b->nprocs;
}

/* ---- text output (core/strbuf.h) ---------------------------------------- */

int ostio__stats_finish(ostio__sbuf *s, char **out, const char *what)
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

/* text after lead, in lines of at most 80 columns, continued under it. */
static void put_wrapped(ostio__sbuf *s, const char *lead, const char *text)
{
  size_t indent = strlen(lead), col = indent;
  ostio__sbuf_put(s, "%s", lead);
  while (*text) {
    size_t w = strcspn(text, " ");
    if (col > indent && col + 1 + w > 80) {
      ostio__sbuf_put(s, "\n%*s", (int)indent, "");
      col = indent;
    } else if (col > indent) {
      ostio__sbuf_put(s, " ");
      col++;
    }
    ostio__sbuf_put(s, "%.*s", (int)w, text);
    col += w;
    text += w;
    while (*text == ' ') text++;
  }
  ostio__sbuf_put(s, "\n");
}

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
  if (info->ncomponents > 0)
    ostio__sbuf_put(&s, "\n  layout %d x %" PRId64 " B, %d component%s, source ",
                    info->stripe_count, info->stripe_size, info->ncomponents,
                    info->ncomponents == 1 ? "" : "s");
  else /* a log container: its bytes are in per-writer logs, not striped */
    ostio__sbuf_put(&s, "\n  layout none, source ");
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
  char name[64];
  for (int i = 0; i < OSTIO__NCOUNTER; i++) {
    const char *n = ostio__stats_counter_name(r->strat, i, name, sizeof name);
    if (!n) continue;
    if (!is_core(i) && r->sum[i] == 0 && r->max[i] == 0 && r->min[i] == 0) {
      omitted++;
      continue;
    }
    if (ostio__stats_counter_reduce(i) == OSTIO__STATS_RED_SUM) snprintf(a, sizeof a, "%" PRId64, r->sum[i]);
    else snprintf(a, sizeof a, "-");
    snprintf(b, sizeof b, "%" PRId64, r->max[i]);
    ostio__sbuf_put(&s, COLS, n, a, b);
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
    /* A feature's timers (after time_total: staging) only when it ran. */
    if (i > OSTIO__T_time_total && r->tmax[i] == 0) continue;
    snprintf(a, sizeof a, "%.6f", r->tmax[i]);
    if (r->nprocs > 0) snprintf(b, sizeof b, "%.6f", r->tsum[i] / r->nprocs);
    else snprintf(b, sizeof b, "-");
    ostio__sbuf_put(&s, COLS, ostio__stats_timers[i].name, a, b);
  }
  if (r->nprocs > 1) {
    char line[256];
    snprintf(line, sizeof line, "%d: %.6f s, %" PRId64 " B written, %" PRId64 " B read; "
             "fastest rank %d: %.6f s", (int)r->slowest.rank, r->slowest.time,
             r->slowest.bytes_written, r->slowest.bytes_read, (int)r->fastest.rank,
             r->fastest.time);
    put_wrapped(&s, "  slowest rank ", line);
  }
  static const char *const hist_lead[4] = {"  write sizes (B): ", "  read sizes (B): ",
                                           "  app write pieces (B): ", "  app read pieces (B): "};
  for (int w = 0; w < 4; w++) {
    const int64_t *h = w < 2 ? r->hist[w] : r->phist[w - 2];
    char line[512];
    size_t len = 0;
    line[0] = '\0';
    for (int k = 0; k < OSTIO__STATS_NHIST; k++) {
      if (!h[k]) continue;
      int m = snprintf(line + len, sizeof line - len, "%s%s: %" PRId64, len ? ", " : "",
                       ostio__stats_hist_names[k], h[k]);
      if (m > 0 && (size_t)m < sizeof line - len) len += (size_t)m;
    }
    if (len) put_wrapped(&s, hist_lead[w], line);
  }
  ostio__stats_warning w[OSTIO__STATS_NWARN];
  int nw = ostio__stats_warnings(r, info->ncomponents > 0 ? info->stripe_size : 0, w,
                                 OSTIO__STATS_NWARN);
  for (int i = 0; i < nw; i++) put_wrapped(&s, "  warning: ", w[i].text);
  if (nw > 0)
    put_wrapped(&s, "  ", "(ostio advise --stats FILE --system SYSTEM.json predicts each "
                          "change on a described cluster: docs/model.md)");
  return ostio__stats_finish(&s, out, "report");
}
