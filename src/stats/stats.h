/* Per-file statistics, modelled on MPICH_MPIIO_STATS: counters and timers
 * declared once here; the report, JSON and ostio_stat_get are driven by the
 * lists. Each rank keeps its own ostio__stats; the report reduces them over
 * the file's communicator at close. See docs/stats.md. */
#ifndef OSTIO_STATS_STATS_H
#define OSTIO_STATS_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "ostio.h"      /* ostio_extent */
#include "core/clock.h" /* ostio__now: the timers' clock */
#include "hints/hints.h"

/* X(name, reduce, description). reduce: SUM (the report shows the total
 * over ranks and the largest rank) or MAX (the report shows the largest). */
#define OSTIO_STATS_COUNTERS(X)                                                     \
  X(coll_writes,           SUM, "collective write calls")                          \
  X(coll_reads,            SUM, "collective read calls")                           \
  X(indep_writes,          SUM, "independent write calls")                         \
  X(indep_reads,           SUM, "independent read calls")                          \
  X(sys_writes,            SUM, "system write calls")                              \
  X(sys_reads,             SUM, "system read calls")                               \
  X(bytes_written,         SUM, "bytes written to the file system")                \
  X(bytes_read,            SUM, "bytes read from the file system")                 \
  X(stripe_sized_writes,   SUM, "system writes of exactly one whole stripe")       \
  X(stripe_aligned_writes, SUM, "system writes starting on a stripe boundary")     \
  X(aggr_calls,            SUM, "collective calls this rank aggregated (>0 bytes)")\
  X(aggr_max,              MAX, "most aggregators active in one collective call")  \
  X(rmw,                   SUM, "read-modify-write operations (romio_ds_write)")   \
  X(gaps,                  SUM, "holes skipped between pieces of a round")         \
  X(rounds,                MAX, "most exchange rounds in one collective call")     \
  X(rounds_total,          SUM, "exchange rounds over all collective calls")       \
  X(objects_touched,       SUM, "objects touched, summed over aggregated calls")   \
  X(objects_max,           MAX, "most objects one aggregator touched in one call") \
  X(osts_touched,          SUM, "OSTs touched, summed over aggregated calls")      \
  X(osts_max,              MAX, "most OSTs one aggregator touched in one call")    \
  X(faults_injected,       SUM, "faults injected by OSTIO_FAULT")                 \
  X(objfiles_written,      SUM, "container object files written (distinct, since open)") \
  X(objfiles_read,         SUM, "container object files read (distinct, since open)") \
  X(direct_bytes_written,  SUM, "bytes written through the O_DIRECT descriptor")  \
  X(direct_bytes_read,     SUM, "bytes read through the O_DIRECT descriptor")     \
  X(direct_fallbacks,      SUM, "direct_read/direct_write refused: buffered instead") \
  X(cache_hits,            SUM, "cache: page pieces (drains: pages) found in the cache") \
  X(cache_remote_hits,     SUM, "cache: hits on pages held by another rank")      \
  X(cache_misses,          SUM, "cache: page pieces not in the cache")           \
  X(cache_bypass,          SUM, "cache: requests larger than ostio_cache_bypass") \
  X(cache_evictions,       SUM, "cache: pages evicted to make room")             \
  X(cache_lock_waits,      SUM, "cache: page-set locks that had to wait")        \
  X(cache_flush_writes,    SUM, "cache: write-backs of dirty pages")             \
  X(cache_flush_bytes,     SUM, "cache: dirty bytes written back")               \
  X(cache_memory,          MAX, "cache: bytes of memory on the largest rank")    \
  X(stage_bytes,           SUM, "staging: bytes written to node-local stage logs") \
  X(stage_drained_bytes,   SUM, "staging: bytes the node leaders drained to the container") \
  X(stage_rescued_bytes,   SUM, "staging: bytes copied from open staged logs whose stage "  \
                                "directory was removed")                            \
  X(app_write_pieces,      SUM, "application write pieces (contiguous, in file order)") \
  X(app_read_pieces,       SUM, "application read pieces (contiguous, in file order)")  \
  X(app_write_bytes,       SUM, "bytes of the application's write pieces")        \
  X(app_read_bytes,        SUM, "bytes of the application's read pieces")         \
  X(app_write_contig,      SUM, "write pieces starting where the rank's last ended") \
  X(app_read_contig,       SUM, "read pieces starting where the rank's last ended")  \
  X(app_write_strided,     SUM, "write pieces one stride after the rank's last")  \
  X(app_read_strided,      SUM, "read pieces one stride after the rank's last")   \
  X(app_write_stride,      MAX, "the rank's write stride (first step over a gap)") \
  X(app_read_stride,       MAX, "the rank's read stride (first step over a gap)")  \
  X(app_write_piece_max,   MAX, "largest application write piece")               \
  X(app_read_piece_max,    MAX, "largest application read piece")

/* X(name, description): seconds, summed over calls; the report shows the
 * largest rank and the mean. */
#define OSTIO_STATS_TIMERS(X)                                                       \
  X(time_plan,     "planning: validation, domains, metadata exchange")             \
  X(time_exchange, "posting and completing the data exchange")                     \
  X(time_io,       "system reads and writes")                                      \
  X(time_wait,     "waiting for the exchange after the I/O of a round")            \
  X(time_total,    "inside collective calls, end to end")                          \
  X(time_stage_drain, "staging: node leaders' drains (background and final)")     \
  X(time_stage_wait,  "staging: close and sync waiting for a drain")

typedef enum {
#define OSTIO__STAT_ENUM_(n, r, d) OSTIO__STAT_##n,
  OSTIO_STATS_COUNTERS(OSTIO__STAT_ENUM_)
#undef OSTIO__STAT_ENUM_
  OSTIO__NSTAT
} ostio__stat_id;

typedef enum {
#define OSTIO__TIMER_ENUM_(n, d) OSTIO__T_##n,
  OSTIO_STATS_TIMERS(OSTIO__TIMER_ENUM_)
#undef OSTIO__TIMER_ENUM_
  OSTIO__NTIMER
} ostio__timer_id;

/* One more counter per collective strategy, strategy_NAME (SUM: the calls
 * that ran it; for a strategy that chooses another, the calls it chose in).
 * Stats is below the engine and does not know the strategies: slot i is
 * entry i of the strategy registry (src/engine/strategies.c), which names
 * the slots at open. The names travel with the numbers, so every report
 * lists the strategies the library was built with, zero or not. */
#define OSTIO__STATS_NSTRAT 8
#define OSTIO__STATS_STRAT_NAME 16
/* Counters in c[]: the list's, then the strategy slots. */
#define OSTIO__NCOUNTER (OSTIO__NSTAT + OSTIO__STATS_NSTRAT)
#define OSTIO__STAT_STRATEGY(i) ((ostio__stat_id)(OSTIO__NSTAT + (i)))

/* Access sizes (issue 31): Darshan's ten buckets of request sizes, each
 * bucket's upper bound inclusive (0-100 B, 100 B-1 KiB, ..., 1 GiB+). What
 * is counted: the system read/write calls the library issues (for files
 * served by libostio-preload.so, the program's own calls). */
#define OSTIO__STATS_NHIST 10
enum { OSTIO__HIST_WRITE = 0, OSTIO__HIST_READ = 1 };
/* Bucket of a size of len bytes (0..OSTIO__STATS_NHIST-1). */
static inline int ostio__stats_hist_bucket(int64_t len)
{
  static const int64_t top[OSTIO__STATS_NHIST - 1] = {
    100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824};
  int b = 0;
  while (b < OSTIO__STATS_NHIST - 1 && len > top[b]) b++;
  return b;
}
/* The buckets' names, as the JSON and the text report print them. */
extern const char *const ostio__stats_hist_names[OSTIO__STATS_NHIST];

/* Application pieces (issue 31): the contiguous extents in file order the
 * application's calls carried (after the MPI view), per direction. The last
 * piece of the rank, for the app_*_contig / _strided counters. */
typedef struct ostio__stats_seq {
  int64_t start, end;         /* the rank's last piece [start, end)           */
  int have;                   /* a piece was seen                             */
} ostio__stats_seq;

typedef struct ostio__stats {
  int64_t c[OSTIO__NCOUNTER];
  double t[OSTIO__NTIMER];
  int64_t hist[2][OSTIO__STATS_NHIST];        /* [OSTIO__HIST_WRITE/READ][bucket] */
  int64_t phist[2][OSTIO__STATS_NHIST];       /* application piece sizes, same    */
  ostio__stats_seq seq[2];                    /* [OSTIO__HIST_WRITE/READ]         */
  char strat[OSTIO__STATS_NSTRAT][OSTIO__STATS_STRAT_NAME]; /* slot names; "" unused */
} ostio__stats;

/* Names strategy slot i (the counter becomes strategy_NAME); OSTIO_EINVAL
 * for a slot or a name that does not fit. */
int ostio__stats_name_strategy(ostio__stats *s, int i, const char *name);

/* What the report header says about the file. */
typedef struct ostio__stats_info {
  const char *path;
  int nprocs;
  int stripe_count;            /* of the first component                  */
  int64_t stripe_size;
  int ncomponents;
  const char *layout_source;   /* "lustre", "emulated", ...               */
  const char *strategy;        /* hint value: "auto", "ost", ...          */
  const ostio__hints *hints;   /* for its unknown keys; NULL: none        */
} ostio__stats_info;

static inline void ostio__stat_add(ostio__stats *s, ostio__stat_id id, int64_t v)
{
  s->c[id] += v;
}
static inline void ostio__stat_hist(ostio__stats *s, int is_write, int64_t len)
{
  s->hist[is_write ? OSTIO__HIST_WRITE : OSTIO__HIST_READ][ostio__stats_hist_bucket(len)]++;
}
/* The application's pieces of one call (issue 31): ext[0..n) in the order
 * the call named them (file order for an MPI view), abutting extents joined
 * into one piece, zero-length ones skipped; each piece counted in
 * app_*_pieces, _bytes, _piece_max, the piece-size histogram and, against
 * the rank's previous piece in that direction, app_*_contig (it starts where
 * that one ended) or app_*_strided (it starts app_*_stride bytes after that
 * one's start; the stride is the rank's first positive step over a gap).
 * O(1) per extent, no allocation. Call it for calls that succeeded (the
 * extents were checked). ostio__stats_piece: one piece. */
void ostio__stats_pieces(ostio__stats *s, int is_write, const ostio_extent *ext, size_t n);
void ostio__stats_piece(ostio__stats *s, int is_write, int64_t off, int64_t len);
static inline void ostio__stat_max(ostio__stats *s, ostio__stat_id id, int64_t v)
{
  if (v > s->c[id]) s->c[id] = v;
}
/* Value of a counter or timer by name; OSTIO_EINVAL (detail lists the known
 * names) for an unknown one. */
int ostio__stats_get(const ostio__stats *s, const char *name, double *value);

/* The same over ranks: ostio__stats_fold folds one rank in, and
 * ostio__stats_report reduces them over the file's communicator at close. */
/* One rank's figures (issue 31, Darshan's per-rank view): its bytes, its
 * read and write calls (collective + independent), its time. time is the
 * rank's time in the library: time_total (collective calls end to end) or,
 * when larger, time_plan + time_exchange + time_io + time_wait (independent
 * calls add only time_io). */
typedef struct ostio__stats_rank {
  int32_t rank, pad_;
  int64_t bytes_written, bytes_read, writes, reads;
  double time, time_io;
} ostio__stats_rank;
/* Pure: rank's record of s. */
void ostio__stats_rank_of(const ostio__stats *s, int rank, ostio__stats_rank *out);

typedef struct ostio__stats_reduced {
  int nprocs;
  int64_t sum[OSTIO__NCOUNTER], max[OSTIO__NCOUNTER], min[OSTIO__NCOUNTER];
  double tsum[OSTIO__NTIMER], tmax[OSTIO__NTIMER];
  char strat[OSTIO__STATS_NSTRAT][OSTIO__STATS_STRAT_NAME]; /* as in ostio__stats */
  int64_t hist[2][OSTIO__STATS_NHIST];     /* summed over ranks                    */
  int64_t phist[2][OSTIO__STATS_NHIST];    /* application piece sizes, summed      */
  ostio__stats_rank slowest, fastest;      /* by time; ties: the lower rank        */
} ostio__stats_reduced;

/* Pure: folds one rank's stats in (start from ostio__stats_reduced_init).
 * ostio__stats_fold numbers the ranks in fold order (0, 1, ...). */
void ostio__stats_reduced_init(ostio__stats_reduced *r);
void ostio__stats_fold(ostio__stats_reduced *r, const ostio__stats *s);
void ostio__stats_fold_rank(ostio__stats_reduced *r, const ostio__stats *s, int rank);
/* Pure: the text report (MPICH_MPIIO_STATS style), and one file's JSON
 * object (an element of "files" in the job document). *out is malloc'ed. */
int ostio__stats_format_text(const ostio__stats_reduced *r, const ostio__stats_info *info,
                             char **out);
int ostio__stats_format_json(const ostio__stats_reduced *r, const ostio__stats_info *info,
                             char **out);

/* OSTIO_STATS modes. */
enum { OSTIO__STATS_OFF = 0, OSTIO__STATS_TEXT = 1, OSTIO__STATS_JSON = 2 };

/* Pure: parses an OSTIO_STATS value (NULL, "", "0", "1", "json:PATH" with
 * PATH patterns %r %p %j %%). 0 and *mode; or OSTIO_EINVAL, *mode OFF and in
 * why one line naming the variable, the value and the accepted forms (the
 * warning's text). Sets no error detail. */
int ostio__stats_parse_spec(const char *spec, int *mode, char *why, size_t cap);

/* What a PATH pattern expands to, for the process that writes. */
typedef struct ostio__stats_jobid {
  char id[128];          /* SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, FLUX_JOB_ID, or "pid<pid>" */
  const char *source;    /* the variable's name, or "pid"                          */
  long pid;              /* getpid()                                               */
  int world_rank, world_size; /* in MPI_COMM_WORLD (0 and 1 without MPI)           */
} ostio__stats_jobid;
void ostio__stats_jobid_get(ostio__stats_jobid *id);
/* The same without MPI: world rank 0 of 1 (libostio-preload.so). */
void ostio__stats_jobid_env(ostio__stats_jobid *id);
/* Pure: pattern with %r (world rank), %p (pid), %j (job id, '/' made '_')
 * and %% expanded. OSTIO_EINVAL for another or a final '%', OSTIO_ERANGE
 * when out is too small. Sets no error detail. */
int ostio__stats_expand_path(const char *pattern, const ostio__stats_jobid *id, char *out,
                             size_t cap);

/* The job document ({"format": "ostio-stats", "version": 2, ...}, see
 * docs/stats.md): every file reported by this process to one PATH, and the
 * job-wide summary. Pure. The first max_files files are listed; the others
 * only count in the summary. */
typedef struct ostio__stats_job ostio__stats_job;
ostio__stats_job *ostio__stats_job_new(const ostio__stats_jobid *id, int max_files);
int ostio__stats_job_add(ostio__stats_job *job, const ostio__stats_reduced *r,
                         const ostio__stats_info *info);
/* The same with the file's per-rank records (ranks[0..nranks-1], copied;
 * NULL/0: none gathered). At most OSTIO__STATS_MAX_RANK_RECS records are kept
 * over the whole document; a file beyond that budget keeps none (its
 * slowest and fastest rank are in r). */
int ostio__stats_job_add_ranks(ostio__stats_job *job, const ostio__stats_reduced *r,
                               const ostio__stats_info *info, const ostio__stats_rank *ranks,
                               int nranks);
/* Tags the document as one process's record of the POSIX preload
 * ("process": {"kind": "preload", "host": host}) for `ostio report`'s merge. */
int ostio__stats_job_set_host(ostio__stats_job *job, const char *host);
int ostio__stats_job_format(const ostio__stats_job *job, char **out);
void ostio__stats_job_free(ostio__stats_job *job);
#define OSTIO__STATS_MAX_FILES 1024
/* Per-rank records: gathered for files of at most OSTIO__STATS_GATHER_RANKS
 * ranks; at most OSTIO__STATS_MAX_RANK_RECS kept per document (~150 bytes of
 * JSON each: about 2.3 MiB). */
#define OSTIO__STATS_GATHER_RANKS 1024
#define OSTIO__STATS_MAX_RANK_RECS 16384

/* Writes doc to path so that path always holds a whole document (a
 * temporary PATH.tmp.PID next to it, then rename; a path that exists and is
 * not a regular file is written in place). 0 or an errno, with one line in
 * why. MPI-free (the preload uses it). */
int ostio__stats_write_doc(const char *path, const char *doc, char *why, size_t cap);

/* Collective over comm: reduces everyone's stats to rank 0, which acts on
 * its spec (the value of OSTIO_STATS; the other ranks' are not looked at):
 * off; "1": text report to stderr; "json:PATH": the job document rewritten
 * atomically at PATH. Statistics never fail the caller: a bad spec or a
 * report that cannot be written makes rank 0 warn once per process on
 * stderr, and every rank returns 0. Only misuse fails (NULL stats on any
 * rank: agreed OSTIO_EINVAL; MPI_COMM_NULL or MPI not running). */
int ostio__stats_report(MPI_Comm comm, const ostio__stats *s, const ostio__stats_info *info,
                        const char *spec);
/* Tests: forgets the process's job document and that it warned. */
void ostio__stats_reset(void);

#endif
