/* The hint table and everything driven by it: defaults, validation of one
 * key=value, canonical formatting, introspection. See docs/hints.md. */
#include "hints/hints.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "hints/cblist.h"

/* H_NAME: a name looked up above hints (ostio_strategy: the engine's
 * strategy registry, at open); here only its length is checked, and it is
 * kept in lower case as the registry spells names. */
typedef enum { H_SIZE, H_INT, H_TRI, H_BOOL, H_ENUM, H_STRING, H_NAME } hint_type;

typedef int (*hint_check)(const char *key, const char *value);

typedef struct hint_desc {
  const char *key;
  size_t off;                 /* offsetof(ostio__hints, field)              */
  size_t cap;                 /* H_STRING, H_NAME: size of the char array   */
  hint_type type;
  int64_t dflt;               /* numeric default (TRI/BOOL/ENUM: the enum)  */
  int64_t min, max;           /* H_SIZE, H_INT                              */
  int64_t alt;                /* H_INT: one more accepted value ...         */
  const char *alt_note;       /* ... when this describes it, else NULL      */
  const char *const *words;   /* H_TRI, H_BOOL, H_ENUM: names by value      */
  const char *sdflt;          /* H_STRING, H_NAME default                   */
  hint_check check;           /* H_STRING validator                         */
} hint_desc;

static const char *const tri_words[] = {
  [OSTIO__TRI_AUTO] = "automatic", [OSTIO__TRI_ENABLE] = "enable",
  [OSTIO__TRI_DISABLE] = "disable", NULL};
static const char *const bool_words[] = {"false", "true", NULL};
static const char *const layout_src_words[] = {
  [OSTIO__SRC_AUTO] = "auto", [OSTIO__SRC_LUSTRE] = "lustre",
  [OSTIO__SRC_EMULATED] = "emulated", [OSTIO__SRC_HINTS] = "hints", [OSTIO__SRC_CEPH] = "ceph",
  NULL};

static const char *const container_words[] = {
  [OSTIO__CONTAINER_PLAIN] = "plain", [OSTIO__CONTAINER_STRIPED] = "striped",
  [OSTIO__CONTAINER_LOG] = "log", NULL};

static const char *const log_writers_words[] = {"rank", "node", NULL};
static const char *const stage_sync_words[] = {
  [OSTIO__STAGE_SYNC_CLOSE] = "close", [OSTIO__STAGE_SYNC_DRAIN] = "drain", NULL};

static int check_config_list(const char *key, const char *value);
static int check_stage_dir(const char *key, const char *value);

#define STRIPE_UNIT_MAX INT64_C(4294967295) /* Lustre keeps it in a u32 */

/* The hints, in table order; position i is bit i of ostio__hints.given.
 * The key is the field name. One line per hint:
 *   SIZE_(key, default, min, max)        byte count, suffixes k m g t
 *   INT_(key, default, min, max, alt, note)  integer; alt is also accepted
 *                                        when note (its description) is set
 *   TRI_(key, default)   BOOL_(key, default)   ENUM_(key, default, words)
 *   STR_(key, default, validator)        NAME_(key, default)
 * A default outside [min, max] means "not given" / "automatic". */
#define HINT_LIST(SIZE_, INT_, TRI_, BOOL_, ENUM_, STR_, NAME_)                 \
  SIZE_(cb_buffer_size,              16777216, 1, INT64_C(1) << 31)                     \
  INT_(cb_nodes,                     0,  1, INT_MAX, 0, NULL)                    \
  STR_(cb_config_list,               "*:1", check_config_list)                   \
  TRI_(romio_cb_read,                OSTIO__TRI_AUTO)                            \
  TRI_(romio_cb_write,               OSTIO__TRI_AUTO)                            \
  TRI_(romio_ds_read,                OSTIO__TRI_AUTO)                            \
  TRI_(romio_ds_write,               OSTIO__TRI_AUTO)                            \
  SIZE_(ind_rd_buffer_size,          4194304, 1, INT64_MAX)                      \
  SIZE_(ind_wr_buffer_size,          524288, 1, INT64_MAX)                       \
  BOOL_(romio_no_indep_rw,           0)                                          \
  INT_(striping_factor,              0,  1, OSTIO_MAX_STRIPE_COUNT,              \
       -1, "-1 for all OSTs")                                                    \
  SIZE_(striping_unit,               0, 1, STRIPE_UNIT_MAX)                      \
  INT_(start_iodevice,               -1, 0, 65535, 0, NULL)                      \
  BOOL_(direct_read,                 0)                                          \
  BOOL_(direct_write,                0)                                          \
  INT_(romio_lustre_co_ratio,        1,  1, INT_MAX, 0, NULL)                    \
  SIZE_(romio_lustre_coll_threshold, 0, 0, INT64_MAX)                            \
  TRI_(romio_lustre_ds_in_coll,      OSTIO__TRI_ENABLE)                          \
  ENUM_(ostio_layout_source,         OSTIO__SRC_AUTO, layout_src_words)          \
  NAME_(ostio_strategy,              "auto")                                     \
  BOOL_(ostio_pipeline,              1)                                          \
  ENUM_(ostio_container,             OSTIO__CONTAINER_PLAIN, container_words)    \
  INT_(ostio_objects,                0,  1, OSTIO_MAX_STRIPE_COUNT, 0, NULL)     \
  ENUM_(ostio_log_writers,           0, log_writers_words)                       \
  TRI_(ostio_mpiio,                  OSTIO__TRI_AUTO)                            \
  TRI_(ostio_cache,                  OSTIO__TRI_DISABLE)                         \
  SIZE_(ostio_cache_page,            0, 1, INT64_C(1) << 40)                     \
  SIZE_(ostio_cache_size,            INT64_C(64) << 20, 1, INT64_C(1) << 40)     \
  SIZE_(ostio_cache_bypass,          0, 1, INT64_MAX)                            \
  BOOL_(ostio_atomic,                0)                                          \
  STR_(ostio_stage_dir,              "none", check_stage_dir)                    \
  SIZE_(ostio_stage_bandwidth,       0, 1, INT64_MAX)                            \
  ENUM_(ostio_stage_sync,            OSTIO__STAGE_SYNC_CLOSE, stage_sync_words) \
  TRI_(ostio_deferred_open,          OSTIO__TRI_AUTO)

#define OFF_(f) .key = #f, .off = offsetof(ostio__hints, f)
#define D_SIZE_(f, d, lo, hi) {OFF_(f), .type = H_SIZE, .dflt = (d), .min = (lo), .max = (hi)},
#define D_INT_(f, d, lo, hi, a, note)                                            \
  {OFF_(f), .type = H_INT, .dflt = (d), .min = (lo), .max = (hi), .alt = (a),  \
   .alt_note = (note)},
#define D_TRI_(f, d) {OFF_(f), .type = H_TRI, .dflt = (d), .words = tri_words},
#define D_BOOL_(f, d) {OFF_(f), .type = H_BOOL, .dflt = (d), .words = bool_words},
#define D_ENUM_(f, d, w) {OFF_(f), .type = H_ENUM, .dflt = (d), .words = (w)},
#define D_STR_(f, d, fn)                                                         \
  {OFF_(f), .cap = sizeof(((ostio__hints *)0)->f), .type = H_STRING, .sdflt = (d), \
   .check = (fn)},
#define D_NAME_(f, d)                                                            \
  {OFF_(f), .cap = sizeof(((ostio__hints *)0)->f), .type = H_NAME, .sdflt = (d)},

static const hint_desc table[] = {
  HINT_LIST(D_SIZE_, D_INT_, D_TRI_, D_BOOL_, D_ENUM_, D_STR_, D_NAME_)};

/* The same list checks at compile time that each field has the C type its
 * hint type is stored as (int64_t for numbers, int for words, char[]). */
#define FIELD_(f) (((ostio__hints *)0)->f)
#define A_I64_(f)                                                                \
  _Static_assert(_Generic(FIELD_(f), int64_t: 1, default: 0), #f " must be int64_t");
#define A_INT_(f)                                                                \
  _Static_assert(_Generic(FIELD_(f), int: 1, default: 0), #f " must be int");
#define A_SIZE_(f, d, lo, hi) A_I64_(f)
#define A_INTK_(f, d, lo, hi, a, note) A_I64_(f)
#define A_TRI_(f, d) A_INT_(f)
#define A_BOOL_(f, d) A_INT_(f)
#define A_ENUM_(f, d, w) A_INT_(f)
#define A_STR_(f, d, fn)                                                         \
  _Static_assert(_Generic(&FIELD_(f)[0], char *: 1, default: 0), #f " must be char[]");
#define A_NAME_(f, d) A_STR_(f, d, NULL)
HINT_LIST(A_SIZE_, A_INTK_, A_TRI_, A_BOOL_, A_ENUM_, A_STR_, A_NAME_)

#define NHINTS ((int)(sizeof table / sizeof table[0]))
_Static_assert(sizeof table / sizeof table[0] <= 64, "given has 64 bits");

/* Keys that set several hints at once. */
typedef struct hint_alias {
  const char *key;
  const char *targets[2];
} hint_alias;
static const hint_alias aliases[] = {
  {"direct_io", {"direct_read", "direct_write"}},
  {"ostio_co_ratio", {"romio_lustre_co_ratio", NULL}},
};
#define NALIASES ((int)(sizeof aliases / sizeof aliases[0]))

#define OURS "ostio_"
#define QMAX 96 /* value characters quoted in a detail */
#define QV(v) QMAX, (v), (strlen(v) > QMAX ? "..." : "")

/* ---- field access ------------------------------------------------------ */

static void *field(ostio__hints *h, const hint_desc *d) { return (char *)h + d->off; }
static int is_text(const hint_desc *d) { return d->type == H_STRING || d->type == H_NAME; }
static const void *cfield(const ostio__hints *h, const hint_desc *d)
{
  return (const char *)h + d->off;
}

static void store_num(ostio__hints *h, const hint_desc *d, int64_t v)
{
  if (d->type == H_SIZE || d->type == H_INT) {
    memcpy(field(h, d), &v, sizeof v);
  } else {
    int iv = (int)v;
    memcpy(field(h, d), &iv, sizeof iv);
  }
}

static int64_t load_num(const ostio__hints *h, const hint_desc *d)
{
  if (d->type == H_SIZE || d->type == H_INT) {
    int64_t v;
    memcpy(&v, cfield(h, d), sizeof v);
    return v;
  }
  int iv;
  memcpy(&iv, cfield(h, d), sizeof iv);
  return iv;
}

/* ---- validation ---------------------------------------------------------- */

/* "a, b or c" from a NULL-terminated word list. */
static void word_list(const char *const *words, char *buf, size_t cap)
{
  size_t n = 0, len = 0;
  while (words[n]) n++;
  buf[0] = '\0';
  for (size_t i = 0; i < n && len < cap; i++) {
    const char *sep = i == 0 ? "" : (i + 1 == n ? " or " : ", ");
    int w = snprintf(buf + len, cap - len, "%s%s", sep, words[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
}

static int parse_words(const hint_desc *d, const char *key, const char *value, int64_t *out)
{
  for (int64_t i = 0; d->words[i]; i++) {
    if (strcasecmp(value, d->words[i]) == 0) {
      *out = i;
      return 0;
    }
  }
  if (d->type == H_BOOL) {
    if (strcasecmp(value, "enable") == 0 || strcmp(value, "1") == 0) {
      *out = 1;
      return 0;
    }
    if (strcasecmp(value, "disable") == 0 || strcmp(value, "0") == 0) {
      *out = 0;
      return 0;
    }
    return ostio__fail(OSTIO_EHINT,
                       "hint %s=\"%.*s%s\": expected true or false (also enable or "
                       "disable, 1 or 0)", key, QV(value));
  }
  if (d->type == H_TRI)
    return ostio__fail(OSTIO_EHINT,
                       "hint %s=\"%.*s%s\": expected enable, disable or automatic", key,
                       QV(value));
  char list[128];
  word_list(d->words, list, sizeof list);
  return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": expected %s%s", key, QV(value),
                     d->type == H_ENUM ? "one of " : "", list);
}

/* The "not given" default (outside [min, max]) is accepted back, so the
 * info from ostio_hints_effective can be passed to an open again. */
static int is_not_given(const hint_desc *d, int64_t v)
{
  return v == d->dflt && (d->dflt < d->min || d->dflt > d->max);
}

static int parse_size_hint(const hint_desc *d, const char *key, const char *value,
                           int64_t *out)
{
  int64_t v = 0;
  int rc = ostio__parse_size(value, &v);
  if (rc == 0 && is_not_given(d, v)) {
    *out = v;
    return 0;
  }
  if (rc == OSTIO_ERANGE || (rc == 0 && v > d->max))
    return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": too large; the maximum is %" PRId64,
                       key, QV(value), d->max);
  if (rc == 0 && v < d->min)
    return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": too small; the minimum is %" PRId64,
                       key, QV(value), d->min);
  if (rc != 0) {
    char range[64];
    if (d->max == INT64_MAX)
      snprintf(range, sizeof range, "at least %" PRId64, d->min);
    else
      snprintf(range, sizeof range, "from %" PRId64 " to %" PRId64, d->min, d->max);
    return ostio__fail(OSTIO_EHINT,
                       "hint %s=\"%.*s%s\": expected a byte count such as 16777216, 16m "
                       "or 4k (suffixes k, m, g, t; %s)", key, QV(value), range);
  }
  *out = v;
  return 0;
}

static int parse_int_hint(const hint_desc *d, const char *key, const char *value,
                          int64_t *out)
{
  int64_t v = 0;
  int rc = ostio__parse_int(value, &v);
  if (rc == 0 && ((d->alt_note && v == d->alt) || is_not_given(d, v))) {
    *out = v;
    return 0;
  }
  const char *sep = d->alt_note ? " (or " : "";
  const char *note = d->alt_note ? d->alt_note : "";
  const char *end = d->alt_note ? ")" : "";
  if (rc == OSTIO_ERANGE ? value[0] != '-' : (rc == 0 && v > d->max))
    return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": too large; the maximum is %" PRId64
                       "%s%s%s", key, QV(value), d->max, sep, note, end);
  if (rc == OSTIO_ERANGE || (rc == 0 && v < d->min))
    return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": too small; the minimum is %" PRId64
                       "%s%s%s", key, QV(value), d->min, sep, note, end);
  if (rc != 0)
    return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": expected an integer from %" PRId64
                       " to %" PRId64 "%s%s%s", key, QV(value), d->min, d->max,
                       d->alt_note ? ", or " : "", note, "");
  *out = v;
  return 0;
}

/* Validates value for d (messages name key) and yields the number to store.
 * H_STRING and H_NAME are only checked. */
static int parse_value(const hint_desc *d, const char *key, const char *value, int64_t *out)
{
  switch (d->type) {
  case H_SIZE: return parse_size_hint(d, key, value, out);
  case H_INT: return parse_int_hint(d, key, value, out);
  case H_TRI:
  case H_BOOL:
  case H_ENUM: return parse_words(d, key, value, out);
  case H_STRING:
  case H_NAME:
    if (strlen(value) >= d->cap)
      return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": too long; at most %zu characters",
                         key, QV(value), d->cap - 1);
    return d->check ? d->check(key, value) : 0;
  }
  return ostio__fail(OSTIO_EINVAL, "hint %s: internal table error", key);
}

/* ostio_stage_dir: "none" (or "", stored as "none": Open MPI's
 * MPI_Info_set refuses empty values, so the effective hints never hold one)
 * or an absolute path without line breaks (it is written into the
 * container's stage records). */
static int check_stage_dir(const char *key, const char *value)
{
  if (!value[0] || !strcmp(value, "none")) return 0;
  if (value[0] != '/' || strpbrk(value, "\n\r"))
    return ostio__fail(OSTIO_EHINT, "hint %s=\"%.*s%s\": an absolute path of a node-local "
                       "directory (e.g. /local/scratch) is accepted, or none for no staging",
                       key, QV(value));
  return 0;
}

/* cb_config_list: the grammar of hints/cblist.h, which the planner
 * (plan/aggr.c) parses with too. As a hint the list cannot be empty (the
 * planner takes "" as "no cap per node"; the hint says that with *:*). The
 * grammar's detail starts with cb_config_list="...". */
static int check_config_list(const char *key, const char *value)
{
  int nent = 0;
  int rc = ostio__cblist_parse(value, NULL, &nent);
  if (rc != 0) {
    char why[512]; /* "cb_config_list=\"...\": what in entry N; expected ..." */
    snprintf(why, sizeof why, "%s", ostio_last_error());
    return ostio__fail(rc, "hint %s", why);
  }
  return 0;
}

/* ---- public (internal) API ------------------------------------------------ */

void ostio__hints_init(ostio__hints *h)
{
  if (!h) return;
  memset(h, 0, sizeof *h);
  for (int i = 0; i < NHINTS; i++) {
    const hint_desc *d = &table[i];
    if (is_text(d))
      snprintf((char *)field(h, d), d->cap, "%s", d->sdflt);
    else
      store_num(h, d, d->dflt);
  }
}

int ostio__hints_count(void) { return NHINTS; }

const char *ostio__hints_key(int i) { return i >= 0 && i < NHINTS ? table[i].key : NULL; }

int ostio__hints_index(const char *key)
{
  if (!key) return -1;
  for (int i = 0; i < NHINTS; i++)
    if (strcmp(key, table[i].key) == 0) return i;
  return -1;
}

int ostio__hints_known(const char *key)
{
  if (ostio__hints_index(key) >= 0) return 1;
  for (int a = 0; key && a < NALIASES; a++)
    if (!strcmp(key, aliases[a].key)) return 1;
  return 0;
}

/* ---- unknown keys: the nearest known name --------------------------------- */

/* ROMIO hints that ostio does not use: known, so neither reported nor an
 * error, and offered as suggestions. Families of other file systems' drivers
 * are known by prefix. */
static const char *const romio_ignored[] = {
  "romio_cb_fr_types", "romio_cb_fr_alignment", "romio_cb_alltoall", "romio_cb_pfr",
  "romio_cb_ds_threshold", "romio_min_fdomain_size", "romio_filesystem_type",
  "romio_visibility_immediate", "romio_synchronized_flush", NULL};
static const char *const foreign_prefixes[] = {
  "romio_gpfs_", "romio_pvfs2_", "romio_bg_", "romio_panfs_", "romio_daos_", "romio_ime_",
  "romio_quobytefs_", "romio_nfs_", "romio_xfs_", NULL};
/* Prefixes of keys that can only be meant for ostio (or ROMIO). */
static const char *const our_prefixes[] = {"romio_", "cb_", "striping_", NULL};

static int has_prefix(const char *key, const char *const *list)
{
  for (int i = 0; list[i]; i++)
    if (strncmp(key, list[i], strlen(list[i])) == 0) return 1;
  return 0;
}

static int is_romio_ignored(const char *key)
{
  for (int i = 0; romio_ignored[i]; i++)
    if (strcmp(key, romio_ignored[i]) == 0) return 1;
  return has_prefix(key, foreign_prefixes);
}

static void consider(const char *key, const char *cand, int *best, const char **name)
{
  int dist = ostio__hints_edit_distance(key, cand);
  if (dist < *best) {
    *best = dist;
    *name = cand;
  }
}

/* Nearest candidate and its distance (INT_MAX when key is empty). */
static int nearest(const char *key, const char **name)
{
  int best = INT_MAX;
  *name = NULL;
  if (!key || !*key) return best;
  for (int i = 0; i < NHINTS; i++) consider(key, table[i].key, &best, name);
  for (int i = 0; i < NALIASES; i++) consider(key, aliases[i].key, &best, name);
  for (int i = 0; romio_ignored[i]; i++) consider(key, romio_ignored[i], &best, name);
  return best;
}

static int close_enough(const char *key, int dist)
{
  return dist <= 3 && (size_t)dist * 3 <= strlen(key);
}

int ostio__hints_suggest(const char *key, char *buf, size_t cap)
{
  const char *name = NULL;
  int dist = nearest(key, &name);
  int ok = name && close_enough(key, dist) && strcmp(key, name) != 0;
  if (buf && cap) snprintf(buf, cap, "%s", ok ? name : "");
  return ok;
}

/* Records an unknown key in h when it looks meant for ostio: one of our
 * prefixes, or within distance 2 of a known key (and at least 6 long);
 * never the ROMIO hints ostio ignores. Each key once. */
static void record_unknown(ostio__hints *h, const char *key)
{
  if (!*key || is_romio_ignored(key)) return;
  const char *name = NULL;
  int dist = nearest(key, &name);
  int near = name && dist <= 2 && strlen(key) >= 6;
  if (!near && !has_prefix(key, our_prefixes)) return;
  for (int i = 0; i < h->nunknown && i < OSTIO__HINTS_NUNKNOWN; i++)
    if (strncmp(h->unknown[i].key, key, sizeof h->unknown[i].key - 1) == 0) return;
  if (h->nunknown >= OSTIO__HINTS_NUNKNOWN) {
    h->unknown_more++;
    return;
  }
  ostio__hint_unknown *u = &h->unknown[h->nunknown++];
  snprintf(u->key, sizeof u->key, "%s", key);
  ostio__hints_suggest(key, u->suggestion, sizeof u->suggestion);
}

static int unknown_ours(const char *key)
{
  char name[32], near[64] = "";
  if (ostio__hints_suggest(key, name, sizeof name))
    snprintf(near, sizeof near, " did you mean %s?", name);

  char known[256];
  size_t len = 0;
  known[0] = '\0';
  for (int i = 0; i < NHINTS; i++) {
    if (strncmp(table[i].key, OURS, strlen(OURS)) != 0) continue;
    int w = snprintf(known + len, sizeof known - len, "%s%s", len ? ", " : "", table[i].key);
    if (w < 0 || (size_t)w >= sizeof known - len) break;
    len += (size_t)w;
  }
  return ostio__fail(OSTIO_EHINT, "unknown hint \"%.*s%s\":%s keys starting with \"" OURS
                     "\" are reserved; the known ones are %s", QV(key), near, known);
}

static int set_alias(ostio__hints *h, const hint_alias *a, const char *value)
{
  int64_t v = 0;
  const hint_desc *first = &table[ostio__hints_index(a->targets[0])];
  int rc = parse_value(first, a->key, value, &v);
  if (rc != 0) return rc;
  for (size_t t = 0; t < sizeof a->targets / sizeof a->targets[0] && a->targets[t]; t++) {
    int i = ostio__hints_index(a->targets[t]);
    store_num(h, &table[i], v);
    h->given |= UINT64_C(1) << i;
  }
  return 0;
}

int ostio__hints_set(ostio__hints *h, const char *key, const char *value)
{
  if (!h || !key || !value)
    return ostio__fail(OSTIO_EINVAL, "hints: null %s", !h ? "hints" : !key ? "key" : "value");
  int i = ostio__hints_index(key);
  if (i < 0) {
    for (int a = 0; a < NALIASES; a++)
      if (strcmp(key, aliases[a].key) == 0) return set_alias(h, &aliases[a], value);
    if (strncmp(key, OURS, strlen(OURS)) == 0) return unknown_ours(key);
    /* Someone else's hint (ROMIO, a file system...): ignored, as ROMIO
     * does; a probable typo of ours is recorded for the reports. */
    record_unknown(h, key);
    return 1;
  }
  const hint_desc *d = &table[i];
  int64_t v = 0;
  int rc = parse_value(d, key, value, &v);
  if (rc != 0) return rc;
  if (is_text(d)) /* a string hint's "" is its default: never an empty value */
    snprintf((char *)field(h, d), d->cap, "%s",
             value[0] || d->type != H_STRING ? value : d->sdflt);
  else
    store_num(h, d, v);
  for (char *c = field(h, d); d->type == H_NAME && *c; c++) /* the registry's spelling */
    *c = (char)tolower((unsigned char)*c);
  h->given |= UINT64_C(1) << i;
  return 0;
}

int ostio__hints_format(const ostio__hints *h, int i, char *buf, size_t cap)
{
  if (!h || !buf || cap == 0 || i < 0 || i >= NHINTS)
    return ostio__fail(OSTIO_EINVAL, "hints: no hint number %d (there are %d)", i, NHINTS);
  const hint_desc *d = &table[i];
  int w;
  if (is_text(d)) {
    w = snprintf(buf, cap, "%s", (const char *)cfield(h, d));
  } else if (d->type == H_SIZE || d->type == H_INT) {
    w = snprintf(buf, cap, "%" PRId64, load_num(h, d));
  } else {
    int64_t v = load_num(h, d), n = 0;
    while (d->words[n]) n++;
    w = snprintf(buf, cap, "%s", v >= 0 && v < n ? d->words[v] : "invalid");
  }
  if (w < 0 || (size_t)w >= cap)
    return ostio__fail(OSTIO_ERANGE, "hints: %zu bytes are too few for the value of %s",
                       cap, d->key);
  return 0;
}

/* Hints ostio accepts (validated, shown, broadcast) but never reads, and
 * why. Keep in step with docs/hints.md ("Accepted, no effect"). */
static const struct {
  const char *key, *why;
} no_effect[] = {
    {"ind_wr_buffer_size", "independent writes are never sieved; each write_at is one pwrite (or goes "
                           "through ostio_cache)"},
    {"romio_no_indep_rw", "independent calls are always allowed; opens are deferred by "
                          "ostio_deferred_open (default automatic) whatever this says"},
    {"romio_lustre_ds_in_coll", "the collective path never sieves reads inside a round"},
};

const char *ostio__hints_no_effect(const char *key)
{
  for (size_t i = 0; key && i < sizeof no_effect / sizeof no_effect[0]; i++)
    if (!strcmp(key, no_effect[i].key)) return no_effect[i].why;
  return NULL;
}

int ostio__hints_given(const ostio__hints *h, const char *key)
{
  if (!h || !key) return 0;
  int i = ostio__hints_index(key);
  if (i >= 0) return (h->given >> i) & 1u;
  for (int a = 0; a < NALIASES; a++) {
    if (strcmp(key, aliases[a].key) != 0) continue;
    int all = 1;
    for (size_t t = 0;
         t < sizeof aliases[a].targets / sizeof aliases[a].targets[0] && aliases[a].targets[t]; t++)
      all = all && ostio__hints_given(h, aliases[a].targets[t]);
    return all;
  }
  return 0;
}
