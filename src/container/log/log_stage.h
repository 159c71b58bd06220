/* Node-local staging of log containers (issue 19), the on-disk half; no MPI.
 * A staged writer keeps its data and index logs in a stage directory on its
 * node (DIR/ostio.HASH.S, flat: data.S.W, index.S.W) and leaves a stage
 * record hostdir.HHH/stage.S.W in the container saying where (host, dir).
 * A drain copies the logs to their usual names in the container, index
 * first, then the data; the copies are at the same
 * offsets, so a drain is idempotent and resumes after a kill. A final drain
 * (the writer closed) removes the record and the staged files. Readers use
 * the staged logs on their own node, the drained copies elsewhere; bytes
 * that are neither are an error, never zeros. See docs/staging.md. */
#ifndef OSTIO_CONTAINER_LOG_STAGE_H
#define OSTIO_CONTAINER_LOG_STAGE_H

#include <stdint.h>

#include "container/log/log.h"

#define OSTIO__STAGE_HOST_MAX 256
#define OSTIO__STAGE_DIR_MAX 4096

/* What a stage record says. */
typedef struct ostio__stagerec {
  char host[OSTIO__STAGE_HOST_MAX];
  char dir[OSTIO__STAGE_DIR_MAX];
} ostio__stagerec;

/* This process's node name for staging: the host name, or what
 * ostio__stage_set_self gave (the test knob's simulated nodes, the CLI's
 * --host). */
const char *ostio__stage_self(void);
void ostio__stage_set_self(const char *host);
uint64_t ostio__stage_host_hash(const char *host);

/* "stage.S.W" (no hostdir) into buf. */
void ostio__stage_rec_name(char *buf, size_t cap, uint32_t session, uint32_t writer);
/* Writes the record in the open hostdir hfd (O_EXCL; fsync'ed by the
 * writer's sync with the hostdir): "ostio stage 2", host, dir and the
 * CRC-32C of those lines. */
int ostio__stage_rec_write(const char *ctr, int hfd, uint32_t session, uint32_t writer,
                           const ostio__stagerec *r);
/* Reads the record of src i (d->src[i] staged): 0; OSTIO_EFORMAT when it is
 * unreadable or damaged (format, CRC: where the logs are is then unknown);
 * OSTIO_EACCES when its directory is not DIR/ostio.HASH.S for this
 * container and the writer's session (refused: nothing is read or removed
 * there). A version 1 record (no CRC) is accepted with the same check. */
int ostio__stage_rec_read(ostio__logdir *d, size_t i, ostio__stagerec *r);
/* Opens a record's stage directory into *fd: not through a link at its last
 * part, a directory of this user (OSTIO_EACCES otherwise); OSTIO_ENOENT
 * when it is gone. */
int ostio__stage_rec_open(const ostio__stagerec *r, int *fd);

/* This job's (or process's) stage directory of session S of the container
 * at ctr_path under base: BASE/ostio.HASH.S (HASH of the container's
 * absolute path) into out, made (mode 0700, its parents as needed) and
 * opened into *fd without following a link; refused (OSTIO_EACCES) when it
 * is a link, not a directory, someone else's or writable by others. */
int ostio__stage_dir_open(const char *base, const char *ctr_path, uint32_t session,
                          char *out, size_t cap, int *fd);

/* The stage directory fd of src i when it is staged on this node and the
 * directory opens (ostio__stage_rec_open); -1 when it is not staged, staged
 * elsewhere, refused or gone (drained meanwhile: the record is removed
 * before the files). Cached in d->sfd. */
int ostio__stage_local_fd(ostio__logdir *d, size_t i);
/* Marks src i (i < 0: none) as staged on the host of hash host, its stage
 * directory a dup of sdirfd (-1: not on this node). */
int ostio__stage_mark(ostio__logdir *d, int i, uint64_t host, int sdirfd);
/* Src i (i < 0: none) is no longer staged (its writer was rescued,
 * ostio__stage_rescue): reads go to the container's copies; a data log
 * opened in the stage directory is closed (reopened on the next read). */
void ostio__stage_unmark(ostio__logdir *d, int i);

/* A drain's pacing: at most bw bytes per second over the whole drain (0:
 * as fast as possible); stop (may be NULL) is polled between chunks. */
typedef struct ostio__throttle {
  int64_t bw;
  double t0;
  int64_t bytes;
  const volatile int *stop;
} ostio__throttle;
void ostio__throttle_init(ostio__throttle *t, int64_t bw, const volatile int *stop);

/* One writer's drain state kept between rounds (zero it first). */
typedef struct ostio__drainw {
  int64_t idx_scanned;     /* stage index bytes already decoded              */
  int64_t maxpend;         /* largest data end of those records              */
  int64_t drained;         /* data bytes known to be in the container        */
  const char *dir;         /* the stage directory's path, for messages (or NULL) */
} ostio__drainw;

/* Copies writer (S, W)'s staged logs in stage directory sdirfd (its path in
 * st->dir, for messages; may be NULL) to the container: the stage index's
 * valid records not yet there, then the staged data up to its size (indexed
 * or not: an append-only log's bytes below its size are final). hostdir:
 * the writer's hostdir. index_only: only the index (the container then
 * names every range, drained or not). *copied (may be NULL) grows by the
 * bytes copied. Returns 0, 1 when the throttle's stop flag ended it early,
 * or an error: OSTIO_ESTAGED when the writer's staged logs are missing
 * (its stage record exists) or shorter than the container's copies. */
int ostio__stage_drain(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer,
                       int sdirfd, int index_only, ostio__drainw *st, ostio__throttle *t,
                       int64_t *copied);
/* A staged writer w, its logs still open, whose staged logs are gone from
 * its stage directory (removed under the job, rm -rf STAGE/...), or are no
 * longer the files it writes: every record and byte it wrote is copied
 * from its own open logs into the container's copies at the same offsets
 * (the drain's copy, from the container copy's end), fdatasync'ed; its stage
 * record and staged names go, and w goes on unstaged in the container's
 * copies (w->sdirfd -1). Returns 1 when it did, 0 when the staged logs are
 * there (the node's drain copies them) or w is not staged or never wrote,
 * <0 on error (the record then stays). *copied (may be NULL) grows by the
 * data bytes copied. */
int ostio__stage_rescue(ostio__logw *w, int64_t *copied);
/* After a complete drain of a closed writer: the container's copies are
 * durable, the stage record goes (fsync'ed), then the staged logs (a
 * reader on the node falls back to the container's copies, complete now).
 * The two halves apart: unrecord (the record) and discard (the logs; the
 * MPI close lets every rank free its own, in parallel). */
int ostio__stage_unrecord(ostio__logdir *d, int32_t hostdir, uint32_t session, uint32_t writer);
int ostio__stage_discard(const char *ctr, uint32_t session, uint32_t writer, int sdirfd);
/* A closed writer's end: drain (1 when t's stop flag ended it: call again
 * with the same st), then unrecord, discard and remove sdir when it is
 * empty (the last writer of the directory). The CLI, recover and the
 * preload. */
int ostio__stage_drain_finish(ostio__logdir *d, int32_t hostdir, uint32_t session,
                              uint32_t writer, int sdirfd, const char *sdir, ostio__drainw *st,
                              ostio__throttle *t, int64_t *copied);

/* The CLI's and recover's drain: every writer of d's last scan staged on
 * this node is drained completely and finished; the others, and those
 * whose staged logs are lost (OSTIO_ESTAGED), are counted in *elsewhere
 * (may be NULL). *copied (may be NULL): bytes copied. */
int ostio__stage_drain_local(ostio__logdir *d, ostio__throttle *t, int64_t *copied,
                             int *drained, int *elsewhere);

#endif
