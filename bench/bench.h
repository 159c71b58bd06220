/* ostio-bench runner (issue 4): an IOR-style benchmark that drives one
 * access pattern (bench/patterns.h) through ostio (each strategy), MPI-IO
 * (ROMIO, via an hindexed file view) and POSIX, in the same run.
 *
 * Parts, so tests call each directly:
 *   bench_args.c   pure: IOR-like flags -> ob_config (usage errors name the flag)
 *   bench_run.c    MPI: open / io / close per iteration, API and phase -> ob_results
 *   mpiio_best.c   pure: mpiio:best's candidate hint sets and the sweep loop;
 *   best_run.c     MPI: runs the sweep through the runner (bench_run.h)
 *   bench_report.c pure: summary (min / median / max MiB/s), ratios to the baseline,
 *                  text table, JSON document ("format": "ostio-bench", version 1)
 * Nothing here prints (progress goes through a callback), exits or aborts;
 * failures are return codes, agreed over the ranks by the runner.
 *
 * Testing hook: OSTIO_BENCH_CORRUPT=1 makes the runner flip one byte of each
 * file it has just written (after the write phase's close, outside the
 * timing), so -W / -R must report a verification failure. */
#ifndef OSTIO_BENCH_H
#define OSTIO_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "patterns.h"

enum {
  OB_OK = 0,
  OB_EUSAGE = -1,   /* bad flag or impossible combination: exit status 2 */
  OB_EVERIFY = -2,  /* -W / -R found wrong bytes: exit status 1           */
  OB_EIO = -3,      /* an open, read, write, sync or close failed: 1      */
  OB_ENOMEM = -4    /* 1                                                  */
};

typedef enum { OB_API_OSTIO = 0, OB_API_MPIIO, OB_API_POSIX } ob_api_kind;

typedef struct ob_api {
  int kind;                 /* ob_api_kind                                       */
  char strategy[16];        /* ostio: a strategy of the registry ("" = auto)     */
  char name[32];            /* as given: "ostio:ost", "mpiio", "posix"          */
  int ostio_mpiio;          /* mpiio+ostio: kind MPIIO, the same calls, and the
                               hint ostio_mpiio=enable, so libostio-mpiio.so
                               (linked before libmpi, or LD_PRELOAD) serves it  */
  int best;                 /* mpiio:best: kind MPIIO, the hints a sweep chose
                               (bench/mpiio_best.c; issue 29)                   */
} ob_api;

/* A set of MPI-IO hints (one candidate of mpiio:best's sweep). */
#define OB_HINTSET_MAX 6
typedef struct ob_hintset {
  int n;
  char key[OB_HINTSET_MAX][32];
  char val[OB_HINTSET_MAX][32];
} ob_hintset;

#define OB_MAX_APIS 16
#define OB_MAX_HINTS 32
#define OB_PATH_MAX 1024

typedef double (*ob_clock_fn)(void *ctx);
typedef void (*ob_progress_fn)(void *ctx, const char *line);

typedef struct ob_config {
  ob_api apis[OB_MAX_APIS];
  int napis;
  ob_pattern_opts pat;      /* -p -b -t -s --btio-class --seed                   */
  int file_per_proc;        /* -F                                                */
  int collective;           /* -c: MPI-IO uses write_at_all / read_at_all        */
  int indep;                /* -I: one independent call per transfer (ostio_write_at /
                               read_at, MPI-IO write_at / read_at); see
                               ob_api_collective and ob_api_per_transfer         */
  int write, read;          /* -w -r (neither given: both)                       */
  int fsync;                /* -e                                                */
  int fsync_per_write;      /* -Y: a sync after every write call (IOR's -Y)      */
  int barriers;             /* -g: barriers after open and after the I/O, so the
                               open / I/O / close times are each everyone's (IOR) */
  int verbose;              /* -v (repeatable): a progress line per phase with its
                               open / I/O / close seconds, not one per iteration */
  int numtasks;             /* -N: 0, or the rank count it must equal            */
  int reorder;              /* -C: rank r reads what rank (r + 1) mod P wrote    */
  int iterations;           /* -i, counted in the summary                        */
  int warmup;               /* --warmup N: extra first iterations, not counted  */
  int verify_write;         /* -W: read back with pread and check after writing */
  int verify_read;          /* -R: check the bytes of the read phase            */
  int keep;                 /* -k: keep the files                                */
  char path[OB_PATH_MAX];   /* -o: files are PATH.API (and .RANK with -F)        */
  char json[OB_PATH_MAX];   /* --json FILE, "" = none                            */
  int nhints;               /* -O key=value                                      */
  char hint_key[OB_MAX_HINTS][64];
  char hint_val[OB_MAX_HINTS][256];
  int stripe_count;         /* --stripe-count, 0 = not set                       */
  int64_t stripe_size;      /* --stripe-size, 0 = not set                        */
  char container[16];       /* --container: plain, striped or log (ostio APIs only) */
  ob_hintset best_given[2]; /* --best-write / --best-read: mpiio:best's hints,
                               not swept (indexed by OB_PHASE_*)               */
  int best_given_set[2];
  int help;                 /* -h / --help seen                                  */
  ob_clock_fn clock;        /* NULL: MPI_Wtime; tests pass a fake clock          */
  void *clock_ctx;
  ob_progress_fn progress;  /* NULL: silent; main prints rank 0's lines         */
  void *progress_ctx;
} ob_config;

/* ---- bench_args.c (pure) ---------------------------------------------- */
void ob_config_defaults(ob_config *c);
/* Parses argv[1..argc). OB_EUSAGE with a sentence naming the flag in err. */
int ob_parse_args(int argc, char **argv, ob_config *c, char *err, size_t errcap);
/* "1m" -> 1048576; k m g (either case) are powers of 1024. -1 if invalid. */
int64_t ob_parse_size(const char *s);
/* ostio, ostio:STRATEGY, mpiio, mpiio+ostio, posix -> api; -1 if invalid. */
int ob_parse_api(const char *s, ob_api *api);

/* ---- bench_ior.c (pure): IOR's names -------------------------------- */
/* IOR's API name s: ours ("mpiio", "posix"), or NULL; *refusal is set (a
 * sentence: why not, what instead) for IOR backends ostio-bench lacks. */
const char *ob__ior_api(const char *s, const char **refusal);
/* -O key=val with key (keylen bytes) one of IOR's directives: 1 and *flag
 * (NULL: a switch given as 0) with *flag_val (NULL: none), OB_EUSAGE with
 * the refusal in err, or 0 when key is not IOR's (then it is a hint). */
int ob__ior_directive(const char *key, size_t keylen, const char *val, const char **flag,
                      const char **flag_val, char *err, size_t cap);
extern const char ob__ior_no_stonewall[], ob__ior_no_random[];
/* The --help text, every flag with its default. */
void ob_usage(FILE *out);
/* How api issues its data calls under c (the "calls" of the reports):
 *   ostio APIs   one collective call per step (ostio_write_all / read_all);
 *                with -I independent ostio_write_at / read_at
 *   mpiio        collective per step with -c, else independent
 *   mpiio+ostio  as mpiio, and independent with -I even under -c
 *   posix        independent (pwrite / pread)
 * 1 if collective, 0 if independent. */
int ob_api_collective(const ob_config *c, const ob_api *api);
/* 1 if api makes one call per extent of the pattern (a transfer: ior and
 * strided -t pieces, btio x-runs, flash regions, random pieces; adjacent
 * extents are not merged, as IOR calls once per transfer): independent APIs
 * under -I, and posix always. 0 if one call per step (collective calls, and
 * independent MPI-IO without -I: one write_at per step, through an hindexed
 * view when the step's extents are not one run). */
int ob_api_per_transfer(const ob_config *c, const ob_api *api);

/* ---- mpiio:best (bench/mpiio_best.c, pure) ------------------------------ */
enum { OB_PHASE_WRITE = 0, OB_PHASE_READ = 1 };
#define OB_BEST_MAX_CAND 24
#define OB_BEST_MIN_SECONDS 0.3  /* each candidate runs until it has taken this long */
#define OB_BEST_MAX_REPS 8       /* ... or this many phases                       */
typedef struct ob_best_query {
  int nprocs;
  int phase;                /* OB_PHASE_*: romio_cb_write / ds_write or _read      */
  int collective;           /* the calls are collective (cb hints apply)           */
  int noncontig;            /* a call covers more than one run (ds hints apply)    */
  int romio;                /* the MPI-IO is ROMIO (MPICH); 0: Open MPI's OMPIO  */
  int striping;             /* the file system takes striping hints (Lustre, GPFS) */
} ob_best_query;
/* The sweep's candidates for q, the defaults first (each a complete hint set
 * over the run's -O hints). Returns the count (<= cap, at most OB_BEST_MAX_CAND). */
int ob_best_candidates(const ob_best_query *q, ob_hintset *out, int cap);
/* "k=v,k=v" -> h; -1 if malformed (not key=value, too many, too long). "" and
 * "defaults" are the empty set. */
int ob_hintset_parse(const char *s, ob_hintset *h);
/* h as "k=v,k=v", or "(defaults)" when empty. */
void ob_hintset_str(const ob_hintset *h, char *buf, size_t cap);

/* One phase's sweep (or the hints given with --best-write / --best-read). */
typedef struct ob_sweep {
  int done;                 /* 1 when this phase of mpiio:best was decided       */
  int given;                /* 1: from --best-write / --best-read, not swept     */
  int ncand, chosen;
  ob_hintset cand[OB_BEST_MAX_CAND];
  double bw[OB_BEST_MAX_CAND];  /* bytes of all repetitions / their time       */
  int reps[OB_BEST_MAX_CAND];
  double seconds;           /* wall time of the whole sweep of this phase        */
  char note[256];           /* what was not swept and why                        */
} ob_sweep;

/* ---- results ------------------------------------------------------------ */
struct ob_result;
/* One timed phase with hints h (fills r's bytes and t_total); 0 or an OB_E* code. */
typedef int (*ob_best_run_fn)(void *ctx, int write, const ob_hintset *h, struct ob_result *r);
/* Runs sw's candidates through fn, each until it has taken OB_BEST_MIN_SECONDS
 * (at most OB_BEST_MAX_REPS phases), and sets chosen to the fastest (ties: the
 * earlier) and done; fn's failure is returned. Collective when fn is. */
int ob_best_sweep(ob_sweep *sw, int phase, ob_best_run_fn fn, void *ctx);


typedef struct ob_result {
  int iteration;            /* 0-based, warm-up iterations first                 */
  int warmup;               /* 1 when excluded from the summary                  */
  int api;                  /* index into config apis                            */
  int phase;                /* OB_PHASE_*                                        */
  int64_t bytes;            /* all ranks                                         */
  double t_open, t_io, t_close; /* max over ranks of each phase part (s)        */
  double t_total;           /* last close end - first open start (s)             */
  double bw_mib;            /* bytes / t_total / 2^20                            */
  int64_t verify_errors;    /* ranks whose check failed                          */
  double aggr_max, objects_max, sys_writes, sys_reads; /* ostio stats, -1 if n/a */
  char strategy[16];        /* ostio_file_strategy after the phase, "" if n/a    */
} ob_result;

typedef struct ob_results {
  ob_result *r;
  int n, cap;
  int nprocs;
  int64_t total_bytes;      /* per phase, all ranks                              */
  ob_sweep sweep[2];        /* mpiio:best's write and read hints (OB_PHASE_*)    */
} ob_results;

void ob_results_free(ob_results *res);
/* Appends one result (copied). OB_ENOMEM. */
int ob_results_add(ob_results *res, const ob_result *r);

/* ---- bench_run.c (MPI, collective over MPI_COMM_WORLD) ----------------- */
/* Runs every iteration x API x phase. The same return code on every rank;
 * err holds a sentence for a failure (usage errors name the flag). Results
 * are complete on every rank. */
int ob_run(const ob_config *c, ob_results *res, char *err, size_t errcap);
/* Is libostio-mpiio.so in front of the MPI library in this process (linked
 * before libmpi or LD_PRELOADed)? 1 or 0; where (may be NULL) gets the file
 * that defines MPI_File_open. ob_run refuses mpiio+ostio (OB_EUSAGE) without it. */
int ob_mpiio_ostio_present(char *where, size_t cap);
/* Bytes per MiB/s: bytes / seconds / 2^20; 0 when seconds <= 0. */
double ob_bandwidth_mib(int64_t bytes, double seconds);

/* ---- bench_report.c (pure) --------------------------------------------- */
typedef struct ob_summary {
  int api, phase;
  int count;                /* non-warm-up iterations                            */
  double bw_min, bw_median, bw_max, bw_mean;
  double t_open, t_io, t_close, t_total; /* means                              */
  double ratio;             /* bw_median / the baseline's bw_median: mpiio:best
                               when in the run, else mpiio (never mpiio+ostio);
                               0 if neither                                     */
  double ratio_mpiio;       /* bw_median / mpiio's (ROMIO at its defaults), 0 if
                               no plain mpiio                                   */
  double aggr_max, objects_max, sys_writes, sys_reads; /* max over iterations */
} ob_summary;

/* The API ratios are computed against: mpiio:best if in the run, else the
 * plain mpiio, else -1. */
int ob_baseline_api(const ob_config *c);
/* Median of v[0..n) (mean of the middle two for even n); v is sorted in place. */
double ob_median(double *v, int n);
/* One summary per (API, phase) with at least one counted iteration, in
 * config order. *out is malloc'ed (free it); returns the count or OB_ENOMEM. */
int ob_summarize(const ob_config *c, const ob_results *res, ob_summary **out);
/* IOR-like text: per-iteration lines, then the summary table. */
void ob_report_text(FILE *f, const ob_config *c, const ob_results *res);
/* The JSON document. */
void ob_report_json(FILE *f, const ob_config *c, const ob_results *res);

#endif
