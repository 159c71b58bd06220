/* Node-local staging of a log container, the MPI side (issue 19; the on-disk
 * half is log_stage.h). At a writing open with ostio_stage_dir, every rank's
 * logs go to its node's stage directory; the node's leader (lowest rank)
 * runs a thread that drains the node's writers into the container while
 * the application computes, paced by ostio_stage_bandwidth. ostio_sync
 * copies the node's new index records to the container (so a lost node's
 * ranges are named) or, with ostio_stage_sync=drain, waits for a whole
 * drain; close always ends with a complete drain, after which the stage
 * records and files are gone and the container is an ordinary log
 * container. The thread makes no MPI call and touches no handle state but
 * its own (under a mutex shared with the leader's sync and close).
 * See docs/staging.md. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "container/log/log_file.h"
#include "container/log/log_stage.h"
#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"

struct ostio__logstage {
  char dir[OSTIO__STAGE_DIR_MAX];   /* this node's stage directory          */
  char host[OSTIO__STAGE_HOST_MAX]; /* this node's name in stage records    */
  int sdirfd;
  ostio__logw *w;                   /* this rank's writer (the handle's)    */
  MPI_Comm node;
  int leader;
  /* The leader's drain of its node's writers. */
  ostio__logdir *d;
  uint32_t session;
  uint64_t *hosts;                  /* host hash of every rank (loaders)    */
  int32_t *hostdir;                 /* per writer of the node               */
  uint32_t *writer;
  ostio__drainw *st;
  int nw;
  pthread_t th;
  int running;
  volatile int stop;
  volatile int interrupt;           /* the leader wants mu, or stop: the
                                     * thread's paced copy ends early */
  pthread_mutex_t mu;
  int64_t bw;
  /* Under mu: what the drains did, and the thread's first failure. */
  int64_t copied;
  double secs;
  int err;
  char errmsg[512];
  /* This rank's writer rescued (its staged logs gone, copied from its open
   * ones: ostio__stage_rescue): its data log's end then (-1: not rescued),
   * whether the other ranks know yet, whether rank 0 warned. */
  int64_t staged_end;
  int unshared, warned;
  int *rescued;                     /* per rank, for share_rescued          */
};

/* One pass over the node's writers; under s->mu. 1: stopped. */
static int pass(ostio__logstage *s, int index_only, ostio__throttle *t, int64_t *copied)
{
  double t0 = ostio__now();
  int rc = 0;
  for (int k = 0; rc == 0 && k < s->nw; k++)
    rc = ostio__stage_drain(s->d, s->hostdir[k], s->session, s->writer[k], s->sdirfd,
                            index_only, &s->st[k], t, copied);
  s->secs += ostio__now() - t0;
  return rc;
}

/* The bytes in the node's staged data logs now. */
static int64_t staged_now(const ostio__logstage *s)
{
  int64_t total = 0;
  for (int k = 0; k < s->nw; k++) {
    char name[64];
    struct stat st;
    snprintf(name, sizeof name, "data.%u.%u", (unsigned)s->session, (unsigned)s->writer[k]);
    if (fstatat(s->sdirfd, name, &st, 0) == 0) total += (int64_t)st.st_size;
  }
  return total;
}

static void nap(long ms)
{
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
  nanosleep(&ts, NULL);
}

/* Drains while the application computes: a pass starts only when the
 * node's staged logs did not grow for IDLE_MS, so the copies do not compete
 * with the application's writes for the node's cores and memory bandwidth
 * (a paced copy in progress also yields to the leader's sync and close). */
#define IDLE_MS 20
static void *drain_thread(void *arg)
{
  ostio__logstage *s = arg;
  ostio__throttle t;
  ostio__throttle_init(&t, s->bw, &s->interrupt);
  int64_t seen = -1;
  while (!s->stop) {
    int64_t got = 0, now = staged_now(s);
    if (s->interrupt || now != seen) { /* a pass of the leader, or writes going on */
      seen = now;
      nap(s->interrupt ? 1 : IDLE_MS);
      continue;
    }
    pthread_mutex_lock(&s->mu);
    int rc = pass(s, 0, &t, &got);
    s->copied += got;
    if (rc < 0 && !s->err) {
      s->err = rc;
      snprintf(s->errmsg, sizeof s->errmsg, "%s", ostio_last_error());
    }
    pthread_mutex_unlock(&s->mu);
    if (rc < 0) break; /* close's final drain tries again and reports */
    if (got == 0 && rc == 0) nap(IDLE_MS); /* nothing new: look again shortly */
  }
  return NULL;
}

static void stop_thread(ostio__logstage *s)
{
  if (!s->running) return;
  s->stop = 1;
  s->interrupt = 1;
  pthread_join(s->th, NULL);
  s->running = 0;
}

void ostio__logstage_free(ostio__logstage **sp)
{
  ostio__logstage *s = *sp;
  if (!s) return;
  stop_thread(s);
  pthread_mutex_destroy(&s->mu);
  if (s->sdirfd >= 0) close(s->sdirfd);
  if (s->node != MPI_COMM_NULL) MPI_Comm_free(&s->node);
  free(s->hosts);
  free(s->rescued);
  free(s->hostdir);
  free(s->writer);
  free(s->st);
  free(s);
  *sp = NULL;
}

/* This rank's node name and stage base; with the test knob
 * OSTIO_TEST_RANKS_PER_NODE=N, rank r is on "HOST#node<r/N>" with its own
 * base DIR/node.<r/N> (one machine, several "nodes"). */
static void node_identity(const ostio_file *fh, char *host, size_t hcap, char *base, size_t bcap)
{
  const char *knob = getenv("OSTIO_TEST_RANKS_PER_NODE");
  int rpn = knob ? atoi(knob) : 0;
  char h[OSTIO__STAGE_HOST_MAX] = "localhost";
  gethostname(h, sizeof h - 1);
  if (rpn > 0) {
    snprintf(host, hcap, "%s#node%d", h, fh->rank / rpn);
    snprintf(base, bcap, "%s/node.%d", fh->hints.ostio_stage_dir, fh->rank / rpn);
  } else {
    snprintf(host, hcap, "%s", h);
    snprintf(base, bcap, "%s", fh->hints.ostio_stage_dir);
  }
}

void ostio__logstage_identify(const ostio_file *fh)
{
  char host[OSTIO__STAGE_HOST_MAX], base[OSTIO__STAGE_DIR_MAX];
  node_identity(fh, host, sizeof host, base, sizeof base);
  ostio__stage_set_self(host);
}

/* Every rank's host hash (ostio__stage_host_hash of its node name) into
 * *out (malloc'ed); collective, agreed. */
static int host_hashes(const ostio_file *fh, uint64_t mine, uint64_t **out)
{
  uint64_t *hh = malloc((size_t)fh->nprocs * sizeof *hh);
  int rc = ostio__agree(fh->comm, hh ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory"));
  if (rc == 0) MPI_Allgather(&mine, 1, MPI_UINT64_T, hh, 1, MPI_UINT64_T, fh->comm);
  else free(hh);
  *out = rc == 0 ? hh : NULL;
  return rc;
}

int ostio__logstage_open(ostio_file *fh, ostio__logdir *d, uint32_t session, ostio__logw *w,
                         int32_t hostdir, ostio__logstage **out)
{
  *out = NULL;
  if (!ostio__hints_stage_dir(&fh->hints)) return 0;
  ostio__logstage *s = calloc(1, sizeof *s);
  int32_t *pairs = NULL;
  int rc = s ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory");
  if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
  s->sdirfd = -1;
  s->node = MPI_COMM_NULL;
  s->staged_end = -1;
  pthread_mutex_init(&s->mu, NULL);
  *out = s;
  char base[OSTIO__STAGE_DIR_MAX];
  node_identity(fh, s->host, sizeof s->host, base, sizeof base);
  ostio__stage_set_self(s->host);
  rc = ostio__stage_dir_open(base, fh->path, session, s->dir, sizeof s->dir, &s->sdirfd);
  int rc2 = ostio__log_node_comm(fh->comm, &s->node); /* collective: on every rank */
  if (rc == 0) rc = rc2;
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto done;
  /* The ranks of a node opened one directory: the leader's (a directory
   * swapped in between two ranks' opens is refused). */
  struct stat sb;
  uint64_t id[2] = {0, 0}, lead[2];
  if (fstat(s->sdirfd, &sb) == 0) {
    id[0] = (uint64_t)sb.st_dev;
    id[1] = (uint64_t)sb.st_ino;
  }
  memcpy(lead, id, sizeof id);
  MPI_Bcast(lead, 2, MPI_UINT64_T, 0, s->node);
  if (memcmp(lead, id, sizeof id))
    rc = ostio__fail(OSTIO_EACCES, "ostio_stage_dir: %s is not the directory the node's "
                     "first rank opened (replaced meanwhile): not used", s->dir);
  uint64_t mine = ostio__stage_host_hash(s->host);
  if ((rc = ostio__agree(fh->comm, rc)) < 0 || (rc = host_hashes(fh, mine, &s->hosts)) < 0)
    goto done;
  s->rescued = malloc((size_t)fh->nprocs * sizeof *s->rescued);
  if ((rc = ostio__agree(fh->comm, s->rescued ? 0 : ostio__fail(OSTIO_ENOMEM, "out of "
                                                                "memory"))) < 0)
    goto done;
  /* Every writer of this session is staged: readers of this job use the
   * staged logs of their own node, the container's copies for the others. */
  for (int r = 0; r < fh->nprocs && rc == 0; r++)
    rc = ostio__stage_mark(d, ostio__log_src_find(d, session, (uint32_t)r), s->hosts[r],
                           s->hosts[r] == mine ? s->sdirfd : -1);
  /* The claim made writer 0's logs in the container (empty: the drain's
   * targets); its writes go to the stage like everyone's. */
  if (rc == 0 && w->dfd >= 0) {
    rc = ostio__logw_close(w);
    ostio__logw_init(w, d, session, w->writer, hostdir);
  }
  ostio__logw_stage(w, s->sdirfd, s->dir, s->host);
  s->w = w;
  int nn = 0, me = 0;
  MPI_Comm_size(s->node, &nn);
  MPI_Comm_rank(s->node, &me);
  s->leader = me == 0;
  s->d = d;
  s->session = session;
  s->bw = fh->hints.ostio_stage_bandwidth;
  /* The leader drains its node's writers: their ids (ranks) and hostdirs. */
  int32_t pair[2] = {fh->rank, hostdir};
  if (rc == 0 && s->leader) {
    pairs = malloc(2 * (size_t)nn * sizeof *pairs);
    s->hostdir = malloc((size_t)nn * sizeof *s->hostdir);
    s->writer = malloc((size_t)nn * sizeof *s->writer);
    s->st = calloc((size_t)nn, sizeof *s->st);
    if (!pairs || !s->hostdir || !s->writer || !s->st)
      rc = ostio__fail(OSTIO_ENOMEM, "out of memory");
  }
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto done;
  MPI_Gather(pair, 2, MPI_INT32_T, pairs, 2, MPI_INT32_T, 0, s->node);
  if (s->leader) {
    s->nw = nn;
    for (int k = 0; k < nn; k++) {
      s->writer[k] = (uint32_t)pairs[2 * k];
      s->hostdir[k] = pairs[2 * k + 1];
      s->st[k].dir = s->dir;
    }
    if (pthread_create(&s->th, NULL, drain_thread, s) != 0)
      rc = ostio__fail(OSTIO_ENOMEM, "cannot start the drain thread: %s", strerror(errno));
    else s->running = 1;
  }
  rc = ostio__agree(fh->comm, rc);
done:
  free(pairs);
  if (rc < 0) ostio__logstage_free(out);
  return rc;
}

/* The leader's synchronous pass (the thread waits on the mutex meanwhile). */
static int leader_pass(ostio_file *fh, ostio__logstage *s, int index_only)
{
  int rc = 0;
  if (!s->leader) return 0;
  double t0 = ostio__now();
  int64_t got = 0;
  s->interrupt = 1; /* a paced copy of the thread gives way */
  pthread_mutex_lock(&s->mu);
  rc = pass(s, index_only, NULL, &got);
  s->copied += got;
  s->interrupt = s->stop;
  pthread_mutex_unlock(&s->mu);
  fh->stats.t[OSTIO__T_time_stage_wait] += ostio__now() - t0;
  return rc;
}

/* This rank's writer, when its staged logs are gone (the stage directory
 * removed under the job): copied from its open logs into the container,
 * finished, and unstaged from now on (ostio__stage_rescue). */
static int rescue(ostio_file *fh, ostio__logstage *s)
{
  if (!s->w || s->w->sdirfd < 0) return 0;
  int64_t got = 0, end = s->w->dend;
  double t0 = ostio__now();
  int rc = ostio__stage_rescue(s->w, &got);
  fh->stats.t[OSTIO__T_time_stage_wait] += ostio__now() - t0;
  if (rc == 1) {
    s->staged_end = end;
    s->unshared = 1;
    ostio__stat_add(&fh->stats, OSTIO__STAT_stage_rescued_bytes, got);
  }
  return rc < 0 ? rc : 0;
}

/* Each rank rescues its writer if its staged logs are gone, then the
 * leader's pass (final: the thread stopped first). A staged log the pass
 * finds missing that its writer had not seen gone (removed in between) is
 * rescued by its writer and the pass runs once more: the leader never
 * copies a writer that its own rank copies (the writer's record goes before
 * the leader's next pass, which then has nothing of it to copy). */
static int rescue_and_pass(ostio_file *fh, ostio__logstage *s, int index_only, int final)
{
  int rc = 0, rc2 = 0;
  for (int round = 0;; round++) {
    int r = rescue(fh, s);
    if (r < 0 && rc == 0) rc = r;
    MPI_Barrier(s->node); /* every rank's records are in its staged index, or rescued */
    if (final && s->leader) stop_thread(s);
    rc2 = leader_pass(fh, s, index_only);
    int again = round == 0 && rc == 0 && rc2 == OSTIO_ESTAGED;
    MPI_Bcast(&again, 1, MPI_INT, 0, s->node);
    if (!again) break;
    if (s->leader) ostio__clear_error();
  }
  return rc < 0 ? rc : rc2;
}

/* Every rank learns which writers were rescued: their srcs are no longer
 * staged (reads go to the container's copies, complete now); rank 0 says so
 * once on stderr. Collective. */
static void share_rescued(ostio_file *fh, ostio__logstage *s)
{
  int n = 0;
  MPI_Allgather(&s->unshared, 1, MPI_INT, s->rescued, 1, MPI_INT, fh->comm);
  s->unshared = 0;
  for (int r = 0; r < fh->nprocs; r++)
    if (s->rescued[r]) {
      n++;
      ostio__stage_unmark(s->d, ostio__log_src_find(s->d, s->session, (uint32_t)r));
    }
  if (n && fh->rank == 0 && !s->warned) {
    s->warned = 1;
    fprintf(stderr, "ostio: warning: %s: the stage directory of %d of %d writers was removed "
            "during the job (rank 0's is %s); their bytes were copied from their open "
            "staged logs into the container, nothing is lost, and they now write to the "
            "container directly (unstaged)\n", fh->path, n, fh->nprocs, s->dir);
  }
}

int ostio__logstage_sync(ostio_file *fh, ostio__logstage *s)
{
  if (!s) return 0;
  int rc = rescue_and_pass(fh, s, fh->hints.ostio_stage_sync != OSTIO__STAGE_SYNC_DRAIN, 0);
  rc = ostio__agree(fh->comm, rc);
  share_rescued(fh, s);
  return rc;
}

int ostio__logstage_close(ostio_file *fh, ostio__logstage **sp)
{
  ostio__logstage *s = *sp;
  if (!s) return 0;
  int rc = rescue_and_pass(fh, s, 0, 1); /* every writer of the node has flushed its logs */
  share_rescued(fh, s);
  if (s->leader) {
    for (int k = 0; rc == 0 && k < s->nw; k++)
      rc = ostio__stage_unrecord(s->d, s->hostdir[k], s->session, s->writer[k]);
    ostio__stat_add(&fh->stats, OSTIO__STAT_stage_drained_bytes, s->copied);
    fh->stats.t[OSTIO__T_time_stage_drain] += s->secs;
  }
  ostio__stat_add(&fh->stats, OSTIO__STAT_stage_bytes,
                  s->staged_end >= 0 ? s->staged_end : s->w->dend);
  /* A rescued writer wrote the container's logs directly since: durable
   * now, like the drained ones. */
  if (rc == 0 && s->staged_end >= 0) rc = ostio__logw_sync(s->w);
  int rc2 = ostio__logw_close(s->w);
  if (rc == 0) rc = rc2;
  /* Every rank frees its own staged logs, in parallel (freeing a large
   * file's pages takes time: 0.13 s per 512 MiB on tmpfs here). */
  if ((rc = ostio__agree(fh->comm, rc)) == 0) {
    rc = ostio__stage_discard(fh->path, s->session, (uint32_t)fh->rank, s->sdirfd);
    MPI_Barrier(s->node);
    if (rc == 0 && s->leader && rmdir(s->dir) < 0 && errno != ENOENT && errno != ENOTEMPTY)
      rc = ostio__fail(ostio__from_errno(errno), "cannot remove the stage directory %s: %s",
                       s->dir, strerror(errno));
    rc = ostio__agree(fh->comm, rc);
  }
  ostio__logstage_free(sp);
  return rc;
}

/* For each staged src of the listing, the lowest rank on the node that
 * holds it (-1: none in this job); *out NULL when nothing is staged.
 * Collective (the listing is the same on every rank). */
int ostio__logstage_loaders(ostio_file *fh, const ostio__logdir *d, const ostio__logstage *s,
                            int **out)
{
  size_t nst = 0;
  *out = NULL;
  for (size_t i = 0; i < d->nsrc; i++) nst += (d->src[i].flags & OSTIO__LOGSRC_STAGED) != 0;
  if (nst == 0) return 0;
  ostio__logstage_identify(fh);
  /* A staging open gathered the host hashes already (ostio__logstage_open). */
  uint64_t *hh = NULL;
  int *who = malloc((d->nsrc + 1) * sizeof *who);
  int rc = ostio__agree(fh->comm, who ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory"));
  if (rc == 0 && !s) rc = host_hashes(fh, ostio__stage_host_hash(ostio__stage_self()), &hh);
  const uint64_t *hosts = s ? s->hosts : hh;
  for (size_t i = 0; rc == 0 && i < d->nsrc; i++) {
    who[i] = -1;
    for (int r = 0; (d->src[i].flags & OSTIO__LOGSRC_STAGED) && r < fh->nprocs; r++)
      if (d->src[i].stage_host && hosts[r] == d->src[i].stage_host) {
        who[i] = r;
        break;
      }
  }
  if (rc == 0) {
    *out = who;
    who = NULL;
  }
  free(hh);
  free(who);
  return rc;
}
