/* System descriptions (src/model/sysdesc.c): a minimal and a full document
 * with their units and defaults; every error class (unknown, missing, wrong
 * type, out of range, not an object, bad JSON) names the key and the line;
 * ostio__sys_check on hand-made structs; the shipped systems/ files load and
 * pass the check; every key is documented in docs/model.md; every
 * truncation of a shipped file fails cleanly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/sysdesc.h"
#include "ostio.h"
#include "testutil.h"

#ifndef OSTIO_SOURCE_DIR
#error "OSTIO_SOURCE_DIR must name the source tree (tests/CMakeLists.txt)"
#endif

/* The required keys, one per line: line k + 1 holds base[k]. */
static const char *const base[] = {
  "\"ostio_system\": 1",
  "\"name\": \"tiny\"",
  "\"nodes\": 4",
  "\"ranks_per_node\": 2",
  "\"nic_bw_MBps\": 1000",
  "\"net_latency_us\": 5",
  "\"oss_count\": 2",
  "\"osts_per_oss\": 3",
  "\"oss_bw_MBps\": 2000",
  "\"ost_bw_MBps\": 500.5",
  "\"ost_req_us\": 100",
  "\"lock_grant_us\": 20",
  "\"lock_conflict_us\": 800",
  "\"mds_ops_per_s\": 10000",
};
#define NBASE (sizeof base / sizeof base[0])

/* The base document without the key named drop (NULL: none), with extra
 * (NULL: none) as the last member, on its own line: NBASE + 2, or NBASE + 1
 * when a key was dropped. */
static char *doc(const char *drop, const char *extra)
{
  static char buf[4096];
  size_t n = (size_t)snprintf(buf, sizeof buf, "{");
  const char *sep = "\n";
  for (size_t i = 0; i < NBASE; i++) {
    size_t dl = drop ? strlen(drop) : 0;
    if (drop && strncmp(base[i] + 1, drop, dl) == 0 && base[i][dl + 1] == '"') continue;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", sep, base[i]);
    sep = ",\n";
  }
  if (extra) n += (size_t)snprintf(buf + n, sizeof buf - n, ",\n%s", extra);
  snprintf(buf + n, sizeof buf - n, "\n}\n");
  return buf;
}

static int parse(const char *text, ostio__sys *s)
{
  return ostio__sys_parse(text, strlen(text), s);
}

static void expect_err(const char *text, const char *part1, const char *part2)
{
  ostio__sys s;
  int rc = parse(text, &s);
  const char *d = ostio_last_error();
  CHECKF(rc == OSTIO_EINVAL, "rc %d for %s", rc, part1);
  CHECKF(strstr(d, part1) != NULL, "detail \"%s\" lacks \"%s\"", d, part1);
  CHECKF(!part2 || strstr(d, part2) != NULL, "detail \"%s\" lacks \"%s\"", d, part2);
}

static void valid(void)
{
  ostio__sys s;
  int rc = parse(doc(NULL, NULL), &s);
  CHECKF(rc == 0, "minimal: %s", ostio_last_error());
  if (rc) return;
  CHECK(strcmp(s.name, "tiny") == 0 && s.source[0] == '\0');
  CHECK(s.nodes == 4 && s.ranks_per_node == 2 && s.noss == 2 && s.osts_per_oss == 3);
  CHECK(ostio__sys_nost(&s) == 6 && ostio__sys_nost(NULL) == 0);
  CHECK(s.nic_bw == 1e9 && s.oss_bw == 2e9 && s.ost_bw == 500.5e6);
  CHECK(fabs(s.net_latency - 5e-6) < 1e-18 && fabs(s.ost_req - 1e-4) < 1e-16);
  CHECK(fabs(s.lock_grant - 2e-5) < 1e-17 && fabs(s.lock_conflict - 8e-4) < 1e-16);
  CHECK(s.mds_rate == 10000);
  /* defaults */
  CHECK(s.client_bw == s.nic_bw && s.net_bw == 0 && s.rpc_bytes == 1048576 && s.lock_expand == 1);
  /* every optional key given */
  rc = parse(doc(NULL, "\"source\": \"hand-made\", \"client_bw_MBps\": 250, \"net_bw_MBps\": 1e5,"
                       " \"rpc_bytes\": 4194304, \"lock_expand\": false"), &s);
  CHECKF(rc == 0, "full: %s", ostio_last_error());
  CHECK(strcmp(s.source, "hand-made") == 0 && s.client_bw == 250e6 && s.net_bw == 1e11 &&
        s.rpc_bytes == 4194304 && s.lock_expand == 0);
  CHECK(ostio__sys_check(&s) == 0);
  /* bounds are inclusive, zero times allowed, UTF-8 names */
  rc = parse(doc("name", "\"name\": \"caf\\u00e9-63-bytes-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\","
                         " \"rpc_bytes\": 4096"), &s);
  CHECKF(rc == 0, "bounds: %s", ostio_last_error());
  CHECK(strlen(s.name) == 63 && s.rpc_bytes == 4096);
  rc = parse(doc("net_latency_us", "\"net_latency_us\": 0, \"rpc_bytes\": 4294967296"), &s);
  CHECKF(rc == 0 && s.net_latency == 0 && s.rpc_bytes == 4294967296LL, "zero latency: %s",
         ostio_last_error());
}

static void errors(void)
{
  char ln[32];
  /* unknown key: named, with its line and the accepted list */
  snprintf(ln, sizeof ln, "line %d column 1", (int)NBASE + 2);
  expect_err(doc(NULL, "\"nic_bw_MiBps\": 3"), "unknown key \"nic_bw_MiBps\"", ln);
  expect_err(doc(NULL, "\"nic_bw_MiBps\": 3"), "accepted keys: ostio_system, name, source, nodes",
             "mds_ops_per_s");
  /* missing required keys, each */
  for (size_t i = 0; i < NBASE; i++) {
    char key[64], want[96];
    snprintf(key, sizeof key, "%.*s", (int)(strchr(base[i] + 1, '"') - base[i] - 1), base[i] + 1);
    snprintf(want, sizeof want, "missing required key \"%s\"", key);
    expect_err(doc(key, NULL), want, "required keys: ostio_system, name, nodes");
  }
  /* wrong types */
  expect_err(doc("nodes", "\"nodes\": \"4\""), "key \"nodes\" is a string; expected an integer", "line 15");
  expect_err(doc("nodes", "\"nodes\": 4.0"), "key \"nodes\" is a number with a fraction", "line 15");
  expect_err(doc("nic_bw_MBps", "\"nic_bw_MBps\": \"fast\""), "key \"nic_bw_MBps\" is a string; expected a number", NULL);
  expect_err(doc(NULL, "\"lock_expand\": 1"), "key \"lock_expand\" is an integer; expected true or false", NULL);
  expect_err(doc("name", "\"name\": [\"a\"]"), "key \"name\" is an array; expected a string", NULL);
  expect_err(doc(NULL, "\"source\": null"), "key \"source\" is null", NULL);
  expect_err(doc("ost_req_us", "\"ost_req_us\": {}"), "key \"ost_req_us\" is an object", NULL);
  /* out of range */
  expect_err(doc("nodes", "\"nodes\": 0"), "key \"nodes\" is 0; accepted: from 1 to 10000000 nodes", "line 15 column 10");
  expect_err(doc("ranks_per_node", "\"ranks_per_node\": 65537"), "key \"ranks_per_node\" is 65537", "65536");
  expect_err(doc("ranks_per_node", "\"ranks_per_node\": 9223372036854775807"), "key \"ranks_per_node\"", "accepted");
  expect_err(doc("nic_bw_MBps", "\"nic_bw_MBps\": 0"), "key \"nic_bw_MBps\" is 0; accepted: more than 0 and at most 1000000000 MB/s", NULL);
  expect_err(doc("oss_bw_MBps", "\"oss_bw_MBps\": -5"), "key \"oss_bw_MBps\" is -5", NULL);
  expect_err(doc("ost_bw_MBps", "\"ost_bw_MBps\": 1e300"), "key \"ost_bw_MBps\" is 1e+300", "1000000000 MB/s");
  expect_err(doc("net_latency_us", "\"net_latency_us\": -1"), "key \"net_latency_us\" is -1; accepted: from 0", "us");
  expect_err(doc(NULL, "\"net_bw_MBps\": -1"), "key \"net_bw_MBps\" is -1", NULL);
  expect_err(doc(NULL, "\"rpc_bytes\": 4095"), "key \"rpc_bytes\" is 4095; accepted: from 4096", NULL);
  expect_err(doc("mds_ops_per_s", "\"mds_ops_per_s\": 0"), "key \"mds_ops_per_s\" is 0", NULL);
  expect_err(doc("ostio_system", "\"ostio_system\": 2"), "key \"ostio_system\" is 2; accepted: 1", NULL);
  expect_err(doc("name", "\"name\": \"\""), "key \"name\" has 0 bytes; accepted: 1 to 63", NULL);
  expect_err(doc("name", "\"name\": \"a-name-of-sixty-four-bytes-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\""),
             "key \"name\" has 64 bytes", NULL);
  expect_err(doc("name", "\"name\": \"two\\nlines\""), "key \"name\" holds control character 0x0A", NULL);
  expect_err(doc(NULL, "\"source\": \"a\\u0000b\""), "key \"source\" holds control character 0x00", NULL);
  /* not an object, bad JSON, duplicates */
  expect_err("[1, 2]", "line 1 column 1: the document is an array; expected an object", NULL);
  expect_err("  42", "the document is an integer", "column 3");
  expect_err(doc(NULL, "\"nodes\": 5"), "duplicate key \"nodes\"", "first at line 4 column 1");
  expect_err(doc(NULL, "\"lock_expand\": tru"), "JSON line 16 column 19", "to spell true");
  ostio__sys s;
  CHECK(ostio__sys_parse("{}", 2, NULL) == OSTIO_EINVAL);
  CHECK(ostio__sys_parse(NULL, 0, &s) == OSTIO_EINVAL);
}

static void check_struct(void)
{
  ostio__sys s;
  memset(&s, 0, sizeof s);
  CHECK(ostio__sys_check(&s) == OSTIO_EINVAL &&
        strstr(ostio_last_error(), "field nodes (key \"nodes\") is 0") != NULL);
  CHECK(ostio__sys_check(NULL) == OSTIO_EINVAL);
  CHECK(parse(doc(NULL, NULL), &s) == 0);
  ostio__sys t = s;
  CHECK(ostio__sys_check(&t) == 0);
  t.ost_bw = 0;
  CHECK(ostio__sys_check(&t) == OSTIO_EINVAL &&
        strstr(ostio_last_error(), "field ost_bw (key \"ost_bw_MBps\") is 0") != NULL &&
        strstr(ostio_last_error(), "B/s") != NULL);
  t = s;
  t.net_latency = NAN;
  CHECK(ostio__sys_check(&t) == OSTIO_EINVAL && strstr(ostio_last_error(), "net_latency") != NULL);
  t = s;
  t.noss = 0;
  CHECK(ostio__sys_check(&t) == OSTIO_EINVAL && strstr(ostio_last_error(), "field noss (key \"oss_count\")") != NULL);
  t = s;
  t.lock_expand = 2;
  CHECK(ostio__sys_check(&t) == OSTIO_EINVAL && strstr(ostio_last_error(), "lock_expand") != NULL);
  t = s;
  t.rpc_bytes = (int64_t)1 << 40;
  CHECK(ostio__sys_check(&t) == OSTIO_EINVAL && strstr(ostio_last_error(), "rpc_bytes") != NULL);
  t = s;
  memset(t.name, 'x', sizeof t.name);
  CHECK(ostio__sys_check(&t) == OSTIO_EINVAL && strstr(ostio_last_error(), "not NUL-terminated") != NULL);
  t = s;
  t.mds_rate = -1;
  CHECK(ostio__sys_check(&t) == OSTIO_EINVAL && strstr(ostio_last_error(), "mds_rate") != NULL);
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = malloc(1 << 20);
  *len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
  if (buf) buf[*len] = '\0';
  fclose(f);
  return buf;
}

static const struct { const char *file, *name; int64_t nost; int rpn; } shipped[] = {
  {"jaguar-xt3", "jaguar-xt3", 48, 1},
  {"ranger", "ranger", 300, 16},
  {"theta", "theta", 56, 16},
  {"local", "local", 1, 2},
};

/* Each shipped file loads, passes the check, and fails cleanly when cut. */
static void shipped_files(void)
{
  for (size_t k = 0; k < sizeof shipped / sizeof shipped[0]; k++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/systems/%s.json", OSTIO_SOURCE_DIR, shipped[k].file);
    ostio__sys s;
    int rc = ostio__sys_load(path, &s);
    CHECKF(rc == 0, "%s: %s", path, ostio_last_error());
    if (rc) continue;
    CHECK(ostio__sys_check(&s) == 0);
    CHECK(strcmp(s.name, shipped[k].name) == 0 && strlen(s.source) > 40);
    CHECK(ostio__sys_nost(&s) == shipped[k].nost && s.ranks_per_node == shipped[k].rpn);
    size_t len = 0;
    char *text = slurp(path, &len);
    CHECK(text != NULL && len > 100);
    if (!text) continue;
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' ')) len--;
    long fails = 0;
    for (size_t cut = 0; cut < len; cut++) {
      char *copy = malloc(cut ? cut : 1);
      if (!copy) break;
      memcpy(copy, text, cut);
      fails += ostio__sys_parse(copy, cut, &s) == OSTIO_EINVAL &&
               strstr(ostio_last_error(), "line ") != NULL;
      free(copy);
    }
    CHECKF(fails == (long)len, "%s: %ld of %zu truncations failed with a located detail",
           shipped[k].file, fails, len);
    free(text);
  }
}

static void load_errors(void)
{
  ostio__sys s;
  CHECK(ostio__sys_load(OSTIO_SOURCE_DIR "/systems/no-such-system.json", &s) == OSTIO_EIO &&
        strstr(ostio_last_error(), "no-such-system.json cannot be opened") != NULL);
  CHECK(ostio__sys_load(OSTIO_SOURCE_DIR "/systems", &s) == OSTIO_EIO &&
        strstr(ostio_last_error(), "cannot be read") != NULL);
  CHECK(ostio__sys_load(NULL, &s) == OSTIO_EINVAL);
  char dir[512], path[600];
  CHECK(tu_tmpdir(dir, sizeof dir, "sysdesc") == 0);
  snprintf(path, sizeof path, "%s/bad.json", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(doc(NULL, "\"stripe_count\": 4"), f);
    fclose(f);
    CHECK(ostio__sys_load(path, &s) == OSTIO_EINVAL);
    CHECK(strncmp(ostio_last_error(), path, strlen(path)) == 0 &&
          strstr(ostio_last_error(), "unknown key \"stripe_count\"") != NULL);
  }
  tu_rmtree(dir);
}

/* Every accepted key (as the unknown-key message lists them) appears in
 * docs/model.md in backquotes. */
static void documented(void)
{
  expect_err(doc(NULL, "\"zz\": 0"), "accepted keys: ", NULL);
  char list[1024];
  const char *p = strstr(ostio_last_error(), "accepted keys: ");
  snprintf(list, sizeof list, "%s", p ? p + strlen("accepted keys: ") : "");
  char *end = strstr(list, " (docs/");
  if (end) *end = '\0';
  size_t len = 0;
  char *md = slurp(OSTIO_SOURCE_DIR "/docs/model.md", &len);
  CHECK(md != NULL);
  if (!md) return;
  int keys = 0;
  for (char *save = NULL, *k = strtok_r(list, ", ", &save); k; k = strtok_r(NULL, ", ", &save)) {
    char quoted[80];
    snprintf(quoted, sizeof quoted, "`%s`", k);
    CHECKF(strstr(md, quoted) != NULL, "docs/model.md does not document key %s", k);
    keys++;
  }
  CHECK(keys == 22);
  free(md);
}

int main(void)
{
  valid();
  errors();
  check_struct();
  shipped_files();
  load_errors();
  documented();
  return TEST_DONE();
}
