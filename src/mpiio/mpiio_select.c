/* Which files the interposer takes (mfile.h): OSTIO_MPIIO_PATHS prefixes and
 * the hint ostio_mpiio. The prefix rule is pure; the hint reads an MPI_Info. */
#include <string.h>
#include <strings.h>

#include "mpiio/mfile.h"

int ostio__mpiio_path_selected(const char *path, const char *paths)
{
  if (!path || !paths) return 0;
  const char *p = paths;
  while (*p) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    /* "/a/b/" and "/a/b" are the same prefix. */
    size_t m = n;
    while (m > 1 && p[m - 1] == '/') m--;
    if (m > 0 && strncmp(path, p, m) == 0 &&
        (path[m] == '\0' || path[m] == '/' || (m == 1 && p[0] == '/')))
      return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

int ostio__mpiio_hint(MPI_Info info)
{
  if (info == MPI_INFO_NULL) return -1;
  char v[32];
  int flag = 0;
  if (MPI_Info_get(info, "ostio_mpiio", (int)sizeof v - 1, v, &flag) != MPI_SUCCESS || !flag)
    return -1;
  if (!strcasecmp(v, "enable") || !strcasecmp(v, "true") || !strcmp(v, "1")) return 1;
  if (!strcasecmp(v, "disable") || !strcasecmp(v, "false") || !strcmp(v, "0")) return 0;
  if (!strcasecmp(v, "automatic")) return -1;
  return -2;
}
