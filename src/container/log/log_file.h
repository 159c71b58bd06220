/* Shared by log/log_file.c (the MPI side of log containers) and log/log_file_node.c
 * (writers=node: the funnel of write_all through a node leader). Internal. */
#ifndef OSTIO_FILE_FILE_LOG_H
#define OSTIO_FILE_FILE_LOG_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "container/log/log.h"
#include "io/io.h"
#include "plan/plan.h"

/* One extent of a write_all, checked (ostio__plan_local); pos is its place
 * in the buffer. */
typedef ostio__ext ostio__lext;

/* The node communicator of comm: MPI_COMM_TYPE_SHARED, or, when the test
 * knob OSTIO_TEST_RANKS_PER_NODE=N is set, ranks r with equal r / N (so one
 * machine can have several "nodes"). Ranks keep comm's order: node rank 0
 * is the node's lowest rank, its leader. Collective on comm. */
int ostio__log_node_comm(MPI_Comm comm, MPI_Comm *node);

/* writers=node: the write_all part of one rank. Every rank of `node` sends
 * its extents e[0..n) (sorted by offset, bytes in buf) to the leader in
 * rounds of at most `round` bytes for the whole node (MPI_Gatherv); the
 * leader appends each round to its data log (w, through io), then, once
 * every byte is there, adds the pieces to w's compressor with seq, in rank
 * order and, within a rank, in e's order. The outcome is agreed over node;
 * no rank waits for a leader that failed. */
int ostio__log_funnel(MPI_Comm node, ostio__io *io, ostio__logw *w, uint64_t seq,
                      int64_t round, const ostio__lext *e, size_t n, const char *buf);

/* The entry of a collective event of a log handle (log/log_file_seq.c):
 * agrees on rc as ostio__agree does and, in the same Allreduce, on the seq
 * the handle's ranks carry from now on, one above the largest seq any of
 * their processes issued or saw for the container (clk) and above *cur; the
 * clock then records it as issued by `who`. A handle that does not write
 * (writable 0) only takes the maximum. docs/containers.md, "The ordering
 * rule". */
int ostio__log_advance(MPI_Comm comm, int rank, ostio__logclock *clk, const void *who,
                       int writable, uint64_t *cur, int rc);

/* Node-local staging (log/log_file_stage.c, docs/staging.md). NULL when the
 * handle does not stage. All collective on the handle's communicator. */
struct ostio_file;
typedef struct ostio__logstage ostio__logstage;
/* At a writing open, after the session is claimed and the writers' srcs
 * are listed: with ostio_stage_dir set, w's logs go to the node's stage
 * directory and the node leader's drain thread starts; *out stays NULL
 * without the hint. */
int ostio__logstage_open(struct ostio_file *fh, ostio__logdir *d, uint32_t session,
                         ostio__logw *w, int32_t hostdir, ostio__logstage **out);
/* After every rank synced its logs: the node's new index records reach the
 * container, and with ostio_stage_sync=drain every staged byte. A rank
 * whose staged logs are gone (the stage directory removed under the job)
 * first copies them from its open logs into the container and goes on
 * unstaged (ostio__stage_rescue); every rank then reads that writer from
 * the container. */
int ostio__logstage_sync(struct ostio_file *fh, ostio__logstage *s);
/* After every rank flushed its logs (still open): the rescue of gone
 * staged logs as at sync, the complete drain, the writer's logs closed,
 * then the stage records and files go; frees *s. */
int ostio__logstage_close(struct ostio_file *fh, ostio__logstage **s);
/* Sets this rank's node name for staging (ostio__stage_self): the host
 * name, or the test knob's simulated node. */
void ostio__logstage_identify(const struct ostio_file *fh);
/* For each staged src of d's listing, the lowest rank of fh's communicator
 * on the node that holds it (-1: none in this job), into *out (malloc'ed);
 * NULL when nothing is staged. s: this open's staging (its host hashes are
 * taken, not gathered again), or NULL. Collective (the listing is the same on
 * every rank). */
int ostio__logstage_loaders(struct ostio_file *fh, const ostio__logdir *d,
                            const ostio__logstage *s, int **out);
/* Stops the thread and frees without draining (failed opens, discard). */
void ostio__logstage_free(ostio__logstage **s);

/* The log kind's prepare (collective: counts the nodes writing into
 * fh->prepared) and create (rank 0: hostdirs ceil(sqrt(nodes))). */
struct ostio_file;
int ostio__log_prepare(struct ostio_file *fh);
int ostio__log_create(struct ostio_file *fh);

/* The data copies of a read (log_file_read.c): each names a data log (src),
 * an offset in it and a destination; run sorts them by log and offset and
 * merges copies adjacent on disk and in memory into one pread through io
 * (statistics and faults), then empties the list (the array is kept; free
 * rl->r when done). */
typedef struct ostio__logread {
  int32_t src;
  int64_t phys, len;
  char *buf;
} ostio__logread;
typedef struct ostio__logreads {
  ostio__logread *r;
  size_t n, cap;
} ostio__logreads;
int ostio__logreads_add(ostio__logreads *rl, int32_t src, int64_t phys, int64_t len, char *buf);
int ostio__logreads_run(ostio__logreads *rl, ostio__logdir *d, ostio__io *io);

#endif
