/* The test-only template kind "xor" (kind_template.c). */
#ifndef OSTIO_TESTS_KIND_TEMPLATE_H
#define OSTIO_TESTS_KIND_TEMPLATE_H

#include "file/kind.h"

extern const ostio__kind_ops ostio_test_kind_xor;

#endif
