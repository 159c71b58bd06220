/* What `ostio model` and `ostio advise` share (issue 18): the pattern
 * flags (ostio-bench's -p, -b, -t, -s, --btio-class), size arguments,
 * every rank's plan of a pattern and, per call, the extents the model
 * takes, and the pattern read from a run's statistics document
 * (OSTIO_STATS=json:PATH). docs/model.md. */
#ifndef OSTIO_TOOLS_MODEL_ARGS_H
#define OSTIO_TOOLS_MODEL_ARGS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "ostio.h"
#include "patterns.h"

/* getopt_long short options of both commands, and the option id of
 * --btio-class (above every command's own ids). */
#define MODEL_SHORT_OPTS "hp:b:t:s:"
#define MODEL_OPT_BTIO 0x4000

/* The pattern flags as given. */
typedef struct model_pattern {
  int kind;                 /* -p, ob_pattern_kind  [ior]                       */
  int64_t block, transfer, segments; /* -b, -t, -s; -1: not given                */
  char btio_class;          /* --btio-class; 0: not given                       */
  int given;                /* any of them given                                */
} model_pattern;

void model_pattern_init(model_pattern *p);
/* Whether c (a getopt_long result) is one of the pattern options. */
int model_pattern_is_opt(int c);
/* Takes option c with its argument: 0, or cli_usage_error's status with a
 * message naming the flag and what it accepts. */
int model_pattern_opt(const char *cmd, model_pattern *p, int c, const char *arg);
/* The pattern: the kind's defaults with the flags given on top. */
void model_pattern_opts(const model_pattern *p, ob_pattern_opts *o);

/* --stripe-size ARG: *size, or cli_usage_error's status when ARG is not a
 * size Lustre's layout accepts (a multiple of 64 KiB from 64k to 4 GiB -
 * 64 KiB: the layout code's rule and sentence, ostio__check_lustre_stripe_size).
 * A --stats document's stripe size is held to the same rule. */
int model_stripe_size_arg(const char *cmd, const char *arg, int64_t *size);

/* Where the shipped cluster descriptions are: PREFIX/share/ostio/systems of
 * the install this program runs from (found from /proc/self/exe and the
 * configured bindir -> datadir), else "systems/ of the source tree". For the
 * "--system FILE is required" message. cap: at least PATH_MAX. */
const char *model_systems_dir(char *buf, size_t cap);

/* "1m" -> 1048576 (k, m, g: powers of 1024); -1 when invalid. */
int64_t model_size_arg(const char *s);

/* Every rank's plan of a pattern, stored call by call: call k's extents of
 * every rank in one block (a simulation reads them call by call, so they
 * stream from memory instead of one small piece per rank). */
typedef struct model_plans {
  int64_t nranks;
  int ncalls;               /* the most steps of any rank                       */
  ostio_extent *ext;        /* every extent, call by call, rank by rank         */
  size_t *first;            /* call k, rank r: ext[first[k*nranks + r] ..
                             * first[k*nranks + r + 1]); ncalls*nranks + 1     */
} model_plans;

/* Builds the plans of o for P ranks: CLI_OK, or the status of a usage
 * error (the pattern cannot be built for P ranks) or of a runtime error
 * (out of memory), with the message printed. Free with model_plans_free
 * in either case. */
int model_plans_build(const char *cmd, const ob_pattern_opts *o, int64_t P, model_plans *p);
/* Call k's extents of every rank (none past a rank's last step); the
 * shape of ostio__advise_input's callback. Returns 0. */
int model_plans_call(void *plans, int k, const ostio_extent **ext, size_t *n);
void model_plans_free(model_plans *p);

/* What a statistics document says about one of its files. */
typedef struct model_run {
  char file[256];
  int64_t nprocs, world_size, calls, bytes, aggr_max, index;
  int64_t stripe_count, stripe_size, ncomponents;
  int strategy;             /* ostio__mstrategy the run used most               */
  int fpp;                  /* one file of a file-per-process set               */
  int container;            /* ostio__mcontainer: layout.source "container" is
                             * a striped container, "log" a log container       */
  int cache;                /* the cache counters moved pages                   */
  unsigned prefer;          /* ostio__advise_prefer bits of the file's warnings */
  int64_t sys_writes, indep;  /* system writes; independent calls per rank      */
  /* The application's write pieces (app_write_* counters, issue 31; 0 in a
   * document from before): their number (sum; fewest of one rank), bytes,
   * largest, the pieces one stride after the rank's last, the stride's
   * smallest and largest value over ranks. */
  int64_t pieces, pieces_min, piece_bytes, piece_max, strided, stride_min, stride_max;
} model_run;

/* Reads file index want (-1: the one with the most bytes written) of the
 * document at path: CLI_OK, or the status of a runtime error with a
 * message naming the file and what is accepted. A log container (no stripe
 * layout in the document) is read with stripe count 1 and 1 MiB stripes,
 * the logs' layout being unknown. */
int model_stats_read(const char *cmd, const char *path, int64_t want, model_run *s);
/* The run as IOR's segmented pattern: -b b -t b -s C with b the bytes per
 * rank per call and C the calls per rank. A run of independent calls that
 * made several system writes per call (a strided view: one piece each) is
 * IOR's strided pattern: -p strided -b b -t b/k -s C, k pieces per call.
 * So is a run whose application pieces (app_write_* counters) were k > 1
 * per call, all of t bytes and a common stride apart on every rank:
 * -p strided -b k*t -t t -s C. */
void model_stats_pattern(const model_run *s, ob_pattern_opts *o);
/* The run's rank count: world_size for one file of a file-per-process
 * set, else nprocs. */
int64_t model_stats_ranks(const model_run *s);

#endif
