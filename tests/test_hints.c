/* Hints: value parsers and the key table (defaults, good and bad values,
 * formatting). OSTIO_HINTS and MPI_Info are in test_hints_env.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "hints/hints.h"
#include "ostio.h"
#include "testutil.h"

#include "hintsutil.h"

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
  {"ostio_strategy", "auto"}, {"ostio_pipeline", "true"}, {"ostio_container", "plain"},
  {"ostio_objects", "0"}, {"ostio_log_writers", "rank"}, {"ostio_mpiio", "automatic"},
  {"ostio_cache", "disable"}, {"ostio_cache_page", "0"}, {"ostio_cache_size", "67108864"},
  {"ostio_cache_bypass", "0"}, {"ostio_atomic", "false"}, {"ostio_stage_dir", "none"},
  {"ostio_stage_bandwidth", "0"}, {"ostio_stage_sync", "close"},
  {"ostio_deferred_open", "automatic"},
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
  {"ostio_stage_dir", "/local/scratch", "/local/scratch"}, {"ostio_stage_dir", "", "none"},
  {"ostio_stage_dir", "none", "none"},
  {"ostio_stage_bandwidth", "200m", "209715200"}, {"ostio_stage_sync", "drain", "drain"},
  {"ostio_stage_sync", "close", "close"},
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
  {"ostio_layout_source", "", "one of auto, lustre, emulated, hints or ceph"},
  {"ostio_layout_source", "gpfs", "one of"}, {"ostio_layout_source", "auto ", "one of"},
  {"direct_io", "maybe", "expected true or false"},
  {"ostio_stage_dir", "local/scratch", "an absolute path"},
  {"ostio_stage_dir", "/a\nb", "an absolute path"}, {"ostio_stage_sync", "never", "one of"},
  {"ostio_stage_bandwidth", "fast", "byte count"},
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
  /* Issue 14 item 4: the message names the nearest known key. */
  CHECK(ostio__hints_set(&h, "ostio_stratgy", "ost") == OSTIO_EHINT);
  CHECKF(has("unknown hint \"ostio_stratgy\": did you mean ostio_strategy?"), "%s",
         ostio_last_error());
  CHECK(ostio__hints_set(&h, "ostio_container_type", "log") == OSTIO_EHINT);
  CHECK(!has("did you mean") && has("ostio_log_writers"));
  /* Other layers' keys (and ROMIO hints ostio does not use) are ignored and
   * not reported. */
  static const char *const foreign[] = {"access_style", "romio_filesystem_type",
                                        "romio_cb_fr_types", "romio_gpfs_whatever",
                                        "striping", "nb_proc", "file_perm", ""};
  for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
    CHECKF(ostio__hints_set(&h, foreign[i], "whatever") == 1, "%s", foreign[i]);
  CHECK(same(&h, &ref));
}

/* Issue 14 item 4: unknown romio_ / cb_ / striping_ keys, and keys close to
 * a known one, are accepted (ROMIO compatibility) but recorded in the flat
 * struct with the nearest known key, for `ostio hints` and the statistics. */
static void test_unknown_recorded(void)
{
  ostio__hints h, ref;
  char buf[64];
  fresh(&h);
  fresh(&ref);
  CHECK(ostio__hints_suggest("romio_cb_wirte", buf, sizeof buf) == 1 &&
        !strcmp(buf, "romio_cb_write"));
  CHECK(ostio__hints_suggest("cb_buffer_sise", buf, sizeof buf) == 1 &&
        !strcmp(buf, "cb_buffer_size"));
  CHECK(ostio__hints_suggest("CB_NODES", buf, sizeof buf) == 1 && !strcmp(buf, "cb_nodes"));
  CHECK(ostio__hints_suggest("strping_factor", buf, sizeof buf) == 1 &&
        !strcmp(buf, "striping_factor"));
  CHECK(ostio__hints_suggest("direct_oi", buf, sizeof buf) == 1 && !strcmp(buf, "direct_io"));
  CHECK(ostio__hints_suggest("romio_zzzzzzzz", buf, sizeof buf) == 0 && buf[0] == '\0');
  CHECK(ostio__hints_suggest("x", buf, sizeof buf) == 0);
  CHECK(ostio__hints_suggest(NULL, buf, sizeof buf) == 0);
  CHECK_EQ_I64(ostio__hints_edit_distance("romio_cb_wirte", "romio_cb_write"), 1);
  CHECK_EQ_I64(ostio__hints_edit_distance("kitten", "sitting"), 3);
  CHECK_EQ_I64(ostio__hints_edit_distance("", "abc"), 3);
  CHECK_EQ_I64(ostio__hints_edit_distance("ca", "abc"), 3); /* restricted: no edit twice */

  CHECK(ostio__hints_set(&h, "romio_cb_wirte", "enable") == 1);
  CHECK(h.romio_cb_write == OSTIO__TRI_AUTO && !ostio__hints_given(&h, "romio_cb_write"));
  CHECK(ostio__hints_set(&h, "cb_nodez", "4") == 1 && h.cb_nodes == 0);
  CHECK(ostio__hints_set(&h, "romio_cb_wirte", "disable") == 1); /* recorded once */
  CHECK(ostio__hints_set(&h, "strping_factor", "4") == 1);      /* close to a key */
  CHECK(ostio__hints_set(&h, "romio_lustre_zzzzzzz", "1") == 1); /* prefix, no suggestion */
  CHECK(ostio__hints_set(&h, "OSTIO_layout_source", "auto") == 1);
  CHECK(ostio__hints_set(&h, "access_style", "read_once") == 1); /* not recorded */
  CHECK_EQ_I64(h.nunknown, 5);
  CHECK_EQ_I64(h.unknown_more, 0);
  static const char *const want[][2] = {
    {"romio_cb_wirte", "romio_cb_write"}, {"cb_nodez", "cb_nodes"},
    {"strping_factor", "striping_factor"}, {"romio_lustre_zzzzzzz", ""},
    {"OSTIO_layout_source", "ostio_layout_source"}};
  for (int i = 0; i < 5 && i < h.nunknown; i++)
    CHECKF(!strcmp(h.unknown[i].key, want[i][0]) && !strcmp(h.unknown[i].suggestion, want[i][1]),
           "unknown[%d] = %s -> %s", i, h.unknown[i].key, h.unknown[i].suggestion);
  /* The known hints are untouched. */
  ostio__hints cmp = h;
  cmp.nunknown = 0;
  cmp.unknown_more = 0;
  memset(cmp.unknown, 0, sizeof cmp.unknown);
  CHECK(same(&cmp, &ref));

  /* A full list counts the rest; a long key is kept cut (still one entry). */
  fresh(&h);
  char key[300];
  for (int i = 0; i < OSTIO__HINTS_NUNKNOWN + 3; i++) {
    snprintf(key, sizeof key, "romio_made_up_%d", i);
    CHECK(ostio__hints_set(&h, key, "1") == 1);
  }
  CHECK_EQ_I64(h.nunknown, OSTIO__HINTS_NUNKNOWN);
  CHECK_EQ_I64(h.unknown_more, 3);
  fresh(&h);
  memset(key, 'x', sizeof key);
  memcpy(key, "romio_", 6);
  key[sizeof key - 1] = '\0';
  CHECK(ostio__hints_set(&h, key, "1") == 1 && h.nunknown == 1);
  CHECK(strlen(h.unknown[0].key) == sizeof h.unknown[0].key - 1);

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

  /* ostio_strategy keeps a name, in lower case; the engine's registry
   * checks it at open (test_coll_errors, test_strategy_template), since
   * hints are below the engine and do not know the strategies. */
  static const char *const strat[] = {"auto", "even", "aligned", "ost", "independent"};
  for (int i = 0; i < 5; i++) {
    CHECK(ostio__hints_set(&h, "ostio_strategy", strat[i]) == 0 &&
          !strcmp(h.ostio_strategy, strat[i]));
  }
  CHECK(ostio__hints_set(&h, "ostio_strategy", "OST") == 0 && !strcmp(h.ostio_strategy, "ost"));
  char val[64];
  CHECK(ostio__hints_format(&h, ostio__hints_index("ostio_strategy"), val, sizeof val) == 0 &&
        !strcmp(val, "ost"));
  CHECK(ostio__hints_set(&h, "ostio_strategy", "ylib") == 0 && !strcmp(h.ostio_strategy, "ylib"));
  CHECK(ostio__hints_set(&h, "ostio_strategy", "a_name_longer_than_the_field_holds") ==
        OSTIO_EHINT);
  CHECK(strstr(ostio_last_error(), "too long") && !strcmp(h.ostio_strategy, "ylib"));

  /* Containers (issue 5): ostio_container plain|striped, ostio_objects 1..2000. */
  CHECK(h.ostio_container == OSTIO__CONTAINER_PLAIN && h.ostio_objects == 0);
  CHECK(ostio__hints_set(&h, "ostio_container", "Striped") == 0 &&
        h.ostio_container == OSTIO__CONTAINER_STRIPED);
  CHECK(ostio__hints_set(&h, "ostio_container", "chunked") == OSTIO_EHINT);
  CHECK(strstr(ostio_last_error(), "plain, striped or log") != NULL);
  /* Log containers (issue 6): ostio_container=log, ostio_log_writers rank|node. */
  CHECK(ostio__hints_set(&h, "ostio_container", "LOG") == 0 &&
        h.ostio_container == OSTIO__CONTAINER_LOG);
  CHECK(h.ostio_log_writers == 0);
  CHECK(ostio__hints_set(&h, "ostio_log_writers", "node") == 0 && h.ostio_log_writers == 1);
  CHECK(ostio__hints_set(&h, "ostio_log_writers", "host") == OSTIO_EHINT);
  CHECK(strstr(ostio_last_error(), "rank or node") != NULL);
  CHECK(ostio__hints_set(&h, "ostio_log_writers", "rank") == 0 && h.ostio_log_writers == 0);
  CHECK(ostio__hints_set(&h, "ostio_container", "striped") == 0);
  CHECK(ostio__hints_set(&h, "ostio_objects", "7") == 0 && h.ostio_objects == 7);
  CHECK(ostio__hints_set(&h, "ostio_objects", "2000") == 0 && h.ostio_objects == 2000);
  CHECK(ostio__hints_set(&h, "ostio_objects", "2001") == OSTIO_EHINT);
  CHECK(h.ostio_objects == 2000 && ostio__hints_given(&h, "ostio_objects"));
  CHECK(ostio__hints_set(&h, "ostio_objects", "0") == 0 && h.ostio_objects == 0); /* automatic */

  /* The cache (issue 17): off by default; page 0 = the stripe size; 64 MiB. */
  CHECK(h.ostio_cache == OSTIO__TRI_DISABLE && h.ostio_cache_page == 0 &&
        h.ostio_cache_size == INT64_C(64) << 20 && h.ostio_cache_bypass == 0);
  CHECK(ostio__hints_set(&h, "ostio_cache", "enable") == 0 && h.ostio_cache == OSTIO__TRI_ENABLE);
  CHECK(ostio__hints_set(&h, "ostio_cache", "sometimes") == OSTIO_EHINT);
  CHECK(ostio__hints_set(&h, "ostio_cache_page", "4m") == 0 && h.ostio_cache_page == 4 << 20);
  CHECK(ostio__hints_set(&h, "ostio_cache_page", "0") == 0 && h.ostio_cache_page == 0);
  CHECK(ostio__hints_set(&h, "ostio_cache_size", "0") == OSTIO_EHINT);
  CHECK(strstr(ostio_last_error(), "ostio_cache_size") && strstr(ostio_last_error(), "minimum"));
  CHECK(ostio__hints_set(&h, "ostio_cache_size", "2t") == OSTIO_EHINT);
  CHECK(ostio__hints_set(&h, "ostio_cache_size", "1g") == 0 && h.ostio_cache_size == 1 << 30);
  CHECK(ostio__hints_set(&h, "ostio_cache_bypass", "256k") == 0 &&
        h.ostio_cache_bypass == 256 << 10);
  /* The cache reads them now (src/cache). */
  CHECK(!ostio__hints_no_effect("ostio_cache") && !ostio__hints_no_effect("ostio_cache_page") &&
        !ostio__hints_no_effect("ostio_cache_size") && !ostio__hints_no_effect("ostio_cache_bypass"));
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
  test_unknown_recorded();
  test_format();
  return TEST_DONE();
}
