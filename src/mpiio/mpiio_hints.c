/* The hints an ostio open of the interposer uses (mfile.h; docs/hints.md,
 * "Through libostio-mpiio"):
 *
 *  - the system hints file, as ROMIO reads it: the file named by ROMIO_HINTS,
 *    else /etc/romio-hints; rank 0 reads it and broadcasts the bytes; lines
 *    "key value" (blank or tab separated, exactly two words; '#' in the
 *    first column is a comment; other lines are skipped); the first line of
 *    a key counts; a key the program's MPI_Info sets keeps the program's
 *    value;
 *  - values ostio refuses are dropped with one warning line on rank 0 (once
 *    per key and value per process) and the hint keeps its default, as ROMIO
 *    does, except the keys that stay errors (strict(), below). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpiio/mfile.h"

#include "core/error.h"
#include "engine/strategy.h"
#include "hints/hints.h"

#define SYSHINTS_DEFAULT "/etc/romio-hints"
#define SYSHINTS_MAX 65536 /* bytes of the file read; ROMIO reads 4096 */

/* Rank 0: the first SYSHINTS_MAX bytes of the hints file ("" when there is
 * none or it cannot be read: hints are optional, as in ROMIO). *name: the
 * file read. */
static size_t read_hints_file(char *buf, size_t cap, const char **name)
{
  const char *env = getenv("ROMIO_HINTS");
  int fd = env && *env ? open(env, O_RDONLY | O_CLOEXEC) : -1;
  *name = env;
  if (fd < 0) {
    fd = open(SYSHINTS_DEFAULT, O_RDONLY | O_CLOEXEC);
    *name = SYSHINTS_DEFAULT;
  }
  size_t n = 0;
  while (fd >= 0 && n < cap) {
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
  }
  if (fd >= 0) close(fd);
  return n;
}

static int has_key(MPI_Info info, const char *key)
{
  int len = 0, flag = 0;
  return info != MPI_INFO_NULL && MPI_Info_get_valuelen(info, key, &len, &flag) == MPI_SUCCESS &&
         flag;
}

/* Adds the lines of text (NUL-terminated, modified) to out, under user. */
static void parse_lines(char *text, MPI_Info user, MPI_Info sys)
{
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#') continue;
    char *s2 = NULL;
    char *key = strtok_r(line, " \t\r", &s2);
    char *val = key ? strtok_r(NULL, " \t\r", &s2) : NULL;
    if (!val || strtok_r(NULL, " \t\r", &s2)) continue; /* not exactly two words */
    if (strlen(key) > MPI_MAX_INFO_KEY || strlen(val) > MPI_MAX_INFO_VAL) continue;
    if (has_key(sys, key) || has_key(user, key)) continue;
    MPI_Info_set(sys, key, val);
  }
}

/* ---- warnings -------------------------------------------------------------- */

#define NSEEN 64
static struct {
  char key[64], value[64];
} seen[NSEEN];
static int nseen;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 the first time (key, value) is seen in this process (the first 63
 * bytes of each; after NSEEN pairs every one is new). */
static int first_time(const char *key, const char *value)
{
  int first = 1;
  pthread_mutex_lock(&seen_lock);
  for (int i = 0; i < nseen && first; i++)
    if (!strncmp(seen[i].key, key, 63) && !strncmp(seen[i].value, value, 63)) first = 0;
  if (first && nseen < NSEEN) {
    snprintf(seen[nseen].key, sizeof seen[nseen].key, "%s", key);
    snprintf(seen[nseen].value, sizeof seen[nseen].value, "%s", value);
    nseen++;
  }
  pthread_mutex_unlock(&seen_lock);
  return first;
}

/* Keys whose bad value stays an error (docs/hints.md, "Through
 * libostio-mpiio"): a default would silently weaken what the program asked
 * for (atomicity, durability at sync) or choose the library (ostio_mpiio);
 * an unknown ostio_ key is a typo in ostio's own namespace. */
static int strict(const char *key)
{
  static const char *const keys[] = {"ostio_atomic", "ostio_stage_sync", "ostio_mpiio", NULL};
  for (int i = 0; keys[i]; i++)
    if (!strcmp(key, keys[i])) return 1;
  return !ostio__hints_known(key);
}

/* 0 when ostio takes value for key (or the key is not ostio's), else
 * OSTIO_EHINT with the reason in ostio_last_error(). */
static int check_one(const char *key, const char *value)
{
  ostio__hints h;
  ostio__hints_init(&h);
  int rc = ostio__hints_set(&h, key, value);
  if (rc == 0 && !strcmp(key, "ostio_strategy")) rc = ostio__strategy_open(&h, NULL);
  return rc < 0 ? rc : 0;
}

typedef struct {
  char key[MPI_MAX_INFO_KEY + 1];
  char value[MPI_MAX_INFO_VAL + 1];
  char why[512];
  int from_file;
} dropped;

/* The line for d on stderr: the value the hint now has is resolved from
 * what is left (OSTIO_HINTS included). */
static void warn(const char *call, const char *path, MPI_Info left, const dropped *d,
                 const char *file)
{
  ostio__hints h;
  char now[MPI_MAX_INFO_KEY + 160] = "", v[128];
  int i = ostio__hints_index(d->key);
  if (i >= 0 && ostio__hints_resolve(path, left, &h) == 0 &&
      ostio__hints_format(&h, i, v, sizeof v) == 0)
    snprintf(now, sizeof now, ", %s is %s", d->key, v);
  char src[300] = "";
  if (d->from_file) snprintf(src, sizeof src, " (from the hints file %.255s)", file);
  fprintf(stderr, "ostio-mpiio: warning: %s %s: %s%s; ignored%s\n", call, path, d->why, src,
          now);
}

int ostio__mpiio_clean_info(const char *call, const char *path, MPI_Info info, MPI_Info sys,
                            const char *file, int report)
{
  int nkeys = 0, rc = 0;
  if (info == MPI_INFO_NULL || MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS) return 0;
  dropped *bad = nkeys ? calloc((size_t)nkeys, sizeof *bad) : NULL;
  if (nkeys && !bad) return ostio__fail(OSTIO_ENOMEM, "hints: out of memory");
  int nbad = 0;
  for (int i = 0; i < nkeys; i++) {
    dropped *d = &bad[nbad];
    int flag = 0;
    if (MPI_Info_get_nthkey(info, i, d->key) != MPI_SUCCESS) continue;
    if (MPI_Info_get(info, d->key, MPI_MAX_INFO_VAL, d->value, &flag) != MPI_SUCCESS || !flag)
      continue;
    if (check_one(d->key, d->value) == 0 || strict(d->key)) continue;
    snprintf(d->why, sizeof d->why, "%s", ostio_last_error());
    d->from_file = sys != MPI_INFO_NULL && has_key(sys, d->key);
    nbad++;
  }
  for (int i = 0; i < nbad; i++) MPI_Info_delete(info, bad[i].key);
  for (int i = 0; report && i < nbad; i++)
    if (first_time(bad[i].key, bad[i].value)) warn(call, path, info, &bad[i], file);
  free(bad);
  return rc;
}

int ostio__mpiio_open_info(MPI_Comm comm, const char *path, MPI_Info user, MPI_Info *out)
{
  *out = MPI_INFO_NULL;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  char *buf = malloc(SYSHINTS_MAX + 1);
  long len = 0;
  const char *file = "";
  if (buf && rank == 0) len = (long)read_hints_file(buf, SYSHINTS_MAX, &file);
  if (!buf) len = -1;
  /* Every rank takes part in both broadcasts, whatever its malloc did. */
  MPI_Bcast(&len, 1, MPI_LONG, 0, comm);
  char fname[1024] = "";
  if (rank == 0) snprintf(fname, sizeof fname, "%s", file ? file : "");
  MPI_Bcast(fname, sizeof fname, MPI_CHAR, 0, comm);
  char dummy[1];
  int n = len > 0 ? (int)len : 0;
  MPI_Bcast(buf ? buf : dummy, buf ? n : 0, MPI_CHAR, 0, comm);
  if (!buf || len < 0) {
    free(buf);
    return ostio__fail(OSTIO_ENOMEM, "hints: out of memory for the hints file");
  }
  buf[n] = '\0';

  MPI_Info sys = MPI_INFO_NULL, merged = MPI_INFO_NULL;
  int rc = 0;
  if (MPI_Info_create(&sys) != MPI_SUCCESS ||
      (user != MPI_INFO_NULL ? MPI_Info_dup(user, &merged) : MPI_Info_create(&merged)) !=
          MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "hints: MPI_Info_create failed");
  if (rc == 0) {
    parse_lines(buf, user, sys);
    int nk = 0;
    MPI_Info_get_nkeys(sys, &nk);
    for (int i = 0; i < nk; i++) {
      char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
      int flag = 0;
      if (MPI_Info_get_nthkey(sys, i, key) == MPI_SUCCESS &&
          MPI_Info_get(sys, key, MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS && flag)
        MPI_Info_set(merged, key, val);
    }
    rc = ostio__mpiio_clean_info("MPI_File_open", path, merged, sys, fname, rank == 0);
  }
  free(buf);
  if (sys != MPI_INFO_NULL) MPI_Info_free(&sys);
  if (rc < 0 && merged != MPI_INFO_NULL) MPI_Info_free(&merged);
  if (rc == 0) *out = merged;
  return rc;
}
