/* Pure path handling for the preload: lexical normalization (no symlink
 * resolution, no system calls) and the set of OSTIO_PRELOAD_PATHS prefixes. */
#include <stdlib.h>
#include <string.h>

#include "preload/preload.h"

int ostio__pl_path_norm(const char *cwd, const char *path, char *out, size_t cap)
{
  size_t n = 0;
  if (cap < 2) return -1;
  out[n++] = '/';
  const char *parts[2] = {path[0] == '/' ? NULL : cwd, path};
  for (int k = 0; k < 2; k++) {
    const char *s = parts[k];
    if (!s) continue;
    while (*s) {
      while (*s == '/') s++;
      if (!*s) break;
      const char *e = s;
      while (*e && *e != '/') e++;
      size_t len = (size_t)(e - s);
      if (len == 1 && s[0] == '.') {
        /* nothing */
      } else if (len == 2 && s[0] == '.' && s[1] == '.') {
        while (n > 1 && out[n - 1] != '/') n--;
        if (n > 1) n--; /* the slash before the removed component */
      } else {
        if (n > 1) {
          if (n + 1 >= cap) return -1;
          out[n++] = '/';
        }
        if (n + len >= cap) return -1;
        memcpy(out + n, s, len);
        n += len;
      }
      s = e;
    }
  }
  out[n] = '\0';
  return 0;
}

void ostio__pl_prefixes_add(ostio__pl_prefixes *ps, const char *norm)
{
  if (ps->n >= PL_PREFIX_MAX || !strcmp(norm, "/")) return;
  for (int i = 0; i < ps->n; i++)
    if (!strcmp(ps->p[i], norm)) return;
  char *c = strdup(norm);
  if (!c) return;
  ps->p[ps->n] = c;
  ps->len[ps->n++] = strlen(c);
}

int ostio__pl_prefixes_parse(ostio__pl_prefixes *ps, const char *spec, const char *cwd)
{
  char item[PL_PATH_MAX], norm[PL_PATH_MAX];
  while (spec && *spec) {
    const char *e = strchr(spec, ':');
    size_t len = e ? (size_t)(e - spec) : strlen(spec);
    if (len > 0 && len < sizeof item) {
      memcpy(item, spec, len);
      item[len] = '\0';
      if (ostio__pl_path_norm(cwd ? cwd : "/", item, norm, sizeof norm) == 0)
        ostio__pl_prefixes_add(ps, norm);
    }
    spec = e ? e + 1 : NULL;
  }
  return ps->n;
}

void ostio__pl_prefixes_free(ostio__pl_prefixes *ps)
{
  for (int i = 0; i < ps->n; i++) free(ps->p[i]);
  memset(ps, 0, sizeof *ps);
}

int ostio__pl_prefixes_match(const ostio__pl_prefixes *ps, const char *norm)
{
  for (int i = 0; i < ps->n; i++) {
    size_t l = ps->len[i];
    if (strncmp(norm, ps->p[i], l) != 0) continue;
    if (norm[l] == '/') return 1;
    if (norm[l] == '\0') return 2;
  }
  return 0;
}
