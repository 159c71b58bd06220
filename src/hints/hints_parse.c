/* Value parsers shared by the hints module and the CLI. They record no
 * detail: callers know the context (which key, which option) and say it. */
#include "hints/hints.h"

#include "ostio.h"

/* Length of the run of decimal digits at s. */
static size_t digit_run(const char *s)
{
  size_t n = 0;
  while (s[n] >= '0' && s[n] <= '9') n++;
  return n;
}

/* Accumulates the n digits at s into *out, refusing values above limit. */
static int accumulate(const char *s, size_t n, uint64_t limit, uint64_t *out)
{
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (limit - d) / 10) return OSTIO_ERANGE;
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

static int suffix_shift(char c, unsigned *shift)
{
  switch (c) {
  case 'k': case 'K': *shift = 10; return 0;
  case 'm': case 'M': *shift = 20; return 0;
  case 'g': case 'G': *shift = 30; return 0;
  case 't': case 'T': *shift = 40; return 0;
  default: return OSTIO_EINVAL;
  }
}

int ostio__parse_size(const char *s, int64_t *out)
{
  if (!s || !out) return OSTIO_EINVAL;
  size_t n = digit_run(s);
  if (n == 0) return OSTIO_EINVAL;            /* empty, sign, space, junk */
  unsigned shift = 0;
  if (s[n] != '\0') {
    if (suffix_shift(s[n], &shift) != 0 || s[n + 1] != '\0') return OSTIO_EINVAL;
  }
  /* Syntax is fine from here on; only the magnitude can fail. */
  uint64_t v;
  if (accumulate(s, n, (uint64_t)INT64_MAX, &v) != 0) return OSTIO_ERANGE;
  if (v > ((uint64_t)INT64_MAX >> shift)) return OSTIO_ERANGE;
  *out = (int64_t)(v << shift);
  return 0;
}

int ostio__parse_int(const char *s, int64_t *out)
{
  if (!s || !out) return OSTIO_EINVAL;
  int neg = 0;
  const char *p = s;
  if (*p == '+' || *p == '-') {
    neg = (*p == '-');
    p++;
  }
  size_t n = digit_run(p);
  if (n == 0 || p[n] != '\0') return OSTIO_EINVAL;
  uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  uint64_t v;
  if (accumulate(p, n, limit, &v) != 0) return OSTIO_ERANGE;
  if (neg)
    *out = (v == (uint64_t)INT64_MAX + 1u) ? INT64_MIN : -(int64_t)v;
  else
    *out = (int64_t)v;
  return 0;
}
