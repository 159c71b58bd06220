/* Shared by the statistics sources (stats.c, stats_json.c, stats_report.c);
 * not part of stats.h's interface. */
#ifndef OSTIO_STATS_IMPL_H
#define OSTIO_STATS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "stats/stats.h"

enum { OSTIO__STATS_RED_SUM, OSTIO__STATS_RED_MAX };

typedef struct ostio__stats_counter_def {
  const char *name;
  int reduce;                /* OSTIO__STATS_RED_* */
  const char *desc;
} ostio__stats_counter_def;
typedef struct ostio__stats_timer_def {
  const char *name;
  const char *desc;
} ostio__stats_timer_def;
extern const ostio__stats_counter_def ostio__stats_counters[OSTIO__NSTAT];
extern const ostio__stats_timer_def ostio__stats_timers[OSTIO__NTIMER];

/* Name of counter i of c[] (0 <= i < OSTIO__NCOUNTER) into buf, given the
 * strategy slots' names; NULL for a slot no strategy holds. */
const char *ostio__stats_counter_name(const char (*strat)[OSTIO__STATS_STRAT_NAME], int i,
                                      char *buf, size_t cap);
/* OSTIO__STATS_RED_* of counter i (the strategy slots are sums). */
int ostio__stats_counter_reduce(int i);

/* a + b, saturating at the int64 limits. */
int64_t ostio__stats_sat_add(int64_t a, int64_t b);
/* Merges b (a fold of other ranks) into a: the reduction operator. */
void ostio__stats_merge(ostio__stats_reduced *a, const ostio__stats_reduced *b);
/* *out = the buffer, or OSTIO_ENOMEM naming what (the buffer freed). */
int ostio__stats_finish(ostio__sbuf *s, char **out, const char *what);

/* "%.64s" of text with control characters shown as '?' (one line). */
void ostio__stats_quote(char *buf, size_t cap, const char *text);

/* The job's identity (it follows the writer: the pid changes after a fork). */
void ostio__stats_job_set_id(ostio__stats_job *job, const ostio__stats_jobid *id);

#endif
