/* File domains: which aggregator owns which byte in a collective call.
 * Pure functions, no MPI and no I/O. A domain rule is a small ops struct;
 * each collective strategy (src/engine/strategy_*.c) picks the rule it
 * wants, so no code here or in the engine switches on a strategy:
 *   even     ROMIO's classic two-phase: [lo, hi) split into naggr contiguous
 *            domains of equal size (the "conforming distribution").
 *   aligned  contiguous domains whose boundaries fall on stripe boundaries.
 *   ost      Y-lib's one-to-one pattern: every stripe of object o goes to
 *            aggregator o mod naggr when naggr <= stripe_count; with more
 *            aggregators an object's stripes rotate over at most co_ratio
 *            aggregators (a = o + K * (j mod r), j = stripe / K), so each
 *            aggregator still touches exactly one object of a component.
 * A strategy may also bring its own rule (tests/strategy_template.c).
 * See docs/domains.md. */
#ifndef OSTIO_PLAN_DOMAIN_H
#define OSTIO_PLAN_DOMAIN_H

#include <stdint.h>

#include "layout/layout.h"

typedef struct ostio__domains ostio__domains;

typedef struct ostio__domain_rule {
  const char *name;
  /* Completes d (its arguments checked and stored by ostio__domains_init);
   * NULL: nothing to add. 0 or an error with a detail. */
  int (*setup)(ostio__domains *d);
  /* See ostio__domain_owner and ostio__domains_active. */
  int (*owner)(const ostio__domains *d, int64_t off, int64_t *run_end);
  int (*active)(const ostio__domains *d);
  /* The order in which an aggregator handles its pieces: (major, minor) of
   * the byte at off. NULL: by file offset (major 0). */
  int (*key)(const ostio__domains *d, int64_t off, int64_t *major, int64_t *minor);
} ostio__domain_rule;

extern const ostio__domain_rule ostio__domain_even;
extern const ostio__domain_rule ostio__domain_aligned;
extern const ostio__domain_rule ostio__domain_ost;

struct ostio__domains {
  const ostio__domain_rule *rule;
  int naggr;                /* aggregators available                      */
  int co_ratio;             /* ost: aggregators per object at most        */
  int64_t lo, hi;           /* even/aligned: aggregate access range       */
  int64_t size;             /* even/aligned: bytes per domain (last may be shorter) */
  const ostio_layout *l;    /* borrowed; must outlive the domains         */
};

/* Sets up ownership by rule for [lo, hi) (even, aligned) or the whole file
 * (ost). naggr >= 1, co_ratio >= 1, 0 <= lo <= hi. OSTIO_EINVAL with a
 * detail. */
int ostio__domains_init(ostio__domains *d, const ostio__domain_rule *rule, const ostio_layout *l,
                        int64_t lo, int64_t hi, int naggr, int co_ratio);

/* Aggregator owning the byte at off; *run_end (optional) receives the end of
 * the run [off, run_end) with the same owner, so callers split extents with
 * one call per run. Offsets outside [lo, hi) for even/aligned are clamped to
 * the first/last domain. Negative on error (offset past the layout). */
int ostio__domain_owner(const ostio__domains *d, int64_t off, int64_t *run_end);

/* Aggregators that can own bytes: even/aligned at most naggr (fewer when the
 * range is short); ost: per component min(naggr, K * r) over components. */
int ostio__domains_active(const ostio__domains *d);

/* The rule's order key of the byte at off: file offset for contiguous
 * domains, (component << 32 | object, object offset) for ost. */
int ostio__domain_key(const ostio__domains *d, int64_t off, int64_t *major, int64_t *minor);

/* The contiguous rules' pieces, for a strategy that brings its own rule on
 * top of equal domains: the index k of the domain holding off (clamped to
 * [0, naggr)) and where that domain ends (saturating at INT64_MAX). */
int64_t ostio__domain_index(const ostio__domains *d, int64_t off, int64_t *end);

#endif
