/* OSTIO_HINTS: per-file hints from the environment, in the syntax of Cray
 * MPICH's MPICH_MPIIO_HINTS:
 *
 *   OSTIO_HINTS = entry[,entry...]
 *   entry       = pattern:key=value[:key=value...]
 *
 * pattern is matched with fnmatch(pattern, path, 0). Values may contain ':'
 * and ',' (cb_config_list=n01:2,n02:2): a ':' token without '=' continues
 * the previous value; a ',' segment starts a new entry only when it has a
 * ':' and the token after that ':' is a key=value. Whitespace around tokens
 * is dropped, and so are empty ',' segments. See docs/hints.md. */
#include "hints/hints.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define DETAIL_COPY 512 /* as large as the detail buffer in core/error.c */
#define QENTRY 120      /* entry characters quoted in a detail          */
#define FORM "; expected pattern:key=value[:key=value...], entries separated by commas"

static int is_sep(char c) { return c == ',' || c == ':' || c == '='; }

/* In place: drops whitespace at both ends and next to ',', ':' and '=',
 * then empty ',' segments. */
static void normalize(char *s)
{
  char *out = s;
  const char *p = s;
  while (*p) {
    if (isspace((unsigned char)*p)) {
      const char *q = p;
      while (isspace((unsigned char)*q)) q++;
      int drop = out == s || is_sep(out[-1]) || *q == '\0' || is_sep(*q);
      while (!drop && p < q) *out++ = *p++;
      p = q;
      continue;
    }
    *out++ = *p++;
  }
  *out = '\0';
  /* Empty segments: leading, trailing and doubled commas. */
  out = s;
  for (p = s; *p; p++) {
    if (*p == ',' && (out == s || out[-1] == ',')) continue;
    *out++ = *p;
  }
  if (out > s && out[-1] == ',') out--;
  *out = '\0';
}

/* 1 when the ',' segment at seg begins an entry: it has a ':' and the
 * token after its first ':' (up to the next ':') has a '='. That is the
 * documented rule ("some '=' after the first ':'") narrowed to what can
 * parse: a segment like "n11:2:cb_nodes=2" would otherwise start an entry
 * with pattern "n11" and no key=value, always an error; here it continues
 * the previous value, as in cb_config_list=n01:2,n11:2:cb_nodes=2. */
static int starts_entry(const char *seg)
{
  size_t len = strcspn(seg, ",");
  const char *colon = memchr(seg, ':', len);
  if (!colon) return 0;
  const char *tok = colon + 1;
  size_t rest = len - (size_t)(tok - seg);
  const char *end = memchr(tok, ':', rest);
  return memchr(tok, '=', end ? (size_t)(end - tok) : rest) != NULL;
}

static int syntax_error(const char *entry, const char *what)
{
  size_t n = strlen(entry);
  return ostio__fail(OSTIO_EHINT, "OSTIO_HINTS entry \"%.*s%s\": %s" FORM, QENTRY, entry,
                     n > QENTRY ? "..." : "", what);
}

static int key_ok(const char *key)
{
  for (const char *c = key; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.') return 0;
  return 1;
}

/* Length of the ':' token at tok (up to the next ':' or the end). */
static size_t token_len(const char *tok) { return strcspn(tok, ":"); }

/* Parses one entry (modified in place) and, when its pattern matches path,
 * sets its keys in h. */
static int apply_entry(ostio__hints *h, const char *path, char *entry)
{
  char quoted[QENTRY + 1];
  snprintf(quoted, sizeof quoted, "%s", entry);
  char *colon = strchr(entry, ':');
  if (!colon) return syntax_error(quoted, "no ':' between a pattern and key=value");
  if (colon == entry) return syntax_error(quoted, "the pattern is empty");
  *colon = '\0';
  const char *pattern = entry;
  int match = fnmatch(pattern, path, 0) == 0;

  char *tok = colon + 1;
  while (tok) {
    size_t tl = token_len(tok);
    char *eq = memchr(tok, '=', tl);
    if (!eq) return syntax_error(quoted, "key=value is missing after the pattern");
    /* The value runs over the following tokens that have no '='. */
    char *vend = tok[tl] == ':' ? tok + tl : NULL;
    while (vend) {
      char *t2 = vend + 1;
      size_t l2 = token_len(t2);
      if (memchr(t2, '=', l2)) break;
      vend = t2[l2] == ':' ? t2 + l2 : NULL;
    }
    char *next = NULL;
    if (vend) {
      *vend = '\0';
      next = vend + 1;
    }
    *eq = '\0';
    const char *key = tok, *value = eq + 1;
    if (key[0] == '\0') return syntax_error(quoted, "a key is empty");
    if (!key_ok(key))
      return syntax_error(quoted, "a key has characters other than letters, digits, "
                                  "'_', '-' and '.'");
    if (match) {
      int rc = ostio__hints_set(h, key, value);
      if (rc < 0) {
        char saved[DETAIL_COPY];
        snprintf(saved, sizeof saved, "%s", ostio_last_error());
        return ostio__fail(rc, "%s (from OSTIO_HINTS, pattern \"%.64s\")", saved, pattern);
      }
    }
    tok = next;
  }
  return 0;
}

int ostio__hints_apply_env(ostio__hints *h, const char *path, const char *env)
{
  if (!h || !path)
    return ostio__fail(OSTIO_EINVAL, "OSTIO_HINTS: null %s", h ? "path" : "hints");
  if (!env || !*env) return 0;
  char *buf = strdup(env);
  if (!buf) return ostio__fail(OSTIO_ENOMEM, "OSTIO_HINTS: out of memory");
  normalize(buf);

  /* Work on a copy so that h is unchanged when any entry is bad. */
  ostio__hints tmp = *h;
  int rc = 0;
  char *entry = NULL;
  char *seg = buf;
  while (rc == 0 && *seg) {
    size_t len = strcspn(seg, ",");
    char *after = seg[len] == ',' ? seg + len + 1 : seg + len;
    if (starts_entry(seg)) {
      if (entry) {
        seg[-1] = '\0'; /* end of the previous entry */
        rc = apply_entry(&tmp, path, entry);
      }
      entry = seg;
    } else if (!entry) {
      seg[len] = '\0';
      rc = syntax_error(seg, seg[strcspn(seg, ":")]
                                 ? "key=value is missing after the pattern"
                                 : "no ':' between a pattern and key=value");
    }
    seg = after;
  }
  if (rc == 0 && entry) rc = apply_entry(&tmp, path, entry);
  if (rc == 0) *h = tmp;
  free(buf);
  return rc;
}

int ostio__hints_resolve_env(const char *path, ostio__hints *h)
{
  if (!h) return ostio__fail(OSTIO_EINVAL, "hints: null output");
  ostio__hints tmp;
  ostio__hints_init(&tmp);
  int rc = ostio__hints_apply_env(&tmp, path, getenv("OSTIO_HINTS"));
  ostio__hints_init(h);
  if (rc == 0) *h = tmp;
  return rc;
}
