/* The container manifest: a pure codec over a buffer (no file system), so
 * every damage case is tested without disks. Text, one "key value" per line:
 *
 *   ostio-container 1        magic and format version
 *   kind striped             the kind; decides which keys follow
 *   ...common and per-kind keys, any order...
 *   checksum fnv1a64 HEX     last line: FNV-1a 64 of every byte before it
 *
 * The header (magic, version, kind) and the common keys are parsed here
 * once; a kind contributes a key handler and a final check (the striped
 * kind below; issue 6 adds log). See docs/container-format.md. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container.h"
#include "core/error.h"
#include "core/strbuf.h"

#define SEAL_PREFIX "checksum fnv1a64 "
#define SEAL_LEN (sizeof SEAL_PREFIX - 1 + 16 + 1)  /* prefix, 16 hex digits, '\n' */

uint64_t ostio__fnv1a64(const void *data, size_t len)
{
  const unsigned char *p = data;
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

const char *ostio__ctr_kind_name(int kind)
{
  return kind == OSTIO__CTR_KIND_STRIPED ? "striped" : kind == OSTIO__CTR_KIND_LOG ? "log" : "?";
}

int ostio__ctr_name_ok(const char *name)
{
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || n > OSTIO__CTR_NAME_MAX || name[0] == '.') return 0;
  if (!strncmp(name, "ostio.", 6)) return 0; /* reserved for the container's own files */
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '.' || c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

int ostio__ctr_seal(const char *body, size_t len, char **text, size_t *outlen)
{
  char *t = malloc(len + SEAL_LEN + 1);
  if (!t) return ostio__fail(OSTIO_ENOMEM, "out of memory sealing a container record");
  memcpy(t, body, len);
  snprintf(t + len, SEAL_LEN + 1, SEAL_PREFIX "%016" PRIx64 "\n", ostio__fnv1a64(body, len));
  *text = t;
  *outlen = len + SEAL_LEN;
  return 0;
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int ostio__ctr_verify_seal(const char *buf, size_t len, const char *what, size_t *body_len)
{
  if (len < SEAL_LEN || buf[len - 1] != '\n')
    return ostio__fail(OSTIO_EFORMAT, "%s: truncated: the last line must be \"checksum "
                       "fnv1a64 HEX\" (16 lowercase hex digits) ending in a newline", what);
  const char *line = buf + len - SEAL_LEN;
  if ((line > buf && line[-1] != '\n') || memcmp(line, SEAL_PREFIX, sizeof SEAL_PREFIX - 1))
    return ostio__fail(OSTIO_EFORMAT, "%s: the last line must be \"checksum fnv1a64 HEX\" "
                       "(16 lowercase hex digits); the file is truncated or was edited", what);
  uint64_t want = 0;
  for (size_t i = 0; i < 16; i++) {
    int v = hexval(line[sizeof SEAL_PREFIX - 1 + i]);
    if (v < 0)
      return ostio__fail(OSTIO_EFORMAT, "%s: checksum line: expected 16 lowercase hex "
                         "digits", what);
    want = want << 4 | (uint64_t)v;
  }
  size_t body = (size_t)(line - buf);
  uint64_t got = ostio__fnv1a64(buf, body);
  if (got != want)
    return ostio__fail(OSTIO_EFORMAT, "%s: checksum mismatch (recorded %016" PRIx64 ", "
                       "computed %016" PRIx64 "): the file was damaged or edited by hand",
                       what, want, got);
  *body_len = body;
  return 0;
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct pstate {
  const char *what;
  int line;
  ostio__manifest *m;
  unsigned seen;            /* bit per key */
  unsigned char *have;      /* striped: object index seen */
} pstate;

static int bad(const pstate *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const pstate *s, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ostio__fail(OSTIO_EFORMAT, "%s line %d: %s", s->what, s->line, msg);
}

/* Strict decimal in [lo, hi]. */
static int num(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
  if (!*v || strlen(v) > 19) return -1;
  int64_t x = 0;
  for (const char *p = v; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    if (x > (INT64_MAX - (*p - '0')) / 10) return -1; /* 19 digits can exceed int64 */
    x = x * 10 + (*p - '0');
  }
  if (v[0] == '0' && v[1]) return -1; /* no leading zeros: one spelling per value */
  if (x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

static int text_value(const pstate *s, const char *key, const char *v, char *dst, size_t cap)
{
  size_t n = strlen(v);
  if (n >= cap) {
    char lim[32];
    snprintf(lim, sizeof lim, "%zu", cap - 1);
    return bad(s, "%s: longer than %s characters", key, lim);
  }
  memcpy(dst, v, n + 1);
  return 0;
}

enum { K_BYTE_ORDER, K_CREATED, K_CREATED_BY, K_REQUESTED, K_STRIPE_SIZE, K_OBJECTS,
       K_HOSTDIRS, K_WRITERS };
static const char *const key_names[] = {"byte_order", "created", "created_by", "requested",
                                        "stripe_size", "objects", "hostdirs", "writers"};
#define NCOMMON 4

static int once(pstate *s, int k)
{
  if (s->seen & (1u << k)) return bad(s, "key \"%s\" given twice", key_names[k]);
  s->seen |= 1u << k;
  return 0;
}

/* The striped kind's keys: stripe_size, objects, object I NAME. */
static int striped_key(pstate *s, const char *key, char *v)
{
  ostio__manifest *m = s->m;
  int64_t x;
  if (!strcmp(key, "stripe_size")) {
    int rc = once(s, K_STRIPE_SIZE);
    if (rc < 0) return rc;
    if (num(v, 1, OSTIO__CTR_STRIPE_MAX, &x) < 0 || x % OSTIO__CTR_STRIPE_UNIT)
      return bad(s, "stripe_size \"%.40s\": expected a multiple of 65536 (64 KiB) from 65536 "
                 "to 4294901760", v);
    m->stripe_size = x;
    return 0;
  }
  if (!strcmp(key, "objects")) {
    int rc = once(s, K_OBJECTS);
    if (rc < 0) return rc;
    if (num(v, 1, OSTIO__CTR_MAX_OBJECTS, &x) < 0)
      return bad(s, "objects \"%.40s\": expected an object count from 1 to %s", v, "2000");
    m->nobjects = (int32_t)x;
    m->names = calloc((size_t)x, sizeof *m->names);
    s->have = calloc((size_t)x, 1);
    if (!m->names || !s->have) return ostio__fail(OSTIO_ENOMEM, "out of memory");
    return 0;
  }
  if (!strcmp(key, "object")) {
    if (!(s->seen & (1u << K_OBJECTS)))
      return bad(s, "\"object\" before \"objects\": the object count must come first");
    char *name = strchr(v, ' ');
    if (!name) return bad(s, "\"object %.40s\": expected \"object INDEX NAME\"", v);
    *name++ = '\0';
    char lim[16];
    snprintf(lim, sizeof lim, "%d", (int)m->nobjects - 1);
    if (num(v, 0, m->nobjects - 1, &x) < 0)
      return bad(s, "object index \"%.40s\": expected 0 to %s", v, lim);
    if (s->have[x]) return bad(s, "object %s listed twice", v);
    if (!ostio__ctr_name_ok(name))
      return bad(s, "object file name \"%.80s\": expected 1 to 64 of A-Z a-z 0-9 . _ -, not "
                 "starting with '.' or \"ostio.\" (no '/', no \"..\")", name);
    for (int32_t i = 0; i < m->nobjects; i++)
      if (m->names[i] && !strcmp(m->names[i], name))
        return bad(s, "object file name \"%.80s\" is used twice; each object needs its own "
                   "file", name);
    if (!(m->names[x] = strdup(name))) return ostio__fail(OSTIO_ENOMEM, "out of memory");
    s->have[x] = 1;
    return 0;
  }
  return 1; /* not a striped key */
}

static int striped_finish(pstate *s)
{
  for (int k = K_STRIPE_SIZE; k <= K_OBJECTS; k++)
    if (!(s->seen & (1u << k)))
      return ostio__fail(OSTIO_EFORMAT, "%s: key \"%s\" is missing; a striped manifest needs "
                         "stripe_size, objects and one object line per object", s->what,
                         key_names[k]);
  for (int32_t i = 0; i < s->m->nobjects; i++)
    if (!s->have[i])
      return ostio__fail(OSTIO_EFORMAT, "%s: no \"object %d NAME\" line; every object from 0 "
                         "to %d needs one", s->what, (int)i, (int)s->m->nobjects - 1);
  return 0;
}

/* The log kind's keys (issue 6): hostdirs N, writers rank|node. */
static int log_key(pstate *s, const char *key, char *v)
{
  int64_t x;
  if (!strcmp(key, "hostdirs")) {
    int rc = once(s, K_HOSTDIRS);
    if (rc < 0) return rc;
    if (num(v, 1, OSTIO__LOG_HOSTDIRS_MAX, &x) < 0)
      return bad(s, "hostdirs \"%.40s\": expected a count of subdirectories from 1 to %s", v,
                 "1000");
    s->m->hostdirs = (int32_t)x;
    return 0;
  }
  if (!strcmp(key, "writers")) {
    int rc = once(s, K_WRITERS);
    if (rc < 0) return rc;
    if (strcmp(v, "rank") && strcmp(v, "node"))
      return bad(s, "writers \"%.40s\": expected \"rank\" (one data log per rank) or "
                 "\"node\" (one per node)", v);
    s->m->writers = strcmp(v, "rank") ? OSTIO__LOG_WRITERS_NODE : OSTIO__LOG_WRITERS_RANK;
    return 0;
  }
  return 1;
}

static int log_finish(pstate *s)
{
  for (int k = K_HOSTDIRS; k <= K_WRITERS; k++)
    if (!(s->seen & (1u << k)))
      return ostio__fail(OSTIO_EFORMAT, "%s: key \"%s\" is missing; a log manifest needs "
                         "hostdirs and writers", s->what, key_names[k]);
  return 0;
}

/* Kinds: name, key handler (1 = not mine), final check. */
static const struct kind_ops {
  const char *name;
  int (*key)(pstate *s, const char *key, char *value);
  int (*finish)(pstate *s);
} kinds[] = {
  [OSTIO__CTR_KIND_STRIPED] = {"striped", striped_key, striped_finish},
  [OSTIO__CTR_KIND_LOG] = {"log", log_key, log_finish},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

static int common_key(pstate *s, const char *key, const char *v)
{
  ostio__manifest *m = s->m;
  for (int k = 0; k < NCOMMON; k++) {
    if (strcmp(key, key_names[k])) continue;
    int rc = once(s, k);
    if (rc < 0) return rc;
    if (k == K_BYTE_ORDER) {
      if (strcmp(v, "little"))
        return bad(s, "byte_order \"%.40s\": this version writes and reads only \"little\"", v);
      snprintf(m->byte_order, sizeof m->byte_order, "little");
      return 0;
    }
    if (k == K_CREATED) return text_value(s, key, v, m->created, sizeof m->created);
    if (k == K_CREATED_BY) return text_value(s, key, v, m->created_by, sizeof m->created_by);
    return text_value(s, key, v, m->requested, sizeof m->requested);
  }
  return 1;
}

/* Line 1 (magic, version) and line 2 (kind). */
static int header(pstate *s, char *l1, char *l2)
{
  const size_t ml = sizeof OSTIO__CTR_MAGIC - 1;
  s->line = 1;
  if (strncmp(l1, OSTIO__CTR_MAGIC " ", ml + 1))
    return bad(s, "expected \"%s\" (the container manifest's magic and format version), "
               "found \"%.60s\"", OSTIO__CTR_MAGIC " 1", l1);
  int64_t v;
  if (num(l1 + ml + 1, 1, 1000000, &v) < 0)
    return bad(s, "format version \"%.20s\": expected a positive integer (this ostio reads "
               "version %s)", l1 + ml + 1, "1");
  if (v > OSTIO__CTR_VERSION)
    return ostio__fail(OSTIO_EFORMAT, "%s: container format version %lld is newer than "
                       "this ostio %s reads (version %d); upgrade ostio to open it", s->what,
                       (long long)v, ostio_version_string(), OSTIO__CTR_VERSION);
  s->m->version = (int)v;
  s->line = 2;
  if (!l2 || strncmp(l2, "kind ", 5))
    return bad(s, "expected \"kind KIND\" as the second line (kinds: %s)", "striped, log");
  for (int k = 1; k < NKINDS; k++)
    if (kinds[k].name && !strcmp(l2 + 5, kinds[k].name)) {
      s->m->kind = k;
      return 0;
    }
  return bad(s, "unknown kind \"%.40s\"; this ostio knows: %s", l2 + 5, "striped, log");
}

static int parse_body(pstate *s, char *body)
{
  char *lines[2] = {NULL, NULL};
  char *p = body, *nl;
  int rc = 0;
  for (int i = 0; i < 2 && *p; i++) {
    nl = strchr(p, '\n');
    *nl = '\0';
    lines[i] = p;
    p = nl + 1;
  }
  if ((rc = header(s, lines[0], lines[1])) < 0) return rc;
  const struct kind_ops *kind = &kinds[s->m->kind];
  for (s->line = 3; *p; s->line++, p = nl + 1) {
    nl = strchr(p, '\n');
    *nl = '\0';
    char *sp = strchr(p, ' ');
    if (!sp || sp == p || !sp[1])
      return bad(s, "\"%.60s\": expected \"KEY VALUE\"", p);
    *sp = '\0';
    if ((rc = common_key(s, p, sp + 1)) < 0) return rc;
    if (rc == 0) continue;
    if ((rc = kind->key(s, p, sp + 1)) < 0) return rc;
    if (rc == 1)
      return bad(s, "unknown key \"%.40s\"; a %s manifest of version 1 has byte_order, "
                 "created, created_by, requested and %s", p, kind->name,
                 s->m->kind == OSTIO__CTR_KIND_LOG ? "hostdirs, writers"
                                                   : "stripe_size, objects and object lines");
  }
  for (int k = 0; k < NCOMMON; k++)
    if (!(s->seen & (1u << k)))
      return ostio__fail(OSTIO_EFORMAT, "%s: key \"%s\" is missing; every manifest has "
                         "byte_order, created, created_by and requested", s->what,
                         key_names[k]);
  return kind->finish(s);
}

int ostio__manifest_parse(const char *buf, size_t len, const char *what, ostio__manifest *m)
{
  memset(m, 0, sizeof *m);
  if (!what) what = OSTIO__CTR_MANIFEST;
  if (!buf) return ostio__fail(OSTIO_EINVAL, "%s: NULL manifest buffer", what);
  if (len > OSTIO__CTR_MANIFEST_MAX)
    return ostio__fail(OSTIO_EFORMAT, "%s: %zu bytes; a manifest has at most %d (1 MiB)",
                       what, len, OSTIO__CTR_MANIFEST_MAX);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)buf[i];
    if (c != '\n' && (c < 0x20 || c > 0x7e))
      return ostio__fail(OSTIO_EFORMAT, "%s: byte %zu is 0x%02x; a manifest is printable "
                         "ASCII text", what, i, c);
  }
  /* The magic first, so a foreign file says so rather than "bad checksum". */
  const size_t ml = sizeof OSTIO__CTR_MAGIC - 1;
  if (len < ml + 1 || memcmp(buf, OSTIO__CTR_MAGIC " ", ml + 1))
    return ostio__fail(OSTIO_EFORMAT, "%s line 1: not a container manifest: expected it to "
                       "start with \"" OSTIO__CTR_MAGIC " 1\"", what);
  size_t body = 0;
  int rc = ostio__ctr_verify_seal(buf, len, what, &body);
  if (rc < 0) {
    /* A newer version may have changed the seal too: say "upgrade" instead. */
    ostio__manifest tmp;
    char *copy = strndup(buf, strcspn(buf, "\n") + 1);
    if (copy) {
      pstate s0 = {.what = what, .m = &tmp};
      memset(&tmp, 0, sizeof tmp);
      char *nl = strchr(copy, '\n');
      if (nl) *nl = '\0';
      char keep[512];
      snprintf(keep, sizeof keep, "%s", ostio_last_error());
      int hr = header(&s0, copy, "kind striped");
      if (hr >= 0) ostio__set_detail(keep);
      else rc = hr;
      free(copy);
    }
    return rc;
  }
  char *text = malloc(body + 1);
  if (!text) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  memcpy(text, buf, body);
  text[body] = '\0';
  pstate s = {.what = what, .m = m};
  rc = parse_body(&s, text);
  free(s.have);
  free(text);
  if (rc < 0) {
    ostio__manifest_free(m);
    memset(m, 0, sizeof *m);
  }
  return rc;
}

void ostio__manifest_free(ostio__manifest *m)
{
  if (!m) return;
  for (int32_t i = 0; m->names && i < m->nobjects; i++) free(m->names[i]);
  free(m->names);
  m->names = NULL;
}

/* ---- formatting ---------------------------------------------------------- */

static int printable(const char *s)
{
  for (; *s; s++)
    if (*s < 0x20 || *s > 0x7e) return 0;
  return 1;
}

static int format_log(const ostio__manifest *m, char **text, size_t *len)
{
  if (m->hostdirs < 1 || m->hostdirs > OSTIO__LOG_HOSTDIRS_MAX ||
      (m->writers != OSTIO__LOG_WRITERS_RANK && m->writers != OSTIO__LOG_WRITERS_NODE))
    return ostio__fail(OSTIO_EINVAL, "manifest: log container with %d hostdirs (1 to 1000) "
                       "and writers %d (rank or node)", (int)m->hostdirs, m->writers);
  ostio__sbuf b = {0};
  ostio__sbuf_put(&b, "%s %d\nkind log\nbyte_order little\ncreated %s\ncreated_by %s\n"
                  "requested %s\nhostdirs %d\nwriters %s\n", OSTIO__CTR_MAGIC,
                  OSTIO__CTR_VERSION, m->created, m->created_by, m->requested,
                  (int)m->hostdirs, m->writers == OSTIO__LOG_WRITERS_NODE ? "node" : "rank");
  if (b.oom || !b.buf) {
    free(b.buf);
    return ostio__fail(OSTIO_ENOMEM, "out of memory formatting a manifest");
  }
  int rc = ostio__ctr_seal(b.buf, b.len, text, len);
  free(b.buf);
  return rc;
}

int ostio__manifest_format(const ostio__manifest *m, char **text, size_t *len)
{
  *text = NULL;
  *len = 0;
  if (m->kind != OSTIO__CTR_KIND_STRIPED && m->kind != OSTIO__CTR_KIND_LOG)
    return ostio__fail(OSTIO_EINVAL, "manifest: unknown kind %d", m->kind);
  if (!printable(m->created) || !printable(m->created_by) || !printable(m->requested) ||
      !m->created[0] || !m->created_by[0] || !m->requested[0])
    return ostio__fail(OSTIO_EINVAL, "manifest: created, created_by and requested must be "
                       "non-empty printable ASCII");
  if (m->kind == OSTIO__CTR_KIND_LOG) return format_log(m, text, len);
  if (m->nobjects < 1 || m->nobjects > OSTIO__CTR_MAX_OBJECTS || !m->names)
    return ostio__fail(OSTIO_EINVAL, "manifest: %d objects; expected 1 to %d",
                       (int)m->nobjects, OSTIO__CTR_MAX_OBJECTS);
  if (m->stripe_size < OSTIO__CTR_STRIPE_UNIT || m->stripe_size > OSTIO__CTR_STRIPE_MAX ||
      m->stripe_size % OSTIO__CTR_STRIPE_UNIT)
    return ostio__fail(OSTIO_EINVAL, "container stripe size %lld: expected a multiple of "
                       "64 KiB from 64 KiB to 4 GiB - 64 KiB", (long long)m->stripe_size);
  ostio__sbuf b = {0};
  ostio__sbuf_put(&b, "%s %d\nkind %s\nbyte_order little\ncreated %s\ncreated_by %s\n"
                  "requested %s\nstripe_size %lld\nobjects %d\n", OSTIO__CTR_MAGIC,
                  OSTIO__CTR_VERSION, ostio__ctr_kind_name(m->kind), m->created,
                  m->created_by, m->requested, (long long)m->stripe_size, (int)m->nobjects);
  for (int32_t i = 0; i < m->nobjects; i++) {
    if (!ostio__ctr_name_ok(m->names[i])) {
      free(b.buf);
      return ostio__fail(OSTIO_EINVAL, "manifest: bad object file name \"%.80s\"",
                         m->names[i] ? m->names[i] : "(null)");
    }
    ostio__sbuf_put(&b, "object %d %s\n", (int)i, m->names[i]);
  }
  if (b.oom || !b.buf) {
    free(b.buf);
    return ostio__fail(OSTIO_ENOMEM, "out of memory formatting a manifest");
  }
  int rc = ostio__ctr_seal(b.buf, b.len, text, len);
  free(b.buf);
  return rc;
}
