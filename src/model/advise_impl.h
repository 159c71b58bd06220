/* What advise.c (the search) and advise_lines.c (the lines of the result)
 * share: the search state and the small questions about a choice. */
#ifndef OSTIO_MODEL_ADVISE_IMPL_H
#define OSTIO_MODEL_ADVISE_IMPL_H

#include "model/advise.h"

#define OSTIO__ADV_MAX_COUNTS 16   /* stripe counts tried: 11 powers, the bound, current */
#define OSTIO__ADV_MAX_SIZES 3

typedef struct ostio__advise_ctx {
  const ostio__advise_input *in;
  ostio__sys sys;                  /* the input's, with the ranks per node used */
  ostio__model_acc acc;            /* reused by every simulation                */
  const ostio_extent **ext;
  size_t *n;
  ostio__advise_eval done[OSTIO__ADVISE_MAX_SIMS];
  int ndone;
  int64_t counts[OSTIO__ADV_MAX_COUNTS], sizes[OSTIO__ADV_MAX_SIZES];
  int ncounts, nsizes;
  int most;                        /* simulations this call can make           */
} ostio__advise_ctx;

/* Where a choice's bytes go: the container knob's values. */
enum { OSTIO__ADV_SHARED = 0, OSTIO__ADV_STRIPED, OSTIO__ADV_LOG, OSTIO__ADV_FPP };
int ostio__advise_kind(const ostio__advise_choice *c);
const char *ostio__advise_kind_name(int kind);
/* A shared file or a striped container: a strategy and the cache apply. */
int ostio__advise_has_strategy(const ostio__advise_choice *c);
int ostio__advise_collective(int strategy);
int ostio__advise_same(const ostio__advise_choice *a, const ostio__advise_choice *b);
/* The candidate's result, simulated once: *out points into x->done. */
int ostio__advise_evaluate(ostio__advise_ctx *x, ostio__advise_choice c,
                           const ostio__advise_eval **out);
/* Fills out->knob[] from out->current to out->best (advise_lines.c). */
int ostio__advise_fill_knobs(ostio__advise_ctx *x, ostio__advise_result *out, int64_t nodes);

#endif
