/* The container manifest: a pure codec over a buffer (no file system), so
 * every damage case is tested without disks. Text, one "key value" per line:
 *
 *   ostio-container 1        magic and format version
 *   kind striped             the kind; decides which keys follow
 *   ...common and per-kind keys, any order...
 *   checksum fnv1a64 HEX     last line: FNV-1a 64 of every byte before it
 *
 * The header (magic, version, kind) and the common keys are parsed here
 * once; the kind's ostio__ctr_kind (in its folder) takes its own keys line
 * by line, checks them at the end and formats them, so this file names no
 * kind. The caller gives the kinds to look the name up in (stores.c: the
 * registry's). See docs/container-format.md. */
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

struct ostio__mparse {
  const char *what;
  int line;
  unsigned seen;            /* bit per common key (0..3), kind key slot (16..31) */
};
typedef ostio__mparse pstate;

static int vbad(const pstate *s, int line, const char *fmt, va_list ap)
{
  char msg[400];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (!line) return ostio__fail(OSTIO_EFORMAT, "%s: %s", s->what, msg);
  return ostio__fail(OSTIO_EFORMAT, "%s line %d: %s", s->what, s->line, msg);
}

int ostio__mparse_bad(const pstate *s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = vbad(s, 1, fmt, ap);
  va_end(ap);
  return rc;
}
#define bad ostio__mparse_bad

int ostio__mparse_missing(const pstate *s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = vbad(s, 0, fmt, ap);
  va_end(ap);
  return rc;
}

/* Strict decimal in [lo, hi]. */
int ostio__mparse_num(const char *v, int64_t lo, int64_t hi, int64_t *out)
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
#define num ostio__mparse_num

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

enum { K_BYTE_ORDER, K_CREATED, K_CREATED_BY, K_REQUESTED, NCOMMON };
static const char *const key_names[] = {"byte_order", "created", "created_by", "requested"};
#define KIND_SLOT0 16 /* the kind's slots follow the common keys' bits */

static int once(pstate *s, int bit, const char *key)
{
  if (s->seen & (1u << bit)) return bad(s, "key \"%s\" given twice", key);
  s->seen |= 1u << bit;
  return 0;
}

int ostio__mparse_once(pstate *s, int slot, const char *key)
{
  return once(s, KIND_SLOT0 + slot, key);
}

int ostio__mparse_seen(const pstate *s, int slot)
{
  return !!(s->seen & (1u << (KIND_SLOT0 + slot)));
}

static int common_key(pstate *s, ostio__manifest *m, const char *key, const char *v)
{
  for (int k = 0; k < NCOMMON; k++) {
    if (strcmp(key, key_names[k])) continue;
    int rc = once(s, k, key_names[k]);
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

/* Line 1: magic and version. */
static int header_version(pstate *s, ostio__manifest *m, const char *l1)
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
  m->version = (int)v;
  return 0;
}

/* Line 2: the kind, by name among at(0), at(1), ...; errors list them. */
static int header_kind(pstate *s, ostio__manifest *m, const char *l2, ostio__ctr_kind_at at)
{
  char known[256] = "";
  const ostio__ctr_kind *k;
  for (size_t i = 0; (k = at(i)); i++) {
    if (l2 && !strncmp(l2, "kind ", 5) && !strcmp(l2 + 5, k->name)) {
      m->kind = k;
      return 0;
    }
    size_t n = strlen(known);
    snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "", k->name);
  }
  s->line = 2;
  if (!l2 || strncmp(l2, "kind ", 5))
    return bad(s, "expected \"kind KIND\" as the second line (kinds: %s)", known);
  return bad(s, "unknown kind \"%.40s\"; this ostio knows: %s", l2 + 5, known);
}

static int parse_body(pstate *s, ostio__manifest *m, char *body, ostio__ctr_kind_at at)
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
  if ((rc = header_version(s, m, lines[0])) < 0) return rc;
  if ((rc = header_kind(s, m, lines[1], at)) < 0) return rc;
  const ostio__ctr_kind *kind = m->kind;
  for (s->line = 3; *p; s->line++, p = nl + 1) {
    nl = strchr(p, '\n');
    *nl = '\0';
    char *sp = strchr(p, ' ');
    if (!sp || sp == p || !sp[1])
      return bad(s, "\"%.60s\": expected \"KEY VALUE\"", p);
    *sp = '\0';
    if ((rc = common_key(s, m, p, sp + 1)) < 0) return rc;
    if (rc == 0) continue;
    if ((rc = kind->key(s, m, p, sp + 1)) < 0) return rc;
    if (rc == 1)
      return bad(s, "unknown key \"%.40s\"; a %s manifest of version 1 has byte_order, "
                 "created, created_by, requested and %s", p, kind->name, kind->keys);
  }
  for (int k = 0; k < NCOMMON; k++)
    if (!(s->seen & (1u << k)))
      return ostio__fail(OSTIO_EFORMAT, "%s: key \"%s\" is missing; every manifest has "
                         "byte_order, created, created_by and requested", s->what,
                         key_names[k]);
  return kind->finish(s, m);
}

int ostio__manifest_parse_with(const char *buf, size_t len, const char *what,
                               ostio__ctr_kind_at at, ostio__manifest *m)
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
      pstate s0 = {.what = what};
      memset(&tmp, 0, sizeof tmp);
      char *nl = strchr(copy, '\n');
      if (nl) *nl = '\0';
      char keep[512];
      snprintf(keep, sizeof keep, "%s", ostio_last_error());
      int hr = header_version(&s0, &tmp, copy);
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
  pstate s = {.what = what};
  rc = parse_body(&s, m, text, at);
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

int ostio__manifest_format(const ostio__manifest *m, char **text, size_t *len)
{
  *text = NULL;
  *len = 0;
  if (!m->kind) return ostio__fail(OSTIO_EINVAL, "manifest: no kind");
  if (!printable(m->created) || !printable(m->created_by) || !printable(m->requested) ||
      !m->created[0] || !m->created_by[0] || !m->requested[0])
    return ostio__fail(OSTIO_EINVAL, "manifest: created, created_by and requested must be "
                       "non-empty printable ASCII");
  ostio__sbuf b = {0};
  ostio__sbuf_put(&b, "%s %d\nkind %s\nbyte_order little\ncreated %s\ncreated_by %s\n"
                  "requested %s\n", OSTIO__CTR_MAGIC, OSTIO__CTR_VERSION, m->kind->name,
                  m->created, m->created_by, m->requested);
  int rc = m->kind->format(m, &b);
  if (rc == 0 && (b.oom || !b.buf))
    rc = ostio__fail(OSTIO_ENOMEM, "out of memory formatting a manifest");
  if (rc == 0) rc = ostio__ctr_seal(b.buf, b.len, text, len);
  free(b.buf);
  return rc;
}
