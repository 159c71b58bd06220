/* File domains: which aggregator owns which byte in a collective call.
 * Pure functions, no MPI and no I/O. The strategies of the collective engine
 * (issue 3) are built on these ownership rules:
 *   even     ROMIO's classic two-phase: [lo, hi) split into naggr contiguous
 *            domains of equal size (the "conforming distribution").
 *   aligned  contiguous domains whose boundaries fall on stripe boundaries.
 *   ost      Y-lib's one-to-one pattern: every stripe of object o goes to
 *            aggregator o mod naggr when naggr <= stripe_count; with more
 *            aggregators an object's stripes rotate over at most co_ratio
 *            aggregators (a = o + K * (j mod r), j = stripe / K), so each
 *            aggregator still touches exactly one object of a component.
 * See docs/domains.md. */
#ifndef OSTIO_PLAN_DOMAIN_H
#define OSTIO_PLAN_DOMAIN_H

#include <stdint.h>

#include "layout/layout.h"

typedef enum {
  OSTIO__DOM_EVEN = 0,
  OSTIO__DOM_ALIGNED,
  OSTIO__DOM_OST
} ostio__domain_kind;

typedef struct ostio__domains {
  int kind;                 /* ostio__domain_kind                         */
  int naggr;                /* aggregators available                      */
  int co_ratio;             /* ost: aggregators per object at most        */
  int64_t lo, hi;           /* even/aligned: aggregate access range       */
  int64_t size;             /* even/aligned: bytes per domain (last may be shorter) */
  const ostio_layout *l;    /* borrowed; must outlive the domains         */
} ostio__domains;

/* Sets up ownership for [lo, hi) (even, aligned) or the whole file (ost).
 * naggr >= 1, co_ratio >= 1, 0 <= lo <= hi. OSTIO_EINVAL with a detail. */
int ostio__domains_init(ostio__domains *d, int kind, const ostio_layout *l, int64_t lo,
                        int64_t hi, int naggr, int co_ratio);

/* Aggregator owning the byte at off; *run_end (optional) receives the end of
 * the run [off, run_end) with the same owner, so callers split extents with
 * one call per run. Offsets outside [lo, hi) for even/aligned are clamped to
 * the first/last domain. Negative on error (offset past the layout). */
int ostio__domain_owner(const ostio__domains *d, int64_t off, int64_t *run_end);

/* Aggregators that can own bytes: even/aligned at most naggr (fewer when the
 * range is short); ost: per component min(naggr, K * r) over components. */
int ostio__domains_active(const ostio__domains *d);

#endif
