/* Statistics at close: OSTIO_STATS and its PATH patterns, the collective
 * reduction to rank 0, and writing the report (text on stderr, or the job's
 * JSON document replaced atomically); failures warn once, never fail the
 * application (docs/stats.md). Split from stats.c. */
#include "stats/stats.h"


#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/error.h"
#include "core/fdio.h"
#include "core/strbuf.h"
#include "stats/stats_impl.h"

void ostio__stats_jobid_get(ostio__stats_jobid *id)
{
  ostio__stats_jobid_env(id);
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) {
    MPI_Comm_rank(MPI_COMM_WORLD, &id->world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &id->world_size);
  }
}

/* ---- the collective report ------------------------------------------------ */

/* MPI reduction operator over ostio__stats_reduced (a contiguous type of
 * sizeof bytes, so MPI never splits one element). memcpy: MPI's buffers
 * need not be aligned for int64_t. */
static void merge_op(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
  ostio__stats_reduced a, b;
  char *in = invec, *io = inoutvec;
  (void)type;
  for (int i = 0; i < *len; i++) {
    memcpy(&a, io + (size_t)i * sizeof a, sizeof a);
    memcpy(&b, in + (size_t)i * sizeof b, sizeof b);
    ostio__stats_merge(&a, &b);
    memcpy(io + (size_t)i * sizeof a, &a, sizeof a);
  }
}

/* Folds every rank's stats into *all on rank 0; on a communicator of at
 * most OSTIO__STATS_GATHER_RANKS ranks also gathers each rank's record into
 * *ranks (rank 0: malloc'ed, *nranks of them; NULL when not gathered or out
 * of memory: the report then has no per-rank list). 0, or -1 when MPI
 * failed. */
static int reduce_to_root(MPI_Comm comm, const ostio__stats *s, ostio__stats_reduced *all,
                          ostio__stats_rank **ranks, int *nranks)
{
  ostio__stats_reduced mine;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int rc = 0, rank = 0, size = 0;
  *ranks = NULL;
  *nranks = 0;
  ostio__stats_reduced_init(&mine);
  ostio__stats_reduced_init(all);
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return -1;
  ostio__stats_fold_rank(&mine, s, rank);
  if (size <= OSTIO__STATS_GATHER_RANKS) {
    /* Every rank takes part whatever rank 0's malloc gave (a NULL receive
     * buffer is refused by MPI at the root only: one byte on failure). */
    ostio__stats_rank me, one;
    ostio__stats_rank_of(s, rank, &me);
    ostio__stats_rank *buf = NULL;
    if (rank == 0) buf = malloc((size_t)size * sizeof *buf);
    int ok = rank != 0 || buf != NULL;
    if (MPI_Bcast(&ok, 1, MPI_INT, 0, comm) != MPI_SUCCESS) {
      free(buf);
      return -1;
    }
    if (ok) {
      if (MPI_Gather(&me, (int)sizeof me, MPI_BYTE, rank == 0 ? (void *)buf : (void *)&one,
                     (int)sizeof me, MPI_BYTE, 0, comm) != MPI_SUCCESS) {
        free(buf);
        return -1;
      }
      *ranks = buf;
      *nranks = rank == 0 ? size : 0;
    }
  }
  if (MPI_Type_contiguous((int)sizeof mine, MPI_BYTE, &type) != MPI_SUCCESS ||
      MPI_Type_commit(&type) != MPI_SUCCESS || MPI_Op_create(merge_op, 1, &op) != MPI_SUCCESS ||
      MPI_Reduce(&mine, all, 1, type, op, 0, comm) != MPI_SUCCESS)
    rc = -1;
  if (op != MPI_OP_NULL) MPI_Op_free(&op);
  if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  if (rc < 0) {
    free(*ranks);
    *ranks = NULL;
    *nranks = 0;
  }
  return rc;
}

/* The process's state: its job document (for the expanded PATH it was
 * made for) and whether it warned. One lock: threads may close files. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static ostio__stats_job *cur_job;
static char *cur_path;
static int warned_spec, warned_write;

void ostio__stats_reset(void)
{
  pthread_mutex_lock(&state_lock);
  ostio__stats_job_free(cur_job);
  cur_job = NULL;
  free(cur_path);
  cur_path = NULL;
  warned_spec = warned_write = 0;
  pthread_mutex_unlock(&state_lock);
}

/* The documented exception to "the library never prints": one line, once
 * per process and kind (state_lock held). */
static void warn_once(int *flag, const char *what)
{
  if (*flag) return;
  *flag = 1;
  fprintf(stderr, "ostio: warning: %s; the statistics are skipped and the application goes "
          "on (said once per process)\n", what);
  fflush(stderr);
}

/* Rank 0: adds the file to the job document of path and rewrites it. */
static void emit_json(const char *path, const ostio__stats_reduced *all,
                      const ostio__stats_info *info, const ostio__stats_jobid *id,
                      const ostio__stats_rank *ranks, int nranks)
{
  char why[700];
  char *doc = NULL;
  if (!cur_path || strcmp(cur_path, path) != 0) {
    ostio__stats_job_free(cur_job);
    free(cur_path);
    cur_job = ostio__stats_job_new(id, OSTIO__STATS_MAX_FILES);
    cur_path = strdup(path);
    if (!cur_job || !cur_path) {
      ostio__stats_job_free(cur_job);
      free(cur_path);
      cur_job = NULL;
      cur_path = NULL;
      warn_once(&warned_write, "OSTIO_STATS: out of memory for the statistics");
      return;
    }
  }
  /* The job's identity follows the writer (its pid changes after a fork). */
  ostio__stats_job_set_id(cur_job, id);
  char saved[512];
  snprintf(saved, sizeof saved, "%s", ostio_last_error());
  int rc = ostio__stats_job_add_ranks(cur_job, all, info, ranks, nranks);
  if (rc == 0) rc = ostio__stats_job_format(cur_job, &doc);
  if (rc < 0) {
    warn_once(&warned_write, ostio_last_error());
  } else if (ostio__stats_write_doc(path, doc, why, sizeof why) != 0) {
    warn_once(&warned_write, why);
  }
  ostio__set_detail(saved);
  free(doc);
}

static void emit_text(const ostio__stats_reduced *all, const ostio__stats_info *info)
{
  char *doc = NULL;
  char saved[512];
  snprintf(saved, sizeof saved, "%s", ostio_last_error());
  if (ostio__stats_format_text(all, info, &doc) == 0) {
    fputs(doc, stderr); /* nowhere to say that stderr failed */
    fflush(stderr);
  } else {
    warn_once(&warned_write, ostio_last_error());
  }
  ostio__set_detail(saved);
  free(doc);
}

int ostio__stats_report(MPI_Comm comm, const ostio__stats *s, const ostio__stats_info *info,
                        const char *spec)
{
  int mode = OSTIO__STATS_OFF, rank = 0, initialized = 0, finalized = 0;
  int rc = s ? 0 : ostio__fail(OSTIO_EINVAL, "statistics report: NULL statistics; pass this "
                                "rank's");
  if (comm == MPI_COMM_NULL)
    return rc < 0 ? rc : ostio__fail(OSTIO_EINVAL, "statistics report: MPI_COMM_NULL given; "
                                     "pass the file's communicator");
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return rc < 0 ? rc : ostio__fail(OSTIO_EMPI, "statistics report: MPI is not initialized "
                                     "(call between MPI_Init and MPI_Finalize)");
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "statistics report: MPI_Comm_rank failed");

  /* Misuse (NULL statistics) is agreed; then rank 0's setting decides, the
   * others' are not looked at. */
  rc = ostio__agree(comm, rc);
  if (rc < 0) return rc;
  char why[700], path[4096];
  ostio__stats_jobid id;
  if (rank == 0) {
    if (ostio__stats_parse_spec(spec, &mode, why, sizeof why) < 0) {
      pthread_mutex_lock(&state_lock);
      warn_once(&warned_spec, why);
      pthread_mutex_unlock(&state_lock);
    } else if (mode == OSTIO__STATS_JSON) {
      ostio__stats_jobid_get(&id);
      int erc = ostio__stats_expand_path(spec + 5, &id, path, sizeof path);
      if (erc < 0) {
        char q[80];
        ostio__stats_quote(q, sizeof q, spec);
        snprintf(why, sizeof why, "OSTIO_STATS=\"%s\": the path is too long once expanded", q);
        pthread_mutex_lock(&state_lock);
        warn_once(&warned_spec, why);
        pthread_mutex_unlock(&state_lock);
        mode = OSTIO__STATS_OFF;
      }
    }
  }
  if (MPI_Bcast(&mode, 1, MPI_INT, 0, comm) != MPI_SUCCESS || mode == OSTIO__STATS_OFF)
    return 0;

  ostio__stats_reduced all;
  ostio__stats_rank *ranks = NULL;
  int nranks = 0;
  if (reduce_to_root(comm, s, &all, &ranks, &nranks) != 0) {
    if (rank == 0) {
      pthread_mutex_lock(&state_lock);
      warn_once(&warned_write, "OSTIO_STATS: reducing the statistics to rank 0 failed");
      pthread_mutex_unlock(&state_lock);
    }
    return 0;
  }
  if (rank != 0) return 0;
  pthread_mutex_lock(&state_lock);
  if (mode == OSTIO__STATS_JSON) emit_json(path, &all, info, &id, ranks, nranks);
  else emit_text(&all, info);
  pthread_mutex_unlock(&state_lock);
  free(ranks);
  return 0;
}
