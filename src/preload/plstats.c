/* Statistics of the files the preload serves (issue 31): each process
 * counts its calls on each container (backend.c) and, when OSTIO_STATS asks,
 * reports them at the container's last close in this process and at exit:
 * OSTIO_STATS=1 prints the text report on stderr, json:PATH writes this
 * process's own document (format ostio-stats, "process": {"kind":
 * "preload", ...}) at PATH.preload.HOST.PID.START.json, rewritten whole at
 * each report. Host, pid and the process's start time in the name keep the
 * processes of a job apart on any number of nodes (pids repeat across
 * nodes, and on one node once they wrap); `ostio report PATH` merges them
 * with PATH's own document (docs/stats.md, "Preloaded programs").
 * Statistics never break the program: a bad setting or a failed write warns
 * once per process on stderr. No MPI. */
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "preload/preload.h"
#include "stats/stats.h"

/* One container this process used: its path and its counts so far. */
typedef struct plfile {
  char *path;
  ostio__stats st;
} plfile;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static plfile *files;
static int nfiles, capfiles;
static ostio__stats overflow;        /* files beyond OSTIO__STATS_MAX_FILES   */
static int have_overflow;
static long owner;                   /* the pid the table belongs to          */
static long long start_us;           /* the process's start, for the file name */
static int warned_spec, warned_write;

static void warn_once(int *flag, const char *what)
{
  if (*flag) return;
  *flag = 1;
  fprintf(stderr, "ostio: warning: %s; the statistics are skipped and the program goes on "
          "(said once per process)\n", what);
  fflush(stderr);
}

/* The table follows the process: a forked child starts its own (the
 * parent's counts are the parent's). Under mu. */
static void own_table(void)
{
  long pid = (long)getpid();
  if (owner == pid) return;
  for (int i = 0; i < nfiles; i++) free(files[i].path);
  free(files);
  files = NULL;
  nfiles = capfiles = 0;
  have_overflow = 0;
  memset(&overflow, 0, sizeof overflow);
  owner = pid;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  start_us = (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t sat_add(int64_t a, int64_t b)
{
  return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b; /* counts are never negative */
}

static void add_into(ostio__stats *a, const ostio__stats *b)
{
  /* The application pieces' stride and largest piece are not sums: the
   * first stride seen, the largest piece. */
  static const ostio__stat_id keep[] = {OSTIO__STAT_app_write_stride, OSTIO__STAT_app_read_stride,
                                        OSTIO__STAT_app_write_piece_max,
                                        OSTIO__STAT_app_read_piece_max};
  int64_t was[4];
  for (int i = 0; i < 4; i++) was[i] = a->c[keep[i]];
  for (int i = 0; i < OSTIO__NCOUNTER; i++) a->c[i] = sat_add(a->c[i], b->c[i]);
  for (int i = 0; i < 4; i++) {
    int64_t v = b->c[keep[i]];
    a->c[keep[i]] = i < 2 ? (was[i] ? was[i] : v) : (was[i] > v ? was[i] : v);
  }
  for (int i = 0; i < OSTIO__NTIMER; i++) a->t[i] += b->t[i];
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < OSTIO__STATS_NHIST; k++) {
      a->hist[w][k] = sat_add(a->hist[w][k], b->hist[w][k]);
      a->phist[w][k] = sat_add(a->phist[w][k], b->phist[w][k]);
    }
}

/* Adds st to path's entry. Under mu. */
static void remember(const char *path, const ostio__stats *st)
{
  for (int i = 0; i < nfiles; i++)
    if (!strcmp(files[i].path, path)) {
      add_into(&files[i].st, st);
      return;
    }
  if (nfiles == capfiles && nfiles < OSTIO__STATS_MAX_FILES) {
    int cap = capfiles ? 2 * capfiles : 8;
    plfile *n = realloc(files, (size_t)cap * sizeof *n);
    if (n) {
      files = n;
      capfiles = cap;
    }
  }
  char *p = nfiles < capfiles ? strdup(path) : NULL;
  if (!p) { /* beyond the listed files (or out of memory): in the summary only */
    add_into(&overflow, st);
    have_overflow = 1;
    return;
  }
  files[nfiles].path = p;
  memset(&files[nfiles].st, 0, sizeof files[nfiles].st);
  add_into(&files[nfiles].st, st);
  nfiles++;
}

static void host_name(char *buf, size_t cap)
{
  if (gethostname(buf, cap) != 0 || !buf[0]) snprintf(buf, cap, "unknown-host");
  buf[cap - 1] = '\0';
  for (char *c = buf; *c; c++)
    if (*c == '/' || (unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e) *c = '_';
}

static void info_of(const char *path, ostio__stats_info *info)
{
  memset(info, 0, sizeof *info);
  info->path = path;
  info->nprocs = 1;
  info->layout_source = "preload";
  info->strategy = "posix";
}

/* Rewrites this process's document at PATH.preload.HOST.PID.START.json.
 * Under mu. */
static void write_json(const char *spec)
{
  char path[4096], name[4096 + 400], host[256], why[700];
  ostio__stats_jobid id;
  ostio__stats_jobid_env(&id);
  if (ostio__stats_expand_path(spec + 5, &id, path, sizeof path) < 0) {
    warn_once(&warned_spec, "OSTIO_STATS: the path is too long once expanded");
    return;
  }
  host_name(host, sizeof host);
  int n = snprintf(name, sizeof name, "%s.preload.%s.%ld.%lld.json", path, host, id.pid,
                   start_us);
  if (n < 0 || (size_t)n >= sizeof name) {
    warn_once(&warned_spec, "OSTIO_STATS: the path is too long once expanded");
    return;
  }
  ostio__stats_job *job = ostio__stats_job_new(&id, OSTIO__STATS_MAX_FILES);
  char *doc = NULL;
  int rc = job ? ostio__stats_job_set_host(job, host) : OSTIO_ENOMEM;
  ostio__stats_info info;
  for (int i = 0; rc == 0 && i <= nfiles; i++) {
    const ostio__stats *st = i < nfiles ? &files[i].st : have_overflow ? &overflow : NULL;
    if (!st) break;
    ostio__stats_reduced r;
    ostio__stats_reduced_init(&r);
    ostio__stats_fold_rank(&r, st, 0);
    ostio__stats_rank me;
    ostio__stats_rank_of(st, 0, &me);
    info_of(i < nfiles ? files[i].path : "(files beyond the listed ones)", &info);
    rc = ostio__stats_job_add_ranks(job, &r, &info, &me, 1);
  }
  if (rc == 0) rc = ostio__stats_job_format(job, &doc);
  if (rc < 0) warn_once(&warned_write, "OSTIO_STATS: out of memory for the statistics");
  else if (ostio__stats_write_doc(name, doc, why, sizeof why) != 0) warn_once(&warned_write, why);
  free(doc);
  ostio__stats_job_free(job);
}

static void write_text(const char *path, const ostio__stats *st)
{
  ostio__stats_reduced r;
  ostio__stats_info info;
  char *doc = NULL;
  ostio__stats_reduced_init(&r);
  ostio__stats_fold_rank(&r, st, 0);
  info_of(path, &info);
  if (ostio__stats_format_text(&r, &info, &doc) == 0) {
    fputs(doc, stderr);
    fflush(stderr);
  } else {
    warn_once(&warned_write, "OSTIO_STATS: out of memory for the statistics");
  }
  free(doc);
}

void ostio__pl_stats_report(const char *path, const ostio__stats *st)
{
  const char *spec = getenv("OSTIO_STATS");
  int mode = OSTIO__STATS_OFF;
  char why[700], saved[512];
  if (!spec || !*spec || !strcmp(spec, "0")) return;
  snprintf(saved, sizeof saved, "%s", ostio_last_error());
  pthread_mutex_lock(&mu);
  own_table();
  if (ostio__stats_parse_spec(spec, &mode, why, sizeof why) < 0) {
    warn_once(&warned_spec, why);
  } else if (mode == OSTIO__STATS_TEXT) {
    write_text(path, st);
  } else if (mode == OSTIO__STATS_JSON) {
    remember(path, st);
    write_json(spec);
  }
  pthread_mutex_unlock(&mu);
  ostio__set_detail(saved);
}
