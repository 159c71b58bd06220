/* The strict JSON reader (src/model/json.c): valid documents of every type,
 * every class of error with its line and column in the detail, the depth
 * and size limits, and two fuzz loops (every truncation of a valid
 * document; random byte changes) that must fail cleanly, never crash. Each
 * input is copied into a buffer of exactly its length, so the sanitizer
 * sees any read past the end. */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/json.h"
#include "ostio.h"
#include "testutil.h"

/* Parses the first len bytes of text from an exact-size heap copy. */
static int parse_n(const char *text, size_t len, ostio__json **out)
{
  char *copy = malloc(len ? len : 1);
  if (!copy) return OSTIO_ENOMEM;
  memcpy(copy, text, len);
  int rc = ostio__json_parse(copy, len, out);
  free(copy);
  return rc;
}

static ostio__json *parse_ok(const char *text)
{
  ostio__json *v = NULL;
  int rc = parse_n(text, strlen(text), &v);
  CHECKF(rc == 0 && v, "parse of %s: rc %d, %s", text, rc, ostio_last_error());
  return v;
}

/* The parse fails with OSTIO_EINVAL and the detail holds each given part. */
static void parse_err(const char *text, size_t len, const char *where, const char *what)
{
  ostio__json *v = (ostio__json *)1;
  int rc = parse_n(text, len, &v);
  const char *d = ostio_last_error();
  CHECKF(rc == OSTIO_EINVAL && v == NULL, "%.40s: rc %d", text, rc);
  CHECKF(strstr(d, where) != NULL, "%.40s: detail \"%s\" lacks \"%s\"", text, d, where);
  CHECKF(strstr(d, what) != NULL, "%.40s: detail \"%s\" lacks \"%s\"", text, d, what);
}

static void err(const char *text, const char *where, const char *what)
{
  parse_err(text, strlen(text), where, what);
}

static void scalars(void)
{
  ostio__json *v;
  v = parse_ok("null");
  CHECK(v && v->type == OSTIO__JSON_NULL && v->line == 1 && v->col == 1);
  ostio__json_free(v);
  v = parse_ok(" true ");
  CHECK(v && v->type == OSTIO__JSON_BOOL && v->u.b == 1 && v->col == 2);
  ostio__json_free(v);
  v = parse_ok("false");
  CHECK(v && v->type == OSTIO__JSON_BOOL && v->u.b == 0);
  ostio__json_free(v);
  static const struct { const char *t; int64_t i; } ints[] = {
    {"0", 0}, {"-0", 0}, {"7", 7}, {"-42", -42}, {"1048576", 1048576},
    {"9223372036854775807", INT64_MAX}, {"-9223372036854775808", INT64_MIN},
  };
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
    v = parse_ok(ints[k].t);
    CHECKF(v && v->type == OSTIO__JSON_INT && v->u.i == ints[k].i, "int %s", ints[k].t);
    ostio__json_free(v);
  }
  static const struct { const char *t; double d; } dbls[] = {
    {"1.5", 1.5}, {"-0.25", -0.25}, {"1e3", 1000}, {"1E+3", 1000}, {"2.5e-3", 0.0025},
    {"0.0", 0}, {"0e0", 0}, {"1e-400", 0}, {"1.7976931348623157e308", 1.7976931348623157e308},
  };
  for (size_t k = 0; k < sizeof dbls / sizeof dbls[0]; k++) {
    v = parse_ok(dbls[k].t);
    CHECKF(v && v->type == OSTIO__JSON_DOUBLE && v->u.d == dbls[k].d, "double %s", dbls[k].t);
    ostio__json_free(v);
  }
  /* A locale with a decimal comma does not change how numbers read. */
  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
    v = parse_ok("0.5");
    CHECK(v && v->type == OSTIO__JSON_DOUBLE && v->u.d == 0.5);
    ostio__json_free(v);
    setlocale(LC_NUMERIC, "C");
  }
}

static void strings(void)
{
  ostio__json *v = parse_ok("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"");
  CHECK(v && v->type == OSTIO__JSON_STRING && strcmp(v->u.str.s, "a\"b\\c/d\be\ff\ng\rh\ti") == 0);
  ostio__json_free(v);
  v = parse_ok("\"\\u0041\\u00e9\\u20AC\\uD83D\\uDE00\"");  /* A, e-acute, euro, emoji */
  CHECK(v && strcmp(v->u.str.s, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") == 0 &&
        v->u.str.len == 10);
  ostio__json_free(v);
  v = parse_ok("\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");   /* raw UTF-8 kept */
  CHECK(v && strcmp(v->u.str.s, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == 0);
  ostio__json_free(v);
  v = parse_ok("\"x\\u0000y\"");
  CHECK(v && v->u.str.len == 3 && v->u.str.s[1] == '\0' && v->u.str.s[2] == 'y');
  ostio__json_free(v);
  v = parse_ok("\"\"");
  CHECK(v && v->type == OSTIO__JSON_STRING && v->u.str.len == 0 && v->u.str.s[0] == '\0');
  ostio__json_free(v);
}

static void containers(void)
{
  ostio__json *v = parse_ok("\xEF\xBB\xBF{\n  \"a\": [1, 2.5, \"s\", true, false, null, [], {}],"
                            "\n  \"b\" : {\"c\": {\"d\": [[[]]]}},\r\n\t\"\": 0\n}\n");
  CHECK(v && v->type == OSTIO__JSON_OBJECT && v->u.obj.n == 3);
  if (v && v->type == OSTIO__JSON_OBJECT && v->u.obj.n == 3) {
    const ostio__json_member *a = ostio__json_find(v, "a"), *b = ostio__json_find(v, "b");
    CHECK(a == &v->u.obj.m[0] && b == &v->u.obj.m[1] && ostio__json_find(v, "") != NULL);
    CHECK(ostio__json_find(v, "zz") == NULL && ostio__json_find(a ? &a->value : NULL, "x") == NULL);
    CHECK(a && a->line == 2 && a->col == 3 && a->value.line == 2 && a->value.col == 8);
    CHECK(a && a->value.type == OSTIO__JSON_ARRAY && a->value.u.arr.n == 8);
    if (a && a->value.u.arr.n == 8) {
      const ostio__json *it = a->value.u.arr.item;
      CHECK(it[0].type == OSTIO__JSON_INT && it[1].type == OSTIO__JSON_DOUBLE &&
            it[2].type == OSTIO__JSON_STRING && it[3].type == OSTIO__JSON_BOOL &&
            it[4].type == OSTIO__JSON_BOOL && it[5].type == OSTIO__JSON_NULL &&
            it[6].type == OSTIO__JSON_ARRAY && it[6].u.arr.n == 0 &&
            it[7].type == OSTIO__JSON_OBJECT && it[7].u.obj.n == 0);
      CHECK(it[2].col == 17);
    }
    CHECK(b && b->line == 3 && b->value.type == OSTIO__JSON_OBJECT);
    CHECK(v->u.obj.m[2].line == 4 && v->u.obj.m[2].col == 2);
  }
  ostio__json_free(v);
  CHECK(strcmp(ostio__json_type_name(OSTIO__JSON_DOUBLE), "number") == 0 &&
        strcmp(ostio__json_type_name(OSTIO__JSON_OBJECT), "object") == 0);
  ostio__json_free(NULL);
}

static void errors(void)
{
  /* truncated input */
  err("", "line 1 column 1", "expected a value");
  err("  \n ", "line 2 column 2", "end of the input");
  err("{\"a\": [1, 2", "line 1 column 12", "expected ',' or ']'");
  err("{\"a\"", "column 5", "expected ':'");
  err("{\"a\":", "column 6", "expected a value");
  err("\"abc", "column 5", "'\"' to close the string opened at column 1");
  err("[1,\n 2,\n", "line 3 column 1", "expected a value");
  err("tr", "column 3", "'u' (to spell true)");
  err("-", "column 2", "a digit");
  /* bad escapes */
  err("\"a\\qb\"", "column 3", "invalid escape");
  err("\"a\\qb\"", "column 3", "accepted: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
  err("\"\\u12G4\"", "column 6", "hexadecimal digit");
  err("\"\\uDC00\"", "column 2", "lone low surrogate");
  err("\"\\uD800x\"", "column 2", "not followed by a low surrogate");
  err("\"\\uD800\\u0041\"", "column 8", "expected a low surrogate");
  err("\"abc\\", "column 6", "an escape character");
  /* control characters and UTF-8 */
  err("\"a\nb\"", "line 1 column 3", "control character 0x0A");
  err("\"a\tb\"", "column 3", "control character 0x09");
  err("\"\xC0\x80\"", "column 2", "not valid UTF-8");
  err("\"\xED\xA0\x80\"", "column 2", "not valid UTF-8");         /* encoded surrogate */
  err("\"\xF4\x90\x80\x80\"", "column 2", "not valid UTF-8");     /* above U+10FFFF */
  err("\"\xE2\x82\"", "column 2", "not valid UTF-8");             /* cut sequence */
  parse_err("\"a\0b\"", 5, "column 3", "control character 0x00");
  /* bad numbers */
  err("01", "column 1", "leading zero");
  err("[-012]", "column 2", "leading zero");
  err("1.", "column 3", "a digit after the decimal point");
  err(".5", "column 1", "no NaN, Infinity, leading '+' or '.'");
  err("+1", "column 1", "leading '+'");
  err("1e", "column 3", "a digit in the exponent");
  err("1e+", "column 4", "a digit in the exponent");
  err("NaN", "column 1", "no NaN");
  err("[Infinity]", "column 2", "Infinity");
  err("-Infinity", "column 2", "a digit");
  err("9223372036854775808", "column 1", "outside the int64 range");
  err("-9223372036854775809", "column 1", "outside the int64 range");
  err("12345678901234567890", "column 1", "outside the int64 range");
  err("1e400", "column 1", "outside the range of a double");
  err("-1.5e309", "column 1", "outside the range of a double");
  err("0x10", "column 2", "the end of the input");
  /* trailing garbage */
  err("{} x", "column 4", "expected the end of the input after the JSON value");
  err("1 2", "column 3", "expected the end of the input");
  err("truex", "column 5", "'x'");
  err("[1]]", "column 4", "end of the input");
  err("null\n\n  ,", "line 3 column 3", "found ','");
  /* structure */
  err("[1 2]", "column 4", "',' or ']'");
  err("[1,]", "column 4", "expected a value");
  err("{\"a\":1,}", "column 8", "'\"' to start a key");
  err("{a:1}", "column 2", "'\"' to start a key");
  err("{\"a\" 1}", "column 6", "':' after the key");
  err("{\"a\":1 \"b\":2}", "column 8", "',' or '}'");
  err("[\x01]", "column 2", "byte 0x01");
  err("'a'", "column 1", "found ''', expected a value");
  /* duplicate keys, with both places */
  err("{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", "line 3 column 2", "duplicate key \"a\" (first at line 1 column 2)");
  err("{\"x\": {\"k\": 1, \"k\": 1}}", "column 16", "duplicate key \"k\"");
  /* arguments and size */
  ostio__json *v = NULL;
  CHECK(ostio__json_parse("1", 1, NULL) == OSTIO_EINVAL);
  CHECK(ostio__json_parse(NULL, 3, &v) == OSTIO_EINVAL && v == NULL);
  CHECK(ostio__json_parse("1", OSTIO__JSON_MAX_BYTES + 1, &v) == OSTIO_EINVAL && v == NULL &&
        strstr(ostio_last_error(), "accepted at most") != NULL);
}

static void depth(void)
{
  char buf[2 * (OSTIO__JSON_MAX_DEPTH + 1) + 1];
  for (int n = OSTIO__JSON_MAX_DEPTH; n <= OSTIO__JSON_MAX_DEPTH + 1; n++) {
    for (int i = 0; i < n; i++) buf[i] = '[';
    for (int i = 0; i < n; i++) buf[n + i] = ']';
    buf[2 * n] = '\0';
    ostio__json *v = NULL;
    int rc = parse_n(buf, (size_t)(2 * n), &v);
    if (n == OSTIO__JSON_MAX_DEPTH) {
      CHECKF(rc == 0 && v, "depth %d: %s", n, ostio_last_error());
    } else {
      CHECK(rc == OSTIO_EINVAL && v == NULL);
      CHECK(strstr(ostio_last_error(), "column 65") != NULL &&
            strstr(ostio_last_error(), "deeper than 64 levels") != NULL);
    }
    ostio__json_free(v);
  }
  /* Objects count too. */
  char obj[8 * 70 + 1] = "";
  for (int i = 0; i < 65; i++) strcat(obj, "{\"k\":");
  parse_err(obj, strlen(obj), "column 321", "deeper than 64");
}

/* Large inputs: a long array, a wide object (duplicate check), a long string. */
static void large(void)
{
  size_t n = 200000, cap = n * 24 + 64, len = 0;
  char *buf = malloc(cap);
  CHECK(buf != NULL);
  if (!buf) return;
  buf[len++] = '{';
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s\"k%zu\":%zu", i ? "," : "", i, i);
  buf[len++] = '}';
  ostio__json *v = NULL;
  CHECK(parse_n(buf, len, &v) == 0 && v && v->u.obj.n == n);
  ostio__json_free(v);
  memcpy(buf + len - 1, ",\"k7\":1}", 9);        /* one duplicate at the end */
  CHECK(parse_n(buf, len + 7, &v) == OSTIO_EINVAL &&
        strstr(ostio_last_error(), "duplicate key \"k7\"") != NULL);
  len = 0;
  buf[len++] = '[';
  for (size_t i = 0; i < n; i++) len += (size_t)snprintf(buf + len, cap - len, "%s%zu.5", i ? "," : "", i);
  buf[len++] = ']';
  CHECK(parse_n(buf, len, &v) == 0 && v && v->u.arr.n == n && v->u.arr.item[n - 1].u.d == n - 0.5);
  ostio__json_free(v);
  memset(buf, 'x', cap);
  buf[0] = '"';
  buf[cap - 1] = '"';
  CHECK(parse_n(buf, cap, &v) == 0 && v && v->u.str.len == cap - 2);
  ostio__json_free(v);
  free(buf);
}

static const char fuzz_doc[] =
  "{\"name\": \"caf\\u00e9 \\uD83D\\uDE00\",\n \"n\": [0, -1, 2.5e-3, 1E9, true, false, null],\n"
  " \"o\": {\"k\": \"a\\\"b\\\\c\\n\", \"e\": {}, \"a\": [[], [1]]}, \"x\": -0.0}";

/* Every proper prefix of a document that closes only at its last byte fails
 * with a located detail; random byte changes never crash. */
static void fuzz(void)
{
  size_t len = sizeof fuzz_doc - 1;
  ostio__json *v = parse_ok(fuzz_doc);
  ostio__json_free(v);
  long located = 0;
  for (size_t cut = 0; cut < len; cut++) {
    v = NULL;
    int rc = parse_n(fuzz_doc, cut, &v);
    CHECKF(rc == OSTIO_EINVAL && v == NULL, "prefix of %zu bytes: rc %d", cut, rc);
    located += strstr(ostio_last_error(), "JSON line ") != NULL;
  }
  CHECK_EQ_I64(located, (int64_t)len);
  tu_rng r;
  tu_rng_seed(&r, tu_seed(18));
  char doc[sizeof fuzz_doc];
  static const char pool[] = "{}[]\",:\\u0123456789eE+-.tfn \n\x01\x80\xC3\xFF";
  long ok = 0;
  for (int iter = 0; iter < 20000; iter++) {
    memcpy(doc, fuzz_doc, sizeof doc);
    int changes = (int)tu_rng_range(&r, 1, 4);
    for (int c = 0; c < changes; c++)
      doc[tu_rng_range(&r, 0, (int64_t)len - 1)] = pool[tu_rng_range(&r, 0, sizeof pool - 2)];
    v = NULL;
    int rc = parse_n(doc, len, &v);
    CHECK(rc == 0 || rc == OSTIO_EINVAL);
    CHECK(rc != 0 || v != NULL);
    CHECK(rc == 0 || strncmp(ostio_last_error(), "JSON line ", 10) == 0);
    ok += rc == 0;
    ostio__json_free(v);
  }
  printf("fuzz: %ld of 20000 changed documents still valid\n", ok);
}

int main(void)
{
  scalars();
  strings();
  containers();
  errors();
  depth();
  large();
  fuzz();
  return TEST_DONE();
}
