/* The strict JSON reader of json.h: a recursive-descent parser over a byte
 * cursor that tracks the line, building the tree as it goes. Every error
 * names the line, the column, what was found and what was expected. */
#include "model/json.h"

#include "core/error.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const unsigned char *p, *end;
  const unsigned char *line_start; /* first byte of the current line */
  int line;
  int depth;                       /* open arrays and objects        */
  locale_t c_locale;               /* for strtod_l; made on first use */
} parser;

static int parse_value(parser *ps, ostio__json *v);

/* ---- errors -------------------------------------------------------- */

static int col_of(const parser *ps, const unsigned char *at)
{
  return (int)(at - ps->line_start) + 1;
}

/* "JSON line L column C: <message>" for a position on the current line. */
__attribute__((format(printf, 3, 4)))
static int fail_at(const parser *ps, const unsigned char *at, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return ostio__fail(OSTIO_EINVAL, "JSON line %d column %d: %s", ps->line, col_of(ps, at), msg);
}

static int fail_nomem(const parser *ps)
{
  return ostio__fail(OSTIO_ENOMEM, "JSON line %d column %d: out of memory building the tree",
                     ps->line, col_of(ps, ps->p));
}

/* What is at `at`, for "found ...": a quoted character, a byte, or the end. */
static const char *found(const parser *ps, const unsigned char *at, char *buf, size_t cap)
{
  if (at >= ps->end) return "the end of the input";
  if (*at >= 0x21 && *at < 0x7f) snprintf(buf, cap, "'%c'", *at);
  else snprintf(buf, cap, "byte 0x%02X", *at);
  return buf;
}

static int fail_expected(const parser *ps, const unsigned char *at, const char *expected)
{
  char b[16];
  return fail_at(ps, at, "found %s, expected %s", found(ps, at, b, sizeof b), expected);
}

/* ---- whitespace and literals ---------------------------------------- */

static void skip_ws(parser *ps)
{
  while (ps->p < ps->end) {
    unsigned char c = *ps->p;
    if (c == '\n') {
      ps->line++;
      ps->line_start = ps->p + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    ps->p++;
  }
}

static int parse_literal(parser *ps, ostio__json *v)
{
  static const struct { const char *word; ostio__json_type type; int b; } lit[] = {
    {"true", OSTIO__JSON_BOOL, 1}, {"false", OSTIO__JSON_BOOL, 0}, {"null", OSTIO__JSON_NULL, 0},
  };
  for (size_t k = 0; k < sizeof lit / sizeof lit[0]; k++) {
    if (*ps->p != (unsigned char)lit[k].word[0]) continue;
    size_t n = strlen(lit[k].word);
    for (size_t i = 1; i < n; i++)
      if (ps->p + i >= ps->end || ps->p[i] != (unsigned char)lit[k].word[i]) {
        char want[32];
        snprintf(want, sizeof want, "'%c' (to spell %s)", lit[k].word[i], lit[k].word);
        return fail_expected(ps, ps->p + i, want);
      }
    v->type = lit[k].type;
    v->u.b = lit[k].b;
    ps->p += n;
    return 0;
  }
  return fail_expected(ps, ps->p, "a value");
}

/* ---- numbers ------------------------------------------------------- */

static int digits(parser *ps, const char *what)
{
  if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') return fail_expected(ps, ps->p, what);
  while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
  return 0;
}

/* An integer token [s, e) (optional '-', digits) into int64, refusing overflow. */
static int to_int64(parser *ps, const unsigned char *s, const unsigned char *e, int64_t *out)
{
  int neg = *s == '-';
  uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, m = 0;
  for (const unsigned char *q = s + neg; q < e; q++) {
    uint64_t d = (uint64_t)(*q - '0');
    if (m > (limit - d) / 10)
      return fail_at(ps, s, "integer %.*s is outside the int64 range [-9223372036854775808, "
                     "9223372036854775807]; write it with a fraction or exponent for a double",
                     (int)(e - s > 40 ? 40 : e - s), (const char *)s);
    m = m * 10 + d;
  }
  *out = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
  return 0;
}

/* A checked double token [s, e) through strtod_l in the C locale. */
static int to_double(parser *ps, const unsigned char *s, const unsigned char *e, double *out)
{
  char buf[320];
  size_t n = (size_t)(e - s);
  if (n >= sizeof buf)
    return fail_at(ps, s, "number of %zu characters; accepted at most %zu", n, sizeof buf - 1);
  memcpy(buf, s, n);
  buf[n] = '\0';
  if (ps->c_locale == (locale_t)0) {
    ps->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (ps->c_locale == (locale_t)0) return fail_nomem(ps);
  }
  errno = 0;
  double d = strtod_l(buf, NULL, ps->c_locale);
  if (!isfinite(d) || (errno == ERANGE && fabs(d) > 1.0))
    return fail_at(ps, s, "number %s is outside the range of a double (magnitude below 1.8e308)",
                   buf);
  *out = d;                        /* underflow: 0 or subnormal, accepted */
  return 0;
}

static int parse_number(parser *ps, ostio__json *v)
{
  const unsigned char *s = ps->p;
  int is_int = 1, rc;
  if (*ps->p == '-') ps->p++;
  if (ps->p < ps->end && *ps->p == '0') {
    ps->p++;
    if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
      return fail_at(ps, s, "number with a leading zero; accepted: 0, or digits starting 1-9");
  } else if ((rc = digits(ps, "a digit")) < 0) {
    return rc;
  }
  if (ps->p < ps->end && *ps->p == '.') {
    ps->p++;
    is_int = 0;
    if ((rc = digits(ps, "a digit after the decimal point")) < 0) return rc;
  }
  if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
    ps->p++;
    is_int = 0;
    if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
    if ((rc = digits(ps, "a digit in the exponent")) < 0) return rc;
  }
  v->type = is_int ? OSTIO__JSON_INT : OSTIO__JSON_DOUBLE;
  return is_int ? to_int64(ps, s, ps->p, &v->u.i) : to_double(ps, s, ps->p, &v->u.d);
}

/* ---- strings ------------------------------------------------------- */

static int hex4(parser *ps, const unsigned char *q, unsigned *out)
{
  unsigned u = 0;
  size_t avail = (size_t)(ps->end - q);          /* q <= end */
  *out = 0; /* defined on the error path too (GCC 12 -O3 cannot see rc < 0) */
  for (size_t i = 0; i < 4; i++) {
    unsigned c = i < avail ? q[i] : 0, d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return fail_expected(ps, q + i, "a hexadecimal digit (\\u takes four)");
    u = u * 16 + d;
  }
  *out = u;
  return 0;
}

static size_t put_utf8(unsigned char *o, unsigned cp)
{
  if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
  if (cp < 0x800) {
    o[0] = (unsigned char)(0xC0 | cp >> 6);
    o[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (unsigned char)(0xE0 | cp >> 12);
    o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (unsigned char)(0xF0 | cp >> 18);
  o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
  o[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

/* \uXXXX at ps->p (just after the backslash and 'u'), with a following low
 * surrogate when it is a high one; appends UTF-8 at *o. */
static int unicode_escape(parser *ps, unsigned char **o)
{
  const unsigned char *at = ps->p - 2;
  unsigned cp, lo;
  int rc = hex4(ps, ps->p, &cp);
  if (rc < 0) return rc;
  ps->p += 4;
  if (cp >= 0xDC00 && cp <= 0xDFFF)
    return fail_at(ps, at, "lone low surrogate \\u%04X; accepted: a high surrogate "
                   "\\uD800-\\uDBFF followed by a low one", cp);
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
      return fail_at(ps, at, "high surrogate \\u%04X not followed by a low surrogate "
                     "\\uDC00-\\uDFFF", cp);
    if ((rc = hex4(ps, ps->p + 2, &lo)) < 0) return rc;
    if (lo < 0xDC00 || lo > 0xDFFF)
      return fail_at(ps, ps->p, "\\u%04X after high surrogate \\u%04X; expected a low "
                     "surrogate \\uDC00-\\uDFFF", lo, cp);
    ps->p += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
  }
  *o += put_utf8(*o, cp);
  return 0;
}

static int escape(parser *ps, unsigned char **o)
{
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  const unsigned char *at = ps->p++;      /* the backslash */
  if (ps->p >= ps->end) return fail_expected(ps, ps->p, "an escape character after '\\'");
  unsigned char c = *ps->p++;
  if (c == 'u') return unicode_escape(ps, o);
  const char *hit = c ? strchr(from, c) : NULL;
  if (!hit) {
    char b[16];
    return fail_at(ps, at, "invalid escape '\\' followed by %s; accepted: \\\" \\\\ \\/ \\b \\f "
                   "\\n \\r \\t \\uXXXX", found(ps, ps->p - 1, b, sizeof b));
  }
  *(*o)++ = (unsigned char)to[hit - from];
  return 0;
}

/* Length of the valid UTF-8 sequence at q (lead byte >= 0x80), or 0. */
static size_t utf8_len(const unsigned char *q, const unsigned char *end)
{
  unsigned c = q[0], lo = 0x80, hi = 0xBF;
  size_t n;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {           /* no overlongs, no surrogates */
    n = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {           /* no overlongs, <= U+10FFFF */
    n = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if ((size_t)(end - q) < n || q[1] < lo || q[1] > hi) return 0;
  for (size_t i = 2; i < n; i++)
    if ((q[i] & 0xC0) != 0x80) return 0;
  return n;
}

/* The string at ps->p (its opening quote) into a new buffer. Two passes:
 * find the closing quote to size the buffer, then decode and check. */
static int parse_string(parser *ps, char **out, size_t *outlen)
{
  const unsigned char *open = ps->p++, *q = ps->p;
  while (q < ps->end && *q != '"') q += (*q == '\\' && ps->end - q > 1) ? 2 : 1;
  size_t span = (size_t)(q - ps->p);              /* decoding never grows a string */
  unsigned char *buf = malloc(span + 1), *o = buf;
  int rc = 0;
  if (!buf) return fail_nomem(ps);
  for (;;) {
    if (ps->p >= ps->end) {
      rc = fail_at(ps, ps->p, "found the end of the input, expected '\"' to close the string "
                   "opened at column %d", col_of(ps, open));
      break;
    }
    unsigned char c = *ps->p;
    if (c == '"') { ps->p++; break; }
    if (c == '\\') {
      if ((rc = escape(ps, &o)) < 0) break;
    } else if (c < 0x20) {
      rc = fail_at(ps, ps->p, "control character 0x%02X inside a string; write it as an "
                   "escape (\\n, \\t, \\u00%02X)", c, c);
      break;
    } else if (c < 0x80) {
      *o++ = c;
      ps->p++;
    } else {
      size_t n = utf8_len(ps->p, ps->end);
      if (!n) {
        rc = fail_at(ps, ps->p, "byte 0x%02X is not valid UTF-8; strings must be UTF-8", c);
        break;
      }
      memcpy(o, ps->p, n);
      o += n;
      ps->p += n;
    }
  }
  if (rc < 0) { free(buf); return rc; }
  *o = '\0';
  *out = (char *)buf;
  *outlen = (size_t)(o - buf);
  return 0;
}

/* ---- arrays and objects --------------------------------------------- */

/* Makes room for one more element of size sz in *items (count n, capacity *cap). */
static int grow(parser *ps, void **items, size_t n, size_t *cap, size_t sz)
{
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 4;
  if (nc > SIZE_MAX / sz) return fail_nomem(ps);
  void *p = realloc(*items, nc * sz);
  if (!p) return fail_nomem(ps);
  *items = p;
  *cap = nc;
  return 0;
}

static void free_value(ostio__json *v);

static void free_members(ostio__json_member *m, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(m[i].key);
    free_value(&m[i].value);
  }
  free(m);
}

static void free_value(ostio__json *v)
{
  if (v->type == OSTIO__JSON_STRING) {
    free(v->u.str.s);
  } else if (v->type == OSTIO__JSON_ARRAY) {
    for (size_t i = 0; i < v->u.arr.n; i++) free_value(&v->u.arr.item[i]);
    free(v->u.arr.item);
  } else if (v->type == OSTIO__JSON_OBJECT) {
    free_members(v->u.obj.m, v->u.obj.n);
  }
  v->type = OSTIO__JSON_NULL;
}

static int enter(parser *ps)
{
  if (ps->depth >= OSTIO__JSON_MAX_DEPTH)
    return fail_at(ps, ps->p, "arrays and objects nested deeper than %d levels; accepted at "
                   "most %d", OSTIO__JSON_MAX_DEPTH, OSTIO__JSON_MAX_DEPTH);
  ps->depth++;
  ps->p++;                         /* the '[' or '{' */
  skip_ws(ps);
  return 0;
}

/* After an element: ',' (another follows: 1), the closing char (0), or an error. */
static int next_or_close(parser *ps, unsigned char close, const char *expected)
{
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == ',') { ps->p++; skip_ws(ps); return 1; }
  if (ps->p < ps->end && *ps->p == close) { ps->p++; ps->depth--; return 0; }
  return fail_expected(ps, ps->p, expected);
}

static int parse_array(parser *ps, ostio__json *v)
{
  ostio__json *item = NULL;
  size_t n = 0, cap = 0;
  int rc = enter(ps);
  if (rc < 0) return rc;
  if (ps->p < ps->end && *ps->p == ']') { ps->p++; ps->depth--; goto done; }
  do {
    if ((rc = grow(ps, (void **)&item, n, &cap, sizeof *item)) < 0) break;
    if ((rc = parse_value(ps, &item[n])) < 0) break;
    n++;
  } while ((rc = next_or_close(ps, ']', "',' or ']' after an array element")) == 1);
done:
  if (rc < 0) {
    for (size_t i = 0; i < n; i++) free_value(&item[i]);
    free(item);
    return rc;
  }
  v->type = OSTIO__JSON_ARRAY;
  v->u.arr.item = item;
  v->u.arr.n = n;
  return 0;
}

static uint64_t hash_key(const char *k, size_t len)
{
  uint64_t h = 1469598103934665603ull;             /* FNV-1a */
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
  return h;
}

/* Refuses a key seen twice in one object, through a table of 2n+ slots. */
static int check_duplicates(parser *ps, const ostio__json_member *m, size_t n)
{
  size_t cap = 4;
  while (cap < 2 * n) cap *= 2;
  size_t *slot = calloc(cap, sizeof *slot);        /* index + 1, 0 = empty */
  if (!slot) return fail_nomem(ps);
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    size_t h = (size_t)hash_key(m[i].key, m[i].keylen) & (cap - 1);
    for (; slot[h]; h = (h + 1) & (cap - 1)) {
      const ostio__json_member *f = &m[slot[h] - 1];
      if (f->keylen == m[i].keylen && memcmp(f->key, m[i].key, f->keylen) == 0) {
        rc = ostio__fail(OSTIO_EINVAL, "JSON line %d column %d: duplicate key \"%.64s\" (first "
                         "at line %d column %d); keys must be unique within an object",
                         m[i].line, m[i].col, m[i].key, f->line, f->col);
        break;
      }
    }
    slot[h] = i + 1;
  }
  free(slot);
  return rc;
}

static int parse_member(parser *ps, ostio__json_member *m)
{
  int rc;
  if (ps->p >= ps->end || *ps->p != '"') return fail_expected(ps, ps->p, "'\"' to start a key");
  m->line = ps->line;
  m->col = col_of(ps, ps->p);
  if ((rc = parse_string(ps, &m->key, &m->keylen)) < 0) return rc;
  skip_ws(ps);
  if (ps->p >= ps->end || *ps->p != ':') {
    rc = fail_expected(ps, ps->p, "':' after the key");
  } else {
    ps->p++;
    rc = parse_value(ps, &m->value);
  }
  if (rc < 0) free(m->key);
  return rc;
}

static int parse_object(parser *ps, ostio__json *v)
{
  ostio__json_member *m = NULL;
  size_t n = 0, cap = 0;
  int rc = enter(ps);
  if (rc < 0) return rc;
  if (ps->p < ps->end && *ps->p == '}') { ps->p++; ps->depth--; goto done; }
  do {
    if ((rc = grow(ps, (void **)&m, n, &cap, sizeof *m)) < 0) break;
    if ((rc = parse_member(ps, &m[n])) < 0) break;
    n++;
  } while ((rc = next_or_close(ps, '}', "',' or '}' after an object member")) == 1);
  if (rc == 0 && n > 1) rc = check_duplicates(ps, m, n);
done:
  if (rc < 0) {
    free_members(m, n);
    return rc;
  }
  v->type = OSTIO__JSON_OBJECT;
  v->u.obj.m = m;
  v->u.obj.n = n;
  return 0;
}

/* ---- values and documents ------------------------------------------- */

static int parse_value(parser *ps, ostio__json *v)
{
  skip_ws(ps);
  v->type = OSTIO__JSON_NULL;
  v->line = ps->line;
  v->col = col_of(ps, ps->p);
  if (ps->p >= ps->end)
    return fail_expected(ps, ps->p, "a value (object, array, string, number, true, false or null)");
  unsigned char c = *ps->p;
  if (c == '{') return parse_object(ps, v);
  if (c == '[') return parse_array(ps, v);
  if (c == '-' || (c >= '0' && c <= '9')) return parse_number(ps, v);
  if (c == 't' || c == 'f' || c == 'n') return parse_literal(ps, v);
  if (c == '"') {
    int rc = parse_string(ps, &v->u.str.s, &v->u.str.len);
    if (rc == 0) v->type = OSTIO__JSON_STRING;
    return rc;
  }
  if (c == 'N' || c == 'I' || c == '+' || c == '.')
    return fail_expected(ps, ps->p, "a JSON number (no NaN, Infinity, leading '+' or '.')");
  return fail_expected(ps, ps->p, "a value (object, array, string, number, true, false or null)");
}

int ostio__json_parse(const char *text, size_t len, ostio__json **out)
{
  if (!out) return ostio__fail(OSTIO_EINVAL, "ostio__json_parse: NULL result pointer");
  *out = NULL;
  if (!text && len) return ostio__fail(OSTIO_EINVAL, "ostio__json_parse: NULL text");
  if (len > OSTIO__JSON_MAX_BYTES)
    return ostio__fail(OSTIO_EINVAL, "JSON input of %zu bytes; accepted at most %zu bytes",
                       len, OSTIO__JSON_MAX_BYTES);
  const unsigned char *s = (const unsigned char *)(text ? text : "");
  parser ps = {.p = s, .end = s + len, .line_start = s, .line = 1};
  if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) ps.p += 3;
  ostio__json *root = malloc(sizeof *root);
  int rc = root ? parse_value(&ps, root) : fail_nomem(&ps);
  if (rc == 0) {
    skip_ws(&ps);
    if (ps.p < ps.end) {
      rc = fail_expected(&ps, ps.p, "the end of the input after the JSON value");
      free_value(root);
    }
  }
  if (ps.c_locale != (locale_t)0) freelocale(ps.c_locale);
  if (rc < 0) {
    free(root);
    return rc;
  }
  *out = root;
  return 0;
}

void ostio__json_free(ostio__json *root)
{
  if (!root) return;
  free_value(root);
  free(root);
}

const ostio__json_member *ostio__json_find(const ostio__json *obj, const char *key)
{
  if (!obj || obj->type != OSTIO__JSON_OBJECT || !key) return NULL;
  size_t len = strlen(key);
  for (size_t i = 0; i < obj->u.obj.n; i++)
    if (obj->u.obj.m[i].keylen == len && memcmp(obj->u.obj.m[i].key, key, len) == 0)
      return &obj->u.obj.m[i];
  return NULL;
}

const char *ostio__json_type_name(ostio__json_type t)
{
  switch (t) {
  case OSTIO__JSON_NULL: return "null";
  case OSTIO__JSON_BOOL: return "boolean";
  case OSTIO__JSON_INT: return "integer";
  case OSTIO__JSON_DOUBLE: return "number";
  case OSTIO__JSON_STRING: return "string";
  case OSTIO__JSON_ARRAY: return "array";
  case OSTIO__JSON_OBJECT: return "object";
  }
  return "unknown";
}
