/* Log containers with ostio_log_writers=node (issue 6): the ranks of a node
 * funnel their write_all bytes through the node's leader (its lowest rank),
 * which appends them to its own data log. Nodes are MPI_COMM_TYPE_SHARED,
 * or blocks of OSTIO_TEST_RANKS_PER_NODE consecutive ranks when that test
 * knob is set (so one machine has several "nodes").
 *
 *  - the random model test of logmodel.c (independent + collective writes,
 *    syncs, set_size, sessions; read back on the same ranks, another rank
 *    count, serially, flatten, compact) with writers=node and cb_buffer_size
 *    small enough that every funnelled write_all takes several rounds;
 *  - the files on disk: collective-only sessions leave exactly one data log
 *    and one index log per node (writer id = the leader's rank); an
 *    independent write of a non-leader adds one pair (its own rank);
 *  - OSTIO_FAULT on a leader's first data pwrite: the write_all fails with
 *    the same code on every rank (no hang), nothing of it becomes visible,
 *    the handle stays usable. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colltest.h"
#include "container/log/log.h"
#include "logmodel.h"

static int rank, nprocs, nnodes;
static int *leader_of; /* leader_of[r]: the world rank of r's node leader */

static void find_nodes(void)
{
  const char *s = getenv("OSTIO_TEST_RANKS_PER_NODE");
  int rpn = s ? atoi(s) : 0, lead = rank;
  leader_of = ct_xmalloc((size_t)nprocs * sizeof *leader_of);
  if (rpn > 0) {
    lead = rank / rpn * rpn;
  } else {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Allreduce(&rank, &lead, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
  }
  MPI_Allgather(&lead, 1, MPI_INT, leader_of, 1, MPI_INT, MPI_COMM_WORLD);
  nnodes = 0;
  for (int r = 0; r < nprocs; r++) nnodes += leader_of[r] == r;
}

/* Rank 0: the logs of the container's last session are exactly one pair per
 * node leader plus one for `extra` (>= 0), complete (data and index). */
static void check_logs(const char *path, int extra, const char *what)
{
  if (rank != 0) return;
  ostio__logdir *d = NULL;
  int rc = ostio__log_open(path, NULL, 0, &d);
  if (rc == 0) rc = ostio__log_scan(d);
  CHECKF(rc == 0, "%s: %s", what, ostio_last_error());
  if (rc < 0) return;
  CHECK(d->m.writers == OSTIO__LOG_WRITERS_NODE);
  int n = 0, want = nnodes + (extra >= 0);
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (s->session != d->max_session) continue;
    n++;
    int w = (int)s->writer;
    CHECKF(w < nprocs && (leader_of[w] == w || w == extra), "%s: writer %d is neither a node "
           "leader nor the independent writer %d", what, w, extra);
    CHECKF((s->flags & (OSTIO__LOGSRC_DATA | OSTIO__LOGSRC_INDEX)) ==
           (OSTIO__LOGSRC_DATA | OSTIO__LOGSRC_INDEX) && s->data_size > 0 && s->index_size > 0,
           "%s: writer %d: flags %d, %lld data bytes, %lld index bytes", what, w, s->flags,
           (long long)s->data_size, (long long)s->index_size);
  }
  CHECKF(n == want, "%s: %d log pairs in session %u, want %d (%d nodes%s)", what, n,
         d->max_session, want, nnodes, extra >= 0 ? " + 1 independent writer" : "");
  ostio__log_close(&d);
}

static void test_files(const char *dir, uint64_t seed)
{
  char path[600];
  snprintf(path, sizeof path, "%s/count.log", dir);
  lm_reset();
  ostio_file *fh = NULL;
  /* Session 1: collective writes only (the checkpoint case). */
  CHECKF(lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                 "ostio_log_writers=node", &fh) == 0, "%s", ostio_last_error());
  if (!fh) return;
  lm_blocks(fh, 1, 1000, 3000); /* every node writes */
  lm_session(fh, seed, 2, 20, 0);
  CHECK(ostio_sync(fh) == 0);
  lm_verify(fh, MPI_COMM_WORLD, "collective only");
  CHECK(ostio_close(&fh) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  check_logs(path, -1, "collective only");
  /* Session 2: also an independent write of a non-leader (the last rank
   * that is not one), which gets its own pair of logs. */
  int extra = -1;
  for (int r = 0; r < nprocs; r++)
    if (leader_of[r] != r) extra = r;
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, NULL, &fh) == 0);
  if (!fh) return;
  lm_blocks(fh, 101, 5000, 2000);
  if (extra >= 0) lm_write_at(fh, 102, extra, 4500, 1500);
  lm_write_at(fh, 102, 0, 4000, 1000); /* a leader's independent write: its own log */
  lm_flush();
  CHECK(ostio_sync(fh) == 0);
  lm_blocks(fh, 103, 7000, 100);
  lm_verify(fh, MPI_COMM_WORLD, "independent write");
  CHECK(ostio_close(&fh) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  check_logs(path, extra, "independent write");
  if (rank == 0) lm_serial_check(path, "files, serial");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                   MPI_INFO_NULL, &fh) == 0);
  if (fh) lm_verify(fh, MPI_COMM_WORLD, "files, reopened"), CHECK(ostio_close(&fh) == 0);
}

/* The last node's leader fails its first data pwrite. */
static void test_fault(const char *dir)
{
  char path[600], spec[64];
  snprintf(path, sizeof path, "%s/fault.log", dir);
  int victim = leader_of[nprocs - 1];
  snprintf(spec, sizeof spec, "write:%d:1:EIO", victim);
  lm_reset();
  ostio_file *fh = NULL;
  setenv("OSTIO_FAULT", spec, 1);
  int rc = lm_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                   "ostio_log_writers=node cb_buffer_size=1000", &fh);
  unsetenv("OSTIO_FAULT");
  CHECKF(rc == 0, "%s", ostio_last_error());
  if (!fh) return;
  /* Only the victim's node writes, so none of it may become visible. */
  char buf[2500];
  memset(buf, 'x', sizeof buf);
  ostio_extent e = {20000 + (int64_t)rank * 2500, 2500};
  rc = ostio_write_all(fh, &e, leader_of[rank] == victim, buf);
  int all[2] = {rc, -rc}, agreed[2];
  MPI_Allreduce(all, agreed, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECKF(rc == OSTIO_EIO && agreed[0] == -agreed[1] && strstr(ostio_last_error(), "injected"),
         "rc %d (%s): %s", rc, ostio_errname(rc), ostio_last_error());
  lm_blocks(fh, 1, 0, 1500); /* the handle stays usable */
  lm_verify(fh, MPI_COMM_WORLD, "after a failed leader");
  CHECK(ostio_close(&fh) == 0);
  CHECK(lm_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, NULL, &fh) ==
        0);
  if (fh) lm_verify(fh, MPI_COMM_WORLD, "fault, reopened"), CHECK(ostio_close(&fh) == 0);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  lm_init(&rank, &nprocs);
  find_nodes();
  uint64_t seed = ct_seed(MPI_COMM_WORLD, 6066);
  char dir[512];
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "lognode") < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  for (int i = 0; i < rounds; i++)
    lm_test_random(dir, ct_mix(seed, (uint64_t)i), "ostio_log_writers=node cb_buffer_size=3000");
  test_files(dir, ct_mix(seed, 99));
  test_fault(dir);
  if (rank == 0)
    printf("writers=node: %d ranks on %d nodes, seed %llu\n", nprocs, nnodes,
           (unsigned long long)seed);
  free(leader_of);
  ct_rmtree(MPI_COMM_WORLD, dir);
  int status = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return status;
}
