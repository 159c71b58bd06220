/* Staged writers of a log container as the offline tools see them (issue
 * 19): what `ostio stage status` shows, the findings of `ostio container
 * check`, what `recover` gives up, and compact's refusal. No MPI. The drain
 * itself is log_stage.h's. See docs/containers.md ("Staged writers"). */
#ifndef OSTIO_CONTAINER_LOGTOOL_STAGE_H
#define OSTIO_CONTAINER_LOGTOOL_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "container/log/log.h"
#include "container/log/log_stage.h"

/* Logical bytes a record of the container's index names whose data the
 * container's copy lacks: [start, end), in count pieces of length every
 * stride (count 1: one run). */
typedef struct ostio__stagerange {
  int64_t start, end, length, stride, count;
} ostio__stagerange;

/* One staged writer (src i of a scan, flag OSTIO__LOGSRC_STAGED). */
typedef struct ostio__stageview {
  int rec_ok;              /* the stage record reads (else problem says why)   */
  ostio__stagerec rec;     /* its host and stage directory                     */
  char problem[1536];
  int refused;             /* the record's directory is not this writer's (not
                            * DIR/ostio.HASH.S, a link, someone else's):
                            * problem says why, rec_err is the error code     */
  int rec_err;
  int here;                /* the record's host is this node (ostio__stage_self) */
  int reachable;           /* the stage directory opens from here and holds the
                            * writer's staged index                           */
  int64_t staged_data, staged_index;   /* in the stage directory; -1: unknown   */
  int64_t drained_data, drained_index; /* the container's copies (0: none yet)  */
  int64_t indexed;         /* largest data end the container's index names     */
  int64_t records;         /* valid records of the container's index copy      */
  ostio__stagerange *lost; /* what that index names beyond the drained data,
                            * by start, contiguous runs merged               */
  size_t nlost;
  int64_t lost_bytes;
} ostio__stageview;

/* Fills v for src i (free it with ostio__stage_view_free). < 0 only when
 * out of memory or the container's copies cannot be read. */
int ostio__stage_view(ostio__logdir *d, size_t i, ostio__stageview *v);
void ostio__stage_view_free(ostio__stageview *v);
/* "[a, b)" or "[a, b) in N pieces of L bytes every S" into buf. */
void ostio__stage_range_text(const ostio__stagerange *r, char *buf, size_t cap);

/* check: one finding per staged writer (where, how much is drained), one per
 * range not drained (at most 8 per writer, then a summary), one per damaged
 * stage record. Returns the count. */
int ostio__log_check_stage(ostio__logdir *d, ostio__ctr_report report, void *arg);
/* recover's first step: drains every writer staged on this node, then gives
 * up each staged writer whose stage directory cannot be reached from here
 * (its stage record removed; recover's next step cuts its index where it
 * points past the drained data). Writers staged on another node whose
 * directory is reachable are left alone (said, not counted). Returns the
 * count of repairs. */
int ostio__log_recover_stage(const char *path, ostio__ctr_report report, void *arg);
/* compact's guard: OSTIO_ESTAGED naming the first staged writer, else 0. */
int ostio__log_refuse_staged(const ostio__logdir *d);

#endif
