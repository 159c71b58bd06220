/* The distance between two hint names (hints.h): what the suggestion for an
 * unknown key ("did you mean ...") is measured with. Pure. */
#include <ctype.h>
#include <string.h>

#include "hints/hints.h"

#define DIST_MAXLEN 64 /* longer keys are compared on their first 64 bytes */

int ostio__hints_edit_distance(const char *a, const char *b)
{
  /* Optimal string alignment over three rows; keys are short. */
  int d[3][DIST_MAXLEN + 1];
  size_t n = a ? strnlen(a, DIST_MAXLEN) : 0, m = b ? strnlen(b, DIST_MAXLEN) : 0;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++) {
    int *cur = d[i % 3], *prev = d[(i - 1) % 3], *prev2 = d[(i + 1) % 3];
    cur[0] = (int)i;
    for (size_t j = 1; j <= m; j++) {
      int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
      int v = prev[j - 1] + (ca != cb);
      if (prev[j] + 1 < v) v = prev[j] + 1;
      if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < v)
        v = prev2[j - 2] + 1;
      cur[j] = v;
    }
  }
  return d[n % 3][m];
}
