/* Statistics (stats/stats.c) without an MPI launch: lookup by name, the fold
 * over three fake ranks, the text report and the JSON document (checked by
 * a small strict JSON parser below, which also fetches values by path), and
 * the spec checks of ostio__stats_report that come before any MPI call. */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "stats/stats.h"
#include "testutil.h"

/* ---- a strict JSON parser (RFC 8259) that can fetch one value ------------
 * The path of a value is its object keys joined by '.', e.g.
 * "counters.coll_writes.sum"; arrays add no component. */
typedef struct {
  const char *p;
  char path[256];
  const char *want;       /* path to fetch, or NULL        */
  char got[256];          /* raw text of the value found   */
  int found, depth;
} jp;

static int j_value(jp *j);

static void j_ws(jp *j)
{
  while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r') j->p++;
}

static int hexdig(char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of one valid UTF-8 sequence at p (0: not valid). */
static int j_utf8(const unsigned char *p)
{
  unsigned c = p[0], cp;
  int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
        : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n <= 1) return n;
  cp = c & (0xFF >> (n + 1));
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

static int j_string(jp *j)
{
  if (*j->p != '"') return 0;
  j->p++;
  while (*j->p != '"') {
    unsigned char c = (unsigned char)*j->p;
    if (c < 0x20) return 0; /* raw control character, or the end of the text */
    if (c == '\\') {
      char e = j->p[1];
      if (e == 'u') {
        for (int i = 2; i < 6; i++)
          if (!hexdig(j->p[i])) return 0;
        j->p += 6;
      } else if (e && strchr("\"\\/bfnrt", e)) {
        j->p += 2;
      } else {
        return 0;
      }
      continue;
    }
    int n = j_utf8((const unsigned char *)j->p);
    if (!n) return 0;
    j->p += n;
  }
  j->p++;
  return 1;
}

static int j_number(jp *j)
{
  const char *p = j->p;
  if (*p == '-') p++;
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
  else return 0;
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
  }
  j->p = p;
  return 1;
}

static int j_object(jp *j)
{
  size_t base = strlen(j->path);
  j->p++;
  j_ws(j);
  if (*j->p == '}') { j->p++; return 1; }
  for (;;) {
    const char *k = j->p;
    if (!j_string(j)) return 0;
    size_t klen = (size_t)(j->p - k) - 2;
    if (base + klen + 2 >= sizeof j->path) return 0;
    snprintf(j->path + base, sizeof j->path - base, "%s%.*s", base ? "." : "", (int)klen, k + 1);
    j_ws(j);
    if (*j->p++ != ':') return 0;
    if (!j_value(j)) return 0;
    j->path[base] = '\0';
    j_ws(j);
    if (*j->p == '}') { j->p++; return 1; }
    if (*j->p++ != ',') return 0;
    j_ws(j);
  }
}

static int j_array(jp *j)
{
  j->p++;
  j_ws(j);
  if (*j->p == ']') { j->p++; return 1; }
  for (;;) {
    if (!j_value(j)) return 0;
    j_ws(j);
    if (*j->p == ']') { j->p++; return 1; }
    if (*j->p++ != ',') return 0;
  }
}

static int j_value(jp *j)
{
  int ok;
  if (++j->depth > 64) return 0;
  j_ws(j);
  const char *start = j->p;
  char c = *j->p;
  if (c == '{') ok = j_object(j);
  else if (c == '[') ok = j_array(j);
  else if (c == '"') ok = j_string(j);
  else if (!strncmp(j->p, "true", 4)) ok = 1, j->p += 4;
  else if (!strncmp(j->p, "false", 5)) ok = 1, j->p += 5;
  else if (!strncmp(j->p, "null", 4)) ok = 1, j->p += 4;
  else ok = j_number(j);
  if (ok && j->want && !strcmp(j->path, j->want) && c != '{' && c != '[') {
    snprintf(j->got, sizeof j->got, "%.*s", (int)(j->p - start), start);
    j->found++;
  }
  j->depth--;
  return ok;
}

/* 1 when doc is one valid JSON value (and, with want, that path occurs once). */
static int json_get(const char *doc, const char *want, char *got, size_t cap)
{
  jp j = {.p = doc, .want = want};
  int ok = j_value(&j);
  j_ws(&j);
  ok = ok && *j.p == '\0';
  if (want) ok = ok && j.found == 1;
  if (got) snprintf(got, cap, "%s", ok ? j.got : "");
  return ok;
}
#define JSON_OK(doc) json_get(doc, NULL, NULL, 0)

/* CHECK that path holds exactly the raw text want. */
#define CHECK_JSON(doc, path, want)                                                     \
  do {                                                                                 \
    char got_[256];                                                                    \
    json_get(doc, path, got_, sizeof got_);                                            \
    CHECKF(!strcmp(got_, want), "%s: got '%s', want '%s'", path, got_, want);          \
  } while (0)

static void parser_self_test(void)
{
  CHECK(JSON_OK("{\"a\": [1, -2.5e+3, true, null, \"x\\u00e9\\n\"], \"b\": {}}"));
  CHECK(!JSON_OK("{\"a\": 1,}"));
  CHECK(!JSON_OK("{\"a\": \"\x01\"}"));
  CHECK(!JSON_OK("[1 2]"));
  CHECK(!JSON_OK("{\"a\": 01}"));
  CHECK(!JSON_OK("{\"a\": \"\\q\"}"));
  CHECK(!JSON_OK("{\"a\": nan}"));
  CHECK(!JSON_OK("{\"a\": 1.}"));
  CHECK(!JSON_OK("{\"a\": \"\xff\"}"));
  CHECK(!JSON_OK("{\"a\": 1} x"));
  char got[64];
  CHECK(json_get("{\"x\": {\"y\": 7, \"z\": \"q\"}}", "x.z", got, sizeof got) &&
        !strcmp(got, "\"q\""));
  CHECK(!json_get("{\"x\": 1}", "y", got, sizeof got));
}

/* ---- fixtures ----------------------------------------------------------- */

/* The strategy slots as the library's registry names them at open
 * (src/engine/strategies.c); stats itself knows no strategy. */
static const char *const slot_names[] = {"auto", "even", "aligned", "ost", "independent"};
enum { SLOT_OST = 3, NSLOTS = 5 };

static void name_slots(ostio__stats *s)
{
  for (int i = 0; i < NSLOTS; i++) CHECK(ostio__stats_name_strategy(s, i, slot_names[i]) == 0);
}

/* Three fake ranks. */
static void three_ranks(ostio__stats st[3])
{
  memset(st, 0, 3 * sizeof *st);
  for (int k = 0; k < 3; k++) {
    name_slots(&st[k]);
    st[k].c[OSTIO__STAT_coll_writes] = k + 1;                  /* 1 2 3: sum 6 max 3 min 1 */
    st[k].c[OSTIO__STAT_sys_writes] = 4 * (k + 1);             /* sum 24 */
    st[k].c[OSTIO__STAT_bytes_written] = (int64_t)(k + 1) << 22; /* sum 6 x 4 MiB */
    st[k].c[OSTIO__STAT_aggr_max] = (int64_t[]){2, 4, 1}[k];
    st[k].c[OSTIO__STAT_aggr_calls] = (int64_t[]){2, 2, 0}[k];
    st[k].c[OSTIO__STAT_objects_touched] = (int64_t[]){3, 5, 0}[k];
    st[k].c[OSTIO__STAT_objects_max] = (int64_t[]){2, 3, 0}[k];
    st[k].c[OSTIO__STAT_osts_touched] = (int64_t[]){3, 4, 0}[k];
    st[k].c[OSTIO__STAT_osts_max] = (int64_t[]){2, 4, 0}[k];
    st[k].c[OSTIO__STAT_STRATEGY(SLOT_OST)] = k == 1;
    st[k].t[OSTIO__T_time_io] = 1.0 + k;                        /* sum 6, max 3, mean 2 */
    st[k].t[OSTIO__T_time_total] = 0.25 * (k + 1);
  }
}

static const ostio__stats_info info_of = {
  .path = "/scratch/run/out.dat", .nprocs = 3, .stripe_count = 4, .stripe_size = 1 << 20,
  .ncomponents = 1, .layout_source = "emulated", .strategy = "auto",
};

/* ---- tests -------------------------------------------------------------- */

static void test_get(void)
{
  ostio__stats s;
  double v = -1;
  memset(&s, 0, sizeof s);
  int i = 0;
#define SET_(n, r, d) s.c[OSTIO__STAT_##n] = 100 + i++;
  OSTIO_STATS_COUNTERS(SET_)
#undef SET_
#define SETT_(n, d) s.t[OSTIO__T_##n] = 0.5 + i++;
  OSTIO_STATS_TIMERS(SETT_)
#undef SETT_
  i = 0;
#define GET_(n, r, d)                                                                  \
  v = -1;                                                                              \
  CHECKF(ostio__stats_get(&s, #n, &v) == 0 && v == 100 + i, "%s: %g", #n, v);          \
  i++;
  OSTIO_STATS_COUNTERS(GET_)
#undef GET_
#define GETT_(n, d)                                                                    \
  v = -1;                                                                              \
  CHECKF(ostio__stats_get(&s, #n, &v) == 0 && v == 0.5 + i, "%s: %g", #n, v);         \
  i++;
  OSTIO_STATS_TIMERS(GETT_)
#undef GETT_
  CHECK_EQ_I64(i, OSTIO__NSTAT + OSTIO__NTIMER);

  v = 42;
  CHECK(ostio__stats_get(&s, "sys_write", &v) == OSTIO_EINVAL && v == 42);
  const char *d = ostio_last_error();
  CHECKF(strstr(d, "\"sys_write\"") && strstr(d, "coll_writes") &&
         strstr(d, "faults_injected") && strstr(d, "time_plan") && strstr(d, "time_total"),
         "detail: %s", d);
  CHECK(ostio__stats_get(&s, "", &v) == OSTIO_EINVAL);
  CHECK(ostio__stats_get(&s, NULL, &v) == OSTIO_EINVAL);
  CHECK(ostio__stats_get(&s, "coll_writes", NULL) == OSTIO_EINVAL);
  CHECK(ostio__stats_get(&s, "COLL_WRITES", &v) == OSTIO_EINVAL);

  /* Strategy slots: strategy_NAME once named, and only then. */
  CHECK(ostio__stats_get(&s, "strategy_ost", &v) == OSTIO_EINVAL);
  CHECK(!strstr(ostio_last_error(), "strategy_auto"));
  name_slots(&s);
  s.c[OSTIO__STAT_STRATEGY(SLOT_OST)] = 7;
  CHECK(ostio__stats_get(&s, "strategy_ost", &v) == 0 && v == 7);
  CHECK(ostio__stats_get(&s, "strategy_auto", &v) == 0 && v == 0);
  CHECK(ostio__stats_get(&s, "strategy_", &v) == OSTIO_EINVAL);
  CHECKF(strstr(ostio_last_error(), "strategy_independent") && strstr(ostio_last_error(), "time_total"),
         "%s", ostio_last_error());
  CHECK(ostio__stats_name_strategy(&s, OSTIO__STATS_NSTRAT, "x") == OSTIO_EINVAL);
  CHECK(ostio__stats_name_strategy(&s, 5, "a_name_too_long_for_a_slot") == OSTIO_EINVAL);
  CHECK(ostio__stats_name_strategy(&s, 5, "") == OSTIO_EINVAL);
  CHECK(ostio__now() > 0);
  double t0 = ostio__now(), t1 = ostio__now();
  CHECK(t1 >= t0);
}

static void test_fold(void)
{
  ostio__stats st[3];
  ostio__stats_reduced r;
  three_ranks(st);
  ostio__stats_reduced_init(&r);
  CHECK(r.nprocs == 0 && r.max[OSTIO__STAT_coll_writes] == 0 && r.tmax[OSTIO__T_time_io] == 0);
  for (int k = 0; k < 3; k++) ostio__stats_fold(&r, &st[k]);
  CHECK_EQ_I64(r.nprocs, 3);
  CHECK_EQ_I64(r.sum[OSTIO__STAT_coll_writes], 6);
  CHECK_EQ_I64(r.max[OSTIO__STAT_coll_writes], 3);
  CHECK_EQ_I64(r.min[OSTIO__STAT_coll_writes], 1);
  CHECK_EQ_I64(r.max[OSTIO__STAT_aggr_max], 4);
  CHECK_EQ_I64(r.min[OSTIO__STAT_aggr_max], 1);
  CHECK_EQ_I64(r.min[OSTIO__STAT_objects_max], 0);
  CHECK_EQ_I64(r.sum[OSTIO__STAT_rmw], 0);
  CHECK(r.tsum[OSTIO__T_time_io] == 6.0 && r.tmax[OSTIO__T_time_io] == 3.0);

  /* The first rank sets max and min even when all values are negative. */
  ostio__stats neg;
  memset(&neg, 0, sizeof neg);
  neg.c[OSTIO__STAT_gaps] = -5;
  neg.t[OSTIO__T_time_wait] = -1.0;
  ostio__stats_reduced_init(&r);
  ostio__stats_fold(&r, &neg);
  CHECK(r.max[OSTIO__STAT_gaps] == -5 && r.min[OSTIO__STAT_gaps] == -5 &&
        r.tmax[OSTIO__T_time_wait] == -1.0);

  /* Sums saturate instead of overflowing. */
  ostio__stats big;
  memset(&big, 0, sizeof big);
  big.c[OSTIO__STAT_bytes_read] = INT64_MAX - 1;
  ostio__stats_reduced_init(&r);
  ostio__stats_fold(&r, &big);
  ostio__stats_fold(&r, &big);
  CHECK(r.sum[OSTIO__STAT_bytes_read] == INT64_MAX && r.max[OSTIO__STAT_bytes_read] == INT64_MAX - 1);
}

static int starts_with(const char *s, const char *prefix)
{
  return !strncmp(s, prefix, strlen(prefix));
}

/* The line of the report that starts with "  name " (NULL if none). */
static const char *line_of(const char *text, const char *name, char *buf, size_t cap)
{
  size_t n = strlen(name);
  for (const char *p = text; p && *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > n + 2 && !strncmp(p, "  ", 2) && !strncmp(p + 2, name, n) && p[n + 2] == ' ') {
      snprintf(buf, cap, "%.*s", (int)len, p);
      return buf;
    }
    p = e ? e + 1 : NULL;
  }
  return NULL;
}

static void check_row(const char *text, const char *name, const char *total, const char *max)
{
  char got[256], want[256];
  snprintf(want, sizeof want, "  %-24s %18s %18s", name, total, max);
  const char *l = line_of(text, name, got, sizeof got);
  CHECKF(l && !strcmp(l, want), "row %s: got '%s', want '%s'", name, l ? l : "(none)", want);
}

static void test_text(void)
{
  ostio__stats st[3];
  ostio__stats_reduced r;
  char *text = NULL, buf[256];
  three_ranks(st);
  ostio__stats_reduced_init(&r);
  for (int k = 0; k < 3; k++) ostio__stats_fold(&r, &st[k]);
  if (!CHECK(ostio__stats_format_text(&r, &info_of, &text) == 0 && text)) return;

  CHECKF(starts_with(text, "ostio stats for /scratch/run/out.dat\n"
                           "  ranks 3, strategy hint auto\n"
                           "  layout 4 x 1048576 B, 1 component, source emulated\n"),
         "header:\n%.200s", text);
  check_row(text, "coll_writes", "6", "3");
  check_row(text, "sys_writes", "24", "12");
  check_row(text, "bytes_written", "25165824", "12582912");
  check_row(text, "aggr_max", "-", "4");          /* MAX counter: no total */
  check_row(text, "objects_max", "-", "3");
  check_row(text, "strategy_ost", "1", "1");
  check_row(text, "sys_reads", "0", "0");         /* core: shown although zero */
  check_row(text, "indep_reads", "0", "0");
  CHECK(!line_of(text, "rmw", buf, sizeof buf));  /* zero everywhere: left out */
  CHECK(!line_of(text, "faults_injected", buf, sizeof buf));
  CHECKF(strstr(text, "  (40 counters zero on every rank not shown)\n"), "%s", text);
  CHECKF(strstr(text, "  objects per aggregator per call: max 3, mean 2.00\n"), "%s", text);
  CHECKF(strstr(text, "  OSTs per aggregator per call: max 4, mean 1.75\n"), "%s", text);
  CHECKF(strstr(text, "  bytes per system write: mean 1048576.00\n"), "%s", text);
  CHECKF(strstr(text, "  bytes per system read: mean -\n"), "%s", text);
  check_row(text, "timer (seconds)", "max of one rank", "mean");
  check_row(text, "time_io", "3.000000", "2.000000");
  check_row(text, "time_total", "0.750000", "0.500000");
  check_row(text, "time_plan", "0.000000", "0.000000");
  CHECK(!line_of(text, "time_stage_drain", buf, sizeof buf)); /* staging did not run */
  /* Every line but the one with the path fits 80 columns. */
  int lines = 0;
  for (const char *p = strchr(text, '\n') + 1; *p; lines++) {
    const char *e = strchr(p, '\n');
    if (!CHECK(e)) break;
    CHECKF(e - p <= 80, "line of %d columns: %.*s", (int)(e - p), (int)(e - p), p);
    p = e + 1;
  }
  CHECK(lines > 20);
  free(text);

  /* No collective call aggregated: means are "-"; control characters in
   * names are not sent to the terminal; NULL info fields print "-". */
  memset(&st[0], 0, sizeof st[0]);
  name_slots(&st[0]);
  ostio__stats_reduced_init(&r);
  ostio__stats_fold(&r, &st[0]);
  ostio__stats_info odd = {.path = "bad\x1b[2Jname\n", .stripe_count = 2, .stripe_size = 65536,
                           .ncomponents = 3};
  if (!CHECK(ostio__stats_format_text(&r, &odd, &text) == 0)) return;
  CHECKF(starts_with(text, "ostio stats for bad?[2Jname?\n  ranks 1, strategy hint -\n"
                           "  layout 2 x 65536 B, 3 components, source -\n"), "%s", text);
  CHECK(strstr(text, "objects per aggregator per call: max 0, mean -\n") &&
        strstr(text, "OSTs per aggregator per call: max 0, mean -\n"));
  CHECK(strstr(text, "  (47 counters zero on every rank not shown)\n"));
  free(text);

  /* Nothing folded (and no info at all) is still a report. */
  ostio__stats_reduced_init(&r);
  if (!CHECK(ostio__stats_format_text(&r, NULL, &text) == 0)) return;
  CHECK(strstr(text, "ranks 0") && line_of(text, "time_io", buf, sizeof buf) &&
        strstr(buf, " -"));
  free(text);
  CHECK(ostio__stats_format_text(NULL, NULL, &text) == OSTIO_EINVAL && text == NULL);
  CHECK(ostio__stats_format_text(&r, NULL, NULL) == OSTIO_EINVAL);
}

static void test_json(void)
{
  ostio__stats st[3];
  ostio__stats_reduced r;
  char *doc = NULL, got[256];
  three_ranks(st);
  ostio__stats_reduced_init(&r);
  for (int k = 0; k < 3; k++) ostio__stats_fold(&r, &st[k]);
  if (!CHECK(ostio__stats_format_json(&r, &info_of, &doc) == 0 && doc)) return;
  CHECKF(JSON_OK(doc), "not valid JSON:\n%s", doc);
  /* One file's object (an element of "files" in the job document). */
  CHECK(!json_get(doc, "format", NULL, 0));
  CHECK_JSON(doc, "file", "\"/scratch/run/out.dat\"");
  CHECK_JSON(doc, "nprocs", "3");
  CHECK_JSON(doc, "layout.stripe_count", "4");
  CHECK_JSON(doc, "layout.stripe_size", "1048576");
  CHECK_JSON(doc, "layout.ncomponents", "1");
  CHECK_JSON(doc, "layout.source", "\"emulated\"");
  CHECK_JSON(doc, "strategy", "\"auto\"");
  CHECK_JSON(doc, "counters.coll_writes.sum", "6");
  CHECK_JSON(doc, "counters.coll_writes.max", "3");
  CHECK_JSON(doc, "counters.coll_writes.min", "1");
  CHECK_JSON(doc, "counters.aggr_max.max", "4");
  CHECK_JSON(doc, "counters.strategy_ost.sum", "1");  /* named slots only */
  CHECK_JSON(doc, "counters.strategy_independent.min", "0");
  CHECK(!strstr(doc, "\"strategy_\""));
  CHECK_JSON(doc, "counters.rmw.sum", "0");          /* every counter is there */
  CHECK_JSON(doc, "counters.faults_injected.min", "0");
  CHECK_JSON(doc, "timers.time_io.sum", "6");
  CHECK_JSON(doc, "timers.time_io.max", "3");
  CHECK_JSON(doc, "timers.time_total.sum", "1.5");
  CHECK_JSON(doc, "derived.objects_per_aggregator_max", "3");
  CHECK_JSON(doc, "derived.objects_per_aggregator_mean", "2");
  CHECK_JSON(doc, "derived.osts_per_aggregator_max", "4");
  CHECK_JSON(doc, "derived.osts_per_aggregator_mean", "1.75");
  CHECK_JSON(doc, "derived.bytes_per_sys_write_mean", "1048576");
  CHECK_JSON(doc, "derived.bytes_per_sys_read_mean", "null");
  int n = 0;
#define COUNT_(nm, rd, ds) n += json_get(doc, "counters." #nm ".max", NULL, 0);
  OSTIO_STATS_COUNTERS(COUNT_)
#undef COUNT_
#define COUNTT_(nm, ds) n += json_get(doc, "timers." #nm ".max", NULL, 0);
  OSTIO_STATS_TIMERS(COUNTT_)
#undef COUNTT_
  CHECK_EQ_I64(n, OSTIO__NSTAT + OSTIO__NTIMER);
  free(doc);

  /* Escaping: quote, backslash, control characters, bytes that are not
   * UTF-8 (U+FFFD), valid UTF-8 kept; NULL strings are null; timers that
   * are not finite are null; nothing aggregated: means are null. */
  ostio__stats_info odd = {.path = "a\"b\\c\n\x01\t\x7f\xff|\xc3\xa9|\xed\xa0\x80",
                           .stripe_count = 1, .stripe_size = 1, .ncomponents = 1};
  memset(&st[0], 0, sizeof st[0]);
  st[0].t[OSTIO__T_time_plan] = NAN;
  st[0].t[OSTIO__T_time_wait] = INFINITY;
  st[0].t[OSTIO__T_time_io] = 1e-7;
  st[0].c[OSTIO__STAT_bytes_read] = INT64_MAX;
  ostio__stats_reduced_init(&r);
  ostio__stats_fold(&r, &st[0]);
  if (!CHECK(ostio__stats_format_json(&r, &odd, &doc) == 0)) return;
  CHECKF(JSON_OK(doc), "not valid JSON:\n%s", doc);
  CHECK_JSON(doc, "file",
             "\"a\\\"b\\\\c\\n\\u0001\\t\\u007f\\ufffd|\xc3\xa9|\\ufffd\\ufffd\\ufffd\"");
  CHECK_JSON(doc, "layout.source", "null");
  CHECK_JSON(doc, "strategy", "null");
  CHECK_JSON(doc, "timers.time_plan.sum", "null");
  CHECK_JSON(doc, "timers.time_wait.max", "null");
  CHECK_JSON(doc, "timers.time_io.max", "1e-07");
  CHECK_JSON(doc, "counters.bytes_read.sum", "9223372036854775807");
  CHECK_JSON(doc, "derived.objects_per_aggregator_mean", "null");
  CHECK_JSON(doc, "derived.osts_per_aggregator_mean", "null");
  free(doc);

  /* A locale with a decimal comma does not leak into the numbers. */
  const char *loc = setlocale(LC_NUMERIC, "de_DE.UTF-8");
  if (!loc) loc = setlocale(LC_NUMERIC, "fr_FR.UTF-8");
  if (loc) {
    three_ranks(st);
    ostio__stats_reduced_init(&r);
    for (int k = 0; k < 3; k++) ostio__stats_fold(&r, &st[k]);
    CHECK(ostio__stats_format_json(&r, &info_of, &doc) == 0 && JSON_OK(doc));
    CHECK_JSON(doc, "derived.osts_per_aggregator_mean", "1.75");
    free(doc);
    setlocale(LC_NUMERIC, "C");
  } else {
    printf("no de_DE/fr_FR locale: decimal-comma check skipped\n");
  }

  ostio__stats_reduced_init(&r);
  CHECK(ostio__stats_format_json(&r, NULL, &doc) == 0 && JSON_OK(doc));
  CHECK_JSON(doc, "file", "null");
  CHECK_JSON(doc, "nprocs", "0");
  free(doc);
  CHECK(json_get("{}", NULL, got, sizeof got));
  CHECK(ostio__stats_format_json(NULL, NULL, &doc) == OSTIO_EINVAL && doc == NULL);
}

/* Issue 14 item 3: the OSTIO_STATS forms, and the sentence of the warning
 * for the others (pure: the report warns with it instead of failing). */
static void test_report_spec(void)
{
  char why[512];
  int mode = -1;
  const char *bad[] = {"2", "yes", "json", "json:", " 1", "1 ", "JSON:/tmp/x", "text",
                       "json:/tmp/%x.json", "json:/tmp/x%"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", bad[i]);
    int rc = ostio__stats_parse_spec(bad[i], &mode, why, sizeof why);
    CHECKF(rc == OSTIO_EINVAL && mode == OSTIO__STATS_OFF && strstr(why, "OSTIO_STATS") &&
           strstr(why, quoted) && strstr(why, "json:PATH") && strstr(why, "1 (text") &&
           !strchr(why, '\n'), "spec '%s': rc %d, why: %s", bad[i], rc, why);
  }
  CHECK(ostio__stats_parse_spec("json:/tmp/%x.json", &mode, why, sizeof why) < 0 &&
        strstr(why, "%r") && strstr(why, "%j"));
  const char *off[] = {NULL, "", "0"};
  for (int i = 0; i < 3; i++)
    CHECK(ostio__stats_parse_spec(off[i], &mode, why, sizeof why) == 0 &&
          mode == OSTIO__STATS_OFF);
  CHECK(ostio__stats_parse_spec("1", &mode, why, sizeof why) == 0 && mode == OSTIO__STATS_TEXT);
  CHECK(ostio__stats_parse_spec("json:s-%r-%p-%j-%%.json", &mode, why, sizeof why) == 0 &&
        mode == OSTIO__STATS_JSON);

  /* Without MPI: said, not crashed on, whatever the spec. */
  ostio__stats s;
  memset(&s, 0, sizeof s);
  const char *any[] = {NULL, "", "0", "1", "yes", "json:/nonexistent/x.json"};
  for (size_t i = 0; i < sizeof any / sizeof *any; i++) {
    int rc = ostio__stats_report(MPI_COMM_WORLD, &s, &info_of, any[i]);
    CHECKF(rc == OSTIO_EMPI && strstr(ostio_last_error(), "MPI_Init"), "spec %s: rc %d, %s",
           any[i] ? any[i] : "NULL", rc, ostio_last_error());
  }
  CHECK(ostio__stats_report(MPI_COMM_WORLD, NULL, &info_of, "1") == OSTIO_EINVAL);
  CHECK(ostio__stats_report(MPI_COMM_NULL, &s, &info_of, "1") == OSTIO_EINVAL);
}

/* PATH patterns: %r %p %j %%. */
static void test_expand(void)
{
  ostio__stats_jobid id = {.id = "77.pbs01", .source = "PBS_JOBID", .pid = 4242,
                           .world_rank = 3, .world_size = 8};
  char out[64];
  CHECK(ostio__stats_expand_path("/s/%j/r%r-p%p-%%x.json", &id, out, sizeof out) == 0 &&
        !strcmp(out, "/s/77.pbs01/r3-p4242-%x.json"));
  CHECK(ostio__stats_expand_path("plain.json", &id, out, sizeof out) == 0 &&
        !strcmp(out, "plain.json"));
  CHECK(ostio__stats_expand_path("a%q", &id, out, sizeof out) == OSTIO_EINVAL);
  CHECK(ostio__stats_expand_path("a%", &id, out, sizeof out) == OSTIO_EINVAL);
  CHECK(ostio__stats_expand_path("%j%j%j%j%j%j%j%j", &id, out, sizeof out) == OSTIO_ERANGE);
  /* A job id cannot add directories: '/' becomes '_'. */
  snprintf(id.id, sizeof id.id, "../../etc");
  CHECK(ostio__stats_expand_path("s-%j", &id, out, sizeof out) == 0 &&
        !strcmp(out, "s-.._.._etc"));

  /* The job id: SLURM_JOB_ID, then PBS_JOBID, then the fallback. */
  setenv("SLURM_JOB_ID", "123", 1);
  setenv("PBS_JOBID", "456.server", 1);
  ostio__stats_jobid_get(&id);
  CHECK(!strcmp(id.id, "123") && !strcmp(id.source, "SLURM_JOB_ID") && id.pid == getpid());
  unsetenv("SLURM_JOB_ID");
  ostio__stats_jobid_get(&id);
  CHECK(!strcmp(id.id, "456.server") && !strcmp(id.source, "PBS_JOBID"));
  unsetenv("PBS_JOBID");
  unsetenv("LSB_JOBID");
  unsetenv("FLUX_JOB_ID");
  ostio__stats_jobid_get(&id);
  char want[64];
  snprintf(want, sizeof want, "pid%ld", (long)getpid());
  CHECKF(!strcmp(id.id, want) && !strcmp(id.source, "pid"), "%s %s", id.id, id.source);
}

/* The job document: every file, the summary, the cap on listed files. */
static void test_job(void)
{
  ostio__stats st[3];
  ostio__stats_reduced r;
  ostio__stats_jobid id = {.id = "99", .source = "SLURM_JOB_ID", .pid = 12, .world_rank = 0,
                           .world_size = 3};
  ostio__stats_job *job = ostio__stats_job_new(&id, 2);
  char *doc = NULL;
  if (!CHECK(job)) return;
  /* Nothing yet: still a document. */
  CHECK(ostio__stats_job_format(job, &doc) == 0 && JSON_OK(doc));
  CHECK_JSON(doc, "summary.files", "0");
  CHECK_JSON(doc, "summary.slowest_file", "null");
  free(doc);

  ostio__hints h;
  ostio__hints_init(&h);
  CHECK(ostio__hints_set(&h, "romio_cb_wirte", "enable") == 1);
  const char *names[] = {"/a", "/b", "/c"};
  const char *strat[] = {"ost", "auto", "ost"};
  for (int f = 0; f < 3; f++) {
    three_ranks(st);
    st[2].t[OSTIO__T_time_io] = f == 1 ? 10.0 : 3.0; /* /b is the slowest */
    ostio__stats_reduced_init(&r);
    for (int k = 0; k < 3; k++) ostio__stats_fold(&r, &st[k]);
    ostio__stats_info fi = info_of;
    fi.path = names[f];
    fi.strategy = strat[f];
    fi.hints = f == 2 ? &h : NULL;
    CHECK(ostio__stats_job_add(job, &r, &fi) == 0);
  }
  if (!CHECK(ostio__stats_job_format(job, &doc) == 0 && doc)) goto out;
  CHECKF(JSON_OK(doc), "not valid JSON:\n%s", doc);
  CHECKF(!strncmp(doc, "{\n  \"format\": \"ostio-stats\",\n  \"version\": 2,", 44), "%s", doc);
  CHECK_JSON(doc, "job.id", "\"99\"");
  CHECK_JSON(doc, "job.id_source", "\"SLURM_JOB_ID\"");
  CHECK_JSON(doc, "job.pid", "12");
  CHECK_JSON(doc, "summary.files", "3");
  CHECK_JSON(doc, "summary.files_listed", "2");  /* the cap */
  CHECK_JSON(doc, "summary.files_omitted", "1");
  CHECK_JSON(doc, "summary.nprocs_max", "3");
  CHECK_JSON(doc, "summary.bytes_written", "75497472"); /* 3 x 6 x 4 MiB */
  CHECK_JSON(doc, "summary.bytes_read", "0");
  CHECK_JSON(doc, "summary.counters.coll_writes", "18");
  CHECK_JSON(doc, "summary.counters.aggr_max", "4");    /* a max counter: max of the files */
  CHECK_JSON(doc, "summary.counters.strategy_ost", "3");
  CHECK_JSON(doc, "summary.timers.time_io.sum", "25");  /* (1 + 2) x 3 + 3 + 10 + 3 */
  CHECK_JSON(doc, "summary.timers.time_io.max", "10");
  CHECK_JSON(doc, "summary.strategies.ost", "2");
  CHECK_JSON(doc, "summary.strategies.auto", "1");
  CHECK_JSON(doc, "summary.slowest_file.file", "\"/b\"");
  CHECK_JSON(doc, "summary.slowest_file.index", "1");
  CHECK_JSON(doc, "summary.slowest_file.time_io_max", "10");
  CHECK_JSON(doc, "summary.derived.objects_per_aggregator_mean", "2");
  CHECK(strstr(doc, "\"unknown_hints\": [{\"key\": \"romio_cb_wirte\", \"suggestion\": "
                    "\"romio_cb_write\", \"files\": 1}]"));
  /* The files array: the first two, each a whole file object. */
  CHECK(strstr(doc, "\"file\": \"/a\"") && strstr(doc, "\"file\": \"/b\"") &&
        !strstr(doc, "\"file\": \"/c\""));
  free(doc);
  doc = NULL;
  /* The text report names the unknown hints of its file. */
  ostio__stats_info fi = info_of;
  fi.hints = &h;
  if (CHECK(ostio__stats_format_text(&r, &fi, &doc) == 0))
    CHECKF(strstr(doc, "  unknown hints: romio_cb_wirte (did you mean romio_cb_write?)\n"), "%s",
           doc);
  free(doc);
out:
  ostio__stats_job_free(job);
  ostio__stats_job_free(NULL);
}

/* Issue 31: the application's pieces. Abutting extents are one piece,
 * zero-length ones none; contiguous and strided pieces against the rank's
 * last; the stride is the first positive step over a gap; the size
 * histogram; reads apart from writes; the fold, the text and the JSON. */
static void test_pieces(void)
{
  ostio__stats st[2];
  memset(st, 0, sizeof st);
  /* Rank 0: 4 pieces of 4 KiB, 8 KiB apart; the first given as 1 KiB + 3 KiB
   * (abutting: one piece) and a zero-length extent among them. */
  const ostio_extent a[] = {{0, 1024}, {1024, 3072}, {5000, 0}, {8192, 4096}, {16384, 4096}};
  ostio__stats_pieces(&st[0], 1, a, 5);
  const ostio_extent b[] = {{24576, 4096}};
  ostio__stats_pieces(&st[0], 1, b, 1);   /* the next call goes on with the stride */
  ostio__stats_piece(&st[0], 1, 28672, 100); /* contiguous, 100 B */
  ostio__stats_piece(&st[0], 1, 0, 10);      /* backwards: neither */
  ostio__stats_piece(&st[0], 0, 4096, 2 << 20); /* a read: its own direction */
  ostio__stats_pieces(&st[0], 1, NULL, 3);   /* no list: nothing */
  ostio__stats_piece(&st[0], 1, -1, 5);      /* refused: nothing */
  ostio__stats_piece(&st[0], 1, INT64_MAX, 5);
  double v;
  struct { const char *n; double want; } w[] = {
    {"app_write_pieces", 6}, {"app_write_bytes", 4 * 4096 + 100 + 10},
    {"app_write_contig", 1}, {"app_write_strided", 3}, {"app_write_stride", 8192},
    {"app_write_piece_max", 4096}, {"app_read_pieces", 1}, {"app_read_bytes", 2 << 20},
    {"app_read_contig", 0}, {"app_read_strided", 0}, {"app_read_stride", 0},
    {"app_read_piece_max", 2 << 20}};
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
    CHECKF(ostio__stats_get(&st[0], w[i].n, &v) == 0 && v == w[i].want, "%s = %g, want %g",
           w[i].n, v, w[i].want);
  CHECK(st[0].phist[OSTIO__HIST_WRITE][0] == 2 && st[0].phist[OSTIO__HIST_WRITE][1] == 0 &&
        st[0].phist[OSTIO__HIST_WRITE][2] == 4 && st[0].phist[OSTIO__HIST_READ][5] == 1);
  CHECK(st[0].hist[OSTIO__HIST_WRITE][2] == 0); /* the system-call histogram is apart */
  /* Rank 1: 2 pieces 16 KiB apart. */
  const ostio_extent c[] = {{4096, 4096}, {20480, 4096}};
  ostio__stats_pieces(&st[1], 1, c, 2);
  ostio__stats_reduced r;
  ostio__stats_reduced_init(&r);
  ostio__stats_fold(&r, &st[0]);
  ostio__stats_fold(&r, &st[1]);
  CHECK(r.sum[OSTIO__STAT_app_write_pieces] == 8 && r.sum[OSTIO__STAT_app_write_strided] == 4);
  CHECK(r.min[OSTIO__STAT_app_write_stride] == 8192 &&
        r.max[OSTIO__STAT_app_write_stride] == 16384);
  CHECK(r.phist[OSTIO__HIST_WRITE][2] == 6);
  char *doc = NULL, *text = NULL;
  if (CHECK(ostio__stats_format_json(&r, &info_of, &doc) == 0 && doc)) {
    CHECKF(JSON_OK(doc), "not valid JSON:\n%s", doc);
    CHECK(strstr(doc, "\"app_piece_sizes\": {\"buckets\": [\"0-100\"") != NULL);
    CHECK(strstr(doc, "\"write\": [2, 0, 6, 0, 0, 0, 0, 0, 0, 0], \"read\": [0, 0, 0, 0, 0, "
                      "1, 0, 0, 0, 0]") != NULL);
    CHECK_JSON(doc, "counters.app_write_stride.min", "8192");
  }
  if (CHECK(ostio__stats_format_text(&r, &info_of, &text) == 0 && text)) {
    CHECKF(strstr(text, "  app write pieces (B): 0-100: 2, 1K-10K: 6\n"), "%s", text);
    CHECKF(strstr(text, "  app read pieces (B): 1M-4M: 1\n"), "%s", text);
  }
  free(doc);
  free(text);
}

int main(void)
{
  parser_self_test();
  test_pieces();
  test_get();
  test_fold();
  test_text();
  test_json();
  test_report_spec();
  test_expand();
  test_job();
  return TEST_DONE();
}
