/* writers=node for log containers (issue 6): the ranks of a node funnel
 * their write_all bytes through the node's leader (its lowest rank), which
 * appends them to its own data log, so a collective-only workload makes one
 * data log and one index log per node instead of per rank (PLFS's metadata
 * storms came from several files per process). Independent writes cannot
 * funnel (the leader does not take part): log/log_file.c gives them the rank's
 * own logs, as with writers=rank. See docs/containers.md, "writers=node".
 * Also the log kind's creation: its node count and its directory. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"
#include "container/log/log_file.h"

int ostio__log_node_comm(MPI_Comm comm, MPI_Comm *node)
{
  if (ostio__node_split(comm, node) != MPI_SUCCESS) {
    *node = MPI_COMM_NULL;
    return ostio__fail(OSTIO_EMPI, "cannot split the communicator into nodes");
  }
  return 0;
}

/* Copies bytes [*at, *at + len) of the rank's stream (its extents back to
 * back in e's order) into dst; *ci, *co: the cursor (extent, offset in it). */
static void pack(const ostio__lext *e, size_t *ci, int64_t *co, const char *buf, char *dst,
                 int64_t len)
{
  while (len > 0) {
    int64_t take = e[*ci].len - *co;
    if (take > len) take = len;
    memcpy(dst, buf + e[*ci].pos + *co, (size_t)take);
    dst += take;
    len -= take;
    if ((*co += take) == e[*ci].len) ++*ci, *co = 0;
  }
}

int ostio__log_funnel(MPI_Comm node, ostio__io *io, ostio__logw *w, uint64_t seq,
                      int64_t round, const ostio__lext *e, size_t n, const char *buf)
{
  int me, np, rc = 0;
  MPI_Comm_rank(node, &me);
  MPI_Comm_size(node, &np);
  int64_t mine[2] = {(int64_t)n, 0}, total = 0, npieces = 0, base = 0;
  for (size_t i = 0; i < n; i++) mine[1] += e[i].len;
  /* Per node rank: pieces, bytes, start in the node's stream; Gatherv counts. */
  int64_t *cnt = malloc((size_t)np * 3 * sizeof *cnt);
  int *counts = malloc((size_t)np * 2 * sizeof *counts);
  int64_t *sendp = malloc((2 * n + 1) * sizeof *sendp), *pieces = NULL;
  char *sbuf = NULL, *rbuf = NULL;
  if (!cnt || !counts || !sendp) rc = ostio__fail(OSTIO_ENOMEM, "out of memory funnelling");
  if ((rc = ostio__agree(node, rc)) < 0) goto done;
  int64_t *start = cnt + 2 * np;
  int *displs = counts + np;
  MPI_Allgather(mine, 2, MPI_INT64_T, cnt, 2, MPI_INT64_T, node);
  for (int r = 0; r < np; r++) {
    start[r] = total;
    total += cnt[2 * r + 1];
    npieces += cnt[2 * r];
  }
  if (total == 0) goto done; /* every node rank knows: nothing to do, no files */
  if (2 * npieces > INT_MAX) { /* the same on every node rank */
    rc = ostio__fail(OSTIO_ERANGE, "%lld extents on one node in one write_all; at most 2^30 "
                     "with ostio_log_writers=node", (long long)npieces);
    goto done;
  }
  if (round > total) round = total;
  /* The pieces (offset, length) to the leader, in node rank order. */
  for (size_t i = 0; i < n; i++) sendp[2 * i] = e[i].off, sendp[2 * i + 1] = e[i].len;
  if (me == 0) {
    pieces = malloc((size_t)(2 * npieces + 1) * sizeof *pieces);
    rbuf = malloc((size_t)round);
    if (!pieces || !rbuf)
      rc = ostio__fail(OSTIO_ENOMEM, "no memory for %lld pieces and a %lld-byte round",
                       (long long)npieces, (long long)round);
    if (rc == 0) rc = ostio__logw_create(w);
    base = w->dend;
  } else if (mine[1] > 0 && !(sbuf = malloc((size_t)(mine[1] < round ? mine[1] : round)))) {
    rc = ostio__fail(OSTIO_ENOMEM, "no memory for a %lld-byte round", (long long)round);
  }
  if ((rc = ostio__agree(node, rc)) < 0) goto done;
  for (int r = 0, at = 0; r < np; r++) {
    counts[r] = (int)(2 * cnt[2 * r]);
    displs[r] = at;
    at += counts[r];
  }
  MPI_Gatherv(sendp, (int)(2 * n), MPI_INT64_T, pieces, counts, displs, MPI_INT64_T, 0, node);
  /* Rounds: round k carries bytes [k*round, (k+1)*round) of the node's
   * stream (rank 0's bytes, then rank 1's, ...), which is also where they go
   * in the leader's data log (from base). The leader keeps taking part after
   * a failed pwrite, so nobody hangs; the outcome is agreed afterwards. */
  size_t ci = 0;
  int64_t co = 0;
  for (int64_t lo = 0; lo < total; lo += round) {
    int64_t hi = lo + round < total ? lo + round : total;
    for (int r = 0; r < np; r++) {
      int64_t a = start[r] > lo ? start[r] : lo, b = start[r] + cnt[2 * r + 1];
      if (b > hi) b = hi;
      counts[r] = b > a ? (int)(b - a) : 0;
      displs[r] = b > a ? (int)(a - lo) : 0;
    }
    char *dst = me == 0 ? rbuf + displs[0] : sbuf;
    pack(e, &ci, &co, buf, dst, counts[me]);
    MPI_Gatherv(me == 0 ? MPI_IN_PLACE : sbuf, counts[me], MPI_BYTE, rbuf, counts, displs,
                MPI_BYTE, 0, node);
    if (me == 0 && rc == 0) {
      io->fd = w->dfd;
      rc = ostio__io_pwrite(io, rbuf, (size_t)(hi - lo), base + lo);
    }
  }
  /* Every byte is in the data log: now the records (data before index). */
  if (me == 0 && rc == 0) {
    w->dend = base + total;
    int64_t p = base;
    for (int64_t i = 0; rc == 0 && i < npieces; i++) {
      rc = ostio__logw_piece(w, seq, pieces[2 * i], pieces[2 * i + 1], p);
      p += pieces[2 * i + 1];
    }
  }
  rc = ostio__agree(node, rc);
done:
  free(cnt);
  free(counts);
  free(sendp);
  free(pieces);
  free(sbuf);
  free(rbuf);
  return rc;
}

/* ---- creation: the node count (collective), then the container (rank 0) ---- */

int ostio__log_prepare(ostio_file *fh)
{
  MPI_Comm node; /* the nodes writers=node uses */
  int leader = 0, me_leader, nodes = 0;
  if (ostio__log_node_comm(fh->comm, &node) == 0) {
    MPI_Comm_rank(node, &leader);
    MPI_Comm_free(&node);
  }
  me_leader = leader == 0;
  MPI_Allreduce(&me_leader, &nodes, 1, MPI_INT, MPI_SUM, fh->comm);
  fh->prepared = nodes;
  return 0;
}

int ostio__log_create(ostio_file *fh)
{
  ostio__ctr_params p;
  int created = 0;
  memset(&p, 0, sizeof p);
  p.kind = &ostio__ctr_log;
  int nodes = fh->prepared > 0 ? (int)fh->prepared : 1;
  p.hostdirs = 1; /* ceil(sqrt(nodes)) */
  while ((int64_t)p.hostdirs * p.hostdirs < nodes && p.hostdirs < OSTIO__LOG_HOSTDIRS_MAX)
    p.hostdirs++;
  p.writers = fh->hints.ostio_log_writers;
  snprintf(p.requested, sizeof p.requested, "hostdirs=%d (ceil(sqrt(%d nodes))) writers=%s",
           (int)p.hostdirs, nodes, p.writers ? "node" : "rank");
  return ostio__ctr_create(fh->path, &p, !!(fh->amode & MPI_MODE_EXCL), &created);
}
