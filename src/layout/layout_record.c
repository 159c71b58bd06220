/* The emulated layout record: a small versioned text, stored in the
 * user.ostio.layout xattr and used as the wire form for broadcasts.
 *
 *   ostio-layout 1
 *   component start=0 end=eof stripe_size=1048576 stripe_count=4 first_ost=0
 *             pattern=raid0 instantiated=1 osts=0-3 [pool=NAME]
 *
 * (one line per component; see docs/layout.md). Text, so `getfattr -d`
 * shows it; byte order does not arise. Version 2 adds object_size=N (Ceph's
 * object sets) after stripe_count; it is written only when a component has
 * an object size, so every layout without one keeps version 1's bytes. */
#include "layout/layout.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"

#define RECORD_MAX (1 << 20)


/* "0-3,8,10-11": runs of consecutive indices collapse to ranges. */
static void put_osts(ostio__sbuf *s, const int32_t *osts, int32_t n)
{
  for (int32_t i = 0; i < n;) {
    int32_t j = i;
    while (j + 1 < n && osts[j + 1] == osts[j] + 1) j++;
    ostio__sbuf_put(s, "%s%" PRId32, i ? "," : "", osts[i]);
    if (j > i) ostio__sbuf_put(s, "-%" PRId32, osts[j]);
    i = j + 1;
  }
}

int ostio__record_encode(const ostio_layout *l, char **text, size_t *len)
{
  ostio__sbuf s = {0};
  *text = NULL;
  int rc = ostio__layout_validate(l);
  if (rc < 0) return rc;
  int version = OSTIO__RECORD_VERSION;
  for (int i = 0; i < l->ncomp; i++)
    if (l->comp[i].object_size > 0) version = OSTIO__RECORD_VERSION_OBJSIZE;
  ostio__sbuf_put(&s, "%s %d\n", OSTIO__RECORD_MAGIC, version);
  for (int i = 0; i < l->ncomp; i++) {
    const ostio__comp *c = &l->comp[i];
    ostio__sbuf_put(&s, "component start=%" PRId64 " end=", c->start);
    if (c->end == OSTIO_EOF) ostio__sbuf_put(&s, "eof");
    else ostio__sbuf_put(&s, "%" PRId64, c->end);
    ostio__sbuf_put(&s, " stripe_size=%" PRId64 " stripe_count=%" PRId32, c->stripe_size,
                    c->stripe_count);
    if (c->object_size > 0) ostio__sbuf_put(&s, " object_size=%" PRId64, c->object_size);
    ostio__sbuf_put(&s, " first_ost=%" PRId32 " pattern=raid0%s instantiated=%d", c->first_ost,
        (c->pattern & OSTIO_PATTERN_OVERSTRIPING) ? ",overstriping" : "",
        c->instantiated ? 1 : 0);
    if (c->osts) {
      ostio__sbuf_put(&s, " osts=");
      put_osts(&s, c->osts, c->stripe_count);
    }
    if (c->pool[0]) ostio__sbuf_put(&s, " pool=%s", c->pool);
    ostio__sbuf_put(&s, "\n");
  }
  if (s.oom) {
    free(s.buf);
    return ostio__fail(OSTIO_ENOMEM, "layout record: out of memory");
  }
  *text = s.buf;
  *len = s.len;
  return 0;
}

/* ---- decoding ------------------------------------------------------------ */

static int parse_i64(const char *v, int64_t *out)
{
  char *end;
  if (!*v || (*v != '-' && (*v < '0' || *v > '9'))) return -1;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || *end) return -1;
  *out = x;
  return 0;
}

int ostio__parse_ost_list(const char *text, int32_t *osts, int32_t max, int32_t *count)
{
  int32_t n = 0;
  const char *p = text;
  if (!*p) return OSTIO_EINVAL;
  while (*p) {
    char *end;
    errno = 0;
    long a = strtol(p, &end, 10), b;
    if (end == p || errno || a < 0 || a > INT32_MAX || *p == '+' || *p == ' ') return OSTIO_EINVAL;
    b = a;
    p = end;
    if (*p == '-') {
      const char *q = p + 1;
      if (*q < '0' || *q > '9') return OSTIO_EINVAL;
      b = strtol(q, &end, 10);
      if (errno || b < a || b > INT32_MAX) return OSTIO_EINVAL;
      p = end;
    }
    for (long k = a; k <= b; k++) {
      if (n >= max) return OSTIO_ERANGE;
      osts[n++] = (int32_t)k;
    }
    if (*p == ',' && p[1]) p++;
    else if (*p) return OSTIO_EINVAL;
  }
  *count = n;
  return 0;
}

static int parse_osts(const char *v, int32_t *osts, int32_t want, int line)
{
  int32_t n = 0;
  int rc = ostio__parse_ost_list(v, osts, want, &n);
  if (rc == OSTIO_ERANGE)
    return ostio__fail(OSTIO_EFORMAT, "layout record line %d: osts lists more than "
                       "stripe_count=%d entries", line, (int)want);
  if (rc < 0)
    return ostio__fail(OSTIO_EFORMAT, "layout record line %d: bad osts list \"%s\" "
                       "(expected e.g. 0-3,8)", line, v);
  if (n != want)
    return ostio__fail(OSTIO_EFORMAT, "layout record line %d: osts lists %d entries, "
                       "stripe_count is %d", line, (int)n, (int)want);
  return 0;
}

int ostio__valid_pool_name(const char *v)
{
  size_t n = strlen(v);
  if (n < 1 || n > OSTIO__POOL_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') ||
          (v[i] >= '0' && v[i] <= '9') || v[i] == '_' || v[i] == '-' || v[i] == '.'))
      return 0;
  return 1;
}

enum { HAVE_START = 1, HAVE_END = 2, HAVE_SIZE = 4, HAVE_COUNT = 8 };

static int parse_component(char *line, int lineno, int version, ostio_layout *l, int32_t *osts)
{
  ostio__comp c = {.first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  const char *osts_text = NULL;
  int have = 0;
  char *save = NULL;
  for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) goto bad_token;
    *eq = '\0';
    const char *k = tok, *v = eq + 1;
    int64_t x = 0;
    if (!strcmp(k, "start")) {
      if (parse_i64(v, &c.start) < 0) goto bad_value;
      have |= HAVE_START;
    } else if (!strcmp(k, "end")) {
      if (!strcmp(v, "eof")) c.end = OSTIO_EOF;
      else if (parse_i64(v, &c.end) < 0) goto bad_value;
      have |= HAVE_END;
    } else if (!strcmp(k, "stripe_size")) {
      if (parse_i64(v, &c.stripe_size) < 0) goto bad_value;
      have |= HAVE_SIZE;
    } else if (!strcmp(k, "stripe_count")) {
      if (parse_i64(v, &x) < 0 || x < 1 || x > OSTIO_MAX_STRIPE_COUNT) goto bad_value;
      c.stripe_count = (int32_t)x;
      have |= HAVE_COUNT;
    } else if (!strcmp(k, "object_size") && version >= OSTIO__RECORD_VERSION_OBJSIZE) {
      if (parse_i64(v, &c.object_size) < 0 || c.object_size < 1) goto bad_value;
    } else if (!strcmp(k, "first_ost")) {
      if (parse_i64(v, &x) < 0 || x < -1 || x > INT32_MAX) goto bad_value;
      c.first_ost = (int32_t)x;
    } else if (!strcmp(k, "pattern")) {
      if (!strcmp(v, "raid0")) c.pattern = OSTIO_PATTERN_RAID0;
      else if (!strcmp(v, "raid0,overstriping"))
        c.pattern = OSTIO_PATTERN_RAID0 | OSTIO_PATTERN_OVERSTRIPING;
      else goto bad_value;
    } else if (!strcmp(k, "instantiated")) {
      if (strcmp(v, "0") && strcmp(v, "1")) goto bad_value;
      c.instantiated = v[0] == '1';
    } else if (!strcmp(k, "osts")) {
      osts_text = v;
    } else if (!strcmp(k, "pool")) {
      if (!ostio__valid_pool_name(v)) goto bad_value;
      memcpy(c.pool, v, strlen(v) + 1);
    } else {
      return ostio__fail(OSTIO_EFORMAT, "layout record line %d: unknown key \"%s\"", lineno, k);
    }
    continue;
  bad_value:
    return ostio__fail(OSTIO_EFORMAT, "layout record line %d: bad value %s=\"%s\"", lineno,
                       k, v);
  bad_token:
    return ostio__fail(OSTIO_EFORMAT, "layout record line %d: \"%s\" is not key=value",
                       lineno, tok);
  }
  if ((have & (HAVE_START | HAVE_END | HAVE_SIZE | HAVE_COUNT)) !=
      (HAVE_START | HAVE_END | HAVE_SIZE | HAVE_COUNT))
    return ostio__fail(OSTIO_EFORMAT, "layout record line %d: a component needs start, end, "
                       "stripe_size and stripe_count", lineno);
  if (osts_text) {
    int rc = parse_osts(osts_text, osts, c.stripe_count, lineno);
    if (rc < 0) return rc;
    c.osts = osts;
  }
  return ostio__layout_add(l, &c);
}

int ostio__record_decode(const char *text, size_t len, ostio_layout **out)
{
  int rc = 0, lineno = 0, version = 0;
  char *copy = NULL, *save = NULL;
  int32_t *osts = NULL;
  ostio_layout *l = NULL;
  *out = NULL;
  if (!text || len == 0) return ostio__fail(OSTIO_EFORMAT, "layout record is empty");
  if (len > RECORD_MAX)
    return ostio__fail(OSTIO_EFORMAT, "layout record of %zu bytes is larger than %d", len,
                       RECORD_MAX);
  if (memchr(text, '\0', len) && strlen(text) + 1 != len)
    return ostio__fail(OSTIO_EFORMAT, "layout record holds a NUL byte");
  copy = malloc(len + 1);
  osts = malloc(sizeof(int32_t) * OSTIO_MAX_STRIPE_COUNT);
  l = ostio__layout_new();
  if (!copy || !osts || !l) { rc = ostio__fail(OSTIO_ENOMEM, "out of memory"); goto done; }
  memcpy(copy, text, len);
  copy[len] = '\0';
  for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    lineno++;
    if (lineno == 1) {
      int used = 0;
      if (sscanf(line, OSTIO__RECORD_MAGIC " %d%n", &version, &used) != 1 ||
          strncmp(line, OSTIO__RECORD_MAGIC " ", sizeof OSTIO__RECORD_MAGIC) || line[used]) {
        rc = ostio__fail(OSTIO_EFORMAT, "not an ostio layout record (expected first line "
                         "\"%s %d\")", OSTIO__RECORD_MAGIC, OSTIO__RECORD_VERSION);
        goto done;
      }
      if (version != OSTIO__RECORD_VERSION && version != OSTIO__RECORD_VERSION_OBJSIZE) {
        rc = ostio__fail(OSTIO_EFORMAT, "layout record version %d; this ostio reads versions "
                         "%d and %d", version, OSTIO__RECORD_VERSION,
                         OSTIO__RECORD_VERSION_OBJSIZE);
        goto done;
      }
      continue;
    }
    if (strncmp(line, "component ", 10)) {
      rc = ostio__fail(OSTIO_EFORMAT, "layout record line %d: expected \"component ...\"",
                       lineno);
      goto done;
    }
    if ((rc = parse_component(line + 10, lineno, version, l, osts)) < 0) goto done;
  }
  if (lineno == 0) { rc = ostio__fail(OSTIO_EFORMAT, "layout record is empty"); goto done; }
  if ((rc = ostio__layout_validate(l)) < 0) goto done;
  memcpy(l->source, "emulated", sizeof "emulated");
  *out = l;
  l = NULL;
done:
  free(copy);
  free(osts);
  ostio__layout_destroy(l);
  return rc;
}
