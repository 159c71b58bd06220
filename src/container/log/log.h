/* Log-structured containers (issue 6): each writer appends its data to its
 * own data log and describes it with pattern-compressed, checksummed index
 * records; readers merge the records into one map. No MPI here: src/file
 * (log/log_file.c) adds the collective steps, the CLI and the tests use the same
 * calls. See docs/container-format.md (the bytes) and docs/containers.md (the
 * rules, why, and the limits).
 *
 *   logrec.c   pure: the 64-byte record codec, CRC-32C, the compressor
 *   logmap.c   pure: records in key order, read planning (resolve), size
 *   logfile.c  on disk: listing, loading index logs
 *   logread.c  on disk: data-log descriptors, reading through the map
 *   logstage.c on disk: node-local staging (log_stage.h); logdrain.c its drain
 *   logwriter.c on disk: a writer's data and index logs
 *   logtool.c  on disk: check, recover, compact, remove
 *   log_clock.c the process's clock per container (the ordering of handles
 *              open at once), and the largest seq on disk */
#ifndef OSTIO_CONTAINER_LOG_H
#define OSTIO_CONTAINER_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "container/container.h"

/* ---- logrec.c (pure) ------------------------------------------------------ */
#define OSTIO__LOGREC_SIZE 64
#define OSTIO__LOGREC_VERSION 1   /* session = seq >> 32 */
#define OSTIO__LOGREC_VERSION2 2  /* session in bytes 56..59 */
enum { OSTIO__LOGREC_WRITE = 1, OSTIO__LOGREC_TRUNC = 2, OSTIO__LOGREC_COVER = 3 };

/* One index record. WRITE: pieces i = 0..count-1 of `length` bytes at logical
 * lstart + i*lstride, physical pstart + i*length in data log (session, writer).
 * TRUNC: the logical size becomes lstart (bytes at and beyond it read as
 * zeros until written again). COVER (index.compact only): the per-writer
 * index log (session, writer) had lstart bytes when it was compacted.
 * seq orders the records (docs/containers.md, "The ordering rule"): a
 * session's first is session << 32; a handle's seq grows past what other
 * handles of its process issued or saw, so it may leave its session's range
 * (seq >> 32 > session). session names the record's data log (session,
 * writer); on disk it is seq >> 32 in a version 1 record, and bytes 56..59
 * of a version 2 record, written only when the two differ. Encoding a
 * session of 0 means seq >> 32. */
typedef struct ostio__logrec {
  int type;
  uint32_t writer;
  uint32_t session;
  uint64_t seq;
  int64_t lstart, lstride, length, count, pstart;
} ostio__logrec;

uint32_t ostio__crc32c(const void *data, size_t len);
void ostio__logrec_encode(const ostio__logrec *r, unsigned char out[OSTIO__LOGREC_SIZE]);
/* 0, or OSTIO_EFORMAT (a detail says what is wrong) for a record that is
 * damaged or invalid: bad magic, version, CRC, type, reserved bytes, or
 * values (negative, zero length or count, overlapping pieces, overflow). */
int ostio__logrec_decode(const unsigned char in[OSTIO__LOGREC_SIZE], ostio__logrec *r);
/* One past the last logical byte of a WRITE (lstart for TRUNC). */
int64_t ostio__logrec_end(const ostio__logrec *r);
/* One past the last physical byte of a WRITE in its data log. */
int64_t ostio__logrec_pend(const ostio__logrec *r);

/* The compressor: one pending record per writer. A piece extends it when
 * the seq and length are equal, the physical start follows the pending
 * pieces and the logical start is lstart + count*stride (the stride set by
 * the second piece, at least the length). */
typedef struct ostio__logcomp {
  int pending;
  ostio__logrec rec;
} ostio__logcomp;
/* Adds a piece (len > 0). Returns 1 when it could not extend the pending
 * record: *flushed receives that record and the piece starts a new one;
 * 0 otherwise. */
int ostio__logcomp_add(ostio__logcomp *c, uint64_t seq, uint32_t writer, int64_t lstart,
                       int64_t len, int64_t pstart, ostio__logrec *flushed);
/* Takes the pending record out: 1 when there was one. */
int ostio__logcomp_take(ostio__logcomp *c, ostio__logrec *out);

/* ---- logmap.c (pure) --------------------------------------------------------- */
/* A record with its place in the order: key = (seq, writer, session, idx),
 * later key
 * wins byte by byte; idx is the record's position in its index log. src is
 * the caller's number for the data log (session, writer); -1 for TRUNC. */
typedef struct ostio__logent {
  ostio__logrec r;
  uint64_t idx;
  int32_t src;
  int32_t lost;            /* 1: a WRITE whose data log lacks its bytes (shorter, or
                            * no such writer): resolving them is OSTIO_EFORMAT;
                            * 2: the same for a staged writer (not drained yet):
                            * OSTIO_ESTAGED */
} ostio__logent;
int ostio__logent_cmp(const void *a, const void *b);

typedef struct ostio__logmap {
  ostio__logent *e;        /* e[0..nsorted) in key order and indexed; then a tail */
  size_t n, cap, nsorted;
  size_t *span;            /* WRITE entries of e[0..nsorted): by class, lstart */
  size_t nspan;
  /* Length classes: span[cls_at[k] .. cls_at[k + 1]) are the WRITEs whose
   * logical span lies in one power-of-two range, the longest cls_max[k]
   * bytes. A range meets only those starting less than cls_max[k] before
   * it: a binary search per class, then the records near the range (one
   * long record no longer makes every lookup scan all records before it). */
  size_t ncls, cls_at[65];
  int64_t cls_max[64];
  int cls_cls[64];         /* the class (floor of log2 of the span) of each   */
  size_t tail_work;        /* tail entries resolves scanned since the last build */
  size_t *trunc;           /* TRUNC entries of e[0..nsorted), key order       */
  size_t ntrunc;
  int tail_ordered;        /* the tail continues the key order               */
  int64_t size;            /* logical size, computed in key order              */
} ostio__logmap;

void ostio__logmap_init(ostio__logmap *m);
void ostio__logmap_free(ostio__logmap *m);
/* Adds entries (WRITE or TRUNC). Sorting and indexing wait for the next
 * build (done by resolve when needed). */
int ostio__logmap_add(ostio__logmap *m, const ostio__logent *e, size_t n);
int ostio__logmap_build(ostio__logmap *m);
/* Takes e (malloc'ed, cap entries, n used) as the map's own array when the
 * map is empty (no copy: the memory peak of a large merge), else adds and
 * frees it; then builds. e is the map's or freed afterwards, also on error. */
int ostio__logmap_adopt(ostio__logmap *m, ostio__logent *e, size_t n, size_t cap);

/* A resolved piece of the logical file: src -1 means zeros (a hole, or
 * bytes cut by a TRUNC). */
typedef struct ostio__logseg {
  int64_t off, len;
  int32_t src;
  int64_t phys;
} ostio__logseg;

/* Scratch reused by resolve (free with ostio__logres_free). */
typedef struct ostio__logres {
  void *piece; size_t npiece, cappiece;
  size_t *heap; size_t capheap;
  size_t *cand; size_t ncand, capcand;
  ostio__logseg *seg; size_t nseg, capseg;
  size_t visited; /* records the last resolve examined (tests check the lookup's work) */
} ostio__logres;
void ostio__logres_free(ostio__logres *r);

/* Resolves [off, off+len) against the map plus `extra` entries that come
 * after every map entry in key order (a writer's pending record): r->seg
 * receives non-overlapping segments covering the range in offset order,
 * adjacent ones of one data log merged. */
int ostio__logmap_resolve(ostio__logmap *m, const ostio__logent *extra, size_t nextra,
                          int64_t off, int64_t len, ostio__logres *r);

/* ---- logfile.c (on disk) ----------------------------------------------------- */
#define OSTIO__LOG_COMPACT "index.compact"

/* One writer's pair of logs: hostdir.HHH/data.S.W and index.S.W. */
typedef struct ostio__logsrc {
  uint32_t session, writer;
  int32_t hostdir;
  int32_t flags;           /* OSTIO__LOGSRC_*                              */
  int64_t index_size, data_size;   /* when listed                           */
  uint64_t stage_host;     /* STAGED: hash of the record's host (0: unknown) */
} ostio__logsrc;
/* STAGED: a stage record hostdir.HHH/stage.S.W says the logs are (also) in
 * a node-local stage directory, not all drained yet (log_stage.h). */
enum { OSTIO__LOGSRC_INDEX = 1, OSTIO__LOGSRC_DATA = 2, OSTIO__LOGSRC_COVERED = 4,
       OSTIO__LOGSRC_STAGED = 8 };

typedef struct ostio__logdir {
  char *path;
  /* The name a stage directory's leaf is derived from (docs/staging.md),
   * when it is not path: a store renamed while open keeps the name it was
   * opened with (not owned; NULL: path). */
  const char *stage_key;
  int dirfd;
  ostio__manifest m;
  ostio__logsrc *src;      /* sorted by (session, writer)                  */
  int *fd;                 /* data log fds, opened lazily (-1)              */
  int *sfd;                /* stage directory fds (-2 unresolved, -1 none)  */
  size_t nsrc, capsrc;
  uint32_t max_session;    /* the largest session found                     */
  int compact;             /* index.compact exists and covers its logs      */
  int64_t compact_size;
  int nstray;              /* entries that do not match the name grammar    */
} ostio__logdir;

/* Opens the container directory (manifest text given, or read here; kind
 * must be log). No listing yet. */
int ostio__log_open(const char *path, const char *text, size_t len, ostio__logdir **out);
/* The same for the directory an open one has (dirfd), whatever its name is
 * now (renamed while open): reopened through /proc/self/fd/DIRFD, by name
 * when there is no /proc. path (its name, for messages) is (*out)->path. */
int ostio__log_open_fd(int dirfd, const char *path, const char *text, size_t len,
                       ostio__logdir **out);
void ostio__log_close(ostio__logdir **d);
/* Lists the hostdirs: every data and index log (src table), the session
 * numbers, index.compact and whether it is current. Names outside the
 * grammar are skipped (counted in nstray; `check` names them). */
int ostio__log_scan(ostio__logdir *d);
/* Index in d->src of (session, writer), or -1. */
int ostio__log_src_find(const ostio__logdir *d, uint32_t session, uint32_t writer);
/* Adds (session, writer) in hostdir at its sorted place (no file made). */
int ostio__log_src_add(ostio__logdir *d, uint32_t session, uint32_t writer, int32_t hostdir);

/* What loading found besides the records. */
typedef struct ostio__logload {
  int64_t records, torn_bytes, bad_records, past_data, foreign;
  char first_problem[512];
} ostio__logload;
/* Appends the valid records of src i's index log (up to the first invalid
 * one) to *e. Records pointing past the data log's end are dropped. */
int ostio__log_load_src(ostio__logdir *d, size_t i, ostio__logent **e, size_t *n,
                        size_t *cap, ostio__logload *st);
/* The same for index.compact (when d->compact). */
int ostio__log_load_compact(ostio__logdir *d, ostio__logent **e, size_t *n, size_t *cap,
                            ostio__logload *st);
/* Serial: every record into map (compact plus uncovered logs). */
int ostio__log_load_all(ostio__logdir *d, ostio__logmap *map, ostio__logload *st);
/* Src i's "data" or "index" log, read-only: the staged copy when the
 * writer is staged on this node (and still there), else the container's;
 * -1 with errno. */
int ostio__log_open_src(ostio__logdir *d, size_t i, const char *what);
/* hostdir number of this host: FNV-1a(hostname) mod hostdirs. */
int32_t ostio__log_hostdir_of(const char *host, int32_t hostdirs);
/* Opens hostdir.HHH of the container (a directory, not a link), made first
 * when make is set (*made then says whether it is new): its fd, or an error
 * naming it (OSTIO_ENOENT when it is missing and make is 0). */
int ostio__log_hostdir_open(const ostio__logdir *d, int32_t h, int make, int *made);
/* "hostdir.HHH/data.S.W" (or index) into buf. */
void ostio__log_name(char *buf, size_t cap, int32_t hostdir, const char *what,
                     uint32_t session, uint32_t writer);
/* Parses a log file name ("data.S.W" / "index.S.W" / "stage.S.W"): 1 data,
 * 2 index, 3 stage record, 0 other. */
int ostio__log_parse_name(const char *name, uint32_t *session, uint32_t *writer);

/* ---- logread.c (on disk) ------------------------------------------------------
 * Data log fd of src (opened read-only on first use). */
int ostio__log_data_fd(ostio__logdir *d, int32_t src, int *fd);
/* The same, and for a writer staged on another node (log_stage.h) waits
 * until the container's copy holds `need` bytes, while that node's drain
 * brings bytes; OSTIO_ESTAGED after 10 s without progress. */
int ostio__log_data_upto(ostio__logdir *d, int32_t src, int64_t need, int *fd);
/* Serial read through the map: holes and cut bytes are zeros. */
int ostio__log_read(ostio__logdir *d, ostio__logmap *map, ostio__logres *res, int64_t off,
                    int64_t len, void *buf);
/* The same with `extra` entries after the map's (as ostio__logmap_resolve:
 * a writer's pending record). */
int ostio__log_read_x(ostio__logdir *d, ostio__logmap *map, const ostio__logent *extra,
                      size_t nextra, ostio__logres *res, int64_t off, int64_t len, void *buf);
/* ---- logwriter.c (on disk) ----------------------------------------------------
 * A writer: its two logs, created on the first write (O_EXCL). */
typedef struct ostio__logw {
  ostio__logdir *d;
  uint32_t session, writer;
  int32_t hostdir;
  int dfd, ifd, hfd;       /* data, index, hostdir                            */
  int sdirfd;              /* staged (log_stage.h): the stage directory, its
                            * path and this node's name; -1: not staged      */
  const char *stage_dir, *stage_host;
  int64_t dend, iend;      /* append positions                              */
  uint64_t nrec;           /* records in the index log                      */
  int dir_dirty;           /* new names not fsync'ed yet                    */
  ostio__logcomp comp;
  ostio__logent *fresh;    /* records appended since the last take          */
  size_t nfresh, capfresh;
} ostio__logw;
void ostio__logw_init(ostio__logw *w, ostio__logdir *d, uint32_t session, uint32_t writer,
                      int32_t hostdir);
int ostio__logw_create(ostio__logw *w);
/* Before the first write: the logs go to the stage directory sdirfd (path
 * dir, kept by the caller) of node host, with a stage record in the
 * container (log_stage.h). */
void ostio__logw_stage(ostio__logw *w, int sdirfd, const char *dir, const char *host);
/* Records that data at [pstart, pstart+len) of the data log (already
 * written) holds logical [lstart, lstart+len); may append a record. */
int ostio__logw_piece(ostio__logw *w, uint64_t seq, int64_t lstart, int64_t len,
                      int64_t pstart);
/* Appends any record (TRUNC) after flushing the pending one. */
int ostio__logw_append(ostio__logw *w, const ostio__logrec *r);
/* Writes the pending record. */
int ostio__logw_flush(ostio__logw *w);
/* flush + fdatasync data, then index, then the directories when new. */
int ostio__logw_sync(ostio__logw *w);
/* Serial write: pwrite at the data log's end, then the piece. */
int ostio__logw_write(ostio__logw *w, uint64_t seq, int64_t off, const void *buf, int64_t len);
/* Closes the fds (no flush); frees fresh. */
int ostio__logw_close(ostio__logw *w);
/* A library job's session: the first after *session whose writer 0 it
 * creates (O_EXCL), w then being that writer with its logs open; the job's
 * other ranks use their rank as id. Preloaded processes take ids from
 * OSTIO__LOG_PROCESS_WRITERS up, so they never take a job's name. */
#define OSTIO__LOG_PROCESS_WRITERS 0x40000000u
int ostio__log_claim_session(ostio__logdir *d, ostio__logw *w, int32_t hostdir,
                             uint32_t *session);

/* ---- log_clock.c: the process's clock of a container -------------------------------
 * The largest seq the process's handles of one container (device and inode
 * of dirfd) issued or saw; shared by its handles, freed with the last. */
typedef struct ostio__logclock ostio__logclock;
int ostio__log_clock_get(int dirfd, const char *path, ostio__logclock **out);
void ostio__log_clock_put(ostio__logclock **c);
uint64_t ostio__log_clock_max(ostio__logclock *c);
/* A seq read from the container or another rank. */
void ostio__log_clock_saw(ostio__logclock *c, uint64_t seq);
/* Handle `who` carries seq from now on (agreed at a collective event). */
void ostio__log_clock_took(ostio__logclock *c, const void *who, uint64_t seq);
/* v + 1, or OSTIO_ERANGE when that leaves v's 2^32 block (a later session's). */
int ostio__log_clock_next(uint64_t v, uint64_t *next);
/* Before a write of handle `who` whose seq is *cur: raises *cur above every
 * seq another handle of the process issued or saw since (OSTIO_ERANGE at
 * the block's end), and records it as the latest. */
int ostio__log_clock_issue(ostio__logclock *c, const void *who, uint64_t *cur);
/* The largest seq on disk now (a fresh listing of d's directory, d not
 * changed): the last valid record of each index log and of a current
 * index.compact (a writer's records are in seq order); seqs in the block of
 * a session not listed are passed over. */
int ostio__log_disk_seq(const ostio__logdir *d, uint64_t *out);

/* ---- logsize.c (on disk): the size record's rule --------------------------------
 * Fingerprint of the index logs of d's last scan (names and sizes, and
 * index.compact when current). */
uint64_t ostio__log_fingerprint(const ostio__logdir *d);
/* 1 when rec is clean and carries the fingerprint of d's last scan. */
int ostio__log_rec_trusted(const ostio__logdir *d, const ostio__sizerec *rec);
/* Rescans d; the size from every index, and the fingerprint of the listing. */
int ostio__log_derive(ostio__logdir *d, int64_t *size, uint64_t *fp);
/* Records the size clean with its fingerprint (on a private listing, d is
 * not changed); reads it back and tries again while the record on disk does
 * not match the logs. *size (may be NULL): the size recorded. */
int ostio__log_publish_clean(const ostio__logdir *d, int64_t *size);

/* ---- logtool.c (on disk) ------------------------------------------------------ */
/* Every problem to report (as ostio__ctr_check); returns their count. */
int ostio__log_check(const char *path, ostio__ctr_report report, void *arg);
/* Repairs what check reports: index logs cut at their first invalid record
 * (or one pointing past its data log), a stale index.compact and leftover
 * temporary files removed, the size record rewritten clean. Foreign files
 * are left alone. report (may be NULL) hears each repair. */
int ostio__log_recover(const char *path, ostio__ctr_report report, void *arg);
/* Writes index.compact: every record in key order plus COVER records. */
int ostio__log_compact(const char *path, int64_t *nrecords);
/* Removes the container's own files, its hostdirs and the directory. */
int ostio__log_remove(const char *path);
/* The log kind's container half (log_manifest.c; container.h). */
extern const ostio__ctr_kind ostio__ctr_log;

#endif
