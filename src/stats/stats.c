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
  /* The detail lists every known name (about 350 characters in all). */
  char known[480];
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
  ostio__sbuf_put(&s, "\n" COLS, "counter", "total over ranks", "max of one rank");

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

int ostio__stats_format_json(const ostio__stats_reduced *r, const ostio__stats_info *info,
                             char **out)
{
  ostio__sbuf s = {0};
  char a[64], b[64];
  if (!out) return ostio__fail(OSTIO_EINVAL, "statistics JSON: NULL output pointer");
  *out = NULL;
  if (!r) return ostio__fail(OSTIO_EINVAL, "statistics JSON: NULL reduced statistics");
  ostio__stats_info none = {0};
  if (!info) info = &none;

  ostio__sbuf_put(&s, "{\n  \"format\": \"ostio-stats\",\n  \"version\": 1,\n  \"file\": ");
  put_json_string(&s, info->path);
  ostio__sbuf_put(&s, ",\n  \"nprocs\": %d,\n", r->nprocs);
  ostio__sbuf_put(&s, "  \"layout\": {\"stripe_count\": %d, \"stripe_size\": %" PRId64
          ", \"ncomponents\": %d, \"source\": ",
      info->stripe_count, info->stripe_size, info->ncomponents);
  put_json_string(&s, info->layout_source);
  ostio__sbuf_put(&s, "},\n  \"strategy\": ");
  put_json_string(&s, info->strategy);

  ostio__sbuf_put(&s, ",\n  \"counters\": {\n");
  for (int i = 0; i < OSTIO__NSTAT; i++)
    ostio__sbuf_put(&s, "    \"%s\": {\"sum\": %" PRId64 ", \"max\": %" PRId64 ", \"min\": %" PRId64 "}%s\n",
        counters[i].name, r->sum[i], r->max[i], r->min[i], i + 1 < OSTIO__NSTAT ? "," : "");
  ostio__sbuf_put(&s, "  },\n  \"timers\": {\n");
  for (int i = 0; i < OSTIO__NTIMER; i++)
    ostio__sbuf_put(&s, "    \"%s\": {\"sum\": %s, \"max\": %s}%s\n", timers[i].name,
        json_double(a, sizeof a, r->tsum[i]), json_double(b, sizeof b, r->tmax[i]),
        i + 1 < OSTIO__NTIMER ? "," : "");

  const int64_t *sum = r->sum, *max = r->max;
  int64_t calls = sum[OSTIO__STAT_aggr_calls];
  ostio__sbuf_put(&s, "  },\n  \"derived\": {\n");
  ostio__sbuf_put(&s, "    \"objects_per_aggregator_max\": %" PRId64 ",\n", max[OSTIO__STAT_objects_max]);
  ostio__sbuf_put(&s, "    \"objects_per_aggregator_mean\": %s,\n",
      json_ratio(a, sizeof a, sum[OSTIO__STAT_objects_touched], calls));
  ostio__sbuf_put(&s, "    \"osts_per_aggregator_max\": %" PRId64 ",\n", max[OSTIO__STAT_osts_max]);
  ostio__sbuf_put(&s, "    \"osts_per_aggregator_mean\": %s,\n",
      json_ratio(a, sizeof a, sum[OSTIO__STAT_osts_touched], calls));
  ostio__sbuf_put(&s, "    \"bytes_per_sys_write_mean\": %s,\n",
      json_ratio(a, sizeof a, sum[OSTIO__STAT_bytes_written], sum[OSTIO__STAT_sys_writes]));
  ostio__sbuf_put(&s, "    \"bytes_per_sys_read_mean\": %s\n  }\n}\n",
      json_ratio(a, sizeof a, sum[OSTIO__STAT_bytes_read], sum[OSTIO__STAT_sys_reads]));
  return finish(&s, out, "JSON");
}

/* ---- the collective report ------------------------------------------------ */

enum { MODE_OFF = 0, MODE_TEXT = 1, MODE_JSON = 2 };

#define SPEC_FORMS                                                                      \
  "accepted: unset, empty or 0 (no statistics), 1 (text report on stderr of rank 0 at " \
  "close), json:PATH (JSON document written to PATH by rank 0)"

static int parse_spec(const char *spec, int *mode)
{
  *mode = MODE_OFF;
  if (!spec || !*spec || !strcmp(spec, "0")) return 0;
  if (!strcmp(spec, "1")) { *mode = MODE_TEXT; return 0; }
  if (!strncmp(spec, "json:", 5) && spec[5]) { *mode = MODE_JSON; return 0; }
  if (!strcmp(spec, "json:"))
    return ostio__fail(OSTIO_EINVAL, "OSTIO_STATS=\"json:\" names no file; " SPEC_FORMS);
  return ostio__fail(OSTIO_EINVAL, "OSTIO_STATS=\"%.64s%s\" is not a statistics setting; "
                     SPEC_FORMS, spec, strlen(spec) > 64 ? "..." : "");
}

/* MPI reduction operator over ostio__stats_reduced (a contiguous type of
 * sizeof bytes, so MPI never splits one element). memcpy: MPI's buffers
 * need not be aligned for int64_t. */
static void merge_op(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
  ostio__stats_reduced a, b;
  char *in = invec, *io = inoutvec;
  for (int i = 0; i < *len; i++) {
    memcpy(&a, io + (size_t)i * sizeof a, sizeof a);
    memcpy(&b, in + (size_t)i * sizeof b, sizeof b);
    merge(&a, &b);
    memcpy(io + (size_t)i * sizeof a, &a, sizeof a);
  }
}

/* Folds every rank's stats into *all on rank 0. */
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
    rc = ostio__fail(OSTIO_EMPI, "statistics report: reducing the statistics to rank 0 failed");
  if (op != MPI_OP_NULL) MPI_Op_free(&op);
  if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  return rc;
}

static int write_json(const char *path, const char *doc)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    int e = errno;
    return ostio__fail(ostio__from_errno(e), "OSTIO_STATS=json:%s: cannot open the file for "
                       "writing: %s; give a writable path", path, strerror(e));
  }
  errno = 0;
  int bad = fputs(doc, f) == EOF, e = errno;
  if (fclose(f) != 0 && !bad) { bad = 1; e = errno; }
  if (!bad) return 0;
  if (!e) e = EIO;
  return ostio__fail(ostio__from_errno(e), "OSTIO_STATS=json:%s: writing the JSON statistics "
                     "failed: %s", path, strerror(e));
}

/* Rank 0: the text on stderr or the JSON in path. */
static int emit(int mode, const char *path, const ostio__stats_reduced *all,
                const ostio__stats_info *info)
{
  char *doc = NULL;
  int rc = mode == MODE_TEXT ? ostio__stats_format_text(all, info, &doc)
                             : ostio__stats_format_json(all, info, &doc);
  if (rc < 0) return rc;
  if (mode == MODE_JSON) {
    rc = write_json(path, doc);
  } else {
    errno = 0;
    if (fputs(doc, stderr) == EOF || fflush(stderr) == EOF) {
      int e = errno ? errno : EIO;
      rc = ostio__fail(ostio__from_errno(e), "OSTIO_STATS=1: writing the report to stderr "
                       "failed: %s", strerror(e));
    }
  }
  free(doc);
  return rc;
}

int ostio__stats_report(MPI_Comm comm, const ostio__stats *s, const ostio__stats_info *info,
                        const char *spec)
{
  int mode = MODE_OFF, rank = 0, initialized = 0, finalized = 0;
  int rc = parse_spec(spec, &mode);
  if (rc == 0 && !s)
    rc = ostio__fail(OSTIO_EINVAL, "statistics report: NULL statistics; pass this rank's");
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

  /* Every rank checked its own spec; agree (the failing rank's detail goes
   * to all), then act on rank 0's mode. */
  rc = ostio__agree(comm, rc);
  if (rc < 0) return rc;
  if (MPI_Bcast(&mode, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "statistics report: MPI_Bcast of the mode failed");
  if (mode == MODE_OFF) return 0;

  ostio__stats_reduced all;
  rc = reduce_to_root(comm, s, &all);
  if (rc == 0 && rank == 0) rc = emit(mode, mode == MODE_JSON ? spec + 5 : NULL, &all, info);
  return ostio__agree(comm, rc);
}
