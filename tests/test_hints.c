/* Hints: value parsers, the key table (defaults, good and bad values,
 * formatting), OSTIO_HINTS parsing, and at the end, with MPI initialised,
 * MPI_Info input, precedence and ostio_hints_effective(). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "hints/hints.h"
#include "ostio.h"
#include "testutil.h"

/* MPICH keeps a few allocations from MPI_Init until exit, and the suite runs
 * the serial tests with leak checking on: MPI_Init and MPI_Finalize run with
 * LeakSanitizer paused (for their own allocations only). */
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#define LSAN_PAUSE() __lsan_disable()
#define LSAN_RESUME() __lsan_enable()
#else
#define LSAN_PAUSE() ((void)0)
#define LSAN_RESUME() ((void)0)
#endif

#define NKEYS 21

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

/* Canonical text of key in h ("?" when the key is unknown). */
static const char *fmt(const ostio__hints *h, const char *key, char *buf, size_t cap)
{
  int i = ostio__hints_index(key);
  if (i < 0 || ostio__hints_format(h, i, buf, cap) != 0) snprintf(buf, cap, "?");
  return buf;
}

static int same(const ostio__hints *a, const ostio__hints *b)
{
  return memcmp(a, b, sizeof *a) == 0;
}

/* Fresh defaults in a struct whose padding is zero, so memcmp works. */
static void fresh(ostio__hints *h)
{
  memset(h, 0, sizeof *h);
  ostio__hints_init(h);
}

/* ---- parsers ------------------------------------------------------------- */

static void test_parse_size(void)
{
  static const struct { const char *s; int64_t v; } good[] = {
    {"0", 0}, {"1", 1}, {"007", 7}, {"4k", 4096}, {"4K", 4096},
    {"16m", 16777216}, {"16M", 16777216}, {"2g", INT64_C(2147483648)},
    {"2G", INT64_C(2147483648)}, {"1t", INT64_C(1099511627776)},
    {"1T", INT64_C(1099511627776)}, {"9223372036854775807", INT64_MAX},
    {"8388607t", INT64_C(8388607) << 40}, {"0k", 0},
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    int64_t v = -7;
    int rc = ostio__parse_size(good[i].s, &v);
    CHECKF(rc == 0 && v == good[i].v, "parse_size(\"%s\") rc %d v %lld", good[i].s, rc,
           (long long)v);
  }
  static const char *const range[] = {"9223372036854775808", "99999999999g", "8388608t",
                                      "99999999999999999999999", "9007199254740992k"};
  for (size_t i = 0; i < sizeof range / sizeof range[0]; i++) {
    int64_t v = -7;
    CHECKF(ostio__parse_size(range[i], &v) == OSTIO_ERANGE && v == -7, "%s", range[i]);
  }
  static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "1 k", "1kb", "k", "1x",
                                    "12x", "1.5k", "0x10", "1e6", "--1", "-0",
                                    "99999999999999999999x", "1kk", "\t4"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int64_t v = -7;
    CHECKF(ostio__parse_size(bad[i], &v) == OSTIO_EINVAL && v == -7, "\"%s\"", bad[i]);
  }
  int64_t v = 0;
  CHECK(ostio__parse_size(NULL, &v) == OSTIO_EINVAL);
  CHECK(ostio__parse_size("1", NULL) == OSTIO_EINVAL);
}

static void test_parse_int(void)
{
  static const struct { const char *s; int64_t v; } good[] = {
    {"0", 0}, {"-1", -1}, {"+5", 5}, {"-0", 0}, {"65535", 65535},
    {"9223372036854775807", INT64_MAX}, {"-9223372036854775808", INT64_MIN},
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    int64_t v = -7;
    int rc = ostio__parse_int(good[i].s, &v);
    CHECKF(rc == 0 && v == good[i].v, "parse_int(\"%s\") rc %d", good[i].s, rc);
  }
  static const char *const range[] = {"9223372036854775808", "-9223372036854775809",
                                      "99999999999999999999"};
  for (size_t i = 0; i < sizeof range / sizeof range[0]; i++) {
    int64_t v = -7;
    CHECKF(ostio__parse_int(range[i], &v) == OSTIO_ERANGE && v == -7, "%s", range[i]);
  }
  static const char *const bad[] = {"", "-", "+", "1k", " 1", "1 ", "0x10", "1.0", "--1",
                                    "99999999999999999999x", "abc"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int64_t v = -7;
    CHECKF(ostio__parse_int(bad[i], &v) == OSTIO_EINVAL && v == -7, "\"%s\"", bad[i]);
  }
  int64_t v = 0;
  CHECK(ostio__parse_int(NULL, &v) == OSTIO_EINVAL);
}

/* ---- table ----------------------------------------------------------------- */

static const struct { const char *key, *dflt; } defaults[NKEYS] = {
  {"cb_buffer_size", "16777216"}, {"cb_nodes", "0"}, {"cb_config_list", "*:1"},
  {"romio_cb_read", "automatic"}, {"romio_cb_write", "automatic"},
  {"romio_ds_read", "automatic"}, {"romio_ds_write", "automatic"},
  {"ind_rd_buffer_size", "4194304"}, {"ind_wr_buffer_size", "524288"},
  {"romio_no_indep_rw", "false"}, {"striping_factor", "0"}, {"striping_unit", "0"},
  {"start_iodevice", "-1"}, {"direct_read", "false"}, {"direct_write", "false"},
  {"romio_lustre_co_ratio", "1"}, {"romio_lustre_coll_threshold", "0"},
  {"romio_lustre_ds_in_coll", "enable"}, {"ostio_layout_source", "auto"},
  {"ostio_strategy", "auto"}, {"ostio_pipeline", "true"},
};

static void test_defaults(void)
{
  ostio__hints h;
  fresh(&h);
  char buf[64];
  CHECK_EQ_I64(ostio__hints_count(), NKEYS);
  CHECK(h.cb_buffer_size == 16777216 && h.cb_nodes == 0 && !strcmp(h.cb_config_list, "*:1"));
  CHECK(h.romio_cb_read == OSTIO__TRI_AUTO && h.romio_cb_write == OSTIO__TRI_AUTO &&
        h.romio_ds_read == OSTIO__TRI_AUTO && h.romio_ds_write == OSTIO__TRI_AUTO);
  CHECK(h.ind_rd_buffer_size == 4194304 && h.ind_wr_buffer_size == 524288);
  CHECK(h.romio_no_indep_rw == 0 && h.direct_read == 0 && h.direct_write == 0);
  CHECK(h.striping_factor == 0 && h.striping_unit == 0 && h.start_iodevice == -1);
  CHECK(h.romio_lustre_co_ratio == 1 && h.romio_lustre_coll_threshold == 0 &&
        h.romio_lustre_ds_in_coll == OSTIO__TRI_ENABLE);
  CHECK_EQ_I64(h.ostio_layout_source, OSTIO__SRC_AUTO);
  CHECK_EQ_I64(h.given, 0);
  for (int i = 0; i < NKEYS; i++) {
    const char *k = ostio__hints_key(i);
    CHECKF(k && strcmp(k, defaults[i].key) == 0, "key %d is %s", i, k ? k : "NULL");
    CHECK_EQ_I64(ostio__hints_index(defaults[i].key), i);
    CHECKF(strcmp(fmt(&h, defaults[i].key, buf, sizeof buf), defaults[i].dflt) == 0,
           "%s default \"%s\"", defaults[i].key, buf);
    CHECK(!ostio__hints_given(&h, defaults[i].key));
  }
  CHECK(ostio__hints_key(-1) == NULL);
  CHECK(ostio__hints_key(NKEYS) == NULL);
  CHECK_EQ_I64(ostio__hints_index("nope"), -1);
  CHECK_EQ_I64(ostio__hints_index("direct_io"), -1); /* an alias, not a key */
  CHECK_EQ_I64(ostio__hints_index(NULL), -1);
}

static const struct { const char *key, *value, *canon; } goods[] = {
  {"cb_buffer_size", "1", "1"}, {"cb_buffer_size", "4k", "4096"},
  {"cb_buffer_size", "16M", "16777216"}, {"ind_rd_buffer_size", "1t", "1099511627776"},
  {"cb_buffer_size", "2G", "2147483648"},
  {"cb_nodes", "1", "1"}, {"cb_nodes", "+8", "8"}, {"cb_nodes", "2147483647", "2147483647"},
  {"cb_config_list", "*:1", "*:1"}, {"cb_config_list", "*:*", "*:*"},
  {"cb_config_list", "*", "*"}, {"cb_config_list", "n01:2,n02:2", "n01:2,n02:2"},
  {"cb_config_list", "n01,n11", "n01,n11"},
  {"cb_config_list", "node-1.example_x:4,*:0", "node-1.example_x:4,*:0"},
  {"romio_cb_read", "enable", "enable"}, {"romio_cb_read", "disable", "disable"},
  {"romio_cb_read", "automatic", "automatic"}, {"romio_cb_write", "ENABLE", "enable"},
  {"romio_ds_read", "disable", "disable"}, {"romio_ds_write", "Automatic", "automatic"},
  {"ind_rd_buffer_size", "1m", "1048576"}, {"ind_wr_buffer_size", "64K", "65536"},
  {"romio_no_indep_rw", "true", "true"}, {"romio_no_indep_rw", "false", "false"},
  {"romio_no_indep_rw", "enable", "true"}, {"romio_no_indep_rw", "disable", "false"},
  {"romio_no_indep_rw", "1", "true"}, {"romio_no_indep_rw", "0", "false"},
  {"romio_no_indep_rw", "TRUE", "true"},
  {"striping_factor", "1", "1"}, {"striping_factor", "2000", "2000"},
  {"striping_factor", "-1", "-1"},
  {"striping_unit", "1", "1"}, {"striping_unit", "64k", "65536"},
  {"striping_unit", "4294967295", "4294967295"},
  {"start_iodevice", "0", "0"}, {"start_iodevice", "65535", "65535"},
  {"direct_read", "true", "true"}, {"direct_write", "1", "true"},
  {"romio_lustre_co_ratio", "1", "1"}, {"romio_lustre_co_ratio", "4", "4"},
  {"romio_lustre_coll_threshold", "0", "0"},
  {"romio_lustre_coll_threshold", "1m", "1048576"},
  {"romio_lustre_ds_in_coll", "disable", "disable"},
  {"romio_lustre_ds_in_coll", "automatic", "automatic"},
  {"romio_lustre_ds_in_coll", "enable", "enable"},
  {"ostio_layout_source", "auto", "auto"}, {"ostio_layout_source", "lustre", "lustre"},
  {"ostio_layout_source", "emulated", "emulated"}, {"ostio_layout_source", "hints", "hints"},
  {"ostio_layout_source", "LUSTRE", "lustre"},
};

static void test_good_values(void)
{
  char buf[300], buf2[300];
  for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
    ostio__hints h, back, ref;
    fresh(&h);
    fresh(&back);
    const char *k = goods[i].key;
    int idx = ostio__hints_index(k);
    int rc = ostio__hints_set(&h, k, goods[i].value);
    CHECKF(rc == 0, "%s=%s: rc %d (%s)", k, goods[i].value, rc, ostio_last_error());
    CHECKF(strcmp(fmt(&h, k, buf, sizeof buf), goods[i].canon) == 0, "%s=%s gives %s", k,
           goods[i].value, buf);
    CHECK_EQ_I64(h.given, (int64_t)(UINT64_C(1) << idx));
    CHECK(ostio__hints_given(&h, k));
    /* The other keys keep their defaults. */
    fresh(&ref);
    for (int j = 0; j < NKEYS; j++) {
      if (j == idx) continue;
      CHECKF(strcmp(fmt(&h, defaults[j].key, buf, sizeof buf),
                    fmt(&ref, defaults[j].key, buf2, sizeof buf2)) == 0,
             "setting %s changed %s", k, defaults[j].key);
    }
    /* Round trip: the canonical text sets the same value. */
    fmt(&h, k, buf, sizeof buf);
    CHECK(ostio__hints_set(&back, k, buf) == 0);
    CHECKF(same(&h, &back), "round trip of %s=%s", k, goods[i].value);
  }
  /* Direct field checks for the types that are not plain numbers. */
  ostio__hints h;
  fresh(&h);
  CHECK(ostio__hints_set(&h, "romio_cb_write", "disable") == 0);
  CHECK_EQ_I64(h.romio_cb_write, OSTIO__TRI_DISABLE);
  CHECK(ostio__hints_set(&h, "romio_ds_read", "enable") == 0);
  CHECK_EQ_I64(h.romio_ds_read, OSTIO__TRI_ENABLE);
  CHECK(ostio__hints_set(&h, "ostio_layout_source", "emulated") == 0);
  CHECK_EQ_I64(h.ostio_layout_source, OSTIO__SRC_EMULATED);
  CHECK(ostio__hints_set(&h, "striping_unit", "1m") == 0);
  CHECK_EQ_I64(h.striping_unit, 1048576);
  CHECK(ostio__hints_set(&h, "striping_factor", "-1") == 0);
  CHECK_EQ_I64(h.striping_factor, -1);
  CHECK(ostio__hints_set(&h, "romio_no_indep_rw", "true") == 0);
  CHECK_EQ_I64(h.romio_no_indep_rw, 1);
  /* A later set overrides. */
  CHECK(ostio__hints_set(&h, "striping_unit", "2m") == 0);
  CHECK_EQ_I64(h.striping_unit, 2097152);
}

/* Random valid numbers survive format -> set. */
static void test_random_round_trip(void)
{
  static const struct { const char *key; int64_t lo, hi; } nums[] = {
    {"cb_buffer_size", 1, INT64_C(1) << 31}, {"cb_nodes", 1, INT_MAX},
    {"ind_rd_buffer_size", 1, INT64_MAX}, {"ind_wr_buffer_size", 1, INT64_MAX},
    {"striping_factor", 1, 2000}, {"striping_unit", 1, INT64_C(4294967295)},
    {"start_iodevice", 0, 65535}, {"romio_lustre_co_ratio", 1, INT_MAX},
    {"romio_lustre_coll_threshold", 0, INT64_MAX},
  };
  tu_rng r;
  tu_rng_seed(&r, tu_seed(0x5eed));
  char buf[64], val[64];
  for (int n = 0; n < 2000; n++) {
    size_t k = (size_t)tu_rng_range(&r, 0, (int64_t)(sizeof nums / sizeof nums[0]) - 1);
    int64_t v = tu_rng_range(&r, nums[k].lo, nums[k].hi);
    if (n % 3 == 0) v = v >> tu_rng_range(&r, 0, 62);
    if (v < nums[k].lo) v = nums[k].lo;
    snprintf(val, sizeof val, "%lld", (long long)v);
    ostio__hints a, b;
    fresh(&a);
    fresh(&b);
    int ok = ostio__hints_set(&a, nums[k].key, val) == 0 &&
             strcmp(fmt(&a, nums[k].key, buf, sizeof buf), val) == 0 &&
             ostio__hints_set(&b, nums[k].key, buf) == 0 && same(&a, &b);
    CHECKF(ok, "%s=%s", nums[k].key, val);
    if (!ok) break;
  }
}

static const struct { const char *key, *value, *also; } bads[] = {
  {"cb_buffer_size", "12x", "expected a byte count"}, {"cb_buffer_size", "", "from 1 to 2147483648"},
  {"cb_buffer_size", "-1", "expected a byte count"}, {"cb_buffer_size", "0", "too small"},
  {"cb_buffer_size", "99999999999g", "too large; the maximum is 2147483648"},
  {"ind_rd_buffer_size", "99999999999g", "too large; the maximum is 9223372036854775807"},
  {"cb_buffer_size", "9223372036854775808", "too large"},
  {"cb_buffer_size", "1.5m", "suffixes k, m, g, t"}, {"cb_buffer_size", " 16m", "byte count"},
  {"cb_buffer_size", "16 m", "byte count"}, {"cb_buffer_size", "16mb", "byte count"},
  {"cb_buffer_size", "0x10", "byte count"},
  {"cb_nodes", "-1", "too small"},
  {"cb_nodes", "abc", "expected an integer from 1 to 2147483647"},
  {"cb_nodes", "99999999999999999999", "too large"},
  {"cb_nodes", "2147483648", "the maximum is 2147483647"}, {"cb_nodes", "1k", "integer"},
  {"cb_config_list", "", "empty host name"}, {"cb_config_list", "*:", "bad maxprocs"},
  {"cb_config_list", ":2", "empty host name"},
  {"cb_config_list", "n01,,n02", "empty host name in entry 2"},
  {"cb_config_list", "n01:x", "bad maxprocs"}, {"cb_config_list", "n01:2:3", "bad maxprocs"},
  {"cb_config_list", "a b", "bad character"}, {"cb_config_list", "n*:1", "bad character"},
  {"cb_config_list", "n01,", "empty host name"},
  {"cb_config_list", "n01:99999999999", "bad maxprocs"},
  {"cb_config_list", "n01:-1", "host[:maxprocs]"},
  {"romio_cb_read", "yes", "enable, disable or automatic"}, {"romio_cb_write", "", "enable"},
  {"romio_ds_read", "auto", "automatic"}, {"romio_ds_write", "1", "disable"},
  {"romio_lustre_ds_in_coll", "true", "automatic"},
  {"romio_no_indep_rw", "yes", "expected true or false"}, {"direct_read", "2", "true"},
  {"direct_write", "", "false"}, {"romio_no_indep_rw", "automatic", "1 or 0"},
  {"striping_factor", "-2", "the minimum is 1 (or -1 for all OSTs)"},
  {"striping_factor", "2001", "too large; the maximum is 2000"},
  {"striping_factor", "-2", "too small"}, {"striping_factor", "x", "or -1 for all OSTs"},
  {"striping_unit", "4294967296", "the maximum is 4294967295"},
  {"striping_unit", "4g", "too large"}, {"striping_unit", "-1", "from 1 to 4294967295"},
  {"start_iodevice", "-2", "the minimum is 0"}, {"start_iodevice", "65536", "the maximum is 65535"},
  {"start_iodevice", "x", "from 0 to 65535"},
  {"romio_lustre_co_ratio", "0", "too small"},
  {"romio_lustre_coll_threshold", "-1", "byte count"},
  {"romio_lustre_coll_threshold", "x", "byte count"},
  {"ind_rd_buffer_size", "0", "too small"}, {"ind_wr_buffer_size", "1q", "byte count"},
  {"ostio_layout_source", "", "one of auto, lustre, emulated or hints"},
  {"ostio_layout_source", "gpfs", "one of"}, {"ostio_layout_source", "auto ", "one of"},
  {"direct_io", "maybe", "expected true or false"},
};

static void test_bad_values(void)
{
  for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
    ostio__hints h, ref;
    fresh(&h);
    fresh(&ref);
    char kv[160];
    snprintf(kv, sizeof kv, "%s=\"%s\"", bads[i].key, bads[i].value);
    ostio__clear_error();
    int rc = ostio__hints_set(&h, bads[i].key, bads[i].value);
    CHECKF(rc == OSTIO_EHINT, "%s: rc %d", kv, rc);
    CHECKF(has(kv), "%s: detail \"%s\"", kv, ostio_last_error());
    CHECKF(has(bads[i].also), "%s: detail \"%s\" lacks \"%s\"", kv, ostio_last_error(),
           bads[i].also);
    CHECKF(same(&h, &ref), "%s changed the hints", kv);
  }
  /* The message of the documentation, word for word. */
  ostio__hints h;
  fresh(&h);
  CHECK(ostio__hints_set(&h, "cb_buffer_size", "12x") == OSTIO_EHINT);
  CHECK(strcmp(ostio_last_error(),
               "hint cb_buffer_size=\"12x\": expected a byte count such as 16777216, 16m or "
               "4k (suffixes k, m, g, t; from 1 to 2147483648)") == 0);
  /* Too long for cb_config_list (255 characters at most). */
  char longv[300];
  memset(longv, 'a', sizeof longv - 1);
  longv[sizeof longv - 1] = '\0';
  CHECK(ostio__hints_set(&h, "cb_config_list", longv) == OSTIO_EHINT);
  CHECK(has("too long; at most 255 characters") && has("cb_config_list") && has("..."));
  longv[255] = '\0';
  CHECK(ostio__hints_set(&h, "cb_config_list", longv) == 0);
  CHECK(strlen(h.cb_config_list) == 255);
  /* Null arguments. */
  CHECK(ostio__hints_set(NULL, "cb_nodes", "1") == OSTIO_EINVAL);
  CHECK(ostio__hints_set(&h, NULL, "1") == OSTIO_EINVAL);
  CHECK(ostio__hints_set(&h, "cb_nodes", NULL) == OSTIO_EINVAL);
}

static void test_unknown_and_given(void)
{
  ostio__hints h, ref;
  fresh(&h);
  fresh(&ref);
  CHECK(ostio__hints_set(&h, "ostio_foo", "1") == OSTIO_EHINT);
  CHECK(has("ostio_foo") && has("ostio_layout_source"));
  CHECK(ostio__hints_set(&h, "ostio_", "x") == OSTIO_EHINT);
  CHECK(ostio__hints_set(&h, "ostio_layout_sources", "auto") == OSTIO_EHINT);
  static const char *const foreign[] = {"access_style", "romio_filesystem_type",
                                        "OSTIO_layout_source", "striping", "nb_proc", ""};
  for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
    CHECKF(ostio__hints_set(&h, foreign[i], "whatever") == 1, "%s", foreign[i]);
  CHECK(same(&h, &ref));

  /* given: exactly the bits of what was set. */
  CHECK(ostio__hints_set(&h, "cb_nodes", "4") == 0);
  CHECK(ostio__hints_set(&h, "ostio_layout_source", "hints") == 0);
  CHECK(ostio__hints_set(&h, "cb_buffer_size", "oops") == OSTIO_EHINT);
  CHECK_EQ_I64(h.given, (int64_t)((UINT64_C(1) << 1) | (UINT64_C(1) << 18)));
  CHECK(ostio__hints_given(&h, "cb_nodes") && ostio__hints_given(&h, "ostio_layout_source"));
  CHECK(!ostio__hints_given(&h, "cb_buffer_size"));
  CHECK(!ostio__hints_given(&h, "direct_io"));
  CHECK(!ostio__hints_given(&h, "nope"));
  CHECK(!ostio__hints_given(NULL, "cb_nodes"));
  /* Setting a key to its default value still marks it given. */
  CHECK(ostio__hints_set(&h, "romio_cb_read", "automatic") == 0);
  CHECK(ostio__hints_given(&h, "romio_cb_read"));

  /* direct_io sets both direct_read and direct_write. */
  fresh(&h);
  CHECK(ostio__hints_set(&h, "direct_io", "true") == 0);
  CHECK(h.direct_read == 1 && h.direct_write == 1);
  CHECK(ostio__hints_given(&h, "direct_read") && ostio__hints_given(&h, "direct_write"));
  CHECK(ostio__hints_given(&h, "direct_io"));
  CHECK(ostio__hints_set(&h, "direct_write", "false") == 0);
  CHECK(h.direct_read == 1 && h.direct_write == 0);
  CHECK(ostio__hints_set(&h, "direct_io", "disable") == 0);
  CHECK(h.direct_read == 0 && h.direct_write == 0);

  /* ostio_co_ratio is our name for romio_lustre_co_ratio. */
  fresh(&h);
  CHECK(ostio__hints_set(&h, "ostio_co_ratio", "3") == 0);
  CHECK(h.romio_lustre_co_ratio == 3 && ostio__hints_given(&h, "ostio_co_ratio"));
  CHECK(ostio__hints_set(&h, "ostio_co_ratio", "0") == OSTIO_EHINT);
  CHECK(h.romio_lustre_co_ratio == 3);

  /* ostio_strategy takes the five names, any case. */
  static const char *const strat[] = {"auto", "even", "aligned", "ost", "independent"};
  for (int i = 0; i < 5; i++) {
    CHECK(ostio__hints_set(&h, "ostio_strategy", strat[i]) == 0 && h.ostio_strategy == i);
  }
  CHECK(ostio__hints_set(&h, "ostio_strategy", "OST") == 0 && h.ostio_strategy == OSTIO__STRAT_OST);
  CHECK(ostio__hints_set(&h, "ostio_strategy", "ylib") == OSTIO_EHINT);
  CHECK(strstr(ostio_last_error(), "independent") != NULL);
}

static void test_format(void)
{
  ostio__hints h;
  fresh(&h);
  char buf[64];
  CHECK(ostio__hints_format(&h, -1, buf, sizeof buf) == OSTIO_EINVAL);
  CHECK(ostio__hints_format(&h, NKEYS, buf, sizeof buf) == OSTIO_EINVAL);
  CHECK(ostio__hints_format(NULL, 0, buf, sizeof buf) == OSTIO_EINVAL);
  CHECK(ostio__hints_format(&h, 0, NULL, 8) == OSTIO_EINVAL);
  CHECK(ostio__hints_format(&h, 0, buf, 0) == OSTIO_EINVAL);
  CHECK(ostio__hints_format(&h, 0, buf, 4) == OSTIO_ERANGE); /* "16777216" */
  CHECK(ostio__hints_format(&h, 0, buf, 9) == 0 && strcmp(buf, "16777216") == 0);
}

/* ---- OSTIO_HINTS ------------------------------------------------------------ */

/* Applies env for path to fresh defaults; returns the code. */
static int env_apply(ostio__hints *h, const char *path, const char *env)
{
  fresh(h);
  return ostio__hints_apply_env(h, path, env);
}

static void test_env(void)
{
  ostio__hints h, ref;
  fresh(&ref);
  CHECK(env_apply(&h, "/a", NULL) == 0 && same(&h, &ref));
  CHECK(env_apply(&h, "/a", "") == 0 && same(&h, &ref));
  CHECK(env_apply(&h, "/a", " , ") == 0 && same(&h, &ref));

  CHECK(env_apply(&h, "/deep/dir/f", "*:cb_nodes=4") == 0);
  CHECK(h.cb_nodes == 4 && ostio__hints_given(&h, "cb_nodes"));
  CHECK(env_apply(&h, "/x", "*:cb_nodes=4:romio_cb_read=disable:striping_unit=1m") == 0);
  CHECK(h.cb_nodes == 4 && h.romio_cb_read == OSTIO__TRI_DISABLE &&
        h.striping_unit == 1048576);

  const char *two = "*.dat:cb_nodes=2,*.txt:cb_nodes=3:direct_io=true";
  CHECK(env_apply(&h, "/a/b.dat", two) == 0 && h.cb_nodes == 2 && h.direct_read == 0);
  CHECK(env_apply(&h, "/a/b.txt", two) == 0 && h.cb_nodes == 3 && h.direct_read == 1 &&
        h.direct_write == 1);
  CHECK(env_apply(&h, "/a/b.bin", two) == 0 && same(&h, &ref));
  CHECK(env_apply(&h, "b.dat", two) == 0 && h.cb_nodes == 2);
  CHECK(env_apply(&h, "/scratch/run1/out.h5", "/scratch/*:cb_nodes=7") == 0 && h.cb_nodes == 7);
  CHECK(env_apply(&h, "/home/out.h5", "/scratch/*:cb_nodes=7") == 0 && same(&h, &ref));

  const char *over = "*:cb_nodes=2:striping_factor=4,*.dat:cb_nodes=5";
  CHECK(env_apply(&h, "/a/b.dat", over) == 0 && h.cb_nodes == 5 && h.striping_factor == 4);
  CHECK(env_apply(&h, "/a/b.txt", over) == 0 && h.cb_nodes == 2);
  CHECK(env_apply(&h, "/f", "*:cb_nodes=2:cb_nodes=3") == 0 && h.cb_nodes == 3);

  /* Values with ':' and ','. */
  CHECK(env_apply(&h, "/f", "*:cb_config_list=*:2") == 0 && !strcmp(h.cb_config_list, "*:2"));
  CHECK(env_apply(&h, "/f", "*:cb_config_list=*:*") == 0 && !strcmp(h.cb_config_list, "*:*"));
  CHECK(env_apply(&h, "/f", "*:cb_config_list=n01:2,n11:2:cb_nodes=2") == 0 &&
        !strcmp(h.cb_config_list, "n01:2,n11:2") && h.cb_nodes == 2);
  CHECK(env_apply(&h, "/x.dat", "*:cb_config_list=n01,n11,*.dat:cb_nodes=3") == 0 &&
        !strcmp(h.cb_config_list, "n01,n11") && h.cb_nodes == 3);
  CHECK(env_apply(&h, "/x.dat", "*:cb_config_list=*:2,*.dat:striping_factor=4") == 0 &&
        !strcmp(h.cb_config_list, "*:2") && h.striping_factor == 4);
  CHECK(env_apply(&h, "/x.txt", "*:cb_config_list=*:2,*.dat:striping_factor=4") == 0 &&
        !strcmp(h.cb_config_list, "*:2") && h.striping_factor == 0);

  /* Whitespace around tokens, empty segments. */
  CHECK(env_apply(&h, "/x.dat",
                  "  *.dat : cb_nodes = 4 : cb_config_list = n01:2 , n02 : 2 ,"
                  "  *.txt:cb_nodes=9 ,") == 0);
  CHECK(h.cb_nodes == 4 && !strcmp(h.cb_config_list, "n01:2,n02:2"));
  CHECKF(env_apply(&h, "/f", "*:cb_nodes=4,,\t*:romio_ds_write=enable,") == 0 &&
         h.cb_nodes == 4 && h.romio_ds_write == OSTIO__TRI_ENABLE, "%s", ostio_last_error());

  /* Foreign keys are ignored; our unknown keys are not. */
  CHECK(env_apply(&h, "/f", "*:access_style=read_once:cb_nodes=3") == 0 && h.cb_nodes == 3);
  CHECK(env_apply(&h, "/f", "*:ostio_nope=1") == OSTIO_EHINT && has("ostio_nope"));

  /* Syntax errors: nothing is applied, even entries before the bad one. */
  static const struct { const char *env, *quote; } syn[] = {
    {"cb_nodes=4", "\"cb_nodes=4\""}, {":cb_nodes=4", "\":cb_nodes=4\""},
    {"*:=4", "\"*:=4\""}, {"*:cb_nodes", "\"*:cb_nodes\""}, {"*", "\"*\""},
    {"*:foo:cb_nodes=4", "\"*:foo:cb_nodes=4\""},
    {"*:cb_nodes=4,*:=3", "\"*:=3\""}, {"*.txt:=3", "\"*.txt:=3\""},
    {"*:cb_config_list=n01:2,x=y", "x=y"}, {"*:cb nodes=4", "cb nodes"},
    {"*:cb_nodes=4, :romio_cb_read=enable", ":romio_cb_read=enable"},
  };
  for (size_t i = 0; i < sizeof syn / sizeof syn[0]; i++) {
    int rc = env_apply(&h, "/a.dat", syn[i].env);
    CHECKF(rc == OSTIO_EHINT, "OSTIO_HINTS=%s: rc %d", syn[i].env, rc);
    CHECKF(has("OSTIO_HINTS") && has(syn[i].quote) && has("pattern:key=value"),
           "OSTIO_HINTS=%s: detail \"%s\"", syn[i].env, ostio_last_error());
    CHECKF(same(&h, &ref), "OSTIO_HINTS=%s changed the hints", syn[i].env);
  }
  CHECK(env_apply(&h, "/a.dat", "*:=4") == OSTIO_EHINT && has("key is empty"));
  CHECK(env_apply(&h, "/a.dat", ":x=4") == OSTIO_EHINT && has("pattern is empty"));

  /* Bad values: the hint's own message, saying where it came from. */
  CHECK(env_apply(&h, "/a.dat", "*:cb_nodes=3,*.dat:cb_buffer_size=12x") == OSTIO_EHINT);
  CHECK(has("cb_buffer_size=\"12x\"") && has("byte count") && has("OSTIO_HINTS") &&
        has("*.dat"));
  CHECK(same(&h, &ref));
  CHECK(env_apply(&h, "/a.dat", "*:striping_unit=99999999999g") == OSTIO_EHINT &&
        has("too large"));
  /* A ','-segment without ':' continues the value: here it makes it bad. */
  CHECK(env_apply(&h, "/a.dat", "*:cb_nodes=2,8") == OSTIO_EHINT && has("\"2,8\""));
  /* Entries that do not match are checked for syntax only. */
  CHECK(env_apply(&h, "/a.dat", "*.txt:cb_buffer_size=12x:ostio_nope=1") == 0 &&
        same(&h, &ref));

  fresh(&h);
  CHECK(ostio__hints_apply_env(NULL, "/a", "*:cb_nodes=1") == OSTIO_EINVAL);
  CHECK(ostio__hints_apply_env(&h, NULL, "*:cb_nodes=1") == OSTIO_EINVAL);

  /* ostio__hints_resolve_env reads the variable. */
  setenv("OSTIO_HINTS", "*.dat:cb_nodes=6:ostio_layout_source=emulated", 1);
  CHECK(ostio__hints_resolve_env("/r/x.dat", &h) == 0 && h.cb_nodes == 6 &&
        h.ostio_layout_source == OSTIO__SRC_EMULATED);
  CHECK(ostio__hints_resolve_env("/r/x.txt", &h) == 0 && same(&h, &ref));
  setenv("OSTIO_HINTS", "*:cb_nodes=zero", 1);
  h.cb_nodes = 99;
  CHECK(ostio__hints_resolve_env("/r/x.dat", &h) == OSTIO_EHINT && has("cb_nodes"));
  CHECK(h.cb_nodes == 0); /* defaults on failure */
  unsetenv("OSTIO_HINTS");
  CHECK(ostio__hints_resolve_env("/r/x.dat", &h) == 0 && same(&h, &ref));
  CHECK(ostio__hints_resolve_env("/r/x.dat", NULL) == OSTIO_EINVAL);
}

/* ---- MPI ---------------------------------------------------------------------- */

static MPI_Info make_info(const char *const *kv)
{
  MPI_Info info;
  MPI_Info_create(&info);
  for (; kv[0]; kv += 2) MPI_Info_set(info, kv[0], kv[1]);
  return info;
}

/* Value of key in info, "" when absent. */
static const char *info_get(MPI_Info info, const char *key, char *buf, int cap)
{
  int flag = 0;
  buf[0] = '\0';
  MPI_Info_get(info, key, cap - 1, buf, &flag);
  if (!flag) buf[0] = '\0';
  return buf;
}

static void test_mpi(void)
{
  MPI_Info out = MPI_INFO_NULL;
  /* Before MPI_Init: a clear error, no crash. */
  CHECK(ostio_hints_effective("/f", MPI_INFO_NULL, &out) == OSTIO_EMPI);
  CHECK(out == MPI_INFO_NULL && has("not initialized"));

  LSAN_PAUSE();
  MPI_Init(NULL, NULL);
  LSAN_RESUME();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  unsetenv("OSTIO_HINTS");

  ostio__hints h, ref;
  fresh(&ref);
  fresh(&h);
  CHECK(ostio__hints_from_info(&h, MPI_INFO_NULL) == 0 && same(&h, &ref));
  CHECK(ostio__hints_from_info(NULL, MPI_INFO_NULL) == OSTIO_EINVAL);

  static const char *const kv1[] = {"cb_nodes", "4", "romio_cb_write", "disable",
                                    "access_style", "read_once", "direct_io", "true",
                                    "striping_factor", "8", "cb_config_list", "n01:2,n02:2",
                                    NULL};
  MPI_Info info = make_info(kv1);
  CHECK(ostio__hints_from_info(&h, info) == 0);
  CHECK(h.cb_nodes == 4 && h.romio_cb_write == OSTIO__TRI_DISABLE && h.direct_read == 1 &&
        h.direct_write == 1 && h.striping_factor == 8 &&
        !strcmp(h.cb_config_list, "n01:2,n02:2"));
  CHECK(ostio__hints_given(&h, "cb_nodes") && !ostio__hints_given(&h, "cb_buffer_size"));

  static const char *const bad1[] = {"cb_nodes", "4", "striping_unit", "12x", NULL};
  static const char *const bad2[] = {"ostio_bogus", "1", NULL};
  MPI_Info bad = make_info(bad1), bogus = make_info(bad2);
  fresh(&h);
  CHECK(ostio__hints_from_info(&h, bad) == OSTIO_EHINT && has("striping_unit=\"12x\""));
  CHECK(same(&h, &ref));
  CHECK(ostio__hints_from_info(&h, bogus) == OSTIO_EHINT && has("ostio_bogus"));

  /* Precedence: defaults < info < OSTIO_HINTS (per file). */
  CHECK(ostio__hints_resolve("/p/x.dat", info, &h) == 0);
  CHECK(h.cb_nodes == 4 && h.striping_factor == 8 && h.cb_buffer_size == 16777216);
  setenv("OSTIO_HINTS", "*.dat:cb_nodes=6:cb_buffer_size=1m,*.txt:striping_factor=2", 1);
  CHECK(ostio__hints_resolve("/p/x.dat", info, &h) == 0);
  CHECK(h.cb_nodes == 6 && h.striping_factor == 8 && h.cb_buffer_size == 1048576 &&
        h.romio_cb_write == OSTIO__TRI_DISABLE);
  CHECK(ostio__hints_resolve("/p/x.txt", info, &h) == 0);
  CHECK(h.cb_nodes == 4 && h.striping_factor == 2 && h.cb_buffer_size == 16777216);
  CHECK(ostio__hints_resolve("/p/x.bin", MPI_INFO_NULL, &h) == 0 && same(&h, &ref));
  CHECK(ostio__hints_resolve("/p/x.dat", bad, &h) == OSTIO_EHINT && same(&h, &ref));

  /* ostio_hints_effective: every key, effective values, nothing else. */
  CHECK(ostio_hints_effective("/p/x.dat", info, &out) == 0 && out != MPI_INFO_NULL);
  if (out != MPI_INFO_NULL) {
    int nkeys = -1;
    MPI_Info_get_nkeys(out, &nkeys);
    CHECK_EQ_I64(nkeys, NKEYS);
    CHECK(ostio__hints_resolve("/p/x.dat", info, &h) == 0);
    char got[MPI_MAX_INFO_VAL + 1], want[MPI_MAX_INFO_VAL + 1];
    for (int i = 0; i < NKEYS; i++) {
      const char *k = ostio__hints_key(i);
      info_get(out, k, got, (int)sizeof got);
      CHECKF(!strcmp(got, fmt(&h, k, want, sizeof want)), "%s: \"%s\" vs \"%s\"", k, got, want);
    }
    static const char *const want_kv[] = {
      "cb_nodes", "6", "striping_factor", "8", "cb_buffer_size", "1048576",
      "romio_cb_write", "disable", "romio_cb_read", "automatic", "direct_write", "true",
      "cb_config_list", "n01:2,n02:2", "start_iodevice", "-1", "ostio_layout_source", "auto",
      "access_style", "", "direct_io", "", NULL};
    for (const char *const *kv = want_kv; kv[0]; kv += 2)
      CHECKF(!strcmp(info_get(out, kv[0], got, (int)sizeof got), kv[1]), "%s=\"%s\"", kv[0],
             got);
    MPI_Info_free(&out);
  }
  CHECK(ostio_hints_effective("/p/x.txt", MPI_INFO_NULL, &out) == 0 && out != MPI_INFO_NULL);
  if (out != MPI_INFO_NULL) {
    char got[64];
    CHECK(!strcmp(info_get(out, "striping_factor", got, (int)sizeof got), "2"));
    CHECK(!strcmp(info_get(out, "cb_nodes", got, (int)sizeof got), "0"));
    /* The effective info goes back in unchanged, "not given" values included. */
    MPI_Info again = MPI_INFO_NULL;
    CHECKF(ostio_hints_effective("/p/x.txt", out, &again) == 0, "%s", ostio_last_error());
    if (again != MPI_INFO_NULL) {
      CHECK(!strcmp(info_get(again, "start_iodevice", got, (int)sizeof got), "-1"));
      CHECK(!strcmp(info_get(again, "striping_unit", got, (int)sizeof got), "0"));
      MPI_Info_free(&again);
    }
    MPI_Info_free(&out);
  }

  /* Errors: MPI_INFO_NULL out, whatever it held. */
  MPI_Info keep;
  MPI_Info_create(&keep);
  out = keep;
  CHECK(ostio_hints_effective("/p/x.dat", bad, &out) == OSTIO_EHINT && out == MPI_INFO_NULL);
  setenv("OSTIO_HINTS", "*:romio_ds_read=sometimes", 1);
  out = keep;
  CHECK(ostio_hints_effective("/p/x.dat", info, &out) == OSTIO_EHINT && out == MPI_INFO_NULL);
  CHECK(has("romio_ds_read") && has("sometimes") && has("OSTIO_HINTS"));
  setenv("OSTIO_HINTS", "*:", 1);
  out = keep;
  CHECK(ostio_hints_effective("/p/x.dat", info, &out) == OSTIO_EHINT && out == MPI_INFO_NULL);
  unsetenv("OSTIO_HINTS");
  out = keep;
  CHECK(ostio_hints_effective(NULL, info, &out) == OSTIO_EINVAL && out == MPI_INFO_NULL);
  CHECK(ostio_hints_effective("/p/x.dat", info, NULL) == OSTIO_EINVAL);

  /* A value too long for cb_config_list arrives through info too. */
  char longv[400];
  memset(longv, 'n', sizeof longv - 1);
  longv[sizeof longv - 1] = '\0';
  MPI_Info_set(keep, "cb_config_list", longv);
  CHECK(ostio__hints_resolve("/p/x.dat", keep, &h) == OSTIO_EHINT && has("too long"));

  MPI_Info_free(&keep);
  MPI_Info_free(&info);
  MPI_Info_free(&bad);
  MPI_Info_free(&bogus);
  LSAN_PAUSE();
  MPI_Finalize();
  LSAN_RESUME();
}

int main(void)
{
  unsetenv("OSTIO_HINTS");
  test_parse_size();
  test_parse_int();
  test_defaults();
  test_good_values();
  test_random_round_trip();
  test_bad_values();
  test_unknown_and_given();
  test_format();
  test_env();
  test_mpi();
  return TEST_DONE();
}
