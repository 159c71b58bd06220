/* The test-only template strategy "template" (strategy_template.c). */
#ifndef OSTIO_TESTS_STRATEGY_TEMPLATE_H
#define OSTIO_TESTS_STRATEGY_TEMPLATE_H

#include "engine/strategy.h"

extern const ostio__strategy ostio__strategy_template;

/* How often the library called the template's ops: proof that the
 * registry, not a copy of another strategy, ran the call. */
typedef struct ostio_test_strategy_calls {
  int want, domains, owner;
} ostio_test_strategy_calls;
extern ostio_test_strategy_calls ostio_test_strategy_template_calls;

#endif
